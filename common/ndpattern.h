/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * NodeDesc patterns of opafm.xml <DeviceGroup><NodeDesc>, meaning exactly
 * what the FM makes of them (reference/opa-fm.md 1.3.1): the FM turns a
 * pattern into a POSIX extended regular expression, matches it once, and
 * then range-checks the digits each [lo-hi] captured.
 *
 *   - literals: A-Z a-z 0-9 - , = _ . and space; nothing else;
 *   - '*' zero or more, '?' zero or one character of that class or any
 *     other white space (the FM's [:space:]); a run of wildcards holding a
 *     '*' is one '*', a run of '?' stays that many '?'; a wildcard may not
 *     be followed by '[';
 *   - the pattern is anchored at its start unless it starts with '*' or is
 *     only '?'s, and at its end unless it ends with '*': an unanchored end
 *     lets anything follow, an unanchored start anything precede;
 *   - [lo-hi] is the WHOLE run of digits there, as the leftmost-longest
 *     match gives it (earlier wildcards and ranges take as much as they
 *     can), checked afterwards: "cn[1-16]*" does not match cn17 or cn160.
 *     A run written with a leading zero, or bounds whose low end has one,
 *     must be exactly as wide as the low end is written (node[06-10]
 *     matches node06 and node10, not node6); a bound has at most 5 digits
 *     after its leading zeros, lo <= hi, lo has no more digits than hi
 *     and, as wide, as many leading zeros; a pattern may not be one range
 *     alone;
 *   - :[lo-hi] as the very last token: only ports lo..hi of the matching
 *     nodes; no other ':' is allowed.
 *
 * Refused although the FM takes them, because there its meaning is
 * undefined (it reads past its own arrays) or an accident: a range that
 * would be capture group 10 or later of the FM's expression, an
 * expression over the FM's 1499 characters, an unclosed '[', an empty
 * pattern, and a pattern of 64 characters (the FM silently keeps 63).
 *
 * Matching takes O(tokens x NodeDesc length x digit run) time, never
 * exponential.
 */
#ifndef VF_NDPATTERN_H
#define VF_NDPATTERN_H

#include <stdbool.h>
#include <stddef.h>

struct vf_ndpat;	/* opaque, compiled pattern */

/*
 * Compile text; 0 and *out set, or -EINVAL with a message in err (errlen
 * bytes, always NUL-terminated) and *out NULL, or -ENOMEM ("out of
 * memory").  The -EINVAL message is one line, "column N: what is wrong",
 * N counting from 1 (a column past the end when something is missing
 * there).  err may be NULL if errlen is 0.
 */
int vf_ndpat_compile(const char *text, struct vf_ndpat **out, char *err,
		     size_t errlen);

/* Does the NodeDesc desc match (the port range plays no part here)? */
bool vf_ndpat_match(const struct vf_ndpat *p, const char *desc);

/*
 * Whether the pattern ends in :[lo-hi]; if so sets *lo and *hi, otherwise
 * leaves them alone.
 */
bool vf_ndpat_ports(const struct vf_ndpat *p, unsigned *lo, unsigned *hi);

/* The text it was compiled from. */
const char *vf_ndpat_text(const struct vf_ndpat *p);

/* Free a compiled pattern; NULL is fine. */
void vf_ndpat_free(struct vf_ndpat *p);

#endif /* VF_NDPATTERN_H */
