// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * P_Key partitions from the vFabric configuration, programmed by OpenSM's
 * own partition manager: on every heavy sweep (HEAVY_SWEEP_DONE comes
 * after discovery and before OpenSM's P_Key manager) the plan is resolved
 * on the fabric and written, atomically, as a plain partitions.conf in
 * OpenSM's cache directory, where opt.partition_config_file points from
 * then on.  OpenSM keeps each P_Key's index in a port's table across
 * changes (keep_pkey_indexes), so tenants never see their indexes move.
 *
 * On SUBNET_UP the P_Key tables OpenSM read back from the ports are
 * compared with the plan: a mismatch is logged per port and a heavy sweep
 * forced (at most VERIFY_RETRIES in a row, so a port that never takes its
 * table cannot make the SM sweep forever).
 *
 * A stock partitions.conf is planned and written the same way (the plan
 * means what stock OpenSM makes of the file), but the SA keeps answering
 * with OpenSM's own handlers for it, as stock.  Without a configuration
 * that defines virtual fabrics, OpenSM reads its own partitions.conf as
 * ever, unless the configuration could not be used from the start: then
 * the fallback on_config_error chose is written out plainly (deny: every
 * end port a limited member of the default partition; open: OpenSM's
 * default policy).  A plan that cannot be realised (P_Keys or SLs
 * exhausted) leaves the last file in place.
 *
 * The file written is a plain partitions.conf that stock OpenSM reads
 * alone: an opensm.conf whose partition_config_file names it (with the
 * policy given by config=) keeps the tenants apart even when the plugin
 * fails to load.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_pkey.h>
#include <opensm/osm_port.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/emit.h"
#include "partition/plan.h"
#include "partition/sapolicy.h"
#include "plugin/metrics.h"
#include "plugin/plugin.h"
#include "plugin/sweep.h"
#include "common/log.h"

#define ASSIGN_FILE "opensm-vfabric.assign"
#define VERIFY_RETRIES 3
#define MAX_ENTRIES 256

/* OpenSM's cache directory, as OpenSM itself finds it. */
static const char *cache_dir(void)
{
	const char *dir = getenv("OSM_CACHE_DIR");

	return dir && *dir ? dir : OSM_DEFAULT_CACHE_DIR;
}

void vf_cache_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", cache_dir(), name);
}

static void log_diag(const struct vf_diag *d)
{
	for (unsigned i = 0; i < d->n; i++)
		vf_log(d->v[i].level == VF_DIAG_ERROR ? VF_LOG_ERROR :
						       VF_LOG_WARN,
		       "%s%s", d->v[i].level == VF_DIAG_ERROR ?
		       "ERR VF0804: " : "partitions: ", d->v[i].text);
	if (d->dropped)
		vf_log(VF_LOG_WARN, "partitions: ... and %u more messages",
		       d->dropped);
}

static bool has_vfs(const struct vf_config *c)
{
	for (unsigned i = 0; c && i < c->num_vfs; i++)
		if (c->vfs[i].enable)
			return true;
	return false;
}

/* From now on OpenSM reads path (a copy kept for good). */
static void point_opensm_at(struct vf_plugin *p, const char *path)
{
	if (!p->partitions_file) {
		/* never freed: main()'s copy of the options still points at
		 * the old value, and OpenSM frees this one at exit */
		p->partitions_file = strdup(path);
		if (!p->partitions_file)
			return;
	}
	p->osm->subn.opt.partition_config_file = p->partitions_file;
}

/* The plan just written, and its fabric (held), for the check on
 * SUBNET_UP. */
static void keep_plan(struct vf_plugin *p, struct vf_plan *plan,
		      struct vf_fabric *f)
{
	uint16_t *pk = malloc((plan->num_vfs + 1) * sizeof(*pk));
	int *sl = malloc((plan->num_vfs + 1) * sizeof(*sl));

	vf_plan_free(&p->pkey_plan);
	vf_fabric_destroy(p->pkey_fabric);
	p->pkey_plan = *plan;
	vf_fabric_hold(f);
	p->pkey_fabric = f;
	/* the Ethernet Manager reads them after the check frees the plan */
	free(p->vf_keys.pkey);
	free(p->vf_keys.sl);
	p->vf_keys.pkey = pk;
	p->vf_keys.sl = sl;
	p->vf_keys.n = pk && sl ? plan->num_vfs : 0;
	for (unsigned i = 0; i < p->vf_keys.n; i++) {
		pk[i] = plan->vf_pkey[i];
		sl[i] = plan->vf_sl[i];
	}
}

void vf_partitions_free_keys(struct vf_plugin *p)
{
	free(p->vf_keys.pkey);
	free(p->vf_keys.sl);
	memset(&p->vf_keys, 0, sizeof(p->vf_keys));
}

void vf_partitions_free(struct vf_plugin *p)
{
	vf_plan_free(&p->pkey_plan);
	vf_fabric_destroy(p->pkey_fabric);
	p->pkey_fabric = NULL;
}

/*
 * The SA answers from this plan from now on.  PathSelection comes from
 * event_plugin_options, else the config's <Sm>, else Minimal (the FM's
 * default).  Out of memory keeps the last snapshot (logged).
 */
