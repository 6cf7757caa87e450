#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""vfabric-sa against stock OpenSM (no plugin) on ibsim fat trees, its
answers compared with saquery's for the same questions:

- PathRecords by LID pair and by GID pair equal `saquery -p --src-to-dst`
  (LIDs, GIDs, SL, MTU, rate, P_Key, lifetime); Get and GetTable agree;
- a GetTable bigger than one MAD: umad2sim delivers only the first 224
  bytes of it (saquery shows the same records, then a garbled one); we
  say `truncated 1` and print only whole records;
- LMC 1: NumbPath 2 gives the two disjoint LID pairs of a port pair,
  NumbPath 1 one, a LID pair one; a Get one;
- an MCMemberRecord join creating a group, seen by saquery, then a leave
  that removes it; a join of the IPoIB broadcast group;
- faults: a component mask with half a ServiceID (INSUF_COMPS), a method
  the PathRecord handler refuses (UNSUP_METHOD_ATTR), an invalid rate
  code (REQ_INVALID), a method OpenSM drops (no answer: exit 1, retries
  reported); OpenSM keeps answering after all of them;
- bench: every query answered, with and without ServiceID;
- --json (path, mpath, join, leave, an error status): the same status
  line fields and records as the text, typed.
"""

import json
import os
import re
import subprocess

import topogen
import vfsim
import vftest


def fields(line):
    """key=value pairs of a record line."""
    return dict(kv.split("=", 1) for kv in line.split())


def parse_sa(out):
    """vfabric-sa output -> (status code, name, {key: value}, [records])."""
    lines = out.strip().splitlines()
    head = lines[0].split() if lines else []
    if len(head) < 3 or head[0] != "status":
        return None, None, {}, []
    info = dict(zip(head[3::2], head[4::2]))
    return (int(head[1], 16), head[2], info,
            [fields(line) for line in lines[1:]])


def parse_saquery(out):
    """saquery -p output -> [{field: value}] per 'PathRecord dump'."""
    recs = []
    for block in out.split("PathRecord dump:")[1:]:
        recs.append(dict(re.findall(r"(\w+)\.{2,}(\S+)", block)))
    return recs


MTU_BYTES = {1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096}
# --json keeps these as the text's strings; every other field a number
JSON_STRINGS = {"sgid", "dgid", "sid", "mgid", "port_gid"}


def json_differences(out_json, out_text, list_key):
    """Where vfabric-sa --json (a JSON object) and the text output of the
    same answer disagree: the status line's fields, then each record's
    key=value pairs."""
    try:
        got = json.loads(out_json)
    except ValueError as e:
        return [f"not JSON: {e}: {out_json!r}"]
    st, name, info, recs = parse_sa(out_text)
    if st is None:
        return [f"no status line: {out_text!r}"]
    head = {"status": st, "status_name": name,
            "records": int(info["records"]),
            "truncated": info["truncated"] == "1",
            "tries": int(info["tries"])}
    diff = [f"{k}: {got.get(k)!r} vs {v!r}" for k, v in head.items()
            if got.get(k) != v]
    jrecs = got.get(list_key)
    if not isinstance(jrecs, list) or len(jrecs) != len(recs):
        return diff + [f"{list_key}: {jrecs!r} vs {recs!r}"]
    for i, (j, t) in enumerate(zip(jrecs, recs)):
        want = {k: v if k in JSON_STRINGS else int(v, 0)
                for k, v in t.items()}
        if j != want:
            diff.append(f"record {i}: {j} vs {want}")
    return diff


def same_json(tap, c, what, cmd, *args, node="cn0002"):
    """vfabric-sa CMD ARGS and CMD ARGS --json: the same answer."""
    key = "mcmember_records" if cmd in ("join", "leave") else "path_records"
    rc, out, err = c.sa(cmd, *args, node=node)
    jrc, jout, jerr = c.sa(cmd, *args, "--json", node=node)
    diff = json_differences(jout, out, key) if rc == jrc == 0 else \
        [f"rc {rc} {jrc}"]
    tap.ok(not diff, f"--json {what}: the text's fields, typed",
           "\n".join(diff) + f"\n{out}{err}{jout}{jerr}")


def same_path(ours, theirs):
    """Our record line and saquery's dump of the same PathRecord."""
    return (int(ours["slid"], 16) == int(theirs["slid"]) and
            int(ours["dlid"], 16) == int(theirs["dlid"]) and
            ours["sgid"] == theirs["sgid"] and
            ours["dgid"] == theirs["dgid"] and
            int(ours["pkey"], 16) == int(theirs["pkey"], 16) and
            int(ours["sl"]) == int(theirs["sl"], 16) and
            int(ours["mtu"]) == MTU_BYTES.get(int(theirs["mtu"], 16) & 0x3f)
            and int(ours["rate"]) == int(theirs["rate"], 16) & 0x3f and
            int(ours["pktlife"]) == int(theirs["pkt_life"], 16) & 0x3f)


