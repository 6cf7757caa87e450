// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* The fabric model: building, LID assignment, indexing, errors. */
#include <errno.h>

#include "routing/fabric.h"
#include "common/log.h"
#include "taptest.h"

static void quiet(void *ctx, enum vf_log_level level, const char *msg)
{
}

static void test_build(void)
{
	struct vf_fabric *f = vf_fabric_create();
	uint32_t sw = vf_fabric_add_node(f, VF_NODE_SWITCH, 0x200000, 0, 8,
					 "S1", "spine one");
	uint32_t ca = vf_fabric_add_node(f, VF_NODE_CA, 0x100000, 0x77, 2,
					 "H1", NULL);
	uint32_t ca2 = vf_fabric_add_node(f, VF_NODE_CA, 0x100003, 0, 1,
					  "H2", "h2 desc");

	EQ_U(sw, 0, "first node index 0");
	EQ_U(ca, 1, "second node index 1");
	EQ_U(f->num_ports, 9 + 3 + 2, "port slots include port 0");
	EQ_S(vf_node_desc(f, &f->nodes[sw]), "spine one", "desc kept");
	EQ_S(vf_node_desc(f, &f->nodes[ca]), "H1", "desc defaults to name");
	EQ_U(f->nodes[ca].sysimg_guid, 0x77, "sysimg guid kept");
	EQ_U(f->nodes[sw].sysimg_guid, 0x200000, "sysimg defaults to guid");
	EQ_U(vf_node_port(f, &f->nodes[ca], 2)->guid, 0x100002,
	     "CA port GUID = node GUID + port, as ibsim");
	EQ_U(vf_node_port(f, &f->nodes[sw], 5)->guid, 0x200000,
	     "switch ports carry the node GUID");
	EQ_U(vf_fabric_port(f, sw, 9), VF_NONE, "port past the end");
	OK(vf_fabric_link(f, vf_fabric_port(f, sw, 0),
			  vf_fabric_port(f, ca, 1)) == -EINVAL,
	   "port 0 cannot be linked");
	OK(!vf_fabric_link(f, vf_fabric_port(f, sw, 1),
			   vf_fabric_port(f, ca, 1)), "link S1/1 - H1/1");
	OK(vf_fabric_link(f, vf_fabric_port(f, sw, 1),
			  vf_fabric_port(f, ca2, 1)) == -EBUSY,
	   "a linked port cannot be linked again");
	OK(!vf_fabric_link(f, vf_fabric_port(f, sw, 2),
			   vf_fabric_port(f, ca2, 1)), "link S1/2 - H2/1");
	OK(!vf_fabric_assign_lids(f, 2), "assign LIDs with LMC 2");
	OK(!vf_fabric_finalize(f), "finalize");
	EQ_U(vf_node_port(f, &f->nodes[sw], 0)->base_lid, 1,
	     "switch gets LID 1 first");
	EQ_U(vf_node_port(f, &f->nodes[ca], 1)->base_lid, 4,
	     "CA block aligned to 4");
	EQ_U(vf_node_port(f, &f->nodes[ca], 2)->base_lid, 0,
	     "unlinked CA port gets no LID");
	EQ_U(vf_node_port(f, &f->nodes[ca2], 1)->base_lid, 8, "next block");
	EQ_U(f->max_lid, 11, "max LID covers the LMC range");
	EQ_U(vf_fabric_lid_node(f, 6), ca, "LID 6 is inside H1's range");
	EQ_U(vf_fabric_lid_node(f, 2), VF_NONE, "LID 2 unused");
	EQ_U(vf_fabric_lid_node(f, 12), VF_NONE, "past max LID");
	EQ_U(f->num_switches, 1, "one switch");
	EQ_U(f->nodes[sw].sw, 0, "dense switch number");
	EQ_U(f->nodes[ca].sw, VF_NONE, "CA has no switch number");
	EQ_U(vf_fabric_find_guid(f, 0x100003), ca2, "find by GUID");
	EQ_U(vf_fabric_find_name(f, "H2"), ca2, "find by name");
	EQ_U(vf_fabric_add_node(f, VF_NODE_CA, 1, 0, 1, "late", NULL),
	     VF_NONE, "no nodes after finalize");
	vf_fabric_destroy(f);
}

static void test_lid_clash(void)
{
	struct vf_fabric *f = vf_fabric_create();
	uint32_t a = vf_fabric_add_node(f, VF_NODE_SWITCH, 1, 0, 2, "A", 0);
	uint32_t b = vf_fabric_add_node(f, VF_NODE_SWITCH, 2, 0, 2, "B", 0);

	vf_node_port(f, &f->nodes[a], 0)->base_lid = 7;
	vf_node_port(f, &f->nodes[b], 0)->base_lid = 7;
	vf_log_set_sink(quiet, NULL);
	OK(vf_fabric_finalize(f) == -EEXIST, "duplicate LID is refused");
	vf_log_set_sink(NULL, NULL);
	vf_fabric_destroy(f);
}

static void test_speeds(void)
{
	struct vf_port p = { .width = 4, .speed = VF_SPEED_QDR };

	EQ_U(vf_port_rate(&p), 400, "4x QDR = 40 Gb/s");
	EQ_U(vf_speed_parse("edr"), VF_SPEED_EDR, "parse is case-blind");
	EQ_U(vf_speed_parse("XDR"), VF_SPEED_UNKNOWN, "unknown speed");
	EQ_S(vf_speed_name(VF_SPEED_FDR10), "FDR10", "speed name");
}

static void test_lfts(void)
{
	struct vf_lfts t;

	OK(!vf_lfts_init(&t, 3, 10), "LFTs for 3 switches");
	EQ_U(vf_lft_row(&t, 2)[10], VF_NO_PORT, "start as drop");
	vf_lft_row(&t, 1)[10] = 4;
	EQ_U(vf_lft_row(&t, 2)[0], VF_NO_PORT, "rows do not overlap");
	EQ_U(t.port[1 * 11 + 10], 4, "row stride is max_lid + 1");
	vf_lfts_free(&t);
}

int main(void)
{
	test_build();
	test_lid_clash();
	test_speeds();
	test_lfts();
	return tap_done();
}
