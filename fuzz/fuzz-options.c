// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * OpenSM's event_plugin_options line (plugin/options.c), parsed on top of
 * the defaults and then again on top of itself (a SIGHUP re-read).
 */
#include <stdlib.h>
#include <string.h>

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

/*
 * No value of a *_key= setting survives in the line the plugin logs: in
 * each blank-separated setting whose name (before its first '=') ends in
 * "_key", the value is the mark.
 */
static void check_redacted(const char *text)
{
	char *shown = vf_options_redacted(text), *save = NULL, *tok;

	if (!shown)
		return;
	for (tok = strtok_r(shown, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq || eq - tok < 4 || strncmp(eq - 4, "_key", 4))
			continue;
		VF_FUZZ_CHECK(!strcmp(eq + 1, "<hidden>"),
			      "a key's value is logged: %.60s", tok);
	}
	free(shown);
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
	vf_options_free(&o);
	free(text);
	return 0;
}
