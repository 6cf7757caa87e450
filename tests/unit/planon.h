/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The unit tests' one-shot plan: c resolved on f (the SM on sm_port, or
 * VF_NONE), then planned, as the plugin's heavy sweep does.
 */
#ifndef VF_TEST_PLANON_H
#define VF_TEST_PLANON_H

#include <string.h>

#include "partition/plan.h"
#include "partition/resolution.h"

static inline int plan_on(const struct vf_config *c, const struct vf_fabric *f,
			  uint32_t sm_port, const struct vf_plan_opts *o,
			  struct vf_assignment *a, struct vf_plan *p,
			  struct vf_diag *d)
{
	struct vf_resolution r;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = vf_resolve(&r, c, f, sm_port);
	if (!rc)
		rc = vf_plan_build(&r, o, a, p, d);
	vf_resolution_free(&r);
	return rc;
}

#endif /* VF_TEST_PLANON_H */
