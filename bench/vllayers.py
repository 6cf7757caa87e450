#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""make bench (VL layers): deadlock-free routing off trees, ours against
OpenSM's dfsssp, lash, nue and (on tori) torus-2QoS, on the same fabrics
in ibsim, in the same run.

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

torus-2QoS runs on the tori too (its torus_config written from the net
file, qos on): it breaks the rings with datelines, remapping VLs port by
port, so it has no layer count ("n/a").

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
    """(name, fabric, torus dims or None)."""
    return [("torus 6x6", topogen.grid((6, 6), torus=True, hosts=2),
             (6, 6)),
            ("torus 8x8", topogen.grid((8, 8), torus=True, hosts=1),
             (8, 8)),
            ("torus 4x4x4", topogen.grid((4, 4, 4), torus=True, hosts=1),
             (4, 4, 4)),
            ("dragonfly 6x3 (19 groups)",
             topogen.dragonfly(routers=6, globals_per_router=3, hosts=1),
             None),
            ("random 32 x 4", topogen.random_regular(32, 4, hosts=2,
                                                     seed=1), None),
            ("random 64 x 6", topogen.random_regular(64, 6, hosts=1,
                                                     seed=1), None),
            ("3-level tree -30%", cut_tree(), None)]


def torus_conf(net, dims, path):
    """torus-2QoS.conf for a topogen torus: its size, and the links from
    switch X01Y01(Z01) to its neighbours either way in every dimension
    (both are needed for radix 4)."""
    guid, last = {}, None
    with open(net) as fh:
        for line in fh:
            m = re.match(r"switchguid=(0x[0-9a-fA-F]+)", line)
            if m:
                last = m.group(1)
            m = re.match(r'Switch\s+\d+\s+"([^"]+)"', line)
            if m:
                guid[m.group(1)] = last

    def name(c):
        return "".join(f"{'XYZ'[d]}{c[d] + 1:02d}" for d in range(len(dims)))

    origin = (0,) * len(dims)
    lines = ["torus " + " ".join(map(str, list(dims) +
                                     [1] * (3 - len(dims))))]
    for d in range(len(dims)):
        for sign, step in (("p", 1), ("m", dims[d] - 1)):
            to = list(origin)
            to[d] = step
            lines.append(f"{'xyz'[d]}{sign}_link {guid[name(origin)]} "
                         f"{guid[name(tuple(to))]}")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


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
    if engine == "torus-2QoS":
        return None, "datelines"    # per-port SL2VL: no layer count
    pattern = {"dfsssp": r"Virtual Lanes needed: (\d+)",
               "lash": r"Lanes needed: (\d+)"}.get(engine)
    if pattern:
        m = re.search(pattern, log)
        return ((int(m.group(1)) if m else None),
                "one way" if engine == "dfsssp" else "both ways")
    return 1, None    # nue without qos: one VL


def run(args, net, engine, torus=None):
    conf = ["event_plugin_name vfabric", f"routing_engine {engine}",
            "event_plugin_options check_routes=off", "log_flags 0x07",
            "sweep_interval 0"]
    if engine == "torus-2QoS":   # its SL2VL tables need qos
        conf += [f"torus_config {torus}", "qos TRUE"]
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
    for name, fab, dims in fabrics():
        net = os.path.join(work, "fabric.net")
        fab.write(net)
        bound = average_bound(fab)
        results = {}
        torus = os.path.join(work, "torus-2QoS.conf") if dims else None
        if dims:
            torus_conf(net, dims, torus)
        for engine in ENGINES + (["torus-2QoS"] if dims else []):
            print(f"vlbench: {name}: {engine} ...", file=sys.stderr,
                  flush=True)
            r = results[engine] = run(args, net, engine, torus)
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
