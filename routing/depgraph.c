// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* A directed graph grown edge by edge (routing/internal/depgraph.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/internal/depgraph.h"

#define EMPTY UINT64_MAX

enum { WHITE, GREY, BLACK };

static uint64_t key(uint32_t a, uint32_t b)
{
	return (uint64_t)a << 32 | b;
}

static uint64_t hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

int vf_depgraph_init(struct vf_depgraph *g, uint32_t num_nodes)
{
	uint32_t n = num_nodes ? num_nodes : 1;

	memset(g, 0, sizeof(*g));
	g->num_nodes = num_nodes;
	g->head = malloc(n * sizeof(*g->head));
	g->rhead = malloc(n * sizeof(*g->rhead));
	g->mark = calloc(n, sizeof(*g->mark));
	g->stack = malloc(n * sizeof(*g->stack));
	g->ord = malloc(n * sizeof(*g->ord));
	g->at = malloc(n * sizeof(*g->at));
	g->found = malloc(n * sizeof(*g->found));
	g->scratch = malloc(n * sizeof(*g->scratch));
	g->num_slots = 64;
	g->slot = malloc(g->num_slots * sizeof(*g->slot));
	if (!g->head || !g->rhead || !g->mark || !g->stack || !g->slot ||
	    !g->ord || !g->at || !g->found || !g->scratch) {
		vf_depgraph_free(g);
		return -ENOMEM;
	}
	memset(g->head, 0xff, n * sizeof(*g->head));
	memset(g->rhead, 0xff, n * sizeof(*g->rhead));
	for (uint32_t i = 0; i < n; i++)
		g->ord[i] = g->at[i] = i;
	memset(g->slot, 0xff, g->num_slots * sizeof(*g->slot));
	return 0;
}

void vf_depgraph_free(struct vf_depgraph *g)
{
	free(g->head);
	free(g->rhead);
	free(g->to);
	free(g->from);
	free(g->next);
	free(g->rnext);
	free(g->ord);
	free(g->at);
	free(g->found);
	free(g->scratch);
	free(g->slot);
	free(g->refused);
	free(g->mark);
	free(g->stack);
	memset(g, 0, sizeof(*g));
}

/* Linear probing in a set of n (a power of two) slots. */
static uint64_t find_in(const uint64_t *set, uint64_t n, uint64_t k)
{
	uint64_t i = hash(k) & (n - 1);

	while (set[i] != EMPTY && set[i] != k)
		i = (i + 1) & (n - 1);
	return i;
}

static uint64_t find_slot(const struct vf_depgraph *g, uint64_t k)
{
	return find_in(g->slot, g->num_slots, k);
}

static bool was_refused(const struct vf_depgraph *g, uint64_t k)
{
	return g->refused &&
	       g->refused[find_in(g->refused, g->num_refused_slots, k)] == k;
}

/* Remember k as refused; out of memory, it is simply searched again. */
static void refuse(struct vf_depgraph *g, uint64_t k)
{
	if (2 * (g->num_refused + 1) > g->num_refused_slots) {
		uint64_t n = g->num_refused_slots ? 2 * g->num_refused_slots : 64;
		uint64_t *set = malloc(n * sizeof(*set));

		if (!set)
			return;
		memset(set, 0xff, n * sizeof(*set));
		for (uint64_t i = 0; i < g->num_refused_slots; i++)
			if (g->refused[i] != EMPTY)
				set[find_in(set, n, g->refused[i])] =
					g->refused[i];
		free(g->refused);
		g->refused = set;
		g->num_refused_slots = n;
	}
	g->refused[find_in(g->refused, g->num_refused_slots, k)] = k;
	g->num_refused++;
}

void vf_depgraph_keep(struct vf_depgraph *g)
{
	g->kept = g->num_edges;
}

static int grow_set(struct vf_depgraph *g)
{
	uint64_t *old = g->slot, n = g->num_slots;

	g->slot = malloc(2 * n * sizeof(*g->slot));
	if (!g->slot) {
		g->slot = old;
		return -ENOMEM;
	}
	g->num_slots = 2 * n;
	memset(g->slot, 0xff, g->num_slots * sizeof(*g->slot));
	for (uint64_t i = 0; i < n; i++)
		if (old[i] != EMPTY)
			g->slot[find_slot(g, old[i])] = old[i];
	free(old);
	return 0;
}

static int grow_edges(struct vf_depgraph *g)
{
	uint32_t cap = g->cap_edges ? 2 * g->cap_edges : 256;
	uint32_t *to = realloc(g->to, cap * sizeof(*to));

	if (!to)
		return -ENOMEM;
	g->to = to;
	to = realloc(g->from, cap * sizeof(*to));
	if (!to)
		return -ENOMEM;
	g->from = to;
	to = realloc(g->next, cap * sizeof(*to));
	if (!to)
		return -ENOMEM;
	g->next = to;
	to = realloc(g->rnext, cap * sizeof(*to));
	if (!to)
		return -ENOMEM;
	g->rnext = to;
	g->cap_edges = cap;
	return 0;
}

