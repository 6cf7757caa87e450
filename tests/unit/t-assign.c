// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Automatic P_Keys never move (issue 14, point 12), on the golden 4x4 fat
 * tree (hosts cn0001-cn0016):
 *   - two names whose hashes collide get the same P_Keys whatever the
 *     file's order (name order decides, with no history);
 *   - a master that had one of them first keeps it after the other is
 *     added (its cache);
 *   - an SM with an empty cache, reading the P_Key tables the master
 *     programmed, gives every VF the master's P_Key, in any file order;
 *   - seeded random histories (VFs added at random places in the file,
 *     some removed, names drawn from colliding pairs, random members):
 *     after each, a standby with an empty cache and the file shuffled
 *     must give every VF the master's P_Key.
 * ASSIGN_SEED=n picks the seed (default: time), ASSIGN_RUNS=n how many
 * histories (default 150; `make check-assign-long` runs 50,000);
 * ASSIGN_NOHELD=1 hides the fabric from the standby (the histories must
 * then fail: the test can), ASSIGN_DEBUG=1 prints every VF compared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "partition/plan.h"
#include "partition/internal/xmlconf.h"
#include "routing/netfile.h"
#include "fabrics.h"
#include "taptest.h"
#include "planon.h"

#define NHOSTS 16
#define MAXVF 8

static char tmpdir[] = "/tmp/t-assign-XXXXXX";

/* 1 + FNV-1a(name) mod 0x7ffe: the documented start of a new P_Key. */
static uint16_t hashed(const char *name)
{
	uint32_t h = 2166136261u;

	while (*name)
		h = (h ^ (unsigned char)*name++) * 16777619u;
	return (uint16_t)(1 + h % 0x7ffe);
}

/* A VF as the generator writes it. */
struct tvf {
	char name[32];
	unsigned full_lo, full_hi;	/* hosts cn<lo>..cn<hi> full */
	unsigned lim_lo, lim_hi;	/* limited (0: none) */
	bool secure;
};

/* The config text of vfs[order[0..n)]: one DeviceGroup per VF side. */
static void write_config(const struct tvf *vfs, const unsigned *order,
			 unsigned n, char *out, size_t cap)
{
	size_t l = 0;

	l += (size_t)snprintf(out + l, cap - l,
		"<Config><Common><Applications><Application><Name>Any</Name>"
		"<Select>UnmatchedServiceID</Select></Application>"
		"</Applications><DeviceGroups>");
	for (unsigned i = 0; i < n; i++) {
		const struct tvf *v = &vfs[order[i]];

		l += (size_t)snprintf(out + l, cap - l,
			"<DeviceGroup><Name>%s-f</Name><NodeDesc>cn[%04u-%04u]*"
			"</NodeDesc></DeviceGroup>", v->name, v->full_lo,
			v->full_hi);
		if (v->lim_lo)
			l += (size_t)snprintf(out + l, cap - l,
				"<DeviceGroup><Name>%s-l</Name><NodeDesc>"
				"cn[%04u-%04u]*</NodeDesc></DeviceGroup>",
				v->name, v->lim_lo, v->lim_hi);
	}
	l += (size_t)snprintf(out + l, cap - l, "</DeviceGroups><VirtualFabrics>");
	for (unsigned i = 0; i < n; i++) {
		const struct tvf *v = &vfs[order[i]];

		l += (size_t)snprintf(out + l, cap - l,
			"<VirtualFabric><Name>%s</Name><Enable>1</Enable>"
			"<Security>%d</Security><Application>Any</Application>"
			"<Member>%s-f</Member>", v->name, v->secure, v->name);
		if (v->lim_lo)
			l += (size_t)snprintf(out + l, cap - l,
				"<LimitedMember>%s-l</LimitedMember>", v->name);
		l += (size_t)snprintf(out + l, cap - l, "</VirtualFabric>");
	}
	snprintf(out + l, cap - l, "</VirtualFabrics></Common></Config>");
}

static bool load(const char *text, struct vf_config *c)
{
	char path[256];
	struct vf_diag d = { 0 };
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/vf.xml", tmpdir);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	vf_config_init(c);
	vf_xml_load(path, c, &d);
	if (!d.errors)
		vf_config_validate(c, &d);
	ok = !d.errors;
	for (unsigned i = 0; !ok && i < d.n; i++)
		printf("#   %s\n", d.v[i].text);
	vf_diag_free(&d);
	return ok;
}

/* What every port holds under plan p, as the plugin would read it. */
static void held_from_plan(const struct vf_fabric *f, const struct vf_plan *p,
			   struct vf_held_pkeys *h)
{
	uint32_t n = 0;

	h->num_ports = f->num_ports;
	h->first = calloc(f->num_ports + 1, sizeof(*h->first));
	h->keys = calloc((size_t)f->num_ports * 32 + 1, sizeof(*h->keys));
	for (uint32_t port = 0; port < f->num_ports; port++) {
		h->first[port] = n;
		n += vf_plan_port_entries(p, port, h->keys + n, 32);
	}
	h->first[f->num_ports] = n;
}

