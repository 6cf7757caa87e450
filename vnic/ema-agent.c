// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The EMA endpoint agent (vnic/ema-agent.h): request dispatch, the vport
 * lifecycle (implicit creation, power-on defaults, delete), the MAC table
 * slices, the host MAC lists (set, or polled from the interface's
 * address), the state machine and the traps.
 */
#include <errno.h>
#include <string.h>

#include "common/mad.h"
#include "ema-agent.h"

static const uint8_t zero_mac[6];

/* Power-on defaults: what a missing vport reports, what a delete sets. */
static void vport_pod(struct vf_vport *v)
{
	bool exists = v->exists, admin_up = v->admin_up;
	uint16_t uc_gen = v->uc_macs_gen_count, mc_gen = v->mc_macs_gen_count;

	memset(v, 0, sizeof(*v));
	v->config_state = VF_VPORT_DROP_ALL;
	v->oper_state = VF_VPORT_DROP_ALL;
	/* the host's side survives: interface and generation counts */
	v->exists = exists;
	v->admin_up = admin_up;
	v->uc_macs_gen_count = uc_gen;
	v->mc_macs_gen_count = mc_gen;
}

int vf_ema_agent_init(struct vf_ema_agent *a, uint16_t phys_port,
		      unsigned num_vports)
{
	if (!num_vports || num_vports > VF_EMA_MAX_VPORTS)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->phys_port = phys_port;
	a->num_vports = num_vports;
	for (unsigned i = 0; i < VF_EMA_MAX_VPORTS; i++)
		vport_pod(&a->slot[i].vport);
	return 0;
}

struct vf_vport *vf_ema_agent_vport(struct vf_ema_agent *a, unsigned i)
{
	if (i >= a->num_vports || !a->slot[i].vport.exists)
		return NULL;
	return &a->slot[i].vport;
}

void vf_ema_vport_update_state(struct vf_vport *v)
{
	bool fwd = v->config_state == VF_VPORT_FORWARDING && v->vesw.vesw_id;

	if (fwd && v->admin_up) {
		v->oper_state = VF_VPORT_FORWARDING;
		v->eth_link_status = VF_VPORT_LINK_UP;
	} else {
		v->oper_state = VF_VPORT_DROP_ALL;
		v->eth_link_status = VF_VPORT_LINK_DOWN;
	}
}

/* A request being answered: its header and the reply being built. */
struct call {
	struct vf_ema_agent *a;
	const struct vf_ema_src *src;
	const uint8_t *req;
	size_t len;
	struct vf_ema_hdr h;
	uint8_t *reply;
	unsigned index, part;	/* from the modifier */
};

/*
 * The modifier of a per-vport attribute: an index below num_vports, a
 * part only where parts exists (nparts), nothing else set.
 */
static uint16_t take_amod(struct call *c, unsigned nparts)
{
	uint32_t m = c->h.attr_mod;

	c->index = m & VF_EMA_AMOD_INDEX;
	c->part = (m & VF_EMA_AMOD_PART) >> VF_EMA_AMOD_PART_SHIFT;
	if (m & ~(VF_EMA_AMOD_INDEX | VF_EMA_AMOD_PART) ||
	    c->part >= nparts || c->index >= c->a->num_vports)
		return VF_EMA_BAD_FIELD;
	return VF_EMA_OK;
}

/* The vport of the modifier, which must exist. */
static struct vf_vport *existing(struct call *c, unsigned nparts,
				 uint16_t *st)
{
	*st = take_amod(c, nparts);
	if (*st != VF_EMA_OK)
		return NULL;
	if (!c->a->slot[c->index].vport.exists) {
		*st = VF_EMA_BAD_FIELD;
		return NULL;
	}
	return &c->a->slot[c->index].vport;
}

