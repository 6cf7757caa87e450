// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The AR protocol codec (routing/arproto.h, docs/ar-protocol.md): every
 * field at its byte offset, decoded back; request checks and their
 * statuses; and the egress choice of routing/arselect.h for each
 * algorithm, threshold, ARFrequency and LostRouteOnly.
 */
#include <stdio.h>
#include <string.h>

#include "routing/arproto.h"
#include "routing/arselect.h"
#include "taptest.h"

static int zero_from(const uint8_t *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (p[i])
			return 0;
	return 1;
}

static void test_header(void)
{
	uint8_t mad[VF_ARP_MAD_SIZE];
	struct vf_arp_hdr h;

	memset(mad, 0xee, sizeof(mad));
	vf_arp_init(mad, VF_ARP_SET, 0x0102030405060708ull, VF_ARP_LIDS,
		    0x11223344, 0xa0b0c0d0);
	OK(tap_bytes_are(mad, "01 0a 01 02 0000 0000 0102030405060708 ff23 0000 11223344 a0b0c0d0 00000000"),
	   "header: version, class 0x0A, class version 1, method, TID, attribute, modifier, generation");
	OK(zero_from(mad, 32, VF_ARP_MAD_SIZE), "init zeroes the data and the unused tail");
	vf_arp_put_status(mad, VF_ARP_BAD_FIELD);
	OK(tap_bytes_are(mad + 4, "001c"), "status at byte 4");
	vf_arp_get_hdr(mad, &h);
	EQ_U(h.tid, 0x0102030405060708ull, "TID decoded");
	EQ_U(h.attr_mod, 0x11223344, "modifier decoded");
	EQ_U(h.generation, 0xa0b0c0d0, "generation decoded");
	EQ_U(h.status, VF_ARP_BAD_FIELD, "status decoded");
}

static void test_checks(void)
{
	uint8_t mad[VF_ARP_MAD_SIZE];
	struct vf_arp_hdr h;

	vf_arp_init(mad, VF_ARP_GET, 1, VF_ARP_INFO, 0, 0);
	EQ_U(vf_arp_check_request(mad, 256, &h), VF_ARP_OK, "Get ARInfo is fine");
	vf_arp_init(mad, VF_ARP_SET, 1, VF_ARP_INFO, 0, 0);
	EQ_U(vf_arp_check_request(mad, 256, &h), VF_ARP_BAD_ATTR, "Set ARInfo: method/attribute not supported");
	vf_arp_init(mad, VF_ARP_GET, 1, 0xff7f, 0, 0);
	EQ_U(vf_arp_check_request(mad, 256, &h), VF_ARP_BAD_ATTR, "unknown attribute");
	vf_arp_init(mad, 0x03, 1, VF_ARP_CONTROL, 0, 0);
	EQ_U(vf_arp_check_request(mad, 256, &h), VF_ARP_BAD_METHOD, "method Send not supported");
	vf_arp_init(mad, VF_ARP_GET, 1, VF_ARP_CONTROL, 0, 0);
	mad[2] = 2;
	EQ_U(vf_arp_check_request(mad, 256, &h), VF_ARP_BAD_VERSION, "class version 2");
	EQ_U(vf_arp_check_request(mad, 20, &h), VF_ARP_BAD_FIELD, "shorter than the header");
	vf_arp_init(mad, VF_ARP_GET, 1, VF_ARP_NEIGHBORS, 0, 0);
	EQ_U(vf_arp_check_request(mad, 256, &h), VF_ARP_OK, "Get ARNeighbors is fine");
	vf_arp_init(mad, VF_ARP_SET, 1, VF_ARP_NEIGHBORS, 0, 0);
	EQ_U(vf_arp_check_request(mad, 256, &h), VF_ARP_OK, "Set ARNeighbors is fine");
	vf_arp_init(mad, VF_ARP_SET, 1, VF_ARP_LOST_ROUTES, 0, 0);
	EQ_U(vf_arp_check_request(mad, 256, &h), VF_ARP_OK, "Set ARLostRoutes is fine");
	vf_arp_init(mad, VF_ARP_GET, 1, VF_ARP_LOST_ROUTES, 0, 0);
	EQ_U(vf_arp_check_request(mad, 256, &h), VF_ARP_BAD_ATTR, "Get ARLostRoutes: a notice, not a table");
}

