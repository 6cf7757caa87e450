/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The FM's rules for the management VFs of an XML file (SA, PM and PA
 * applications, P_Key 0x7fff), as warnings: see fmmgmt.c.
 */
#ifndef VF_FMMGMT_H
#define VF_FMMGMT_H

#include <stdbool.h>

#include "partition/config.h"

/* Add the FM's management-VF rules broken by c to d, as warnings, and a
 * file without any active VF as an error (nothing for a partitions.conf). */
void vf_config_check_mgmt(const struct vf_config *c, struct vf_diag *d);

/*
 * Does an XML file write a VF on P_Key 0x7fff (the FM's Admin VF), active
 * or not?  Then the file has an Admin VF and its LimitedMember intent
 * holds even when the VF is disabled or Standby (plan.c).  *first, when
 * given, is set to the first such VF.
 */
bool vf_config_declares_admin(const struct vf_config *c,
			      const struct vf_cfg_vf **first);

#endif /* VF_FMMGMT_H */
