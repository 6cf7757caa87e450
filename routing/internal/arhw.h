/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Our AR tables and settings in the public attribute layouts of real
 * switches (docs/ar-real-switches.md): the codec half of a driver for
 * real switches, so that such a driver is an adapter (MAD transport,
 * sequencing) around these functions, not a rewrite.
 *
 *   - Omni-Path (STL) SMA, from opa-fm IbAccess/Common/Inc/stl_sm_types.h:
 *     SwitchInfo (0x0012) AdaptiveRouting, PortGroupCap/Top/FDBCap and
 *     CapabilityMask.IsAdaptiveRoutingSupported; PortGroupTable (0x0089);
 *     PortGroupFwdTable (0x0088); their attribute modifiers.
 *   - NVIDIA (Mellanox) vendor SMP attributes, from the GPL-2.0/BSD
 *     ib_types.h of NVIDIA's OpenSM: AdaptiveRoutingInfo (0xFF20) and the
 *     AdaptiveRoutingLinearForwardingTable (0xFF23) block.  What is not in
 *     that header (the amod formats, the port-bit order of the
 *     AdaptiveRoutingGroupTable 0xFF21 sub-group masks) is not encoded.
 *
 * Pure C, no I/O.  Every function works on the attribute data only (the
 * bytes after the SMP header), big-endian as on the wire.  Every decoder
 * takes the length it may read and returns a status; every encoder checks
 * the ranges of what it is given and writes nothing when it refuses.
 */
#ifndef VF_ARHW_H
#define VF_ARHW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/ar.h"
#include "routing/arproto.h"

enum vf_hw_status {
	VF_HW_OK = 0,
	VF_HW_SHORT = -1,	/* buffer shorter than the layout needs */
	VF_HW_RANGE = -2,	/* a value does not fit its field, or a
				 * count/index is outside the table */
	VF_HW_PORTS = -3,	/* a port the layout cannot carry (STL: > 64) */
	VF_HW_RESERVED = -4,	/* decoder: a reserved bit or field is set */
};

const char *vf_hw_status_name(int status);

/* ---- Omni-Path (STL) SMA ------------------------------------------ */

/* Attribute IDs (stl_sm_types.h STL_MCLASS_ATTRIB_ID_*). */
#define VF_STL_ATTR_SWITCH_INFO 0x0012
#define VF_STL_ATTR_PORT_GROUP_FWD_TABLE 0x0088
#define VF_STL_ATTR_PORT_GROUP_TABLE 0x0089

/* STL_SWITCH_INFO: 84 bytes; offsets of the fields AR uses. */
#define VF_STL_SI_SIZE 84
#define VF_STL_SI_PG_FDB_CAP 4		/* uint32 PortGroupFDBCap, RO */
#define VF_STL_SI_PG_CAP 72		/* uint8 PortGroupCap, RO */
#define VF_STL_SI_PG_TOP 73		/* uint8 PortGroupTop, RW */
#define VF_STL_SI_AR 78			/* uint16 AdaptiveRouting, RW */
#define VF_STL_SI_CAP_MASK 80		/* uint16 CapabilityMask, RO */
#define VF_STL_CAP_AR_SUPPORTED 0x0001	/* IsAdaptiveRoutingSupported */

/* The 16-bit AdaptiveRouting field, MSB first (STL_FIELDUNION8). */
#define VF_STL_AR_ENABLE 0x8000		/* bit 15 */
#define VF_STL_AR_PAUSE 0x4000		/* bit 14 */
#define VF_STL_AR_ALG_SHIFT 11		/* bits 13-11: 0 Random, 1 Greedy,
					 * 2 GreedyRandom */
#define VF_STL_AR_FREQ_SHIFT 8		/* bits 10-8: 2^F x 64 ms */
#define VF_STL_AR_LOST_ONLY 0x0080	/* bit 7: LostRoutesOnly */
#define VF_STL_AR_THRESH_SHIFT 4	/* bits 6-4: Threshold */
#define VF_STL_AR_RESERVED 0x000F	/* bits 3-0: Reserved2, Reserved */

/* Tables and their attribute modifiers. */
#define VF_STL_PGT_PER_BLOCK 8		/* NUM_PGT_ELEMENTS_BLOCK */
#define VF_STL_PGT_BLOCK_BYTES 64	/* 8 x STL_PORTMASK (uint64) */
#define VF_STL_PGT_MAX_BLOCK 0x1F	/* MAX_PGT_BLOCK_NUM */
#define VF_STL_MASK_PORTS 64		/* STL_PORT_MASK_WIDTH */
#define VF_STL_PGFT_PER_BLOCK 64	/* NUM_PGFT_ELEMENTS_BLOCK */
#define VF_STL_PGFT_MAX_BLOCK 0x3FFFF	/* 18-bit block number */
#define VF_STL_MAX_BLOCKS_PER_MAD 29	/* STL_NUM_PG(FT|TABLE)_BLOCKS_PER_DRSMP
					 * = 1872 / 64, what opa-fm asserts */
