/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/* JSON output shared by the route checks and the CLI. */
#ifndef VF_JSONOUT_H
#define VF_JSONOUT_H

#include <stdio.h>

/*
 * str as a JSON string, quotes included.  NodeDescriptions are raw bytes:
 * quote and control characters are escaped and bytes that are not UTF-8
 * become \u00XX, so the output always parses.
 */
void vf_json_string(FILE *out, const char *str);

#endif /* VF_JSONOUT_H */
