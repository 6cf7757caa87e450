#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Install the Debian packages opensm-vfabric builds and tests with.
# Installs only what is missing; needs root (or sudo) when something is.
# clang and libclang-rt-14-dev (libclang_rt.fuzzer): the fuzz targets;
# libibnetdisc-dev, libibmad-dev: vfabric's --topo live / --lfts live;
# time (/usr/bin/time): make bench's peak memory of offline routings.
# python3-pulp, coinor-cbc: the exact oracle of fattree's balance
# (sim/routeilp.py).
# debhelper, dpkg-dev, fakeroot, lintian: the Debian packages
# (scripts/build-deb.sh).  groff-base, mandoc: the man pages' lint;
# bash-completion: the completions' test with it loaded
# (tests/lint/t-manpages.sh).
set -e
PKGS="build-essential autoconf automake libtool pkg-config python3 valgrind
python3-matplotlib time python3-pulp coinor-cbc
opensm libopensm-dev libibumad-dev libxml2-dev libjson-c-dev
libibnetdisc-dev libibmad-dev
ibsim-utils libumad2sim0 infiniband-diags iproute2 iputils-ping
clang libclang-rt-14-dev
debhelper dpkg-dev fakeroot lintian
groff-base mandoc bash-completion"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
