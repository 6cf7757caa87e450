// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Route stability, for shortestpath and fattree: given the previous
 * routing, removing or adding a host changes only that host's entries,
 * and a failed cable changes only entries whose route crossed it, while a
 * routing from scratch moves many more; a repaired cable rebalances.
 */
#include <stdlib.h>

#include "routing/engine.h"
#include "routing/netfile.h"
#include "routing/routecheck.h"
#include "taptest.h"

static struct vf_fabric *load(const char *name)
{
	struct vf_err err = { "" };
	char path[4096];
	const char *top = getenv("top_srcdir");
	struct vf_fabric *f;

	snprintf(path, sizeof(path), "%s/tests/golden/%s", top ? top : ".",
		 name);
	f = vf_netfile_load(path, 1, &err);
	if (!f)
		printf("# %s\n", err.msg);
	return f;
}

static int route(const struct vf_engine *e, const struct vf_fabric *f,
		 const struct vf_fabric *pf, const struct vf_lfts *pt,
		 struct vf_lfts *t)
{
	struct vf_previous prev = { pf, pt };
	struct vf_route_opts o;

	vf_route_opts_default(&o);
	o.previous = pf ? &prev : NULL;
	if (vf_lfts_init(t, f->num_switches, f->max_lid))
		return -1;
	return e->route(f, &o, t);
}

/* Entries that differ; those of LIDs in [lo, hi] counted apart. */
static unsigned changed(const struct vf_lfts *a, const struct vf_lfts *b,
			unsigned lo, unsigned hi, unsigned *outside)
{
	unsigned n = 0;

	*outside = 0;
	for (uint32_t s = 0; s < a->num_switches; s++)
		for (unsigned lid = 1; lid <= a->max_lid; lid++) {
			if (vf_lft_row(a, s)[lid] == vf_lft_row(b, s)[lid])
				continue;
			n++;
			*outside += lid < lo || lid > hi;
		}
	return n;
}

/* The CA with the given name: its port 1, and its link's health. */
static struct vf_port *host_port(struct vf_fabric *f, const char *name)
{
	return vf_node_port(f, &f->nodes[vf_fabric_find_name(f, name)], 1);
}

static void set_link(struct vf_fabric *f, struct vf_port *p, bool up)
{
	p->healthy = up;
	f->ports[p->remote].healthy = up;
}

/*
 * Two snapshots of one fabric: with the host, and without (its cable
 * down), as OpenSM would see them on two sweeps.
 */
static void host_churn(const struct vf_engine *e, const char *net)
{
	struct vf_fabric *with = load(net);
	struct vf_fabric *without = load(net);
	struct vf_lfts full, less, again, scratch;
	unsigned lo, hi, outside, n;
	struct vf_port *h;
	char msg[128];

	if (!OK(with && without, "load the fabric twice"))
		return;
	h = host_port(with, "cn0008");
	lo = h->base_lid;
	hi = lo + (1u << h->lmc) - 1;
	set_link(without, host_port(without, "cn0008"), false);
	OK(!route(e, with, NULL, NULL, &full), "route the full fabric");
	OK(!route(e, without, with, &full, &less),
	   "route without cn0008, stable");
	n = changed(&full, &less, lo, hi, &outside);
	snprintf(msg, sizeof(msg), "%s, %s: removing a host changes only its "
		 "own %u entries", e->name, net, n);
	OK(n > 0 && outside == 0, msg);
	OK(!route(e, with, without, &less, &again),
	   "route with cn0008 back, stable");
	n = changed(&less, &again, lo, hi, &outside);
	snprintf(msg, sizeof(msg), "%s, %s: adding it back changes only its "
		 "own %u entries", e->name, net, n);
	OK(n > 0 && outside == 0, msg);
	OK(!route(e, without, NULL, NULL, &scratch),
	   "route without it, from scratch");
	n = changed(&full, &scratch, lo, hi, &outside);
	printf("# %s from scratch: %u entries of other hosts move\n",
	       e->name, outside);
	vf_lfts_free(&full);
	vf_lfts_free(&less);
	vf_lfts_free(&again);
	vf_lfts_free(&scratch);
	vf_fabric_destroy(with);
	vf_fabric_destroy(without);
}

