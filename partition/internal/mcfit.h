/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Whether the FM would create a <MulticastGroup> in its VF
 * (checkMC_VFProperties and MatchExplicitMGIDtoVF, fm_xml.c; reference/
 * opa-fm.md 1.8): a group the FM disables is not created here either.
 */
#ifndef VF_MCFIT_H
#define VF_MCFIT_H

#include <stddef.h>

#include "partition/config.h"

/*
 * Why the FM would not create group g in VF v, written to buf (returned),
 * or NULL when it would.  pkey and sl are the VF's P_Key and base SL when
 * known (assigned at plan time), -1 when not: what depends on them is
 * then not judged.
 */
const char *vf_mcgroup_unfit(const struct vf_config *c,
			     const struct vf_mcgroup *g,
			     const struct vf_cfg_vf *v, int pkey, int sl,
			     char *buf, size_t size);

#endif /* VF_MCFIT_H */