static void test_control_info(void)
{
	uint8_t mad[VF_ARP_MAD_SIZE];
	struct vf_arp_control c = { .enable = true, .pause = true,
				    .lost_route_only = true, .algorithm = 2,
				    .frequency = 4, .threshold = 3,
				    .group_top = 0x0102, .lid_top = 0x00a0b0c0 }, d;
	struct vf_arp_info i = { .supported = true, .num_ports = 36,
				 .group_cap = 255, .lid_cap = 8192,
				 .groups_per_block = 4, .lids_per_block = 64,
				 .active_generation = 7,
				 .pending_generation = 8 }, j;

	vf_arp_init(mad, VF_ARP_SET, 1, VF_ARP_CONTROL, 0, 0);
	vf_arp_put_control(mad, &c);
	OK(tap_bytes_are(mad + 32, "07 02 04 03 0102 0000 00a0b0c0"),
	   "ARControl: flags (enable, pause, lost_route_only), algorithm, frequency, threshold, group top, LID top");
	vf_arp_get_control(mad, &d);
	OK(!memcmp(&c, &d, sizeof(c)), "ARControl decodes back");
	i.control = c;
	vf_arp_init(mad, VF_ARP_GET_RESP, 1, VF_ARP_INFO, 0, 0);
	vf_arp_put_info(mad, &i);
	OK(tap_bytes_are(mad + 32, "01 24 00ff 00002000 04 40 0000 00000007 00000008 07020403 01020000 00a0b0c0"),
	   "ARInfo: supported, ports, group cap, LID cap, block sizes, generations, control");
	vf_arp_get_info(mad, &j);
	OK(!memcmp(&i, &j, sizeof(i)), "ARInfo decodes back");
}

static void test_tables(void)
{
	uint8_t mad[VF_ARP_MAD_SIZE], g[64], h[64];
	struct vf_ar_mask m[4] = { { { 0 } } }, n[4];
	uint32_t l[32], k[32];

	m[0].w[0] = 1 | 1ull << 8;		/* ports 1 and 9 */
	m[1].w[3] = 1ull << 63;			/* port 256 */
	m[3].w[1] = 1;				/* port 65 */
	vf_arp_init(mad, VF_ARP_SET, 1, VF_ARP_GROUPS, 3, 1);
	vf_arp_put_groups(mad, m, 4);
	OK(tap_bytes_are(mad + 32 + 30, "0101") && zero_from(mad, 32, 32 + 30),
	   "PortGroup mask 0: ports 1 and 9 in the last two bytes");
	OK(tap_bytes_are(mad + 64, "80") && zero_from(mad, 65, 96),
	   "mask 1: port 256 is the top bit of its first byte");
	OK(zero_from(mad, 96, 128), "mask 2 empty");
	OK(tap_bytes_are(mad + 128 + 23, "01") && zero_from(mad, 128, 151) &&
	   zero_from(mad, 152, 256), "mask 3: port 65 in byte 23; nothing after the block");
	vf_arp_get_groups(mad, n);
	OK(!memcmp(m, n, sizeof(m)), "PortGroup block decodes back");
	vf_arp_init(mad, VF_ARP_SET, 1, VF_ARP_GROUPS, 0, 1);
	vf_arp_put_groups(mad, m, 1);
	OK(zero_from(mad, 64, 256), "a short block leaves the other masks 0");

	for (unsigned i = 0; i < 64; i++)
		g[i] = i % 3 ? (uint8_t)i : 0xff;
	vf_arp_init(mad, VF_ARP_SET, 1, VF_ARP_LIDS, 2, 1);
	vf_arp_put_lids(mad, g);
	OK(tap_bytes_are(mad + 32, "ff0102ff0405") && mad[32 + 63] == 0xff &&
	   zero_from(mad, 96, 256), "PortGroupLid block: one byte per LID at 32..95");
	vf_arp_get_lids(mad, h);
	OK(!memcmp(g, h, 64), "PortGroupLid block decodes back");

	for (unsigned i = 0; i < 32; i++)
		l[i] = i * 2 | (i == 5 ? VF_ARP_LOAD_DOWN : 0);
	vf_arp_init(mad, VF_ARP_SET, 1, VF_ARP_LOAD, 0, 0);
	vf_arp_put_loads(mad, l);
	OK(tap_bytes_are(mad + 32, "00000000 00000002") &&
	   tap_bytes_are(mad + 52, "8000000a") && tap_bytes_are(mad + 156, "0000003e") &&
	   zero_from(mad, 160, 256),
	   "ARPortLoad: 32 big-endian words, bit 31 down, the last at 156");
	vf_arp_get_loads(mad, k);
	OK(!memcmp(l, k, sizeof(l)), "ARPortLoad decodes back");
}

