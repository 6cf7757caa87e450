/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The Ethernet Manager's policy (docs/ethernet-manager.md): the
 * configured virtual Ethernet switches resolved on a fabric into what
 * every member vport must hold — both parts of VeswPortInfo and its MAC
 * table.  Pure: the plugin compares this with what each endpoint
 * reports and sends only the difference.
 *
 * Members are the CA ports with a LID in a Member DeviceGroup that are
 * also full members of the vESW's VirtualFabric (its P_Key is in their
 * table), the SM's own port excepted.  A port in several vESWs gets one
 * vport for each, indexes 0, 1, ... in configuration order.
 *
 * The MAC table of a member holds every other member's base MAC and the
 * MACs their hosts added (learned from traps), each to that member's
 * LID.  Unicast to a base MAC needs no entry (the locally administered
 * MAC carries the LID), but the endpoint's head-end replication of
 * broadcast and multicast sends a copy to each DLID of the table
 * (docs/vnic-datapath.md): without the entries ARP would reach nobody.
 */
#ifndef VF_EMPOLICY_H
#define VF_EMPOLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "partition/config.h"
#include "partition/diag.h"
#include "partition/dgresolve.h"
#include "routing/fabric.h"
#include "vnic/vport.h"

/* What one member vport must hold (the EM's side of VeswPortInfo). */
struct vf_em_want {
	struct vf_vesw vesw;		/* part 0 */
	uint32_t port_num;		/* part 1: the port's LID */
	uint8_t base_mac[6];
	uint32_t encap_slid;
	uint8_t sc;			/* every SC of the PCP/non-VLAN maps */
	uint8_t vl;			/* and every VL */
};

struct vf_em_member {
	uint64_t guid;			/* PortGUID */
	uint16_t lid;
	uint32_t port;			/* fabric port slot */
	unsigned vesw;			/* index into vf_em_plan.vesws */
	unsigned vport;			/* vport index on the port */
	struct vf_em_want want;
};

struct vf_em_vesw {
	char *name;
	uint16_t id, pkey;
	unsigned first, count;		/* its members in vf_em_plan.members */
};

struct vf_em_plan {
	uint16_t fabric_id;
	struct vf_em_vesw *vesws;	/* enabled vESWs, in config order */
	unsigned num_vesws;
	struct vf_em_member *members;	/* grouped by vESW, by GUID inside */
	unsigned num_members;
};

/* Host-added MACs of one member (IfaceUcastMacs), for the MAC tables. */
struct vf_em_macs {
	unsigned n;
	uint8_t (*mac)[6];
};

/*
 * Resolve c's vESWs on f: m the DeviceGroups resolved there, vf_pkey and
 * vf_sl the plan's P_Key (15 bits, 0: not active) and SL (-1: none) per
 * config VF, sm_port the SM's port slot or VF_NONE.  A vESW whose VF has
 * no P_Key, or no member, is reported to d and left out.  0 or -ENOMEM.
 */
int vf_em_plan_build(const struct vf_config *c, const struct vf_fabric *f,
		     const struct vf_dg_members *m, const uint16_t *vf_pkey,
		     const int *vf_sl, uint32_t sm_port, struct vf_em_plan *p,
		     struct vf_diag *d);
void vf_em_plan_free(struct vf_em_plan *p);

/*
 * The MAC table member i must hold: entries for the other members of its
 * vESW (base MAC, then learned[j] when learned is not NULL: one per
 * member of p), at most cap into out.  Returns the count; *digest is a
 * hash of them, never 0 (0 is an empty table's).
 */
unsigned vf_em_mac_table(const struct vf_em_plan *p, unsigned i,
			 const struct vf_em_macs *learned,
			 struct vf_vport_mac *out, unsigned cap,
			 uint32_t *digest);

/*
 * Reading back a MAC table the EM has no record of (after an SM restart
 * it does not know how far the entries it wrote before reach): the EM
 * writes whole slices of VF_EMA_MACS_PER_MAD from index 0, so the first
 * slice worth reading when it writes n entries starts at
 * vf_em_scan_start(n).  For the slice e[0..num) read at offset,
 * vf_em_scan_page() raises *end past its last used entry and says
 * whether to read the next one: not after a slice with no entry (the
 * EM's tables have no holes) nor past the table's end.
 */
unsigned vf_em_scan_start(unsigned n);
bool vf_em_scan_page(unsigned offset, const struct vf_vport_mac *e,
		     unsigned num, unsigned *end);

/* The member with that GUID and vport index, or -1. */
int vf_em_find(const struct vf_em_plan *p, uint64_t guid, unsigned vport);

#endif /* VF_EMPOLICY_H */
