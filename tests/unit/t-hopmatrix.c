// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Min-hop matrices by BFS (routing/hopmatrix.c) against a reference that
 * does what OpenSM 3.3.23's osm_ucast_mgr_build_lid_matrices does, step by
 * step: port 0 and the neighbours' LIDs first (any link), then rounds in
 * which every switch takes 1 + its healthy neighbours' least hops, in
 * place, until a round changes nothing or nsw - 1 rounds ran.  Graphs:
 * hand-made ones whose numbers are worked out here, random ones with
 * parallel, unhealthy and missing links, CA ports and several components,
 * and a chain long enough to reach the 255 "no path" limit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/hopmatrix.h"
#include "tests/unit/taptest.h"

#define NOPE VF_HOPS_NONE

/* A test fabric: per switch, per port, the switch behind it or -1. */
struct net {
	unsigned nsw, nports;	/* ports per switch, port 0 included */
	int *peer;		/* [nsw * nports] */
	unsigned *rport;	/* [nsw * nports]: the port at the far end */
	bool *healthy;		/* [nsw * nports]: this end */
};

static struct net net_new(unsigned nsw, unsigned nports)
{
	struct net n = { nsw, nports,
			 malloc(sizeof(int) * nsw * nports),
			 malloc(sizeof(unsigned) * nsw * nports),
			 malloc(sizeof(bool) * nsw * nports) };

	for (unsigned i = 0; i < nsw * nports; i++) {
		n.peer[i] = -1;
		n.healthy[i] = true;
	}
	return n;
}

static void net_free(struct net *n)
{
	free(n->peer);
	free(n->rport);
	free(n->healthy);
}

static void cable(struct net *n, unsigned a, unsigned pa, unsigned b,
		  unsigned pb)
{
	n->peer[a * n->nports + pa] = (int)b;
	n->rport[a * n->nports + pa] = pb;
	n->peer[b * n->nports + pb] = (int)a;
	n->rport[b * n->nports + pb] = pa;
}

/*
 * Link a free port of a to a free port of b (a == b: a loopback cable,
 * which OpenSM skips); false when none is free.
 */
static bool link2(struct net *n, unsigned a, unsigned b)
{
	unsigned pa = 0, pb = 0;

	for (unsigned i = 1; i < n->nports && !pa; i++)
		if (n->peer[a * n->nports + i] < 0)
			pa = i;
	for (unsigned i = 1; i < n->nports && !pb; i++)
		if (n->peer[b * n->nports + i] < 0 && (a != b || i != pa))
			pb = i;
	if (!pa || !pb)
		return false;
	cable(n, a, pa, b, pb);
	return true;
}

/* osm_link_is_healthy(): both ends. */
static bool link_ok(const struct net *n, unsigned s, unsigned p)
{
	unsigned r = (unsigned)n->peer[s * n->nports + p];

	return n->healthy[s * n->nports + p] &&
	       n->healthy[r * n->nports + n->rport[s * n->nports + p]];
}

/* The reference: H[(s * nsw + d) * nports + port]. */
static uint8_t *reference(const struct net *n)
{
	unsigned N = n->nsw, P = n->nports;
	uint8_t *H = malloc((size_t)N * N * P);
	bool changed = true;

#define AT(s, d, p) H[((size_t)(s) * N + (d)) * P + (p)]
#define SET(s, d, p, v) do {                                          \
		AT(s, d, p) = (v);                                    \
		if (AT(s, d, 0) > (v))                                \
			AT(s, d, 0) = (v);                            \
	} while (0)

	memset(H, NOPE, (size_t)N * N * P);
	for (unsigned s = 0; s < N; s++) {
		SET(s, s, 0, 0);
		for (unsigned p = 1; p < P; p++) {
			int r = n->peer[s * P + p];

			if (r >= 0 && r != (int)s)
				SET(s, (unsigned)r, p, 1);
		}
	}
	for (unsigned round = 0; N && round < N - 1 && changed; round++) {
		changed = false;
		for (unsigned s = 0; s < N; s++)
			for (unsigned p = 1; p < P; p++) {
				int r = n->peer[s * P + p];

				if (r < 0 || r == (int)s || !link_ok(n, s, p))
					continue;
				for (unsigned d = 0; d < N; d++) {
					unsigned h = AT(r, d, 0);

					if (h == NOPE)
						continue;
					h += 1;
					if (h < AT(s, d, p)) {
						SET(s, d, p, (uint8_t)h);
						changed = true;
					}
				}
			}
	}
#undef SET
#undef AT
	return H;
}

/* The same from routing/hopmatrix.c. */
static uint8_t *by_bfs(const struct net *n)
{
	unsigned N = n->nsw, P = n->nports;
	uint8_t *H = malloc((size_t)N * N * P);
	struct vf_hopgraph g;
	struct vf_hops_dst h;

	if (vf_hopgraph_init(&g, N, N * P) || vf_hops_dst_init(&h, N))
		abort();
	for (unsigned s = 0; s < N; s++)
		for (unsigned p = 1; p < P; p++) {
			int r = n->peer[s * P + p];

			if (r >= 0 && r != (int)s &&
			    vf_hopgraph_add(&g, s, p, (uint32_t)r,
					    link_ok(n, s, p)))
				abort();
		}
	vf_hopgraph_done(&g);
	for (unsigned d = 0; d < N; d++) {
		vf_hops_to(&g, d, &h);
		for (unsigned s = 0; s < N; s++)
			vf_hops_row(&g, &h, s, &H[((size_t)s * N + d) * P], P);
	}
	vf_hopgraph_free(&g);
	vf_hops_dst_free(&h);
	return H;
}

