// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * shortestpath: balanced min-hop routing, after the Omni-Path FM's engine
 * of the same name (reference/opa-fm.md sections 3.1 and 8.5).
 *
 * Destinations are routed one port at a time, grouped by the switch they
 * hang off (switches by GUID, ports by number), switch LIDs last: the FM
 * routes in LID order on its own LID assignment, which groups hosts by
 * switch, while OpenSM's discovery order interleaves them, and an engine
 * fed interleaved LIDs cannot line sibling switches up (measured: 488
 * against 384 on a 3-level tree, docs/routing.md).  Among the ports that
 * lie on a shortest healthy path, only the fastest links are kept.
 *
 * Each LID is routed by the switches that reach it farthest first, so a
 * switch knows its flow: how many CA ports' routes to the LID pass it.  It
 * takes the candidate whose next two links carry the least flow, then
 * whose own link does, then whose next switch receives the least
 * (sp_less()).  The FM counts routes instead; a route near the top of a
 * tree serves a whole pod and one near the bottom a leaf, and counting
 * them alike left 3-level trees whose k/2 is not a power of two at up to
 * twice the bound (docs/routing.md).  Routes to switch LIDs carry no flow
 * (management traffic only).
 *
 * Routes from a switch with CAs toward one destination switch also go in
 * rounds over the candidate ports (narrow_round()), which keeps the
 * all-to-all load even whatever order the LIDs come in.
 *
 * Where the busiest link stays above a lower bound every fabric has (a
 * tree with cables missing), a second rule that looks all the way to the
 * destination routes too, and the lighter tables are kept (route_ports()).
 *
 * The result depends only on the fabric (switches are visited by GUID,
 * destinations by attachment), not on LID assignment nor on the order the
 * subnet lists nodes in, so a re-sweep of an unchanged fabric, or an
 * offline run on its ibnetdiscover output, reproduces the same tables.
 *
 * dgshortestpath is this engine with device groups of a RoutingOrder
 * routed first (see ports_in_order()); without one it is this engine.
 *
 * SpineFirstRouting (the FM's option of that name, on unless
 * opts->spine_first is off): on a switch chip of a director chassis, once
 * a port to another chip of the same chassis (same SystemImageGUID) is
 * among the shortest-path candidates, the others are dropped; see
 * candidates().
 *
 * Partition-aware (routing/internal/tenancy.h): each destination's balance class
 * has its own load counters per hop, compared first, so every class is
 * spread over the equal-cost ports on its own; with isolation a tenant's
 * destinations take hops to switches of that tenant (or of none) when
 * their candidates include such hops.
 *
 * With LMC > 0 the LIDs are routed offset by offset, each offset a pass
 * of its own with its own loads and rounds (route_offset()); base LIDs
 * route exactly as without LMC.  A switch with CAs sends LID k of a port
 * where LID k - 1 goes shifted by one candidate, to another chassis, else
 * another chip, else another port than LIDs 0..k-1 (alternate()): the LIDs
 * of one port leave by distinct routes where the topology has them, and
 * each offset is as balanced as the base LIDs.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/internal/classbest.h"
#include "devgroup.h"
#include "routing/internal/sticky.h"
#include "routing/internal/tenancy.h"
#include "engine.h"
#include "common/log.h"
#include "routing/internal/swgraph.h"

struct sp_ctx {
	struct vf_sticky sticky;	/* the previous routing, if any */
	const struct vf_fabric *f;
	uint32_t nsw;
	bool spine_first;	/* opts->spine_first */
	struct vf_swgraph g;	/* usable inter-switch hops, by switch */
	bool *spine;		/* [hop]: SpineFirstRouting, to our chassis */
	bool *multi;		/* [switch]: links to chips of 2+ chassis */
	uint16_t *dist;		/* [dst_sw * nsw + sw]: switch hops */
	uint32_t *order;	/* switches, edge switches first */
	struct vf_lfts *t;	/* the tables being written */
	uint32_t *far;		/* switches toward far_sw, farthest first */
	uint32_t *far_count;	/* [nsw + 1]: scratch for order_from_far() */
	uint32_t far_n, far_sw;
	uint32_t *sources;	/* per switch: CA ports that enter there */
	uint64_t *flow;		/* per switch: CA ports whose route to the
				 * current LID passes it, so far */
	unsigned offsets;	/* LID offsets: 2^LMC of the largest LMC */
	/* the current LID offset's, from all LIDs routed at it so far */
	uint64_t *load;		/* per hop: flow it carries */
	uint64_t *into;		/* per switch: flow into it */
	uint32_t *routes;	/* per hop: CA LIDs routed out of it */
	const struct vf_hop **down;	/* per switch: its lightest hop */
	uint32_t *down_stamp;	/* per switch: cur_stamp when down[] was set */
	uint64_t max_load;	/* of any hop */
	/* the bottleneck rule (see route_ports()) */
	bool bottleneck;
	uint64_t *expect;	/* per switch: flow expected through it */
	uint32_t *expect_stamp;	/* per switch: cur_stamp of expect[] */
	uint32_t cur_stamp;	/* one per LID routed */
	uint32_t cur_dst;	/* the LID's switch */
	unsigned cur_base;	/* the LID's port's base LID */
	unsigned cur_off;	/* and its offset */
	/* per (switch, destination switch), mask_words words each, or NULL */
	uint64_t *cand;		/* the fastest shortest-path hops */
	uint64_t *round;	/* those used in the current round */
	unsigned mask_words;	/* 64-bit words for the most hops of a switch */
	struct vf_tenancy ten;	/* partition-aware routing, or mode OFF */
	uint32_t *class_routed;	/* [hop * num_classes + class]: base LIDs */
	uint16_t cur_class;	/* the destination's, VF_TENANCY_NONE */
	uint16_t cur_tenant;
	uint32_t last_sw;	/* the previous destination's switch */
	uint16_t last_class;	/* and class */
};

/* Above this the per-class counters are not kept (logged): all-to-all. */
#define SP_CLASS_MEMORY_MAX (256ull << 20)

static uint32_t class_load(const struct sp_ctx *c, const struct vf_hop *h)
{
	return c->class_routed[(size_t)(h - c->g.hops) * c->ten.num_classes +
			       c->cur_class];
}

/* Above this the masks are not kept and rounds are skipped (logged). */
#define SP_MASK_MEMORY_MAX (512ull << 20)

/*
 * Node a and switch number sw are chips of one director chassis.
 * SystemImageGUID 0 means "not given" (a net file without sysimgguid=,
 * some standalone switches), not a chassis shared by every such switch.
 */
static bool same_chassis(const struct vf_fabric *f, const struct vf_node *a,
			 uint32_t sw)
{
	return a->sysimg_guid &&
	       a->sysimg_guid == f->nodes[f->switches[sw]].sysimg_guid;
}

/* Does hop go to a chip of our own chassis (SpineFirstRouting)? */
static bool spine_hop(const struct sp_ctx *c, const struct vf_hop *hop)
{
	return c->spine[hop - c->g.hops];
}

