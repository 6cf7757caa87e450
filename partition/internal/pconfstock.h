/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * A partitions.conf without vFabric statements, read exactly as stock
 * OpenSM 3.3.23 reads it (osm_prtn_config.c, osm_prtn.c), so that the
 * plugin gives every stock file stock's meaning.
 *
 * OpenSM reads the file a line at a time into one 4 KiB buffer and walks
 * it with pointer arithmetic that, in a few places, runs past the end of
 * the statement: an mgid= item without flags takes what follows it (the
 * rest of the line after ';', or the text of a '#' comment) as its
 * flags, and a ';' that starts a line, or follows another ';', makes it
 * read what an earlier, longer line left in the buffer.  Those are part
 * of what a file means to OpenSM, so this reader keeps such a buffer too
 * and walks it the same way; where OpenSM would read bytes that no line
 * ever wrote (memory it never initialised) the file has no defined
 * meaning and is refused.
 *
 * What it builds: one VF per OpenSM partition, with the P_Key OpenSM
 * gives it (explicit, merged by P_Key, found by name, or generated), its
 * member entries in file order (struct vf_pc_entry: a later entry for a
 * port overrides an earlier one) and the multicast groups in creation
 * order (struct vf_pc_group).  The default partition is VF 0, starting
 * with OpenSM's own entries ALL=limited, SELF=full.  Assumes OpenSM's
 * qos option is off (its default): partition SLs are then 0.
 */
#ifndef VF_PCONFSTOCK_H
#define VF_PCONFSTOCK_H

#include <stddef.h>

#include "partition/config.h"
#include "partition/dgresolve.h"
#include "partition/diag.h"
#include "routing/fabric.h"

/*
 * Fill c (initialised, empty) from path, or from buf (len bytes, the file
 * already read) when not NULL, as stock OpenSM would.  A file OpenSM
 * would reject ("Partition configuration in error") gets an error in d
 * naming file and line; its warnings (PARSE WARN) become warnings.
 * Returns 0 (problems are in d) or -ENOMEM / -errno.
 */
int vf_pconf_stock_load(const char *path, const char *buf, size_t len,
			struct vf_config *c, struct vf_diag *d);

/*
 * Each stock partition's final members (the last entry naming a port
 * wins) into its VF's member groups "<VF>#full", "#limited" and "#both",
 * which a stock config's VFs list: so the SA and partition routing see
 * stock's membership.  Called by vf_dg_resolve() for a stock_file config.
 */
void vf_pc_resolve(const struct vf_config *c, const struct vf_fabric *f,
		   uint32_t sm_node, struct vf_dg_members *m);

/*
 * OpenSM's member keywords, by any prefix as it compares them (ALL,
 * ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF): the VF_PC_ value, or -1 for
 * a word that is none (a port GUID, or an error).
 */
int vf_pc_select_word(const char *name);

/* Does member entry e name port slot p (as OpenSM finds ports by GUID;
 * SELF is sm_port, @GROUP the groups resolved in m)? */
bool vf_pc_entry_names(const struct vf_config *c, const struct vf_fabric *f,
		       const struct vf_dg_members *m,
		       const struct vf_pc_entry *e, uint32_t p,
		       uint32_t sm_port);

#endif /* VF_PCONFSTOCK_H */
