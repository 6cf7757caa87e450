/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The AR management protocol (docs/ar-protocol.md): how the SM reads a
 * switch's adaptive-routing capability and writes its port groups,
 * per-LID group table and AR control.  A vendor class of range 1, so that
 * ibsim delivers it untouched to the agent at the switch (0x0A has no
 * built-in handler there, reference/opensm-ibsim.md section E).
 *
 * Byte layout of every MAD (big-endian, 256 bytes):
 *   0-23    MAD common header (class 0x0A, class version 1)
 *   24-27   generation: the table set a Set belongs to, or a Get reports
 *   28-31   reserved, 0
 *   32-191  attribute data (160 bytes)
 *   192-199 AR_Key: the key the SM gave the switch (ARKeyInfo), carried by
 *           every request that needs it, as M_Key is by an SMP
 *   200-255 reserved, 0: umad2sim 0.10 hands a receiver only the first
 *           224 bytes, and 160 data bytes hold whole blocks
 *
 * Pure C: the plugin, the switch agent (sim/ar-agent) and the tests share
 * it.  Encoders write into a zeroed 256-byte buffer; decoders read one.
 */
#ifndef VF_ARPROTO_H
#define VF_ARPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ar.h"
#include "mgmtkey.h"

#define VF_ARP_CLASS 0x0A
#define VF_ARP_CLASS_VERSION 1
#define VF_ARP_MAD_SIZE 256
#define VF_ARP_USED 200		/* bytes that carry anything */
#define VF_ARP_KEY_OFF 192	/* offset of the AR_Key */
#define VF_ARP_DATA 32		/* offset of the attribute data */

enum vf_arp_method {
	VF_ARP_GET = 0x01,
	VF_ARP_SET = 0x02,
	VF_ARP_GET_RESP = 0x81,
};

enum vf_arp_attr {
	VF_ARP_INFO = 0xFF20,		/* Get: capability and state */
	VF_ARP_CONTROL = 0xFF21,	/* Get/Set: enable, pause, ... */
	VF_ARP_GROUPS = 0xFF22,		/* Get/Set: PortGroup table block */
	VF_ARP_LIDS = 0xFF23,		/* Get/Set: per-LID group block */
	VF_ARP_LOAD = 0xFF24,		/* Get/Set: port loads (simulation) */
	VF_ARP_EGRESS = 0xFF25,		/* Get: the agent's egress choice */
	VF_ARP_NEIGHBORS = 0xFF26,	/* Get/Set: peer switch LID per port */
	VF_ARP_LOST_ROUTES = 0xFF27,	/* Set, switch to switch: LIDs lost */
	VF_ARP_KEY_INFO = 0xFF28,	/* Get/Set: the AR_Key and its lease */
};

/* MAD status values (IBA 13.4.7; 0x0100 and 0x0200 are this class's). */
enum vf_arp_status {
	VF_ARP_OK = 0,
	VF_ARP_BAD_VERSION = 0x0004,	/* base or class version */
	VF_ARP_BAD_METHOD = 0x0008,	/* method not supported */
	VF_ARP_BAD_ATTR = 0x000C,	/* attribute (or method+attribute) */
	VF_ARP_BAD_FIELD = 0x001C,	/* modifier (index) or a field value */
	VF_ARP_SEQUENCE = 0x0100,	/* table Set while not paused, or of
					 * another generation */
	VF_ARP_NOT_SM = 0x0200,		/* a Set only the master SM may make,
					 * from another LID */
	VF_ARP_BAD_KEY = 0x0300,	/* the switch holds an AR_Key and the
					 * request does not carry it */
};

#define VF_ARP_GROUPS_PER_BLOCK 4	/* 256-bit masks, 32 bytes each */
#define VF_ARP_MASK_BYTES 32
#define VF_ARP_LIDS_PER_BLOCK 64	/* one group index byte per LID */
#define VF_ARP_PORTS_PER_BLOCK 32	/* 32-bit loads */
#define VF_ARP_MAX_GROUP_BLOCKS 64	/* 256 groups */
#define VF_ARP_LOAD_DOWN 0x80000000u	/* in a port load: link down */
#define VF_ARP_NEIGHBORS_PER_BLOCK 64	/* 16-bit LIDs, ports 64b..64b+63 */
#define VF_ARP_NEIGHBOR_BLOCKS 4	/* ports 0-255 (0: the switch) */
#define VF_ARP_LOST_LIDS 1024		/* LIDs per ARLostRoutes block */
#define VF_ARP_LOST_BLOCKS 48		/* unicast LIDs 0-0xBFFF */
#define VF_ARP_LOST_BITMAP 48		/* offset of the LID bitmap */