static int build_hops(struct sp_ctx *c)
{
	const struct vf_fabric *f = c->f;
	uint32_t spines = 0;

	if (vf_swgraph_init(&c->g, f))
		return -ENOMEM;
	c->spine = calloc(c->g.hop_start[c->nsw] ? c->g.hop_start[c->nsw] : 1,
			  sizeof(*c->spine));
	if (!c->spine)
		return -ENOMEM;
	for (uint32_t s = 0; s < c->nsw && c->spine_first; s++) {
		const struct vf_node *node = &f->nodes[f->switches[s]];

		for (uint32_t h = c->g.hop_start[s]; h < c->g.hop_start[s + 1];
		     h++) {
			/*
			 * The FM's test: the neighbour shares our
			 * SystemImageGUID.  The internal neighbours of a
			 * leaf chip are exactly the spine chips; a spine
			 * chip links only to leaf chips of its chassis, so
			 * all its candidates pass and nothing changes there.
			 */
			c->spine[h] = same_chassis(f, node, c->g.hops[h].next_sw);
			spines += c->spine[h];
		}
	}
	if (spines)
		vf_log(VF_LOG_DEBUG,
		       "shortestpath: SpineFirstRouting: %u links between chips of a chassis (counted from both ends)",
		       spines);
	return 0;
}

/* The chassis of switch number sw: its SystemImageGUID, else itself. */
static uint64_t chassis_of(const struct vf_fabric *f, uint32_t sw)
{
	uint64_t sys = f->nodes[f->switches[sw]].sysimg_guid;

	return sys ? sys : ~(uint64_t)sw;
}

/*
 * Is switch s wired to several chassis, and to two chips of one of them
 * (an edge switch of director fabrics)?  Its candidate sets then differ
 * between destinations, which a shift of the base LIDs' choices does not
 * keep balanced (see alternate()).
 */
static bool spans_chassis(const struct sp_ctx *c, uint32_t s)
{
	bool span = false, shared = false;

	for (uint32_t a = c->g.hop_start[s]; a < c->g.hop_start[s + 1]; a++) {
		for (uint32_t b = c->g.hop_start[s]; b < a; b++) {
			uint32_t x = c->g.hops[a].next_sw, y = c->g.hops[b].next_sw;
			bool same = chassis_of(c->f, x) == chassis_of(c->f, y);

			span |= !same;
			shared |= same && x != y;
		}
	}
	return span && shared;
}

static int find_multi_chassis(struct sp_ctx *c)
{
	c->multi = calloc(c->nsw ? c->nsw : 1, sizeof(*c->multi));
	if (!c->multi)
		return -ENOMEM;
	for (uint32_t s = 0; s < c->nsw; s++)
		c->multi[s] = spans_chassis(c, s);
	return 0;
}

/* 2^LMC of the port with the largest LMC. */
static unsigned lid_offsets(const struct vf_fabric *f)
{
	unsigned lmc = 0;

	for (uint32_t i = 0; i < f->num_ports; i++)
		if (f->ports[i].base_lid && f->ports[i].lmc > lmc)
			lmc = f->ports[i].lmc;
	return 1u << lmc;
}

/*
 * The per-LID flow and the load counters (reset for each LID offset, which
 * is balanced on its own).
 */
static int build_loads(struct sp_ctx *c)
{
	const struct vf_fabric *f = c->f;
	size_t hops = c->g.hop_start[c->nsw], nsw = c->nsw ? c->nsw : 1;

	c->offsets = lid_offsets(f);
	c->far = calloc(nsw, sizeof(*c->far));
	c->far_count = calloc(nsw + 1, sizeof(*c->far_count));
	c->sources = calloc(nsw, sizeof(*c->sources));
	c->flow = calloc(nsw, sizeof(*c->flow));
	c->load = calloc(hops ? hops : 1, sizeof(*c->load));
	c->into = calloc(nsw, sizeof(*c->into));
	c->routes = calloc(hops ? hops : 1, sizeof(*c->routes));
	c->down = calloc(nsw, sizeof(*c->down));
	c->down_stamp = calloc(nsw, sizeof(*c->down_stamp));
	c->expect = calloc(nsw, sizeof(*c->expect));
	c->expect_stamp = calloc(nsw, sizeof(*c->expect_stamp));
	if (!c->far || !c->far_count || !c->sources || !c->flow ||
	    !c->load || !c->into || !c->routes || !c->down ||
	    !c->down_stamp || !c->expect || !c->expect_stamp)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->num_ports; i++) {
		const struct vf_port *p = &f->ports[i];
		const struct vf_port *peer = vf_usable_peer(f, p);

		if (peer && !vf_is_switch(&f->nodes[p->node]) &&
		    vf_is_switch(&f->nodes[peer->node]))
			c->sources[f->nodes[peer->node].sw]++;
	}
	return 0;
}

/* Breadth-first search from every switch (links are symmetric). */
static int build_distances(struct sp_ctx *c)
{
	uint32_t nsw = c->nsw, *queue;

	c->dist = malloc((size_t)nsw * nsw * sizeof(*c->dist));
	queue = malloc((nsw ? nsw : 1) * sizeof(*queue));
	if (c->dist && queue)
		for (uint32_t d = 0; d < nsw; d++)
			vf_swgraph_bfs(&c->g, d, c->dist + (size_t)d * nsw,
				       queue);
	free(queue);
	return c->dist ? 0 : -ENOMEM;
}

static int cmp_switch_guid(const void *a, const void *b, void *fabric)
{
	const struct vf_fabric *f = fabric;
	uint64_t x = f->nodes[f->switches[*(const uint32_t *)a]].guid;
	uint64_t y = f->nodes[f->switches[*(const uint32_t *)b]].guid;

	return x < y ? -1 : x > y;
}

/*
 * Edge switches first, then the rest, each by NodeGUID: the order decides
 * ties in the balance counters, and must not depend on the order in which
 * the subnet or a file listed the switches.
 */
static int build_order(struct sp_ctx *c)
{
	uint32_t k = 0;

	c->order = malloc((c->nsw ? c->nsw : 1) * sizeof(*c->order));
	if (!c->order)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		uint32_t first = k;

		for (uint32_t s = 0; s < c->nsw; s++) {
			bool edge = vf_has_end_node(c->f, s);

			if (edge == (pass == 0))
				c->order[k++] = s;
		}
		qsort_r(c->order + first, k - first, sizeof(*c->order),
			cmp_switch_guid, (void *)c->f);
	}
	return 0;
}

static bool on_shortest_path(const uint16_t *dist, uint32_t s,
			     const struct vf_hop *hop)
{
	return dist[hop->next_sw] + 1 == dist[s];
}

/* By destination first: routing one LID reads one block. */
static uint64_t *pair_mask(const struct sp_ctx *c, uint64_t *masks,
			   uint32_t s, uint32_t d)
{
	return masks + ((size_t)d * c->nsw + s) * c->mask_words;
}

