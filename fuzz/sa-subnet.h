/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * An OpenSM subnet in memory for the SA target: the nodes, ports, links,
 * LIDs of a fabric model made with OpenSM's own constructors, as a sweep
 * leaves them.  Include after <opensm/osm_config.h> and osm_opensm.h.
 */
#ifndef VF_FUZZ_SA_SUBNET_H
#define VF_FUZZ_SA_SUBNET_H

#include <stdbool.h>

#include "partition/plan.h"
#include "routing/fabric.h"

/*
 * Load OpenSM's code from the opensm binary ($OPENSM, else
 * /usr/sbin/opensm: fuzz/sa-opensm.c); false when it cannot be.
 */
bool vf_fuzz_opensm_load(void);

/*
 * Fill osm->subn (constructed here) with f; its SM port is sm_guid.
 * Exits on failure (a fixed fabric: nothing the input decides).
 */
void vf_fuzz_subnet_build(osm_opensm_t *osm, const struct vf_fabric *f,
			  uint64_t sm_guid);
/*
 * Program what the sweep would: every switch's LFT from t and every end
 * port's P_Key table from plan, both for g (a model of osm's subnet).
 */
void vf_fuzz_subnet_program(osm_opensm_t *osm, const struct vf_fabric *g,
			    const struct vf_lfts *t, const struct vf_plan *plan);

#endif /* VF_FUZZ_SA_SUBNET_H */
