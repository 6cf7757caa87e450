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
 * alignment: with two tiers, edge switches choose by all-to-all flow on the
 * path (pick_by_flow()); with more, a flow model routes every switch
 * (route_dest_by_flow()).
 *
 * LMC > 0: the other LIDs of a port take another chassis, then another
 * chip, then another port than the LIDs before (pick_alternate()).
 *
 * Switch LIDs (management traffic) take the first shortest path found by
 * a breadth-first search, as the FM routes them outside its balancing.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	bool flow_model;	/* degraded with three tiers or more */
	/* degraded trees, per destination edge switch (see route_by_flow) */
	uint32_t *flow_order;	/* on-tree switches, farthest from e first */
	uint32_t *cand_start;	/* [nsw + 1] into cand_pool, by switch */
	uint32_t *cand_pool;	/* candidate hop indices */
	uint64_t *arriving;	/* [nsw] one destination's flow into a switch */
	uint32_t *down_port;	/* [nsw] port index straight down to the
				 * current e, VF_NONE (none, or a trunk) */
	uint32_t *up_end;	/* [nsw] hops [start, up_end) go up */
	uint16_t *full_up;	/* [nsw] fastest up hops: a complete group */
	uint16_t *full_down;	/* [nsw] fastest down hops */
	/* the destination ports behind the current edge switch */
	struct ft_dest *dests;
	unsigned num_dests;
};

struct ft_dest {
	uint32_t rank;
	uint16_t base_lid;
	uint8_t lids;		/* 2^LMC */
	uint8_t edge_port;	/* its port on the edge switch */
};

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

static bool route_last(const struct ft_ctx *c, const struct vf_port *p)
{
	const struct vf_guid_set *set = &c->opts->route_last;

	return set->count && (vf_guid_set_has(set, c->f->nodes[p->node].guid) ||
			      vf_guid_set_has(set, p->guid));
}

/* Destination ranks: edge switches in order, ports in order; RouteLast last. */
static void rank_ports(struct ft_ctx *c)
{
	const struct vf_fabric *f = c->f;
	uint32_t r = 0;

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
				c->rank[peer - f->ports] = r++;
			}
		}
	}
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
 * The flow model costs about destinations x switches x candidates: up to
 * 20 million destination-switch pairs (thousands of hosts) it takes well
 * under a second; beyond, the edge rule is used (a degraded 27,648-host
 * tree took 25 s with the model, 1 s without).
 */
#define FT_FLOW_MODEL_MAX 20000000ull

