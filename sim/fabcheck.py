# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""What a fabric run by OpenSM with the plugin must look like, read back
through MADs, shared by tests/integration/t-faults.py and scripts/soak.py:

- snapshot(): the topology (ibnetdiscover), every switch's LFT (dump_fts)
  and the policy `vfabric resolve --json` computes for that topology;
- routes(): `vfabric check-routes --config`: every CA pair and every pair
  a VF permits reachable, no credit loop;
- pkeys(): every present host's P_Key table and the facing switch port's,
  read with smpquery, against the policy;
- Policy.expected(): the PathRecords (P_Key, SL) the SA must answer for a
  pair, and query(): one PathRecord GetTable sent from a host with
  vfabric-sa.

Each check returns a list of problems (empty: good), so a TAP test and
the soak count them their own way.
"""

import json
import os
import random
import re
import subprocess

import vfsim

FULL = 0x8000


class Snapshot:
    """One read-back of the fabric: files and what they hold."""

    def __init__(self, label, topo, lfts, nodes, tables, policy, dropped):
        self.label = label
        self.topo = topo            # ibnetdiscover output (filtered)
        self.lfts = lfts            # dump_fts output path
        self.nodes = nodes          # parse_ibnetdiscover() of topo
        self.tables = tables        # read_lfts() of lfts
        self.policy = policy        # Policy, or None if resolve failed
        self.dropped = dropped      # tolerated hosts OpenSM does not route

    def hosts(self):
        """{host name: node dict} of the CAs present."""
        return {host_name(n): n for n in self.nodes.values()
                if n["kind"] == "Ca"}


class Policy:
    """The resolved policy on one topology: VFs (P_Key -> SL) and every
    end port's memberships, keyed by host name; LIDs of the hosts."""

    def __init__(self, resolved, lids):
        self.vfs = {int(v["pkey"], 16): v["sl"] for v in resolved["vfs"]}
        self.vf_names = {int(v["pkey"], 16): v["name"]
                         for v in resolved["vfs"]}
        self.members = {}
        for port in resolved["ports"]:
            if port["port"] == 0:
                continue
            m = {}
            for e in port["pkeys"]:
                m[int(e["pkey"], 16)] = e["membership"]
            self.members[(port["desc"].split() or ["?"])[0]] = m
        self.lids = lids            # {host: LID}

    def table(self, host):
        """The P_Key entries (full bit set for full members) the host must
        hold, default partition included."""
        out = set()
        for pkey, ms in self.members.get(host, {}).items():
            if ms in ("full", "both"):
                out.add(pkey | FULL)
            if ms in ("limited", "both"):
                out.add(pkey)
        return out

    def expected(self, src, dst):
        """{(P_Key as the source holds it, SL)} the SA answers for a
        PathRecord src -> dst asked by src: one per VF both hold, one of
        them fully (docs/sa.md)."""
        a, b = self.members.get(src), self.members.get(dst)
        if a is None or b is None:
            return frozenset()
        return frozenset((pkey | (FULL if a[pkey] in ("full", "both")
                                  else 0), sl)
                         for pkey, sl in self.vfs.items()
                         if self.shares(src, dst, pkey))

    def shares(self, src, dst, pkey):
        """True when src and dst both hold pkey, one of them fully."""
        a, b = self.members.get(src, {}), self.members.get(dst, {})
        p = pkey & 0x7fff
        return p in a and p in b and bool({a[p], b[p]} - {"limited"})


