#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The VNIC data path end to end (docs/vnic-datapath.md): Ethernet over
the simulated fabric between Linux network namespaces.

A 2-level fat tree (3 leaves, 2 spines, 2 hosts a leaf) routed by stock
OpenSM; three endpoints (sim/vnic-endpoint) on hosts of three leaves, not
the SM's, each with its TAP device in a namespace of its own and an
address in 10.0.0.0/24: ep1 and ep2 on vESW 1 (P_Key 0x8001, each the
other's peer), ep3 on vESW 2 (P_Key 0x8002, no peers).

- each endpoint finds its own LID and takes the section 8 MAC;
- ping ep1 <-> ep2 works both ways (ARP by head-end replication, then
  unicast by the LID in the MAC), and so does a 1200-byte ping, cut into
  8 data MADs a packet and reassembled;
- ping ep1 -> ep3 fails: the vESW-1 broadcast does not reach vESW 2;
  with a static neighbour entry the frames do reach ep3's LID, and ep3
  drops them as rx_bad_veswid;
- ep3 -> ep1 fails: its broadcast has nowhere to go (tx_dlid_zero);
- the counters show it, and every endpoint exits cleanly on SIGTERM;
- bad command lines are refused with exit status 2.
Needs root (TAP devices, namespaces): skipped otherwise.
"""

import os
import re
import shutil
import signal
import subprocess

import topogen
import vfsim
import vftest

ENDPOINT = os.path.abspath(os.environ.get(
    "VF_VNIC_ENDPOINT", os.path.join(vftest.TOP_BUILDDIR, "sim",
                                     "vnic-endpoint")))
TAG = f"{os.getpid() % 100000}"


class Endpoint:
    """One vnic-endpoint we started, its namespace and files."""

    def __init__(self, name, node, vesw, pkey, addr):
        self.name, self.node, self.vesw, self.pkey = name, node, vesw, pkey
        self.addr = addr
        self.netns = f"vfv{TAG}{name}"
        self.tap = f"vft{TAG}{name}"
        self.proc = self.log = self.state = None
        self.lid = self.mac = None


class Endpoints:
    """Start, watch and stop the endpoints (by PID) and their
    namespaces."""

    def __init__(self, sim):
        self.sim, self.eps, self.netns = sim, [], []

    def start(self, ep, peers):
        subprocess.run(["ip", "netns", "add", ep.netns], check=True)
        self.netns.append(ep.netns)
        # no IPv6: its neighbour discovery would add frames (and bounces
        # from peers not started yet) to the counts
        subprocess.run(["ip", "netns", "exec", ep.netns, "sysctl", "-qw",
                        "net.ipv6.conf.default.disable_ipv6=1"],
                       check=True)
        ep.log = os.path.join(self.sim.workdir, f"{ep.name}.log")
        ep.state = os.path.join(self.sim.workdir, f"{ep.name}.state")
        env = self.sim._env(ep.node)
        argv = [ENDPOINT, "--vesw", str(ep.vesw), "--pkey", hex(ep.pkey),
                "--tap", ep.tap, "--netns", ep.netns, "--state", ep.state]
        for lid in peers:
            argv += ["--peer", str(lid)]
        with open(ep.log, "wb") as log:
            ep.proc = subprocess.Popen(
                argv, env=env, cwd=self.sim.workdir, stdout=log,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                preexec_fn=vfsim._pdeathsig)
        self.eps.append(ep)
        m = vfsim.wait_until(
            lambda: re.search(r"LID (\d+) .* MAC (\S+) .*: ready",
                              vfsim.read_from(ep.log)),
            30, f"vnic-endpoint {ep.name} at {ep.node}", self.check)
        ep.lid, ep.mac = int(m.group(1)), m.group(2)
        ip(ep, "addr", "add", f"{ep.addr}/24", "dev", ep.tap)
        ip(ep, "link", "set", "lo", "up")

    def check(self):
        for ep in self.eps:
            if ep.proc.poll() is not None:
                raise vfsim.SimError(f"vnic-endpoint {ep.name} exited (rc "
                                     f"{ep.proc.returncode}):\n"
                                     f"{vfsim.tail(ep.log)}")

    def stop(self):
        rcs = {}
        for ep in self.eps:
            p = ep.proc
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            rcs[ep.name] = p.returncode
        for ns in self.netns:
            subprocess.run(["ip", "netns", "del", ns],
                           stderr=subprocess.DEVNULL)
        return rcs


def ip(ep, *args):
    subprocess.run(["ip", "-n", ep.netns] + list(args), check=True,
                   capture_output=True)


def ping(ep, addr, count=3, size=None, wait=2):
    argv = ["ip", "netns", "exec", ep.netns, "ping", "-n", "-c", str(count),
            "-i", "0.2", "-W", str(wait)]
    if size:
        argv += ["-s", str(size)]
    res = subprocess.run(argv + [addr], capture_output=True, text=True,
                         timeout=60)
    return res.returncode, res.stdout + res.stderr


def counters(ep):
    out = {}
    for line in vfsim.read_from(ep.state).splitlines():
        m = re.match(r"(\w+) (\d+)$", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def wait_counters(ep, pred, timeout=5):
    """The endpoint's counters once pred holds (they are written within
    200 ms of a change), or the last ones read."""
    last = [{}]

    def ok():
        last[0] = counters(ep)
        return pred(last[0])

    try:
        vfsim.wait_until(ok, timeout, f"{ep.name} counters")
    except vfsim.SimError:
        pass
    return last[0]


def host_lids(sim):
    nodes = vfsim.parse_ibnetdiscover(vfsim.read_from(sim.discover()))
    return {n["desc"].split()[0]: n["lid"] for n in nodes.values()
            if n["kind"] == "Ca"}


def run(tap, sim, eps):
    sim.start_ibsim()
    sim.start_opensm(conf_lines=["routing_engine minhop", "sweep_interval 0"])
    sim.wait_subnet_up()
    lids = host_lids(sim)
    ep1 = Endpoint("1", "cn0002", 1, 0x8001, "10.0.0.1")
    ep2 = Endpoint("2", "cn0003", 1, 0x8001, "10.0.0.2")
    ep3 = Endpoint("3", "cn0005", 2, 0x8002, "10.0.0.3")
    eps.start(ep1, [lids[ep2.node]])
    eps.start(ep2, [lids[ep1.node]])
    eps.start(ep3, [])
    for ep in (ep1, ep2, ep3):
        lid = lids[ep.node]
        want = (f"02:{(ep.vesw << 4) & 0xff:02x}:{ep.vesw >> 4:02x}:"
                f"{lid & 0xff:02x}:{lid >> 8 & 0xff:02x}:00")
        tap.ok(ep.lid == lid and ep.mac == want,
               f"{ep.name} at {ep.node}: its own LID {lid} from PortInfo, "
               f"the section 8 MAC {want}", f"LID {ep.lid} MAC {ep.mac}")

    rc, out = ping(ep1, ep2.addr)
    tap.ok(rc == 0, "ping ep1 -> ep2 (vESW 1) succeeds", out)
    rc, out = ping(ep2, ep1.addr)
    tap.ok(rc == 0, "ping ep2 -> ep1 (vESW 1) succeeds", out)
    before = counters(ep2)
    rc, out = ping(ep1, ep2.addr, size=1200)
    tap.ok(rc == 0, "ping -s 1200 ep1 -> ep2 succeeds (8 data MADs a "
           "packet, reassembled)", out)
    c1 = wait_counters(ep1, lambda c: c.get("rx_1024_1518", 0) >= 3)
    c2 = wait_counters(ep2, lambda c: c.get("rx_1024_1518", 0) >= 3)
    tap.ok(c1.get("tx_1024_1518", 0) >= 3 and c2.get("rx_1024_1518", 0) >= 3
           and c2.get("tx_1024_1518", 0) >= 3,
           "the large frames are counted on both sides (1024-1518 bucket)",
           f"ep1 {c1}\nep2 {c2}")
    tap.ok(c2["rx_mads"] - before.get("rx_mads", 0) >= 3 * 8,
           "ep2 received at least 8 data MADs for each large ping",
           f"{before.get('rx_mads')} -> {c2['rx_mads']}")
    tap.ok(c1["tx_mcastbcast"] > 0 and c2["rx_mcastbcast"] > 0,
           "ep1's ARP broadcast reached ep2 (head-end replication)",
           f"ep1 {c1}\nep2 {c2}")
    for name, c in (("ep1", c1), ("ep2", c2)):
        tap.ok(c["tx_unicast"] > 0 and c["rx_unicast"] > 0,
               f"{name}: unicast frames both ways", str(c))
        tap.ok(c["rx_errors"] == 0 and c["tx_errors"] == 0 and
               c["tx_bounced"] == 0 and c["rx_dup_seg"] == 0,
               f"{name}: no errors, bounces or duplicates", str(c))

    rc, out = ping(ep1, ep3.addr, count=2, wait=1)
    tap.ok(rc != 0, "ping ep1 (vESW 1) -> ep3 (vESW 2) fails", out)
    c3 = counters(ep3)
    tap.ok(c3.get("rx_mads", 0) == 0,
           "ep3 received nothing: vESW 1's broadcasts go to its members "
           "only", str(c3))
    ip(ep1, "neigh", "replace", ep3.addr, "lladdr", ep3.mac, "dev",
       ep1.tap, "nud", "permanent")
    rc, out = ping(ep1, ep3.addr, count=2, wait=1)
    tap.ok(rc != 0, "... and with ep3's MAC as a static neighbour too",
           out)
    c3 = wait_counters(ep3, lambda c: c.get("rx_bad_veswid", 0) >= 2)
    tap.ok(c3.get("rx_bad_veswid", 0) >= 2 and c3.get("rx_packets") == 0,
           "ep3 got those frames (its LID is in the MAC) and dropped them: "
           "rx_bad_veswid", str(c3))
    rc, out = ping(ep3, ep1.addr, count=2, wait=1)
    c3 = wait_counters(ep3, lambda c: c.get("tx_dlid_zero", 0) >= 1)
    tap.ok(rc != 0 and c3.get("tx_dlid_zero", 0) >= 1 and
           c3.get("tx_mads", 0) == 0,
           "ping ep3 -> ep1 fails: ep3's ARP has no DLID (no vESW-2 peer)",
           f"{out}\n{c3}")
    eps.check()


def usage_errors(tap):
    """Bad command lines: a message naming the problem, exit status 2,
    before anything is opened."""
    base = ["--vesw", "1", "--pkey", "0x8001", "--tap", "x"]
    cases = [([], "--vesw, --pkey and --tap are needed"),
             (base + ["--vesw", "0"], "--vesw wants 1-4095"),
             (base + ["--pkey", "0x8000"], "--pkey wants a P_Key"),
             (base + ["--mtu", "20"], "--mtu wants 68-9000"),
             (base + ["--peer", "zz=3"], "--peer wants MAC=LID or LID"),
             (base + ["--mac", "01:00:00:00:00:01"], "--mac wants a unicast"),
             (base + ["extra"], "no other arguments")]
    for argv, msg in cases:
        res = subprocess.run([ENDPOINT] + argv, capture_output=True,
                             text=True, timeout=10)
        tap.ok(res.returncode == 2 and msg in res.stderr,
               f"usage error: {' '.join(argv[6:]) or 'no arguments'}: "
               f"exit 2, '{msg}'", f"rc {res.returncode}: {res.stderr}")


def main():
    tap = vfsim.Tap()
    if os.geteuid() != 0:
        tap.skip_all("needs root (TAP devices and network namespaces)")
    if not os.path.exists("/dev/net/tun"):
        tap.skip_all("no /dev/net/tun")
    for tool in ("ip", "ping"):
        if not shutil.which(tool):
            tap.skip_all(f"no {tool} (iproute2, iputils-ping)")
    vfsim.require_tools(tap)
    if not os.access(ENDPOINT, os.X_OK):
        tap.skip_all(f"vnic-endpoint not built ({ENDPOINT})")
    usage_errors(tap)
    fab = topogen.fattree2(leaves=3, spines=2, hosts=2)
    with vfsim.Sim(fab, "vnicdata", tap=tap) as sim:
        eps = Endpoints(sim)
        try:
            run(tap, sim, eps)
        finally:
            rcs = eps.stop()
        tap.ok(rcs and all(rc == 0 for rc in rcs.values()),
               "every endpoint exits cleanly on SIGTERM", str(rcs))
        for ep in eps.eps:
            tap.ok("tx_packets" in vfsim.read_from(ep.log),
                   f"{ep.name} printed its counters at exit")
    tap.done()


if __name__ == "__main__":
    main()
