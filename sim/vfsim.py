# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""ibsim + OpenSM harness for integration tests (Python 3 stdlib only).

Typical use::

    import vfsim
    t = vfsim.Tap()
    vfsim.require_tools(t)                     # skip_all if packages missing
    with vfsim.Sim("fabric.net", "mytest", tap=t) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=["routing_engine minhop"])
        sim.wait_subnet_up()
        out = sim.run_diag(["smpquery", "nodedesc", "1"], node="cn0001")
        sim.console('Unlink "L001"[5]')
        sim.wait_resweep()
        lfts = sim.dump_lfts()                 # path of dump_fts output
        rc = sim.stop_opensm()
    t.done()

What a Sim guarantees:
  * its own work dir (kept on failure, removed on success unless VF_KEEP=1),
    IBSIM_SOCKNAME, OpenSM cache/dump dirs and logs;
  * ibsim's console is a FIFO, work/console, that we hold open read-write
    (stdin at EOF makes ibsim spin; holding it needs no extra writer
    process); with VF_KEEP=1 you can type into a live run:
    echo 'Dump' > <workdir>/console;
    commands are followed by a "# marker" so we know when they are done;
  * waiting is polling with a timeout, failing fast when a process died;
  * teardown kills exactly the processes it started, by PID (SIGTERM,
    wait, SIGKILL), on normal exit, exceptions, SIGTERM/SIGINT and atexit;
    children also get SIGTERM if this process dies (PR_SET_PDEATHSIG);
  * never more than ibsim's 10 clients (OpenSMs + one diag tool at a time);
  * with VF_OSM_CHECK=asan or valgrind (sim/memcheck.py), every OpenSM
    runs under that check and each stop reads its reports: a TAP not-ok
    for any error or leak with a frame in our code; every timeout is
    scaled by VF_TIMEOUT_SCALE.
"""

import atexit
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import memcheck
import topogen

UMAD2SIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
PACKAGES = "opensm ibsim-utils libumad2sim0 infiniband-diags"
IBSIM_MAX_CLIENTS = 10
IBSIM_READY = "Network simulator ready."
# the log line (not the VERBOSE message box that also says SUBNET UP)
SUBNET_UP_RE = r"(?m)\] 0x[0-9a-f]{2} -> SUBNET UP$"

_live_sims = []
_counter = [0]


class SimError(Exception):
    """A harness step failed (process died, timeout, tool error)."""


# -- TAP ----------------------------------------------------------------------
class Tap:
    """Minimal TAP producer: ok()/diag()/skip(), plan printed by done()."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, msg, diag=None):
        """Emit one test point; on failure print `diag` as comments."""
        self.n += 1
        if cond:
            print(f"ok {self.n} - {msg}", flush=True)
        else:
            self.failed += 1
            print(f"not ok {self.n} - {msg}", flush=True)
            if diag:
                self.diag(diag)
        return bool(cond)

    def skip(self, msg, reason):
        """Emit a skipped test point."""
        self.n += 1
        print(f"ok {self.n} - {msg} # SKIP {reason}", flush=True)

    @staticmethod
    def diag(text):
        """Print text as TAP comment lines."""
        for line in str(text).splitlines() or [""]:
            print(f"# {line}", flush=True)

    @staticmethod
    def skip_all(reason):
        """Skip the whole test file and exit 0."""
        print(f"1..0 # SKIP {reason}", flush=True)
        sys.exit(0)

    @staticmethod
    def bail(reason):
        """Abort the whole run (TAP 'Bail out!') and exit 1."""
        print(f"Bail out! {reason}", flush=True)
        sys.exit(1)

    def done(self):
        """Print the plan; exit status 0 if all passed, else 1.  Under
        ASan, first check what our tools run by this test reported."""
        _check_tool_reports(self)
        print(f"1..{self.n}", flush=True)
        sys.exit(1 if self.failed else 0)


# -- tools --------------------------------------------------------------------
def find_tool(name):
    """Path of a program: $OPENSM/$IBSIM override, PATH, /usr/sbin.
    An override that names no program means "missing": the user asked for
    that one, and silently running another would hide the mistake."""
    env = os.environ.get(name.upper())
    if env:
        return shutil.which(env)
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


