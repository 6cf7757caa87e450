/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Net files: the topology text that ibsim reads and ibnetdiscover writes.
 *
 * Both dialects load into one fabric model.  ibsim files name nodes by a
 * quoted id and usually carry no GUIDs or LIDs (GUIDs are then numbered the
 * way ibsim 0.10 numbers them, so an offline model matches the simulator);
 * ibnetdiscover output carries GUIDs, NodeDescs, LIDs, LMC and link
 * width/speed ("4xQDR") in its comments.
 */
#ifndef VF_NETFILE_H
#define VF_NETFILE_H

#include <stdio.h>

#include "fabric.h"
#include "lidkeep.h"
#include "common/log.h"

/*
 * Parse a net file and return a finalized fabric.  Ports that the file gives
 * no LID get one from vf_fabric_assign_lids(f, lmc).  On error returns NULL
 * and err says "path:line: problem" naming the node or port at fault.
 */
struct vf_fabric *vf_netfile_load(const char *path, unsigned lmc,
				  struct vf_err *err);
/* The same from an open stream; name is used in error messages. */
struct vf_fabric *vf_netfile_read(FILE *in, const char *name, unsigned lmc,
				  struct vf_err *err);
/*
 * The same, with the ports the file gives no LID numbered by
 * vf_fabric_keep_lids(f, lmc, keep) when keep holds any entry (the LIDs
 * of an earlier picture of the fabric, lidkeep.h).
 */
struct vf_fabric *vf_netfile_load_keep(const char *path, unsigned lmc,
				       const struct vf_lid_keeps *keep,
				       struct vf_err *err);
struct vf_fabric *vf_netfile_read_keep(FILE *in, const char *name,
				       unsigned lmc,
				       const struct vf_lid_keeps *keep,
				       struct vf_err *err);
/*
 * Write f in the ibsim dialect (switchguid=/caguid=/sysimgguid= lines,
 * NodeDescs as comments, w=/s= link options) so that ibsim recreates the
 * same GUIDs and ibnetdiscover-free tools can reload it.
 */
int vf_netfile_write(FILE *out, const struct vf_fabric *f);

#endif /* VF_NETFILE_H */
