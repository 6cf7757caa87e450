#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""vFabric QoS programmed into real SL2VL and VL arbitration tables: stock
OpenSM with the plugin reading an opafm.xml-style file on ibsim; the
tables read back with smpquery on hosts and on every switch port, and
compared with what the configuration means, worked out here in Python
from the FM's rules (not from the plugin):

- a non-QoS Default VF plus three QoS VFs (explicit and automatic BaseSL,
  Bandwidth 30%/40%, one HighPriority): each class's SL on its own VL,
  every other SL on VL0, low-priority weights in proportion to the
  shares (5% units summing to 100%), the HighPriority VL in the high
  table; the largest HoqLife on the switch ports, with a warning;
- a SIGHUP with a changed share: the tables follow; one without QoS VFs:
  OpenSM's own HOQLife settings are back;
- a configuration without QoS: every table equals stock OpenSM's (run
  without the plugin on the same fabric).

ibsim 0.10 (checked here): CAs and switch ports report VLCap VL0-7,
VLArbLowCap and VLArbHighCap 8, and a switch keeps one SL2VL table per
input/output port pair.
"""

import os
import re
import signal

import topogen
import vfsim
import vftest

HEAD = """<?xml version="1.0"?>
<Config><Common>
<Applications>
 <Application><Name>AllOthers</Name><Select>UnmatchedServiceID</Select></Application>
</Applications>
<DeviceGroups>
 <DeviceGroup><Name>Hosts</Name><NodeDesc>cn*</NodeDesc></DeviceGroup>
