// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Device group membership: by NodeGUID, by PortGUID, by NodeDesc pattern
 * (the vFabric file's, common/ndpattern.h), and the first-listed-group
 * rule of RoutingOrder.
 */
#include "routing/devgroup.h"
#include "taptest.h"

/* Compiled patterns (NULL: did not compile), freed at the end. */
static struct vf_ndpat *kept[16];
static unsigned num_kept;

static const struct vf_ndpat *pat(const char *text)
{
	struct vf_ndpat *p = NULL;

	if (num_kept < 16 && !vf_ndpat_compile(text, &p, NULL, 0))
		kept[num_kept++] = p;
	return p;
}

/*
 * One switch with four CAs: "stor01 HCA-1" (2 ports), "cn0001 HCA-1",
 * "cn0042 HCA-1", "admin1 HCA-1".  CA k has NodeGUID 0x1000 + 0x10 * k,
 * port GUIDs NodeGUID + port number.
 */
static struct vf_fabric *small(void)
{
	static const char *const desc[] = { "stor01 HCA-1", "cn0001 HCA-1",
					    "cn0042 HCA-1", "admin1 HCA-1" };
	struct vf_fabric *f = vf_fabric_create();

	vf_fabric_add_node(f, VF_NODE_SWITCH, 0x500, 0, 8, "sw", "leaf01");
	for (unsigned k = 0; k < 4; k++) {
		uint32_t n = vf_fabric_add_node(f, VF_NODE_CA,
						0x1000 + 0x10 * k, 0,
						k ? 1 : 2, desc[k], desc[k]);

		vf_fabric_link(f, vf_fabric_port(f, 0, k + 1),
			       vf_fabric_port(f, n, 1));
	}
	vf_fabric_assign_lids(f, 0);
	vf_fabric_finalize(f);
	return f;
}

/* Port index of port num of the CA described desc. */
static uint32_t port_of(const struct vf_fabric *f, const char *desc,
			unsigned num)
{
	return vf_fabric_port(f, vf_fabric_find_name(f, desc), num);
}

static void test_guids(const struct vf_fabric *f)
{
	/* stor01's NodeGUID, cn0042's port 1 GUID */
	static const uint64_t guids[] = { 0x1000, 0x1021 };
	struct vf_devgroup g = { "g", { guids, 2 }, NULL, 0 };

	OK(vf_devgroup_has_port(f, &g, port_of(f, "stor01 HCA-1", 1)),
	   "NodeGUID: port 1 of the node is a member");
	OK(vf_devgroup_has_port(f, &g, port_of(f, "stor01 HCA-1", 2)),
	   "NodeGUID: port 2 of the node too");
	OK(vf_devgroup_has_port(f, &g, port_of(f, "cn0042 HCA-1", 1)),
	   "PortGUID: that port is a member");
	OK(!vf_devgroup_has_port(f, &g, port_of(f, "cn0001 HCA-1", 1)),
	   "a port with neither GUID listed is not");
}

static void test_patterns(const struct vf_fabric *f)
{
	const struct vf_ndpat *stor[] = { pat("stor*") };
	const struct vf_ndpat *range[] = { pat("cn00[01-42]*") };
	const struct vf_ndpat *digit[] = { pat("cn00[0-4]?*") };
	const struct vf_ndpat *two[] = { pat("admin1"), pat("admin? *") };
	const struct vf_ndpat *port2[] = { pat("stor* HCA-1:[2-2]") };
	struct vf_devgroup g = { "storage", { NULL, 0 }, stor, 1 };

	OK(stor[0] && range[0] && digit[0] && two[0] && two[1] && port2[0],
	   "the patterns compile");
	OK(vf_devgroup_has_port(f, &g, port_of(f, "stor01 HCA-1", 2)),
	   "stor* matches the storage node");
	OK(!vf_devgroup_has_port(f, &g, port_of(f, "cn0001 HCA-1", 1)),
	   "stor* does not match a compute node");
	g.desc_patterns = range;
	OK(vf_devgroup_has_port(f, &g, port_of(f, "cn0001 HCA-1", 1)) &&
	   vf_devgroup_has_port(f, &g, port_of(f, "cn0042 HCA-1", 1)) &&
	   !vf_devgroup_has_port(f, &g, port_of(f, "stor01 HCA-1", 1)),
	   "cn00[01-42]* matches cn0001 and cn0042, not stor01");
	g.desc_patterns = digit;
	OK(!vf_devgroup_has_port(f, &g, port_of(f, "cn0001 HCA-1", 1)) &&
	   !vf_devgroup_has_port(f, &g, port_of(f, "cn0042 HCA-1", 1)),
	   "cn00[0-4]?* is the FM's pattern, not a shell glob: [0-4] takes "
	   "the whole run of digits (01, 42), and one with a leading zero must "
	   "be as wide as the low end: neither cn0001 nor cn0042 (a glob "
	   "took both)");
	g.desc_patterns = two;
	g.num_patterns = 2;
	OK(vf_devgroup_has_port(f, &g, port_of(f, "admin1 HCA-1", 1)),
	   "the second of two patterns matches");
	g.num_patterns = 1;
	OK(!vf_devgroup_has_port(f, &g, port_of(f, "admin1 HCA-1", 1)),
	   "a pattern matches the whole NodeDesc, not a prefix");
	OK(!vf_devgroup_has_port(f, &g, vf_fabric_port(f, 0, 0)),
	   "the switch's NodeDesc does not match");
	g.desc_patterns = port2;
	OK(vf_devgroup_has_port(f, &g, port_of(f, "stor01 HCA-1", 2)) &&
	   !vf_devgroup_has_port(f, &g, port_of(f, "stor01 HCA-1", 1)),
	   "a port range :[2-2] takes port 2 of the node, not port 1");
}

static void test_first(const struct vf_fabric *f)
{
	const struct vf_ndpat *cn[] = { pat("cn*") };
	const struct vf_ndpat *all[] = { pat("*") };
	static const uint64_t guids[] = { 0x1011 };
	const struct vf_devgroup order[] = {
		{ "one", { guids, 1 }, NULL, 0 },
		{ "compute", { NULL, 0 }, cn, 1 },
		{ "all", { NULL, 0 }, all, 1 },
	};
	uint32_t cn1 = port_of(f, "cn0001 HCA-1", 1);

	EQ_U(vf_devgroup_first(f, order, 3, cn1), 0,
	     "a port in three groups belongs to the first listed");
	EQ_U(vf_devgroup_first(f, order + 1, 2, cn1), 0,
	     "without the first, to the next one holding it");
	EQ_U(vf_devgroup_first(f, order, 3, port_of(f, "cn0042 HCA-1", 1)), 1,
	     "cn0042: the compute group");
	EQ_U(vf_devgroup_first(f, order, 2, port_of(f, "stor01 HCA-1", 1)), 2,
	     "in no listed group: n");
	EQ_U(vf_devgroup_first(f, order, 3, port_of(f, "stor01 HCA-1", 1)), 2,
	     "the catch-all group holds it");
	EQ_U(vf_devgroup_first(f, NULL, 0, cn1), 0, "no groups: 0");
}

int main(void)
{
	struct vf_fabric *f = small();

	OK(f && f->finalized, "a switch with four CAs");
	test_guids(f);
	test_patterns(f);
	test_first(f);
	vf_fabric_destroy(f);
	while (num_kept)
		vf_ndpat_free(kept[--num_kept]);
	return tap_done();
}
