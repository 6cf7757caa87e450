# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""What the VNIC ibsim tests share (t-vnicdata.py, t-emendpoint.py,
t-em.py): vnic-endpoint processes with their TAP devices in network
namespaces of their own, started and stopped by PID; ping between
namespaces; the endpoint's state file."""

import os
import re
import shutil
import subprocess

import topogen
import vfsim
import vftest

ENDPOINT = os.path.abspath(os.environ.get(
    "VF_VNIC_ENDPOINT", os.path.join(vftest.TOP_BUILDDIR, "sim",
                                     "vnic-endpoint")))
TAG = f"{os.getpid() % 100000}"


class Endpoint:
    """One vnic-endpoint we started, its namespace and files.  vesw None
    or managed: the EM configures it (vesw, if given, is what the test
    expects the EM to set) and the test gives the TAP its address."""

    def __init__(self, name, node, vesw, pkey, addr, managed=False):
        self.name, self.node, self.vesw, self.pkey = name, node, vesw, pkey
        self.addr = addr
        self.managed = managed or vesw is None
        self.netns = f"vfv{TAG}{name}"
        self.tap = f"vft{TAG}{name}"
        self.proc = self.log = self.state = None
        self.lid = self.mac = None


class Endpoints:
    """Start, watch and stop the endpoints (by PID) and their
    namespaces."""

    def __init__(self, sim):
        self.sim, self.eps, self.netns = sim, [], []

    def start(self, ep, peers=()):
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
        argv = [ENDPOINT, "--tap", ep.tap, "--netns", ep.netns, "--state",
                ep.state]
        if ep.managed:
            argv += ["--managed"]
        else:
            argv += ["--vesw", str(ep.vesw), "--pkey", hex(ep.pkey)]
        for lid in peers:
            argv += ["--peer", str(lid)]
        with open(ep.log, "wb") as log:
            ep.proc = subprocess.Popen(
                argv, env=env, cwd=self.sim.workdir, stdout=log,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                preexec_fn=vfsim._pdeathsig)
        self.eps.append(ep)
        m = vfsim.wait_until(
            lambda: re.search(r"LID (\d+) (?:.* MAC (\S+) )?.*: ready",
                              vfsim.read_from(ep.log)),
            30, f"vnic-endpoint {ep.name} at {ep.node}", self.check)
        ep.lid, ep.mac = int(m.group(1)), m.group(2)
        if not ep.managed:
            ip(ep, "addr", "add", f"{ep.addr}/24", "dev", ep.tap)
        ip(ep, "link", "set", "lo", "up")

    def check(self):
        for ep in self.eps:
            if ep.proc.poll() is not None:
                raise vfsim.SimError(f"vnic-endpoint {ep.name} exited (rc "
                                     f"{ep.proc.returncode}):\n"
                                     f"{vfsim.tail(ep.log)}")

    def restart(self, ep, down=None):
        """Stop ep's process (by PID) and drop its namespace; once
        down(ep) returns (the caller's wait while it is gone), start it
        again: a new agent, a new TAP."""
        vfsim.stop_process(ep.proc)
        subprocess.run(["ip", "netns", "del", ep.netns],
                       stderr=subprocess.DEVNULL)
        self.eps.remove(ep)
        self.netns.remove(ep.netns)
        if down:
            down(ep)
        self.start(ep)

    def stop(self):
        rcs = vfsim.stop_processes({ep.name: ep.proc for ep in self.eps})
        for ns in self.netns:
            subprocess.run(["ip", "netns", "del", ns],
                           stderr=subprocess.DEVNULL)
        return rcs


def ip(ep, *args):
    return subprocess.run(["ip", "-n", ep.netns] + list(args), check=True,
                          capture_output=True, text=True).stdout


def ping(ep, addr, count=3, size=None, wait=2):
    argv = ["ip", "netns", "exec", ep.netns, "ping", "-n", "-c", str(count),
            "-i", "0.2", "-W", str(wait)]
    if size:
        argv += ["-s", str(size)]
    res = subprocess.run(argv + [addr], capture_output=True, text=True,
                         timeout=60)
    return res.returncode, res.stdout + res.stderr


def counters(ep):
    """The state file's "name number" lines."""
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


def lmac(fabric, vesw, lid):
    """The locally administered MAC of docs/vnic-datapath.md."""
    w = 2 | fabric << 2 | vesw << 12
    return ":".join(f"{b:02x}" for b in (w & 0xff, w >> 8 & 0xff,
                                          w >> 16 & 0xff, lid & 0xff,
                                          lid >> 8 & 0xff, lid >> 16 & 0xff))


def require_root_tools(tap):
    """Skip (the whole test) without root, /dev/net/tun, ip or ping."""
    if os.geteuid() != 0:
        tap.skip_all("needs root (TAP devices and network namespaces)")
    if not os.path.exists("/dev/net/tun"):
        tap.skip_all("no /dev/net/tun")
    for tool in ("ip", "ping"):
        if not shutil.which(tool):
            tap.skip_all(f"no {tool} (iproute2, iputils-ping)")


def run_on_fattree(tap, name, run, after=None):
    """A test's ibsim part on the fat tree of the VNIC tests (3 leaves, 2
    spines, 2 hosts a leaf): run(tap, sim, eps), every endpoint stopped
    (by PID) and checked to exit cleanly even on failure, then
    after(tap, eps) while the work dir (the endpoints' logs) is still
    there."""
    fab = topogen.fattree2(leaves=3, spines=2, hosts=2)
    with vfsim.Sim(fab, name, tap=tap) as sim:
        eps = Endpoints(sim)
        try:
            run(tap, sim, eps)
        finally:
            rcs = eps.stop()
        tap.ok(rcs and all(rc == 0 for rc in rcs.values()),
               "every endpoint exits cleanly on SIGTERM", str(rcs))
        if after:
            after(tap, eps)