class Checker:
    """Read-backs and checks on one Sim, with the policy file in force
    (`config`: the last good file)."""

    def __init__(self, sim, config, vfabric, vfabric_sa, sm_desc,
                 diag_node=None):
        self.sim = sim
        self.config = config
        self.vfabric = vfabric
        self.vfabric_sa = vfabric_sa
        self.sm_desc = sm_desc          # "admin1 HCA-1": full on Default
        self.diag_node = diag_node
        self.n = 0
        self.lids_seen = {}         # host -> last LID discovered

    def _vfabric(self, *args):
        return subprocess.run([self.vfabric] + [str(a) for a in args],
                              capture_output=True, text=True, timeout=600)

    def diag(self, argv, node=None, tries=4):
        """run_diag with retries: a fault may drop MADs of the tools too."""
        err = None
        for _ in range(tries):
            try:
                return self.sim.run_diag(argv, node=node or self.diag_node)
            except vfsim.SimError as e:
                err = e
        raise err

    def snapshot(self, label, tolerated=()):
        """Discover, dump the LFTs, resolve the policy.  A tolerated host
        that OpenSM does not route (no LFT entry for its LID at its own
        switch) is left out of the topology the checks use."""
        self.n += 1
        base = os.path.join(self.sim.workdir, f"{self.n:04d}-{label}")
        raw = self.discover(expect=tolerated)
        lfts = base + ".dump_fts"
        with open(lfts, "w") as fh:
            fh.write(self.diag(["dump_fts"]))
        tables = vfsim.read_lfts(lfts)
        nodes = vfsim.parse_ibnetdiscover(raw)
        dropped = []
        for guid, n in list(nodes.items()):
            host = host_name(n)
            if n["kind"] != "Ca" or host not in tolerated:
                continue
            sw = n["links"].get(1, (None,))[0]
            # LID 0: OpenSM dropped the port (it also clears the LID)
            if not n["lid"] or n["lid"] not in tables.get(sw, {}):
                dropped.append(host)
                raw = drop_node(raw, guid)
        nodes = vfsim.parse_ibnetdiscover(raw)
        # a tolerated host the tools could not read at all (its NodeInfo
        # lost on every try) while OpenSM still routes it: its LID's LFT
        # rows are left out of the check, as the host is
        present = {host_name(n) for n in nodes.values()}
        for host in sorted(set(tolerated) - present):
            lid = self.lids_seen.get(host)
            if lid and any(lid in t for t in tables.values()):
                dropped.append(f"{host} (unreadable; LID {lid} routed)")
                with open(lfts) as fh:
                    rows = [ln for ln in fh
                            if not ln.startswith(f"0x{lid:04x} ")]
                lfts = base + ".checked.dump_fts"
                with open(lfts, "w") as fh:
                    fh.writelines(rows)
        self.lids_seen.update({host_name(n): n["lid"] for n in nodes.values()
                               if n["kind"] == "Ca" and n["lid"]})
        topo = base + ".ibnetdiscover"
        with open(topo, "w") as fh:
            fh.write(raw)
        policy = self.policy(topo, nodes)
        return Snapshot(label, topo, lfts, nodes, tables, policy, dropped)

    def discover(self, tries=5, expect=()):
        """ibnetdiscover output in which every node has its NodeDesc and
        every CA its LID, with the hosts `expect`ed: a lost NodeInfo,
        NodeDescription or PortInfo MAD (a port dropping MADs) leaves
        them out, and the policy goes by NodeDesc.
        Tried again; a NodeDesc still empty is filled from the net file
        by GUID."""
        for _ in range(tries):
            raw = self.diag(["ibnetdiscover"])
            nodes = vfsim.parse_ibnetdiscover(raw).values()
            # a lost PortInfo leaves a CA without its LID, a lost NodeInfo
            # leaves it out (`expect`: hosts that must be there): again
            if '# ""' not in raw and \
                    all(n["lid"] for n in nodes if n["kind"] == "Ca") and \
                    set(expect) <= {host_name(n) for n in nodes}:
                return raw
        by_guid = {n.guid: n.desc for n in self.sim.nodes.values()}

        def fill(m):
            desc = by_guid.get(int(m.group(2), 16))
            return f'{m.group(1)}# "{desc}"' if desc else m.group(0)
        return re.sub(r'^((?:Ca|Switch)\s+\d+\s+"[HS]-([0-9a-f]+)"\s+)'
                      r'# ""', fill, raw, flags=re.M)

    def policy(self, topo, nodes):
        res = self._vfabric("resolve", self.config, "--topo", topo, "--json",
                            "--sm", self.sm_desc)
        if res.returncode:
            return None
        lids = {host_name(n): n["lid"] for n in nodes.values()
                if n["kind"] == "Ca"}
        return Policy(json.loads(res.stdout), lids)

    def routes(self, snap):
        """check-routes --config on the snapshot: [problems]."""
        res = self._vfabric("check-routes", "--topo", snap.topo, "--lfts",
                            snap.lfts, "--config", self.config, "--json")
        try:
            rep = json.loads(res.stdout)
        except ValueError:
            return [f"check-routes failed: {res.stderr.strip()[:300]}"]
        bad = []
        if not rep.get("ca_pairs") or rep.get("ca_unreachable"):
            bad.append(f"{rep.get('ca_unreachable')} of "
                       f"{rep.get('ca_pairs')} CA pairs unreachable: "
                       f"{json.dumps(rep.get('examples'))[:300]}")
        if rep.get("credit_loop") is not False:
            bad.append(f"credit loop: {rep.get('cycle')}")
        for c in rep.get("partitions", {}).get("classes", []):
            if c.get("unreachable"):
                bad.append(f"VF {c['name']}: {c['unreachable']} of "
                           f"{c['pairs']} permitted pairs unreachable")
        if not rep.get("partitions", {}).get("classes"):
            bad.append("check-routes saw no VF of the policy")
        return bad

    def read_pkeys(self, snap):
        """{host: (own table, facing switch port's table)} as lists."""
        out = {}
        for host, n in sorted(snap.hosts().items()):
            sw_guid, sw_port = n["links"][1]
            sw = snap.nodes[sw_guid]
            own = vfsim.parse_pkeys(self.diag(["smpquery", "pkeys",
                                               str(n["lid"])]))
            facing = vfsim.parse_pkeys(self.diag(
                ["smpquery", "pkeys", str(sw["lid"]), str(sw_port)]))
            out[host] = (own, facing)
        return out

    def pkeys(self, snap, tables=None, skip=()):
        """Every present host's table and its facing switch port's against
        the policy: [problems]; `tables` from read_pkeys() (read if
        None); `skip`: hosts a fault leaves unplanned (and "?", a host
        whose NodeDesc could not be read)."""
        if snap.policy is None:
            return ["vfabric resolve failed on the discovered fabric"]
        tables = tables if tables is not None else self.read_pkeys(snap)
        bad = []
        for host, (own, facing) in sorted(tables.items()):
            if host in skip or host == "?":
                continue
            want = snap.policy.table(host)
            got = {k for k in own if k & 0x7fff}
            if got != want:
                bad.append(f"{host}: {sorted(map(hex, got))} want "
                           f"{sorted(map(hex, want))}")
            if {k & 0x7fff for k in facing if k & 0x7fff} != \
                    {k & 0x7fff for k in want}:
                bad.append(f"switch port facing {host}: "
                           f"{sorted(map(hex, facing))}")
        if not tables:
            bad.append("no host P_Key table read")
        return bad

    def query(self, src, slid, dlid, timeout_ms=1000, retries=2):
        """One PathRecord GetTable slid -> dlid asked from host src:
        (status name, frozenset((P_Key, SL))); status 'no answer' when
        the SA did not answer."""
        out = self.sim.run_diag(
            [self.vfabric_sa, "path", "--slid", str(slid), "--dlid",
             str(dlid), "--timeout", str(timeout_ms), "--retries",
             str(retries)], node=src, check=False)
        lines = out.strip().splitlines()
        m = re.match(r"status (0x[0-9a-f]+) (\S+) records (\d+)",
                     lines[0] if lines else "")
        if not m:
            return "no answer", frozenset()
        recs = [dict(kv.split("=", 1) for kv in ln.split())
                for ln in lines[1:] if "=" in ln]
        return m.group(2), frozenset((int(r["pkey"], 16), int(r["sl"]))
                                     for r in recs)

    def sa(self, snap, pairs):
        """PathRecords for `pairs` [(src, dst)] against the policy:
        [problems]."""
        if snap.policy is None:
            return ["no policy to check the SA against"]
        bad = []
        lids = snap.policy.lids
        for src, dst in pairs:
            st, got = self.query(src, lids[src], lids[dst])
            want = snap.policy.expected(src, dst)
            if st != "SUCCESS" or got != want:
                bad.append(f"{src} -> {dst}: {st} {fmt(got)} want "
                           f"{fmt(want)}")
        return bad