/*
 * Plan vfs[order[0..n)] with cache a (and held, or NULL); out[i] gets the
 * P_Key of vfs[i] (0 when not in the file).  false on failure.
 */
static bool run_plan(const struct vf_fabric *f, const struct tvf *vfs,
		     const unsigned *order, unsigned n,
		     struct vf_assignment *a, const struct vf_held_pkeys *held,
		     uint16_t *out, struct vf_plan *keep)
{
	static char text[65536];
	struct vf_plan_opts o = { .held = held };
	struct vf_diag d = { 0 };
	struct vf_config c;
	struct vf_plan p;
	bool ok;

	write_config(vfs, order, n, text, sizeof(text));
	if (!load(text, &c))
		return false;
	ok = !plan_on(&c, f, VF_NONE, &o, a, &p, &d);
	for (unsigned i = 0; ok && i < MAXVF; i++)
		out[i] = 0;
	for (unsigned i = 0; ok && i < n; i++)
		out[order[i]] = p.vf_pkey[i];
	for (unsigned i = 0; !ok && i < d.n; i++)
		printf("#   %s\n", d.v[i].text);
	if (ok && keep)
		*keep = p;
	else if (ok)
		vf_plan_free(&p);
	vf_diag_free(&d);
	vf_config_free(&c);
	return ok;
}

static const struct tvf A = { "Tenant430", 1, 4, 0, 0, true };
static const struct tvf B = { "Tenant124", 5, 8, 0, 0, true };

static void test_collision(const struct vf_fabric *f)
{
	struct tvf vfs[2] = { A, B };
	unsigned ab[2] = { 0, 1 }, ba[2] = { 1, 0 };
	struct vf_assignment m = { 0 }, s = { 0 }, e1 = { 0 }, e2 = { 0 };
	uint16_t pk1[MAXVF], pk2[MAXVF], mpk[MAXVF], spk[MAXVF];
	uint16_t h = hashed(A.name);
	struct vf_held_pkeys held;
	struct vf_plan mp;

	OK(hashed(A.name) == hashed(B.name), "Tenant430 and Tenant124 collide");
	/* no history: name order decides, whatever the file's order */
	OK(run_plan(f, vfs, ab, 2, &e1, NULL, pk1, NULL) &&
	   run_plan(f, vfs, ba, 2, &e2, NULL, pk2, NULL),
	   "plan both file orders with empty caches");
	OK(pk1[0] == pk2[0] && pk1[1] == pk2[1],
	   "same P_Keys in either file order");
	OK(pk1[1] == h && pk1[0] == h + 1,
	   "Tenant124 (first by name) gets the hash, Tenant430 the next");

	/* history: Tenant430 alone first, then Tenant124 added before it */
	OK(run_plan(f, vfs, ab, 1, &m, NULL, mpk, NULL) && mpk[0] == h,
	   "master: Tenant430 alone gets its hash");
	OK(run_plan(f, vfs, ba, 2, &m, NULL, mpk, &mp) && mpk[0] == h &&
	   mpk[1] == h + 1,
	   "master: Tenant124 added (first in the file) gets the next one");

	/* a standby with an empty cache, reading what the ports hold */
	held_from_plan(f, &mp, &held);
	OK(run_plan(f, vfs, ab, 2, &s, &held, spk, NULL) &&
	   spk[0] == h && spk[1] == h + 1,
	   "standby, empty cache, fabric read: the master's P_Keys (A B)");
	vf_assignment_free(&s);
	OK(run_plan(f, vfs, ba, 2, &s, &held, spk, NULL) &&
	   spk[0] == h && spk[1] == h + 1,
	   "standby, empty cache, fabric read: the master's P_Keys (B A)");
	OK(s.changed, "the recovered values go to the standby's cache");
	vf_held_pkeys_free(&held);
	vf_plan_free(&mp);
	vf_assignment_free(&m);
	vf_assignment_free(&s);
	vf_assignment_free(&e1);
	vf_assignment_free(&e2);
}

/* Colliding pairs (FNV-1a mod 0x7ffe) and a few other names. */
static const char *const names[] = {
	"Tenant124", "Tenant430", "Tenant125", "Tenant431", "Tenant512",
	"Tenant662", "Tenant513", "Tenant663", "Storage", "Compute",
};

static uint64_t rng;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void random_vf(struct tvf *v, const char *name)
{
	unsigned a = 1 + rnd(NHOSTS), b = 1 + rnd(NHOSTS);

	snprintf(v->name, sizeof(v->name), "%s", name);
	v->full_lo = a < b ? a : b;
	v->full_hi = a < b ? b : a;
	v->lim_lo = v->lim_hi = 0;
	if (rnd(3) == 0) {
		a = 1 + rnd(NHOSTS);
		b = 1 + rnd(NHOSTS);
		v->lim_lo = a < b ? a : b;
		v->lim_hi = a < b ? b : a;
	}
	v->secure = rnd(5) != 0;
}

