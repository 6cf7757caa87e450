/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * P_Keys and SLs the configuration leaves automatic, assigned the same way
 * every time: a VirtualFabric keeps what it had (remembered in a small
 * file in OpenSM's cache directory) as long as that value is still free,
 * so restarts and edits of other VFs change nothing.  A new VF's P_Key is
 * the first free one from a hash of its name on (the FM takes the lowest
 * free, which depends on file order); names are served in name order, so
 * two whose hashes collide resolve the same way whatever the file's
 * order.  Which of them had the value first is history: an SM without
 * the cache (a standby taking over, a lost file) takes it back from the
 * P_Key tables (recover.h) before assigning anything new.  SLs are few:
 * a new one takes the lowest free SL in file order, as the FM; the
 * fabric does not show which VF an SL was for, so a standby with an
 * empty cache gives the FM's values, which differ from the master's only
 * if the master's cache outlived edits that reordered or added QoS VFs.
 *
 * Which VFs get their own P_Key follows the FM (reference/opa-fm.md 1.6):
 * Security 1 each its own, Security 0 all share one.  SLs (1.7): a QoS VF
 * without BaseSL its own, all VFs without QoS one shared SL.
 */
#ifndef VF_ASSIGN_H
#define VF_ASSIGN_H

#include <stdint.h>

#include "partition/config.h"
#include "partition/diag.h"

/* The key the shared values are remembered under (not a valid VF name). */
#define VF_ASSIGN_SHARED "(shared)"

struct vf_assigned {
	char *key;		/* a VF name, or VF_ASSIGN_SHARED */
	uint16_t pkey;		/* 15 bits, 0 none */
	int sl;			/* -1 none */
};

/* What was assigned, and what the cache file held. */
struct vf_assignment {
	struct vf_assigned *v;
	unsigned n;
	bool changed;		/* differs from what was loaded */
};

/*
 * Load path (a missing file is an empty assignment; a bad line is a
 * warning naming file and line, and skipped).  0 or -ENOMEM.
 */
int vf_assignment_load(struct vf_assignment *a, const char *path,
		       struct vf_diag *d);
/* Remember key's P_Key (marks a changed); 0 or -ENOMEM. */
int vf_assignment_set_pkey(struct vf_assignment *a, const char *key,
			   uint16_t pkey);
/* Write it atomically (tmp + rename); 0 or -errno. */
int vf_assignment_save(const struct vf_assignment *a, const char *path);
void vf_assignment_free(struct vf_assignment *a);

/*
 * Assign every enabled VF's automatic P_Key and SL, keeping remembered
 * ones.  Results are written into out_pkey[i] / out_sl[i] for c->vfs[i]
 * (explicit values copied, disabled VFs 0 / -1).  Running out of P_Keys
 * or SLs is an error in d naming the VF.  Returns the number of errors.
 */
unsigned vf_assign(const struct vf_config *c, struct vf_assignment *a,
		   uint16_t *out_pkey, int *out_sl, struct vf_diag *d);

#endif /* VF_ASSIGN_H */
