// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include "devgroup.h"

static bool pattern_has(const struct vf_ndpat *pat, const char *desc,
			unsigned port)
{
	unsigned lo, hi;

	if (!vf_ndpat_match(pat, desc))
		return false;
	return !vf_ndpat_ports(pat, &lo, &hi) || (port >= lo && port <= hi);
}

bool vf_devgroup_has_port(const struct vf_fabric *f,
			  const struct vf_devgroup *g, uint32_t p)
{
	const struct vf_port *port = &f->ports[p];
	const struct vf_node *node = &f->nodes[port->node];

	if (vf_guid_set_has(&g->guids, node->guid) ||
	    vf_guid_set_has(&g->guids, port->guid))
		return true;
	for (unsigned i = 0; i < g->num_patterns; i++)
		if (pattern_has(g->desc_patterns[i], vf_node_desc(f, node),
				port->num))
			return true;
	return false;
}

unsigned vf_devgroup_first(const struct vf_fabric *f,
			   const struct vf_devgroup *groups, unsigned n,
			   uint32_t p)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (vf_devgroup_has_port(f, &groups[i], p))
			break;
	return i;
}
