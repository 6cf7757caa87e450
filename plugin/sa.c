// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Installing the SA handlers and swapping the policy they answer from.
 * OpenSM allows one registrant per message id, so each handler is saved,
 * unregistered and registered again as ours; the new handle is stored back
 * where OpenSM keeps it, so osm_sa_shutdown() unregisters ours at exit
 * (before the plugin is unloaded).
 */
#include <opensm/osm_config.h>
#include <opensm/osm_helper.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_sa.h>

#include <errno.h>

#include "partition/sapolicy.h"
#include "plugin/plugin.h"
#include "plugin/sa.h"
#include "common/log.h"

#define VF_SA_CLASS_VERSION 2

struct vf_sa_policy *vf_sa_policy_get(struct vf_plugin *p)
{
	struct vf_sa_policy *pol;

	pthread_mutex_lock(&p->sa.lock);
	pol = p->sa.policy;
	if (pol)
		vf_sa_policy_hold(pol);
	pthread_mutex_unlock(&p->sa.lock);
	return pol;
}

/*
 * SA class version 2 only (IBA 15.2.1.1): a request of another version
 * gets status 0x0004, "bad version" (IBA 13.4.7).  A kernel's MAD layer
 * delivers only the version OpenSM registered, but a transport that does
 * not filter (ibsim's umad2sim does not) handed version 1 requests to us,
 * and they were answered as if they were version 2.  With a policy only:
 * without one we answer exactly as stock OpenSM.
 */
static bool bad_class_version(struct vf_plugin *p, void *data)
{
	const ib_sa_mad_t *mad = osm_madw_get_sa_mad_ptr(data);

	if (mad->class_ver == VF_SA_CLASS_VERSION)
		return false;
	vf_log(VF_LOG_INFO, "sa: %s request of SA class version %u from LID %u refused (bad version)",
	       ib_get_sa_attr_str(mad->attr_id), mad->class_ver,
	       cl_ntoh16(osm_madw_get_mad_addr_ptr(data)->dest_lid));
	vf_sa_send_error(p, data, IB_MAD_STATUS_UNSUP_CLASS_VER,
			 VF_SA_REASON_BY_STATUS);
	return true;
}

static void on_path_record(void *context, void *data)
{
	struct vf_plugin *p = context;
	struct vf_sa_policy *pol = vf_sa_policy_get(p);

	if (pol && bad_class_version(p, data)) {
		vf_sa_policy_release(pol);
		return;
	}
	if (!pol) {
		p->sa.pr.cb(p->sa.pr.context, data);
		return;
	}
	vf_sa_path_record(p, pol, data);
	vf_sa_policy_release(pol);
}

static void on_multipath_record(void *context, void *data)
{
	struct vf_plugin *p = context;
	struct vf_sa_policy *pol = vf_sa_policy_get(p);

	if (pol && bad_class_version(p, data)) {
		vf_sa_policy_release(pol);
		return;
	}
	if (!pol) {
		p->sa.mpr.cb(p->sa.mpr.context, data);
		return;
	}
	vf_sa_multipath_record(p, pol, data);
	vf_sa_policy_release(pol);
}

/*
 * PathRecord Set and Delete: OpenSM posts them to the second dispatcher,
 * where nothing takes them (logged as ERR 1A02, never answered).  With a
 * vFabric policy they get the status the IBA asks for; without one we
 * stay as quiet as stock OpenSM.
 */
static void on_path_record_set(void *context, void *data)
{
	struct vf_plugin *p = context;
	struct vf_sa_policy *pol = vf_sa_policy_get(p);

	if (pol)
		vf_sa_send_error(p, data, IB_MAD_STATUS_UNSUP_METHOD_ATTR,
				 VF_SA_REASON_BY_STATUS);
	vf_sa_policy_release(pol);
}

static void on_mcmember_set(void *context, void *data)
{
	struct vf_plugin *p = context;
	struct vf_sa_policy *pol = vf_sa_policy_get(p);
	bool refused = pol && (bad_class_version(p, data) ||
			       vf_sa_mcmember_refused(p, pol, data));

	vf_sa_policy_release(pol);
	if (!refused)
		p->sa.mcmr_set.cb(p->sa.mcmr_set.context, data);
}

/* ServiceRecord: Set and Delete checked (sa_service.c), the rest OpenSM's */
static void on_service_record(void *context, void *data)
{
	struct vf_plugin *p = context;
	struct vf_sa_policy *pol = vf_sa_policy_get(p);
	bool refused = pol && vf_sa_service_refused(p, data);

	vf_sa_policy_release(pol);
	if (!refused)
		p->sa.sr.cb(p->sa.sr.context, data);
}

/* Replace the handler behind *h (a cl_disp_reg_handle_t) with cb(ctx). */
int vf_sa_swap_handler(cl_disp_reg_handle_t *h, cl_dispatcher_t *disp,
		       cl_disp_msgid_t id, cl_pfn_msgrcv_cb_t cb, void *ctx,
		       struct vf_sa_handler *saved)
{
	cl_disp_reg_info_t *ri = (cl_disp_reg_info_t *)*h;
	cl_disp_reg_handle_t mine;

