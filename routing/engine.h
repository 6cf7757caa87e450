/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Routing engines: one table of {name, route function}, the same for the
 * plugin (which registers each with OpenSM) and the CLI (which routes net
 * files offline).  An engine reads the fabric model and fills LFTs; it
 * never sees OpenSM.
 */
#ifndef VF_ENGINE_H
#define VF_ENGINE_H

#include <stdbool.h>

#include "fabric.h"
#include "tenancy.h"
#include "traffic.h"

/* A set of nodes given by NodeGUID (sorted ascending), e.g. a device group. */
struct vf_guid_set {
	const uint64_t *guids;
	unsigned count;
};

/* True when the set holds guid (binary search). */
bool vf_guid_set_has(const struct vf_guid_set *set, uint64_t guid);

struct vf_devgroup;	/* routing/devgroup.h */

/* The previous routing: its fabric model and its tables. */
struct vf_previous {
	const struct vf_fabric *fabric;
	const struct vf_lfts *lfts;
};

struct vf_route_opts {
	bool verbose;		/* log per-switch decisions at debug level */
	/*
	 * SpineFirstRouting (Omni-Path name; on by default): inside a director
	 * chassis (switch chips sharing a SystemImageGUID) a leaf chip routes
	 * up to a spine chip whenever a spine is among its equal-cost
	 * choices, so routes through a chassis core are up/down.
	 */
	bool spine_first;
	/* fattree: the top tier, when not derived from the end nodes */
	struct vf_guid_set core_switches;
	/* fattree: CAs routed in a second pass (e.g. storage, admin) */
	struct vf_guid_set route_last;
	/*
	 * Route stability: the previous routing, whose entries are kept
	 * where still valid; NULL routes from scratch.
	 */
	const struct vf_previous *previous;
	/*
	 * dgshortestpath: RoutingOrder, at most VF_DG_MAX_ORDER device
	 * groups; end ports are routed group by group in this order.
	 */
	const struct vf_devgroup *routing_order;
	unsigned num_routing_order;
	/*
	 * Partition-aware routing (routing/tenancy.h): who may talk to whom,
	 * and whether each class is balanced on its own or also kept on its
	 * own switches.  NULL traffic or mode OFF: all-to-all.
	 */
	const struct vf_traffic *traffic;
	enum vf_partition_routing partition_routing;
	/*
	 * Which of an engine's two class-by-class orders to use (0 or 1),
	 * chosen by routing/classbest.c: fattree restarts its rotation for
	 * each class behind an edge switch (0) or goes on from the class
	 * before (1); shortestpath groups the ports behind a switch by class
	 * (0) or not (1).
	 */
	unsigned class_variant;
};

/* The defaults: spine_first on, no device groups. */
void vf_route_opts_default(struct vf_route_opts *o);

/*
 * Fill t (already sized to f by vf_lfts_init and set to VF_NO_PORT) with
 * the LFT of every switch.  Returns 0, or a negative errno when the engine
 * cannot route this fabric (the caller then falls back).
 */
typedef int (*vf_route_fn)(const struct vf_fabric *f,
			   const struct vf_route_opts *opts,
			   struct vf_lfts *t);

struct vf_engine {
	const char *name;	/* as listed in OpenSM's routing_engine */
	const char *summary;	/* one line for --help and the log */
	vf_route_fn route;
};

extern const struct vf_engine vf_engines[];
extern const unsigned vf_num_engines;

/* The engine called name, or NULL. */
const struct vf_engine *vf_engine_find(const char *name);

int vf_route_shortestpath(const struct vf_fabric *f,
			  const struct vf_route_opts *opts, struct vf_lfts *t);
int vf_route_dgshortestpath(const struct vf_fabric *f,
			    const struct vf_route_opts *opts,
			    struct vf_lfts *t);
int vf_route_fattree(const struct vf_fabric *f,
		     const struct vf_route_opts *opts, struct vf_lfts *t);

#endif /* VF_ENGINE_H */