/*
 * The fastest of the shortest-path hops from s toward d, as a mask of
 * their positions among s's hops; the same for every LID behind d, so
 * this is done once per pair.
 *
 * SpineFirstRouting comes before speed, as in the FM: once a hop to a chip
 * of s's own chassis is on a shortest path, only such hops are kept, even
 * if an external link is faster.  A leaf chip that may go leaf -> edge
 * switch (or other chassis) -> leaf as well as leaf -> spine -> leaf
 * otherwise mixes both, and the turns of the two kinds close a cycle of
 * channel dependencies (a credit loop).  With the filter every route
 * crosses a chassis up then down, and leaves it only from the leaf chip
 * that has the external link toward the destination.
 */
static void candidates(const struct sp_ctx *c, uint32_t s, uint32_t d,
		       uint64_t *mask)
{
	const uint16_t *dist = c->dist + (size_t)d * c->nsw;
	unsigned top = 0;
	bool spine = false;

	if (s == d || dist[s] == VF_DIST_INF)
		return;
	for (uint32_t h = c->g.hop_start[s]; h < c->g.hop_start[s + 1]; h++) {
		const struct vf_hop *hop = &c->g.hops[h];
		uint32_t i = h - c->g.hop_start[s];

		if (!on_shortest_path(dist, s, hop) || (spine && !spine_hop(c, hop)))
			continue;
		if (spine_hop(c, hop) && !spine) {
			/* the first spine hop outranks all seen before */
			spine = true;
			top = 0;
			memset(mask, 0, c->mask_words * sizeof(*mask));
		}
		if (hop->rate < top)
			continue;
		if (hop->rate > top)
			memset(mask, 0, c->mask_words * sizeof(*mask));
		top = hop->rate;
		mask[i / 64] |= 1ull << (i % 64);
	}
}

static int build_candidates(struct sp_ctx *c)
{
	uint32_t most = 1;
	size_t n;

	for (uint32_t s = 0; s < c->nsw; s++)
		if (c->g.hop_start[s + 1] - c->g.hop_start[s] > most)
			most = c->g.hop_start[s + 1] - c->g.hop_start[s];
	c->mask_words = (most + 63) / 64;
	n = (size_t)c->nsw * c->nsw * c->mask_words;
	if (n * 2 * sizeof(uint64_t) > SP_MASK_MEMORY_MAX) {
		vf_log(VF_LOG_WARN,
		       "shortestpath: %u switches: per-destination rounds need too much memory; balancing by load counters only",
		       c->nsw);
		return 0;
	}
	c->cand = calloc(n ? n : 1, sizeof(*c->cand));
	c->round = calloc(n ? n : 1, sizeof(*c->round));
	if (!c->cand || !c->round)
		return -ENOMEM;
	for (uint32_t s = 0; s < c->nsw; s++)
		for (uint32_t d = 0; d < c->nsw; d++)
			candidates(c, s, d, pair_mask(c, c->cand, s, d));
	return 0;
}

/* Partition-aware routing: the tenancy and the per-class counters. */
static int init_classes(struct sp_ctx *c, const struct vf_route_opts *opts)
{
	size_t n;

	c->cur_class = c->cur_tenant = c->last_class = VF_TENANCY_NONE;
	c->last_sw = VF_NONE;
	if (vf_tenancy_init(&c->ten, c->f, &c->g, opts->traffic,
			    opts->partition_routing))
		return -ENOMEM;
	if (c->ten.mode == VF_PROUTE_OFF)
		return 0;
	n = (size_t)c->g.hop_start[c->nsw] * c->ten.num_classes;
	if (n * sizeof(*c->class_routed) > SP_CLASS_MEMORY_MAX) {
		vf_log(VF_LOG_WARN,
		       "shortestpath: %u classes on %u links: per-class balance needs too much memory; classes balanced together",
		       c->ten.num_classes, c->g.hop_start[c->nsw]);
		return 0;
	}
	c->class_routed = calloc(n ? n : 1, sizeof(*c->class_routed));
	return c->class_routed ? 0 : -ENOMEM;
}

static void ctx_free(struct sp_ctx *c)
{
	vf_sticky_free(&c->sticky);
	vf_swgraph_free(&c->g);
	free(c->spine);
	free(c->multi);
	free(c->dist);
	free(c->order);
	free(c->far);
	free(c->far_count);
	free(c->sources);
	free(c->flow);
	free(c->load);
	free(c->into);
	free(c->routes);
	free(c->down);
	free(c->down_stamp);
	free(c->expect);
	free(c->expect_stamp);
	free(c->round);
	free(c->cand);
	free(c->class_routed);
	vf_tenancy_free(&c->ten);
}

static int ctx_init(struct sp_ctx *c, const struct vf_fabric *f,
		    const struct vf_route_opts *opts)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->f = f;
	c->nsw = f->num_switches;
	c->far_sw = VF_NONE;
	c->spine_first = opts && opts->spine_first;
	rc = build_hops(c);
	if (!rc)
		rc = find_multi_chassis(c);
	if (!rc)
		rc = build_loads(c);
	if (!rc)
		rc = build_distances(c);
	if (!rc)
		rc = build_order(c);
	if (!rc)
		rc = build_candidates(c);
	if (!rc)
		rc = vf_sticky_init(&c->sticky, f, opts ? opts->previous : NULL);
	if (!rc && opts)
		rc = init_classes(c, opts);
	return rc;
}

/*
 * Where a destination port sits: its switch, and the egress port number on
 * that switch (0 for the switch's own LID).  False when it hangs off
 * nothing routable (unlinked, unhealthy, or a CA wired to a CA).
 */
static bool locate(const struct vf_fabric *f, const struct vf_port *dst,
		   uint32_t *dst_sw, uint8_t *last_port)
{
	const struct vf_node *owner = &f->nodes[dst->node];
	const struct vf_port *peer;

	if (vf_is_switch(owner)) {
		*dst_sw = owner->sw;
		*last_port = 0;
		return true;
	}
	peer = vf_usable_peer(f, dst);
	if (!peer || !vf_is_switch(&f->nodes[peer->node]))
		return false;
	*dst_sw = f->nodes[peer->node].sw;
	*last_port = peer->num;
	return true;
}

/* The flow hop h carries to the LIDs of the current offset. */
static uint64_t hop_load(const struct sp_ctx *c, const struct vf_hop *h)
{
	return c->load[h - c->g.hops];
}

/*
 * The hop of switch s toward dst_sw that carries the least flow, or NULL;
 * s has not routed the current LID yet.
 */
static const struct vf_hop *lightest(const struct sp_ctx *c, uint32_t s,
				     uint32_t dst_sw);

/*
 * The lightest hop of switch x toward the current LID, cached per LID: a
 * switch's hops are loaded only when it routes, after every switch that
 * asks about it (farther switches first).
 */
static const struct vf_hop *lightest_cached(const struct sp_ctx *c,
					    uint32_t x)
{
	struct sp_ctx *m = (struct sp_ctx *)c;	/* a cache, not state */

	if (c->down_stamp[x] != c->cur_stamp) {
		m->down[x] = lightest(c, x, c->cur_dst);
		m->down_stamp[x] = c->cur_stamp;
	}
	return c->down[x];
}

/*
 * The load a route taking h meets one switch further: the flow the next
 * switch has already been given toward the current LID, on its lightest
 * hop (it chooses later).  Zero when the next switch is the destination's.
 */
