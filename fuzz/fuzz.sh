#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# The fuzz targets' runs (docs/testing.md, "Fuzzing"), as TAP:
#   fuzz.sh replay  every corpus and regression input once through the
#                   targets built with the normal compiler (fuzz/replay-*)
#   fuzz.sh check   each libFuzzer target for FUZZ_CHECK_SECONDS (6),
#                   fixed seed; skipped without clang + libFuzzer
#   fuzz.sh long    each for FUZZ_SECONDS (300); new inputs and crashes
#                   go to $top_builddir/fuzz/work/<target>/, never into
#                   the source tree
# A crash, leak or broken invariant is a "not ok" naming the input that
# reproduces it.  Environment: see fuzz/Makefile.inc (FUZZ_ENV).
set -u
mode=${1:?usage: fuzz.sh replay|check|long}
src=${top_srcdir:?}
build=${top_builddir:?}
targets=${FUZZ_TARGETS:-arkey arproto datapath ema lftdump netfile options pconf sa xmlconf}
opensm=${OPENSM:-/usr/sbin/opensm}
[ "$opensm" = no ] && opensm=/usr/sbin/opensm
n=0
fail=0
mkdir -p "$build/fuzz"

files() {
	find "$1" -maxdepth 1 -type f ! -name '.*' 2>/dev/null | wc -l
}

replay() {
	for t in $targets; do
		n=$((n + 1))
		log=$build/fuzz/replay-$t.log
		c=$(files "$src/fuzz/corpus/$t")
		r=$(files "$src/fuzz/regressions/$t")
		"$build/fuzz/replay-$t" "$src/fuzz/corpus/$t" \
			"$src/fuzz/regressions/$t" >"$log" 2>&1
		rc=$?
		if [ $rc = 77 ]; then
			echo "ok $n - $t # SKIP $(tail -1 "$log")"
		elif [ $rc = 0 ] && [ "$c" -gt 0 ] &&
		     grep -q "^total: $((c + r))\$" "$log"; then
			echo "ok $n - $t: $c corpus + $r regression inputs replayed"
		else
			echo "not ok $n - $t: replay failed (exit $rc)"
			echo "#   input: $(grep '^replay: /' "$log" | tail -1 |
				sed 's/^replay: //')"
			tail -5 "$log" | sed 's/^/#   /'
			fail=1
		fi
	done
}

# libFuzzer's final statistics of log $1, one line
stats() {
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1")
	last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$1" |
		tail -1)
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	echo "${execs:-?} execs, cov ${cov:-?} ft ${ft:-?}, corpus ${corp:-?}"
}

run() {
	secs=$1 work=$2 seed=$3
	for t in $targets; do
		n=$((n + 1))
		if [ "$t" = sa ] && [ ! -r "$opensm" ]; then
			echo "ok $n - $t # SKIP no opensm binary ($opensm): apt-get install opensm"
			continue
		fi
		d=$work/$t
		mkdir -p "$d/corpus" "$d/crashes"
		touch "$d/start"	# crashes of earlier runs are not this one's
		dict=
		[ -f "$src/fuzz/dict/$t.dict" ] && dict=-dict=$src/fuzz/dict/$t.dict
		# shellcheck disable=SC2086
		nice "$build/fuzz/clang/fuzz-$t" -max_total_time="$secs" \
			$seed -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
			-artifact_prefix="$d/crashes/" $dict "$d/corpus" \
			"$src/fuzz/corpus/$t" "$src/fuzz/regressions/$t" \
			>"$d/log" 2>&1
		rc=$?
		crash=$(find "$d/crashes" -type f -newer "$d/start" | head -1)
		if [ $rc = 0 ] && [ -z "$crash" ]; then
			echo "ok $n - $t: $(stats "$d/log") in ${secs}s"
		else
			echo "not ok $n - $t: libFuzzer exit $rc, $(stats "$d/log")"
			grep -E 'ERROR|SUMMARY|invariant broken' "$d/log" |
				head -5 | sed 's/^/#   /'
			echo "#   reproducer: ${crash:-none saved; log $d/log}"
			echo "#   replay: $build/fuzz/replay-$t ${crash:-FILE}  or  $build/fuzz/clang/fuzz-$t ${crash:-FILE}"
			echo "#   keep it: cp ${crash:-FILE} $src/fuzz/regressions/$t/<what-it-was>"
			fail=1
		fi
	done
}

case $mode in
replay)
	replay ;;
check|long)
	env top_srcdir="$src" top_builddir="$build" \
		sh "$src/fuzz/build.sh" >"$build/fuzz/build-clang.log" 2>&1
	rc=$?
	if [ $rc = 77 ]; then
		echo "1..0 # SKIP $(tail -1 "$build/fuzz/build-clang.log")"
		[ "$mode" = check ] && exit 0
		exit 1
	elif [ $rc != 0 ]; then
		echo "not ok 1 - fuzz targets build with clang (see $build/fuzz/build-clang.log)"
		tail -20 "$build/fuzz/build-clang.log" | sed 's/^/#   /'
		echo "1..1"
		exit 1
	fi
	if [ "$mode" = check ]; then
		rm -rf "$build/fuzz/work-check"
		run "${FUZZ_CHECK_SECONDS:-6}" "$build/fuzz/work-check" -seed=1
	else
		seed=
		[ -n "${FUZZ_SEED:-}" ] && seed=-seed=$FUZZ_SEED
		run "${FUZZ_SECONDS:-300}" "$build/fuzz/work" "$seed"
		echo "# new inputs: $build/fuzz/work/<target>/corpus (merge into fuzz/corpus/ by hand: -merge=1)"
	fi ;;
*)
	echo "usage: fuzz.sh replay|check|long" >&2
	exit 2 ;;
esac
echo "1..$n"
exit $fail
