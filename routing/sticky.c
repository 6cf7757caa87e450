// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* Route stability: index the previous routing against the current fabric. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "routing/internal/sticky.h"

struct guid_sw {
	uint64_t guid;
	uint32_t sw;
};

static int cmp_guid_sw(const void *a, const void *b)
{
	const struct guid_sw *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* Previous switch rows by NodeGUID, through a sorted index. */
static int map_rows(struct vf_sticky *st, const struct vf_fabric *f,
		    const struct vf_previous *prev)
{
	const struct vf_fabric *pf = prev->fabric;
	struct guid_sw *idx = calloc(pf->num_switches ? pf->num_switches : 1,
				     sizeof(*idx));

	if (!idx)
		return -ENOMEM;
	for (uint32_t s = 0; s < pf->num_switches; s++) {
		idx[s].guid = pf->nodes[pf->switches[s]].guid;
		idx[s].sw = s;
	}
	qsort(idx, pf->num_switches, sizeof(*idx), cmp_guid_sw);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		struct guid_sw key = { f->nodes[f->switches[s]].guid, 0 };
		struct guid_sw *hit = bsearch(&key, idx, pf->num_switches,
					      sizeof(*idx), cmp_guid_sw);

		st->row[s] = hit ? vf_lft_row(prev->lfts, hit->sw) : NULL;
	}
	free(idx);
	return 0;
}

struct end {
	uint64_t guid;
	unsigned port;
};

static int cmp_end(const void *a, const void *b)
{
	const struct end *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (int)x->port - (int)y->port;
}

/* Switch ports of f with a usable link to a switch; n set to their count. */
static struct end *switch_links(const struct vf_fabric *f, size_t *n)
{
	struct end *e = calloc(f->num_ports ? f->num_ports : 1, sizeof(*e));

	*n = 0;
	for (uint32_t i = 0; e && i < f->num_ports; i++) {
		const struct vf_port *p = &f->ports[i];
		const struct vf_port *peer = vf_usable_peer(f, p);

		if (!vf_is_switch(&f->nodes[p->node]) || !peer ||
		    !vf_is_switch(&f->nodes[peer->node]))
			continue;
		e[*n].guid = f->nodes[p->node].guid;
		e[(*n)++].port = p->num;
	}
	if (e)
		qsort(e, *n, sizeof(*e), cmp_end);
	return e;
}

/*
 * Has f an inter-switch link that prev did not use?  Then keeping the old
 * routes would leave the new capacity idle: rebalance instead.
 */
static int links_added(const struct vf_fabric *f, const struct vf_fabric *pf)
{
	size_t n, pn;
	struct end *cur = switch_links(f, &n), *old = switch_links(pf, &pn);
	int added = -ENOMEM;

	if (cur && old) {
		added = 0;
		for (size_t i = 0; i < n && !added; i++)
			added = !bsearch(&cur[i], old, pn, sizeof(*old),
					 cmp_end);
	}
	free(cur);
	free(old);
	return added;
}

int vf_sticky_init(struct vf_sticky *st, const struct vf_fabric *f,
		   const struct vf_previous *prev)
{
	int added;

	const struct vf_fabric *pf;
	unsigned max;

	memset(st, 0, sizeof(*st));
	if (!prev || !prev->fabric || !prev->lfts)
		return 0;
	pf = prev->fabric;
	added = links_added(f, pf);
	if (added < 0)
		return added;
	if (added) {
		vf_log(VF_LOG_INFO,
		       "inter-switch links were added or restored: rebalancing all routes");
		return 0;
	}
	max = prev->lfts->max_lid < pf->max_lid ? prev->lfts->max_lid :
						   pf->max_lid;
	st->row = calloc(f->num_switches ? f->num_switches : 1,
			 sizeof(*st->row));
	st->same = calloc((size_t)max + 1, 1);
	if (!st->row || !st->same) {
		vf_sticky_free(st);
		return -ENOMEM;
	}
	st->max_lid = max;
	for (unsigned lid = 1; lid <= max && lid <= f->max_lid; lid++) {
		uint32_t a = f->lid_port[lid], b = pf->lid_port[lid];

		st->same[lid] = a != VF_NONE && b != VF_NONE &&
				f->ports[a].guid == pf->ports[b].guid;
	}
	if (map_rows(st, f, prev)) {
		vf_sticky_free(st);
		return -ENOMEM;
	}
	return 0;
}

void vf_sticky_free(struct vf_sticky *st)
{
	free(st->row);
	free(st->same);
	memset(st, 0, sizeof(*st));
}
