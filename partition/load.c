// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "partition/load.h"
#include "partition/pconf.h"
#include "partition/qos.h"
#include "partition/xmlconf.h"

/*
 * The first character that is not blank, or EOF; -errno if unreadable.
 * A UTF-8 byte-order mark (editors on other systems write one) is
 * skipped: an XML file that starts with one is still XML (libxml2 reads
 * the mark itself).
 */
static int first_char(const char *path)
{
	static const unsigned char bom[] = { 0xef, 0xbb, 0xbf };
	FILE *f = fopen(path, "r");
	unsigned i = 0;
	int ch;

	if (!f)
		return -errno;
	while (i < sizeof(bom) && (ch = fgetc(f)) == bom[i])
		i++;
	if (i < sizeof(bom))
		rewind(f);
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
	/* all problems in one pass: the cross-object rules, and what a
	 * sweep would refuse (SLs, P_Keys, bandwidth) */
	vf_config_validate(c, d);
	vf_qos_check(c, d);
	return d->errors || d->oom ? 1 : 0;
}
