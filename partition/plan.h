/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The partition plan: the vFabric configuration resolved on a fabric into
 * P_Key partitions of end ports (CA ports and switch port 0), as OpenSM's
 * partition manager takes them.
 *
 * Partition 0 is always the default one, P_Key 0x7fff (seed 002): the SM's
 * port and switch port 0s full members; ports that some other partition
 * holds limited members (they reach the SM and SA, not each other through
 * it); ports no VF names full members, or limited ones when
 * disconnect_unconfigured is set.  VFs with P_Key 0x7fff (the FM's Admin
 * VF) add their members to it; without one it has an IPoIB broadcast
 * group, as stock OpenSM's.  VFs sharing a P_Key share a partition.
 *
 * A port whose P_Key table cannot hold all its partitions keeps the
 * default and the VFs listed first; the others are dropped from that port
 * and reported by port and VF.
 *
 * Index 0 (the P_Key IPoIB's ib0 uses): as the FM, an XML file's first VF
 * in config order that is not on 0x7fff and that the port is a member of
 * (sm_compute_portPkeys); the emitted file says so with OpenSM's indx0
 * flag.  Ports in no such VF, and every port of a partitions.conf (which
 * has its own indx0 flag), keep OpenSM's rule: the default partition.
 */
#ifndef VF_PLAN_H
#define VF_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "partition/assign.h"
#include "partition/config.h"
#include "partition/diag.h"
#include "partition/recover.h"
#include "partition/resolution.h"
#include "routing/fabric.h"

#define VF_PKEY_DEFAULT 0x7fff

struct vf_plan_opts {
	bool allow_both_pkeys;		/* OpenSM's option of that name */
	bool disconnect_unconfigured;	/* seed 002's global flag */
	/* what the ports hold, to recover P_Keys the cache lacks; or NULL */
	const struct vf_held_pkeys *held;
};

struct vf_part_member {
	uint32_t port;			/* port slot in the fabric */
	uint8_t membership;		/* enum vf_membership */
	bool indx0;			/* this P_Key at the port's index 0
					 * (the FM's rule, or the indx0 flag
					 * of a partitions.conf) */
};

struct vf_partition {
	char *name;			/* the first VF's, or "Default" */
	uint16_t pkey;			/* 15 bits */
	bool ipoib;			/* an IPoIB broadcast group */
	bool stock_rules;		/* partitions.conf partitions only:
					 * no group without ipoib, as OpenSM */
	unsigned mtu;			/* IB MTU code of the group, 0 default */
	unsigned rate;			/* IB rate code, 0 default */
	int sl;				/* -1 default */
	struct vf_part_member *members;	/* by port slot */
	unsigned num_members;
	char *raw_flags;		/* partitions.conf flags, as written */
	struct vf_names mgid_lines;	/* partitions.conf mgid= lines */
};

struct vf_plan {
	struct vf_partition *parts;
	unsigned num_parts;
	uint16_t *vf_pkey;		/* per config VF; 0 when not active */
	int *vf_sl;			/* per config VF; -1 when not active */
	unsigned num_vfs;
	unsigned dropped;		/* memberships over a table's capacity */
	/*
	 * A stock partitions.conf (config stock_file): partitions may be
	 * empty (OpenSM then drops them, with their groups), and groups are
	 * the multicast groups OpenSM creates, in its order.
	 */
	bool stock;
	bool allow_both;		/* planned with allow_both_pkeys */
	struct vf_pc_group *groups;
	unsigned num_groups;
};

/*
 * The partitions of r's config on r's fabric (the SM's port is a full
 * member of the default).  Automatic P_Keys and SLs come from and go to a
 * (see assign.h).  Problems go to d; returns 0, -EINVAL when the
 * configuration cannot be realised at all (P_Keys or SLs exhausted), or
 * -ENOMEM.
 */
int vf_plan_build(const struct vf_resolution *r,
		  const struct vf_plan_opts *o, struct vf_assignment *a,
		  struct vf_plan *p, struct vf_diag *d);
void vf_plan_free(struct vf_plan *p);

/*
 * The entries port slot `port`'s P_Key table must hold under p: each
 * partition's P_Key, with bit 15 for full members (both: two entries).
 * Returns how many (at most max are written to out).
 */
unsigned vf_plan_port_entries(const struct vf_plan *p, uint32_t port,
			      uint16_t *out, unsigned max);

/*
 * The entry OpenSM puts at port slot `port`'s index 0 under p: its
 * indx0 partition's P_Key, else the default partition's, with bit 15 for
 * full members (both: the limited entry of an indx0 partition, the full
 * one of the default, as OpenSM orders them); 0 when in no partition,
 * and with allow_both_pkeys for a limited member of the default partition
 * (OpenSM puts only the full default entry there).
 */
uint16_t vf_plan_port_index0(const struct vf_plan *p, uint32_t port);

/*
 * Does table (n entries, 0 = empty slot) hold exactly the entries in want
 * (a set; order and empty slots do not matter)?  If not, *missing is a
 * wanted entry it lacks and *extra one it should not hold (-1: none).
 */
bool vf_pkeys_match(const uint16_t *want, unsigned nw, const uint16_t *table,
		    unsigned n, int *missing, int *extra);

#endif /* VF_PLAN_H */
