# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""An independent model of what stock OpenSM 3.3.23 makes of a
partitions.conf, written from opensm(8) and osm_prtn_config.c /
osm_prtn.c (read for facts), apart from partition/pconfstock.c: P_Key
memberships only, and only for files without OpenSM's reading quirks
(sim/pconfgen.py's plain files: no ';' on its own line, no mgid= item
without flags, no fatal error).

memberships(text, hosts, switches, sm, allow_both) ->
    {port GUID: {P_Key (15 bits): "full"|"limited"|"both"}}
"""

BLANKS = " \t\n"


def _prefix(word, full):
    """OpenSM compares strncmp(word, full, strlen(word)): word is a
    prefix of full (a longer word meets full's terminating NUL)."""
    return full.startswith(word)


def _split(item):
    """'name = value' -> (name, value or None), blanks trimmed."""
    if "=" in item:
        name, val = item.split("=", 1)
        return name.strip(BLANKS), val.strip(BLANKS)
    return item.strip(BLANKS), None


def _number(text):
    """strtoul/strtoull with base 0 on a whole token; None if not."""
    t = text.strip(BLANKS)
    try:
        if t.lower().startswith("0x"):
            return int(t, 16)
        if t.startswith("0") and len(t) > 1:
            return int(t, 8)
        return int(t, 10)
    except ValueError:
        return None


def _membership(word):
    if _prefix(word, "full"):
        return "full"
    if _prefix(word, "both"):
        return "both"
    return "limited"


def statements(text):
    """Each statement: (header line text, [member items]); comments off,
    an mgid= item to the end of its line dropped (groups: not modelled)."""
    out, cur = [], None
    for line in text.split("\n"):
        line = line.split("#", 1)[0]
        while True:
            semi = line.find(";")
            part = line if semi < 0 else line[:semi]
            if cur is None:
                if not part.strip(BLANKS):
                    if semi < 0:
                        break
                    line = line[semi + 1:]
                    continue
                head, _, rest = part.partition(":")
                cur = (head, [])
                out.append(cur)
                part = rest
            for item in part.split(","):
                if item.strip(BLANKS).startswith("mgid"):
                    break           # takes the rest of the line
                cur[1].append(item)
            if semi < 0:
                break
            cur = None
            line = line[semi + 1:]
    return out


def memberships(text, hosts, switches, sm, allow_both=False):
    parts = {0x7fff: {"name": "Default", "entries": [("ALL", "limited"),
                                                     ("SELF", "full")]}}
    order = [0x7fff]
    counter = 0
    for head, items in statements(text):
        fields = head.split(",")
        name, pkey = _split(fields[0])
        if pkey is None and name[:1].isdigit():
            name, pkey = None, name
        defmember = "limited"
        for flag in fields[1:]:
            f, v = _split(flag)
            if _prefix(f, "defmember") and not any(
                    _prefix(f, g) for g in ("mtu", "rate", "scope", "Q_Key",
                                            "TClass", "sl", "FlowLabel",
                                            "ipoib")) and v is not None and \
                    any(_prefix(v, w) for w in ("limited", "both", "full")):
                defmember = _membership(v)
        value = (_number(pkey) or 0) & 0xffff & 0x7fff if pkey else 0
        key = None
        if not value:
            # OpenSM's map of partitions is ordered by the P_Key's bytes
            # in network order
            for k in sorted(order, key=lambda p: (p & 0xff) << 8 | p >> 8):
                stored = parts[k]["name"]
                if name and stored == name:
                    key = k
                    break
            if key is None:
                while counter < 0x7ffe:
                    counter += 1
                    if counter not in parts:
                        value = counter
                        break
        if key is None:
            key = value
            if key not in parts:
                stored = (name or f"{key:04x}")[:31]
                parts[key] = {"name": stored, "entries": []}
                order.append(key)
        for item in items:
            n, v = _split(item)
            if not n or _prefix(n, "NONE"):
                continue
            m = _membership(v) if v is not None else defmember
            parts[key]["entries"].append((n, m))
    everyone = list(hosts) + list(switches)
    out = {g: {} for g in everyone}
    for key, p in parts.items():
        for n, m in p["entries"]:
            if _prefix(n, "ALL"):
                chosen = everyone
            elif _prefix(n, "ALL_CAS"):
                chosen = hosts
            elif _prefix(n, "ALL_SWITCHES"):
                chosen = switches
            elif _prefix(n, "ALL_ROUTERS"):
                chosen = []
            elif _prefix(n, "SELF"):
                chosen = [sm]
            else:
                g = _number(n)
                chosen = [g] if g in out else []
            for g in chosen:
                out[g][key] = m if m != "both" or allow_both else "full"
    return out
