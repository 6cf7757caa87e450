#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The AR control plane under failures and a change of master SM
(issue 17): notices retried until answered, lost-route marks cleared
when the SM reprograms, LostRouteOnly, and the AR_Key's lease.

A 2-level fat tree of 4 leaves, 2 spines, 1 host a leaf, an AR agent on
every switch, OpenSM + plugin with AR on (fine-grained, Greedy) and
ar_key=KEY_A, ar_key_lease=LEASE_S:

- L004's agent stopped, S001's port to L001 set down (ARPortLoad): S001
  tells its neighbors; L002 and L003 mark the routes and answer; the
  notice to L004 goes unanswered and is sent again; once L004's agent is
  back it is answered and none is pending;
- S001's agent then stopped (it can never retract): a SIGHUP sweep, which
  changes no table, still resumes every switch, and L002's marks are gone;
- LostRouteOnly in the file: L001's port to S001 down makes L001 pick
  its other uplink for remote LIDs and send no notice; no switch marks
  anything;
- OpenSM restarted with another key (KEY_B): every switch refuses it, the
  plugin logs each once with the lease left, and once the lease has run
  out (the watch thread asks for a sweep) every switch takes KEY_B and is
  programmed; a request carrying KEY_A is then refused;
- a third start with KEY_B again (the same key as the switches hold)
  programs at once, with no switch holding another key;
- with VF_AR_STANDBY=1 (not in make check), a live standby (another
  node, lower priority, the same ar_key): the master is killed (SIGKILL),
  the standby becomes master and programs every switch at once with the
  key they hold: no switch holds another key, and L002 runs a newer
  generation.  Not in make check because of ibsim: an SMInfo poll of the
  standby in flight when the master dies can be lost without a timeout,
  and the standby then waits in DISCOVERING for ever (seen once in
  t-failover under ASan).
