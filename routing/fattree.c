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
 * order, siblings (edge switches cabled to the same switches) together,
 * their ports in port order, RouteLast ports after all others.
 * Switch S sends the base LID of the port of rank r through
 * group[(r + offset(S)) mod n], where group is S's candidate ports toward
 * E in a fixed order (by next switch's SystemImageGUID and GUID, then
 * port) and offset(S) comes from S's position among its siblings (an
 * edge switch) or in its tier (the others).  So sibling
 * switches send one destination through different parents, every switch a
 * level up receives the same flow for each destination, and each switch's
 * uplinks carry equal shares.  Where a candidate set is partial, the start
 * goes to the least-loaded candidate (pick_base()).
 *
 * Degraded trees (a tier's switches differ in link counts) lose that
 * alignment, and so do director chassis with edge switches on several
 * chassis and some full trees of uneven tiers: a flow model of all-to-all
 * traffic routes every switch (route_dest_by_flow()), then moves the
 * destinations on the busiest links in passes (improve_by_flow()).  Where
 * the rotation may do as well, both are computed and the lighter kept
 * (better_of_both()).  On large fabrics the model's first pass routes one
 * destination per edge switch and the others follow it, switch by switch
 * (follow_seed()), and the passes do the rest: 27,648 hosts with 1% of
 * the cables missing end within 2% of the bound.  A switch that no host's
 * route to a destination reaches carries none of it: its entry is not
 * weighed.  Where the work allows, a local search then
 * moves single entries until the busiest link reaches the floor (the
 * larger of the leaf and tier-cut bounds) or the budget ends (search()).
 *
 * LMC > 0: the other LIDs of a port take another chassis, then another
 * chip, then another port than the LIDs before (pick_alternate()).
 *
 * Switch LIDs (management traffic) take the first shortest path found by
 * a breadth-first search, as the FM routes them outside its balancing.
 *
 * Partition-aware routing (routing/internal/tenancy.h, docs/partition-routing.md):
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

#include "routing/internal/classbest.h"
#include "routing/internal/tenancy.h"
#include "engine.h"
#include "common/log.h"
#include "routing/internal/sticky.h"
#include "routing/internal/swgraph.h"

struct ft_ctx {
	struct vf_sticky sticky;	/* the previous routing, if any */
	const struct vf_fabric *f;
	const struct vf_route_opts *opts;
	struct vf_swgraph g;
	uint32_t nsw;
	uint16_t *level;	/* [nsw] tier, VF_DIST_INF when unplaced */
	uint32_t *pos;		/* [nsw] position within its tier */
	uint32_t *sib;		/* [nsw] edge switch: its position among the
				 * edge switches with the same up neighbours */
	uint32_t *lead;		/* [nsw] edge switch: the first of those's
				 * position in the tier */
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
	uint64_t *flow;		/* [num_ports] all-to-all routes, edge choices */
	uint32_t *hosts;	/* [nsw] end nodes attached */
	bool degraded;		/* a tier's switches differ in up/down links */
	bool flow_model;	/* this routing uses the flow model */
	bool seeded;		/* ... for the first destination behind each
				 * edge switch only (follow_seed()) */
	bool model_ok;		/* the fabric has tiers for the flow model */
	bool tie_by_link;	/* equal paths: the lighter first link (the
				 * first pass), else rotation order */
	/* degraded trees, per destination edge switch (see route_by_flow) */
	uint32_t *flow_order;	/* on-tree switches, farthest from e first */
	uint32_t *cand_start;	/* [nsw + 1] into cand_pool, by switch */
	uint32_t *cand_pool;	/* candidate hop indices */
	struct ft_cand *cand;	/* the same candidates, unpacked */
	bool cand_ready;	/* ... toward the current edge switch */
	uint32_t *via_port;	/* [nsw] port toward the current destination,
				 * VF_NONE while undecided */
	uint32_t *via_next;	/* [nsw] the switch that port leads to */
	uint8_t *entries;	/* [dests][nsw] the current edge switch's
				 * destinations' entries; in the passes, a
				 * block of edge switches' (gather_block()) */
	uint32_t entries_cap;	/* ... room for this many destinations */
	uint16_t *block_lid;	/* [entries_cap] their LIDs */
	uint32_t *block_at;	/* [entries_cap] an edge switch's first */
	uint64_t *follow_thr;	/* [nsw][dests] see follow_seed() */
	uint32_t follow_dests;	/* ... room for this many dests */
	uint8_t *column;	/* the first pass: the current destination's
				 * entries, a row of entries[] (write_columns()) */
	uint32_t *first_port;	/* [nsw] the switch's port-0 index */
	uint32_t *seed_idx;	/* [nsw] candidate the seed took (follow_seed()) */
	uint64_t *forced;	/* [nsw] see forced_maxima(); 0 off the tree */
	uint64_t *path_most;	/* [nsw] see entries_max() */
	uint64_t *through;	/* [nsw] the current destination's routes
				 * through each switch (count_through()) */
	uint64_t target;	/* search(): the load it aims under */
	uint64_t floor;		/* no routing loads a link less */
	uint64_t random;	/* search()'s generator state */
	bool wander;		/* search(): routes under the target move too */
	uint8_t *num_ports;	/* [nsw] its ports */
	uint32_t *port_next;	/* [num_ports] switch a usable link of a
				 * switch port leads to, else VF_NONE */
	bool *hot_lid;		/* [max_lid + 1] LIDs a pass moves */
	uint64_t hot;		/* a pass's threshold, else UINT64_MAX */
	int64_t num_hot;	/* links loaded c->hot or more */
	uint32_t *hot_sw;	/* [nsw] switches with such a link in this
				 * pass, and some that had one (heat()) */
	uint32_t num_hot_sw;
	bool *in_hot_sw;	/* [nsw] s is in hot_sw[] */
	uint32_t *down_port;	/* [nsw] port index straight down to the
				 * current e, VF_NONE (none, or a trunk) */
	uint32_t *up_end;	/* [nsw] hops [start, up_end) go up */
	uint32_t *down_end;	/* [nsw] hops [up_end, down_end) go down */
	uint16_t *full_up;	/* [nsw] fastest up hops: a complete group */
	uint16_t *full_down;	/* [nsw] fastest down hops */
	/* the destination ports behind the current edge switch */
	struct ft_dest *dests;
	unsigned num_dests;
	/* switch LIDs (route_switch_lids()) */
	uint32_t *hop_next;	/* [hops] g.hops[h].next_sw, packed */
	uint8_t *hop_back;	/* [hops] port number back from next_sw */
	uint16_t *sw_lid;	/* [nsw] the switch's base LID, 0 without */
	uint8_t *sw_lids;	/* [nsw] its LIDs, 2^LMC */
	uint8_t *lid_cols;	/* a block's entries, [nsw][block] */
	struct vf_tenancy ten;	/* partition-aware routing, or mode OFF */
	bool rank_by_siblings;	/* edges[]: siblings together (cmp_edge()) */
};

/*
 * A candidate hop of the flow model, unpacked from the switch graph: the
 * model reads these for every switch and destination, and the graph's
 * hops are far apart in memory at 27,648 hosts.
 */
struct ft_cand {
	uint32_t port;		/* egress port index */
	uint32_t next;		/* switch at the far end */
	uint8_t num;		/* egress port number */
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

/* By tier, then up neighbours (how many, then which, in hop order). */
static int cmp_uplinks(const struct ft_ctx *c, uint32_t a, uint32_t b)
{
	uint32_t ha = c->g.hop_start[a], hb = c->g.hop_start[b];
	uint32_t na = c->up_end[a] - ha, nb = c->up_end[b] - hb;

	if (c->level[a] != c->level[b])
		return c->level[a] < c->level[b] ? -1 : 1;
	if (na != nb)
		return na < nb ? -1 : 1;
	for (uint32_t i = 0; i < na; i++) {
		uint32_t x = c->g.hops[ha + i].next_sw;
		uint32_t y = c->g.hops[hb + i].next_sw;

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static int cmp_siblings(const void *pa, const void *pb, void *ctx)
{
	const struct ft_ctx *c = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int d = cmp_uplinks(c, a, b);

	if (d)
		return d;
	return c->pos[a] < c->pos[b] ? -1 : c->pos[a] > c->pos[b];
}

/*
 * Siblings: edge switches whose uplinks go to the same switches (a pod's
 * leaves; in a director fabric, the edge switches cabled to the same leaf
 * chips).  The rotation's offset is a switch's place among its siblings,
 * so that they send one destination up different links: by the place in
 * the whole tier, as before, the 6 siblings of 3 chassis with 18 edge
 * switches (cabled round-robin, every third one alike) took 2 uplinks of
 * 6 between them (540 against a bound of 204; now 204).  Where siblings
 * are neighbours in the tier, as in pods, the offsets do not change.
 * Siblings also rank their destinations together (cmp_edge()).
 */
static void find_siblings(struct ft_ctx *c)
{
	uint32_t *by = c->edges, run = 0;

	qsort_r(by, c->num_edges, sizeof(*by), cmp_siblings, c);
	for (uint32_t i = 0; i < c->num_edges; i++) {
		if (i && cmp_uplinks(c, by[i - 1], by[i]))
			run = i;
		c->sib[by[i]] = i - run;
		c->lead[by[i]] = c->pos[by[run]];
	}
}

/*
 * Edge switches: lowest tier first, then (rank_by_siblings) sibling
 * groups in the order of their first switch, then position; so the
 * destinations behind one group take consecutive ranks, and every residue
 * the rotations use is as frequent within the group (3 chassis, 18 edge
 * switches of 2 uplinks per chassis: 256, the bound, against 288 ranked
 * in tier order).
 */
static int cmp_edge(const void *pa, const void *pb, void *ctx)
{
	const struct ft_ctx *c = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (c->level[a] != c->level[b])
		return c->level[a] < c->level[b] ? -1 : 1;
	if (c->rank_by_siblings && c->lead[a] != c->lead[b])
		return c->lead[a] < c->lead[b] ? -1 : 1;
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
	find_siblings(c);
	c->rank_by_siblings = true;
	qsort_r(c->edges, c->num_edges, sizeof(*c->edges), cmp_edge, c);
}

/* Whether ranking siblings together put edges[] out of tier order. */
static bool siblings_apart(const struct ft_ctx *c)
{
	for (uint32_t i = 1; i < c->num_edges; i++) {
		uint32_t a = c->edges[i - 1], b = c->edges[i];

		if (c->level[a] == c->level[b] && c->pos[a] > c->pos[b])
			return true;
	}
	return false;
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

		for (uint32_t h = c->g.hop_start[s]; h < c->up_end[s]; h++) {
			uint32_t n = c->g.hops[h].next_sw;

			if (c->down[n] == VF_DIST_INF) {
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
		for (uint32_t h = c->g.hop_start[s]; h < c->up_end[s]; h++) {
			uint32_t n = c->g.hops[h].next_sw;

			if (c->ud[n] != VF_DIST_INF &&
			    c->ud[n] + 1 < c->ud[s])
				c->ud[s] = c->ud[n] + 1;
		}
	}
}

/*
 * The candidate hops of s toward the current E, fastest only, in hop
 * order (hops are pre-sorted by next switch); returns their number and
 * sets *up.  split_directions() put the up hops, then the down ones,
 * first: only the part in the direction s goes is read.
 */
static unsigned candidates(struct ft_ctx *c, uint32_t s, bool *up)
{
	const struct vf_hop *hops = c->g.hops;
	unsigned n = 0, top = 0;

	uint32_t from, to;

	*up = c->down[s] == VF_DIST_INF;
	from = *up ? c->g.hop_start[s] : c->up_end[s];
	to = *up ? c->up_end[s] : c->down_end[s];
	for (uint32_t h = from; h < to; h++) {
		uint32_t x = hops[h].next_sw;
		bool ok = *up ? c->ud[x] + 1 == c->ud[s]
			      : c->down[x] + 1 == c->down[s];

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
 * those take about a second on a 2 GHz core.
 */
#ifndef FT_FLOW_WORK_MAX	/* t-fattree-seeded: small, to seed small trees */
#define FT_FLOW_WORK_MAX 150000000ull
#endif
#define FT_FLOW_PASSES 8
/* gather_block(): rows of the tables read together */
#define FT_GATHER_ROWS 64
/* route_switch_lids(): bytes of entries kept per block of switches */
#ifndef FT_LID_BLOCK	/* t-fattree-seeded: small, for several blocks */
#define FT_LID_BLOCK (4u << 20)
#endif
/*
 * search(): one costlier step in FT_SEARCH_NOISE, out of a local minimum;
 * after FT_SEARCH_STALL sweeps without less excess, a sweep in which one
 * in FT_SEARCH_WANDER of the routes under the target moves too; the
 * generator's fixed start (the same tables on every run).  Chosen on the
 * 880 generated director fabrics of t-fattree-balance.py, and by hand-run
 * checks (not in the tests) on 200 of other shapes and 40 cabled at
 * random.
 */
#define FT_SEARCH_NOISE 64
#define FT_SEARCH_STALL 32
#define FT_SEARCH_WANDER 64
/* search() ends after this many sweeps without lighter tables: on the
 * 880 generated director fabrics the search that reached the bound took
 * at most 118 (the floor may be out of reach: links the tables never use,
 * slower ones, count in it) */
#define FT_SEARCH_STALE 2000
#define FT_SEARCH_SEED 0x9e3779b97f4a7c15ull

static uint64_t flow_pass_work(const struct ft_ctx *c)
{
	uint64_t dests = 0;

	for (uint32_t i = 0; i < c->f->num_ports; i++)
		dests += c->rank[i] != VF_NONE;
	return dests * (c->g.hop_start[c->nsw] ? c->g.hop_start[c->nsw] : 1);
}

/*
 * A first pass of the model over every destination is affordable up to
 * FT_FLOW_WORK_MAX; beyond it the first pass is seeded (follow_seed()).
 * The passes after it get at least that budget, and a third of a full
 * pass on larger fabrics, whose hot spots take longer to settle.
 */
static bool first_pass_seeded(const struct ft_ctx *c)
{
	return flow_pass_work(c) > FT_FLOW_WORK_MAX;
}

static uint64_t pass_budget(const struct ft_ctx *c)
{
	uint64_t third = flow_pass_work(c) / 3;

	return third > FT_FLOW_WORK_MAX ? third : FT_FLOW_WORK_MAX;
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
		c->down_end[s] = down_end;
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
 * How far LID l's search starts from LID l - 1's choice x: past the
 * candidates in x's chassis (they are in chassis order), when the
 * candidates span several chassis; else a trunk's width.  A fixed shift
 * of a balanced rotation is as balanced: starting one candidate on, the
 * next LIDs of edge switches on 3 chassis took only the first leaf chip
 * of each (512 on a link where the base LIDs load 256, the bound).
 */
static unsigned alternate_step(const struct ft_ctx *c, unsigned n, unsigned x)
{
	unsigned same = 0;

	for (unsigned j = 0; j < n; j++)
		same += alike(c, c->group[j], c->group[x]) >= 1;
	return same < n ? same : trunk_width(c, n);
}

/*
 * The group index for LID l > 0 of a port whose earlier LIDs took
 * chosen[0..l-1]: from LID l - 1's choice shifted by alternate_step(), the
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
	unsigned start = (chosen[l - 1] +
			  alternate_step(c, n, chosen[l - 1])) % n;
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
	offset = up ? (c->edge[s] ? c->sib[s] : c->pos[s]) *
		      trunk_width(c, n) : c->pos[s];
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
 * Degraded trees route by an all-to-all flow model (measured against the
 * tier-cut bound, on 3-level trees missing 5% of their cables: within 2%,
 * where balancing at the edges alone left 1.7-2x; on 2-level ones it
 * reaches the bound where the edge rule stays 2-5% above).  Here: the
 * on-tree switches toward e, farthest first (every hop brings a route one
 * closer, so a switch comes after all that can send to it), each with its
 * candidates stored once (prepare_candidates(); a pass needs only the
 * order for most edge switches, order_flow(), and the candidates where it
 * routes a destination again).
 */
static void order_flow(struct ft_ctx *c)
{
	uint32_t k = 0, top = 0;

	for (uint32_t s = 0; s < c->nsw; s++)
		if (c->ud[s] != VF_DIST_INF && c->ud[s] > top)
			top = c->ud[s];
	for (uint32_t d = top; d > 0; d--)
		for (uint32_t i = 0; i < c->nsw; i++)
			if (c->ud[c->by_level[i]] == d)
				c->flow_order[k++] = c->by_level[i];
	c->flow_order[k] = VF_NONE;
	c->cand_ready = false;
}

static void prepare_candidates(struct ft_ctx *c)
{
	uint32_t at = 0;
	bool up;

	for (uint32_t s = 0; s < c->nsw; s++) {
		unsigned n = c->ud[s] && c->ud[s] != VF_DIST_INF ?
			     candidates(c, s, &up) : 0;

		c->cand_start[s] = at;
		memcpy(c->cand_pool + at, c->group, n * sizeof(*c->group));
		for (unsigned j = 0; j < n; j++, at++) {
			c->cand[at].port = c->g.hops[c->group[j]].port;
			c->cand[at].next = c->g.hops[c->group[j]].next_sw;
			c->cand[at].num = c->g.hops[c->group[j]].num;
		}
	}
	c->cand_start[c->nsw] = at;
	c->cand_ready = true;
}

static void prepare_flow(struct ft_ctx *c)
{
	order_flow(c);
	prepare_candidates(c);
}

/*
 * The busiest link, with `add` more routes on each, on the way from x to
 * the current e as already decided for the current destination (paths are
 * a few hops: this is cheap).
 */
static uint64_t path_max(const struct ft_ctx *c, uint32_t x, uint64_t add)
{
	uint64_t most = 0;

	for (; c->via_port[x] != VF_NONE; x = c->via_next[x])
		if (c->flow[c->via_port[x]] > most)
			most = c->flow[c->via_port[x]];
	return most + add;
}

/* s has a link at or above c->hot: in hot_sw[], once. */
static void list_hot_switch(struct ft_ctx *c, uint32_t s)
{
	if (!c->in_hot_sw[s]) {
		c->in_hot_sw[s] = true;
		c->hot_sw[c->num_hot_sw++] = s;
	}
}

/*
 * s's link toward the current destination changed load (`was`: it was at
 * or above c->hot before): count it, and list s among the switches with a
 * hot link if it is one now (the list keeps switches whose links cooled
 * since: uses_hot_link() reads the loads).
 */
static void heat(struct ft_ctx *c, uint32_t s, int was)
{
	int now = c->flow[c->via_port[s]] >= c->hot;

	c->num_hot += now - was;
	if (now)
		list_hot_switch(c, s);
}

/*
 * Add (or take off) one source switch's routes along its decided path,
 * counting the links at or above c->hot (a pass ends when none is left).
 */
static void push_path(struct ft_ctx *c, uint32_t x, int64_t routes)
{
	for (; c->via_port[x] != VF_NONE; x = c->via_next[x]) {
		uint64_t *flow = &c->flow[c->via_port[x]];
		int was = *flow >= c->hot;

		*flow += (uint64_t)routes;
		heat(c, x, was);
	}
}

/* s's hop for the current destination, from its LFT entry `out`. */
static void set_via(struct ft_ctx *c, uint32_t s, uint8_t out)
{
	uint32_t port = c->first_port[s] + out;

	c->via_port[s] = VF_NONE;
	if (!out || out > c->num_ports[s] || c->port_next[port] == VF_NONE)
		return;
	c->via_port[s] = port;
	c->via_next[s] = c->port_next[port];
}

/* Every on-tree switch's hop toward `lid` as the tables hold it. */
static void vias_from_tables(struct ft_ctx *c, const struct vf_lfts *t,
			     unsigned lid)
{
	for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++)
		set_via(c, c->flow_order[k],
			vf_lft_row(t, c->flow_order[k])[lid]);
}

/* The same from a copy of dst's entries, by switch (gather_block()). */
static void vias_from_entries(struct ft_ctx *c, const uint8_t *entry)
{
	for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++)
		set_via(c, c->flow_order[k], entry[c->flow_order[k]]);
}

static void clear_vias(struct ft_ctx *c)
{
	for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++)
		c->via_port[c->flow_order[k]] = VF_NONE;
}

/*
 * The current destination's routes through each on-tree switch that sends
 * them on (its vias set): its own hosts' and all that arrive, farthest
 * first, so a switch's count is whole before it passes it on (one read of
 * each switch, where following every host switch's way to e read the
 * links near e once per switch behind them).
 */
static void count_through(struct ft_ctx *c)
{
	for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++)
		c->through[c->flow_order[k]] = 0;
	for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++) {
		uint32_t s = c->flow_order[k];

		if (c->via_port[s] == VF_NONE)
			continue;
		c->through[s] += c->hosts[s];
		if (c->via_port[c->via_next[s]] != VF_NONE)
			c->through[c->via_next[s]] += c->through[s];
	}
}

/*
 * Put dst's routes on (1) or off (-1) the links, its vias set, counting
 * the links at or above c->hot as push_path() does.
 */
static void push_dest(struct ft_ctx *c, int sign)
{
	count_through(c);
	for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++) {
		uint32_t s = c->flow_order[k];
		uint64_t *flow;
		int was;

		if (c->via_port[s] == VF_NONE || !c->through[s])
			continue;
		flow = &c->flow[c->via_port[s]];
		was = *flow >= c->hot;
		*flow += (uint64_t)(sign * (int64_t)c->through[s]);
		heat(c, s, was);
	}
}

/*
 * The busiest link dst's routes use (its vias set): destinations whose
 * routes miss every busy link cannot lower the busiest one by moving.
 */
static uint64_t dest_max(const struct ft_ctx *c)
{
	uint64_t most = 0;

	for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++) {
		uint32_t s = c->flow_order[k];

		if (c->hosts[s] && c->via_port[s] != VF_NONE) {
			uint64_t m = path_max(c, s, 0);

			if (m > most)
				most = m;
		}
	}
	return most;
}

/*
 * dest_max() from a copy of dst's entries (gather_block()), the vias
 * left alone: most destinations a pass looks at use no busy link, and
 * for those this is all it does.  Nearest to e first, each switch's
 * busiest link on its way to e builds on the next switch's (path_most[]),
 * so each link is read once, not once per source switch behind it.
 */
static uint64_t entries_max(const struct ft_ctx *c, const uint8_t *entry)
{
	uint64_t most = 0;
	uint32_t k = 0;

	while (c->flow_order[k] != VF_NONE)
		k++;
	while (k--) {
		uint32_t x = c->flow_order[k], port = c->first_port[x] +
						      entry[x], next;
		uint64_t m;

		c->path_most[x] = 0;
		if (!entry[x] || entry[x] > c->num_ports[x] ||
		    c->port_next[port] == VF_NONE)
			continue;
		next = c->port_next[port];
		m = c->flow[port];
		/* e and the switches off the tree add nothing; candidates
		 * always lead nearer to e, so next is done */
		if (c->ud[next] && c->ud[next] < c->ud[x] &&
		    c->path_most[next] > m)
			m = c->path_most[next];
		c->path_most[x] = m;
		if (c->hosts[x] && m > most)
			most = m;
	}
	return most;
}

/*
 * s's entry for lid: in the tables, or, in the first pass, in the column
 * of the current destination (write_columns()).
 */
static void set_entry(struct ft_ctx *c, struct vf_lfts *t, uint32_t s,
		      uint16_t lid, uint8_t out)
{
	if (c->column)
		c->column[s] = out;
	else
		vf_lft_row(t, s)[lid] = out;
}

/*
 * The first pass's entries for every destination behind the current edge
 * switch, into the tables row by row: their LIDs are mostly neighbours, so
 * each row's cache line is written once, where writing one destination's
 * entries down the table missed the cache at every switch (a fifth of the
 * seeded first pass at 27,648 hosts).
 */
static void write_columns(struct ft_ctx *c, struct vf_lfts *t)
{
	for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++) {
		uint32_t s = c->flow_order[k];
		uint8_t *row = vf_lft_row(t, s);

		if (c->cand_start[s + 1] == c->cand_start[s])
			continue;	/* the model left it alone */
		for (unsigned d = 0; d < c->num_dests; d++)
			row[c->dests[d].base_lid] =
				c->entries[(size_t)d * c->nsw + s];
	}
}

