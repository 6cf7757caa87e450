#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The routing settings of a vFabric configuration (opafm.xml style:
<Sm><FatTreeTopology>, <DGShortestPathTopology>, <DeviceGroups>) loaded by
the plugin through config=, in stock OpenSM on ibsim:

- fattree with CoreSwitches and RouteLast named by DeviceGroups programs
  exactly the tables the CLI computes with the same groups given as GUID
  lists, and with --config;
- dgshortestpath with a RoutingOrder of DeviceGroups programs exactly what
  the CLI computes from the equivalent --dg/--routing-order flags;
- a broken file on SIGHUP is logged with file, line and object, the last
  good configuration is kept and the tables do not change;
- a broken file at start is logged and OpenSM runs without it (tenants
  apart: no last good copy in a new cache directory).
"""

import os
import signal

import topogen
import vfsim
import vftest

GROUPS = """\
    <DeviceGroups>
      <DeviceGroup><Name>All</Name><Select>All</Select></DeviceGroup>
      <DeviceGroup><Name>Spines</Name><NodeDesc>spine*</NodeDesc></DeviceGroup>
      <DeviceGroup><Name>Storage</Name><NodeDesc>stor[01-02]*</NodeDesc></DeviceGroup>
      <DeviceGroup><Name>Admin</Name><NodeDesc>admin*</NodeDesc></DeviceGroup>
    </DeviceGroups>
    <Applications>
      <Application><Name>AllOthers</Name><Select>UnmatchedServiceID</Select></Application>
    </Applications>
    <VirtualFabrics>
      <VirtualFabric><Name>Default</Name><Enable>1</Enable><PKey>0x0001</PKey>
        <Member>All</Member><Application>AllOthers</Application></VirtualFabric>
    </VirtualFabrics>
"""
FATTREE = """<?xml version="1.0"?>
<Config>
  <Common>
""" + GROUPS + """\
    <Sm>
      <RoutingAlgorithm>fattree</RoutingAlgorithm>
      <FatTreeTopology>
        <CoreSwitches>Spines</CoreSwitches>
        <RouteLast>Storage</RouteLast>
      </FatTreeTopology>
    </Sm>
  </Common>
