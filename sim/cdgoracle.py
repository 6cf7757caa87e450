# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""A credit-loop oracle for the tests, written apart from the C check
(routing/vlcheck.c): it walks every route from every host to every host
LID hop by hop through the LFTs, gives each hop the VL its switch's
SL-to-VL table says for the route's SL, and looks for a cycle among the
turns (link, VL) -> (next link, VL).

Fabric description (what a test reads from a net file, ibnetdiscover or
the switches):
  lfts   {switch: {lid: out port}}
  links  {(switch, port): (node, port)} for every linked switch port
  hosts  {lid: (switch, port)}: the switch port each host LID hangs off
Switch and node names are whatever the caller uses, consistently.
"""


def routes(lfts, links, hosts):
    """Yield (src lid, dst lid, hops) for every host pair on different
    switches; hops is [(switch, in port, out port)], the first in port
    the source's switch port.  A route that ends nowhere (no entry, a
    dead port, a loop) yields hops None."""
    limit = len(lfts) + 1
    for dst, (dsw, _) in hosts.items():
        for src, (ssw, sport) in hosts.items():
            if ssw == dsw:
                continue
            hops, cur, inport = [], ssw, sport
            while cur != dsw and len(hops) <= limit:
                out = lfts.get(cur, {}).get(dst)
                peer = links.get((cur, out))
                if peer is None or peer[0] not in lfts:
                    hops = None
                    break
                hops.append((cur, inport, out))
                cur, inport = peer
            if hops is not None and cur != dsw:
                hops = None
            yield src, dst, hops


def turns(route_list, sl_of, vl_of):
    """The set of turns ((switch, out port, VL), (next switch, its out
    port, VL)) of the routes; sl_of(src, dst) the route's SL, or the set
    of SLs it may use (a pair in several vFabrics), vl_of(switch, in
    port, out port, sl) the VL on the link out.  Routes whose SL maps to
    VL15 somewhere are counted apart (dropped)."""
    edges, dropped = set(), 0
    for src, dst, hops in route_list:
        if not hops:
            continue
        sls = sl_of(src, dst)
        for sl in (sls if isinstance(sls, (set, frozenset, list, tuple))
                   else (sls,)):
            prev = None
            for sw, inport, out in hops:
                vl = vl_of(sw, inport, out, sl)
                if vl >= 15:
                    dropped += 1
                    break
                node = (sw, out, vl)
                if prev is not None:
                    edges.add((prev, node))
                prev = node
    return edges, dropped


def has_cycle(edges):
    """Is there a cycle in the graph of these (a, b) edges (Kahn)?"""
    succ, indeg = {}, {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        indeg[b] = indeg.get(b, 0) + 1
        indeg.setdefault(a, 0)
    ready = [n for n, d in indeg.items() if d == 0]
    done = 0
    while ready:
        n = ready.pop()
        done += 1
        for m in succ.get(n, ()):
            indeg[m] -= 1
            if indeg[m] == 0:
                ready.append(m)
    return done < len(indeg)
