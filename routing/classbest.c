// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/internal/classbest.h"
#include "common/log.h"
#include "partload.h"

/* Every class's busiest link into max[] (management classes: 0). */
static int class_maxima(const struct vf_fabric *f, const struct vf_lfts *t,
			const struct vf_traffic *tr, uint64_t *max)
{
	struct vf_partload pl;

	if (vf_partload_compute(f, t, tr, &pl))
		return -ENOMEM;
	for (unsigned k = 0; k < pl.num_classes; k++)
		max[k] = pl.cls[k].load_max;
	vf_partload_free(&pl);
	return 0;
}

/* Is a no heavier than b for every class, and lighter for one? */
static bool dominates(const uint64_t *a, const uint64_t *b, unsigned n)
{
	bool lighter = false;

	for (unsigned k = 0; k < n; k++) {
		if (a[k] > b[k])
			return false;
		lighter |= a[k] < b[k];
	}
	return lighter;
}

/* The sum of the class maxima. */
static uint64_t total(const uint64_t *max, unsigned n)
{
	uint64_t sum = 0;

	for (unsigned k = 0; k < n; k++)
		sum += max[k];
	return sum;
}

int vf_route_best_for_classes(const struct vf_fabric *f,
			      const struct vf_route_opts *opts,
			      struct vf_lfts *t, vf_route_fn fn)
{
	struct vf_route_opts o = *opts;
	struct vf_lfts other = { 0 };
	unsigned n = opts->traffic->num_classes;
	size_t size = (size_t)t->num_switches * ((size_t)t->max_lid + 1);
	uint64_t *off = calloc(3 * (size_t)n + 1, sizeof(*off));
	uint64_t *best = off + n, *cand = off + 2 * n;
	bool have_best = false;
	int rc;

	/* all-to-all first: what the class-by-class tables must beat */
	o.partition_routing = VF_PROUTE_OFF;
	rc = fn(f, &o, t);
	if (rc || !off || vf_lfts_init(&other, t->num_switches, t->max_lid) ||
	    class_maxima(f, t, opts->traffic, off))
		goto out;
	o.partition_routing = VF_PROUTE_BALANCE;
	for (o.class_variant = 0; o.class_variant < 2; o.class_variant++) {
		memset(other.port, VF_NO_PORT, size);
		if (fn(f, &o, &other) ||
		    class_maxima(f, &other, opts->traffic, cand) ||
		    !dominates(cand, off, n) ||
		    (have_best && total(cand, n) >= total(best, n)))
			continue;
		memcpy(best, cand, n * sizeof(*best));
		memcpy(t->port, other.port, size);
		have_best = true;
	}
	if (!have_best)
		vf_log(VF_LOG_INFO,
		       "partition routing (balance): by class, some class would be heavier than all-to-all here; all-to-all tables kept");
out:
	vf_lfts_free(&other);
	free(off);
	return rc;
}
