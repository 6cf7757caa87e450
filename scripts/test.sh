#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# The README's test command: install what is missing, build, run every
# test (make check), and end with "N passed, N failed" counted over every
# TAP assertion.  VF_INSTALL_FIRST=1 (CI) also runs 'make install' and
# tests that OpenSM finds the installed plugin.
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# CI: install first, so that the installed plugin is tested too
if [ -n "${VF_INSTALL_FIRST:-}" ]; then
	make install
	export VF_TEST_INSTALLED=1
fi
rc=0
make -j"$(nproc)" check || rc=$?
[ $rc -eq 0 ] || scripts/show-failures.sh -newer Makefile tests fuzz
scripts/tally.sh test-suite.log
exit $rc
