// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * fattree: up/down routing for fat trees, balanced so that the busiest
 * link carries no more than its share, after the Omni-Path FM's engine of
 * the same name (reference/opa-fm.md sections 3.2 and 8.5).
 *
 * Tiers.  A switch's level is its distance from the nearest switch with
 * end nodes attached (the FM's FIsOnSameTier), or, when core switches are
 * named, measured down from them.  A hop to a switch one level higher is
 * "up", one level lower "down"; links within a level carry nothing.
 *
 * Routes.  Toward each destination edge switch E, a switch that can reach
 * E going only down does so on a shortest down path; any other switch goes
 * up, to a parent with the shortest up-then-down distance.  Every route is
 * up* down*, so the routes to CA LIDs have no credit loop, by
 * construction.  When some switch could reach E but has no such path, the
 * fabric is not a tree: the engine says so and routes with shortestpath.
 *
 * Balance.  Destination ports get a global rank: edge switches in tier
 * order, their ports in port order, RouteLast ports after all others.
 * Switch S sends the base LID of the port of rank r through
 * group[(r + offset(S)) mod n], where group is S's candidate ports toward
 * E in a fixed order (by next switch's SystemImageGUID and GUID, then
 * port) and offset(S) comes from S's position in its tier.  So sibling
 * switches send one destination through different parents, every switch a
 * level up receives the same flow for each destination, and each switch's
 * uplinks carry equal shares.  Where a candidate set is partial, the start
 * goes to the least-loaded candidate (pick_base()).
 *
 * Degraded trees (a tier's switches differ in link counts) lose that
 * alignment, and so do director chassis with edge switches on several
 * chassis: a flow model of all-to-all traffic routes every switch
 * (route_dest_by_flow()), in passes (improve_by_flow()).  Where it is
 * affordable both are computed and the lighter kept (better_of_both());
 * degraded trees too big for it balance by flow at the edge switches only
 * (pick_by_flow()).
 *
 * LMC > 0: the other LIDs of a port take another chassis, then another
 * chip, then another port than the LIDs before (pick_alternate()).
 *
 * Switch LIDs (management traffic) take the first shortest path found by
 * a breadth-first search, as the FM routes them outside its balancing.
 *
 * Partition-aware routing (routing/tenancy.h, docs/partition-routing.md):
 * ranks count within each port's balance class, and the ports behind an
 * edge switch are taken class by class, so the rotation spreads each
 * class over the uplinks on its own; with isolation a tenant's
 * destinations rotate over the candidates leading to its own switches.
 * Both use the rotation; balance keeps the all-to-all tables instead
 * where those are lighter for the classes (routing/classbest.h).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "classbest.h"
#include "engine.h"
#include "log.h"
#include "sticky.h"
#include "swgraph.h"

struct ft_ctx {
	struct vf_sticky sticky;	/* the previous routing, if any */
	const struct vf_fabric *f;
	const struct vf_route_opts *opts;
	struct vf_swgraph g;
	uint32_t nsw;
	uint16_t *level;	/* [nsw] tier, VF_DIST_INF when unplaced */
	uint32_t *pos;		/* [nsw] position within its tier */
	uint32_t *by_level;	/* switches, highest level first */
	uint32_t *edges;	/* switches with end nodes, in tier order */
	uint32_t num_edges;
	uint32_t *rank;		/* [num_ports] destination rank or VF_NONE */
	uint16_t *down;		/* [nsw] down-only distance to the current E */
	uint16_t *ud;		/* [nsw] up*-down* distance to the current E */
	uint16_t *any;		/* [nsw] shortest distance to the current E */
	bool *edge;		/* [nsw] has end nodes */
	uint32_t *queue;	/* [nsw] BFS scratch */
	uint32_t *group;	/* candidate hop indices of one switch */
	uint32_t *base_routed;	/* [num_ports] base LIDs routed out of it */
	uint32_t *alt_routed;	/* [num_ports] other LIDs (LMC > 0) */
	uint64_t *flow;		/* [num_ports] all-to-all routes, edge choices */
	uint32_t *hosts;	/* [nsw] end nodes attached */
	bool degraded;		/* a tier's switches differ in up/down links */
	bool flow_model;	/* this routing uses the flow model */
	bool model_ok;		/* the flow model is affordable here */
	bool tie_by_link;	/* equal paths: the lighter first link (the
				 * first pass), else rotation order */
	/* degraded trees, per destination edge switch (see route_by_flow) */
	uint32_t *flow_order;	/* on-tree switches, farthest from e first */
	uint32_t *cand_start;	/* [nsw + 1] into cand_pool, by switch */
	uint32_t *cand_pool;	/* candidate hop indices */
	uint32_t *choice;	/* [nsw] hop toward the current destination,
				 * VF_NONE while undecided */
	uint32_t *down_port;	/* [nsw] port index straight down to the
				 * current e, VF_NONE (none, or a trunk) */
	uint32_t *up_end;	/* [nsw] hops [start, up_end) go up */
	uint16_t *full_up;	/* [nsw] fastest up hops: a complete group */
	uint16_t *full_down;	/* [nsw] fastest down hops */
	/* the destination ports behind the current edge switch */
	struct ft_dest *dests;
	unsigned num_dests;
	struct vf_tenancy ten;	/* partition-aware routing, or mode OFF */
};

struct ft_dest {
	uint32_t rank;
	uint16_t base_lid;
	uint8_t lids;		/* 2^LMC */
	uint8_t edge_port;	/* its port on the edge switch */
	uint16_t cls;		/* balance class, VF_TENANCY_NONE */
	uint16_t tenant;	/* isolation tenant, VF_TENANCY_NONE */
};

static int route_fattree(const struct vf_fabric *f,
			 const struct vf_route_opts *opts, struct vf_lfts *t);

static bool is_up(const struct ft_ctx *c, uint32_t s, uint32_t n)
{
	return c->level[n] != VF_DIST_INF && c->level[s] != VF_DIST_INF &&
	       c->level[n] == c->level[s] + 1;
}

/*
 * Levels from the end nodes, or down from the core switches when the
 * options name some that are in this fabric.
 */
static void assign_levels(struct ft_ctx *c)
{
	const struct vf_guid_set *core = &c->opts->core_switches;
	bool *src = calloc(c->nsw ? c->nsw : 1, sizeof(*src));
	unsigned cores = 0, top = 0;

	if (!src)
		return;
	for (uint32_t s = 0; s < c->nsw && core->count; s++) {
		src[s] = vf_guid_set_has(core,
					 c->f->nodes[c->f->switches[s]].guid);
		cores += src[s];
	}
	if (core->count && !cores)
		vf_log(VF_LOG_WARN,
		       "fattree: none of the %u core switches is in the fabric; tiers come from the end nodes",
		       core->count);
	if (!cores)
		for (uint32_t s = 0; s < c->nsw; s++)
			src[s] = vf_has_end_node(c->f, s);
	vf_swgraph_bfs_from(&c->g, src, c->level, c->queue);
	if (cores) {
		for (uint32_t s = 0; s < c->nsw; s++)
			if (c->level[s] != VF_DIST_INF && c->level[s] > top)
				top = c->level[s];
		for (uint32_t s = 0; s < c->nsw; s++)
			if (c->level[s] != VF_DIST_INF)
				c->level[s] = top - c->level[s];
	}
	free(src);
}

/*
 * NodeDescs in natural order: runs of digits compare as numbers, so
 * "leaf2" < "leaf10".
 */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			unsigned long x = strtoul(a, (char **)&a, 10);
			unsigned long y = strtoul(b, (char **)&b, 10);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

/* Highest level first; within a level by NodeDesc, then GUID. */
static int cmp_tier(const void *pa, const void *pb, void *ctx)
{
	const struct ft_ctx *c = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct vf_node *na = &c->f->nodes[c->f->switches[a]];
	const struct vf_node *nb = &c->f->nodes[c->f->switches[b]];
	int d;

	if (c->level[a] != c->level[b])
		return c->level[a] > c->level[b] ? -1 : 1;
	d = natural_cmp(vf_node_desc(c->f, na), vf_node_desc(c->f, nb));
	if (d)
		return d;
	return na->guid < nb->guid ? -1 : na->guid > nb->guid;
}

/* Edge switches: lowest tier first, each tier in position order. */
static int cmp_edge(const void *pa, const void *pb, void *ctx)
{
	const struct ft_ctx *c = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (c->level[a] != c->level[b])
		return c->level[a] < c->level[b] ? -1 : 1;
	return c->pos[a] < c->pos[b] ? -1 : c->pos[a] > c->pos[b];
}

static void order_tiers(struct ft_ctx *c)
{
	uint32_t k = 0;

	for (uint32_t s = 0; s < c->nsw; s++)
		c->by_level[s] = s;
	qsort_r(c->by_level, c->nsw, sizeof(*c->by_level), cmp_tier, c);
	for (uint32_t i = 0; i < c->nsw; i++) {
		if (i && c->level[c->by_level[i]] !=
			 c->level[c->by_level[i - 1]])
			k = 0;
		c->pos[c->by_level[i]] = k++;
	}
	for (uint32_t s = 0; s < c->nsw; s++)
		if (c->edge[s])
			c->edges[c->num_edges++] = s;
	qsort_r(c->edges, c->num_edges, sizeof(*c->edges), cmp_edge, c);
}

/* The per-class counter of port p: its class, or the last one for none. */
static unsigned class_slot(const struct ft_ctx *c, const struct vf_port *p)
{
	uint16_t cls = c->ten.port_class[p - c->f->ports];

	return cls == VF_TENANCY_NONE ? c->ten.num_classes : cls;
}

static bool route_last(const struct ft_ctx *c, const struct vf_port *p)
{
	const struct vf_guid_set *set = &c->opts->route_last;

	return set->count && (vf_guid_set_has(set, c->f->nodes[p->node].guid) ||
			      vf_guid_set_has(set, p->guid));
}

/*
 * Destination ranks: edge switches in order, ports in order; RouteLast
 * last.  Partition-aware, a rank counts within the port's class.
 */
static void rank_ports(struct ft_ctx *c)
{
	const struct vf_fabric *f = c->f;
	uint32_t r = 0, *per_class = NULL;

	if (c->ten.mode != VF_PROUTE_OFF)
		per_class = calloc(c->ten.num_classes + 1, sizeof(*per_class));

	for (uint32_t i = 0; i < f->num_ports; i++)
		c->rank[i] = VF_NONE;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t e = 0; e < c->num_edges; e++) {
			const struct vf_node *sw =
				&f->nodes[f->switches[c->edges[e]]];

			for (unsigned i = 1; i <= sw->num_ports; i++) {
				const struct vf_port *peer = vf_usable_peer(
					f, vf_node_port(f, sw, i));

				if (!peer || vf_is_switch(&f->nodes[peer->node]) ||
				    !peer->base_lid ||
				    route_last(c, peer) != (pass == 1))
					continue;
				c->rank[peer - f->ports] = per_class ?
					per_class[class_slot(c, peer)]++ : r++;
			}
		}
	}
	free(per_class);
}

