// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Our engines as OpenSM external routing engines.
 *
 * ucast_build_fwd_tables runs in the sweeper thread with osm->lock held
 * exclusively: it must not take the lock, and the SA waits while it runs.
 * It routes the sweep's fabric model (plugin/sweep.h), its LIDs now read,
 * and writes each switch's new_lft; the route check runs later, on
 * UCAST_ROUTING_DONE, with no lock held.
 *
 * build_lid_matrices runs just before it, in the same thread and lock
 * hold, and fills OpenSM's min-hop matrices (sw->hops) with exactly what
 * OpenSM's own builder would (plugin/hops.c): its multicast trees, its
 * min-hop fallback and its dumps read them, and its builder is what took
 * most of the routing window on large fabrics.  Our routing does not read
 * them.
 * When ours cannot be exact it returns 1 with nothing half done, and OpenSM
 * builds them itself.  If our tables are then refused, the next engine
 * builds its own matrices (minhop's over ours changes nothing, they are
 * its own numbers).  The matrices come from OpenSM's switch table, not
 * the fabric model.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_switch.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin/metrics.h"
#include "plugin/plugin.h"
#include "common/log.h"
#include "routing/routecheck.h"

/*
 * Copy our tables into OpenSM's new_lft of every switch, found by GUID in
 * OpenSM's own switch map.  A switch OpenSM has but the model lacks keeps
 * the all-drop table OpenSM prepared; it is named.
 */
static unsigned write_new_lfts(osm_subn_t *subn, const struct vf_fabric *f,
			       const struct vf_lfts *t)
{
	unsigned written = 0, total = cl_qmap_count(&subn->sw_guid_tbl);

	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint64_t guid = f->nodes[f->switches[s]].guid;
		osm_switch_t *sw = osm_get_switch_by_guid(subn, cl_hton64(guid));
		const uint8_t *row = vf_lft_row(t, s);
		unsigned max;

		if (!sw)
			continue;
		max = sw->max_lid_ho < t->max_lid ? sw->max_lid_ho : t->max_lid;
		if (max >= sw->lft_size)
			max = sw->lft_size - 1;
		for (unsigned lid = 1; lid <= max; lid++)
			sw->new_lft[lid] = row[lid];
		written++;
	}
	if (written < total)
		vf_log(VF_LOG_ERROR,
		       "ERR VF0105: %u of OpenSM's %u switches are not in the fabric model; their LFTs are left empty",
		       total - written, total);
	return written;
}

static void log_check(struct vf_plugin *p, struct vf_routing *rt)
{
	const struct vf_engine *e = rt->engine;
	struct vf_route_report r;

	if (!rt->checked &&
	    vf_route_check(rt->fabric, &rt->lfts, &rt->report)) {
		vf_log(VF_LOG_ERROR, "ERR VF0106: %s: route check ran out of memory",
		       e->name);
		return;
	}
	r = rt->report;
	vf_metrics_route_check(p->metrics, &r);
	vf_log(vf_route_report_ok(&r) ? VF_LOG_INFO : VF_LOG_ERROR,
	       "%s%s check: unreachable %llu/%llu CA pairs, %llu/%llu switch pairs; max stretch %u; credit loops %s%s; all-to-all link load max %llu avg %.1f max/avg %.2f",
	       vf_route_report_ok(&r) ? "" : "ERR VF0107: ",
	       e->name,
	       (unsigned long long)r.ca_unreachable,
	       (unsigned long long)r.ca_pairs,
	       (unsigned long long)r.sw_unreachable,
	       (unsigned long long)r.sw_pairs, r.max_stretch,
	       r.credit_loop ? "FOUND" : "none",
	       r.vl_aware ? " per VL (VL layers)" : "",
	       (unsigned long long)r.load_max, r.load_avg,
	       r.load_max_over_avg);
	if (r.credit_loop)
		vf_log(VF_LOG_ERROR, "ERR VF0108: %s: credit loop: %s",
		       e->name, r.cycle);
	else if (r.sw_credit_loop)
		vf_log(VF_LOG_INFO,
		       "%s: no credit loop in data traffic; management routes (to switch LIDs, from switches) close a cycle: %s",
		       e->name, r.sw_cycle);
	for (unsigned i = 0; i < r.num_examples; i++)
		vf_log(VF_LOG_ERROR, "ERR VF0109: %s: %s", e->name,
		       r.examples[i]);
}

