// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * SA requests that crash OpenSM 3.3.23's own handlers, answered before
 * those handlers see them: any host can send an SA query, so one MAD must
 * never take the subnet manager down.  The guard sits in the dispatcher
 * in front of OpenSM's handler for each attribute it knows a crash of,
 * with or without a vFabric policy; every other request goes on to
 * OpenSM's handler untouched, so its answers stay stock.
 *
 * What is refused, and why (docs/sa.md, "Requests that crash stock
 * OpenSM"), each rule being the exact condition under which the stock
 * handler indexes past a node's port table:
 *
 * - SLtoVLMappingTableRecord Get/GetTable with OutputPortNum or
 *   InputPortNum in the component mask: the handler walks ports with a
 *   uint8_t from that number to itself, so 255 wraps and runs off the
 *   port table (a segfault), and any number at or past a switch's port
 *   count reads past it.  With a switch's LID given, a port the switch
 *   does not have matches no record: NO_RECORDS for a Get, an empty
 *   table for a GetTable, as for any query that matches nothing.
 *   Without a LID, the handler would visit every switch: a port number
 *   that some switch lacks is refused with REQ_INVALID (naming the LID
 *   is how to ask for it).  End ports (CAs, routers) ignore both fields.
 *
 * A refusal is logged when its count reaches a power of two, so a flood
 * cannot fill the log.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_port.h>
#include <opensm/osm_sa.h>
#include <opensm/osm_switch.h>

#include <stdio.h>
#include <stdlib.h>

#include "plugin/plugin.h"
#include "plugin/sa.h"
#include "routing/log.h"

enum verdict {
	PASS,		/* OpenSM's handler answers */
	NO_MATCH,	/* nothing matches: NO_RECORDS or an empty table */
	INVALID,	/* REQ_INVALID */
};

struct rule {
	const char *name;		/* the attribute, as the IBA names it */
	cl_disp_msgid_t msg;
	size_t handle;			/* offsetof(osm_sa_t, its handle) */
	size_t rec_size;		/* for an empty GetTable answer */
	/* under OpenSM's lock; why[] says what a refusal refused */
	enum verdict (*check)(const osm_subn_t *subn, const ib_sa_mad_t *mad,
			      char *why, size_t len);
};

struct vf_sa_guard {
	struct vf_plugin *p;
	const struct rule *rule;
	struct vf_sa_handler stock;
	unsigned long refused;
	bool installed;
};

/*
 * A port number from the request that OpenSM's handler indexes the port
 * table of the switch with LID `lid` (lid_given) or of every switch with.
 * End ports pass: the handlers use their own port for them.
 */
static enum verdict switch_port(const osm_subn_t *subn, bool lid_given,
				ib_net16_t lid, unsigned port, const char *field,
				char *why, size_t len)
{
	const osm_port_t *by_lid;
	const cl_map_item_t *i;
	unsigned n;

	if (lid_given) {
		by_lid = osm_get_port_by_lid((osm_subn_t *)subn, lid);
		if (!by_lid || osm_node_get_type(by_lid->p_node) !=
		    IB_NODE_TYPE_SWITCH)
			return PASS;
		n = osm_node_get_num_physp(by_lid->p_node);
		if (port < n)
			return PASS;
		snprintf(why, len, "%s %u on switch LID %u, which has ports 0-%u",
			 field, port, cl_ntoh16(lid), n - 1);
		return NO_MATCH;
	}
	for (i = cl_qmap_head(&subn->sw_guid_tbl);
	     i != cl_qmap_end(&subn->sw_guid_tbl); i = cl_qmap_next(i)) {
		const osm_switch_t *sw = (const osm_switch_t *)i;

		n = osm_node_get_num_physp(sw->p_node);
		if (port >= n) {
			snprintf(why, len, "%s %u without a LID, and switch 0x%016llx has ports 0-%u",
				 field, port,
				 (unsigned long long)cl_ntoh64(
					osm_node_get_node_guid(sw->p_node)),
				 n - 1);
			return INVALID;
		}
	}
	return PASS;
}

static enum verdict slvl_check(const osm_subn_t *subn,
			       const ib_sa_mad_t *mad, char *why, size_t len)
{
	const ib_slvl_table_record_t *rec = ib_sa_mad_get_payload_ptr(mad);
	bool lid_given = mad->comp_mask & IB_SLVL_COMPMASK_LID;
	enum verdict v = PASS;

	if (mad->comp_mask & IB_SLVL_COMPMASK_OUT_PORT)
		v = switch_port(subn, lid_given, rec->lid, rec->out_port_num,
				"OutputPortNum", why, len);
	if (v == PASS && (mad->comp_mask & IB_SLVL_COMPMASK_IN_PORT))
		v = switch_port(subn, lid_given, rec->lid, rec->in_port_num,
				"InputPortNum", why, len);
	return v;
}

static const struct rule rules[] = {
	{ "SLtoVLMappingTableRecord", OSM_MSG_MAD_SLVL_TBL_RECORD,
	  offsetof(osm_sa_t, slvl_disp_h), sizeof(ib_slvl_table_record_t),
	  slvl_check },
};
#define NUM_RULES (sizeof(rules) / sizeof(rules[0]))

/* Answer a refused request; false: hand it to OpenSM's handler. */
static bool refuse(struct vf_sa_guard *g, osm_madw_t *madw)
{
	osm_sa_t *sa = &g->p->osm->sa;
	const ib_sa_mad_t *mad = osm_madw_get_sa_mad_ptr(madw);
	enum verdict v = PASS;
	char why[200] = "";
	cl_qlist_t none;
	unsigned long n;

	/* what OpenSM refuses or drops before it indexes anything */
	if (mad->method != IB_MAD_METHOD_GET &&
	    mad->method != IB_MAD_METHOD_GETTABLE)
		return false;
	cl_plock_acquire(sa->p_lock);
	if (osm_get_physp_by_mad_addr(sa->p_log, sa->p_subn,
				      osm_madw_get_mad_addr_ptr(madw)))
		v = g->rule->check(sa->p_subn, mad, why, sizeof(why));
	cl_plock_release(sa->p_lock);
	if (v == PASS)
		return false;
	n = __atomic_add_fetch(&g->refused, 1, __ATOMIC_RELAXED);
	if (!(n & (n - 1)))
		vf_log(VF_LOG_WARN,
		       "sa: %s %s from LID %u refused: %s (OpenSM 3.3.23's handler would read past the port table); %lu refused so far",
		       g->rule->name, mad->method == IB_MAD_METHOD_GET ?
		       "Get" : "GetTable",
		       cl_ntoh16(osm_madw_get_mad_addr_ptr(madw)->dest_lid),
		       why, n);
	if (v == INVALID) {
		osm_sa_send_error(sa, madw, IB_SA_MAD_STATUS_REQ_INVALID);
		return true;
	}
	cl_qlist_init(&none);
	osm_sa_respond(sa, madw, g->rule->rec_size, &none);
	return true;
}

static void on_request(void *context, void *data)
{
	struct vf_sa_guard *g = context;

	if (!refuse(g, data))
		g->stock.cb(g->stock.context, data);
}

void vf_sa_guard_install(struct vf_plugin *p)
{
	osm_sa_t *sa = &p->osm->sa;
	struct vf_sa_guard *g = calloc(NUM_RULES, sizeof(*g));

	if (!g) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0903: out of memory for the SA crash guard; OpenSM's handlers answer every request");
		return;
	}
	for (unsigned i = 0; i < NUM_RULES; i++) {
		cl_disp_reg_handle_t *h = (cl_disp_reg_handle_t *)
					  ((char *)sa + rules[i].handle);

		g[i].p = p;
		g[i].rule = &rules[i];
		if (vf_sa_swap_handler(h, sa->p_disp, rules[i].msg,
				       on_request, &g[i], &g[i].stock)) {
			vf_log(VF_LOG_ERROR,
			       "ERR VF0903: cannot guard %s requests; OpenSM's handler answers them unguarded",
			       rules[i].name);
			continue;
		}
		g[i].installed = true;
	}
	p->sa.guards = g;
}

void vf_sa_guard_free(struct vf_plugin *p)
{
	/* OpenSM unregistered ours (their handles are in osm_sa_t) and shut
	 * its dispatchers down before unloading us */
	free(p->sa.guards);
	p->sa.guards = NULL;
}
