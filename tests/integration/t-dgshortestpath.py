#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Stock OpenSM + the plugin route a simulated fat tree with
`dgshortestpath`, device groups and a RoutingOrder given as plugin
options; the tables read back from the switches must equal the offline
CLI run with the matching flags, and show the order's effect: the storage
hosts, routed first, reach every other leaf through every spine.
"""

import os
import re

import topogen
import vfsim
import vftest

LEAVES, SPINES, HOSTS, STORAGE, ADMIN = 8, 4, 8, 4, 2
OPTS = ("log_level=info dg_storage=desc:stor* dg_admin=desc:admin* "
        "routing_order=storage:admin")
OFFLINE = ["--dg", "storage=desc:stor*", "--dg", "admin=desc:admin*",
           "--routing-order", "storage:admin"]

_ENTRY = re.compile(r"^(0x[0-9a-fA-F]+)\s+(\d+)\s.*'([^']*)'")


def lids_by_desc(path):
    """{NodeDesc: LID} from the comments of dump_fts or opensm-lfts.dump."""
    lids = {}
    with open(path) as fh:
        for line in fh:
            m = _ENTRY.match(line)
            if m:
                lids[m.group(3)] = int(m.group(1), 16)
    return lids


def spread(fab, tables, lids, prefix):
    """Per leaf without hosts named `prefix`*: the number of distinct
    uplinks its routes to those hosts take, and how many hosts."""
    out = {}
    dests = [lids[n.desc] for n in fab.hcas() if n.id.startswith(prefix)]
    for leaf in (n for n in fab.switches() if n.id.startswith("L")):
        ports = [tables[leaf.guid][lid] for lid in dests]
        if all(p > HOSTS for p in ports):
            out[leaf.id] = len(set(ports))
    return out, len(dests)


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    work = vfsim.tempfile.mkdtemp(prefix="vf-dgsp-")
    net = os.path.join(work, "ft.net")
    # admin1, admin2 on L001; stor01..04 with 4 compute hosts on L008
    fab = topogen.fattree2(leaves=LEAVES, spines=SPINES, hosts=HOSTS,
                           storage=STORAGE, admin=ADMIN)
    fab.write(net)
    label = "dg"
    with vfsim.Sim(net, label, tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            engine="dgshortestpath", options=OPTS),
            plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        vftest.engine_was_used(tap, sim, label, engine="dgshortestpath")
        hosts = LEAVES * HOSTS
        tap.ok(f"dgshortestpath: routing order: storage {STORAGE}, admin "
               f"{ADMIN}, {hosts - STORAGE - ADMIN} end ports in no group, "
               f"then {LEAVES + SPINES} switches" in sim.log_text(),
               f"{label}: the plugin logged the routing order and the "
               "size of each group")
        vftest.verify_fabric(tap, sim, label, engine="dgshortestpath",
                             offline=OFFLINE)
        dump = os.path.join(sim.workdir, f"{label}.dump_fts")
        tables = vftest.parse_lfts(dump)
        lids = lids_by_desc(dump)
        stor, n = spread(fab, tables, lids, "stor")
        tap.ok(len(stor) == LEAVES - 1 and n == STORAGE and
               all(v == STORAGE for v in stor.values()),
               f"{label}: storage routed first: every other leaf reaches "
               f"the {STORAGE} storage hosts through {STORAGE} different "
               "spines", repr(stor))
        adm, n = spread(fab, tables, lids, "admin")
        tap.ok(len(adm) == LEAVES - 1 and n == ADMIN and
               all(v == ADMIN for v in adm.values()),
               f"{label}: admin next: every other leaf reaches the "
               f"{ADMIN} admin hosts through {ADMIN} spines", repr(adm))
        # for comparison (not asserted: it depends on OpenSM's LIDs)
        topo = os.path.join(sim.workdir, f"{label}.ibnetdiscover")
        sp_dump = os.path.join(sim.workdir, f"{label}.sp.dump")
        vftest.vfabric("route", "--topo", topo, "-o", sp_dump, check=True)
        sp, _ = spread(fab, vftest.parse_lfts(sp_dump), lids, "stor")
        vfsim.Tap.diag(f"shortestpath in LID order: spines used per leaf "
                       f"for the storage hosts: {sorted(sp.values())}")
        sim.stop_opensm()
    vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