def host_name(node):
    """The host name of a parse_ibnetdiscover() node ("cn0001" of
    "cn0001 HCA-1"; "?" when its NodeDesc was not read)."""
    return (node["desc"].split() or ["?"])[0]


def fmt(recs):
    return "{" + ", ".join(f"{p:#06x}/SL{s}" for p, s in sorted(recs)) + "}"


def sample_pairs(policy, n, rng, hosts=None):
    """n random (src, dst) host pairs, about half of them permitted."""
    hosts = sorted(h for h in (hosts if hosts is not None else policy.lids)
                   if h != "?")
    ok = [(a, b) for a in hosts for b in hosts
          if a != b and policy.expected(a, b)]
    no = [(a, b) for a in hosts for b in hosts
          if a != b and not policy.expected(a, b)]
    out = rng.sample(ok, min(len(ok), (n + 1) // 2))
    out += rng.sample(no, min(len(no), n - len(out)))
    return out


def drop_node(text, guid):
    """ibnetdiscover output without the CA of node GUID `guid`: its block
    and the switch port lines pointing at it."""
    tag = f'"H-{guid:016x}"'
    blocks = [b for b in text.split("\n\n")
              if not any(ln.startswith("Ca") and tag in ln
                         for ln in b.splitlines())]
    return "\n".join(ln for ln in "\n\n".join(blocks).splitlines()
                     if tag not in ln) + "\n"


def rss_kb(pid):
    """VmRSS of a process in kB (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def seeded(seed=None):
    """A random.Random and its seed (printed by callers to repeat a run)."""
    seed = seed if seed is not None else random.SystemRandom().randrange(
        1 << 31)
    return random.Random(seed), seed