static uint64_t down_load(const struct sp_ctx *c, const struct vf_hop *h)
{
	const struct vf_hop *l;

	if (h->next_sw == c->cur_dst)
		return 0;
	l = lightest_cached(c, h->next_sw);
	return (l ? hop_load(c, l) : 0) + c->flow[h->next_sw];
}

/* The flow expected through switch x toward the current LID. */
static uint64_t expected(const struct sp_ctx *c, uint32_t x)
{
	return c->expect_stamp[x] == c->cur_stamp ? c->expect[x] : 0;
}

/*
 * The bottleneck rule: the busiest link a route meets from switch x on,
 * following each switch's lightest hop, with the flow expected there.
 */
static uint64_t chain_load(const struct sp_ctx *c, uint32_t x)
{
	uint64_t worst = 0;

	for (uint32_t d = 0; x != c->cur_dst && d < c->nsw; d++) {
		const struct vf_hop *l = lightest_cached(c, x);
		uint64_t v = (l ? hop_load(c, l) : 0) + expected(c, x);

		if (v > worst)
			worst = v;
		if (!l)
			break;
		x = l->next_sw;
	}
	return worst;
}

/*
 * Add (sign > 0) or take back flow w expected from switch x on, along the
 * lightest hops chain_load() follows: what the switches that have routed
 * send toward switches that have not.
 */
static void expect_from(struct sp_ctx *c, uint32_t x, uint64_t w, int sign)
{
	for (uint32_t d = 0; x != c->cur_dst && d < c->nsw; d++) {
		const struct vf_hop *l = lightest_cached(c, x);

		if (c->expect_stamp[x] != c->cur_stamp) {
			c->expect[x] = 0;
			c->expect_stamp[x] = c->cur_stamp;
		}
		if (sign > 0)
			c->expect[x] += w;
		else
			c->expect[x] -= w < c->expect[x] ? w : c->expect[x];
		if (!l)
			break;
		x = l->next_sw;
	}
}

/*
 * The busier of the links a route from switch s taking h crosses next:
 * its own and the next switch's; with the bottleneck rule, at a switch
 * with CAs, all the way along the lightest hops.
 */
static uint64_t path_load(const struct sp_ctx *c, uint32_t s,
			  const struct vf_hop *h)
{
	uint64_t own = hop_load(c, h), next;

	if (c->bottleneck && c->sources[s])
		next = h->next_sw == c->cur_dst ? 0 : chain_load(c, h->next_sw);
	else
		next = down_load(c, h);
	return own > next ? own : next;
}

/*
 * The fastest shortest-path hops from s toward one destination switch,
 * and, once narrow_bottleneck() has computed them, their path_load().
 */
struct sp_cands {
	unsigned n;
	bool has_path;
	const struct vf_hop *hop[VF_MAX_PORTS];
	uint64_t path[VF_MAX_PORTS];
};

/* Keep candidate i as the n-th. */
static void keep(struct sp_cands *cs, unsigned n, unsigned i)
{
	cs->hop[n] = cs->hop[i];
	cs->path[n] = cs->path[i];
}

/* What choose() compares candidates by, best first (see sp_less()). */
struct sp_key {
	uint64_t cls;		/* partition-aware: the class's routes */
	uint64_t path;		/* the busier of the next two links */
	uint64_t own;		/* the candidate's own link */
	uint64_t into;		/* into its next switch */
	uint32_t routes;	/* CA LIDs routed out of it */
	uint8_t num;		/* its port number */
};

static void key_of(const struct sp_ctx *c, uint32_t s,
		   const struct sp_cands *cs, unsigned i, struct sp_key *k)
{
	const struct vf_hop *h = cs->hop[i];

	k->cls = c->class_routed && c->cur_class != VF_TENANCY_NONE &&
		 !c->cur_off ? class_load(c, h) : 0;
	k->path = cs->has_path ? cs->path[i] : path_load(c, s, h);
	k->own = hop_load(c, h);
	k->into = c->into[h->next_sw];
	k->routes = c->routes[h - c->g.hops];
	k->num = h->num;
}

/*
 * Is a better than b?  The destination's class first (partition-aware
 * routing), then the candidate whose next two links carry the least flow
 * (sources served) to the LIDs of this offset, then whose own link does,
 * then whose next switch receives the least, then the one that carries the
 * fewest CA LIDs (this spreads the routes of switches no CA's traffic
 * passes), then the lower port number.
 *
 * Flow, not a count of routes: a route at an aggregation switch may serve
 * one leaf's hosts or a whole pod's, and counting both as one made the
 * busiest link of 3-level trees up to twice the bound when k/2 is not a
 * power of two.  The next link too: on a 2-level tree a leaf's choice
 * fixes the spine's downlink, and balancing the uplinks alone leaves the
 * downlinks uneven when the hosts of a leaf do not divide among the spines.
 */
static bool sp_less(const struct sp_key *a, const struct sp_key *b)
{
	if (a->cls != b->cls)
		return a->cls < b->cls;
	if (a->path != b->path)
		return a->path < b->path;
	if (a->own != b->own)
		return a->own < b->own;
	if (a->into != b->into)
		return a->into < b->into;
	if (a->routes != b->routes)
		return a->routes < b->routes;
	return a->num < b->num;
}

/*
 * The candidates() rule without the masks (fabrics too big for them):
 * spine hops first, then the fastest.
 */
static void scan_candidates(const struct sp_ctx *c, uint32_t s,
			    uint32_t dst_sw, struct sp_cands *out)
{
	const uint16_t *dist = c->dist + (size_t)dst_sw * c->nsw;
	unsigned top = 0;
	bool spine = false;

	out->n = 0;
	out->has_path = false;
	for (uint32_t h = c->g.hop_start[s]; h < c->g.hop_start[s + 1]; h++) {
		const struct vf_hop *hop = &c->g.hops[h];

		if (!on_shortest_path(dist, s, hop) ||
		    (spine && !spine_hop(c, hop)))
			continue;
		if ((spine_hop(c, hop) && !spine) || hop->rate > top)
			out->n = 0;
		if (spine_hop(c, hop))
			spine = true;
		if (hop->rate < top && out->n)
			continue;
		top = hop->rate;
		out->hop[out->n++] = hop;
	}
}

/* The candidates of s toward dst_sw, from the masks when there are any. */
static void collect(const struct sp_ctx *c, uint32_t s, uint32_t dst_sw,
		    struct sp_cands *out)
{
	const struct vf_hop *first = &c->g.hops[c->g.hop_start[s]];
	const uint64_t *cand;

	out->has_path = false;
	if (s == dst_sw || c->dist[(size_t)dst_sw * c->nsw + s] == VF_DIST_INF) {
		out->n = 0;
		return;
	}
	if (!c->cand) {
		scan_candidates(c, s, dst_sw, out);
		return;
	}
	cand = pair_mask(c, c->cand, s, dst_sw);
	out->n = 0;
	for (unsigned w = 0; w < c->mask_words; w++)
		for (uint64_t m = cand[w]; m; m &= m - 1)
			out->hop[out->n++] = first + w * 64 +
					     __builtin_ctzll(m);
}

