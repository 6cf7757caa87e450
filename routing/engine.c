// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <string.h>

#include "engine.h"

const struct vf_engine vf_engines[] = {
	{ "shortestpath",
	  "min-hop, balanced by flow: by destination switch, farthest switches first, least-loaded path",
	  vf_route_shortestpath },
	{ "dgshortestpath",
	  "shortestpath, destinations in RoutingOrder: device groups first",
	  vf_route_dgshortestpath },
	{ "fattree",
	  "up/down for fat trees, balanced per tier; not a tree: shortestpath",
	  vf_route_fattree },
};

const unsigned vf_num_engines = sizeof(vf_engines) / sizeof(vf_engines[0]);

void vf_route_opts_default(struct vf_route_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->spine_first = true;
}

bool vf_guid_set_has(const struct vf_guid_set *set, uint64_t guid)
{
	unsigned lo = 0, hi = set->count;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (set->guids[mid] == guid)
			return true;
		if (set->guids[mid] < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

const struct vf_engine *vf_engine_find(const char *name)
{
	for (unsigned i = 0; i < vf_num_engines; i++)
		if (!strcmp(vf_engines[i].name, name))
			return &vf_engines[i];
	return NULL;
}
