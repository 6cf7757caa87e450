// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* LIDs kept by port GUID across two pictures of a fabric.  See lidkeep.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lftdump.h"
#include "lidkeep.h"
#include "netfile.h"

void vf_lid_keeps_free(struct vf_lid_keeps *k)
{
	free(k->v);
	k->v = NULL;
	k->n = 0;
}

static int cmp_keep(const void *a, const void *b)
{
	const struct vf_lid_keep *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (int)x->base_lid - (int)y->base_lid;
}

static const struct vf_lid_keep *find_keep(const struct vf_lid_keeps *k,
					   uint64_t guid)
{
	struct vf_lid_keep key = { .guid = guid };
	size_t lo = 0, hi = k->n;

	/* the first entry of that GUID: a dump may list two ranges */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].guid < key.guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->n && k->v[lo].guid == guid ? &k->v[lo] : NULL;
}

int vf_lid_keeps_from_fabric(const struct vf_fabric *f,
			     struct vf_lid_keeps *k)
{
	k->n = 0;
	k->v = calloc(f->num_ports ? f->num_ports : 1, sizeof(*k->v));
	if (!k->v)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->num_ports; i++) {
		const struct vf_port *p = &f->ports[i];

		if (p->base_lid)
			k->v[k->n++] = (struct vf_lid_keep){
				p->guid, p->base_lid, 1u << p->lmc };
	}
	qsort(k->v, k->n, sizeof(*k->v), cmp_keep);
	return 0;
}

/* The LID and port GUID of a dump's entry line, if it names one. */
static bool entry_guid(const char *s, unsigned *lid, uint64_t *guid)
{
	const char *g;
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (strncmp(s, "0x", 2))
		return false;
	*lid = strtoul(s + 2, &end, 16);
	g = strstr(end, "portguid 0x");
	if (!g || !*lid || *lid > VF_MAX_LID)
		return false;
	*guid = strtoull(g + 11, &end, 16);
	return end != g + 11;
}

/* Append an entry, growing the array by doubling; 0 or -ENOMEM. */
static int push(struct vf_lid_keeps *k, size_t *cap, struct vf_lid_keep e)
{
	void *grown;

	if (k->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		grown = realloc(k->v, *cap * sizeof(*k->v));
		if (!grown)
			return -ENOMEM;
		k->v = grown;
	}
	k->v[k->n++] = e;
	return 0;
}

/* Runs of consecutive LIDs with one GUID, as entries sorted by GUID. */
static int runs_to_keeps(const uint64_t *owner, struct vf_lid_keeps *k)
{
	size_t cap = 0;

	for (unsigned lid = 1; lid <= VF_MAX_LID; lid++) {
		struct vf_lid_keep *last = k->n ? &k->v[k->n - 1] : NULL;

		if (!owner[lid])
			continue;
		if (last && last->guid == owner[lid] &&
		    last->base_lid + last->num == lid) {
			last->num++;
			continue;
		}
		if (push(k, &cap, (struct vf_lid_keep){ owner[lid], lid, 1 })) {
			vf_lid_keeps_free(k);
			return -ENOMEM;
		}
	}
	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), cmp_keep);
	return 0;
}

int vf_lid_keeps_from_dump(const char *path, struct vf_lid_keeps *k,
			   struct vf_err *err)
{
	uint64_t *owner = calloc(VF_MAX_LID + 1, sizeof(*owner)), guid;
	FILE *in = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	unsigned lid, num = 0;
	int rc = 0;

	k->v = NULL;
	k->n = 0;
	if (!in || !owner) {
		rc = in ? -ENOMEM : -errno;
		vf_err_set(err, "%s: %s", path, strerror(-rc));
		goto out;
	}
	while (!rc && getline(&line, &cap, in) >= 0) {
		num++;
		if (!entry_guid(line, &lid, &guid) || owner[lid] == guid)
			continue;
		if (owner[lid])
			rc = vf_err_set(err, "%s:%u: LID %u is port 0x%016llx here and port 0x%016llx before",
					path, num, lid,
					(unsigned long long)guid,
					(unsigned long long)owner[lid]);
		owner[lid] = guid;
	}
	if (!rc && runs_to_keeps(owner, k))
		rc = vf_err_set(err, "%s: out of memory", path);
out:
	free(line);
	free(owner);
	if (in)
		fclose(in);
	return rc;
}

enum lid_use { FREE, RESERVED, TAKEN };

static bool needs_lid(const struct vf_fabric *f, const struct vf_port *p)
{
	bool sw = vf_is_switch(&f->nodes[p->node]);

	if (p->base_lid || (sw ? p->num != 0 : p->num == 0))
		return false;
	/* an unlinked CA port has no LID in a live subnet */
	return sw || p->remote != VF_NONE;
}

