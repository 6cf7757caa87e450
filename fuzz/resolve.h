/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The configuration targets' common part: check the diagnostics a load
 * produced, then resolve a loaded configuration on the fixed fabric the
 * way the plugin does at a heavy sweep.
 */
#ifndef VF_FUZZ_RESOLVE_H
#define VF_FUZZ_RESOLVE_H

#include "partition/config.h"
#include "partition/diag.h"

/*
 * Every message of d is text that names the file (path) it is about, and
 * the error count agrees with the messages.
 */
void vf_fuzz_check_diag(const struct vf_diag *d, const char *path);

/*
 * c (validated, on the heap with refs 1; released here): partition plan,
 * QoS programme, the SA's policy snapshot and the Ethernet Manager's plan
 * on the fixed fabric, each checked for what every result must satisfy.
 */
void vf_fuzz_resolve(struct vf_config *c);

#endif /* VF_FUZZ_RESOLVE_H */
