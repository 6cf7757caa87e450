#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Generated vFabric files through OpenSM and the plugin on ibsim, against
the FM oracle (tests/oracle/fm_model.py, written from the FM's rules
apart from the C code).  First a file of known meaning (issue 14, points
1, 2 and 5 as they were measured, and the SA's answer to one tenant
asking for another's paths), then for each seed vfgen.py's fabric runs
in ibsim, OpenSM loads vfgen.py's file (config=), and every host's and
switch port 0's P_Key table, read back with smpquery, must hold exactly
the oracle's entries (membership bits included) with the oracle's
index-0 P_Key at index 0; the whole table must sit at the indexes
`vfabric resolve` prints for a port coming up afresh; and a host whose
index-0 partition carries IPoIB must be able to join its broadcast group
as ib0 does.

VF_ORACLE_LIVE_FILES (default 4) sets how many files, VF_ORACLE_SEED the
first seed (default 1).
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "oracle"))

import fm_model  # noqa: E402
import topogen  # noqa: E402
import vfgen  # noqa: E402
import vfsim  # noqa: E402
import vftest  # noqa: E402

FULL = fm_model.FULL


def port_lids(text):
    """{(node GUID, port): LID} of CA ports and switch port 0, from
    ibnetdiscover output."""
    out, node, kind = {}, None, None
    for line in text.splitlines():
        m = re.match(r'^(Switch|Ca)\s+\d+\s+"[SH]-([0-9a-f]+)"', line)
        if m:
            kind, node = m.group(1), int(m.group(2), 16)
            lid = re.search(r"base port 0 lid (\d+)", line)
            if kind == "Switch" and lid:
                out[(node, 0)] = int(lid.group(1))
            continue
        m = re.match(r'^\[(\d+)\]\([0-9a-f]+\).*?# lid (\d+)', line)
        if m and kind == "Ca":
            out[(node, int(m.group(1)))] = int(m.group(2))
    return out


def ipoib_pkeys(text):
    """P_Keys of VFs whose applications take IPoIB (vfgen's IPoIB app),
    from vfgen's file and the P_Keys resolve assigned."""
    return {m.group(1) for m in re.finditer(
        r"<Name>([^<]+)</Name>(?:(?!</VirtualFabric>).)*"
        r"<Application>IPoIB</Application>", text)}


