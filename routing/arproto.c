// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The AR protocol codec (routing/arproto.h, docs/ar-protocol.md): byte
 * offsets only, no I/O.
 */
#include <stdio.h>
#include <string.h>

#include "arproto.h"
#include "common/mad.h"

void vf_arp_init(uint8_t *mad, uint8_t method, uint64_t tid, uint16_t attr,
		 uint32_t amod, uint32_t generation)
{
	struct vf_mad_hdr h = {
		.base_version = 1, .mgmt_class = VF_ARP_CLASS,
		.class_version = VF_ARP_CLASS_VERSION, .method = method,
		.tid = tid, .attr_id = attr, .attr_mod = amod,
	};

	memset(mad, 0, VF_ARP_MAD_SIZE);
	vf_mad_put_hdr(mad, &h);
	vf_put32(mad + 24, generation);
}

void vf_arp_get_hdr(const uint8_t *mad, struct vf_arp_hdr *h)
{
	struct vf_mad_hdr m;

	vf_mad_get_hdr(mad, &m);
	h->base_version = m.base_version;
	h->mgmt_class = m.mgmt_class;
	h->class_version = m.class_version;
	h->method = m.method;
	h->status = m.status;
	h->tid = m.tid;
	h->attr_id = m.attr_id;
	h->attr_mod = m.attr_mod;
	h->generation = vf_get32(mad + 24);
}

void vf_arp_put_status(uint8_t *mad, uint16_t status)
{
	vf_put16(mad + 4, status);
}

void vf_arp_put_key(uint8_t *mad, uint64_t key)
{
	vf_put32(mad + VF_ARP_KEY_OFF, (uint32_t)(key >> 32));
	vf_put32(mad + VF_ARP_KEY_OFF + 4, (uint32_t)key);
}

uint64_t vf_arp_get_key(const uint8_t *mad)
{
	return (uint64_t)vf_get32(mad + VF_ARP_KEY_OFF) << 32 |
	       vf_get32(mad + VF_ARP_KEY_OFF + 4);
}

uint16_t vf_arp_check_request(const uint8_t *mad, size_t len,
			      struct vf_arp_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (len < VF_ARP_DATA)
		return VF_ARP_BAD_FIELD;
	vf_arp_get_hdr(mad, h);
	if (h->base_version != 1 || h->class_version != VF_ARP_CLASS_VERSION)
		return VF_ARP_BAD_VERSION;
	if (h->method != VF_ARP_GET && h->method != VF_ARP_SET)
		return VF_ARP_BAD_METHOD;
	switch (h->attr_id) {
	case VF_ARP_INFO:
	case VF_ARP_EGRESS:
		return h->method == VF_ARP_GET ? VF_ARP_OK : VF_ARP_BAD_ATTR;
	case VF_ARP_LOST_ROUTES:	/* a notice: nothing to read back */
		return h->method == VF_ARP_SET ? VF_ARP_OK : VF_ARP_BAD_ATTR;
	case VF_ARP_CONTROL:
	case VF_ARP_GROUPS:
	case VF_ARP_LIDS:
	case VF_ARP_LOAD:
	case VF_ARP_NEIGHBORS:
	case VF_ARP_KEY_INFO:
		return VF_ARP_OK;
	default:
		return VF_ARP_BAD_ATTR;
	}
}

bool vf_arp_sm_only(const struct vf_arp_hdr *h)
{
	return h->method == VF_ARP_SET &&
	       (h->attr_id == VF_ARP_CONTROL || h->attr_id == VF_ARP_GROUPS ||
		h->attr_id == VF_ARP_LIDS || h->attr_id == VF_ARP_NEIGHBORS ||
		h->attr_id == VF_ARP_KEY_INFO);
}

uint16_t vf_arp_authorize(const struct vf_arp_hdr *h, bool from_sm,
			  uint64_t carried, struct vf_mkey *k, uint64_t now_ms)
{
	if (vf_arp_sm_only(h)) {
		if (!from_sm)
			return VF_ARP_NOT_SM;
		return vf_mkey_check(k, carried, true, now_ms) ? VF_ARP_OK :
								 VF_ARP_BAD_KEY;
	}
	/* a notice: from a neighbor switch, which holds the same key */
	if (h->method == VF_ARP_SET && h->attr_id == VF_ARP_LOST_ROUTES &&
	    !vf_mkey_check(k, carried, false, now_ms))
		return VF_ARP_BAD_KEY;
	return VF_ARP_OK;
}

void vf_arp_put_control(uint8_t *mad, const struct vf_arp_control *c)
{
	uint8_t *d = mad + VF_ARP_DATA;

	d[0] = (uint8_t)(c->enable | c->pause << 1 | c->lost_route_only << 2);
	d[1] = c->algorithm;
	d[2] = c->frequency;
	d[3] = c->threshold;
	vf_put16(d + 4, c->group_top);
	vf_put32(d + 8, c->lid_top);
}

