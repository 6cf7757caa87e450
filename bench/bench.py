#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""make bench: our engines against OpenSM's builtin engines, on the same
simulated fabrics, in the same run.

For every fabric and engine: start ibsim, start stock OpenSM (with the
plugin loaded for every engine, so the runs differ only in routing_engine),
wait for SUBNET UP, read the LFTs back from the switches, and check them
with `vfabric check-routes`.  Reported per run:

  route ms     median over --repeat runs, from OpenSM's "building routing with '<engine>'" log line to
               its "<engine> tables configured on all switches" line (the
               same measure for every engine: compute plus queueing the LFT
               MADs; for ours it includes building the fabric model and
               OpenSM's min-hop matrices, and the plugin's route check is
               turned off, but for the credit-loop check of vl_layers, on
               by default: on the torus it splits our routes into VL
               layers, bench/vllayers.py)
  up s         OpenSM start to the first SUBNET UP
  max, max/avg all-to-all routes (CA ports to CA base LIDs) on the busiest
               directed inter-switch link, and over the average
  bound        a lower bound on the busiest link of a tree (topogen's
               lower_bound(): the larger of the leaf-uplink bound of
               destination-based tables, max ceil((N - H) / U) * H, and
               the tier cut: every leaf, pod, ... shares the routes
               leaving it over its links to the tier above); reported as
               max load / bound
  loops        credit loop in the routes to CA LIDs (single-VL analysis
               of the tables read back: dfsssp, lash and our VL layers
               separate traffic by VL and show loops their VLs break;
               bench/vllayers.py compares those)
  unreach      CA pairs and switch-LID pairs that cannot be reached
  host churn   host cn0005 leaves and returns: LFT entries of *other*
               destinations the two reroutes changed (ideal: 0)
  LMC paths    with LMC > 0: distinct egress ports the LIDs of a remote
               port leave a leaf by, on average (the ideal is
               min(2^LMC, uplinks))

