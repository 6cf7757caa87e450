// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The flow simulator: traffic patterns, static loads counted by hand,
 * adaptive placement against static, failed links before and after the
 * SM re-routes, and reproducibility by seed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/arflow.h"
#include "routing/engine.h"
#include "fabrics.h"
#include "taptest.h"

/* A fabric with its shortestpath routes and fine-grained AR tables. */
struct routed {
	struct vf_fabric *f;
	struct vf_lfts t;
	struct vf_ar_tables ar;
};

static int routed_init(struct routed *r, struct vf_fabric *f)
{
	struct vf_route_opts o;
	struct vf_ar_config cfg;

	r->f = f;
	r->t = (struct vf_lfts){ 0 };
	r->ar = (struct vf_ar_tables){ 0 };
	vf_route_opts_default(&o);
	vf_ar_config_default(&cfg);
	cfg.enable = cfg.fine_grained = true;
	if (!f || vf_lfts_init(&r->t, f->num_switches, f->max_lid) ||
	    vf_route_shortestpath(f, &o, &r->t))
		return -1;
	return vf_ar_compute(f, &r->t, &cfg, NULL, &r->ar);
}

static void routed_free(struct routed *r)
{
	vf_ar_free(&r->ar);
	vf_lfts_free(&r->t);
	vf_fabric_destroy(r->f);
}

/* Slot of port num of the node named name. */
static uint32_t slot(const struct vf_fabric *f, const char *name, unsigned num)
{
	return vf_fabric_port(f, vf_fabric_find_name(f, name), num);
}

static void test_patterns(void)
{
	struct vf_fabric *f = fat_tree(4, 2, 4, 0);
	struct vf_flows fl;
	uint32_t *ep;
	int n = vf_flow_endpoints(f, &ep);
	bool ok, seen[64] = { false };

	EQ_U(n, 16, "16 end ports on a 4x4 + 2 tree");
	OK(!vf_flows_make(f, VF_FLOW_PERM, 7, 0, &fl), "a permutation");
	EQ_U(fl.n, 16, "perm: one flow per end port");
	ok = true;
	for (uint32_t i = 0; i < fl.n; i++) {
		ok &= fl.v[i].src == ep[i] &&
		      fl.v[i].dlid != f->ports[ep[i]].base_lid &&
		      !seen[fl.v[i].dlid];
		seen[fl.v[i].dlid] = true;
	}
	OK(ok, "perm: every port sends once, receives once, never to itself");
	vf_flows_free(&fl);
	OK(!vf_flows_make(f, VF_FLOW_ALL2ALL, 1, 0, &fl), "all to all");
	EQ_U(fl.n, 16 * 15, "all2all: n(n-1) flows");
	vf_flows_free(&fl);
	OK(!vf_flows_make(f, VF_FLOW_HOTSPOT, 3, 0, &fl), "a hot spot");
	EQ_U(fl.n, 15, "hotspot: n-1 flows");
	ok = true;
	for (uint32_t i = 1; i < fl.n; i++)
		ok &= fl.v[i].dlid == fl.v[0].dlid;
	OK(ok, "hotspot: every flow to the one destination");
	vf_flows_free(&fl);
	OK(!vf_flows_make(f, VF_FLOW_SHIFT, 1, 3, &fl), "a shift by 3");
	ok = fl.n == 16;
	for (uint32_t i = 0; ok && i < fl.n; i++)
		ok &= fl.v[i].dlid == f->ports[ep[(i + 3) % 16]].base_lid;
	OK(ok, "shift: port i sends to port i + 3");
	vf_flows_free(&fl);
	OK(vf_flows_make(f, VF_FLOW_SHIFT, 1, 16, &fl) == -EINVAL,
	   "a shift by the port count (to itself) is refused");
	EQ_U(vf_flow_pattern_parse("all2all"), VF_FLOW_ALL2ALL,
	     "pattern names parse");
	OK(vf_flow_pattern_parse("ring") < 0, "an unknown pattern does not");
	free(ep);
	vf_fabric_destroy(f);
}