/* Did the route from switch s to lid in tables a cross the failed cable? */
static bool crossed(const struct vf_fabric *f, const struct vf_lfts *a,
		    uint32_t s, unsigned lid, const struct vf_port *x,
		    const struct vf_port *y)
{
	for (uint32_t hops = 0; hops <= f->num_switches; hops++) {
		uint32_t node = f->switches[s];
		uint8_t port = vf_lft_row(a, s)[lid];
		const struct vf_port *out, *peer;

		if ((x->node == node && x->num == port) ||
		    (y->node == node && y->num == port))
			return true;
		if (port == 0 || port == VF_NO_PORT)
			return false;
		out = vf_node_port(f, &f->nodes[node], port);
		if (out->remote == VF_NONE)
			return false;
		peer = &f->ports[out->remote];
		if (!vf_is_switch(&f->nodes[peer->node]))
			return false;
		s = f->nodes[peer->node].sw;
	}
	return false;
}

static void link_failure(const struct vf_engine *e)
{
	struct vf_fabric *ok = load("ft2-4x4.net");
	struct vf_fabric *cut = load("ft2-4x4.net");
	struct vf_lfts before, after, again;
	struct vf_route_report r;
	struct vf_port *x, *y;
	unsigned n = 0, stray = 0;
	char msg[160];

	if (!OK(ok && cut, "load ft2-4x4.net twice"))
		return;
	/* leaf001's first uplink (port hosts + 1 = 5) fails */
	x = vf_node_port(ok, &ok->nodes[vf_fabric_find_name(ok, "L001")], 5);
	y = &ok->ports[x->remote];
	set_link(cut, &cut->ports[x - ok->ports], false);
	OK(!route(e, ok, NULL, NULL, &before), "route the healthy fabric");
	OK(!route(e, cut, ok, &before, &after),
	   "route after the cable fails");
	for (uint32_t s = 0; s < ok->num_switches; s++)
		for (unsigned lid = 1; lid <= ok->max_lid; lid++) {
			if (vf_lft_row(&before, s)[lid] ==
			    vf_lft_row(&after, s)[lid])
				continue;
			n++;
			stray += !crossed(ok, &before, s, lid, x, y);
		}
	snprintf(msg, sizeof(msg), "%s: all %u changed entries had a route "
		 "across the failed cable", e->name, n);
	OK(n > 0 && stray == 0, msg);
	OK(!vf_route_check(cut, &after, &r) && !r.ca_unreachable &&
	   !r.credit_loop, "still everything reachable, no credit loop");
	OK(!route(e, ok, cut, &after, &again), "route after the repair");
	snprintf(msg, sizeof(msg), "%s: a repaired cable rebalances: the "
		 "tables equal a fresh routing", e->name);
	OK(!memcmp(again.port, before.port, (size_t)before.num_switches *
		   (before.max_lid + 1)), msg);
	vf_lfts_free(&before);
	vf_lfts_free(&after);
	vf_lfts_free(&again);
	vf_fabric_destroy(ok);
	vf_fabric_destroy(cut);
}

int main(void)
{
	const struct vf_engine *engines[] = {
		vf_engine_find("shortestpath"), vf_engine_find("fattree"),
	};

	for (unsigned i = 0; i < 2; i++) {
		if (!OK(engines[i] != NULL, "engine found"))
			continue;
		host_churn(engines[i], "ft2-oversub3.net");
		/* degraded: fattree's flow model must keep routes too */
		host_churn(engines[i], "ft3-degraded.net");
		link_failure(engines[i]);
	}
	return tap_done();
}
