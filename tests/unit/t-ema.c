// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The Ethernet management protocol (vnic/ema.h, vnic/ema-agent.h,
 * docs/ema-protocol.md): every attribute at its hand-computed byte
 * offsets and back, the range checks, the agent's behaviour one rule at
 * a time (POD, creation, delete, MAC slices, lists, state machine,
 * traps and their rate limit, each malformed request's status), and
 * random, truncated and mutated MADs that must never crash it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnic/ema-agent.h"
#include "vnic/ema.h"
#include "vnic/encap.h"
#include "taptest.h"

#define D VF_EMA_DATA
#define FULL VF_EMA_MAD_SIZE
#define SM_LID 1
#define HOST_LID 9

/* Requests come from the master SM's port unless a test says otherwise. */
static struct vf_ema_src req_src = { .slid = SM_LID, .sm_lid = SM_LID };

/* p holds the bytes of hex (pairs of digits, spaces between ignored). */
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

static int zero_from(const uint8_t *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (p[i])
			return 0;
	return 1;
}

static uint16_t status_of(const uint8_t *mad)
{
	return (uint16_t)(mad[4] << 8 | mad[5]);
}

static struct vf_vport *new_vport(void)
{
	struct vf_vport *v = calloc(1, sizeof(*v));

	if (!v)
		abort();
	return v;
}

static void test_header(void)
{
	uint8_t mad[FULL];
	struct vf_ema_hdr h;

	memset(mad, 0xee, sizeof(mad));
	vf_ema_init(mad, VF_EMA_SET, 0x0102030405060708ull,
		    VF_EMA_VESWPORT_INFO, vf_ema_amod(3, 1));
	OK(bytes_are(mad, "01 3b 01 02 0000 0000 0102030405060708 0011 0000 00000103"),
	   "header: base 1, class 0x3B, class version 1, method, TID, attribute, modifier (part 1, vport 3)");
	OK(zero_from(mad, 24, 37) && bytes_are(mad + 37, "00066a"),
	   "RMPP header and byte 36 zero, OUI 00-06-6A at 37-39");
	OK(zero_from(mad, 40, FULL), "init zeroes the data and the unused tail");
	vf_ema_put_status(mad, VF_EMA_BAD_FIELD);
	OK(bytes_are(mad + 4, "001c"), "status at byte 4");
	EQ_U(vf_ema_get_hdr(mad, FULL, &h), VF_EMA_OK, "our header parses");
	EQ_U(h.tid, 0x0102030405060708ull, "TID decoded");
	EQ_U(h.attr_mod, 0x103, "modifier decoded");
	EQ_U(h.status, VF_EMA_BAD_FIELD, "status decoded");
	EQ_U(h.oui, VF_EMA_OUI, "OUI decoded");
	EQ_U(VF_EMA_DATA_SIZE, 184, "184 bytes of data: umad2sim's 224 less the 40-byte header");
	EQ_U(VF_EMA_MACS_PER_MAD, 11, "11 MAC entries per MAD");
	EQ_U(VF_EMA_LIST_PER_MAD, 29, "29 list MACs per MAD");
	OK(vf_16b_size(VF_EMA_MAX_MTU + 18) <= VF_16B_MAX_LEN &&
	   vf_16b_size(VF_EMA_MAX_MTU + 19) > VF_16B_MAX_LEN,
	   "VF_EMA_MAX_MTU is the largest MTU a 16B packet holds");
}

static void test_hdr_checks(void)
{
	uint8_t mad[FULL];
	struct vf_ema_hdr h;

	vf_ema_init(mad, VF_EMA_GET, 1, VF_EMA_CLASS_PORT_INFO, 0);
	EQ_U(vf_ema_get_hdr(mad, 23, &h), VF_EMA_BAD_FIELD, "shorter than the common header");
	EQ_U(vf_ema_get_hdr(mad, 39, &h), VF_EMA_BAD_FIELD, "shorter than header and OUI");
	EQ_U(h.tid, 1, "...but what is there is read");
	mad[0] = 2;
	EQ_U(vf_ema_get_hdr(mad, FULL, &h), VF_EMA_BAD_VERSION, "base version 2");
	mad[0] = 1;
	mad[2] = 0x80;
	EQ_U(vf_ema_get_hdr(mad, FULL, &h), VF_EMA_BAD_VERSION, "class version 0x80 (Omni-Path's)");
	mad[2] = 1;
	mad[1] = 0x34;
	EQ_U(vf_ema_get_hdr(mad, FULL, &h), VF_EMA_BAD_ATTR, "class 0x34 (Omni-Path's)");
	mad[1] = VF_EMA_CLASS;
	mad[39] = 0x6b;
	EQ_U(vf_ema_get_hdr(mad, FULL, &h), VF_EMA_BAD_ATTR, "another OUI");
	mad[39] = 0x6a;
	EQ_U(vf_ema_check_request(mad, FULL, &h), VF_EMA_OK, "Get ClassPortInfo is a request");
	mad[3] = 0x03;
	EQ_U(vf_ema_check_request(mad, FULL, &h), VF_EMA_BAD_METHOD, "method Send");
	vf_ema_init(mad, VF_EMA_SET, 1, VF_EMA_IFACE_UCAST_MACS, 0);
	EQ_U(vf_ema_check_request(mad, FULL, &h), VF_EMA_BAD_ATTR, "Set of a Get-only list");
	vf_ema_init(mad, VF_EMA_SET, 1, VF_EMA_SUMMARY_COUNTERS, 0);
	EQ_U(vf_ema_check_request(mad, FULL, &h), VF_EMA_BAD_ATTR, "Set of counters");
	vf_ema_init(mad, VF_EMA_GET, 1, VF_EMA_DELETE_VESW, 0);
	EQ_U(vf_ema_check_request(mad, FULL, &h), VF_EMA_BAD_ATTR, "Get of the Set-only delete");
	vf_ema_init(mad, VF_EMA_GET, 1, VF_EMA_NOTICE, 0);
	EQ_U(vf_ema_check_request(mad, FULL, &h), VF_EMA_BAD_ATTR, "Get Notice");
	vf_ema_init(mad, VF_EMA_GET, 1, 0x0021, 0);
	EQ_U(vf_ema_check_request(mad, FULL, &h), VF_EMA_BAD_ATTR, "unknown attribute 0x0021");
}

static void test_cpi(void)
{
	uint8_t mad[FULL];
	struct vf_ema_cpi c, back;

	memset(&c, 0, sizeof(c));	/* padding too: compared whole */
	c.base_version = 1;
	c.class_version = 1;
	c.cap_mask = 0x0801;
	c.cap_mask2 = 0x1234;
	c.resp_time = 18;
	c.trap_lid = 0x12;
	c.trap_qkey = 0x80010000;
	c.trap_pkey = 0xffff;
	c.trap_sl = 5;
	c.trap_gid[15] = 0x99;
	vf_ema_init(mad, VF_EMA_SET, 1, VF_EMA_CLASS_PORT_INFO, 0);
	vf_ema_put_cpi(mad, &c);
	OK(bytes_are(mad + D, "01 01 0801 00024692"),
	   "versions, cap mask, cap mask 2 << 5 | resp time 18");
	OK(bytes_are(mad + D + 40, "00000000000000000000000000000099"), "trap GID at 40");
	OK(bytes_are(mad + D + 60, "00000012 00000000 80010000 ffff 0000 28"),
	   "trap LID at 60, Q_Key 68, P_Key 72, SL 5 in bits 7-3 of 76");
	OK(zero_from(mad, D + 77, FULL), "nothing after the 80 bytes");
	memset(&back, 0, sizeof(back));
	EQ_U(vf_ema_get_cpi(mad, FULL, &back), VF_EMA_OK, "decodes");
	OK(!memcmp(&c, &back, sizeof(c)), "ClassPortInfo round trip");
	EQ_U(vf_ema_get_cpi(mad, D + 79, &back), VF_EMA_BAD_FIELD, "79 bytes: short");
	mad[D + 62] = 0xc0;
	EQ_U(vf_ema_get_cpi(mad, FULL, &back), VF_EMA_BAD_FIELD, "trap LID 0xC012: multicast");
}

static void fill_vesw(struct vf_vesw *v)
{
	memset(v, 0, sizeof(*v));
	v->fabric_id = 0x301;
	v->vesw_id = 2;
	v->def_port_mask = 0x0005;
	v->pkey = 0x8001;
	v->u_mcast_dlid = 0xf00001;
	v->u_ucast_dlid[0] = 7;
	v->u_ucast_dlid[15] = 0xabcdef;
	v->rc = 0x01234567;
	v->eth_mtu = 1500;
}

static void test_vesw(void)
{
	uint8_t mad[FULL];
	struct vf_vesw v, back;

	fill_vesw(&v);
	vf_ema_init(mad, VF_EMA_SET, 1, VF_EMA_VESWPORT_INFO, 0);
	vf_ema_put_vesw(mad, &v);
	OK(bytes_are(mad + D, "0301 0002 000000000000 0005 0000 8001 00000000 00f00001 00000007"),
	   "fabric, vESW id, reserved, def port mask at 10, pkey at 14, mcast DLID at 20, ucast DLID 0 at 24");
	OK(bytes_are(mad + D + 84, "00abcdef 01234567"), "ucast DLID 15 at 84, rc at 88");
	OK(zero_from(mad, D + 92, D + 148) && bytes_are(mad + D + 148, "05dc 0000"),
	   "reserved 92-147, eth_mtu at 148");
	OK(zero_from(mad, D + 152, FULL), "152 bytes, nothing after");
	memset(&back, 0, sizeof(back));
	EQ_U(vf_ema_get_vesw(mad, FULL, &back), VF_EMA_OK, "decodes");
	OK(!memcmp(&v, &back, sizeof(v)), "vESW part round trip");
	EQ_U(vf_ema_get_vesw(mad, D + 151, &back), VF_EMA_BAD_FIELD, "151 bytes: short");
	v.fabric_id = 0x400;
	vf_ema_put_vesw(mad, &v);
	EQ_U(vf_ema_get_vesw(mad, FULL, &back), VF_EMA_BAD_FIELD, "fabric id over 10 bits");
	fill_vesw(&v);
	v.vesw_id = 0x1000;
	vf_ema_put_vesw(mad, &v);
	EQ_U(vf_ema_get_vesw(mad, FULL, &back), VF_EMA_BAD_FIELD, "vESW id over 12 bits");
	fill_vesw(&v);
	v.u_ucast_dlid[9] = 0x1000000;
	vf_ema_put_vesw(mad, &v);
	EQ_U(vf_ema_get_vesw(mad, FULL, &back), VF_EMA_BAD_FIELD, "a default DLID over 24 bits");
	fill_vesw(&v);
	v.eth_mtu = VF_EMA_MAX_MTU + 1;
	vf_ema_put_vesw(mad, &v);
	EQ_U(vf_ema_get_vesw(mad, FULL, &back), VF_EMA_BAD_FIELD, "an MTU no 16B packet holds");
}

static void fill_vport(struct vf_vport *v)
{
	static const uint8_t mac[6] = { 0x06, 0x2c, 0x00, 0x05, 0x00, 0x00 };

	v->port_num = 0x01020304;
	v->eth_link_status = VF_VPORT_LINK_UP;
	memcpy(v->base_mac, mac, 6);
	v->config_state = VF_VPORT_FORWARDING;
	v->oper_state = VF_VPORT_FORWARDING;
	v->mac_tbl_digest = 0xcafef00d;
	v->encap_slid = 0x000005;
	for (unsigned i = 0; i < VF_VPORT_PCP; i++) {
		v->pcp_to_sc_uc[i] = (uint8_t)i;
		v->pcp_to_vl_uc[i] = (uint8_t)(8 + i);
		v->pcp_to_sc_mc[i] = (uint8_t)(16 + i);
		v->pcp_to_vl_mc[i] = (uint8_t)(24 + i);
	}
	v->non_vlan_sc_uc = 1;
	v->non_vlan_vl_uc = 2;
	v->non_vlan_sc_mc = 3;
	v->non_vlan_vl_mc = 31;
	v->uc_macs_gen_count = 0x1111;
	v->mc_macs_gen_count = 0x2222;
}

static void test_vport(void)
{
	uint8_t mad[FULL];
	struct vf_vport *v = new_vport(), *back = new_vport();
	struct vf_ema_limits lim;

	fill_vport(v);
	vf_ema_init(mad, VF_EMA_SET, 1, VF_EMA_VESWPORT_INFO, vf_ema_amod(0, 1));
	vf_ema_put_vport(mad, v);
	OK(bytes_are(mad + D, "01020304 01 000000 062c00050000 03 03 0800 0100 cafef00d 00000000 00000005"),
	   "port num, link status at 4, base MAC at 8, config/oper at 14/15, limits 2048/256 at 16, digest at 20, encap SLID at 28");
	OK(bytes_are(mad + D + 32, "0001020304050607 08090a0b0c0d0e0f 1011121314151617 18191a1b1c1d1e1f 0102031f"),
	   "PCP tables at 32, 40, 48, 56; non-VLAN SC/VL at 64-67");
	OK(zero_from(mad, D + 68, D + 116) && bytes_are(mad + D + 116, "1111 2222"),
	   "reserved 68-115, generation counts at 116 and 118");
	OK(zero_from(mad, D + 120, FULL), "128 bytes, nothing after");
	EQ_U(vf_ema_get_vport(mad, FULL, back, &lim), VF_EMA_OK, "decodes");
	OK(!memcmp(v, back, sizeof(*v)), "vport part round trip");
	OK(lim.max_mac_tbl_ent == 2048 && lim.max_smac_ent == 256, "limits decoded");
	EQ_U(vf_ema_get_vport(mad, D + 127, back, NULL), VF_EMA_BAD_FIELD, "127 bytes: short");
	mad[D + 14] = 4;
	EQ_U(vf_ema_get_vport(mad, FULL, back, NULL), VF_EMA_BAD_FIELD, "config state 4");
	mad[D + 14] = 3;
	mad[D + 37] = 32;
	EQ_U(vf_ema_get_vport(mad, FULL, back, NULL), VF_EMA_BAD_FIELD, "an SC of 32");
	mad[D + 37] = 5;
	mad[D + 28] = 1;
	EQ_U(vf_ema_get_vport(mad, FULL, back, NULL), VF_EMA_BAD_FIELD, "encap SLID over 24 bits");
	mad[D + 28] = 0;
	mad[D + 4] = 9;
	EQ_U(vf_ema_get_vport(mad, FULL, back, NULL), VF_EMA_OK, "a read-only field is not checked");
	free(v);
	free(back);
}

static void test_mac_entries(void)
{
	uint8_t mad[FULL];
	struct vf_ema_mac_slice s = { .offset = 2040, .num = 2,
				      .digest = 0xdeadbeef }, sb;
	struct vf_vport_mac e[2] = {
		{ { 2, 0, 0, 0, 0, 1 }, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		  0x123456u << 8 | VF_VPORT_SD_SMAC },
		{ { 0x0a, 0xbb, 0xcc, 0xdd, 0xee, 0xff }, { 0 }, 0x9u << 8 },
	}, eb[VF_EMA_MACS_PER_MAD];

	vf_ema_init(mad, VF_EMA_SET, 1, VF_EMA_MAC_ENTRIES, 0);
	vf_ema_put_mac_entries(mad, &s, e);
	OK(bytes_are(mad + D, "07f8 0002 deadbeef 020000000001 ffffffffffff 12345620"),
	   "offset, count, digest; entry: MAC, mask, DLID << 8 | SMAC bit");
	OK(bytes_are(mad + D + 24, "0abbccddeeff 000000000000 00000900"), "second entry at 24");
	OK(zero_from(mad, D + 40, FULL), "nothing after the entries");
	EQ_U(vf_ema_get_mac_entries(mad, FULL, &sb, eb), VF_EMA_OK, "decodes");
	OK(sb.offset == 2040 && sb.num == 2 && sb.digest == 0xdeadbeef &&
	   !memcmp(eb, e, sizeof(e)), "MAC entries round trip");
	EQ_U(vf_ema_get_mac_entries(mad, D + 39, &sb, eb), VF_EMA_BAD_FIELD,
	     "the second entry cut short");
	EQ_U(vf_ema_get_mac_entries(mad, D + 8, &sb, NULL), VF_EMA_OK,
	     "a Get request carries the header only");
	mad[D + 3] = 12;
	EQ_U(vf_ema_get_mac_entries(mad, FULL, &sb, NULL), VF_EMA_BAD_FIELD, "12 entries: more than a MAD holds");
	mad[D + 3] = 9;
	EQ_U(vf_ema_get_mac_entries(mad, FULL, &sb, NULL), VF_EMA_BAD_FIELD, "2040 + 9 is past the table");
	mad[D + 1] = 0xf5;	/* 2037 + 11 = 2048 */
	mad[D + 3] = 11;
	EQ_U(vf_ema_get_mac_entries(mad, FULL, &sb, eb), VF_EMA_OK, "2037 + 11 ends at the table's end");
}

static void test_mac_list(void)
{
	uint8_t mad[FULL];
	struct vf_ema_mac_list l = { .start_idx = 3, .num = 2, .total = 5,
				     .gen_count = 7 }, back;

	memcpy(l.macs[0], "\x01\x00\x5e\x00\x00\x01", 6);
	memcpy(l.macs[1], "\x33\x33\x00\x00\x00\x01", 6);
	vf_ema_init(mad, VF_EMA_GET_RESP, 1, VF_EMA_IFACE_MCAST_MACS, 0);
	vf_ema_put_mac_list(mad, &l);
	OK(bytes_are(mad + D, "0003 0002 0005 0007 01005e000001 333300000001"),
	   "start, count, total, generation, then 6-byte MACs");
	OK(zero_from(mad, D + 20, FULL), "nothing after");
	EQ_U(vf_ema_get_mac_list(mad, FULL, false, &back), VF_EMA_OK, "reply decodes");
	OK(!memcmp(&l, &back, sizeof(l)), "MAC list round trip");
	EQ_U(vf_ema_get_mac_list(mad, D + 19, false, &back), VF_EMA_BAD_FIELD, "a MAC cut short");
	EQ_U(vf_ema_get_mac_list(mad, D + 8, true, &back), VF_EMA_OK, "a request is the header only");
	mad[D + 5] = 4;
	EQ_U(vf_ema_get_mac_list(mad, FULL, false, &back), VF_EMA_BAD_FIELD, "start + count past the total");
	mad[D + 3] = 30;
	EQ_U(vf_ema_get_mac_list(mad, FULL, true, &back), VF_EMA_BAD_FIELD, "30 MACs: more than a MAD holds");
}

static void test_counters(void)
{
	uint8_t mad[FULL];
	struct vf_ema_ctr_id id = { 3, 0x123, 0x01020304 }, idb;
	struct vf_ema_summary s, sb;
	struct vf_ema_errors e, eb;
	uint64_t *w = (uint64_t *)&s;

	for (unsigned i = 0; i < sizeof(s) / 8; i++)
		w[i] = 0x0100000000000000ull * (i + 1) + i;
	vf_ema_init(mad, VF_EMA_GET_RESP, 1, VF_EMA_SUMMARY_COUNTERS, 0);
	EQ_U(vf_ema_put_summary(mad, 0, &id, &s), VF_EMA_OK, "summary part 0");
	OK(bytes_are(mad + D, "0003 0123 01020304 0100000000000000 0200000000000001"),
	   "prefix: vport index, vESW id, port number; tx_errors, rx_errors at 8");
	OK(bytes_are(mad + D + 176, "1600000000000015"),
	   "rx_64 (Omni-Path offset 176) ends part 0");
	EQ_U(vf_ema_get_summary(mad, FULL, 0, &idb, &sb), VF_EMA_OK, "part 0 decodes");
	vf_ema_init(mad, VF_EMA_GET_RESP, 1, VF_EMA_SUMMARY_COUNTERS, 0x100);
	EQ_U(vf_ema_put_summary(mad, 1, &id, &s), VF_EMA_OK, "summary part 1");
	OK(bytes_are(mad + D + 8, "1700000000000016") &&
	   bytes_are(mad + D + 48, "1c0000000000001b"),
	   "part 1: rx_65_127 (offset 184) at 8, rx_1519_max (224) at 48");
	OK(zero_from(mad, D + 56, FULL), "then the reserved bytes, 0");
	EQ_U(vf_ema_get_summary(mad, FULL, 1, &idb, &sb), VF_EMA_OK, "part 1 decodes");
	OK(!memcmp(&s, &sb, sizeof(s)) && idb.vp_instance == 3 &&
	   idb.vesw_id == 0x123 && idb.veswport_num == 0x01020304,
	   "both parts give every summary counter back");
	EQ_U(vf_ema_put_summary(mad, 2, &id, &s), VF_EMA_BAD_FIELD, "no part 2");
	EQ_U(vf_ema_get_summary(mad, D + 183, 1, &idb, &sb), VF_EMA_BAD_FIELD, "183 bytes: short");

	memset(&e, 0, sizeof(e));
	e.tx_dlid_zero = 0x64;
	e.rx_logic = 0xa0;
	e.rx_runt = 0x78;
	vf_ema_init(mad, VF_EMA_GET_RESP, 1, VF_EMA_ERROR_COUNTERS, 0);
	EQ_U(vf_ema_put_errors(mad, 0, &id, &e), VF_EMA_OK, "errors part 0");
	OK(bytes_are(mad + D + 64, "0000000000000064") &&
	   bytes_are(mad + D + 120, "0000000000000078") &&
	   bytes_are(mad + D + 160, "00000000000000a0"),
	   "tx_dlid_zero at 64, rx_runt at 120, rx_logic at 160: Omni-Path's offsets");
	memset(&eb, 0, sizeof(eb));
	EQ_U(vf_ema_get_errors(mad, FULL, 0, &idb, &eb), VF_EMA_OK, "decodes");
	OK(!memcmp(&e, &eb, sizeof(e)), "error counters round trip");
	vf_ema_init(mad, VF_EMA_GET_RESP, 1, VF_EMA_ERROR_COUNTERS, 0x100);
	EQ_U(vf_ema_put_errors(mad, 1, &id, &e), VF_EMA_OK, "errors part 1");
	OK(zero_from(mad, D + 8, FULL), "errors part 1: reserved only");
	EQ_U(vf_ema_get_errors(mad, D + 128, 1, &idb, &eb), VF_EMA_OK, "errors part 1 is 128 bytes");
	EQ_U(vf_ema_get_errors(mad, D + 127, 1, &idb, &eb), VF_EMA_BAD_FIELD, "127: short");
}

static void test_trap_codec(void)
{
	uint8_t mad[FULL];
	struct vf_ema_trap t = { .issuer_lid = 0x0a, .fabric_id = 0x301,
				 .vesw_id = 2, .port_num = 0x10,
				 .phys_port = 1, .vport_index = 3,
				 .opcode = VF_EMA_TRAP_LINK }, back;

	vf_ema_init(mad, VF_EMA_TRAP, 9, VF_EMA_NOTICE, 0);
	vf_ema_put_trap(mad, &t);
	OK(bytes_are(mad, "01 3b 01 05"), "a Trap of our class");
	OK(bytes_are(mad + D, "08 00066a 0000 0000 0000000a 00000000"),
	   "notice: type byte, OUI, trap number, toggle/count, issuer LID");
	OK(bytes_are(mad + D + 32, "0301 0002 00000010 0001 03 03 00000000"),
	   "payload at notice + 32: fabric, vESW, port num, physical port, index, opcode");
	OK(zero_from(mad, D + 48, FULL), "nothing after");
	EQ_U(vf_ema_get_trap(mad, FULL, &back), VF_EMA_OK, "decodes");
	OK(!memcmp(&t, &back, sizeof(t)), "trap round trip");
	EQ_U(vf_ema_get_trap(mad, D + 47, &back), VF_EMA_BAD_FIELD, "payload cut short");
	mad[D + 43] = 4;
	EQ_U(vf_ema_get_trap(mad, FULL, &back), VF_EMA_BAD_FIELD, "opcode 4");
	mad[D + 43] = 1;
	mad[D] = 0x04;
	EQ_U(vf_ema_get_trap(mad, FULL, &back), VF_EMA_BAD_FIELD, "another notice type");
}

/* ---- the agent ---- */

static uint8_t rq[FULL], rp[FULL];
static uint64_t next_tid = 0x100;

/* Start a request in rq. */
static void start(uint8_t method, uint16_t attr, uint32_t amod)
{
	vf_ema_init(rq, method, ++next_tid, attr, amod);
}

/* Send rq (len bytes) to a; the reply's status, 0xFFFF for none. */
static unsigned send_len(struct vf_ema_agent *a, size_t len)
{
	size_t n = vf_ema_agent_handle(a, rq, len, &req_src, rp, sizeof(rp));
	size_t echo = len < D ? len : D;
	size_t rmpp = VF_EMA_RMPP_OFF + VF_EMA_RMPP_SIZE;

	if (!n)
		return 0xFFFF;
	/*
	 * a proper echo: all but method and status as they came, and the
	 * RMPP bytes (where the key goes) 0
	 */
	if (n != FULL || rp[3] != VF_EMA_GET_RESP || memcmp(rp, rq, 3) ||
	    memcmp(rp + 6, rq + 6, (echo < 24 ? echo : 24) - 6) ||
	    !zero_from(rp, 24, rmpp) ||
	    (echo > rmpp && memcmp(rp + rmpp, rq + rmpp, echo - rmpp)))
		return 0xFFFE;
	return status_of(rp);
}

static unsigned send(struct vf_ema_agent *a)
{
	return send_len(a, VF_EMA_USED);
}

static struct vf_ema_agent *new_agent(unsigned nv)
{
	struct vf_ema_agent *a = malloc(sizeof(*a));

	if (!a || vf_ema_agent_init(a, 1, nv))
		abort();
	return a;
}

static void set_vesw(struct vf_ema_agent *a, unsigned i, uint16_t vesw_id)
{
	struct vf_vesw v;

	fill_vesw(&v);
	v.vesw_id = vesw_id;
	start(VF_EMA_SET, VF_EMA_VESWPORT_INFO, vf_ema_amod(i, 0));
	vf_ema_put_vesw(rq, &v);
}

static unsigned set_config(struct vf_ema_agent *a, unsigned i, uint8_t cfg)
{
	struct vf_vport *v = new_vport();
	unsigned st;

	fill_vport(v);
	v->config_state = cfg;
	start(VF_EMA_SET, VF_EMA_VESWPORT_INFO, vf_ema_amod(i, 1));
	vf_ema_put_vport(rq, v);
	free(v);
	st = send(a);
	return st;
}

static void test_agent_cpi(void)
{
	struct vf_ema_agent *a = new_agent(4), tmp;
	struct vf_ema_cpi c;

	EQ_U(vf_ema_agent_init(&tmp, 1, 0), -EINVAL, "no vports: refused");
	EQ_U(vf_ema_agent_init(&tmp, 1, VF_EMA_MAX_VPORTS + 1), -EINVAL, "more than the max: refused");
	start(VF_EMA_GET, VF_EMA_CLASS_PORT_INFO, 0);
	EQ_U(send(a), VF_EMA_OK, "Get ClassPortInfo");
	OK(bytes_are(rp + D, "01 01 0401 00000012"),
	   "versions 1/1, cap mask: 4 vports, traps; resp time 18");
	EQ_U(vf_ema_get_cpi(rp, FULL, &c), VF_EMA_OK, "reply decodes");
	EQ_U(c.trap_lid, 0, "no trap LID yet");
	memset(&c, 0, sizeof(c));
	c.trap_lid = 0x21;
	c.trap_sl = 3;
	c.trap_qkey = 0x80010000;
	start(VF_EMA_SET, VF_EMA_CLASS_PORT_INFO, 0);
	vf_ema_put_cpi(rq, &c);
	EQ_U(send(a), VF_EMA_OK, "Set ClassPortInfo");
	OK(bytes_are(rp + D, "01 01 0401") && bytes_are(rp + D + 60, "00000021") &&
	   rp[D + 76] == 3 << 3, "the reply is a Get: trap LID and SL stored");
	OK(a->cpi.trap_lid == 0x21 && a->cpi.trap_sl == 3, "the agent knows where traps go");
	c.trap_lid = 0xc001;
	start(VF_EMA_SET, VF_EMA_CLASS_PORT_INFO, 0);
	vf_ema_put_cpi(rq, &c);
	EQ_U(send(a), VF_EMA_BAD_FIELD, "Set with a multicast trap LID");
	OK(zero_from(rp, D, FULL), "an error carries no data");
	EQ_U(a->cpi.trap_lid, 0x21, "...and changes nothing");
	free(a);
}

static void test_agent_lifecycle(void)
{
	struct vf_ema_agent *a = new_agent(4);
	struct vf_vport *got = new_vport();
	struct vf_ema_limits lim;
	struct vf_vesw vesw, ref;

	start(VF_EMA_GET, VF_EMA_VESWPORT_INFO, vf_ema_amod(0, 1));
	EQ_U(send(a), VF_EMA_OK, "Get of a missing vport: not an error");
	vf_ema_get_vport(rp, FULL, got, &lim);
	OK(got->config_state == 1 && got->oper_state == 1 &&
	   got->eth_link_status == 0 && lim.max_mac_tbl_ent == 2048 &&
	   lim.max_smac_ent == 256, "POD: DROP_ALL/DROP_ALL, 2048/256");
	OK(zero_from(rp, D, D + 14) && zero_from(rp, D + 20, FULL),
	   "POD: everything else 0");
	start(VF_EMA_GET, VF_EMA_VESWPORT_INFO, vf_ema_amod(0, 0));
	EQ_U(send(a), VF_EMA_OK, "Get of a missing vport's vESW part");
	OK(zero_from(rp, D, FULL), "POD vESW part: all 0");
	OK(!vf_ema_agent_vport(a, 0), "a Get creates nothing");

	start(VF_EMA_GET, VF_EMA_VESWPORT_INFO, vf_ema_amod(4, 0));
	EQ_U(send(a), VF_EMA_BAD_FIELD, "index 4 of 4 vports");
	start(VF_EMA_GET, VF_EMA_VESWPORT_INFO, vf_ema_amod(0, 2));
	EQ_U(send(a), VF_EMA_BAD_FIELD, "part 2");
	start(VF_EMA_GET, VF_EMA_VESWPORT_INFO, 0x400);
	EQ_U(send(a), VF_EMA_BAD_FIELD, "a reserved modifier bit");
	start(VF_EMA_GET, VF_EMA_MAC_ENTRIES, 0);
	EQ_U(send(a), VF_EMA_BAD_FIELD, "MAC entries of a missing vport");
	start(VF_EMA_GET, VF_EMA_IFACE_UCAST_MACS, 0);
	EQ_U(send(a), VF_EMA_BAD_FIELD, "MAC list of a missing vport");
	start(VF_EMA_SET, VF_EMA_DELETE_VESW, 0);
	EQ_U(send(a), VF_EMA_BAD_FIELD, "delete of a missing vport");
	start(VF_EMA_GET, VF_EMA_SUMMARY_COUNTERS, 0);
	EQ_U(send(a), VF_EMA_BAD_FIELD, "counters of a missing vport");

	set_vesw(a, 2, 0x1000);
	EQ_U(send(a), VF_EMA_BAD_FIELD, "Set of a bad vESW part");
	OK(!vf_ema_agent_vport(a, 2), "...creates nothing");
	set_vesw(a, 1, 2);
	EQ_U(send(a), VF_EMA_OK, "Set of the vESW part");
	OK(vf_ema_agent_vport(a, 1) != NULL, "creates vport 1");
	fill_vesw(&ref);
	memset(&vesw, 0, sizeof(vesw));	/* padding: compared whole */
	EQ_U(vf_ema_get_vesw(rp, FULL, &vesw), VF_EMA_OK, "the reply is a Get of the part");
	OK(!memcmp(&vesw, &ref, sizeof(ref)), "...with what was set");
	start(VF_EMA_GET, VF_EMA_VESWPORT_INFO, vf_ema_amod(1, 1));
	EQ_U(send(a), VF_EMA_OK, "Get of the new vport's vport part");
	vf_ema_get_vport(rp, FULL, got, NULL);
	OK(got->config_state == 1 && got->oper_state == 1 &&
	   got->eth_link_status == VF_VPORT_LINK_DOWN,
	   "config processing ran: DROP_ALL, link down");

	EQ_U(set_config(a, 1, VF_VPORT_FORWARDING), VF_EMA_OK, "Set of the vport part, FORWARDING");
	vf_ema_get_vport(rp, FULL, got, NULL);
	OK(got->port_num == 0x01020304 && got->encap_slid == 5 &&
	   got->base_mac[1] == 0x2c && got->pcp_to_vl_mc[7] == 31 &&
	   got->non_vlan_vl_mc == 31, "the fields the EM writes are taken");
	OK(got->oper_state == 1 && got->eth_link_status == 2 &&
	   got->mac_tbl_digest == 0 && got->uc_macs_gen_count == 0,
	   "the read-only ones in the request are ignored (host down: DROP_ALL)");
	rq[D + 32] = 32;
	EQ_U(send(a), VF_EMA_BAD_FIELD, "Set with an SC of 32");
	EQ_U(vf_ema_agent_vport(a, 1)->pcp_to_sc_uc[0], 0, "...changes nothing");
	EQ_U(send_len(a, D + 100), VF_EMA_BAD_FIELD, "Set of the vport part cut short");

	EQ_U(vf_ema_agent_set_admin(a, 1, true, 0, rp, sizeof(rp)), 0,
	     "the host brings it up (no trap LID: no trap)");
	start(VF_EMA_GET, VF_EMA_VESWPORT_INFO, vf_ema_amod(1, 1));
	send(a);
	OK(rp[D + 15] == 3 && rp[D + 4] == 1, "FORWARDING + up: oper FORWARDING, link up");

	/* a table, then delete */
	{
		struct vf_ema_mac_slice s = { 0, 1, 0x77 };
		struct vf_vport_mac e = { { 2, 0, 0, 0, 0, 9 }, { 0 }, 9 << 8 };

		start(VF_EMA_SET, VF_EMA_MAC_ENTRIES, 1);
		vf_ema_put_mac_entries(rq, &s, &e);
		EQ_U(send(a), VF_EMA_OK, "a MAC entry before the delete");
	}
	start(VF_EMA_SET, VF_EMA_DELETE_VESW, vf_ema_amod(1, 1));
	EQ_U(send(a), VF_EMA_OK, "DELETE_VESW");
	OK(bytes_are(rp + 16, "0015"), "the reply echoes the attribute");
	vf_ema_get_vport(rp, FULL, got, &lim);
	OK(got->port_num == 0 && got->config_state == 1 && got->oper_state == 1 &&
	   got->eth_link_status == 2 && got->mac_tbl_digest == 0 &&
	   got->encap_slid == 0 && lim.max_mac_tbl_ent == 2048,
	   "the reply is the vport part at POD, config processed");
	OK(vf_ema_agent_vport(a, 1) && vf_ema_agent_vport(a, 1)->admin_up,
	   "the vport stays, so does the host's interface state");
	OK(zero_from((const uint8_t *)vf_ema_agent_vport(a, 1)->macs, 0,
		     sizeof(got->macs)), "the MAC table is empty");
	start(VF_EMA_SET, VF_EMA_DELETE_VESW, vf_ema_amod(1, 0));
	EQ_U(send(a), VF_EMA_OK, "DELETE_VESW asking for the vESW part");
	OK(zero_from(rp, D, FULL), "...all 0");
	free(got);
	free(a);
}

static void test_state_machine(void)
{
	static const struct {
		uint8_t cfg;
		bool up;
		uint16_t vesw;
		uint8_t oper, link;
		const char *what;
	} rows[] = {
		{ 3, true, 2, 3, 1, "FORWARDING, up: FORWARDING, link up" },
		{ 3, false, 2, 1, 2, "FORWARDING, down: DROP_ALL, link down" },
		{ 1, true, 2, 1, 2, "DROP_ALL, up: DROP_ALL, link down" },
		{ 2, true, 2, 1, 2, "INIT, up: DROP_ALL, link down" },
		{ 0, true, 2, 1, 2, "NOP, up: DROP_ALL, link down" },
		{ 3, true, 0, 1, 2, "FORWARDING, up, no vESW id: DROP_ALL" },
	};
	struct vf_vport *v = new_vport();

	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		v->config_state = rows[i].cfg;
		v->admin_up = rows[i].up;
		v->vesw.vesw_id = rows[i].vesw;
		vf_ema_vport_update_state(v);
		OK(v->oper_state == rows[i].oper &&
		   v->eth_link_status == rows[i].link, rows[i].what);
	}
	free(v);
}

