// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Route checks on small fabrics with hand-written LFTs, where every number
 * in the report can be worked out on paper, plus one generated fat tree.
 */
#include <stdlib.h>
#include <time.h>

#include "routing/routecheck.h"
#include "routing/vfjson.h"
#include "tests/unit/taptest.h"

struct net {
	struct vf_fabric *f;
	struct vf_lfts t;
	struct vf_route_report r;
};

static uint32_t add_sw(struct net *n, const char *name, uint64_t guid,
		       unsigned ports)
{
	return vf_fabric_add_node(n->f, VF_NODE_SWITCH, guid, 0, ports, name,
				  NULL);
}

static uint32_t add_ca(struct net *n, const char *name, uint64_t guid)
{
	return vf_fabric_add_node(n->f, VF_NODE_CA, guid, 0, 1, name, NULL);
}

static void link2(struct net *n, uint32_t a, unsigned pa, uint32_t b,
		  unsigned pb)
{
	vf_fabric_link(n->f, vf_fabric_port(n->f, a, pa),
		       vf_fabric_port(n->f, b, pb));
}

/*
 * LIDs in node order, switches first (1, 2, ...), then every linked CA
 * port, LMC 0.  Set here rather than by vf_fabric_assign_lids() so that
 * the numbers the tests name stay fixed.
 */
static void give_lids(struct net *n)
{
	unsigned next = 1;

	for (int sw = 1; sw >= 0; sw--) {
		for (uint32_t i = 0; i < n->f->num_nodes; i++) {
			const struct vf_node *nd = &n->f->nodes[i];
			struct vf_port *p;

			if (vf_is_switch(nd) != sw)
				continue;
			p = vf_node_port(n->f, nd, sw ? 0 : 1);
			if (sw || p->remote != VF_NONE)
				p->base_lid = next++;
		}
	}
}

/* LIDs, finalize, all-drop LFTs; returns false (and says so) on failure */
static int finish(struct net *n)
{
	give_lids(n);
	return OK(!vf_fabric_finalize(n->f) &&
		  !vf_lfts_init(&n->t, n->f->num_switches, n->f->max_lid),
		  "fabric built");
}

static void drop_net(struct net *n)
{
	vf_lfts_free(&n->t);
	vf_fabric_destroy(n->f);
}

/* LID of a switch (port 0) or of a CA's port 1 */
static unsigned lid(const struct net *n, uint32_t node)
{
	const struct vf_node *nd = &n->f->nodes[node];

	return vf_node_port(n->f, nd, vf_is_switch(nd) ? 0 : 1)->base_lid;
}

static void route(struct net *n, uint32_t sw, unsigned l, unsigned port)
{
	vf_lft_row(&n->t, n->f->nodes[sw].sw)[l] = port;
}

static int check(struct net *n)
{
	return OK(!vf_route_check(n->f, &n->t, &n->r), "route check ran");
}

static int has(const char *hay, const char *needle, const char *what)
{
	if (!OK(strstr(hay, needle), what))
		printf("#   \"%s\" lacks \"%s\"\n", hay, needle);
	return 0;
}

/*
 * S1 and S2 joined by port 3 (and port 4 with `parallel`), H1 H2 on S1
 * ports 1 2, H3 H4 on S2 ports 1 2.  Node indices: S1 0, S2 1, Hi i + 1.
 */
static int two_switches(struct net *n, bool parallel)
{
	memset(n, 0, sizeof(*n));
	n->f = vf_fabric_create();
	add_sw(n, "S1", 0x10, 4);
	add_sw(n, "S2", 0x20, 4);
	for (unsigned i = 1; i <= 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "H%u", i);
		add_ca(n, name, 0x100 * i);
		link2(n, i + 1, 1, i <= 2 ? 0 : 1, i <= 2 ? i : i - 2);
	}
	link2(n, 0, 3, 1, 3);
	if (parallel)
		link2(n, 0, 4, 1, 4);
	if (!finish(n))
		return 0;
	for (uint32_t s = 0; s < 2; s++) {
		route(n, s, lid(n, s), 0);
		route(n, s, lid(n, !s), 3);
		for (uint32_t h = 2; h < 6; h++)
			route(n, s, lid(n, h), (h - 2) / 2 == s ?
			      (h - 2) % 2 + 1 : 3);
	}
	return 1;
}

