// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The 16B encapsulation (seed 001's table, reference/vnic-ema.md 6):
 * hand-computed vectors, field positions at their bits, the sizes the
 * reference works out, a round trip over random frames and headers, and
 * every malformed packet kind refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnic/encap.h"
#include "taptest.h"

static int bytes_are(const uint8_t *p, const char *hex)
{
	unsigned v;

	for (; *hex; hex++) {
		if (*hex == ' ')
			continue;
		if (sscanf(hex, "%2x", &v) != 1 || *p++ != v)
			return 0;
		hex++;
	}
	return 1;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void vectors(void)
{
	struct vf_16b h = { .slid = 5, .dlid = 7, .pkey = 0x8001,
			    .entropy = 0x3c, .vesw_id = 2 };
	uint8_t frame[1514], pkt[2048];
	size_t n;

	memset(frame, 0xab, sizeof(frame));
	n = vf_16b_encap(&h, frame, 60, pkt, sizeof(pkt));
	EQ_U(n, 88, "a 60-byte frame: 88 bytes on the wire (pad 3)");
	OK(bytes_are(pkt, "05 00 B0 00 07 00 00 C0 78 00 01 80 3C 00 00 00 00 00 02 00"),
	   "the reference's worked header: SLID 5, DLID 7, length 11, L2 16B, "
	   "head flit, L4 0x78, P_Key 0x8001, entropy 0x3c, vESW 2");
	OK(pkt[20] == 0xab && pkt[79] == 0xab, "the frame from byte 20");
	OK(!pkt[80] && !pkt[81] && !pkt[82], "3 zero pad bytes");
	EQ_U(le32(pkt + 83), vf_crc32(pkt, 83), "the ICRC: CRC-32 of header, "
	     "frame and pad");
	EQ_U(pkt[87], 0x43, "tail: pad 3, LT 01 (tail flit) in the top bits");
	EQ_U(vf_16b_size(1514), 1544, "a 1514-byte frame: 1544 bytes (pad 5)");
	n = vf_16b_encap(&h, frame, 1514, pkt, sizeof(pkt));
	EQ_U(le32(pkt) >> 20 & 0x7ff, 193, "... length field 193 quad words");
	EQ_U(pkt[n - 1], 0x45, "... tail: pad 5");
	EQ_U(vf_16b_size(10), 88, "a runt frame is padded to 60 first");
	EQ_U(vf_crc32((const uint8_t *)"123456789", 9), 0xcbf43926,
	     "CRC-32 check value");
}

static void fields(void)
{
	struct vf_16b h = { .slid = 0x912345, .dlid = 0xa6789a, .sc = 31,
			    .rc = 7, .becn = true, .fecn = true,
			    .pkey = 0x7fff, .entropy = 0xbeef,
			    .vesw_id = 0xfff };
	uint8_t frame[64] = { 0 }, pkt[256];
	uint32_t w0, w1, w2;

	OK(vf_16b_encap(&h, frame, sizeof(frame), pkt, sizeof(pkt)),
	   "every field at its largest");
	w0 = le32(pkt);
	w1 = le32(pkt + 4);
	w2 = le32(pkt + 8);
	EQ_U(w0 & 0xfffff, 0x12345, "QW0 0-19: SLID[19:0]");
	EQ_U(w0 >> 31, 1, "QW0 31: BECN");
	EQ_U(w1 & 0xfffff, 0x6789a, "QW0 32-51: DLID[19:0]");
	EQ_U(w1 >> 20 & 0x1f, 31, "QW0 52-56: SC");
	EQ_U(w1 >> 25 & 7, 7, "QW0 57-59: RC");
	EQ_U(w1 >> 28 & 1, 1, "QW0 60: FECN");
	EQ_U(w1 >> 29, 6, "QW0 61-63: L2 = 10, LT = 1");
	EQ_U(w2 & 0xff, 0x78, "QW1 0-7: L4 type Ethernet");
	EQ_U(w2 >> 8 & 0xf, 0x9, "QW1 8-11: SLID[23:20]");
	EQ_U(w2 >> 12 & 0xf, 0xa, "QW1 12-15: DLID[23:20]");
	EQ_U(w2 >> 16, 0x7fff, "QW1 16-31: P_Key");
	EQ_U(le32(pkt + 12), 0xbeef, "QW1 32-47: entropy, 48-63 zero");
	OK(!pkt[16] && !pkt[17] && le32(pkt + 16) >> 16 == 0xfff,
	   "QW2 0-15 reserved, 16-31: the L4 header = vESW id");
	h.vesw_id = 0x1000;
	OK(!vf_16b_encap(&h, frame, sizeof(frame), pkt, sizeof(pkt)),
	   "a vESW id over 12 bits is refused");
	h.vesw_id = 1;
	h.slid = 0x1000000;
	OK(!vf_16b_encap(&h, frame, sizeof(frame), pkt, sizeof(pkt)),
	   "a LID over 24 bits is refused");
}

/* Random frames and headers: decap(encap(x)) == x. */
static void round_trip(void)
{
	static uint8_t frame[VF_16B_MAX_LEN], pkt[VF_16B_MAX_LEN];
	unsigned ok = 0, runs = 2000, flipped = 0;

	srand(1);
	for (unsigned i = 0; i < runs; i++) {
		struct vf_16b h = {
			.slid = (uint32_t)rand() & 0xffffff,
			.dlid = (uint32_t)rand() & 0xffffff,
			.sc = (uint8_t)(rand() & 31), .rc = (uint8_t)(rand() & 7),
			.becn = rand() & 1, .fecn = rand() & 1,
			.pkey = (uint16_t)rand(), .entropy = (uint16_t)rand(),
			.vesw_id = (uint16_t)(rand() & 0xfff),
		}, back;
		size_t len = (size_t)rand() % 9100, n, got;
		const uint8_t *f;

		for (size_t k = 0; k < len; k++)
			frame[k] = (uint8_t)rand();
		n = vf_16b_encap(&h, frame, len, pkt, sizeof(pkt));
		if (!n || vf_16b_decap(pkt, n, &back, &f, &got) ||
		    memcmp(&back, &h, sizeof(h)) ||
		    got != (len < 60 ? 60 : len) || memcmp(f, frame, len))
			continue;
		/* any one bit flipped is caught */
		pkt[(size_t)rand() % n] ^= (uint8_t)(1u << (rand() % 8));
		flipped += vf_16b_decap(pkt, n, &back, &f, &got) != VF_16B_OK;
		ok++;
	}
	EQ_U(ok, runs, "2000 random frames (0-9099 bytes) and headers come "
	     "back unchanged");
	EQ_U(flipped, runs, "... and each with one bit flipped is refused");
}

static void malformed(void)
{
	struct vf_16b h = { .slid = 1, .dlid = 2, .vesw_id = 3 }, back;
	uint8_t frame[100] = { 0 }, pkt[256], bad[256];
	size_t n = vf_16b_encap(&h, frame, sizeof(frame), pkt, sizeof(pkt)), len;
	const uint8_t *f;

	EQ_U(vf_16b_decap(pkt, 16, &back, &f, &len), VF_16B_SHORT,
	     "16 bytes: too short");
	memcpy(bad, pkt, n);
	bad[7] &= 0x9f;		/* L2 = 00 */
	EQ_U(vf_16b_decap(bad, n, &back, &f, &len), VF_16B_NOT_16B,
	     "L2 not 16B");
	memcpy(bad, pkt, n);
	bad[8] = 0x77;
	EQ_U(vf_16b_decap(bad, n, &back, &f, &len), VF_16B_NOT_ETHERNET,
	     "L4 type not 0x78");
	EQ_U(vf_16b_decap(pkt, n - 8, &back, &f, &len), VF_16B_BAD_LENGTH,
	     "a quad word missing: the length field disagrees");
	memcpy(bad, pkt, n);
	bad[n - 1] = 0x4f;	/* pad 15 */
	EQ_U(vf_16b_decap(bad, n, &back, &f, &len), VF_16B_BAD_TAIL,
	     "a pad over 7 in the tail");
	memcpy(bad, pkt, n);
	bad[n - 1] &= 0x3f;	/* LT 00 */
	EQ_U(vf_16b_decap(bad, n, &back, &f, &len), VF_16B_BAD_TAIL,
	     "no tail flit");
	memcpy(bad, pkt, n);
	bad[30] ^= 1;
	EQ_U(vf_16b_decap(bad, n, &back, &f, &len), VF_16B_BAD_ICRC,
	     "a changed frame byte: bad ICRC");
	OK(!vf_16b_encap(&h, frame, VF_16B_MAX_LEN, pkt, sizeof(pkt)),
	   "a frame over the 11-bit length is refused");
	OK(!vf_16b_encap(&h, frame, sizeof(frame), pkt, 100),
	   "an output buffer too small is refused");
}

int main(void)
{
	vectors();
	fields();
	round_trip();
	malformed();
	return tap_done();
}