static void publish_policy(struct vf_plugin *p, const struct vf_plan *plan,
			   const struct vf_resolution *r)
{
	struct vf_config *c = p->sweep.config;
	int sel = p->opts.path_selection >= 0 ? p->opts.path_selection :
		  c->path_selection >= 0 ? c->path_selection :
		  VF_PATHSEL_MINIMAL;
	struct vf_sa_policy *pol;

	pol = vf_sa_policy_build(c, r, plan, (enum vf_path_selection)sel);
	if (!pol) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0902: out of memory building the SA's policy; the SA answers from the last one");
		return;
	}
	/* a stock partitions.conf: the SA answers as stock */
	if (p->config_stock) {
		vf_sa_policy_release(pol);
		pol = NULL;
	}
	vf_sa_set_policy(p, pol);
}

/* Plan r, write, and point OpenSM at the file; false if nothing
 * written.  On success the plan holds the sweep's model. */
static bool write_plan(struct vf_plugin *p, const struct vf_resolution *r)
{
	struct vf_plan_opts o = {
		.allow_both_pkeys = p->osm->subn.opt.allow_both_pkeys,
		.disconnect_unconfigured = p->opts.disconnect_unconfigured,
	};
	struct vf_fabric *f = p->sweep.fabric;
	struct vf_diag d = { 0 };
	struct vf_held_pkeys held;
	struct vf_plan plan;
	char path[4096], assign[4096];
	int rc;

	vf_cache_path(path, sizeof(path), VF_PARTITIONS_FILE);
	vf_cache_path(assign, sizeof(assign), ASSIGN_FILE);
	if (!p->assign_loaded) {
		vf_assignment_load(&p->assign, assign, &d);
		p->assign_loaded = true;
	}
	vf_partitions_fabric_warnings(p, r);
	if (!vf_held_from_subnet(&p->osm->subn, f, &held))
		o.held = &held;
	rc = vf_plan_build(r, &o, &p->assign, &plan, &d);
	vf_held_pkeys_free(&held);
	log_diag(&d);
	vf_diag_free(&d);
	if (rc) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0805: the virtual fabrics cannot be realised (%s); P_Key tables left as they are",
		       rc == -ENOMEM ? "out of memory" : "see above");
		return false;
	}
	if (p->assign.changed && !vf_assignment_save(&p->assign, assign))
		p->assign.changed = false;
	rc = vf_emit_partitions_file(path, &plan, f, p->config_from);
	if (rc)
		vf_log(VF_LOG_ERROR,
		       "ERR VF0806: cannot write %s: %s; P_Key tables left as they are",
		       path, strerror(-rc));
	else
		vf_log(VF_LOG_INFO,
		       "partitions: %u partitions for %u end ports written to %s in %.1f ms (%u memberships dropped for P_Key table size)",
		       plan.num_parts, plan.parts[0].num_members, path,
		       vf_now_ms() - p->sweep_t0, plan.dropped);
	if (rc) {
		vf_plan_free(&plan);
		return false;
	}
	vf_metrics_plan(p->metrics, plan.dropped);
	publish_policy(p, &plan, r);
	keep_plan(p, &plan, f);
	point_opensm_at(p, path);
	return true;
}

/*
 * No configuration with virtual fabrics: the fallback on_config_error
 * chose when the configuration could not be used from the start, written
 * out plainly; otherwise OpenSM reads the user's own file again.
 */
static void without_config(struct vf_plugin *p)
{
	const char *source = vf_plugin_config_source(p);
	char path[4096];
	int rc;

	vf_sa_set_policy(p, NULL);	/* OpenSM's own SA handlers answer */
	if (p->fallback != VF_FALLBACK_NONE) {
		vf_cache_path(path, sizeof(path), VF_PARTITIONS_FILE);
		rc = p->fallback == VF_FALLBACK_DENY ?
		     vf_emit_deny_policy_file(path, source) :
		     vf_emit_default_policy_file(path, source);
		if (rc)
			vf_log(VF_LOG_ERROR,
			       "ERR VF0806: cannot write %s: %s; P_Key tables left as they are",
			       path, strerror(-rc));
		else
			point_opensm_at(p, path);
		return;
	}
	if (p->partitions_file &&
	    p->osm->subn.opt.partition_config_file == p->partitions_file)
		p->osm->subn.opt.partition_config_file =
			p->user_partitions_ptr;
}

const struct vf_plan *vf_partitions_heavy_sweep(struct vf_plugin *p)
{
	const struct vf_resolution *r;

	vf_plugin_config_refresh_wait(p);
	/* the file is read once per sweep, here: the sweep's snapshot */
	vf_sweep_begin(p);
	p->sweep_t0 = vf_now_ms();
	if (!has_vfs(p->sweep.config)) {
		without_config(p);
		return NULL;
	}
	/*
	 * Partitions need no LIDs: the LID manager runs after this.  The
	 * lock, shared: the SA's GUIDInfo handler changes the alias GUIDs
	 * the model reads (OpenSM reports this event without it).
	 */
	cl_plock_acquire(&p->osm->lock);
	r = vf_sweep_resolution(p, false);
	cl_plock_release(&p->osm->lock);
	if (!r || !write_plan(p, r))
		return NULL;
	return &p->pkey_plan;
}

