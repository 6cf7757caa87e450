#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Security of the SA with the plugin, end to end on ibsim: stock OpenSM
with the plugin, a policy with two secure tenants (TenantA cn0002-cn0006,
TenantB cn0007-cn0011) and a secure Storage VF whose full members are
the servers (stor01, stor02) and whose limited members are both tenants;
cn0012-cn0014 are in no VF, and the SM runs on cn0001 (in no VF either).
Every request is sent from a host with vfabric-sa (its raw mode for
ServiceRecord, InformInfo and malformed MADs).

1. A limited member of the secure VF gets no path to another limited
   member: by LID and by GID, Get and GetTable, MultiPathRecord, with
   the VF's ServiceID, with its P_Key (limited or full form), and asked
   by a third port that is a full member.
2. Ports outside a tenant get no path records for its members, as
   source or as requester (C15-0.1.21), and cannot join or create its
   multicast groups, nor join on a member's behalf.  Unconfigured ports
   are full members of the default partition by OpenSM's rule, which
   C15-0.1.21 lets ask for anyone's paths; with disconnect_unconfigured
   they are limited and get nothing (a second OpenSM run).
3. Spoofing another port's GID, each against the rule OpenSM 3.3.23
   quotes from the IBA: MCMemberRecord modify and leave of another
   port's membership (o15-0.2.1, o15-0.1.14), also with the SM_Key; a
   proxy join from outside the partition; a wrong SM_Key (C15-0.1.5);
   ServiceRecord Set and Delete of another port's service; InformInfo
   for another port (o13-14.1.1) and for security traps (C15-0.2-1.16).
   What stock OpenSM's own handlers answer is asserted as it is and
   documented in docs/sa.md, weaknesses included.
4. Malformed MADs: bad base and class versions, unknown methods and
   attributes, bad component masks, truncated MADs, RMPP flags where
   none belong and missing where they must be: each gets its status, or,
   where OpenSM (or ibsim) drops it, no answer, the drop's log line, and
   a valid query answered right after.  OpenSM stays alive throughout
   and exits cleanly.
"""

import os
import re

import topogen
import vfsim
import vftest

SA = vftest.VFABRIC_SA
PK_A, PK_B, PK_S = 0x0a0a, 0x0b0b, 0x0c0c
FULL = 0x8000
STORAGE_SID = "0x10603DB"
BCAST_A = f"ff12:401b:{PK_A | FULL:04x}::ffff:ffff"
SA_KEY = "0x1"              # OpenSM's default sa_key (OSM_DEFAULT_SA_KEY)

POLICY = f"""<?xml version="1.0"?>
<Config><Common>
<Applications>
 <Application><Name>AllOthers</Name><Select>UnmatchedServiceID</Select>
  <Select>UnmatchedMGID</Select></Application>
 <Application><Name>IPoIB</Name>
  <MGIDMasked>0xff00401b00000000:0*0xff00ffff0000ffff:0xffffffff00000000</MGIDMasked>
 </Application>
 <Application><Name>Storage</Name><ServiceID>{STORAGE_SID}</ServiceID></Application>
</Applications>
<DeviceGroups>
 <DeviceGroup><Name>TenantA</Name><NodeDesc>cn[0002-0006]*</NodeDesc></DeviceGroup>
 <DeviceGroup><Name>TenantB</Name><NodeDesc>cn[0007-0011]*</NodeDesc></DeviceGroup>
 <DeviceGroup><Name>Servers</Name><NodeDesc>stor*</NodeDesc></DeviceGroup>
