# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""What the plugin integration tests share: where the build put the plugin
and the CLI, the opensm.conf lines that load the plugin, and the
end-to-end verification of what OpenSM really programmed.

Verification reads everything back from the simulated fabric through MADs
(ibnetdiscover for the topology and LIDs, dump_fts for every switch's LFT),
checks it with `vfabric check-routes`, and compares it entry by entry with
what `vfabric route` computes offline from the same discovered topology.
"""

import json
import os
import re
import subprocess

import topogen
import vfsim

TOP_SRCDIR = os.environ.get(
    "top_srcdir", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOP_BUILDDIR = os.environ.get("top_builddir", TOP_SRCDIR)
VFABRIC = os.environ.get("VFABRIC",
                         os.path.join(TOP_BUILDDIR, "tools", "vfabric"))
# absolute: the harness runs tools in the work dir
VFABRIC_SA = os.path.abspath(os.environ.get(
    "VFABRIC_SA", os.path.join(TOP_BUILDDIR, "tools", "vfabric-sa")))
PLUGIN_DIR = os.environ.get("VF_PLUGIN_DIR",
                            os.path.join(TOP_BUILDDIR, "plugin", ".libs"))
# The tests' copy of the plugin, with its fault injections compiled in
# (VF_TEST_HOOKS; never installed): event_plugin_name vfabric-testhooks.
TEST_HOOKS_DIR = os.path.join(TOP_BUILDDIR, "plugin", ".libs")
NET_EXAMPLES = "/usr/share/doc/ibsim-utils/net-examples"


def degraded_ft2():
    """The 2-level tree 8x8+4 with two leaf-spine cables and a host
    missing (t-fattree, t-hopmatrix)."""
    fab = topogen.fattree2(leaves=8, spines=4, hosts=8)
    fab.remove_link_spec("L002:S003")
    fab.remove_link_spec("L006:S001")
    fab.remove_host_spec("cn0020")
    return fab


def start(tap):
    """Skip the whole file unless ibsim, OpenSM and our build are here."""
    vfsim.require_tools(tap)
    if not os.path.exists(os.path.join(PLUGIN_DIR, "libvfabric.so")):
        tap.skip_all(f"plugin not built ({PLUGIN_DIR}/libvfabric.so)")
    if not os.access(VFABRIC, os.X_OK):
        tap.skip_all(f"vfabric CLI not built ({VFABRIC})")


def plugin_conf(engine="shortestpath", options="log_level=info", extra=(),
                plugin="vfabric"):
    """opensm.conf lines that load the plugin and select `engine`."""
    lines = [f"event_plugin_name {plugin}",
             f"routing_engine {engine}",
             "log_flags 0x43",
             "sweep_interval 0"]
    if options:
        lines.append(f"event_plugin_options {options}")
    return lines + list(extra)


def assigned_pkeys(sim, osm_dir="opensm1"):
    """{VF: P_Key} that the plugin assigned automatically, from its file
    in OpenSM's cache directory."""
    path = os.path.join(sim.workdir, osm_dir, "cache",
                        "opensm-vfabric.assign")
    out = {}
    with open(path) as fh:
        for line in fh:
            m = re.match(r"pkey (0x[0-9a-f]+) (.*)", line.strip())
            if m:
                out[m.group(2)] = int(m.group(1), 16)
    return out


def vfabric(*args, check=False):
    """Run the CLI; return CompletedProcess with text output."""
    res = subprocess.run([VFABRIC] + [str(a) for a in args],
                         capture_output=True, text=True, timeout=600)
    if check and res.returncode != 0:
        raise vfsim.SimError(f"vfabric {' '.join(map(str, args))}: rc "
                             f"{res.returncode}\n{res.stderr}")
    return res


def check_routes(topo, lfts):
    """vfabric check-routes --json; returns (exit code, report dict)."""
    res = vfabric("check-routes", "--topo", topo, "--lfts", lfts, "--json")
    try:
        report = json.loads(res.stdout)
    except ValueError:
        report = {"error": res.stderr + res.stdout}
    return res.returncode, report


parse_lfts = vfsim.read_lfts


def diff_lfts(a, b, limit=5):
    """Human-readable differences between two parsed LFT sets."""
    out = [f"switch 0x{g:016x} lid {lid}: {a.get(g, {}).get(lid)} vs "
           f"{b.get(g, {}).get(lid)}"
           for g, lid in sorted(vfsim.changed_entries(a, b))]
    return out[:limit] + ([f"... {len(out) - limit} more"]
                          if len(out) > limit else [])


def verify_fabric(tap, sim, label, tree=True, engine="shortestpath",
                  offline=()):
    """Read back and verify what OpenSM programmed.  Asserts: every CA
    pair and switch LID reachable, every hop count shortest, no credit
    loop (when `tree`), and the tables equal an offline run of `engine`
    (with the CLI flags `offline`) on the discovered topology.  Returns
    the check report."""
    topo = sim.discover(os.path.join(sim.workdir, f"{label}.ibnetdiscover"))
    lfts = sim.dump_lfts(os.path.join(sim.workdir, f"{label}.dump_fts"))
    rc, rep = check_routes(topo, lfts)
    tap.ok("error" not in rep, f"{label}: check-routes read the fabric "
           "and the tables read back from the switches", rep.get("error"))
    tap.ok(rep.get("ca_pairs", 0) > 0 and rep.get("ca_unreachable") == 0,
           f"{label}: all {rep.get('ca_pairs')} CA-to-CA LID pairs "
           "reachable", json.dumps(rep.get("examples")))
    tap.ok(rep.get("sw_unreachable") == 0,
           f"{label}: all {rep.get('sw_pairs')} pairs with a switch LID "
           "reachable", json.dumps(rep.get("examples")))
    tap.ok(rep.get("max_stretch") == 0 and rep.get("stretched") == 0,
           f"{label}: every route is a shortest path",
           f"max stretch {rep.get('max_stretch')}")
    if tree:
        tap.ok(rep.get("credit_loop") is False and rc == 0,
               f"{label}: no credit loop", rep.get("cycle"))
    osm_dump = os.path.join(sim.osms[-1].dump_dir, "opensm-lfts.dump")
    tap.ok(os.path.exists(osm_dump), f"{label}: OpenSM wrote "
           "opensm-lfts.dump (log_flags 0x43)")
    if os.path.exists(osm_dump):
        osm_rc, osm_rep = check_routes(topo, osm_dump)
        same = {k: v for k, v in osm_rep.items() if k != "examples"} == \
            {k: v for k, v in rep.items() if k != "examples"}
        tap.ok(osm_rc == rc and same and parse_lfts(osm_dump) ==
               parse_lfts(lfts), f"{label}: OpenSM's own opensm-lfts.dump "
               "checks the same and equals the tables read back",
               "\n".join(diff_lfts(parse_lfts(osm_dump), parse_lfts(lfts))))
    offline_dump = os.path.join(sim.workdir, f"{label}.offline.dump")
    res = vfabric("route", "--engine", engine, "--topo", topo, "-o",
                  offline_dump, *offline)
    differences = (diff_lfts(parse_lfts(offline_dump), parse_lfts(lfts))
                   if res.returncode == 0 else [res.stderr])
    tap.ok(not differences, f"{label}: switches hold exactly the tables "
           f"{engine} computes offline from the discovered fabric",
           "\n".join(differences))
    return rep


def engine_was_used(tap, sim, label, engine="shortestpath", since=0,
                    tree=True):
    """Assert from the OpenSM log that our engine routed and checked its
    routes.  On a tree the check must be clean; elsewhere (tori, random
    graphs) min-hop closes credit loops on one VL, which the plugin must
    split into VL layers (vl_layers, on by default), its check then
    clean per VL."""
    log = sim.log_text(since)
    tap.ok(f"{engine} tables configured on all switches" in log,
           f"{label}: OpenSM configured {engine}'s tables on all switches",
           vfsim.tail(sim.osms[-1].log))
    tap.ok(re.search(rf"vfabric: {engine} routed \d+ switches", log),
           f"{label}: the plugin logged its routing")
    m = re.search(rf"vfabric: (?:ERR VF0107: )?{engine} check: unreachable "
                  rf"(\d+)/\d+ CA pairs, (\d+)/\d+ switch pairs", log)
    tap.ok(m and m.group(1) == "0" and m.group(2) == "0",
           f"{label}: the plugin's own route check found nothing "
           "unreachable", m.group(0) if m else "no check line")
    tap.ok(f"unicast routing done by engine '{engine}'" in log,
           f"{label}: routing_engine_used is {engine}")
    errors = [line for line in log.splitlines() if "ERR VF" in line]
    if tree:
        tap.ok(not errors, f"{label}: no plugin error logged",
               "\n".join(errors))
    else:
        tap.ok(re.search(rf"vfabric: {engine}: the routes close credit "
                         r"loops on one VL; split into \d+ VL layers", log)
               and "credit loops none per VL" in log and not errors,
               f"{label}: the plugin splits min-hop's credit loops into VL "
               "layers, with no error", "\n".join(errors))
