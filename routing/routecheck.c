// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Route checks: reachability, hop stretch, credit loops and all-to-all link
 * load of a set of LFTs.  See routecheck.h.
 *
 * The work is done one destination LID at a time, so memory stays
 * O(switches + channels) however many LIDs there are:
 *
 *  1. every switch's LFT entry for the LID is classified once (on to another
 *     switch, delivered, or dropped and why; lidwalk.c);
 *  2. walks are resolved with memoization: a walk stops at the first switch
 *     whose outcome is known and the path is unwound, so each switch is
 *     visited once per LID however many sources enter it (lidwalk.c);
 *  3. pairs are tallied per switch (the switch itself plus the CA ports that
 *     enter the fabric there) against BFS distances, computed once per
 *     destination switch because LIDs are processed grouped by it;
 *  4. the forwarding tree gives the channel dependencies and, for CA LIDs,
 *     the all-to-all flow on each link (base LIDs: the link load; other
 *     LIDs: the load of their LID offset).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "routing/internal/lidwalk.h"
#include "routecheck.h"
#include "vfjson.h"
#include "vlcheck.h"

enum { WHITE, GREY, BLACK };	/* DFS colours */

struct rc_ctx {
	const struct vf_fabric *f;
	const struct vf_lfts *t;
	struct vf_route_report *r;
	uint32_t nsw;
	struct vf_walk w;	/* topology, and the tree of one LID */

	uint32_t *ca_at;	/* switch -> CA source ports entering there */
	uint32_t *dead;		/* CA source ports on an unusable link */
	uint32_t num_dead;
	uint32_t *b2b;		/* CA source ports linked to end ports */
	uint32_t num_b2b;
	uint32_t *adj_off;	/* switch neighbours, usable links (CSR) */
	uint32_t *adj;

	/* channels: directed usable inter-switch links (w.nchan) */
	uint32_t *chan_port;	/* channel -> out port index on its tail */
	uint8_t *chan_num;	/* channel -> out port number */
	uint64_t *dep_off;	/* channel -> first bit of its deps row */
	uint64_t *deps;		/* row bit q: then out of head port q */
	uint64_t *sw_deps;	/* the same, added by routes to switch LIDs */
	bool with_sw_deps;	/* the cycle search follows sw_deps too */
	uint8_t *chan_used;
	uint64_t *load;
	/* LMC: [(offset - 1) * nchan + channel] for offsets 1.. (load is 0) */
	uint64_t *load_alt;

	/* per destination LID, besides w's */
	int32_t *dist;		/* BFS hops to destination switch, -1 */
	uint64_t *flow;
};

/* A bounded string builder that remembers when text was cut. */
struct sbuf {
	char *s;
	size_t size, len;
	bool cut;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len + 1 >= b->size) {
		b->cut = true;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	b->len += (size_t)n;
	if (b->len >= b->size) {
		b->len = b->size - 1;
		b->cut = true;
	}
}

/* End a cut string with "..." so nobody mistakes it for the whole. */
static void sb_mark_cut(struct sbuf *b)
{
	if (b->cut && b->size > 4)
		memcpy(b->s + b->size - 4, "...", 4);
}

/* calloc that does not fail on empty fabrics */
static void *zalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

static const struct vf_node *sw_node(const struct rc_ctx *c, uint32_t s)
{
	return &c->f->nodes[c->f->switches[s]];
}

static const char *sw_desc(const struct rc_ctx *c, uint32_t s)
{
	return vf_node_desc(c->f, sw_node(c, s));
}

static void ctx_free(struct rc_ctx *c)
{
	vf_walk_free(&c->w);
	free(c->ca_at);
	free(c->dead);
	free(c->b2b);
	free(c->adj_off);
	free(c->adj);
	free(c->chan_port);
	free(c->chan_num);
	free(c->dep_off);
	free(c->deps);
	free(c->sw_deps);
	free(c->chan_used);
	free(c->load);
	free(c->load_alt);
	free(c->dist);
	free(c->flow);
}

/* End port: which kind of source it is (w sorted the switch ports). */
static void sort_port(struct rc_ctx *c, uint32_t i)
{
	const struct vf_fabric *f = c->f;
	const struct vf_port *p = &f->ports[i];
	const struct vf_port *peer = vf_usable_peer(f, p);
	const struct vf_node *pn = peer ? &f->nodes[peer->node] : NULL;

	if (vf_is_switch(&f->nodes[p->node]) || p->num == 0 ||
	    p->remote == VF_NONE)
		return;
	if (!pn)
		c->dead[c->num_dead++] = i;
	else if (vf_is_switch(pn))
		c->ca_at[pn->sw]++;
	else
		c->b2b[c->num_b2b++] = i;
}

