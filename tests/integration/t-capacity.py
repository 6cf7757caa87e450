#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""A policy that does not fit a port's P_Key table (seed 002: feasibility
checked against each port's partition capacity, the loss reported per
port and VF, dropped deterministically): 70 virtual fabrics all holding
cn0003 and cn0004, whose tables have 64 entries in ibsim.  The default
partition and the first 63 VFs are programmed, the last 7 are dropped
from those ports only, each VF logged once per sweep with its P_Key, the
number of ports and one of them; the tables read back
agree, on the host and on the switch port facing it, and a second run
drops the same ones.  And disconnect_unconfigured=on: the hosts no VF
names become limited members of the default partition.
"""

import os
import re

import topogen
import vfsim
import vftest

VFS = 70
CAP = 64


def config():
    vfs = "".join(
        f"<VirtualFabric><Name>V{i:02d}</Name><Enable>1</Enable>"
        f"<PKey>0x{0x100 + i:04x}</PKey><Member>Three</Member>"
        f"<Member>Four</Member><Application>All</Application>"
        f"</VirtualFabric>\n" for i in range(VFS))
    return ("<Config><Common><DeviceGroups>"
            "<DeviceGroup><Name>Three</Name><NodeDesc>cn0003*</NodeDesc>"
            "</DeviceGroup><DeviceGroup><Name>Four</Name>"
            "<NodeDesc>cn0004*</NodeDesc></DeviceGroup></DeviceGroups>"
            f"<VirtualFabrics>\n{vfs}</VirtualFabrics></Common></Config>\n")


def unconfigured(tap, sim, conf):
    """cn0002 is in no VF: full in the default partition, limited with
    disconnect_unconfigured=on (cn0001 is the SM: full either way)."""
    seen = {}
    for flag in ("off", "on"):
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            engine="fattree", options=f"log_level=info config={conf} "
            f"disconnect_unconfigured={flag}"), plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
        for n in nodes.values():
            if n["desc"].split()[0] in ("cn0001", "cn0002"):
                seen[(flag, n["desc"].split()[0])] = \
                    [k for k in sim.pkeys(n["lid"]) if k & 0x7fff]
        sim.stop_opensm()
    tap.ok(seen.get(("off", "cn0002")) == [0xffff] and
           seen.get(("on", "cn0002")) == [0x7fff] and
           seen.get(("on", "cn0001")) == [0xffff],
           "disconnect_unconfigured: an unconfigured host full by default, "
           "limited with it on; the SM full either way", str(seen))


def run(tap, sim, conf, label):
    sim.start_opensm(conf_lines=vftest.plugin_conf(
        engine="fattree", options=f"log_level=info config={conf}"),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    log = sim.log_text()
    nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    host = next(n for n in nodes.values() if n["desc"].startswith("cn0003"))
    sw_guid, sw_port = host["links"][1]
    own = [k for k in sim.pkeys(host["lid"]) if k & 0x7fff]
    facing = [k for k in sim.pkeys(nodes[sw_guid]["lid"], sw_port)
              if k & 0x7fff]
    # one line per VF and sweep, with the count of ports and an example
    lines = re.findall(
        r"VirtualFabric 'V\d+' \(P_Key (0x[0-9a-f]+)\) dropped on 2 ports "
        r"\(e\.g\. 0x[0-9a-f]+ 'cn0003 HCA-1' port 1\): their P_Key tables "
        r"hold 64 entries", log)
    sweeps = len(re.findall(r"memberships dropped for P_Key table size",
                            log))
    dropped = sorted({int(m, 16) for m in lines})
    want_dropped = [0x100 + i for i in range(CAP - 1, VFS)]
    tap.ok(dropped == want_dropped and sweeps >= 1 and
           len(lines) == len(want_dropped) * sweeps and
           "dropped on port" not in log,
           f"{label}: the last {VFS - CAP + 1} VFs are dropped from cn0003 "
           "and cn0004, one line per VF and sweep with P_Key, port count and "
           "an example port", f"{[hex(d) for d in dropped]}, "
           f"{len(lines)} lines, {sweeps} sweeps")
    tap.ok(len(own) == CAP and {k & 0x7fff for k in own} ==
           {0x7fff} | {0x100 + i for i in range(CAP - 1)},
           f"{label}: cn0003's table holds the default partition and the "
           f"first {CAP - 1} VFs", f"{len(own)} entries")
    tap.ok({k & 0x7fff for k in facing} == {k & 0x7fff for k in own},
           f"{label}: the switch port facing it enforces the same")
    sim.stop_opensm()
    return dropped


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    work = vfsim.tempfile.mkdtemp(prefix="vf-cap-")
    net = os.path.join(work, "ft.net")
    conf = os.path.join(work, "vf.xml")
    topogen.fattree2(leaves=2, spines=1, hosts=4).write(net)
    with open(conf, "w") as fh:
        fh.write(config())
    runs = []
    for label in ("first run", "second run"):
        with vfsim.Sim(net, label.replace(" ", "-"), tap=tap) as sim:
            sim.start_ibsim()
            runs.append(run(tap, sim, conf, label))
    tap.ok(runs[0] == runs[1], "both runs drop the same VFs")
    with vfsim.Sim(net, "unconfigured", tap=tap) as sim:
        sim.start_ibsim()
        unconfigured(tap, sim, conf)
    vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
