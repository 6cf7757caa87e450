/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * A minimal TAP producer for the C unit tests.  Each check prints
 * "ok N - what" or "not ok N - what" plus the file:line and the values on
 * failure; tap_done() prints the plan and returns the exit status.
 */
#ifndef VF_TAP_H
#define VF_TAP_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned tap_count, tap_failed;

static inline int tap_ok(int cond, const char *file, int line,
			 const char *what)
{
	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %u - %s\n", cond ? "" : "not ", tap_count, what);
	if (!cond)
		printf("#   failed at %s:%d\n", file, line);
	fflush(stdout);
	return cond;
}

#define OK(cond, what) tap_ok(!!(cond), __FILE__, __LINE__, (what))

/* p holds the bytes of hex (pairs of digits, blanks between ignored):
 * for layouts written down byte by byte from a spec. */
static inline int tap_bytes_are(const uint8_t *p, const char *hex)
{
	unsigned v;

	while (*hex) {
		if (*hex == ' ') {
			hex++;
			continue;
		}
		if (sscanf(hex, "%2x", &v) != 1 || *p++ != v)
			return 0;
		hex += 2;
	}
	return 1;
}

#define EQ_U(a, b, what)                                                  \
	do {                                                              \
		uint64_t a_ = (a), b_ = (b);                              \
		if (!OK(a_ == b_, what))                                  \
			printf("#   got %" PRIu64 ", expected %" PRIu64   \
			       "\n", a_, b_);                             \
	} while (0)

#define EQ_S(a, b, what)                                                  \
	do {                                                              \
		const char *a_ = (a), *b_ = (b);                          \
		if (!OK(a_ && b_ && !strcmp(a_, b_), what))               \
			printf("#   got \"%s\", expected \"%s\"\n",       \
			       a_ ? a_ : "(null)", b_ ? b_ : "(null)");   \
	} while (0)

/*
 * Path of a file under tests/data, found through $top_srcdir (set by make
 * check; "." by hand).  The buffer is reused by the next call.
 */
static inline const char *fixture(const char *name)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/tests/data/%s", top ? top : ".",
		 name);
	return path;
}

static inline int tap_done(void)
{
	printf("1..%u\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif /* VF_TAP_H */
