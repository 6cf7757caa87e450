// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#define _GNU_SOURCE	/* vasprintf */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/query.h"
#include "partition/values.h"

static bool sid_rule_matches(const struct vf_sid_rule *r, uint64_t sid)
{
	switch (r->kind) {
	case VF_MATCH_EXACT:
		return sid == r->a;
	case VF_MATCH_RANGE:
		return sid >= r->a && sid <= r->b;
	case VF_MATCH_MASKED:
		return (sid & r->b) == (r->a & r->b);
	}
	return false;
}

/* Does app (or one it includes) list sid, or select unmatched SIDs? */
static bool app_lists_sid(const struct vf_config *c, const struct vf_app *a,
			  uint64_t sid, unsigned depth)
{
	if (!a || depth > c->num_apps)
		return false;
	for (unsigned i = 0; i < a->num_sids; i++)
		if (sid_rule_matches(&a->sids[i], sid))
			return true;
	for (unsigned i = 0; i < a->includes.n; i++)
		if (app_lists_sid(c, vf_config_app(c, a->includes.v[i]), sid,
				  depth + 1))
			return true;
	return false;
}

static bool app_unmatched_sid(const struct vf_config *c,
			      const struct vf_app *a, unsigned depth)
{
	if (!a || depth > c->num_apps)
		return false;
	if (a->select & VF_APP_UNMATCHED_SID)
		return true;
	for (unsigned i = 0; i < a->includes.n; i++)
		if (app_unmatched_sid(c, vf_config_app(c, a->includes.v[i]),
				      depth + 1))
			return true;
	return false;
}

int vf_app_sid_match(const struct vf_config *c, const struct vf_app *a,
		     uint64_t sid)
{
	return app_lists_sid(c, a, sid, 0) ? 2 :
	       app_unmatched_sid(c, a, 0) ? 1 : 0;
}

/* VF v's applications: 2 list sid explicitly, 1 take it as unmatched. */
static int vf_takes_sid(const struct vf_config *c, const struct vf_cfg_vf *v,
			uint64_t sid)
{
	int how = 0;

	for (unsigned i = 0; i < v->apps.n && how < 2; i++) {
		const struct vf_app *a = vf_config_app(c, v->apps.v[i]);

		if (app_lists_sid(c, a, sid, 0))
			how = 2;
		else if (app_unmatched_sid(c, a, 0))
			how = 1;
	}
	return how;
}

static bool mgid_rule_matches(const struct vf_mgid_rule *r,
			      const struct vf_mgid *m)
{
	switch (r->kind) {
	case VF_MATCH_EXACT:
		return m->hi == r->a.hi && m->lo == r->a.lo;
	case VF_MATCH_RANGE:
		return (m->hi > r->a.hi || (m->hi == r->a.hi && m->lo >= r->a.lo)) &&
		       (m->hi < r->b.hi || (m->hi == r->b.hi && m->lo <= r->b.lo));
	case VF_MATCH_MASKED:
		return (m->hi & r->b.hi) == r->a.hi &&
		       (m->lo & r->b.lo) == r->a.lo;
	}
	return false;
}

/* 2: app (or one it includes) lists MGID m; 1: takes it as unmatched. */
static int app_takes_mgid(const struct vf_config *c, const struct vf_app *a,
			  const struct vf_mgid *m, unsigned depth)
{
	int how = 0;

	if (!a || depth > c->num_apps)
		return 0;
	for (unsigned i = 0; i < a->num_mgids; i++)
		if (mgid_rule_matches(&a->mgids[i], m))
			return 2;
	if (a->select & VF_APP_UNMATCHED_MGID)
		how = 1;
	for (unsigned i = 0; i < a->includes.n && how < 2; i++) {
		int inc = app_takes_mgid(c, vf_config_app(c, a->includes.v[i]),
					 m, depth + 1);

		how = inc > how ? inc : how;
	}
	return how;
}

int vf_vf_takes_mgid(const struct vf_config *c, const struct vf_cfg_vf *v,
		     const struct vf_mgid *m)
{
	int how = 0;

	for (unsigned i = 0; i < v->apps.n && how < 2; i++) {
		int a = app_takes_mgid(c, vf_config_app(c, v->apps.v[i]), m, 0);

		how = a > how ? a : how;
	}
	return how;
}

