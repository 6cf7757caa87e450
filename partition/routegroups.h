/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The routing settings of a vFabric config (<Sm>: SpineFirstRouting,
 * FatTreeTopology CoreSwitches/RouteLast, DGShortestPathTopology
 * RoutingOrder) turned into engine options on one fabric: the named
 * DeviceGroups are resolved there, so routing and partitions share one
 * definition of every group.
 */
#ifndef VF_ROUTEGROUPS_H
#define VF_ROUTEGROUPS_H

#include "partition/config.h"
#include "partition/resolution.h"
#include "routing/devgroup.h"
#include "routing/ar.h"
#include "routing/engine.h"
#include "routing/traffic.h"

struct vf_route_groups {
	int spine_first;		/* -1: the config does not say */
	bool has_core, has_last;	/* the config names these groups */
	struct vf_guid_set core;	/* switch NodeGUIDs */
	struct vf_guid_set last;	/* CA PortGUIDs */
	struct vf_devgroup order[VF_DG_MAX_ORDER];	/* PortGUID sets */
	unsigned num_order;
	uint64_t *owned[2 + VF_DG_MAX_ORDER];	/* what the sets point to */
	struct vf_traffic traffic;	/* partition-aware routing's input */
};

/* Does c name routing groups (CoreSwitches, RouteLast, RoutingOrder)? */
bool vf_route_groups_named(const struct vf_config *c);
/*
 * c's routing settings, with the groups it names as r (c resolved on the
 * fabric to route) has them; r is read only when c names groups (it may
 * be NULL otherwise).  0, -EINVAL (groups named, r not c's), or -ENOMEM.
 */
int vf_route_groups_build(const struct vf_config *c,
			  const struct vf_resolution *r,
			  struct vf_route_groups *g);
void vf_route_groups_free(struct vf_route_groups *g);

/*
 * The config's <AdaptiveRouting> into ar (fields it leaves unset keep the
 * FM's defaults, vf_ar_config_default()); fine-grained AR needs Enable
 * and FineGrained both.
 */
void vf_route_groups_ar(const struct vf_config *c, struct vf_ar_config *ar);

/* Put what the config says into o; fields it leaves unset stay. */
void vf_route_groups_apply(const struct vf_route_groups *g,
			   struct vf_route_opts *o);

#endif /* VF_ROUTEGROUPS_H */