void vf_drop_last(struct vf_plugin *p)
{
	vf_lfts_free(&p->last.lfts);
	vf_fabric_destroy(p->last.fabric);
	p->last.fabric = NULL;
}

void vf_check_last(struct vf_plugin *p)
{
	if (p->last.fabric && !p->last.logged)
		log_check(p, &p->last);
	p->last.logged = true;
}

/*
 * Keep this routing as the last one (holding f, taking t over): for the
 * check on UCAST_ROUTING_DONE, and as the next routing's previous.
 * report, when not NULL, is its check already done.
 */
static void keep_last(struct vf_plugin *p, const struct vf_engine *e,
		      struct vf_fabric *f, struct vf_lfts *t,
		      const struct vf_route_report *report)
{
	vf_drop_last(p);
	vf_fabric_hold(f);
	p->last.engine = e;
	p->last.fabric = f;
	p->last.lfts = *t;
	p->last.checked = report != NULL;
	p->last.logged = !p->opts.check_routes;
	p->last.ar_fresh = true;
	if (report)
		p->last.report = *report;
	memset(t, 0, sizeof(*t));
}

/*
 * loop_fallback, vl_layers: check the tables before OpenSM gets them.
 * When the data traffic has a credit loop on one VL, split it into VL
 * layers (plugin/layers.c); when that cannot be done, refuse the tables
 * (loop_fallback), so that OpenSM routes with the next engine in
 * routing_engine.  This check runs under OpenSM's lock (the SA waits);
 * with neither option it runs after, outside the lock.  Returns 0 to keep
 * the tables, -1 to refuse them.
 */
static int loop_gate(struct vf_engine_ctx *ec, const struct vf_fabric *f,
		     const struct vf_lfts *t, struct vf_route_report *r)
{
	const struct vf_engine *e = ec->engine;

	if (vf_route_check(f, t, r)) {
		vf_log(VF_LOG_ERROR, "ERR VF0106: %s: route check ran out of memory",
		       e->name);
		return ec->plugin->opts.loop_fallback ? -1 : 0;
	}
	if (!r->credit_loop) {
		ec->plugin->layers_said = 0;	/* a layering again: warn */
		return 0;
	}
	if (!vf_layers_apply(ec->plugin, ec, vf_sweep_config(ec->plugin), f,
			     t, r))
		return 0;
	if (!ec->plugin->opts.loop_fallback)
		return 0;	/* kept; the check logs the loop after */
	vf_log(VF_LOG_ERROR, "ERR VF0108: %s: credit loop: %s", e->name,
	       r->cycle);
	vf_log(VF_LOG_ERROR,
	       "ERR VF0113: %s: tables with a credit loop refused; OpenSM falls back to the next engine in routing_engine (loop_fallback=off keeps them)",
	       e->name);
	return -1;
}

/* Is this routing for the partition policy the last one was made for? */
static bool same_partition_policy(const struct vf_plugin *p)
{
	return p->routing_policy == p->last_routing_policy &&
	       p->routing_mode == p->last_routing_mode;
}

