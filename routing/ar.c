// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "routing/internal/swgraph.h"

void vf_ar_config_default(struct vf_ar_config *c)
{
	*c = (struct vf_ar_config){ .algorithm = VF_AR_GREEDY_RANDOM,
				    .frequency = 4, .threshold = 3 };
}

static void mask_set(struct vf_ar_mask *m, unsigned port)
{
	m->w[(port - 1) / 64] |= 1ull << ((port - 1) % 64);
}

static unsigned mask_count(const struct vf_ar_mask *m)
{
	unsigned n = 0;

	for (unsigned i = 0; i < VF_AR_MASK_WORDS; i++)
		n += (unsigned)__builtin_popcountll(m->w[i]);
	return n;
}

static uint64_t mask_hash(const struct vf_ar_mask *m)
{
	uint64_t h = 0;

	for (unsigned i = 0; i < VF_AR_MASK_WORDS; i++)
		h = (h ^ m->w[i]) * 0x9e3779b97f4a7c15ull;
	return h ^ h >> 29;
}

#define SLOTS 512	/* > VF_AR_MAX_GROUPS: a per-switch mask index */

struct ar_work {
	const struct vf_fabric *f;
	const struct vf_lfts *t;
	const struct vf_ar_config *cfg;
	struct vf_ar_tables *ar;
	struct vf_swgraph g;
	uint16_t *level;	/* [nsw] from the edge switches */
	uint16_t *dist;		/* [nsw] to the current destination switch */
	uint32_t *queue;
	bool *edge;
	uint16_t *slots;	/* [nsw * SLOTS]: group index + 1, 0 free */
	uint32_t *lid_start;	/* [nsw + 1] into lids: CA LIDs by switch */
	uint16_t *lids;
};

/* The switch a LID leads to (its own, or a CA's), or VF_NONE. */
static uint32_t lid_switch(const struct vf_fabric *f, unsigned lid)
{
	uint32_t p = lid <= f->max_lid ? f->lid_port[lid] : VF_NONE;
	const struct vf_node *n;

	if (p == VF_NONE)
		return VF_NONE;
	n = &f->nodes[f->ports[p].node];
	return vf_is_switch(n) ? n->sw : vf_peer_switch(f, &f->ports[p]);
}

/*
 * LIDs (up to max_lid) grouped by the switch they lead to: a CA's by the
 * switch it hangs off, an edge switch's own (port 0) by itself, as the FM
 * groups both (traffic to a switch is routed and fails as any other).  A
 * switch without end nodes (a director's inner leaf or spine) is left
 * out: the up/down tiers the groups are built on are counted from the
 * edge and do not hold toward it, and its alternates closed a credit loop
 * (golden case ar-dcs2-edges); traffic to it stays static.  The LIDs of
 * switch s are lids[start[s] .. start[s + 1]).  0 or -ENOMEM.
 */
static int bucket_lids(const struct vf_fabric *f, uint16_t max_lid,
		       const bool *edge, uint32_t **start, uint16_t **lids)
{
	uint32_t nsw = f->num_switches, *at;

	*start = calloc(nsw + 2, sizeof(**start));
	*lids = malloc(((size_t)max_lid + 1) * sizeof(**lids));
	at = malloc((nsw + 1) * sizeof(*at));
	if (!*start || !*lids || !at) {
		free(at);
		return -ENOMEM;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned lid = 1; lid <= max_lid; lid++) {
			uint32_t p = lid <= f->max_lid ? f->lid_port[lid] :
							 VF_NONE;
			uint32_t sw;

			if (p == VF_NONE)
				continue;
			sw = lid_switch(f, lid);
			if (sw == VF_NONE ||
			    (vf_is_switch(&f->nodes[f->ports[p].node]) &&
			     !edge[sw]))
				continue;
			if (pass)
				(*lids)[at[sw]++] = (uint16_t)lid;
			else
				(*start)[sw + 1]++;
		}
		for (uint32_t sw = 0; !pass && sw < nsw; sw++) {
			(*start)[sw + 1] += (*start)[sw];
			at[sw] = (*start)[sw];
		}
	}
	free(at);
	return 0;
}

