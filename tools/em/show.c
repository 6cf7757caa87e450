// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric-em's read side: probe (ClassPortInfo), show (one row per
 * vport: the vESW and vport parts and the MAC table's size), macs and
 * counters; a table for an admin or --json for a program.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/vfjson.h"
#include "tools/em/emtool.h"

/* What one endpoint (or a port without one) looks like. */
struct endpoint_view {
	unsigned lid;
	int rc;				/* 0, -EHOSTUNREACH, -ETIMEDOUT, ... */
	bool have_node;
	struct em_node node;
	struct vf_ema_cpi cpi;
	bool have_key;
	struct vf_ema_key_info key;	/* EMKeyInfo: refusals by reason */
};

static const char *why(int rc)
{
	switch (rc) {
	case -EHOSTUNREACH: return "no endpoint";
	case -ETIMEDOUT: return "timeout";
	case -EPROTO: return "not an EMA answer";
	default: return "error";
	}
}

/* ClassPortInfo of lid: 0, or why not (quietly: a listing says). */
static int probe_one(struct em *e, unsigned lid, struct endpoint_view *v)
{
	uint8_t mad[VF_EMA_MAD_SIZE];
	struct em_reply r;
	int rc;

	memset(v, 0, sizeof(*v));
	v->lid = lid;
	v->have_node = em_node(e, lid, &v->node) == 0;
	em_request(e, mad, VF_EMA_GET, VF_EMA_CLASS_PORT_INFO, 0);
	rc = em_call(e, lid, mad, &r, true);
	if (!rc && (r.h.status ||
		    vf_ema_get_cpi(r.mad, r.len, &v->cpi) != VF_EMA_OK))
		rc = -EPROTO;
	v->rc = rc;
	if (rc)
		return rc;
	em_request(e, mad, VF_EMA_GET, VF_EMA_KEY_INFO, 0);
	v->have_key = !em_call(e, lid, mad, &r, true) && !r.h.status &&
		      vf_ema_get_key_info(r.mad, r.len, &v->key) == VF_EMA_OK;
	return 0;
}

static unsigned vport_count(const struct endpoint_view *v)
{
	return v->cpi.cap_mask >> 8;
}

/* The LIDs of the arguments, or every CA port the SA knows. */
static int targets(struct em *e, const struct em_opts *o, unsigned *lids,
		   unsigned *n, bool *listed)
{
	*listed = o->nargs > 0;
	*n = 0;
	if (o->nargs) {
		for (unsigned i = 0; i < o->nargs; i++)
			lids[(*n)++] = (unsigned)strtoul(o->args[i], NULL, 0);
		return 0;
	}
	static struct em_node nodes[EM_MAX_LIDS];
	unsigned nn;

	if (em_discover(e, o->max_lid, nodes, EM_MAX_LIDS, &nn))
		return EM_EXIT_TRANSPORT;
	for (unsigned i = 0; i < nn; i++)
		/*
		 * Never the SM's port: under ibsim a MAD of a class OpenSM
		 * has not bound kills it (reference/opensm-ibsim.md E).
		 */
		if (nodes[i].lid != e->port.sm_lid)
			lids[(*n)++] = nodes[i].lid;
	return 0;
}

int cmd_probe(struct em *e, const struct em_opts *o)
{
	unsigned lids[EM_MAX_LIDS], n;
	bool listed;
	int rc = targets(e, o, lids, &n, &listed), worst = EM_EXIT_OK;

	if (rc)
		return rc;
	for (unsigned i = 0; i < n; i++) {
		struct endpoint_view v;

		if (probe_one(e, lids[i], &v)) {
			printf("lid=%u endpoint=0 why=\"%s\"\n", v.lid,
			       why(v.rc));
			if (listed)
				worst = EM_EXIT_TRANSPORT;
			continue;
		}
		printf("lid=%u endpoint=1 vports=%u traps=%u resp_time=%u trap_lid=%u trap_sl=%u\n",
		       v.lid, vport_count(&v), v.cpi.cap_mask & 1,
		       v.cpi.resp_time, v.cpi.trap_lid, v.cpi.trap_sl);
	}
	return worst;
}

