// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * event_plugin_options parsing.  Pure C (no OpenSM headers), so the unit
 * tests link it directly.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/ndpattern.h"
#include "options.h"
#include "partition/pathsel.h"
#include "routing/tenancy.h"
#include "routing/vllayers.h"

static void dg_def_free(struct vf_dg_def *d)
{
	free(d->name);
	free(d->guids.guids);
	for (unsigned i = 0; i < d->num_patterns; i++) {
		free(d->patterns[i]);
		vf_ndpat_free(d->compiled[i]);
	}
	free(d->patterns);
	free(d->compiled);
	memset(d, 0, sizeof(*d));
}

void vf_options_free(struct vf_options *o)
{
	free(o->config);
	o->config = NULL;
	free(o->ar_key_file);
	free(o->em_key_file);
	o->ar_key_file = o->em_key_file = NULL;
	free(o->metrics_file);
	o->metrics_file = NULL;
	free(o->core_switches.guids);
	free(o->route_last.guids);
	o->core_switches.guids = o->route_last.guids = NULL;
	o->core_switches.count = o->route_last.count = 0;
	for (unsigned i = 0; i < o->num_dgs; i++)
		dg_def_free(&o->dgs[i]);
	free(o->dgs);
	o->dgs = NULL;
	o->num_dgs = 0;
	free(o->order_text);
	o->order_text = NULL;
	o->num_order_names = 0;
	o->num_routing_order = 0;
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
	memset(o, 0, sizeof(*o));
	o->log_level = VF_LOG_INFO;
	o->check_routes = true;
	o->spine_first = true;
	o->loop_fallback = true;
	o->vl_layers = VF_VL_LAYERS_DEFAULT;
	o->route_stability = true;
	o->config_poll = 5;
	o->config_settle = 2;
	o->sa_record_budget = VF_SA_RECORD_BUDGET;
	o->em_key_lease = VF_EM_KEY_LEASE;
	o->on_config_error = VF_ON_ERROR_LAST_GOOD;
	o->path_selection = -1;
	o->partition_routing = -1;
	o->ar_enable = o->ar_fine_grained = o->ar_lost_route_only = -1;
	o->ar_algorithm = o->ar_frequency = o->ar_threshold = -1;
	o->ar_key_lease = VF_AR_KEY_LEASE_S;
}

