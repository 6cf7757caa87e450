// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <strings.h>

#include "partition/pathsel.h"

static const char *const names[] = {
	[VF_PATHSEL_MINIMAL] = "Minimal",
	[VF_PATHSEL_PAIRWISE] = "Pairwise",
	[VF_PATHSEL_ORDERALL] = "OrderAll",
	[VF_PATHSEL_SRCDSTALL] = "SrcDstAll",
};

int vf_path_selection_parse(const char *s)
{
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i]))
			return (int)i;
	return -1;
}

const char *vf_path_selection_name(enum vf_path_selection s)
{
	return s <= VF_PATHSEL_SRCDSTALL ? names[s] : "?";
}

/* The LIDs a side offers: 1 when fixed. */
static unsigned width(const struct vf_lid_side *x)
{
	return x->fixed >= 0 ? 1 : x->count;
}

static unsigned max_u(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

static unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

/* One side fixed: iterate the other (see pathsel.h). */
static void init_one_fixed(struct vf_lid_iter *it,
			   const struct vf_lid_side *fx,
			   const struct vf_lid_side *other)
{
	it->one_fixed = true;
	it->f = (unsigned)fx->fixed;
	it->mf = fx->count ? fx->count : 1;
	it->nx = other->count;
	/* the X LIDs Pairwise gives: f mod nx, then every mf-th above */
	it->pairwise = it->nx ? (it->nx - it->f % it->nx + it->mf - 1) /
				it->mf : 0;
	switch (it->mode) {
	case VF_PATHSEL_MINIMAL:
		it->total = min_u(1, it->nx);
		break;
	case VF_PATHSEL_PAIRWISE:
		it->total = it->pairwise;
		break;
	default:
		it->total = it->nx;
		break;
	}
}

void vf_lid_iter_init(struct vf_lid_iter *it, enum vf_path_selection mode,
		      const struct vf_lid_side *src,
		      const struct vf_lid_side *dst)
{
	unsigned m = width(src), n = width(dst);

	*it = (struct vf_lid_iter){ .mode = mode, .s = *src, .d = *dst };
	if (src->fixed >= 0 && dst->fixed < 0) {
		it->src_fixed = true;
		init_one_fixed(it, src, dst);
		return;
	}
	if (dst->fixed >= 0 && src->fixed < 0) {
		init_one_fixed(it, dst, src);
		return;
	}
	switch (mode) {
	case VF_PATHSEL_MINIMAL:
		it->total = min_u(m, n);
		break;
	case VF_PATHSEL_PAIRWISE:
		it->total = max_u(m, n);
		break;
	default:
		it->total = m * n;
		break;
	}
}

/* The LID at offset i of a side (its fixed one when fixed). */
static unsigned lid_at(const struct vf_lid_side *x, unsigned i)
{
	if (x->fixed >= 0)
		return x->base + (unsigned)x->fixed;
	return x->base + i % x->count;
}

/*
 * Is (i, j) a Pairwise pair, one the FM's OrderAll gave first?  With
 * counts that are powers of two, those whose offsets agree in the low bits
 * both sides have: modulo the smaller count.
 */
static bool pairwise_pair(unsigned m, unsigned n, unsigned i, unsigned j)
{
	unsigned low = min_u(m, n);

	return i % low == j % low;
}

/* The other side's offset at step k when one side is fixed. */
static bool next_one_fixed(struct vf_lid_iter *it, unsigned *x)
{
	unsigned k = it->k;

	if (k >= it->total)
		return false;
	it->k++;
	switch (it->mode) {
	case VF_PATHSEL_MINIMAL:
	case VF_PATHSEL_PAIRWISE:
		*x = it->f % it->nx + k * it->mf;
		return true;
	case VF_PATHSEL_SRCDSTALL:
		*x = k;
		return true;
	case VF_PATHSEL_ORDERALL:
		if (k < it->pairwise) {
			*x = it->f % it->nx + k * it->mf;
			return true;
		}
		/* then the rest, ascending: those Pairwise did not give */
		while (it->next_x < it->nx &&
		       pairwise_pair(it->mf, it->nx, it->f, it->next_x))
			it->next_x++;
		if (it->next_x >= it->nx)	/* counts not powers of 2 */
			return false;
		*x = it->next_x++;
		return true;
	}
	return false;
}

bool vf_lid_iter_next(struct vf_lid_iter *it, unsigned *slid,
		      unsigned *dlid)
{
	unsigned m = width(&it->s), n = width(&it->d), i, j;

	if (it->one_fixed) {
		unsigned x;

		if (!next_one_fixed(it, &x))
			return false;
		*slid = lid_at(&it->s, x);
		*dlid = lid_at(&it->d, x);
		return true;
	}
	if (it->mode != VF_PATHSEL_ORDERALL) {
		if (it->k >= it->total)
			return false;
		if (it->mode == VF_PATHSEL_SRCDSTALL) {
			i = it->k / n;
			j = it->k % n;
		} else {
			i = it->k % m;
			j = it->k % n;
		}
		it->k++;
		*slid = lid_at(&it->s, i);
		*dlid = lid_at(&it->d, j);
		return true;
	}
	/* OrderAll: steps 0..max(m,n)-1 are Pairwise, then the rest of the
	 * m*n grid in source-major order, skipping what Pairwise gave */
	while (it->k < max_u(m, n) + m * n) {
		unsigned k = it->k++;

		if (k < max_u(m, n)) {
			i = k % m;
			j = k % n;
		} else {
			k -= max_u(m, n);
			i = k / n;
			j = k % n;
			if (pairwise_pair(m, n, i, j))
				continue;
		}
		*slid = lid_at(&it->s, i);
		*dlid = lid_at(&it->d, j);
		return true;
	}
	return false;
}
