// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Adaptive-routing tables (routing/ar.c) on fabrics routed by our engines:
 * a leaf's group is exactly its up-ports and holds the static port, the
 * way down gets no group (or the trunk of parallel links), groups are
 * deduplicated, capacities are respected, LMC keeps each LID's own static
 * port, coarse AR stays at the edge, dead ports never join a group; the
 * credit-loop check passes on trees and fails on hand-made unsafe groups
 * (a down-up turn on a tree, a cycle on a ring); dump/load round trip and
 * load errors naming file:line.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "partition/load.h"
#include "partition/routegroups.h"
#include "routing/ar.h"
#include "routing/engine.h"
#include "routing/internal/swgraph.h"
#include "fabrics.h"
#include "taptest.h"

#define LEAVES 4
#define SPINES 3
#define HOSTS 2

static int route(const struct vf_fabric *f, vf_route_fn engine,
		 struct vf_lfts *t)
{
	struct vf_route_opts o;

	vf_route_opts_default(&o);
	if (vf_lfts_init(t, f->num_switches, f->max_lid))
		return -1;
	return engine(f, &o, t);
}

static int compute(const struct vf_fabric *f, const struct vf_lfts *t,
		   bool fine, const struct vf_ar_caps *caps,
		   struct vf_ar_tables *ar)
{
	struct vf_ar_config cfg;

	vf_ar_config_default(&cfg);
	cfg.enable = true;
	cfg.fine_grained = fine;
	return vf_ar_compute(f, t, &cfg, caps, ar);
}

/* LID k of host h on leaf l of a fat_tree() */
static unsigned host_lid(const struct vf_fabric *f, unsigned spines,
			 unsigned hosts, unsigned l, unsigned h, unsigned k)
{
	uint32_t n = LEAVES + spines + l * hosts + h;

	return vf_node_port(f, &f->nodes[n], 1)->base_lid + k;
}

static struct vf_ar_mask ports_mask(unsigned first, unsigned n)
{
	struct vf_ar_mask m = { { 0 } };

	for (unsigned p = first; p < first + n; p++)
		m.w[(p - 1) / 64] |= 1ull << ((p - 1) % 64);
	return m;
}

