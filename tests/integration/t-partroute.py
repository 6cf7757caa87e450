#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Partition-aware routing (docs/partition-routing.md) in stock OpenSM
with the plugin on ibsim: the seed-000 security layout (tenants Compute_A
and Compute_B with Security 1, Services with the storage servers full and
both tenants limited, Admin on the default P_Key 0x7fff), the tenants'
hosts interleaved on every edge switch (odd and even hosts) so that the
modes matter, on a 2-level and a 3-level fat tree and a fabric of two
director chassis behind edge switches.  The tables OpenSM programmed are
read back from the switches (dump_fts) and checked with `vfabric
check-routes --config` on the discovered topology:

- partition_routing off, balance, isolate (the file's <Sm>
  <PartitionRouting>, changed by an edit that config_poll notices, or by
  SIGHUP): every permitted pair reachable in every VF and every CA pair
  in the route report, no credit loop, and the tables equal what `vfabric
  route --partition-routing MODE` computes offline on the discovered
  topology with the same file;
- balance: each tenant's busiest link carries no more of its routes than
  with off (the numbers are printed);
- isolate: no inter-switch link carries both tenants' routes;
- hosts swapped between the tenants (isolate stays): the plugin re-routes
  from scratch, the new tables isolate the new tenants and differ from
  the old ones;
- partition_routing=isolate in event_plugin_options wins over the file's
  off, also after a SIGHUP that swaps hosts;
- the tenants are QoS VFs with BaseSL 1 and 2: on hosts and on edge and
  core switch ports each tenant's SL maps to one VL (a VF's traffic stays
  on its VLs whatever route it takes), the two tenants' VLs distinct and
  not the VL of the shared SL0.
"""

import json
import os
import re
import signal
import time

import topogen
import vfsim
import vftest

TENANTS = ("Compute_A", "Compute_B")
BASE_SL = {"Compute_A": 1, "Compute_B": 2}


def group(name, hosts):
    # "cn0001 *": the space keeps cn0001 from matching cn00010
    return (f" <DeviceGroup><Name>{name}</Name>" +
            "".join(f"<NodeDesc>{h} *</NodeDesc>" for h in hosts) +
            "</DeviceGroup>\n")


def config(layout, mode):
    """The seed-000 security layout (conf/vfabric-tenants.xml, applications
    reduced to one) with explicit tenant host lists, QoS on the tenants,
    Admin on 0x7fff, and <Sm><PartitionRouting>mode."""
    a_hosts, b_hosts = layout
    qos = {vf: f"<QOS>1</QOS><BaseSL>{sl}</BaseSL>"
           for vf, sl in BASE_SL.items()}
    return f"""<?xml version="1.0"?>
<Config><Common>
<Applications>
 <Application><Name>AllOthers</Name><Select>UnmatchedServiceID</Select>
  <Select>UnmatchedMGID</Select></Application>
</Applications>
<DeviceGroups>
{group("Compute_A", a_hosts)}{group("Compute_B", b_hosts)}\
 <DeviceGroup><Name>StorageNodes</Name><NodeDesc>stor*</NodeDesc></DeviceGroup>
 <DeviceGroup><Name>AdminNodes</Name><NodeDesc>admin*</NodeDesc>
  <IncludeGroup>Self</IncludeGroup></DeviceGroup>
</DeviceGroups>
<VirtualFabrics>
 <VirtualFabric><Name>Compute_A</Name><Enable>1</Enable><Security>1</Security>
  {qos["Compute_A"]}<Member>Compute_A</Member>
  <Application>AllOthers</Application></VirtualFabric>
 <VirtualFabric><Name>Compute_B</Name><Enable>1</Enable><Security>1</Security>
  {qos["Compute_B"]}<Member>Compute_B</Member>
  <Application>AllOthers</Application></VirtualFabric>
 <VirtualFabric><Name>Services</Name><Enable>1</Enable><Security>1</Security>
  <Member>StorageNodes</Member><Member>AdminNodes</Member>
  <LimitedMember>Compute_A</LimitedMember>
  <LimitedMember>Compute_B</LimitedMember>
  <Application>AllOthers</Application></VirtualFabric>
 <VirtualFabric><Name>Admin</Name><Enable>1</Enable><Security>1</Security>
  <PKey>0x7fff</PKey><Member>AdminNodes</Member>
  <LimitedMember>All</LimitedMember>
  <Application>AllOthers</Application></VirtualFabric>