/* x sends the current destination by its candidate idx. */
static void decide(struct ft_ctx *c, struct vf_lfts *t,
		   const struct ft_dest *dst, uint32_t x, unsigned idx)
{
	const struct ft_cand *y = &c->cand[c->cand_start[x] + idx];

	c->via_port[x] = y->port;
	c->via_next[x] = y->next;
	c->seed_idx[x] = idx;
	set_entry(c, t, x, dst->base_lid, y->num);
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
 * degraded 3-level tree, 440 against 448).  A path costs at least its
 * first link, so a candidate whose first link already loses is not
 * walked.
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
		unsigned n = c->cand_start[s + 1] - i0, best, idx;
		uint64_t own = c->hosts[s], best_cost = UINT64_MAX;
		uint64_t best_link = UINT64_MAX;
		const struct ft_cand *cand = c->cand + i0;
		int kept;

		if (!n)
			continue;
		best = idx = (dst->rank + c->pos[s]) % n;
		for (unsigned j = 0; j < n; j++, idx = idx + 1 < n ? idx + 1 : 0) {
			uint64_t link = c->flow[cand[idx].port], cost;

			if (link + own > best_cost ||
			    (link + own == best_cost &&
			     (!c->tie_by_link || link >= best_link)))
				continue;
			cost = path_max(c, cand[idx].next, own);
			if (link + own > cost)
				cost = link + own;
			if (cost < best_cost ||
			    (c->tie_by_link && cost == best_cost &&
			     link < best_link)) {
				best = idx;
				best_cost = cost;
				best_link = link;
			}
		}
		if (sticky) {
			memcpy(c->group, c->cand_pool + i0,
			       n * sizeof(*c->group));
			kept = kept_index(c, s, n, dst->base_lid);
			if (kept >= 0)
				best = kept;
		}
		decide(c, t, dst, s, best);
		if (own)
			push_path(c, s, (int64_t)own);
	}
}

