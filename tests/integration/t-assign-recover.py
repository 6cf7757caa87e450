#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Automatic P_Keys survive a lost cache (issue 14, point 12), on ibsim.

Two secure VFs without <PKey> whose names collide (FNV-1a of "Tenant430"
and "Tenant124" modulo the P_Key space are equal, checked here): the
master has Tenant430 alone first (it gets the hash), then Tenant124 is
added before it in the file by SIGHUP (it gets the next P_Key).  Name
order alone would give Tenant124 the hash, so an SM without that history
would swap the two tenants' P_Keys.  The master is stopped and a second
OpenSM starts on the same host with its own empty cache (as a standby
taking over, or a deleted cache): every host's P_Key table, values and
indexes, must be what the master left, and the plugin must say it
recovered both P_Keys from the fabric.
"""

import os
import re

import topogen
import vfsim
import vftest

A, B = "Tenant430", "Tenant124"


def fnv(name):
    h = 2166136261
    for c in name.encode():
        h = ((h ^ c) * 16777619) & 0xffffffff
    return 1 + h % 0x7ffe


def config(vfs):
    groups = {A: "cn[0002-0004]*", B: "cn[0005-0008]*"}
    text = ["<?xml version=\"1.0\"?>\n<Config><Common><Applications>",
            "<Application><Name>Any</Name><Select>UnmatchedServiceID"
            "</Select></Application></Applications><DeviceGroups>"]
    for v in vfs:
        text.append(f"<DeviceGroup><Name>{v}</Name><NodeDesc>{groups[v]}"
                    f"</NodeDesc></DeviceGroup>")
    text.append("</DeviceGroups><VirtualFabrics>")
    for v in vfs:
        text.append(f"<VirtualFabric><Name>{v}</Name><Enable>1</Enable>"
                    f"<Security>1</Security><Member>{v}</Member>"
                    f"<Application>Any</Application></VirtualFabric>")
    text.append("</VirtualFabrics></Common></Config>\n")
    return "\n".join(text)


def tables(sim, lids):
    return {h: sim.pkeys(lid) for h, lid in sorted(lids.items())}


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    h = fnv(A)
    tap.ok(fnv(B) == h, f"{A} and {B} collide (0x{h:04x})")
    with vfsim.Sim(topogen.fattree2(leaves=2, spines=1, hosts=4),
                   "assign-recover", tap=tap) as sim:
        sim.start_ibsim()
        conf = os.path.join(sim.workdir, "vf.xml")
        with open(conf, "w") as fh:
            fh.write(config([A]))
        opts = vftest.plugin_conf(options=f"log_level=info config={conf}")
        sim.start_opensm(name="opensm1", conf_lines=opts,
                         plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        sim.wait_log(r"P_Key tables of \d+ end ports verified as planned")
        tap.ok(vftest.assigned_pkeys(sim) == {A: h},
               f"master: {A} alone gets its hash", str(
                   vftest.assigned_pkeys(sim)))

        # Tenant124 added, first in the file
        since = sim.reload_config(conf, config([B, A]))
        sim.wait_log(r"P_Key tables of \d+ end ports verified as planned",
                     since=since)
        got = vftest.assigned_pkeys(sim)
        tap.ok(got == {A: h, B: h + 1},
               f"master: {B}, added later, gets the next P_Key", str(got))
        lids = {n["desc"].split()[0]: n["lid"] for n in
                vfsim.parse_ibnetdiscover(open(sim.discover()).read())
                .values() if n["kind"] != "Switch"}
        before = tables(sim, lids)
        full = {hst: [k for k in t if k & 0x7fff in (h, h + 1)]
                for hst, t in before.items()}
        tap.ok(all(full[f"cn000{i}"] == [0x8000 | h] for i in (2, 3, 4)) and
               all(full[f"cn000{i}"] == [0x8000 | (h + 1)]
                   for i in (5, 6, 7, 8)),
               f"hosts 2-4 hold 0x{h:04x}, hosts 5-8 0x{h + 1:04x} (full)",
               str(full))
        sim.stop_opensm()

        # a new SM on the same host, with its own empty cache
        sim.start_opensm(name="opensm2", conf_lines=opts,
                         plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_log(r"P_Key tables of \d+ end ports verified as planned")
        log = sim.log_text()
        for v, pk in ((A, h), (B, h + 1)):
            tap.ok(re.search(rf"VirtualFabric '{v}': automatic P_Key "
                             rf"0x{pk:04x} is not in the assignment cache; "
                             r"kept as the fabric holds it", log),
                   f"the new SM says it recovered {v}'s P_Key from the "
                   "fabric", vfsim.tail(sim.osms[-1].log))
        got = vftest.assigned_pkeys(sim, "opensm2")
        tap.ok(got == {A: h, B: h + 1},
               "the new SM's cache: the master's P_Keys", str(got))
        after = tables(sim, lids)
        moved = [f"{hst}: {before[hst]} -> {after[hst]}" for hst in before
                 if before[hst] != after[hst]]
        tap.ok(not moved, "every host holds the same P_Keys "
               "at the same indexes", "\n".join(moved))
        sim.stop_opensm()
    tap.done()


if __name__ == "__main__":
    main()
