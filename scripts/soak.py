#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The soak (`make soak`, not CI): stock OpenSM with the plugin and the
tenant policy on an ibsim fat tree for hours, random faults from
sim/faults.py at random intervals, each checked after it settles and
after its repair, under a steady PathRecord load from the hosts.

- Seeded: the seed is printed; --seed repeats the same faults and pairs.
- After every fault and repair: OpenSM alive, every CA pair and every
  pair a VF permits reachable and no credit loop (check-routes --config on
  the LFTs read back); every --full-every'th fault also every host's and
  facing switch port's P_Key table against the policy and, after the
  repair, the LFTs and P_Key tables equal to the original.
- The query load: threads asking PathRecords between random hosts
  (vfabric-sa from the source host).  An answer taken while the fabric
  was settled must be the policy's exactly; one taken while a fault was
  being applied or repaired must be the old or the new policy's (or
  empty: a port on its way out or in), never a path between ports that
  share no P_Key in either.
- OpenSM's VmRSS sampled every --rss-every seconds; the run fails if it
  grows by more than --rss-limit kB after the warm-up.
- The report: text and JSON in the work dir (soak-report.txt/.json).

    SOAK_MINUTES=30 make soak
    python3 scripts/soak.py --minutes 30 --vfabric tools/vfabric \\
        --sa tools/vfabric-sa --plugin-dir plugin/.libs
