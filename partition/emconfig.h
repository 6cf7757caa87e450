/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The Ethernet Manager's configuration (docs/ethernet-manager.md): the
 * virtual Ethernet switches (vESWs) of <VirtualEthernetSwitches>, each
 * carried by one VirtualFabric's P_Key, its members and gateway ports
 * named by DeviceGroups.  Part of struct vf_config, read by the XML
 * front-end, checked with the rest of the configuration (names resolve,
 * ids unique), resolved on a fabric by vnic/empolicy.h.
 */
#ifndef VF_EMCONFIG_H
#define VF_EMCONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "partition/diag.h"

struct vf_config;
struct vf_names;

#define VF_EM_MAX_VESW_ID 4095		/* 12 bits; 0 is invalid */
#define VF_EM_MAX_FABRIC_ID 1023	/* 10 bits */
#define VF_EM_DEFAULT_MTU 1500
#define VF_EM_MIN_MTU 68
#define VF_EM_MAX_MTU 16333	/* the largest MTU whose frame a 16B
				 * packet's 11-bit length holds */
#define VF_EM_MAX_DEFAULT_PORTS 16	/* u_ucast_dlid[] */

/* How members' MACs are made (MacScheme). */
enum vf_em_mac_scheme {
	VF_EM_MAC_LOCAL = 0,	/* reference/vnic-ema.md 8: fabric, vESW, LID */
};

struct vf_cfg_vesw {
	char *name;
	struct vf_where at;
	bool enable;			/* default on */
	int vesw_id;			/* 1-4095, -1 unset */
	char *vf;			/* VirtualFabric: its P_Key carries it */
	char **members;			/* Member DeviceGroups */
	unsigned num_members;
	char **default_ports;		/* DefaultPort DeviceGroups */
	unsigned num_default_ports;
	unsigned eth_mtu;		/* EthMTU */
	enum vf_em_mac_scheme mac_scheme;
	uint32_t u_mcast_dlid;		/* UnknownMulticastDlid, 0 = replicate */
};

struct vf_em_config {
	struct vf_cfg_vesw *vesws;
	unsigned num_vesws;
	unsigned fabric_id;		/* FabricId, default 0 */
	struct vf_where at;		/* <VirtualEthernetSwitches> */
};

/* A new vESW at the end of the list, with the defaults; NULL on ENOMEM. */
struct vf_cfg_vesw *vf_em_new_vesw(struct vf_em_config *e, const char *name,
				   struct vf_where at);
void vf_em_config_free(struct vf_em_config *e);

/*
 * One field of a <VirtualEthernetSwitch>: element el with text v.
 * 0 taken, 1 not a field of ours, 2 a bad value (*why says what it must
 * be), -ENOMEM.
 */
int vf_em_vesw_field(struct vf_cfg_vesw *s, const char *el, const char *v,
		     const char **why);
/* <FabricId> of <VirtualEthernetSwitches>: 0, or 2 with *why. */
int vf_em_fabric_id(struct vf_em_config *e, const char *v, const char **why);

/*
 * The checks that need the whole configuration: every vESW has an id,
 * ids and names are unique, the VirtualFabric exists and is enabled, the
 * DeviceGroups exist.  Errors go to d; returns how many.
 */
unsigned vf_em_validate(const struct vf_config *c, struct vf_diag *d);

#endif /* VF_EMCONFIG_H */
