#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Differential test of stock partitions.conf files against stock OpenSM.

Each file (sim/pconfgen.py, seeded) runs on a fresh ibsim (OpenSM keeps
P_Key indexes, ibsim keeps tables: a new ibsim per run) three times:

- stock OpenSM alone, partition_config_file FILE;
- OpenSM with the plugin, partition_config_file FILE;
- OpenSM with the plugin, event_plugin_options config=FILE;

and, when stock OpenSM accepts the file, every P_Key table read back
with SMPs (values and indexes: each CA port, each switch port 0, each
switch port facing a CA), the multicast groups every node's SA shows
(saquery -g from each host and a switch) and a sample of PathRecords
(saquery -p --src-to-dst, asked by one host) must be identical in the three runs.
When stock OpenSM refuses the file ("Partition configuration in error"),
`vfabric check` must refuse it too, naming file and line; and it must
accept every file stock OpenSM accepts.  Some files run with
allow_both_pkeys TRUE (in all three runs).

PCONF_DIFF_FILES (default 12) files from PCONF_DIFF_SEED (default 1), or
the seeds listed in PCONF_DIFF_SEEDS (1,5,9);
`make check-pconf-long` runs 300.

Then PCONF_DIFF_EXTENDED (default 4) files that avoid OpenSM's reading
quirks (explicit P_Keys) run once more with a vFabric statement added
(an unused DeviceGroup), which makes the plugin read them with its
vFabric reader: the P_Key tables must still be stock OpenSM's.
"""

import os
import re
import sys
import time

import json

import pconfgen
import pconfmodel
import topogen
import vfsim
import vftest

FILES = int(os.environ.get("PCONF_DIFF_FILES", "12"))
OFFLINE = int(os.environ.get("PCONF_DIFF_OFFLINE", "200"))
EXTENDED = int(os.environ.get("PCONF_DIFF_EXTENDED", "4"))
# what makes a stock file one with vFabric statements, meaning nothing
UNUSED_GROUP = "DeviceGroup pconfdiffUnused : type=CA ;\n"
SEED = int(os.environ.get("PCONF_DIFF_SEED", "1"))
REFUSED = "Partition configuration in error"
# a sample of PathRecords: within a leaf, across, with a switch, the SM
PATHS = [("cn0004", "cn0005"), ("cn0004", "cn0001"), ("cn0001", "cn0006"),
         ("cn0002", "cn0003"), ("cn0006", "cn0004"), ("cn0004", "leaf002"),
         ("leaf001", "cn0002"), ("cn0004", "cn0004")]


def fabric():
    return topogen.fattree2(leaves=2, spines=1, hosts=3)


def read_state(sim):
    """Everything compared: {what: value} read back from the fabric."""
    nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    state = {}
    names = {}
    for guid, n in nodes.items():
        names[guid] = n["desc"].split()[0]
    for guid, n in sorted(nodes.items()):
        name = names[guid]
        if n["kind"] == "Ca":
            state[f"pkeys {name}"] = sim.pkeys(n["lid"])
            continue
        state[f"pkeys {name}[0]"] = sim.pkeys(n["lid"])
        for port, (peer, _) in sorted(n["links"].items()):
            if nodes.get(peer, {}).get("kind") == "Ca":
                state[f"pkeys {name}[{port}]"] = sim.pkeys(n["lid"], port)
    for guid, n in sorted(nodes.items()):
        # the SA shows a requester only the groups of its partitions
        if n["kind"] == "Ca" or names[guid] == "spine001":
            out = sim.run_diag(["saquery", "-g"], node=sim_node(sim, n))
            state[f"groups seen by {names[guid]}"] = records(out)
    lid = {names[g]: n["lid"] for g, n in nodes.items()}
    for src, dst in PATHS:
        out = sim.run_diag(["saquery", "-p", "--src-to-dst",
                            f"{lid[src]}:{lid[dst]}"],
                           node=host_id(sim, "cn0004"), check=False)
        state[f"path {src} -> {dst} asked by cn0004"] = records(out)
    return state


def host_id(sim, desc):
    """The net-file node id of the node whose NodeDesc starts with desc."""
    for nid, n in sim.nodes.items():
        if n.desc.split()[0] == desc or nid == desc:
            return nid
    return desc


def sim_node(sim, n):
    return host_id(sim, n["desc"].split()[0])


def records(text):
    """saquery dump -> sorted list of records (each a sorted field list)."""
    out, cur = [], None
    for line in text.splitlines():
        if line.strip().endswith("dump:"):
            cur = []
            out.append(cur)
            continue
        m = re.match(r"\s+(\S+?)\.{2,}(.*)$", line)
        if m and cur is not None:
            cur.append((m.group(1), m.group(2).strip()))
    return sorted(tuple(r) for r in out)


def run(tap, path, label, plugin, options, both):
    """One OpenSM run on a fresh ibsim: (refused by stock?, state, log)."""
    extra = ["sweep_interval 0"]
    if both:
        extra.append("allow_both_pkeys TRUE")
    with vfsim.Sim(fabric(), f"pconfdiff-{label}", tap=tap) as sim:
        sim.start_ibsim()
        if plugin:
            if options == "config":
                extra.append(f"partition_config_file {path}.none")
                conf = vftest.plugin_conf(
                    engine="minhop", options=f"config={path}", extra=extra)
            else:
                extra.append(f"partition_config_file {path}")
                conf = vftest.plugin_conf(engine="minhop", options=None,
                                          extra=extra)
            sim.start_opensm(conf_lines=conf, plugin_dir=vftest.PLUGIN_DIR)
        else:
            extra += [f"partition_config_file {path}", "routing_engine minhop"]
            sim.start_opensm(conf_lines=extra)
        sim.wait_subnet_up()
        log = sim.log_text()
        state = read_state(sim)
        sim.stop_opensm()
    return REFUSED in log, state, log


def short(value):
    """A record list without the fields both sides always agree on."""
    if not isinstance(value, list) or not value or \
            not isinstance(value[0], tuple):
        return value
    keep = ("mgid", "dlid", "slid", "pkey", "mlid", "mtu", "rate", "sl",
            "qkey", "scope_state", "tclass", "flowlabel", "pkt_life")
    return [{f: v for f, v in r if f.lower() in keep} for r in value]


def diff(a, b, limit=6):
    out = []
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            out.append(f"{k}:\n  stock  {short(a.get(k))}\n"
                       f"  plugin {short(b.get(k))}")
    return "\n".join(out[:limit])


def check_file(tap, path, seed, both):
    res = vftest.vfabric("check", path)
    said = res.stderr + res.stdout
    refused, stock, log = run(tap, path, f"s{seed}", False, None, both)
    if refused:
        # a file without a statement has no line to name
        named = re.search(re.escape(path) + r"(:\d+: |: defines no )",
                          said)
        tap.ok(res.returncode != 0 and named,
               f"seed {seed}: stock OpenSM refuses the file; so does "
               "vfabric check, naming file and line", said + "\n" +
               vfsim.tail(path, 40))
        return
    tap.ok(res.returncode == 0, f"seed {seed}: stock OpenSM accepts the "
           "file; so does vfabric check", said)
    for mode in ("partition_config_file", "config"):
        _, ours, olog = run(tap, path, f"{mode[0]}{seed}", True, mode, both)
        errors = [line for line in olog.splitlines() if "ERR VF" in line]
        d = diff(stock, ours) + "\n".join(errors)
        tap.ok(not d, f"seed {seed}{' allow_both_pkeys' if both else ''}: "
               f"plugin ({mode}=FILE) programs exactly what stock OpenSM "
               f"does ({len(stock)} tables and SA views), no plugin error",
               d + "\n--- file:\n" + open(path).read())


def emitted(path, net, out):
    """The plain file the plugin writes for path on net (None: refused)."""
    res = vftest.vfabric("resolve", path, "--topo", net, "--sm",
                         "cn0001 HCA-1", "--emit", out)
    if res.returncode:
        return None
    with open(out) as fh:
        return [line for line in fh if not line.startswith("#")]


def offline(tap, work):
    """Without ibsim: the file the plugin writes means, read again, what
    the source meant (it is a fixed point: written again, the same), for
    OFFLINE generated files, some refused."""
    net = os.path.join(work, f"pconfdiff-{os.getpid()}.net")
    fabric().write(net)
    bad, refused = [], 0
    for seed in range(SEED, SEED + OFFLINE):
        src = os.path.join(work, f"pconfdiff-{os.getpid()}-off.conf")
        with open(src, "w") as fh:
            fh.write(pconfgen.generate(seed))
        first = emitted(src, net, src + ".1")
        if first is None:
            refused += 1
            continue
        again = emitted(src + ".1", net, src + ".2")
        if again != first:
            bad.append(seed)
    for f in (net, src, src + ".1", src + ".2"):
        if os.path.exists(f):
            os.unlink(f)
    tap.ok(not bad and refused < OFFLINE, f"offline: {OFFLINE - refused} "
           f"generated files ({refused} refused): the plain file the plugin "
           "writes, read again, gives the same plan and groups",
           f"seeds {bad[:10]}")


def check_extended(tap, path, seed, both):
    """A file with a vFabric statement added: its partition statements
    keep stock OpenSM's meaning, so the P_Key tables (values and
    indexes) equal stock OpenSM's for the plain file.  (Its groups may
    be made in another order: MLIDs not compared.)"""
    refused, stock, _ = run(tap, path, f"xs{seed}", False, None, both)
    if refused:
        return False
    with open(path) as fh:
        text = fh.read()
    ext = path + ".vfabric"
    with open(ext, "w") as fh:
        fh.write(UNUSED_GROUP + text)
    _, ours, olog = run(tap, ext, f"xp{seed}", True, "partition_config_file",
                        both)
    os.unlink(ext)
    tables = {k: v for k, v in stock.items() if k.startswith("pkeys")}
    d = diff(tables, {k: v for k, v in ours.items() if k.startswith("pkeys")})
    errors = [line for line in olog.splitlines() if "ERR VF" in line]
    tap.ok(not d and not errors and "1 device groups" in olog,
           f"seed {seed} (with a vFabric statement"
           f"{', allow_both_pkeys' if both else ''}): every P_Key table "
           "(values and indexes) as stock OpenSM makes the plain file",
           d + "\n".join(errors) + "\n--- file:\n" + text)
    return True


def model_check(tap, work):
    """Without ibsim: on OFFLINE plain files (no reading quirks) that the
    plugin accepts, its P_Key memberships equal an independent model of
    stock OpenSM's rules (sim/pconfmodel.py)."""
    net = os.path.join(work, f"pconfdiff-{os.getpid()}-m.net")
    fabric().write(net)
    src = os.path.join(work, f"pconfdiff-{os.getpid()}-m.conf")
    bad, compared = [], 0
    for seed in range(SEED, SEED + OFFLINE):
        both = seed % 3 == 0
        text = pconfgen.generate(seed, plain=True)
        with open(src, "w") as fh:
            fh.write(text)
        res = vftest.vfabric("resolve", src, "--topo", net, "--sm",
                             "cn0001 HCA-1", "--json",
                             *(["--allow-both"] if both else []))
        if res.returncode:
            continue
        got = {int(p["guid"], 16): {int(e["pkey"], 16): e["membership"]
                                    for e in p["pkeys"]}
               for p in json.loads(res.stdout)["ports"]}
        want = pconfmodel.memberships(text, pconfgen.HOSTS,
                                      pconfgen.SWITCHES, pconfgen.HOSTS[0],
                                      both)
        compared += 1
        if got != want:
            bad.append(seed)
    for f in (net, src):
        os.unlink(f)
    tap.ok(not bad and compared, f"offline: {compared} plain generated files: "
           "every port's P_Keys and memberships equal an independent model "
           "of stock OpenSM's rules", f"seeds {bad[:10]}")


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    work = os.environ.get("VF_TMPDIR") or "/tmp"
    os.makedirs(work, exist_ok=True)
    if OFFLINE:
        offline(tap, work)
        model_check(tap, work)
    t0 = time.monotonic()
    seeds = [int(x) for x in os.environ.get("PCONF_DIFF_SEEDS", "").split(",")
             if x] or range(SEED, SEED + FILES)
    for seed in seeds:
        path = os.path.join(work, f"pconfdiff-{os.getpid()}-{seed}.conf")
        with open(path, "w") as fh:
            fh.write(pconfgen.generate(seed))
        both = pconfgen.Gen(seed * 7919 + 1).chance(0.3)
        try:
            check_file(tap, path, seed, both)
        except vfsim.SimError as e:
            tap.ok(False, f"seed {seed}: runs", str(e))
        os.unlink(path)
    done, seed = 0, SEED
    while done < EXTENDED and seed < SEED + 10 * EXTENDED:
        path = os.path.join(work, f"pconfdiff-{os.getpid()}-x{seed}.conf")
        with open(path, "w") as fh:
            fh.write(pconfgen.generate(seed, plain=True))
        try:
            done += check_extended(
                tap, path, seed, pconfgen.Gen(seed * 7919 + 2).chance(0.3))
        except vfsim.SimError as e:
            tap.ok(False, f"seed {seed} with a vFabric statement: runs",
                   str(e))
        os.unlink(path)
        seed += 1
    vfsim.Tap.diag(f"{len(seeds)} files in {time.monotonic() - t0:.0f} s")
    tap.done()


if __name__ == "__main__":
    sys.exit(main())