/*
 * For every on-tree switch, the busiest link on its way to e as far as
 * that way is forced (one candidate per switch): the links a choice of it
 * commits to before anyone else chooses.  Nearest to e first, so each
 * switch builds on the next one's.
 */
static void forced_maxima(struct ft_ctx *c)
{
	uint32_t k = 0;

	while (c->flow_order[k] != VF_NONE)
		k++;
	/* e ends every way; its entry may hold a value from another e */
	for (uint32_t h = 0; k && h < c->nsw; h++)
		if (c->ud[h] == 0)
			c->forced[h] = 0;
	while (k--) {
		uint32_t s = c->flow_order[k];
		const struct ft_cand *only = &c->cand[c->cand_start[s]];

		c->forced[s] = 0;
		if (c->cand_start[s + 1] - c->cand_start[s] != 1)
			continue;
		c->forced[s] = c->flow[only->port];
		if (c->forced[only->next] > c->forced[s])
			c->forced[s] = c->forced[only->next];
	}
}

/*
 * The group index at s for dst, following the seed: its previous entry if
 * still valid; at an edge switch, the candidate k places on from the
 * seed's (so the destinations behind one edge switch leave it by
 * different links, as the rotation has them), and so where none of dst's
 * routes arrive (`through` 0: no load to place; about half of the
 * aggregation switches at 27,648 hosts); elsewhere, the candidate whose
 * link, and the forced way after it, are least loaded (ties from k places
 * on).
 */