/* One spine: every flow between the leaves takes the one path. */
static void test_static_by_hand(void)
{
	struct routed r;
	struct vf_flows fl;
	struct vf_arflow_stats st;
	uint32_t *loads;
	bool ok;

	OK(!routed_init(&r, fat_tree(2, 1, 2, 0)), "route a 2x2 + 1 tree");
	loads = calloc(r.f->num_ports, sizeof(*loads));
	vf_flows_make(r.f, VF_FLOW_ALL2ALL, 1, 0, &fl);
	OK(!vf_arflow_static(r.f, &r.t, &fl, NULL, loads, &st),
	   "static all2all");
	/* each host to 2 remote hosts: 4 flows up and 4 down per leaf */
	EQ_U(st.links, 4, "4 directed fabric links");
	EQ_U(st.max, 4, "busiest link: 4 flows");
	OK(st.mean == 4.0, "every fabric link carries 4");
	EQ_U(st.used, 4, "all 4 used");
	EQ_U(loads[slot(r.f, "L0", 3)], 4, "L0 -> S0: 4 flows");
	EQ_U(loads[slot(r.f, "S0", 2)], 4, "S0 -> L1: 4 flows");
	EQ_U(loads[slot(r.f, "H0_0", 1)], 3, "a host injects 3 flows");
	EQ_U(loads[slot(r.f, "L1", 1)], 3, "and receives 3");
	EQ_U(st.lost + st.unrouted, 0, "no flow lost");
	vf_flows_free(&fl);
	vf_flows_make(r.f, VF_FLOW_HOTSPOT, 5, 0, &fl);
	vf_arflow_static(r.f, &r.t, &fl, NULL, loads, &st);
	/* two of the three senders sit on the other leaf */
	EQ_U(st.max, 2, "hotspot: 2 flows cross to the hot leaf");
	EQ_U(st.used, 2, "on the 2 links toward it");
	ok = 0;
	for (uint32_t p = 0; p < r.f->num_ports; p++)
		ok |= loads[p] == 3 && !vf_is_switch(&r.f->nodes[
			r.f->ports[r.f->ports[p].remote == VF_NONE ? p :
				   r.f->ports[p].remote].node]);
	OK(ok, "hotspot: the hot port's last link carries all 3");
	vf_flows_free(&fl);
	free(loads);
	routed_free(&r);
}

/* Two spines: the load of each uplink is what the LFT says. */
static void test_static_follows_lft(void)
{
	struct routed r;
	struct vf_flows fl;
	struct vf_arflow_stats st;
	uint32_t *loads, up[2] = { 0 };

	OK(!routed_init(&r, fat_tree(2, 2, 2, 0)), "route a 2x2 + 2 tree");
	loads = calloc(r.f->num_ports, sizeof(*loads));
	vf_flows_make(r.f, VF_FLOW_SHIFT, 1, 0, &fl);
	/* leaf L0 is node 0 and switch 0; its uplinks are ports 3 and 4 */
	for (uint32_t i = 0; i < fl.n; i++) {
		uint8_t e = vf_lft_row(&r.t, 0)[fl.v[i].dlid];

		if (r.f->ports[r.f->ports[fl.v[i].src].remote].node == 0 &&
		    (e == 3 || e == 4))
			up[e - 3]++;
	}
	vf_arflow_static(r.f, &r.t, &fl, NULL, loads, &st);
	EQ_U(up[0] + up[1], 2, "shift by half: L0's 2 hosts send up");
	OK(st.mean == 1.0, "4 flows x 2 hops over 8 fabric links");
	EQ_U(loads[slot(r.f, "L0", 3)], up[0], "L0's first uplink: as the LFT");
	EQ_U(loads[slot(r.f, "L0", 4)], up[1], "L0's second uplink: as the LFT");
	vf_flows_free(&fl);
	free(loads);
	routed_free(&r);
}

