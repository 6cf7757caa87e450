/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Layers that make a routing deadlock-free on any topology: the data
 * routes of a set of tables are split among layers so that no layer's
 * channel dependency graph has a cycle; each layer then travels on its
 * own virtual lane (through its SL and the SL-to-VL tables), as OpenSM's
 * dfsssp and nue do.  The routes themselves are not changed: balance
 * stays the engine's.
 *
 * Layers are given to units of traffic.  Both ways (the default), a unit
 * is a pair of CA LIDs a, b: the route from a's switch to b and the one
 * from b's switch to a go into one layer, because a connection the IB CM
 * sets up sends both ways on one SL (the passive side answers on the SL
 * of the REQ's path, which PathRecords call reversible).  Past
 * VF_LAYERS_FINE pairs of CA LIDs, a unit is a pair of switches (every
 * route between their CAs, both ways): more layers (a 6x6 torus: 6 one
 * way, against 4), because a pair brings every route between two
 * switches, but pairs of CA LIDs grow with hosts squared (an 11,388-host
 * dragonfly was still layering after ten minutes).  One way, a unit is a
 * route, from a switch to a CA LID, which all of the switch's CAs take
 * (tables are destination-based): as few layers as pairs of CA LIDs one
 * way would need, at switches times CA LIDs.  One way is right for
 * traffic each side sends on the SL of its own PathRecord (UD, RC
 * connected out of band), not for CM connections.  A unit goes into the
 * first layer where its routes close no cycle (first fit, each layer
 * kept acyclic as it grows: depgraph.h), the units with the longest
 * routes first.  Routes to and from switch LIDs (management) are not
 * layered, as the route check does not count them (routecheck.h): they
 * take layer 0.
 */
#ifndef VF_VLLAYERS_H
#define VF_VLLAYERS_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric.h"

#define VF_LAYERS_MAX 15	/* data VLs: VL0-14 */
/* both ways, up to this many pairs of CA LIDs each is a unit */
#define VF_LAYERS_FINE (1u << 21)
/* the pair table's limit (and as much for the lengths while layering) */
#define VF_LAYERS_MEM (256u << 20)

struct vf_layers {
	unsigned num;		/* layers used; 1 when the routes need none */
	bool both_ways;		/* a pair's two directions on one layer */
	bool dst_by_switch;	/* both ways, a unit is a pair of switches */
	uint16_t max_lid;
	uint32_t nsw;
	/* the traffic's sources (by CA LID, or all CAs of a switch) and
	 * destinations (CA LIDs, or all those of a switch) are numbered */
	uint32_t nsrc, ndst;
	uint32_t *src_cls;	/* [max_lid + 1] a CA LID's source number,
				 * else VF_NONE */
	uint32_t *dst_cls;	/* [max_lid + 1] its destination number */
	uint32_t *sw_src;	/* [nsw + 1] the source numbers at switch s:
				 * [sw_src[s], sw_src[s + 1]) */
	/* [x * ndst + y]: the layer of the traffic from source x to
	 * destination y; NULL when num is 1 */
	uint8_t *pair;
};

/*
 * Layer t's data routes into at most max layers (1..VF_LAYERS_MAX), both
 * ways or one way.  Returns 0; -ERANGE when they need more than max
 * (l->num is then max + 1); -ELOOP when a route between hosts loops (no
 * layering helps); -E2BIG when the pair table and the lengths would take
 * more than VF_LAYERS_MEM bytes; -ENOMEM.  Free l with vf_layers_free() either way.
 */
int vf_layers_build(const struct vf_fabric *f, const struct vf_lfts *t,
		    unsigned max, bool both_ways, struct vf_layers *l);
void vf_layers_free(struct vf_layers *l);

/* The layer of the traffic from slid to dlid (0: not two CA LIDs). */
static inline unsigned vf_layer_of(const struct vf_layers *l, unsigned slid,
				   unsigned dlid)
{
	uint32_t x, y;

	if (!l->pair || slid > l->max_lid || dlid > l->max_lid)
		return 0;
	x = l->src_cls[slid];
	y = l->dst_cls[dlid];
	if (x == VF_NONE || y == VF_NONE)
		return 0;
	return l->pair[(size_t)x * l->ndst + y];
}

/* What a layer went to: "pair of hosts", "pair of switches", "route ...". */
const char *vf_layers_unit(const struct vf_layers *l);

/*
 * The layers (bit n: layer n) of the traffic from the CAs at switch s to
 * lid: what the per-VL check needs (vlcheck.h).  Layer 0 alone when there
 * are no layers or lid is not a CA LID; none when no CA LID enters at s.
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
