// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vFabric QoS classes, bandwidth shares and per-port SL2VL/VLArb tables
 * (see qos.h for the rules).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/assign.h"
#include "partition/qos.h"

#define UNITS (100 / VF_QOS_UNIT)

bool vf_qos_wanted(const struct vf_config *c)
{
	for (unsigned i = 0; c && i < c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];

		if (v->enable && !v->standby && vf_config_vf_qos(c, v)->enable)
			return true;
	}
	return false;
}

unsigned vf_qos_vls_of_code(unsigned code)
{
	static const unsigned vls[] = { 0, 1, 2, 4, 8, 15 };

	return code < sizeof(vls) / sizeof(vls[0]) ? vls[code] : 0;
}

static struct vf_qos_class *class_of_sl(struct vf_qos_prog *q, int sl,
					bool qos)
{
	for (unsigned k = 0; k < q->n; k++)
		if (q->cls[k].sl == sl && q->cls[k].qos == qos)
			return &q->cls[k];
	return NULL;
}

static struct vf_qos_class *new_class(struct vf_qos_prog *q, const char *name,
				      bool pconf, int sl, struct vf_where at)
{
	struct vf_qos_class *k;

	if (q->n >= VF_QOS_MAX_CLASSES)
		return NULL;	/* cannot happen: one class per SL */
	k = &q->cls[q->n++];
	memset(k, 0, sizeof(*k));
	/* a repeated partitions.conf partition is 'NAME#2' inside: NAME */
	snprintf(k->name, sizeof(k->name), "%.*s",
		 pconf ? (int)strcspn(name, "#") : (int)strlen(name), name);
	k->sl = (uint8_t)sl;
	k->mcast_sl = -1;
	k->hoq_life = -1;
	k->at = at;
	return k;
}

/*
 * Classes in VL order: the shared non-QoS one first (VL0, with the SLs
 * nobody uses), then QoS classes in the order their first VF appears.
 */
static void collect(const struct vf_config *c, const struct vf_plan *p,
		    struct vf_qos_prog *q)
{
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < c->num_vfs && i < p->num_vfs; i++) {
			const struct vf_cfg_vf *v = &c->vfs[i];
			const struct vf_qos *s = vf_config_vf_qos(c, v);
			int sl = p->vf_sl[i];
			struct vf_qos_class *k;

			if (sl < 0 || sl >= VF_QOS_NUM_SLS ||
			    s->enable != (pass == 1))
				continue;
			k = class_of_sl(q, sl, s->enable);
			if (!k) {
				k = new_class(q, !s->enable ? "(no QoS)" :
					      v->qos_group ? v->qos_group :
					      v->name, v->from_partitions_conf,
					      sl, v->at);
				if (!k)
					continue;
				k->qos = s->enable;
				if (s->enable) {
					k->high_priority = s->high_priority;
					k->bw_asked = s->high_priority ? 0 :
						      s->bandwidth;
					k->hoq_life = s->hoq_life;
					if (s->mcast_sl >= 0 &&
					    s->mcast_sl != sl)
						k->mcast_sl = s->mcast_sl;
				}
			}
			k->num_vfs++;
		}
}

/*
 * Each low-priority class's target share in percent, as the FM renders
 * it; false when the explicit shares leave too little (message in d).
 */