</VirtualFabrics>
<Sm><PartitionRouting>{mode}</PartitionRouting></Sm>
</Common></Config>
"""


def layouts(fab):
    """Interleaved tenants (odd and even compute hosts, so every edge
    switch has both), and the same with two pairs of hosts swapped."""
    hosts = [h.id for h in fab.hcas() if h.id.startswith("cn")]
    a, b = hosts[0::2], hosts[1::2]
    a2, b2 = list(a), list(b)
    a2[0], b2[0] = b[0], a[0]
    a2[-1], b2[-1] = b[-1], a[-1]
    return (a, b), (a2, b2)


# the fabrics: (label, Fabric, runs); a run is (engine, how the mode is
# changed: "poll" (file edits, config_poll=1), "sighup" (config_poll=0),
# "option" (partition_routing=isolate in event_plugin_options))
def fabrics():
    return [
        ("ft2", topogen.fattree2(leaves=6, spines=4, hosts=6, storage=2,
                                 admin=1),
         [("fattree", "poll"), ("shortestpath", "sighup"),
          ("shortestpath", "option")]),
        ("ft3", topogen.fattree3(pods=3, leaves=2, aggs=2, cores=4, hosts=4,
                                 storage=2, admin=1),
         [("fattree", "poll"), ("shortestpath", "sighup")]),
        # two chassis (4 leaf and 2 spine chips each) as the core, 8 edge
        # switches with two uplinks to each chassis
        ("dcs", topogen.dcs(chassis=2, leaves=4, spines=2, hosts=0, edges=8,
                            edge_hosts=6, edge_uplinks=2, storage=2,
                            admin=1),
         [("fattree", "poll"), ("shortestpath", "sighup")]),
    ]


# Known failures, reported as TAP TODO (expected to fail; automake counts
# a pass as XPASS, an error, so the mark goes when the bug is fixed):
# (fabric, engine, check) -> why.
KNOWN = {}


def todo_ok(tap, todo, cond, msg, diag=None):
    """tap.ok, or a TAP TODO point when `todo` names a known failure."""
    if not todo:
        return tap.ok(cond, msg, diag)
    tap.n += 1
    print(f"{'ok' if cond else 'not ok'} {tap.n} - {msg} # TODO {todo}",
          flush=True)
    if not cond and diag:
        tap.diag(diag)
    return bool(cond)


class Run:
    """One OpenSM with the plugin on a Sim, and its configuration file."""

    def __init__(self, tap, sim, work, label, engine, driver):
        self.tap, self.sim, self.work = tap, sim, work
        self.label, self.engine, self.driver = label, engine, driver
        self.name = label.replace(" ", "-")
        self.conf = os.path.join(work, f"{self.name}.xml")
        self.topo = None
        self.runs = 0

    def write(self, layout, mode):
        """Replace the file atomically (a new inode: config_poll sees it
        whatever the clock's resolution)."""
        tmp = self.conf + ".new"
        with open(tmp, "w") as fh:
            fh.write(config(layout, mode))
        os.rename(tmp, self.conf)
        return self.conf

    def start(self, layout, mode):
        self.write(layout, mode)
        opts = f"log_level=info config={self.conf}"
        opts += {"poll": " config_poll=1", "sighup": " config_poll=0",
                 "option": " config_poll=0 partition_routing=isolate"}[
                     self.driver]
        self.sim.start_opensm(name=f"osm-{self.name}",
                              conf_lines=vftest.plugin_conf(
                                  engine=self.engine, options=opts),
                              plugin_dir=vftest.PLUGIN_DIR)
        self.sim.wait_subnet_up()
        vftest.engine_was_used(self.tap, self.sim, self.label,
                               engine=self.engine)
        self.runs = self.routing_runs(self.sim.log_text())
        self.topo = self.sim.discover(
            os.path.join(self.work, f"{self.name}.ibnetdiscover"))

    @staticmethod
    def routing_runs(log):
        runs = re.findall(r"vfabric: \w+ routed \d+ switches.*; run (\d+)\)",
                          log)
        return int(runs[-1]) if runs else 0

    def change(self, layout, mode, what):
        """Apply a new file (an edit config_poll notices, or SIGHUP) and
        wait for the sweep it causes; assert the config was re-read and
        the fabric re-routed."""
        since = self.sim.log_offset()
        self.write(layout, mode)
        if self.driver == "poll":
            self.sim.wait_log(r"changed: asking for a heavy sweep",
                              since=since, timeout=30)
        else:
            self.sim.osms[-1].popen.send_signal(signal.SIGHUP)
        self.sim.wait_subnet_up(since=since)
        log = self.sim.log_text(since)
        runs = self.routing_runs(log)
        self.tap.ok(f"config {self.conf}: 1 applications, 4 device groups, "
                    "4 virtual fabrics" in log and runs == self.runs + 1,
                    f"{self.label}: {what} "
                    f"({'an edit' if self.driver == 'poll' else 'SIGHUP'}): "
                    "the plugin re-read the file and re-routed",
                    vfsim.tail(self.sim.osms[-1].log))
        errors = [ln for ln in log.splitlines() if "ERR VF" in ln]
        self.tap.ok(not errors, f"{self.label}: {what}: no plugin error",
                    "\n".join(errors))
        self.runs = runs

    def verify(self, step, mode):
        """Read the tables back and check them with the current file:
        reachability in every VF and in the route report, no credit loop,
        equal to the offline routing in `mode`.  Returns the report, the
        tables and the path of the dump_fts output."""
        tap, label = self.tap, f"{self.label} {step}"
        name = f"{self.label}-{step}".replace(" ", "-")
        lfts = self.sim.dump_lfts(os.path.join(self.work,
                                               f"{name}.dump_fts"))
        res = vftest.vfabric("check-routes", "--topo", self.topo, "--lfts",
                             lfts, "--config", self.conf, "--json")
        try:
            rep = json.loads(res.stdout)
        except ValueError:
            rep = {}
        part = rep.get("partitions", {})
        classes = {c["name"]: c for c in part.get("classes", [])}
        tap.ok(rep and res.returncode == 0, f"{label}: check-routes "
               "--config read the discovered fabric and the tables read "
               "back", res.stderr)
        tap.ok(rep.get("ca_pairs", 0) > 0 and
               rep.get("ca_unreachable") == 0 and
               rep.get("credit_loop") is False,
               f"{label}: all {rep.get('ca_pairs')} CA pairs reachable, "
               "no credit loop", json.dumps({k: rep.get(k) for k in (
                   "ca_unreachable", "credit_loop", "cycle", "examples")}))
        data = {n: c for n, c in classes.items() if not c.get("management")}
        tap.ok(set(data) == {"Compute_A", "Compute_B", "Services"} and
               classes.get("Admin", {}).get("management") is True and
               all(c.get("pairs", 0) > 0 and c.get("unreachable") == 0
                   for c in data.values()),
               f"{label}: every permitted pair reachable in every VF "
               "(Admin, on 0x7fff, is management)",
               json.dumps(part.get("classes")))
        offline = os.path.join(self.work, f"{name}.offline.dump")
        res = vftest.vfabric("route", "--engine", self.engine, "--topo",
                             self.topo, "--config", self.conf,
                             "--partition-routing", mode, "-o", offline)
        got = vftest.parse_lfts(lfts)
        diff = (vftest.diff_lfts(vftest.parse_lfts(offline), got)
                if res.returncode == 0 else [res.stderr])
        tap.ok(got and not diff, f"{label}: the switches hold exactly the "
               f"tables {self.engine} computes offline with "
               f"--partition-routing {mode}", "\n".join(diff))
        return rep, got, lfts

    @staticmethod
    def load(rep, vf):
        for c in rep.get("partitions", {}).get("classes", []):
            if c["name"] == vf:
                return c.get("load_max")
        return None

    def check_isolated(self, step, rep):
        part = rep.get("partitions", {})
        self.tap.ok(part.get("shared_links") == 0 and not part.get("shared"),
                    f"{self.label} {step}: no inter-switch link carries "
                    "routes of both tenants", json.dumps(part.get("shared")))


def modes_run(tap, sim, work, fab, label, engine, driver, with_qos):
    """off -> balance -> isolate -> isolate with hosts swapped, by file
    changes."""
    run = Run(tap, sim, work, label, engine, driver)
    first, swapped = layouts(fab)
    run.start(first, "off")
    off, _, _ = run.verify("off", "off")
    shared_off = off.get("partitions", {}).get("shared_links")
    tap.ok(shared_off, f"{label} off: the tenants share {shared_off} "
           "links (the interleaved layout makes the modes matter)")
    if with_qos:
        check_sl2vl(tap, sim, label, run.topo, first)
    run.change(first, "balance", "off -> balance")
    bal, _, _ = run.verify("balance", "balance")
    known = KNOWN.get((label.split()[0], engine, "balance"))
    for vf in TENANTS:
        b, o = run.load(bal, vf), run.load(off, vf)
        todo_ok(tap, known, b is not None and o is not None and b <= o,
                f"{label}: {vf}'s busiest link carries {b} of its routes "
                f"with balance, {o} with off (<=)")
    tap.diag(f"{label}: shared links between the tenants: off "
             f"{shared_off}, balance "
             f"{bal.get('partitions', {}).get('shared_links')}")
    run.change(first, "isolate", "balance -> isolate")
    iso, iso_lfts, iso_dump = run.verify("isolate", "isolate")
    run.check_isolated("isolate", iso)
    tap.diag(f"{label}: isolate: " + ", ".join(
        f"{vf} load max {run.load(iso, vf)}" for vf in TENANTS))
    run.change(swapped, "isolate", "two pairs of hosts swapped between "
               "the tenants")
    new, new_lfts, _ = run.verify("swapped", "isolate")
    run.check_isolated("swapped", new)
    # the old tables would not have isolated the new tenants
    res = vftest.vfabric("check-routes", "--topo", run.topo, "--lfts",
                         iso_dump, "--config", run.conf, "--json")
    stale = json.loads(res.stdout)["partitions"]["shared_links"] \
        if res.stdout.startswith("{") else None
    tap.ok(stale, f"{label} swapped: the tables of before would leave "
           f"{stale} links shared by the new tenants", res.stderr)
    changed = vfsim.changed_entries(iso_lfts, new_lfts)
    tap.ok(changed, f"{label} swapped: the tables changed "
           f"({len(changed)} entries)")
    sim.stop_opensm()


def option_run(tap, sim, work, fab, label, engine):
    """partition_routing=isolate as a plugin option, the file saying off:
    the option wins, at start and after a SIGHUP that swaps hosts."""
    run = Run(tap, sim, work, label, engine, "option")
    first, swapped = layouts(fab)
    run.start(first, "off")
    iso, iso_lfts, _ = run.verify("isolate", "isolate")
    run.check_isolated("isolate", iso)
    run.driver = "sighup"
    run.change(swapped, "off", "hosts swapped, the file still off")
    new, new_lfts, _ = run.verify("swapped", "isolate")
    run.check_isolated("swapped", new)
    tap.ok(vfsim.changed_entries(iso_lfts, new_lfts),
           f"{label} swapped: the tables changed")
    sim.stop_opensm()


# --- SL2VL ------------------------------------------------------------------
def sl2vl_ports(topo, layout):
    """Where to read SL2VL: a host of each tenant (by LID), and on the
    edge switch of the first Compute_A host the ports facing it and a
    Compute_B host and an uplink, and the switch at that uplink's other
    end, its port back."""
    nodes = vfsim.parse_ibnetdiscover(open(topo).read())
    by_name = {n["desc"].split()[0]: (g, n) for g, n in nodes.items()
               if n["kind"] == "Ca"}
    a_guid, a = by_name[layout[0][0]]
    edge_guid, a_port = a["links"][1]
    edge = nodes[edge_guid]
    b_port = next(p for p, (g, _) in sorted(edge["links"].items())
                  if nodes[g]["kind"] == "Ca" and
                  nodes[g]["desc"].split()[0] in layout[1])
    up, (top_guid, top_port) = next(
        (p, peer) for p, peer in sorted(edge["links"].items())
        if nodes[peer[0]]["kind"] == "Switch")
    b_lid = by_name[next(h for h in layout[1]
                         if nodes[by_name[h][0]]["links"][1][0] ==
                         edge_guid)][1]["lid"]
    return [(f"{layout[0][0]} (Compute_A)", [str(a["lid"])]),
            ("a Compute_B host", [str(b_lid)]),
            (f"{edge['desc']} port {a_port}", [str(edge["lid"]),
                                                str(a_port)]),
            (f"{edge['desc']} port {b_port}", [str(edge["lid"]),
                                                str(b_port)]),
            (f"{edge['desc']} port {up}", [str(edge["lid"]), str(up)]),
            (f"{nodes[top_guid]['desc']} port {top_port}",
             [str(nodes[top_guid]["lid"]), str(top_port)])]


def check_sl2vl(tap, sim, label, topo, layout):
    log = sim.log_text()
    logged = {vf: re.search(rf"'{vf}' SL(\d+) VL(\d+)", log)
              for vf in TENANTS}
    tap.ok(all(logged.values()) and
           all(int(m.group(1)) == BASE_SL[vf] for vf, m in logged.items()),
           f"{label}: the plugin's QoS classes give the tenants SL "
           f"{BASE_SL['Compute_A']} and {BASE_SL['Compute_B']}",
           "\n".join(ln for ln in log.splitlines() if "qos" in ln))
    if not all(logged.values()):
        return
    want = {vf: int(m.group(2)) for vf, m in logged.items()}
    bad, read = [], 0
    for where, args in sl2vl_ports(topo, layout):
        rows = vfsim.parse_sl2vl(sim.run_diag(["smpquery", "sl2vl"] + args))
        if not rows:
            bad.append(f"{where}: no SL2VL table read")
        for (i, o), vls in sorted(rows.items()):
            read += 1
            got = {vf: vls[BASE_SL[vf]] for vf in TENANTS}
            if got != want or vls[0] in want.values():
                bad.append(f"{where} in {i} out {o}: {vls}")
    tap.ok(not bad and len(set(want.values())) == 2,
           f"{label}: on {read} SL2VL tables (hosts, edge and core switch "
           f"ports) Compute_A's SL{BASE_SL['Compute_A']} maps to "
           f"VL{want['Compute_A']} and Compute_B's "
           f"SL{BASE_SL['Compute_B']} to VL{want['Compute_B']}, neither "
           "to SL0's VL", "\n".join(bad[:8]))


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    t0 = time.monotonic()
    work = vfsim.tempfile.mkdtemp(prefix="vf-partroute-")
    failed = False
    for name, fab, runs in fabrics():
        net = os.path.join(work, f"{name}.net")
        fab.write(net)
        try:
            with vfsim.Sim(net, f"partroute-{name}", tap=tap) as sim:
                sim.start_ibsim()
                for k, (engine, driver) in enumerate(runs):
                    label = f"{name} {engine}" + \
                        (" option" if driver == "option" else "")
                    if driver == "option":
                        option_run(tap, sim, work, fab, label, engine)
                    else:
                        modes_run(tap, sim, work, fab, label, engine,
                                  driver, with_qos=k == 0)
        except vfsim.SimError as e:
            failed = True
            tap.ok(False, f"{name}: the harness got through the runs",
                   str(e))
    tap.diag(f"{time.monotonic() - t0:.1f} s")
    if failed or tap.failed:
        tap.diag(f"work dir kept: {work}")
    else:
        vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
