// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Per-partition metrics on a small fat tree with hand-written LFTs, where
 * every load can be worked out on paper, plus the 648-host fabric the
 * metrics must handle in well under a second.
 */
#include <time.h>

#include "routing/engine.h"
#include "routing/partload.h"
#include "routing/vfjson.h"
#include "fabrics.h"
#include "taptest.h"

/*
 * fat_tree(3, 2, 2): leaves L0 L1 L2 (switches 0-2), spines S0 S1; host
 * Hl_h on leaf l port h + 1; leaf port 3 + s faces spine s, spine port
 * l + 1 faces leaf l.  Node indices: hosts from 5, in leaf order.
 */
enum { LEAVES = 3, SPINES = 2, HOSTS = 2 };
enum { H0_0 = 5, H0_1, H1_0, H1_1, H2_0, H2_1 };

static uint32_t slot(const struct vf_fabric *f, uint32_t node)
{
	return f->nodes[node].first_port + 1;
}

static unsigned host_lid(const struct vf_fabric *f, uint32_t node)
{
	return f->ports[slot(f, node)].base_lid;
}

/*
 * Routes to the hosts only (all the metrics read): a leaf delivers its
 * own hosts, sends the others up to spine up[host - H0_0]; spines send
 * down to the host's leaf.
 */
static void tree_lfts(const struct vf_fabric *f, struct vf_lfts *t,
		      const unsigned *up)
{
	memset(t->port, VF_NO_PORT,
	       (size_t)t->num_switches * (t->max_lid + 1u));
	for (uint32_t h = H0_0; h <= H2_1; h++) {
		unsigned l = (h - H0_0) / HOSTS, lid = host_lid(f, h);
		unsigned down = (h - H0_0) % HOSTS + 1;
		unsigned upl = HOSTS + 1 + up[h - H0_0];

		for (unsigned s = 0; s < LEAVES; s++)
			vf_lft_row(t, s)[lid] = s == l ? down : upl;
		for (unsigned s = 0; s < SPINES; s++)
			vf_lft_row(t, LEAVES + s)[lid] = l + 1;
	}
}

/*
 * Classes: A {H0_0, H1_0}; B {H2_0, H1_1} (no port in common with A);
 * C: H0_0 full, H0_1 H1_1 H2_1 limited (overlaps A and B); D = A (pairs
 * permitted twice); Admin: every host, management.
 */
enum { A, B, C, D, ADMIN, NUM_CLASSES };

static int make_traffic(const struct vf_fabric *f, struct vf_traffic *tr)
{
	static const char *const names[] = { "A", "B", "C", "D", "Admin" };

	if (vf_traffic_init(tr, f, NUM_CLASSES))
		return -1;
	for (unsigned k = 0; k < NUM_CLASSES; k++) {
		snprintf(tr->cls[k].name, sizeof(tr->cls[k].name), "%s",
			 names[k]);
		tr->cls[k].pkey = 0x10 + k;
	}
	tr->cls[ADMIN].pkey = 0x7fff;
	tr->cls[ADMIN].management = true;
	vf_traffic_set(tr, slot(f, H0_0), A, VF_TRAFFIC_FULL);
	vf_traffic_set(tr, slot(f, H1_0), A, VF_TRAFFIC_FULL);
	vf_traffic_set(tr, slot(f, H2_0), B, VF_TRAFFIC_FULL);
	vf_traffic_set(tr, slot(f, H1_1), B, VF_TRAFFIC_FULL);
	vf_traffic_set(tr, slot(f, H0_0), C, VF_TRAFFIC_FULL);
	vf_traffic_set(tr, slot(f, H0_1), C, VF_TRAFFIC_LIMITED);
	vf_traffic_set(tr, slot(f, H1_1), C, VF_TRAFFIC_LIMITED);
	vf_traffic_set(tr, slot(f, H2_1), C, VF_TRAFFIC_LIMITED);
	vf_traffic_set(tr, slot(f, H0_0), D, VF_TRAFFIC_FULL);
	vf_traffic_set(tr, slot(f, H1_0), D, VF_TRAFFIC_FULL);
	for (uint32_t h = H0_0; h <= H2_1; h++)
		vf_traffic_set(tr, slot(f, h), ADMIN, VF_TRAFFIC_FULL);
	return 0;
}

