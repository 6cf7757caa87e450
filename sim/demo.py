#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The demo: a fat tree in ibsim, stock OpenSM with the vfabric plugin and
routing_engine shortestpath, the LFTs read back from the simulated switches
and checked.  Prints what happened at each step and a short summary; exits
non-zero if any check fails.

    python3 sim/demo.py --vfabric sim/vfabric --plugin-dir plugin/.libs
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import topogen
import vfsim


def say(text=""):
    print(text, flush=True)


def log_lines(sim, pattern):
    return [line.split(" vfabric: ", 1)[-1] if "vfabric:" in line
            else line for line in sim.log_text().splitlines()
            if re.search(pattern, line)]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vfabric", default="sim/vfabric",
                    help="the vfabric CLI (default: %(default)s)")
    ap.add_argument("--plugin-dir", default="plugin/.libs",
                    help="directory holding libvfabric.so; '' to use the "
                    "installed plugin (default: %(default)s)")
    ap.add_argument("--leaves", type=int, default=8)
    ap.add_argument("--spines", type=int, default=4)
    ap.add_argument("--hosts", type=int, default=8,
                    help="hosts per leaf (default: %(default)s)")
    ap.add_argument("--lmc", type=int, default=0)
    return ap.parse_args()


def check_tools(args):
    missing = vfsim.missing_tools()
    if missing:
        sys.exit(f"demo: missing {', '.join(missing)}; install the Debian "
                 f"packages: apt-get install {vfsim.PACKAGES} "
                 "(scripts/install-deps.sh does it)")
    lib = os.path.join(args.plugin_dir, "libvfabric.so")
    if args.plugin_dir and not os.path.exists(lib):
        sys.exit(f"demo: {lib} not found: build first (scripts/build.sh)")
    if not os.access(args.vfabric, os.X_OK):
        sys.exit(f"demo: {args.vfabric} not found: build first")


def main():
    args = parse_args()
    check_tools(args)
    plugin_dir = os.path.abspath(args.plugin_dir) if args.plugin_dir else None
    work = tempfile.mkdtemp(prefix="vfabric-demo-")
    net = os.path.join(work, "fattree.net")
    fab = topogen.fattree2(leaves=args.leaves, spines=args.spines,
                           hosts=args.hosts, storage=2, admin=1)
    fab.write(net)
    nsw, nca = len(fab.switches()), len(fab.hcas())
    say(f"== fabric: 2-level fat tree, {args.spines} spines, {args.leaves} "
        f"leaves, {nca} hosts ({net})")
    conf = ["event_plugin_name vfabric",
            "event_plugin_options log_level=info check_routes=on",
            "routing_engine shortestpath", "log_flags 0x43",
            f"lmc {args.lmc}"]
    with vfsim.Sim(net, "demo") as sim:
        sim.start_ibsim()
        say(f"== ibsim started (socket {sim.sockname})")
        sim.start_opensm(conf_lines=conf, plugin_dir=plugin_dir)
        say("== stock OpenSM started with: " + "; ".join(conf))
        secs = sim.wait_subnet_up()
        say(f"== SUBNET UP after {secs:.2f} s.  From OpenSM's log:")
        for line in log_lines(sim, r"vfabric:|building routing with|"
                              r"tables configured on all switches"):
            say("   " + re.sub(r"^.*\] 0x\w+ -> ", "", line))
        topo = sim.discover()
        lfts = sim.dump_lfts()
        say("== read back from the switches through MADs: ibnetdiscover "
            f"-> {os.path.basename(topo)}, dump_fts -> "
            f"{os.path.basename(lfts)} (in {sim.workdir}; VF_KEEP=1 keeps "
            "it)")
        check = subprocess.run([args.vfabric, "check-routes", "--topo", topo,
                                "--lfts", lfts], capture_output=True,
                               text=True)
        say("== vfabric check-routes on the tables the switches hold:")
        for line in (check.stdout + check.stderr).splitlines():
            say("   " + line)
        rep = json.loads(subprocess.run(
            [args.vfabric, "check-routes", "--topo", topo, "--lfts", lfts,
             "--json"], capture_output=True, text=True).stdout or "{}")
        sim.stop_opensm()
    ok = check.returncode == 0 and rep.get("ca_unreachable") == 0
    say("== summary")
    say(f"   switches {nsw}, hosts {nca}, engine shortestpath, "
        f"SUBNET UP in {secs:.2f} s")
    say(f"   CA pairs {rep.get('ca_pairs')} (unreachable "
        f"{rep.get('ca_unreachable')}), max hop stretch "
        f"{rep.get('max_stretch')}, credit loop "
        f"{'YES' if rep.get('credit_loop') else 'none'}")
    say(f"   all-to-all link load: max {rep.get('load_max')}, max/avg "
        f"{rep.get('load_max_over_avg', 0):.2f} over {rep.get('links')} "
        "directed inter-switch links")
    say(f"   result: {'OK' if ok else 'FAILED'}")
    vfsim.shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