static int setup_ports(struct rc_ctx *c)
{
	uint32_t np = c->f->num_ports;
	int rc = vf_walk_init(&c->w, c->f, c->t);

	if (rc)
		return rc;
	c->dead = zalloc(np, sizeof(*c->dead));
	c->b2b = zalloc(np, sizeof(*c->b2b));
	c->ca_at = zalloc(c->nsw, sizeof(*c->ca_at));
	if (!c->dead || !c->b2b || !c->ca_at)
		return -ENOMEM;
	for (uint32_t i = 0; i < np; i++)
		sort_port(c, i);
	return 0;
}

/* Each channel's dependency row has one bit per port of its head switch. */
static int setup_channels(struct rc_ctx *c)
{
	const struct vf_fabric *f = c->f;
	uint64_t bits = 0;

	c->chan_port = zalloc(c->w.nchan, sizeof(*c->chan_port));
	c->chan_num = zalloc(c->w.nchan, sizeof(*c->chan_num));
	c->dep_off = zalloc(c->w.nchan, sizeof(*c->dep_off));
	c->chan_used = zalloc(c->w.nchan, sizeof(*c->chan_used));
	c->load = zalloc(c->w.nchan, sizeof(*c->load));
	if (!c->chan_port || !c->chan_num || !c->dep_off || !c->chan_used ||
	    !c->load)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->num_ports; i++) {
		uint32_t k = c->w.port_chan[i];

		if (k == VF_NONE)
			continue;
		c->chan_port[k] = i;
		c->chan_num[k] = f->ports[i].num;
		c->dep_off[k] = bits;
		bits += sw_node(c, c->w.pnext[i])->num_ports + 1u;
	}
	c->deps = zalloc(bits / 64 + 1, sizeof(*c->deps));
	c->sw_deps = zalloc(bits / 64 + 1, sizeof(*c->sw_deps));
	return c->deps && c->sw_deps ? 0 : -ENOMEM;
}

/* Neighbour lists for the BFS, parallel cables folded into one entry. */
static int setup_adjacency(struct rc_ctx *c)
{
	uint32_t *mark = zalloc(c->nsw, sizeof(*mark)), n = 0;

	c->adj_off = zalloc(c->nsw + 1, sizeof(*c->adj_off));
	c->adj = zalloc(c->w.nchan, sizeof(*c->adj));
	if (!mark || !c->adj_off || !c->adj) {
		free(mark);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < c->nsw; s++)
		mark[s] = VF_NONE;
	for (uint32_t s = 0; s < c->nsw; s++) {
		const struct vf_node *node = sw_node(c, s);

		c->adj_off[s] = n;
		for (unsigned k = 1; k <= node->num_ports; k++) {
			uint32_t v = c->w.pnext[node->first_port + k];

			if (v >= c->nsw || mark[v] == s)
				continue;
			mark[v] = s;
			c->adj[n++] = v;
		}
	}
	c->adj_off[c->nsw] = n;
	free(mark);
	return 0;
}

/* 2^LMC of the CA port with the largest LMC: the LID offsets to load. */
static unsigned lid_offsets(const struct vf_fabric *f)
{
	unsigned lmc = 0;

	for (uint32_t i = 0; i < f->num_ports; i++) {
		const struct vf_port *p = &f->ports[i];

		if (p->base_lid && p->lmc > lmc &&
		    !vf_is_switch(&f->nodes[p->node]))
			lmc = p->lmc;
	}
	return 1u << lmc;
}

static int setup_per_lid(struct rc_ctx *c)
{
	c->r->lid_offsets = lid_offsets(c->f);
	if (c->r->lid_offsets > 1) {
		c->load_alt = zalloc((size_t)(c->r->lid_offsets - 1) *
				     c->w.nchan, sizeof(*c->load_alt));
		if (!c->load_alt)
			return -ENOMEM;
	}
	c->dist = zalloc(c->nsw, sizeof(*c->dist));
	c->flow = zalloc(c->nsw, sizeof(*c->flow));
	return c->dist && c->flow ? 0 : -ENOMEM;
}

static void bfs(struct rc_ctx *c, uint32_t root)
{
	uint32_t *q = c->w.scratch, head = 0, tail = 0;

	for (uint32_t s = 0; s < c->nsw; s++)
		c->dist[s] = -1;
	c->dist[root] = 0;
	q[tail++] = root;
	while (head < tail) {
		uint32_t u = q[head++];

		for (uint32_t i = c->adj_off[u]; i < c->adj_off[u + 1]; i++) {
			uint32_t v = c->adj[i];

			if (c->dist[v] >= 0)
				continue;
			c->dist[v] = c->dist[u] + 1;
			q[tail++] = v;
		}
	}
}

