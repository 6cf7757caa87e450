// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * libvfabric.so: the OpenSM event plugin (opensm.conf: event_plugin_name
 * vfabric).  OpenSM dlopen()s "libvfabric.so", checks that our
 * osm_version string equals its own, and calls create() after the SA is
 * initialised and before routing engines are set up, so this is where our
 * engines are registered.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_log.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_version.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/metrics.h"
#include "plugin/plugin.h"
#include "common/log.h"

/* Overridden only by the test build that checks a version mismatch. */
#ifndef VF_OSM_VERSION
#define VF_OSM_VERSION OSM_VERSION
#endif

/*
 * Errors go to OpenSM's log and to standard error, which systemd keeps in
 * the journal (Debian's opensm@.service), and OpenSM's log is flushed:
 * with its default force_log_flush FALSE an error may sit unseen in the
 * buffer for minutes.
 */
static void log_to_osm(void *ctx, enum vf_log_level level, const char *msg)
{
	osm_log_t *log = ctx;

	switch (level) {
	case VF_LOG_ERROR:
		osm_log(log, OSM_LOG_ERROR, "vfabric: %s\n", msg);
		fprintf(stderr, "opensm-vfabric: %s\n", msg);
		if (log->out_port)
			fflush(log->out_port);
		break;
	case VF_LOG_WARN:
		/* OpenSM has no warning level; INFO is on by default */
		osm_log(log, OSM_LOG_INFO, "vfabric: warning: %s\n", msg);
		break;
	case VF_LOG_INFO:
		osm_log(log, OSM_LOG_INFO, "vfabric: %s\n", msg);
		break;
	default:
		osm_log(log, OSM_LOG_DEBUG, "vfabric: %s\n", msg);
		break;
	}
}

/*
 * The version string can match while the layout does not (headers of
 * another build): check two fields whose values we know before trusting
 * any offset.
 */
static bool abi_looks_right(osm_opensm_t *osm)
{
	const char *name = osm->subn.opt.event_plugin_name;

	return osm->subn.p_osm == osm && name && strstr(name, "vfabric");
}

/* What the policy is after the configuration was first read. */
static const char *policy_summary(const struct vf_plugin *p, char *buf,
				  size_t size)
{
	if (p->config)
		snprintf(buf, size, "vFabric policy from %s", p->config_from);
	else if (p->fallback == VF_FALLBACK_DENY)
		snprintf(buf, size,
			 "no usable vFabric configuration: tenants kept apart (on_config_error)");
	else if (p->fallback == VF_FALLBACK_OPEN)
		snprintf(buf, size,
			 "no usable vFabric configuration: OpenSM's default policy (on_config_error=open)");
	else
		snprintf(buf, size, "no vFabric configuration: OpenSM's partitions");
	return buf;
}

/*
 * One line on standard error (the journal under systemd) once the plugin
 * is up: what runs, and where its log is; the effective settings in the
 * log.  An admin sees at a glance that the plugin is there, and where to
 * look when something is wrong.
 */
static void say_started(const struct vf_plugin *p)
{
	const osm_subn_opt_t *opt = &p->osm->subn.opt;
	char policy[700];
	char *settings = vf_options_describe(&p->opts);

	vf_log(VF_LOG_INFO, "effective settings: %s",
	       settings ? settings : "(out of memory)");
	free(settings);
	fprintf(stderr,
		"opensm-vfabric " PACKAGE_VERSION " loaded into %s: routing_engine %s; %s; log %s%s\n",
		VF_OSM_VERSION,
		opt->routing_engine_names ? opt->routing_engine_names :
		"(OpenSM's default)",
		policy_summary(p, policy, sizeof(policy)),
		opt->log_file ? opt->log_file : "(none)",
		opt->force_log_flush ? "" :
		" (force_log_flush FALSE: OpenSM writes it late; errors also here)");
}

/*
 * Instances alive in this process.  Listing the plugin twice in
 * event_plugin_name makes OpenSM call create() twice on one library, whose
 * log sink and engine names are process-wide: the second is refused.
 */
static unsigned instances;

/*
 * Take down what create() set up: delete() does, and create() when it
 * cannot finish (before the SA handlers, its last step).  Threads stop
 * first (the config watcher, the EM's), so nothing uses what follows;
 * the metrics go after the SA, whose queries count in them.
 */
static void take_down(struct vf_plugin *p, bool sa_installed)
{
	vf_watch_stop(p);
	vf_em_destroy(p);
	vf_ar_destroy(p);
	vf_drop_last(p);
	vf_sweep_end(p);
	vf_plugin_config_free(p);
	vf_assignment_free(&p->assign);
	vf_partitions_free(p);
	vf_partitions_free_keys(p);
	if (sa_installed)
		vf_sa_free(p);
	vf_layers_clear(p);	/* the SA read them */
	free(p->user_partitions);
	vf_options_free(&p->opts);
	vf_node_descs_destroy(p->descs);
	vf_metrics_destroy(p->metrics);
	vf_log_set_sink(NULL, NULL);
	free(p->engines);
	free(p);
}

