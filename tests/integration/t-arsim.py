#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""vfabric arsim end to end on a golden fat tree: the table, JSON whose
numbers agree with each other and with the fabric, an AR dump from
`vfabric ar` giving what arsim computes itself, failed links (lost flows,
re-route), the PNG of --plot, usage errors and bad files named by
file:line; lost-route notification on and off (--no-notify); the AR gain
under both backpressure models; the re-route made by the engine in use
(--engine, or the one whose routing the dump is) equal to `vfabric
route` on the fabric without the failed link."""

import json
import os
import re
import shutil
import struct
import subprocess
import tempfile

import topogen
import vfsim
import vftest

NET = os.path.join(vftest.TOP_SRCDIR, "tests", "golden", "ft2-4x4.net")
HOSTS = 16          # 4 leaves x 4 hosts, 2 spines
FABRIC_LINKS = 16   # 8 leaf-spine cables, both ways
LEAF1_UPLINK = "0x0002c90200000003:5"   # leaf001 port 5 -> spine001


def arsim(*args):
    return vftest.vfabric("arsim", "--topo", NET, *args)


def as_json(res):
    try:
        return json.loads(res.stdout) if res.returncode == 0 else {}
    except ValueError:
        return {}


def table(tap, dump):
    res = arsim("--lfts", dump, "--runs", "5")
    tap.ok(res.returncode == 0 and
           re.search(r"^pattern +perm, 16 flows per run, 5 runs from seed 1$",
                     res.stdout, re.M) and
           re.search(r"^max load +\d+\.\d\d +\d+\.\d\d +\d+\.\d\d$",
                     res.stdout, re.M) and
           re.search(r"^worst max +\d+ +\d+$", res.stdout, re.M),
           "the table: pattern, max load static / AR / ratio, worst",
           res.stdout + res.stderr)


def consistent(tap, dump):
    res = arsim("--lfts", dump, "--runs", "6", "--seed", "3", "--json", "-")
    rep = as_json(res)
    tap.ok(rep.get("flows") == HOSTS and
           rep.get("fabric_links") == FABRIC_LINKS,
           "perm: one flow per host over the 16 fabric links", res.stderr)
    runs = rep.get("per_run", [])
    st, ad = rep.get("static", {}), rep.get("adaptive", {})
    tap.ok(len(runs) == 6 and [r["seed"] for r in runs] == list(range(3, 9))
           and abs(sum(r["static_max"] for r in runs) / 6 - st["max"]) < 1e-3
           and abs(sum(r["ar_max"] for r in runs) / 6 - ad["max"]) < 1e-3
           and max(r["ar_max"] for r in runs) == ad["max_worst"],
           "the maxima are the mean and worst of the runs", runs)
    tap.ok(rep and abs(rep["ratio"] - st["max"] / ad["max"]) < 1e-3,
           "the ratio is static max / AR max", rep.get("ratio"))
    tap.ok(rep and ad["max"] <= st["max"],
           "AR's busiest link is no worse than static's", (st, ad))
    # the histogram is the first run's: it must add up to that run
    hs, ha = rep["histogram"]["static"], rep["histogram"]["adaptive"]
    tap.ok(sum(hs) == FABRIC_LINKS and sum(ha) == FABRIC_LINKS and
           max(i for i, n in enumerate(hs) if n) == runs[0]["static_max"] and
           max(i for i, n in enumerate(ha) if n) == runs[0]["ar_max"],
           "the histogram counts every fabric link at its load", (hs, ha))
    res = arsim("--lfts", dump, "--runs", "6", "--seed", "3", "--json", "-")
    tap.ok(as_json(res) == rep, "the same seed gives the same numbers")
    res = arsim("--lfts", dump, "--pattern", "all2all", "--json", "-")
    tap.ok(as_json(res).get("flows") == HOSTS * (HOSTS - 1),
           "all2all: n(n-1) flows")
    res = arsim("--lfts", dump, "--pattern", "hotspot", "--json", "-")
    rep = as_json(res)
    # 12 flows from the other leaves enter the hot leaf over its 2 links
    tap.ok(rep.get("flows") == HOSTS - 1 and
           6 <= rep["static"]["max"] <= 12 and
           6 <= rep["adaptive"]["max"] <= 12,
           "hotspot: n-1 flows, 12 into the hot leaf over 2 links",
           rep.get("static"))
    res = arsim("--lfts", dump, "--pattern", "shift", "--shift", "4",
                "--json", "-")
    tap.ok(as_json(res).get("flows") == HOSTS, "shift: n flows")


def ar_dump(tap, tmp, dump):
    ardump = os.path.join(tmp, "ar.dump")
    res = vftest.vfabric("ar", "--topo", NET, "--lfts", dump, "-o", ardump)
    tap.ok(res.returncode == 0, "vfabric ar writes an AR dump", res.stderr)
    a = as_json(arsim("--lfts", dump, "--ar", ardump, "--runs", "4",
                      "--json", "-"))
    b = as_json(arsim("--lfts", dump, "--runs", "4", "--json", "-"))
    tap.ok(a and b and a["adaptive"] == b["adaptive"] and
           a["ar"] == ardump and b["ar"] == "computed",
           "--ar with vfabric ar's dump: the same as computing the tables",
           (a.get("adaptive"), b.get("adaptive")))


def failures(tap, dump):
    res = arsim("--lfts", dump, "--runs", "4", "--pattern", "all2all",
                "--fail-link", LEAF1_UPLINK, "--json", "-")
    rep = as_json(res)
    fail = rep.get("failure") or {}
    links = fail.get("links", [])
    ends = {(lk[k + "desc"], lk[k + "port"]) for lk in links
            for k in ("", "peer_")}
    tap.ok(len(links) == 1 and ends == {("leaf001", 5), ("spine001", 1)},
           "--fail-link names the failed cable's two ends", links)
    # all2all, 4 hosts a leaf: 12 flows up and 12 down the uplink's share
    tap.ok(fail and fail["static_lost"] > 0 and
           fail["ar_lost"] < fail["static_lost"],
           "static loses the flows of the link; AR loses fewer", fail)
    tap.ok(fail and fail["rerouted_lost"] == 0 and
           fail["rerouted_static_max"] > 0,
           "after the SM re-routes no flow is lost", fail)
    # spine001 tells the other leaves it lost leaf001's hosts: they send
    # those flows through spine002; without that they die at spine001
    tap.ok(rep.get("notify") is True and fail and fail["ar_lost"] == 0 and
           0 < fail["ar_lost_no_notify"] < fail["static_lost"] and
           fail["ar_lost_no_notify_worst"] >= fail["ar_lost_no_notify"],
           "notification (default): AR loses none; without it, some",
           fail)
    res = arsim("--lfts", dump, "--runs", "4", "--pattern", "all2all",
                "--fail-link", LEAF1_UPLINK, "--no-notify", "--json", "-")
    quiet = as_json(res)
    qf = quiet.get("failure") or {}
    tap.ok(quiet.get("notify") is False and fail and qf and
           qf["ar_lost"] == qf["ar_lost_no_notify"] ==
           fail["ar_lost_no_notify"] and
           qf["ar_max"] == fail["ar_max_no_notify"] and
           qf["static_lost"] == fail["static_lost"] and
           quiet["adaptive"] == rep["adaptive"],
           "--no-notify: AR's numbers are the no-notify ones, the rest "
           "unchanged", (qf, fail))
    res = arsim("--lfts", dump, "--runs", "4", "--pattern", "all2all",
                "--fail-link", LEAF1_UPLINK)
    row = re.search(r"^lost flows +(\d+\.\d\d) +(\d+\.\d\d) +"
                    r"(\d+\.\d\d) ", res.stdout, re.M)
    tap.ok(row and fail and
           [float(x) for x in row.groups()] ==
           [round(fail[k], 2) for k in ("static_lost", "ar_lost",
                                        "ar_lost_no_notify")] and
           re.search(r"^ +static +adaptive +no notify$", res.stdout, re.M)
           and "notification on" in res.stdout,
           "the table: lost flows static, AR, AR without notification",
           res.stdout)
    res = arsim("--lfts", dump, "--fail", "2")
    tap.ok(res.returncode == 0 and
           len(re.findall(r"^failed link ", res.stdout, re.M)) == 2 and
           re.search(r"^lost flows +\d+\.\d\d +\d+\.\d\d", res.stdout, re.M)
           and re.search(r"^re-routed max ", res.stdout, re.M),
           "--fail 2: two links, lost flows and the re-routed load",
           res.stdout + res.stderr)


def gain(tap, dump):
    """The gain is printed under both congestion models, labelled."""
    bp = as_json(arsim("--lfts", dump, "--runs", "4", "--json", "-"))
    nobp = as_json(arsim("--lfts", dump, "--runs", "4", "--no-backpressure",
                         "--json", "-"))
    g, h = bp.get("gain", {}), nobp.get("gain", {})
    tap.ok(bp and nobp and abs(g["backpressure"] - bp["ratio"]) < 1e-3 and
           abs(g["no_backpressure"] - nobp["ratio"]) < 1e-3 and g == h,
           "gain: with backpressure the default's ratio, without it "
           "--no-backpressure's; the same from either run", (g, h))
    res = arsim("--lfts", dump, "--runs", "4")
    m = re.search(r"^AR gain +static/AR max (\d+\.\d\d) with backpressure "
                  r"\(the adaptive column\), (\d+\.\d\d) without it",
                  res.stdout, re.M)
    tap.ok(m and [float(x) for x in m.groups()] ==
           [round(g["backpressure"], 2), round(g["no_backpressure"], 2)],
           "the table says which gain is which model", res.stdout)
    res = arsim("--lfts", dump, "--runs", "4", "--no-backpressure")
    tap.ok(re.search(r"^AR gain +static/AR max \d+\.\d\d without "
                     r"backpressure \(the adaptive column\), \d+\.\d\d "
                     r"with it", res.stdout, re.M),
           "--no-backpressure: the adaptive column is the other model",
           res.stdout)


def perturb(dump, out, leaf_guid, uplinks):
    """A copy of dump with one of the leaf's uplink entries moved to its
    other uplink: still a valid routing, but none of our engines'."""
    lines, cur, done = [], None, False
    for line in open(dump):
        if line.startswith("Unicast lids"):
            cur = int(re.search(r"guid (0x[0-9a-f]+)", line).group(1), 16)
        m = re.match(r"^(0x[0-9a-f]+) (\d+)", line)
        if m and cur == leaf_guid and not done and \
                int(m.group(2)) in uplinks:
            other = uplinks[1 - uplinks.index(int(m.group(2)))]
            line = f"{m.group(1)} {other:03d}" + line[len(m.group(0)):]
            done = True
        lines.append(line)
    with open(out, "w") as fh:
        fh.writelines(lines)


