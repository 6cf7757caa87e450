// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The metrics file (metrics_file=): what the plugin already computes, as
 * Prometheus text exposition format for node_exporter's textfile
 * collector.  The collector reads the file whenever it is scraped, so it
 * is replaced atomically (PATH.tmp in the same directory, fsync, rename):
 * a scrape sees the last file or the new one, never half of one.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "partition/filewrite.h"
#include "plugin/metrics.h"
#include "common/log.h"

#define P "opensm_vfabric_"

struct vf_metrics {
	char *path;
	pthread_mutex_t write_lock;	/* one writer at a time: the sweeper
					 * and the EM's thread both write */
	pthread_mutex_t lock;		/* everything below but the atomics */
	bool failing;			/* the last write failed (logged) */
	double sweep_t0;		/* monotonic s; 0: no sweep under way */
	uint64_t sweeps;
	double sweep_seconds;
	double sweep_end;		/* wall clock, s */
	unsigned models, resolutions;	/* the last sweep's snapshot */
	char engine[64];		/* "" until the first routing */
	bool have_check;
	struct {
		uint64_t ca_pairs, ca_unreachable, sw_pairs, sw_unreachable;
		unsigned max_stretch;
		bool credit_loop;
		uint64_t load_max;
		double load_avg, load_ratio;
	} check;
	bool have_plan;
	unsigned dropped;
	bool have_pkeys;
	unsigned verified, mismatched;
	bool have_ar;
	unsigned ar[5];
	bool have_em;
	unsigned em[4];
	enum vf_metrics_config_source source;
	/* atomics */
	uint64_t config_errors;
	uint64_t answered[VF_MSA_NUM_ATTRS];
	uint64_t refused[VF_MSR_NUM_REASONS];
	uint64_t guarded[VF_MSG_NUM];
};

/* Label values, in the order of their enums. */
static const char *const attr_names[VF_MSA_NUM_ATTRS] = {
	"PathRecord", "MultiPathRecord", "SLtoVLMappingTableRecord",
	"LinearForwardingTableRecord",
};
static const char *const refusal_names[VF_MSR_NUM_REASONS] = {
	"busy", "bad_version", "unsupported_method", "invalid_request",
	"insufficient_components", "invalid_gid", "no_resources",
	"mcmember_policy", "service_policy", "other",
};
static const char *const guarded_names[VF_MSG_NUM] = {
	"port_beyond_switch", "switch_unrouted",
};
static const char *const source_names[VF_MCS_NUM] = {
	"opensm", "file", "last_good", "fallback_deny", "fallback_open",
};
static const char *const ar_names[5] = {
	"programmed", "unchanged", "incapable", "failed", "other_key",
};
static const char *const em_names[4] = {
	"configured", "unchanged", "no_endpoint", "failed",
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct vf_metrics *vf_metrics_create(const char *path)
{
	struct vf_metrics *m;

	if (!path)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (m)
		m->path = strdup(path);
	if (!m || !m->path) {
		free(m);
		vf_log(VF_LOG_ERROR,
		       "ERR VF0126: out of memory for metrics_file; no metrics are written");
		return NULL;
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->write_lock, NULL);
	return m;
}

void vf_metrics_destroy(struct vf_metrics *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->write_lock);
	free(m->path);
	free(m);
}

void vf_metrics_sweep_start(struct vf_metrics *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->sweep_t0 = mono_s();
	m->have_plan = m->have_pkeys = false;
	pthread_mutex_unlock(&m->lock);
}

void vf_metrics_routing(struct vf_metrics *m, const char *engine)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	snprintf(m->engine, sizeof(m->engine), "%s",
		 engine ? engine : "unknown");
	m->have_check = false;	/* until this routing's check */
	pthread_mutex_unlock(&m->lock);
}

