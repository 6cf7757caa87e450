#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Stock OpenSM + the plugin route simulated fabrics with
shortestpath; the tables read back from the switches are verified.

Fabrics: ibsim's own net.2sw2path4hca example, a 2-level fat tree, a
director-class chassis (leaf and spine chips sharing a SystemImageGUID),
two such chassis as the core of edge switches (credit-loop free only with
SpineFirstRouting, which the plugin has on by default: without it leaf
chips also route leaf -> edge -> leaf), a 2D torus and a random regular
graph (no credit-loop claim for the last two: min-hop routing on rings is
not deadlock-free, and the check must say so rather than hide it).  One
fat tree runs with LMC 2.
"""

import os

import topogen
import vfsim
import vftest


def fabrics(workdir):
    """(label, net file, is a tree, extra opensm.conf lines)."""
    out = []
    example = os.path.join(vftest.NET_EXAMPLES, "net.2sw2path4hca")
    if os.path.exists(example):
        out.append(("2sw2path4hca", example, True, []))
    gen = [
        ("fattree2", topogen.fattree2(leaves=8, spines=4, hosts=8,
                                      storage=2, admin=1), True, []),
        ("fattree2-lmc2", topogen.fattree2(leaves=4, spines=4, hosts=4),
         True, ["lmc 2"]),
        ("dcs", topogen.dcs(chassis=1, leaves=6, spines=3, hosts=6),
         True, []),
        ("dcs2-edges", topogen.dcs(chassis=2, leaves=5, spines=2, hosts=0,
                                   edges=6, edge_hosts=4), True, []),
        ("torus", topogen.grid((3, 3), torus=True, hosts=2), False, []),
        ("random", topogen.random_regular(switches=10, degree=3, hosts=2,
                                          seed=7), False, []),
    ]
    for label, fab, tree, extra in gen:
        path = os.path.join(workdir, f"{label}.net")
        fab.write(path)
        out.append((label, path, tree, extra))
    return out


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    gen_dir = vfsim.tempfile.mkdtemp(prefix="vf-fabrics-")
    for label, net, tree, extra in fabrics(gen_dir):
        with vfsim.Sim(net, label, tap=tap) as sim:
            sim.start_ibsim()
            # off the trees min-hop has credit loops on one VL, which
            # the default vl_layers splits into VL layers; loop_fallback
            # off keeps our tables to verify even if that failed
            # (t-plugin-errors checks the refusal)
            options = "log_level=info" + ("" if tree else
                                          " loop_fallback=off")
            sim.start_opensm(conf_lines=vftest.plugin_conf(
                options=options, extra=extra),
                             plugin_dir=vftest.PLUGIN_DIR)
            secs = sim.wait_subnet_up()
            tap.diag(f"{label}: SUBNET UP after {secs:.2f} s")
            vftest.engine_was_used(tap, sim, label, tree=tree)
            vftest.verify_fabric(tap, sim, label, tree=tree)
            if extra == ["lmc 2"]:
                rep = vftest.check_routes(
                    os.path.join(sim.workdir, f"{label}.ibnetdiscover"),
                    os.path.join(sim.workdir, f"{label}.dump_fts"))[1]
                # 16 hosts x 4 LIDs each, from 16 hosts (minus own LIDs)
                tap.ok(rep.get("ca_pairs") == 16 * 15 * 4,
                       f"{label}: all 4 LIDs of every host are routed",
                       f"ca_pairs {rep.get('ca_pairs')}")
            sim.stop_opensm()
    vfsim.shutil.rmtree(gen_dir, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
