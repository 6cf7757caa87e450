/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * metrics_file=PATH: the figures the plugin logs (route check, P_Key
 * verification, SA refusals, AR and EM passes, configuration state) as a
 * file in Prometheus' text exposition format, for node_exporter's textfile
 * collector.  Rewritten atomically after each sweep reaches SUBNET UP and
 * after an EM pass that changed something; see docs/metrics.md.
 *
 * Pure C (no OpenSM headers).  The SA counters are atomics, bumped from
 * the dispatcher threads; everything else is set under the metrics' own
 * lock, by the sweeper or the EM's thread.  Every function takes NULL (no
 * metrics_file) and then does nothing.
 */
#ifndef VF_METRICS_H
#define VF_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "routing/routecheck.h"

struct vf_metrics;

/* SA attributes the plugin answers itself. */
enum vf_metrics_sa_attr {
	VF_MSA_PATH_RECORD,
	VF_MSA_MULTIPATH_RECORD,
	VF_MSA_SLVL_RECORD,
	VF_MSA_LFT_RECORD,
	VF_MSA_NUM_ATTRS
};

/* Why an SA request got an error status from the plugin. */
enum vf_metrics_sa_refusal {
	VF_MSR_BUSY,			/* sa_record_budget spent */
	VF_MSR_BAD_VERSION,		/* SA class version not 2 */
	VF_MSR_UNSUPPORTED_METHOD,
	VF_MSR_INVALID_REQUEST,		/* malformed, no requester port */
	VF_MSR_INSUFFICIENT_COMPONENTS,
	VF_MSR_INVALID_GID,
	VF_MSR_NO_RESOURCES,		/* out of memory */
	VF_MSR_MCMEMBER_POLICY,		/* a join the VFs do not allow */
	VF_MSR_SERVICE_POLICY,		/* a ServiceRecord the VFs refuse */
	VF_MSR_OTHER,
	VF_MSR_NUM_REASONS
};

/* Requests the crash guard answered short of what they asked. */
enum vf_metrics_sa_guarded {
	VF_MSG_PORT_BEYOND_SWITCH,	/* SLtoVL: a port number past it */
	VF_MSG_SWITCH_UNROUTED,		/* LFTRecord: no table yet */
	VF_MSG_NUM
};

/* Where the vFabric policy in use comes from. */
enum vf_metrics_config_source {
	VF_MCS_OPENSM,		/* none: OpenSM's own partitions.conf */
	VF_MCS_FILE,		/* the file as it is now */
	VF_MCS_LAST_GOOD,	/* an older good version (the file is bad) */
	VF_MCS_FALLBACK_DENY,	/* on_config_error: tenants apart */
	VF_MCS_FALLBACK_OPEN,	/* on_config_error=open */
	VF_MCS_NUM
};

/* NULL when path is NULL (off) or out of memory (logged). */
struct vf_metrics *vf_metrics_create(const char *path);
void vf_metrics_destroy(struct vf_metrics *m);

/* HEAVY_SWEEP_START: the sweep's clock starts; per-sweep figures reset. */
void vf_metrics_sweep_start(struct vf_metrics *m);
/* UCAST_ROUTING_DONE: who routed; the route check is this routing's. */
void vf_metrics_routing(struct vf_metrics *m, const char *engine);
void vf_metrics_route_check(struct vf_metrics *m,
			    const struct vf_route_report *r);
/* The plan written this sweep: memberships over a table's capacity. */
void vf_metrics_plan(struct vf_metrics *m, unsigned dropped);
/* SUBNET_UP's P_Key check: end ports as planned, and not. */
void vf_metrics_pkeys(struct vf_metrics *m, unsigned verified,
		      unsigned mismatched);
/* An AR pass: switches programmed, unchanged, not capable, failed,
 * holding another AR_Key. */
void vf_metrics_ar(struct vf_metrics *m, unsigned programmed,
		   unsigned unchanged, unsigned incapable, unsigned failed,
		   unsigned locked);
/* An EM pass; true when a figure changed (worth a rewrite). */
bool vf_metrics_em(struct vf_metrics *m, unsigned configured,
		   unsigned unchanged, unsigned absent, unsigned failed);
void vf_metrics_config_error(struct vf_metrics *m);
void vf_metrics_config_source(struct vf_metrics *m,
			      enum vf_metrics_config_source s);

/* From the SA's dispatcher threads (atomics, no lock). */
void vf_metrics_sa_answered(struct vf_metrics *m, enum vf_metrics_sa_attr a);
void vf_metrics_sa_refused(struct vf_metrics *m,
			   enum vf_metrics_sa_refusal r);
void vf_metrics_sa_guarded(struct vf_metrics *m,
			   enum vf_metrics_sa_guarded g);

/* SUBNET_UP: a heavy sweep since vf_metrics_sweep_start() is done. */
/* The sweep's snapshot (plugin/sweep.h): models built, groups resolved. */
void vf_metrics_snapshot(struct vf_metrics *m, unsigned models,
			 unsigned resolutions);
void vf_metrics_subnet_up(struct vf_metrics *m);

/*
 * The exposition text (malloc'd, NULL when out of memory), and the file
 * rewritten with it: 0 or -errno.  A failure is logged once (ERR VF0120)
 * until a write succeeds again; it never stops anything.
 */
char *vf_metrics_format(struct vf_metrics *m);
int vf_metrics_write(struct vf_metrics *m);

#endif /* VF_METRICS_H */
