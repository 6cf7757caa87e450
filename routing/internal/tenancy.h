/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Partition-aware routing (docs/partition-routing.md): what the engines
 * need of the traffic classes (routing/traffic.h).  Internal to the
 * engines; the modes are routing/tenancy.h.
 *
 * Balance.  Every CA port gets one class to be balanced under: the first
 * non-management class it is a full member of, else the first it is a
 * limited member of (a storage server full in Services is balanced as
 * Services; a tenant host, full in its tenant and limited in Services, as
 * its tenant).  Engines then spread each class's destinations over the
 * equal-cost ports on their own, so a tenant's traffic is as balanced as
 * if it were alone on the fabric.
 *
 * Isolation.  Tenants are the non-management classes that share no member
 * port with some other one (Compute_A and Compute_B; not Services, whose
 * limited members are both tenants' hosts).  Switches above the edge
 * switches are given to tenants, top tier first, in contiguous blocks
 * sized by the tenants' weights, of whole groups (top switches with the
 * same switches below: a chassis's spine chips, a plane's cores) when
 * there are enough groups; a lower switch goes to the tenant owning
 * most of the switches above it, or, when none owns a majority (a director
 * chassis's leaf chips see every spine chip), by weighted round robin in
 * its tier.  A destination of tenant T is then routed through T's switches
 * wherever its equal-cost choices include one; elsewhere it takes what
 * there is, and the metrics (routing/partload.h) report the sharing.
 * Routes stay on the engine's own candidates, so up/down stays up/down
 * (deadlock-free) and every permitted pair stays reachable.
 */
#ifndef VF_TENANCY_MAP_H
#define VF_TENANCY_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "routing/fabric.h"
#include "routing/internal/swgraph.h"
#include "routing/tenancy.h"
#include "routing/traffic.h"

#define VF_TENANCY_NONE UINT16_MAX
#define VF_TENANCY_MAX 64	/* tenants given switches; more share */

struct vf_tenancy {
	enum vf_partition_routing mode;
	unsigned num_classes;
	uint16_t *port_class;	/* [num_ports]: balance class, or NONE */
	uint16_t *port_tenant;	/* [num_ports]: tenant class, or NONE */
	uint16_t *owner;	/* [nsw]: tenant owning the switch, or NONE */
	unsigned num_tenants;
	uint32_t owned_switches;	/* switches given to a tenant */
};

/*
 * From traffic t on fabric f (whose switch graph is g), for mode; with
 * mode OFF or no classes everything is NONE.  0 or -ENOMEM.
 */
int vf_tenancy_init(struct vf_tenancy *ten, const struct vf_fabric *f,
		    const struct vf_swgraph *g, const struct vf_traffic *t,
		    enum vf_partition_routing mode);
void vf_tenancy_free(struct vf_tenancy *ten);

/* May a destination of tenant `tenant` use next switch n (isolation)? */
static inline bool vf_tenancy_allows(const struct vf_tenancy *ten,
				     uint16_t tenant, uint32_t n)
{
	return tenant == VF_TENANCY_NONE || !ten->owner ||
	       ten->owner[n] == VF_TENANCY_NONE || ten->owner[n] == tenant;
}

#endif /* VF_TENANCY_MAP_H */
