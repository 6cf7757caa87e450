#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The configuration-fault suite: a broken or unsafe configuration file
never changes what the fabric holds.

Stock OpenSM with the plugin on an ibsim fat tree, with a tenant policy in
each of three syntaxes: opafm.xml (config=, with QoS VFs so that SL2VL and
VL arbitration are ours), partitions.conf with vFabric statements and a
stock partitions.conf (both as partition_config_file).  Every fault

  empty, whitespace, comment-only, directory, FIFO, deleted, symlink
  swapped (to a directory), cut at a line and mid-write (a writer pausing,
  then finishing), huge (17 MiB), byte-order mark, wrong file (an
  opensm.conf), no virtual fabrics (valid XML, <VirtualFabrics> mistyped)

is put in place at start (OpenSM restarted with the last good copy in its
cache), before a SIGHUP, or for the config poll alone; after each, every
P_Key table (hosts, the switch ports facing them, switch port 0s), every
LFT and, for the XML policy, SL2VL and VLArb tables read back from the
fabric are what they were, and the fault was said exactly once (one ERR
VF0802 naming the file; none for the writer that finishes, nor for a
byte-order mark, which changes nothing), even after one more sweep.  A
valid edit at the end must change the tables: the comparison can fail.

Without a last good copy: on_config_error=deny and last-good keep the
tenants apart (every host a limited member of the default partition),
open gives OpenSM's default policy.  And the plugin's generated file, read
by stock OpenSM alone (the plugin fails to load), programs the same P_Key
tables as the plugin did.

Short by default: each fault once, in a syntax and mode picked by a seeded
rotation (VF_SEED) so that every syntax and mode is covered.  The whole
matrix (13 faults x 3 syntaxes x 3 modes): VF_CONFIG_FAULTS=full, or `make
check-config-faults`.
"""

import os
import random
import re
import shutil
import signal
import time

import faults
import topogen
import vfsim
import vftest

FULL = 0x8000
SETTLE = 1          # config_settle for the run (seconds)
WRITER_PAUSE = 0.4  # a writer's pause in the middle of a file (< SETTLE)
QUIET = 0.6        # seconds without a sweep after the expected one

XML = """<?xml version="1.0"?>
<Config><Common>
<Applications>
 <Application><Name>AllOthers</Name><Select>UnmatchedServiceID</Select></Application>
</Applications>
<DeviceGroups>
 <DeviceGroup><Name>TenantA</Name><NodeDesc>cn000[1-6]*</NodeDesc></DeviceGroup>
 <DeviceGroup><Name>TenantB</Name><NodeDesc>cn00[07-14]*</NodeDesc></DeviceGroup>
 <DeviceGroup><Name>Storage</Name><NodeDesc>stor*</NodeDesc></DeviceGroup>
</DeviceGroups>
<VirtualFabrics>
 <VirtualFabric><Name>TenantA</Name><Enable>1</Enable><PKey>0x0010</PKey>
  <Security>1</Security><Member>TenantA</Member>
  <Application>AllOthers</Application>
  <QOS>1</QOS><BaseSL>1</BaseSL><Bandwidth>40%</Bandwidth></VirtualFabric>
 <VirtualFabric><Name>TenantB</Name><Enable>1</Enable><PKey>0x0020</PKey>
  <Security>1</Security><Member>TenantB</Member>
  <Application>AllOthers</Application>
  <QOS>1</QOS><BaseSL>2</BaseSL><Bandwidth>30%</Bandwidth></VirtualFabric>
 <VirtualFabric><Name>Storage</Name><Enable>1</Enable><PKey>0x0030</PKey>
  <Security>1</Security><Member>Storage</Member>
  <LimitedMember>TenantA</LimitedMember><LimitedMember>TenantB</LimitedMember>
  <Application>AllOthers</Application></VirtualFabric>
