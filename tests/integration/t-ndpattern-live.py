#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""NodeDesc ranges as the FM means them, on ibsim (issue 14, point 4).

24 hosts cn0001..cn0024 ("cnNNNN HCA-1"); one secure VirtualFabric with
its own P_Key per NodeDesc pattern, among them the issue's kind:
`cn00[1-12]*` (the FM captures the whole digit run after "cn00", so only
cn0010-cn0012 qualify; splitting the run would also take cn0013-cn0024),
and zero-padded ranges.  Which hosts hold which P_Key is read back with
smpquery and compared with a model written here: the pattern turned into
a regular expression the FM's way (Python's greedy match gives the same
split as POSIX's leftmost-longest for these), then the FM's range check
on the captured digits.

The pattern cn0[1-9]* selects no host (the digit run after "cn0" is
"001".."024", zero-padded, and 1 digit wide is asked): its VF's partition
has no member, which OpenSM 3.3.23 must still parse (an mgid= line ending
the partition made it read stale bytes and fall back to its default
policy, every port full; partition/emit.c now ends such a partition on
NONE).
"""

import re

import topogen
import vfsim
import vftest

PATTERNS = ["cn00[1-12]*", "cn00[06-10]*", "cn[0001-0003]*", "cn0[1-9]*",
            "cn00[2-24] HCA-?", "cn00[0-9]?*"]
CLASS = r"[_,=.a-zA-Z0-9 \t\n\v\f\r-]"


def fm_regex(pat):
    """(Python regex, [(group, lo, hi, lo_width, lo_padded)]): the FM's
    conversion (anchors, '*' and '?' over its class, a run of '?' kept
    unless it reaches a '*', each range a capture of the whole digit
    run)."""
    anchored = pat[0] != "*" and pat.strip("?") != ""
    out, ranges, i, groups = "^" if anchored else "", [], 0, 0
    while i < len(pat):
        c = pat[i]
        if c in "*?":
            j = i
            while j < len(pat) and pat[j] in "*?":
                j += 1
            n = 1 if "*" in pat[i:j] else j - i
            out += (f"({CLASS}*)" if "*" in pat[i:j] else f"({CLASS}?)") * n
            groups += n
            i = j
        elif c == "[":
            j = pat.index("]", i)
            lo, hi = pat[i + 1:j].split("-")
            groups += 1
            ranges.append((groups, int(lo), int(hi), len(lo),
                           len(lo) > 1 and lo[0] == "0"))
            out += "([0-9]+)"
            i = j + 1
        else:
            out += re.escape(c)
            i += 1
    if pat[-1] != "*":
        out += "$"
    return out, ranges


def fm_match(pat, desc):
    """The FM's answer: one match, then the range checks on it."""
    rx, ranges = fm_regex(pat)
    m = re.search(rx, desc)
    if not m:
        return False
    for group, lo, hi, width, padded in ranges:
        run = m.group(group)
        zeros = len(run) - len(run.lstrip("0"))
        if len(run) - zeros > 5:
            return False
        if (padded or zeros) and len(run) != width:
            return False
        if not lo <= int(run) <= hi:
            return False
    return True


def config():
    dgs = "".join(f"<DeviceGroup><Name>G{i}</Name><NodeDesc>{p}</NodeDesc>"
                  f"</DeviceGroup>\n" for i, p in enumerate(PATTERNS))
    vfs = "".join(f"<VirtualFabric><Name>V{i}</Name><Enable>1</Enable>"
                  f"<Security>1</Security><PKey>0x{0x11 + i:x}</PKey>"
                  f"<Member>G{i}</Member><Application>Any</Application>"
                  f"</VirtualFabric>\n" for i in range(len(PATTERNS)))
    return ("<?xml version=\"1.0\"?>\n<Config><Common><Applications>"
            "<Application><Name>Any</Name><Select>UnmatchedServiceID"
            "</Select></Application></Applications>\n<DeviceGroups>\n" + dgs +
            "</DeviceGroups><VirtualFabrics>\n" + vfs +
            "</VirtualFabrics></Common></Config>\n")


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    hosts = [f"cn{n:04d} HCA-1" for n in range(1, 25)]
    want = {p: {h.split()[0] for h in hosts if fm_match(p, h)}
            for p in PATTERNS}
    tap.ok(want["cn00[1-12]*"] == {"cn0010", "cn0011", "cn0012"} and
           want["cn00[06-10]*"] == {"cn0006", "cn0007", "cn0008", "cn0009",
                                    "cn0010"},
           "the model: cn00[1-12]* is cn0010-cn0012, cn00[06-10]* "
           "cn0006-cn0010", str(want))
    with vfsim.Sim(topogen.fattree2(leaves=2, spines=1, hosts=12),
                   "ndpattern-live", tap=tap) as sim:
        sim.start_ibsim()
        conf = f"{sim.workdir}/vf.xml"
        with open(conf, "w") as fh:
            fh.write(config())
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            options=f"log_level=info config={conf}"),
            plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        sim.wait_log(r"P_Key tables of \d+ end ports verified as planned")
        log = sim.log_text()
        tap.ok("PARSE ERROR" not in log and "retrying with default" not in
               log, "OpenSM read the generated partitions file without "
               "error, with cn0[1-9]*'s partition empty (no host selected)",
               "\n".join(l for l in log.splitlines() if "PARSE" in l))
        nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
        held = {}
        for n in nodes.values():
            if n["kind"] != "Switch":
                held[n["desc"].split()[0]] = {
                    k & 0x7fff for k in sim.pkeys(n["lid"])}
        for i, p in enumerate(PATTERNS):
            got = {h for h, keys in held.items() if 0x11 + i in keys}
            tap.ok(got == want[p], f"{p}: the hosts the FM selects hold "
                   f"P_Key 0x{0x11 + i:04x}, no other",
                   f"want {sorted(want[p])}\ngot  {sorted(got)}")
        sim.stop_opensm()
    tap.done()


if __name__ == "__main__":
    main()