class Client:
    """Runs vfabric-sa and saquery at a node of a Sim."""

    def __init__(self, sim):
        self.sim = sim

    def sa(self, *args, node="cn0002"):
        """(exit code, stdout, stderr) of vfabric-sa at node."""
        sim = self.sim
        sim._check_clients(1)
        res = subprocess.run([vftest.VFABRIC_SA] + [str(a) for a in args],
                             env=sim._env(node), capture_output=True,
                             text=True, timeout=120, cwd=sim.workdir,
                             stdin=subprocess.DEVNULL)
        return res.returncode, res.stdout, res.stderr

    def path(self, *args, node="cn0002"):
        rc, out, err = self.sa("path", *args, node=node)
        return (rc,) + parse_sa(out) + (err,)

    def saquery(self, *args, node="cn0002"):
        return parse_saquery(self.sim.run_diag(["saquery", "-p"] +
                                               list(args), node=node))


def hosts_and_lids(sim):
    """{host name: (port GUID, LID)} from ibnetdiscover."""
    nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    return {n["desc"].split()[0]: (guid + 1, n["lid"])
            for guid, n in nodes.items() if n["kind"] == "Ca"}, nodes


def compare_pairs(tap, c, hosts):
    pairs = [("cn0002", "cn0003"), ("cn0002", "cn0016"),
             ("cn0007", "cn0001"), ("cn0016", "cn0009")]
    bad = []
    for src, dst in pairs:
        slid, dlid = hosts[src][1], hosts[dst][1]
        rc, st, _, info, recs, err = c.path("--slid", slid, "--dlid", dlid,
                                            node=src)
        ref = c.saquery("--src-to-dst", f"{slid}:{dlid}", node=src)
        if rc or st != 0 or len(recs) != 1 or len(ref) != 1 or \
                not same_path(recs[0], ref[0]):
            bad.append(f"{src}->{dst}: {recs} vs {ref} {err}")
    tap.ok(not bad, f"PathRecord by LID pair equals saquery --src-to-dst "
           f"for {len(pairs)} pairs (LIDs, GIDs, SL, MTU, rate, P_Key, "
           "lifetime)", "\n".join(bad))
    src, dst = "cn0007", "cn0012"
    by_gid = c.path("--sgid", f"{hosts[src][0]:#x}",
                    "--dgid", f"{hosts[dst][0]:#x}", node=src)
    by_lid = c.path("--slid", hosts[src][1], "--dlid", hosts[dst][1],
                    node=src)
    tap.ok(by_gid[1] == 0 and by_gid[4] == by_lid[4] and len(by_lid[4]) == 1
           and by_gid[4][0]["sgid"] == f"fe80::2:c903:0:{hosts[src][0] & 0xffff:x}",
           "by GID pair (GUID shorthand) the same record as by LID pair",
           f"{by_gid[4]} vs {by_lid[4]}")
    get = c.path("--get", "--slid", hosts[src][1], "--dlid", hosts[dst][1],
                 node=src)
    tap.ok(get[0] == 0 and get[1] == 0 and get[4] == by_lid[4],
           "Get answers the same single record as GetTable",
           f"{get}")
    one = c.path("--slid", hosts[src][1], "--dlid", hosts[dst][1],
                 "--numb-path", 1, "--reversible", 1, "--pkey", "0xffff",
                 "--mtu", "<4096", "--rate", "best", node=src)
    tap.ok(one[1] == 0 and one[4] == by_lid[4],
           "NumbPath 1, Reversible, P_Key and MTU/rate selectors that the "
           "path meets: the same record", f"{one}")
    same_json(tap, c, "path by LID pair", "path", "--slid", hosts[src][1],
              "--dlid", hosts[dst][1], node=src)
    same_json(tap, c, "mpath between GIDs", "mpath", "--sgids",
              f"{hosts[src][0]:#x}", "--dgids", f"{hosts[dst][0]:#x}",
              node=src)
    none = c.path("--slid", hosts[src][1], "--dlid", hosts[dst][1],
                  "--mtu", ">4096", node=src)
    tap.ok(none[1] == 0 and none[3].get("records") == "0" and not none[4],
           "an MTU above 4096 asked for: no record", f"{none}")


