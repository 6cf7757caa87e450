#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Isolation the FM accepts silently, said out loud (issue 14, points 11
and 13): a DeviceGroup that selects nothing on the fabric, a NodeDesc
pattern that matches no node (the hosts meant for them stay full members
of the default partition), and two secure VirtualFabrics with different
members given the same P_Key (one partition: full members of either
reach every member of the other).

- `vfabric check FILE`: the shared P_Key, naming both VFs with file and
  line and their groups; nothing about groups (no fabric);
- `vfabric check FILE --topo NET` and `vfabric resolve`: also the empty
  group and the patterns, with file, line and group, and how many ports
  the shared P_Key joins, with an example pair;
- a clean file: no warning at all (the test can fail); the files carry
  the FM's Admin VF (SA, PM, PA), so the FM's management rules have
  nothing to say;
- the plugin on ibsim: each warning in OpenSM's log once; another heavy
  sweep (SIGHUP, same file) repeats none; fixing the typo logs the new set
  once, without the fixed group's warnings.
"""

import os
import re
import signal
import tempfile

import topogen
import vfsim
import vftest

HEAD = """<?xml version="1.0"?>
<Config><Common>
<Applications><Application><Name>Any</Name><Select>UnmatchedServiceID</Select></Application><Application><Name>SA</Name><Select>SA</Select></Application><Application><Name>PM</Name><Select>PM</Select></Application><Application><Name>PA</Name><ServiceID>0x1100d03c34845555</ServiceID></Application></Applications>
<DeviceGroups>
 <DeviceGroup><Name>GA</Name><NodeDesc>cn[0001-0003]*</NodeDesc></DeviceGroup>
 <DeviceGroup><Name>GB</Name><NodeDesc>cn[0004-0006]*</NodeDesc><NodeDesc>node[1-4]*</NodeDesc></DeviceGroup>
"""
TYPO = " <DeviceGroup><Name>Typo</Name><NodeDesc>cm00[07-08]*</NodeDesc></DeviceGroup>\n"
FIXED = " <DeviceGroup><Name>Typo</Name><NodeDesc>cn00[07-08]*</NodeDesc></DeviceGroup>\n"
VFS = """</DeviceGroups>
<VirtualFabrics>
 <VirtualFabric><Name>A</Name><Enable>1</Enable><Security>1</Security><PKey>0x10</PKey>
  <Member>GA</Member><Application>Any</Application></VirtualFabric>
 <VirtualFabric><Name>B</Name><Enable>1</Enable><Security>1</Security><PKey>0x10</PKey>
  <Member>GB</Member><Application>Any</Application></VirtualFabric>
 <VirtualFabric><Name>C</Name><Enable>1</Enable><Security>1</Security>
  <Member>Typo</Member><Application>Any</Application></VirtualFabric>
