#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The plugin OpenSM loads holds only what it runs.

1. No fault injection: the VFABRIC_TEST_* hooks are compiled only into
   the tests' copy, libvfabric-testhooks.so (VF_TEST_HOOKS), which must
   hold them (so this check can fail).
2. No code only the CLI, the simulators and the tests run: the file
   formats (net files, LFT dumps, LIDs kept by GUID, load output), the AR
   simulation and the endpoint's side of the Ethernet Manager (its agent,
   the TAP device) stay in routing/librouting.la and vnic/libvnic.la; the
   plugin links routing/libroutingcore.la and vnic/libvniccore.la.  Each
   name is first found where it is used (the CLI, a simulator, a unit
   test), so a renamed function cannot make this pass by itself.
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "sim"))
import vfsim  # noqa: E402

BUILD = os.environ.get("top_builddir", os.getcwd())
LIBS = os.path.join(BUILD, "plugin", ".libs")
# one function of each file the plugin must not carry, and who has it
TOOL_ONLY = {
    "vf_netfile_read": "tools/vfabric",
    "vf_lftdump_write": "tools/vfabric",
    "vf_fabric_keep_lids": "tools/vfabric",
    "vf_partload_print": "tools/vfabric",
    "vf_arflow_adaptive": "tools/vfabric",
    "vf_arflow_lost_routes": "tools/vfabric",
    "vf_arsel_choose": "tools/vfabric",
    "vf_ar_dump": "tools/vfabric",
    "vf_nv_ar_info_get": "tests/unit/t-arhw",
    "vf_ema_agent_handle": "sim/vnic-endpoint",
    "vf_dp_ema_counters": "sim/vnic-endpoint",
    "vf_tap_close": "sim/vnic-endpoint",
}

def functions(path):
    """The functions an ELF file defines (its full symbol table)."""
    out = subprocess.run(["nm", "--defined-only", path],
                         capture_output=True, text=True)
    return {f.split()[2] for f in out.stdout.splitlines()
            if len(f.split()) == 3 and f.split()[1] in "Tt"}


def main():
    tap = vfsim.Tap()
    ok = tap.ok
    plugin = os.path.join(LIBS, "libvfabric.so")
    hooks = os.path.join(LIBS, "libvfabric-testhooks.so")
    if not os.path.exists(plugin) or not os.path.exists(hooks):
        tap.skip_all(f"{plugin} or {hooks} not built (make check builds "
                     "them)")
    with open(plugin, "rb") as fh:
        in_plugin = b"VFABRIC_TEST_" in fh.read()
    with open(hooks, "rb") as fh:
        in_hooks = b"VFABRIC_TEST_" in fh.read()
    ok(not in_plugin and in_hooks,
       "the fault injections (VFABRIC_TEST_*) are in libvfabric-testhooks.so"
       f" only (plugin: {in_plugin}, tests' copy: {in_hooks})")
    ours = functions(plugin)
    ok(len(ours) > 100, f"libvfabric.so has a symbol table ({len(ours)} "
       "functions)")
    have = {}
    for name, tool in TOOL_ONLY.items():
        if tool not in have:
            have[tool] = functions(os.path.join(BUILD, tool))
        ok(name in have[tool] and name not in ours,
           f"{name} is in {tool}, not in the plugin")
    tap.done()


if __name__ == "__main__":
    main()