void vf_metrics_route_check(struct vf_metrics *m,
			    const struct vf_route_report *r)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->have_check = true;
	m->check.ca_pairs = r->ca_pairs;
	m->check.ca_unreachable = r->ca_unreachable;
	m->check.sw_pairs = r->sw_pairs;
	m->check.sw_unreachable = r->sw_unreachable;
	m->check.max_stretch = r->max_stretch;
	m->check.credit_loop = r->credit_loop;
	m->check.load_max = r->load_max;
	m->check.load_avg = r->load_avg;
	m->check.load_ratio = r->load_max_over_avg;
	pthread_mutex_unlock(&m->lock);
}

void vf_metrics_plan(struct vf_metrics *m, unsigned dropped)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->have_plan = true;
	m->dropped = dropped;
	pthread_mutex_unlock(&m->lock);
}

void vf_metrics_pkeys(struct vf_metrics *m, unsigned verified,
		      unsigned mismatched)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->have_pkeys = true;
	m->verified = verified;
	m->mismatched = mismatched;
	pthread_mutex_unlock(&m->lock);
}

void vf_metrics_ar(struct vf_metrics *m, unsigned programmed,
		   unsigned unchanged, unsigned incapable, unsigned failed,
		   unsigned locked)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->have_ar = true;
	m->ar[0] = programmed;
	m->ar[1] = unchanged;
	m->ar[2] = incapable;
	m->ar[3] = failed;
	m->ar[4] = locked;
	pthread_mutex_unlock(&m->lock);
}

bool vf_metrics_em(struct vf_metrics *m, unsigned configured,
		   unsigned unchanged, unsigned absent, unsigned failed)
{
	unsigned v[4] = { configured, unchanged, absent, failed };
	bool changed;

	if (!m)
		return false;
	pthread_mutex_lock(&m->lock);
	changed = !m->have_em || memcmp(v, m->em, sizeof(v));
	m->have_em = true;
	memcpy(m->em, v, sizeof(v));
	pthread_mutex_unlock(&m->lock);
	return changed;
}

void vf_metrics_config_error(struct vf_metrics *m)
{
	if (m)
		__atomic_add_fetch(&m->config_errors, 1, __ATOMIC_RELAXED);
}

void vf_metrics_config_source(struct vf_metrics *m,
			      enum vf_metrics_config_source s)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->source = s;
	pthread_mutex_unlock(&m->lock);
}

void vf_metrics_sa_answered(struct vf_metrics *m, enum vf_metrics_sa_attr a)
{
	if (m)
		__atomic_add_fetch(&m->answered[a], 1, __ATOMIC_RELAXED);
}

void vf_metrics_sa_refused(struct vf_metrics *m,
			   enum vf_metrics_sa_refusal r)
{
	if (m)
		__atomic_add_fetch(&m->refused[r], 1, __ATOMIC_RELAXED);
}

void vf_metrics_sa_guarded(struct vf_metrics *m,
			   enum vf_metrics_sa_guarded g)
{
	if (m)
		__atomic_add_fetch(&m->guarded[g], 1, __ATOMIC_RELAXED);
}

void vf_metrics_snapshot(struct vf_metrics *m, unsigned models,
			 unsigned resolutions)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->models = models;
	m->resolutions = resolutions;
	pthread_mutex_unlock(&m->lock);
}

void vf_metrics_subnet_up(struct vf_metrics *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	if (m->sweep_t0) {
		m->sweep_seconds = mono_s() - m->sweep_t0;
		m->sweep_t0 = 0;
		m->sweeps++;
		m->sweep_end = (double)time(NULL);
	}
	pthread_mutex_unlock(&m->lock);
}

/* --- the text --- */

struct text {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void add(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	while (!t->failed) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if ((size_t)n < t->cap - t->len) {
			t->len += n;
			return;
		}
		size_t cap = 2 * t->cap + n + 1;
		char *grown = realloc(t->buf, cap);

		if (!grown) {
			t->failed = true;
			return;
		}
		t->buf = grown;
		t->cap = cap;
	}
}

/* Every family opens with its HELP and TYPE lines (the format's rule). */
static void family(struct text *t, const char *name, const char *type,
		   const char *help)
{
	add(t, "# HELP " P "%s %s\n# TYPE " P "%s %s\n", name, help, name,
	    type);
}

static void sample_u(struct text *t, const char *name, uint64_t v)
{
	add(t, P "%s %llu\n", name, (unsigned long long)v);
}