/* The entries of the table OpenSM last read from physp; returns count. */
static unsigned read_table(const osm_physp_t *physp, uint16_t *out,
			   unsigned max)
{
	const osm_pkey_tbl_t *tbl = osm_physp_get_pkey_tbl(physp);
	unsigned n = 0;

	for (uint16_t b = 0; b < osm_pkey_tbl_get_num_blocks(tbl); b++) {
		const ib_pkey_table_t *block = osm_pkey_tbl_block_get(tbl, b);

		for (unsigned i = 0; block && i < IB_NUM_PKEY_ELEMENTS_IN_BLOCK &&
		     n < max; i++)
			out[n++] = cl_ntoh16(block->pkey_entry[i]);
	}
	return n;
}

/* Port slot `slot`'s table as planned? Logs the first difference. */
static bool port_as_planned(struct vf_plugin *p, uint32_t slot,
			    unsigned *logged)
{
	const struct vf_fabric *f = p->pkey_fabric;
	const struct vf_port *pt = &f->ports[slot];
	osm_port_t *port = osm_get_port_by_guid(&p->osm->subn,
						cl_hton64(pt->guid));
	uint16_t want[MAX_ENTRIES], have[MAX_ENTRIES];
	unsigned nw, nh;
	uint16_t idx0;
	int missing, extra;

	if (!port || !port->p_physp)
		return true;	/* gone since: the next sweep plans anew */
	nw = vf_plan_port_entries(&p->pkey_plan, slot, want, MAX_ENTRIES);
	nh = read_table(port->p_physp, have, MAX_ENTRIES);
	idx0 = vf_plan_port_index0(&p->pkey_plan, slot);
	/* index 0 is IPoIB's (ib0): the planned P_Key must be there */
	if (nh && idx0 && (have[0] & 0x7fff) != (idx0 & 0x7fff)) {
		if ((*logged)++ < 10)
			vf_log(VF_LOG_ERROR,
			       "ERR VF0807: port 0x%016llx ('%s' port %u): P_Key table holds 0x%04x at index 0, planned 0x%04x",
			       (unsigned long long)pt->guid,
			       vf_node_desc(f, &f->nodes[pt->node]), pt->num,
			       have[0], idx0);
		return false;
	}
	if (vf_pkeys_match(want, nw < MAX_ENTRIES ? nw : MAX_ENTRIES, have,
			   nh, &missing, &extra))
		return true;
	if ((*logged)++ < 10)
		vf_log(VF_LOG_ERROR,
		       "ERR VF0807: port 0x%016llx ('%s' port %u): P_Key table %s 0x%04x",
		       (unsigned long long)pt->guid,
		       vf_node_desc(f, &f->nodes[pt->node]), pt->num,
		       missing >= 0 ? "lacks planned" : "holds unplanned",
		       missing >= 0 ? missing : extra);
	return false;
}

void vf_partitions_verify(struct vf_plugin *p)
{
	unsigned ports = 0, wrong = 0, logged = 0;
	const struct vf_partition *dflt;

	if (!p->pkey_fabric)
		return;
	/* every end port is in the default partition */
	dflt = &p->pkey_plan.parts[0];
	for (unsigned i = 0; i < dflt->num_members; i++, ports++)
		wrong += !port_as_planned(p, dflt->members[i].port, &logged);
#ifdef VF_TEST_HOOKS
	/*
	 * Fault injection, in the tests' copy of the plugin only: a
	 * simulated fabric always takes its tables, so a port that will not
	 * is pretended.
	 */
	if (getenv("VFABRIC_TEST_PKEY_MISMATCH") && ports && !wrong++)
		vf_log(VF_LOG_ERROR,
		       "ERR VF0807: port 0x%016llx: P_Key table differs from the plan (VFABRIC_TEST_PKEY_MISMATCH)",
		       (unsigned long long)p->pkey_fabric->ports[dflt->members[0].port].guid);
#endif
	vf_partitions_free(p);
	vf_metrics_pkeys(p->metrics, ports - wrong, wrong);
	if (!wrong) {
		p->verify_retries = 0;
		vf_log(VF_LOG_INFO,
		       "partitions: P_Key tables of %u end ports verified as planned",
		       ports);
		return;
	}
	if (p->verify_retries >= VERIFY_RETRIES) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0808: %u of %u end ports still differ from the plan after %u forced sweeps; waiting for the next change",
		       wrong, ports, VERIFY_RETRIES);
		return;
	}
	p->verify_retries++;
	vf_log(VF_LOG_ERROR,
	       "ERR VF0808: %u of %u end ports differ from the plan; forcing a heavy sweep (%u of %u)",
	       wrong, ports, p->verify_retries, VERIFY_RETRIES);
	p->osm->subn.force_heavy_sweep = TRUE;
	osm_sm_sweep(&p->osm->sm);
}