static uint32_t walk_steps(const struct rc_ctx *c, uint32_t s, unsigned lid,
			   uint32_t steps)
{
	uint32_t port;

	while (steps--)
		vf_walk_classify(&c->w, s, lid, &s, &port);
	return s;
}

/*
 * x is on the loop the walk from s ends in.  Name the loop from the switch
 * where the walk enters it: a pointer one loop length ahead of another
 * meets it exactly there.
 */
static void describe_loop(const struct rc_ctx *c, uint32_t s, uint32_t x,
			  unsigned lid, struct sbuf *b)
{
	uint32_t len = 1, ahead, cur;

	for (cur = walk_steps(c, x, lid, 1); cur != x; len++)
		cur = walk_steps(c, cur, lid, 1);
	ahead = walk_steps(c, s, lid, len);
	for (cur = s; cur != ahead; ahead = walk_steps(c, ahead, lid, 1))
		cur = walk_steps(c, cur, lid, 1);
	x = cur;
	sb_printf(b, "loop %s", sw_desc(c, x));
	do {
		cur = walk_steps(c, cur, lid, 1);
		sb_printf(b, " -> %s", sw_desc(c, cur));
	} while (cur != x && !b->cut);
}

/* Why the packet ends at switch s with outcome rc. */
static void describe_end(const struct rc_ctx *c, uint32_t s, unsigned lid,
			 int32_t rc, struct sbuf *b)
{
	const struct vf_fabric *f = c->f;
	const struct vf_node *n = sw_node(c, s);
	unsigned p = vf_lft_row(c->t, s)[lid];
	const struct vf_port *port = vf_node_port(f, n, p <= n->num_ports ?
						   p : 0);
	const char *name = sw_desc(c, s);
	const struct vf_node *peer;

	switch (rc) {
	case VF_WALK_NO_ROUTE:
		sb_printf(b, "no route at %s", name);
		break;
	case VF_WALK_BAD_PORT:
		sb_printf(b, "%s has no port %u", name, p);
		break;
	case VF_WALK_LINK_DOWN:
		sb_printf(b, "drop at %s port %u (%s)", name, p,
			  port->remote == VF_NONE ? "not linked" :
			  "link down");
		break;
	case VF_WALK_WRONG_CA:
		peer = &f->nodes[f->ports[port->remote].node];
		sb_printf(b, "%s port %u leads to %s, which does not own it",
			  name, p, vf_node_desc(f, peer));
		break;
	case VF_WALK_WRONG_SW:
		sb_printf(b, "%s takes it (port 0) but does not own it", name);
		break;
	default:
		sb_printf(b, "delivered at %s", name);
	}
}

/* Walk again from s (only for examples); a walk this long must loop. */
static void describe_walk(const struct rc_ctx *c, uint32_t s, unsigned lid,
			  struct sbuf *b)
{
	uint32_t cur = s, steps = 0, port;
	int32_t rc;

	while ((rc = vf_walk_classify(&c->w, cur, lid, &cur, &port)) ==
	       VF_WALK_FORWARD) {
		if (++steps > c->nsw) {
			describe_loop(c, s, cur, lid, b);
			return;
		}
	}
	describe_end(c, cur, lid, rc, b);
}

static bool next_example(struct vf_route_report *r, struct sbuf *b)
{
	if (r->num_examples >= VF_CHECK_EXAMPLES)
		return false;
	b->s = r->examples[r->num_examples++];
	b->size = sizeof(r->examples[0]);
	b->len = 0;
	b->cut = false;
	return true;
}

static void example_switch(struct rc_ctx *c, unsigned lid, uint32_t s)
{
	const struct vf_node *n = sw_node(c, s);
	struct sbuf b;

	if (!next_example(c->r, &b))
		return;
	sb_printf(&b, "lid %u from switch %s (0x%016" PRIx64 "): ", lid,
		  vf_node_desc(c->f, n), n->guid);
	describe_walk(c, s, lid, &b);
	sb_mark_cut(&b);
}

static void example_ca(struct rc_ctx *c, unsigned lid, uint32_t port,
		       const char *why)
{
	const struct vf_fabric *f = c->f;
	const struct vf_port *p = &f->ports[port];
	struct sbuf b;

	if (!next_example(c->r, &b))
		return;
	sb_printf(&b, "lid %u from CA %s port %u: %s", lid,
		  vf_node_desc(f, &f->nodes[p->node]), p->num, why);
	sb_mark_cut(&b);
}

