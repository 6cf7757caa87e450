/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The Ethernet management protocol (EMA) between the Ethernet Manager
 * and a VNIC endpoint, carried in 256-byte InfiniBand vendor MADs
 * (docs/ema-protocol.md; the Omni-Path original is reference/vnic-ema.md
 * sections 1-3).  The attributes and their fields are Omni-Path's; what
 * does not fit an IB MAD is split into parts or sliced smaller.
 *
 * Byte layout of every MAD (big-endian):
 *   0-23    MAD common header (class 0x3B, base and class version 1)
 *   24-27   RMPP header, 0 (never segmented: RMPPFlags.Active, byte 26
 *           bit 0, stays 0, so a receiver ignores bytes 28-35)
 *   28-35   the EM key (VF_EMA_KEY_OFF), where RMPP would have Data1 and
 *           Data2: it costs no attribute data; 0 = no key
 *   36      reserved, 0
 *   37-39   OUI 00-06-6A
 *   40-223  attribute data (184 bytes)
 *   224-255 reserved, 0: umad2sim 0.10 copies only the first 224 bytes
 *           of a MAD to the receiver
 *
 * Pure C, no I/O.  Encoders write into a zeroed VF_EMA_MAD_SIZE buffer
 * (vf_ema_init); decoders take the received length, check it and every
 * field's range, and return a status (VF_EMA_OK or the MAD status to
 * answer with), never reading past the length.
 */
#ifndef VF_EMA_H
#define VF_EMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vport.h"

#define VF_EMA_CLASS 0x3B		/* vendor range 2: carries an OUI */
#define VF_EMA_BASE_VERSION 1
#define VF_EMA_CLASS_VERSION 1
#define VF_EMA_OUI 0x00066Au
/* What an endpoint offers and the EM may ask of one (both sides: the
 * plugin links the codec, not the agent) */
#define VF_EMA_MAX_VPORTS 8	/* per physical port: one netdev each, a
				 * handful is what a host uses; Omni-Path
				 * allows 255 */
#define VF_EMA_MAX_HOST_MACS 128	/* per list: 5 MADs of 29 */
#define VF_EMA_MAD_SIZE 256
#define VF_EMA_USED 224			/* bytes that carry anything */
#define VF_EMA_OUI_OFF 37
#define VF_EMA_DATA 40			/* offset of the attribute data */
#define VF_EMA_DATA_SIZE (VF_EMA_USED - VF_EMA_DATA)	/* 184 */
#define VF_EMA_KEY_OFF 28		/* the EM key, 8 bytes */
#define VF_EMA_RMPP_OFF 24		/* the RMPP header, 12 bytes */
#define VF_EMA_RMPP_SIZE 12

enum vf_ema_method {
	VF_EMA_GET = 0x01,
	VF_EMA_SET = 0x02,
	VF_EMA_TRAP = 0x05,
	VF_EMA_TRAP_REPRESS = 0x07,
	VF_EMA_GET_RESP = 0x81,
};

enum vf_ema_attr {
	VF_EMA_CLASS_PORT_INFO = 0x0001,	/* Get/Set */
	VF_EMA_NOTICE = 0x0002,			/* in Traps only */
	VF_EMA_VESWPORT_INFO = 0x0011,		/* Get/Set, 2 parts */
	VF_EMA_MAC_ENTRIES = 0x0012,		/* Get/Set, 11 per MAD */
	VF_EMA_IFACE_UCAST_MACS = 0x0013,	/* Get, 29 per MAD */
	VF_EMA_IFACE_MCAST_MACS = 0x0014,	/* Get, 29 per MAD */
	VF_EMA_DELETE_VESW = 0x0015,		/* Set */
	VF_EMA_SUMMARY_COUNTERS = 0x0020,	/* Get, 2 parts */
	VF_EMA_ERROR_COUNTERS = 0x0022,		/* Get, 2 parts */
	VF_EMA_KEY_INFO = 0x0030,		/* Get/Set: the EM key (ours) */
};

/* MAD status values (IBA 13.4.7). */
enum vf_ema_status {
	VF_EMA_OK = 0,
	VF_EMA_BAD_VERSION = 0x0004,	/* base or class version */
	VF_EMA_BAD_METHOD = 0x0008,	/* a request method not Get or Set */
	VF_EMA_BAD_ATTR = 0x000C,	/* attribute, method+attribute, class
					 * or OUI not supported */
	VF_EMA_BAD_FIELD = 0x001C,	/* modifier, length or a field value */
	/* class-specific (bits 8-14), as the AR class's */
	VF_EMA_NOT_SM = 0x0200,		/* a Set not from the master SM's LID */
	VF_EMA_BAD_KEY = 0x0300,	/* a Set without the EM key held */
};

