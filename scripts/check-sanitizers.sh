#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# The ASan suite, from a source tree that is left alone: configure a
# separate build directory with --enable-sanitizers, build, and run every
# test there with 'make check-asan' (unit and golden tests ASan-built, the
# ibsim tests with stock OpenSM under the preloaded ASan runtime, see
# docs/testing.md).  Ends with the tally line "N passed, N failed".
#   scripts/check-sanitizers.sh [BUILDDIR]     (default: _build-asan)
# CONFIGURE_FLAGS (e.g. --enable-werror) go to configure too.
set -e
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/_build-asan}
mkdir -p "$build"
build=$(cd "$build" && pwd)
if [ -f "$src/config.status" ]; then
	# configured in place (scripts/build.sh, CI): a VPATH build needs an
	# unconfigured source tree, so build from the distributed sources
	rm -rf "$build/src"
	make -C "$src" distdir distdir="$build/src" > "$build/distdir.log"
	srcdir=$build/src
else
	[ -x "$src/configure" ] || (cd "$src" && ./autogen.sh)
	srcdir=$src
fi
mkdir -p "$build/obj"
cd "$build/obj"
# shellcheck disable=SC2086
[ -f Makefile ] || "$srcdir/configure" -q --enable-sanitizers \
	${CONFIGURE_FLAGS:-}
make -j"$(nproc)" > build.log 2>&1 || { tail -n 40 build.log; exit 1; }
rc=0
make -j"$(nproc)" check-asan || rc=$?
[ $rc -eq 0 ] || "$src/scripts/show-failures.sh" -newer build.log tests fuzz
"$src/scripts/tally.sh" test-suite-asan.log
exit $rc
