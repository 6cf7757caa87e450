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
import subprocess

import vfsim
from vnictest import (ENDPOINT, Endpoint, counters, host_lids, ip, lmac,
                      ping, require_root_tools, run_on_fattree,
                      wait_counters)


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
        want = lmac(0, ep.vesw, lid)
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
    require_root_tools(tap)
    vfsim.require_tools(tap)
    if not os.access(ENDPOINT, os.X_OK):
        tap.skip_all(f"vnic-endpoint not built ({ENDPOINT})")
    usage_errors(tap)
    run_on_fattree(tap, "vnicdata", run, after=exit_counters)
    tap.done()


def exit_counters(tap, eps):
    for ep in eps.eps:
        tap.ok("tx_packets" in vfsim.read_from(ep.log),
               f"{ep.name} printed its counters at exit")


if __name__ == "__main__":
    main()