static unsigned seed_choice(struct ft_ctx *c, uint32_t s, unsigned seed_idx,
			    unsigned k, const struct ft_dest *dst,
			    uint64_t through)
{
	uint32_t i0 = c->cand_start[s];
	unsigned n = c->cand_start[s + 1] - i0, pref, best;
	uint64_t best_cost = UINT64_MAX;

	if (n == 1)
		return 0;	/* a core's way down, say: a fifth of them */
	if (c->sticky.row) {
		int kept;

		memcpy(c->group, c->cand_pool + i0, n * sizeof(*c->group));
		kept = kept_index(c, s, n, dst->base_lid);
		if (kept >= 0)
			return (unsigned)kept;
	}
	if (seed_idx < n) {
		/* (seed_idx + k) % n without a division for the usual k < n */
		pref = seed_idx + k;
		if (pref >= n)
			pref = pref - n < n ? pref - n : pref % n;
	} else {
		pref = (dst->rank + c->pos[s]) % n;
	}
	if (c->hosts[s] || !through)
		return pref;
	best = pref;
	for (unsigned j = 0, idx = pref; j < n;
	     j++, idx = idx + 1 < n ? idx + 1 : 0) {
		const struct ft_cand *x = &c->cand[i0 + idx];
		uint64_t cost = c->flow[x->port] > c->forced[x->next] ?
				c->flow[x->port] : c->forced[x->next];

		if (cost < best_cost) {
			best = idx;
			best_cost = cost;
		}
	}
	return best;
}

/*
 * Follower k's t routes leave by candidate x: onto its link, and on
 * along the switches after it that have a single candidate, as far as the
 * next switch with a choice, which counts them as arriving (or e).  The
 * forced maxima of those switches rise by t with their links.
 */
static void push_follower(struct ft_ctx *c, const struct ft_cand *x,
			  uint64_t t, unsigned k)
{
	uint32_t m = x->next;

	c->flow[x->port] += t;
	while (c->ud[m] && c->cand_start[m + 1] - c->cand_start[m] == 1) {
		const struct ft_cand *y = &c->cand[c->cand_start[m]];

		c->flow[y->port] += t;
		c->forced[m] += t;
		m = y->next;
	}
	if (c->ud[m])
		c->follow_thr[(size_t)m * c->num_dests + k] += t;
}

/*
 * A first pass too big for the flow model routes only the first
 * destination behind each edge switch by it (the seed); the others follow
 * it, switch by switch from the farthest in, each switch choosing for all
 * of them at once by seed_choice(), their routes put on the links as they
 * are chosen (push_follower()).  Switch by switch, a switch's candidates
 * and links are read once for all the destinations, not once each (the
 * first pass at 27,648 hosts: 4.2 s destination by destination).  The
 * passes after it then move what this left on the busiest links (k = 36,
 * 1% of the core cables missing: 12,798 after one more pass, 11,880 after
 * four, against a bound of 11,664).
 */
static void follow_seed(struct ft_ctx *c)
{
	unsigned dests = c->num_dests;

	forced_maxima(c);
	for (uint32_t i = 0; c->flow_order[i] != VF_NONE; i++)
		memset(c->follow_thr + (size_t)c->flow_order[i] * dests, 0,
		       dests * sizeof(*c->follow_thr));
	for (uint32_t i = 0; c->flow_order[i] != VF_NONE; i++) {
		uint32_t s = c->flow_order[i], i0 = c->cand_start[s];
		const uint64_t *arriving = c->follow_thr + (size_t)s * dests;

		if (c->cand_start[s + 1] == i0)
			continue;
		for (unsigned k = 1; k < dests; k++) {
			uint64_t t = c->hosts[s] + arriving[k];
			const struct ft_cand *x = &c->cand[i0 +
				seed_choice(c, s, c->seed_idx[s], k,
					    &c->dests[k], t)];

			c->entries[(size_t)k * c->nsw + s] = x->num;
			if (t)
				push_follower(c, x, t, k);
		}
	}
}

/*
 * All CA LIDs behind edge switch e.  False when the fabric is not a tree:
 * an edge switch connected to e has no up/down path to it.
 */
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
		/* seeded: the first by the model, the others follow it (an
		 * edge switch whose hosts have no LID has none to route) */
		unsigned by_model = c->seeded && c->num_dests > 1 &&
				    c->num_dests <= c->follow_dests ?
				    1 : c->num_dests;

		for (unsigned d = 0; d < by_model; d++) {
			c->column = c->entries + (size_t)d * c->nsw;
			route_dest_by_flow(c, t, &c->dests[d]);
			clear_vias(c);
		}
		c->column = NULL;
		if (by_model < c->num_dests)
			follow_seed(c);
		write_columns(c, t);
	}
	if (c->degraded)
		mark_down_ports(c, e, false);
	return true;
}

/*
 * The leaf-uplink bound: every edge switch sends each of the other hosts'
 * base LIDs up one link, with the routes of all its own hosts, so one
 * uplink carries at least ceil((N - H) / U) * H routes.  A routing that
 * reaches it cannot be bettered (the share H (N - H) / U without the
 * rounding cannot be reached by destination-based tables, and aiming at
 * it made passes run on after the optimum: a 3-level tree at 4,140 spent
 * six more passes aiming at 4,133).
 */