static int build_fwd_tables(void *context)
{
	struct vf_engine_ctx *ec = context;
	const struct vf_engine *e = ec->engine;
	osm_subn_t *subn = &ec->plugin->osm->subn;
	struct vf_route_opts opts;
	struct vf_lfts t = { 0 };
	struct vf_route_report *report = NULL;
	struct vf_previous prev;
	struct vf_route_groups groups = { .spine_first = -1 };
	struct vf_fabric *f;
	double t0 = vf_now_ms(), t1, t2;
	unsigned written;
	int rc;

	/* these tables replace the layered ones, if any */
	vf_layers_clear(ec->plugin);
	/* the sweep's model and policy: the file is not read again here */
	vf_sweep_for_routing(ec->plugin);
	f = vf_sweep_fabric(ec->plugin, true);
	if (!f) {
		rc = -1;
		goto out_free;	/* the layers' hooks come off too */
	}
	vf_route_opts_default(&opts);
	vf_plugin_route_opts(ec->plugin, &opts, &groups);
	if (ec->plugin->opts.route_stability && ec->plugin->last.fabric &&
	    same_partition_policy(ec->plugin)) {
		prev.fabric = ec->plugin->last.fabric;
		prev.lfts = &ec->plugin->last.lfts;
		opts.previous = &prev;
	}
	t1 = vf_now_ms();
	rc = vf_lfts_init(&t, f->num_switches, f->max_lid);
	if (!rc)
		rc = e->route(f, &opts, &t);
	if (rc) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0110: %s cannot route this fabric (%d); OpenSM falls back to the next engine",
		       e->name, rc);
		goto out_free;
	}
	t2 = vf_now_ms();
	if (ec->plugin->opts.loop_fallback || ec->plugin->opts.vl_layers) {
		report = malloc(sizeof(*report));
		rc = report ? loop_gate(ec, f, &t, report) : -1;
		if (rc)
			goto out_free;
	}
	written = write_new_lfts(subn, f, &t);
	ec->runs++;
	vf_log(VF_LOG_INFO,
	       "%s routed %u switches, max LID %u in %.2f ms (fabric model %.2f ms, routing %.2f ms; run %u)",
	       e->name, written, f->max_lid, vf_now_ms() - t0, t1 - t0,
	       t2 - t1, ec->runs);
	keep_last(ec->plugin, e, f, &t, report);
	ec->plugin->sweep.routed = true;
	ec->plugin->last_routing_policy = ec->plugin->routing_policy;
	ec->plugin->last_routing_mode = ec->plugin->routing_mode;
out_free:
	vf_qos_layers_changed(ec->plugin);
	vf_route_groups_free(&groups);
	free(report);
	vf_lfts_free(&t);
	return rc ? -1 : 0;
}

/* 0: OpenSM's min-hop matrices are filled; 1: OpenSM builds them. */
static int build_lid_matrices(void *context)
{
	struct vf_engine_ctx *ec = context;

	return vf_hop_matrices(ec->plugin, ec->engine->name);
}

static uint8_t path_sl(void *context, uint8_t hint, const ib_net16_t slid,
		       const ib_net16_t dlid)
{
	struct vf_engine_ctx *ec = context;
	uint8_t sl;

	if (vf_layer_sl(ec->plugin, cl_ntoh16(slid), cl_ntoh16(dlid), hint,
			&sl))
		return sl;
	return hint;
}

static int engine_setup(struct osm_routing_engine *re, osm_opensm_t *osm)
{
	struct vf_engine_ctx *ec = re->context;

	re->build_lid_matrices = build_lid_matrices;
	re->ucast_build_fwd_tables = build_fwd_tables;
	/*
	 * update_sl2vl/update_vlarb: plugin/qos_program.c, with QoS VFs or
	 * VL layers.  path_sl: OpenSM's own PathRecord handler (no vFabric
	 * policy) and its link manager (MasterSMSL) ask it; it gives the
	 * layer's SL while the layered tables are in place and otherwise
	 * the SL they hint (the partition's sl=, which the plan writes per
	 * VF, or sm_sl), so it never breaks a VF's P_Key/SL pairing.  Under
	 * a vFabric policy our SA handlers choose the SLs (sa_path.c).
	 */
	re->path_sl = path_sl;
	ec->re = re;
	vf_log(VF_LOG_INFO, "routing engine %s selected (%s)",
	       ec->engine->name, ec->engine->summary);
	return 0;
}

/*
 * Returns -EEXIST only when nothing was registered: once OpenSM holds a
 * pointer to our context, create() must not fail (the library would be
 * unloaded under it).
 */
int vf_engines_register(struct vf_plugin *p)
{
	unsigned done = 0;

	p->engines = calloc(vf_num_engines, sizeof(*p->engines));
	if (!p->engines)
		return -ENOMEM;
	for (unsigned i = 0; i < vf_num_engines; i++) {
		external_routing_engine_module_t m = {
			.name = vf_engines[i].name,
			.setup = engine_setup,
		};
		cl_status_t st;

		p->engines[i].plugin = p;
		p->engines[i].engine = &vf_engines[i];
		st = osm_register_external_routing_engine(p->osm, &m,
							  &p->engines[i]);
		if (st != CL_SUCCESS) {
			vf_log(VF_LOG_ERROR,
			       "ERR VF0111: cannot register routing engine %s (%s)",
			       vf_engines[i].name, CL_STATUS_MSG(st));
			continue;
		}
		done++;
	}
	return done ? 0 : -EEXIST;
}