/* down[] and ud[] toward edge switch e. */
static void distances_to(struct ft_ctx *c, uint32_t e)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < c->nsw; s++)
		c->down[s] = VF_DIST_INF;
	c->down[e] = 0;
	c->queue[tail++] = e;
	/* climb from e: a parent reaches e going down */
	while (head < tail) {
		uint32_t s = c->queue[head++];

		for (uint32_t h = c->g.hop_start[s]; h < c->g.hop_start[s + 1];
		     h++) {
			uint32_t n = c->g.hops[h].next_sw;

			if (is_up(c, s, n) && c->down[n] == VF_DIST_INF) {
				c->down[n] = c->down[s] + 1;
				c->queue[tail++] = n;
			}
		}
	}
	/* parents first: highest level down */
	for (uint32_t i = 0; i < c->nsw; i++) {
		uint32_t s = c->by_level[i];

		c->ud[s] = c->down[s];
		if (c->ud[s] != VF_DIST_INF)
			continue;
		for (uint32_t h = c->g.hop_start[s]; h < c->g.hop_start[s + 1];
		     h++) {
			uint32_t n = c->g.hops[h].next_sw;

			if (is_up(c, s, n) && c->ud[n] != VF_DIST_INF &&
			    c->ud[n] + 1 < c->ud[s])
				c->ud[s] = c->ud[n] + 1;
		}
	}
}

/*
 * The candidate hops of s toward the current E, fastest only, in hop
 * order (hops are pre-sorted by next switch); returns their number and
 * sets *up.
 */
static unsigned candidates(struct ft_ctx *c, uint32_t s, bool *up)
{
	const struct vf_hop *hops = c->g.hops;
	unsigned n = 0, top = 0;

	uint32_t from, to;

	*up = c->down[s] == VF_DIST_INF;
	from = *up ? c->g.hop_start[s] : c->up_end[s];
	to = *up ? c->up_end[s] : c->g.hop_start[s + 1];
	for (uint32_t h = from; h < to; h++) {
		uint32_t x = hops[h].next_sw;
		bool ok = *up ? is_up(c, s, x) && c->ud[x] + 1 == c->ud[s]
			      : is_up(c, x, s) && c->down[x] + 1 == c->down[s];

		if (!ok || hops[h].rate < top)
			continue;
		if (hops[h].rate > top)
			n = 0;
		top = hops[h].rate;
		c->group[n++] = h;
	}
	return n;
}

/* How many of s's hops in [from, to) are of the fastest rate. */
static uint16_t fastest(const struct ft_ctx *c, uint32_t from, uint32_t to)
{
	unsigned n = 0, top = 0;

	for (uint32_t h = from; h < to; h++) {
		if (c->g.hops[h].rate < top)
			continue;
		if (c->g.hops[h].rate > top)
			n = 0;
		top = c->g.hops[h].rate;
		n++;
	}
	return n;
}

/* Hops of each switch by next switch (SystemImageGUID, GUID), then port. */
static int cmp_hop(const void *pa, const void *pb, void *ctx)
{
	const struct vf_fabric *f = ctx;
	const struct vf_hop *a = pa, *b = pb;
	const struct vf_node *na = &f->nodes[f->switches[a->next_sw]];
	const struct vf_node *nb = &f->nodes[f->switches[b->next_sw]];

	if (na->sysimg_guid != nb->sysimg_guid)
		return na->sysimg_guid < nb->sysimg_guid ? -1 : 1;
	if (na->guid != nb->guid)
		return na->guid < nb->guid ? -1 : 1;
	return a->num - b->num;
}

