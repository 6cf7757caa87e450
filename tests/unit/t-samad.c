// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The SA codec of vfabric-sa against the byte layouts of IBA 1.3: the SA
 * header (13.4.2, 15.2.1.1), PathRecord (15.2.5.16, Table 207) and
 * MCMemberRecord (15.2.5.17, Table 209), each field checked at its byte
 * offset, then decoded back; the component mask bits as OpenSM's
 * ib_types.h numbers them; record counting and truncation; the CLI's
 * value syntax.
 */
#include <stdio.h>
#include <string.h>

#include "common/mad.h"
#include "tools/sa/samad.h"
#include "taptest.h"

/* Field by field: the struct has padding, whose bytes neither the
 * initializer nor the decoder sets (a memcmp of the two compared stack
 * garbage, and failed under ASan's different stack layout). */
static int same_hdr(const struct vf_sa_hdr *a, const struct vf_sa_hdr *b)
{
	return a->class_version == b->class_version &&
	       a->method == b->method && a->status == b->status &&
	       a->tid == b->tid && a->attr_id == b->attr_id &&
	       a->attr_mod == b->attr_mod &&
	       a->rmpp_version == b->rmpp_version &&
	       a->rmpp_type == b->rmpp_type &&
	       a->rmpp_flags == b->rmpp_flags &&
	       a->rmpp_status == b->rmpp_status &&
	       a->rmpp_seg == b->rmpp_seg &&
	       a->rmpp_paylen == b->rmpp_paylen &&
	       a->sm_key == b->sm_key &&
	       a->attr_offset == b->attr_offset &&
	       a->comp_mask == b->comp_mask;
}

static void test_header(void)
{
	uint8_t mad[VF_MAD_SIZE];
	struct vf_sa_hdr h = {
		.class_version = 2, .method = VF_METHOD_GETTABLE,
		.status = 0x0300, .tid = 0x1122334455667788ull,
		.attr_id = VF_ATTR_PATH_RECORD, .attr_mod = 0xa1b2c3d4,
		.rmpp_version = 1, .rmpp_type = 1,
		.rmpp_flags = VF_RMPP_ACTIVE | VF_RMPP_FIRST,
		.rmpp_seg = 1, .rmpp_paylen = 0x0214, .attr_offset = 8,
		.comp_mask = VF_PR_DLID | VF_PR_SLID,
	}, d;

	memset(mad, 0xee, sizeof(mad));
	vf_sa_request(mad, &h);
	OK(tap_bytes_are(mad, "01 03 02 12 0300 0000"),
	   "header: base version 1, class 0x03, version 2, method, status");
	OK(tap_bytes_are(mad + 8, "1122334455667788 0035 0000 a1b2c3d4"),
	   "header: TID at 8, AttributeID at 16, AttributeModifier at 20");
	OK(tap_bytes_are(mad + 24, "01 01 03 00 00000001 00000214"),
	   "RMPP header at 24: version, type, flags, status, segment, "
	   "PayloadLength");
	OK(tap_bytes_are(mad + 36, "0000000000000000 0008 0000"),
	   "SA header: SM_Key 0 at 36, AttributeOffset at 44");
	OK(tap_bytes_are(mad + 48, "0000000000000030"),
	   "ComponentMask at 48: SLID|DLID is 0x30");
	OK(tap_bytes_are(mad + 56, "0000000000000000"), "data zeroed from 56");
	vf_sa_hdr_decode(mad, &d);
	OK(same_hdr(&h, &d), "header decodes to what was encoded");
	h.sm_key = 0x0102030405060708ull;	/* injected by tests only */
	vf_sa_request(mad, &h);
	OK(tap_bytes_are(mad + 36, "0102030405060708 0008"),
	   "an injected SM_Key goes to 36");
	vf_sa_hdr_decode(mad, &d);
	OK(d.sm_key == h.sm_key, "and decodes");
}

static const struct vf_path_rec sample_pr = {
	.service_id = 0x0102030405060708ull,
	.dgid = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9, 0x03, 0, 0, 0, 0x31 },
	.sgid = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9, 0x03, 0, 0, 0, 0x11 },
	.dlid = 0x1234, .slid = 0x5678, .raw_traffic = true,
	.flow_label = 0xabcde, .hop_limit = 0x7f, .tclass = 0x42,
	.reversible = true, .numb_path = 5, .pkey = 0x8001,
	.qos_class = 0x123, .sl = 0xa, .mtu_sel = VF_SEL_EQ, .mtu = 4,
	.rate_sel = VF_SEL_LT, .rate = 7, .life_sel = VF_SEL_BEST,
	.life = 18, .preference = 0x99,
};