#define VF_STL_NO_GROUP 0xFF		/* PGFT entry: no group (POD) */

/* The AR part of a SwitchInfo, as read. */
struct vf_stl_si_ar {
	bool ar_supported;		/* CapabilityMask bit 0 */
	uint32_t pg_fdb_cap;		/* PortGroupFDBCap: PGFT entries */
	uint8_t pg_cap;			/* PortGroupCap: PGT entries */
	uint8_t pg_top;			/* PortGroupTop: PGT entries in use */
	uint16_t ar;			/* AdaptiveRouting, raw */
};

/*
 * Our ARControl settings (enable, pause, lost_route_only, algorithm 0-2,
 * frequency 0-7, threshold 0-7) as the AdaptiveRouting field.  group_top
 * and lid_top are not in this field (see vf_stl_si_put_ar).
 * VF_HW_RANGE: algorithm > 2, frequency or threshold > 7.
 */
int vf_stl_ar_encode(const struct vf_arp_control *c, uint16_t *field);
/*
 * The field into c's enable ... threshold (group_top, lid_top untouched).
 * VF_HW_RESERVED: bits 3-0 set; VF_HW_RANGE: Algorithm 3-7 (undefined).
 */
int vf_stl_ar_decode(uint16_t field, struct vf_arp_control *c);

/* SwitchInfo image si[0..len) (len >= 84): its AR part. */
int vf_stl_si_get_ar(const uint8_t *si, size_t len, struct vf_stl_si_ar *a);
/*
 * Write c into a SwitchInfo image read before (Set(SwitchInfo) writes the
 * whole attribute, as opa-fm does): AdaptiveRouting and PortGroupTop =
 * c->group_top, nothing else.  VF_HW_RANGE also for group_top > 255.
 */
int vf_stl_si_put_ar(uint8_t *si, size_t len, const struct vf_arp_control *c);
/* Our ARInfo capability view of a SwitchInfo's AR part. */
void vf_stl_si_to_info(const struct vf_stl_si_ar *a, struct vf_arp_info *i);

/* Attribute modifiers: N blocks (1-29), A (all, Set only), start block. */
struct vf_stl_amod {
	unsigned nblocks;		/* bits 31-24 */
	unsigned position;		/* PGT only: bits 23-22 */
	bool all;			/* PGT: bit 5; PGFT: bit 18 */
	uint32_t block;			/* PGT: bits 4-0; PGFT: bits 17-0 */
};
/* NNNN NNNN PP00 0000 0000 0000 00AB BBBB; refuses block+N-1 > 0x1F. */
int vf_stl_pgt_amod(const struct vf_stl_amod *m, uint32_t *amod);
int vf_stl_pgt_amod_decode(uint32_t amod, struct vf_stl_amod *m);
/* NNNN NNNN 0000 0ABB BBBB BBBB BBBB BBBB; refuses block+N-1 > 0x3FFFF. */
int vf_stl_pgft_amod(const struct vf_stl_amod *m, uint32_t *amod);
int vf_stl_pgft_amod_decode(uint32_t amod, struct vf_stl_amod *m);

/*
 * PortGroupTable (position 0): masks m[0..n) as consecutive PGT entries
 * (the first at the amod's start block, entry 8 x block) into buf[0..len);
 * the rest of the last block is zero.  At most 29 blocks (232 entries) a
 * MAD: a full 256-entry PGT takes two, as in opa-fm's sm_ar.c.  Entry i
 * is a big-endian uint64 with bit p-1 for port p.  VF_HW_PORTS when any
 * mask has a port above 64: STL port masks are 64 bits and no public
 * source says which bits the PGT positions 1-3 carry.  *blocks: the
 * number of blocks written (the amod's N).
 */
int vf_stl_pgt_put(uint8_t *buf, size_t len, const struct vf_ar_mask *m,
		   unsigned n, unsigned *blocks);
/* n entries (n <= len / 8) from buf into m[0..n). */
int vf_stl_pgt_get(const uint8_t *buf, size_t len, struct vf_ar_mask *m,
		   unsigned n);

/*
 * PortGroupFwdTable: the group index of n LIDs (g[k] for LID
 * 64 * block + k), 0xFF = no group, into buf; the rest of the last block
 * is 0xFF.  VF_HW_RANGE: an index >= pg_top that is not 0xFF.
 */
int vf_stl_pgft_put(uint8_t *buf, size_t len, const uint8_t *g, unsigned n,
		    unsigned pg_top, unsigned *blocks);