struct net {
	struct vf_fabric *f;
	struct vf_lfts t;
	struct vf_traffic tr;
	struct vf_partload r;
};

static int setup(struct net *n)
{
	memset(n, 0, sizeof(*n));
	n->f = fat_tree(LEAVES, SPINES, HOSTS, 0);
	return OK(n->f && !vf_lfts_init(&n->t, n->f->num_switches,
					 n->f->max_lid) &&
		  !make_traffic(n->f, &n->tr), "3x2 fat tree and 5 classes");
}

static void teardown(struct net *n)
{
	vf_partload_free(&n->r);
	vf_traffic_free(&n->tr);
	vf_lfts_free(&n->t);
	vf_fabric_destroy(n->f);
}

static int measure(struct net *n, const unsigned *up)
{
	tree_lfts(n->f, &n->t, up);
	vf_partload_free(&n->r);
	return OK(!vf_partload_compute(n->f, &n->t, &n->tr, &n->r),
		  "metrics computed");
}

/*
 * Every leaf goes up by S0, except to H2_0 (by S1): A's routes take
 * L0->S0->L1 and back; B's H2_0 -> H1_1 takes L2->S0->L1, H1_1 -> H2_0
 * L1->S1->L2.  So A and B (and D and B) share exactly S0->L1.
 */
static void test_shared_one(void)
{
	static const unsigned up[6] = { 0, 0, 0, 0, 1, 0 };
	struct vf_partload_link l[8];
	struct net n;

	if (!setup(&n) || !measure(&n, up))
		goto out;
	EQ_U(n.r.links, 12, "3 leaves x 2 spines x 2 directions");
	EQ_U(n.r.cls[A].pairs, 2, "A: two ordered pairs");
	EQ_U(n.r.cls[A].unreachable, 0, "A: all arrive");
	EQ_U(n.r.cls[A].links_used, 4, "A: up and down both ways");
	EQ_U(n.r.cls[A].load_max, 1, "A: one route per link");
	EQ_U(n.r.cls[A].load_sum, 4, "A: 2 routes x 2 hops");
	OK(n.r.cls[A].load_avg_used == 1.0, "A: avg 1 on its links");
	OK(n.r.cls[A].load_avg == 4.0 / 12, "A: avg 1/3 on all");
	OK(n.r.cls[A].load_max_over_avg == 3.0, "A: max/avg 3");
	EQ_U(n.r.cls[B].pairs, 2, "B: two ordered pairs");
	EQ_U(n.r.cls[B].links_used, 4, "B: four links");
	EQ_U(n.r.cls[C].pairs, 6, "C: full<->limited pairs only, not the 6 "
	     "limited-limited ones");
	EQ_U(n.r.cls[C].links_used, 6, "C: H0_0 to and from L1 and L2");
	EQ_U(n.r.cls[C].load_max, 2, "C: L0<->S0 carry two routes each way");
	EQ_U(n.r.cls[C].load_sum, 8, "C: 4 inter-leaf routes x 2 hops");
	EQ_U(n.r.cls[ADMIN].pairs + n.r.cls[ADMIN].links_used, 0,
	     "Admin: management, not measured");
	EQ_U(n.r.shared_links, 1, "one link shared across tenants");
	EQ_U(n.r.num_shared, 2, "by A/B and by B/D (C overlaps all)");
	if (n.r.num_shared == 2) {
		OK(n.r.shared[0].a == A && n.r.shared[0].b == B &&
		   n.r.shared[0].links == 1, "A and B share 1 link");
		OK(n.r.shared[1].a == B && n.r.shared[1].b == D &&
		   n.r.shared[1].links == 1, "B and D share 1 link");
	}
	EQ_U(n.r.all.pairs, 10, "all: A+B+C, D's pairs counted once");
	EQ_U(n.r.all.load_sum, 16, "all: 8 inter-leaf pairs x 2 hops");
	EQ_U(n.r.all.load_max, 3, "all: L0->S0, S0->L1, S0->L0 carry 3");
	EQ_U(n.r.all.links_used, 8, "all: 8 links");
	EQ_U(vf_partload_links(&n.r, n.f, A, NULL, 0), 4, "A lists 4 links");
	EQ_U(vf_partload_links(&n.r, n.f, A, l, 8), 4, "... all written");
	OK(l[0].from_guid == 0x200000 && l[0].from_port == 3 &&
	   l[0].to_guid == 0x200100 && l[0].to_port == 1 && l[0].load == 1,
	   "first: L0/3 -> S0/1, load 1");
	OK(l[3].from_guid == 0x200100 && l[3].from_port == 2 &&
	   l[3].to_guid == 0x200001 && l[3].to_port == 3,
	   "last: S0/2 -> L1/3");
	EQ_U(vf_partload_links(&n.r, n.f, ADMIN, l, 8), 0,
	     "management lists no links");
out:
	teardown(&n);
}