static void test_notify(void)
{
	uint8_t mad[VF_ARP_MAD_SIZE];
	uint16_t n[64] = { 0 }, m[64];
	struct vf_arp_lost l = { .sender = 0x1234 }, k;
	char an[8];

	n[0] = 0x0102;				/* port 64 of block 1 */
	n[1] = 0xbfff;
	n[63] = 7;
	vf_arp_init(mad, VF_ARP_SET, 1, VF_ARP_NEIGHBORS, 1, 3);
	vf_arp_put_neighbors(mad, n);
	OK(tap_bytes_are(mad + 32, "0102 bfff 0000") && tap_bytes_are(mad + 158, "0007") &&
	   zero_from(mad, 160, 256), "ARNeighbors: 64 big-endian LIDs at 32..159");
	vf_arp_get_neighbors(mad, m);
	OK(!memcmp(n, m, sizeof(n)), "ARNeighbors decodes back");
	EQ_U(vf_arp_check_neighbors(1, 127, n), VF_ARP_OK, "ARNeighbors block 1 of a 127-port switch");
	EQ_U(vf_arp_check_neighbors(1, 100, n), VF_ARP_BAD_FIELD, "a neighbor on port 127 of a 100-port switch");
	EQ_U(vf_arp_check_neighbors(1, 100, NULL), VF_ARP_OK, "Get block 1 of a 100-port switch");
	EQ_U(vf_arp_check_neighbors(1, 36, NULL), VF_ARP_BAD_FIELD, "block 1 of a 36-port switch");
	EQ_U(vf_arp_check_neighbors(4, 255, NULL), VF_ARP_BAD_FIELD, "block 4: past port 255");
	n[1] = 0xc000;
	EQ_U(vf_arp_check_neighbors(1, 127, n), VF_ARP_BAD_FIELD, "a multicast LID as a neighbor");

	l.restored = true;
	vf_arp_lost_add(&l, 0);
	vf_arp_lost_add(&l, 9);
	vf_arp_lost_add(&l, 1023);
	vf_arp_lost_add(&l, 1024);		/* past the block: ignored */
	vf_arp_init(mad, VF_ARP_SET, 1, VF_ARP_LOST_ROUTES, 2, 0);
	vf_arp_put_lost(mad, &l);
	OK(tap_bytes_are(mad + 32, "01 00 1234") && zero_from(mad, 36, 48) &&
	   tap_bytes_are(mad + 48, "0102") && tap_bytes_are(mad + 175, "80") &&
	   zero_from(mad, 50, 175) && zero_from(mad, 176, 256),
	   "ARLostRoutes: restored, sender, bitmap of 1024 LIDs at 48..175");
	vf_arp_get_lost(mad, &k);
	OK(!memcmp(&l, &k, sizeof(l)), "ARLostRoutes decodes back");
	OK(vf_arp_lost_has(&k, 9) && !vf_arp_lost_has(&k, 8) &&
	   vf_arp_lost_has(&k, 1023) && !vf_arp_lost_has(&k, 1024),
	   "ARLostRoutes bitmap: LID 1024b+8i+j is bit j of byte i");
	EQ_U(vf_arp_check_lost(2, 8192, &l), VF_ARP_OK, "LIDs 2048-3071 on a switch of 8192");
	EQ_U(vf_arp_check_lost(8, 8192, &l), VF_ARP_BAD_FIELD, "block 8 past 8192 LIDs");
	EQ_U(vf_arp_check_lost(48, 0xC000, &l), VF_ARP_BAD_FIELD, "block 48: multicast LIDs");
	l.sender = 0;
	EQ_U(vf_arp_check_lost(0, 8192, &l), VF_ARP_BAD_FIELD, "no sender LID");
	OK(!strcmp(vf_arp_attr_name(VF_ARP_NEIGHBORS, an), "ARNeighbors") &&
	   !strcmp(vf_arp_attr_name(VF_ARP_LOST_ROUTES, an), "ARLostRoutes"),
	   "the two new attributes have names");
}

