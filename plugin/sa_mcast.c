// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * MCMemberRecord joins checked against the virtual fabrics
 * (reference/opa-fm.md 2.2 and 8.4), before OpenSM's own handler creates
 * or joins the group, which it goes on to do when we let the request by.
 *
 * Creating a group: a VF must take it: one whose applications list the
 * MGID or, when no VF lists it anywhere, one taking unmatched MGIDs; with
 * the request's P_Key; its SL (when given) the VF's MulticastSL, or
 * BaseSL; the joiner (and a proxy requester) members, full ones in a VF
 * with Security; an MTU and rate within the VF's MaxMTU and MaxRate.
 * Where the request leaves the MTU or rate to the SA (absent, "largest",
 * or "greater than"), the request is narrowed to the VF's limit, so
 * OpenSM creates the group within it.  Unlike the FM, which checks
 * creates only when some VF has Security, every create is checked: the
 * check costs nothing and keeps groups inside the VFs either way.
 *
 * Joining a group: the joiner must be a member of a VF with the group's
 * P_Key.  Groups of P_Keys no VF has (OpenSM's default partition 0x7fff
 * without an Admin VF, for one) are OpenSM's alone, as are leaves.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_helper.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_multicast.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_port.h>
#include <opensm/osm_sa.h>

#include <string.h>

#include "common/mad.h"
#include "partition/sapolicy.h"
#include "partition/values.h"
#include "plugin/metrics.h"
#include "plugin/plugin.h"
#include "plugin/sa.h"
#include "common/log.h"

#define MCM(bit) ((uint64_t)1 << (bit))
enum {	/* MCMemberRecord component mask bits (IBA 15.2.5.17) */
	MC_MGID = MCM(0), MC_PORT_GID = MCM(1), MC_MTU_SEL = MCM(4),
	MC_MTU = MCM(5), MC_PKEY = MCM(7), MC_RATE_SEL = MCM(8),
	MC_RATE = MCM(9), MC_SL = MCM(12), MC_JOIN_STATE = MCM(16),
};

enum { SEL_GT, SEL_LT, SEL_EQ, SEL_BEST };

struct mc_req {
	const struct vf_sa_policy *pol;
	ib_member_rec_t *rec;
	uint64_t comp;
	int64_t joiner, requester;	/* policy rows */
	const osm_physp_t *joiner_physp;
	bool full;			/* JoinState full member */
};

static uint8_t record_sl(const ib_member_rec_t *rec)
{
	uint8_t sl;

	ib_member_get_sl_flow_hop(rec->sl_flow_hop, &sl, NULL, NULL);
	return sl;
}

static bool takes_ports(const struct mc_req *r, unsigned i, bool secure)
{
	uint8_t j = vf_sa_member(r->pol, i, (uint32_t)r->joiner);
	uint8_t q = vf_sa_member(r->pol, i, (uint32_t)r->requester);

	if (j == VF_MEMBER_NONE || q == VF_MEMBER_NONE)
		return false;
	return !secure || (r->full && j != VF_MEMBER_LIMITED);
}

/* The VF's multicast SL: MulticastSL when set, else its (Base) SL. */
static int mcast_sl(const struct vf_sa_policy *pol, unsigned i)
{
	const struct vf_config *c = pol->config;
	const struct vf_qos *q = vf_config_vf_qos(c, &c->vfs[i]);

	return q->enable && q->mcast_sl >= 0 ? q->mcast_sl : pol->vf_sl[i];
}

/* Is (sel, want) within a cap where `cmp` orders the codes? */
static bool within(unsigned sel, unsigned want, unsigned cap,
		   int (*cmp)(unsigned, unsigned))
{
	if (!cap)
		return true;
	if (sel == SEL_EQ)
		return cmp(want, cap) <= 0;
	if (sel == SEL_GT)
		return cmp(want, cap) < 0;
	return true;		/* LT or largest: something below fits */
}

static int cmp_code(unsigned a, unsigned b)
{
	return a < b ? -1 : a > b;
}

static int cmp_rate(unsigned a, unsigned b)
{
	return ib_path_compare_rates((int)a, (int)b);
}

/* VF i can hold the group the request creates: why not, or NULL. */
static const char *refuse_create(const struct mc_req *r, unsigned i)
{
	const struct vf_cfg_vf *v = &r->pol->config->vfs[i];
	ib_member_rec_t *rec = r->rec;

	if (r->pol->vf_pkey[i] != (cl_ntoh16(rec->pkey) & 0x7fff))
		return "another P_Key";
	if ((r->comp & MC_SL) &&
	    record_sl(rec) != mcast_sl(r->pol, i))
		return "another SL";
	if (!takes_ports(r, i, v->security))
		return v->security ? "the joiner is no full member" :
				     "the joiner is no member";
	if ((r->comp & MC_MTU) && (r->comp & MC_MTU_SEL) &&
	    !within(rec->mtu >> 6, rec->mtu & 0x3f,
		    v->max_mtu ? vf_mtu_code(v->max_mtu) : 0, cmp_code))
		return "an MTU above its MaxMTU";
	if ((r->comp & MC_RATE) && (r->comp & MC_RATE_SEL) &&
	    !within(rec->rate >> 6, rec->rate & 0x3f, v->max_rate, cmp_rate))
		return "a rate above its MaxRate";
	return NULL;
}

/*
 * Narrow an MTU or rate the request leaves open to cap: EQ on the lower
 * of the port's and the cap (the largest a "greater than" could get).
 */
