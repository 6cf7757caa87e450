#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The vfabric CLI offline: usage errors, bad files named by file:line,
route -> dump -> check-routes round trips, and checks that must fail
(a forwarding loop planted in a dump, credit loops on a torus); `check`
and `resolve` of vFabric configurations (exit status, JSON, aliases);
per-VF metrics of check-routes --config."""

import json
import os
import re
import shutil
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


def dump_lids(path):
    """{lid: port GUID} from the destination column of an LFT dump."""
    lids = {}
    with open(path) as fh:
        for m in re.finditer(r"^0x([0-9a-f]+) \d+ [:#] \(?[A-Za-z ]+ "
                             r"portguid 0x([0-9a-f]+)", fh.read(), re.M):
            lids[int(m.group(1), 16)] = int(m.group(2), 16)
    return lids


def previous_host_churn(tap, tmp):
    """--previous-topo/--previous with a host removed from a net file
    without LIDs, and added back: the other ports keep their LIDs (by
    GUID, as OpenSM keeps them), so only the host's own entries change,
    as in the plugin; a routing from scratch moves many."""
    full, less = (os.path.join(tmp, n) for n in ("churn.net", "less.net"))
    fab = topogen.fattree2(leaves=8, spines=4, hosts=8)
    fab.write(full)
    nsw = len(fab.switches())
    fab.remove_host_spec("cn0003")
    fab.write(less)
    read = vftest.parse_lfts
    for eng in ("shortestpath", "fattree"):
        d0, d1, fresh, back, back2 = (
            os.path.join(tmp, f"{eng}-{n}.dump")
            for n in ("full", "less", "fresh", "back", "back2"))
        vftest.vfabric("route", "--engine", eng, "--topo", full, "-o", d0,
                       check=True)
        vftest.vfabric("route", "--engine", eng, "--topo", less, "-o",
                       fresh, check=True)
        res = vftest.vfabric("route", "--engine", eng, "--topo", less,
                             "-o", d1, "--previous-topo", full,
                             "--previous", d0)
        lids0, lids1 = dump_lids(d0), dump_lids(d1)
        gone = next((lid for lid, g in lids0.items()
                     if g not in lids1.values()), None)
        moved = vfsim.changed_entries(read(d0), read(d1))
        scratch = vfsim.changed_entries(read(d0), read(fresh))
        tap.ok(res.returncode == 0 and gone and
               {lid for _, lid in moved} == {gone} and len(moved) == nsw,
               f"{eng}: a host removed: only its LID's {nsw} entries "
               f"change ({len(moved)}; from scratch {len(scratch)})",
               res.stderr + str(sorted(moved)[:5]))
        tap.ok(len(scratch) > 5 * nsw and
               {lid: g for lid, g in lids0.items() if lid != gone} == lids1,
               f"{eng}: every other port keeps its LID; a routing from "
               f"scratch renumbers them ({len(scratch)} entries)")
        rc, rep = vftest.check_routes(less, d1)
        tap.ok(rc == 0 and rep.get("ca_unreachable") == 0,
               f"{eng}: check-routes reads the kept-LID dump back",
               json.dumps(rep)[:300])
        vftest.vfabric("route", "--engine", eng, "--topo", full, "-o",
                       back, "--previous-topo", less, "--previous", d1,
                       check=True)
        tap.ok(open(back).read() == open(d0).read(),
               f"{eng}: the host back: its old LID is free again, and the "
               f"tables are those before")
        vftest.vfabric("route", "--engine", eng, "--topo", full, "-o",
                       back2, "--previous-topo", less, "--previous", fresh,
                       check=True)
        added = vfsim.changed_entries(read(fresh), read(back2))
        new = set(dump_lids(back2)) - set(dump_lids(fresh))
        tap.ok(len(new) == 1 and {lid for _, lid in added} == new and
               len(added) == nsw,
               f"{eng}: a host added to a fabric numbered afresh: a new "
               f"LID, only its {nsw} entries added ({len(added)})",
               str(sorted(added)[:5]))


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


def check_strict_empty_bom(tap, tmp):
    """vfabric check: empty files, --strict, a byte-order mark, and what a
    sweep would refuse (issue 14, point 14)."""
    for name, text in (("empty.xml", ""), ("blank.conf", " \n\t\n"),
                       ("comments.conf", "# nothing here\n")):
        path = os.path.join(tmp, name)
        with open(path, "w") as fh:
            fh.write(text)
        res = vftest.vfabric("check", path)
        tap.ok(res.returncode == 1 and f"error: {path}: defines no "
               "VirtualFabric or partition" in res.stderr,
               f"check: {name} (defines nothing) is an error, exit 1",
               res.stdout + res.stderr)
    with open(os.path.join(vftest.TOP_SRCDIR, "conf",
                           "vfabric-tenants.xml")) as fh:
        tenants = fh.read()
    opa = os.path.join(tmp, "opa.xml")
    with open(opa, "w") as fh:
        fh.write(tenants.replace("</VirtualFabric>",
                                 "<MaxRate>37.5g</MaxRate></VirtualFabric>",
                                 1))
    res = vftest.vfabric("check", opa)
    tap.ok(res.returncode == 0 and "<MaxRate> '37.5g' is an Omni-Path rate;"
           " the fastest InfiniBand rate not above it, 30g, is used"
           in res.stderr and "1 warnings" in res.stdout,
           "check: an Omni-Path MaxRate is a warning naming the IB rate used",
           res.stdout + res.stderr)
    res = vftest.vfabric("check", "--strict", opa)
    tap.ok(res.returncode == 1 and "--strict makes them errors" in
           res.stderr and ": errors:" in res.stdout,
           "check --strict: a warning fails the check, exit 1",
           res.stdout + res.stderr)
    res = vftest.vfabric("check", "--strict", os.path.join(
        vftest.TOP_SRCDIR, "conf", "vfabric-tenants.xml"))
    tap.ok(res.returncode == 0, "check --strict: a clean file passes",
           res.stdout + res.stderr)
    bom = os.path.join(tmp, "bom.xml")
    with open(bom, "wb") as fh:
        fh.write(b"\xef\xbb\xbf" + tenants.encode())
    res = vftest.vfabric("check", bom)
    tap.ok(res.returncode == 0 and ": ok: 10 applications" in res.stdout,
           "check: XML with a UTF-8 byte-order mark is read as XML",
           res.stdout + res.stderr)
    bw = os.path.join(tmp, "bw.xml")
    with open(bw, "w") as fh:
        fh.write(tenants.replace("</VirtualFabric>", "<QOS>1</QOS>"
                                 "<Bandwidth>96%</Bandwidth>"
                                 "</VirtualFabric>", 1))
    res = vftest.vfabric("check", bw)
    tap.ok(res.returncode == 1 and "need 5% available bandwidth" in
           res.stderr, "check: refuses Bandwidth that leaves no 5% for "
           "the VFs without QoS (as a sweep would)", res.stdout + res.stderr)


def fm_rules(tap, tmp):
    """vfabric check on what the FM refuses or warns about (the audit of
    issue 14: F2, F5, F8): warnings that --strict makes errors, as the
    FM's config_check -s; the P_Key and duplicate-MGID errors."""
    with open(os.path.join(vftest.TOP_SRCDIR, "conf",
                           "vfabric-tenants.xml")) as fh:
        tenants = fh.read()
    admin = "<Name>Admin</Name>\n        <Enable>1</Enable>"
    vf_a = "<VirtualFabric>\n        <Name>Compute_A</Name>"
    assert tenants.count(vf_a) == 1 and tenants.count(admin) == 1
    start = tenants.index("<!-- the FM's Admin VF")
    end = tenants.index("</VirtualFabric>", start) + len("</VirtualFabric>")
    no_admin = tenants[:start] + tenants[end:]
    cases = [
        ("admin-standby", tenants.replace(admin, admin + "<Standby>1</Standby>"),
         "VirtualFabric 'Admin': on P_Key 0x7fff but Standby", 0),
        ("admin-disabled", tenants.replace(
            admin, "<Name>Admin</Name>\n        <Enable>0</Enable>"),
         "VirtualFabric 'Admin': on P_Key 0x7fff but disabled", 0),
        ("no-admin", no_admin,
         "the default partition follows stock OpenSM", 0),
        ("qos-off-bandwidth", tenants.replace(
            vf_a, vf_a + "<Bandwidth>50%</Bandwidth>"),
         "VirtualFabric 'Compute_A': <Bandwidth> without <QOS>1</QOS> is "
         "ignored", 0),
        ("pkey-bit15", tenants.replace(
            vf_a, vf_a + "<PKey>0x8010</PKey>"),
         "VirtualFabric 'Compute_A': <PKey> '0x8010' is not a P_Key "
         "0x0001-0x7fff", 1),
    ]
    for name, text, says, rc in cases:
        path = os.path.join(tmp, name + ".xml")
        with open(path, "w") as fh:
            fh.write(text)
        res = vftest.vfabric("check", path)
        strict = vftest.vfabric("check", "--strict", path)
        line = [ln for ln in res.stderr.splitlines() if says in ln]
        tap.ok(res.returncode == rc and line and
               line[0].startswith(("warning: " if not rc else "error: ") +
                                  path + ":") and strict.returncode == 1,
               f"check {name}: {'an error' if rc else 'a warning'} with "
               f"file and line; --strict exits 1", res.stderr)