static bool targets(struct vf_qos_prog *q, unsigned *t, struct vf_diag *d)
{
	unsigned explicit = 0, unset = 0, unset_qos = 0, need, rest, per;
	bool nonqos = q->n && !q->cls[0].qos;
	int first_unset = -1;

	for (unsigned k = 0; k < q->n; k++) {
		const struct vf_qos_class *c = &q->cls[k];

		if (c->high_priority)
			continue;
		if (c->bw_asked) {
			explicit += c->bw_asked;
			continue;
		}
		unset++;
		unset_qos += c->qos;
	}
	need = (nonqos ? VF_QOS_UNIT : 0) + unset_qos;
	if (explicit + need > 100) {
		char who[512];
		size_t n = 0;
		const struct vf_where *at = NULL;

		who[0] = '\0';
		for (unsigned k = 0; k < q->n && n < sizeof(who); k++) {
			const struct vf_qos_class *c = &q->cls[k];

			if (c->high_priority || !c->bw_asked)
				continue;
			at = at ? at : &c->at;
			n += (size_t)snprintf(who + n, sizeof(who) - n,
					      "%s'%s' %u%%", n ? ", " : "",
					      c->name, c->bw_asked);
		}
		/* Standby VFs have no SL here (assign.c): not counted, as
		 * in the FM */
		if (explicit > 100)
			vf_diag_add(d, VF_DIAG_ERROR, at,
				    "QoS: explicit Bandwidth of the active virtual fabrics adds up to %u%% (%s), over 100%%",
				    explicit, who);
		else
			vf_diag_add(d, VF_DIAG_ERROR, at,
				    "QoS: explicit Bandwidth adds up to %u%% (%s); need %u%% available bandwidth for %s%u QoS groups without Bandwidth",
				    explicit, who, need,
				    nonqos ? "the virtual fabrics without QoS (5%) and " :
					     "", unset_qos);
		return false;
	}
	rest = 100 - explicit;
	per = unset ? rest / unset : 0;
	if (nonqos && per < VF_QOS_UNIT && unset > 1)
		per = (rest - VF_QOS_UNIT) / (unset - 1);
	for (unsigned k = 0; k < q->n; k++) {
		const struct vf_qos_class *c = &q->cls[k];

		t[k] = c->high_priority ? 0 : c->bw_asked ? c->bw_asked : per;
		if (!c->high_priority && !c->bw_asked && first_unset < 0)
			first_unset = (int)k;
	}
	/* the non-QoS class (or the first without a share) takes the
	 * remainder of the even split */
	if (first_unset >= 0)
		t[first_unset] = rest - per * (unset - 1);
	return true;
}

/*
 * Apportion UNITS units of VF_QOS_UNIT% over the targets by largest
 * remainder (ties: the earlier class), then give every class with a
 * target at least one unit, taken from the class with the most (ties:
 * the later class).  The result always sums to UNITS.
 */
static void apportion(struct vf_qos_prog *q, const unsigned *t)
{
	unsigned units[VF_QOS_MAX_CLASSES] = { 0 }, rem[VF_QOS_MAX_CLASSES];
	unsigned total = 0, given = 0;

	for (unsigned k = 0; k < q->n; k++)
		total += t[k];
	if (!total)
		return;
	for (unsigned k = 0; k < q->n; k++) {
		units[k] = UNITS * t[k] / total;
		rem[k] = UNITS * t[k] % total;
		given += units[k];
	}
	for (; given < UNITS; given++) {
		unsigned best = 0;

		for (unsigned k = 1; k < q->n; k++)
			if (rem[k] > rem[best])
				best = k;
		units[best]++;
		rem[best] = 0;
	}
	for (unsigned k = 0; k < q->n; k++) {
		unsigned most = 0;

		if (!t[k] || units[k])
			continue;
		for (unsigned j = 0; j < q->n; j++)
			if (units[j] >= units[most])
				most = j;
		units[most]--;
		units[k]++;
	}
	for (unsigned k = 0; k < q->n; k++)
		q->cls[k].bandwidth = units[k] * VF_QOS_UNIT;
}

/*
 * The largest HoqLife asked for: InfiniBand has one HOQLife per port, so
 * all VLs get it.  The largest, because a shorter lifetime than a class
 * asked for would discard its packets early.  A warning when classes
 * disagree (a class without HoqLife gets it too).
 */
static void hoq_life(struct vf_qos_prog *q, struct vf_diag *d)
{
	bool seen = false, differ = false;
	int first = -1;

	q->hoq_life = -1;
	for (unsigned k = 0; k < q->n; k++) {
		int h = q->cls[k].hoq_life;

		if (!q->cls[k].qos)
			continue;
		if (!seen)
			first = h;
		differ |= seen && h != first;
		seen = true;
		if (h > q->hoq_life)
			q->hoq_life = h;
	}
	if (q->hoq_life >= 0 && differ)
		vf_diag_add(d, VF_DIAG_WARN, NULL,
			    "QoS: HoqLife differs between QoS groups; InfiniBand has one HOQLife per port, so every VL gets the largest (%d: 4.096 us * 2^%d%s)",
			    q->hoq_life, q->hoq_life,
			    q->hoq_life >= 20 ? ", infinite" : "");
}

int vf_qos_build(const struct vf_config *c, const struct vf_plan *p,
		 struct vf_qos_prog *q, struct vf_diag *d)
{
	unsigned t[VF_QOS_MAX_CLASSES];