</VirtualFabrics>
</Common></Config>
"""
EXT = """# tenants by NodeDesc, storage for both
DeviceGroup TenantA : desc=cn000[1-6]* ;
DeviceGroup TenantB : desc="cn00[07-14]*" ;
DeviceGroup Storage : desc=stor* ;
Default=0x7fff, ipoib : ALL_SWITCHES=full ;
tenantA=0x0010, ipoib : @TenantA=full ;
tenantB=0x0020, ipoib : @TenantB=full ;
storage=0x0030 : @Storage=full, @TenantA, @TenantB ;
"""
STOCK = """# tenants by port GUID
Default=0x7fff, ipoib : ALL_SWITCHES=full, SELF=full ;
tenantA=0x0010, ipoib : {cn0001}=full, {cn0002}=full, {cn0003}=full ;
tenantB=0x0020, ipoib : {cn0009}=full, {cn0010}=full ;
storage=0x0030 : {stor01}=full, {stor02}=full,
	{cn0001}, {cn0009} ;
"""
# what each syntax's valid edit at the end drops (the positive control)
EDITS = {"xml": lambda t: t.replace(
    "<LimitedMember>TenantB</LimitedMember>", ""),
    "ext": lambda t: t.replace(", @TenantB ;", " ;"),
    "stock": lambda t: "".join(line for line in t.splitlines(True)
                               if not line.startswith("tenantB"))}
COMMENT = {"xml": "<!-- nothing here yet -->\n",
           "ext": "# nothing here yet\n# (a policy will follow)\n",
           "stock": "# nothing here yet\n"}
WRONG = ("# opensm.conf\nrouting_engine minhop\nlog_flags 0x43\n"
         "sweep_interval 10\n")


class Fault:
    """One fault: `put` makes it at path; `error`: whether the plugin
    must say so (ERR VF0802); `writer`: a writer at work that finishes
    the good file after a pause (nothing may be applied before that)."""

    def __init__(self, name, put, error=True, writer=None):
        self.name, self.put, self.error, self.writer = \
            name, put, error, writer


def clear(path):
    if os.path.islink(path) or os.path.isfile(path):
        os.unlink(path)
    elif os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.unlink(path)      # a FIFO


def write_in_place(path, data):
    """Like an editor or cp: truncate and write the same inode."""
    if not os.path.isfile(path) or os.path.islink(path):
        clear(path)
    with open(path, "wb") as fh:
        fh.write(data)


def cut_at_line(text):
    lines = text.splitlines(keepends=True)
    return "".join(lines[:len(lines) // 2])


def cut_mid_line(text):
    lines = text.splitlines(keepends=True)
    head = "".join(lines[:len(lines) // 2])
    return head + lines[len(lines) // 2][:7]


def faults_for(syntax, good, workdir):
    def text(t):
        return lambda p: write_in_place(p, t.encode())

    def mkdir(p):
        clear(p)
        os.mkdir(p)

    def mkfifo(p):
        clear(p)
        os.mkfifo(p)

    def symlink(p):
        clear(p)
        os.symlink(workdir, p)

    def huge(p):
        pad = (" " * 1023 + "\n") * (17 * 1024)
        write_in_place(p, (good + pad).encode())

    faults = [
        Fault("empty", text("")),
        Fault("whitespace", text("  \n\t\n\n")),
        Fault("comment-only", text(COMMENT[syntax])),
        Fault("directory", mkdir),
        Fault("FIFO", mkfifo),
        Fault("deleted", clear),
        Fault("symlink swapped", symlink),
        Fault("cut at a line", text(cut_at_line(good)), error=False,
              writer=good),
        Fault("mid-write", text(cut_mid_line(good)), error=False,
              writer=good),
        Fault("huge", huge),
        Fault("byte-order mark", lambda p: write_in_place(
            p, b"\xef\xbb\xbf" + good.encode()), error=False),
        Fault("wrong file", text(WRONG)),
        # valid XML whose <VirtualFabrics> has a typo: it would give
        # every port the default partition, full (audit: refused now)
        Fault("no virtual fabrics", text(
            XML.replace("VirtualFabrics>", "VirtualFabric_s>"))),
    ]
    assert len(faults) == NUM_FAULTS
    return faults


class Run:
    """One OpenSM with the plugin on one policy file."""

    def __init__(self, tap, sim, syntax, work):
        self.tap, self.sim, self.syntax = tap, sim, syntax
        self.path = os.path.join(work, f"policy-{syntax}.conf"
                                 if syntax != "xml" else "policy.xml")
        guids = {n.id: f"0x{n.guid + 1:016x}" for n in sim.fabric.hcas()}
        self.good = {"xml": XML, "ext": EXT,
                     "stock": STOCK.format(**guids)}[syntax]
        self.name = f"osm-{syntax}"
        self.base = None

    def conf(self, extra_opts=""):
        opts = (f"log_level=info config_poll=1 config_settle={SETTLE} "
                + extra_opts)
        extra = []
        if self.syntax == "xml":
            opts += f" config={self.path}"
        else:
            extra.append(f"partition_config_file {self.path}")
        return vftest.plugin_conf(engine="fattree", options=opts,
                                  extra=extra)

    def start(self, writer=None):
        log = os.path.join(self.sim.workdir, self.name, "opensm.log")
        if os.path.exists(log):
            os.unlink(log)      # its SUBNET UP is not the new one's
        self.sim.start_opensm(name=self.name, conf_lines=self.conf(),
                              plugin_dir=vftest.PLUGIN_DIR)
        if writer is not None:
            time.sleep(WRITER_PAUSE)   # the writer's pause is the fault
            write_in_place(self.path, writer.encode())
        self.sim.wait_subnet_up()
        faults.settle(self.sim, 0, quiet=QUIET)

    def sighup(self):
        since = self.sim.log_offset()
        self.sim.osms[-1].popen.send_signal(signal.SIGHUP)
        faults.settle(self.sim, since, quiet=QUIET)
        return since


_NODES = {}


def read_state(sim, syntax):
    """Everything a broken file must not change, read from the fabric
    (the fabric itself does not change: discovered once)."""
    if sim not in _NODES:
        _NODES[sim] = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    nodes = _NODES[sim]
    state = {}
    for guid, n in sorted(nodes.items()):
        name = n["desc"].split()[0]
        if n["kind"] == "Ca":
            state[f"{name} pkeys"] = sim.pkeys(n["lid"])
            sw_guid, sw_port = n["links"][1]
            state[f"{name} facing pkeys"] = sim.pkeys(
                nodes[sw_guid]["lid"], sw_port)
        else:
            state[f"{name} port 0 pkeys"] = sim.pkeys(n["lid"])
    state["lfts"] = vfsim.read_lfts(sim.dump_lfts())
    if syntax == "xml":
        for h in ("cn0001", "stor01"):
            state[f"{h} sl2vl"] = vfsim.parse_sl2vl(sim.run_diag(
                ["smpquery", "sl2vl", "-D", "0"], node=h))
            state[f"{h} vlarb"] = sim.run_diag(
                ["smpquery", "vlarb", "-D", "0"], node=h)
    return state


def _short(v):
    """A P_Key table as its non-zero entries (index:hex); else as is."""
    if isinstance(v, list) and all(isinstance(x, int) for x in v):
        return " ".join(f"{i}:{x:#06x}" for i, x in enumerate(v) if x)
    return str(v)[:200]


def differences(a, b, limit=8):
    out = [f"{k}: {_short(a.get(k))} -> {_short(b.get(k))}"
           for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    return "\n".join(out[:limit] + ([f"... {len(out) - limit} more"]
                                    if len(out) > limit else []))


def tenants_apart(tap, label, state, sm):
    """The policy's point: no host of tenant A is a full member of a P_Key
    a host of tenant B is a full member of (the SM's host aside)."""
    full = {k[:-len(" pkeys")]: {p & 0x7fff for p in v if p & FULL}
            for k, v in state.items()
            if k.endswith(" pkeys") and k.startswith("cn")
            and "facing" not in k and not k.startswith(sm + " ")}
    a = set().union(*(full[h] for h in full if int(h[2:]) <= 6))
    b = set().union(*(full[h] for h in full if 7 <= int(h[2:]) <= 14))
    tap.ok(a and b and not (a & b) and 0x7fff not in a | b,
           f"{label}: tenants A and B share no full membership, nor the "
           "default partition", f"A {sorted(map(hex, a))} B "
           f"{sorted(map(hex, b))}")


def count_refusals(log, path):
    return len([line for line in log.splitlines()
                if "ERR VF0802: " in line and path in line])


def check(tap, run, label, fault, since):
    """After a fault: one more sweep, then the fabric is as it was and the
    fault was said exactly once (or not at all)."""
    sim = run.sim
    run.sighup()            # one more sweep must not say it again
    log = sim.log_text(since)
    n = count_refusals(log, run.path)
    want = 1 if fault.error else 0
    tap.ok(n == want, f"{label}: {want} ERR VF0802 naming the file, "
           f"after two sweeps ({n})",
           "\n".join(line for line in log.splitlines()
                     if "ERR VF08" in line)[-1500:])
    if fault.error:
        m = re.search(r"ERR VF0802: (.*)", log)
        tap.ok(m and ("keeping the last good configuration (" in m.group(1)
                      or "using the last good copy of " in m.group(1)),
               f"{label}: it says which configuration is kept",
               m.group(0) if m else None)
    applied = re.findall(r"vfabric: config (\S+): \d+ applications, \d+ "
                         r"device groups, (\d+) virtual fabrics", log)
    tap.ok(all(v == str(run.good_vfs) for _, v in applied),
           f"{label}: no other version was ever applied",
           str(applied))
    t0 = time.monotonic()
    state = read_state(sim, run.syntax)
    tap.diag(f"{label}: read back in {time.monotonic() - t0:.1f} s")
    tap.ok(state == run.base, f"{label}: every P_Key table, LFT"
           f"{', SL2VL and VLArb' if run.syntax == 'xml' else ''} as "
           "before", differences(run.base, state))


def inject(tap, run, fault, mode):
    """Put fault in place by `mode` (over the last fault), and check."""
    sim, label = run.sim, f"{run.syntax}/{mode}: {fault.name}"
    t0 = time.monotonic()
    if mode == "start":
        sim.stop_opensm()
        fault.put(run.path)
        run.start(writer=fault.writer)
        check(tap, run, label, fault, 0)
    else:
        since = sim.log_offset()
        fault.put(run.path)
        if mode == "sighup":
            sim.osms[-1].popen.send_signal(signal.SIGHUP)
        if fault.writer is not None:
            time.sleep(WRITER_PAUSE)   # the writer's pause is the fault
            write_in_place(run.path, fault.writer.encode())
        want = (r"ERR VF0802: " if fault.error else
                r"vfabric: config \S+: \d+ applications")
        try:
            sim.wait_log(want, since, timeout=30)
        except vfsim.SimError:
            pass    # check() says what is missing
        faults.settle(sim, since, quiet=QUIET)
        check(tap, run, label, fault, since)
    if fault.name == "FIFO":
        # the sweeper never blocked on it: OpenSM stops at once on SIGTERM
        t1 = time.monotonic()
        rc = sim.stop_opensm()
        took = time.monotonic() - t1
        tap.ok(rc == 0 and took < 10, f"{label}: OpenSM exits on SIGTERM "
               f"(rc {rc}, {took:.1f} s)")
        run.start()
    # no repair: the next fault replaces this one, as an administrator's
    # next attempt would (the last good copy stays what the start found)
    tap.diag(f"{label}: {time.monotonic() - t0:.1f} s")


def positive_control(tap, run):
    """A valid edit changes the tables: the comparison above can fail."""
    since = run.sim.log_offset()
    write_in_place(run.path, EDITS[run.syntax](run.good).encode())
    run.sim.wait_log(r"vfabric: config \S+: \d+ applications", since,
                     timeout=60)
    faults.settle(run.sim, since, quiet=QUIET)
    state = read_state(run.sim, run.syntax)
    tap.ok(state != run.base, f"{run.syntax}: a valid edit (by the poll) "
           "changes the P_Key tables read back")


def run_syntax(tap, sim, work, syntax, cases):
    run = Run(tap, sim, syntax, work)
    write_in_place(run.path, run.good.encode())
    run.start()
    log = sim.log_text()
    m = re.search(r"vfabric: config \S+: \d+ applications, \d+ device "
                  r"groups, (\d+) virtual fabrics", log)
    run.good_vfs = int(m.group(1)) if m else -1
    tap.ok(m and "ERR VF" not in log, f"{syntax}: the policy is applied "
           "without an error", vfsim.tail(sim.osms[-1].log))
    run.base = read_state(sim, syntax)
    tenants_apart(tap, f"{syntax}: the policy", run.base,
                  sim.osms[-1].node)
    for fault, mode in cases:
        inject(tap, run, fault, mode)
    positive_control(tap, run)
    sim.stop_opensm()


def fresh_start(tap, sim, work, on_error, damaged=False):
    """A broken file at start and no last good copy: on_config_error.
    damaged: the cache holds a copy cut at a line, which must not be
    trusted (no length and digest of ours beside it)."""
    run = Run(tap, sim, "xml", work)
    run.name = f"osm-fresh-{on_error}{'-damaged' if damaged else ''}"
    write_in_place(run.path, b"")
    if damaged:
        cache = os.path.join(sim.workdir, run.name, "cache")
        os.makedirs(cache, exist_ok=True)
        with open(os.path.join(cache, "opensm-vfabric.last-good"),
                  "w") as fh:
            fh.write(cut_at_line(run.good))
        with open(os.path.join(cache, "opensm-vfabric.last-good.source"),
                  "w") as fh:
            fh.write(run.path + "\n")
    opts = "" if on_error is None else f"on_config_error={on_error}"
    sim.start_opensm(name=run.name, conf_lines=run.conf(opts),
                     plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    faults.settle(sim, 0, quiet=QUIET)
    label = (f"a damaged last good copy, on_config_error={on_error or 'default'}"
             if damaged else
             f"no last good, on_config_error={on_error or 'default'}")
    log = sim.log_text()
    if damaged:
        tap.ok("ERR VF0811" in log and "is not the one kept" in log,
               f"{label}: the copy is not trusted, and said",
               vfsim.tail(sim.osms[-1].log, 5))
    state = read_state(sim, "xml")
    hosts = {k: v for k, v in state.items()
             if k.endswith(" pkeys") and "facing" not in k and
             "port 0" not in k}
    sm = f"{sim.osms[-1].node} pkeys"
    sw0 = [v for k, v in state.items() if "port 0" in k]
    others = [{p for p in v if p} for k, v in hosts.items() if k != sm]
    tap.ok(count_refusals(log, run.path) == 1, f"{label}: said once",
           vfsim.tail(sim.osms[-1].log, 5))
    if on_error == "open":
        tap.ok(all(t == {0xffff} for t in others),
               f"{label}: OpenSM's default policy, every host full",
               str(others))
    else:
        tap.ok("tenants apart" in log and
               all(t == {0x7fff} for t in others) and
               {p for p in hosts[sm] if p} == {0xffff} and
               all({p for p in t if p} == {0xffff} for t in sw0),
               f"{label}: tenants apart: every host limited in the default "
               "partition, the SM's port and switch port 0s full",
               f"{others} SM {hosts[sm]}")
    sim.stop_opensm()


def own_output(tap, sim, work):
    """partition_config_file naming the plugin's own generated file, no
    config=: refused once (it is no policy), tenants apart."""
    name = "osm-own-output"
    cache = os.path.join(sim.workdir, name, "cache")
    os.makedirs(cache, exist_ok=True)
    gen = os.path.join(cache, "opensm-vfabric-partitions.conf")
    with open(gen, "w") as fh:
        fh.write("Default=0x7fff, ipoib : ALL=full ;\n")
    sim.start_opensm(name=name, conf_lines=vftest.plugin_conf(
        engine="fattree", options=f"log_level=info config_poll=1 "
        f"config_settle={SETTLE}", extra=[f"partition_config_file {gen}"]),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    faults.settle(sim, 0, quiet=QUIET)
    since = sim.log_offset()
    sim.osms[-1].popen.send_signal(signal.SIGHUP)
    faults.settle(sim, since, quiet=QUIET)
    log = sim.log_text()
    state = read_state(sim, "plain")
    sm = f"{sim.osms[-1].node} pkeys"
    hosts = [{p for p in v if p} for k, v in state.items()
             if k.endswith(" pkeys") and "facing" not in k and
             "port 0" not in k and k != sm]
    tap.ok(count_refusals(log, gen) == 1 and "is the partitions file the "
           "plugin generates" in log, "partition_config_file naming the "
           "plugin's own output: refused, said once after two sweeps",
           vfsim.tail(sim.osms[-1].log, 5))
    tap.ok(all(t == {0x7fff} for t in hosts), "and the tenants are apart "
           "(every host limited in the default partition)", str(hosts))
    sim.stop_opensm()


def without_plugin(tap, sim, work):
    """partition_config_file naming the plugin's generated file: stock
    OpenSM alone (the plugin fails to load) programs the same tables."""
    run = Run(tap, sim, "xml", work)
    run.name = "osm-fallback"
    write_in_place(run.path, run.good.encode())
    gen = os.path.join(sim.workdir, run.name, "cache",
                       "opensm-vfabric-partitions.conf")
    conf = run.conf() + [f"partition_config_file {gen}"]
    sim.start_opensm(name=run.name, conf_lines=conf,
                     plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    faults.settle(sim, 0, quiet=QUIET)
    ours = {k: v for k, v in read_state(sim, "xml").items()
            if k.endswith("pkeys")}
    sim.stop_opensm()
    os.unlink(os.path.join(sim.workdir, run.name, "opensm.log"))
    # the same opensm.conf, but the plugin cannot be loaded: a library
    # that is no ELF object comes first in the search path, so dlopen()
    # fails even where the plugin is installed (CI installs it)
    empty = os.path.join(work, "no-plugin")
    os.makedirs(empty, exist_ok=True)
    with open(os.path.join(empty, "libvfabric.so"), "w"):
        pass
    sim.start_opensm(name=run.name, conf_lines=conf, plugin_dir=empty)
    sim.wait_subnet_up()
    log = sim.log_text()
    tap.ok("loaded into" not in log and "vfabric:" not in log,
           "without the plugin: OpenSM runs on its own",
           vfsim.tail(sim.osms[-1].log, 5))
    stock = {k: v for k, v in read_state(sim, "plain").items()
             if k.endswith("pkeys")}
    tap.ok(stock == ours, "without the plugin, stock OpenSM on the "
           "generated file programs the same P_Key tables (hosts, their "
           "switch ports, switch port 0s)", differences(ours, stock))
    tenants_apart(tap, "without the plugin", stock, sim.osms[-1].node)
    sim.stop_opensm()


NUM_FAULTS = 13


def plan(seed, full):
    """[(syntax, [(fault index, mode)])]: the whole matrix, or each fault
    once in a seeded rotation covering every syntax and mode."""
    syntaxes, modes = ["xml", "ext", "stock"], ["sighup", "poll", "start"]
    if full:
        return {s: [(i, m) for m in modes for i in range(NUM_FAULTS)]
                for s in syntaxes}
    rng = random.Random(seed)
    order = list(range(NUM_FAULTS))
    rng.shuffle(order)
    combos = [(s, m) for s in syntaxes for m in modes]
    rng.shuffle(combos)
    out = {s: [] for s in syntaxes}
    for k, i in enumerate(order):
        s, m = combos[k % len(combos)]
        out[s].append((i, m))
    return out


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    full = os.environ.get("VF_CONFIG_FAULTS") == "full"
    seed = int(os.environ.get("VF_SEED", time.strftime("%Y%m%d")))
    tap.diag(f"seed {seed} ({'full matrix' if full else 'short'}; "
             "VF_SEED=N to repeat, VF_CONFIG_FAULTS=full for all)")
    work = vfsim.tempfile.mkdtemp(prefix="vf-cfgfaults-")
    fab = topogen.fattree2(leaves=4, spines=2, hosts=4, storage=2)
    cases = plan(seed, full)
    with vfsim.Sim(fab, "cfgfaults", tap=tap) as sim:
        sim.start_ibsim()
        for syntax in ("xml", "ext", "stock"):
            flist = faults_for(syntax, Run(tap, sim, syntax, work).good,
                               work)
            run_syntax(tap, sim, work, syntax,
                       [(flist[i], m) for i, m in cases[syntax]])
        for on_error in (None, "deny", "open"):
            fresh_start(tap, sim, work, on_error)
        fresh_start(tap, sim, work, None, damaged=True)
        own_output(tap, sim, work)
        without_plugin(tap, sim, work)
    shutil.rmtree(work, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
