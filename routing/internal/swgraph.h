/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The switch graph of a fabric: for every switch, its usable inter-switch
 * hops (egress port, next switch, link rate), and hop distances by
 * breadth-first search.  Shared by the engines that route on switches.
 */
#ifndef VF_SWGRAPH_H
#define VF_SWGRAPH_H

#include "routing/fabric.h"

#define VF_DIST_INF UINT16_MAX

struct vf_hop {
	uint32_t port;		/* port index of the egress port */
	uint32_t next_sw;	/* switch number at the far end */
	unsigned rate;		/* link rate, 100 Mb/s units */
	uint8_t num;		/* egress port number */
};

struct vf_swgraph {
	const struct vf_fabric *f;
	uint32_t nsw;
	struct vf_hop *hops;	/* grouped by switch, in port order */
	uint32_t *hop_start;	/* [nsw + 1]: hops of switch s */
};

/* Build from f's usable links (both ends healthy); 0 or -ENOMEM. */
int vf_swgraph_init(struct vf_swgraph *g, const struct vf_fabric *f);
void vf_swgraph_free(struct vf_swgraph *g);

/*
 * Hop distances from root to every switch into dist[nsw] (VF_DIST_INF
 * when unreachable); queue is scratch space for nsw entries.
 */
void vf_swgraph_bfs(const struct vf_swgraph *g, uint32_t root, uint16_t *dist,
		    uint32_t *queue);

/* The same from every switch marked in roots[nsw] at once. */
void vf_swgraph_bfs_from(const struct vf_swgraph *g, const bool *roots,
			 uint16_t *dist, uint32_t *queue);

/*
 * The leaf-uplink bound of destination-based tables under all-to-all
 * traffic to base LIDs: a switch with H of the N end ports and U links
 * toward the others sends each other port's LID out of one of them with
 * all H routes, so one link carries at least ceil((N - H) / U) * H.
 * hosts[s]: end ports at switch s; links_end[s]: where s's counted hops
 * end (they start at hop_start[s]; NULL: all of s's hops count).
 */
uint64_t vf_swgraph_leaf_bound(const struct vf_swgraph *g,
			       const uint32_t *hosts,
			       const uint32_t *links_end);

/*
 * The tier-cut bound of destination-based tables under all-to-all traffic
 * in a tree: tiers count up from the switches with end ports; for each
 * tier k, every group of switches joined through tiers <= k (a leaf, a
 * pod, a chassis's leaf chips with their edge switches) passes I (N - I)
 * routes over its links to higher tiers, I its end ports, so one of them
 * carries the share, rounded up to the blocks every link's routes come
 * in (the greatest common divisor of the switches' end port counts).
 * The largest over tiers and groups; 0 when there is none, or out of
 * memory.
 */
uint64_t vf_swgraph_tier_bound(const struct vf_swgraph *g,
			       const uint32_t *hosts);

/* The switch number behind port p's usable link, or VF_NONE. */
uint32_t vf_peer_switch(const struct vf_fabric *f, const struct vf_port *p);

/* True when switch s has a usable link to a CA or router. */
bool vf_has_end_node(const struct vf_fabric *f, uint32_t s);

#endif /* VF_SWGRAPH_H */
