#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""make bench-scale: what a user waits for on a large fat tree, our
engines against OpenSM's, in ibsim, in the same run.

A full 3-level fat tree of k-port switches (k pods of k/2 leaves and k/2
aggregation switches, (k/2)^2 cores, k/2 hosts a leaf: k^3/4 hosts; k=48 is
27,648 hosts and 2,880 switches, near ibsim 0.10's 30,720 LIDs) is routed
once by each engine, each on a fresh ibsim with the plugin loaded.  Per run:

  up s        OpenSM start to the first SUBNET UP
  route s     the engine window, as bench.py measures it: OpenSM's
              "building routing with '<engine>'" to "<engine> tables
              configured on all switches" (min-hop matrices included);
              where the engine fails (ftree on a tree missing cables),
              to "minhop tables configured", OpenSM's fallback
  hops s      ours: the plugin's min-hop matrices (its log line: wall
              clock, and the sweeper thread's CPU time); with
              hop_matrices=opensm OpenSM builds them inside the window
  fabric model s  ours: building the fabric model, inside the window
  OpenSM CPU s, ibsim CPU s  user + system time of each process at
              SUBNET UP: the work done, whatever else the machine runs
  peak MiB    OpenSM's VmHWM at SUBNET UP
  --resweep    then host cn0005 leaves: the second routing's window and
              min-hop matrices (OpenSM's rows exist by then)
  load        the 1-minute load average at ibsim's start and at SUBNET UP
              (on a shared machine, wall clock times stretch with it)
  VLs         data VLs the routing uses: ours split into VL layers (1:
              none needed), dfsssp's "Virtual Lanes needed"

and the ratios of our engine to OpenSM's (--ref, default ftree).  The conf is bench.py's
(log_flags 0x07, check_routes=off, loop_fallback=off) and vl_layers=off:
no credit-loop check in the window (a tree has nothing to layer; users
with the defaults get the check, about 2.5 s at 27,000 hosts).  With --matrices
the routing dumps are on as well (slower: figures not comparable) and the
opensm-lid-matrix.dump of each of our runs is compared with minhop's.
"""

import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "sim"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import topogen  # noqa: E402
import vfsim  # noqa: E402

HOPS = re.compile(r"vfabric: \w+: min-hop matrices of \d+ switches, "
                  r"\d+ links, built in ([\d.]+) ms \(CPU ([\d.]+) ms")
MODEL = re.compile(r"vfabric: \w+ routed \d+ switches, max LID \d+ in "
                   r"([\d.]+) ms \(fabric model ([\d.]+) ms")


def peak_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            m = re.search(r"VmHWM:\s+(\d+) kB", fh.read())
        return int(m.group(1)) / 1024 if m else None
    except OSError:
        return None


def cpu_s(pid):
    """User + system CPU seconds of a process so far."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def data_vls(log):
    """The data VLs the routing uses: ours split into VL layers (1 when
    not), dfsssp's "Virtual Lanes needed"; None for the others, and for
    ours when the layers did not fit (ERR VF0127: fell back)."""
    if "ERR VF0127" in log:
        return None
    m = re.search(r"split into (\d+) VL layers", log)
    if m:
        return int(m.group(1))
    m = re.search(r"Virtual Lanes needed: (\d+)", log)
    if m:
        return int(m.group(1))
    return 1 if re.search(r"vfabric: \w+ routed", log) else None


def secs(m, group):
    return float(m.group(group)) / 1e3 if m else None


def run(args, net, label, engine, options, matrices):
    """One OpenSM on a fresh ibsim; a result dict."""
    conf = ["event_plugin_name vfabric", f"routing_engine {engine}",
            "event_plugin_options check_routes=off loop_fallback=off "
            "vl_layers=off "
            + options, f"log_flags {'0x47' if matrices else '0x07'}",
            "sweep_interval 0"] + args.osm_conf
    res = {"label": label, "engine": engine}
    with vfsim.Sim(net, f"scale-{engine}") as sim:
        sim.start_ibsim(timeout=600)
        load = os.getloadavg()[0]
        t0 = time.monotonic()
        osm = sim.start_opensm(conf_lines=conf, plugin_dir=args.plugin_dir)
        sim.wait_subnet_up(timeout=3600)
        res["up_s"] = time.monotonic() - t0
        res["peak"] = peak_mib(osm.pid)
        res["osm_cpu"] = cpu_s(osm.pid)
        res["ibsim_cpu"] = cpu_s(sim.ibsim.pid)
        res["load"] = f"{load:.1f}-{os.getloadavg()[0]:.1f}"
        log = sim.log_text()
        ms = bench.route_ms(log, engine)
        res["route_s"] = ms / 1e3 if ms is not None else None
        m = HOPS.search(log)
        res["hops_s"], res["hops_cpu"] = secs(m, 1), secs(m, 2)
        res["model_s"] = secs(MODEL.search(log), 2)
        res["fallback"] = (f"{engine} tables configured on all switches"
                           not in log)
        if res["fallback"]:
            # OpenSM routed with minhop after the engine failed: the
            # window is still what the user waits for
            ms = bench.route_ms(log, engine, ended_by="minhop")
            res["route_s"] = ms / 1e3 if ms is not None else None
        res["errors"] = len(re.findall(r"ERR VF\d+", log))
        res["vls"] = data_vls(log)
        if args.resweep:
            # a host leaves: the heavy sweep routes again, on tables
            # OpenSM has allocated already
            sim.console('Unlink "cn0005"[1]')
            sim.wait_resweep(timeout=3600)
            again = sim.log_text(sim.cmd_log_offset)
            ms = bench.route_ms(again, engine)
            res["route2_s"] = ms / 1e3 if ms is not None else None
            m = HOPS.search(again)
            res["hops2_s"], res["hops2_cpu"] = secs(m, 1), secs(m, 2)
        if matrices:
            dump = os.path.join(osm.dump_dir, "opensm-lid-matrix.dump")
            with open(dump) as fh:
                res["matrix"] = fh.read()
        sim.stop_opensm(timeout=600)
    return res


def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plugin-dir", required=True)
    ap.add_argument("--k", type=int, default=48,
                    help="switch radix (even; default 48: 27,648 hosts)")
    ap.add_argument("--runs", default="fattree,fattree:hop_matrices=opensm,"
                    "ftree", help="engine[:plugin options] list, in order")
    ap.add_argument("--matrices", action="store_true",
                    help="also run minhop and compare our runs' min-hop "
                    "matrices with its (dumps on: timings not comparable)")
    ap.add_argument("--missing", type=float, default=0.0,
                    help="fraction of the cables between switches removed "
                    "at random (e.g. 0.01)")
    ap.add_argument("--core-missing", type=float, default=0.0,
                    help="fraction of the aggregation-core cables removed "
                    "at random (e.g. 0.01; bench.py's offline rows)")
    ap.add_argument("--seed", type=int, default=1,
                    help="seed of the removed cables (default 1)")
    ap.add_argument("--osm-conf", action="append", default=[],
                    help="an OpenSM option line for every run (e.g. "
                    "'qos TRUE', which dfsssp's SL2VL tables need)")
    ap.add_argument("--net", help="an ibsim net file to route instead of "
                    "the generated tree (--k, --missing and --core-missing "
                    "then unused)")
    ap.add_argument("--ref", default="ftree",
                    help="the OpenSM engine the ratios are against "
                    "(default ftree; it must be in --runs)")
    ap.add_argument("--resweep", action="store_true",
                    help="then unlink host cn0005 and time the second "
                    "routing too")
    args = ap.parse_args()
    for opt, value in (("--missing", args.missing),
                       ("--core-missing", args.core_missing)):
        if not 0 <= value < 1:
            ap.error(f"{opt} {value}: a fraction of the cables, from 0 "
                     "up to (not including) 1")
    args.plugin_dir = os.path.abspath(args.plugin_dir)
    missing = vfsim.missing_tools()
    if missing:
        sys.exit(f"scale: missing {missing}; apt-get install "
                 f"{vfsim.PACKAGES}")
    work = None
    if args.net:
        net = os.path.abspath(args.net)
        nodes = topogen.read_netfile(net).values()
        switches = sum(1 for n in nodes if n.kind == "Switch")
        name = (f"{os.path.basename(net)}: {switches} switches, "
                f"{len(nodes) - switches} hosts")
    else:
        h = args.k // 2
        fab = topogen.fattree3(pods=args.k, leaves=h, aggs=h,
                               cores=h * h, hosts=h, radix=args.k)
        if args.missing:
            fab.remove_random_links(args.missing, seed=args.seed)
        if args.core_missing:
            bench.core_cut(fab, args.core_missing, args.seed)
        work = vfsim.tempfile.mkdtemp(prefix="vfabric-scale-")
        net = os.path.join(work, f"fattree3-k{args.k}.net")
        fab.write(net)
        name = (f"3-level fat tree k={args.k}: {len(fab.switches())} "
                f"switches, {len(fab.hcas())} hosts")
        if args.missing:
            name += (f", {args.missing:.0%} of cables missing (seed "
                     f"{args.seed})")
        if args.core_missing:
            name += (f", {args.core_missing:.0%} of core cables missing "
                     f"(seed {args.seed})")
    runs = [r.partition(":")[::2] for r in args.runs.split(",")]
    if args.matrices:
        runs.append(("minhop", ""))
    results = []
    for engine, options in runs:
        label = engine + (f" ({options})" if options else "")
        print(f"scale: {name}: {label} ...", file=sys.stderr, flush=True)
        results.append(run(args, net, label, engine, options,
                           args.matrices))
    print(f"| {name} | up s | route s | hops s (CPU) | fabric model s | "
          "OpenSM CPU s | ibsim CPU s | peak MiB | load | plugin errors | "
          "VLs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['label']}{' (fell back to minhop)' if r['fallback'] else ''} | "
              f"{r['up_s']:.1f} | {fmt(r['route_s'], '.3f')} | "
              f"{fmt(r['hops_s'], '.3f')} ({fmt(r['hops_cpu'], '.3f')}) | "
              f"{fmt(r['model_s'], '.3f')} | {fmt(r['osm_cpu'], '.1f')} | "
              f"{fmt(r['ibsim_cpu'], '.1f')} | {fmt(r['peak'], '.0f')} | "
              f"{r['load']} | {r['errors']} | {fmt(r['vls'], 'd')} |")
    ref = next((r for r in results if r["engine"] == args.ref), None)
    if ref:
        print()
        print("| engines | SUBNET UP ratio | engine window ratio | "
              "OpenSM CPU ratio |")
        print("|---|---|---|---|")
        for r in results:
            if r is ref or r["engine"] not in bench.OURS:
                continue
            up = r["up_s"] / ref["up_s"]
            win = (fmt(r["route_s"] / ref["route_s"], ".2f")
                   if r["route_s"] and ref["route_s"] else "n/a")
            cpu = (fmt(r["osm_cpu"] / ref["osm_cpu"], ".2f")
                   if r["osm_cpu"] and ref["osm_cpu"] else "n/a")
            print(f"| {r['label']} / {args.ref} | {up:.2f} | {win} | "
                  f"{cpu} |")
    if args.resweep:
        print()
        print("| after a host left | route s | hops s (CPU) |")
        print("|---|---|---|")
        for r in results:
            print(f"| {r['label']} | {fmt(r.get('route2_s'), '.3f')} | "
                  f"{fmt(r.get('hops2_s'), '.3f')} "
                  f"({fmt(r.get('hops2_cpu'), '.3f')}) |")
    if args.matrices:
        mh = next(r for r in results if r["engine"] == "minhop")
        for r in results:
            if r["engine"] in bench.OURS:
                print(f"min-hop matrices of {r['label']}: "
                      f"{'identical to' if r['matrix'] == mh['matrix'] else 'DIFFERENT from'}"
                      f" minhop's ({mh['matrix'].count(chr(10))} lines)")
    if work:
        vfsim.shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