/*
 * Put each switch's up hops first (then down, then same-level ones), each
 * part in next-switch order, and count the complete groups.
 */
static int cmp_dir(const void *pa, const void *pb, void *ctx)
{
	const struct ft_ctx *c = ctx;
	const struct vf_hop *a = pa, *b = pb;
	uint32_t s = c->f->nodes[c->f->ports[a->port].node].sw;
	int da = is_up(c, s, a->next_sw) ? 0 : is_up(c, a->next_sw, s) ? 1 : 2;
	int db = is_up(c, s, b->next_sw) ? 0 : is_up(c, b->next_sw, s) ? 1 : 2;

	if (da != db)
		return da - db;
	return cmp_hop(pa, pb, (void *)c->f);
}

/*
 * A full tree gives all switches of a tier the same number of uplinks and
 * of downlinks; a missing cable does not.  There the rotation's alignment
 * is lost anyway, and edge switches balance by flow instead.
 */
static bool is_degraded(const struct ft_ctx *c)
{
	for (uint32_t i = 1; i < c->nsw; i++) {
		uint32_t a = c->by_level[i - 1], b = c->by_level[i];

		if (c->level[a] != c->level[b] || c->level[a] == VF_DIST_INF)
			continue;
		if (c->full_up[a] != c->full_up[b] ||
		    c->full_down[a] != c->full_down[b])
			return true;
	}
	return false;
}

/*
 * The flow model's work is about destinations x hops between switches per
 * pass (the paths behind every candidate are a few hops); 150 million of
 * those take about a second on a 2 GHz core.  Passes beyond the first run
 * only within that budget; a tree too big for one pass is balanced at the
 * edges only (pick_by_flow()).
 */
#define FT_FLOW_WORK_MAX 150000000ull
#define FT_FLOW_PASSES 8

static uint64_t flow_pass_work(const struct ft_ctx *c)
{
	uint64_t dests = 0;

	for (uint32_t i = 0; i < c->f->num_ports; i++)
		dests += c->rank[i] != VF_NONE;
	return dests * (c->g.hop_start[c->nsw] ? c->g.hop_start[c->nsw] : 1);
}

static bool flow_model_affordable(const struct ft_ctx *c)
{
	if (flow_pass_work(c) <= FT_FLOW_WORK_MAX)
		return true;
	vf_log(VF_LOG_INFO,
	       "fattree: %u switches and %llu destination x link pairs: too big for the flow model, rotation only (at the edges by flow where degraded)",
	       c->nsw, (unsigned long long)flow_pass_work(c));
	return false;
}

/* The highest tier a switch is on (0 for a single tier). */
static unsigned top_level(const struct ft_ctx *c)
{
	unsigned top = 0;

	for (uint32_t s = 0; s < c->nsw; s++)
		if (c->level[s] != VF_DIST_INF && c->level[s] > top)
			top = c->level[s];
	return top;
}

static void split_directions(struct ft_ctx *c)
{
	for (uint32_t s = 0; s < c->nsw; s++) {
		uint32_t h = c->g.hop_start[s], end = c->g.hop_start[s + 1];
		uint32_t down_end;

		qsort_r(c->g.hops + h, end - h, sizeof(*c->g.hops), cmp_dir, c);
		while (h < end && is_up(c, s, c->g.hops[h].next_sw))
			h++;
		c->up_end[s] = h;
		down_end = h;
		while (down_end < end &&
		       is_up(c, c->g.hops[down_end].next_sw, s))
			down_end++;
		c->full_up[s] = fastest(c, c->g.hop_start[s], h);
		c->full_down[s] = fastest(c, h, down_end);
	}
}

/* Links from s to the same next switch as the first candidate. */
static unsigned trunk_width(const struct ft_ctx *c, unsigned n)
{
	unsigned k = 1;

	while (k < n && c->g.hops[c->group[k]].next_sw ==
			c->g.hops[c->group[0]].next_sw)
		k++;
	return k;
}

/*
 * The candidate for the base LID of the port of rank r: the one with the
 * fewest base LIDs so far, ties in the order the rank and the switch's
 * offset prefer.  On a full tree the counts are level at every preferred
 * choice, so this is the plain rotation (r + offset) mod n; on a degraded
 * one, where the candidate sets differ between destinations, the counts
 * keep the uplinks even.
 */
static unsigned pick_base(const struct ft_ctx *c, unsigned n, uint32_t r,
			  unsigned offset)
{
	unsigned pref = (r + offset) % n, best = pref;

	for (unsigned j = 1; j < n; j++) {
		unsigned idx = (pref + j) % n;

		if (c->base_routed[c->g.hops[c->group[idx]].port] <
		    c->base_routed[c->g.hops[c->group[best]].port])
			best = idx;
	}
	return best;
}

/*
 * How alike two hops are: 3 the same port, 2 the same next chip, 1 the
 * same chassis (SystemImageGUID), 0 nothing in common.
 */
static unsigned alike(const struct ft_ctx *c, uint32_t x, uint32_t y)
{
	const struct vf_fabric *f = c->f;
	const struct vf_hop *a = &c->g.hops[x], *b = &c->g.hops[y];

	if (x == y)
		return 3;
	if (a->next_sw == b->next_sw)
		return 2;
	return f->nodes[f->switches[a->next_sw]].sysimg_guid ==
	       f->nodes[f->switches[b->next_sw]].sysimg_guid;
}

/*
 * The group index for LID l > 0 of a port whose earlier LIDs took
 * chosen[0..l-1]: from LID l - 1's choice shifted by a trunk's width, the
 * first in rotation in another chassis than the earlier LIDs if there is
 * one, else on another chip, else on another port.  The base LIDs rotate,
 * so each offset rotates as they do and is as balanced; choosing by the
 * alternates' counts of all offsets together loaded some offsets up to 7
 * times the bound on full trees (docs/routing.md).  Kept out of line:
 * inlined, it slowed route_switch's hot loop by half even at LMC 0 (1.0 s
 * against 1.5 s for 27,648 hosts).
 */
static __attribute__((noinline)) unsigned
pick_alternate(const struct ft_ctx *c, unsigned n, const unsigned *chosen,
	       unsigned l, uint16_t tenant)
{
	unsigned start = (chosen[l - 1] + trunk_width(c, n)) % n;
	unsigned best = chosen[0], best_alike = 4;

	for (unsigned j = 0; j < n; j++) {
		unsigned idx = (start + j) % n, worst = 0;

		/* isolation: the base's choice was the tenant's already */
		if (c->ten.owner && !vf_tenancy_allows(&c->ten, tenant,
				c->g.hops[c->group[idx]].next_sw) &&
		    vf_tenancy_allows(&c->ten, tenant,
				c->g.hops[c->group[chosen[0]]].next_sw))
			continue;

		for (unsigned k = 0; k < l; k++) {
			unsigned a = alike(c, c->group[idx],
					   c->group[chosen[k]]);

			if (a > worst)
				worst = a;
		}
		if (worst < best_alike) {
			best = idx;
			best_alike = worst;
		}
	}
	return best;
}