static void test_two_switches(void)
{
	struct net n;

	if (!two_switches(&n, false) || !check(&n))
		return;
	EQ_U(n.r.ca_pairs, 12, "a: 4 CAs x 3 other CA LIDs");
	EQ_U(n.r.sw_pairs, 20, "a: 2 switches x 6 LIDs + 4 CAs x 2");
	EQ_U(n.r.ca_unreachable + n.r.sw_unreachable, 0, "a: all reach");
	EQ_U(n.r.hops_sum, 18, "a: hops counted between switches");
	EQ_U(n.r.min_hops_sum, 18, "a: all shortest");
	EQ_U(n.r.stretched, 0, "a: no stretch");
	OK(!n.r.credit_loop, "a: no credit loop");
	EQ_U(n.r.channels, 2, "a: both directions carry routes");
	EQ_U(n.r.dependencies, 0, "a: one hop never depends");
	EQ_U(n.r.links, 2, "a: one cable, two directions");
	EQ_U(n.r.links_used, 2, "a: both used");
	EQ_U(n.r.load_max, 4, "a: 2 sources x 2 destinations per direction");
	OK(n.r.load_avg == 4 && n.r.load_max_over_avg == 1, "a: even load");
	OK(vf_route_report_ok(&n.r), "a: report ok");
	EQ_U(n.r.num_examples, 0, "a: no examples");
	drop_net(&n);
}

static void test_drop(void)
{
	struct net n;

	if (!two_switches(&n, false))
		return;
	route(&n, 0, lid(&n, 4), VF_NO_PORT);	/* S1 cannot reach H3 */
	if (!check(&n))
		return;
	EQ_U(n.r.ca_unreachable, 2, "b: H1, H2 -> H3 unreachable");
	EQ_U(n.r.sw_unreachable, 1, "b: S1 -> H3 unreachable");
	EQ_U(n.r.loops, 0, "b: no loop");
	OK(!vf_route_report_ok(&n.r), "b: report not ok");
	EQ_U(n.r.num_examples, 1, "b: one failing switch, one example");
	has(n.r.examples[0], "no route at S1", "b: example names the drop");
	has(n.r.examples[0], "lid 5 from switch S1 (0x0000000000000010)",
	    "b: example names the pair");
	EQ_U(n.r.load_max, 4, "b: S2 -> S1 still carries 4");
	EQ_U(n.r.links_used, 2, "b: S1 -> S2 still carries H4's routes");
	drop_net(&n);
}

static void test_loop(void)
{
	struct net n;

	if (!two_switches(&n, false))
		return;
	route(&n, 1, lid(&n, 4), 3);	/* S2 sends H3's LID back to S1 */
	if (!check(&n))
		return;
	EQ_U(n.r.ca_unreachable, 3, "c: H1, H2, H4 -> H3 loop");
	EQ_U(n.r.sw_unreachable, 2, "c: S1, S2 -> H3 loop");
	EQ_U(n.r.loops, 5, "c: all five walks loop");
	has(n.r.examples[0], "loop S1 -> S2 -> S1", "c: loop example");
	OK(n.r.credit_loop, "c: a forwarding loop is a credit loop");
	EQ_S(n.r.cycle, "S1/3 -> S2/3 -> S1/3", "c: the cycle");
	drop_net(&n);
}

/*
 * Four switches in a ring, Si port 2 to S(i+1) port 3, host Hi on Si
 * port 1.  Node indices: Si i, Hi i + 4.  S0's description may be set.
 */
static int ring(struct net *n, const char *s0_desc)
{
	memset(n, 0, sizeof(*n));
	n->f = vf_fabric_create();
	for (unsigned i = 0; i < 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "S%u", i);
		vf_fabric_add_node(n->f, VF_NODE_SWITCH, 0x10 * (i + 1), 0, 3,
				   name, i == 0 ? s0_desc : NULL);
	}
	for (unsigned i = 0; i < 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "H%u", i);
		add_ca(n, name, 0x100 * (i + 1));
		link2(n, i + 4, 1, i, 1);
		link2(n, i, 2, (i + 1) % 4, 3);
	}
	return finish(n);
}

/*
 * Port at switch i toward switch j: clockwise (2) for 1 or 2 hops ahead,
 * counter-clockwise (3) for 3.  updown: with S0 as root, the 2-hop routes
 * never go down and then up again (S1 <-> S3 via S0, S0 <-> S2 via S1).
 */
