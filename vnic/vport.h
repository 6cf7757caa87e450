/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * One VNIC port (vport) as its endpoint holds it: the virtual Ethernet
 * switch (vESW) it belongs to and its own settings, as the Ethernet
 * Manager writes them (reference/vnic-ema.md sections 3.2-3.3), plus the
 * MAC table.  Shared by the management agent (which stores what the EM
 * sets) and the data path (which encapsulates by it), so both read the
 * same fields.  Plain data: no I/O.
 */
#ifndef VF_VPORT_H
#define VF_VPORT_H

#include <stdbool.h>
#include <stdint.h>

#define VF_VPORT_DEFAULT_PORTS 16	/* u_ucast_dlid[] */
#define VF_VPORT_PCP 8			/* priorities of an 802.1Q tag */
#define VF_VPORT_MAC_TABLE 2048		/* max_mac_tbl_ent */
#define VF_VPORT_MAX_SMAC 256		/* max_smac_ent */
#define VF_VPORT_MIN_MTU 68		/* the least MTU IPv4 allows */
#define VF_VPORT_SD_SMAC 0x20		/* dlid_sd bit 5: a source-MAC entry */

/* config_state and oper_state */
enum vf_vport_state {
	VF_VPORT_NOP = 0,
	VF_VPORT_DROP_ALL = 1,
	VF_VPORT_INIT = 2,
	VF_VPORT_FORWARDING = 3,
};

/* eth_link_status */
enum vf_vport_link {
	VF_VPORT_LINK_UNKNOWN = 0,
	VF_VPORT_LINK_UP = 1,
	VF_VPORT_LINK_DOWN = 2,
};

/* The vESW part: the same for every member of one vESW. */
struct vf_vesw {
	uint16_t fabric_id;		/* 10 bits */
	uint16_t vesw_id;		/* 12 bits, 1-4095 (0 is invalid) */
	uint16_t def_port_mask;		/* bit i: u_ucast_dlid[i] usable */
	uint16_t pkey;			/* in every 16B header */
	uint32_t u_mcast_dlid;		/* multicast/broadcast, no table hit */
	uint32_t u_ucast_dlid[VF_VPORT_DEFAULT_PORTS];	/* unknown global unicast */
	uint32_t rc;			/* 3-bit routing-control fields */
	uint16_t eth_mtu;
};

/* One MAC table entry (VESWPORT_MAC_ENTRIES). */
struct vf_vport_mac {
	uint8_t mac[6];
	uint8_t mask[6];		/* stored and returned, not matched */
	uint32_t dlid_sd;		/* DLID << 8 | side data */
};

/* The vport part, and the endpoint's own state. */
struct vf_vport {
	struct vf_vesw vesw;
	uint32_t port_num;		/* the EM's port number on the vESW */
	uint8_t base_mac[6];		/* EM-assigned */
	uint8_t config_state;		/* enum vf_vport_state, set by the EM */
	uint8_t oper_state;		/* enum vf_vport_state, ours */
	uint8_t eth_link_status;	/* enum vf_vport_link, ours */
	uint32_t mac_tbl_digest;	/* the EM's, last MAC_ENTRIES Set */
	uint32_t encap_slid;		/* SLID of every 16B header */
	uint8_t pcp_to_sc_uc[VF_VPORT_PCP], pcp_to_vl_uc[VF_VPORT_PCP];
	uint8_t pcp_to_sc_mc[VF_VPORT_PCP], pcp_to_vl_mc[VF_VPORT_PCP];
	uint8_t non_vlan_sc_uc, non_vlan_vl_uc;
	uint8_t non_vlan_sc_mc, non_vlan_vl_mc;
	uint16_t uc_macs_gen_count, mc_macs_gen_count;
	bool exists;			/* created by a Set of the vport info */
	bool admin_up;			/* the host's interface is up */
	struct vf_vport_mac macs[VF_VPORT_MAC_TABLE];	/* all-zero MAC: unused */
};

#endif /* VF_VPORT_H */
