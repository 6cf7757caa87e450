/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The plugin's SA handlers: PathRecord and MCMemberRecord answered from
 * the vFabric policy (partition/sapolicy.h).  OpenSM registers one
 * dispatcher handler per SA attribute; create() swaps ours in for
 * PathRecord (Get/GetTable), MultiPathRecord (GetMulti) and
 * MCMemberRecord (Set/Delete, on the second dispatcher), and checks
 * ServiceRecord Set/Delete before OpenSM's handler; OpenSM's own are kept
 * and answer whenever no vFabric configuration is loaded: then every
 * answer is stock OpenSM's.
 *
 * Handlers run in several dispatcher threads at once: each takes a
 * reference to the current snapshot, and OpenSM's lock shared only while
 * it reads the subnet, as OpenSM's own handlers do.
 */
#ifndef VF_SA_H
#define VF_SA_H

#include <complib/cl_dispatcher.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct osm_madw;
struct vf_plugin;
struct vf_sa_policy;

/* An SA handler as OpenSM's dispatcher calls it. */
struct vf_sa_handler {
	void (*cb)(void *context, void *data);
	void *context;
};

struct vf_sa_budget;
struct vf_sa_guard;

struct vf_sa {
	pthread_mutex_t lock;		/* guards policy */
	struct vf_sa_policy *policy;	/* NULL: OpenSM's handlers answer */
	bool installed;
	struct vf_sa_handler pr, mpr, mcmr_set, sr;	/* OpenSM's own */
	const void *pr_set;		/* ours for PathRecord Set/Delete
					 * (a cl_disp_reg_handle_t; OpenSM's
					 * shutdown frees it) */
	struct vf_sa_guard *guard;	/* sa_guard.c */
	struct vf_sa_budget *budget;	/* sa_budget.c; NULL: no limit */
};

/* Swap our handlers in (from create(), before the SA is bound); 0 or
 * -errno, logged (then OpenSM's handlers keep answering). */
int vf_sa_install(struct vf_plugin *p);
/* Answer from np from now on (taking it over), or with OpenSM's handlers
 * when NULL; the old snapshot goes when its last query ends. */
void vf_sa_set_policy(struct vf_plugin *p, struct vf_sa_policy *np);
void vf_sa_free(struct vf_plugin *p);
/* Replace OpenSM's handler behind *h with cb(ctx), keeping OpenSM's in
 * *saved; 0 or -errno (then OpenSM's stays). */
int vf_sa_swap_handler(cl_disp_reg_handle_t *h, cl_dispatcher_t *disp,
		       cl_disp_msgid_t id, cl_pfn_msgrcv_cb_t cb, void *ctx,
		       struct vf_sa_handler *saved);

/* The crash guard (sa_guard.c): the SA queries that crash OpenSM 3.3.23's
 * own handler (SLtoVLMappingTableRecord) answered by the plugin, with or
 * without a policy. */
void vf_sa_guard_install(struct vf_plugin *p);
void vf_sa_guard_free(struct vf_plugin *p);

/* The per-requester limit on records built (sa_budget.c): init 0 or -1
 * (out of memory); refused: true when the request was answered BUSY, its
 * port's sa_record_budget for this second being spent; charge: count an
 * answer's records against its port. */
int vf_sa_budget_init(struct vf_plugin *p);
void vf_sa_budget_free(struct vf_plugin *p);
bool vf_sa_budget_refused(struct vf_plugin *p, struct osm_madw *madw);
void vf_sa_budget_charge(struct vf_plugin *p, struct osm_madw *madw,
			 unsigned records);
/*
 * Answer the request with an error status and count it in the metrics
 * (sa_error.c) under reason: an enum vf_metrics_sa_refusal (an int here,
 * to keep metrics.h out of this header), or VF_SA_REASON_BY_STATUS for
 * the reason the status itself names.
 */
void vf_sa_send_error(struct vf_plugin *p, struct osm_madw *madw,
		      uint16_t status, int reason);
#define VF_SA_REASON_BY_STATUS (-1)

/* The current snapshot, held (release it), or NULL without a policy. */
struct vf_sa_policy *vf_sa_policy_get(struct vf_plugin *p);

/* The handlers, given a held snapshot (sa_path.c, sa_mcast.c). */
void vf_sa_path_record(struct vf_plugin *p, const struct vf_sa_policy *pol,
		       struct osm_madw *madw);
void vf_sa_multipath_record(struct vf_plugin *p,
			    const struct vf_sa_policy *pol,
			    struct osm_madw *madw);
/* true when the request was answered (refused); false: OpenSM goes on */
bool vf_sa_mcmember_refused(struct vf_plugin *p,
			    const struct vf_sa_policy *pol,
			    struct osm_madw *madw);

/* true when a ServiceRecord Set/Delete was refused (answered); false:
 * OpenSM's handler goes on (sa_service.c) */
bool vf_sa_service_refused(struct vf_plugin *p, struct osm_madw *madw);

#endif /* VF_SA_H */
