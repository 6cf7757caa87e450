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
- after the unlink L001's ARNeighbors (rewritten by the plugin) shows no
  peer on the port;
- malformed requests get error statuses, and the agent keeps answering;
- a compute node's ARControl Set turning AR off is refused (only the
  master SM, by its MasterSMLID, may set AR), as are its table and
  neighbor Sets;
- a lost-route notice a host sends is refused without the AR_Key; with
  it (a host that learnt it), one in a switch's name is refused (the
  sender must be the SLID) and one in its own name marks nothing;
- the AR_Key (ar_key): a Set from the master SM's own node without it is
  refused 0x0300 and counted; ARKeyInfo shows the key only to a request
  carrying it; a host cannot set one (0x0200);
- a link failure pauses every programmed switch before routing (logged
  before the engine runs) and resumes it after the tables;
- AR disabled in the file + SIGHUP: the agents are told enable=0.
"""

import os
import re
import signal
import time

import topogen
import vfsim
import vftest
from artest import (agent_state, config, lid_of, lid_ports,
                    main_with_agents, parse_tables, request, summary_after)

AGENT_SWITCHES = ("L001", "L002", "L003", "L004", "S001")
NO_AR = "S003"
NO_AGENT = "S002"
KEY = 0x5EED0FA7C0FFEE01


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
        ("1,0xff23,5000", 0x001C, "LID block past the LID capacity"),
        ("1,0xff26,4", 0x001C, "ARNeighbors block past port 255"),
        # Sets only the master SM may make, from a host: refused before
        # any field is looked at
        ("2,0xff22,200,0", 0x0200,
         "a host's PortGroup Set (block out of range too)"),
        ("2,0xff23,0,999", 0x0200, "a host's PortGroupLid Set"),
        ("2,0xff21,0,0," + "0109" + "00" * 10, 0x0200,
         "a host's ARControl Set (algorithm 9 too)"),
        ("2,0xff26,0,999", 0x0200, "a host's ARNeighbors Set"),
        ("1,0xff27,0", 0x000C, "Get of the notice ARLostRoutes"),
        ("2,0xff27,60,0,00000001", 0x001C, "ARLostRoutes past the LIDs"),
        ("1,0xff20,0", 0x0000, "and then a good Get ARInfo"),
    ]
    # with the AR_Key: what is refused here is refused for the request
    res = request(sim, lid, *(c[0] for c in cases), key=KEY)
    for (spec, want, what), got in zip(cases, res):
        tap.ok(isinstance(got, tuple) and got[0] == want,
               f"malformed: {what}: status 0x{want:04x}", f"{spec}: {got}")
    tap.ok(agents.procs["L002"].poll() is None, "the agent keeps running")


def check_host_disables_ar(tap, sim, agents, topo):
    """A compute node sends ARControl Set, Enable off, to a switch: only
    the master SM (MasterSMLID, which the fabric's SLID is checked
    against) may, so it is refused and AR stays on."""
    lid = lid_of(topo, agents.guids["L003"])
    res = request(sim, lid, "2,0xff21,0,0," + "0000" + "00" * 10,
                  "1,0xff21,0")
    state = agent_state(agents.dumps["L003"])[0]
    tap.ok(len(res) == 2 and isinstance(res[0], tuple) and
           res[0][0] == 0x0200 and isinstance(res[1], tuple) and
           res[1][1][0] & 1 and state.get("enable") == 1,
           "a compute node's ARControl Set turning AR off on L003: "
           "0x0200 (not from the master SM), AR stays on", f"{res} {state}")


def check_forged_notice(tap, sim, agents, topo):
    """A host that sends a lost-route notice in a switch's name (S001, a
    neighbor of L002) is refused, and one in its own name is not a
    neighbor's: L002 marks nothing either way."""
    lid = lid_of(topo, agents.guids["L002"])
    spine = lid_of(topo, agents.guids["S001"])
    lost = "ff" * 8                 # LIDs 0-63 "no longer reachable"
    before = agent_state(agents.dumps["L002"])[0].get("lids_marked")
    forged = f"2,0xff27,0,0,0000{spine:04x}{'00' * 12}{lost}"
    nokey = request(sim, lid, forged)
    tap.ok(len(nokey) == 1 and isinstance(nokey[0], tuple) and
           nokey[0][0] == 0x0300,
           "a host's ARLostRoutes without the AR_Key: 0x0300", str(nokey))
    res = request(sim, lid, forged,
                  f"2,0xff27,0,0,00000000{'00' * 12}{lost}", key=KEY)
    after = agent_state(agents.dumps["L002"])[0].get("lids_marked")
    tap.ok(len(res) == 2 and isinstance(res[0], tuple) and
           res[0][0] == 0x001C,
           "a host's ARLostRoutes naming a switch (S001) as the sender: "
           "0x001c, the sender must be the MAD's SLID", str(res))
    tap.ok(before == after == 0,
           "... and one in the host's own name (no neighbor): L002 marks "
           "no LID lost", f"lids_marked {before} -> {after}; {res}")


