#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Our engines supply OpenSM's min-hop matrices (plugin/hops.c): they must
be exactly what OpenSM's own builder makes.

On each fabric, stock OpenSM runs twice on the same ibsim: first with
routing_engine minhop (OpenSM's own matrices, the reference), then with one
of our engines; opensm-lid-matrix.dump (log_flags 0x43) of the two must be
identical, line for line, and the plugin must say it built them.  Fabrics:
a 2-level tree, the same with LMC 2, a 3-level tree, a director fabric
with edge switches, a torus, a tree with cables and a host missing.  Then:

- fallback: on the torus with loop_fallback on (and vl_layers off),
  our tables are refused (credit loop) and minhop routes over the matrices we filled: still the
  reference;
- a failure half way (VFABRIC_TEST_HOPS_FAIL, in the tests' copy of the
  plugin, libvfabric-testhooks.so: the plugin users load has no fault
  injection, tests/lint/t-plugin-contents.py): ERR VF0115, OpenSM builds them itself from
  cleared tables, our engine still routes: the reference;
- multicast: four hosts join a group; OpenSM's multicast tree
  (opensm.mcfdbs) with our matrices equals the one with OpenSM's
  (hop_matrices=opensm, same engine, same LFTs), and reaches every member
  once.
"""

import os
import re

import topogen
import vfsim
import vftest

OPTS = "log_level=info"
BUILT = re.compile(r"vfabric: (\w+): min-hop matrices of (\d+) switches")




def cases():
    """(label, Fabric, our engine, extra conf lines, plugin options)."""
    return [
        ("ft2", topogen.fattree2(leaves=8, spines=4, hosts=8), "fattree",
         [], OPTS),
        ("ft2-lmc2", topogen.fattree2(leaves=4, spines=4, hosts=4),
         "shortestpath", ["lmc 2", "lmc_esp0 TRUE"], OPTS),
        ("ft3", topogen.fattree3(pods=4, leaves=4, aggs=4, cores=8, hosts=8),
         "fattree", [], OPTS),
        ("dcs-edges", topogen.dcs(chassis=2, leaves=4, spines=2, hosts=0,
                                  edges=4, edge_hosts=6, edge_uplinks=2),
         "fattree", [], OPTS),
        ("torus", topogen.grid((3, 3), torus=True, hosts=2), "shortestpath",
         [], OPTS + " loop_fallback=off"),
        ("degraded", vftest.degraded_ft2(), "dgshortestpath", ["lmc 2"], OPTS),
    ]


def read_matrix(path):
    """opensm-lid-matrix.dump -> {switch guid: {lid: line}}: the hop
    counts by port and the port GUID comment, as OpenSM wrote them."""
    out, cur = {}, None
    with open(path) as fh:
        for line in fh:
            m = re.match(r"Switch: guid (0x[0-9a-f]+)", line)
            if m:
                cur = out.setdefault(int(m.group(1), 16), {})
                continue
            m = re.match(r"(0x[0-9a-f]{4}):(.*)$", line.rstrip("\n"))
            if m and cur is not None:
                cur[int(m.group(1), 16)] = m.group(2)
    return out


def diff_matrix(a, b, limit=5):
    out = []
    for g in sorted(set(a) | set(b)):
        for lid in sorted(set(a.get(g, {})) | set(b.get(g, {}))):
            x, y = a.get(g, {}).get(lid), b.get(g, {}).get(lid)
            if x != y:
                out.append(f"switch 0x{g:016x} lid {lid}: {y!r}, "
                           f"OpenSM's {x!r}")
    return out[:limit] + ([f"... {len(out) - limit} more"]
                          if len(out) > limit else [])


def run(sim, conf, env=None, plugin_dir=vftest.PLUGIN_DIR):
    """One OpenSM to SUBNET UP; (its lid matrix, its log), then stopped."""
    osm = sim.start_opensm(conf_lines=conf, plugin_dir=plugin_dir, env=env)
    sim.wait_subnet_up()
    dump = os.path.join(osm.dump_dir, "opensm-lid-matrix.dump")
    matrix = read_matrix(dump) if os.path.exists(dump) else None
    log = sim.log_text()
    sim.stop_opensm()
    return matrix, log


def reference(sim, extra):
    """OpenSM's own matrices: minhop (plugin loaded, as in every run)."""
    return run(sim, vftest.plugin_conf(engine="minhop", options=OPTS,
                                       extra=extra))


def same_as_reference(tap, label, ref, ours, what):
    nsw = len(ref or {})
    tap.ok(ref and ours is not None and ours == ref,
           f"{label}: {what}: the min-hop matrices of all {nsw} switches "
           "equal OpenSM's own", "\n".join(diff_matrix(ref or {},
                                                      ours or {})))


def fabrics(tap):
    for label, fab, engine, extra, options in cases():
        with vfsim.Sim(fab, label, tap=tap) as sim:
            sim.start_ibsim()
            ref, _ = reference(sim, extra)
            rows = sum(len(r) for r in (ref or {}).values())
            tap.ok(ref and rows > 0, f"{label}: minhop wrote "
                   f"opensm-lid-matrix.dump ({rows} rows)")
            ours, log = run(sim, vftest.plugin_conf(
                engine=engine, options=options, extra=extra))
            m = BUILT.search(log)
            # the torus: min-hop's credit loop is reported (VF0107/8)
            errors = [e for e in re.findall(r"ERR VF\d+", log)
                      if label != "torus" or
                      e not in ("ERR VF0107", "ERR VF0108")]
            tap.ok(m and m.group(1) == engine and
                   int(m.group(2)) == len(ref or {}) and
                   f"{engine} tables configured on all switches" in log
                   and not errors,
                   f"{label}: {engine} built the matrices and routed",
                   vfsim.tail(sim.osms[-1].log))
            same_as_reference(tap, label, ref, ours, engine)
            if label == "torus":
                fallback(tap, sim, ref)
            if label == "ft3":
                half_way(tap, sim, ref, engine)


def fallback(tap, sim, ref):
    """Our tables refused (credit loop): minhop routes on our matrices."""
    ours, log = run(sim, vftest.plugin_conf(
        engine="shortestpath", options=OPTS + " vl_layers=off"))
    tap.ok(BUILT.search(log) and "ERR VF0113" in log and
           "unicast routing done by engine 'minhop'" in log,
           "torus, loop_fallback on: our matrices built, our tables "
           "refused, minhop routed", vfsim.tail(sim.osms[-1].log))
    same_as_reference(tap, "torus", ref, ours, "fallback to minhop")


def half_way(tap, sim, ref, engine):
    """A failure after a few destinations: OpenSM builds them itself."""
    ours, log = run(sim, vftest.plugin_conf(engine=engine, options=OPTS,
                                            plugin="vfabric-testhooks"),
                    env={"VFABRIC_TEST_HOPS_FAIL": "5"},
                    plugin_dir=vftest.TEST_HOOKS_DIR)
    tap.ok("ERR VF0115" in log and not BUILT.search(log) and
           f"{engine} tables configured on all switches" in log,
           "ft3, a failure half way: ERR VF0115, OpenSM builds the "
           "matrices, our engine still routes",
           vfsim.tail(sim.osms[-1].log))
    same_as_reference(tap, "ft3", ref, ours, "failure half way")


def read_mfts(path):
    """opensm.mcfdbs -> {switch guid: {mlid: {ports}}}."""
    out, cur = {}, None
    with open(path) as fh:
        for line in fh:
            m = re.match(r"Switch (0x[0-9a-f]+)", line)
            if m:
                cur = out.setdefault(int(m.group(1), 16), {})
                continue
            m = re.match(r"(0x[0-9A-F]{4}) :(.*)$", line)
            if m and cur is not None:
                cur[int(m.group(1), 16)] = {
                    int(p, 16) for p in m.group(2).split()}
    return out


def flood(nodes, mfts, mlid, src):
    """Follow the MFTs from CA src: ({CAs reached}, {switch: arrivals})."""
    reached, arrivals = set(), {}
    peer, in_port = nodes[src]["links"][1]
    todo = [(peer, in_port)]
    while todo:
        sw, in_port = todo.pop()
        arrivals[sw] = arrivals.get(sw, 0) + 1
        if arrivals[sw] > 1:
            continue
        for port in mfts.get(sw, {}).get(mlid, ()):
            if port == in_port or port not in nodes[sw]["links"]:
                continue
            nxt, nport = nodes[sw]["links"][port]
            if nodes[nxt]["kind"] == "Switch":
                todo.append((nxt, nport))
            else:
                reached.add(nxt)
    return reached, arrivals


def mcast_run(sim, hosts, options):
    """Route with fattree, join `hosts` to a new group and wait until
    OpenSM's MFTs reach them all; (MFTs, the group's MLID, the topology,
    the log)."""
    osm = sim.start_opensm(conf_lines=vftest.plugin_conf(
        engine="fattree", options=options), plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    guid = {n["desc"].split()[0]: g for g, n in nodes.items()}
    mgid, mlid = "ff12:1234::42", None
    for i, host in enumerate(hosts):
        args = ["join", "--mgid", mgid, "--pkey", "0xffff"]
        if i == 0:
            args += ["--create", "--qkey", "0x1234", "--mtu", "2048",
                     "--rate", "3"]
        sim._check_clients(1)
        res = vfsim.subprocess.run(
            [vftest.VFABRIC_SA] + args, env=sim._env(host),
            capture_output=True, text=True, timeout=120, cwd=sim.workdir,
            stdin=vfsim.subprocess.DEVNULL)
        m = re.search(r"mlid=(0x[0-9a-f]+)", res.stdout)
        if res.returncode or not m:
            raise vfsim.SimError(f"join at {host}: {res.stdout}"
                                 f"{res.stderr}")
        mlid = int(m.group(1), 16)
    path = os.path.join(osm.dump_dir, "opensm.mcfdbs")
    others = {guid[h] for h in hosts[1:]}

    def tree():
        if not os.path.exists(path):
            return None
        mfts = read_mfts(path)
        return mfts if flood(nodes, mfts, mlid, guid[hosts[0]])[0] == \
            others else None

    vfsim.wait_until(tree, 60, "MFTs reaching every member")
    log = sim.log_text()
    sim.stop_opensm()
    # read again once OpenSM is gone: it rewrites the file in place
    return read_mfts(path), mlid, guid, nodes, log


def multicast(tap):
    hosts = ["cn0002", "cn0011", "cn0030", "cn0060"]
    fab = topogen.fattree2(leaves=8, spines=4, hosts=8)
    with vfsim.Sim(fab, "mcast", tap=tap) as sim:
        sim.start_ibsim()
        stock, mlid0, _, _, log0 = mcast_run(sim, hosts,
                                             OPTS + " hop_matrices=opensm")
        ours, mlid, guid, nodes, log = mcast_run(sim, hosts, OPTS)
        tap.ok(not BUILT.search(log0) and BUILT.search(log),
               "hop_matrices=opensm leaves them to OpenSM; by default the "
               "plugin builds them")
        tap.ok(mlid == mlid0 and ours == stock,
               "multicast: the same group gets the same MFTs on every "
               "switch with our matrices as with OpenSM's",
               f"mlid {mlid:#x} vs {mlid0:#x}")
        members = {guid[h] for h in hosts}
        ok = True
        for h in hosts:
            reached, arrivals = flood(nodes, ours, mlid, guid[h])
            ok &= reached == members - {guid[h]} and \
                max(arrivals.values()) == 1
        tap.ok(ok, f"multicast: from each of the {len(hosts)} members the "
               "tree reaches the other members and no one else, every "
               "switch once")


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    if not os.access(vftest.VFABRIC_SA, os.X_OK):
        tap.skip_all(f"vfabric-sa not built ({vftest.VFABRIC_SA})")
    fabrics(tap)
    multicast(tap)
    tap.done()


if __name__ == "__main__":
    main()
