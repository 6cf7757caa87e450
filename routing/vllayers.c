// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* Layers that make a routing deadlock-free (vllayers.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/internal/depgraph.h"
#include "routing/internal/lidwalk.h"
#include "vlcheck.h"
#include "vllayers.h"

struct ly_ctx {
	const struct vf_fabric *f;
	const struct vf_lfts *t;
	struct vf_layers *l;
	struct vf_walk w;	/* the topology: port -> channel, next */
	struct vf_depgraph g[VF_LAYERS_MAX];
	unsigned graphs;	/* g[0, graphs) initialized */
	uint32_t *cls_sw;	/* [ncls] the switch of a class */
	uint32_t *cls_start;	/* [ncls + 1] into lids: a class's CA LIDs */
	uint16_t *lids;		/* CA LIDs, by switch */
	uint32_t *path;		/* [nsw] one route's channels */
};

static void *zalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/*
 * The switch each CA LID's traffic enters at; the CA LIDs sorted by it
 * (a counting sort) into classes, one per LID or one per switch.
 */
static int index_cas(struct ly_ctx *c)
{
	const struct vf_fabric *f = c->f;
	struct vf_layers *l = c->l;
	uint32_t n = 0, *lid_sw = l->lid_cls, *fill = c->path;

	for (unsigned lid = 0; lid <= f->max_lid; lid++) {
		uint32_t port = lid ? f->lid_port[lid] : VF_NONE, s = VF_NONE;

		if (port != VF_NONE &&
		    !vf_is_switch(&f->nodes[f->ports[port].node]))
			s = vf_walk_port_switch(&c->w, port);
		lid_sw[lid] = s;	/* until the classes are known */
		if (s != VF_NONE) {
			fill[s]++;
			n++;
		}
	}
	l->by_switch = (uint64_t)n * n > VF_LAYERS_FINE;
	c->lids = zalloc(n, sizeof(*c->lids));
	c->cls_start = zalloc(n + 1u, sizeof(*c->cls_start));
	c->cls_sw = zalloc(n, sizeof(*c->cls_sw));
	if (!c->lids || !c->cls_start || !c->cls_sw)
		return -ENOMEM;
	for (uint32_t s = 0, at = 0; s < f->num_switches; s++) {
		uint32_t run = fill[s];

		fill[s] = at;
		at += run;
	}
	for (unsigned lid = 0; lid <= f->max_lid; lid++)
		if (lid_sw[lid] != VF_NONE)
			c->lids[fill[lid_sw[lid]]++] = (uint16_t)lid;
	/* the classes, in the order of lids */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = lid_sw[c->lids[i]];

		if (!l->by_switch || !l->ncls || c->cls_sw[l->ncls - 1] != s) {
			c->cls_sw[l->ncls] = s;
			c->cls_start[l->ncls++] = i;
			l->sw_cls[s + 1] = l->ncls;
		}
		lid_sw[c->lids[i]] = l->ncls - 1;	/* now its class */
	}
	c->cls_start[l->ncls] = n;
	for (uint32_t s = 0; s < f->num_switches; s++)	/* none: empty */
		if (l->sw_cls[s + 1] < l->sw_cls[s])
			l->sw_cls[s + 1] = l->sw_cls[s];
	return 0;
}

static int setup(struct ly_ctx *c)
{
	const struct vf_fabric *f = c->f;
	struct vf_layers *l = c->l;
	size_t pairs;
	int rc = vf_walk_init(&c->w, f, c->t);

	if (rc)
		return rc;
	c->path = zalloc(f->num_switches + 1u, sizeof(*c->path));
	l->lid_cls = zalloc(f->max_lid + 1u, sizeof(*l->lid_cls));
	l->sw_cls = zalloc(f->num_switches + 1u, sizeof(*l->sw_cls));
	if (!c->path || !l->lid_cls || !l->sw_cls)
		return -ENOMEM;
	rc = index_cas(c);	/* uses path, zeroed, as scratch */
	if (rc)
		return rc;
	/* the pair table and the order of the pairs (order_pairs) */
	pairs = (size_t)l->ncls * l->ncls;
	if (pairs * (1 + sizeof(uint32_t)) > VF_LAYERS_MEM)
		return -E2BIG;
	l->pair = zalloc(pairs, 1);
	return l->pair ? 0 : -ENOMEM;
}

