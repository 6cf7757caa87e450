#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Layout rules from DESIGN.md, checked on every source file:
#  1. only plugin/ includes OpenSM headers (opensm/, complib/, iba/,
#     vendor/): common/, routing/, partition/, vnic/, tools/, sim/, tests/
#     and fuzz/ build and run without OpenSM -- except the SA fuzz target's
#     files fuzz/fuzz-sa.c and fuzz/sa-*.c, which drive the plugin's SA
#     handlers with OpenSM's own subnet code;
#  2. in plugin/ and those fuzz files, <opensm/osm_config.h> comes before
#     any other OpenSM header (it changes struct layouts: without it the
#     ABI breaks silently);
#  3. the installed tools (tools/) and the plugin use nothing of the test
#     harness (sim/: ibsim agents, Python), and no installed program is
#     built from sim/;
#  4. a library's headers are public (LIB/*.h: what the others may use)
#     or internal (LIB/internal/*.h: only the library itself, and its
#     white-box unit tests and fuzz targets, include them); no public
#     header includes an internal one;
#  5. every header compiles alone, included twice (it includes what it
#     uses, and its guard works);
#  6. every Python module of the harness and the benchmarks is named in a
#     Makefile, so the tarball (distcheck, the ASan build) carries it.
top=${top_srcdir:-.}
cd "$top" || exit 1
n=0
fail=0
# One test point: file $1 has no line matching $2 ("$1 includes no $3").
lacks() {
	n=$((n + 1))
	if grep -Eq "$2" "$1"; then
		echo "not ok $n - $1 includes no $3"
		grep -En "$2" "$1" | sed 's/^/#   /'
		fail=1
	else
		echo "ok $n - $1 includes no $3"
	fi
}
osm='^#include <(opensm|complib|iba|vendor)/'
sa_fuzz='fuzz/fuzz-sa.c fuzz/sa-opensm.c fuzz/sa-subnet.c'
for f in $(find common routing partition vnic tools sim tests fuzz -name '*.[ch]' \
	   2>/dev/null | sort); do
	case " $sa_fuzz " in *" $f "*) continue ;; esac
	lacks "$f" "$osm" "OpenSM header"
done
for f in $(find plugin -name '*.c' | sort) $sa_fuzz; do
	first=$(grep -Em1 "$osm" "$f")
	n=$((n + 1))
	case $first in
	''|'#include <opensm/osm_config.h>')
		echo "ok $n - $f: osm_config.h comes first" ;;
	*)
		echo "not ok $n - $f: first OpenSM header is $first"
		fail=1 ;;
	esac
done
for f in $(find tools plugin -name '*.[ch]' | sort); do
	lacks "$f" '^#include "sim/' "header of the harness (sim/)"
done
n=$((n + 1))
installed=$(grep -Eh '^[a-z_]+_(PROGRAMS|LTLIBRARIES|LIBRARIES|SCRIPTS|DATA|PYTHON) *\+?=.*(^|[ =])sim/' \
	*/Makefile.inc Makefile.am 2>/dev/null | grep -Ev '^(noinst|check)_')
if [ -z "$installed" ]; then
	echo "ok $n - nothing installed is built from sim/"
else
	echo "not ok $n - nothing installed is built from sim/: $installed"
	fail=1
fi
for lib in common routing partition vnic; do
	for f in $(grep -rlE "^#include \"$lib/internal/" --include='*.[ch]' \
		   . 2>/dev/null | sed 's|^\./||' | sort); do
		case $f in
		"$lib"/*.c|"$lib"/internal/*|tests/unit/*|fuzz/*) continue ;;
		esac
		n=$((n + 1))
		echo "not ok $n - $f includes no internal header of $lib/"
		grep -En "^#include \"$lib/internal/" "$f" | sed 's/^/#   /'
		fail=1
	done
	for f in $(find "$lib" -maxdepth 1 -name '*.h' | sort); do
		lacks "$f" '^#include "[a-z]+/internal/' \
			"internal header (it is public)"
	done
done
for f in $(find sim bench -maxdepth 1 -name '*.py' | sort); do
	n=$((n + 1))
	if grep -qF "$f" Makefile.am */Makefile.inc; then
		echo "ok $n - $f is distributed"
	else
		echo "not ok $n - $f is distributed (add it to EXTRA_DIST)"
		fail=1
	fi
done
cc=${CC:-cc}
flags=$(pkg-config --cflags json-c libxml-2.0 2>/dev/null)
if command -v "$cc" >/dev/null 2>&1; then
	for f in $(find common routing partition vnic -name '*.h' | sort); do
		n=$((n + 1))
		if printf '#include "%s"\n#include "%s"\n' "$f" "$f" |
		   $cc -std=gnu11 -Wall -Werror -fsyntax-only -I. $flags -x c - \
		   2>/dev/null; then
			echo "ok $n - $f compiles alone, included twice"
		else
			echo "not ok $n - $f compiles alone, included twice"
			fail=1
		fi
	done
fi
echo "1..$n"
exit $fail
