// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <stdio.h>
#include <string.h>

#include "partition/dgresolve.h"
#include "partition/query.h"
#include "partition/vftraffic.h"

/* Each active VF's weight (see vftraffic.h). */
static void weigh(const struct vf_config *c, struct vf_traffic *t,
		  const unsigned *vf_of)
{
	unsigned asked = 0, unasked = 0;

	for (unsigned k = 0; k < t->num_classes; k++) {
		const struct vf_qos *q = vf_config_vf_qos(c, &c->vfs[vf_of[k]]);

		if (q->enable && q->bandwidth)
			asked += q->bandwidth;
		else
			unasked++;
	}
	for (unsigned k = 0; k < t->num_classes; k++) {
		const struct vf_qos *q = vf_config_vf_qos(c, &c->vfs[vf_of[k]]);
		unsigned rest = asked < 100 ? 100 - asked : 0;

		if (!asked)
			t->cls[k].weight = 1;
		else if (q->enable && q->bandwidth)
			t->cls[k].weight = q->bandwidth;
		else
			t->cls[k].weight = rest / unasked ? rest / unasked : 1;
	}
}

int vf_traffic_build(const struct vf_resolution *r, const uint16_t *vf_pkey,
		     unsigned num_vfs, struct vf_traffic *t)
{
	const struct vf_config *c = r->config;
	const struct vf_fabric *f = r->fabric;
	unsigned vf_of[VF_CFG_MAX_VFS + 1], n = 0;
	int rc;

	for (unsigned i = 0; i < c->num_vfs && i < num_vfs; i++)
		if (vf_pkey[i])
			vf_of[n++] = i;
	rc = vf_traffic_init(t, f, n);
	if (rc) {
		vf_traffic_free(t);
		return rc;
	}
	for (unsigned k = 0; k < n; k++) {
		struct vf_traffic_class *cls = &t->cls[k];

		snprintf(cls->name, sizeof(cls->name), "%s",
			 c->vfs[vf_of[k]].name);
		cls->pkey = vf_pkey[vf_of[k]];
		cls->management = cls->pkey == VF_PKEY_DEFAULT;
		for (uint32_t port = 0; port < f->num_ports; port++) {
			uint8_t mem;

			/* CA ports only: switch LIDs carry management */
			if (vf_is_switch(&f->nodes[f->ports[port].node]))
				continue;
			mem = vf_vf_membership(c, &r->dg, vf_of[k], port);
			if (mem)
				vf_traffic_set(t, port, k,
					       mem == VF_MEMBER_LIMITED ?
					       VF_TRAFFIC_LIMITED :
					       VF_TRAFFIC_FULL);
		}
	}
	weigh(c, t, vf_of);
	return 0;
}
