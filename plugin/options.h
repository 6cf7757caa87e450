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

#include "routing/log.h"

struct vf_options {
	enum vf_log_level log_level;	/* log_level=error|warn|info|debug */
	bool check_routes;		/* check_routes=on|off */
	bool spine_first;		/* spine_first=on|off (SpineFirstRouting) */
};

void vf_options_default(struct vf_options *o);
/*
 * Apply text (may be NULL) on top of o.  Every bad or unknown setting is
 * logged with ERR VF0102 naming it and skipped, keeping the default.
 * Returns the number of such problems.
 */
unsigned vf_options_parse(struct vf_options *o, const char *text);

#endif /* VF_OPTIONS_H */
