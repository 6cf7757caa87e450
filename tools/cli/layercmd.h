/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * vfabric route/check-routes --vl-layers N [--sl-out FILE]: split a
 * routing's data routes into VL layers (routing/vllayers.h), say how many
 * it took, and write which SL each (source switch, LID) takes.
 */
#ifndef VF_CLI_LAYERCMD_H
#define VF_CLI_LAYERCMD_H

#include "routing/fabric.h"
#include "routing/vlcheck.h"
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

struct vf_cli_sweep;
/*
 * With --config and QoS VFs: how the QoS classes lie over l's layers on
 * ports of `vls` data VLs, as the plugin would lay them (each class's
 * SLs and VLs, and the classes, with their VFs, that must share VLs), on
 * stderr.  0, or 2 after saying why (more SLs than 16 needed: the plugin
 * would refuse the tables).
 */
int vf_cli_qos_layers(struct vf_cli_sweep *sw, const struct vf_layers *l,
		      unsigned vls);

/*
 * check-routes --path-sls FILE [--sl2vl FILE2]: how a fabric routed by
 * anyone (OpenSM's dfsssp, lash, a live fabric) puts its traffic on VLs,
 * for the per-VL credit-loop check.
 *   FILE   "slid dlid sl" lines (--sl-out's format, PathRecords' SLs) or
 *          "switch-guid lid sl" (a 0x GUID of 16 digits: the data
 *          entering at that switch toward that LID); more than one SL
 *          for a pair: all of them; pairs not listed: SL 0.  Only host
 *          LIDs as destinations (routes to switches are not checked).
 *   FILE2  "switch-guid in-port out-port vl0 ... vl15" lines: the
 *          switch's SL-to-VL table for that port pair (the numbers
 *          smpquery sl2vl prints for it); without FILE2, SL n on VL n.
 *          A port pair the routes cross that FILE2 does not give is
 *          taken as VL 0 for every SL, and said.
 * Lines starting with '#' are comments; numbers decimal or 0x hex.
 */
struct vf_cli_vls {
	const struct vf_fabric *f;
	uint16_t *sls;		/* [nsw * (max_lid + 1)] SL masks, 0: SL 0 */
	uint8_t **sl2vl;	/* [nsw]: [(in * (ports + 1) + out) * 16 + sl]
				 * (layercmd.c marks those not given); NULL:
				 * switch not listed */
	unsigned missing;	/* port pairs crossed and not given */
};

/* Read the files into v and m (m refers to v); 0, or 2 after saying why. */
int vf_cli_read_vls(const struct vf_fabric *f, const char *sls_path,
		    const char *sl2vl_path, struct vf_cli_vls *v,
		    struct vf_vl_model *m);
void vf_cli_vls_free(struct vf_cli_vls *v);

#endif /* VF_CLI_LAYERCMD_H */
