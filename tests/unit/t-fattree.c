// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * fattree: up/down routes (no credit loop by construction), the optimum on
 * full trees whatever the LID order, LMC spread over distinct upper
 * switches, RouteLast, core switches, degraded trees, and the fallback to
 * shortestpath on a fabric that is not a tree.
 */
#include <stdlib.h>

#include "routing/engine.h"
#include "routing/netfile.h"
#include "routing/routecheck.h"
#include "routing/internal/swgraph.h"
#include "fabrics.h"
#include "taptest.h"

static void quiet(void *ctx, enum vf_log_level level, const char *msg)
{
	if (level <= VF_LOG_WARN)
		snprintf(ctx, 512, "%s", msg);
}

static char last_warning[512];

static int route(const struct vf_fabric *f, const struct vf_route_opts *o,
		 struct vf_lfts *t)
{
	struct vf_route_opts def;

	if (!o) {
		vf_route_opts_default(&def);
		o = &def;
	}
	if (vf_lfts_init(t, f->num_switches, f->max_lid))
		return -1;
	return vf_route_fattree(f, o, t);
}

static int check(const struct vf_fabric *f, const struct vf_lfts *t,
		 struct vf_route_report *r)
{
	return vf_route_check(f, t, r);
}

/* The egress port of switch s toward CA node n (its port 1's base LID). */
static uint8_t toward(const struct vf_fabric *f, const struct vf_lfts *t,
		      uint32_t s, uint32_t n)
{
	return vf_lft_row(t, s)[vf_node_port(f, &f->nodes[n], 1)->base_lid];
}

/* Full trees: the optimum, and the same choices whatever the LID order. */
static void test_full_tree(void)
{
	struct vf_fabric *a = fat_tree_lids(8, 4, 8, 0, false);
	struct vf_fabric *b = fat_tree_lids(8, 4, 8, 0, true);
	struct vf_route_report r;
	struct vf_lfts ta, tb;
	bool same = true;

	OK(!route(a, NULL, &ta) && !route(b, NULL, &tb), "route 8x8+4 twice");
	OK(!check(b, &tb, &r), "check runs");
	EQ_U(r.ca_unreachable + r.sw_unreachable, 0, "all reachable");
	OK(!r.credit_loop, "no credit loop");
	EQ_U(r.max_stretch, 0, "shortest paths");
	/* 8 hosts x 56 remote hosts over 4 uplinks */
	EQ_U(r.load_max, 112, "busiest link at the optimum, 112");
	for (uint32_t s = 0; s < a->num_switches; s++)
		for (uint32_t n = 12; n < a->num_nodes; n++)
			same &= toward(a, &ta, s, n) == toward(b, &tb, s, n);
	OK(same, "the LID order changes no routing choice");
	vf_lfts_free(&ta);
	vf_lfts_free(&tb);
	vf_fabric_destroy(a);
	vf_fabric_destroy(b);
}

/* A 3-level tree from the golden set: the agg uplinks are the bottleneck. */
static void test_three_levels(void)
{
	struct vf_err err = { "" };
	char path[4096];
	struct vf_fabric *f;
	struct vf_route_report r;
	struct vf_lfts t;
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/tests/golden/ft3-small.net",
		 top ? top : ".");
	f = vf_netfile_load(path, 0, &err);
	if (!OK(f != NULL, "load ft3-small.net")) {
		printf("#   %s\n", err.msg);
		return;
	}
	OK(!route(f, NULL, &t) && !check(f, &t, &r), "route and check");
	EQ_U(r.ca_unreachable, 0, "all reachable");
	OK(!r.credit_loop, "no credit loop in data traffic");
	EQ_U(r.max_stretch, 0, "shortest paths on a full tree");
	/*
	 * A leaf's 3 hosts send to 9 others over 2 uplinks: with one route
	 * per destination, 5 destinations share one uplink: 15.
	 */
	EQ_U(r.load_max, 15, "busiest link at the destination-routing optimum");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/* LMC 2 over 3 spines: the 4 LIDs of a port use all 3 spines. */
