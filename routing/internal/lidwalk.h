/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The forwarding tree of one destination LID over all switches: what every
 * switch does with a packet for it and where the packet ends up from
 * there.  The route checks (routecheck.c) and the per-class metrics
 * (partload.c) walk LFTs this way, one LID at a time, so their memory
 * stays O(switches + channels) and each switch is visited once per LID
 * however many sources enter it.
 *
 * Channels are the directed usable inter-switch links, numbered in port
 * slot order of their tail ports.
 */
#ifndef VF_LIDWALK_H
#define VF_LIDWALK_H

#include <stdint.h>

#include "routing/fabric.h"

/*
 * Outcome of one LFT entry (vf_walk_classify) and of a whole walk
 * (res[] after vf_walk_lid): >= 0 is the number of switch-to-switch hops
 * still to go; negative values say why the packet never arrives, or are
 * walk bookkeeping.
 */
enum {
	VF_WALK_FORWARD = -1,	/* on to another switch: not resolved yet */
	VF_WALK_ON_PATH = -2,	/* on the walk being resolved */
	VF_WALK_NO_ROUTE = -3,	/* LFT entry VF_NO_PORT */
	VF_WALK_BAD_PORT = -4,	/* LFT names a port the switch lacks */
	VF_WALK_LINK_DOWN = -5,	/* port unlinked, or the link unhealthy */
	VF_WALK_WRONG_CA = -6,	/* delivered to an end port without the LID */
	VF_WALK_WRONG_SW = -7,	/* port 0 on a switch without the LID */
	VF_WALK_LOOP = -8,	/* the walk revisits a switch */
};

/* pnext[] of ports that do not lead on to a switch */
#define VF_WALK_DOWN VF_NONE		/* unusable, or a CA's port */
#define VF_WALK_END (VF_NONE - 1)	/* a switch port facing an end port */

struct vf_walk {
	const struct vf_fabric *f;
	const struct vf_lfts *t;
	uint32_t nsw;

	/* topology, built once */
	uint32_t *pnext;	/* port index -> peer switch or VF_WALK_* */
	uint32_t nchan;
	uint32_t *port_chan;	/* port index -> channel, VF_NONE */

	/* per destination LID (vf_walk_lid) */
	int32_t *res;		/* outcome per switch */
	uint32_t *nxt;		/* next switch where res was VF_WALK_FORWARD */
	uint32_t *chan;		/* channel taken there, else VF_NONE */
	uint32_t *scratch;	/* walk stack; the users' queue and order */
	uint32_t *bucket;	/* counting sort of switches by hops */
};

/*
 * Index f's ports for walking t; 0, -ENOMEM, or -EINVAL when f is not
 * finalized or t is not sized to it.
 */
int vf_walk_init(struct vf_walk *w, const struct vf_fabric *f,
		 const struct vf_lfts *t);
void vf_walk_free(struct vf_walk *w);

/* The switch a port belongs to or enters the fabric at, else VF_NONE. */
uint32_t vf_walk_port_switch(const struct vf_walk *w, uint32_t port);

/*
 * What switch s does with a packet for lid: VF_WALK_FORWARD with *next the
 * next switch and *port the port index it leaves by, 0 when it delivers,
 * or why it drops.
 */
int32_t vf_walk_classify(const struct vf_walk *w, uint32_t s, unsigned lid,
			 uint32_t *next, uint32_t *port);

/* Fill res[], nxt[] and chan[] for every switch and lid. */
void vf_walk_lid(struct vf_walk *w, unsigned lid);

/*
 * After vf_walk_lid: the switches that deliver, farthest from the
 * destination first, into scratch[]; returns how many of them forward (are
 * not the destination switch itself), all at the head.  Handing a value
 * from scratch[i] to nxt[scratch[i]] in this order accumulates it down the
 * forwarding tree.
 */
uint32_t vf_walk_order(struct vf_walk *w);

#endif /* VF_LIDWALK_H */
