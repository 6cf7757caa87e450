// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The Ethernet Manager's state file, vfabric-em-state.json in OpenSM's
 * dump directory, rewritten after every pass: the counters readable
 * without signals (OpenSM owns them) or a console of our own.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/filewrite.h"
#include "plugin/em.h"
#include "plugin/plugin.h"
#include "routing/jsonout.h"
#include "routing/log.h"

#define STATE_FILE "vfabric-em-state.json"

struct buf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void out(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL,
			      b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0 || b->oom)
			return;
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		{
			size_t cap = (b->cap + (size_t)n + 1) * 2;
			char *g = realloc(b->s, cap);

			if (!g) {
				b->oom = true;
				return;
			}
			b->s = g;
			b->cap = cap;
		}
	}
}

static const char *const state_names[] = {
	"pending", "configured", "unchanged", "no-endpoint", "failed",
};

/* str as a JSON string, escaped as vfabric-em's output is. */
static void json_str(struct buf *b, const char *str)
{
	char *esc = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&esc, &n);

	if (!f) {
		b->oom = true;
		return;
	}
	vf_json_string(f, str);
	if (fclose(f)) {
		b->oom = true;
	} else {
		out(b, "%s", esc);
	}
	free(esc);
}

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

static void mac(struct buf *b, const uint8_t m[6])
{
	out(b, "\"%02x:%02x:%02x:%02x:%02x:%02x\"", m[0], m[1], m[2], m[3],
	    m[4], m[5]);
}

static void member(struct buf *b, const struct vf_em_member *mb,
		   const struct em_ep *ep, const struct em_member_st *st)
{
	const struct vf_ema_summary *c = &st->ctr;

	out(b, "{\"guid\": \"0x%016" PRIx64 "\", \"lid\": %u, \"vport\": %u, \"state\": \"%s\", \"base_mac\": ",
	    mb->guid, mb->lid, mb->vport, state_names[st->state]);
	mac(b, mb->want.base_mac);
	out(b, ", \"port_num\": %u, \"config_state\": \"%s\", \"oper_state\": \"%s\", \"link\": \"%s\", \"mac_entries\": %u, \"mac_tbl_digest\": %u, \"host_macs\": [",
	    mb->want.port_num, vport_state(st->config_state),
	    vport_state(st->oper_state), link_name(st->link),
	    ep ? ep->vp[mb->vport].mac_n : 0, st->want_digest);
	for (unsigned k = 0; ep && k < ep->vp[mb->vport].num_uc; k++) {
		out(b, k ? ", " : "");
		mac(b, ep->vp[mb->vport].uc[k]);
	}
	out(b, "]");
	if (ep && ep->cap == EM_CAP_ABSENT) {
		/* when the back-off lets it be probed again (a SUBNET UP
		 * probes it at once) */
		double now = vf_now_ms();

		out(b, ", \"probe_in_ms\": %.0f",
		    (double)ep->next_probe > now ?
		    (double)ep->next_probe - now : 0.0);
	}
	if (st->ctr_ok)
		out(b, ", \"counters\": {\"tx_packets\": %" PRIu64 ", \"rx_packets\": %" PRIu64 ", \"tx_bytes\": %" PRIu64 ", \"rx_bytes\": %" PRIu64 ", \"tx_errors\": %" PRIu64 ", \"rx_errors\": %" PRIu64 ", \"tx_unicast\": %" PRIu64 ", \"tx_mcastbcast\": %" PRIu64 ", \"rx_unicast\": %" PRIu64 ", \"rx_mcastbcast\": %" PRIu64 "}",
		    c->tx_packets, c->rx_packets, c->tx_bytes, c->rx_bytes,
		    c->tx_errors, c->rx_errors, c->tx_unicast,
		    c->tx_mcastbcast, c->rx_unicast, c->rx_mcastbcast);
	out(b, "}");
}

void vf_em_state_write(struct vf_plugin *p, const struct vf_em_plan *pl,
		       const struct em_ep *eps, unsigned num_eps,
		       const struct em_member_st *st, unsigned pass,
		       unsigned bad_mads)
{
	const char *dir = p->osm->subn.opt.dump_files_dir;
	struct buf b = { 0 };
	char path[4096];
	int rc;

	if (!dir || !*dir)
		dir = "/var/log";
	snprintf(path, sizeof(path), "%s/%s", dir, STATE_FILE);
	out(&b, "{\"pass\": %u, \"fabric_id\": %u, \"sm_lid\": %u, \"vesws\": [",
	    pass, pl->fabric_id, cl_ntoh16(p->osm->subn.sm_base_lid));
	for (unsigned i = 0; i < pl->num_vesws; i++) {
		const struct vf_em_vesw *w = &pl->vesws[i];
		const struct vf_vesw *v = w->count ?
			&pl->members[w->first].want.vesw : NULL;

		out(&b, "%s\n {\"name\": ", i ? "," : "");
		json_str(&b, w->name);
		/* the P_Key a number, as vfabric-em show --json has it */
		out(&b, ", \"id\": %u, \"pkey\": %u, \"eth_mtu\": %u, \"u_mcast_dlid\": %u, \"def_port_mask\": %u, \"members\": [",
		    w->id, w->pkey,
		    v ? v->eth_mtu : 0, v ? v->u_mcast_dlid : 0,
		    v ? v->def_port_mask : 0);
		for (unsigned m = w->first; m < w->first + w->count; m++) {
			const struct em_ep *ep = st[m].ep < num_eps ?
						 &eps[st[m].ep] : NULL;

			out(&b, "%s\n  ", m > w->first ? "," : "");
			member(&b, &pl->members[m], ep, &st[m]);
		}
		out(&b, "]}");
	}
	out(&b, "],\n \"bad_mads\": %u}\n", bad_mads);
	if (b.oom) {
		free(b.s);
		return;
	}
	rc = vf_file_replace(path, b.s, b.len);
	if (rc)
		vf_log(VF_LOG_WARN, "em: cannot write %s: %s", path,
		       strerror(-rc));
	free(b.s);
}