static uint64_t edge_bound(const struct ft_ctx *c)
{
	return vf_swgraph_leaf_bound(&c->g, c->hosts, c->up_end);
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
 * Might the destination whose entries these are (gather_block()) send
 * routes out of a link at or above c->hot?  Only the switches listed with
 * such a link are read: an entry out of a hot link counts when the switch
 * has hosts or a neighbour farther from e sends the destination to it.
 * Never false when entries_max() would find a hot link (each link on its
 * chains is such a one), so this only spares entries_max()'s walk of
 * every switch; on 27,648 hosts missing 1% of their core cables, nine in
 * ten of the destinations a pass looks at use no hot link.
 */
static bool uses_hot_link(const struct ft_ctx *c, const uint8_t *entry)
{
	for (uint32_t i = 0; i < c->num_hot_sw; i++) {
		uint32_t s = c->hot_sw[i], port = c->first_port[s] + entry[s];

		if (c->ud[s] == VF_DIST_INF || !c->ud[s] || !entry[s] ||
		    entry[s] > c->num_ports[s] ||
		    c->port_next[port] == VF_NONE || c->flow[port] < c->hot)
			continue;
		if (c->hosts[s])
			return true;
		for (uint32_t h = c->g.hop_start[s]; h < c->g.hop_start[s + 1];
		     h++) {
			uint32_t n = c->hop_next[h];

			if (c->ud[n] != VF_DIST_INF && c->ud[n] > c->ud[s] &&
			    entry[n] == c->hop_back[h])
				return true;
		}
	}
	return false;
}

/*
 * Route dst again against all the others, if its routes load a link `hot`
 * or more.  The new routes are kept only if their busiest link is no
 * busier than the old ones', so a pass never raises the busiest link of
 * the fabric and needs no copy of the tables.  Returns whether dst was
 * routed again.
 */
static bool reroute_dest(struct ft_ctx *c, struct vf_lfts *t,
			 const struct ft_dest *dst, const uint8_t *entry,
			 uint64_t hot)
{
	uint64_t before;

	if (!uses_hot_link(c, entry))
		return false;
	before = entries_max(c, entry);
	if (before < hot)
		return false;
	vias_from_entries(c, entry);
	push_dest(c, -1);
	clear_vias(c);
	if (!c->cand_ready)
		prepare_candidates(c);
	route_dest_by_flow(c, t, dst);
	if (dest_max(c) > before) {
		push_dest(c, -1);
		clear_vias(c);
		for (uint32_t k = 0; c->flow_order[k] != VF_NONE; k++)
			vf_lft_row(t, c->flow_order[k])[dst->base_lid] =
				entry[c->flow_order[k]];
		vias_from_entries(c, entry);
		push_dest(c, 1);
	}
	clear_vias(c);
	return true;
}

/*
 * Copy the entries of the destinations behind edge switches edges[i0],
 * ... at every switch into entries[], by destination, as many edge
 * switches as entries[] holds (entries_cap destinations); returns the
 * first one left out, and each one's first destination in block_at[].
 * Row by row: the LIDs of neighbouring edge switches are mostly
 * neighbours, so this reads a run of each row at once (one edge switch
 * at a time, reading each row's cache line for 24 entries was a tenth of
 * the passes at 27,648 hosts).  A destination's entries change only when
 * it is routed again, so copies taken ahead stay true.
 */
static uint32_t gather_block(struct ft_ctx *c, struct vf_lfts *t, uint32_t i0)
{
	uint32_t n = 0, i = i0;

	for (; i < c->num_edges && i - i0 < c->entries_cap; i++) {
		collect_dests(c, t, c->edges[i]);
		if (i > i0 && n + c->num_dests > c->entries_cap)
			break;
		c->block_at[i - i0] = n;
		for (unsigned d = 0; d < c->num_dests; d++)
			c->block_lid[n++] = c->dests[d].base_lid;
	}
	/* FT_GATHER_ROWS rows at a time, so that neither the rows nor the
	 * destinations' copies spread over more pages than the TLB holds */
	for (uint32_t s0 = 0; s0 < c->nsw; s0 += FT_GATHER_ROWS) {
		uint32_t s1 = s0 + FT_GATHER_ROWS < c->nsw ?
			      s0 + FT_GATHER_ROWS : c->nsw;
		const uint8_t *row[FT_GATHER_ROWS];

		for (uint32_t s = s0; s < s1; s++)
			row[s - s0] = vf_lft_row(t, s);
		for (uint32_t d = 0; d < n; d++) {
			uint8_t *to = c->entries + (size_t)d * c->nsw;
			uint16_t lid = c->block_lid[d];

			for (uint32_t s = s0; s < s1; s++)
				to[s] = row[s - s0][lid];
		}
	}
	return i;
}

/*
 * Mark the LIDs some switch sends out of a link loaded `hot` or more, of
 * those that reach the switch with routes of others: only moving those
 * destinations can lower such a link (those whose routes do use it,
 * reroute_dest() tells).  A LID reaches s when s has hosts of its own or a
 * neighbour sends the LID to s; a switch's entry for a LID nobody sends it
 * loads none of its links (a core's entries for a whole pod point down one
 * link, though only some aggregation switches send there).  Only the LIDs
 * not yet marked that leave s by a hot link are looked up at the
 * neighbours, so rows are read only around switches with such a link.
 */
static int mark_hot(struct ft_ctx *c, const struct vf_lfts *t, uint64_t hot)
{
	uint16_t *lids = malloc(((size_t)t->max_lid + 1) * sizeof(*lids));

	if (!lids)
		return -ENOMEM;
	memset(c->hot_lid, 0, (size_t)t->max_lid + 1);
	for (uint32_t s = 0; s < c->nsw; s++) {
		bool port_hot[256] = { false }, any = false;
		const uint8_t *row = vf_lft_row(t, s);
		unsigned n = 0;

		for (unsigned i = 1; i <= c->num_ports[s]; i++) {
			uint32_t p = c->first_port[s] + i;

			if (c->port_next[p] != VF_NONE && c->flow[p] >= hot)
				port_hot[i] = any = true;
		}
		if (!any)
			continue;
		for (unsigned lid = 1; lid <= t->max_lid; lid++)
			if (row[lid] != VF_NO_PORT && port_hot[row[lid]] &&
			    !c->hot_lid[lid])
				lids[n++] = (uint16_t)lid;
		if (c->hosts[s]) {
			for (unsigned i = 0; i < n; i++)
				c->hot_lid[lids[i]] = true;
			continue;
		}
		for (uint32_t h = c->g.hop_start[s];
		     h < c->g.hop_start[s + 1] && n; h++) {
			const uint8_t *from = vf_lft_row(t, c->hop_next[h]);
			uint8_t back = c->hop_back[h];
			unsigned left = 0;

			/* marked ones leave the list */
			for (unsigned i = 0; i < n; i++) {
				if (from[lids[i]] == back)
					c->hot_lid[lids[i]] = true;
				else
					lids[left++] = lids[i];
			}
			n = left;
		}
	}
	free(lids);
	return 0;
}

/*
 * Another pass of the flow model: each destination sent out of a link
 * loaded `hot` or more is taken off and routed again against all the
 * others (the first pass routed the early ones against an empty fabric).
 * Returns the work done, in the units of flow_pass_work().
 */
static uint64_t reroute_by_flow(struct ft_ctx *c, struct vf_lfts *t,
				uint64_t hot)
{
	uint64_t moved = 0, looked = 0;
	int64_t marked_at;

	if (mark_hot(c, t, hot))
		return UINT64_MAX;	/* out of memory: no more passes */
	c->hot = hot;
	c->num_hot = 0;
	for (uint32_t s = 0; s < c->nsw; s++)
		c->in_hot_sw[s] = false;
	c->num_hot_sw = 0;
	for (uint32_t s = 0; s < c->nsw; s++)
		for (unsigned i = 1; i <= c->num_ports[s]; i++) {
			uint32_t p = c->first_port[s] + i;

			if (c->port_next[p] == VF_NONE || c->flow[p] < hot)
				continue;
			c->num_hot++;
			list_hot_switch(c, s);
		}
	marked_at = c->num_hot;
	/*
	 * Once no link is that busy, no destination left can lower one; once
	 * half of them have cooled, the marks are taken again (a destination
	 * marked for a link that cooled costs a look for nothing).
	 */
	for (uint32_t i = 0, i0 = 0, i1 = 0;
	     i < c->num_edges && c->num_hot > 0; i++) {
		const uint8_t *entries;
		bool any = false;

		if (c->num_hot <= marked_at / 2 && !mark_hot(c, t, hot))
			marked_at = c->num_hot;
		if (i == i1) {
			i0 = i;
			i1 = gather_block(c, t, i0);
		}
		collect_dests(c, t, c->edges[i]);
		for (unsigned d = 0; d < c->num_dests && !any; d++)
			any = c->hot_lid[c->dests[d].base_lid];
		if (!any)
			continue;
		distances_to(c, c->edges[i]);
		order_flow(c);
		entries = c->entries + (size_t)c->block_at[i - i0] * c->nsw;
		looked++;
		for (unsigned d = 0; d < c->num_dests && c->num_hot > 0; d++) {
			if (!c->hot_lid[c->dests[d].base_lid])
				continue;
			moved += reroute_dest(c, t, &c->dests[d],
					      entries + (size_t)d * c->nsw,
					      hot);
			looked++;
		}
	}
	c->hot = UINT64_MAX;
	/* looking costs about a route per switch, moving one per hop */
	return moved * c->g.hop_start[c->nsw] + looked * c->nsw;
}

/* The most LIDs a destination port has: 2^LMC. */
static unsigned max_lids(const struct ft_ctx *c)
{
	unsigned lids = 1;

	for (uint32_t p = 0; p < c->f->num_ports; p++)
		if (c->rank[p] != VF_NONE && c->f->ports[p].lmc &&
		    (1u << c->f->ports[p].lmc) > lids)
			lids = 1u << c->f->ports[p].lmc;
	return lids;
}

/*
 * The flow model's base LIDs are chosen; now the others (LMC > 0), at
 * every switch on the way, apart from the base LID's choice.
 */
static void alternates_by_flow(struct ft_ctx *c, struct vf_lfts *t)
{
	if (max_lids(c) == 1)
		return;	/* (every edge switch prepared for nothing) */
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
 * The all-to-all load of the tables t hold toward LID offset l of every
 * destination port (l < 2^LMC; 0, the base LIDs, weighs a routing), the
 * entries followed switch by switch (flow[] recomputed).
 */
static struct ft_load offset_load(struct ft_ctx *c, struct vf_lfts *t,
				  unsigned l)
{
	memset(c->flow, 0, c->f->num_ports * sizeof(*c->flow));
	for (uint32_t i = 0; i < c->num_edges; i++) {
		prepare_edge(c, t, c->edges[i]);
		for (unsigned d = 0; d < c->num_dests; d++) {
			if (c->dests[d].lids <= l)
				continue;
			vias_from_tables(c, t, c->dests[d].base_lid + l);
			push_dest(c, 1);
			clear_vias(c);
		}
	}
	return link_load(c);
}

static struct ft_load tables_load(struct ft_ctx *c, struct vf_lfts *t)
{
	return offset_load(c, t, 0);
}

static size_t tables_size(const struct vf_lfts *t)
{
	return (size_t)t->num_switches * ((size_t)t->max_lid + 1);
}

/* A copy of the tables, to go back to if another routing is no lighter;
 * NULL when out of memory. */
static uint8_t *tables_save(const struct vf_lfts *t)
{
	uint8_t *kept = malloc(tables_size(t) ? tables_size(t) : 1);

	if (kept)
		memcpy(kept, t->port, tables_size(t));
	return kept;
}

static void tables_restore(struct vf_lfts *t, const uint8_t *kept)
{
	memcpy(t->port, kept, tables_size(t));
}

/*
 * The search's cost of a link's load: the square of what exceeds the
 * target, so that loads under it cost nothing and routes may wander
 * among them.
 */
static int64_t excess_delta(uint64_t target, uint64_t flow, int64_t add)
{
	uint64_t to = flow + (uint64_t)add;
	int64_t x = to > target ? (int64_t)(to - target) : 0;
	int64_t y = flow > target ? (int64_t)(flow - target) : 0;

	return x * x - y * y;
}

/* Add `w` routes on x's way to e (its vias); the change in cost. */
static int64_t shift_way(struct ft_ctx *c, uint32_t x, int64_t w)
{
	int64_t delta = 0;

	for (; c->via_port[x] != VF_NONE; x = c->via_next[x]) {
		delta += excess_delta(c->target, c->flow[c->via_port[x]], w);
		c->flow[c->via_port[x]] += (uint64_t)w;
	}
	return delta;
}

/* The change in cost if x's routes took candidate y (x's own way off). */
static int64_t way_delta(const struct ft_ctx *c, const struct ft_cand *y,
			 uint64_t w)
{
	int64_t delta = excess_delta(c->target, c->flow[y->port], (int64_t)w);

	for (uint32_t x = y->next; c->via_port[x] != VF_NONE;
	     x = c->via_next[x])
		delta += excess_delta(c->target, c->flow[c->via_port[x]],
				      (int64_t)w);
	return delta;
}

/* What the links carry above the target, in all. */
static uint64_t excess(const struct ft_ctx *c)
{
	uint64_t over = 0;

	for (uint32_t i = 0; i < c->f->num_ports; i++)
		if (c->flow[i] > c->target)
			over += c->flow[i] - c->target;
	return over;
}

/* Does x's way to e cross a link over the target? */
static bool way_over(const struct ft_ctx *c, uint32_t x)
{
	for (; c->via_port[x] != VF_NONE; x = c->via_next[x])
		if (c->flow[c->via_port[x]] > c->target)
			return true;
	return false;
}

/* xorshift: the search's choices among equals, the same on every run */
static uint32_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (uint32_t)(*state >> 32);
}

/*
 * x's routes toward the current destination, if their way crosses a link
 * over the target (or, in a wandering sweep, now and then), take the
 * candidate that raises the cost least, a random one among equals, half
 * the time when that cost is no change.  Where every other candidate
 * would raise it, they stay, but for one time in FT_SEARCH_NOISE, when
 * they take the least costly anyway: without those steps the search
 * stopped in local minima (2 of the 880 generated director fabrics).
 * Returns whether they moved.
 */
static bool move_switch(struct ft_ctx *c, struct vf_lfts *t,
			const struct ft_dest *dst, uint32_t x)
{
	uint32_t i0 = c->cand_start[x];
	unsigned n = c->cand_start[x + 1] - i0, best = n, ties = 0;
	uint8_t *entry = &vf_lft_row(t, x)[dst->base_lid];
	uint64_t w = c->through[x];
	int64_t off, best_delta = INT64_MAX;

	if (n < 2 || !w || c->via_port[x] == VF_NONE)
		return false;
	if (!way_over(c, x) &&
	    (!c->wander || next_random(&c->random) % FT_SEARCH_WANDER))
		return false;
	off = shift_way(c, x, -(int64_t)w);
	c->via_port[x] = VF_NONE;
	for (unsigned j = 0; j < n; j++) {
		const struct ft_cand *y = &c->cand[i0 + j];
		int64_t delta;

		if (y->num == *entry)
			continue;
		delta = off + way_delta(c, y, w);
		if (delta < best_delta) {
			best_delta = delta;
			best = j;
			ties = 1;
		} else if (delta == best_delta &&
			   next_random(&c->random) % ++ties == 0) {
			best = j;
		}
	}
	set_via(c, x, *entry);
	if (best == n || (best_delta == 0 && next_random(&c->random) % 2) ||
	    (best_delta > 0 && next_random(&c->random) % FT_SEARCH_NOISE)) {
		shift_way(c, x, (int64_t)w);
		return false;
	}
	for (uint32_t y = c->via_next[x]; c->via_port[y] != VF_NONE;
	     y = c->via_next[y])
		c->through[y] -= w;
	decide(c, t, dst, x, best);
	shift_way(c, x, (int64_t)w);
	for (uint32_t y = c->via_next[x]; c->via_port[y] != VF_NONE;
	     y = c->via_next[y])
		c->through[y] += w;
	return true;
}

/* One sweep of move_switch() over every destination and switch. */
static void search_sweep(struct ft_ctx *c, struct vf_lfts *t)
{
	for (uint32_t i = 0; i < c->num_edges; i++) {
		uint32_t count = 0;

		prepare_edge(c, t, c->edges[i]);
		while (c->flow_order[count] != VF_NONE)
			count++;
		for (unsigned d = 0; d < c->num_dests; d++) {
			vias_from_tables(c, t, c->dests[d].base_lid);
			count_through(c);
			for (uint32_t k = 0; k < count; k++)
				move_switch(c, t, &c->dests[d],
					    c->flow_order[k]);
			clear_vias(c);
		}
	}
}

/*
 * What a sweep of search() costs, in the units of flow_pass_work(): the
 * moves, and per edge switch its distances and candidates, and per sweep
 * two reads of every port (a tiny fabric got millions of sweeps when
 * only the moves counted).
 */
static uint64_t sweep_work(const struct ft_ctx *c)
{
	return flow_pass_work(c) + 2 * (uint64_t)c->f->num_ports +
	       (uint64_t)c->num_edges * (c->nsw + c->g.hop_start[c->nsw]);
}

/*
 * Tables still above the floor (the larger of the leaf and tier-cut
 * bounds) after the model and its passes: a local search aims one route
 * under the busiest link.  The routes of one switch toward one
 * destination move at a time (move_switch()), costing the square of what
 * a link carries above the target, so they wander among the loads under
 * it until no link is over; then the target drops.  The lightest tables
 * seen are kept.  Sweeps stop at the floor, after FT_SEARCH_STALE
 * without lighter tables, or at FT_FLOW_WORK_MAX of work in all
 * (sweep_work()): thousands on a director fabric of a few hundred hosts,
 * none at 27,648 (the work is checked first, so large fabrics pay
 * nothing).  The 148 of 880 generated director fabrics that ended one
 * block above the bound reach it.  Returns whether the tables changed.
 */
static bool search(struct ft_ctx *c, struct vf_lfts *t)
{
	uint64_t work = sweep_work(c), spent = 0, least = UINT64_MAX;
	uint64_t start, sweeps = 0;
	unsigned calm = 0, stale = 0;
	struct ft_load best;
	uint8_t *kept;
	bool changed = false;

	if (work > FT_FLOW_WORK_MAX)
		return false;
	best = tables_load(c, t);
	if (best.max <= c->floor)
		return false;
	start = best.max;
	kept = tables_save(t);
	if (!kept)
		return false;
	c->random = FT_SEARCH_SEED;
	c->target = best.max - 1;
	for (; spent + work <= FT_FLOW_WORK_MAX && stale < FT_SEARCH_STALE;
	     spent += work, stale++) {
		struct ft_load now;
		uint64_t over;

		sweeps++;
		c->wander = calm >= FT_SEARCH_STALL;
		search_sweep(c, t);
		over = excess(c);
		calm = c->wander || over < least ? 0 : calm + 1;
		if (over < least)
			least = over;
		now = link_load(c);
		if (now.max >= best.max)
			continue;
		best = now;
		stale = 0;
		memcpy(kept, t->port, tables_size(t));
		changed = true;
		if (best.max <= c->floor)
			break;
		c->target = best.max - 1;
		least = UINT64_MAX;
	}
	tables_restore(t, kept);
	free(kept);
	vf_log(VF_LOG_INFO,
	       "fattree: local search: busiest link %llu routes (from %llu; floor %llu) after %llu sweeps",
	       (unsigned long long)best.max, (unsigned long long)start,
	       (unsigned long long)c->floor, (unsigned long long)sweeps);
	return changed;
}

/*
 * Passes of the flow model while they bring the busiest link down (the
 * first routes each destination knowing only those before it; measured on
 * a 3-level tree missing 1% of its core cables, k = 36: 12,618 after one
 * pass, 12,060 after two, 11,826 after three, against a bound of 11,664).
 * A pass moves only the destinations whose routes touch the upper half of
 * the excess over the floor (the larger of the leaf bound and the tier
 * cut: aiming at the leaf bound under it, the passes of 27,648 hosts
 * missing 1% of their core cables moved more for the same busiest link,
 * 12.2 s against 10.1 s).  At most FT_FLOW_PASSES, within the work budget
 * given; two passes without a lower busiest link, or coming within 2% of
 * the floor, end it (closer, each pass moves more destinations for less:
 * at k = 36, 430 million units of work for the last 0.15%).
 */
static int improve_by_flow(struct ft_ctx *c, struct vf_lfts *t,
			   uint64_t budget)
{
	uint64_t bound = c->floor, most = link_load(c).max, spent = 0;
	unsigned stale = 0;

	free(c->hot_lid);
	c->hot_lid = malloc((size_t)t->max_lid + 1);
	if (!c->hot_lid)
		return -ENOMEM;
	c->tie_by_link = false;
	for (unsigned pass = 2; pass <= FT_FLOW_PASSES && stale < 2 &&
	     spent < budget && most > bound + bound / 50; pass++) {
		uint64_t now, work;

		vf_log_progress("pass %u/%u, busiest link %llu (bound %llu)",
				pass, FT_FLOW_PASSES, (unsigned long long)most,
				(unsigned long long)bound);
		work = reroute_by_flow(c, t, most - (most - bound) / 2);

		spent = work == UINT64_MAX ? budget : spent + work;
		now = link_load(c).max;
		stale = now < most ? 0 : stale + 1;
		most = now;
	}
	alternates_by_flow(c, t);
	return 0;
}

/*
 * Switch LIDs: a breadth-first search from the destination switch; each
 * switch forwards toward the neighbour that discovered it.
 */
static void switch_lid_bfs(struct ft_ctx *c, uint32_t x, uint8_t *col,
			   uint32_t stride)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < c->nsw; s++)
		c->down[s] = VF_DIST_INF;
	c->down[x] = 0;
	col[(size_t)x * stride] = 0;
	c->queue[tail++] = x;
	while (head < tail) {
		uint32_t s = c->queue[head++];

		for (uint32_t h = c->g.hop_start[s];
		     h < c->g.hop_start[s + 1]; h++) {
			uint32_t n = c->hop_next[h];

			if (c->down[n] != VF_DIST_INF)
				continue;
			c->down[n] = c->down[s] + 1;
			c->queue[tail++] = n;
			col[(size_t)n * stride] = c->hop_back[h];
		}
	}
}