/* Keep the candidates for which pass() holds, unless that leaves none. */
static void narrow(const struct sp_ctx *c, uint32_t s, struct sp_cands *cs,
		   bool (*pass)(const struct sp_ctx *, uint32_t,
				const struct vf_hop *, unsigned),
		   unsigned arg)
{
	unsigned n = 0;

	for (unsigned i = 0; i < cs->n; i++)
		if (pass(c, s, cs->hop[i], arg))
			keep(cs, n++, i);
	if (n)
		cs->n = n;
}

static bool allowed(const struct sp_ctx *c, const struct vf_hop *hop)
{
	return vf_tenancy_allows(&c->ten, c->cur_tenant, hop->next_sw);
}

/* Isolation: a hop to a switch of the destination's tenant, or nobody's. */
static bool keep_allowed(const struct sp_ctx *c, uint32_t s,
			 const struct vf_hop *h, unsigned unused)
{
	(void)s;
	(void)unused;
	return allowed(c, h);
}

/*
 * LMC: how many of the port's earlier LIDs (already in the LFTs) leave s
 * toward the same chassis as h, the same chip, by the same port; packed so
 * that the lowest value is the hop that sets this LID furthest apart
 * (another chassis, else another chip, else another port).
 */
static unsigned spread_rank(const struct sp_ctx *c, uint32_t s,
			    const struct vf_hop *h)
{
	const struct vf_fabric *f = c->f;
	const struct vf_node *node = &f->nodes[f->switches[s]];
	const uint8_t *row = vf_lft_row(c->t, s) + c->cur_base;
	uint64_t chassis = chassis_of(f, h->next_sw);
	unsigned n_chassis = 0, n_chip = 0, n_port = 0;

	for (unsigned k = 0; k < c->cur_off; k++) {
		uint32_t next;

		if (!row[k] || row[k] > node->num_ports)
			continue;
		next = vf_peer_switch(f, vf_node_port(f, node, row[k]));
		if (next == VF_NONE)
			continue;
		n_chassis += chassis_of(f, next) == chassis;
		n_chip += next == h->next_sw;
		n_port += row[k] == h->num;
	}
	return n_chassis << 16 | n_chip << 8 | n_port;
}

static bool keep_spread(const struct sp_ctx *c, uint32_t s,
			const struct vf_hop *h, unsigned rank)
{
	return spread_rank(c, s, h) == rank;
}

/* LMC: only the candidates that set this LID furthest from the earlier. */
static void narrow_spread(const struct sp_ctx *c, uint32_t s,
			  struct sp_cands *cs)
{
	unsigned best = UINT32_MAX;

	for (unsigned i = 0; i < cs->n; i++) {
		unsigned r = spread_rank(c, s, cs->hop[i]);

		if (r < best)
			best = r;
	}
	narrow(c, s, cs, keep_spread, best);
}

/*
 * Routes from a switch with CAs toward one destination switch go in
 * rounds: a candidate used in the current round waits until every
 * candidate has had a route.  Without this, the least-loaded rotation of
 * a leaf can fall into step with the order of the LIDs (OpenSM interleaves
 * the hosts of several leaves) and send every host of one leaf through the
 * same spine.  Only there: every route of a leaf carries the same flow
 * (its hosts), while elsewhere flows differ and equal route counts would
 * mean unequal loads (a spine's trunk to a leaf).
 */
static void narrow_round(const struct sp_ctx *c, uint32_t s, uint32_t dst_sw,
			 struct sp_cands *cs)
{
	uint64_t *round = pair_mask(c, c->round, s, dst_sw);
	const struct vf_hop *first = &c->g.hops[c->g.hop_start[s]];
	unsigned n = 0;

	for (unsigned i = 0; i < cs->n; i++) {
		uint32_t k = cs->hop[i] - first;

		if (!(round[k / 64] & (1ull << (k % 64))))
			keep(cs, n++, i);
	}
	if (n) {
		cs->n = n;
		return;
	}
	/* every one of them had one: a new round */
	for (unsigned i = 0; i < cs->n; i++) {
		uint32_t k = cs->hop[i] - first;

		round[k / 64] &= ~(1ull << (k % 64));
	}
}

/* The best candidate by sp_less(). */
static const struct vf_hop *best_of(const struct sp_ctx *c, uint32_t s,
				    const struct sp_cands *cs)
{
	struct sp_key best, k;
	unsigned at = 0;

	if (cs->n == 1)
		return cs->hop[0];
	key_of(c, s, cs, 0, &best);
	for (unsigned i = 1; i < cs->n; i++) {
		key_of(c, s, cs, i, &k);
		if (sp_less(&k, &best)) {
			best = k;
			at = i;
		}
	}
	return cs->hop[at];
}

/*
 * The bottleneck rule at a switch with CAs: before the rounds, only the
 * candidates whose path_load() is within one route (the switch's flow) of
 * the lightest.  The rounds alone would spread a leaf's routes evenly over
 * its uplinks even when a link further on has lost its capacity.
 */
static void narrow_bottleneck(const struct sp_ctx *c, uint32_t s,
			      struct sp_cands *cs)
{
	uint64_t least = UINT64_MAX;
	unsigned n = 0;

	for (unsigned i = 0; i < cs->n; i++) {
		cs->path[i] = path_load(c, s, cs->hop[i]);
		if (cs->path[i] < least)
			least = cs->path[i];
	}
	for (unsigned i = 0; i < cs->n; i++)
		if (cs->path[i] <= least + c->flow[s])
			keep(cs, n++, i);
	cs->n = n;
	cs->has_path = true;
}

/*
 * LMC, an alternate LID at a switch with CAs: of the candidates that set
 * it furthest apart from the port's earlier LIDs (another chassis, else
 * another chip, else another port), the one where LID k - 1 goes shifted
 * along the candidates (in port order) by the ports to LID k - 1's next
 * switch.  Then each offset leaves the switch as the base LIDs do, shifted
 * by one candidate: as balanced as the base LIDs, which choosing by load
 * is not (the last offsets, left no choice by the earlier LIDs, up to 1.3
 * times the bound on 3-level trees); shifting by a whole trunk keeps the
 * two ports of a trunk apart.  An edge switch wired to several chassis
 * has a different candidate set for almost every destination, so a shift
 * is not balanced there: it takes the best by load, in rounds.
 */
static const struct vf_hop *alternate(const struct sp_ctx *c, uint32_t s,
				      uint32_t dst_sw, struct sp_cands *cs)
{
	uint8_t prev = vf_lft_row(c->t, s)[c->cur_base + c->cur_off - 1];
	unsigned at = 0, trunk = 0;
	const struct vf_hop *target;

	for (unsigned i = 0; i < cs->n; i++)
		if (cs->hop[i]->num == prev)
			at = i;
	for (unsigned i = 0; i < cs->n; i++)
		trunk += cs->hop[i]->next_sw == cs->hop[at]->next_sw;
	target = cs->hop[(at + trunk) % cs->n];
	narrow_spread(c, s, cs);
	if (c->multi[s]) {
		if (c->round)
			narrow_round(c, s, dst_sw, cs);
		return best_of(c, s, cs);
	}
	for (unsigned i = 0; i < cs->n; i++)
		if (cs->hop[i] >= target)
			return cs->hop[i];
	return cs->hop[0];
}