static unsigned ring_port(unsigned i, unsigned j, bool updown)
{
	unsigned k = (j + 4 - i) % 4;

	if (k == 2 && updown)
		return i == 0 || i == 3 ? 2 : 3;
	return k == 3 ? 3 : 2;
}

static void ring_routes(struct net *n, bool updown)
{
	for (unsigned i = 0; i < 4; i++) {
		for (unsigned j = 0; j < 4; j++) {
			unsigned p = ring_port(i, j, updown);

			route(n, i, lid(n, j), i == j ? 0 : p);
			route(n, i, lid(n, j + 4), i == j ? 1 : p);
		}
	}
}

/*
 * Routes to CA LIDs up/down, routes to switch LIDs clockwise: the data
 * traffic has no credit loop, the management routes add one, which is
 * reported on its own and does not fail the check.
 */
static void test_switch_lid_loop(void)
{
	struct net n;

	if (!ring(&n, NULL))
		return;
	ring_routes(&n, true);
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 4; j++)
			route(&n, i, lid(&n, j),
			      i == j ? 0 : ring_port(i, j, false));
	if (!check(&n))
		return;
	OK(!n.r.credit_loop, "i: no credit loop among routes to CAs");
	OK(n.r.sw_credit_loop, "i: routes to switch LIDs add a cycle");
	OK(strstr(n.r.sw_cycle, "S0/2") && strstr(n.r.sw_cycle, "->"),
	   "i: the switch-LID cycle is described");
	OK(n.r.sw_dependencies > 0, "i: their dependencies are counted");
	OK(vf_route_report_ok(&n.r), "i: the check still passes");
	drop_net(&n);
}

static void test_ring(void)
{
	struct net n;

	if (!ring(&n, NULL))
		return;
	ring_routes(&n, false);
	if (!check(&n))
		return;
	OK(n.r.credit_loop, "d: clockwise ring has a credit loop");
	for (unsigned i = 0; i < 4; i++) {
		char s[8];

		snprintf(s, sizeof(s), "S%u/2", i);
		has(n.r.cycle, s, "d: cycle names every switch");
	}
	EQ_U(n.r.dependencies, 4, "d: one dependency per 2-hop turn");
	EQ_U(n.r.channels, 8, "d: all 8 channels carry routes");
	EQ_U(n.r.ca_unreachable + n.r.sw_unreachable, 0, "d: all reach");
	EQ_U(n.r.stretched, 0, "d: 2 hops either way is shortest");
	EQ_U(n.r.load_max, 3, "d: clockwise link: 1 + 2 + 2 hop routes");
	OK(n.r.load_avg == 2, "d: (4 x 3 + 4 x 1) / 8 links");
	OK(!vf_route_report_ok(&n.r), "d: report not ok");

	ring_routes(&n, true);
	if (!check(&n))
		return;
	OK(!n.r.credit_loop, "d: up/down ring has no credit loop");
	EQ_S(n.r.cycle, "", "d: no cycle written");
	EQ_U(n.r.dependencies, 4, "d: up/down still has 4 turns");
	EQ_U(n.r.hops_sum, n.r.min_hops_sum, "d: up/down is min-hop here");
	OK(vf_route_report_ok(&n.r), "d: up/down report ok");
	drop_net(&n);
}

static void test_stretch(void)
{
	struct net n;
	uint64_t base;

	if (!ring(&n, NULL))
		return;
	ring_routes(&n, true);
	if (!check(&n))
		return;
	base = n.r.hops_sum;
	/* H1's LID from S0 the long way: S0 -> S3 -> S2 -> S1 */
	route(&n, 0, lid(&n, 5), 3);
	route(&n, 3, lid(&n, 5), 3);
	if (!check(&n))
		return;
	EQ_U(n.r.ca_unreachable + n.r.sw_unreachable, 0, "e: all reach");
	EQ_U(n.r.stretched, 2, "e: S0 and H0 -> H1 stretched");
	EQ_U(n.r.max_stretch, 2, "e: 3 hops where 1 suffices");
	EQ_U(n.r.hops_sum, base + 4, "e: two pairs, 2 extra hops each");
	EQ_U(n.r.min_hops_sum, base, "e: shortest unchanged");
	/* with S1 -> S0 -> S3 and S2 -> S1 -> S0 it closes the ring */
	OK(n.r.credit_loop, "e: the detour closes a credit loop");
	EQ_S(n.r.cycle, "S0/3 -> S3/3 -> S2/3 -> S1/3 -> S0/3", "e: cycle");
	drop_net(&n);
}

