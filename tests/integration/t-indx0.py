#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""What stock OpenSM 3.3.23 (no plugin) does with partitions.conf's indx0
flag, which the plugin's generated file uses to put the FM's index-0 P_Key
at index 0 (partition/emit.c relies on each of these):

- the flag applies to the ports of its own statement;
- when several statements claim index 0 for a port, the last one wins;
- a later statement listing the port for the same P_Key without the flag
  takes index 0 away again (so the plugin lists each port once per P_Key);
- when the index-0 P_Key changes, the new one moves to index 0 and the old
  one to a free index; every other P_Key keeps its index
  (keep_pkey_indexes);
- without indx0, the default partition is at index 0.
"""

import os
import signal

import topogen
import vfsim

DEFAULT = "Default=0x7fff, ipoib : ALL=full ;\n"
CN2 = "0x0002c90300000021"      # cn0002's port GUID (topogen)


def main():
    tap = vfsim.Tap()
    vfsim.require_tools(tap)
    fab = topogen.fattree2(leaves=1, spines=1, hosts=2)
    with vfsim.Sim(fab, "indx0", tap=tap) as sim:
        sim.start_ibsim()
        conf = os.path.join(sim.workdir, "partitions.conf")
        nodes = None

        def tables():
            nonlocal nodes
            nodes = nodes or vfsim.parse_ibnetdiscover(
                open(sim.discover()).read())
            return {n["desc"].split()[0]: sim.pkeys(n["lid"])[:6]
                    for n in nodes.values() if n["kind"] == "Ca"}

        def apply(text):
            with open(conf, "w") as fh:
                fh.write(DEFAULT + text)
            if not sim.osms:
                sim.start_opensm(conf_lines=[
                    "sweep_interval 0", f"partition_config_file {conf}"])
                sim.wait_subnet_up()
            else:
                since = sim.log_offset()
                sim.osms[-1].popen.send_signal(signal.SIGHUP)
                sim.wait_subnet_up(since=since)
            return tables()

        t = apply("P1=0x0010, indx0 : ALL=full ;\n"
                  "P2=0x0020, indx0 : ALL=full ;\nP3=0x0030 : ALL=full ;\n")
        tap.ok(t["cn0001"] == [0x8020, 0x8010, 0x8030, 0xffff, 0, 0],
               "two statements with indx0: the last one's P_Key at index 0,"
               " then the partition map's order, the default last",
               [hex(k) for k in t["cn0001"]])
        t = apply("P1=0x0010 : ALL=full ;\nP2=0x0020 : ALL=full ;\n"
                  "P3=0x0030, indx0 : ALL=full ;\n")
        tap.ok(t["cn0001"] == [0x8030, 0x8010, 0, 0xffff, 0x8020, 0],
               "indx0 moved to P3: P3 at 0, P2 to a free index, P1 and the "
               "default kept", [hex(k) for k in t["cn0001"]])
        t = apply("P1=0x0010 : ALL=full ;\nP2=0x0020 : ALL=full ;\n"
                  "P3=0x0030, indx0 : ALL=full ;\n"
                  f"P3=0x0030 : {CN2}=full ;\n")
        tap.ok(t["cn0001"][0] == 0x8030 and t["cn0002"][0] == 0xffff,
               "a port listed again for the P_Key without indx0 loses "
               "index 0 (the default takes it); the others keep it",
               {h: [hex(k) for k in v] for h, v in t.items()})
        t = apply("P1=0x0010 : ALL=full ;\nP2=0x0020 : ALL=full ;\n"
                  "P3=0x0030 : ALL=full ;\n")
        tap.ok(all(v[0] == 0xffff for v in t.values()),
               "without indx0 the default partition is at index 0",
               {h: [hex(k) for k in v] for h, v in t.items()})
        sim.stop_opensm()
    tap.done()


if __name__ == "__main__":
    main()