def missing_tools():
    """Names of missing programs/libraries this harness needs."""
    missing = [t for t in ("ibsim", "opensm", "ibnetdiscover", "smpquery",
                           "dump_fts") if not find_tool(t)]
    if not os.path.exists(UMAD2SIM):
        missing.append(UMAD2SIM)
    return missing


def require_tools(tap=None):
    """skip_all (exit 0) if ibsim/OpenSM/umad2sim/diags are missing.
    (`tap` is accepted for symmetry; skip_all needs no state.)"""
    missing = missing_tools()
    if missing:
        Tap.skip_all(f"missing {' '.join(missing)}; install the Debian "
                     f"packages: {PACKAGES}")


def _pdeathsig():
    """preexec_fn: the child gets SIGTERM if the harness dies."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    except OSError:
        pass


def scaled(timeout):
    """A timeout stretched for slow checkers (VF_TIMEOUT_SCALE)."""
    return timeout * memcheck.timeout_scale()


def wait_until(pred, timeout, what, alive=None, interval=0.02):
    """Poll pred() until it returns a true value (returned) or timeout
    (scaled, like every harness timeout).  `alive()` is checked each
    round and may raise SimError to fail fast."""
    timeout = scaled(timeout)
    end = time.monotonic() + timeout
    while True:
        val = pred()
        if val:
            return val
        if alive:
            alive()
        if time.monotonic() > end:
            raise SimError(f"timeout ({timeout}s) waiting for {what}")
        time.sleep(interval)
        interval = min(interval * 1.5, 0.1)


def read_bytes(path, offset=0):
    """Bytes of a file from `offset` (b'' if missing)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            return fh.read()
    except FileNotFoundError:
        return b""


def read_from(path, offset=0):
    """Text of a file from byte `offset` ('' if missing)."""
    return read_bytes(path, offset).decode("utf-8", "replace")


def file_size(path):
    """Size of a file, 0 if missing."""
    try:
        return os.path.getsize(path)
    except FileNotFoundError:
        return 0


def tail(path, lines=30):
    """Last lines of a file, for failure reports."""
    text = read_from(path).rstrip("\n").splitlines()
    return "\n".join(text[-lines:])


def stop_process(popen, timeout=10):
    """SIGTERM a process we started, wait up to `timeout` (scaled), then
    SIGKILL; return its exit code."""
    timeout = scaled(timeout)
    if popen.poll() is None:
        popen.send_signal(signal.SIGTERM)
        try:
            popen.wait(timeout)
        except subprocess.TimeoutExpired:
            popen.kill()
            popen.wait()
    return popen.returncode


def stop_processes(procs, timeout=10):
    """stop_process for each of {name: Popen}, in turn: {name: rc}."""
    return {name: stop_process(p, timeout) for name, p in procs.items()}


class Proc:
    """A process we started: name, Popen, log path."""

    def __init__(self, name, popen, log):
        self.name = name
        self.popen = popen
        self.log = log

    @property
    def pid(self):
        """The PID we started."""
        return self.popen.pid

    def alive(self):
        """True while the process runs."""
        return self.popen.poll() is None

    def stop(self, timeout=10):
        """SIGTERM, wait up to `timeout`, then SIGKILL; return exit code."""
        return stop_process(self.popen, timeout)


class OpenSM(Proc):
    """A running OpenSM: conf, log, cache and dump dirs, SIM_HOST node."""

    def __init__(self, name, popen, log, conf, dump_dir, node, check=""):
        super().__init__(name, popen, log)
        self.conf = conf
        self.dump_dir = dump_dir
        self.node = node
        self.check = check               # "asan", "valgrind" or ""
        self.report_dir = os.path.dirname(log)
        self.checked = False
        self.runtime_seen = None         # ASan runtime mapped at stop?

    def note_runtime(self):
        """Before stopping: is the ASan runtime really in the process (a
        preload that failed would otherwise look like a clean run)?"""
        if self.check != "asan" or self.runtime_seen or not self.alive():
            return
        try:
            with open(f"/proc/{self.pid}/maps") as fh:
                maps = fh.read()
        except OSError:
            return
        # a process being killed has no mappings left: no verdict then
        if maps:
            self.runtime_seen = "libasan" in maps


