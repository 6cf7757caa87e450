// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The credit-loop check per virtual lane (vlcheck.h).
 *
 * One destination LID at a time (lidwalk.h gives every switch's next hop),
 * each source switch's walk is followed once per SL it sends: the VL on
 * each link comes from the switch's SL-to-VL map for the port the packet
 * came in by and the one it leaves by, and each turn adds the dependency
 * (link, VL) -> (next link, VL).  Where a packet goes after crossing a
 * link depends only on that link and its SL, so a walk stops at a
 * (link, SL) another walk of the same LID already took, after adding the
 * turn into it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/internal/depgraph.h"
#include "routing/internal/lidwalk.h"
#include "vlcheck.h"

#define CYCLE_MAX 64	/* nodes of a cycle written out */

struct vc_ctx {
	const struct vf_fabric *f;
	const struct vf_vl_model *m;
	struct vf_vl_report *r;
	struct vf_walk w;
	struct vf_depgraph g;	/* node: channel * VF_NUM_SLS + VL */
	uint32_t *chan_port;	/* channel -> its tail port index */
	uint32_t *ca_in;	/* [port slot] CA ports' entry ports, by switch */
	uint32_t *ca_off;	/* [nsw + 1] into ca_in */
	uint16_t *seen;		/* [channel] SLs a walk of this LID took */
	uint32_t *touched;	/* channels with seen != 0 */
	uint32_t num_touched;
};

static void *zalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

static uint8_t port_num(const struct vc_ctx *c, uint32_t port)
{
	return c->f->ports[port].num;
}

/* The port number a channel arrives by at its head switch. */
static uint8_t arrival(const struct vc_ctx *c, uint32_t chan)
{
	const struct vf_fabric *f = c->f;

	return f->ports[f->ports[c->chan_port[chan]].remote].num;
}

/* Every switch's CA-facing ports (the ports CA traffic enters by). */
static int index_sources(struct vc_ctx *c)
{
	const struct vf_fabric *f = c->f;
	uint32_t nsw = f->num_switches, n = 0;

	c->ca_off = zalloc(nsw + 1, sizeof(*c->ca_off));
	c->ca_in = zalloc(f->num_ports, sizeof(*c->ca_in));
	if (!c->ca_off || !c->ca_in)
		return -ENOMEM;
	for (uint32_t s = 0; s < nsw; s++) {
		const struct vf_node *sw = &f->nodes[f->switches[s]];

		c->ca_off[s] = n;
		for (unsigned k = 1; k <= sw->num_ports; k++)
			if (c->w.pnext[sw->first_port + k] == VF_WALK_END)
				c->ca_in[n++] = sw->first_port + k;
	}
	c->ca_off[nsw] = n;
	return 0;
}

static int setup(struct vc_ctx *c, const struct vf_lfts *t)
{
	const struct vf_fabric *f = c->f;
	int rc = vf_walk_init(&c->w, f, t);

	if (rc)
		return rc;
	c->chan_port = zalloc(c->w.nchan, sizeof(*c->chan_port));
	c->seen = zalloc(c->w.nchan, sizeof(*c->seen));
	c->touched = zalloc(c->w.nchan, sizeof(*c->touched));
	if (!c->chan_port || !c->seen || !c->touched)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->num_ports; i++)
		if (c->w.port_chan[i] != VF_NONE)
			c->chan_port[c->w.port_chan[i]] = i;
	if ((uint64_t)c->w.nchan * VF_NUM_SLS > UINT32_MAX - 1)
		return -ENOMEM;
	rc = vf_depgraph_init(&c->g, c->w.nchan * VF_NUM_SLS);
	return rc ? rc : index_sources(c);
}

static void ctx_free(struct vc_ctx *c)
{
	vf_walk_free(&c->w);
	vf_depgraph_free(&c->g);
	free(c->chan_port);
	free(c->ca_in);
	free(c->ca_off);
	free(c->seen);
	free(c->touched);
}

static int add_dep(struct vc_ctx *c, uint32_t a, uint32_t b)
{
	int rc = vf_depgraph_add(&c->g, a, b);

	if (rc > 0)
		c->r->dependencies++;
	return rc < 0 ? rc : 0;
}

/*
 * Follow SL sl from switch u, having crossed into it on node `prev`
 * (channel * VF_NUM_SLS + VL), until the packet is delivered or dropped.
 * joined: a walk of this LID already crossed prev's channel with sl.
 * After a joined link one more turn is added and the walk stops: the VL
 * on the next link depends only on the link before it and the SL, so
 * from there on it is the earlier walk's.
 */
static int walk_on(struct vc_ctx *c, uint32_t u, uint32_t prev, uint8_t sl,
		   bool joined)
{
	for (;;) {
		uint32_t in_chan = prev / VF_NUM_SLS, out = c->w.chan[u], node;
		uint8_t vl;
		int rc;

		if (out == VF_NONE)
			return 0;
		vl = c->m->sl2vl(c->m->ctx, u, arrival(c, in_chan),
				 port_num(c, c->chan_port[out]), sl);
		if (vl >= VF_VL_DROP) {
			c->r->dropped++;
			return 0;
		}
		c->r->vls_used |= (uint16_t)(1u << vl);
		node = out * VF_NUM_SLS + vl;
		rc = add_dep(c, prev, node);
		if (rc || joined)
			return rc;
		joined = c->seen[out] & (1u << sl);
		if (!c->seen[out])
			c->touched[c->num_touched++] = out;
		c->seen[out] |= (uint16_t)(1u << sl);
		prev = node;
		u = c->w.nxt[u];
	}
}