static void test_agent_mac_table(void)
{
	struct vf_ema_agent *a = new_agent(2);
	struct vf_vport_mac e[3], got[VF_EMA_MACS_PER_MAD], z = { 0 };
	struct vf_ema_mac_slice s = { 10, 3, 0x1234 }, sb;

	set_vesw(a, 0, 2);
	send(a);
	for (unsigned i = 0; i < 3; i++) {
		memset(&e[i], 0, sizeof(e[i]));
		e[i].mac[0] = 2;
		e[i].mac[5] = (uint8_t)(i + 1);
		e[i].mask[0] = 0xff;
		e[i].dlid_sd = (100u + i) << 8;
	}
	start(VF_EMA_SET, VF_EMA_MAC_ENTRIES, 0);
	vf_ema_put_mac_entries(rq, &s, e);
	EQ_U(send(a), VF_EMA_OK, "Set of entries 10-12");
	EQ_U(vf_ema_get_mac_entries(rp, FULL, &sb, got), VF_EMA_OK, "the reply decodes");
	OK(sb.offset == 10 && sb.num == 3 && sb.digest == 0x1234 &&
	   !memcmp(got, e, sizeof(e)), "the reply is a Get of the slice, with the digest");
	start(VF_EMA_GET, VF_EMA_VESWPORT_INFO, vf_ema_amod(0, 1));
	send(a);
	OK(bytes_are(rp + D + 20, "00001234"), "the digest shows in the vport info");

	s.offset = 9;
	s.num = 5;
	start(VF_EMA_GET, VF_EMA_MAC_ENTRIES, 0);
	vf_ema_put_mac_entries(rq, &s, NULL);
	EQ_U(send(a), VF_EMA_OK, "Get of 9-13");
	vf_ema_get_mac_entries(rp, FULL, &sb, got);
	OK(!memcmp(&got[0], &z, sizeof(z)) && !memcmp(&got[1], e, sizeof(e)) &&
	   !memcmp(&got[4], &z, sizeof(z)), "unused indexes come back 0");

	s.offset = 11;
	s.num = 1;
	s.digest = 0x5678;
	memset(&e[0], 0, sizeof(e[0]));
	e[0].mask[0] = 0xff;	/* a zero MAC deletes, whatever else */
	e[0].dlid_sd = 5 << 8;
	start(VF_EMA_SET, VF_EMA_MAC_ENTRIES, 0);
	vf_ema_put_mac_entries(rq, &s, e);
	EQ_U(send(a), VF_EMA_OK, "Set of index 11 with an all-zero MAC");
	s.offset = 10;
	s.num = 3;
	start(VF_EMA_GET, VF_EMA_MAC_ENTRIES, 0);
	vf_ema_put_mac_entries(rq, &s, NULL);
	send(a);
	vf_ema_get_mac_entries(rp, FULL, &sb, got);
	OK(got[0].dlid_sd == 100 << 8 && !memcmp(&got[1], &z, sizeof(z)) &&
	   got[2].dlid_sd == 102 << 8 && sb.digest == 0x5678,
	   "11 deleted, 10 and 12 kept outside the slice, new digest");

	s.offset = 2047;
	s.num = 2;
	start(VF_EMA_SET, VF_EMA_MAC_ENTRIES, 0);
	vf_ema_put_mac_entries(rq, &s, e);
	rq[D + 8] = 2;
	EQ_U(send(a), VF_EMA_BAD_FIELD, "Set of 2047 + 2: past the table");
	OK(zero_from(rp, D, FULL), "no data in the error");
	EQ_U(a->slot[0].vport.mac_tbl_digest, 0x5678, "digest unchanged");
	s.offset = 0;
	s.num = 12;
	start(VF_EMA_GET, VF_EMA_MAC_ENTRIES, 0);
	vf_ema_put_mac_entries(rq, &s, NULL);
	rq[D + 3] = 12;
	EQ_U(send(a), VF_EMA_BAD_FIELD, "Get of 12 entries");
	s.num = 3;
	start(VF_EMA_SET, VF_EMA_MAC_ENTRIES, 0);
	vf_ema_put_mac_entries(rq, &s, e);
	rq[D + 8] = 0x42;
	EQ_U(send_len(a, D + 8 + 32), VF_EMA_BAD_FIELD, "Set of 3 entries with 2 in the MAD");
	EQ_U(a->slot[0].vport.macs[0].mac[0], 0, "...changes nothing");
	start(VF_EMA_GET, VF_EMA_MAC_ENTRIES, 0x100);
	EQ_U(send(a), VF_EMA_BAD_FIELD, "MAC entries have no parts");
	s.offset = 2037;
	s.num = 11;
	start(VF_EMA_GET, VF_EMA_MAC_ENTRIES, 0);
	vf_ema_put_mac_entries(rq, &s, NULL);
	EQ_U(send(a), VF_EMA_OK, "Get of the last 11 entries");
	free(a);
}

