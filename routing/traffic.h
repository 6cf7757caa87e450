/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Who may talk to whom: the traffic classes (virtual fabrics) of a
 * fabric, for partition-aware routing and its metrics (docs/
 * partition-routing.md).  A class is one virtual fabric: a set of CA end
 * ports, each a full or a limited member.  Two ports may exchange packets
 * in a class when both are members and at least one is full (IBA P_Key
 * rules), which is all that routing needs of the vFabric policy.
 *
 * Built by partition/ from a resolved configuration, or by hand (tests);
 * routing/ only reads it.  Port slots are those of the fabric it was
 * built for.
 */
#ifndef VF_TRAFFIC_H
#define VF_TRAFFIC_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric.h"

#define VF_TRAFFIC_NAME 64

struct vf_traffic_class {
	char name[VF_TRAFFIC_NAME];	/* the virtual fabric's */
	uint16_t pkey;			/* 15 bits, for reports */
	unsigned weight;		/* relative share of balance, >= 1 */
	/*
	 * Management traffic (the default partition, an Admin VF): counted
	 * for reachability, left out of balance and isolation.
	 */
	bool management;
};

enum vf_traffic_member {
	VF_TRAFFIC_NONE = 0,
	VF_TRAFFIC_LIMITED = 1,
	VF_TRAFFIC_FULL = 2,
};

struct vf_traffic {
	struct vf_traffic_class *cls;
	unsigned num_classes;
	uint32_t num_ports;		/* the fabric's port slots */
	uint8_t *member;		/* [port * num_classes + class] */
};

/* An empty model for f's port slots and n classes; 0 or -ENOMEM. */
int vf_traffic_init(struct vf_traffic *t, const struct vf_fabric *f,
		    unsigned n);
void vf_traffic_free(struct vf_traffic *t);

static inline uint8_t vf_traffic_member(const struct vf_traffic *t,
					uint32_t port, unsigned c)
{
	return t->member[(size_t)port * t->num_classes + c];
}

static inline void vf_traffic_set(struct vf_traffic *t, uint32_t port,
				  unsigned c, enum vf_traffic_member m)
{
	t->member[(size_t)port * t->num_classes + c] = (uint8_t)m;
}

/* May ports a and b exchange packets in class c? */
static inline bool vf_traffic_pair(const struct vf_traffic *t, uint32_t a,
				   uint32_t b, unsigned c)
{
	uint8_t x = vf_traffic_member(t, a, c), y = vf_traffic_member(t, b, c);

	return x && y && (x == VF_TRAFFIC_FULL || y == VF_TRAFFIC_FULL);
}

/*
 * Do classes a and b have a member port in common?  Classes without one
 * ("disjoint", e.g. two tenants) can be kept off each other's links;
 * overlapping ones (a tenant and the shared storage VF) cannot, on the
 * links of the ports they share.
 */
bool vf_traffic_overlap(const struct vf_traffic *t, unsigned a, unsigned b);

#endif /* VF_TRAFFIC_H */