/* Count w pairs of one class with the same outcome res and distance min. */
static void tally(struct rc_ctx *c, bool ca_pair, int32_t res, int32_t min,
		  uint64_t w)
{
	struct vf_route_report *r = c->r;

	if (!w)
		return;
	if (ca_pair)
		r->ca_pairs += w;
	else
		r->sw_pairs += w;
	if (res < 0) {
		if (ca_pair)
			r->ca_unreachable += w;
		else
			r->sw_unreachable += w;
		if (res == VF_WALK_LOOP)
			r->loops += w;
		return;
	}
	/* a delivered walk used usable links, so BFS found a path too */
	if (min < 0 || min > res)
		min = res;
	r->hops_sum += w * (uint64_t)res;
	r->min_hops_sum += w * (uint64_t)min;
	if (res > min) {
		r->stretched += w;
		if ((unsigned)(res - min) > r->max_stretch)
			r->max_stretch = res - min;
	}
}

/* Pairs whose source is a switch or a CA port entering at a switch. */
static void count_switch_pairs(struct rc_ctx *c, unsigned lid, uint32_t dsw,
			       bool dca)
{
	for (uint32_t s = 0; s < c->nsw; s++) {
		/* the destination port is no source of its own LIDs */
		uint32_t nca = c->ca_at[s] - (dca && s == dsw);

		tally(c, false, c->w.res[s], c->dist[s], 1);
		tally(c, dca, c->w.res[s], c->dist[s], nca);
		/* CA sources fail the same way; one example per switch */
		if (c->w.res[s] < 0)
			example_switch(c, lid, s);
	}
}

/* Pairs whose source CA port never reaches a switch. */
static void count_end_pairs(struct rc_ctx *c, unsigned lid, bool dca)
{
	const struct vf_fabric *f = c->f;
	uint32_t dp = f->lid_port[lid];
	uint32_t dead = c->num_dead;

	for (uint32_t i = 0; i < c->num_dead; i++) {
		if (c->dead[i] == dp) {
			dead--;
			continue;
		}
		if (c->r->num_examples < VF_CHECK_EXAMPLES)
			example_ca(c, lid, c->dead[i], "link down");
	}
	tally(c, dca, VF_WALK_LINK_DOWN, 0, dead);
	for (uint32_t i = 0; i < c->num_b2b; i++) {
		uint32_t p = c->b2b[i];
		bool hit = f->ports[p].remote == dp;

		if (p == dp)
			continue;
		tally(c, dca, hit ? 0 : VF_WALK_WRONG_CA, 0, 1);
		if (!hit)
			example_ca(c, lid, p, "its peer does not own the LID");
	}
}

/*
 * All-to-all flow to one CA LID: every switch starts with the CA ports
 * entering it, then, farthest first, hands its flow to the next switch.
 * Afterwards flow[s] > 0 exactly when traffic from some CA passes s.
 * Returns the number of forwarding switches at the head of c->w.scratch.
 */
static uint32_t spread_flow(struct rc_ctx *c, uint32_t dsw)
{
	uint32_t n = vf_walk_order(&c->w);

	for (uint32_t s = 0; s < c->nsw; s++)
		c->flow[s] = c->ca_at[s] - (s == dsw);
	for (uint32_t i = 0; i < n; i++)
		c->flow[c->w.nxt[c->w.scratch[i]]] += c->flow[c->w.scratch[i]];
	return n;
}

/*
 * Count the flow to a CA LID on each link it crosses: into the all-to-all
 * load for a base LID, into its offset's load for the others.
 */
static void add_load(struct rc_ctx *c, uint32_t n, unsigned offset)
{
	uint64_t *load = offset ? c->load_alt + (size_t)(offset - 1) *
				  c->w.nchan : c->load;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = c->w.scratch[i];

		load[c->w.chan[s]] += c->flow[s];
	}
}

/*
 * Channel dependencies of one destination LID.  Data dependencies are the
 * turns that traffic from CA ports to a CA LID takes: that is what credit
 * loops deadlock.  Everything else is management: routes to switch LIDs
 * (mostly SMPs on VL15, which has no credit flow control) and table
 * entries only switch-originated packets use; in trees where a switch can
 * only be reached through a down-up turn (spine to spine), min-hop routes
 * of that kind necessarily close cycles, so they are reported apart.
 */
