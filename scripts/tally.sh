#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Print "N passed, N failed, N skipped" from automake's test-suite.log.
# Every TAP assertion counts; ERROR and XPASS count as failed.
log=${1:-test-suite.log}
if [ ! -f "$log" ]; then
	echo "0 passed, 1 failed"
	exit 1
fi
awk '/^# PASS:/ {p=$3} /^# XFAIL:/ {p+=$3} /^# FAIL:/ {f=$3}
     /^# XPASS:/ {f+=$3} /^# ERROR:/ {f+=$3} /^# SKIP:/ {s=$3}
     END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' "$log"
