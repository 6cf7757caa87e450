#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The vfabric CLI offline: usage errors, bad files named by file:line,
route -> dump -> check-routes round trips, and checks that must fail
(a forwarding loop planted in a dump, credit loops on a torus)."""

import json
import os
import re
import subprocess
import sys
import tempfile

import topogen
import vfsim
import vftest


def usage(tap):
    res = vftest.vfabric("--help")
    tap.ok(res.returncode == 0 and "check-routes" in res.stdout and
           "route --topo" in res.stdout, "--help lists the commands")
    res = vftest.vfabric()
    tap.ok(res.returncode == 2, "no command: exit 2")
    res = vftest.vfabric("frobnicate")
    tap.ok(res.returncode == 2 and "unknown command 'frobnicate'" in
           res.stderr, "unknown command is named", res.stderr)
    res = vftest.vfabric("route")
    tap.ok(res.returncode == 2 and "needs --topo" in res.stderr,
           "route without --topo says what is missing", res.stderr)
    res = vftest.vfabric("route", "--topo", "x.net", "--lmc", "9")
    tap.ok(res.returncode == 2 and "--lmc takes 0 to 7" in res.stderr,
           "an LMC out of range is refused", res.stderr)
    res = vftest.vfabric("route", "--topo", "x.net", "--engine", "nope")
    tap.ok(res.returncode == 2 and "unknown engine 'nope'" in res.stderr,
           "an unknown engine is named", res.stderr)
    res = vftest.vfabric("route", "--topo", "x.net", "--previous", "d")
    tap.ok(res.returncode == 2 and "--previous-topo and --previous go "
           "together" in res.stderr, "--previous alone is refused",
           res.stderr)
    res = vftest.vfabric("route", "--topo", "x.net", "--core-switches",
                         "0x10,oops")
    tap.ok(res.returncode == 2 and "--core-switches takes GUIDs" in
           res.stderr, "a bad core switch list is refused", res.stderr)
    res = vftest.vfabric("engines")
    tap.ok(res.returncode == 0 and res.stdout.startswith("shortestpath"),
           "engines lists shortestpath")


def bad_files(tap, tmp):
    bad = os.path.join(tmp, "bad.net")
    with open(bad, "w") as fh:
        fh.write('Switch 8 "S1"\n[1] "H1"[1]\n\nHca 1 "H1"\n[1] "S1"[1]\n'
                 '[7] "S1"[2]\n')
    res = vftest.vfabric("route", "--topo", bad)
    tap.ok(res.returncode == 2 and re.search(r"bad\.net:6:", res.stderr),
           "a bad net file is reported as file:line", res.stderr)
    tap.ok('"H1"' in res.stderr or "H1" in res.stderr,
           "... naming the node at fault", res.stderr)
    res = vftest.vfabric("route", "--topo", os.path.join(tmp, "none.net"))
    tap.ok(res.returncode == 2 and "none.net" in res.stderr,
           "a missing net file is named", res.stderr)
    good = os.path.join(tmp, "ft.net")
    topogen.fattree2(leaves=2, spines=1, hosts=1).write(good)
    dump = os.path.join(tmp, "garbage.dump")
    with open(dump, "w") as fh:
        fh.write("Unicast lids [0x0-0x4] of switch Lid 1 guid "
                 "0xdeadbeef ('nobody'):\n")
    res = vftest.vfabric("check-routes", "--topo", good, "--lfts", dump)
    tap.ok(res.returncode == 2 and re.search(r"garbage\.dump:1:",
                                             res.stderr),
           "an LFT dump naming an unknown switch is reported as file:line",
           res.stderr)


def options_apply(tap, tmp):
    """Each routing option changes what it should, and only that."""
    net = os.path.join(tmp, "grp.net")
    fab = topogen.fattree2(leaves=4, spines=2, hosts=3)
    fab.write(net)
    spines = ",".join(hex(n.guid) for n in fab.switches()
                      if n.id.startswith("S"))
    plain = os.path.join(tmp, "plain.dump")
    cored = os.path.join(tmp, "cored.dump")
    vftest.vfabric("route", "--engine", "fattree", "--topo", net, "-o",
                   plain, check=True)
    res = vftest.vfabric("route", "--engine", "fattree", "--topo", net,
                         "-o", cored, "--core-switches", spines)
    tap.ok(res.returncode == 0 and open(plain).read() == open(cored).read(),
           "--core-switches naming the spines gives the same tiers as the "
           "end nodes do", res.stderr)
    res = vftest.vfabric("route", "--engine", "fattree", "--topo", net,
                         "-o", cored, "--previous-topo", net, "--previous",
                         plain)
    tap.ok(res.returncode == 0 and open(plain).read() == open(cored).read(),
           "--previous on an unchanged fabric keeps every entry", res.stderr)


def plant_loop(dump, spine_guid, leaf_guid, lid, spine_port, leaf_port):
    """Rewrite `dump` so the spine sends `lid` to the leaf and the leaf
    sends it back to the spine."""
    out, cur = [], None
    with open(dump) as fh:
        for line in fh:
            if line.startswith("Unicast lids"):
                cur = int(re.search(r"guid (0x[0-9a-f]+)", line).group(1),
                          16)
            m = re.match(r"^0x([0-9a-f]+) (\d+)", line)
            if m and int(m.group(1), 16) == lid and cur in (spine_guid,
                                                           leaf_guid):
                port = spine_port if cur == spine_guid else leaf_port
                line = f"0x{lid:04x} {port:03d}" + line[len(m.group(0)):]
            out.append(line)
    with open(dump, "w") as fh:
        fh.writelines(out)


def round_trip(tap, tmp):
    net = os.path.join(tmp, "ft3.net")
    fab = topogen.fattree2(leaves=3, spines=2, hosts=2)
    fab.write(net)
    dump = os.path.join(tmp, "ft3.dump")
    res = vftest.vfabric("route", "--topo", net, "-o", dump, "--check",
                         "--json")
    rep = json.loads(res.stdout) if res.returncode == 0 else {}
    tap.ok(res.returncode == 0 and rep.get("ca_unreachable") == 0 and
           rep.get("credit_loop") is False,
           "route --check --json: a clean fat tree", res.stderr)
    rc, rep = vftest.check_routes(net, dump)
    tap.ok(rc == 0 and rep.get("ca_pairs") == 6 * 5,
           "check-routes reads our own dump back: 30 CA pairs, all fine",
           json.dumps(rep))
    # Find a host on L002 and plant a loop for its LID between S001, L001.
    with open(dump) as fh:
        text = fh.read()
    lid = None
    for m in re.finditer(r"^0x([0-9a-f]+) \d+ [:#] \(?Channel Adapter "
                         r"portguid 0x([0-9a-f]+)", text, re.M):
        if int(m.group(2), 16) - 1 == fab.nodes["cn0003"].guid:
            lid = int(m.group(1), 16)
    tap.ok(lid is not None, "found cn0003's LID in the dump")
    if lid is not None:
        # S001 port 1 faces L001; L001 port hosts+1 = 3 faces S001
        plant_loop(dump, fab.nodes["S001"].guid, fab.nodes["L001"].guid,
                   lid, 1, 3)
        rc, rep = vftest.check_routes(net, dump)
        tap.ok(rc == 1 and rep.get("loops", 0) > 0 and
               rep.get("ca_unreachable", 0) > 0,
               "a planted forwarding loop is found: exit 1, loops and "
               "unreachable pairs counted", json.dumps(rep))


def torus_loops(tap, tmp):
    net = os.path.join(tmp, "torus.net")
    topogen.grid((4, 4), torus=True, hosts=1).write(net)
    res = vftest.vfabric("route", "--topo", net, "-o",
                         os.path.join(tmp, "t.dump"), "--check", "--json")
    rep = json.loads(res.stdout) if res.stdout.strip() else {}
    tap.ok(res.returncode == 1 and rep.get("credit_loop") is True and
           "->" in rep.get("cycle", ""),
           "min-hop on a 4x4 torus: the credit loop is reported with a "
           "cycle and exit 1", rep.get("cycle", res.stderr))
    tap.ok(rep.get("ca_unreachable") == 0 and rep.get("max_stretch") == 0,
           "... while every pair is still reachable on a shortest path")


def missing_opensm(tap):
    """Without OpenSM the demo stops and the ibsim tests skip, each
    naming the packages to install."""
    env = dict(os.environ, OPENSM="/nonexistent/opensm")
    demo = os.path.join(vftest.TOP_SRCDIR, "sim", "demo.py")
    res = subprocess.run([sys.executable, demo, "--vfabric", vftest.VFABRIC,
                          "--plugin-dir", vftest.PLUGIN_DIR], env=env,
                         capture_output=True, text=True, timeout=120)
    tap.ok(res.returncode != 0 and "missing opensm" in res.stderr and
           "apt-get install" in res.stderr,
           "demo without OpenSM: says what is missing and how to install",
           res.stderr + res.stdout)
    harness = os.path.join(vftest.TOP_SRCDIR, "tests", "integration",
                           "t-harness.py")
    res = subprocess.run([sys.executable, harness], env=env,
                         capture_output=True, text=True, timeout=120)
    tap.ok(res.returncode == 0 and res.stdout.startswith("1..0 # SKIP") and
           "opensm" in res.stdout and "ibsim-utils" in res.stdout,
           "an ibsim test without OpenSM skips, naming the packages",
           res.stdout)


def main():
    tap = vfsim.Tap()
    if not os.access(vftest.VFABRIC, os.X_OK):
        tap.skip_all(f"vfabric CLI not built ({vftest.VFABRIC})")
    with tempfile.TemporaryDirectory(prefix="vf-cli-") as tmp:
        usage(tap)
        bad_files(tap, tmp)
        round_trip(tap, tmp)
        options_apply(tap, tmp)
        torus_loops(tap, tmp)
    missing_opensm(tap)
    tap.done()


if __name__ == "__main__":
    main()