static void add_deps(struct rc_ctx *c, bool data_lid)
{
	for (uint32_t u = 0; u < c->nsw; u++) {
		uint32_t cu = c->w.chan[u], cv;
		bool data = data_lid && c->flow[u] > 0;
		uint64_t *deps = data ? c->deps : c->sw_deps;
		uint64_t bit;

		if (cu == VF_NONE)
			continue;
		c->chan_used[cu] = 1;
		cv = c->w.chan[c->w.nxt[u]];
		if (cv == VF_NONE)
			continue;
		bit = c->dep_off[cu] + c->chan_num[cv];
		if (deps[bit / 64] & (1ull << (bit % 64)))
			continue;
		deps[bit / 64] |= 1ull << (bit % 64);
		if (data)
			c->r->dependencies++;
		else
			c->r->sw_dependencies++;
	}
}

static void check_lid(struct rc_ctx *c, unsigned lid, uint32_t dsw)
{
	const struct vf_fabric *f = c->f;
	const struct vf_port *dp = &f->ports[f->lid_port[lid]];
	bool dca = !vf_is_switch(&f->nodes[dp->node]) && dsw != VF_NONE;
	uint32_t n;

	vf_walk_lid(&c->w, lid);
	count_switch_pairs(c, lid, dsw, !vf_is_switch(&f->nodes[dp->node]));
	count_end_pairs(c, lid, !vf_is_switch(&f->nodes[dp->node]));
	if (dca) {
		n = spread_flow(c, dsw);
		add_load(c, n, lid - dp->base_lid);
	}
	add_deps(c, dca);
}

/*
 * LIDs in use, grouped by destination switch (group nsw: none), so that one
 * BFS serves the whole group.  off[] has nsw + 3 entries.
 */
static void group_lids(const struct rc_ctx *c, uint32_t *off, uint16_t *lids)
{
	const struct vf_fabric *f = c->f;
	uint32_t ng = c->nsw + 1;

	for (unsigned l = 1; l <= f->max_lid; l++) {
		uint32_t g;

		if (f->lid_port[l] == VF_NONE)
			continue;
		g = vf_walk_port_switch(&c->w, f->lid_port[l]);
		off[(g == VF_NONE ? c->nsw : g) + 2]++;
	}
	for (uint32_t g = 0; g < ng; g++)
		off[g + 2] += off[g + 1];
	/* off[g + 1] is now group g's start; it ends up as its end */
	for (unsigned l = 1; l <= f->max_lid; l++) {
		uint32_t g;

		if (f->lid_port[l] == VF_NONE)
			continue;
		g = vf_walk_port_switch(&c->w, f->lid_port[l]);
		lids[off[(g == VF_NONE ? c->nsw : g) + 1]++] = l;
	}
}

/*
 * LMC path diversity: for every switch with CAs and every other switch's
 * CA port with LMC > 0, how many distinct egress ports the port's LIDs
 * leave by.  Engines aim for min(2^LMC, equal-cost ports).
 */
static void lmc_diversity(struct rc_ctx *c)
{
	const struct vf_fabric *f = c->f;
	struct vf_route_report *r = c->r;

	for (uint32_t p = 0; p < f->num_ports; p++) {
		const struct vf_port *dp = &f->ports[p];
		const struct vf_port *peer;
		uint32_t dsw;

		if (!dp->lmc || !dp->base_lid ||
		    vf_is_switch(&f->nodes[dp->node]))
			continue;
		peer = vf_usable_peer(f, dp);
		if (!peer || !vf_is_switch(&f->nodes[peer->node]))
			continue;
		dsw = f->nodes[peer->node].sw;
		for (uint32_t s = 0; s < c->nsw; s++) {
			const uint8_t *row = vf_lft_row(c->t, s);
			uint64_t seen[4] = { 0 };
			unsigned distinct = 0;

			if (s == dsw || !c->ca_at[s])
				continue;
			for (unsigned l = 0; l < (1u << dp->lmc); l++) {
				uint8_t port = row[dp->base_lid + l];

				if (!(seen[port / 64] & (1ull << (port % 64))))
					distinct++;
				seen[port / 64] |= 1ull << (port % 64);
			}
			r->lmc_pairs++;
			r->lmc_distinct_sum += distinct;
		}
	}
}

static int check_lids(struct rc_ctx *c)
{
	uint32_t *off = zalloc(c->nsw + 3, sizeof(*off));
	uint16_t *lids = zalloc((size_t)c->f->max_lid + 1, sizeof(*lids));

	if (!off || !lids) {
		free(off);
		free(lids);
		return -ENOMEM;
	}
	group_lids(c, off, lids);
	for (uint32_t g = 0; g <= c->nsw; g++) {
		if (off[g] == off[g + 1])
			continue;
		if (g < c->nsw)
			bfs(c, g);
		else
			for (uint32_t s = 0; s < c->nsw; s++)
				c->dist[s] = -1;
		for (uint32_t i = off[g]; i < off[g + 1]; i++)
			check_lid(c, lids[i], g < c->nsw ? g : VF_NONE);
	}
	free(off);
	free(lids);
	return 0;
}

