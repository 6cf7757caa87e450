#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Print "N passed, N failed, N skipped" summed over automake test-suite
# logs (default test-suite.log; CI adds the ASan and valgrind suites').
# Every TAP assertion counts; ERROR and XPASS count as failed, and so does
# a log that is missing (its suite did not run to the end).
[ $# -gt 0 ] || set -- test-suite.log
missing=0
for log in "$@"; do
	[ -f "$log" ] || { echo "$log: missing" >&2; missing=$((missing + 1)); }
done
for log in "$@"; do [ -f "$log" ] && echo "$log"; done |
	xargs -r awk -v missing="$missing" '
     # the counts head each log (ERROR last); test output follows
     FNR == 1 {p1 = 0; f1 = 0; s1 = 0; head = 1}
     !head {next}
     /^# PASS:/ {p1 = $3} /^# XFAIL:/ {p1 += $3} /^# FAIL:/ {f1 = $3}
     /^# XPASS:/ {f1 += $3} /^# SKIP:/ {s1 = $3}
     /^# ERROR:/ {p += p1; f += f1 + $3; s += s1; head = 0}
     END {printf "%d passed, %d failed, %d skipped\n", p, f + missing, s}'
# xargs ran no awk when every log was missing
[ "$missing" -lt $# ] || echo "0 passed, $missing failed, 0 skipped"
[ "$missing" -eq 0 ]
