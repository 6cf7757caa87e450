/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * DeviceGroup membership against a fabric: for every group of a config,
 * the set of port slots (routing/fabric.h) that belong to it, by the FM's
 * rules (reference/opa-fm.md 1.3): node-level criteria select every port
 * of a node, PortGUID and SWE0 one port, a NodeDesc pattern with :[a-b]
 * some ports; IncludeGroup unions.  Only live ports are members: linked
 * ports, and switch port 0.  A PortGUID that is an SR-IOV alias GUID
 * (routing/fabric.h) selects its physical port.
 *
 * InfiniBand has no PortNeighborMode.MgmtAllowed and no TFIs:
 * AllMgmtAllowed selects the SM's own node (where management runs),
 * TFIs selects nothing; SWE0 is every switch's port 0 (IB switches answer
 * SMPs there, enhanced or not).
 */
#ifndef VF_DGRESOLVE_H
#define VF_DGRESOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "partition/config.h"
#include "routing/fabric.h"

struct vf_dg_members {
	unsigned num_dgs;	/* the config's groups, in its order */
	uint32_t num_ports;	/* the fabric's port slots */
	uint32_t words;		/* 64-bit words per group */
	uint64_t *bits;		/* num_dgs rows of words */
};

/*
 * Resolve every group of c (which must have passed vf_config_validate)
 * on f; sm_node is the node index the SM runs on (Self), or VF_NONE.
 * 0 or -ENOMEM.
 */
int vf_dg_resolve(const struct vf_config *c, const struct vf_fabric *f,
		  uint32_t sm_node, struct vf_dg_members *m);
void vf_dg_members_free(struct vf_dg_members *m);
/* How many resolutions this process made: what tells a caller (the
 * plugin's sweep, its metrics) how often the groups were resolved. */
uint64_t vf_dg_resolve_count(void);

static inline bool vf_dg_has(const struct vf_dg_members *m, unsigned g,
			     uint32_t p)
{
	return m->bits[(size_t)g * m->words + p / 64] >> (p % 64) & 1;
}

/*
 * The members of group g as a sorted array of GUIDs for the routing
 * options: with switches, the NodeGUIDs of member switches (CoreSwitches);
 * without, the PortGUIDs of member CA ports (RouteLast, RoutingOrder).
 * *out is malloc'ed (NULL when empty); returns the count or -ENOMEM.
 */
int vf_dg_guids(const struct vf_dg_members *m, unsigned g,
		const struct vf_fabric *f, bool switches, uint64_t **out);

#endif /* VF_DGRESOLVE_H */