static void ctx_free(struct ly_ctx *c)
{
	for (unsigned i = 0; i < c->graphs; i++)
		vf_depgraph_free(&c->g[i]);
	vf_walk_free(&c->w);
	free(c->cls_sw);
	free(c->cls_start);
	free(c->lids);
	free(c->path);
}

/* Layer i's graph, made when first needed. */
static struct vf_depgraph *layer(struct ly_ctx *c, unsigned i)
{
	while (c->graphs <= i) {
		if (vf_depgraph_init(&c->g[c->graphs], c->w.nchan))
			return NULL;
		c->graphs++;
	}
	return &c->g[i];
}

/*
 * The channels from switch s to switch dsw toward lid, by the tables,
 * into path: their number; 0 when the packet never leaves s or is
 * dropped on the way (no dependency: the route check reports it), -ELOOP
 * when it goes round.
 */
static int route_of(struct ly_ctx *c, uint32_t s, unsigned lid,
		    uint32_t dsw, uint32_t *path)
{
	const struct vf_fabric *f = c->f;
	uint32_t n = 0;

	while (s != dsw) {
		const struct vf_node *sw = &f->nodes[f->switches[s]];
		uint8_t out = vf_lft_row(c->t, s)[lid];
		uint32_t port, chan;

		if (out == VF_NO_PORT || !out || out > sw->num_ports)
			return 0;
		port = sw->first_port + out;
		chan = c->w.port_chan[port];
		if (chan == VF_NONE)
			return 0;
		if (n == f->num_switches)
			return -ELOOP;
		path[n++] = chan;
		s = c->w.pnext[port];
	}
	return (int)n;
}

