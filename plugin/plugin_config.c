// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Where the vFabric configuration comes from: the file named by config=
 * in event_plugin_options (either syntax), else OpenSM's own
 * partition_config_file, stock or with vFabric statements: every
 * partitions file is read by the plugin and applied through the file it
 * generates, so that no file OpenSM would misread ever reaches it.
 *
 * A version of the file is used only when it is whole and good:
 *
 * - read safely (partition/load.c: a regular file only, never blocking on
 *   a FIFO, at most 16 MiB, unchanged while read);
 * - settled: unchanged for config_settle seconds (by its modification
 *   time, or by our own looks when that time is in the future), so that a
 *   file caught while an editor or a copy is writing it is not taken for
 *   the new policy even when the part written so far happens to be valid.
 *   A heavy sweep (HEAVY_SWEEP_DONE: no lock held) waits for that, a few
 *   seconds at most; the routing callback (under OpenSM's lock) never
 *   waits, and the config_poll thread asks for a sweep once it is time;
 * - valid as a whole.
 *
 * Anything else (missing, a directory, a FIFO, empty, cut, broken) changes
 * nothing: the configuration in use stays, and the fault is logged once
 * per version of the file (ERR VF0801 per error with file and line, then
 * one ERR VF0802 saying what is kept), not on every sweep.  Each good
 * version is also kept in the cache directory; at start, a file that
 * cannot be used gives what on_config_error says: that last good copy
 * (the default), else every end port a limited member of the default
 * partition (deny), or OpenSM's default policy (open).
 */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "partition/filewrite.h"
#include "partition/load.h"
#include "partition/sapolicy.h"
#include "partition/vftraffic.h"
#include "plugin/metrics.h"
#include "plugin/plugin.h"
#include "common/log.h"

#define LAST_GOOD_FILE "opensm-vfabric.last-good"
#define LAST_GOOD_SOURCE "opensm-vfabric.last-good.source"
#define START_WAIT_MS 15000.0	/* at most, for a file to settle at start */

/*
 * Every diagnostic of a file read, in the log; errors reach standard error
 * through the log sink, and the warnings go there too, as the journal is
 * where an admin looks: they often say why (a mistyped element).  Said
 * once per version of the file.
 */
static void log_diag(const struct vf_diag *d)
{
	for (unsigned i = 0; i < d->n; i++) {
		if (d->v[i].level == VF_DIAG_ERROR) {
			vf_log(VF_LOG_ERROR, "ERR VF0801: %s", d->v[i].text);
			continue;
		}
		vf_log(VF_LOG_WARN, "config: %s", d->v[i].text);
		fprintf(stderr, "opensm-vfabric: warning: config: %s\n",
			d->v[i].text);
	}
	if (d->dropped)
		vf_log(VF_LOG_ERROR, "ERR VF0801: ... and %u more messages (%u errors in all)",
		       d->dropped, d->errors);
	if (d->oom)
		vf_log(VF_LOG_ERROR, "ERR VF0813: out of memory reading %s",
		       "the configuration");
}

/* The first error of d, for the one-line summary. */
static const char *first_error(const struct vf_diag *d)
{
	for (unsigned i = 0; i < d->n; i++)
		if (d->v[i].level == VF_DIAG_ERROR)
			return d->v[i].text;
	return d->oom ? "out of memory" : "cannot be used";
}

const char *vf_plugin_config_source(const struct vf_plugin *p)
{
	return p->opts.config ? p->opts.config : p->user_partitions;
}

static double realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void stamp_of(struct vf_file_stamp *s, const struct stat *st, int err)
{
	memset(s, 0, sizeof(*s));
	s->err = err;
	if (!st || !st->st_mode)
		return;
	s->dev = st->st_dev;
	s->ino = st->st_ino;
	s->size = st->st_size;
	s->mtime = st->st_mtim;
	s->mode = st->st_mode;
}

static bool stamp_eq(const struct vf_file_stamp *a,
		     const struct vf_file_stamp *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec && a->mode == b->mode &&
	       a->err == b->err;
}

/* Ask the config_poll thread for a heavy sweep in ms milliseconds. */
static void retry_in(struct vf_plugin *p, double ms)
{
	int64_t at = (int64_t)(vf_now_ms() + ms) + 1;

	__atomic_store_n(&p->config_retry_ms, at, __ATOMIC_RELEASE);
}

/*
 * How long (ms) until this version has stayed as it is for config_settle
 * seconds; 0 when it has.  By its modification time, or, when that is in
 * the future (clock skew, a copy keeping times), since we first saw it.
 */
static double unsettled_for(struct vf_plugin *p, const struct vf_file_stamp *s)
{
	double settle = p->opts.config_settle * 1e3, now = vf_now_ms();
	double age = realtime_ms() - (s->mtime.tv_sec * 1e3 +
				      s->mtime.tv_nsec / 1e6);
	double seen;

	if (!stamp_eq(s, &p->cfg.settling)) {
		p->cfg.settling = *s;
		p->cfg.settling_since = now;
	}
	seen = now - p->cfg.settling_since;
	if (age >= settle || seen >= settle)
		return 0;
	return settle - (age > seen ? age : seen);
}

/* "PATH (read at TIME)" into p->config_from. */
static void set_from(struct vf_plugin *p, const char *what, const char *path,
		     time_t when)
{
	char at[32] = "?";
	struct tm tm;

	if (localtime_r(&when, &tm))
		strftime(at, sizeof(at), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(p->config_from, sizeof(p->config_from), "%s%s, %s %s",
		 what, path, what[0] ? "saved" : "read", at);
}

/* c, read from file name, is the configuration from now on. */
static void use_config(struct vf_plugin *p, const char *name,
		       struct vf_config *c, bool stock)
{
	char vesws[48] = "";

	vf_plugin_config_free(p);
	p->config = c;
	p->config_stock = stock;
	p->config_last_good = false;
	p->fallback = VF_FALLBACK_NONE;
	if (c->em.num_vesws)
		snprintf(vesws, sizeof(vesws), ", %u virtual Ethernet switches",
			 c->em.num_vesws);
	vf_log(VF_LOG_INFO,
	       "config %s: %u applications, %u device groups, %u virtual fabrics%s%s (%s)",
	       name, vf_config_own_apps(c), vf_config_own_dgs(c),
	       c->num_vfs, vesws, stock ? "; a stock partitions.conf" : "",
	       p->config_from);
}

/* A configuration from text, or NULL (errors in d). */
static struct vf_config *parse(const char *name, const char *text,
			       size_t len, struct vf_diag *d, bool *stock)
{
	struct vf_config *c = malloc(sizeof(*c));
	bool vfabric = true;
	int rc;

	if (!c) {
		d->oom = true;
		return NULL;
	}
	rc = vf_config_load_text(name, text, len, c, d, &vfabric);
	if (rc) {
		vf_config_free(c);
		free(c);
		return NULL;
	}
	c->refs = 1;
	*stock = !vfabric;
	return c;
}

/* FNV-1a over the copy: a copy cut or edited by hand is not trusted. */
static unsigned long long digest(const char *text, size_t len)
{
	unsigned long long h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
	return h;
}

/*
 * Keep the good text, and where it came from with its length and digest,
 * for a start without it.
 */
static void save_last_good(const char *path, const char *text, size_t len)
{
	char file[4096], src[4096], about[4200];
	int rc, n;

	vf_cache_path(file, sizeof(file), LAST_GOOD_FILE);
	vf_cache_path(src, sizeof(src), LAST_GOOD_SOURCE);
	n = snprintf(about, sizeof(about), "%.4000s\n%zu %016llx\n", path,
		     len, digest(text, len));
	rc = vf_file_replace(file, text, len);
	if (!rc)
		rc = vf_file_replace(src, about, (size_t)n);
	if (rc)
		vf_log(VF_LOG_ERROR,
		       "ERR VF0810: cannot keep the last good configuration in %s: %s; a start with a broken file would not find it",
		       file, strerror(-rc));
}

/* The copy kept by save_last_good(), into p; false when none is usable. */
static bool load_last_good(struct vf_plugin *p, char *why, size_t size)
{
	char file[4096], src[4096] = "?";
	unsigned long long sum = 0;
	struct vf_config_file f;
	struct vf_diag d = { 0 };
	struct vf_config *c;
	bool stock = false, known = false;
	size_t len = 0;
	FILE *in;

	vf_cache_path(file, sizeof(file), LAST_GOOD_FILE);
	vf_cache_path(src, sizeof(src), LAST_GOOD_SOURCE);
	in = fopen(src, "r");
	if (!in || !fgets(src, sizeof(src), in))
		snprintf(src, sizeof(src), "?");
	src[strcspn(src, "\n")] = '\0';
	known = in && fscanf(in, "%zu %llx", &len, &sum) == 2;
	if (in)
		fclose(in);
	if (vf_config_read(file, &f, &d)) {
		snprintf(why, size, "no last good configuration in %.500s",
			 file);
		vf_diag_free(&d);
		return false;
	}
	if (!known || len != f.len || sum != digest(f.text, f.len)) {
		/* cut, edited by hand or from elsewhere: not what we kept */
		snprintf(why, size,
			 "the last good copy %.500s is not the one kept (%zu bytes, %s)",
			 file, f.len, known ? "its length or digest differs" :
			 "no length and digest beside it");
		vf_log(VF_LOG_ERROR, "ERR VF0811: %s", why);
		vf_config_file_free(&f);
		vf_diag_free(&d);
		return false;
	}
	c = parse(file, f.text, f.len, &d, &stock);
	vf_config_file_free(&f);
	if (!c) {
		snprintf(why, size, "the last good copy cannot be used: %s",
			 first_error(&d));
		vf_log(VF_LOG_ERROR, "ERR VF0811: %s", why);
		vf_diag_free(&d);
		return false;
	}
	vf_diag_free(&d);
	set_from(p, "the last good copy of ", src, f.st.st_mtim.tv_sec);
	snprintf(p->config_from + strlen(p->config_from),
		 sizeof(p->config_from) - strlen(p->config_from), " (%s)",
		 file);
	use_config(p, file, c, stock);
	p->config_last_good = true;
	return true;
}

/*
 * The file cannot be used.  Later: keep what is in use.  At start (no
 * configuration yet): what on_config_error says.  One summary line.
 */
static void refuse(struct vf_plugin *p, const char *path,
		   const struct vf_diag *d)
{
	static const char *const mode[] = { "last-good", "deny", "open" };
	enum vf_on_config_error on = p->opts.on_config_error;
	const char *what = first_error(d);
	char why[600] = "";

	log_diag(d);
	vf_metrics_config_error(p->metrics);
	if (p->config) {
		p->config_last_good = true;
		vf_log(VF_LOG_ERROR,
		       "ERR VF0802: %s; keeping the last good configuration (%s)",
		       what, p->config_from);
		return;
	}
	if (p->cfg.started || p->fallback != VF_FALLBACK_NONE) {
		vf_log(VF_LOG_ERROR, "ERR VF0802: %s; keeping %s", what,
		       p->fallback == VF_FALLBACK_DENY ?
		       "tenants apart (every end port a limited member of the default partition)" :
		       p->fallback == VF_FALLBACK_OPEN ?
		       "OpenSM's default policy" :
		       "the partitions as they are");
		return;
	}
	if (on == VF_ON_ERROR_LAST_GOOD && load_last_good(p, why, sizeof(why))) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0802: %s; using %s (on_config_error=last-good)",
		       what, p->config_from);
		return;
	}
	p->fallback = on == VF_ON_ERROR_OPEN ? VF_FALLBACK_OPEN :
					       VF_FALLBACK_DENY;
	vf_log(VF_LOG_ERROR, "ERR VF0802: %s; %s%s%s (on_config_error=%s)",
	       what, why, why[0] ? "; " : "",
	       on == VF_ON_ERROR_OPEN ?
	       "OpenSM's default policy: every port a full member of the default partition" :
	       "tenants apart: every end port a limited member of the default partition, the SM's port and switch port 0s full",
	       mode[on]);
}

