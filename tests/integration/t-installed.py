#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""`make install` puts libvfabric.so where OpenSM's plain
dlopen("libvfabric.so") finds it: stock OpenSM, no LD_LIBRARY_PATH,
loads the installed plugin and routes with shortestpath.

Runs when VF_TEST_INSTALLED=1 (CI installs first: scripts/test.sh with
VF_INSTALL_FIRST=1); otherwise it skips, since a developer's installed copy
may be older than the tree.
"""

import os
import subprocess

import vfsim
import vftest


def installed_path():
    """Where ld.so's cache says libvfabric.so is, or None."""
    out = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        if line.strip().startswith("libvfabric.so "):
            return line.split("=>")[-1].strip()
    return None


def main():
    tap = vfsim.Tap()
    if os.environ.get("VF_TEST_INSTALLED") != "1":
        tap.skip_all("set VF_TEST_INSTALLED=1 after 'make install' to test "
                     "the installed plugin")
    vfsim.require_tools(tap)
    path = installed_path()
    tap.ok(path is not None, "ld.so's cache knows libvfabric.so", path)
    net = os.path.join(vftest.NET_EXAMPLES, "net.2sw2path4hca")
    if not os.path.exists(net):
        tap.skip_all(f"{net} missing (package ibsim-utils)")
    env = {"LD_LIBRARY_PATH": ""}
    with vfsim.Sim(net, "installed", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=vftest.plugin_conf(), env=env)
        sim.wait_subnet_up()
        log = sim.log_text()
        tap.ok("vfabric: opensm-vfabric" in log,
               "OpenSM loaded the installed plugin with no LD_LIBRARY_PATH",
               vfsim.tail(sim.osms[-1].log))
        tap.ok("shortestpath tables configured on all switches" in log,
               "and routed the fabric with shortestpath")
        sim.stop_opensm()
    tap.done()


if __name__ == "__main__":
    main()
