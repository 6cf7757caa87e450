// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#define _GNU_SOURCE	/* getline, open_memstream, qsort_r */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/assign.h"
#include "partition/filewrite.h"

#define PKEY_DEFAULT 0x7fff
#define NUM_SLS 16

static struct vf_assigned *find(struct vf_assignment *a, const char *key)
{
	for (unsigned i = 0; i < a->n; i++)
		if (!strcmp(a->v[i].key, key))
			return &a->v[i];
	return NULL;
}

/* The entry for key, added empty when new; NULL on ENOMEM. */
static struct vf_assigned *entry(struct vf_assignment *a, const char *key)
{
	struct vf_assigned *e = find(a, key), *grown;

	if (e)
		return e;
	grown = realloc(a->v, (a->n + 1) * sizeof(*a->v));
	if (!grown)
		return NULL;
	a->v = grown;
	e = &a->v[a->n];
	*e = (struct vf_assigned){ strdup(key), 0, -1 };
	if (!e->key)
		return NULL;
	a->n++;
	return e;
}

int vf_assignment_set_pkey(struct vf_assignment *a, const char *key,
			   uint16_t pkey)
{
	struct vf_assigned *e = entry(a, key);

	if (!e)
		return -ENOMEM;
	e->pkey = pkey;
	a->changed = true;
	return 0;
}

/* One "pkey 0x0002 NAME" or "sl 3 NAME" line; -EINVAL if malformed. */
static int load_line(struct vf_assignment *a, char *line)
{
	char kind[8], *name;
	unsigned long v;
	int used = 0;
	struct vf_assigned *e;

	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "%7s %li %n", kind, (long *)&v, &used) != 2 || !used)
		return -EINVAL;
	name = line + used;
	if (!*name || strlen(name) > VF_CFG_MAX_NAME + 16)
		return -EINVAL;
	if (!strcmp(kind, "pkey") && v && v < PKEY_DEFAULT) {
		e = entry(a, name);
		if (!e)
			return -ENOMEM;
		e->pkey = (uint16_t)v;
	} else if (!strcmp(kind, "sl") && v < NUM_SLS) {
		e = entry(a, name);
		if (!e)
			return -ENOMEM;
		e->sl = (int)v;
	} else {
		return -EINVAL;
	}
	return 0;
}

int vf_assignment_load(struct vf_assignment *a, const char *path,
		       struct vf_diag *d)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int rc = 0;

	memset(a, 0, sizeof(*a));
	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0 && rc != -ENOMEM) {
		struct vf_where at = { path, ++lineno };

		if (line[0] == '#' || line[0] == '\n')
			continue;
		rc = load_line(a, line);
		if (rc == -EINVAL)
			vf_diag_add(d, VF_DIAG_WARN, &at,
				    "not a remembered P_Key or SL; ignored");
	}
	free(line);
	fclose(f);
	return rc == -ENOMEM ? rc : 0;
}

int vf_assignment_save(const struct vf_assignment *a, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f)
		return -errno;
	fprintf(f, "# opensm-vfabric: P_Keys and SLs assigned to virtual fabrics that do not set them.\n# Kept across restarts; delete to assign afresh.\n");
	for (unsigned i = 0; i < a->n; i++) {
		if (a->v[i].pkey)
			fprintf(f, "pkey 0x%04x %s\n", a->v[i].pkey,
				a->v[i].key);
		if (a->v[i].sl >= 0)
			fprintf(f, "sl %d %s\n", a->v[i].sl, a->v[i].key);
	}
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	rc = vf_file_replace(path, text, len);
	free(text);
	return rc;
}