/*
 * The group index of the port the previous routing gave lid at s, if that
 * port is still a candidate (keeping it is then as correct as any new
 * choice), else -1.
 */
static int kept_index(const struct ft_ctx *c, uint32_t s, unsigned n,
		      unsigned lid)
{
	uint8_t port = vf_sticky_port(&c->sticky, s, lid);

	for (unsigned i = 0; i < n && port != VF_NO_PORT; i++)
		if (c->g.hops[c->group[i]].num == port)
			return i;
	return -1;
}

/*
 * For each switch right above e, its port straight down to e (VF_NONE for
 * a trunk: that is the switch's own choice); set, and later cleared, by
 * walking e's uplinks only.
 */
static void mark_down_ports(struct ft_ctx *c, uint32_t e, bool set)
{
	const struct vf_fabric *f = c->f;

	for (uint32_t h = c->g.hop_start[e]; h < c->up_end[e]; h++) {
		uint32_t x = c->g.hops[h].next_sw;
		uint32_t back = f->ports[c->g.hops[h].port].remote;

		if (!set)
			c->down_port[x] = VF_NONE;
		else if (c->down_port[x] == VF_NONE)
			c->down_port[x] = back;
		else if (c->down_port[x] != back)
			c->down_port[x] = UINT32_MAX - 1;	/* a trunk */
	}
	for (uint32_t h = c->g.hop_start[e]; h < c->up_end[e] && set; h++) {
		uint32_t x = c->g.hops[h].next_sw;

		if (c->down_port[x] == UINT32_MAX - 1)
			c->down_port[x] = VF_NONE;
	}
}

/*
 * The all-to-all routes a choice at edge switch s adds to the links it
 * decides: its uplink, and the next switch's link down to e when that is
 * the only way.
 */
static uint64_t path_flow(const struct ft_ctx *c, const struct vf_hop *h)
{
	uint32_t d = c->down_port[h->next_sw];
	uint64_t up = c->flow[h->port];

	return d != VF_NONE && c->flow[d] > up ? c->flow[d] : up;
}

static void add_flow(struct ft_ctx *c, uint32_t s, const struct vf_hop *h)
{
	uint32_t d = c->down_port[h->next_sw];

	c->flow[h->port] += c->hosts[s];
	if (d != VF_NONE)
		c->flow[d] += c->hosts[s];
}

/*
 * An edge switch in a degraded tree too big for the flow model: the
 * candidate whose path is least loaded by all-to-all routes so far, ties
 * in the rotation's order.  Counting routes on the links themselves, not
 * LIDs per port, is what keeps the remaining downlinks into a degraded
 * leaf even.
 */
static unsigned pick_by_flow(const struct ft_ctx *c, unsigned n, uint32_t r,
			     unsigned offset)
{
	unsigned pref = (r + offset) % n, best = pref;
	uint64_t best_cost = path_flow(c, &c->g.hops[c->group[pref]]);

	for (unsigned j = 1; j < n; j++) {
		unsigned idx = (pref + j) % n;
		uint64_t cost = path_flow(c, &c->g.hops[c->group[idx]]);

		if (cost < best_cost) {
			best = idx;
			best_cost = cost;
		}
	}
	return best;
}

/*
 * Write the LIDs after the base LID (LMC > 0) of a destination at switch
 * s: by pick_alternate(), or as the previous routing had them.  Out of
 * line, like pick_alternate(), to keep the LMC 0 loop small.
 */
static __attribute__((noinline)) void
write_alternates(struct ft_ctx *c, uint32_t s, unsigned n,
		 const struct ft_dest *dst, unsigned base, uint8_t *row)
{
	unsigned chosen[128];

	chosen[0] = base;
	for (unsigned l = 1; l < dst->lids; l++) {
		int kept = c->sticky.row ?
			   kept_index(c, s, n, dst->base_lid + l) : -1;

		if (kept >= 0 && c->ten.owner &&
		    !vf_tenancy_allows(&c->ten, dst->tenant,
				       c->g.hops[c->group[kept]].next_sw))
			kept = -1;
		chosen[l] = kept >= 0 ? (unsigned)kept :
			    pick_alternate(c, n, chosen, l, dst->tenant);
		row[dst->base_lid + l] = c->g.hops[c->group[chosen[l]]].num;
	}
}

/*
 * Isolation: among s's n candidates, the ones leading to the destination's
 * tenant's switches, in rotation by its class rank; when there are none,
 * or only those, the rotation's own pick stays.  A kept (previous) choice
 * that leaves the tenant's switches is dropped.
 */
static unsigned own_candidate(const struct ft_ctx *c, unsigned n,
			      const struct ft_dest *dst, unsigned offset,
			      unsigned base, int *kept)
{
	unsigned sub[VF_MAX_PORTS], m = 0;

	for (unsigned j = 0; j < n; j++)
		if (vf_tenancy_allows(&c->ten, dst->tenant,
				      c->g.hops[c->group[j]].next_sw))
			sub[m++] = j;
	if (*kept >= 0 && m && !vf_tenancy_allows(&c->ten, dst->tenant,
			c->g.hops[c->group[*kept]].next_sw))
		*kept = -1;
	if (!m || m == n)
		return base;
	return sub[(dst->rank + offset) % m];
}

/* Route, at switch s, every destination port behind edge switch e. */
static void route_switch(struct ft_ctx *c, struct vf_lfts *t, uint32_t s,
			 uint32_t e)
{
	uint8_t *row = vf_lft_row(t, s);
	unsigned n = 0, offset = 0, base = 0, full = 0;
	bool up = false, sticky = c->sticky.row != NULL;

	if (s == e) {
		for (unsigned d = 0; d < c->num_dests; d++)
			for (unsigned l = 0; l < c->dests[d].lids; l++)
				row[c->dests[d].base_lid + l] =
					c->dests[d].edge_port;
		return;
	}
	n = candidates(c, s, &up);
	if (!n)
		return;
	full = up ? c->full_up[s] : c->full_down[s];
	offset = up ? c->pos[s] * trunk_width(c, n) : c->pos[s];
	for (unsigned d = 0; d < c->num_dests; d++) {
		const struct ft_dest *dst = &c->dests[d];
		int kept = sticky ? kept_index(c, s, n, dst->base_lid) : -1;

		/* a class's first destination here starts its own rotation */
		if (c->edge[s] && c->degraded)
			base = pick_by_flow(c, n, dst->rank, offset);
		else if (!d || (dst->cls != c->dests[d - 1].cls &&
				!c->opts->class_variant))
			base = n == full ? (dst->rank + offset) % n :
					   pick_base(c, n, dst->rank, offset);
		else
			base = (base + 1) % n;
		if (c->ten.owner && dst->tenant != VF_TENANCY_NONE)
			base = own_candidate(c, n, dst, offset, base, &kept);
		if (kept >= 0)
			base = kept;
		/* flow is only needed, and only paid for, on degraded trees */
		if (c->edge[s] && c->degraded)
			add_flow(c, s, &c->g.hops[c->group[base]]);
		c->base_routed[c->g.hops[c->group[base]].port]++;
		row[dst->base_lid] = c->g.hops[c->group[base]].num;
		if (dst->lids > 1)
			write_alternates(c, s, n, dst, base, row);
	}
}