int vf_depgraph_add(struct vf_depgraph *g, uint32_t a, uint32_t b)
{
	uint64_t k = key(a, b), i;

	/* at most half full */
	if (2 * ((uint64_t)g->num_edges + 1) > g->num_slots && grow_set(g))
		return -ENOMEM;
	i = find_slot(g, k);
	if (g->slot[i] == k)
		return 0;
	if (g->num_edges == g->cap_edges && grow_edges(g))
		return -ENOMEM;
	g->slot[i] = k;
	g->to[g->num_edges] = b;
	g->from[g->num_edges] = a;
	g->next[g->num_edges] = g->head[a];
	g->rnext[g->num_edges] = g->rhead[b];
	g->head[a] = g->num_edges;
	g->rhead[b] = g->num_edges++;
	return 1;
}

static void next_epoch(struct vf_depgraph *g)
{
	if (++g->epoch == 0) {	/* wrapped: forget every old mark */
		memset(g->mark, 0, (g->num_nodes ? g->num_nodes : 1) *
		       sizeof(*g->mark));
		g->epoch = 1;
	}
}

/*
 * `from` and the nodes reachable from it (forward) or reaching it
 * (backward) whose place lies strictly between lo and hi, appended to
 * found[] from *n on; false when the search meets `stop`.
 */
static bool search(struct vf_depgraph *g, uint32_t from, bool forward,
		   uint32_t lo, uint32_t hi, uint32_t stop, uint32_t *n)
{
	uint32_t sp = 0;

	g->mark[from] = g->epoch;
	g->found[(*n)++] = from;
	g->stack[sp++] = from;
	while (sp) {
		uint32_t u = g->stack[--sp];
		uint32_t e = forward ? g->head[u] : g->rhead[u];

		for (; e != UINT32_MAX; e = forward ? g->next[e] : g->rnext[e]) {
			uint32_t v = forward ? g->to[e] : g->from[e];

			if (v == stop)
				return false;
			if (g->mark[v] == g->epoch || g->ord[v] <= lo ||
			    g->ord[v] >= hi)
				continue;
			g->mark[v] = g->epoch;
			g->found[(*n)++] = v;
			g->stack[sp++] = v;
		}
	}
	return true;
}

/*
 * Sort places (each below num_nodes): by insertion when few, else a
 * radix sort 8 bits at a time through tmp.  qsort's calls to a compare
 * function were a third of layering a large dragonfly.
 */