def big_table(tap, c, hosts, nodes):
    """All paths (no component): far more than one MAD holds."""
    rc, st, name, info, recs, err = c.path()
    ref = c.saquery()
    tap.ok(rc == 0 and st == 0 and info.get("truncated") == "1" and
           len(recs) == 2 and "cut" in err,
           "a GetTable of every path: umad2sim delivers one MAD; we say "
           "truncated 1 and show its 2 whole records", f"{info} {err}")
    tap.ok(len(ref) == 3 and all(same_path(o, t) for o, t in
                                 zip(recs, ref[:2])),
           "saquery -p gets the same first MAD: the same 2 records (and "
           "a third garbled by umad2sim)", f"{recs}\n{ref}")
    same_json(tap, c, "of every path (truncated: 2 whole records)",
              "path")
    lids = [n["lid"] for n in nodes.values()]
    rc, out, err = c.sa("bench", "--count", len(lids) - 1, "--window", 8)
    got = fields(out)
    tap.ok(rc == 0 and got.get("dlids") == str(len(lids) - 1) and
           got.get("ok") == str(len(lids) - 1) and got.get("empty") == "0",
           f"bench --dlids all finds a path to each of the other "
           f"{len(lids) - 1} LIDs (probing: GetTable answers are cut)",
           out + err)


def mcast(tap, c):
    mgid = "ff12:1234::42"
    rc, out, err = c.sa("join", "--create", "--mgid", mgid, "--qkey",
                        "0x1234", "--sl", 0, "--mtu", "2048", "--rate", 3)
    st, name, info, recs = parse_sa(out)
    tap.ok(rc == 0 and st == 0 and len(recs) == 1 and
           recs[0]["mgid"] == mgid and int(recs[0]["mlid"], 16) >= 0xc000
           and recs[0]["qkey"] == "0x00001234" and
           recs[0]["join_state"] == "0x1" and recs[0]["pkey"] == "0xffff",
           "a join with --create makes the group: MLID, Q_Key, P_Key, "
           "full member", out + err)
    seen = c.sim.run_diag(["saquery", "MCMR", "--mgid", mgid],
                          node="cn0002")
    tap.ok(f"MGID....................{mgid}" in seen and
           "qkey....................0x1234" in seen,
           "saquery sees the group", seen)
    rc, out, err = c.sa("leave", "--mgid", mgid)
    st, name, info, recs = parse_sa(out)
    gone = c.sim.run_diag(["saquery", "MCMR", "--mgid", mgid],
                          node="cn0002", check=False)
    tap.ok(rc == 0 and st == 0 and mgid not in gone,
           "a leave by its only member deletes it", out + gone)
    rc, out, err = c.sa("join", "--mgid", "ff12:401b:ffff::ffff:ffff",
                        "--pkey", "0xffff", node="cn0005")
    st, name, info, recs = parse_sa(out)
    tap.ok(st == 0 and recs and recs[0]["mlid"] == "0xc000" and
           recs[0]["port_gid"].endswith(":51"),
           "an IPoIB-style join of the broadcast group, our own port GID "
           "by default", out + err)
    same_json(tap, c, "join of the broadcast group again", "join",
              "--mgid", "ff12:401b:ffff::ffff:ffff", "--pkey", "0xffff",
              node="cn0005")
    same_json(tap, c, "leave of a group never joined (an error status)",
              "leave", "--mgid", "ff12:1234::43", node="cn0005")


def faults(tap, c, hosts):
    slid, dlid = hosts["cn0002"][1], hosts["cn0003"][1]
    cases = [
        (["--comp-mask", "1"], 0x0600, "INSUF_COMPS",
         "half a ServiceID in the component mask"),
        (["--method", "0x14", "--dlid", dlid], 0x000c, "UNSUP_METHOD_ATTR",
         "GetMulti of a PathRecord"),
        (["--rate", "1", "--dlid", dlid], 0x0200, "REQ_INVALID",
         "rate code 1 (none such)"),
    ]
    for args, code, name, what in cases:
        rc, st, nm, info, recs, err = c.path(*args)
        tap.ok(rc == 0 and st == code and nm == name and not recs,
               f"{what}: status 0x{code:04x} {name}", f"{st} {nm} {err}")
    same_json(tap, c, "status INSUF_COMPS, no record", "path",
              "--comp-mask", "1")
    rc, st, nm, info, recs, err = c.path("--method", "3", "--dlid", dlid,
                                         "--timeout", 200, "--retries", 1)
    tap.ok(rc == 1 and st is None and "try 1 of 2" in err and
           "no answer" in err, "a method OpenSM drops: no answer after 2 "
           "tries, exit 1", err)
    rc, out, err = c.sa("path", "--mtu", "3000")
    tap.ok(rc == 2 and "--mtu" in err, "a bad option value: exit 2", err)
    alive = c.sim.osms[-1].alive()
    rc, st, nm, info, recs, err = c.path("--slid", slid, "--dlid", dlid)
    tap.ok(alive and st == 0 and len(recs) == 1,
           "OpenSM is running and answers after the faults", err)


