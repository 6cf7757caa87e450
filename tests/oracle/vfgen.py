# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""A seeded generator of fabrics and vFabric (opafm.xml-style) files for
the FM oracle tests (fm_model.py): random DeviceGroups over the hosts
(NodeDesc patterns with ranges, wildcards and port ranges, PortGUID and
NodeGUID lists, Select, NodeType, IncludeGroup of earlier groups), random
VirtualFabrics (Security 0/1, explicit P_Keys shared between VFs, automatic
ones, Member/LimitedMember mixes, Standby, disabled ones, per-VF QoS with
an explicit BaseSL or QOSGroups), sometimes in an <Fm> instance, and, in
most files, the FM template's Admin VF
(0x7fff, Security 1, Member AllMgmtAllowed, LimitedMember All), sometimes
Standby or disabled, sometimes with a second VF on 0x7fff.

A file with the Admin VF is one the FM would accept (its SA, PA and PM
applications there, a second VF on 0x7fff with the PA); one without is
the project's own extension (docs/vfabrics.md).  The same seed gives
the same fabric and file.
"""

import random
import re

import topogen

# explicit P_Keys VFs may share, each with the Security all its VFs have
# (one P_Key cannot both isolate limited members and not: docs)
SHARED_PKEYS = [0x0010, 0x0020, 0x0101, 0x1234, 0x7ffe]


def fabric(rnd, max_hosts=None, unpadded=False):
    """A two-level fat tree of 2-4 leaves with 2-4 hosts each, some of
    them storage or admin hosts or renamed, and sometimes a dual-port
    host on two leaves.  unpadded: some hosts named without zero padding
    (cn3, cn16, cn160), for the FM's range rules."""
    leaves = rnd.randint(2, 4)
    hosts = rnd.randint(2, 4)
    if max_hosts:
        while leaves * hosts > max_hosts and hosts > 1:
            hosts -= 1
    storage = rnd.randint(0, min(2, leaves * hosts - 1))
    fab = topogen.fattree2(leaves=leaves, spines=rnd.randint(1, 2),
                           hosts=hosts, storage=storage)
    cas = [n for n in fab.nodes.values() if n.kind == "Hca"]
    for k, n in enumerate(rnd.sample(cas, rnd.randint(0, min(2, len(cas))))):
        n.desc = n.desc.replace(n.id, f"gpu{k + 1:02d}")
    if unpadded:
        names = rnd.sample(["3", "16", "17", "160", "6x", "06"], 3)
        for n, name in zip(rnd.sample(cas, min(3, len(cas))), names):
            n.desc = n.desc.replace(n.id, "cn" + name)
    if rnd.random() < 0.4:
        dual = fab.add_hca("dual01", "dual01 HCA-1", nports=2)
        leaf_ids = [n.id for n in fab.nodes.values()
                    if n.kind == "Switch" and n.id.startswith("L")]
        fab.link(dual.id, leaf_ids[0], 1)
        fab.link(dual.id, leaf_ids[-1], 2)
    return fab


def _fm_bounds_ok(lo, hi):
    """Would the FM's processBracketSyntax take [lo-hi] as written?"""
    def split(s):
        zeros = len(s) - len(s.lstrip("0"))
        digits = len(s) - zeros
        return (0, 1) if digits == 0 and zeros == 1 else (zeros, digits)
    (z1, d1), (z2, d2) = split(lo), split(hi)
    return (0 < d1 <= d2 <= 5 and not (d1 == d2 and z1 != z2) and
            int(lo) <= int(hi))


def _fm_pattern(rnd):
    """The FM's harder forms: ranges without zero padding (the FM captures
    the whole digit run and range-checks it; leading zeros must be
    written), a range followed by a wildcard, runs of '?'."""
    lo = rnd.randint(0, 20)
    hi = rnd.randint(lo, 170)
    # zero-padded bounds the FM takes (processBracketSyntax refuses
    # cn[19-094], cn[08-008] and cn[00-14]): the first valid of these
    padded = next(f"cn[{a}-{b}]*" for a, b in (
        (f"{lo:02d}", f"{hi:03d}"), (f"{lo:03d}", f"{hi:03d}"),
        (str(lo), str(hi))) if _fm_bounds_ok(a, b))
    return rnd.choice([f"cn[{lo}-{hi}]*", f"cn[{lo}-{hi}]?",
                       f"cn[{lo}-{hi}] HCA-1", padded,
                       "cn?? HCA-1", "cn??? HCA-1", "cn?* HCA-1",
                       f"cn[{lo}-{hi}]x*"])


