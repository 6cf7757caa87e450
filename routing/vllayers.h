/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Layers that make a routing deadlock-free on any topology: the data
 * routes of a set of tables are split among layers so that no layer's
 * channel dependency graph has a cycle; each layer then travels on its
 * own virtual lane (through its SL and the SL-to-VL tables), as OpenSM's
 * dfsssp and nue do.  The routes themselves are not changed: balance
 * stays the engine's.
 *
 * Layers are given to pairs of CA LIDs.  Both ways (the default), the
 * route from a's switch to b and the one from b's switch to a go into
 * the same layer, because a connection the IB CM sets up sends both ways
 * on one SL (the passive side answers on the SL of the REQ's path, which
 * PathRecords call reversible).  One way, each route goes alone: fewer
 * layers, right for traffic each side sends on the SL of its own
 * PathRecord (UD, RC connected out of band), not for CM connections.  A
 * pair goes into the first layer where its routes close no cycle (first
 * fit, each layer kept acyclic as it grows: depgraph.h), the pairs with
 * the longest routes first.  Routes to and from
 * switch LIDs (management) are not layered, as the route check does not
 * count them (routecheck.h): they take layer 0.
 */
#ifndef VF_VLLAYERS_H
#define VF_VLLAYERS_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric.h"

#define VF_LAYERS_MAX 15	/* data VLs: VL0-14 */
/* the pair table's limit: CA LIDs squared */
#define VF_LAYERS_MEM (256u << 20)

struct vf_layers {
	unsigned num;		/* layers used; 1 when the routes need none */
	bool both_ways;		/* a pair's two routes on one layer */
	uint16_t max_lid;
	uint32_t num_cas;	/* CA LIDs */
	uint32_t *ca_index;	/* [max_lid + 1] a CA LID's index, else
				 * VF_NONE */
	uint16_t *ca_lid;	/* [num_cas] the LID of each index */
	uint32_t nsw;
	uint32_t *at_start;	/* [nsw + 1] into at: the CA LIDs whose */
	uint32_t *at;		/* traffic enters at each switch (indices) */
	/* [a * num_cas + b]: the layer of the pair of CA LIDs a, b (both
	 * ways); NULL when num is 1 */
	uint8_t *pair;
};

/*
 * Layer t's data routes into at most max layers (1..VF_LAYERS_MAX), both
 * ways or one way.  Returns 0; -ERANGE when they need more than max
 * (l->num is then max + 1); -ELOOP when a route between hosts loops (no
 * layering helps); -E2BIG when the pair table would take more than
 * VF_LAYERS_MEM bytes; -ENOMEM.  Free l with vf_layers_free() either way.
 */
int vf_layers_build(const struct vf_fabric *f, const struct vf_lfts *t,
		    unsigned max, bool both_ways, struct vf_layers *l);
void vf_layers_free(struct vf_layers *l);

/* The layer of the traffic from slid to dlid (0: not two CA LIDs). */
static inline unsigned vf_layer_of(const struct vf_layers *l, unsigned slid,
				   unsigned dlid)
{
	uint32_t a, b;

	if (!l->pair || slid > l->max_lid || dlid > l->max_lid)
		return 0;
	a = l->ca_index[slid];
	b = l->ca_index[dlid];
	if (a == VF_NONE || b == VF_NONE)
		return 0;
	return l->pair[(size_t)a * l->num_cas + b];
}

/*
 * The layers (bit n: layer n) of the traffic from the CA LIDs that enter
 * at switch s to lid: what the per-VL check needs (vlcheck.h).
 */
uint16_t vf_layers_from_switch(const struct vf_layers *l, uint32_t s,
			       unsigned lid);

struct vf_vl_model;
/*
 * The VLs of l alone (no QoS): layer n's routes on SL n, SL n on VL n at
 * every port.  m refers to l.
 */
void vf_layers_vl_model(const struct vf_layers *l, struct vf_vl_model *m);

#endif /* VF_VLLAYERS_H */
