#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""A spine link goes down while OpenSM runs with the plugin: OpenSM gets
the trap, our engine reroutes only what crossed the link (route_stability),
nothing routes over the dead link, and every pair stays reachable.  Then
the link comes back and the fabric is balanced over it again, exactly as
before.  Then a host leaves and returns: only its own entries change.
Both engines, shortestpath and fattree."""

import os

import topogen
import vfsim
import vftest

LEAVES, SPINES, HOSTS = 6, 3, 4


def uses_port(tables, guid, port):
    """LIDs that switch `guid` routes out of `port`."""
    return [lid for lid, p in tables.get(guid, {}).items() if p == port]


def lid_of(topo_path, node_guid):
    """A CA's LID (LMC 0) from ibnetdiscover output."""
    with open(topo_path) as fh:
        nodes = vfsim.parse_ibnetdiscover(fh.read())
    return nodes.get(node_guid, {}).get("lid")


def host_churn(tap, sim, fab):
    """A host leaves and comes back (keeping its LID, from OpenSM's
    guid2lid cache): with route_stability only its own entries change,
    each time."""
    host = fab.nodes["cn0005"]
    topo = sim.discover(os.path.join(sim.workdir, "churn.net"))
    base = vftest.parse_lfts(sim.dump_lfts())
    mine = {lid_of(topo, host.guid)}
    tap.ok(None not in mine, "the host's LID is known", str(mine))
    sim.console('Unlink "cn0005"[1]')
    sim.wait_resweep()
    gone = vftest.parse_lfts(sim.dump_lfts())
    diff = vfsim.changed_entries(base, gone)
    tap.ok(diff and all(lid in mine for _, lid in diff),
           f"host leaves: only its own entries change ({len(diff)})",
           str(sorted(diff)[:8]))
    sim.console('ReLink "cn0005"[1]')
    sim.wait_resweep()
    back = vftest.parse_lfts(sim.dump_lfts())
    diff = vfsim.changed_entries(gone, back)
    tap.ok(diff and all(lid in mine for _, lid in diff),
           f"host returns: only its own entries change ({len(diff)})",
           str(sorted(diff)[:8]))


def scenario(tap, net, fab, engine):
    """The failure, the repair and the host churn, routed by `engine`."""
    leaf = fab.nodes["L001"]
    # leaf uplinks follow the hosts: port HOSTS+1 goes to S001
    port = HOSTS + 1
    with vfsim.Sim(net, f"linkdown-{engine}", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=vftest.plugin_conf(engine=engine),
                         plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        sim.discover(os.path.join(sim.workdir, "before.net"))
        before = vftest.parse_lfts(sim.dump_lfts(
            os.path.join(sim.workdir, "before.dump")))
        tap.ok(len(uses_port(before, leaf.guid, port)) > 0,
               f"before: L001 routes LIDs over port {port} (to S001)")

        sim.console(f'Unlink "L001"[{port}]')
        since = sim.cmd_log_offset
        secs = sim.wait_resweep()
        tap.diag(f"rerouted {secs:.2f} s after the unlink")
        log = sim.log_text(since)
        tap.ok(f"vfabric: {engine} routed" in log,
               f"{engine}: after unlink: our engine ran again")
        # route_stability: the switches keep every route the failure did
        # not touch; offline, the same needs the routing before it
        rep = vftest.verify_fabric(
            tap, sim, f"{engine}-unlinked", engine=engine, offline=[
                "--previous-topo", os.path.join(sim.workdir, "before.net"),
                "--previous", os.path.join(sim.workdir, "before.dump")])
        after = vftest.parse_lfts(os.path.join(
            sim.workdir, f"{engine}-unlinked.dump_fts"))
        tap.ok(not uses_port(after, leaf.guid, port),
               f"after unlink: L001 routes nothing over dead port {port}",
               str(uses_port(after, leaf.guid, port)[:10]))
        tap.ok(rep.get("links") == 2 * (LEAVES * SPINES - 1),
               "after unlink: the checker sees one cable fewer",
               f"links {rep.get('links')}")

        sim.console(f'ReLink "L001"[{port}]')
        sim.wait_resweep()
        vftest.verify_fabric(tap, sim, f"{engine}-relinked", engine=engine)
        again = vftest.parse_lfts(os.path.join(
            sim.workdir, f"{engine}-relinked.dump_fts"))
        tap.ok(len(uses_port(again, leaf.guid, port)) > 0,
               f"after relink: L001 uses port {port} again")
        tap.ok(again == before,
               "after relink: the tables are the same as before the fault "
               "(routing depends only on the fabric)",
               "\n".join(vftest.diff_lfts(before, again)))
        host_churn(tap, sim, fab)
        sim.stop_opensm()


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    gen_dir = vfsim.tempfile.mkdtemp(prefix="vf-linkdown-")
    net = os.path.join(gen_dir, "ft.net")
    fab = topogen.fattree2(leaves=LEAVES, spines=SPINES, hosts=HOSTS)
    fab.write(net)
    for engine in ("shortestpath", "fattree"):
        scenario(tap, net, fab, engine)

    vfsim.shutil.rmtree(gen_dir, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
