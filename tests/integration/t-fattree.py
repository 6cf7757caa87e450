#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Stock OpenSM + the plugin route simulated fat trees with `fattree`;
the tables read back from the switches are verified.

Fabrics: a 2-level tree (the busiest link must carry exactly the optimum),
the same with LMC 2, an oversubscribed one, 3-level trees (k = 12 and 14,
whose k/2 is no power of two, at the leaf-uplink bound), director chassis
behind edge switches (two and three chassis), trees with cables removed
(5%, and 1% of a 3,456-host k = 24 tree) and a host missing, the core
switches and RouteLast given as plugin options, and a torus, which is no
tree: the plugin must warn and route it as shortestpath.

The bound a degraded tree is held to is topogen's lower_bound(), computed
here from the fabric, apart from the engine: the larger of the leaf-uplink
bound of destination-based tables and the tier-cut bound.
"""

import os
import re

import topogen
import vfsim
import vftest

OPTS = "log_level=info"




def ft3_degraded():
    """The 3-level tree below with 5% of its 96 switch links missing
    (seeded: the same five every run)."""
    fab = topogen.fattree3(pods=4, leaves=4, aggs=4, cores=8, hosts=8)
    fab.remove_random_links(0.05, seed=1)
    return fab


def k_ary3(k):
    """The full 3-level tree of k-port switches: k pods of k/2 leaves and
    k/2 aggregation switches, (k/2)^2 cores, k/2 hosts a leaf."""
    return topogen.fattree3(pods=k, leaves=k // 2, aggs=k // 2,
                            cores=k * k // 4, hosts=k // 2, radix=k)


def k24_degraded():
    """3,456 hosts, 720 switches, 1% of the 6,912 switch cables missing
    (seeded)."""
    fab = k_ary3(24)
    fab.remove_random_links(0.01, seed=1)
    return fab


def cases():
    """(label, Fabric, extra conf lines, plugin options, expected busiest
    link, is a tree).  The expected load is the optimum (an int), "bound"
    (exactly the fabric's lower_bound()), "near" (within 5% of it, for
    degraded trees) or None."""
    ft = topogen.fattree2(leaves=8, spines=4, hosts=8, storage=2)
    stor = [n.guid for n in ft.hcas() if n.id.startswith("stor")]
    spines = [n.guid for n in ft.switches() if n.id.startswith("S")]
    return [
        # 8 hosts x 56 remote hosts over 4 uplinks = 112
        ("ft2", topogen.fattree2(leaves=8, spines=4, hosts=8), [], OPTS,
         112, True),
        ("ft2-lmc2", topogen.fattree2(leaves=4, spines=4, hosts=4),
         ["lmc 2"], OPTS, 12, True),
        # 12 hosts x 84 remote hosts over 4 uplinks = 252
        ("ft2-oversub", topogen.fattree2(leaves=8, spines=4, hosts=12), [],
         OPTS, 252, True),
        # pod of 32 hosts x 96 remote over 8 agg uplinks = 384
        ("ft3", topogen.fattree3(pods=4, leaves=4, aggs=4, cores=8, hosts=8),
         [], OPTS, 384, True),
        ("dcs-edges", topogen.dcs(chassis=2, leaves=4, spines=2, hosts=0,
                                  edges=4, edge_hosts=6, edge_uplinks=2),
         [], OPTS, None, True),
        # three chassis, each edge switch one uplink to each: the
        # optimum, 6 hosts x 102 others over 3 uplinks = 204 (as ftree);
        # a rotation by place in the tier left 540
        ("dcs3-edges", topogen.dcs(chassis=3, leaves=6, spines=3, hosts=0,
                                   edges=18, edge_hosts=6, edge_uplinks=1),
         [], OPTS, 204, True),
        # two uplinks to each chassis: the leaf chips' spine links are
        # the bottleneck (tier cut 256), ftree leaves 384 here; the
        # rotation by place among siblings reaches it
        ("dcs3-edges-2up", topogen.dcs(chassis=3, leaves=6, spines=3,
                                       hosts=0, edges=18, edge_hosts=8,
                                       edge_uplinks=2),
         [], OPTS, "bound", True),
        # two chassis, 12 edge switches x2: the flow model leaves 184,
        # the local search reaches the bound, 176 (and says so)
        ("dcs2-edges-2up", topogen.dcs(chassis=2, leaves=6, spines=3,
                                       hosts=0, edges=12, edge_hosts=8,
                                       edge_uplinks=2),
         [], OPTS, "bound", True),
        ("ft3-k12", k_ary3(12), [], OPTS, "bound", True),
        ("ft3-k14", k_ary3(14), [], OPTS, "bound", True),
        ("ft3-k24-1pct", k24_degraded(), [], OPTS, "near", True),
        ("degraded", vftest.degraded_ft2(), [], OPTS, "near", True),
        ("ft3-degraded", ft3_degraded(), [], OPTS, "near", True),
        ("groups", ft, [], OPTS + " core_switches=" +
         ",".join(hex(g) for g in spines) + " route_last=" +
         ",".join(hex(g) for g in stor), 112, True),
        ("torus", topogen.grid((3, 3), torus=True, hosts=2), [],
         OPTS + " loop_fallback=off", None, False),
    ]


def offline_args(options):
    """The CLI flags that match the plugin options of a case."""
    args = []
    for word in options.split():
        key, _, val = word.partition("=")
        if key in ("core_switches", "route_last"):
            args += ["--" + key.replace("_", "-"), val]
    return args


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    work = vfsim.tempfile.mkdtemp(prefix="vf-fattree-")
    for label, fab, extra, options, optimum, tree in cases():
        net = os.path.join(work, f"{label}.net")
        fab.write(net)
        with vfsim.Sim(net, label, tap=tap) as sim:
            sim.start_ibsim()
            sim.start_opensm(conf_lines=vftest.plugin_conf(
                engine="fattree", options=options, extra=extra),
                plugin_dir=vftest.PLUGIN_DIR)
            sim.wait_subnet_up()
            log = sim.log_text()
            if tree:
                vftest.engine_was_used(tap, sim, label, engine="fattree")
                tap.ok("not a fat tree" not in log,
                       f"{label}: recognised as a fat tree")
            else:
                tap.ok("fattree: not a fat tree" in log and
                       "routing this fabric with shortestpath instead" in
                       log, f"{label}: warns that it is no tree and falls "
                       "back to shortestpath")
            if label == "dcs2-edges-2up":
                tap.ok(re.search(r"fattree: local search: busiest link "
                                 rf"{fab.lower_bound()} routes \(from "
                                 r"\d+; floor", log),
                       f"{label}: OpenSM's log says the local search "
                       "brought the busiest link to the bound")
            rep = vftest.verify_fabric(tap, sim, label, tree=tree,
                                       engine="fattree",
                                       offline=offline_args(options))
            if optimum in ("near", "bound"):
                bound = fab.lower_bound()
                most = 1.05 * bound if optimum == "near" else bound
                tap.ok(rep.get("load_max", 1e9) <= most,
                       f"{label}: busiest link "
                       f"{'within 5% of' if optimum == 'near' else 'at'} "
                       f"the lower bound {bound}",
                       f"load_max {rep.get('load_max')}")
            elif optimum is not None:
                tap.ok(rep.get("load_max") == optimum,
                       f"{label}: busiest link carries the optimum, "
                       f"{optimum} all-to-all routes",
                       f"load_max {rep.get('load_max')}")
            sim.stop_opensm()
    vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