# -- the harness --------------------------------------------------------------
class Sim:
    """One ibsim instance, its OpenSMs and diag runs, in one work dir."""

    def __init__(self, netfile, name, tap=None, workdir=None):
        """netfile: path of an ibsim net file, or a topogen.Fabric (written
        to <workdir>/fabric.net); name: short test name;
        tap: a Tap whose failures mark the run failed (work dir kept)."""
        self.name = name
        self.tap = tap
        _counter[0] += 1
        # the name goes into paths that ASAN_OPTIONS and ibsim's socket
        # name carry, where a space or a colon would split them
        slug = re.sub(r"[^A-Za-z0-9_.-]", "-", name)
        self.sockname = f"vfsim-{slug}-{os.getpid()}-{_counter[0]}"
        self._own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(
            prefix=f"vfsim-{slug}-", dir=os.environ.get("VF_TMPDIR"))
        os.makedirs(self.workdir, exist_ok=True)
        self.fabric = None
        if isinstance(netfile, topogen.Fabric):
            self.fabric = netfile
            netfile = os.path.join(self.workdir, "fabric.net")
            self.fabric.write(netfile)
        self.netfile = os.path.abspath(netfile)
        self.keep = os.environ.get("VF_KEEP") == "1"
        self.failed = False
        self.ibsim = None
        self.console_fd = None
        self.ibsim_out = os.path.join(self.workdir, "ibsim.out")
        self.osms = []
        self.nodes = topogen.read_netfile(self.netfile)
        self._marks = 0
        self._since = 0            # log offset before the last console cmd
        self._since_t = time.monotonic()
        self._torn_down = False
        _live_sims.append(self)
        _install_handlers()

    # context manager ----------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, etype, exc, tb):
        if etype is not None:
            self.failed = True
            first = str(exc).splitlines()[0] if str(exc) else ""
            Tap.diag(f"{self.name}: {etype.__name__}: {first}")
        self.teardown()
        return False

    # ibsim ----------------------------------------------------------------
    def _env(self, node=None):
        env = dict(os.environ, IBSIM_SOCKNAME=self.sockname)
        if node is not None:
            env["SIM_HOST"] = node
            env["LD_PRELOAD"] = UMAD2SIM
            if memcheck.mode() == "asan":
                # ASan-built tools need the runtime before umad2sim
                env["LD_PRELOAD"] = memcheck.preload(UMAD2SIM)
        return env

    def start_ibsim(self, extra_args=(), timeout=60):
        """Start ibsim on the net file (sized with -N/-S/-P if needed) and
        wait until it parsed the file and serves its socket."""
        args = [find_tool("ibsim"), "-s"]
        args += topogen.ibsim_size_args(topogen.netfile_sizes(self.netfile))
        args += list(extra_args) + [self.netfile]
        out = open(self.ibsim_out, "wb")
        fifo = os.path.join(self.workdir, "console")
        os.mkfifo(fifo)
        # O_RDWR: opening never blocks and we stay a writer, so ibsim
        # never sees EOF on its console
        self.console_fd = os.open(fifo, os.O_RDWR)
        popen = subprocess.Popen(args, stdin=self.console_fd, stdout=out,
                                 stderr=subprocess.STDOUT, cwd=self.workdir,
                                 env=self._env(), preexec_fn=_pdeathsig)
        out.close()
        self.ibsim = Proc("ibsim", popen, self.ibsim_out)
        wait_until(lambda: IBSIM_READY in read_from(self.ibsim_out),
                   timeout, "ibsim to parse the net file",
                   self._check_ibsim)
        # the socket is set up after the banner; a console echo proves
        # the main loop (and so the listening socket) is running
        self.console("# vfsim: ready?", timeout=timeout)
        return self.ibsim

    def _check_ibsim(self):
        if self.ibsim is None or not self.ibsim.alive():
            rc = self.ibsim.popen.returncode if self.ibsim else None
            raise SimError(f"ibsim is not running (rc {rc}); ibsim.out:\n"
                           f"{tail(self.ibsim_out)}")

    def console(self, cmd, timeout=30):
        """Send one console command (e.g. 'Unlink "L001"[5]', 'Dump',
        'ReLink "L001"[5]') and return its output once ibsim is done with
        it.  Remembers the OpenSM log offset for wait_resweep()."""
        self._check_ibsim()
        self._since = self.log_offset()
        self._since_t = time.monotonic()
        self._marks += 1
        mark = f"# vfsim-mark-{self._marks}"
        start = file_size(self.ibsim_out)
        os.write(self.console_fd, f"{cmd}\n{mark}\n".encode())

        def answered():
            out = read_from(self.ibsim_out, start)
            # a 1-tuple: true even when the command printed nothing
            return (out[:out.index(mark)],) if mark in out else None

        text, = wait_until(answered, timeout, f"ibsim console: {cmd}",
                           self._check_ibsim)
        return re.sub(r"sim(?: \(inactive\))?> ", "", text)

    def attached(self):
        """ibsim's 'Attached' console listing: one line per client."""
        return [line for line in self.console("Attached").splitlines()
                if line.startswith("Client ")]

    # OpenSM ---------------------------------------------------------------
    def start_opensm(self, conf_lines=(), plugin_dir=None, valgrind=None,
                     node=None, args=(), name=None, env=None):
        """Start OpenSM at `node` (default: first CA in the net file) with
        a generated opensm.conf (`conf_lines` appended, so they override
        the defaults).  plugin_dir goes to LD_LIBRARY_PATH; valgrind is an
        argv prefix (e.g. ["valgrind", "--log-file=vg.log"]): the test's
        own valgrind then replaces the harness's check (VF_OSM_CHECK).
        Returns an OpenSM handle; the last one started is the default
        elsewhere."""
        check = memcheck.mode()
        if valgrind and memcheck.sanitized_build():
            raise SimError("valgrind cannot run the ASan-built plugin: "
                           "skip this under --enable-sanitizers")
        if check == "valgrind" and memcheck.sanitized_build():
            raise SimError("VF_OSM_CHECK=valgrind needs a build without "
                           "--enable-sanitizers")
        if valgrind:
            check = ""
        name = name or f"opensm{len(self.osms) + 1}"
        node = node or self.default_sm_node()
        self._check_clients(1)
        base = os.path.join(self.workdir, name)
        dump_dir = os.path.join(base, "dump")
        for d in (base, dump_dir, os.path.join(base, "cache")):
            os.makedirs(d, exist_ok=True)
        conf = os.path.join(base, "opensm.conf")
        log = os.path.join(base, "opensm.log")
        lines = ["force_log_flush TRUE", "accum_log_file FALSE",
                 f"dump_files_dir {dump_dir}"] + list(conf_lines)
        with open(conf, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        penv = self._env(node)
        penv.update(OSM_CACHE_DIR=os.path.join(base, "cache"),
                    OSM_TMP_DIR=dump_dir)
        if plugin_dir:
            penv["LD_LIBRARY_PATH"] = ":".join(
                filter(None, [plugin_dir, penv.get("LD_LIBRARY_PATH")]))
        penv.update(env or {})
        prefix = list(valgrind or [])
        if check == "asan":
            penv = memcheck.asan_env(base, penv)
        else:
            penv["LD_PRELOAD"] = UMAD2SIM
        if check == "valgrind":
            prefix = memcheck.valgrind_argv(base)
        argv = prefix + [find_tool("opensm"), "-F", conf, "-f", log] + \
            list(args)
        with open(os.path.join(base, "stdout"), "wb") as out:
            popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                     stdout=out, stderr=subprocess.STDOUT,
                                     cwd=base, env=penv,
                                     preexec_fn=_pdeathsig)
        osm = OpenSM(name, popen, log, conf, dump_dir, node, check)
        self.osms.append(osm)
        return osm

    def default_sm_node(self):
        """First CA of the net file (topogen puts admin hosts first)."""
        for n in self.nodes.values():
            if n.kind == "Hca":
                return n.id
        raise SimError("net file has no CA to run OpenSM on")

    def _osm(self, osm):
        if osm is None:
            if not self.osms:
                raise SimError("no OpenSM started")
            return self.osms[-1]
        return osm

    def _check_osm(self, osm):
        self._check_ibsim()
        osm.note_runtime()
        if not osm.alive():
            raise SimError(
                f"{osm.name} exited (rc {osm.popen.returncode}); log tail:\n"
                f"{tail(osm.log)}\nstdout:\n"
                f"{tail(os.path.join(os.path.dirname(osm.log), 'stdout'))}")

    def log_offset(self, osm=None):
        """Current size of the OpenSM log (0 before any OpenSM)."""
        if osm is None and not self.osms:
            return 0
        return file_size(self._osm(osm).log)

    def log_text(self, since=0, osm=None):
        """OpenSM log text from byte offset `since`."""
        return read_from(self._osm(osm).log, since)

    def wait_log(self, regex, since=0, timeout=60, osm=None):
        """Wait for a regex in the OpenSM log after offset `since`;
        return the match object."""
        osm = self._osm(osm)
        rx = re.compile(regex)
        state = {"pos": since, "carry": b""}

        def scan():
            # read only what is new; keep the last partial line
            chunk = read_bytes(osm.log, state["pos"])
            state["pos"] += len(chunk)
            data = state["carry"] + chunk
            cut = data.rfind(b"\n") + 1
            state["carry"] = data[cut:]
            return rx.search(data[:cut].decode("utf-8", "replace"))

        return wait_until(scan, timeout, f"/{regex}/ in {osm.log}",
                          lambda: self._check_osm(osm))

    def wait_log_end(self, regex, since=0, timeout=60, osm=None):
        """Like wait_log, but return the log offset just past the first
        line after `since` that matches, to wait for what follows it."""
        osm = self._osm(osm)
        rx = re.compile(regex.encode())

        def scan():
            data = read_bytes(osm.log, since)
            m = rx.search(data)
            if not m:
                return None
            nl = data.find(b"\n", m.end())
            return since + (nl + 1 if nl >= 0 else len(data))

        return wait_until(scan, timeout, f"/{regex}/ in {osm.log}",
                          lambda: self._check_osm(osm))

    def reload_config(self, path, text, after=None, timeout=120, osm=None):
        """Write `text` to the plugin's configuration file `path`, SIGHUP
        OpenSM and wait for the sweep that read it: the line `after` logs
        (default: the plugin's 'config PATH:' line of a file applied),
        then SUBNET UP.  A sweep already under way when the signal comes
        (a retry, the config poll) ends with a SUBNET UP of the old
        policy, so SUBNET UP alone does not say the file was read.  Text
        equal to the file's: any SUBNET UP after the signal.  Returns the
        log offset to wait from for later lines."""
        osm = self._osm(osm)
        same = read_bytes(path) == text.encode()
        since = self.log_offset(osm)    # before: the poll may see it first
        with open(path, "w") as fh:
            fh.write(text)
        osm.popen.send_signal(signal.SIGHUP)
        if not same:
            since = self.wait_log_end(
                after or
                rf"vfabric: config {re.escape(path)}: \d+ applications",
                since, timeout, osm)
        self.wait_subnet_up(timeout, osm, since)
        return since

    def subnet_up_count(self, osm=None):
        """How many SUBNET UP lines the OpenSM log has."""
        return len(re.findall(SUBNET_UP_RE, self.log_text(0, osm)))

    def wait_subnet_up(self, timeout=120, osm=None, since=0):
        """Wait for SUBNET UP after log offset `since`; return seconds
        waited."""
        t0 = time.monotonic()
        self.wait_log(SUBNET_UP_RE, since, timeout, osm)
        return time.monotonic() - t0

    @property
    def cmd_log_offset(self):
        """OpenSM log offset taken just before the last console() command
        (what wait_resweep() waits after)."""
        return self._since

    def wait_resweep(self, timeout=60, osm=None):
        """Wait for a SUBNET UP logged after the last console() command;
        return seconds since that command was sent."""
        self.wait_subnet_up(timeout, osm, self._since)
        return time.monotonic() - self._since_t

    def stop_opensm(self, osm=None, timeout=60):
        """SIGTERM OpenSM, wait for it to exit (valgrind output is then
        complete) and return its exit code.  Under VF_OSM_CHECK, its
        reports are read then (a TAP test point)."""
        osm = self._osm(osm)
        osm.note_runtime()
        rc = osm.stop(timeout)
        self._check_memory(osm)
        return rc

    def _check_memory(self, osm):
        """Read a stopped OpenSM's ASan/UBSan/LSan or valgrind reports:
        not ok for any error or leak with a frame in our code; findings
        entirely outside it are listed and counted.  A SIGKILLed OpenSM
        made no exit, so it has no leak check: only its errors count."""
        if not osm.check or osm.checked or osm.alive():
            return
        osm.checked = True
        killed = osm.popen.returncode == -signal.SIGKILL
        files = memcheck.report_files(osm.report_dir)
        if osm.check == "asan":
            # GCC's libubsan ignores log_path once the ASan runtime is
            # loaded: its reports go to stderr, which is in this file
            files.append(os.path.join(osm.report_dir, "stdout"))
        recs = [r for f in files for r in memcheck.parse(f)]
        if killed:
            recs = [r for r in recs if r.kind != "leak"]
        ours = [r for r in recs if r.ours]
        stock = [r for r in recs if not r.ours]
        if osm.check == "asan":
            # None: the process was gone before we could look
            active = osm.runtime_seen is not False
        else:
            active = any(os.path.basename(f).startswith("valgrind.")
                         for f in files)
        what = f"{osm.name} under {osm.check}"
        msg = (f"{what}: no error or leak with a frame in the plugin or "
               "our libraries")
        diag = ""
        if not active:
            msg += " -- but the check was not running in it"
        if ours:
            msg += (f" -- {len(ours)} found; first in {ours[0].path}: "
                    f"{ours[0].first_ours()}")
            diag = "\n\n".join(memcheck.describe(r) for r in ours[:3])
        self._tap_ok(active and not ours, msg, diag)
        note = " (SIGKILL: no leak check)" if killed else ""
        Tap.diag(f"memcheck: {osm.name} {osm.check} rc "
                 f"{osm.popen.returncode}{note} {_counts(ours, stock)}")
        if stock:
            Tap.diag(f"{what}: {len(stock)} findings entirely outside our "
                     "code (stock OpenSM, umad2sim, libc; not failures):\n"
                     + memcheck.stock_summary(stock)
                     + f"\n  reports: {' '.join(files)}")

    def _tap_ok(self, cond, msg, diag):
        """A test point on our Tap; without one (demo, bench), a failure
        marks the run failed and is printed."""
        if self.tap is not None:
            self.tap.ok(cond, msg, diag)
        elif not cond:
            self.failed = True
            Tap.diag(f"FAILED: {msg}\n{diag}")

    # diag tools -----------------------------------------------------------
    def _check_clients(self, new):
        live = sum(1 for o in self.osms if o.alive())
        if live + new > IBSIM_MAX_CLIENTS:
            raise SimError(f"would exceed ibsim's {IBSIM_MAX_CLIENTS} "
                           f"clients ({live} OpenSMs running)")

    def run_diag(self, argv, node=None, timeout=120, check=True):
        """Run a diag tool (argv[0] found via PATH or /usr/sbin) attached
        at `node` (default: the SM node, else the first CA); return its
        stdout.  Raises SimError on a non-zero exit if `check`."""
        self._check_ibsim()
        self._check_clients(1)
        node = node or (self.osms[-1].node if self.osms
                        else self.default_sm_node())
        prog = find_tool(argv[0]) or argv[0]
        cwd = os.path.join(self.workdir, "diag")
        os.makedirs(cwd, exist_ok=True)
        env = self._env(node)
        if not memcheck.links_asan(prog):
            # a stock diag tool: not under test, no ASan runtime
            env["LD_PRELOAD"] = UMAD2SIM
        try:
            res = subprocess.run([prog] + list(argv[1:]), cwd=cwd,
                                 env=env, capture_output=True,
                                 timeout=scaled(timeout),
                                 preexec_fn=_pdeathsig,
                                 stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as e:
            raise SimError(f"{argv[0]} timed out after {scaled(timeout)}s"
                           ) from e
        out = res.stdout.decode("utf-8", "replace")
        if check and res.returncode != 0:
            raise SimError(f"{' '.join(argv)} at {node}: rc "
                           f"{res.returncode}\n{out[-2000:]}"
                           f"{res.stderr.decode('utf-8', 'replace')[-2000:]}")
        return out

    def pkeys(self, lid, port=None):
        """The P_Key table of LID (a CA port, or switch port 0) or of a
        switch's external port, read back with smpquery: the 16-bit
        entries in index order."""
        argv = ["smpquery", "pkeys", str(lid)]
        if port is not None:
            argv.append(str(port))
        return parse_pkeys(self.run_diag(argv))

    def _diag_to_file(self, argv, path, default_name, node):
        path = path or os.path.join(self.workdir, default_name)
        with open(path, "w") as fh:
            fh.write(self.run_diag(argv, node=node))
        return path

    def discover(self, path=None, node=None):
        """ibnetdiscover output into a file (default work/ibnetdiscover.out);
        return its path."""
        return self._diag_to_file(["ibnetdiscover"], path,
                                  "ibnetdiscover.out", node)

    def dump_lfts(self, path=None, node=None):
        """dump_fts output (all switch LFTs) into a file (default
        work/dump_fts.out); return its path."""
        return self._diag_to_file(["dump_fts"], path, "dump_fts.out", node)

    # teardown -------------------------------------------------------------
    def teardown(self):
        """Stop everything we started (by PID), report and clean up.
        Idempotent."""
        if self._torn_down:
            return
        # a second Ctrl-C must not interrupt the kills; it is delivered
        # (and raises) once they are done
        old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:
            self._stop_all()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        self._torn_down = True
        if self.tap is not None and self.tap.failed:
            self.failed = True
        if self in _live_sims:
            _live_sims.remove(self)
        if self.failed:
            self._report_failure()
        if self.failed or self.keep:
            Tap.diag(f"{self.name}: work dir kept: {self.workdir}")
        elif self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def _stop_all(self):
        """Stop our OpenSMs, then ibsim (by PID, SIGTERM then SIGKILL)."""
        for osm in reversed(self.osms):
            osm.note_runtime()
            osm.stop(60)
            self._check_memory(osm)
        if self.ibsim is not None:
            self.ibsim.stop(10)
        if self.console_fd is not None:
            os.close(self.console_fd)
            self.console_fd = None

    def _report_failure(self):
        for osm in self.osms:
            Tap.diag(f"--- {osm.name} log tail ({osm.log}):")
            Tap.diag(tail(osm.log, 25))
        Tap.diag("--- ibsim.out tail:")
        Tap.diag(tail(self.ibsim_out, 10))


# -- parsers for diag output --------------------------------------------------
_IBND_HDR = re.compile(r'^(Switch|Ca)\s+(\d+)\s+"[SH]-([0-9a-f]+)"\s+#\s+'
                       r'"([^"]*)"(?:.*?\blid (\d+))?')
_LFT_HDR = re.compile(r"guid (0x[0-9a-fA-F]+)")
_LFT_ROW = re.compile(r"^(0x[0-9a-fA-F]+)\s+(\d+)\s")


def parse_ibnetdiscover(text):
    """ibnetdiscover output -> {node guid (int): {"kind": "Switch"|"Ca",
    "ports": n, "desc": str, "lid": int|None, "links": {port: (peer guid,
    peer port)}}}.  A switch's lid is its port-0 LID; a CA's is the LID
    of its first connected port."""
    nodes, cur = {}, None
    for line in text.splitlines():
        m = _IBND_HDR.match(line)
        if m:
            cur = {"kind": m.group(1), "ports": int(m.group(2)),
                   "desc": m.group(4), "links": {},
                   "lid": int(m.group(5)) if m.group(5) else None}
            nodes[int(m.group(3), 16)] = cur
            continue
        pm = re.match(r'^\[(\d+)\]\S*\s+"[SH]-([0-9a-f]+)"\[(\d+)\]'
                      r'(?:.*?# lid (\d+))?', line)
        if pm and cur is not None:
            cur["links"][int(pm.group(1))] = (int(pm.group(2), 16),
                                              int(pm.group(3)))
            if cur["lid"] is None and pm.group(4):
                cur["lid"] = int(pm.group(4))
    return nodes


def parse_pkeys(text):
    """smpquery pkeys output ("   0: 0xffff 0x8001 ...") -> entries in
    index order."""
    table = []
    for line in text.splitlines():
        m = re.match(r"^\s*(\d+):((?:\s+0x[0-9a-fA-F]{4})+)\s*$", line)
        if m and int(m.group(1)) == len(table):
            table += [int(v, 16) for v in m.group(2).split()]
    return table


def parse_sl2vl(text):
    """smpquery sl2vl output -> {(in port, out port): [VL by SL]}."""
    rows = {}
    for m in re.finditer(r"ports: in\s+(\d+), out\s+(\d+):\s*((?:\|\s*\d+)+)",
                         text):
        rows[(int(m.group(1)), int(m.group(2)))] = \
            [int(x) for x in re.findall(r"\d+", m.group(3))]
    return rows


def read_lfts(path):
    """{switch guid: {lid: port}} from opensm-lfts.dump or dump_fts output
    (both print a 'Unicast lids ... guid 0x...' header per switch and one
    '0xLID PORT ...' line per routed LID)."""
    tables, cur = {}, None
    with open(path) as fh:
        for line in fh:
            if line.startswith("Unicast lids"):
                m = _LFT_HDR.search(line)
                cur = tables.setdefault(int(m.group(1), 16), {})
                continue
            m = _LFT_ROW.match(line)
            if m and cur is not None:
                cur[int(m.group(1), 16)] = int(m.group(2))
    return tables


def changed_entries(a, b):
    """The (switch guid, lid) entries that differ between two read_lfts()
    results."""
    return {(g, lid) for g in set(a) | set(b)
            for lid in set(a.get(g, {})) | set(b.get(g, {}))
            if a.get(g, {}).get(lid) != b.get(g, {}).get(lid)}


# -- our tools under ASan -----------------------------------------------------
_tool_reports = [None]


def _setup_tool_reports():
    """Under ASan, every process this test starts (our ASan-built tools,
    the vfabric CLI) writes its reports into one directory of this test;
    Tap.done() reads them.  OpenSM gets its own (start_opensm)."""
    if memcheck.mode() != "asan":
        return
    script = os.path.splitext(os.path.basename(sys.argv[0] or "py"))[0]
    path = tempfile.mkdtemp(prefix=f"vfsan-{script}-",
                            dir=os.environ.get("VF_TMPDIR"))
    _tool_reports[0] = path
    os.environ.update({k: v for k, v in memcheck.asan_env(path).items()
                       if k.endswith("SAN_OPTIONS")})
    atexit.register(_remove_tool_reports)


def _remove_tool_reports():
    path = _tool_reports[0]
    if path and not memcheck.report_files(path) and os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=True)


