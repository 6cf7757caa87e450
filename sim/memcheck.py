# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Memory checking for the ibsim tests: OpenSM (with the plugin) under the
ASan runtime or under valgrind, our own ASan-built tools, and the filter
that decides which findings are ours.

The mode comes from the environment, so every test runs unchanged in it:

  VF_OSM_CHECK=asan      OpenSM runs with the shared ASan runtime preloaded
                         (first in LD_PRELOAD, before umad2sim); every
                         umad2sim client gets it too, so our ASan-built
                         tools can run there.  The default in a tree
                         configured with --enable-sanitizers (the plugin
                         cannot be loaded into OpenSM otherwise).
  VF_OSM_CHECK=valgrind  each OpenSM runs under valgrind memcheck.
  VF_TIMEOUT_SCALE=F     every harness wait is F times longer (default 10
                         under valgrind, 2 under asan, else 1).

Our code: libvfabric.so, our tools, the sources of plugin/, routing/,
partition/, vnic/, common/, tools/ and sim/.  A leak is ours when any frame of its
allocation stack is (but for the bind object osm_vendor_bind() keeps and
what libibnetdisc's discovery loses, see STOCK_LOSING); an
error when the frame that made the access, or allocated or freed the
memory, is (Record.first_ours()).  Every other finding lies in stock
OpenSM, its libraries, umad2sim or libc: the harness lists and counts
those, it cannot fix them.  docs/testing.md says the same for users.
"""

import glob
import os
import re
import subprocess

MODES = ("", "asan", "valgrind")
DEFAULT_SCALE = {"asan": 2.0, "valgrind": 10.0}
OUR_DIRS = ("plugin", "routing", "partition", "vnic", "common", "tools",
            "sim")
OUR_OBJECTS = ("libvfabric.so", "libvfabric-badversion.so",
               "libvfabric-testhooks.so",
               "/tools/vfabric", "/tools/vfabric-sa", "/tools/vfabric-em",
               "/sim/ar-agent", "/sim/vnic-endpoint")
_ASAN_COMMON = ("detect_leaks=1:halt_on_error=0:abort_on_error=1:"
                "exitcode=0:fast_unwind_on_malloc=0:"
                "malloc_context_size=40:print_summary=1")
# halt_on_error=0: stock code is not instrumented, ASan sees it only in its
# interceptors, and umad2sim's read() over-reads its own buffer on every
# MAD: such reports are written and the process goes on, so the test can
# count them.  Our code is compiled without -fsanitize-recover: an error
# there still aborts (abort_on_error), as does any UBSan finding.
# exitcode=0: a leak report does not change the exit status (tests check
# OpenSM's own rc); the harness reads the report files instead.
# fast_unwind_on_malloc=0: stock OpenSM is built without frame pointers,
# where ASan's fast unwinder can make up frames; the slow one is exact.
# (UBSan's log_path is ignored by GCC's libubsan once the ASan runtime is
# loaded: its reports then go to stderr, which the harness reads too.)
_UBSAN = "print_stacktrace=1:halt_on_error=1:abort_on_error=1"
# --keep-debuginfo: OpenSM dlclose()s the plugin before the leak check
VALGRIND_ARGS = ["--leak-check=full", "--show-leak-kinds=definite,indirect",
                 "--errors-for-leak-kinds=definite,indirect",
                 "--num-callers=40", "--fullpath-after=",
                 "--keep-debuginfo=yes"]


class CheckError(Exception):
    """The memory check itself is misconfigured."""


def mode():
    """'asan', 'valgrind' or '' (no checking)."""
    m = os.environ.get("VF_OSM_CHECK")
    if m is None:
        m = "asan" if sanitized_build() else ""
    if m not in MODES:
        raise CheckError(f"VF_OSM_CHECK={m!r}: use asan or valgrind")
    return m


def sanitized_build():
    """True when the tree under test was configured --enable-sanitizers
    (make check sets VF_SANITIZED)."""
    return os.environ.get("VF_SANITIZED") == "1"


def timeout_scale():
    """Factor for every harness timeout."""
    env = os.environ.get("VF_TIMEOUT_SCALE")
    if env:
        return float(env)
    return DEFAULT_SCALE.get(mode(), 1.0)


def asan_runtime():
    """Path of the shared ASan runtime to preload (configure's, else
    gcc's)."""
    path = os.environ.get("VF_ASAN_RUNTIME")
    if not path:
        try:
            path = subprocess.run(["gcc", "-print-file-name=libasan.so"],
                                  capture_output=True, text=True,
                                  timeout=30).stdout.strip()
        except OSError:
            path = ""
    if not path or not os.path.isabs(path) or not os.path.exists(path):
        raise CheckError("the shared ASan runtime (gcc's libasan.so) is "
                         "not installed")
    return os.path.realpath(path)


def asan_env(log_dir, env=None):
    """ASAN/UBSAN/LSAN_OPTIONS that write per-process reports into log_dir
    (asan.<pid>, ubsan.<pid>); the user's own options come after ours, so
    they win."""
    env = dict(os.environ if env is None else env)
    own = {"ASAN_OPTIONS": f"{_ASAN_COMMON}:log_path={log_dir}/asan",
           "UBSAN_OPTIONS": f"{_UBSAN}:log_path={log_dir}/ubsan",
           "LSAN_OPTIONS": "report_objects=0"}
    for key, val in own.items():
        extra = _user_options(key)
        env[key] = val + (":" + extra if extra else "")
    return env


def _user_options(key):
    """The options the user set before the harness set its own: saved in
    VF_USER_<key> the first time, so child harnesses see the same."""
    saved = os.environ.get(f"VF_USER_{key}")
    if saved is None:
        saved = os.environ.get(key, "")
        os.environ[f"VF_USER_{key}"] = saved
    return saved


def preload(umad2sim, env_preload=None):
    """LD_PRELOAD for a umad2sim client under ASan: the runtime first
    (ASan insists; OpenSM is not linked with it at all), then umad2sim."""
    return ":".join(filter(None, [asan_runtime(), umad2sim, env_preload]))


_links_asan = {}


def links_asan(path):
    """True when the program at path is ASan-built (libasan among its
    needed libraries: the name is in its dynamic string table)."""
    path = os.path.realpath(path)
    if path not in _links_asan:
        try:
            with open(path, "rb") as fh:
                _links_asan[path] = b"libasan.so" in fh.read()
        except OSError:
            _links_asan[path] = False
    return _links_asan[path]


def valgrind_argv(log_dir):
    """argv prefix that runs a program under memcheck with one log file
    per process in log_dir."""
    return ["valgrind"] + VALGRIND_ARGS + [
        f"--log-file={log_dir}/valgrind.%p.log"]


def report_files(log_dir):
    """Every sanitizer or valgrind report file in log_dir."""
    pats = ("asan.*", "ubsan.*", "valgrind.*.log")
    return sorted(f for p in pats for f in glob.glob(os.path.join(log_dir, p)))


# -- reports -----------------------------------------------------------------
class Record:
    """One error or leak: headline, frame lines, kind 'error' or 'leak',
    the file it came from."""

    def __init__(self, path, kind, lines):
        self.path = path
        self.kind = kind
        self.lines = lines
        self.headline = lines[0] if lines else ""
        self.frames = [ln for ln in lines if _FRAME.match(ln)]
        self.stacks = _stacks(lines)

    def culprits(self):
        """For an error: the frame that made the bad access, and the one
        that allocated or freed the memory, each the first frame of its
        stack outside the checker's runtime."""
        out = []
        for stack in self.stacks:
            own = [ln for ln in stack if not _RUNTIME.search(ln)]
            if own:
                out.append(own[0])
        return out

    def first_ours(self):
        """The frame that makes this finding ours, or None.  A leak is
        ours when any frame of its allocation stack is (whoever
        allocates on our behalf, we must free); an error when its access,
        allocation or free was made by our code, not merely by stock code
        we called (umad2sim's read() over-reading its own buffer under
        our umad_recv() call is umad2sim's)."""
        if self.kind == "leak":
            if vendor_owned(self) or stock_lost(self):
                return None
            frames = self.frames or self.lines
        else:
            frames = self.culprits()
        for ln in frames:
            if is_ours(ln):
                return ln.strip()
        # a UBSan headline names our source file:line itself
        if is_ours(self.headline):
            return self.headline
        return None

    @property
    def ours(self):
        """True when any frame is in our code."""
        return self.first_ours() is not None

    def where(self):
        """The first frame outside the checker's own runtime (its
        allocator and interceptors), address cut: where it happened."""
        for ln in self.frames:
            if not _RUNTIME.search(ln):
                return re.sub(r"^\s*(#\d+|at|by) 0x[0-9a-fA-F]+:? (in )?",
                              "", ln).strip()
        return ""

    def summary(self):
        """Headline with sizes and addresses cut, and where it happened,
        for counting alike findings together."""
        text = self.headline
        m = re.match(r"ERROR: (\w+Sanitizer: [\w-]+)", text)
        if m:
            text = m.group(1)
        text = re.sub(r"0x[0-9a-f]+", "0x..", text)
        text = re.sub(r"\d[\d,]*( \(\d[\d,]* direct, \d[\d,]* indirect\))?"
                      r" bytes in \d[\d,]* blocks", "N bytes in N blocks",
                      text)
        text = re.sub(r"of \d+ byte\(s\) in \d+ object\(s\)",
                      "of N byte(s) in N object(s)", text)
        text = re.sub(r"loss record [\d,]+ of [\d,]+", "loss record", text)
        text = re.sub(r" allocated from:$", "", text)
        where = re.sub(r"\+0x[0-9a-f]+\)", ")", self.where())
        return f"{text} at {where}" if where else text


# the checkers' own frames, and libc's allocating wrappers under valgrind
_RUNTIME = re.compile(r"libasan|libubsan|libsanitizer|__interceptor_|"
                      r"vg_replace_|vgpreload_|/strn?dup\.c:")
_FRAME = re.compile(r"^\s*(#\d+ 0x[0-9a-f]+|(at|by) 0x[0-9A-F]+:)")
_OUR_SRC = re.compile(r"(^|[\s(/])(%s)/[\w./-]*\.[ch]:\d+"
                      % "|".join(OUR_DIRS))
_OUR_BASENAMES = []


# Stock functions whose allocation stays theirs for the life of the
# process, with no API to free it: OpenSM 3.3.23's osm_vendor_unbind()
# keeps the bind object (its receiver still dispatches a late MAD of that
# agent through it) and nothing frees it later.  OpenSM's own binds are
# the same, but stay reachable from its static osm struct; a plugin's
# become unreachable once the plugin is gone.  Exactly one leak record
# of 72 bytes per class the plugin bound: listed with the stock findings.
VENDOR_OWNED = re.compile(r"\bosm_vendor_bind\b")


def vendor_owned(rec):
    """A leak allocated directly by a VENDOR_OWNED function."""
    own = rec.culprits()
    return bool(own) and bool(VENDOR_OWNED.search(own[0]))


# Stock functions that lose memory inside themselves, whatever their
# caller frees: libibnetdisc 44's ibnd_discover_fabric() allocates an
# entry per LID that ibnd_destroy_fabric() never frees.  Stock
# ibnetdiscover loses the same (valgrind, net.2sw2path4hca with LIDs
# assigned: 1,024 bytes in 16 blocks, as `vfabric check-routes --topo
# live` does).  A leak whose allocation stack enters our code only
# through one of these is listed with the stock findings.
STOCK_LOSING = re.compile(r"\bibnd_discover_fabric\b")


def stock_lost(rec):
    """A leak allocated inside a STOCK_LOSING function called by us."""
    for ln in rec.frames or rec.lines:
        if is_ours(ln):
            return False
        if STOCK_LOSING.search(ln):
            return True
    return False


# where a new stack of an error record starts (ASan; valgrind), and the
# stacks that name no culprit (the thread's creation)
_STACK_START = re.compile(r"^\s*((previously )?(allocated|freed) by thread|"
                          r"Address 0x|Block was alloc'd)")
_STACK_IGNORED = re.compile(r"^\s*Thread T\d+ .*created by")


def _stacks(lines):
    """The frame lists of a record: the first one (the access), then one
    per allocated/freed-by section; thread-creation stacks left out."""
    stacks, cur, keep = [], [], True
    for ln in lines:
        if _STACK_START.match(ln) or _STACK_IGNORED.match(ln):
            if cur and keep:
                stacks.append(cur)
            cur, keep = [], not _STACK_IGNORED.match(ln)
        elif _FRAME.match(ln):
            cur.append(ln)
    if cur and keep:
        stacks.append(cur)
    return stacks


def _basenames():
    """'(file.c:' for each of our sources: valgrind's frames without
    --fullpath-after name only the file (t-valgrind.py's own run)."""
    if not _OUR_BASENAMES:
        top = os.environ.get("top_srcdir") or os.path.dirname(
            os.path.dirname(os.path.abspath(__file__)))
        for d in OUR_DIRS:
            for root, _, files in os.walk(os.path.join(top, d)):
                _OUR_BASENAMES.extend(f"({f}:" for f in files
                                      if f.endswith((".c", ".h")))
        _OUR_BASENAMES.append("\0none")
    return _OUR_BASENAMES


def is_ours(frame):
    """True when a frame (or a UBSan headline) is in our code.  A frame in
    an object no longer mapped counts as ours: the only module these
    processes unload is the plugin (OpenSM dlclose()s it before exit,
    when the leak check runs), so nothing escapes unnamed."""
    if "(<unknown module>)" in frame or re.search(r": \?\?\?$", frame):
        return True
    # objects without symbols: "(/x/libvfabric.so+0x12)" (ASan),
    # "(in /x/libvfabric.so)" (valgrind)
    if any(o + "+0x" in frame or o + ")" in frame for o in OUR_OBJECTS):
        return True
    if _OUR_SRC.search(frame):
        return True
    return any(b in frame for b in _basenames())


def _strip_pid(line):
    return re.sub(r"^==\d+== ?", "", line.rstrip("\n"))


def parse_valgrind(path):
    """Error and leak records of a valgrind log (blank-line separated
    blocks starting with a message)."""
    blocks, cur = [], []
    for line in _lines(path):
        body = _strip_pid(line)
        if not body.strip():
            if cur:
                blocks.append(cur)
            cur = []
        else:
            cur.append(body)
    if cur:
        blocks.append(cur)
    out = []
    for b in blocks:
        # a record of another thread than the last one starts "Thread N:"
        while b and re.match(r"Thread \d+:$", b[0].strip()):
            b = b[1:]
        if not b:
            continue
        if re.match(r"[\d,]+ (\([\d,]+ direct, [\d,]+ indirect\) )?bytes "
                    r"in [\d,]+ blocks are (definitely lost|indirectly lost|"
                    r"possibly lost|still reachable)", b[0]):
            out.append(Record(path, "leak", b))
        elif re.match(r"(Invalid|Conditional|Use of|Syscall param|"
                      r"Mismatched|Source and destination|Argument|"
                      r"Process terminating|Jump to|Warning: invalid file)",
                      b[0]):
            out.append(Record(path, "error", b))
    return out


def parse_sanitizer(path):
    """Records of an ASan/LSan/UBSan report file: each ASan error report,
    each leak of an LSan report, each UBSan runtime error, and any fatal
    error of the runtime itself (a leak check that could not run is a
    failure, not silence)."""
    lines = [_strip_pid(ln) for ln in _lines(path)]
    out, i = [], 0
    while i < len(lines):
        ln = lines[i]
        if re.match(r"(Direct|Indirect) leak of", ln):
            j = i + 1
            while j < len(lines) and lines[j].strip():
                j += 1
            out.append(Record(path, "leak", lines[i:j]))
            i = j
        elif ln.startswith("ERROR: LeakSanitizer: detected memory leaks"):
            i += 1
        elif re.match(r"ERROR: \w+Sanitizer", ln) or \
                "Sanitizer has encountered a fatal error" in ln:
            j = i + 1
            while j < len(lines) and not lines[j].startswith("SUMMARY:") \
                    and not lines[j].startswith("==ABORTING"):
                j += 1
            out.append(Record(path, "error", lines[i:j]))
            i = j + 1
        elif ": runtime error: " in ln:
            j = i + 1
            while j < len(lines) and (_FRAME.match(lines[j]) or
                                      not lines[j].strip()):
                j += 1
            out.append(Record(path, "error", lines[i:j]))
            i = j
        else:
            i += 1
    return out


def parse(path):
    """Records of one report file of either kind."""
    if any("Memcheck, a memory error detector" in ln
           for ln in _lines(path)[:3]):
        return parse_valgrind(path)
    return parse_sanitizer(path)


def _lines(path):
    try:
        with open(path, errors="replace") as fh:
            return fh.readlines()
    except FileNotFoundError:
        return []


def valgrind_finished(path):
    """valgrind wrote its final summary (the process exited, not killed)."""
    return any("ERROR SUMMARY" in ln for ln in _lines(path))


def describe(rec, limit=12):
    """A record for a TAP diagnostic: file, first frame of ours, lines."""
    head = [f"{rec.path}: {rec.kind}: {rec.headline}"]
    ours = rec.first_ours()
    if ours:
        head.append(f"first frame in our code: {ours}")
    return "\n".join(head + rec.lines[1:limit])


def stock_summary(records, limit=6):
    """'N x headline' lines for findings outside our code."""
    counts = {}
    for r in records:
        key = f"{r.kind}: {r.summary()}"
        counts[key] = counts.get(key, 0) + 1
    items = sorted(counts.items(), key=lambda kv: -kv[1])
    lines = [f"  {n} x {k}" for k, n in items[:limit]]
    if len(items) > limit:
        lines.append(f"  ... {len(items) - limit} more kinds")
    return "\n".join(lines)