/* A MAC entry of all zeros is unused. */
static bool mac_used(const struct vf_vport_mac *m)
{
	return m->mac[0] | m->mac[1] | m->mac[2] | m->mac[3] | m->mac[4] |
	       m->mac[5];
}

/*
 * The MAC table's page from entry off into s and m: EM_EXIT_OK, or
 * EM_EXIT_TRANSPORT / EM_EXIT_STATUS with the answer's status in *status.
 */
static int get_mac_page(struct em *e, unsigned lid, unsigned vp,
			unsigned off, struct vf_ema_mac_slice *s,
			struct vf_vport_mac m[VF_EMA_MACS_PER_MAD],
			uint16_t *status)
{
	uint8_t mad[VF_EMA_MAD_SIZE];
	struct em_reply r;

	*s = (struct vf_ema_mac_slice){
		.offset = (uint16_t)off,
		.num = (uint16_t)(VF_VPORT_MAC_TABLE - off <
				  VF_EMA_MACS_PER_MAD ?
				  VF_VPORT_MAC_TABLE - off :
				  VF_EMA_MACS_PER_MAD) };
	em_request(e, mad, VF_EMA_GET, VF_EMA_MAC_ENTRIES,
		   vf_ema_amod(vp, 0));
	vf_ema_put_mac_entries(mad, s, NULL);
	if (em_call(e, lid, mad, &r, false))
		return EM_EXIT_TRANSPORT;
	*status = r.h.status;
	if (r.h.status ||
	    vf_ema_get_mac_entries(r.mad, r.len, s, m) != VF_EMA_OK)
		return EM_EXIT_STATUS;
	return EM_EXIT_OK;
}

/* Entries in use and digest, paging through the table. */
static int count_macs(struct em *e, unsigned lid, unsigned vp,
		      unsigned *entries, uint32_t *digest)
{
	*entries = 0;
	for (unsigned off = 0; off < VF_VPORT_MAC_TABLE;
	     off += VF_EMA_MACS_PER_MAD) {
		struct vf_vport_mac m[VF_EMA_MACS_PER_MAD];
		struct vf_ema_mac_slice s;
		uint16_t status;
		int rc = get_mac_page(e, lid, vp, off, &s, m, &status);

		if (rc)
			return rc;
		*digest = s.digest;
		for (unsigned i = 0; i < s.num; i++)
			if (mac_used(&m[i]))
				++*entries;
	}
	return EM_EXIT_OK;
}

/* Both parts of VeswPortInfo of vport vp. */
static int read_info(struct em *e, unsigned lid, unsigned vp,
		     struct vf_vport *v)
{
	struct em_reply r;
	int rc;

	memset(v, 0, sizeof(*v));
	rc = em_get(e, lid, VF_EMA_VESWPORT_INFO,
		    vf_ema_amod(vp, VF_EMA_PART_VESW), &r);
	if (rc)
		return rc;
	if (vf_ema_get_vesw(r.mad, r.len, &v->vesw) != VF_EMA_OK)
		return EM_EXIT_STATUS;
	rc = em_get(e, lid, VF_EMA_VESWPORT_INFO,
		    vf_ema_amod(vp, VF_EMA_PART_VPORT), &r);
	if (rc)
		return rc;
	return vf_ema_get_vport(r.mad, r.len, v, NULL) == VF_EMA_OK ?
		EM_EXIT_OK : EM_EXIT_STATUS;
}

static void node_text(const struct endpoint_view *ev, char *desc,
		      size_t len, char *guid)
{
	snprintf(desc, len, "%s", ev->have_node ? ev->node.desc : "-");
	if (ev->have_node)
		sprintf(guid, "0x%016" PRIx64, ev->node.port_guid);
	else
		strcpy(guid, "-");
}

static void row_text(const struct endpoint_view *ev, unsigned vp,
		     const struct vf_vport *v, unsigned entries)
{
	char desc[65], guid[20], mac[18];

	node_text(ev, desc, sizeof(desc), guid);
	em_mac_str(v->base_mac, mac);
	printf("%-5u %-20.20s %-18s %2u %5u 0x%04x %s %5u %-10s %-10s %-7s %5u %5u %4u\n",
	       ev->lid, desc, guid, vp, v->vesw.vesw_id, v->vesw.pkey, mac,
	       v->vesw.eth_mtu, em_state_name(v->config_state),
	       em_state_name(v->oper_state),
	       em_link_name(v->eth_link_status), v->encap_slid, v->port_num,
	       entries);
}