/*
 * Attribute modifier of the per-vport attributes: bits 0-7 the vport
 * index, bits 8-9 the part of a split attribute, the rest 0.
 */
#define VF_EMA_AMOD_INDEX 0xFFu
#define VF_EMA_AMOD_PART_SHIFT 8
#define VF_EMA_AMOD_PART 0x300u

static inline uint32_t vf_ema_amod(unsigned vport, unsigned part)
{
	return (vport & VF_EMA_AMOD_INDEX) |
	       (part << VF_EMA_AMOD_PART_SHIFT & VF_EMA_AMOD_PART);
}

/* Parts of VESWPORT_INFO (and of DELETE_VESW's reply). */
enum vf_ema_info_part {
	VF_EMA_PART_VESW = 0,		/* 152 bytes */
	VF_EMA_PART_VPORT = 1,		/* 128 bytes */
};
#define VF_EMA_VESW_SIZE 152
#define VF_EMA_VPORT_SIZE 128

#define VF_EMA_CPI_SIZE 80
#define VF_EMA_LIST_HDR 8		/* MAC entries and MAC list headers */
#define VF_EMA_MAC_ENTRY 16
#define VF_EMA_MACS_PER_MAD ((VF_EMA_DATA_SIZE - VF_EMA_LIST_HDR) / \
			     VF_EMA_MAC_ENTRY)			/* 11 */
#define VF_EMA_LIST_PER_MAD ((VF_EMA_DATA_SIZE - VF_EMA_LIST_HDR) / 6)	/* 29 */
#define VF_EMA_NOTICE_SIZE 96
#define VF_EMA_TRAP_PAYLOAD 32		/* offset of the payload in a notice */

/*
 * Counters: the Omni-Path attribute is an 8-byte prefix and then 64-bit
 * counters; part p carries the prefix and the attribute's bytes
 * [8 + 176p, 8 + 176(p + 1)).
 */
#define VF_EMA_CTR_PREFIX 8
#define VF_EMA_CTR_SLICE (VF_EMA_DATA_SIZE - VF_EMA_CTR_PREFIX)	/* 176 */
#define VF_EMA_SUMMARY_SIZE 360		/* Omni-Path's whole attribute */
#define VF_EMA_ERROR_SIZE 304
#define VF_EMA_CTR_PARTS 2

#define VF_EMA_MAX_MTU 16333	/* the largest frame (MTU + 18) a 16B
				 * packet's 11-bit length still holds */

/*
 * EMKeyInfo (32 bytes): the EM key an endpoint holds and its lease, and
 * the Sets it refused.  Only key and lease_s are written by a Set; a Get
 * answers key only to a request that carries it (else 0).
 */
#define VF_EMA_KEY_INFO_SIZE 32
#define VF_EMA_KEY_HELD 0x01		/* flags: a key is held */

struct vf_ema_key_info {
	uint64_t key;			/* 0: 8 */
	uint16_t lease_s;		/* 8: seconds, 0 = never runs out */
	uint8_t flags;			/* 10: VF_EMA_KEY_HELD */
	uint32_t lease_left_s;		/* 12: while the lease timer runs */
	uint32_t not_sm;		/* 16: Sets refused 0x0200 */
	uint32_t bad_key;		/* 20: Sets refused 0x0300 */
	uint32_t expired;		/* 24: keys cleared by the lease */
};

/* Trap opcodes (payload byte 11). */
enum vf_ema_trap_op {
	VF_EMA_TRAP_UCAST_MACS = 1,	/* interface unicast MACs changed */
	VF_EMA_TRAP_MCAST_MACS = 2,	/* multicast list changed */
	VF_EMA_TRAP_LINK = 3,		/* Ethernet link status changed */
};

struct vf_ema_hdr {
	uint8_t base_version, mgmt_class, class_version, method;
	uint16_t status;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint32_t oui;
};

