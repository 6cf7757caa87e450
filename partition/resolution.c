// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <string.h>

#include "partition/resolution.h"

int vf_resolve(struct vf_resolution *r, const struct vf_config *c,
	       const struct vf_fabric *f, uint32_t sm_port)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->config = c;
	r->fabric = f;
	r->sm_port = sm_port;
	r->sm_node = sm_port == VF_NONE ? VF_NONE : f->ports[sm_port].node;
	rc = vf_dg_resolve(c, f, r->sm_node, &r->dg);
	if (rc)
		vf_resolution_free(r);
	return rc;
}

void vf_resolution_free(struct vf_resolution *r)
{
	vf_dg_members_free(&r->dg);
}