static int parse_ar_algorithm(const char *v, int *out)
{
	static const char *const names[] = { "random", "greedy",
					     "greedyrandom" };

	for (int i = 0; i < 3; i++) {
		if (!strcasecmp(v, names[i])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

/* 0-7 (ARFrequency, Threshold). */
static int parse_0_7(const char *v, int *out)
{
	if (v[0] < '0' || v[0] > '7' || v[1])
		return -1;
	*out = v[0] - '0';
	return 0;
}

/* vl_layers=N (1-15) or off */
static int parse_vl_layers(const char *v, unsigned *out)
{
	char *end;
	unsigned long n;

	if (!strcmp(v, "off")) {
		*out = 0;
		return 0;
	}
	n = strtoul(v, &end, 10);
	if (!*v || *end || *v == '-' || n < 1 || n > VF_LAYERS_MAX)
		return -1;
	*out = (unsigned)n;
	return 0;
}

static int parse_path_selection(const char *v, int *out)
{
	int sel = vf_path_selection_parse(v);

	if (sel < 0)
		return -1;
	*out = sel;
	return 0;
}

/* Group names end up between ':' in routing_order and in log lines. */
static bool good_dg_name(const char *name)
{
	if (!*name)
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-.", *p))
			return false;
	return true;
}

/*
 * One item of a dg_ list (len bytes at item) into d; 0 or -errno, and for
 * a pattern that does not compile, why (size bytes) says so.
 */
static int add_dg_item(struct vf_dg_def *d, const char *item, size_t len,
		       char *why, size_t size)
{
	char *text = strndup(item, len), *end, err[96];
	uint64_t guid;
	int rc;

	if (!text)
		return -ENOMEM;
	if (!strncmp(text, "desc:", 5)) {
		memmove(text, text + 5, len - 4);
		rc = vf_ndpat_compile(text, &d->compiled[d->num_patterns], err,
				      sizeof(err));
		if (rc) {
			if (rc == -EINVAL)
				snprintf(why, size, "NodeDesc pattern '%.32s': %.96s",
					 text, err);
			free(text);
			return rc;
		}
		d->patterns[d->num_patterns++] = text;
		return 0;
	}
	errno = 0;
	guid = strtoull(text, &end, 0);
	if (errno || end == text || *end || !guid) {
		free(text);
		return -EINVAL;
	}
	free(text);
	d->guids.guids[d->guids.count++] = guid;
	return 0;
}

/* Parse "item,item,..." into d (zeroed by the caller); 0 or -errno. */
static int parse_dg_items(const char *items, struct vf_dg_def *d,
			  char *why, size_t size)
{
	unsigned n = 1;
	int rc = 0;

	for (const char *p = items; *p; p++)
		n += *p == ',';
	d->guids.guids = calloc(n, sizeof(*d->guids.guids));
	d->patterns = calloc(n, sizeof(*d->patterns));
	d->compiled = calloc(n, sizeof(*d->compiled));
	if (!d->guids.guids || !d->patterns || !d->compiled)
		return -ENOMEM;
	while (!rc) {
		size_t len = strcspn(items, ",");

		rc = len ? add_dg_item(d, items, len, why, size) : -EINVAL;
		if (!items[len])
			break;
		items += len + 1;
	}
	if (!rc)
		qsort(d->guids.guids, d->guids.count,
		      sizeof(*d->guids.guids), cmp_u64);
	return rc;
}

static struct vf_dg_def *find_dg(struct vf_options *o, const char *name)
{
	for (unsigned i = 0; i < o->num_dgs; i++)
		if (!strcmp(o->dgs[i].name, name))
			return &o->dgs[i];
	return NULL;
}

int vf_options_set_dg(struct vf_options *o, const char *name,
		      const char *items)
{
	struct vf_dg_def d = { 0 }, *old, *grown;
	int rc;

	o->dg_why[0] = '\0';
	if (!good_dg_name(name))
		return -EINVAL;
	d.name = strdup(name);
	rc = d.name ? parse_dg_items(items, &d, o->dg_why, sizeof(o->dg_why)) :
		      -ENOMEM;
	if (rc) {
		dg_def_free(&d);
		return rc;
	}
	/* the resolved order may point into the group replaced here */
	o->num_routing_order = 0;
	old = find_dg(o, name);
	if (old) {
		dg_def_free(old);
		*old = d;
		return 0;
	}
	grown = realloc(o->dgs, (o->num_dgs + 1) * sizeof(*o->dgs));
	if (!grown) {
		dg_def_free(&d);
		return -ENOMEM;
	}
	o->dgs = grown;
	o->dgs[o->num_dgs++] = d;
	return 0;
}

int vf_options_set_routing_order(struct vf_options *o, const char *names)
{
	char *text = strdup(names), *s;
	const char *list[VF_DG_MAX_ORDER];
	unsigned n = 0;

	if (!text)
		return -ENOMEM;
	for (s = text; s; n++) {
		char *colon = strchr(s, ':');

		if (colon)
			*colon = '\0';
		if (n == VF_DG_MAX_ORDER || !*s)
			goto bad;
		for (unsigned i = 0; i < n; i++)
			if (!strcmp(list[i], s))
				goto bad;
		list[n] = s;
		s = colon ? colon + 1 : NULL;
	}
	free(o->order_text);
	o->order_text = text;
	memcpy(o->order_names, list, n * sizeof(*list));
	o->num_order_names = n;
	o->num_routing_order = 0;
	return 0;
bad:
	free(text);
	return -EINVAL;
}

int vf_options_resolve_order(struct vf_options *o, const char **unknown)
{
	o->num_routing_order = 0;
	for (unsigned i = 0; i < o->num_order_names; i++) {
		const struct vf_dg_def *d = find_dg(o, o->order_names[i]);

		if (!d) {
			*unknown = o->order_names[i];
			return -ENOENT;
		}
		o->routing_order[i] = (struct vf_devgroup) {
			.name = d->name,
			.guids = { d->guids.guids, d->guids.count },
			.desc_patterns =
				(const struct vf_ndpat *const *)d->compiled,
			.num_patterns = d->num_patterns,
		};
	}
	o->num_routing_order = o->num_order_names;
	return 0;
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

/* A bool into an int that stays -1 ("not given") until set. */
static int parse_tristate(const char *v, int *out)
{
	bool b;

	if (parse_bool(v, &b))
		return -1;
	*out = b;
	return 0;
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

static int parse_on_error(const char *v, enum vf_on_config_error *out)
{
	static const char *const names[] = { "last-good", "deny", "open" };

	for (unsigned i = 0; i < 3; i++) {
		if (!strcasecmp(v, names[i])) {
			*out = (enum vf_on_config_error)i;
			return 0;
		}
	}
	return -1;
}

/* hop_matrices=plugin|opensm: who builds the min-hop matrices. */
static int parse_hop_matrices(const char *v, bool *opensm)
{
	if (!strcasecmp(v, "plugin"))
		*opensm = false;
	else if (!strcasecmp(v, "opensm"))
		*opensm = true;
	else
		return -1;
	return 0;
}

/* 0-3600 seconds. */
static int parse_seconds(const char *v, unsigned *out)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);

	if (!*v || *end || n > 3600)
		return -1;
	*out = (unsigned)n;
	return 0;
}

/* 0-60 seconds. */
static int parse_settle(const char *v, unsigned *out)
{
	unsigned n;

	if (parse_seconds(v, &n) || n > 60)
		return -1;
	*out = n;
	return 0;
}

/* 0 (no limit) to 2^31 records a second. */
static int parse_budget(const char *v, unsigned *out)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);

	if (!*v || *end || *v == '-' || n > 1ul << 31)
		return -1;
	*out = (unsigned)n;
	return 0;
}

/* Does the name of n characters end in "_key", any case: a secret. */
static bool key_name(const char *name, size_t n)
{
	return n >= 4 && !strncasecmp(name + n - 4, "_key", 4);
}

/* A secret: its value is never logged. */
static bool is_key(const char *name)
{
	return key_name(name, strlen(name));
}

/*
 * Does tok name a key with something other than '=' after the name, as
 * in "em_key:0x..." typed for "em_key=0x..."?  "_key" followed by a
 * character that cannot continue a name ("ar_key_file" is no key).
 */
static bool mentions_key(const char *tok, size_t len)
{
	for (size_t i = 0; i + 4 <= len; i++)
		if (!strncasecmp(tok + i, "_key", 4) &&
		    (i + 4 == len || (tok[i + 4] != '=' && tok[i + 4] != '_' &&
				      !isalnum((unsigned char)tok[i + 4]))))
			return true;
	return false;
}

/* Is tok all '=' (a blank typed on both sides of one)? */
static bool only_equals(const char *tok, size_t len)
{
	return len && strspn(tok, "=") >= len;
}

/*
 * Tokens read one after the other, blank-separated: is this one a key's
 * value, which no log may show?  Its own name ends in _key or names one
 * (mentions_key); or it follows "x_key=" with nothing after the '=' (a
 * blank typed after it), "x_key" (a blank before the '='), or a lone "="
 * that itself followed one of those.
 */
struct secret_scan {
	const char *prev;	/* the token before, NULL at the start */
	size_t prev_len;
	bool prev_secret;
};

static bool secret_next(struct secret_scan *sc, const char *tok, size_t len)
{
	const char *eq = memchr(tok, '=', len);
	const char *p = sc->prev;
	size_t n = sc->prev_len;
	bool secret = key_name(tok, eq ? (size_t)(eq - tok) : len) ||
		      mentions_key(tok, len) ||
		      (p && n && (key_name(p, n) ||
				  (p[n - 1] == '=' && key_name(p, n - 1)) ||
				  (sc->prev_secret && only_equals(p, n))));

	sc->prev = tok;
	sc->prev_len = len;
	sc->prev_secret = secret;
	return secret;
}

/* A 64-bit key in hex, 0x optional. */
static int parse_key(const char *v, uint64_t *out)
{
	char *end;
	unsigned long long n;

	if (!strncmp(v, "0x", 2) || !strncmp(v, "0X", 2))
		v += 2;
	if (!*v || strlen(v) > 16 || strspn(v, "0123456789abcdefABCDEF") !=
	    strlen(v))
		return -1;
	n = strtoull(v, &end, 16);
	if (*end)
		return -1;
	*out = n;
	return 0;
}

/* em_key_lease=, ar_key_lease=SECONDS: 0-65535, the 16 bits of
 * EMKeyInfo and ARKeyInfo. */
static int parse_lease(const char *v, unsigned *out)
{
	unsigned n;

	if (parse_budget(v, &n) || n > UINT16_MAX)
		return -1;
	*out = n;
	return 0;
}

char *vf_options_redacted(const char *text)
{
	static const char hidden[] = "<hidden>";
	const char *t = text;
	struct secret_scan sc = { 0 };
	char *out, *o;

	if (!text)
		return NULL;
	/* at most every character a token: room for a mark each */
	out = malloc(strlen(text) * sizeof(hidden) + 1);
	if (!out)
		return NULL;
	o = out;
	while (*t) {
		size_t blank = strspn(t, " \t\r\n"), len;
		const char *eq;

		memcpy(o, t, blank);
		o += blank;
		t += blank;
		len = strcspn(t, " \t\r\n");
		if (!len)
			break;
		eq = memchr(t, '=', len);
		if (!secret_next(&sc, t, len)) {
			memcpy(o, t, len);
			o += len;
		} else {
			/* a name=value keeps its name: the mark says where */
			size_t keep = eq && key_name(t, (size_t)(eq - t)) ?
				      (size_t)(eq - t) + 1 : 0;

			memcpy(o, t, keep);
			o += keep;
			memcpy(o, hidden, sizeof(hidden) - 1);
			o += sizeof(hidden) - 1;
		}
		t += len;
	}
	*o = '\0';
	return out;
}

/* A file's path (absolute: OpenSM may run from anywhere). */
static int set_path(char **where, const char *path)
{
	char *copy = path[0] == '/' ? strdup(path) : NULL;

	if (!copy)
		return -1;
	free(*where);
	*where = copy;
	return 0;
}

static int set_config(struct vf_options *o, const char *path)
{
	char *copy = *path ? strdup(path) : NULL;

	if (!copy)
		return -1;
	free(o->config);
	o->config = copy;
	return 0;
}

/* Apply one key=value; 0, or -1 after logging what is wrong. */
static int apply(struct vf_options *o, const char *key, const char *val)
{
	int rc = -1;

	if (!strcmp(key, "log_level"))
		rc = parse_level(val, &o->log_level);
	else if (!strcmp(key, "check_routes"))
		rc = parse_bool(val, &o->check_routes);
	else if (!strcmp(key, "spine_first")) {
		rc = parse_bool(val, &o->spine_first);
		o->spine_first_given |= !rc;
	} else if (!strcmp(key, "config"))
		rc = set_config(o, val);
	else if (!strcmp(key, "config_poll"))
		rc = parse_seconds(val, &o->config_poll);
	else if (!strcmp(key, "config_settle"))
		rc = parse_settle(val, &o->config_settle);
	else if (!strcmp(key, "on_config_error"))
		rc = parse_on_error(val, &o->on_config_error);
	else if (!strcmp(key, "disconnect_unconfigured"))
		rc = parse_bool(val, &o->disconnect_unconfigured);
	else if (!strcmp(key, "loop_fallback"))
		rc = parse_bool(val, &o->loop_fallback);
	else if (!strcmp(key, "vl_layers"))
		rc = parse_vl_layers(val, &o->vl_layers);
	else if (!strcmp(key, "route_stability"))
		rc = parse_bool(val, &o->route_stability);
	else if (!strcmp(key, "hop_matrices"))
		rc = parse_hop_matrices(val, &o->opensm_hops);
	else if (!strcmp(key, "core_switches"))
		rc = vf_options_parse_guids(val, &o->core_switches);
	else if (!strcmp(key, "route_last"))
		rc = vf_options_parse_guids(val, &o->route_last);
	else if (!strncmp(key, "dg_", 3))
		rc = vf_options_set_dg(o, key + 3, val);
	else if (!strcmp(key, "routing_order"))
		rc = vf_options_set_routing_order(o, val);
	else if (!strcmp(key, "partition_routing"))
		rc = (o->partition_routing =
		      vf_partition_routing_parse(val)) < 0 ? -1 : 0;
	else if (!strcmp(key, "sa_log"))
		rc = parse_bool(val, &o->sa_log);
	else if (!strcmp(key, "sa_record_budget"))
		rc = parse_budget(val, &o->sa_record_budget);
	else if (!strcmp(key, "em_key"))
		rc = parse_key(val, &o->em_key);
	else if (!strcmp(key, "em_key_lease"))
		rc = parse_lease(val, &o->em_key_lease);
	else if (!strcmp(key, "path_selection"))
		rc = parse_path_selection(val, &o->path_selection);
	else if (!strcmp(key, "ar_enable"))
		rc = parse_tristate(val, &o->ar_enable);
	else if (!strcmp(key, "ar_fine_grained"))
		rc = parse_tristate(val, &o->ar_fine_grained);
	else if (!strcmp(key, "ar_lost_route_only"))
		rc = parse_tristate(val, &o->ar_lost_route_only);
	else if (!strcmp(key, "ar_algorithm"))
		rc = parse_ar_algorithm(val, &o->ar_algorithm);
	else if (!strcmp(key, "ar_frequency"))
		rc = parse_0_7(val, &o->ar_frequency);
	else if (!strcmp(key, "ar_threshold"))
		rc = parse_0_7(val, &o->ar_threshold);
	else if (!strcmp(key, "ar_key"))
		rc = parse_key(val, &o->ar_key);
	else if (!strcmp(key, "ar_key_lease"))
		rc = parse_lease(val, &o->ar_key_lease);
	else if (!strcmp(key, "ar_key_file"))
		rc = set_path(&o->ar_key_file, val);
	else if (!strcmp(key, "em_key_file"))
		rc = set_path(&o->em_key_file, val);
	else if (!strcmp(key, "metrics_file"))
		rc = set_path(&o->metrics_file, val);
	else {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0102: event_plugin_options: unknown setting '%s' (known: config, config_poll, config_settle, on_config_error, disconnect_unconfigured, log_level, check_routes, spine_first, loop_fallback, vl_layers, route_stability, hop_matrices, core_switches, route_last, dg_<name>, routing_order, path_selection, partition_routing, sa_log, sa_record_budget, em_key, em_key_lease, em_key_file, ar_enable, ar_fine_grained, ar_lost_route_only, ar_algorithm, ar_frequency, ar_threshold, ar_key, ar_key_lease, ar_key_file, metrics_file); ignored",
		       key);
		return -1;
	}
	if (rc)
		vf_log(VF_LOG_ERROR,
		       "ERR VF0102: event_plugin_options: bad value '%s' for %s; default kept%s%s%s",
		       is_key(key) ? "<hidden>" : val, key,
		       is_key(key) ? " (want 1-16 hex digits; 0 = a random key)" :
		       "",
		       !strncmp(key, "dg_", 3) && o->dg_why[0] ? ": " : "",
		       !strncmp(key, "dg_", 3) ? o->dg_why : "");
	return rc;
}

