#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""OpenSM's own partitions.conf (partition_config_file), read by the
plugin, on ibsim, with every P_Key table read back:

- with vFabric statements (DeviceGroup, @group members, app=, security=):
  the plugin compiles it; the tables equal `vfabric resolve` on the
  discovered fabric; the tenants are apart;
- a stock file: read by the plugin with stock's meaning and written
  through its generated file; the tables are what stock OpenSM programs;
- a file with vFabric statements and an error, at start, without a last
  good copy in the cache: tenants apart (every host a limited member of
  the default partition, on_config_error's default), said plainly; the
  same error later, on SIGHUP: the last good tables stay.
"""

import json
import os
import signal

import topogen
import vfsim
import vftest

FULL = 0x8000
VFABRIC = """# tenants by NodeDesc, storage for both
DeviceGroup TenantA : desc=cn000[1-6]* ;
DeviceGroup TenantB : desc="cn00[07-14]*" ;
DeviceGroup Storage : desc=stor* ;
Default=0x7fff, ipoib : ALL_SWITCHES=full ;
tenantA=0x0010, ipoib : @TenantA=full ;
tenantB=0x0020, ipoib, mtu=4 : @TenantB=full ;
storage=0x0030 : @Storage=full, @TenantA, @TenantB ;
"""
STOCK = """Default=0x7fff, ipoib : ALL=full ;
storage=0x0002 : {stor01}=full, {cn0001} ;
"""
BROKEN = VFABRIC.replace("@TenantB=full", "@TenantC=full")


def read_tables(sim):
    """{host: set of its P_Key entries}."""
    nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    return {n["desc"].split()[0]:
            {k for k in sim.pkeys(n["lid"]) if k & 0x7fff}
            for n in nodes.values() if n["kind"] == "Ca"}


def resolved(sim, conf, sm_host):
    res = vftest.vfabric("resolve", conf, "--topo", sim.discover(),
                         "--json", "--sm", f"{sm_host} HCA-1")
    if res.returncode:
        return {"error": res.stderr}
    out = {}
    for port in json.loads(res.stdout)["ports"]:
        if port["port"]:
            out[port["desc"].split()[0]] = {
                int(e["pkey"], 16) | (FULL if e["membership"] == "full"
                                      else 0) for e in port["pkeys"]}
    return out


def start(sim, conf):
    sim.start_opensm(conf_lines=vftest.plugin_conf(
        engine="fattree", options="log_level=info",
        extra=[f"partition_config_file {conf}"]),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()


def run_vfabric(tap, sim, conf, sm_host):
    start(sim, conf)
    log = sim.log_text()
    tap.ok(f"config {conf}: 0 applications, 3 device groups, 4 virtual "
           "fabrics" in log and "vfabric: partitions: 4 partitions" in log,
           "vFabric partitions.conf: compiled and written by the plugin",
           vfsim.tail(sim.osms[-1].log))
    tables = read_tables(sim)
    want = resolved(sim, conf, sm_host)
    tap.ok(tables == want, "every host's table equals vfabric resolve's",
           f"{tables}\nwant {want}")
    a = tables["cn0002"]
    b = tables["cn0009"]
    tap.ok(0x8010 in a and 0x8020 in b and 0x0030 in a and 0x0030 in b and
           not {k for k in a & b if k & FULL},
           "tenants hold their own P_Key full, storage's limited, and "
           "share no P_Key both are full members of")
    tap.ok(0x8030 in tables["stor01"], "storage hosts are full members")
    return tables


def break_at_runtime(tap, sim, conf, before):
    with open(conf, "w") as fh:
        fh.write(BROKEN)
    since = sim.log_offset()
    sim.osms[-1].popen.send_signal(signal.SIGHUP)
    sim.wait_subnet_up(since=since)
    log = sim.log_text(since)
    tap.ok("partition 'tenantB': full member '@TenantC' names unknown "
           "DeviceGroup 'TenantC'" in log and
           "keeping the last good configuration" in log,
           "broken on SIGHUP: the error is named, the last good kept")
    tap.ok(read_tables(sim) == before, "the tables did not change")
    sim.stop_opensm()


def run_stock(tap, sim, conf, guids):
    with open(conf, "w") as fh:
        fh.write(STOCK.format(**guids))
    start(sim, conf)
    log = sim.log_text()
    tap.ok(f"config {conf}: 0 applications, 0 device groups, 2 virtual "
           "fabrics; a stock partitions.conf" in log and
           "vfabric: partitions: 2 partitions" in log,
           "a stock file is read by the plugin and written through its "
           "generated file", vfsim.tail(sim.osms[-1].log))
    tables = read_tables(sim)
    tap.ok(tables["stor01"] == {0xffff, 0x8002} and
           tables["cn0001"] == {0xffff, 0x0002} and
           tables["cn0009"] == {0xffff},
           "OpenSM applied it as written", str(tables))
    sim.stop_opensm()
    # the same file named by config= (point 6: it used to apply nothing)
    sim.start_opensm(conf_lines=vftest.plugin_conf(
        engine="fattree", options=f"log_level=info config={conf}"),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    via_config = read_tables(sim)
    tap.ok("; a stock partitions.conf" in sim.log_text() and
           via_config == tables, "named by config=, the stock file gives "
           "the same tables", f"{via_config}\nwant {tables}")
    sim.stop_opensm()
    # and stock OpenSM alone, the reference
    sim.start_opensm(conf_lines=["routing_engine minhop",
                                 f"partition_config_file {conf}"])
    sim.wait_subnet_up()
    alone = read_tables(sim)
    tap.ok(alone == tables, "stock OpenSM alone programs the same tables "
           "from it", f"{alone}\nwant {tables}")
    sim.stop_opensm()


def run_broken_at_start(tap, sim, conf):
    with open(conf, "w") as fh:
        fh.write(BROKEN)
    start(sim, conf)
    log = sim.log_text()
    tap.ok("ERR VF0801:" in log and "no last good configuration in " in
           log and "tenants apart: every end port a limited member of the "
           "default partition, the SM's port and switch port 0s full "
           "(on_config_error=last-good)" in log and
           log.count("ERR VF0802:") == 1, "broken at start without a last "
           "good copy: error named, tenants apart said once",
           vfsim.tail(sim.osms[-1].log))
    tables = read_tables(sim)
    sm = sim.osms[-1].node
    tap.ok(tables.pop(sm) == {0xffff} and
           all(t == {0x7fff} for t in tables.values()),
           "the SM's host a full member of the default partition, every "
           "other host a limited one, of nothing else", str(tables))
    sim.stop_opensm()


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    work = vfsim.tempfile.mkdtemp(prefix="vf-pconf-")
    net = os.path.join(work, "ft.net")
    conf = os.path.join(work, "partitions.conf")
    fab = topogen.fattree2(leaves=4, spines=2, hosts=4, storage=2)
    fab.write(net)
    guids = {n.id: f"0x{n.guid + 1:016x}" for n in fab.hcas()}
    with open(conf, "w") as fh:
        fh.write(VFABRIC)
    with vfsim.Sim(net, "pconf", tap=tap) as sim:
        sim.start_ibsim()
        sm_host = sim.default_sm_node()
        before = run_vfabric(tap, sim, conf, sm_host)
        break_at_runtime(tap, sim, conf, before)
    for name, fn in (("pconf-stock", run_stock),
                     ("pconf-broken", run_broken_at_start)):
        with vfsim.Sim(net, name, tap=tap) as sim:
            sim.start_ibsim()
            if fn is run_stock:
                fn(tap, sim, conf, guids)
            else:
                fn(tap, sim, conf)
    vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
