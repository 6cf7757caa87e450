#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Every offline JSON producer gives strict UTF-8 JSON whatever bytes a
NodeDescription holds.  A NodeDescription is 64 raw bytes from the fabric:
a leaf switch's and a host's here hold a quote, a backslash, a tab, a
control character, Latin-1 bytes (not UTF-8), well-formed UTF-8 and a
UTF-8 sequence cut short.  `vfabric route --check --json` (--config
--links: switch descriptions), `check-routes --json` of routes with a hole
(a failure example names the switch), `resolve --json`,
`explain --json` and `arsim --json` with a failed leaf uplink must all
decode strictly, and give each description back by the rule of
routing/vfjson.h: well-formed UTF-8 kept, every other byte 0xXX as U+00XX.
"""

import codecs
import json
import os
import shutil
import tempfile

import topogen
import vfsim
import vftest

TENANTS = os.path.join(vftest.TOP_SRCDIR, "conf", "vfabric-tenants.xml")
# unquoted in the net file (a quoted one ends at its first quote); the
# host's must still start "cn0002" for the tenants' DeviceGroups
LEAF = b'leaf"001\\ \t\x01\xe9 \xc3\xa9 \xff\xe2\x82'
HOST = b'cn0002 "q" \\ \t\x1f \xe9\xc3\xa9\xf0\x9f\x98\x80\xc0\xaf HCA-1'


def latin1_bytes(err):
    """Each byte a strict UTF-8 decoder refuses as U+00XX."""
    bad = err.object[err.start:err.end]
    return "".join(chr(b) for b in bad), err.end


codecs.register_error("vf-latin1", latin1_bytes)


def want(raw):
    return raw.decode("utf-8", "vf-latin1")


def run(*args):
    """(exit code, parsed JSON or None, why not) of vfabric ARGS, the
    output decoded as strict UTF-8."""
    res = vfsim.subprocess.run([vftest.VFABRIC] + [str(a) for a in args],
                               capture_output=True, timeout=600)
    try:
        return (res.returncode,
                json.loads(res.stdout.decode("utf-8", "strict")), "")
    except ValueError as e:             # UnicodeDecodeError included
        return res.returncode, None, (f"{e}\n{res.stdout[:600]!r}\n"
                                      f"{res.stderr[-600:]!r}")


def odd_fabric(tmp):
    """ft2 4x4 + 2 storage hosts with LEAF and HOST as descriptions."""
    net = os.path.join(tmp, "odd.net")
    fab = topogen.fattree2(leaves=4, spines=2, hosts=4, storage=2)
    fab.write(net)
    with open(net, "rb") as fh:
        text = fh.read()
    for old, new in ((b'# "leaf001"', b"# " + LEAF),
                     (b'# "cn0002 HCA-1"', b"# " + HOST)):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    with open(net, "wb") as fh:
        fh.write(text)
    return net, fab


def hole_in(dump, leaf_guid):
    """Drop cn0009's entry (a host of leaf003) from leaf_guid's block of
    an opensm-lfts.dump: it becomes unreachable from the leaf."""
    out, inside, dropped = [], False, False
    with open(dump, "rb") as fh:
        for line in fh:
            if line.startswith(b"Unicast lids"):
                inside = f"guid 0x{leaf_guid:016x}".encode() in line
            elif inside and not dropped and b"'cn0009 " in line:
                dropped = True
                continue
            out.append(line)
    with open(dump, "wb") as fh:
        fh.writelines(out)
    return dropped


def main():
    tap = vfsim.Tap()
    if not os.access(vftest.VFABRIC, os.X_OK):
        tap.skip_all(f"vfabric CLI not built ({vftest.VFABRIC})")
    tmp = tempfile.mkdtemp(prefix="vf-jsonnd-")
    net, fab = odd_fabric(tmp)
    leaf, host = want(LEAF), want(HOST)
    leaf_guid = fab.nodes["L001"].guid
    dump = os.path.join(tmp, "lfts.dump")

    rc, rep, why = run("route", "--topo", net, "--engine", "fattree",
                       "-o", dump, "--check", "--json", "--config",
                       TENANTS, "--links", "Compute_A")
    links = ((rep or {}).get("class_links") or {}).get("links", [])
    tap.ok(rep is not None and rc == 0 and rep.get("ok") is True,
           "route --check --json --config: strict UTF-8 JSON", why)
    tap.ok(any(leaf in (x["from_desc"], x["to_desc"]) for x in links),
           "... class_links give the leaf's description back byte for "
           "byte", json.dumps(links[:4]))

    tap.ok(hole_in(dump, leaf_guid), "cn0009's entry dropped from leaf001")
    rc, rep, why = run("check-routes", "--topo", net, "--lfts", dump,
                       "--json")
    examples = (rep or {}).get("examples", [])
    tap.ok(rep is not None and rc == 1 and rep.get("ca_unreachable", 0) > 0,
           "check-routes --json of the holed routes: strict UTF-8 JSON, "
           "exit 1", why)
    tap.ok(any(f"from switch {leaf} (0x{leaf_guid:016x})" in e
               for e in examples),
           "... the failure example names the leaf as it is",
           json.dumps(examples))

    rc, plan, why = run("resolve", TENANTS, "--topo", net, "--json")
    descs = [p["desc"] for p in (plan or {}).get("ports", [])]
    tap.ok(plan is not None and rc == 0, "resolve --json: strict UTF-8 JSON",
           why)
    tap.ok(host in descs and leaf in descs,
           "... ports[].desc give the host's and the leaf's back",
           json.dumps(descs[:8]))

    rc, ex, why = run("explain", TENANTS, "--topo", net, "--src", "cn0002",
                      "--dst", "stor01", "--sid", "0x10603DB", "--json")
    tap.ok(ex is not None and rc == 0 and ex.get("answers"),
           "explain --json: strict UTF-8 JSON with an answer", why)
    tap.ok(ex and ex["source"]["desc"] == host and
           "Compute_A" in ex["source"]["device_groups"],
           "... the source's description back, in its DeviceGroup",
           json.dumps((ex or {}).get("source")))

    # a fresh dump: leaf001 port 5 faces spine001
    rc, _, why = run("route", "--topo", net, "--engine", "fattree",
                     "-o", dump)
    rc, sim, why = run("arsim", "--topo", net, "--lfts", dump,
                       "--fail-link", f"0x{leaf_guid:016x}:5", "--json",
                       "-")
    failed = ((sim or {}).get("failure") or {}).get("links", [])
    tap.ok(sim is not None and rc == 0, "arsim --json with a failed leaf "
           "uplink: strict UTF-8 JSON", why)
    tap.ok(len(failed) == 1 and leaf in (failed[0]["desc"],
                                         failed[0]["peer_desc"]),
           "... the failed link's leaf description back", json.dumps(failed))
    shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
