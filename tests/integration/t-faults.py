#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Faults injected into ibsim while stock OpenSM runs with the plugin
(fattree engine, LMC 0, the tenant policy of conf/vfabric-tenants.xml)
on a 2-level fat tree: a link flapping, a leaf and a spine removed and
returned, a host's GUID changed, MADs dropped at a port, a host's
NodeDescription MADs lost (a known host, then a new GUID), the vFabric
file broken with and without SIGHUP, a storm of SIGHUPs.  The faults are
sim/faults.py's, the checks sim/fabcheck.py's (both shared with `make
soak`).

After each fault, once OpenSM has settled, and again after its repair:
OpenSM is alive; the fault took effect (the node gone, the new GUID seen,
MADs dropped, the error named); check-routes with the policy finds every
CA pair and every pair a VF permits reachable and no credit loop; every
present host's P_Key table and the switch port facing it hold what
`vfabric resolve` gives for the policy; PathRecords between sampled pairs
(permitted or not) are the policy's.  After each repair the LFTs and
P_Key tables equal those before the fault.  At the end OpenSM exits with
status 0 on SIGTERM (VF_OSM_CHECK modes check that exit), and its RSS
before and after the series is printed.
"""

import os
import re
import shutil
import time

import fabcheck
import faults
import topogen
import vfsim
import vftest

LEAVES, SPINES, HOSTS = 4, 2, 4
SA_PAIRS = 10
# the plugin errors a fault may cause: the broken file's (its XML errors,
# the last good one kept), and a P_Key Set lost with the MADs (a table
# that differs from the plan, a heavy sweep forced)
ALLOWED_ERRORS = {faults.ConfigError: ["0801", "0802"],
                  faults.MadDrop: ["0807", "0808"],
                  faults.NewNodeNoDesc: ["0119"]}


class Run:
    """The Sim, the checker and the TAP points of one fault series."""

    def __init__(self, tap, sim, conf, rng):
        self.tap, self.sim, self.conf, self.rng = tap, sim, conf, rng
        # the checks read the policy from a copy of the good file: the
        # live one is broken by the config faults
        good = conf + ".good"
        shutil.copy(conf, good)
        self.check = fabcheck.Checker(sim, good, vftest.VFABRIC,
                                      vftest.VFABRIC_SA, "admin1 HCA-1")
        self.base = None
        self.base_pkeys = None

    def verify(self, label, tolerated=(), unplanned=()):
        """The checks every state must pass; returns the snapshot and the
        P_Key tables read."""
        t = self.tap
        osm = self.sim.osms[-1]
        t.ok(osm.alive(), f"{label}: OpenSM alive",
             f"rc {osm.popen.returncode}")
        snap = self.check.snapshot(label.replace(" ", "_"), tolerated)
        if snap.dropped:
            t.diag(f"{label}: OpenSM does not route {snap.dropped} "
                   "(tolerated: it drops MADs)")
        bad = self.check.routes(snap)
        t.ok(not bad, f"{label}: every CA pair and every pair a VF permits "
             "reachable, no credit loop", "\n".join(bad))
        tables = self.check.read_pkeys(snap)
        bad = self.check.pkeys(snap, tables, unplanned)
        t.ok(not bad, f"{label}: P_Key tables of {len(tables)} hosts and "
             "their switch ports are the policy's" +
             (f" ({', '.join(unplanned)} left out)" if unplanned else ""),
             "\n".join(bad[:6]))
        pairs = fabcheck.sample_pairs(
            snap.policy, SA_PAIRS, self.rng,
            [h for h in snap.policy.lids if h not in unplanned]) \
            if snap.policy else []
        bad = self.check.sa(snap, pairs)
        t.ok(pairs and not bad, f"{label}: {len(pairs)} PathRecord answers "
             "(permitted pairs and not) are the policy's", "\n".join(bad))
        return snap, tables

    def restored(self, label, snap, tables):
        t = self.tap
        diff = vftest.diff_lfts(self.base.tables, snap.tables)
        t.ok(not diff, f"{label}: every switch's LFT is back to the "
             "original", "\n".join(diff))
        moved = [f"{h}: {[hex(k) for k in self.base_pkeys[h][0] if k]} -> "
                 f"{[hex(k) for k in tables.get(h, ([], []))[0] if k]}"
                 for h in self.base_pkeys
                 if tables.get(h) != self.base_pkeys[h]]
        t.ok(not moved, f"{label}: every P_Key table (host and switch port, "
             "entry by entry) is back to the original", "\n".join(moved[:6]))


def effect(tap, run, fault, snap, since):
    """Assert that the fault really happened."""
    log = run.sim.log_text(since)
    hosts = snap.hosts()
    if isinstance(fault, faults.SwitchDown):
        descs = {n["desc"] for n in snap.nodes.values()}
        gone = [a for a in fault.absent
                if a in hosts or run.sim.nodes[a].desc in descs]
        removed = log.count("drop_mgr_remove_port")
        tap.ok(not gone and removed >= len(fault.absent) - 1,
               f"{fault.name}: gone from the fabric ({len(fault.absent)} "
               f"nodes; OpenSM removed {removed} ports)", str(gone))
    elif isinstance(fault, faults.LinkFlap):
        traps = len(re.findall(r"num:128 \(Link state change\)", log))
        tap.ok(traps >= fault.times, f"{fault.name}: OpenSM received "
               f"{traps} link state change traps")
    elif isinstance(fault, faults.GuidChange):
        n = hosts.get(fault.node, {})
        guid = next((g for g, v in snap.nodes.items() if v is n), None)
        tap.ok(guid == fault.new and
               f"Removed port with GUID:0x{fault.old + 1:016x}" in log,
               f"{fault.name}: OpenSM dropped the old port and routes the "
               f"new GUID {fault.new:#x} at LID {n.get('lid')}",
               f"discovered {guid and hex(guid)}")
    elif isinstance(fault, faults.MadDrop):
        # OpenSM lost the port (every retry of a MAD dropped), or it is
        # still routed and its receive error counter shows the drops
        guid = run.sim.nodes[fault.node].guid + fault.port
        lost = f"Removed port with GUID:0x{guid:016x}" in log
        errs = None
        if not lost:
            out = run.check.diag(["perfquery", str(run.base.policy.lids[
                fault.node]), str(fault.port)])
            m = re.search(r"RcvErrors:\.+(\d+)", out)
            errs = int(m.group(1)) if m else None
        tap.ok(lost or errs, f"{fault.name}: ibsim dropped MADs into the "
               "port (" + ("OpenSM lost the port" if lost else
                           f"RcvErrors {errs}") + ")")
    elif isinstance(fault, faults.NodeDescLost):
        guid = run.sim.nodes[fault.node].guid
        tap.ok(f"Discovered new port with GUID:0x{guid + 1:016x}" in log and
               f"node 0x{guid:016x}: OpenSM has no NodeDescription for it"
               in log, f"{fault.name}: OpenSM found the host again without "
               "its NodeDescription; the plugin used the last one",
               vfsim.tail(run.sim.osms[-1].log, 8))
    elif isinstance(fault, faults.NewNodeNoDesc):
        tap.ok(f"ERR VF0119: node 0x{fault.new:016x}: OpenSM has no "
               "NodeDescription" in log, f"{fault.name}: the plugin names "
               "the new node it has no NodeDescription for",
               vfsim.tail(run.sim.osms[-1].log, 8))
    elif isinstance(fault, faults.ConfigError):
        name = os.path.basename(fault.path)
        tap.ok(re.search(rf"ERR VF08\d\d: .*{re.escape(name)}:\d+", log) and
               "keeping the last good configuration" in log,
               f"{fault.name}: the plugin names file and line and keeps "
               "the last good policy", vfsim.tail(run.sim.osms[-1].log, 8))
    elif isinstance(fault, faults.SighupStorm):
        ups = len(re.findall(vfsim.SUBNET_UP_RE, log))
        tap.ok(1 <= ups <= fault.count, f"{fault.name}: {ups} sweeps for "
               f"{fault.count} SIGHUPs, ending with SUBNET UP")


def series(sim, conf):
    """The faults, in the order they run."""
    return [
        faults.LinkFlap("L002", HOSTS + 1, times=5),
        faults.leaf_down(sim, "L003"),
        faults.spine_down(sim, "S002"),
        faults.GuidChange(sim, "cn0006"),
        faults.MadDrop("cn0007", 1, 30),
        faults.NodeDescLost("cn0005"),
        faults.ConfigError(conf, sighup_it=True),
        faults.ConfigError(conf, sighup_it=False),
        faults.SighupStorm(30, 1.5),
        # last: the host keeps its new GUID
        faults.NewNodeNoDesc(sim, "cn0008"),
    ]


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    rng, seed = fabcheck.seeded(int(os.environ.get("VF_SEED", "0")) or None)
    tap.diag(f"seed {seed} (VF_SEED={seed} repeats the pair sample)")
    t0 = time.monotonic()
    fab = topogen.fattree2(leaves=LEAVES, spines=SPINES, hosts=HOSTS,
                           storage=2, admin=1)
    with vfsim.Sim(fab, "faults", tap=tap) as sim:
        conf = os.path.join(sim.workdir, "vfabric-tenants.xml")
        shutil.copy(os.path.join(vftest.TOP_SRCDIR, "conf",
                                 "vfabric-tenants.xml"), conf)
        os.chmod(conf, 0o644)
        sim.start_ibsim()
        osm = sim.start_opensm(conf_lines=vftest.plugin_conf(
            engine="fattree", options=f"log_level=info sa_log=on "
            f"config={conf} config_poll=1",
            # light sweeps: OpenSM asks a node for a lost NodeDescription
            # again only there (new_node_no_desc)
            extra=["lmc 0", "sweep_interval 2"]),
            plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        faults.settle(sim, 0)
        run = Run(tap, sim, conf, rng)
        run.base, run.base_pkeys = run.verify("before any fault")
        rss = [fabcheck.rss_kb(osm.pid)]
        injected = 0
        for fault in series(sim, conf):
            since = sim.log_offset()
            seen = fault.inject(sim)
            injected += 1
            tap.diag(f"{fault.name}: settled in {seen['seconds']:.1f} s, "
                     f"{seen['sweeps']} sweeps to SUBNET UP, "
                     f"{seen['failed']} ended in errors")
            tap.ok(seen["up"], f"{fault.name}: OpenSM's last sweep ended "
                   "in SUBNET UP")
            # a host that drops MADs may hold a table OpenSM could not
            # finish setting: checked after the repair only
            snap, _ = run.verify(f"{fault.name}", fault.tolerated,
                                 fault.unplanned | fault.tolerated)
            effect(tap, run, fault, snap, since)
            seen = fault.repair(sim)
            tap.ok(seen["up"], f"{fault.name} repaired: OpenSM's last "
                   "sweep ended in SUBNET UP")
            snap, tables = run.verify(f"{fault.name} repaired")
            if fault.restores:
                run.restored(f"{fault.name} repaired", snap, tables)
            allowed = ALLOWED_ERRORS.get(type(fault), [])
            errors = [ln for ln in sim.log_text(since).splitlines()
                      if re.search(r"ERR VF(?!%s)" % "|".join(
                          allowed or ["-"]), ln)]
            tap.ok(not errors, f"{fault.name}: no plugin error logged" +
                   "".join(f" but VF{c}" for c in allowed),
                   "\n".join(errors[:8]))
        rss.append(fabcheck.rss_kb(osm.pid))
        tap.diag(f"faults injected: {injected}; OpenSM VmRSS before the "
                 f"series {rss[0]} kB, after {rss[1]} kB")
        rc = sim.stop_opensm()
        tap.ok(rc == 0, f"OpenSM exits with 0 on SIGTERM after "
               f"{injected} faults", f"rc {rc}")
    tap.diag(f"{time.monotonic() - t0:.1f} s")
    tap.done()


if __name__ == "__main__":
    main()