def bench(tap, c, hosts):
    dlids = ",".join(str(hosts[h][1]) for h in ("cn0003", "cn0009",
                                                 "cn0016"))
    rc, out, err = c.sa("bench", "--dlids", dlids, "--count", 300,
                        "--window", 4, "--sid", "none,0x1000000")
    got = fields(out) if out.startswith("queries=") else {}
    tap.ok(rc == 0 and got.get("queries") == "300" and
           got.get("ok") == "300" and got.get("errors") == "0" and
           float(got.get("qps", 0)) > 0 and
           int(got["p50_us"]) <= int(got["p99_us"]) <= int(got["max_us"]),
           "bench: 300 queries 4 at a time, with and without ServiceID, "
           "all answered", out + err)


def lmc(tap):
    with vfsim.Sim(topogen.fattree2(leaves=2, spines=2, hosts=2),
                   "saclient-lmc", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=["routing_engine minhop", "lmc 1"])
        sim.wait_subnet_up()
        c = Client(sim)
        hosts, _ = hosts_and_lids(sim)
        src, dst = "cn0002", "cn0004"
        sg, dg = f"{hosts[src][0]:#x}", f"{hosts[dst][0]:#x}"
        s0, d0 = hosts[src][1], hosts[dst][1]
        two = c.path("--sgid", sg, "--dgid", dg, "--numb-path", 2, node=src)
        pairs = {(int(r["slid"], 16), int(r["dlid"], 16)) for r in two[4]}
        tap.ok(two[1] == 0 and pairs == {(s0, d0), (s0 + 1, d0 + 1)},
               "LMC 1, NumbPath 2: the two disjoint LID pairs of the port "
               "pair", f"{two} base LIDs {s0} {d0}")
        ref = c.saquery("--sgid-to-dgid", f"fe80::2:c903:0:{hosts[src][0] & 0xffff:x}-"
                        f"fe80::2:c903:0:{hosts[dst][0] & 0xffff:x}",
                        node=src)
        tap.ok(len(ref) >= 2 and all(same_path(o, t)
                                     for o, t in zip(two[4], ref[:2])),
               "they are saquery's first two for the GID pair",
               f"{two[4]}\n{ref}")
        one = c.path("--sgid", sg, "--dgid", dg, "--numb-path", 1,
                     node=src)
        bylid = c.path("--slid", s0 + 1, "--dlid", d0 + 1, node=src)
        get = c.path("--get", "--sgid", sg, "--dgid", dg, node=src)
        tap.ok(len(one[4]) == 1 and len(bylid[4]) == 1 and
               len(get[4]) == 1 and int(bylid[4][0]["slid"], 16) == s0 + 1,
               "NumbPath 1, a LID pair, a Get: one path each",
               f"{one} {bylid} {get}")
        sim.stop_opensm()


def main():
    tap = vfsim.Tap()
    vfsim.require_tools(tap)
    if not os.access(vftest.VFABRIC_SA, os.X_OK):
        tap.skip_all(f"vfabric-sa not built ({vftest.VFABRIC_SA})")
    if not vfsim.find_tool("saquery"):
        tap.skip_all("saquery missing (infiniband-diags)")
    with vfsim.Sim(topogen.fattree2(leaves=4, spines=2, hosts=4),
                   "saclient", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=["routing_engine minhop"])
        sim.wait_subnet_up()
        c = Client(sim)
        hosts, nodes = hosts_and_lids(sim)
        compare_pairs(tap, c, hosts)
        big_table(tap, c, hosts, nodes)
        mcast(tap, c)
        faults(tap, c, hosts)
        bench(tap, c, hosts)
        sim.stop_opensm()
    lmc(tap)
    tap.done()


if __name__ == "__main__":
    main()