def one_file(tap, seed, stats):
    fab, text, _ = vfgen.generate(seed, max_hosts=8)
    with vfsim.Sim(fab, f"oracle-{seed}", tap=tap) as sim:
        conf = os.path.join(sim.workdir, "vf.xml")
        with open(conf, "w") as fh:
            fh.write(text)
        sim.start_ibsim()
        sm_guid = fab.nodes[sim.default_sm_node()].guid
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            engine="fattree", options=f"log_level=info config={conf}"),
            plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        sim.wait_log(r"P_Key tables of \d+ end ports verified")
        topo = sim.discover()
        # the SM's port by GUID: NodeDescs need not be unique
        res = vftest.vfabric("resolve", conf, "--topo", topo, "--json",
                             "--sm", hex(sm_guid + 1))
        if not tap.ok(res.returncode == 0, f"seed {seed}: vfabric resolve "
                      "reads the file", res.stderr):
            return
        plan = json.loads(res.stdout)
        auto = {v["name"]: int(v["pkey"], 16) for v in plan["vfs"]}
        want = fm_model.model(conf, topo, sm_guid, auto_pkeys=auto)
        lids = port_lids(open(topo).read())
        nodes = fm_model.read_fabric(topo)
        guid_of = {}        # port GUID -> (node GUID, port)
        for n in nodes:
            for p in fm_model.end_ports([n]):
                guid_of[p.guid] = (n.guid, p.num)
        tables, bad = {}, []
        for guid, w in want.ports.items():
            lid = lids.get(guid_of[guid])
            table = sim.pkeys(lid) if lid else []
            tables[guid] = table
            where = f"{w['desc']} port {w['port']}"
            if {k for k in table if k & 0x7fff} != w["pkeys"]:
                bad.append(f"{where}: {[hex(k) for k in table]} want "
                           f"{sorted(map(hex, w['pkeys']))}")
            elif table[0] != w["index0"]:
                bad.append(f"{where}: index 0 holds 0x{table[0]:04x}, "
                           f"want 0x{w['index0']:04x}")
        tap.ok(want.ports and not bad, f"seed {seed}: each of "
               f"{len(want.ports)} end ports' P_Key tables holds exactly "
               "the FM oracle's entries, its index-0 P_Key at 0",
               "\n".join(bad[:8]))
        moved = []
        for p in plan["ports"]:
            table = tables.get(int(p["guid"], 16), [])
            for e in p["pkeys"]:
                k = int(e["pkey"], 16) | (
                    0 if e["membership"] == "limited" else FULL)
                if e["index"] >= len(table) or table[e["index"]] != k:
                    moved.append(f"{p['desc']}: 0x{k:04x} at index "
                                 f"{e['index']}: {[hex(x) for x in table]}")
        tap.ok(not moved, f"seed {seed}: every entry at the index vfabric "
               "resolve prints", "\n".join(moved[:6]))
        # ib0 joins the broadcast group of the P_Key at its index 0
        names = ipoib_pkeys(text)
        ipoib = {pk for name, pk in auto.items() if name in names}
        for guid, w in want.ports.items():
            node = next((n for n in fab.nodes.values()
                         if n.desc == w["desc"]), None)
            idx0 = w["index0"]
            if (node is None or node.kind != "Hca" or not idx0 & FULL or
                    idx0 & 0x7fff not in ipoib):
                continue
            out = sim.run_diag(
                [vftest.VFABRIC_SA, "join", "--mgid",
                 f"ff12:401b:{idx0:04x}::ffff:ffff", "--pkey", hex(idx0)],
                node=node.id, check=False).strip()
            stats["joins"] += 1
            tap.ok(out.startswith("status 0x0000"), f"seed {seed}: "
                   f"{w['desc']} joins the IPoIB broadcast group of its "
                   f"index-0 P_Key 0x{idx0:04x}", out)
            break
        sim.stop_opensm()


KNOWN = """<?xml version="1.0"?>
<Config><Common><Applications>
<Application><Name>Any</Name><Select>UnmatchedServiceID</Select></Application>
<Application><Name>SA</Name><Select>SA</Select></Application>
</Applications><DeviceGroups>
<DeviceGroup><Name>All</Name><Select>All</Select></DeviceGroup>
<DeviceGroup><Name>Mgmt</Name><Select>AllMgmtAllowed</Select></DeviceGroup>
<DeviceGroup><Name>A</Name><NodeDesc>cn[0002-0003]*</NodeDesc></DeviceGroup>
<DeviceGroup><Name>B</Name><NodeDesc>cn[0004-0005]*</NodeDesc></DeviceGroup>
<DeviceGroup><Name>S</Name><NodeDesc>stor*</NodeDesc></DeviceGroup>
</DeviceGroups><VirtualFabrics>
<VirtualFabric><Name>Default</Name><Enable>1</Enable><PKey>0x0001</PKey>
 <Member>A</Member><Application>Any</Application></VirtualFabric>
<VirtualFabric><Name>Admin</Name><Enable>1</Enable><PKey>0x7fff</PKey>
 <Security>1</Security><Member>Mgmt</Member><LimitedMember>All</LimitedMember>
 <Application>SA</Application></VirtualFabric>
<VirtualFabric><Name>S1</Name><Enable>1</Enable><PKey>0x0030</PKey>
 <Security>1</Security><Member>S</Member><LimitedMember>A</LimitedMember>
 <Application>Any</Application></VirtualFabric>
<VirtualFabric><Name>S2</Name><Enable>1</Enable><PKey>0x0030</PKey>
 <Security>1</Security><Member>S</Member><LimitedMember>B</LimitedMember>
 <Application>Any</Application></VirtualFabric>
<VirtualFabric><Name>Ops</Name><Enable>1</Enable><PKey>0x7fff</PKey>
 <Security>1</Security><Member>S</Member><Application>Any</Application>
</VirtualFabric>
</VirtualFabrics></Common></Config>
"""