/* Next dependency of channel k at or after row bit *q, else VF_NONE. */
static uint32_t next_dep(const struct rc_ctx *c, uint32_t k, uint16_t *q)
{
	const struct vf_node *head = sw_node(c, c->w.pnext[c->chan_port[k]]);

	for (; *q <= head->num_ports; (*q)++) {
		uint64_t bit = c->dep_off[k] + *q;
		uint64_t row = c->deps[bit / 64];

		if (c->with_sw_deps)
			row |= c->sw_deps[bit / 64];
		if (row & (1ull << (bit % 64)))
			return c->w.port_chan[head->first_port + (*q)++];
	}
	return VF_NONE;
}

static void sb_channel(const struct rc_ctx *c, struct sbuf *b, uint32_t k)
{
	const struct vf_fabric *f = c->f;
	const struct vf_port *p = &f->ports[c->chan_port[k]];

	sb_printf(b, "%s/%u", vf_node_desc(f, &f->nodes[p->node]), p->num);
}

/* The DFS stack from channel `to` up is the cycle; close it with `to`. */
static void write_cycle(struct rc_ctx *c, const uint32_t *stk, uint32_t sp,
			uint32_t to)
{
	char *out = c->with_sw_deps ? c->r->sw_cycle : c->r->cycle;
	struct sbuf b = { out, sizeof(c->r->cycle), 0, false };
	uint32_t i = 0;

	while (stk[i] != to)
		i++;
	for (; i < sp; i++) {
		sb_channel(c, &b, stk[i]);
		sb_printf(&b, " -> ");
	}
	sb_channel(c, &b, to);
	sb_mark_cut(&b);
	if (c->with_sw_deps)
		c->r->sw_credit_loop = true;
	else
		c->r->credit_loop = true;
}

/* Iterative DFS from root; true when it found (and wrote) a cycle. */
static bool dfs(struct rc_ctx *c, uint32_t root, uint8_t *color,
		uint32_t *stk, uint16_t *it)
{
	uint32_t sp = 0;

	color[root] = GREY;
	stk[sp] = root;
	it[sp++] = 0;
	while (sp) {
		uint32_t k = stk[sp - 1];
		uint32_t to = next_dep(c, k, &it[sp - 1]);

		if (to == VF_NONE) {
			color[k] = BLACK;
			sp--;
		} else if (color[to] == GREY) {
			write_cycle(c, stk, sp, to);
			return true;
		} else if (color[to] == WHITE) {
			color[to] = GREY;
			stk[sp] = to;
			it[sp++] = 0;
		}
	}
	return false;
}

static int find_cycle(struct rc_ctx *c, bool with_sw_deps)
{
	uint8_t *color = zalloc(c->w.nchan, sizeof(*color));
	uint32_t *stk = zalloc(c->w.nchan, sizeof(*stk));
	uint16_t *it = zalloc(c->w.nchan, sizeof(*it));
	int rc = -ENOMEM;

	c->with_sw_deps = with_sw_deps;
	if (color && stk && it) {
		for (uint32_t k = 0; k < c->w.nchan; k++)
			if (color[k] == WHITE && dfs(c, k, color, stk, it))
				break;
		rc = 0;
	}
	free(color);
	free(stk);
	free(it);
	return rc;
}

static void sum_links(struct rc_ctx *c)
{
	struct vf_route_report *r = c->r;
	uint64_t total = 0;

	r->links = c->w.nchan;
	for (uint32_t k = 0; k < c->w.nchan; k++) {
		r->channels += c->chan_used[k];
		r->links_used += c->load[k] > 0;
		total += c->load[k];
		if (c->load[k] > r->load_max)
			r->load_max = c->load[k];
	}
	r->load_avg = c->w.nchan ? (double)total / c->w.nchan : 0;
	r->load_max_over_avg = r->load_avg > 0 ?
		(double)r->load_max / r->load_avg : 0;
	r->load_max_by_offset[0] = r->load_max;
	for (unsigned o = 1; o < r->lid_offsets; o++) {
		const uint64_t *load = c->load_alt + (size_t)(o - 1) *
				       c->w.nchan;

		for (uint32_t k = 0; k < c->w.nchan; k++)
			if (load[k] > r->load_max_by_offset[o])
				r->load_max_by_offset[o] = load[k];
	}
}