static void sort_places(const struct vf_depgraph *g, uint32_t *a, uint32_t n,
			uint32_t *tmp)
{
	if (n < 32) {
		for (uint32_t i = 1; i < n; i++) {
			uint32_t v = a[i], j = i;

			for (; j > 0 && a[j - 1] > v; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return;
	}
	for (unsigned shift = 0; shift < 32 && (g->num_nodes - 1) >> shift;
	     shift += 8) {
		uint32_t count[257] = { 0 };

		for (uint32_t i = 0; i < n; i++)
			count[((a[i] >> shift) & 0xff) + 1]++;
		for (unsigned d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (uint32_t i = 0; i < n; i++)
			tmp[count[(a[i] >> shift) & 0xff]++] = a[i];
		memcpy(a, tmp, n * sizeof(*a));
	}
}

/* Sort nodes[0, n) by their place in the order. */
static void sort_by_place(struct vf_depgraph *g, uint32_t *nodes, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		nodes[i] = g->ord[nodes[i]];
	sort_places(g, nodes, n, g->scratch);
	for (uint32_t i = 0; i < n; i++)
		nodes[i] = g->at[nodes[i]];
}

int vf_depgraph_add_acyclic(struct vf_depgraph *g, uint32_t a, uint32_t b)
{
	uint32_t lo = g->ord[b], hi = g->ord[a], nf = 0, nb, total;

	if (a == b)
		return -ELOOP;
	if (vf_depgraph_has(g, a, b))
		return 0;
	if (lo > hi) {	/* already in order */
		return vf_depgraph_add(g, a, b);
	}
	if (was_refused(g, key(a, b)))
		return -ELOOP;
	/* b's side: what b reaches up to a's place; reaching a is a cycle */
	next_epoch(g);
	if (!search(g, b, true, lo, hi, a, &nf)) {
		if (g->num_edges == g->kept)
			refuse(g, key(a, b));
		return -ELOOP;
	}
	/* a's side: what reaches a down to b's place */
	nb = nf;
	search(g, a, false, lo, hi + 1, UINT32_MAX, &nb);
	/* a's side first, then b's, into the places both held */
	sort_by_place(g, g->found, nf);
	sort_by_place(g, g->found + nf, nb - nf);
	total = nb;
	for (uint32_t i = 0; i < total; i++)
		g->stack[i] = g->ord[g->found[i]];
	sort_places(g, g->stack, total, g->scratch);
	for (uint32_t i = 0; i < total; i++) {
		/* a's side (found[nf..nb)) takes the first places */
		uint32_t node = i < nb - nf ? g->found[nf + i] :
					      g->found[i - (nb - nf)];

		g->ord[node] = g->stack[i];
		g->at[g->stack[i]] = node;
	}
	return vf_depgraph_add(g, a, b);
}

bool vf_depgraph_has(const struct vf_depgraph *g, uint32_t a, uint32_t b)
{
	uint64_t k = key(a, b);

	return g->slot[find_slot(g, k)] == k;
}

/* Linear probing without tombstones: close the gap behind slot i. */
static void erase_slot(struct vf_depgraph *g, uint64_t i)
{
	uint64_t mask = g->num_slots - 1, j = i;

	g->slot[i] = EMPTY;
	for (;;) {
		uint64_t home;

		j = (j + 1) & mask;
		if (g->slot[j] == EMPTY)
			return;
		home = hash(g->slot[j]) & mask;
		/* move j back to i unless its home lies in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			g->slot[i] = g->slot[j];
			g->slot[j] = EMPTY;
			i = j;
		}
	}
}

void vf_depgraph_truncate(struct vf_depgraph *g, uint32_t keep)
{
	if (keep < g->kept) {	/* kept edges go: refusals may not hold */
		free(g->refused);
		g->refused = NULL;
		g->num_refused_slots = g->num_refused = 0;
		g->kept = keep;
	}
	while (g->num_edges > keep) {
		uint32_t e = --g->num_edges;

		/* the newest edge of its nodes is first in their lists */
		g->head[g->from[e]] = g->next[e];
		g->rhead[g->to[e]] = g->rnext[e];
		erase_slot(g, find_slot(g, key(g->from[e], g->to[e])));
	}
}

bool vf_depgraph_reaches(struct vf_depgraph *g, uint32_t from, uint32_t to)
{
	uint32_t sp = 0;

	if (from == to)
		return true;
	next_epoch(g);
	g->mark[from] = g->epoch;
	g->stack[sp++] = from;
	while (sp) {
		uint32_t u = g->stack[--sp];

		for (uint32_t e = g->head[u]; e != UINT32_MAX; e = g->next[e]) {
			uint32_t v = g->to[e];

			if (v == to)
				return true;
			if (g->mark[v] == g->epoch)
				continue;
			g->mark[v] = g->epoch;
			g->stack[sp++] = v;
		}
	}
	return false;
}

/* The grey nodes on the stack from `to` up are the cycle. */
static int write_cycle(const uint32_t *stk, uint32_t sp, uint32_t to,
		       uint32_t *cycle, uint32_t max)
{
	uint32_t i = 0, n = 0;

	while (stk[i] != to)
		i++;
	for (; i < sp && n < max; i++)
		cycle[n++] = stk[i];
	return (int)n;
}

int vf_depgraph_cycle(struct vf_depgraph *g, uint32_t *cycle, uint32_t max)
{
	uint32_t n = g->num_nodes ? g->num_nodes : 1;
	uint8_t *color = calloc(n, sizeof(*color));
	uint32_t *stk = malloc(n * sizeof(*stk));
	uint32_t *it = malloc(n * sizeof(*it));
	int found = 0;

	if (!color || !stk || !it) {
		found = -ENOMEM;
		goto out;
	}
	for (uint32_t root = 0; root < g->num_nodes && !found; root++) {
		uint32_t sp = 0;

		if (color[root] != WHITE || g->head[root] == UINT32_MAX)
			continue;
		color[root] = GREY;
		stk[sp] = root;
		it[sp++] = g->head[root];
		while (sp && !found) {
			uint32_t u = stk[sp - 1], e = it[sp - 1], v;

			if (e == UINT32_MAX) {
				color[u] = BLACK;
				sp--;
				continue;
			}
			it[sp - 1] = g->next[e];
			v = g->to[e];
			if (color[v] == GREY) {
				found = write_cycle(stk, sp, v, cycle, max);
				if (!found)	/* max 0: still say there is one */
					found = 1;
			} else if (color[v] == WHITE) {
				color[v] = GREY;
				stk[sp] = v;
				it[sp++] = g->head[v];
			}
		}
	}
out:
	free(color);
	free(stk);
	free(it);
	return found;
}