struct vf_arp_hdr {
	uint8_t base_version, mgmt_class, class_version, method;
	uint16_t status;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint32_t generation;
};

/* ARControl (amod 0), 12 bytes at 32; also inside ARInfo at 52. */
struct vf_arp_control {
	bool enable;			/* byte 32 bit 0 */
	bool pause;			/* bit 1 */
	bool lost_route_only;		/* bit 2 */
	uint8_t algorithm;		/* 33: enum vf_ar_algorithm */
	uint8_t frequency;		/* 34: 0-7 */
	uint8_t threshold;		/* 35: 0-7 */
	uint16_t group_top;		/* 36: groups in use */
	uint32_t lid_top;		/* 40: PGFT entries in use (LIDs) */
};

/* ARInfo (Get, amod 0). */
struct vf_arp_info {
	bool supported;			/* 32 bit 0: AR supported */
	bool key_set;			/* bit 1: the switch holds an AR_Key */
	bool key_match;			/* bit 2: ... and this Get carried it */
	uint8_t num_ports;		/* 33 */
	uint16_t group_cap;		/* 34: PortGroupCap */
	uint32_t lid_cap;		/* 36: PortGroupFDBCap (LIDs) */
	uint8_t groups_per_block;	/* 40 */
	uint8_t lids_per_block;		/* 41 */
	uint32_t active_generation;	/* 44: the tables in use */
	uint32_t pending_generation;	/* 48: being written (paused), or 0 */
	struct vf_arp_control control;	/* 52: in use */
};

/*
 * ARKeyInfo (amod 0): the AR_Key a switch requires of the Sets only the
 * master SM may make and of lost-route notices, and its lease.  A Get
 * shows the key only to a request that carries it (0 otherwise).  Set
 * by the master SM with the key held (any key when none is).
 */
struct vf_arp_keyinfo {
	uint64_t key;			/* 32: 0 = none, no key required */
	uint16_t lease_s;		/* 40: 0 = the key never lapses */
	uint16_t lease_left_s;		/* 42: Get: running lease, or 0 */
	uint32_t refused;		/* 44: Get: requests refused 0x0300 */
};

/* AREgress (Get, amod = destination LID). */
struct vf_arp_egress {
	uint8_t static_port;		/* 32, in: the LFT's port */
	uint8_t port;			/* 33, out: the agent's choice */
	uint8_t group;			/* 34, out: the LID's group, 0xff */
};

/*
 * ARLostRoutes (Set, amod = block b: LIDs 1024b .. 1024b+1023), sent by a
 * switch agent to its neighbor switches: "these LIDs are no longer
 * reachable through me" (or, with restored, reachable again).
 */
struct vf_arp_lost {
	bool restored;			/* 32 bit 0 */
	uint16_t sender;		/* 34: the sending switch's LID */
	uint8_t bits[VF_ARP_LOST_LIDS / 8]; /* 48: LID 1024b+8i+j: bit j of
					     * byte i */
};

static inline bool vf_arp_lost_has(const struct vf_arp_lost *l, unsigned k)
{
	return k < VF_ARP_LOST_LIDS && (l->bits[k / 8] >> (k % 8) & 1);
}

static inline void vf_arp_lost_add(struct vf_arp_lost *l, unsigned k)
{
	if (k < VF_ARP_LOST_LIDS)
		l->bits[k / 8] |= (uint8_t)(1u << (k % 8));
}

/* A new request: zero mad, fill the header. */
void vf_arp_init(uint8_t *mad, uint8_t method, uint64_t tid, uint16_t attr,
		 uint32_t amod, uint32_t generation);
void vf_arp_get_hdr(const uint8_t *mad, struct vf_arp_hdr *h);
void vf_arp_put_status(uint8_t *mad, uint16_t status);
void vf_arp_put_key(uint8_t *mad, uint64_t key);
uint64_t vf_arp_get_key(const uint8_t *mad);

/*
 * Check a received request of len bytes: the header into h, and the
 * status to answer with (VF_ARP_OK, VF_ARP_BAD_VERSION, VF_ARP_BAD_METHOD,
 * VF_ARP_BAD_ATTR for an unknown attribute or a Set of a read-only one).
 * Field checks (indexes, values) are the agent's: they need its caps.
 */
