// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Partition-aware routing (docs/partition-routing.md) on a 2-level fat
 * tree, a 3-level one and two director-class fabrics, with the seed-000
 * security layout interleaved over the hosts: tenants A and B (every
 * other host), Services (every fifth host full, the tenants' hosts
 * limited).  For both engines and every mode: every permitted pair
 * reachable, no credit loop; balance no worse per tenant than off;
 * isolate with no link shared by the two tenants.  And the tenancy
 * itself: who is a tenant, which class a port is balanced under, how
 * the switches are shared out by weight.
 */
#include <stdio.h>
#include <string.h>

#include "routing/internal/tenancy.h"
#include "routing/engine.h"
#include "routing/partload.h"
#include "routing/routecheck.h"
#include "routing/internal/swgraph.h"
#include "routing/tenancy.h"
#include "fabrics.h"
#include "taptest.h"

enum { A, B, S, ADMIN, NUM_CLASSES };

/* The layout on f's CA ports, in node order: see the header. */
static struct vf_traffic layout(const struct vf_fabric *f, unsigned wa,
				unsigned wb)
{
	struct vf_traffic t;
	unsigned i = 0;

	if (vf_traffic_init(&t, f, NUM_CLASSES))
		return t;
	strcpy(t.cls[A].name, "Compute_A");
	strcpy(t.cls[B].name, "Compute_B");
	strcpy(t.cls[S].name, "Services");
	strcpy(t.cls[ADMIN].name, "Admin");
	t.cls[A].weight = wa;
	t.cls[B].weight = wb;
	t.cls[ADMIN].management = true;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		uint32_t p;

		if (vf_is_switch(&f->nodes[n]))
			continue;
		p = f->nodes[n].first_port + 1;
		vf_traffic_set(&t, p, ADMIN, VF_TRAFFIC_LIMITED);
		if (i % 5 == 4) {
			vf_traffic_set(&t, p, S, VF_TRAFFIC_FULL);
		} else {
			vf_traffic_set(&t, p, i % 2 ? B : A, VF_TRAFFIC_FULL);
			vf_traffic_set(&t, p, S, VF_TRAFFIC_LIMITED);
		}
		i++;
	}
	return t;
}

struct outcome {
	bool ok;		/* routed, all reachable, no loop */
	uint64_t max_a, max_b;
	uint32_t shared;
	char why[160];
};

static struct outcome route(const struct vf_fabric *f,
			    const struct vf_engine *e,
			    const struct vf_traffic *t,
			    enum vf_partition_routing mode)
{
	struct outcome o = { 0 };
	struct vf_route_opts opts;
	struct vf_route_report r;
	struct vf_partload pl;
	struct vf_lfts lfts;

	vf_route_opts_default(&opts);
	opts.traffic = t;
	opts.partition_routing = mode;
	if (vf_lfts_init(&lfts, f->num_switches, f->max_lid) ||
	    e->route(f, &opts, &lfts) || vf_route_check(f, &lfts, &r) ||
	    vf_partload_compute(f, &lfts, t, &pl)) {
		snprintf(o.why, sizeof(o.why), "routing or checks failed");
		vf_lfts_free(&lfts);
		return o;
	}
	o.ok = !r.ca_unreachable && !r.credit_loop && !pl.all.unreachable;
	for (unsigned c = 0; c < NUM_CLASSES; c++)
		o.ok &= !pl.cls[c].unreachable;
	snprintf(o.why, sizeof(o.why),
		 "unreachable %llu (classes %llu), credit loop %d",
		 (unsigned long long)r.ca_unreachable,
		 (unsigned long long)pl.all.unreachable, r.credit_loop);
	o.max_a = pl.cls[A].load_max;
	o.max_b = pl.cls[B].load_max;
	o.shared = pl.shared_links;
	vf_partload_free(&pl);
	vf_lfts_free(&lfts);
	return o;
}