/*
 * The best egress hop from switch s toward dst_sw, or NULL: among the
 * fastest of the shortest-path hops (with isolation, those to the
 * tenant's switches), an alternate LID at a switch with CAs takes the
 * alternate() one; any other LID the best by sp_less() of those open in
 * the round.
 */
static const struct vf_hop *choose(const struct sp_ctx *c, uint32_t s,
				   uint32_t dst_sw)
{
	struct sp_cands cs;

	collect(c, s, dst_sw, &cs);
	if (!cs.n)
		return NULL;
	if (c->ten.owner)
		narrow(c, s, &cs, keep_allowed, 0);
	if (c->cur_off && c->sources[s])
		return alternate(c, s, dst_sw, &cs);
	if (c->bottleneck && c->sources[s])
		narrow_bottleneck(c, s, &cs);
	if (c->round && c->sources[s])
		narrow_round(c, s, dst_sw, &cs);
	return best_of(c, s, &cs);
}

static const struct vf_hop *lightest(const struct sp_ctx *c, uint32_t s,
				     uint32_t dst_sw)
{
	const struct vf_hop *best = NULL;
	struct sp_cands cs;

	collect(c, s, dst_sw, &cs);
	for (unsigned i = 0; i < cs.n; i++)
		if (!best || hop_load(c, cs.hop[i]) < hop_load(c, best))
			best = cs.hop[i];
	return best;
}

/* Mark hop as used in the current round from s toward dst_sw. */
static void use_in_round(struct sp_ctx *c, uint32_t s, uint32_t dst_sw,
			 const struct vf_hop *hop)
{
	uint32_t i = hop - &c->g.hops[c->g.hop_start[s]];

	if (c->round)
		pair_mask(c, c->round, s, dst_sw)[i / 64] |= 1ull << (i % 64);
}

/*
 * The hop the previous routing took from s for lid, if it is still one of
 * today's candidates toward dst_sw (then keeping it is as correct as any
 * new choice); else NULL.  Needs the candidate masks.
 */
static const struct vf_hop *kept_hop(const struct sp_ctx *c, uint32_t s,
				     uint32_t dst_sw, unsigned lid)
{
	uint8_t port = vf_sticky_port(&c->sticky, s, lid);
	const uint64_t *cand;

	if (port == VF_NO_PORT || !c->cand)
		return NULL;
	cand = pair_mask(c, c->cand, s, dst_sw);
	for (uint32_t h = c->g.hop_start[s]; h < c->g.hop_start[s + 1]; h++) {
		uint32_t i = h - c->g.hop_start[s];

		if (c->g.hops[h].num == port)
			return cand[i / 64] & (1ull << (i % 64)) ?
			       &c->g.hops[h] : NULL;
	}
	return NULL;
}

/*
 * The switches that reach dst_sw, farthest first (edge switches first,
 * then by GUID, at each distance): a switch then routes after every
 * switch whose route may pass it, and knows the flow it forwards.
 */
static void order_from_far(struct sp_ctx *c, uint32_t dst_sw)
{
	const uint16_t *dist = c->dist + (size_t)dst_sw * c->nsw;
	uint32_t *count = c->far_count, n = 0;
	uint16_t top = 0;

	if (c->far_sw == dst_sw)
		return;
	memset(count, 0, ((size_t)c->nsw + 1) * sizeof(*count));
	for (uint32_t s = 0; s < c->nsw; s++) {
		if (dist[s] == VF_DIST_INF || !dist[s])
			continue;
		count[dist[s]]++;
		if (dist[s] > top)
			top = dist[s];
	}
	/* count[d] becomes the first slot of distance d */
	for (uint16_t d = top; d > 0; d--) {
		uint32_t k = count[d];

		count[d] = n;
		n += k;
	}
	for (uint32_t k = 0; k < c->nsw; k++) {
		uint32_t s = c->order[k];

		if (dist[s] != VF_DIST_INF && dist[s])
			c->far[count[dist[s]]++] = s;
	}
	c->far_n = n;
	c->far_sw = dst_sw;
}

/*
 * The bottleneck rule: s sends its flow w on hop.  What reached s from
 * switches that routed before was expected along s's lightest hops; it is
 * now expected from hop's next switch on, with s's own CAs' flow.
 */
static void expect_moved(struct sp_ctx *c, uint32_t s,
			 const struct vf_hop *hop, uint64_t w)
{
	const struct vf_hop *l = c->down_stamp[s] == c->cur_stamp ?
				 c->down[s] : NULL;

	if (l && w > c->sources[s] && l->next_sw != c->cur_dst)
		expect_from(c, l->next_sw, w - c->sources[s], -1);
	if (hop->next_sw != c->cur_dst)
		expect_from(c, hop->next_sw, w, +1);
}

/* Count the flow s forwards toward the current LID on hop. */
static void account(struct sp_ctx *c, uint32_t s, uint32_t dst_sw,
		    const struct vf_hop *hop, bool to_ca)
{
	uint64_t w = c->flow[s];

	c->routes[hop - c->g.hops] += to_ca;
	if (c->class_routed && !c->cur_off && to_ca &&
	    c->cur_class != VF_TENANCY_NONE)
		c->class_routed[(size_t)(hop - c->g.hops) *
				c->ten.num_classes + c->cur_class]++;
	if (!w)
		return;
	c->load[hop - c->g.hops] += w;
	if (c->load[hop - c->g.hops] > c->max_load)
		c->max_load = c->load[hop - c->g.hops];
	c->into[hop->next_sw] += w;
	c->flow[hop->next_sw] += w;
	if (c->bottleneck)
		expect_moved(c, s, hop, w);
	if (c->sources[s])
		use_in_round(c, s, dst_sw, hop);
}

/*
 * Route one LID, farther switches first.  The flow of a switch is the
 * number of CA ports whose route to a CA LID passes it (none to a switch
 * LID: those routes carry management traffic only and count toward no
 * balance).
 */
static void route_lid(struct sp_ctx *c, unsigned lid, uint32_t dst_sw,
		      uint8_t last_port, bool to_ca)
{
	order_from_far(c, dst_sw);
	c->cur_dst = dst_sw;
	c->cur_stamp++;
	for (uint32_t k = 0; k < c->far_n; k++)
		c->flow[c->far[k]] = to_ca ? c->sources[c->far[k]] : 0;
	vf_lft_row(c->t, dst_sw)[lid] = last_port;
	for (uint32_t k = 0; k < c->far_n; k++) {
		uint32_t s = c->far[k];
		const struct vf_hop *hop;

		hop = kept_hop(c, s, dst_sw, lid);
		if (hop && c->ten.owner && !allowed(c, hop))
			hop = NULL;	/* isolation outranks stability */
		if (!hop)
			hop = choose(c, s, dst_sw);
		if (!hop)
			continue;
		vf_lft_row(c->t, s)[lid] = hop->num;
		account(c, s, dst_sw, hop, to_ca);
	}
}