void vf_assignment_free(struct vf_assignment *a)
{
	for (unsigned i = 0; i < a->n; i++)
		free(a->v[i].key);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* The key a VF's automatic P_Key is remembered under, or NULL. */
static const char *pkey_key(const struct vf_cfg_vf *v)
{
	if (!v->enable || v->standby || v->pkey >= 0)
		return NULL;
	return v->security ? v->name : VF_ASSIGN_SHARED;
}

/*
 * The key a VF's automatic SL is remembered under, or NULL when the SL
 * is explicit: the QOSGroup's name (prefixed, as names of different kinds
 * may be equal), the VF's, or the shared one of VFs without QoS.
 */
static const char *sl_key(const struct vf_config *c,
			  const struct vf_cfg_vf *v, char *buf, size_t size)
{
	const struct vf_qos *q = vf_config_vf_qos(c, v);

	if (!v->enable || v->standby || (q->enable && q->base_sl >= 0))
		return NULL;
	if (!q->enable)
		return VF_ASSIGN_SHARED;
	if (v->qos_group) {
		snprintf(buf, size, "QOSGroup:%s", v->qos_group);
		return buf;
	}
	return v->name;
}

/*
 * Where a new P_Key's search starts: a hash of the key (FNV-1a), so that
 * an SM with another history (a standby taking over with an empty cache)
 * gives a VF the same P_Key whatever the order VFs were added in.
 */
static unsigned pkey_start(const char *key)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *s = (const unsigned char *)key; *s; s++)
		h = (h ^ *s) * 16777619u;
	return 1 + h % (PKEY_DEFAULT - 1);
}

/*
 * The value key keeps (pass 0: remembered, if free) or gets (pass 1):
 * SLs the lowest free, as the FM; P_Keys the first free from the key's
 * hash on (1..0x7ffe, wrapping).
 */
static int pick(struct vf_assignment *a, const char *key, bool sl, int pass,
		bool *used, unsigned limit)
{
	struct vf_assigned *e = entry(a, key);
	unsigned start = sl ? 0 : pkey_start(key), span = sl ? limit :
							    limit - 1;
	int old;

	if (!e)
		return -ENOMEM;
	old = sl ? e->sl : e->pkey;
	if (pass == 0)
		return old > 0 || (sl && old == 0) ?
		       (used[old] ? -1 : old) : -1;
	for (unsigned i = 0; i < span; i++) {
		unsigned v = sl ? i : 1 + (start - 1 + i) % span;

		if (!used[v]) {
			if (sl)
				e->sl = (int)v;
			else
				e->pkey = (uint16_t)v;
			a->changed = true;
			return (int)v;
		}
	}
	return -ENOSPC;
}

static void mark_explicit(const struct vf_config *c, bool *pkeys, bool *sls)
{
	pkeys[0] = pkeys[PKEY_DEFAULT] = true;
	for (unsigned i = 0; i < c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];
		const struct vf_qos *q = vf_config_vf_qos(c, v);

		if (!v->enable || v->standby)
			continue;
		if (v->pkey >= 0)
			pkeys[v->pkey] = true;
		if (q->enable && q->base_sl >= 0)
			sls[q->base_sl] = true;
		if (q->enable && q->mcast_sl >= 0)
			sls[q->mcast_sl] = true;
	}
}

/* The key of c->vfs[i] for a P_Key (sl false) or an SL, or NULL. */
static const char *key_of(const struct vf_config *c, unsigned i, bool sl,
			  char *buf, size_t size)
{
	return sl ? sl_key(c, &c->vfs[i], buf, size) : pkey_key(&c->vfs[i]);
}

struct order_ctx {
	const struct vf_config *c;
};

/* P_Keys: by key name (strcmp), then config order. */
static int cmp_by_key(const void *x, const void *y, void *arg)
{
	const struct order_ctx *o = arg;
	unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;
	const char *ka = pkey_key(&o->c->vfs[a]), *kb = pkey_key(&o->c->vfs[b]);
	int r = strcmp(ka ? ka : "", kb ? kb : "");

	return r ? r : a < b ? -1 : a > b;
}

/*
 * The order VFs get values in.  SLs: the config's, as the FM's lowest
 * free SL.  P_Keys: by key name, so that two names whose hashes collide
 * resolve the same way whatever order the file lists them in (which of
 * them an SM with a history gave the first value is in its cache, or
 * recovered from the fabric: recover.h).
 */
