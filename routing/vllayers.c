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

/* Classes of CA LIDs, each at one switch, in switch order. */
struct ly_classes {
	uint32_t n;
	uint32_t *sw;		/* [n] the switch of a class */
	uint32_t *start;	/* [n + 1] into lids: a class's CA LIDs */
};

struct ly_ctx {
	const struct vf_fabric *f;
	const struct vf_lfts *t;
	struct vf_layers *l;
	struct vf_walk w;	/* the topology: port -> channel, next */
	struct vf_depgraph g[VF_LAYERS_MAX];
	unsigned graphs;	/* g[0, graphs) initialized */
	uint16_t *lids;		/* CA LIDs, by switch */
	uint32_t *lid_sw;	/* [max_lid + 1] a CA LID's switch, VF_NONE */
	uint32_t num_cas;
	struct ly_classes src, dst;
	uint8_t *len;		/* [y * nsrc + x] a pair's route length + 1,
				 * 0 when it is not layered */
	uint32_t *path;		/* [nsw] one route's channels */
};

static void *zalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/* The switch each CA LID's traffic enters at, and the CA LIDs by switch. */
static int index_cas(struct ly_ctx *c)
{
	const struct vf_fabric *f = c->f;
	uint32_t *fill = c->path;	/* zeroed */

	c->lid_sw = zalloc(f->max_lid + 1u, sizeof(*c->lid_sw));
	if (!c->lid_sw)
		return -ENOMEM;
	for (unsigned lid = 0; lid <= f->max_lid; lid++) {
		uint32_t port = lid ? f->lid_port[lid] : VF_NONE, s = VF_NONE;

		if (port != VF_NONE &&
		    !vf_is_switch(&f->nodes[f->ports[port].node]))
			s = vf_walk_port_switch(&c->w, port);
		c->lid_sw[lid] = s;
		if (s != VF_NONE) {
			fill[s]++;
			c->num_cas++;
		}
	}
	c->lids = zalloc(c->num_cas, sizeof(*c->lids));
	if (!c->lids)
		return -ENOMEM;
	for (uint32_t s = 0, at = 0; s < f->num_switches; s++) {
		uint32_t run = fill[s];

		fill[s] = at;
		at += run;
	}
	for (unsigned lid = 0; lid <= f->max_lid; lid++)
		if (c->lid_sw[lid] != VF_NONE)
			c->lids[fill[c->lid_sw[lid]]++] = (uint16_t)lid;
	return 0;
}

/*
 * The CA LIDs into classes, one per LID or one per switch: k's arrays,
 * of_lid[] each CA LID's class (else VF_NONE), and, given sw_first
 * ([nsw + 1]), the classes at each switch.
 */
static int make_classes(struct ly_ctx *c, bool by_switch,
			struct ly_classes *k, uint32_t *of_lid,
			uint32_t *sw_first)
{
	k->sw = zalloc(c->num_cas, sizeof(*k->sw));
	k->start = zalloc(c->num_cas + 1u, sizeof(*k->start));
	if (!k->sw || !k->start)
		return -ENOMEM;
	for (unsigned lid = 0; lid <= c->f->max_lid; lid++)
		of_lid[lid] = VF_NONE;
	for (uint32_t i = 0; i < c->num_cas; i++) {
		uint32_t s = c->lid_sw[c->lids[i]];

		if (!by_switch || !k->n || k->sw[k->n - 1] != s) {
			k->sw[k->n] = s;
			k->start[k->n++] = i;
			if (sw_first)
				sw_first[s + 1] = k->n;
		}
		of_lid[c->lids[i]] = k->n - 1;
	}
	k->start[k->n] = c->num_cas;
	for (uint32_t s = 0; sw_first && s < c->f->num_switches; s++)
		if (sw_first[s + 1] < sw_first[s])	/* none here */
			sw_first[s + 1] = sw_first[s];
	return 0;
}

/*
 * The units the layers are given to (vllayers.h): both ways, pairs of
 * CA LIDs up to VF_LAYERS_FINE of them, else pairs of switches; one way,
 * routes (source switch, CA LID).
 */
static int setup(struct ly_ctx *c)
{
	const struct vf_fabric *f = c->f;
	struct vf_layers *l = c->l;
	bool src_by_switch;
	size_t pairs;
	int rc = vf_walk_init(&c->w, f, c->t);

	if (rc)
		return rc;
	c->path = zalloc(f->num_switches + 1u, sizeof(*c->path));
	l->src_cls = zalloc(f->max_lid + 1u, sizeof(*l->src_cls));
	l->dst_cls = zalloc(f->max_lid + 1u, sizeof(*l->dst_cls));
	l->sw_src = zalloc(f->num_switches + 1u, sizeof(*l->sw_src));
	if (!c->path || !l->src_cls || !l->dst_cls || !l->sw_src)
		return -ENOMEM;
	rc = index_cas(c);	/* uses path, zeroed, as scratch */
	if (rc)
		return rc;
	l->dst_by_switch = l->both_ways &&
			   (uint64_t)c->num_cas * c->num_cas > VF_LAYERS_FINE;
	src_by_switch = l->dst_by_switch || !l->both_ways;
	rc = make_classes(c, src_by_switch, &c->src, l->src_cls, l->sw_src);
	if (!rc)
		rc = make_classes(c, l->dst_by_switch, &c->dst, l->dst_cls,
				  NULL);
	if (rc)
		return rc;
	l->nsrc = c->src.n;
	l->ndst = c->dst.n;
	/* the pair table and the pairs' lengths */
	pairs = (size_t)l->nsrc * l->ndst;
	if (pairs * 2 > VF_LAYERS_MEM)
		return -E2BIG;
	l->pair = zalloc(pairs, 1);
	c->len = zalloc(pairs, 1);
	return l->pair && c->len ? 0 : -ENOMEM;
}

