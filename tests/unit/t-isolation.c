// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Isolation warnings (partition/isolation.h) on seeded random
 * configurations over the golden 4x4 fat tree (hosts cn0001-cn0016):
 * DeviceGroups of NodeDesc patterns cn[a-b]* (some ranges past the
 * fabric, some with a typo), VFs with random groups, Security and one of
 * two explicit P_Keys.  What must be warned is worked out here from the
 * host numbers alone: a pattern that selects no host, a used group all
 * of whose patterns select none, a pair of secure VFs sharing a P_Key
 * with different member lists (config) and, when any pair of their
 * exclusive hosts can reach each other, that count (fabric); nothing
 * else may be warned.
 * ISOLATION_SEED=n picks the seed (default: time), ISOLATION_RUNS=n the
 * number of configurations (default 300).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "partition/isolation.h"
#include "partition/internal/xmlconf.h"
#include "routing/netfile.h"
#include "fabrics.h"
#include "taptest.h"

#define NHOSTS 16
#define MAXG 5
#define MAXV 4

static char tmpdir[] = "/tmp/t-isolation-XXXXXX";
static uint64_t rng;

/*
 * These files have no SA/PM/PA VirtualFabric: the FM's management rules
 * (partition/fmmgmt.c, tested in t-vfconfig) warn about each.  Left out
 * here, so that the count is of the isolation warnings.
 */
static void drop_mgmt_warnings(struct vf_diag *d)
{
	unsigned n = 0;

	for (unsigned i = 0; i < d->n; i++) {
		if (d->v[i].level == VF_DIAG_WARN &&
		    strstr(d->v[i].text, "the FM refuses this")) {
			free(d->v[i].text);
			continue;
		}
		d->v[n++] = d->v[i];
	}
	d->n = n;
}

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

struct tpat {
	unsigned lo, hi;
	bool typo;
};

struct tgroup {
	struct tpat pat[2];
	unsigned npat;
};

struct tvf {
	int full, lim;		/* group index, -1 none */
	bool secure;
	unsigned pkey;
};

/* Hosts (bit h for cn<h>) a pattern selects. */
static uint32_t pat_hosts(const struct tpat *p)
{
	uint32_t m = 0;

	for (unsigned h = 1; !p->typo && h <= NHOSTS; h++)
		if (h >= p->lo && h <= p->hi)
			m |= 1u << h;
	return m;
}

static uint32_t group_hosts(const struct tgroup *g)
{
	uint32_t m = 0;

	for (unsigned i = 0; i < g->npat; i++)
		m |= pat_hosts(&g->pat[i]);
	return m;
}

static void gen(struct tgroup *g, unsigned ng, struct tvf *v, unsigned nv)
{
	bool secure[2];

	for (unsigned i = 0; i < ng; i++) {
		g[i].npat = 1 + rnd(2);
		for (unsigned k = 0; k < g[i].npat; k++) {
			unsigned a = 1 + rnd(NHOSTS + 6);
			unsigned b = 1 + rnd(NHOSTS + 6);

			g[i].pat[k].lo = a < b ? a : b;
			g[i].pat[k].hi = a < b ? b : a;
			g[i].pat[k].typo = rnd(8) == 0;
		}
	}
	/* one Security per P_Key: mixing them is an error, not a warning */
	secure[0] = rnd(4) != 0;
	secure[1] = rnd(4) != 0;

	for (unsigned i = 0; i < nv; i++) {
		unsigned k = rnd(2);

		v[i].full = (int)rnd(ng);
		v[i].lim = rnd(3) ? -1 : (int)rnd(ng);
		v[i].secure = secure[k];
		v[i].pkey = k ? 0x20 : 0x10;
	}
}