def reroute_engine(tap, tmp):
    """After a failure the SM re-routes with the engine in use: arsim's
    re-routed tables are `vfabric route`'s with that engine on the fabric
    without the link (from the tables before: route stability), not
    shortestpath's."""
    full, failed = (os.path.join(tmp, n) for n in ("rr.net", "rr-f.net"))
    fab = topogen.fattree2(leaves=4, spines=2, hosts=4)
    fab.write(full)
    leaf = fab.nodes["L001"].guid
    port = fab.links_between("L001", "S001")[0]
    link = f"0x{leaf:x}:{port}"
    fab.remove_link_spec("L001:S001")
    fab.write(failed)
    dump, out = (os.path.join(tmp, n) for n in ("rr-ft.dump", "rr.out"))
    vftest.vfabric("route", "--engine", "fattree", "--topo", full, "-o",
                   dump, check=True)

    def route(eng, *extra):
        path = os.path.join(tmp, f"rr-{eng}-{len(extra)}.dump")
        vftest.vfabric("route", "--engine", eng, "--topo", failed, "-o",
                       path, *extra, check=True)
        return open(path).read()

    def sim(lfts, *extra):
        res = vftest.vfabric("arsim", "--topo", full, "--lfts", lfts,
                             "--fail-link", link, "--reroute-lfts", out,
                             *extra)
        text = open(out).read() if res.returncode == 0 else ""
        return res, text

    prev = ("--previous-topo", full, "--previous", dump)
    res, text = sim(dump)
    tap.ok(res.returncode == 0 and
           re.search(r"^re-route +fattree \(DUMP is its routing of NET\), "
                     r"from the tables before \(route stability\)$",
                     res.stdout, re.M) and
           "after the SM re-routes (fattree)" in res.stdout,
           "fattree's tables: the re-route is fattree's, named",
           res.stdout + res.stderr)
    tap.ok(text and text == route("fattree", *prev) and
           text != route("shortestpath", *prev),
           "its tables are `vfabric route --engine fattree --previous` on "
           "the fabric without the link, not shortestpath's")
    res, text = sim(dump, "--no-route-stability", "--json", "-")
    fail = as_json(res).get("failure") or {}
    tap.ok(fail.get("reroute_engine") == "fattree" and
           fail.get("reroute_engine_from") == "detected" and
           fail.get("route_stability") is False and
           text == route("fattree") and text != route("shortestpath"),
           "--no-route-stability: `vfabric route --engine fattree` from "
           "scratch; JSON names the engine", fail)
    res, text = sim(dump, "--engine", "shortestpath", "--json", "-")
    fail = as_json(res).get("failure") or {}
    tap.ok(fail.get("reroute_engine") == "shortestpath" and
           fail.get("reroute_engine_from") == "option" and
           text == route("shortestpath", *prev),
           "--engine shortestpath: its re-route, from fattree's tables",
           fail)
    odd = os.path.join(tmp, "rr-odd.dump")
    perturb(dump, odd, leaf, [port, port + 1])
    res, text = sim(odd)
    tap.ok(res.returncode == 0 and
           re.search(r"^re-route +shortestpath \(default: DUMP is none of "
                     r"our engines' routing of NET; --engine NAME names "
                     r"the one in use\), from scratch$", res.stdout, re.M)
           and text == route("shortestpath"),
           "tables of no engine of ours: shortestpath from scratch, "
           "said so", res.stdout + res.stderr)


