#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""VL layers in ibsim: a 4x4 torus with a host on each switch (whose
minimal routes close credit loops on one VL) routed by our shortestpath
with the plugin's defaults (vl_layers=8, loop_fallback=on), also with
QoS VFs, and with them on 2 VLs on a 3x6 torus (layered one way); then, with
the defaults only, a 3x3x3 torus, a dragonfly, a random regular graph
and a 3-level tree cut into a non-tree.  What the fabric then holds is read
back with the diags, and a credit-loop oracle of the tests' own
(sim/cdgoracle.py) walks every host-to-host route through it:

- the LFTs (dump_fts), and the topology (ibnetdiscover);
- the SL of every host pair from the SA's PathRecords (saquery
  --src-to-dst, pair by pair):
  OpenSM's own handler asking our path_sl callback without a vFabric
  file, our handler with one;
- every switch's SL-to-VL table for every output port (smpquery sl2vl),
  and the VLArb tables, which must serve every layer's VL.

The routes must close a cycle on one VL (the layers are needed) and none
per VL, with our tables kept (not OpenSM's fallback), and `vfabric
check-routes --path-sls --sl2vl`, given the same SLs and tables, must say
the same.  Stock OpenSM's dfsssp (qos on) on the same fabric, in the same
run, is the reference twice over: its tables, read back the same way,
must pass the oracle and check-routes alike, and we may use no more VLs
than it needs and load the busiest link no more.
"""

import json
import os
import re
import signal
import subprocess
import tempfile

import cdgoracle
import topogen
import vfsim
import vftest

DEFAULT_XML = os.path.abspath(os.path.join(vftest.TOP_SRCDIR, "conf",
                                           "vfabric-default.xml"))


def parse_prs(text, reversible=None):
    """saquery PR output -> {(slid, dlid): {SLs}} (one record per
    vFabric the pair shares); with a dict, each pair's reversible bit
    (all its records) into it."""
    out = {}
    for block in text.split("PathRecord dump:")[1:]:
        f = dict(re.findall(r"^\s*(\w+)\.+(\S+)", block, re.M))
        if "slid" in f and "dlid" in f and "sl" in f:
            pair = (int(f["slid"], 0), int(f["dlid"], 0))
            out.setdefault(pair, set()).add(int(f["sl"], 0))
            if reversible is not None:
                rev = bool(int(f.get("num_path_revers", "0"), 0) & 0x80)
                reversible[pair] = reversible.get(pair, True) and rev
    return out


def parse_vlarb(text):
    """smpquery vlarb: (low, high) lists of (vl, weight)."""
    vls = [[int(x, 16) for x in re.findall(r"0x[0-9a-fA-F]+", line)]
           for line in text.splitlines() if line.startswith("VL")]
    ws = [[int(x, 16) for x in re.findall(r"0x[0-9a-fA-F]+", line)]
          for line in text.splitlines() if line.startswith("WEIGHT")]
    return ([list(zip(v, w)) for v, w in zip(vls, ws)] + [[], []])[:2]


def read_fabric(sim):
    """lfts, links, hosts (cdgoracle's form, switches by GUID), switch
    LIDs and the LFT dump's path."""
    topo = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    dump = sim.dump_lfts()
    lfts = vfsim.read_lfts(dump)
    links, hosts, sw_lid = {}, {}, {}
    for guid, n in topo.items():
        if n["kind"] == "Switch":
            sw_lid[guid] = n["lid"]
            for port, peer in n["links"].items():
                links[(guid, port)] = peer
        elif n["lid"] and 1 in n["links"]:
            hosts[n["lid"]] = n["links"][1]
    return lfts, links, hosts, sw_lid, dump


def read_sl2vl(sim, links, sw_lid):
    """{(switch, in port, out port): [VL by SL]} of every switch output
    port toward another switch (the ones inter-switch routes leave by)."""
    tables = {}
    for (sw, port), (peer, _) in links.items():
        if peer not in sw_lid:
            continue
        rows = vfsim.parse_sl2vl(sim.run_diag(
            ["smpquery", "sl2vl", str(sw_lid[sw]), str(port)]))
        for (inp, out), vls in rows.items():
            tables[(sw, inp, out)] = vls
    return tables


def write_vl_files(work, prs, hosts, sl2vl):
    """The SLs and SL2VL tables read back, in check-routes --path-sls and
    --sl2vl form."""
    sls, tables = os.path.join(work, "sls.txt"), os.path.join(work,
                                                              "sl2vl.txt")
    with open(sls, "w") as fh:
        for (src, dst), pair_sls in sorted(prs.items()):
            if src in hosts and dst in hosts:
                for sl in sorted(pair_sls):
                    fh.write(f"{src} {dst} {sl}\n")
    with open(tables, "w") as fh:
        for (sw, inp, out), vls in sorted(sl2vl.items()):
            fh.write(f"0x{sw:016x} {inp} {out} "
                     f"{' '.join(map(str, vls))}\n")
    return sls, tables


def judge(tap, label, sim, layers, ours=True, want_sls=None,
          both_ways=True):
    """Read the fabric back and run the oracle on it, and check-routes
    with the same SLs and tables: both must find no loop per VL."""
    lfts, links, hosts, sw_lid, dump = read_fabric(sim)
    prs, reversible = {}, {}
    for src in hosts:   # one Get each: ibsim cuts multi-packet answers
        for dst in hosts:
            if src != dst:
                for pair, sls in parse_prs(sim.run_diag(
                        ["saquery", "--src-to-dst", f"{src}:{dst}"]),
                        reversible).items():
                    prs.setdefault(pair, set()).update(sls)
    sl2vl = read_sl2vl(sim, links, sw_lid)
    route_list = list(cdgoracle.routes(lfts, links, hosts))
    missing = [(s, d) for s, d, _ in route_list if (s, d) not in prs]
    tap.ok(route_list and not missing and
           all(h for _, _, h in route_list),
           f"{label}: every host pair has a route and a PathRecord "
           f"({len(route_list)} pairs)", f"missing {missing[:5]}")
    one, _ = cdgoracle.turns(route_list, lambda s, d: 0,
                             lambda sw, i, o, sl: 0)
    tap.ok(cdgoracle.has_cycle(one),
           f"{label}: on one VL the routes close a credit loop")
    absent = []

    def vl_of(sw, inp, out, sl):
        vls = sl2vl.get((sw, inp, out))
        if vls is None:
            absent.append((sw, inp, out))
            return 15
        return vls[sl]

    per, dropped = cdgoracle.turns(route_list,
                                   lambda s, d: prs.get((s, d), {0}), vl_of)
    tap.ok(not cdgoracle.has_cycle(per) and not dropped,
           f"{label}: with the SLs of the PathRecords and the switches' "
           f"SL2VL tables, no credit loop per VL and nothing on VL15",
           f"dropped {dropped}, tables not read {absent[:5]}")
    sls, tables = write_vl_files(sim.workdir, prs, hosts, sl2vl)
    res = subprocess.run([vftest.VFABRIC, "check-routes", "--topo",
                          sim.discover(), "--lfts", dump, "--path-sls", sls,
                          "--sl2vl", tables, "--json"],
                         capture_output=True, text=True)
    rep = json.loads(res.stdout or "{}")
    tap.ok(res.returncode == 0 and rep.get("vl_aware") and
           rep.get("single_vl_loop") and not rep.get("credit_loop") and
           not rep.get("vl_dropped"),
           f"{label}: vfabric check-routes --path-sls --sl2vl on the same "
           "SLs and tables agrees: a loop on one VL, none per VL",
           res.stderr[-300:] + str(rep.get("cycle")))
    if not ours:
        return dump
    one_way = [(a, b) for (a, b), sls in prs.items()
               if prs.get((b, a)) != sls]
    if both_ways:
        tap.ok(not one_way, f"{label}: every pair's PathRecords give the "
               "same SLs both ways (a connection answers on its request's "
               "SL)", one_way[:5])
    else:
        wrong = [p for p in one_way if reversible.get(p)]
        tap.ok(one_way and not wrong,
               f"{label}: layered one way: the {len(one_way)} records "
               "whose SL differs from the way back are not reversible",
               wrong[:5])
    used = set().union(*(prs[(s, d)] for s, d, _ in route_list
                         if (s, d) in prs))
    want = set(range(layers)) if want_sls is None else want_sls
    tap.ok(used == want,
           f"{label}: the PathRecords use SLs {sorted(want)}, one per "
           "layer (and QoS class)", sorted(used))
    some = next(iter(sorted(k for k in links if links[k][0] in sw_lid)))
    low, _ = parse_vlarb(sim.run_diag(["smpquery", "vlarb",
                                       str(sw_lid[some[0]]),
                                       str(some[1])]))
    served = {vl for vl, w in low if w > 0}
    vls = set(range(layers)) if want_sls is None else \
        {v for (sw, i, o), t in sl2vl.items() for sl, v in enumerate(t)
         if sl in want_sls}
    tap.ok(vls <= served,
           f"{label}: the VLArb low table serves VLs {sorted(vls)}", low)
    return dump


def load_max(topo, dump):
    res = subprocess.run([vftest.VFABRIC, "check-routes", "--topo", topo,
                          "--lfts", dump, "--json"], capture_output=True,
                         text=True)
    return json.loads(res.stdout or "{}").get("load_max")


def run_ours(tap, net, label, options):
    with vfsim.Sim(net, label, tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            "shortestpath", options=options), plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        log = sim.log_text()
        m = re.search(r"shortestpath: the routes close credit loops on one "
                      r"VL; split into (\d+) VL layers", log)
        tap.ok(m and "shortestpath tables configured on all switches" in
               log and "ERR VF0113" not in log,
               f"{label}: our tables are kept, split into VL layers",
               "\n".join(l for l in log.splitlines() if "VF01" in l or
                         "layers" in l)[-800:])
        layers = int(m.group(1)) if m else 1
        tap.ok(re.search(r"SL2VL tables of \d+ ports set for "
                         rf"{layers} VL layers", log),
               f"{label}: the plugin set the SL2VL tables")
        dump = judge(tap, label, sim, layers)
        return layers, load_max(sim.discover(), dump)


def run_qos(tap, net, shape, two_vls=False):
    """QoS VFs (conf/vfabric-compute-qos.xml: Default, and Compute on its
    own SL with 50%) with VL layers: each class a VL per layer, the SA
    answers on the class's SL of the route's layer.  two_vls: OpenSM's
    max_op_vls 2 leaves room for the layers of one class only, so both
    share the two VLs, and the log must say so (a 3x6 torus: its routes
    need 3 layers both ways, 2 one way)."""
    label = f"torus {shape}, QoS VFs" + (", 2 VLs" if two_vls else "")
    xml = os.path.join(os.path.dirname(DEFAULT_XML),
                       "vfabric-compute-qos.xml")
    with vfsim.Sim(net, "vllayers-qos", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            "shortestpath", options=f"log_level=info config={xml}",
            extra=["max_op_vls 2"] if two_vls else ()),
            plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        log = sim.log_text()
        m = re.search(r"qos: 2 classes over (\d+) VL layers: "
                      r"'\(no QoS\)' SLs ([\d,]+) on VLs \d+-\d+; "
                      r"'Compute' SLs ([\d,]+) on VLs", log)
        errors = [l for l in log.splitlines() if "ERR VF" in l]
        # on 2 VLs, both ways need more layers: one way, said (VF0130)
        tap.ok(m and "shortestpath tables configured on all switches" in
               log and errors == [e for e in errors if two_vls and
                                  "ERR VF0130: shortestpath: " in e] and
               ("one way" in log) == two_vls,
               f"{label}: our tables are kept, each QoS class a VL per "
               "layer" + (", one way (VF0130)" if two_vls else ""),
               "\n".join(l for l in log.splitlines()
                         if "VF01" in l or "qos" in l)[-800:])
        if two_vls:
            tap.ok("'(no QoS)' (VFs Default) and 'Compute' (VFs Compute) "
                   "share VLs 0-1 (their bandwidth shares add up: 100%)"
                   in log, f"{label}: the log says the two classes, with "
                   "their VFs, share VLs 0-1",
                   "\n".join(l for l in log.splitlines() if "qos" in l))
        if not m:
            return
        layers = int(m.group(1))
        sls = {int(x) for x in (m.group(2) + "," + m.group(3)).split(",")}
        judge(tap, label, sim, layers, want_sls=sls, both_ways=not two_vls)
        if two_vls:
            resweep_says_nothing_new(tap, label, sim)


def resweep_says_nothing_new(tap, label, sim):
    """A heavy sweep (SIGHUP) routes again into the same layers: they
    stay, and the warnings about them are not logged again."""
    since = sim.log_offset()
    sim.osms[-1].popen.send_signal(signal.SIGHUP)
    sim.wait_subnet_up(60, None, since)
    log = sim.log_text(since)
    tap.ok("split into" in log and "ERR VF0130" not in log and
           "share VLs" not in log and "ERR VF" not in log,
           f"{label}: a heavy sweep keeps the layers and does not warn "
           "about them again",
           "\n".join(l for l in log.splitlines()
                     if "VF01" in l or "qos" in l or "layers" in l))


def run_dfsssp(tap, net):
    """Stock OpenSM's dfsssp (no plugin; qos on, which its SL2VL tables
    need): its VLs and busiest link.  Its tables, SLs and SL2VL read back
    go through the same oracle and check-routes: the reference for the
    per-VL check itself."""
    with vfsim.Sim(net, "vllayers-dfsssp", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=["routing_engine dfsssp", "qos TRUE",
                                     "sweep_interval 0", "log_flags 0x07"])
        sim.wait_subnet_up()
        m = re.search(r"Virtual Lanes needed: (\d+)", sim.log_text())
        vls = int(m.group(1)) if m else None
        dump = judge(tap, "torus 4x4, OpenSM dfsssp", sim, vls, ours=False)
        return vls, load_max(sim.discover(), dump)


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    work = tempfile.mkdtemp(prefix="vf-vllayers-live-")
    net = os.path.join(work, "torus.net")
    topogen.grid((4, 4), torus=True, hosts=1).write(net)
    layers, load = run_ours(tap, net, "torus 4x4", "log_level=info")
    run_ours(tap, net, "torus 4x4, vFabric file",
             f"log_level=info config={DEFAULT_XML}")
    run_qos(tap, net, "4x4")
    narrow = os.path.join(work, "torus3x6.net")
    topogen.grid((3, 6), torus=True, hosts=1).write(narrow)
    run_qos(tap, narrow, "3x6", two_vls=True)
    dfs_vls, dfs_load = run_dfsssp(tap, net)
    tap.ok(dfs_vls is not None and layers <= dfs_vls,
           f"torus 4x4: {layers} VL layers, OpenSM dfsssp needs {dfs_vls}")
    tap.ok(load is not None and dfs_load is not None and load <= dfs_load,
           f"torus 4x4: busiest link {load}, dfsssp's {dfs_load}")
    run_limited(tap, net)
    for label, fab in other_fabrics():
        other = os.path.join(work, "other.net")
        fab.write(other)
        run_ours(tap, other, label, "log_level=info")
    vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


def other_fabrics():
    """The other shapes, once each with the defaults: a 3D torus, a
    dragonfly, a random regular graph, and a 3-level tree that lost 30% of
    its cables (no longer a tree)."""
    cut = topogen.fattree3(pods=4, leaves=2, aggs=2, cores=4, hosts=2,
                           radix=8)
    cut.remove_random_links(0.3, seed=1)
    return [("torus 3x3x3", topogen.grid((3, 3, 3), torus=True, hosts=1)),
            ("dragonfly of 9 groups of 4",
             topogen.dragonfly(routers=4, globals_per_router=2, hosts=1)),
            ("random 16 x 4",
             topogen.random_regular(16, 4, hosts=1, seed=3)),
            ("3-level tree missing 30% of its cables", cut)]


def run_limited(tap, net):
    """vl_layers=1: the loop cannot be broken; the tables are refused
    (loop_fallback) and the log says how many layers were needed."""
    with vfsim.Sim(net, "vllayers-one", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            "shortestpath", options="log_level=info vl_layers=1"),
            plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        log = sim.log_text()
        tap.ok(re.search(r"ERR VF0127: shortestpath: the routes' credit "
                         r"loops need \d+ VL layers; at most 1 may be used",
                         log) and "ERR VF0113" in log,
               "vl_layers=1: the tables are refused, saying how many "
               "layers they need",
               "\n".join(l for l in log.splitlines() if "VF01" in l))


if __name__ == "__main__":
    main()
