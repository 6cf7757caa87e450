#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Managed VNIC endpoints end to end (docs/em-cli.md, docs/ema-protocol.md):
the EMA agent inside sim/vnic-endpoint, configured over ibsim by
vfabric-em exactly as an Ethernet Manager would.

Stock OpenSM on the fat tree of t-vnicdata; three endpoints in --managed
mode on hosts of three leaves, each TAP in a namespace of its own;
vfabric-em, the EM here, at the master SM's node (endpoints take Sets
only from its port), and at a host without an endpoint for the Gets
anyone may make and the Sets a host may not.

- usage errors of vfabric-em and of vnic-endpoint --managed: exit 2;
- a fresh endpoint reports the power-on defaults (DROP_ALL, no vESW);
- set/macset put ep1 and ep2 on vESW 1 and ep3 on vESW 2; show reads back
  every field from each endpoint, the TAPs get the EM's MAC and MTU;
- ping works within vESW 1 and fails across;
- counters read over EMA grow with the traffic;
- the TAP going down raises a link trap to ClassPortInfo's trap LID (one
  at another endpoint, which records it);
- delete on ep2: its ping stops, show reports the defaults;
- show without LIDs finds exactly the three endpoints;
- malformed requests get their error statuses and the endpoint lives on;
- umad2sim's size line for every MAD received is not in the endpoints'
  logs (counted in their state instead);
- authentication, as a host would attack it: a Set from a host's port is
  refused 0x0200 and changes nothing; once the EM set a key (EMKeyInfo),
  a Set from the SM's port without it or with another is refused 0x0300,
  with it done; a Get shows the key only to a request carrying it; the
  refusals are counted in the endpoint's state and log; a wrong key
  starts the lease, and when it runs out the key is cleared and a new
  EM (no key) configures the endpoint again.
Needs root (TAP devices, namespaces): skipped otherwise.
"""

import json
import os
import subprocess

import vfsim
import vftest
from vnictest import (ENDPOINT, Endpoint, counters, host_lids, ip, lmac,
                      ping, require_root_tools, run_on_fattree,
                      wait_counters)

EM = os.path.abspath(os.environ.get(
    "VF_EM", os.path.join(vftest.TOP_BUILDDIR, "tools", "vfabric-em")))
HOST = "cn0004"         # no endpoint there: a host that is not the SM
NOBODY = "cn0006"       # no client at all: traps to it bounce
KEY = "0x5eed0f0e1ec7ab1e"  # the EM key of the authentication checks
# long enough for the steps between setting the key and carrying it,
# under load (ASan, parallel tests): the lease must not run out there
LEASE_S = 10


def em(sim, *args, node=None):
    """vfabric-em at node, by default the master SM's: the EM here."""
    node = node or sim.default_sm_node()
    res = subprocess.run([EM] + [str(a) for a in args], env=sim._env(node),
                         cwd=sim.workdir, capture_output=True, text=True,
                         timeout=120)
    return res.returncode, res.stdout, res.stderr


def show(sim, tap, lid):
    rc, out, err = em(sim, "show", "--json", lid)
    try:
        rows = json.loads(out)
    except ValueError:
        rows = []
    if rc != 0 or len(rows) != 1 or not rows[0].get("endpoint"):
        tap.diag(f"show {lid}: rc {rc}\n{out}\n{err}")
        return {}
    return rows[0]["vport"][0] if rows[0]["vport"] else {}


def table_rows(text):
    """vfabric-em show's table: {lid: (node, port GUID, why, {vport:
    fields})}; NODE is 20 columns wide and may hold blanks."""
    ports = {}
    for line in text.splitlines()[1:]:
        if line.startswith("vESW") or len(line) < 27:
            continue
        lid, node = int(line[:5]), line[6:26].rstrip()
        rest = line[27:].split()
        entry = ports.setdefault(lid, (node, rest[0], None, {}))
        if rest[1] == "-":
            ports[lid] = (node, rest[0], " ".join(rest[2:]), {})
            continue
        keys = ("index", "vesw_id", "pkey", "mac", "mtu", "config_state",
                "oper_state", "link", "encap_slid", "port_num",
                "mac_entries")
        vals = dict(zip(keys, rest[1:]))
        for k in ("index", "vesw_id", "mtu", "encap_slid", "port_num",
                  "mac_entries"):
            vals[k] = int(vals[k])
        vals["pkey"] = int(vals["pkey"], 16)
        entry[3][vals["index"]] = vals
    return ports