/* On a full 2-level tree, AR never does worse than the static routes. */
static void test_ar_not_worse(void)
{
	struct routed r;
	struct vf_arflow_params p;
	struct vf_arflow_stats s, a;
	unsigned worse = 0, sum_s = 0, sum_a = 0, lost = 0;

	OK(!routed_init(&r, fat_tree(8, 8, 8, 0)), "route an 8x8 + 8 tree");
	vf_arflow_params_default(&p);
	for (uint32_t seed = 1; seed <= 10; seed++) {
		struct vf_flows fl;

		vf_flows_make(r.f, VF_FLOW_PERM, seed, 0, &fl);
		p.seed = seed;
		vf_arflow_static(r.f, &r.t, &fl, NULL, NULL, &s);
		vf_arflow_adaptive(r.f, &r.t, &r.ar, &fl, NULL, &p, NULL, &a);
		worse += a.max > s.max;
		sum_s += s.max;
		sum_a += a.max;
		lost += a.lost + a.unrouted + s.lost + s.unrouted;
		vf_flows_free(&fl);
	}
	EQ_U(worse, 0, "10 permutations: AR's busiest link never above static's");
	OK(sum_a < sum_s, "and below it in total");
	EQ_U(lost, 0, "no flow lost either way");
	printf("# static max %u, AR max %u over 10 permutations\n", sum_s,
	       sum_a);
	routed_free(&r);
}

/* The switch node a host LID's CA port hangs off (its leaf); VF_NONE for
 * a switch's LID or one not in use. */
static uint32_t leaf_of(const struct vf_fabric *f, unsigned lid)
{
	uint32_t p = f->lid_port[lid];

	if (p == VF_NONE || vf_is_switch(&f->nodes[f->ports[p].node]) ||
	    f->ports[p].remote == VF_NONE)
		return VF_NONE;
	return f->ports[f->ports[p].remote].node;
}

/* Flow i's static path (the LFTs from its source) uses port slot p. */
static bool crosses(const struct routed *r, const struct vf_flow *fw,
		    uint32_t p)
{
	const struct vf_fabric *f = r->f;
	uint32_t q = fw->src;

	for (unsigned hops = 0; hops <= f->num_switches; hops++) {
		const struct vf_node *n;
		unsigned e;

		if (q == p)
			return true;
		q = f->ports[q].remote;
		n = &f->nodes[f->ports[q].node];
		if (!vf_is_switch(n))
			return false;
		e = vf_lft_row(&r->t, n->sw)[fw->dlid];
		if (!e || e > n->num_ports)
			return false;
		q = n->first_port + e;
	}
	return false;
}

static uint32_t count_crossing(const struct routed *r,
			       const struct vf_flows *fl, uint32_t p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < fl->n; i++)
		n += crosses(r, &fl->v[i], p);
	return n;
}

static bool is_lost(const struct routed *r, const bool *lost,
		    const char *sw, unsigned lid)
{
	uint32_t node = vf_fabric_find_name(r->f, sw);

	return lost[(size_t)r->f->nodes[node].sw * (r->t.max_lid + 1u) + lid];
}

/*
 * A failed uplink of a tree with single links: static routing loses
 * exactly the flows routed over it.  AR saves those going up it (the leaf
 * has another uplink); without notification not those coming down it:
 * the spine has no other way down and the leaves above it only see their
 * own ports.  With notification the spine tells the other leaves, which
 * send L0's flows to the other spine: nothing is lost.
 */
