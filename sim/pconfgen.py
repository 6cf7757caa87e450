# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Seeded generator of stock OpenSM partitions.conf files over the whole
grammar of OpenSM 3.3.23 (opensm(8) "PARTITION CONFIGURATION" and
osm_prtn_config.c): names (repeated, empty, numeric, over 31 characters),
P_Keys (explicit, split over several statements, repeated names without
one, 0x8000 bit, decimal, over 16 bits), every flag and the prefixes
OpenSM accepts for it (ipoib/i, mtu/m, rate/r, scope/s, sl, Q_Key/Q,
TClass/T, FlowLabel/F, defmember/d with full|limited|both prefixes,
indx0), unknown flags, member GUIDs (hex, decimal, upper case, unknown,
a CA's node GUID), ALL/ALL_CAS/ALL_SWITCHES/ALL_ROUTERS/SELF/NONE and their
prefixes, =full/limited/both and their prefixes and unknown words, empty
items, mgid= groups with flags (IP and not, P_Key bits, bad GIDs, flags
in a trailing comment), comments, blank lines, tabs, several statements
on a line, statements over several lines, ';' on a line of its own,
and the errors that make OpenSM refuse the whole file.

The first line is a long comment: OpenSM reads lines into one buffer and
in a few constructs reads what earlier lines left there; with a long
first line those bytes are always ones the file wrote (see
partition/pconfstock.h).

Use: python3 sim/pconfgen.py SEED [COUNT] [--out DIR]
"""

import random
import sys

HOSTS = [0x0002c90300000011 + 0x10 * i for i in range(6)]
SWITCHES = [0x0002c90200000001 + i for i in range(3)]
UNKNOWN = [0x0002c903000000f1, 0x0002c90300000010, 0x1234]

NAMES = ["Default", "p1", "p2", "p3", "storage", "compute", "x" * 40,
         "a_very_long_partition_name_over_31_chars_" + "y" * 30]
PKEYS = ["0x7fff", "0xffff", "0x0001", "0x0002", "0x8003", "0x10", "0x20",
         "32", "0x0030", "0x18005", "0x7ffe"]
IPOIB = ["ipoib", "i", "ip", "ipo", "ipoib"]
MEMB = ["full", "limited", "both", "f", "fu", "l", "lim", "b", "bo", "x",
        ""]
KEYWORDS = ["ALL", "A", "AL", "ALL_CAS", "ALL_C", "ALL_SWITCHES", "ALL_S",
            "ALL_SW", "ALL_ROUTERS", "ALL_R", "SELF", "S", "SE", "NONE",
            "N"]


class Gen:
    """plain: only what a partitions.conf with vFabric statements reads as
    OpenSM does (explicit P_Keys, no fatal error, no ';' on its own line,
    no mgid= item that makes OpenSM read on, no CRLF)."""

    def __init__(self, seed, plain=False):
        self.r = random.Random(seed)
        self.seed = seed
        self.gid = 0
        self.plain = plain

    def pick(self, seq):
        return self.r.choice(seq)

    def chance(self, p):
        return self.r.random() < p

    def sp(self):
        return self.pick(["", "", " ", "  ", "\t"])

    def guid(self):
        kind = self.r.random()
        if kind < 0.7:
            g = self.pick(HOSTS)
        elif kind < 0.88:
            g = self.pick(SWITCHES)
        else:
            g = self.pick(UNKNOWN)
        form = self.r.random()
        if form < 0.8:
            return f"0x{g:016x}"
        if form < 0.9:
            return f"0x{g:X}"
        return str(g)

    def flag(self):
        k = self.r.randrange(12)
        if k < 3:
            return self.pick(IPOIB)
        if k == 3:
            return self.pick(["mtu", "m", "mt"]) + "=" + \
                self.pick(["1", "2", "4", "5", "4", "x"])
        if k == 4:
            return self.pick(["rate", "r", "ra"]) + "=" + \
                self.pick(["2", "3", "6", "3", "10"])
        if k == 5:
            return self.pick(["sl=1", "sl=0", "sl=16", "sl=3"])
        if k == 6:
            return self.pick(["scope", "s", "sc"]) + "=" + \
                self.pick(["2", "5", "8", "0", "20"])
        if k == 7:
            return self.pick(["Q_Key=0x1234", "Q=0xdeadbeef", "Q_K=0"])
        if k == 8:
            return self.pick(["TClass=3", "T=1", "FlowLabel=0x12", "F=5",
                              "FlowLabel=0x100000"])
        if k == 9:
            return self.pick(["defmember", "d", "def"]) + "=" + \
                self.pick(["full", "limited", "both", "f", "l", "b", "x"])
        if k == 10:
            return "indx0"
        return self.pick(["foo", "indx", "IPOIB", "app_x"])

    def header(self, names_used, pkeys_used):
        r = self.r.random()
        if r < 0.15 and names_used:
            name = self.pick(names_used)         # repeated name
        else:
            name = self.pick(NAMES)
        if r > 0.95:
            name = ""
        if name == "Default" and self.chance(0.8):
            pkey = "0x7fff"
        elif self.chance(0.15) and pkeys_used:
            pkey = self.pick(pkeys_used)          # a split definition
        elif self.chance(0.75) or self.plain:
            pkey = self.pick(PKEYS)
        else:
            pkey = None
        if pkey is not None:
            pkeys_used.append(pkey)
        names_used.append(name)
        if self.chance(0.05) and pkey is not None:
            head = pkey                           # a numeric name: P_Key
        else:
            head = name + (f"{self.sp()}={self.sp()}{pkey}"
                           if pkey is not None else "")
        flags = [self.flag() for _ in range(self.r.randrange(4))]
        for f in flags:
            head += f"{self.sp()},{self.sp()}{f}"
        return head

    def member(self):
        r = self.r.random()
        if r < 0.55:
            name = self.guid()
        elif r < 0.92:
            name = self.pick(KEYWORDS)
        else:
            name = ""
        if name and self.chance(0.6):
            name += f"{self.sp()}={self.sp()}{self.pick(MEMB)}"
        return name

    def mgid(self):
        """An mgid= item; returns (text, needs its own line end)."""
        self.gid += 1
        g = self.pick([f"ff12::{self.gid:x}", f"ff15::{self.gid:x}",
                       f"ff12:401b::{self.gid:x}",
                       f"ff12:401b:8001::{self.gid:x}",
                       f"ff12:601b::{self.gid:x}"] +
                      ([] if self.plain else ["fe80::1"]))
        flags = [self.pick(["sl=1", "sl=2", "Q_Key=0x12", "mtu=4", "rate=3",
                            "mtu=5", "scope=5", "scope=2", "TClass=2",
                            "FlowLabel=7", "zz"])
                 for _ in range(self.r.randrange(self.plain, 3))]
        text = "mgid=" + g + "".join("," + f for f in flags)
        return text

    def statement(self, names_used, pkeys_used):
        head = self.header(names_used, pkeys_used)
        items = [self.member() for _ in range(self.r.randrange(5))]
        layout = self.r.random()
        mg = [self.mgid() for _ in range(self.r.randrange(3))
              if self.chance(0.35)]
        if layout < 0.45 and not mg:
            return [f"{head}{self.sp()}:{self.sp()}" +
                    f"{self.sp()},{self.sp()}".join(items) +
                    f"{self.sp()};"]
        lines = [f"{head}{self.sp()}:" + (self.sp() if self.chance(0.5)
                                          else "")]
        for m in mg:
            tail = ""
            if self.chance(0.3) and not (self.plain and "," not in m):
                tail = self.pick(["   # a group", " # sl=3", "#mtu=5,sl=2",
                                  " # s"])
            lines.append("\t" + m + tail)
        for i, it in enumerate(items):
            sep = "," if i < len(items) - 1 and self.chance(0.8) else ""
            tail = " # member" if self.chance(0.1) else ""
            lines.append(self.sp() + "  " + it + sep + tail)
        if self.chance(0.05) and not self.plain:
            lines.append(";")                     # ';' on its own line
        else:
            lines[-1] += f"{self.sp()};"
        return lines

    def fatal(self):
        return self.pick([
            "bad=0x40 : 0xZZ12 ;",
            "bad=0x40 : cn0001 ;",
            "bad=0x40 ALL=full ;",
            "bad=zz : ALL ;",
            "bad= : ALL ;",
            "; a comment after a semicolon",
            "ShareIO = 0x80 : defmember=limited : 0x123456, 0x123457 ;",
            "bad=0x40 : ALL ;; ",
            "bad=0x40 : mgid=fe80::1,sl=1 ; ok=0x41 : ALL ;",
        ])

    def file(self):
        out = ["# pconfgen seed %d " % self.seed + "." * 240]
        if self.chance(0.02) and not self.plain:
            return "\n".join(out + ["# only comments", ""]) + "\n"
        names_used, pkeys_used = [], []
        n = self.r.randrange(1, 6)
        fatal_at = self.r.randrange(n + 1) \
            if self.chance(0.12) and not self.plain else None
        for i in range(n):
            if fatal_at == i:
                out.append(self.fatal())
            if self.chance(0.15):
                out.append(self.pick(["", "# comment", "   ",
                                      "\t# indented comment"]))
            st = self.statement(names_used, pkeys_used)
            if len(st) == 1 and out and out[-1].endswith(";") and \
                    self.chance(0.2):
                out[-1] += " " + st[0]            # two on one line
            else:
                out += st
        if fatal_at == n:
            out.append(self.fatal())
        text = "\n".join(out) + "\n"
        if self.chance(0.02) and not self.plain:
            text = text.replace("\n", "\r\n")
        return text


def generate(seed, plain=False):
    return Gen(seed, plain).file()


def main(argv):
    seed = int(argv[1]) if len(argv) > 1 else 1
    count = int(argv[2]) if len(argv) > 2 else 1
    out = argv[argv.index("--out") + 1] if "--out" in argv else None
    for s in range(seed, seed + count):
        text = generate(s)
        if out:
            with open(f"{out}/pconf-{s}.conf", "w") as fh:
                fh.write(text)
        else:
            sys.stdout.write(f"### seed {s}\n{text}")


if __name__ == "__main__":
    main(sys.argv)
