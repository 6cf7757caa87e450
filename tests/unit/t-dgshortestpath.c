// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * dgshortestpath: the destination order (RoutingOrder groups, then ports
 * in no group, shortestpath's order inside each), its effect on balance,
 * the shortestpath guarantees it keeps (reachability, min-hop, no credit
 * loop on trees, determinism), and that without a RoutingOrder it is
 * shortestpath, table for table.
 */
#include <errno.h>
#include <stdlib.h>

#include "routing/devgroup.h"
#include "common/log.h"
#include "routing/routecheck.h"
#include "tests/unit/fabrics.h"
#include "taptest.h"

/* NodeDesc patterns, compiled in main() (common/ndpattern.h) */
static const struct vf_ndpat *stor_glob[1], *cn_glob[1], *admin_glob[1],
			     *all_glob[1];

static const struct vf_devgroup storage = { "storage", { NULL, 0 },
					    stor_glob, 1 };
static const struct vf_devgroup compute = { "compute", { NULL, 0 },
					    cn_glob, 1 };
static const struct vf_devgroup admin = { "admin", { NULL, 0 },
					  admin_glob, 1 };
static const struct vf_devgroup everyone = { "all", { NULL, 0 },
					     all_glob, 1 };

static int route(const struct vf_fabric *f, struct vf_lfts *t, bool dg,
		 const struct vf_devgroup *order, unsigned n)
{
	struct vf_route_opts o;

	vf_route_opts_default(&o);
	o.routing_order = order;
	o.num_routing_order = n;
	if (vf_lfts_init(t, f->num_switches, f->max_lid))
		return -1;
	return dg ? vf_route_dgshortestpath(f, &o, t) :
		    vf_route_shortestpath(f, &o, t);
}

/*
 * The order made visible.  Leaf P has no hosts and one uplink to each of
 * PROBE_HOSTS spines (port k + 1 to spine k), leaf H has the hosts.  From
 * P every spine is equal-cost toward each host; routes toward one switch
 * go in rounds and take the lowest free port, so the k-th host routed
 * leaves P by port k + 1.  The hosts hang off H by port in LID order, so
 * shortestpath's order (by attachment) is LID order here.
 */
#define PROBE_HOSTS 4

static const char *const probe_desc[PROBE_HOSTS] = {
	"cn01", "stor01", "cn02", "admin1"
};
/* NodeGUIDs against LID order: the order is not by GUID */
static const uint64_t probe_guid[PROBE_HOSTS] = { 0x40, 0x30, 0x20, 0x10 };

static struct vf_fabric *probe(void)
{
	struct vf_fabric *f = vf_fabric_create();

	vf_fabric_add_node(f, VF_NODE_SWITCH, 0x900, 0, PROBE_HOSTS, "P",
			   "P");
	vf_fabric_add_node(f, VF_NODE_SWITCH, 0x901, 0, 2 * PROBE_HOSTS, "H",
			   "H");
	for (unsigned k = 0; k < PROBE_HOSTS; k++) {
		uint32_t s = vf_fabric_add_node(f, VF_NODE_SWITCH, 0x910 + k,
						0, 2, "S", "S");

		vf_fabric_link(f, vf_fabric_port(f, 0, k + 1),
			       vf_fabric_port(f, s, 1));
		vf_fabric_link(f, vf_fabric_port(f, 1, PROBE_HOSTS + k + 1),
			       vf_fabric_port(f, s, 2));
	}
	for (unsigned i = 0; i < PROBE_HOSTS; i++) {
		uint32_t n = vf_fabric_add_node(f, VF_NODE_CA, probe_guid[i], 0,
						1, probe_desc[i],
						probe_desc[i]);

		vf_fabric_link(f, vf_fabric_port(f, 1, i + 1),
			       vf_fabric_port(f, n, 1));
	}
	vf_fabric_assign_lids(f, 0);
	vf_fabric_finalize(f);
	return f;
}

/*
 * Route the probe and write the routing order as the hosts' descriptions,
 * first routed first, separated by blanks.
 */