/* By class (none last), then edge port. */
static int cmp_dest(const void *pa, const void *pb)
{
	const struct ft_dest *a = pa, *b = pb;

	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	return a->edge_port < b->edge_port ? -1 : a->edge_port > b->edge_port;
}

/* The ranked destination ports behind edge switch e, in port order (by
 * class first when partition-aware). */
static void collect_dests(struct ft_ctx *c, struct vf_lfts *t, uint32_t e)
{
	const struct vf_fabric *f = c->f;
	const struct vf_node *esw = &f->nodes[f->switches[e]];

	c->num_dests = 0;
	for (unsigned i = 1; i <= esw->num_ports; i++) {
		const struct vf_port *peer =
			vf_usable_peer(f, vf_node_port(f, esw, i));
		struct ft_dest *d = &c->dests[c->num_dests];
		unsigned lids;

		if (!peer || c->rank[peer - f->ports] == VF_NONE)
			continue;
		lids = 1u << peer->lmc;
		if (peer->base_lid + lids - 1 > t->max_lid)
			continue;
		d->rank = c->rank[peer - f->ports];
		d->base_lid = peer->base_lid;
		d->lids = lids > 128 ? 128 : lids;
		d->edge_port = i;
		d->cls = d->tenant = VF_TENANCY_NONE;
		if (c->ten.mode != VF_PROUTE_OFF) {
			d->cls = c->ten.port_class[peer - f->ports];
			d->tenant = c->ten.port_tenant[peer - f->ports];
		}
		c->num_dests++;
	}
	/* class by class, so the rotation spreads each class on its own */
	if (c->ten.mode != VF_PROUTE_OFF)
		qsort(c->dests, c->num_dests, sizeof(*c->dests), cmp_dest);
}

/*
 * A switch without an up/down path to e is on no CA's path to e (CA
 * traffic starts at edge switches, which all have one): only packets it
 * originates itself use its entry, so a shortest path of any shape does.
 */
static void route_off_tree(struct ft_ctx *c, struct vf_lfts *t, uint32_t s,
			   uint32_t e)
{
	uint8_t *row = vf_lft_row(t, s);
	uint8_t out = VF_NO_PORT;

	for (uint32_t h = c->g.hop_start[s]; h < c->g.hop_start[s + 1]; h++)
		if (c->any[c->g.hops[h].next_sw] + 1 == c->any[s]) {
			out = c->g.hops[h].num;
			break;
		}
	for (unsigned d = 0; d < c->num_dests; d++)
		for (unsigned l = 0; l < c->dests[d].lids; l++)
			row[c->dests[d].base_lid + l] = out;
}

static const char *sw_desc(const struct ft_ctx *c, uint32_t s)
{
	return vf_node_desc(c->f, &c->f->nodes[c->f->switches[s]]);
}

/*
 * All CA LIDs behind edge switch e.  False when the fabric is not a tree:
 * an edge switch connected to e has no up/down path to it.
 */
/*
 * Degraded trees route by an all-to-all flow model (measured against the
 * tier-cut bound, on 3-level trees missing 5% of their cables: within 2%,
 * where balancing at the edges alone left 1.7-2x; on 2-level ones it
 * reaches the bound where the edge rule stays 2-5% above).  Here: the
 * on-tree switches toward e, farthest first (every hop brings a route one
 * closer, so a switch comes after all that can send to it), each with its
 * candidates stored once.
 */
static void prepare_flow(struct ft_ctx *c)
{
	uint32_t k = 0, at = 0, top = 0;
	bool up;

	for (uint32_t s = 0; s < c->nsw; s++)
		if (c->ud[s] != VF_DIST_INF && c->ud[s] > top)
			top = c->ud[s];
	for (uint32_t d = top; d > 0; d--)
		for (uint32_t i = 0; i < c->nsw; i++)
			if (c->ud[c->by_level[i]] == d)
				c->flow_order[k++] = c->by_level[i];
	c->flow_order[k] = VF_NONE;
	for (uint32_t s = 0; s < c->nsw; s++) {
		unsigned n = c->ud[s] && c->ud[s] != VF_DIST_INF ?
			     candidates(c, s, &up) : 0;

		c->cand_start[s] = at;
		memcpy(c->cand_pool + at, c->group, n * sizeof(*c->group));
		at += n;
	}
	c->cand_start[c->nsw] = at;
}

/*
 * The busiest link, with `add` more routes on each, on the way from x to
 * the current e as already decided for the current destination (paths are
 * a few hops: this is cheap).
 */
static uint64_t path_max(const struct ft_ctx *c, uint32_t x, uint64_t add)
{
	uint64_t most = 0;

	for (; c->choice[x] != VF_NONE; x = c->g.hops[c->choice[x]].next_sw)
		if (c->flow[c->g.hops[c->choice[x]].port] + add > most)
			most = c->flow[c->g.hops[c->choice[x]].port] + add;
	return most;
}

/* Add (or take off) one source switch's routes along its decided path. */
static void push_path(struct ft_ctx *c, uint32_t x, int64_t routes)
{
	for (; c->choice[x] != VF_NONE; x = c->g.hops[c->choice[x]].next_sw)
		c->flow[c->g.hops[c->choice[x]].port] += (uint64_t)routes;
}

/*
 * Put one destination's all-to-all routes on the links (sign 1), or take
 * them off (-1), following the entries the tables hold: to route it again
 * against everything else, or to weigh a whole routing.
 */
static void account_dest(struct ft_ctx *c, struct vf_lfts *t,
			 const struct ft_dest *dst, int sign)
{
	for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++) {
		uint32_t s = c->flow_order[k];
		uint8_t out = vf_lft_row(t, s)[dst->base_lid];

		for (uint32_t i = c->cand_start[s]; i < c->cand_start[s + 1];
		     i++)
			if (c->g.hops[c->cand_pool[i]].num == out)
				c->choice[s] = c->cand_pool[i];
	}
	for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++)
		if (c->hosts[c->flow_order[k]])
			push_path(c, c->flow_order[k],
				  sign * (int64_t)c->hosts[c->flow_order[k]]);
	for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++)
		c->choice[c->flow_order[k]] = VF_NONE;
}

/*
 * One destination in a degraded tree.  Switches decide nearest to e first,
 * so each sees the whole path behind every candidate; a switch with end
 * nodes then puts their routes on its path at once, and the next ones see
 * them (deciding farthest first, as the flow arrives, made every edge
 * switch of a pod pick the same path, unaware of the others).  The choice
 * is the candidate whose path's busiest link is least loaded; ties go, in
 * the first pass, to the less loaded first link (3 chassis with 18 edge
 * switches: 204, the bound, where rotation order left 210), and in the
 * passes after it to the rotation's order (which they settle better: a
 * degraded 3-level tree, 440 against 448).
 */