	if (!ri || *h == CL_DISP_INVALID_HANDLE || !ri->pfn_rcv_callback)
		return -ENOENT;
	saved->cb = ri->pfn_rcv_callback;
	saved->context = (void *)ri->context;	/* complib stores it const */
	cl_disp_unregister(*h);
	mine = cl_disp_register(disp, id, cb, ctx);
	if (mine == CL_DISP_INVALID_HANDLE) {
		/* put OpenSM's back: never leave the attribute unanswered */
		*h = cl_disp_register(disp, id, saved->cb, saved->context);
		return -ENOMEM;
	}
	*h = mine;
	return 0;
}

int vf_sa_install(struct vf_plugin *p)
{
	osm_sa_t *sa = &p->osm->sa;
	/* Set/Delete go to the second dispatcher unless single_thread */
	cl_dispatcher_t *set_disp = sa->p_set_disp ? sa->p_set_disp :
						     sa->p_disp;
	cl_disp_reg_handle_t *mcmr = sa->p_set_disp ? &sa->mcmr_set_disp_h :
						      &sa->mcmr_disp_h;
	int rc;

	vf_sa_guard_install(p);
	if (vf_sa_budget_init(p))
		vf_log(VF_LOG_ERROR,
		       "ERR VF0904: out of memory for sa_record_budget; the SA builds what any requester asks");
	pthread_mutex_init(&p->sa.lock, NULL);
	rc = vf_sa_swap_handler(&sa->pr_disp_h, sa->p_disp,
				OSM_MSG_MAD_PATH_RECORD, on_path_record, p,
				&p->sa.pr);
	if (!rc) {
		rc = vf_sa_swap_handler(mcmr, set_disp,
					OSM_MSG_MAD_MCMEMBER_RECORD,
					on_mcmember_set, p, &p->sa.mcmr_set);
		if (rc) {
			/* both or neither: give PathRecord back */
			cl_disp_unregister(sa->pr_disp_h);
			sa->pr_disp_h = cl_disp_register(sa->p_disp,
				OSM_MSG_MAD_PATH_RECORD, p->sa.pr.cb,
				p->sa.pr.context);
		}
	}
#if defined(VENDOR_RMPP_SUPPORT) && defined(DUAL_SIDED_RMPP)
	/* MultiPathRecord: OpenSM has it only with dual-sided RMPP */
	if (!rc && sa->mpr_disp_h &&
	    vf_sa_swap_handler(&sa->mpr_disp_h, sa->p_disp,
			       OSM_MSG_MAD_MULTIPATH_RECORD,
			       on_multipath_record, p, &p->sa.mpr))
		vf_log(VF_LOG_WARN,
		       "sa: MultiPathRecord stays with OpenSM's handler, which knows no virtual fabrics");
#endif
	/* ServiceRecord Set/Delete: on the second dispatcher when there is one */
	if (!rc && vf_sa_swap_handler(sa->p_set_disp ? &sa->sr_set_disp_h :
				      &sa->sr_disp_h, set_disp,
				      OSM_MSG_MAD_SERVICE_RECORD,
				      on_service_record, p, &p->sa.sr))
		vf_log(VF_LOG_WARN,
		       "sa: ServiceRecord Set and Delete stay with OpenSM's handler, which checks the ServiceP_Key only when the request names it");
	if (!rc && sa->p_set_disp)
		p->sa.pr_set = cl_disp_register(sa->p_set_disp,
						OSM_MSG_MAD_PATH_RECORD,
						on_path_record_set, p);
	if (rc) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0901: cannot install the SA handlers (%s); OpenSM's own answer PathRecord and MCMemberRecord queries without vFabric rules",
		       rc == -ENOENT ? "OpenSM's are not registered" :
		       "out of memory");
		return rc;
	}
	p->sa.installed = true;
	return 0;
}

void vf_sa_set_policy(struct vf_plugin *p, struct vf_sa_policy *np)
{
	struct vf_sa_policy *old;

	if (!p->sa.installed) {
		vf_sa_policy_release(np);
		return;
	}
	pthread_mutex_lock(&p->sa.lock);
	old = p->sa.policy;
	p->sa.policy = np;
	pthread_mutex_unlock(&p->sa.lock);
	vf_sa_policy_release(old);
}

void vf_sa_free(struct vf_plugin *p)
{
	/*
	 * OpenSM unregistered the handlers it knows of, then shut its
	 * dispatchers down, which frees every registration left (our
	 * PathRecord Set one too): nothing calls us any more.
	 */
	vf_sa_set_policy(p, NULL);
	pthread_mutex_destroy(&p->sa.lock);
	vf_sa_guard_free(p);
	vf_sa_budget_free(p);
}
