#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# The man pages (man/) and the bash completions (completion/) against the
# tools they describe, so that neither drifts from the code:
# - every page lints clean: groff -man -ww, and mandoc -T lint when it is
#   installed (lintian's check is groff's);
# - every long option of each tool's --help, and of each command's
#   --help, is in the tool's page; every command is; every setting of
#   plugin/options.c's apply() is in opensm-vfabric.7;
# - --version of each tool says "TOOL (opensm-vfabric) VERSION", exit 0;
# - every command's --help and -h exit 0 with its help on stdout;
# - the completions offer the commands, options and engine names.
top=${top_srcdir:-.}
build=${top_builddir:-.}
n=0
fail=0
ok() { # ok DESCRIPTION [DETAIL]: the last command's status
	rc=$?
	n=$((n + 1))
	if [ $rc -eq 0 ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1${2:+: $2}"
		fail=1
	fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

version=$(sed -n 's/^PACKAGE_VERSION = //p' "$build/Makefile")
tools="vfabric vfabric-sa vfabric-em"
bin() { echo "$build/tools/$1"; }
page() { case $1 in *.7) echo "$top/man/$1" ;; *) echo "$top/man/$1.1" ;; esac; }
# A page as text: one paragraph a line, no hyphenation, no bold
render() { groff -man -Tascii -rLL=2000n -rHY=0 -P-cbou "$1" 2>/dev/null; }
# The commands of a tool, from its command table in the source
commands() {
	case $1 in
	vfabric) src=$top/tools/cli/vfabric.c pat='cmd_|vf_cmd_' ;;
	vfabric-sa) src=$top/tools/sa/sa_cli.c pat='OPTS_COMMON' ;;
	vfabric-em) src=$top/tools/em/em_cli.c pat='COMMON' ;;
	esac
	sed -n -E "s/^[[:space:]]*\{ \"([a-z-]+)\", ($pat).*/\1/p" "$src"
}

# (a) lint
# (ok() reads the status of the command before it: a $(...) in its
# arguments would run after that command and hide it, so names and
# counts are taken first)
for p in vfabric vfabric-sa vfabric-em opensm-vfabric.7; do
	f=$(page "$p")
	name=$(basename "$f")
	out=$(groff -man -ww -z "$f" 2>&1) && [ -z "$out" ]
	ok "$name: groff -man -ww has no warning" "$out"
	if command -v mandoc > /dev/null; then
		out=$(mandoc -T lint -W warning "$f" 2>&1) && [ -z "$out" ]
		ok "$name: mandoc -T lint has no warning" "$out"
	fi
done

for t in $tools; do
	exe=$(bin "$t")
	text=$tmp/$t.txt
	render "$(page "$t")" > "$text"
	cmds=$(commands "$t")
	shown=$(echo $cmds)
	[ -n "$cmds" ]
	ok "$t: the commands are found in its source ($shown)"

	# (c) --version
	out=$("$exe" --version 2>&1) &&
		[ "$out" = "$t (opensm-vfabric) $version" ]
	ok "$t --version prints '$t (opensm-vfabric) $version'" "$out"
	out=$("$exe" -V 2>&1) && [ "$out" = "$t (opensm-vfabric) $version" ]
	ok "$t -V prints the version too" "$out"

	# (b) the options of the main help, then (d) each command's help
	"$exe" --help > "$tmp/help" 2>&1
	ok "$t --help exits 0"
	opts=$(grep -o -E -- '--[a-z][a-z0-9-]*' "$tmp/help" | sort -u)
	for c in $cmds; do
		for h in --help -h; do
			"$exe" "$c" $h > "$tmp/h.$c" 2> "$tmp/err"
			rc=$?
			[ $rc -eq 0 ] && [ -s "$tmp/h.$c" ] && [ ! -s "$tmp/err" ] &&
				grep -q "^usage: $t $c" "$tmp/h.$c"
			ok "$t $c $h: exit 0, its usage on stdout" \
				"exit $rc, $(head -c 200 "$tmp/err")"
		done
		opts="$opts
$(grep -o -E -- '--[a-z][a-z0-9-]*' "$tmp/h.$c")"
		grep -q -E -- "(^|[^a-z-])$c([^a-z-]|\$)" "$text"
		ok "$t.1 describes the command $c"
	done
	missing=
	for o in $(echo "$opts" | sort -u); do
		grep -q -E -- "$o([^a-z0-9-]|\$)" "$text" || missing="$missing $o"
	done
	[ -z "$missing" ]
	ok "$t.1 has every long option of $t's help" "missing$missing"
done

