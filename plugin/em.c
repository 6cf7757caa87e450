// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The Ethernet Manager (docs/ethernet-manager.md): configures the VNIC
 * endpoints of the configured virtual Ethernet switches through the EMA
 * class (docs/ema-protocol.md).
 *
 * At SUBNET_UP (sweeper thread) the policy is resolved on the subnet
 * (vnic/empolicy.h) and handed to the EM's own thread, which runs a pass:
 *   A. Get ClassPortInfo from every member port (a port with no endpoint
 *      is logged once and probed again only after a growing number of
 *      passes);
 *   B. Set ClassPortInfo where the trap LID is not the SM's; Get both
 *      parts of VeswPortInfo of every member vport; DeleteVesw on the
 *      vports configured before and no longer wanted; fetch the host's
 *      unicast MACs where their generation count moved unseen (a lost
 *      trap) or is not known (an SM restart);
 *   C. Set part 0 and part 1 (DROP_ALL) of new or changed vESWs;
 *   D. Set the MAC table where its digest differs, clearing up to where
 *      it reached before (read back when the EM has no record of it);
 *   E. Set part 1 FORWARDING where anything differed;
 *   F. Get the summary counters, write the state file, log one line.
 * Nothing is Set where the endpoint already holds what the policy wants.
 * Traps are queued by the receiver thread and handled by the EM thread:
 * opcode 1 fetches the host's unicast MACs and runs a pass (the vESW's
 * other members learn them), 2 fetches the multicast list's size, 3
 * reads and logs the link state.  OpenSM's threads never wait for an
 * endpoint.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/em.h"
#include "plugin/madbatch.h"
#include "plugin/metrics.h"
#include "plugin/plugin.h"
#include "common/log.h"

#define EM_WINDOW 16		/* requests in flight */
#define EM_TIMEOUT_MS 1100	/* the endpoints' response time, 1.07 s */
#define EM_RETRIES 1
#define EM_TID_BASE 0xE3000000u	/* low 32 bits: clear of OpenSM's own */

_Static_assert(VF_EMA_MAD_SIZE == MB_MAD_SIZE && VF_EMA_USED <= MB_USED,
	       "EM MADs fit plugin/madbatch.h's requests");

#define EM_BUDGET_MS 20000	/* one pass, all batches */
#define EM_RECHECK_MS 5000	/* idle: a quiet pass (absent ports, counters) */
#define EM_BACKOFF_MS 5000	/* an absent port: probed again after 5 s, */
#define EM_MAX_BACKOFF_MS 300000	/* doubling up to 5 minutes */
#define EM_TRAPS 64		/* queued, the rest dropped */
#define EM_MAX_TABLE 256	/* MAC entries the EM writes per vport */
#define EM_BAD_LOGS 5		/* malformed MADs logged one by one */

struct em_trap_ev {
	uint16_t slid;
	struct vf_ema_trap t;
};

/* A CA port that may hold an endpoint, for the read-back after a start. */
struct em_cand {
	uint64_t guid;
	uint16_t lid;
};

struct vf_em_state {
	struct vf_plugin *p;
	struct madbatch mad;
	pthread_t thread;
	bool running, stop;
	pthread_mutex_t lock;		/* the hand-offs below */
	pthread_cond_t cond;
	struct vf_em_plan *next;	/* posted by SUBNET_UP */
	struct em_cand *next_cands;	/* with it, when a read-back is due */
	unsigned next_ncands;
	bool recon_due;			/* start, or OpenSM left MASTER */
	uint64_t key;			/* the EM key (never 0) */
	uint16_t lease;			/* em_key_lease */
	struct em_trap_ev traps[EM_TRAPS];
	unsigned num_traps, dropped_traps, bad_mads;
	/* EM thread only */
	struct em_cand *cands;		/* read back in the next sweep pass */
	unsigned ncands;
	struct vf_em_plan plan;
	bool have_plan;
	struct em_ep *eps;
	unsigned num_eps;
	struct em_member_st *st;	/* per plan member, this pass */
	unsigned passes;
	struct vf_vport *scratch;	/* a decoded part 1 (big) */
};

static struct em_ep *find_ep(struct vf_em_state *e, uint64_t guid, bool add)
{
	struct em_ep *grown;

