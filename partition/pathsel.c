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

void vf_lid_iter_init(struct vf_lid_iter *it, enum vf_path_selection mode,
		      const struct vf_lid_side *src,
		      const struct vf_lid_side *dst)
{
	unsigned m = width(src), n = width(dst);

	*it = (struct vf_lid_iter){ .mode = mode, .s = *src, .d = *dst };
	/* a fixed side's offset is where the other side starts */
	if (src->fixed >= 0 && dst->fixed < 0 && mode != VF_PATHSEL_SRCDSTALL)
		it->doff = (unsigned)src->fixed % dst->count;
	if (dst->fixed >= 0 && src->fixed < 0 && mode != VF_PATHSEL_SRCDSTALL)
		it->so = (unsigned)dst->fixed % src->count;
	switch (mode) {
	case VF_PATHSEL_MINIMAL:
		it->total = m < n ? m : n;
		break;
	case VF_PATHSEL_PAIRWISE:
		it->total = max_u(m, n);
		break;
	default:
		it->total = m * n;
		break;
	}
}

/* The LID at offset i (of the side's own LIDs, from its start offset). */
static unsigned lid_at(const struct vf_lid_side *x, unsigned start,
		       unsigned i)
{
	if (x->fixed >= 0)
		return x->base + (unsigned)x->fixed;
	return x->base + (start + i) % x->count;
}

/* Was (i, j) one of the first max(m,n) (Pairwise) pairs? */
static bool pairwise_pair(unsigned m, unsigned n, unsigned i, unsigned j)
{
	for (unsigned k = 0; k < max_u(m, n); k++)
		if (k % m == i && k % n == j)
			return true;
	return false;
}

bool vf_lid_iter_next(struct vf_lid_iter *it, unsigned *slid,
		      unsigned *dlid)
{
	unsigned m = width(&it->s), n = width(&it->d), i, j;

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
		*slid = lid_at(&it->s, it->so, i);
		*dlid = lid_at(&it->d, it->doff, j);
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
		*slid = lid_at(&it->s, it->so, i);
		*dlid = lid_at(&it->d, it->doff, j);
		return true;
	}
	return false;
}
