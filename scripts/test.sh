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
[ $rc -eq 0 ] || find tests -name '*.log' -newer Makefile -exec grep -l \
	'^not ok\|^ERROR' {} + 2>/dev/null | while read -r f; do
		echo "=== $f"; tail -n 40 "$f"; done
scripts/tally.sh test-suite.log
exit $rc
