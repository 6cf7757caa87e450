#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The SA crash guard (plugin/sa_guard.c), as a host would attack: one
SLtoVLMappingTableRecord query from any host, with OutputPortNum or
InputPortNum at or past a switch's port count, makes stock OpenSM 3.3.23
read past the switch's port table (255 wraps its uint8_t loop: a segfault
or a hang).  The plugin answers these queries itself.  On one ibsim
fabric:

1. stock OpenSM alone answers the valid queries below (the reference),
   then dies of the attack (the fact the guard exists for; not run under
   the memory checkers, where a crash of stock is not ours to report);
2. OpenSM with the plugin answers the same valid queries exactly as stock
   did, and each attack as stock would if it checked its bounds: a port
   a switch lacks matches no record of that switch (NO_RECORDS for a Get,
   an empty table for a GetTable; without a LID, the end ports' records
   only, as they ignore port numbers); it stays up and answers a valid
   query after them;
3. such requests are logged when their count reaches a power of two, so
   a flood cannot fill the log;
4. LinearForwardingTableRecord, which the plugin answers too (stock's
   handler reads a null table for a switch found in the sweep under way):
   the answers to eight valid queries are stock's, byte for byte (both
   runs route with minhop).
"""

import re

import topogen
import vfsim
import vftest

SA = vftest.VFABRIC_SA
SLVL = "0x13"
GET, GETTABLE = "0x01", "0x12"
LID, IN, OUT = 1, 2, 4      # IB_SLVL_COMPMASK_*
LFTR = "0x15"
BLOCK = 2                   # IB_LFTR_COMPMASK_BLOCK (LID is 1)


def slvl(method, mask, lid=0, in_port=0, out_port=0):
    """vfabric-sa raw arguments for an SLtoVLMappingTableRecord query."""
    data = f"{lid:04x}{in_port:02x}{out_port:02x}"
    return ["raw", "--attr-id", SLVL, "--method", method,
            "--comp-mask", hex(mask), "--data", data]


def lftr(method, mask, lid=0, block=0):
    """vfabric-sa raw arguments for a LinearForwardingTableRecord query."""
    return ["raw", "--attr-id", LFTR, "--method", method,
            "--comp-mask", hex(mask), "--data", f"{lid:04x}{block:04x}"]


def ask(sim, args, at="cn0002"):
    """The answer as vfabric-sa prints it, less its retry count."""
    out = sim.run_diag([SA] + args, node=at, check=False, timeout=30)
    return re.sub(r" tries \d+", "", out).strip()


def status(answer):
    m = re.match(r"status 0x[0-9a-f]+ (\S+) records (\d+)", answer)
    return (m.group(1), int(m.group(2))) if m else (answer[:80], None)


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    fab = topogen.fattree2(leaves=2, spines=1, hosts=2)
    with vfsim.Sim(fab, "sa-guard", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=["sweep_interval 0", "log_flags 0x43"])
        sim.wait_subnet_up()
        nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
        sws = sorted((n["lid"], n["ports"] + 1) for n in nodes.values()
                     if n["kind"] == "Switch")
        sw, n = sws[0]
        ca = min(nd["lid"] for nd in nodes.values() if nd["kind"] == "Ca")
        n_ca = sum(nd["kind"] == "Ca" for nd in nodes.values())
        valid = {
            "a switch's last port": slvl(GETTABLE, LID | OUT, sw,
                                         out_port=n - 1),
            "in port 0 to out port 1": slvl(GETTABLE, LID | IN | OUT, sw,
                                            0, 1),
            "a switch's port 0": slvl(GET, LID | IN | OUT, sw, 0, 0),
            "an end port, whose port fields are ignored (255)":
                slvl(GET, LID | OUT | IN, ca, 255, 255),
            "every port's table (no component)": slvl(GETTABLE, 0),
            "output port 1 of every switch (no LID)": slvl(GETTABLE, OUT,
                                                           out_port=1),
            "an unknown LID": slvl(GETTABLE, LID | OUT, 0x0bad, out_port=1),
        }
        lft_valid = {
            "a switch's whole LFT": lftr(GETTABLE, LID, sw),
            "its block 0, a GetTable": lftr(GETTABLE, LID | BLOCK, sw, 0),
            "its block 0, a Get": lftr(GET, LID | BLOCK, sw, 0),
            "every switch's LFT (no component)": lftr(GETTABLE, 0),
            "block 0 of every switch": lftr(GETTABLE, BLOCK, 0, 0),
            "an end port's LID (no switch)": lftr(GETTABLE, LID, ca),
            "a block past the top": lftr(GETTABLE, LID | BLOCK, sw, 7),
            "a Get of two records (no LID)": lftr(GET, BLOCK, 0, 0),
        }
        lft_stock = {k: ask(sim, a) for k, a in lft_valid.items()}
        tap.ok(sum(status(s) == ("SUCCESS", 0)
                   for s in lft_stock.values()) == 2 and
               all(status(s)[0] == "SUCCESS" and status(s)[1]
                   for k, s in lft_stock.items()
                   if k not in ("an end port's LID (no switch)",
                                "a block past the top",
                                "a Get of two records (no LID)")),
               f"stock OpenSM answers {len(lft_valid)} LFTRecord queries "
               "(none for a CA's LID or past the top)", str(lft_stock))
        stock = {k: ask(sim, a) for k, a in valid.items()}
        tap.ok(all(status(s)[0] == "SUCCESS" for s in stock.values()) and
               sum(status(s)[1] == 0 for s in stock.values()) == 1,
               f"stock OpenSM answers {len(valid)} valid SLtoVL queries "
               "(records for all but the unknown LID)", str(stock))
        if vfsim.memcheck.mode():
            tap.skip("stock OpenSM dies of OutputPortNum 255",
                     "not under a memory checker")
        else:
            ask(sim, slvl(GETTABLE, LID | OUT, sw, out_port=255))
            after = ask(sim, valid["a switch's last port"])
            died = sim.osms[-1].popen.poll()
            tap.ok(died is not None or status(after)[0] != "SUCCESS",
                   "stock OpenSM 3.3.23 dies of one SLtoVL query with "
                   "OutputPortNum 255 from a host (the guard's reason)",
                   f"exit {died}, then: {after}")
        sim.stop_opensm()

        # minhop, as stock: the LFTs (and so the LFTRecords) are the same
        sim.start_opensm(conf_lines=vftest.plugin_conf(engine="minhop"),
                         plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        for k, args in lft_valid.items():
            got = ask(sim, args)
            tap.ok(got == lft_stock[k],
                   f"with the plugin, LFTRecord {k}: the answer is stock "
                   "OpenSM's", f"stock: {lft_stock[k]}\nours:  {got}")
        ours = {k: ask(sim, a) for k, a in valid.items()}
        for k in valid:
            tap.ok(ours[k] == stock[k],
                   f"with the plugin, {k}: the answer is stock OpenSM's",
                   f"stock: {stock[k]}\nours:  {ours[k]}")

        since = sim.log_offset()
        attacks = [
            ("OutputPortNum 255, a GetTable", slvl(GETTABLE, LID | OUT, sw,
                                                   out_port=255),
             ("SUCCESS", 0)),
            ("OutputPortNum 255, a Get", slvl(GET, LID | OUT, sw,
                                              out_port=255),
             ("NO_RECORDS", 0)),
            ("InputPortNum 255", slvl(GETTABLE, LID | IN, sw, in_port=255),
             ("SUCCESS", 0)),
            (f"OutputPortNum {n}, one past the switch's last port",
             slvl(GETTABLE, LID | OUT, sw, out_port=n), ("SUCCESS", 0)),
            (f"InputPortNum {n} with a valid OutputPortNum, a Get",
             slvl(GET, LID | IN | OUT, sw, n, 1), ("NO_RECORDS", 0)),
            ("OutputPortNum 255 without a LID (every port): the end ports'",
             slvl(GETTABLE, OUT, out_port=255), ("SUCCESS", n_ca)),
            ("InputPortNum 200 without a LID: the end ports'",
             slvl(GETTABLE, IN, in_port=200), ("SUCCESS", n_ca)),
        ]
        for what, args, want in attacks:
            got = ask(sim, args, at="cn0003")
            tap.ok(status(got) == want,
                   f"{what}: {want[0]}, {want[1]} records", got)
        tap.ok(sim.osms[-1].popen.poll() is None and
               ask(sim, valid["a switch's last port"]) ==
               stock["a switch's last port"],
               f"after {len(attacks)} attacks OpenSM runs and answers a "
               "valid query as before")
        logged = re.findall(r"vfabric: warning: sa: SLtoVLMappingTableRecord"
                            r" \S+ from LID \d+ names a port number a "
                            r"switch lacks \(OutputPortNum \d+, InputPortNum"
                            r" \d+; .*; (\d+) such requests so far",
                            sim.log_text(since))
        tap.ok(logged == ["1", "2", "4"],
               f"{len(attacks)} such requests logged at the 1st, 2nd and "
               "4th, with the port numbers",
               str(logged) + "\n" + vfsim.tail(sim.osms[-1].log))
        sim.stop_opensm()
    tap.done()


if __name__ == "__main__":
    main()
