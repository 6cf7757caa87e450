// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* The Ethernet Manager's policy (empolicy.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vnic/datapath.h"
#include "vnic/ema.h"
#include "vnic/empolicy.h"

static int vf_index(const struct vf_config *c, const char *name)
{
	for (unsigned i = 0; i < c->num_vfs; i++)
		if (!strcmp(c->vfs[i].name, name))
			return (int)i;
	return -1;
}

static bool in_any(const struct vf_config *c, const struct vf_dg_members *m,
		   char *const *names, unsigned n, uint32_t port)
{
	for (unsigned i = 0; i < n; i++) {
		int g = vf_config_dg_index(c, names[i]);

		if (g >= 0 && vf_dg_has(m, (unsigned)g, port))
			return true;
	}
	return false;
}

static bool is_ca_port(const struct vf_fabric *f, uint32_t port)
{
	const struct vf_port *pt = &f->ports[port];

	return pt->num && pt->base_lid &&
	       f->nodes[pt->node].type == VF_NODE_CA;
}

static int cmp_guid(const void *a, const void *b)
{
	const struct vf_em_member *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* u_ucast_dlid[] and def_port_mask from the DefaultPort groups. */
static void default_ports(const struct vf_config *c, const struct vf_fabric *f,
			  const struct vf_dg_members *m,
			  const struct vf_cfg_vesw *s, struct vf_vesw *v,
			  struct vf_diag *d)
{
	unsigned n = 0, over = 0;

	for (uint32_t pt = 0; pt < f->num_ports; pt++) {
		if (!is_ca_port(f, pt) ||
		    !in_any(c, m, s->default_ports, s->num_default_ports, pt))
			continue;
		if (n == VF_EM_MAX_DEFAULT_PORTS) {
			over++;
			continue;
		}
		v->u_ucast_dlid[n] = f->ports[pt].base_lid;
		v->def_port_mask |= (uint16_t)(1u << n++);
	}
	if (over)
		vf_diag_add(d, VF_DIAG_WARN, &s->at,
			    "VirtualEthernetSwitch '%s': %u DefaultPort ports beyond the first 16 are not used",
			    s->name, over);
}

static int add_member(struct vf_em_plan *p, const struct vf_em_member *mb)
{
	struct vf_em_member *g = realloc(p->members, (p->num_members + 1) *
					 sizeof(*g));

	if (!g)
		return -ENOMEM;
	p->members = g;
	g[p->num_members++] = *mb;
	return 0;
}

/* The vESW s as p's vesws[p->num_vesws], with its members. */
static int add_vesw(const struct vf_config *c, const struct vf_fabric *f,
		    const struct vf_dg_members *m, const struct vf_cfg_vesw *s,
		    uint16_t pkey, int sl, uint32_t sm_port,
		    struct vf_em_plan *p, struct vf_diag *d)
{
	const struct vf_cfg_vf *vf = &c->vfs[vf_index(c, s->vf)];
	struct vf_em_vesw *grown, *w;
	struct vf_vesw v = { 0 };

	v.fabric_id = p->fabric_id;
	v.vesw_id = (uint16_t)s->vesw_id;
	v.pkey = (uint16_t)(pkey | 0x8000);
	v.u_mcast_dlid = s->u_mcast_dlid;
	v.eth_mtu = (uint16_t)s->eth_mtu;
	default_ports(c, f, m, s, &v, d);
	grown = realloc(p->vesws, (p->num_vesws + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	p->vesws = grown;
	w = &grown[p->num_vesws];
	memset(w, 0, sizeof(*w));
	w->name = strdup(s->name);
	if (!w->name)
		return -ENOMEM;
	w->id = v.vesw_id;
	w->pkey = v.pkey;
	w->first = p->num_members;
	for (uint32_t pt = 0; pt < f->num_ports; pt++) {
		struct vf_em_member mb = { 0 };

		if (pt == sm_port || !is_ca_port(f, pt) ||
		    !in_any(c, m, s->members, s->num_members, pt) ||
		    !in_any(c, m, vf->members.v, vf->members.n, pt))
			continue;
		mb.guid = f->ports[pt].guid;
		mb.lid = f->ports[pt].base_lid;
		mb.port = pt;
		mb.vesw = p->num_vesws;
		mb.want.vesw = v;
		mb.want.port_num = mb.lid;
		mb.want.encap_slid = mb.lid;
		mb.want.sc = sl >= 0 ? (uint8_t)sl : 0;
		vf_dp_lmac(v.fabric_id, v.vesw_id, mb.lid, mb.want.base_mac);
		/* one vport per vESW the port is in, in config order */
		for (unsigned k = 0; k < p->num_members; k++)
			if (p->members[k].guid == mb.guid)
				mb.vport++;
		if (add_member(p, &mb))
			return -ENOMEM;
	}
	w->count = p->num_members - w->first;
	/* no member yet: members may be NULL, and NULL + 0 is undefined
	 * (UBSan, found by fuzz/fuzz-xmlconf) */
	if (w->count)
		qsort(p->members + w->first, w->count, sizeof(*p->members),
		      cmp_guid);
	p->num_vesws++;
	if (!w->count)
		vf_diag_add(d, VF_DIAG_WARN, &s->at,
			    "VirtualEthernetSwitch '%s': no port is both in its Member groups and a full member of VirtualFabric '%s'",
			    s->name, s->vf);
	return 0;
}

int vf_em_plan_build(const struct vf_config *c, const struct vf_fabric *f,
		     const struct vf_dg_members *m, const uint16_t *vf_pkey,
		     const int *vf_sl, uint32_t sm_port, struct vf_em_plan *p,
		     struct vf_diag *d)
{
	memset(p, 0, sizeof(*p));
	p->fabric_id = (uint16_t)c->em.fabric_id;
	for (unsigned i = 0; i < c->em.num_vesws; i++) {
		const struct vf_cfg_vesw *s = &c->em.vesws[i];
		int k = s->vf ? vf_index(c, s->vf) : -1;

		if (!s->enable)
			continue;
		if (k < 0 || !vf_pkey || !vf_pkey[k]) {
			vf_diag_add(d, VF_DIAG_ERROR, &s->at,
				    "VirtualEthernetSwitch '%s': VirtualFabric '%s' has no P_Key in this sweep's plan; the vESW is not configured",
				    s->name, s->vf ? s->vf : "");
			continue;
		}
		if (add_vesw(c, f, m, s, vf_pkey[k], vf_sl ? vf_sl[k] : -1,
			     sm_port, p, d)) {
			vf_em_plan_free(p);
			return -ENOMEM;
		}
	}
	return 0;
}

void vf_em_plan_free(struct vf_em_plan *p)
{
	for (unsigned i = 0; i < p->num_vesws; i++)
		free(p->vesws[i].name);
	free(p->vesws);
	free(p->members);
	memset(p, 0, sizeof(*p));
}

static void entry(struct vf_vport_mac *e, const uint8_t mac[6], uint16_t lid)
{
	memcpy(e->mac, mac, 6);
	memset(e->mask, 0xff, 6);
	e->dlid_sd = (uint32_t)lid << 8;
}

/* FNV-1a over the entries as they go on the wire. */
static uint32_t digest_of(const struct vf_vport_mac *e, unsigned n)
{
	uint32_t h = 2166136261u;

	for (unsigned i = 0; i < n; i++) {
		uint8_t b[16];

		memcpy(b, e[i].mac, 6);
		memcpy(b + 6, e[i].mask, 6);
		for (int k = 0; k < 4; k++)
			b[12 + k] = (uint8_t)(e[i].dlid_sd >> (24 - 8 * k));
		for (int k = 0; k < 16; k++)
			h = (h ^ b[k]) * 16777619u;
	}
	return h ? h : 1;
}

unsigned vf_em_mac_table(const struct vf_em_plan *p, unsigned i,
			 const struct vf_em_macs *learned,
			 struct vf_vport_mac *out, unsigned cap,
			 uint32_t *digest)
{
	const struct vf_em_member *me = &p->members[i];
	const struct vf_em_vesw *w = &p->vesws[me->vesw];
	unsigned n = 0;

	for (unsigned j = w->first; j < w->first + w->count; j++) {
		const struct vf_em_member *peer = &p->members[j];

		if (j == i)
			continue;
		if (n < cap)
			entry(&out[n++], peer->want.base_mac, peer->lid);
		for (unsigned k = 0; learned && k < learned[j].n; k++)
			if (n < cap)
				entry(&out[n++], learned[j].mac[k], peer->lid);
	}
	*digest = digest_of(out, n);
	return n;
}

unsigned vf_em_scan_start(unsigned n)
{
	const unsigned page = VF_EMA_MACS_PER_MAD;

	/* the first slice is written even for an empty table */
	return n ? (n + page - 1) / page * page : page;
}

bool vf_em_scan_page(unsigned offset, const struct vf_vport_mac *e,
		     unsigned num, unsigned *end)
{
	static const uint8_t none[6];
	bool used = false;

	for (unsigned i = 0; i < num; i++)
		if (memcmp(e[i].mac, none, 6)) {
			used = true;
			if (offset + i + 1 > *end)
				*end = offset + i + 1;
		}
	return used && offset + num < VF_VPORT_MAC_TABLE;
}

int vf_em_find(const struct vf_em_plan *p, uint64_t guid, unsigned vport)
{
	for (unsigned i = 0; i < p->num_members; i++)
		if (p->members[i].guid == guid && p->members[i].vport == vport)
			return (int)i;
	return -1;
}
