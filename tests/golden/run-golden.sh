#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Golden routing tests: each line of tests/golden/cases names a topology,
# an engine, an LMC and what the checks must say ("ok": exit 0; "loop":
# exit 1 with a credit loop, for min-hop on rings), optionally followed by
# more `vfabric route` options (e.g. --no-spine-first; @DIR@ stands for this
# directory); `vfabric route --check
# --summary` must print exactly tests/golden/<name>.ref (route checks plus,
# per switch, the CA LIDs each port carries).  UPDATE_GOLDEN=1 rewrites the .ref
# files: review the diff before committing it.
dir=${top_srcdir:-.}/tests/golden
vfabric=${VFABRIC:-sim/vfabric}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
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
	n=$((n + 1))
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$out" "$dir/$name.ref"
		echo "ok $n - $name: reference rewritten # SKIP update mode"
	elif diff -u "$dir/$name.ref" "$out" > "$tmp/diff"; then
		echo "ok $n - $name: output matches $name.ref"
	else
		echo "not ok $n - $name: output differs from $name.ref"
		sed 's/^/#   /' "$tmp/diff"
		fail=1
	fi
done < "$dir/cases"
echo "1..$n"
exit $fail
