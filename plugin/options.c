// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * event_plugin_options parsing.  Pure C (no OpenSM headers), so the unit
 * tests link it directly.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "options.h"

void vf_options_default(struct vf_options *o)
{
	o->log_level = VF_LOG_INFO;
	o->check_routes = true;
	o->spine_first = true;
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
	else {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0102: event_plugin_options: unknown setting '%s' (known: log_level, check_routes, spine_first); ignored",
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
