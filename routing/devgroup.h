/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Device groups, as far as routing needs them: a named set of ports given
 * by NodeGUID, PortGUID or NodeDesc pattern (reference/opa-fm.md 1.3).
 *
 * The vFabric configuration's DeviceGroups arrive here resolved to port
 * GUIDs (partition/routegroups.c), event_plugin_options' dg_ groups as
 * written; this module knows nothing about where a group comes from.
 */
#ifndef VF_DEVGROUP_H
#define VF_DEVGROUP_H

#include <stdbool.h>

#include "common/ndpattern.h"
#include "engine.h"
#include "fabric.h"

/* RoutingOrder holds at most this many groups (the FM's limit). */
#define VF_DG_MAX_ORDER 8

struct vf_devgroup {
	const char *name;
	/* NodeGUIDs and PortGUIDs, mixed, sorted ascending */
	struct vf_guid_set guids;
	/*
	 * NodeDesc patterns, compiled (common/ndpattern.h: the vFabric
	 * file's syntax and meaning, a :[lo-hi] port range included)
	 */
	const struct vf_ndpat *const *desc_patterns;
	unsigned num_patterns;
};

/*
 * Port index p is a member of g: its node's GUID or its own PortGUID is in
 * g's set, or its node's NodeDesc matches one of g's patterns (and its
 * port number the pattern's port range, if it has one).  Says
 * nothing about switches in particular: callers decide what their port 0
 * means.
 */
bool vf_devgroup_has_port(const struct vf_fabric *f,
			  const struct vf_devgroup *g, uint32_t p);

/*
 * The position in groups[0..n) of the first group holding port index p, or
 * n when none does (the RoutingOrder rule: first listed group wins).
 */
unsigned vf_devgroup_first(const struct vf_fabric *f,
			   const struct vf_devgroup *groups, unsigned n,
			   uint32_t p);

#endif /* VF_DEVGROUP_H */
