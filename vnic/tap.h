/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The host side of a simulated VNIC: a Linux TAP device (IFF_TAP |
 * IFF_NO_PI, so each read or write is one bare Ethernet frame).  It is
 * created in our network namespace and may be moved into another one; the
 * file descriptor keeps working there, and the control socket is reopened
 * inside the new namespace so that flags, MTU and MAC still reach it.
 */
#ifndef VF_TAP_H_
#define VF_TAP_H_

#include <stdbool.h>
#include <stdint.h>

#define VF_TAP_NAME 16			/* IFNAMSIZ */

struct vf_tap {
	int fd;				/* frames */
	int ctl;			/* ioctl socket in the device's netns */
	char name[VF_TAP_NAME];
};

/* Create (or attach to) TAP device name; 0 or -errno. */
int vf_tap_open(struct vf_tap *t, const char *name);

int vf_tap_set_mac(struct vf_tap *t, const uint8_t mac[6]);
int vf_tap_set_mtu(struct vf_tap *t, unsigned mtu);
int vf_tap_set_up(struct vf_tap *t, bool up);

/* The device's MAC as it is now (the host may have changed it). */
int vf_tap_get_mac(struct vf_tap *t, uint8_t mac[6]);

/* 1 if administratively up, 0 if down, -errno. */
int vf_tap_is_up(struct vf_tap *t);

/* Move the device into the named netns (/run/netns/NAME); 0 or -errno. */
int vf_tap_move(struct vf_tap *t, const char *netns);

void vf_tap_close(struct vf_tap *t);

#endif /* VF_TAP_H_ */
