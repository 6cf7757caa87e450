// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The lost-route state the switches' notifications converge to, for the
 * flow simulator (routing/arflow.h, "Lost-route notification").
 */
#include <errno.h>
#include <stdlib.h>

#include "arflow.h"

const struct vf_ar_mask *vf_arflow_group(const struct vf_ar_tables *ar,
					 uint32_t sw, unsigned lid)
{
	const struct vf_ar_switch *s;
	uint8_t k;

	if (!ar || !ar->sw || sw >= ar->num_switches || lid > ar->max_lid)
		return NULL;
	s = &ar->sw[sw];
	k = s->lid_group ? s->lid_group[lid] : VF_AR_NO_GROUP;
	return k == VF_AR_NO_GROUP || k >= s->num_groups ? NULL : &s->groups[k];
}

bool vf_arflow_port_lost(const struct vf_fabric *f, const struct vf_lfts *t,
			 const bool *down, const bool *lost, uint32_t p,
			 unsigned lid)
{
	const struct vf_node *peer;
	uint32_t r = f->ports[p].remote;

	if (r == VF_NONE || (down && down[p]))
		return true;
	peer = &f->nodes[f->ports[r].node];
	return lost && vf_is_switch(peer) &&
	       lost[(size_t)peer->sw * (t->max_lid + 1u) + lid];
}

/* Switch sw has no way on for lid: its static port and every member of
 * the group are down or lost (what makes it notify its neighbors). */
static bool no_way_on(const struct vf_fabric *f, const struct vf_lfts *t,
		      const struct vf_ar_tables *ar, const bool *down,
		      const bool *lost, uint32_t sw, unsigned lid)
{
	const struct vf_node *n = &f->nodes[f->switches[sw]];
	const struct vf_ar_mask *g;
	unsigned e = vf_lft_row(t, sw)[lid];

	if (!e || e > n->num_ports ||
	    !vf_arflow_port_lost(f, t, down, lost, n->first_port + e, lid))
		return false;
	g = vf_arflow_group(ar, sw, lid);
	for (unsigned q = 1; g && q <= n->num_ports; q++)
		if (q != e && vf_ar_mask_has(g, q) &&
		    !vf_arflow_port_lost(f, t, down, lost, n->first_port + q,
					 lid))
			return false;
	return true;
}

/*
 * Sweep until nothing changes.  lost only grows, so this reaches the least
 * fixed point: what the notifications, starting from the switches at the
 * failed links, leave once they stop.
 */
int vf_arflow_lost_routes(const struct vf_fabric *f, const struct vf_lfts *t,
			  const struct vf_ar_tables *ar, const bool *down,
			  bool **lost)
{
	size_t stride = t->max_lid + 1u;
	bool changed = true;

	*lost = calloc((size_t)f->num_switches * stride + 1, sizeof(**lost));
	if (!*lost)
		return -ENOMEM;
	if (!down)
		return 0;
	while (changed) {
		changed = false;
		for (uint32_t sw = 0; sw < f->num_switches; sw++)
			for (unsigned lid = 1; lid < stride; lid++) {
				bool *l = &(*lost)[sw * stride + lid];

				if (*l || !no_way_on(f, t, ar, down, *lost, sw,
						     lid))
					continue;
				*l = true;
				changed = true;
			}
	}
	return 0;
}
