#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""What an administrator sees when something around the plugin is wrong,
with the real OpenSM in ibsim:

  * a plugin built for another OpenSM version: OpenSM refuses it with a
    clear message naming the version, and the fabric still comes up (with
    OpenSM's fallback engine);
  * bad event_plugin_options: each bad setting is named with ERR VF0102,
    the plugin keeps its defaults and routes;
  * the plugin listed twice: the second copy is refused with a clear
    message, and the first carries on, logging and routing;
  * our engine's tables with a credit loop (shortestpath on a torus):
    refused (loop_fallback, on by default), named with the cycle, and
    OpenSM routes with the next engine listed.
"""

import os
import re

import topogen
import vfsim
import vftest


def run(tap, net, label, conf, check):
    """Start a fabric with `conf`, wait for SUBNET UP, hand the log to
    `check(log)`."""
    with vfsim.Sim(net, label, tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=conf, plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        check(sim.log_text())
        tap.ok(sim.stop_opensm() == 0, f"{label}: OpenSM exits cleanly")


def version_mismatch(tap, log):
    tap.ok("OpenSM version mismatch - plugin was built against OpenSM "
           "0.0.0-mismatch" in log,
           "mismatch: OpenSM names the version the plugin was built for")
    tap.ok("cannot find or setup routing engine 'shortestpath'" in log,
           "mismatch: OpenSM says our engine is unavailable")
    tap.ok("minhop tables configured on all switches" in log,
           "mismatch: the fabric still comes up on OpenSM's minhop")
    tap.ok("vfabric: opensm-vfabric" not in log,
           "mismatch: the plugin's create() never ran")


def bad_options(tap, log):
    errs = [line for line in log.splitlines() if "ERR VF0102" in line]
    tap.ok(len(errs) == 3, "bad options: one ERR VF0102 per bad setting",
           "\n".join(errs))
    tap.ok(any("'colour'" in e for e in errs),
           "bad options: the unknown key is named")
    tap.ok(any("'maybe'" in e and "check_routes" in e for e in errs),
           "bad options: the bad value is named with its key")
    tap.ok(any("'justaword'" in e for e in errs),
           "bad options: a token without '=' is named")
    tap.ok("shortestpath tables configured on all switches" in log,
           "bad options: the plugin still routes")
    tap.ok(re.search(r"vfabric: shortestpath check: unreachable 0/", log),
           "bad options: check_routes kept its default (on)")


def loaded_twice(tap, log):
    tap.ok(log.count("vfabric: opensm-vfabric") == 1,
           "twice: only the first copy starts")
    tap.ok("ERR VF0112: the plugin is listed more than once" in log,
           "twice: the second copy is refused with a clear message")
    tap.ok("shortestpath tables configured on all switches" in log,
           "twice: the first copy routes the fabric")
    tap.ok(log.count("vfabric: shortestpath routed") == 1,
           "twice: exactly one engine instance ran, and logs")
    tap.ok("vfabric: unicast routing done by engine 'shortestpath'" in log,
           "twice: the first copy still receives events")


def loop_refused(tap, log):
    tap.ok("ERR VF0108: shortestpath: credit loop: " in log,
           "loop: the credit loop is named with its cycle")
    tap.ok("ERR VF0113: shortestpath: tables with a credit loop refused"
           in log, "loop: the tables are refused")
    tap.ok("shortestpath tables configured on all switches" not in log,
           "loop: OpenSM did not program them")
    tap.ok("minhop tables configured on all switches" in log,
           "loop: OpenSM routed with the next engine listed (minhop)")


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    net = os.path.join(vftest.NET_EXAMPLES, "net.2sw2path4hca")
    if not os.path.exists(net):
        tap.skip_all(f"{net} missing (package ibsim-utils)")
    if not os.path.exists(os.path.join(vftest.PLUGIN_DIR,
                                       "libvfabric-badversion.so")):
        tap.skip_all("libvfabric-badversion.so not built (make check "
                     "builds it)")
    conf = vftest.plugin_conf()
    conf[0] = "event_plugin_name vfabric-badversion"
    run(tap, net, "mismatch", conf, lambda log: version_mismatch(tap, log))
    run(tap, net, "badopts", vftest.plugin_conf(
        options="colour=blue check_routes=maybe justaword log_level=info"),
        lambda log: bad_options(tap, log))
    conf = vftest.plugin_conf()
    conf[0] = "event_plugin_name vfabric vfabric"
    run(tap, net, "twice", conf, lambda log: loaded_twice(tap, log))
    torus = os.path.join(vfsim.tempfile.mkdtemp(prefix="vf-loop-"),
                         "torus.net")
    topogen.grid((4, 4), torus=True, hosts=1).write(torus)
    run(tap, torus, "loop", vftest.plugin_conf(
        engine="shortestpath,minhop"), lambda log: loop_refused(tap, log))
    vfsim.shutil.rmtree(os.path.dirname(torus), ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
