#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Layout rules from DESIGN.md, checked on every source file:
#  1. only plugin/ includes OpenSM headers (opensm/, complib/, iba/,
#     vendor/): common/, routing/, partition/, vnic/, sim/ and tests/
#     build and run without OpenSM;
#  2. in plugin/, <opensm/osm_config.h> comes before any other OpenSM header
#     (it changes struct layouts: without it the ABI breaks silently).
top=${top_srcdir:-.}
cd "$top" || exit 1
n=0
fail=0
osm='^#include <(opensm|complib|iba|vendor)/'
for f in $(find common routing partition vnic sim tests -name '*.[ch]' \
	   2>/dev/null | sort); do
	n=$((n + 1))
	if grep -Eq "$osm" "$f"; then
		echo "not ok $n - $f includes no OpenSM header"
		grep -En "$osm" "$f" | sed 's/^/#   /'
		fail=1
	else
		echo "ok $n - $f includes no OpenSM header"
	fi
done
for f in $(find plugin -name '*.c' | sort); do
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
echo "1..$n"
exit $fail
