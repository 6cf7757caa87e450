/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * vFabric QoS with VL layers (routing/vllayers.h): when a routing needs L
 * layers to be deadlock-free, every QoS class needs a VL per layer, and
 * the layers of all classes must stay apart (a class's layer 1 on the VL
 * of another's layer 0 could close the loop the layers break).
 *
 * Classes are put in groups the VLs can hold, as many groups as
 * floor(VLs / L), in class order: class k in group k mod groups.  Group
 * g's layer l travels on VL g * L + l.  Classes of one group share those
 * VLs, and so their bandwidth: that is what is given up, and it is said.
 * A class's own SL carries its layer 0 (multicast too); layers above take
 * SLs no class uses, one per (group, layer), from SL 15 down.  Every port
 * gets the same SL2VL table; each layer VL of a group gets the group's
 * weight (the sum of its classes' shares; high priority when any is).
 */
#ifndef VF_QOSLAYERS_H
#define VF_QOSLAYERS_H

#include "partition/qos.h"

#define VF_QOS_MAX_LAYERS 15
#define VF_QOS_NO_SL 0xff

struct vf_qos_layering {
	unsigned layers;
	unsigned groups;
	uint8_t group[VF_QOS_MAX_CLASSES];	/* class -> group */
	/* [SL of a class][layer]: the SL of that class's layer, else
	 * VF_QOS_NO_SL (an SL no class has) */
	uint8_t sl[VF_QOS_NUM_SLS][VF_QOS_MAX_LAYERS];
	uint8_t vl_of_sl[VF_QOS_NUM_SLS];	/* unused SLs: VL0 */
	bool shared;				/* some group has 2+ classes */
};

/*
 * Lay q's classes over `layers` layers on ports of `vls` data VLs.
 * 0; -ERANGE when layers > vls, or the SLs do not suffice (y says no
 * more).
 */
int vf_qos_layering(const struct vf_qos_prog *q, unsigned layers,
		    unsigned vls, struct vf_qos_layering *y);

/* The SL2VL and VLArb tables of every port under y. */
void vf_qos_layered_tables(const struct vf_qos_prog *q,
			   const struct vf_qos_layering *y, unsigned high_cap,
			   struct vf_qos_port *t);

/*
 * One line per group sharing VLs, for the log and the CLI: "'A' (VFs a1,
 * a2) and 'B' (VFs b) share VLs 2-3 (their bandwidth shares add up:
 * 50%)"; the VFs only with the configuration and plan q came from (c, p
 * may be NULL).  NULL when i is past the last; buf holds the line.
 */
const char *vf_qos_layering_shared(const struct vf_qos_prog *q,
				   const struct vf_qos_layering *y,
				   const struct vf_config *c,
				   const struct vf_plan *p,
				   unsigned i, char *buf, size_t size);

/* One line for the log: each class's SL per layer and its VLs. */
void vf_qos_layering_summary(const struct vf_qos_prog *q,
			     const struct vf_qos_layering *y, char *buf,
			     size_t size);

#endif /* VF_QOSLAYERS_H */
