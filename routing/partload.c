// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Per-partition metrics of a routing (partload.h).
 *
 * One destination at a time, as the route checks do: the destination's
 * forwarding tree is resolved once (lidwalk.c), then each class the
 * destination is in starts every switch with the number of that class's
 * sources entering there that may talk to the destination, and one sweep
 * down the tree, farthest switch first, hands those counts on and adds
 * them to the links crossed.  The per-switch counts are precomputed per
 * class: all members for a full member destination, only full members for
 * a limited one (limited members do not talk to each other).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "routing/internal/lidwalk.h"
#include "partload.h"

struct pl_ctx {
	const struct vf_fabric *f;
	const struct vf_traffic *tr;
	struct vf_partload *r;
	struct vf_walk w;
	uint32_t nsw, ncls;

	/* the CA ports taking part, and where they enter the fabric */
	uint32_t *ca;		/* CA index -> port slot */
	uint32_t num_ca;
	uint32_t *entry;	/* CA index -> switch, VF_NONE */
	uint32_t *off;		/* CA indices entering at no switch */
	uint32_t num_off;
	/* class members (CSR of CA indices) and their count per switch */
	uint32_t *mem_off, *mem;
	uint32_t *cnt_mem, *cnt_full;	/* [class * nsw + switch] */

	/* per destination */
	uint64_t *flow;		/* per switch */
	uint32_t *stamp;	/* CA index -> destination that counted it */
	uint64_t *all_load;	/* per link, each pair once */
};

static void *zalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

static bool measured(const struct pl_ctx *c, unsigned k)
{
	return !c->tr->cls[k].management;
}

/* A linked CA port with a LID that some measured class has. */
static bool takes_part(const struct pl_ctx *c, uint32_t p)
{
	const struct vf_port *port = &c->f->ports[p];

	if (vf_is_switch(&c->f->nodes[port->node]) || !port->num ||
	    port->remote == VF_NONE || !port->base_lid)
		return false;
	for (unsigned k = 0; k < c->ncls; k++)
		if (measured(c, k) && vf_traffic_member(c->tr, p, k))
			return true;
	return false;
}

static int setup_ports(struct pl_ctx *c)
{
	const struct vf_fabric *f = c->f;

	c->ca = zalloc(f->num_ports, sizeof(*c->ca));
	c->entry = zalloc(f->num_ports, sizeof(*c->entry));
	c->off = zalloc(f->num_ports, sizeof(*c->off));
	if (!c->ca || !c->entry || !c->off)
		return -ENOMEM;
	for (uint32_t p = 0; p < f->num_ports; p++) {
		if (!takes_part(c, p))
			continue;
		c->entry[c->num_ca] = vf_walk_port_switch(&c->w, p);
		if (c->entry[c->num_ca] == VF_NONE)
			c->off[c->num_off++] = c->num_ca;
		c->ca[c->num_ca++] = p;
	}
	return 0;
}

static int setup_members(struct pl_ctx *c)
{
	size_t total = 0, cells = (size_t)c->ncls * c->nsw;
	uint32_t n = 0;

	for (uint32_t i = 0; i < c->num_ca; i++)
		for (unsigned k = 0; k < c->ncls; k++)
			total += measured(c, k) &&
				 vf_traffic_member(c->tr, c->ca[i], k);
	c->mem_off = zalloc(c->ncls + 1, sizeof(*c->mem_off));
	c->mem = zalloc(total, sizeof(*c->mem));
	c->cnt_mem = zalloc(cells, sizeof(*c->cnt_mem));
	c->cnt_full = zalloc(cells, sizeof(*c->cnt_full));
	if (!c->mem_off || !c->mem || !c->cnt_mem || !c->cnt_full)
		return -ENOMEM;
	for (unsigned k = 0; k < c->ncls; k++) {
		c->mem_off[k] = n;
		for (uint32_t i = 0; measured(c, k) && i < c->num_ca; i++) {
			uint8_t m = vf_traffic_member(c->tr, c->ca[i], k);
			uint32_t s = c->entry[i];

			if (!m)
				continue;
			c->mem[n++] = i;
			if (s == VF_NONE)
				continue;
			c->cnt_mem[(size_t)k * c->nsw + s]++;
			c->cnt_full[(size_t)k * c->nsw + s] +=
				m == VF_TRAFFIC_FULL;
		}
	}
	c->mem_off[c->ncls] = n;
	return 0;
}

