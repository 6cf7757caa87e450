#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The Ethernet Manager in the plugin (docs/ethernet-manager.md) driving
managed VNIC endpoints (sim/vnic-endpoint --managed) on ibsim.

A 2-level fat tree (3 leaves, 2 spines, 2 hosts a leaf), OpenSM + plugin
at cn0001 with two vFabrics and two vESWs: vESW 1 (VF T1) with cn0002
and cn0003, vESW 2 (VF T2, EthMTU 9000) with cn0005.  Each endpoint's
TAP is in a namespace of its own with an address in 10.0.0.0/24.

- the EM binds class 0x3B and configures the three endpoints (once they
  are up: the ports found without one at SUBNET UP are probed again);
- what each endpoint holds, read back with `vfabric-em show`, is what the
  config says: vESW id, P_Key of the VF, MTU, the section 8 MAC, encap
  SLID and port number = its LID, FORWARDING, trap LID = the SM's LID;
  the members of vESW 1 have each other in their MAC tables;
- the state file lists both vESWs and every member with its counters;
- ping within vESW 1 works, from vESW 1 to vESW 2 fails;
- the host bringing its TAP up raises a link trap the EM logs;
- the host giving its TAP a global MAC raises a unicast-MAC trap: the EM
  fetches the list and the vESW's other member (not vESW 2's) learns
  MAC -> LID, which a ping needs; back to the base MAC, it is forgotten;
- the same with the trap lost (the endpoint's trap LID pointed at a port
  with no EM just before, so it bounces): the EM's next pass sees the
  unicast generation count moved, fetches the list, and the peer learns
  the MAC all the same;
- SIGHUP after removing cn0003 from vESW 1: DeleteVesw for it, its ping
  stops, cn0002's MAC table drops it;
- SIGHUP with no change: a pass with no Set;
- a broken file on SIGHUP: the error is logged, the last good config
  kept, no Set;
- malformed EMA MADs sent to the SM's port (`vfabric-em raw`): OpenSM
  survives, ignores them (logged) and the EM keeps working;
- authentication, as a host attacks it: Sets from a host's port
  (vfabric-em at cn0006) are refused 0x0200, Sets from the SM's port
  without the EM's key (em_key) or with another 0x0300; nothing changes
  and the endpoint counts them; the key is not shown to a Get;
- a returning endpoint: ep3's agent stopped until the EM's back-off
  for it is 20 s or more, then started again: the SUBNET UP its issm
  flag causes resets the back-off and ep3 is configured within seconds;
- OpenSM restarted with cn0003 out of vESW 1 (same em_key): the new EM
  reads back every CA port's vESWs, removes cn0003's (it kept
  forwarding before this), and ep1's MAC table is cleared even where it
  reached past the first slice; a ping to cn0003 fails;
- OpenSM restarted with another em_key: the endpoints refuse its Sets,
  the EM says once which endpoint holds another key and for how long at
  most, and takes them over when their lease (5 s) runs out.
Needs root (TAP devices, namespaces): skipped otherwise.
"""

import json
import os
import re
import signal
import subprocess
import time

import vfsim
import vftest
from vnictest import (ENDPOINT, Endpoint, counters, host_lids, ip, lmac, ping,
                      require_root_tools, run_on_fattree, wait_counters)

EMCLI = os.path.abspath(os.environ.get(
    "VF_EM_CLI", os.path.join(vftest.TOP_BUILDDIR, "tools", "vfabric-em")))
FABRIC_ID = 3
KEY = "0x0e1ec7ab1e5eed01"     # em_key of the plugin
LEASE = 5                      # em_key_lease: a takeover test waits it out
SM_NODE = "cn0001"             # where OpenSM runs: Sets only from there


def config(v1_members, broken=False):
    """The vFabric file: T1 holds cn0002 and cn0003, vESW 1 the hosts in
    v1_members, vESW 2 cn0005."""
    nds = "".join(f"<NodeDesc>{h}*</NodeDesc>" for h in v1_members)
    return f"""<?xml version="1.0"?>
<Config><Common>
<Applications><Application><Name>Any</Name><Select>UnmatchedServiceID</Select>
<Select>UnmatchedMGID</Select></Application></Applications>
<DeviceGroups>
 <DeviceGroup><Name>t1</Name><NodeDesc>cn0002*</NodeDesc><NodeDesc>cn0003*</NodeDesc></DeviceGroup>
 <DeviceGroup><Name>t2</Name><NodeDesc>cn0005*</NodeDesc></DeviceGroup>
 <DeviceGroup><Name>eth1</Name>{nds}</DeviceGroup>