</Config>
"""
DGSP = FATTREE.replace("""      <FatTreeTopology>
        <CoreSwitches>Spines</CoreSwitches>
        <RouteLast>Storage</RouteLast>
      </FatTreeTopology>""", """      <DGShortestPathTopology>
        <RoutingOrder>
          <DeviceGroup>Storage</DeviceGroup>
          <DeviceGroup>Admin</DeviceGroup>
        </RoutingOrder>
      </DGShortestPathTopology>""")
# the VirtualFabric names an unknown group; errors point at its line
BROKEN = FATTREE.replace("<Member>All</Member>", "<Member>Nobody</Member>")
VF_LINE = next(i + 1 for i, line in enumerate(BROKEN.splitlines())
               if "<VirtualFabric>" in line)


def write(path, text):
    with open(path, "w") as fh:
        fh.write(text)


def guids(fab, prefix):
    return ",".join(hex(n.guid) for n in fab.switches() + fab.hcas()
                    if n.desc.startswith(prefix))


def start(sim, engine, conf):
    """ibsim, then OpenSM with the plugin reading conf; until SUBNET UP."""
    sim.start_ibsim()
    sim.start_opensm(conf_lines=vftest.plugin_conf(
        engine=engine, options=f"log_level=info config={conf}"),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()


def run_fattree(tap, work, net, fab):
    conf = os.path.join(work, "fattree.xml")
    write(conf, FATTREE)
    label = "xml-fattree"
    with vfsim.Sim(net, label, tap=tap) as sim:
        start(sim, "fattree", conf)
        log = sim.log_text()
        tap.ok(f"config {conf}: 1 applications, 4 device groups, 1 virtual "
               "fabrics" in log, f"{label}: the plugin read the config")
        vftest.engine_was_used(tap, sim, label, engine="fattree")
        # the same groups as GUID lists give the same tables ...
        vftest.verify_fabric(tap, sim, label, engine="fattree", offline=[
            "--core-switches", guids(fab, "spine"),
            "--route-last", guids(fab, "stor")])
        before = vftest.parse_lfts(sim.dump_lfts())
        # ... and so does the CLI reading the same file
        topo = os.path.join(sim.workdir, f"{label}.ibnetdiscover")
        offline = os.path.join(work, "xml.dump")
        res = vftest.vfabric("route", "--engine", "fattree", "--topo", topo,
                             "--config", conf, "-o", offline)
        tap.ok(res.returncode == 0 and vftest.parse_lfts(offline) == before,
               f"{label}: vfabric route --config computes the same tables",
               res.stderr)
        broken_at_runtime(tap, sim, label, conf, before)
        sim.stop_opensm()


def broken_at_runtime(tap, sim, label, conf, before):
    """SIGHUP with a broken file: errors named, last good config kept."""
    write(conf, BROKEN)
    since = sim.log_offset()
    sim.osms[-1].popen.send_signal(signal.SIGHUP)
    sim.wait_subnet_up(since=since)
    log = sim.log_text(since)
    tap.ok(f"ERR VF0801: {conf}:{VF_LINE}: VirtualFabric 'Default': Member names "
           "unknown DeviceGroup 'Nobody'" in log,
           f"{label}: the broken file's error names file, line and object",
           vfsim.tail(sim.osms[-1].log))
    tap.ok(f"ERR VF0802: {conf}:{VF_LINE}: VirtualFabric 'Default': "
           "Member names unknown DeviceGroup 'Nobody'; keeping the last "
           f"good configuration ({conf}, read " in log and
           log.count("ERR VF0802") == 1, f"{label}: the last good "
           "configuration is kept, said once with file, line and where "
           "the kept one came from")
    tap.ok("fattree routed" in log, f"{label}: the SIGHUP sweep rerouted")
    after = vftest.parse_lfts(sim.dump_lfts())
    tap.ok(after == before, f"{label}: the tables did not change",
           "\n".join(vftest.diff_lfts(before, after)))


def run_dgshortestpath(tap, work, net):
    conf = os.path.join(work, "dgsp.xml")
    write(conf, DGSP)
    label = "xml-dgsp"
    with vfsim.Sim(net, label, tap=tap) as sim:
        start(sim, "dgshortestpath", conf)
        vftest.engine_was_used(tap, sim, label, engine="dgshortestpath")
        tap.ok("dgshortestpath: routing order: Storage 2, Admin 2" in
               sim.log_text(), f"{label}: the RoutingOrder of the file's "
               "DeviceGroups was used")
        vftest.verify_fabric(tap, sim, label, engine="dgshortestpath",
                             # the file's own pattern: one NodeDesc matcher
                             offline=["--dg", "s=desc:stor[01-02]*",
                                      "--dg", "a=desc:admin*",
                                      "--routing-order", "s:a"])
        sim.stop_opensm()


def run_broken_at_start(tap, work, net):
    conf = os.path.join(work, "broken.xml")
    write(conf, BROKEN)
    label = "xml-broken"
    with vfsim.Sim(net, label, tap=tap) as sim:
        start(sim, "fattree", conf)
        log = sim.log_text()
        tap.ok(f"ERR VF0801: {conf}:{VF_LINE}: VirtualFabric 'Default'" in log and
               f"ERR VF0802: {conf}:{VF_LINE}: VirtualFabric 'Default'"
               in log and "tenants apart" in log, f"{label}: errors "
               "logged, and the plugin says it keeps the tenants apart "
               "without the file (no last good copy)")
        # the expected errors above are all logged before routing starts
        after_errors = log.find("\n", log.find("ERR VF0802")) + 1
        vftest.engine_was_used(tap, sim, label, engine="fattree",
                               since=len(log[:after_errors].encode()))
        vftest.verify_fabric(tap, sim, label, engine="fattree")
        sim.stop_opensm()


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    work = vfsim.tempfile.mkdtemp(prefix="vf-xml-")
    net = os.path.join(work, "ft.net")
    fab = topogen.fattree2(leaves=8, spines=4, hosts=8, storage=2, admin=2)
    fab.write(net)
    run_fattree(tap, work, net, fab)
    run_dgshortestpath(tap, work, net)
    run_broken_at_start(tap, work, net)
    vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