/* The walks of SL sl from switch s's CA ports toward the current LID. */
static int walk_from(struct vc_ctx *c, uint32_t s, uint8_t sl)
{
	uint32_t out = c->w.chan[s];
	uint8_t out_num = port_num(c, c->chan_port[out]);
	bool joined = c->seen[out] & (1u << sl);
	uint16_t first = 0;
	int rc = 0;

	/* the VLs any CA input port of s maps sl to on the way out */
	for (uint32_t i = c->ca_off[s]; i < c->ca_off[s + 1]; i++) {
		uint8_t vl = c->m->sl2vl(c->m->ctx, s,
					 port_num(c, c->ca_in[i]), out_num, sl);

		if (vl >= VF_VL_DROP)
			c->r->dropped++;
		else
			first |= (uint16_t)(1u << vl);
	}
	if (!first)	/* every input drops it: nothing walked on */
		return 0;
	if (!c->seen[out])
		c->touched[c->num_touched++] = out;
	c->seen[out] |= (uint16_t)(1u << sl);
	for (uint8_t vl = 0; vl < VF_VL_DROP && !rc; vl++) {
		if (!(first & (1u << vl)))
			continue;
		c->r->vls_used |= (uint16_t)(1u << vl);
		rc = walk_on(c, c->w.nxt[s], out * VF_NUM_SLS + vl, sl, joined);
		joined = true;	/* the first VL's walk went all the way */
	}
	return rc;
}

static int check_lid(struct vc_ctx *c, unsigned lid)
{
	const struct vf_fabric *f = c->f;
	const struct vf_port *dp = &f->ports[f->lid_port[lid]];
	int rc = 0;

	if (vf_is_switch(&f->nodes[dp->node]))
		return 0;	/* management: as routecheck.h */
	vf_walk_lid(&c->w, lid);
	for (uint32_t s = 0; s < f->num_switches && !rc; s++) {
		uint16_t sls;

		if (c->ca_off[s] == c->ca_off[s + 1] ||
		    c->w.chan[s] == VF_NONE)
			continue;
		sls = c->m->path_sls(c->m->ctx, s, lid);
		c->r->sls_used |= sls;
		for (uint8_t sl = 0; sl < VF_NUM_SLS && !rc; sl++)
			if (sls & (1u << sl))
				rc = walk_from(c, s, sl);
	}
	while (c->num_touched)
		c->seen[c->touched[--c->num_touched]] = 0;
	return rc;
}

static void describe_cycle(struct vc_ctx *c, const uint32_t *node, int n)
{
	const struct vf_fabric *f = c->f;
	size_t len = 0, size = sizeof(c->r->cycle);

	for (int i = 0; i <= n && len < size; i++) {
		uint32_t k = node[i % n];
		const struct vf_port *p =
			&f->ports[c->chan_port[k / VF_NUM_SLS]];
		int w = snprintf(c->r->cycle + len, size - len,
				 "%s%s/%u VL%u", i ? " -> " : "",
				 vf_node_desc(f, &f->nodes[p->node]), p->num,
				 k % VF_NUM_SLS);

		if (w < 0)
			break;
		len += (size_t)w;
	}
	if (len >= size)	/* cut: say so */
		memcpy(c->r->cycle + size - 4, "...", 4);
}

int vf_vl_check(const struct vf_fabric *f, const struct vf_lfts *t,
		const struct vf_vl_model *m, struct vf_vl_report *r)
{
	struct vc_ctx c = { .f = f, .m = m, .r = r };
	uint32_t cycle[CYCLE_MAX];
	int rc;

	memset(r, 0, sizeof(*r));
	rc = setup(&c, t);
	for (unsigned lid = 1; !rc && lid <= f->max_lid; lid++)
		if (f->lid_port[lid] != VF_NONE)
			rc = check_lid(&c, lid);
	if (!rc) {
		int n = vf_depgraph_cycle(&c.g, cycle, CYCLE_MAX);

		if (n < 0) {
			rc = n;
		} else if (n > 0) {
			r->credit_loop = true;
			describe_cycle(&c, cycle, n);
		}
	}
	ctx_free(&c);
	return rc;
}

void vf_vl_mask_str(uint16_t mask, char *out, size_t n)
{
	size_t len = 0;

	if (n)
		out[0] = '\0';
	for (unsigned v = 0; v < 16 && len < n; v++) {
		unsigned end = v;
		int w;

		if (!(mask & (1u << v)))
			continue;
		while (end + 1 < 16 && (mask & (1u << (end + 1))))
			end++;
		w = end > v ? snprintf(out + len, n - len, "%s%u-%u",
				       len ? "," : "", v, end) :
			      snprintf(out + len, n - len, "%s%u",
				       len ? "," : "", v);
		if (w < 0)
			break;
		len += (size_t)w;
		v = end;
	}
	if (!mask && n > 4)
		snprintf(out, n, "none");
}
