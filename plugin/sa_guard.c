// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * SA queries that crash OpenSM 3.3.23's own handler, answered by the
 * plugin instead: any host can send an SA query, so one MAD must never
 * take the subnet manager down.  With or without a vFabric policy.
 *
 * SLtoVLMappingTableRecord: with OutputPortNum or InputPortNum in the
 * component mask, stock's handler walks a switch's ports with an 8-bit
 * counter from that number to itself, so 255 wraps and runs off the port
 * table (SIGSEGV), and any number at or past the switch's port count
 * reads past it.  Checking the request and then handing it to stock's
 * handler is not enough: between the two the subnet can change (a switch
 * found again under the LID checked), and a switch being discovered is
 * in the port table before it is a switch object, so a flooding host
 * crashed OpenSM whenever a switch joined (an independent audit, live).
 * So every Get and GetTable of this attribute is answered here, under
 * one hold of OpenSM's lock, with stock's walk and its meaning (the
 * requester must share a P_Key with the port; end ports ignore the port
 * numbers; a switch's record per output and input port) and a port the
 * switch lacks matching no record.  Other methods go to stock's handler,
 * which refuses them before it looks at anything.
 *
 * A request naming a port some switch lacks is logged when its count
 * reaches a power of two, so a flood cannot fill the log; stock's
 * handler logged every query of an unknown LID (ERR 2608), which this
 * one answers (no record) without a line.
 *
 * LinearForwardingTableRecord: stock's handler copies each block from
 * the switch's new_lft, which a switch found in this sweep does not have
 * until routing starts (NULL: SIGSEGV for any host that asks in that
 * window).  Answered here too, under one hold of the lock, with stock's
 * meaning (the requester must share a P_Key with the switch; the LID in
 * the switch's range; blocks 0 to LinearFDBTop/64, or the one asked for;
 * a block past the switch's LFT is all zero) and no record for a switch
 * that has no table yet.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_pkey.h>
#include <opensm/osm_port.h>
#include <opensm/osm_sa.h>
#include <opensm/osm_switch.h>

#include <stdlib.h>
#include <string.h>

#include "plugin/metrics.h"
#include "plugin/plugin.h"
#include "plugin/sa.h"
#include "common/log.h"

#define SLVL_ITEM_SIZE SA_ITEM_RESP_SIZE(slvl_rec)
#define LFT_ITEM_SIZE SA_ITEM_RESP_SIZE(lft_rec)

struct vf_sa_guard {
	struct vf_plugin *p;
	struct vf_sa_handler stock;	/* SLtoVLMappingTableRecord's */
	struct vf_sa_handler stock_lft;	/* LinearForwardingTableRecord's */
	unsigned long beyond;		/* requests naming a port a switch lacks */
	unsigned long unrouted;		/* LFT queries meeting a switch with
					 * no table yet */
};

struct slvl_query {
	osm_sa_t *sa;
	const ib_slvl_table_record_t *rec;
	ib_net64_t comp;
	const osm_physp_t *requester;
	cl_qlist_t list;
	bool beyond;			/* a switch lacked a port asked for */
	bool oom;
};

/* One record: the table of output port out at input port in. */
static void add_record(struct slvl_query *q, const osm_physp_t *out,
		       unsigned in, bool sw)
{
	const ib_slvl_table_t *tbl;
	ib_slvl_table_record_t *rec;
	char *item;

	if (in >= cl_ptr_vector_get_size(&out->slvl_by_port))
		return;
	tbl = cl_ptr_vector_get(&out->slvl_by_port, in);
	if (!tbl)
		return;
	/*
	 * SLVL_ITEM_SIZE bytes, less than an osm_sa_item_t: its parts are
	 * reached by their offsets (as in sa_path.c)
	 */
	item = calloc(1, SLVL_ITEM_SIZE);
	if (!item) {
		q->oom = true;
		return;
	}
	rec = (ib_slvl_table_record_t *)(item +
			offsetof(osm_sa_item_t, resp.slvl_rec));
	if (sw) {
		rec->lid = osm_node_get_base_lid(out->p_node, 0);
		rec->out_port_num = osm_physp_get_port_num(out);
		rec->in_port_num = (uint8_t)in;
	} else {
		rec->lid = out->port_info.base_lid;
	}
	rec->slvl_tbl = *tbl;
	cl_qlist_insert_tail(&q->list, (cl_list_item_t *)(item +
			     offsetof(osm_sa_item_t, list_item)));
}

/* The ports a component names ([value, value]), or all n of them. */
static void port_range(const struct slvl_query *q, ib_net64_t bit,
		       uint8_t value, unsigned n, unsigned *first,
		       unsigned *last)
{
	*first = 0;
	*last = n - 1;
	if (q->comp & bit)
		*first = *last = value;
}

/* The records of one port (a switch: its port 0's, for all its ports). */
static void records_of(struct slvl_query *q, const osm_port_t *port)
{
	osm_node_t *node = port->p_node;
	unsigned n = osm_node_get_num_physp(node), o0, o1, i0, i1;
	bool allow_both = q->sa->p_subn->opt.allow_both_pkeys;

	if (osm_node_get_type(node) != IB_NODE_TYPE_SWITCH) {
		if (port->p_physp &&
		    osm_physp_share_pkey(q->sa->p_log, q->requester,
					 port->p_physp, allow_both))
			add_record(q, port->p_physp, 0, false);
		return;
	}
	port_range(q, IB_SLVL_COMPMASK_OUT_PORT, q->rec->out_port_num, n,
		   &o0, &o1);
	port_range(q, IB_SLVL_COMPMASK_IN_PORT, q->rec->in_port_num, n,
		   &i0, &i1);
	if (o1 >= n || i1 >= n)
		q->beyond = true;
	for (unsigned out = o0; out <= o1 && out < n && !q->oom; out++) {
		const osm_physp_t *po = osm_node_get_physp_ptr(node, out);

		if (!po || !osm_physp_share_pkey(q->sa->p_log, q->requester,
						 po, allow_both))
			continue;
		for (unsigned in = i0; in <= i1 && in < n && !q->oom; in++)
			if (osm_node_get_physp_ptr(node, in))
				add_record(q, po, in, true);
	}
}

/* Under OpenSM's lock: false when OpenSM would drop the request. */
static bool build(struct slvl_query *q, osm_madw_t *madw)
{
	osm_subn_t *subn = q->sa->p_subn;
	const cl_map_item_t *i;

	q->requester = osm_get_physp_by_mad_addr(q->sa->p_log, subn,
					osm_madw_get_mad_addr_ptr(madw));
	if (!q->requester)
		return false;	/* as stock: no requester port, no answer */
	if (q->comp & IB_SLVL_COMPMASK_LID) {
		const osm_port_t *port = osm_get_port_by_lid(subn,
							      q->rec->lid);

		if (port)
			records_of(q, port);
		return true;
	}
	for (i = cl_qmap_head(&subn->port_guid_tbl);
	     i != cl_qmap_end(&subn->port_guid_tbl) && !q->oom;
	     i = cl_qmap_next(i))
		records_of(q, (const osm_port_t *)i);
	return true;
}

static void free_records(cl_qlist_t *list)
{
	cl_list_item_t *i;

	while ((i = cl_qlist_remove_head(list)) != cl_qlist_end(list))
		free(i);
}

static void on_slvl(void *context, void *data)
{
	struct vf_sa_guard *g = context;
	osm_madw_t *madw = data;
	const ib_sa_mad_t *mad = osm_madw_get_sa_mad_ptr(madw);
	struct slvl_query q = {
		.sa = &g->p->osm->sa, .rec = ib_sa_mad_get_payload_ptr(mad),
		.comp = mad->comp_mask,
	};
	unsigned long n;
	bool answer;

	if (mad->method != IB_MAD_METHOD_GET &&
	    mad->method != IB_MAD_METHOD_GETTABLE) {
		g->stock.cb(g->stock.context, data);	/* it refuses them */
		return;
	}
	cl_qlist_init(&q.list);
	cl_plock_acquire(q.sa->p_lock);
	answer = build(&q, madw);
	cl_plock_release(q.sa->p_lock);
	if (q.beyond) {
		vf_metrics_sa_guarded(g->p->metrics, VF_MSG_PORT_BEYOND_SWITCH);
		n = __atomic_add_fetch(&g->beyond, 1, __ATOMIC_RELAXED);
		if (!(n & (n - 1)))
			vf_log(VF_LOG_WARN,
			       "sa: SLtoVLMappingTableRecord %s from LID %u names a port number a switch lacks (OutputPortNum %u, InputPortNum %u; OpenSM 3.3.23's own handler reads past the port table): no record for it; %lu such requests so far",
			       mad->method == IB_MAD_METHOD_GET ? "Get" :
			       "GetTable",
			       cl_ntoh16(osm_madw_get_mad_addr_ptr(madw)->dest_lid),
			       q.rec->out_port_num, q.rec->in_port_num, n);
	}
	if (!answer)
		return;
	if (q.oom) {
		free_records(&q.list);
		vf_sa_send_error(g->p, madw, IB_SA_MAD_STATUS_NO_RESOURCES,
				 VF_SA_REASON_BY_STATUS);
		return;
	}
	vf_metrics_sa_answered(g->p->metrics, VF_MSA_SLVL_RECORD);
	/* frees the items; a Get of two or none gets its error status */
	osm_sa_respond(q.sa, madw, sizeof(ib_slvl_table_record_t), &q.list);
}

/* --- LinearForwardingTableRecord --- */

struct lft_query {
	osm_sa_t *sa;
	const ib_lft_record_t *rec;
	ib_net64_t comp;
	const osm_physp_t *requester;
	cl_qlist_t list;
	bool unrouted;			/* a switch had no table yet */
	bool oom;
};

static void add_lft_block(struct lft_query *q, const osm_switch_t *sw,
			  ib_net16_t lid, unsigned block)
{
	unsigned base = block * IB_SMP_DATA_SIZE;
	ib_lft_record_t *rec;
	char *item = calloc(1, LFT_ITEM_SIZE);

	if (!item) {
		q->oom = true;
		return;
	}
	/* reached by offsets: LFT_ITEM_SIZE is less than an osm_sa_item_t */
	rec = (ib_lft_record_t *)(item +
			offsetof(osm_sa_item_t, resp.lft_rec));
	rec->lid = lid;
	rec->block_num = cl_hton16((uint16_t)block);
	/* stock's osm_switch_get_lft_block, with the table's own size too */
	if (base <= sw->max_lid_ho && base + IB_SMP_DATA_SIZE <= sw->lft_size)
		memcpy(rec->lft, sw->new_lft + base, IB_SMP_DATA_SIZE);
	cl_qlist_insert_tail(&q->list, (cl_list_item_t *)(item +
			     offsetof(osm_sa_item_t, list_item)));
}

static void lft_records_of(struct lft_query *q, const osm_switch_t *sw)
{
	const osm_port_t *port = osm_get_port_by_guid(q->sa->p_subn,
					sw->p_node->node_info.port_guid);
	uint16_t lo, hi, first = 0, last;

	if (!port || !port->p_physp ||
	    !osm_physp_share_pkey(q->sa->p_log, q->requester, port->p_physp,
				  q->sa->p_subn->opt.allow_both_pkeys))
		return;
	osm_port_get_lid_range_ho(port, &lo, &hi);
	if ((q->comp & IB_LFTR_COMPMASK_LID) &&
	    (cl_ntoh16(q->rec->lid) < lo || cl_ntoh16(q->rec->lid) > hi))
		return;
	if (!sw->new_lft) {
		q->unrouted = true;
		return;
	}
	last = osm_switch_get_max_block_id_in_use(sw);
	if (q->comp & IB_LFTR_COMPMASK_BLOCK) {
		first = cl_ntoh16(q->rec->block_num);
		if (first > last)
			return;
		last = first;
	}
	for (unsigned b = first; b <= last && !q->oom; b++)
		add_lft_block(q, sw, osm_port_get_base_lid(port), b);
}

static void on_lft(void *context, void *data)
{
	struct vf_sa_guard *g = context;
	osm_madw_t *madw = data;
	const ib_sa_mad_t *mad = osm_madw_get_sa_mad_ptr(madw);
	struct lft_query q = {
		.sa = &g->p->osm->sa, .rec = ib_sa_mad_get_payload_ptr(mad),
		.comp = mad->comp_mask,
	};
	const cl_map_item_t *i;
	unsigned long n;

	if (mad->method != IB_MAD_METHOD_GET &&
	    mad->method != IB_MAD_METHOD_GETTABLE) {
		g->stock_lft.cb(g->stock_lft.context, data);	/* refuses */
		return;
	}
	cl_qlist_init(&q.list);
	cl_plock_acquire(q.sa->p_lock);
	q.requester = osm_get_physp_by_mad_addr(q.sa->p_log, q.sa->p_subn,
					osm_madw_get_mad_addr_ptr(madw));
	for (i = cl_qmap_head(&q.sa->p_subn->sw_guid_tbl);
	     q.requester && !q.oom &&
	     i != cl_qmap_end(&q.sa->p_subn->sw_guid_tbl); i = cl_qmap_next(i))
		lft_records_of(&q, (const osm_switch_t *)i);
	cl_plock_release(q.sa->p_lock);
	if (q.unrouted) {
		vf_metrics_sa_guarded(g->p->metrics, VF_MSG_SWITCH_UNROUTED);
		n = __atomic_add_fetch(&g->unrouted, 1, __ATOMIC_RELAXED);
		if (!(n & (n - 1)))
			vf_log(VF_LOG_INFO,
			       "sa: LinearForwardingTableRecord from LID %u met a switch found in this sweep and not routed yet (OpenSM 3.3.23's own handler reads a null table there): no record for it; %lu such requests so far",
			       cl_ntoh16(osm_madw_get_mad_addr_ptr(madw)->dest_lid),
			       n);
	}
	if (!q.requester)
		return;		/* as stock: no requester port, no answer */
	if (q.oom) {
		free_records(&q.list);
		vf_sa_send_error(g->p, madw, IB_SA_MAD_STATUS_NO_RESOURCES,
				 VF_SA_REASON_BY_STATUS);
		return;
	}
	vf_metrics_sa_answered(g->p->metrics, VF_MSA_LFT_RECORD);
	osm_sa_respond(q.sa, madw, sizeof(ib_lft_record_t), &q.list);
}

void vf_sa_guard_install(struct vf_plugin *p)
{
	osm_sa_t *sa = &p->osm->sa;
	struct vf_sa_guard *g = calloc(1, sizeof(*g));

	if (!g) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0903: out of memory for the SA crash guard; OpenSM's handlers answer every request");
		return;
	}
	g->p = p;
	if (vf_sa_swap_handler(&sa->slvl_disp_h, sa->p_disp,
			       OSM_MSG_MAD_SLVL_TBL_RECORD, on_slvl, g,
			       &g->stock)) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0903: cannot take SLtoVLMappingTableRecord queries; OpenSM's handler answers them unguarded");
		free(g);
		return;
	}
	if (vf_sa_swap_handler(&sa->lft_disp_h, sa->p_disp,
			       OSM_MSG_MAD_LFT_RECORD, on_lft, g,
			       &g->stock_lft))
		vf_log(VF_LOG_ERROR,
		       "ERR VF0903: cannot take LinearForwardingTableRecord queries; OpenSM's handler answers them unguarded");
	p->sa.guard = g;
}

void vf_sa_guard_free(struct vf_plugin *p)
{
	/* OpenSM unregistered ours (the handle is in osm_sa_t) and shut its
	 * dispatchers down before unloading us */
	free(p->sa.guard);
	p->sa.guard = NULL;
}
