// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * routing/arhw.h against the public layouts it maps to
 * (docs/ar-real-switches.md).  Every expected byte below was written by
 * hand from the layout named in its comment, not by running the encoder:
 *
 *   [SI]   opa-fm IbAccess/Common/Inc/stl_sm_types.h, STL_SWITCH_INFO:
 *          PortGroupFDBCap at 4 (uint32), PortGroupCap at 72, PortGroupTop
 *          at 73, AdaptiveRouting at 78 (uint16: Enable 1, Pause 1,
 *          Algorithm 3, Frequency 3, LostRoutesOnly 1, Threshold 3,
 *          Reserved2 1, Reserved 3, most significant bit first: the
 *          CPU_BE STL_FIELDUNION8 of stl_types.h), CapabilityMask at 80
 *          (IsAdaptiveRoutingSupported: the last field of IB_BITFIELD5,
 *          bit 0); 84 bytes in all; big-endian (BSWAP_STL_SWITCH_INFO,
 *          stl_sm_priv.h).
 *   [PGT]  stl_sm_types.h "Port Group Table (PGT)": amod NNNN NNNN PP00
 *          0000 0000 0000 00AB BBBB, 8 STL_PORTMASK (uint64) a block,
 *          MAX_PGT_BLOCK_NUM 0x1F; big-endian (BSWAP_STL_PORT_GROUP_TABLE);
 *          bit (port - 1) for a member port (opa-fm sm_routing_funcs.c
 *          sm_routing_func_setup_pgs, ports above 64 skipped).
 *   [PGFT] stl_sm_types.h "Port Group Forwarding Table (PGFT)": amod NNNN
 *          NNNN 0000 0ABB BBBB BBBB BBBB BBBB, 64 one-byte entries a
 *          block, POD 0xFF.
 *   [NV]   ib_types.h of NVIDIA's OpenSM (GPL-2.0/BSD; e.g. trex-core
 *          external_libs/ibverbs/.../infiniband/iba/ib_types.h):
 *          ib_ar_info_t (64 bytes), ib_ar_lft_entry_t / ib_ar_lft_t.
 */
#include <stdio.h>
#include <string.h>

#include "routing/internal/arhw.h"
#include "taptest.h"