static void test_select_lost(void)
{
	struct vf_arsel_params p = { .algorithm = VF_AR_GREEDY, .threshold = 3 };
	struct vf_arsel_port ports[9] = { { 0 } };
	struct vf_arsel_flow fl = { 0 };
	struct vf_ar_mask g = { { 0 } }, lost = { { 0 } };
	uint32_t rng = 7, before;
	unsigned seen[9] = { 0 };

	g.w[0] = 1u << 4 | 1u << 5 | 1u << 6;	/* ports 5, 6, 7 */
	ports[6].load = 30;
	ports[7].load = 10;
	EQ_U(vf_arsel_choose_lost(&p, &g, 5, ports, 8, &lost, NULL, 0, &rng), 5,
	     "nothing lost: the static port");
	EQ_U(vf_arsel_choose_lost(&p, &g, 5, ports, 8, NULL, NULL, 0, &rng), 5,
	     "no lost mask: as vf_arsel_choose");
	lost.w[0] = 1u << 4;			/* port 5 lost for this LID */
	EQ_U(vf_arsel_choose_lost(&p, &g, 5, ports, 8, &lost, NULL, 0, &rng), 7,
	     "static port lost: Greedy moves to the least loaded member");
	lost.w[0] |= 1u << 6;			/* and 7 */
	EQ_U(vf_arsel_choose_lost(&p, &g, 5, ports, 8, &lost, NULL, 0, &rng), 6,
	     "a lost member is never picked, even the least loaded");
	ports[6].down = true;
	EQ_U(vf_arsel_choose_lost(&p, &g, 5, ports, 8, &lost, NULL, 0, &rng), 5,
	     "every member lost or down: the flow stays");
	ports[6].down = false;
	EQ_U(vf_arsel_choose_lost(&p, NULL, 5, ports, 8, &lost, NULL, 0, &rng), 5,
	     "no group: the static port even when lost (nothing to choose)");
	lost.w[0] = 1u << 4;
	p.lost_route_only = true;
	EQ_U(vf_arsel_choose_lost(&p, &g, 5, ports, 8, &lost, &fl, 1000, &rng), 7,
	     "LostRouteOnly: a lost port moves at once");
	p.frequency = 7;
	EQ_U(vf_arsel_choose_lost(&p, &g, 5, ports, 8, &lost, &fl, 1001, &rng), 7,
	     "the flow stays where it moved");
	lost.w[0] = 1u << 6;			/* now 7 is lost, 5 is not */
	EQ_U(vf_arsel_choose_lost(&p, &g, 5, ports, 8, &lost, &fl, 1002, &rng), 5,
	     "its new port lost: it moves again at once, whatever ARFrequency");
	lost.w[0] = 1u << 4;
	EQ_U(vf_arsel_choose(&p, &g, 5, ports, 8, &fl, 1003, &rng), 5,
	     "the lost mask is per call: without it port 5 is fine");
	p.lost_route_only = false;
	p.algorithm = VF_AR_RANDOM;
	lost.w[0] = 1u << 4 | 1u << 5;		/* 5 and 6 lost */
	before = rng;
	for (unsigned i = 0; i < 50; i++)
		seen[vf_arsel_choose_lost(&p, &g, 5, ports, 8, &lost, NULL, 0,
					  &rng)]++;
	EQ_U(seen[7], 50, "Random: only the member that is not lost");
	rng = before;
	OK(vf_arsel_choose_lost(&p, &g, 5, ports, 8, &lost, NULL, 0, &rng) == 7 &&
	   rng != before, "reproducible: the same random state, the same choice");
}