static void route_dest_by_flow(struct ft_ctx *c, struct vf_lfts *t,
			       const struct ft_dest *dst)
{
	bool sticky = c->sticky.row != NULL;
	uint32_t k = 0;

	while (c->flow_order[k] != VF_NONE)
		k++;
	while (k--) {
		uint32_t s = c->flow_order[k], i0 = c->cand_start[s];
		unsigned n = c->cand_start[s + 1] - i0, best;
		uint64_t own = c->hosts[s], best_cost = UINT64_MAX;
		uint64_t best_link = UINT64_MAX;
		int kept;

		if (!n)
			continue;
		memcpy(c->group, c->cand_pool + i0, n * sizeof(*c->group));
		best = (dst->rank + c->pos[s]) % n;
		for (unsigned j = 0; j < n; j++) {
			unsigned idx = (dst->rank + c->pos[s] + j) % n;
			const struct vf_hop *h = &c->g.hops[c->group[idx]];
			uint64_t cost = path_max(c, h->next_sw, own);

			if (c->flow[h->port] + own > cost)
				cost = c->flow[h->port] + own;
			if (cost < best_cost ||
			    (c->tie_by_link && cost == best_cost &&
			     c->flow[h->port] < best_link)) {
				best = idx;
				best_cost = cost;
				best_link = c->flow[h->port];
			}
		}
		kept = sticky ? kept_index(c, s, n, dst->base_lid) : -1;
		if (kept >= 0)
			best = kept;
		c->choice[s] = c->group[best];
		vf_lft_row(t, s)[dst->base_lid] = c->g.hops[c->choice[s]].num;
		if (own)
			push_path(c, s, (int64_t)own);
	}
	for (k = 0; c->flow_order[k] != VF_NONE; k++)
		c->choice[c->flow_order[k]] = VF_NONE;
}

static bool route_edge(struct ft_ctx *c, struct vf_lfts *t, uint32_t e)
{
	bool any_known = false;

	collect_dests(c, t, e);
	distances_to(c, e);
	if (c->degraded)
		mark_down_ports(c, e, true);
	/*
	 * In tier order, not model order: flow-based choices depend on the
	 * switches before, and the model's order is how OpenSM or a file
	 * happened to list them.
	 */
	for (uint32_t i = 0; i < c->nsw; i++) {
		uint32_t s = c->by_level[i];

		if (c->ud[s] != VF_DIST_INF) {
			/* the flow model routes all but e itself, below */
			if (!c->flow_model || s == e)
				route_switch(c, t, s, e);
			continue;
		}
		/* full trees never get here: search only when needed */
		if (!any_known) {
			vf_swgraph_bfs(&c->g, e, c->any, c->queue);
			any_known = true;
		}
		if (c->any[s] == VF_DIST_INF)
			continue;
		if (c->edge[s]) {
			vf_log(VF_LOG_WARN,
			       "fattree: not a fat tree: edge switch %s (0x%016llx) has no up/down path to edge switch %s (0x%016llx)",
			       sw_desc(c, s),
			       (unsigned long long)c->f->nodes[c->f->switches[s]].guid,
			       sw_desc(c, e),
			       (unsigned long long)c->f->nodes[c->f->switches[e]].guid);
			return false;
		}
		route_off_tree(c, t, s, e);
	}
	if (c->flow_model) {
		prepare_flow(c);
		for (unsigned d = 0; d < c->num_dests; d++)
			route_dest_by_flow(c, t, &c->dests[d]);
	}
	if (c->degraded)
		mark_down_ports(c, e, false);
	return true;
}

/*
 * The leaf-uplink bound: every edge switch's hosts send to all other hosts
 * over its links up, so one of them carries at least the share (rounded
 * up).  A routing that reaches it cannot be bettered.
 */
static uint64_t edge_bound(const struct ft_ctx *c)
{
	uint64_t total = 0, most = 0;

	for (uint32_t s = 0; s < c->nsw; s++)
		total += c->hosts[s];
	for (uint32_t s = 0; s < c->nsw; s++) {
		uint64_t up = c->up_end[s] - c->g.hop_start[s];
		uint64_t share;

		if (!c->hosts[s] || !up)
			continue;
		share = (c->hosts[s] * (total - c->hosts[s]) + up - 1) / up;
		if (share > most)
			most = share;
	}
	return most;
}

/*
 * How loaded the links between switches are, in all-to-all routes: the
 * busiest link first, then the sum of squares (lower when the rest is
 * more even), as one comparable pair.
 */
struct ft_load {
	uint64_t max, squares;
};

static struct ft_load link_load(const struct ft_ctx *c)
{
	struct ft_load l = { 0, 0 };

	for (uint32_t i = 0; i < c->f->num_ports; i++) {
		if (c->flow[i] > l.max)
			l.max = c->flow[i];
		l.squares += c->flow[i] * c->flow[i];
	}
	return l;
}

static bool lighter(struct ft_load a, struct ft_load b)
{
	return a.max < b.max || (a.max == b.max && a.squares < b.squares);
}

/* The destinations behind edge switch e and the flow model toward it. */
static void prepare_edge(struct ft_ctx *c, struct vf_lfts *t, uint32_t e)
{
	collect_dests(c, t, e);
	distances_to(c, e);
	prepare_flow(c);
}

/*
 * Another pass of the flow model: each destination in turn is taken off
 * and routed again against all the others (the first pass routed the
 * early ones against an empty fabric).
 */
static void reroute_by_flow(struct ft_ctx *c, struct vf_lfts *t)
{
	for (uint32_t i = 0; i < c->num_edges; i++) {
		prepare_edge(c, t, c->edges[i]);
		for (unsigned d = 0; d < c->num_dests; d++) {
			account_dest(c, t, &c->dests[d], -1);
			route_dest_by_flow(c, t, &c->dests[d]);
		}
	}
}

/*
 * The flow model's base LIDs are chosen; now the others (LMC > 0), at
 * every switch on the way, apart from the base LID's choice.
 */
static void alternates_by_flow(struct ft_ctx *c, struct vf_lfts *t)
{
	for (uint32_t i = 0; i < c->num_edges; i++) {
		prepare_edge(c, t, c->edges[i]);
		for (unsigned d = 0; d < c->num_dests; d++) {
			const struct ft_dest *dst = &c->dests[d];

			for (uint32_t k = 0; c->flow_order[k] != VF_NONE &&
			     dst->lids > 1; k++) {
				uint32_t s = c->flow_order[k];
				uint32_t i0 = c->cand_start[s];
				unsigned n = c->cand_start[s + 1] - i0, base = 0;
				uint8_t *row = vf_lft_row(t, s);

				memcpy(c->group, c->cand_pool + i0,
				       n * sizeof(*c->group));
				while (base < n && c->g.hops[c->group[base]].num !=
						   row[dst->base_lid])
					base++;
				if (base < n)
					write_alternates(c, s, n, dst, base, row);
			}
		}
	}
}

/*
 * Passes of the flow model while they bring the busiest link down (the
 * first routes each destination knowing only those before it; measured on
 * a 3-level tree missing three cables: 448 after one pass, 440 after
 * three, against a bound of 439), keeping the best tables seen.  At most
 * FT_FLOW_PASSES, within the work budget given; two passes without a
 * lower busiest link, or reaching the leaf bound, end it.
 */
