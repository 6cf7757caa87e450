#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""sa_record_budget (plugin/sa_budget.c), as a host would attack: under a
vFabric config the plugin builds PathRecord answers itself, and a
GetTable with an empty component mask asks for every path of the fabric.
With the budget set to 1 record a second, on ibsim:

1. a host's first all-paths query is answered in full;
2. the same host asking again within the second gets BUSY (the IBA's
   "discarded, try later"), before anything is built;
3. another host is not held up by the first one's budget;
4. the first host is answered again once a second has passed;
5. the refusal is logged, naming the port and the budget.

Under the memory checkers a query can take longer than the one-second
window, so there point 2 is run but not asserted.
"""

import os
import re
import time

import topogen
import vfsim
import vftest

SA = vftest.VFABRIC_SA
CONF = os.path.join(vftest.TOP_SRCDIR, "conf", "vfabric-default.xml")


def all_paths(sim, at):
    """(status name, records built) of a PathRecord GetTable with no
    component, asked from host `at`: the count from the plugin's sa_log
    line (ibsim delivers only the first records of a long answer)."""
    since = sim.log_offset()
    out = sim.run_diag([SA, "path"], node=at, check=False, timeout=30)
    m = re.match(r"status 0x[0-9a-f]+ (\S+) records", out)
    if not m:
        return (out[:80], None)
    built = re.findall(r"sa: PathRecord GetTable from LID \d+ \(comp_mask "
                       r"0x0, \S+\): (\d+) records", sim.log_text(since))
    return (m.group(1), int(built[-1]) if built else 0)


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    fab = topogen.fattree2(leaves=2, spines=1, hosts=2)
    with vfsim.Sim(fab, "sa-budget", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=vftest.plugin_conf(
            engine="fattree",
            options=f"log_level=info config={CONF} sa_log=on "
            "sa_record_budget=1"),
            plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        since = sim.log_offset()
        first = all_paths(sim, "cn0002")
        tap.ok(first[0] == "SUCCESS" and first[1] > 1,
               f"a host's first all-paths query: answered ({first[1]} "
               "records)", str(first))
        again = [all_paths(sim, "cn0002") for _ in range(3)]
        while (again[-1][0] != "BUSY" and len(again) < 20 and
               not vfsim.memcheck.mode()):
            again.append(all_paths(sim, "cn0002"))
        busy = again[-1]
        if vfsim.memcheck.mode():
            tap.skip("the same host again within the second: BUSY",
                     "a query may take longer than the window here")
        else:
            tap.ok(busy == ("BUSY", 0) and
                   all(a[0] in ("SUCCESS", "BUSY") for a in again),
                   "the same host asking again within the second: BUSY, "
                   "nothing built", str(again))
        other = all_paths(sim, "cn0003")
        tap.ok(other == first,
               "another host meanwhile: answered in full, as the first",
               str(other))
        time.sleep(1.2)
        later = all_paths(sim, "cn0002")
        tap.ok(later == first,
               "the first host a second later: answered in full again",
               str(later))
        log = sim.log_text(since)
        if vfsim.memcheck.mode():
            tap.skip("the refusal logged", "no refusal asserted here")
        else:
            tap.ok(re.search(r"vfabric: warning: sa: PathRecord from LID "
                             r"\d+ answered BUSY: \d+ records built for "
                             r"that port this second, over "
                             r"sa_record_budget=1; 1 refused so far", log),
                   "the refusal is logged with the port and the budget",
                   vfsim.tail(sim.osms[-1].log))
        sim.stop_opensm()
    tap.done()


if __name__ == "__main__":
    main()