static void test_failed_uplink(void)
{
	struct routed r;
	struct vf_flows fl;
	struct vf_arflow_params p, quiet, stay;
	struct vf_arflow_stats s, a, n, rs, ra;
	struct vf_ar_tables rar;
	struct vf_lfts rt;
	uint32_t *loads, up, down_port, by_s0 = 0, l0;
	bool *down, *lost, ok;

	OK(!routed_init(&r, fat_tree(4, 2, 4, 0)), "route a 4x4 + 2 tree");
	vf_arflow_params_default(&p);
	OK(p.notify, "notification is on by default");
	quiet = p;
	quiet.notify = false;
	loads = calloc(r.f->num_ports, sizeof(*loads));
	down = calloc(r.f->num_ports, sizeof(*down));
	vf_flows_make(r.f, VF_FLOW_ALL2ALL, 1, 0, &fl);
	vf_arflow_static(r.f, &r.t, &fl, NULL, loads, &s);
	up = slot(r.f, "L0", 5);
	down_port = slot(r.f, "S0", 1);
	l0 = vf_fabric_find_name(r.f, "L0");
	/* by the LFTs: flows from the other leaves into L0 over port 5 (S0) */
	for (uint32_t i = 0; i < fl.n; i++) {
		uint32_t src_leaf = r.f->ports[r.f->ports[fl.v[i].src].remote].node;

		by_s0 += src_leaf != l0 && leaf_of(r.f, fl.v[i].dlid) == l0 &&
			 vf_lft_row(&r.t, r.f->nodes[src_leaf].sw)[fl.v[i].dlid] == 5;
	}
	/* shortestpath spreads L0's 4 LIDs 2 per spine: 12 hosts x 2 */
	EQ_U(by_s0, 24, "24 flows come down S0 -> L0 by the static routes");
	EQ_U(count_crossing(&r, &fl, down_port), by_s0,
	     "the path walk agrees");
	vf_arflow_fail(r.f, down, up);
	OK(down[up] && down[down_port], "both ends of the link are down");
	vf_arflow_static(r.f, &r.t, &fl, down, NULL, &s);
	OK(loads[up] > 0 && loads[down_port] == by_s0,
	   "the link carried flows both ways");
	EQ_U(s.lost, loads[up] + loads[down_port],
	     "static loses exactly the flows routed over it");
	vf_arflow_adaptive(r.f, &r.t, &r.ar, &fl, down, &quiet, NULL, &n);
	OK(n.lost > 0 && n.lost <= 12 * 4,
	   "AR without notification loses only flows into L0 via S0");
	OK(n.lost < s.lost, "AR loses fewer than static");
	/* flows move only off a down port: AR keeps the static spine choice */
	stay = quiet;
	stay.sel.lost_route_only = true;
	vf_arflow_adaptive(r.f, &r.t, &r.ar, &fl, down, &stay, NULL, &n);
	EQ_U(n.lost, by_s0,
	     "LostRouteOnly, no notification: exactly the flows down S0 -> L0");
	stay.notify = true;
	vf_arflow_adaptive(r.f, &r.t, &r.ar, &fl, down, &stay, NULL, &n);
	EQ_U(n.lost + n.unrouted, 0, "LostRouteOnly with notification: none");
	vf_arflow_adaptive(r.f, &r.t, &r.ar, &fl, down, &p, NULL, &a);
	EQ_U(a.lost, 0, "AR with notification loses no flow");
	EQ_U(a.unrouted, 0, "and misroutes none");
	EQ_U(a.links, s.links, "the statistics skip the failed link");
	EQ_U(s.links, 4 * 2 * 2 - 2, "14 directed fabric links are up");
	OK(!vf_arflow_lost_routes(r.f, &r.t, &r.ar, down, &lost),
	   "the lost-route state");
	ok = true;
	for (unsigned lid = 1; lid <= r.f->max_lid; lid++) {
		if (leaf_of(r.f, lid) == VF_NONE)
			continue;	/* the hosts' LIDs: what flows go to */
		ok &= is_lost(&r, lost, "S0", lid) == (leaf_of(r.f, lid) == l0);
		ok &= !is_lost(&r, lost, "L1", lid) &&
		      !is_lost(&r, lost, "L0", lid) &&
		      !is_lost(&r, lost, "S1", lid);
		ok &= vf_arflow_port_lost(r.f, &r.t, down, lost,
					  slot(r.f, "L1", 5), lid) ==
		      is_lost(&r, lost, "S0", lid);
	}
	OK(ok, "S0 has lost exactly L0's hosts; L1 sees its port to S0 lost "
	   "for them alone; no leaf and not S1 has lost a host");
	free(lost);
	OK(!vf_arflow_reroute(r.f, down, vf_engine_find("shortestpath"),
			      NULL, &rt, &rar) &&
	   !vf_arflow_static(r.f, &rt, &fl, down, NULL, &rs) &&
	   !vf_arflow_adaptive(r.f, &rt, &rar, &fl, down, &p, NULL, &ra),
	   "the SM re-routes around the link");
	EQ_U(rs.lost + rs.unrouted + ra.lost + ra.unrouted, 0,
	     "after the re-route no flow is lost");
	OK(rs.max > 0 && rs.max >= s.max, "the 7 links left carry more");
	OK(r.f->ports[up].healthy && r.f->ports[down_port].healthy,
	   "the fabric's health flags are restored");
	vf_ar_free(&rar);
	vf_lfts_free(&rt);
	EQ_U(vf_arflow_fail_random(r.f, down, 100, 1), 7,
	     "random failures: only the 7 links still up can fail");
	vf_flows_free(&fl);
	free(down);
	free(loads);
	routed_free(&r);
}