static int setup(struct rc_ctx *c)
{
	int rc = setup_ports(c);

	if (!rc)
		rc = setup_channels(c);
	if (!rc)
		rc = setup_adjacency(c);
	if (!rc)
		rc = setup_per_lid(c);
	return rc;
}

int vf_route_check(const struct vf_fabric *f, const struct vf_lfts *t,
		   struct vf_route_report *r)
{
	struct rc_ctx c = { .f = f, .t = t, .r = r };
	int rc;

	memset(r, 0, sizeof(*r));
	/* LFTs for another fabric would be read out of bounds */
	if (!f->finalized || t->num_switches != f->num_switches ||
	    t->max_lid < f->max_lid)
		return -EINVAL;
	c.nsw = f->num_switches;
	rc = setup(&c);
	if (!rc)
		rc = check_lids(&c);
	if (!rc)
		rc = find_cycle(&c, false);
	/* a cycle among CA routes is one among all routes too */
	if (!rc && !r->credit_loop)
		rc = find_cycle(&c, true);
	if (!rc) {
		sum_links(&c);
		lmc_diversity(&c);
	}
	ctx_free(&c);
	return rc;
}

int vf_route_check_vl(const struct vf_fabric *f, const struct vf_lfts *t,
		      const struct vf_vl_model *m, struct vf_route_report *r)
{
	struct vf_vl_report vr;
	int rc = vf_route_check(f, t, r);

	if (rc)
		return rc;
	rc = vf_vl_check(f, t, m, &vr);
	if (rc)
		return rc;
	r->vl_aware = true;
	r->single_vl_loop = r->credit_loop;
	r->credit_loop = vr.credit_loop;
	memcpy(r->cycle, vr.cycle, sizeof(r->cycle));
	r->vls_used = vr.vls_used;
	r->sls_used = vr.sls_used;
	r->vl_dependencies = vr.dependencies;
	r->vl_dropped = vr.dropped;
	return 0;
}