static void narrow(uint8_t *field, uint64_t *comp, uint64_t bits, bool sel_set,
		   unsigned port, unsigned cap, int (*cmp)(unsigned, unsigned))
{
	unsigned sel = sel_set ? *field >> 6 : SEL_BEST;

	if (!cap || sel == SEL_EQ || sel == SEL_LT)
		return;
	if (port && cmp(port, cap) < 0)
		cap = port;
	if (sel == SEL_GT && cmp(cap, *field & 0x3f) <= 0)
		return;		/* OpenSM refuses it as it is */
	*field = (uint8_t)(SEL_EQ << 6 | cap);
	*comp |= bits;
}

static bool check_create(struct mc_req *r, const char **why)
{
	const struct vf_config *c = r->pol->config;
	struct vf_mgid m = { cl_ntoh64(r->rec->mgid.unicast.prefix),
			     cl_ntoh64(r->rec->mgid.unicast.interface_id) };
	bool listed = false;
	int chosen = -1;

	/* an MGID listed by any VF keeps the unmatched ones out */
	for (unsigned i = 0; i < c->num_vfs && !listed; i++)
		listed = r->pol->vf_pkey[i] &&
			 vf_vf_takes_mgid(c, &c->vfs[i], &m) == 2;
	*why = listed ? "no VF listing the MGID takes the request" :
			"no VF takes the MGID";
	for (unsigned i = 0; i < c->num_vfs && chosen < 0; i++) {
		int how = r->pol->vf_pkey[i] ?
			  vf_vf_takes_mgid(c, &c->vfs[i], &m) : 0;

		if (how == 2 || (how == 1 && !listed))
			if (!refuse_create(r, i))
				chosen = (int)i;
	}
	if (chosen < 0)
		return false;
	{
		const struct vf_cfg_vf *v = &c->vfs[chosen];
		const ib_port_info_t *pi = &r->joiner_physp->port_info;

		narrow(&r->rec->mtu, &r->comp, MC_MTU | MC_MTU_SEL,
		       (r->comp & MC_MTU) && (r->comp & MC_MTU_SEL),
		       ib_port_info_get_neighbor_mtu(pi),
		       v->max_mtu ? vf_mtu_code(v->max_mtu) : 0, cmp_code);
		narrow(&r->rec->rate, &r->comp, MC_RATE | MC_RATE_SEL,
		       (r->comp & MC_RATE) && (r->comp & MC_RATE_SEL),
		       ib_port_info_compute_rate(pi, pi->capability_mask &
						 IB_PORT_CAP_HAS_EXT_SPEEDS),
		       v->max_rate, cmp_rate);
	}
	return true;
}

static bool check_join(const struct mc_req *r, const osm_mgrp_t *g,
		       const char **why)
{
	uint16_t pkey = cl_ntoh16(g->mcmember_rec.pkey) & 0x7fff;
	bool vf_pkey = false;

	for (unsigned i = 0; i < r->pol->config->num_vfs; i++) {
		if (r->pol->vf_pkey[i] != pkey)
			continue;
		vf_pkey = true;
		if (takes_ports(r, i, false))
			return true;
	}
	*why = "the joiner is in no VF with the group's P_Key";
	return !vf_pkey;	/* not a VF's group: OpenSM decides */
}

bool vf_sa_mcmember_refused(struct vf_plugin *p,
			    const struct vf_sa_policy *pol,
			    struct osm_madw *madw)
{
	osm_sa_t *sa = &p->osm->sa;
	ib_sa_mad_t *mad = osm_madw_get_sa_mad_ptr(madw);
	struct mc_req r = { .pol = pol, .rec = ib_sa_mad_get_payload_ptr(mad),
			    .comp = cl_ntoh64(mad->comp_mask) };
	const osm_port_t *req, *joiner;
	const osm_mgrp_t *g;
	const char *why = NULL;
	bool ok = true;

	/* leaves, queries and malformed joins are OpenSM's to answer */
	if (mad->method != IB_MAD_METHOD_SET || !(r.comp & MC_MGID) ||
	    !(r.comp & MC_PORT_GID) || !(r.comp & MC_JOIN_STATE))
		return false;
	r.full = r.rec->scope_state & IB_JOIN_STATE_FULL;
	cl_plock_acquire(sa->p_lock);
	req = osm_get_port_by_mad_addr(sa->p_log, &p->osm->subn,
				       osm_madw_get_mad_addr_ptr(madw));
	joiner = osm_get_port_by_alias_guid(&p->osm->subn,
					    r.rec->port_gid.unicast.interface_id);
	if (req && joiner && joiner->p_physp) {
		r.joiner = vf_sa_policy_row(pol, cl_ntoh64(osm_port_get_guid(joiner)));
		r.requester = vf_sa_policy_row(pol, cl_ntoh64(osm_port_get_guid(req)));
		r.joiner_physp = joiner->p_physp;
		g = osm_get_mgrp_by_mgid(&p->osm->subn, &r.rec->mgid);
		if (r.joiner >= 0 && r.requester >= 0)
			ok = g ? check_join(&r, g, &why) :
			     (r.comp & MC_PKEY) ? check_create(&r, &why) : true;
	}
	cl_plock_release(sa->p_lock);
	mad->comp_mask = cl_hton64(r.comp);	/* narrowed MTU/rate */
	if (ok)
		return false;
	vf_log(VF_LOG_INFO,
	       "sa: MCMemberRecord join of port 0x%016llx to MGID 0x%016llx%016llx refused: %s",
	       (unsigned long long)cl_ntoh64(r.rec->port_gid.unicast.interface_id),
	       (unsigned long long)cl_ntoh64(r.rec->mgid.unicast.prefix),
	       (unsigned long long)cl_ntoh64(r.rec->mgid.unicast.interface_id),
	       why);
	vf_sa_send_error(p, madw, IB_SA_MAD_STATUS_REQ_INVALID,
			 VF_MSR_MCMEMBER_POLICY);
	return true;
}