def known(tap):
    """Issue 14 points 1 and 2 as measured: two tenants limited in a
    shared storage P_Key; the FM template's Admin VF with a Default VF
    over some hosts only, and a second VF on 0x7fff."""
    fab = topogen.fattree2(leaves=2, spines=1, hosts=4, storage=1)
    with vfsim.Sim(fab, "oracle-known", tap=tap) as sim:
        conf = os.path.join(sim.workdir, "vf.xml")
        with open(conf, "w") as fh:
            fh.write(KNOWN)
        sim.start_ibsim()
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            engine="fattree", options=f"log_level=info config={conf}"),
            plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        sim.wait_log(r"P_Key tables of \d+ end ports verified")
        nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
        tables = {n["desc"].split()[0]: sim.pkeys(n["lid"])
                  for n in nodes.values() if n["kind"] == "Ca"}
        own = {h: {k for k in t if k & 0x7fff} for h, t in tables.items()}
        sm = sim.default_sm_node()
        tap.ok(own["cn0002"] == {0x0001 | FULL, 0x0030, 0x7fff} and
               own["cn0004"] == {0x0030, 0x7fff},
               "tenants A and B, each limited in one storage VF of the "
               "shared P_Key 0x0030, hold it limited (they were full)",
               f"cn0002 {sorted(map(hex, tables['cn0002'][:4]))} cn0004 "
               f"{sorted(map(hex, tables['cn0004'][:4]))}")
        tap.ok(own["cn0006"] == {0x7fff} and own["cn0004"] >= {0x7fff},
               "hosts outside the Default VF: 0x7fff limited (the FM's "
               "template Admin VF; they were full)",
               f"cn0006 {[hex(k) for k in tables['cn0006'][:4]]}")
        tap.ok(own["stor01"] == {0x8030, 0xffff} and
               all(0xffff not in own[h] for h in own
                   if h not in ("stor01", sm)),
               "a second VF on 0x7fff makes its own Members full, no one "
               "else", str({h: sorted(map(hex, v)) for h, v in own.items()}))
        tap.ok(tables["cn0002"][0] == 0x8001 and
               tables["cn0004"][0] == 0x0030 and
               tables["cn0006"][0] == 0x7fff,
               "index 0: the first VF of each host (Default, S2), the "
               "default partition for a host in none",
               str({h: hex(t[0]) for h, t in tables.items()}))
        lid = {n["desc"].split()[0]: n["lid"] for n in nodes.values()
               if n["kind"] == "Ca"}
        out = sim.run_diag([vftest.VFABRIC_SA, "path", "--slid",
                            str(lid["cn0002"]), "--dlid",
                            str(lid["cn0004"])],
                           node="cn0002", check=False)
        tap.ok(re.match(r"status 0x[0-9a-f]+ \S+ records 0", out),
               "no PathRecord between the two tenants (limited members "
               "of one P_Key)", out)
        # the SA's requester rule: a limited member may not read the paths
        # of another tenant's host to storage
        out = sim.run_diag([vftest.VFABRIC_SA, "path", "--slid",
                            str(lid["stor01"]), "--dlid",
                            str(lid["cn0004"])], node="cn0002", check=False)
        tap.ok(re.match(r"status 0x[0-9a-f]+ \S+ records 0", out),
               "tenant A cannot read tenant B's paths to storage", out)
        sim.stop_opensm()


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    files = int(os.environ.get("VF_ORACLE_LIVE_FILES", "4"))
    first = int(os.environ.get("VF_ORACLE_SEED", "1"))
    stats = {"joins": 0}
    known(tap)
    for seed in range(first, first + files):
        one_file(tap, seed, stats)
    if files:
        tap.ok(stats["joins"] > 0, f"{stats['joins']} IPoIB-style joins "
               "of index 0's broadcast group tried")
    tap.done()


if __name__ == "__main__":
    main()