/* Does c isolate anything: an enabled VF (a partition, for a
 * partitions.conf)? */
static bool isolates(const struct vf_config *c)
{
	for (unsigned i = 0; c && i < c->num_vfs; i++)
		if (c->vfs[i].enable)
			return true;
	return false;
}

/*
 * Would a file without virtual fabrics drop a policy that isolates
 * tenants?  The one in use, or at start the last good copy.  Such a file
 * (a typo in <VirtualFabrics>, a stray <Config/>) would otherwise hand
 * every port to the default partition as a full member: refused.
 */
static bool drops_isolation(struct vf_plugin *p)
{
	char file[4096];
	struct vf_config_file f;
	struct vf_diag d = { 0 };
	struct vf_config *c;
	bool stock, yes;

	if (p->config || p->cfg.started)
		return isolates(p->config);
	vf_cache_path(file, sizeof(file), LAST_GOOD_FILE);
	if (vf_config_read(file, &f, &d)) {
		vf_diag_free(&d);
		return false;
	}
	c = parse(file, f.text, f.len, &d, &stock);
	yes = isolates(c);
	vf_config_release(c);
	vf_config_file_free(&f);
	vf_diag_free(&d);
	return yes;
}

/* Is path the file we generate (which cannot be its own source)? */
static bool is_generated(const struct vf_file_stamp *s)
{
	char gen[4096];
	struct stat st;

	vf_cache_path(gen, sizeof(gen), VF_PARTITIONS_FILE);
	return s->mode && !stat(gen, &st) && st.st_dev == s->dev &&
	       st.st_ino == s->ino;
}