/* Every switch's rounds toward dst_sw start afresh. */
static void new_rounds(struct sp_ctx *c, uint32_t dst_sw)
{
	if (c->round)
		memset(pair_mask(c, c->round, 0, dst_sw), 0,
		       (size_t)c->nsw * c->mask_words * sizeof(*c->round));
}

/* Route LID offset off of one destination port, if it has that many. */
static void route_port(struct sp_ctx *c, const struct vf_port *dst,
		       unsigned off)
{
	const struct vf_fabric *f = c->f;
	bool to_ca = !vf_is_switch(&f->nodes[dst->node]);
	uint32_t dst_sw;
	uint8_t last_port;

	if (off >= 1u << dst->lmc || dst->base_lid + off > c->t->max_lid)
		return;
	if (!locate(f, dst, &dst_sw, &last_port)) {
		if (!off)
			vf_log(VF_LOG_DEBUG,
			       "shortestpath: LID %u (port 0x%016llx) has no switch link; not routed",
			       dst->base_lid, (unsigned long long)dst->guid);
		return;
	}
	c->cur_base = dst->base_lid;
	c->cur_class = c->cur_tenant = VF_TENANCY_NONE;
	if (to_ca && c->ten.mode != VF_PROUTE_OFF) {
		c->cur_class = c->ten.port_class[dst - f->ports];
		c->cur_tenant = c->ten.port_tenant[dst - f->ports];
		/* a class's first port behind a switch starts new rounds */
		if (dst_sw == c->last_sw && c->cur_class != c->last_class)
			new_rounds(c, dst_sw);
		c->last_sw = dst_sw;
		c->last_class = c->cur_class;
	}
	route_lid(c, dst->base_lid + off, dst_sw, last_port, to_ca);
}

/*
 * LID offset off of every port: a pass of its own, with its own loads and
 * rounds, so that traffic to any one offset is as balanced as to the base
 * LIDs (which are routed exactly as without LMC).
 */
static void route_offset(struct sp_ctx *c, const uint32_t *dst, uint32_t n,
			 unsigned off)
{
	memset(c->load, 0, c->g.hop_start[c->nsw] * sizeof(*c->load));
	memset(c->into, 0, c->nsw * sizeof(*c->into));
	memset(c->routes, 0, c->g.hop_start[c->nsw] * sizeof(*c->routes));
	if (c->round)
		memset(c->round, 0, (size_t)c->nsw * c->nsw * c->mask_words *
				    sizeof(*c->round));
	c->cur_off = off;
	c->max_load = 0;
	c->last_sw = VF_NONE;
	c->last_class = VF_TENANCY_NONE;
	for (uint32_t i = 0; i < n; i++)
		route_port(c, &c->f->ports[dst[i]], off);
}

/*
 * The core of both engines: route the destination ports dst[0..n) (port
 * indices, each at its base LID) in that order.  The order is all that
 * tells shortestpath and dgshortestpath apart.
 */
static void attachment(const struct vf_fabric *f, uint32_t p, uint64_t *guid,
		       unsigned *num);

/*
 * Partition-aware shortestpath: the ports behind one switch class by
 * class (the order stays otherwise), so each class takes its own rounds
 * over the candidates, as fattree's rotation does.
 */
static void group_by_class(const struct sp_ctx *c, uint32_t *dst, uint32_t n)
{
	for (uint32_t i = 0, j; i < n; i = j) {
		uint64_t gi, gj;
		unsigned pi, pj;

		attachment(c->f, dst[i], &gi, &pi);
		for (j = i + 1; j < n; j++) {
			attachment(c->f, dst[j], &gj, &pj);
			if (gj != gi)
				break;
		}
		/* insertion sort by class: a switch has few ports */
		for (uint32_t k = i + 1; k < j; k++) {
			uint32_t p = dst[k], m = k;

			while (m > i && c->ten.port_class[dst[m - 1]] >
					c->ten.port_class[p]) {
				dst[m] = dst[m - 1];
				m--;
			}
			dst[m] = p;
		}
	}
}

/* Every LID offset in turn; returns the busiest hop of the base LIDs. */
static uint64_t route_all(struct sp_ctx *c, const uint32_t *dst, uint32_t n)
{
	uint64_t base = 0;

	if (c->class_routed)
		memset(c->class_routed, 0, (size_t)c->g.hop_start[c->nsw] *
		       c->ten.num_classes * sizeof(*c->class_routed));
	for (unsigned off = 0; off < c->offsets; off++) {
		route_offset(c, dst, n, off);
		if (!off)
			base = c->max_load;
	}
	return base;
}

/*
 * Over every switch link (vf_swgraph_leaf_bound()): a path may start out
 * of any of them here.
 */
static uint64_t leaf_bound(const struct sp_ctx *c)
{
	return vf_swgraph_leaf_bound(&c->g, c->sources, NULL);
}

/*
 * Route again by the bottleneck rule (path_load(), narrow_bottleneck())
 * into tables of its own, and keep those where the busiest base-LID link
 * is lighter than the first rule's, busiest.  Returns 0 or -ENOMEM.
 */
static int try_bottleneck(struct sp_ctx *c, const uint32_t *dst, uint32_t n,
			  uint64_t busiest)
{
	struct vf_lfts *t = c->t, alt;
	uint64_t other;

	if (vf_lfts_init(&alt, t->num_switches, t->max_lid))
		return -ENOMEM;
	c->t = &alt;
	c->bottleneck = true;
	other = route_all(c, dst, n);
	vf_log(VF_LOG_DEBUG,
	       "shortestpath: busiest link %llu above the bound %llu; by bottleneck %llu",
	       (unsigned long long)busiest, (unsigned long long)leaf_bound(c),
	       (unsigned long long)other);
	if (other < busiest)
		memcpy(t->port, alt.port,
		       (size_t)t->num_switches * ((size_t)t->max_lid + 1));
	c->t = t;
	vf_lfts_free(&alt);
	return 0;
}

/*
 * Route by flow (see the top of this file), which reaches the bound on
 * full trees of any size.  Where it does not (cables missing, rings), the
 * bottleneck rule, which looks along the whole way to each destination,
 * routes too, and the lighter tables are kept: on full trees it is a few
 * percent off the bound, on trees with cables missing near it where the
 * first rule is up to 1.5 times it (docs/routing.md).
 */
static int route_ports(const struct vf_fabric *f,
		       const struct vf_route_opts *opts, struct vf_lfts *t,
		       uint32_t *dst, uint32_t n)
{
	uint64_t busiest;
	struct sp_ctx c;
	int rc;

	rc = ctx_init(&c, f, opts);
	if (!rc) {
		c.t = t;
		if (c.ten.mode != VF_PROUTE_OFF && !opts->class_variant)
			group_by_class(&c, dst, n);
		busiest = route_all(&c, dst, n);
		/* partition-aware: judged by class loads, not all-to-all */
		if (busiest > leaf_bound(&c) && c.ten.mode == VF_PROUTE_OFF)
			rc = try_bottleneck(&c, dst, n, busiest);
	}
	ctx_free(&c);
	return rc;
}