/* route_switch_lids()'s switches per block, FT_LID_BLOCK bytes */
static uint32_t lid_block(const struct ft_ctx *c)
{
	uint32_t block = FT_LID_BLOCK / (c->nsw ? c->nsw : 1);

	if (block > c->nsw)
		block = c->nsw;
	return block ? block : 1;
}

/*
 * entries[]'s room, in destinations: FT_LID_BLOCK bytes, at least an edge
 * switch's worth, no more than the LIDs.
 */
static uint32_t entries_cap(const struct ft_ctx *c)
{
	uint32_t cap = FT_LID_BLOCK / (c->nsw ? c->nsw : 1);

	if (cap > (uint32_t)c->f->max_lid + 1)
		cap = (uint32_t)c->f->max_lid + 1;
	return cap < VF_MAX_PORTS ? VF_MAX_PORTS : cap;
}

/*
 * A block of destination switches at a time, their entries kept by
 * switch first (col[n][x]) and written to the tables row by row: written
 * as found, each entry missed the cache, a fifth of the first pass at
 * 27,648 hosts.  An entry a search does not reach stays as it was.
 */
static void route_switch_lids(struct ft_ctx *c, struct vf_lfts *t)
{
	uint32_t block = lid_block(c);
	uint8_t *col = c->lid_cols;

	for (uint32_t x0 = 0; x0 < c->nsw; x0 += block) {
		uint32_t x1 = x0 + block < c->nsw ? x0 + block : c->nsw;

		memset(col, VF_NO_PORT, (size_t)c->nsw * block);
		for (uint32_t x = x0; x < x1; x++)
			if (c->sw_lid[x])
				switch_lid_bfs(c, x, col + (x - x0), block);
		for (uint32_t n = 0; n < c->nsw; n++) {
			uint8_t *row = vf_lft_row(t, n);

			for (uint32_t x = x0; x < x1; x++) {
				uint8_t out = col[(size_t)n * block + x - x0];

				if (!c->sw_lid[x] || out == VF_NO_PORT)
					continue;
				for (unsigned l = 0; l < c->sw_lids[x]; l++)
					row[c->sw_lid[x] + l] = out;
			}
		}
	}
}