/* Add a route's turns to g; on a cycle, -ELOOP (what was added stays). */
static int add_route(struct vf_depgraph *g, const uint32_t *path, int n)
{
	for (int k = 0; k + 1 < n; k++) {
		int rc = vf_depgraph_add_acyclic(g, path[k], path[k + 1]);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * The routes of the traffic from class x to class y (and back, both
 * ways), each walked into path: into g, or, with g NULL, the longest
 * one's length added up over the directions.  -ELOOP when a route goes
 * round or closes a cycle in g.
 */
static int pair_routes(struct ly_ctx *c, uint32_t x, uint32_t y,
		       struct vf_depgraph *g)
{
	int total = 0;

	for (int way = 0; way < (c->l->both_ways ? 2 : 1); way++) {
		uint32_t from = way ? y : x, to = way ? x : y;
		uint32_t from_sw = c->cls_sw[from], to_sw = c->cls_sw[to];
		int longest = 0;

		for (uint32_t i = c->cls_start[to]; i < c->cls_start[to + 1];
		     i++) {
			int n = route_of(c, from_sw, c->lids[i], to_sw, c->path);
			int rc;

			if (n < 0)
				return n;
			if (!g) {
				longest = n > longest ? n : longest;
				continue;
			}
			rc = add_route(g, c->path, n);
			if (rc)
				return rc;
		}
		total += longest;
	}
	return total;
}

/*
 * Put the routes between classes x and y into the first of the max
 * layers where they close no cycle: that layer, max when none has room,
 * or -ENOMEM.
 */
static int fit(struct ly_ctx *c, uint32_t x, uint32_t y, unsigned max)
{
	for (unsigned i = 0; i < max; i++) {
		struct vf_depgraph *g = layer(c, i);
		uint32_t keep;
		int rc;

		if (!g)
			return -ENOMEM;
		keep = g->num_edges;
		rc = pair_routes(c, x, y, g);
		if (!rc) {
			vf_depgraph_keep(g);
			return (int)i;
		}
		vf_depgraph_truncate(g, keep);
		if (rc != -ELOOP)
			return rc;
	}
	return (int)max;
}

/* The pairs to layer: both ways, x < y; one way, every x != y. */
static bool takes(const struct ly_ctx *c, uint32_t x, uint32_t y)
{
	return (c->l->both_ways ? x < y : x != y) &&
	       c->cls_sw[x] != c->cls_sw[y];	/* else no link between */
}

/*
 * The pairs of classes to layer, longest routes first (first fit
 * decreasing: on tori, dragonflies and random graphs it needed fewer
 * layers than destination by destination or random orders): a counting
 * sort by route length, the lengths kept for a moment in the pair table.
 * *count of them into *order (x * ncls + y).
 */
static int order_pairs(struct ly_ctx *c, uint32_t **order, size_t *count)
{
	struct vf_layers *l = c->l;
	size_t by_len[256] = { 0 }, n = 0;
	uint32_t *out;

	for (uint32_t y = 0; y < l->ncls; y++)	/* destination by destination */
		for (uint32_t x = 0; x < l->ncls; x++) {
			uint8_t *slot = &l->pair[(size_t)x * l->ncls + y];
			int len;

			if (!takes(c, x, y))
				continue;
			len = pair_routes(c, x, y, NULL);
			if (len < 0)
				return -ELOOP;
			*slot = (uint8_t)(len > 254 ? 255 : len + 1);
			by_len[*slot]++;
			n++;
		}
	out = malloc((n ? n : 1) * sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (size_t k = 256, at = 0; k-- > 0;) {	/* longest first */
		size_t run = by_len[k];

		by_len[k] = at;
		at += run;
	}
	for (uint32_t y = 0; y < l->ncls; y++)
		for (uint32_t x = 0; x < l->ncls; x++) {
			uint8_t *slot = &l->pair[(size_t)x * l->ncls + y];

			if (*slot)
				out[by_len[*slot]++] = x * l->ncls + y;
			*slot = 0;
		}
	*order = out;
	*count = n;
	return 0;
}

static int layer_pairs(struct ly_ctx *c, unsigned max)
{
	struct vf_layers *l = c->l;
	uint32_t *order = NULL;
	size_t count = 0;
	int rc = order_pairs(c, &order, &count);

	for (size_t i = 0; !rc && i < count; i++) {
		uint32_t x = order[i] / l->ncls, y = order[i] % l->ncls;
		int at = fit(c, x, y, max);

		if (at < 0) {
			rc = at;
		} else if ((unsigned)at == max) {
			l->num = max + 1;
			rc = -ERANGE;
		} else {
			if ((unsigned)at + 1 > l->num)
				l->num = (unsigned)at + 1;
			l->pair[(size_t)x * l->ncls + y] = (uint8_t)at;
			if (l->both_ways)
				l->pair[(size_t)y * l->ncls + x] = (uint8_t)at;
		}
	}
	free(order);
	return rc;
}

int vf_layers_build(const struct vf_fabric *f, const struct vf_lfts *t,
		    unsigned max, bool both_ways, struct vf_layers *l)
{
	struct ly_ctx c = { .f = f, .t = t, .l = l };
	int rc;

	memset(l, 0, sizeof(*l));
	l->num = 1;
	l->both_ways = both_ways;
	l->nsw = f->num_switches;
	l->max_lid = f->max_lid;
	if (!max || max > VF_LAYERS_MAX)
		return -EINVAL;
	rc = setup(&c);
	if (!rc)
		rc = layer_pairs(&c, max);
	ctx_free(&c);
	if (rc || l->num == 1) {
		free(l->pair);
		l->pair = NULL;
	}
	return rc;
}

void vf_layers_free(struct vf_layers *l)
{
	free(l->pair);
	free(l->lid_cls);
	free(l->sw_cls);
	memset(l, 0, sizeof(*l));
	l->num = 1;
}

uint16_t vf_layers_from_switch(const struct vf_layers *l, uint32_t s,
			       unsigned lid)
{
	uint16_t mask = 0;
	uint32_t y;

	if (!l->pair || s >= l->nsw || lid > l->max_lid)
		return 1;
	y = l->lid_cls[lid];
	if (y == VF_NONE)
		return 1;
	for (uint32_t x = l->sw_cls[s]; x < l->sw_cls[s + 1]; x++)
		mask |= (uint16_t)(1u << l->pair[(size_t)x * l->ncls + y]);
	return mask ? mask : 1;
}

static uint16_t layer_sls(const void *ctx, uint32_t s, unsigned lid)
{
	return vf_layers_from_switch(ctx, s, lid);
}

static uint8_t layer_vl(const void *ctx, uint32_t s, uint8_t in, uint8_t out,
			uint8_t sl)
{
	(void)ctx;
	(void)s;
	(void)in;
	(void)out;
	return sl;
}

void vf_layers_vl_model(const struct vf_layers *l, struct vf_vl_model *m)
{
	m->path_sls = layer_sls;
	m->sl2vl = layer_vl;
	m->ctx = l;
}