/* Every port with a LID, once, in ascending base LID order; NULL: ENOMEM. */
static uint32_t *ports_by_lid(const struct vf_fabric *f, uint32_t *n)
{
	uint32_t *dst = malloc(((size_t)f->max_lid + 1) * sizeof(*dst));

	*n = 0;
	if (!dst)
		return NULL;
	for (unsigned lid = 1; lid <= f->max_lid; lid++) {
		uint32_t p = f->lid_port[lid];

		if (p != VF_NONE && f->ports[p].base_lid == lid)
			dst[(*n)++] = p;
	}
	return dst;
}

/* Where a destination hangs: its switch's GUID and its port there. */
static void attachment(const struct vf_fabric *f, uint32_t p, uint64_t *guid,
		       unsigned *num)
{
	const struct vf_port *dp = &f->ports[p];
	const struct vf_port *peer = vf_usable_peer(f, dp);

	if (vf_is_switch(&f->nodes[dp->node]) || !peer) {
		*guid = f->nodes[dp->node].guid;
		*num = 0;
	} else {
		*guid = f->nodes[peer->node].guid;
		*num = peer->num;
	}
}

static int cmp_attachment(const void *a, const void *b, void *fabric)
{
	const struct vf_fabric *f = fabric;
	uint32_t pa = *(const uint32_t *)a, pb = *(const uint32_t *)b;
	uint64_t ga, gb;
	unsigned na, nb;

	attachment(f, pa, &ga, &na);
	attachment(f, pb, &gb, &nb);
	if (ga != gb)
		return ga < gb ? -1 : 1;
	if (na != nb)
		return na < nb ? -1 : 1;
	return f->ports[pa].base_lid - f->ports[pb].base_lid;
}

static int route_shortestpath(const struct vf_fabric *f,
			      const struct vf_route_opts *opts,
			      struct vf_lfts *t);
static int route_dgshortestpath(const struct vf_fabric *f,
				const struct vf_route_opts *opts,
				struct vf_lfts *t);

/* Balance keeps the all-to-all tables where lighter (classbest.h). */
int vf_route_shortestpath(const struct vf_fabric *f,
			  const struct vf_route_opts *opts, struct vf_lfts *t)
{
	if (opts && opts->partition_routing == VF_PROUTE_BALANCE &&
	    opts->traffic)
		return vf_route_best_for_classes(f, opts, t,
						 route_shortestpath);
	return route_shortestpath(f, opts, t);
}

int vf_route_dgshortestpath(const struct vf_fabric *f,
			    const struct vf_route_opts *opts,
			    struct vf_lfts *t)
{
	if (opts && opts->partition_routing == VF_PROUTE_BALANCE &&
	    opts->traffic)
		return vf_route_best_for_classes(f, opts, t,
						 route_dgshortestpath);
	return route_dgshortestpath(f, opts, t);
}

/*
 * The destination order of both engines.  dgshortestpath (reference/
 * opa-fm.md 3.3): the end ports of each RoutingOrder group in turn (a port
 * goes to the first listed group holding it), then those in no group;
 * shortestpath has no groups, so it is dgshortestpath without a
 * RoutingOrder, table for table.  Inside each of these, by attachment
 * (see the top of this file): the order that lets sibling switches line
 * up, and that depends neither on LIDs nor on the order nodes are listed.
 *
 * Switch LIDs (port 0) belong to no group and come last of all.  Their
 * routes count toward no balance, so they cannot change any end port's
 * route wherever they are; routed last they see the final loads and avoid
 * the busiest links, as in the FM, where switches fall into the implicit
 * default group that follows the listed ones.
 */
struct dg_sort {
	const struct vf_fabric *f;
	const uint8_t *rank;	/* per port index: group position */
};

static int cmp_dg(const void *a, const void *b, void *arg)
{
	const struct dg_sort *ds = arg;
	uint8_t rx = ds->rank[*(const uint32_t *)a];
	uint8_t ry = ds->rank[*(const uint32_t *)b];

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return cmp_attachment(a, b, (void *)ds->f);
}

/* Log how many destination ports each step of the order holds. */
static void log_order(const struct vf_route_opts *opts, const uint8_t *rank,
		      const uint32_t *dst, uint32_t n)
{
	unsigned count[VF_DG_MAX_ORDER + 2] = { 0 };
	unsigned groups = opts->num_routing_order;
	char msg[VF_DG_MAX_ORDER * 48] = "";
	size_t len = 0;

	for (uint32_t i = 0; i < n; i++)
		count[rank[dst[i]]]++;
	for (unsigned g = 0; g < groups && len < sizeof(msg); g++)
		len += snprintf(msg + len, sizeof(msg) - len, "%.32s %u, ",
				opts->routing_order[g].name, count[g]);
	vf_log(VF_LOG_INFO,
	       "dgshortestpath: routing order: %s%u end ports in no group, then %u switches",
	       msg, count[groups], count[groups + 1]);
}

/*
 * Every port with a LID in the order above, groups from opts (none when
 * NULL); NULL on ENOMEM.
 */
static uint32_t *ports_in_order(const struct vf_fabric *f,
				const struct vf_route_opts *opts, uint32_t *n,
				bool log)
{
	unsigned groups = opts ? opts->num_routing_order : 0;
	uint32_t *dst = ports_by_lid(f, n);
	uint8_t *rank = malloc(f->num_ports ? f->num_ports : 1);
	struct dg_sort ds = { f, rank };

	if (!dst || !rank) {
		free(dst);
		free(rank);
		return NULL;
	}
	for (uint32_t i = 0; i < *n; i++) {
		uint32_t p = dst[i];

		if (vf_is_switch(&f->nodes[f->ports[p].node]))
			rank[p] = groups + 1;
		else
			rank[p] = vf_devgroup_first(f, groups ?
						    opts->routing_order : NULL,
						    groups, p);
	}
	qsort_r(dst, *n, sizeof(*dst), cmp_dg, &ds);
	if (opts && log)
		log_order(opts, rank, dst, *n);
	free(rank);
	return dst;
}

static int route_in_order(const struct vf_fabric *f,
			  const struct vf_route_opts *opts, struct vf_lfts *t,
			  bool dg)
{
	uint32_t *dst, n;
	int rc;

	if (t->num_switches != f->num_switches || t->max_lid < f->max_lid)
		return -EINVAL;
	if (dg && opts && opts->num_routing_order > VF_DG_MAX_ORDER)
		return -EINVAL;
	dst = ports_in_order(f, dg ? opts : NULL, &n, dg);
	if (!dst)
		return -ENOMEM;
	rc = route_ports(f, opts, t, dst, n);
	free(dst);
	return rc;
}

static int route_shortestpath(const struct vf_fabric *f,
			      const struct vf_route_opts *opts,
			      struct vf_lfts *t)
{
	return route_in_order(f, opts, t, false);
}

static int route_dgshortestpath(const struct vf_fabric *f,
				const struct vf_route_opts *opts,
				struct vf_lfts *t)
{
	return route_in_order(f, opts, t, true);
}
