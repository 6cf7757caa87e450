// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * shortestpath: balanced min-hop routing, after the Omni-Path FM's engine
 * of the same name (reference/opa-fm.md sections 3.1 and 8.5).
 *
 * Destinations are routed one port at a time, grouped by the switch they
 * hang off (switches by GUID, ports by number): the FM routes in LID order
 * on its own LID assignment, which groups hosts by switch, while OpenSM's
 * discovery order interleaves them, and an engine fed interleaved LIDs
 * cannot line sibling switches up (measured: 488 against 384 on a 3-level
 * tree, docs/routing.md).  For each destination, the switches with end
 * nodes attached ("edge" switches) choose first, then the others.  Among the ports that lie on a shortest healthy
 * path, only the fastest links are kept, and the switch takes the port
 * that carries the fewest routes so far, then the one whose next switch
 * carries the fewest, then the lowest port number.  Routes to switch LIDs
 * do not count toward balance (they carry management traffic only).
 *
 * One addition to the FM's rule: routes from a switch toward one
 * destination switch go in rounds over the candidate ports (see choose()),
 * which keeps the all-to-all load even whatever order the LIDs come in
 * (docs/routing.md).
 *
 * The result depends only on the fabric (switches are visited by GUID,
 * destinations by attachment), not on LID assignment nor on the order the
 * subnet lists nodes in, so a
 * re-sweep of an unchanged fabric, or an offline run on its ibnetdiscover
 * output, reproduces the same tables.
 *
 * dgshortestpath is this engine with another destination order: device
 * groups of a RoutingOrder, then port GUID (see vf_route_dgshortestpath()).
 *
 * SpineFirstRouting (the FM's option of that name, on unless
 * opts->spine_first is off): on a switch chip of a director chassis, once
 * a port to another chip of the same chassis (same SystemImageGUID) is
 * among the shortest-path candidates, the others are dropped; see
 * candidates().
 *
 * Partition-aware (routing/tenancy.h): each destination's balance class
 * has its own load counters per hop, compared first, so every class is
 * spread over the equal-cost ports on its own; with isolation a tenant's
 * destinations take hops to switches of that tenant (or of none) when
 * their candidates include such hops.
 *
 * With LMC > 0 each LID of a port is routed in turn, and a switch prefers,
 * for LID k, a next switch (then a port) not yet used by LIDs 0..k-1 of
 * that port, so the LIDs of one port take distinct equal-cost routes where
 * the topology has them; base LIDs are balanced on their own counters.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classbest.h"
#include "devgroup.h"
#include "engine.h"
#include "log.h"
#include "swgraph.h"

