// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * OpenSM's event_plugin_options line (plugin/options.c), parsed on top of
 * the defaults and then again on top of itself (a SIGHUP re-read).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz/fuzz.h"
#include "plugin/options.h"

static void check(const struct vf_options *o)
{
	VF_FUZZ_CHECK(o->num_order_names <= VF_DG_MAX_ORDER &&
		      o->num_routing_order <= o->num_order_names,
		      "routing order %u names, %u resolved",
		      o->num_order_names, o->num_routing_order);
	for (unsigned i = 0; i < o->num_dgs; i++) {
		const struct vf_guid_list *g = &o->dgs[i].guids;

		VF_FUZZ_CHECK(o->dgs[i].name && *o->dgs[i].name,
			      "device group %u has no name", i);
		for (unsigned j = 1; j < g->count; j++)
			VF_FUZZ_CHECK(g->guids[j - 1] <= g->guids[j],
				      "dg_%s GUIDs not sorted", o->dgs[i].name);
	}
}

/* Does the name of n characters end in "_key", any case? */
static bool ends_key(const char *t, size_t n)
{
	return n >= 4 && !strncasecmp(t + n - 4, "_key", 4);
}

/* Does t hold "_key" (any case) not followed by '=', '_' or a letter or
 * digit: a key named with something else than '=' after it? */
static bool names_key(const char *t, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i++) {
		if (strncasecmp(t + i, "_key", 4))
			continue;
		if (i + 4 == n)
			return true;
		char c = t[i + 4];

		if (c != '=' && c != '_' && !(c >= '0' && c <= '9') &&
		    !((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
			return true;
	}
	return false;
}

/*
 * No key's value survives in the line the plugin logs.  A model of the
 * rule, token by token (blank-separated, as the parser reads them): a
 * token whose name (before its first '=') ends in "_key", any case, or
 * that names a key another way ("em_key:0x1"), or one after "x_key=" or
 * "x_key" (a blank typed by mistake around the '='), or after a lone
 * "=" (or "==...") that was itself hidden (blanks on both sides of the
 * '='), is shown as its name and '=' (if it has a key's name) and the
 * mark; every other token as it is.
 */
static void check_redacted(const char *text)
{
	static const char mark[] = "<hidden>";
	char *shown = vf_options_redacted(text);
	const char *t = text, *o = shown, *prev = NULL;
	size_t prev_len = 0;
	bool prev_hidden = false;

	if (!shown)
		return;
	for (;;) {
		size_t tl, ol, keep;
		const char *eq;
		bool secret;

		t += strspn(t, " \t\r\n");
		o += strspn(o, " \t\r\n");
		tl = strcspn(t, " \t\r\n");
		ol = strcspn(o, " \t\r\n");
		if (!tl) {
			VF_FUZZ_CHECK(!ol, "a token added: %.40s", o);
			break;
		}
		eq = memchr(t, '=', tl);
		keep = eq && ends_key(t, (size_t)(eq - t)) ?
		       (size_t)(eq - t) + 1 : 0;
		secret = keep || (!eq && ends_key(t, tl)) ||
			 names_key(t, tl) ||
			 (prev && (ends_key(prev, prev_len) ||
				   (prev[prev_len - 1] == '=' &&
				    ends_key(prev, prev_len - 1)) ||
				   (prev_hidden &&
				    strspn(prev, "=") >= prev_len)));
		if (secret)
			VF_FUZZ_CHECK(ol == keep + sizeof(mark) - 1 &&
				      !memcmp(o, t, keep) &&
				      !memcmp(o + keep, mark, sizeof(mark) - 1),
				      "a key's value is logged: %.60s", o);
		else
			VF_FUZZ_CHECK(ol == tl && !memcmp(o, t, tl),
				      "a setting changed: %.40s", t);
		prev = t;
		prev_len = tl;
		prev_hidden = secret;
		t += tl;
		o += ol;
	}
	free(shown);
}

/* A value the described line shows as "not set": it cannot round-trip. */
static bool looks_unset(const char *v)
{
	return v && !strcmp(v, "-");
}

/*
 * The effective settings the plugin logs at start say what runs: parsed
 * on the defaults, without what the line does not show (unset "-" values,
 * the two keys), they describe the same settings.
 */
static void check_described(const struct vf_options *o)
{
	char *line = vf_options_describe(o), *copy, *again;
	char *tok, *save = NULL, *shown;
	struct vf_options back;

	if (!line || looks_unset(o->config) || looks_unset(o->order_text) ||
	    looks_unset(o->ar_key_file) || looks_unset(o->em_key_file)) {
		free(line);
		return;
	}
	vf_options_default(&back);
	copy = strdup(line);
	shown = calloc(1, strlen(line) + 2);
	for (tok = copy && shown ? strtok_r(copy, " ", &save) : NULL; tok;
	     tok = strtok_r(NULL, " ", &save)) {
		const char *val = strchr(tok, '=');

		/* the parser takes settings of up to 1023 characters */
		if (strlen(tok) > 1023)
			goto out;
		if (val && (!strcmp(val + 1, "-") ||
			    !strncmp(tok, "em_key=", 7) ||
			    !strncmp(tok, "ar_key=", 7)))
			continue;
		strcat(strcat(shown, tok), " ");
	}
	if (shown) {
		/* a bad value would keep a default: the lines then differ */
		vf_options_parse(&back, shown);
		back.ar_key = o->ar_key;
		back.em_key = o->em_key;
		again = vf_options_describe(&back);
		VF_FUZZ_CHECK(!again || !strcmp(line, again),
			      "described settings differ after a round trip:\n%.300s\n%.300s",
			      line, again);
		free(again);
	}
out:
	vf_options_free(&back);
	free(shown);
	free(copy);
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = vf_fuzz_string(data, size);
	struct vf_options o;

	check_redacted(text);
	vf_log_set_level(VF_LOG_ERROR);
	vf_log_set_sink(NULL, NULL);
	vf_options_default(&o);
	vf_options_parse(&o, text);
	check(&o);
	vf_options_parse(&o, text);
	check(&o);
	check_described(&o);
	vf_options_free(&o);
	free(text);
	return 0;
}