static void ctx_free(struct ly_ctx *c)
{
	for (unsigned i = 0; i < c->graphs; i++)
		vf_depgraph_free(&c->g[i]);
	vf_walk_free(&c->w);
	free(c->src.sw);
	free(c->src.start);
	free(c->dst.sw);
	free(c->dst.start);
	free(c->lids);
	free(c->lid_sw);
	free(c->len);
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
 * The routes from the CAs of source class x to the LIDs of destination
 * class y (and, both ways, the classes being alike, from y's to x's),
 * each walked into path: into g, or, with g NULL, the longest one's
 * length added up over the directions.  -ELOOP when a route goes round
 * or closes a cycle in g.
 */
static int pair_routes(struct ly_ctx *c, uint32_t x, uint32_t y,
		       struct vf_depgraph *g)
{
	int total = 0;

	for (int way = 0; way < (c->l->both_ways ? 2 : 1); way++) {
		uint32_t from_sw = way ? c->dst.sw[y] : c->src.sw[x];
		uint32_t to = way ? x : y, to_sw = way ? c->src.sw[x] :
							 c->dst.sw[y];
		const struct ly_classes *k = way ? &c->src : &c->dst;
		int longest = 0;

		for (uint32_t i = k->start[to]; i < k->start[to + 1]; i++) {
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
 * Put the routes of the pair x, y into the first of the max layers where
 * they close no cycle: that layer, max when none has room, or -ENOMEM.
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

/* The pairs to layer: both ways, x < y; one way, every pair. */
static bool takes(const struct ly_ctx *c, uint32_t x, uint32_t y)
{
	return (!c->l->both_ways || x < y) &&
	       c->src.sw[x] != c->dst.sw[y];	/* else no link between */
}

/*
 * Each pair's length (its longest routes, added up both ways) into
 * len[], and how many pairs have each; -ELOOP when a route goes round.
 */
static int measure_pairs(struct ly_ctx *c, size_t *by_len)
{
	const struct vf_layers *l = c->l;

	for (uint32_t y = 0; y < l->ndst; y++)
		for (uint32_t x = 0; x < l->nsrc; x++) {
			uint8_t *slot = &c->len[(size_t)y * l->nsrc + x];
			int len;

			if (!takes(c, x, y))
				continue;
			len = pair_routes(c, x, y, NULL);
			if (len < 0)
				return -ELOOP;
			*slot = (uint8_t)(len > 254 ? 255 : len + 1);
			by_len[*slot]++;
		}
	return 0;
}

/*
 * First fit decreasing: the pairs with the longest routes first (on tori,
 * dragonflies and random graphs it needed fewer layers than destination
 * by destination or random orders), and among equal ones destination by
 * destination.
 */
static int layer_pairs(struct ly_ctx *c, unsigned max)
{
	struct vf_layers *l = c->l;
	size_t by_len[256] = { 0 };
	int rc = measure_pairs(c, by_len);

	for (unsigned k = 255; !rc && k > 0; k--) {
		for (uint32_t y = 0; !rc && by_len[k] && y < l->ndst; y++)
			for (uint32_t x = 0; !rc && x < l->nsrc; x++) {
				int at;

				if (c->len[(size_t)y * l->nsrc + x] != k)
					continue;
				by_len[k]--;
				at = fit(c, x, y, max);
				if (at < 0) {
					rc = at;
				} else if ((unsigned)at == max) {
					l->num = max + 1;
					rc = -ERANGE;
				} else {
					if ((unsigned)at + 1 > l->num)
						l->num = (unsigned)at + 1;
					l->pair[(size_t)x * l->ndst + y] =
						(uint8_t)at;
					if (l->both_ways)
						l->pair[(size_t)y * l->ndst + x] =
							(uint8_t)at;
				}
			}
	}
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
	free(l->src_cls);
	free(l->dst_cls);
	free(l->sw_src);
	memset(l, 0, sizeof(*l));
	l->num = 1;
}

const char *vf_layers_unit(const struct vf_layers *l)
{
	if (!l->both_ways)
		return "route (switch to host LID)";
	return l->dst_by_switch ? "pair of switches" : "pair of hosts";
}

uint16_t vf_layers_from_switch(const struct vf_layers *l, uint32_t s,
			       unsigned lid)
{
	uint16_t mask = 0;
	uint32_t y;

	if (!l->pair || s >= l->nsw || lid > l->max_lid)
		return 1;
	y = l->dst_cls[lid];
	if (y == VF_NONE)
		return 1;
	/* none when no CA LID enters at s (a CA port without a LID sends
	 * nothing): what was layered, so what the check must walk */
	for (uint32_t x = l->sw_src[s]; x < l->sw_src[s + 1]; x++)
		mask |= (uint16_t)(1u << l->pair[(size_t)x * l->ndst + y]);
	return mask;
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