static void *vf_create(osm_opensm_t *osm)
{
	struct vf_plugin *p;
	char *shown;

	if (instances) {
		osm_log(&osm->log, OSM_LOG_ERROR,
			"vfabric: ERR VF0112: the plugin is listed more than once in event_plugin_name; the extra copy is ignored\n");
		return NULL;
	}
	if (!abi_looks_right(osm)) {
		osm_log(&osm->log, OSM_LOG_ERROR,
			"vfabric: ERR VF0101: OpenSM's structures do not match the headers this plugin was built with (%s); not loading. Rebuild the plugin against this OpenSM's libopensm-dev.\n",
			VF_OSM_VERSION);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->osm = osm;
	p->descs = vf_node_descs_create();
	vf_log_set_sink(log_to_osm, &osm->log);
	vf_options_default(&p->opts);
	vf_options_parse(&p->opts, osm->subn.opt.event_plugin_options);
	vf_log_set_level(p->opts.log_level);
	shown = vf_options_redacted(osm->subn.opt.event_plugin_options);
	vf_log(VF_LOG_INFO, "opensm-vfabric " PACKAGE_VERSION
	       " loaded into %s (options: %s)", VF_OSM_VERSION,
	       shown ? shown : "none");
	free(shown);
	/* before the config is read: its errors are counted */
	p->metrics = vf_metrics_create(p->opts.metrics_file);
	/* before any change of ours: where the user's partitions are */
	p->user_partitions_ptr = osm->subn.opt.partition_config_file;
	p->user_partitions = p->user_partitions_ptr ?
			     strdup(p->user_partitions_ptr) : NULL;
	/* a bad file is logged; on_config_error says what runs instead */
	vf_plugin_config_start(p);
	vf_qos_create(p);
	/* each logs its failure; the plugin runs on without that part */
	(void)vf_ar_create(p);
	(void)vf_em_create(p);
	(void)vf_watch_start(p);
	if (vf_engines_register(p)) {
		take_down(p, false);
		return NULL;
	}
	/* after the last failure exit: OpenSM keeps the handlers */
	vf_sa_install(p);
	instances++;
	say_started(p);
	return p;
}

static void vf_delete(void *data)
{
	struct vf_plugin *p = data;

	vf_log(VF_LOG_INFO, "unloading");
	take_down(p, true);
	instances--;
}

/* Where the policy in use comes from, for the metrics. */
static enum vf_metrics_config_source config_source(const struct vf_plugin *p)
{
	if (p->config)
		return p->config_last_good ? VF_MCS_LAST_GOOD : VF_MCS_FILE;
	return p->fallback == VF_FALLBACK_DENY ? VF_MCS_FALLBACK_DENY :
	       p->fallback == VF_FALLBACK_OPEN ? VF_MCS_FALLBACK_OPEN :
	       VF_MCS_OPENSM;
}

static void vf_report(void *data, osm_epi_event_id_t id, void *event_data)
{
	struct vf_plugin *p = data;
	const struct osm_routing_engine *re;
	unsigned models, resolutions;

	/* never take osm->lock here: report() may run with it held */
	if (id == OSM_EVENT_ID_HEAVY_SWEEP_START) {
		vf_metrics_sweep_start(p->metrics);
		return;
	}
	if (id == OSM_EVENT_ID_HEAVY_SWEEP_DONE) {
		/* reads the file and begins the sweep's snapshot */
		vf_qos_heavy_sweep(p, vf_partitions_heavy_sweep(p));
		/* before routing: AR paused while forwarding changes */
		vf_ar_heavy_sweep(p);
		return;
	}
	if (id == OSM_EVENT_ID_STATE_CHANGE) {
		vf_em_state_change(p);
		return;
	}
	if (id == OSM_EVENT_ID_SUBNET_UP) {
		vf_partitions_verify(p);
		/*
		 * AR goes out with LID-routed MADs: only now are the new LFTs
		 * on the switches (at UCAST_ROUTING_DONE they are still being
		 * sent).  Sweeper thread, no lock held.
		 */
		vf_ar_subnet_up(p);
		/* hands the policy to the EM's thread: no waiting here */
		vf_em_subnet_up(p);
		/*
		 * The route check ran at UCAST_ROUTING_DONE, in this thread,
		 * so this sweep's figures are all in: a failed write is
		 * logged once and tried again after the next sweep.
		 */
		vf_sweep_counts(p, &models, &resolutions);
		vf_metrics_snapshot(p->metrics, models, resolutions);
		vf_metrics_subnet_up(p->metrics);
		vf_metrics_config_source(p->metrics, config_source(p));
		vf_metrics_write(p->metrics);
		/* what this sweep resolved is not reused by the next */
		vf_sweep_end(p);
		return;
	}
	if (id != OSM_EVENT_ID_UCAST_ROUTING_DONE)
		return;
	re = p->osm->routing_engine_used;
	vf_log(VF_LOG_INFO, "unicast routing done by engine '%s'",
	       re && re->name ? re->name : "unknown");
	vf_metrics_routing(p->metrics, re ? re->name : NULL);
	vf_qos_routing_done(p);
	/*
	 * From the sweeper thread, no lock held: the route check delays the
	 * rest of the sweep but not the SA.  A routing by another engine
	 * (fallback) leaves nothing new to check.
	 */
	vf_check_last(p);
}

osm_event_plugin_t osm_event_plugin = {
	.osm_version = VF_OSM_VERSION,
	.create = vf_create,
	.delete = vf_delete,
	.report = vf_report,
};
