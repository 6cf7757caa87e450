#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""make bench, SA part: PathRecord query rate of stock OpenSM against
OpenSM with the plugin and 64 virtual fabrics, on one ibsim fat tree.

The fabric: 16 leaves x 16 hosts, 8 spines (256 hosts).  The vFabric
file: 64 VFs, each an Application of its own (a ServiceID range) and a
DeviceGroup of 4 hosts by NodeDesc, plus Default (every port, unmatched
ServiceIDs) and Admin (every port, SA and PM); `vfabric check` must pass.

In one run, alternating --rounds times: stock OpenSM (no plugin), then
OpenSM with the plugin reading that file, both routing with minhop.  In
each, --clients hosts run `vfabric-sa bench` at once, --repeat times:
GetTable PathRecords from the host to every host LID, --window queries
outstanding, every other pass over the LIDs with the ServiceID of the
host's own VF.  Per repetition: the clients' summed qps and their worst
p99.  Prints the medians of both setups and plugin/stock (target >= 1.0),
as Markdown, and the commands to repeat a run by hand.

The plugin answers from the vFabric policy: a query with a tenant's
ServiceID finds a path only inside that tenant's VF, so about half of its
answers are empty ("no record" column), where stock OpenSM, which knows no
VFs, answers every query: the column shows the VF match at work.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "sim"))
import topogen  # noqa: E402
import vfsim  # noqa: E402

LEAVES, SPINES, HOSTS = 16, 8, 16
VFS = 64
PER_VF = LEAVES * HOSTS // VFS
SID_BASE = 0x0000000010000000


def vf_sid(i):
    """The first ServiceID of VF i's Application."""
    return SID_BASE + i * 0x100


def policy():
    """The vFabric XML: VFS tenant VFs, Default and Admin."""
    apps = ["<Application><Name>AllOthers</Name>"
            "<Select>UnmatchedServiceID</Select></Application>",
            "<Application><Name>SA</Name><Select>SA</Select></Application>",
            "<Application><Name>PM</Name><Select>PM</Select></Application>"]
    groups, fabrics = [], [
        "<VirtualFabric><Name>Default</Name><Enable>1</Enable>"
        "<PKey>0x0001</PKey><Member>All</Member>"
        "<Application>AllOthers</Application></VirtualFabric>",
        "<VirtualFabric><Name>Admin</Name><Enable>1</Enable>"
        "<PKey>0x7fff</PKey><Member>All</Member>"
        "<Application>SA</Application><Application>PM</Application>"
        "</VirtualFabric>"]
    for i in range(VFS):
        lo, hi = i * PER_VF + 1, (i + 1) * PER_VF
        apps.append(f"<Application><Name>App{i}</Name><ServiceIDRange>"
                    f"0x{vf_sid(i):016x}-0x{vf_sid(i) + 0xff:016x}"
                    "</ServiceIDRange></Application>")
        groups.append(f"<DeviceGroup><Name>G{i}</Name>"
                      f"<NodeDesc>cn[{lo:04d}-{hi:04d}] *</NodeDesc>"
                      "</DeviceGroup>")
        fabrics.append(f"<VirtualFabric><Name>VF{i}</Name><Enable>1</Enable>"
                       f"<PKey>0x{0x100 + i:04x}</PKey><Member>G{i}</Member>"
                       f"<Application>App{i}</Application></VirtualFabric>")
    return ("<?xml version=\"1.0\"?>\n<Config><Common>\n<Applications>\n" +
            "\n".join(apps) + "\n</Applications>\n<DeviceGroups>\n" +
            "\n".join(groups) + "\n</DeviceGroups>\n<VirtualFabrics>\n" +
            "\n".join(fabrics) + "\n</VirtualFabrics>\n</Common></Config>\n")


def host_lids(sim):
    """{host: base LID} from ibnetdiscover."""
    nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    return {n["desc"].split()[0]: n["lid"] for n in nodes.values()
            if n["kind"] == "Ca"}


MIXES = ("with ServiceIDs", "without ServiceID")


def bench_argv(args, host, lids, mix):
    """Half the passes with the host's VF's ServiceID, or none."""
    vf = (int(host[2:]) - 1) // PER_VF
    dlids = ",".join(str(lid) for h, lid in sorted(lids.items())
                     if h != host)
    sids = f"none,{vf_sid(vf):#x}" if mix == MIXES[0] else "none"
    return [args.sa, "bench", "--dlids", dlids, "--count", str(args.count),
            "--window", str(args.window), "--sid", sids]


def one_rep(args, sim, lids, clients, mix):
    """All clients at once; (summed qps, worst p99 us, share of empty
    answers) or None."""
    procs = []
    for host in clients:
        procs.append(subprocess.Popen(
            bench_argv(args, host, lids, mix), env=sim._env(host),
            cwd=sim.workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, stdin=subprocess.DEVNULL))
    results = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        line = out.strip().splitlines()[-1] if out.strip() else ""
        got = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        if p.returncode or got.get("errors") != "0":
            print(f"# client failed (rc {p.returncode}): {line} {err}",
                  file=sys.stderr)
            return None
        results.append(got)
    return (sum(float(g["qps"]) for g in results),
            max(int(g["p99_us"]) for g in results),
            sum(int(g["empty"]) for g in results) /
            max(1, sum(int(g["ok"]) for g in results)))