static void get_control_at(const uint8_t *d, struct vf_arp_control *c)
{
	c->enable = d[0] & 1;
	c->pause = d[0] >> 1 & 1;
	c->lost_route_only = d[0] >> 2 & 1;
	c->algorithm = d[1];
	c->frequency = d[2];
	c->threshold = d[3];
	c->group_top = vf_get16(d + 4);
	c->lid_top = vf_get32(d + 8);
}

void vf_arp_get_control(const uint8_t *mad, struct vf_arp_control *c)
{
	get_control_at(mad + VF_ARP_DATA, c);
}

void vf_arp_put_info(uint8_t *mad, const struct vf_arp_info *i)
{
	uint8_t *d = mad + VF_ARP_DATA;
	uint8_t ctl[VF_ARP_MAD_SIZE] = { 0 };

	d[0] = (uint8_t)(i->supported | i->key_set << 1 | i->key_match << 2);
	d[1] = i->num_ports;
	vf_put16(d + 2, i->group_cap);
	vf_put32(d + 4, i->lid_cap);
	d[8] = i->groups_per_block;
	d[9] = i->lids_per_block;
	vf_put32(d + 12, i->active_generation);
	vf_put32(d + 16, i->pending_generation);
	vf_arp_put_control(ctl, &i->control);
	memcpy(d + 20, ctl + VF_ARP_DATA, 12);
}

void vf_arp_get_info(const uint8_t *mad, struct vf_arp_info *i)
{
	const uint8_t *d = mad + VF_ARP_DATA;

	i->supported = d[0] & 1;
	i->key_set = d[0] >> 1 & 1;
	i->key_match = d[0] >> 2 & 1;
	i->num_ports = d[1];
	i->group_cap = vf_get16(d + 2);
	i->lid_cap = vf_get32(d + 4);
	i->groups_per_block = d[8];
	i->lids_per_block = d[9];
	i->active_generation = vf_get32(d + 12);
	i->pending_generation = vf_get32(d + 16);
	get_control_at(d + 20, &i->control);
}

void vf_arp_put_keyinfo(uint8_t *mad, const struct vf_arp_keyinfo *k)
{
	uint8_t *d = mad + VF_ARP_DATA;

	vf_put32(d, (uint32_t)(k->key >> 32));
	vf_put32(d + 4, (uint32_t)k->key);
	vf_put16(d + 8, k->lease_s);
	vf_put16(d + 10, k->lease_left_s);
	vf_put32(d + 12, k->refused);
}

void vf_arp_get_keyinfo(const uint8_t *mad, struct vf_arp_keyinfo *k)
{
	const uint8_t *d = mad + VF_ARP_DATA;

	k->key = (uint64_t)vf_get32(d) << 32 | vf_get32(d + 4);
	k->lease_s = vf_get16(d + 8);
	k->lease_left_s = vf_get16(d + 10);
	k->refused = vf_get32(d + 12);
}

void vf_arp_put_groups(uint8_t *mad, const struct vf_ar_mask *m, unsigned n)
{
	for (unsigned k = 0; k < n && k < VF_ARP_GROUPS_PER_BLOCK; k++) {
		uint8_t *d = mad + VF_ARP_DATA + k * VF_ARP_MASK_BYTES;

		/* byte 31 - j holds ports 8j+1 .. 8j+8 */
		for (unsigned j = 0; j < VF_ARP_MASK_BYTES; j++)
			d[VF_ARP_MASK_BYTES - 1 - j] =
				(uint8_t)(m[k].w[j / 8] >> (j % 8 * 8));
	}
}

void vf_arp_get_groups(const uint8_t *mad,
		       struct vf_ar_mask m[VF_ARP_GROUPS_PER_BLOCK])
{
	memset(m, 0, VF_ARP_GROUPS_PER_BLOCK * sizeof(*m));
	for (unsigned k = 0; k < VF_ARP_GROUPS_PER_BLOCK; k++) {
		const uint8_t *d = mad + VF_ARP_DATA + k * VF_ARP_MASK_BYTES;

		for (unsigned j = 0; j < VF_ARP_MASK_BYTES; j++)
			m[k].w[j / 8] |= (uint64_t)d[VF_ARP_MASK_BYTES - 1 - j]
					 << (j % 8 * 8);
	}
}

void vf_arp_put_lids(uint8_t *mad, const uint8_t g[VF_ARP_LIDS_PER_BLOCK])
{
	memcpy(mad + VF_ARP_DATA, g, VF_ARP_LIDS_PER_BLOCK);
}

void vf_arp_get_lids(const uint8_t *mad, uint8_t g[VF_ARP_LIDS_PER_BLOCK])
{
	memcpy(g, mad + VF_ARP_DATA, VF_ARP_LIDS_PER_BLOCK);
}