static void test_path_record(void)
{
	uint8_t rec[VF_PR_SIZE];
	struct vf_path_rec d;

	memset(rec, 0xee, sizeof(rec));
	vf_pr_encode(rec, &sample_pr);
	OK(tap_bytes_are(rec, "0102030405060708"), "PR: ServiceID at 0");
	OK(tap_bytes_are(rec + 8, "fe80000000000000 0002c90300000031"),
	   "PR: DGID at 8");
	OK(tap_bytes_are(rec + 24, "fe80000000000000 0002c90300000011"),
	   "PR: SGID at 24");
	OK(tap_bytes_are(rec + 40, "1234 5678"), "PR: DLID at 40, SLID at 42");
	OK(tap_bytes_are(rec + 44, "8abcde7f"),
	   "PR: RawTraffic(1) Reserved(3) FlowLabel(20) HopLimit(8) at 44");
	OK(tap_bytes_are(rec + 48, "42 85 8001"),
	   "PR: TClass at 48, Reversible(1) NumbPath(7) at 49, P_Key at 50");
	OK(tap_bytes_are(rec + 52, "123a"), "PR: QoSClass(12) SL(4) at 52");
	OK(tap_bytes_are(rec + 54, "84 47 d2 99"),
	   "PR: MTU, Rate, PacketLifeTime (selector in the top 2 bits) at "
	   "54-56, Preference at 57");
	OK(tap_bytes_are(rec + 58, "000000000000"), "PR: reserved 58-63 zero");
	vf_pr_decode(rec, &d);
	OK(!memcmp(&d, &sample_pr, sizeof(d)),
	   "PR decodes to what was encoded");
}

/* MultiPathRecord (IBA 15.2.5.20): 24 bytes, then the GIDs. */
static void test_multipath_record(void)
{
	uint8_t rec[VF_SA_DATA_SIZE], gids[3][16] = {
		{ 0xfe, 0x80, [15] = 0x11 }, { 0xfe, 0x80, [15] = 0x21 },
		{ 0xfe, 0x80, [15] = 0x31 } };

	memset(rec, 0xee, sizeof(rec));
	vf_mpr_encode(rec, &sample_pr, (const uint8_t (*)[16])gids, 1, 2);
	OK(tap_bytes_are(rec, "8abcde7f 42 85 8001"),
	   "MPR: RawTraffic/FlowLabel/HopLimit at 0, TClass 4, Reversible/"
	   "NumbPath 5, P_Key 6");
	OK(tap_bytes_are(rec + 8, "123a 84 47 d2"),
	   "MPR: QoSClass/SL at 8, MTU 10, Rate 11, PacketLifeTime 12");
	OK(tap_bytes_are(rec + 13, "01 00 01 02 02030405060708"),
	   "MPR: ServiceID's top byte at 13, Independence 14, SGIDCount 15, "
	   "DGIDCount 16, the other 7 ServiceID bytes at 17");
	OK(tap_bytes_are(rec + 24, "fe800000000000000000000000000011") &&
	   tap_bytes_are(rec + 56, "fe800000000000000000000000000031"),
	   "MPR: the source GID at 24, then the destinations");
	OK(rec[72] == 0xee, "MPR: nothing written past the last GID");
	EQ_U(VF_MPR_MAX_GIDS, 11, "11 GIDs fit one MAD");
}

static void test_mcmember_record(void)
{
	static const struct vf_mcmember_rec m = {
		.mgid = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, [12] = 0xff,
			  0xff, 0xff, 0xff },
		.port_gid = { 0xfe, 0x80, [8] = 0, 2, 0xc9, 3, 0, 0, 0, 0x21 },
		.qkey = 0x80010000, .mlid = 0xc001, .mtu_sel = VF_SEL_GT,
		.mtu = 3, .tclass = 0x10, .pkey = 0xffff,
		.rate_sel = VF_SEL_EQ, .rate = 3, .life_sel = VF_SEL_EQ,
		.life = 18, .sl = 0xb, .flow_label = 0x12345,
		.hop_limit = 0x40, .scope = 2, .join_state = 1,
		.proxy_join = true,
	};
	struct vf_mcmember_rec d;
	uint8_t rec[VF_MCR_SIZE];

	memset(rec, 0xee, sizeof(rec));
	vf_mcr_encode(rec, &m);
	OK(tap_bytes_are(rec, "ff12401bffff000000000000ffffffff"),
	   "MCR: MGID at 0");
	OK(tap_bytes_are(rec + 16, "fe800000000000000002c90300000021"),
	   "MCR: PortGID at 16");
	OK(tap_bytes_are(rec + 32, "80010000 c001 03 10 ffff 83 92"),
	   "MCR: Q_Key 32, MLID 36, MTU 38, TClass 39, P_Key 40, Rate 42, "
	   "PacketLifeTime 43");
	OK(tap_bytes_are(rec + 44, "b1234540"),
	   "MCR: SL(4) FlowLabel(20) HopLimit(8) at 44");
	OK(tap_bytes_are(rec + 48, "21 80 0000 00000000"),
	   "MCR: Scope(4) JoinState(4) 48, ProxyJoin 49, reserved and pad");
	vf_mcr_decode(rec, &d);
	OK(!memcmp(&d, &m, sizeof(d)), "MCR decodes to what was encoded");
}

