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
	uint32_t *ca_sw;	/* [num_cas] the switch a CA LID enters at */
	uint32_t *path[2];	/* the two routes of a pair */
};

static void *zalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/* CA LIDs, indexed, with the switch each one's traffic enters at. */
static int index_cas(struct ly_ctx *c)
{
	const struct vf_fabric *f = c->f;
	struct vf_layers *l = c->l;
	uint32_t n = 0;

	l->ca_index = zalloc(f->max_lid + 1u, sizeof(*l->ca_index));
	l->ca_lid = zalloc(f->max_lid + 1u, sizeof(*l->ca_lid));
	c->ca_sw = zalloc(f->max_lid + 1u, sizeof(*c->ca_sw));
	l->at_start = zalloc(f->num_switches + 1u, sizeof(*l->at_start));
	if (!l->ca_index || !l->ca_lid || !c->ca_sw || !l->at_start)
		return -ENOMEM;
	for (unsigned lid = 0; lid <= f->max_lid; lid++) {
		uint32_t port = lid ? f->lid_port[lid] : VF_NONE, s;

		l->ca_index[lid] = VF_NONE;
		if (port == VF_NONE ||
		    vf_is_switch(&f->nodes[f->ports[port].node]))
			continue;
		s = vf_walk_port_switch(&c->w, port);
		if (s == VF_NONE)
			continue;
		l->ca_index[lid] = n;
		l->ca_lid[n] = (uint16_t)lid;
		c->ca_sw[n++] = s;
	}
	l->num_cas = n;
	/* the CA LIDs of each switch: counting sort */
	l->at = zalloc(n, sizeof(*l->at));
	if (!l->at)
		return -ENOMEM;
	for (uint32_t a = 0; a < n; a++)
		l->at_start[c->ca_sw[a] + 1]++;
	for (uint32_t s = 0; s < f->num_switches; s++)
		l->at_start[s + 1] += l->at_start[s];
	for (uint32_t a = 0, *fill = c->path[0]; a < n; a++)
		l->at[l->at_start[c->ca_sw[a]] + fill[c->ca_sw[a]]++] = a;
	return 0;
}

static int setup(struct ly_ctx *c)
{
	const struct vf_fabric *f = c->f;
	size_t pairs;
	int rc = vf_walk_init(&c->w, f, c->t);

	if (rc)
		return rc;
	c->path[0] = zalloc(f->num_switches + 1u, sizeof(*c->path[0]));
	c->path[1] = zalloc(f->num_switches + 1u, sizeof(*c->path[1]));
	if (!c->path[0] || !c->path[1])
		return -ENOMEM;
	rc = index_cas(c);	/* uses path[0], zeroed, as scratch */
	if (rc)
		return rc;
	pairs = (size_t)c->l->num_cas * c->l->num_cas;
	if (pairs > VF_LAYERS_MEM)
		return -E2BIG;
	c->l->pair = zalloc(pairs, 1);
	return c->l->pair ? 0 : -ENOMEM;
}

static void ctx_free(struct ly_ctx *c)
{
	for (unsigned i = 0; i < c->graphs; i++)
		vf_depgraph_free(&c->g[i]);
	vf_walk_free(&c->w);
	free(c->ca_sw);
	free(c->path[0]);
	free(c->path[1]);
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

/* Add a route's turns to g; false (nothing of it kept) on a cycle. */
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
 * Put the pair's two routes (n[0] and n[1] channels) into the first of
 * the max layers where they close no cycle: that layer, max when none
 * has room, or -ENOMEM.
 */
static int fit(struct ly_ctx *c, const int *n, unsigned max)
{
	for (unsigned i = 0; i < max; i++) {
		struct vf_depgraph *g = layer(c, i);
		uint32_t keep;
		int rc;

		if (!g)
			return -ENOMEM;
		keep = g->num_edges;
		rc = add_route(g, c->path[0], n[0]);
		if (!rc)
			rc = add_route(g, c->path[1], n[1]);
		if (!rc)
			return (int)i;
		vf_depgraph_truncate(g, keep);
		if (rc != -ELOOP)
			return rc;
	}
	return (int)max;
}

/* The routes of the pair a < b into path[]: their lengths, or -ELOOP. */
static int routes_of(struct ly_ctx *c, uint32_t a, uint32_t b, int *n)
{
	const struct vf_layers *l = c->l;

	n[0] = route_of(c, c->ca_sw[a], l->ca_lid[b], c->ca_sw[b], c->path[0]);
	n[1] = route_of(c, c->ca_sw[b], l->ca_lid[a], c->ca_sw[a], c->path[1]);
	return n[0] < 0 || n[1] < 0 ? -ELOOP : 0;
}

/* The pairs to layer: both ways, a < b; one way, every a != b. */
static bool takes(const struct ly_ctx *c, uint32_t a, uint32_t b)
{
	return (c->l->both_ways ? a < b : a != b) &&
	       c->ca_sw[a] != c->ca_sw[b];	/* else no link between */
}

/*
 * The pairs of CA LIDs to layer, longest routes first (first fit
 * decreasing: on tori, dragonflies and random graphs it needed fewer
 * layers than destination by destination or random orders): a counting
 * sort by route length, the lengths kept for a moment in the pair table.
 * *count of them into *order (a * num_cas + b).
 */
static int order_pairs(struct ly_ctx *c, uint32_t **order, size_t *count)
{
	struct vf_layers *l = c->l;
	size_t by_len[256] = { 0 }, n = 0;
	uint32_t *out;
	int len[2];

	for (uint32_t b = 0; b < l->num_cas; b++)
		for (uint32_t a = 0; a < l->num_cas; a++) {
			uint8_t *slot = &l->pair[(size_t)a * l->num_cas + b];
			int sum;

			*slot = 0;
			if (!takes(c, a, b))
				continue;
			if (routes_of(c, a, b, len))
				return -ELOOP;
			sum = len[0] + (l->both_ways ? len[1] : 0);
			*slot = (uint8_t)(sum > 254 ? 255 : sum + 1);
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
	for (uint32_t b = 0; b < l->num_cas; b++)
		for (uint32_t a = 0; a < l->num_cas; a++) {
			uint8_t *slot = &l->pair[(size_t)a * l->num_cas + b];

			if (*slot)
				out[by_len[*slot]++] = a * l->num_cas + b;
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
		uint32_t a = order[i] / l->num_cas, b = order[i] % l->num_cas;
		int n[2], at;

		routes_of(c, a, b, n);
		if (!l->both_ways)
			n[1] = 0;
		at = fit(c, n, max);
		if (at < 0) {
			rc = at;
		} else if ((unsigned)at == max) {
			l->num = max + 1;
			rc = -ERANGE;
		} else {
			if ((unsigned)at + 1 > l->num)
				l->num = (unsigned)at + 1;
			l->pair[(size_t)a * l->num_cas + b] = (uint8_t)at;
			if (l->both_ways)
				l->pair[(size_t)b * l->num_cas + a] =
					(uint8_t)at;
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
	free(l->ca_index);
	free(l->ca_lid);
	free(l->at_start);
	free(l->at);
	memset(l, 0, sizeof(*l));
	l->num = 1;
}

uint16_t vf_layers_from_switch(const struct vf_layers *l, uint32_t s,
			       unsigned lid)
{
	uint16_t mask = 0;

	if (!l->pair || s >= l->nsw)
		return 1;
	for (uint32_t i = l->at_start[s]; i < l->at_start[s + 1]; i++)
		mask |= (uint16_t)(1u << vf_layer_of(l, l->ca_lid[l->at[i]],
						     lid));
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