def matplotlib_python():
    """The interpreter arsim draws with, if it has matplotlib."""
    py = os.environ.get("VF_PYTHON") or (
        "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK)
        else shutil.which("python3"))
    ok = py and subprocess.run([py, "-c", "import matplotlib"],
                               capture_output=True).returncode == 0
    return py if ok else None


def png_size(path):
    """(width, height) from a PNG's IHDR, or None if it is not a PNG."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or \
            head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def plot(tap, tmp, dump):
    if not matplotlib_python():
        tap.skip("--plot writes a PNG", "no python3-matplotlib")
        return
    png = os.path.join(tmp, "arsim.png")
    js = os.path.join(tmp, "arsim.json")
    res = arsim("--lfts", dump, "--runs", "3", "--fail", "1", "--json", js,
                "--plot", png)
    size = png_size(png) if os.path.exists(png) else None
    tap.ok(res.returncode == 0 and size and size[0] > 0 and size[1] > 0,
           "--plot writes a PNG (signature, IHDR size)", res.stderr)
    tap.ok(json.load(open(js))["runs"] == 3 and
           res.stdout.startswith("pattern "),
           "--json FILE writes the file and the table still shows")


def usage(tap, dump):
    for args, what, msg in (
            ((), "no --topo/--lfts", "needs --topo NET and --lfts DUMP"),
            (("--lfts", dump, "--pattern", "ring"), "an unknown pattern",
             "--pattern takes perm, all2all, hotspot or shift"),
            (("--lfts", dump, "--runs", "0"), "--runs 0", "--runs takes"),
            (("--lfts", dump, "--threshold", "9"), "--threshold 9",
             "--threshold takes 0 to 7"),
            (("--lfts", dump, "--fail", "1", "--fail-link", LEAF1_UPLINK),
             "--fail with --fail-link", "go separately"),
            (("--lfts", dump, "--fail-link", "leaf1"), "a bad --fail-link",
             "takes NODE:PORT"),
            (("--lfts", dump, "--fail-link", "0x1234:1"),
             "an unknown GUID", "no node or port with that GUID"),
            (("--lfts", dump, "--fail", "99"), "more failures than links",
             "fewer than 99 switch-to-switch links"),
            (("--lfts", dump, "--shift", "3"), "--shift without shift",
             "--shift goes with --pattern shift"),
            (("--lfts", dump, "--pattern", "shift", "--shift", "16"),
             "a shift by the host count", "multiple of the number"),
            (("--lfts", dump, "--fail", "1", "--engine", "minhop"),
             "an engine not ours", "unknown engine 'minhop'"),
            (("--lfts", dump, "--reroute-lfts", "x.dump"),
             "--reroute-lfts without a failure",
             "--reroute-lfts goes with --fail or --fail-link")):
        res = vftest.vfabric("arsim", *args) if not args else arsim(*args)
        tap.ok(res.returncode == 2 and msg in res.stderr,
               f"{what}: exit 2, says so", res.stderr)


def bad_files(tap, tmp, dump):
    bad = os.path.join(tmp, "bad.dump")
    lines = open(dump).read().splitlines()
    lines[3] = "0x0003 banana # not a port"
    with open(bad, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    res = arsim("--lfts", bad)
    tap.ok(res.returncode == 2 and re.search(r"bad\.dump:4:", res.stderr),
           "a bad LFT dump is named with its line", res.stderr)
    res = arsim("--lfts", os.path.join(tmp, "missing.dump"))
    tap.ok(res.returncode == 2 and "missing.dump" in res.stderr,
           "a missing LFT dump is named", res.stderr)
    badar = os.path.join(tmp, "bad.ar")
    with open(badar, "w") as fh:
        fh.write("switch 0x0002c90200000001 groups 1/255 lids 0/23\n"
                 "group 0 banana\n")
    res = arsim("--lfts", dump, "--ar", badar)
    tap.ok(res.returncode == 2 and re.search(r"bad\.ar:2", res.stderr),
           "a bad AR dump is named with its line", res.stderr)


def main():
    tap = vfsim.Tap()
    if not os.access(vftest.VFABRIC, os.X_OK):
        tap.skip_all(f"vfabric CLI not built ({vftest.VFABRIC})")
    with tempfile.TemporaryDirectory(prefix="vf-arsim-") as tmp:
        dump = os.path.join(tmp, "sp.dump")
        res = vftest.vfabric("route", "--topo", NET, "-o", dump)
        tap.ok(res.returncode == 0, "vfabric route writes the LFT dump",
               res.stderr)
        table(tap, dump)
        consistent(tap, dump)
        ar_dump(tap, tmp, dump)
        failures(tap, dump)
        gain(tap, dump)
        reroute_engine(tap, tmp)
        plot(tap, tmp, dump)
        usage(tap, dump)
        bad_files(tap, tmp, dump)
    tap.done()


if __name__ == "__main__":
    main()
