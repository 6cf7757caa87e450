#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# The README's demo command: install what is missing, build, and route a
# simulated fat tree with stock OpenSM and the plugin (sim/demo.py).
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec python3 sim/demo.py --vfabric tools/vfabric --plugin-dir plugin/.libs "$@"