static void probe_order(bool dg, const struct vf_devgroup *order,
			unsigned n, char *out, size_t len)
{
	struct vf_fabric *f = probe();
	const char *by_rank[PROBE_HOSTS] = { NULL };
	struct vf_lfts t;

	out[0] = '\0';
	if (route(f, &t, dg, order, n)) {
		snprintf(out, len, "routing failed");
		goto out;
	}
	for (unsigned i = 0; i < PROBE_HOSTS; i++) {
		uint32_t ca = vf_fabric_find_name(f, probe_desc[i]);
		unsigned lid = vf_node_port(f, &f->nodes[ca], 1)->base_lid;
		unsigned port = vf_lft_row(&t, 0)[lid];

		if (port >= 1 && port <= PROBE_HOSTS)
			by_rank[port - 1] = probe_desc[i];
	}
	for (unsigned k = 0; k < PROBE_HOSTS; k++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s",
			 k ? " " : "", by_rank[k] ? by_rank[k] : "?");
	vf_lfts_free(&t);
out:
	vf_fabric_destroy(f);
}

#define EXPECT_ORDER(dg, order, n, expect, what)                         \
	do {                                                             \
		char got_[128];                                          \
		probe_order(dg, order, n, got_, sizeof(got_));           \
		EQ_S(got_, expect, what);                                \
	} while (0)

static void test_order(void)
{
	const struct vf_devgroup admin_storage[] = { admin, storage };
	const struct vf_devgroup all_first[] = { everyone, storage };
	const struct vf_devgroup all_last[] = { storage, everyone };
	static const uint64_t cn01_port[] = { 0x41 };
	const struct vf_devgroup by_guid = { "g", { cn01_port, 1 }, NULL, 0 };

	EXPECT_ORDER(false, NULL, 0, "cn01 stor01 cn02 admin1",
		     "probe: shortestpath routes by attachment");
	EXPECT_ORDER(true, NULL, 0, "cn01 stor01 cn02 admin1",
		     "no RoutingOrder: shortestpath's order");
	EXPECT_ORDER(true, &storage, 1, "stor01 cn01 cn02 admin1",
		     "storage first, then the ports in no group");
	EXPECT_ORDER(true, admin_storage, 2, "admin1 stor01 cn01 cn02",
		     "admin, storage, then the rest");
	EXPECT_ORDER(true, &compute, 1, "cn01 cn02 stor01 admin1",
		     "inside a group: by attachment, not by GUID");
	EXPECT_ORDER(true, all_first, 2, "cn01 stor01 cn02 admin1",
		     "a port belongs to the first listed group only");
	EXPECT_ORDER(true, all_last, 2, "stor01 cn01 cn02 admin1",
		     "a catch-all group listed last takes the rest");
	EXPECT_ORDER(true, &by_guid, 1, "cn01 stor01 cn02 admin1",
		     "a group by PortGUID");
}

/*
 * A 2-level fat tree: LEAVES leaves, 2 spines, 4 hosts per leaf, the
 * storage hosts on ports 1 and 3, compute on 2 and 4; LIDs and GUIDs in
 * node order, so LIDs interleave storage and compute hosts.  Leaf l:
 * uplink to spine s on port 5 + s; switch numbers: leaves 0.., spines.
 */
#define LEAVES 4
#define HOSTS 4

static struct vf_fabric *storage_tree(unsigned lmc, bool reverse)
{
	struct vf_fabric *f = vf_fabric_create();
	char name[32];

	for (unsigned l = 0; l < LEAVES; l++) {
		snprintf(name, sizeof(name), "L%u", l);
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x200000 + l, 0,
				   HOSTS + 2, name, name);
	}
	for (unsigned s = 0; s < 2; s++) {
		snprintf(name, sizeof(name), "S%u", s);
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x200100 + s, 0, LEAVES,
				   name, name);
		for (unsigned l = 0; l < LEAVES; l++)
			vf_fabric_link(f, vf_fabric_port(f, l, HOSTS + 1 + s),
				       vf_fabric_port(f, LEAVES + s, l + 1));
	}
	for (unsigned i = 0; i < LEAVES * HOSTS; i++) {
		/* reverse: the same hosts added (and given LIDs) backwards */
		unsigned j = reverse ? LEAVES * HOSTS - 1 - i : i;
		unsigned l = j / HOSTS, h = j % HOSTS;
		uint32_t n;

		if (h % 2)
			snprintf(name, sizeof(name), "cn%04u HCA-1", j);
		else
			snprintf(name, sizeof(name), "stor%02u HCA-1", j);
		n = vf_fabric_add_node(f, VF_NODE_CA, 0x100000 + 4 * j, 0, 1,
				       name, name);
		vf_fabric_link(f, vf_fabric_port(f, l, h + 1),
			       vf_fabric_port(f, n, 1));
	}
	vf_fabric_assign_lids(f, lmc);
	vf_fabric_finalize(f);
	return f;
}