bool vf_route_report_ok(const struct vf_route_report *r)
{
	return !r->ca_unreachable && !r->sw_unreachable && !r->credit_loop &&
	       !r->vl_dropped;
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

void vf_route_report_print(FILE *out, const struct vf_route_report *r)
{
	uint64_t reach = r->ca_pairs + r->sw_pairs - r->ca_unreachable -
			 r->sw_unreachable;

	fprintf(out, "reachability  CA pairs %" PRIu64 ", %" PRIu64
		" unreachable; switch pairs %" PRIu64 ", %" PRIu64
		" unreachable; %" PRIu64 " in loops\n",
		r->ca_pairs, r->ca_unreachable, r->sw_pairs,
		r->sw_unreachable, r->loops);
	fprintf(out, "hops          avg %.2f, shortest avg %.2f; %" PRIu64
		" pairs stretched, max stretch %u\n",
		ratio(r->hops_sum, reach), ratio(r->min_hops_sum, reach),
		r->stretched, r->max_stretch);
	if (r->vl_aware) {
		char vls[48], sls[48];

		vf_vl_mask_str(r->vls_used, vls, sizeof(vls));
		vf_vl_mask_str(r->sls_used, sls, sizeof(sls));
		fprintf(out, "credit loops  per VL: %s%s (SLs %s on VLs %s, %"
			PRIu64 " dependencies; on one VL: %s)\n",
			r->credit_loop ? "FOUND: " : "none",
			r->credit_loop ? r->cycle : "", sls, vls,
			r->vl_dependencies,
			!r->single_vl_loop ? "none" : r->credit_loop ?
			"a cycle too" : "a cycle, which the VLs break");
		if (r->vl_dropped)
			fprintf(out, "              %" PRIu64
				" routes (source switch, LID, SL) are on VL15 and dropped\n",
				r->vl_dropped);
	} else {
		fprintf(out, "credit loops  %s%s (%u channels, %" PRIu64
			" dependencies)\n", r->credit_loop ? "FOUND: " : "none",
			r->credit_loop ? r->cycle : "", r->channels,
			r->dependencies);
	}
	if (r->sw_credit_loop)
		fprintf(out, "              management routes (to switch LIDs, "
			"from switches) add %" PRIu64
			" dependencies and a cycle: %s\n",
			r->sw_dependencies, r->sw_cycle);
	fprintf(out, "link load     max %" PRIu64
		", avg %.2f, max/avg %.2f over %u links, %u used\n",
		r->load_max, r->load_avg, r->load_max_over_avg, r->links,
		r->links_used);
	if (r->lid_offsets > 1) {
		fprintf(out, "link load by LID offset: max");
		for (unsigned o = 0; o < r->lid_offsets; o++)
			fprintf(out, "%s %" PRIu64, o ? "," : "",
				r->load_max_by_offset[o]);
		fputc('\n', out);
	}
	if (r->lmc_pairs)
		fprintf(out, "lmc paths     %.2f distinct egress ports per "
			"remote port's LIDs (%" PRIu64 " switch/port pairs)\n",
			ratio(r->lmc_distinct_sum, r->lmc_pairs), r->lmc_pairs);
	for (unsigned i = 0; i < r->num_examples; i++)
		fprintf(out, "failure       %s\n", r->examples[i]);
}

struct json_object *vf_route_report_json(const struct vf_route_report *r)
{
	struct json_object *o = json_object_new_object();
	struct json_object *lo = json_object_new_array();
	struct json_object *ex = json_object_new_array();
	int rc = 0;

	rc |= vf_json_add(o, "ca_pairs", json_object_new_uint64(r->ca_pairs));
	rc |= vf_json_add(o, "ca_unreachable",
			  json_object_new_uint64(r->ca_unreachable));
	rc |= vf_json_add(o, "sw_pairs", json_object_new_uint64(r->sw_pairs));
	rc |= vf_json_add(o, "sw_unreachable",
			  json_object_new_uint64(r->sw_unreachable));
	rc |= vf_json_add(o, "loops", json_object_new_uint64(r->loops));
	rc |= vf_json_add(o, "stretched",
			  json_object_new_uint64(r->stretched));
	rc |= vf_json_add(o, "max_stretch",
			  json_object_new_int64(r->max_stretch));
	rc |= vf_json_add(o, "hops_sum", json_object_new_uint64(r->hops_sum));
	rc |= vf_json_add(o, "min_hops_sum",
			  json_object_new_uint64(r->min_hops_sum));
	rc |= vf_json_add(o, "channels", json_object_new_int64(r->channels));
	rc |= vf_json_add(o, "dependencies",
			  json_object_new_uint64(r->dependencies));
	rc |= vf_json_add(o, "credit_loop",
			  json_object_new_boolean(r->credit_loop));
	rc |= vf_json_add(o, "cycle", vf_json_bytes(r->cycle));
	rc |= vf_json_add(o, "vl_aware", json_object_new_boolean(r->vl_aware));
	if (r->vl_aware) {
		rc |= vf_json_add(o, "single_vl_loop",
				  json_object_new_boolean(r->single_vl_loop));
		rc |= vf_json_add(o, "vls_used",
				  json_object_new_int64(r->vls_used));
		rc |= vf_json_add(o, "sls_used",
				  json_object_new_int64(r->sls_used));
		rc |= vf_json_add(o, "vl_dependencies",
				  json_object_new_uint64(r->vl_dependencies));
		rc |= vf_json_add(o, "vl_dropped",
				  json_object_new_uint64(r->vl_dropped));
	}
	rc |= vf_json_add(o, "sw_dependencies",
			  json_object_new_uint64(r->sw_dependencies));
	rc |= vf_json_add(o, "sw_credit_loop",
			  json_object_new_boolean(r->sw_credit_loop));
	rc |= vf_json_add(o, "sw_cycle", vf_json_bytes(r->sw_cycle));
	rc |= vf_json_add(o, "lmc_pairs", json_object_new_uint64(r->lmc_pairs));
	rc |= vf_json_add(o, "lmc_paths_avg",
			  vf_json_fixed(ratio(r->lmc_distinct_sum,
					      r->lmc_pairs), 4));
	for (unsigned i = 0; i < r->lid_offsets; i++)
		rc |= vf_json_push(lo, json_object_new_uint64(
					   r->load_max_by_offset[i]));
	rc |= vf_json_add(o, "load_max_by_offset", lo);
	rc |= vf_json_add(o, "links", json_object_new_int64(r->links));
	rc |= vf_json_add(o, "links_used",
			  json_object_new_int64(r->links_used));
	rc |= vf_json_add(o, "load_max", json_object_new_uint64(r->load_max));
	rc |= vf_json_add(o, "load_avg", vf_json_fixed(r->load_avg, 4));
	rc |= vf_json_add(o, "load_max_over_avg",
			  vf_json_fixed(r->load_max_over_avg, 4));
	rc |= vf_json_add(o, "ok",
			  json_object_new_boolean(vf_route_report_ok(r)));
	for (unsigned i = 0; i < r->num_examples; i++)
		rc |= vf_json_push(ex, vf_json_bytes(r->examples[i]));
	rc |= vf_json_add(o, "examples", ex);
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
