/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Adaptive routing tables (reference/opa-fm.md section 4, docs/
 * adaptive-routing.md): for every switch, port groups (sets of egress
 * ports a switch may choose among for a destination) and, per destination
 * LID, the group it may use.  The LFT keeps the static port, which is
 * always a member of the LID's group; a switch without AR, or a LID
 * without a group, forwards by the LFT alone.
 *
 * Groups hold only ports that are as short and as fast as the static one
 * toward the destination's switch and, on a tree, go the same way (up
 * when the static port goes up, the single way down otherwise), so that no
 * choice among them can close a credit loop; vf_ar_check() verifies that
 * over every alternate.
 */
#ifndef VF_AR_H
#define VF_AR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fabric.h"
#include "common/log.h"

#define VF_AR_NO_GROUP 0xff
#define VF_AR_MAX_GROUPS 255	/* PortGroupCap fits a byte */
#define VF_AR_MASK_WORDS 4	/* ports 1-255: bit p-1 of the mask */

enum vf_ar_algorithm {
	VF_AR_RANDOM = 0,
	VF_AR_GREEDY = 1,
	VF_AR_GREEDY_RANDOM = 2,
};

/* <Sm><AdaptiveRouting>, with the FM's ranges and defaults. */
struct vf_ar_config {
	bool enable;			/* default off */
	bool fine_grained;		/* per-LID groups; needs enable too */
	bool lost_route_only;		/* only around failed links */
	enum vf_ar_algorithm algorithm;	/* default GreedyRandom */
	unsigned frequency;		/* 0-7: 2^n x 64 ms between moves (4) */
	unsigned threshold;		/* 0-7: congestion that triggers (3) */
};

void vf_ar_config_default(struct vf_ar_config *c);

struct vf_ar_mask {
	uint64_t w[VF_AR_MASK_WORDS];
};

static inline bool vf_ar_mask_has(const struct vf_ar_mask *m, unsigned port)
{
	return port && port <= 64 * VF_AR_MASK_WORDS &&
	       (m->w[(port - 1) / 64] >> ((port - 1) % 64) & 1);
}

/* One switch's tables and what it can hold. */
struct vf_ar_switch {
	unsigned group_cap;		/* PortGroupCap (groups) */
	unsigned lid_cap;		/* PortGroupFDBCap (LIDs) */
	struct vf_ar_mask *groups;	/* [group_cap]: the PGT */
	unsigned num_groups;		/* PortGroupTop */
	uint8_t *lid_group;		/* [max_lid + 1]: the PGFT */
	unsigned lids_grouped;		/* LIDs with a group */
	unsigned lids_over_cap;		/* left static: no room */
};

struct vf_ar_tables {
	uint32_t num_switches;		/* switch numbers of the fabric */
	uint16_t max_lid;
	struct vf_ar_switch *sw;
};

/* Capacities a switch reports; 0 in either: the switch has no AR. */
struct vf_ar_caps {
	unsigned group_cap, lid_cap;
};

/*
 * The AR tables for routing t of f: caps[s] per switch (NULL: every
 * switch VF_AR_MAX_GROUPS groups, every LID).  0 or -ENOMEM.
 */
int vf_ar_compute(const struct vf_fabric *f, const struct vf_lfts *t,
		  const struct vf_ar_config *cfg, const struct vf_ar_caps *caps,
		  struct vf_ar_tables *ar);
void vf_ar_free(struct vf_ar_tables *ar);

/*
 * A credit-loop check over every choice the groups allow: the channel
 * dependencies of CA-to-CA traffic when any member of a LID's group may
 * be taken at any switch.  true when there is no cycle.
 */
bool vf_ar_check(const struct vf_fabric *f, const struct vf_lfts *t,
		 const struct vf_ar_tables *ar, char *cycle, size_t size);

/*
 * ARNeighbors of switch number sw (docs/ar-protocol.md): n[0] its own LID,
 * n[p] for ports 1..num_ports the LID of the switch at the other end, 0
 * for a CA or no link; n[p] = 0 up to size too.  Where a switch agent
 * sends its lost-route notifications.
 */
void vf_ar_neighbors(const struct vf_fabric *f, uint32_t sw, uint16_t *n,
		     unsigned size);

/*
 * Text dump, one switch after another (docs/adaptive-routing.md):
 *   switch 0xGUID groups N/CAP lids M/CAP
 *   group I PORT,PORT,...
 *   lids FIRST-LAST I      (runs of LIDs with group I)
 */
int vf_ar_dump(FILE *out, const struct vf_fabric *f,
	       const struct vf_ar_tables *ar);
/* One switch of such a dump (LIDs 1..max_lid of sw->lid_group). */
int vf_ar_dump_switch(FILE *out, uint64_t guid, const struct vf_ar_switch *sw,
		      uint16_t max_lid);
/* Read such a dump for fabric f into ar; -EINVAL (with err) on errors. */
int vf_ar_load(const char *path, const struct vf_fabric *f,
	       struct vf_ar_tables *ar, struct vf_err *err);

#endif /* VF_AR_H */