static int improve_by_flow(struct ft_ctx *c, struct vf_lfts *t,
			   uint64_t budget)
{
	size_t size = (size_t)t->num_switches * ((size_t)t->max_lid + 1);
	struct ft_load best = link_load(c);
	uint8_t *kept = malloc(size ? size : 1);
	uint64_t work = flow_pass_work(c);
	unsigned stale = 0;

	if (!kept)
		return -ENOMEM;
	memcpy(kept, t->port, size);
	c->tie_by_link = false;
	for (unsigned pass = 2; pass <= FT_FLOW_PASSES && stale < 2 &&
	     pass * work <= budget && best.max > edge_bound(c); pass++) {
		struct ft_load now;

		reroute_by_flow(c, t);
		now = link_load(c);
		stale = now.max < best.max ? 0 : stale + 1;
		if (lighter(now, best)) {
			best = now;
			memcpy(kept, t->port, size);
		}
	}
	memcpy(t->port, kept, size);
	free(kept);
	alternates_by_flow(c, t);
	return 0;
}

/*
 * Switch LIDs: a breadth-first search from the destination switch; each
 * switch forwards toward the neighbour that discovered it.
 */
static void route_switch_lids(struct ft_ctx *c, struct vf_lfts *t)
{
	const struct vf_fabric *f = c->f;

	for (uint32_t x = 0; x < c->nsw; x++) {
		const struct vf_port *p0 =
			vf_node_port(f, &f->nodes[f->switches[x]], 0);
		uint32_t head = 0, tail = 0;

		if (!p0->base_lid)
			continue;
		for (uint32_t s = 0; s < c->nsw; s++)
			c->down[s] = VF_DIST_INF;
		c->down[x] = 0;
		c->queue[tail++] = x;
		while (head < tail) {
			uint32_t s = c->queue[head++];

			for (uint32_t h = c->g.hop_start[s];
			     h < c->g.hop_start[s + 1]; h++) {
				const struct vf_hop *hop = &c->g.hops[h];
				uint32_t n = hop->next_sw;
				uint8_t back;

				if (c->down[n] != VF_DIST_INF)
					continue;
				c->down[n] = c->down[s] + 1;
				c->queue[tail++] = n;
				back = f->ports[f->ports[hop->port].remote].num;
				for (unsigned l = 0; l < (1u << p0->lmc); l++)
					vf_lft_row(t, n)[p0->base_lid + l] =
						back;
			}
		}
		for (unsigned l = 0; l < (1u << p0->lmc); l++)
			vf_lft_row(t, x)[p0->base_lid + l] = 0;
	}
}

/* The all-to-all load of the tables t hold (flow[] recomputed). */
static struct ft_load tables_load(struct ft_ctx *c, struct vf_lfts *t)
{
	memset(c->flow, 0, c->f->num_ports * sizeof(*c->flow));
	for (uint32_t i = 0; i < c->num_edges; i++) {
		prepare_edge(c, t, c->edges[i]);
		for (unsigned d = 0; d < c->num_dests; d++)
			account_dest(c, t, &c->dests[d], 1);
	}
	return link_load(c);
}

/* One pass over every edge switch, the flow model on or off. */
static bool first_pass(struct ft_ctx *c, struct vf_lfts *t, bool model,
		       bool tie_by_link)
{
	size_t ports = c->f->num_ports ? c->f->num_ports : 1;

	c->flow_model = model;
	c->tie_by_link = tie_by_link;
	memset(c->flow, 0, ports * sizeof(*c->flow));
	memset(c->base_routed, 0, ports * sizeof(*c->base_routed));
	memset(c->alt_routed, 0, ports * sizeof(*c->alt_routed));
	route_switch_lids(c, t);
	for (uint32_t i = 0; i < c->num_edges; i++)
		if (!route_edge(c, t, c->edges[i]))
			return false;
	return true;
}

/*
 * One complete routing, by rotation (flow model off) or by the flow model;
 * false when the fabric is not a tree.  The model's first pass breaks ties
 * by rotation order, and, where the work budget allows it twice, also by
 * the lighter first link; the passes follow each, and the lighter result
 * is kept (3 chassis with 18 edge switches: 204, the bound, by the first
 * link, 210 by rotation order; a small director fabric the other way
 * round, 20 against 24).
 */
static bool route_all(struct ft_ctx *c, struct vf_lfts *t, bool model)
{
	size_t size = (size_t)t->num_switches * ((size_t)t->max_lid + 1);
	bool both = model && 2 * flow_pass_work(c) <= FT_FLOW_WORK_MAX;
	uint64_t budget = both ? FT_FLOW_WORK_MAX / 2 : FT_FLOW_WORK_MAX;
	struct ft_load first;
	uint8_t *kept;

	/* the first link's tie rule first: it often reaches the bound */
	if (!first_pass(c, t, model, both))
		return false;
	if (!model)
		return true;
	if (improve_by_flow(c, t, budget))
		return false;
	first = tables_load(c, t);
	if (!both || first.max <= edge_bound(c))
		return true;
	kept = malloc(size ? size : 1);
	if (!kept)
		return true;
	memcpy(kept, t->port, size);
	first_pass(c, t, true, false);
	if (improve_by_flow(c, t, budget) ||
	    !lighter(tables_load(c, t), first))
		memcpy(t->port, kept, size);
	free(kept);
	return true;
}static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Switches in the fabric that share SystemImageGUID g (sorted sys[]). */
static uint32_t chassis_chips(const uint64_t *sys, uint32_t n, uint64_t g)
{
	const uint64_t *hit = bsearch(&g, sys, n, sizeof(*sys), cmp_u64);
	uint32_t count = 0;

	while (hit && hit > sys && hit[-1] == g)
		hit--;
	for (; hit && hit < sys + n && *hit == g; hit++)
		count++;
	return count;
}

/*
 * Do edge switches hang off several director chassis (their uplinks reach
 * chips of two or more multi-chip chassis)?  There the rotation's tier
 * alignment does not hold, and the flow model is worth its cost.
 */
static bool edges_span_chassis(const struct ft_ctx *c)
{
	const struct vf_fabric *f = c->f;
	uint64_t *sys = malloc((c->nsw ? c->nsw : 1) * sizeof(*sys));
	bool span = false;

	if (!sys)
		return false;
	for (uint32_t s = 0; s < c->nsw; s++)
		sys[s] = f->nodes[f->switches[s]].sysimg_guid;
	qsort(sys, c->nsw, sizeof(*sys), cmp_u64);
	for (uint32_t s = 0; s < c->nsw && !span; s++) {
		uint64_t first = 0;

		if (!c->edge[s])
			continue;
		for (uint32_t h = c->g.hop_start[s]; h < c->up_end[s] && !span;
		     h++) {
			uint64_t g = f->nodes[f->switches[c->g.hops[h].next_sw]]
					     .sysimg_guid;

			if (chassis_chips(sys, c->nsw, g) < 2)
				continue;
			if (!first)
				first = g;
			span = g != first;
		}
	}
	free(sys);
	return span;
}

/*
 * The rotation reaches the optimum on full trees whose tiers are alike;
 * where they are not (degraded trees, director chassis with edge switches
 * on several chassis) the flow model does better, but not everywhere (a
 * 3-level tree under OpenSM's LIDs: 392 against the rotation's 384).  So
 * on fabrics whose edge switches span chassis both run, and the tables
 * whose busiest link is lighter are kept (measured on 3 chassis with 18
 * edge switches: rotation 540, flow model 204, the bound); degraded trees
 * take the model alone.  Either stops early once it reaches the leaf
 * bound.
 */