/*
 * Look at the file; decide on a new version.  Returns 0, or how long (ms)
 * to wait before the version there can be read (it is being written).
 */
static double look(struct vf_plugin *p)
{
	const char *path = vf_plugin_config_source(p);
	struct vf_config_file f;
	struct vf_file_stamp s;
	struct vf_diag d = { 0 };
	struct vf_config *fresh;
	bool stock = false;
	double wait = 0;
	int rc;

	if (!path)
		return 0;
	/* the common case, on every sweep and routing: nothing changed */
	if (p->cfg.have_decided && !p->cfg.decided.err &&
	    !stat(path, &f.st)) {
		stamp_of(&s, &f.st, 0);
		if (stamp_eq(&s, &p->cfg.decided))
			return 0;
	}
	rc = vf_config_read(path, &f, &d);
	stamp_of(&s, &f.st, rc);
	if (rc == -EAGAIN) {
		wait = 200;	/* a writer at work: say nothing yet */
		goto out;
	}
	if (p->cfg.have_decided && stamp_eq(&s, &p->cfg.decided))
		goto out;	/* decided on already (and said so once) */
	if (!rc) {
		wait = unsettled_for(p, &s);
		if (wait)
			goto out;
	}
	p->cfg.decided = s;
	p->cfg.have_decided = true;
	if (rc == -ENOENT && !p->opts.config && !p->config &&
	    !p->cfg.started) {
		/*
		 * No partitions.conf at all at start: unless an earlier good
		 * one was kept, this is stock OpenSM's default, not a fault.
		 */
		char why[600];

		if (p->opts.on_config_error == VF_ON_ERROR_LAST_GOOD &&
		    load_last_good(p, why, sizeof(why)))
			vf_log(VF_LOG_ERROR,
			       "ERR VF0802: %s: %s; using %s (on_config_error=last-good)",
			       path, strerror(ENOENT), p->config_from);
		goto out;
	}
	if (!rc && is_generated(&s)) {
		struct vf_where at = { path, 0 };

		/* said once: each file we write there is a new version */
		if (p->cfg.self_source)
			goto out;
		p->cfg.self_source = true;
		vf_diag_add(&d, VF_DIAG_ERROR, &at,
			    "is the partitions file the plugin generates, not a policy (name the policy with config=)");
		refuse(p, path, &d);
		goto out;
	}
	if (rc) {
		refuse(p, path, &d);
		goto out;
	}
	fresh = parse(path, f.text, f.len, &d, &stock);
	if (!fresh) {
		refuse(p, path, &d);
		goto out;
	}
	if (!isolates(fresh) && drops_isolation(p)) {
		struct vf_where at = { path, 0 };

		vf_config_release(fresh);
		vf_diag_add(&d, VF_DIAG_ERROR, &at,
			    "defines no active VirtualFabric, while the policy in use keeps tenants apart (to hand the partitions back to OpenSM, remove config= and restart)");
		refuse(p, path, &d);
		goto out;
	}
	log_diag(&d);		/* the warnings */
	set_from(p, "", path, s.mtime.tv_sec);
	use_config(p, path, fresh, stock);
	save_last_good(path, f.text, f.len);
out:
	vf_config_file_free(&f);
	vf_diag_free(&d);
	return wait;
}

