/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The switch side of adaptive routing: which member of a LID's port group
 * a switch sends a packet to, given the load of its ports.  Shared by the
 * switch agent (sim/ar-agent) and the flow simulator, so both decide the
 * same way; pure C, no I/O, no clock and no global state (the caller
 * passes the time and the random state, so runs are reproducible).
 *
 * The model (docs/ar-protocol.md, "Egress choice"):
 *   - A flow (one destination LID at one switch, struct vf_arsel_flow)
 *     starts on the LFT's static port and stays on its current port while
 *     that port is up and, unless lost_route_only, its load is below the
 *     threshold (vf_arsel_threshold_pct).
 *   - A flow whose port is down moves at once (a lost route).  A flow
 *     whose port is congested moves only when the last move is at least
 *     vf_arsel_interval_ms(frequency) ago (ARFrequency), and never with
 *     lost_route_only.
 *   - A move picks among the group's other members that are up:
 *     Random: any of them, uniformly;  Greedy: the least loaded (ties: the
 *     lowest port);  GreedyRandom: any of those below the threshold,
 *     uniformly, else the least loaded.  With no member up the flow stays.
 *   - Without a group (or with the static port not in it) the answer is
 *     the static port: AR only ever chooses among a group.
 *   - vf_arsel_choose_lost() adds a per-LID mask of ports a neighbor
 *     reported lost (ARLostRoutes): they count as down for that call.
 *
 * Usage (one call per packet, or per flow per time step):
 *
 *   struct vf_arsel_params ap = { .algorithm = VF_AR_GREEDY, .threshold = 3,
 *                                 .frequency = 0 };
 *   struct vf_arsel_port ports[37];       // [1..36]: load %, down
 *   struct vf_arsel_flow flow = { 0 };    // per (switch, LID), zeroed
 *   uint32_t rng = 1;                     // non-zero seed
 *   unsigned out = vf_arsel_choose(&ap, &group_mask, static_port,
 *                                  ports, 36, &flow, now_ms, &rng);
 */
#ifndef VF_ARSELECT_H
#define VF_ARSELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "ar.h"

/* The switch's AR settings (the ARControl fields). */
struct vf_arsel_params {
	enum vf_ar_algorithm algorithm;
	bool lost_route_only;
	unsigned frequency;	/* 0-7: 2^n x 64 ms between moves */
	unsigned threshold;	/* 0-7: see vf_arsel_threshold_pct() */
};

/* One egress port as the switch sees it. */
struct vf_arsel_port {
	unsigned load;		/* percent of capacity in use, 0-100 */
	bool down;		/* link lost */
};

/* A flow's state: zero it before first use. */
struct vf_arsel_flow {
	uint8_t port;		/* current egress, 0 = not started */
	uint64_t moved_ms;	/* when it last moved */
};

/* Load (percent) at or above which a port is congested: threshold 1-7 =
 * 100, 90, 80, 70, 65, 60, 55; 0 = the default, 80. */
unsigned vf_arsel_threshold_pct(unsigned threshold);
/* Minimum time between moves of a congested flow: 2^frequency x 64 ms. */
uint64_t vf_arsel_interval_ms(unsigned frequency);
/* xorshift32 on *state (keep it non-zero). */
uint32_t vf_arsel_random(uint32_t *state);

/*
 * The egress port for a flow: ports[1..num_ports] describe the switch's
 * ports (ports[0] unused); group may be NULL (no AR for this LID); flow
 * may be NULL (no memory: every call starts from the static port, and
 * ARFrequency does not apply).  rng is used by Random and GreedyRandom.
 */
unsigned vf_arsel_choose(const struct vf_arsel_params *p,
			 const struct vf_ar_mask *group, unsigned static_port,
			 const struct vf_arsel_port *ports, unsigned num_ports,
			 struct vf_arsel_flow *flow, uint64_t now_ms,
			 uint32_t *rng);

/*
 * The same, with lost: the ports (bit p-1, may be NULL) that a neighbor's
 * ARLostRoutes reported as no way to this LID (docs/ar-protocol.md,
 * "Lost-route notification").  For this call they count as down: a flow
 * on one moves at once, and no move picks one.
 */
unsigned vf_arsel_choose_lost(const struct vf_arsel_params *p,
			      const struct vf_ar_mask *group,
			      unsigned static_port,
			      const struct vf_arsel_port *ports,
			      unsigned num_ports, const struct vf_ar_mask *lost,
			      struct vf_arsel_flow *flow, uint64_t now_ms,
			      uint32_t *rng);

#endif /* VF_ARSELECT_H */
