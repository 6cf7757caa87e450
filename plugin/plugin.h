/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The plugin's private state, shared by its files.  Include after
 * <opensm/osm_config.h> and the OpenSM headers.
 */
#ifndef VF_PLUGIN_H
#define VF_PLUGIN_H

#include "plugin/options.h"
#include "routing/engine.h"
#include "routing/fabric.h"
#include "routing/routecheck.h"

struct osm_opensm;
struct osm_subn;

/* What OpenSM's engine callbacks get as context: one per engine. */
struct vf_engine_ctx {
	struct vf_plugin *plugin;
	const struct vf_engine *engine;
	unsigned runs;		/* successful routings, for the log */
};

/*
 * The last routing our engines produced and OpenSM took.  The route check
 * runs on it at UCAST_ROUTING_DONE, outside OpenSM's lock, not in the
 * engine callback where the SA waits; the next routing starts from it
 * (route_stability).  Only the sweeper thread touches it.
 */
struct vf_routing {
	const struct vf_engine *engine;
	struct vf_fabric *fabric;	/* NULL when none */
	struct vf_lfts lfts;
	bool checked;		/* report computed (loop_fallback) */
	bool logged;		/* report logged, or check_routes off */
	struct vf_route_report report;
};

struct vf_plugin {
	struct osm_opensm *osm;
	struct vf_options opts;
	struct vf_engine_ctx *engines;	/* one per vf_engines[] entry */
	struct vf_routing last;
};

/*
 * Build the fabric model from OpenSM's subnet.  Nodes and ports whose
 * discovery_count is 0 (about to be dropped) are left out.  Caller holds
 * the OpenSM lock (or runs in the sweeper).  NULL on failure, logged.
 */
struct vf_fabric *vf_fabric_from_subnet(struct osm_subn *subn);

/* Register every engine of vf_engines[] with OpenSM; 0 or -errno. */
int vf_engines_register(struct vf_plugin *p);
/* Check and log the last routing, once. */
void vf_check_last(struct vf_plugin *p);
/* Free the last routing. */
void vf_drop_last(struct vf_plugin *p);

#endif /* VF_PLUGIN_H */
