#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The CLI's live input (--topo live, --lfts live: libibnetdisc and
LinearForwardingTable SMPs under umad2sim) on a fabric whose top LID is 64,
a multiple of 64 (the block infiniband-diags 44's dump_fts leaves out):
check-routes on live tables finds every CA pair reachable and checks the
same as on ibroute's tables; live input sees the same switches, links and
LIDs as ibnetdiscover's text (both route to the same tables); node names
are taken as NodeDesc, node-name-map name or host name (the NodeDesc's
first word), and an ambiguous host name is an error naming the
candidates; a node-name-map changes no DeviceGroup membership."""

import json
import os
import subprocess

import topogen
import vfsim
import vftest

# 4 leaves x 14 hosts + 4 spines: 56 CAs + 8 switches = LIDs 1..64
LEAVES, SPINES, HOSTS = 4, 4, 14
CONF = os.path.join(vftest.TOP_SRCDIR, "conf", "vfabric-default.xml")
# NodeDesc patterns (cn*): a map naming cn0003 login03 must not move it
TENANTS = os.path.join(vftest.TOP_SRCDIR, "conf", "vfabric-tenants.xml")


def live(sim, *args):
    """vfabric attached to the fabric (umad2sim at the SM's node)."""
    cwd = os.path.join(sim.workdir, "diag")
    os.makedirs(cwd, exist_ok=True)
    env = sim._env(sim.osms[-1].node)
    return subprocess.run([vftest.VFABRIC] + [str(a) for a in args],
                          cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=vfsim.scaled(300),
                          stdin=subprocess.DEVNULL)


def report(res):
    try:
        return json.loads(res.stdout)
    except ValueError:
        return {"error": res.stderr + res.stdout}


def strip(rep):
    return {k: v for k, v in rep.items() if k != "examples"}


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    fab = topogen.fattree2(leaves=LEAVES, spines=SPINES, hosts=HOSTS)
    # one host with two HCAs: the host name "dual" is ambiguous
    fab.nodes["cn0055"].desc = "dual HCA-1"
    fab.nodes["cn0056"].desc = "dual HCA-2"
    gen_dir = vfsim.tempfile.mkdtemp(prefix="vf-livefabric-")
    net = os.path.join(gen_dir, "ft.net")
    fab.write(net)
    with vfsim.Sim(net, "livefabric", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=vftest.plugin_conf(engine="shortestpath"),
                         plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        w = sim.workdir
        topo = sim.discover(os.path.join(w, "ibnetdiscover.out"))
        fts = sim.dump_lfts(os.path.join(w, "dump_fts.out"))
        with open(topo) as fh:
            nodes = vfsim.parse_ibnetdiscover(fh.read())
        lids = [n["lid"] for n in nodes.values() if n["lid"]]
        top = max(lids)
        tap.ok(top % 64 == 0 and len(set(lids)) == len(nodes),
               f"the top LID is {top}, a multiple of 64",
               str(sorted(lids)))

        # live tables: every CA pair, with the top LID's block
        snap = os.path.join(w, "live-lfts.dump")
        res = live(sim, "check-routes", "--topo", "live", "--lfts", "live",
                   "--json", "-o", snap)
        rep = report(res)
        cas = LEAVES * HOSTS
        tap.ok(res.returncode == 0 and rep.get("ca_unreachable") == 0 and
               rep.get("ca_pairs") == cas * (cas - 1) and
               rep.get("sw_unreachable") == 0,
               f"check-routes --topo live --lfts live: all "
               f"{rep.get('ca_pairs')} CA pairs reachable",
               res.stderr + json.dumps(rep.get("examples", rep)))
        mine = vftest.parse_lfts(snap) if res.returncode == 0 else {}

        # what OpenSM programmed, from its own opensm-lfts.dump
        osm_dump = os.path.join(sim.osms[-1].dump_dir, "opensm-lfts.dump")
        rc, by_osm = vftest.check_routes(topo, osm_dump)
        tap.ok(strip(by_osm) == strip(rep) and
               vftest.parse_lfts(osm_dump) == mine,
               "the live tables are OpenSM's opensm-lfts.dump, and check "
               "the same",
               "\n".join(vftest.diff_lfts(vftest.parse_lfts(osm_dump),
                                          mine)))
        tap.ok(all(top in row for row in mine.values()) and
               len(mine) == LEAVES + SPINES,
               f"the live tables hold LID {top} on all {len(mine)} switches")

        # dump_fts and ibroute (infiniband-diags): every entry they show
        # is the live one; they leave out just the top LID's block
        ibroute = os.path.join(w, "ibroute.out")
        with open(ibroute, "w") as fh:
            for n in nodes.values():
                if n["kind"] == "Switch":
                    fh.write(sim.run_diag(["ibroute", str(n["lid"])]))
        for path, tool in ((fts, "dump_fts"), (ibroute, "ibroute")):
            theirs = vftest.parse_lfts(path)
            wrong = [(g, lid) for g, row in theirs.items()
                     for lid, p in row.items()
                     if mine.get(g, {}).get(lid) != p]
            missing = sorted({lid for g, row in mine.items() for lid in row
                              if lid not in theirs.get(g, {})})
            tap.ok(theirs and not wrong and set(missing) <= {top},
                   f"{tool}: its entries equal the live ones",
                   f"differ {wrong[:5]} missing {missing[:8]}")
            tap.diag(f"{tool} leaves out LIDs {missing}")
        res = live(sim, "check-routes", "--topo", "live", "--lfts", fts,
                   "--json")
        rc, by_text = vftest.check_routes(topo, fts)
        tap.ok(strip(report(res)) == strip(by_text) and
               by_text.get("ca_pairs") == rep.get("ca_pairs"),
               "--topo live and ibnetdiscover's text check dump_fts alike",
               res.stderr + res.stdout[-300:])
        tap.diag(f"text path (dump_fts): {by_text.get('ca_unreachable')} "
                 f"CA pairs unreachable; live: {rep.get('ca_unreachable')}")

        # the same switches, links and LIDs: both route to the same tables
        a, b = os.path.join(w, "live.dump"), os.path.join(w, "text.dump")
        ra = live(sim, "route", "--engine", "shortestpath", "--topo", "live",
                  "--node-name-map", "", "-o", a)
        rb = vftest.vfabric("route", "--engine", "shortestpath", "--topo",
                            topo, "--node-name-map", "", "-o", b)
        same = False
        if ra.returncode == 0 and rb.returncode == 0:
            with open(a) as fa, open(b) as fb:
                same = fa.read() == fb.read()
        tap.ok(same and os.path.getsize(a) > 0,
               "live input and ibnetdiscover's text give the same fabric "
               "(identical routing, switch names and LIDs)",
               ra.stderr + rb.stderr)

        # node-name-map: names matched; DeviceGroups still match the
        # NodeDescs (as the plugin does), so the plan does not change
        nmap = os.path.join(w, "node-name-map")
        with open(nmap, "w") as fh:
            fh.write("# test map\n"
                     f'0x{fab.nodes["L001"].guid:016x} "leaf-one"\n'
                     f'0x{fab.nodes["cn0003"].guid:016x}  login03\n')
        plain = live(sim, "resolve", TENANTS, "--topo", "live",
                     "--node-name-map", "")
        mapped = live(sim, "resolve", TENANTS, "--topo", "live",
                      "--node-name-map", nmap)
        tap.ok(plain.returncode == 0 and mapped.stdout == plain.stdout,
               "node-name-map: the partition plan is the plugin's, map or "
               "not (DeviceGroups match NodeDescs)",
               mapped.stdout[:300] + mapped.stderr[-300:])
        for topo_arg, label in ((topo, "text"), ("live", "live")):
            res = live(sim, "explain", CONF, "--topo", topo_arg,
                       "--node-name-map", nmap, "--src", "login03",
                       "--dst", "cn0004")
            tap.ok(res.returncode == 0 and
                   "source: cn0003 HCA-1 port 1" in res.stdout and
                   "destination: cn0004 HCA-1 port 1" in res.stdout,
                   f"{label}: --src by mapped name, --dst by host name",
                   res.stdout[:300] + res.stderr[-300:])
            res = live(sim, "explain", CONF, "--topo", topo_arg,
                       "--node-name-map", nmap, "--src", "cn0003 HCA-1",
                       "--dst", "cn0002")
            tap.ok(res.returncode == 0 and "source: cn0003 HCA-1 port 1" in
                   res.stdout and "destination: cn0002 HCA-1 port 1" in
                   res.stdout,
                   f"{label}: --src by the full NodeDesc of a mapped node",
                   res.stdout[:300] + res.stderr[-300:])
            res = live(sim, "explain", CONF, "--topo", topo_arg,
                       "--src", "dual", "--dst", "cn0002")
            tap.ok(res.returncode != 0 and "ambiguous" in res.stderr and
                   '"dual HCA-1"' in res.stderr and
                   '"dual HCA-2"' in res.stderr,
                   f"{label}: an ambiguous host name fails, naming both",
                   res.stderr)
            res = live(sim, "explain", CONF, "--topo", topo_arg,
                       "--src", "dual HCA-2", "--dst", "cn0002")
            tap.ok(res.returncode == 0 and "source: dual HCA-2 port 1" in
                   res.stdout, f"{label}: the full NodeDesc picks one",
                   res.stdout[:300] + res.stderr[-300:])
        res = live(sim, "arsim", "--topo", "live", "--lfts", "live",
                   "--fail-link", f"leaf002:{HOSTS + 1}", "--runs", "1")
        tap.ok(res.returncode == 0 and
               f"leaf002/{HOSTS + 1}" in res.stdout,
               "arsim --topo live --lfts live --fail-link by NodeDesc",
               res.stdout[-300:] + res.stderr[-300:])
        res = live(sim, "resolve", CONF, "--topo", "live", "--sm", "cn0001")
        tap.ok(res.returncode == 0, "resolve --topo live --sm by host name",
               res.stderr[-300:])
    vfsim.shutil.rmtree(gen_dir, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
