// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * PathRecord Get and GetTable answered by vFabric (reference/opa-fm.md
 * 2.1): the end points from the query's GIDs and LIDs (or every end port
 * for the side it leaves open), the VFs that answer between them
 * (partition/query.c: ServiceID, P_Key, SL, membership), a walk through
 * the LFTs the switches hold for hop count, MTU and rate, and the LID
 * pairs in PathSelection order (partition/pathsel.c).
 *
 * On top of the FM's rules, every answer's P_Key is checked against the
 * P_Key tables OpenSM holds for both ports, as is the requester's: while a
 * new policy is being programmed an answer is given only where the tables
 * already agree, so no path is ever returned between ports that share no
 * P_Key, and none to a requester that shares none with both ends.
 *
 * What the FM and OpenSM leave to the SA is decided as follows:
 * - FlowLabel, HopLimit, TClass and QoSClass are not inputs to routing
 *   here: given in the query they are returned as asked (any value can be
 *   carried in a GRH); Preference is an output (0) and ignored in queries.
 * - NumbPath 0 is refused (REQ_INVALID): a request for no paths is
 *   malformed.  Reserved component mask bits (7, 23 and up) are refused
 *   too.  NumbPath counts records per source/destination port pair,
 *   across VFs; Get asks for one and fails with TOO_MANY_RECORDS when the
 *   query matches more than one.
 * - MultiPathRecord (GetMulti) is the same answer for every SGID x DGID
 *   of its lists, NumbPath counting over all of them (as OpenSM's);
 *   IndependenceSelector is not used (no disjointness is promised).
 * - Off-subnet GIDs are refused (INVALID_GID): ibsim fabrics and ours have
 *   no routers.  A multicast DGID goes to OpenSM's handler, which answers
 *   from the group (created under the VF checks of sa_mcast.c).
 * - PktLifeTime: subnet_timeout - 2 + ceil(log2(switches + 1)) (so one
 *   switch gets 17 and three 18 with the default 18, OpenSM's fixed
 *   answer), plus the VF's PktLifeTimeMult exponent; 0 for loopback.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_helper.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_pkey.h>
#include <opensm/osm_port.h>
#include <opensm/osm_sa.h>
#include <opensm/osm_switch.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/mad.h"
#include "partition/sapolicy.h"
#include "partition/values.h"
#include "plugin/metrics.h"
#include "plugin/plugin.h"
#include "plugin/sa.h"
#include "common/log.h"

#define MAX_RECORDS 65536	/* per answer: 4 MiB of records */
#define MAX_SWITCHES 64		/* a longer walk is a routing loop */
#define CM(bit) ((uint64_t)1 << (bit))

enum {	/* PathRecord component mask bits (IBA 15.2.5.16) */
	PR_SID = CM(0) | CM(1), PR_DGID = CM(2), PR_SGID = CM(3),
	PR_DLID = CM(4), PR_SLID = CM(5), PR_RAW = CM(6),
	PR_FLOWLABEL = CM(8), PR_HOPLIMIT = CM(9), PR_TCLASS = CM(10),
	PR_REVERSIBLE = CM(11), PR_NUMBPATH = CM(12), PR_PKEY = CM(13),
	PR_QOS_CLASS = CM(14), PR_SL = CM(15), PR_MTU_SEL = CM(16),
	PR_MTU = CM(17), PR_RATE_SEL = CM(18), PR_RATE = CM(19),
	PR_LIFE_SEL = CM(20), PR_LIFE = CM(21),
	PR_RESERVED = CM(7) | ~(CM(23) - 1),
};

enum selector { SEL_GT, SEL_LT, SEL_EQ, SEL_BEST };

/* One request being answered. */
struct pr_req {
	struct vf_plugin *p;
	const struct vf_sa_policy *pol;
	osm_subn_t *subn;
	const ib_sa_mad_t *mad;
	const ib_path_rec_t *pr;
	uint64_t comp;			/* host order */
	unsigned numb_path;		/* per port pair */
	unsigned max_records;		/* in the whole answer */
	bool get;
	const osm_port_t *requester;
	cl_qlist_t list;
	unsigned count;
	bool full;			/* stop: Get saw two, or the cap */
};

/* A port's entry for pkey (15 bits) in the table OpenSM holds, full
 * preferred; 0 when it has none. */
static uint16_t table_entry(const osm_physp_t *physp, uint16_t pkey,
			    bool allow_both)
{
	const osm_pkey_tbl_t *t = osm_physp_get_pkey_tbl(physp);
	const ib_net16_t *e;

	if (allow_both) {
		e = cl_map_get(&t->keys, cl_hton16(pkey | 0x8000));
		if (!e)
			e = cl_map_get(&t->keys, cl_hton16(pkey));
	} else {
		e = cl_map_get(&t->keys, cl_hton16(pkey));
	}
	return e ? cl_ntoh16(*e) : 0;
}

/* --- the walk through the programmed LFTs --- */

struct path_parms {
	unsigned switches;
	uint8_t mtu;			/* IB MTU code */
	uint8_t rate;			/* IB rate code */
};

static void limit_by_port(struct path_parms *pp, const osm_physp_t *physp)
{
	const ib_port_info_t *pi = &physp->port_info;
	uint8_t rate = ib_port_info_compute_rate(pi,
			pi->capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS);

	if (ib_port_info_get_mtu_cap(pi) < pp->mtu)
		pp->mtu = ib_port_info_get_mtu_cap(pi);
	if (ib_path_compare_rates(pp->rate, rate) > 0)
		pp->rate = rate;
}

/* The egress port of a switch node towards dlid, by its programmed LFT. */
static const osm_physp_t *egress(const osm_node_t *node, uint16_t dlid)
{
	uint8_t port = osm_switch_get_port_by_lid(node->sw, dlid, OSM_LFT);

	return port == OSM_NO_PATH ? NULL :
	       osm_node_get_physp_ptr((osm_node_t *)node, port);
}

/* From src to dst (dlid one of dst's LIDs); false when the LFTs lead
 * nowhere. */
static bool walk(const osm_port_t *src, const osm_port_t *dst,
		 uint16_t dlid, struct path_parms *pp)
{
	const osm_physp_t *at = src->p_physp, *end = dst->p_physp;

	*pp = (struct path_parms){ 0, IB_MTU_LEN_4096, 0 };
	pp->rate = ib_port_info_compute_rate(&at->port_info,
		at->port_info.capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS);
	limit_by_port(pp, at);
	if (src == dst)
		return true;
	if (at->p_node->sw) {		/* from a switch's port 0 */
		at = egress(at->p_node, dlid);
		pp->switches = 1;
	}
	while (at && at != end && pp->switches <= MAX_SWITCHES) {
		const osm_physp_t *in = osm_physp_get_remote(at);

		limit_by_port(pp, at);
		if (!in)
			return false;
		if (in == end || (dst->p_node->sw && in->p_node == dst->p_node))
			break;
		if (!in->p_node->sw)
			return false;	/* a CA that is not dst */
		limit_by_port(pp, in);
		pp->switches++;
		at = egress(in->p_node, dlid);
		if (at && at->port_num == 0)
			return false;	/* port 0 of a switch that is not dst */
	}
	if (!at || pp->switches > MAX_SWITCHES)
		return false;
	if (dst->p_node->sw && at != end)
		pp->switches++;		/* into the destination switch */
	limit_by_port(pp, end);
	return true;
}

/* --- selectors (IBA 15.2.5.16: GT, LT, EQ, best) --- */

/* Apply a selector on an ordered value; false when it cannot be met.
 * `lower` steps a value down (MTU and lifetime: -1; rate: the next
 * slower rate), returning 0 when there is none. */
static bool select_value(unsigned sel, unsigned want, uint8_t *have,
			 int (*cmp)(unsigned, unsigned),
			 unsigned (*lower)(unsigned), bool smaller_is_best)
{
	switch (sel) {
	case SEL_GT:
		return cmp(*have, want) > 0;
	case SEL_LT:
		if (cmp(*have, want) < 0)
			return true;
		*have = (uint8_t)lower(want);
		return *have != 0;
	case SEL_EQ:
		if (smaller_is_best ? cmp(*have, want) > 0 :
				      cmp(*have, want) < 0)
			return false;
		*have = (uint8_t)want;
		return true;
	default:
		return true;
	}
}

static int cmp_plain(unsigned a, unsigned b)
{
	return a < b ? -1 : a > b;
}

static int cmp_rate(unsigned a, unsigned b)
{
	return ib_path_compare_rates((int)a, (int)b);
}

static unsigned minus_one(unsigned v)
{
	return v > 1 ? v - 1 : 0;
}

static unsigned slower_rate(unsigned v)
{
	return (unsigned)ib_path_rate_get_prev((uint8_t)v);
}

static bool selectors_met(const struct pr_req *r, uint8_t *mtu, uint8_t *rate,
			  uint8_t *life)
{
	const ib_path_rec_t *pr = r->pr;

	if ((r->comp & PR_MTU_SEL) && (r->comp & PR_MTU) &&
	    !select_value(ib_path_rec_mtu_sel(pr), ib_path_rec_mtu(pr), mtu,
			  cmp_plain, minus_one, false))
		return false;
	if ((r->comp & PR_RATE_SEL) && (r->comp & PR_RATE) &&
	    !select_value(ib_path_rec_rate_sel(pr), ib_path_rec_rate(pr),
			  rate, cmp_rate, slower_rate, false))
		return false;
	/* for the lifetime, smaller is better: EQ asks for at most */
	return !((r->comp & PR_LIFE_SEL) && (r->comp & PR_LIFE)) ||
	       select_value(ib_path_rec_pkt_life_sel(pr),
			    ib_path_rec_pkt_life(pr), life, cmp_plain,
			    minus_one, true);
}

/* --- records --- */

/*
 * An answer's items are OpenSM's SA_ITEM_RESP_SIZE(path_rec) bytes, what
 * osm_sa_respond() expects, less than sizeof(osm_sa_item_t) (a union of
 * every record): reaching a field through an osm_sa_item_t pointer is
 * then undefined (UBSan, found by fuzz/fuzz-sa), so the list item and the
 * record are reached by their offsets.
 */
static ib_path_rec_t *item_path_rec(void *item)
{
	return (ib_path_rec_t *)((char *)item +
				 offsetof(osm_sa_item_t, resp.path_rec));
}

static cl_list_item_t *item_list(void *item)
{
	return (cl_list_item_t *)((char *)item +
				  offsetof(osm_sa_item_t, list_item));
}

static uint8_t lifetime(const struct pr_req *r, const struct path_parms *pp,
			unsigned vf_exp, bool loopback)
{
	unsigned e = 0, life;

	if (loopback)
		return 0;
	/* a stock partitions.conf: stock OpenSM's lifetime, subnet_timeout */
	if (r->pol->config->stock_file)
		return (uint8_t)r->subn->opt.subnet_timeout;
	while ((1u << e) < pp->switches + 1)
		e++;
	life = r->subn->opt.subnet_timeout + e + vf_exp;
	life = life >= 2 ? life - 2 : 0;
	return (uint8_t)(life > 63 ? 63 : life);
}

/* The record for one LID pair of answer a; NULL when the query's
 * selectors or Reversible rule it out (or no memory). */
static osm_sa_item_t *record(const struct pr_req *r, const osm_port_t *src,
			     const osm_port_t *dst, const ib_gid_t *sgid,
			     const ib_gid_t *dgid, uint16_t slid,
			     uint16_t dlid, const struct vf_path_answer *a,
			     uint16_t pkey_entry)
{
	struct path_parms fwd, back;
	osm_sa_item_t *item;
	ib_path_rec_t *out;
	bool reversible, raw = (r->comp & PR_RAW) &&
			       (cl_ntoh32(r->pr->hop_flow_raw) & 1u << 31);
	uint8_t mtu, rate, life, sl = (uint8_t)a->sl, sl_back;
	bool layered;

	/* VL layers: the SL puts the path on its layer (plugin/layers.c);
	 * one asked for that is not the layer's gets no record */
	layered = vf_layer_sl(r->p, slid, dlid, sl, &sl);
	if (layered && (r->comp & PR_SL) && ib_path_rec_sl(r->pr) != sl)
		return NULL;
	if (!walk(src, dst, dlid, &fwd))
		return NULL;
	reversible = walk(dst, src, slid, &back);
	/* layers one way: the way back on this SL may cross layers */
	if (layered && vf_layer_sl(r->p, dlid, slid, (uint8_t)a->sl,
				   &sl_back) && sl_back != sl)
		reversible = false;
	if ((r->comp & PR_REVERSIBLE) && (r->pr->num_path & 0x80) &&
	    !reversible)
		return NULL;
	mtu = fwd.mtu;
	if (a->mtu && vf_mtu_code(a->mtu) < mtu)
		mtu = (uint8_t)vf_mtu_code(a->mtu);
	rate = a->rate ? (uint8_t)vf_rate_lower(fwd.rate, a->rate) : fwd.rate;
	life = lifetime(r, &fwd, a->life_exp, src == dst);
	if (!selectors_met(r, &mtu, &rate, &life))
		return NULL;
	item = calloc(1, SA_ITEM_RESP_SIZE(path_rec));
	if (!item)
		return NULL;
	out = item_path_rec(item);
	if (r->comp & PR_SID)
		out->service_id = r->pr->service_id;
	out->sgid = *sgid;
	out->dgid = *dgid;
	out->slid = cl_hton16(slid);
	out->dlid = cl_hton16(dlid);
	out->hop_flow_raw = r->pr->hop_flow_raw &
		cl_hton32(((r->comp & PR_RAW) ? 1u << 31 : 0) |
			  ((r->comp & PR_FLOWLABEL) ? 0xfffffu << 8 : 0) |
			  ((r->comp & PR_HOPLIMIT) ? 0xffu : 0));
	if (r->comp & PR_TCLASS)
		out->tclass = r->pr->tclass;
	out->num_path = reversible ? 0x80 : 0;
	out->pkey = raw ? 0 : cl_hton16(pkey_entry);
	ib_path_rec_set_sl(out, sl);
	if (r->comp & PR_QOS_CLASS)
		ib_path_rec_set_qos_class(out, ib_path_rec_qos_class(r->pr));
	out->mtu = (uint8_t)(SEL_EQ << 6 | mtu);
	out->rate = (uint8_t)(SEL_EQ << 6 | rate);
	out->pkt_life = (uint8_t)(SEL_EQ << 6 | life);
	return item;
}

static void add(struct pr_req *r, osm_sa_item_t *item)
{
	cl_qlist_insert_tail(&r->list, item_list(item));
	r->count++;
	if ((r->get && r->count > 1) || r->count >= r->max_records)
		r->full = true;
}

/* The LIDs of port, or the one the query fixes on that side. */
static void lid_side(const osm_port_t *port, bool fixed, uint16_t lid,
		     struct vf_lid_side *s)
{
	uint16_t lo, hi;

	osm_port_get_lid_range_ho(port, &lo, &hi);
	s->base = lo;
	s->count = lo ? (unsigned)(hi - lo + 1) : 0;
	s->fixed = fixed && lid >= lo && lid <= hi ? lid - lo : -1;
}

static ib_gid_t port_gid(const struct pr_req *r, const osm_port_t *port)
{
	ib_gid_t g;

	g.unicast.prefix = r->subn->opt.subnet_prefix;
	g.unicast.interface_id = osm_port_get_guid(port);
	return g;
}

/* Every record between src and dst (GIDs as the query gave them). */
static void pair(struct pr_req *r, const osm_port_t *src,
		 const osm_port_t *dst, const ib_gid_t *sgid,
		 const ib_gid_t *dgid)
{
	bool both = r->subn->opt.allow_both_pkeys;
	int64_t srow = vf_sa_policy_row(r->pol, cl_ntoh64(osm_port_get_guid(src)));
	int64_t drow = vf_sa_policy_row(r->pol, cl_ntoh64(osm_port_get_guid(dst)));
	struct vf_path_query q = { .pkey = -1, .sl = -1 };
	struct vf_path_answers ans;
	struct vf_lid_side s, d;
	ib_gid_t sg = sgid ? *sgid : port_gid(r, src);
	ib_gid_t dg = dgid ? *dgid : port_gid(r, dst);
	unsigned made = 0;
	uint16_t common = 0;

	if (srow < 0 || drow < 0 || !src->p_physp || !dst->p_physp)
		return;		/* new since the policy: no VF yet */
	if (!osm_port_share_pkey(&r->p->osm->log, r->requester, src, both) ||
	    !osm_port_share_pkey(&r->p->osm->log, r->requester, dst, both))
		return;		/* C15-0.1.21: the requester must share */
	q.src = (uint32_t)srow;
	q.dst = (uint32_t)drow;
	q.sid_given = (r->comp & PR_SID) == PR_SID;
	q.sid = cl_ntoh64(r->pr->service_id);
	if (r->comp & PR_PKEY)
		q.pkey = cl_ntoh16(r->pr->pkey) & 0x7fff;
	/* a stock partitions.conf: OpenSM's own choice of the one P_Key,
	 * membership bit and all (its order of the two ports' tables) */
	if (r->pol->config->stock_file && !(r->comp & PR_PKEY)) {
		common = cl_ntoh16(osm_physp_find_common_pkey(src->p_physp,
							      dst->p_physp,
							      both));
		if (!common)
			return;
		q.pkey = common & 0x7fff;
	}
	/* with VL layers the SL is the layer's, not a VF's (record()) */
	if ((r->comp & PR_SL) && !vf_layers_in_use(r->p))
		q.sl = ib_path_rec_sl(r->pr);
	if (vf_path_vfs(&r->pol->path, &q, false, &ans))
		return;
	lid_side(src, r->comp & PR_SLID, cl_ntoh16(r->pr->slid), &s);
	lid_side(dst, r->comp & PR_DLID, cl_ntoh16(r->pr->dlid), &d);
	for (unsigned i = 0; i < ans.n && !r->full && made < r->numb_path;
	     i++) {
		const struct vf_path_answer *a = &ans.v[i];
		uint16_t se = common ? common :
			      table_entry(src->p_physp, a->pkey, both);
		uint16_t de = table_entry(dst->p_physp, a->pkey, both);
		struct vf_lid_iter it;
		unsigned slid, dlid;

		if (!vf_path_entries_allow(se, de, src == dst))
			continue;	/* the tables do not (yet) agree */
		vf_lid_iter_init(&it, r->pol->path_selection, &s, &d);
		while (!r->full && made < r->numb_path &&
		       vf_lid_iter_next(&it, &slid, &dlid)) {
			osm_sa_item_t *item = record(r, src, dst, &sg, &dg,
						     (uint16_t)slid,
						     (uint16_t)dlid, a, se);

			if (item) {
				add(r, item);
				made++;
			}
		}
	}
	vf_path_answers_free(&ans);
}

/* --- end points --- */

struct ends {
	const osm_port_t *src, *dst;	/* NULL: every end port */
	const ib_gid_t *sgid, *dgid;	/* as the query gave them */
};

/* A GID of this subnet's port; *status set when there is none. */
static const osm_port_t *port_of_gid(const struct pr_req *r,
				     const ib_gid_t *gid, ib_net16_t *status)
{
	const osm_port_t *port;

	if (!ib_gid_is_link_local(gid) &&
	    gid->unicast.prefix != r->subn->opt.subnet_prefix) {
		*status = IB_SA_MAD_STATUS_INVALID_GID;
		return NULL;
	}
	port = osm_get_port_by_alias_guid(r->subn, gid->unicast.interface_id);
	if (!port)
		*status = IB_SA_MAD_STATUS_INVALID_GID;
	return port;
}

/*
 * One side of the query: its port from the GID and/or the LID given
 * (both: the same port), *gidp the GID as given; SUCCESS or a status.
 */
static ib_net16_t end_point(const struct pr_req *r, uint64_t gid_bit,
			    const ib_gid_t *gid, uint64_t lid_bit,
			    ib_net16_t lid, const osm_port_t **port,
			    const ib_gid_t **gidp)
{
	ib_net16_t status = IB_SA_MAD_STATUS_SUCCESS;
	const osm_port_t *by_lid;

	if (r->comp & gid_bit) {
		*port = port_of_gid(r, gid, &status);
		if (!*port)
			return status;
		*gidp = gid;
	}
	if (r->comp & lid_bit) {
		by_lid = osm_get_port_by_lid(r->subn, lid);
		if (!by_lid)
			return IB_SA_MAD_STATUS_NO_RECORDS;
		if (*port && *port != by_lid)
			return IB_SA_MAD_STATUS_REQ_INVALID;
		*port = by_lid;
	}
	return status;
}

/* The query's end points; an SA status other than SUCCESS on failure. */
static ib_net16_t end_points(const struct pr_req *r, struct ends *e)
{
	const ib_path_rec_t *pr = r->pr;
	ib_net16_t status;

	memset(e, 0, sizeof(*e));
	status = end_point(r, PR_SGID, &pr->sgid, PR_SLID, pr->slid, &e->src,
			   &e->sgid);
	if (status != IB_SA_MAD_STATUS_SUCCESS)
		return status;
	return end_point(r, PR_DGID, &pr->dgid, PR_DLID, pr->dlid, &e->dst,
			 &e->dgid);
}

/* A side's first port: the fixed one, or OpenSM's first. */
static const osm_port_t *first(const struct pr_req *r, const osm_port_t *fixed)
{
	const cl_qmap_t *ports = &r->subn->port_guid_tbl;
	const cl_map_item_t *i = cl_qmap_head(ports);

	if (fixed)
		return fixed;
	return i == cl_qmap_end(ports) ? NULL : (const osm_port_t *)i;
}

/* The next port of an open side; NULL after the last (or a fixed one). */
static const osm_port_t *next(const struct pr_req *r, const osm_port_t *fixed,
			      const osm_port_t *at)
{
	const cl_map_item_t *i;

	if (fixed)
		return NULL;
	i = cl_qmap_next(&at->map_item);
	return i == cl_qmap_end(&r->subn->port_guid_tbl) ? NULL :
	       (const osm_port_t *)i;
}

/* Every pair over the open sides, in OpenSM's port order. */
static void answer(struct pr_req *r, const struct ends *e)
{
	for (const osm_port_t *s = first(r, e->src); s && !r->full;
	     s = next(r, e->src, s))
		for (const osm_port_t *d = first(r, e->dst); d && !r->full;
		     d = next(r, e->dst, d))
			pair(r, s, d, e->sgid, e->dgid);
}

/* The request's own faults, before any lookup; SUCCESS when none. */
static ib_net16_t malformed(const struct pr_req *r)
{
	const ib_path_rec_t *pr = r->pr;

	if (r->mad->method != IB_MAD_METHOD_GET &&
	    r->mad->method != IB_MAD_METHOD_GETTABLE)
		return IB_MAD_STATUS_UNSUP_METHOD_ATTR;
	if (r->comp & PR_RESERVED)
		return IB_SA_MAD_STATUS_REQ_INVALID;
	if ((r->comp & PR_SID) && (r->comp & PR_SID) != PR_SID)
		return IB_SA_MAD_STATUS_INSUF_COMPS;
	if ((r->comp & PR_NUMBPATH) && !ib_path_rec_num_path(pr))
		return IB_SA_MAD_STATUS_REQ_INVALID;
	if ((r->comp & PR_MTU_SEL) && (r->comp & PR_MTU) &&
	    !ib_mtu_is_valid(ib_path_rec_mtu(pr)))
		return IB_SA_MAD_STATUS_REQ_INVALID;
	if ((r->comp & PR_RATE_SEL) && (r->comp & PR_RATE) &&
	    !ib_rate_is_valid(ib_path_rec_rate(pr)))
		return IB_SA_MAD_STATUS_REQ_INVALID;
	return IB_SA_MAD_STATUS_SUCCESS;
}

/*
 * sa_log=on: each answer on one line, its records as SLID>DLID P_Key/SL,
 * the first LOG_RECORDS of them (the tests read whole answers here:
 * ibsim's umad2sim delivers only the first 256 bytes of a response).
 */
#define LOG_RECORDS 64
static void log_answer(const struct pr_req *r, uint16_t requester_lid)
{
	char line[LOG_RECORDS * 24 + 1];
	size_t len = 0;
	unsigned n = 0;

	line[0] = '\0';
	for (const cl_list_item_t *i = cl_qlist_head(&r->list);
	     i != cl_qlist_end(&r->list) && n < LOG_RECORDS;
	     i = cl_qlist_next(i), n++) {
		const ib_path_rec_t *pr = item_path_rec((void *)i);

		len += (size_t)snprintf(line + len, sizeof(line) - len,
				" %u>%u/0x%04x/%u", cl_ntoh16(pr->slid),
				cl_ntoh16(pr->dlid), cl_ntoh16(pr->pkey),
				ib_path_rec_sl(pr));
	}
	vf_log(VF_LOG_INFO,
	       "sa: %s from LID %u (comp_mask 0x%llx, %s): %u records:%s%s",
	       r->mad->method == IB_MAD_METHOD_GETMULTI ?
	       "MultiPathRecord GetMulti" : r->get ? "PathRecord Get" :
	       "PathRecord GetTable", requester_lid,
	       (unsigned long long)r->comp,
	       vf_path_selection_name(r->pol->path_selection), r->count, line,
	       r->count > n ? " ..." : "");
}

/* The answer: an error status, or the records (logged with sa_log). */
static void respond(struct vf_plugin *p, struct osm_madw *madw,
		    struct pr_req *r, ib_net16_t status)
{
	osm_sa_t *sa = &p->osm->sa;
	cl_list_item_t *i;

	if (status != IB_SA_MAD_STATUS_SUCCESS) {
		/* nothing kept: a failure comes before any record */
		while ((i = cl_qlist_remove_head(&r->list)) !=
		       cl_qlist_end(&r->list))
			free(i);
		vf_sa_send_error(p, madw, status, VF_SA_REASON_BY_STATUS);
		return;
	}
	if (p->opts.sa_log)
		log_answer(r, cl_ntoh16(osm_madw_get_mad_addr_ptr(madw)->dest_lid));
	if (r->count >= MAX_RECORDS)
		vf_log(VF_LOG_INFO,
		       "sa: answer cut at %u records (comp_mask 0x%llx)",
		       r->max_records, (unsigned long long)r->comp);
	vf_sa_budget_charge(p, madw, r->count);
	vf_metrics_sa_answered(p->metrics,
			       r->mad->method == IB_MAD_METHOD_GETMULTI ?
			       VF_MSA_MULTIPATH_RECORD : VF_MSA_PATH_RECORD);
	/* frees the items; Get with two or none gets its error status */
	osm_sa_respond(sa, madw, sizeof(ib_path_rec_t), &r->list);
}

void vf_sa_path_record(struct vf_plugin *p, const struct vf_sa_policy *pol,
		       struct osm_madw *madw)
{
	osm_sa_t *sa = &p->osm->sa;
	const ib_sa_mad_t *mad = osm_madw_get_sa_mad_ptr(madw);
	struct pr_req r = {
		.p = p, .pol = pol, .subn = &p->osm->subn, .mad = mad,
		.pr = ib_sa_mad_get_payload_ptr(mad),
		.comp = cl_ntoh64(mad->comp_mask),
		.get = mad->method == IB_MAD_METHOD_GET,
		.max_records = MAX_RECORDS,
	};
	ib_net16_t status = malformed(&r);
	struct ends e;

	if (status != IB_SA_MAD_STATUS_SUCCESS) {
		vf_sa_send_error(p, madw, status, VF_SA_REASON_BY_STATUS);
		return;
	}
	if ((r.comp & PR_DGID) && ib_gid_is_multicast(&r.pr->dgid)) {
		p->sa.pr.cb(p->sa.pr.context, madw);
		return;
	}
	if (vf_sa_budget_refused(p, madw))
		return;
	r.numb_path = r.get ? 1 : (r.comp & PR_NUMBPATH) ?
		      ib_path_rec_num_path(r.pr) : ~0u;
	cl_qlist_init(&r.list);
	cl_plock_acquire(sa->p_lock);
	r.requester = osm_get_port_by_mad_addr(sa->p_log, r.subn,
					       osm_madw_get_mad_addr_ptr(madw));
	status = r.requester ? end_points(&r, &e) : IB_SA_MAD_STATUS_REQ_INVALID;
	if (status == IB_SA_MAD_STATUS_SUCCESS)
		answer(&r, &e);
	cl_plock_release(sa->p_lock);
	respond(p, madw, &r, status);
}

/* --- MultiPathRecord (IBA 15.2.5.20) --- */

#define MPR(bit) ((uint64_t)1 << (bit))
enum {
	MPR_RAW = MPR(0), MPR_FLOWLABEL = MPR(2), MPR_HOPLIMIT = MPR(3),
	MPR_TCLASS = MPR(4), MPR_REVERSIBLE = MPR(5), MPR_NUMBPATH = MPR(6),
	MPR_PKEY = MPR(7), MPR_QOS_CLASS = MPR(8), MPR_SL = MPR(9),
	MPR_MTU_SEL = MPR(10), MPR_MTU = MPR(11), MPR_RATE_SEL = MPR(12),
	MPR_RATE = MPR(13), MPR_LIFE_SEL = MPR(14), MPR_LIFE = MPR(15),
	MPR_SID = MPR(16) | MPR(21), MPR_SGIDCOUNT = MPR(19),
	MPR_DGIDCOUNT = MPR(20),
	MPR_RESERVED = MPR(1) | MPR(18) | ~(MPR(22) - 1),
};

/* The MultiPathRecord's query as a PathRecord one (pr, comp). */
static uint64_t as_path_query(const ib_multipath_rec_t *m, uint64_t mc,
			      ib_path_rec_t *pr)
{
	static const struct { uint64_t from, to; } bits[] = {
		{ MPR_RAW, PR_RAW }, { MPR_FLOWLABEL, PR_FLOWLABEL },
		{ MPR_HOPLIMIT, PR_HOPLIMIT }, { MPR_TCLASS, PR_TCLASS },
		{ MPR_REVERSIBLE, PR_REVERSIBLE }, { MPR_PKEY, PR_PKEY },
		{ MPR_QOS_CLASS, PR_QOS_CLASS }, { MPR_SL, PR_SL },
		{ MPR_MTU_SEL, PR_MTU_SEL }, { MPR_MTU, PR_MTU },
		{ MPR_RATE_SEL, PR_RATE_SEL }, { MPR_RATE, PR_RATE },
		{ MPR_LIFE_SEL, PR_LIFE_SEL }, { MPR_LIFE, PR_LIFE },
	};
	uint64_t comp = 0, sid = m->service_id_8msb;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (mc & bits[i].from)
			comp |= bits[i].to;
	if ((mc & MPR_SID) == MPR_SID)
		comp |= PR_SID;
	for (int i = 0; i < 7; i++)
		sid = sid << 8 | m->service_id_56lsb[i];
	memset(pr, 0, sizeof(*pr));
	pr->service_id = cl_hton64(sid);
	pr->hop_flow_raw = m->hop_flow_raw;
	pr->tclass = m->tclass;
	pr->num_path = m->num_path;
	pr->pkey = m->pkey;
	pr->qos_class_sl = m->qos_class_sl;
	pr->mtu = m->mtu;
	pr->rate = m->rate;
	pr->pkt_life = m->pkt_life;
	return comp;
}

static ib_net16_t mpr_malformed(const ib_sa_mad_t *mad,
				const ib_multipath_rec_t *m, uint64_t mc)
{
	if (mad->method != IB_MAD_METHOD_GETMULTI)
		return IB_MAD_STATUS_UNSUP_METHOD_ATTR;
	/* the request itself travels by RMPP (OpenSM's rule too) */
	if (!(mad->rmpp_flags & IB_RMPP_FLAG_ACTIVE))
		return IB_SA_MAD_STATUS_REQ_INVALID;
	if (mc & MPR_RESERVED)
		return IB_SA_MAD_STATUS_REQ_INVALID;
	if (!(mc & MPR_SGIDCOUNT) || !(mc & MPR_DGIDCOUNT) ||
	    !m->sgid_count || !m->dgid_count ||
	    ((mc & MPR_SID) && (mc & MPR_SID) != MPR_SID))
		return IB_SA_MAD_STATUS_INSUF_COMPS;
	if (m->sgid_count + m->dgid_count > IB_MULTIPATH_MAX_GIDS ||
	    ((mc & MPR_NUMBPATH) && !(m->num_path & 0x7f)) ||
	    ((mc & MPR_MTU_SEL) && (mc & MPR_MTU) &&
	     !ib_mtu_is_valid(m->mtu & 0x3f)) ||
	    ((mc & MPR_RATE_SEL) && (mc & MPR_RATE) &&
	     !ib_rate_is_valid(m->rate & 0x3f)))
		return IB_SA_MAD_STATUS_REQ_INVALID;
	return IB_SA_MAD_STATUS_SUCCESS;
}

void vf_sa_multipath_record(struct vf_plugin *p,
			    const struct vf_sa_policy *pol,
			    struct osm_madw *madw)
{
	osm_sa_t *sa = &p->osm->sa;
	const ib_sa_mad_t *mad = osm_madw_get_sa_mad_ptr(madw);
	const ib_multipath_rec_t *m = ib_sa_mad_get_payload_ptr(mad);
	uint64_t mc = cl_ntoh64(mad->comp_mask);
	ib_net16_t status = mpr_malformed(mad, m, mc);
	const osm_port_t *ports[IB_MULTIPATH_MAX_GIDS];
	ib_path_rec_t pr;
	struct pr_req r = {
		.p = p, .pol = pol, .subn = &p->osm->subn, .mad = mad,
		.pr = &pr, .numb_path = ~0u,
	};
	unsigned ns = m->sgid_count, n = ns + m->dgid_count;

	if (status != IB_SA_MAD_STATUS_SUCCESS) {
		vf_sa_send_error(p, madw, status, VF_SA_REASON_BY_STATUS);
		return;
	}
	if (vf_sa_budget_refused(p, madw))
		return;
	r.comp = as_path_query(m, mc, &pr);
	r.max_records = (mc & MPR_NUMBPATH) ? (m->num_path & 0x7fu) : 127;
	cl_qlist_init(&r.list);
	cl_plock_acquire(sa->p_lock);
	r.requester = osm_get_port_by_mad_addr(sa->p_log, r.subn,
					       osm_madw_get_mad_addr_ptr(madw));
	if (!r.requester)
		status = IB_SA_MAD_STATUS_REQ_INVALID;
	for (unsigned i = 0; i < n && status == IB_SA_MAD_STATUS_SUCCESS; i++)
		ports[i] = port_of_gid(&r, &m->gids[i], &status);
	for (unsigned i = 0; i < ns && status == IB_SA_MAD_STATUS_SUCCESS &&
	     !r.full; i++)
		for (unsigned j = ns; j < n && !r.full; j++)
			pair(&r, ports[i], ports[j], &m->gids[i], &m->gids[j]);
	cl_plock_release(sa->p_lock);
	respond(p, madw, &r, status);
}