static void modes(const char *name, struct vf_fabric *f)
{
	struct vf_traffic t = layout(f, 1, 1);
	char what[200];

	for (unsigned k = 0; k < vf_num_engines; k++) {
		const struct vf_engine *e = &vf_engines[k];
		struct outcome off, bal, iso;

		if (!strcmp(e->name, "dgshortestpath"))
			continue;	/* shortestpath's code, another order */
		off = route(f, e, &t, VF_PROUTE_OFF);
		bal = route(f, e, &t, VF_PROUTE_BALANCE);
		iso = route(f, e, &t, VF_PROUTE_ISOLATE);
		snprintf(what, sizeof(what),
			 "%s, %s: every permitted pair reachable, no credit loop in off, balance and isolate",
			 name, e->name);
		OK(off.ok && bal.ok && iso.ok, what);
		if (!(off.ok && bal.ok && iso.ok))
			printf("#   off: %s; balance: %s; isolate: %s\n",
			       off.why, bal.why, iso.why);
		snprintf(what, sizeof(what),
			 "%s, %s: balance per tenant A %llu, B %llu; off %llu, %llu",
			 name, e->name, (unsigned long long)bal.max_a,
			 (unsigned long long)bal.max_b,
			 (unsigned long long)off.max_a,
			 (unsigned long long)off.max_b);
		OK(bal.max_a <= off.max_a && bal.max_b <= off.max_b, what);
		snprintf(what, sizeof(what),
			 "%s, %s: isolate shares no link between the tenants (off shares %u)",
			 name, e->name, off.shared);
		OK(iso.shared == 0 && off.shared > 0, what);
	}
	vf_traffic_free(&t);
	vf_fabric_destroy(f);
}

/* Who is a tenant, which class a port counts for, switches by weight. */
static void tenancy(void)
{
	struct vf_fabric *f = fat_tree(8, 4, 8, 0);
	struct vf_traffic t = layout(f, 3, 1);
	struct vf_swgraph g;
	struct vf_tenancy ten;
	unsigned spines_a = 0, spines_b = 0, edges_owned = 0;
	uint32_t host0 = f->nodes[12].first_port + 1;	/* A, S limited */
	uint32_t host4 = f->nodes[16].first_port + 1;	/* S full */

	if (!OK(!vf_swgraph_init(&g, f) &&
		!vf_tenancy_init(&ten, f, &g, &t, VF_PROUTE_ISOLATE),
		"tenancy on an 8x8 tree with 4 spines"))
		return;
	EQ_U(ten.num_tenants, 2, "two tenants: Compute_A and Compute_B "
	     "(Services shares ports with both; Admin is management)");
	EQ_U(ten.port_class[host0], A, "a tenant host is balanced as its "
	     "tenant (full there, limited in Services)");
	EQ_U(ten.port_tenant[host4], VF_TENANCY_NONE, "a storage server "
	     "belongs to no tenant ...");
	EQ_U(ten.port_class[host4], S, "... and is balanced as Services");
	for (uint32_t s = 0; s < f->num_switches; s++) {
		spines_a += s >= 8 && ten.owner[s] == A;
		spines_b += s >= 8 && ten.owner[s] == B;
		edges_owned += s < 8 && ten.owner[s] != VF_TENANCY_NONE;
	}
	OK(spines_a == 3 && spines_b == 1 && !edges_owned,
	   "weights 3:1 give A three spines and B one; leaves stay shared");
	vf_tenancy_free(&ten);
	OK(!vf_tenancy_init(&ten, f, &g, &t, VF_PROUTE_BALANCE) && !ten.owner,
	   "balance gives no switch to anybody");
	vf_tenancy_free(&ten);
	OK(!vf_tenancy_init(&ten, f, &g, &t, VF_PROUTE_OFF) &&
	   !ten.port_class, "off: nothing");
	vf_tenancy_free(&ten);
	EQ_U(vf_partition_routing_parse("Isolate"), VF_PROUTE_ISOLATE,
	     "mode names are case-insensitive");
	OK(vf_partition_routing_parse("tenants") < 0, "an unknown mode fails");
	vf_swgraph_free(&g);
	vf_traffic_free(&t);
	vf_fabric_destroy(f);
}

int main(void)
{
	tenancy();
	modes("8x8 tree, 4 spines", fat_tree(8, 4, 8, 0));
	modes("3-level tree", golden_fabric("ft3-small.net"));
	modes("director chassis", golden_fabric("dcs1.net"));
	modes("two chassis with edge switches", golden_fabric("dcs2-edges.net"));
	return tap_done();
}
