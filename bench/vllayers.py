#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""make bench (VL layers): deadlock-free routing off trees, ours against
OpenSM's dfsssp, lash and nue, on the same fabrics in ibsim, in the same
run.

Fabrics whose minimal routes close credit loops on one VL: 2D and 3D
tori, a dragonfly, random regular graphs and a 3-level tree that lost 30%
of its cables.  Each engine routes each on a fresh ibsim (OpenSM with the
plugin loaded and its defaults, so our shortestpath splits its routes
into VL layers, vl_layers=8; OpenSM's engines as they come, qos off).
Reported per run:

  VLs        data VLs the routing uses: ours "split into N VL layers" (1
             when the routes need none), both ways (a host pair's two
             routes on one layer, as CM connections need) or one way
             (when both ways need more than 8), dfsssp "Virtual Lanes
             needed" (one way), lash "Lanes needed" (per switch pair,
             its routes both ways), nue 1 (without qos it routes on one
             VL)
  route ms   the engine window, as bench.py measures it
  max load   all-to-all routes on the busiest directed inter-switch link
             (vfabric check-routes on the tables read back)
  / bound    over the average any minimal routing must put on a link:
             the sum of every host pair's switch-to-switch hops over the
             directed inter-switch links (no routing loads its busiest
             link less)
  fell back  the engine's tables were not taken (OpenSM used minhop)

and per fabric the ratios to dfsssp: VLs, busiest link, and dfsssp's
route time over ours.  Prints Markdown.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "sim"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import topogen  # noqa: E402
import vfsim  # noqa: E402

ENGINES = ["shortestpath", "dfsssp", "lash", "nue"]


def cut_tree():
    fab = topogen.fattree3(pods=4, leaves=2, aggs=2, cores=4, hosts=2,
                           radix=8)
    fab.remove_random_links(0.3, seed=1)
    return fab


def fabrics():
    return [("torus 6x6", topogen.grid((6, 6), torus=True, hosts=2)),
            ("torus 8x8", topogen.grid((8, 8), torus=True, hosts=1)),
            ("torus 4x4x4", topogen.grid((4, 4, 4), torus=True, hosts=1)),
            ("dragonfly 6x3 (19 groups)",
             topogen.dragonfly(routers=6, globals_per_router=3, hosts=1)),
            ("random 32 x 4", topogen.random_regular(32, 4, hosts=2,
                                                     seed=1)),
            ("random 64 x 6", topogen.random_regular(64, 6, hosts=1,
                                                     seed=1)),
            ("3-level tree -30%", cut_tree())]


def average_bound(fab):
    """Sum of every host pair's switch hops over the directed
    inter-switch links: the least a minimal routing's busiest link
    carries (its average)."""
    switches = {n.id for n in fab.nodes.values() if n.kind == "Switch"}
    adj = collections.defaultdict(set)
    links = 0
    for n in fab.nodes.values():
        if n.kind != "Switch":
            continue
        for peer, _ in n.ports.values():
            if peer in switches:
                adj[n.id].add(peer)
                links += 1
    hosts = collections.Counter(
        n.ports[1][0] for n in fab.nodes.values()
        if n.kind != "Switch" and 1 in n.ports)
    total = 0
    for src in switches:
        dist, queue = {src: 0}, [src]
        for u in queue:
            for v in adj[u]:
                if v not in dist:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        for dst, d in dist.items():
            total += hosts[src] * hosts[dst] * d
    return total / links if links else None


def vls_used(engine, log):
    if engine == "shortestpath":
        m = re.search(r"split into (\d+) VL layers (both ways|one way)",
                      log)
        return (int(m.group(1)), m.group(2)) if m else (1, None)
    pattern = {"dfsssp": r"Virtual Lanes needed: (\d+)",
               "lash": r"Lanes needed: (\d+)"}.get(engine)
    if pattern:
        m = re.search(pattern, log)
        return ((int(m.group(1)) if m else None),
                "one way" if engine == "dfsssp" else "both ways")
    return 1, None    # nue without qos: one VL


def run(args, net, engine):
    conf = ["event_plugin_name vfabric", f"routing_engine {engine}",
            "event_plugin_options check_routes=off", "log_flags 0x07",
            "sweep_interval 0"]
    with vfsim.Sim(net, f"vlbench-{engine}") as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=conf, plugin_dir=args.plugin_dir)
        sim.wait_subnet_up(timeout=1800)
        log = sim.log_text()
        res = {"engine": engine, "route_ms": bench.route_ms(log, engine),
               "fallback": f"{engine} tables configured on all switches"
                           not in log,
               "vls": vls_used(engine, log)[0],
               "ways": vls_used(engine, log)[1]}
        out = subprocess.run([args.vfabric, "check-routes", "--topo",
                              sim.discover(), "--lfts", sim.dump_lfts(),
                              "--json"], capture_output=True, text=True)
        res["load_max"] = json.loads(out.stdout or "{}").get("load_max")
        sim.stop_opensm()
    return res


def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vfabric", required=True)
    ap.add_argument("--plugin-dir", required=True)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="vf-vlbench-")
    rows, ratios = [], []
    for name, fab in fabrics():
        net = os.path.join(work, "fabric.net")
        fab.write(net)
        bound = average_bound(fab)
        results = {}
        for engine in ENGINES:
            print(f"vlbench: {name}: {engine} ...", file=sys.stderr,
                  flush=True)
            r = results[engine] = run(args, net, engine)
            load = r["load_max"]
            ways = f" ({r['ways']})" if r["ways"] else ""
            rows.append(
                f"| {name} | {engine} | {fmt(r['vls'], 'd')}{ways} | "
                f"{fmt(r['route_ms'], '.1f')} | {fmt(load, 'd')} | "
                f"{fmt(load / bound if load and bound else None, '.2f')} | "
                f"{'yes' if r['fallback'] else 'no'} |")
        ours, dfs = results["shortestpath"], results["dfsssp"]

        def ratio(a, b, spec=".2f"):
            return fmt(a / b if a and b else None, spec)
        ratios.append(
            f"| {name} | {ratio(ours['vls'], dfs['vls'])} | "
            f"{ratio(ours['load_max'], dfs['load_max'])} | "
            f"{ratio(dfs['route_ms'], ours['route_ms'], '.1f')} | "
            f"{'yes' if dfs['fallback'] else 'no'} |")
    print("| fabric | engine | VLs | route ms | max load | / bound | "
          "fell back |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("| fabric | VLs ours / dfsssp | max load ours / dfsssp | "
          "route time dfsssp / ours | dfsssp fell back |")
    print("|---|---|---|---|---|")
    print("\n".join(ratios))
    vfsim.shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
