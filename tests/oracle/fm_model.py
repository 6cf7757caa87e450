# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""An independent model of what the Omni-Path FM programs into P_Key
tables from a vFabric file, written from reference/opa-fm.md (sections
1.3, 1.3.1, 1.5, 1.6, 1.9) and the FM's source (sm_partMgr.c:
smSetupNodeVFs, smProcessVFNodeMembers, sm_compute_portPkeys,
sm_set_port_stl_mngnt_pkey; sm_utility.c: convertWildcardedString,
processBracketSyntax, isNumberInRange), NOT from this project's C code.
It is the oracle the vFabric tests compare `vfabric resolve` and the
tables read back from ibsim with.

What it answers, per end port (a linked CA port, or a switch's port 0):
the set of P_Keys with their membership bit, and the P_Key at index 0.
Per VF: its P_Key (explicit, or taken from the implementation for
automatic ones: `auto_pkeys`) and its SL where the file fixes it.

Where InfiniBand/OpenSM cannot do what the FM does, the project deviates
on purpose (docs/vfabrics.md); each deviation is modelled here by name,
in DEVIATIONS, so a disagreement is never silently absorbed.
"""

import re
import xml.etree.ElementTree as ET

FULL = 0x8000
MGMT = 0x7fff

DEVIATIONS = {
    # InfiniBand has no PortNeighborMode.MgmtAllowed: the project's
    # AllMgmtAllowed selects the SM's own node (docs/vfabrics.md).
    "MGMT_ALLOWED_IS_SM_NODE",
    # IB has no TFIs.
    "NO_TFIS",
    # SWE0: every switch's port 0 (IB switches answer there, enhanced or
    # not).
    "SWE0_ALL_SWITCHES",
    # OpenSM manages through the SM's port and switch port 0s: both are
    # full members of 0x7fff whatever the Admin VF says (the FM gives a
    # non-enhanced switch port 0 the full management key too).
    "SM_AND_SWITCH_PORT0_FULL_MGMT",
    # A file with no VF on 0x7fff (the FM refuses it: no SA VF) gets
    # stock OpenSM's default partition: hosts some VF names limited,
    # others full (limited with disconnect_unconfigured).
    "NO_ADMIN_VF_STOCK_DEFAULT",
    # A file that writes a VF on 0x7fff (the FM's Admin VF) but has none
    # active (Standby or disabled; the FM refuses it: no active SA VF):
    # hosts no active VF makes full stay limited members of 0x7fff, not
    # stock OpenSM's full (fail closed: the Admin VF's intent holds).
    "INACTIVE_ADMIN_VF_LIMITED",
    # A port in no non-admin VF: the FM leaves index 0 empty and puts
    # 0x7fff at index 1; OpenSM puts the default partition at index 0.
    "INDEX0_DEFAULT_WHEN_NO_VF",
    # The FM's full management member holds 0x7fff and 0xffff; OpenSM's
    # full member holds 0xffff only.
    "FULL_MGMT_ONE_ENTRY",
}

CHARS = r"_,=.a-zA-Z0-9\s-"


# --- the fabric ----------------------------------------------------------

class Node:
    def __init__(self, kind, nid, desc, guid, nports, sysimg=0):
        self.kind, self.id, self.desc = kind, nid, desc
        self.guid, self.nports, self.sysimg = guid, nports, sysimg
        self.links = {}         # port -> (peer id or guid, peer port)
        self.port_guids = {}    # port -> GUID


class EndPort:
    def __init__(self, node, num, guid):
        self.node, self.num, self.guid = node, num, guid

    def __repr__(self):
        return f"{self.node.desc}:{self.num}"


def read_fabric(path):
    """Nodes of an ibsim net file (topogen's) or of ibnetdiscover output.
    A file that gives only node GUIDs numbers ports as ibsim does: a CA's
    port n is the node GUID + n, a switch's port 0 the node GUID."""
    nodes, cur, guid, sysimg = [], None, 0, 0
    hdr = re.compile(r'^(Switch|Hca|Ca)\s+(\d+)\s+"([^"]*)"\s*(?:#\s*"([^"]*)")?')
    with open(path, errors="replace") as fh:
        for line in fh:
            line = line.rstrip("\n")
            m = re.match(r"^(switchguid|caguid|hcaguids|sysimgguid)=(0x[0-9a-fA-F]+)", line)
            if m:
                if m.group(1) == "sysimgguid":
                    sysimg = int(m.group(2), 16)
                else:
                    guid = int(m.group(2), 16)
                continue
            m = hdr.match(line)
            if m:
                kind = "SW" if m.group(1) == "Switch" else "CA"
                nid = m.group(3)
                # ibnetdiscover names nodes S-<guid> / H-<guid>
                if re.match(r"^[SH]-[0-9a-fA-F]+$", nid):
                    guid = int(nid[2:], 16)
                cur = Node(kind, nid, m.group(4) or nid, guid,
                           int(m.group(2)), sysimg)
                nodes.append(cur)
                guid, sysimg = 0, 0
                continue
            m = re.match(r'^\[(\d+)\](?:\((0x)?([0-9a-fA-F]+)\))?\s+"([^"]+)"\[(\d+)\]', line)
            if m and cur is not None:
                port = int(m.group(1))
                cur.links[port] = (m.group(4), int(m.group(5)))
                if m.group(3):
                    cur.port_guids[port] = int(m.group(3), 16)
    return nodes


def end_ports(nodes):
    """The ports P_Keys apply to: linked CA ports and switch port 0."""
    out = []
    for n in nodes:
        if n.kind == "SW":
            out.append(EndPort(n, 0, n.port_guids.get(0, n.guid)))
        else:
            for p in sorted(n.links):
                out.append(EndPort(n, p, n.port_guids.get(p, n.guid + p)))
    return out


# --- NodeDesc patterns (FM sm_utility.c, reference 1.3.1) ------------------

class Pattern:
    """A NodeDesc pattern compiled as the FM does: literal characters of
    CHARS, '*' and '?' over those characters, [a-b] capturing a digit run
    range-checked afterwards (leading zeros significant), a final :[a-b]
    port range.  Invalid patterns match nothing (the FM warns and ignores
    them; the project refuses them, so the generator writes none)."""

    def __init__(self, text):
        self.text, self.valid = text, True
        self.ranges, self.ports = [], None
        rx, i, n = "", 0, len(text)
        # anchored unless it starts with '*' (the FM's code anchors a
        # leading '?' too, whatever follows)
        if not text.startswith("*"):
            rx = "^"
        if re.match(r"^\[[^\]]*\]$", text):
            self.valid = False  # a lone bracket (firstBracketValid)
        while i < n and self.valid:
            c = text[i]
            if c in "*?":
                j = i
                while j < n and text[j] in "*?":
                    j += 1
                if j < n and text[j] == "[":
                    self.valid = False
                # a run with a '*' is one '*'; '?'s count one each
                rx += (f"[{CHARS}]*" if "*" in text[i:j]
                       else f"[{CHARS}]?" * (j - i))
                i = j
                continue
            if c == "[":
                j = text.find("]", i)
                rng = self._range(text[i + 1:j]) if j > 0 else None
                if rng is None:
                    self.valid = False
                    break
                self.ranges.append(rng)
                rx += "([0-9]+)"
                i = j + 1
                continue
            if c == ":":
                j = text.find("]", i)
                rng = (self._range(text[i + 2:j])
                       if text[i + 1:i + 2] == "[" and j == n - 1 else None)
                if rng is None:
                    self.valid = False
                    break
                self.ports = (rng[0], rng[1])
                i = n
                continue
            if not re.match(f"[{CHARS}]", c) or c in "\t\n\r\f\v":
                self.valid = False
                break
            rx += re.escape(c)
            i += 1
        if not text.endswith("*"):
            rx += "$"
        self.rx = re.compile(rx) if self.valid else None

    @staticmethod
    def _range(body):
        """(low, high, low's leading zeros, low's significant digits) of
        'a-b', or None when the FM would reject it."""
        m = re.match(r"^([0-9]+)-([0-9]+)$", body)
        if not m:
            return None

        def split(s):
            lead = len(s) - len(s.lstrip("0"))
            digits = len(s) - lead
            if digits == 0 and lead == 1:   # "0": one digit, no lead
                lead, digits = 0, 1
            return lead, digits

        (l1, d1), (l2, d2) = split(m.group(1)), split(m.group(2))
        lo, hi = int(m.group(1)), int(m.group(2))
        if (not d1 or not d2 or d1 > 5 or d2 > 5 or d1 > d2 or
                (d1 == d2 and l1 != l2) or lo > hi):
            return None
        return lo, hi, l1, d1

    @staticmethod
    def _in_range(num, rng):
        """isNumberInRange: the captured digit run against [lo-hi]."""
        lo, hi, lead_lo, digits_lo = rng
        lead = len(num) - len(num.lstrip("0"))
        digits = len(num) - lead
        value = int(num)
        if lead_lo == 0 and lead == 0:
            return lo <= value <= hi
        return (lead_lo - (digits - digits_lo) == lead) and lo <= value <= hi

    def match(self, desc):
        """None (no match), or the port range (None: every port)."""
        if not self.valid:
            return None
        m = self.rx.search(desc)
        if not m:
            return None
        for k, rng in enumerate(self.ranges):
            if not self._in_range(m.group(k + 1), rng):
                return None
        return self.ports or "all"


# --- the configuration ---------------------------------------------------

class DeviceGroup:
    def __init__(self, el):
        self.name = text(el, "Name")
        self.selects = {s.lower() for s in texts(el, "Select")}
        self.node_types = {s.upper() for s in texts(el, "NodeType")}
        self.node_guids = {int(g, 16) for g in texts(el, "NodeGUID")}
        self.port_guids = {int(g, 16) for g in texts(el, "PortGUID")}
        self.sysimgs = {int(g, 16) for g in texts(el, "SystemImageGUID")}
        self.descs = [Pattern(d) for d in texts(el, "NodeDesc")]
        self.includes = texts(el, "IncludeGroup")


class VirtualFabric:
    def __init__(self, el):
        self.name = text(el, "Name")
        self.enable = text(el, "Enable") == "1"
        self.standby = text(el, "Standby") == "1"
        pk = text(el, "PKey")
        self.pkey = int(pk, 16) & 0x7fff if pk else None
        self.security = text(el, "Security") == "1"
        self.members = texts(el, "Member")
        self.limited = texts(el, "LimitedMember")
        self.qos = text(el, "QOS") == "1"
        sl = text(el, "BaseSL")
        self.base_sl = int(sl) if sl is not None and self.qos else None
        self.qos_group = text(el, "QOSGroup")


def text(el, tag):
    c = el.find(tag)
    return c.text.strip() if c is not None and c.text else None


def texts(el, tag):
    return [c.text.strip() for c in el.findall(tag) if c.text]


class Config:
    """<Common> and the first <Fm>: instance lists append to Common's
    (reference 1.1).  Disabled VFs do not exist (1.5)."""

    def __init__(self, path):
        root = ET.parse(path).getroot()
        scopes = [s for s in (root.find("Common"), root.find("Fm"))
                  if s is not None]
        self.dgs, self.vfs, self.qos_groups = {}, [], {}
        self.writes_admin = False
        for s in scopes:
            for el in s.findall("DeviceGroups/DeviceGroup"):
                dg = DeviceGroup(el)
                self.dgs[dg.name] = dg
            for el in s.findall("QOSGroups/QOSGroup"):
                self.qos_groups[text(el, "Name")] = el
            for el in s.findall("VirtualFabrics/VirtualFabric"):
                vf = VirtualFabric(el)
                # INACTIVE_ADMIN_VF_LIMITED: written, even if disabled
                self.writes_admin |= vf.pkey == MGMT
                if vf.enable:
                    self.vfs.append(vf)

    def vf_sl(self, vf):
        """The SL the file fixes for vf, or None (automatic)."""
        if vf.qos_group and vf.qos_group in self.qos_groups:
            g = self.qos_groups[vf.qos_group]
            sl = text(g, "BaseSL")
            return int(sl) if sl is not None else None
        return vf.base_sl


# --- DeviceGroup membership (reference 1.3; smEvaluate{Node,Port}DG) ------

def dg_members(cfg, name, ports, sm_node, memo=None):
    """The end ports in DeviceGroup `name`."""
    memo = {} if memo is None else memo
    if name in memo:
        return memo[name]
    memo[name] = set()          # a cycle adds nothing (the FM forbids it)
    dg = cfg.dgs.get(name)
    out = set()
    if dg is None:
        return out
    switches = any(p.node.kind == "SW" for p in ports)
    for i, p in enumerate(ports):
        n = p.node
        node_level = (
            "all" in dg.selects or
            ("self" in dg.selects and n is sm_node) or
            # MGMT_ALLOWED_IS_SM_NODE
            (dg.selects & {"allmgmtallowed", "allsms"} and n is sm_node) or
            ("FI" in dg.node_types and n.kind == "CA") or
            ("SW" in dg.node_types and n.kind == "SW") or
            (n.sysimg and n.sysimg in dg.sysimgs) or
            n.guid in dg.node_guids)
        port_level = (
            # SWE0_ALL_SWITCHES
            ("swe0" in dg.selects and n.kind == "SW" and p.num == 0) or
            ("hfidirectconnect" in dg.selects and not switches) or
            # NO_TFIS: "tfis" selects nothing
            p.guid in dg.port_guids)
        by_desc = False
        for pat in dg.descs:
            r = pat.match(n.desc)
            if r == "all" or (r and r[0] <= p.num <= r[1]):
                by_desc = True
        if node_level or port_level or by_desc:
            out.add(i)
    for inc in dg.includes:
        out |= dg_members(cfg, inc, ports, sm_node, memo)
    memo[name] = out
    return out


# --- P_Key tables (smSetupNodeVFs, sm_compute_portPkeys) ------------------

class Result:
    def __init__(self):
        self.ports = {}         # GUID -> {"desc", "port", "pkeys": {pkey:
                                # full?}, "index0": entry}
        self.vf_pkey = {}       # VF name -> P_Key
        self.vf_sl = {}         # VF name -> SL, where the file fixes it


def model(cfg_path, fabric_path, sm, auto_pkeys=None,
          disconnect_unconfigured=False):
    """What the FM (with the project's named DEVIATIONS) puts in every end
    port's P_Key table.  sm: the SM's node, by NodeDesc, node id, or
    (an int) node or port GUID; auto_pkeys: {VF name: P_Key} for VFs
    without <PKey>."""
    cfg = Config(cfg_path)
    nodes = read_fabric(fabric_path)
    ports = end_ports(nodes)
    sm_node = next((n for n in nodes if sm in (n.desc, n.id, n.guid) or
                    sm in n.port_guids.values()), None)
    sm_port = next((i for i, p in enumerate(ports)
                    if p.node is sm_node), None)
    res = Result()
    active = [v for v in cfg.vfs if not v.standby]
    for v in active:
        pk = v.pkey if v.pkey is not None else (auto_pkeys or {}).get(v.name)
        res.vf_pkey[v.name] = pk
        if cfg.vf_sl(v) is not None:
            res.vf_sl[v.name] = cfg.vf_sl(v)
    memo = {}

    def group(names):
        s = set()
        for g in names:
            s |= dg_members(cfg, g, ports, sm_node, memo)
        return s

    # smSetupNodeVFs: per VF, members and full members; a LimitedMember
    # of a VF without Security is full; a port in both lists is full
    vf_member, vf_full = {}, {}
    for v in active:
        full, lim = group(v.members), group(v.limited)
        vf_member[v.name] = full | lim
        vf_full[v.name] = full | (lim if not v.security else set())
    has_admin = any(res.vf_pkey[v.name] == MGMT for v in active)
    for i, p in enumerate(ports):
        table, index0 = {}, None
        # sm_compute_portPkeys: VFs in config order; one entry per P_Key,
        # full if full in any VF of that P_Key the port is in
        for v in active:
            if i not in vf_member[v.name]:
                continue
            pk = res.vf_pkey[v.name]
            table[pk] = table.get(pk, False) or i in vf_full[v.name]
            if pk != MGMT and index0 is None:
                index0 = pk
        # the management slot: every port holds 0x7fff
        if has_admin:
            mgmt_full = table.get(MGMT, False)
        elif cfg.writes_admin:
            mgmt_full = False   # INACTIVE_ADMIN_VF_LIMITED
        else:
            # NO_ADMIN_VF_STOCK_DEFAULT
            configured = any(k != MGMT for k in table)
            mgmt_full = not (configured or disconnect_unconfigured)
        if i == sm_port or p.node.kind == "SW":
            mgmt_full = True    # SM_AND_SWITCH_PORT0_FULL_MGMT
        table[MGMT] = mgmt_full     # FULL_MGMT_ONE_ENTRY
        if index0 is None:
            index0 = MGMT       # INDEX0_DEFAULT_WHEN_NO_VF
        res.ports[p.guid] = {
            "desc": p.node.desc, "port": p.num,
            "pkeys": {k | (FULL if f else 0) for k, f in table.items()},
            "index0": index0 | (FULL if table[index0] else 0)}
    return res
