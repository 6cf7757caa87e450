// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "partition/recover.h"

#define PKEY_SPACE 0x8000
#define PKEY_DEFAULT 0x7fff

/*
 * An automatic P_Key key the cache lacks, and its members' ports: bits,
 * words of full members then words of limited-only ones.
 */
struct rkey {
	const char *key;
	const struct vf_where *at;
	uint64_t *bits;
	bool done;
};

/* A P_Key the fabric holds that nothing claims, and its holders (same). */
struct rval {
	uint16_t pkey;
	uint64_t *bits;
	bool done;
};

struct rpair {
	unsigned k, v;
	unsigned inter, uni;	/* members and holders: both, either */
	unsigned holders;
};

struct rwork {
	const struct vf_config *c;
	const struct vf_fabric *f;
	uint32_t words;
	struct rkey *keys;
	unsigned nkeys;
	struct rval *vals;
	unsigned nvals;
};

/* CA ports that are linked, and switch port 0: what P_Keys apply to. */
static bool end_port(const struct vf_fabric *f, uint32_t p)
{
	const struct vf_port *port = &f->ports[p];

	if (vf_is_switch(&f->nodes[port->node]))
		return port->num == 0;
	return port->num > 0 && port->remote != VF_NONE;
}

static const char *auto_key(const struct vf_cfg_vf *v)
{
	if (!v->enable || v->standby || v->pkey >= 0)
		return NULL;
	return v->security ? v->name : VF_ASSIGN_SHARED;
}

static uint16_t cached(const struct vf_assignment *a, const char *key)
{
	for (unsigned i = 0; i < a->n; i++)
		if (!strcmp(a->v[i].key, key))
			return a->v[i].pkey;
	return 0;
}

/* Values taken: the default, explicit ones, those active keys remember. */
static void mark_taken(const struct vf_config *c,
		       const struct vf_assignment *a, bool *taken)
{
	taken[0] = taken[PKEY_DEFAULT] = true;
	for (unsigned i = 0; i < c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];
		const char *key = auto_key(v);

		if (v->enable && !v->standby && v->pkey >= 0)
			taken[v->pkey & PKEY_DEFAULT] = true;
		if (key)
			taken[cached(a, key)] = true;
	}
}

static void set_bit(uint64_t *bits, uint32_t p)
{
	bits[p / 64] |= 1ull << (p % 64);
}

/* Mark l's member ports in bits (full) or bits + words (limited). */
static void set_members(const struct rwork *w,
			const struct vf_dg_members *dg,
			const struct vf_names *l, uint64_t *bits, bool limited)
{
	for (unsigned i = 0; i < l->n; i++) {
		int g = vf_config_dg_index(w->c, l->v[i]);

		for (uint32_t p = 0; g >= 0 && p < w->f->num_ports; p++)
			if (end_port(w->f, p) && vf_dg_has(dg, (unsigned)g, p))
				set_bit(bits + (limited ? w->words : 0), p);
	}
}

/* A port both full and limited counts as full only. */
static void full_wins(const struct rwork *w, uint64_t *bits)
{
	for (uint32_t i = 0; i < w->words; i++)
		bits[w->words + i] &= ~bits[i];
}

/* The keys the cache lacks, each with the union of its VFs' members. */
static int collect_keys(struct rwork *w, const struct vf_dg_members *dg,
			const struct vf_assignment *a)
{
	for (unsigned i = 0; i < w->c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &w->c->vfs[i];
		const char *key = auto_key(v);
		unsigned k;

		if (!key || cached(a, key))
			continue;
		for (k = 0; k < w->nkeys && strcmp(w->keys[k].key, key); k++)
			;
		if (k == w->nkeys) {
			w->keys[k] = (struct rkey){ key, &v->at,
				calloc(2 * w->words, sizeof(uint64_t)), false };
			if (!w->keys[k].bits)
				return -ENOMEM;
			w->nkeys++;
		}
		set_members(w, dg, &v->members, w->keys[k].bits, false);
		set_members(w, dg, &v->both, w->keys[k].bits, false);
		set_members(w, dg, &v->limited, w->keys[k].bits, v->security);
	}
	for (unsigned k = 0; k < w->nkeys; k++)
		full_wins(w, w->keys[k].bits);
	return 0;
}

/* The P_Keys end ports hold that nothing takes, with their holders. */
static int collect_vals(struct rwork *w, const struct vf_held_pkeys *h,
			const bool *taken, int *index)
{
	uint32_t n = h->num_ports < w->f->num_ports ? h->num_ports :
						      w->f->num_ports;

	for (uint32_t p = 0; p < n; p++) {
		if (!end_port(w->f, p))
			continue;
		for (uint32_t e = h->first[p]; e < h->first[p + 1]; e++) {
			uint16_t v = h->keys[e] & PKEY_DEFAULT;
			bool full = h->keys[e] & 0x8000;
			struct rval *grown;

			if (taken[v])
				continue;
			if (index[v] < 0) {
				grown = realloc(w->vals, (w->nvals + 1) *
							 sizeof(*grown));
				if (!grown)
					return -ENOMEM;
				w->vals = grown;
				w->vals[w->nvals] = (struct rval){ v,
					calloc(2 * w->words, sizeof(uint64_t)),
					false };
				if (!w->vals[w->nvals].bits)
					return -ENOMEM;
				index[v] = (int)w->nvals++;
			}
			set_bit(w->vals[index[v]].bits + (full ? 0 : w->words),
				p);
		}
	}
	for (unsigned v = 0; v < w->nvals; v++)
		full_wins(w, w->vals[v].bits);
	return 0;
}

