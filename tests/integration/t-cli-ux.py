#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""What a new user of the vfabric CLI runs into (issue 19): `check` on a
file that is no configuration at all (one short message), an element
name mistyped (a warning, an error with --strict, a "did you mean");
arsim's errors said once with a non-zero exit; check-routes and arsim on
an ibsim net file without LIDs with stock OpenSM's own opensm-lfts.dump
(LMC 0 and 2) and dump_lfts output (its trailing deprecation note);
progress on a terminal only; route refusing to flood a terminal."""

import os
import pty
import re
import select
import subprocess
import tempfile
import time

import topogen
import vfsim
import vftest

TREE = os.path.join(vftest.TOP_SRCDIR, "tests", "golden", "ft2-4x4.net")
TORUS = os.path.join(vftest.TOP_SRCDIR, "tests", "golden", "torus-3x3.net")
BIG = os.path.join(vftest.TOP_SRCDIR, "tests", "golden", "ft3-k12.net")


def write(path, text, mode="w"):
    with open(path, mode) as fh:
        fh.write(text)
    return path


def not_a_config(tap, tmp):
    """Point 1: an opensm.conf, a binary, JSON, Markdown: one short line
    naming the file and what was expected, exit 1."""
    files = {
        "opensm.conf": "# OpenSM configuration\nguid 0x0000000000000000\n"
                       "m_key 0x0000000000000000\nsm_priority 0\n"
                       "lmc 0\nrouting_engine minhop\n" * 40,
        "fabric.json": '{"fabric": {"switches": [1, 2], "name": "x"},\n'
                       ' "hosts": ["a:b", "c:d"]}\n' * 40,
        "README.md": "# Title\n\nSome text: with colons, commas; and "
                     "semicolons.\n| a | b |\n|---|---|\n" * 60,
        "prog.bin": b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 40,
    }
    for name, text in files.items():
        path = write(os.path.join(tmp, name), text,
                     "wb" if isinstance(text, bytes) else "w")
        res = vftest.vfabric("check", path)
        out = res.stdout + res.stderr
        tap.ok(res.returncode == 1 and len(out.encode()) < 300 and
               path in out and "neither a vFabric XML file" in out and
               "nor partitions.conf syntax" in out,
               f"check {name}: one short message naming the file and "
               f"what was expected ({len(out.encode())} bytes), exit 1",
               out[:2000])
    res = vftest.vfabric("check", os.path.join(tmp, "opensm.conf"))
    tap.ok(re.search(r"line \d+: ", res.stderr),
           "... and the line of the first error", res.stderr)
    # a partitions.conf with one mistake keeps its detailed messages
    pc = write(os.path.join(tmp, "partitions.conf"),
               "Default=0x7fff, ipoib : ALL=full ;\n"
               "storage=0x0002 : 0x1234=full, nonsense ;\n"
               "compute=0x0003 : ALL ;\n")
    res = vftest.vfabric("check", pc)
    tap.ok(res.returncode == 1 and "neither" not in res.stderr and
           "partitions.conf:2:" in res.stderr,
           "a partitions.conf with a mistake still gets file:line "
           "messages", res.stderr)
    # ... and one with nothing right but its shape (t-pconf-diff seed 5)
    pc = write(os.path.join(tmp, "broken-partitions.conf"),
               "Default= 0x7fff, m=4 ,ipoib ,mtu=x:\n"
               "\tmgid=ff12::1 # sl=3; p3 , rate=6 :;\n"
               "p3 =0x20 , i , defmember=full ,m=4:\n SE =lim,\n ,\n"
               " 0x0002c90300000051 = limited\n 0x0002c90300000021 ;\n")
    res = vftest.vfabric("check", pc)
    tap.ok(res.returncode == 1 and "neither" not in res.stderr and
           "broken-partitions.conf:" in res.stderr,
           "a partitions.conf with more errors than good statements "
           "still gets file:line messages", res.stderr)


def typo_strict(tap, tmp):
    """Point 1: <NodeDecs> in a DeviceGroup: a warning (exit 0), an error
    with --strict (exit 1), naming file, line, element and NodeDesc."""
    with open(os.path.join(vftest.TOP_SRCDIR, "tests", "data",
                           "vf-sample.xml")) as fh:
        text = fh.read()
    assert "<NodeDesc>" in text
    lines = text.splitlines()
    line = next(i for i, s in enumerate(lines, 1) if "<NodeDesc>" in s)
    typo = write(os.path.join(tmp, "typo.xml"),
                 text.replace("<NodeDesc>", "<NodeDecs>", 1)
                 .replace("</NodeDesc>", "</NodeDecs>", 1))
    res = vftest.vfabric("check", typo)
    want = (f"{typo}:{line}: DeviceGroup '", "element <NodeDecs>",
            "did you mean NodeDesc?")
    tap.ok(res.returncode == 0 and all(w in res.stderr for w in want) and
           "warning:" in res.stderr,
           "check: a mistyped element is a warning naming file:line, the "
           "element and the closest known name; exit 0", res.stderr)
    res = vftest.vfabric("check", "--strict", typo)
    tap.ok(res.returncode == 1 and all(w in res.stderr for w in want) and
           "--strict makes them errors" in res.stderr,
           "check --strict: the mistyped element fails the check, exit 1",
           res.stderr)


def arsim_errors(tap):
    """Point 4: every error of arsim is said once, and exits non-zero."""
    tree_dump = os.path.join(TMP, "tree.dump")
    torus_dump = os.path.join(TMP, "torus.dump")
    vftest.vfabric("route", "--topo", TREE, "-o", tree_dump, check=True)
    vftest.vfabric("route", "--topo", TORUS, "-o", torus_dump, check=True)
    cases = (
        ((TREE, tree_dump, "--fail-link", "0x1234:1"), 2,
         "no node or port with that GUID"),
        ((TREE, tree_dump, "--fail-link", "0x0002c90200000003:99"), 2,
         "no link on that port"),
        ((TREE, tree_dump, "--fail-link", "nosuchnode:5"), 2,
         "no such node"),
        ((TREE, tree_dump, "--fail-link", "leaf001"), 2,
         "takes NODE:PORT"),
        ((TREE, tree_dump, "--fail", "99"), 2,
         "fewer than 99 switch-to-switch links"),
        ((TREE, tree_dump, "--fail", "x"), 2, "--fail takes a number"),
        # a torus: the AR alternates would allow a credit loop; said
        # once (not for each AR computation), the exit says it
        ((TORUS, torus_dump, "--fail-link", "0x1234:1"), 2,
         "no node or port with that GUID"),
        ((TORUS, torus_dump, "--fail", "1"), 1, "ERR VF1001"),
        # another fabric's tables route nothing: said, not a table of 0s
        ((BIG, tree_dump), 2, "routes none of the"),
    )
    for (topo, dump, *args), code, msg in cases:
        res = vftest.vfabric("arsim", "--topo", topo, "--lfts", dump, *args)
        said = [s for s in res.stderr.splitlines()
                if s.startswith("vfabric")]
        tap.ok(res.returncode == code and len(said) == 1 and
               msg in said[0],
               f"arsim {' '.join(args)} on {os.path.basename(topo)}: one "
               f"error line, exit {code}", f"rc {res.returncode}\n"
               + res.stderr)
    # the CA port GUID the dumps name a host with names its link too
    res = vftest.vfabric("arsim", "--topo", TREE, "--lfts", tree_dump,
                         "--fail-link", "0x0002c90300000011:1")
    tap.ok(res.returncode == 0 and "failed link    leaf001/1" in res.stdout,
           "arsim --fail-link takes a CA's port GUID", res.stderr)
    for args, msg in ((("--topo", TREE), "needs --lfts DUMP"),
                      (("--topo", TREE, "--lfts", tree_dump, "x"),
                       "unexpected argument 'x'"),
                      (("--topo", TREE, "--lfts",
                        os.path.join(TMP, "none.dump")), "none.dump")):
        res = vftest.vfabric("check-routes", *args)
        said = [s for s in res.stderr.splitlines()
                if s.startswith("vfabric")]
        tap.ok(res.returncode == 2 and len(said) == 1 and msg in said[0],
               f"check-routes {' '.join(args[2:]) or 'without --lfts'}: "
               "one error line, exit 2", res.stderr)


def stock_dumps(tap, lmc):
    """Point 5: a topogen net file (no LIDs) with stock OpenSM's
    opensm-lfts.dump, dump_fts and dump_lfts (with its trailing note)."""
    fab = topogen.fattree2(leaves=4, spines=2, hosts=4)
    with vfsim.Sim(fab, f"cliux-lmc{lmc}", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=["routing_engine minhop",
                                     "log_flags 0x43", "sweep_interval 0",
                                     f"lmc {lmc}"])
        sim.wait_subnet_up(timeout=60)
        osm_dump = os.path.join(sim.osms[-1].dump_dir, "opensm-lfts.dump")
        vfsim.wait_until(lambda: os.path.exists(osm_dump), 30,
                         "opensm-lfts.dump")
        net = os.path.join(sim.workdir, "fabric.net")
        fts = sim.dump_lfts(os.path.join(sim.workdir, "dump_fts.out"))
        lfts = write(os.path.join(sim.workdir, "dump_lfts.out"),
                     sim.run_diag(["dump_lfts"]))
        with open(lfts) as fh:
            note = "this command has been replaced by dump_fts" in fh.read()
        tap.ok(note, f"lmc {lmc}: dump_lfts ends with its deprecation note")
        with open(net) as fh:
            tap.ok(not re.search(r"\blid\b", fh.read()),
                   f"lmc {lmc}: the net file gives no LIDs")
        pairs = (16 * 15) << lmc    # each CA to every other CA's LIDs
        for name, dump in (("opensm-lfts.dump", osm_dump),
                           ("dump_fts", fts), ("dump_lfts", lfts)):
            res = vftest.vfabric("check-routes", "--topo", net, "--lfts",
                                 dump)
            tap.ok(res.returncode == 0 and
                   f"CA pairs {pairs}, 0 "
                   "unreachable" in res.stdout,
                   f"lmc {lmc}: check-routes --topo NET --lfts {name}",
                   res.stdout + res.stderr)
            res = vftest.vfabric("arsim", "--topo", net, "--lfts", dump,
                                 "--fail", "1")
            tap.ok(res.returncode == 0 and "max load" in res.stdout and
                   not res.stderr,
                   f"lmc {lmc}: arsim --topo NET --lfts {name} --fail 1",
                   res.stdout + res.stderr)


def on_pty(argv, stdout_too=False, timeout=300):
    """Run argv with standard error (and standard output if stdout_too)
    on a pseudo-terminal; (exit code, stdout bytes, terminal bytes)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([str(a) for a in argv], stdin=subprocess.DEVNULL,
                            stderr=slave,
                            stdout=slave if stdout_too else subprocess.PIPE)
    os.close(slave)
    got = {master: bytearray()}
    if not stdout_too:
        got[proc.stdout.fileno()] = bytearray()
    open_fds = set(got)
    end = time.monotonic() + timeout
    while open_fds and time.monotonic() < end:
        ready, _, _ = select.select(list(open_fds), [], [], 1)
        for fd in ready:
            try:
                data = os.read(fd, 1 << 16)
            except OSError:     # EIO: the terminal's last writer left
                data = b""
            if data:
                got[fd] += data
            else:
                open_fds.discard(fd)
    if open_fds:
        proc.kill()
    proc.wait()
    os.close(master)
    out = b""
    if not stdout_too:
        out = bytes(got[proc.stdout.fileno()])
        proc.stdout.close()
    return proc.returncode, out, bytes(got[master])


