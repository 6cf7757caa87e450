// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The EMA codec (vnic/ema.h, docs/ema-protocol.md): byte offsets and
 * range checks only, no I/O.
 */
#include <stdio.h>
#include <string.h>

#include "common/mad.h"
#include "ema.h"

#define LID24 0xFFFFFFu
#define IB_UCAST_LID_END 0xC000u	/* 16-bit LIDs from here: multicast */
#define SC_VL_MAX 31			/* both are 5 bits */
#define NOTICE_TYPE 0x08		/* Omni-Path: type INFO (4) << 1 */

static uint8_t *data(uint8_t *mad)
{
	return mad + VF_EMA_DATA;
}

static const uint8_t *cdata(const uint8_t *mad)
{
	return mad + VF_EMA_DATA;
}

/* Does mad[0..len) hold n bytes of attribute data? */
static bool has_data(size_t len, size_t n)
{
	return len >= VF_EMA_DATA && len - VF_EMA_DATA >= n;
}

static void put_oui(uint8_t *p, uint32_t oui)
{
	p[0] = (uint8_t)(oui >> 16);
	p[1] = (uint8_t)(oui >> 8);
	p[2] = (uint8_t)oui;
}

static uint32_t get_oui(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

void vf_ema_init(uint8_t *mad, uint8_t method, uint64_t tid, uint16_t attr,
		 uint32_t amod)
{
	struct vf_mad_hdr h = {
		.base_version = VF_EMA_BASE_VERSION,
		.mgmt_class = VF_EMA_CLASS,
		.class_version = VF_EMA_CLASS_VERSION,
		.method = method, .tid = tid, .attr_id = attr,
		.attr_mod = amod,
	};

	memset(mad, 0, VF_EMA_MAD_SIZE);
	vf_mad_put_hdr(mad, &h);
	put_oui(mad + VF_EMA_OUI_OFF, VF_EMA_OUI);
}

void vf_ema_put_status(uint8_t *mad, uint16_t status)
{
	vf_put16(mad + 4, status);
}

uint16_t vf_ema_get_hdr(const uint8_t *mad, size_t len, struct vf_ema_hdr *h)
{
	struct vf_mad_hdr m;

	memset(h, 0, sizeof(*h));
	if (len < VF_MAD_HDR)
		return VF_EMA_BAD_FIELD;
	vf_mad_get_hdr(mad, &m);
	h->base_version = m.base_version;
	h->mgmt_class = m.mgmt_class;
	h->class_version = m.class_version;
	h->method = m.method;
	h->status = m.status;
	h->tid = m.tid;
	h->attr_id = m.attr_id;
	h->attr_mod = m.attr_mod;
	if (len < VF_EMA_DATA)
		return VF_EMA_BAD_FIELD;
	h->oui = get_oui(mad + VF_EMA_OUI_OFF);
	if (h->base_version != VF_EMA_BASE_VERSION ||
	    h->class_version != VF_EMA_CLASS_VERSION)
		return VF_EMA_BAD_VERSION;
	if (h->mgmt_class != VF_EMA_CLASS || h->oui != VF_EMA_OUI)
		return VF_EMA_BAD_ATTR;
	return VF_EMA_OK;
}

void vf_ema_put_key(uint8_t *mad, uint64_t key)
{
	vf_put64(mad + VF_EMA_KEY_OFF, key);
}

uint64_t vf_ema_get_key(const uint8_t *mad, size_t len)
{
	return len >= VF_EMA_KEY_OFF + 8 ? vf_get64(mad + VF_EMA_KEY_OFF) : 0;
}

void vf_ema_put_key_info(uint8_t *mad, const struct vf_ema_key_info *k)
{
	uint8_t *d = data(mad);

	vf_put64(d, k->key);
	vf_put16(d + 8, k->lease_s);
	d[10] = k->flags & VF_EMA_KEY_HELD;
	vf_put32(d + 12, k->lease_left_s);
	vf_put32(d + 16, k->not_sm);
	vf_put32(d + 20, k->bad_key);
	vf_put32(d + 24, k->expired);
}

uint16_t vf_ema_get_key_info(const uint8_t *mad, size_t len,
			     struct vf_ema_key_info *k)
{
	const uint8_t *d = cdata(mad);

	memset(k, 0, sizeof(*k));
	if (!has_data(len, VF_EMA_KEY_INFO_SIZE))
		return VF_EMA_BAD_FIELD;
	k->key = vf_get64(d);
	k->lease_s = vf_get16(d + 8);
	k->flags = d[10];
	k->lease_left_s = vf_get32(d + 12);
	k->not_sm = vf_get32(d + 16);
	k->bad_key = vf_get32(d + 20);
	k->expired = vf_get32(d + 24);
	if (k->flags & ~VF_EMA_KEY_HELD)
		return VF_EMA_BAD_FIELD;
	return VF_EMA_OK;
}

/* Which of Get (bit 0) and Set (bit 1) an attribute takes. */
static unsigned attr_methods(uint16_t attr)
{
	switch (attr) {
	case VF_EMA_CLASS_PORT_INFO:
	case VF_EMA_VESWPORT_INFO:
	case VF_EMA_MAC_ENTRIES:
	case VF_EMA_KEY_INFO:
		return 3;
	case VF_EMA_IFACE_UCAST_MACS:
	case VF_EMA_IFACE_MCAST_MACS:
	case VF_EMA_SUMMARY_COUNTERS:
	case VF_EMA_ERROR_COUNTERS:
		return 1;
	case VF_EMA_DELETE_VESW:
		return 2;
	}
	return 0;
}

uint16_t vf_ema_check_request(const uint8_t *mad, size_t len,
			      struct vf_ema_hdr *h)
{
	uint16_t st = vf_ema_get_hdr(mad, len, h);

	if (st != VF_EMA_OK)
		return st;
	if (h->method != VF_EMA_GET && h->method != VF_EMA_SET)
		return VF_EMA_BAD_METHOD;
	if (!(attr_methods(h->attr_id) & h->method))
		return VF_EMA_BAD_ATTR;
	return VF_EMA_OK;
}

void vf_ema_put_cpi(uint8_t *mad, const struct vf_ema_cpi *c)
{
	uint8_t *d = data(mad);

	d[0] = c->base_version;
	d[1] = c->class_version;
	vf_put16(d + 2, c->cap_mask);
	vf_put32(d + 4, c->cap_mask2 << 5 | (c->resp_time & 0x1F));
	memcpy(d + 8, c->redirect_gid, 16);
	vf_put32(d + 24, c->redirect_tc_fl);
	vf_put32(d + 28, c->redirect_lid);
	vf_put32(d + 32, c->redirect_sl_qp);
	vf_put32(d + 36, c->redirect_qkey);
	memcpy(d + 40, c->trap_gid, 16);
	vf_put32(d + 56, c->trap_tc_fl);
	vf_put32(d + 60, c->trap_lid);
	vf_put32(d + 64, c->trap_hl_qp);
	vf_put32(d + 68, c->trap_qkey);
	vf_put16(d + 72, c->trap_pkey);
	vf_put16(d + 74, c->redirect_pkey);
	d[76] = (uint8_t)(c->trap_sl << 3);
}

uint16_t vf_ema_get_cpi(const uint8_t *mad, size_t len, struct vf_ema_cpi *c)
{
	const uint8_t *d = cdata(mad);

	if (!has_data(len, VF_EMA_CPI_SIZE))
		return VF_EMA_BAD_FIELD;
	c->base_version = d[0];
	c->class_version = d[1];
	c->cap_mask = vf_get16(d + 2);
	c->cap_mask2 = vf_get32(d + 4) >> 5;
	c->resp_time = d[7] & 0x1F;
	memcpy(c->redirect_gid, d + 8, 16);
	c->redirect_tc_fl = vf_get32(d + 24);
	c->redirect_lid = vf_get32(d + 28);
	c->redirect_sl_qp = vf_get32(d + 32);
	c->redirect_qkey = vf_get32(d + 36);
	memcpy(c->trap_gid, d + 40, 16);
	c->trap_tc_fl = vf_get32(d + 56);
	c->trap_lid = vf_get32(d + 60);
	c->trap_hl_qp = vf_get32(d + 64);
	c->trap_qkey = vf_get32(d + 68);
	c->trap_pkey = vf_get16(d + 72);
	c->redirect_pkey = vf_get16(d + 74);
	c->trap_sl = d[76] >> 3;
	/* traps travel as IB MADs: a 16-bit unicast LID or none */
	if (c->trap_lid >= IB_UCAST_LID_END)
		return VF_EMA_BAD_FIELD;
	return VF_EMA_OK;
}

void vf_ema_put_vesw(uint8_t *mad, const struct vf_vesw *v)
{
	uint8_t *d = data(mad);

	vf_put16(d + 0, v->fabric_id);
	vf_put16(d + 2, v->vesw_id);
	vf_put16(d + 10, v->def_port_mask);
	vf_put16(d + 14, v->pkey);
	vf_put32(d + 20, v->u_mcast_dlid);
	for (unsigned i = 0; i < VF_VPORT_DEFAULT_PORTS; i++)
		vf_put32(d + 24 + 4 * i, v->u_ucast_dlid[i]);
	vf_put32(d + 88, v->rc);
	vf_put16(d + 148, v->eth_mtu);
}

uint16_t vf_ema_get_vesw(const uint8_t *mad, size_t len, struct vf_vesw *v)
{
	const uint8_t *d = cdata(mad);
	uint16_t st = VF_EMA_OK;

	if (!has_data(len, VF_EMA_VESW_SIZE))
		return VF_EMA_BAD_FIELD;
	v->fabric_id = vf_get16(d + 0);
	v->vesw_id = vf_get16(d + 2);
	v->def_port_mask = vf_get16(d + 10);
	v->pkey = vf_get16(d + 14);
	v->u_mcast_dlid = vf_get32(d + 20);
	for (unsigned i = 0; i < VF_VPORT_DEFAULT_PORTS; i++) {
		v->u_ucast_dlid[i] = vf_get32(d + 24 + 4 * i);
		if (v->u_ucast_dlid[i] > LID24)
			st = VF_EMA_BAD_FIELD;
	}
	v->rc = vf_get32(d + 88);
	v->eth_mtu = vf_get16(d + 148);
	if (v->fabric_id > 0x3FF || v->vesw_id > 0xFFF ||
	    v->u_mcast_dlid > LID24 || v->eth_mtu > VF_EMA_MAX_MTU)
		st = VF_EMA_BAD_FIELD;
	return st;
}

void vf_ema_put_vport(uint8_t *mad, const struct vf_vport *v)
{
	uint8_t *d = data(mad);

	vf_put32(d + 0, v->port_num);
	d[4] = v->eth_link_status;
	memcpy(d + 8, v->base_mac, 6);
	d[14] = v->config_state;
	d[15] = v->oper_state;
	vf_put16(d + 16, VF_VPORT_MAC_TABLE);
	vf_put16(d + 18, VF_VPORT_MAX_SMAC);
	vf_put32(d + 20, v->mac_tbl_digest);
	vf_put32(d + 28, v->encap_slid);
	memcpy(d + 32, v->pcp_to_sc_uc, VF_VPORT_PCP);
	memcpy(d + 40, v->pcp_to_vl_uc, VF_VPORT_PCP);
	memcpy(d + 48, v->pcp_to_sc_mc, VF_VPORT_PCP);
	memcpy(d + 56, v->pcp_to_vl_mc, VF_VPORT_PCP);
	d[64] = v->non_vlan_sc_uc;
	d[65] = v->non_vlan_vl_uc;
	d[66] = v->non_vlan_sc_mc;
	d[67] = v->non_vlan_vl_mc;
	vf_put16(d + 116, v->uc_macs_gen_count);
	vf_put16(d + 118, v->mc_macs_gen_count);
}

uint16_t vf_ema_get_vport(const uint8_t *mad, size_t len, struct vf_vport *v,
			  struct vf_ema_limits *lim)
{
	const uint8_t *d = cdata(mad);
	uint16_t st = VF_EMA_OK;

	if (!has_data(len, VF_EMA_VPORT_SIZE))
		return VF_EMA_BAD_FIELD;
	v->port_num = vf_get32(d + 0);
	v->eth_link_status = d[4];
	memcpy(v->base_mac, d + 8, 6);
	v->config_state = d[14];
	v->oper_state = d[15];
	if (lim) {
		lim->max_mac_tbl_ent = vf_get16(d + 16);
		lim->max_smac_ent = vf_get16(d + 18);
	}
	v->mac_tbl_digest = vf_get32(d + 20);
	v->encap_slid = vf_get32(d + 28);
	memcpy(v->pcp_to_sc_uc, d + 32, VF_VPORT_PCP);
	memcpy(v->pcp_to_vl_uc, d + 40, VF_VPORT_PCP);
	memcpy(v->pcp_to_sc_mc, d + 48, VF_VPORT_PCP);
	memcpy(v->pcp_to_vl_mc, d + 56, VF_VPORT_PCP);
	v->non_vlan_sc_uc = d[64];
	v->non_vlan_vl_uc = d[65];
	v->non_vlan_sc_mc = d[66];
	v->non_vlan_vl_mc = d[67];
	v->uc_macs_gen_count = vf_get16(d + 116);
	v->mc_macs_gen_count = vf_get16(d + 118);
	/* the SC and VL tables and bytes are 32..67, contiguous */
	for (unsigned i = 32; i < 68; i++)
		if (d[i] > SC_VL_MAX)
			st = VF_EMA_BAD_FIELD;
	if (v->config_state > VF_VPORT_FORWARDING || v->encap_slid > LID24)
		st = VF_EMA_BAD_FIELD;
	return st;
}

static void put_mac_entry(uint8_t *p, const struct vf_vport_mac *e)
{
	memcpy(p, e->mac, 6);
	memcpy(p + 6, e->mask, 6);
	vf_put32(p + 12, e->dlid_sd);
}

void vf_ema_put_mac_entries(uint8_t *mad, const struct vf_ema_mac_slice *s,
			    const struct vf_vport_mac *e)
{
	uint8_t *d = data(mad);

	vf_put16(d + 0, s->offset);
	vf_put16(d + 2, s->num);
	vf_put32(d + 4, s->digest);
	for (unsigned i = 0; e && i < s->num && i < VF_EMA_MACS_PER_MAD; i++)
		put_mac_entry(d + VF_EMA_LIST_HDR + VF_EMA_MAC_ENTRY * i,
			      &e[i]);
}

uint16_t vf_ema_get_mac_entries(const uint8_t *mad, size_t len,
				struct vf_ema_mac_slice *s,
				struct vf_vport_mac e[VF_EMA_MACS_PER_MAD])
{
	const uint8_t *d = cdata(mad);

	memset(s, 0, sizeof(*s));
	if (!has_data(len, VF_EMA_LIST_HDR))
		return VF_EMA_BAD_FIELD;
	s->offset = vf_get16(d + 0);
	s->num = vf_get16(d + 2);
	s->digest = vf_get32(d + 4);
	if (s->num > VF_EMA_MACS_PER_MAD ||
	    s->offset + s->num > VF_VPORT_MAC_TABLE)
		return VF_EMA_BAD_FIELD;
	if (!e)
		return VF_EMA_OK;
	if (!has_data(len, VF_EMA_LIST_HDR + VF_EMA_MAC_ENTRY * s->num))
		return VF_EMA_BAD_FIELD;
	for (unsigned i = 0; i < s->num; i++) {
		const uint8_t *p = d + VF_EMA_LIST_HDR + VF_EMA_MAC_ENTRY * i;

		memcpy(e[i].mac, p, 6);
		memcpy(e[i].mask, p + 6, 6);
		e[i].dlid_sd = vf_get32(p + 12);
	}
	return VF_EMA_OK;
}

void vf_ema_put_mac_list(uint8_t *mad, const struct vf_ema_mac_list *l)
{
	uint8_t *d = data(mad);

	vf_put16(d + 0, l->start_idx);
	vf_put16(d + 2, l->num);
	vf_put16(d + 4, l->total);
	vf_put16(d + 6, l->gen_count);
	for (unsigned i = 0; i < l->num && i < VF_EMA_LIST_PER_MAD; i++)
		memcpy(d + VF_EMA_LIST_HDR + 6 * i, l->macs[i], 6);
}

uint16_t vf_ema_get_mac_list(const uint8_t *mad, size_t len, bool request,
			     struct vf_ema_mac_list *l)
{
	const uint8_t *d = cdata(mad);

	memset(l, 0, sizeof(*l));
	if (!has_data(len, VF_EMA_LIST_HDR))
		return VF_EMA_BAD_FIELD;
	l->start_idx = vf_get16(d + 0);
	l->num = vf_get16(d + 2);
	if (l->num > VF_EMA_LIST_PER_MAD)
		return VF_EMA_BAD_FIELD;
	if (request)
		return VF_EMA_OK;
	l->total = vf_get16(d + 4);
	l->gen_count = vf_get16(d + 6);
	if (l->start_idx + l->num > l->total ||
	    !has_data(len, VF_EMA_LIST_HDR + 6u * l->num))
		return VF_EMA_BAD_FIELD;
	for (unsigned i = 0; i < l->num; i++)
		memcpy(l->macs[i], d + VF_EMA_LIST_HDR + 6 * i, 6);
	return VF_EMA_OK;
}

/* Where each counter sits in the Omni-Path attribute. */
struct ctr_field {
	uint16_t opa_off;
	uint16_t member;	/* offsetof in the counters struct */
};

#define SUM(f, off) { off, offsetof(struct vf_ema_summary, f) }
static const struct ctr_field summary_fields[] = {
	SUM(tx_errors, 8), SUM(rx_errors, 16), SUM(tx_packets, 24),
	SUM(rx_packets, 32), SUM(tx_bytes, 40), SUM(rx_bytes, 48),
	SUM(tx_unicast, 56), SUM(tx_mcastbcast, 64), SUM(tx_untagged, 72),
	SUM(tx_vlan, 80), SUM(tx_64, 88), SUM(tx_65_127, 96),
	SUM(tx_128_255, 104), SUM(tx_256_511, 112), SUM(tx_512_1023, 120),
	SUM(tx_1024_1518, 128), SUM(tx_1519_max, 136), SUM(rx_unicast, 144),
	SUM(rx_mcastbcast, 152), SUM(rx_untagged, 160), SUM(rx_vlan, 168),
	SUM(rx_64, 176), SUM(rx_65_127, 184), SUM(rx_128_255, 192),
	SUM(rx_256_511, 200), SUM(rx_512_1023, 208), SUM(rx_1024_1518, 216),
	SUM(rx_1519_max, 224),
};

#define ERR(f, off) { off, offsetof(struct vf_ema_errors, f) }
static const struct ctr_field error_fields[] = {
	ERR(tx_errors, 8), ERR(rx_errors, 16), ERR(tx_smac_filt, 32),
	ERR(tx_dlid_zero, 64), ERR(tx_logic, 80), ERR(tx_drop_state, 96),
	ERR(rx_bad_veswid, 104), ERR(rx_runt, 120), ERR(rx_oversize, 128),
	ERR(rx_eth_down, 144), ERR(rx_drop_state, 152), ERR(rx_logic, 160),
};

struct ctr_attr {
	const struct ctr_field *fields;
	size_t n;
	size_t size;		/* of the Omni-Path attribute */
};

static const struct ctr_attr summary_attr = {
	summary_fields, sizeof(summary_fields) / sizeof(summary_fields[0]),
	VF_EMA_SUMMARY_SIZE,
};

static const struct ctr_attr error_attr = {
	error_fields, sizeof(error_fields) / sizeof(error_fields[0]),
	VF_EMA_ERROR_SIZE,
};

/* First Omni-Path byte of part p and its length; false: no such part. */
static bool ctr_slice(const struct ctr_attr *a, unsigned part,
		      size_t *from, size_t *n)
{
	if (part >= VF_EMA_CTR_PARTS)
		return false;
	*from = VF_EMA_CTR_PREFIX + (size_t)VF_EMA_CTR_SLICE * part;
	*n = a->size - *from < VF_EMA_CTR_SLICE ? a->size - *from :
						   VF_EMA_CTR_SLICE;
	return true;
}

static uint16_t put_ctrs(uint8_t *mad, const struct ctr_attr *a,
			 unsigned part, const struct vf_ema_ctr_id *id,
			 const void *ctrs)
{
	uint8_t *d = data(mad);
	size_t from, n;

	if (!ctr_slice(a, part, &from, &n))
		return VF_EMA_BAD_FIELD;
	vf_put16(d + 0, id->vp_instance);
	vf_put16(d + 2, id->vesw_id);
	vf_put32(d + 4, id->veswport_num);
	for (size_t i = 0; i < a->n; i++) {
		const struct ctr_field *f = &a->fields[i];
		uint64_t v;

		if (f->opa_off < from || f->opa_off + 8 > from + n)
			continue;
		memcpy(&v, (const uint8_t *)ctrs + f->member, sizeof(v));
		vf_put64(d + VF_EMA_CTR_PREFIX + (f->opa_off - from), v);
	}
	return VF_EMA_OK;
}

static uint16_t get_ctrs(const uint8_t *mad, size_t len,
			 const struct ctr_attr *a, unsigned part,
			 struct vf_ema_ctr_id *id, void *ctrs)
{
	const uint8_t *d = cdata(mad);
	size_t from, n;

	if (!ctr_slice(a, part, &from, &n) ||
	    !has_data(len, VF_EMA_CTR_PREFIX + n))
		return VF_EMA_BAD_FIELD;
	id->vp_instance = vf_get16(d + 0);
	id->vesw_id = vf_get16(d + 2);
	id->veswport_num = vf_get32(d + 4);
	for (size_t i = 0; i < a->n; i++) {
		const struct ctr_field *f = &a->fields[i];
		uint64_t v;

		if (f->opa_off < from || f->opa_off + 8 > from + n)
			continue;
		v = vf_get64(d + VF_EMA_CTR_PREFIX + (f->opa_off - from));
		memcpy((uint8_t *)ctrs + f->member, &v, sizeof(v));
	}
	return VF_EMA_OK;
}

uint16_t vf_ema_put_summary(uint8_t *mad, unsigned part,
			    const struct vf_ema_ctr_id *id,
			    const struct vf_ema_summary *s)
{
	return put_ctrs(mad, &summary_attr, part, id, s);
}

uint16_t vf_ema_get_summary(const uint8_t *mad, size_t len, unsigned part,
			    struct vf_ema_ctr_id *id, struct vf_ema_summary *s)
{
	return get_ctrs(mad, len, &summary_attr, part, id, s);
}

uint16_t vf_ema_put_errors(uint8_t *mad, unsigned part,
			   const struct vf_ema_ctr_id *id,
			   const struct vf_ema_errors *e)
{
	return put_ctrs(mad, &error_attr, part, id, e);
}

uint16_t vf_ema_get_errors(const uint8_t *mad, size_t len, unsigned part,
			   struct vf_ema_ctr_id *id, struct vf_ema_errors *e)
{
	return get_ctrs(mad, len, &error_attr, part, id, e);
}

void vf_ema_put_trap(uint8_t *mad, const struct vf_ema_trap *t)
{
	uint8_t *d = data(mad);
	uint8_t *p = d + VF_EMA_TRAP_PAYLOAD;

	d[0] = NOTICE_TYPE;
	put_oui(d + 1, VF_EMA_OUI);
	/* trap number and toggle/count stay 0, as on Omni-Path */
	vf_put32(d + 8, t->issuer_lid);
	vf_put16(p + 0, t->fabric_id);
	vf_put16(p + 2, t->vesw_id);
	vf_put32(p + 4, t->port_num);
	vf_put16(p + 8, t->phys_port);
	p[10] = t->vport_index;
	p[11] = t->opcode;
}

uint16_t vf_ema_get_trap(const uint8_t *mad, size_t len,
			 struct vf_ema_trap *t)
{
	const uint8_t *d = cdata(mad);
	const uint8_t *p = d + VF_EMA_TRAP_PAYLOAD;

	memset(t, 0, sizeof(*t));
	if (!has_data(len, VF_EMA_TRAP_PAYLOAD + 16))
		return VF_EMA_BAD_FIELD;
	t->issuer_lid = vf_get32(d + 8);
	t->fabric_id = vf_get16(p + 0);
	t->vesw_id = vf_get16(p + 2);
	t->port_num = vf_get32(p + 4);
	t->phys_port = vf_get16(p + 8);
	t->vport_index = p[10];
	t->opcode = p[11];
	if (d[0] != NOTICE_TYPE || get_oui(d + 1) != VF_EMA_OUI ||
	    t->opcode < VF_EMA_TRAP_UCAST_MACS || t->opcode > VF_EMA_TRAP_LINK)
		return VF_EMA_BAD_FIELD;
	return VF_EMA_OK;
}

const char *vf_ema_attr_name(uint16_t attr, char buf[8])
{
	switch (attr) {
	case VF_EMA_CLASS_PORT_INFO: return "ClassPortInfo";
	case VF_EMA_NOTICE: return "Notice";
	case VF_EMA_VESWPORT_INFO: return "VeswPortInfo";
	case VF_EMA_MAC_ENTRIES: return "VeswPortMacEntries";
	case VF_EMA_IFACE_UCAST_MACS: return "IfaceUcastMacs";
	case VF_EMA_IFACE_MCAST_MACS: return "IfaceMcastMacs";
	case VF_EMA_DELETE_VESW: return "DeleteVesw";
	case VF_EMA_SUMMARY_COUNTERS: return "VeswPortSummaryCounters";
	case VF_EMA_ERROR_COUNTERS: return "VeswPortErrorCounters";
	case VF_EMA_KEY_INFO: return "EMKeyInfo";
	}
	snprintf(buf, 8, "0x%04x", attr);
	return buf;
}

const char *vf_ema_status_name(uint16_t status)
{
	switch (status) {
	case VF_EMA_OK: return "ok";
	case VF_EMA_BAD_VERSION: return "bad version";
	case VF_EMA_BAD_METHOD: return "method not supported";
	case VF_EMA_BAD_ATTR: return "attribute not supported";
	case VF_EMA_BAD_FIELD: return "invalid modifier, length or field";
	case VF_EMA_NOT_SM: return "not from the master SM";
	case VF_EMA_BAD_KEY: return "wrong EM key";
	}
	return "unknown status";
}
