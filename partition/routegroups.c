// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <string.h>
#include <stdlib.h>

#include "partition/dgresolve.h"
#include "partition/routegroups.h"

/* Group name's members as a GUID set owned by g->owned[slot]. */
static int to_set(struct vf_route_groups *g, const struct vf_config *c,
		  const struct vf_dg_members *m, const struct vf_fabric *f,
		  const char *name, bool switches, unsigned slot,
		  struct vf_guid_set *out)
{
	int dg = vf_config_dg_index(c, name), n;

	if (dg < 0)
		return -ENOENT;
	n = vf_dg_guids(m, (unsigned)dg, f, switches, &g->owned[slot]);
	if (n < 0)
		return n;
	out->guids = g->owned[slot];
	out->count = (unsigned)n;
	return 0;
}

bool vf_route_groups_named(const struct vf_config *c)
{
	const struct vf_cfg_routing *r = &c->routing;

	return r->core_switches || r->route_last || r->routing_order.n;
}

int vf_route_groups_build(const struct vf_config *c,
			  const struct vf_resolution *res,
			  struct vf_route_groups *g)
{
	const struct vf_cfg_routing *r = &c->routing;
	const struct vf_fabric *f;
	const struct vf_dg_members *m;
	int rc = 0;

	memset(g, 0, sizeof(*g));
	g->spine_first = r->spine_first;
	if (!vf_route_groups_named(c))
		return 0;
	if (!res || res->config != c)
		return -EINVAL;
	f = res->fabric;
	m = &res->dg;
	if (r->core_switches) {
		rc = to_set(g, c, m, f, r->core_switches, true, 0, &g->core);
		g->has_core = !rc;
	}
	if (!rc && r->route_last) {
		rc = to_set(g, c, m, f, r->route_last, false, 1, &g->last);
		g->has_last = !rc;
	}
	for (unsigned i = 0; !rc && i < r->routing_order.n &&
	     i < VF_DG_MAX_ORDER; i++) {
		struct vf_devgroup *d = &g->order[g->num_order];

		rc = to_set(g, c, m, f, r->routing_order.v[i], false, 2 + i,
			    &d->guids);
		d->name = r->routing_order.v[i];
		g->num_order += !rc;
	}
	if (rc)
		vf_route_groups_free(g);
	return rc;
}

void vf_route_groups_free(struct vf_route_groups *g)
{
	vf_traffic_free(&g->traffic);
	for (unsigned i = 0; i < sizeof(g->owned) / sizeof(g->owned[0]); i++)
		free(g->owned[i]);
	memset(g, 0, sizeof(*g));
	g->spine_first = -1;
}

void vf_route_groups_apply(const struct vf_route_groups *g,
			   struct vf_route_opts *o)
{
	if (g->spine_first >= 0)
		o->spine_first = g->spine_first;
	if (g->has_core)
		o->core_switches = g->core;
	if (g->has_last)
		o->route_last = g->last;
	if (g->num_order) {
		o->routing_order = g->order;
		o->num_routing_order = g->num_order;
	}
}

void vf_route_groups_ar(const struct vf_config *c, struct vf_ar_config *ar)
{
	const struct vf_cfg_routing *r = &c->routing;

	vf_ar_config_default(ar);
	if (r->ar_enable >= 0)
		ar->enable = r->ar_enable;
	if (r->ar_fine_grained >= 0)
		ar->fine_grained = r->ar_fine_grained;
	if (r->ar_lost_route_only >= 0)
		ar->lost_route_only = r->ar_lost_route_only;
	if (r->ar_algorithm >= 0)
		ar->algorithm = (enum vf_ar_algorithm)r->ar_algorithm;
	if (r->ar_frequency >= 0)
		ar->frequency = (unsigned)r->ar_frequency;
	if (r->ar_threshold >= 0)
		ar->threshold = (unsigned)r->ar_threshold;
	ar->fine_grained = ar->fine_grained && ar->enable;
}