	for (unsigned i = 0; i < e->num_eps; i++)
		if (e->eps[i].guid == guid)
			return &e->eps[i];
	if (!add)
		return NULL;
	grown = realloc(e->eps, (e->num_eps + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	e->eps = grown;
	memset(&grown[e->num_eps], 0, sizeof(*grown));
	grown[e->num_eps].guid = guid;
	return &grown[e->num_eps++];
}

static struct em_ep *ep_by_lid(struct vf_em_state *e, uint16_t lid)
{
	for (unsigned i = 0; lid && i < e->num_eps; i++)
		if (e->eps[i].lid == lid)
			return &e->eps[i];
	return NULL;
}

static struct mb_req *req_init(struct mb_req *r, uint16_t lid, unsigned ep,
			       unsigned vport, int step, uint8_t method,
			       uint16_t attr, uint32_t amod)
{
	memset(r, 0, sizeof(*r));
	r->lid = lid;
	r->ep = ep;
	r->vport = vport;
	r->step = step;
	vf_ema_init(r->mad, method, 0, attr, amod);
	return r;
}

/* Send requests r[0..n): every one carries the key (docs/ema-protocol.md). */
static void em_mb_run(struct vf_em_state *e, struct mb_req *r, unsigned n,
		      uint64_t end)
{
	for (unsigned i = 0; i < n; i++)
		vf_ema_put_key(r[i].mad, e->key);
	mb_run(&e->mad, r, n, end);
}

/* --- unsolicited MADs: the vendor's receiver thread --- */

static void log_bad(struct vf_em_state *e, uint16_t slid, const char *what,
		    uint16_t status)
{
	unsigned n = __atomic_add_fetch(&e->bad_mads, 1, __ATOMIC_RELAXED);

	if (n <= EM_BAD_LOGS)
		vf_log(VF_LOG_WARN,
		       "em: ignored a malformed or unexpected MAD from LID %u: %s (%s)%s",
		       slid, what, vf_ema_status_name(status),
		       n == EM_BAD_LOGS ? "; further ones are only counted" :
		       "");
}

static void unsolicited(void *ctx, const uint8_t *mad, size_t len,
			uint16_t slid)
{
	struct vf_em_state *e = ctx;
	struct vf_ema_hdr h;
	struct em_trap_ev ev = { .slid = slid };
	uint16_t st = vf_ema_get_hdr(mad, len, &h);

	if (st) {
		log_bad(e, slid, "bad header", st);
		return;
	}
	if (h.method == VF_EMA_GET || h.method == VF_EMA_SET) {
		/* the EM is no agent: say so, as an agent would */
		log_bad(e, slid, "a request to the EM", VF_EMA_BAD_ATTR);
		mb_reject(&e->mad, mad, len, VF_EMA_DATA, slid,
			  VF_EMA_BAD_ATTR);
		return;
	}
	if (h.method != VF_EMA_TRAP || h.attr_id != VF_EMA_NOTICE) {
		log_bad(e, slid, "not a Trap", VF_EMA_BAD_METHOD);
		return;
	}
	st = vf_ema_get_trap(mad, len, &ev.t);
	if (st) {
		log_bad(e, slid, "bad trap notice", st);
		return;
	}
	pthread_mutex_lock(&e->lock);
	if (e->num_traps < EM_TRAPS)
		e->traps[e->num_traps++] = ev;
	else
		e->dropped_traps++;
	pthread_cond_signal(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

/* --- a pass --- */

static bool same_vesw(const struct vf_vesw *a, const struct vf_vesw *b)
{
	return a->fabric_id == b->fabric_id && a->vesw_id == b->vesw_id &&
	       a->def_port_mask == b->def_port_mask && a->pkey == b->pkey &&
	       a->u_mcast_dlid == b->u_mcast_dlid && a->rc == b->rc &&
	       a->eth_mtu == b->eth_mtu &&
	       !memcmp(a->u_ucast_dlid, b->u_ucast_dlid,
		       sizeof(a->u_ucast_dlid));
}

/* The vport part the policy wants, with config_state cs. */
static void fill_vport(struct vf_vport *v, const struct vf_em_want *w,
		       uint8_t cs)
{
	v->port_num = w->port_num;
	memcpy(v->base_mac, w->base_mac, 6);
	v->config_state = cs;
	v->encap_slid = w->encap_slid;
	memset(v->pcp_to_sc_uc, w->sc, VF_VPORT_PCP);
	memset(v->pcp_to_sc_mc, w->sc, VF_VPORT_PCP);
	memset(v->pcp_to_vl_uc, w->vl, VF_VPORT_PCP);
	memset(v->pcp_to_vl_mc, w->vl, VF_VPORT_PCP);
	v->non_vlan_sc_uc = v->non_vlan_sc_mc = w->sc;
	v->non_vlan_vl_uc = v->non_vlan_vl_mc = w->vl;
}

static bool same_vport(const struct vf_vport *have, const struct vf_em_want *w)
{
	struct vf_vport *x = calloc(1, sizeof(*x));
	bool same;

	if (!x)
		return false;
	fill_vport(x, w, VF_VPORT_FORWARDING);
	same = have->port_num == x->port_num &&
	       !memcmp(have->base_mac, x->base_mac, 6) &&
	       have->encap_slid == x->encap_slid &&
	       !memcmp(have->pcp_to_sc_uc, x->pcp_to_sc_uc, VF_VPORT_PCP) &&
	       !memcmp(have->pcp_to_sc_mc, x->pcp_to_sc_mc, VF_VPORT_PCP) &&
	       !memcmp(have->pcp_to_vl_uc, x->pcp_to_vl_uc, VF_VPORT_PCP) &&
	       !memcmp(have->pcp_to_vl_mc, x->pcp_to_vl_mc, VF_VPORT_PCP) &&
	       have->non_vlan_sc_uc == x->non_vlan_sc_uc &&
	       have->non_vlan_sc_mc == x->non_vlan_sc_mc &&
	       have->non_vlan_vl_uc == x->non_vlan_vl_uc &&
	       have->non_vlan_vl_mc == x->non_vlan_vl_mc;
	free(x);
	return same;
}

static struct vf_em_macs *learned_of(struct vf_em_state *e)
{
	struct vf_em_macs *l = calloc(e->plan.num_members + 1, sizeof(*l));

	for (unsigned i = 0; l && i < e->plan.num_members; i++) {
		const struct vf_em_member *mb = &e->plan.members[i];
		struct em_ep *ep = find_ep(e, mb->guid, false);

		if (ep && mb->vport < VF_EMA_MAX_VPORTS) {
			l[i].n = ep->vp[mb->vport].num_uc;
			l[i].mac = ep->vp[mb->vport].uc;
		}
	}
	return l;
}

/* Should ep be probed this pass?  Absent ones wait 5 s, 10 s, 20 s... */
static bool probe_due(struct em_ep *ep)
{
	return ep->cap != EM_CAP_ABSENT || ep->recon ||
	       (uint64_t)vf_now_ms() >= ep->next_probe;
}

static void probe_result(struct vf_em_state *e, struct em_ep *ep,
			 const struct mb_req *r, uint16_t sm_lid, bool *set_cpi)
{
	struct vf_ema_cpi c;

	*set_cpi = false;
	if (!mb_answered(r) ||
	    vf_ema_get_cpi(r->resp, r->resp_len, &c) ||
	    c.base_version != VF_EMA_BASE_VERSION ||
	    c.class_version != VF_EMA_CLASS_VERSION || !(c.cap_mask & 1)) {
		uint64_t wait = (uint64_t)EM_BACKOFF_MS <<
				(ep->misses < 10 ? ep->misses : 10);

		/* a CA read back after a start need not have one */
		if (!ep->absent_logged && ep->in_plan)
			vf_log(VF_LOG_INFO,
			       "em: port 0x%016" PRIx64 " (LID %u): no VNIC endpoint (%s); probed again later",
			       ep->guid, ep->lid,
			       r->state == MB_DONE ? "it answers with an error" :
			       r->bounced ? "nobody handles the class there" :
			       "no answer");
		ep->absent_logged = ep->in_plan;
		ep->cap = EM_CAP_ABSENT;
		ep->key_ok = false;	/* a new agent there holds none */
		ep->misses++;
		ep->next_probe = (uint64_t)vf_now_ms() +
				 (wait < EM_MAX_BACKOFF_MS ? wait :
				  EM_MAX_BACKOFF_MS);
		return;
	}
	if (ep->cap != EM_CAP_YES)
		vf_log(VF_LOG_INFO,
		       "em: port 0x%016" PRIx64 " (LID %u): VNIC endpoint with %u vports",
		       ep->guid, ep->lid, c.cap_mask >> 8);
	ep->cap = EM_CAP_YES;
	ep->misses = 0;
	ep->absent_logged = false;
	ep->num_vports = c.cap_mask >> 8;
	*set_cpi = c.trap_lid != sm_lid;
}

/* Steps of the requests, to read their answers. */
enum { S_CPI, S_SET_CPI, S_P0, S_P1, S_DEL, S_SET_P0, S_SET_P1, S_SCAN,
       S_MAC, S_FWD, S_CTR, S_KEY, S_SET_KEY, S_RECON };

struct pass {
	struct mb_req *r;
	unsigned n, cap;
	unsigned mads, sets, configured, unchanged, absent, failed, deleted;
};

static struct mb_req *add(struct pass *ps)
{
	/* out of memory: the request is built here and never sent */
	static __thread struct mb_req sink;

	if (ps->n == ps->cap) {
		unsigned cap = ps->cap ? 2 * ps->cap : 64;
		struct mb_req *g = realloc(ps->r, cap * sizeof(*g));

		if (!g)
			return &sink;
		ps->r = g;
		ps->cap = cap;
	}
	return &ps->r[ps->n++];
}

static void run(struct vf_em_state *e, struct pass *ps, uint64_t end)
{
	em_mb_run(e, ps->r, ps->n, end);
	ps->mads += ps->n;
	for (unsigned i = 0; i < ps->n; i++)
		if (ps->r[i].mad[3] == VF_EMA_SET)
			ps->sets++;
}

static void set_cpi(struct mb_req *r, uint16_t sm_lid, uint8_t sm_sl)
{
	struct vf_ema_cpi c = { 0 };

	c.base_version = VF_EMA_BASE_VERSION;
	c.class_version = VF_EMA_CLASS_VERSION;
	c.trap_lid = sm_lid;
	c.trap_sl = (uint8_t)(sm_sl << 3);
	c.trap_pkey = 0xffff;
	c.trap_qkey = 0x80010000;	/* QP1's well-known Q_Key */
	c.trap_hl_qp = 1;
	vf_ema_put_cpi(r->mad, &c);
}

static void pass_members(struct vf_em_state *e, struct pass *ps,
			 uint16_t sm_lid, uint64_t end);

/*
 * Every CA port the sweep after a start or takeover found is read back
 * this pass (batch_readback): members and the others alike.
 */
static void take_cands(struct vf_em_state *e)
{
	for (unsigned i = 0; i < e->ncands; i++) {
		struct em_ep *ep = find_ep(e, e->cands[i].guid, true);

		if (!ep)
			break;
		if (!ep->in_plan) {
			if (ep->lid != e->cands[i].lid)
				ep->cpi_ok = false;
			ep->lid = e->cands[i].lid;
		}
		ep->recon = true;
	}
	free(e->cands);
	e->cands = NULL;
	e->ncands = 0;
}

/*
 * A SUBNET UP means the fabric changed: a port came back, or an agent
 * started (it takes the issm flag: trap 144, a heavy sweep).  Member
 * ports without an endpoint are probed again now, their back-off reset,
 * rather than up to 5 minutes later.
 */
static void reset_backoff(struct vf_em_state *e)
{
	unsigned n = 0;

	for (unsigned i = 0; i < e->num_eps; i++) {
		struct em_ep *ep = &e->eps[i];

		if (!ep->in_plan || ep->cap != EM_CAP_ABSENT)
			continue;
		n += ep->next_probe > (uint64_t)vf_now_ms();
		ep->misses = 0;
		ep->next_probe = 0;
	}
	if (n)
		vf_log(VF_LOG_INFO,
		       "em: SUBNET UP: %u member ports without an endpoint probed again now, not after their back-off",
		       n);
}

static void do_pass(struct vf_em_state *e, const char *why, bool quiet)
{
	struct pass ps = { 0 };
	uint16_t sm_lid = cl_ntoh16(e->p->osm->subn.sm_base_lid);
	uint64_t end = (uint64_t)vf_now_ms() + EM_BUDGET_MS;
	double t0 = vf_now_ms();

	e->passes++;
	free(e->st);
	e->st = calloc(e->plan.num_members + 1, sizeof(*e->st));
	if (!e->st)
		return;
	for (unsigned i = 0; i < e->num_eps; i++)
		e->eps[i].in_plan = false;
	for (unsigned i = 0; i < e->plan.num_members; i++) {
		const struct vf_em_member *mb = &e->plan.members[i];
		struct em_ep *ep = find_ep(e, mb->guid, true);

		if (!ep)
			return;
		if (ep->lid != mb->lid)
			ep->cpi_ok = false;
		ep->lid = mb->lid;
		ep->in_plan = true;
	}
	take_cands(e);
	if (!strcmp(why, "sweep"))
		reset_backoff(e);
	pass_members(e, &ps, sm_lid, end);
	free(ps.r);
	vf_em_state_write(e->p, &e->plan, e->eps, e->num_eps, e->st,
			  e->passes,
			  __atomic_load_n(&e->bad_mads, __ATOMIC_RELAXED));
	/* from the EM's thread: the file is rewritten when a figure moved */
	if (vf_metrics_em(e->p->metrics, ps.configured, ps.unchanged,
			  ps.absent, ps.failed))
		vf_metrics_write(e->p->metrics);
	if (quiet && !ps.sets && !ps.failed)
		return;
	vf_log(VF_LOG_INFO,
	       "em: pass %u (%s): %u vESWs, %u endpoints configured (%u MADs, %u Sets), %u unchanged, %u without an endpoint, %u failed, %u removed, %.1f ms",
	       e->passes, why, e->plan.num_vesws, ps.configured, ps.mads,
	       ps.sets, ps.unchanged, ps.absent, ps.failed, ps.deleted,
	       vf_now_ms() - t0);
}

/* Batch A: which member ports have an endpoint. */
static void batch_probe(struct vf_em_state *e, struct pass *ps,
			uint16_t sm_lid, uint64_t end)
{
	ps->n = 0;
	for (unsigned i = 0; i < e->num_eps; i++) {
		struct em_ep *ep = &e->eps[i];
		bool stale = false;

		ep->alive = false;
		for (unsigned v = 0; v < VF_EMA_MAX_VPORTS; v++)
			stale |= ep->vp[v].ours && !ep->in_plan;
		if ((!ep->in_plan && !stale && !ep->recon) || !ep->lid ||
		    !probe_due(ep))
			continue;
		req_init(add(ps), ep->lid, i, 0, S_CPI, VF_EMA_GET,
			 VF_EMA_CLASS_PORT_INFO, 0);
	}
	run(e, ps, end);
	for (unsigned k = 0; k < ps->n; k++) {
		struct em_ep *ep = &e->eps[ps->r[k].ep];
		bool need;

		probe_result(e, ep, &ps->r[k], sm_lid, &need);
		ep->alive = ep->cap == EM_CAP_YES;
		ep->cpi_ok = ep->alive && !need;
	}
}

static int fetch_ucast(struct vf_em_state *e, struct em_ep *ep, unsigned v);

/*
 * Say once that ep holds another EM's key: its Sets are refused (0x0300)
 * until the lease our refused Set started runs out.  k: its EMKeyInfo.
 */
static void log_other_key(struct em_ep *ep, const struct vf_ema_key_info *k)
{
	if (ep->key_logged)
		return;
	ep->key_logged = true;
	if (!k->lease_s)
		vf_log(VF_LOG_ERROR,
		       "ERR VF1205: em: port 0x%016" PRIx64 " (LID %u) holds another EM's key with lease 0 (it never runs out): its Sets are refused (0x0300) and it is left as it is; give this SM that EM's em_key",
		       ep->guid, ep->lid);
	else
		vf_log(VF_LOG_WARN,
		       "em: port 0x%016" PRIx64 " (LID %u) holds another EM's key: its Sets are refused (0x0300) and it is left as it is until its lease runs out, at most %u s from now (lease %u s)",
		       ep->guid, ep->lid,
		       k->lease_left_s ? k->lease_left_s : k->lease_s,
		       k->lease_s);
}

/* Set EMKeyInfo to the EM's key and lease, carrying the key. */
static void req_set_key(struct vf_em_state *e, struct mb_req *r,
			const struct em_ep *ep, unsigned i)
{
	struct vf_ema_key_info k = { .key = e->key, .lease_s = e->lease };

	req_init(r, ep->lid, i, 0, S_SET_KEY, VF_EMA_SET, VF_EMA_KEY_INFO, 0);
	vf_ema_put_key_info(r->mad, &k);
}

/* Which endpoints hold the EM's key and lease: Get EMKeyInfo with it. */
static void key_check(struct vf_em_state *e, struct pass *ps, uint64_t end)
{
	struct vf_ema_key_info k;

	ps->n = 0;
	for (unsigned i = 0; i < e->num_eps; i++)
		if (e->eps[i].alive)
			req_init(add(ps), e->eps[i].lid, i, 0, S_KEY,
				 VF_EMA_GET, VF_EMA_KEY_INFO, 0);
	run(e, ps, end);
	for (unsigned j = 0; j < ps->n; j++) {
		struct mb_req *r = &ps->r[j];
		struct em_ep *ep = &e->eps[r->ep];

		if (!mb_answered(r) ||
		    vf_ema_get_key_info(r->resp, r->resp_len, &k)) {
			ep->alive = false;	/* gone since the probe */
			continue;
		}
		/* the key is shown only to a request that carries it */
		ep->key_ok = k.key == e->key && k.lease_s == e->lease;
	}
}

/* ep refused our key (0x0300): log what it holds, the lease is public. */
static void key_refused(struct vf_em_state *e, struct mb_req *r,
			struct em_ep *ep, uint64_t end)
{
	struct vf_ema_key_info k = { 0 };

	req_init(r, ep->lid, r->ep, 0, S_KEY, VF_EMA_GET, VF_EMA_KEY_INFO, 0);
	em_mb_run(e, r, 1, end);
	if (mb_answered(r))
		vf_ema_get_key_info(r->resp, r->resp_len, &k);
	log_other_key(ep, &k);
}

/*
 * A': the EM key on every endpoint that answered (docs/ethernet-
 * manager.md, "Authentication").  One that does not hold it (and the
 * lease) is sent a Set of EMKeyInfo: one that holds none takes it; one
 * that holds another refuses it, which starts its lease timer, and is
 * left alone this pass (logged once).  A standby with the same key takes
 * over at once.
 */
static void batch_key(struct vf_em_state *e, struct pass *ps, uint64_t end)
{
	key_check(e, ps, end);
	ps->n = 0;
	for (unsigned i = 0; i < e->num_eps; i++)
		if (e->eps[i].alive && !e->eps[i].key_ok)
			req_set_key(e, add(ps), &e->eps[i], i);
	run(e, ps, end);
	for (unsigned j = 0; j < ps->n; j++) {
		struct mb_req *r = &ps->r[j];
		struct em_ep *ep = &e->eps[r->ep];

		if (mb_answered(r)) {
			if (ep->key_logged)
				vf_log(VF_LOG_INFO,
				       "em: port 0x%016" PRIx64 " (LID %u) now holds this EM's key",
				       ep->guid, ep->lid);
			ep->key_ok = true;
			ep->key_logged = false;
			continue;
		}
		ep->alive = false;
		if (r->state == MB_DONE && r->status == VF_EMA_BAD_KEY)
			key_refused(e, r, ep, end);
	}
}

/*
 * R: after a start or a takeover the EM has no record of what the
 * endpoints hold, and an endpoint removed from the policy meanwhile
 * would keep forwarding.  Read part 0 of every vport of every endpoint
 * that answered; a vport with a vESW the policy does not give it there
 * is marked the EM's, so that step B deletes it like any stale one.
 */
static void batch_readback(struct vf_em_state *e, struct pass *ps,
			   uint64_t end)
{
	struct vf_vesw w;

	ps->n = 0;
	for (unsigned i = 0; i < e->num_eps; i++) {
		struct em_ep *ep = &e->eps[i];

		for (unsigned v = 0; ep->recon && ep->alive &&
		     v < ep->num_vports && v < VF_EMA_MAX_VPORTS; v++)
			req_init(add(ps), ep->lid, i, v, S_RECON, VF_EMA_GET,
				 VF_EMA_VESWPORT_INFO,
				 vf_ema_amod(v, VF_EMA_PART_VESW));
	}
	run(e, ps, end);
	for (unsigned k = 0; k < ps->n; k++) {
		struct mb_req *r = &ps->r[k];
		struct em_ep *ep = &e->eps[r->ep];

		if (!mb_answered(r) ||
		    vf_ema_get_vesw(r->resp, r->resp_len, &w) || !w.vesw_id ||
		    (ep->in_plan && vf_em_find(&e->plan, ep->guid, r->vport) >= 0))
			continue;
		vf_log(VF_LOG_INFO,
		       "em: port 0x%016" PRIx64 " (LID %u) vport %u holds vESW %u, which the policy does not give it: removing it",
		       ep->guid, ep->lid, r->vport, w.vesw_id);
		ep->vp[r->vport].ours = true;
		ep->vp[r->vport].vesw_id = w.vesw_id;
	}
	for (unsigned i = 0; i < e->num_eps; i++)
		e->eps[i].recon = false;
}

/*
 * B': the host lists whose generation moved since the EM last fetched
 * them (their trap was lost: traps are rate-limited and never retried)
 * or that it has no record of (an SM restart) are fetched as a trap
 * would have them fetched.  True when one changed: the MAC tables
 * decided next carry it.
 */
static bool poll_host_macs(struct vf_em_state *e)
{
	const struct vf_em_plan *pl = &e->plan;
	bool moved = false;

	for (unsigned m = 0; m < pl->num_members; m++) {
		const struct vf_em_member *mb = &pl->members[m];
		const struct em_member_st *st = &e->st[m];
		struct em_ep *ep = &e->eps[st->ep];
		struct em_vp *vp = &ep->vp[mb->vport];

		/* a vport about to be (re)created is polled next pass */
		if (st->state != EM_ST_PENDING ||
		    !same_vesw(&st->have_vesw, &mb->want.vesw) ||
		    (vp->uc_known && vp->uc_gen == st->uc_gen))
			continue;
		if (fetch_ucast(e, ep, mb->vport) <= 0)
			continue;
		vf_log(VF_LOG_INFO,
		       "em: LID %u vport %u (vESW %u): unicast MAC generation %u, no trap seen for it: the host has %u unicast MACs of its own; telling the other members",
		       ep->lid, mb->vport, mb->want.vesw.vesw_id, vp->uc_gen,
		       vp->num_uc);
		moved = true;
	}
	return moved;
}

/*
 * D': how far the MAC tables reach that must be rewritten and the EM has
 * no record of (an SM restart): read slice by slice past what it will
 * write (vf_em_scan_page), all such tables a slice per batch, so that
 * the stale entries there are cleared.  reach[m] gets the end.
 */
static void scan_tables(struct vf_em_state *e, struct pass *ps,
			unsigned *reach, uint64_t end)
{
	const struct vf_em_plan *pl = &e->plan;
	unsigned *next = calloc(pl->num_members + 1, sizeof(*next));

	if (!next)
		return;
	for (unsigned m = 0; m < pl->num_members; m++) {
		const struct em_member_st *st = &e->st[m];

		next[m] = st->state == EM_ST_PENDING && st->macs &&
			  !e->eps[st->ep].vp[pl->members[m].vport].mac_known ?
			  vf_em_scan_start(st->num_macs) : VF_VPORT_MAC_TABLE;
	}
	for (;;) {
		ps->n = 0;
		for (unsigned m = 0; m < pl->num_members; m++) {
			const struct em_member_st *st = &e->st[m];
			unsigned v = pl->members[m].vport, left;
			struct vf_ema_mac_slice h = { .offset = 0 };
			struct mb_req *r;

			if (next[m] >= VF_VPORT_MAC_TABLE)
				continue;
			left = VF_VPORT_MAC_TABLE - next[m];
			h.offset = (uint16_t)next[m];
			h.num = (uint16_t)(left < VF_EMA_MACS_PER_MAD ? left :
					   VF_EMA_MACS_PER_MAD);
			r = add(ps);
			req_init(r, e->eps[st->ep].lid, st->ep, v, S_SCAN,
				 VF_EMA_GET, VF_EMA_MAC_ENTRIES,
				 vf_ema_amod(v, 0));
			r->member = m;
			vf_ema_put_mac_entries(r->mad, &h, NULL);
		}
		if (!ps->n || (uint64_t)vf_now_ms() >= end)
			break;
		run(e, ps, end);
		for (unsigned k = 0; k < ps->n; k++) {
			struct mb_req *r = &ps->r[k];
			struct vf_vport_mac ent[VF_EMA_MACS_PER_MAD];
			struct vf_ema_mac_slice h;
			unsigned m = r->member, at = next[m];

			/* unreadable: the Set that follows says more */
			next[m] = VF_VPORT_MAC_TABLE;
			if (mb_answered(r) &&
			    !vf_ema_get_mac_entries(r->resp, r->resp_len, &h,
						    ent) &&
			    h.offset == at &&
			    vf_em_scan_page(at, ent, h.num, &reach[m]))
				next[m] = at + h.num;
		}
	}
	free(next);
}

/* B: the trap LID, both parts of every member vport, stale vports off. */
static void read_members(struct vf_em_state *e, struct pass *ps,
			 uint16_t sm_lid, uint64_t end)
{
	const struct vf_em_plan *pl = &e->plan;
	uint8_t sm_sl = e->p->osm->subn.opt.sm_sl;

	ps->n = 0;
	for (unsigned i = 0; i < e->num_eps; i++) {
		struct em_ep *ep = &e->eps[i];

		if (!ep->alive)
			continue;
		if (!ep->cpi_ok) {
			struct mb_req *r = add(ps);

			req_init(r, ep->lid, i, 0, S_SET_CPI, VF_EMA_SET,
				 VF_EMA_CLASS_PORT_INFO, 0);
			set_cpi(r, sm_lid, sm_sl);
		}
		for (unsigned v = 0; v < VF_EMA_MAX_VPORTS; v++)
			if (ep->vp[v].ours &&
			    (!ep->in_plan || vf_em_find(pl, ep->guid, v) < 0))
				req_init(add(ps), ep->lid, i, v, S_DEL,
					 VF_EMA_SET, VF_EMA_DELETE_VESW,
					 vf_ema_amod(v, VF_EMA_PART_VPORT));
	}
	for (unsigned m = 0; m < pl->num_members; m++) {
		const struct vf_em_member *mb = &pl->members[m];
		struct em_ep *ep = find_ep(e, mb->guid, false);
		unsigned epi = (unsigned)(ep - e->eps);

		e->st[m].ep = epi;
		if (!ep->alive) {
			e->st[m].state = ep->cap == EM_CAP_ABSENT ?
					 EM_ST_ABSENT : EM_ST_FAILED;
			continue;
		}
		if (mb->vport >= ep->num_vports ||
		    mb->vport >= VF_EMA_MAX_VPORTS) {
			vf_log(VF_LOG_ERROR,
			       "ERR VF1202: em: port 0x%016" PRIx64 " (LID %u) has %u vports; vESW '%s' needs vport %u there",
			       ep->guid, ep->lid, ep->num_vports,
			       pl->vesws[mb->vesw].name, mb->vport);
			e->st[m].state = EM_ST_FAILED;
			continue;
		}
		req_init(add(ps), ep->lid, epi, mb->vport, S_P0, VF_EMA_GET,
			 VF_EMA_VESWPORT_INFO,
			 vf_ema_amod(mb->vport, VF_EMA_PART_VESW))->member = m;
		req_init(add(ps), ep->lid, epi, mb->vport, S_P1, VF_EMA_GET,
			 VF_EMA_VESWPORT_INFO,
			 vf_ema_amod(mb->vport, VF_EMA_PART_VPORT))->member = m;
		e->st[m].state = EM_ST_PENDING;
	}
	run(e, ps, end);
	for (unsigned k = 0; k < ps->n; k++) {
		struct mb_req *r = &ps->r[k];
		struct em_ep *ep = &e->eps[r->ep];
		struct em_member_st *st = &e->st[r->member];
		bool ok = mb_answered(r);

		switch (r->step) {
		case S_SET_CPI:
			ep->cpi_ok = ok;
			break;
		case S_DEL:
			if (ok) {
				vf_log(VF_LOG_INFO,
				       "em: port 0x%016" PRIx64 " (LID %u) vport %u: removed from vESW %u (DeleteVesw)",
				       ep->guid, ep->lid, r->vport,
				       ep->vp[r->vport].vesw_id);
				memset(&ep->vp[r->vport], 0,
				       sizeof(ep->vp[r->vport]));
				ps->deleted++;
			} else {
				ps->failed++;
			}
			break;
		case S_P0:
			if (!ok || vf_ema_get_vesw(r->resp, r->resp_len,
						   &st->have_vesw))
				st->state = EM_ST_FAILED;
			break;
		case S_P1:
			if (!ok || vf_ema_get_vport(r->resp, r->resp_len,
						    e->scratch, NULL)) {
				st->state = EM_ST_FAILED;
				break;
			}
			st->have_vport_ok = same_vport(e->scratch,
					&e->plan.members[r->member].want);
			st->config_state = e->scratch->config_state;
			st->oper_state = e->scratch->oper_state;
			st->link = e->scratch->eth_link_status;
			st->digest = e->scratch->mac_tbl_digest;
			st->uc_gen = e->scratch->uc_macs_gen_count;
			break;
		}
	}
}

/*
 * Decide what each member needs; C: parts 0 and 1 (DROP_ALL) of new or
 * changed vESWs.
 */
static void set_vesws(struct vf_em_state *e, struct pass *ps,
		      const struct vf_em_macs *learned,
		      struct vf_vport_mac *tbl, uint64_t end)
{
	const struct vf_em_plan *pl = &e->plan;

	ps->n = 0;
	for (unsigned m = 0; m < pl->num_members; m++) {
		const struct vf_em_member *mb = &pl->members[m];
		struct em_member_st *st = &e->st[m];
		struct em_ep *ep = &e->eps[st->ep];
		struct vf_vport *v = e->scratch;
		struct mb_req *r;

		if (st->state != EM_ST_PENDING)
			continue;
		st->num_macs = vf_em_mac_table(pl, m, learned, tbl,
					       EM_MAX_TABLE, &st->want_digest);
		st->p0 = !same_vesw(&st->have_vesw, &mb->want.vesw);
		st->p1 = !st->have_vport_ok ||
			 st->config_state != VF_VPORT_FORWARDING;
		st->macs = st->digest != st->want_digest;
		if (!st->p0 && !st->p1 && !st->macs) {
			st->state = EM_ST_UNCHANGED;
			continue;
		}
		if (!st->p0)
			continue;
		r = add(ps);
		req_init(r, ep->lid, st->ep, mb->vport, S_SET_P0, VF_EMA_SET,
			 VF_EMA_VESWPORT_INFO,
			 vf_ema_amod(mb->vport, VF_EMA_PART_VESW));
		r->member = m;
		vf_ema_put_vesw(r->mad, &mb->want.vesw);
		r = add(ps);
		req_init(r, ep->lid, st->ep, mb->vport, S_SET_P1, VF_EMA_SET,
			 VF_EMA_VESWPORT_INFO,
			 vf_ema_amod(mb->vport, VF_EMA_PART_VPORT));
		r->member = m;
		memset(v, 0, sizeof(*v));
		fill_vport(v, &mb->want, VF_VPORT_DROP_ALL);
		vf_ema_put_vport(r->mad, v);
		st->macs = true;	/* a new vESW: rewrite the table */
	}
	run(e, ps, end);
	for (unsigned k = 0; k < ps->n; k++)
		if (!mb_answered(&ps->r[k]))
			e->st[ps->r[k].member].state = EM_ST_FAILED;
		else
			e->eps[ps->r[k].ep].vp[ps->r[k].vport].ours = true;
}

/* D: MAC tables, in slices, the stale end cleared; 0 or -ENOMEM. */
static int set_mac_tables(struct vf_em_state *e, struct pass *ps,
			  const struct vf_em_macs *learned,
			  struct vf_vport_mac *tbl, uint64_t end)
{
	const struct vf_em_plan *pl = &e->plan;
	unsigned *reach;

	reach = calloc(pl->num_members + 1, sizeof(*reach));
	if (!reach)
		return -ENOMEM;
	scan_tables(e, ps, reach, end);
	ps->n = 0;
	for (unsigned m = 0; m < pl->num_members; m++) {
		const struct vf_em_member *mb = &pl->members[m];
		struct em_member_st *st = &e->st[m];
		struct em_ep *ep = &e->eps[st->ep];
		unsigned n, upto, had;

		if (st->state != EM_ST_PENDING || !st->macs)
			continue;
		n = vf_em_mac_table(pl, m, learned, tbl, EM_MAX_TABLE,
				    &st->want_digest);
		had = ep->vp[mb->vport].mac_known ? ep->vp[mb->vport].mac_n :
		      reach[m];
		if (!ep->vp[mb->vport].mac_known && reach[m] > n)
			vf_log(VF_LOG_INFO,
			       "em: LID %u vport %u (vESW %u): its MAC table reaches index %u, the EM has no record of it: cleared past the %u entries wanted",
			       ep->lid, mb->vport, mb->want.vesw.vesw_id,
			       reach[m] - 1, n);
		upto = n > had ? n : had;
		for (unsigned off = 0; off < upto || off == 0;
		     off += VF_EMA_MACS_PER_MAD) {
			struct vf_vport_mac slice[VF_EMA_MACS_PER_MAD];
			struct vf_ema_mac_slice h = {
				.offset = (uint16_t)off,
				.num = VF_EMA_MACS_PER_MAD,
				.digest = st->want_digest,
			};
			struct mb_req *r = add(ps);

			memset(slice, 0, sizeof(slice));
			for (unsigned j = 0; j < VF_EMA_MACS_PER_MAD; j++)
				if (off + j < n)
					slice[j] = tbl[off + j];
			req_init(r, ep->lid, st->ep, mb->vport, S_MAC,
				 VF_EMA_SET, VF_EMA_MAC_ENTRIES,
				 vf_ema_amod(mb->vport, 0));
			r->member = m;
			vf_ema_put_mac_entries(r->mad, &h, slice);
		}
		st->num_macs = n;
	}
	run(e, ps, end);
	for (unsigned k = 0; k < ps->n; k++)
		if (!mb_answered(&ps->r[k]))
			e->st[ps->r[k].member].state = EM_ST_FAILED;
	for (unsigned m = 0; m < pl->num_members; m++)
		if (e->st[m].state == EM_ST_PENDING && e->st[m].macs) {
			struct em_vp *vp =
				&e->eps[e->st[m].ep].vp[pl->members[m].vport];

			vp->mac_n = e->st[m].num_macs;
			vp->mac_known = true;
		}
	free(reach);
	return 0;
}

/* E: part 1 FORWARDING. */
static void set_forwarding(struct vf_em_state *e, struct pass *ps,
			   uint64_t end)
{
	const struct vf_em_plan *pl = &e->plan;

	ps->n = 0;
	for (unsigned m = 0; m < pl->num_members; m++) {
		const struct vf_em_member *mb = &pl->members[m];
		struct em_member_st *st = &e->st[m];
		struct mb_req *r;

		if (st->state != EM_ST_PENDING || (!st->p0 && !st->p1))
			continue;
		r = add(ps);
		req_init(r, mb->lid, st->ep, mb->vport, S_FWD, VF_EMA_SET,
			 VF_EMA_VESWPORT_INFO,
			 vf_ema_amod(mb->vport, VF_EMA_PART_VPORT));
		r->member = m;
		memset(e->scratch, 0, sizeof(*e->scratch));
		fill_vport(e->scratch, &mb->want, VF_VPORT_FORWARDING);
		vf_ema_put_vport(r->mad, e->scratch);
	}
	run(e, ps, end);
	for (unsigned k = 0; k < ps->n; k++) {
		struct em_member_st *st = &e->st[ps->r[k].member];

		if (!mb_answered(&ps->r[k]) ||
		    vf_ema_get_vport(ps->r[k].resp, ps->r[k].resp_len,
				     e->scratch, NULL)) {
			st->state = EM_ST_FAILED;
			continue;
		}
		st->config_state = e->scratch->config_state;
		st->oper_state = e->scratch->oper_state;
		st->link = e->scratch->eth_link_status;
		e->eps[ps->r[k].ep].vp[ps->r[k].vport].ours = true;
	}
}

/* F: the pass's tally, and the counters of every configured vport. */
static void read_counters(struct vf_em_state *e, struct pass *ps,
			  uint64_t end)
{
	const struct vf_em_plan *pl = &e->plan;

	ps->n = 0;
	for (unsigned m = 0; m < pl->num_members; m++) {
		struct em_member_st *st = &e->st[m];
		const struct vf_em_member *mb = &pl->members[m];

		if (st->state == EM_ST_PENDING) {
			st->state = EM_ST_CONFIGURED;
			e->eps[st->ep].vp[mb->vport].ours = true;
			e->eps[st->ep].vp[mb->vport].vesw_id =
				mb->want.vesw.vesw_id;
		} else if (st->state == EM_ST_UNCHANGED) {
			e->eps[st->ep].vp[mb->vport].ours = true;
			e->eps[st->ep].vp[mb->vport].vesw_id =
				mb->want.vesw.vesw_id;
		}
		if (st->state == EM_ST_CONFIGURED)
			ps->configured++;
		else if (st->state == EM_ST_UNCHANGED)
			ps->unchanged++;
		else if (st->state == EM_ST_ABSENT)
			ps->absent++;
		else
			ps->failed++;
		if (st->state != EM_ST_CONFIGURED &&
		    st->state != EM_ST_UNCHANGED)
			continue;
		req_init(add(ps), mb->lid, st->ep, mb->vport, S_CTR,
			 VF_EMA_GET, VF_EMA_SUMMARY_COUNTERS,
			 vf_ema_amod(mb->vport, 0))->member = m;
	}
	em_mb_run(e, ps->r, ps->n, end);
	ps->mads += ps->n;
	for (unsigned k = 0; k < ps->n; k++) {
		struct em_member_st *st = &e->st[ps->r[k].member];
		struct vf_ema_ctr_id id;

		st->ctr_ok = mb_answered(&ps->r[k]) &&
			     !vf_ema_get_summary(ps->r[k].resp,
						 ps->r[k].resp_len, 0, &id,
						 &st->ctr);
	}
}

/*
 * One pass over the plan's members, in batches of MADs: the endpoints'
 * state, keys and readback (batch_*()), then B to F above.
 */
static void pass_members(struct vf_em_state *e, struct pass *ps,
			 uint16_t sm_lid, uint64_t end)
{
	struct vf_em_macs *learned = learned_of(e);
	struct vf_vport_mac *tbl = calloc(EM_MAX_TABLE, sizeof(*tbl));

	if (!learned || !tbl)
		goto out;
	batch_probe(e, ps, sm_lid, end);
	batch_key(e, ps, end);
	batch_readback(e, ps, end);
	read_members(e, ps, sm_lid, end);
	if (poll_host_macs(e)) {
		free(learned);
		learned = learned_of(e);
		if (!learned)
			goto out;
	}
	set_vesws(e, ps, learned, tbl, end);
	if (set_mac_tables(e, ps, learned, tbl, end))
		goto out;
	set_forwarding(e, ps, end);
	read_counters(e, ps, end);
out:
	free(tbl);
	free(learned);
}

/* --- traps --- */

/*
 * The host's unicast list of ep's vport v, page by page, and the
 * generation it was read at: 1 if it differs from the one kept, 0 if
 * not, -1 when it could not be read (the one kept stays).
 */
static int fetch_ucast(struct vf_em_state *e, struct em_ep *ep, unsigned v)
{
	struct em_vp *vp = &ep->vp[v];
	uint8_t macs[VF_EMA_MAX_HOST_MACS][6];
	unsigned got = 0, total = 0;
	int gen = -1;

	for (unsigned tries = 0; tries < 8; tries++) {
		struct vf_ema_mac_list l = { .start_idx = (uint16_t)got };
		struct mb_req r;

		req_init(&r, ep->lid, 0, v, 0, VF_EMA_GET,
			 VF_EMA_IFACE_UCAST_MACS, vf_ema_amod(v, 0));
		vf_ema_put_mac_list(r.mad, &l);
		em_mb_run(e, &r, 1, (uint64_t)vf_now_ms() + 5000);
		if (!mb_answered(&r) ||
		    vf_ema_get_mac_list(r.resp, r.resp_len, false, &l) ||
		    l.start_idx != got)
			return -1;
		if (gen >= 0 && (l.gen_count != gen || l.total != total)) {
			got = 0;	/* the list moved under us: again */
			gen = -1;
			continue;
		}
		gen = l.gen_count;
		total = l.total;
		for (unsigned k = 0; k < l.num && got < VF_EMA_MAX_HOST_MACS;
		     k++)
			memcpy(macs[got++], l.macs[k], 6);
		if (got >= total || !l.num || got >= VF_EMA_MAX_HOST_MACS) {
			bool moved = got != vp->num_uc ||
				     memcmp(macs, vp->uc, got * 6);

			memcpy(vp->uc, macs, got * 6);
			vp->num_uc = got;
			vp->uc_gen = (uint16_t)gen;
			vp->uc_known = true;
			return moved;
		}
	}
	return -1;
}

static const char *state_name(unsigned s)
{
	static const char *const n[] = { "NOP", "DROP_ALL", "INIT",
					  "FORWARDING" };

	return s < 4 ? n[s] : "?";
}

/* One trap; true when the MAC tables of its vESW must be pushed. */
static bool handle_trap(struct vf_em_state *e, const struct em_trap_ev *ev)
{
	struct em_ep *ep = ep_by_lid(e, (uint16_t)ev->t.issuer_lid);
	unsigned v = ev->t.vport_index;
	struct mb_req r;

	if (!ep)
		ep = ep_by_lid(e, ev->slid);
	if (!ep || v >= VF_EMA_MAX_VPORTS || !ep->vp[v].ours) {
		vf_log(VF_LOG_INFO,
		       "em: trap %u from LID %u vport %u: not a vport the EM configured; ignored",
		       ev->t.opcode, ev->slid, v);
		return false;
	}
	switch (ev->t.opcode) {
	case VF_EMA_TRAP_UCAST_MACS:
		if (fetch_ucast(e, ep, v) <= 0)
			return false;
		vf_log(VF_LOG_INFO,
		       "em: trap: LID %u vport %u (vESW %u): the host has %u unicast MACs of its own; telling the other members",
		       ep->lid, v, ep->vp[v].vesw_id, ep->vp[v].num_uc);
		return true;
	case VF_EMA_TRAP_MCAST_MACS: {
		struct vf_ema_mac_list l = { 0 };

		req_init(&r, ep->lid, 0, v, 0, VF_EMA_GET,
			 VF_EMA_IFACE_MCAST_MACS, vf_ema_amod(v, 0));
		vf_ema_put_mac_list(r.mad, &l);
		em_mb_run(e, &r, 1, (uint64_t)vf_now_ms() + 5000);
		if (mb_answered(&r) &&
		    !vf_ema_get_mac_list(r.resp, r.resp_len, false, &l))
			vf_log(VF_LOG_INFO,
			       "em: trap: LID %u vport %u (vESW %u): multicast list of %u MACs",
			       ep->lid, v, ep->vp[v].vesw_id, l.total);
		return false;
	}
	default:
		req_init(&r, ep->lid, 0, v, 0, VF_EMA_GET,
			 VF_EMA_VESWPORT_INFO,
			 vf_ema_amod(v, VF_EMA_PART_VPORT));
		em_mb_run(e, &r, 1, (uint64_t)vf_now_ms() + 5000);
		if (mb_answered(&r) &&
		    !vf_ema_get_vport(r.resp, r.resp_len, e->scratch, NULL))
			vf_log(VF_LOG_INFO,
			       "em: trap: LID %u vport %u (vESW %u): Ethernet link %s, oper_state %s",
			       ep->lid, v, ep->vp[v].vesw_id,
			       e->scratch->eth_link_status == VF_VPORT_LINK_UP ?
			       "up" : "down",
			       state_name(e->scratch->oper_state));
		return false;
	}
}

/* --- the EM thread --- */

static void *em_main(void *arg)
{
	struct vf_em_state *e = arg;

	pthread_mutex_lock(&e->lock);
	while (!e->stop) {
		struct em_trap_ev traps[EM_TRAPS];
		struct vf_em_plan *next = e->next;
		unsigned nt = e->num_traps;
		bool push = false;

		if (!next && !nt) {
			uint64_t at = (uint64_t)vf_now_ms() + EM_RECHECK_MS;
			struct timespec ts = { (time_t)(at / 1000),
					       (long)(at % 1000) * 1000000 };

			if (pthread_cond_timedwait(&e->cond, &e->lock, &ts) &&
			    e->have_plan && !e->stop) {
				pthread_mutex_unlock(&e->lock);
				do_pass(e, "recheck", true);
				pthread_mutex_lock(&e->lock);
			}
			continue;
		}
		e->next = NULL;
		if (e->next_cands) {
			free(e->cands);
			e->cands = e->next_cands;
			e->ncands = e->next_ncands;
			e->next_cands = NULL;
		}
		memcpy(traps, e->traps, nt * sizeof(*traps));
		e->num_traps = 0;
		pthread_mutex_unlock(&e->lock);
		if (next) {
			if (e->have_plan)
				vf_em_plan_free(&e->plan);
			e->plan = *next;
			e->have_plan = true;
			free(next);
			do_pass(e, "sweep", false);
		}
		for (unsigned i = 0; i < nt && e->have_plan; i++)
			push |= handle_trap(e, &traps[i]);
		if (push)
			do_pass(e, "trap", false);
		pthread_mutex_lock(&e->lock);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* --- the sweeper's side --- */

/* The policy of this subnet, as this sweep resolved it, or NULL (logged). */
static struct vf_em_plan *resolve(struct vf_plugin *p)
{
	const struct vf_config *c = vf_sweep_config(p);
	struct vf_em_plan *pl = calloc(1, sizeof(*pl));
	const struct vf_resolution *r;
	struct vf_diag d = { 0 };
	bool keys;

	if (!pl)
		return NULL;
	if (!c || !c->em.num_vesws)
		return pl;	/* nothing wanted: stale vports are removed */
	cl_plock_acquire(&p->osm->lock);
	r = vf_sweep_resolution(p, true);
	cl_plock_release(&p->osm->lock);
	keys = p->vf_keys.n == c->num_vfs;
	if (!r ||
	    vf_em_plan_build(c, r->fabric, &r->dg,
			     keys ? p->vf_keys.pkey : NULL,
			     keys ? p->vf_keys.sl : NULL, r->sm_port, pl, &d)) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF1203: em: out of memory resolving the virtual Ethernet switches; endpoints keep what they have");
		goto fail;
	}
	for (unsigned i = 0; i < d.n; i++)
		vf_log(d.v[i].level == VF_DIAG_ERROR ? VF_LOG_ERROR :
		       VF_LOG_WARN, "em: %s", d.v[i].text);
	vf_diag_free(&d);
	return pl;
fail:
	vf_diag_free(&d);
	free(pl);
	return NULL;
}

/* Is port guid another SM (not a NOTACTIVE agent)?  Lock held. */
static bool other_sm(osm_subn_t *subn, ib_net64_t guid)
{
	const osm_remote_sm_t *r =
		(const osm_remote_sm_t *)cl_qmap_get(&subn->sm_guid_tbl, guid);

	return r != (const osm_remote_sm_t *)cl_qmap_end(&subn->sm_guid_tbl) &&
	       ib_sminfo_get_state(&r->smi) != IB_SMINFO_STATE_NOTACTIVE;
}

/*
 * The CA ports to read back after a start or takeover: every one with a
 * LID but the SM's own and other SMs' (a standby OpenSM has not bound
 * class 0x3B: under ibsim a MAD of it kills the process).  Endpoint
 * agents take the issm flag too, but answer SMInfo NOTACTIVE.
 */
static struct em_cand *collect_cands(struct vf_plugin *p, unsigned *n)
{
	osm_subn_t *subn = &p->osm->subn;
	struct em_cand *c;
	unsigned cap, k = 0;

	cl_plock_acquire(&p->osm->lock);
	cap = (unsigned)cl_qmap_count(&subn->port_guid_tbl);
	c = calloc(cap + 1, sizeof(*c));
	for (cl_map_item_t *i = cl_qmap_head(&subn->port_guid_tbl);
	     c && i != cl_qmap_end(&subn->port_guid_tbl);
	     i = cl_qmap_next(i)) {
		osm_port_t *port = (osm_port_t *)i;
		uint16_t lid = cl_ntoh16(osm_port_get_base_lid(port));

		if (osm_node_get_type(port->p_node) != IB_NODE_TYPE_CA ||
		    !lid || port->guid == subn->sm_port_guid ||
		    other_sm(subn, port->guid) || k >= cap)
			continue;
		c[k].guid = cl_ntoh64(port->guid);
		c[k++].lid = lid;
	}
	cl_plock_release(&p->osm->lock);
	*n = k;
	return c;
}

void vf_em_state_change(struct vf_plugin *p)
{
	/* out of MASTER: whatever comes back as master reads back */
	if (p->em)
		p->em->recon_due = true;
}

/*
 * Bind class 0x3B once.  Binding it is also what keeps OpenSM alive under
 * ibsim: a MAD of a class nobody registered kills the umad2sim client that
 * receives it, so the EM binds before it tells any endpoint where to send
 * traps.
 */
static int bind_class(struct vf_em_state *e)
{
	uint64_t port = cl_ntoh64(e->p->osm->subn.sm_port_guid);

	switch (mb_bind(&e->mad)) {
	case MB_BOUND_NOW:
		vf_log(VF_LOG_INFO,
		       "em: bound management class 0x%02x on port 0x%016" PRIx64,
		       VF_EMA_CLASS, port);
		return 0;
	case MB_BOUND:
		return 0;
	case MB_BIND_FAILED_NOW:
		vf_log(VF_LOG_ERROR,
		       "ERR VF1201: em: cannot bind management class 0x%02x on port 0x%016" PRIx64 "; VNIC endpoints are not configured",
		       VF_EMA_CLASS, port);
		return -1;
	case MB_BIND_FAILED:
		break;
	}
	return -1;
}

void vf_em_subnet_up(struct vf_plugin *p)
{
	struct vf_em_state *e = p->em;
	struct vf_em_plan *pl;
	const struct vf_config *cfg = vf_sweep_config(p);
	bool wanted = cfg && cfg->em.num_vesws;

	if (!e || (!wanted && !e->have_plan && !e->running))
		return;		/* no EM configured, ever */
	if (bind_class(e))
		return;
	pl = resolve(p);
	if (!pl)
		return;
	if (!e->running) {
		if (pthread_create(&e->thread, NULL, em_main, e)) {
			vf_log(VF_LOG_ERROR,
			       "ERR VF1204: em: cannot start its thread; endpoints are not configured");
			vf_em_plan_free(pl);
			free(pl);
			return;
		}
		e->running = true;
	}
	if (e->recon_due) {
		unsigned n = 0;
		struct em_cand *c = collect_cands(p, &n);

		if (c) {
			vf_log(VF_LOG_INFO,
			       "em: first pass as master: reading back the vESWs of %u CA ports",
			       n);
			e->recon_due = false;
		}
		pthread_mutex_lock(&e->lock);
		if (c) {
			free(e->next_cands);
			e->next_cands = c;
			e->next_ncands = n;
		}
	} else {
		pthread_mutex_lock(&e->lock);
	}
	if (e->next) {
		vf_em_plan_free(e->next);
		free(e->next);
	}
	e->next = pl;
	pthread_cond_signal(&e->cond);
	pthread_mutex_unlock(&e->lock);
}


int vf_em_create(struct vf_plugin *p)
{
	struct vf_em_state *e = calloc(1, sizeof(*e));
	pthread_condattr_t ca;

	if (e)
		e->scratch = calloc(1, sizeof(*e->scratch));
	if (!e || !e->scratch) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF1206: em: out of memory starting; VNIC endpoints are not configured");
		free(e);
		return -ENOMEM;
	}
	e->p = p;
	e->key = vf_management_key("EM key", "em_key", p->opts.em_key,
				   p->opts.em_key_file);
	e->lease = (uint16_t)p->opts.em_key_lease;
	e->recon_due = true;	/* the endpoints may hold anything */
	mb_init(&e->mad, p, &(struct mb_params){
		.mgmt_class = VF_EMA_CLASS,
		.class_version = VF_EMA_CLASS_VERSION,
		.responder = true,	/* the endpoints' traps */
		.window = EM_WINDOW, .timeout_ms = EM_TIMEOUT_MS,
		.retries = EM_RETRIES, .tid_base = EM_TID_BASE,
		.used = VF_EMA_USED, .unsolicited = unsolicited, .ctx = e,
	});
	pthread_mutex_init(&e->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->cond, &ca);
	pthread_condattr_destroy(&ca);
	p->em = e;
	return 0;
}

void vf_em_destroy(struct vf_plugin *p)
{
	struct vf_em_state *e = p->em;

	if (!e)
		return;
	if (e->running) {
		pthread_mutex_lock(&e->lock);
		e->stop = true;
		pthread_cond_signal(&e->cond);
		pthread_mutex_unlock(&e->lock);
		pthread_join(e->thread, NULL);
	}
	mb_fini(&e->mad);
	if (e->next) {
		vf_em_plan_free(e->next);
		free(e->next);
	}
	if (e->have_plan)
		vf_em_plan_free(&e->plan);
	free(e->eps);
	free(e->cands);
	free(e->next_cands);
	free(e->st);
	free(e->scratch);
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->lock);
	free(e);
	p->em = NULL;
}
