// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * shortestpath: min-hop, balance, tie-breaks, unhealthy links, LMC spread,
 * determinism.  Fabrics are built in code so every expected number can be
 * worked out by hand.
 */
#include <stdlib.h>

#include "routing/engine.h"
#include "routing/routecheck.h"
#include "fabrics.h"
#include "taptest.h"

static int route(const struct vf_fabric *f, struct vf_lfts *t)
{
	struct vf_route_opts o = { 0 };

	if (vf_lfts_init(t, f->num_switches, f->max_lid))
		return -1;
	return vf_route_shortestpath(f, &o, t);
}

/* Number of CA LIDs each uplink port of leaf l carries. */
static void uplink_counts(const struct vf_fabric *f, const struct vf_lfts *t,
			  unsigned l, unsigned hosts, unsigned spines,
			  unsigned *count)
{
	const uint8_t *row = vf_lft_row(t, l);

	for (unsigned s = 0; s < spines; s++)
		count[s] = 0;
	for (unsigned lid = 1; lid <= f->max_lid; lid++) {
		uint32_t n = vf_fabric_lid_node(f, lid);

		if (n == VF_NONE || vf_is_switch(&f->nodes[n]))
			continue;
		if (row[lid] > hosts && row[lid] <= hosts + spines)
			count[row[lid] - hosts - 1]++;
	}
}