def _pattern(rnd, cas, fm_patterns=False):
    """A NodeDesc pattern in the FM's dialect that matches some hosts."""
    if fm_patterns and rnd.random() < 0.5:
        return _fm_pattern(rnd)
    n = rnd.choice(cas)
    cn = [int(c.desc[2:6]) for c in cas if re.match(r"cn\d{4} ", c.desc)]
    kind = rnd.choice(["range4", "range2", "prefix", "exact", "ques",
                       "ports", "suffix"])
    if kind.startswith("range") and cn:
        lo = rnd.randint(1, max(cn))
        hi = rnd.randint(lo, max(cn) + 2)
        if kind == "range2" and hi < 100:
            return f"cn00[{lo:02d}-{hi:02d}]*"
        return f"cn[{lo:04d}-{hi:04d}]*"
    if kind == "prefix":
        return n.desc[:rnd.randint(2, 5)] + "*"
    if kind == "ques":
        return n.desc[:5] + "?" + n.desc[6:]
    if kind == "ports":
        last = n.nports
        a = rnd.randint(1, last)
        return f"{n.desc}:[{a}-{rnd.randint(a, last)}]"
    if kind == "suffix":
        return "*" + n.desc[-6:]
    return n.desc


def _port_guid(n, port=1):
    return n.guid + port


def device_groups(rnd, fab, fm_patterns=False):
    """[(name, body)]: the template's groups, then random ones."""
    cas = [n for n in fab.nodes.values() if n.kind == "Hca"]
    sws = [n for n in fab.nodes.values() if n.kind == "Switch"]
    dgs = [("All", "<Select>All</Select>"),
           ("Mgmt", "<Select>AllMgmtAllowed</Select>"),
           ("SWE0s", "<Select>SWE0</Select>")]
    for i in range(rnd.randint(2, 7)):
        parts = []
        for _ in range(rnd.randint(1, 3)):
            kind = rnd.choice(["desc", "desc", "desc", "portguid",
                               "nodeguid", "include", "type", "select"])
            if kind == "desc":
                parts.append("<NodeDesc>"
                             f"{_pattern(rnd, cas, fm_patterns)}</NodeDesc>")
            elif kind == "portguid":
                for n in rnd.sample(cas, rnd.randint(1, min(3, len(cas)))):
                    parts.append(f"<PortGUID>0x{_port_guid(n):016x}"
                                 "</PortGUID>")
            elif kind == "nodeguid":
                n = rnd.choice(cas + sws[:1])
                parts.append(f"<NodeGUID>0x{n.guid:016x}</NodeGUID>")
            elif kind == "include" and len(dgs) > 3:
                parts.append("<IncludeGroup>"
                             f"{rnd.choice(dgs[3:])[0]}</IncludeGroup>")
            elif kind == "type":
                parts.append(f"<NodeType>{rnd.choice(['FI', 'SW'])}"
                             "</NodeType>")
            else:
                parts.append(f"<Select>{rnd.choice(['Self', 'SWE0', 'AllMgmtAllowed', 'HFIDirectConnect'])}</Select>")
        if not parts:
            parts.append(f"<NodeDesc>{_pattern(rnd, cas)}</NodeDesc>")
        dgs.append((f"G{i + 1}", "".join(parts)))
    return dgs


def qos_groups(rnd):
    """[(name, BaseSL)] of enabled QOSGroups, or [] (per-VF QoS)."""
    if rnd.random() >= 0.15:
        return []
    return [(f"Q{i + 1}", sl) for i, sl in
            enumerate(rnd.sample(range(0, 15), rnd.randint(1, 3)))]


