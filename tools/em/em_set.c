// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric-em's write side: set (what an EM writes: ClassPortInfo's trap
 * LID, the vESW and vport parts of VeswPortInfo, read-modify-write, in
 * the EM's order), macset (MAC table slices), delete (DeleteVesw) and
 * raw (any header, any length: fault injection).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/em/emtool.h"
#include "vnic/datapath.h"

#define EM_QP1_QKEY 0x80010000u

static unsigned first_lid(const struct em_opts *o)
{
	return (unsigned)strtoul(o->args[0], NULL, 0);
}

/* Send a Set; 0 and the answer's data in r, or EM_EXIT_* (printed). */
static int em_set(struct em *e, unsigned lid, uint8_t *mad,
		  struct em_reply *r)
{
	char name[8];

	if (em_call(e, lid, mad, r, false))
		return EM_EXIT_TRANSPORT;
	if (r->h.status) {
		fprintf(stderr, "vfabric-em: LID %u: Set %s (modifier 0x%x): status 0x%04x %s%s\n",
			lid, vf_ema_attr_name(r->h.attr_id, name),
			r->h.attr_mod, r->h.status,
			vf_ema_status_name(r->h.status),
			r->h.status == VF_EMA_NOT_SM ?
			" (endpoints take Sets only from the master SM's port: run vfabric-em at its node)" :
			r->h.status == VF_EMA_BAD_KEY ?
			" (the endpoint holds an EM key: give it with --key)" :
			"");
		return EM_EXIT_STATUS;
	}
	return EM_EXIT_OK;
}

static int set_cpi(struct em *e, const struct em_opts *o, unsigned lid)
{
	uint8_t mad[VF_EMA_MAD_SIZE];
	struct vf_ema_cpi c;
	struct em_reply r;
	int rc = em_get(e, lid, VF_EMA_CLASS_PORT_INFO, 0, &r);

	if (rc)
		return rc;
	vf_ema_get_cpi(r.mad, r.len, &c);
	if (em_given(o, EO_TRAP_LID))
		c.trap_lid = o->trap_lid;
	if (em_given(o, EO_TRAP_SL))
		c.trap_sl = o->trap_sl;
	c.trap_qkey = EM_QP1_QKEY;
	c.trap_hl_qp = 1;
	em_request(e, mad, VF_EMA_SET, VF_EMA_CLASS_PORT_INFO, 0);
	vf_ema_put_cpi(mad, &c);
	return em_set(e, lid, mad, &r);
}