static int better_of_both(struct ft_ctx *c, struct vf_lfts *t)
{
	size_t size = (size_t)t->num_switches * ((size_t)t->max_lid + 1);
	uint8_t *rotation = malloc(size ? size : 1);
	struct ft_load by_rotation, by_model;

	if (!rotation)
		return -ENOMEM;
	memcpy(rotation, t->port, size);
	by_rotation = tables_load(c, t);
	if (by_rotation.max <= edge_bound(c)) {
		free(rotation);
		return 0;	/* nothing can do better */
	}
	if (!route_all(c, t, true)) {
		free(rotation);
		return -ENOMEM;
	}
	by_model = tables_load(c, t);
	if (!lighter(by_model, by_rotation))
		memcpy(t->port, rotation, size);
	free(rotation);
	return 0;
}

static void ctx_free(struct ft_ctx *c)
{
	vf_sticky_free(&c->sticky);
	vf_swgraph_free(&c->g);
	free(c->level);
	free(c->pos);
	free(c->by_level);
	free(c->edges);
	free(c->rank);
	free(c->down);
	free(c->ud);
	free(c->any);
	free(c->edge);
	free(c->queue);
	free(c->group);
	free(c->base_routed);
	free(c->alt_routed);
	free(c->flow);
	free(c->hosts);
	free(c->flow_order);
	free(c->cand_start);
	free(c->cand_pool);
	free(c->choice);
	free(c->down_port);
	free(c->up_end);
	free(c->full_up);
	free(c->full_down);
	free(c->dests);
	vf_tenancy_free(&c->ten);
}

static int ctx_init(struct ft_ctx *c, const struct vf_fabric *f,
		    const struct vf_route_opts *opts)
{
	size_t n;
	uint32_t most = 1;

	memset(c, 0, sizeof(*c));
	c->f = f;
	c->opts = opts;
	c->nsw = f->num_switches;
	if (vf_swgraph_init(&c->g, f))
		return -ENOMEM;
	n = c->nsw ? c->nsw : 1;
	for (uint32_t s = 0; s < c->nsw; s++)
		if (c->g.hop_start[s + 1] - c->g.hop_start[s] > most)
			most = c->g.hop_start[s + 1] - c->g.hop_start[s];
	c->level = malloc(n * sizeof(*c->level));
	c->pos = malloc(n * sizeof(*c->pos));
	c->by_level = malloc(n * sizeof(*c->by_level));
	c->edges = malloc(n * sizeof(*c->edges));
	c->rank = malloc((f->num_ports ? f->num_ports : 1) * sizeof(*c->rank));
	c->down = malloc(n * sizeof(*c->down));
	c->ud = malloc(n * sizeof(*c->ud));
	c->any = malloc(n * sizeof(*c->any));
	c->edge = malloc(n * sizeof(*c->edge));
	c->queue = malloc(n * sizeof(*c->queue));
	c->group = malloc(most * sizeof(*c->group));
	c->base_routed = calloc(f->num_ports ? f->num_ports : 1,
				sizeof(*c->base_routed));
	c->alt_routed = calloc(f->num_ports ? f->num_ports : 1,
			       sizeof(*c->alt_routed));
	c->flow = calloc(f->num_ports ? f->num_ports : 1, sizeof(*c->flow));
	c->hosts = calloc(n, sizeof(*c->hosts));
	c->flow_order = malloc(n * sizeof(*c->flow_order));
	c->cand_start = malloc((n + 1) * sizeof(*c->cand_start));
	c->cand_pool = malloc((c->g.hop_start[c->nsw] ? c->g.hop_start[c->nsw] : 1) *
			      sizeof(*c->cand_pool));
	c->choice = malloc(n * sizeof(*c->choice));
	c->down_port = malloc(n * sizeof(*c->down_port));
	c->up_end = malloc(n * sizeof(*c->up_end));
	c->dests = malloc(VF_MAX_PORTS * sizeof(*c->dests));
	c->full_up = malloc(n * sizeof(*c->full_up));
	c->full_down = malloc(n * sizeof(*c->full_down));
	if (!c->level || !c->pos || !c->by_level || !c->edges || !c->rank ||
	    !c->down || !c->ud || !c->any || !c->edge ||
	    !c->queue || !c->group || !c->base_routed || !c->alt_routed ||
	    !c->flow || !c->hosts || !c->flow_order || !c->cand_start ||
	    !c->cand_pool || !c->choice || !c->down_port ||
	    !c->up_end ||
	    !c->full_up || !c->full_down || !c->dests)
		return -ENOMEM;
	for (uint32_t s = 0; s < c->nsw; s++) {
		const struct vf_node *sw = &f->nodes[f->switches[s]];

		c->down_port[s] = VF_NONE;
		c->choice[s] = VF_NONE;
		c->edge[s] = vf_has_end_node(f, s);
		for (unsigned i = 1; i <= sw->num_ports; i++) {
			const struct vf_port *peer =
				vf_usable_peer(f, vf_node_port(f, sw, i));

			c->hosts[s] += peer &&
				       !vf_is_switch(&f->nodes[peer->node]);
		}
	}
	if (vf_sticky_init(&c->sticky, f, opts->previous))
		return -ENOMEM;
	if (vf_tenancy_init(&c->ten, f, &c->g, opts->traffic,
			    opts->partition_routing))
		return -ENOMEM;
	assign_levels(c);
	split_directions(c);
	order_tiers(c);
	c->degraded = is_degraded(c);
	rank_ports(c);
	c->model_ok = top_level(c) >= 1 && flow_model_affordable(c);
	return 0;
}

int vf_route_fattree(const struct vf_fabric *f,
		     const struct vf_route_opts *opts, struct vf_lfts *t)
{
	if (opts->partition_routing == VF_PROUTE_BALANCE && opts->traffic)
		return vf_route_best_for_classes(f, opts, t, route_fattree);
	return route_fattree(f, opts, t);
}

static int route_fattree(const struct vf_fabric *f,
			 const struct vf_route_opts *opts, struct vf_lfts *t)
{
	struct ft_ctx c;
	bool tree = true;
	int rc;

	if (t->num_switches != f->num_switches || t->max_lid < f->max_lid)
		return -EINVAL;
	rc = ctx_init(&c, f, opts);
	if (rc)
		goto out_free;
	if (c.ten.mode != VF_PROUTE_OFF) {
		tree = route_all(&c, t, false);
	} else if (c.model_ok && c.degraded) {
		tree = route_all(&c, t, true);
	} else {
		tree = route_all(&c, t, false);
		if (tree && c.model_ok && edges_span_chassis(&c))
			rc = better_of_both(&c, t);
	}
	if (!tree) {
		vf_log(VF_LOG_WARN,
		       "fattree: routing this fabric with shortestpath instead");
		memset(t->port, VF_NO_PORT,
		       (size_t)t->num_switches * ((size_t)t->max_lid + 1));
		rc = vf_route_shortestpath(f, opts, t);
	}
out_free:
	ctx_free(&c);
	return rc;
}
