#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The error codes against their registry, docs/error-codes.md.

1. every code the sources log ("ERR VFmmnn: " in a string literal) is in
   the registry, logged from as many places as its "sites" column says
   (a new place logging an old code must be a conscious choice: the same
   cause, or a new code);
2. every code in the registry is logged somewhere;
3. every code logged is followed by ": " and its part (mm) is one the
   registry lists;
4. every code the README, the documents, the man pages and the tests name
   is in the registry (a test or a page may not point at a code that
   means nothing).
"""

import os
import re
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "sim"))
import vfsim  # noqa: E402
SOURCE_DIRS = ("plugin", "partition", "routing", "tools", "sim", "vnic",
               "common")
LOGGED = re.compile(r'"[^"\n]*ERR VF(\d{4})(.?.?)')
NAMED = re.compile(r"\bVF(\d{4})\b")
ROW = re.compile(r"^\| VF(\d{4}) \| (\d+) \| (.+) \| (.+) \|$")
PARTS = re.compile(r"^Parts: (.*?)\. \(", re.S | re.M)

def files(dirs, exts):
    for d in dirs:
        for root, _, names in os.walk(os.path.join(TOP, d)):
            for name in sorted(names):
                if name.endswith(exts):
                    yield os.path.join(root, name)


def logged_codes():
    """code -> [(file:line, the two characters after it)]."""
    sites = {}
    for path in files(SOURCE_DIRS, (".c", ".h")):
        with open(path, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f, 1):
                for m in LOGGED.finditer(line):
                    where = f"{os.path.relpath(path, TOP)}:{i}"
                    sites.setdefault(m.group(1), []).append(
                        (where, m.group(2)))
    return sites


def registry():
    path = os.path.join(TOP, "docs", "error-codes.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    rows = {}
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            rows[m.group(1)] = int(m.group(2))
    parts = set(re.findall(r"\b(\d\d) ", PARTS.search(text).group(1)))
    return rows, parts


def named_codes():
    """code -> places in docs, man pages, README and tests that name it."""
    out = {}
    paths = [os.path.join(TOP, "README.md")]
    paths += [p for p in files(("docs",), (".md",))
              if not p.endswith("error-codes.md")]
    paths += list(files(("man",), (".1", ".7")))
    paths += list(files(("tests",), (".py", ".c", ".sh")))
    for path in paths:
        if path.endswith("t-errcodes.py"):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f, 1):
                for m in NAMED.finditer(line):
                    out.setdefault(m.group(1), []).append(
                        f"{os.path.relpath(path, TOP)}:{i}")
    return out


def main():
    tap = vfsim.Tap()
    ok = tap.ok
    sites = logged_codes()
    rows, parts = registry()
    ok(len(sites) > 40 and len(rows) > 40,
       f"{len(sites)} codes logged, {len(rows)} in the registry")
    for code in sorted(set(sites) | set(rows)):
        where = sites.get(code, [])
        listing = "\n".join(w for w, _ in where)
        if code not in rows:
            ok(False, f"VF{code} is in docs/error-codes.md", listing)
            continue
        ok(len(where) == rows[code],
           f"VF{code}: logged from {rows[code]} place(s), as registered",
           f"logged from {len(where)}:\n{listing}")
    for code, where in sorted(sites.items()):
        bad = [w for w, after in where if after != ": "]
        ok(not bad and code[:2] in parts,
           f"VF{code}: 'ERR VF{code}: ' and part {code[:2]} is listed",
           "\n".join(bad) or f"parts listed: {sorted(parts)}")
    for code, where in sorted(named_codes().items()):
        ok(code in rows, f"VF{code}, named in {where[0]}, is registered",
           "\n".join(where))
    tap.done()


if __name__ == "__main__":
    main()