void vf_arp_put_loads(uint8_t *mad,
		      const uint32_t l[VF_ARP_PORTS_PER_BLOCK])
{
	for (unsigned k = 0; k < VF_ARP_PORTS_PER_BLOCK; k++)
		vf_put32(mad + VF_ARP_DATA + 4 * k, l[k]);
}

void vf_arp_get_loads(const uint8_t *mad,
		      uint32_t l[VF_ARP_PORTS_PER_BLOCK])
{
	for (unsigned k = 0; k < VF_ARP_PORTS_PER_BLOCK; k++)
		l[k] = vf_get32(mad + VF_ARP_DATA + 4 * k);
}

void vf_arp_put_egress(uint8_t *mad, const struct vf_arp_egress *e)
{
	mad[VF_ARP_DATA] = e->static_port;
	mad[VF_ARP_DATA + 1] = e->port;
	mad[VF_ARP_DATA + 2] = e->group;
}

void vf_arp_get_egress(const uint8_t *mad, struct vf_arp_egress *e)
{
	e->static_port = mad[VF_ARP_DATA];
	e->port = mad[VF_ARP_DATA + 1];
	e->group = mad[VF_ARP_DATA + 2];
}

void vf_arp_put_neighbors(uint8_t *mad,
			  const uint16_t n[VF_ARP_NEIGHBORS_PER_BLOCK])
{
	for (unsigned k = 0; k < VF_ARP_NEIGHBORS_PER_BLOCK; k++)
		vf_put16(mad + VF_ARP_DATA + 2 * k, n[k]);
}

void vf_arp_get_neighbors(const uint8_t *mad,
			  uint16_t n[VF_ARP_NEIGHBORS_PER_BLOCK])
{
	for (unsigned k = 0; k < VF_ARP_NEIGHBORS_PER_BLOCK; k++)
		n[k] = vf_get16(mad + VF_ARP_DATA + 2 * k);
}

void vf_arp_put_lost(uint8_t *mad, const struct vf_arp_lost *l)
{
	mad[VF_ARP_DATA] = l->restored;
	vf_put16(mad + VF_ARP_DATA + 2, l->sender);
	memcpy(mad + VF_ARP_LOST_BITMAP, l->bits, sizeof(l->bits));
}

void vf_arp_get_lost(const uint8_t *mad, struct vf_arp_lost *l)
{
	l->restored = mad[VF_ARP_DATA] & 1;
	l->sender = vf_get16(mad + VF_ARP_DATA + 2);
	memcpy(l->bits, mad + VF_ARP_LOST_BITMAP, sizeof(l->bits));
}

uint16_t vf_arp_check_neighbors(uint32_t amod, unsigned num_ports,
				const uint16_t *n)
{
	unsigned first = amod * VF_ARP_NEIGHBORS_PER_BLOCK;

	if (amod >= VF_ARP_NEIGHBOR_BLOCKS || first > num_ports)
		return VF_ARP_BAD_FIELD;
	for (unsigned k = 0; n && k < VF_ARP_NEIGHBORS_PER_BLOCK; k++)
		if (n[k] >= 0xC000 || (n[k] && first + k > num_ports))
			return VF_ARP_BAD_FIELD;
	return VF_ARP_OK;
}

uint16_t vf_arp_check_lost(uint32_t amod, unsigned lid_cap,
			   const struct vf_arp_lost *l)
{
	if (amod >= VF_ARP_LOST_BLOCKS ||
	    amod * VF_ARP_LOST_LIDS >= lid_cap || !l->sender ||
	    l->sender >= 0xC000)
		return VF_ARP_BAD_FIELD;
	return VF_ARP_OK;
}

const char *vf_arp_attr_name(uint16_t attr, char buf[8])
{
	switch (attr) {
	case VF_ARP_INFO: return "ARInfo";
	case VF_ARP_CONTROL: return "ARControl";
	case VF_ARP_GROUPS: return "PortGroupTable";
	case VF_ARP_LIDS: return "PortGroupLidTable";
	case VF_ARP_LOAD: return "ARPortLoad";
	case VF_ARP_EGRESS: return "AREgress";
	case VF_ARP_NEIGHBORS: return "ARNeighbors";
	case VF_ARP_LOST_ROUTES: return "ARLostRoutes";
	case VF_ARP_KEY_INFO: return "ARKeyInfo";
	}
	snprintf(buf, 8, "0x%04x", attr);
	return buf;
}

const char *vf_arp_status_name(uint16_t status)
{
	switch (status) {
	case VF_ARP_OK: return "ok";
	case VF_ARP_BAD_VERSION: return "bad version";
	case VF_ARP_BAD_METHOD: return "method not supported";
	case VF_ARP_BAD_ATTR: return "attribute not supported";
	case VF_ARP_BAD_FIELD: return "invalid index or field";
	case VF_ARP_SEQUENCE: return "not paused or another generation";
	case VF_ARP_NOT_SM: return "not from the master SM";
	case VF_ARP_BAD_KEY: return "wrong AR_Key";
	}
	return "unknown status";
}
