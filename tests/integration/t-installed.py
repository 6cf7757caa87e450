#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The installed plugin (`make install`, or the Debian package) is where
OpenSM's plain dlopen("libvfabric.so") finds it: stock OpenSM, no
LD_LIBRARY_PATH, loads it and routes with shortestpath.

Runs when VF_TEST_INSTALLED=1 (CI installs the packages first:
scripts/test.sh with VF_INSTALL_FIRST=1); otherwise it skips, since a
developer's installed copy may be older than the tree.  With
VF_TEST_PACKAGE=1 it also checks that the plugin and the tools are the
packages' files, and the README.Debian recipe: an opensm.conf made by
`opensm -c` with the plugin's lines appended is what OpenSM runs with.
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


def owner(path):
    """The Debian package that owns `path`, or None."""
    r = subprocess.run(["dpkg", "-S", os.path.realpath(path)],
                       capture_output=True, text=True)
    return r.stdout.split(":")[0] if r.returncode == 0 else None


RECIPE = ["event_plugin_name vfabric",
          "event_plugin_options log_level=info check_routes=on",
          "routing_engine shortestpath,minhop",
          "force_log_flush TRUE"]


def check_package(tap, path, workdir):
    """The packaged files, and README.Debian's opensm.conf recipe."""
    tap.ok(owner(path) == "opensm-vfabric",
           "the plugin OpenSM finds is package opensm-vfabric's", path)
    for tool in ("vfabric", "vfabric-sa", "vfabric-em"):
        exe = os.path.join("/usr/bin", tool)
        tap.ok(owner(exe) == "opensm-vfabric-tools",
               f"{exe} is package opensm-vfabric-tools's")
        r = subprocess.run([exe, "--version"], capture_output=True,
                           text=True)
        tap.ok(r.returncode == 0 and
               r.stdout.startswith(f"{tool} (opensm-vfabric) "),
               f"the packaged {tool} runs (--version)", r.stdout[-300:])
        page = f"/usr/share/man/man1/{tool}.1.gz"
        tap.ok(os.path.exists(page), f"{page} is installed")
        comp = f"/usr/share/bash-completion/completions/{tool}"
        tap.ok(owner(comp) == "opensm-vfabric-tools",
               f"{comp} is package opensm-vfabric-tools's")
    tap.ok(os.path.exists("/usr/share/man/man7/opensm-vfabric.7.gz"),
           "opensm-vfabric(7) is installed")
    for doc in ("README.Debian", "docs/vfabrics.md.gz", "copyright"):
        doc = os.path.join("/usr/share/doc/opensm-vfabric", doc)
        tap.ok(os.path.exists(doc), f"{doc} is installed")
    made = os.path.join(workdir, "recipe.conf")
    dumped = os.path.join(workdir, "recipe-effective.conf")
    opensm = vfsim.find_tool("opensm")
    r = subprocess.run([opensm, "-c", made], capture_output=True,
                       text=True, timeout=60)
    tap.ok(r.returncode == 0 and os.path.exists(made),
           "opensm -c writes a template opensm.conf", r.stdout[-300:])
    with open(made, "a") as f:
        f.write("\n".join(RECIPE) + "\n")
    r = subprocess.run([opensm, "-F", made, "-c", dumped],
                       capture_output=True, text=True, timeout=60)
    effective = open(dumped).read().splitlines() if os.path.exists(
        dumped) else []
    missing = [line for line in RECIPE if line not in effective]
    tap.ok(r.returncode == 0 and not missing,
           "README.Debian's appended lines are the settings OpenSM reads",
           missing)


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
        if os.environ.get("VF_TEST_PACKAGE") == "1":
            check_package(tap, path, sim.workdir)
    tap.done()


if __name__ == "__main__":
    main()
