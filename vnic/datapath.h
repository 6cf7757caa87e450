/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The VNIC data path without I/O (docs/vnic-datapath.md): an Ethernet
 * frame from the host becomes 16B packets (vnic/encap.h) for the DLIDs
 * that reference/vnic-ema.md section 5 selects, each cut into data MADs
 * that fit what umad2sim delivers (224 bytes); data MADs from the fabric
 * are reassembled per (source LID, packet id), decapsulated and checked
 * against the vport before the frame goes to the host.
 *
 * The data path reads a struct vf_vport it does not own: the endpoint's
 * EMA agent (vnic/ema-agent.h) stores the EM's Sets there and runs the
 * vport state machine (oper_state), possibly between calls.  Time comes in as an argument, so the reassembly
 * timeout is testable.
 */
#ifndef VF_DATAPATH_H
#define VF_DATAPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vnic/encap.h"
#include "vnic/vport.h"

/* The data MAD (vendor range 2; 0x3C & 0xF has no ibsim handler). */
#define VF_DP_CLASS 0x3C
#define VF_DP_BASE_VERSION 1
#define VF_DP_CLASS_VERSION 1
#define VF_DP_METHOD_SEND 0x03
#define VF_DP_ATTR 0x0078		/* the 16B L4 type, for the eye */
#define VF_DP_OUI 0x00066A
#define VF_DP_MAD_HDR 40		/* common + RMPP + OUI */
#define VF_DP_SEG_HDR 8			/* packet id, index, count, length */
#define VF_DP_SEG_DATA 176		/* 224 - 40 - 8 */
#define VF_DP_MAD_USED (VF_DP_MAD_HDR + VF_DP_SEG_HDR + VF_DP_SEG_DATA)
#define VF_DP_MAD_SIZE 256		/* what is sent; the rest is zero */
#define VF_DP_MAX_SEGS ((VF_16B_MAX_LEN + VF_DP_SEG_DATA - 1) / VF_DP_SEG_DATA)

#define VF_DP_PARTIALS 16		/* packets in reassembly at once */
#define VF_DP_TIMEOUT_MS 1000		/* an incomplete packet is dropped */
#define VF_DP_VLAN_HLEN 18		/* Ethernet + 802.1Q header */
#define VF_DP_SIZE_BUCKETS 7		/* 64, 65-127, ..., 1024-1518, 1519+ */

/*
 * Counters: the netdev's (reference 3.5 summary, 3.6 errors), then the
 * simulator's own (MADs, replication, reassembly, checks the HFI or the
 * fabric would do in hardware).
 */
struct vf_dp_counters {
	uint64_t tx_packets, tx_bytes, tx_unicast, tx_mcastbcast;
	uint64_t tx_untagged, tx_vlan, tx_size[VF_DP_SIZE_BUCKETS];
	uint64_t rx_packets, rx_bytes, rx_unicast, rx_mcastbcast;
	uint64_t rx_untagged, rx_vlan, rx_size[VF_DP_SIZE_BUCKETS];
	uint64_t tx_dlid_zero, tx_drop_state, tx_logic;
	uint64_t rx_bad_veswid, rx_runt, rx_oversize, rx_drop_state;
	uint64_t rx_logic;
	/* ours */
	uint64_t tx_mads, tx_copies;	/* MADs, 16B packets sent */
	uint64_t tx_oversize;		/* frame over MTU + 18 from the host */
	uint64_t rx_mads, rx_bad_mad;	/* malformed data MADs */
	uint64_t rx_bad_pkey;		/* 16B P_Key is not the vport's */
	uint64_t rx_bad_16b;		/* decap failed, not the ICRC */
	uint64_t rx_bad_icrc;
	uint64_t rx_dup_seg, rx_reasm_timeout, rx_reasm_evicted;
};

/* One packet being reassembled. */
struct vf_dp_partial {
	bool used;
	uint32_t slid, id;
	uint16_t total;			/* 16B packet bytes */
	uint8_t count, got;		/* segments: expected, received */
	uint64_t started_ms;
	uint8_t have[(VF_DP_MAX_SEGS + 7) / 8];
	uint8_t data[VF_16B_MAX_LEN];
};

struct vf_dp {
	const struct vf_vport *vp;
	/*
	 * Head-end replication: multicast and broadcast frames go to every
	 * unicast DLID of the MAC table, as ibsim forwards no multicast
	 * LID.  Also done whenever u_mcast_dlid is 0.
	 */
	bool replicate;
	uint32_t timeout_ms;
	uint32_t next_id;
	struct vf_dp_counters c;
	struct vf_dp_partial part[VF_DP_PARTIALS];
};

/* Start a data path on vp (replication on; the default timeout). */
void vf_dp_init(struct vf_dp *dp, const struct vf_vport *vp);

/* Receives each data MAD to send: to dlid, mad[0..len). */
typedef void vf_dp_emit_fn(void *arg, uint32_t dlid, const uint8_t *mad,
			   size_t len);

/*
 * Send frame[0..len) from the host: select the DLID(s), encapsulate,
 * cut into data MADs, emit each.  Returns the 16B packets sent (0 when
 * dropped; the counters say why).
 */
unsigned vf_dp_tx(struct vf_dp *dp, const uint8_t *frame, size_t len,
		  vf_dp_emit_fn *emit, void *arg);

/*
 * The DLIDs of frame[0..len) (section 5.2, and replication) into
 * dlids[0..max); returns how many (0: none, drop).  *entropy gets the
 * frame's 8-bit flow hash.
 */
unsigned vf_dp_dlids(const struct vf_dp *dp, const uint8_t *frame,
		     size_t len, uint32_t *dlids, unsigned max,
		     uint8_t *entropy);

/* SC (section 5.4) and RC (5.5) of a frame. */
uint8_t vf_dp_sc(const struct vf_vport *vp, const uint8_t *frame, size_t len);
uint8_t vf_dp_rc(const struct vf_vport *vp, const uint8_t *frame, size_t len);

/*
 * A data MAD mad[0..len) from slid at time now_ms.  Returns the length
 * of a complete, checked frame copied into frame[0..cap), or 0 when
 * none is ready (a segment kept, or something dropped and counted).
 */
size_t vf_dp_rx(struct vf_dp *dp, uint32_t slid, const uint8_t *mad,
		size_t len, uint64_t now_ms, uint8_t *frame, size_t cap);

/* Drop (and count) packets incomplete for longer than the timeout. */
void vf_dp_expire(struct vf_dp *dp, uint64_t now_ms);

/* Packets in reassembly now. */
unsigned vf_dp_partials(const struct vf_dp *dp);

/* The totals the netdev reports: errors are the sum of their kinds. */
uint64_t vf_dp_tx_errors(const struct vf_dp_counters *c);
uint64_t vf_dp_rx_errors(const struct vf_dp_counters *c);

/* Print every counter as "name value" lines, prefixed. */
void vf_dp_print_counters(const struct vf_dp_counters *c, const char *prefix,
			  FILE *out);

/* The locally administered MAC of section 8: fabric, vESW, LID. */
void vf_dp_lmac(uint16_t fabric_id, uint16_t vesw_id, uint32_t lid,
		uint8_t mac[6]);

#endif /* VF_DATAPATH_H */