"""

import argparse
import json
import os
import shutil
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "sim"))

import fabcheck  # noqa: E402
import faults  # noqa: E402
import topogen  # noqa: E402
import vfsim  # noqa: E402

# a SIGHUP's sweep may be followed by config_poll's (2 s) for the same
# edit: wait that out before checking
faults.QUIET = 3.0
TOP = os.path.dirname(HERE)
SM_HOST = "admin1"


def other_policy(text):
    """The tenant file with the tenants' split moved: cn0007-cn0030 go
    from Compute_B to Compute_A (a valid change of many P_Keys)."""
    a, b = "<NodeDesc>cn[0001-0006]*</NodeDesc>", \
        "<NodeDesc>cn[0007-0099]*</NodeDesc>"
    if a not in text or b not in text:
        raise SystemExit("soak: the tenant file changed; update "
                         "other_policy()")
    return text.replace(a, "<NodeDesc>cn[0001-0030]*</NodeDesc>").replace(
        b, "<NodeDesc>cn[0031-0099]*</NodeDesc>")


class Oracle:
    """The policies in force, by epoch.  The epoch goes up when a fault
    (or its repair) starts, and again when the fabric has settled and its
    policy is known; settled epochs have a Policy."""

    def __init__(self, policy):
        self.lock = threading.Lock()
        self.epoch = 0
        self.policies = {0: policy}
        self.avoid = (frozenset(), frozenset())

    def begin(self, avoid):
        with self.lock:
            self.epoch += 1
            self.avoid = avoid

    def publish(self, policy, avoid):
        with self.lock:
            self.epoch += 1
            self.policies[self.epoch] = policy
            self.avoid = avoid

    def latest(self):
        """(epoch, last settled policy, (hosts not to ask from, hosts not
        to ask about at all))."""
        with self.lock:
            e = self.epoch
            while e not in self.policies:
                e -= 1
            return self.epoch, self.policies[e], self.avoid

    def around(self, e0, e1):
        """The settled policies an answer taken between epochs e0 and e1
        may follow: the last one at or before e0, those up to e1, and the
        first one after it; None while that one is not known yet."""
        with self.lock:
            first = max(e for e in self.policies if e <= e0)
            last = e1 if e1 in self.policies else e1 + 1
            if last not in self.policies:
                return None
            return [self.policies[e] for e in range(first, last + 1)
                    if e in self.policies]


class Load:
    """Threads sending PathRecord queries at a steady rate."""

    def __init__(self, check, oracle, rng, threads, interval):
        self.check, self.oracle = check, oracle
        self.threads, self.interval = threads, interval
        self.rngs = [fabcheck.seeded(rng.randrange(1 << 31))[0]
                     for _ in range(threads)]
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.pending = []
        self.sent = 0
        self.errors = []
        self.workers = []

    def start(self):
        for k in range(self.threads):
            th = threading.Thread(target=self.run, args=(self.rngs[k],),
                                  daemon=True)
            th.start()
            self.workers.append(th)

    def run(self, rng):
        while not self.stop.is_set():
            e0, pol, (no_src, no_end) = self.oracle.latest()
            hosts = sorted(h for h in pol.lids
                           if h not in no_end and h != "?")
            srcs = [h for h in hosts if h not in no_src]
            if len(hosts) < 2 or not srcs:
                self.stop.wait(self.interval)
                continue
            src = rng.choice(srcs)
            dst = rng.choice([h for h in hosts if h != src])
            t = time.monotonic()
            try:
                st, got = self.check.query(src, pol.lids[src],
                                           pol.lids[dst])
            except vfsim.SimError as e:
                # ibsim gone or a client slot missing: the run ends
                with self.lock:
                    self.errors.append(str(e))
                self.stop.wait(1)
                continue
            e1 = self.oracle.latest()[0]
            with self.lock:
                self.sent += 1
                self.pending.append((e0, e1, src, dst, st, got, t))
            self.stop.wait(self.interval)

    def halt(self):
        self.stop.set()
        for th in self.workers:
            th.join(30)

    def take(self):
        with self.lock:
            out, self.pending = self.pending, []
            return out

    def put_back(self, recs):
        with self.lock:
            self.pending = recs + self.pending


class Stats:
    """What the report counts."""

    def __init__(self):
        self.faults = {}
        self.queries = {"sent": 0, "answered": 0, "unanswered": 0,
                        "strict": 0, "during_change": 0, "inconsistent": 0,
                        "no_shared_pkey": 0, "with_records": 0}
        self.inconsistent = []
        self.checks = {"routes_failed": 0, "pkeys_failed": 0,
                       "restore_failed": 0, "checks": 0, "full_checks": 0,
                       "not_up": 0}
        self.problems = []
        self.crashes = 0
        self.sweeps = 0
        self.failed_sweeps = 0
        self.rss = []

    def problem(self, what, detail):
        self.problems.append({"t": time.strftime("%H:%M:%S"), "what": what,
                              "detail": detail[:1000]})
        print(f"soak: PROBLEM {what}: {detail[:500]}", flush=True)


def judge(stats, load, oracle):
    """Check the answers whose policies are known."""
    keep = []
    for rec in load.take():
        e0, e1, src, dst, st, got, t = rec
        q = stats.queries
        if st == "no answer":
            q["unanswered"] += 1
            continue
        pols = oracle.around(e0, e1)
        if pols is None:
            keep.append(rec)
            continue
        q["answered"] += 1
        q["with_records"] += bool(got)
        if st not in ("SUCCESS", "NO_RECORDS"):
            ok = False
        elif e0 == e1 and len(pols) == 1:
            q["strict"] += 1
            ok = st == "SUCCESS" and got == pols[0].expected(src, dst)
        else:
            q["during_change"] += 1
            ok = not got or any(got == p.expected(src, dst) for p in pols)
        if got and not all(any(p.shares(src, dst, pk) for p in pols)
                           for pk, _ in got):
            q["no_shared_pkey"] += 1
            ok = False
        if not ok:
            q["inconsistent"] += 1
            want = " or ".join(fabcheck.fmt(p.expected(src, dst))
                               for p in pols)
            stats.inconsistent.append(f"{src} -> {dst} (epochs {e0}-{e1}):"
                                      f" {st} {fabcheck.fmt(got)} want "
                                      f"{want}")
            print(f"soak: INCONSISTENT {stats.inconsistent[-1]}",
                  flush=True)
    load.put_back(keep)


def pick_fault(sim, rng, conf, other, only=None):
    """A random fault with a random target (of the kinds `only`, if
    given)."""
    leaves = sorted(n for n in sim.nodes if n.startswith("L"))
    spines = sorted(n for n in sim.nodes if n.startswith("S"))
    hosts = sorted(n for n in sim.nodes if n.startswith("cn"))
    sm_leaf = next(p for p, _ in sim.nodes[SM_HOST].ports.values())
    kinds = ["link_flap"] * 3 + ["leaf_down", "spine_down", "guid_change",
                                 "mad_drop", "sighup_storm",
                                 "policy_change"] * 2 + \
        ["config_error_sighup", "config_error_poll", "nodedesc_lost",
         "new_node_no_desc"]
    kind = rng.choice(only or kinds)
    if kind == "link_flap":
        leaf = rng.choice(leaves)
        up = sorted(p for p, (peer, _) in sim.nodes[leaf].ports.items()
                    if peer in spines)
        return faults.LinkFlap(leaf, rng.choice(up), rng.randint(2, 8))
    if kind == "leaf_down":
        return faults.leaf_down(sim, rng.choice(
            [x for x in leaves if x != sm_leaf]))
    if kind == "spine_down":
        return faults.spine_down(sim, rng.choice(spines))
    if kind == "guid_change":
        return faults.GuidChange(sim, rng.choice(hosts))
    if kind == "mad_drop":
        return faults.MadDrop(rng.choice(hosts), 1, rng.choice(
            [10, 20, 30, 40, 50]))
    if kind == "sighup_storm":
        return faults.SighupStorm(rng.randint(20, 40),
                                  rng.choice([1.0, 1.5, 2.0]))
    if kind == "new_node_no_desc":
        return faults.NewNodeNoDesc(sim, rng.choice(hosts),
                                    restore_guid=True)
    if kind == "nodedesc_lost":
        return faults.NodeDescLost(rng.choice(hosts))
    if kind == "policy_change":
        return faults.PolicySwap(conf, other, "tenants split at cn0030")
    return faults.ConfigError(conf, sighup_it=kind == "config_error_sighup")


class Soak:
    def __init__(self, args):
        self.args = args
        self.rng, self.seed = fabcheck.seeded(args.seed)
        self.stats = Stats()
        self.work = os.path.abspath(args.work or time.strftime(
            "soak-%Y%m%d-%H%M%S"))
        os.makedirs(self.work, exist_ok=True)
        self.fab = topogen.fattree2(leaves=args.leaves, spines=args.spines,
                                    hosts=args.hosts, storage=2, admin=1)
        self.conf = os.path.join(self.work, "vfabric-tenants.xml")
        self.good = self.conf + ".good"
        with open(os.path.join(TOP, "conf", "vfabric-tenants.xml")) as fh:
            self.first = fh.read()
        self.other = other_policy(self.first)
        faults.write_atomic(self.conf, self.first)
        shutil.copy(self.conf, self.good)
        self.log_pos = 0
        self.osm = None

    def start_opensm(self, sim):
        if self.osm is not None:
            # a restart after a crash: the same name, so the same cache
            # (LIDs) as before; the crashed run's log is kept aside
            os.replace(self.osm.log, f"{self.osm.log}.crash{len(sim.osms)}")
        self.osm = sim.start_opensm(name="opensm1", conf_lines=[
            "event_plugin_name vfabric", "routing_engine fattree",
            "log_flags 0x43", "lmc 0",
            f"sweep_interval {self.args.sweep_interval}",
            "event_plugin_options log_level=info sa_log=on "
            f"config={self.conf} config_poll=2"],
            plugin_dir=self.args.plugin_dir)
        self.log_pos = 0
        sim.wait_subnet_up(timeout=300)
        faults.settle(sim, 0)

    def count_sweeps(self, sim):
        new = vfsim.read_bytes(self.osm.log, self.log_pos)
        new = new[:new.rfind(b"\n") + 1]
        self.log_pos += len(new)
        text = new.decode("utf-8", "replace")
        self.stats.sweeps += len(faults.UP_RE.findall(text))
        self.stats.failed_sweeps += len(faults.FAILED_RE.findall(text))

    def alive(self, sim, where):
        """Count a crash and start OpenSM again if it died."""
        if self.osm.alive():
            return True
        self.stats.crashes += 1
        self.stats.problem("crash", f"{where}: OpenSM exited rc "
                           f"{self.osm.popen.returncode}; log kept in "
                           f"{os.path.dirname(self.osm.log)}")
        self.start_opensm(sim)
        return False

    def check(self, sim, label, fault, full, base=None, repaired=False,
              publish=None):
        """Snapshot + checks; returns the snapshot (None if OpenSM died).
        publish(policy) is called as soon as the snapshot has the policy:
        the queries taken during the rest of the checks are strict."""
        st = self.stats
        st.checks["checks"] += 1
        if not self.alive(sim, label):
            return None
        tolerated = set() if repaired else set(fault.tolerated)
        snap = self.checker.snapshot(label.split()[0], tolerated)
        if publish and snap.policy is not None:
            publish(snap.policy)
        failed = False
        bad = self.checker.routes(snap)
        if bad:
            st.checks["routes_failed"] += 1
            st.problem(f"{label}: routes", "; ".join(bad))
            failed = True
        if full:
            st.checks["full_checks"] += 1
            tables = self.checker.read_pkeys(snap)
            bad = self.checker.pkeys(snap, tables, () if repaired else
                                     fault.unplanned | fault.tolerated)
            if bad:
                st.checks["pkeys_failed"] += 1
                st.problem(f"{label}: P_Keys", "; ".join(bad[:5]))
                failed = True
            if repaired and fault.restores and base is not None:
                diff = [f"LFT {d}" for d in _diff_lfts(base[0].tables,
                                                        snap.tables)]
                diff += [f"P_Keys {h}" for h in base[1]
                         if tables.get(h) != base[1][h]]
                if diff:
                    st.checks["restore_failed"] += 1
                    st.problem(f"{label}: not restored", "; ".join(diff[:5]))
                    failed = True
        if not failed:
            for path in (snap.topo, snap.lfts):
                os.remove(path)
        return snap

    def rss_sampler(self, stop):
        t0 = time.monotonic()
        while not stop.is_set():
            kb = fabcheck.rss_kb(self.osm.pid) if self.osm else None
            if kb:
                self.stats.rss.append((round(time.monotonic() - t0, 1), kb,
                                       self.osm.pid))
            stop.wait(self.args.rss_every)

    def run(self):
        a, st = self.args, self.stats
        print(f"soak: seed {self.seed}; {a.minutes} minutes; work dir "
              f"{self.work}", flush=True)
        t_start = time.monotonic()
        end = t_start + a.minutes * 60
        with vfsim.Sim(self.fab, "soak", workdir=self.work) as sim:
            sim.keep = True
            sim.start_ibsim()
            self.start_opensm(sim)
            self.checker = fabcheck.Checker(sim, self.good, a.vfabric, a.sa,
                                            f"{SM_HOST} HCA-1")
            first = self.checker.snapshot("baseline")
            base = (first, self.checker.read_pkeys(first))
            bad = self.checker.routes(first) + self.checker.pkeys(first,
                                                                  base[1])
            if bad or first.policy is None:
                raise SystemExit(f"soak: the fabric is wrong before any "
                                 f"fault: {bad}")
            oracle = Oracle(first.policy)
            load = Load(self.checker, oracle, self.rng, a.query_threads,
                        a.query_interval)
            stop_rss = threading.Event()
            rss = threading.Thread(target=self.rss_sampler, args=(stop_rss,),
                                   daemon=True)
            rss.start()
            load.start()
            n = 0
            while time.monotonic() < end:
                until = min(end, time.monotonic() +
                            self.rng.uniform(a.min_gap, a.max_gap))
                while time.monotonic() < until:
                    time.sleep(max(0.0, min(5.0, until - time.monotonic())))
                    judge(st, load, oracle)
                    self.alive(sim, "between faults")
                if time.monotonic() >= end:
                    break
                fault = pick_fault(sim, self.rng, self.conf, self.other,
                                   a.kinds)
                n += 1
                full = n % a.full_every == 0
                # a removed host cannot ask; a host that drops MADs may
                # hold tables OpenSM could not finish: not asked about
                avoid = (frozenset(fault.absent) | fault.tolerated |
                         fault.unplanned,
                         fault.tolerated | fault.unplanned)
                st.faults[fault.kind] = st.faults.get(fault.kind, 0) + 1
                print(f"soak: {time.strftime('%H:%M:%S')} fault {n}: "
                      f"{fault.name}{' (full check)' if full else ''}",
                      flush=True)
                oracle.begin(avoid)
                try:
                    seen = fault.inject(sim)
                    if not seen["up"]:
                        st.checks["not_up"] += 1
                        st.problem(f"{fault.name}", "last sweep not UP")
                    if isinstance(fault, faults.PolicySwap):
                        faults.write_atomic(self.good, fault.other)
                    self.check(sim, f"{fault.name}", fault, full,
                               publish=lambda pol: oracle.publish(pol, avoid))
                    oracle.begin(avoid)
                    seen = fault.repair(sim)
                    if not seen["up"]:
                        st.checks["not_up"] += 1
                        st.problem(f"{fault.name} repaired",
                                   "last sweep not UP")
                    if isinstance(fault, faults.PolicySwap):
                        faults.write_atomic(self.good, fault.good)
                    self.check(sim, f"{fault.name} repaired", fault, full,
                               base, repaired=True,
                               publish=lambda pol: oracle.publish(
                                   pol, (frozenset(), frozenset())))
                except vfsim.SimError as e:
                    st.problem(f"{fault.name}: harness", str(e))
                    if not self.alive(sim, fault.name):
                        # start over from a whole fabric: repair blindly
                        fault.repair(sim)
                    try:
                        snap = self.checker.snapshot("recovered")
                        if snap.policy is not None:
                            oracle.publish(snap.policy, (frozenset(),
                                                         frozenset()))
                    except vfsim.SimError as e2:
                        st.problem("recovery", str(e2))
                self.count_sweeps(sim)
                judge(st, load, oracle)
            load.halt()
            judge(st, load, oracle)
            stop_rss.set()
            rss.join(30)
            st.queries["sent"] = load.sent
            if load.errors:
                st.problem("query load", "; ".join(load.errors[:3]))
            final = self.check(sim, "final", faults.SighupStorm(), True,
                               base, repaired=True)
            self.count_sweeps(sim)
            rc = sim.stop_opensm(self.osm)
            if rc != 0:
                st.crashes += 1
                st.problem("exit", f"OpenSM exited with {rc} on SIGTERM")
        return self.report(time.monotonic() - t_start, n, rc,
                           final is not None)

    def report(self, seconds, n, rc, final_ok):
        a, st = self.args, self.stats
        pid = st.rss[-1][2] if st.rss else None
        samples = [(t, kb) for t, kb, p in st.rss if p == pid]
        warm = [(t, kb) for t, kb in samples if t >= a.warmup * 60] or \
            samples[-1:]
        slope = _slope(warm)
        rss = {"start_kb": samples[0][1] if samples else None,
               "after_warmup_kb": warm[0][1] if warm else None,
               "end_kb": samples[-1][1] if samples else None,
               "max_kb": max((kb for _, kb in samples), default=None),
               "slope_kb_per_hour": round(slope * 3600, 1)
               if slope is not None else None,
               "warmup_minutes": a.warmup,
               "limit_kb": a.rss_limit, "samples": len(samples)}
        growth = (rss["end_kb"] - rss["after_warmup_kb"]) \
            if samples else None
        rss["growth_after_warmup_kb"] = growth
        failed = []
        if st.crashes:
            failed.append(f"{st.crashes} crashes")
        if st.queries["inconsistent"]:
            failed.append(f"{st.queries['inconsistent']} inconsistent "
                          "answers")
        for k in ("routes_failed", "pkeys_failed", "restore_failed"):
            if st.checks[k]:
                failed.append(f"{st.checks[k]} {k}")
        if growth is None or growth > a.rss_limit:
            failed.append(f"RSS grew {growth} kB after warm-up (limit "
                          f"{a.rss_limit} kB)")
        if not final_ok or rc != 0:
            failed.append(f"OpenSM exit {rc}")
        if not st.queries["answered"]:
            failed.append("no query answered")
        out = {
            "result": "FAIL" if failed else "PASS", "why": failed,
            "seed": self.seed, "minutes_asked": a.minutes,
            "seconds": round(seconds, 1),
            "fabric": f"fattree2 {a.leaves} leaves x {a.hosts} hosts, "
                      f"{a.spines} spines ({len(self.fab.nodes)} nodes)",
            "faults_injected": n, "faults_by_kind": st.faults,
            "queries": st.queries, "inconsistent_examples":
                st.inconsistent[:20],
            "sweeps": st.sweeps, "sweeps_ended_in_errors": st.failed_sweeps,
            "crashes": st.crashes, "opensm_exit": rc, "checks": st.checks,
            "partitions_lost": st.checks["pkeys_failed"],
            "rss": rss, "problems": st.problems[:50],
            "command": " ".join(sys.argv),
        }
        with open(os.path.join(self.work, "soak-report.json"), "w") as fh:
            json.dump(out, fh, indent=1)
        lines = [f"soak {out['result']}" + (f": {'; '.join(failed)}"
                                            if failed else ""),
                 f"seed {self.seed}, {seconds / 60:.1f} minutes, "
                 f"{out['fabric']}",
                 f"faults injected {n}: " + ", ".join(
                     f"{k} {v}" for k, v in sorted(st.faults.items())),
                 "queries: " + ", ".join(f"{k} {v}" for k, v in
                                         st.queries.items()),
                 f"sweeps {st.sweeps} (SUBNET UP), "
                 f"{st.failed_sweeps} ended in errors (MAD loss, flaps)",
                 f"crashes {st.crashes}, OpenSM exit {rc}",
                 "checks: " + ", ".join(f"{k} {v}" for k, v in
                                        st.checks.items()),
                 f"partitions lost (P_Key checks failed) "
                 f"{st.checks['pkeys_failed']}",
                 f"RSS kB: start {rss['start_kb']}, after warm-up "
                 f"({a.warmup} min) {rss['after_warmup_kb']}, end "
                 f"{rss['end_kb']}, max {rss['max_kb']}, slope after "
                 f"warm-up {rss['slope_kb_per_hour']} kB/h, limit "
                 f"+{a.rss_limit} kB after warm-up",
                 f"command: {out['command']}"]
        text = "\n".join(lines) + "\n"
        with open(os.path.join(self.work, "soak-report.txt"), "w") as fh:
            fh.write(text)
        print(text, end="", flush=True)
        return 1 if failed else 0


def _diff_lfts(a, b):
    return [f"0x{g:016x} lid {lid}: {a.get(g, {}).get(lid)} vs "
            f"{b.get(g, {}).get(lid)}"
            for g, lid in sorted(vfsim.changed_entries(a, b))]


def _slope(samples):
    """Least-squares slope (kB per second) of (t, kB) samples."""
    if len(samples) < 2:
        return None
    n = len(samples)
    mt = sum(t for t, _ in samples) / n
    mk = sum(k for _, k in samples) / n
    var = sum((t - mt) ** 2 for t, _ in samples)
    return sum((t - mt) * (k - mk) for t, k in samples) / var if var else 0.0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--minutes", type=float, default=float(
        os.environ.get("SOAK_MINUTES", "180")),
        help="duration (default $SOAK_MINUTES or 180)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--work", help="work dir (default ./soak-DATE-TIME)")
    p.add_argument("--vfabric", default=os.path.join(TOP, "tools", "vfabric"))
    p.add_argument("--sa", default=os.path.join(TOP, "tools", "vfabric-sa"))
    p.add_argument("--plugin-dir", default=os.path.join(TOP, "plugin",
                                                        ".libs"))
    p.add_argument("--leaves", type=int, default=8)
    p.add_argument("--spines", type=int, default=4)
    p.add_argument("--hosts", type=int, default=8)
    p.add_argument("--min-gap", type=float, default=10,
                   help="seconds between faults, at least")
    p.add_argument("--max-gap", type=float, default=60)
    p.add_argument("--full-every", type=int, default=3,
                   help="full check (P_Keys, restore) every Nth fault")
    p.add_argument("--query-threads", type=int, default=2)
    p.add_argument("--query-interval", type=float, default=0.2,
                   help="seconds between a thread's queries")
    p.add_argument("--sweep-interval", type=int, default=10,
                   help="OpenSM's sweep_interval")
    p.add_argument("--kinds", type=lambda v: v.split(","), default=None,
                   help="only these fault kinds (comma-separated)")
    p.add_argument("--rss-every", type=float, default=15)
    p.add_argument("--warmup", type=float, default=10,
                   help="minutes before the RSS baseline")
    p.add_argument("--rss-limit", type=int, default=2048,
                   help="kB the RSS may grow after the warm-up")
    a = p.parse_args()
    a.vfabric, a.sa = os.path.abspath(a.vfabric), os.path.abspath(a.sa)
    a.plugin_dir = os.path.abspath(a.plugin_dir)
    a.warmup = min(a.warmup, a.minutes / 6)
    missing = vfsim.missing_tools()
    if missing:
        raise SystemExit(f"soak: missing {' '.join(missing)}")
    sys.exit(Soak(a).run())


if __name__ == "__main__":
    main()
