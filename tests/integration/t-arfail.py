#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""A link fails under adaptive routing, before the SM reacts.

A 2-level fat tree of 4 leaves, 3 spines and 2 hosts a leaf, an AR agent
(sim/ar-agent) on every switch, OpenSM + plugin with AR enabled
(fine-grained, Greedy).  Once the agents are programmed, the agents at
both ends of cable L001-S001 are told the port is down (ARPortLoad, bit
31) while ibsim keeps the link, so OpenSM sees nothing and keeps its
tables.  Every (source host, destination host) pair whose static path
(the LFTs read back) crosses the cable is then followed hop by hop, each
switch's agent choosing the egress (AREgress) for the destination LID:

- every agent holds the ARNeighbors of the fabric (ibnetdiscover);
- flows going up over the cable (from L001's hosts) are delivered around
  the failure by L001's own choice, while static routing alone loses
  every one of them;
- flows coming down over it (to L001's hosts) would die at S001, which
  has one way down to L001 and no group: S001's agent tells its other
  neighbors (ARLostRoutes), and the source leaves pick another spine for
  L001's LIDs.  Within a bounded wait every crossing flow is delivered,
  up and down, and no walk touches the dead cable.
- the port back up at both agents: "restored" notices clear every mark,
  and the flows are back on their static paths.

Then the cable fails again and is really unlinked in ibsim: after
OpenSM's re-sweep (new tables: the marks are cleared) no agent's group
holds a port without a link, every leaf's group for L001's LIDs leaves out
its port to S001, no agent holds a lost-route mark, and every flow is
delivered again.
"""

import os
import time

import topogen
import vfsim
import vftest
from artest import (agent_state, config, lid_ports,
                    main_with_agents, request, set_down, summary_after)

LEAVES, SPINES, HOSTS = 4, 3, 2
GREEDY = 1
MAX_HOPS = 8


SETTLE_S = 10


def hosts_of(nodes, leaf):
    return [g for g, n in nodes.items()
            if n["kind"] == "Ca" and n["links"][1][0] == leaf.guid]


def flows(nodes):
    """Every (source host, destination host, destination LID) pair."""
    hosts = [g for g, n in nodes.items() if n["kind"] == "Ca"]
    return [(s, d, nodes[d]["lid"]) for s in hosts for d in hosts if s != d]


def static_walk(nodes, lfts, flow, down=()):
    """(hops [(switch, port)], delivered) along the LFTs; a hop out of a
    port in `down` ends the walk undelivered."""
    src, dst, dlid = flow
    cur, hops = nodes[src]["links"][1][0], []
    for _ in range(MAX_HOPS):
        port = lfts.get(cur, {}).get(dlid)
        if port is None or port not in nodes[cur]["links"]:
            return hops, False
        hops.append((cur, port))
        if (cur, port) in down:
            return hops, False
        cur = nodes[cur]["links"][port][0]
        if nodes[cur]["kind"] == "Ca":
            return hops, cur == dst
    return hops, False


def ar_walk(sim, nodes, lfts, todo, down=()):
    """Follow each flow hop by hop, each switch's agent choosing the egress
    (AREgress with the LFT's static port); one request per switch and
    step.  {flow: (hops, delivered)}."""
    at = {f: nodes[f[0]]["links"][1][0] for f in todo}
    walked = {f: [] for f in todo}
    done = {}
    for _ in range(MAX_HOPS):
        by_switch = {}
        for f, sw in at.items():
            by_switch.setdefault(sw, set()).add(f[2])
        answers = {}
        for sw, dlids in by_switch.items():
            dlids = sorted(d for d in dlids if d in lfts.get(sw, {}))
            res = request(sim, nodes[sw]["lid"],
                          *(f"1,0xff25,{d},0,{lfts[sw][d]:02x}"
                            for d in dlids))
            for d, r in zip(dlids, res):
                if isinstance(r, tuple) and r[0] == 0:
                    answers[(sw, d)] = r[1][1]
        for f, sw in list(at.items()):
            port = answers.get((sw, f[2]))
            if port is not None:
                walked[f].append((sw, port))
            if (port is None or (sw, port) in down or
                    port not in nodes[sw]["links"]):
                done[f] = (walked[f], False)
                del at[f]
                continue
            nxt = nodes[sw]["links"][port][0]
            if nodes[nxt]["kind"] == "Ca":
                done[f] = (walked[f], nxt == f[1])
                del at[f]
            else:
                at[f] = nxt
        if not at:
            break
    for f in at:
        done[f] = (walked[f], False)
    return done


def notices(agents):
    """{node: the notice counters of its agent's state line}."""
    keys = ("notices_sent", "notices_received", "notices_acked",
            "lids_lost", "lids_marked")
    out = {}
    for node, path in agents.dumps.items():
        state, _ = agent_state(path)
        out[node] = {k: state.get(k, 0) for k in keys}
    return out


def settled(agents, want_marks):
    """Every notice sent has been received and acknowledged, and (when
    want_marks) some switch holds marks, or (not) none does."""
    n = notices(agents)
    sent = sum(v["notices_sent"] for v in n.values())
    got = sum(v["notices_received"] for v in n.values())
    acked = sum(v["notices_acked"] for v in n.values())
    marked = sum(v["lids_marked"] for v in n.values())
    return (sent == got == acked and sent > 0 and
            bool(marked) == want_marks) and n


def stable_walk(sim, nodes, lfts, todo, down=()):
    """ar_walk() until two walks in a row agree (bounded); the last one
    and the number of walks."""
    last, rounds = ar_walk(sim, nodes, lfts, todo, down), 1
    end = time.monotonic() + SETTLE_S
    while time.monotonic() < end:
        cur = ar_walk(sim, nodes, lfts, todo, down)
        rounds += 1
        if cur == last:
            break
        last = cur
    return last, rounds


def check_neighbors(tap, sim, nodes, agents, switches):
    """ARNeighbors block 0 read back from every agent: its own LID, then
    each port's peer switch LID (0 for a host or no link), as
    ibnetdiscover sees the fabric."""
    bad = []
    for node in switches:
        guid = agents.guids[node]
        want = [0] * 64
        want[0] = nodes[guid]["lid"]
        for port, (peer, _) in nodes[guid]["links"].items():
            if port < 64 and nodes[peer]["kind"] == "Switch":
                want[port] = nodes[peer]["lid"]
        res = request(sim, nodes[guid]["lid"], "1,0xff26,0")
        got = ([int.from_bytes(res[0][1][2 * k:2 * k + 2], "big")
                for k in range(64)]
               if res and isinstance(res[0], tuple) and res[0][0] == 0
               else res)
        if got != want:
            bad.append(f"{node}: got {got} want {want}")
    tap.ok(not bad, f"ARNeighbors of all {len(switches)} agents: their LID "
           "and each port's peer switch, as ibnetdiscover sees the fabric",
           "\n".join(bad))


def name(nodes, guid):
    return nodes[guid]["desc"].split()[0]


def show(nodes, flow, hops):
    return (f"{name(nodes, flow[0])} -> {name(nodes, flow[1])} (LID "
            f"{flow[2]}): " + " ".join(f"{name(nodes, s)}/{p}"
                                       for s, p in hops))


def main():
    main_with_agents(topogen.fattree2(leaves=LEAVES, spines=SPINES,
                                      hosts=HOSTS), "arfail", run)


def run(tap, sim, fab, agents):
    conf = os.path.join(sim.workdir, "vfabric.xml")
    with open(conf, "w") as fh:
        fh.write(config(1, GREEDY))
    sim.start_ibsim()
    switches = [n.id for n in fab.switches()]
    for node in switches:
        agents.start(node)
    sim.start_opensm(conf_lines=vftest.plugin_conf(
        options=f"config={conf} config_poll=0"),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    first = summary_after(sim, 0, "first sweep")
    tap.ok(first[0] == len(switches) and first[3] == 0 and first[4] == 0,
           f"all {len(switches)} agents programmed, none failed", str(first))

    topo = sim.discover(os.path.join(sim.workdir, "disc-1.out"))
    nodes = vfsim.parse_ibnetdiscover(vfsim.read_from(topo))
    check_neighbors(tap, sim, nodes, agents, switches)
    lfts = vfsim.read_lfts(sim.dump_lfts(
        os.path.join(sim.workdir, "lfts-1.out")))
    leaf, spine = fab.nodes["L001"], fab.nodes["S001"]
    lport = fab.links_between("L001", "S001")[0]
    sport = fab.links_between("S001", "L001")[0]
    down = {(leaf.guid, lport), (spine.guid, sport)}

    # the failure, at the switches only
    since = sim.log_offset()
    for node, port in (("L001", lport), ("S001", sport)):
        got = set_down(sim, nodes[agents.guids[node]]["lid"], port)
        tap.ok(got.get(port) == 0x80000000 and
               not any(v for p, v in got.items() if p != port),
               f"{node}'s agent: port {port} down", str(got))
    again = vfsim.read_lfts(sim.dump_lfts(
        os.path.join(sim.workdir, "lfts-2.out")))
    tap.ok(again == lfts and "SUBNET UP" not in sim.log_text(since),
           "OpenSM saw nothing: no re-sweep, the LFTs unchanged")

    everything = flows(nodes)
    static = {f: static_walk(nodes, lfts, f) for f in everything}
    crossing = [f for f in everything
                if any(h in down for h in static[f][0])]
    up = [f for f in crossing if nodes[f[0]]["links"][1][0] == leaf.guid]
    dn = [f for f in crossing if f not in up]
    tap.ok(all(static[f][1] for f in everything),
           f"before the failure all {len(everything)} flows are delivered")
    tap.ok(up and dn and all(nodes[f[1]]["links"][1][0] == leaf.guid
                             for f in dn),
           f"{len(crossing)} flows' static paths cross L001/{lport}-S001/"
           f"{sport}: {len(up)} up from L001's hosts, {len(dn)} down to them")
    lost = {f for f in everything
            if not static_walk(nodes, lfts, f, down)[1]}
    tap.ok(lost == set(crossing),
           f"static routing alone loses exactly those {len(crossing)} flows",
           f"lost {len(lost)}, crossing {len(crossing)}")

    n = vfsim.wait_until(lambda: settled(agents, True), SETTLE_S,
                         "the agents' notices", agents.check)
    sent = {k: v["notices_sent"] for k, v in n.items() if v["notices_sent"]}
    recv = {k: v["lids_marked"] for k, v in n.items() if v["lids_marked"]}
    others = {k for k in switches if k.startswith("L") and k != "L001"}
    tap.ok(n["S001"]["notices_sent"] >= len(others) and
           n["S001"]["lids_lost"] >= len(hosts_of(nodes, leaf)) and
           others <= set(recv),
           f"S001 loses L001's LIDs and tells the other leaves: notices "
           f"sent {sent}, LIDs marked {recv}", str(n))
    walked, rounds = stable_walk(sim, nodes, lfts, crossing, down)
    tap.diag(f"AREgress stable after {rounds} walks")
    ok_up = [f for f in up if walked[f][1] and
             not any(h in down for h in walked[f][0])]
    tap.ok(len(ok_up) == len(up),
           f"AR: {len(ok_up)} of {len(up)} flows up over the failed cable "
           f"delivered around it",
           "\n".join(show(nodes, f, walked[f][0]) for f in up
                     if f not in ok_up))
    for f in up[:1]:
        tap.diag("e.g. " + show(nodes, f, walked[f][0]) + "; static: "
                 + " ".join(f"{name(nodes, s)}/{p}"
                            for s, p in static[f][0]))
    ok_dn = [f for f in dn if walked[f][1] and
             not any(h in down for h in walked[f][0])]
    tap.ok(len(ok_dn) == len(dn),
           f"AR + lost-route notices: {len(ok_dn)} of {len(dn)} flows down "
           "over the failed cable delivered around it",
           "\n".join(show(nodes, f, walked[f][0]) for f in dn
                     if f not in ok_dn))
    for f in dn[:1]:
        tap.diag("e.g. " + show(nodes, f, walked[f][0]) + "; static: "
                 + " ".join(f"{name(nodes, s)}/{p}"
                            for s, p in static[f][0]))
    ok = [f for f in crossing if walked[f][1]]
    touched = [f for f in crossing
               if any(h in down for h in walked[f][0])]
    tap.ok(len(ok) == len(crossing) and not touched,
           f"before any re-sweep: {len(ok)} of {len(crossing)} crossing "
           "flows delivered, none touches the dead cable",
           str([show(nodes, f, walked[f][0]) for f in touched]))

    # the cable back: "restored" notices clear the marks
    for node, port in (("L001", lport), ("S001", sport)):
        set_down(sim, nodes[agents.guids[node]]["lid"], port, down=False)
    n = vfsim.wait_until(lambda: settled(agents, False), SETTLE_S,
                         "the restored notices", agents.check)
    tap.ok(all(v["lids_lost"] == 0 and v["lids_marked"] == 0
               for v in n.values()),
           "cable back up: restored notices clear every mark", str(n))
    walked, _ = stable_walk(sim, nodes, lfts, crossing)
    back = [f for f in crossing if walked[f] == (static[f][0], True)]
    tap.ok(len(back) == len(crossing),
           f"{len(back)} of {len(crossing)} flows back on their static "
           "paths", "\n".join(show(nodes, f, walked[f][0])
                              for f in crossing if f not in back))

    # it fails again, and this time for real
    for node, port in (("L001", lport), ("S001", sport)):
        set_down(sim, nodes[agents.guids[node]]["lid"], port)
    vfsim.wait_until(lambda: settled(agents, True), SETTLE_S,
                     "the agents' notices", agents.check)
    walked, _ = stable_walk(sim, nodes, lfts, crossing, down)
    ok = [f for f in crossing if walked[f][1] and
          not any(h in down for h in walked[f][0])]
    tap.ok(len(ok) == len(crossing),
           f"it fails again: {len(ok)} of {len(crossing)} flows delivered "
           "around it", "\n".join(show(nodes, f, walked[f][0])
                                  for f in crossing if f not in ok))

    # the SM's turn
    sim.console(f'Unlink "L001"[{lport}]')
    sim.wait_resweep()
    after = summary_after(sim, sim.cmd_log_offset, "unlink")
    tap.ok(after[0] >= 1 and after[4] == 0,
           f"after the unlink OpenSM reprograms {after[0]} agents",
           str(after))
    topo = sim.discover(os.path.join(sim.workdir, "disc-3.out"))
    nodes = vfsim.parse_ibnetdiscover(vfsim.read_from(topo))
    lfts = vfsim.read_lfts(sim.dump_lfts(
        os.path.join(sim.workdir, "lfts-3.out")))
    dangling, via_s001 = [], []
    l001_lids = {nodes[g]["lid"] for g, n in nodes.items()
                 if n["kind"] == "Ca" and n["links"][1][0] == leaf.guid}
    for node in switches:
        guid = agents.guids[node]
        _, tables = agent_state(agents.dumps[node])
        _, lid_groups = lid_ports(tables.get(guid, ("", []))) or ("", {})
        for lid, members in lid_groups.items():
            dangling += [(node, lid, p) for p in members or ()
                         if p not in nodes[guid]["links"]]
            if node.startswith("L") and lid in l001_lids:
                via_s001 += [(node, lid) for p in members or ()
                             if nodes[guid]["links"].get(p, (0,))[0]
                             == spine.guid]
    tap.ok(not dangling, "no agent's group holds a port without a link",
           str(dangling[:8]))
    tap.ok(not via_s001,
           "every leaf's group for L001's LIDs leaves S001 out",
           str(via_s001[:8]))
    n = notices(agents)
    tap.ok(all(v["lids_lost"] == 0 and v["lids_marked"] == 0
               for v in n.values()),
           "the SM's new tables clear every mark, and nothing is lost "
           "with them", str(n))
    walked = ar_walk(sim, nodes, lfts, crossing)
    ok = [f for f in crossing if walked[f][1]]
    tap.ok(len(ok) == len(crossing),
           f"after the re-sweep: {len(ok)} of {len(crossing)} flows "
           "delivered, up and down",
           "\n".join(show(nodes, f, walked[f][0]) for f in crossing
                     if f not in ok))
    agents.check()


if __name__ == "__main__":
    main()
