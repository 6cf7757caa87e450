#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The vFabric examples in conf/ (seed 000's default, default plus
Compute QoS, eight QoS vFabrics, security-focused tenants, Ethernet
tenants), each loaded by
stock OpenSM with the plugin on an ibsim fat tree.  For every host and
every switch port facing one, the P_Key table read back with smpquery must
hold exactly what `vfabric resolve` computes from the same file on the
discovered fabric, and what the example promises (checked here on its
own: the default ones give every host the full default P_Key, as stock
OpenSM; the tenants never share a P_Key both are full members of).  Then
the tenants example with its Admin VF Standby and cn0011-cn0013 in no VF:
the written Admin VF keeps them limited members of 0x7fff.
"""

import json
import os

import topogen
import vfsim
import vftest

FULL = 0x8000
EXAMPLES = ["vfabric-default.xml", "vfabric-compute-qos.xml",
            "vfabric-qos8.xml", "vfabric-tenants.xml",
            "vfabric-ethernet.xml"]


def read_tables(sim):
    """{host: (table, facing switch port's table)} as sets of entries."""
    nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    out = {}
    for n in nodes.values():
        if n["kind"] != "Ca":
            continue
        sw_guid, sw_port = n["links"][1]
        out[n["desc"].split()[0]] = (
            {k for k in sim.pkeys(n["lid"]) if k & 0x7fff},
            {k for k in sim.pkeys(nodes[sw_guid]["lid"], sw_port)
             if k & 0x7fff})
    return out


def resolved(sim, conf, sm_host):
    """{host: set of entries} from vfabric resolve on the discovered
    fabric."""
    topo = sim.discover()
    res = vftest.vfabric("resolve", conf, "--topo", topo, "--json",
                         "--sm", f"{sm_host} HCA-1")
    if res.returncode:
        return None, res.stderr
    out = {}
    for port in json.loads(res.stdout)["ports"]:
        if port["port"] == 0:
            continue
        keys = set()
        for e in port["pkeys"]:
            pkey = int(e["pkey"], 16)
            if e["membership"] in ("full", "both"):
                keys.add(pkey | FULL)
            if e["membership"] in ("limited", "both"):
                keys.add(pkey)
        out[port["desc"].split()[0]] = keys
    return out, ""


def promises(name, tables, sm_host):
    """What the example itself says, independent of the resolver."""
    if name not in ("vfabric-tenants.xml", "vfabric-ethernet.xml"):
        return [h for h, (own, _) in tables.items() if own != {0xffff}]
    bad = []
    tenant = {h: ("A" if h <= "cn0006" else "B") for h in tables
              if h.startswith("cn")}
    for a in tenant:
        for b in tenant:
            shared = {k for k in tables[a][0] & tables[b][0] if k & FULL}
            if tenant[a] != tenant[b] and shared:
                bad.append(f"{a} and {b} share {sorted(map(hex, shared))}")
    for h, (own, _) in tables.items():
        default = 0xffff if h == sm_host else 0x7fff
        if default not in own:
            bad.append(f"{h}: default partition {hex(default)} missing")
    return bad[:5]


def run(tap, work, net, name, conf=None, label=None):
    conf = conf or os.path.join(vftest.TOP_SRCDIR, "conf", name)
    label = label or name[len("vfabric-"):-len(".xml")]
    with vfsim.Sim(net, label, tap=tap) as sim:
        sim.start_ibsim()
        sm_host = sim.default_sm_node()
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            engine="fattree", options=f"log_level=info config={conf}"),
            plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        log = sim.log_text()
        tap.ok("vfabric: partitions:" in log and "ERR VF08" not in log,
               f"{label}: the plugin wrote the partitions without error",
               vfsim.tail(sim.osms[-1].log))
        # the check runs on the SUBNET UP event, just after the log line
        try:
            sim.wait_log(r"P_Key tables of 22 end ports verified as planned",
                         timeout=30)
            verified = True
        except vfsim.SimError:
            verified = False
        tap.ok(verified, f"{label}: the plugin found every end port's table "
               "(16 hosts, 6 switch port 0s) as planned on SUBNET UP",
               vfsim.tail(sim.osms[-1].log))
        tables = read_tables(sim)
        want, err = resolved(sim, conf, sm_host)
        tap.ok(want is not None, f"{label}: vfabric resolve ran", err)
        bad = [f"{h}: {sorted(map(hex, own))} want "
               f"{sorted(map(hex, want.get(h, set())))}"
               for h, (own, _) in sorted(tables.items())
               if want is not None and own != want.get(h)]
        tap.ok(want is not None and not bad, f"{label}: every host's P_Key "
               f"table equals vfabric resolve's ({len(tables)} hosts)",
               "\n".join(bad[:5]))
        # switch ports hold the same P_Keys (limited and full may merge)
        bad = [h for h, (own, facing) in tables.items()
               if {k & 0x7fff for k in own} != {k & 0x7fff for k in facing}]
        tap.ok(not bad, f"{label}: every switch port facing a host "
               "enforces that host's P_Keys", " ".join(sorted(bad)))
        bad = promises(name, tables, sm_host)
        tap.ok(not bad, f"{label}: the tables keep the example's promise",
               "\n".join(bad))
        sim.stop_opensm()


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    work = vfsim.tempfile.mkdtemp(prefix="vf-examples-")
    net = os.path.join(work, "ft.net")
    # admin1, cn0001-cn0013, stor01-02 on four leaves
    topogen.fattree2(leaves=4, spines=2, hosts=4, storage=2,
                     admin=1).write(net)
    for name in EXAMPLES:
        run(tap, work, net, name)
    # the tenants example with its Admin VF Standby and cn0011-cn0013 in
    # no VF (the audit's F2): the written Admin VF still keeps every host
    # but the SM's a limited member of 0x7fff, never stock OpenSM's full
    with open(os.path.join(vftest.TOP_SRCDIR, "conf",
                           "vfabric-tenants.xml")) as fh:
        text = fh.read()
    standby = os.path.join(work, "tenants-admin-standby.xml")
    text = text.replace("<Name>Admin</Name>\n        <Enable>1</Enable>",
                        "<Name>Admin</Name>\n        <Enable>1</Enable>"
                        "<Standby>1</Standby>")
    text = text.replace("cn[0007-0099]*", "cn[0007-0010]*")
    with open(standby, "w") as fh:
        fh.write(text)
    tap.ok("<Standby>1</Standby>" in text and "cn[0007-0010]*" in text,
           "tenants-admin-standby: the Admin VF made Standby, "
           "cn0011-cn0013 in no VF")
    run(tap, work, net, "vfabric-tenants.xml", conf=standby,
        label="tenants-admin-standby")
    vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
