/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Per-partition metrics of a routing: how each traffic class (virtual
 * fabric, traffic.h) loads the directed inter-switch links, and which
 * links classes that share no port (tenants) have to share anyway.  What
 * an administrator asks of a partition-aware routing: is each tenant
 * balanced on its own, and are tenants kept apart?
 *
 * For every class c that is not management: one route from every CA port
 * s to the base LID of every CA port d != s that may talk to s in c
 * (vf_traffic_pair), counted on each directed inter-switch link it
 * crosses (routes that never arrive count as unreachable and load
 * nothing, as in routecheck.h).  Across classes:
 *
 *  - shared links: directed inter-switch links that two or more classes
 *    without a common member port (vf_traffic_overlap false) both use,
 *    per such pair of classes and in total;
 *  - all classes: the same load with each pair that may talk in any
 *    measured class counted once, however many classes permit it.
 *
 * Management classes (the default partition, Admin) are left out: every
 * port is in them, so they would only repeat the whole-fabric all-to-all
 * of the route checks.  CA ports take part when they are linked and have
 * a LID.  Cost: O(destinations x classes x switches) with a tree sweep
 * per destination, plus one pass over the members of the destination's
 * classes for the pairs counted once.
 */
#ifndef VF_PARTLOAD_H
#define VF_PARTLOAD_H

#include <stdint.h>
#include <stdio.h>

#include "fabric.h"
#include "traffic.h"

struct json_object;

/* Load of one class (or of all together) on directed inter-switch links. */
struct vf_partload_class {
	uint64_t pairs;		/* permitted ordered CA port pairs */
	uint64_t unreachable;	/* of those, routes that never arrive */
	uint64_t load_sum;	/* routes x links crossed */
	uint64_t load_max;	/* routes on the busiest link */
	uint32_t links_used;	/* links carrying at least one route */
	double load_avg_used;	/* load_sum / links_used */
	double load_avg;	/* load_sum / all healthy directed links */
	/* load_max / load_avg, as routecheck.h's over all links */
	double load_max_over_avg;
};

/* Two classes without a common port that use the same links. */
struct vf_partload_shared {
	unsigned a, b;		/* class indices, a < b */
	uint32_t links;		/* directed links both use */
};

struct vf_partload {
	unsigned num_classes;	/* the traffic model's; management zeroed */
	struct vf_partload_class *cls;
	struct vf_partload_class all;	/* each permitted pair once */
	uint32_t links;		/* healthy directed inter-switch links */
	uint32_t shared_links;	/* used by two classes without common port */
	struct vf_partload_shared *shared;	/* pairs with links > 0 */
	unsigned num_shared;
	/* for listing links: tail port slot and per-class load of each */
	uint32_t *link_port;	/* [link] */
	uint64_t *load;		/* [class * links + link] */
};

/* One directed inter-switch link a class uses. */
struct vf_partload_link {
	uint64_t from_guid, to_guid;	/* switch NodeGUIDs */
	uint32_t from_node, to_node;	/* node indices in the fabric */
	uint8_t from_port, to_port;
	uint64_t load;			/* the class's routes on it */
};

/*
 * Measure t on f for the classes of tr (built for f's port slots).
 * Returns 0, -ENOMEM, or -EINVAL when f is not finalized or t or tr is not
 * sized to it.  Free r with vf_partload_free() whatever it returns.
 */
int vf_partload_compute(const struct vf_fabric *f, const struct vf_lfts *t,
			const struct vf_traffic *tr, struct vf_partload *r);
void vf_partload_free(struct vf_partload *r);

/*
 * The links class c uses, in port slot order of their tails: writes at
 * most max of them to out and returns how many there are (0 for a
 * management class or c out of range).
 */
uint32_t vf_partload_links(const struct vf_partload *r,
			   const struct vf_fabric *f, unsigned c,
			   struct vf_partload_link *out, uint32_t max);

/*
 * The report as text lines, or as one JSON object (json-c; NULL when out
 * of memory) for the caller to print.
 */
void vf_partload_print(FILE *out, const struct vf_partload *r,
		       const struct vf_traffic *tr);
struct json_object *vf_partload_json(const struct vf_partload *r,
				     const struct vf_traffic *tr);
/* Class c's links as text lines, or as one JSON object. */
void vf_partload_links_print(FILE *out, const struct vf_partload *r,
			     const struct vf_fabric *f,
			     const struct vf_traffic *tr, unsigned c);
struct json_object *vf_partload_links_json(const struct vf_partload *r,
					   const struct vf_fabric *f,
					   const struct vf_traffic *tr,
					   unsigned c);

#endif /* VF_PARTLOAD_H */
