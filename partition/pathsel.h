/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * PathSelection: in which order, and how many, LID pairs a PathRecord
 * answer gives between two ports with LMC > 0 (reference/opa-fm.md 3.5).
 * With source LIDs S0..Sm-1 and destination LIDs D0..Dn-1:
 *
 *   Minimal    (S0,D0), (S1,D1), ... until either side runs out: min(m,n)
 *   Pairwise   the same with wrap-around until both sides have each been
 *              used: max(m,n)
 *   OrderAll   the Pairwise pairs, then every other pair, source outer:
 *              m*n
 *   SrcDstAll  every pair, source outer, destination inner: m*n
 *
 * A query that fixes one side's LID (SLID or DLID given) starts the other
 * side at the same LMC offset, so Minimal gives the one pair "across" and
 * Pairwise and OrderAll every LID of the other side from there; SrcDstAll
 * keeps its plain order.  A query fixing both gives that one pair.
 */
#ifndef VF_PATHSEL_H
#define VF_PATHSEL_H

#include <stdbool.h>

enum vf_path_selection {
	VF_PATHSEL_MINIMAL,	/* the FM's default */
	VF_PATHSEL_PAIRWISE,
	VF_PATHSEL_ORDERALL,
	VF_PATHSEL_SRCDSTALL,
};

/* "Minimal", "pairwise", ... (any case); -1 when unknown. */
int vf_path_selection_parse(const char *s);
const char *vf_path_selection_name(enum vf_path_selection s);

/*
 * One port's LIDs: count (2^LMC) starting at base, or only the one at
 * offset `fixed` (0 <= fixed < count) when the query named that LID.
 */
struct vf_lid_side {
	unsigned base, count;
	int fixed;		/* -1 none */
};

struct vf_lid_iter {
	enum vf_path_selection mode;
	struct vf_lid_side s, d;
	unsigned k, total;	/* step, and how many steps */
	unsigned so, doff;	/* start offsets (a fixed side's offset) */
};

void vf_lid_iter_init(struct vf_lid_iter *it, enum vf_path_selection mode,
		      const struct vf_lid_side *src,
		      const struct vf_lid_side *dst);
/* The next pair; false when done. */
bool vf_lid_iter_next(struct vf_lid_iter *it, unsigned *slid,
		      unsigned *dlid);

#endif /* VF_PATHSEL_H */
