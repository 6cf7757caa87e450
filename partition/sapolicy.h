/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The SA's snapshot of the vFabric policy: what PathRecord and
 * MCMemberRecord answers are decided from, built once per heavy sweep and
 * never changed after.  The sweeper swaps in a new one; a query holds the
 * one it took (get/put) to its end, so no answer ever mixes two policies
 * (DESIGN.md 2).
 *
 * It holds a reference to the configuration, each VF's P_Key and SL from
 * the plan, and each end port's membership of each VF, by PortGUID.
 */
#ifndef VF_SAPOLICY_H
#define VF_SAPOLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "partition/config.h"
#include "partition/pathsel.h"
#include "partition/plan.h"
#include "partition/query.h"
#include "partition/resolution.h"
#include "routing/fabric.h"

struct vf_sa_policy {
	int refs;
	struct vf_config *config;	/* held */
	struct vf_path_policy path;	/* points into this snapshot */
	uint16_t *vf_pkey;
	int *vf_sl;
	uint8_t *member;		/* rows: num_ends * num_vfs */
	uint64_t *guids;		/* the end ports' GUIDs, sorted: the
					 * index is the port's row */
	uint32_t num_ends;
	enum vf_path_selection path_selection;
	bool any_secure;		/* a VF with Security: multicast
					 * creates are checked (the FM's rule) */
};

/*
 * A snapshot of r, whose config is c (heap, held from here on: c is
 * r->config, not const), with plan's P_Keys and SLs.  NULL on ENOMEM (or
 * when c is not r's config).
 */
struct vf_sa_policy *vf_sa_policy_build(struct vf_config *c,
					const struct vf_resolution *r,
					const struct vf_plan *plan,
					enum vf_path_selection sel);
void vf_sa_policy_hold(struct vf_sa_policy *p);
void vf_sa_policy_release(struct vf_sa_policy *p);

/* The row of end port port_guid, or -1 when the snapshot has none. */
int64_t vf_sa_policy_row(const struct vf_sa_policy *p, uint64_t port_guid);

/* Port row r's membership of VF i (enum vf_membership). */
static inline uint8_t vf_sa_member(const struct vf_sa_policy *p, unsigned i,
				   uint32_t r)
{
	return p->member[(size_t)r * p->config->num_vfs + i];
}

#endif /* VF_SAPOLICY_H */