/* One vport of show --json, pushed onto the array vports. */
static int row_json(struct json_object *vports, const struct vf_vport *v,
		    unsigned vp, unsigned entries)
{
	const struct vf_vesw *w = &v->vesw;
	struct json_object *o = json_object_new_object();
	struct json_object *ucast = json_object_new_array();
	char mac[18];
	int rc = 0;

	em_mac_str(v->base_mac, mac);
	rc |= vf_json_add(o, "index", json_object_new_int64(vp));
	rc |= vf_json_add(o, "fabric_id", json_object_new_int64(w->fabric_id));
	rc |= vf_json_add(o, "vesw_id", json_object_new_int64(w->vesw_id));
	rc |= vf_json_add(o, "pkey", json_object_new_int64(w->pkey));
	rc |= vf_json_add(o, "mac", json_object_new_string(mac));
	rc |= vf_json_add(o, "mtu", json_object_new_int64(w->eth_mtu));
	rc |= vf_json_add(o, "encap_slid",
			  json_object_new_int64(v->encap_slid));
	rc |= vf_json_add(o, "port_num", json_object_new_int64(v->port_num));
	rc |= vf_json_add(o, "config_state", json_object_new_string(
				  em_state_name(v->config_state)));
	rc |= vf_json_add(o, "oper_state", json_object_new_string(
				  em_state_name(v->oper_state)));
	rc |= vf_json_add(o, "link", json_object_new_string(
				  em_link_name(v->eth_link_status)));
	rc |= vf_json_add(o, "def_port_mask",
			  json_object_new_int64(w->def_port_mask));
	rc |= vf_json_add(o, "u_mcast_dlid",
			  json_object_new_int64(w->u_mcast_dlid));
	for (unsigned i = 0; i < VF_VPORT_DEFAULT_PORTS; i++)
		rc |= vf_json_push(ucast,
				   json_object_new_int64(w->u_ucast_dlid[i]));
	rc |= vf_json_add(o, "u_ucast_dlid", ucast);
	rc |= vf_json_add(o, "mac_tbl_digest",
			  json_object_new_int64(v->mac_tbl_digest));
	rc |= vf_json_add(o, "mac_entries", json_object_new_int64(entries));
	rc |= vf_json_add(o, "uc_macs_gen_count",
			  json_object_new_int64(v->uc_macs_gen_count));
	rc |= vf_json_add(o, "mc_macs_gen_count",
			  json_object_new_int64(v->mc_macs_gen_count));
	return rc | vf_json_push(vports, o);
}

/*
 * An endpoint's object of show --json: the port, then what the caller
 * adds (why there is no endpoint, or its vports).  NULL when out of
 * memory.
 */
static struct json_object *head_json(const struct endpoint_view *ev)
{
	struct json_object *o = json_object_new_object();
	char desc[65], guid[20];
	int rc = 0;

	node_text(ev, desc, sizeof(desc), guid);
	rc |= vf_json_add(o, "lid", json_object_new_int64(ev->lid));
	rc |= vf_json_add(o, "node", vf_json_bytes(desc));
	rc |= vf_json_add(o, "port_guid", json_object_new_string(guid));
	rc |= vf_json_add(o, "endpoint", json_object_new_boolean(!ev->rc));
	/* the Sets it refused, by reason; never the key */
	if (!ev->rc && ev->have_key) {
		rc |= vf_json_add(o, "key_held", json_object_new_boolean(
					  ev->key.flags & VF_EMA_KEY_HELD));
		rc |= vf_json_add(o, "key_lease",
				  json_object_new_int64(ev->key.lease_s));
		rc |= vf_json_add(o, "refused_not_sm",
				  json_object_new_int64(ev->key.not_sm));
		rc |= vf_json_add(o, "refused_bad_key",
				  json_object_new_int64(ev->key.bad_key));
		rc |= vf_json_add(o, "key_expired",
				  json_object_new_int64(ev->key.expired));
	}
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Print o (show, macs, counters --json) and release it. */
static int print_json(struct json_object *o, int rc, int flags)
{
	if (!rc)
		rc = vf_json_print(stdout, o, flags);
	json_object_put(o);
	if (rc) {
		fprintf(stderr, "vfabric-em: cannot print the JSON: %s\n",
			strerror(-rc));
		return EM_EXIT_TRANSPORT;
	}
	return 0;
}

/* A vport on a vESW, for the members summary under the table. */
struct member {
	uint16_t vesw;
	unsigned lid, vport;
};

static int by_vesw(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->vesw != y->vesw)
		return x->vesw < y->vesw ? -1 : 1;
	return x->lid < y->lid ? -1 : x->lid > y->lid;
}