/*
 * No alternative anywhere: a leaf cut off from both spines, and a host's
 * only cable.  Notification cannot save these flows, only spread the news
 * up to the source leaves.
 */
static void test_no_way_round(void)
{
	struct routed r;
	struct vf_flows fl;
	struct vf_arflow_params p, quiet;
	struct vf_arflow_stats s, a, n;
	bool *down, *lost, ok = true;
	unsigned h00;

	OK(!routed_init(&r, fat_tree(4, 2, 4, 0)), "route a 4x4 + 2 tree");
	vf_arflow_params_default(&p);
	quiet = p;
	quiet.notify = false;
	down = calloc(r.f->num_ports, sizeof(*down));
	vf_flows_make(r.f, VF_FLOW_ALL2ALL, 1, 0, &fl);
	vf_arflow_fail(r.f, down, slot(r.f, "L0", 5));
	vf_arflow_fail(r.f, down, slot(r.f, "L0", 6));
	vf_arflow_static(r.f, &r.t, &fl, down, NULL, &s);
	vf_arflow_adaptive(r.f, &r.t, &r.ar, &fl, down, &p, NULL, &a);
	vf_arflow_adaptive(r.f, &r.t, &r.ar, &fl, down, &quiet, NULL, &n);
	/* L0's 4 hosts to the 12 others, and back */
	EQ_U(s.lost, 96, "L0 cut off: static loses its 96 flows in and out");
	EQ_U(n.lost, 96, "so does AR without notification");
	EQ_U(a.lost, 96, "and with it: there is no way round");
	vf_arflow_lost_routes(r.f, &r.t, &r.ar, down, &lost);
	h00 = r.f->ports[slot(r.f, "H0_0", 1)].base_lid;
	OK(is_lost(&r, lost, "S0", h00) && is_lost(&r, lost, "S1", h00) &&
	   is_lost(&r, lost, "L3", h00),
	   "both spines lose H0_0, and the news reaches the other leaves");
	for (unsigned lid = 1; lid <= r.f->max_lid; lid++)
		if (leaf_of(r.f, lid) != VF_NONE)
			ok &= is_lost(&r, lost, "L0", lid) ==
			      (leaf_of(r.f, lid) !=
			       vf_fabric_find_name(r.f, "L0"));
	OK(ok, "L0 has lost every host but its own");
	free(lost);
	memset(down, 0, r.f->num_ports * sizeof(*down));
	vf_arflow_fail(r.f, down, slot(r.f, "H0_0", 1));
	vf_arflow_adaptive(r.f, &r.t, &r.ar, &fl, down, &p, NULL, &a);
	EQ_U(a.lost, 2 * 15, "H0_0's cable: its 15 flows out and 15 in");
	vf_flows_free(&fl);
	free(down);
	routed_free(&r);
}

/*
 * A 3-level tree, an agg-core cable failed: C001 has no other way into
 * pod 1, but the aggregation switches of pod 2 have another core.
 */