def show_differences(rows, text):
    """Where show --json and the table of the same ports disagree."""
    table, diff = table_rows(text), []
    for r in rows:
        node, guid, why, vports = table.pop(r["lid"], (None,) * 4)
        if node is None:
            diff.append(f"LID {r['lid']}: not in the table")
            continue
        if (r["node"][:20], r["port_guid"], r.get("why")) != (node, guid,
                                                               why):
            diff.append(f"LID {r['lid']}: {r['node']!r} {r['port_guid']} "
                        f"{r.get('why')} vs {node!r} {guid} {why}")
        for v in r.get("vport", []):
            want = vports.pop(v["index"], {})
            got = {k: v[k] for k in want}
            if not want or got != want:
                diff.append(f"LID {r['lid']} vport {v['index']}: {got} vs "
                            f"{want}")
        diff += [f"LID {r['lid']} vport {i}: only in the table"
                 for i in vports]
    diff += [f"LID {lid}: only in the table" for lid in table]
    return diff


def usage_errors(tap):
    """Refused before any port is opened: exit 2 and a reason."""
    cases = [([], "which command?"),
             (["frob"], "unknown command 'frob'"),
             (["set"], "set needs a LID"),
             (["set", "0"], "'0' is not a unicast LID"),
             (["set", "5", "7"], "set takes one LID"),
             (["set", "5", "--state", "up"], "--state wants nop, drop"),
             (["set", "5", "--mac", "01:00:00:00:00:01"], "--mac wants a unicast"),
             (["set", "5", "--vesw", "0"], "--vesw 0 is no vESW"),
             (["set", "5", "--vesw", "4096"], "--vesw takes a number"),
             (["show", "--vesw", "1"], "show takes no --vesw"),
             (["macset", "5"], "macset needs a LID and entries"),
             (["raw", "5", "--data", "abc"], "--data wants hex bytes")]
    for argv, msg in cases:
        res = subprocess.run([EM] + argv, capture_output=True, text=True,
                             timeout=10)
        tap.ok(res.returncode == 2 and msg in res.stderr,
               f"vfabric-em {' '.join(argv) or '(nothing)'}: exit 2, "
               f"'{msg}'", f"rc {res.returncode}: {res.stderr}")
    for argv, msg in ((["--managed", "--tap", "x", "--vesw", "1"],
                       "--managed takes no vport options"),
                      (["--managed"], "--managed needs --tap")):
        res = subprocess.run([ENDPOINT] + argv, capture_output=True,
                             text=True, timeout=10)
        tap.ok(res.returncode == 2 and msg in res.stderr,
               f"vnic-endpoint {' '.join(argv)}: exit 2, '{msg}'",
               f"rc {res.returncode}: {res.stderr}")


def configure(tap, sim, ep, vesw, pkey, mtu, peers):
    """The EM's sequence: both parts with DROP_ALL, MAC table, then
    FORWARDING."""
    ep.mac = lmac(0, vesw, ep.lid)
    rc, out, err = em(sim, "set", ep.lid, "--vesw", vesw, "--pkey",
                      hex(pkey), "--mtu", mtu, "--mac", ep.mac,
                      "--port-num", ep.lid, "--state", "drop")
    tap.ok(rc == 0 and f"vesw={vesw}" in out and "config=DROP_ALL" in out,
           f"set {ep.name}: vESW {vesw}, P_Key {pkey:#x}, MTU {mtu}, MAC "
           f"{ep.mac}, DROP_ALL", f"rc {rc}\n{out}{err}")
    if peers:
        rc, out, err = em(sim, "macset", ep.lid, "--digest", 0x1234,
                          *[p.lid for p in peers])
        tap.ok(rc == 0 and f"entries={len(peers)}" in out,
               f"macset {ep.name}: {len(peers)} peer(s) by LID",
               f"rc {rc}\n{out}{err}")
    rc, out, err = em(sim, "set", ep.lid, "--state", "forwarding")
    # the host has not brought the TAP up yet: not forwarding
    tap.ok(rc == 0 and "config=FORWARDING oper=DROP_ALL link=down" in out,
           f"set {ep.name} FORWARDING: oper DROP_ALL while the TAP is down",
           f"rc {rc}\n{out}{err}")


