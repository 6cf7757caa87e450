/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Partition-aware routing's modes (docs/partition-routing.md), as options
 * and configuration files name them.  How the engines apply them is
 * routing/internal/tenancy.h.
 */
#ifndef VF_TENANCY_H
#define VF_TENANCY_H

enum vf_partition_routing {
	VF_PROUTE_OFF,		/* every pair counts (all-to-all) */
	VF_PROUTE_BALANCE,	/* each class balanced on its own */
	VF_PROUTE_ISOLATE,	/* balance, and tenants on their own switches */
};

/* "off", "balance", "isolate"; -1 when unknown. */
int vf_partition_routing_parse(const char *s);
const char *vf_partition_routing_name(enum vf_partition_routing m);

#endif /* VF_TENANCY_H */
