/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The data path's counters (vnic/datapath.h) as the EMA counter
 * attributes report them (vnic/ema.h, reference/vnic-ema.md 3.5-3.6):
 * what an endpoint copies into its agent slot before answering a Get.
 */
#ifndef VF_DP_EMA_H
#define VF_DP_EMA_H

#include "vnic/datapath.h"
#include "vnic/ema.h"

void vf_dp_ema_counters(const struct vf_dp_counters *c,
			struct vf_ema_summary *s, struct vf_ema_errors *e);

#endif /* VF_DP_EMA_H */
