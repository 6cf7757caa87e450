#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""make bench, partitions part: what virtual fabrics cost.

1. Offline: `vfabric resolve` of 1,000 VFs (each a NodeDesc range of 10
   hosts, half of them secure with automatic P_Keys) over a fabric model
   of 10,368 hosts (13,000+ ports): wall time and peak memory of the whole
   process, parsing included.
2. In ibsim, the same fabric and policy two ways in one run: stock OpenSM
   reading the equivalent plain partitions.conf (written by `vfabric
   resolve --emit`), and OpenSM with the plugin reading the vFabric file.
   Both route with minhop; a heavy sweep is forced with SIGHUP, --repeat
   times per run, --rounds runs of each alternating, and timed in
   OpenSM's log from the sweep's start to SUBNET UP; the median of each
   and their ratio are reported.  Prints Markdown.
"""

import argparse
import os
import signal
import statistics
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


def host_patterns(lo, hi):
    """NodeDesc patterns for hosts cn<lo>..cn<hi> (topogen names them
    cn0001.. with four digits, five from 10000; the space after the number
    keeps cn1000 from matching cn10000)."""
    out = []
    if lo <= 9999:
        out.append(f"cn[{lo:04d}-{min(hi, 9999):04d}] *")
    if hi >= 10000:
        out.append(f"cn[{max(lo, 10000)}-{hi}] *")
    return out


def policy(hosts, vfs, per_vf):
    """XML: vfs VFs of per_vf consecutive hosts each, every other secure
    (its own automatic P_Key), the others with explicit P_Keys."""
    groups, fabrics = [], []
    for i in range(vfs):
        lo = (i * per_vf) % hosts + 1
        hi = min(lo + per_vf - 1, hosts)
        groups.append(f"<DeviceGroup><Name>G{i}</Name>" +
                      "".join(f"<NodeDesc>{p}</NodeDesc>"
                              for p in host_patterns(lo, hi)) +
                      "</DeviceGroup>")
        pkey = "" if i % 2 else f"<PKey>0x{0x1000 + i:04x}</PKey>"
        secure = "<Security>1</Security>" if i % 2 else ""
        fabrics.append(f"<VirtualFabric><Name>V{i}</Name><Enable>1</Enable>"
                       f"{pkey}{secure}<Member>G{i}</Member>"
                       "<Application>All</Application></VirtualFabric>")
    return ("<Config><Common><DeviceGroups>\n" + "\n".join(groups) +
            "\n</DeviceGroups><VirtualFabrics>\n" + "\n".join(fabrics) +
            "\n</VirtualFabrics></Common></Config>\n")


def offline(args, work):
    fab = topogen.fattree3(pods=18, leaves=24, aggs=24, cores=576, hosts=24,
                           radix=48)
    net = os.path.join(work, "big.net")
    fab.write(net)
    hosts = len(fab.hcas())
    conf = os.path.join(work, "big.xml")
    with open(conf, "w") as fh:
        fh.write(policy(hosts, 1000, 10))
    t0 = time.monotonic()
    proc = subprocess.Popen([args.vfabric, "resolve", conf, "--topo", net,
                             "--json"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    secs = time.monotonic() - t0
    ports = sum(n.nports + 1 for n in fab.switches()) + hosts
    print("| offline | VFs | hosts | ports | seconds | peak MiB | status |")
    print("|---|---|---|---|---|---|---|")
    print(f"| vfabric resolve | 1000 | {hosts} | {ports} | {secs:.2f} | "
          f"{usage.ru_maxrss / 1024:.0f} | "
          f"{'ok' if status == 0 else err.strip()[:60]} |")


def sweep_times(sim, repeat):
    """Heavy sweeps forced with SIGHUP, repeat times: seconds from the
    sweep's start (OpenSM's "state_mgr_sweep_hop_0" line) to its SUBNET UP,
    by the log's own microsecond timestamps."""
    out = []
    for _ in range(repeat):
        since = sim.log_offset()
        sim.osms[-1].popen.send_signal(signal.SIGHUP)
        sim.wait_subnet_up(since=since, timeout=600)
        start = end = None
        for line in sim.log_text(since).splitlines():
            if start is None and "state_mgr_sweep_hop_0" in line:
                start = bench.log_time(line)
            elif start is not None and line.endswith("SUBNET UP"):
                end = bench.log_time(line)
        if start is not None and end is not None:
            out.append(end - start)
    return out


def one_run(args, net, conf, plain, topo, mode):
    """Start ibsim and OpenSM (stock with the plain file, or with the
    plugin and the vFabric file) and time --repeat forced heavy sweeps."""
    with vfsim.Sim(net, f"bench-pkeys-{mode}") as sim:
        sim.start_ibsim()
        if mode == "stock":
            if not os.path.exists(plain):
                # the equivalent plain file, from the discovered fabric
                sim.discover(topo)
                subprocess.run([args.vfabric, "resolve", conf, "--topo",
                                topo, "--sm",
                                sim.default_sm_node() + " HCA-1",
                                "--emit", plain], check=True,
                               stdout=subprocess.DEVNULL)
            conf_lines = [f"partition_config_file {plain}"]
        else:
            conf_lines = ["event_plugin_name vfabric",
                          f"event_plugin_options config={conf} "
                          "check_routes=off config_poll=0"]
        sim.start_opensm(conf_lines=conf_lines + [
            "routing_engine minhop", "sweep_interval 0",
            "log_flags 0x07"], plugin_dir=args.plugin_dir)
        sim.wait_subnet_up(timeout=600)
        times = sweep_times(sim, args.repeat)
        sim.stop_opensm()
    return times


def in_ibsim(args, work):
    fab = topogen.fattree2(leaves=36, spines=18, hosts=18)
    net = os.path.join(work, "ft.net")
    fab.write(net)
    hosts = len(fab.hcas())
    conf = os.path.join(work, "vf.xml")
    with open(conf, "w") as fh:
        fh.write(policy(hosts, 60, 12))
    plain = os.path.join(work, "plain.conf")
    topo = os.path.join(work, "topo.ibnetdiscover")
    results = {"stock": [], "plugin": []}
    # alternate the two, so that a busy moment of the machine hits both
    for _ in range(args.rounds):
        for mode in ("stock", "plugin"):
            results[mode] += one_run(args, net, conf, plain, topo, mode)
    s, p = (statistics.median(results[m]) for m in ("stock", "plugin"))
    print()
    print("| ibsim heavy sweep (start to SUBNET UP) | hosts | VFs | "
          "median s | sweeps |")
    print("|---|---|---|---|---|")
    print(f"| stock OpenSM, plain partitions.conf | {hosts} | 60 | {s:.3f} | "
          f"{len(results['stock'])} |")
    print(f"| OpenSM + plugin, vFabric file | {hosts} | 60 | {p:.3f} | "
          f"{len(results['plugin'])} |")
    print(f"| ratio plugin / stock | | | {p / s:.2f} | |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vfabric", required=True)
    ap.add_argument("--plugin-dir", required=True)
    ap.add_argument("--repeat", type=int, default=5,
                    help="forced heavy sweeps per OpenSM run")
    ap.add_argument("--rounds", type=int, default=4,
                    help="runs of each, alternating")
    args = ap.parse_args()
    args.vfabric = os.path.abspath(args.vfabric)
    args.plugin_dir = os.path.abspath(args.plugin_dir)
    work = tempfile.mkdtemp(prefix="vfabric-bench-pkeys-")
    offline(args, work)
    if vfsim.missing_tools():
        print("\n(ibsim part skipped: missing tools)")
    else:
        in_ibsim(args, work)
    vfsim.shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
