#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# make check: every fuzz corpus and regression input replayed once through
# its target built with the normal compiler (fuzz/fuzz.sh replay).
exec sh "${top_srcdir:-.}/fuzz/fuzz.sh" replay