/* "vESW 1: 2 members: LID 7, LID 8" (vport given when not 0). */
static void print_members(struct member *m, unsigned n)
{
	qsort(m, n, sizeof(*m), by_vesw);
	for (unsigned i = 0; i < n;) {
		unsigned j = i;

		while (j < n && m[j].vesw == m[i].vesw)
			j++;
		printf("vESW %u: %u member%s:", m[i].vesw, j - i,
		       j - i == 1 ? "" : "s");
		for (unsigned k = i; k < j; k++) {
			printf("%s LID %u", k > i ? "," : "", m[k].lid);
			if (m[k].vport)
				printf(" vport %u", m[k].vport);
		}
		printf("\n");
		i = j;
	}
}

int cmd_show(struct em *e, const struct em_opts *o)
{
	static struct member members[EM_MAX_LIDS];
	static struct vf_vport v;
	unsigned nmembers = 0;
	unsigned lids[EM_MAX_LIDS], n;
	bool listed;
	int rc = targets(e, o, lids, &n, &listed), worst = EM_EXIT_OK;
	struct json_object *rows = NULL;
	int jrc = 0;

	if (rc)
		return rc;
	if (o->json)
		rows = json_object_new_array();
	else
		printf("%-5s %-20s %-18s %2s %5s %-6s %-17s %5s %-10s %-10s %-7s %5s %5s %4s\n",
		       "LID", "NODE", "PORT GUID", "VP", "VESW", "PKEY", "MAC",
		       "MTU", "CONFIG", "OPER", "LINK", "SLID", "PORT", "MACS");
	for (unsigned i = 0; i < n; i++) {
		struct endpoint_view ev;
		struct json_object *row = NULL, *vports = NULL;
		unsigned first = 0, last;

		if (probe_one(e, lids[i], &ev)) {
			if (listed)
				worst = EM_EXIT_TRANSPORT;
			if (o->json) {
				row = head_json(&ev);
				jrc |= vf_json_add(row, "why",
						   json_object_new_string(
							   why(ev.rc)));
				jrc |= vf_json_push(rows, row);
			} else {
				char desc[65], guid[20];

				node_text(&ev, desc, sizeof(desc), guid);
				printf("%-5u %-20.20s %-18s  - %s\n", ev.lid, desc,
				       guid, why(ev.rc));
			}
			continue;
		}
		last = vport_count(&ev);
		if (em_given(o, EO_VPORT)) {
			first = o->vport;
			last = o->vport + 1;
		}
		if (o->json) {
			row = head_json(&ev);
			vports = json_object_new_array();
			jrc |= vf_json_add(row, "vports",
					   json_object_new_int64(
						   vport_count(&ev)));
			jrc |= vf_json_add(row, "trap_lid",
					   json_object_new_int64(
						   ev.cpi.trap_lid));
		}
		for (unsigned vp = first; vp < last; vp++) {
			unsigned entries = 0;
			uint32_t digest;

			rc = read_info(e, ev.lid, vp, &v);
			if (!rc)
				rc = count_macs(e, ev.lid, vp, &entries,
						&digest);
			/* a missing vport has no table: POD, 0 entries */
			if (rc == EM_EXIT_STATUS && !v.exists &&
			    v.config_state == VF_VPORT_DROP_ALL && !v.port_num)
				rc = EM_EXIT_OK;
			if (rc) {
				worst = rc;
				continue;
			}
			if (o->json)
				jrc |= row_json(vports, &v, vp, entries);
			else
				row_text(&ev, vp, &v, entries);
			if (v.vesw.vesw_id && nmembers < EM_MAX_LIDS)
				members[nmembers++] = (struct member) {
					v.vesw.vesw_id, ev.lid, vp };
		}
		if (o->json) {
			jrc |= vf_json_add(row, "vport", vports);
			jrc |= vf_json_push(rows, row);
		}
	}
	if (!o->json) {
		print_members(members, nmembers);
		return worst;
	}
	rc = print_json(rows, jrc, JSON_C_TO_STRING_PRETTY |
			JSON_C_TO_STRING_SPACED);
	return rc ? rc : worst;
}