/* H2_0 -> H1_1 by S1 as well: B keeps to S1, A to S0. */
static void test_disjoint(void)
{
	static const unsigned up[6] = { 0, 0, 0, 1, 1, 0 };
	struct net n;

	if (!setup(&n) || !measure(&n, up))
		goto out;
	EQ_U(n.r.shared_links, 0, "tenants on disjoint links");
	EQ_U(n.r.num_shared, 0, "no pair of classes listed");
	EQ_U(n.r.cls[B].links_used, 4, "B: L2<->S1<->L1");
	EQ_U(n.r.cls[A].load_max, 1, "A unchanged");
out:
	teardown(&n);
}

/*
 * S0 drops H1_0's LID, H2_1's cable is unhealthy: H0_0 -> H1_0 (A, D)
 * and H0_0 <-> H2_1 (C) never arrive and load nothing.
 */
static void test_unreachable(void)
{
	static const unsigned up[6] = { 0 };
	struct net n;

	if (!setup(&n))
		goto out;
	n.f->ports[slot(n.f, H2_1)].healthy = false;
	tree_lfts(n.f, &n.t, up);
	vf_lft_row(&n.t, LEAVES)[host_lid(n.f, H1_0)] = VF_NO_PORT;
	vf_partload_free(&n.r);
	if (!OK(!vf_partload_compute(n.f, &n.t, &n.tr, &n.r),
		"metrics computed"))
		goto out;
	EQ_U(n.r.cls[A].pairs, 2, "A: still two pairs");
	EQ_U(n.r.cls[A].unreachable, 1, "A: H0_0 -> H1_0 dropped at S0");
	EQ_U(n.r.cls[A].links_used, 2, "A: only H1_0 -> H0_0 loads links");
	EQ_U(n.r.cls[C].pairs, 6, "C: six pairs");
	EQ_U(n.r.cls[C].unreachable, 2, "C: both ways to the dead host");
	EQ_U(n.r.cls[C].load_sum, 4, "C: only H0_0 <-> H1_1 load links");
	EQ_U(n.r.all.unreachable, 3, "all: A's and D's drop once, C's two");
out:
	teardown(&n);
}