def _counts(ours, stock):
    """The '# memcheck:' counts, for the suites' totals."""
    def count(recs, kind):
        return sum(1 for r in recs if r.kind == kind)
    return (f"ours_errors {count(ours, 'error')} ours_leaks "
            f"{count(ours, 'leak')} stock_errors {count(stock, 'error')} "
            f"stock_leaks {count(stock, 'leak')}")


def _check_tool_reports(tap):
    """A test point: no report of a process this test started (outside
    OpenSM) has a frame in our code."""
    path = _tool_reports[0]
    if not path:
        return
    files = memcheck.report_files(path)
    recs = [r for f in files for r in memcheck.parse(f)]
    ours = [r for r in recs if r.ours]
    stock = [r for r in recs if not r.ours]
    msg = ("our ASan-built tools run by this test: no error or leak "
           "with a frame in our code")
    if ours:
        msg += (f" -- {len(ours)} found; first in {ours[0].path}: "
                f"{ours[0].first_ours()}")
    tap.ok(not ours, msg,
           "\n\n".join(memcheck.describe(r) for r in ours[:3]))
    Tap.diag(f"memcheck: tools asan {_counts(ours, stock)}")
    if stock:
        Tap.diag(f"tools: {len(stock)} findings entirely outside our code "
                 "(not failures):\n" + memcheck.stock_summary(stock))
    if ours or os.environ.get("VF_KEEP") == "1":
        Tap.diag(f"tools: reports kept in {path}")
    else:
        shutil.rmtree(path, ignore_errors=True)
    _tool_reports[0] = None


_setup_tool_reports()


# -- process-wide cleanup -----------------------------------------------------
_handlers_installed = [False]
_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _cleanup_all():
    for sim in list(_live_sims):
        sim.failed = True
        sim.teardown()


def _on_signal(signum, frame):
    # raise inside the test so `with Sim` unwinds and tears down
    raise SystemExit(128 + signum)


def _install_handlers():
    if _handlers_installed[0]:
        return
    _handlers_installed[0] = True
    atexit.register(_cleanup_all)
    for sig in _SIGNALS:
        signal.signal(sig, _on_signal)