/*
 * How many leaves split the base LIDs of the remote storage hosts evenly
 * over their two uplinks.
 */
static unsigned storage_even_leaves(const struct vf_fabric *f,
				    const struct vf_lfts *t)
{
	unsigned even = 0;

	for (unsigned l = 0; l < LEAVES; l++) {
		unsigned up[2] = { 0, 0 };

		for (uint32_t p = 0; p < f->num_ports; p++) {
			const struct vf_port *dp = &f->ports[p];
			uint8_t out;

			if (!dp->base_lid || vf_is_switch(&f->nodes[dp->node]) ||
			    strncmp(vf_node_desc(f, &f->nodes[dp->node]),
				    "stor", 4))
				continue;
			out = vf_lft_row(t, l)[dp->base_lid];
			if (out == HOSTS + 1 || out == HOSTS + 2)
				up[out - HOSTS - 1]++;
		}
		even += up[0] == up[1];
	}
	return even;
}

static void check_tree(const struct vf_fabric *f, const struct vf_lfts *t,
		       const char *what)
{
	struct vf_route_report r;
	char msg[160];

	OK(!vf_route_check(f, t, &r), what);
	snprintf(msg, sizeof(msg), "%s: all reachable, min-hop", what);
	OK(!r.ca_unreachable && !r.sw_unreachable && !r.max_stretch, msg);
	snprintf(msg, sizeof(msg), "%s: no credit loop", what);
	OK(!r.credit_loop, msg);
	snprintf(msg, sizeof(msg), "%s: all-to-all load perfectly even",
		 what);
	OK(r.load_max_over_avg < 1.01, msg);
}

static void test_storage_first(void)
{
	const struct vf_devgroup order[] = { storage, compute };
	struct vf_fabric *f = storage_tree(0, false);
	struct vf_lfts sp, dg;

	OK(!route(f, &sp, false, NULL, 0), "storage tree: shortestpath");
	OK(!route(f, &dg, true, order, 2),
	   "storage tree: dgshortestpath, storage:compute");
	/* measured: leaves 0 and 3 send all 6 over one spine, 1 and 2 2/4 */
	EQ_U(storage_even_leaves(f, &sp), 0,
	     "LID order: no leaf splits its 6 remote storage hosts evenly");
	EQ_U(storage_even_leaves(f, &dg), LEAVES,
	     "storage first: every leaf splits them 3/3 over its uplinks");
	check_tree(f, &sp, "shortestpath");
	check_tree(f, &dg, "dgshortestpath");
	vf_lfts_free(&sp);
	vf_lfts_free(&dg);
	vf_fabric_destroy(f);
}

