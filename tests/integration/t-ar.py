#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Adaptive routing programmed by the plugin through the AR class
(docs/ar-protocol.md) into switch agents (sim/ar-agent) on ibsim.

A 2-level fat tree of 4 leaves and 3 spines: agents on the 4 leaves and
S001, none on S002, an agent that ignores the AR class (--no-ar) on S003;
OpenSM + plugin with <Sm><AdaptiveRouting> Enable, FineGrained, Algorithm
GreedyRandom, ARFrequency 2, Threshold 4 in the config file and
ar_algorithm=greedy in event_plugin_options (the option wins):

- every agent holds what `vfabric ar` computes offline from the discovered
  topology and the LFTs read back (dump_fts), with the control values;
- S002 and S003 are logged once each as not answering and are skipped;
- a SIGHUP sweep writes no block (5 switches unchanged) and logs no probe
  failure again;
- a link failure (Unlink) rewrites the changed blocks, and the agents'
  tables equal the new offline ones;
- the agent's egress choice (AREgress) moves off a congested static port
  to the least loaded member of the group (Greedy);
- malformed requests get error statuses, and the agent keeps answering;
- AR disabled in the file + SIGHUP: the agents are told enable=0.
"""

import os
import re
import signal
import subprocess
import time

import topogen
import vfsim
import vftest

AGENT = os.path.abspath(os.environ.get(
    "VF_AR_AGENT", os.path.join(vftest.TOP_BUILDDIR, "sim", "ar-agent")))
SUMMARY = (r"adaptive routing: (\d+) switches programmed \((\d+) blocks "
           r"written\), (\d+) unchanged, (\d+) not AR-capable, (\d+) failed")
AGENT_SWITCHES = ("L001", "L002", "L003", "L004", "S001")
NO_AR = "S003"
NO_AGENT = "S002"


def config(enable):
    return f"""<?xml version="1.0"?>
<Config><Common>
<Sm><AdaptiveRouting><Enable>{enable}</Enable><FineGrained>1</FineGrained>
<Algorithm>2</Algorithm><ARFrequency>2</ARFrequency><Threshold>4</Threshold>
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

    def check(self):
        for node, p in self.procs.items():
            if p.poll() is not None:
                raise vfsim.SimError(f"ar-agent at {node} exited (rc "
                                     f"{p.returncode}):\n"
                                     f"{vfsim.tail(self.logs[node])}")

    def stop(self):
        rcs = {}
        for node, p in self.procs.items():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            rcs[node] = p.returncode
        return rcs


def offline_tables(sim, tag):
    """`vfabric ar` on the discovered topology and the LFTs read back."""
    topo = sim.discover(os.path.join(sim.workdir, f"disc-{tag}.out"))
    lfts = sim.dump_lfts(os.path.join(sim.workdir, f"lfts-{tag}.out"))
    out = os.path.join(sim.workdir, f"offline-{tag}.ar")
    vftest.vfabric("ar", "--topo", topo, "--lfts", lfts, "-o", out,
                   check=True)
    return parse_tables(vfsim.read_from(out)), topo, lfts


def compare(tap, sim, agents, tag, label):
    """Each agent's tables equal the offline ones (retried while a sweep
    may still be programming)."""
    diffs = ["not compared"]
    for _ in range(3):
        want, topo, lfts = offline_tables(sim, tag)
        diffs = []
        for node in AGENT_SWITCHES:
            guid = agents.guids[node]
            _, got = agent_state(agents.dumps[node])
            if lid_ports(got.get(guid)) != lid_ports(want.get(guid)):
                diffs.append(f"{node}: agent {got.get(guid)} offline "
                             f"{want.get(guid)}")
        if not diffs:
            break
        time.sleep(1)
    tap.ok(not diffs, f"{label}: every agent holds the offline AR tables",
           "\n".join(diffs))
    grouped = [n for n in AGENT_SWITCHES
               if want.get(agents.guids[n], ("", []))[1]]
    tap.ok(len(grouped) >= 4, f"{label}: the leaves have port groups "
           f"({', '.join(grouped)})")
    return want, topo, lfts


def summary_after(sim, since, label):
    m = sim.wait_log(SUMMARY, since, 60)
    return tuple(int(x) for x in m.groups())


