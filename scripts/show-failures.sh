#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Show why tests failed: for each test log under DIR... that has a failed
# point, an error or a bail-out, every "not ok" line with the diagnostics
# that follow it (the first 30 lines of each), then the log's last lines.
# A tail alone can miss the failed points of a long log (CI keeps only
# what it prints).
#   scripts/show-failures.sh [-newer FILE] DIR...
newer=
if [ "${1:-}" = "-newer" ]; then
	newer="-newer $2"
	shift 2
fi
# shellcheck disable=SC2086
find "$@" -name '*.log' $newer \( -path '*tests*' -o -path '*fuzz*' \) \
	-exec grep -l '^not ok\|^ERROR\|^Traceback\|^Bail out' {} + 2>/dev/null |
	while read -r f; do
		echo "=== $f: failed points"
		awk '/^not ok/ {n = 30; print; next}
		     n > 0 && /^#/ {print; n--; next}
		     {n = 0}' "$f"
		echo "=== $f: last lines"
		tail -n 40 "$f"
	done