/*
 * Look, waiting up to max_ms for a file being written to settle; past
 * that, the config_poll thread is asked for a sweep when it should have.
 * Returns false when the file was left unread.
 */
static bool refresh(struct vf_plugin *p, double max_ms)
{
	double until = vf_now_ms() + max_ms, wait;

	while ((wait = look(p))) {
		struct timespec nap;

		if (vf_now_ms() + wait > until) {
			retry_in(p, wait);
			return false;
		}
		vf_log(VF_LOG_DEBUG,
		       "config: the file is being written; another look in %.0f ms",
		       wait);
		nap.tv_sec = (time_t)(wait / 1e3);
		nap.tv_nsec = (long)((wait - nap.tv_sec * 1e3) * 1e6);
		nanosleep(&nap, NULL);
	}
	return true;
}

void vf_plugin_config_refresh(struct vf_plugin *p)
{
	/* under OpenSM's lock, the SA waiting: never wait here */
	refresh(p, 0);
}

void vf_plugin_config_refresh_wait(struct vf_plugin *p)
{
	/* no lock held: a short wait delays this sweep only */
	refresh(p, 3e3 * p->opts.config_settle + 1e3);
}

void vf_plugin_config_start(struct vf_plugin *p)
{
	/*
	 * create() runs before the first sweep: waiting here for a file
	 * being written is cheaper than starting on the wrong policy.
	 */
	if (!refresh(p, START_WAIT_MS)) {
		struct vf_diag d = { 0 };
		struct vf_where at = { vf_plugin_config_source(p), 0 };

		vf_diag_add(&d, VF_DIAG_ERROR, &at,
			    "kept changing for 15 s");
		refuse(p, at.file, &d);
		vf_diag_free(&d);
	}
	p->cfg.started = true;
}

