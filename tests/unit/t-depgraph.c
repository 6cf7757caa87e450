// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The dependency graph (routing/internal/depgraph.h) against a plain
 * adjacency matrix: seeded random edges, each offered to
 * vf_depgraph_add_acyclic(), which must refuse exactly those that close a
 * cycle in the matrix's graph (found by a search of its own); random
 * rollbacks, and edges kept (refused ones remembered); and the cycle
 * finder on graphs with and without one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/internal/depgraph.h"
#include "tests/unit/taptest.h"

#define MAXN 40

static bool adj[MAXN][MAXN];

/* Does b reach a in adj (the oracle: a plain search)? */
static bool oracle_reaches(unsigned n, unsigned from, unsigned to)
{
	bool seen[MAXN] = { false };
	unsigned stack[MAXN], sp = 0;

	if (from == to)
		return true;
	seen[from] = true;
	stack[sp++] = from;
	while (sp) {
		unsigned u = stack[--sp];

		for (unsigned v = 0; v < n; v++) {
			if (!adj[u][v] || seen[v])
				continue;
			if (v == to)
				return true;
			seen[v] = true;
			stack[sp++] = v;
		}
	}
	return false;
}

static unsigned next_rand(unsigned long long *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(*x >> 33);
}

/* One seeded run: nodes n, edges offered m; false at the first mismatch. */
static bool run(unsigned seed, unsigned n, unsigned m, char *why, size_t sz)
{
	struct vf_depgraph g;
	unsigned long long x = seed;
	struct { unsigned a, b; } added[MAXN * MAXN];
	unsigned num_added = 0;
	bool ok = true;

	memset(adj, 0, sizeof(adj));
	if (vf_depgraph_init(&g, n))
		return false;
	for (unsigned i = 0; i < m && ok; i++) {
		unsigned a = next_rand(&x) % n, b = next_rand(&x) % n;
		bool cycle = oracle_reaches(n, b, a);
		bool had = adj[a][b];
		int rc = vf_depgraph_add_acyclic(&g, a, b);

		if (cycle && !had && rc != -ELOOP) {
			snprintf(why, sz, "seed %u: %u->%u closes a cycle, got %d",
				 seed, a, b, rc);
			ok = false;
		} else if (!cycle && rc != (had ? 0 : 1)) {
			snprintf(why, sz, "seed %u: %u->%u fits, got %d",
				 seed, a, b, rc);
			ok = false;
		} else if (rc == 1) {
			adj[a][b] = true;
			added[num_added].a = a;
			added[num_added++].b = b;
		}
		/* now and then the edges so far stay (refusals are then
		 * remembered), and now and then the newest few are taken
		 * back, as a layer does, at times below what stayed */
		if (ok && next_rand(&x) % 4 == 0)
			vf_depgraph_keep(&g);
		if (ok && next_rand(&x) % 8 == 0 && num_added) {
			unsigned back = 1 + next_rand(&x) % 3;

			if (back > num_added)
				back = num_added;
			vf_depgraph_truncate(&g, g.num_edges - back);
			while (back--) {
				num_added--;
				adj[added[num_added].a][added[num_added].b] = false;
			}
		}
	}
	/* every edge kept is in the graph, and no other */
	for (unsigned a = 0; a < n && ok; a++)
		for (unsigned b = 0; b < n && ok; b++)
			if (vf_depgraph_has(&g, a, b) != adj[a][b]) {
				snprintf(why, sz, "seed %u: edge %u->%u %s",
					 seed, a, b, adj[a][b] ? "lost" :
					 "left over");
				ok = false;
			}
	/* the order it keeps is a topological order of what it holds */
	for (unsigned a = 0; a < n && ok; a++)
		for (unsigned b = 0; b < n && ok; b++)
			if (adj[a][b] && g.ord[a] >= g.ord[b]) {
				snprintf(why, sz, "seed %u: %u->%u against the order",
					 seed, a, b);
				ok = false;
			}
	if (ok && vf_depgraph_cycle(&g, (uint32_t[MAXN]){ 0 }, MAXN) != 0) {
		snprintf(why, sz, "seed %u: a cycle in an acyclic graph", seed);
		ok = false;
	}
	vf_depgraph_free(&g);
	return ok;
}

