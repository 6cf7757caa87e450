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
import re
import tempfile

import topogen
import vfsim
import vftest

TREE = os.path.join(vftest.TOP_SRCDIR, "tests", "golden", "ft2-4x4.net")
TORUS = os.path.join(vftest.TOP_SRCDIR, "tests", "golden", "torus-3x3.net")


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
        ((TREE, tree_dump, "--fail-link", "leaf001:5"), 2,
         "takes GUID:PORT"),
        ((TREE, tree_dump, "--fail", "99"), 2,
         "fewer than 99 switch-to-switch links"),
        ((TREE, tree_dump, "--fail", "x"), 2, "--fail takes a number"),
        # a torus: the AR alternates would allow a credit loop; said
        # once (not for each AR computation), the exit says it
        ((TORUS, torus_dump, "--fail-link", "0x1234:1"), 2,
         "no node or port with that GUID"),
        ((TORUS, torus_dump, "--fail", "1"), 1, "ERR VF1001"),
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
    if vfsim.missing_tools():
        tap.skip("stock OpenSM dumps", "missing "
                 + " ".join(vfsim.missing_tools()))
    else:
        for lmc in (0, 2):
            stock_dumps(tap, lmc)
    tap.done()


if __name__ == "__main__":
    main()