static uint16_t class_port_info(struct call *c)
{
	struct vf_ema_cpi in, out;

	if (c->h.method == VF_EMA_SET) {
		uint16_t st = vf_ema_get_cpi(c->req, c->len, &in);

		if (st != VF_EMA_OK)
			return st;
		c->a->cpi = in;
	}
	out = c->a->cpi;
	out.base_version = VF_EMA_BASE_VERSION;
	out.class_version = VF_EMA_CLASS_VERSION;
	out.cap_mask = (uint16_t)(c->a->num_vports << 8 | 1);
	out.resp_time = VF_EMA_RESP_TIME;
	vf_ema_put_cpi(c->reply, &out);
	return VF_EMA_OK;
}

static void put_info(struct call *c, const struct vf_vport *v)
{
	if (c->part == VF_EMA_PART_VESW)
		vf_ema_put_vesw(c->reply, &v->vesw);
	else
		vf_ema_put_vport(c->reply, v);
}

/* Take the fields the EM writes from the decoded vport part. */
static void take_vport_part(struct vf_vport *v, const struct vf_vport *in)
{
	v->port_num = in->port_num;
	memcpy(v->base_mac, in->base_mac, sizeof(v->base_mac));
	v->config_state = in->config_state;
	v->encap_slid = in->encap_slid;
	memcpy(v->pcp_to_sc_uc, in->pcp_to_sc_uc, VF_VPORT_PCP);
	memcpy(v->pcp_to_vl_uc, in->pcp_to_vl_uc, VF_VPORT_PCP);
	memcpy(v->pcp_to_sc_mc, in->pcp_to_sc_mc, VF_VPORT_PCP);
	memcpy(v->pcp_to_vl_mc, in->pcp_to_vl_mc, VF_VPORT_PCP);
	v->non_vlan_sc_uc = in->non_vlan_sc_uc;
	v->non_vlan_vl_uc = in->non_vlan_vl_uc;
	v->non_vlan_sc_mc = in->non_vlan_sc_mc;
	v->non_vlan_vl_mc = in->non_vlan_vl_mc;
}

/* Get: POD values for a missing vport; Set: creates it. */
static uint16_t veswport_info(struct call *c)
{
	uint16_t st = take_amod(c, 2);
	struct vf_vport *v;

	if (st != VF_EMA_OK)
		return st;
	v = &c->a->slot[c->index].vport;
	if (c->h.method == VF_EMA_SET) {
		struct vf_vesw vesw;

		if (c->part == VF_EMA_PART_VESW)
			st = vf_ema_get_vesw(c->req, c->len, &vesw);
		else
			st = vf_ema_get_vport(c->req, c->len, &c->a->scratch,
					      NULL);
		if (st != VF_EMA_OK)
			return st;
		if (c->part == VF_EMA_PART_VESW)
			v->vesw = vesw;
		else
			take_vport_part(v, &c->a->scratch);
		v->exists = true;
		vf_ema_vport_update_state(v);
	}
	put_info(c, v);
	return VF_EMA_OK;
}

static uint16_t delete_vesw(struct call *c)
{
	uint16_t st;
	struct vf_vport *v = existing(c, 2, &st);

	if (!v)
		return st;
	vport_pod(v);
	vf_ema_vport_update_state(v);
	put_info(c, v);
	return VF_EMA_OK;
}

static uint16_t mac_entries(struct call *c)
{
	struct vf_vport_mac in[VF_EMA_MACS_PER_MAD];
	struct vf_ema_mac_slice s;
	uint16_t st;
	struct vf_vport *v = existing(c, 1, &st);
	bool set = c->h.method == VF_EMA_SET;

	if (!v)
		return st;
	st = vf_ema_get_mac_entries(c->req, c->len, &s, set ? in : NULL);
	if (st != VF_EMA_OK)
		return st;
	if (set) {
		for (unsigned i = 0; i < s.num; i++) {
			struct vf_vport_mac *e = &v->macs[s.offset + i];

			/* an all-zero MAC deletes the index */
			if (!memcmp(in[i].mac, zero_mac, 6))
				memset(e, 0, sizeof(*e));
			else
				*e = in[i];
		}
		v->mac_tbl_digest = s.digest;
	}
	s.digest = v->mac_tbl_digest;
	vf_ema_put_mac_entries(c->reply, &s, &v->macs[s.offset]);
	return VF_EMA_OK;
}

