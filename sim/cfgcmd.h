/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/* The vfabric CLI's vFabric configuration commands (see cfgcmd.c). */
#ifndef VF_CFGCMD_H
#define VF_CFGCMD_H

#include "partition/config.h"
#include "routing/traffic.h"

/*
 * Load and validate the config file at path into c, printing every
 * diagnostic to stderr.  Returns 0 when it has no errors, else 1 (c then
 * holds what was read; free it either way).
 */
int vf_cli_load_config(const char *path, struct vf_config *c);

/*
 * The traffic classes (one per active VF) of config c resolved on f, as
 * the plugin would assign P_Keys afresh, for the per-class metrics.
 * Returns 0, or 2 (bad input) after saying why on stderr.
 */
int vf_cli_traffic(const struct vf_config *c, const struct vf_fabric *f,
		   struct vf_traffic *tr);

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