def run(tap, sim, eps):
    sim.start_ibsim()
    sim.start_opensm(conf_lines=["routing_engine minhop", "sweep_interval 0"])
    sim.wait_subnet_up()
    lids = host_lids(sim)
    ep1 = Endpoint("1", "cn0002", None, None, "10.0.0.1")
    ep2 = Endpoint("2", "cn0003", None, None, "10.0.0.2")
    ep3 = Endpoint("3", "cn0005", None, None, "10.0.0.3")
    for ep in (ep1, ep2, ep3):
        eps.start(ep)
    tap.ok(all(ep.lid == lids[ep.node] for ep in (ep1, ep2, ep3)),
           "the endpoints found their LIDs",
           str([(ep.lid, lids[ep.node]) for ep in (ep1, ep2, ep3)]))

    rc, out, err = em(sim, "probe", ep1.lid, ep2.lid, ep3.lid)
    tap.ok(rc == 0 and out.count("endpoint=1 vports=1 traps=1") == 3,
           "probe: three endpoints, one vport each, traps supported",
           f"rc {rc}\n{out}{err}")
    v = show(sim, tap, ep1.lid)
    tap.ok(v.get("config_state") == "DROP_ALL" and
           v.get("oper_state") == "DROP_ALL" and v.get("vesw_id") == 0 and
           v.get("mac") == "00:00:00:00:00:00" and v.get("mtu") == 0,
           "a fresh managed endpoint shows the power-on defaults", str(v))

    configure(tap, sim, ep1, 1, 0x8001, 1500, [ep2])
    configure(tap, sim, ep2, 1, 0x8001, 1500, [ep1])
    configure(tap, sim, ep3, 2, 0x8002, 1400, [])
    for ep in (ep1, ep2, ep3):
        ip(ep, "addr", "add", f"{ep.addr}/24", "dev", ep.tap)
        ip(ep, "link", "set", ep.tap, "up")
    for ep, vesw, pkey, mtu, macs in ((ep1, 1, 0x8001, 1500, 1),
                                      (ep2, 1, 0x8001, 1500, 1),
                                      (ep3, 2, 0x8002, 1400, 0)):
        c = wait_counters(ep, lambda c: c.get("vp_oper_state") == 3)
        v = show(sim, tap, ep.lid)
        want = {"vesw_id": vesw, "pkey": pkey, "mtu": mtu, "mac": ep.mac,
                "encap_slid": ep.lid, "port_num": ep.lid,
                "config_state": "FORWARDING", "oper_state": "FORWARDING",
                "link": "up", "mac_entries": macs}
        got = {k: v.get(k) for k in want}
        tap.ok(got == want, f"show {ep.name} reads back what was set, and "
               "forwards once the TAP is up", f"want {want}\ngot  {got}\n"
               f"state {c}")
        link = ip(ep, "link", "show", ep.tap)
        tap.ok(f"mtu {mtu} " in link and ep.mac in link,
               f"{ep.name}'s TAP has the EM's MTU {mtu} and MAC", link)
    rc, out, err = em(sim, "macs", ep1.lid)
    tap.ok(rc == 0 and f"{lmac(0, 1, ep2.lid)} ff:ff:ff:ff:ff:ff "
           f"{ep2.lid:5d}" in out and "entries 1 digest 4660" in out,
           "macs ep1: ep2's MAC, DLID and the EM's digest", out + err)

    rc, out, err = em(sim, "show", ep3.lid, ep2.lid, ep1.lid)
    a, b = sorted((ep1.lid, ep2.lid))
    tap.ok(rc == 0 and f"vESW 1: 2 members: LID {a}, LID {b}\n" in out and
           f"vESW 2: 1 member: LID {ep3.lid}\n" in out,
           "show (table): the members of each vESW", out + err)

    rc, out = ping(ep1, ep2.addr)
    tap.ok(rc == 0, "ping ep1 -> ep2 (vESW 1) succeeds", out)
    rc, out = ping(ep2, ep1.addr)
    tap.ok(rc == 0, "ping ep2 -> ep1 (vESW 1) succeeds", out)
    rc, out = ping(ep1, ep3.addr, count=2, wait=1)
    tap.ok(rc != 0, "ping ep1 (vESW 1) -> ep3 (vESW 2) fails", out)

    rc, out, err = em(sim, "counters", "--json", ep1.lid)
    c1 = json.loads(out) if rc == 0 else {}
    tap.ok(c1.get("tx_packets", 0) >= 3 and c1.get("rx_packets", 0) >= 3 and
           c1.get("vesw_id") == 1 and c1.get("port_num") == ep1.lid,
           "counters ep1 over EMA: packets both ways, vESW 1, port_num",
           f"rc {rc}\n{out}{err}")
    ping(ep1, ep2.addr, count=2)
    rc, out, err = em(sim, "counters", "--json", ep1.lid)
    c1b = json.loads(out) if rc == 0 else {}
    tap.ok(c1b.get("tx_packets", 0) >= c1.get("tx_packets", 0) + 2 and
           c1b.get("rx_unicast", 0) > c1.get("rx_unicast", 0),
           "... and they grow with more pings", f"{c1}\n{c1b}")
    st = wait_counters(ep1, lambda c: c.get("tx_bytes", -1) >=
                       c1b.get("tx_bytes", 0))
    tap.ok(c1b.get("tx_bytes") is not None and
           st.get("tx_bytes", -1) >= c1b["tx_bytes"],
           "the EMA counters are the data path's (state file agrees)",
           f"{st.get('tx_bytes')} vs {c1b.get('tx_bytes')}")

    # link traps: ep1's go to a host without a client (they bounce),
    # ep2's to ep3, which records what it got
    rc, out, err = em(sim, "set", ep1.lid, "--trap-lid", lids[NOBODY])
    rc2, out2, err2 = em(sim, "set", ep2.lid, "--trap-lid", ep3.lid,
                         "--trap-sl", 2)
    tap.ok(rc == 0 and rc2 == 0 and f"trap_lid={ep3.lid} trap_sl=2" in out2,
           "set --trap-lid on ep1 and ep2", out + err + out2 + err2)
    ip(ep1, "link", "set", ep1.tap, "down")
    c = wait_counters(ep1, lambda c: c.get("ema_traps_bounced", 0) >= 1)
    tap.ok(c.get("ema_traps_sent") == 1 and c.get("ema_traps_bounced") == 1
           and c.get("vp_oper_state") == 1,
           "ep1's TAP down: oper DROP_ALL, one link trap sent (bounced: "
           "nobody at the trap LID)", str(c))
    v = show(sim, tap, ep1.lid)
    tap.ok(v.get("oper_state") == "DROP_ALL" and v.get("link") == "down"
           and v.get("config_state") == "FORWARDING",
           "show ep1: config FORWARDING, oper DROP_ALL, link down", str(v))
    rc, out = ping(ep2, ep1.addr, count=2, wait=1)
    tap.ok(rc != 0, "ping ep2 -> ep1 fails while ep1 is down", out)
    ip(ep1, "link", "set", ep1.tap, "up")
    ip(ep2, "link", "set", ep2.tap, "down")
    c3 = wait_counters(ep3, lambda c: c.get("ema_traps_received", 0) >= 1)
    last = [ln for ln in vfsim.read_from(ep3.state).splitlines()
            if ln.startswith("last_trap ")]
    tap.ok(c3.get("ema_traps_received") == 1 and last and
           last[0] == f"last_trap issuer {ep2.lid} vesw 1 port_num "
           f"{ep2.lid} vport 0 opcode 3",
           "ep2's TAP down: ep3 (its trap LID) got the link trap: issuer "
           "ep2, vESW 1, opcode 3", f"{c3}\n{last}")
    ip(ep2, "link", "set", ep2.tap, "up")
    wait_counters(ep2, lambda c: c.get("vp_oper_state") == 3)
    wait_counters(ep1, lambda c: c.get("vp_oper_state") == 3)
    rc, out = ping(ep1, ep2.addr)
    tap.ok(rc == 0, "both up again: ping ep1 -> ep2 succeeds", out)

    rc, out, err = em(sim, "delete", ep2.lid)
    tap.ok(rc == 0 and "deleted config=DROP_ALL oper=DROP_ALL" in out,
           "delete ep2: DeleteVesw answered with DROP_ALL",
           f"rc {rc}\n{out}{err}")
    rc, out = ping(ep1, ep2.addr, count=2, wait=1)
    tap.ok(rc != 0, "ping ep1 -> ep2 fails after the delete", out)
    v = show(sim, tap, ep2.lid)
    tap.ok(v.get("config_state") == "DROP_ALL" and
           v.get("oper_state") == "DROP_ALL" and v.get("vesw_id") == 0 and
           v.get("pkey") == 0 and v.get("mac_entries") == 0 and
           v.get("mac") == "00:00:00:00:00:00",
           "show ep2: power-on defaults, empty MAC table", str(v))
    c2 = wait_counters(ep2, lambda c: c.get("rx_bad_veswid", 0) >= 1)
    tap.ok(c2.get("rx_bad_veswid", 0) >= 1,
           "ep2 dropped ep1's frames (rx_bad_veswid: its vESW is gone)",
           str(c2))

    rc, out, err = em(sim, "show", "--json")
    rows = json.loads(out) if rc == 0 else []
    found = sorted(r["lid"] for r in rows if r.get("endpoint"))
    others = [r for r in rows if not r.get("endpoint")]
    sm_lid = lids[sim.default_sm_node()]
    tap.ok(found == sorted((ep1.lid, ep2.lid, ep3.lid)) and
           all(r.get("why") == "no endpoint" for r in others) and
           len(rows) == len(lids) - 1 and
           sm_lid not in [r["lid"] for r in rows],
           "show without LIDs: every CA port but the SM's, exactly the 3 "
           "endpoints, the others 'no endpoint'", f"rc {rc}\n{out}{err}")
    rc, out, err = em(sim, "show")
    tap.diag(out)
    tap.ok(rc == 0 and "LID" in out.splitlines()[0] and
           out.count("no endpoint") == len(lids) - 4 and
           f"vESW 1: 1 member: LID {ep1.lid}\n" in out,
           "show (table) lists them too", out + err)
    diff = show_differences(rows, out)
    tap.ok(rc == 0 and not diff,
           "show --json (json-c) says what the table says, port by port "
           "and vport by vport", "\n".join(diff))
    rc, out, err = em(sim, "probe", lids[NOBODY])
    tap.ok(rc == 1 and "endpoint=0" in out,
           "probe of a host without an endpoint: 'no endpoint', exit 1",
           f"rc {rc}\n{out}{err}")
    malformed(tap, sim, ep3)
    authentication(tap, sim, ep3)
    other_pkey(tap, sim, ep1, ep2)
    c = counters(ep1)
    logs = "".join(vfsim.read_from(ep.log) for ep in (ep1, ep2, ep3))
    tap.ok(c.get("umad2sim_size_lines", 0) > 0 and
           "larger than requested" not in logs,
           "umad2sim's per-MAD 'received data size 320 larger than "
           "requested buf size 288' lines are dropped (and counted) from "
           "the endpoints' logs", f"{c.get('umad2sim_size_lines')}\n"
           f"{vfsim.tail(ep1.log)}")
    eps.check()


