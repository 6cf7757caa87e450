#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Topology generators writing ibsim 0.10 net files.

Use as a module::

    import topogen
    fab = topogen.fattree2(leaves=8, spines=4, hosts=8)
    fab.write("ft.net")
    nodes, switches, ports = fab.sizes()

or as a CLI::

    python3 sim/topogen.py fattree2 --leaves 8 --spines 4 --hosts 8 -o ft.net

Every node gets an explicit GUID (``switchguid=``/``caguid=`` line before
it) and a NodeDescription (``# "..."`` on its header line); chassis chips
get a ``sysimgguid=`` line too.  Output is deterministic for the same
arguments (the random generator takes --seed).

Naming (node id in the file / NodeDescription):
  hosts       cn0001 / "cn0001 HCA-1", stor01 / "stor01 HCA-1",
              admin1 / "admin1 HCA-1" (the node id is the host name)
  fattree2    leaves L001 / "leaf001", spines S001 / "spine001"
  fattree3    leaves L001, aggregation A001, core C001 ("leaf001", ...)
  dcs         chips dcs1-L03A / "dcs1 Leaf 3 Chip A",
              dcs1-S02A / "dcs1 Spine 2 Chip A", edge switches E001
  mesh/torus  X01Y02[Z03] / "sw X01Y02[Z03]"
  random      R001 / "rsw001"
GUIDs: switches 0x0002c90200000000+n, CAs 0x0002c90300000000+16*n
(port GUID = node GUID + port), chassis SystemImageGUIDs
0x0002c90400000000+chassis.
"""

import argparse
import math
import random
import re
import sys

SWITCH_GUID_BASE = 0x0002c90200000000
CA_GUID_BASE = 0x0002c90300000000
SYSIMG_GUID_BASE = 0x0002c90400000000

# ibsim 0.10 built-in limits (ibsim -N/-S/-P raise them).
IBSIM_DEFAULT_NODES = 2048
IBSIM_DEFAULT_SWITCHES = 256
IBSIM_DEFAULT_PORTS = 13312


class TopoError(Exception):
    """A topology that cannot be built with the given parameters."""


class Node:
    """One switch or CA: id, NodeDesc, port count, GUIDs and links."""

    def __init__(self, kind, nid, desc, nports, guid, sysimg=None):
        self.kind = kind            # "Switch" or "Hca"
        self.id = nid
        self.desc = desc
        self.nports = nports
        self.guid = guid
        self.sysimg = sysimg
        self.ports = {}             # port -> (peer id, peer port)

    def free_port(self, start=1):
        """Return the lowest unused port >= start, or raise TopoError."""
        for p in range(start, self.nports + 1):
            if p not in self.ports:
                return p
        raise TopoError(f"{self.id}: all {self.nports} ports used")


class Fabric:
    """An ordered set of nodes and links that can be written as a net file."""

    def __init__(self, title=""):
        self.title = title
        self.nodes = {}             # id -> Node, insertion ordered
        self.n_sw = 0
        self.n_ca = 0
        # link width+speed for every port line, e.g. "4xEDR" (None: ibsim's
        # default 4xSDR).  Written as "# lid 0 4xEDR", the only per-port
        # form ibsim 0.10 parses; it also silences its "cannot parse remote
        # lid" warning per port line.
        self.speed = None

    # -- building ---------------------------------------------------------
    def add_switch(self, nid, desc, nports, sysimg=None):
        """Add a switch with `nports` external ports; return the Node."""
        self.n_sw += 1
        return self._add(Node("Switch", nid, desc, nports,
                              SWITCH_GUID_BASE + self.n_sw, sysimg))

    def add_hca(self, nid, desc, nports=1):
        """Add a channel adapter; return the Node."""
        self.n_ca += 1
        return self._add(Node("Hca", nid, desc, nports,
                              CA_GUID_BASE + 16 * self.n_ca))

    def _add(self, node):
        if node.id in self.nodes:
            raise TopoError(f"duplicate node id {node.id}")
        if any(c in node.id for c in '#@"'):
            raise TopoError(f"bad node id {node.id!r}")
        self.nodes[node.id] = node
        return node

    def link(self, a, b, pa=None, pb=None):
        """Connect node a port pa to node b port pb (free ports if None)."""
        na, nb = self.nodes[a], self.nodes[b]
        pa = na.free_port() if pa is None else pa
        pb = nb.free_port() if pb is None else pb
        for n, p in ((na, pa), (nb, pb)):
            if not 1 <= p <= n.nports:
                raise TopoError(f"{n.id}: port {p} out of 1..{n.nports}")
            if p in n.ports:
                raise TopoError(f"{n.id}[{p}] already connected")
        na.ports[pa] = (b, pb)
        nb.ports[pb] = (a, pa)
        return pa, pb

    def unlink(self, a, pa):
        """Remove the link at node a port pa (both ends)."""
        b, pb = self.nodes[a].ports.pop(pa)
        del self.nodes[b].ports[pb]

    def links_between(self, a, b):
        """Ports of a that connect to b, sorted."""
        return sorted(p for p, (peer, _) in self.nodes[a].ports.items()
                      if peer == b)

    def remove_node(self, nid):
        """Remove a node and all its links."""
        for p in list(self.nodes[nid].ports):
            self.unlink(nid, p)
        del self.nodes[nid]

    # -- degrading --------------------------------------------------------
    def remove_link_spec(self, spec):
        """Remove links by spec: "A[p]" (one port), "A:B" (all A-B links)
        or "A:B:n" (the n-th A-B link, 1-based)."""
        if "[" in spec:
            nid, port = spec.rstrip("]").split("[")
            self._need(nid)
            if int(port) not in self.nodes[nid].ports:
                raise TopoError(f"{spec}: port not connected")
            self.unlink(nid, int(port))
            return
        parts = spec.split(":")
        if len(parts) not in (2, 3):
            raise TopoError(f"bad link spec {spec!r}")
        a, b = parts[0], parts[1]
        self._need(a)
        self._need(b)
        ports = self.links_between(a, b)
        if not ports:
            raise TopoError(f"no link between {a} and {b}")
        if len(parts) == 3:
            idx = int(parts[2])
            if not 1 <= idx <= len(ports):
                raise TopoError(f"{spec}: only {len(ports)} links")
            ports = [ports[idx - 1]]
        for p in ports:
            self.unlink(a, p)

    def remove_host_spec(self, nid):
        """Remove a CA (by node id)."""
        self._need(nid)
        if self.nodes[nid].kind != "Hca":
            raise TopoError(f"{nid} is not a host")
        self.remove_node(nid)

    def _need(self, nid):
        if nid not in self.nodes:
            raise TopoError(f"unknown node {nid}")

    # -- queries ----------------------------------------------------------
    def switches(self):
        """Switch nodes in file order."""
        return [n for n in self.nodes.values() if n.kind == "Switch"]

    def hcas(self):
        """CA nodes in file order."""
        return [n for n in self.nodes.values() if n.kind == "Hca"]

    def num_links(self):
        """Number of links (each counted once)."""
        return sum(len(n.ports) for n in self.nodes.values()) // 2

    def switch_links(self):
        """Links between two switches, each once, as (id, port) pairs in
        file order."""
        out = []
        for nid, node in self.nodes.items():
            for port, (peer, pport) in sorted(node.ports.items()):
                if node.kind == "Switch" and \
                        self.nodes[peer].kind == "Switch" and \
                        (nid, port) < (peer, pport):
                    out.append(((nid, port), (peer, pport)))
        return out

    def remove_random_links(self, fraction, seed=1):
        """Remove that fraction (at least one) of the links between
        switches, chosen by a seeded generator; returns them as specs."""
        links = self.switch_links()
        rng = random.Random(seed)
        gone = rng.sample(links, max(1, round(len(links) * fraction)))
        for (a, pa), _ in gone:
            self.unlink(a, pa)
        return [f"{a}[{pa}]" for (a, pa), _ in gone]

    def tier_cut_bound(self, crossing=None):
        """A lower bound on the busiest link under all-to-all traffic
        between the hosts, for a tree: tiers are counted up from the
        switches with hosts; for each tier k, every group of switches
        connected through tiers <= k (a leaf, a pod, ...) must pass
        H * (N - H) routes over its links to higher tiers, so one of them
        carries at least the share.  Returns the largest share (a float;
        0 when there is no such group).

        With `crossing`, a function of the host ids (CA node ids) inside a
        group that returns how many routes leave it (e.g. the pairs one
        partition permits), the bound is of that traffic instead."""
        sw = {n.id for n in self.switches()}
        hosts = {s: [peer for peer, _ in self.nodes[s].ports.values()
                     if peer not in sw] for s in sw}
        total = sum(len(h) for h in hosts.values())
        level = {s: 0 for s in sw if hosts[s]}
        todo = list(level)
        for s in todo:
            for peer, _ in self.nodes[s].ports.values():
                if peer in sw and peer not in level:
                    level[peer] = level[s] + 1
                    todo.append(peer)
        best = 0.0
        for k in range(max(level.values(), default=0)):
            seen = set()
            for s in sorted(x for x in level if level[x] <= k):
                if s in seen:
                    continue
                group, stack = {s}, [s]
                while stack:
                    x = stack.pop()
                    for peer, _ in self.nodes[x].ports.values():
                        if level.get(peer, k + 1) <= k and peer not in group:
                            group.add(peer)
                            stack.append(peer)
                seen |= group
                inside = [h for x in group for h in hosts[x]]
                up = sum(1 for x in group
                         for peer, _ in self.nodes[x].ports.values()
                         if level.get(peer, -1) > k)
                routes = crossing(inside) if crossing else \
                    len(inside) * (total - len(inside))
                if up and routes:
                    best = max(best, routes / up)
        return best

    def leaf_uplink_bound(self):
        """A lower bound on the busiest link under all-to-all traffic to
        base LIDs, for destination-based forwarding in a tree: a switch
        with H hosts and U links to other switches sends each of the other
        N - H hosts' LIDs out of one of those links, with the routes of all
        its H hosts, so one link carries ceil((N - H) / U) * H of them.
        The largest over such switches (0 when none)."""
        sw = {n.id for n in self.switches()}
        total = sum(1 for _ in self.hcas())
        best = 0
        for s in sw:
            peers = [peer for peer, _ in self.nodes[s].ports.values()]
            h = sum(1 for p in peers if p not in sw)
            u = sum(1 for p in peers if p in sw)
            if h and u:
                best = max(best, -(-(total - h) // u) * h)
        return best

    def route_granule(self):
        """What every link between switches carries a multiple of, under
        all-to-all traffic and destination-based tables: the hosts of one
        switch share its entry for a destination and the path after it,
        so a link's routes come in blocks of one switch's host count; the
        greatest common divisor of those counts (1 without hosts)."""
        sw = {n.id for n in self.switches()}
        counts = [sum(1 for peer, _ in self.nodes[s].ports.values()
                      if peer not in sw) for s in sw]
        return math.gcd(*[h for h in counts if h]) or 1

    def lower_bound(self):
        """The larger of the two bounds above, as a whole number of
        routes, the tier cut rounded up to a multiple of route_granule():
        no destination-based routing of this tree can load its busiest
        link less (5 chassis, 30 edge switches of 10 hosts: the tier cut
        833.3, so 840)."""
        grain = self.route_granule()
        # round() first: a share like 26.0000000001 is 26
        tier = math.ceil(round(self.tier_cut_bound() / grain, 6)) * grain
        return max(self.leaf_uplink_bound(), tier)

    def sizes(self):
        """(nodes, switches, ports) as ibsim counts them (switch port 0
        included), to compare with its -N/-S/-P limits."""
        sw = self.switches()
        ports = sum(n.nports + 1 for n in sw) + \
            sum(n.nports for n in self.hcas())
        return len(self.nodes), len(sw), ports

    # -- output -----------------------------------------------------------
    def lines(self):
        """The net file as a list of lines (no newlines)."""
        n, s, p = self.sizes()
        out = [f"# {self.title}" if self.title else "# topogen fabric",
               f"# nodes {n} switches {s} hcas {n - s} links "
               f"{self.num_links()} ibsim-ports {p}", ""]
        for node in self.nodes.values():
            out.extend(self._node_lines(node, self.speed))
        return out

    @staticmethod
    def _node_lines(node, speed=None):
        out = []
        if node.sysimg is not None:
            out.append(f"sysimgguid=0x{node.sysimg:016x}")
        key = "switchguid" if node.kind == "Switch" else "caguid"
        out.append(f"{key}=0x{node.guid:016x}")
        out.append(f'{node.kind} {node.nports} "{node.id}" # "{node.desc}"')
        for p in sorted(node.ports):
            peer, pp = node.ports[p]
            suffix = f" # lid 0 {speed}" if speed else ""
            out.append(f'[{p}] "{peer}"[{pp}]{suffix}')
        out.append("")             # a record ends with an empty line
        return out

    def write(self, path_or_file):
        """Write the net file to a path or an open text file."""
        text = "\n".join(self.lines()) + "\n"
        if hasattr(path_or_file, "write"):
            path_or_file.write(text)
        else:
            with open(path_or_file, "w", encoding="ascii") as fh:
                fh.write(text)


# -- hosts --------------------------------------------------------------------
def host_names(total, storage=0, admin=0):
    """Names for `total` host slots: the first `admin` are admin1.., the
    last `storage` are stor01.., the rest cn0001.. in order."""
    if admin + storage > total:
        raise TopoError("more admin+storage hosts than host slots")
    names = []
    cn = 0
    for i in range(total):
        if i < admin:
            names.append(f"admin{i + 1}")
        elif i >= total - storage:
            names.append(f"stor{i - (total - storage) + 1:02d}")
        else:
            cn += 1
            names.append(f"cn{cn:04d}")
    return names


def attach_hosts(fab, switch_ids, per_switch, storage=0, admin=0):
    """Put `per_switch` hosts on each switch (free ports, in order)."""
    names = iter(host_names(len(switch_ids) * per_switch, storage, admin))
    for sid in switch_ids:
        for _ in range(per_switch):
            name = next(names)
            fab.add_hca(name, f"{name} HCA-1")
            fab.link(name, sid, 1)


def _check_radix(node_id, used, radix):
    if used > radix:
        raise TopoError(f"{node_id}: needs {used} ports, radix is {radix}")


# -- generators ---------------------------------------------------------------
def fattree2(leaves=4, spines=2, hosts=4, trunk=1, radix=36,
             storage=0, admin=0):
    """Two-level fat tree: every leaf has `trunk` links to every spine and
    `hosts` hosts.  Ports: leaf hosts on 1..hosts, uplinks after them
    (spine-major order); spine port of leaf i trunk t is
    i*trunk+t+1.  Oversubscription = hosts : spines*trunk."""
    fab = Fabric(f"fattree2 leaves={leaves} spines={spines} hosts={hosts} "
                 f"trunk={trunk} radix={radix}")
    _check_radix("leaf", hosts + spines * trunk, radix)
    _check_radix("spine", leaves * trunk, radix)
    lids = [f"L{i + 1:03d}" for i in range(leaves)]
    sids = [f"S{i + 1:03d}" for i in range(spines)]
    for i, sid in enumerate(sids):
        fab.add_switch(sid, f"spine{i + 1:03d}", radix)
    for i, lid in enumerate(lids):
        fab.add_switch(lid, f"leaf{i + 1:03d}", radix)
    for li, lid in enumerate(lids):
        for si, sid in enumerate(sids):
            for t in range(trunk):
                fab.link(lid, sid, hosts + si * trunk + t + 1,
                         li * trunk + t + 1)
    attach_hosts(fab, lids, hosts, storage, admin)
    return fab


def fattree3(pods=4, leaves=4, aggs=4, cores=4, hosts=4, radix=36,
             storage=0, admin=0):
    """Three-level fat tree.  Each pod has `leaves` leaf and `aggs`
    aggregation switches, fully connected (one link per pair).  Core
    switches are split into `aggs` groups of cores/aggs; aggregation
    switch j of every pod links to every core of group j.
    Oversubscription at the leaf = hosts : aggs."""
    if cores % aggs:
        raise TopoError("cores must be a multiple of aggs")
    group = cores // aggs
    _check_radix("leaf", hosts + aggs, radix)
    _check_radix("agg", leaves + group, radix)
    _check_radix("core", pods, radix)
    fab = Fabric(f"fattree3 pods={pods} leaves={leaves} aggs={aggs} "
                 f"cores={cores} hosts={hosts} radix={radix}")
    cids = [f"C{i + 1:03d}" for i in range(cores)]
    for i, cid in enumerate(cids):
        fab.add_switch(cid, f"core{i + 1:03d}", radix)
    all_leaves = []
    for p in range(pods):
        aids = [f"A{p * aggs + j + 1:03d}" for j in range(aggs)]
        lids = [f"L{p * leaves + j + 1:03d}" for j in range(leaves)]
        for aid in aids:
            fab.add_switch(aid, f"agg{aid[1:]}", radix)
        for lid in lids:
            fab.add_switch(lid, f"leaf{lid[1:]}", radix)
        for lid in lids:
            for j, aid in enumerate(aids):
                fab.link(lid, aid, hosts + j + 1)
        for j, aid in enumerate(aids):
            for cid in cids[j * group:(j + 1) * group]:
                fab.link(aid, cid)
        all_leaves += lids
    # core ports: pod order
    attach_hosts(fab, all_leaves, hosts, storage, admin)
    return fab


def dcs(chassis=1, leaves=6, spines=3, spine_chips=1, hosts=4, trunk=1,
        radix=36, edges=0, edge_hosts=8, edge_uplinks=2, xlinks=1,
        storage=0, admin=0):
    """Director-class switch fabric.

    Each chassis c (dcs1, dcs2, ...) holds `leaves` leaf chips and
    `spines` spine modules of `spine_chips` chips each, all with the
    chassis SystemImageGUID.  Inside a chassis every leaf chip has `trunk`
    links to every spine chip.  `hosts` hosts hang off each leaf chip.

    With `edges` > 0, edge (top-of-rack) switches E001.. carry `edge_hosts`
    hosts each and have `edge_uplinks` links to every chassis, spread
    round-robin over its leaf chips (a 3-tier fabric with the chassis as
    the core).  With several chassis and no edge switches, chassis are
    connected directly: leaf chip k of chassis i has `xlinks` links to
    leaf chip k of every other chassis.
    """
    letters = "ABCDEFGH"
    if spine_chips > len(letters):
        raise TopoError("at most 8 chips per spine module")
    fab = Fabric(f"dcs chassis={chassis} leaves={leaves} spines={spines} "
                 f"spine_chips={spine_chips} hosts={hosts} trunk={trunk} "
                 f"edges={edges}")
    nchips = spines * spine_chips
    ext = hosts + (0 if edges else (chassis - 1) * xlinks)
    if edges:
        ext += -(-edges * edge_uplinks // leaves)   # ceil
    _check_radix("leaf chip", nchips * trunk + ext, radix)
    _check_radix("spine chip", leaves * trunk, radix)
    leaf_chips = []
    for c in range(1, chassis + 1):
        sysimg = SYSIMG_GUID_BASE + c
        sp = []
        for s in range(1, spines + 1):
            for k in range(spine_chips):
                nid = f"dcs{c}-S{s:02d}{letters[k]}"
                fab.add_switch(nid, f"dcs{c} Spine {s} Chip {letters[k]}",
                               radix, sysimg)
                sp.append(nid)
        lf = []
        for lv in range(1, leaves + 1):
            nid = f"dcs{c}-L{lv:02d}A"
            fab.add_switch(nid, f"dcs{c} Leaf {lv} Chip A", radix, sysimg)
            lf.append(nid)
        for li, lid in enumerate(lf):
            for si, sid in enumerate(sp):
                for t in range(trunk):
                    fab.link(lid, sid, radix - si * trunk - t,
                             li * trunk + t + 1)
        leaf_chips.append(lf)
    if edges:
        _dcs_edges(fab, leaf_chips, edges, edge_hosts, edge_uplinks, radix,
                   hosts)
    else:
        _dcs_direct(fab, leaf_chips, xlinks, hosts)
    host_sw = [lid for lf in leaf_chips for lid in lf] if hosts else []
    edge_ids = [f"E{e + 1:03d}" for e in range(edges)]
    slots = [(sid, hosts) for sid in host_sw] + \
        [(eid, edge_hosts) for eid in edge_ids]
    names = iter(host_names(sum(n for _, n in slots), storage, admin))
    for sid, n in slots:
        for _ in range(n):
            name = next(names)
            fab.add_hca(name, f"{name} HCA-1")
            fab.link(name, sid, 1)
    return fab


def _dcs_edges(fab, leaf_chips, edges, edge_hosts, uplinks, radix, hosts):
    """Edge switches with `uplinks` links to each chassis (leaf chip
    ports after the `hosts` host ports)."""
    _check_radix("edge", edge_hosts + uplinks * len(leaf_chips), radix)
    rr = [0] * len(leaf_chips)
    for e in range(edges):
        eid = f"E{e + 1:03d}"
        fab.add_switch(eid, f"edge{e + 1:03d}", radix)
        port = edge_hosts + 1
        for c, lf in enumerate(leaf_chips):
            for _ in range(uplinks):
                lid = lf[rr[c] % len(lf)]
                rr[c] += 1
                fab.link(eid, lid, port, fab.nodes[lid].free_port(hosts + 1))
                port += 1


def _dcs_direct(fab, leaf_chips, xlinks, hosts):
    """Leaf chip k of chassis i to leaf chip k of chassis j (i < j)."""
    for i in range(len(leaf_chips)):
        for j in range(i + 1, len(leaf_chips)):
            for a, b in zip(leaf_chips[i], leaf_chips[j]):
                for _ in range(xlinks):
                    fab.link(a, b, fab.nodes[a].free_port(hosts + 1),
                             fab.nodes[b].free_port(hosts + 1))


def grid(dims, torus=False, hosts=2, radix=None, storage=0, admin=0):
    """Mesh or torus of switches with `hosts` hosts each.  dims is a
    tuple of sizes (2 or 3 of them).  Port 2d+1 goes to +direction of
    dimension d, port 2d+2 to -direction; hosts follow.  Torus wrap links
    are only added for sizes > 2 (a size-2 ring is the mesh link)."""
    nd = len(dims)
    radix = radix or 2 * nd + hosts
    _check_radix("grid switch", 2 * nd + hosts, radix)
    kind = "torus" if torus else "mesh"
    fab = Fabric(f"{kind}{nd}d dims={'x'.join(map(str, dims))} "
                 f"hosts={hosts} radix={radix}")
    axes = "XYZ"

    def name(c):
        return "".join(f"{axes[d]}{c[d] + 1:02d}" for d in range(nd))

    coords = _all_coords(dims)
    for c in coords:
        fab.add_switch(name(c), f"sw {name(c)}", radix)
    for c in coords:
        for d in range(nd):
            nxt = list(c)
            nxt[d] += 1
            if nxt[d] == dims[d]:
                if not torus or dims[d] <= 2:
                    continue
                nxt[d] = 0
            fab.link(name(c), name(tuple(nxt)), 2 * d + 1, 2 * d + 2)
    sids = [name(c) for c in coords]
    # hosts take ports after the 2*nd grid ports
    names = iter(host_names(len(sids) * hosts, storage, admin))
    for sid in sids:
        for k in range(hosts):
            hn = next(names)
            fab.add_hca(hn, f"{hn} HCA-1")
            fab.link(hn, sid, 1, 2 * nd + k + 1)
    return fab


def _all_coords(dims):
    coords = [()]
    for size in dims:
        coords = [c + (i,) for c in coords for i in range(size)]
    return coords


def random_regular(switches=16, degree=4, hosts=2, radix=None, seed=1,
                   storage=0, admin=0):
    """Random connected `degree`-regular simple graph of switches, seeded,
    `hosts` hosts per switch (switch ports 1..degree are fabric links)."""
    if degree >= switches or (switches * degree) % 2 or degree < 1:
        raise TopoError("need degree < switches and switches*degree even")
    radix = radix or degree + hosts
    _check_radix("switch", degree + hosts, radix)
    rng = random.Random(seed)
    edges = _random_regular_edges(switches, degree, rng)
    fab = Fabric(f"random switches={switches} degree={degree} "
                 f"hosts={hosts} seed={seed}")
    sids = [f"R{i + 1:03d}" for i in range(switches)]
    for i, sid in enumerate(sids):
        fab.add_switch(sid, f"rsw{i + 1:03d}", radix)
    for a, b in edges:
        fab.link(sids[a], sids[b])
    attach_hosts(fab, sids, hosts, storage, admin)
    return fab


def dragonfly(routers=4, globals_per_router=1, hosts=2, groups=None,
              radix=None, storage=0, admin=0):
    """Dragonfly (Kim et al. 2008): groups of `routers` switches cabled
    all to all inside the group, each with `globals_per_router` links to
    other groups and `hosts` hosts.  Every pair of groups has one global
    link: by default routers * globals_per_router + 1 groups (the largest
    such fabric); fewer leave some global ports unused.  Group i's link to
    group j is its global slot (j - i - 1) mod groups, on router
    slot // globals_per_router.  Switches G01R01..; ports: the routers of
    the group in order, then the global links, then the hosts."""
    a, h = routers, globals_per_router
    g = groups or a * h + 1
    if a < 1 or h < 1 or g < 2 or g > a * h + 1:
        raise TopoError("need routers >= 1, globals >= 1 and "
                        "2 <= groups <= routers * globals + 1")
    radix = radix or (a - 1) + h + hosts
    _check_radix("dragonfly router", (a - 1) + h + hosts, radix)
    fab = Fabric(f"dragonfly routers={a} globals={h} groups={g} "
                 f"hosts={hosts} radix={radix}")

    def name(grp, r):
        return f"G{grp + 1:02d}R{r + 1:02d}"

    sids = [name(grp, r) for grp in range(g) for r in range(a)]
    for sid in sids:
        fab.add_switch(sid, f"df {sid}", radix)
    for grp in range(g):
        for r in range(a):
            for q in range(r + 1, a):
                # port of a peer router: its index, skipping oneself
                fab.link(name(grp, r), name(grp, q), q, r + 1)
    for i in range(g):
        for j in range(i + 1, g):
            si, sj = (j - i - 1) % g, (i - j - 1) % g
            fab.link(name(i, si // h), name(j, sj // h),
                     a + si % h, a + sj % h)
    attach_hosts(fab, sids, hosts, storage, admin)
    return fab


def _random_regular_edges(n, d, rng, tries=1000):
    """Pairing model with restarts until simple and connected."""
    for _ in range(tries):
        edges = _try_pairing(n, d, rng)
        if edges and _connected(n, edges):
            return sorted(edges)
    raise TopoError("could not build a connected regular graph")


def _try_pairing(n, d, rng):
    stubs = [v for v in range(n) for _ in range(d)]
    edges = set()
    while stubs:
        cands = [(i, j) for i in range(len(stubs))
                 for j in range(i + 1, len(stubs))
                 if stubs[i] != stubs[j] and
                 (min(stubs[i], stubs[j]), max(stubs[i], stubs[j]))
                 not in edges] if len(stubs) < 64 else None
        if cands is not None:
            if not cands:
                return None
            i, j = rng.choice(cands)
        else:
            i, j = rng.sample(range(len(stubs)), 2)
            a, b = stubs[i], stubs[j]
            if a == b or (min(a, b), max(a, b)) in edges:
                continue
        a, b = stubs[i], stubs[j]
        edges.add((min(a, b), max(a, b)))
        for k in sorted((i, j), reverse=True):
            stubs.pop(k)
    return edges


def _connected(n, edges):
    adj = {v: [] for v in range(n)}
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    seen, todo = {0}, [0]
    while todo:
        for w in adj[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return len(seen) == n


# -- net file reading (for the harness and tests) -----------------------------
def read_netfile(path):
    """Parse the node headers and port lines of a net file (the subset
    topogen and ibnetdiscover-style files use).  Returns an ordered dict
    id -> Node (guid 0 when the file gives none)."""
    nodes = {}
    cur = None
    guid = {"Switch": 0, "Hca": 0}
    with open(path, encoding="ascii", errors="replace") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith(("switchguid", "caguid", "hcaguids")):
                kind = "Switch" if line.startswith("s") else "Hca"
                val = re.match(r"\s*(0x[0-9a-fA-F]+|\d+)",
                               line.split("=", 1)[1])
                guid[kind] = int(val.group(1), 0) if val else 0
            elif line.startswith(("Switch", "Hca", "Ca")):
                cur = _parse_header(line, guid)
                nodes[cur.id] = cur
            elif line.startswith("[") and cur is not None:
                _parse_port(line, cur)
            elif not line.startswith("#"):
                cur = None
    return nodes


def _parse_header(line, guid):
    kind = "Switch" if line.startswith("Switch") else "Hca"
    nports = int(line.split()[1])
    nid = line.split('"')[1]
    desc = nid
    if "#" in line:
        rest = line.split("#", 1)[1].strip()
        desc = rest.split('"')[1] if rest.startswith('"') else rest
    return Node(kind, nid, desc, nports, guid[kind])


def _parse_port(line, node):
    port = int(line[1:line.index("]")])
    parts = line.split('"')
    if len(parts) >= 3:
        rest = parts[2]
        pp = int(rest[1:rest.index("]")]) if rest.startswith("[") else 1
        node.ports[port] = (parts[1], pp)


def netfile_sizes(path):
    """(nodes, switches, ports) of a net file, as ibsim counts them."""
    fab = Fabric()
    fab.nodes = read_netfile(path)
    return fab.sizes()


def sizes(fabric_or_path):
    """(nodes, switches, ports) of a Fabric or of a net file."""
    if isinstance(fabric_or_path, Fabric):
        return fabric_or_path.sizes()
    return netfile_sizes(fabric_or_path)


def ibsim_size_args(sizes):
    """ibsim -N/-S/-P arguments needed for (nodes, switches, ports)."""
    n, s, p = sizes
    args = []
    if n > IBSIM_DEFAULT_NODES:
        args += ["-N", str(n)]
    if s > IBSIM_DEFAULT_SWITCHES:
        args += ["-S", str(s)]
    if p > IBSIM_DEFAULT_PORTS:
        args += ["-P", str(p)]
    return args


# -- CLI ----------------------------------------------------------------------
EPILOG = """\
shapes:
  fattree2  leaves L001.. each with --hosts hosts (ports 1..H) and --trunk
            links to every spine S001..; oversubscription H : spines*trunk.
  fattree3  --pods pods of --leaves leaves and --aggs aggregation switches
            (full bipartite per pod); agg j of every pod links to the j-th
            group of --cores/--aggs core switches.
  dcs       --chassis director chassis dcs1..; inside one, --leaves leaf
            chips ("dcsN Leaf L Chip A") and --spines spine modules of
            --spine-chips chips ("dcsN Spine S Chip A/B"), each leaf chip
            --trunk links to each spine chip, --hosts hosts per leaf chip;
            one SystemImageGUID per chassis.  --edges E adds top-of-rack
            switches E001.. with --edge-hosts hosts and --edge-uplinks
            links to every chassis (round-robin over leaf chips).  Several
            chassis without edges: leaf chip k of chassis i links to leaf
            chip k of every other chassis (--xlinks links each).
  mesh2d/mesh3d/torus2d/torus3d  --dims XxY[xZ] switches, --hosts each.
  dragonfly  groups of --routers switches G01R01.. cabled all to all,
            each with --globals links to other groups (one link between
            every two groups; --groups, default routers x globals + 1).
  random    --switches R001.. forming a random connected --degree-regular
            graph (--seed), --hosts each.
hosts: cn0001.. ("cn0001 HCA-1"); --admin N makes the first N host slots
admin1..; --storage N makes the last N stor01..
degrading: --remove-link "L001:S002" (all links of the pair),
  "L001:S002:2" (the 2nd), "L001[13]" (one port); --remove-host cn0003.
"""


def _add_common(p):
    p.add_argument("-o", "--output", default="-", help="file (- = stdout)")
    p.add_argument("--radix", type=int, help="switch ports")
    p.add_argument("--speed", help="link width+speed of every link, e.g. "
                   "4xEDR, 4xHDR, 4xQDR (default: ibsim's 4xSDR)")
    p.add_argument("--storage", type=int, default=0)
    p.add_argument("--admin", type=int, default=0)
    p.add_argument("--remove-link", action="append", default=[],
                   metavar="SPEC")
    p.add_argument("--remove-host", action="append", default=[],
                   metavar="ID")


def _with_epilog(add_parser):
    """Wrap add_parser so every subcommand's -h shows the shapes."""
    def add(name, **kw):
        return add_parser(name, epilog=EPILOG, formatter_class=argparse.
                          RawDescriptionHelpFormatter, **kw)
    return add


def build_parser():
    """The argparse parser of the CLI."""
    ap = argparse.ArgumentParser(
        description="Generate ibsim net files.", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="kind", required=True)
    sub.add_parser = _with_epilog(sub.add_parser)
    p = sub.add_parser("fattree2", help="2-level fat tree")
    p.add_argument("--leaves", type=int, default=4)
    p.add_argument("--spines", type=int, default=2)
    p.add_argument("--hosts", type=int, default=4, help="hosts per leaf")
    p.add_argument("--trunk", type=int, default=1,
                   help="links per leaf-spine pair")
    _add_common(p)
    p = sub.add_parser("fattree3", help="3-level fat tree")
    for opt, dflt in (("pods", 4), ("leaves", 4), ("aggs", 4),
                      ("cores", 4), ("hosts", 4)):
        p.add_argument(f"--{opt}", type=int, default=dflt)
    _add_common(p)
    p = sub.add_parser("dcs", help="director-class chassis fabric")
    for opt, dflt in (("chassis", 1), ("leaves", 6), ("spines", 3),
                      ("spine-chips", 1), ("hosts", 4), ("trunk", 1),
                      ("edges", 0), ("edge-hosts", 8), ("edge-uplinks", 2),
                      ("xlinks", 1)):
        p.add_argument(f"--{opt}", type=int, default=dflt)
    _add_common(p)
    for kind in ("mesh2d", "mesh3d", "torus2d", "torus3d"):
        p = sub.add_parser(kind, help=f"{kind[:-2]} of switches")
        p.add_argument("--dims", default="4x4" if kind.endswith("2d")
                       else "3x3x3", help="sizes, e.g. 4x4 or 3x3x3")
        p.add_argument("--hosts", type=int, default=2)
        _add_common(p)
    p = sub.add_parser("dragonfly", help="dragonfly of router groups")
    p.add_argument("--routers", type=int, default=4,
                   help="switches per group")
    p.add_argument("--globals", type=int, default=1,
                   help="global links per switch")
    p.add_argument("--groups", type=int, default=0,
                   help="groups (default routers x globals + 1)")
    p.add_argument("--hosts", type=int, default=2)
    _add_common(p)
    p = sub.add_parser("random", help="random regular switch graph")
    p.add_argument("--switches", type=int, default=16)
    p.add_argument("--degree", type=int, default=4)
    p.add_argument("--hosts", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    _add_common(p)
    return ap


def generate(args):
    """Build the Fabric an argparse namespace describes."""
    common = {"storage": args.storage, "admin": args.admin}
    if args.radix:
        common["radix"] = args.radix
    k = args.kind
    if k == "fattree2":
        fab = fattree2(args.leaves, args.spines, args.hosts, args.trunk,
                       **common)
    elif k == "fattree3":
        fab = fattree3(args.pods, args.leaves, args.aggs, args.cores,
                       args.hosts, **common)
    elif k == "dcs":
        fab = dcs(args.chassis, args.leaves, args.spines, args.spine_chips,
                  args.hosts, args.trunk, edges=args.edges,
                  edge_hosts=args.edge_hosts,
                  edge_uplinks=args.edge_uplinks, xlinks=args.xlinks,
                  **common)
    elif k == "dragonfly":
        fab = dragonfly(args.routers, args.globals, args.hosts,
                        args.groups or None, **common)
    elif k == "random":
        fab = random_regular(args.switches, args.degree, args.hosts,
                             seed=args.seed, **common)
    else:
        dims = tuple(int(x) for x in args.dims.lower().split("x"))
        if len(dims) != int(k[-2]):
            raise TopoError(f"{k} needs {k[-2]} dimensions")
        fab = grid(dims, k.startswith("torus"), args.hosts, **common)
    if args.speed:
        if not re.fullmatch(r"(1|2|4|8|12)x(SDR|DDR|QDR|FDR|EDR|HDR|FDR10)",
                            args.speed):
            raise TopoError(f"bad --speed {args.speed!r} (e.g. 4xEDR)")
        fab.speed = args.speed
    for spec in args.remove_link:
        fab.remove_link_spec(spec)
    for nid in args.remove_host:
        fab.remove_host_spec(nid)
    return fab


def main(argv=None):
    """CLI entry point."""
    args = build_parser().parse_args(argv)
    try:
        fab = generate(args)
    except TopoError as e:
        print(f"topogen: {e}", file=sys.stderr)
        return 2
    fab.write(sys.stdout if args.output == "-" else args.output)
    if args.output != "-":
        n, s, p = fab.sizes()
        print(f"topogen: {args.output}: {n} nodes, {s} switches, "
              f"{n - s} hosts, {fab.num_links()} links", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