static void test_loop_tail(void)
{
	struct net n;

	if (!ring(&n, NULL))
		return;
	ring_routes(&n, true);
	/* H1's LID: S0 -> S3 -> S2 -> S3 -> ... */
	route(&n, 0, lid(&n, 5), 3);
	route(&n, 3, lid(&n, 5), 3);
	route(&n, 2, lid(&n, 5), 2);
	if (!check(&n))
		return;
	EQ_U(n.r.loops, 6, "c: S0, S2, S3 and their hosts loop");
	has(n.r.examples[0], "from switch S0 (0x0000000000000010): "
	    "loop S3 -> S2 -> S3", "c: loop named where the walk enters it");
	drop_net(&n);
}

static void test_unhealthy(void)
{
	struct net n;
	uint32_t p;

	if (!two_switches(&n, true))
		return;
	route(&n, 0, lid(&n, 4), 4);	/* S1 -> H3 over the second cable */
	if (!check(&n))
		return;
	EQ_U(n.r.links, 4, "f: two cables, four directions");
	EQ_U(n.r.links_used, 3, "f: nothing returns over port 4");
	EQ_U(n.r.load_max, 4, "f: S2 -> S1 carries 4");
	OK(n.r.load_avg == 2 && n.r.load_max_over_avg == 2, "f: 8 / 4");
	OK(vf_route_report_ok(&n.r), "f: healthy parallel cable ok");

	p = vf_fabric_port(n.f, 0, 4);
	n.f->ports[p].healthy = false;
	if (!check(&n))
		return;
	EQ_U(n.r.ca_unreachable, 2, "f: H1, H2 -> H3 over a bad link");
	EQ_U(n.r.sw_unreachable, 1, "f: S1 -> H3 over a bad link");
	EQ_U(n.r.links, 2, "f: unhealthy cable is no link");
	EQ_U(n.r.stretched, 0, "f: the rest is shortest");
	has(n.r.examples[0], "drop at S1 port 4 (link down)",
	    "f: example names the link");
	drop_net(&n);
}

static void test_dead_host(void)
{
	struct net n;

	if (!two_switches(&n, false))
		return;
	n.f->ports[vf_fabric_port(n.f, 5, 1)].healthy = false;	/* H4 */
	if (!check(&n))
		return;
	EQ_U(n.r.ca_unreachable, 6, "f: H4 <-> H1, H2, H3 both ways");
	EQ_U(n.r.sw_unreachable, 4, "f: H4 <-> S1, S2 both ways");
	EQ_U(n.r.load_max, 2, "f: H4 adds no load");
	has(n.r.examples[0], "lid 1 from CA H4 port 1: link down",
	    "f: a dead host is named");
	drop_net(&n);
}

/* No switch at all: two CAs cabled to each other. */
static void test_back_to_back(void)
{
	struct net n = { .f = vf_fabric_create() };

	add_ca(&n, "B1", 0x100);
	add_ca(&n, "B2", 0x200);
	link2(&n, 0, 1, 1, 1);
	if (!finish(&n) || !check(&n))
		return;
	EQ_U(n.r.ca_pairs, 2, "f: back to back, both ways");
	EQ_U(n.r.ca_unreachable + n.r.sw_pairs, 0, "f: reach, no switch");
	OK(n.r.links == 0 && n.r.load_avg == 0, "f: no links, no load");
	OK(vf_route_report_ok(&n.r), "f: back to back ok");
	drop_net(&n);
}

/* Parse with Python's json module: the strictest reader at hand. */
static int json_parses(const struct vf_route_report *r)
{
	FILE *p = popen("python3 -c 'import json, sys; "
			"d = json.load(sys.stdin); "
			"assert isinstance(d[\"examples\"], list)'", "w");

	struct json_object *o = vf_route_report_json(r);
	int rc;

	if (!p) {
		json_object_put(o);
		return 0;
	}
	rc = vf_json_print(p, o, JSON_C_TO_STRING_PLAIN);
	json_object_put(o);
	return (pclose(p) == 0) & !rc;
}

