#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""vfabric-em show --json parses as strict UTF-8 JSON whatever bytes a
port's NodeDescription holds: a NodeDescription is 64 raw bytes, set by
whoever runs the host, and a program reading the EM's JSON must not
choke on it.  One host of an ibsim fabric gets Latin-1 bytes (not
UTF-8), well-formed UTF-8, a backslash and control characters in its
NodeDescription; the JSON must decode strictly, keep the UTF-8 and give
the other bytes back as U+00XX (routing/vfjson.h).
"""

import json
import os
import subprocess

import topogen
import vfsim
import vftest

EM = os.path.abspath(os.environ.get(
    "VF_EM", os.path.join(vftest.TOP_BUILDDIR, "tools", "vfabric-em")))
PLAIN = b"cn0002 HCA-1"
# Latin-1 e-acute, SOH, a backslash, UTF-8 e-acute, 0xff, a tab
ODD = b"cn0002 \xe9\x01\\\xc3\xa9\xff\t HCA-1"


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    if not os.access(EM, os.X_OK):
        tap.skip_all(f"vfabric-em not built ({EM})")
    work = vfsim.tempfile.mkdtemp(prefix="vf-emjson-")
    net = os.path.join(work, "fabric.net")
    topogen.fattree2(leaves=1, spines=1, hosts=2).write(net)
    with open(net, "rb") as fh:
        text = fh.read()
    with open(net, "wb") as fh:
        fh.write(text.replace(PLAIN, ODD))
    with vfsim.Sim(net, "em-json", tap=tap) as sim:
        sim.start_ibsim()
        sim.start_opensm(conf_lines=["sweep_interval 0"])
        sim.wait_subnet_up()
        nodes = vfsim.parse_ibnetdiscover(vfsim.read_from(sim.discover()))
        lid = [n["lid"] for n in nodes.values()
               if n["desc"].startswith("cn0002")][0]
        res = subprocess.run([EM, "show", "--json", str(lid)],
                             env=sim._env("cn0001"), cwd=sim.workdir,
                             capture_output=True, timeout=120)
        try:
            rows = json.loads(res.stdout.decode("utf-8"))
            err = None
        except ValueError as e:     # UnicodeDecodeError included
            rows, err = [], e
        # exit 1: the port has no endpoint, which the row says too
        tap.ok(err is None and len(rows) == 1,
               "show --json of a port whose NodeDescription is not UTF-8: "
               "strict UTF-8 JSON", f"rc {res.returncode} {err}\n"
               f"{res.stdout!r}\n{res.stderr!r}")
        # well-formed UTF-8 kept, every other byte as U+00XX
        want = ODD.replace(b"\xc3\xa9", b"\x00").decode("latin-1") \
            .replace("\x00", "\u00e9")
        tap.ok(rows and rows[0].get("node") == want,
               "... every byte given back (\\u00e9, \\u0001, \\\\, "
               "UTF-8 kept, \\u00ff, \\t)", f"{rows} want {want!r}")
        sim.stop_opensm()
    vfsim.shutil.rmtree(work, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
