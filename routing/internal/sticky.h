/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Route stability: what the previous routing chose, so that an engine can
 * keep it.  An entry counts only when its LID still belongs to the same
 * port (by PortGUID) and its switch is still there (by NodeGUID); the
 * engine keeps it only if the old egress port is still one of its own
 * valid candidates, so a kept route is as correct as a new one.  Then
 * adding or removing a host changes only that host's entries, and a failed
 * link only the routes that crossed it.  When an inter-switch link appears
 * (a repair, an added cable), the previous routing is not used: everything
 * is rebalanced so the new capacity carries its share.
 */
#ifndef VF_STICKY_H
#define VF_STICKY_H

#include "routing/engine.h"
#include "routing/fabric.h"

struct vf_sticky {
	const uint8_t **row;	/* [nsw] previous row of each switch, or NULL */
	uint8_t *same;		/* [max_lid + 1] LID owned by the same port */
	unsigned max_lid;	/* of the previous tables */
};

/*
 * Index prev against f; a NULL prev, or a prev that f has added
 * inter-switch links to, gives an empty (inactive) index.
 */
int vf_sticky_init(struct vf_sticky *st, const struct vf_fabric *f,
		   const struct vf_previous *prev);
void vf_sticky_free(struct vf_sticky *st);

/* The egress port the previous routing gave lid at switch s, or VF_NO_PORT. */
static inline uint8_t vf_sticky_port(const struct vf_sticky *st, uint32_t s,
				     unsigned lid)
{
	if (!st->row || !st->row[s] || lid > st->max_lid || !st->same[lid])
		return VF_NO_PORT;
	return st->row[s][lid];
}

#endif /* VF_STICKY_H */