<VirtualFabric><Name>Admin</Name><Enable>1</Enable><PKey>0x7fff</PKey><Security>1</Security><LimitedMember>All</LimitedMember><Application>SA</Application><Application>PM</Application><Application>PA</Application></VirtualFabric></VirtualFabrics></Common></Config>
"""
CLEAN = HEAD.replace("<NodeDesc>node[1-4]*</NodeDesc>", "") + FIXED + \
    VFS.replace("<PKey>0x10</PKey>\n  <Member>GB", "<PKey>0x20</PKey>\n  "
                "<Member>GB")


def expected(path):
    """The warnings of HEAD+TYPO+VFS, as regexes (file:line first)."""
    p = re.escape(path)
    return {
        "shared": rf"{p}:12: VirtualFabric 'B' shares P_Key 0x0010 with "
                  rf"VirtualFabric 'A' \({p}:10\) but not its members: one "
                  r"partition, so full members of either reach every "
                  r"member of the other \('A': full GA, limited -; 'B': "
                  r"full GB, limited -\)",
        "pattern": rf"{p}:6: DeviceGroup 'GB': NodeDesc 'node\[1-4\]\*' "
                   r"matches no node",
        "typo": rf"{p}:7: DeviceGroup 'Typo': NodeDesc 'cm00\[07-08\]\*' "
                r"matches no node",
        # the file has an Admin VF: those hosts stay limited in 0x7fff
        "empty": rf"{p}:7: DeviceGroup 'Typo' selects no port on this "
                 r"fabric: VirtualFabric 'C' gets no member from it, and "
                 r"the hosts it was meant for, in no other VirtualFabric, "
                 r"stay limited members of the default partition",
        "ports": rf"{p}:12: VirtualFabric 'A' and VirtualFabric 'B' "
                 r"\(P_Key 0x0010\) on this fabric: 3 ports of 'A' and 3 of "
                 r"'B' are in one partition only through the shared P_Key, "
                 r"9 pairs of them can reach each other \(e\.g\. 'cn0001 "
                 r"HCA-1' port 1 and 'cn0004 HCA-1' port 1\)",
    }


def cli(tap, tmp, net):
    conf = os.path.join(tmp, "w.xml")
    with open(conf, "w") as fh:
        fh.write(HEAD + TYPO + VFS)
    want = expected(conf)
    res = vftest.vfabric("check", conf)
    tap.ok(res.returncode == 0 and re.search(want["shared"], res.stderr) and
           not re.search("DeviceGroup", res.stderr),
           "check: the shared P_Key, both VFs with file:line and groups; "
           "nothing about groups without a fabric", res.stderr)
    res = vftest.vfabric("check", conf, "--topo", net)
    missing = [k for k, rx in want.items() if not re.search(rx, res.stderr)]
    tap.ok(res.returncode == 0 and not missing and
           "4 warnings" in res.stdout.replace("on " + net + ": ", ""),
           "check --topo: the empty group, both patterns, the ports the "
           "shared P_Key joins", f"missing {missing}\n{res.stderr}"
           f"{res.stdout}")
    res = vftest.vfabric("resolve", conf, "--topo", net)
    missing = [k for k, rx in want.items() if not re.search(rx, res.stderr)]
    tap.ok(res.returncode == 0 and not missing,
           "resolve: the same warnings", f"missing {missing}\n{res.stderr}")
    clean = os.path.join(tmp, "clean.xml")
    with open(clean, "w") as fh:
        fh.write(CLEAN)
    res = vftest.vfabric("check", clean, "--topo", net)
    res2 = vftest.vfabric("resolve", clean, "--topo", net)
    tap.ok(res.returncode == 0 and res2.returncode == 0 and
           "warning" not in res.stderr + res2.stderr,
           "a clean file: no warning from check --topo or resolve",
           res.stderr + res2.stderr)


def count(log, rx):
    return len(re.findall(rx, log))


def plugin(tap):
    with vfsim.Sim(topogen.fattree2(leaves=2, spines=1, hosts=4),
                   "isolation-warn", tap=tap) as sim:
        sim.start_ibsim()
        conf = os.path.join(sim.workdir, "vf.xml")
        with open(conf, "w") as fh:
            fh.write(HEAD + TYPO + VFS)
        want = expected(conf)
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            options=f"log_level=info config={conf}"),
            plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        sim.wait_log(r"P_Key tables of \d+ end ports verified as planned")
        log = sim.log_text()
        counts = {k: count(log, rx) for k, rx in want.items()}
        tap.ok(all(n == 1 for n in counts.values()),
               "the plugin logs each warning once", str(counts))

        since = sim.log_offset()
        sim.osms[-1].popen.send_signal(signal.SIGHUP)
        sim.wait_log(r"P_Key tables of \d+ end ports verified as planned",
                     since=since)
        log = sim.log_text(since)
        again = {k: count(log, rx) for k, rx in want.items()
                 if k != "shared"}
        tap.ok(not any(again.values()), "another heavy sweep, same file: "
               "no fabric warning repeated", str(again))

        since = sim.log_offset()
        with open(conf + ".new", "w") as fh:
            fh.write(HEAD + FIXED + VFS)
        os.rename(conf + ".new", conf)
        sim.osms[-1].popen.send_signal(signal.SIGHUP)
        sim.wait_log(r"P_Key tables of \d+ end ports verified as planned",
                     since=since)
        log = sim.log_text(since)
        fixed = {k: count(log, want[k]) for k in ("typo", "empty",
                                                  "pattern", "ports")}
        tap.ok(fixed == {"typo": 0, "empty": 0, "pattern": 1, "ports": 1},
               "the typo fixed: its warnings gone, the others logged once "
               "more (the set changed)", str(fixed))
        sim.stop_opensm()


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    with tempfile.TemporaryDirectory() as tmp:
        net = os.path.join(tmp, "ft.net")
        topogen.fattree2(leaves=2, spines=1, hosts=4).write(net)
        cli(tap, tmp, net)
    plugin(tap)
    tap.done()


if __name__ == "__main__":
    main()