/* n entries from buf into g, with the same check against pg_top. */
int vf_stl_pgft_get(const uint8_t *buf, size_t len, uint8_t *g, unsigned n,
		    unsigned pg_top);

/* ---- NVIDIA vendor SMP (ib_types.h of NVIDIA's OpenSM) ------------- */

#define VF_NV_ATTR_AR_INFO 0xFF20	/* AdaptiveRoutingInfo */
#define VF_NV_ATTR_AR_GROUP_TABLE 0xFF21 /* AdaptiveRoutingGroupTable */
#define VF_NV_ATTR_AR_LFT 0xFF23	/* AdaptiveRoutingLinearForwardingTable */
#define VF_NV_AR_INFO_SIZE 64		/* ib_ar_info_t */
#define VF_NV_AR_LFT_PER_BLOCK 16	/* IB_AR_LFT_BLOCK_SIZE */
#define VF_NV_AR_LFT_BLOCK_BYTES 64	/* 16 x 4-byte ib_ar_lft_entry_t */
#define VF_NV_GROUP_TABLE_BYTES 64	/* ib_ar_group_table_t: two 32-byte
					 * sub-group masks (not encoded) */

enum vf_nv_lid_state {
	VF_NV_LID_BOUNDED = 0,		/* IB_AR_LID_STATE_BOUNDED */
	VF_NV_LID_FREE = 1,		/* IB_AR_LID_STATE_FREE */
	VF_NV_LID_STATIC = 2,		/* IB_AR_LID_STATE_STATIC */
};

/* The ib_ar_info_t fields the mapping uses (the rest is kept raw). */
struct vf_nv_ar_info {
	uint8_t cap_fields;		/* byte 0: enabled_and_cap_fields */
	uint8_t dir_num_supp;		/* byte 1 */
	uint8_t sub_grps_active;	/* byte 2 bits 3-0 */
	uint8_t grp_tbl_copy_sup;	/* byte 2 bits 7-4 */
	bool enable;			/* byte 3 bit 0: AR enabled (RW) */
	uint8_t features;		/* byte 3 bits 5-1: ARN sup, FRN sup,
					 * FR sup, FR enabled, RN xmit */
	uint16_t group_cap;		/* bytes 4-7 bits 11-0 */
	uint16_t group_top;		/* bytes 4-7 bits 23-12 */
	uint8_t group_table_cap;	/* bytes 4-7 bits 27-24 */
	uint8_t string_width_cap;	/* bytes 4-7 bits 31-28 */
	uint16_t enable_by_sl_mask;	/* bytes 8-9 */
	uint8_t sub_grps_sup;		/* byte 10 */
	uint8_t ar_version_cap;		/* byte 11 bits 3-0 */
	uint8_t rn_version_cap;		/* byte 11 bits 7-4 */
	uint8_t by_trns_disable;	/* byte 15 */
	uint32_t ageing_time;		/* bytes 16-19, microseconds */
};

/* Fields of an ARInfo image into i; VF_HW_SHORT below 64 bytes. */
int vf_nv_ar_info_get(const uint8_t *buf, size_t len,
		      struct vf_nv_ar_info *i);
/*
 * Write i into an ARInfo image read before (bytes not in the struct are
 * left as they were).  VF_HW_RANGE: a 12-bit or 4-bit field overflows.
 */
int vf_nv_ar_info_put(uint8_t *buf, size_t len,
		      const struct vf_nv_ar_info *i);

/* One AR LFT entry (ib_ar_lft_entry_t). */
struct vf_nv_ar_lft_entry {
	uint8_t state;			/* byte 0 bits 7-6 */
	uint8_t table;			/* byte 0 bits 3-0 */
	uint8_t port;			/* byte 1: the static (LFT) port */
	uint16_t group;			/* bytes 2-3 */
};

/*
 * Our model for n LIDs (n <= 16): group g[k] (0xFF: none) and static port
 * p[k] as AR LFT entries: a grouped LID gets grouped_state (BOUNDED or
 * FREE) and table 0, an ungrouped one STATIC with group 0.
 */
int vf_nv_ar_lft_from_model(const uint8_t *g, const uint8_t *p, unsigned n,
			    uint8_t grouped_state,
			    struct vf_nv_ar_lft_entry *e);
/* Entries e[0..n) (n <= 16) as a block; the rest of the block is zero. */
int vf_nv_ar_lft_put(uint8_t *buf, size_t len,
		     const struct vf_nv_ar_lft_entry *e, unsigned n);
/* A block into e[0..16); VF_HW_RESERVED: byte 0 bits 5-4 set. */
int vf_nv_ar_lft_get(const uint8_t *buf, size_t len,
		     struct vf_nv_ar_lft_entry e[VF_NV_AR_LFT_PER_BLOCK]);

#endif /* VF_ARHW_H */
