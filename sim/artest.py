# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Helpers of the adaptive-routing ibsim tests (t-ar.py, t-arfail.py):
the switch agents (sim/ar-agent) and their dumps, requests in the AR
class (docs/ar-protocol.md) and the plugin's summary line."""

import os
import re
import subprocess

import vfsim
import vftest

AGENT = os.path.abspath(os.environ.get(
    "VF_AR_AGENT", os.path.join(vftest.TOP_BUILDDIR, "sim", "ar-agent")))
SUMMARY = (r"adaptive routing: (\d+) switches programmed \((\d+) blocks "
           r"written\), (\d+) unchanged, (\d+) not AR-capable, (\d+) failed, "
           r"(\d+) hold another AR_Key")


def config(enable, algorithm=2, lost_route_only=0):
    """A vFabric file with only <Sm><AdaptiveRouting>."""
    return f"""<?xml version="1.0"?>
<Config><Common>
<Sm><AdaptiveRouting><Enable>{enable}</Enable><FineGrained>1</FineGrained>
<Algorithm>{algorithm}</Algorithm><ARFrequency>2</ARFrequency><Threshold>4</Threshold>
<LostRouteOnly>{lost_route_only}</LostRouteOnly>
</AdaptiveRouting></Sm>
</Common></Config>
"""


def parse_tables(text):
    """{guid: (header "groups N lids M", [group and lids lines])} of a
    `vfabric ar` dump (the capacities left out: the agents have theirs)."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"switch (0x[0-9a-f]+) groups (\d+)/\d+ lids (\d+)/\d+",
                     line)
        if m:
            cur = int(m.group(1), 16)
            out[cur] = (f"groups {m.group(2)} lids {m.group(3)}", [])
        elif cur is not None and line and not line.startswith("#"):
            out[cur][1].append(line)
    return out


def lid_ports(entry):
    """(header, {LID: the ports of its group}) of one parse_tables() entry:
    the meaning of the tables, whatever the group numbering (the plugin
    numbers groups in OpenSM's switch order, `vfabric ar` in the order of
    the topology file)."""
    if entry is None:
        return None
    header, lines = entry
    groups, lids = {}, {}
    for line in lines:
        m = re.match(r"group (\d+) ([\d,]+)$", line)
        if m:
            groups[int(m.group(1))] = tuple(map(int, m.group(2).split(",")))
        m = re.match(r"lids (\d+)-(\d+) (\d+)$", line)
        if m:
            for lid in range(int(m.group(1)), int(m.group(2)) + 1):
                lids[lid] = int(m.group(3))
    return header, {lid: groups.get(g) for lid, g in lids.items()}


def agent_state(path):
    """The agent's '# ar-agent ...' line as a dict, and its tables."""
    text = vfsim.read_from(path)
    m = re.search(r"^# ar-agent (.*)$", text, re.M)
    words = m.group(1).split() if m else []
    return dict(zip(words[0::2], map(int, words[1::2]))), parse_tables(text)


class Agents:
    """The agents we started (stopped by PID)."""

    def __init__(self, sim, fab):
        self.sim, self.procs, self.dumps, self.logs = sim, {}, {}, {}
        self.guids = {n.id: n.guid for n in fab.switches()}

    def start(self, node, *args):
        env = self.sim._env(node)
        self.dumps[node] = os.path.join(self.sim.workdir, f"ar-{node}.dump")
        self.logs[node] = os.path.join(self.sim.workdir, f"ar-{node}.log")
        with open(self.logs[node], "wb") as log:
            self.procs[node] = subprocess.Popen(
                [AGENT, "--dump", self.dumps[node]] + list(args), env=env,
                cwd=self.sim.workdir, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, preexec_fn=vfsim._pdeathsig)
        vfsim.wait_until(lambda: "ready" in vfsim.read_from(self.logs[node]),
                         30, f"ar-agent at {node}", self.check)

    def stop_one(self, node):
        """Stop one agent (by PID); its exit code."""
        return vfsim.stop_processes({node: self.procs.pop(node)})[node]

    def check(self):
        for node, p in self.procs.items():
            if p.poll() is not None:
                raise vfsim.SimError(f"ar-agent at {node} exited (rc "
                                     f"{p.returncode}):\n"
                                     f"{vfsim.tail(self.logs[node])}")

    def stop(self):
        return vfsim.stop_processes(self.procs)


def summary_after(sim, since, label):
    m = sim.wait_log(SUMMARY, since, 60)
    return tuple(int(x) for x in m.groups())


def request(sim, lid, *reqs, node="cn0005", key=None):
    """Send AR requests with the agent's requester mode (carrying the
    AR_Key `key` if given); the answers as a list of (status, data bytes)
    or strings ('timeout', 'umad-status')."""
    argv = [AGENT, "--to", str(lid)]
    if key is not None:
        argv += ["--key", f"{key:x}"]
    for r in reqs:
        argv += ["--req", r]
    out = sim.run_diag(argv, node=node)
    res = []
    for line in out.splitlines():
        m = re.match(r"req \d+ status 0x([0-9a-f]{4}) data ([0-9a-f]+)", line)
        res.append((int(m.group(1), 16), bytes.fromhex(m.group(2)))
                   if m else line)
    return res


DOWN = 0x80000000


def set_down(sim, lid, port, down=True, node="cn0005"):
    """ARPortLoad Set at switch LID: `port` down (or up), the rest of its
    block idle; the answer (the block read back) as {port: raw load}."""
    block, at = divmod(port - 1, 32)
    loads = [0] * 32
    loads[at] = DOWN if down else 0
    res = request(sim, lid, f"2,0xff24,{block},0,"
                  + "".join(f"{v:08x}" for v in loads), node=node)
    if not res or not isinstance(res[0], tuple) or res[0][0] != 0:
        return {}
    data = res[0][1]
    return {32 * block + k + 1: int.from_bytes(data[4 * k:4 * k + 4], "big")
            for k in range(32)}


def lid_of(topo_path, guid):
    nodes = vfsim.parse_ibnetdiscover(vfsim.read_from(topo_path))
    return nodes[guid]["lid"]


def main_with_agents(fab, name, run):
    """A test's main: ibsim on fab, run(tap, sim, fab, agents), and every
    agent stopped (by PID) and checked to exit cleanly, even on failure."""
    tap = vfsim.Tap()
    vftest.start(tap)
    if not os.access(AGENT, os.X_OK):
        tap.skip_all(f"ar-agent not built ({AGENT})")
    with vfsim.Sim(fab, name, tap=tap) as sim:
        agents = Agents(sim, fab)
        try:
            run(tap, sim, fab, agents)
        finally:
            rcs = agents.stop()
        tap.ok(all(rc == 0 for rc in rcs.values()),
               "every agent exits cleanly at the end", str(rcs))
    tap.done()
