// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Where the vFabric configuration comes from: the file named by config=
 * in event_plugin_options (either syntax), else OpenSM's own
 * partition_config_file, stock or with vFabric statements (a stock file
 * with stock OpenSM's exact meaning, partition/pconfstock.h).  It is read
 * at start and again whenever it changes (checked on every heavy sweep
 * and routing), validated as a whole, and swapped in only without
 * errors: a bad file later keeps the last good configuration; a bad file
 * at start leaves none (config= XML: OpenSM as stock; partitions.conf:
 * OpenSM's default policy, see partitions.c).  Every error is logged with
 * file, line and object.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "partition/load.h"
#include "partition/sapolicy.h"
#include "partition/traffic.h"
#include "plugin/plugin.h"
#include "routing/log.h"

static void log_diag(const struct vf_diag *d)
{
	for (unsigned i = 0; i < d->n; i++) {
		if (d->v[i].level == VF_DIAG_ERROR)
			vf_log(VF_LOG_ERROR, "ERR VF0801: %s", d->v[i].text);
		else
			vf_log(VF_LOG_WARN, "config: %s", d->v[i].text);
	}
	if (d->oom)
		vf_log(VF_LOG_ERROR, "ERR VF0801: out of memory reading %s",
		       "the configuration");
}

const char *vf_plugin_config_source(const struct vf_plugin *p)
{
	return p->opts.config ? p->opts.config : p->user_partitions;
}

/*
 * A new config from path, or NULL: on errors (logged; *failed set) and for
 * a plain partitions.conf (*plain set).
 */
static struct vf_config *read_config(const char *path, bool *failed,
				     bool *plain)
{
	struct vf_config *c = malloc(sizeof(*c));
	struct vf_diag d = { 0 };
	bool vfabric;
	int rc;

	*failed = *plain = false;
	if (!c)
		return NULL;
	rc = vf_config_load(path, c, &d, &vfabric);
	/* a stock file too: the plugin gives it stock's meaning itself */
	*plain = false;
	*failed = rc != 0;
	if (!*plain)
		log_diag(&d);
	(void)vfabric;
	if (rc) {
		vf_config_free(c);
		free(c);
		c = NULL;
	} else {
		c->refs = 1;
	}
	vf_diag_free(&d);
	return c;
}

static bool changed(struct vf_plugin *p, const struct stat *st)
{
	return !p->config_stamp.seen ||
	       st->st_mtim.tv_sec != p->config_stamp.mtime.tv_sec ||
	       st->st_mtim.tv_nsec != p->config_stamp.mtime.tv_nsec ||
	       st->st_size != p->config_stamp.size ||
	       st->st_ino != p->config_stamp.ino;
}

static void remember(struct vf_plugin *p, const struct stat *st)
{
	p->config_stamp.seen = true;
	p->config_stamp.missing_logged = false;
	p->config_stamp.mtime = st->st_mtim;
	p->config_stamp.size = st->st_size;
	p->config_stamp.ino = st->st_ino;
}

/* A missing file: config= is an error; no partitions.conf is stock. */
static void missing(struct vf_plugin *p, const char *path)
{
	if (!p->opts.config) {
		vf_plugin_config_free(p);
		p->config_failed = false;
		p->config_stamp.seen = false;
		return;
	}
	if (!p->config_stamp.missing_logged)
		vf_log(VF_LOG_ERROR, "ERR VF0802: config %s cannot be read; %s",
		       path, p->config ? "keeping the last good configuration" :
		       "running without vFabric settings");
	p->config_stamp.missing_logged = true;
}

void vf_plugin_config_refresh(struct vf_plugin *p)
{
	const char *path = vf_plugin_config_source(p);
	struct vf_config *fresh;
	bool failed, plain;
	struct stat st;

	if (!path)
		return;
	if (stat(path, &st)) {
		missing(p, path);
		return;
	}
	if (!changed(p, &st))
		return;
	remember(p, &st);
	fresh = read_config(path, &failed, &plain);
	if (plain) {
		/* nothing of ours in it: OpenSM reads it as ever */
		vf_plugin_config_free(p);
		p->config_failed = false;
		vf_log(VF_LOG_INFO,
		       "%s has no vFabric statements: left to OpenSM", path);
		return;
	}
	if (!fresh) {
		p->config_failed = failed && !p->config;
		vf_log(VF_LOG_ERROR, "ERR VF0802: config %s has errors; %s",
		       path, p->config ? "keeping the last good configuration" :
		       p->opts.config ? "running without vFabric settings" :
		       "running with OpenSM's default partition policy");
		return;
	}
	vf_plugin_config_free(p);
	p->config = fresh;
	p->config_failed = false;
	{
		char vesws[48] = "";

		if (fresh->em.num_vesws)
			snprintf(vesws, sizeof(vesws),
				 ", %u virtual Ethernet switches",
				 fresh->em.num_vesws);
		vf_log(VF_LOG_INFO,
		       "config %s: %u applications, %u device groups, %u virtual fabrics%s",
		       path, vf_config_own_apps(fresh),
		       vf_config_own_dgs(fresh), fresh->num_vfs, vesws);
	}
}

void vf_plugin_config_free(struct vf_plugin *p)
{
	/* the SA's snapshot may hold it a while longer */
	vf_config_release(p->config);
	p->config = NULL;
}

/* The node of the SM's port in the model, or VF_NONE. */
static uint32_t sm_node(const struct vf_fabric *f, uint64_t port_guid)
{
	uint32_t port = vf_fabric_end_port(f, port_guid);

	return port == VF_NONE ? VF_NONE : f->ports[port].node;
}

/*
 * Partition-aware routing (partition_routing=, else the config's <Sm>
 * <PartitionRouting>): the virtual fabrics of the SA's snapshot, the one
 * the last heavy sweep planned, resolved on f into g->traffic.
 */
static void route_by_partitions(struct vf_plugin *p, const struct vf_fabric *f,
				uint32_t sm, struct vf_route_opts *o,
				struct vf_route_groups *g)
{
	struct vf_sa_policy *pol = vf_sa_policy_get(p);
	int mode = p->opts.partition_routing;

	if (mode < 0)
		mode = pol ? pol->config->partition_routing : -1;
	p->routing_policy = NULL;
	p->routing_mode = VF_PROUTE_OFF;
	if (mode <= VF_PROUTE_OFF || !pol) {
		vf_sa_policy_release(pol);
		return;
	}
	p->routing_policy = pol->config;
	p->routing_mode = mode;
	if (vf_traffic_build(pol->config, pol->vf_pkey, pol->config->num_vfs,
			     f, sm, &g->traffic)) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0809: out of memory resolving the virtual fabrics for routing; routing all-to-all");
	} else {
		o->traffic = &g->traffic;
		o->partition_routing = (enum vf_partition_routing)mode;
	}
	vf_sa_policy_release(pol);
}

void vf_plugin_route_opts(struct vf_plugin *p, const struct vf_fabric *f,
			  struct vf_route_opts *o, struct vf_route_groups *g)
{
	const struct vf_options *opt = &p->opts;
	uint64_t guid = cl_ntoh64(p->osm->subn.sm_port_guid);

	memset(g, 0, sizeof(*g));
	g->spine_first = -1;
	o->spine_first = opt->spine_first;
	if (p->config) {
		if (vf_route_groups_build(p->config, f, sm_node(f, guid), g))
			vf_log(VF_LOG_ERROR,
			       "ERR VF0803: out of memory resolving the config's routing device groups; not applied");
		vf_route_groups_apply(g, o);
	}
	/* what event_plugin_options sets wins over the file */
	if (opt->spine_first_given)
		o->spine_first = opt->spine_first;
	if (opt->core_switches.count)
		o->core_switches = (struct vf_guid_set){
			opt->core_switches.guids, opt->core_switches.count };
	if (opt->route_last.count)
		o->route_last = (struct vf_guid_set){
			opt->route_last.guids, opt->route_last.count };
	if (opt->num_routing_order) {
		o->routing_order = opt->routing_order;
		o->num_routing_order = opt->num_routing_order;
	}
	route_by_partitions(p, f, sm_node(f, guid), o, g);
}
