#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Build every fuzz target with clang's libFuzzer, ASan and UBSan into
# $top_builddir/fuzz/clang/ (the gcc build is not touched).  Objects are
# rebuilt when their source or any header of the tree is newer.
# Exit 0 built, 77 when clang or libFuzzer is missing, 1 on a failure.
# Environment (the Makefile sets it): CLANG XML_CFLAGS XML_LIBS
# JSONC_CFLAGS JSONC_LIBS
# OPENSM_CPPFLAGS FUZZ_TARGETS top_srcdir top_builddir.
set -u
src=${top_srcdir:?}
out=${top_builddir:?}/fuzz/clang
cc=${CLANG:-clang}
[ "$cc" = no ] && cc=clang
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cflags="-std=gnu11 -g -O1 -fno-omit-frame-pointer $san -I$src -I$out ${JSONC_CFLAGS:-}"
mkdir -p "$out/obj" || exit 1

# libFuzzer usable? (Debian: clang and libclang-rt-14-dev)
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ return 0; }\n' \
	>"$out/probe.src"
if ! "$cc" -fsanitize=fuzzer,address -x c "$out/probe.src" -o "$out/probe" \
	>/dev/null 2>&1; then
	echo "build.sh: $cc cannot link -fsanitize=fuzzer (apt-get install clang libclang-rt-14-dev)"
	exit 77
fi

newest_h=$(find "$src/common" "$src/routing" "$src/partition" "$src/vnic" \
	"$src/plugin" "$src/fuzz" -name '*.h' -newer "$out/stamp" 2>/dev/null |
	head -1)
[ -f "$out/stamp" ] || newest_h=all

# compile src-relative path $1 with extra flags $2; prints the object
obj() {
	o=$out/obj/$(echo "$1" | tr / _).o
	if [ -n "$newest_h" ] || [ ! -f "$o" ] || [ "$src/$1" -nt "$o" ]; then
		# shellcheck disable=SC2086
		"$cc" $cflags -fsanitize=fuzzer-no-link $2 -c "$src/$1" \
			-o "$o" >&2 || return 1
	fi
	echo "$o"
}

# the four libraries as archives: each target links what it uses
lib() {
	name=$1; shift
	objs=
	for s in "$@"; do
		o=$(obj "$s" "$XML_CFLAGS") || return 1
		objs="$objs $o"
	done
	rm -f "$out/lib$name.a"
	# shellcheck disable=SC2086
	ar rcs "$out/lib$name.a" $objs
}
cd "$src" || exit 1
lib routing routing/*.c || exit 1
lib partition partition/*.c || exit 1
lib vnic vnic/*.c || exit 1
lib common common/*.c || exit 1
libs="$out/libvnic.a $out/libpartition.a $out/librouting.a $out/libcommon.a $XML_LIBS ${JSONC_LIBS:-} -lm"

fail=0
for t in ${FUZZ_TARGETS:?}; do
	srcs="fuzz/fuzz-$t.c fuzz/support.c"
	extra=
	link=
	case $t in
	xmlconf|pconf) srcs="$srcs fuzz/resolve.c" ;;
	options) srcs="$srcs plugin/options.c plugin/options_show.c"
	    extra=$OPENSM_CPPFLAGS ;;
	sa) srcs="$srcs fuzz/sa-subnet.c fuzz/sa-opensm.c plugin/sa_path.c plugin/sa_mcast.c plugin/sa_service.c plugin/sa_budget.c plugin/sa_error.c plugin/metrics.c plugin/nodedesc.c plugin/subnet.c plugin/layers.c plugin/options.c"
	    extra=$OPENSM_CPPFLAGS
	    link="-lopensm -losmcomp -lpthread -ldl" ;;
	esac
	objs=
	for s in $srcs; do
		o=$(obj "$s" "$extra") || { fail=1; continue 2; }
		objs="$objs $o"
	done
	# shellcheck disable=SC2086
	"$cc" -fsanitize=fuzzer $san $objs $libs $link -o "$out/fuzz-$t" ||
		fail=1
done
[ $fail = 0 ] && touch "$out/stamp"
exit $fail