/* A switch's port 0 takes one LID (OpenSM without LMC on it), a CA 2^lmc. */
static unsigned lids_of(const struct vf_fabric *f, const struct vf_port *p,
			unsigned lmc)
{
	return vf_is_switch(&f->nodes[p->node]) ? 1 : 1u << lmc;
}

static void mark(uint8_t *use, unsigned base, unsigned num, uint8_t how)
{
	for (unsigned l = base; l < base + num && l <= VF_MAX_LID; l++)
		if (use[l] < how)
			use[l] = how;
}

static bool all_below(const uint8_t *use, unsigned base, unsigned num,
		      uint8_t how)
{
	if (base + num - 1 > VF_MAX_LID)
		return false;
	for (unsigned l = base; l < base + num; l++)
		if (use[l] >= how)
			return false;
	return true;
}

static void give(struct vf_port *p, uint8_t *use, unsigned base,
		 unsigned num)
{
	p->base_lid = base;
	p->lmc = (uint8_t)__builtin_ctz(num);
	mark(use, base, num, TAKEN);
}

/* The kept LIDs of the ports that had some and can still have them. */
static void keep_pass(struct vf_fabric *f, unsigned lmc, uint8_t *use,
		      const struct vf_lid_keeps *keep)
{
	for (uint32_t i = 0; i < f->num_ports; i++) {
		struct vf_port *p = &f->ports[i];
		unsigned num = lids_of(f, p, lmc);
		const struct vf_lid_keep *k;

		if (!needs_lid(f, p))
			continue;
		k = find_keep(keep, p->guid);
		/* OpenSM drops an entry that is unaligned or too narrow */
		if (!k || k->base_lid % num || k->num < num ||
		    !all_below(use, k->base_lid, num, TAKEN))
			continue;
		give(p, use, k->base_lid, num);
	}
}

/* The lowest aligned block of num free LIDs from *cursor on, or 0. */
static unsigned lowest_free(const uint8_t *use, unsigned *cursor,
			    unsigned num)
{
	for (unsigned l = *cursor; l + num - 1 <= VF_MAX_LID; l += num)
		if (all_below(use, l, num, RESERVED)) {
			*cursor = l;
			return l;
		}
	return 0;
}

/* New ports: switches first, then CAs, the lowest free LIDs each. */
static int new_pass(struct vf_fabric *f, unsigned lmc, uint8_t *use)
{
	unsigned cursor[2] = { 1, 1u << lmc };

	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < f->num_ports; i++) {
			struct vf_port *p = &f->ports[i];
			unsigned num = lids_of(f, p, lmc), base;

			if (vf_is_switch(&f->nodes[p->node]) != !pass ||
			    !needs_lid(f, p))
				continue;
			base = lowest_free(use, &cursor[pass], num);
			if (!base)
				return -ERANGE;
			give(p, use, base, num);
		}
	return 0;
}

int vf_fabric_keep_lids(struct vf_fabric *f, unsigned lmc,
			const struct vf_lid_keeps *keep)
{
	uint8_t *use;
	int rc;

	if (f->finalized)
		return -EINVAL;
	use = calloc(VF_MAX_LID + 1, 1);
	if (!use)
		return -ENOMEM;
	use[0] = TAKEN;
	lmc = lmc > 7 ? 7 : lmc;
	for (uint32_t i = 0; i < f->num_ports; i++)
		if (f->ports[i].base_lid)
			mark(use, f->ports[i].base_lid,
			     1u << f->ports[i].lmc, TAKEN);
	/* a port that left keeps its LIDs, as in OpenSM's guid2lid */
	for (size_t i = 0; i < keep->n; i++)
		mark(use, keep->v[i].base_lid, keep->v[i].num, RESERVED);
	keep_pass(f, lmc, use, keep);
	rc = new_pass(f, lmc, use);
	free(use);
	return rc;
}

/*
 * The LMC a dump was routed with: the most LIDs it names one port with
 * (OpenSM with LMC N gives a CA 2^N of them), as an exponent.
 */
static unsigned keeps_lmc(const struct vf_lid_keeps *k)
{
	unsigned most = 1, lmc = 0;

	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].num > most)
			most = k->v[i].num;
	while (lmc < 7 && (1u << lmc) < most)
		lmc++;
	return lmc;
}

struct vf_fabric *vf_load_routed(const char *net, const char *dump,
				 unsigned lmc, struct vf_lfts *t,
				 struct vf_err *err)
{
	struct vf_lid_keeps k;
	struct vf_fabric *f;

	if (vf_lid_keeps_from_dump(dump, &k, err))
		return NULL;
	/* a net file without LIDs and OpenSM's dump of an LMC routing */
	if (keeps_lmc(&k) > lmc)
		lmc = keeps_lmc(&k);
	f = vf_netfile_load_keep(net, lmc, &k, err);
	vf_lid_keeps_free(&k);
	if (f && vf_lftdump_load(dump, f, t, err)) {
		vf_fabric_destroy(f);
		f = NULL;
	}
	return f;
}