/* Group index of mask at switch s, added when new; -1 when full. */
static int group_of(struct ar_work *w, uint32_t s, const struct vf_ar_mask *m)
{
	struct vf_ar_switch *sw = &w->ar->sw[s];
	uint16_t *slot = w->slots + (size_t)s * SLOTS;
	uint32_t i = (uint32_t)(mask_hash(m) % SLOTS);

	for (;; i = (i + 1) % SLOTS) {
		if (!slot[i])
			break;
		if (!memcmp(&sw->groups[slot[i] - 1], m, sizeof(*m)))
			return slot[i] - 1;
	}
	if (sw->num_groups >= sw->group_cap)
		return -1;
	sw->groups[sw->num_groups] = *m;
	slot[i] = (uint16_t)++sw->num_groups;
	return (int)sw->num_groups - 1;
}

/*
 * The group for a static port at s toward destination switch e: the hops
 * as short and as fast as it, going the same way (up, or down) on the
 * tiers counted from the edge switches.  Empty when fewer than two, or
 * when the static port is no such hop (a lateral link, a route of another
 * shape).  A way down must go down all the way: a detour down and up
 * again (a spine that lost its cable to e) gets no group.
 */
static bool group_for(const struct ar_work *w, uint32_t s, uint32_t e,
		      uint8_t port, struct vf_ar_mask *m)
{
	const struct vf_swgraph *g = &w->g;
	const struct vf_hop *primary = NULL;
	bool up;

	memset(m, 0, sizeof(*m));
	for (uint32_t h = g->hop_start[s]; h < g->hop_start[s + 1]; h++)
		if (g->hops[h].num == port)
			primary = &g->hops[h];
	if (!primary || w->dist[primary->next_sw] + 1 != w->dist[s] ||
	    w->level[primary->next_sw] == w->level[s])
		return false;
	up = w->level[primary->next_sw] > w->level[s];
	if (!up && w->dist[s] != w->level[s] - w->level[e])
		return false;
	for (uint32_t h = g->hop_start[s]; h < g->hop_start[s + 1]; h++) {
		const struct vf_hop *hop = &g->hops[h];

		if (w->dist[hop->next_sw] + 1 == w->dist[s] &&
		    hop->rate == primary->rate &&
		    w->level[hop->next_sw] != w->level[s] &&
		    (w->level[hop->next_sw] > w->level[s]) == up)
			mask_set(m, hop->num);
	}
	return mask_count(m) >= 2;
}

/* Every LID behind destination switch e, at every switch that may group. */
static void groups_toward(struct ar_work *w, uint32_t e)
{
	const struct vf_fabric *f = w->f;

	vf_swgraph_bfs(&w->g, e, w->dist, w->queue);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		struct vf_ar_switch *sw = &w->ar->sw[s];
		const uint8_t *row = vf_lft_row(w->t, s);

		/* coarse AR: the edge switches' uplinks only */
		if (s == e || !sw->group_cap || w->dist[s] == VF_DIST_INF ||
		    (!w->cfg->fine_grained && !w->edge[s]))
			continue;
		for (uint32_t k = w->lid_start[e]; k < w->lid_start[e + 1]; k++) {
			unsigned lid = w->lids[k];
			struct vf_ar_mask m;
			int gi;

			if (row[lid] == VF_NO_PORT ||
			    !group_for(w, s, e, row[lid], &m))
				continue;
			gi = lid < sw->lid_cap ? group_of(w, s, &m) : -1;
			if (gi < 0) {
				sw->lids_over_cap++;
				continue;
			}
			sw->lid_group[lid] = (uint8_t)gi;
			sw->lids_grouped++;
		}
	}
}

