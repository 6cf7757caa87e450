// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * An SA error status the plugin sends, counted in the metrics by reason
 * (metrics_file=): its own file, so that the SA fuzz target, which links
 * the handlers without sa.c, counts the same way.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_sa.h>

#include "plugin/metrics.h"
#include "plugin/plugin.h"
#include "plugin/sa.h"

/* What an error status says, as a reason label of the metrics. */
static enum vf_metrics_sa_refusal reason_of(ib_net16_t status)
{
	switch (status) {
	case IB_MAD_STATUS_BUSY:
		return VF_MSR_BUSY;
	case IB_MAD_STATUS_UNSUP_CLASS_VER:
		return VF_MSR_BAD_VERSION;
	case IB_MAD_STATUS_UNSUP_METHOD:
	case IB_MAD_STATUS_UNSUP_METHOD_ATTR:
		return VF_MSR_UNSUPPORTED_METHOD;
	case IB_SA_MAD_STATUS_REQ_INVALID:
		return VF_MSR_INVALID_REQUEST;
	case IB_SA_MAD_STATUS_INSUF_COMPS:
		return VF_MSR_INSUFFICIENT_COMPONENTS;
	case IB_SA_MAD_STATUS_INVALID_GID:
		return VF_MSR_INVALID_GID;
	case IB_SA_MAD_STATUS_NO_RESOURCES:
		return VF_MSR_NO_RESOURCES;
	default:
		return VF_MSR_OTHER;
	}
}

void vf_sa_send_error(struct vf_plugin *p, struct osm_madw *madw,
		      uint16_t status, int reason)
{
	vf_metrics_sa_refused(p->metrics, reason < 0 ? reason_of(status) :
			      (enum vf_metrics_sa_refusal)reason);
	osm_sa_send_error(&p->osm->sa, madw, status);
}