def other_pkey(tap, sim, ep1, ep2):
    """ep2 on ep1's vESW under another P_Key: ibsim checks no P_Key, the
    endpoint does (docs/vnic-datapath.md)."""
    rc, out, err = em(sim, "set", ep2.lid, "--vesw", 1, "--pkey", 0x8003,
                      "--mtu", 1500, "--mac", lmac(0, 1, ep2.lid),
                      "--port-num", ep2.lid, "--state", "forwarding")
    c = wait_counters(ep2, lambda c: c.get("vp_oper_state") == 3)
    tap.ok(rc == 0 and c.get("vp_pkey") == 0x8003,
           "ep2 back on vESW 1 with P_Key 0x8003 (ep1 sends with 0x8001)",
           f"rc {rc}\n{out}{err}\n{c}")
    before = c.get("rx_bad_pkey", 0)
    ip(ep1, "neigh", "replace", ep2.addr, "lladdr", lmac(0, 1, ep2.lid),
       "dev", ep1.tap, "nud", "permanent")
    rc, out = ping(ep1, ep2.addr, count=2, wait=1)
    c = wait_counters(ep2, lambda c: c.get("rx_bad_pkey", 0) >= before + 2)
    tap.ok(rc != 0 and c.get("rx_bad_pkey", 0) >= before + 2,
           "ping ep1 -> ep2 fails: ep2 drops 16B packets of another P_Key "
           "(rx_bad_pkey)", f"{out}\n{c}")
    rc, out, err = em(sim, "counters", "--json", ep2.lid, node=HOST)
    got = json.loads(out) if rc == 0 else {}
    tap.ok(got.get("rx_logic", 0) >= 2 and got.get("rx_errors", 0) >= 2,
           "... reported by EMA's error counters (rx_logic, rx_errors)",
           out + err)


