/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Fabrics the unit tests build in code, so every expected number can be
 * worked out by hand.
 */
#ifndef VF_TEST_FABRICS_H
#define VF_TEST_FABRICS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "routing/fabric.h"
#include "routing/netfile.h"

/*
 * A net file of the golden set (tests/golden/NAME), found through
 * $top_srcdir as make check sets it; NULL if it cannot be loaded.
 */
static inline struct vf_fabric *golden_fabric(const char *name)
{
	struct vf_err err = { "" };
	char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/tests/golden/%s", top ? top : ".",
		 name);
	return vf_netfile_load(path, 0, &err);
}

/*
 * A 2-level fat tree: leaves L0.. with hosts on ports 1..hosts and uplinks
 * from port hosts+1; spine s uses port l+1 for leaf l.  Leaves are added
 * first, then spines, then hosts, so switch numbers are leaves 0..L-1.
 */
/*
 * LIDs as OpenSM's discovery often gives them: switches first, then host h
 * of every leaf before host h + 1 of any, so hosts of one leaf are
 * `leaves` LIDs apart.
 */
static inline void interleave_lids(struct vf_fabric *f, unsigned leaves,
				   unsigned spines, unsigned hosts)
{
	uint32_t first_host = leaves + spines;
	unsigned lid = 1;

	for (uint32_t n = 0; n < first_host; n++)
		vf_node_port(f, &f->nodes[n], 0)->base_lid = lid++;
	for (unsigned h = 0; h < hosts; h++)
		for (unsigned l = 0; l < leaves; l++)
			vf_node_port(f, &f->nodes[first_host + l * hosts + h],
				     1)->base_lid = lid++;
}

static inline struct vf_fabric *fat_tree_lids(unsigned leaves,
					      unsigned spines, unsigned hosts,
					      unsigned lmc, bool interleave)
{
	struct vf_fabric *f = vf_fabric_create();
	char name[32];

	for (unsigned l = 0; l < leaves; l++) {
		snprintf(name, sizeof(name), "L%u", l);
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x200000 + l, 0,
				   hosts + spines, name, NULL);
	}
	for (unsigned s = 0; s < spines; s++) {
		snprintf(name, sizeof(name), "S%u", s);
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x200100 + s, 0, leaves,
				   name, NULL);
		for (unsigned l = 0; l < leaves; l++)
			vf_fabric_link(f, vf_fabric_port(f, l, hosts + 1 + s),
				       vf_fabric_port(f, leaves + s, l + 1));
	}
	for (unsigned l = 0; l < leaves; l++) {
		for (unsigned h = 0; h < hosts; h++) {
			uint32_t n;

			snprintf(name, sizeof(name), "H%u_%u", l, h);
			n = vf_fabric_add_node(f, VF_NODE_CA,
					       0x100000 + 4 * (l * hosts + h),
					       0, 1, name, NULL);
			vf_fabric_link(f, vf_fabric_port(f, l, h + 1),
				       vf_fabric_port(f, n, 1));
		}
	}
	for (uint32_t p = 0; p < f->num_ports; p++) {
		f->ports[p].width = 4;
		f->ports[p].speed = VF_SPEED_QDR;
	}
	if (interleave)
		interleave_lids(f, leaves, spines, hosts);
	else
		vf_fabric_assign_lids(f, lmc);
	vf_fabric_finalize(f);
	return f;
}

static inline struct vf_fabric *fat_tree(unsigned leaves, unsigned spines,
					 unsigned hosts, unsigned lmc)
{
	return fat_tree_lids(leaves, spines, hosts, lmc, false);
}

#endif /* VF_TEST_FABRICS_H */