def k16(tmp):
    """A 3-level tree of 16-port switches: 1,024 hosts, 320 switches
    (its dump: 30 MB), routed."""
    net = os.path.join(tmp, "k16.net")
    dump = os.path.join(tmp, "k16.dump")
    if not os.path.exists(dump):
        topogen.fattree3(pods=16, leaves=8, aggs=8, cores=64, hosts=8,
                         radix=16).write(net)
        vftest.vfabric("route", "--topo", net, "-o", dump, check=True)
    return net, dump


def progress(tap, tmp):
    """Point 2: a progress line on a terminal only, erased at the end."""
    net, dump = k16(tmp)
    arsim = [vftest.VFABRIC, "arsim", "--topo", net, "--lfts", dump,
             "--fail", "1", "--runs", "12"]
    rc, out, term = on_pty(arsim)
    text = term.decode(errors="replace")
    tap.ok(rc == 0 and out.startswith(b"pattern ") and
           re.search(r"\rvfabric: perm traffic: run \d+/12: \d+\.\d s", text)
           and text.endswith("\r\x1b[K"),
           "arsim, standard error a terminal: a progress line (phase, "
           "run i/N, seconds) redrawn in place and erased at the end",
           repr(text[-600:]))
    res = subprocess.run(arsim, capture_output=True, text=True, timeout=300)
    tap.ok(res.returncode == 0 and res.stderr == "" and
           res.stdout == out.decode(),
           "arsim, standard error not a terminal: nothing on it, the same "
           "table", res.stderr[-600:])
    rc, out, term = on_pty(arsim + ["--quiet"])
    tap.ok(rc == 0 and term == b"", "arsim --quiet: no progress line",
           repr(term[-300:]))
    res = subprocess.run(arsim + ["--progress"], capture_output=True,
                         text=True, timeout=300)
    tap.ok(res.returncode == 0 and "vfabric: perm traffic: run" in
           res.stderr, "arsim --progress: the line also into a pipe",
           res.stderr[-300:])
    res = subprocess.run([vftest.VFABRIC, "check-routes", "--topo", net,
                          "--lfts", dump, "--progress"],
                         capture_output=True, timeout=300)
    tap.ok(res.returncode == 0 and b"\rvfabric: reading " in res.stderr and
           res.stderr.endswith(b"\r\x1b[K") and
           res.stdout.startswith(b"reachability"),
           "check-routes --progress: phases on standard error, erased",
           res.stderr[-300:])