static void test_generated(void)
{
	char why[160] = "";
	unsigned passed = 0, runs = 400;

	for (unsigned seed = 1; seed <= runs; seed++) {
		unsigned n = 2 + seed % (MAXN - 1);

		if (!run(seed, n, n * 3, why, sizeof(why)))
			break;
		passed++;
	}
	OK(passed == runs, why[0] ? why : "400 seeded graphs agree with the oracle");
}

/*
 * A large acyclic graph (a hidden order, edges offered against the
 * graph's own order so most insertions move many nodes, past the sorts'
 * small cases): every edge must be taken, and the order kept must be a
 * permutation every edge agrees with.
 */
static void test_large(void)
{
	enum { N = 3000, M = 20000 };
	uint32_t *hidden = malloc(N * sizeof(*hidden));
	unsigned long long x = 7;
	struct vf_depgraph g;
	bool taken = true, order = true;

	if (!hidden || vf_depgraph_init(&g, N)) {
		OK(false, "large graph: out of memory");
		free(hidden);
		return;
	}
	for (uint32_t i = 0; i < N; i++)	/* the reverse, shuffled a bit */
		hidden[i] = N - 1 - i;
	for (uint32_t i = 0; i < N; i++) {
		uint32_t j = next_rand(&x) % N, t = hidden[i];

		if (next_rand(&x) % 4 == 0) {
			hidden[i] = hidden[j];
			hidden[j] = t;
		}
	}
	for (unsigned i = 0; i < M && taken; i++) {
		uint32_t a = next_rand(&x) % N, b = next_rand(&x) % N;

		if (hidden[a] == hidden[b])
			continue;
		if (hidden[a] > hidden[b]) {
			uint32_t t = a;

			a = b;
			b = t;
		}
		taken = vf_depgraph_add_acyclic(&g, a, b) >= 0;
	}
	for (uint32_t v = 0; v < N && order; v++) {
		order = g.at[g.ord[v]] == v;
		for (uint32_t e = g.head[v]; e != UINT32_MAX && order;
		     e = g.next[e])
			order = g.ord[v] < g.ord[g.to[e]];
	}
	OK(taken && order, "3,000 nodes, 20,000 edges of a hidden order: all "
	   "taken, and the order kept agrees with every one");
	vf_depgraph_free(&g);
	free(hidden);
}

static void test_cycle(void)
{
	struct vf_depgraph g;
	uint32_t cyc[8];
	int n;

	vf_depgraph_init(&g, 6);
	vf_depgraph_add(&g, 0, 1);
	vf_depgraph_add(&g, 1, 2);
	vf_depgraph_add(&g, 2, 3);
	vf_depgraph_add(&g, 4, 5);
	EQ_U(vf_depgraph_cycle(&g, cyc, 8), 0, "a chain has no cycle");
	EQ_U(vf_depgraph_add(&g, 3, 1), 1, "plain add takes a closing edge");
	EQ_U(vf_depgraph_add(&g, 3, 1), 0, "and only once");
	n = vf_depgraph_cycle(&g, cyc, 8);
	EQ_U(n, 3, "the cycle 1 -> 2 -> 3 is found");
	OK(n == 3 && cyc[0] == 1 && cyc[1] == 2 && cyc[2] == 3,
	   "its nodes in order");
	OK(vf_depgraph_reaches(&g, 3, 2) && !vf_depgraph_reaches(&g, 2, 0),
	   "reaches() follows the edges, not against them");
	vf_depgraph_truncate(&g, 3);
	EQ_U(vf_depgraph_cycle(&g, cyc, 8), 0,
	     "taking the closing edge back removes the cycle");
	OK(vf_depgraph_add_acyclic(&g, 2, 2) == -ELOOP,
	   "a self-loop is a cycle");
	vf_depgraph_free(&g);
}

int main(void)
{
	test_generated();
	test_large();
	test_cycle();
	return tap_done();
}
