/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * What the fuzz targets share (docs/testing.md, "Fuzzing").  Each target is
 * one file defining LLVMFuzzerTestOneInput; it is linked either with
 * libFuzzer (clang, fuzz/build.sh) or with fuzz/replay.c, which runs files
 * through it once (make check, any compiler).
 */
#ifndef VF_FUZZ_H
#define VF_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/fabric.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A path naming a file that holds exactly data[0..size) (an in-memory file,
 * reused by the next call): for the parsers that take a path.
 */
const char *vf_fuzz_file(const uint8_t *data, size_t size);

/* data[0..size) as a NUL-terminated string (heap; free it). */
char *vf_fuzz_string(const uint8_t *data, size_t size);

/*
 * An invariant of the code under test: when it does not hold, print why
 * and abort, which both libFuzzer and the replay report as a crash.
 */
#define VF_FUZZ_CHECK(cond, ...) \
	((cond) ? (void)0 : vf_fuzz_fail(__FILE__, __LINE__, __VA_ARGS__))
void vf_fuzz_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

/*
 * A small fixed fabric to resolve inputs on: two leaves and two spines,
 * hosts whose NodeDescs the conf/ examples' DeviceGroups match (cn*,
 * stor*, adm*, a two-port host), LIDs assigned with lmc.  Built once per
 * lmc and kept (never freed: LeakSanitizer sees it reachable).
 */
const struct vf_fabric *vf_fuzz_fabric(unsigned lmc);

#endif /* VF_FUZZ_H */