static void test_masks(void)
{
	/* OpenSM's REQUIRED_MC_CREATE_COMP_MASK: bits 0 1 2 6 7 12 13 16 */
	EQ_U(VF_MCR_CREATE, 0x130c7, "MCR create components");
	EQ_U(VF_MCR_MGID | VF_MCR_PORT_GID | VF_MCR_JOIN_STATE, 0x10003,
	     "MCR join components");
	EQ_U(VF_PR_SID, 0x3, "PR ServiceID: both halves, bits 0 and 1");
	EQ_U(VF_PR_NUMBPATH | VF_PR_DLID | VF_PR_SLID, 0x1030,
	     "PR SLID|DLID|NumbPath is saquery's 0x1030");
	EQ_U(VF_PR_PKEY | VF_PR_SL | VF_PR_MTU | VF_PR_RATE | VF_PR_LIFE,
	     0x2aa000, "PR P_Key, SL, MTU, Rate, PacketLifeTime bits");
}

static void test_count(void)
{
	struct vf_sa_hdr h = { .method = VF_METHOD_GETTABLE | VF_METHOD_RESP,
			       .attr_offset = VF_PR_SIZE / 8,
			       .rmpp_flags = VF_RMPP_ACTIVE };
	bool cut;

	EQ_U(vf_sa_record_count(&h, VF_SA_HDR_SIZE + 3 * VF_PR_SIZE, &cut),
	     3, "a table of 3 PathRecords");
	OK(!cut, "sized to its records: whole");
	EQ_U(vf_sa_record_count(&h, VF_MAD_SIZE, &cut), 3,
	     "256 bytes of PathRecords: 3 whole ones");
	OK(cut, "and a remainder: cut in transit");
	h.rmpp_flags |= VF_RMPP_FIRST;
	h.rmpp_paylen = 20 + 10 * VF_PR_SIZE;
	EQ_U(vf_sa_record_count(&h, VF_SA_HDR_SIZE + 4 * VF_PR_SIZE, &cut),
	     4, "a reassembled answer shorter than its PayloadLength");
	OK(cut, "is cut");
	OK(vf_sa_record_count(&h, VF_SA_HDR_SIZE + 10 * VF_PR_SIZE, &cut) ==
	   10 && !cut, "one as long as its PayloadLength is whole");
	h.attr_offset = 0;
	EQ_U(vf_sa_record_count(&h, VF_SA_HDR_SIZE, &cut), 0,
	     "an empty table (AttributeOffset 0)");
	h.status = 0x0300;
	EQ_U(vf_sa_record_count(&h, VF_MAD_SIZE, &cut), 0,
	     "an error answer has no record");
	h.status = 0;
	h.method = VF_METHOD_GET | VF_METHOD_RESP;
	EQ_U(vf_sa_record_count(&h, VF_MAD_SIZE, &cut), 1,
	     "a Get answer has one");
}

static void test_values(void)
{
	uint8_t sel, val, gid[16];
	char buf[64];

	EQ_S(vf_sa_status_name(0), "SUCCESS", "status 0");
	EQ_S(vf_sa_status_name(0x0300), "NO_RECORDS", "status 0x0300");
	EQ_S(vf_sa_status_name(0x0600), "INSUF_COMPS", "status 0x0600");
	EQ_S(vf_sa_status_name(0x000c), "UNSUP_METHOD_ATTR", "status 0x000c");
	EQ_S(vf_sa_status_name(0x0900), "UNKNOWN", "status 0x0900");
	EQ_U(vf_mtu_bytes(4), 2048, "MTU code 4 is 2048 bytes");
	EQ_U(vf_mtu_code(256), 1, "256 bytes is MTU code 1");
	EQ_U(vf_mtu_code(3000), 0, "3000 is no MTU");
	OK(!vf_parse_selector(">2048", true, &sel, &val) &&
	   sel == VF_SEL_GT && val == 4, "--mtu '>2048'");
	OK(!vf_parse_selector("4096", true, &sel, &val) &&
	   sel == VF_SEL_EQ && val == 5, "--mtu 4096");
	OK(!vf_parse_selector("<7", false, &sel, &val) &&
	   sel == VF_SEL_LT && val == 7, "--rate '<7'");
	OK(!vf_parse_selector("best", false, &sel, &val) &&
	   sel == VF_SEL_BEST, "--rate best");
	OK(vf_parse_selector("2000", true, &sel, &val) < 0 &&
	   vf_parse_selector("64", false, &sel, &val) < 0 &&
	   vf_parse_selector(">", false, &sel, &val) < 0,
	   "no MTU 2000, no rate code 64, no bare selector");
	OK(!vf_parse_gid("0x2c90300000011", gid) &&
	   !strcmp(vf_gid_str(gid, buf, sizeof(buf)), "fe80::2:c903:0:11"),
	   "a GUID means fe80::/64 plus it");
	OK(!vf_parse_gid("ff12:401b:ffff::ffff:ffff", gid) &&
	   gid[0] == 0xff && gid[3] == 0x1b && gid[15] == 0xff,
	   "an MGID in IPv6 text");
	OK(vf_parse_gid("cn0001", gid) < 0 && vf_parse_gid("0", gid) < 0,
	   "not a GID");
}

int main(void)
{
	test_header();
	test_path_record();
	test_multipath_record();
	test_mcmember_record();
	test_masks();
	test_count();
	test_values();
	return tap_done();
}
