// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* vFabric QoS with VL layers: see qoslayers.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "partition/qoslayers.h"

/* The SLs classes (and their multicast) take. */
static uint16_t class_sls(const struct vf_qos_prog *q)
{
	uint16_t used = 0;

	for (unsigned k = 0; k < q->n; k++) {
		used |= (uint16_t)(1u << q->cls[k].sl);
		if (q->cls[k].mcast_sl >= 0)
			used |= (uint16_t)(1u << q->cls[k].mcast_sl);
	}
	return used;
}

int vf_qos_layering(const struct vf_qos_prog *q, unsigned layers,
		    unsigned vls, struct vf_qos_layering *y)
{
	uint16_t used = class_sls(q);
	uint8_t extra[VF_QOS_MAX_CLASSES][VF_QOS_MAX_LAYERS];
	unsigned next = VF_QOS_NUM_SLS;

	memset(y, 0, sizeof(*y));
	memset(y->sl, VF_QOS_NO_SL, sizeof(y->sl));
	y->layers = layers;
	if (!layers || layers > VF_QOS_MAX_LAYERS || layers > vls || !q->n)
		return -ERANGE;
	y->groups = vls / layers < q->n ? vls / layers : q->n;
	/* each group's layers 1.. take free SLs, highest first */
	for (unsigned g = 0; g < y->groups; g++)
		for (unsigned l = 1; l < layers; l++) {
			while (next > 0 && (used & (1u << (next - 1))))
				next--;
			if (!next)
				return -ERANGE;
			extra[g][l] = (uint8_t)--next;
			used |= (uint16_t)(1u << next);
		}
	for (unsigned k = 0; k < q->n; k++) {
		const struct vf_qos_class *c = &q->cls[k];
		unsigned g = k % y->groups;

		y->group[k] = (uint8_t)g;
		y->shared |= k >= y->groups;
		y->sl[c->sl][0] = c->sl;
		y->vl_of_sl[c->sl] = (uint8_t)(g * layers);
		if (c->mcast_sl >= 0)
			y->vl_of_sl[c->mcast_sl] = (uint8_t)(g * layers);
		for (unsigned l = 1; l < layers; l++) {
			y->sl[c->sl][l] = extra[g][l];
			y->vl_of_sl[extra[g][l]] = (uint8_t)(g * layers + l);
		}
	}
	return 0;
}

void vf_qos_layered_tables(const struct vf_qos_prog *q,
			   const struct vf_qos_layering *y, unsigned high_cap,
			   struct vf_qos_port *t)
{
	unsigned units[VF_QOS_MAX_CLASSES] = { 0 };
	bool high[VF_QOS_MAX_CLASSES] = { false };

	/* folded stays 0: vf_qos_layering_shared() says who shares */
	memset(t, 0, sizeof(*t));
	t->vls = y->groups * y->layers;
	memcpy(t->sl2vl, y->vl_of_sl, sizeof(t->sl2vl));
	for (unsigned k = 0; k < q->n; k++) {
		units[y->group[k]] += q->cls[k].bandwidth / VF_QOS_UNIT;
		high[y->group[k]] |= q->cls[k].high_priority;
	}
	for (unsigned g = 0; g < y->groups; g++)
		for (unsigned l = 0; l < y->layers; l++)
			vf_qos_vlarb_add(t, (uint8_t)(g * y->layers + l),
					 units[g], high[g], high_cap);
	t->high_limit = (uint8_t)t->num_high;
}

/*
 * " (VFs a, b)": the VFs vf_qos_build() put in class k (by their SL and
 * whether they have QoS); nothing without a configuration and plan.
 */
static size_t class_vfs(const struct vf_config *c, const struct vf_plan *p,
			const struct vf_qos_class *k, char *buf, size_t size)
{
	size_t len = 0;
	unsigned n = 0;

	if (!c || !p || !size)
		return 0;
	for (unsigned i = 0; i < c->num_vfs && i < p->num_vfs && len < size;
	     i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];

		if (p->vf_sl[i] != k->sl ||
		    vf_config_vf_qos(c, v)->enable != k->qos)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					n++ ? ", " : " (VFs ", v->name);
	}
	if (n && len < size)
		len += (size_t)snprintf(buf + len, size - len, ")");
	return len < size ? len : size - 1;
}

const char *vf_qos_layering_shared(const struct vf_qos_prog *q,
				   const struct vf_qos_layering *y,
				   const struct vf_config *c,
				   const struct vf_plan *p,
				   unsigned i, char *buf, size_t size)
{
	unsigned found = 0;

	for (unsigned g = 0; g < y->groups; g++) {
		unsigned member[VF_QOS_MAX_CLASSES], n = 0, share = 0;
		size_t len = 0;

		for (unsigned k = 0; k < q->n; k++)
			if (y->group[k] == g)
				member[n++] = k;
		if (n < 2 || found++ != i)
			continue;
		for (unsigned m = 0; m < n && len < size; m++) {
			share += q->cls[member[m]].bandwidth;
			len += (size_t)snprintf(buf + len, size - len, "%s'%s'",
						!m ? "" : m + 1 == n ? " and " :
						", ", q->cls[member[m]].name);
			if (len < size)
				len += class_vfs(c, p, &q->cls[member[m]],
						 buf + len, size - len);
		}
		if (len < size)
			snprintf(buf + len, size - len,
				 " share VLs %u-%u (their bandwidth shares add up: %u%%)",
				 g * y->layers, g * y->layers + y->layers - 1,
				 share);
		return buf;
	}
	return NULL;
}

void vf_qos_layering_summary(const struct vf_qos_prog *q,
			     const struct vf_qos_layering *y, char *buf,
			     size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "%u classes over %u VL layers:",
				    q->n, y->layers);

	for (unsigned k = 0; k < q->n && n < size; k++) {
		const struct vf_qos_class *c = &q->cls[k];
		unsigned vl = y->group[k] * y->layers;

		n += (size_t)snprintf(buf + n, size - n, "%s '%s' SLs",
				      k ? ";" : "", c->name);
		for (unsigned l = 0; l < y->layers && n < size; l++)
			n += (size_t)snprintf(buf + n, size - n, "%s%u",
					      l ? "," : " ", y->sl[c->sl][l]);
		if (n < size)
			n += (size_t)snprintf(buf + n, size - n,
					      " on VLs %u-%u", vl,
					      vl + y->layers - 1);
	}
}