def check_key(tap, sim, agents, topo):
    """The AR_Key: even from the master SM's own node (its SLID), a Set
    without the key is refused and counted; ARKeyInfo shows the key only
    to a request carrying it; a host cannot set a key."""
    lid = lid_of(topo, agents.guids["L003"])
    sm_node = sim.default_sm_node()
    before = agent_state(agents.dumps["L003"])[0]
    res = request(sim, lid, "2,0xff21,0,0," + "0000" + "00" * 10,
                  node=sm_node)
    state = agent_state(agents.dumps["L003"])[0]
    tap.ok(len(res) == 1 and isinstance(res[0], tuple) and
           res[0][0] == 0x0300 and state.get("enable") == 1 and
           state.get("key_refused", 0) == before.get("key_refused", 0) + 1,
           "an ARControl Set (AR off) from the SM's node without the "
           "AR_Key: 0x0300, counted, AR stays on", f"{res} {state}")
    shown = request(sim, lid, "1,0xff28,0")
    keyed = request(sim, lid, "1,0xff28,0", key=KEY)
    tap.ok(isinstance(shown[0], tuple) and shown[0][0] == 0 and
           shown[0][1][0:8] == bytes(8) and
           int.from_bytes(shown[0][1][8:10], "big") == 60 and
           isinstance(keyed[0], tuple) and
           int.from_bytes(keyed[0][1][0:8], "big") == KEY,
           "ARKeyInfo Get: key 0 to a host without it, the key (lease "
           "60 s) to one that carries it", f"{shown} {keyed}")
    setk = request(sim, lid, "2,0xff28,0,0," + "11" * 8 + "0005")
    probe = request(sim, lid, "1,0xff28,0", key=KEY)
    tap.ok(isinstance(setk[0], tuple) and setk[0][0] == 0x0200 and
           int.from_bytes(probe[0][1][0:8], "big") == KEY,
           "a host's ARKeyInfo Set: 0x0200, the key is unchanged",
           f"{setk} {probe}")


def main():
    main_with_agents(topogen.fattree2(leaves=4, spines=3, hosts=2), "ar",
                     run)


def reached_without(topo, lfts, sm_guid, targets, cut_guid, cut_port):
    """How many of the target switches answer the SM by the tables in lfts
    (read back before a cable is cut) without crossing the cable at
    cut_guid[cut_port]: the request to the switch's LID and the answer to
    the SM's LID both follow the old tables."""
    nodes = vfsim.parse_ibnetdiscover(open(topo).read())
    tables = vfsim.read_lfts(lfts)
    cut = {(cut_guid, cut_port), nodes[cut_guid]["links"][cut_port]}
    sm_switch = nodes[sm_guid]["links"][1][0]

    def arrives(at, goal, lid):
        for _ in range(len(nodes)):
            if at == goal:
                return True
            out = tables.get(at, {}).get(lid)
            if out is None or (at, out) in cut or \
                    out not in nodes[at]["links"]:
                return False
            at = nodes[at]["links"][out][0]
        return False

    return sum(1 for target in targets
               if arrives(sm_switch, target, nodes[target]["lid"]) and
               arrives(target, sm_switch, nodes[sm_guid]["lid"]))


