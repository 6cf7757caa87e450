#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The memory-check filter of the harness (sim/memcheck.py) on real ASan,
LSan, UBSan and valgrind reports (tests/data/memcheck/): what fails a test
under VF_OSM_CHECK and what is only counted as stock OpenSM's.  Needs no
ibsim: the reports were taken from runs with a plugin built with a
deliberate leak, heap overflow and signed overflow."""

import os

import memcheck
import vfsim

DATA = os.path.join(os.environ.get("top_srcdir", os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
    "tests", "data", "memcheck")


def split(name):
    """(ours, stock) records of a fixture."""
    recs = memcheck.parse(os.path.join(DATA, name))
    return [r for r in recs if r.ours], [r for r in recs if not r.ours]


def kinds(recs):
    return sorted(r.kind for r in recs)


def plugin_faults(tap):
    """The deliberate faults are ours, each at its line of plugin.c."""
    for name, kind, line in (("asan-plugin-leak", "leak", 155),
                             ("asan-plugin-overflow", "error", 157),
                             ("ubsan-opensm-stdout", "error", 159),
                             ("valgrind-plugin-leak", "leak", 155)):
        ours, stock = split(name)
        first = ours[0].first_ours() if ours else ""
        tap.ok(kinds(ours) == [kind] and f"plugin/plugin.c:{line}" in first,
               f"{name}: exactly one {kind} of ours, first frame at "
               f"plugin.c:{line}", "\n".join(memcheck.describe(r)
                                            for r in ours))
    ours, _ = split("valgrind-plugin-overflow")
    tap.ok(len(ours) == 2 and all(
        "plugin/plugin.c:157" in r.first_ours() for r in ours) and
        sorted(r.headline for r in ours) ==
        ["Invalid read of size 1", "Invalid write of size 1"],
        "valgrind: the overflow's write and read, both ours",
        "\n".join(r.headline for r in ours))


def stock_findings(tap):
    """Findings of stock code are counted, not failed, even when our code
    called it, and whatever thread they are on."""
    _, stock = split("asan-plugin-leak")
    text = memcheck.stock_summary(stock)
    tap.ok("heap-buffer-overflow at read" in text and "libumad2sim" in text
           and "heap-use-after-free at umad_send" in text and
           "osm_subn_set_default_opt" in text,
           "ASan: umad2sim's over-read, the umad_send use-after-free and "
           "OpenSM's leaks are stock", text)
    ours, stock = split("asan-tool-umad2sim")
    rec = stock[0] if stock else None
    tap.ok(not ours and len(stock) == 1 and
           any("vf_sa_recv" in f for f in rec.frames),
           "a umad2sim over-read under our vf_sa_recv() is umad2sim's "
           "(the bad access and the buffer are its own)",
           memcheck.describe(rec) if rec else "no record")
    ours, stock = split("valgrind-plugin-leak")
    heads = [r.headline for r in stock]
    tap.ok(heads.count("Invalid read of size 8") == 4 and any(
        h.startswith("Syscall param write(buf)") for h in heads),
        "valgrind: records after a 'Thread N:' line are read too (the "
        "syscall and the first over-read)", "\n".join(heads))


def ownership_rules(tap):
    """The exception and the conservative rules."""
    ours, stock = split("asan-plugin-bind")
    tap.ok(len(ours) == 1 and "new_madw" in ours[0].first_ours() and
           len(stock) == 1 and "osm_vendor_bind" in stock[0].where(),
           "a request MAD left pending by the plugin is ours; the bind "
           "object osm_vendor_bind() keeps is the vendor's",
           "\n".join(memcheck.describe(r) for r in ours + stock))
    ours, stock = split("asan-tool-ibnetdisc")
    tap.ok(len(stock) == 1 and "ibnd_discover_fabric" in
           "".join(stock[0].frames) and len(ours) == 1 and
           "from_ibnd" in ours[0].first_ours(),
           "what libibnetdisc's discovery loses under our call is stock "
           "(ibnetdiscover loses the same); our own allocation is ours",
           "\n".join(memcheck.describe(r) for r in ours + stock))
    ours, stock = split("asan-unknown-module")
    tap.ok(len(ours) == 1 and "<unknown module>" in ours[0].first_ours()
           and len(stock) == 1,
           "a leak in an unloaded module counts as ours")
    tap.ok(memcheck.is_ours("#3 0x7f (/x/plugin/.libs/libvfabric.so+0x12)")
           and memcheck.is_ours("by 0x4: ??? (in /b/plugin/.libs/"
                                "libvfabric.so)")
           and memcheck.is_ours("#1 0x5 in main ../src/tools/sa/sa_cli.c:361")
           and not memcheck.is_ours("by 0x4: ??? (in /usr/sbin/opensm)")
           and not memcheck.is_ours("#2 0x7 in f ../umad2sim/umad2sim.c:9")
           and not memcheck.is_ours("#1 0x7 (/usr/bin/vfabric-sa-x+0x1)"),
           "frames: our objects and sources are ours, stock ones are not")


def modes(tap):
    """The environment chooses the mode and the timeout scale."""
    old = {k: os.environ.get(k) for k in
           ("VF_OSM_CHECK", "VF_SANITIZED", "VF_TIMEOUT_SCALE")}
    try:
        os.environ.pop("VF_TIMEOUT_SCALE", None)
        os.environ["VF_OSM_CHECK"] = "valgrind"
        vg = (memcheck.mode(), memcheck.timeout_scale())
        os.environ.pop("VF_OSM_CHECK")
        os.environ["VF_SANITIZED"] = "1"
        san = (memcheck.mode(), memcheck.timeout_scale())
        os.environ["VF_OSM_CHECK"] = "purify"
        try:
            memcheck.mode()
            bad = False
        except memcheck.CheckError:
            bad = True
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    tap.ok(vg == ("valgrind", 10.0) and san == ("asan", 2.0) and bad,
           "VF_OSM_CHECK=valgrind scales waits by 10; a sanitizer build "
           "defaults to asan (x2); an unknown mode is refused", f"{vg} {san}")


def main():
    tap = vfsim.Tap()
    plugin_faults(tap)
    stock_findings(tap)
    ownership_rules(tap)
    modes(tap)
    tap.done()


if __name__ == "__main__":
    main()