static void write_xml(const char *path, const struct tgroup *g, unsigned ng,
		      const struct tvf *v, unsigned nv)
{
	FILE *f = fopen(path, "w");

	fprintf(f, "<Config><Common><Applications><Application><Name>Any</Name><Select>UnmatchedServiceID</Select></Application></Applications>\n<DeviceGroups>\n");
	for (unsigned i = 0; i < ng; i++) {
		fprintf(f, "<DeviceGroup><Name>G%u</Name>", i);
		for (unsigned k = 0; k < g[i].npat; k++)
			fprintf(f, "<NodeDesc>%s[%04u-%04u]*</NodeDesc>",
				g[i].pat[k].typo ? "cm" : "cn", g[i].pat[k].lo,
				g[i].pat[k].hi);
		fprintf(f, "</DeviceGroup>\n");
	}
	fprintf(f, "</DeviceGroups><VirtualFabrics>\n");
	for (unsigned i = 0; i < nv; i++) {
		fprintf(f, "<VirtualFabric><Name>V%u</Name><Enable>1</Enable><Security>%d</Security><PKey>0x%x</PKey><Application>Any</Application><Member>G%d</Member>",
			i, v[i].secure, v[i].pkey, v[i].full);
		if (v[i].lim >= 0)
			fprintf(f, "<LimitedMember>G%d</LimitedMember>", v[i].lim);
		fprintf(f, "</VirtualFabric>\n");
	}
	fprintf(f, "</VirtualFabrics></Common></Config>\n");
	fclose(f);
}

static bool has_text(const struct vf_diag *d, const char *a, const char *b)
{
	for (unsigned i = 0; i < d->n; i++)
		if (strstr(d->v[i].text, a) && (!b || strstr(d->v[i].text, b)))
			return true;
	return false;
}

/* Hosts full (*f) and limited only (*l) in v (insecure: all full). */
static void vf_hosts(const struct tgroup *g, const struct tvf *v, uint32_t *f,
		     uint32_t *l)
{
	*f = group_hosts(&g[v->full]);
	*l = v->lim >= 0 ? group_hosts(&g[v->lim]) : 0;
	if (!v->secure) {
		*f |= *l;
		*l = 0;
	}
	*l &= ~*f;
}

/* Pairs of hosts only in a and only in b, one of them full: brute force. */
static unsigned reach_pairs(const struct tgroup *g, const struct tvf *a,
			    const struct tvf *b)
{
	uint32_t af, al, bf, bl;
	unsigned n = 0;

	vf_hosts(g, a, &af, &al);
	vf_hosts(g, b, &bf, &bl);
	for (unsigned x = 1; x <= NHOSTS; x++)
		for (unsigned y = 1; y <= NHOSTS; y++) {
			bool xa = (af | al) >> x & 1, xb = (bf | bl) >> x & 1;
			bool ya = (af | al) >> y & 1, yb = (bf | bl) >> y & 1;

			if (xa && !xb && yb && !ya &&
			    ((af >> x & 1) || (bf >> y & 1)))
				n++;
		}
	return n;
}

static bool same_lists(const struct tvf *a, const struct tvf *b)
{
	return a->full == b->full && a->lim == b->lim;
}

