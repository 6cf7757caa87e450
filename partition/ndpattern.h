/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * NodeDesc patterns of opafm.xml <DeviceGroup><NodeDesc>, in the FM's own
 * wildcard dialect (reference/opa-fm.md 1.3.1):
 *
 *   - literals: A-Z a-z 0-9 - , = _ . and space; nothing else;
 *   - '*' zero or more, '?' zero or one character of that same class (not
 *     any character); a run of wildcards holding a '*' counts as one
 *     '*', each '?' of a run without one as a '?' (the FM's code;
 *     reference/opa-fm.md 1.3.1 has every run collapse); a wildcard may
 *     not be followed by '[';
 *   - [lo-hi] a run of digits whose value is within lo..hi; bounds written
 *     with leading zeros ask for exactly the width of hi (node[06-10]
 *     matches node06, not node6), otherwise the run may not have a leading
 *     zero (node[1-12] matches node7, not node07); at most 10 ranges, 5
 *     digits a number, lo <= hi, lo no wider than hi;
 *   - :[lo-hi] as the very last token: only ports lo..hi (0..255) of the
 *     matching nodes; no other ':' is allowed;
 *   - at most 64 characters, matched against the whole NodeDesc.
 *
 * Matching takes time linear in the NodeDesc whatever the pattern.
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