# (b) every setting of apply() in opensm-vfabric.7
render "$top/man/opensm-vfabric.7" > "$tmp/plugin.txt"
keys=$(sed -n '/^static int apply(/,/^}/p' "$top/plugin/options.c" |
	sed -n -E 's/.*strn?cmp\(key, "([a-z_]+)".*/\1/p')
count=$(echo "$keys" | wc -w)
[ "$count" -ge 30 ]
ok "plugin/options.c's apply() has its settings ($count)"
missing=
for k in $keys; do
	case $k in
	dg_) grep -q 'dg_NAME=' "$tmp/plugin.txt" || missing="$missing dg_<name>" ;;
	*) grep -q -E "(^|[^a-z_])$k=" "$tmp/plugin.txt" || missing="$missing $k" ;;
	esac
done
[ -z "$missing" ]
ok "opensm-vfabric.7 describes every event_plugin_options setting" \
	"missing$missing"

# (e) the completions, with and without bash-completion loaded
if command -v bash > /dev/null; then
	for bc in none /usr/share/bash-completion/bash_completion; do
		[ "$bc" = none ] || [ -f "$bc" ] || continue
		cat > "$tmp/comp.bash" <<END
[ "$bc" = none ] || . "$bc"
. "$top/completion/vfabric"
. "$top/completion/vfabric-sa"
. "$top/completion/vfabric-em"
comp() { # comp FUNCTION WORD...: the completions of the last word
	local f=\$1
	shift
	COMP_WORDS=("\$@")
	COMP_CWORD=\$((\$# - 1))
	COMPREPLY=()
	"\$f"
	printf '%s\n' "\${COMPREPLY[@]}" | sort
}
cd "$tmp"
comp _vfabric vfabric '' > vfabric.cmds
comp _vfabric_sa vfabric-sa '' > vfabric-sa.cmds
comp _vfabric_em vfabric-em '' > vfabric-em.cmds
comp _vfabric vfabric route --eng > eng
comp _vfabric vfabric route --engine '' > engines
comp _vfabric vfabric arsim --engine fat > fat
comp _vfabric vfabric check-routes --lf > lfts
touch topo-a.net
comp _vfabric vfabric route --topo topo- > topo
comp _vfabric vfabric check-routes --lfts li > live
comp _vfabric vfabric explain --node-n > nnm
comp _vfabric_sa vfabric-sa path --numb > numb
comp _vfabric_em vfabric-em set 7 --state forw > state
END
		label=${bc##*/}
		[ "$bc" = none ] && label="no bash-completion"
		bash "$tmp/comp.bash" > "$tmp/comp.out" 2>&1 && [ ! -s "$tmp/comp.out" ]
		ok "completions load and run ($label)" "$(head -c 300 "$tmp/comp.out")"
		for t in $tools; do
			missing=
			for c in $(commands "$t"); do
				grep -q -x -- "$c" "$tmp/$t.cmds" || missing="$missing $c"
			done
			[ -z "$missing" ]
			ok "'$t ' completes every command ($label)" "missing$missing"
		done
		[ "$(cat "$tmp/eng")" = --engine ]
		ok "'vfabric route --eng' completes to --engine ($label)" "$(cat "$tmp/eng")"
		grep -q -x fattree "$tmp/engines" && grep -q -x shortestpath "$tmp/engines"
		ok "'vfabric route --engine ' offers fattree and shortestpath ($label)" "$(echo $(cat "$tmp/engines"))"
		[ "$(cat "$tmp/fat")" = fattree ]
		ok "'vfabric arsim --engine fat' completes to fattree ($label)"
		[ "$(cat "$tmp/lfts")" = --lfts ]
		ok "'vfabric check-routes --lf' completes to --lfts ($label)"
		[ "$(cat "$tmp/topo")" = topo-a.net ]
		ok "'vfabric route --topo topo-' completes a file name ($label)" "$(cat "$tmp/topo")"
		[ "$(cat "$tmp/live")" = live ]
		ok "'vfabric check-routes --lfts li' completes to live ($label)" "$(cat "$tmp/live")"
		[ "$(cat "$tmp/nnm")" = --node-name-map ]
		ok "'vfabric explain --node-n' completes to --node-name-map ($label)" "$(cat "$tmp/nnm")"
		[ "$(cat "$tmp/numb")" = --numb-path ]
		ok "'vfabric-sa path --numb' completes to --numb-path ($label)"
		[ "$(cat "$tmp/state")" = forwarding ]
		ok "'vfabric-em set 7 --state forw' completes to forwarding ($label)"
	done
fi
echo "1..$n"
exit $fail