def route_to_terminal(tap, tmp):
    """Point 3: route without -o to a terminal: a dump of more than 10 MB
    is refused (exit 2, nothing written) unless -o - asks for it."""
    net, _ = k16(tmp)
    rc, _, term = on_pty([vftest.VFABRIC, "route", "--topo", net],
                         stdout_too=True)
    text = term.decode(errors="replace")
    tap.ok(rc == 2 and re.search(r"would write about \d+ MB \(320 "
                                 r"switches x 1344 LIDs\) to the terminal; "
                                 r"use -o FILE or redirect", text) and
           "Unicast lids" not in text,
           "route to a terminal: a large dump is refused, exit 2", text)
    out = os.path.join(tmp, "k16-again.dump")
    rc, _, term = on_pty([vftest.VFABRIC, "route", "--topo", net, "-o",
                          out], stdout_too=True)
    tap.ok(rc == 0 and os.path.getsize(out) > 10e6,
           "... and written with -o FILE", term[-300:])
    rc, _, term = on_pty([vftest.VFABRIC, "route", "--topo", net, "-o",
                          "-"], stdout_too=True)
    tap.ok(rc == 0 and term.count(b"Unicast lids") == 320,
           "... and to the terminal with -o -", term[-300:])
    rc, _, term = on_pty([vftest.VFABRIC, "route", "--topo", TREE],
                         stdout_too=True)
    tap.ok(rc == 0 and term.count(b"Unicast lids") == 6,
           "a small dump still goes to the terminal", term[-300:])
    res = subprocess.run([vftest.VFABRIC, "route", "--topo", net],
                         capture_output=True, timeout=300)
    tap.ok(res.returncode == 0 and len(res.stdout) > 10e6,
           "a large dump into a pipe is written", res.stderr[-300:])


def main():
    global TMP
    tap = vfsim.Tap()
    if not os.access(vftest.VFABRIC, os.X_OK):
        tap.skip_all(f"vfabric CLI not built ({vftest.VFABRIC})")
    with tempfile.TemporaryDirectory(prefix="vf-cliux-") as tmp:
        TMP = tmp
        not_a_config(tap, tmp)
        typo_strict(tap, tmp)
        arsim_errors(tap)
        progress(tap, tmp)
        route_to_terminal(tap, tmp)
    if vfsim.missing_tools():
        tap.skip("stock OpenSM dumps", "missing "
                 + " ".join(vfsim.missing_tools()))
    else:
        for lmc in (0, 2):
            stock_dumps(tap, lmc)
    tap.done()


if __name__ == "__main__":
    main()
