/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Automatic P_Keys recovered from what the fabric already holds, for an
 * SM without them in its cache (a standby taking over with an empty
 * cache, a lost or deleted cache file).  The value a VF got depended on
 * history (which colliding name came first), which no function of the
 * configuration alone can know; the P_Key tables still hold it.  A VF
 * whose key the cache lacks takes the P_Key whose holders are most like
 * its own members, if more than half alike (Jaccard index over end
 * ports), never one an active VF names or remembers; the best pairs
 * first, so the result does not depend on file order.
 */
#ifndef VF_RECOVER_H
#define VF_RECOVER_H

#include <stdint.h>

#include "partition/assign.h"
#include "partition/config.h"
#include "partition/dgresolve.h"
#include "partition/diag.h"
#include "routing/fabric.h"

/*
 * The P_Keys the fabric's ports hold, by port slot of the fabric it was
 * built for: port p holds keys[first[p] .. first[p + 1]), as the table
 * holds them (bit 15: full member).  Built by the plugin from what
 * OpenSM read.
 */
struct vf_held_pkeys {
	uint32_t num_ports;
	uint32_t *first;	/* num_ports + 1 offsets */
	uint16_t *keys;
};

/*
 * Add to a, for each active VF's automatic P_Key key that a has no value
 * for, the P_Key the fabric holds for it (see above); each one recovered
 * is a warning in d naming the VF and how many ports hold it.  0 or
 * -ENOMEM.
 */
int vf_assign_recover(const struct vf_config *c, const struct vf_fabric *f,
		      const struct vf_dg_members *dg,
		      const struct vf_held_pkeys *h, struct vf_assignment *a,
		      struct vf_diag *d);

void vf_held_pkeys_free(struct vf_held_pkeys *h);

#endif /* VF_RECOVER_H */
