#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Golden routing tests: each line of tests/golden/cases names a topology,
# an engine, an LMC and what the checks must say ("ok": exit 0; "loop":
# exit 1 with a credit loop, for min-hop on rings), optionally followed by
# more `vfabric route` options (e.g. --no-spine-first; @DIR@ stands for this
# directory); `vfabric route --check
# --summary` must print exactly tests/golden/<name>.ref (route checks plus,
# per switch, the CA LIDs each port carries).
# Golden AR tests: each line of tests/golden/ar-cases names a topology, an
# engine and an LMC, optionally followed by `vfabric ar` options (--coarse,
# --groups N); the routing is `vfabric route` with those, and `vfabric ar`
# on it must exit 0 (no credit loop over any alternate) and print exactly
# tests/golden/<name>.ref (its summary, then the tables).
# UPDATE_GOLDEN=1 rewrites the .ref files of both: review the diff before
# committing it.
dir=${top_srcdir:-.}/tests/golden
vfabric=${VFABRIC:-tools/vfabric}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0

# compare NAME OUT: OUT against NAME.ref (or rewrite it)
compare() {
	n=$((n + 1))
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$2" "$dir/$1.ref"
		echo "ok $n - $1: reference rewritten # SKIP update mode"
	elif diff -u "$dir/$1.ref" "$2" > "$tmp/diff"; then
		echo "ok $n - $1: output matches $1.ref"
	else
		echo "not ok $n - $1: output differs from $1.ref"
		sed 's/^/#   /' "$tmp/diff"
		fail=1
	fi
}

while read -r name topo engine lmc expect opts; do
	case $name in ''|'#'*) continue ;; esac
	out=$tmp/$name.out
	# @DIR@ in the options: this directory (e.g. a config file)
	opts=$(printf '%s' "$opts" | sed "s|@DIR@|$dir|g")
	# $opts unquoted: zero or more options, split on blanks
	"$vfabric" route --engine "$engine" --topo "$dir/$topo" --lmc "$lmc" \
		-o "$tmp/$name.dump" --check --summary $opts > "$out" \
		2> "$tmp/err"
	rc=$?
	n=$((n + 1))
	if [ "$expect" = ok ] && [ $rc -eq 0 ]; then
		echo "ok $n - $name: $engine routes pass every check"
	elif [ "$expect" = loop ] && [ $rc -eq 1 ] &&
	     grep -q "credit loops  FOUND" "$out"; then
		echo "ok $n - $name: the credit loop of min-hop is reported"
	else
		echo "not ok $n - $name: vfabric exited $rc, expected $expect"
		sed 's/^/#   /' "$tmp/err" "$out"
		fail=1
	fi
	compare "$name" "$out"
done < "$dir/cases"

while read -r name topo engine lmc opts; do
	case $name in ''|'#'*) continue ;; esac
	out=$tmp/$name.out
	n=$((n + 1))
	# $opts unquoted: zero or more options, split on blanks
	if "$vfabric" route --engine "$engine" --topo "$dir/$topo" \
		--lmc "$lmc" -o "$tmp/$name.dump" > "$tmp/err" 2>&1 &&
	   "$vfabric" ar --topo "$dir/$topo" --lmc "$lmc" \
		--lfts "$tmp/$name.dump" -o "$tmp/$name.ar" $opts > "$out" 2> "$tmp/err"; then
		echo "ok $n - $name: AR tables with no credit loop"
	else
		echo "not ok $n - $name: vfabric route or ar failed"
		sed 's/^/#   /' "$tmp/err" "$out"
		fail=1
	fi
	cat "$tmp/$name.ar" >> "$out" 2> /dev/null
	compare "$name" "$out"
done < "$dir/ar-cases"
echo "1..$n"
exit $fail