#ifdef FT_SELF_CHECK
/*
 * Tests only (t-fattree-seeded): the flow model's loads must be the loads
 * of the tables it wrote, or its choices were made on routes that do not
 * exist (an edge switch whose hosts have no LID once routed the previous
 * one's first destination again, to no table).  An error says how many
 * links differ; else a note gives the busiest link after `stage`, so the
 * test sees the passes lower it.  The model's loads are left as they were.
 */
static void check_model(struct ft_ctx *c, struct vf_lfts *t,
			const char *stage)
{
	size_t bytes = c->f->num_ports * sizeof(*c->flow);
	uint64_t *model = malloc(bytes ? bytes : 1);
	uint32_t differ = 0;

	if (!model)
		return;
	memcpy(model, c->flow, bytes);
	tables_load(c, t);
	for (uint32_t p = 0; p < c->f->num_ports; p++)
		differ += c->port_next[p] != VF_NONE && model[p] != c->flow[p];
	memcpy(c->flow, model, bytes);
	free(model);
	if (differ)
		vf_log(VF_LOG_ERROR,
		       "fattree: self-check: the model's load differs from the tables' on %u links",
		       differ);
	else
		vf_log(VF_LOG_INFO,
		       "fattree: self-check: %s%s: busiest link %llu",
		       stage, c->seeded ? " (seeded)" : "",
		       (unsigned long long)link_load(c).max);
}
#else
static void check_model(struct ft_ctx *c, struct vf_lfts *t,
			const char *stage)
{
	(void)c;
	(void)t;
	(void)stage;
}
#endif

/* One pass over every edge switch, the flow model on or off. */
static bool first_pass(struct ft_ctx *c, struct vf_lfts *t, bool model,
		       bool tie_by_link)
{
	size_t ports = c->f->num_ports ? c->f->num_ports : 1;

	c->flow_model = model;
	c->tie_by_link = tie_by_link;
	memset(c->flow, 0, ports * sizeof(*c->flow));
	memset(c->base_routed, 0, ports * sizeof(*c->base_routed));
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
	bool both = model && 2 * flow_pass_work(c) <= FT_FLOW_WORK_MAX;
	uint64_t budget = both ? FT_FLOW_WORK_MAX / 2 : pass_budget(c);
	struct ft_load first;
	uint8_t *kept;

	/* the first link's tie rule first: it often reaches the bound */
	vf_log_progress("pass 1/%u%s", FT_FLOW_PASSES,
			model ? " (flow model)" : "");
	if (!first_pass(c, t, model, both))
		return false;
	if (!model)
		return true;
	check_model(c, t, "first pass");
	if (improve_by_flow(c, t, budget))
		return false;
	check_model(c, t, "passes");
	if (!both)
		return true;
	first = tables_load(c, t);
	if (first.max <= edge_bound(c))
		return true;
	kept = tables_save(t);
	if (!kept)
		return true;
	vf_log_progress("pass 1/%u (flow model, rotation ties)",
			FT_FLOW_PASSES);
	first_pass(c, t, true, false);
	if (improve_by_flow(c, t, budget) ||
	    !lighter(tables_load(c, t), first))
		tables_restore(t, kept);
	free(kept);
	return true;
}

static int cmp_u64(const void *a, const void *b)
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
 * on fabrics whose edge switches span chassis, and on every full tree
 * whose first pass of the model is affordable, the rotation's tables are
 * weighed and, above the leaf bound, the model runs too; the tables whose
 * busiest link is lighter are kept (measured on 3 chassis with 18 edge
 * switches: rotation 540, flow model 204, the bound; 7 pods of 5 leaves
 * and 3 aggregation switches: rotation 510, model 417, the bound);
 * degraded trees take the model alone.  Either stops early once it
 * reaches the leaf bound.
 */
static int better_of_both(struct ft_ctx *c, struct vf_lfts *t)
{
	uint8_t *rotation = tables_save(t);
	struct ft_load by_rotation, by_model;

	if (!rotation)
		return -ENOMEM;
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
		tables_restore(t, rotation);
	free(rotation);
	return 0;
}


