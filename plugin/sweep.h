/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * One sweep, one snapshot (DESIGN.md 2): the configuration, the fabric
 * model and the DeviceGroups resolved on it, made once per sweep and read
 * by every part of the plugin that acts in it: the partitions and the
 * SA's policy (HEAVY_SWEEP_DONE), the routing groups and partition-aware
 * routing (the engine callback), the P_Key check, AR and the EM
 * (SUBNET_UP).  Nothing in a sweep reads the file again or builds another
 * model, so no two parts of one sweep can act on different policies or
 * fabrics.
 *
 * A sweep begins at HEAVY_SWEEP_DONE, after the file was read, or at a
 * routing that finds none (OpenSM's reroute-only pass, which reports no
 * heavy sweep), and ends at SUBNET_UP.  The model is built when first
 * needed; before OpenSM's LID manager has run its LIDs are left out, and
 * they are read in when first needed after it (the routing, the EM).
 * Sweeper thread only.
 */
#ifndef VF_SWEEP_H
#define VF_SWEEP_H

#include <stdbool.h>

#include "partition/config.h"
#include "partition/resolution.h"
#include "routing/fabric.h"

struct vf_plugin;

struct vf_sweep {
	bool live;			/* begun, not yet ended */
	bool routed;			/* a routing of ours was kept from it */
	struct vf_config *config;	/* held; NULL: none in force */
	struct vf_fabric *fabric;	/* NULL until first needed */
	bool lids;			/* the model has the LID manager's LIDs */
	bool resolved;			/* res holds config on fabric */
	struct vf_resolution res;
	/* the process's counts of models built and DeviceGroup
	 * resolutions made when it began (the metrics: how many it made) */
	uint64_t models0, resolutions0;
};

/* HEAVY_SWEEP_DONE, after the configuration was read: a new sweep. */
void vf_sweep_begin(struct vf_plugin *p);
/*
 * This sweep's fabric model, with the LID manager's LIDs when lids is
 * set (call that only once the LID manager has run).  NULL when it cannot
 * be built (logged).  The sweep keeps it: vf_fabric_hold() to keep it
 * longer.  OpenSM's lock as for vf_fabric_from_subnet().
 */
struct vf_fabric *vf_sweep_fabric(struct vf_plugin *p, bool lids);
/*
 * This sweep's configuration resolved on its model (as vf_sweep_fabric),
 * or NULL: no configuration, or no model or memory (logged).
 */
const struct vf_resolution *vf_sweep_resolution(struct vf_plugin *p,
						bool lids);
/* The routing callback: begin a sweep if none is live (a reroute-only
 * pass) or this one was already routed. */
void vf_sweep_for_routing(struct vf_plugin *p);
/* Fabric models built and DeviceGroup resolutions made since the sweep
 * began, by anything in the process. */
void vf_sweep_counts(const struct vf_plugin *p, unsigned *models,
		     unsigned *resolutions);
/* The configuration this sweep acts on (between sweeps, the one read). */
const struct vf_config *vf_sweep_config(const struct vf_plugin *p);
/* SUBNET_UP, and unload: let everything go. */
void vf_sweep_end(struct vf_plugin *p);

#endif /* VF_SWEEP_H */
