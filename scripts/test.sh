#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# The README's test command: install what is missing, build, run every
# test (make check), and end with "N passed, N failed" counted over every
# TAP assertion.  VF_INSTALL_FIRST=1 (CI) also builds the Debian packages
# (scripts/build-deb.sh: lintian clean), installs them, and tests that
# OpenSM finds the packaged plugin and the packaged tools run.
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# CI: install the packages first, so that the installed plugin is tested too
if [ -n "${VF_INSTALL_FIRST:-}" ]; then
	scripts/build-deb.sh
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends ./_deb/opensm-vfabric_*.deb \
		./_deb/opensm-vfabric-tools_*.deb
	export VF_TEST_INSTALLED=1 VF_TEST_PACKAGE=1
fi
rc=0
make -j"$(nproc)" check || rc=$?
[ $rc -eq 0 ] || scripts/show-failures.sh -newer Makefile tests fuzz
scripts/tally.sh test-suite.log
exit $rc
