#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""make bench, partition-routing part: does partition-aware routing
balance each tenant on its own and keep tenants apart?

On the same fabrics in one run, with the seed-000 security layout
(Compute_A and Compute_B tenants with Security 1; Services with the
storage servers full and both tenants limited; Admin on 0x7fff), hosts
given to tenants at random with a fixed seed:

  - our fattree and shortestpath, offline (`vfabric route --config
    --partition-routing off|balance|isolate`);
  - OpenSM's ftree and minhop, computed by a real OpenSM 3.3.23 under
    ibsim 0.10 (bench.py's run: the plugin loaded without a policy, the
    LFTs read back from the switches); their routing does not depend on
    the layout, so each engine runs once per fabric and its tables are
    measured against every seed's layout;

every routing measured the same way, with `vfabric check-routes --config
--json` (docs/routing.md, Per-partition metrics).  Per fabric and seed it
prints a Markdown table: each class's busiest link (routes of that class
alone, all-to-all among the pairs it permits), all classes together (each
permitted pair once), links both tenants use, permitted pairs that are
unreachable (must be 0), credit loops; and the tier-cut lower bound of each
(topogen's tier_cut_bound() for the class's own pairs).  Then the ratios:
the busier tenant's busiest link with balance over off (our engine) and
over OpenSM's engine, and the shared links left in isolate (goal 0).  The
first fabric, small, is printed class by class as a worked example.
"""

import argparse
import copy
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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import topogen  # noqa: E402
import vfsim  # noqa: E402

OURS = ("fattree", "shortestpath")
MODES = ("off", "balance", "isolate")
OPENSM = ("ftree", "minhop")
TENANTS = ("Compute_A", "Compute_B")
CLASSES = TENANTS + ("Services",)
# our engine -> the OpenSM engine it is compared with
AGAINST = {"fattree": "ftree", "shortestpath": "minhop"}


def fabrics(size):
    """(name, topogen Fabric); the first is the worked example."""
    out = [("ft2 8x8+4", topogen.fattree2(leaves=8, spines=4, hosts=8)),
           ("ft2 18x18+18", topogen.fattree2(leaves=18, spines=18,
                                             hosts=18)),
           ("ft3 4 pods", topogen.fattree3(pods=4, leaves=4, aggs=4,
                                           cores=8, hosts=8)),
           ("dcs 12x6", topogen.dcs(chassis=1, leaves=12, spines=6,
                                    hosts=12)),
           ("dcs 2 chassis + 12 edges", topogen.dcs(
               chassis=2, leaves=6, spines=3, hosts=0, edges=12,
               edge_hosts=8, edge_uplinks=2))]
    if size == "small":
        out = out[:1] + out[2:]
    elif size == "large":
        out.append(("ft2 36x18+18", topogen.fattree2(leaves=36, spines=18,
                                                     hosts=18)))
    return out


# -- the seed-000 security layout ---------------------------------------------
def layout(fab, seed):
    """Hosts (CA node ids) shuffled with `seed`: the first 40% Compute_A,
    the next 40% Compute_B, the rest storage servers."""
    hosts = sorted(n.id for n in fab.hcas())
    random.Random(seed).shuffle(hosts)
    n = len(hosts) * 4 // 10
    return {"Compute_A": sorted(hosts[:n]),
            "Compute_B": sorted(hosts[n:2 * n]),
            "Storage": sorted(hosts[2 * n:])}


def vf_config(groups):
    """The vFabric file: Compute_A and Compute_B (tenants, Security 1),
    Services (storage full, both tenants limited), Admin on 0x7fff (the
    SM's node and switch port 0s full, everyone else limited)."""
    def dg(name, hosts):
        return (f"<DeviceGroup><Name>{name}</Name>" +
                "".join(f"<NodeDesc>{h} *</NodeDesc>" for h in hosts) +
                "</DeviceGroup>")

    def vf(name, full, limited=(), extra=""):
        return (f"<VirtualFabric><Name>{name}</Name><Enable>1</Enable>"
                f"{extra}<Security>1</Security>" +
                "".join(f"<Member>{g}</Member>" for g in full) +
                "".join(f"<LimitedMember>{g}</LimitedMember>"
                        for g in limited) +
                f"<Application>{'SA' if name == 'Admin' else 'AllOthers'}"
                "</Application></VirtualFabric>")

    return ("<Config><Common><Applications>"
            "<Application><Name>AllOthers</Name>"
            "<Select>UnmatchedServiceID</Select>"
            "<Select>UnmatchedMGID</Select></Application>"
            "<Application><Name>SA</Name><Select>SA</Select></Application>"
            "</Applications><DeviceGroups>\n" +
            "\n".join(dg(g, h) for g, h in groups.items()) +
            "\n<DeviceGroup><Name>Mgmt</Name><Select>AllMgmtAllowed</Select>"
            "<Select>SWE0</Select></DeviceGroup>"
            "</DeviceGroups><VirtualFabrics>\n" +
            vf("Compute_A", ["Compute_A"]) + "\n" +
            vf("Compute_B", ["Compute_B"]) + "\n" +
            vf("Services", ["Storage"], ["Compute_A", "Compute_B"]) + "\n" +
            vf("Admin", ["Mgmt"], ["All"], "<PKey>0x7fff</PKey>") +
            "\n</VirtualFabrics></Common></Config>\n")


def bounds(fab, groups):
    """Tier-cut lower bound on the busiest link of each class's own
    traffic, and of all classes' together (each pair once)."""
    sets = {g: set(h) for g, h in groups.items()}
    a, b, s = sets["Compute_A"], sets["Compute_B"], sets["Storage"]
    everyone = a | b | s

    def pairs_out(full, limited_only=frozenset()):
        members = full | limited_only

        def crossing(inside):
            ins = set(inside)
            m, lo = len(members & ins), len(limited_only & ins)
            # member pairs leaving the group, less those of two limited
            return m * (len(members) - m) - lo * (len(limited_only) - lo)
        return crossing

    def all_out(inside):
        ins = set(inside)
        out = len(everyone) - len(ins)
        si = len(s & ins)
        # a storage server with anyone, a tenant host with its tenant
        return (si * out + (len(ins) - si) * (len(s) - si) +
                sum(len(t & ins) * (len(t) - len(t & ins)) for t in (a, b)))

    return {"Compute_A": fab.tier_cut_bound(pairs_out(a)),
            "Compute_B": fab.tier_cut_bound(pairs_out(b)),
            "Services": fab.tier_cut_bound(pairs_out(s, a | b)),
            "all": fab.tier_cut_bound(all_out)}


# -- measuring ----------------------------------------------------------------
def check(args, topo, lfts, conf):
    """`vfabric check-routes --config --json` of one routing (it exits 1
    on unreachable LIDs or a credit loop, and still reports)."""
    argv = [args.vfabric, "check-routes", "--topo", topo, "--lfts", lfts,
            "--json"]
    out = subprocess.run(argv + (["--config", conf] if conf else []),
                         capture_output=True, text=True)
    if out.returncode not in (0, 1) or not out.stdout:
        sys.exit(f"partroute: check-routes {lfts}: rc {out.returncode}\n"
                 f"{out.stderr}")
    return json.loads(out.stdout)


def route_offline(args, net, engine, mode, conf, dump):
    """Route with our engine offline into dump."""
    argv = [args.vfabric, "route", "--topo", net, "--engine", engine,
            "-o", dump]
    if conf:
        argv += ["--config", conf, "--partition-routing", mode]
    out = subprocess.run(argv, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"partroute: vfabric route {engine} {mode}: rc "
                 f"{out.returncode}\n{out.stderr}")


def opensm_tables(args, net, work):
    """OpenSM's engines under ibsim, once each: {engine: (topo, lfts,
    fell back)}."""
    out = {}
    for engine in args.opensm:
        print(f"partroute:   OpenSM {engine} in ibsim ...", file=sys.stderr,
              flush=True)
        save = os.path.join(work, engine)
        res = bench.run_once(args, net, engine, 0, save=save)
        out[engine] = (os.path.join(save, "topo.net"),
                       os.path.join(save, "lfts.dump"), res["fallback"])
    return out


def alone(args, fab, groups, engine, work):
    """Each tenant's busiest link when its hosts are the only ones on the
    fabric (the others unplugged), routed by the same engine: what balance
    promises each tenant on a full tree.  A summary with the tenants only."""
    row = {c: {} for c in CLASSES}
    row.update({"all": {}, "shared": None, "unreachable": 0, "loop": False})
    for t in TENANTS:
        own = copy.deepcopy(fab)
        for h in [n.id for n in own.hcas() if n.id not in groups[t]]:
            own.remove_host_spec(h)
        net = os.path.join(work, f"alone-{t}.net")
        dump = os.path.join(work, f"alone-{t}.dump")
        own.write(net)
        route_offline(args, net, engine, None, None, dump)
        rep = check(args, net, dump, None)
        row[t] = {"load_max": rep.get("load_max"),
                  "pairs": rep.get("ca_pairs")}
        row["unreachable"] += rep.get("ca_unreachable") or 0
        row["loop"] = row["loop"] or rep.get("credit_loop")
    return row


def summary(rep):
    """The numbers a table row needs, from one check-routes report."""
    part = rep.get("partitions", {})
    cls = {c["name"]: c for c in part.get("classes", [])}
    row = {c: cls.get(c, {}) for c in CLASSES}
    row["all"] = part.get("all", {})
    row["shared"] = part.get("shared_links")
    row["unreachable"] = part.get("all", {}).get("unreachable")
    row["loop"] = rep.get("credit_loop")
    return row


def tenant_max(row):
    vals = [row[t].get("load_max") for t in TENANTS]
    return None if None in vals else max(vals)


def measure(args, name, fab, seed, work, theirs):
    """Every routing of one fabric and seed: [(label, summary)]."""
    groups = layout(fab, seed)
    net = os.path.join(work, "fabric.net")
    conf = os.path.join(work, f"vf-seed{seed}.xml")
    with open(conf, "w") as fh:
        fh.write(vf_config(groups))
    rows = []
    for engine in args.engines:
        for mode in MODES:
            dump = os.path.join(work, f"{engine}-{mode}-{seed}.dump")
            route_offline(args, net, engine, mode, conf, dump)
            row = summary(check(args, net, dump, conf))
            rows.append((f"{engine} {mode}", row))
    for engine in args.engines:
        rows.append((f"{engine}, tenant alone",
                     alone(args, fab, groups, engine, work)))
    for engine, (topo, lfts, fell) in theirs.items():
        row = summary(check(args, topo, lfts, conf))
        rows.append((f"OpenSM {engine}"
                     f"{' (fell back to minhop)' if fell else ''}", row))
    return groups, rows


# -- output -------------------------------------------------------------------
def fmt(v, spec="", none="n/a"):
    return none if v is None else format(v, spec)


def ratio(a, b):
    return "n/a" if not a or not b else f"{a / b:.2f}"


def print_table(name, seed, groups, rows, bnd):
    sizes = ", ".join(f"{g} {len(h)}" for g, h in groups.items())
    print(f"\n#### {name}, seed {seed} ({sizes} hosts)\n")
    print("| routing | Compute_A max | Compute_B max | Services max | "
          "all classes max | shared links | unreachable | credit loop |")
    print("|---|---|---|---|---|---|---|---|")
    for label, r in rows:
        # a tenant alone has no other class: blank, not n/a
        blank = "" if label.endswith("alone") else "n/a"
        print(f"| {label} | " +
              " | ".join(fmt(r[c].get("load_max"), "", blank)
                         for c in CLASSES) +
              f" | {fmt(r['all'].get('load_max'), '', blank)} | "
              f"{fmt(r['shared'], '', blank)} | "
              f"{fmt(r['unreachable'])} | "
              f"{'yes' if r['loop'] else 'no'} |")
    print("| tier-cut bound | " +
          " | ".join(f"{bnd[c]:.1f}" for c in CLASSES + ("all",)) +
          " | | | |")


def ratio_rows(name, seed, rows):
    """Per engine: the busier tenant's busiest link with balance over off,
    over the tenant alone and over OpenSM's engine; isolate over balance;
    the links both tenants use with off and with isolate."""
    by = dict(rows)
    out = []
    for engine in OURS:
        off, bal = by.get(f"{engine} off"), by.get(f"{engine} balance")
        iso = by.get(f"{engine} isolate")
        own = by.get(f"{engine}, tenant alone")
        if not (off and bal and iso and own):
            continue
        theirs = AGAINST[engine]
        other = next((r for label, r in rows
                      if label.startswith(f"OpenSM {theirs}")), None)
        vs = ratio(tenant_max(bal), tenant_max(other)) if other else "n/a"
        out.append(f"| {name} | {seed} | {engine} | "
                   f"{ratio(tenant_max(bal), tenant_max(off))} | "
                   f"{ratio(tenant_max(bal), tenant_max(own))} | "
                   f"{vs} ({theirs}) | "
                   f"{ratio(tenant_max(iso), tenant_max(bal))} | "
                   f"{fmt(off['shared'])} | {fmt(iso['shared'])} |")
    return out


def print_example(name, seed, rows, bnd):
    """Class by class, our fattree and OpenSM's ftree on the example."""
    print(f"\n#### Worked example: {name}, seed {seed}, class by class\n")
    print("| routing | class | pairs | links used | load max | "
          "avg on used links | bound |")
    print("|---|---|---|---|---|---|---|")
    for label, r in rows:
        if not label.startswith(("fattree", "OpenSM ftree")) or \
                label.endswith("alone"):
            continue
        for c in CLASSES + ("all",):
            m = r[c]
            print(f"| {label} | {c if c != 'all' else 'all classes'} | "
                  f"{fmt(m.get('pairs'))} | {fmt(m.get('links_used'))} | "
                  f"{fmt(m.get('load_max'))} | "
                  f"{fmt(m.get('load_avg_used'), '.1f')} | "
                  f"{bnd[c]:.1f} |")
        print(f"| {label} | shared links | | {fmt(r['shared'])} | | | |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vfabric", required=True)
    ap.add_argument("--plugin-dir", required=True)
    ap.add_argument("--seeds", default="1,2,3",
                    help="host layout seeds, comma-separated")
    ap.add_argument("--size", default=os.environ.get("BENCH_SIZE", "medium"),
                    choices=["small", "medium", "large"],
                    help="small leaves out the 324-host tree, large adds "
                    "a 648-host one")
    ap.add_argument("--engines", default=",".join(OURS),
                    help="our engines, routed offline")
    ap.add_argument("--opensm", default=",".join(OPENSM),
                    help="OpenSM's engines, run under ibsim ('' for none)")
    args = ap.parse_args()
    args.vfabric = os.path.abspath(args.vfabric)
    args.plugin_dir = os.path.abspath(args.plugin_dir)
    args.engines = [e for e in args.engines.split(",") if e]
    args.opensm = [e for e in args.opensm.split(",") if e]
    seeds = [int(s) for s in args.seeds.split(",")]
    if args.opensm and vfsim.missing_tools():
        print(f"partroute: missing {vfsim.missing_tools()}: OpenSM's "
              "engines skipped", file=sys.stderr)
        args.opensm = []
    work = tempfile.mkdtemp(prefix="vfabric-bench-proute-")
    try:
        run(args, seeds, work)
    finally:
        vfsim.shutil.rmtree(work, ignore_errors=True)


def run(args, seeds, work):
    """Every fabric and seed, printed as Markdown."""
    t0 = time.monotonic()
    print("### Partition-aware routing (seed-000 security layout)", flush=True)
    ratios = []
    for i, (name, fab) in enumerate(fabrics(args.size)):
        print(f"partroute: {name} ...", file=sys.stderr, flush=True)
        fwork = os.path.join(work, re.sub(r"\W+", "_", name))
        os.makedirs(fwork)
        net = os.path.join(fwork, "fabric.net")
        fab.write(net)
        theirs = opensm_tables(args, net, fwork)
        for seed in seeds:
            groups, rows = measure(args, name, fab, seed, fwork, theirs)
            bnd = bounds(fab, groups)
            print_table(name, seed, groups, rows, bnd)
            if i == 0 and seed == seeds[0]:
                print_example(name, seed, rows, bnd)
            ratios += ratio_rows(name, seed, rows)
    print("\n#### Ratios (busier tenant's busiest link)\n")
    print("| fabric | seed | engine | balance / off | balance / alone | "
          "balance / OpenSM | isolate / balance | shared links off | "
          "shared links isolate |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(ratios))
    secs = time.monotonic() - t0
    print(f"\n(seeds {','.join(map(str, seeds))}; {secs:.0f} s)")
    print(f"\nTo repeat: python3 {os.path.relpath(__file__)} "
          f"--vfabric {os.path.relpath(args.vfabric)} --plugin-dir "
          f"{os.path.relpath(args.plugin_dir)} --seeds "
          f"{','.join(map(str, seeds))} --size {args.size}")
    print("One routing by hand: vfabric route --topo NET --engine fattree "
          "--config VF.xml --partition-routing balance -o DUMP; "
          "vfabric check-routes --topo NET --lfts DUMP --config VF.xml "
          "--json")


if __name__ == "__main__":
    main()