def refused(rc, err, status):
    return rc == 3 and f"status {status}" in err


def authentication(tap, sim, ep):
    """The attacks of a host, then of an SM that does not know the key."""
    before = counters(ep)
    rc, out, err = em(sim, "set", ep.lid, "--vesw", 9, node=HOST)
    tap.ok(refused(rc, err, "0x0200") and "run vfabric-em at its node" in err,
           "a host's Set (vESW 9): refused 0x0200, the reason named",
           f"rc {rc}\n{out}{err}")
    rc, out, err = em(sim, "delete", ep.lid, node=HOST)
    tap.ok(refused(rc, err, "0x0200"), "a host's DeleteVesw: refused 0x0200",
           f"rc {rc}\n{out}{err}")
    v = show(sim, tap, ep.lid)
    tap.ok(v.get("vesw_id") == 2 and v.get("oper_state") == "FORWARDING",
           "... the endpoint keeps vESW 2 and forwards", str(v))
    c = wait_counters(ep, lambda c: c.get("ema_refused_not_sm", 0) >=
                      before.get("ema_refused_not_sm", 0) + 2)
    tap.ok(c.get("ema_refused_not_sm", 0) >=
           before.get("ema_refused_not_sm", 0) + 2 and
           "refused Set VeswPortInfo from LID" in vfsim.read_from(ep.log),
           "... counted (ema_refused_not_sm) and logged by the endpoint",
           str(c))

    rc, out, err = em(sim, "key", ep.lid, "--new-key", KEY, "--lease", LEASE_S)
    tap.ok(rc == 0 and f"key={KEY}" in out and f"lease={LEASE_S}" in out,
           f"the EM (at the SM's node) sets an EM key, lease {LEASE_S} s",
           f"rc {rc}\n{out}{err}")
    rc, out, err = em(sim, "set", ep.lid, "--mtu", 1300)
    tap.ok(refused(rc, err, "0x0300") and "--key" in err,
           "a Set from the SM's port without the key: refused 0x0300",
           f"rc {rc}\n{out}{err}")
    rc, out, err = em(sim, "set", ep.lid, "--mtu", 1300, "--key", "0x1234")
    tap.ok(refused(rc, err, "0x0300"), "... with another key: refused 0x0300",
           f"rc {rc}\n{out}{err}")
    rc, out, err = em(sim, "set", ep.lid, "--mtu", 1300, "--key", KEY,
                      node=HOST)
    tap.ok(refused(rc, err, "0x0200"),
           "a host that knows the key still may not Set: 0x0200",
           f"rc {rc}\n{out}{err}")
    rc, out, err = em(sim, "key", ep.lid, node=HOST)
    tap.ok(rc == 0 and "key_held=1 key=hidden" in out,
           "a host's Get of EMKeyInfo: a key is held, not shown",
           f"rc {rc}\n{out}{err}")
    rc, out, err = em(sim, "show", "--json", ep.lid, node=HOST)
    row = (json.loads(out) or [{}])[0] if rc == 0 else {}
    tap.ok(row.get("key_held") is True and row.get("refused_not_sm", 0) >= 3
           and row.get("refused_bad_key", 0) >= 2 and KEY[2:] not in out,
           "show --json gives the refusals by reason, not the key", out + err)
    tap.ok(KEY[2:] not in vfsim.read_from(ep.state) and
           KEY[2:] not in vfsim.read_from(ep.log),
           "the key is neither in the endpoint's state nor in its log")
    rc, out, err = em(sim, "set", ep.lid, "--mtu", 1400, "--key", KEY)
    tap.ok(rc == 0, "a Set from the SM's port with the key: done",
           f"rc {rc}\n{out}{err}")
    # the state file is rewritten once a tick: wait for one written after
    # the refusals, not an older one that also shows no lease running
    c = wait_counters(ep, lambda c: c.get("ema_key_held") == 1 and
                      c.get("ema_refused_bad_key", 0) >= 2 and
                      c.get("ema_key_lease_running") == 0)
    tap.ok(c.get("ema_key_held") == 1 and c.get("ema_refused_bad_key", 0) >= 2
           and c.get("ema_key_lease_running") == 0,
           "the state shows the key held, the refusals by reason, no lease "
           "running (the last Set carried the key)", str(c))

    # an SM that does not know the key: its Set starts the lease, and
    # when it runs out the endpoint is the new EM's
    rc, out, err = em(sim, "delete", ep.lid, "--key", "0xbad")
    tap.ok(refused(rc, err, "0x0300"), "a new EM with another key: 0x0300 "
           "(the lease timer starts)", f"rc {rc}\n{out}{err}")
    rc, out, err = em(sim, "key", ep.lid)
    tap.ok(rc == 0 and f"lease={LEASE_S} " in out and "lease_left=0 " not in out,
           "EMKeyInfo says how long the lease still runs", out + err)
    c = wait_counters(ep, lambda c: c.get("ema_key_expired", 0) >= 1,
                      timeout=2 * LEASE_S)
    tap.ok(c.get("ema_key_expired") == 1 and c.get("ema_key_held") == 0,
           "the lease runs out with no Set carrying the key: key cleared",
           str(c))
    tap.ok(f"lease of {LEASE_S} s ran out" in vfsim.read_from(ep.log),
           "... and the endpoint logs it", vfsim.tail(ep.log))
    rc, out, err = em(sim, "delete", ep.lid)
    tap.ok(rc == 0 and "deleted" in out,
           "the new EM, with no key, configures the endpoint again",
           f"rc {rc}\n{out}{err}")