static void test_agent_lists(void)
{
	struct vf_ema_agent *a = new_agent(2);
	struct vf_ema_mac_list l;
	uint8_t uc[40][6], mc[3][6];
	int r;

	set_vesw(a, 0, 2);
	send(a);
	set_config(a, 0, VF_VPORT_DROP_ALL);	/* base MAC 06:2c:00:05:00:00 */
	for (unsigned i = 0; i < 40; i++) {
		static const uint8_t base[6] = { 6, 0x2c, 0, 5, 0, 0 };

		memcpy(uc[i], "\x00\x11\x22\x33\x44", 5);
		uc[i][5] = (uint8_t)i;
		if (i == 5)
			memcpy(uc[i], base, 6);
	}
	for (unsigned i = 0; i < 3; i++) {
		memcpy(mc[i], "\x01\x00\x5e\x00\x00", 5);
		mc[i][5] = (uint8_t)i;
	}
	r = vf_ema_agent_set_macs(a, 0, false, uc, 40, 0, rq, sizeof(rq));
	EQ_U(r, 0, "host sets 40 unicast MACs (no trap LID: no trap)");
	EQ_U(a->slot[0].vport.uc_macs_gen_count, 1, "generation 1");
	vf_ema_agent_set_macs(a, 0, true, mc, 3, 0, rq, sizeof(rq));

	start(VF_EMA_GET, VF_EMA_IFACE_UCAST_MACS, 0);
	EQ_U(send(a), VF_EMA_OK, "Get unicast list, count 0 = as many as fit");
	EQ_U(vf_ema_get_mac_list(rp, FULL, false, &l), VF_EMA_OK, "reply decodes");
	OK(l.start_idx == 0 && l.num == 29 && l.total == 39 && l.gen_count == 1,
	   "29 of 39 (the base MAC left out), generation 1");
	OK(l.macs[4][5] == 4 && l.macs[5][5] == 6, "the base MAC's place is skipped");
	l.start_idx = 29;
	l.num = 0;
	start(VF_EMA_GET, VF_EMA_IFACE_UCAST_MACS, 0);
	vf_ema_put_mac_list(rq, &l);
	send(a);
	vf_ema_get_mac_list(rp, FULL, false, &l);
	OK(l.start_idx == 29 && l.num == 10 && l.macs[9][5] == 39,
	   "page 2: the last 10");
	l.start_idx = 39;
	start(VF_EMA_GET, VF_EMA_IFACE_UCAST_MACS, 0);
	vf_ema_put_mac_list(rq, &l);
	EQ_U(send(a), VF_EMA_OK, "start at the end: empty page");
	EQ_U(rp[D + 3], 0, "...0 MACs");
	l.start_idx = 40;
	start(VF_EMA_GET, VF_EMA_IFACE_UCAST_MACS, 0);
	vf_ema_put_mac_list(rq, &l);
	EQ_U(send(a), VF_EMA_BAD_FIELD, "start past the end");
	l.start_idx = 0;
	l.num = 30;
	start(VF_EMA_GET, VF_EMA_IFACE_UCAST_MACS, 0);
	vf_ema_put_mac_list(rq, &l);
	EQ_U(send(a), VF_EMA_BAD_FIELD, "30 MACs asked");
	l.num = 2;
	start(VF_EMA_GET, VF_EMA_IFACE_MCAST_MACS, 0);
	vf_ema_put_mac_list(rq, &l);
	EQ_U(send(a), VF_EMA_OK, "Get multicast list, 2 asked");
	vf_ema_get_mac_list(rp, FULL, false, &l);
	OK(l.num == 2 && l.total == 3 && l.gen_count == 1 && l.macs[1][5] == 1,
	   "2 of 3, generation 1");
	EQ_U(send_len(a, D + 7), VF_EMA_BAD_FIELD, "a list request without its header");
	free(a);
}