/* The report's JSON as json-c prints it, malloc'ed. */
static char *json_text(const struct vf_route_report *r)
{
	struct json_object *o = vf_route_report_json(r);
	char *s = o ? strdup(json_object_to_json_string_ext(o,
				JSON_C_TO_STRING_PLAIN |
				JSON_C_TO_STRING_NOSLASHESCAPE)) : NULL;

	json_object_put(o);
	return s ? s : strdup("");
}

static void test_output(void)
{
	struct net n;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (!ring(&n, "ring \"zero\" \\ \t\xc3\xa9\xff"))
		return;
	ring_routes(&n, false);
	route(&n, 1, lid(&n, 2), VF_NO_PORT);
	if (!check(&n))
		return;
	OK(n.r.credit_loop && n.r.num_examples > 0, "g: loop and examples");
	OK(json_parses(&n.r), "g: JSON parses (quotes, tab, UTF-8, 0xff)");
	buf = json_text(&n.r);
	has(buf, "\"credit_loop\":true", "g: JSON carries the flag");
	/* 0xff is no UTF-8: U+00FF (routing/vfjson.h) */
	has(buf, "ring \\\"zero\\\" \\\\ \\t\xc3\xa9\xc3\xbf",
	    "g: JSON escapes the description");
	free(buf);
	mem = open_memstream(&buf, &len);
	vf_route_report_print(mem, &n.r);
	fclose(mem);
	has(buf, "credit loops  FOUND: ", "g: text names the loop");
	has(buf, "failure       lid 3", "g: text lists the failure");
	free(buf);
	drop_net(&n);
}

/*
 * LMC 1 on two switches joined twice (ports 3 and 4): every LID offset is
 * loaded on its own.  Hosts H1 H2 on S1, H3 H4 on S2, LIDs 2h and 2h + 1
 * for host h, the switches 16 and 18.  Base LIDs all cross
 * on port 3: 2 sources x 2 destinations = 4 each way; the offset 1 LIDs
 * of the first host of a switch cross on port 3, of the second on port 4:
 * 2 each.
 */
static void test_lid_offsets(void)
{
	char *buf = NULL;
	size_t len = 0;
	struct net n;
	FILE *mem;

	memset(&n, 0, sizeof(n));
	n.f = vf_fabric_create();
	add_sw(&n, "S1", 0x10, 4);
	add_sw(&n, "S2", 0x20, 4);
	for (unsigned i = 1; i <= 4; i++) {
		struct vf_port *p;
		uint32_t h = add_ca(&n, "H", 0x100 * i);

		link2(&n, h, 1, i <= 2 ? 0 : 1, (i - 1) % 2 + 1);
		p = vf_node_port(n.f, &n.f->nodes[h], 1);
		p->base_lid = 2 * i;
		p->lmc = 1;
	}
	link2(&n, 0, 3, 1, 3);
	link2(&n, 0, 4, 1, 4);
	vf_node_port(n.f, &n.f->nodes[0], 0)->base_lid = 16;
	vf_node_port(n.f, &n.f->nodes[1], 0)->base_lid = 18;
	if (!OK(!vf_fabric_finalize(n.f) &&
		!vf_lfts_init(&n.t, 2, n.f->max_lid), "l: fabric built"))
		return;
	for (uint32_t s = 0; s < 2; s++) {
		route(&n, s, 16 + 2 * s, 0);
		route(&n, s, 18 - 2 * s, 3);
		for (unsigned i = 1; i <= 4; i++) {
			bool local = (i <= 2) == !s;

			route(&n, s, 2 * i, local ? (i - 1) % 2 + 1 : 3);
			route(&n, s, 2 * i + 1,
			      local ? (i - 1) % 2 + 1 : 3 + (i - 1) % 2);
		}
	}
	if (!check(&n))
		return;
	OK(vf_route_report_ok(&n.r), "l: all reachable, no loop");
	EQ_U(n.r.lid_offsets, 2, "l: two LID offsets");
	EQ_U(n.r.load_max, 4, "l: base LIDs: 4 on port 3");
	EQ_U(n.r.load_max_by_offset[0], 4, "l: offset 0 is the base load");
	EQ_U(n.r.load_max_by_offset[1], 2, "l: offset 1: 2 on each port");
	mem = open_memstream(&buf, &len);
	vf_route_report_print(mem, &n.r);
	fclose(mem);
	has(buf, "\nlink load by LID offset: max 4, 2\n", "l: text line");
	free(buf);
	buf = json_text(&n.r);
	has(buf, "\"load_max_by_offset\":[4,2]", "l: JSON member");
	free(buf);
	drop_net(&n);
}