def run(tap, sim, fab, agents):
    conf = os.path.join(sim.workdir, "vfabric.xml")
    with open(conf, "w") as fh:
        fh.write(config(1))
    sim.start_ibsim()
    for node in AGENT_SWITCHES:
        agents.start(node)
    agents.start(NO_AR, "--no-ar")
    osm = sim.start_opensm(conf_lines=vftest.plugin_conf(
        options=f"config={conf} config_poll=0 ar_algorithm=greedy "
                f"ar_key={KEY:x}"),
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
    reach = reached_without(topo, lfts, sim.nodes[sim.default_sm_node()].guid,
                            [agents.guids[n] for n in AGENT_SWITCHES],
                            agents.guids["L001"], port)
    sim.console(f'Unlink "L001"[{port}]')
    sim.wait_resweep()
    after = summary_after(sim, sim.cmd_log_offset, "unlink")
    log = sim.log_text(sim.cmd_log_offset)
    paused = re.search(r"adaptive routing: paused (\d+) of (\d+) switches "
                       r"before routing", log)
    routed = log.find("unicast routing done by engine")
    # a switch whose LID route from the SM crossed the cable cannot be
    # reached before the new LFTs: it is paused at SUBNET UP instead
    tap.ok(paused and paused.group(2) == "5" and
           int(paused.group(1)) == reach and 0 <= paused.start() < routed,
           "the unlink: the 5 programmed switches are asked to pause "
           "before routing (logged before the engine's routing is done), "
           f"the {reach} the SM's old routes reach without the cable pause",
           paused.group(0) if paused else log[-2000:])
    tap.ok(after[0] >= 1 and after[1] >= 1 and after[4] == 0,
           f"L001[{port}] unlinked: the changed blocks are rewritten "
           f"({after[1]} blocks on {after[0]} switches)", str(after))
    _, topo, lfts = compare(tap, sim, agents, "2", "after the link failure")
    _, tables = agent_state(agents.dumps["L001"])
    tap.ok(not any(re.match(rf"group \d+ (.*,)?{port}(,|$)", line)
                   for line in tables[agents.guids["L001"]][1]),
           f"L001's groups no longer hold port {port}")
    # ARNeighbors is one more table the plugin keeps a shadow of: the
    # unlink rewrites L001's block (the port has no peer any more)
    res = request(sim, lid_of(topo, agents.guids["L001"]), "1,0xff26,0")
    nb = (res[0][1] if res and isinstance(res[0], tuple) and res[0][0] == 0
          else b"")
    tap.ok(len(nb) >= 128 and nb[2 * port:2 * port + 2] == b"\0\0" and
           int.from_bytes(nb[0:2], "big") == lid_of(topo, agents.guids["L001"])
           and any(nb[2:128]),
           f"L001's ARNeighbors: its own LID, port {port} 0 after the unlink, "
           "its other spines still there", str(res))

    check_egress(tap, sim, agents, topo, lfts)
    check_malformed(tap, sim, agents, topo)
    check_host_disables_ar(tap, sim, agents, topo)
    check_forged_notice(tap, sim, agents, topo)
    check_key(tap, sim, agents, topo)
    late_agent(tap, sim, agents, osm)

    since = sim.reload_config(conf, config(0), osm=osm)
    m = sim.wait_log(r"adaptive routing: disabled; told (\d+) of (\d+) "
                     r"switches to stop AR", since, 60)
    tap.ok(m.group(1) == m.group(2) == "6",
           "AR disabled in the file + SIGHUP: the 6 agents (with the late "
           "one) are told to stop", m.group(0))
    states = {n: agent_state(agents.dumps[n])[0].get("enable")
              for n in AGENT_SWITCHES + (NO_AGENT,)}
    tap.ok(all(v == 0 for v in states.values()),
           "every agent reports enable 0", str(states))
    agents.check()


def late_agent(tap, sim, agents, osm):
    """An agent started at the switch that had none: the plugin probes it
    again after 1, 2, 4, ... passes and programs it, logging that once."""
    agents.start(NO_AGENT)
    guid = agents.guids[NO_AGENT]
    since = sim.log_offset()
    passes = 0
    for passes in range(1, 9):
        mark = sim.log_offset()
        os.kill(osm.pid, signal.SIGHUP)
        summary_after(sim, mark, f"SIGHUP {passes}")
        if f"0x{guid:016x}" in sim.log_text(mark):
            break
    log = sim.log_text(since)
    tap.ok(len(re.findall(rf"switch 0x{guid:016x} \(LID \d+\) now answers "
                          r"the AR probe", log)) == 1,
           f"{NO_AGENT} gets an agent: probed again and taken in after "
           f"{passes} passes, logged once")
    tap.ok("does not answer" not in log,
           "no switch is logged again as not answering")
    state, _ = agent_state(agents.dumps[NO_AGENT])
    tap.ok(state.get("enable") == 1 and state.get("pause") == 0,
           f"{NO_AGENT}'s agent is enabled and resumed", str(state))


if __name__ == "__main__":
    main()