static void test_agent_counters(void)
{
	struct vf_ema_agent *a = new_agent(2);
	struct vf_ema_summary s;
	struct vf_ema_errors e;
	struct vf_ema_ctr_id id;

	set_vesw(a, 1, 0x7);
	send(a);
	set_config(a, 1, VF_VPORT_FORWARDING);
	a->slot[1].summary.tx_packets = 5;
	a->slot[1].summary.rx_1519_max = 7;
	a->slot[1].errors.rx_runt = 3;
	start(VF_EMA_GET, VF_EMA_SUMMARY_COUNTERS, vf_ema_amod(1, 0));
	EQ_U(send(a), VF_EMA_OK, "Get summary part 0");
	vf_ema_get_summary(rp, FULL, 0, &id, &s);
	OK(id.vp_instance == 1 && id.vesw_id == 7 && id.veswport_num == 0x01020304 &&
	   s.tx_packets == 5, "prefix: index, vESW id, the EM's port number; tx_packets");
	start(VF_EMA_GET, VF_EMA_SUMMARY_COUNTERS, vf_ema_amod(1, 1));
	EQ_U(send(a), VF_EMA_OK, "Get summary part 1");
	vf_ema_get_summary(rp, FULL, 1, &id, &s);
	EQ_U(s.rx_1519_max, 7, "rx_1519_max in part 1");
	start(VF_EMA_GET, VF_EMA_ERROR_COUNTERS, vf_ema_amod(1, 0));
	EQ_U(send(a), VF_EMA_OK, "Get error counters");
	vf_ema_get_errors(rp, FULL, 0, &id, &e);
	EQ_U(e.rx_runt, 3, "rx_runt");
	start(VF_EMA_GET, VF_EMA_ERROR_COUNTERS, vf_ema_amod(1, 2));
	EQ_U(send(a), VF_EMA_BAD_FIELD, "counters part 2");
	free(a);
}