def config_commands(tap, tmp):
    """vfabric check / resolve on the shipped examples and broken files."""
    for name in ("vfabric-default.xml", "vfabric-tenants.xml"):
        res = vftest.vfabric("check", os.path.join(vftest.TOP_SRCDIR,
                                                   "conf", name))
        tap.ok(res.returncode == 0 and ": ok:" in res.stdout,
               f"check {name}: exit 0", res.stderr)
    bad = os.path.join(tmp, "bad.xml")
    with open(bad, "w") as fh:
        fh.write("<Config><Common><VirtualFabrics>\n<VirtualFabric>"
                 "<Name>V</Name><Enable>1</Enable><Member>Ghost</Member>"
                 "</VirtualFabric></VirtualFabrics></Common></Config>\n")
    res = vftest.vfabric("check", bad)
    tap.ok(res.returncode == 1 and f"{bad}:2: VirtualFabric 'V': Member "
           "names unknown DeviceGroup 'Ghost'" in res.stderr,
           "check: an error names file, line and object; exit 1",
           res.stderr)
    check_strict_empty_bom(tap, tmp)
    fm_rules(tap, tmp)
    net = os.path.join(tmp, "ft.net")
    topogen.fattree2(leaves=2, spines=1, hosts=2).write(net)
    conf = os.path.join(tmp, "alias.conf")
    with open(conf, "w") as fh:
        fh.write("DeviceGroup VF : 0x0002c9fffe000001 ;\n"
                 "tenant=0x0040 : @VF=full ;\n")
    res = vftest.vfabric("resolve", conf, "--topo", net, "--json",
                         "--alias", "0x0002c9fffe000001=0x0002c90300000011")
    ports = {p["desc"]: p for p in json.loads(res.stdout or "{}")
             .get("ports", [])}
    tap.ok(res.returncode == 0 and
           [e["pkey"] for e in ports["cn0001 HCA-1"]["pkeys"]] ==
           ["0x7fff", "0x0040"] and
           [e["pkey"] for e in ports["cn0002 HCA-1"]["pkeys"]] ==
           ["0x7fff"], "resolve: a DeviceGroup naming an SR-IOV alias GUID "
           "gives its physical port the P_Key", res.stdout + res.stderr)
    tenants = os.path.join(vftest.TOP_SRCDIR, "conf", "vfabric-tenants.xml")
    big = os.path.join(tmp, "ft8.net")
    topogen.fattree2(leaves=4, spines=2, hosts=4, storage=2).write(big)
    res = vftest.vfabric("explain", tenants, "--topo", big, "--src", "cn0002",
                         "--dst", "stor01", "--sid", "0x10603DB")
    tap.ok(res.returncode == 0 and "VirtualFabric 'Services': answers"
           in res.stdout and "answer: P_Key" in res.stdout,
           "explain: Lustre from a tenant host to storage goes by Services",
           res.stdout + res.stderr)
    res = vftest.vfabric("explain", tenants, "--topo", big, "--src", "cn0002",
                         "--dst", "cn0009", "--sid", "0x1000001")
    tap.ok(res.returncode == 1 and "no virtual fabric answers" in
           res.stdout and "the destination is no member" in res.stdout,
           "explain: between the two tenants no VF answers, and it says why",
           res.stdout + res.stderr)
    memchecked_config_commands(tap, tenants, big, tmp)
    qos = os.path.join(vftest.TOP_SRCDIR, "conf", "vfabric-compute-qos.xml")
    res = vftest.vfabric("resolve", qos, "--topo", net, "--vls", "8")
    tap.ok(res.returncode == 0 and "# QoS: 2 classes: '(no QoS)' SL0 VL0 "
           "50% weight 120; 'Compute' SL1 VL1 50% weight 120" in res.stdout
           and "SL2VL 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0; VLArb low 0:120 "
           "1:120; high none" in res.stdout,
           "resolve: the QoS classes and a port's SL2VL/VLArb tables",
           res.stdout + res.stderr)
    res = vftest.vfabric("resolve", conf, "--topo", net, "--sm", "nobody")
    tap.ok(res.returncode == 2 and "--sm nobody: no such node" in res.stderr,
           "resolve: an unknown --sm is named", res.stderr)


