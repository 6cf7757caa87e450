#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""VL layers (vfabric route --vl-layers) on fabrics that are not trees,
checked by a credit-loop oracle of this test's own.

Each fabric (2D and 3D tori, meshes, dragonflies, random regular graphs,
fat trees cabled or cut until they are no longer trees; seeded) is routed
by our engines with --vl-layers 8 --sl-out.  The oracle reads only the net
file, the LFT dump and the SL file: it walks every data route (every
switch with hosts to every host LID) hop by hop through the LFTs, puts each
turn (link, VL) -> (next link, VL) in a graph with VL = the route's SL, and
looks for a cycle; a pair of hosts must have one SL both ways, unless the
routes need more layers than the VLs allow and the tool says it
layered them one way.  It must find one on a single VL (the routes need the
layers: otherwise the fabric tests nothing) and none per VL; the number of
layers the tool reports must be the number of SLs the file uses.  (How
many layers against OpenSM's dfsssp and lash: make bench.)

VF_LAYERS_SEEDS (default 2) seeds per random shape; VF_LAYERS_LONG=1 (make
check-layers-long) adds larger fabrics and 10 seeds.
"""

import json
import os
import re
import tempfile

import cdgoracle
import topogen
import vfsim
import vftest

LONG = os.environ.get("VF_LAYERS_LONG") == "1"
SEEDS = int(os.environ.get("VF_LAYERS_SEEDS", "10" if LONG else "2"))
MAX_LAYERS = 8
FINE_PAIRS = 1 << 21  # VF_LAYERS_FINE (routing/vllayers.h)


def leaf_ring_tree():
    """A 2-level tree whose leaves are also cabled in a ring, every other
    leaf cut from both spines: those reach the rest around the ring, and
    routes turn up, down and across."""
    fab = topogen.fattree2(leaves=8, spines=2, hosts=2, radix=8)
    for i in range(8):
        fab.link(f"L{i + 1:03d}", f"L{(i + 1) % 8 + 1:03d}")
    for leaf in (2, 4, 6, 8):
        fab.remove_link_spec(f"L{leaf:03d}:S001")
        fab.remove_link_spec(f"L{leaf:03d}:S002")
    return fab


def cut_tree():
    """A 3-level tree missing 30% of its cables (seed 1): some leaves
    reach others only down-up, so it is no longer a tree."""
    fab = topogen.fattree3(pods=4, leaves=2, aggs=2, cores=4, hosts=2,
                           radix=8)
    fab.remove_random_links(0.3, seed=1)
    return fab


def cases():
    out = [("torus 6x6", topogen.grid((6, 6), torus=True, hosts=2)),
           ("torus 5x5", topogen.grid((5, 5), torus=True, hosts=2)),
           ("torus 3x3x3", topogen.grid((3, 3, 3), torus=True, hosts=2)),
           ("torus 4x4x4", topogen.grid((4, 4, 4), torus=True, hosts=2)),
           ("mesh 5x4", topogen.grid((5, 4), hosts=2)),
           ("dragonfly 4 routers x 2 globals",
            topogen.dragonfly(routers=4, globals_per_router=2, hosts=2)),
           ("dragonfly 6 routers x 3 globals",
            topogen.dragonfly(routers=6, globals_per_router=3, hosts=2)),
           ("fat tree with a leaf ring", leaf_ring_tree()),
           ("3-level tree missing 30% of its cables", cut_tree()),
           # past VF_LAYERS_FINE (2^21) pairs of hosts: layered by pair
           # of switches
           ("random 40 x 4 with 37 hosts a switch",
            topogen.random_regular(40, 4, hosts=37, seed=3))]
    for seed in range(1, SEEDS + 1):
        out.append((f"random 32 x 4, seed {seed}",
                    topogen.random_regular(32, 4, hosts=2, seed=seed)))
        out.append((f"random 20 x 3, seed {seed}",
                    topogen.random_regular(20, 3, hosts=2, seed=seed)))
    if LONG:
        out += [("torus 8x8", topogen.grid((8, 8), torus=True, hosts=4)),
                ("torus 6x6x6", topogen.grid((6, 6, 6), torus=True,
                                             hosts=1)),
                ("dragonfly 8 routers x 4 globals",
                 topogen.dragonfly(routers=8, globals_per_router=4,
                                   hosts=4)),
                ("random 128 x 6",
                 topogen.random_regular(128, 6, hosts=2, seed=7))]
    return out


# -- the oracle ---------------------------------------------------------------
def read_sls(path):
    """{(slid, dlid): sl} of an --sl-out file (absent: SL 0)."""
    sls = {}
    with open(path) as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            slid, dlid, sl = map(int, line.split())
            sls[(slid, dlid)] = sl
    return sls


def lid_owners(dump):
    """{lid: node description} from an opensm-lfts.dump's comments (every
    switch lists every LID)."""
    owners = {}
    with open(dump) as fh:
        for line in fh:
            if line.startswith("0x") and "portguid" in line:
                lid = int(line.split()[0], 16)
                owners[lid] = line.rsplit("'", 2)[1]
    return owners


def one_way(sl_file):
    """Did --sl-out layer the routes one way (its first line says)?"""
    with open(sl_file) as fh:
        return "layers one way" in fh.readline()


def layer_unit(sl_file):
    """What --sl-out gave layers to: 'pair of hosts', 'pair of switches'
    or 'route' (one way)."""
    with open(sl_file) as fh:
        m = re.search(r"by (pair of \w+|route)", fh.readline())
    return m.group(1) if m else None


def oracle(net, dump, sl_file):
    """(cycle on one VL, cycle per VL, SLs used, broken routes) of the
    routes in dump, each on VL = its SL (cdgoracle.py)."""
    nodes = topogen.read_netfile(net)
    by_desc = {n.desc: n for n in nodes.values()}
    # the dump names each switch by GUID and description
    lfts = {}
    dumped = vfsim.read_lfts(dump)
    with open(dump) as fh:
        for line in fh:
            if line.startswith("Unicast lids"):
                guid = int(line.split("guid ")[1].split()[0], 16)
                sid = by_desc[line.rsplit("'", 2)[1]].id
                lfts[sid] = dumped[guid]
    links = {(n.id, port): peer for n in nodes.values()
             if n.kind == "Switch" for port, peer in n.ports.items()}
    hosts = {}
    for lid, desc in lid_owners(dump).items():
        n = by_desc.get(desc)
        if n is not None and n.kind != "Switch" and 1 in n.ports:
            hosts[lid] = n.ports[1]
    sls = read_sls(sl_file) if sl_file else {}
    route_list = list(cdgoracle.routes(lfts, links, hosts))
    broken = sum(1 for r in route_list if r[2] is None)
    asym = sum(1 for (a, b), sl in sls.items() if sls.get((b, a), 0) != sl)
    if sl_file and one_way(sl_file):
        asym = 0

    def sl_of(src, dst):
        return sls.get((src, dst), 0)

    one, _ = cdgoracle.turns(route_list, lambda s, d: 0,
                             lambda sw, i, o, sl: 0)
    per, _ = cdgoracle.turns(route_list, sl_of, lambda sw, i, o, sl: sl)
    used = {sl_of(src, dst) for src, dst, hops in route_list if hops}
    # a pair's SL must be the same both ways (a connection's two
    # directions share it): count those that differ as broken
    return (cdgoracle.has_cycle(one), cdgoracle.has_cycle(per), used,
            broken + asym)


def check(tap, work, label, fab, engine="shortestpath", vls=MAX_LAYERS):
    net = os.path.join(work, "fabric.net")
    dump = os.path.join(work, "lfts.dump")
    sl_file = os.path.join(work, "sl.txt")
    fab.write(net)
    res = vftest.vfabric("route", "--topo", net, "--engine", engine,
                         "-o", dump, "--vl-layers", str(vls),
                         "--sl-out", sl_file, "--check", "--json")
    try:
        rep = json.loads(res.stdout)
    except ValueError:
        rep = {}
    layers = rep.get("vl_layers")
    if res.returncode or layers is None:
        tap.ok(False, f"{label} ({engine}): routed and layered",
               res.stderr[-600:])
        return
    cyc1, cyc_vl, used, broken = oracle(net, dump, sl_file)
    tap.ok(cyc1 and rep.get("single_vl_loop"),
           f"{label} ({engine}): a credit loop on one VL (the oracle and "
           f"the tool agree), so the layers are needed")
    tap.ok(not cyc_vl and not rep.get("credit_loop") and not broken and
           rep.get("ca_unreachable") == 0,
           f"{label} ({engine}): no credit loop per VL in {layers} layers "
           f"(oracle), every route delivered, each pair on one SL both "
           "ways",
           f"oracle cycle {cyc_vl}, tool {rep.get('credit_loop')} "
           f"{rep.get('cycle')}, broken {broken}")
    tap.ok(used == set(range(layers)) and layers <= vls,
           f"{label} ({engine}): the SL file uses SLs 0-{layers - 1}, "
           f"the {layers} layers reported", f"SLs used {sorted(used)}")
    # both ways by pair of hosts, or of switches past VF_LAYERS_FINE;
    # one way by route
    hosts = len(fab.hcas())
    unit = ("route" if one_way(sl_file) else "pair of switches"
            if hosts * hosts > FINE_PAIRS else "pair of hosts")
    tap.ok(layer_unit(sl_file) == unit,
           f"{label} ({engine}): {hosts} hosts, layered by {unit}",
           f"the SL file says {layer_unit(sl_file)}")
    if one_way(sl_file):
        tap.ok("one way they need" in res.stderr and
               "RC over rdma_cm" in res.stderr,
               f"{label} ({engine}): both ways need more than {vls} "
               "layers; one way is used, with the warning", res.stderr)


def check_oracle_fails(tap, work):
    """The oracle is not blind: the 6x6 torus's layers with layer 1
    merged into layer 0 (every SL lowered by one) must show a cycle; so
    must check-routes --path-sls given those SLs."""
    net = os.path.join(work, "fabric.net")
    dump = os.path.join(work, "lfts.dump")
    sl_file = os.path.join(work, "sl.txt")
    topogen.grid((6, 6), torus=True, hosts=2).write(net)
    vftest.vfabric("route", "--topo", net, "-o", dump, "--vl-layers",
                   str(MAX_LAYERS), "--sl-out", sl_file)
    merged = os.path.join(work, "merged.txt")
    with open(sl_file) as src, open(merged, "w") as out:
        for line in src:
            if not line.startswith("#"):
                slid, dlid, sl = line.split()
                line = f"{slid} {dlid} {int(sl) - 1}\n"
            out.write(line)
    _, cyc_vl, _, _ = oracle(net, dump, merged)
    tap.ok(cyc_vl, "the oracle finds the cycle when layers 0 and 1 of the "
           "6x6 torus are merged")
    # check-routes judging given SLs: the file's pass, the merged fail
    for sls, rc, what in ((sl_file, 0, "no credit loop per VL"),
                          (merged, 1, "the merged layers' cycle")):
        res = vftest.vfabric("check-routes", "--topo", net, "--lfts", dump,
                             "--path-sls", sls, "--json")
        rep = json.loads(res.stdout or "{}")
        tap.ok(res.returncode == rc and rep.get("vl_aware") and
               rep.get("credit_loop") == bool(rc),
               f"check-routes --path-sls on the 6x6 torus: {what}",
               res.stderr[-300:] + str(rep.get("cycle")))


def check_qos_sharing(tap, work):
    """With --config and QoS VFs, route and check-routes say how the
    classes lie over the layers, and which VFs share VLs when the VLs do
    not hold a group per class (the 6x6 torus: 4 layers one way)."""
    net = os.path.join(work, "t66.net")
    dump = os.path.join(work, "t66.dump")
    topogen.grid((6, 6), torus=True, hosts=2).write(net)
    xml = os.path.join(vftest.TOP_SRCDIR, "conf", "vfabric-compute-qos.xml")
    res = vftest.vfabric("route", "--topo", net, "--config", xml,
                         "--vl-layers", "8", "-o", dump)
    tap.ok(res.returncode == 0 and
           "qos: 2 classes over 4 VL layers: '(no QoS)' SLs 0,15,14,13 on "
           "VLs 0-3; 'Compute' SLs 1,12,11,10 on VLs 4-7" in res.stderr and
           "share VLs" not in res.stderr,
           "route --config --vl-layers 8: each QoS class its own 4 VLs, "
           "nothing shared", res.stderr[-600:])
    res = vftest.vfabric("check-routes", "--topo", net, "--lfts", dump,
                         "--config", xml, "--vl-layers", "4")
    tap.ok("'(no QoS)' (VFs Default) and 'Compute' (VFs Compute) share "
           "VLs 0-3 (their bandwidth shares add up: 100%)" in res.stderr,
           "check-routes --config --vl-layers 4: the two classes, with "
           "their VFs, share VLs 0-3", res.stderr[-600:])


def check_refusals(tap, work):
    """Too few layers fail, and say how many the routes need."""
    net = os.path.join(work, "t66.net")
    topogen.grid((6, 6), torus=True, hosts=2).write(net)
    res = vftest.vfabric("route", "--topo", net, "-o", os.devnull,
                         "--vl-layers", "1")
    tap.ok(res.returncode == 2 and "need" in res.stderr and
           "layers" in res.stderr,
           "--vl-layers 1 on a torus: exit 2, saying how many layers the "
           "routes need", res.stderr[-300:])
    res = vftest.vfabric("route", "--topo", net, "-o", os.devnull,
                         "--sl-out", os.path.join(work, "x"))
    tap.ok(res.returncode == 2 and "--vl-layers" in res.stderr,
           "--sl-out without --vl-layers is refused", res.stderr[-300:])
    dump = os.path.join(work, "t66.dump")
    vftest.vfabric("route", "--topo", net, "-o", dump)
    for name, text, where, opts in (
            ("sls", "# a comment\n0x0002c90200000001 1\n", "sls:2: expected",
             ()),
            # LIDs 1-36 are the switches', 37-108 the hosts'
            ("sls", "37 4294967297 1\n", "sls:1: LID not in the fabric",
             ()),
            ("sls", "37 2 3\n", "sls:1: the destination is not a host LID",
             ()),
            ("sls", "2 37 3\n", "sls:1: the source is not a host LID", ()),
            ("vl", "0x0002c90200000001 1 2 0 0 0\n", "vl:1: expected",
             ("--path-sls", os.devnull))):
        path = os.path.join(work, name)
        with open(path, "w") as fh:
            fh.write(text)
        args = ("--path-sls", path) if name == "sls" else \
            opts + ("--sl2vl", path)
        res = vftest.vfabric("check-routes", "--topo", net, "--lfts", dump,
                             *args)
        tap.ok(res.returncode == 2 and where in res.stderr,
               f"check-routes --{'path-sls' if name == 'sls' else 'sl2vl'}"
               f" with {text.strip()!r}: exit 2 naming {where!r}",
               res.stderr[-300:])
    tree = os.path.join(work, "tree.net")
    topogen.fattree2(leaves=4, spines=2, hosts=2).write(tree)
    res = vftest.vfabric("route", "--topo", tree, "--engine", "fattree",
                         "-o", os.devnull, "--vl-layers", "8", "--check",
                         "--json")
    rep = json.loads(res.stdout or "{}")
    tap.ok(res.returncode == 0 and rep.get("vl_layers") == 1 and
           not rep.get("single_vl_loop"),
           "a fat tree needs one layer (no SL but 0)",
           res.stderr[-300:])


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    work = tempfile.mkdtemp(prefix="vf-vllayers-")
    for label, fab in cases():
        check(tap, work, label, fab)
    check(tap, work, "torus 6x6", topogen.grid((6, 6), torus=True, hosts=2),
          "dgshortestpath")
    # both ways fit in 15 where they do not in 8
    check(tap, work, "torus 6x6 with 15 VLs",
          topogen.grid((6, 6), torus=True, hosts=2), vls=15)
    check(tap, work, "3-level tree missing 30% of its cables", cut_tree(),
          "fattree")
    check_oracle_fails(tap, work)
    check_qos_sharing(tap, work)
    check_refusals(tap, work)
    vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
