/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * One vFabric policy resolved on one fabric: which ports each DeviceGroup
 * holds, computed once.  Everything derived from the policy on a fabric
 * starts from it: the fabric warnings (isolation.h), the plan (plan.h),
 * the SA's snapshot (sapolicy.h), the routing groups (routegroups.h),
 * partition-aware routing's classes (vftraffic.h) and the EM's plan
 * (vnic/empolicy.h).  The plugin makes one per sweep (plugin/sweep.c);
 * the CLI's resolve, explain and route make theirs the same way, so what
 * they print is what the plugin programs.
 */
#ifndef VF_RESOLUTION_H
#define VF_RESOLUTION_H

#include <stdint.h>

#include "partition/config.h"
#include "partition/dgresolve.h"
#include "routing/fabric.h"

struct vf_resolution {
	const struct vf_config *config;	/* validated; not owned */
	const struct vf_fabric *fabric;	/* finalized; not owned */
	uint32_t sm_port;		/* the SM's port slot, or VF_NONE */
	uint32_t sm_node;		/* its node (Select Self), or VF_NONE */
	struct vf_dg_members dg;	/* every DeviceGroup's ports */
};

/*
 * Resolve c's DeviceGroups on f; sm_port is the SM's port slot or
 * VF_NONE.  c and f must outlive r.  0 or -ENOMEM (r is then empty).
 */
int vf_resolve(struct vf_resolution *r, const struct vf_config *c,
	       const struct vf_fabric *f, uint32_t sm_port);
void vf_resolution_free(struct vf_resolution *r);

#endif /* VF_RESOLUTION_H */
