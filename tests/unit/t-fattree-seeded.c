// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * fattree's seeded first pass (follow_seed()) and the passes after it,
 * which only trees of more than about 11,000 hosts reach, on small
 * degraded trees: this program is built with routing/fattree.c compiled
 * for it, its work limit lowered (FT_FLOW_WORK_MAX), its blocks small
 * (FT_LID_BLOCK: the k = 12 tree's entries are copied in two blocks) and
 * its self-check on (FT_SELF_CHECK: the flow model's link loads must be
 * those of the tables it wrote; it notes the busiest link after the first
 * pass and after the passes).  Hosts without a LID are no destination:
 * an edge switch whose hosts all lack one once routed another edge
 * switch's destination again, to no table.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/engine.h"
#include "routing/routecheck.h"
#include "fabrics.h"
#include "taptest.h"

/* What the self-check said during one routing. */
static struct {
	char error[512];
	uint64_t first, passes;	/* busiest link noted, 0 if not */
	bool first_seeded, passes_seeded;
} said;

static void listen(void *ctx, enum vf_log_level level, const char *msg)
{
	const char *at = strstr(msg, "busiest link ");
	uint64_t busiest = at ? strtoull(at + 13, NULL, 10) : 0;
	bool seeded = strstr(msg, "(seeded)") != NULL;

	(void)ctx;
	if (level <= VF_LOG_ERROR) {
		snprintf(said.error, sizeof(said.error), "%s", msg);
	} else if (strstr(msg, "fattree: self-check: first pass") && at) {
		said.first = busiest;
		said.first_seeded = seeded;
	} else if (strstr(msg, "fattree: self-check: passes") && at) {
		said.passes = busiest;
		said.passes_seeded = seeded;
	}
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

static void say(char *buf, size_t size, const char *what, const char *is)
{
	snprintf(buf, size, "%s: %s", what, is);
}

/*
 * A k = 8 or k = 12 tree missing three core cables, the hosts of leaf
 * `no_lids` (or none, for a value past the leaves) without LIDs: routed
 * through the seeded first pass, the model agrees with the tables after
 * it and after the passes, the passes lower the busiest link (the first
 * pass leaves these trees 11-12% above where the passes take them; a
 * pass that moves nothing would leave it), and every CA with a LID
 * reaches every other.
 */
static void route_seeded(unsigned k, unsigned no_lids, const char *what)
{
	struct vf_fabric *f = fat_tree3(k, 0);
	struct vf_route_opts o;
	struct vf_route_report r;
	struct vf_lfts t;
	char is[256];
	int rc;

	if (k == 8) {
		cut_cable(f, "A0", 5);
		cut_cable(f, "A9", 7);
		cut_cable(f, "A22", 6);
	} else {
		cut_cable(f, "A5", 8);
		cut_cable(f, "A40", 10);
		cut_cable(f, "A70", 7);
	}
	if (no_lids < k * k / 2)
		drop_lids(f, no_lids, k / 2);
	vf_route_opts_default(&o);
	memset(&said, 0, sizeof(said));
	rc = vf_lfts_init(&t, f->num_switches, f->max_lid);
	rc = rc ? rc : vf_route_fattree(f, &o, &t);
	say(is, sizeof(is), what, "routed");
	OK(!rc, is);
	say(is, sizeof(is), what, "the model's loads are the tables'");
	if (!OK(said.error[0] == '\0', is))
		printf("#   %s\n", said.error);
	say(is, sizeof(is), what,
	    "the self-check ran after a seeded first pass and the passes");
	OK(said.first && said.passes && said.first_seeded &&
	   said.passes_seeded, is);
	printf("# busiest link %" PRIu64 " after the first pass, %" PRIu64
	       " after the passes\n", said.first, said.passes);
	say(is, sizeof(is), what, "the passes lower the busiest link");
	OK(said.passes < said.first, is);
	say(is, sizeof(is), what,
	    "every CA with a LID reached, no credit loop");
	OK(!rc && !vf_route_check(f, &t, &r) && !r.ca_unreachable &&
	   !r.credit_loop, is);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

int main(void)
{
	vf_log_set_sink(listen, NULL);
	route_seeded(8, 99, "k=8, every host with a LID");
	route_seeded(8, 13, "k=8, leaf 13's hosts without LIDs");
	route_seeded(8, 14,
		     "k=8, leaf 14's hosts without LIDs (the one after it)");
	route_seeded(8, 0, "k=8, the first leaf's hosts without LIDs");
	route_seeded(8, 31, "k=8, the last leaf's hosts without LIDs");
	route_seeded(12, 999, "k=12 (two blocks), every host with a LID");
	route_seeded(12, 40, "k=12 (two blocks), leaf 40's hosts without LIDs");
	vf_log_set_sink(NULL, NULL);
	return tap_done();
}