static int alloc_tables(struct vf_ar_tables *ar, const struct vf_fabric *f,
			const struct vf_lfts *t, const struct vf_ar_caps *caps,
			bool enable)
{
	ar->num_switches = f->num_switches;
	ar->max_lid = t->max_lid;
	ar->sw = calloc(f->num_switches + 1, sizeof(*ar->sw));
	if (!ar->sw)
		return -ENOMEM;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		struct vf_ar_switch *sw = &ar->sw[s];

		sw->group_cap = caps ? caps[s].group_cap : VF_AR_MAX_GROUPS;
		sw->lid_cap = caps ? caps[s].lid_cap : (unsigned)t->max_lid + 1;
		if (sw->group_cap > VF_AR_MAX_GROUPS)
			sw->group_cap = VF_AR_MAX_GROUPS;
		if (!enable || !sw->lid_cap)
			sw->group_cap = 0;
		sw->groups = calloc(sw->group_cap + 1, sizeof(*sw->groups));
		sw->lid_group = malloc((size_t)t->max_lid + 1);
		if (!sw->groups || !sw->lid_group)
			return -ENOMEM;
		memset(sw->lid_group, VF_AR_NO_GROUP, (size_t)t->max_lid + 1);
	}
	return 0;
}

static void work_free(struct ar_work *w)
{
	vf_swgraph_free(&w->g);
	free(w->level);
	free(w->dist);
	free(w->queue);
	free(w->edge);
	free(w->slots);
	free(w->lid_start);
	free(w->lids);
}

/* Drop every group (a credit loop among the alternates: AR stays off). */
static void clear_groups(struct vf_ar_tables *ar)
{
	for (uint32_t s = 0; s < ar->num_switches; s++) {
		struct vf_ar_switch *sw = &ar->sw[s];

		sw->num_groups = sw->lids_grouped = 0;
		memset(sw->lid_group, VF_AR_NO_GROUP, (size_t)ar->max_lid + 1);
	}
}

int vf_ar_compute(const struct vf_fabric *f, const struct vf_lfts *t,
		  const struct vf_ar_config *cfg, const struct vf_ar_caps *caps,
		  struct vf_ar_tables *ar)
{
	struct ar_work w = { .f = f, .t = t, .cfg = cfg, .ar = ar };
	uint32_t nsw = f->num_switches;
	char cycle[256];
	int rc;

	memset(ar, 0, sizeof(*ar));
	rc = alloc_tables(ar, f, t, caps, cfg->enable);
	if (rc || !cfg->enable)
		goto out;
	rc = -ENOMEM;
	if (vf_swgraph_init(&w.g, f))
		goto out;
	w.level = malloc((nsw + 1) * sizeof(*w.level));
	w.dist = malloc((nsw + 1) * sizeof(*w.dist));
	w.queue = malloc((nsw + 1) * sizeof(*w.queue));
	w.edge = calloc(nsw + 1, sizeof(*w.edge));
	w.slots = calloc((size_t)(nsw + 1) * SLOTS, sizeof(*w.slots));
	if (!w.level || !w.dist || !w.queue || !w.edge || !w.slots)
		goto out;
	for (uint32_t s = 0; s < nsw; s++)
		w.edge[s] = vf_has_end_node(f, s);
	if (bucket_lids(f, t->max_lid, w.edge, &w.lid_start, &w.lids))
		goto out;
	vf_swgraph_bfs_from(&w.g, w.edge, w.level, w.queue);
	for (uint32_t e = 0; e < nsw; e++)
		if (w.lid_start[e + 1] > w.lid_start[e])
			groups_toward(&w, e);
	rc = 0;
	if (!vf_ar_check(f, t, ar, cycle, sizeof(cycle))) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF1001: adaptive routing: the alternates would allow a credit loop (%s); AR tables left empty",
		       cycle);
		clear_groups(ar);
	}
out:
	work_free(&w);
	if (rc)
		vf_ar_free(ar);
	return rc;
}

void vf_ar_neighbors(const struct vf_fabric *f, uint32_t sw, uint16_t *n,
		     unsigned size)
{
	const struct vf_node *nd = &f->nodes[f->switches[sw]];

	memset(n, 0, size * sizeof(*n));
	for (unsigned p = 0; p <= nd->num_ports && p < size; p++) {
		const struct vf_port *pt = vf_node_port(f, nd, p);
		const struct vf_node *peer;

		if (!p) {
			n[0] = pt->base_lid;
			continue;
		}
		if (pt->remote == VF_NONE)
			continue;
		peer = &f->nodes[f->ports[pt->remote].node];
		/* a switch's LID is on its port 0 */
		if (vf_is_switch(peer))
			n[p] = vf_node_port(f, peer, 0)->base_lid;
	}
}

