// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* Layers that make a routing deadlock-free (vllayers.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/internal/depgraph.h"
#include "routing/internal/lidwalk.h"
#include "vlcheck.h"
#include "vllayers.h"

struct ly_ctx {
	const struct vf_fabric *f;
	struct vf_layers *l;
	struct vf_walk w;
	struct vf_depgraph g[VF_LAYERS_MAX];
	unsigned graphs;	/* g[0, graphs) initialized */
	bool *has_ca;		/* [nsw] CA ports enter the fabric there */
	uint32_t *path;		/* one route's channels */
};

static void *zalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

static int setup(struct ly_ctx *c, const struct vf_lfts *t)
{
	const struct vf_fabric *f = c->f;
	int rc = vf_walk_init(&c->w, f, t);

	if (rc)
		return rc;
	c->has_ca = zalloc(f->num_switches, sizeof(*c->has_ca));
	c->path = zalloc(f->num_switches + 1, sizeof(*c->path));
	if (!c->has_ca || !c->path)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->num_ports; i++)
		if (c->w.pnext[i] == VF_WALK_END)
			c->has_ca[f->nodes[f->ports[i].node].sw] = true;
	return 0;
}

static void ctx_free(struct ly_ctx *c)
{
	for (unsigned i = 0; i < c->graphs; i++)
		vf_depgraph_free(&c->g[i]);
	vf_walk_free(&c->w);
	free(c->has_ca);
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
 * Put the route of n channels into the first layer where it closes no
 * cycle: that layer, VF_LAYERS_MAX when none has room, or -ENOMEM.
 */
static int fit(struct ly_ctx *c, const uint32_t *path, uint32_t n)
{
	for (unsigned i = 0; i < VF_LAYERS_MAX; i++) {
		struct vf_depgraph *g = layer(c, i);
		uint32_t keep;
		int rc = 0;

		if (!g)
			return -ENOMEM;
		keep = g->num_edges;
		for (uint32_t k = 0; k + 1 < n && rc >= 0; k++)
			rc = vf_depgraph_add_acyclic(g, path[k], path[k + 1]);
		if (rc >= 0)
			return (int)i;
		vf_depgraph_truncate(g, keep);
		if (rc != -ELOOP)
			return rc;
	}
	return VF_LAYERS_MAX;
}

/* The channels from switch s toward the walked LID; 0 if it loops. */
static uint32_t route_of(struct ly_ctx *c, uint32_t s)
{
	uint32_t n = 0;

	for (; c->w.chan[s] != VF_NONE; s = c->w.nxt[s]) {
		if (n == c->w.f->num_switches)
			return 0;
		c->path[n++] = c->w.chan[s];
	}
	return n;
}

static int layer_lid(struct ly_ctx *c, unsigned lid)
{
	struct vf_layers *l = c->l;
	uint32_t forwarding = vf_walk_order(&c->w);

	/* scratch[]: farthest first, so the longest routes pick first */
	for (uint32_t i = 0; i < forwarding; i++) {
		uint32_t s = c->w.scratch[i], n;
		int at;

		if (!c->has_ca[s])
			continue;
		n = route_of(c, s);
		if (!n)
			return -ELOOP;
		at = fit(c, c->path, n);
		if (at < 0)
			return at;
		if ((unsigned)at + 1 > l->num)
			l->num = (unsigned)at + 1;
		if (at == VF_LAYERS_MAX)
			return -ERANGE;
		l->of[(size_t)s * (l->max_lid + 1u) + lid] = (uint8_t)at;
	}
	return 0;
}

int vf_layers_build(const struct vf_fabric *f, const struct vf_lfts *t,
		    unsigned max, struct vf_layers *l)
{
	struct ly_ctx c = { .f = f, .l = l };
	size_t size = (size_t)f->num_switches * (f->max_lid + 1u);
	int rc;

	memset(l, 0, sizeof(*l));
	l->num = 1;
	l->nsw = f->num_switches;
	l->max_lid = f->max_lid;
	if (!max || max > VF_LAYERS_MAX)
		return -EINVAL;
	if (size > VF_LAYERS_MEM)
		return -E2BIG;
	l->of = zalloc(size, 1);
	if (!l->of)
		return -ENOMEM;
	rc = setup(&c, t);
	for (unsigned lid = 1; !rc && lid <= f->max_lid; lid++) {
		uint32_t p = f->lid_port[lid];

		if (p == VF_NONE || vf_is_switch(&f->nodes[f->ports[p].node]))
			continue;
		vf_walk_lid(&c.w, lid);
		rc = layer_lid(&c, lid);
	}
	ctx_free(&c);
	if (!rc && l->num > max)
		rc = -ERANGE;
	if (rc || l->num == 1) {
		free(l->of);
		l->of = NULL;
	}
	return rc;
}

void vf_layers_free(struct vf_layers *l)
{
	free(l->of);
	memset(l, 0, sizeof(*l));
	l->num = 1;
}

static uint16_t layer_sls(const void *ctx, uint32_t s, unsigned lid)
{
	return (uint16_t)(1u << vf_layer_of(ctx, s, lid));
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
