#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Build the Debian packages opensm-vfabric and opensm-vfabric-tools from
# this tree's files (git's view: tracked files as they are on disk) in a
# copy aside, so the tree's own build is untouched; check them with
# lintian (any error or warning fails) and leave the .debs in _deb/.
# Needs the packages of scripts/install-deps.sh (debhelper, lintian).
set -e
cd "$(dirname "$0")/.."
top=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/opensm-vfabric"
git ls-files -z | xargs -0 tar -cf - | tar -xf - -C "$work/opensm-vfabric"
cd "$work/opensm-vfabric"
if ! dpkg-buildpackage -b -us -uc > "$top/deb-build.log" 2>&1; then
	tail -n 40 "$top/deb-build.log"
	echo "build-deb: dpkg-buildpackage failed (deb-build.log)" >&2
	exit 1
fi
cd "$work"
# lintian refuses nothing as root but says so on stderr; keep stdout
lintian --fail-on error,warning --pedantic -I ./*.changes 2>/dev/null
rm -rf "$top/_deb"
mkdir "$top/_deb"
cp ./*.deb "$top/_deb/"
ls "$top/_deb"
