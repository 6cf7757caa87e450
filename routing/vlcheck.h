/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The credit-loop check per virtual lane.  A packet holds a buffer of one
 * VL on one link while it waits for a buffer of the next: the channel
 * dependency graph that can deadlock has a node per (directed
 * inter-switch link, VL), not per link.  Routings that separate traffic
 * by SL (dfsssp, lash, nue, torus-2QoS, our layered routing) are
 * deadlock-free exactly when this graph is acyclic, though the single-VL
 * graph of routecheck.h has cycles.
 *
 * What it needs besides the tables: the SLs the data traffic uses from
 * each source switch to each LID (a set: a pair of hosts may talk in
 * several vFabrics), and each switch's SL-to-VL map.  Sources are taken
 * by the switch they enter at; a switch's CA ports are one source, and
 * the VL on their first inter-switch link is every VL any of their input
 * ports maps the SL to, so the graph holds at least every dependency the
 * traffic can create.  Only data traffic, from CA ports to CA LIDs, is
 * checked, as routecheck.h does.
 */
#ifndef VF_VLCHECK_H
#define VF_VLCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric.h"

#define VF_NUM_SLS 16
#define VF_VL_DROP 15	/* VL15 carries no data: an SL mapped to it is dropped */

struct vf_vl_model {
	/* SLs (bit n: SL n) of the data traffic from switch s's CA ports to
	 * lid; 0: none */
	uint16_t (*path_sls)(const void *ctx, uint32_t s, unsigned lid);
	/* the VL switch s sends a packet of SL sl on that came in by port
	 * number in (0: from the switch itself) and leaves by port out */
	uint8_t (*sl2vl)(const void *ctx, uint32_t s, uint8_t in, uint8_t out,
			 uint8_t sl);
	const void *ctx;
};

struct vf_vl_report {
	uint64_t dependencies;	/* (link, VL) -> (link, VL) turns of data */
	uint16_t vls_used;	/* bit n: data crosses a switch link on VL n */
	uint16_t sls_used;	/* bit n: some data path uses SL n */
	uint64_t dropped;	/* (source switch, LID, SL) mapped to VL15 */
	bool credit_loop;
	/* one cycle: "S1/3 VL1 -> S2/5 VL1 -> ... -> S1/3 VL1" */
	char cycle[1024];
};

/*
 * Build the per-VL dependency graph of t's data routes under m and look
 * for a cycle.  Returns 0, -ENOMEM, or -EINVAL when f is not finalized or
 * t not sized to it.
 */
int vf_vl_check(const struct vf_fabric *f, const struct vf_lfts *t,
		const struct vf_vl_model *m, struct vf_vl_report *r);

/* Bits set in a 16-bit mask, as "0-2,5" (out holds at least 48 bytes). */
void vf_vl_mask_str(uint16_t mask, char *out, size_t n);

#endif /* VF_VLCHECK_H */
