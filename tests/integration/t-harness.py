#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Prove the ibsim/OpenSM harness with stock OpenSM (minhop, no plugin).

Generates a 4-leaf x 4-host, 2-spine fat tree, brings it up, reads back
the topology (ibnetdiscover), the LFTs (dump_fts) and a NodeDescription
(smpquery), then unlinks a leaf-spine link through ibsim's console and
checks that OpenSM rerouted around it, and that ReLink restores it.

Run by hand:  PYTHONPATH=sim python3 tests/integration/t-harness.py
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "sim"))
import topogen  # noqa: E402
import vfsim    # noqa: E402

LEAVES, SPINES, HOSTS = 4, 2, 4
CUT_LEAF, CUT_SPINE = "L002", "S001"


def guid_of(fab, nid):
    """Node GUID of a generated node."""
    return fab.nodes[nid].guid


def check_discovery(t, fab, disc):
    """Counts and NodeDescs of the discovery match the generated file."""
    n_sw = sum(1 for n in disc.values() if n["kind"] == "Switch")
    n_ca = sum(1 for n in disc.values() if n["kind"] == "Ca")
    t.ok(n_sw == len(fab.switches()),
         f"ibnetdiscover finds {len(fab.switches())} switches",
         f"found {n_sw}")
    t.ok(n_ca == len(fab.hcas()), f"ibnetdiscover finds {len(fab.hcas())} "
         "CAs", f"found {n_ca}")
    want = {n.guid: n.desc for n in fab.nodes.values()}
    got = {g: n["desc"] for g, n in disc.items()}
    t.ok(want == got, "every generated GUID has its generated NodeDesc",
         f"differs: {sorted(set(want.items()) ^ set(got.items()))[:5]}")
    links = sum(len(n["links"]) for n in disc.values()) // 2
    t.ok(links == fab.num_links(), f"{fab.num_links()} links discovered",
         f"found {links}")


def check_lfts(t, fab, lfts, what):
    """Every switch's LFT was read back with one entry per LID."""
    want = {n.guid for n in fab.switches()}
    t.ok(set(lfts) == want, f"{what}: dump_fts read all "
         f"{len(want)} switches", f"got {sorted(map(hex, lfts))}")
    nlids = len(fab.nodes)          # lmc 0: one LID per switch and CA
    short = {hex(g): len(s) for g, s in lfts.items()
             if len(s) != nlids}
    t.ok(not short, f"{what}: every LFT has {nlids} valid LIDs",
         f"switches with other counts: {short}")


def ports_used(lft):
    """Set of egress ports in one LFT."""
    return set(lft.values())


def main():
    t = vfsim.Tap()
    vfsim.require_tools()
    fab = topogen.fattree2(leaves=LEAVES, spines=SPINES, hosts=HOSTS)
    leaf_port = fab.links_between(CUT_LEAF, CUT_SPINE)[0]
    spine_port = fab.nodes[CUT_LEAF].ports[leaf_port][1]
    with vfsim.Sim(fab, "harness", tap=t) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=["routing_engine minhop"])
        secs = sim.wait_subnet_up(timeout=60)
        t.ok(True, f"SUBNET UP after {secs:.2f}s")
        t.ok("minhop tables configured on all switches" in sim.log_text(),
             "OpenSM used minhop")

        disc = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
        check_discovery(t, fab, disc)
        lfts = vfsim.read_lfts(sim.dump_lfts())
        check_lfts(t, fab, lfts, "initial")

        host = "cn0006"
        out = sim.run_diag(["smpquery", "nodedesc", "-D", "0"], node=host)
        t.ok(f"{host} HCA-1" in out, f"smpquery nodedesc at {host}", out)
        lid = disc[guid_of(fab, host)]["lid"]
        out = sim.run_diag(["smpquery", "nodedesc", str(lid)])
        t.ok(f"{host} HCA-1" in out, f"smpquery nodedesc of LID {lid} "
             f"from the SM node", out)

        leaf_g, spine_g = guid_of(fab, CUT_LEAF), guid_of(fab, CUT_SPINE)
        t.ok(leaf_port in ports_used(lfts[leaf_g]),
             f"{CUT_LEAF} routes via port {leaf_port} before the cut")
        before = {g: dict(s) for g, s in lfts.items()}

        ups = sim.subnet_up_count()
        sim.console(f'Unlink "{CUT_LEAF}"[{leaf_port}]')
        secs = sim.wait_resweep(timeout=60)
        t.ok(sim.subnet_up_count() > ups, "a new SUBNET UP was logged")
        t.ok(True, f"resweep after Unlink {CUT_LEAF}[{leaf_port}] "
             f"({secs:.2f}s)")
        lfts = vfsim.read_lfts(sim.dump_lfts())
        check_lfts(t, fab, lfts, "after unlink")
        t.ok(leaf_port not in ports_used(lfts[leaf_g]),
             f"no {CUT_LEAF} entry points out of port {leaf_port}")
        t.ok(spine_port not in ports_used(lfts[spine_g]),
             f"no {CUT_SPINE} entry points out of port {spine_port}")
        t.ok(any(before[g] != s for g, s in lfts.items()),
             "LFTs changed")

        sim.console(f'ReLink "{CUT_LEAF}"[{leaf_port}]')
        sim.wait_resweep(timeout=60)
        lfts = vfsim.read_lfts(sim.dump_lfts())
        t.ok(leaf_port in ports_used(lfts[leaf_g]),
             f"after ReLink {CUT_LEAF} routes via port {leaf_port} again")

        rc = sim.stop_opensm()
        t.ok(rc == 0, "OpenSM exits 0 on SIGTERM", f"rc {rc}")
    t.done()


if __name__ == "__main__":
    main()