</DeviceGroups>
<VirtualFabrics>
 <VirtualFabric><Name>TenantA</Name><Enable>1</Enable><Security>1</Security>
  <PKey>{PK_A:#06x}</PKey><Member>TenantA</Member>
  <Application>AllOthers</Application><Application>IPoIB</Application>
 </VirtualFabric>
 <VirtualFabric><Name>TenantB</Name><Enable>1</Enable><Security>1</Security>
  <PKey>{PK_B:#06x}</PKey><Member>TenantB</Member>
  <Application>AllOthers</Application><Application>IPoIB</Application>
 </VirtualFabric>
 <VirtualFabric><Name>Storage</Name><Enable>1</Enable><Security>1</Security>
  <PKey>{PK_S:#06x}</PKey><Member>Servers</Member>
  <LimitedMember>TenantA</LimitedMember><LimitedMember>TenantB</LimitedMember>
  <Application>Storage</Application></VirtualFabric>
</VirtualFabrics>
</Common></Config>
"""


class Fabric:
    """One OpenSM with the plugin and the policy; vfabric-sa from hosts."""

    def __init__(self, sim, conf, options=""):
        self.sim = sim
        self.osm = sim.start_opensm(conf_lines=vftest.plugin_conf(
            engine="fattree",
            options=f"log_level=info sa_log=on config={conf}{options}"),
            plugin_dir=vftest.PLUGIN_DIR)
        sim.wait_subnet_up()
        sim.wait_log(r"verified as planned")
        nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
        self.lid, self.guid = {}, {}
        for g, n in nodes.items():
            if n["kind"] == "Ca":
                host = n["desc"].split()[0]
                self.lid[host] = n["lid"]
                self.guid[host] = g + 1

    def arg(self, a):
        """L:host -> its LID, G:host -> its GUID, others as given."""
        a = str(a)
        if a.startswith("L:"):
            return str(self.lid[a[2:]])
        if a.startswith("G:"):
            return hex(self.guid[a[2:]])
        return a

    def ask(self, at, *args):
        """vfabric-sa at host `at`: (status name or None for no answer,
        [record dicts], data hex of a raw answer)."""
        out = self.sim.run_diag([SA] + [self.arg(a) for a in args],
                                node=at, check=False)
        m = re.match(r"status 0x[0-9a-f]+ (\S+) records", out)
        if not m:
            return (None, [], "")
        recs = [dict(kv.split("=", 1) for kv in ln.split())
                for ln in out.splitlines()[1:]
                if "=" in ln and not ln.startswith("data=")]
        data = re.search(r"^data=([0-9a-f]*)$", out, re.M)
        return (m.group(1), recs, data.group(1) if data else "")

    def path(self, at, *args):
        st, recs, _ = self.ask(at, *args)
        return st, [(int(r["pkey"], 16), int(r["sl"])) for r in recs]

    def gid_hex(self, host):
        return f"fe80000000000000{self.guid[host]:016x}"

    def alive(self):
        return self.osm.alive()


# --- 1. the secure VF's limited members -------------------------------

def limited_members(t, f):
    st, recs = f.path("cn0002", "path", "--slid", "L:cn0002", "--dlid",
                      "L:stor01", "--sid", STORAGE_SID)
    t.ok(st == "SUCCESS" and [p for p, _ in recs] == [PK_S],
         "control: a limited member (cn0002) gets a path to a full member "
         "(stor01) in the secure Storage VF, P_Key 0x0c0c (its limited "
         "entry)", f"{st} {recs}")
    st, recs = f.path("cn0002", "path", "--slid", "L:cn0002", "--dlid",
                      "L:cn0003")
    t.ok(st == "SUCCESS" and recs == [(PK_A | FULL, 0)],
         "control: cn0002 and cn0003 (TenantA, limited in Storage) get "
         "their tenant's path only", f"{st} {recs}")
    ends = {"by LID": ["--slid", "L:cn0002", "--dlid", "L:cn0008"],
            "by GID": ["--sgid", "G:cn0002", "--dgid", "G:cn0008"]}
    cases = []
    for how, e in ends.items():
        cases += [
            (f"GetTable {how} with Storage's ServiceID", e +
             ["--sid", STORAGE_SID], "SUCCESS"),
            (f"Get {how} with Storage's ServiceID", e +
             ["--sid", STORAGE_SID, "--get"], "NO_RECORDS"),
            (f"GetTable {how} with Storage's P_Key (limited form)", e +
             ["--pkey", hex(PK_S)], "SUCCESS"),
            (f"GetTable {how} with Storage's P_Key (full form)", e +
             ["--pkey", hex(PK_S | FULL)], "SUCCESS"),
            (f"Get {how} with P_Key and ServiceID", e +
             ["--pkey", hex(PK_S), "--sid", STORAGE_SID, "--get"],
             "NO_RECORDS"),
            (f"GetTable {how}, nothing else given", e, "SUCCESS")]
    cases += [("two limited members of one tenant (cn0002, cn0003) with "
               "Storage's ServiceID", ["--slid", "L:cn0002", "--dlid",
                                      "L:cn0003", "--sid", STORAGE_SID],
               "SUCCESS"),
              ("... with Storage's P_Key", ["--slid", "L:cn0002", "--dlid",
                                           "L:cn0003", "--pkey",
                                           hex(PK_S)], "SUCCESS")]
    for what, args, want in cases:
        st, recs = f.path("cn0002", "path", *args)
        t.ok(st == want and recs == [], f"limited to limited in the "
             f"secure VF, {what}: {want}, no record", f"{st} {recs}")
    for what, extra in [("with the ServiceID", ["--sid", STORAGE_SID]),
                        ("with the P_Key", ["--pkey", hex(PK_S)])]:
        st, recs = f.path("cn0002", "mpath", "--sgids", "G:cn0002",
                          "--dgids", "G:cn0008", *extra)
        t.ok(st == "SUCCESS" and recs == [], "MultiPathRecord limited to "
             f"limited {what}: no record", f"{st} {recs}")
    st, recs = f.path("stor01", "path", "--slid", "L:cn0002", "--dlid",
                      "L:cn0008", "--sid", STORAGE_SID)
    t.ok(st == "SUCCESS" and recs == [], "asked by a full member of the "
         "VF (stor01): still no path between the two limited members",
         f"{st} {recs}")


# --- 2. outside a tenant -------------------------------------------------

def outside(t, f):
    a_pair = ["--slid", "L:cn0002", "--dlid", "L:cn0003"]
    st, recs = f.path("cn0004", "path", *a_pair)
    t.ok(st == "SUCCESS" and recs == [(PK_A | FULL, 0)], "control: a "
         "TenantA host asks for a path between two others: answered",
         f"{st} {recs}")
    st, recs = f.path("cn0008", "path", *a_pair)
    t.ok(st == "SUCCESS" and recs == [], "a TenantB host asks for the same "
         "path: no record (C15-0.1.21: it shares no P_Key with either end "
         "with a full member on one side)", f"{st} {recs}")
    st, recs = f.path("cn0008", "path", "--sgid", "G:cn0002", "--dgid",
                      "G:cn0003", "--get")
    t.ok(st == "NO_RECORDS", "... as a Get by GID: NO_RECORDS", st)
    st, recs = f.path("cn0008", "mpath", "--sgids", "G:cn0002", "--dgids",
                      "G:cn0003")
    t.ok(st == "SUCCESS" and recs == [], "... as a MultiPathRecord: no "
         "record", f"{st} {recs}")
    st, recs = f.path("cn0008", "path", "--slid", "L:cn0008")
    dl = {f.lid[h] for h in ("cn0002", "cn0003", "cn0004", "cn0005",
                             "cn0006")}
    got = f.sim.log_text(0)
    last = re.findall(r"sa: PathRecord GetTable from LID " +
                      str(f.lid["cn0008"]) + r" \(comp_mask 0x20, [^)]*\): "
                      r"\d+ records:([^\n]*)", got)
    dlids = {int(r.split(">")[1].split("/")[0])
             for r in (last[-1].split() if last else []) if ">" in r}
    t.ok(st == "SUCCESS" and last and not dlids & dl and dlids,
         "a TenantB host's GetTable to every port: none of TenantA's "
         "hosts among its destinations (whole answer from sa_log)",
         f"{st} {sorted(dlids)}")
    for host, who in (("cn0008", "a TenantB host"),
                      ("cn0013", "a host in no VF")):
        st, _, _ = f.ask(host, "join", "--mgid", BCAST_A, "--pkey",
                         hex(PK_A | FULL))
        t.ok(st == "REQ_INVALID", f"{who} cannot join TenantA's IPoIB "
             "broadcast group: REQ_INVALID", st)
    st, _, _ = f.ask("cn0008", "join", "--create", "--mgid", "ff15::a:1",
                     "--pkey", hex(PK_A | FULL))
    t.ok(st == "REQ_INVALID", "a TenantB host cannot create a group in "
         "TenantA's partition", st)
    st, _, _ = f.ask("cn0008", "join", "--mgid", BCAST_A, "--pkey",
                     hex(PK_A | FULL), "--port-gid", "G:cn0003")
    t.ok(st == "REQ_INVALID", "nor join a TenantA host to it by proxy "
         "(PortGID cn0003)", st)
    st, _, _ = f.ask("cn0003", "join", "--create", "--mgid", "ff15::a:1",
                     "--pkey", hex(PK_A | FULL))
    t.ok(st == "SUCCESS", "control: a TenantA host creates that group",
         st)
    st, _, _ = f.ask("cn0003", "leave", "--mgid", "ff15::a:1")
    t.ok(st == "SUCCESS", "... and leaves it", st)
    # hosts in no VF are full members of the default partition (OpenSM's
    # rule, kept unless disconnect_unconfigured): they share a P_Key with
    # everybody, so C15-0.1.21 lets them ask for anyone's path
    st, recs = f.path("cn0013", "path", "--slid", "L:cn0013", "--dlid",
                      "L:cn0003")
    t.ok(st == "SUCCESS" and recs == [], "a host in no VF gets no path to "
         "a TenantA host (the default partition is no VF's)",
         f"{st} {recs}")
    st, recs = f.path("cn0013", "path", *a_pair)
    t.ok(st == "SUCCESS" and recs == [(PK_A | FULL, 0)],
         "as a requester it does get TenantA's path: it is a full member "
         "of the default partition, which both ends hold (documented; "
         "disconnect_unconfigured=on stops it, below)", f"{st} {recs}")


def unconfigured_disconnected(t, sim, conf):
    f = Fabric(sim, conf, " disconnect_unconfigured=on")
    table = {k for k in sim.pkeys(f.lid["cn0013"]) if k}
    t.ok(table == {0x7fff}, "disconnect_unconfigured=on: a host in no VF "
         "is a limited member of the default partition only",
         str(sorted(map(hex, table))))
    st, recs = f.path("cn0013", "path", "--slid", "L:cn0002", "--dlid",
                      "L:cn0003")
    t.ok(st == "SUCCESS" and recs == [], "... and gets no path record for "
         "TenantA's hosts as a requester", f"{st} {recs}")
    st, _, _ = f.ask("cn0013", "join", "--mgid", BCAST_A, "--pkey",
                     hex(PK_A | FULL))
    t.ok(st == "REQ_INVALID", "... nor joins TenantA's group", st)
    rc = sim.stop_opensm()
    t.ok(rc == 0, f"that OpenSM exits cleanly (rc {rc})")


# --- 3. spoofing another port's GID ------------------------------------

def mcast_spoofing(t, f):
    join = ["join", "--mgid", BCAST_A, "--pkey", hex(PK_A | FULL)]
    st, recs, _ = f.ask("cn0002", *join)
    t.ok(st == "SUCCESS" and recs and recs[0]["port_gid"].endswith(
        f"{f.guid['cn0002'] & 0xffff:x}"), "cn0002 joins TenantA's group "
        "itself", f"{st} {recs}")
    st, _, _ = f.ask("cn0003", *join, "--port-gid", "G:cn0002",
                     "--join-state", "3")
    t.ok(st == "REQ_INVALID", "cn0003 (same partition) changes cn0002's "
         "membership (JoinState 3): REQ_INVALID (o15-0.2.1: no ProxyJoin, "
         "the requester is not the PortGID)", st)
    leave = ["leave", "--mgid", BCAST_A, "--port-gid", "G:cn0002"]
    for host, extra, why in [
            ("cn0003", [], "a port of the same partition"),
            ("cn0003", ["--sm-key", SA_KEY], "the same with the SM_Key "
             "(OpenSM 3.3.23 gives it no override here)"),
            ("cn0008", [], "a TenantB port")]:
        st, _, _ = f.ask(host, *leave, *extra)
        t.ok(st == "REQ_INVALID", f"a leave of cn0002's membership from "
             f"{why}: REQ_INVALID (o15-0.1.14)", st)
    st, _, _ = f.ask("cn0002", "leave", "--mgid", BCAST_A)
    again, _, _ = f.ask("cn0002", "leave", "--mgid", BCAST_A)
    t.ok(st == "SUCCESS" and again == "REQ_INVALID", "cn0002 was still a "
         "member: its own leave succeeds, a second one is refused",
         f"{st} {again}")
    st, recs, _ = f.ask("cn0003", *join, "--port-gid", "G:cn0004")
    t.ok(st == "SUCCESS" and recs and recs[0]["port_gid"].endswith(
        f"{f.guid['cn0004'] & 0xffff:x}"), "a proxy join within the "
        "partition (cn0003 for cn0004) is accepted, as the IBA allows",
        f"{st} {recs}")
    st, _, _ = f.ask("cn0008", "leave", "--mgid", BCAST_A, "--port-gid",
                     "G:cn0004")
    t.ok(st == "REQ_INVALID", "that proxy membership cannot be left by a "
         "port outside the partition (o15-0.1.14)", st)
    st, _, _ = f.ask("cn0005", "leave", "--mgid", BCAST_A, "--port-gid",
                     "G:cn0004")
    t.ok(st == "SUCCESS", "... and can by a port of the partition (the "
         "stored ProxyJoin is set)", st)
    since = f.sim.log_offset()
    st, _, _ = f.ask("cn0002", *join, "--sm-key", "0x5a5a", "--timeout",
                     "1000", "--retries", "0")
    t.ok(st is None and "ERR 1A04:" in f.sim.log_text(since),
         "a join with a wrong (non-zero) SM_Key: dropped without an answer "
         "(C15-0.1.5), ERR 1A04 logged", st)


def sr_data(f, sid, host, pkey):
    """A ServiceRecord: ServiceID, ServiceGID, ServiceP_Key, lease
    infinite, ServiceName 'vfsec'."""
    return (f"{sid:016x}{f.gid_hex(host)}{pkey:04x}0000ffffffff"
            + "00" * 16 + b"vfsec".ljust(64, b"\0").hex())


SR_SID, SR_GID, SR_PKEY, SR_NAME = 1, 2, 4, 0x40


def service_records(t, f):
    rec = sr_data(f, 0x1122334455667788, "cn0002", PK_A | FULL)

    def sr(at, method, mask, data=rec):
        return f.ask(at, "raw", "--attr-id", "0x31", "--method", method,
                     "--comp-mask", hex(mask), "--data", data)

    all_bits = SR_SID | SR_GID | SR_PKEY | SR_NAME
    st, _, data = sr("cn0002", "0x02", all_bits)
    t.ok(st == "SUCCESS" and data.startswith(rec[:56]), "cn0002 registers "
         "a ServiceRecord for itself in TenantA's partition", f"{st}")
    st, _, data = sr("cn0004", "0x12", SR_SID)
    t.ok(st == "SUCCESS" and data.startswith(rec[:56]), "a TenantA host "
         "sees it", st)
    st, recs, data = sr("cn0008", "0x12", SR_SID)
    t.ok(st == "SUCCESS" and not data, "a TenantB host does not", st)
    st, _, _ = sr("cn0008", "0x15", all_bits)
    t.ok(st == "REQ_INVALID", "a TenantB host's Delete of it naming the "
         "ServiceP_Key: REQ_INVALID (it does not hold the P_Key)", st)
    spoof = sr_data(f, 0x98, "cn0002", PK_A | FULL)
    st, _, _ = sr("cn0008", "0x02", all_bits, spoof)
    t.ok(st == "REQ_INVALID", "a TenantB host's Set of a service for "
         "cn0002's GID in TenantA's partition: REQ_INVALID", st)
    # OpenSM 3.3.23 checks the P_Key only when its component bit is set,
    # while its Delete matches the stored record by ServiceID, ServiceGID
    # and ServiceP_Key whatever the mask: the plugin checks it always
    st, _, _ = sr("cn0008", "0x15", SR_SID | SR_GID)
    seen, _, data = sr("cn0004", "0x12", SR_SID)
    t.ok(st == "REQ_INVALID" and seen == "SUCCESS" and
         data.startswith(rec[:56]),
         "the same Delete without the P_Key bit: REQ_INVALID (plugin), "
         "the record still there", f"{st} {seen} {data[:40]}")
    try:
        said = f.sim.wait_log(r"ServiceRecord Delete of ServiceID "
                              r"0x1122334455667788 .* refused: the "
                              r"requester does not hold its ServiceP_Key",
                              timeout=10)
    except vfsim.SimError:
        said = None
    t.ok(said, "... logged with the reason")
    free = sr_data(f, 0x99, "cn0002", 0)
    st, _, _ = sr("cn0008", "0x02", SR_SID | SR_GID | SR_NAME, free)
    t.ok(st == "REQ_INVALID", "a TenantB host's Set for cn0002's GID "
         "without a ServiceP_Key: REQ_INVALID (plugin: they share no "
         "P_Key)", st)
    st, _, _ = sr("cn0004", "0x02", SR_SID | SR_GID | SR_NAME, free)
    t.ok(st == "SUCCESS", "a TenantA host may register a service for "
         "cn0002, a port it shares a P_Key with", st)
    st, _, _ = sr("cn0008", "0x15", SR_SID | SR_GID | SR_NAME, free)
    t.ok(st == "REQ_INVALID", "... which a TenantB host cannot delete", st)
    st, _, _ = sr("cn0004", "0x15", SR_SID | SR_GID | SR_NAME, free)
    t.ok(st == "SUCCESS", "... and the TenantA host can", st)
    st, _, _ = sr("cn0004", "0x15", SR_SID | SR_GID)
    seen, _, data = sr("cn0004", "0x12", SR_SID)
    t.ok(st == "SUCCESS" and seen == "SUCCESS" and not data,
         "a TenantA host (holding the P_Key) deletes cn0002's first "
         "record without the P_Key bit: it is gone", f"{st} {seen}")


def inform_data(gid_hex, subscribe, trap=64, lid=0):
    """InformInfo: GID, LIDRangeBegin/End, IsGeneric 1, Subscribe, Type
    all, TrapNumber, QPN 1."""
    return (gid_hex + f"{lid:04x}0000" + "0000" + "01" + f"{subscribe:02x}"
            + "ffff" + f"{trap:04x}" + "00000100" + "00000000")


def inform_info(t, f):
    def ii(at, data):
        return f.ask(at, "raw", "--attr-id", "0x03", "--method", "0x02",
                     "--data", data)[0]

    st = ii("cn0008", inform_data(f.gid_hex("cn0002"), 1))
    t.ok(st == "REQ_INVALID", "InformInfo Set from a TenantB host for "
         "traps of cn0002's GID: REQ_INVALID (o13-14.1.1: requester and "
         "trap source must share a partition)", st)
    st = ii("cn0008", inform_data("00" * 16, 1, lid=f.lid["cn0002"]))
    t.ok(st == "REQ_INVALID", "... naming cn0002 by LID range: "
         "REQ_INVALID", st)
    st = ii("cn0003", inform_data(f.gid_hex("cn0002"), 1))
    unsub = ii("cn0003", inform_data(f.gid_hex("cn0002"), 0))
    t.ok(st == "SUCCESS" and unsub == "SUCCESS", "control: a TenantA host "
         "subscribes to them and unsubscribes", f"{st} {unsub}")
    st = ii("cn0003", inform_data("00" * 16, 1, trap=256, lid=0xffff))
    t.ok(st == "REQ_INVALID", "a subscription to security trap 256 without "
         "the SM_Key: REQ_INVALID (C15-0.2-1.16)", st)


# --- 4. malformed MADs --------------------------------------------------

VALID = ["path", "--slid", "L:cn0002", "--dlid", "L:cn0003"]
QUICK = ["--timeout", "1000", "--retries", "0"]

IBSIM_DROP = ("ibsim", r"decode_sim_MAD: bad smp headers")

# (what, vfabric-sa args, expected status or None: dropped, where the drop
# is logged: ("opensm" or "ibsim", regex))
MALFORMED = [
    ("base version 2 (dropped by ibsim before OpenSM)",
     VALID + ["--base-version", "2"], None, IBSIM_DROP),
    ("SA class version 1 on PathRecord (the plugin's handler)",
     VALID + ["--class-version", "1"], "UNSUP_CLASS_VER", None),
    ("SA class version 1 on MultiPathRecord",
     ["mpath", "--sgids", "G:cn0002", "--dgids", "G:cn0003",
      "--class-version", "1"], "UNSUP_CLASS_VER", None),
    ("SA class version 1 on an MCMemberRecord join",
     ["join", "--mgid", BCAST_A, "--pkey", hex(PK_A | FULL),
      "--class-version", "1"], "UNSUP_CLASS_VER", None),
    ("SA class version 3 (dropped by ibsim before OpenSM)",
     VALID + ["--class-version", "3"], None, IBSIM_DROP),
    ("unknown method 0x05", VALID + ["--method", "0x05"], None,
     ("opensm", r"ERR 1A05: Unsupported method = 0x5")),
    ("a Report (0x06) to the SA", VALID + ["--method", "0x06"], None,
     ("opensm", r"ERR 1A05: Unsupported method = 0x6")),
    ("a GetResp (0x81) sent as a request", VALID + ["--method", "0x81"],
     None, ("opensm", r"ERR 5413: Failed to obtain request madw")),
    ("unknown attribute 0x00ff", VALID + ["--attr-id", "0x00ff"], None,
     ("opensm", r"ERR 1A01: Unsupported attribute 0xFF")),
    ("NodeRecord Set (no Set handler)",
     ["raw", "--attr-id", "0x11", "--method", "0x02"], None,
     ("opensm", r"ERR 1A02: Dispatcher post message failed")),
    ("ServiceRecord GetMulti", ["raw", "--attr-id", "0x31", "--method",
                                "0x14"], "UNSUP_METHOD_ATTR", None),
    ("PathRecord GetMulti", VALID + ["--method", "0x14"],
     "UNSUP_METHOD_ATTR", None),
    ("a reserved PathRecord component bit (7)",
     VALID + ["--comp-mask", "0xb0"], "REQ_INVALID", None),
    ("one ServiceID component bit alone",
     VALID + ["--comp-mask", "0x31"], "INSUF_COMPS", None),
    ("a MultiPathRecord without the RMPP active flag",
     ["mpath", "--sgids", "G:cn0002", "--dgids", "G:cn0003",
      "--rmpp-flags", "0"], "REQ_INVALID", None),
    ("MultiPathRecord SGIDCount 0 (component mask without the GIDs)",
     ["mpath", "--sgids", "G:cn0002", "--dgids", "G:cn0003",
      "--comp-mask", "0x0"], "INSUF_COMPS", None),
]


def malformed(t, f):
    valid_answer = f.path("cn0002", *VALID)
    t.ok(valid_answer[0] == "SUCCESS" and valid_answer[1],
         "the valid query used as the check after each malformed one",
         str(valid_answer))
    for what, args, want, drop in MALFORMED:
        since = f.sim.log_offset()
        since_ibsim = vfsim.file_size(f.sim.ibsim_out)
        st, _, _ = f.ask("cn0002", *(args + (QUICK if want is None
                                              else [])))
        log = {"opensm": f.sim.log_text(since),
               "ibsim": vfsim.read_from(f.sim.ibsim_out, since_ibsim)}
        after = f.path("cn0002", *VALID)
        ok = st == want and f.alive() and after == valid_answer
        if drop:
            ok = ok and re.search(drop[1], log[drop[0]])
        t.ok(ok, f"{what}: " + (want or f"no answer ({drop[0]} logs "
                                        f"/{drop[1]}/)") +
             "; OpenSM answers the valid query right after",
             f"got {st}, after {after}\n{log['opensm'][-600:]}")
    # a truncated MAD: the simulated transport pads it with zeros, so the
    # SA sees the zero-padded request and must answer it as such
    for n, what in ((40, "inside the SA header (no component mask left)"),
                    (100, "inside the PathRecord (SLID, DLID kept)")):
        cut = f.ask("cn0002", *VALID, "--send-len", str(n))
        whole = f.ask("cn0002", *VALID, *(["--comp-mask", "0"]
                                           if n == 40 else []))
        t.ok(cut[0] == "SUCCESS" and cut[:2] == whole[:2] and f.alive(),
             f"a MAD cut to {n} bytes, {what}: answered as the "
             "zero-padded request", f"{cut[:2]} vs {whole[:2]}")
    for flags in ("0x01", "0x07"):
        st = f.path("cn0002", *VALID, "--rmpp-flags", flags)
        t.ok(st == valid_answer, f"RMPP flags {flags} on a one-MAD "
             "PathRecord request: ignored, answered as without", str(st))
    st = f.path("cn0002", *VALID, "--sm-key", SA_KEY)
    t.ok(st == valid_answer, "the right SM_Key (OpenSM's sa_key): "
         "answered as without", str(st))


def main():
    t = vfsim.Tap()
    vftest.start(t)
    if not os.access(SA, os.X_OK):
        t.skip_all(f"vfabric-sa not built ({SA})")
    net = topogen.fattree2(leaves=4, spines=2, hosts=4, storage=2)
    with vfsim.Sim(net, "security", tap=t) as sim:
        sim.start_ibsim()
        conf = os.path.join(sim.workdir, "vf.xml")
        with open(conf, "w") as fh:
            fh.write(POLICY)
        f = Fabric(sim, conf)
        tables = {h: {k for k in sim.pkeys(f.lid[h]) if k}
                  for h in ("cn0002", "cn0008", "stor01", "cn0013")}
        t.ok(tables == {"cn0002": {0x7fff, PK_A | FULL, PK_S},
                        "cn0008": {0x7fff, PK_B | FULL, PK_S},
                        "stor01": {0x7fff, PK_S | FULL},
                        "cn0013": {0xffff}},
             "P_Key tables as the policy says: tenants full in their own "
             "partition, limited in Storage; servers full in Storage; a "
             "host in no VF full in the default partition",
             str({h: sorted(map(hex, v)) for h, v in tables.items()}))
        limited_members(t, f)
        outside(t, f)
        mcast_spoofing(t, f)
        service_records(t, f)
        inform_info(t, f)
        malformed(t, f)
        log = sim.log_text()
        t.ok(f.alive() and "vfabric: sa:" in log and
             "request of SA class version 1" in log,
             "OpenSM with the plugin ran through all of it")
        rc = sim.stop_opensm()
        t.ok(rc == 0, f"OpenSM exits cleanly (rc {rc})")
        unconfigured_disconnected(t, sim, conf)
    t.done()


if __name__ == "__main__":
    main()
