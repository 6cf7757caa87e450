/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/* The vfabric CLI's flow simulator command (see arsimcmd.c). */
#ifndef VF_ARSIMCMD_H
#define VF_ARSIMCMD_H

/*
 * vfabric arsim --topo NET --lfts DUMP [--ar ARDUMP] --pattern P ...:
 * link loads of a traffic pattern with static routes versus adaptive
 * routing, with and without failed links; exit 0, 1 when the plot could
 * not be drawn, 2 on bad usage or input.
 */
int vf_cmd_arsim(int argc, char **argv);

#endif /* VF_ARSIMCMD_H */
