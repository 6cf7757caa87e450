/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The plugin's settings, from OpenSM's event_plugin_options line.
 *
 * OpenSM hands every plugin the same one-line string (no '#': it starts a
 * comment there), so settings are whitespace-separated key=value pairs:
 *
 *   event_plugin_options log_level=info check_routes=on
 */
#ifndef VF_OPTIONS_H
#define VF_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "routing/log.h"

/* A sorted list of NodeGUIDs or PortGUIDs, e.g. core_switches=0x..,0x.. */
struct vf_guid_list {
	uint64_t *guids;
	unsigned count;
};

struct vf_options {
	enum vf_log_level log_level;	/* log_level=error|warn|info|debug */
	bool check_routes;		/* check_routes=on|off */
	bool spine_first;		/* spine_first=on|off (SpineFirstRouting) */
	struct vf_guid_list core_switches;	/* fattree CoreSwitches */
	struct vf_guid_list route_last;	/* fattree RouteLast */
};

void vf_options_default(struct vf_options *o);
/*
 * "0x2c9...,0x2c9..." into a sorted list (replacing out's); -1 on a bad or
 * zero GUID, leaving out as it was.
 */
int vf_options_parse_guids(const char *v, struct vf_guid_list *out);
/* Free what parsing allocated (the GUID lists). */
void vf_options_free(struct vf_options *o);
/*
 * Apply text (may be NULL) on top of o.  Every bad or unknown setting is
 * logged with ERR VF0102 naming it and skipped, keeping the default.
 * Returns the number of such problems.
 */
unsigned vf_options_parse(struct vf_options *o, const char *text);

#endif /* VF_OPTIONS_H */
