// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "routing/internal/tenancy.h"
#include "tenancy.h"

static const char *const mode_names[] = {
	[VF_PROUTE_OFF] = "off",
	[VF_PROUTE_BALANCE] = "balance",
	[VF_PROUTE_ISOLATE] = "isolate",
};

int vf_partition_routing_parse(const char *s)
{
	for (unsigned i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]);
	     i++)
		if (!strcasecmp(s, mode_names[i]))
			return (int)i;
	return -1;
}

const char *vf_partition_routing_name(enum vf_partition_routing m)
{
	return m <= VF_PROUTE_ISOLATE ? mode_names[m] : "?";
}

/* The class port p is balanced under (see internal/tenancy.h), or NONE. */
static uint16_t balance_class(const struct vf_traffic *t, uint32_t p)
{
	int limited = -1;

	for (unsigned c = 0; c < t->num_classes; c++) {
		uint8_t m = vf_traffic_member(t, p, c);

		if (t->cls[c].management || !m)
			continue;
		if (m == VF_TRAFFIC_FULL)
			return (uint16_t)c;
		if (limited < 0)
			limited = (int)c;
	}
	return limited < 0 ? VF_TENANCY_NONE : (uint16_t)limited;
}

/* Tenants: classes disjoint from some other non-management class. */
static void find_tenants(const struct vf_traffic *t, bool *tenant)
{
	for (unsigned a = 0; a < t->num_classes; a++) {
		tenant[a] = false;
		if (t->cls[a].management)
			continue;
		for (unsigned b = 0; b < t->num_classes && !tenant[a]; b++)
			tenant[a] = b != a && !t->cls[b].management &&
				    !vf_traffic_overlap(t, a, b);
	}
}

struct ten_build {
	const struct vf_fabric *f;
	const struct vf_swgraph *g;
	const struct vf_traffic *t;
	struct vf_tenancy *ten;
	uint16_t *level;	/* [nsw] from the edge switches */
	uint32_t *order;	/* switches by level (high first), GUID */
	uint16_t *tenants;	/* the tenant classes */
	unsigned num;
	unsigned total_weight;
};

static int cmp_tier(const void *pa, const void *pb, void *arg)
{
	const struct ten_build *b = arg;
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	uint64_t gx = b->f->nodes[b->f->switches[x]].guid;
	uint64_t gy = b->f->nodes[b->f->switches[y]].guid;

	if (b->level[x] != b->level[y])
		return b->level[x] > b->level[y] ? -1 : 1;
	return gx < gy ? -1 : gx > gy;
}

/*
 * The k-th of a tier's switches in smooth weighted round robin: tenants
 * interleaved in proportion to their weights (A A B for 2:1).
 */
static uint16_t round_robin(const struct ten_build *b, uint32_t k)
{
	long cur[VF_TENANCY_MAX] = { 0 };
	unsigned pick = 0;

	for (uint32_t step = 0; step <= k % b->total_weight; step++) {
		pick = 0;
		for (unsigned i = 0; i < b->num; i++) {
			cur[i] += b->t->cls[b->tenants[i]].weight;
			if (cur[i] > cur[pick])
				pick = i;
		}
		cur[pick] -= (long)b->total_weight;
	}
	return b->tenants[pick];
}

/* Sizes of n shares of k items by the tenants' weights (largest
 * remainder). */
static void weighted_sizes(const struct ten_build *b, uint32_t k,
			   uint32_t *size)
{
	uint64_t rem[VF_TENANCY_MAX];
	uint32_t given = 0;

	for (unsigned i = 0; i < b->num; i++) {
		uint64_t share = (uint64_t)k * b->t->cls[b->tenants[i]].weight;

		size[i] = (uint32_t)(share / b->total_weight);
		rem[i] = share % b->total_weight;
		given += size[i];
	}
	while (given < k) {
		unsigned best = 0;

		for (unsigned i = 1; i < b->num; i++)
			if (rem[i] > rem[best])
				best = i;
		size[best]++;
		rem[best] = 0;
		given++;
	}
}

