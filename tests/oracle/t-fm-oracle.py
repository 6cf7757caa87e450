#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Generated vFabric files against the FM oracle, offline: for each seed,
vfgen.py writes a fabric and a file, `vfabric resolve --json` says what
the plugin would program, and fm_model.py (written from the FM's rules,
apart from the C code) says what the FM would; every end port's P_Keys
with their membership bit, its index-0 P_Key, and every VF's explicit
P_Key and SL must agree.

VF_ORACLE_FILES (default 40) sets how many files, VF_ORACLE_SEED the
first seed (default 1); `make check-oracle-long` runs 500.
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fm_model  # noqa: E402
import vfgen  # noqa: E402
import vfsim  # noqa: E402

TOP_BUILDDIR = os.environ.get("top_builddir", os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
VFABRIC = os.environ.get("VFABRIC",
                         os.path.join(TOP_BUILDDIR, "tools", "vfabric"))


def resolve(conf, net, sm):
    """`vfabric resolve --json`: ({GUID: (entries, index-0 entry)},
    {VF: (P_Key, SL)}), or an error string."""
    res = subprocess.run([VFABRIC, "resolve", conf, "--topo", net, "--json",
                          "--sm", sm], capture_output=True, text=True,
                         timeout=120)
    if res.returncode:
        return f"exit {res.returncode}: {res.stderr.strip()}", None
    out = json.loads(res.stdout)
    ports = {}
    for p in out["ports"]:
        entries = {int(e["pkey"], 16) |
                   (0 if e["membership"] == "limited" else fm_model.FULL)
                   for e in p["pkeys"]}
        idx0 = [int(e["pkey"], 16) |
                (0 if e["membership"] == "limited" else fm_model.FULL)
                for e in p["pkeys"] if e["index"] == 0]
        ports[int(p["guid"], 16)] = (entries, idx0[0] if idx0 else None)
    vfs = {v["name"]: (int(v["pkey"], 16), v["sl"]) for v in out["vfs"]}
    return ports, vfs


def compare(conf, net, sm):
    """Differences between the implementation and the oracle (list)."""
    ports, vfs = resolve(conf, net, sm)
    if vfs is None:
        return [ports]
    auto = {name: pk for name, (pk, _) in vfs.items()}
    want = fm_model.model(conf, net, sm, auto_pkeys=auto)
    bad = []
    if set(vfs) != set(want.vf_pkey):
        bad.append(f"active VFs: {sorted(vfs)} want {sorted(want.vf_pkey)}")
    for name, pk in want.vf_pkey.items():
        if name in vfs and vfs[name][0] != pk:
            bad.append(f"VF {name}: P_Key 0x{vfs[name][0]:04x} want "
                       f"0x{pk:04x}")
    for name, sl in want.vf_sl.items():
        if name in vfs and vfs[name][1] != sl:
            bad.append(f"VF {name}: SL {vfs[name][1]} want {sl}")
    for guid, w in want.ports.items():
        got, idx0 = ports.get(guid, (set(), None))
        where = f"{w['desc']} port {w['port']}"
        if got != w["pkeys"]:
            bad.append(f"{where}: {sorted(map(hex, got))} want "
                       f"{sorted(map(hex, w['pkeys']))}")
        if idx0 != w["index0"]:
            bad.append(f"{where}: index 0 "
                       f"{hex(idx0) if idx0 is not None else None} want "
                       f"{hex(w['index0'])}")
    for guid in set(ports) - set(want.ports):
        bad.append(f"port 0x{guid:016x}: not an end port to the oracle")
    return bad


# A TAP TODO for the harder NodeDesc forms while the C matcher differed
# from the FM (issue 14, point 4, now fixed): None, so they must pass.
PATTERN_TODO = None


def run(tap, work, first, files, label, todo=None, **gen):
    failed = []
    for seed in range(first, first + files):
        fab, text, sm = vfgen.generate(seed, **gen)
        net = os.path.join(work, f"{label}-{seed}.net")
        conf = os.path.join(work, f"{label}-{seed}.xml")
        fab.write(net)
        with open(conf, "w") as fh:
            fh.write(text)
        bad = compare(conf, net, sm)
        if bad:
            failed.append(seed)
            tap.diag(f"{label} seed {seed} (SM {sm}; files kept in "
                     f"{work}):")
            tap.diag("\n".join(bad[:8]))
        else:
            os.remove(net)
            os.remove(conf)
    msg = (f"{files} generated vFabric files, {label} (seeds {first}-"
           f"{first + files - 1}): vfabric resolve agrees with the FM "
           "oracle on every end port's P_Keys, index 0, and every VF's "
           "explicit P_Key and SL")
    if todo:
        # a known gap: TAP's TODO (XFAIL; an XPASS once fixed, which
        # fails the suite until the marker goes), not counted as failed
        tap.n += 1
        print(f"{'ok' if not failed else 'not ok'} {tap.n} - {msg} "
              f"# TODO {todo}", flush=True)
        if failed:
            tap.diag(f"failing seeds: {failed}")
    else:
        tap.ok(not failed, msg, f"failing seeds: {failed}")
    return not failed


def main():
    tap = vfsim.Tap()
    if not os.access(VFABRIC, os.X_OK):
        tap.skip_all(f"vfabric CLI not built ({VFABRIC})")
    files = int(os.environ.get("VF_ORACLE_FILES", "40"))
    first = int(os.environ.get("VF_ORACLE_SEED", "1"))
    work = tempfile.mkdtemp(prefix="vf-oracle-")
    clean = run(tap, work, first, files, "padded NodeDesc ranges")
    clean &= run(tap, work, first, files, "the FM's harder NodeDesc forms",
                 todo=PATTERN_TODO, fm_patterns=True)
    # the oracle itself must see what it is meant to: a file of known
    # meaning (the FM's own rules, by hand)
    known(tap, work)
    if clean:
        vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


KNOWN = """<?xml version="1.0"?>
<Config><Common><Applications>
<Application><Name>Any</Name><Select>UnmatchedServiceID</Select></Application>
<Application><Name>SA</Name><Select>SA</Select></Application>
</Applications><DeviceGroups>
<DeviceGroup><Name>All</Name><Select>All</Select></DeviceGroup>
<DeviceGroup><Name>Mgmt</Name><Select>AllMgmtAllowed</Select></DeviceGroup>
<DeviceGroup><Name>A</Name><NodeDesc>cn[0001-0002]*</NodeDesc></DeviceGroup>
<DeviceGroup><Name>B</Name><NodeDesc>cn[0003-0004]*</NodeDesc></DeviceGroup>
<DeviceGroup><Name>S</Name><NodeDesc>stor*</NodeDesc></DeviceGroup>
</DeviceGroups><VirtualFabrics>
<VirtualFabric><Name>Admin</Name><Enable>1</Enable><PKey>0x7fff</PKey>
 <Security>1</Security><Member>Mgmt</Member><LimitedMember>All</LimitedMember>
 <Application>SA</Application></VirtualFabric>
<VirtualFabric><Name>S1</Name><Enable>1</Enable><PKey>0x0030</PKey>
 <Security>1</Security><Member>S</Member><LimitedMember>A</LimitedMember>
 <Application>Any</Application></VirtualFabric>
<VirtualFabric><Name>S2</Name><Enable>1</Enable><PKey>0x0030</PKey>
 <Security>1</Security><Member>S</Member><LimitedMember>B</LimitedMember>
 <Application>Any</Application></VirtualFabric>
<VirtualFabric><Name>TA</Name><Enable>1</Enable><PKey>0x0010</PKey>
 <Security>1</Security><Member>A</Member><Application>Any</Application>
</VirtualFabric>
</VirtualFabrics></Common></Config>
"""


def known(tap, work):
    """Two tenants limited in a shared storage P_Key (issue 14, point 1),
    the template Admin VF (point 2), index 0 (point 5), by hand."""
    import topogen
    net = os.path.join(work, "known.net")
    conf = os.path.join(work, "known.xml")
    topogen.fattree2(leaves=2, spines=1, hosts=3, storage=1).write(net)
    with open(conf, "w") as fh:
        fh.write(KNOWN)
    want = fm_model.model(conf, net, "cn0004")
    by_desc = {w["desc"]: w for w in want.ports.values()}
    tap.ok(by_desc["cn0001 HCA-1"]["pkeys"] == {0x7fff, 0x0030, 0x8010} and
           by_desc["cn0001 HCA-1"]["index0"] == 0x0030 and
           by_desc["cn0003 HCA-1"]["pkeys"] == {0x7fff, 0x0030} and
           by_desc["stor01 HCA-1"]["pkeys"] == {0x7fff, 0x8030} and
           by_desc["cn0004 HCA-1"]["pkeys"] == {0xffff, 0x0030} and
           by_desc["cn0005 HCA-1"]["pkeys"] == {0x7fff} and
           by_desc["leaf001"]["pkeys"] == {0xffff},
           "the oracle on a file of known meaning: tenants limited in the "
           "shared storage P_Key, hosts outside the VFs limited in 0x7fff, "
           "the first VF at index 0",
           "\n".join(f"{d}: {sorted(map(hex, w['pkeys']))} idx0 "
                     f"{hex(w['index0'])}" for d, w in by_desc.items()))
    bad = compare(conf, net, "cn0004")
    tap.ok(not bad, "vfabric resolve agrees on it", "\n".join(bad))
    # the audit's F2: the Admin VF written but Standby or disabled keeps
    # cn0005 (in no VF) limited in 0x7fff, not stock OpenSM's full
    for state in ("<Enable>1</Enable><Standby>1</Standby>",
                  "<Enable>0</Enable>"):
        with open(conf, "w") as fh:
            fh.write(KNOWN.replace(
                "<Name>Admin</Name><Enable>1</Enable>",
                f"<Name>Admin</Name>{state}"))
        want = fm_model.model(conf, net, "cn0004")
        by_desc = {w["desc"]: w for w in want.ports.values()}
        bad = compare(conf, net, "cn0004")
        tap.ok(by_desc["cn0005 HCA-1"]["pkeys"] == {0x7fff} and
               by_desc["cn0004 HCA-1"]["pkeys"] == {0xffff, 0x0030} and
               not bad, f"Admin VF {state}: the oracle keeps a host in no "
               "VF limited in 0x7fff, and vfabric resolve agrees",
               "\n".join(bad))


if __name__ == "__main__":
    main()