</DeviceGroups>
<VirtualFabrics>
"""
TAIL = """</VirtualFabrics>
</Common></Config>
"""

# name, QoS, BaseSL, Bandwidth %, HighPriority, HoqLife exponent (or None)
QOS_VFS = [
    ("Default", False, None, None, False, None),
    ("Storage", True, 3, 30, False, 11),      # 8ms
    ("Compute", True, None, 40, False, None),
    ("Control", True, 6, None, True, 12),     # 16ms
]
NO_QOS_VFS = [
    ("Default", False, None, None, False, None),
    ("Tenant", False, None, None, False, None),
]
HOQ_TEXT = {11: "8ms", 12: "16ms"}


def config(vfs):
    out = HEAD
    for name, qos, sl, bw, hp, hoq in vfs:
        out += f" <VirtualFabric><Name>{name}</Name><Enable>1</Enable>"
        if name == "Default":
            out += "<PKey>0x0001</PKey><Member>All</Member>"
        else:
            out += "<Member>Hosts</Member>"
        out += "<Application>AllOthers</Application>"
        if qos:
            out += "<QOS>1</QOS>"
            if sl is not None:
                out += f"<BaseSL>{sl}</BaseSL>"
            if bw is not None:
                out += f"<Bandwidth>{bw}%</Bandwidth>"
            if hp:
                out += "<HighPriority>1</HighPriority>"
            if hoq is not None:
                out += f"<HoqLife>{HOQ_TEXT[hoq]}</HoqLife>"
        out += "</VirtualFabric>\n"
    return out + TAIL


# --- the expectation, from the FM's rules (reference/opa-fm.md 1.5, 1.7) --
def expected(vfs, vls=8):
    """SL2VL (16 VLs by SL), low and high VLArb entries [(vl, weight)] and
    HoqLife for a port with `vls` data VLs."""
    used = {sl for _, qos, sl, _, _, _ in vfs if qos and sl is not None}
    sls, shared = {}, None
    for name, qos, sl, *_ in vfs:          # automatic SLs: lowest free
        if qos and sl is not None:
            sls[name] = sl
        elif not qos and shared is not None:
            sls[name] = shared
        else:
            sls[name] = min(set(range(16)) - used)
            used.add(sls[name])
            shared = sls[name] if not qos else shared
    # classes: the non-QoS one first (VL0), then QoS VFs in order
    classes = []
    if any(not v[1] for v in vfs):
        classes.append(dict(sl=shared, bw=None, hp=False, qos=False))
    for name, qos, sl, bw, hp, hoq in vfs:
        if qos:
            classes.append(dict(sl=sls[name], bw=None if hp else bw, hp=hp,
                                qos=True, hoq=hoq))
    low = [c for c in classes if not c["hp"]]
    explicit = sum(c["bw"] for c in low if c["bw"])
    unset = [c for c in low if not c["bw"]]
    rest = 100 - explicit
    for c in unset:                        # even split, first gets the rest
        c["t"] = rest // len(unset)
    if unset:
        unset[0]["t"] = rest - rest // len(unset) * (len(unset) - 1)
    for c in low:
        c.setdefault("t", c["bw"])
    # 5% units by largest remainder (this config needs no minimum bump)
    total = sum(c["t"] for c in low)
    for c in low:
        c["u"], c["r"] = divmod(20 * c["t"], total)
    for _ in range(20 - sum(c["u"] for c in low)):
        best = max(low, key=lambda c: (c["r"], -low.index(c)))
        best["u"] += 1
        best["r"] = -1
    sl2vl = [0] * 16
    units = [0] * vls
    high = []
    for k, c in enumerate(classes):
        vl = k % vls
        sl2vl[c["sl"]] = vl
        if c["hp"]:
            high.append((vl, 64))
        else:
            units[vl] += c["u"]
    low_tbl = [(vl, 12 * u) for vl, u in enumerate(units) if u]
    hoqs = [c["hoq"] for c in classes if c["qos"] and c["hoq"] is not None]
    return sl2vl, low_tbl, high, max(hoqs) if hoqs else None


def pad(entries, n=8):
    return entries + [(0, 0)] * (n - len(entries))


# --- reading back -----------------------------------------------------------
def parse_vlarb(text):
    """smpquery vlarb: (low, high) lists of (vl, weight)."""
    vls = [[int(x, 16) for x in re.findall(r"0x[0-9a-fA-F]+", line)]
           for line in text.splitlines() if line.startswith("VL")]
    ws = [[int(x, 16) for x in re.findall(r"0x[0-9a-fA-F]+", line)]
          for line in text.splitlines() if line.startswith("WEIGHT")]
    tables = [list(zip(v, w)) for v, w in zip(vls, ws)]
    return (tables + [[], []])[:2]


def portinfo(sim, path, port=None):
    argv = ["smpquery", "portinfo", "-D", path] + \
        ([str(port)] if port is not None else [])
    out = sim.run_diag(argv)
    return dict(re.findall(r"^(\w+):\.*(.*)$", out, re.M))


# A leaf is "-D 0,1" from the SM's host; its ports: hosts 1-2, spines 3-4
# (radix 4: all linked); a spine is behind leaf port 3, its ports 1-2 go
# to the leaves (3-4 are down: OpenSM leaves those alone).
SWITCHES = {"leaf": ("0,1", (1, 2, 3, 4)), "spine": ("0,1,3", (1, 2))}
NUM_PORTS = 4


def read_all(sim, hosts):
    """Every table this test looks at, keyed by where it was read."""
    got = {}
    for h in hosts:
        got[f"{h} sl2vl"] = vfsim.parse_sl2vl(
            sim.run_diag(["smpquery", "sl2vl", "-D", "0"], node=h))
        got[f"{h} vlarb"] = parse_vlarb(
            sim.run_diag(["smpquery", "vlarb", "-D", "0"], node=h))
    for sw, (path, ports) in SWITCHES.items():
        for port in ports:
            got[f"{sw} port {port} sl2vl"] = vfsim.parse_sl2vl(sim.run_diag(
                ["smpquery", "sl2vl", "-D", path, str(port)]))
            got[f"{sw} port {port} vlarb"] = parse_vlarb(sim.run_diag(
                ["smpquery", "vlarb", "-D", path, str(port)]))
            got[f"{sw} port {port} HoqLife"] = \
                portinfo(sim, path, port).get("HoqLife")
    return got


def check_programme(tap, label, got, hosts, vfs):
    sl2vl, low, high, _ = expected(vfs)
    for h in hosts:
        tap.ok(got[f"{h} sl2vl"] == {(0, 0): sl2vl},
               f"{label}: {h} SL2VL {sl2vl}", got[f"{h} sl2vl"])
        tap.ok(got[f"{h} vlarb"] == [pad(low), pad(high)],
               f"{label}: {h} VLArb low {low} high {high}",
               got[f"{h} vlarb"])
    for sw, (_, ports) in SWITCHES.items():
        for port in ports:
            rows = got[f"{sw} port {port} sl2vl"]
            want = {(i, port): sl2vl for i in range(NUM_PORTS + 1)}
            tap.ok(rows == want, f"{label}: {sw} output port {port}: the "
                   "same SL2VL from every input port", rows)
            arb = got[f"{sw} port {port} vlarb"]
            tap.ok(arb == [pad(low), pad(high)],
                   f"{label}: {sw} port {port} VLArb as expected", arb)


def start(sim, conf, plugin=True):
    sim.start_ibsim()
    if plugin:
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            options=f"log_level=info config={conf}"),
            plugin_dir=vftest.PLUGIN_DIR)
    else:
        sim.start_opensm(conf_lines=["routing_engine minhop",
                                     "sweep_interval 0"])
    sim.wait_subnet_up()


def run_qos(tap, work, net, hosts):
    conf = os.path.join(work, "qos.xml")
    with open(conf, "w") as fh:
        fh.write(config(QOS_VFS))
    label = "qos"
    with vfsim.Sim(net, label, tap=tap) as sim:
        start(sim, conf)
        pi = portinfo(sim, "0")
        spi = portinfo(sim, "0,1", 3)
        tap.ok(pi.get("VLCap") == "VL0-7" and pi.get("VLArbLowCap") == "8"
               and pi.get("VLArbHighCap") == "8" and
               spi.get("VLCap") == "VL0-7" and spi.get("OperVLs") ==
               "VL0-7", f"{label}: ibsim's CA and switch ports have 8 data "
               "VLs and VLArb tables of 8", f"{pi} {spi}")
        log = sim.log_text()
        tap.ok("vfabric: qos: 4 classes: '(no QoS)' SL0 VL0 30% weight 72;"
               " 'Storage' SL3 VL1 30% weight 72; 'Compute' SL1 VL2 40% "
               "weight 96; 'Control' SL6 VL3 high priority weight 64"
               in log, f"{label}: the plugin logs the programme",
               "\n".join(l for l in log.splitlines() if "qos" in l))
        tap.ok("one HOQLife per port" in log, f"{label}: a warning says "
               "the VFs' HoqLife values differ and IB has one per port")
        tap.ok(re.search(r"vfabric: qos: SL2VL tables of \d+ ports set",
                         log), f"{label}: the callbacks ran")
        tap.ok(not re.search(r"ERR VF", log), f"{label}: no plugin error",
               "\n".join(l for l in log.splitlines() if "ERR VF" in l))
        got = read_all(sim, hosts)
        check_programme(tap, label, got, hosts, QOS_VFS)
        hoq = expected(QOS_VFS)[3]
        bad = {k: v for k, v in got.items()
               if k.endswith("HoqLife") and v != str(hoq)}
        tap.ok(not bad, f"{label}: every switch port's HoqLife is {hoq}, "
               "the largest of the VFs'", bad)

        # a changed share, by SIGHUP: the tables follow
        vfs = [v if v[0] != "Compute" else v[:3] + (50,) + v[4:]
               for v in QOS_VFS]
        with open(conf, "w") as fh:
            fh.write(config(vfs))
        since = sim.log_offset()
        sim.osms[-1].popen.send_signal(signal.SIGHUP)
        sim.wait_subnet_up(since=since)
        tap.ok("'Compute' SL1 VL2 50% weight 120" in sim.log_text(since),
               f"{label}: after SIGHUP the programme has Compute at 50%")
        got = read_all(sim, hosts[:1])
        check_programme(tap, f"{label} 50%", got, hosts[:1], vfs)

        # no QoS VFs any more: OpenSM's own HOQLife options are back
        with open(conf, "w") as fh:
            fh.write(config(NO_QOS_VFS))
        since = sim.log_offset()
        sim.osms[-1].popen.send_signal(signal.SIGHUP)
        sim.wait_subnet_up(since=since)
        tap.ok("qos: no QoS virtual fabrics any more" in
               sim.log_text(since), f"{label}: after SIGHUP without QoS "
               "VFs the plugin lets go of OpenSM's QoS settings")
        leaf = (portinfo(sim, "0,1", 1).get("HoqLife"),
                portinfo(sim, "0,1", 3).get("HoqLife"))
        tap.ok(leaf == ("16", "18"), f"{label}: HoqLife is OpenSM's default "
               "again (leaf_head_of_queue_lifetime 16 toward hosts, "
               "head_of_queue_lifetime 18 between switches)", leaf)
        sim.stop_opensm()


def run_stock_equal(tap, work, net, hosts):
    conf = os.path.join(work, "noqos.xml")
    with open(conf, "w") as fh:
        fh.write(config(NO_QOS_VFS))
    tables = {}
    for label, plugin in (("stock", False), ("no-qos", True)):
        with vfsim.Sim(net, label, tap=tap) as sim:
            start(sim, conf, plugin)
            if plugin:
                log = sim.log_text()
                tap.ok("partitions:" in log and "vfabric: qos" not in log,
                       f"{label}: the plugin made partitions and left QoS "
                       "alone")
            tables[label] = read_all(sim, hosts)
            sim.stop_opensm()
    diff = {k: (v, tables["no-qos"].get(k))
            for k, v in tables["stock"].items()
            if tables["no-qos"].get(k) != v}
    tap.ok(tables["stock"] and not diff, "without QoS VFs every SL2VL, "
           "VLArb and HoqLife equals stock OpenSM's", diff)


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    work = vfsim.tempfile.mkdtemp(prefix="vf-qos-")
    net = os.path.join(work, "ft.net")
    fab = topogen.fattree2(leaves=2, spines=2, hosts=2, radix=4)
    fab.write(net)
    hosts = [h.id for h in fab.hcas()[:2]]
    run_qos(tap, work, net, hosts)
    run_stock_equal(tap, work, net, hosts)
    vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
