// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * fattree's seeded first pass (follow_seed()), which only trees of more
 * than about 11,000 hosts reach, on small degraded trees: this program is
 * built with routing/fattree.c compiled for it, its work limit lowered
 * (FT_FLOW_WORK_MAX) and its self-check on (FT_SELF_CHECK: the flow
 * model's link loads must be those of the tables it wrote).  Hosts without
 * a LID are no destination: an edge switch whose hosts all lack one once
 * routed another edge switch's destination again, to no table.
 */
#include <stdio.h>
#include <string.h>

#include "routing/engine.h"
#include "routing/routecheck.h"
#include "fabrics.h"
#include "taptest.h"

static char last_error[512];

static void keep_errors(void *ctx, enum vf_log_level level, const char *msg)
{
	if (level <= VF_LOG_ERROR)
		snprintf(ctx, sizeof(last_error), "%s", msg);
}

/* Agg-core cables cut: a degraded tree, routed by the flow model. */
static void cut_cable(struct vf_fabric *f, const char *agg, unsigned port)
{
	uint32_t n = vf_fabric_find_name(f, agg);
	struct vf_port *p = vf_node_port(f, &f->nodes[n], port);

	p->healthy = false;
	f->ports[p->remote].healthy = false;
}

/* The hosts of leaf L<leaf> lose their LIDs. */
static void drop_lids(struct vf_fabric *f, unsigned leaf, unsigned hosts)
{
	char name[32];

	for (unsigned i = 0; i < hosts; i++) {
		snprintf(name, sizeof(name), "H%u_%u", leaf, i);
		vf_node_port(f, &f->nodes[vf_fabric_find_name(f, name)],
			     1)->base_lid = 0;
	}
	vf_fabric_reindex_lids(f);
}

/*
 * A k = 8 tree missing three core cables, the hosts of leaf `no_lids`
 * (or none, for a value past the leaves) without LIDs: routed, the model
 * agrees with the tables, and every CA with a LID reaches every other.
 */
static void route_seeded(unsigned no_lids, const char *what)
{
	struct vf_fabric *f = fat_tree3(8, 0);
	struct vf_route_opts o;
	struct vf_route_report r;
	struct vf_lfts t;
	char what_[256];
	int rc;

	cut_cable(f, "A0", 5);
	cut_cable(f, "A9", 7);
	cut_cable(f, "A22", 6);
	if (no_lids < 32)
		drop_lids(f, no_lids, 4);
	vf_route_opts_default(&o);
	last_error[0] = '\0';
	rc = vf_lfts_init(&t, f->num_switches, f->max_lid);
	rc = rc ? rc : vf_route_fattree(f, &o, &t);
	snprintf(what_, sizeof(what_), "%s: routed", what);
	OK(!rc, what_);
	snprintf(what_, sizeof(what_), "%s: the model's loads are the tables'",
		 what);
	if (!OK(last_error[0] == '\0', what_))
		printf("#   %s\n", last_error);
	snprintf(what_, sizeof(what_),
		 "%s: every CA with a LID reached, no credit loop", what);
	OK(!rc && !vf_route_check(f, &t, &r) && !r.ca_unreachable &&
	   !r.credit_loop, what_);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

int main(void)
{
	vf_log_set_sink(keep_errors, last_error);
	route_seeded(99, "every host with a LID");
	route_seeded(13, "leaf 13's hosts without LIDs");
	route_seeded(14, "leaf 14's hosts without LIDs (the one after it)");
	route_seeded(0, "the first leaf's hosts without LIDs");
	route_seeded(31, "the last leaf's hosts without LIDs");
	vf_log_set_sink(NULL, NULL);
	return tap_done();
}