int cmd_set(struct em *e, const struct em_opts *o)
{
	static struct vf_vport v;
	const uint64_t vesw_opts = 1ull << EO_VESW | 1ull << EO_FABRIC |
		1ull << EO_PKEY | 1ull << EO_MTU | 1ull << EO_MCAST_DLID |
		1ull << EO_DEFAULT_DLID;
	const uint64_t vport_opts = 1ull << EO_MAC | 1ull << EO_SLID |
		1ull << EO_PORT_NUM | 1ull << EO_STATE;
	unsigned lid = first_lid(o), vp = o->vport;
	uint8_t mad[VF_EMA_MAD_SIZE];
	struct em_reply r;
	int rc;

	if (em_given(o, EO_TRAP_LID) || em_given(o, EO_TRAP_SL)) {
		rc = set_cpi(e, o, lid);
		if (rc)
			return rc;
		printf("lid=%u trap_lid=%u trap_sl=%u\n", lid,
		       em_given(o, EO_TRAP_LID) ? o->trap_lid : 0, o->trap_sl);
	}
	if (!(o->given & (vesw_opts | vport_opts)))
		return EM_EXIT_OK;
	/* read, change what was given, write: what else is kept */
	memset(&v, 0, sizeof(v));
	rc = em_get(e, lid, VF_EMA_VESWPORT_INFO,
		    vf_ema_amod(vp, VF_EMA_PART_VESW), &r);
	if (rc)
		return rc;
	vf_ema_get_vesw(r.mad, r.len, &v.vesw);
	rc = em_get(e, lid, VF_EMA_VESWPORT_INFO,
		    vf_ema_amod(vp, VF_EMA_PART_VPORT), &r);
	if (rc)
		return rc;
	vf_ema_get_vport(r.mad, r.len, &v, NULL);
	if (o->given & vesw_opts) {
		if (em_given(o, EO_VESW))
			v.vesw.vesw_id = o->vesw;
		if (em_given(o, EO_FABRIC))
			v.vesw.fabric_id = o->fabric;
		if (em_given(o, EO_PKEY))
			v.vesw.pkey = o->pkey;
		if (em_given(o, EO_MTU))
			v.vesw.eth_mtu = o->mtu;
		if (em_given(o, EO_MCAST_DLID))
			v.vesw.u_mcast_dlid = o->mcast_dlid;
		if (em_given(o, EO_DEFAULT_DLID)) {
			v.vesw.def_port_mask = 0;
			memset(v.vesw.u_ucast_dlid, 0,
			       sizeof(v.vesw.u_ucast_dlid));
			for (unsigned i = 0; i < o->n_default; i++) {
				v.vesw.def_port_mask |= (uint16_t)(1u << i);
				v.vesw.u_ucast_dlid[i] = o->default_dlid[i];
			}
		}
		em_request(e, mad, VF_EMA_SET, VF_EMA_VESWPORT_INFO,
			   vf_ema_amod(vp, VF_EMA_PART_VESW));
		vf_ema_put_vesw(mad, &v.vesw);
		rc = em_set(e, lid, mad, &r);
		if (rc)
			return rc;
	}
	if (o->given & vport_opts || !v.encap_slid) {
		if (em_given(o, EO_MAC))
			memcpy(v.base_mac, o->mac, 6);
		/* an EM sets the port's own LID: the default here too */
		v.encap_slid = em_given(o, EO_SLID) ? o->slid :
			       v.encap_slid ? v.encap_slid : lid;
		if (em_given(o, EO_PORT_NUM))
			v.port_num = o->port_num;
		if (em_given(o, EO_STATE))
			v.config_state = o->state;
		em_request(e, mad, VF_EMA_SET, VF_EMA_VESWPORT_INFO,
			   vf_ema_amod(vp, VF_EMA_PART_VPORT));
		vf_ema_put_vport(mad, &v);
		rc = em_set(e, lid, mad, &r);
		if (rc)
			return rc;
		vf_ema_get_vport(r.mad, r.len, &v, NULL);
	}
	{
		char mac[18];

		em_mac_str(v.base_mac, mac);
		printf("lid=%u vport=%u vesw=%u pkey=0x%04x mac=%s mtu=%u slid=%u port_num=%u config=%s oper=%s link=%s\n",
		       lid, vp, v.vesw.vesw_id, v.vesw.pkey, mac,
		       v.vesw.eth_mtu, v.encap_slid, v.port_num,
		       em_state_name(v.config_state),
		       em_state_name(v.oper_state),
		       em_link_name(v.eth_link_status));
	}
	return EM_EXIT_OK;
}

/* "MAC=LID", or "LID": the section 8 MAC of lid on the vport's vESW. */
static int parse_entry(const char *s, const struct vf_vesw *w,
		       struct vf_vport_mac *m)
{
	const char *eq = strchr(s, '=');
	unsigned v[6];
	unsigned long lid;
	char *end;
	char c;

	lid = strtoul(eq ? eq + 1 : s, &end, 0);
	if (*end || !lid || lid > EM_MAX_LID)
		return -1;
	memset(m, 0, sizeof(*m));
	if (eq) {
		if (eq - s != 17 ||
		    sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &c) != 7 || c != '=')
			return -1;
		for (int i = 0; i < 6; i++)
			m->mac[i] = (uint8_t)v[i];
	} else {
		vf_dp_lmac(w->fabric_id, w->vesw_id, (uint32_t)lid, m->mac);
	}
	memset(m->mask, 0xff, 6);
	m->dlid_sd = (uint32_t)lid << 8;
	return 0;
}

int cmd_macset(struct em *e, const struct em_opts *o)
{
	static struct vf_vport_mac ent[EM_MAX_MACSET];
	unsigned lid = first_lid(o), vp = o->vport, n = o->nargs - 1;
	struct vf_vesw w = { 0 };
	struct em_reply r;
	int rc;

	rc = em_get(e, lid, VF_EMA_VESWPORT_INFO,
		    vf_ema_amod(vp, VF_EMA_PART_VESW), &r);
	if (rc)
		return rc;
	vf_ema_get_vesw(r.mad, r.len, &w);
	for (unsigned i = 0; i < n; i++)
		if (parse_entry(o->args[i + 1], &w, &ent[i])) {
			fprintf(stderr, "vfabric-em: macset wants MAC=LID or LID, not '%s'\n",
				o->args[i + 1]);
			return EM_EXIT_USAGE;
		}
	for (unsigned done = 0; done < n; done += VF_EMA_MACS_PER_MAD) {
		struct vf_ema_mac_slice s = {
			.offset = (uint16_t)(o->offset + done),
			.num = (uint16_t)(n - done < VF_EMA_MACS_PER_MAD ?
					  n - done : VF_EMA_MACS_PER_MAD),
			.digest = o->digest,
		};
		uint8_t mad[VF_EMA_MAD_SIZE];

		em_request(e, mad, VF_EMA_SET, VF_EMA_MAC_ENTRIES,
			   vf_ema_amod(vp, 0));
		vf_ema_put_mac_entries(mad, &s, &ent[done]);
		rc = em_set(e, lid, mad, &r);
		if (rc)
			return rc;
	}
	printf("lid=%u vport=%u entries=%u offset=%u digest=%u\n", lid, vp, n,
	       o->offset, o->digest);
	return EM_EXIT_OK;
}