	memset(q, 0, sizeof(*q));
	q->hoq_life = -1;
	collect(c, p, q);
	for (unsigned k = 0; k < q->n; k++) {
		q->active |= q->cls[k].qos;
		q->num_high += q->cls[k].high_priority;
	}
	if (!q->active)
		return 0;
	if (!targets(q, t, d)) {
		q->active = false;
		return -EINVAL;
	}
	apportion(q, t);
	hoq_life(q, d);
	return 0;
}

unsigned vf_qos_check(const struct vf_config *c, struct vf_diag *d)
{
	struct vf_assignment a = { 0 };
	struct vf_plan p = { 0 };
	struct vf_qos_prog q;
	uint16_t *pkeys = calloc(c->num_vfs + 1, sizeof(*pkeys));
	unsigned before = d->errors;

	p.vf_sl = calloc(c->num_vfs + 1, sizeof(*p.vf_sl));
	p.num_vfs = c->num_vfs;
	if (!pkeys || !p.vf_sl)
		d->oom = true;
	else if (!vf_assign(c, &a, pkeys, p.vf_sl, d))
		vf_qos_build(c, &p, &q, d);
	free(pkeys);
	free(p.vf_sl);
	vf_assignment_free(&a);
	return d->errors - before;
}

void vf_qos_vlarb_add(struct vf_qos_port *t, uint8_t vl, unsigned units,
		      bool high, unsigned high_cap)
{
	if (units)
		t->low[t->num_low++] = (struct vf_vlarb_entry){
			vl, (uint8_t)(units * VF_QOS_WEIGHT_PER_UNIT) };
	if (!high)
		return;
	if (t->num_high >= high_cap)
		t->high_dropped++;
	else
		t->high[t->num_high++] = (struct vf_vlarb_entry){
			vl, VF_QOS_HIGH_WEIGHT };
}

void vf_qos_port_tables(const struct vf_qos_prog *q, unsigned vls,
			unsigned low_cap, unsigned high_cap,
			struct vf_qos_port *t)
{
	unsigned units[VF_QOS_MAX_VLS] = { 0 };
	bool high[VF_QOS_MAX_VLS] = { false };

	memset(t, 0, sizeof(*t));
	if (vls > VF_QOS_MAX_VLS)
		vls = VF_QOS_MAX_VLS;
	if (low_cap && low_cap < vls)
		vls = low_cap;
	if (!vls)
		vls = 1;
	t->vls = vls;
	if (q->n > vls)
		t->folded = q->n - vls;
	for (unsigned k = 0; k < q->n; k++) {
		const struct vf_qos_class *c = &q->cls[k];
		uint8_t vl = (uint8_t)(k % vls);

		t->sl2vl[c->sl] = vl;
		if (c->mcast_sl >= 0)
			t->sl2vl[c->mcast_sl] = vl;
		units[vl] += c->bandwidth / VF_QOS_UNIT;
		high[vl] |= c->high_priority;
	}
	for (unsigned vl = 0; vl < vls; vl++)
		vf_qos_vlarb_add(t, (uint8_t)vl, units[vl], high[vl], high_cap);
	t->high_limit = (uint8_t)t->num_high;
}

void vf_qos_summary(const struct vf_qos_prog *q, char *buf, size_t size)
{
	size_t n = 0;

	n += (size_t)snprintf(buf, size, "%u classes:", q->n);
	for (unsigned k = 0; k < q->n && n < size; k++) {
		const struct vf_qos_class *c = &q->cls[k];

		n += (size_t)snprintf(buf + n, size - n, "%s '%s' SL%u",
				      k ? ";" : "", c->name, c->sl);
		if (c->mcast_sl >= 0 && n < size)
			n += (size_t)snprintf(buf + n, size - n, "+%d",
					      c->mcast_sl);
		if (n >= size)
			break;
		if (c->high_priority)
			n += (size_t)snprintf(buf + n, size - n,
					      " VL%u high priority weight %u",
					      k % VF_QOS_MAX_VLS,
					      VF_QOS_HIGH_WEIGHT);
		else
			n += (size_t)snprintf(buf + n, size - n,
					      " VL%u %u%% weight %u",
					      k % VF_QOS_MAX_VLS, c->bandwidth,
					      c->bandwidth / VF_QOS_UNIT *
					      VF_QOS_WEIGHT_PER_UNIT);
	}
	if (n >= size)
		return;
	if (q->hoq_life < 0)
		snprintf(buf + n, size - n,
			 "; other SLs VL0; HoqLife as OpenSM's options");
	else
		snprintf(buf + n, size - n, "; other SLs VL0; HoqLife %d",
			 q->hoq_life);
}
