#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""PathRecord and MCMemberRecord answered by vFabric, end to end: real
OpenSM with the plugin on an ibsim fat tree, queried with vfabric-sa from
the hosts.

1. The worked example of the Omni-Path FM reference (section 11), each
   bullet a check: P_Keys, P_Key tables, SLs, and the PathRecords between
   compute nodes and storage servers with and without Lustre's ServiceID,
   with Lustre in Standby, and with LMC 2.
2. Every malformed request kind gets its SA status and OpenSM keeps
   answering; selectors, NumbPath, MaxMTU/MaxRate/PktLifeTimeMult, the
   requester's P_Key rule.
3. MCMemberRecord creates and joins checked against the VFs.
4. PathSelection Minimal, Pairwise, OrderAll and SrcDstAll with LMC 1 and
   2, with and without a fixed SLID or DLID, against the reference's
   rules implemented here independently.
5. A burst of parallel queries while a reconfiguration sweep runs: every
   answer is the old policy's or the new one's.
6. MultiPathRecord answered by the same rules.
7. Without a vFabric config the plugin's OpenSM answers exactly as stock
   OpenSM does.

ibsim's umad2sim delivers only the first 256 bytes of an answer (two or
three PathRecords), so whole answers are read from the plugin's sa_log
line; the records that do arrive are checked against it.
"""

import os
import re
import subprocess
import threading

import topogen
import vfsim
import vftest

SA = vftest.VFABRIC_SA
EXAMPLE = os.path.join(vftest.TOP_SRCDIR, "tests", "data",
                       "vf-worked-example.xml")
LUSTRE_SID = "0x10603DB"
PSM_SID = "0x1000117500000001"


def fabric():
    """4 leaves x 4 hosts; cn0013-cn0016 are the storage servers
    oss01-oss04 (by NodeDesc, which the Storage group matches)."""
    net = topogen.fattree2(leaves=4, spines=2, hosts=4)
    for i in range(13, 17):
        net.nodes[f"cn{i:04d}"].desc = f"oss{i - 12:02d} HCA-1"
    return net


class Fabric:
    """One OpenSM on the fabric and what the tests need of it."""

    def __init__(self, sim, conf_path, lmc=0, plugin=True):
        """conf_path None: the plugin without a vFabric config;
        plugin False: stock OpenSM."""
        self.sim = sim
        self.conf_path = conf_path
        config = f" config={conf_path}" if conf_path else ""
        lines = vftest.plugin_conf(
            engine="fattree", options=f"log_level=info sa_log=on{config}",
            extra=[f"lmc {lmc}"])
        if not plugin:
            lines = [ln for ln in lines if not ln.startswith(
                ("event_plugin", "routing_engine"))]
        sim.start_opensm(conf_lines=lines, plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
        self.lid, self.guid, self.sw_lid = {}, {}, {}
        for g, n in nodes.items():
            name = n["desc"].split()[0]
            if n["kind"] == "Switch":
                self.sw_lid[name] = n["lid"]
            else:
                self.lid[name] = n["lid"]
                self.guid[name] = g + 1     # port 1 of the CA
        self.lmc = lmc

    def ask(self, args, at="cn0004"):
        """vfabric-sa at host `at`: (status, [record dicts])."""
        out = self.sim.run_diag([SA] + [str(a) for a in args], node=at,
                                check=False)
        return parse(out)

    def path(self, src, dst, *extra, at="cn0004", by="lid"):
        if by == "lid":
            ends = ["--slid", self.lid[src], "--dlid", self.lid[dst]]
        else:
            ends = ["--sgid", hex(self.guid[src]), "--dgid",
                    hex(self.guid[dst])]
        return self.ask(["path"] + ends + list(extra), at=at)

    def answers(self, since):
        """The sa_log lines logged since `since`: [(count, [(slid, dlid,
        pkey, sl)])]."""
        out = []
        for m in re.finditer(r"sa: \S+ \S+ from LID \d+ \(comp_mask "
                             r"\S+, \S+\): (\d+) records:([^\n]*)",
                             self.sim.log_text(since)):
            recs = [tuple(int(x, 0) for x in r.split("/")[:1][0].split(">"))
                    + tuple(int(x, 0) for x in r.split("/")[1:])
                    for r in m.group(2).split() if r != "..."]
            out.append((int(m.group(1)), recs))
        return out

    def sighup(self, text):
        since = self.sim.reload_config(self.conf_path, text)
        self.sim.wait_log(r"P_Key tables of \d+ end ports verified",
                          since=since)


def parse(out):
    lines = out.strip().splitlines()
    m = re.match(r"status (0x[0-9a-f]+) (\S+) records (\d+)",
                 lines[0] if lines else "")
    if not m:
        return ("no answer: " + out[-300:], [])
    recs = [dict(kv.split("=", 1) for kv in ln.split())
            for ln in lines[1:] if "=" in ln]
    return (m.group(2), recs)


def pk_sl(recs):
    return [(int(r["pkey"], 16), int(r["sl"])) for r in recs]


# --- 1. the worked example ---------------------------------------------

def worked_example(t, f, assign):
    lustre, compute = assign.get("Lustre"), assign.get("Compute")
    t.ok(lustre and compute and lustre != compute and
         not {lustre, compute} & {0x0001, 0x7fff},
         "11: Compute and Lustre (secure, automatic) get P_Keys of their "
         "own, neither Default's 0x0001 nor Admin's 0x7fff", str(assign))
    tbl = set(f.sim.pkeys(f.lid["cn0002"])) - {0}
    want = {0x8001, 0x7fff, 0x8000 | compute, lustre}
    t.ok(tbl == want, "11: a compute node's P_Key table: Default full "
         "(insecure), 0x7fff limited, Compute full, Lustre limited",
         f"{sorted(map(hex, tbl))} want {sorted(map(hex, want))}")
    tbl = set(f.sim.pkeys(f.lid["oss01"])) - {0}
    want = {0x8001, 0x7fff, 0x8000 | compute, 0x8000 | lustre}
    t.ok(tbl == want, "11: a storage server's table: the same with "
         "Lustre full", f"{sorted(map(hex, tbl))}")

    st, recs = f.path("cn0002", "cn0003")
    t.ok(st == "SUCCESS" and pk_sl(recs) == [(0x8001, 0),
                                             (0x8000 | compute, 1)],
         "11: compute to compute, no ServiceID or P_Key: Default (0x8001, "
         "SL 0) then Compute (SL 1, the lowest free); not Admin, not "
         "Lustre (both ends limited there)", f"{st} {pk_sl(recs)}")
    st, recs = f.path("cn0002", "oss01", "--sid", LUSTRE_SID)
    t.ok(st == "SUCCESS" and pk_sl(recs) == [(lustre, 5)] and
         int(recs[0]["pktlife"]) == 18,
         "11: compute to storage with Lustre's ServiceID: Lustre only, its "
         "P_Key as the compute node holds it (limited), SL 5; lifetime 18 "
         "over three switches", f"{st} {recs}")
    st, recs = f.path("cn0002", "cn0003", "--sid", LUSTRE_SID)
    t.ok(st == "SUCCESS" and recs == [],
         "11: Lustre's ServiceID between two compute nodes: no path (the "
         "SID is listed by Lustre, so Default's catch-all does not take it)",
         f"{st} {recs}")
    st, _ = f.path("cn0002", "cn0003", "--sid", LUSTRE_SID, "--get")
    t.ok(st == "NO_RECORDS", "... and a Get for it: NO_RECORDS", st)
    st, recs = f.path("cn0002", "cn0002", "--sid", LUSTRE_SID)
    t.ok(st == "SUCCESS" and pk_sl(recs) == [(lustre, 5)],
         "loopback (cn0002 to itself) with Lustre's ServiceID: Lustre, "
         "where cn0002 is only a limited member (the FM: 'unless "
         "src==dst'), its P_Key as cn0002 holds it", f"{st} {recs}")
    st, recs = f.path("cn0002", "cn0003", "--pkey", hex(0x7fff))
    t.ok(st == "SUCCESS" and recs == [],
         "... while between two hosts limited in Admin (0x7fff): no path",
         f"{st} {recs}")
    st, recs = f.path("cn0002", "cn0006", "--sid", PSM_SID)
    t.ok(pk_sl(recs) == [(0x8000 | compute, 1)] and
         int(recs[0]["pktlife"]) == 18,
         "PSM's ServiceID: Compute alone", f"{st} {recs}")


def worked_example_qos(t, f):
    """11: QoS groups G0 (Default, Admin), G1 (Compute), G2 (Lustre) on
    SLs 0, 1, 5 and VLs 0, 1, 2; bandwidth 40/40/20 -> VLArb weights
    96/96/48 (12 per 5%), read back from a compute host (smpquery at its
    own port, directed route 0)."""
    out = f.sim.run_diag(["smpquery", "sl2vl", "-D", "0"], node="cn0002")
    m = re.search(r"ports: in\s+0, out\s+0:\s*((?:\|\s*\d+)+)", out)
    sl2vl = [int(x) for x in re.findall(r"\d+", m.group(1))] if m else []
    t.ok(sl2vl[:6] == [0, 1, 0, 0, 0, 2],
         "11: SL 0 (Default, Admin) on VL 0, SL 1 (Compute) on VL 1, SL 5 "
         "(Lustre) on VL 2", out)
    out = f.sim.run_diag(["smpquery", "vlarb", "-D", "0"], node="cn0002")
    vls = [int(x, 16) for line in out.splitlines()
           if line.startswith("VL") for x in re.findall(r"0x[0-9a-f]+",
                                                          line, re.I)]
    ws = [int(x, 16) for line in out.splitlines()
          if line.startswith("WEIGHT") for x in re.findall(r"0x[0-9a-f]+",
                                                           line, re.I)]
    low = {vl: w for vl, w in list(zip(vls, ws))[:8] if w}
    t.ok(low == {0: 96, 1: 96, 2: 48},
         "11: bandwidth 40% non-QoS, 40% Compute (the even split), 20% "
         "Lustre: VL arbitration weights 96/96/48", out)


def lustre_standby(t, f, text, lustre):
    f.sighup(text.replace("<Standby>0</Standby>", "<Standby>1</Standby>"))
    st, recs = f.path("cn0002", "oss01", "--sid", LUSTRE_SID)
    t.ok(st == "SUCCESS" and pk_sl(recs) == [(0x8001, 0)],
         "11: Lustre in Standby: no VF lists its ServiceID any more, so "
         "Default (UnmatchedServiceID) answers", f"{st} {recs}")
    f.sighup(text)
    st, recs = f.path("cn0002", "oss01", "--sid", LUSTRE_SID)
    t.ok(pk_sl(recs) == [(lustre, 5)], "Lustre back from Standby answers "
         "again", f"{st} {recs}")


def multipath(t, f, assign):
    """MultiPathRecord: the same answers for every SGID x DGID."""
    lustre, compute = assign["Lustre"], assign["Compute"]
    two = hex(f.guid["cn0003"]) + "," + hex(f.guid["oss01"])
    since = f.sim.log_offset()
    st, recs = f.ask(["mpath", "--sgids", hex(f.guid["cn0002"]),
                      "--dgids", two])
    got = f.answers(since)
    s, d1, d2 = f.lid["cn0002"], f.lid["cn0003"], f.lid["oss01"]
    want = [(s, d1, 0x8001, 0), (s, d1, 0x8000 | compute, 1),
            (s, d2, 0x8001, 0), (s, d2, 0x8000 | compute, 1),
            (s, d2, lustre, 5)]
    t.ok(st == "SUCCESS" and got and got[-1][1] == want and
         pk_sl(recs) == [(p, sl) for _, _, p, sl in want[:len(recs)]],
         "MultiPathRecord from a compute node to a compute node and a "
         "storage server: Default and Compute to both, Lustre (limited "
         "to full) to the server", f"{st} {got[-1:]} {recs}")
    st, recs = f.ask(["mpath", "--sgids", hex(f.guid["cn0002"]),
                      "--dgids", two, "--sid", LUSTRE_SID])
    t.ok(st == "SUCCESS" and pk_sl(recs) == [(lustre, 5)],
         "... with Lustre's ServiceID: the server only", f"{st} {recs}")
    st, recs = f.ask(["mpath", "--sgids", hex(f.guid["cn0002"]),
                      "--dgids", two, "--numb-path", 1])
    t.ok(st == "SUCCESS" and len(recs) == 1, "... NumbPath 1: one record "
         "in all", f"{st} {recs}")
    st, _ = f.ask(["mpath", "--sgids", hex(f.guid["cn0002"]), "--dgids",
                   "0x2c903deadbeef"])
    t.ok(st == "INVALID_GID", "... to an unknown GID: INVALID_GID", st)
    st, _ = f.ask(["mpath", "--sgids", hex(f.guid["cn0002"]), "--dgids",
                   two, "--method", "0x12"])
    t.ok(st == "UNSUP_METHOD_ATTR", "... as a GetTable: UNSUP_METHOD_ATTR",
         st)


# --- 2. malformed requests, selectors, limits -------------------------

BAD = [
    ("a Set (method 0x02)", ["--method", "0x02"], "UNSUP_METHOD_ATTR"),
    ("a Delete (method 0x15)", ["--method", "0x15"], "UNSUP_METHOD_ATTR"),
    ("an unknown method (0x14)", ["--method", "0x14"], "UNSUP_METHOD_ATTR"),
    ("a reserved component bit (7)", ["--comp-mask", "0xb0"],
     "REQ_INVALID"),
    ("a component bit beyond the record (40)",
     ["--comp-mask", hex(0x30 | 1 << 40)], "REQ_INVALID"),
    ("half a ServiceID (bit 0 only)", ["--comp-mask", "0x31"],
     "INSUF_COMPS"),
    ("NumbPath 0", ["--numb-path", "0"], "REQ_INVALID"),
]


def malformed(t, f):
    base = ["path", "--slid", f.lid["cn0002"], "--dlid", f.lid["cn0003"]]
    for what, extra, want in BAD:
        st, _ = f.ask(base + extra)
        t.ok(st == want, f"{what}: {want}", st)
    for what, args, want in [
            ("an unknown DLID", ["path", "--slid", f.lid["cn0002"],
                                 "--dlid", 999], "NO_RECORDS"),
            ("an unknown SLID", ["path", "--slid", 998, "--dlid",
                                 f.lid["cn0002"]], "NO_RECORDS"),
            ("an unknown DGID", ["path", "--sgid", hex(f.guid["cn0002"]),
                                 "--dgid", "0x2c903deadbeef"],
             "INVALID_GID"),
            ("an SGID off this subnet", ["path", "--sgid",
                                         "fec0::2:c903:0:21", "--dlid",
                                         f.lid["cn0003"]], "INVALID_GID"),
            ("SGID and SLID of different ports",
             ["path", "--sgid", hex(f.guid["cn0002"]), "--slid",
              f.lid["cn0003"], "--dlid", f.lid["cn0005"]], "REQ_INVALID"),
            ("a Get that many records answer (source only)",
             ["path", "--get", "--slid", f.lid["cn0002"]],
             "TOO_MANY_RECORDS")]:
        st, _ = f.ask(args)
        t.ok(st == want, f"{what}: {want}", st)
    st, recs = f.path("cn0002", "cn0003", "--numb-path", 1)
    t.ok(st == "SUCCESS" and len(recs) == 1, "NumbPath 1: one record of "
         "the two VFs", f"{st} {len(recs)}")
    st, recs = f.path("cn0002", "cn0003", "--numb-path", 127)
    t.ok(st == "SUCCESS" and len(recs) == 2, "NumbPath 127 (the largest): "
         "both", f"{st} {len(recs)}")
    st, recs = f.path("cn0002", "cn0003", "--get", "--pkey", "0x0001")
    t.ok(st == "SUCCESS" and pk_sl(recs) == [(0x8001, 0)],
         "a Get narrowed to one VF by its P_Key: one record", f"{st} {recs}")
    st, recs = f.path("cn0002", "cn0003", "--sl", 1)
    t.ok(pk_sl(recs)[:1] and pk_sl(recs)[0][1] == 1 and len(recs) == 1,
         "the query's SL narrows to the VF on it", f"{st} {recs}")
    st, recs = f.path("cn0002", "cn0003", "--sl", 7)
    t.ok(st == "SUCCESS" and recs == [], "an SL no VF has: no record",
         f"{st} {recs}")
    alive = f.sim.osms[-1].alive() and f.path("cn0002", "cn0003")[0] == \
        "SUCCESS"
    t.ok(alive, "after every malformed request OpenSM runs and answers")


def selectors(t, f):
    """Compute here has MaxMTU 1024, MaxRate 2.5g, PktLifeTimeMult 4."""
    st, recs = f.path("cn0002", "cn0006", "--sid", PSM_SID)
    r = recs[0] if recs else {}
    t.ok(r.get("mtu") == "1024" and r.get("rate") == "2" and
         r.get("pktlife") == "20",
         "a VF's MaxMTU 1024 and MaxRate 2.5g cap the path's 2048 and "
         "10g; PktLifeTimeMult 4 adds 2 to the lifetime (18 -> 20)",
         f"{st} {recs}")
    for sel, want in [(">1024", []), ("<1024", ["512"]), ("=512", ["512"]),
                      ("best", ["1024"]), ("=2048", [])]:
        st, recs = f.path("cn0002", "cn0006", "--sid", PSM_SID, "--mtu",
                          sel)
        t.ok(st == "SUCCESS" and [r["mtu"] for r in recs] == want,
             f"MTU selector {sel} on a 1024 path: {want or 'no record'}",
             f"{st} {recs}")
    st, recs = f.path("cn0002", "cn0006", "--sid", PSM_SID, "--rate", ">2")
    t.ok(recs == [], "rate selector >2.5g on a 2.5g VF: no record",
         f"{st} {recs}")
    st, recs = f.path("cn0002", "cn0006", "--pkey", "0x0001", "--rate",
                      "=2")
    t.ok([r["rate"] for r in recs] == ["2"], "rate =2.5g on a 10g path: "
         "2.5g", f"{st} {recs}")
    st, recs = f.path("cn0002", "cn0006", "--pkey", "0x0001",
                      "--pkt-life", "<18")
    t.ok([r["pktlife"] for r in recs] == ["17"], "lifetime <18: 17",
         f"{st} {recs}")


def pkey_rules(t, f):
    """cn0012 is in no VF: only a limited member of the default
    partition, like every host."""
    st, recs = f.path("cn0002", "cn0012", at="cn0004")
    t.ok(st == "SUCCESS" and recs == [], "no path between ports that share "
         "no P_Key (cn0012 is in no VF)", f"{st} {recs}")
    st, recs = f.path("cn0002", "cn0003", at="cn0012")
    t.ok(st == "SUCCESS" and recs == [], "a requester sharing no P_Key "
         "with the ends gets no path (C15-0.1.21)", f"{st} {recs}")
    st, recs = f.path("cn0002", "cn0003", at="cn0004")
    t.ok(len(recs) == 2, "the same query from a host in the VFs: answered",
         f"{st} {recs}")


# --- 3. multicast ------------------------------------------------------

def multicast(t, f, assign):
    lustre = assign["Lustre"]
    st, recs = f.ask(["join", "--mgid", "ff12:401b:8001::ffff:ffff",
                      "--pkey", "0x8001"], at="cn0002")
    t.ok(st == "SUCCESS" and recs and recs[0].get("mlid", "0x0") != "0x0",
         "an IPoIB join of Default's broadcast group (created for the VF)",
         f"{st} {recs}")
    st, recs = f.ask(["join", "--create", "--mgid", "ff15::1:5",
                      "--pkey", "0x8001", "--sl", 0, "--qkey", "0x11"],
                     at="cn0002")
    t.ok(st == "SUCCESS", "a create in Default: its applications take "
         "unmatched MGIDs, P_Key and SL are Default's", f"{st} {recs}")
    st, _ = f.ask(["join", "--create", "--mgid", "ff15::1:6",
                   "--pkey", "0x8001", "--sl", 5, "--qkey", "0x11"],
                  at="cn0002")
    t.ok(st == "REQ_INVALID", "a create with an SL not Default's: refused",
         st)
    st, _ = f.ask(["join", "--create", "--mgid", "ff15::1:7", "--pkey",
                   hex(0x8000 | assign["Compute"]), "--sl", 1, "--qkey",
                   "0x11"], at="cn0002")
    t.ok(st == "REQ_INVALID", "a create in Compute, whose applications "
         "take no MGID: refused", st)
    st, _ = f.ask(["join", "--create", "--mgid", "ff15::2:1", "--pkey",
                   hex(0x8000 | lustre), "--sl", 5, "--qkey", "0x11"],
                  at="cn0002")
    t.ok(st == "REQ_INVALID", "a create in secure Lustre (which takes "
         "ff15::2:*) by a limited member: refused", st)
    st, recs = f.ask(["join", "--create", "--mgid", "ff15::2:1", "--pkey",
                      hex(0x8000 | lustre), "--sl", 5, "--qkey", "0x11"],
                     at="cn0013")
    t.ok(st == "SUCCESS" and recs and recs[0].get("mtu") == "1024",
         "... by a full member (a storage server): created, its MTU "
         "narrowed to Lustre's MaxMTU 1024", f"{st} {recs}")
    st, _ = f.ask(["join", "--create", "--mgid", "ff15::2:2", "--pkey",
                   hex(0x8000 | lustre), "--sl", 5, "--qkey", "0x11",
                   "--mtu", "=2048"], at="cn0013")
    t.ok(st == "REQ_INVALID", "a create asking for MTU 2048 in Lustre "
         "(MaxMTU 1024): refused", st)
    st, recs = f.ask(["join", "--mgid", "ff15::2:1", "--pkey",
                      hex(lustre), "--join-state", 2], at="cn0014")
    t.ok(st == "SUCCESS", "a join of that group by another Lustre member",
         f"{st} {recs}")
    since = f.sim.log_offset()
    st, _ = f.ask(["join", "--mgid", "ff15::1:5", "--pkey", "0x8001"],
                  at="cn0012")
    t.ok(st == "REQ_INVALID" and
         f"sa: MCMemberRecord join of port 0x{f.guid['cn0012']:016x} to "
         "MGID 0xff150000000000000000000000010005 refused: the joiner is "
         "in no VF" in f.sim.log_text(since),
         "a join of Default's group by cn0012, in no VF with its P_Key: "
         "refused by the plugin", st)


# --- 4. PathSelection --------------------------------------------------

def expected_pairs(mode, m, sfix, n, dfix):
    """reference/opa-fm.md 3.5 and the FM's lid_iterator_init/init1
    (sa_utility.c), written independently of the C iterator: LMC offsets
    of (source, destination) in answer order."""
    if sfix is not None and dfix is not None:
        return [(sfix, dfix)]
    if sfix is None and dfix is None:
        pairwise = [(k % m, k % n) for k in range(max(m, n))]
        if mode == "minimal":
            return pairwise[:min(m, n)]
        if mode == "pairwise":
            return pairwise
        if mode == "srcdstall":
            return [(s, d) for s in range(m) for d in range(n)]
        return pairwise + [(s, d) for s in range(m) for d in range(n)
                           if (s, d) not in pairwise]
    # one side given: only the other moves, from the given LID's offset
    # (modulo its count) up by the given side's LID count (Pairwise), the
    # rest of it ascending after (OrderAll), all of it (SrcDstAll)
    fixed, mf, nx = (sfix, m, n) if sfix is not None else (dfix, n, m)
    start, low = fixed % nx, min(mf, nx)
    xs = {"minimal": [start],
          "pairwise": list(range(start, nx, mf)),
          "orderall": list(range(start, nx, mf)) +
          [x for x in range(nx) if x % low != fixed % low],
          "srcdstall": list(range(nx))}[mode]
    return [(fixed, x) if sfix is not None else (x, fixed) for x in xs]


def path_selection(t, f, text):
    span = 1 << f.lmc
    src, dst = "cn0002", "cn0010"
    s0, d0 = f.lid[src], f.lid[dst]
    for mode in ("minimal", "pairwise", "orderall", "srcdstall"):
        f.sighup(text.replace("<Sm>", f"<Sm><PathSelection>{mode}"
                              "</PathSelection>"))
        for label, extra, sfix, dfix in [
                ("", [], None, None),
                (" SLID fixed", ["--slid", s0 + span - 1], span - 1, None),
                (" DLID fixed", ["--dlid", d0 + 1], None, 1)]:
            since = f.sim.log_offset()
            st, recs = f.ask(["path", "--sgid", hex(f.guid[src]), "--dgid",
                              hex(f.guid[dst]), "--pkey", "0x0001"] + extra)
            got = f.answers(since)
            want = [(s0 + s, d0 + d, 0x8001, 0) for s, d in
                    expected_pairs(mode, span, sfix, span, dfix)]
            seen = [(int(r["slid"], 16), int(r["dlid"], 16),
                     int(r["pkey"], 16), int(r["sl"])) for r in recs]
            t.ok(st == "SUCCESS" and got and got[-1][1] == want and
                 got[-1][0] == len(want) and seen == want[:len(seen)] and
                 seen, f"PathSelection {mode}, LMC {f.lmc} both sides"
                 f"{label}: {len(want)} pairs in the reference's order",
                 f"log {got[-1:]} mads {seen} want {want}")
    # to a switch (LMC 0 there) under the last mode, SrcDstAll
    sw = min(f.sw_lid.values())
    since = f.sim.log_offset()
    f.ask(["path", "--sgid", hex(f.guid[src]), "--dlid", sw, "--pkey",
           "0x0001"])
    got = f.answers(since)
    want = [(s0 + s, sw) for s in range(span)]
    t.ok(got and [(r[0], r[1]) for r in got[-1][1]] == want,
         f"SrcDstAll from LMC {f.lmc} to a switch's port 0 (LMC 0): "
         f"{span} pairs", str(got[-1:]))


# --- 5. consistency under reconfiguration -----------------------------

def burst(t, f, text, without_compute):
    old = {(0x8001, 0), (0x8000 | f.compute, 1)}
    new = {(0x8001, 0)}
    seen, bad, stop = [], [], threading.Event()

    def client(host):
        while not stop.is_set():
            st, recs = f.path("cn0002", "cn0003", at=host)
            got = set(pk_sl(recs))
            (seen if st == "SUCCESS" and got in (old, new) else
             bad).append((st, sorted(got)))

    threads = [threading.Thread(target=client, args=(h,))
               for h in ("cn0004", "cn0005", "cn0006")]
    for th in threads:
        th.start()
    try:
        for _ in range(3):
            f.sighup(without_compute)
            f.sighup(text)
    finally:
        stop.set()
        for th in threads:
            th.join()
    kinds = {frozenset(s[1]) for s in seen}
    t.ok(not bad and len(seen) >= 12,
         f"{len(seen)} queries from 3 hosts in parallel while Compute was "
         "put in Standby and back three times (six heavy sweeps): every "
         "answer is the old policy's or the new one's", str(bad[:5]))
    t.ok(frozenset(new) in kinds and frozenset(old) in kinds,
         "... and both were seen", str(kinds))


# --- 6. without a config: stock answers --------------------------------

QUERIES = [
    ["path", "--slid", "L:cn0002", "--dlid", "L:cn0010"],
    ["path", "--sgid", "G:cn0002", "--dgid", "G:cn0007", "--numb-path", 2],
    ["path", "--get", "--slid", "L:cn0002", "--dlid", "L:cn0003"],
    ["path", "--slid", "L:cn0002", "--dlid", 999],
    ["path", "--get", "--slid", "L:cn0002"],
    ["path", "--method", "0x14", "--slid", "L:cn0002"],
    ["join", "--mgid", "ff12:401b:ffff::ffff:ffff", "--pkey", "0xffff"],
    ["mpath", "--sgids", "G:cn0002", "--dgids", "G:cn0003", "--numb-path",
     2],
]


def stock_answers(f):
    out = []
    for q in QUERIES:
        args = [f.lid[a[2:]] if str(a).startswith("L:") else
                hex(f.guid[a[2:]]) if str(a).startswith("G:") else a
                for a in q]
        res = f.sim.run_diag([SA] + [str(a) for a in args], node="cn0004",
                             check=False)
        out.append(re.sub(r" tries \d+", "", res))
    return out


def main():
    t = vfsim.Tap()
    vftest.start(t)
    if not os.access(SA, os.X_OK):
        t.skip_all(f"vfabric-sa not built ({SA})")
    text = open(EXAMPLE).read()
    with vfsim.Sim(fabric(), "sa", tap=t) as sim:
        sim.start_ibsim()
        conf = os.path.join(sim.workdir, "vf.xml")
        with open(conf, "w") as fh:
            fh.write(text)
        f = Fabric(sim, conf)
        assign = vftest.assigned_pkeys(sim)
        worked_example(t, f, assign)
        worked_example_qos(t, f)
        lustre_standby(t, f, text, assign.get("Lustre"))
        multipath(t, f, assign)
        malformed(t, f)
        sim.stop_opensm()

        # Compute capped; Lustre takes ff15::2:* and caps MTU; cn0012 in
        # no VF; a restart keeps the automatic P_Keys (cache)
        text2 = variant(text)
        with open(conf, "w") as fh:
            fh.write(text2)
        f = Fabric(sim, conf)
        again = vftest.assigned_pkeys(sim, sim.osms[-1].name)
        t.ok(sim.osms[-1].name == "opensm2" and again == assign,
             "a second OpenSM (its own cache) assigns the same automatic "
             "P_Keys", str(again))
        f.compute = assign["Compute"]
        selectors(t, f)
        pkey_rules(t, f)
        multicast(t, f, assign)
        burst(t, f, text2, text2.replace(
            "<Application>PSM</Application>",
            "<Application>PSM</Application><Standby>1</Standby>"))
        sim.stop_opensm()

    for lmc in (1, 2):
        with vfsim.Sim(fabric(), f"sa-lmc{lmc}", tap=t) as sim:
            sim.start_ibsim()
            conf = os.path.join(sim.workdir, "vf.xml")
            text3 = text.replace("</VirtualFabrics>",
                                 "</VirtualFabrics>\n    <Sm></Sm>")
            with open(conf, "w") as fh:
                fh.write(text3)
            f = Fabric(sim, conf, lmc=lmc)
            if lmc == 2:
                since = 0
                f.path("cn0002", "cn0003", "--pkey", "0x0001", by="gid")
                got = f.answers(since)
                base = (f.lid["cn0002"], f.lid["cn0003"])
                t.ok(got and [(r[0] - base[0], r[1] - base[1])
                              for r in got[-1][1]] ==
                     [(k, k) for k in range(4)],
                     "11: LMC 2, PathSelection Minimal (the default): 4 "
                     "records per (P_Key, SL), LID k to LID k", str(got))
            path_selection(t, f, text3)
            sim.stop_opensm()

    with vfsim.Sim(fabric(), "sa-stock", tap=t) as sim:
        sim.start_ibsim()
        f = Fabric(sim, None, lmc=1, plugin=False)
        stock = stock_answers(f)
        sim.stop_opensm()
        f = Fabric(sim, None, lmc=1)
        ours = stock_answers(f)
        log = sim.log_text()
        sim.stop_opensm()
    t.ok(stock == ours and all(s.startswith("status") for s in stock),
         f"without a vFabric config: {len(QUERIES)} PathRecord, "
         "MultiPathRecord and MCMemberRecord answers identical to stock "
         "OpenSM's",
         "\n".join(f"stock: {a}\nours:  {b}" for a, b in zip(stock, ours)
                   if a != b))
    t.ok("ERR VF09" not in log, "the plugin's SA handlers installed "
         "without error")
    t.done()


def variant(text):
    """Compute capped (MaxMTU 1024, MaxRate 2.5g, PktLifeTimeMult 4);
    Lustre takes the MGIDs ff15::2:* and has MaxMTU 1024; Default's and
    Compute's members leave cn0012 out."""
    text = text.replace(
        "<Name>Compute</Name>",
        "<Name>Compute</Name>\n        <MaxMTU>1024</MaxMTU>"
        "<MaxRate>2.5g</MaxRate><PktLifeTimeMult>4</PktLifeTimeMult>")
    text = text.replace(
        "<Name>Lustre</Name>\n        <ServiceID>",
        "<Name>Lustre</Name>\n        <MGIDMasked>0xff15000000000000:"
        "0x0000000000020000*0xffffffffffffffff:0xffffffffffff0000"
        "</MGIDMasked>\n        <ServiceID>")
    text = text.replace("<Name>Lustre</Name>\n        <Enable>",
                        "<Name>Lustre</Name>\n        <MaxMTU>1024</MaxMTU>"
                        "\n        <Enable>")
    text = text.replace(
        "    </DeviceGroups>",
        "      <DeviceGroup>\n        <Name>Hosts</Name>\n"
        "        <NodeDesc>cn00[01-11]*</NodeDesc>\n"
        "        <NodeDesc>oss[01-04]*</NodeDesc>\n"
        "      </DeviceGroup>\n    </DeviceGroups>")
    return text.replace("<Member>All</Member>", "<Member>Hosts</Member>")


if __name__ == "__main__":
    main()
