/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The traffic classes (routing/traffic.h) of a resolved vFabric
 * configuration: one class per active virtual fabric, in config order,
 * with the CA ports DeviceGroup resolution gives it on the fabric (limited
 * members of a VF without Security count as full, as in the plan).
 *
 * Weights: a VF with a Bandwidth gets that percentage, the others share
 * what is left evenly (at least 1 each), as the FM splits bandwidth;
 * without any Bandwidth every VF weighs the same.  The VF of the default
 * P_Key 0x7fff (the FM's Admin) is management traffic.
 */
#ifndef VF_PART_TRAFFIC_H
#define VF_PART_TRAFFIC_H

#include "partition/config.h"
#include "partition/plan.h"
#include "partition/resolution.h"
#include "routing/traffic.h"

/*
 * The classes of r's config on r's fabric; vf_pkey: each VF's P_Key as
 * planned (0: not active), num_vfs of them.  0, or -ENOMEM.
 */
int vf_traffic_build(const struct vf_resolution *r, const uint16_t *vf_pkey,
		     unsigned num_vfs, struct vf_traffic *t);

#endif /* VF_PART_TRAFFIC_H */
