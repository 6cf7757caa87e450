/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * A partition plan as a plain OpenSM partitions.conf, the file OpenSM's
 * own partition manager reads on every heavy sweep: one line per
 * partition, members by port GUID.  Written atomically (tmp + rename), so
 * OpenSM never reads half a file; a half file would make it fall back to
 * its default partition and wipe the others.
 */
#ifndef VF_EMIT_H
#define VF_EMIT_H

#include <stdio.h>

#include "partition/plan.h"

/* Write p (of fabric f) as partitions.conf text; source names the input. */
void vf_emit_partitions(FILE *out, const struct vf_plan *p,
			const struct vf_fabric *f, const char *source);
/* The same into path, atomically; 0 or -errno. */
int vf_emit_partitions_file(const char *path, const struct vf_plan *p,
			    const struct vf_fabric *f, const char *source);

/*
 * OpenSM's default policy (every port a full member of 0x7fff, with its
 * IPoIB group: what OpenSM applies when its partitions.conf is broken),
 * written atomically into path; source names the broken file.
 */
int vf_emit_default_policy_file(const char *path, const char *source);
/*
 * The policy for a configuration that cannot be used, with nothing good
 * before it (on_config_error=deny): the tenants apart.  Every end port a
 * limited member of the default partition, which is what OpenSM makes of
 * a file that does not list it; the SM's port and every switch port 0
 * full.  0 or -errno.
 */
int vf_emit_deny_policy_file(const char *path, const char *source);

#endif /* VF_EMIT_H */