void vf_ar_free(struct vf_ar_tables *ar)
{
	for (uint32_t s = 0; ar->sw && s < ar->num_switches; s++) {
		free(ar->sw[s].groups);
		free(ar->sw[s].lid_group);
	}
	free(ar->sw);
	memset(ar, 0, sizeof(*ar));
}

/* --- the credit-loop check over every alternate --- */

struct dep {
	uint32_t from, to;	/* hop (channel) indices */
};

struct check {
	const struct vf_fabric *f;
	const struct vf_lfts *t;
	const struct vf_ar_tables *ar;
	struct vf_swgraph g;
	struct vf_ar_mask *out;	/* [nsw]: ports CA traffic to e may take */
	bool *seen;		/* [nsw]: on such traffic's way */
	uint32_t *queue;
	struct dep *deps;
	size_t num_deps, cap_deps;
};

/* The ports each switch may send the LIDs behind e out of. */
static void allowed_toward(struct check *k, const uint32_t *start,
			   const uint16_t *lids, uint32_t e)
{
	for (uint32_t s = 0; s < k->f->num_switches; s++) {
		const uint8_t *row = vf_lft_row(k->t, s);
		const struct vf_ar_switch *sw = &k->ar->sw[s];

		memset(&k->out[s], 0, sizeof(k->out[s]));
		if (s == e)
			continue;
		for (uint32_t i = start[e]; i < start[e + 1]; i++) {
			unsigned lid = lids[i];
			uint8_t g = sw->lid_group[lid];

			if (g != VF_AR_NO_GROUP) {
				for (unsigned w = 0; w < VF_AR_MASK_WORDS; w++)
					k->out[s].w[w] |= sw->groups[g].w[w];
			} else if (row[lid] != VF_NO_PORT && row[lid]) {
				mask_set(&k->out[s], row[lid]);
			}
		}
	}
}