static void set_trap_lid(struct vf_ema_agent *a, uint32_t lid)
{
	struct vf_ema_cpi c = { .trap_lid = lid, .trap_sl = 1 };

	start(VF_EMA_SET, VF_EMA_CLASS_PORT_INFO, 0);
	vf_ema_put_cpi(rq, &c);
	send(a);
}

static void test_agent_traps(void)
{
	struct vf_ema_agent *a = new_agent(2);
	uint8_t trap[FULL], mac[2][6] = { { 2, 1, 1, 1, 1, 1 },
					  { 2, 2, 2, 2, 2, 2 } };
	struct vf_ema_trap t;
	struct vf_ema_hdr h;
	int n = 0, sent = 0;

	EQ_U(vf_ema_agent_set_admin(a, 0, true, 0, trap, FULL), -ENOENT, "no vport: -ENOENT");
	set_vesw(a, 0, 0);
	send(a);
	set_config(a, 0, VF_VPORT_FORWARDING);
	EQ_U(vf_ema_agent_set_admin(a, 0, true, 0, trap, FULL), -EINVAL,
	     "up with vESW id 0: refused, as hfi1 does");
	set_vesw(a, 0, 2);
	send(a);
	EQ_U(vf_ema_agent_set_admin(a, 0, true, 0, trap, FULL - 1), -ENOSPC,
	     "a trap buffer below a MAD");
	EQ_U(vf_ema_agent_set_macs(a, 0, false, NULL, VF_EMA_MAX_HOST_MACS + 1,
				   0, trap, FULL), -E2BIG, "a list over the max");
	EQ_U(vf_ema_agent_set_admin(a, 0, true, 0, trap, FULL), 0,
	     "up without a trap LID: no trap");
	EQ_U(a->slot[0].vport.oper_state, 3, "...but the state follows");
	vf_ema_agent_set_admin(a, 0, false, 10, trap, FULL);

	set_trap_lid(a, 0x21);
	EQ_U(vf_ema_agent_set_admin(a, 0, true, 2000, trap, FULL), FULL,
	     "up with a trap LID: a trap");
	EQ_U(vf_ema_get_hdr(trap, FULL, &h), VF_EMA_OK, "our header");
	OK(h.method == VF_EMA_TRAP && h.attr_id == VF_EMA_NOTICE && h.tid == 1,
	   "Trap(Notice), TID 1");
	EQ_U(vf_ema_get_trap(trap, FULL, &t), VF_EMA_OK, "notice decodes");
	OK(t.opcode == VF_EMA_TRAP_LINK && t.issuer_lid == 5 && t.vesw_id == 2 &&
	   t.fabric_id == 0x301 && t.port_num == 0x01020304 &&
	   t.phys_port == 1 && t.vport_index == 0,
	   "opcode 3, issuer = encap SLID, vESW, port num, physical port, index");
	EQ_U(vf_ema_agent_set_admin(a, 0, true, 2001, trap, FULL), 0,
	     "up again: no change, no trap");

	EQ_U(vf_ema_agent_set_macs(a, 0, false, mac, 2, 2002, trap, FULL), FULL,
	     "a new unicast list: a trap");
	vf_ema_get_trap(trap, FULL, &t);
	vf_ema_get_hdr(trap, FULL, &h);
	OK(t.opcode == VF_EMA_TRAP_UCAST_MACS && h.tid == 2, "opcode 1, TID 2");
	EQ_U(vf_ema_agent_set_macs(a, 0, false, mac, 2, 2003, trap, FULL), 0,
	     "the same list again: no trap");
	EQ_U(a->slot[0].vport.uc_macs_gen_count, 2, "...but the generation moves");
	EQ_U(vf_ema_agent_set_macs(a, 0, true, mac, 1, 2004, trap, FULL), FULL,
	     "a new multicast list: a trap");
	vf_ema_get_trap(trap, FULL, &t);
	EQ_U(t.opcode, VF_EMA_TRAP_MCAST_MACS, "opcode 2");

	/* rate limit: 3 sent in the window opened at 2000 */
	EQ_U(vf_ema_agent_set_admin(a, 0, false, 2100, trap, FULL), FULL, "4th in the window");
	EQ_U(vf_ema_agent_set_admin(a, 0, true, 2200, trap, FULL), FULL, "5th in the window");
	EQ_U(vf_ema_agent_set_admin(a, 0, false, 2300, trap, FULL), 0, "6th: dropped");
	EQ_U(a->slot[0].vport.eth_link_status, 2, "...the state still follows");
	EQ_U(vf_ema_agent_set_admin(a, 0, true, 2000 + VF_EMA_TRAP_WINDOW_MS - 1,
				    trap, FULL), 0, "still inside the window: dropped");
	EQ_U(vf_ema_agent_set_admin(a, 0, false, 2000 + VF_EMA_TRAP_WINDOW_MS,
				    trap, FULL), FULL, "a new window: sent");
	vf_ema_get_hdr(trap, FULL, &h);
	EQ_U(h.tid, 6, "TIDs count the traps sent");

	/* vport 1 has its own window */
	set_vesw(a, 1, 3);
	send(a);
	for (unsigned i = 0; i < 8; i++) {
		n = vf_ema_agent_set_admin(a, 1, !(i & 1), 5000 + i, trap, FULL);
		sent += n == FULL;
	}
	EQ_U(sent, VF_EMA_TRAP_BURST, "8 changes in a burst: 5 traps");
	free(a);
}

