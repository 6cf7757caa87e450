// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * PathSelection order of LID pairs (reference/opa-fm.md 3.5), for LMC 1
 * and 2 on either side and for queries that fix one side's LID.
 */
#include <stdio.h>
#include <string.h>

#include "partition/pathsel.h"
#include "tap.h"

/* The pairs as "s-d s-d ..." in LMC offsets from the bases 100 and 200. */
static const char *pairs(enum vf_path_selection mode, unsigned m, int sfix,
			 unsigned n, int dfix)
{
	static char buf[512];
	struct vf_lid_side s = { 100, m, sfix }, d = { 200, n, dfix };
	struct vf_lid_iter it;
	unsigned slid, dlid;
	size_t len = 0;

	buf[0] = '\0';
	vf_lid_iter_init(&it, mode, &s, &d);
	while (vf_lid_iter_next(&it, &slid, &dlid) && len < sizeof(buf) - 16)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u-%u",
					len ? " " : "", slid - 100, dlid - 200);
	return buf;
}

int main(void)
{
	EQ_U(vf_path_selection_parse("orderall"), VF_PATHSEL_ORDERALL,
	     "names are case-insensitive");
	EQ_U(vf_path_selection_parse("SrcDstAll"), VF_PATHSEL_SRCDSTALL,
	     "SrcDstAll");
	OK(vf_path_selection_parse("shortest") < 0, "an unknown name fails");

	/* LMC 2 on both sides */
	EQ_S(pairs(VF_PATHSEL_MINIMAL, 4, -1, 4, -1), "0-0 1-1 2-2 3-3",
	     "Minimal, LMC 2 both: the 4 pairs across");
	EQ_S(pairs(VF_PATHSEL_PAIRWISE, 4, -1, 4, -1), "0-0 1-1 2-2 3-3",
	     "Pairwise, LMC 2 both: the same 4");
	EQ_S(pairs(VF_PATHSEL_SRCDSTALL, 2, -1, 2, -1), "0-0 0-1 1-0 1-1",
	     "SrcDstAll, LMC 1 both: source outer, destination inner");
	EQ_S(pairs(VF_PATHSEL_ORDERALL, 2, -1, 2, -1), "0-0 1-1 0-1 1-0",
	     "OrderAll, LMC 1 both: the pairs across first, then the rest");
	EQ_S(pairs(VF_PATHSEL_ORDERALL, 4, -1, 4, -1),
	     "0-0 1-1 2-2 3-3 0-1 0-2 0-3 1-0 1-2 1-3 2-0 2-1 2-3 3-0 3-1 3-2",
	     "OrderAll, LMC 2 both: 16 pairs, none twice");

	/* different LMC on the two sides */
	EQ_S(pairs(VF_PATHSEL_MINIMAL, 2, -1, 4, -1), "0-0 1-1",
	     "Minimal, LMC 1 to LMC 2: min(2,4) pairs");
	EQ_S(pairs(VF_PATHSEL_PAIRWISE, 2, -1, 4, -1), "0-0 1-1 0-2 1-3",
	     "Pairwise, LMC 1 to LMC 2: wraps the source until every "
	     "destination LID is used");
	EQ_S(pairs(VF_PATHSEL_PAIRWISE, 4, -1, 2, -1), "0-0 1-1 2-0 3-1",
	     "Pairwise, LMC 2 to LMC 1: wraps the destination");
	EQ_S(pairs(VF_PATHSEL_ORDERALL, 2, -1, 4, -1),
	     "0-0 1-1 0-2 1-3 0-1 0-3 1-0 1-2",
	     "OrderAll, LMC 1 to LMC 2: Pairwise, then the 4 others");
	EQ_S(pairs(VF_PATHSEL_SRCDSTALL, 1, -1, 4, -1), "0-0 0-1 0-2 0-3",
	     "SrcDstAll, LMC 0 to LMC 2");
	EQ_S(pairs(VF_PATHSEL_MINIMAL, 1, -1, 4, -1), "0-0",
	     "Minimal, LMC 0 to LMC 2: one pair");

	/* queries that fix a side's LID */
	EQ_S(pairs(VF_PATHSEL_MINIMAL, 4, 2, 4, -1), "2-2",
	     "Minimal, SLID fixed at offset 2: the destination LID across");
	EQ_S(pairs(VF_PATHSEL_PAIRWISE, 4, 2, 4, -1), "2-2 2-3 2-0 2-1",
	     "Pairwise, SLID fixed: every destination LID from the same "
	     "offset on");
	EQ_S(pairs(VF_PATHSEL_ORDERALL, 4, 2, 4, -1), "2-2 2-3 2-0 2-1",
	     "OrderAll, SLID fixed: as Pairwise");
	EQ_S(pairs(VF_PATHSEL_SRCDSTALL, 4, 2, 4, -1), "2-0 2-1 2-2 2-3",
	     "SrcDstAll, SLID fixed: plain order");
	EQ_S(pairs(VF_PATHSEL_MINIMAL, 2, -1, 2, 1), "1-1",
	     "Minimal, DLID fixed at offset 1 (LMC 1): the source LID across");
	EQ_S(pairs(VF_PATHSEL_PAIRWISE, 4, -1, 2, 1), "1-1 2-1 3-1 0-1",
	     "Pairwise, DLID fixed, LMC 2 source: every source LID from "
	     "offset 1");
	EQ_S(pairs(VF_PATHSEL_ORDERALL, 4, 3, 4, 1), "3-1",
	     "both LIDs fixed: that one pair");
	EQ_S(pairs(VF_PATHSEL_PAIRWISE, 1, 0, 4, -1), "0-0 0-1 0-2 0-3",
	     "Pairwise from an LMC 0 port to LMC 2: all 4");
	return tap_done();
}