static void test_select(void)
{
	struct vf_arsel_params p = { .algorithm = VF_AR_GREEDY, .threshold = 3 };
	struct vf_arsel_port ports[9] = { { 0 } };
	struct vf_arsel_flow fl = { 0 };
	struct vf_ar_mask g = { { 0 } };
	uint32_t rng = 7;
	unsigned seen[9] = { 0 };

	g.w[0] = 1u << 4 | 1u << 5 | 1u << 6;	/* ports 5, 6, 7 */
	EQ_U(vf_arsel_threshold_pct(3), 80, "threshold 3 = 80%");
	EQ_U(vf_arsel_threshold_pct(0), 80, "threshold 0 = the default");
	EQ_U(vf_arsel_threshold_pct(7), 55, "threshold 7 = 55%");
	EQ_U(vf_arsel_interval_ms(4), 1024, "ARFrequency 4 = 1024 ms");
	EQ_U(vf_arsel_choose(&p, NULL, 5, ports, 8, NULL, 0, &rng), 5,
	     "no group: the static port");
	EQ_U(vf_arsel_choose(&p, &g, 2, ports, 8, NULL, 0, &rng), 2,
	     "static port outside the group: static");
	EQ_U(vf_arsel_choose(&p, &g, 5, ports, 8, NULL, 0, &rng), 5,
	     "not congested: the static port");
	ports[5].load = 90;
	ports[6].load = 50;
	ports[7].load = 20;
	EQ_U(vf_arsel_choose(&p, &g, 5, ports, 8, NULL, 0, &rng), 7,
	     "Greedy: the least loaded member");
	ports[7].down = true;
	EQ_U(vf_arsel_choose(&p, &g, 5, ports, 8, NULL, 0, &rng), 6,
	     "Greedy skips a member that is down");
	ports[7].down = false;
	p.lost_route_only = true;
	EQ_U(vf_arsel_choose(&p, &g, 5, ports, 8, NULL, 0, &rng), 5,
	     "LostRouteOnly: congestion alone does not move");
	ports[5].down = true;
	EQ_U(vf_arsel_choose(&p, &g, 5, ports, 8, NULL, 0, &rng), 7,
	     "LostRouteOnly: a lost port moves (greedy: least loaded)");
	ports[5].down = false;
	p.lost_route_only = false;
	p.algorithm = VF_AR_GREEDY_RANDOM;
	ports[6].load = 85;
	for (unsigned i = 0; i < 50; i++)
		seen[vf_arsel_choose(&p, &g, 5, ports, 8, NULL, 0, &rng)]++;
	EQ_U(seen[7], 50, "GreedyRandom: only members below the threshold");
	p.algorithm = VF_AR_RANDOM;
	memset(seen, 0, sizeof(seen));
	for (unsigned i = 0; i < 200; i++)
		seen[vf_arsel_choose(&p, &g, 5, ports, 8, NULL, 0, &rng)]++;
	OK(seen[6] > 50 && seen[7] > 50 && !seen[5],
	   "Random: both other members, never the congested one");
	p.algorithm = VF_AR_GREEDY;
	p.frequency = 1;			/* 128 ms */
	EQ_U(vf_arsel_choose(&p, &g, 5, ports, 8, &fl, 1000, &rng), 5,
	     "ARFrequency: a new flow does not move at once");
	EQ_U(vf_arsel_choose(&p, &g, 5, ports, 8, &fl, 1100, &rng), 5,
	     "ARFrequency: nor before the interval");
	EQ_U(vf_arsel_choose(&p, &g, 5, ports, 8, &fl, 1128, &rng), 7,
	     "ARFrequency: it moves once the interval is over");
	EQ_U(vf_arsel_choose(&p, &g, 5, ports, 8, &fl, 1129, &rng), 7,
	     "the flow stays where it moved");
	ports[7].down = true;
	EQ_U(vf_arsel_choose(&p, &g, 5, ports, 8, &fl, 1130, &rng), 6,
	     "a lost port moves at once, whatever ARFrequency");
}

/* The AR_Key at bytes 192-199, ARKeyInfo, ARInfo's key flags, and who
 * may ask what (docs/ar-protocol.md, docs/threat-model.md). */
