// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The Ethernet Manager's state file, vfabric-em-state.json in OpenSM's
 * dump directory, rewritten after every pass: the counters readable
 * without signals (OpenSM owns them) or a console of our own.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/filewrite.h"
#include "plugin/em.h"
#include "plugin/plugin.h"
#include "common/log.h"
#include "routing/vfjson.h"

#define STATE_FILE "vfabric-em-state.json"

static const char *const state_names[] = {
	"pending", "configured", "unchanged", "no-endpoint", "failed",
};

/*
 * The names vfabric-em show --json gives the same fields, so that a
 * reader of both sees one type: config/oper state and the link as names.
 */
static const char *vport_state(unsigned s)
{
	static const char *const n[] = { "NOP", "DROP_ALL", "INIT",
					 "FORWARDING" };

	return s < 4 ? n[s] : "?";
}

static const char *link_name(unsigned s)
{
	static const char *const n[] = { "unknown", "up", "down" };

	return s < 3 ? n[s] : "?";
}

static struct json_object *mac(const uint8_t m[6])
{
	char text[18];

	snprintf(text, sizeof(text), "%02x:%02x:%02x:%02x:%02x:%02x", m[0],
		 m[1], m[2], m[3], m[4], m[5]);
	return json_object_new_string(text);
}

static struct json_object *counters(const struct vf_ema_summary *c,
				    int *rc)
{
	struct json_object *o = json_object_new_object();

	*rc |= vf_json_add(o, "tx_packets",
			   json_object_new_uint64(c->tx_packets));
	*rc |= vf_json_add(o, "rx_packets",
			   json_object_new_uint64(c->rx_packets));
	*rc |= vf_json_add(o, "tx_bytes", json_object_new_uint64(c->tx_bytes));
	*rc |= vf_json_add(o, "rx_bytes", json_object_new_uint64(c->rx_bytes));
	*rc |= vf_json_add(o, "tx_errors",
			   json_object_new_uint64(c->tx_errors));
	*rc |= vf_json_add(o, "rx_errors",
			   json_object_new_uint64(c->rx_errors));
	*rc |= vf_json_add(o, "tx_unicast",
			   json_object_new_uint64(c->tx_unicast));
	*rc |= vf_json_add(o, "tx_mcastbcast",
			   json_object_new_uint64(c->tx_mcastbcast));
	*rc |= vf_json_add(o, "rx_unicast",
			   json_object_new_uint64(c->rx_unicast));
	*rc |= vf_json_add(o, "rx_mcastbcast",
			   json_object_new_uint64(c->rx_mcastbcast));
	return o;
}

static struct json_object *member(const struct vf_em_member *mb,
				  const struct em_ep *ep,
				  const struct em_member_st *st, int *rc)
{
	struct json_object *o = json_object_new_object();
	struct json_object *macs = json_object_new_array();

	*rc |= vf_json_add(o, "guid", vf_json_hex(mb->guid, 16));
	*rc |= vf_json_add(o, "lid", json_object_new_int64(mb->lid));
	*rc |= vf_json_add(o, "vport", json_object_new_int64(mb->vport));
	*rc |= vf_json_add(o, "state",
			   json_object_new_string(state_names[st->state]));
	*rc |= vf_json_add(o, "base_mac", mac(mb->want.base_mac));
	*rc |= vf_json_add(o, "port_num",
			   json_object_new_int64(mb->want.port_num));
	*rc |= vf_json_add(o, "config_state", json_object_new_string(
				   vport_state(st->config_state)));
	*rc |= vf_json_add(o, "oper_state", json_object_new_string(
				   vport_state(st->oper_state)));
	*rc |= vf_json_add(o, "link",
			   json_object_new_string(link_name(st->link)));
	*rc |= vf_json_add(o, "mac_entries", json_object_new_int64(
				   ep ? ep->vp[mb->vport].mac_n : 0));
	*rc |= vf_json_add(o, "mac_tbl_digest",
			   json_object_new_int64(st->want_digest));
	for (unsigned k = 0; ep && k < ep->vp[mb->vport].num_uc; k++)
		*rc |= vf_json_push(macs, mac(ep->vp[mb->vport].uc[k]));
	*rc |= vf_json_add(o, "host_macs", macs);
	if (ep && ep->cap == EM_CAP_ABSENT) {
		/* when the back-off lets it be probed again (a SUBNET UP
		 * probes it at once) */
		double now = vf_now_ms();

		*rc |= vf_json_add(o, "probe_in_ms", vf_json_fixed(
					   (double)ep->next_probe > now ?
					   (double)ep->next_probe - now : 0.0,
					   0));
	}
	if (st->ctr_ok)
		*rc |= vf_json_add(o, "counters", counters(&st->ctr, rc));
	return o;
}