enum { LEAVES = 32, HOSTS = 16, SPINES = 16 };

/*
 * Two-level fat tree: leaf L port h + 1 to host L * HOSTS + h, port
 * HOSTS + 1 + s to spine s port L + 1.  Node indices: spines, leaves,
 * hosts.
 */
static int fat_tree(struct net *n)
{
	memset(n, 0, sizeof(*n));
	n->f = vf_fabric_create();
	for (unsigned s = 0; s < SPINES; s++)
		add_sw(n, "spine", 0x1000 + s, LEAVES);
	for (unsigned l = 0; l < LEAVES; l++) {
		add_sw(n, "leaf", 0x2000 + l, HOSTS + SPINES);
		for (unsigned s = 0; s < SPINES; s++)
			link2(n, SPINES + l, HOSTS + 1 + s, s, l + 1);
	}
	for (unsigned h = 0; h < LEAVES * HOSTS; h++) {
		uint32_t node = add_ca(n, "host", 0x10000 + 0x10 * h);

		link2(n, node, 1, SPINES + h / HOSTS, h % HOSTS + 1);
	}
	return finish(n);
}

/* Leaves go up to spine (destination index mod SPINES), spines go down. */
static void fat_tree_routes(struct net *n)
{
	for (uint32_t d = 0; d < SPINES + LEAVES + LEAVES * HOSTS; d++) {
		unsigned l = lid(n, d), up, leaf, down;
		bool host = d >= SPINES + LEAVES;

		/* spine LIDs: leaves go up, other spines via leaf 0 */
		if (d < SPINES) {
			for (unsigned s = 0; s < SPINES; s++)
				route(n, s, l, s == d ? 0 : 1);
			for (unsigned x = 0; x < LEAVES; x++)
				route(n, SPINES + x, l, HOSTS + 1 + d);
			continue;
		}
		leaf = host ? (d - SPINES - LEAVES) / HOSTS : d - SPINES;
		up = HOSTS + 1 + (host ? d - SPINES - LEAVES : leaf) % SPINES;
		down = host ? (d - SPINES - LEAVES) % HOSTS + 1 : 0;
		for (unsigned s = 0; s < SPINES; s++)
			route(n, s, l, leaf + 1);
		for (unsigned x = 0; x < LEAVES; x++)
			route(n, SPINES + x, l, x == leaf ? down : up);
	}
}

static void test_fat_tree(void)
{
	const uint64_t hosts = LEAVES * HOSTS, sws = LEAVES + SPINES;
	struct timespec a, b;
	struct net n;

	if (!fat_tree(&n))
		return;
	fat_tree_routes(&n);
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (!check(&n))
		return;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("# fat tree %u switches, %u LIDs: %.3f s\n",
	       n.f->num_switches, n.f->max_lid,
	       (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	EQ_U(n.r.ca_pairs, hosts * (hosts - 1), "h: CA pairs");
	EQ_U(n.r.sw_pairs, sws * (sws + hosts) + hosts * sws, "h: sw pairs");
	EQ_U(n.r.ca_unreachable + n.r.sw_unreachable, 0, "h: all reach");
	EQ_U(n.r.stretched, 0, "h: all shortest");
	OK(!n.r.credit_loop, "h: no credit loop");
	EQ_U(n.r.links, 2 * LEAVES * SPINES, "h: directed links");
	EQ_U(n.r.links_used, 2 * LEAVES * SPINES, "h: all used");
	/* up: 16 local sources x 31 remote hosts with that index mod 16 */
	EQ_U(n.r.load_max, HOSTS * (LEAVES - 1), "h: max load");
	OK(n.r.load_max_over_avg == 1, "h: perfectly even");
	OK(vf_route_report_ok(&n.r), "h: report ok");
	drop_net(&n);
}

int main(void)
{
	test_two_switches();
	test_drop();
	test_loop();
	test_ring();
	test_switch_lid_loop();
	test_stretch();
	test_loop_tail();
	test_unhealthy();
	test_dead_host();
	test_back_to_back();
	test_output();
	test_lid_offsets();
	test_fat_tree();
	return tap_done();
}
