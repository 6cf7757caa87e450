// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "partition/sapolicy.h"

struct guid_slot {
	uint64_t guid;
	uint32_t slot;
};

static int by_guid_slot(const void *a, const void *b)
{
	const struct guid_slot *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * The end ports of f (CA ports and switch port 0) with a GUID, sorted by
 * it; of two with one GUID, the first slot (as vf_fabric_end_port()).
 */
static struct guid_slot *end_ports(const struct vf_fabric *f, uint32_t *n)
{
	struct guid_slot *v = malloc(((size_t)f->num_ports + 1) * sizeof(*v));
	uint32_t all = 0;

	*n = 0;
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < f->num_ports; i++) {
		const struct vf_port *pt = &f->ports[i];

		if (pt->guid && (!vf_is_switch(&f->nodes[pt->node]) ||
				 pt->num == 0))
			v[all++] = (struct guid_slot){ pt->guid, i };
	}
	qsort(v, all, sizeof(*v), by_guid_slot);
	for (uint32_t i = 0; i < all; i++)
		if (!*n || v[*n - 1].guid != v[i].guid)
			v[(*n)++] = v[i];
	return v;
}

static bool fill(struct vf_sa_policy *p, const struct vf_plan *plan,
		 const struct vf_resolution *r)
{
	const struct vf_config *c = p->config;
	struct guid_slot *ends;
	uint32_t *slots;
	bool ok = false;

	ends = end_ports(r->fabric, &p->num_ends);
	p->guids = malloc(((size_t)p->num_ends + 1) * sizeof(*p->guids));
	slots = malloc(((size_t)p->num_ends + 1) * sizeof(*slots));
	p->vf_pkey = calloc(c->num_vfs + 1, sizeof(*p->vf_pkey));
	p->vf_sl = calloc(c->num_vfs + 1, sizeof(*p->vf_sl));
	if (!ends || !p->guids || !slots || !p->vf_pkey ||
	    !p->vf_sl)
		goto out;
	for (uint32_t i = 0; i < p->num_ends; i++) {
		p->guids[i] = ends[i].guid;	/* row i */
		slots[i] = ends[i].slot;
	}
	for (unsigned i = 0; i < c->num_vfs && i < plan->num_vfs; i++) {
		p->vf_pkey[i] = plan->vf_pkey[i];
		p->vf_sl[i] = plan->vf_sl[i];
		p->any_secure |= plan->vf_pkey[i] && c->vfs[i].security;
	}
	if (vf_vf_members_build(c, &r->dg, slots, p->num_ends, &p->member))
		goto out;
	ok = true;
out:
	free(slots);
	free(ends);
	return ok;
}

struct vf_sa_policy *vf_sa_policy_build(struct vf_config *c,
					const struct vf_resolution *r,
					const struct vf_plan *plan,
					enum vf_path_selection sel)
{
	struct vf_sa_policy *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->refs = 1;
	vf_config_hold(c);
	p->config = c;
	p->path_selection = sel;
	if (c != r->config || !fill(p, plan, r)) {
		vf_sa_policy_release(p);
		return NULL;
	}
	p->path = (struct vf_path_policy){ c, p->vf_pkey, p->vf_sl,
					   p->member };
	return p;
}

void vf_sa_policy_hold(struct vf_sa_policy *p)
{
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
}

void vf_sa_policy_release(struct vf_sa_policy *p)
{
	if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL))
		return;
	vf_config_release(p->config);
	free(p->vf_pkey);
	free(p->vf_sl);
	free(p->member);
	free(p->guids);
	free(p);
}

int64_t vf_sa_policy_row(const struct vf_sa_policy *p, uint64_t port_guid)
{
	uint32_t lo = 0, hi = p->num_ends;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->guids[mid] == port_guid)
			return mid;
		if (p->guids[mid] < port_guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}