int cmd_delete(struct em *e, const struct em_opts *o)
{
	static struct vf_vport v;
	unsigned lid = first_lid(o), vp = o->vport;
	uint8_t mad[VF_EMA_MAD_SIZE];
	struct em_reply r;
	int rc;

	em_request(e, mad, VF_EMA_SET, VF_EMA_DELETE_VESW,
		   vf_ema_amod(vp, VF_EMA_PART_VPORT));
	rc = em_set(e, lid, mad, &r);
	if (rc)
		return rc;
	vf_ema_get_vport(r.mad, r.len, &v, NULL);
	printf("lid=%u vport=%u deleted config=%s oper=%s\n", lid, vp,
	       em_state_name(v.config_state), em_state_name(v.oper_state));
	return EM_EXIT_OK;
}

int cmd_raw(struct em *e, const struct em_opts *o)
{
	unsigned lid = first_lid(o);
	uint8_t mad[VF_EMA_MAD_SIZE];
	struct em_reply r;
	char name[8];
	int rc;

	em_request(e, mad, em_given(o, EO_METHOD) ? o->method : VF_EMA_GET,
		   em_given(o, EO_ATTR) ? o->attr : VF_EMA_CLASS_PORT_INFO,
		   o->amod);
	if (em_given(o, EO_BASE_VERSION))
		mad[0] = o->base_version;
	if (em_given(o, EO_CLASS_VERSION))
		mad[2] = o->class_version;
	if (em_given(o, EO_OUI)) {
		mad[VF_EMA_OUI_OFF] = (uint8_t)(o->oui >> 16);
		mad[VF_EMA_OUI_OFF + 1] = (uint8_t)(o->oui >> 8);
		mad[VF_EMA_OUI_OFF + 2] = (uint8_t)o->oui;
	}
	memcpy(mad + VF_EMA_DATA, o->data, o->data_len);
	e->port.send_len = em_given(o, EO_LEN) ? o->len : 0;
	rc = em_call(e, lid, mad, &r, false);
	e->port.send_len = 0;
	if (rc == -EPROTO)
		return EM_EXIT_STATUS;
	if (rc)
		return EM_EXIT_TRANSPORT;
	printf("lid=%u method=0x%02x attr=%s amod=0x%x status=0x%04x %s\n",
	       lid, r.h.method, vf_ema_attr_name(r.h.attr_id, name),
	       r.h.attr_mod, r.h.status, vf_ema_status_name(r.h.status));
	return EM_EXIT_OK;
}

/*
 * EMKeyInfo: the key held (shown only when --key is it), the lease and
 * the Sets refused; with --new-key, Set the key (and --lease) first.
 */
int cmd_key(struct em *e, const struct em_opts *o)
{
	unsigned lid = first_lid(o);
	uint8_t mad[VF_EMA_MAD_SIZE];
	struct vf_ema_key_info k = { .key = o->new_key, .lease_s = o->lease };
	struct em_reply r;
	int rc;

	if (em_given(o, EO_NEW_KEY)) {
		em_request(e, mad, VF_EMA_SET, VF_EMA_KEY_INFO, 0);
		vf_ema_put_key_info(mad, &k);
		rc = em_set(e, lid, mad, &r);
	} else {
		rc = em_get(e, lid, VF_EMA_KEY_INFO, 0, &r);
	}
	if (rc)
		return rc;
	if (vf_ema_get_key_info(r.mad, r.len, &k)) {
		fprintf(stderr, "vfabric-em: LID %u: a malformed EMKeyInfo\n",
			lid);
		return EM_EXIT_STATUS;
	}
	printf("lid=%u key_held=%d key=", lid, !!(k.flags & VF_EMA_KEY_HELD));
	if (k.key)
		printf("0x%016llx", (unsigned long long)k.key);
	else
		printf("%s", k.flags & VF_EMA_KEY_HELD ? "hidden" : "none");
	printf(" lease=%u lease_left=%u refused_not_sm=%u refused_bad_key=%u key_expired=%u\n",
	       k.lease_s, k.lease_left_s, k.not_sm, k.bad_key, k.expired);
	return EM_EXIT_OK;
}
