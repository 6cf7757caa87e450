// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * One destination LID's forwarding tree (lidwalk.h).  Walks are resolved
 * with memoization: a walk stops at the first switch whose outcome is
 * known and the path is unwound, so each switch is visited once per LID.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/internal/lidwalk.h"

/* calloc that does not fail on empty fabrics */
static void *zalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

static const struct vf_node *sw_node(const struct vf_walk *w, uint32_t s)
{
	return &w->f->nodes[w->f->switches[s]];
}

/* Switch port: where it leads, and its channel when it is one. */
static void sort_port(struct vf_walk *w, uint32_t i)
{
	const struct vf_fabric *f = w->f;
	const struct vf_port *p = &f->ports[i];
	const struct vf_port *peer = vf_usable_peer(f, p);
	const struct vf_node *pn = peer ? &f->nodes[peer->node] : NULL;

	w->port_chan[i] = VF_NONE;
	w->pnext[i] = VF_WALK_DOWN;
	if (!vf_is_switch(&f->nodes[p->node]) || !pn)
		return;
	w->pnext[i] = vf_is_switch(pn) ? pn->sw : VF_WALK_END;
	if (vf_is_switch(pn))
		w->port_chan[i] = w->nchan++;
}

int vf_walk_init(struct vf_walk *w, const struct vf_fabric *f,
		 const struct vf_lfts *t)
{
	uint32_t n = f->num_switches;

	memset(w, 0, sizeof(*w));
	/* LFTs for another fabric would be read out of bounds */
	if (!f->finalized || t->num_switches != f->num_switches ||
	    t->max_lid < f->max_lid)
		return -EINVAL;
	w->f = f;
	w->t = t;
	w->nsw = n;
	w->pnext = zalloc(f->num_ports, sizeof(*w->pnext));
	w->port_chan = zalloc(f->num_ports, sizeof(*w->port_chan));
	w->res = zalloc(n, sizeof(*w->res));
	w->nxt = zalloc(n, sizeof(*w->nxt));
	w->chan = zalloc(n, sizeof(*w->chan));
	w->scratch = zalloc(n, sizeof(*w->scratch));
	w->bucket = zalloc(n, sizeof(*w->bucket));
	if (!w->pnext || !w->port_chan || !w->res || !w->nxt || !w->chan ||
	    !w->scratch || !w->bucket) {
		vf_walk_free(w);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < f->num_ports; i++)
		sort_port(w, i);
	return 0;
}

void vf_walk_free(struct vf_walk *w)
{
	free(w->pnext);
	free(w->port_chan);
	free(w->res);
	free(w->nxt);
	free(w->chan);
	free(w->scratch);
	free(w->bucket);
	memset(w, 0, sizeof(*w));
}

uint32_t vf_walk_port_switch(const struct vf_walk *w, uint32_t port)
{
	const struct vf_fabric *f = w->f;
	const struct vf_port *p = &f->ports[port], *peer;

	if (vf_is_switch(&f->nodes[p->node]))
		return f->nodes[p->node].sw;
	peer = vf_usable_peer(f, p);
	if (peer && vf_is_switch(&f->nodes[peer->node]))
		return f->nodes[peer->node].sw;
	return VF_NONE;
}

int32_t vf_walk_classify(const struct vf_walk *w, uint32_t s, unsigned lid,
			 uint32_t *next, uint32_t *port)
{
	const struct vf_fabric *f = w->f;
	const struct vf_node *n = sw_node(w, s);
	unsigned p = vf_lft_row(w->t, s)[lid];
	uint32_t pi = n->first_port + p, to;

	if (p == 0)
		return f->lid_port[lid] == n->first_port ? 0 :
			VF_WALK_WRONG_SW;
	if (p == VF_NO_PORT)
		return VF_WALK_NO_ROUTE;
	if (p > n->num_ports)
		return VF_WALK_BAD_PORT;
	to = w->pnext[pi];
	if (to == VF_WALK_DOWN)
		return VF_WALK_LINK_DOWN;
	if (to == VF_WALK_END)
		return f->lid_port[lid] == f->ports[pi].remote ? 0 :
			VF_WALK_WRONG_CA;
	*next = to;
	*port = pi;
	return VF_WALK_FORWARD;
}

/*
 * Follow s until a switch with a known outcome (or one on this very walk:
 * a loop), then hand the outcome back along the path, one hop per switch.
 */
static void resolve_from(struct vf_walk *w, uint32_t s)
{
	uint32_t n = 0, cur = s;
	int32_t out;

	while (w->res[cur] == VF_WALK_FORWARD) {
		w->res[cur] = VF_WALK_ON_PATH;
		w->scratch[n++] = cur;
		cur = w->nxt[cur];
	}
	out = w->res[cur] == VF_WALK_ON_PATH ? VF_WALK_LOOP : w->res[cur];
	while (n--) {
		if (out >= 0)
			out++;
		w->res[w->scratch[n]] = out;
	}
}

void vf_walk_lid(struct vf_walk *w, unsigned lid)
{
	for (uint32_t s = 0; s < w->nsw; s++) {
		uint32_t port = VF_NONE;

		w->nxt[s] = VF_NONE;
		w->res[s] = vf_walk_classify(w, s, lid, &w->nxt[s], &port);
		w->chan[s] = port == VF_NONE ? VF_NONE : w->port_chan[port];
	}
	for (uint32_t s = 0; s < w->nsw; s++)
		if (w->res[s] == VF_WALK_FORWARD)
			resolve_from(w, s);
}

uint32_t vf_walk_order(struct vf_walk *w)
{
	uint32_t *order = w->scratch, pos = 0, n = 0;

	memset(w->bucket, 0, w->nsw * sizeof(*w->bucket));
	for (uint32_t s = 0; s < w->nsw; s++)
		if (w->res[s] >= 0)
			w->bucket[w->res[s]]++;
	for (uint32_t h = w->nsw; h-- > 0;) {
		uint32_t cnt = w->bucket[h];

		w->bucket[h] = pos;
		pos += cnt;
	}
	for (uint32_t s = 0; s < w->nsw; s++)
		if (w->res[s] >= 0)
			order[w->bucket[w->res[s]]++] = s;
	while (n < pos && w->res[order[n]] > 0)
		n++;
	return n;
}