/* The state of a pass as one JSON object; NULL when out of memory. */
static struct json_object *state_json(struct vf_plugin *p,
				      const struct vf_em_plan *pl,
				      const struct em_ep *eps,
				      unsigned num_eps,
				      const struct em_member_st *st,
				      unsigned pass, unsigned bad_mads)
{
	struct json_object *o = json_object_new_object();
	struct json_object *vesws = json_object_new_array();
	int rc = 0;

	rc |= vf_json_add(o, "pass", json_object_new_int64(pass));
	rc |= vf_json_add(o, "fabric_id", json_object_new_int64(pl->fabric_id));
	rc |= vf_json_add(o, "sm_lid", json_object_new_int64(
				  cl_ntoh16(p->osm->subn.sm_base_lid)));
	for (unsigned i = 0; i < pl->num_vesws; i++) {
		const struct vf_em_vesw *w = &pl->vesws[i];
		const struct vf_vesw *v = w->count ?
			&pl->members[w->first].want.vesw : NULL;
		struct json_object *x = json_object_new_object();
		struct json_object *members = json_object_new_array();

		rc |= vf_json_add(x, "name", vf_json_bytes(w->name));
		rc |= vf_json_add(x, "id", json_object_new_int64(w->id));
		/* the P_Key a number, as vfabric-em show --json has it */
		rc |= vf_json_add(x, "pkey", json_object_new_int64(w->pkey));
		rc |= vf_json_add(x, "eth_mtu",
				  json_object_new_int64(v ? v->eth_mtu : 0));
		rc |= vf_json_add(x, "u_mcast_dlid", json_object_new_int64(
					  v ? v->u_mcast_dlid : 0));
		rc |= vf_json_add(x, "def_port_mask", json_object_new_int64(
					  v ? v->def_port_mask : 0));
		for (unsigned m = w->first; m < w->first + w->count; m++) {
			const struct em_ep *ep = st[m].ep < num_eps ?
						 &eps[st[m].ep] : NULL;

			rc |= vf_json_push(members, member(&pl->members[m], ep,
							   &st[m], &rc));
		}
		rc |= vf_json_add(x, "members", members);
		rc |= vf_json_push(vesws, x);
	}
	rc |= vf_json_add(o, "vesws", vesws);
	rc |= vf_json_add(o, "bad_mads", json_object_new_int64(bad_mads));
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

void vf_em_state_write(struct vf_plugin *p, const struct vf_em_plan *pl,
		       const struct em_ep *eps, unsigned num_eps,
		       const struct em_member_st *st, unsigned pass,
		       unsigned bad_mads)
{
	const char *dir = p->osm->subn.opt.dump_files_dir;
	struct json_object *o = state_json(p, pl, eps, num_eps, st, pass,
					   bad_mads);
	const char *text = o ? json_object_to_json_string_ext(o,
				JSON_C_TO_STRING_PRETTY |
				JSON_C_TO_STRING_SPACED |
				JSON_C_TO_STRING_NOSLASHESCAPE) : NULL;
	size_t len = text ? strlen(text) : 0;
	char path[4096], *file = text ? malloc(len + 2) : NULL;
	int rc;

	if (!dir || !*dir)
		dir = "/var/log";
	snprintf(path, sizeof(path), "%s/%s", dir, STATE_FILE);
	/* out of memory: the last pass's file stays */
	if (file) {
		memcpy(file, text, len);
		file[len] = '\n';
		file[len + 1] = 0;
		rc = vf_file_replace(path, file, len + 1);
		if (rc)
			vf_log(VF_LOG_WARN, "em: cannot write %s: %s", path,
			       strerror(-rc));
	}
	free(file);
	json_object_put(o);
}