static int setup(struct pl_ctx *c, const struct vf_lfts *t)
{
	struct vf_partload *r = c->r;
	int rc = vf_walk_init(&c->w, c->f, t);

	if (rc)
		return rc;
	c->nsw = c->f->num_switches;
	r->num_classes = c->ncls;
	r->links = c->w.nchan;
	r->cls = zalloc(c->ncls, sizeof(*r->cls));
	r->link_port = zalloc(r->links, sizeof(*r->link_port));
	r->load = zalloc((size_t)c->ncls * r->links, sizeof(*r->load));
	c->flow = zalloc(c->nsw, sizeof(*c->flow));
	c->all_load = zalloc(r->links, sizeof(*c->all_load));
	if (!r->cls || !r->link_port || !r->load || !c->flow || !c->all_load)
		return -ENOMEM;
	for (uint32_t p = 0; p < c->f->num_ports; p++)
		if (c->w.port_chan[p] != VF_NONE)
			r->link_port[c->w.port_chan[p]] = p;
	rc = setup_ports(c);
	if (!rc)
		rc = setup_members(c);
	if (rc)
		return rc;
	c->stamp = zalloc(c->num_ca, sizeof(*c->stamp));
	return c->stamp ? 0 : -ENOMEM;
}

static void ctx_free(struct pl_ctx *c)
{
	vf_walk_free(&c->w);
	free(c->ca);
	free(c->entry);
	free(c->off);
	free(c->mem_off);
	free(c->mem);
	free(c->cnt_mem);
	free(c->cnt_full);
	free(c->flow);
	free(c->stamp);
	free(c->all_load);
}

/* May CA s (index) reach CA d (index) without a switch: back to back? */
static bool b2b_reaches(const struct pl_ctx *c, uint32_t s, uint32_t d)
{
	const struct vf_port *peer = vf_usable_peer(c->f,
						    &c->f->ports[c->ca[s]]);

	return peer == &c->f->ports[c->ca[d]];
}

/*
 * The pairs whose sources flow[] counts per switch, to the destination
 * whose tree c->w holds: tally them, then sweep the flow down the tree
 * (n forwarding switches at the head of w.scratch) onto the links.
 */
static void add_flow(struct pl_ctx *c, struct vf_partload_class *x,
		     uint64_t *load, uint32_t n)
{
	const struct vf_walk *w = &c->w;

	for (uint32_t s = 0; s < c->nsw; s++) {
		x->pairs += c->flow[s];
		if (w->res[s] < 0)
			x->unreachable += c->flow[s];
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t u = w->scratch[i];

		load[w->chan[u]] += c->flow[u];
		c->flow[w->nxt[u]] += c->flow[u];
	}
}

/* Class k's pairs to CA d (index), a member m of it. */
static void class_to(struct pl_ctx *c, unsigned k, uint32_t d, uint8_t m,
		     uint32_t n)
{
	const uint32_t *cnt = (m == VF_TRAFFIC_FULL ? c->cnt_mem :
			       c->cnt_full) + (size_t)k * c->nsw;
	struct vf_partload_class *x = &c->r->cls[k];

	for (uint32_t s = 0; s < c->nsw; s++)
		c->flow[s] = cnt[s];
	/* d is no source of its own LID (counted only if full) */
	if (m == VF_TRAFFIC_FULL && c->entry[d] != VF_NONE)
		c->flow[c->entry[d]]--;
	add_flow(c, x, c->r->load + (size_t)k * c->r->links, n);
	for (uint32_t i = 0; i < c->num_off; i++) {
		uint32_t s = c->off[i];

		if (s == d || !vf_traffic_pair(c->tr, c->ca[s], c->ca[d], k))
			continue;
		x->pairs++;
		x->unreachable += !b2b_reaches(c, s, d);
	}
}

/* Every pair to CA d that some measured class permits, counted once. */
static void all_to(struct pl_ctx *c, uint32_t d, uint32_t n)
{
	struct vf_partload_class *x = &c->r->all;
	uint32_t gen = d + 1;

	memset(c->flow, 0, c->nsw * sizeof(*c->flow));
	c->stamp[d] = gen;
	for (unsigned k = 0; k < c->ncls; k++) {
		uint8_t m = vf_traffic_member(c->tr, c->ca[d], k);

		if (!m || !measured(c, k))
			continue;
		for (uint32_t j = c->mem_off[k]; j < c->mem_off[k + 1]; j++) {
			uint32_t s = c->mem[j];

			if (c->stamp[s] == gen ||
			    !vf_traffic_pair(c->tr, c->ca[s], c->ca[d], k))
				continue;
			c->stamp[s] = gen;
			if (c->entry[s] != VF_NONE) {
				c->flow[c->entry[s]]++;
				continue;
			}
			x->pairs++;
			x->unreachable += !b2b_reaches(c, s, d);
		}
	}
	add_flow(c, x, c->all_load, n);
}

static void measure_to(struct pl_ctx *c, uint32_t d)
{
	const struct vf_port *dp = &c->f->ports[c->ca[d]];
	uint32_t n;

	vf_walk_lid(&c->w, dp->base_lid);
	n = vf_walk_order(&c->w);
	for (unsigned k = 0; k < c->ncls; k++) {
		uint8_t m = vf_traffic_member(c->tr, c->ca[d], k);

		if (m && measured(c, k))
			class_to(c, k, d, m, n);
	}
	all_to(c, d, n);
}

