// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* The switch graph: usable inter-switch hops and BFS distances. */
#include <errno.h>
#include <stdlib.h>

#include "routing/internal/swgraph.h"

uint32_t vf_peer_switch(const struct vf_fabric *f, const struct vf_port *p)
{
	const struct vf_port *peer = vf_usable_peer(f, p);

	if (!peer || !vf_is_switch(&f->nodes[peer->node]))
		return VF_NONE;
	return f->nodes[peer->node].sw;
}

bool vf_has_end_node(const struct vf_fabric *f, uint32_t s)
{
	const struct vf_node *sw = &f->nodes[f->switches[s]];

	for (unsigned i = 1; i <= sw->num_ports; i++) {
		const struct vf_port *peer =
			vf_usable_peer(f, vf_node_port(f, sw, i));

		if (peer && !vf_is_switch(&f->nodes[peer->node]))
			return true;
	}
	return false;
}

static uint32_t count_hops(const struct vf_fabric *f)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct vf_node *node = &f->nodes[f->switches[s]];

		for (unsigned i = 1; i <= node->num_ports; i++)
			n += vf_peer_switch(f, vf_node_port(f, node, i)) !=
			     VF_NONE;
	}
	return n;
}

int vf_swgraph_init(struct vf_swgraph *g, const struct vf_fabric *f)
{
	uint32_t n = count_hops(f), k = 0;

	g->f = f;
	g->nsw = f->num_switches;
	g->hop_start = calloc(g->nsw + 1, sizeof(*g->hop_start));
	g->hops = calloc(n ? n : 1, sizeof(*g->hops));
	if (!g->hop_start || !g->hops) {
		vf_swgraph_free(g);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < g->nsw; s++) {
		const struct vf_node *node = &f->nodes[f->switches[s]];

		g->hop_start[s] = k;
		for (unsigned i = 1; i <= node->num_ports; i++) {
			const struct vf_port *p = vf_node_port(f, node, i);
			uint32_t next = vf_peer_switch(f, p);

			if (next == VF_NONE)
				continue;
			g->hops[k].port = node->first_port + i;
			g->hops[k].next_sw = next;
			g->hops[k].rate = vf_port_rate(p);
			g->hops[k].num = i;
			k++;
		}
	}
	g->hop_start[g->nsw] = k;
	return 0;
}

void vf_swgraph_free(struct vf_swgraph *g)
{
	free(g->hops);
	free(g->hop_start);
	g->hops = NULL;
	g->hop_start = NULL;
}

/* Expand a BFS whose first tail entries of queue are already at dist 0. */
static void bfs_spread(const struct vf_swgraph *g, uint16_t *dist,
		       uint32_t *queue, uint32_t tail)
{
	uint32_t head = 0;

	while (head < tail) {
		uint32_t s = queue[head++];

		for (uint32_t h = g->hop_start[s]; h < g->hop_start[s + 1];
		     h++) {
			uint32_t n = g->hops[h].next_sw;

			if (dist[n] != VF_DIST_INF)
				continue;
			dist[n] = dist[s] + 1;
			queue[tail++] = n;
		}
	}
}

void vf_swgraph_bfs_from(const struct vf_swgraph *g, const bool *roots,
			 uint16_t *dist, uint32_t *queue)
{
	uint32_t tail = 0;

	for (uint32_t s = 0; s < g->nsw; s++) {
		dist[s] = roots[s] ? 0 : VF_DIST_INF;
		if (roots[s])
			queue[tail++] = s;
	}
	bfs_spread(g, dist, queue, tail);
}

void vf_swgraph_bfs(const struct vf_swgraph *g, uint32_t root, uint16_t *dist,
		    uint32_t *queue)
{
	for (uint32_t s = 0; s < g->nsw; s++)
		dist[s] = VF_DIST_INF;
	dist[root] = 0;
	queue[0] = root;
	bfs_spread(g, dist, queue, 1);
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* Group `s` and the switches joined to it through tiers <= k: its end
 * ports in *inside, its links to higher tiers in *up. */
static void tier_group(const struct vf_swgraph *g, const uint32_t *hosts,
		       const uint16_t *tier, unsigned k, uint32_t s,
		       uint32_t *group_of, uint32_t *stack, uint64_t *inside,
		       uint64_t *up)
{
	uint32_t top = 0;

	*inside = *up = 0;
	group_of[s] = s;
	stack[top++] = s;
	while (top) {
		uint32_t x = stack[--top];

		*inside += hosts[x];
		for (uint32_t h = g->hop_start[x]; h < g->hop_start[x + 1];
		     h++) {
			uint32_t n = g->hops[h].next_sw;

			if (tier[n] == VF_DIST_INF)
				continue;
			if (tier[n] > k) {
				(*up)++;
			} else if (group_of[n] == VF_NONE) {
				group_of[n] = s;
				stack[top++] = n;
			}
		}
	}
}

uint64_t vf_swgraph_tier_bound(const struct vf_swgraph *g,
			       const uint32_t *hosts)
{
	size_t n = g->nsw ? g->nsw : 1;
	uint16_t *tier = malloc(n * sizeof(*tier));
	uint32_t *group_of = malloc(n * sizeof(*group_of));
	uint32_t *stack = malloc(n * sizeof(*stack));
	bool *roots = calloc(n, sizeof(*roots));
	uint64_t total = 0, grain = 0, bound = 0;
	unsigned top = 0;

	if (!tier || !group_of || !stack || !roots)
		goto out;
	for (uint32_t s = 0; s < g->nsw; s++) {
		roots[s] = hosts[s] > 0;
		total += hosts[s];
		grain = gcd64(grain, hosts[s]);
	}
	vf_swgraph_bfs_from(g, roots, tier, stack);
	for (uint32_t s = 0; s < g->nsw; s++)
		if (tier[s] != VF_DIST_INF && tier[s] > top)
			top = tier[s];
	for (unsigned k = 0; k < top; k++) {
		for (uint32_t s = 0; s < g->nsw; s++)
			group_of[s] = VF_NONE;
		for (uint32_t s = 0; s < g->nsw; s++) {
			uint64_t inside, up, share;

			if (tier[s] > k || group_of[s] != VF_NONE)
				continue;
			tier_group(g, hosts, tier, k, s, group_of, stack,
				   &inside, &up);
			if (!up || !inside)
				continue;
			share = (inside * (total - inside) + up * grain - 1) /
				(up * grain) * grain;
			if (share > bound)
				bound = share;
		}
	}
out:
	free(tier);
	free(group_of);
	free(stack);
	free(roots);
	return bound;
}

uint64_t vf_swgraph_leaf_bound(const struct vf_swgraph *g,
			       const uint32_t *hosts,
			       const uint32_t *links_end)
{
	uint64_t n = 0, bound = 0;

	for (uint32_t s = 0; s < g->nsw; s++)
		n += hosts[s];
	for (uint32_t s = 0; s < g->nsw; s++) {
		uint64_t h = hosts[s], u = (links_end ? links_end[s] :
					     g->hop_start[s + 1]) -
					    g->hop_start[s];

		if (h && u && (n - h + u - 1) / u * h > bound)
			bound = (n - h + u - 1) / u * h;
	}
	return bound;
}