static bool flow_model_affordable(const struct ft_ctx *c)
{
	uint64_t dests = 0;

	for (uint32_t i = 0; i < c->f->num_ports; i++)
		dests += c->rank[i] != VF_NONE;
	if (dests * c->nsw <= FT_FLOW_MODEL_MAX)
		return true;
	vf_log(VF_LOG_INFO,
	       "fattree: degraded tree of %llu destinations and %u switches: too big for the flow model, balancing at the edges only",
	       (unsigned long long)dests, c->nsw);
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
 * chosen[0..l-1]: another chassis if there is one, else another chip,
 * else another port; among those, the port with the fewest such LIDs so
 * far (so alternate LIDs are balanced too), then the next in rotation
 * from the base.  Kept out of line: inlined, it slowed route_switch's hot
 * loop by half even at LMC 0 (1.0 s against 1.5 s for 27,648 hosts).
 */
static __attribute__((noinline)) unsigned
pick_alternate(const struct ft_ctx *c, unsigned n, const unsigned *chosen,
	       unsigned l)
{
	unsigned best = chosen[0], best_alike = 4;
	uint32_t best_load = UINT32_MAX;

	for (unsigned j = 1; j <= n; j++) {
		unsigned idx = (chosen[0] + j) % n, worst = 0;
		uint32_t load = c->alt_routed[c->g.hops[c->group[idx]].port];

		for (unsigned k = 0; k < l; k++) {
			unsigned a = alike(c, c->group[idx],
					   c->group[chosen[k]]);

			if (a > worst)
				worst = a;
		}
		if (worst < best_alike ||
		    (worst == best_alike && load < best_load)) {
			best = idx;
			best_alike = worst;
			best_load = load;
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
 * An edge switch in a degraded tree: the candidate whose path is least
 * loaded by all-to-all routes so far, ties in the rotation's order.  Counting
 * routes on the links themselves, not LIDs per port, is what keeps the
 * remaining downlinks into a degraded leaf even.
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

		chosen[l] = kept >= 0 ? (unsigned)kept :
			    pick_alternate(c, n, chosen, l);
		c->alt_routed[c->g.hops[c->group[chosen[l]]].port]++;
		row[dst->base_lid + l] = c->g.hops[c->group[chosen[l]]].num;
	}
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

		if (c->edge[s] && c->degraded)
			base = pick_by_flow(c, n, dst->rank, offset);
		else if (!d)
			base = n == full ? (dst->rank + offset) % n :
					   pick_base(c, n, dst->rank, offset);
		else
			base = (base + 1) % n;
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

/* The ranked destination ports behind edge switch e, in port order. */
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
		c->num_dests++;
	}
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
 * Degraded trees of three tiers or more route by an all-to-all flow model
 * (two-tier ones do better with pick_by_flow at the edge alone: measured
 * 152 against 168 on an 8x8+4 tree missing three cables, while a 3-level
 * tree missing three went from 816 to 496 with the model).  Here: the
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

/* The least flow on a link out of x toward e: its best next step. */
static uint64_t lookahead(const struct ft_ctx *c, uint32_t x)
{
	uint64_t best = UINT64_MAX;

	for (uint32_t i = c->cand_start[x]; i < c->cand_start[x + 1]; i++) {
		uint64_t f = c->flow[c->g.hops[c->cand_pool[i]].port];

		if (f < best)
			best = f;
	}
	return best == UINT64_MAX ? 0 : best;
}

/*
 * One destination (rank r, base_lid, lids) in a degraded tree: with the
 * flow from every CA port propagated switch by switch, each switch sends
 * it where its path is least loaded (the link out, and the next switch's
 * best link after), ties in the rotation's order.
 */
static void route_dest_by_flow(struct ft_ctx *c, struct vf_lfts *t,
			       const struct ft_dest *dst)
{
	bool sticky = c->sticky.row != NULL;

	for (uint32_t s = 0; s < c->nsw; s++)
		c->arriving[s] = 0;
	for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++) {
		uint32_t s = c->flow_order[k], i0 = c->cand_start[s];
		unsigned n = c->cand_start[s + 1] - i0, best = 0, offset;
		uint64_t flow = c->hosts[s] + c->arriving[s], best_cost;
		int kept;
		uint8_t *row = vf_lft_row(t, s);

		if (!n)
			continue;
		memcpy(c->group, c->cand_pool + i0, n * sizeof(*c->group));
		offset = c->pos[s];
		best = (dst->rank + offset) % n;
		best_cost = UINT64_MAX;
		for (unsigned j = 0; j < n && flow; j++) {
			unsigned idx = (dst->rank + offset + j) % n;
			const struct vf_hop *h = &c->g.hops[c->group[idx]];
			uint64_t ahead = lookahead(c, h->next_sw);
			uint64_t cost = c->flow[h->port] > ahead ?
					c->flow[h->port] : ahead;

			if (cost < best_cost) {
				best = idx;
				best_cost = cost;
			}
		}
		kept = sticky ? kept_index(c, s, n, dst->base_lid) : -1;
		if (kept >= 0)
			best = kept;
		c->flow[c->g.hops[c->group[best]].port] += flow;
		c->arriving[c->g.hops[c->group[best]].next_sw] += flow;
		row[dst->base_lid] = c->g.hops[c->group[best]].num;
		if (dst->lids > 1)
			write_alternates(c, s, n, dst, best, row);
	}
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
	free(c->arriving);
	free(c->down_port);
	free(c->up_end);
	free(c->full_up);
	free(c->full_down);
	free(c->dests);
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
	c->arriving = malloc(n * sizeof(*c->arriving));
	c->down_port = malloc(n * sizeof(*c->down_port));
	c->up_end = malloc(n * sizeof(*c->up_end));
	c->dests = malloc(VF_MAX_PORTS * sizeof(*c->dests));
	c->full_up = malloc(n * sizeof(*c->full_up));
	c->full_down = malloc(n * sizeof(*c->full_down));
	if (!c->level || !c->pos || !c->by_level || !c->edges || !c->rank ||
	    !c->down || !c->ud || !c->any || !c->edge ||
	    !c->queue || !c->group || !c->base_routed || !c->alt_routed ||
	    !c->flow || !c->hosts || !c->flow_order || !c->cand_start ||
	    !c->cand_pool || !c->arriving || !c->down_port ||
	    !c->up_end ||
	    !c->full_up || !c->full_down || !c->dests)
		return -ENOMEM;
	for (uint32_t s = 0; s < c->nsw; s++) {
		const struct vf_node *sw = &f->nodes[f->switches[s]];

		c->down_port[s] = VF_NONE;
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
	assign_levels(c);
	split_directions(c);
	order_tiers(c);
	c->degraded = is_degraded(c);
	rank_ports(c);
	c->flow_model = c->degraded && top_level(c) >= 2 &&
			flow_model_affordable(c);
	return 0;
}

int vf_route_fattree(const struct vf_fabric *f,
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
	route_switch_lids(&c, t);
	for (uint32_t i = 0; i < c.num_edges && tree; i++)
		tree = route_edge(&c, t, c.edges[i]);
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
