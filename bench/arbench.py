#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""make bench: adaptive routing against static routing with the flow
simulator (`vfabric arsim`), on a 2-level and a 3-level fat tree and a
degraded 3-level tree (bench.py's fabrics).

For every fabric: OpenSM routes it with ftree in ibsim (bench.py's
run_once; the LFTs are read back from the switches, the topology with
ibnetdiscover); our shortestpath and fattree route the same discovered
topology offline.  For each of the three routings: the AR tables
(`vfabric ar`) and `vfabric arsim --pattern perm --runs N`, which gives
the gain with the congestion model's backpressure (the default) and
without it.  Reported: the busiest link's flows (mean over the runs)
static and with AR, their ratio under each model, and ftree's static
maximum over each AR maximum; then a link-failure scenario (--fail K):
flows lost until the SM re-sweeps, static, AR on switches that do not
notify lost routes and AR on switches that do; AR's busiest link before
the re-sweep, and the static one after the SM re-routes with the engine
that made the tables (`arsim --engine`; ftree's tables: our shortestpath,
as OpenSM's ftree is not modelled).  Prints Markdown.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "sim"))
import bench  # noqa: E402
import vfsim  # noqa: E402

FABRICS = ("ft2 8x8+4", "ft3 4 pods", "ft3 4 pods -5%")
ENGINES = ("ftree", "shortestpath", "fattree")


def run(argv):
    res = subprocess.run([str(a) for a in argv], capture_output=True,
                         text=True)
    if res.returncode not in (0, 1):
        sys.exit(f"arbench: {' '.join(map(str, argv))}: rc "
                 f"{res.returncode}\n{res.stderr}")
    return res


def routings(args, name, fab, work):
    """{engine: (topology, LFT dump)}: ftree from ibsim, ours offline on
    the topology ibsim's fabric was discovered as (same LIDs, same
    hosts, so the same permutations)."""
    net = os.path.join(work, "fabric.net")
    fab.write(net)
    print(f"arbench: {name}: ftree in ibsim ...", file=sys.stderr,
          flush=True)
    save = os.path.join(work, "ftree")
    res = bench.run_once(args, net, "ftree", 0, save=save)
    topo = os.path.join(save, "topo.net")
    out = {"ftree" + (" (fell back)" if res["fallback"] else ""):
           (topo, os.path.join(save, "lfts.dump"))}
    for engine in ENGINES[1:]:
        dump = os.path.join(work, engine + ".dump")
        run([args.vfabric, "route", "--engine", engine, "--topo", topo,
             "-o", dump])
        out[engine] = (topo, dump)
    return out


def arsim(args, topo, dump, ardump, *extra):
    res = run([args.vfabric, "arsim", "--topo", topo, "--lfts", dump,
               "--ar", ardump, "--pattern", "perm", "--seed", args.seed,
               "--runs", args.runs, "--json", "-", *extra])
    return json.loads(res.stdout)


def measure(args, engine, topo, dump):
    ardump = dump + ".ar"
    res = run([args.vfabric, "ar", "--topo", topo, "--lfts", dump, "-o",
               ardump])
    safe = res.returncode == 0
    ours = () if engine.startswith("ftree") else ("--engine", engine)
    return {"engine": engine, "ar_safe": safe,
            "bp": arsim(args, topo, dump, ardump),
            "fail": arsim(args, topo, dump, ardump, "--fail", args.fail,
                          *ours)}


def fmt(v):
    return f"{v:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vfabric", required=True)
    ap.add_argument("--plugin-dir", required=True)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fail", type=int, default=2,
                    help="links failed in the failure scenario")
    args = ap.parse_args()
    args.vfabric = os.path.abspath(args.vfabric)
    args.plugin_dir = os.path.abspath(args.plugin_dir)
    missing = vfsim.missing_tools()
    if missing:
        sys.exit(f"arbench: missing {missing}; apt-get install "
                 f"{vfsim.PACKAGES}")
    rows, fail_rows = [], []
    for name, fab, _ in bench.fabrics("small"):
        if name not in FABRICS:
            continue
        with tempfile.TemporaryDirectory(prefix="vfabric-arbench-") as work:
            results = [measure(args, e, *td) for e, td in
                       routings(args, name, fab, work).items()]
        ftree = results[0]["bp"]["static"]["max"]
        for r in results:
            bp, fl = r["bp"], r["fail"]["failure"]
            gain = bp["gain"]
            rows.append(
                f"| {name} | {r['engine']} | {bp['flows']} | "
                f"{fmt(bp['static']['max'])} | {fmt(bp['adaptive']['max'])}"
                f" | {fmt(gain['backpressure'])} | "
                f"{fmt(gain['ar_max_no_backpressure'])} | "
                f"{fmt(gain['no_backpressure'])} | "
                f"{fmt(ftree / bp['adaptive']['max'])} |"
                + ("" if r["ar_safe"] else " (AR check failed)"))
            links = ", ".join(f"{lk['desc']}/{lk['port']}-"
                              f"{lk['peer_desc']}/{lk['peer_port']}"
                              for lk in fl["links"])
            fail_rows.append(
                f"| {name} | {r['engine']} | {links} | "
                f"{fmt(fl['static_lost'])} | "
                f"{fmt(fl['ar_lost_no_notify'])} | {fmt(fl['ar_lost'])} | "
                f"{fmt(fl['ar_max'])} | {fl['reroute_engine']}"
                f"{'' if fl['route_stability'] else ', from scratch'} | "
                f"{fmt(fl['rerouted_static_max'])} |")
    print(f"Random permutations, {args.runs} runs from seed {args.seed}; "
          "loads are flows on the busiest switch-to-switch link, mean over "
          "the runs.")
    print()
    print("| fabric | routing | flows | static max | AR max | static/AR, "
          "backpressure model | AR max, no backpressure | static/AR, no "
          "backpressure | ftree static / AR |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print(f"{args.fail} random switch-to-switch links fail (seed "
          f"{args.seed}); mean over the {args.runs} permutations.")
    print()
    print("| fabric | routing | failed links | flows lost static | "
          "flows lost AR, no notification | flows lost AR, notification | "
          "AR max before re-sweep | re-routed by | static max after "
          "re-route |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(fail_rows))


if __name__ == "__main__":
    main()
