// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vFabric QoS programmed by OpenSM's own QoS manager (osm_qos.c): it
 * builds SL2VL and VLArb tables from its qos_* options and, before it
 * sends each one, lets the routing engine that routed the subnet rewrite
 * it (update_sl2vl, update_vlarb).  Our engines hand it the tables of
 * partition/qos.c.
 *
 * What OpenSM needs for that, and when it reads it:
 * - opt.qos: osm_qos_setup() does nothing without it, and it is read on
 *   every call (after routing, each heavy sweep and reroute); the
 *   partition manager also drops every partition's sl= without it.  It is
 *   set in create() already when the configuration has QoS VFs, so that
 *   the first sweep and the SA (ClassPortInfo's IsQoSSupported) see one
 *   state from the start, and re-decided at every HEAVY_SWEEP_DONE (which
 *   comes before the partition and QoS managers run) when the
 *   configuration changed.  Without QoS VFs the user's value is put back.
 * - no qos_* option: the callbacks replace OpenSM's tables whole, on CA
 *   ports, on switch port 0 (enhanced only) and on switch external ports
 *   (per input/output port pair, since update_sl2vl is set: OpenSM then
 *   never uses the optimized one-table-per-switch form).
 * - head_of_queue_lifetime and leaf_head_of_queue_lifetime: IB has one
 *   HOQLife per port (the FM's is per VL), which OpenSM's link manager
 *   sets on switch external ports from these two options on every sweep.
 *   They get the largest HoqLife of the QoS VFs, or the user's again.
 * An option is written only while we need it and then put back; a value
 * the user changed meanwhile (opensm.conf re-read on SIGHUP) wins.
 *
 * The callbacks run in the sweeper with osm->lock held: they only look
 * up tables computed at HEAVY_SWEEP_DONE, by the port's data VL count.
 * Without QoS VFs the callbacks are not even installed: OpenSM behaves
 * exactly as stock.  If routing falls back to an OpenSM engine, OpenSM
 * programs its own default tables (our callbacks belong to our engines).
 */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_port.h>

#include <stdio.h>
#include <string.h>

#include "plugin/plugin.h"
#include "common/log.h"

/* A layer VL's VLArb weight (64-byte units): one 4 KB packet a turn. */
#define VF_LAYER_VL_WEIGHT 64

/*
 * The data VLs the tables of port p use: OperVLs, as OpenSM masks with.
 * With VL layers, one table for every port (the layers were split only
 * when every port has the VLs).
 */
static const struct vf_qos_port *tables_of(const struct vf_plugin *plugin,
					   const osm_physp_t *p)
{
	const struct vf_qos_state *st = &plugin->qos;
	const ib_port_info_t *pi = &p->port_info;
	unsigned vls = vf_qos_vls_of_code(ib_port_info_get_op_vls(pi));

	if (plugin->layered.active && plugin->layered.with_qos)
		return &plugin->layered.qtables;

	if (!vls)	/* not set up yet: what the port can do */
		vls = vf_qos_vls_of_code(ib_port_info_get_vl_cap(pi));
	if (pi->vl_arb_low_cap && pi->vl_arb_low_cap < vls)
		vls = pi->vl_arb_low_cap;
	if (!vls)
		vls = 1;
	return &st->ports[vls - 1];
}

/*
 * VL layers without QoS (plugin/layers.c): SL n on VL n for the layers,
 * every other SL on VL0, as the QoS tables leave SLs no class uses.
 */
static void layer_sl2vl(struct vf_plugin *p, uint8_t in_port,
			ib_slvl_table_t *tbl)
{
	unsigned n = p->layered.l.num;

	for (unsigned i = 0; i < IB_MAX_NUM_VLS / 2; i++)
		tbl->raw_vl_by_sl[i] =
			(uint8_t)((2 * i < n ? 2 * i : 0) << 4 |
				  (2 * i + 1 < n ? 2 * i + 1 : 0));
	if (in_port == 0)
		p->qos.ports_set++;
}

/* Every layer's VL in the low-priority table, equal weights: none waits. */
static void layer_vlarb(struct vf_plugin *p, osm_physp_t *port,
			ib_vl_arb_table_t *block, unsigned block_length,
			unsigned block_num)
{
	unsigned n = p->layered.l.num;

	for (unsigned i = 0; i < block_length &&
	     i < IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK; i++) {
		bool used = block_num == 0 && i < n;

		block->vl_entry[i].vl = used ? (uint8_t)i : 0;
		block->vl_entry[i].weight = used ? VF_LAYER_VL_WEIGHT : 0;
	}
	if (block_num == 2)
		port->vl_high_limit = 0;
}

static void update_sl2vl(void *context, osm_physp_t *port, uint8_t in_port,
			 uint8_t out_port, ib_slvl_table_t *tbl)
{
	struct vf_engine_ctx *ec = context;
	struct vf_qos_state *st = &ec->plugin->qos;
	const struct vf_qos_port *t;

	(void)out_port;
	if (!st->active) {
		if (ec->plugin->layered.active)
			layer_sl2vl(ec->plugin, in_port, tbl);
		return;
	}
	t = tables_of(ec->plugin, port);
	for (unsigned i = 0; i < IB_MAX_NUM_VLS / 2; i++)
		tbl->raw_vl_by_sl[i] = (uint8_t)(t->sl2vl[2 * i] << 4 |
						 t->sl2vl[2 * i + 1]);
	/* once per port (every switch output port starts at input 0) */
	if (in_port == 0) {
		st->ports_set++;
		if (t->folded) {
			st->ports_folded++;
			st->fold_vls = t->vls;
			st->fold_classes = t->folded;
		}
	}
}

static void update_vlarb(void *context, osm_physp_t *port, uint8_t port_num,
			 ib_vl_arb_table_t *block, unsigned block_length,
			 unsigned block_num)
{
	struct vf_engine_ctx *ec = context;
	const struct vf_qos_state *st = &ec->plugin->qos;
	const struct vf_qos_port *t;
	const struct vf_vlarb_entry *e;
	unsigned num, first = (block_num % 2) * IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK;

	(void)port_num;
	if (block_num > 3)
		return;
	if (!st->active) {
		if (ec->plugin->layered.active)
			layer_vlarb(ec->plugin, port, block, block_length,
				    block_num);
		return;
	}
	t = tables_of(ec->plugin, port);
	e = block_num < 2 ? t->low : t->high;
	num = block_num < 2 ? t->num_low : t->num_high;
	for (unsigned i = 0; i < block_length &&
	     i < IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK; i++) {
		block->vl_entry[i].vl = first + i < num ? e[first + i].vl : 0;
		block->vl_entry[i].weight = first + i < num ?
					    e[first + i].weight : 0;
	}
	/*
	 * VLHighLimit: OpenSM set it from qos_high_limit just before; the
	 * link manager sends it.  Ours: the high VLs that fit the table.
	 */
	if (block_num == 2)
		port->vl_high_limit = (uint8_t)(num < block_length ?
						num : block_length);
}

/* Install or remove the callbacks on every engine of ours OpenSM set up. */
static void hook_engines(struct vf_plugin *p, bool on)
{
	for (unsigned i = 0; p->engines && i < vf_num_engines; i++) {
		struct osm_routing_engine *re = p->engines[i].re;

		if (!re)
			continue;
		re->update_sl2vl = on ? update_sl2vl : NULL;
		re->update_vlarb = on ? update_vlarb : NULL;
	}
}

/*
 * The value an overridden option gets: ours while wanted, else the user's
 * again.  A value changed behind our back (opensm.conf re-read on SIGHUP)
 * is the user's new one.  An option never overridden is never touched.
 */
static int override(struct vf_opt_override *o, int cur, bool want, int ours)
{
	if (o->on && cur != o->ours)
		o->user = cur;
	if (want) {
		if (!o->on)
			o->user = cur;
		o->on = true;
		o->ours = ours;
		return ours;
	}
	if (!o->on)
		return cur;
	o->on = false;
	return o->user;
}

/* Put OpenSM's options as this programme needs them, or as the user had. */
static void set_options(struct vf_plugin *p)
{
	osm_subn_opt_t *opt = &p->osm->subn.opt;
	struct vf_qos_state *st = &p->qos;
	int hoq = st->active ? st->prog.hoq_life : -1;

	opt->qos = (boolean_t)override(&st->qos, opt->qos,
				       st->active || p->layered.active, TRUE);
	opt->head_of_queue_lifetime = (uint8_t)override(&st->hoq,
			opt->head_of_queue_lifetime, hoq >= 0, hoq);
	opt->leaf_head_of_queue_lifetime = (uint8_t)override(&st->leaf_hoq,
			opt->leaf_head_of_queue_lifetime, hoq >= 0, hoq);
}

void vf_qos_create(struct vf_plugin *p)
{
	osm_subn_opt_t *opt = &p->osm->subn.opt;

	if (!vf_qos_wanted(p->config))
		return;
	opt->qos = (boolean_t)override(&p->qos.qos, opt->qos, true, TRUE);
	vf_log(VF_LOG_INFO,
	       "qos: the configuration has QoS virtual fabrics: OpenSM's qos option is on");
}

static void log_diag(const struct vf_diag *d)
{
	for (unsigned i = 0; i < d->n; i++)
		vf_log(d->v[i].level == VF_DIAG_ERROR ? VF_LOG_ERROR :
						       VF_LOG_WARN,
		       "%sqos: %s", d->v[i].level == VF_DIAG_ERROR ?
		       "ERR VF1301: " : "", d->v[i].text);
}

/* Take prog as the programme: precompute the tables of every VL count. */
static void take(struct vf_qos_state *st, const struct vf_qos_prog *prog)
{
	st->prog = *prog;
	st->active = prog->active;
	for (unsigned vls = 1; vls <= VF_QOS_MAX_VLS; vls++)
		vf_qos_port_tables(prog, vls, 0, VF_QOS_VLARB_ENTRIES,
				   &st->ports[vls - 1]);
}

void vf_qos_heavy_sweep(struct vf_plugin *p, const struct vf_plan *plan)
{
	struct vf_qos_state *st = &p->qos;
	struct vf_diag d = { 0 };
	struct vf_qos_prog prog;
	char line[2048];
	bool changed;

	st->ports_set = st->ports_folded = 0;
	if (!vf_qos_wanted(p->config)) {
		if (st->active)
			vf_log(VF_LOG_INFO,
			       "qos: no QoS virtual fabrics any more: OpenSM's QoS settings are its own again");
		memset(&prog, 0, sizeof(prog));
		prog.hoq_life = -1;
		take(st, &prog);
	} else if (!plan) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF1302: qos: no partition plan this sweep; the QoS tables stay as they were");
	} else if (vf_qos_build(p->config, plan, &prog, &d)) {
		log_diag(&d);
		vf_log(VF_LOG_ERROR,
		       "ERR VF1303: qos: the QoS settings cannot be realised; the QoS tables stay as they were");
	} else {
		changed = memcmp(&prog, &st->prog, sizeof(prog)) != 0;
		if (changed)	/* warnings once, not every sweep */
			log_diag(&d);
		take(st, &prog);
	}
	vf_diag_free(&d);
	hook_engines(p, st->active || p->layered.active);
	set_options(p);
	if (!st->active)
		return;
	vf_qos_summary(&st->prog, line, sizeof(line));
	vf_log(VF_LOG_INFO, "qos: %s", line);
}

void vf_qos_layers_changed(struct vf_plugin *p)
{
	hook_engines(p, p->qos.active || p->layered.active);
	set_options(p);
}

void vf_qos_routing_done(struct vf_plugin *p)
{
	struct vf_qos_state *st = &p->qos;

	if (!st->active && p->layered.active && st->ports_set)
		vf_log(VF_LOG_INFO,
		       "SL2VL tables of %u ports set for %u VL layers (SL n on VL n)",
		       st->ports_set, p->layered.l.num);
	if (!st->active || !st->ports_set) {
		st->ports_set = 0;
		return;
	}
	vf_log(VF_LOG_INFO, "qos: SL2VL tables of %u ports set from the QoS classes",
	       st->ports_set);
	if (st->ports_folded)
		vf_log(VF_LOG_WARN,
		       "qos: %u ports have only %u data VLs for %u QoS classes: %u classes share a VL",
		       st->ports_folded, st->fold_vls,
		       st->prog.n, st->fold_classes);
	st->ports_set = st->ports_folded = 0;
}