static void sample_d(struct text *t, const char *name, double v)
{
	/* fixed point: %g would cut a Unix timestamp to whole minutes */
	add(t, P "%s %.6f\n", name, v);
}

static void one_u(struct text *t, const char *name, const char *type,
		  const char *help, uint64_t v)
{
	family(t, name, type, help);
	sample_u(t, name, v);
}

static void one_d(struct text *t, const char *name, const char *help,
		  double v)
{
	family(t, name, "gauge", help);
	sample_d(t, name, v);
}

/* A label value with \, " and newline escaped, as the format wants. */
static void add_label(struct text *t, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			add(t, "\\%c", *v);
		else if (*v == '\n')
			add(t, "\\n");
		else
			add(t, "%c", *v);
	}
}

/* One counter or gauge family with a series per label value. */
static void labelled(struct text *t, const char *name, const char *type,
		     const char *help, const char *label,
		     const char *const *values, const uint64_t *v, unsigned n,
		     bool atomic)
{
	family(t, name, type, help);
	for (unsigned i = 0; i < n; i++)
		add(t, P "%s{%s=\"%s\"} %llu\n", name, label, values[i],
		    (unsigned long long)(atomic ?
		    __atomic_load_n(&v[i], __ATOMIC_RELAXED) : v[i]));
}

/* Under m->lock. */
static void format_sweep(struct text *t, const struct vf_metrics *m)
{
	one_u(t, "sweeps_total", "counter",
	      "Heavy sweeps that reached SUBNET UP since OpenSM started.",
	      m->sweeps);
	if (m->sweeps) {
		one_d(t, "last_sweep_duration_seconds",
		      "Time from the start of the last heavy sweep to SUBNET UP.",
		      m->sweep_seconds);
		one_d(t, "last_sweep_timestamp_seconds",
		      "When the last heavy sweep reached SUBNET UP (Unix time).",
		      m->sweep_end);
		one_u(t, "last_sweep_fabric_models", "gauge",
		      "Fabric models the last sweep built (1; 2 when the subnet changed between discovery and routing).",
		      m->models);
		one_u(t, "last_sweep_group_resolutions", "gauge",
		      "Times the last sweep resolved the configuration's DeviceGroups (1 when something needed them, else 0; more when its model was built again).",
		      m->resolutions);
	}
	if (m->engine[0]) {
		family(t, "routing_engine_info", "gauge",
		       "The routing engine that built the last unicast routing (ours or OpenSM's).");
		add(t, P "routing_engine_info{engine=\"");
		add_label(t, m->engine);
		add(t, "\"} 1\n");
	}
}

static void format_check(struct text *t, const struct vf_metrics *m)
{
	if (!m->have_check)
		return;
	one_u(t, "route_check_ca_pairs", "gauge",
	      "CA port to CA LID pairs the last route check walked.",
	      m->check.ca_pairs);
	one_u(t, "route_check_unreachable_ca_pairs", "gauge",
	      "CA pairs the last routing does not connect.",
	      m->check.ca_unreachable);
	one_u(t, "route_check_switch_pairs", "gauge",
	      "Pairs with a switch at either end the last route check walked.",
	      m->check.sw_pairs);
	one_u(t, "route_check_unreachable_switch_pairs", "gauge",
	      "Pairs with a switch at either end the last routing does not connect.",
	      m->check.sw_unreachable);
	one_u(t, "route_check_max_stretch_hops", "gauge",
	      "Most hops a route of the last routing takes beyond the shortest path.",
	      m->check.max_stretch);
	one_u(t, "route_check_credit_loops", "gauge",
	      "1 when the last routing's data traffic has a credit loop (the check stops at the first), else 0.",
	      m->check.credit_loop);
	one_u(t, "link_load_max_routes", "gauge",
	      "All-to-all CA routes on the busiest directed inter-switch link.",
	      m->check.load_max);
	one_d(t, "link_load_avg_routes",
	      "All-to-all CA routes per directed inter-switch link, on average.",
	      m->check.load_avg);
	one_d(t, "link_load_max_over_avg_ratio",
	      "Busiest link's load over the average (1 is perfectly even).",
	      m->check.load_ratio);
}

