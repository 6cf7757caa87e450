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
 * A query that fixes one side's LID (SLID or DLID given: the fixed side F
 * has one LID, at offset f of its mf = 2^LMC; the other side X has nx)
 * iterates X only, as the FM's lid_iterator_init1 (sa_utility.c):
 *
 *   Minimal    the one X LID across: offset f mod nx
 *   Pairwise   the X LIDs the full Pairwise set pairs with f: offsets
 *              f mod nx, then up in steps of mf while below nx
 *   OrderAll   those, then every other X LID in ascending order: nx
 *   SrcDstAll  every X LID in ascending order: nx
 *
 * A query fixing both gives that one pair.  Without a fixed side the
 * order equals the FM's lid_iterator_init/next (LIDs are aligned to 2^LMC,
 * so its low-bit tests are our offsets); t-pathsel compares both with a
 * model of the FM's iterators for LMC 0-3 on either side.
 */
#ifndef VF_PATHSEL_H
#define VF_PATHSEL_H

#include <stdbool.h>
#include <stdint.h>

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
	/* one side fixed: its offset and LID count, the other's count */
	bool one_fixed, src_fixed;
	unsigned f, mf, nx;
	unsigned pairwise;	/* how many of its steps are Pairwise ones */
	unsigned next_x;	/* OrderAll's cursor over the other X LIDs */
};

void vf_lid_iter_init(struct vf_lid_iter *it, enum vf_path_selection mode,
		      const struct vf_lid_side *src,
		      const struct vf_lid_side *dst);
/* The next pair; false when done. */
bool vf_lid_iter_next(struct vf_lid_iter *it, unsigned *slid,
		      unsigned *dlid);

/*
 * May a VF's P_Key carry a path, given the entries the source's and the
 * destination's tables hold for it (0: none; bit 15: full)?  Both must
 * hold it, and one as a full member (IBA: two limited members cannot
 * talk), unless source and destination are the same port: the FM answers
 * a loopback path in every VF the port is a member of, limited or not
 * (reference/opa-fm.md 2.1 step 5).
 */
static inline bool vf_path_entries_allow(uint16_t src_entry,
					 uint16_t dst_entry, bool loopback)
{
	if (!src_entry || !dst_entry)
		return false;
	return loopback || ((src_entry | dst_entry) & 0x8000);
}

#endif /* VF_PATHSEL_H */