def virtual_fabrics(rnd, dg_names, qgroups=()):
    """[xml] of the VirtualFabrics, in config order.  With QOSGroups every
    VF names one and has an explicit P_Key (the FM's rule)."""
    security = {pk: rnd.random() < 0.6 for pk in SHARED_PKEYS}
    groups = [g for g in dg_names if g not in ("Mgmt", "SWE0s")]
    sls = rnd.sample(range(1, 15), 14)
    vfs = []
    own_pkeys = iter(range(0x0200, 0x0300))

    def qos():
        return (f"<QOSGroup>{rnd.choice(qgroups)[0]}</QOSGroup>"
                if qgroups else "")
    for i in range(rnd.randint(1, 6)):
        pk = rnd.choice(SHARED_PKEYS) if rnd.random() < 0.5 else None
        if qgroups and pk is None:
            pk = next(own_pkeys)
            security[pk] = rnd.random() < 0.6
        sec = security[pk] if pk else rnd.random() < 0.6
        members = rnd.sample(groups, rnd.randint(0, 2))
        limited = rnd.sample(groups, rnd.randint(0 if members else 1, 2))
        body = [f"<Name>V{i + 1}</Name>"]
        if rnd.random() < 0.92:
            body.append("<Enable>1</Enable>")
        if rnd.random() < 0.08:
            body.append("<Standby>1</Standby>")
        if pk:
            body.append(f"<PKey>0x{pk:04x}</PKey>")
        body.append(f"<Security>{int(sec)}</Security>")
        body += [f"<Member>{g}</Member>" for g in members]
        body += [f"<LimitedMember>{g}</LimitedMember>" for g in limited]
        body += [f"<Application>{a}</Application>" for a in
                 rnd.sample(["Any", "IPoIB"], rnd.randint(1, 2))]
        if qgroups:
            body.append(qos())
        elif rnd.random() < 0.25:
            body.append(f"<QOS>1</QOS><BaseSL>{sls.pop()}</BaseSL>")
        vfs.append("<VirtualFabric>" + "".join(body) + "</VirtualFabric>")
    if rnd.random() < 0.7:
        # now and then the Admin VF is Standby or disabled (the audit's F2)
        state = rnd.choices(["<Enable>1</Enable>",
                             "<Enable>1</Enable><Standby>1</Standby>",
                             "<Enable>0</Enable>"], [8, 1, 1])[0]
        admin = ("<VirtualFabric><Name>Admin</Name>" + state +
                 "<PKey>0x7fff</PKey><Security>1</Security>"
                 "<Member>Mgmt</Member>" +
                 ("<Member>SWE0s</Member>" if rnd.random() < 0.5 else "") +
                 "<LimitedMember>All</LimitedMember>" + qos() +
                 "<Application>SA</Application><Application>PA</Application>"
                 "<Application>PM</Application></VirtualFabric>")
        vfs.insert(rnd.randint(0, len(vfs)), admin)
        if rnd.random() < 0.2:
            extra = ("<VirtualFabric><Name>Admin2</Name><Enable>1</Enable>"
                     "<PKey>0x7fff</PKey><Security>1</Security>"
                     f"<Member>{rnd.choice(groups)}</Member>" + qos() +
                     "<Application>PA</Application></VirtualFabric>")
            vfs.insert(rnd.randint(0, len(vfs)), extra)
    # a file without an active VF is refused, as an empty one
    # (partition/fmmgmt.c): keep the first VF active then (no draw from
    # rnd, so other seeds' files stay as they were)
    if not any("<Enable>1</Enable>" in v and "<Standby>1</Standby>" not in v
               for v in vfs):
        name_end = vfs[0].index("</Name>") + len("</Name>")
        vfs[0] = (vfs[0][:name_end] + "<Enable>1</Enable>" +
                  vfs[0][name_end:].replace("<Standby>1</Standby>", "")
                  .replace("<Enable>1</Enable>", "")
                  .replace("<Enable>0</Enable>", ""))
    return vfs


APPS = ("<Applications>"
        "<Application><Name>Any</Name><Select>UnmatchedServiceID</Select>"
        "<Select>UnmatchedMGID</Select></Application>"
        "<Application><Name>SA</Name><Select>SA</Select></Application>"
        "<Application><Name>PM</Name><Select>PM</Select></Application>"
        "<Application><Name>PA</Name>"
        "<ServiceID>0x1100d03c34845555</ServiceID></Application>"
        "<Application><Name>IPoIB</Name><MGIDMasked>"
        "0xff00401b00000000:0*0xff00ffff0000ffff:0xffffffff00000000"
        "</MGIDMasked></Application></Applications>")


def generate(seed, max_hosts=None, fm_patterns=False):
    """(fabric, XML text, SM host id) for a seed; fm_patterns: host names
    and NodeDesc patterns for the FM's range and '?' rules too."""
    rnd = random.Random(seed)
    fab = fabric(rnd, max_hosts, fm_patterns)
    dgs = device_groups(rnd, fab, fm_patterns)
    qgroups = qos_groups(rnd)
    vfs = virtual_fabrics(rnd, [name for name, _ in dgs], qgroups)
    qos = ("<QOSGroups>" + "".join(
        f"<QOSGroup><Name>{n}</Name><Enable>1</Enable><BaseSL>{sl}</BaseSL>"
        "</QOSGroup>" for n, sl in qgroups) + "</QOSGroups>\n"
        if qgroups else "")
    # the VirtualFabrics in an <Fm> instance now and then: its lists
    # append to Common's
    split = rnd.random() < 0.2
    text = ("<?xml version=\"1.0\"?>\n<!-- vfgen seed "
            f"{seed} -->\n<Config><Common>\n{APPS}\n<DeviceGroups>\n" +
            "".join(f"<DeviceGroup><Name>{n}</Name>{b}</DeviceGroup>\n"
                    for n, b in dgs) + "</DeviceGroups>\n" + qos +
            ("</Common><Fm>\n" if split else "") +
            "<VirtualFabrics>\n" + "\n".join(vfs) +
            "\n</VirtualFabrics>\n" + ("</Fm>" if split else "</Common>") +
            "</Config>\n")
    cas = [n for n in fab.nodes.values() if n.kind == "Hca"]
    return fab, text, rnd.choice(cas).id