def class_metrics(tap, tmp):
    """check-routes --config: per-VF load, shared links, --links."""
    net = os.path.join(tmp, "tenants.net")
    topogen.fattree2(leaves=4, spines=2, hosts=4, storage=2).write(net)
    dump = os.path.join(tmp, "tenants.dump")
    vftest.vfabric("route", "--engine", "fattree", "--topo", net, "-o",
                   dump, check=True)
    tenants = os.path.join(vftest.TOP_SRCDIR, "conf", "vfabric-tenants.xml")
    rc, plain = vftest.check_routes(net, dump)
    tap.ok(rc == 0 and "partitions" not in plain,
           "check-routes without --config: no per-VF section")
    res = vftest.vfabric("check-routes", "--topo", net, "--lfts", dump,
                         "--config", tenants, "--json", "--links",
                         "Compute_A")
    rep = json.loads(res.stdout) if res.returncode == 0 else {}
    part = rep.get("partitions", {})
    cls = {c["name"]: c for c in part.get("classes", [])}
    tap.ok(rep.get("ca_pairs") == plain.get("ca_pairs") and
           rep.get("load_max") == plain.get("load_max"),
           "--config keeps the route report's fields", res.stderr)
    # 6 hosts in Compute_A, 8 in Compute_B; Services: 2 full (storage),
    # the 14 hosts limited: 2 x 2 x 14 + 2 x 1
    # the example's Admin VF (0x7fff) is management: no pairs of its own
    tenant = {k: c for k, c in cls.items() if not c.get("management")}
    tap.ok({k: c.get("pairs") for k, c in tenant.items()} ==
           {"Compute_A": 30, "Compute_B": 56, "Services": 58} and
           cls.get("Admin", {}).get("management") is True and
           part.get("all", {}).get("pairs") == 144 and
           all(c.get("unreachable") == 0 for c in tenant.values()),
           "per-VF pairs: full with all, limited only with full ones; all "
           "VFs together count each pair once", json.dumps(part))
    shared = part.get("shared", [])
    tap.ok(part.get("links") == 16 and
           all(s["a"] == "Compute_A" and s["b"] == "Compute_B"
               for s in shared) and
           sum(s["links"] for s in shared) == part.get("shared_links"),
           "only the two tenants (no common port) count as sharing links",
           json.dumps(shared))
    links = rep.get("class_links", {}).get("links", [])
    a = cls.get("Compute_A", {})
    tap.ok(len(links) == a.get("links_used") and
           sum(ln["load"] for ln in links) == a.get("load_sum") and
           max((ln["load"] for ln in links), default=0) == a.get("load_max")
           and all(ln["from"].startswith("0x") and ln["to_port"] > 0
                   for ln in links),
           "--links Compute_A lists its links with their load",
           json.dumps(links[:2]))
    res = vftest.vfabric("check-routes", "--topo", net, "--lfts", dump,
                         "--config", tenants, "--links", "Compute_B")
    tap.ok(res.returncode == 0 and
           re.search(r"^class         Compute_B \(0x[0-9a-f]{4}\): 56 "
                     r"pairs, 0 unreachable; \d+ links used, load max \d+",
                     res.stdout, re.M) and
           re.search(r"^all classes   144 pairs", res.stdout, re.M) and
           re.search(r"^links of      Compute_B .*\n(link          0x[0-9a-f]"
                     r"{16} leaf\d+/\d+ -> 0x[0-9a-f]{16} spine\d+/\d+ load "
                     r"\d+\n|link .*\n)+", res.stdout, re.M),
           "text: a line per VF, all VFs, the links of one", res.stdout)
    res = vftest.vfabric("route", "--engine", "fattree", "--topo", net,
                         "--config", tenants, "--check", "--json", "-o",
                         os.path.join(tmp, "t2.dump"))
    rep = json.loads(res.stdout) if res.returncode == 0 else {}
    tap.ok(rep.get("partitions", {}).get("all", {}).get("pairs") == 144,
           "route --config --check: the same per-VF section", res.stderr)
    res = vftest.vfabric("check-routes", "--topo", net, "--lfts", dump,
                         "--config", tenants, "--links", "Nobody")
    tap.ok(res.returncode == 2 and "there are: Compute_A Compute_B "
           "Services" in res.stderr, "--links of an unknown VF names the "
           "VFs there are", res.stderr)
    res = vftest.vfabric("check-routes", "--topo", net, "--lfts", dump,
                         "--links", "Compute_A")
    tap.ok(res.returncode == 2 and "needs --config" in res.stderr,
           "--links without --config is refused", res.stderr)