"""

import os
import re
import signal
import time

import topogen
import vfsim
import vftest
from artest import (agent_state, lid_of, main_with_agents, request,
                    set_down, summary_after)
from artest import config as ar_config

LEAVES, SPINES, HOSTS = 4, 2, 1
KEY_A = 0xA11CE5EC12E7C0DE
KEY_B = 0xB0B5EC12E7C0FFEE
LEASE_S = 4
GREEDY = 1
HOST = "cn0003"             # a compute node, not the SM's
STANDBY = "cn0004"          # the standby SM's node (another leaf)


def config(lost_route_only):
    """AR on, Greedy, LostRouteOnly as given (artest.config)."""
    return ar_config(1, GREEDY, lost_route_only)


def state(agents, node):
    return agent_state(agents.dumps[node])[0]


def wait_state(agents, node, pred, what, timeout=30):
    return vfsim.wait_until(lambda: pred(state(agents, node)) and
                            state(agents, node), timeout, what,
                            agents.check)


def resumed_answer(agents, node, ask, tries=10):
    """ask()'s answer from a switch that ran resumed, at one generation,
    from before the request to after it: a paused switch answers with
    the static port, and a sweep can follow the last one at once (seen
    under valgrind).  After `tries`, the last answer."""
    for _ in range(tries):
        before = wait_state(agents, node, lambda s: s.get("pause") == 0,
                            f"{node} resumed")
        res = ask()
        after = state(agents, node)
        if (after.get("pause") == 0 and
                after.get("generation") == before.get("generation")):
            return res
        time.sleep(0.5)
    return res


def key_file(sim, key, mode=0o600):
    """The key in a file (ar_key_file=): OpenSM prints the options line."""
    path = os.path.join(sim.workdir, "ar.key")
    with open(path, "w") as fh:
        fh.write(f"0x{key:016x}\n")
    os.chmod(path, mode)
    return path


def start_sm(sim, conf, key, lease=LEASE_S, prio=None, node=None,
             keyfile=None):
    extra = [f"sm_priority {prio}", "sminfo_polling_timeout 1000",
             "polling_retry_number 2"] if prio is not None else []
    how = f"ar_key_file={keyfile}" if keyfile else f"ar_key={key:x}"
    return sim.start_opensm(conf_lines=vftest.plugin_conf(
        options=f"config={conf} config_poll=1 {how} "
                f"ar_key_lease={lease}", extra=extra),
        plugin_dir=vftest.PLUGIN_DIR, node=node)


def main():
    main_with_agents(topogen.fattree2(leaves=LEAVES, spines=SPINES,
                                      hosts=HOSTS), "arcontrol", run)


def run(tap, sim, fab, agents):
    conf = os.path.join(sim.workdir, "vfabric.xml")
    with open(conf, "w") as fh:
        fh.write(config(0))
    sim.start_ibsim()
    switches = [n.id for n in fab.switches()]
    for node in switches:
        agents.start(node)
    osm = start_sm(sim, conf, KEY_A)
    sim.wait_subnet_up()
    first = summary_after(sim, 0, "first sweep")
    tap.ok(first[0] == len(switches) and first[4] == 0,
           f"all {len(switches)} agents programmed", str(first))
    topo = sim.discover(os.path.join(sim.workdir, "disc-1.out"))
    lid = {n: lid_of(topo, agents.guids[n]) for n in switches}
    retries(tap, sim, fab, agents, lid)
    marks_cleared(tap, sim, fab, agents, lid, osm)
    lost_route_only(tap, sim, fab, agents, lid, conf, osm)
    takeover(tap, sim, fab, agents, lid, conf, osm)


def retries(tap, sim, fab, agents, lid):
    """A notice to a neighbor whose agent is gone is sent again until it
    is answered."""
    rc = agents.stop_one("L004")
    sport = fab.links_between("S001", "L001")[0]
    got = set_down(sim, lid["S001"], sport, node=HOST)
    tap.ok(rc == 0 and got.get(sport, 0) & 0x80000000,
           f"L004's agent stopped; S001 port {sport} (to L001) set down")
    marked = wait_state(agents, "L002", lambda s: s.get("lids_marked", 0) > 0,
                        "L002 marks S001's lost routes")
    s001 = wait_state(agents, "S001",
                      lambda s: s.get("notices_resent", 0) >= 2 and
                      s.get("notices_pending", 0) >= 1,
                      "S001 resends its notice to L004")
    tap.ok(marked and s001,
           "L002 marks the routes S001 lost; the notice to L004 (no agent) "
           f"is sent again ({s001.get('notices_resent')} resends, "
           f"{s001.get('notices_pending')} pending)", str(s001))
    acked = s001.get("notices_acked", 0)
    agents.start("L004")
    s001 = wait_state(agents, "S001",
                      lambda s: s.get("notices_pending", 1) == 0 and
                      s.get("notices_acked", 0) > acked,
                      "S001's notice to L004 answered", timeout=60)
    tap.ok(bool(s001) and s001.get("notices_dropped", 0) == 0,
           "L004's agent back: the resent notice is answered, none pending "
           "and none dropped", str(s001))


def marks_cleared(tap, sim, fab, agents, lid, osm):
    """Marks on a switch whose tables do not change go when the SM
    reprograms: the sender (S001) is gone and cannot retract them."""
    agents.stop_one("S001")
    before = state(agents, "L002")
    since = sim.reload_config(os.path.join(sim.workdir, "vfabric.xml"),
                              config(0), osm=osm)
    summary_after(sim, since, "SIGHUP")
    # a second sweep may follow at once (the agent gone is a change) and
    # pause L002 again: wait for a resumed state after the first
    try:
        after = wait_state(agents, "L002",
                           lambda s: s.get("pause") == 0 and
                           s.get("generation", 0) >
                           before.get("generation", 0),
                           "L002 resumed after the SIGHUP")
    except vfsim.SimError:
        after = state(agents, "L002")
    tap.ok(before.get("lids_marked", 0) > 0 and
           after.get("lids_marked") == 0 and after.get("pause") == 0 and
           after.get("generation", 0) > before.get("generation", 0),
           "S001's agent gone, SIGHUP (no table changes): L002 is resumed "
           "with a new generation and its marks are cleared",
           f"{before} -> {after}")
    agents.start("S001")


def lost_route_only(tap, sim, fab, agents, lid, conf, osm):
    """LostRouteOnly: only the switch whose port went down reroutes."""
    since = sim.reload_config(conf, config(1), osm=osm)
    res = summary_after(sim, since, "LostRouteOnly")
    states = {n: state(agents, n) for n in agents.procs}
    tap.ok(res[4] == 0 and
           all(s.get("lost_route_only") == 1 for s in states.values()),
           "LostRouteOnly=1 + SIGHUP: every agent runs with it",
           str({n: s.get("lost_route_only") for n, s in states.items()}))
    sent = {n: s.get("notices_sent", 0) for n, s in states.items()}
    lport = fab.links_between("L001", "S001")[0]
    set_down(sim, lid["L001"], lport, node=HOST)
    remote = lid["L003"]
    res = resumed_answer(agents, "L001", lambda: request(
        sim, lid["L001"], f"1,0xff25,{remote},0,{lport:02x}", node=HOST))
    time.sleep(2)           # what a notice would take to arrive
    states = {n: state(agents, n) for n in agents.procs}
    egress = res[0][1][1] if res and isinstance(res[0], tuple) else None
    tap.ok(egress not in (None, 0, lport),
           f"L001 port {lport} (to S001) down: L001 sends traffic for "
           f"L003 ({remote}) out of another uplink (port {egress})",
           str(res))
    tap.ok(all(s.get("notices_sent", 0) == sent[n] and
               s.get("lids_marked", 0) == 0 for n, s in states.items()),
           "... and sends no notice; no switch marks a route",
           str({n: (s.get("notices_sent"), s.get("lids_marked"))
                for n, s in states.items()}))
    set_down(sim, lid["L001"], lport, False, node=HOST)


def takeover(tap, sim, fab, agents, lid, conf, osm):
    """A new master SM with another AR_Key waits out the lease."""
    sim.stop_opensm(osm)
    since_t = time.monotonic()
    keyfile = key_file(sim, KEY_B, 0o644)
    osm = start_sm(sim, conf, KEY_B, keyfile=keyfile)
    sim.wait_subnet_up(osm=osm)
    locked = summary_after(sim, 0, "KEY_B's first sweep")
    log = sim.log_text(0, osm=osm)
    held = re.findall(r"switch 0x([0-9a-f]+) \(LID \d+\) holds another "
                      r"AR_Key.*?\((\d+) s left\)", log)
    n = len(agents.procs)
    tap.ok(locked[5] == n and len(held) == n and
           all(0 < int(s) <= LEASE_S for _, s in held),
           f"OpenSM restarted with another ar_key: all {n} switches refuse "
           f"it, each logged once with at most {LEASE_S} s of lease left",
           f"{locked} {held}")
    m = sim.wait_log(r"adaptive routing: (\d+) switches programmed .*, "
                     r"0 hold another AR_Key", 0, 60, osm=osm)
    waited = time.monotonic() - since_t
    tap.ok(int(m.group(1)) == n and
           "an AR_Key lease has run out" in sim.log_text(0, osm=osm),
           f"after the lease the plugin sweeps again and programs all {n} "
           f"({waited:.0f} s after the restart)", m.group(0))
    old = request(sim, lid["L002"], "2,0xff21,0,0," + "0000" + "00" * 10,
                  node=sim.default_sm_node(), key=KEY_A)
    shown = request(sim, lid["L002"], "1,0xff28,0", key=KEY_B, node=HOST)
    tap.ok(isinstance(old[0], tuple) and old[0][0] == 0x0300 and
           int.from_bytes(shown[0][1][0:8], "big") == KEY_B and
           state(agents, "L002").get("enable") == 1,
           "the switches hold the new key (from ar_key_file): a Set with "
           "the old one is refused 0x0300, AR stays on", f"{old} {shown}")
    printed = "".join(vfsim.read_from(f) for f in (
        osm.log, os.path.join(os.path.dirname(osm.log), "stdout")))
    tap.ok(f"{KEY_B:x}" not in printed.lower() and
           re.search(r"ar_key_file: \S+ can be read by others \(mode 644\)",
                     printed),
           "the key from the file is in neither OpenSM's log nor its "
           "stdout (which shows the options line); a file others can "
           "read is warned about")
    os.chmod(keyfile, 0o600)
    sim.stop_opensm(osm)
    osm = start_sm(sim, conf, KEY_B, prio=14, keyfile=keyfile)
    sim.wait_subnet_up(osm=osm)
    again = summary_after(sim, 0, "KEY_B again")
    tap.ok(again[5] == 0 and again[4] == 0 and
           "holds another AR_Key" not in sim.log_text(0, osm=osm),
           "a new SM with the same key takes over at once: no switch "
           "holds another key", str(again))
    if os.environ.get("VF_AR_STANDBY") == "1":
        live_standby(tap, sim, agents, conf, osm)
    else:
        tap.skip("a live standby takes AR over at once",
                 "VF_AR_STANDBY=1 runs it (ibsim can lose a poll)")
    agents.check()


def live_standby(tap, sim, agents, conf, master):
    """A standby with the same key takes over when the master dies."""
    standby = start_sm(sim, conf, KEY_B, prio=1, node=STANDBY)
    sim.wait_log("Entering STANDBY state", osm=standby, timeout=120)
    gen = state(agents, "L002").get("generation", 0)
    since = sim.log_offset(osm=standby)
    master.popen.send_signal(signal.SIGKILL)
    master.popen.wait()
    sim.wait_log("Entering MASTER state", since=since, osm=standby,
                 timeout=120)
    m = sim.wait_log(r"adaptive routing: (\d+) switches programmed .*, "
                     r"(\d+) failed, (\d+) hold another AR_Key", since,
                     120, osm=standby)
    after = state(agents, "L002")
    n = len(agents.procs)
    tap.ok(m.group(1) == str(n) and m.group(2) == m.group(3) == "0" and
           after.get("generation", 0) > gen and after.get("enable") == 1
           and after.get("pause") == 0,
           f"master killed: the standby (same ar_key) becomes master and "
           f"programs all {n} switches at once; L002 runs generation "
           f"{after.get('generation')} (was {gen}), resumed",
           f"{m.group(0)} {after}")


if __name__ == "__main__":
    main()