/*
 * A top switch's group: the switches below it (a hash of their numbers).
 * Top switches with the same neighbours below are one group: the spine
 * chips of a chassis, the cores of one plane of a 3-level tree.  A group
 * split between tenants would have both use the links below it.
 */
static uint64_t group_of(const struct ten_build *b, uint32_t s)
{
	const struct vf_swgraph *g = b->g;
	uint64_t sum = 0, x = 0;

	for (uint32_t h = g->hop_start[s]; h < g->hop_start[s + 1]; h++) {
		uint64_t n = g->hops[h].next_sw + 1;

		if (b->level[g->hops[h].next_sw] + 1 != b->level[s])
			continue;
		/* order-free: sums and xors of mixed numbers */
		n *= 0x9e3779b97f4a7c15ull;
		sum += n;
		x ^= n >> 17 | n << 47;
	}
	return sum ^ (x * 31);
}

struct top_sw {
	uint64_t group;
	uint32_t s;
};

static int cmp_top(const void *pa, const void *pb)
{
	const struct top_sw *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return a->s < b->s ? -1 : a->s > b->s;
}

/*
 * The top tier: whole groups of switches (see group_of) in contiguous
 * blocks sized by weight when there are at least as many groups as
 * tenants; else single switches so.  sw[] is in tier order.
 */
static void own_top(struct ten_build *b, const uint32_t *sw, uint32_t k)
{
	struct top_sw *top = malloc((k + 1) * sizeof(*top));
	uint32_t size[VF_TENANCY_MAX], groups = 0, at = 0;

	if (!top)
		return;		/* nobody owns anything: shared, reported */
	for (uint32_t i = 0; i < k; i++)
		top[i] = (struct top_sw){ group_of(b, sw[i]), sw[i] };
	qsort(top, k, sizeof(*top), cmp_top);
	for (uint32_t i = 0; i < k; i++)
		groups += !i || top[i].group != top[i - 1].group;
	if (groups >= b->num && groups > 1) {
		weighted_sizes(b, groups, size);
		for (unsigned t = 0; t < b->num; t++)
			for (uint32_t g = 0; g < size[t]; g++) {
				uint64_t id = top[at].group;

				while (at < k && top[at].group == id)
					b->ten->owner[top[at++].s] =
						b->tenants[t];
			}
	} else {
		weighted_sizes(b, k, size);
		for (unsigned t = 0; t < b->num; t++)
			for (uint32_t j = 0; j < size[t] && at < k; j++)
				b->ten->owner[sw[at++]] = b->tenants[t];
	}
	free(top);
}

/* Below the top: the owner of most links up, else round robin. */
static void own_lower(struct ten_build *b, const uint32_t *sw, uint32_t k)
{
	const struct vf_swgraph *g = b->g;

	for (uint32_t i = 0; i < k; i++) {
		uint32_t s = sw[i], up = 0, best_votes = 0;
		uint16_t best = VF_TENANCY_NONE;

		for (unsigned a = 0; a < b->num; a++) {
			uint32_t votes = 0;

			for (uint32_t h = g->hop_start[s]; h < g->hop_start[s + 1];
			     h++) {
				uint32_t n = g->hops[h].next_sw;

				if (b->level[n] != b->level[s] + 1)
					continue;
				up += !a;
				votes += b->ten->owner[n] == b->tenants[a];
			}
			if (votes > best_votes) {
				best_votes = votes;
				best = b->tenants[a];
			}
		}
		b->ten->owner[s] = 2 * best_votes > up ? best :
				   round_robin(b, i);
	}
}