/* Most alike first; then the lower P_Key, then the key's name. */
static int cmp_pair(const void *x, const void *y, void *arg)
{
	const struct rpair *a = x, *b = y;
	const struct rwork *sort_work = arg;
	uint64_t l = (uint64_t)a->inter * b->uni,
		 r = (uint64_t)b->inter * a->uni;

	if (l != r)
		return l > r ? -1 : 1;
	if (sort_work->vals[a->v].pkey != sort_work->vals[b->v].pkey)
		return sort_work->vals[a->v].pkey <
		       sort_work->vals[b->v].pkey ? -1 : 1;
	return strcmp(sort_work->keys[a->k].key, sort_work->keys[b->k].key);
}

/*
 * Every key-value pair more than half alike: ports in both with the same
 * membership (full or limited) over ports in either (Jaccard).
 */
static struct rpair *alike_pairs(const struct rwork *w, unsigned *np)
{
	struct rpair *v = malloc(((size_t)w->nkeys * w->nvals + 1) *
				 sizeof(*v));

	*np = 0;
	for (unsigned k = 0; v && k < w->nkeys; k++)
		for (unsigned j = 0; j < w->nvals; j++) {
			unsigned inter = 0, uni = 0, held = 0;

			const uint64_t *kb = w->keys[k].bits,
				       *vb = w->vals[j].bits;

			for (uint32_t i = 0; i < w->words; i++) {
				uint64_t kf = kb[i], kl = kb[w->words + i],
					 vf = vb[i], vl = vb[w->words + i];

				inter += (unsigned)__builtin_popcountll(
						(kf & vf) | (kl & vl));
				uni += (unsigned)__builtin_popcountll(
						kf | kl | vf | vl);
				held += (unsigned)__builtin_popcountll(vf | vl);
			}
			if (inter * 2 > uni)
				v[(*np)++] = (struct rpair){ k, j, inter, uni,
							     held };
		}
	return v;
}

static int take_pairs(struct rwork *w, struct vf_assignment *a,
		      struct vf_diag *d)
{
	unsigned np;
	struct rpair *pairs = alike_pairs(w, &np);

	if (!pairs)
		return -ENOMEM;
	qsort_r(pairs, np, sizeof(*pairs), cmp_pair, w);
	for (unsigned i = 0; i < np; i++) {
		struct rkey *k = &w->keys[pairs[i].k];
		struct rval *v = &w->vals[pairs[i].v];

		if (k->done || v->done)
			continue;
		if (vf_assignment_set_pkey(a, k->key, v->pkey)) {
			free(pairs);
			return -ENOMEM;
		}
		k->done = v->done = true;
		vf_diag_add(d, VF_DIAG_WARN, k->at,
			    "%s%s%s: automatic P_Key 0x%04x is not in the assignment cache; kept as the fabric holds it (%u end ports hold it, %u of them as its members would)",
			    strcmp(k->key, VF_ASSIGN_SHARED) ?
			    "VirtualFabric '" : "VirtualFabrics without Security",
			    strcmp(k->key, VF_ASSIGN_SHARED) ? k->key : "",
			    strcmp(k->key, VF_ASSIGN_SHARED) ? "'" : "",
			    v->pkey, pairs[i].holders, pairs[i].inter);
	}
	free(pairs);
	return 0;
}

int vf_assign_recover(const struct vf_config *c, const struct vf_fabric *f,
		      const struct vf_dg_members *dg,
		      const struct vf_held_pkeys *h, struct vf_assignment *a,
		      struct vf_diag *d)
{
	struct rwork w = { .c = c, .f = f,
			   .words = (f->num_ports + 63) / 64 + 1 };
	bool *taken = calloc(PKEY_SPACE, sizeof(*taken));
	int *index = malloc(PKEY_SPACE * sizeof(*index));
	int rc = -ENOMEM;

	w.keys = calloc(c->num_vfs + 1, sizeof(*w.keys));
	if (!taken || !index || !w.keys)
		goto out;
	for (unsigned v = 0; v < PKEY_SPACE; v++)
		index[v] = -1;
	mark_taken(c, a, taken);
	rc = collect_keys(&w, dg, a);
	if (!rc && w.nkeys)
		rc = collect_vals(&w, h, taken, index);
	if (!rc && w.nkeys && w.nvals)
		rc = take_pairs(&w, a, d);
out:
	for (unsigned k = 0; w.keys && k < w.nkeys; k++)
		free(w.keys[k].bits);
	for (unsigned v = 0; v < w.nvals; v++)
		free(w.vals[v].bits);
	free(w.keys);
	free(w.vals);
	free(taken);
	free(index);
	return rc;
}

void vf_held_pkeys_free(struct vf_held_pkeys *h)
{
	free(h->first);
	free(h->keys);
	memset(h, 0, sizeof(*h));
}