/* Text and JSON carry the figures. */
static void test_output(void)
{
	static const unsigned up[6] = { 0, 0, 0, 0, 1, 0 };
	char *buf = NULL;
	size_t len = 0;
	struct json_object *jo;
	struct net n;
	FILE *out;

	if (!setup(&n) || !measure(&n, up))
		goto out;
	out = open_memstream(&buf, &len);
	vf_partload_print(out, &n.r, &n.tr);
	jo = vf_partload_json(&n.r, &n.tr);
	vf_json_print(out, jo, JSON_C_TO_STRING_PLAIN);
	json_object_put(jo);
	vf_partload_links_print(out, &n.r, n.f, &n.tr, A);
	fclose(out);
	OK(strstr(buf, "class         A (0x0010): 2 pairs, 0 unreachable; "
		  "4 links used, load max 1, avg 1.00 on those, 0.33 on all, "
		  "max/avg 3.00\n"), "text: a class line");
	OK(strstr(buf, "class         Admin (0x7fff): management, not "
		  "measured\n"), "text: the management class");
	OK(strstr(buf, "shared links  1 used by classes without a common "
		  "port\nshared        A and B: 1 links\n"), "text: shared");
	OK(strstr(buf, "\"shared_links\":1,\"shared\":[{\"a\":\"A\",\"b\":"
		  "\"B\",\"links\":1}"), "JSON: shared");
	OK(strstr(buf, "link          0x0000000000200000 L0/3 -> "
		  "0x0000000000200100 S0/1 load 1\n"), "text: a link");
	if (tap_failed)
		printf("# %s", buf);
out:
	free(buf);
	teardown(&n);
}

/*
 * 648 hosts (36 leaves x 18 spines, 18 hosts each), 10 classes: 8
 * tenants of 81 hosts, storage services (18 full members, the rest
 * limited) and Admin.
 */
static void test_scale(void)
{
	struct vf_fabric *f = fat_tree(36, 18, 18, 0);
	struct vf_route_opts o = { 0 };
	struct vf_lfts t = { 0 };
	struct vf_traffic tr = { 0 };
	struct vf_partload r = { 0 };
	uint64_t tenant_pairs = 0;
	struct timespec t0, t1;
	double secs;

	if (!OK(f && !vf_lfts_init(&t, f->num_switches, f->max_lid) &&
		!vf_route_shortestpath(f, &o, &t) &&
		!vf_traffic_init(&tr, f, 10), "648 hosts routed"))
		goto out;
	for (unsigned k = 0; k < 10; k++)
		snprintf(tr.cls[k].name, sizeof(tr.cls[k].name), "V%u", k);
	tr.cls[9].management = true;
	for (unsigned h = 0; h < 648; h++) {
		uint32_t p = slot(f, 54 + h);

		vf_traffic_set(&tr, p, h / 81, VF_TRAFFIC_FULL);
		vf_traffic_set(&tr, p, 8, h >= 630 ? VF_TRAFFIC_FULL :
			       VF_TRAFFIC_LIMITED);
		vf_traffic_set(&tr, p, 9, VF_TRAFFIC_FULL);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	OK(!vf_partload_compute(f, &t, &tr, &r), "metrics computed");
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("# 648 hosts, 10 classes: %.3f s CPU\n", secs);
	OK(secs < 0.5, "well under a second");
	for (unsigned k = 0; k < 8; k++)
		tenant_pairs += r.cls[k].pairs;
	EQ_U(tenant_pairs, 8 * 81 * 80, "tenants: 81 x 80 pairs each");
	EQ_U(r.cls[8].pairs, 2 * 18 * 630 + 18 * 17,
	     "services: storage to and from all, among themselves");
	EQ_U(r.all.unreachable, 0, "all arrive");
	/* tenant 7 holds the storage and 63 limited members */
	EQ_U(r.all.pairs, tenant_pairs + r.cls[8].pairs - 18 * 17 -
	     2 * 18 * 63, "all: pairs of tenant 7 and services counted once");
out:
	vf_partload_free(&r);
	vf_traffic_free(&tr);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

int main(void)
{
	test_shared_one();
	test_disjoint();
	test_unreachable();
	test_output();
	test_scale();
	return tap_done();
}