static uint16_t iface_macs(struct call *c, bool mcast)
{
	const struct vf_ema_host_macs *src;
	struct vf_ema_mac_list l;
	unsigned total = 0, want;
	uint16_t st;
	struct vf_vport *v = existing(c, 1, &st);

	if (!v)
		return st;
	st = vf_ema_get_mac_list(c->req, c->len, true, &l);
	if (st != VF_EMA_OK)
		return st;
	src = mcast ? &c->a->slot[c->index].mc : &c->a->slot[c->index].uc;
	want = l.num ? l.num : VF_EMA_LIST_PER_MAD;
	l.num = 0;
	for (unsigned i = 0; i < src->n; i++) {
		/* the unicast list leaves out the MAC the EM assigned */
		if (!mcast && !memcmp(src->mac[i], v->base_mac, 6))
			continue;
		if (total >= l.start_idx && l.num < want)
			memcpy(l.macs[l.num++], src->mac[i], 6);
		total++;
	}
	if (l.start_idx > total)
		return VF_EMA_BAD_FIELD;
	l.total = (uint16_t)total;
	l.gen_count = mcast ? v->mc_macs_gen_count : v->uc_macs_gen_count;
	vf_ema_put_mac_list(c->reply, &l);
	return VF_EMA_OK;
}

static uint16_t counters(struct call *c, bool errors)
{
	const struct vf_ema_slot *s;
	struct vf_ema_ctr_id id;
	uint16_t st;
	struct vf_vport *v = existing(c, VF_EMA_CTR_PARTS, &st);

	if (!v)
		return st;
	s = &c->a->slot[c->index];
	id.vp_instance = (uint16_t)c->index;
	id.vesw_id = v->vesw.vesw_id;
	id.veswport_num = v->port_num;
	if (errors)
		return vf_ema_put_errors(c->reply, c->part, &id, &s->errors);
	return vf_ema_put_summary(c->reply, c->part, &id, &s->summary);
}

bool vf_ema_agent_expire(struct vf_ema_agent *a, uint64_t now_ms)
{
	struct vf_ema_auth *k = &a->auth;

	/* a new EM may now set its own */
	if (!vf_mkey_expire(&k->mkey, now_ms))
		return false;
	k->expired++;
	return true;
}

/* A counter in 32 bits: saturates rather than wraps to look fresh. */
static uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/*
 * EMKeyInfo.  A Get shows the key only to a request that carries it:
 * the lease and the refusals are no secret, the key is.
 */
static uint16_t key_info(struct call *c)
{
	struct vf_ema_auth *k = &c->a->auth;
	struct vf_ema_key_info in, out = { 0 };
	bool knows;

	if (c->h.attr_mod)
		return VF_EMA_BAD_FIELD;
	knows = k->mkey.key &&
		vf_ema_get_key(c->req, c->len) == k->mkey.key;
	if (c->h.method == VF_EMA_SET) {
		uint16_t st = vf_ema_get_key_info(c->req, c->len, &in);

		if (st != VF_EMA_OK)
			return st;
		vf_mkey_set(&k->mkey, in.key, in.lease_s);
		knows = true;
	}
	out.key = knows ? k->mkey.key : 0;
	out.lease_s = k->mkey.lease_s;
	out.flags = k->mkey.key ? VF_EMA_KEY_HELD : 0;
	out.lease_left_s = vf_mkey_lease_left_s(&k->mkey, c->src->now_ms);
	out.not_sm = sat32(k->not_sm);
	out.bad_key = k->mkey.refused;
	out.expired = sat32(k->expired);
	vf_ema_put_key_info(c->reply, &out);
	return VF_EMA_OK;
}