/* ClassPortInfo, Omni-Path layout (80 bytes). */
struct vf_ema_cpi {
	uint8_t base_version, class_version;	/* 0, 1 */
	uint16_t cap_mask;		/* 2: bit 0 traps, 15-8 max vports */
	uint32_t cap_mask2;		/* 4: upper 27 bits */
	uint8_t resp_time;		/* 4: lower 5 bits, 4.096 us << n */
	uint8_t redirect_gid[16];	/* 8 */
	uint32_t redirect_tc_fl;	/* 24 */
	uint32_t redirect_lid;		/* 28 */
	uint32_t redirect_sl_qp;	/* 32 */
	uint32_t redirect_qkey;		/* 36 */
	uint8_t trap_gid[16];		/* 40 */
	uint32_t trap_tc_fl;		/* 56 */
	uint32_t trap_lid;		/* 60: where traps go, 0 = nowhere */
	uint32_t trap_hl_qp;		/* 64 */
	uint32_t trap_qkey;		/* 68 */
	uint16_t trap_pkey;		/* 72 */
	uint16_t redirect_pkey;		/* 74 */
	uint8_t trap_sl;		/* 76 bits 7-3 */
};

/* VESWPORT_INFO's read-only limits, which struct vf_vport has not. */
struct vf_ema_limits {
	uint16_t max_mac_tbl_ent, max_smac_ent;
};

/* VESWPORT_MAC_ENTRIES header: a slice of the MAC table. */
struct vf_ema_mac_slice {
	uint16_t offset;		/* first table index */
	uint16_t num;			/* entries in this MAD, <= 11 */
	uint32_t digest;		/* the EM's mac_tbl_digest */
};

/* IFACE_UCAST_MACS / IFACE_MCAST_MACS: one page of a host MAC list. */
struct vf_ema_mac_list {
	uint16_t start_idx;
	uint16_t num;			/* MACs in this MAD (request: wanted,
					 * 0 = as many as fit) */
	uint16_t total;			/* tot_macs_in_lst */
	uint16_t gen_count;
	uint8_t macs[VF_EMA_LIST_PER_MAD][6];
};

/* The prefix of both counter attributes. */
struct vf_ema_ctr_id {
	uint16_t vp_instance;		/* the vport index */
	uint16_t vesw_id;
	uint32_t veswport_num;		/* the EM's port_num */
};

struct vf_ema_summary {
	uint64_t tx_errors, rx_errors, tx_packets, rx_packets;
	uint64_t tx_bytes, rx_bytes;
	uint64_t tx_unicast, tx_mcastbcast, tx_untagged, tx_vlan;
	uint64_t tx_64, tx_65_127, tx_128_255, tx_256_511, tx_512_1023;
	uint64_t tx_1024_1518, tx_1519_max;
	uint64_t rx_unicast, rx_mcastbcast, rx_untagged, rx_vlan;
	uint64_t rx_64, rx_65_127, rx_128_255, rx_256_511, rx_512_1023;
	uint64_t rx_1024_1518, rx_1519_max;
};

struct vf_ema_errors {
	uint64_t tx_errors, rx_errors, tx_smac_filt, tx_dlid_zero, tx_logic;
	uint64_t tx_drop_state, rx_bad_veswid, rx_runt, rx_oversize;
	uint64_t rx_eth_down, rx_drop_state, rx_logic;
};

/* The notice of a Trap: issuer and the 16-byte payload. */
struct vf_ema_trap {
	uint32_t issuer_lid;		/* the vport's encap_slid */
	uint16_t fabric_id, vesw_id;
	uint32_t port_num;		/* the EM's port number */
	uint16_t phys_port;		/* the endpoint's physical port */
	uint8_t vport_index;
	uint8_t opcode;			/* enum vf_ema_trap_op */
};

/* A new MAD: zero all VF_EMA_MAD_SIZE bytes, fill header and OUI. */
void vf_ema_init(uint8_t *mad, uint8_t method, uint64_t tid, uint16_t attr,
		 uint32_t amod);
void vf_ema_put_status(uint8_t *mad, uint16_t status);

/*
 * Read the header of mad[0..len) into h and check what makes it ours:
 * VF_EMA_OK, VF_EMA_BAD_FIELD (shorter than the header and OUI),
 * VF_EMA_BAD_VERSION or VF_EMA_BAD_ATTR (another class or OUI).  The EM
 * uses it on replies; h is filled as far as len allows.
 */
uint16_t vf_ema_get_hdr(const uint8_t *mad, size_t len, struct vf_ema_hdr *h);

/*
 * The checks of a request that need no agent state: those of
 * vf_ema_get_hdr, then VF_EMA_BAD_METHOD (not Get or Set) and
 * VF_EMA_BAD_ATTR (unknown attribute, or a method it does not take).
 */