/* Hosts full (*full) and limited only (*lim) in v, as bit masks. */
static void masks(const struct tvf *v, uint32_t *full, uint32_t *lim)
{
	*full = *lim = 0;
	for (unsigned h = v->full_lo; h <= v->full_hi; h++)
		*full |= 1u << h;
	for (unsigned h = v->lim_lo; v->lim_lo && h <= v->lim_hi; h++)
		*lim |= 1u << h;
	if (!v->secure) {
		*full |= *lim;
		*lim = 0;
	}
	*lim &= ~*full;
}

/* The same ports with the same kinds: the fabric cannot tell them apart. */
static bool same_members(const struct tvf *a, const struct tvf *b)
{
	uint32_t af, al, bf, bl;

	masks(a, &af, &al);
	masks(b, &bf, &bl);
	return af == bf && al == bl;
}

/*
 * One history on the master, then a standby with an empty cache and the
 * file shuffled.  Returns false on a P_Key that moved (or a failure).
 */
static bool one_history(const struct vf_fabric *f, unsigned *moved_fabric,
			unsigned *skipped)
{
	struct tvf vfs[MAXVF];
	unsigned order[MAXVF], n = 0, pool[10], npool = 10, steps;
	struct vf_assignment m = { 0 }, s = { 0 };
	uint16_t mpk[MAXVF], spk[MAXVF];
	struct vf_held_pkeys held;
	struct vf_plan mp;
	bool ok = true, have_plan = false;

	for (unsigned i = 0; i < npool; i++)
		pool[i] = i;
	steps = 2 + rnd(6);
	for (unsigned st = 0; ok && st < steps; st++) {
		if (n > 1 && rnd(5) == 0) {		/* remove one */
			unsigned k = rnd(n);

			memmove(&order[k], &order[k + 1],
				(n - k - 1) * sizeof(*order));
			n--;
		} else if (n < MAXVF && npool) {	/* add one anywhere */
			unsigned k = rnd(npool), at = rnd(n + 1), slot = n;

			for (unsigned i = 0; i < n; i++)
				if (order[i] >= slot)
					slot = order[i] + 1;
			if (slot >= MAXVF)
				continue;
			random_vf(&vfs[slot], names[pool[k]]);
			pool[k] = pool[--npool];
			memmove(&order[at + 1], &order[at],
				(n - at) * sizeof(*order));
			order[at] = slot;
			n++;
		}
		if (have_plan)
			vf_plan_free(&mp);
		ok = run_plan(f, vfs, order, n, &m, NULL, mpk, &mp);
		have_plan = ok;
	}
	if (!ok || !n)
		goto out;
	/* VFs the fabric cannot tell apart (same ports, same kinds) */
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++)
			if (i != j && vfs[order[i]].secure &&
			    same_members(&vfs[order[i]], &vfs[order[j]])) {
				(*skipped)++;
				goto out;
			}
	held_from_plan(f, &mp, &held);
	for (unsigned i = n; i > 1; i--) {	/* shuffle the file */
		unsigned j = rnd(i), t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
	ok = run_plan(f, vfs, order, n, &s, getenv("ASSIGN_NOHELD") ? NULL : &held, spk, NULL);
	if (getenv("ASSIGN_DEBUG"))
		for (unsigned i = 0; i < n; i++)
			printf("# %s sec %d full %u-%u lim %u-%u master 0x%04x standby 0x%04x\n", vfs[order[i]].name, vfs[order[i]].secure, vfs[order[i]].full_lo, vfs[order[i]].full_hi, vfs[order[i]].lim_lo, vfs[order[i]].lim_hi, mpk[order[i]], spk[order[i]]);
	for (unsigned i = 0; ok && i < n; i++)
		if (spk[order[i]] != mpk[order[i]]) {
			printf("# %s: master 0x%04x, standby 0x%04x\n",
			       vfs[order[i]].name, mpk[order[i]],
			       spk[order[i]]);
			ok = false;
		}
	*moved_fabric += !ok;
	vf_held_pkeys_free(&held);
out:
	if (have_plan)
		vf_plan_free(&mp);
	vf_assignment_free(&m);
	vf_assignment_free(&s);
	return ok;
}

static void test_histories(const struct vf_fabric *f)
{
	const char *s = getenv("ASSIGN_SEED"), *r = getenv("ASSIGN_RUNS");
	uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);
	unsigned runs = r ? (unsigned)strtoul(r, NULL, 0) : 150;
	unsigned bad = 0, moved = 0, skipped = 0;

	printf("# ASSIGN_SEED=%llu ASSIGN_RUNS=%u\n",
	       (unsigned long long)seed, runs);
	rng = seed * 2654435761u + 1;
	for (unsigned i = 0; i < runs; i++)
		bad += !one_history(f, &moved, &skipped);
	printf("# %u histories, %u with VFs the fabric cannot tell apart (not compared), %u moved\n",
	       runs, skipped, moved);
	OK(!bad, "random histories: a standby with an empty cache keeps every P_Key");
	OK(skipped < runs / 2, "most histories are compared");
}

int main(void)
{
	struct vf_fabric *f;
	char cmd[64];

	if (!mkdtemp(tmpdir))
		return 1;
	f = golden_fabric("ft2-4x4.net");
	if (OK(f != NULL, "load the 4x4 tree")) {
		test_collision(f);
		test_histories(f);
		vf_fabric_destroy(f);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