/* Polling the interface's address: a trap only when the list moves. */
static void test_agent_host_mac(void)
{
	static const uint8_t base[6] = { 6, 0x2c, 0, 5, 0, 0 };
	static const uint8_t gmac[6] = { 0x00, 0x16, 0x3e, 0x12, 0x34, 0x56 };
	struct vf_ema_agent *a = new_agent(2);
	struct vf_ema_mac_list l;
	struct vf_ema_trap t;
	uint8_t trap[FULL];

	EQ_U(vf_ema_agent_host_mac(a, 0, gmac, 0, trap, FULL), -ENOENT,
	     "host MAC of a vport not created");
	set_vesw(a, 0, 2);
	send(a);
	set_trap_lid(a, 0x21);
	EQ_U(vf_ema_agent_host_mac(a, 0, gmac, 0, trap, FULL), 0,
	     "no base MAC yet: the interface's MAC is not the host's choice");
	EQ_U(a->slot[0].uc.n + a->slot[0].vport.uc_macs_gen_count, 0,
	     "...list empty, generation 0");
	set_config(a, 0, VF_VPORT_DROP_ALL);	/* base MAC 06:2c:00:05:00:00 */
	EQ_U(vf_ema_agent_host_mac(a, 0, base, 10, trap, FULL), 0,
	     "the interface has the base MAC: no trap");
	EQ_U(a->slot[0].vport.uc_macs_gen_count, 0, "...generation unmoved");
	EQ_U(vf_ema_agent_host_mac(a, 0, gmac, 20, trap, FULL), FULL,
	     "the host sets a global MAC: a trap");
	EQ_U(vf_ema_get_trap(trap, FULL, &t), VF_EMA_OK, "notice decodes");
	EQ_U(t.opcode, VF_EMA_TRAP_UCAST_MACS, "opcode 1");
	start(VF_EMA_GET, VF_EMA_IFACE_UCAST_MACS, 0);
	EQ_U(send(a), VF_EMA_OK, "Get unicast list");
	vf_ema_get_mac_list(rp, FULL, false, &l);
	OK(l.total == 1 && l.num == 1 && !memcmp(l.macs[0], gmac, 6) &&
	   l.gen_count == 1, "the list is that MAC, generation 1");
	for (unsigned i = 0; i < 5; i++)
		EQ_U(vf_ema_agent_host_mac(a, 0, gmac, 30 + i, trap, FULL), 0,
		     "polled again: no trap");
	EQ_U(a->slot[0].vport.uc_macs_gen_count, 1,
	     "...and the generation stays");
	EQ_U(vf_ema_agent_host_mac(a, 0, base, 40, trap, FULL), FULL,
	     "back to the base MAC: a trap");
	start(VF_EMA_GET, VF_EMA_IFACE_UCAST_MACS, 0);
	send(a);
	vf_ema_get_mac_list(rp, FULL, false, &l);
	OK(l.total == 0 && l.gen_count == 2, "the list is empty, generation 2");
	free(a);
}

