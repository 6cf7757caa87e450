// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Warnings only a fabric shows (partition/isolation.h: groups and
 * NodeDesc patterns that select nothing, ports a shared P_Key lets reach
 * each other), logged on a heavy sweep when they differ from the last
 * ones logged: once per change of the configuration or the fabric, not
 * on every sweep.
 */
#include <opensm/osm_config.h>

#include "partition/isolation.h"
#include "plugin/plugin.h"
#include "common/log.h"

void vf_partitions_fabric_warnings(struct vf_plugin *p,
				   const struct vf_resolution *r)
{
	struct vf_diag d = { 0 };
	uint64_t sum = 14695981039346656037ull;	/* FNV-1a, 64 bits */

	if (vf_warn_fabric(r, &d)) {
		vf_diag_free(&d);
		return;		/* out of memory: the next sweep tries again */
	}
	for (unsigned i = 0; i < d.n; i++)
		for (const char *s = d.v[i].text; *s; s++)
			sum = (sum ^ (unsigned char)*s) * 1099511628211ull;
	if (sum != p->fabric_warn_sum) {
		p->fabric_warn_sum = sum;
		for (unsigned i = 0; i < d.n; i++)
			vf_log(VF_LOG_WARN, "partitions: %s", d.v[i].text);
	}
	vf_diag_free(&d);
}
