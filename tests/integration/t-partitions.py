#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Virtual fabrics programmed into real P_Key tables: stock OpenSM with the
plugin reading an opafm.xml-style file on ibsim; every table read back
with smpquery, on the hosts and on the switch ports facing them, and
compared with what the configuration means (worked out here, in Python,
from the tenant layout, not from the plugin's output):

- two tenants and a storage VF: members full, LimitedMembers limited,
  the default partition limited for configured hosts, full for the SM;
- IPoIB broadcast groups only where the VF's applications take IPoIB
  (blocking ones elsewhere), and a VF's own MulticastGroup;
- live reconfiguration by SIGHUP: a tenant added and one removed; every
  other P_Key keeps its index, the removed one is gone everywhere;
- an edit alone (no SIGHUP): the plugin notices (config_poll) and the
  tables follow;
- a broken file by SIGHUP: the tables do not change;
- a restart with a VF inserted before the others: automatic P_Keys keep
  their values (remembered in OpenSM's cache directory);
- a standby SM (its own, empty cache) taking over: every host keeps every
  P_Key at its index (new P_Keys come from a hash of the VF's name, so
  both SMs compute the same ones);
- the subnet changing between discovery and routing (injected): the sweep
  builds its model again (the metrics count two), the tables are right.
"""

import os
import re

import topogen
import vfsim
import vftest

HEAD = """<?xml version="1.0"?>
<Config><Common>
<Applications>
 <Application><Name>AllOthers</Name><Select>UnmatchedServiceID</Select></Application>
 <Application><Name>IPoIB</Name>
  <MGIDMasked>0xff00401b00000000:0*0xff00ffff0000ffff:0xffffffff00000000</MGIDMasked>
 </Application>
 <Application><Name>McastA</Name>
  <MGID>0xff15123400000000:0x0000000000000001</MGID></Application>
</Applications>
<DeviceGroups>
 <DeviceGroup><Name>TenantA</Name><NodeDesc>cn[0001-0006]*</NodeDesc></DeviceGroup>
 <DeviceGroup><Name>TenantB</Name><NodeDesc>cn[0007-0010]*</NodeDesc></DeviceGroup>
 <DeviceGroup><Name>TenantC</Name><NodeDesc>cn[0011-0014]*</NodeDesc></DeviceGroup>
 <DeviceGroup><Name>Storage</Name><NodeDesc>stor*</NodeDesc></DeviceGroup>
</DeviceGroups>
<VirtualFabrics>
"""
TAIL = """</VirtualFabrics>
<Sm><Multicast><MulticastGroup><VirtualFabric>TenantA</VirtualFabric>
 <MGID>0xff15123400000000:0x0000000000000001</MGID>
</MulticastGroup></Multicast></Sm>
</Common></Config>
"""
VF_A = """ <VirtualFabric><Name>TenantA</Name><Enable>1</Enable><Security>1</Security>
  <Member>TenantA</Member><Application>AllOthers</Application>
  <Application>IPoIB</Application><Application>McastA</Application>
 </VirtualFabric>
"""
VF_B = """ <VirtualFabric><Name>TenantB</Name><Enable>1</Enable><PKey>0x0010</PKey>
  <Member>TenantB</Member><Application>AllOthers</Application></VirtualFabric>
"""
VF_C = """ <VirtualFabric><Name>TenantC</Name><Enable>1</Enable><PKey>0x0020</PKey>
  <Member>TenantC</Member><Application>AllOthers</Application>
  <Application>IPoIB</Application></VirtualFabric>
"""
VF_STORAGE = """ <VirtualFabric><Name>Storage</Name><Enable>1</Enable><Security>1</Security>
  <Member>Storage</Member><LimitedMember>TenantA</LimitedMember>
  <LimitedMember>TenantB</LimitedMember><LimitedMember>TenantC</LimitedMember>
  <Application>AllOthers</Application></VirtualFabric>
"""
VF_NEW = """ <VirtualFabric><Name>Scratch</Name><Enable>1</Enable><Security>1</Security>
  <Member>TenantC</Member><Application>AllOthers</Application></VirtualFabric>
"""
FULL = 0x8000


def hashed(name):
    """Where a new automatic P_Key starts: 1 + FNV-1a(name) % 0x7ffe."""
    h = 2166136261
    for b in name.encode():
        h = ((h ^ b) * 16777619) & 0xffffffff
    return 1 + h % 0x7ffe


PK_A, PK_S, PK_NEW = hashed("TenantA"), hashed("Storage"), hashed("Scratch")


def hosts_in(first, last):
    return {f"cn{i:04d}" for i in range(first, last + 1)}


TENANTS = {"A": hosts_in(1, 6), "B": hosts_in(7, 10), "C": hosts_in(11, 14)}
STORAGE = {"stor01", "stor02"}


def expected(host, pkeys, sm_host):
    """The P_Keys (with the full bit) host must hold.  pkeys: VF -> P_Key
    of the VFs defined; the default partition is limited for hosts some VF
    names, full for the SM's host."""
    out = {0x7fff | (FULL if host == sm_host else 0)}
    for vf, members in (("A", TENANTS["A"]), ("B", TENANTS["B"]),
                        ("C", TENANTS["C"])):
        if vf in pkeys and host in members:
            out.add(pkeys[vf] | FULL)
    if "S" in pkeys:	  # Storage: LimitedMember all three tenant groups
        if host in STORAGE:
            out.add(pkeys["S"] | FULL)
        elif any(host in TENANTS[t] for t in "ABC"):
            out.add(pkeys["S"])
    return out


def read_tables(sim):
    """{host: (its P_Key table, the facing switch port's table)}."""
    nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    out = {}
    for guid, n in nodes.items():
        if n["kind"] != "Ca":
            continue
        host = n["desc"].split()[0]
        sw_guid, sw_port = n["links"][1]
        out[host] = (sim.pkeys(n["lid"]),
                     sim.pkeys(nodes[sw_guid]["lid"], sw_port))
    return out


def check_tables(tap, label, tables, pkeys, sm_host):
    bad = []
    for host, (own, facing) in sorted(tables.items()):
        want = expected(host, pkeys, sm_host)
        if {k for k in own if k & 0x7fff} != want:
            bad.append(f"{host}: {sorted(map(hex, own))} want "
                       f"{sorted(map(hex, want))}")
        # OpenSM fills the facing switch port for enforcement (the SM's
        # own port too); limited and full of one P_Key may merge there
        if {k & 0x7fff for k in facing if k & 0x7fff} != \
                {k & 0x7fff for k in want}:
            bad.append(f"switch port facing {host}: "
                       f"{sorted(map(hex, facing))}")
    tap.ok(not bad, f"{label}: every host's P_Key table and the switch "
           "port facing it hold exactly the configured partitions",
           "\n".join(bad[:6]))


def index_of(table, pkey):
    for i, k in enumerate(table):
        if k & 0x7fff == pkey:
            return i
    return None


def mgids(sim, node=None):
    """{MGID: rate code} of the multicast groups the SA shows a host
    (only those of partitions it is in)."""
    out = sim.run_diag(["saquery", "-g"], node=node)
    return {m: int(r, 16) & 0x3f for m, r in re.findall(
        r"MGID\.+(\S+).*?Rate\.+(0x[0-9A-Fa-f]+)", out, re.S)}


def join(sim, host, mgid, pkey):
    """The SA's answer to an IPoIB-style join from host (MGID, PortGID,
    P_Key, JoinState full member): its status line and record."""
    return sim.run_diag([vftest.VFABRIC_SA, "join", "--mgid", mgid,
                         "--pkey", hex(pkey)], node=host,
                        check=False).strip()


def sighup(sim, conf, text, after=None):
    return sim.reload_config(conf, text, after)


def first_run(tap, sim, conf, sm_host):
    sim.start_opensm(name="opensm1", conf_lines=vftest.plugin_conf(
        engine="fattree",
        options=f"log_level=info config={conf} config_poll=1"),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    log = sim.log_text()
    tap.ok(re.search(r"vfabric: partitions: 4 partitions for \d+ end ports",
                     log), "the plugin wrote 4 partitions (default, A, B, "
           "storage)", vfsim.tail(sim.osms[-1].log))
    tap.ok("ERR" not in "".join(l for l in log.splitlines()
                                if "vfabric" in l), "no plugin error logged")
    auto = vftest.assigned_pkeys(sim)
    tap.ok(auto == {"TenantA": PK_A, "Storage": PK_S}, "automatic P_Keys "
           "from the hash of the VF names, remembered in the cache",
           str(auto))
    pkeys = {"A": PK_A, "B": 0x10, "S": PK_S}
    tables = read_tables(sim)
    check_tables(tap, "initial", tables, pkeys, sm_host)
    check_index0(tap, "initial", tables, "ABS", pkeys)
    groups = mgids(sim)
    bcast_a = f"ff12:401b:{PK_A | FULL:04x}::ffff:ffff"
    tap.ok(groups.get(bcast_a, 0) < 22 and
           groups.get("ff12:401b:ffff::ffff:ffff", 0) < 22 and
           bcast_a in groups and "ff12:401b:ffff::ffff:ffff" in groups,
           "usable IPoIB broadcast groups for TenantA and the default "
           "partition", str(groups))
    # saquery -g leaves out groups with Q_Key 0: ask for this one
    group = sim.run_diag(["saquery", "MCMR", "--mgid", "ff15:1234::1"],
                         check=False)
    tap.ok("MGID....................ff15:1234::1" in group and
           f"pkey....................0x{PK_A | FULL:x}" in group and
           "Scope...................0x5" in group,
           "TenantA's MulticastGroup ff15:1234::1 exists in its partition, "
           "with its scope", group)
    # TenantB's and Storage's applications take no IPoIB MGID: their
    # broadcast groups exist at 600 Gb/s, so no port can join them
    blocked = {**mgids(sim, node="cn0007"), **mgids(sim, node="stor01")}
    # join as IPoIB does (vfabric-sa join): TenantA's host gets in,
    # TenantB's is refused
    # ... of the broadcast group of the P_Key at its index 0, as ib0 does
    idx0 = tables["cn0002"][0][0] | FULL
    joined = join(sim, "cn0002", f"ff12:401b:{idx0:04x}::ffff:ffff", idx0)
    refused = join(sim, "cn0007", "ff12:401b:8010::ffff:ffff", 0x8010)
    tap.ok(joined.startswith("status 0x0000") and refused.startswith(
        "status ") and not refused.startswith("status 0x0000"),
           "an IPoIB join of index 0's broadcast group: accepted in "
           "TenantA, refused in TenantB's blocking group",
           f"A: {joined} B: {refused}")
    tap.ok(blocked.get("ff12:401b:8010::ffff:ffff") == 22 and
           blocked.get(f"ff12:401b:{PK_S | FULL:04x}::ffff:ffff") == 22,
           "TenantB and Storage get IPoIB groups that block joins "
           "(rate 600 Gb/s)", str(blocked))
    return tables


def index0(host, order, pkeys):
    """The FM's index 0 (sm_compute_portPkeys): the P_Key of the first VF
    in config order (`order`: "A", "B", "C", "S") that host is in; the
    default partition when none."""
    for vf in order:
        if vf in pkeys and (host in TENANTS.get(vf, ()) or (
                vf == "S" and (host in STORAGE or
                               any(host in TENANTS[t] for t in "ABC")))):
            return pkeys[vf]
    return 0x7fff


def check_index0(tap, label, tables, order, pkeys):
    bad = [f"{h}: index 0 holds 0x{own[0]:04x}, want "
           f"0x{index0(h, order, pkeys):04x}"
           for h, (own, _) in sorted(tables.items())
           if not own or own[0] & 0x7fff != index0(h, order, pkeys)]
    tap.ok(not bad, f"{label}: every host holds its first VF's P_Key at "
           "index 0 (the FM's rule; IPoIB's ib0 uses it)",
           "\n".join(bad[:6]))


def reconfigure(tap, sim, conf, sm_host, before):
    """Remove TenantB, add TenantC: other indexes stay put."""
    sighup(sim, conf, HEAD + VF_A + VF_C + VF_STORAGE + TAIL)
    after = read_tables(sim)
    pkeys = {"A": PK_A, "C": 0x20, "S": PK_S}
    check_tables(tap, "B removed, C added", after, pkeys, sm_host)
    check_index0(tap, "B removed, C added", after, "ACS", pkeys)
    # index 0 follows the FM's rule: on TenantB's hosts Storage takes it
    # (their first VF now), on TenantC's hosts TenantC (listed before
    # Storage); every other P_Key stays where it was
    old0 = {h: index0(h, "ABS", {"A": PK_A, "B": 0x10, "S": PK_S})
            for h in before}
    moved = [f"{h}: 0x{k:04x} index {index_of(before[h][0], k)} -> "
             f"{index_of(after[h][0], k)}"
             for h in before for k in (0x7fff, PK_A, PK_S)
             if index_of(before[h][0], k) is not None and
             index_of(before[h][0], k) != index_of(after[h][0], k) and
             k not in (old0[h], index0(h, "ACS", pkeys))]
    tap.ok(not moved, "every P_Key that stayed kept its index in every "
           "host's table, but for the one taking or leaving index 0",
           "\n".join(moved[:6]))
    gone = [h for h, (own, facing) in after.items()
            if index_of(own, 0x10) is not None or
            index_of(facing, 0x10) is not None]
    tap.ok(not gone, "TenantB's P_Key is gone from every host and switch "
           "port", " ".join(gone))
    return after


def edited(tap, sim, conf, sm_host):
    """TenantB back, by editing the file only: applied within seconds."""
    since = sim.log_offset()
    with open(conf + ".new", "w") as fh:
        fh.write(HEAD + VF_A + VF_B + VF_C + VF_STORAGE + TAIL)
    os.rename(conf + ".new", conf)
    sim.wait_log("changed: asking for a heavy sweep", since=since,
                 timeout=30)
    sim.wait_subnet_up(since=since)
    after = read_tables(sim)
    check_tables(tap, "edited without SIGHUP", after,
                 {"A": PK_A, "B": 0x10, "C": 0x20, "S": PK_S}, sm_host)
    return after


def broken(tap, sim, conf, sm_host, before):
    since = sim.log_offset()
    sighup(sim, conf, HEAD + VF_A + VF_C.replace(
        "<Member>TenantC</Member>", "<Member>Nobody</Member>") +
        VF_STORAGE + TAIL, after="keeping the last good configuration")
    log = sim.log_text(since)
    tap.ok("ERR VF0801:" in log and "unknown DeviceGroup 'Nobody'" in log
           and "keeping the last good configuration" in log,
           "a broken file on SIGHUP: error logged, last good kept")
    tap.ok(read_tables(sim) == before, "the P_Key tables did not change")


def restart(tap, sim, conf, sm_host):
    """A new automatic VF listed first: the old ones keep their P_Keys."""
    sim.stop_opensm()
    # the same name, so the same cache directory; the old log must go, or
    # its SUBNET UP would be taken for the new one's
    os.remove(sim.osms[-1].log)
    with open(conf, "w") as fh:
        fh.write(HEAD + VF_NEW + VF_A + VF_C + VF_STORAGE + TAIL)
    sim.start_opensm(name="opensm1", conf_lines=vftest.plugin_conf(
        engine="fattree", options=f"log_level=info config={conf}"),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    auto = vftest.assigned_pkeys(sim)
    tap.ok(auto == {"TenantA": PK_A, "Storage": PK_S, "Scratch": PK_NEW},
           "after a restart TenantA and Storage keep their P_Keys; the new "
           "VF listed before them gets its own", str(auto))
    tables = read_tables(sim)
    scratch = [h for h, (own, _) in tables.items()
               if index_of(own, PK_NEW) is not None]
    tap.ok(set(scratch) == TENANTS["C"], "Scratch on TenantC's "
           "hosts only", " ".join(sorted(scratch)))


def vf_entries(table):
    """{P_Key: index} of a table, the default partition left out (it
    follows the SM: full on the SM's host only)."""
    return {k & 0x7fff: i for i, k in enumerate(table)
            if k & 0x7fff and k & 0x7fff != 0x7fff}


def standby_takes_over(tap, sim, conf):
    """A second SM on cn0002 (lower priority, empty cache) takes over."""
    before = read_tables(sim)
    master = sim.osms[-1]
    standby = sim.start_opensm(
        name="opensm2", node="cn0002", conf_lines=vftest.plugin_conf(
            engine="fattree", options=f"log_level=info config={conf}",
            extra=["sm_priority 0", "polling_retry_number 2",
                   "sminfo_polling_timeout 1000",
                   # a loaded machine answers slowly: a timed-out SMInfo
                   # query to the master would make this SM a master too
                   "transaction_timeout 1000", "transaction_retries 5"]),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_log("Entering STANDBY state", osm=standby, timeout=180)
    sim.stop_opensm(osm=master)
    sim.wait_subnet_up(osm=standby, timeout=120)
    tap.ok("vfabric: partitions:" in sim.log_text(osm=standby),
           "the standby, now master, wrote the partitions")
    after = read_tables(sim)
    moved = [f"{h}: {vf_entries(before[h][0])} -> {vf_entries(t[0])}"
             for h, t in after.items()
             if vf_entries(before[h][0]) != vf_entries(t[0])]
    tap.ok(not moved, "after the take-over every host holds the same "
           "P_Keys at the same indexes", "\n".join(moved[:5]))
    sim.stop_opensm(osm=standby)


def mismatch(tap, net, conf):
    """A port whose table differs from the plan (injected: ibsim takes
    every table): logged, a heavy sweep forced, three times at most."""
    with vfsim.Sim(net, "pkeys-mismatch", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            engine="fattree", options=f"log_level=info config={conf}",
            plugin="vfabric-testhooks"),
            plugin_dir=vftest.TEST_HOOKS_DIR,
            env={"VFABRIC_TEST_PKEY_MISMATCH": "1"})
        sim.wait_log(r"still differ from the plan after 3 forced sweeps",
                     timeout=120)
        log = sim.log_text()
        forced = [f"forcing a heavy sweep ({i} of 3)" in log
                  for i in (1, 2, 3)]
        tap.ok(all(forced) and log.count("ERR VF0807:") >= 4 and
               log.count("vfabric: partitions: 4 partitions") >= 4,
               "a table that differs from the plan: named, three heavy "
               "sweeps forced (each re-planned), then the plugin waits",
               vfsim.tail(sim.osms[-1].log))
        sim.stop_opensm()


def subnet_changed(tap, net, conf):
    """The subnet changes between discovery (the partitions) and routing
    (injected: the model's check against the subnet at routing says so):
    the sweep builds its model again and resolves the groups on it for
    partition-aware routing, the routing and the P_Key tables come out as
    in a quiet sweep."""
    with vfsim.Sim(net, "pkeys-changed", tap=tap) as sim:
        metrics = os.path.join(sim.workdir, "m.prom")
        sim.start_ibsim()
        sm_host = sim.default_sm_node()
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            engine="fattree", options=f"log_level=info config={conf} "
            f"metrics_file={metrics} partition_routing=balance",
            plugin="vfabric-testhooks"),
            plugin_dir=vftest.TEST_HOOKS_DIR,
            env={"VFABRIC_TEST_SUBNET_CHANGED": "1"})
        sim.wait_subnet_up()
        vfsim.wait_until(lambda: os.path.exists(metrics), 30,
                         "the metrics file")
        log = sim.log_text()
        tap.ok("the subnet changed after discovery; the fabric model is "
               "built again" in log and "vfabric: fattree routed" in log and
               "ERR" not in "".join(l for l in log.splitlines()
                                    if "vfabric" in l),
               "subnet changed before routing: the model is built again, "
               "fattree routes it, no error", vfsim.tail(sim.osms[-1].log))
        with open(metrics) as fh:
            text = fh.read()
        got = [re.search(rf"^opensm_vfabric_last_sweep_{n} (\S+)$", text,
                         re.M) for n in ("fabric_models",
                                         "group_resolutions")]
        got = tuple(float(m.group(1)) if m else None for m in got)
        tap.ok(got == (2.0, 2.0), "metrics: two models and two "
               "resolutions in that sweep (the partitions', and partition-"
               "aware routing's on the new model)", str(got))
        check_tables(tap, "subnet changed before routing", read_tables(sim),
                     {"A": PK_A, "B": 0x10, "S": PK_S}, sm_host)
        sim.stop_opensm()


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    work = vfsim.tempfile.mkdtemp(prefix="vf-pkeys-")
    net = os.path.join(work, "ft.net")
    conf = os.path.join(work, "vf.xml")
    topogen.fattree2(leaves=4, spines=2, hosts=4, storage=2).write(net)
    with open(conf, "w") as fh:
        fh.write(HEAD + VF_A + VF_B + VF_STORAGE + TAIL)
    with vfsim.Sim(net, "pkeys", tap=tap) as sim:
        sim.start_ibsim()
        sm_host = sim.default_sm_node()
        before = first_run(tap, sim, conf, sm_host)
        reconfigure(tap, sim, conf, sm_host, before)
        after = edited(tap, sim, conf, sm_host)
        broken(tap, sim, conf, sm_host, after)
        restart(tap, sim, conf, sm_host)
        standby_takes_over(tap, sim, conf)
    with open(conf, "w") as fh:
        fh.write(HEAD + VF_A + VF_B + VF_STORAGE + TAIL)
    mismatch(tap, net, conf)
    subnet_changed(tap, net, conf)
    vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