uint16_t vf_ema_check_request(const uint8_t *mad, size_t len,
			      struct vf_ema_hdr *h);

void vf_ema_put_cpi(uint8_t *mad, const struct vf_ema_cpi *c);
/* VF_EMA_BAD_FIELD when short or the trap LID is not unicast IB. */
uint16_t vf_ema_get_cpi(const uint8_t *mad, size_t len, struct vf_ema_cpi *c);

/* VESWPORT_INFO part 0; the reserved bytes go out 0. */
void vf_ema_put_vesw(uint8_t *mad, const struct vf_vesw *v);
/* Checks fabric_id (10 bits), vesw_id (12), DLIDs (24), eth_mtu. */
uint16_t vf_ema_get_vesw(const uint8_t *mad, size_t len, struct vf_vesw *v);

/* VESWPORT_INFO part 1: the vport's own fields (not v->vesw, macs). */
void vf_ema_put_vport(uint8_t *mad, const struct vf_vport *v);
/*
 * Decode every field of part 1 into v (v->vesw and v->macs untouched)
 * and the limits into lim (may be NULL).  Checks the fields the EM
 * writes: config_state, encap_slid (24 bits), SCs and VLs (5 bits); the
 * read-only ones are taken as they come (an agent ignores them).
 */
uint16_t vf_ema_get_vport(const uint8_t *mad, size_t len, struct vf_vport *v,
			  struct vf_ema_limits *lim);

/*
 * Header s and entries e[0..s->num) (num <= VF_EMA_MACS_PER_MAD); e NULL:
 * the header only (a Get request).
 */
void vf_ema_put_mac_entries(uint8_t *mad, const struct vf_ema_mac_slice *s,
			    const struct vf_vport_mac *e);
/*
 * Checks num <= 11 and offset + num <= VF_VPORT_MAC_TABLE; e (may be
 * NULL: a Get request carries none) gets num entries.
 */
uint16_t vf_ema_get_mac_entries(const uint8_t *mad, size_t len,
				struct vf_ema_mac_slice *s,
				struct vf_vport_mac e[VF_EMA_MACS_PER_MAD]);

void vf_ema_put_mac_list(uint8_t *mad, const struct vf_ema_mac_list *l);
/*
 * A request (request true: the header only; num <= 29) or a reply
 * (num <= 29, start_idx + num <= total, the MACs).
 */
uint16_t vf_ema_get_mac_list(const uint8_t *mad, size_t len, bool request,
			     struct vf_ema_mac_list *l);

/* Counter part (0 or 1); VF_EMA_BAD_FIELD for another part. */
uint16_t vf_ema_put_summary(uint8_t *mad, unsigned part,
			    const struct vf_ema_ctr_id *id,
			    const struct vf_ema_summary *s);
/* Decodes the counters of that part into s; the others are untouched. */
uint16_t vf_ema_get_summary(const uint8_t *mad, size_t len, unsigned part,
			    struct vf_ema_ctr_id *id, struct vf_ema_summary *s);
uint16_t vf_ema_put_errors(uint8_t *mad, unsigned part,
			   const struct vf_ema_ctr_id *id,
			   const struct vf_ema_errors *e);
uint16_t vf_ema_get_errors(const uint8_t *mad, size_t len, unsigned part,
			   struct vf_ema_ctr_id *id, struct vf_ema_errors *e);

/* The notice of a Trap MAD (header by vf_ema_init). */
void vf_ema_put_trap(uint8_t *mad, const struct vf_ema_trap *t);
/* Checks the notice's type byte and OUI and the opcode (1-3). */
uint16_t vf_ema_get_trap(const uint8_t *mad, size_t len,
			 struct vf_ema_trap *t);

/* The EM key of a request (0 when shorter than the key's end). */
void vf_ema_put_key(uint8_t *mad, uint64_t key);
uint64_t vf_ema_get_key(const uint8_t *mad, size_t len);

void vf_ema_put_key_info(uint8_t *mad, const struct vf_ema_key_info *k);
/* VF_EMA_BAD_FIELD when short or reserved bits are set. */
uint16_t vf_ema_get_key_info(const uint8_t *mad, size_t len,
			     struct vf_ema_key_info *k);

/* "VeswPortInfo", ... or "0xNNNN"; "invalid field", ... for logs. */
const char *vf_ema_attr_name(uint16_t attr, char buf[8]);
const char *vf_ema_status_name(uint16_t status);

#endif /* VF_EMA_H */