static int add_dep(struct check *k, uint32_t from, uint32_t to)
{
	if (k->num_deps == k->cap_deps) {
		size_t cap = k->cap_deps ? 2 * k->cap_deps : 4096;
		struct dep *grown = realloc(k->deps, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		k->deps = grown;
		k->cap_deps = cap;
	}
	k->deps[k->num_deps++] = (struct dep){ from, to };
	return 0;
}

/*
 * Dependencies of the traffic to e: from every edge switch along every
 * allowed port, channel (s -> n) waits on every allowed channel out of n.
 */
static int deps_toward(struct check *k, uint32_t e)
{
	const struct vf_swgraph *g = &k->g;
	uint32_t head = 0, tail = 0;

	memset(k->seen, 0, k->f->num_switches * sizeof(*k->seen));
	for (uint32_t s = 0; s < k->f->num_switches; s++)
		if (vf_has_end_node(k->f, s)) {
			k->seen[s] = true;
			k->queue[tail++] = s;
		}
	while (head < tail) {
		uint32_t s = k->queue[head++];

		for (uint32_t h = g->hop_start[s]; h < g->hop_start[s + 1]; h++) {
			uint32_t n = g->hops[h].next_sw;

			if (!vf_ar_mask_has(&k->out[s], g->hops[h].num))
				continue;
			for (uint32_t o = g->hop_start[n];
			     n != e && o < g->hop_start[n + 1]; o++)
				if (vf_ar_mask_has(&k->out[n], g->hops[o].num) &&
				    add_dep(k, h, o))
					return -ENOMEM;
			if (!k->seen[n]) {
				k->seen[n] = true;
				k->queue[tail++] = n;
			}
		}
	}
	return 0;
}

static int cmp_dep(const void *a, const void *b)
{
	const struct dep *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* "SW/port -> SW/port -> ..." of the channels on the DFS stack. */
static void describe(const struct check *k, const uint32_t *stack,
		     uint32_t depth, uint32_t from, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (uint32_t i = from; i < depth && len + 40 < size; i++) {
		const struct vf_hop *h = &k->g.hops[stack[i]];
		uint32_t node = k->f->ports[h->port].node;

		len += (size_t)snprintf(buf + len, size - len, "%s%s/%u",
					i > from ? " -> " : "",
					vf_node_name(k->f, &k->f->nodes[node]),
					h->num);
	}
}

/* A cycle among the dependencies (sorted, unique)?  Iterative DFS. */
static bool has_cycle(const struct check *k, char *cycle, size_t size)
{
	uint32_t nch = k->g.hop_start[k->f->num_switches];
	uint32_t *first = calloc(nch + 2, sizeof(*first));
	uint32_t *stack = malloc((nch + 1) * sizeof(*stack));
	uint32_t *next = malloc((nch + 1) * sizeof(*next));
	uint8_t *color = calloc(nch + 1, 1);	/* 0 new, 1 open, 2 done */
	bool found = false;

	if (!first || !stack || !next || !color) {
		found = true;	/* cannot prove safety: say unsafe */
		snprintf(cycle, size, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < k->num_deps; i++)
		first[k->deps[i].from + 1]++;
	for (uint32_t c = 0; c < nch; c++)
		first[c + 1] += first[c];
	for (uint32_t root = 0; root < nch && !found; root++) {
		uint32_t depth = 0;

		if (color[root])
			continue;
		stack[depth] = root;
		next[depth++] = first[root];
		color[root] = 1;
		while (depth && !found) {
			uint32_t c = stack[depth - 1];

			if (next[depth - 1] == first[c + 1]) {
				color[c] = 2;
				depth--;
				continue;
			}
			c = k->deps[next[depth - 1]++].to;
			if (color[c] == 1) {
				uint32_t at = 0;

				while (stack[at] != c)
					at++;
				describe(k, stack, depth, at, cycle, size);
				found = true;
			} else if (!color[c]) {
				color[c] = 1;
				stack[depth] = c;
				next[depth++] = first[c];
			}
		}
	}
out:
	free(first);
	free(stack);
	free(next);
	free(color);
	return found;
}

bool vf_ar_check(const struct vf_fabric *f, const struct vf_lfts *t,
		 const struct vf_ar_tables *ar, char *cycle, size_t size)
{
	struct check k = { .f = f, .t = t, .ar = ar };
	uint32_t nsw = f->num_switches, *start = NULL;
	uint16_t *lids = NULL;
	bool *edge = NULL, ok = false;

	snprintf(cycle, size, "out of memory");
	k.out = calloc(nsw + 1, sizeof(*k.out));
	k.seen = calloc(nsw + 1, sizeof(*k.seen));
	k.queue = malloc((nsw + 1) * sizeof(*k.queue));
	edge = calloc(nsw + 1, sizeof(*edge));
	if (!k.out || !k.seen || !k.queue || !edge ||
	    vf_swgraph_init(&k.g, f))
		goto out;
	/* the LIDs vf_ar_compute groups */
	for (uint32_t s = 0; s < nsw; s++)
		edge[s] = vf_has_end_node(f, s);
	if (bucket_lids(f, t->max_lid, edge, &start, &lids))
		goto out;
	for (uint32_t e = 0; e < nsw; e++) {
		if (start[e + 1] == start[e])
			continue;
		allowed_toward(&k, start, lids, e);
		if (deps_toward(&k, e))
			goto out;
		/* keep the list short as it grows */
		if (k.num_deps > 1u << 20) {
			size_t n = 0;

			qsort(k.deps, k.num_deps, sizeof(*k.deps), cmp_dep);
			for (size_t i = 0; i < k.num_deps; i++)
				if (!n || cmp_dep(&k.deps[i], &k.deps[n - 1]))
					k.deps[n++] = k.deps[i];
			k.num_deps = n;
		}
	}
	/* none when the tables forward nothing (another fabric's dump) */
	if (k.num_deps)
		qsort(k.deps, k.num_deps, sizeof(*k.deps), cmp_dep);
	cycle[0] = '\0';
	ok = !has_cycle(&k, cycle, size);
out:
	vf_swgraph_free(&k.g);
	free(k.out);
	free(k.seen);
	free(k.queue);
	free(k.deps);
	free(edge);
	free(start);
	free(lids);
	return ok;
}