static void test_failed_core_link(void)
{
	struct routed r;
	struct vf_flows fl;
	struct vf_arflow_params p, stay;
	struct vf_arflow_stats s, a, n;
	uint32_t core_down, agg_up;
	bool *down, *lost;
	unsigned cn1, cn7;

	if (!OK(!routed_init(&r, golden_fabric("ft3-small.net")),
		"route ft3-small.net (2 pods, 4 cores)")) {
		routed_free(&r);
		return;
	}
	vf_arflow_params_default(&p);
	down = calloc(r.f->num_ports, sizeof(*down));
	vf_flows_make(r.f, VF_FLOW_ALL2ALL, 1, 0, &fl);
	agg_up = slot(r.f, "A001", 3);
	core_down = slot(r.f, "C001", 1);
	vf_arflow_fail(r.f, down, agg_up);
	vf_arflow_static(r.f, &r.t, &fl, down, NULL, &s);
	EQ_U(s.lost, count_crossing(&r, &fl, agg_up) +
	     count_crossing(&r, &fl, core_down),
	     "static loses the flows routed over A001 - C001");
	OK(count_crossing(&r, &fl, core_down) > 0, "some come down it");
	stay = p;
	stay.sel.lost_route_only = true;
	stay.notify = false;
	vf_arflow_adaptive(r.f, &r.t, &r.ar, &fl, down, &stay, NULL, &n);
	EQ_U(n.lost, count_crossing(&r, &fl, core_down),
	     "LostRouteOnly without notification: those coming down");
	vf_arflow_adaptive(r.f, &r.t, &r.ar, &fl, down, &p, NULL, &a);
	EQ_U(a.lost + a.unrouted, 0, "AR with notification loses none");
	vf_arflow_lost_routes(r.f, &r.t, &r.ar, down, &lost);
	cn1 = r.f->ports[slot(r.f, "cn0001", 1)].base_lid;
	cn7 = r.f->ports[slot(r.f, "cn0007", 1)].base_lid;
	OK(is_lost(&r, lost, "C001", cn1) && !is_lost(&r, lost, "C001", cn7),
	   "C001 has lost pod 1's hosts, not pod 2's");
	OK(!is_lost(&r, lost, "A003", cn1) && !is_lost(&r, lost, "A001", cn7)
	   && vf_arflow_port_lost(r.f, &r.t, down, lost, slot(r.f, "A003", 3),
				  cn1),
	   "A003 sees its port to C001 lost for pod 1, and has C002");
	free(lost);
	vf_flows_free(&fl);
	free(down);
	routed_free(&r);
}

/* Two links between each leaf and spine: AR loses nothing to one. */
static void test_failed_trunk(void)
{
	struct routed r;
	struct vf_flows fl;
	struct vf_arflow_params p;
	struct vf_arflow_stats s, a;
	bool *down;

	if (!OK(!routed_init(&r, golden_fabric("ft2-trunk2.net")),
		"route ft2-trunk2.net (4 leaves, 2 spines, 2 links each)")) {
		routed_free(&r);
		return;
	}
	vf_arflow_params_default(&p);
	down = calloc(r.f->num_ports, sizeof(*down));
	vf_flows_make(r.f, VF_FLOW_ALL2ALL, 1, 0, &fl);
	vf_arflow_fail(r.f, down, slot(r.f, "L001", 9));
	vf_arflow_static(r.f, &r.t, &fl, down, NULL, &s);
	vf_arflow_adaptive(r.f, &r.t, &r.ar, &fl, down, &p, NULL, &a);
	OK(s.lost > 0, "static loses the flows of the failed link");
	EQ_U(a.lost + a.unrouted, 0,
	     "AR loses none: both ends have a parallel link");
	vf_flows_free(&fl);
	free(down);
	routed_free(&r);
}

static bool same(const uint32_t *a, const uint32_t *b, uint32_t n)
{
	return !memcmp(a, b, sizeof(*a) * n);
}

static bool same_flows(const struct vf_flows *a, const struct vf_flows *b)
{
	bool eq = a->n == b->n;

	for (uint32_t i = 0; eq && i < a->n; i++)
		eq = a->v[i].src == b->v[i].src && a->v[i].dlid == b->v[i].dlid;
	return eq;
}

static void test_determinism(void)
{
	struct routed r;
	struct vf_flows f1, f2, f3;
	struct vf_arflow_params p;
	struct vf_arflow_stats st;
	uint32_t *a, *b, n;
	bool *down1, *down2;

	OK(!routed_init(&r, fat_tree(8, 4, 8, 0)), "route an 8x8 + 4 tree");
	n = r.f->num_ports;
	a = calloc(n, sizeof(*a));
	b = calloc(n, sizeof(*b));
	down1 = calloc(n, sizeof(*down1));
	down2 = calloc(n, sizeof(*down2));
	vf_arflow_params_default(&p);
	p.seed = 42;
	vf_flows_make(r.f, VF_FLOW_PERM, 42, 0, &f1);
	vf_flows_make(r.f, VF_FLOW_PERM, 42, 0, &f2);
	vf_flows_make(r.f, VF_FLOW_PERM, 43, 0, &f3);
	OK(same_flows(&f1, &f2), "the same seed, the same permutation");
	OK(!same_flows(&f1, &f3), "another seed, another permutation");
	vf_arflow_adaptive(r.f, &r.t, &r.ar, &f1, NULL, &p, a, &st);
	vf_arflow_adaptive(r.f, &r.t, &r.ar, &f2, NULL, &p, b, &st);
	OK(same(a, b, n), "the same seed, the same AR loads");
	vf_arflow_fail_random(r.f, down1, 3, 9);
	vf_arflow_fail_random(r.f, down2, 3, 9);
	OK(!memcmp(down1, down2, n), "the same seed, the same failed links");
	vf_flows_free(&f1);
	vf_flows_free(&f2);
	vf_flows_free(&f3);
	free(a);
	free(b);
	free(down1);
	free(down2);
	routed_free(&r);
}

