/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Warnings about tenant isolation that the FM accepts and so must we, but
 * that are seldom meant (issue 14, points 11 and 13):
 *
 *   - two secure VirtualFabrics with different members that name the same
 *     P_Key form one partition: full members of either reach every member
 *     of the other.  Said from the configuration alone (the groups), and
 *     on a fabric with a count of the ports and an example pair;
 *   - a DeviceGroup a VirtualFabric uses that selects no port of the
 *     fabric, and a NodeDesc pattern that matches no node: the hosts it
 *     was meant for get nothing from that VF and, in no other, stay full
 *     members of the default partition.
 *
 * Partitions of a partitions.conf sharing a P_Key are one partition, as
 * in OpenSM: not warned about.
 */
#ifndef VF_ISOLATION_H
#define VF_ISOLATION_H

#include <stdint.h>

#include "partition/config.h"
#include "partition/diag.h"
#include "partition/resolution.h"
#include "routing/fabric.h"

/* Configuration-level warnings (shared P_Keys); needs no fabric. */
void vf_warn_shared_pkeys(const struct vf_config *c, struct vf_diag *d);

/*
 * Fabric-level warnings of r's config on r's fabric: empty groups and
 * patterns, and the ports a shared P_Key lets reach each other.  0 or
 * -ENOMEM.
 */
int vf_warn_fabric(const struct vf_resolution *r, struct vf_diag *d);

#endif /* VF_ISOLATION_H */