static bool mask_eq(const struct vf_ar_mask *a, const struct vf_ar_mask *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* The group of lid at switch s, or NULL. */
static const struct vf_ar_mask *group(const struct vf_ar_tables *ar,
				      uint32_t s, unsigned lid)
{
	const struct vf_ar_switch *sw = &ar->sw[s];
	uint8_t g = sw->lid_group[lid];

	return g == VF_AR_NO_GROUP || g >= sw->num_groups ? NULL :
	       &sw->groups[g];
}

/* Properties every computed table must have; counts of violations. */
struct props {
	unsigned dup_masks;	/* two identical masks on one switch */
	unsigned static_out;	/* a grouped LID without its LFT port */
	unsigned dead_ports;	/* a member without a usable link */
	unsigned small;		/* a group of fewer than two ports */
	unsigned over_cap;	/* more groups than the capacity */
};

static struct props props(const struct vf_fabric *f, const struct vf_lfts *t,
			  const struct vf_ar_tables *ar)
{
	struct props r = { 0 };

	for (uint32_t s = 0; s < ar->num_switches; s++) {
		const struct vf_ar_switch *sw = &ar->sw[s];
		const struct vf_node *n = &f->nodes[f->switches[s]];

		r.over_cap += sw->num_groups > sw->group_cap;
		for (unsigned i = 0; i < sw->num_groups; i++) {
			unsigned members = 0;

			for (unsigned j = i + 1; j < sw->num_groups; j++)
				r.dup_masks += mask_eq(&sw->groups[i],
						       &sw->groups[j]);
			for (unsigned p = 1; p <= n->num_ports; p++) {
				if (!vf_ar_mask_has(&sw->groups[i], p))
					continue;
				members++;
				r.dead_ports += !vf_usable_peer(f,
						vf_node_port(f, n, p));
			}
			r.small += members < 2;
		}
		for (unsigned lid = 1; lid <= ar->max_lid; lid++) {
			const struct vf_ar_mask *m = group(ar, s, lid);

			if (m && !vf_ar_mask_has(m, vf_lft_row(t, s)[lid]))
				r.static_out++;
		}
	}
	return r;
}

static void check_props(const struct vf_fabric *f, const struct vf_lfts *t,
			const struct vf_ar_tables *ar, const char *what)
{
	struct props r = props(f, t, ar);
	char cycle[512], msg[160];

	snprintf(msg, sizeof(msg), "%s: groups deduplicated", what);
	EQ_U(r.dup_masks, 0, msg);
	snprintf(msg, sizeof(msg), "%s: every group holds the LFT's port",
		 what);
	EQ_U(r.static_out, 0, msg);
	snprintf(msg, sizeof(msg), "%s: no group holds a dead port", what);
	EQ_U(r.dead_ports, 0, msg);
	snprintf(msg, sizeof(msg), "%s: every group has two ports or more",
		 what);
	EQ_U(r.small, 0, msg);
	snprintf(msg, sizeof(msg), "%s: within the group capacity", what);
	EQ_U(r.over_cap, 0, msg);
	snprintf(msg, sizeof(msg), "%s: no credit loop over any alternate",
		 what);
	if (!OK(vf_ar_check(f, t, ar, cycle, sizeof(cycle)), msg))
		printf("#   %s\n", cycle);
}

/* 4 leaves x 3 spines x 2 hosts: the leaves' groups are their up-ports. */
static void test_tree(const char *name, vf_route_fn engine)
{
	struct vf_fabric *f = fat_tree(LEAVES, SPINES, HOSTS, 0);
	struct vf_ar_mask up = ports_mask(HOSTS + 1, SPINES);
	unsigned wrong = 0, local = 0, spine_groups = 0, sw_lids = 0;
	unsigned wrong_sw = 0;
	struct vf_ar_tables ar;
	struct vf_lfts t;
	char msg[160];

	if (!OK(!route(f, engine, &t) && !compute(f, &t, true, NULL, &ar),
		name))
		return;
	for (unsigned l = 0; l < LEAVES; l++) {
		snprintf(msg, sizeof(msg),
			 "%s: leaf L%u has one group (all remote LIDs)", name,
			 l);
		EQ_U(ar.sw[l].num_groups, 1, msg);
		snprintf(msg, sizeof(msg),
			 "%s: leaf L%u groups 9 LIDs (6 hosts', 3 leaves')",
			 name, l);
		EQ_U(ar.sw[l].lids_grouped, (LEAVES - 1) * (HOSTS + 1), msg);
		for (unsigned d = 0; d < LEAVES; d++) {
			for (unsigned h = 0; h < HOSTS; h++) {
				unsigned lid = host_lid(f, SPINES, HOSTS, d,
							h, 0);
				const struct vf_ar_mask *m = group(&ar, l, lid);

				if (d == l)
					local += m != NULL;
				else
					wrong += !m || !mask_eq(m, &up);
			}
		}
	}
	snprintf(msg, sizeof(msg),
		 "%s: every remote LID's group at a leaf is its 3 up-ports",
		 name);
	EQ_U(wrong, 0, msg);
	snprintf(msg, sizeof(msg), "%s: LIDs on the leaf itself: no group",
		 name);
	EQ_U(local, 0, msg);
	for (uint32_t s = LEAVES; s < LEAVES + SPINES; s++)
		spine_groups += ar.sw[s].num_groups + ar.sw[s].lids_grouped;
	snprintf(msg, sizeof(msg),
		 "%s: spines: one way down to every LID, no group", name);
	EQ_U(spine_groups, 0, msg);
	/* as the FM: a leaf's LID is grouped like its hosts' (the up-ports);
	 * a spine has no end node, its LID stays static */
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t o = 0; o < f->num_switches; o++) {
			const struct vf_ar_mask *m = group(&ar, s,
				vf_node_port(f, &f->nodes[f->switches[o]],
					     0)->base_lid);

			sw_lids += m != NULL;
			wrong_sw += m && (s >= LEAVES || o >= LEAVES ||
					  s == o || !mask_eq(m, &up));
		}
	snprintf(msg, sizeof(msg),
		 "%s: switch LIDs: each leaf groups the 3 other leaves' LIDs on its up-ports, no spine's",
		 name);
	EQ_U(sw_lids, LEAVES * (LEAVES - 1), msg);
	EQ_U(wrong_sw, 0, msg);
	check_props(f, &t, &ar, name);
	vf_ar_free(&ar);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/*
 * Trunks of two cables (ft2-trunk2.net): the way down from a spine is the
 * trunk to the destination's leaf, a group of parallel links, which can
 * close no loop; its members all lead to that one leaf.
 */
static void test_trunk(void)
{
	struct vf_fabric *f = golden_fabric("ft2-trunk2.net");
	unsigned down_groups = 0, astray = 0;
	struct vf_ar_tables ar;
	struct vf_lfts t;

	if (!OK(f && !route(f, vf_route_shortestpath, &t) &&
		!compute(f, &t, true, NULL, &ar), "ft2-trunk2: routed, AR"))
		return;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct vf_node *n = &f->nodes[f->switches[s]];

		if (vf_has_end_node(f, s))
			continue;
		for (unsigned lid = 1; lid <= f->max_lid; lid++) {
			const struct vf_ar_mask *m = group(&ar, s, lid);
			uint32_t dst = vf_fabric_lid_node(f, lid);
			uint32_t leaf;

			if (!m || vf_is_switch(&f->nodes[dst]))
				continue;
			down_groups++;
			leaf = vf_peer_switch(f, vf_node_port(f,
						&f->nodes[dst], 1));
			for (unsigned p = 1; p <= n->num_ports; p++)
				astray += vf_ar_mask_has(m, p) &&
					  vf_peer_switch(f, vf_node_port(f, n,
							 p)) != leaf;
		}
	}
	OK(down_groups > 0, "ft2-trunk2: spines group the trunk down");
	EQ_U(astray, 0, "ft2-trunk2: a spine's group leads only to the "
	     "destination's leaf");
	check_props(f, &t, &ar, "ft2-trunk2");
	vf_ar_free(&ar);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/* LMC 2 on 4 spines: each LID of a host keeps its own static port. */
static void test_lmc(const char *name, vf_route_fn engine)
{
	struct vf_fabric *f = fat_tree(LEAVES, 4, HOSTS, 2);
	struct vf_ar_mask up = ports_mask(HOSTS + 1, 4);
	unsigned same = 0, bad = 0;
	struct vf_ar_tables ar;
	struct vf_lfts t;
	char msg[160];

	if (!OK(!route(f, engine, &t) && !compute(f, &t, true, NULL, &ar),
		name))
		return;
	for (unsigned l = 0; l < LEAVES; l++) {
		const uint8_t *row = vf_lft_row(&t, l);

		for (unsigned d = 0; d < LEAVES; d++) {
			for (unsigned h = 0; d != l && h < HOSTS; h++) {
				unsigned seen = 0;

				for (unsigned k = 0; k < 4; k++) {
					unsigned lid = host_lid(f, 4, HOSTS, d,
								h, k);
					const struct vf_ar_mask *m =
						group(&ar, l, lid);

					same += !!(seen & 1u << row[lid]);
					seen |= 1u << row[lid];
					bad += !m || !mask_eq(m, &up) ||
					       !vf_ar_mask_has(m, row[lid]);
				}
			}
		}
	}
	snprintf(msg, sizeof(msg),
		 "%s: the 4 LIDs of a remote host leave a leaf by 4 ports",
		 name);
	EQ_U(same, 0, msg);
	snprintf(msg, sizeof(msg),
		 "%s: each LID's group is the up-ports, with its own port",
		 name);
	EQ_U(bad, 0, msg);
	check_props(f, &t, &ar, name);
	vf_ar_free(&ar);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/*
 * The tree with cable L3-S0 broken (unhealthy both ends): L0 needs a
 * second group for L3's LIDs, without S0; L3's groups lack its dead port.
 */
static struct vf_fabric *degraded(void)
{
	struct vf_fabric *f = fat_tree(LEAVES, SPINES, HOSTS, 0);
	struct vf_port *p = vf_node_port(f, &f->nodes[3], HOSTS + 1);

	p->healthy = false;
	f->ports[p->remote].healthy = false;
	return f;
}

static void test_degraded(void)
{
	struct vf_fabric *f = degraded();
	struct vf_ar_mask all = ports_mask(HOSTS + 1, SPINES);
	struct vf_ar_mask two = ports_mask(HOSTS + 2, SPINES - 1);
	unsigned l1 = host_lid(f, SPINES, HOSTS, 1, 0, 0);
	unsigned l3 = host_lid(f, SPINES, HOSTS, 3, 0, 0);
	const struct vf_ar_mask *m;
	struct vf_ar_tables ar;
	struct vf_lfts t;

	if (!OK(!route(f, vf_route_shortestpath, &t) &&
		!compute(f, &t, true, NULL, &ar), "degraded: routed, AR"))
		return;
	m = group(&ar, 0, l1);
	OK(m && mask_eq(m, &all), "degraded: L0 toward L1: all 3 up-ports");
	m = group(&ar, 0, l3);
	OK(m && mask_eq(m, &two),
	   "degraded: L0 toward L3: the 2 spines that reach L3");
	EQ_U(ar.sw[0].num_groups, 2, "degraded: L0 has 2 groups");
	m = group(&ar, 3, l1);
	OK(m && mask_eq(m, &two),
	   "degraded: L3 toward L1: its 2 live up-ports");
	OK(!vf_ar_mask_has(m, HOSTS + 1), "degraded: L3's dead port 3 is in "
	   "no group");
	/* S0 reaches L3 only down and up again: a detour, not a way down */
	OK(vf_lft_row(&t, LEAVES)[l3] != VF_NO_PORT && !group(&ar, LEAVES, l3),
	   "degraded: S0's detour to L3 (down, then up) gets no group");
	EQ_U(ar.sw[LEAVES].num_groups, 0, "degraded: S0 has no group");
	check_props(f, &t, &ar, "degraded");
	vf_ar_free(&ar);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);

	f = golden_fabric("ft2-degraded.net");
	if (OK(f && !route(f, vf_route_fattree, &t) &&
	       !compute(f, &t, true, NULL, &ar), "ft2-degraded: routed, AR")) {
		check_props(f, &t, &ar, "ft2-degraded");
		vf_ar_free(&ar);
		vf_lfts_free(&t);
	}
	vf_fabric_destroy(f);
}

/* Capacities smaller than needed: the rest stays static, and is counted. */
static void test_capacity(void)
{
	struct vf_fabric *f = degraded();
	unsigned l2 = host_lid(f, SPINES, HOSTS, 2, 0, 0);
	struct vf_ar_caps *caps = calloc(f->num_switches, sizeof(*caps));
	struct vf_ar_tables full, ar;
	unsigned lost = 0, moved = 0, sum = 0, above = 0;
	struct vf_lfts t;

	if (!OK(caps && !route(f, vf_route_shortestpath, &t) &&
		!compute(f, &t, true, NULL, &full), "capacity: routed, AR"))
		return;
	for (uint32_t s = 0; s < f->num_switches; s++)
		caps[s] = (struct vf_ar_caps){ 1, f->max_lid + 1u };
	if (!OK(!compute(f, &t, true, caps, &ar), "one group per switch"))
		return;
	EQ_U(ar.sw[0].group_cap, 1, "group cap 1: reported");
	EQ_U(ar.sw[0].num_groups, 1, "group cap 1: L0 uses 1 group");
	EQ_U(ar.sw[0].lids_over_cap, HOSTS + 1,
	     "group cap 1: L0 counts L3's 3 LIDs (2 hosts', L3's own) over the capacity");
	OK(!group(&ar, 0, host_lid(f, SPINES, HOSTS, 3, 0, 0)) &&
	   !group(&ar, 0, host_lid(f, SPINES, HOSTS, 3, 1, 0)),
	   "group cap 1: those LIDs have no group (static)");
	for (uint32_t s = 0; s < f->num_switches; s++) {
		sum += ar.sw[s].lids_grouped + ar.sw[s].lids_over_cap !=
		       full.sw[s].lids_grouped;
		for (unsigned lid = 1; lid <= f->max_lid; lid++) {
			const struct vf_ar_mask *a = group(&ar, s, lid);
			const struct vf_ar_mask *b = group(&full, s, lid);

			moved += a && (!b || !mask_eq(a, b));
			lost += !a && b;
		}
	}
	EQ_U(sum, 0, "group cap 1: grouped + over cap = grouped without caps");
	EQ_U(moved, 0, "group cap 1: a LID kept has its uncapped group");
	/* L0, L1 and L2 each: L3's 3 LIDs; S0's one group fits */
	EQ_U(lost, 3 * (HOSTS + 1),
	     "group cap 1: 9 switch/LID entries left static");
	check_props(f, &t, &ar, "group cap 1");
	vf_ar_free(&ar);

	for (uint32_t s = 0; s < f->num_switches; s++)
		caps[s] = (struct vf_ar_caps){ VF_AR_MAX_GROUPS, l2 };
	caps[1] = (struct vf_ar_caps){ 0, 0 };
	if (!OK(!compute(f, &t, true, caps, &ar), "LID cap"))
		return;
	for (unsigned lid = l2; lid <= f->max_lid; lid++)
		above += group(&ar, 0, lid) != NULL;
	EQ_U(above, 0, "LID cap: no group for a LID past it");
	EQ_U(ar.sw[0].lids_over_cap, 2 * HOSTS,
	     "LID cap: L0 counts L2's and L3's LIDs over it");
	/* the switch LIDs come first, below the cap: L1's, L2's and L3's */
	EQ_U(ar.sw[0].lids_grouped, HOSTS + 3,
	     "LID cap: L0 groups L1's host LIDs and the 3 other leaves' LIDs");
	OK(!ar.sw[1].group_cap && !ar.sw[1].num_groups &&
	   !ar.sw[1].lids_grouped && !ar.sw[1].lids_over_cap,
	   "caps 0: L1 has no AR and nothing counted");
	check_props(f, &t, &ar, "LID cap");
	vf_ar_free(&ar);
	vf_ar_free(&full);
	vf_lfts_free(&t);
	free(caps);
	vf_fabric_destroy(f);
}

/* Coarse AR: the edge switches only, with the same tables as fine. */
static void test_coarse(const char *name, vf_route_fn engine)
{
	struct vf_fabric *f = golden_fabric("ft3-small.net");
	unsigned inner_fine = 0, inner_coarse = 0, edge_diff = 0;
	struct vf_ar_tables fine, coarse;
	struct vf_lfts t;
	char msg[160];

	if (!OK(f && !route(f, engine, &t) && !compute(f, &t, true, NULL, &fine)
		&& !compute(f, &t, false, NULL, &coarse), name))
		return;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct vf_ar_switch *a = &fine.sw[s], *b = &coarse.sw[s];

		if (!vf_has_end_node(f, s)) {
			inner_fine += a->lids_grouped;
			inner_coarse += b->num_groups + b->lids_grouped;
			continue;
		}
		edge_diff += a->num_groups != b->num_groups ||
			     a->lids_grouped != b->lids_grouped ||
			     memcmp(a->groups, b->groups,
				    a->num_groups * sizeof(*a->groups)) ||
			     memcmp(a->lid_group, b->lid_group,
				    (size_t)f->max_lid + 1);
	}
	snprintf(msg, sizeof(msg), "%s: fine: the middle tier groups too",
		 name);
	OK(inner_fine > 0, msg);
	snprintf(msg, sizeof(msg), "%s: coarse: no group off the edge", name);
	EQ_U(inner_coarse, 0, msg);
	snprintf(msg, sizeof(msg), "%s: coarse: edge tables equal fine's",
		 name);
	EQ_U(edge_diff, 0, msg);
	snprintf(msg, sizeof(msg), "%s fine", name);
	check_props(f, &t, &fine, msg);
	snprintf(msg, sizeof(msg), "%s coarse", name);
	check_props(f, &t, &coarse, msg);
	vf_ar_free(&fine);
	vf_ar_free(&coarse);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/* <Sm><AdaptiveRouting> in a file: FineGrained only counts with Enable. */
static void config_case(const char *xml, bool enable, bool fine,
			const char *what)
{
	char path[] = "/tmp/t-ar-XXXXXX";
	int fd = mkstemp(path);
	FILE *out = fd < 0 ? NULL : fdopen(fd, "w");
	struct vf_diag d = { 0 };
	struct vf_ar_config ar;
	struct vf_config c;
	bool vfab = false;
	int rc;

	if (!out) {
		OK(0, "temporary file");
		return;
	}
	fprintf(out, "<?xml version=\"1.0\"?>\n<Config><Common><Sm>"
		"<AdaptiveRouting>%s</AdaptiveRouting></Sm></Common>"
		"</Config>\n",
		xml);
	fclose(out);
	vf_config_init(&c);
	rc = vf_config_load(path, &c, &d, &vfab);
	unlink(path);
	if (OK(!rc && !d.errors, "config: the file loads")) {
		vf_route_groups_ar(&c, &ar);
		OK(ar.enable == enable && ar.fine_grained == fine, what);
	}
	vf_config_free(&c);
	vf_diag_free(&d);
}

static void test_config(void)
{
	struct vf_fabric *f = fat_tree(LEAVES, SPINES, HOSTS, 0);
	struct vf_ar_config cfg;
	struct vf_ar_tables ar;
	unsigned any = 0;
	struct vf_lfts t;

	config_case("<Enable>1</Enable><FineGrained>1</FineGrained>", true,
		    true, "config: Enable + FineGrained: fine-grained");
	config_case("<Enable>0</Enable><FineGrained>1</FineGrained>", false,
		    false, "config: FineGrained without Enable: off");
	config_case("<Enable>1</Enable><FineGrained>0</FineGrained>", true,
		    false, "config: Enable alone: coarse");
	config_case("<FineGrained>1</FineGrained>", false, false,
		    "config: FineGrained, Enable by default (0): off");

	vf_ar_config_default(&cfg);
	cfg.fine_grained = true;	/* but not enabled */
	if (!OK(!route(f, vf_route_shortestpath, &t) &&
		!vf_ar_compute(f, &t, &cfg, NULL, &ar),
		"AR disabled: computed"))
		return;
	for (uint32_t s = 0; s < f->num_switches; s++)
		any += ar.sw[s].group_cap + ar.sw[s].num_groups +
		       ar.sw[s].lids_grouped;
	EQ_U(any, 0, "AR disabled: no capacity used, no group");
	vf_ar_free(&ar);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/* Add group {ports} for lid at switch s by hand. */
static void force_group(struct vf_ar_tables *ar, uint32_t s, unsigned lid,
			unsigned p1, unsigned p2)
{
	struct vf_ar_switch *sw = &ar->sw[s];
	struct vf_ar_mask m = ports_mask(p1, 1), q = ports_mask(p2, 1);

	for (unsigned w = 0; w < VF_AR_MASK_WORDS; w++)
		m.w[w] |= q.w[w];
	sw->groups[sw->num_groups] = m;
	sw->lid_group[lid] = (uint8_t)sw->num_groups++;
}

/*
 * A spine allowed to send L1's LIDs down to L0 as well: L0's group goes
 * back up to that spine, a down-up turn that closes a loop.
 */
static void test_check_tree(void)
{
	struct vf_fabric *f = fat_tree(LEAVES, SPINES, HOSTS, 0);
	uint32_t s0 = LEAVES;
	struct vf_ar_tables ar;
	struct vf_lfts t;
	char cycle[512] = "";

	if (!OK(!route(f, vf_route_fattree, &t) &&
		!compute(f, &t, true, NULL, &ar), "unsafe tree: routed, AR"))
		return;
	OK(vf_ar_check(f, &t, &ar, cycle, sizeof(cycle)),
	   "unsafe tree: the computed groups pass");
	for (unsigned h = 0; h < HOSTS; h++)
		force_group(&ar, s0, host_lid(f, SPINES, HOSTS, 1, h, 0), 1, 2);
	OK(!vf_ar_check(f, &t, &ar, cycle, sizeof(cycle)),
	   "unsafe tree: S0 may turn L1's traffic down to L0: loop found");
	OK(strstr(cycle, "S0/1") && strstr(cycle, "L0/"),
	   "unsafe tree: the cycle names S0/1 and L0");
	printf("# %s\n", cycle);
	vf_ar_free(&ar);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/*
 * Four switches in a ring (Si port 2 to S(i+1) port 3, host Hi on port 1)
 * with static routes free of credit loops; one group at S2 that may send
 * H0's traffic clockwise closes the ring.
 */
static void test_check_ring(void)
{
	/* port at i toward j, 2 hops: the way that leaves the ring open */
	static const unsigned two_hops[4] = { 2, 2, 3, 2 };
	struct vf_fabric *f = vf_fabric_create();
	struct vf_ar_tables ar;
	struct vf_lfts t;
	char cycle[512] = "";
	unsigned hl[4];

	for (unsigned i = 0; i < 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "S%u", i);
		vf_fabric_add_node(f, VF_NODE_SWITCH, 0x300 + i, 0, 3, name,
				   NULL);
	}
	for (unsigned i = 0; i < 4; i++) {
		char name[8];
		uint32_t h;

		snprintf(name, sizeof(name), "H%u", i);
		h = vf_fabric_add_node(f, VF_NODE_CA, 0x400 + i, 0, 1, name,
				       NULL);
		vf_fabric_link(f, vf_fabric_port(f, h, 1),
			       vf_fabric_port(f, i, 1));
		vf_fabric_link(f, vf_fabric_port(f, i, 2),
			       vf_fabric_port(f, (i + 1) % 4, 3));
	}
	if (!OK(!vf_fabric_assign_lids(f, 0) && !vf_fabric_finalize(f) &&
		!vf_lfts_init(&t, 4, f->max_lid), "ring: built"))
		return;
	for (unsigned i = 0; i < 4; i++)
		hl[i] = vf_node_port(f, &f->nodes[4 + i], 1)->base_lid;
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 4; j++) {
			unsigned k = (j + 4 - i) % 4;

			vf_lft_row(&t, i)[hl[j]] = k == 0 ? 1 : k == 1 ? 2 :
						   k == 3 ? 3 : two_hops[i];
		}
	if (!OK(!compute(f, &t, true, NULL, &ar), "ring: AR computed"))
		return;
	EQ_U(ar.sw[2].num_groups + ar.sw[0].num_groups, 0,
	     "ring: no tiers, no group");
	OK(vf_ar_check(f, &t, &ar, cycle, sizeof(cycle)),
	   "ring: the static routes have no credit loop");
	force_group(&ar, 2, hl[0], 2, 3);
	OK(!vf_ar_check(f, &t, &ar, cycle, sizeof(cycle)),
	   "ring: S2 may send H0's traffic either way: loop found");
	OK(strstr(cycle, "S0/2") && strstr(cycle, "S1/2") &&
	   strstr(cycle, "S2/2") && strstr(cycle, "S3/2"),
	   "ring: the cycle goes round every switch clockwise");
	printf("# %s\n", cycle);
	vf_ar_free(&ar);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

static bool tables_equal(const struct vf_ar_tables *a,
			 const struct vf_ar_tables *b)
{
	if (a->num_switches != b->num_switches || a->max_lid != b->max_lid)
		return false;
	for (uint32_t s = 0; s < a->num_switches; s++) {
		const struct vf_ar_switch *x = &a->sw[s], *y = &b->sw[s];

		if (x->group_cap != y->group_cap || x->lid_cap != y->lid_cap ||
		    x->num_groups != y->num_groups ||
		    x->lids_grouped != y->lids_grouped ||
		    memcmp(x->groups, y->groups,
			   x->num_groups * sizeof(*x->groups)) ||
		    memcmp(x->lid_group + 1, y->lid_group + 1, a->max_lid))
			return false;
	}
	return true;
}

/* A temporary file holding text; its path in path[]. */
static bool temp_file(char *path, const char *text)
{
	int fd;
	FILE *out;

	strcpy(path, "/tmp/t-ar-XXXXXX");
	fd = mkstemp(path);
	out = fd < 0 ? NULL : fdopen(fd, "w");
	if (!out)
		return false;
	fputs(text, out);
	return !fclose(out);
}

static void test_round_trip(void)
{
	struct vf_fabric *f = degraded();
	struct vf_ar_caps *caps = calloc(f->num_switches, sizeof(*caps));
	struct vf_ar_tables ar, back;
	struct vf_err err = { "" };
	char path[32], *text = NULL, *again = NULL;
	size_t len, len2;
	struct vf_lfts t;
	FILE *mem;

	for (uint32_t s = 0; caps && s < f->num_switches; s++)
		caps[s] = (struct vf_ar_caps){ 7 + s, f->max_lid + 1u };
	if (!OK(caps && !route(f, vf_route_shortestpath, &t) &&
		!compute(f, &t, true, caps, &ar), "round trip: computed"))
		return;
	mem = open_memstream(&text, &len);
	vf_ar_dump(mem, f, &ar);
	fclose(mem);
	if (OK(temp_file(path, text), "round trip: dumped") &&
	    OK(!vf_ar_load(path, f, &back, &err), "round trip: loaded")) {
		OK(tables_equal(&ar, &back), "round trip: the same tables");
		mem = open_memstream(&again, &len2);
		vf_ar_dump(mem, f, &back);
		fclose(mem);
		OK(len == len2 && !strcmp(text, again),
		   "round trip: the same text again");
		vf_ar_free(&back);
	} else {
		printf("#   %s\n", err.msg);
	}
	unlink(path);
	free(text);
	free(again);
	free(caps);
	vf_ar_free(&ar);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

/* A malformed dump: -EINVAL, the message naming path:line. */
static void bad_load(const struct vf_fabric *f, const char *text,
		     unsigned line, const char *words, const char *what)
{
	struct vf_err err = { "" };
	struct vf_ar_tables ar;
	char path[32], where[64];
	int rc;

	if (!OK(temp_file(path, text), "load: file written"))
		return;
	rc = vf_ar_load(path, f, &ar, &err);
	unlink(path);
	snprintf(where, sizeof(where), "%s:%u: ", path, line);
	if (!OK(rc == -EINVAL && !strncmp(err.msg, where, strlen(where)) &&
		strstr(err.msg, words), what))
		printf("#   rc %d: %s\n", rc, err.msg);
	if (!rc)
		vf_ar_free(&ar);
}

#define SW0 "switch 0x0000000000200000 groups 1/255 lids 2/16\n"

static void test_load_errors(void)
{
	struct vf_fabric *f = fat_tree(LEAVES, SPINES, HOSTS, 0);
	struct vf_err err = { "" };
	struct vf_ar_tables ar;

	bad_load(f, "group 0 3,4\n", 1, "not an AR table line",
		 "load: a group before any switch");
	bad_load(f, "# comment\nswitch 0x0000000000999999 groups 1/255 "
		 "lids 2/16\n", 2, "no switch 0x0000000000999999",
		 "load: a switch not in the fabric");
	bad_load(f, SW0 "group 1 3,4\n", 2, "group 1 3,4",
		 "load: groups out of order");
	bad_load(f, SW0 "group 0 0,4\n", 2, "not an AR table line",
		 "load: port 0 in a group");
	bad_load(f, SW0 "group 0 3,4\nlids 9-9 1\n", 3, "lids 9-9 1",
		 "load: LIDs of a group not defined");
	bad_load(f, SW0 "group 0 3,4\nlids 9-8 0\n", 3, "lids 9-8 0",
		 "load: a reversed LID range");
	bad_load(f, SW0 "group 0 3,4\nlids 9-60000 0\n", 3, "lids 9-60000",
		 "load: LIDs past the fabric's");
	bad_load(f, SW0 "\nhello\n", 3, "hello", "load: a stray word");
	OK(vf_ar_load("/nonexistent/t-ar.dump", f, &ar, &err) == -EINVAL &&
	   strstr(err.msg, "/nonexistent/t-ar.dump"),
	   "load: a missing file is named");
	vf_fabric_destroy(f);
}

int main(void)
{
	test_tree("shortestpath tree", vf_route_shortestpath);
	test_tree("fattree tree", vf_route_fattree);
	test_trunk();
	test_lmc("shortestpath LMC 2", vf_route_shortestpath);
	test_lmc("fattree LMC 2", vf_route_fattree);
	test_degraded();
	test_capacity();
	test_coarse("ft3-small shortestpath", vf_route_shortestpath);
	test_coarse("ft3-small fattree", vf_route_fattree);
	test_config();
	test_check_tree();
	test_check_ring();
	test_round_trip();
	test_load_errors();
	return tap_done();
}
