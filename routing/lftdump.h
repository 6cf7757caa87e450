/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * LFT dumps: OpenSM's opensm-lfts.dump format, and the output of
 * infiniband-diags' dump_fts / ibroute (which read the tables back from
 * the switches themselves).
 */
#ifndef VF_LFTDUMP_H
#define VF_LFTDUMP_H

#include <stdio.h>

#include "fabric.h"
#include "common/log.h"

/* Write every switch's LFT in opensm-lfts.dump format. */
int vf_lftdump_write(FILE *out, const struct vf_fabric *f,
		     const struct vf_lfts *t);
/*
 * Read a dump in either format into t (initialised here, sized to f).
 * Switches are matched to f by GUID; a switch or LID unknown to f is an
 * error naming path:line.  Switches absent from the dump keep all-drop rows.
 */
int vf_lftdump_load(const char *path, const struct vf_fabric *f,
		    struct vf_lfts *t, struct vf_err *err);
int vf_lftdump_read(FILE *in, const char *name, const struct vf_fabric *f,
		    struct vf_lfts *t, struct vf_err *err);

#endif /* VF_LFTDUMP_H */
