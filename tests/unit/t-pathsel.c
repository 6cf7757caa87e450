// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * PathSelection order of LID pairs (reference/opa-fm.md 3.5), for LMC 1
 * and 2 on either side and for queries that fix one side's LID; and every
 * combination of LMC 0-3 on each side, fixed or open sides and the four
 * PathSelection values against an independent model of the FM's LID
 * iterators (lid_iterator_init/next and init1/next1 in the FM's
 * Esm/ib/src/smi/sa/sa_utility.c, and how sa_PathRecord.c calls them),
 * written from that source, not from partition/pathsel.c.
 */
#include <stdio.h>
#include <string.h>

#include "partition/pathsel.h"
#include "taptest.h"

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

/* ---- a model of the FM's iterators, on raw (aligned) LIDs ----------- */

struct fm_pairs {
	unsigned s[4096], d[4096];
	unsigned n;
};

static void fm_emit(struct fm_pairs *o, unsigned slid, unsigned dlid)
{
	if (o->n < 4096) {
		o->s[o->n] = slid;
		o->d[o->n] = dlid;
	}
	o->n++;
}

/*
 * No LID given: the pair of base LIDs first, whatever the mode; then
 * Minimal: both counters up together while both are in range;
 * Pairwise: both up together while either is in range, each LID taken
 * modulo its port's LMC (the high bits of the base, the low of the
 * counter); OrderAll: that, then every pair source-major whose low bits
 * (the bits both LMC masks have) differ; SrcDstAll: source-major, all.
 */
static void fm_two_sided(enum vf_path_selection mode, unsigned sb,
			 unsigned slmc, unsigned db, unsigned dlmc,
			 struct fm_pairs *o)
{
	unsigned smask = (1u << slmc) - 1, dmask = (1u << dlmc) - 1;
	unsigned send = sb + (1u << slmc), dend = db + (1u << dlmc);
	unsigned both = smask & dmask, s, d;

	o->n = 0;
	switch (mode) {
	case VF_PATHSEL_MINIMAL:
		for (s = sb, d = db; s < send && d < dend; s++, d++)
			fm_emit(o, s, d);
		break;
	case VF_PATHSEL_PAIRWISE:
	case VF_PATHSEL_ORDERALL:
		for (s = sb, d = db; s < send || d < dend; s++, d++)
			fm_emit(o, (sb & ~smask) | (s & smask),
				(db & ~dmask) | (d & dmask));
		if (mode == VF_PATHSEL_PAIRWISE)
			break;
		for (s = sb; s < send; s++)
			for (d = db; d < dend; d++)
				if ((s & both) != (d & both))
					fm_emit(o, s, d);
		break;
	case VF_PATHSEL_SRCDSTALL:
		for (s = sb; s < send; s++)
			for (d = db; d < dend; d++)
				fm_emit(o, s, d);
		break;
	}
}

/*
 * One LID given (fl, on a port with LMC flmc): only the other side X
 * (base xb, LMC xlmc) moves.  Pairwise and OrderAll start X at the base
 * with the given LID's low bits (as far as X's mask has them) and step up
 * by the given side's LID count while below X's end; OrderAll then walks
 * all of X up from its base, taking those whose common low bits differ
 * from the given LID's.  Minimal: the start only.  SrcDstAll: all of X.
 * sa_PathRecord passes the given side as the first port whether it is
 * the source or the destination; *xs receives the X LIDs.
 */
static unsigned fm_one_fixed(enum vf_path_selection mode, unsigned fl,
			     unsigned flmc, unsigned xb, unsigned xlmc,
			     unsigned *xs)
{
	unsigned fmask = (1u << flmc) - 1, xmask = (1u << xlmc) - 1;
	unsigned xend = xb + (1u << xlmc), start = xb | (fl & fmask & xmask);
	unsigned n = 0, x;

	switch (mode) {
	case VF_PATHSEL_MINIMAL:
		xs[n++] = start;
		break;
	case VF_PATHSEL_PAIRWISE:
	case VF_PATHSEL_ORDERALL:
		for (x = start; x < xend; x += 1u << flmc)
			xs[n++] = x;
		if (mode == VF_PATHSEL_PAIRWISE)
			break;
		for (x = xb; x < xend; x++)
			if ((fl & fmask & xmask) != (x & xmask & fmask))
				xs[n++] = x;
		break;
	case VF_PATHSEL_SRCDSTALL:
		for (x = xb; x < xend; x++)
			xs[n++] = x;
		break;
	}
	return n;
}

/* The FM's answer to a query: sfix/dfix -1 for an open side. */
static void fm_model(enum vf_path_selection mode, unsigned sb, unsigned slmc,
		     int sfix, unsigned db, unsigned dlmc, int dfix,
		     struct fm_pairs *o)
{
	unsigned xs[256], n;

	o->n = 0;
	if (sfix >= 0 && dfix >= 0) {
		fm_emit(o, sb + (unsigned)sfix, db + (unsigned)dfix);
	} else if (sfix >= 0) {
		n = fm_one_fixed(mode, sb + (unsigned)sfix, slmc, db, dlmc, xs);
		for (unsigned i = 0; i < n; i++)
			fm_emit(o, sb + (unsigned)sfix, xs[i]);
	} else if (dfix >= 0) {
		n = fm_one_fixed(mode, db + (unsigned)dfix, dlmc, sb, slmc, xs);
		for (unsigned i = 0; i < n; i++)
			fm_emit(o, xs[i], db + (unsigned)dfix);
	} else {
		fm_two_sided(mode, sb, slmc, db, dlmc, o);
	}
}