static void ctx_free(struct ft_ctx *c)
{
	vf_sticky_free(&c->sticky);
	vf_swgraph_free(&c->g);
	free(c->level);
	free(c->pos);
	free(c->sib);
	free(c->lead);
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
	free(c->flow);
	free(c->hosts);
	free(c->flow_order);
	free(c->cand_start);
	free(c->cand_pool);
	free(c->via_port);
	free(c->via_next);
	free(c->entries);
	free(c->block_lid);
	free(c->block_at);
	free(c->first_port);
	free(c->forced);
	free(c->path_most);
	free(c->through);
	free(c->hot_sw);
	free(c->in_hot_sw);
	free(c->seed_idx);
	free(c->num_ports);
	free(c->port_next);
	free(c->hot_lid);
	free(c->cand);
	free(c->down_port);
	free(c->up_end);
	free(c->down_end);
	free(c->full_up);
	free(c->full_down);
	free(c->dests);
	free(c->hop_next);
	free(c->follow_thr);
	free(c->hop_back);
	free(c->sw_lid);
	free(c->sw_lids);
	free(c->lid_cols);
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
	c->sib = malloc(n * sizeof(*c->sib));
	c->lead = malloc(n * sizeof(*c->lead));
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
	c->flow = calloc(f->num_ports ? f->num_ports : 1, sizeof(*c->flow));
	c->hosts = calloc(n, sizeof(*c->hosts));
	c->flow_order = malloc(n * sizeof(*c->flow_order));
	c->cand_start = malloc((n + 1) * sizeof(*c->cand_start));
	c->cand_pool = malloc((c->g.hop_start[c->nsw] ? c->g.hop_start[c->nsw] : 1) *
			      sizeof(*c->cand_pool));
	c->via_port = malloc(n * sizeof(*c->via_port));
	c->via_next = malloc(n * sizeof(*c->via_next));
	c->first_port = malloc(n * sizeof(*c->first_port));
	c->hot = UINT64_MAX;
	c->forced = calloc(n, sizeof(*c->forced));
	c->path_most = calloc(n, sizeof(*c->path_most));
	c->through = calloc(n, sizeof(*c->through));
	c->hot_sw = malloc(n * sizeof(*c->hot_sw));
	c->in_hot_sw = calloc(n, sizeof(*c->in_hot_sw));
	c->seed_idx = calloc(n, sizeof(*c->seed_idx));
	c->num_ports = malloc(n * sizeof(*c->num_ports));
	c->port_next = malloc((f->num_ports ? f->num_ports : 1) *
			      sizeof(*c->port_next));
	c->cand = malloc((c->g.hop_start[c->nsw] ? c->g.hop_start[c->nsw] : 1) *
			 sizeof(*c->cand));
	c->down_port = malloc(n * sizeof(*c->down_port));
	c->up_end = malloc(n * sizeof(*c->up_end));
	c->down_end = malloc(n * sizeof(*c->down_end));
	c->dests = malloc(VF_MAX_PORTS * sizeof(*c->dests));
	c->entries_cap = entries_cap(c);
	c->entries = malloc((size_t)c->entries_cap * n);
	c->block_lid = malloc(c->entries_cap * sizeof(*c->block_lid));
	c->block_at = malloc(c->entries_cap * sizeof(*c->block_at));
	c->hop_next = malloc((c->g.hop_start[c->nsw] ? c->g.hop_start[c->nsw] : 1) *
			     sizeof(*c->hop_next));
	c->hop_back = malloc(c->g.hop_start[c->nsw] ? c->g.hop_start[c->nsw] : 1);
	c->sw_lid = malloc(n * sizeof(*c->sw_lid));
	c->sw_lids = malloc(n);
	c->lid_cols = malloc((size_t)n * lid_block(c));
	c->full_up = malloc(n * sizeof(*c->full_up));
	c->full_down = malloc(n * sizeof(*c->full_down));
	if (!c->level || !c->pos || !c->sib || !c->lead || !c->by_level ||
	    !c->edges || !c->rank ||
	    !c->down || !c->ud || !c->any || !c->edge ||
	    !c->queue || !c->group || !c->base_routed ||
	    !c->flow || !c->hosts || !c->flow_order || !c->cand_start ||
	    !c->cand_pool || !c->cand || !c->via_port || !c->via_next ||
	    !c->first_port || !c->num_ports || !c->seed_idx ||
	    !c->forced || !c->path_most || !c->through ||
	    !c->hot_sw || !c->in_hot_sw || !c->port_next ||
	    !c->down_port ||
	    !c->up_end || !c->down_end ||
	    !c->full_up || !c->full_down || !c->dests || !c->entries ||
	    !c->block_lid || !c->block_at ||
	    !c->hop_next || !c->hop_back || !c->sw_lid || !c->sw_lids ||
	    !c->lid_cols)
		return -ENOMEM;
	for (uint32_t s = 0; s < c->nsw; s++) {
		const struct vf_node *sw = &f->nodes[f->switches[s]];

		c->down_port[s] = VF_NONE;
		c->via_port[s] = VF_NONE;
		c->sw_lid[s] = vf_node_port(f, sw, 0)->base_lid;
		c->sw_lids[s] = 1u << vf_node_port(f, sw, 0)->lmc;
		c->first_port[s] = sw->first_port;
		c->num_ports[s] = sw->num_ports;
		c->edge[s] = vf_has_end_node(f, s);
		for (unsigned i = 1; i <= sw->num_ports; i++) {
			const struct vf_port *peer =
				vf_usable_peer(f, vf_node_port(f, sw, i));

			c->hosts[s] += peer &&
				       !vf_is_switch(&f->nodes[peer->node]);
		}
	}
	for (uint32_t i = 0; i < f->num_ports; i++) {
		const struct vf_port *peer = vf_usable_peer(f, &f->ports[i]);

		c->port_next[i] = peer && vf_is_switch(&f->nodes[f->ports[i].node]) &&
				  vf_is_switch(&f->nodes[peer->node]) ?
				  f->nodes[peer->node].sw : VF_NONE;
	}
	if (vf_sticky_init(&c->sticky, f, opts->previous))
		return -ENOMEM;
	if (vf_tenancy_init(&c->ten, f, &c->g, opts->traffic,
			    opts->partition_routing))
		return -ENOMEM;
	assign_levels(c);
	split_directions(c);
	/* (in the order split_directions() sorted them to) */
	for (uint32_t h = 0; h < c->g.hop_start[c->nsw]; h++) {
		c->hop_next[h] = c->g.hops[h].next_sw;
		c->hop_back[h] = f->ports[f->ports[c->g.hops[h].port].remote].num;
	}
	order_tiers(c);
	c->degraded = is_degraded(c);
	c->floor = vf_swgraph_tier_bound(&c->g, c->hosts);
	if (edge_bound(c) > c->floor)
		c->floor = edge_bound(c);
	rank_ports(c);
	c->model_ok = top_level(c) >= 1;
	c->seeded = first_pass_seeded(c);
	if (c->seeded) {
		c->follow_dests = 1;	/* an edge switch's: its hosts */
		for (uint32_t s = 0; s < c->nsw; s++)
			if (c->hosts[s] > c->follow_dests)
				c->follow_dests = c->hosts[s];
		c->follow_thr = malloc(n * c->follow_dests *
				       sizeof(*c->follow_thr));
		if (!c->follow_thr)
			return -ENOMEM;
	}
	return 0;
}

int vf_route_fattree(const struct vf_fabric *f,
		     const struct vf_route_opts *opts, struct vf_lfts *t)
{
	if (opts->partition_routing == VF_PROUTE_BALANCE && opts->traffic)
		return vf_route_best_for_classes(f, opts, t, route_fattree);
	return route_fattree(f, opts, t);
}

/* Rank the destinations with siblings together, or in tier order. */
static void rank_edges(struct ft_ctx *c, bool by_siblings)
{
	c->rank_by_siblings = by_siblings;
	qsort_r(c->edges, c->num_edges, sizeof(*c->edges), cmp_edge, c);
	rank_ports(c);
}

/*
 * A tree whose tiers are alike: the rotation, and where it is worth
 * trying, the flow model too (better_of_both()).  False in *tree when the
 * fabric is not a tree.
 */
static int route_full_tree(struct ft_ctx *c, struct vf_lfts *t, bool *tree)
{
	*tree = route_all(c, t, false);
	/* RouteLast asks for the rotation's order: kept on full trees */
	if (*tree && c->model_ok &&
	    ((!c->seeded && !c->opts->route_last.count) ||
	     edges_span_chassis(c)))
		return better_of_both(c, t);
	return 0;
}

/*
 * Where siblings are not neighbours in the tier (director fabrics cabled
 * round-robin), ranking them together suits the rotation and not always
 * the flow model, so the tree is routed again with the destinations in
 * tier order and the lighter tables kept: over 880 generated director
 * fabrics (2-6 chassis, 1-3 uplinks per chassis), 721 reached the lower
 * bound ranked by siblings alone, 709 in tier order alone, and the old
 * rotation (place in the tier) 662.
 */
static int route_both_rankings(struct ft_ctx *c, struct vf_lfts *t,
			       bool *tree)
{
	struct ft_load by_siblings;
	uint8_t *kept;
	int rc = route_full_tree(c, t, tree);

	if (rc || !*tree || !siblings_apart(c))
		return rc;
	by_siblings = tables_load(c, t);
	if (by_siblings.max <= edge_bound(c))
		return 0;
	kept = tables_save(t);
	if (!kept)
		return 0;	/* the tables routed stand */
	rank_edges(c, false);
	rc = route_full_tree(c, t, tree);
	if (rc || !*tree || !lighter(tables_load(c, t), by_siblings)) {
		tables_restore(t, kept);
		*tree = true;
	}
	free(kept);
	return 0;
}

/* The busiest link of the busiest LID offset. */
static uint64_t offsets_max(struct ft_ctx *c, struct vf_lfts *t,
			    unsigned lids)
{
	uint64_t most = 0;

	for (unsigned l = 0; l < lids; l++) {
		uint64_t m = offset_load(c, t, l).max;

		if (m > most)
			most = m;
	}
	return most;
}

/*
 * search(), and with LMC the other LIDs chosen again from the moved base
 * LIDs; the search balances the base LIDs only, so its tables are kept
 * only if no LID offset's busiest link got busier (an audit found the
 * offsets of 3 chassis at [146,146,146,146] moved to [144,144,156,144]).
 */
static void search_keeping_offsets(struct ft_ctx *c, struct vf_lfts *t)
{
	unsigned lids = max_lids(c);
	uint64_t before = 0;
	uint8_t *kept = NULL;

	if (lids > 1) {
		if (sweep_work(c) > FT_FLOW_WORK_MAX)
			return;
		kept = tables_save(t);
		if (!kept)
			return;
		before = offsets_max(c, t, lids);
	}
	if (search(c, t) && lids > 1) {
		alternates_by_flow(c, t);
		if (offsets_max(c, t, lids) > before)
			tables_restore(t, kept);
	}
	free(kept);
}

/*
 * The search moves single entries wherever the tables allow: not where a
 * previous routing is to be kept, where tenants' routes are confined or
 * where RouteLast asks for the rotation's order.
 */
static bool search_fits(const struct ft_ctx *c)
{
	return c->model_ok && !c->sticky.row && c->ten.mode == VF_PROUTE_OFF &&
	       !c->opts->route_last.count;
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
		/* the flow model, ranked in tier order: siblings together
		 * gave 32,184 against 31,992 on 27,648 hosts missing 1% */
		rank_edges(&c, false);
		tree = route_all(&c, t, true);
	} else {
		rc = route_both_rankings(&c, t, &tree);
	}
	if (!rc && tree && search_fits(&c))
		search_keeping_offsets(&c, t);
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
