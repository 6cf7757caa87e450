/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The partitions.conf front-end: OpenSM's own partition grammar, so that
 * every stock file keeps its stock meaning, plus vFabric statements.
 *
 * Stock (opensm(8), osm_prtn_config.c of 3.3.23):
 *
 *   Name[=PKey][,flag[=value]]* : [member[=full|limited|both]][, ...] ;
 *
 * flags ipoib, mtu, rate, sl, scope, Q_Key, TClass, FlowLabel, defmember,
 * indx0; members port GUIDs, ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS,
 * SELF; mgid=... group definitions (each takes the rest of its line);
 * '#' comments.  Each partition becomes a virtual fabric whose members
 * are what the line lists.
 *
 * vFabric statements and extensions:
 *
 *   DeviceGroup NAME : 0xPORTGUID, node=0xGUID, sysimage=0xGUID,
 *                      desc=PATTERN, type=CA|SW, select=WORD, include=NAME ;
 *   Application NAME : sid=HEX, sidrange=LO-HI, sidmasked=VALUE*MASK,
 *                      mgid=HI:LO, mgidrange=..., mgidmasked=...,
 *                      select=WORD, include=NAME ;
 *   Name=PKey, app=NAME, security=0|1, qos=1, basesl=N, mcsl=N,
 *        bandwidth=N%, highpriority=1, pktlifetime=N, hoqlife=TIME,
 *        standby=1 : @GROUP[=full|limited|both], ... ;
 *
 * A value may be double-quoted (a NodeDesc pattern with a comma).  A
 * statement whose name starts with the word DeviceGroup or Application is
 * a vFabric statement (a stock file with such a partition name would be
 * read differently: documented in docs/vfabrics.md).
 */
#ifndef VF_PCONF_H
#define VF_PCONF_H

#include <stdbool.h>
#include <stddef.h>

#include "partition/config.h"
#include "partition/diag.h"

/*
 * Add the definitions in path to c; problems to d, naming file, line and
 * object.  *vfabric tells whether the file uses anything beyond stock
 * OpenSM (when it does not, it is read exactly as OpenSM reads it:
 * pconfstock.h).  Returns 0, or -errno when the file cannot be read (also
 * in d).
 */
int vf_pconf_load(const char *path, struct vf_config *c, struct vf_diag *d,
		  bool *vfabric);
/* The same from the text of file name, already read (len bytes). */
int vf_pconf_load_text(const char *name, const char *buf, size_t len,
		       struct vf_config *c, struct vf_diag *d, bool *vfabric);

#endif /* VF_PCONF_H */
