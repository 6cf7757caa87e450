/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The opafm.xml front-end: reads <Applications>, <DeviceGroups>,
 * <QOSGroups>, <VirtualFabrics> and the routing elements of <Sm>
 * (RoutingAlgorithm, SpineFirstRouting, FatTreeTopology,
 * DGShortestPathTopology) from <Config><Common> and the first <Fm>, so an
 * administrator's existing file loads unchanged.  Elements we do not
 * support are warned about by name and line and skipped.
 */
#ifndef VF_XMLCONF_H
#define VF_XMLCONF_H

#include <stddef.h>

#include "partition/config.h"
#include "partition/diag.h"

/*
 * Add the definitions in path to c.  Every problem goes to d as an error
 * or a warning naming file, line and object; the caller decides what the
 * errors mean (vf_config_validate() adds the cross-object checks).
 * Returns 0, or -errno when the file cannot be read at all (also in d).
 */
int vf_xml_load(const char *path, struct vf_config *c, struct vf_diag *d);
/* The same from the text of file name, already read (len bytes). */
int vf_xml_load_mem(const char *name, const char *buf, size_t len,
		    struct vf_config *c, struct vf_diag *d);

#endif /* VF_XMLCONF_H */