</DeviceGroups>
<VirtualFabrics>
 <VirtualFabric><Name>T1</Name><Enable>1</Enable><PKey>0x11</PKey><Member>t1</Member><Application>Any</Application></VirtualFabric>
 <VirtualFabric><Name>T2</Name><Enable>1</Enable><PKey>0x12</PKey><Member>t2</Member><Application>Any</Application></VirtualFabric>
</VirtualFabrics>
<VirtualEthernetSwitches><FabricId>{FABRIC_ID}</FabricId>
 <VirtualEthernetSwitch><Name>ve1</Name><VeswId>1</VeswId><VirtualFabric>T1</VirtualFabric>
  <Member>eth1</Member></VirtualEthernetSwitch>
 <VirtualEthernetSwitch><Name>ve2</Name><VeswId>2</VeswId><VirtualFabric>T2</VirtualFabric>
  <Member>t2</Member><EthMTU>9000</EthMTU></VirtualEthernetSwitch>
</VirtualEthernetSwitches>
{"<Broken>" if broken else ""}
</Common></Config>
"""


def em_at_sm(sim, argv, key=KEY, check=True):
    """vfabric-em as the EM: at the SM's node, with the EM's key."""
    return sim.run_diag([EMCLI] + [str(a) for a in argv] + ["--key", key],
                        node=SM_NODE, check=check)


def em_rc(sim, node, *args):
    """vfabric-em at node: (rc, stdout, stderr), for the refused cases."""
    res = subprocess.run([EMCLI] + [str(a) for a in args],
                         env=sim._env(node), cwd=sim.workdir,
                         capture_output=True, text=True, timeout=120)
    return res.returncode, res.stdout, res.stderr


def plugin_options(conf, key=KEY, metrics=None):
    return (f"log_level=info config={conf} em_key={key} "
            f"em_key_lease={LEASE}" +
            (f" metrics_file={metrics}" if metrics else ""))


def snapshot_counts(path):
    """The last sweep's fabric models and DeviceGroup resolutions, from
    the metrics file."""
    with open(path) as fh:
        text = fh.read()
    return tuple(
        float(m.group(1)) if m else None for m in (
            re.search(rf"^opensm_vfabric_last_sweep_{name} (\S+)$", text,
                      re.M)
            for name in ("fabric_models", "group_resolutions")))


def show(sim, lids):
    """vfabric-em show --json of the LIDs: {lid: entry}."""
    out = sim.run_diag([EMCLI, "show", "--json"] + [str(x) for x in lids],
                       node="cn0006", check=False)
    try:
        return {e["lid"]: e for e in json.loads(out)}
    except ValueError:
        return {"error": out}


def vport0(entry):
    vps = entry.get("vport") or [] if isinstance(entry, dict) else []
    return vps[0] if vps else {}


def macs(sim, lid):
    out = sim.run_diag([EMCLI, "macs", str(lid), "--json"], node="cn0006",
                       check=False)
    try:
        return [e["dlid"] for e in json.loads(out)["entries"]
                if e["mac"] != "00:00:00:00:00:00"]
    except (ValueError, KeyError):
        return None


def mac_entries(sim, lid):
    """vfabric-em macs: {MAC: DLID} of the used entries, or None."""
    out = sim.run_diag([EMCLI, "macs", str(lid), "--json"], node="cn0006",
                       check=False)
    try:
        return {e["mac"]: e["dlid"] for e in json.loads(out)["entries"]
                if e["mac"] != "00:00:00:00:00:00"}
    except (ValueError, KeyError):
        return None


def em_pass(sim, since, what, timeout=60):
    """The EM's summary line of the first sweep pass after `since`."""
    m = sim.wait_log(r"vfabric: em: pass \d+ \((?:sweep|trap)\): (\d+) vESWs, "
                     r"(\d+) endpoints configured \((\d+) MADs, (\d+) Sets\), "
                     r"(\d+) unchanged, (\d+) without an endpoint, (\d+) "
                     r"failed, (\d+) removed", since, timeout)
    vfsim.Tap.diag(f"{what}: {m.group(0)}")
    return [int(x) for x in m.groups()]


def wait_configured(sim, since, n):
    """Wait for a pass (of any kind) with n endpoints configured or
    unchanged and none missing."""
    rx = re.compile(r"em: pass \d+ \(\w+\): \d+ vESWs, (\d+) endpoints "
                    r"configured \(\d+ MADs, \d+ Sets\), (\d+) unchanged, "
                    r"(\d+) without")

    def ok():
        for m in rx.finditer(sim.log_text(since)):
            if int(m.group(1)) + int(m.group(2)) == n and \
               m.group(3) == "0":
                return m
        return None
    return vfsim.wait_until(ok, 60, f"an EM pass with {n} endpoints",
                            lambda: sim._check_osm(sim.osms[-1]))