static void test_lmc(void)
{
	const struct vf_devgroup order[] = { storage };
	struct vf_fabric *f = storage_tree(1, false);
	struct vf_route_report r;
	struct vf_lfts t;

	OK(!route(f, &t, true, order, 1) && !vf_route_check(f, &t, &r),
	   "LMC 1, storage first");
	EQ_U(r.ca_unreachable + r.sw_unreachable, 0,
	     "every LID of every port reachable");
	EQ_U(r.max_stretch, 0, "all LMC routes are shortest");
	OK(!r.credit_loop, "no credit loop");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/* Egress port at switch s toward the CA with this NodeGUID. */
static uint8_t egress(const struct vf_fabric *f, const struct vf_lfts *t,
		      uint32_t s, uint64_t guid)
{
	uint32_t n = vf_fabric_find_guid(f, guid);

	return vf_lft_row(t, s)[vf_node_port(f, &f->nodes[n], 1)->base_lid];
}

static void test_deterministic(void)
{
	const struct vf_devgroup order[] = { storage, compute };
	struct vf_fabric *f = storage_tree(0, false);
	struct vf_fabric *g = storage_tree(0, true);
	struct vf_lfts a, b, c;
	bool same = true;

	OK(!route(f, &a, true, order, 2) && !route(f, &b, true, order, 2),
	   "route twice");
	OK(!memcmp(a.port, b.port, (size_t)a.num_switches * (a.max_lid + 1)),
	   "identical tables from identical input");
	OK(!route(g, &c, true, order, 2),
	   "route the same hosts listed and numbered backwards");
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (unsigned j = 0; j < LEAVES * HOSTS; j++)
			same &= egress(f, &a, s, 0x100000 + 4 * j) ==
				egress(g, &c, s, 0x100000 + 4 * j);
	OK(same, "every host is reached the same way whatever its LID");
	vf_lfts_free(&a);
	vf_lfts_free(&b);
	vf_lfts_free(&c);
	vf_fabric_destroy(f);
	vf_fabric_destroy(g);
}

static void test_too_many(void)
{
	struct vf_devgroup order[VF_DG_MAX_ORDER + 1];
	struct vf_fabric *f = probe();
	struct vf_lfts t;

	for (unsigned i = 0; i <= VF_DG_MAX_ORDER; i++)
		order[i] = storage;
	EQ_U(route(f, &t, true, order, VF_DG_MAX_ORDER + 1), (uint64_t)-EINVAL,
	     "more than 8 groups: -EINVAL");
	vf_lfts_free(&t);
	OK(!route(f, &t, true, order, VF_DG_MAX_ORDER), "8 groups are fine");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/* Both engines on f without a RoutingOrder: the very same tables. */
static void same_tables(struct vf_fabric *f, const char *what)
{
	struct vf_lfts sp, dg;
	char msg[160];

	if (!f) {
		OK(false, what);
		return;
	}
	snprintf(msg, sizeof(msg), "%s: both engines route", what);
	OK(!route(f, &sp, false, NULL, 0) && !route(f, &dg, true, NULL, 0),
	   msg);
	snprintf(msg, sizeof(msg),
		 "%s: dgshortestpath without RoutingOrder = shortestpath",
		 what);
	OK(!memcmp(sp.port, dg.port,
		   (size_t)sp.num_switches * (sp.max_lid + 1)), msg);
	vf_lfts_free(&sp);
	vf_lfts_free(&dg);
	vf_fabric_destroy(f);
}

/*
 * Documented as equal, and once measured less balanced (GUID order):
 * uneven and interleaved trees, LMC, degraded trees, chassis, rings.
 */
static void test_no_order_is_shortestpath(void)
{
	static const char *const nets[] = {
		"ft3-degraded.net", "ft2-degraded.net", "ft2-trunk2.net",
		"dcs2-edges.net", "torus-3x3.net", "random-10.net",
	};

	same_tables(fat_tree(6, 4, 5, 0), "6 leaves x 5 hosts + 4 spines");
	same_tables(fat_tree(5, 3, 7, 2), "5 x 7 + 3, LMC 2");
	same_tables(fat_tree_lids(7, 3, 4, 0, true),
		    "7 x 4 + 3, LIDs interleaved");
	same_tables(storage_tree(1, true), "storage tree, LMC 1, reversed");
	for (unsigned i = 0; i < sizeof(nets) / sizeof(nets[0]); i++)
		same_tables(golden_fabric(nets[i]), nets[i]);
}

static const struct vf_ndpat *compiled(const char *text)
{
	struct vf_ndpat *p = NULL;

	return vf_ndpat_compile(text, &p, NULL, 0) ? NULL : p;
}

int main(void)
{
	const struct vf_ndpat **globs[] = { stor_glob, cn_glob, admin_glob,
					    all_glob };

	vf_log_set_level(VF_LOG_WARN);
	stor_glob[0] = compiled("stor*");
	cn_glob[0] = compiled("cn*");
	admin_glob[0] = compiled("admin*");
	all_glob[0] = compiled("*");
	OK(stor_glob[0] && cn_glob[0] && admin_glob[0] && all_glob[0],
	   "the groups' NodeDesc patterns compile");
	test_order();
	test_storage_first();
	test_lmc();
	test_deterministic();
	test_too_many();
	test_no_order_is_shortestpath();
	for (unsigned i = 0; i < 4; i++)
		vf_ndpat_free((struct vf_ndpat *)globs[i][0]);
	return tap_done();
}
