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

/*
 * The k-ary 3-level fat tree (k even): k pods of k/2 leaves and k/2
 * aggregation switches, fully connected in the pod; (k/2)^2 cores, core
 * j * k/2 + c linked to aggregation switch j of every pod; k/2 hosts per
 * leaf.  Ports: leaf hosts 1..k/2, then one uplink per aggregation switch;
 * aggregation switches down to the leaves on 1..k/2, up on k/2+1..k;
 * cores port p + 1 to pod p.  LIDs by vf_fabric_assign_lids(lmc).
 */
static inline struct vf_fabric *fat_tree3(unsigned k, unsigned lmc)
{
	struct vf_fabric *f = vf_fabric_create();
	unsigned h = k / 2, leaves = k * h;
	uint32_t core0 = 2 * leaves;
	char name[32];

	for (unsigned i = 0; i < 2 * leaves; i++) {
		snprintf(name, sizeof(name), "%s%u", i < leaves ? "L" : "A",
			 i % leaves);
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x300000 + i, 0, k,
				   name, NULL);
	}
	for (unsigned c = 0; c < h * h; c++) {
		snprintf(name, sizeof(name), "C%u", c);
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x310000 + c, 0, k,
				   name, NULL);
	}
	for (unsigned p = 0; p < k; p++) {
		for (unsigned j = 0; j < h; j++) {
			uint32_t agg = leaves + p * h + j;

			for (unsigned l = 0; l < h; l++)
				vf_fabric_link(f,
					vf_fabric_port(f, p * h + l, h + 1 + j),
					vf_fabric_port(f, agg, l + 1));
			for (unsigned c = 0; c < h; c++)
				vf_fabric_link(f,
					vf_fabric_port(f, agg, h + 1 + c),
					vf_fabric_port(f, core0 + j * h + c,
						       p + 1));
		}
	}
	for (unsigned l = 0; l < leaves; l++) {
		for (unsigned i = 0; i < h; i++) {
			uint32_t n;

			snprintf(name, sizeof(name), "H%u_%u", l, i);
			n = vf_fabric_add_node(f, VF_NODE_CA,
					       0x400000 + 4 * (l * h + i), 0,
					       1, name, NULL);
			vf_fabric_link(f, vf_fabric_port(f, l, i + 1),
				       vf_fabric_port(f, n, 1));
		}
	}
	vf_fabric_assign_lids(f, lmc);
	vf_fabric_finalize(f);
	return f;
}

/*
 * The leaf-uplink lower bound on the busiest link for destination-based
 * all-to-all routing between the CAs, worked out here from the links
 * alone: a switch with H of the N hosts and U links to other switches
 * sends each of the N - H remote destinations up one link, H routes each,
 * so one of them carries at least ceil((N - H) / U) * H.  Links count when
 * usable (healthy at both ends).
 */
static inline uint64_t leaf_bound(const struct vf_fabric *f)
{
	uint64_t n = 0, best = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < f->num_nodes; i++) {
			const struct vf_node *sw = &f->nodes[i];
			uint64_t hosts = 0, up = 0;

			if (!vf_is_switch(sw))
				continue;
			for (unsigned p = 1; p <= sw->num_ports; p++) {
				const struct vf_port *x = vf_usable_peer(f,
						vf_node_port(f, sw, p));

				if (!x)
					continue;
				if (vf_is_switch(&f->nodes[x->node]))
					up++;
				else
					hosts++;
			}
			if (!pass)
				n += hosts;
			else if (hosts && up &&
				 (n - hosts + up - 1) / up * hosts > best)
				best = (n - hosts + up - 1) / up * hosts;
		}
	}
	return best;
}

#endif /* VF_TEST_FABRICS_H */
