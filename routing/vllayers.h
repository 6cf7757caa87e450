/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Layers that make a routing deadlock-free on any topology: the data
 * routes of a set of tables, each from a source switch to a CA LID, are
 * split among layers so that no layer's channel dependency graph has a
 * cycle; each layer then travels on its own virtual lane (through its SL
 * and the SL-to-VL tables), as OpenSM's dfsssp and nue do.  The routes
 * themselves are not changed: balance stays the engine's.
 *
 * Routes go into the first layer they fit without closing a cycle
 * (first fit, each layer kept acyclic as it grows: depgraph.h), one
 * destination LID after another, each LID's longest routes first.  Routes
 * to switch LIDs (management) are not layered, as the route check does
 * not count them (routecheck.h).
 */
#ifndef VF_VLLAYERS_H
#define VF_VLLAYERS_H

#include <stdint.h>

#include "fabric.h"

#define VF_LAYERS_MAX 15	/* data VLs: VL0-14 */

struct vf_layers {
	unsigned num;		/* layers used; 1 when the routes need none */
	uint32_t nsw;
	uint16_t max_lid;
	/* [s * (max_lid + 1) + lid]: the layer of the routes from switch
	 * s's CA ports to lid; NULL when num is 1 */
	uint8_t *of;
};

/*
 * Layer t's data routes into at most max layers (1..VF_LAYERS_MAX).
 * Returns 0; -ERANGE when they need more than max (l->num is then how
 * many first fit went to, at most VF_LAYERS_MAX + 1 meaning more than
 * VF_LAYERS_MAX); -ELOOP when a route loops (no layering helps);
 * -E2BIG when the layer table would take more than VF_LAYERS_MEM bytes;
 * -ENOMEM.
 */
#define VF_LAYERS_MEM (256u << 20)
int vf_layers_build(const struct vf_fabric *f, const struct vf_lfts *t,
		    unsigned max, struct vf_layers *l);
void vf_layers_free(struct vf_layers *l);

struct vf_vl_model;
/*
 * The VLs of l alone (no QoS): layer n's routes on SL n, SL n on VL n at
 * every port.  m refers to l.
 */
void vf_layers_vl_model(const struct vf_layers *l, struct vf_vl_model *m);

/* The layer of the routes from switch s's CA ports to lid. */
static inline unsigned vf_layer_of(const struct vf_layers *l, uint32_t s,
				   unsigned lid)
{
	if (!l->of || s >= l->nsw || lid > l->max_lid)
		return 0;
	return l->of[(size_t)s * (l->max_lid + 1u) + lid];
}

#endif /* VF_VLLAYERS_H */