static void sum_links(struct vf_partload_class *x, const uint64_t *load,
		      uint32_t links)
{
	for (uint32_t i = 0; i < links; i++) {
		x->links_used += load[i] > 0;
		x->load_sum += load[i];
		if (load[i] > x->load_max)
			x->load_max = load[i];
	}
	x->load_avg_used = x->links_used ?
		(double)x->load_sum / x->links_used : 0;
	x->load_avg = links ? (double)x->load_sum / links : 0;
	x->load_max_over_avg = x->load_avg > 0 ?
		(double)x->load_max / x->load_avg : 0;
}

/*
 * Links used by two classes without a common port: per pair of classes
 * (a count matrix, then the non-zero ones listed) and in total.
 */
static int share_links(struct pl_ctx *c)
{
	struct vf_partload *r = c->r;
	unsigned n = c->ncls, *users = zalloc(n, sizeof(*users));
	uint32_t *count = zalloc((size_t)n * n, sizeof(*count));
	uint8_t *apart = zalloc((size_t)n * n, sizeof(*apart));
	int rc = -ENOMEM;

	if (!users || !count || !apart)
		goto out_free;
	for (unsigned a = 0; a < n; a++)
		for (unsigned b = a + 1; b < n; b++)
			apart[a * n + b] = measured(c, a) && measured(c, b) &&
					   !vf_traffic_overlap(c->tr, a, b);
	for (uint32_t i = 0; i < r->links; i++) {
		unsigned nu = 0;
		bool shared = false;

		for (unsigned k = 0; k < n; k++)
			if (r->load[(size_t)k * r->links + i])
				users[nu++] = k;
		for (unsigned x = 0; x < nu; x++)
			for (unsigned y = x + 1; y < nu; y++) {
				size_t ab = (size_t)users[x] * n + users[y];

				if (!apart[ab])
					continue;
				count[ab]++;
				shared = true;
			}
		r->shared_links += shared;
	}
	for (size_t ab = 0; ab < (size_t)n * n; ab++)
		r->num_shared += count[ab] > 0;
	r->shared = zalloc(r->num_shared, sizeof(*r->shared));
	if (!r->shared)
		goto out_free;
	r->num_shared = 0;
	for (size_t ab = 0; ab < (size_t)n * n; ab++) {
		struct vf_partload_shared *x = &r->shared[r->num_shared];

		if (!count[ab])
			continue;
		x->a = (unsigned)(ab / n);
		x->b = (unsigned)(ab % n);
		x->links = count[ab];
		r->num_shared++;
	}
	rc = 0;
out_free:
	free(users);
	free(count);
	free(apart);
	return rc;
}

int vf_partload_compute(const struct vf_fabric *f, const struct vf_lfts *t,
			const struct vf_traffic *tr, struct vf_partload *r)
{
	struct pl_ctx c = { .f = f, .tr = tr, .r = r,
			    .ncls = tr->num_classes };
	int rc;

	memset(r, 0, sizeof(*r));
	if (tr->num_ports != f->num_ports)
		return -EINVAL;
	rc = setup(&c, t);
	for (uint32_t d = 0; !rc && d < c.num_ca; d++)
		measure_to(&c, d);
	if (!rc) {
		for (unsigned k = 0; k < c.ncls; k++)
			sum_links(&r->cls[k], r->load + (size_t)k * r->links,
				  r->links);
		sum_links(&r->all, c.all_load, r->links);
		rc = share_links(&c);
	}
	ctx_free(&c);
	return rc;
}

void vf_partload_free(struct vf_partload *r)
{
	free(r->cls);
	free(r->shared);
	free(r->link_port);
	free(r->load);
	memset(r, 0, sizeof(*r));
}

uint32_t vf_partload_links(const struct vf_partload *r,
			   const struct vf_fabric *f, unsigned c,
			   struct vf_partload_link *out, uint32_t max)
{
	uint32_t n = 0;

	if (c >= r->num_classes)
		return 0;
	for (uint32_t i = 0; i < r->links; i++) {
		const struct vf_port *p = &f->ports[r->link_port[i]];
		const struct vf_port *q = &f->ports[p->remote];
		uint64_t load = r->load[(size_t)c * r->links + i];

		if (!load)
			continue;
		if (n < max)
			out[n] = (struct vf_partload_link){
				.from_guid = f->nodes[p->node].guid,
				.to_guid = f->nodes[q->node].guid,
				.from_node = p->node, .to_node = q->node,
				.from_port = p->num, .to_port = q->num,
				.load = load };
		n++;
	}
	return n;
}