def request(sim, lid, *reqs, node="cn0005"):
    """Send AR requests with the agent's requester mode; the answers as a
    list of (status, data bytes) or strings ('timeout', 'umad-status')."""
    argv = [AGENT, "--to", str(lid)]
    for r in reqs:
        argv += ["--req", r]
    out = sim.run_diag(argv, node=node)
    res = []
    for line in out.splitlines():
        m = re.match(r"req \d+ status 0x([0-9a-f]{4}) data ([0-9a-f]+)", line)
        res.append((int(m.group(1), 16), bytes.fromhex(m.group(2)))
                   if m else line)
    return res


def lid_of(topo_path, guid):
    nodes = vfsim.parse_ibnetdiscover(vfsim.read_from(topo_path))
    return nodes[guid]["lid"]


def check_egress(tap, sim, agents, topo, lfts):
    """AREgress at L001 for a remote host: congest the static port; Greedy
    moves to the least loaded member of the group."""
    guid = agents.guids["L001"]
    lid = lid_of(topo, guid)
    table = vfsim.read_lfts(lfts)[guid]
    nodes = vfsim.parse_ibnetdiscover(vfsim.read_from(topo))
    dst = nodes[agents.guids["L004"]]
    host = next(peer for peer, _ in dst["links"].values()
                if nodes[peer]["kind"] == "Ca")
    dlid = nodes[host]["lid"]
    static = table[dlid]
    _, tables = agent_state(agents.dumps["L001"])
    lines = tables[guid][1]
    grp = None
    for line in lines:
        m = re.match(r"lids (\d+)-(\d+) (\d+)", line)
        if m and int(m.group(1)) <= dlid <= int(m.group(2)):
            grp = int(m.group(3))
    members = []
    for line in lines:
        m = re.match(rf"group {grp} ([\d,]+)$", line)
        if m:
            members = [int(x) for x in m.group(1).split(",")]
    if not tap.ok(grp is not None and static in members and len(members) > 1,
                  f"L001: LID {dlid} has group {grp} {members} with the "
                  f"static port {static}"):
        return
    loads = [50] * 32
    loads[static - 1] = 100
    least = next(m for m in members if m != static)
    loads[least - 1] = 10
    data = "".join(f"{v:08x}" for v in loads)
    res = request(sim, lid, f"2,0xff24,0,0,{data}",
                  f"1,0xff25,{dlid},0,{static:02x}")
    ok = (len(res) == 2 and all(isinstance(r, tuple) and r[0] == 0
                                for r in res))
    tap.ok(ok and res[1][1][1] == least and res[1][1][2] == grp,
           f"L001 egress for LID {dlid}: static port {static} congested, "
           f"Greedy picks port {least} (the least loaded)", str(res))
    res = request(sim, lid, f"2,0xff24,0,0,{'00000000' * 32}",
                  f"1,0xff25,{dlid},0,{static:02x}")
    tap.ok(isinstance(res[-1], tuple) and res[-1][1][1] == static,
           "no congestion: the static port", str(res))


def check_malformed(tap, sim, agents, topo):
    """Error statuses for malformed requests; the agent keeps running."""
    lid = lid_of(topo, agents.guids["L002"])
    cases = [
        ("1,0xff7f,0", 0x000C, "unknown attribute"),
        ("2,0xff20,0", 0x000C, "Set of the read-only ARInfo"),
        ("0x14,0xff20,0", 0x0008, "unknown method"),
        ("2,0xff22,200,0", 0x001C, "PortGroup block index out of range"),
        ("1,0xff23,5000", 0x001C, "LID block past the LID capacity"),
        ("2,0xff23,0,999", 0x0100, "table Set while not paused"),
        ("2,0xff21,0,0," + "0109" + "00" * 10, 0x001C,
         "ARControl with algorithm 9"),
        ("1,0xff20,0", 0x0000, "and then a good Get ARInfo"),
    ]
    res = request(sim, lid, *(c[0] for c in cases))
    for (spec, want, what), got in zip(cases, res):
        tap.ok(isinstance(got, tuple) and got[0] == want,
               f"malformed: {what}: status 0x{want:04x}", f"{spec}: {got}")
    tap.ok(agents.procs["L002"].poll() is None, "the agent keeps running")


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    if not os.access(AGENT, os.X_OK):
        tap.skip_all(f"ar-agent not built ({AGENT})")
    fab = topogen.fattree2(leaves=4, spines=3, hosts=2)
    with vfsim.Sim(fab, "ar", tap=tap) as sim:
        agents = Agents(sim, fab)
        try:
            run(tap, sim, fab, agents)
        finally:
            rcs = agents.stop()
        tap.ok(all(rc == 0 for rc in rcs.values()),
               "every agent exits cleanly at the end", str(rcs))
    tap.done()


