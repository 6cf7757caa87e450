// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <string.h>

#include "engine.h"

const struct vf_engine vf_engines[] = {
	{ "shortestpath",
	  "min-hop, balanced: LID order, edge switches first, least-loaded port",
	  vf_route_shortestpath },
};

const unsigned vf_num_engines = sizeof(vf_engines) / sizeof(vf_engines[0]);

const struct vf_engine *vf_engine_find(const char *name)
{
	for (unsigned i = 0; i < vf_num_engines; i++)
		if (!strcmp(vf_engines[i].name, name))
			return &vf_engines[i];
	return NULL;
}