static void test_agent_malformed(void)
{
	struct vf_ema_agent *a = new_agent(2);
	uint8_t small[FULL - 1];

	start(VF_EMA_GET, VF_EMA_CLASS_PORT_INFO, 0);
	EQ_U(vf_ema_agent_handle(a, rq, 23, &req_src, rp, FULL), 0, "23 bytes: no reply");
	EQ_U(vf_ema_agent_handle(a, rq, FULL, &req_src, small,
				  sizeof(small)), 0,
	     "a reply buffer below a MAD: no reply");
	EQ_U(send_len(a, 30), VF_EMA_BAD_FIELD, "30 bytes: invalid, header echoed");
	OK(zero_from(rp, 30, FULL), "...and only what came");
	rq[3] = VF_EMA_GET_RESP;
	EQ_U(send(a), 0xFFFF, "a GetResp is never answered");
	rq[3] = VF_EMA_TRAP;
	EQ_U(send(a), 0xFFFF, "nor a Trap");
	rq[3] = VF_EMA_TRAP_REPRESS;
	EQ_U(send(a), 0xFFFF, "nor a TrapRepress");
	rq[3] = 0x03;
	EQ_U(vf_ema_agent_handle(a, rq, FULL, &req_src, rp, FULL), FULL,
	     "method Send: answered");
	OK(rp[3] == 0x83 && status_of(rp) == VF_EMA_BAD_METHOD,
	   "...with its response method and 0x0008");
	start(VF_EMA_GET, VF_EMA_CLASS_PORT_INFO, 0);
	rq[0] = 2;
	EQ_U(send(a), VF_EMA_BAD_VERSION, "base version 2");
	rq[0] = 1;
	rq[2] = 2;
	EQ_U(send(a), VF_EMA_BAD_VERSION, "class version 2");
	rq[2] = 1;
	rq[1] = 0x34;
	EQ_U(send(a), VF_EMA_BAD_ATTR, "class 0x34");
	rq[1] = VF_EMA_CLASS;
	rq[37] = 1;
	EQ_U(send(a), VF_EMA_BAD_ATTR, "another OUI");
	start(VF_EMA_GET, 0x0099, 0);
	EQ_U(send(a), VF_EMA_BAD_ATTR, "unknown attribute");
	start(VF_EMA_SET, VF_EMA_ERROR_COUNTERS, 0);
	EQ_U(send(a), VF_EMA_BAD_ATTR, "Set of a Get-only attribute");
	start(VF_EMA_GET, VF_EMA_DELETE_VESW, 0);
	EQ_U(send(a), VF_EMA_BAD_ATTR, "Get of the Set-only delete");
	start(VF_EMA_SET, VF_EMA_VESWPORT_INFO, 0);
	EQ_U(send_len(a, D + 151), VF_EMA_BAD_FIELD, "Set vESW part, 151 bytes");
	OK(!vf_ema_agent_vport(a, 0), "...creates nothing");
	start(VF_EMA_SET, VF_EMA_CLASS_PORT_INFO, 0);
	EQ_U(send_len(a, D + 79), VF_EMA_BAD_FIELD, "Set ClassPortInfo, 79 bytes");
	free(a);
}

/* ---- robustness ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static const uint16_t attrs[] = {
	VF_EMA_CLASS_PORT_INFO, VF_EMA_NOTICE, VF_EMA_VESWPORT_INFO,
	VF_EMA_MAC_ENTRIES, VF_EMA_IFACE_UCAST_MACS, VF_EMA_IFACE_MCAST_MACS,
	VF_EMA_DELETE_VESW, VF_EMA_SUMMARY_COUNTERS, VF_EMA_ERROR_COUNTERS,
};

/* A plausible request with random data, then a few bytes mutated. */
static size_t random_request(uint8_t *m)
{
	size_t len = FULL;

	vf_ema_init(m, rnd() % 4 ? (uint8_t)(1 + rnd() % 2) : (uint8_t)rnd(),
		    rnd(), attrs[rnd() % (sizeof(attrs) / sizeof(attrs[0]))],
		    rnd() % 8 ? vf_ema_amod(rnd() % 6, rnd() % 3) : rnd());
	for (size_t i = D; i < VF_EMA_USED; i++)
		m[i] = rnd() % 3 ? (uint8_t)(rnd() % 4) : (uint8_t)rnd();
	if (rnd() % 2) {	/* a sane MAC slice or list header */
		m[D] = (uint8_t)(rnd() % 9);
		m[D + 2] = 0;
		m[D + 3] = (uint8_t)(rnd() % 13);
	}
	for (unsigned k = rnd() % 4; k; k--)
		m[rnd() % FULL] = (uint8_t)rnd();
	if (rnd() % 4 == 0)
		len = rnd() % (FULL + 1);
	return len;
}

/* The key codec: bytes 28-35, the RMPP flags left alone. */
static void test_key_codec(void)
{
	uint8_t m[FULL];
	struct vf_ema_key_info k = { .key = 0x0102030405060708ull,
				     .lease_s = 60, .flags = VF_EMA_KEY_HELD,
				     .lease_left_s = 7, .not_sm = 1,
				     .bad_key = 2, .expired = 3 }, g;

	vf_ema_init(m, VF_EMA_SET, 1, VF_EMA_KEY_INFO, 0);
	vf_ema_put_key(m, 0x1122334455667788ull);
	OK(bytes_are(m + 24, "00000000 1122334455667788 00"),
	   "key at bytes 28-35; RMPP version, type, flags, status stay 0");
	EQ_U(vf_ema_get_key(m, FULL), 0x1122334455667788ull, "key read back");
	EQ_U(vf_ema_get_key(m, 35), 0, "a MAD ending before the key: none");
	vf_ema_put_key_info(m, &k);
	OK(bytes_are(m + D, "0102030405060708 003c 01 00 00000007 00000001 "
		     "00000002 00000003"), "EMKeyInfo layout");
	EQ_U(vf_ema_get_key_info(m, FULL, &g), VF_EMA_OK, "EMKeyInfo decodes");
	OK(g.key == k.key && g.lease_s == 60 && g.flags == 1 &&
	   g.lease_left_s == 7 && g.not_sm == 1 && g.bad_key == 2 &&
	   g.expired == 3, "...every field");
	m[D + 10] = 0x02;
	EQ_U(vf_ema_get_key_info(m, FULL, &g), VF_EMA_BAD_FIELD,
	     "a reserved flag bit");
	EQ_U(vf_ema_get_key_info(m, D + 31, &g), VF_EMA_BAD_FIELD, "short");
}

/* Set EMKeyInfo (key, lease) carrying cur as the request's key. */
static unsigned set_key(struct vf_ema_agent *a, uint64_t cur, uint64_t key,
			uint16_t lease)
{
	struct vf_ema_key_info k = { .key = key, .lease_s = lease };

	start(VF_EMA_SET, VF_EMA_KEY_INFO, 0);
	vf_ema_put_key_info(rq, &k);
	vf_ema_put_key(rq, cur);
	return send(a);
}

/* A Set of vport 0's vESW part carrying key, from slid. */
static unsigned set_vesw_from(struct vf_ema_agent *a, uint16_t slid,
			      uint64_t key, uint16_t vesw_id)
{
	struct vf_vesw v = { .vesw_id = vesw_id, .pkey = 0x8001,
			     .eth_mtu = 1500 };
	uint16_t was = req_src.slid;
	unsigned st;

	start(VF_EMA_SET, VF_EMA_VESWPORT_INFO, vf_ema_amod(0, 0));
	vf_ema_put_vesw(rq, &v);
	vf_ema_put_key(rq, key);
	req_src.slid = slid;
	st = send(a);
	req_src.slid = was;
	return st;
}

static uint16_t vesw_of(struct vf_ema_agent *a)
{
	return a->slot[0].vport.vesw.vesw_id;
}