def run(tap, sim, fab, agents):
    conf = os.path.join(sim.workdir, "vfabric.xml")
    with open(conf, "w") as fh:
        fh.write(config(1))
    sim.start_ibsim()
    for node in AGENT_SWITCHES:
        agents.start(node)
    agents.start(NO_AR, "--no-ar")
    osm = sim.start_opensm(conf_lines=vftest.plugin_conf(
        options=f"config={conf} config_poll=0 ar_algorithm=greedy"),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    first = summary_after(sim, 0, "first sweep")
    tap.ok(first[0] == 5 and first[1] > 0 and first[3] == 2 and
           first[4] == 0, "first sweep: 5 switches programmed, 2 not "
           "AR-capable, none failed", str(first))
    log = sim.log_text()
    for node, why in ((NO_AGENT, "nobody handles the class there"),
                      (NO_AR, "no answer after retries")):
        n = len(re.findall(rf"switch 0x{agents.guids[node]:016x} \(LID \d+\) "
                           rf"does not answer the AR probe \({why}\)", log))
        tap.ok(n == 1, f"{node} is logged once: {why}", f"{n} times")
    state, _ = agent_state(agents.dumps["L001"])
    tap.ok(state.get("enable") == 1 and state.get("pause") == 0 and
           state.get("algorithm") == 1 and state.get("frequency") == 2 and
           state.get("threshold") == 4,
           "L001 control: enabled, resumed, Greedy (the option wins over "
           "the file's GreedyRandom), ARFrequency 2, Threshold 4", str(state))
    _, topo, lfts = compare(tap, sim, agents, "1", "first sweep")

    since = sim.log_offset()
    os.kill(osm.pid, signal.SIGHUP)
    again = summary_after(sim, since, "SIGHUP")
    tap.ok(again[:3] == (0, 0, 5) and again[4] == 0,
           "SIGHUP, nothing changed: no block written, 5 switches unchanged",
           str(again))
    tap.ok("does not answer" not in sim.log_text(since),
           "no probe failure logged again")

    port = fab.links_between("L001", "S001")[0]
    sim.console(f'Unlink "L001"[{port}]')
    sim.wait_resweep()
    after = summary_after(sim, sim.cmd_log_offset, "unlink")
    tap.ok(after[0] >= 1 and after[1] >= 1 and after[4] == 0,
           f"L001[{port}] unlinked: the changed blocks are rewritten "
           f"({after[1]} blocks on {after[0]} switches)", str(after))
    _, topo, lfts = compare(tap, sim, agents, "2", "after the link failure")
    _, tables = agent_state(agents.dumps["L001"])
    tap.ok(not any(re.match(rf"group \d+ (.*,)?{port}(,|$)", line)
                   for line in tables[agents.guids["L001"]][1]),
           f"L001's groups no longer hold port {port}")

    check_egress(tap, sim, agents, topo, lfts)
    check_malformed(tap, sim, agents, topo)

    with open(conf, "w") as fh:
        fh.write(config(0))
    since = sim.log_offset()
    os.kill(osm.pid, signal.SIGHUP)
    m = sim.wait_log(r"adaptive routing: disabled; told (\d+) of (\d+) "
                     r"switches to stop AR", since, 60)
    tap.ok(m.group(1) == m.group(2) == "5",
           "AR disabled in the file + SIGHUP: the 5 agents are told to stop",
           m.group(0))
    states = {n: agent_state(agents.dumps[n])[0].get("enable")
              for n in AGENT_SWITCHES}
    tap.ok(all(v == 0 for v in states.values()),
           "every agent reports enable 0", str(states))
    agents.check()


if __name__ == "__main__":
    main()
