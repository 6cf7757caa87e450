#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# What 'make install' puts where (into a DESTDIR), and what 'make
# uninstall' leaves: the plugin in $libdir, the tools, every document
# under $docdir (the README refers to docs/*.md), the conf examples, the
# man pages, the bash completions, no test harness; and the warning for
# an opensm.conf that still loads a removed plugin
# (scripts/opensm-conf-check.sh).
top=${top_srcdir:-.}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
n=0
fail=0
check() { # check DESCRIPTION COMMAND...
	desc=$1
	shift
	n=$((n + 1))
	if "$@" > /dev/null 2>&1; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		fail=1
	fi
}
mk() { ${MAKE:-make} --no-print-directory -s "$@" DESTDIR="$dest"; }

check "make install into a DESTDIR" mk install
vars=$(${MAKE:-make} --no-print-directory -s -f - print-dirs <<'END'
include Makefile
print-dirs:
	@echo "libdir='$(libdir)' bindir='$(bindir)' docdir='$(docdir)' pkgdatadir='$(pkgdatadir)' mandir='$(mandir)' bashcompletiondir='$(bashcompletiondir)'"
END
)
eval "$vars"
check "libvfabric.so is in \$libdir" test -f "$dest$libdir/libvfabric.so"
for tool in vfabric vfabric-sa vfabric-em; do
	check "$tool is in \$bindir" test -x "$dest$bindir/$tool"
done
check "the README is in \$docdir" test -f "$dest$docdir/README.md"
for doc in "$top"/docs/*.md; do
	name=$(basename "$doc")
	check "docs/$name is in \$docdir/docs" test -f "$dest$docdir/docs/$name"
done
for example in "$top"/conf/*.xml "$top"/conf/opensm-vfabric.conf; do
	name=$(basename "$example")
	check "conf/$name is in \$pkgdatadir" test -f "$dest$pkgdatadir/$name"
done
for page in vfabric.1 vfabric-sa.1 vfabric-em.1 opensm-vfabric.7; do
	sect=man${page##*.}
	check "the man page $page is in \$mandir/$sect" \
		test -f "$dest$mandir/$sect/$page"
done
for tool in vfabric vfabric-sa vfabric-em; do
	check "the bash completion of $tool is in \$bashcompletiondir" \
		test -f "$dest$bashcompletiondir/$tool"
done
py=$(find "$dest" -name '*.py' ! -name arplot.py | sed "s|^$dest||")
n=$((n + 1))
if [ -z "$py" ]; then
	echo "ok $n - no test harness installed (only arplot.py, for arsim --plot)"
else
	echo "not ok $n - no test harness installed: $py"
	fail=1
fi
check "make uninstall from the DESTDIR" mk uninstall
left=$(find "$dest" -type f | sed "s|^$dest||")
n=$((n + 1))
if [ -z "$left" ]; then
	echo "ok $n - make uninstall removes every installed file"
else
	echo "not ok $n - make uninstall leaves: $left"
	fail=1
fi

# The removal warning: said for a conf that loads vfabric, not otherwise.
conf=$dest/opensm.conf
warn() { sh "$top/scripts/opensm-conf-check.sh" "$conf" 2>&1; }
warns() { warn | grep -q 'still loads the removed plugin'; }
for line in 'event_plugin_name vfabric' 'event_plugin_name	other vfabric'; do
	printf '%s\n' "$line" > "$conf"
	check "warns for '$line'" warns
done
for line in '#event_plugin_name vfabric' 'event_plugin_name (null)' \
	'event_plugin_name vfabricx' 'event_plugin_options vfabric' \
	"$(printf 'event_plugin_name vfabric\nevent_plugin_name (null)')"; do
	printf '%s\n' "$line" > "$conf"
	check "no warning for '$(printf '%s' "$line" | tr '\n' '/')'" test -z "$(warn)"
done
echo "1..$n"
exit $fail