static unsigned *vf_order(const struct vf_config *c, bool sl)
{
	unsigned *o = malloc((c->num_vfs + 1) * sizeof(*o));
	struct order_ctx ctx = { c };

	for (unsigned i = 0; o && i < c->num_vfs; i++)
		o[i] = i;
	if (o && !sl)
		qsort_r(o, c->num_vfs, sizeof(*o), cmp_by_key, &ctx);
	return o;
}

/*
 * Pass 0 gives every key its remembered value if still free, pass 1 a
 * new value to the rest: a new VF cannot take the value another one
 * had.  A key already given a value in this run (VFs sharing it) reuses
 * it.
 */
static unsigned assign_kind(const struct vf_config *c, struct vf_assignment *a,
			    bool sl, bool *used, int *got, struct vf_diag *d)
{
	unsigned errors = 0, *order = vf_order(c, sl);
	char buf[VF_CFG_MAX_NAME + 16], buf2[VF_CFG_MAX_NAME + 16];

	if (!order) {
		d->oom = true;
		return 1;
	}
	for (int pass = 0; pass < 2; pass++)
		for (unsigned n = 0; n < c->num_vfs; n++) {
			unsigned i = order[n];
			const char *key = key_of(c, i, sl, buf, sizeof(buf));
			int v;

			if (!key || got[i] >= 0)
				continue;
			for (unsigned j = 0; j < c->num_vfs; j++) {
				const char *k2 = key_of(c, j, sl, buf2,
							sizeof(buf2));

				if (got[i] < 0 && k2 && !strcmp(k2, key) &&
				    got[j] >= 0)
					got[i] = got[j];
			}
			if (got[i] >= 0)
				continue;
			v = pick(a, key, sl, pass, used,
				 sl ? NUM_SLS : PKEY_DEFAULT);
			if (v >= 0) {
				used[v] = true;
				got[i] = v;
			} else if (pass == 1) {
				errors++;
				char label[96];

				vf_diag_add(d, VF_DIAG_ERROR, &c->vfs[i].at,
					    "%s: %s",
					    vf_config_vf_label(&c->vfs[i], label,
							       sizeof(label)),
					    v == -ENOMEM ?
					    "out of memory" : sl ?
					    "no SL left to assign (all 16 in use)" :
					    "no P_Key left to assign");
			}
		}
	free(order);
	return errors;
}

unsigned vf_assign(const struct vf_config *c, struct vf_assignment *a,
		   uint16_t *out_pkey, int *out_sl, struct vf_diag *d)
{
	bool *pkeys = calloc(PKEY_DEFAULT + 1, sizeof(*pkeys));
	bool sls[NUM_SLS] = { false };
	int *got_pkey = malloc((c->num_vfs + 1) * sizeof(int));
	int *got_sl = malloc((c->num_vfs + 1) * sizeof(int));
	unsigned errors = 0;

	if (!pkeys || !got_pkey || !got_sl) {
		d->oom = true;
		errors = 1;
		goto out;
	}
	mark_explicit(c, pkeys, sls);
	for (unsigned i = 0; i < c->num_vfs; i++)
		got_pkey[i] = got_sl[i] = -1;
	errors += assign_kind(c, a, false, pkeys, got_pkey, d);
	errors += assign_kind(c, a, true, sls, got_sl, d);
	for (unsigned i = 0; i < c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];
		const struct vf_qos *q = vf_config_vf_qos(c, v);
		bool on = v->enable && !v->standby;

		out_pkey[i] = !on ? 0 : v->pkey >= 0 ? (uint16_t)v->pkey :
			      got_pkey[i] >= 0 ? (uint16_t)got_pkey[i] : 0;
		out_sl[i] = !on ? -1 : q->enable && q->base_sl >= 0 ?
			    q->base_sl : got_sl[i];
	}
out:
	free(pkeys);
	free(got_pkey);
	free(got_sl);
	return errors;
}