void vf_plugin_config_free(struct vf_plugin *p)
{
	/* the SA's snapshot may hold it a while longer */
	vf_config_release(p->config);
	p->config = NULL;
}

/*
 * Partition-aware routing (partition_routing=, else the config's <Sm>
 * <PartitionRouting>): the virtual fabrics of the SA's snapshot, the
 * policy in force (when this sweep's could not be planned, the last one
 * that was), resolved on the sweep's model into g->traffic.
 */
static void route_by_partitions(struct vf_plugin *p, struct vf_route_opts *o,
				struct vf_route_groups *g)
{
	struct vf_sa_policy *pol = vf_sa_policy_get(p);
	struct vf_resolution other = { 0 };
	const struct vf_resolution *r;
	int mode = p->opts.partition_routing;
	int rc;

	if (mode < 0)
		mode = pol ? pol->config->partition_routing : -1;
	p->routing_policy = 0;
	p->routing_mode = VF_PROUTE_OFF;
	if (mode <= VF_PROUTE_OFF || !pol) {
		vf_sa_policy_release(pol);
		return;
	}
	p->routing_policy = pol->config->generation;
	p->routing_mode = mode;
	r = vf_sweep_resolution(p, true);
	if (!r || r->config != pol->config) {
		struct vf_fabric *f = vf_sweep_fabric(p, true);

		r = f && !vf_resolve(&other, pol->config, f,
				     vf_fabric_end_port(f,
					cl_ntoh64(p->osm->subn.sm_port_guid))) ?
		    &other : NULL;
	}
	rc = r ? vf_traffic_build(r, pol->vf_pkey, pol->config->num_vfs,
				  &g->traffic) : -ENOMEM;
	if (rc) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0812: out of memory resolving the virtual fabrics for routing; routing all-to-all");
	} else {
		o->traffic = &g->traffic;
		o->partition_routing = (enum vf_partition_routing)mode;
	}
	vf_resolution_free(&other);
	vf_sa_policy_release(pol);
}

void vf_plugin_route_opts(struct vf_plugin *p, struct vf_route_opts *o,
			  struct vf_route_groups *g)
{
	const struct vf_options *opt = &p->opts;
	const struct vf_config *c = p->sweep.config;

	memset(g, 0, sizeof(*g));
	g->spine_first = -1;
	o->spine_first = opt->spine_first;
	if (c) {
		/* the groups are resolved only when the file names some */
		if (vf_route_groups_build(c, vf_route_groups_named(c) ?
					  vf_sweep_resolution(p, true) : NULL,
					  g))
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
	route_by_partitions(p, o, g);
}