/* Ours for the same query, compared; a failure prints both. */
static bool same_as_fm(enum vf_path_selection mode, unsigned sb,
		       unsigned slmc, int sfix, unsigned db, unsigned dlmc,
		       int dfix)
{
	static struct fm_pairs want;
	struct vf_lid_side s = { sb, 1u << slmc, sfix };
	struct vf_lid_side d = { db, 1u << dlmc, dfix };
	struct vf_lid_iter it;
	unsigned slid, dlid, n = 0;
	bool same = true;

	fm_model(mode, sb, slmc, sfix, db, dlmc, dfix, &want);
	vf_lid_iter_init(&it, mode, &s, &d);
	while (vf_lid_iter_next(&it, &slid, &dlid) && n < 5000) {
		same &= n < want.n && want.s[n] == slid && want.d[n] == dlid;
		n++;
	}
	same &= n == want.n;
	if (!same) {
		printf("# %s LMC %u%s to LMC %u%s: FM", vf_path_selection_name(mode),
		       slmc, sfix >= 0 ? " (fixed)" : "", dlmc,
		       dfix >= 0 ? " (fixed)" : "");
		for (unsigned i = 0; i < want.n && i < 64; i++)
			printf(" %u-%u", want.s[i] - sb, want.d[i] - db);
		printf("; ours");
		vf_lid_iter_init(&it, mode, &s, &d);
		for (unsigned i = 0; i < 64 && vf_lid_iter_next(&it, &slid, &dlid); i++)
			printf(" %u-%u", slid - sb, dlid - db);
		printf("\n");
	}
	return same;
}

/*
 * Every LMC 0-3 on each side, open or fixed sides (each offset), both
 * fixed, all four modes; bases aligned to 2^LMC as OpenSM assigns them.
 */
static void test_against_fm_model(void)
{
	static const unsigned bases[][2] = { { 0x40, 0x80 }, { 0x88, 0x18 } };
	unsigned cases = 0, same = 0, shown = 0;

	for (unsigned b = 0; b < 2; b++)
	for (int mode = 0; mode <= VF_PATHSEL_SRCDSTALL; mode++)
	for (unsigned sl = 0; sl <= 3; sl++)
	for (unsigned dl = 0; dl <= 3; dl++)
	for (int sf = -1; sf < (1 << sl); sf++)
	for (int df = -1; df < (1 << dl); df++) {
		bool ok = shown < 20 ?
			  same_as_fm((enum vf_path_selection)mode,
				     bases[b][0], sl, sf, bases[b][1], dl, df) :
			  true;

		cases++;
		same += ok;
		shown += !ok;
	}
	printf("# %u of %u queries as the FM model\n", same, cases);
	EQ_U(same, cases, "every LMC 0-3 pair, open, one or both sides fixed, "
	     "all four PathSelection values: the FM's pairs in the FM's order");
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
	EQ_S(pairs(VF_PATHSEL_PAIRWISE, 4, 2, 4, -1), "2-2",
	     "Pairwise, SLID fixed, LMC 2 both: the one destination LID "
	     "Pairwise pairs with it (the FM steps by the fixed side's 4)");
	EQ_S(pairs(VF_PATHSEL_ORDERALL, 4, 2, 4, -1), "2-2 2-0 2-1 2-3",
	     "OrderAll, SLID fixed, LMC 2 both: that one, then the others "
	     "in ascending order");
	EQ_S(pairs(VF_PATHSEL_PAIRWISE, 2, 1, 8, -1), "1-1 1-3 1-5 1-7",
	     "Pairwise, SLID fixed (LMC 1) to LMC 3: every second destination "
	     "LID from offset 1");
	EQ_S(pairs(VF_PATHSEL_ORDERALL, 2, 1, 8, -1),
	     "1-1 1-3 1-5 1-7 1-0 1-2 1-4 1-6",
	     "OrderAll, SLID fixed (LMC 1) to LMC 3: those, then the rest up");
	EQ_S(pairs(VF_PATHSEL_SRCDSTALL, 4, 2, 4, -1), "2-0 2-1 2-2 2-3",
	     "SrcDstAll, SLID fixed: plain order");
	EQ_S(pairs(VF_PATHSEL_MINIMAL, 2, -1, 2, 1), "1-1",
	     "Minimal, DLID fixed at offset 1 (LMC 1): the source LID across");
	EQ_S(pairs(VF_PATHSEL_PAIRWISE, 4, -1, 2, 1), "1-1 3-1",
	     "Pairwise, DLID fixed (LMC 1), LMC 2 source: the source LIDs "
	     "Pairwise pairs with it");
	EQ_S(pairs(VF_PATHSEL_ORDERALL, 4, 3, 4, 1), "3-1",
	     "both LIDs fixed: that one pair");
	EQ_S(pairs(VF_PATHSEL_PAIRWISE, 1, 0, 4, -1), "0-0 0-1 0-2 0-3",
	     "Pairwise from an LMC 0 port to LMC 2: all 4");
	test_against_fm_model();

	/* the table entries that let a VF carry a path */
	OK(vf_path_entries_allow(0x8010, 0x0010, false),
	   "one full, one limited member: a path");
	OK(!vf_path_entries_allow(0x0010, 0x0010, false),
	   "two limited members: no path");
	OK(vf_path_entries_allow(0x0010, 0x0010, true),
	   "loopback of a limited member: a path, as the FM (2.1 step 5)");
	OK(!vf_path_entries_allow(0, 0, true) &&
	   !vf_path_entries_allow(0x8010, 0, false),
	   "a port without the P_Key: no path, loopback or not");
	return tap_done();
}