uint16_t vf_arp_check_request(const uint8_t *mad, size_t len,
			      struct vf_arp_hdr *h);

/*
 * Who may ask what.  vf_arp_sm_only: a Set only the master SM may make
 * (ARControl, the tables, ARNeighbors, ARKeyInfo).  vf_arp_authorize, for
 * a request vf_arp_check_request passed: VF_ARP_NOT_SM for such a Set
 * when from_sm is false (its SLID is not the switch's MasterSMLID; the
 * caller need only find that out for vf_arp_sm_only requests), else
 * VF_ARP_BAD_KEY when the switch holds key k and the request (such a Set,
 * or an ARLostRoutes) does not carry it; VF_ARP_OK otherwise.  The key's
 * lease runs as routing/mgmtkey.h says: only the master SM's refusals
 * start it.  The caller drops a lapsed key first (vf_mkey_expire).
 */
bool vf_arp_sm_only(const struct vf_arp_hdr *h);
uint16_t vf_arp_authorize(const struct vf_arp_hdr *h, bool from_sm,
			  uint64_t carried, struct vf_mkey *k, uint64_t now_ms);

void vf_arp_put_control(uint8_t *mad, const struct vf_arp_control *c);
void vf_arp_get_control(const uint8_t *mad, struct vf_arp_control *c);
void vf_arp_put_info(uint8_t *mad, const struct vf_arp_info *i);
void vf_arp_get_info(const uint8_t *mad, struct vf_arp_info *i);
/*
 * Masks m[0..n) (n <= 4) as a PortGroup block; bit p-1 of a mask is port
 * p, stored as a 256-bit big-endian number (port 1 is bit 0 of byte 31).
 */
void vf_arp_put_groups(uint8_t *mad, const struct vf_ar_mask *m, unsigned n);
void vf_arp_get_groups(const uint8_t *mad,
		       struct vf_ar_mask m[VF_ARP_GROUPS_PER_BLOCK]);
void vf_arp_put_lids(uint8_t *mad, const uint8_t g[VF_ARP_LIDS_PER_BLOCK]);
void vf_arp_get_lids(const uint8_t *mad, uint8_t g[VF_ARP_LIDS_PER_BLOCK]);
void vf_arp_put_loads(uint8_t *mad,
		      const uint32_t l[VF_ARP_PORTS_PER_BLOCK]);
void vf_arp_get_loads(const uint8_t *mad,
		      uint32_t l[VF_ARP_PORTS_PER_BLOCK]);
void vf_arp_put_egress(uint8_t *mad, const struct vf_arp_egress *e);
void vf_arp_get_egress(const uint8_t *mad, struct vf_arp_egress *e);
/* ARNeighbors block: 64 big-endian LIDs at 32 (0: a CA, down, no link). */
void vf_arp_put_neighbors(uint8_t *mad,
			  const uint16_t n[VF_ARP_NEIGHBORS_PER_BLOCK]);
void vf_arp_get_neighbors(const uint8_t *mad,
			  uint16_t n[VF_ARP_NEIGHBORS_PER_BLOCK]);
void vf_arp_put_keyinfo(uint8_t *mad, const struct vf_arp_keyinfo *k);
void vf_arp_get_keyinfo(const uint8_t *mad, struct vf_arp_keyinfo *k);
void vf_arp_put_lost(uint8_t *mad, const struct vf_arp_lost *l);
void vf_arp_get_lost(const uint8_t *mad, struct vf_arp_lost *l);
/*
 * Range checks of the two (VF_ARP_OK or VF_ARP_BAD_FIELD), for a switch
 * of num_ports ports and lid_cap LIDs: an ARNeighbors block past the
 * ports, a LID that is not unicast, a neighbor on a port the switch
 * lacks (n may be NULL: a Get); an ARLostRoutes block past the LIDs or
 * without a unicast sender.
 */
uint16_t vf_arp_check_neighbors(uint32_t amod, unsigned num_ports,
				const uint16_t *n);
uint16_t vf_arp_check_lost(uint32_t amod, unsigned lid_cap,
			   const struct vf_arp_lost *l);

/* "ARInfo", ... or "0xNNNN"; "invalid field", ... for logs. */
const char *vf_arp_attr_name(uint16_t attr, char buf[8]);
const char *vf_arp_status_name(uint16_t status);

#endif /* VF_ARPROTO_H */