def one_run(args, net, conf, mode, show):
    """ibsim + OpenSM (stock or plugin), then --repeat client reps."""
    with vfsim.Sim(net, f"bench-sa-{mode}") as sim:
        sim.start_ibsim()
        lines = ["routing_engine minhop", "sweep_interval 0"]
        if mode == "plugin":
            lines = ["event_plugin_name vfabric",
                     f"event_plugin_options config={conf} "
                     "check_routes=off config_poll=0"] + lines
        osm = sim.start_opensm(conf_lines=lines, plugin_dir=args.plugin_dir)
        sim.wait_subnet_up(timeout=600)
        if mode == "plugin" and "vfabric:" not in sim.log_text():
            raise vfsim.SimError("the plugin did not load")
        lids = host_lids(sim)
        hosts = sorted(lids)
        clients = [hosts[1 + i * len(hosts) // args.clients]
                   for i in range(args.clients)]
        if show:
            print(f"# {mode}: {sim.netfile} under ibsim "
                  f"(IBSIM_SOCKNAME={sim.sockname}), OpenSM -F {osm.conf} "
                  "(VF_KEEP=1 keeps them); each client ran:")
            for h in clients:
                argv = bench_argv(args, h, lids, MIXES[0])
                argv[3] = argv[3][:30] + "..."
                print(f"#   SIM_HOST={h} LD_PRELOAD={vfsim.UMAD2SIM} "
                      f"{' '.join(argv)}")
        reps = {mix: [one_rep(args, sim, lids, clients, mix)
                      for _ in range(args.repeat)] for mix in MIXES}
        sim.stop_opensm()
    return {mix: [r for r in v if r] for mix, v in reps.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vfabric", required=True, help="the vfabric CLI")
    ap.add_argument("--sa", required=True, help="vfabric-sa")
    ap.add_argument("--plugin-dir", required=True)
    ap.add_argument("--rounds", type=int, default=3,
                    help="runs of each setup, alternating")
    ap.add_argument("--repeat", type=int, default=5,
                    help="bench repetitions per run")
    ap.add_argument("--clients", type=int, default=2, choices=(1, 2, 3, 4))
    ap.add_argument("--count", type=int, default=50000,
                    help="queries per client per repetition")
    ap.add_argument("--window", type=int, default=8)
    args = ap.parse_args()
    for a in ("vfabric", "sa", "plugin_dir"):
        setattr(args, a, os.path.abspath(getattr(args, a)))
    if vfsim.missing_tools():
        print("(SA bench skipped: missing " +
              " ".join(vfsim.missing_tools()) + ")")
        return 0
    work = tempfile.mkdtemp(prefix="vfabric-bench-sa-")
    net = os.path.join(work, "ft.net")
    topogen.fattree2(leaves=LEAVES, spines=SPINES, hosts=HOSTS).write(net)
    conf = os.path.join(work, "vf64.xml")
    with open(conf, "w") as fh:
        fh.write(policy())
    chk = subprocess.run([args.vfabric, "check", conf], capture_output=True,
                         text=True)
    if chk.returncode:
        print(f"vfabric check {conf} failed:\n{chk.stdout}{chk.stderr}")
        return 1
    print(f"# vfabric check {conf}: ok ({VFS} VFs + Default + Admin)")
    print(f"# to repeat: {sys.executable} {os.path.abspath(__file__)} "
          f"--vfabric {args.vfabric} --sa {args.sa} --plugin-dir "
          f"{args.plugin_dir} --rounds {args.rounds} --repeat {args.repeat} "
          f"--clients {args.clients} --count {args.count} "
          f"--window {args.window}")
    results = {(mode, mix): [] for mode in ("stock", "plugin")
               for mix in MIXES}
    # alternate, so that a busy moment of the machine hits both
    for r in range(args.rounds):
        for mode in ("stock", "plugin"):
            for mix, reps in one_run(args, net, conf, mode,
                                     show=r == 0).items():
                results[(mode, mix)] += reps
    if not all(results.values()):
        print("no successful repetition", results)
        return 1
    med = {k: (statistics.median(r[0] for r in v),
               statistics.median(r[1] for r in v),
               statistics.median(r[2] for r in v), len(v))
           for k, v in results.items()}
    hosts = LEAVES * HOSTS
    print()
    print(f"| SA PathRecord GetTable, {hosts} hosts, {args.clients} clients "
          f"x window {args.window} | queries | median qps | median p99 us | "
          "no record | reps |")
    print("|---|---|---|---|---|---|")
    for mix in MIXES:
        for mode, name in (("stock", "stock OpenSM"),
                           ("plugin", f"OpenSM + plugin, {VFS} VFs")):
            q, p99, empty, n = med[(mode, mix)]
            print(f"| {name} | {mix} | {q:.0f} | {p99:.0f} | {empty:.0%} "
                  f"| {n} |")
        q = med[("plugin", mix)][0] / med[("stock", mix)][0]
        p99 = med[("plugin", mix)][1] / med[("stock", mix)][1]
        print(f"| ratio plugin / stock | {mix} | {q:.2f} | {p99:.2f} | | |")
    if os.environ.get("VF_KEEP") != "1":
        vfsim.shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