/*
 * After a whole line, as the groups may follow the order.  An order that
 * names an undefined group is dropped, so that it is reported once.
 */
static int resolve_order(struct vf_options *o)
{
	const char *unknown;

	if (!vf_options_resolve_order(o, &unknown))
		return 0;
	vf_log(VF_LOG_ERROR,
	       "ERR VF0102: event_plugin_options: routing_order: no device group '%s' (define it with dg_%s=...); routing order not applied",
	       unknown, unknown);
	free(o->order_text);
	o->order_text = NULL;
	o->num_order_names = 0;
	return -1;
}

unsigned vf_options_parse(struct vf_options *o, const char *text)
{
	unsigned problems = 0;
	const char *s = text;
	struct secret_scan sc = { 0 };		/* a key's value may follow */

	while (s && *s) {
		char tok[1024], *eq;
		size_t len;
		bool hide;

		while (isspace((unsigned char)*s))
			s++;
		len = strcspn(s, " \t\r\n");
		if (!len)
			break;
		if (len >= sizeof(tok)) {
			vf_log(VF_LOG_ERROR,
			       "ERR VF0102: event_plugin_options: setting too long at '%.20s...'; ignored",
			       secret_next(&sc, s, len) ? "<hidden>" : s);
			problems++;
			s += len;
			continue;
		}
		memcpy(tok, s, len);
		tok[len] = '\0';
		s += len;
		hide = secret_next(&sc, s - len, len);
		eq = strchr(tok, '=');
		if (!eq || eq == tok) {
			vf_log(VF_LOG_ERROR,
			       "ERR VF0102: event_plugin_options: '%s' is not key=value; ignored",
			       hide ? "<hidden>" : tok);
			problems++;
			continue;
		}
		*eq = '\0';
		problems += apply(o, tok, eq + 1) != 0;
	}
	return problems + !!resolve_order(o);
}