static void test_fat_tree(void)
{
	struct vf_fabric *f = fat_tree(4, 2, 4, 0);
	struct vf_route_report r;
	struct vf_lfts t;
	unsigned count[2];
	bool balanced = true, local_ok = true;

	OK(!route(f, &t), "route a 4x4 + 2 fat tree");
	OK(!vf_route_check(f, &t, &r), "route check runs");
	EQ_U(r.ca_unreachable, 0, "every CA pair reachable");
	EQ_U(r.sw_unreachable, 0, "every switch LID reachable");
	EQ_U(r.max_stretch, 0, "every route is a shortest path");
	OK(!r.credit_loop, "no credit loop on a fat tree");
	for (unsigned l = 0; l < 4; l++) {
		uplink_counts(f, &t, l, 4, 2, count);
		/* 12 remote hosts over 2 uplinks */
		balanced &= count[0] == 6 && count[1] == 6;
	}
	OK(balanced, "each leaf splits 12 remote hosts 6/6 over its uplinks");
	EQ_U(r.load_max, 24, "all-to-all: busiest link carries 24 routes");
	OK(r.load_max_over_avg < 1.01, "all-to-all load is perfectly even");
	for (unsigned l = 0; l < 4; l++)
		for (unsigned h = 0; h < 4; h++) {
			uint32_t ca = vf_fabric_find_name(f, "H0_0") + l * 4 + h;
			unsigned lid = vf_node_port(f, &f->nodes[ca], 1)->base_lid;

			local_ok &= vf_lft_row(&t, l)[lid] == h + 1;
		}
	OK(local_ok, "a leaf sends its own hosts' LIDs to their ports");
	EQ_U(vf_lft_row(&t, 4)[vf_node_port(f, &f->nodes[4], 0)->base_lid], 0,
	     "a switch's own LID maps to port 0");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

static void test_tie_break(void)
{
	struct vf_fabric *f = fat_tree(2, 2, 1, 0);
	struct vf_lfts t;
	uint32_t h1 = vf_fabric_find_name(f, "H1_0");
	uint32_t h0 = vf_fabric_find_name(f, "H0_0");
	unsigned lid1 = vf_node_port(f, &f->nodes[h1], 1)->base_lid;
	unsigned lid0 = vf_node_port(f, &f->nodes[h0], 1)->base_lid;

	OK(!route(f, &t), "route 2 leaves x 1 host");
	OK(lid0 < lid1, "H0_0 has the lower LID");
	EQ_U(vf_lft_row(&t, 1)[lid0], 2,
	     "first CA LID: all equal, lowest port (to S0)");
	EQ_U(vf_lft_row(&t, 0)[lid1], 3,
	     "second CA LID: S0 already used by a route, so S1");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

static void test_unhealthy(void)
{
	struct vf_fabric *f = fat_tree(4, 2, 4, 0);
	struct vf_route_report r;
	struct vf_lfts t;
	bool avoided = true;

	/* leaf 0's uplink to spine 0 (port 5) goes bad */
	vf_node_port(f, &f->nodes[0], 5)->healthy = false;
	OK(!route(f, &t), "route with an unhealthy uplink");
	for (unsigned lid = 1; lid <= f->max_lid; lid++)
		avoided &= vf_lft_row(&t, 0)[lid] != 5;
	OK(avoided, "leaf 0 never routes out of the unhealthy port");
	for (unsigned lid = 1; lid <= f->max_lid; lid++) {
		uint32_t n = vf_fabric_lid_node(f, lid);

		if (n != VF_NONE && !vf_is_switch(&f->nodes[n]) &&
		    n >= vf_fabric_find_name(f, "H0_0") + 4)
			avoided &= vf_lft_row(&t, 4)[lid] != 1;
	}
	OK(avoided, "spine 0 does not send other leaves' hosts to leaf 0");
	OK(!vf_route_check(f, &t, &r), "route check runs");
	EQ_U(r.ca_unreachable, 0, "still every CA pair reachable");
	OK(!r.credit_loop, "no credit loop");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

static void test_lmc(void)
{
	struct vf_fabric *f = fat_tree(4, 2, 4, 2);
	struct vf_route_report r;
	struct vf_lfts t;
	bool spread = true;
	uint32_t first = vf_fabric_find_name(f, "H0_0");

	OK(!route(f, &t), "route with LMC 2");
	/* from leaf 3, the 4 LIDs of each host on leaf 0 use both spines */
	for (unsigned h = 0; h < 4; h++) {
		const struct vf_port *p =
			vf_node_port(f, &f->nodes[first + h], 1);
		unsigned to_s0 = 0;

		for (unsigned k = 0; k < 4; k++)
			to_s0 += vf_lft_row(&t, 3)[p->base_lid + k] == 5;
		spread &= to_s0 == 2;
	}
	OK(spread, "each host's 4 LIDs go 2 via S0 and 2 via S1");
	OK(!vf_route_check(f, &t, &r), "route check runs");
	EQ_U(r.ca_unreachable, 0, "every LID of every CA reachable");
	EQ_U(r.max_stretch, 0, "all LMC routes are shortest");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/* A ring of 6 switches with one host each: min-hop, no shortcuts. */
static void test_ring(void)
{
	struct vf_fabric *f = vf_fabric_create();
	struct vf_route_report r;
	struct vf_lfts t;
	char name[16];

	for (unsigned i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "R%u", i);
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x300 + i, 0, 3, name,
				   NULL);
	}
	for (unsigned i = 0; i < 6; i++) {
		uint32_t h;

		vf_fabric_link(f, vf_fabric_port(f, i, 2),
			       vf_fabric_port(f, (i + 1) % 6, 3));
		snprintf(name, sizeof(name), "C%u", i);
		h = vf_fabric_add_node(f, VF_NODE_CA, 0x1000 + 4 * i, 0, 1,
				       name, NULL);
		vf_fabric_link(f, vf_fabric_port(f, i, 1),
			       vf_fabric_port(f, h, 1));
	}
	vf_fabric_assign_lids(f, 0);
	vf_fabric_finalize(f);
	OK(!route(f, &t), "route a 6-ring");
	OK(!vf_route_check(f, &t, &r), "route check runs");
	EQ_U(r.ca_unreachable + r.sw_unreachable, 0, "all reachable");
	EQ_U(r.max_stretch, 0, "min-hop on the ring");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

static void test_deterministic(void)
{
	struct vf_fabric *f = fat_tree(6, 3, 5, 1);
	struct vf_lfts a, b;

	OK(!route(f, &a) && !route(f, &b), "route twice");
	OK(!memcmp(a.port, b.port,
		   (size_t)a.num_switches * (a.max_lid + 1)),
	   "identical tables from identical input");
	vf_lfts_free(&a);
	vf_lfts_free(&b);
	vf_fabric_destroy(f);
}

static void test_disconnected(void)
{
	struct vf_fabric *f = fat_tree(2, 1, 1, 0);
	struct vf_lfts t;
	uint32_t h1 = vf_fabric_find_name(f, "H1_0");
	unsigned lid1 = vf_node_port(f, &f->nodes[h1], 1)->base_lid;

	/* cut leaf 1 off entirely: its only uplink is unhealthy */
	vf_node_port(f, &f->nodes[1], 2)->healthy = false;
	OK(!route(f, &t), "routing a split fabric still succeeds");
	EQ_U(vf_lft_row(&t, 0)[lid1], VF_NO_PORT,
	     "an unreachable destination stays a drop");
	EQ_U(vf_lft_row(&t, 1)[lid1], 1, "its own leaf still reaches it");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/*
 * Hosts of a leaf `leaves` LIDs apart, as many as there are spines: the
 * least-loaded rotation of every leaf would fall into step with the LIDs
 * and reach all hosts of a leaf through one spine; the per-destination
 * rounds must keep every link at exactly its share.
 */
static void check_interleaved(unsigned leaves, unsigned spines,
			      unsigned hosts, const char *what)
{
	struct vf_fabric *f = fat_tree_lids(leaves, spines, hosts, 0, true);
	unsigned share = hosts * (leaves - 1) * hosts / spines;
	struct vf_route_report r;
	struct vf_lfts t;
	char msg[160];

	OK(!route(f, &t) && !vf_route_check(f, &t, &r), what);
	EQ_U(r.ca_unreachable, 0, "all reachable");
	snprintf(msg, sizeof(msg), "%s: busiest link carries its share, %u",
		 what, share);
	EQ_U(r.load_max, share, msg);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

static void test_interleaved_lids(void)
{
	check_interleaved(8, 4, 8, "8x8+4, LIDs interleaved by leaf");
	/* spines with 68 inter-switch links: two words of round masks */
	check_interleaved(68, 4, 4, "68x4+4, 68-port spines, interleaved");
}

/*
 * Two director chassis joined leaf chip to leaf chip (topogen dcs --chassis
 * 2, no edge switches).  Chassis c holds leaf chips A0.. (c = 0) or B0..
 * (c = 1) and one spine chip per chassis, all with the chassis
 * SystemImageGUID.  Leaf chip k: hosts on ports 1..hosts, the spine on
 * port hosts + 1, leaf chip k of the other chassis on port hosts + 2.
 * Switch numbers: chassis c's leaves c * (leaves + 1) + k, its spine
 * c * (leaves + 1) + leaves.
 *
 * From leaf chip k to leaf chip j != k of the other chassis both ways are
 * 3 hops: up its own spine, down to leaf chip j, across; or across to leaf
 * chip k, up that chassis's spine, down.  Min-hop balances over both, and
 * the turns of the two kinds close a credit loop (A0 -> B0 -> spine B ->
 * B1 -> A1 -> spine A -> A0).
 */
#define SF_HOSTS 2

static struct vf_fabric *two_chassis(unsigned leaves)
{
	struct vf_fabric *f = vf_fabric_create();
	unsigned per = leaves + 1;
	char name[32];

	for (unsigned c = 0; c < 2; c++) {
		for (unsigned k = 0; k < leaves; k++) {
			snprintf(name, sizeof(name), "%c%u", 'A' + c, k);
			vf_fabric_add_node(f, VF_NODE_SWITCH,
					   0x400000 + c * 0x100 + k, 0x5000 + c,
					   SF_HOSTS + 2, name, NULL);
		}
		snprintf(name, sizeof(name), "S%c", 'A' + c);
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x400080 + c * 0x100,
				   0x5000 + c, leaves, name, NULL);
		for (unsigned k = 0; k < leaves; k++)
			vf_fabric_link(f,
				       vf_fabric_port(f, c * per + k,
						      SF_HOSTS + 1),
				       vf_fabric_port(f, c * per + leaves,
						      k + 1));
	}
	for (unsigned k = 0; k < leaves; k++)
		vf_fabric_link(f, vf_fabric_port(f, k, SF_HOSTS + 2),
			       vf_fabric_port(f, per + k, SF_HOSTS + 2));
	for (unsigned i = 0; i < 2 * leaves * SF_HOSTS; i++) {
		unsigned c = i / (leaves * SF_HOSTS), h = i % SF_HOSTS;
		unsigned k = i / SF_HOSTS % leaves;
		uint32_t n;

		snprintf(name, sizeof(name), "H%c%u_%u", 'A' + c, k, h);
		n = vf_fabric_add_node(f, VF_NODE_CA, 0x100000 + 4 * i, 0, 1,
				       name, NULL);
		vf_fabric_link(f, vf_fabric_port(f, c * per + k, h + 1),
			       vf_fabric_port(f, n, 1));
	}
	vf_fabric_assign_lids(f, 0);
	vf_fabric_finalize(f);
	return f;
}

static int route_sf(const struct vf_fabric *f, struct vf_lfts *t,
		    bool spine_first)
{
	struct vf_route_opts o;

	vf_route_opts_default(&o);
	o.spine_first = spine_first;
	if (vf_lfts_init(t, f->num_switches, f->max_lid))
		return -1;
	return vf_route_shortestpath(f, &o, t);
}

/*
 * Routes from leaf chips to hosts on a leaf chip of the other chassis with
 * another index: the spine is equal-cost there, so each must take it.
 * Returns how many take the cross link instead.
 */
static unsigned cross_first(const struct vf_fabric *f, const struct vf_lfts *t,
			    unsigned leaves)
{
	unsigned per = leaves + 1, n = 0;

	for (unsigned lid = 1; lid <= f->max_lid; lid++) {
		uint32_t ca = vf_fabric_lid_node(f, lid);
		const char *name;

		if (ca == VF_NONE || vf_is_switch(&f->nodes[ca]))
			continue;
		/* "H<chassis><leaf>_<host>" */
		name = vf_node_name(f, &f->nodes[ca]);
		for (unsigned c = 0; c < 2; c++) {
			if ((unsigned)(name[1] - 'A') == c)
				continue;	/* same chassis */
			for (unsigned k = 0; k < leaves; k++)
				if ((unsigned)(name[2] - '0') != k)
					n += vf_lft_row(t, c * per + k)[lid] !=
					     SF_HOSTS + 1;
		}
	}
	return n;
}

static void test_spine_first_two_chassis(void)
{
	struct vf_fabric *f = two_chassis(3);
	uint32_t hb0 = vf_fabric_find_name(f, "HB0_0");
	unsigned lid_hb0 = vf_node_port(f, &f->nodes[hb0], 1)->base_lid;
	struct vf_route_report off, on;
	struct vf_lfts a, b;

	OK(!route_sf(f, &a, false) && !vf_route_check(f, &a, &off),
	   "2 chassis x 3 leaf chips, spine-first off");
	OK(off.credit_loop, "off: leaf -> other chassis -> leaf: credit loop");
	OK(cross_first(f, &a, 3) > 0,
	   "off: some leaf chips leave through the cross link first");
	OK(!route_sf(f, &b, true) && !vf_route_check(f, &b, &on),
	   "spine-first on");
	EQ_U(cross_first(f, &b, 3), 0,
	     "on: every leaf chip goes up its spine when that is equal-cost");
	OK(!on.credit_loop, "on: no credit loop");
	EQ_U(on.ca_unreachable + on.sw_unreachable, 0, "on: all reachable");
	EQ_U(on.max_stretch, 0, "on: still min-hop");
	OK(on.load_max <= off.load_max, "on: busiest link no busier");
	EQ_U(vf_lft_row(&b, 0)[lid_hb0], SF_HOSTS + 2,
	     "on: A0 reaches B0's hosts over the cross link (1 hop)");
	vf_lfts_free(&a);
	vf_lfts_free(&b);
	vf_fabric_destroy(f);
}

/*
 * One chassis (leaf chips L0, L1, spine S, SystemImageGUID 0x6000) and an
 * edge switch E linked to both leaf chips; hosts on every switch.  From L0
 * to L1 both S and E are 2 hops: without spine-first half of L1's hosts are
 * reached through E (leaf -> edge -> leaf).  E itself has no internal links:
 * its choices are unchanged.
 */
static void test_spine_first_edge(void)
{
	struct vf_fabric *f = vf_fabric_create();
	const char *sw[] = { "L0", "L1", "S", "E" };
	uint32_t l1h;
	struct vf_route_report r;
	struct vf_lfts a, b;
	unsigned via_edge_off = 0, via_edge_on = 0, e_same = 1;

	for (unsigned i = 0; i < 4; i++)
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x500 + i,
				   i < 3 ? 0x6000 : 0, 6, sw[i], NULL);
	/* leaf chip l: spine on port 5, edge on port 6; E: port 5 + l */
	for (unsigned l = 0; l < 2; l++) {
		vf_fabric_link(f, vf_fabric_port(f, l, 5),
			       vf_fabric_port(f, 2, l + 1));
		vf_fabric_link(f, vf_fabric_port(f, l, 6),
			       vf_fabric_port(f, 3, l + 5));
	}
	for (unsigned i = 0; i < 12; i++) {
		char name[16];
		uint32_t n;

		snprintf(name, sizeof(name), "C%u", i);
		n = vf_fabric_add_node(f, VF_NODE_CA, 0x2000 + 4 * i, 0, 1,
				       name, NULL);
		/* 4 hosts each on L0, L1 and E */
		vf_fabric_link(f, vf_fabric_port(f, i < 8 ? i / 4 : 3,
						 i % 4 + 1),
			       vf_fabric_port(f, n, 1));
	}
	vf_fabric_assign_lids(f, 0);
	vf_fabric_finalize(f);
	l1h = vf_fabric_find_name(f, "C4");
	OK(!route_sf(f, &a, false) && !route_sf(f, &b, true),
	   "chassis + edge switch, spine-first off and on");
	for (unsigned i = 0; i < 4; i++) {
		unsigned lid = vf_node_port(f, &f->nodes[l1h + i], 1)->base_lid;

		via_edge_off += vf_lft_row(&a, 0)[lid] == 6;
		via_edge_on += vf_lft_row(&b, 0)[lid] == 6;
	}
	OK(via_edge_off > 0 && via_edge_off < 4,
	   "off: L0 reaches L1's 4 hosts both via S and via E");
	EQ_U(via_edge_on, 0, "on: L0 reaches all of them via S");
	for (unsigned lid = 1; lid <= f->max_lid; lid++)
		e_same &= vf_lft_row(&a, 3)[lid] == vf_lft_row(&b, 3)[lid];
	OK(e_same, "on: the edge switch's table is unchanged");
	OK(!vf_route_check(f, &b, &r), "route check runs");
	EQ_U(r.ca_unreachable + r.sw_unreachable, 0, "on: all reachable");
	EQ_U(r.max_stretch, 0, "on: still min-hop");
	OK(!r.credit_loop, "on: no credit loop");
	vf_lfts_free(&a);
	vf_lfts_free(&b);
	vf_fabric_destroy(f);
}

/* No chassis (SystemImageGUID 0 everywhere): spine-first changes nothing. */
static void test_spine_first_no_chassis(void)
{
	struct vf_fabric *f = fat_tree(4, 2, 4, 1);
	struct vf_lfts a, b;

	OK(!route_sf(f, &a, false) && !route_sf(f, &b, true),
	   "fat tree, spine-first off and on");
	OK(!memcmp(a.port, b.port, (size_t)a.num_switches * (a.max_lid + 1)),
	   "identical tables without chassis");
	vf_lfts_free(&a);
	vf_lfts_free(&b);
	vf_fabric_destroy(f);
}

/*
 * LMC spreading prefers another chassis, then another chip: edge switches
 * E0, E1 reach each other through chips A1, A2 (one chassis) and B1, B2
 * (another), on E0's ports 2..5 in that order.  The two LIDs of a host on
 * E1 must leave E0 toward both chassis, not toward A1 and A2.
 */
static void test_lmc_chassis(void)
{
	static const uint64_t sysimg[4] = { 0xa, 0xa, 0xb, 0xb };
	struct vf_route_opts o;
	struct vf_fabric *f = vf_fabric_create();
	struct vf_lfts t;
	bool both = true;

	vf_fabric_add_node(f, VF_NODE_SWITCH, 0x500, 0, 5, "E0", NULL);
	vf_fabric_add_node(f, VF_NODE_SWITCH, 0x501, 0, 5, "E1", NULL);
	for (unsigned i = 0; i < 4; i++) {
		uint32_t chip = vf_fabric_add_node(f, VF_NODE_SWITCH, 0x600 + i,
						   sysimg[i], 2, "chip", NULL);

		vf_fabric_link(f, vf_fabric_port(f, 0, 2 + i),
			       vf_fabric_port(f, chip, 1));
		vf_fabric_link(f, vf_fabric_port(f, 1, 2 + i),
			       vf_fabric_port(f, chip, 2));
	}
	for (unsigned e = 0; e < 2; e++) {
		uint32_t h = vf_fabric_add_node(f, VF_NODE_CA, 0x1000 + 4 * e,
						0, 1, "cn", NULL);

		vf_fabric_link(f, vf_fabric_port(f, e, 1),
			       vf_fabric_port(f, h, 1));
	}
	vf_fabric_assign_lids(f, 1);
	vf_fabric_finalize(f);
	vf_route_opts_default(&o);
	vf_lfts_init(&t, f->num_switches, f->max_lid);
	OK(!vf_route_shortestpath(f, &o, &t), "route two chassis, LMC 1");
	for (uint32_t n = 6; n < 8; n++) {
		const struct vf_port *p = vf_node_port(f, &f->nodes[n], 1);
		uint32_t from = n == 6 ? 1 : 0;	/* the other edge switch */
		uint8_t a = vf_lft_row(&t, from)[p->base_lid];
		uint8_t b = vf_lft_row(&t, from)[p->base_lid + 1];

		/* ports 2, 3 lead to chassis A; 4, 5 to chassis B */
		both &= a >= 2 && b >= 2 && (a <= 3) != (b <= 3);
	}
	OK(both, "each host's two LIDs leave toward different chassis");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/* Route f, check it, and say whether the busiest link is within 10%. */
static void within_bound(struct vf_fabric *f, const char *what)
{
	uint64_t bound = leaf_bound(f);
	struct vf_route_report r;
	struct vf_lfts t;
	char msg[128];

	snprintf(msg, sizeof(msg), "%s: routed, all reachable, min-hop, no "
		 "credit loop", what);
	OK(!route(f, &t) && !vf_route_check(f, &t, &r) &&
	   !r.ca_unreachable && !r.sw_unreachable && !r.max_stretch &&
	   !r.credit_loop, msg);
	snprintf(msg, sizeof(msg), "%s: busiest link %llu, within 10%% of "
		 "the bound %llu", what, (unsigned long long)r.load_max,
		 (unsigned long long)bound);
	OK(bound && r.load_max * 10 <= bound * 11, msg);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/*
 * Balance on full trees of any size: 3-level k-ary trees whatever k/2 is
 * (counting routes instead of flow once loaded k = 6, 10, 12, 14 at 1.76
 * to 1.88 times the bound, k = 8 and 16 at it), and 2-level trees whose
 * hosts per leaf do not divide among the spines.
 */
static void test_any_k(void)
{
	static const unsigned two[][3] = {	/* leaves, spines, hosts */
		{ 6, 3, 5 }, { 12, 5, 7 }, { 5, 3, 7 }, { 14, 7, 5 },
		{ 11, 6, 8 }, { 16, 6, 10 }, { 7, 3, 11 }, { 13, 4, 9 },
	};
	char what[64];

	for (unsigned k = 4; k <= 16; k += 2) {
		snprintf(what, sizeof(what), "3-level tree, k = %u", k);
		within_bound(fat_tree3(k, 0), what);
	}
	for (unsigned i = 0; i < sizeof(two) / sizeof(two[0]); i++) {
		snprintf(what, sizeof(what), "%u leaves x %u hosts + %u spines",
			 two[i][0], two[i][2], two[i][1]);
		within_bound(fat_tree(two[i][0], two[i][1], two[i][2], 0), what);
	}
}

/*
 * 3-level trees with cables gone bad (marked unhealthy): a leaf with an
 * uplink fewer, an aggregation switch with a core link fewer, in several
 * pods.  Routing by flow alone left such trees up to 1.5 times the bound
 * (the links into a leaf that lost an uplink are decided three hops
 * away); with the bottleneck rule they are near it.
 */
static void test_degraded(void)
{
	/* leaves' uplinks, aggregation switches' core links (by number) */
	static const unsigned leaf[] = { 0, 9, 22, 35 }, agg[] = { 1, 14, 27 };
	char what[64];

	for (unsigned k = 8; k <= 12; k += 4) {
		struct vf_fabric *f = fat_tree3(k, 0);
		unsigned h = k / 2, leaves = k * h;

		for (unsigned i = 0; i < 4; i++)
			vf_node_port(f, &f->nodes[leaf[i] % leaves],
				     h + 1 + i % h)->healthy = false;
		for (unsigned i = 0; i < 3; i++)
			vf_node_port(f, &f->nodes[leaves + agg[i] % leaves],
				     h + 1 + i % h)->healthy = false;
		snprintf(what, sizeof(what), "k = %u tree, 7 cables bad", k);
		within_bound(f, what);
	}
}

int main(void)
{
	test_fat_tree();
	test_tie_break();
	test_unhealthy();
	test_lmc();
	test_ring();
	test_deterministic();
	test_disconnected();
	test_interleaved_lids();
	test_lmc_chassis();
	test_spine_first_two_chassis();
	test_spine_first_edge();
	test_spine_first_no_chassis();
	test_any_k();
	test_degraded();
	return tap_done();
}
