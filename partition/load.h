/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * A vFabric configuration from a file in either syntax: opafm.xml-style
 * XML (the file starts with '<') or partitions.conf with vFabric
 * statements (anything else); loaded and validated.
 */
#ifndef VF_LOAD_H
#define VF_LOAD_H

#include <stdbool.h>

#include "partition/config.h"
#include "partition/diag.h"

/*
 * Load path into c (initialised here) and validate it.  *vfabric is false
 * for a partitions.conf that uses nothing beyond stock OpenSM (read with
 * stock OpenSM's exact meaning).  Returns 0 when c is usable (d may hold
 * warnings), 1 when d holds errors, -errno when path cannot be read.
 */
int vf_config_load(const char *path, struct vf_config *c, struct vf_diag *d,
		   bool *vfabric);

#endif /* VF_LOAD_H */