static int all_are(const uint8_t *p, size_t from, size_t to, uint8_t v)
{
	for (size_t i = from; i < to; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

static struct vf_arp_control ctl(bool en, bool pause, unsigned alg,
				 unsigned freq, bool lost, unsigned thr)
{
	struct vf_arp_control c;

	memset(&c, 0, sizeof(c));
	c.enable = en;
	c.pause = pause;
	c.algorithm = (uint8_t)alg;
	c.frequency = (uint8_t)freq;
	c.lost_route_only = lost;
	c.threshold = (uint8_t)thr;
	return c;
}

static int same_ctl(const struct vf_arp_control *a,
		    const struct vf_arp_control *b)
{
	return a->enable == b->enable && a->pause == b->pause &&
	       a->algorithm == b->algorithm && a->frequency == b->frequency &&
	       a->lost_route_only == b->lost_route_only &&
	       a->threshold == b->threshold;
}

/* [SI] AdaptiveRouting: every field alone, then together. */
static void test_ar_field(void)
{
	static const struct {
		const char *what;
		struct vf_arp_control c;
		uint16_t field;
	} v[] = {
		/* Enable: first field, bit 15 */
		{ "Enable alone is bit 15 (0x8000)",
		  { .enable = true }, 0x8000 },
		/* Pause: bit 14 */
		{ "Pause alone is bit 14 (0x4000)",
		  { .pause = true }, 0x4000 },
		/* Algorithm: bits 13-11 */
		{ "Algorithm 1 (Greedy) is 1 << 11 (0x0800)",
		  { .algorithm = 1 }, 0x0800 },
		{ "Algorithm 2 (GreedyRandom) is 2 << 11 (0x1000)",
		  { .algorithm = 2 }, 0x1000 },
		/* Frequency: bits 10-8 */
		{ "Frequency 1 is 1 << 8 (0x0100)",
		  { .frequency = 1 }, 0x0100 },
		{ "Frequency 2 is 2 << 8 (0x0200)",
		  { .frequency = 2 }, 0x0200 },
		{ "Frequency 4 is 4 << 8 (0x0400)",
		  { .frequency = 4 }, 0x0400 },
		{ "Frequency 7 is 0x0700",
		  { .frequency = 7 }, 0x0700 },
		/* LostRoutesOnly: bit 7 */
		{ "LostRoutesOnly alone is bit 7 (0x0080)",
		  { .lost_route_only = true }, 0x0080 },
		/* Threshold: bits 6-4 */
		{ "Threshold 1 is 1 << 4 (0x0010)",
		  { .threshold = 1 }, 0x0010 },
		{ "Threshold 2 is 2 << 4 (0x0020)",
		  { .threshold = 2 }, 0x0020 },
		{ "Threshold 4 is 4 << 4 (0x0040)",
		  { .threshold = 4 }, 0x0040 },
		{ "Threshold 7 is 0x0070",
		  { .threshold = 7 }, 0x0070 },
		/* 8000 + 4000 + 1000 + 0700 + 0080 + 0070 */
		{ "every field at its maximum is 0xD7F0",
		  { true, true, true, 2, 7, 7, 0, 0 }, 0xD7F0 },
		/* opa-fm defaults with Enable: 8000 + 2<<11 + 4<<8 + 3<<4 */
		{ "FM defaults (GreedyRandom, 4, threshold 3) are 0x9430",
		  { .enable = true, .algorithm = 2, .frequency = 4,
		    .threshold = 3 }, 0x9430 },
		{ "all off is 0", { .enable = false }, 0x0000 },
	};
	char what[128];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint16_t f = 0xFFFF;
		struct vf_arp_control d;

		memset(&d, 0xAA, sizeof(d));
		EQ_U(vf_stl_ar_encode(&v[i].c, &f), VF_HW_OK, v[i].what);
		EQ_U(f, v[i].field, v[i].what);
		snprintf(what, sizeof(what), "decode: %s", v[i].what);
		EQ_U(vf_stl_ar_decode(v[i].field, &d), VF_HW_OK, what);
		OK(same_ctl(&d, &v[i].c), what);
	}

	/* Reserved2 (bit 3) and Reserved (bits 2-0), each alone. */
	for (unsigned b = 0; b < 4; b++) {
		struct vf_arp_control d;

		snprintf(what, sizeof(what),
			 "decode refuses reserved bit %u (0x%04x)", b, 1u << b);
		EQ_U(vf_stl_ar_decode((uint16_t)(0x8000 | 1u << b), &d),
		     (uint64_t)(int64_t)VF_HW_RESERVED, what);
	}
	/* Algorithm 3..7 are not defined (0 Random, 1 Greedy, 2 RG). */
	for (unsigned a = 3; a < 8; a++) {
		struct vf_arp_control d;

		snprintf(what, sizeof(what),
			 "decode refuses undefined Algorithm %u", a);
		EQ_U(vf_stl_ar_decode((uint16_t)(a << 11), &d),
		     (uint64_t)(int64_t)VF_HW_RANGE, what);
	}

	struct vf_arp_control bad;
	uint16_t f = 0x1234;

	bad = ctl(true, false, 3, 0, false, 0);
	EQ_U(vf_stl_ar_encode(&bad, &f), (uint64_t)(int64_t)VF_HW_RANGE,
	     "encode refuses algorithm 3");
	bad = ctl(true, false, 0, 8, false, 0);
	EQ_U(vf_stl_ar_encode(&bad, &f), (uint64_t)(int64_t)VF_HW_RANGE,
	     "encode refuses frequency 8 (3 bits)");
	bad = ctl(true, false, 0, 0, false, 8);
	EQ_U(vf_stl_ar_encode(&bad, &f), (uint64_t)(int64_t)VF_HW_RANGE,
	     "encode refuses threshold 8 (3 bits)");
	EQ_U(f, 0x1234, "a refused encode writes nothing");
}

/* [SI] the AR part of a whole SwitchInfo image. */
static void test_switch_info(void)
{
	uint8_t si[VF_STL_SI_SIZE];
	struct vf_stl_si_ar a;
	struct vf_arp_info info;
	struct vf_arp_control c;

	memset(si, 0xA5, sizeof(si));
	/* PortGroupFDBCap = 8192 (128 blocks, DEFAULT_MAX_PGFT_BLOCK_NUM) */
	si[4] = 0x00, si[5] = 0x00, si[6] = 0x20, si[7] = 0x00;
	si[72] = 0x40;			/* PortGroupCap 64 */
	si[73] = 0x05;			/* PortGroupTop 5 */
	si[78] = 0x94, si[79] = 0x30;	/* AdaptiveRouting 0x9430 */
	si[80] = 0x00, si[81] = 0x01;	/* CapabilityMask: AR supported */
	EQ_U(vf_stl_si_get_ar(si, sizeof(si), &a), VF_HW_OK,
	     "SwitchInfo: AR part read");
	OK(a.ar_supported, "IsAdaptiveRoutingSupported from bit 0 at 80");
	EQ_U(a.pg_fdb_cap, 8192, "PortGroupFDBCap from bytes 4-7");
	EQ_U(a.pg_cap, 64, "PortGroupCap from byte 72");
	EQ_U(a.pg_top, 5, "PortGroupTop from byte 73");
	EQ_U(a.ar, 0x9430, "AdaptiveRouting from bytes 78-79");

	vf_stl_si_to_info(&a, &info);
	OK(info.supported && info.group_cap == 64 && info.lid_cap == 8192 &&
	   info.groups_per_block == 8 && info.lids_per_block == 64,
	   "as our ARInfo: caps and 8 groups / 64 LIDs a block");
	OK(info.control.enable && !info.control.pause &&
	   info.control.algorithm == 2 && info.control.frequency == 4 &&
	   info.control.threshold == 3 && info.control.group_top == 5,
	   "as our ARInfo: the control and group_top");

	si[80] = 0x00, si[81] = 0x08;	/* IsExtendedSCSCSupported only */
	vf_stl_si_get_ar(si, sizeof(si), &a);
	OK(!a.ar_supported, "bit 3 of CapabilityMask is not AR support");

	EQ_U(vf_stl_si_get_ar(si, VF_STL_SI_SIZE - 1, &a),
	     (uint64_t)(int64_t)VF_HW_SHORT, "83 bytes: too short");
	EQ_U(vf_stl_si_get_ar(NULL, 100, &a), (uint64_t)(int64_t)VF_HW_SHORT,
	     "no buffer: too short");

	/* Put: only bytes 73, 78 and 79 change. */
	memset(si, 0xA5, sizeof(si));
	c = ctl(true, true, 1, 2, true, 5);
	c.group_top = 17;
	c.lid_top = 4096;
	EQ_U(vf_stl_si_put_ar(si, sizeof(si), &c), VF_HW_OK,
	     "SwitchInfo: AR part written");
	EQ_U(si[73], 17, "PortGroupTop = group_top at byte 73");
	/* 8000 + 4000 + 1<<11 + 2<<8 + 0080 + 5<<4 = 0xCAD0 */
	OK(tap_bytes_are(si + 78, "CA D0"), "AdaptiveRouting CA D0 at 78");
	OK(all_are(si, 0, 73, 0xA5) && all_are(si, 74, 78, 0xA5) &&
	   all_are(si, 80, VF_STL_SI_SIZE, 0xA5),
	   "every other SwitchInfo byte as it was read");

	memset(si, 0xA5, sizeof(si));
	c.group_top = 256;
	EQ_U(vf_stl_si_put_ar(si, sizeof(si), &c),
	     (uint64_t)(int64_t)VF_HW_RANGE, "group_top 256: no room in u8");
	c.group_top = 1;
	c.threshold = 9;
	EQ_U(vf_stl_si_put_ar(si, sizeof(si), &c),
	     (uint64_t)(int64_t)VF_HW_RANGE, "threshold 9 refused");
	OK(all_are(si, 0, VF_STL_SI_SIZE, 0xA5), "refusals write nothing");
	c.threshold = 1;
	EQ_U(vf_stl_si_put_ar(si, 80, &c), (uint64_t)(int64_t)VF_HW_SHORT,
	     "put into 80 bytes: too short");
}

/* [PGT] [PGFT] attribute modifiers. */
static void test_amod(void)
{
	struct vf_stl_amod m = { 0 }, d;
	uint32_t amod = 0;

	m.nblocks = 1;
	EQ_U(vf_stl_pgt_amod(&m, &amod), VF_HW_OK, "PGT amod 1 block");
	EQ_U(amod, 0x01000000, "PGT: 1 block from 0 is 0x01000000");
	m.nblocks = 4;
	vf_stl_pgt_amod(&m, &amod);
	EQ_U(amod, 0x04000000, "PGT: N=4 (opa-fm blocks<<24) 0x04000000");
	m.nblocks = 1, m.block = 0x1F;
	vf_stl_pgt_amod(&m, &amod);
	EQ_U(amod, 0x0100001F, "PGT: the last block (0x1F)");
	/* N=2 <<24, P=3 <<22 (0x00C00000), A bit 5 (0x20), B=5 */
	m.nblocks = 2, m.position = 3, m.all = true, m.block = 5;
	EQ_U(vf_stl_pgt_amod(&m, &amod), VF_HW_OK, "PGT amod, every field");
	EQ_U(amod, 0x02C00025, "PGT: N2 P3 A B5 is 0x02C00025");
	EQ_U(vf_stl_pgt_amod_decode(0x02C00025, &d), VF_HW_OK,
	     "PGT amod decoded");
	OK(d.nblocks == 2 && d.position == 3 && d.all && d.block == 5,
	   "PGT amod round trip");
	EQ_U(vf_stl_pgt_amod_decode(0x01000040, &d),
	     (uint64_t)(int64_t)VF_HW_RESERVED, "PGT amod: bit 6 reserved");
	EQ_U(vf_stl_pgt_amod_decode(0x01200000, &d),
	     (uint64_t)(int64_t)VF_HW_RESERVED, "PGT amod: bit 21 reserved");
	EQ_U(vf_stl_pgt_amod_decode(0x0000001F, &d),
	     (uint64_t)(int64_t)VF_HW_RANGE, "PGT amod: N = 0");

	m = (struct vf_stl_amod){ .nblocks = 2, .block = 0x1F };
	EQ_U(vf_stl_pgt_amod(&m, &amod), (uint64_t)(int64_t)VF_HW_RANGE,
	     "PGT: 2 blocks from 0x1F run past the table");
	m = (struct vf_stl_amod){ .nblocks = 1, .block = 0x20 };
	EQ_U(vf_stl_pgt_amod(&m, &amod), (uint64_t)(int64_t)VF_HW_RANGE,
	     "PGT: block 0x20 does not exist");
	m = (struct vf_stl_amod){ .nblocks = 1, .position = 4 };
	EQ_U(vf_stl_pgt_amod(&m, &amod), (uint64_t)(int64_t)VF_HW_RANGE,
	     "PGT: position 4 (2 bits)");
	m = (struct vf_stl_amod){ .nblocks = 0 };
	EQ_U(vf_stl_pgt_amod(&m, &amod), (uint64_t)(int64_t)VF_HW_RANGE,
	     "PGT: 0 blocks");
	m = (struct vf_stl_amod){ .nblocks = 30 };
	EQ_U(vf_stl_pgft_amod(&m, &amod), (uint64_t)(int64_t)VF_HW_RANGE,
	     "30 blocks do not fit a DR SMP (1872 / 64 = 29)");

	m = (struct vf_stl_amod){ .nblocks = 8 };
	vf_stl_pgft_amod(&m, &amod);
	EQ_U(amod, 0x08000000, "PGFT: 8 blocks from 0 is 0x08000000");
	m.block = 8;
	vf_stl_pgft_amod(&m, &amod);
	EQ_U(amod, 0x08000008, "PGFT: 8 blocks from 8 (LID 512)");
	/* N=1 <<24, A bit 18 (0x00040000), B = 0x3FFFF */
	m = (struct vf_stl_amod){ .nblocks = 1, .all = true, .block = 0x3FFFF };
	EQ_U(vf_stl_pgft_amod(&m, &amod), VF_HW_OK, "PGFT amod, A and B");
	EQ_U(amod, 0x0107FFFF, "PGFT: N1 A B0x3FFFF is 0x0107FFFF");
	EQ_U(vf_stl_pgft_amod_decode(0x0107FFFF, &d), VF_HW_OK,
	     "PGFT amod decoded");
	OK(d.nblocks == 1 && d.all && d.block == 0x3FFFF && !d.position,
	   "PGFT amod round trip");
	m.nblocks = 2;
	EQ_U(vf_stl_pgft_amod(&m, &amod), (uint64_t)(int64_t)VF_HW_RANGE,
	     "PGFT: 2 blocks from 0x3FFFF run past 18 bits");
	m = (struct vf_stl_amod){ .nblocks = 1, .position = 1 };
	EQ_U(vf_stl_pgft_amod(&m, &amod), (uint64_t)(int64_t)VF_HW_RANGE,
	     "PGFT has no position field");
	EQ_U(vf_stl_pgft_amod_decode(0x01080000, &d),
	     (uint64_t)(int64_t)VF_HW_RESERVED, "PGFT amod: bit 19 reserved");
	EQ_U(vf_stl_pgft_amod_decode(0x01800000, &d),
	     (uint64_t)(int64_t)VF_HW_RESERVED, "PGFT amod: bit 23 reserved");
}

static void mask_add(struct vf_ar_mask *m, unsigned port)
{
	m->w[(port - 1) / 64] |= 1ull << ((port - 1) % 64);
}

/* [PGT] blocks. */
static void test_pgt(void)
{
	struct vf_ar_mask m[10], back[10];
	uint8_t buf[2 * VF_STL_PGT_BLOCK_BYTES];
	unsigned nb = 0;

	memset(m, 0, sizeof(m));
	mask_add(&m[0], 1), mask_add(&m[0], 2);		/* bits 0, 1 */
	mask_add(&m[1], 64);				/* bit 63 */
	mask_add(&m[2], 9), mask_add(&m[2], 17);	/* bits 8, 16 */
	memset(buf, 0xEE, sizeof(buf));
	EQ_U(vf_stl_pgt_put(buf, sizeof(buf), m, 3, &nb), VF_HW_OK,
	     "PGT: 3 groups written");
	EQ_U(nb, 1, "3 groups: one block (N = 1)");
	OK(tap_bytes_are(buf, "00 00 00 00 00 00 00 03"),
	   "entry 0, ports 1+2: bits 0-1 of a big-endian uint64");
	OK(tap_bytes_are(buf + 8, "80 00 00 00 00 00 00 00"),
	   "entry 1, port 64: bit 63, the first byte's top bit");
	OK(tap_bytes_are(buf + 16, "00 00 00 00 00 01 01 00"),
	   "entry 2, ports 9+17: bits 8 and 16");
	OK(all_are(buf, 24, 64, 0), "entries 3-7 of the block: zero (POD)");
	OK(all_are(buf, 64, sizeof(buf), 0xEE), "nothing past the block");

	EQ_U(vf_stl_pgt_get(buf, 64, back, 8), VF_HW_OK, "PGT block read");
	OK(!memcmp(back, m, 3 * sizeof(m[0])) && !back[3].w[0] &&
	   !back[7].w[0], "PGT round trip");

	memset(m, 0, sizeof(m));
	for (unsigned i = 0; i < 9; i++)
		mask_add(&m[i], i + 1);
	EQ_U(vf_stl_pgt_put(buf, sizeof(buf), m, 9, &nb), VF_HW_OK,
	     "PGT: 9 groups");
	EQ_U(nb, 2, "9 groups: two blocks");
	OK(tap_bytes_are(buf + 64, "00 00 00 00 00 00 01 00"),
	   "entry 8 (block 1, first): port 9 = bit 8");
	OK(all_are(buf, 72, 128, 0), "rest of block 1: zero");
	EQ_U(vf_stl_pgt_put(buf, 127, m, 9, &nb),
	     (uint64_t)(int64_t)VF_HW_SHORT, "9 groups in 127 bytes: short");

	memset(buf, 0xEE, sizeof(buf));
	memset(m, 0, sizeof(m));
	mask_add(&m[0], 1);
	mask_add(&m[1], 65);
	EQ_U(vf_stl_pgt_put(buf, sizeof(buf), m, 2, &nb),
	     (uint64_t)(int64_t)VF_HW_PORTS,
	     "port 65: refused, STL port masks are 64 bits");
	memset(&m[1], 0, sizeof(m[1]));
	mask_add(&m[1], 255);
	EQ_U(vf_stl_pgt_put(buf, sizeof(buf), m, 2, &nb),
	     (uint64_t)(int64_t)VF_HW_PORTS, "port 255: refused");
	OK(all_are(buf, 0, sizeof(buf), 0xEE), "a refused PGT writes nothing");
	memset(&m[1], 0, sizeof(m[1]));
	mask_add(&m[1], 64);
	EQ_U(vf_stl_pgt_put(buf, sizeof(buf), m, 2, &nb), VF_HW_OK,
	     "port 64, the last a mask holds: accepted");
	EQ_U(vf_stl_pgt_put(buf, 63, m, 2, &nb),
	     (uint64_t)(int64_t)VF_HW_SHORT, "63 bytes: short of a block");
	EQ_U(vf_stl_pgt_put(buf, sizeof(buf), m, 0, &nb),
	     (uint64_t)(int64_t)VF_HW_RANGE, "0 groups");

	static struct vf_ar_mask many[257];
	static uint8_t big[32 * VF_STL_PGT_BLOCK_BYTES];
	EQ_U(vf_stl_pgt_put(big, sizeof(big), many, 232, &nb), VF_HW_OK,
	     "232 groups: 29 blocks, one MAD");
	EQ_U(nb, 29, "232 groups are 29 blocks");
	EQ_U(vf_stl_pgt_put(big, sizeof(big), many, 233, &nb),
	     (uint64_t)(int64_t)VF_HW_RANGE,
	     "233 groups: 30 blocks, more than a MAD");
	EQ_U(vf_stl_pgt_get(big, sizeof(big), many, 257),
	     (uint64_t)(int64_t)VF_HW_RANGE, "257 entries: the PGT has 256");
	EQ_U(vf_stl_pgt_get(buf, 15, back, 2),
	     (uint64_t)(int64_t)VF_HW_SHORT, "2 entries from 15 bytes");
}

/* [PGFT] blocks. */
static void test_pgft(void)
{
	uint8_t g[70], back[70];
	uint8_t buf[2 * VF_STL_PGFT_PER_BLOCK];
	unsigned nb = 0;

	for (unsigned k = 0; k < 70; k++)
		g[k] = k % 3 == 1 ? 0xFF : (uint8_t)(k % 3);	/* 0 FF 2 .. */
	memset(buf, 0xEE, sizeof(buf));
	EQ_U(vf_stl_pgft_put(buf, sizeof(buf), g, 70, 3, &nb), VF_HW_OK,
	     "PGFT: 70 LIDs");
	EQ_U(nb, 2, "70 LIDs: two blocks of 64");
	OK(tap_bytes_are(buf, "00 FF 02 00 FF 02"),
	   "one byte a LID: the PGT index, FF none");
	OK(buf[64] == g[64] && buf[69] == g[69], "LIDs 64-69 in block 1");
	OK(all_are(buf, 70, 128, 0xFF), "rest of block 1: FF (POD)");
	EQ_U(vf_stl_pgft_get(buf, sizeof(buf), back, 70, 3), VF_HW_OK,
	     "PGFT read");
	OK(!memcmp(back, g, 70), "PGFT round trip");

	memset(buf, 0xEE, sizeof(buf));
	g[5] = 3;
	EQ_U(vf_stl_pgft_put(buf, sizeof(buf), g, 70, 3, &nb),
	     (uint64_t)(int64_t)VF_HW_RANGE,
	     "index 3 with PortGroupTop 3: refused");
	OK(all_are(buf, 0, sizeof(buf), 0xEE), "a refused PGFT writes nothing");
	g[5] = 2;
	EQ_U(vf_stl_pgft_put(buf, 127, g, 70, 3, &nb),
	     (uint64_t)(int64_t)VF_HW_SHORT, "2 blocks into 127 bytes");
	EQ_U(vf_stl_pgft_put(buf, sizeof(buf), g, 0, 3, &nb),
	     (uint64_t)(int64_t)VF_HW_RANGE, "0 LIDs");
	EQ_U(vf_stl_pgft_put(buf, sizeof(buf), g, 70, 256, &nb),
	     (uint64_t)(int64_t)VF_HW_RANGE, "PortGroupTop 256");

	buf[7] = 0x10;
	EQ_U(vf_stl_pgft_get(buf, sizeof(buf), back, 64, 3),
	     (uint64_t)(int64_t)VF_HW_RANGE, "reading index 0x10 > top 3");
	EQ_U(vf_stl_pgft_get(buf, 10, back, 64, 16),
	     (uint64_t)(int64_t)VF_HW_SHORT, "64 entries from 10 bytes");

	static uint8_t lids[30 * 64], big[30 * 64];
	memset(lids, 0xFF, sizeof(lids));
	EQ_U(vf_stl_pgft_put(big, sizeof(big), lids, 29 * 64, 1, &nb),
	     VF_HW_OK, "29 blocks: one MAD");
	EQ_U(vf_stl_pgft_put(big, sizeof(big), lids, 29 * 64 + 1, 1, &nb),
	     (uint64_t)(int64_t)VF_HW_RANGE, "30 blocks: more than a MAD");
}

/* Field by field: the structs have padding a memcmp would read. */
static int same_nv_info(const struct vf_nv_ar_info *a,
			const struct vf_nv_ar_info *b)
{
	return a->cap_fields == b->cap_fields &&
	       a->dir_num_supp == b->dir_num_supp &&
	       a->sub_grps_active == b->sub_grps_active &&
	       a->grp_tbl_copy_sup == b->grp_tbl_copy_sup &&
	       a->enable == b->enable && a->features == b->features &&
	       a->group_cap == b->group_cap && a->group_top == b->group_top &&
	       a->group_table_cap == b->group_table_cap &&
	       a->string_width_cap == b->string_width_cap &&
	       a->enable_by_sl_mask == b->enable_by_sl_mask &&
	       a->sub_grps_sup == b->sub_grps_sup &&
	       a->ar_version_cap == b->ar_version_cap &&
	       a->rn_version_cap == b->rn_version_cap &&
	       a->by_trns_disable == b->by_trns_disable &&
	       a->ageing_time == b->ageing_time;
}

/* [NV] AdaptiveRoutingInfo. */
static void test_nv_info(void)
{
	uint8_t buf[VF_NV_AR_INFO_SIZE];
	struct vf_nv_ar_info i, d;

	memset(&i, 0, sizeof(i));
	i.cap_fields = 0x04;		/* bit 2: global groups */
	i.dir_num_supp = 3;
	i.sub_grps_active = 1;
	i.grp_tbl_copy_sup = 2;
	i.enable = true;
	i.features = 0x01;		/* byte 3 bit 1: ARN supported */
	i.group_cap = 0x100;
	i.group_top = 5;
	i.group_table_cap = 1;
	i.string_width_cap = 0;
	i.enable_by_sl_mask = 0x00FF;
	i.sub_grps_sup = 2;
	i.ar_version_cap = 2;
	i.rn_version_cap = 1;
	i.by_trns_disable = 0x01;	/* bit 0: UD */
	i.ageing_time = 5000;
	memset(buf, 0, sizeof(buf));
	EQ_U(vf_nv_ar_info_put(buf, sizeof(buf), &i), VF_HW_OK,
	     "ARInfo written");
	/*
	 * 0: enabled_and_cap_fields 04; 1: dir_num_supp 03; 2: copy sup 2
	 * in bits 7-4, sub groups active 1 in 3-0 = 21; 3: enable_features
	 * bit 0 enable, bit 1 ARN = 03; 4-7: group_info = table cap 1 << 24
	 * | top 5 << 12 | cap 0x100 = 01 00 51 00; 8-9: SL mask 00 FF; 10:
	 * sub_grps_sup 02; 11: RN version 1 << 4 | AR version 2 = 12; 12-14
	 * reserved; 15: by_trns_disable 01; 16-19: ageing 5000 = 00 00 13 88
	 */
	OK(tap_bytes_are(buf, "04 03 21 03  01 00 51 00  00 FF 02 12  00 00 00 01"
			  "  00 00 13 88"),
	   "ARInfo: ib_ar_info_t bytes 0-19");
	OK(all_are(buf, 20, sizeof(buf), 0), "ARInfo: bytes 20-63 untouched");
	EQ_U(vf_nv_ar_info_get(buf, sizeof(buf), &d), VF_HW_OK, "ARInfo read");
	OK(same_nv_info(&d, &i), "ARInfo round trip");

	/* Put keeps the bytes it does not own (reserved, cap_fields1, ...). */
	memset(buf, 0xC3, sizeof(buf));
	i.enable = false;
	i.features = 0;
	vf_nv_ar_info_put(buf, sizeof(buf), &i);
	EQ_U(buf[3], 0xC0, "byte 3: bits 7-6 kept, enable off");
	OK(all_are(buf, 12, 15, 0xC3) && all_are(buf, 20, 64, 0xC3),
	   "bytes 12-14 and 20-63 kept");

	i.group_cap = 0x1000;
	EQ_U(vf_nv_ar_info_put(buf, sizeof(buf), &i),
	     (uint64_t)(int64_t)VF_HW_RANGE, "GroupCap 0x1000: 12 bits");
	i.group_cap = 0x100;
	i.sub_grps_active = 16;
	EQ_U(vf_nv_ar_info_put(buf, sizeof(buf), &i),
	     (uint64_t)(int64_t)VF_HW_RANGE, "sub groups active 16: 4 bits");
	EQ_U(vf_nv_ar_info_get(buf, 63, &d), (uint64_t)(int64_t)VF_HW_SHORT,
	     "ARInfo from 63 bytes");

	/* A hand-built Get answer: GroupCap 0xFFF, GroupTop 0xABC. */
	memset(buf, 0, sizeof(buf));
	buf[3] = 0x01;
	buf[4] = 0xF0 | 0x07, buf[5] = 0xAB, buf[6] = 0xCF, buf[7] = 0xFF;
	vf_nv_ar_info_get(buf, sizeof(buf), &d);
	OK(d.enable && d.group_cap == 0xFFF && d.group_top == 0xABC &&
	   d.group_table_cap == 7 && d.string_width_cap == 0xF,
	   "group_info bits 11-0 cap, 23-12 top, 27-24, 31-28");
}

/* [NV] AR LFT block. */
static void test_nv_lft(void)
{
	uint8_t g[3] = { 0, VF_AR_NO_GROUP, 7 }, p[3] = { 3, 5, 9 };
	struct vf_nv_ar_lft_entry e[VF_NV_AR_LFT_PER_BLOCK], d[16];
	uint8_t buf[VF_NV_AR_LFT_BLOCK_BYTES + 4];

	EQ_U(vf_nv_ar_lft_from_model(g, p, 3, VF_NV_LID_FREE, e), VF_HW_OK,
	     "AR LFT entries from our model");
	memset(buf, 0xEE, sizeof(buf));
	EQ_U(vf_nv_ar_lft_put(buf, sizeof(buf), e, 3), VF_HW_OK,
	     "AR LFT block written");
	/*
	 * Entry: state_table (state in bits 7-6, table 3-0), legacy_port,
	 * group_number (big-endian 16).  FREE (1) << 6 = 40; STATIC (2) << 6
	 * = 80, group 0.
	 */
	OK(tap_bytes_are(buf, "40 03 00 00  80 05 00 00  40 09 00 07"),
	   "LIDs 0-2: free group 0 / static port 5 / free group 7");
	OK(all_are(buf, 12, 64, 0), "entries 3-15 zero");
	OK(all_are(buf, 64, sizeof(buf), 0xEE), "nothing past 64 bytes");
	EQ_U(vf_nv_ar_lft_get(buf, 64, d), VF_HW_OK, "AR LFT block read");
	OK(d[0].state == 1 && d[0].port == 3 && d[0].group == 0 &&
	   d[1].state == 2 && d[1].port == 5 && d[2].group == 7 &&
	   d[2].port == 9 && d[2].table == 0, "AR LFT round trip");

	vf_nv_ar_lft_from_model(g, p, 1, VF_NV_LID_BOUNDED, e);
	e[0].table = 0xF;
	e[0].group = 0x0123;
	vf_nv_ar_lft_put(buf, sizeof(buf), e, 1);
	OK(tap_bytes_are(buf, "0F 03 01 23"),
	   "bounded (0), table 15, group 0x123");

	buf[4] = 0x10;
	EQ_U(vf_nv_ar_lft_get(buf, 64, d), (uint64_t)(int64_t)VF_HW_RESERVED,
	     "bits 5-4 of state_table are reserved");
	EQ_U(vf_nv_ar_lft_get(buf, 63, d), (uint64_t)(int64_t)VF_HW_SHORT,
	     "AR LFT from 63 bytes");
	e[0].state = 4;
	EQ_U(vf_nv_ar_lft_put(buf, sizeof(buf), e, 1),
	     (uint64_t)(int64_t)VF_HW_RANGE, "state 4: 2 bits");
	e[0].state = 0, e[0].table = 16;
	EQ_U(vf_nv_ar_lft_put(buf, sizeof(buf), e, 1),
	     (uint64_t)(int64_t)VF_HW_RANGE, "table 16: 4 bits");
	EQ_U(vf_nv_ar_lft_put(buf, sizeof(buf), e, 17),
	     (uint64_t)(int64_t)VF_HW_RANGE, "17 entries: a block has 16");
	EQ_U(vf_nv_ar_lft_from_model(g, p, 3, VF_NV_LID_STATIC, e),
	     (uint64_t)(int64_t)VF_HW_RANGE, "grouped LIDs cannot be static");
}

int main(void)
{
	test_ar_field();
	test_switch_info();
	test_amod();
	test_pgt();
	test_pgft();
	test_nv_info();
	test_nv_lft();
	EQ_S(vf_hw_status_name(VF_HW_PORTS), "port beyond the layout's mask",
	     "status names");
	return tap_done();
}
