#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Configure and build in place (after scripts/install-deps.sh).
set -e
cd "$(dirname "$0")/.."
[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure ${CONFIGURE_FLAGS:-}
make -j"$(nproc)"