struct sp_ctx {
	struct vf_sticky sticky;	/* the previous routing, if any */
	const struct vf_fabric *f;
	uint32_t nsw;
	bool spine_first;	/* opts->spine_first */
	struct vf_swgraph g;	/* usable inter-switch hops, by switch */
	bool *spine;		/* [hop]: SpineFirstRouting, to our chassis */
	uint16_t *dist;		/* [dst_sw * nsw + sw]: switch hops */
	uint32_t *order;	/* switches, edge switches first */
	uint32_t *lids_routed;	/* per port index: CA LIDs routed out of it */
	uint32_t *sw_routed;	/* per switch: CA LIDs routed into it */
	uint32_t *base_routed;	/* per port index: CA base LIDs only */
	uint32_t *base_sw_routed;	/* per switch: CA base LIDs only */
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

static uint64_t *pair_mask(const struct sp_ctx *c, uint64_t *masks,
			   uint32_t s, uint32_t d)
{
	return masks + ((size_t)s * c->nsw + d) * c->mask_words;
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
	free(c->dist);
	free(c->order);
	free(c->lids_routed);
	free(c->sw_routed);
	free(c->base_routed);
	free(c->base_sw_routed);
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
	c->spine_first = opts && opts->spine_first;
	c->lids_routed = calloc(f->num_ports ? f->num_ports : 1,
				sizeof(*c->lids_routed));
	c->sw_routed = calloc(c->nsw ? c->nsw : 1, sizeof(*c->sw_routed));
	c->base_routed = calloc(f->num_ports ? f->num_ports : 1,
				sizeof(*c->base_routed));
	c->base_sw_routed = calloc(c->nsw ? c->nsw : 1,
				   sizeof(*c->base_sw_routed));
	if (!c->lids_routed || !c->sw_routed || !c->base_routed ||
	    !c->base_sw_routed)
		return -ENOMEM;
	rc = build_hops(c);
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

/* Per destination port: the choices made for its earlier LIDs at a switch. */
struct sp_spread {
	unsigned count;		/* LIDs of this port routed so far */
	uint32_t *used_port;	/* [nsw * 128]: chosen port index per LID */
};

/* How far apart two hops of LIDs of one port are, for LMC spreading. */
enum sp_spread_level {
	SPREAD_CHASSIS,		/* next switches in different chassis */
	SPREAD_CHIP,		/* different switch chips */
	SPREAD_PORT,		/* different ports */
};

/*
 * Did an earlier LID of this port leave s by a hop that h does not differ
 * from at this level?  A chassis is a SystemImageGUID.
 */
static bool spread_uses(const struct sp_ctx *c, const struct sp_spread *sp,
			uint32_t s, const struct vf_hop *h,
			enum sp_spread_level level)
{
	const struct vf_fabric *f = c->f;
	const uint32_t *used = sp->used_port + (size_t)s * 128;
	uint64_t sysimg = f->nodes[f->switches[h->next_sw]].sysimg_guid;

	for (unsigned k = 0; k < sp->count; k++) {
		uint32_t next = vf_peer_switch(f, &f->ports[used[k]]);

		if (level == SPREAD_PORT ? used[k] == h->port :
		    level == SPREAD_CHIP ? next == h->next_sw :
		    next != VF_NONE &&
		    f->nodes[f->switches[next]].sysimg_guid == sysimg)
			return true;
	}
	return false;
}

/*
 * Is candidate a better than b (both on shortest paths from switch s)?
 * A base LID goes first where the fewest base LIDs go, so that with LMC > 0
 * the paths that most traffic uses (to base LIDs) are balanced too, and do
 * not all take the lowest-numbered of equally loaded ports.
 */
static bool better(const struct sp_ctx *c, const struct sp_spread *sp,
		   uint32_t s, const struct vf_hop *a, const struct vf_hop *b)
{
	/* partition-aware: the destination's class first (base LIDs) */
	if (c->class_routed && c->cur_class != VF_TENANCY_NONE &&
	    (!sp || !sp->count) && class_load(c, a) != class_load(c, b))
		return class_load(c, a) < class_load(c, b);
	/* with LMC 0 every LID is a base LID: the totals below suffice */
	if (sp && !sp->count) {
		if (c->base_routed[a->port] != c->base_routed[b->port])
			return c->base_routed[a->port] <
			       c->base_routed[b->port];
		if (c->base_sw_routed[a->next_sw] !=
		    c->base_sw_routed[b->next_sw])
			return c->base_sw_routed[a->next_sw] <
			       c->base_sw_routed[b->next_sw];
	}
	if (sp && sp->count) {
		/* another chassis, else another chip, else another port */
		for (int l = SPREAD_CHASSIS; l <= SPREAD_PORT; l++) {
			bool ua = spread_uses(c, sp, s, a, l);
			bool ub = spread_uses(c, sp, s, b, l);

			if (ua != ub)
				return !ua;
		}
	}
	if (c->lids_routed[a->port] != c->lids_routed[b->port])
		return c->lids_routed[a->port] < c->lids_routed[b->port];
	if (c->sw_routed[a->next_sw] != c->sw_routed[b->next_sw])
		return c->sw_routed[a->next_sw] < c->sw_routed[b->next_sw];
	return a->num < b->num;
}

static bool allowed(const struct sp_ctx *c, const struct vf_hop *hop)
{
	return vf_tenancy_allows(&c->ten, c->cur_tenant, hop->next_sw);
}

/*
 * Isolation without masks: the candidates() rule over the hops to the
 * tenant's switches, else over all; the best by better().
 */
static const struct vf_hop *choose_isolated(const struct sp_ctx *c,
					    const struct sp_spread *sp,
					    uint32_t s, uint32_t dst_sw)
{
	const uint16_t *dist = c->dist + (size_t)dst_sw * c->nsw;
	const struct vf_hop *best = NULL;

	for (int pass = 0; pass < 2 && !best; pass++) {
		unsigned top = 0;
		bool spine = false;

		for (uint32_t h = c->g.hop_start[s]; h < c->g.hop_start[s + 1];
		     h++) {
			const struct vf_hop *hop = &c->g.hops[h];

			if (!on_shortest_path(dist, s, hop) ||
			    (!pass && !allowed(c, hop)))
				continue;
			if (spine_hop(c, hop) && !spine) {
				spine = true;
				top = hop->rate;
			} else if ((!spine || spine_hop(c, hop)) &&
				   hop->rate > top) {
				top = hop->rate;
			}
		}
		for (uint32_t h = c->g.hop_start[s]; h < c->g.hop_start[s + 1];
		     h++) {
			const struct vf_hop *hop = &c->g.hops[h];

			if (!on_shortest_path(dist, s, hop) || hop->rate != top ||
			    (spine && !spine_hop(c, hop)) ||
			    (!pass && !allowed(c, hop)))
				continue;
			if (!best || better(c, sp, s, hop, best))
				best = hop;
		}
	}
	return best;
}

/* choose() without masks: scan every hop (fabrics too big for them). */
static const struct vf_hop *choose_unmasked(const struct sp_ctx *c,
					    const struct sp_spread *sp,
					    uint32_t s, uint32_t dst_sw)
{
	const uint16_t *dist = c->dist + (size_t)dst_sw * c->nsw;
	const struct vf_hop *best = NULL;
	unsigned top = 0;
	bool spine = false;

	if (s == dst_sw || dist[s] == VF_DIST_INF)
		return NULL;
	if (c->ten.owner)
		return choose_isolated(c, sp, s, dst_sw);
	/* the candidates() rule: spine hops first, then the fastest */
	for (uint32_t h = c->g.hop_start[s]; h < c->g.hop_start[s + 1]; h++) {
		const struct vf_hop *hop = &c->g.hops[h];

		if (!on_shortest_path(dist, s, hop) || (spine && !spine_hop(c, hop)))
			continue;
		if (spine_hop(c, hop) && !spine) {
			spine = true;
			top = hop->rate;
		} else if (hop->rate > top) {
			top = hop->rate;
		}
	}
	for (uint32_t h = c->g.hop_start[s]; h < c->g.hop_start[s + 1]; h++) {
		const struct vf_hop *hop = &c->g.hops[h];

		if (!on_shortest_path(dist, s, hop) || hop->rate != top ||
		    (spine && !spine_hop(c, hop)))
			continue;
		if (!best || better(c, sp, s, hop, best))
			best = hop;
	}
	return best;
}

/*
 * Isolation: the candidates in cand leading to the destination's tenant's
 * switches (or to nobody's), into mine; false when there are none, or
 * when they are all of cand (nothing to narrow).
 */
static bool own_mask(const struct sp_ctx *c, uint32_t s, const uint64_t *cand,
		     uint64_t *mine)
{
	const struct vf_hop *first = &c->g.hops[c->g.hop_start[s]];
	bool some = false, all = true;

	for (unsigned w = 0; w < c->mask_words; w++) {
		mine[w] = 0;
		for (uint64_t m = cand[w]; m; m &= m - 1) {
			unsigned b = (unsigned)__builtin_ctzll(m);

			if (allowed(c, first + w * 64 + b))
				mine[w] |= 1ull << b;
		}
		some |= mine[w] != 0;
		all &= mine[w] == cand[w];
	}
	return some && !all;
}

/*
 * The best egress hop from switch s toward dst_sw, or NULL.  Only the
 * fastest of the shortest-path hops are candidates.  Routes from s toward
 * one destination switch go in rounds: a candidate used in the current
 * round waits until every candidate has had a route.  Without this, the
 * least-loaded rotation of a leaf can fall into step with the order of
 * the LIDs (OpenSM interleaves the hosts of several leaves) and send every
 * host of one leaf through the same spine.
 *
 * Only base LIDs go in rounds: they carry most traffic.  The other LIDs of
 * a port (LMC > 0) are spread over different next switches by better()
 * and must not use up the base LIDs' rounds, or the base LIDs of one
 * destination switch's hosts would again bunch on a few ports.
 */
static const struct vf_hop *choose(const struct sp_ctx *c,
				   const struct sp_spread *sp, uint32_t s,
				   uint32_t dst_sw)
{
	const struct vf_hop *first = &c->g.hops[c->g.hop_start[s]], *best = NULL;
	const uint64_t *cand;
	uint64_t *round, open = 0, none[VF_MAX_PORTS / 64 + 1] = { 0 };
	uint64_t mine[VF_MAX_PORTS / 64 + 1];

	if (!c->cand)
		return choose_unmasked(c, sp, s, dst_sw);
	cand = pair_mask(c, c->cand, s, dst_sw);
	if (c->ten.owner && own_mask(c, s, cand, mine))
		cand = mine;
	round = sp && sp->count ? none : pair_mask(c, c->round, s, dst_sw);
	for (unsigned w = 0; w < c->mask_words; w++)
		open |= cand[w] & ~round[w];
	if (!open)	/* every candidate had one: a new round */
		for (unsigned w = 0; w < c->mask_words; w++)
			round[w] &= ~cand[w];
	for (unsigned w = 0; w < c->mask_words; w++) {
		for (uint64_t m = cand[w] & ~round[w]; m; m &= m - 1) {
			const struct vf_hop *hop =
				first + w * 64 + __builtin_ctzll(m);

			if (!best || better(c, sp, s, hop, best))
				best = hop;
		}
	}
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

static void route_lid(struct sp_ctx *c, struct vf_lfts *t, unsigned lid,
		      uint32_t dst_sw, uint8_t last_port, bool to_ca,
		      struct sp_spread *sp)
{
	for (uint32_t k = 0; k < c->nsw; k++) {
		uint32_t s = c->order[k];
		const struct vf_hop *hop;
		uint8_t *row = vf_lft_row(t, s);

		if (s == dst_sw) {
			row[lid] = last_port;
			continue;
		}
		hop = kept_hop(c, s, dst_sw, lid);
		if (hop && c->ten.owner && !allowed(c, hop))
			hop = NULL;	/* isolation outranks stability */
		if (!hop)
			hop = choose(c, sp, s, dst_sw);
		if (!hop)
			continue;
		row[lid] = hop->num;
		if (sp)
			sp->used_port[(size_t)s * 128 + sp->count] = hop->port;
		if (to_ca) {
			bool base = !sp || !sp->count;

			c->lids_routed[hop->port]++;
			c->sw_routed[hop->next_sw]++;
			c->base_routed[hop->port] += base;
			c->base_sw_routed[hop->next_sw] += base;
			if (c->class_routed && base &&
			    c->cur_class != VF_TENANCY_NONE)
				c->class_routed[(size_t)(hop - c->g.hops) *
						c->ten.num_classes +
						c->cur_class]++;
			if (base)
				use_in_round(c, s, dst_sw, hop);
		}
	}
	if (sp)
		sp->count++;
}

/* Every switch's rounds toward dst_sw start afresh. */
static void new_rounds(struct sp_ctx *c, uint32_t dst_sw)
{
	if (!c->round)
		return;
	for (uint32_t s = 0; s < c->nsw; s++)
		memset(pair_mask(c, c->round, s, dst_sw), 0,
		       c->mask_words * sizeof(*c->round));
}

/* Route all 2^lmc LIDs of one destination port. */
static void route_port(struct sp_ctx *c, struct vf_lfts *t,
		       const struct vf_port *dst, struct sp_spread *sp)
{
	const struct vf_fabric *f = c->f;
	bool to_ca = !vf_is_switch(&f->nodes[dst->node]);
	unsigned nlids = 1u << dst->lmc;
	uint32_t dst_sw;
	uint8_t last_port;

	if (!locate(f, dst, &dst_sw, &last_port)) {
		vf_log(VF_LOG_DEBUG,
		       "shortestpath: LID %u (port 0x%016llx) has no switch link; not routed",
		       dst->base_lid, (unsigned long long)dst->guid);
		return;
	}
	sp->count = 0;
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
	for (unsigned i = 0; i < nlids && dst->base_lid + i <= t->max_lid; i++)
		route_lid(c, t, dst->base_lid + i, dst_sw, last_port, to_ca,
			  nlids > 1 ? sp : NULL);
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

static int route_ports(const struct vf_fabric *f,
		       const struct vf_route_opts *opts, struct vf_lfts *t,
		       uint32_t *dst, uint32_t n, bool by_class)
{
	struct sp_spread spread = { 0 };
	struct sp_ctx c;
	int rc;

	rc = ctx_init(&c, f, opts);
	if (rc)
		goto out_free_ctx;
	spread.used_port = malloc((size_t)(c.nsw ? c.nsw : 1) * 128 *
				  sizeof(*spread.used_port));
	if (!spread.used_port) {
		rc = -ENOMEM;
		goto out_free_ctx;
	}
	if (c.ten.mode != VF_PROUTE_OFF && by_class && !opts->class_variant)
		group_by_class(&c, dst, n);
	for (uint32_t i = 0; i < n; i++)
		route_port(&c, t, &f->ports[dst[i]], &spread);
	free(spread.used_port);
out_free_ctx:
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

static int route_shortestpath(const struct vf_fabric *f,
			      const struct vf_route_opts *opts,
			      struct vf_lfts *t)
{
	uint32_t *dst, n;
	int rc;

	if (t->num_switches != f->num_switches || t->max_lid < f->max_lid)
		return -EINVAL;
	dst = ports_by_lid(f, &n);
	if (!dst)
		return -ENOMEM;
	/* grouped by switch: see the top of this file */
	qsort_r(dst, n, sizeof(*dst), cmp_attachment, (void *)f);
	rc = route_ports(f, opts, t, dst, n, true);
	free(dst);
	return rc;
}

/*
 * dgshortestpath (reference/opa-fm.md 3.3): the destination order is
 * RoutingOrder.  Each end port goes to the first listed group holding it,
 * ports in no listed group come after all groups, and inside each of
 * these the order is by PortGUID.  Without a RoutingOrder that leaves
 * every end port in PortGUID order.
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
	const struct vf_port *x = &ds->f->ports[*(const uint32_t *)a];
	const struct vf_port *y = &ds->f->ports[*(const uint32_t *)b];
	uint8_t rx = ds->rank[*(const uint32_t *)a];
	uint8_t ry = ds->rank[*(const uint32_t *)b];

	if (rx != ry)
		return rx < ry ? -1 : 1;
	/* switches: by LID; a GUID is not unique among their ports */
	if (x->guid != y->guid && !vf_is_switch(&ds->f->nodes[x->node]))
		return x->guid < y->guid ? -1 : 1;
	return x->base_lid < y->base_lid ? -1 : x->base_lid > y->base_lid;
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

/* The dgshortestpath order of the ports with a LID (see above). */
static uint32_t *ports_by_group(const struct vf_fabric *f,
				const struct vf_route_opts *opts, uint32_t *n)
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
	if (opts)
		log_order(opts, rank, dst, *n);
	free(rank);
	return dst;
}

static int route_dgshortestpath(const struct vf_fabric *f,
				const struct vf_route_opts *opts,
				struct vf_lfts *t)
{
	uint32_t *dst, n;
	int rc;

	if (t->num_switches != f->num_switches || t->max_lid < f->max_lid)
		return -EINVAL;
	if (opts && opts->num_routing_order > VF_DG_MAX_ORDER)
		return -EINVAL;
	dst = ports_by_group(f, opts, &n);
	if (!dst)
		return -ENOMEM;
	rc = route_ports(f, opts, t, dst, n, false);
	free(dst);
	return rc;
}
