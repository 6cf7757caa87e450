// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* Min-hop matrices as OpenSM builds them, by one BFS per destination. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hopmatrix.h"

int vf_hopgraph_init(struct vf_hopgraph *g, uint32_t nsw, uint32_t max_links)
{
	memset(g, 0, sizeof(*g));
	g->start = calloc((size_t)nsw + 1, sizeof(*g->start));
	g->links = calloc(max_links ? max_links : 1, sizeof(*g->links));
	if (!g->start || !g->links) {
		vf_hopgraph_free(g);
		return -ENOMEM;
	}
	g->nsw = nsw;
	g->cap = max_links;
	return 0;
}

void vf_hopgraph_free(struct vf_hopgraph *g)
{
	free(g->start);
	free(g->links);
	g->start = NULL;
	g->links = NULL;
}

/* Close the link lists of switches last + 1 .. s - 1 (none) and open s. */
static void advance(struct vf_hopgraph *g, uint32_t s)
{
	while (g->last < s)
		g->start[++g->last] = g->num_links;
}

int vf_hopgraph_add(struct vf_hopgraph *g, uint32_t s, uint8_t port,
		    uint32_t peer, bool healthy)
{
	if (s >= g->nsw || peer >= g->nsw || s == peer || s < g->last)
		return -EINVAL;
	if (g->num_links >= g->cap)
		return -ENOSPC;
	advance(g, s);
	g->links[g->num_links++] = (struct vf_hoplink){
		.peer = peer, .port = port, .healthy = healthy,
	};
	return 0;
}

void vf_hopgraph_done(struct vf_hopgraph *g)
{
	advance(g, g->nsw);
}

int vf_hops_dst_init(struct vf_hops_dst *h, uint32_t nsw)
{
	memset(h, 0, sizeof(*h));
	h->dist = malloc(nsw ? nsw : 1);
	h->via = malloc(nsw ? nsw : 1);
	h->queue = malloc(sizeof(*h->queue) * (nsw ? nsw : 1));
	if (!h->dist || !h->via || !h->queue) {
		vf_hops_dst_free(h);
		return -ENOMEM;
	}
	return 0;
}

void vf_hops_dst_free(struct vf_hops_dst *h)
{
	free(h->dist);
	free(h->via);
	free(h->queue);
	h->dist = h->via = NULL;
	h->queue = NULL;
}

/*
 * Level 1 is every switch linked to dst, healthy or not (OpenSM enters a
 * neighbour's LID before it propagates anything); beyond, only healthy
 * links carry counts, and nothing at 254 goes further (255 is no path).
 * Stops as soon as every switch has its count.
 */
static void bfs(const struct vf_hopgraph *g, uint32_t dst, uint8_t *dist,
		uint32_t *queue)
{
	uint32_t head = 0, tail = 0, seen = 1;

	memset(dist, VF_HOPS_NONE, g->nsw);
	dist[dst] = 0;
	for (uint32_t l = g->start[dst]; l < g->start[dst + 1]; l++) {
		uint32_t n = g->links[l].peer;

		if (dist[n] == VF_HOPS_NONE) {
			dist[n] = 1;
			queue[tail++] = n;
		}
	}
	seen += tail;
	while (head < tail && seen < g->nsw) {
		uint32_t s = queue[head++];

		if (dist[s] >= VF_HOPS_NONE - 1)
			break;
		for (uint32_t l = g->start[s]; l < g->start[s + 1]; l++) {
			uint32_t n = g->links[l].peer;

			if (!g->links[l].healthy || dist[n] != VF_HOPS_NONE)
				continue;
			dist[n] = dist[s] + 1;
			queue[tail++] = n;
			seen++;
		}
	}
}

void vf_hops_to(const struct vf_hopgraph *g, uint32_t dst,
		struct vf_hops_dst *h)
{
	h->dst = dst;
	bfs(g, dst, h->dist, h->queue);
	for (uint32_t n = 0; n < g->nsw; n++)
		h->via[n] = h->dist[n] < VF_HOPS_NONE - 1 ? h->dist[n] + 1 :
							    VF_HOPS_NONE;
}

void vf_hops_row(const struct vf_hopgraph *g, const struct vf_hops_dst *h,
		 uint32_t s, uint8_t *row, unsigned num_ports)
{
	const struct vf_hoplink *k = g->links + g->start[s];
	const struct vf_hoplink *end = g->links + g->start[s + 1];

	memset(row, VF_HOPS_NONE, num_ports);
	if (!num_ports)
		return;
	row[0] = h->dist[s];
	for (; k < end; k++) {
		uint8_t v = k->healthy ? h->via[k->peer] :
			    k->peer == h->dst ? 1 : VF_HOPS_NONE;

		if (k->port < num_ports && v < row[k->port])
			row[k->port] = v;
	}
}