def malformed(tap, sim, ep):
    before = counters(ep)
    cases = [
        (["--class-version", 2], "status=0x0004", "class version 2"),
        (["--method", 3], "method=0x83 attr=ClassPortInfo amod=0x0 "
         "status=0x0008", "method 3 (Send)"),
        (["--attr", 0x99], "status=0x000c", "unknown attribute 0x99"),
        (["--oui", 0x001122], "status=0x000c", "another OUI"),
        (["--method", 2, "--attr", 0x20], "status=0x000c",
         "Set of a Get-only attribute"),
        (["--attr", 0x11, "--amod", 5], "status=0x001c",
         "VeswPortInfo of vport 5 (of 1)"),
        (["--attr", 0x11, "--amod", 0x200], "status=0x001c",
         "VeswPortInfo part 2"),
        (["--attr", 0x12, "--data", "07f6000b"], "status=0x001c",
         "MAC entries past index 2047"),
        (["--attr", 0x12, "--data", "0000000c"], "status=0x001c",
         "MAC entries: 12 in one MAD"),
        (["--method", 2, "--attr", 0x11, "--data", "00001000"],
         "status=0x001c", "Set vESW id 0x1000 (13 bits)"),
        (["--method", 2, "--attr", 0x01, "--data", "00" * 60 + "0000c001"],
         "status=0x001c", "Set ClassPortInfo with a multicast trap LID"),
    ]
    for args, want, what in cases:
        rc, out, err = em(sim, "raw", ep.lid, *args)
        tap.ok(rc == 0 and want in out, f"raw {what}: {want}",
               f"rc {rc}\n{out}{err}")
    rc, out, err = em(sim, "raw", ep.lid, "--len", 30, "--timeout", 500,
                      "--retries", 0)
    # umad2sim passes the length on: the agent sees 30 bytes
    tap.ok(rc == 0 and "status=0x001c" in out,
           "raw 30-byte MAD: refused with 0x001c", out + err)
    rc, out, err = em(sim, "probe", ep.lid)
    after = wait_counters(ep, lambda c: c.get("ema_errors", 0) >=
                          before.get("ema_errors", 0) + len(cases))
    tap.ok(rc == 0 and "endpoint=1" in out and ep.proc.poll() is None,
           "the endpoint still answers after the malformed requests", out)
    tap.ok(after.get("ema_errors", 0) - before.get("ema_errors", 0) >=
           len(cases), "... and counted them as errors",
           f"{before.get('ema_errors')} -> {after.get('ema_errors')}")
    v = show(sim, tap, ep.lid)
    tap.ok(v.get("vesw_id") == 2 and v.get("oper_state") == "FORWARDING",
           "... with its configuration untouched", str(v))


def main():
    tap = vfsim.Tap()
    for tool in (EM, ENDPOINT):
        if not os.access(tool, os.X_OK):
            tap.skip_all(f"not built: {tool}")
    usage_errors(tap)
    if os.geteuid() != 0:
        # the usage checks above still count
        tap.skip("managed endpoints over ibsim",
                 "needs root (TAP devices and network namespaces)")
        tap.done()
        return
    require_root_tools(tap)
    vfsim.require_tools(tap)
    run_on_fattree(tap, "emendpoint", run)
    tap.done()


if __name__ == "__main__":
    main()
