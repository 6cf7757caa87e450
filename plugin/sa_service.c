// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * ServiceRecord Set and Delete checked against the partitions, before
 * OpenSM's own handler stores or removes the record.
 *
 * OpenSM 3.3.23 checks that the requester holds the ServiceP_Key only when
 * the request sets that component bit, while its Delete removes the record
 * matching ServiceID, ServiceGID *and* ServiceP_Key whatever the mask: a
 * port of another tenant that knows the three removed a tenant's service
 * by leaving the bit clear.  And any port could register or remove a
 * service under any other port's GID.  With a vFabric policy loaded we
 * refuse, with REQ_INVALID as OpenSM refuses a P_Key it checks:
 *
 *  - a Delete naming a ServiceP_Key the requester's port does not hold,
 *    component bit set or not;
 *  - a Set or Delete for the unicast ServiceGID of another port that the
 *    requester shares no P_Key with (one of the two a full member): a
 *    port may act for a port it can talk to, never across tenants.
 *
 * Queries, and everything without a policy, stay OpenSM's.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_pkey.h>
#include <opensm/osm_port.h>
#include <opensm/osm_sa.h>

#include "plugin/metrics.h"
#include "plugin/plugin.h"
#include "plugin/sa.h"
#include "common/log.h"

/* Why the request must be refused, or NULL; under OpenSM's lock. */
static const char *refusal(osm_subn_t *subn, osm_log_t *log,
			   const osm_madw_t *madw, const ib_sa_mad_t *mad)
{
	const ib_service_record_t *rec = ib_sa_mad_get_payload_ptr(mad);
	const osm_port_t *req, *owner;

	req = osm_get_port_by_mad_addr(log, subn,
				       osm_madw_get_mad_addr_ptr(madw));
	if (!req || !req->p_physp)
		return NULL;	/* OpenSM refuses it itself (ERR 2404) */
	if (mad->method == IB_MAD_METHOD_DELETE &&
	    !ib_pkey_is_invalid(rec->service_pkey) &&
	    !osm_physp_has_pkey(log, rec->service_pkey, req->p_physp))
		return "the requester does not hold its ServiceP_Key";
	if (ib_gid_is_multicast(&rec->service_gid))
		return NULL;
	owner = osm_get_port_by_alias_guid(subn,
					   rec->service_gid.unicast.interface_id);
	if (owner && owner != req &&
	    !osm_port_share_pkey(log, req, owner, FALSE))
		return "the requester shares no P_Key with the ServiceGID's port";
	return NULL;
}

bool vf_sa_service_refused(struct vf_plugin *p, struct osm_madw *madw)
{
	osm_sa_t *sa = &p->osm->sa;
	const ib_sa_mad_t *mad = osm_madw_get_sa_mad_ptr(madw);
	const ib_service_record_t *rec = ib_sa_mad_get_payload_ptr(mad);
	const char *why;

	if (mad->method != IB_MAD_METHOD_SET &&
	    mad->method != IB_MAD_METHOD_DELETE)
		return false;
	cl_plock_acquire(sa->p_lock);
	why = refusal(&p->osm->subn, sa->p_log, madw, mad);
	cl_plock_release(sa->p_lock);
	if (!why)
		return false;
	vf_log(VF_LOG_INFO,
	       "sa: ServiceRecord %s of ServiceID 0x%016llx for port 0x%016llx from LID %u refused: %s",
	       mad->method == IB_MAD_METHOD_SET ? "Set" : "Delete",
	       (unsigned long long)cl_ntoh64(rec->service_id),
	       (unsigned long long)cl_ntoh64(rec->service_gid.unicast.interface_id),
	       cl_ntoh16(osm_madw_get_mad_addr_ptr(madw)->dest_lid), why);
	vf_sa_send_error(p, madw, IB_SA_MAD_STATUS_REQ_INVALID,
			 VF_MSR_SERVICE_POLICY);
	return true;
}