static bool in_groups(const struct vf_config *c, const struct vf_dg_members *m,
		      const struct vf_names *l, uint32_t p)
{
	for (unsigned i = 0; i < l->n; i++) {
		int g = vf_config_dg_index(c, l->v[i]);

		if (g >= 0 && vf_dg_has(m, (unsigned)g, p))
			return true;
	}
	return false;
}

uint8_t vf_vf_membership(const struct vf_config *c,
			 const struct vf_dg_members *m, unsigned i,
			 uint32_t p)
{
	const struct vf_cfg_vf *v = &c->vfs[i];

	if (in_groups(c, m, &v->members, p) || in_groups(c, m, &v->both, p))
		return VF_MEMBER_FULL;
	if (in_groups(c, m, &v->limited, p))
		return v->security ? VF_MEMBER_LIMITED : VF_MEMBER_FULL;
	return VF_MEMBER_NONE;
}

int vf_vf_members_build(const struct vf_config *c,
			const struct vf_dg_members *m, const uint32_t *slots,
			uint32_t n, uint8_t **out)
{
	uint8_t *rows = calloc((size_t)n * c->num_vfs + 1, 1);

	*out = rows;
	if (!rows)
		return -ENOMEM;
	for (unsigned i = 0; i < c->num_vfs; i++) {
		if (!c->vfs[i].enable)
			continue;
		for (uint32_t r = 0; r < n; r++)
			rows[(size_t)r * c->num_vfs + i] =
				vf_vf_membership(c, m, i, slots[r]);
	}
	return 0;
}

static uint8_t member_of(const struct vf_path_policy *p, unsigned vf,
			 uint32_t row)
{
	return p->member[(size_t)row * p->c->num_vfs + vf];
}