/* Equal matrices; the first difference is printed. */
static bool same(const struct net *n, const char *what)
{
	uint8_t *a = reference(n), *b = by_bfs(n);
	size_t len = (size_t)n->nsw * n->nsw * n->nports, i;

	for (i = 0; i < len && a[i] == b[i]; i++)
		;
	OK(i == len, what);
	if (i < len)
		printf("#   switch %zu to %zu port %zu: %u, OpenSM's %u\n",
		       i / n->nports / n->nsw, i / n->nports % n->nsw,
		       i % n->nports, b[i], a[i]);
	free(a);
	free(b);
	return i == len;
}

static uint8_t at(const uint8_t *H, const struct net *n, unsigned s,
		  unsigned d, unsigned p)
{
	return H[((size_t)s * n->nsw + d) * n->nports + p];
}

/*
 * A path of 4 switches 0-1-2-3 (port 1 left, port 2 right) plus a
 * second, unhealthy 1-2 cable on port 3 of both.
 */
static void hand_made(void)
{
	struct net n = net_new(4, 4);
	uint8_t *H;

	for (unsigned s = 0; s + 1 < 4; s++)
		cable(&n, s, 2, s + 1, 1);
	cable(&n, 1, 3, 2, 3);
	n.healthy[2 * 4 + 3] = false;
	H = by_bfs(&n);
	EQ_U(at(H, &n, 0, 0, 0), 0, "a switch is 0 hops from itself by port 0");
	EQ_U(at(H, &n, 0, 0, 2), 2, "and 2 by a port to a neighbour and back");
	EQ_U(at(H, &n, 0, 3, 0), 3, "0 to 3: 3 hops");
	EQ_U(at(H, &n, 0, 3, 2), 3, "by port 2");
	EQ_U(at(H, &n, 0, 3, 1), NOPE, "no port 1 (unlinked)");
	EQ_U(at(H, &n, 1, 2, 3), 1,
	     "an unhealthy cable still counts 1 hop to the switch behind it");
	EQ_U(at(H, &n, 1, 3, 3), NOPE, "but carries nothing further");
	EQ_U(at(H, &n, 1, 3, 2), 2, "1 to 3 by the healthy cable: 2");
	EQ_U(at(H, &n, 3, 0, 1), 3, "3 to 0 by port 1: 3");
	free(H);
	same(&n, "the path with an unhealthy cable: as OpenSM");

	/* the only 1-2 cable unhealthy: the two halves meet at 1 hop only */
	n.healthy[1 * 4 + 2] = false;
	H = by_bfs(&n);
	EQ_U(at(H, &n, 1, 2, 0), 1, "1 to 2 over unhealthy cables: 1");
	EQ_U(at(H, &n, 0, 2, 0), 2,
	     "0 takes 1's count to 2 (OpenSM propagates it)");
	EQ_U(at(H, &n, 0, 3, 0), NOPE, "but 3 is out of reach from 0");
	free(H);
	same(&n, "the path cut by unhealthy cables: as OpenSM");
	net_free(&n);
}

static unsigned rnd(unsigned *seed, unsigned n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

static void random_graphs(void)
{
	unsigned seed = 42, bad = 0;

	for (unsigned k = 0; k < 200; k++) {
		unsigned nsw = 1 + rnd(&seed, 30), P = 2 + rnd(&seed, 8);
		unsigned links = rnd(&seed, nsw * 3 + 1);
		struct net n = net_new(nsw, P);

		for (unsigned i = 0; i < links; i++)
			link2(&n, rnd(&seed, nsw), rnd(&seed, nsw));
		for (unsigned i = 0; i < nsw * P; i++)
			if (rnd(&seed, 10) == 0)
				n.healthy[i] = false;
		if (!same(&n, "a random graph: as OpenSM"))
			bad++;
		net_free(&n);
	}
	OK(!bad, "200 random graphs (1-30 switches; parallel, unhealthy, "
	   "missing links; several components) as OpenSM");
}

/* 300 switches in a row: counts stop at 254, the 255th switch is out. */
static void long_chain(void)
{
	struct net n = net_new(300, 3);
	uint8_t *H;

	for (unsigned s = 0; s + 1 < 300; s++)
		link2(&n, s, s + 1);
	H = by_bfs(&n);
	EQ_U(at(H, &n, 0, 254, 0), 254, "254 hops is a count");
	EQ_U(at(H, &n, 0, 255, 0), NOPE, "255 is no path");
	free(H);
	same(&n, "a chain of 300 switches: as OpenSM");
	net_free(&n);
}

static void api(void)
{
	struct vf_hopgraph g;

	OK(!vf_hopgraph_init(&g, 3, 2), "init");
	OK(vf_hopgraph_add(&g, 1, 1, 1, true) == -EINVAL, "no link to itself");
	OK(vf_hopgraph_add(&g, 1, 1, 3, true) == -EINVAL, "no peer past nsw");
	OK(!vf_hopgraph_add(&g, 1, 1, 0, true), "add");
	OK(vf_hopgraph_add(&g, 0, 1, 1, true) == -EINVAL,
	   "switches in increasing order");
	OK(!vf_hopgraph_add(&g, 2, 1, 0, true), "add a later switch");
	OK(vf_hopgraph_add(&g, 2, 2, 1, true) == -ENOSPC, "no room");
	vf_hopgraph_done(&g);
	OK(g.start[0] == 0 && g.start[1] == 0 && g.start[2] == 1 &&
	   g.start[3] == 2, "link lists of every switch, none for switch 0");
	vf_hopgraph_free(&g);
}

int main(void)
{
	api();
	hand_made();
	random_graphs();
	long_chain();
	return tap_done();
}
