// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The per-sweep snapshot: see sweep.h.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>

#include <stdlib.h>

#include "plugin/plugin.h"
#include "plugin/sweep.h"
#include "common/log.h"

void vf_sweep_end(struct vf_plugin *p)
{
	struct vf_sweep *s = &p->sweep;

	vf_resolution_free(&s->res);
	vf_fabric_destroy(s->fabric);
	vf_config_release(s->config);
	*s = (struct vf_sweep){ 0 };
}

void vf_sweep_begin(struct vf_plugin *p)
{
	struct vf_sweep *s = &p->sweep;

	vf_sweep_end(p);
	s->live = true;
	s->models0 = vf_fabric_from_subnet_count();
	s->resolutions0 = vf_dg_resolve_count();
	s->config = p->config;
	if (s->config)
		vf_config_hold(s->config);
}

void vf_sweep_counts(const struct vf_plugin *p, unsigned *models,
		     unsigned *resolutions)
{
	const struct vf_sweep *s = &p->sweep;

	*models = s->live ? (unsigned)(vf_fabric_from_subnet_count() -
				       s->models0) : 0;
	*resolutions = s->live ? (unsigned)(vf_dg_resolve_count() -
					    s->resolutions0) : 0;
}

const struct vf_config *vf_sweep_config(const struct vf_plugin *p)
{
	return p->sweep.live ? p->sweep.config : p->config;
}

void vf_sweep_for_routing(struct vf_plugin *p)
{
	if (!p->sweep.live || p->sweep.routed) {
		vf_log(VF_LOG_DEBUG,
		       "sweep: a routing without a heavy sweep: a new snapshot");
		vf_sweep_begin(p);
	}
	/* a model read for an earlier routing (refused) is checked again */
	p->sweep.lids = false;
}

/* Drop the model and what was resolved on it. */
static void drop_model(struct vf_sweep *s)
{
	vf_resolution_free(&s->res);
	s->resolved = false;
	vf_fabric_destroy(s->fabric);
	s->fabric = NULL;
	s->lids = false;
}

struct vf_fabric *vf_sweep_fabric(struct vf_plugin *p, bool lids)
{
	struct vf_sweep *s = &p->sweep;
	int rc;

	if (!s->live)
		vf_sweep_begin(p);
	if (s->fabric && lids && !s->lids) {
		rc = vf_fabric_refresh_from_subnet(s->fabric, &p->osm->subn);
#ifdef VF_TEST_HOOKS
		/* fault injection, in the tests' copy of the plugin only */
		if (getenv("VFABRIC_TEST_SUBNET_CHANGED"))
			rc = 1;
#endif
		if (rc == 1)
			vf_log(VF_LOG_INFO,
			       "sweep: the subnet changed after discovery; the fabric model is built again");
		if (rc)
			drop_model(s);
		else
			s->lids = true;
	}
	if (!s->fabric) {
		s->fabric = vf_fabric_from_subnet(&p->osm->subn, p->descs,
						  lids);
		s->lids = lids;
	}
	return s->fabric;
}

const struct vf_resolution *vf_sweep_resolution(struct vf_plugin *p,
						bool lids)
{
	struct vf_sweep *s = &p->sweep;
	struct vf_fabric *f = vf_sweep_fabric(p, lids);

	if (!f || !s->config)
		return NULL;
	if (!s->resolved) {
		uint32_t sm = vf_fabric_end_port(f,
				cl_ntoh64(p->osm->subn.sm_port_guid));

		if (vf_resolve(&s->res, s->config, f, sm)) {
			vf_log(VF_LOG_ERROR,
			       "ERR VF0814: out of memory resolving the DeviceGroups on the fabric model; what this sweep would derive from them (partitions, SA policy, routing groups, EM) stays as it was");
			return NULL;
		}
		s->resolved = true;
	}
	return &s->res;
}