static int say(struct vf_path_answers *a, bool explain, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int say(struct vf_path_answers *a, bool explain, const char *fmt, ...)
{
	va_list ap;
	char *line;
	int rc;

	if (!explain)
		return 0;
	va_start(ap, fmt);
	rc = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	rc = vf_names_add(&a->trace, line);
	free(line);
	return rc;
}

static unsigned log2_up(unsigned v)
{
	unsigned e = 0;

	while ((1u << e) < v)
		e++;
	return e;
}

/* The lower of two limits where 0 means none. */
static unsigned lower(unsigned a, unsigned b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* Fold VF i into the answer of its (P_Key, SL), or start one. */
/* A VF as messages name it; only worked out when explaining (the SA's
 * hot path never is). */
static const char *label_if(bool explain, const struct vf_cfg_vf *v,
			    char *buf, size_t size)
{
	return explain ? vf_config_vf_label(v, buf, size) : "";
}

static int fold(const struct vf_path_policy *p, unsigned i,
		struct vf_path_answers *a, bool explain)
{
	char l1[96], l2[96];
	const struct vf_config *c = p->c;
	const struct vf_cfg_vf *v = &c->vfs[i];
	const struct vf_qos *q = vf_config_vf_qos(c, v);
	unsigned life = q->pkt_lifetime_mult ? log2_up(q->pkt_lifetime_mult) :
					       0;
	struct vf_path_answer *grown;

	for (unsigned k = 0; k < a->n; k++) {
		struct vf_path_answer *x = &a->v[k];

		if (x->pkey != p->vf_pkey[i] || x->sl != p->vf_sl[i])
			continue;
		x->mtu = lower(x->mtu, v->max_mtu);
		x->rate = vf_rate_lower(x->rate, v->max_rate);
		if (life > x->life_exp)
			x->life_exp = life;
		return say(a, explain,
			   "%s: same P_Key and SL as %s: folded into its answer",
			   label_if(explain, v, l1, sizeof(l1)),
			   label_if(explain, &c->vfs[x->vf], l2,
				    sizeof(l2)));
	}
	grown = realloc(a->v, (a->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	a->v = grown;
	a->v[a->n++] = (struct vf_path_answer){
		i, p->vf_pkey[i], p->vf_sl[i], v->max_mtu, v->max_rate, life };
	return say(a, explain, "%s: answers with P_Key 0x%04x, SL %d",
		   label_if(explain, v, l1, sizeof(l1)), p->vf_pkey[i],
		   p->vf_sl[i]);
}

/* Why VF i cannot answer q (NULL: it can); scratch for the text. */
static const char *refuse(const struct vf_path_policy *p,
			  const struct vf_path_query *q, unsigned i,
			  char *buf, size_t size)
{
	uint8_t src = member_of(p, i, q->src);
	uint8_t dst = member_of(p, i, q->dst);

	if (q->pkey >= 0 && q->pkey != p->vf_pkey[i]) {
		snprintf(buf, size, "its P_Key 0x%04x is not the query's 0x%04x",
			 p->vf_pkey[i], q->pkey);
		return buf;
	}
	if (q->sl >= 0 && q->sl != p->vf_sl[i]) {
		snprintf(buf, size, "its SL %d is not the query's %d",
			 p->vf_sl[i], q->sl);
		return buf;
	}
	if (src == VF_MEMBER_NONE || dst == VF_MEMBER_NONE)
		return src == VF_MEMBER_NONE ? "the source is no member" :
					       "the destination is no member";
	if (q->src != q->dst && src != VF_MEMBER_FULL &&
	    dst != VF_MEMBER_FULL)
		return "both ports are limited members";
	return NULL;
}

/*
 * A stock partitions.conf: stock OpenSM answers with one P_Key, the first
 * the two ports share (one of them full) in the order it keeps P_Keys, by
 * their value in network byte order (osm_physp_find_common_pkey()); a
 * port reaches itself only through a partition it is a full member of.
 */
static unsigned stock_order(uint16_t pkey)
{
	return (unsigned)((pkey & 0xff) << 8 | pkey >> 8);
}

static void stock_pick(const struct vf_path_policy *p,
		       const struct vf_path_query *q, struct vf_path_answers *a)
{
	unsigned best = a->n;

	for (unsigned k = 0; k < a->n; k++) {
		if (q->src == q->dst &&
		    member_of(p, a->v[k].vf, q->src) != VF_MEMBER_FULL)
			continue;
		if (best == a->n || stock_order(a->v[k].pkey) <
				    stock_order(a->v[best].pkey))
			best = k;
	}
	if (best < a->n)
		a->v[0] = a->v[best];
	a->n = best < a->n;
}

int vf_path_vfs(const struct vf_path_policy *p, const struct vf_path_query *q,
		bool explain, struct vf_path_answers *a)
{
	const struct vf_config *c = p->c;
	bool explicit_seen = false;
	unsigned *cand = malloc((c->num_vfs + 1) * sizeof(*cand)), n = 0;
	char buf[128], label[96];
	int rc = 0;

	memset(a, 0, sizeof(*a));
	if (!cand)
		return -ENOMEM;
	/* the ServiceID picks the VFs first, over the whole fabric */
	for (unsigned i = 0; i < c->num_vfs && !rc; i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];
		int how;

		if (!p->vf_pkey[i])
			continue;	/* disabled or standby */
		how = q->sid_given ? vf_takes_sid(c, v, q->sid) : 2;
		if (how == 2 && q->sid_given && !explicit_seen) {
			if (n)
				rc = say(a, explain,
					 "%s lists ServiceID 0x%016llx: VFs taking it only as unmatched are set aside",
					 label_if(explain, v, label, sizeof(label)),
					 (unsigned long long)q->sid);
			n = 0;
			explicit_seen = true;
		}
		if (how == 0 || (explicit_seen && how == 1)) {
			rc = rc ? rc : say(a, explain,
				"%s: %s ServiceID 0x%016llx",
				label_if(explain, v, label, sizeof(label)),
				how ? "another VF lists" :
				"its applications do not take",
				(unsigned long long)q->sid);
			continue;
		}
		cand[n++] = i;
	}
	for (unsigned k = 0; k < n && !rc; k++) {
		const char *why = refuse(p, q, cand[k], buf, sizeof(buf));

		rc = why ? say(a, explain, "%s: not used: %s",
			       label_if(explain, &c->vfs[cand[k]], label,
				       sizeof(label)), why) :
			   fold(p, cand[k], a, explain);
	}
	if (!rc && p->c->stock_file && a->n) {
		stock_pick(p, q, a);
		rc = say(a, explain, "a stock partitions.conf: one P_Key, as OpenSM picks it");
	}
	if (!rc && !a->n)
		rc = say(a, explain, "no virtual fabric answers: no path record");
	free(cand);
	return rc;
}

void vf_path_answers_free(struct vf_path_answers *a)
{
	for (unsigned i = 0; i < a->trace.n; i++)
		free(a->trace.v[i]);
	free(a->trace.v);
	free(a->v);
	memset(a, 0, sizeof(*a));
}
