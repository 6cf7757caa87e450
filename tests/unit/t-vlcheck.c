// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The per-VL credit-loop check and the VL layers, on a ring of three
 * switches routed one way round, where every dependency can be worked out
 * by hand:
 *
 *   S0 -p1-> S1 -p1-> S2 -p1-> S0   (port 1 clockwise, port 2 back,
 *                                     port 3 the switch's one host)
 *
 * Every switch sends a host two hops away clockwise, so the turns are
 * (S0>S1, S1>S2), (S1>S2, S2>S0), (S2>S0, S0>S1): a cycle on one VL.
 * A dateline breaks it (the link S2>S0 and everything after it on VL1);
 * so does the layering, which this test checks against the same turns.
 */
#include <errno.h>
#include <string.h>

#include "routing/routecheck.h"
#include "routing/vlcheck.h"
#include "routing/vllayers.h"
#include "tests/unit/taptest.h"

/*
 * A ring of n switches routed clockwise, a host on each (nodes n..2n-1);
 * with lidless, the last host's port has no LID.
 */
static struct vf_fabric *ring(struct vf_lfts *t, unsigned n, bool lidless)
{
	struct vf_fabric *f = vf_fabric_create();
	char name[8];

	for (unsigned s = 0; s < n; s++) {
		snprintf(name, sizeof(name), "S%u", s);
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x100 + s, 0, 3, name,
				   NULL);
	}
	for (unsigned s = 0; s < n; s++) {
		uint32_t h;

		vf_fabric_link(f, vf_fabric_port(f, s, 1),
			       vf_fabric_port(f, (s + 1) % n, 2));
		snprintf(name, sizeof(name), "H%u", s);
		h = vf_fabric_add_node(f, VF_NODE_CA, 0x200 + s, 0, 1, name,
				       NULL);
		vf_fabric_link(f, vf_fabric_port(f, s, 3),
			       vf_fabric_port(f, h, 1));
	}
	for (uint32_t p = 0; p < f->num_ports; p++) {
		f->ports[p].width = 4;
		f->ports[p].speed = VF_SPEED_QDR;
	}
	vf_fabric_assign_lids(f, 0);
	if (lidless)
		f->ports[vf_fabric_port(f, 2 * n - 1, 1)].base_lid = 0;
	vf_fabric_finalize(f);
	vf_lfts_init(t, n, f->max_lid);
	/* clockwise to everything; port 3 to the own host, 0 to oneself */
	for (unsigned s = 0; s < n; s++)
		for (unsigned lid = 1; lid <= f->max_lid; lid++) {
			uint32_t owner = vf_fabric_lid_node(f, lid);
			unsigned at = vf_is_switch(&f->nodes[owner]) ?
				      f->nodes[owner].sw :
				      (unsigned)(owner - n);

			vf_lft_row(t, s)[lid] = at == s ?
				(vf_is_switch(&f->nodes[owner]) ? 0 : 3) : 1;
		}
	return f;
}

static uint16_t sl0(const void *ctx, uint32_t s, unsigned lid)
{
	(void)ctx;
	(void)s;
	(void)lid;
	return 1;
}

static uint8_t one_vl(const void *ctx, uint32_t s, uint8_t in, uint8_t out,
		      uint8_t sl)
{
	(void)ctx;
	(void)s;
	(void)in;
	(void)out;
	(void)sl;
	return 0;
}

/* VL1 on the link S2>S0 and, at S0, for what came in from S2 (port 2) */
static uint8_t dateline(const void *ctx, uint32_t s, uint8_t in, uint8_t out,
			uint8_t sl)
{
	(void)ctx;
	(void)sl;
	if ((s == 2 && out == 1) || (s == 0 && in == 2))
		return 1;
	return 0;
}

static uint8_t to_vl15(const void *ctx, uint32_t s, uint8_t in, uint8_t out,
		       uint8_t sl)
{
	(void)ctx;
	(void)in;
	(void)out;
	(void)sl;
	return s == 1 ? VF_VL_DROP : 0;
}

