/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The flow-level simulator of adaptive routing (docs/adaptive-routing.md,
 * "Flow simulator"): how many flows of a traffic pattern cross each
 * directed link with the static routes of an LFT set, and with adaptive
 * routing choosing among the port groups of AR tables the way a switch
 * does (vf_arsel_choose(), shared with the switch agent); and what a set
 * of failed links does to both before and after the SM re-routes.
 *
 * A flow is one source CA port sending to one destination LID.  Loads are
 * counted per port slot: loads[p] is the number of flows leaving by port
 * p.  The statistics (max, mean, links used) are over the fabric links:
 * directed links between two switches that are up.  The links between a
 * CA and its switch carry the same flows whatever the routing, so they
 * are left out of the statistics (a hot spot's last link shows there).
 *
 * The congestion model of the adaptive placement: flows are placed one at
 * a time in a seeded random order; at each switch with a port group for
 * the destination LID, a port's load as the switch sees it is its flows
 * relative to the busiest fabric link at that moment (100 % = as loaded
 * as the busiest), so "congested" (at or above the threshold) means "near
 * the current worst".  With backpressure (the default) a port also looks
 * as loaded as the busiest link the flow would take after it by the LFTs:
 * the Threshold measures buffer use, and with credit-based flow control a
 * congested link further on fills the buffers behind it.  Without it a
 * leaf sees only its own uplinks, never the spine's downlink its choice
 * lands on.  Then a few rebalancing rounds: flows that cross a link
 * carrying the current maximum are taken out and placed again, one at a
 * time.  Each placement starts from the static port (the switch keeps no
 * memory of a flow: the steady state after many ARFrequency intervals);
 * links are taken to be of equal rate.  Runs are reproducible: the only
 * randomness is the caller's seed.
 *
 * Lost-route notification (notify, the default): a switch whose port goes
 * down tells its neighbor switches on its other up ports which LIDs it
 * can no longer reach (their static port is that port and no other member
 * of their group is up, or they have none); a neighbor treats its port
 * toward the sender as down for those LIDs when it chooses among a group,
 * and passes the news on when that leaves it no way on.  The model takes
 * the state those messages converge to (vf_arflow_lost_routes()) before
 * any flow is placed: switch s has lost LID l when its static port for l
 * and every member of l's group are down or lost, a port being lost for
 * l when the switch behind it has lost l.  The protocol never sends back
 * to the sender; the fixed point does not need that rule, since a switch
 * that has lost l has no choice left for l to change.  Alternates stay
 * inside the SM's groups, so the routes stay free of credit loops.
 * Without notify a switch sees only its own ports: the flows coming down
 * a failed link of a tree are lost at its upper switch, which has no
 * other way down, since the switches above it only see their own ports.
 */
#ifndef VF_ARFLOW_H
#define VF_ARFLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "ar.h"
#include "arselect.h"
#include "engine.h"
#include "fabric.h"

struct vf_flow {
	uint32_t src;		/* port slot of the source CA port */
	uint16_t dlid;		/* destination (a CA port's base LID) */
};

struct vf_flows {
	struct vf_flow *v;
	uint32_t n;
};

enum vf_flow_pattern {
	VF_FLOW_PERM,		/* every end port to another, a permutation */
	VF_FLOW_ALL2ALL,	/* every end port to every other */
	VF_FLOW_HOTSPOT,	/* every end port to one (seeded) */
	VF_FLOW_SHIFT,		/* end port i to i + shift (mod count) */
};

/* "perm", "all2all", "hotspot", "shift" to the enum; -1 if none. */
int vf_flow_pattern_parse(const char *name);
const char *vf_flow_pattern_name(enum vf_flow_pattern p);

/*
 * The end ports of f that flows run between: CA ports with a LID and a
 * link to a switch, in port slot order, into *ports (malloc'd); returns
 * how many, or -ENOMEM.
 */
int vf_flow_endpoints(const struct vf_fabric *f, uint32_t **ports);

/*
 * The flows of a pattern over f's end ports.  seed picks the permutation
 * (a derangement: no port sends to itself) and the hot spot; shift 0
 * means half the end ports.  0, -ENOMEM, or -EINVAL with fewer than two
 * end ports.
 */
int vf_flows_make(const struct vf_fabric *f, enum vf_flow_pattern p,
		  uint32_t seed, unsigned shift, struct vf_flows *out);
void vf_flows_free(struct vf_flows *fl);

/* What the switches do and how hard the placement tries. */
struct vf_arflow_params {
	struct vf_arsel_params sel;	/* algorithm, threshold, ... */
	unsigned rounds;		/* rebalancing rounds (4) */
	bool backpressure;		/* see the model above (on) */
	bool notify;			/* lost-route notification (on) */
	uint32_t seed;			/* placement order and random picks */
};

/* GreedyRandom, threshold 3, 4 rounds, seed 1, backpressure, notify. */
void vf_arflow_params_default(struct vf_arflow_params *p);

struct vf_arflow_stats {
	unsigned max;		/* flows on the busiest fabric link */
	double mean;		/* flows per fabric link */
	uint32_t used;		/* fabric links with a flow */
	uint32_t links;		/* fabric links (up) */
	uint32_t lost;		/* flows sent onto a failed link */
	uint32_t unrouted;	/* flows dropped: no route, loop, wrong end */
};

/*
 * Failed links: down[p] for every port slot p (both ends of a link set),
 * or NULL for none.  vf_arflow_fail marks the link of port slot p.
 */
void vf_arflow_fail(const struct vf_fabric *f, bool *down, uint32_t p);
/*
 * Mark n distinct links between switches, picked by seed among those not
 * yet down; returns how many were marked (fewer when there are fewer).
 */
unsigned vf_arflow_fail_random(const struct vf_fabric *f, bool *down,
			       unsigned n, uint32_t seed);

/*
 * Static routing: each flow follows t hop by hop; a flow whose next link
 * is down is lost there.  loads[f->num_ports] is filled (may be NULL).
 * 0 or -ENOMEM.
 */
int vf_arflow_static(const struct vf_fabric *f, const struct vf_lfts *t,
		     const struct vf_flows *fl, const bool *down,
		     uint32_t *loads, struct vf_arflow_stats *st);

/*
 * Adaptive routing over the groups of ar (the model above); a flow is lost
 * at a switch whose choice is down (its static port is down and its group,
 * if any, has no member up; with notify, lost ports count as down for the
 * LIDs lost behind them).  0 or -ENOMEM.
 */
int vf_arflow_adaptive(const struct vf_fabric *f, const struct vf_lfts *t,
		       const struct vf_ar_tables *ar,
		       const struct vf_flows *fl, const bool *down,
		       const struct vf_arflow_params *p, uint32_t *loads,
		       struct vf_arflow_stats *st);

/* Switch number sw's port group for lid in ar, or NULL (none, or no ar). */
const struct vf_ar_mask *vf_arflow_group(const struct vf_ar_tables *ar,
					 uint32_t sw, unsigned lid);

/*
 * The lost-route state the notifications converge to with the failed
 * links down (the model above): (*lost)[sw * (t->max_lid + 1) + lid] is
 * set when switch number sw has no way on for lid (malloc'd; all clear
 * when down is NULL).  0 or -ENOMEM.
 */
int vf_arflow_lost_routes(const struct vf_fabric *f, const struct vf_lfts *t,
			  const struct vf_ar_tables *ar, const bool *down,
			  bool **lost);

/*
 * Port slot p of a switch cannot carry a flow for lid: unlinked, failed,
 * or (lost from vf_arflow_lost_routes(), may be NULL) its peer switch has
 * lost lid.
 */
bool vf_arflow_port_lost(const struct vf_fabric *f, const struct vf_lfts *t,
			 const bool *down, const bool *lost, uint32_t p,
			 unsigned lid);

/*
 * What the SM programs once it sees the failed links: f routed again by
 * engine e with those links unhealthy into t, starting from prev when not
 * NULL (the tables before the failure: the plugin's route_stability), and
 * fine-grained AR tables for the new routes into ar (both initialised
 * here, freed on error).  Place flows on them with vf_arflow_static() and
 * vf_arflow_adaptive() and the same down.  f's health flags are restored
 * before return.  0, -ENOMEM, or the engine's error.
 */
int vf_arflow_reroute(struct vf_fabric *f, const bool *down,
		      const struct vf_engine *e,
		      const struct vf_previous *prev, struct vf_lfts *t,
		      struct vf_ar_tables *ar);

#endif /* VF_ARFLOW_H */
