#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# make check: a short libFuzzer run of every target (fuzz/fuzz.sh check);
# skipped without clang and libclang-rt.
exec sh "${top_srcdir:-.}/fuzz/fuzz.sh" check