/* One MAC table entry of macs --json, pushed onto list. */
static int mac_json(struct json_object *list, unsigned index,
		    const char *mac, const char *mask,
		    const struct vf_vport_mac *m)
{
	struct json_object *o = json_object_new_object();
	int rc = 0;

	rc |= vf_json_add(o, "index", json_object_new_int64(index));
	rc |= vf_json_add(o, "mac", json_object_new_string(mac));
	rc |= vf_json_add(o, "mask", json_object_new_string(mask));
	rc |= vf_json_add(o, "dlid", json_object_new_int64(m->dlid_sd >> 8));
	rc |= vf_json_add(o, "sd", json_object_new_int64(m->dlid_sd & 0xff));
	return rc | vf_json_push(list, o);
}

int cmd_macs(struct em *e, const struct em_opts *o)
{
	unsigned vp = em_given(o, EO_VPORT) ? o->vport : 0, entries = 0;
	unsigned lid = (unsigned)strtoul(o->args[0], NULL, 0);
	uint32_t digest = 0;
	struct json_object *list = NULL, *res = NULL;
	int jrc = 0;

	if (o->json)
		list = json_object_new_array();
	else
		printf("%-5s %-17s %-17s %5s %4s\n", "INDEX", "MAC", "MASK",
		       "DLID", "SD");
	for (unsigned off = 0; off < VF_VPORT_MAC_TABLE;
	     off += VF_EMA_MACS_PER_MAD) {
		struct vf_vport_mac m[VF_EMA_MACS_PER_MAD];
		struct vf_ema_mac_slice s;
		uint16_t status = 0;
		int rc = get_mac_page(e, lid, vp, off, &s, m, &status);

		if (rc == EM_EXIT_STATUS)
			fprintf(stderr, "vfabric-em: LID %u: MAC entries: status 0x%04x %s\n",
				lid, status, vf_ema_status_name(status));
		if (rc) {
			json_object_put(list);
			return rc;
		}
		digest = s.digest;
		for (unsigned i = 0; i < s.num; i++) {
			char mac[18], mask[18];

			if (!mac_used(&m[i]))
				continue;
			em_mac_str(m[i].mac, mac);
			em_mac_str(m[i].mask, mask);
			if (o->json)
				jrc |= mac_json(list, off + i, mac, mask,
						&m[i]);
			else
				printf("%-5u %s %s %5u 0x%02x\n", off + i, mac,
				       mask, m[i].dlid_sd >> 8,
				       m[i].dlid_sd & 0xff);
			entries++;
		}
	}
	if (!o->json) {
		printf("entries %u digest %u\n", entries, digest);
		return EM_EXIT_OK;
	}
	res = json_object_new_object();
	jrc |= vf_json_add(res, "lid", json_object_new_int64(lid));
	jrc |= vf_json_add(res, "vport", json_object_new_int64(vp));
	jrc |= vf_json_add(res, "entries", list);
	jrc |= vf_json_add(res, "count", json_object_new_int64(entries));
	jrc |= vf_json_add(res, "digest", json_object_new_int64(digest));
	return print_json(res, jrc, JSON_C_TO_STRING_PRETTY |
			  JSON_C_TO_STRING_SPACED);
}