static int own_switches(struct ten_build *b)
{
	const struct vf_fabric *f = b->f;
	uint32_t nsw = f->num_switches, *queue;
	bool *edge;
	int rc = -ENOMEM;

	b->level = malloc((nsw + 1) * sizeof(*b->level));
	b->order = malloc((nsw + 1) * sizeof(*b->order));
	queue = malloc((nsw + 1) * sizeof(*queue));
	edge = calloc(nsw + 1, sizeof(*edge));
	if (!b->level || !b->order || !queue || !edge)
		goto out;
	for (uint32_t s = 0; s < nsw; s++) {
		edge[s] = vf_has_end_node(f, s);
		b->order[s] = s;
	}
	vf_swgraph_bfs_from(b->g, edge, b->level, queue);
	qsort_r(b->order, nsw, sizeof(*b->order), cmp_tier, b);
	for (uint32_t i = 0; i < nsw;) {
		uint32_t j = i, lvl = b->level[b->order[i]];

		while (j < nsw && b->level[b->order[j]] == lvl)
			j++;
		if (lvl != 0 && lvl != VF_DIST_INF) {
			if (i == 0 || b->level[b->order[0]] == VF_DIST_INF ||
			    lvl == b->level[b->order[0]])
				own_top(b, b->order + i, j - i);
			else
				own_lower(b, b->order + i, j - i);
			b->ten->owned_switches += j - i;
		}
		i = j;
	}
	rc = 0;
out:
	free(queue);
	free(edge);
	return rc;
}

int vf_tenancy_init(struct vf_tenancy *ten, const struct vf_fabric *f,
		    const struct vf_swgraph *g, const struct vf_traffic *t,
		    enum vf_partition_routing mode)
{
	struct ten_build b = { .f = f, .g = g, .t = t, .ten = ten };
	bool *tenant = NULL;
	int rc = -ENOMEM;

	memset(ten, 0, sizeof(*ten));
	ten->mode = t && t->num_classes ? mode : VF_PROUTE_OFF;
	if (ten->mode == VF_PROUTE_OFF)
		return 0;
	ten->num_classes = t->num_classes;
	ten->port_class = malloc((f->num_ports + 1) *
				 sizeof(*ten->port_class));
	ten->port_tenant = malloc((f->num_ports + 1) *
				  sizeof(*ten->port_tenant));
	tenant = calloc(t->num_classes, sizeof(*tenant));
	b.tenants = calloc(t->num_classes, sizeof(*b.tenants));
	if (!ten->port_class || !ten->port_tenant || !tenant || !b.tenants)
		goto out;
	find_tenants(t, tenant);
	for (unsigned c = 0; c < t->num_classes && b.num < VF_TENANCY_MAX; c++)
		if (tenant[c]) {
			b.tenants[b.num++] = (uint16_t)c;
			b.total_weight += t->cls[c].weight;
		}
	ten->num_tenants = b.num;
	for (uint32_t p = 0; p < f->num_ports; p++) {
		uint16_t c = balance_class(t, p);

		ten->port_class[p] = c;
		ten->port_tenant[p] = c != VF_TENANCY_NONE && tenant[c] ? c :
				      VF_TENANCY_NONE;
	}
	rc = 0;
	if (mode == VF_PROUTE_ISOLATE && b.num > 1) {
		ten->owner = malloc((f->num_switches + 1) *
				    sizeof(*ten->owner));
		if (!ten->owner) {
			rc = -ENOMEM;
			goto out;
		}
		for (uint32_t s = 0; s < f->num_switches; s++)
			ten->owner[s] = VF_TENANCY_NONE;
		rc = own_switches(&b);
	}
out:
	free(b.level);
	free(b.order);
	free(b.tenants);
	free(tenant);
	if (rc)
		vf_tenancy_free(ten);
	else
		vf_log(VF_LOG_INFO,
		       "partition routing (%s): %u classes, %u tenants, %u switches given to tenants",
		       vf_partition_routing_name(ten->mode), ten->num_classes,
		       ten->num_tenants, ten->owned_switches);
	return rc;
}

void vf_tenancy_free(struct vf_tenancy *ten)
{
	free(ten->port_class);
	free(ten->port_tenant);
	free(ten->owner);
	memset(ten, 0, sizeof(*ten));
}