static void test_vl_check(void)
{
	struct vf_lfts t = { 0 };
	struct vf_fabric *f = ring(&t, 3, false);
	struct vf_vl_model m = { sl0, one_vl, NULL };
	struct vf_vl_report r;
	struct vf_route_report rr;

	EQ_U(vf_vl_check(f, &t, &m, &r), 0, "one VL: the check runs");
	OK(r.credit_loop, "one VL: the ring's cycle is found");
	EQ_U(r.dependencies, 3, "one VL: three turns");
	EQ_U(r.vls_used, 1, "one VL: VL0 only");
	OK(strstr(r.cycle, "VL0") && strstr(r.cycle, "S0/1") &&
	   strstr(r.cycle, "S1/1") && strstr(r.cycle, "S2/1"),
	   "the cycle names each link and its VL");
	m.sl2vl = dateline;
	EQ_U(vf_vl_check(f, &t, &m, &r), 0, "dateline: the check runs");
	OK(!r.credit_loop, "dateline: no cycle once S2>S0 goes to VL1");
	EQ_U(r.dependencies, 3, "dateline: (S0>S1,0)>(S1>S2,0), (S1>S2,0)>(S2>S0,1), (S2>S0,1)>(S0>S1,1)");
	EQ_U(r.vls_used, 3, "dateline: VL0 and VL1");
	EQ_U(vf_route_check_vl(f, &t, &m, &rr), 0, "route check per VL runs");
	OK(rr.vl_aware && rr.single_vl_loop && !rr.credit_loop &&
	   vf_route_report_ok(&rr),
	   "the route check: a loop on one VL, none per VL, and OK");
	m.sl2vl = to_vl15;
	vf_vl_check(f, &t, &m, &r);
	OK(r.dropped > 0 && !r.credit_loop, "an SL mapped to VL15 is dropped");
	vf_route_check_vl(f, &t, &m, &rr);
	OK(!vf_route_report_ok(&rr), "and dropped data fails the route check");
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

static void test_layers(void)
{
	struct vf_lfts t = { 0 };
	struct vf_fabric *f = ring(&t, 3, false);
	struct vf_layers l;
	struct vf_vl_model m;
	struct vf_vl_report r;
	unsigned on1 = 0, h1, h2;

	EQ_U(vf_layers_build(f, &t, 1, true, &l), (uint64_t)(int64_t)-ERANGE,
	     "one layer is not enough for the ring");
	EQ_U(l.num, 2, "... it needs two");
	vf_layers_free(&l);
	EQ_U(vf_layers_build(f, &t, 8, true, &l), 0, "layered into at most 8");
	EQ_U(l.num, 2, "two layers");
	for (unsigned a = 1; a <= f->max_lid; a++)
		for (unsigned b = 1; b <= f->max_lid; b++)
			on1 += vf_layer_of(&l, a, b);
	/* pairs {H0,H1} and {H0,H2} close no cycle; {H1,H2}'s two-hop way
	 * S2>S0>S1 would: it moves up, both ways */
	EQ_U(on1, 2, "one host pair moved up, both ways");
	h1 = vf_node_port(f, &f->nodes[4], 1)->base_lid;
	h2 = vf_node_port(f, &f->nodes[5], 1)->base_lid;
	OK(vf_layer_of(&l, h1, h2) == 1 && vf_layer_of(&l, h2, h1) == 1,
	   "H1 to H2 and H2 to H1 on layer 1");
	vf_layers_vl_model(&l, &m);
	EQ_U(vf_vl_check(f, &t, &m, &r), 0, "the layers checked per VL");
	OK(!r.credit_loop && r.vls_used == 3 && r.sls_used == 3,
	   "no cycle, on VL0 and VL1 through SL0 and SL1");
	vf_layers_free(&l);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/*
 * A ring of 4 switches routed clockwise, a host on each, the fourth's
 * port without a LID (not yet given one, say): it sends nothing, so the
 * check must not walk routes from its switch, which the layering never
 * saw (an audit: such routes on VL 0 could make the plugin's own check
 * refuse its layers).
 */
static void test_lidless_host(void)
{
	struct vf_lfts t = { 0 };
	struct vf_fabric *f = ring(&t, 4, true);
	struct vf_layers l;
	struct vf_vl_model m;
	struct vf_vl_report r;

	EQ_U(vf_layers_build(f, &t, 8, true, &l), 0,
	     "the ring of 4 with a LID-less host layered");
	OK(l.num == 2, "in 2 layers");
	OK(vf_layers_from_switch(&l, 3, vf_node_port(f, &f->nodes[4],
						     1)->base_lid) == 0,
	   "no traffic from the LID-less host's switch");
	OK(vf_layers_from_switch(&l, 0, vf_node_port(f, &f->nodes[5],
						     1)->base_lid) != 0,
	   "traffic from a host's switch");
	vf_layers_vl_model(&l, &m);
	EQ_U(vf_vl_check(f, &t, &m, &r), 0, "checked per VL");
	OK(!r.credit_loop, "no cycle per VL: the routes from S3 are not "
	   "walked");
	vf_layers_free(&l);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

int main(void)
{
	test_vl_check();
	test_layers();
	test_lidless_host();
	return tap_done();
}
