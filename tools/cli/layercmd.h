/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * vfabric route/check-routes --vl-layers N [--sl-out FILE]: split a
 * routing's data routes into VL layers (routing/vllayers.h), say how many
 * it took, and write which SL each (source switch, LID) takes.
 */
#ifndef VF_CLI_LAYERCMD_H
#define VF_CLI_LAYERCMD_H

#include "routing/fabric.h"
#include "routing/vllayers.h"

/*
 * Layer t into at most max layers, saying on stderr how many it took (or
 * why it could not); with sl_out, write the layers there.  0, or 2 (bad
 * input: too few layers, a route that loops, out of memory) after saying
 * why.
 */
int vf_cli_layers(const struct vf_fabric *f, const struct vf_lfts *t,
		  unsigned max, const char *sl_out, bool quiet,
		  struct vf_layers *l);

#endif /* VF_CLI_LAYERCMD_H */
