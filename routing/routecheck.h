/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Route checks: what an administrator wants to know about a set of LFTs,
 * whoever computed them (our engines, OpenSM's, or tables read back from
 * the switches).
 *
 *  - reachability: from every switch and every CA port, every LID;
 *  - hop stretch: hops taken versus the shortest healthy path;
 *  - credit loops: a cycle in the channel dependency graph of the data
 *    traffic, the routes from CA ports to CA LIDs: on one VL, or per VL
 *    with the SLs and SL-to-VL tables given (vf_route_check_vl(); engines
 *    that separate traffic by SL/VL, such as dfsssp, lash or our layered
 *    routing, show loops on one VL that their VLs break).  Management routes, to switch
 *    LIDs (mostly SMPs on VL15, which has no credit flow control) or used
 *    only by switch-originated packets, may add cycles: those are reported
 *    separately and do not fail the check;
 *  - all-to-all link load: one route from every CA port to the base LID of
 *    every other CA port, counted on each directed inter-switch link; with
 *    LMC > 0 also the same traffic sent to each LID offset instead, so
 *    that the alternate LIDs' balance shows (each offset alone);
 *  - LMC path diversity: how many distinct egress ports the LIDs of a
 *    remote CA port leave a switch with CAs by.
 */
#ifndef VF_ROUTECHECK_H
#define VF_ROUTECHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fabric.h"

struct json_object;

#define VF_CHECK_EXAMPLES 4	/* failing pairs described in a report */

struct vf_route_report {
	/* reachability, source CA port -> destination CA LID */
	uint64_t ca_pairs;
	uint64_t ca_unreachable;
	/* pairs with a switch at either end (switch port-0 LIDs included) */
	uint64_t sw_pairs;
	uint64_t sw_unreachable;
	uint64_t loops;		/* walks that revisit a switch (in unreachable) */
	/* hop stretch over reachable pairs, switch-to-switch hops */
	uint64_t stretched;	/* pairs longer than the shortest path */
	unsigned max_stretch;
	uint64_t hops_sum;	/* taken, over reachable pairs */
	uint64_t min_hops_sum;	/* shortest, over the same pairs */
	/* credit loops */
	uint32_t channels;	/* directed inter-switch links carrying routes */
	uint64_t dependencies;	/* CDG edges of CA-to-CA traffic */
	bool credit_loop;	/* a cycle among those: fails the check */
	char cycle[1024];	/* one cycle: "S1/3 -> S2/5 -> ... -> S1/3" */
	uint64_t sw_dependencies;	/* more edges, from management routes */
	bool sw_credit_loop;	/* only with those: informational */
	char sw_cycle[1024];
	/* all-to-all load on directed inter-switch links */
	uint32_t links;		/* directed inter-switch links (healthy) */
	uint32_t links_used;	/* carrying at least one route */
	uint64_t load_max;
	double load_avg;	/* over all directed inter-switch links */
	double load_max_over_avg;
	/*
	 * LMC > 0: the busiest link when every CA port sends to LID offset o
	 * of every other CA port ([0] is load_max); lid_offsets is 2^LMC of
	 * the CA port with the largest LMC, 1 without LMC.
	 */
	unsigned lid_offsets;
	uint64_t load_max_by_offset[1u << 7];
	/* LMC: distinct egress ports of a remote port's LIDs, summed */
	uint64_t lmc_pairs;	/* (switch with CAs, remote CA port) pairs */
	uint64_t lmc_distinct_sum;
	/*
	 * vf_route_check_vl: credit_loop and cycle are the per-VL verdict
	 * (vlcheck.h); single_vl_loop keeps the single-VL one, a cycle the
	 * VLs break when credit_loop is false.
	 */
	bool vl_aware;
	bool single_vl_loop;
	uint16_t vls_used;	/* bit n: data crosses a switch link on VL n */
	uint16_t sls_used;
	uint64_t vl_dependencies;
	uint64_t vl_dropped;	/* (source switch, LID, SL) on VL15: fails */
	/* first failing pairs, human-readable, one per line */
	unsigned num_examples;
	char examples[VF_CHECK_EXAMPLES][160];
};

/*
 * Run every check; returns 0, -ENOMEM, or -EINVAL when f is not finalized
 * or t is not sized to it.
 */
int vf_route_check(const struct vf_fabric *f, const struct vf_lfts *t,
		   struct vf_route_report *r);
struct vf_vl_model;
/*
 * vf_route_check, with credit loops judged per virtual lane under m
 * (vlcheck.h): what the fabric does when its SLs and SL-to-VL tables
 * separate the traffic.
 */
int vf_route_check_vl(const struct vf_fabric *f, const struct vf_lfts *t,
		      const struct vf_vl_model *m, struct vf_route_report *r);
/* True when nothing is unreachable and there is no credit loop. */
bool vf_route_report_ok(const struct vf_route_report *r);
/* Print the report as text lines. */
void vf_route_report_print(FILE *out, const struct vf_route_report *r);
/*
 * The report as one JSON object (json-c) for the caller to print or to
 * add to (vfabric check-routes --config); NULL when out of memory.
 */
struct json_object *vf_route_report_json(const struct vf_route_report *r);

#endif /* VF_ROUTECHECK_H */