def check_readback(tap, sim, eps, sm_lid, label):
    got = show(sim, [ep.lid for ep in eps])
    for ep in eps:
        v = vport0(got.get(ep.lid, {}))
        entry = got.get(ep.lid, {})
        want = {"vesw_id": ep.vesw, "mtu": 9000 if ep.vesw == 2 else 1500,
                "pkey": 0x8010 + ep.vesw,
                "mac": lmac(FABRIC_ID, ep.vesw, ep.lid), "encap_slid": ep.lid,
                "port_num": ep.lid, "fabric_id": FABRIC_ID}
        bad = {k: v.get(k) for k, x in want.items() if v.get(k) != x}
        tap.ok(v and not bad, f"{label}: {ep.name} at {ep.node} (LID "
               f"{ep.lid}) holds the config: vESW {ep.vesw}, its VF's P_Key, "
               "MTU, section 8 "
               "MAC, encap SLID and port number = LID",
               f"differs: {bad}\n{entry}")
        tap.ok(str(v.get("config_state", "")).upper().startswith("FORW"),
               f"{label}: {ep.name} is FORWARDING", str(v))
        tap.ok(entry.get("trap_lid") == sm_lid,
               f"{label}: {ep.name} sends its traps to the SM's LID "
               f"{sm_lid}", str(entry))
    return got


