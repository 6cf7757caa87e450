/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/* The vfabric CLI's vFabric configuration commands (see cfgcmd.c). */
#ifndef VF_CFGCMD_H
#define VF_CFGCMD_H

#include "partition/config.h"
#include "partition/plan.h"
#include "partition/resolution.h"
#include "routing/traffic.h"

/*
 * Load and validate the config file at path into c, printing every
 * diagnostic to stderr.  Returns 0 when it has no errors, else 1 (c then
 * holds what was read; free it either way).
 */
int vf_cli_load_config(const char *path, struct vf_config *c);

/*
 * A configuration on a net file as one sweep of the plugin sees it
 * (plugin/sweep.h, plugin/partitions.c): resolved once, then from that
 * resolution the fabric warnings and the plan, each when first asked for.
 */
struct vf_cli_sweep {
	const struct vf_config *c;
	const struct vf_fabric *f;
	uint32_t sm_port;		/* the SM's port slot, or VF_NONE */
	struct vf_plan_opts po;		/* OpenSM's options */
	struct vf_assignment *assign;	/* the P_Key cache, or NULL: afresh */
	bool warn;			/* print the fabric warnings too */
	bool quiet;			/* print no diagnostic of the plan */
	struct vf_resolution r;
	struct vf_plan plan;
	bool resolved, planned;
};
/* No SM port, no options, P_Keys afresh, no fabric warnings. */
void vf_cli_sweep_init(struct vf_cli_sweep *s, const struct vf_config *c,
		       const struct vf_fabric *f);
/*
 * Its resolution, or its plan; NULL when there is none (out of memory
 * said on stderr; a plan's problems printed there unless quiet).
 */
const struct vf_resolution *vf_cli_resolution(struct vf_cli_sweep *s);
const struct vf_plan *vf_cli_plan(struct vf_cli_sweep *s);
void vf_cli_sweep_free(struct vf_cli_sweep *s);

/*
 * The traffic classes (one per active VF) of the sweep's config, as the
 * plugin would assign P_Keys afresh, for the per-class metrics.
 * Returns 0, or 2 (bad input) after saying why on stderr.
 */
int vf_cli_traffic(struct vf_cli_sweep *s, struct vf_traffic *tr);

/* vfabric check FILE: lint a config; exit 0 clean, 1 errors, 2 usage. */
int vf_cmd_check_config(int argc, char **argv);

/* vfabric resolve FILE --topo NET: the partitions the plugin would
 * program; exit 0, 1 when the config has errors or cannot be realised. */
int vf_cmd_resolve(int argc, char **argv);

/* vfabric explain FILE --topo NET --src --dst [--sid --pkey --sl]: which
 * Applications, DeviceGroups and VFs a PathRecord query matches, and why;
 * exit 0 when some VF answers, 1 when none does, 2 on bad usage. */
int vf_cmd_explain(int argc, char **argv);

#endif /* VF_CFGCMD_H */
