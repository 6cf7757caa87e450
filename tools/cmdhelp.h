/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * TOOL COMMAND --help for vfabric, vfabric-sa and vfabric-em: the
 * command's own entry of the tool's usage text.  An entry is the line
 * "  NAME ..." (two spaces, the name, a space or the line's end) and the
 * indented lines after it, up to the next such line or a blank one.
 */
#ifndef VF_SIM_CMDHELP_H
#define VF_SIM_CMDHELP_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Does a command's argument list (argv[0] the command) ask for help,
 * -h or --help before any "--"? */
static inline bool vf_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

/* Print "usage: TOOL " and NAME's entry of usage to stdout. */
static inline void vf_command_help(const char *usage, const char *tool,
				   const char *name)
{
	const char *p = usage;
	size_t n = strlen(name);
	bool in = false;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) + 1 : strlen(p);

		if (len > 3 && p[0] == ' ' && p[1] == ' ' && p[2] != ' ') {
			in = len > n + 2 && !strncmp(p + 2, name, n) &&
			     (p[2 + n] == ' ' || p[2 + n] == '\n');
			if (in) {
				printf("usage: %s %.*s", tool, (int)(len - 2),
				       p + 2);
				p += len;
				continue;
			}
		} else if (len == 1) {
			in = false;
		}
		if (in)
			fwrite(p, 1, len, stdout);
		p += len;
	}
}

#endif