static void test_key(void)
{
	const uint64_t key = 0x0102030405060708ull;
	uint8_t mad[VF_ARP_MAD_SIZE];
	struct vf_arp_keyinfo k = { .key = key, .lease_s = 0x3c,
				    .lease_left_s = 0x0a, .refused = 0x0b }, k2;
	struct vf_arp_info i = { .supported = true, .key_set = true }, j;
	struct vf_arp_hdr set_ctl = { .method = VF_ARP_SET,
				      .attr_id = VF_ARP_CONTROL };
	struct vf_arp_hdr notice = { .method = VF_ARP_SET,
				     .attr_id = VF_ARP_LOST_ROUTES };
	struct vf_arp_hdr get = { .method = VF_ARP_GET,
				  .attr_id = VF_ARP_KEY_INFO };
	struct vf_arp_hdr load = { .method = VF_ARP_SET,
				   .attr_id = VF_ARP_LOAD };
	struct vf_mkey m = { 0 };

	vf_arp_init(mad, VF_ARP_SET, 1, VF_ARP_KEY_INFO, 0, 0);
	vf_arp_put_key(mad, key);
	OK(tap_bytes_are(mad + 192, "0102030405060708") &&
	   zero_from(mad, 200, VF_ARP_MAD_SIZE) && vf_arp_get_key(mad) == key,
	   "AR_Key: big-endian at bytes 192-199, nothing after");
	vf_arp_put_keyinfo(mad, &k);
	OK(tap_bytes_are(mad + 32, "0102030405060708 003c 000a 0000000b"),
	   "ARKeyInfo: key, lease, lease left, refused");
	vf_arp_get_keyinfo(mad, &k2);
	OK(k2.key == key && k2.lease_s == 60 && k2.lease_left_s == 10 &&
	   k2.refused == 11, "ARKeyInfo decodes back");
	EQ_U(vf_arp_check_request(mad, VF_ARP_USED, &set_ctl), VF_ARP_OK,
	     "ARKeyInfo Set is a known request");
	vf_arp_put_info(mad, &i);
	OK(mad[32] == 0x03, "ARInfo flags: supported, key set");
	i.key_match = true;
	vf_arp_put_info(mad, &i);
	vf_arp_get_info(mad, &j);
	OK(mad[32] == 0x07 && j.key_set && j.key_match,
	   "ARInfo flags: key carried by the Get");

	/* no key held: the master SM's port only */
	EQ_U(vf_arp_authorize(&set_ctl, false, 0, &m, 0), VF_ARP_NOT_SM,
	     "no key: a Set from another port is not the SM's");
	EQ_U(vf_arp_authorize(&set_ctl, true, 99, &m, 0), VF_ARP_OK,
	     "no key: the SM's Set passes, whatever it carries");
	EQ_U(vf_arp_authorize(&notice, false, 0, &m, 0), VF_ARP_OK,
	     "no key: a notice passes (the SLID checks follow)");
	vf_mkey_set(&m, key, 5);
	EQ_U(vf_arp_authorize(&set_ctl, true, key, &m, 100), VF_ARP_OK,
	     "key held: the SM's Set with it passes");
	EQ_U(vf_arp_authorize(&set_ctl, false, key, &m, 100), VF_ARP_NOT_SM,
	     "key held: the key from another port does not make it the SM");
	EQ_U(vf_arp_authorize(&notice, false, 1, &m, 100), VF_ARP_BAD_KEY,
	     "key held: a notice without it is refused");
	EQ_U(vf_arp_authorize(&get, false, 0, &m, 100) |
	     vf_arp_authorize(&load, false, 0, &m, 100), VF_ARP_OK,
	     "key held: Gets and ARPortLoad stay open");
	OK(m.refused == 1 && !m.lease_end_ms,
	   "a refused notice is counted and starts no lease");
	EQ_U(vf_arp_authorize(&set_ctl, true, 1, &m, 1000), VF_ARP_BAD_KEY,
	     "key held: the SM's Set without it is refused");
	OK(m.refused == 2 && m.lease_end_ms == 6000 &&
	   vf_mkey_lease_left_s(&m, 1000) == 5,
	   "... counted, and the lease (5 s) starts");
	vf_arp_authorize(&set_ctl, true, 1, &m, 3000);
	OK(m.lease_end_ms == 6000, "another refusal does not restart it");
	OK(!vf_mkey_expire(&m, 5999) && m.key == key,
	   "the key is kept until the lease's end");
	OK(vf_mkey_expire(&m, 6000) && m.key == 0,
	   "at its end the key lapses");
	EQ_U(vf_arp_authorize(&set_ctl, true, 7, &m, 6001), VF_ARP_OK,
	     "then the new master SM's Set passes");
	vf_mkey_set(&m, key, 5);
	vf_arp_authorize(&set_ctl, true, 1, &m, 100);
	vf_arp_authorize(&set_ctl, true, key, &m, 200);
	OK(!m.lease_end_ms && !vf_mkey_expire(&m, 100000) && m.key == key,
	   "a Set with the key from the SM stops a running lease");
	vf_mkey_set(&m, key, 0);
	vf_arp_authorize(&set_ctl, true, 1, &m, 100);
	OK(!m.lease_end_ms && !vf_mkey_expire(&m, ~0ull >> 1),
	   "lease 0: the key never lapses");
}

int main(void)
{
	test_header();
	test_key();
	test_checks();
	test_control_info();
	test_tables();
	test_select();
	test_notify();
	test_select_lost();
	return tap_done();
}
