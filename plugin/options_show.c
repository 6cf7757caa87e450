// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The plugin's effective settings as one line of key=value pairs, every
 * setting with the value in force (defaults included), for the log at
 * start: what the admin wrote is not always what runs (a bad value keeps
 * the default, "-" means the vFabric file's <Sm> section decides).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/pathsel.h"
#include "plugin/options.h"
#include "routing/tenancy.h"

struct line {
	char *buf;
	size_t len, cap;
	int failed;
};

static void add(struct line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->failed)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(l->buf + l->len, l->cap - l->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			l->failed = 1;
			return;
		}
		if ((size_t)n < l->cap - l->len)
			break;
		size_t cap = 2 * l->cap + n + 1;
		char *grown = realloc(l->buf, cap);

		if (!grown) {
			l->failed = 1;
			return;
		}
		l->buf = grown;
		l->cap = cap;
	}
	l->len += n;
}

static const char *on_off(bool v)
{
	return v ? "on" : "off";
}

/* -1 (not given: the config's <Sm> decides) or on/off */
static const char *tristate(int v)
{
	return v < 0 ? "-" : v ? "on" : "off";
}

static void add_guids(struct line *l, const char *key,
		      const struct vf_guid_list *g)
{
	add(l, " %s=", key);
	if (!g->count)
		add(l, "-");
	for (unsigned i = 0; i < g->count; i++)
		add(l, "%s0x%llx", i ? "," : "",
		    (unsigned long long)g->guids[i]);
}

static void add_dg(struct line *l, const struct vf_dg_def *d)
{
	unsigned items = 0;

	add(l, " dg_%s=", d->name);
	for (unsigned i = 0; i < d->guids.count; i++, items++)
		add(l, "%s0x%llx", items ? "," : "",
		    (unsigned long long)d->guids.guids[i]);
	for (unsigned i = 0; i < d->num_patterns; i++, items++)
		add(l, "%sdesc:%s", items ? "," : "", d->patterns[i]);
}

/* A key is never shown: only whether it is random, given or in a file. */
static const char *key_source(uint64_t key, const char *file)
{
	return file ? "<file>" : key ? "<hidden>" : "<random>";
}

char *vf_options_describe(const struct vf_options *o)
{
	static const char *const levels[] = { "error", "warn", "info",
					      "debug" };
	static const char *const on_error[] = { "last-good", "deny", "open" };
	static const char *const algorithms[] = { "random", "greedy",
						  "greedyrandom" };
	struct line l = { .buf = malloc(512), .cap = 512 };

	if (!l.buf)
		return NULL;
	l.buf[0] = '\0';

	add(&l, "log_level=%s check_routes=%s spine_first=%s",
	    levels[o->log_level], on_off(o->check_routes),
	    on_off(o->spine_first));
	add(&l, " config=%s config_poll=%u config_settle=%u on_config_error=%s",
	    o->config ? o->config : "-", o->config_poll, o->config_settle,
	    on_error[o->on_config_error]);
	add(&l, " disconnect_unconfigured=%s loop_fallback=%s route_stability=%s hop_matrices=%s",
	    on_off(o->disconnect_unconfigured), on_off(o->loop_fallback),
	    on_off(o->route_stability), o->opensm_hops ? "opensm" : "plugin");
	if (o->vl_layers)
		add(&l, " vl_layers=%u", o->vl_layers);
	else
		add(&l, " vl_layers=off");
	add_guids(&l, "core_switches", &o->core_switches);
	add_guids(&l, "route_last", &o->route_last);
	for (unsigned i = 0; i < o->num_dgs; i++)
		add_dg(&l, &o->dgs[i]);
	add(&l, " routing_order=%s", o->order_text ? o->order_text : "-");
	add(&l, " path_selection=%s partition_routing=%s",
	    o->path_selection < 0 ? "-" :
	    vf_path_selection_name(o->path_selection),
	    o->partition_routing < 0 ? "-" :
	    vf_partition_routing_name(o->partition_routing));
	add(&l, " sa_log=%s sa_record_budget=%u", on_off(o->sa_log),
	    o->sa_record_budget);
	add(&l, " em_key=%s em_key_file=%s em_key_lease=%u",
	    key_source(o->em_key, o->em_key_file),
	    o->em_key_file ? o->em_key_file : "-", o->em_key_lease);
	add(&l, " ar_enable=%s ar_fine_grained=%s ar_lost_route_only=%s",
	    tristate(o->ar_enable), tristate(o->ar_fine_grained),
	    tristate(o->ar_lost_route_only));
	add(&l, " ar_algorithm=%s", o->ar_algorithm < 0 ? "-" :
	    algorithms[o->ar_algorithm]);
	if (o->ar_frequency < 0)
		add(&l, " ar_frequency=-");
	else
		add(&l, " ar_frequency=%d", o->ar_frequency);
	if (o->ar_threshold < 0)
		add(&l, " ar_threshold=-");
	else
		add(&l, " ar_threshold=%d", o->ar_threshold);
	add(&l, " ar_key=%s ar_key_file=%s ar_key_lease=%u",
	    key_source(o->ar_key, o->ar_key_file),
	    o->ar_key_file ? o->ar_key_file : "-", o->ar_key_lease);
	add(&l, " metrics_file=%s", o->metrics_file ? o->metrics_file : "-");
	if (l.failed) {
		free(l.buf);
		return NULL;
	}
	return l.buf;
}