/*
 * May this Set change anything?  Only from the master SM's port (the
 * SLID is the fabric's: a host cannot choose it), and with the key once
 * one is held.  A wrong key starts the lease timer (if not running): the
 * master SM that does not know the key takes over when it runs out.
 */
static uint16_t authenticate(struct call *c)
{
	struct vf_ema_auth *k = &c->a->auth;

	if (!c->src->slid || c->src->slid != c->src->sm_lid) {
		k->not_sm++;
		return VF_EMA_NOT_SM;
	}
	/* a refusal starts the lease, the key stops it: takeover */
	if (!vf_mkey_check(&k->mkey, vf_ema_get_key(c->req, c->len), true,
			   c->src->now_ms))
		return VF_EMA_BAD_KEY;
	return VF_EMA_OK;
}

static uint16_t dispatch(struct call *c)
{
	switch (c->h.attr_id) {
	case VF_EMA_CLASS_PORT_INFO: return class_port_info(c);
	case VF_EMA_VESWPORT_INFO: return veswport_info(c);
	case VF_EMA_MAC_ENTRIES: return mac_entries(c);
	case VF_EMA_IFACE_UCAST_MACS: return iface_macs(c, false);
	case VF_EMA_IFACE_MCAST_MACS: return iface_macs(c, true);
	case VF_EMA_DELETE_VESW: return delete_vesw(c);
	case VF_EMA_SUMMARY_COUNTERS: return counters(c, false);
	case VF_EMA_ERROR_COUNTERS: return counters(c, true);
	case VF_EMA_KEY_INFO: return key_info(c);
	}
	return VF_EMA_BAD_ATTR;	/* vf_ema_check_request let none through */
}

size_t vf_ema_agent_handle(struct vf_ema_agent *a, const uint8_t *req,
			   size_t req_len, const struct vf_ema_src *src,
			   uint8_t *reply, size_t reply_cap)
{
	struct call c = { .a = a, .src = src, .req = req, .len = req_len,
			  .reply = reply };
	uint8_t method;
	uint16_t st;

	if (req_len < VF_MAD_HDR || reply_cap < VF_EMA_MAD_SIZE)
		return 0;
	method = req[3];
	/* never answer an answer, nor a trap or its repress */
	if (method & 0x80 || method == VF_EMA_TRAP ||
	    method == VF_EMA_TRAP_REPRESS)
		return 0;
	memset(reply, 0, VF_EMA_MAD_SIZE);
	memcpy(reply, req, req_len < VF_EMA_DATA ? req_len : VF_EMA_DATA);
	/* the key stays with whoever sent it: no answer carries one */
	memset(reply + VF_EMA_RMPP_OFF, 0, VF_EMA_RMPP_SIZE);
	vf_ema_agent_expire(a, src->now_ms);
	st = vf_ema_check_request(req, req_len, &c.h);
	if (st == VF_EMA_OK && c.h.method == VF_EMA_SET)
		st = authenticate(&c);
	reply[3] = st == VF_EMA_BAD_METHOD ? (uint8_t)(method | 0x80) :
					     VF_EMA_GET_RESP;
	if (st == VF_EMA_OK) {
		st = dispatch(&c);
		if (st != VF_EMA_OK)	/* no half-filled data goes out */
			memset(reply + VF_EMA_DATA, 0,
			       VF_EMA_MAD_SIZE - VF_EMA_DATA);
	}
	vf_ema_put_status(reply, st);
	return VF_EMA_MAD_SIZE;
}