/* The entry of switch number sw for lid leads over a port in down. */
static bool entry_crosses(const struct vf_fabric *f, const struct vf_lfts *t,
			  uint32_t sw, unsigned lid, const bool *down)
{
	const struct vf_node *n = &f->nodes[f->switches[sw]];

	for (unsigned hops = 0; hops <= f->num_switches; hops++) {
		unsigned e = vf_lft_row(t, n->sw)[lid];
		uint32_t q = n->first_port + e;

		if (!e || e > n->num_ports || f->ports[q].remote == VF_NONE)
			return false;
		if (down[q])
			return true;
		n = &f->nodes[f->ports[f->ports[q].remote].node];
		if (!vf_is_switch(n))
			return false;
	}
	return false;
}

/*
 * The re-route is the engine's: fattree's tables on the fabric without
 * the link; from the tables before (route stability), only the entries
 * whose route crossed the link change.
 */
static void test_reroute_engine(void)
{
	const struct vf_engine *ft = vf_engine_find("fattree");
	struct vf_fabric *f = fat_tree(4, 2, 4, 0);
	struct vf_lfts before = { 0 }, direct = { 0 }, rt, st;
	struct vf_ar_tables ar, sar;
	struct vf_previous prev = { f, &before };
	struct vf_route_opts o;
	bool *down = calloc(f->num_ports, sizeof(*down)), only = true;
	uint32_t up = slot(f, "L0", 5);
	unsigned changed = 0;
	size_t size;

	vf_route_opts_default(&o);
	vf_lfts_init(&before, f->num_switches, f->max_lid);
	vf_route_fattree(f, &o, &before);
	vf_arflow_fail(f, down, up);
	OK(!vf_arflow_reroute(f, down, ft, NULL, &rt, &ar),
	   "fattree re-routes without L0-S0");
	f->ports[up].healthy = f->ports[f->ports[up].remote].healthy = false;
	vf_lfts_init(&direct, f->num_switches, f->max_lid);
	vf_route_fattree(f, &o, &direct);
	f->ports[up].healthy = f->ports[f->ports[up].remote].healthy = true;
	size = (size_t)f->num_switches * (f->max_lid + 1u);
	OK(!memcmp(rt.port, direct.port, size),
	   "the re-routed tables are fattree's own on the fabric without it");
	vf_ar_free(&ar);
	vf_lfts_free(&rt);
	OK(!vf_arflow_reroute(f, down, ft, &prev, &st, &sar),
	   "fattree re-routes from the tables before");
	for (uint32_t sw = 0; sw < f->num_switches; sw++)
		for (unsigned lid = 1; lid <= f->max_lid; lid++) {
			if (vf_lft_row(&st, sw)[lid] ==
			    vf_lft_row(&before, sw)[lid])
				continue;
			changed++;
			only &= entry_crosses(f, &before, sw, lid, down);
		}
	OK(changed > 0 && only,
	   "route stability: only entries whose route crossed the link "
	   "change");
	vf_ar_free(&sar);
	vf_lfts_free(&st);
	vf_lfts_free(&direct);
	vf_lfts_free(&before);
	free(down);
	vf_fabric_destroy(f);
}

int main(void)
{
	test_patterns();
	test_static_by_hand();
	test_static_follows_lft();
	test_ar_not_worse();
	test_failed_uplink();
	test_reroute_engine();
	test_no_way_round();
	test_failed_core_link();
	test_failed_trunk();
	test_determinism();
	return tap_done();
}