and, per fabric, the ratios shortestpath / minhop and fattree / ftree (or
minhop where ftree falls back) of route time, SUBNET UP time and busiest
link, and fattree's busiest link over that of the best OpenSM engine that
reaches every CA.  Offline (the CLI, beyond ibsim's reach): 3-level trees
of 36- and 48-port switches, whole and missing 1% of their cables, with
fattree's route time, peak memory and max load / bound.  Prints Markdown.
"""

import argparse
import datetime
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "sim"))
import topogen  # noqa: E402
import vfsim  # noqa: E402

ENGINES = ["shortestpath", "fattree", "minhop", "updn", "ftree", "dfsssp"]
OURS = ("shortestpath", "fattree", "dgshortestpath")
TS = re.compile(r"^(\w{3} [ \d]\d \d\d:\d\d:\d\d) (\d{6}) ")


def ft3_degraded():
    """The 3-level tree above with three cables missing (one leaf uplink
    in each of two pods, one aggregation uplink)."""
    fab = topogen.fattree3(pods=4, leaves=4, aggs=4, cores=8, hosts=8)
    for spec in ("L001:A001", "A002:C003", "L012:A010"):
        fab.remove_link_spec(spec)
    return fab


def random_cut(fab, seed, fraction=0.05):
    """The fabric with 5% of its switch links missing (seeded)."""
    fab.remove_random_links(fraction, seed=seed)
    return fab


def k_ary3(k):
    """The full 3-level tree of k-port switches (k^3/4 hosts)."""
    return topogen.fattree3(pods=k, leaves=k // 2, aggs=k // 2,
                            cores=k * k // 4, hosts=k // 2, radix=k)


def core_cut(fab, fraction, seed):
    """The fabric missing that fraction of its aggregation-core cables
    (leaves keep every uplink, so the leaf bound stays tight)."""
    links = [link for link in fab.switch_links()
             if link[0][0][0] in "AC" and link[1][0][0] in "AC"]
    gone = random.Random(seed).sample(links,
                                      max(1, round(len(links) * fraction)))
    for (node, port), _ in gone:
        fab.unlink(node, port)
    return fab


def fabrics(size):
    """(name, topogen Fabric, LMC) for the run; `size` small|medium|large."""
    degraded = topogen.fattree2(leaves=8, spines=4, hosts=8)
    for spec in ("L001:S001", "L003:S002", "L005:S004"):
        degraded.remove_link_spec(spec)
    out = [("ft2 8x8+4", topogen.fattree2(leaves=8, spines=4, hosts=8), 0),
           ("ft2 8x8+4 LMC 2", topogen.fattree2(leaves=8, spines=4,
                                                hosts=8), 2),
           ("dcs 12x6", topogen.dcs(chassis=1, leaves=12, spines=6,
                                    hosts=12), 0),
           ("dcs 2 chassis + 12 edges", topogen.dcs(
               chassis=2, leaves=6, spines=3, hosts=0, edges=12,
               edge_hosts=8, edge_uplinks=2), 0),
           ("ft3 4 pods", topogen.fattree3(pods=4, leaves=4, aggs=4, cores=8,
                                           hosts=8), 0),
           ("dcs 3 chassis + 18 edges", topogen.dcs(
               chassis=3, leaves=6, spines=3, hosts=0, edges=18,
               edge_hosts=6, edge_uplinks=1), 0),
           ("dcs 3 chassis + 18 edges x2", topogen.dcs(
               chassis=3, leaves=6, spines=3, hosts=0, edges=18,
               edge_hosts=8, edge_uplinks=2), 0),
           ("ft3 k=12", k_ary3(12), 0),
           ("ft3 k=14", k_ary3(14), 0),
           ("ft2 degraded", degraded, 0),
           ("ft3 degraded", ft3_degraded(), 0),
           ("ft3 4 pods -5%", random_cut(topogen.fattree3(
               pods=4, leaves=4, aggs=4, cores=8, hosts=8), seed=2), 0),
           ("torus 4x4", topogen.grid((4, 4), torus=True, hosts=4), 0)]
    if size in ("medium", "large"):
        out.append(("ft3 k=24 -1%", random_cut(k_ary3(24), 1, 0.01), 0))
        out.append(("ft2 36x18+18", topogen.fattree2(leaves=36, spines=18,
                                                     hosts=18), 0))
        out.append(("ft2 36x18+18 -5%", random_cut(topogen.fattree2(
            leaves=36, spines=18, hosts=18), seed=1), 0))
    if size == "large":
        out.append(("ft2 72x36+36", topogen.fattree2(
            leaves=72, spines=36, hosts=36, radix=72), 0))
    return out


def log_time(line):
    """Seconds (with microseconds) of an OpenSM log line, or None."""
    m = TS.match(line)
    if not m:
        return None
    year = datetime.date.today().year
    t = datetime.datetime.strptime(f"{year} {m.group(1)}", "%Y %b %d %H:%M:%S")
    return t.timestamp() + int(m.group(2)) / 1e6


def route_ms(log, engine, ended_by=None):
    """Routing time from the log, or None if the engine did not run.
    With ended_by, the window ends when that engine's tables are
    configured instead (OpenSM's fallback to minhop when `engine`
    fails: what a user who chose it waits for)."""
    start = end = None
    last = ended_by or engine
    for line in log.splitlines():
        if f"building routing with '{engine}'" in line and start is None:
            start = log_time(line)
        elif f"{last} tables configured on all switches" in line:
            end = log_time(line)
            break
    if start is None or end is None:
        return None
    return (end - start) * 1e3


def run_one(args, net, engine, lmc):
    """Route `net` with `engine` in ibsim `args.repeat` times; the route
    time is the median (the machine is shared and sub-100 ms timings are
    noisy), the rest comes from the last run."""
    times = []
    for i in range(args.repeat):
        res = run_once(args, net, engine, lmc, churn=i == args.repeat - 1)
        times.append(res["route_ms"])
    known = sorted(t for t in times if t is not None)
    res["route_ms"] = known[len(known) // 2] if known else None
    return res


def collateral(a, b, own):
    """Entries that differ between two LFT sets, other than LIDs in own."""
    return sum(1 for _, lid in vfsim.changed_entries(a, b) if lid not in own)


def host_churn(sim, lmc, host="cn0005"):
    """A host leaves, then returns: LFT entries of other destinations that
    each event changed, summed ((-1) when the fabric has no such host)."""
    nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    base = next((n["lid"] for n in nodes.values()
                 if n["desc"].startswith(host + " ")), None)
    if base is None:
        return -1
    own = set(range(base, base + (1 << lmc)))
    before = vfsim.read_lfts(sim.dump_lfts())
    sim.console(f'Unlink "{host}"[1]')
    sim.wait_resweep(timeout=600)
    gone = vfsim.read_lfts(sim.dump_lfts())
    sim.console(f'ReLink "{host}"[1]')
    sim.wait_resweep(timeout=600)
    back = vfsim.read_lfts(sim.dump_lfts())
    return collateral(before, gone, own) + collateral(gone, back, own)


def run_once(args, net, engine, lmc, churn=False, save=None):
    """Route `net` with `engine` in ibsim once; return a result dict.
    With churn, also count the entries a host's departure and return
    move.  With save (a directory), keep the discovered topology and the
    LFTs read back there as topo.net and lfts.dump, for further checks."""
    # the plugin's own route check is not routing work: off, so that
    # "route ms" compares the engines alone; loop_fallback off so that
    # our engines' tables are measured even where they loop (tori)
    conf = ["event_plugin_name vfabric", f"routing_engine {engine}",
            "event_plugin_options check_routes=off loop_fallback=off",
            "log_flags 0x07", "sweep_interval 0", f"lmc {lmc}"]
    res = {"engine": engine}
    with vfsim.Sim(net, f"bench-{engine}") as sim:
        sim.start_ibsim()
        t0 = time.monotonic()
        sim.start_opensm(conf_lines=conf, plugin_dir=args.plugin_dir)
        sim.wait_subnet_up(timeout=1800)
        res["up_s"] = time.monotonic() - t0
        log = sim.log_text()
        res["route_ms"] = route_ms(log, engine)
        res["fallback"] = (f"{engine} tables configured on all switches"
                           not in log)
        topo, lfts = sim.discover(), sim.dump_lfts()
        out = subprocess.run([args.vfabric, "check-routes", "--topo", topo,
                              "--lfts", lfts, "--json"],
                             capture_output=True, text=True)
        res.update(json.loads(out.stdout or "{}"))
        if save:
            os.makedirs(save, exist_ok=True)
            vfsim.shutil.copy(topo, os.path.join(save, "topo.net"))
            vfsim.shutil.copy(lfts, os.path.join(save, "lfts.dump"))
        if churn:
            res["churn"] = host_churn(sim, lmc)
        sim.stop_opensm()
    return res


def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def table_rows(name, results, bound):
    rows = []
    for r in results:
        load = r.get("load_max")
        unreach = f"{r.get('ca_unreachable')}/{r.get('sw_unreachable')}"
        rows.append(f"| {name} | {r['engine']}"
                    f"{' (fell back)' if r['fallback'] else ''} | "
                    f"{fmt(r['route_ms'], '.1f')} | {r['up_s']:.2f} | "
                    f"{load} | "
                    f"{fmt(load / bound if bound and load else None, '.2f')} | "
                    f"{fmt(r.get('load_max_over_avg'), '.2f')} | "
                    f"{'yes' if r.get('credit_loop') else 'no'} | "
                    f"{unreach} | "
                    f"{fmt(r.get('lmc_paths_avg') if r.get('lmc_pairs') else None, '.2f')} | "
                    f"{r.get('churn', 'n/a')} |")
    return rows


def ratio(a, b, key):
    """a[key] / b[key] formatted, or n/a."""
    if not a or not b or not a.get(key) or not b.get(key):
        return "n/a"
    return f"{a[key] / b[key]:.2f}"


def best_opensm(results):
    """The OpenSM engine result with the least busiest link among those
    that reach every CA (None when none ran)."""
    theirs = [r for r in results if r["engine"] not in OURS
              and r.get("load_max") and not r.get("ca_unreachable")]
    return min(theirs, key=lambda r: r["load_max"], default=None)


def ratios(name, results):
    """Our engines over the OpenSM engine each is measured against, and
    fattree's busiest link over the best OpenSM engine's."""
    by = {r["engine"]: r for r in results}
    best = best_opensm(results)
    rows = []
    for ours, theirs in (("shortestpath", "minhop"), ("fattree", "ftree")):
        a, b = by.get(ours), by.get(theirs)
        if a and b:
            if b.get("fallback"):
                b = by.get("minhop")
                theirs = "minhop (ftree fell back)"
            rows.append(f"| {name} | {ours} / {theirs} | "
                        f"{ratio(a, b, 'route_ms')} | "
                        f"{ratio(a, b, 'up_s')} | "
                        f"{ratio(a, b, 'load_max')} | "
                        f"{ratio(a, b, 'load_max_over_avg')} | "
                        f"{ratio(a, best, 'load_max')}"
                        f"{' (' + best['engine'] + ')' if best else ''} |")
    return "\n".join(rows) or None


TIME = "/usr/bin/time"


def offline_run(args, net, engine, bound=None):
    """(route ms, peak MiB[, max load / bound]) of one CLI routing; with a
    bound, a second run checks the routes (--json prints no route time).
    The peak comes from /usr/bin/time (Debian package time): a child
    forked from this process reports this process's memory at the fork
    as its own peak (the kernel keeps the larger across exec), 867 MiB
    for every row once the 27,648-host fabrics were built here."""
    argv = [args.vfabric, "route", "--engine", engine, "--topo", net,
            "-o", os.devnull]
    if os.access(TIME, os.X_OK):
        argv = [TIME, "-f", "peak-kib %M"] + argv
    err = subprocess.run(argv, stderr=subprocess.PIPE, text=True).stderr
    m = re.search(r"routed in ([\d.]+) ms", err)
    peak = re.search(r"^peak-kib (\d+)$", err, re.M)
    res = (m.group(1) if m else "n/a",
           f"{int(peak.group(1)) / 1024:.0f}" if peak else "n/a")
    if not bound:
        return res
    out = subprocess.run([args.vfabric, "route", "--engine", engine,
                          "--topo", net, "-o", os.devnull, "--check",
                          "--json"], capture_output=True, text=True)
    try:
        load = json.loads(out.stdout).get("load_max")
    except ValueError:
        load = None
    return res + (fmt(load / bound if load else None, ".3f"),)


def offline(args, work):
    """Route 3-level fat trees of 36- and 48-port switches (11,664 and
    27,648 hosts; beyond ibsim's reach) with the CLI, whole and missing 1%
    of their cables (at random, and core cables only): routing time, peak
    memory of the whole process (parsing included) and, for the degraded
    ones, fattree's busiest link over the lower bound."""
    rows = []
    for k in (36, 48):
        hosts = k ** 3 // 4
        switches = 5 * k * k // 4
        for label, fab, engines, check in (
                (f"k={k}: {switches:,} switches, {hosts:,} hosts",
                 k_ary3(k), ("fattree", "shortestpath"), False),
                (f"k={k}, 1% of cables missing", random_cut(k_ary3(k), 1,
                                                            0.01),
                 ("fattree",), True),
                (f"k={k}, 1% of core cables missing",
                 core_cut(k_ary3(k), 0.01, 1), ("fattree",), True)):
            net = os.path.join(work, "offline.net")
            fab.write(net)
            bound = fab.lower_bound() if check else None
            for engine in engines:
                print(f"bench: offline {label}: {engine} ...",
                      file=sys.stderr, flush=True)
                res = offline_run(args, net, engine, bound)
                if not check:
                    res += ("n/a",)
                rows.append(f"| {label} | {engine} | " + " | ".join(res) +
                            " |")
    print()
    print("| offline fabric | engine | route ms | peak MiB | "
          "max load / bound |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vfabric", required=True)
    ap.add_argument("--plugin-dir", required=True)
    ap.add_argument("--size", default=os.environ.get("BENCH_SIZE", "medium"),
                    choices=["small", "medium", "large"])
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs per engine; route time is their median")
    ap.add_argument("--no-offline", action="store_true",
                    help="skip the 27,648-host offline run")
    ap.add_argument("--offline-only", action="store_true",
                    help="only the offline run (no ibsim)")
    ap.add_argument("--fabric", action="append", default=[],
                    help="only the fabrics whose name is this (repeat "
                    "for more; default: all)")
    args = ap.parse_args()
    args.plugin_dir = os.path.abspath(args.plugin_dir)
    args.vfabric = os.path.abspath(args.vfabric)
    missing = vfsim.missing_tools()
    if missing:
        sys.exit(f"bench: missing {missing}; apt-get install {vfsim.PACKAGES}")
    work = tempfile.mkdtemp(prefix="vfabric-bench-")
    rows, ratio_rows = [], []
    chosen = [] if args.offline_only else \
        [(n, f, lmc) for n, f, lmc in fabrics(args.size)
         if not args.fabric or n in args.fabric]
    unknown = set(args.fabric) - {n for n, _, _ in chosen}
    if unknown and not args.offline_only:
        sys.exit(f"bench: no fabric named {sorted(unknown)}")
    for name, fab, lmc in chosen:
        net = os.path.join(work, re.sub(r"\W+", "_", name) + ".net")
        fab.write(net)
        results = []
        for engine in args.engines.split(","):
            print(f"bench: {name}: {engine} ...", file=sys.stderr,
                  flush=True)
            results.append(run_one(args, net, engine, lmc))
        rows += table_rows(name, results, fab.lower_bound())
        r = ratios(name, results)
        if r:
            ratio_rows.append(r)
    if args.offline_only:
        offline(args, work)
        vfsim.shutil.rmtree(work, ignore_errors=True)
        return
    print("| fabric | engine | route ms | up s | max load | max load / "
          "bound | max/avg | credit loop | unreachable CA/sw | LMC paths | "
          "host churn |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("| fabric | engines | route time ratio | SUBNET UP ratio | "
          "max load ratio | max/avg ratio | "
          "max load / best OpenSM engine's |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(ratio_rows))
    if not args.no_offline:
        offline(args, work)
    vfsim.shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