def run(tap, sim, eps):
    conf = os.path.join(sim.workdir, "vf.xml")
    with open(conf, "w") as fh:
        fh.write(config(["cn0002", "cn0003"]))
    metrics = os.path.join(sim.workdir, "em.prom")
    sim.start_ibsim()
    osm = sim.start_opensm(conf_lines=vftest.plugin_conf(
        engine="shortestpath", options=plugin_options(conf,
                                                      metrics=metrics)),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    sim.wait_log(r"vfabric: em: bound management class 0x3b")
    tap.ok(True, "the EM bound class 0x3B on OpenSM's port at SUBNET UP")
    vfsim.wait_until(lambda: os.path.exists(metrics), 30,
                     "the metrics file")
    got = snapshot_counts(metrics)
    tap.ok(got == (1.0, 1.0),
           "one sweep, one snapshot: the partitions, the SA's policy, the "
           "routing and the EM's vESWs came from one fabric model and one "
           "resolution of the DeviceGroups", str(got))
    since = sim.log_offset()
    # managed: vesw is what the EM is to set
    ep1 = Endpoint("1", "cn0002", 1, None, "10.0.0.1", managed=True)
    ep2 = Endpoint("2", "cn0003", 1, None, "10.0.0.2", managed=True)
    ep3 = Endpoint("3", "cn0005", 2, None, "10.0.0.3", managed=True)
    for ep in (ep1, ep2, ep3):
        eps.start(ep)
    log = sim.log_text()
    tap.ok(len(re.findall(r"em: port 0x[0-9a-f]+ \(LID \d+\): no VNIC "
                          r"endpoint", log)) >= 1,
           "ports without an endpoint at SUBNET UP are logged (once each)",
           vfsim.tail(osm.log))
    wait_configured(sim, since, 3)
    tap.ok(True, "the EM configured the three endpoints once they were up")
    nodes = vfsim.parse_ibnetdiscover(vfsim.read_from(sim.discover()))
    sm_lid = [n["lid"] for n in nodes.values()
              if n["desc"].startswith("cn0001")][0]
    check_readback(tap, sim, (ep1, ep2, ep3), sm_lid, "configured")
    t1 = macs(sim, ep1.lid)
    t3 = macs(sim, ep3.lid)
    tap.ok(t1 == [ep2.lid], "ep1's MAC table: ep2 (broadcasts reach it)",
           str(t1))
    tap.ok(t3 == [], "ep3's MAC table is empty (alone on vESW 2)", str(t3))

    for ep in (ep1, ep2, ep3):
        ip(ep, "addr", "add", f"{ep.addr}/24", "dev", ep.tap)
        ip(ep, "link", "set", ep.tap, "up")
    try:
        sim.wait_log(rf"em: trap: LID {ep1.lid} vport 0 \(vESW 1\): Ethernet "
                     r"link up", timeout=20)
        linked = True
    except vfsim.SimError:
        linked = False
    tap.ok(linked, "the host bringing its interface up raises a link trap "
           "the EM reads and logs", vfsim.tail(osm.log))
    rc, out = ping(ep1, ep2.addr)
    tap.ok(rc == 0, "ping ep1 -> ep2 within vESW 1 succeeds", out)
    rc, out = ping(ep2, ep1.addr)
    tap.ok(rc == 0, "ping ep2 -> ep1 within vESW 1 succeeds", out)
    rc, out = ping(ep1, ep3.addr, count=2, wait=1)
    tap.ok(rc != 0, "ping ep1 (vESW 1) -> ep3 (vESW 2) fails", out)

    state_path = os.path.join(osm.dump_dir, "vfabric-em-state.json")
    vfsim.wait_until(lambda: os.path.exists(state_path), 20, "state file")
    try:
        st = json.loads(vfsim.read_from(state_path))
    except ValueError as e:
        st = {"error": str(e)}
    members = {m["lid"]: m for v in st.get("vesws", [])
               for m in v["members"]}
    tap.ok([v["name"] for v in st.get("vesws", [])] == ["ve1", "ve2"] and
           sorted(members) == sorted(ep.lid for ep in (ep1, ep2, ep3)),
           "the state file lists both vESWs and the three members",
           json.dumps(st)[:2000])
    tap.ok(all("counters" in m and m["state"] in ("configured", "unchanged")
               for m in members.values()),
           "... each configured, with its counters", json.dumps(st)[:2000])

    host_mac(tap, sim, osm, ep1, ep2, ep3)
    lost_trap(tap, sim, osm, sm_lid, ep1, ep2)
    attacks(tap, sim, ep1)
    returning(tap, sim, eps, ep3)

    # SIGHUP: cn0003 leaves vESW 1
    since = sim.reload_config(conf, config(["cn0002"]), osm=osm)
    p = em_pass(sim, since, "cn0003 removed")
    tap.ok(p[0] == 2 and p[7] == 1 and p[3] > 0,
           "SIGHUP without cn0003 in vESW 1: one vport removed, Sets sent",
           str(p))
    tap.ok(re.search(rf"LID {ep2.lid}\) vport 0: removed from vESW 1 "
                     r"\(DeleteVesw\)", sim.log_text(since)),
           "ep2 got DeleteVesw", vfsim.tail(osm.log))
    v2 = vport0(show(sim, [ep2.lid]).get(ep2.lid, {}))
    tap.ok(v2.get("vesw_id") == 0 and not str(
        v2.get("config_state", "")).upper().startswith("FORW"),
        "ep2 reads back as power-on defaults (no vESW, not forwarding)",
        str(v2))
    rc, out = ping(ep1, ep2.addr, count=2, wait=1)
    tap.ok(rc != 0, "ping ep1 -> ep2 now fails", out)
    t1 = macs(sim, ep1.lid)
    tap.ok(t1 == [], "ep1's MAC table no longer holds ep2", str(t1))

    since = sim.log_offset()
    os.kill(osm.pid, signal.SIGHUP)
    p = em_pass(sim, since, "no change")
    tap.ok(p[3] == 0 and p[4] == 2 and p[1] == 0 and p[6] == 0,
           "SIGHUP with no change: a pass with no Set, both members "
           "unchanged", str(p))

    with open(conf, "w") as fh:
        fh.write(config(["cn0002", "cn0003"], broken=True))
    since = sim.log_offset()
    os.kill(osm.pid, signal.SIGHUP)
    p = em_pass(sim, since, "broken file")
    tap.ok("ERR VF0801" in sim.log_text(since) and p[3] == 0 and p[4] == 2,
           "a broken file on SIGHUP is reported and the last good config "
           "kept: no Set", str(p))
    rc, out = ping(ep1, ep2.addr, count=1, wait=1)
    tap.ok(rc != 0, "... (cn0003 stays out of vESW 1)", out)

    malformed(tap, sim, osm, sm_lid, ep1)
    restart(tap, sim, conf, ep1, ep2)
    eps.check()


def host_mac(tap, sim, osm, ep1, ep2, ep3):
    """The host of ep1 changes its MAC: trap opcode 1, and the EM tells
    ep2 (same vESW) where that MAC lives."""
    gmac = "00:16:3e:12:34:56"   # global: no LID in it (section 8)
    since = sim.log_offset()
    ip(ep1, "link", "set", "dev", ep1.tap, "address", gmac)
    try:
        sim.wait_log(rf"em: trap: LID {ep1.lid} vport 0 \(vESW 1\): the "
                     r"host has 1 unicast MACs of its own; telling the "
                     r"other members", since, timeout=20)
        sim.wait_log(r"em: pass \d+ \(trap\): ", since, timeout=30)
        trapped = True
    except vfsim.SimError:
        trapped = False
    tap.ok(trapped, "ep1's host sets a global MAC: the EM handles the "
           "unicast-MAC trap (opcode 1) and runs a pass",
           vfsim.tail(osm.log) + vfsim.tail(ep1.log))
    t2 = mac_entries(sim, ep2.lid)
    tap.ok(t2 is not None and t2.get(gmac) == ep1.lid,
           f"ep2's MAC table gains {gmac} -> ep1's LID {ep1.lid}", str(t2))
    t3 = mac_entries(sim, ep3.lid)
    tap.ok(t3 is not None and gmac not in t3,
           "ep3's (vESW 2) MAC table does not", str(t3))
    # ep2 must ARP again and then sends to the global MAC, which carries
    # no LID: only the MAC-table entry the EM pushed can route it (with
    # no default ports the frame would be dropped as tx_dlid_zero)
    ip(ep2, "neigh", "flush", "all")
    rc, out = ping(ep2, ep1.addr)
    neigh = ip(ep2, "neigh", "show", ep1.addr)
    tap.ok(rc == 0 and gmac in neigh, "ping ep2 -> ep1 after flushing "
           "ep2's ARP cache succeeds, to the new MAC", out + neigh)

    since = sim.log_offset()
    ip(ep1, "link", "set", "dev", ep1.tap, "address",
       lmac(FABRIC_ID, ep1.vesw, ep1.lid))
    try:
        sim.wait_log(rf"em: trap: LID {ep1.lid} vport 0 \(vESW 1\): the "
                     r"host has 0 unicast MACs of its own", since,
                     timeout=20)
        sim.wait_log(r"em: pass \d+ \(trap\): ", since, timeout=30)
        trapped = True
    except vfsim.SimError:
        trapped = False
    t2 = mac_entries(sim, ep2.lid)
    base = lmac(FABRIC_ID, ep1.vesw, ep1.lid)
    tap.ok(trapped and t2 == {base: ep1.lid},
           "back to the base MAC: a trap again, and ep2's table holds "
           "ep1's base MAC only", f"{t2}\n{vfsim.tail(osm.log)}")
    ip(ep2, "neigh", "flush", "all")
    rc, out = ping(ep2, ep1.addr)
    tap.ok(rc == 0, "ping ep2 -> ep1 at the base MAC again", out)


def lost_trap(tap, sim, osm, sm_lid, ep1, ep2):
    """ep1's host changes its MAC while its trap LID points at cn0004 (a
    CA with no EM: ibsim bounces the trap): only the EM's poll of the
    unicast generation count can tell ep2 where the MAC lives."""
    nowhere = host_lids(sim)["cn0004"]
    bounced = False
    # a pass (every 5 s) puts the trap LID back: should one come between
    # the Set and the endpoint's next look at its TAP (200 ms), the trap
    # gets through; then again with another MAC
    for attempt in range(3):
        gmac = f"00:16:3e:65:43:2{attempt}"
        since = sim.log_offset()
        before = counters(ep1).get("ema_traps_bounced", 0)
        em_at_sm(sim, ["set", ep1.lid, "--trap-lid", nowhere])
        ip(ep1, "link", "set", "dev", ep1.tap, "address", gmac)
        got = wait_counters(
            ep1, lambda c: c.get("ema_traps_bounced", 0) > before)
        if got.get("ema_traps_bounced", 0) > before:
            bounced = True
            break
    tap.ok(bounced, f"ep1's trap for its new MAC {gmac} bounces (trap LID "
           f"{nowhere}: cn0004, no EM there)", vfsim.tail(ep1.log))
    try:
        sim.wait_log(rf"em: LID {ep1.lid} vport 0 \(vESW 1\): unicast MAC "
                     r"generation \d+, no trap seen for it: the host has 1 "
                     r"unicast MACs of its own", since, timeout=20)
        polled = True
    except vfsim.SimError:
        polled = False
    tap.ok(polled, "the EM's next pass sees the generation count moved "
           "and fetches the host's list", vfsim.tail(osm.log))
    try:
        vfsim.wait_until(lambda: (mac_entries(sim, ep2.lid) or {}).get(
            gmac) == ep1.lid, 20, f"{gmac} in ep2's MAC table")
    except vfsim.SimError:
        pass
    t2 = mac_entries(sim, ep2.lid)
    tap.ok(t2 is not None and t2.get(gmac) == ep1.lid,
           f"ep2's MAC table gains {gmac} -> ep1's LID {ep1.lid} with no "
           "trap", str(t2))
    tap.ok(not re.search(rf"em: trap: LID {ep1.lid} vport 0 \(vESW 1\): "
                         r"the host has", sim.log_text(since)),
           "... the EM handled no unicast-MAC trap from ep1 meanwhile",
           vfsim.tail(osm.log))
    ip(ep2, "neigh", "flush", "all")
    rc, out = ping(ep2, ep1.addr)
    neigh = ip(ep2, "neigh", "show", ep1.addr)
    tap.ok(rc == 0 and gmac in neigh, "ping ep2 -> ep1 after flushing "
           "ep2's ARP cache succeeds, to the new MAC", out + neigh)
    entry = show(sim, [ep1.lid]).get(ep1.lid, {})
    tap.ok(entry.get("trap_lid") == sm_lid, "the pass put ep1's trap LID "
           "back to the SM's", str(entry))

    # back to the base MAC, by trap
    since = sim.log_offset()
    base = lmac(FABRIC_ID, ep1.vesw, ep1.lid)
    ip(ep1, "link", "set", "dev", ep1.tap, "address", base)
    try:
        sim.wait_log(rf"em: trap: LID {ep1.lid} vport 0 \(vESW 1\): the "
                     r"host has 0 unicast MACs of its own", since,
                     timeout=20)
        sim.wait_log(r"em: pass \d+ \(trap\): ", since, timeout=30)
    except vfsim.SimError:
        pass
    t2 = mac_entries(sim, ep2.lid)
    tap.ok(t2 == {base: ep1.lid}, "back to the base MAC (trap): ep2's "
           "table holds ep1's base MAC only", str(t2))


def attacks(tap, sim, ep1):
    """What a host, or an SM without the key, can do to an endpoint the
    EM configured: nothing."""
    before = counters(ep1)
    rc, out, err = em_rc(sim, "cn0006", "delete", ep1.lid)
    tap.ok(rc == 3 and "status 0x0200" in err,
           "a host's DeleteVesw to ep1: refused 0x0200 (not the master SM)",
           f"rc {rc}\n{out}{err}")
    rc, out, err = em_rc(sim, "cn0006", "set", ep1.lid, "--vesw", 2,
                         "--key", KEY)
    tap.ok(rc == 3 and "status 0x0200" in err,
           "a host's Set moving ep1 to vESW 2, even with the key: 0x0200",
           f"rc {rc}\n{out}{err}")
    rc, out, err = em_rc(sim, SM_NODE, "delete", ep1.lid)
    tap.ok(rc == 3 and "status 0x0300" in err,
           "a DeleteVesw from the SM's port without the EM's key: 0x0300",
           f"rc {rc}\n{out}{err}")
    rc, out, err = em_rc(sim, SM_NODE, "set", ep1.lid, "--state", "drop",
                         "--key", "0x1")
    tap.ok(rc == 3 and "status 0x0300" in err,
           "... a Set with another key: 0x0300", f"rc {rc}\n{out}{err}")
    v = vport0(show(sim, [ep1.lid]).get(ep1.lid, {}))
    tap.ok(v.get("vesw_id") == 1 and v.get("config_state") == "FORWARDING",
           "ep1 is still on vESW 1, forwarding", str(v))
    rc, out = ping(ep1, ep2_addr(ep1))
    tap.ok(rc == 0, "... and ping ep1 -> ep2 works", out)
    c = wait_counters(ep1, lambda c: c.get("ema_refused_bad_key", 0) >=
                      before.get("ema_refused_bad_key", 0) + 2)
    tap.ok(c.get("ema_refused_not_sm", 0) >=
           before.get("ema_refused_not_sm", 0) + 2 and
           c.get("ema_refused_bad_key", 0) >=
           before.get("ema_refused_bad_key", 0) + 2 and
           c.get("ema_key_held") == 1 and c.get("ema_key_lease") == LEASE,
           f"ep1 counts the refusals by reason and holds the EM's key, "
           f"lease {LEASE} s", str(c))
    rc, out, err = em_rc(sim, "cn0006", "key", ep1.lid)
    tap.ok(rc == 0 and "key_held=1 key=hidden" in out,
           "a host's Get of EMKeyInfo: a key is held, not shown", out + err)


def ep2_addr(ep1):
    return "10.0.0.2" if ep1.addr != "10.0.0.2" else "10.0.0.1"


def probe_in(sim, osm, lid):
    """The state file's probe_in_ms of the member at lid, or -1."""
    path = os.path.join(osm.dump_dir, "vfabric-em-state.json")
    try:
        st = json.loads(vfsim.read_from(path))
    except ValueError:
        return -1
    for v in st.get("vesws", []):
        for m in v["members"]:
            if m["lid"] == lid:
                return m.get("probe_in_ms", -1)
    return -1


def returning(tap, sim, eps, ep3):
    """ep3's agent goes away until the EM would probe it only 20 s or
    more later, then comes back: configured at once all the same."""
    osm = sim.osms[-1]
    seen = {}

    def down(ep):
        # absent for three probes: the back-off is 20 s, then 40 s
        vfsim.wait_until(lambda: probe_in(sim, osm, ep.lid) >= 15000, 60,
                         "ep3's probe back-off to reach 20 s")
        seen["probe_in"] = probe_in(sim, osm, ep.lid)
        seen["since"] = sim.log_offset()
        seen["t"] = time.monotonic()

    eps.restart(ep3, down)
    tap.ok(seen.get("probe_in", 0) >= 15000,
           "ep3's agent stopped: the EM probes it again only after "
           f"{seen.get('probe_in')} ms", str(seen))
    try:
        sim.wait_log(r"em: SUBNET UP: \d+ member ports without an endpoint "
                     r"probed again now", seen["since"], timeout=20)
        wait_configured(sim, seen["since"], 3)
        took = time.monotonic() - seen["t"]
    except vfsim.SimError:
        took = None
    # without the reset it would wait out the back-off seen above
    tap.ok(took is not None and took < seen["probe_in"] / 1000 - 5,
           "ep3's agent back: the SUBNET UP (its trap 144) resets the "
           f"back-off and the EM configures it in {took and round(took, 1)} s",
           vfsim.tail(osm.log))
    ip(ep3, "addr", "add", f"{ep3.addr}/24", "dev", ep3.tap)
    ip(ep3, "link", "set", ep3.tap, "up")
    v = vport0(show(sim, [ep3.lid]).get(ep3.lid, {}))
    tap.ok(v.get("vesw_id") == 2 and v.get("mtu") == 9000,
           "ep3 holds vESW 2 again", str(v))


def restart_osm(sim, conf, members, key=KEY):
    """Stop OpenSM, write the config with members in vESW 1, start it."""
    sim.stop_opensm()
    # the same name: the same cache (guid2lid, LIDs kept); the old log
    # must go, or its lines would be taken for the new one's
    os.remove(sim.osms[-1].log)
    with open(conf, "w") as fh:
        fh.write(config(members))
    sim.start_opensm(name="opensm1", conf_lines=vftest.plugin_conf(
        engine="shortestpath", options=plugin_options(conf, key)),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()


def restart(tap, sim, conf, ep1, ep2):
    """OpenSM restarted with cn0003 (ep2) out of vESW 1: ep2 must lose its
    vESW although the new EM never configured it, and ep1's table must
    end up empty, even where it reached past the first slice."""
    since = sim.reload_config(conf, config(["cn0002", "cn0003"]))
    em_pass(sim, since, "cn0003 back in vESW 1")
    ip(ep1, "neigh", "flush", "all")
    rc, out = ping(ep1, ep2.addr)
    tap.ok(rc == 0, "cn0003 back in vESW 1: ping ep1 -> ep2 works", out)
    digest = vport0(show(sim, [ep1.lid]).get(ep1.lid, {})).get(
        "mac_tbl_digest")
    # as a larger vESW's table would reach: an entry at index 12, past
    # the slice of 11 the EM always rewrites; the digest kept, so the
    # running EM leaves it be
    em_at_sm(sim, ["macset", ep1.lid, "--offset", 12, "--digest", digest,
                   ep2.lid])
    t1 = macs(sim, ep1.lid)
    tap.ok(t1 == [ep2.lid, ep2.lid], "before the restart ep1's table holds "
           "ep2 at index 0 and index 12", str(t1))

    restart_osm(sim, conf, ["cn0002"])
    p = em_pass(sim, 0, "after the restart")
    log = sim.log_text()
    tap.ok(p[7] == 1 and re.search(
        rf"LID {ep2.lid}\) vport 0 holds vESW 1, which the policy does not "
        r"give it: removing it", log) and
        re.search(rf"LID {ep2.lid}\) vport 0: removed from vESW 1 "
                  r"\(DeleteVesw\)", log),
        "OpenSM restarted with cn0003 out of vESW 1: the new EM reads back "
        "ep2's vESW and removes it (DeleteVesw)", vfsim.tail(sim.osms[-1].log))
    tap.ok("holds another EM's key" not in log,
           "... at once: the same em_key, no lease to wait out",
           vfsim.tail(sim.osms[-1].log))
    v2 = vport0(show(sim, [ep2.lid]).get(ep2.lid, {}))
    tap.ok(v2.get("vesw_id") == 0 and v2.get("oper_state") == "DROP_ALL",
           "ep2 reads back without a vESW, not forwarding", str(v2))
    rc, out = ping(ep1, ep2.addr, count=2, wait=1)
    tap.ok(rc != 0, "ping ep1 -> ep2 fails after the restart", out)
    t1 = macs(sim, ep1.lid)
    tap.ok(t1 == [], "OpenSM restarted with ep2 out of vESW 1: ep1's MAC "
           "table holds no entry (none for ep2, index 12 included)",
           str(t1))
    tap.ok(re.search(rf"em: LID {ep1.lid} vport 0 \(vESW 1\): its MAC "
                     r"table reaches index 12, the EM has no record of it",
                     sim.log_text()),
           "the EM read how far ep1's table reached and said so",
           vfsim.tail(sim.osms[-1].log))

    # an SM with another key: it waits out the lease the endpoints hold
    restart_osm(sim, conf, ["cn0002"], key="0x0123")
    m = sim.wait_log(rf"em: port 0x[0-9a-f]+ \(LID {ep1.lid}\) holds "
                     r"another EM's key: its Sets are refused \(0x0300\) "
                     r"and it is left as it is until its lease runs out, at "
                     rf"most (\d+) s from now \(lease {LEASE} s\)",
                     timeout=60)
    tap.ok(int(m.group(1)) <= LEASE, "OpenSM with another em_key: the EM "
           "says which endpoint holds another key and for how long at most",
           m.group(0))
    try:
        sim.wait_log(rf"em: port 0x[0-9a-f]+ \(LID {ep1.lid}\) now holds "
                     r"this EM's key", timeout=LEASE + 30)
        took = True
    except vfsim.SimError:
        took = False
    log = sim.log_text()
    tap.ok(took and len(re.findall(rf"\(LID {ep1.lid}\) holds another "
                                   r"EM's key", log)) == 1,
           "... once; when the lease ran out it set its own key",
           vfsim.tail(sim.osms[-1].log))
    wait_configured(sim, 0, 2)     # ep1 (vESW 1) and ep3 (vESW 2)
    # the state file follows within a tick: wait for the one with the key
    c = wait_counters(ep1, lambda c: c.get("ema_key_expired", 0) >= 1 and
                      c.get("ema_key_held") == 1)
    tap.ok(c.get("ema_key_expired", 0) >= 1 and c.get("ema_key_held") == 1,
           "ep1's key expired once and it holds the new EM's", str(c))


def malformed(tap, sim, osm, sm_lid, ep1):
    """Malformed EMA MADs to the SM's port."""
    since = sim.log_offset()
    cases = [["--method", "1", "--attr", "0x11"],           # a Get to the EM
             ["--method", "2", "--attr", "0x99"],           # Set, unknown
             ["--method", "5", "--attr", "2", "--data", "ff" * 40],
             ["--method", "5", "--attr", "2", "--len", "30"],
             ["--method", "3", "--attr", "1"],              # bad method
             ["--oui", "0x123456", "--method", "5", "--attr", "2"],
             ["--method", "0x81", "--attr", "0x11"]]        # stray answer
    for argv in cases:
        sim.run_diag([EMCLI, "raw", str(sm_lid), "--timeout", "300",
                      "--retries", "0"] + argv, node="cn0006", check=False)
    tap.ok(osm.alive(), f"OpenSM survives {len(cases)} malformed EMA MADs "
           "sent to its port", vfsim.tail(osm.log))
    tap.ok("em: ignored a malformed or unexpected MAD" in
           sim.log_text(since), "the EM logs what it ignored",
           vfsim.tail(osm.log))
    got = show(sim, [ep1.lid])
    tap.ok(vport0(got.get(ep1.lid, {})).get("vesw_id") == 1,
           "the endpoints keep their config and answer", str(got))
    since = sim.log_offset()
    os.kill(osm.pid, signal.SIGHUP)
    p = em_pass(sim, since, "after the malformed MADs")
    tap.ok(p[4] == 2 and p[6] == 0, "the EM still runs its passes",
           str(p))
    st = json.loads(vfsim.read_from(os.path.join(osm.dump_dir,
                                                 "vfabric-em-state.json")))
    tap.ok(st.get("bad_mads", 0) >= 5, "the state file counts the MADs "
           "the EM ignored", str(st.get("bad_mads")))


def main():
    tap = vfsim.Tap()
    require_root_tools(tap)
    vftest.start(tap)
    for prog in (ENDPOINT, EMCLI):
        if not os.access(prog, os.X_OK):
            tap.skip_all(f"{os.path.basename(prog)} not built ({prog})")
    run_on_fattree(tap, "em", run)
    tap.done()


if __name__ == "__main__":
    main()