static void test_lmc(void)
{
	struct vf_fabric *f = fat_tree_lids(6, 3, 4, 2, false);
	struct vf_route_report r;
	struct vf_lfts t;
	bool spread = true;

	OK(!route(f, NULL, &t) && !check(f, &t, &r), "route LMC 2");
	EQ_U(r.ca_unreachable, 0, "every LID reachable");
	OK(!r.credit_loop, "no credit loop");
	for (uint32_t s = 0; s < 6; s++) {
		for (uint32_t n = 9; n < f->num_nodes; n++) {
			const struct vf_port *p = vf_node_port(f, &f->nodes[n], 1);
			uint8_t *row = vf_lft_row(&t, s);
			bool used[16] = { false };
			unsigned distinct = 0;

			if (row[p->base_lid] <= 4)
				continue;	/* a local host */
			for (unsigned i = 0; i < 4; i++) {
				distinct += !used[row[p->base_lid + i]];
				used[row[p->base_lid + i]] = true;
			}
			spread &= distinct == 3;
		}
	}
	OK(spread, "every remote port's 4 LIDs leave by all 3 uplinks");
	/* base LIDs alone are balanced too: 20 remote hosts per leaf */
	EQ_U(r.load_max, 28, "base-LID all-to-all at the optimum");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/* RouteLast: the compute nodes are balanced among themselves first. */
static void test_route_last(void)
{
	struct vf_fabric *f = fat_tree_lids(4, 2, 3, 0, false);
	uint64_t last[4];
	struct vf_route_opts o;
	struct vf_lfts t;
	uint32_t first_host = 6;
	bool balanced = true;

	/* the third host of each leaf is a storage node */
	for (unsigned l = 0; l < 4; l++)
		last[l] = f->nodes[first_host + l * 3 + 2].guid;
	vf_route_opts_default(&o);
	o.route_last.guids = last;
	o.route_last.count = 4;
	OK(!route(f, &o, &t), "route with RouteLast");
	for (uint32_t s = 0; s < 4; s++) {
		unsigned up[2] = { 0, 0 };

		for (unsigned l = 0; l < 4; l++)
			for (unsigned h = 0; h < 2; h++) {
				uint8_t p = toward(f, &t, s,
						   first_host + l * 3 + h);

				if (p >= 4)
					up[p - 4]++;
			}
		balanced &= up[0] == up[1];
	}
	OK(balanced, "each leaf splits the remote compute nodes 3/3");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/*
 * A leaf without hosts sits, seen from the end nodes, above the spines;
 * naming the spines as core switches puts it back among the leaves.  Both
 * route every pair without a credit loop.
 */
static void test_core_switches(void)
{
	struct vf_fabric *f = vf_fabric_create();
	uint64_t cores[2] = { 0x200100, 0x200101 };
	struct vf_route_opts o;
	struct vf_route_report r;
	struct vf_lfts t;

	/* leaves 0..2, leaf 2 empty; spines 3, 4; hosts of leaves 0, 1 */
	for (unsigned l = 0; l < 3; l++)
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x200000 + l, 0, 4,
				   "leaf", NULL);
	for (unsigned s = 0; s < 2; s++) {
		vf_fabric_add_node(f, VF_NODE_SWITCH, cores[s], 0, 3, "spine",
				   NULL);
		for (unsigned l = 0; l < 3; l++)
			vf_fabric_link(f, vf_fabric_port(f, l, 3 + s),
				       vf_fabric_port(f, 3 + s, l + 1));
	}
	for (unsigned h = 0; h < 4; h++) {
		uint32_t n = vf_fabric_add_node(f, VF_NODE_CA, 0x1000 + 4 * h,
						0, 1, "cn", NULL);

		vf_fabric_link(f, vf_fabric_port(f, h / 2, h % 2 + 1),
			       vf_fabric_port(f, n, 1));
	}
	vf_fabric_assign_lids(f, 0);
	vf_fabric_finalize(f);
	OK(!route(f, NULL, &t) && !check(f, &t, &r), "tiers from end nodes");
	OK(!r.credit_loop && !r.ca_unreachable && !r.sw_unreachable,
	   "... all reachable, no credit loop");
	vf_lfts_free(&t);
	vf_route_opts_default(&o);
	o.core_switches.guids = cores;
	o.core_switches.count = 2;
	OK(!route(f, &o, &t) && !check(f, &t, &r), "tiers from core switches");
	OK(!r.credit_loop && !r.ca_unreachable && !r.sw_unreachable,
	   "... all reachable, no credit loop");
	EQ_U(r.max_stretch, 0, "... shortest paths");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/* Missing cables: still up/down, all reachable, no credit loop. */
static void test_degraded(void)
{
	struct vf_fabric *f = fat_tree_lids(6, 3, 4, 0, true);
	struct vf_route_report r;
	struct vf_lfts t;

	/* leaf1-spine1 and leaf4-spine2 cables fail */
	vf_node_port(f, &f->nodes[0], 5)->healthy = false;
	vf_node_port(f, &f->nodes[3], 6)->healthy = false;
	OK(!route(f, NULL, &t) && !check(f, &t, &r), "route a degraded tree");
	EQ_U(r.ca_unreachable, 0, "all CA pairs reachable");
	OK(!r.credit_loop, "no credit loop in data traffic");
	OK(strstr(last_warning, "not a fat tree") == NULL,
	   "no fallback: a degraded tree is still a tree");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/* A ring is not a tree: a warning, then exactly shortestpath's tables. */
static void test_fallback(void)
{
	struct vf_fabric *f = vf_fabric_create();
	struct vf_route_opts o;
	struct vf_lfts a, b;

	for (unsigned i = 0; i < 4; i++)
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x300 + i, 0, 3, "ring",
				   NULL);
	for (unsigned i = 0; i < 4; i++) {
		uint32_t h = vf_fabric_add_node(f, VF_NODE_CA, 0x1000 + 4 * i,
						0, 1, "cn", NULL);

		vf_fabric_link(f, vf_fabric_port(f, i, 2),
			       vf_fabric_port(f, (i + 1) % 4, 3));
		vf_fabric_link(f, vf_fabric_port(f, i, 1),
			       vf_fabric_port(f, h, 1));
	}
	vf_fabric_assign_lids(f, 0);
	vf_fabric_finalize(f);
	last_warning[0] = '\0';
	OK(!route(f, NULL, &a), "fattree on a ring succeeds");
	OK(strstr(last_warning, "shortestpath instead") != NULL,
	   "and warns that it falls back to shortestpath");
	vf_route_opts_default(&o);
	vf_lfts_init(&b, f->num_switches, f->max_lid);
	vf_route_shortestpath(f, &o, &b);
	OK(!memcmp(a.port, b.port, (size_t)a.num_switches * (a.max_lid + 1)),
	   "the tables are shortestpath's");
	vf_lfts_free(&a);
	vf_lfts_free(&b);
	vf_fabric_destroy(f);
}

/*
 * LMC 1 over four chips in two chassis: the two LIDs of each host leave
 * its edge switch toward different chassis (SystemImageGUIDs).
 */
static void test_lmc_chassis(void)
{
	static const char net[] =
		"switchguid=0x500\nSwitch 5 \"E0\"\n[1] \"h0\"[1]\n"
		"[2] \"A1\"[1]\n[3] \"A2\"[1]\n[4] \"B1\"[1]\n"
		"[5] \"B2\"[1]\n\n"
		"switchguid=0x501\nSwitch 5 \"E1\"\n[1] \"h1\"[1]\n"
		"[2] \"A1\"[2]\n[3] \"A2\"[2]\n[4] \"B1\"[2]\n"
		"[5] \"B2\"[2]\n\n"
		"switchguid=0x600\nsysimgguid=0xa\nSwitch 2 \"A1\"\n"
		"[1] \"E0\"[2]\n[2] \"E1\"[2]\n\n"
		"sysimgguid=0xa\nSwitch 2 \"A2\"\n"
		"[1] \"E0\"[3]\n[2] \"E1\"[3]\n\n"
		"sysimgguid=0xb\nSwitch 2 \"B1\"\n"
		"[1] \"E0\"[4]\n[2] \"E1\"[4]\n\n"
		"sysimgguid=0xb\nSwitch 2 \"B2\"\n"
		"[1] \"E0\"[5]\n[2] \"E1\"[5]\n\n"
		"Hca 1 \"h0\"\n[1] \"E0\"[1]\n\n"
		"Hca 1 \"h1\"\n[1] \"E1\"[1]\n";
	struct vf_err err = { "" };
	FILE *in = fmemopen((void *)net, sizeof(net) - 1, "r");
	struct vf_fabric *f = vf_netfile_read(in, "chassis.net", 1, &err);
	struct vf_lfts t;
	bool both = true;

	fclose(in);
	if (!OK(f != NULL, "load the two-chassis fabric")) {
		printf("#   %s\n", err.msg);
		return;
	}
	OK(!route(f, NULL, &t), "route with LMC 1");
	for (unsigned h = 0; h < 2; h++) {
		uint32_t host = vf_fabric_find_name(f, h ? "h1" : "h0");
		uint32_t from = f->nodes[vf_fabric_find_name(f, h ? "E0" :
							    "E1")].sw;
		const struct vf_port *p = vf_node_port(f, &f->nodes[host], 1);
		uint8_t a = vf_lft_row(&t, from)[p->base_lid];
		uint8_t b = vf_lft_row(&t, from)[p->base_lid + 1];

		/* ports 2, 3 lead to chassis 0xa; 4, 5 to 0xb */
		both &= a >= 2 && b >= 2 && (a <= 3) != (b <= 3);
	}
	OK(both, "each host's two LIDs leave toward different chassis");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/*
 * A 2-level tree like fat_tree_lids() (same names, GUIDs and ports) with its nodes
 * created in reverse order: hosts, then spines, then leaves, each backward.
 */
static struct vf_fabric *tree2_reversed(unsigned leaves, unsigned spines,
					unsigned hosts)
{
	struct vf_fabric *f = vf_fabric_create();
	char name[32], peer[32];

	for (unsigned i = leaves * hosts; i-- > 0;) {
		snprintf(name, sizeof(name), "H%u_%u", i / hosts, i % hosts);
		vf_fabric_add_node(f, VF_NODE_CA, 0x100000 + 4 * i, 0, 1, name,
				   NULL);
	}
	for (unsigned s = spines; s-- > 0;) {
		snprintf(name, sizeof(name), "S%u", s);
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x200100 + s, 0, leaves,
				   name, NULL);
	}
	for (unsigned l = leaves; l-- > 0;) {
		uint32_t leaf;

		snprintf(name, sizeof(name), "L%u", l);
		leaf = vf_fabric_add_node(f, VF_NODE_SWITCH, 0x200000 + l, 0,
					  hosts + spines, name, NULL);
		for (unsigned h = 0; h < hosts; h++) {
			snprintf(peer, sizeof(peer), "H%u_%u", l, h);
			vf_fabric_link(f, vf_fabric_port(f, leaf, h + 1),
				       vf_fabric_port(f, vf_fabric_find_name(
							      f, peer), 1));
		}
		for (unsigned sp = 0; sp < spines; sp++) {
			snprintf(peer, sizeof(peer), "S%u", sp);
			vf_fabric_link(f, vf_fabric_port(f, leaf,
							 hosts + 1 + sp),
				       vf_fabric_port(f, vf_fabric_find_name(
							      f, peer), l + 1));
		}
	}
	for (uint32_t p = 0; p < f->num_ports; p++) {
		f->ports[p].width = 4;
		f->ports[p].speed = VF_SPEED_QDR;
	}
	vf_fabric_assign_lids(f, 0);
	vf_fabric_finalize(f);
	return f;
}

/* Take leaf1's cable to spine1 (leaf port hosts + 1) out of f. */
static void cut_leaf1_spine1(struct vf_fabric *f, unsigned hosts)
{
	uint32_t leaf = vf_fabric_find_name(f, "L0");
	struct vf_port *p = vf_node_port(f, &f->nodes[leaf], hosts + 1);

	p->healthy = false;
	f->ports[p->remote].healthy = false;
}

/*
 * The same degraded tree with nodes (and so LIDs) in another order: every
 * switch sends every destination port the same way.  The degraded case
 * matters: its choices depend on the switches routed before.
 */
static void test_order_independent(void)
{
	struct vf_fabric *a = fat_tree_lids(6, 3, 4, 0, false);
	struct vf_fabric *b = tree2_reversed(6, 3, 4);
	struct vf_lfts ta, tb;
	unsigned compared = 0;
	bool same = true;

	cut_leaf1_spine1(a, 4);
	cut_leaf1_spine1(b, 4);
	OK(!route(a, NULL, &ta) && !route(b, NULL, &tb), "route both orders");
	for (uint32_t s = 0; s < a->num_switches; s++) {
		const struct vf_node *sw = &a->nodes[a->switches[s]];
		uint32_t bs = b->nodes[vf_fabric_find_guid(b, sw->guid)].sw;

		for (uint32_t n = 0; n < a->num_nodes; n++) {
			const struct vf_node *ca = &a->nodes[n];
			uint32_t bn;

			if (vf_is_switch(ca))
				continue;
			bn = vf_fabric_find_guid(b, ca->guid);
			compared++;
			same &= vf_lft_row(&ta, s)[vf_node_port(a, ca, 1)->base_lid] ==
				vf_lft_row(&tb, bs)[vf_node_port(b, &b->nodes[bn],
								 1)->base_lid];
		}
	}
	OK(compared == 9 * 24 && same,
	   "node and LID order change no routing choice (degraded tree)");
	vf_lfts_free(&ta);
	vf_lfts_free(&tb);
	vf_fabric_destroy(a);
	vf_fabric_destroy(b);
}

/*
 * LMC 1..3 on a tree with 4 spines: at every leaf, a remote port's LIDs
 * leave by min(2^LMC, 4) distinct uplinks, for both engines.
 */
static void test_lmc_diversity(void)
{
	static const char *const engines[] = { "fattree", "shortestpath" };

	for (unsigned lmc = 1; lmc <= 3; lmc++) {
		struct vf_fabric *f = fat_tree_lids(4, 4, 2, lmc, false);
		unsigned want = (1u << lmc) < 4 ? 1u << lmc : 4;

		for (unsigned e = 0; e < 2; e++) {
			const struct vf_engine *eng = vf_engine_find(engines[e]);
			struct vf_route_opts o;
			struct vf_route_report r;
			struct vf_lfts t;
			char msg[96];

			vf_route_opts_default(&o);
			vf_lfts_init(&t, f->num_switches, f->max_lid);
			snprintf(msg, sizeof(msg),
				 "%s LMC %u: every remote port over %u uplinks",
				 engines[e], lmc, want);
			OK(!eng->route(f, &o, &t) && !vf_route_check(f, &t, &r) &&
			   r.lmc_pairs && r.lmc_distinct_sum ==
			   (uint64_t)want * r.lmc_pairs && !r.ca_unreachable,
			   msg);
			vf_lfts_free(&t);
		}
		vf_fabric_destroy(f);
	}
}

/*
 * One fabric, one engine, one LMC: every LID offset, taken alone as
 * all-to-all traffic, within 10% of the leaf-uplink bound (the base LIDs'
 * bound: each offset is the same traffic to other LIDs), and a remote
 * port's LIDs over min(2^LMC, uplinks) distinct uplinks at every leaf.
 */
static void offsets_balanced(const struct vf_fabric *f, const char *engine,
			     unsigned lmc, unsigned uplinks, const char *what)
{
	const struct vf_engine *eng = vf_engine_find(engine);
	unsigned want = (1u << lmc) < uplinks ? 1u << lmc : uplinks;
	uint64_t bound = leaf_bound(f), worst = 0;
	struct vf_route_opts o;
	struct vf_route_report r;
	struct vf_lfts t;
	char msg[160];

	vf_route_opts_default(&o);
	vf_lfts_init(&t, f->num_switches, f->max_lid);
	snprintf(msg, sizeof(msg), "%s, %s LMC %u: routed, all reachable, "
		 "no credit loop", what, engine, lmc);
	OK(!eng->route(f, &o, &t) && !vf_route_check(f, &t, &r) &&
	   !r.ca_unreachable && !r.credit_loop &&
	   r.lid_offsets == 1u << lmc, msg);
	for (unsigned i = 0; i < r.lid_offsets; i++)
		if (r.load_max_by_offset[i] > worst)
			worst = r.load_max_by_offset[i];
	snprintf(msg, sizeof(msg), "%s, %s LMC %u: busiest offset %llu, "
		 "within 10%% of the bound %llu", what, engine, lmc,
		 (unsigned long long)worst, (unsigned long long)bound);
	OK(worst * 10 <= bound * 11, msg);
	snprintf(msg, sizeof(msg), "%s, %s LMC %u: a port's LIDs over %u "
		 "uplinks", what, engine, lmc, want);
	OK(r.lmc_pairs && r.lmc_distinct_sum == (uint64_t)want * r.lmc_pairs,
	   msg);
	vf_lfts_free(&t);
}

/*
 * Alternate LIDs as balanced as the base LIDs on full trees, both engines
 * (they loaded their busiest link 2-7 times the bound when all offsets
 * shared one count), with the LIDs of a port still apart.
 */
static void test_lmc_offsets(void)
{
	static const char *const engines[] = { "fattree", "shortestpath" };

	for (unsigned lmc = 1; lmc <= 3; lmc++) {
		struct vf_fabric *fab[] = {
			fat_tree3(6, lmc), fat_tree3(10, lmc),
			fat_tree(6, 3, 5, lmc), fat_tree(12, 5, 7, lmc),
		};
		static const char *const what[] = {
			"k = 6 tree", "k = 10 tree", "6 x 5 + 3", "12 x 7 + 5",
		};
		static const unsigned up[] = { 3, 5, 3, 5 };

		for (unsigned i = 0; i < 4; i++) {
			for (unsigned e = 0; e < 2; e++)
				offsets_balanced(fab[i], engines[e], lmc, up[i],
						 what[i]);
			vf_fabric_destroy(fab[i]);
		}
	}
}

/*
 * A 3-level tree missing three cables (golden ft3-degraded.net): the flow
 * model keeps it deadlock-free, no heavier than shortestpath (once well
 * below it: 440 against 776; shortestpath's bottleneck rule now gets 448)
 * and near the bound.  The bound: pod 1 (32 of the 128 hosts) lost one of its 8
 * links to the cores, so 32 x 96 routes leave it over 7 links; one of them
 * carries at least 439.
 */
static void test_degraded_three_levels(void)
{
	struct vf_err err = { "" };
	char path[4096];
	const char *top = getenv("top_srcdir");
	struct vf_fabric *f;
	struct vf_route_report rf, rs;
	struct vf_route_opts o;
	struct vf_lfts tf, ts;

	snprintf(path, sizeof(path), "%s/tests/golden/ft3-degraded.net",
		 top ? top : ".");
	f = vf_netfile_load(path, 0, &err);
	if (!OK(f != NULL, "load ft3-degraded.net")) {
		printf("#   %s\n", err.msg);
		return;
	}
	vf_route_opts_default(&o);
	vf_lfts_init(&ts, f->num_switches, f->max_lid);
	OK(!route(f, NULL, &tf) && !vf_route_shortestpath(f, &o, &ts),
	   "route with fattree and shortestpath");
	OK(!vf_route_check(f, &tf, &rf) && !vf_route_check(f, &ts, &rs),
	   "check both");
	OK(!rf.credit_loop && !rf.ca_unreachable,
	   "fattree: no credit loop, all reachable");
	OK(rf.load_max <= rs.load_max,
	   "fattree's busiest link is no heavier than shortestpath's");
	OK(rf.load_max >= 439 && rf.load_max * 100 <= 439 * 110,
	   "fattree's busiest link is within 10% of the pod-cut bound 439");
	printf("# fattree %llu, shortestpath %llu\n",
	       (unsigned long long)rf.load_max,
	       (unsigned long long)rs.load_max);
	vf_lfts_free(&tf);
	vf_lfts_free(&ts);
	vf_fabric_destroy(f);
}

/* vf_swgraph_tier_bound() of f, its hosts counted here. */
static uint64_t tier_bound(const struct vf_fabric *f)
{
	struct vf_swgraph g;
	uint32_t *hosts = calloc(f->num_switches + 1, sizeof(*hosts));
	uint64_t bound = 0;

	if (!hosts || vf_swgraph_init(&g, f)) {
		free(hosts);
		return 0;
	}
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct vf_node *sw = &f->nodes[n];

		for (unsigned p = 1; vf_is_switch(sw) && p <= sw->num_ports;
		     p++) {
			const struct vf_port *x =
				vf_usable_peer(f, vf_node_port(f, sw, p));

			hosts[sw->sw] += x && !vf_is_switch(&f->nodes[x->node]);
		}
	}
	bound = vf_swgraph_tier_bound(&g, hosts);
	vf_swgraph_free(&g);
	free(hosts);
	return bound;
}

/*
 * The floor the search stops at: the tier cut, worked out by hand.  k = 4
 * and k = 6 trees: a leaf's H (N - H) / U routes per uplink (14 and 51)
 * exceed a pod's share (12 and 45).  3 chassis, 18 edge switches of 8
 * hosts, 2 uplinks to each chassis: every third edge switch goes to the
 * same 2 leaf chips per chassis, so those 6 chips and their 6 edge
 * switches pass 48 x 96 routes over 18 spine links, 256 each, where the
 * leaf bound is ceil(136 / 6) x 8 = 184.
 */
static void test_tier_bound(void)
{
	struct vf_fabric *k4 = fat_tree3(4, 0), *k6 = fat_tree3(6, 0);
	struct vf_fabric *dcs = golden_fabric("dcs3-edges-2up.net");

	OK(k4 && tier_bound(k4) == 14, "tier cut of a k=4 tree: 14");
	OK(k6 && tier_bound(k6) == 51, "tier cut of a k=6 tree: 51");
	OK(dcs && tier_bound(dcs) == 256 && leaf_bound(dcs) == 184,
	   "tier cut of 3 chassis with 18 edge switches x2: 256, above "
	   "the leaf bound 184");
	vf_fabric_destroy(k4);
	vf_fabric_destroy(k6);
	vf_fabric_destroy(dcs);
}

int main(void)
{
	vf_log_set_sink(quiet, last_warning);
	test_full_tree();
	test_three_levels();
	test_lmc();
	test_route_last();
	test_core_switches();
	last_warning[0] = '\0';
	test_degraded();
	test_fallback();
	test_lmc_chassis();
	test_order_independent();
	test_lmc_diversity();
	test_lmc_offsets();
	test_degraded_three_levels();
	test_tier_bound();
	vf_log_set_sink(NULL, NULL);
	return tap_done();
}
