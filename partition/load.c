// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "partition/load.h"
#include "partition/pconf.h"
#include "partition/xmlconf.h"

/* The first character that is not blank, or EOF; -errno if unreadable. */
static int first_char(const char *path)
{
	FILE *f = fopen(path, "r");
	int ch;

	if (!f)
		return -errno;
	do
		ch = fgetc(f);
	while (ch != EOF && isspace(ch));
	fclose(f);
	return ch;
}

int vf_config_load(const char *path, struct vf_config *c, struct vf_diag *d,
		   bool *vfabric)
{
	int first = first_char(path), rc;

	vf_config_init(c);
	*vfabric = true;
	if (first < -1) {
		struct vf_where at = { path, 0 };

		vf_diag_add(d, VF_DIAG_ERROR, &at, "cannot be read: %s",
			    strerror(-first));
		return first;
	}
	rc = first == '<' ? vf_xml_load(path, c, d) :
			    vf_pconf_load(path, c, d, vfabric);
	if (rc)
		return rc;
	if (!d->errors)
		vf_config_validate(c, d);
	return d->errors || d->oom ? 1 : 0;
}
