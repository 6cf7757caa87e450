#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The demo: a fat tree in ibsim, stock OpenSM with the vfabric plugin,
routing_engine fattree and the tenant vFabric example (two tenants apart,
storage for both); the LFTs and P_Key tables read back from the simulated
switches and hosts and checked.  Prints what happened at each step and a
short summary; exits non-zero if any check fails.

    python3 sim/demo.py --vfabric tools/vfabric --plugin-dir plugin/.libs
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
    ap.add_argument("--vfabric", default="tools/vfabric",
                    help="the vfabric CLI (default: %(default)s)")
    ap.add_argument("--plugin-dir", default="plugin/.libs",
                    help="directory holding libvfabric.so; '' to use the "
                    "installed plugin (default: %(default)s)")
    ap.add_argument("--leaves", type=int, default=8)
    ap.add_argument("--spines", type=int, default=4)
    ap.add_argument("--hosts", type=int, default=8,
                    help="hosts per leaf (default: %(default)s)")
    ap.add_argument("--lmc", type=int, default=0)
    ap.add_argument("--config", default=find_example(),
                    help="vFabric configuration (default: %(default)s)")
    return ap.parse_args()


def find_example():
    """conf/vfabric-tenants.xml in the source tree, or beside this script
    once installed."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "..", "conf", "vfabric-tenants.xml"),
                 os.path.join(here, "vfabric-tenants.xml")):
        if os.path.exists(path):
            return os.path.normpath(path)
    return ""


def pkey_tables(sim, topo):
    """{host: [P_Key entries in index order]} read back with smpquery."""
    nodes = vfsim.parse_ibnetdiscover(open(topo).read())
    return {n["desc"].split()[0]: [k for k in sim.pkeys(n["lid"]) if k]
            for n in nodes.values() if n["kind"] == "Ca"}


def show_tenants(tables):
    """Print three hosts' tables; True when the tenants share no P_Key
    both are full members of (bit 15)."""
    for host in ("cn0001", "cn0007", "stor01"):
        if host in tables:
            say(f"   {host}: " + " ".join(f"0x{k:04x}" for k in
                                           tables[host]))
    a = [t for h, t in tables.items() if "cn0001" <= h <= "cn0006"]
    b = [t for h, t in tables.items() if h >= "cn0007" and
         h.startswith("cn")]
    full = lambda t: {k for k in t if k & 0x8000 and k != 0xffff}
    return all(not (full(x) & full(y)) for x in a for y in b) and \
        bool(a) and bool(b)


def host_guids(topo):
    """{host name: port GUID} from ibnetdiscover output."""
    nodes = vfsim.parse_ibnetdiscover(open(topo).read())
    return {n["desc"].split()[0]: g + 1 for g, n in nodes.items()
            if n["kind"] != "Switch"}


def show_sa(sim, args, topo):
    """PathRecords the plugin answers from the vFabric policy (vfabric-sa
    at cn0002): its own tenant, the other tenant, storage by ServiceID."""
    sa = os.path.join(os.path.dirname(os.path.abspath(args.vfabric)),
                      "vfabric-sa")
    guid = host_guids(topo)
    say("== PathRecords answered by vFabric (vfabric-sa at cn0002):")
    got = {}
    for what, dst, extra in [
            ("to cn0003, same tenant", "cn0003", []),
            ("to cn0007, the other tenant", "cn0007", []),
            ("to stor01 with Lustre's ServiceID", "stor01",
             ["--sid", "0x10603DB"])]:
        out = sim.run_diag([sa, "path", "--sgid", hex(guid["cn0002"]),
                            "--dgid", hex(guid[dst])] + extra,
                           node="cn0002", check=False)
        recs = [dict(kv.split("=", 1) for kv in ln.split())
                for ln in out.splitlines()[1:] if "=" in ln]
        got[dst] = recs
        say(f"   {what}: " + (", ".join(
            f"P_Key {r['pkey']} SL {r['sl']} MTU {r['mtu']}" for r in recs)
            or "no path"))
    return bool(got["cn0003"]) and not got["cn0007"] and bool(got["stor01"])


def show_classes(args, topo, lfts):
    """Each VF's own all-to-all load on these tables, and the links the
    tenants share (vfabric check-routes --config)."""
    out = subprocess.run([args.vfabric, "check-routes", "--topo", topo,
                          "--lfts", lfts, "--config",
                          os.path.abspath(args.config)],
                         capture_output=True, text=True).stdout
    say("== per virtual fabric (vfabric check-routes --config):")
    for line in out.splitlines():
        if line.startswith(("class ", "shared")):
            say("   " + line)


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
    options = "log_level=info check_routes=on"
    if args.config:
        options += f" config={os.path.abspath(args.config)}"
    conf = ["event_plugin_name vfabric",
            f"event_plugin_options {options}",
            "routing_engine fattree", "log_flags 0x43",
            f"lmc {args.lmc}"]
    with vfsim.Sim(net, "demo") as sim:
        sim.start_ibsim()
        say(f"== ibsim started (socket {sim.sockname})")
        sim.start_opensm(conf_lines=conf, plugin_dir=plugin_dir)
        say("== stock OpenSM started with: " + "; ".join(conf))
        secs = sim.wait_subnet_up()
        say(f"== SUBNET UP after {secs:.2f} s.  From OpenSM's log:")
        for line in log_lines(sim, r"vfabric:(?! config: element)|"
                              r"building routing with|"
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
        apart = answered = True
        if args.config:
            say("== P_Key tables read back from the hosts (smpquery pkeys; "
                "bit 15 = full member):")
            apart = show_tenants(pkey_tables(sim, topo))
            answered = show_sa(sim, args, topo)
            show_classes(args, topo, lfts)
        sim.stop_opensm()
    ok = (check.returncode == 0 and rep.get("ca_unreachable") == 0 and
          apart and answered)
    say("== summary")
    say(f"   switches {nsw}, hosts {nca}, engine fattree, "
        f"SUBNET UP in {secs:.2f} s")
    say(f"   CA pairs {rep.get('ca_pairs')} (unreachable "
        f"{rep.get('ca_unreachable')}), max hop stretch "
        f"{rep.get('max_stretch')}, credit loop "
        f"{'YES' if rep.get('credit_loop') else 'none'}")
    say(f"   all-to-all link load: max {rep.get('load_max')}, max/avg "
        f"{rep.get('load_max_over_avg', 0):.2f} over {rep.get('links')} "
        "directed inter-switch links")
    if args.config:
        say(f"   vFabrics from {args.config}: tenants Compute_A and "
            f"Compute_B {'apart' if apart else 'NOT apart'}, storage "
            "reachable from both; PathRecords "
            f"{'as the policy says' if answered else 'NOT as the policy says'}")
    say(f"   result: {'OK' if ok else 'FAILED'}")
    vfsim.shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