/* The 64-bit counter at byte off of a counters struct. */
static uint64_t counter(const void *ctrs, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)ctrs + off, sizeof(v));
	return v;
}

#define SUM(f) { #f, offsetof(struct vf_ema_summary, f) }
#define ERR(f) { #f, offsetof(struct vf_ema_errors, f) }

int cmd_counters(struct em *e, const struct em_opts *o)
{
	static const struct { const char *name; size_t off; } sum[] = {
		SUM(tx_errors), SUM(rx_errors), SUM(tx_packets),
		SUM(rx_packets), SUM(tx_bytes), SUM(rx_bytes),
		SUM(tx_unicast), SUM(tx_mcastbcast), SUM(tx_untagged),
		SUM(tx_vlan), SUM(tx_64), SUM(tx_65_127), SUM(tx_128_255),
		SUM(tx_256_511), SUM(tx_512_1023), SUM(tx_1024_1518),
		SUM(tx_1519_max), SUM(rx_unicast), SUM(rx_mcastbcast),
		SUM(rx_untagged), SUM(rx_vlan), SUM(rx_64), SUM(rx_65_127),
		SUM(rx_128_255), SUM(rx_256_511), SUM(rx_512_1023),
		SUM(rx_1024_1518), SUM(rx_1519_max),
	}, err[] = {
		ERR(tx_smac_filt), ERR(tx_dlid_zero), ERR(tx_logic),
		ERR(tx_drop_state), ERR(rx_bad_veswid), ERR(rx_runt),
		ERR(rx_oversize), ERR(rx_eth_down), ERR(rx_drop_state),
		ERR(rx_logic),
	};
	unsigned vp = em_given(o, EO_VPORT) ? o->vport : 0;
	unsigned lid = (unsigned)strtoul(o->args[0], NULL, 0);
	struct vf_ema_summary s = { 0 };
	struct vf_ema_errors x = { 0 };
	struct vf_ema_ctr_id id;
	struct em_reply r;
	struct json_object *res;
	int rc, jrc = 0;

	for (unsigned part = 0; part < VF_EMA_CTR_PARTS; part++) {
		rc = em_get(e, lid, VF_EMA_SUMMARY_COUNTERS,
			    vf_ema_amod(vp, part), &r);
		if (rc)
			return rc;
		vf_ema_get_summary(r.mad, r.len, part, &id, &s);
	}
	rc = em_get(e, lid, VF_EMA_ERROR_COUNTERS, vf_ema_amod(vp, 0), &r);
	if (rc)
		return rc;
	vf_ema_get_errors(r.mad, r.len, 0, &id, &x);
	if (!o->json) {
		printf("lid %u vport %u vesw_id %u port_num %u\n", lid,
		       id.vp_instance, id.vesw_id, id.veswport_num);
		for (size_t i = 0; i < sizeof(sum) / sizeof(sum[0]); i++)
			printf("%s %" PRIu64 "\n", sum[i].name,
			       counter(&s, sum[i].off));
		for (size_t i = 0; i < sizeof(err) / sizeof(err[0]); i++)
			printf("%s %" PRIu64 "\n", err[i].name,
			       counter(&x, err[i].off));
		return EM_EXIT_OK;
	}
	res = json_object_new_object();
	jrc |= vf_json_add(res, "lid", json_object_new_int64(lid));
	jrc |= vf_json_add(res, "vport", json_object_new_int64(id.vp_instance));
	jrc |= vf_json_add(res, "vesw_id", json_object_new_int64(id.vesw_id));
	jrc |= vf_json_add(res, "port_num",
			   json_object_new_int64(id.veswport_num));
	for (size_t i = 0; i < sizeof(sum) / sizeof(sum[0]); i++)
		jrc |= vf_json_add(res, sum[i].name,
				   json_object_new_uint64(counter(&s,
								  sum[i].off)));
	for (size_t i = 0; i < sizeof(err) / sizeof(err[0]); i++)
		jrc |= vf_json_add(res, err[i].name,
				   json_object_new_uint64(counter(&x,
								  err[i].off)));
	return print_json(res, jrc, JSON_C_TO_STRING_PLAIN |
			  JSON_C_TO_STRING_SPACED);
}