/* One random configuration; false (and why) on a wrong warning set. */
static bool one(const struct vf_fabric *f, unsigned *warned)
{
	struct tgroup g[MAXG];
	struct tvf v[MAXV];
	unsigned ng = 2 + rnd(MAXG - 1), nv = 2 + rnd(MAXV - 1), want = 0;
	struct vf_diag d = { 0 };
	struct vf_resolution r;
	struct vf_config c;
	char path[256], a[96], b[96];
	bool used[MAXG] = { false }, ok = true;
	int rc;

	gen(g, ng, v, nv);
	snprintf(path, sizeof(path), "%s/vf.xml", tmpdir);
	write_xml(path, g, ng, v, nv);
	vf_config_init(&c);
	if (vf_xml_load(path, &c, &d) || d.errors) {
		printf("# the generated file did not load\n");
		vf_config_free(&c);
		vf_diag_free(&d);
		return false;
	}
	vf_config_validate(&c, &d);	/* the config-level warnings */
	drop_mgmt_warnings(&d);
	if (d.errors || vf_resolve(&r, &c, f, VF_NONE)) {
		ok = false;
		goto out;
	}
	rc = vf_warn_fabric(&r, &d);
	vf_resolution_free(&r);
	if (rc) {
		ok = false;
		goto out;
	}
	for (unsigned i = 0; i < nv; i++) {
		used[v[i].full] = true;
		if (v[i].lim >= 0)
			used[v[i].lim] = true;
	}
	for (unsigned i = 0; i < ng; i++) {
		if (!used[i])
			continue;
		for (unsigned k = 0; k < g[i].npat; k++) {
			if (pat_hosts(&g[i].pat[k]))
				continue;
			want++;
			snprintf(a, sizeof(a), "DeviceGroup 'G%u': NodeDesc '%s[%04u-%04u]*' matches no node",
				 i, g[i].pat[k].typo ? "cm" : "cn",
				 g[i].pat[k].lo, g[i].pat[k].hi);
			ok = ok && has_text(&d, a, NULL);
		}
		if (!group_hosts(&g[i])) {
			want++;
			snprintf(a, sizeof(a), "DeviceGroup 'G%u' selects no port", i);
			ok = ok && has_text(&d, a, NULL);
		}
	}
	for (unsigned i = 0; i < nv; i++)
		for (unsigned j = 0; j < i; j++) {
			unsigned n;

			if (!v[i].secure || !v[j].secure ||
			    v[i].pkey != v[j].pkey || same_lists(&v[i], &v[j]))
				continue;
			want++;
			snprintf(a, sizeof(a), "VirtualFabric 'V%u' shares P_Key 0x%04x with VirtualFabric 'V%u'",
				 i, v[i].pkey, j);
			ok = ok && has_text(&d, a, NULL);
			n = reach_pairs(g, &v[j], &v[i]);
			if (!n)
				continue;
			want++;
			snprintf(a, sizeof(a), "VirtualFabric 'V%u' and VirtualFabric 'V%u' (P_Key 0x%04x) on this fabric",
				 j, i, v[i].pkey);
			snprintf(b, sizeof(b), ", %u pairs of them can reach each other", n);
			ok = ok && has_text(&d, a, b);
		}
	ok = ok && d.n == want;
	*warned += d.n;
out:
	if (!ok) {
		printf("# expected %u warnings, got %u:\n", want, d.n);
		for (unsigned i = 0; i < d.n; i++)
			printf("#   %s\n", d.v[i].text);
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "sed 's/^/#   /' %s", path);
		if (system(cmd))
			printf("# (cannot show the file)\n");
	}
	vf_config_free(&c);
	vf_diag_free(&d);
	return ok;
}

int main(void)
{
	const char *s = getenv("ISOLATION_SEED"), *r = getenv("ISOLATION_RUNS");
	uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);
	unsigned runs = r ? (unsigned)strtoul(r, NULL, 0) : 300;
	unsigned bad = 0, warned = 0;
	struct vf_fabric *f;
	char cmd[64];

	if (!mkdtemp(tmpdir))
		return 1;
	printf("# ISOLATION_SEED=%llu ISOLATION_RUNS=%u\n",
	       (unsigned long long)seed, runs);
	rng = seed * 2654435761u + 1;
	f = golden_fabric("ft2-4x4.net");
	if (OK(f != NULL, "load the 4x4 tree")) {
		for (unsigned i = 0; i < runs && bad < 3; i++)
			bad += !one(f, &warned);
		printf("# %u configurations, %u warnings\n", runs, warned);
		OK(!bad, "every random configuration: exactly the warnings worked out from the hosts");
		OK(warned > runs / 2, "the generator makes warnings to check");
		vf_fabric_destroy(f);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
