/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The vfabric CLI's fabric input: a net file, or the live subnet ("live")
 * read through libibnetdisc (topology) and libibmad SMPs (LFTs, every
 * block up to each switch's LinearFDBTop), with infiniband-diags'
 * node-name-map applied to the names shown, and node names as an admin
 * types them (NodeDesc, mapped name, or the NodeDesc's first word).
 */
#ifndef VF_LIVEFABRIC_H
#define VF_LIVEFABRIC_H

#include <stdbool.h>

#include "routing/fabric.h"
#include "routing/lidkeep.h"
#include "common/log.h"

/* The argument that means "read the subnet": --topo live, --lfts live. */
#define VF_LIVE "live"

/*
 * Take the CLI-wide options out of argv (anywhere after the command):
 * --Ca NAME / --Port N (the local HCA port live input uses; defaults
 * from /etc/infiniband-diags/ibdiag.conf's CA= and Port=, as in
 * infiniband-diags) and --node-name-map FILE (default
 * /etc/rdma/ib-node-name-map if it exists).  Returns the new argc.
 */
int vf_cli_global_opts(int argc, char **argv);

/*
 * The topology: a net file, or the live subnet when topo is "live".  Ports
 * without a LID are numbered as vf_netfile_load_keep() does.  The
 * node-name map is applied.  NULL with err set on failure.
 */
struct vf_fabric *vf_cli_topo(const char *topo, unsigned lmc,
			      const struct vf_lid_keeps *keep,
			      struct vf_err *err);

/*
 * Topology and LFTs (as vf_load_routed()); either may be "live": live
 * LFTs are read from the switches of the fabric loaded.
 */
struct vf_fabric *vf_cli_routed(const char *topo, const char *lfts,
				unsigned lmc, struct vf_lfts *t,
				struct vf_err *err);

/*
 * The node an admin names: its node id, GUID, NodeDesc, node-name-map
 * name, or the first word of either (a host name) when unique.  VF_NONE
 * after printing why (no such node, or the ambiguous candidates) to
 * stderr prefixed with what (e.g. "--src cn0002").
 */
uint32_t vf_cli_find_node(const struct vf_fabric *f, const char *name,
			  const char *what);

#endif /* VF_LIVEFABRIC_H */