/* Who may Set: the master SM's LID, and the key once one is held. */
static void test_agent_auth(void)
{
	struct vf_ema_agent *a = new_agent(2);
	struct vf_ema_key_info k;
	const uint64_t key = 0xfeedface12345678ull, other = 0x1234;

	req_src.now_ms = 1000;
	/* a host forging a Set: its SLID is not the master SM's */
	EQ_U(set_vesw_from(a, HOST_LID, 0, 7), VF_EMA_NOT_SM,
	     "Set from a host's LID: 0x0200");
	OK(!a->slot[0].vport.exists && a->auth.not_sm == 1,
	   "...nothing created, counted as not_sm");
	EQ_U(set_vesw_from(a, 0, 0, 7), VF_EMA_NOT_SM,
	     "SLID 0 (no master SM known yet): 0x0200");
	EQ_U(set_key(a, 0, key, 0), VF_EMA_OK, "no key held: the SM sets one");
	OK(a->auth.mkey.key == key, "...held");
	req_src.slid = HOST_LID;
	EQ_U(set_key(a, key, other, 0), VF_EMA_NOT_SM,
	     "a host knowing the key still may not Set EMKeyInfo");
	req_src.slid = SM_LID;
	OK(a->auth.mkey.key == key, "...the key is unchanged");
	EQ_U(set_vesw_from(a, SM_LID, 0, 7), VF_EMA_BAD_KEY,
	     "the SM's LID without the key: 0x0300");
	EQ_U(set_vesw_from(a, SM_LID, other, 7), VF_EMA_BAD_KEY,
	     "...with another key: 0x0300");
	OK(!a->slot[0].vport.exists && a->auth.mkey.refused == 2,
	   "...nothing created, counted as bad_key");
	OK(!a->auth.mkey.lease_end_ms, "lease 0: no lease timer");
	EQ_U(set_vesw_from(a, SM_LID, key, 7), VF_EMA_OK, "with the key: done");
	EQ_U(vesw_of(a), 7, "...vESW 7");
	/* every kind of Set is checked, not only VeswPortInfo */
	start(VF_EMA_SET, VF_EMA_DELETE_VESW, vf_ema_amod(0, 1));
	EQ_U(send(a), VF_EMA_BAD_KEY, "DeleteVesw without the key: 0x0300");
	start(VF_EMA_SET, VF_EMA_CLASS_PORT_INFO, 0);
	EQ_U(send(a), VF_EMA_BAD_KEY, "ClassPortInfo without the key: 0x0300");
	start(VF_EMA_SET, VF_EMA_MAC_ENTRIES, vf_ema_amod(0, 0));
	EQ_U(send(a), VF_EMA_BAD_KEY, "MAC entries without the key: 0x0300");
	EQ_U(vesw_of(a), 7, "...vESW 7 still");

	/* Gets stay open; the key only to whoever carries it */
	start(VF_EMA_GET, VF_EMA_VESWPORT_INFO, vf_ema_amod(0, 0));
	req_src.slid = HOST_LID;
	EQ_U(send(a), VF_EMA_OK, "a Get from a host: answered");
	start(VF_EMA_GET, VF_EMA_KEY_INFO, 0);
	EQ_U(send(a), VF_EMA_OK, "Get EMKeyInfo from a host: answered");
	vf_ema_get_key_info(rp, FULL, &k);
	OK(k.key == 0 && k.flags == VF_EMA_KEY_HELD && k.bad_key == 5 &&
	   k.not_sm == 3, "...key held, not shown; the refusals counted");
	start(VF_EMA_GET, VF_EMA_KEY_INFO, 0);
	vf_ema_put_key(rq, other);
	send(a);
	vf_ema_get_key_info(rp, FULL, &k);
	EQ_U(k.key, 0, "...nor to a Get with another key");
	start(VF_EMA_GET, VF_EMA_KEY_INFO, 0);
	vf_ema_put_key(rq, key);
	send(a);
	vf_ema_get_key_info(rp, FULL, &k);
	EQ_U(k.key, key, "...shown to a Get carrying it");
	OK(zero_from(rp, 24, 36), "no answer carries a key in its header");
	req_src.slid = SM_LID;

	/* the lease: a takeover by an SM that does not know the key */
	EQ_U(set_key(a, key, key, 10), VF_EMA_OK, "lease 10 s");
	EQ_U(set_vesw_from(a, SM_LID, other, 8), VF_EMA_BAD_KEY,
	     "a new master with another key: 0x0300");
	OK(a->auth.mkey.lease_end_ms && a->auth.mkey.lease_end_ms == 11000,
	   "...the lease timer runs: until now + 10 s");
	req_src.now_ms = 5000;
	EQ_U(set_vesw_from(a, SM_LID, other, 8), VF_EMA_BAD_KEY,
	     "...still refused after 4 s");
	EQ_U(a->auth.mkey.lease_end_ms, 11000, "...a refusal does not restart it");
	OK(!vf_ema_agent_expire(a, 10999), "not run out at 10.999 s");
	req_src.now_ms = 11000;
	EQ_U(set_key(a, other, other, 10), VF_EMA_OK,
	     "run out: key cleared, the new EM sets its own");
	OK(a->auth.mkey.key == other && a->auth.expired == 1,
	   "...its key held, one expiry counted");
	EQ_U(set_vesw_from(a, SM_LID, other, 8), VF_EMA_OK,
	     "...and it configures the endpoint");
	EQ_U(set_vesw_from(a, SM_LID, key, 9), VF_EMA_BAD_KEY,
	     "the old key no longer works");
	req_src.now_ms = 12000;
	EQ_U(set_vesw_from(a, SM_LID, other, 8), VF_EMA_OK,
	     "a Set carrying the key stops the lease timer");
	OK(!a->auth.mkey.lease_end_ms, "...not running");
	OK(!vf_ema_agent_expire(a, 999999), "...so the key stays");
	/* a host cannot start the lease timer: its Sets fail the SLID check */
	req_src.slid = HOST_LID;
	set_vesw_from(a, HOST_LID, key, 9);
	OK(!a->auth.mkey.lease_end_ms, "a host's Set does not start the lease");
	req_src.slid = SM_LID;
	EQ_U(set_key(a, other, 0, 0), VF_EMA_OK, "the EM clears its key (0)");
	EQ_U(set_vesw_from(a, SM_LID, 0, 9), VF_EMA_OK,
	     "...then Sets need none");
	req_src.now_ms = 0;
	free(a);
}

static void test_robustness(void)
{
	struct vf_ema_agent *a = new_agent(4);
	uint8_t src[FULL], trap[FULL], macs[VF_EMA_MAX_HOST_MACS][6];
	unsigned bad = 0, answered = 0, consistent = 1;

	set_trap_lid(a, 1);
	for (unsigned iter = 0; iter < 30000; iter++) {
		size_t len = random_request(src), n;
		/* exact-size heap copies: any over-read or over-write shows
		 * under valgrind or ASan */
		uint8_t *req = malloc(len ? len : 1);
		uint8_t *reply = malloc(FULL);

		if (!req || !reply)
			abort();
		memcpy(req, src, len);
		n = vf_ema_agent_handle(a, req, len, &req_src, reply, FULL);
		if (n) {
			answered++;
			if (n != FULL || !zero_from(reply, VF_EMA_USED, FULL) ||
			    !(reply[3] & 0x80) || memcmp(reply + 8, req + 8, 8))
				bad++;
		} else if (len >= 24 && !(req[3] & 0x80) &&
			   req[3] != VF_EMA_TRAP &&
			   req[3] != VF_EMA_TRAP_REPRESS) {
			bad++;	/* a request left unanswered */
		}
		free(req);
		free(reply);
		if (rnd() % 16 == 0) {
			unsigned i = rnd() % 5;

			for (unsigned k = 0; k < VF_EMA_MAX_HOST_MACS; k++)
				for (unsigned b = 0; b < 6; b++)
					macs[k][b] = (uint8_t)(rnd() % 3);
			if (rnd() % 2) {
				vf_ema_agent_set_admin(a, i, rnd() % 2, iter,
						       trap, FULL);
			} else {
				vf_ema_agent_set_macs(a, i, rnd() % 2, macs,
						      rnd() % 140, iter, trap,
						      FULL);
			}
		}
	}
	for (unsigned i = 0; i < 4; i++) {
		struct vf_vport *v = vf_ema_agent_vport(a, i);
		uint8_t oper, link;

		if (!v)
			continue;
		oper = v->oper_state;
		link = v->eth_link_status;
		vf_ema_vport_update_state(v);
		consistent &= oper == v->oper_state && link == v->eth_link_status;
		consistent &= v->vesw.vesw_id <= 0xfff && v->config_state <= 3;
	}
	EQ_U(bad, 0, "30000 random, truncated and mutated MADs: every request answered with one whole GetResp, nothing else");
	OK(answered > 15000, "most of them were requests");
	OK(consistent, "the vports stay consistent with their state machine");
	free(a);
}

int main(void)
{
	test_header();
	test_hdr_checks();
	test_cpi();
	test_vesw();
	test_vport();
	test_mac_entries();
	test_mac_list();
	test_counters();
	test_trap_codec();
	test_agent_cpi();
	test_agent_lifecycle();
	test_state_machine();
	test_agent_mac_table();
	test_agent_lists();
	test_agent_counters();
	test_agent_traps();
	test_agent_host_mac();
	test_agent_malformed();
	test_key_codec();
	test_agent_auth();
	test_robustness();
	return tap_done();
}