static void format_policy(struct text *t, const struct vf_metrics *m)
{
	uint64_t v[5];

	if (m->have_plan)
		one_u(t, "pkey_memberships_dropped", "gauge",
		      "Partition memberships the last plan dropped because a port's P_Key table is full.",
		      m->dropped);
	if (m->have_pkeys) {
		one_u(t, "pkey_ports_verified", "gauge",
		      "End ports whose P_Key table matched the plan at the last SUBNET UP.",
		      m->verified);
		one_u(t, "pkey_ports_mismatched", "gauge",
		      "End ports whose P_Key table differed from the plan at the last SUBNET UP.",
		      m->mismatched);
	}
	if (m->have_ar) {
		for (unsigned i = 0; i < 5; i++)
			v[i] = m->ar[i];
		labelled(t, "ar_switches", "gauge",
			 "Switches by what the last adaptive routing pass did to them.",
			 "state", ar_names, v, 5, false);
	}
	if (m->have_em) {
		for (unsigned i = 0; i < 4; i++)
			v[i] = m->em[i];
		labelled(t, "em_vports", "gauge",
			 "vESW member vports by the last Ethernet Manager pass: configured (set now), unchanged (already so), no_endpoint, failed.",
			 "state", em_names, v, 4, false);
	}
	one_u(t, "config_errors_total", "counter",
	      "Times a vFabric configuration file was refused (broken, unreadable, unsafe).",
	      __atomic_load_n(&m->config_errors, __ATOMIC_RELAXED));
	family(t, "config_source", "gauge",
	       "1 for where the policy in use comes from: file, last_good (the file is bad), fallback_deny/fallback_open (on_config_error), opensm (no vFabric configuration).");
	for (unsigned i = 0; i < VF_MCS_NUM; i++)
		add(t, P "config_source{source=\"%s\"} %d\n", source_names[i],
		    m->source == i);
}

static void format_sa(struct text *t, struct vf_metrics *m)
{
	labelled(t, "sa_requests_answered_total", "counter",
		 "SA requests the plugin answered itself, by attribute.",
		 "attribute", attr_names, m->answered, VF_MSA_NUM_ATTRS, true);
	labelled(t, "sa_requests_refused_total", "counter",
		 "SA requests the plugin answered with an error status, by reason.",
		 "reason", refusal_names, m->refused, VF_MSR_NUM_REASONS, true);
	labelled(t, "sa_requests_guarded_total", "counter",
		 "SA requests that would crash OpenSM 3.3.23's own handler, answered safely by the plugin.",
		 "reason", guarded_names, m->guarded, VF_MSG_NUM, true);
}

char *vf_metrics_format(struct vf_metrics *m)
{
	struct text t = { .buf = malloc(4096), .cap = 4096 };

	if (!m || !t.buf) {
		free(t.buf);
		return NULL;
	}
	t.buf[0] = '\0';
	pthread_mutex_lock(&m->lock);
	format_sweep(&t, m);
	format_check(&t, m);
	format_policy(&t, m);
	pthread_mutex_unlock(&m->lock);
	format_sa(&t, m);
	if (t.failed) {
		free(t.buf);
		return NULL;
	}
	return t.buf;
}

int vf_metrics_write(struct vf_metrics *m)
{
	char *text;
	int rc;

	if (!m)
		return 0;
	pthread_mutex_lock(&m->write_lock);
	text = vf_metrics_format(m);
	rc = text ? vf_file_replace(m->path, text, strlen(text)) : -ENOMEM;
	if (rc && !m->failing)
		vf_log(VF_LOG_ERROR,
		       "ERR VF0120: cannot write metrics_file %s: %s; trying again after the next sweep",
		       m->path, strerror(-rc));
	else if (!rc && m->failing)
		vf_log(VF_LOG_INFO, "metrics: %s written again", m->path);
	m->failing = rc != 0;
	pthread_mutex_unlock(&m->write_lock);
	free(text);
	return rc;
}
