// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * event_plugin_options parsing.  Pure C (no OpenSM headers), so the unit
 * tests link it directly.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "options.h"

void vf_options_free(struct vf_options *o)
{
	free(o->core_switches.guids);
	free(o->route_last.guids);
	o->core_switches.guids = o->route_last.guids = NULL;
	o->core_switches.count = o->route_last.count = 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int vf_options_parse_guids(const char *v, struct vf_guid_list *out)
{
	unsigned n = 1;
	uint64_t *g;
	char *end;

	for (const char *p = v; *p; p++)
		n += *p == ',';
	g = calloc(n, sizeof(*g));
	if (!g)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		errno = 0;
		g[i] = strtoull(v, &end, 0);
		if (errno || end == v || !g[i] || (*end && *end != ',')) {
			free(g);
			return -1;
		}
		v = end + 1;
	}
	qsort(g, n, sizeof(*g), cmp_u64);
	free(out->guids);
	out->guids = g;
	out->count = n;
	return 0;
}

void vf_options_default(struct vf_options *o)
{
	o->log_level = VF_LOG_INFO;
	o->check_routes = true;
	o->spine_first = true;
	o->core_switches.guids = o->route_last.guids = NULL;
	o->core_switches.count = o->route_last.count = 0;
}

static int parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };

	for (unsigned i = 0; i < 4; i++) {
		if (!strcasecmp(v, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(v, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

static int parse_level(const char *v, enum vf_log_level *out)
{
	static const char *const names[] = { "error", "warn", "info",
					     "debug" };

	for (unsigned i = 0; i < 4; i++) {
		if (!strcasecmp(v, names[i])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

/* Apply one key=value; 0, or -1 after logging what is wrong. */
static int apply(struct vf_options *o, const char *key, const char *val)
{
	int rc = -1;

	if (!strcmp(key, "log_level"))
		rc = parse_level(val, &o->log_level);
	else if (!strcmp(key, "check_routes"))
		rc = parse_bool(val, &o->check_routes);
	else if (!strcmp(key, "spine_first"))
		rc = parse_bool(val, &o->spine_first);
	else if (!strcmp(key, "core_switches"))
		rc = vf_options_parse_guids(val, &o->core_switches);
	else if (!strcmp(key, "route_last"))
		rc = vf_options_parse_guids(val, &o->route_last);
	else {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0102: event_plugin_options: unknown setting '%s' (known: log_level, check_routes, spine_first, core_switches, route_last); ignored",
		       key);
		return -1;
	}
	if (rc)
		vf_log(VF_LOG_ERROR,
		       "ERR VF0102: event_plugin_options: bad value '%s' for %s; default kept",
		       val, key);
	return rc;
}

unsigned vf_options_parse(struct vf_options *o, const char *text)
{
	unsigned problems = 0;
	const char *s = text;

	while (s && *s) {
		char tok[256], *eq;
		size_t len;

		while (isspace((unsigned char)*s))
			s++;
		len = strcspn(s, " \t\r\n");
		if (!len)
			break;
		if (len >= sizeof(tok)) {
			vf_log(VF_LOG_ERROR,
			       "ERR VF0102: event_plugin_options: setting too long at '%.20s...'; ignored",
			       s);
			problems++;
			s += len;
			continue;
		}
		memcpy(tok, s, len);
		tok[len] = '\0';
		s += len;
		eq = strchr(tok, '=');
		if (!eq || eq == tok) {
			vf_log(VF_LOG_ERROR,
			       "ERR VF0102: event_plugin_options: '%s' is not key=value; ignored",
			       tok);
			problems++;
			continue;
		}
		*eq = '\0';
		problems += apply(o, tok, eq + 1) != 0;
	}
	return problems;
}
