/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/* The vfabric CLI's adaptive-routing command (see arcmd.c). */
#ifndef VF_ARCMD_H
#define VF_ARCMD_H

/*
 * vfabric ar --topo NET --lfts DUMP [--coarse] [--groups N] [-o FILE]:
 * the AR tables of a routing; exit 0, 1 when the alternates would allow a
 * credit loop (no groups then), 2 on bad usage.
 */
int vf_cmd_ar(int argc, char **argv);

#endif /* VF_ARCMD_H */
