/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * A directed graph grown edge by edge, for channel dependencies: each edge
 * is stored once (a hash set), the newest edges can be taken back in the
 * reverse order they came (a path that did not fit a layer), and it
 * answers whether one node reaches another and where a cycle is.
 *
 * vf_depgraph_add_acyclic() keeps the graph acyclic as it grows, with a
 * topological order maintained as edges come (Pearce and Kelly, "A
 * dynamic topological sort algorithm for directed acyclic graphs", 2006):
 * an edge that agrees with the order costs nothing, and one that does not
 * searches only the nodes between its ends in the order.
 */
#ifndef VF_DEPGRAPH_H
#define VF_DEPGRAPH_H

#include <stdbool.h>
#include <stdint.h>

struct vf_depgraph {
	uint32_t num_nodes;
	/* edges, newest first from each node: head[node], then next[];
	 * and into each node: rhead[node], then rnext[] */
	uint32_t *head, *rhead;
	uint32_t *to, *from, *next, *rnext;
	uint32_t num_edges, cap_edges;
	/* the set of edges: (from << 32 | to), UINT64_MAX empty */
	uint64_t *slot;
	uint64_t num_slots;	/* a power of two */
	/* reachability: visited when mark[node] == epoch */
	uint32_t *mark, epoch;
	uint32_t *stack;
	/* add_acyclic: ord[node] its place in a topological order, at[place]
	 * the node there; found[] the nodes one insertion moves */
	uint32_t *ord, *at, *found, *scratch;
	/* edges refused while only kept edges were in (they close a cycle
	 * with those, for good): a set as slot[], NULL until the first */
	uint32_t kept;		/* edges before this one stay */
	uint64_t *refused;
	uint64_t num_refused_slots, num_refused;
};

int vf_depgraph_init(struct vf_depgraph *g, uint32_t num_nodes);
void vf_depgraph_free(struct vf_depgraph *g);

/* Add a -> b: 1 when new, 0 when already there, -ENOMEM. */
int vf_depgraph_add(struct vf_depgraph *g, uint32_t a, uint32_t b);

bool vf_depgraph_has(const struct vf_depgraph *g, uint32_t a, uint32_t b);

/*
 * Add a -> b unless it closes a cycle: 1 when new, 0 when already there,
 * -ELOOP when b reaches a (nothing added), -ENOMEM.  Use either this or
 * vf_depgraph_add() on one graph, not both.
 */
int vf_depgraph_add_acyclic(struct vf_depgraph *g, uint32_t a, uint32_t b);

/*
 * Take back the edges added after there were `keep` (newest first).
 * Taking back kept edges (vf_depgraph_keep) forgets the refused ones.
 */
void vf_depgraph_truncate(struct vf_depgraph *g, uint32_t keep);

/*
 * The edges so far stay.  An edge add_acyclic refuses while the graph
 * holds kept edges only closes a cycle with them for good: it is then
 * remembered and refused again without a search (layering tries many
 * routes through one refused turn).
 */
void vf_depgraph_keep(struct vf_depgraph *g);

/* Is `to` reachable from `from` (a path of one or more edges, or equal)? */
bool vf_depgraph_reaches(struct vf_depgraph *g, uint32_t from, uint32_t to);

/*
 * A cycle, if any: its nodes in order into cycle[] (at most max; the
 * first is not repeated at the end) and their number, 0 when the graph is
 * acyclic, -ENOMEM.
 */
int vf_depgraph_cycle(struct vf_depgraph *g, uint32_t *cycle, uint32_t max);

#endif /* VF_DEPGRAPH_H */
