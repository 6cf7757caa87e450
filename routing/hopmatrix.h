/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Min-hop matrices with the numbers OpenSM 3.3.23's own builder
 * (osm_ucast_mgr_build_lid_matrices, hop weights 1) gives: for every
 * switch, every destination switch and every port, the least hops to that
 * switch leaving by that port.  OpenSM keeps them for its multicast trees
 * and its min-hop LFT builder, and has entries for switch LIDs only.
 *
 * OpenSM's rules, and so these:
 *  - a switch is 0 hops from itself, by port 0;
 *  - by a port linked to the destination switch: 1, healthy link or not;
 *  - by a port whose link is healthy at both ends: 1 + the least hops of
 *    the switch behind it;
 *  - any other port (CAs, a link to itself, an unhealthy link to another
 *    switch): no path;
 *  - port 0 holds the least over the ports (0 at the switch itself);
 *  - 255 and more are no path.
 * OpenSM relaxes every switch against its neighbours round after round
 * (switches x ports x switches a round); here it is one breadth-first
 * search per destination switch, with the same results.
 */
#ifndef VF_HOPMATRIX_H
#define VF_HOPMATRIX_H

#include <stdbool.h>
#include <stdint.h>

#define VF_HOPS_NONE 0xFF	/* OpenSM's OSM_NO_PATH */

/* A port of a switch linked to another switch. */
struct vf_hoplink {
	uint32_t peer;		/* switch number behind it */
	uint8_t port;		/* port number */
	bool healthy;		/* both ends healthy */
};

/* The switch graph as OpenSM sees it; switches numbered 0 .. nsw - 1. */
struct vf_hopgraph {
	uint32_t nsw;
	uint32_t *start;	/* [nsw + 1]: links of switch s */
	struct vf_hoplink *links;
	uint32_t num_links, cap;
	uint32_t last;		/* the switch links are being added to */
};

/* Room for nsw switches and at most max_links links; 0 or -ENOMEM. */
int vf_hopgraph_init(struct vf_hopgraph *g, uint32_t nsw, uint32_t max_links);
void vf_hopgraph_free(struct vf_hopgraph *g);
/*
 * Add a port of switch s (switches in increasing order; s != peer, both
 * below nsw); 0, -EINVAL or -ENOSPC.  Call vf_hopgraph_done() after the
 * last.
 */
int vf_hopgraph_add(struct vf_hopgraph *g, uint32_t s, uint8_t port,
		    uint32_t peer, bool healthy);
void vf_hopgraph_done(struct vf_hopgraph *g);

/* One destination's counts, from vf_hops_to(). */
struct vf_hops_dst {
	uint32_t dst;
	uint8_t *dist;		/* [nsw]: least hops from switch n */
	uint8_t *via;		/* [nsw]: what a healthy port towards n
				 * counts: dist + 1, or VF_HOPS_NONE */
	uint32_t *queue;	/* [nsw]: scratch */
};

/* Room for nsw switches; 0 or -ENOMEM. */
int vf_hops_dst_init(struct vf_hops_dst *h, uint32_t nsw);
void vf_hops_dst_free(struct vf_hops_dst *h);

/* Least hops from every switch to switch dst, into h. */
void vf_hops_to(const struct vf_hopgraph *g, uint32_t dst,
		struct vf_hops_dst *h);

/*
 * Switch s's row for h's destination, ports 0 .. num_ports - 1; ports
 * without a path are VF_HOPS_NONE.
 */
void vf_hops_row(const struct vf_hopgraph *g, const struct vf_hops_dst *h,
		 uint32_t s, uint8_t *row, unsigned num_ports);

#endif /* VF_HOPMATRIX_H */
