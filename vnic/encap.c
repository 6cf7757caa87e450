// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <string.h>

#include "vnic/encap.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint32_t vf_crc32(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

/* Pad bytes that make header, frame and trailer whole quad words. */
static size_t pad_of(size_t frame_len)
{
	return (8 - (VF_16B_HDR + frame_len + VF_16B_TRAILER) % 8) % 8;
}

size_t vf_16b_size(size_t len)
{
	if (len < VF_16B_MIN_FRAME)
		len = VF_16B_MIN_FRAME;
	return VF_16B_HDR + len + pad_of(len) + VF_16B_TRAILER;
}

size_t vf_16b_encap(const struct vf_16b *h, const uint8_t *frame, size_t len,
		    uint8_t *out, size_t cap)
{
	size_t flen = len < VF_16B_MIN_FRAME ? VF_16B_MIN_FRAME : len;
	size_t pad = pad_of(flen), total = vf_16b_size(len), crc_at;

	if (h->slid > 0xffffff || h->dlid > 0xffffff || h->sc > 31 ||
	    h->rc > 7 || h->vesw_id > 0xfff || total > VF_16B_MAX_LEN ||
	    total > cap)
		return 0;
	/* quad word 0: SLID[19:0], length, BECN | DLID[19:0], SC, RC,
	 * FECN, L2, LT (head flit) */
	put32(out, (h->slid & 0xfffff) | (uint32_t)(total / 8) << 20 |
		   (uint32_t)h->becn << 31);
	put32(out + 4, (h->dlid & 0xfffff) | (uint32_t)h->sc << 20 |
		       (uint32_t)h->rc << 25 | (uint32_t)h->fecn << 28 |
		       (uint32_t)VF_16B_L2 << 29 | 1u << 31);
	/* quad word 1: L4 type, SLID[23:20], DLID[23:20], P_Key | entropy */
	put32(out + 8, VF_16B_L4_ETH | (h->slid >> 20) << 8 |
		       (h->dlid >> 20) << 12 | (uint32_t)h->pkey << 16);
	put32(out + 12, h->entropy);
	/* quad word 2: reserved, the L4 header (vESW id) */
	put32(out + 16, (uint32_t)h->vesw_id << 16);
	memcpy(out + VF_16B_HDR, frame, len);
	memset(out + VF_16B_HDR + len, 0, flen - len + pad);
	crc_at = VF_16B_HDR + flen + pad;
	put32(out + crc_at, vf_crc32(out, crc_at));
	/* tail byte: the pad count, and LT = 01 (tail flit) on top */
	out[crc_at + 4] = (uint8_t)(0x40 | pad);
	return total;
}

enum vf_16b_error vf_16b_decap(const uint8_t *pkt, size_t n, struct vf_16b *h,
			       const uint8_t **frame, size_t *len)
{
	uint32_t w0, w1, w2;
	uint8_t tail;
	size_t pad;

	if (n < VF_16B_HDR + VF_16B_TRAILER || n % 8)
		return n < VF_16B_HDR + VF_16B_TRAILER ? VF_16B_SHORT :
							 VF_16B_BAD_LENGTH;
	w0 = get32(pkt);
	w1 = get32(pkt + 4);
	w2 = get32(pkt + 8);
	if ((w1 >> 29 & 3) != VF_16B_L2 || !(w1 >> 31))
		return VF_16B_NOT_16B;
	if ((w2 & 0xff) != VF_16B_L4_ETH)
		return VF_16B_NOT_ETHERNET;
	if ((size_t)(w0 >> 20 & 0x7ff) * 8 != n)
		return VF_16B_BAD_LENGTH;
	tail = pkt[n - 1];
	pad = tail & 0x3f;
	if (tail >> 6 != 1 || pad > 7 ||
	    VF_16B_HDR + pad + VF_16B_TRAILER > n)
		return VF_16B_BAD_TAIL;
	if (get32(pkt + n - VF_16B_TRAILER) !=
	    vf_crc32(pkt, n - VF_16B_TRAILER))
		return VF_16B_BAD_ICRC;
	*h = (struct vf_16b){
		.slid = (w0 & 0xfffff) | (w2 >> 8 & 0xf) << 20,
		.dlid = (w1 & 0xfffff) | (w2 >> 12 & 0xf) << 20,
		.sc = (uint8_t)(w1 >> 20 & 0x1f),
		.rc = (uint8_t)(w1 >> 25 & 7),
		.becn = w0 >> 31,
		.fecn = w1 >> 28 & 1,
		.pkey = (uint16_t)(w2 >> 16),
		.entropy = (uint16_t)get32(pkt + 12),
		.vesw_id = (uint16_t)(get32(pkt + 16) >> 16 & 0xfff),
	};
	*frame = pkt + VF_16B_HDR;
	*len = n - VF_16B_HDR - VF_16B_TRAILER - pad;
	return VF_16B_OK;
}

const char *vf_16b_error_name(enum vf_16b_error e)
{
	static const char *const names[] = {
		"ok", "too short", "not a 16B packet", "not Ethernet (L4)",
		"length field does not match", "bad tail", "bad ICRC",
	};

	return e <= VF_16B_BAD_ICRC ? names[e] : "?";
}
