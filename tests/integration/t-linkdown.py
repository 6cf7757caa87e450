#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""A spine link goes down while OpenSM runs with the plugin: OpenSM gets
the trap, our engine reroutes, nothing routes over the dead link, and
every pair stays reachable.  Then the link comes back and the fabric is
balanced over it again."""

import os

import topogen
import vfsim
import vftest

LEAVES, SPINES, HOSTS = 6, 3, 4


def uses_port(tables, guid, port):
    """LIDs that switch `guid` routes out of `port`."""
    return [lid for lid, p in tables.get(guid, {}).items() if p == port]


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    gen_dir = vfsim.tempfile.mkdtemp(prefix="vf-linkdown-")
    net = os.path.join(gen_dir, "ft.net")
    fab = topogen.fattree2(leaves=LEAVES, spines=SPINES, hosts=HOSTS)
    fab.write(net)
    leaf = fab.nodes["L001"]
    # leaf uplinks follow the hosts: port HOSTS+1 goes to S001
    port = HOSTS + 1
    with vfsim.Sim(net, "linkdown", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=vftest.plugin_conf(),
                         plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        before = vftest.parse_lfts(sim.dump_lfts())
        tap.ok(len(uses_port(before, leaf.guid, port)) > 0,
               f"before: L001 routes LIDs over port {port} (to S001)")

        sim.console(f'Unlink "L001"[{port}]')
        since = sim.cmd_log_offset
        secs = sim.wait_resweep()
        tap.diag(f"rerouted {secs:.2f} s after the unlink")
        log = sim.log_text(since)
        tap.ok("vfabric: shortestpath routed" in log,
               "after unlink: our engine ran again")
        rep = vftest.verify_fabric(tap, sim, "unlinked")
        after = vftest.parse_lfts(os.path.join(sim.workdir,
                                               "unlinked.dump_fts"))
        tap.ok(not uses_port(after, leaf.guid, port),
               f"after unlink: L001 routes nothing over dead port {port}",
               str(uses_port(after, leaf.guid, port)[:10]))
        tap.ok(rep.get("links") == 2 * (LEAVES * SPINES - 1),
               "after unlink: the checker sees one cable fewer",
               f"links {rep.get('links')}")

        sim.console(f'ReLink "L001"[{port}]')
        sim.wait_resweep()
        vftest.verify_fabric(tap, sim, "relinked")
        again = vftest.parse_lfts(os.path.join(sim.workdir,
                                               "relinked.dump_fts"))
        tap.ok(len(uses_port(again, leaf.guid, port)) > 0,
               f"after relink: L001 uses port {port} again")
        tap.ok(again == before,
               "after relink: the tables are the same as before the fault "
               "(routing depends only on the fabric)",
               "\n".join(vftest.diff_lfts(before, again)))
        sim.stop_opensm()
    vfsim.shutil.rmtree(gen_dir, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
