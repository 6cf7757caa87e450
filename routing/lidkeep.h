/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * LIDs kept by port GUID across two pictures of a fabric, as OpenSM's LID
 * manager keeps them (its guid2lid table): a port keeps the LIDs it had,
 * a port that left keeps its LIDs reserved, and a new port takes the
 * lowest free LIDs (a CA's 2^LMC of them aligned, a switch's one).  The
 * offline tool needs this to show what the plugin would do when hosts
 * come and go in a net file without LIDs: numbering such a file afresh
 * would shift every LID after a removed host and look like a new routing.
 */
#ifndef VF_LIDKEEP_H
#define VF_LIDKEEP_H

#include <stddef.h>

#include "fabric.h"
#include "common/log.h"

/* One port's LIDs: base_lid .. base_lid + num - 1. */
struct vf_lid_keep {
	uint64_t guid;		/* PortGUID; a switch's port 0 GUID */
	uint16_t base_lid;
	uint16_t num;
};

/* The ports' LIDs, sorted by GUID. */
struct vf_lid_keeps {
	struct vf_lid_keep *v;
	size_t n;
};

void vf_lid_keeps_free(struct vf_lid_keeps *k);
/* The LIDs of every port of a finalized fabric; 0 or -ENOMEM. */
int vf_lid_keeps_from_fabric(const struct vf_fabric *f,
			     struct vf_lid_keeps *k);
/*
 * The LIDs an LFT dump names a port GUID for ("portguid 0x..." in
 * OpenSM's and dump_fts' destination column); none if it names none.
 * A LID given two GUIDs is an error naming path:line.
 */
int vf_lid_keeps_from_dump(const char *path, struct vf_lid_keeps *k,
			   struct vf_err *err);

/*
 * Instead of vf_fabric_assign_lids(), before vf_fabric_finalize(): give
 * every port without a LID (switch port 0, linked CA ports) the LIDs keep
 * holds for its GUID when they are still usable (aligned to 2^lmc on a
 * CA, wide enough, not taken by a LID f already has), otherwise the
 * lowest free ones, switches first, then CAs, each in node order.  Every
 * LID in keep counts as taken for the new ports, whether or not its port
 * is still there.  0, or -ERANGE when the LIDs run out, or -ENOMEM.
 */
int vf_fabric_keep_lids(struct vf_fabric *f, unsigned lmc,
			const struct vf_lid_keeps *keep);

/*
 * A net file and an LFT dump made on it, as the CLI reads them: ports the
 * file gives no LID take the ones the dump names them with, so that the
 * dump of a routing whose LIDs were kept across a change reads back, and
 * an ibsim net file goes with OpenSM's own dump of that fabric (lmc is
 * raised to the LMC the dump shows: the most LIDs it gives one port).
 * Returns the fabric with t filled, or NULL with err set.
 */
struct vf_fabric *vf_load_routed(const char *net, const char *dump,
				 unsigned lmc, struct vf_lfts *t,
				 struct vf_err *err);

#endif /* VF_LIDKEEP_H */