/* Write a trap of vport i if one may go now; its length or 0. */
static int raise_trap(struct vf_ema_agent *a, unsigned i, uint8_t opcode,
		      uint64_t now_ms, uint8_t *trap)
{
	struct vf_ema_slot *s = &a->slot[i];
	const struct vf_vport *v = &s->vport;
	struct vf_ema_trap t = {
		.issuer_lid = v->encap_slid,
		.fabric_id = v->vesw.fabric_id, .vesw_id = v->vesw.vesw_id,
		.port_num = v->port_num, .phys_port = a->phys_port,
		.vport_index = (uint8_t)i, .opcode = opcode,
	};

	if (!a->cpi.trap_lid)	/* the EM has not said where */
		return 0;
	if (!s->traps_in_window ||
	    now_ms - s->trap_window_ms >= VF_EMA_TRAP_WINDOW_MS) {
		s->trap_window_ms = now_ms;
		s->traps_in_window = 1;
	} else if (s->traps_in_window < VF_EMA_TRAP_BURST) {
		s->traps_in_window++;
	} else {
		return 0;
	}
	vf_ema_init(trap, VF_EMA_TRAP, ++a->trap_tid, VF_EMA_NOTICE, 0);
	vf_ema_put_trap(trap, &t);
	return VF_EMA_MAD_SIZE;
}

static int host_call_ok(struct vf_ema_agent *a, unsigned i, size_t cap)
{
	if (!vf_ema_agent_vport(a, i))
		return -ENOENT;
	if (cap < VF_EMA_MAD_SIZE)
		return -ENOSPC;
	return 0;
}

int vf_ema_agent_set_admin(struct vf_ema_agent *a, unsigned i, bool up,
			   uint64_t now_ms, uint8_t *trap, size_t cap)
{
	struct vf_vport *v;
	int err = host_call_ok(a, i, cap);

	if (err)
		return err;
	v = &a->slot[i].vport;
	if (up && !v->vesw.vesw_id)
		return -EINVAL;
	if (v->admin_up == up)
		return 0;
	v->admin_up = up;
	vf_ema_vport_update_state(v);
	return raise_trap(a, i, VF_EMA_TRAP_LINK, now_ms, trap);
}

int vf_ema_agent_set_macs(struct vf_ema_agent *a, unsigned i, bool mcast,
			  const uint8_t (*macs)[6], unsigned n,
			  uint64_t now_ms, uint8_t *trap, size_t cap)
{
	struct vf_ema_host_macs *l;
	struct vf_vport *v;
	bool same;
	int err = host_call_ok(a, i, cap);

	if (err)
		return err;
	if (n > VF_EMA_MAX_HOST_MACS)
		return -E2BIG;
	v = &a->slot[i].vport;
	l = mcast ? &a->slot[i].mc : &a->slot[i].uc;
	same = l->n == n && (!n || !memcmp(l->mac, macs, 6 * (size_t)n));
	if (n)
		memcpy(l->mac, macs, 6 * (size_t)n);
	l->n = n;
	if (mcast)
		v->mc_macs_gen_count++;
	else
		v->uc_macs_gen_count++;
	if (same)
		return 0;
	return raise_trap(a, i, mcast ? VF_EMA_TRAP_MCAST_MACS :
					 VF_EMA_TRAP_UCAST_MACS,
			  now_ms, trap);
}

int vf_ema_agent_host_mac(struct vf_ema_agent *a, unsigned i,
			  const uint8_t hw[6], uint64_t now_ms, uint8_t *trap,
			  size_t cap)
{
	const struct vf_ema_host_macs *l;
	const struct vf_vport *v;
	unsigned n;
	int err = host_call_ok(a, i, cap);

	if (err)
		return err;
	v = &a->slot[i].vport;
	l = &a->slot[i].uc;
	if (!memcmp(v->base_mac, zero_mac, 6))
		return 0;
	n = memcmp(hw, v->base_mac, 6) ? 1 : 0;
	if (l->n == n && (!n || !memcmp(l->mac[0], hw, 6)))
		return 0;
	return vf_ema_agent_set_macs(a, i, false, (const uint8_t (*)[6])hw,
				     n, now_ms, trap, cap);
}