def memchecked_config_commands(tap, conf, net, tmp):
    """resolve and explain (an answer, none, a bad file) under valgrind:
    no invalid access, no definite leak.  The configuration they load is
    shared with the SA's snapshot by reference counts, as the plugin's."""
    if not shutil.which("valgrind"):
        tap.skip("resolve and explain under valgrind", "valgrind not installed")
        return
    bad = os.path.join(tmp, "bad.xml")
    with open(bad, "w") as fh:
        fh.write("<Config><Common><VirtualFabrics><VirtualFabric>"
                 "<Name>X</Name><Member>NoSuchGroup</Member>"
                 "</VirtualFabric></VirtualFabrics></Common></Config>\n")
    runs = [("resolve", conf, "--topo", net),
            ("explain", conf, "--topo", net, "--src", "cn0002", "--dst",
             "stor01", "--sid", "0x10603DB"),
            ("explain", conf, "--topo", net, "--src", "cn0002", "--dst",
             "cn0009", "--json"),
            ("explain", bad, "--topo", net, "--src", "cn0002", "--dst",
             "cn0003")]
    bad_runs = []
    for args in runs:
        res = subprocess.run(
            ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
             "--errors-for-leak-kinds=definite", vftest.VFABRIC] +
            list(args), capture_output=True, text=True, timeout=600)
        if res.returncode == 99:
            bad_runs.append(f"{' '.join(args[:1])}: {res.stderr[-1500:]}")
    tap.ok(not bad_runs, "resolve and explain (an answer, none, a bad "
           "file) under valgrind: no invalid access, no definite leak",
           "\n".join(bad_runs))


def main():
    tap = vfsim.Tap()
    if not os.access(vftest.VFABRIC, os.X_OK):
        tap.skip_all(f"vfabric CLI not built ({vftest.VFABRIC})")
    with tempfile.TemporaryDirectory(prefix="vf-cli-") as tmp:
        usage(tap)
        bad_files(tap, tmp)
        round_trip(tap, tmp)
        options_apply(tap, tmp)
        previous_host_churn(tap, tmp)
        torus_loops(tap, tmp)
        config_commands(tap, tmp)
        class_metrics(tap, tmp)
    missing_opensm(tap)
    tap.done()


if __name__ == "__main__":
    main()
