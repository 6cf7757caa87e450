/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The 16B encapsulation of Ethernet frames (seed 001, reference/
 * vnic-ema.md section 6): a 20-byte header of five little-endian 32-bit
 * words, the frame (padded to 60 bytes), pad bytes to a quad word, a
 * 4-byte ICRC and a tail byte.  LIDs are 24 bits, split 20 + 4 between
 * the two head quad words; the L4 header carries the virtual Ethernet
 * switch id.
 *
 * The ICRC is computed by hardware on a real HFI; here it is the IEEE
 * CRC-32 over header, frame and pad (the reference allows any CRC as a
 * stand-in), so a corrupted packet is detected end to end.
 */
#ifndef VF_ENCAP_H
#define VF_ENCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VF_16B_HDR 20		/* header bytes */
#define VF_16B_TRAILER 5	/* ICRC and tail byte */
#define VF_16B_L2 2		/* L2 = 0b10: the 16B format */
#define VF_16B_L4_ETH 0x78	/* L4 type: Ethernet */
#define VF_16B_MIN_FRAME 60	/* frames are zero-padded to this */
#define VF_16B_MAX_LEN (2047 * 8)	/* the 11-bit length in quad words */

struct vf_16b {
	uint32_t slid, dlid;	/* 24 bits */
	uint8_t sc;		/* 5 bits */
	uint8_t rc;		/* 3 bits */
	bool becn, fecn;
	uint16_t pkey;
	uint16_t entropy;
	uint16_t vesw_id;	/* 12 bits */
};

/* Bytes the encapsulation of a frame of len bytes takes. */
size_t vf_16b_size(size_t len);

/*
 * Encapsulate frame[0..len) with header h into out (cap bytes); returns
 * the packet length, or 0 when the fields do not fit their bits, the
 * packet would exceed VF_16B_MAX_LEN, or cap is too small.
 */
size_t vf_16b_encap(const struct vf_16b *h, const uint8_t *frame, size_t len,
		    uint8_t *out, size_t cap);

enum vf_16b_error {
	VF_16B_OK = 0,
	VF_16B_SHORT,		/* shorter than a header and trailer */
	VF_16B_NOT_16B,		/* L2 is not 16B, or no head flit */
	VF_16B_NOT_ETHERNET,	/* L4 type is not 0x78 */
	VF_16B_BAD_LENGTH,	/* the length field is not the size */
	VF_16B_BAD_TAIL,	/* tail flit bits, or a pad over 7 */
	VF_16B_BAD_ICRC,
};

/*
 * Check and take apart packet pkt[0..n): header into h, *frame and *len
 * the Ethernet frame inside (pointing into pkt).  VF_16B_OK or why not.
 */
enum vf_16b_error vf_16b_decap(const uint8_t *pkt, size_t n, struct vf_16b *h,
			       const uint8_t **frame, size_t *len);
const char *vf_16b_error_name(enum vf_16b_error e);

/* IEEE 802.3 CRC-32 of p[0..n). */
uint32_t vf_crc32(const uint8_t *p, size_t n);

#endif /* VF_ENCAP_H */
