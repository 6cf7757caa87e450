// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#define _GNU_SOURCE		/* setns() */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "vnic/tap.h"

static int ifreq_of(const struct vf_tap *t, struct ifreq *ifr)
{
	memset(ifr, 0, sizeof(*ifr));
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", t->name);
	return 0;
}

int vf_tap_open(struct vf_tap *t, const char *name)
{
	struct ifreq ifr;
	int err;

	t->fd = t->ctl = -1;
	if (strlen(name) >= VF_TAP_NAME)
		return -ENAMETOOLONG;
	t->fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (t->fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0)
		goto close_fd;
	snprintf(t->name, sizeof(t->name), "%s", ifr.ifr_name);
	t->ctl = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (t->ctl < 0)
		goto close_fd;
	return 0;

close_fd:
	err = -errno;
	close(t->fd);
	t->fd = -1;
	return err;
}

int vf_tap_set_mac(struct vf_tap *t, const uint8_t mac[6])
{
	struct ifreq ifr;

	ifreq_of(t, &ifr);
	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr.ifr_hwaddr.sa_data, mac, 6);
	return ioctl(t->ctl, SIOCSIFHWADDR, &ifr) < 0 ? -errno : 0;
}

int vf_tap_get_mac(struct vf_tap *t, uint8_t mac[6])
{
	struct ifreq ifr;

	ifreq_of(t, &ifr);
	if (ioctl(t->ctl, SIOCGIFHWADDR, &ifr) < 0)
		return -errno;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

int vf_tap_set_mtu(struct vf_tap *t, unsigned mtu)
{
	struct ifreq ifr;

	ifreq_of(t, &ifr);
	ifr.ifr_mtu = (int)mtu;
	return ioctl(t->ctl, SIOCSIFMTU, &ifr) < 0 ? -errno : 0;
}

int vf_tap_is_up(struct vf_tap *t)
{
	struct ifreq ifr;

	ifreq_of(t, &ifr);
	if (ioctl(t->ctl, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	return !!(ifr.ifr_flags & IFF_UP);
}

int vf_tap_set_up(struct vf_tap *t, bool up)
{
	struct ifreq ifr;

	ifreq_of(t, &ifr);
	if (ioctl(t->ctl, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	if (up)
		ifr.ifr_flags |= IFF_UP;
	else
		ifr.ifr_flags &= ~IFF_UP;
	return ioctl(t->ctl, SIOCSIFFLAGS, &ifr) < 0 ? -errno : 0;
}

/* RTM_NEWLINK with IFLA_NET_NS_FD: what `ip link set DEV netns NS` does. */
static int link_to_netns(unsigned ifindex, int nsfd)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		struct rtattr rta;
		uint32_t fd;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_NEWLINK,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK, .nlmsg_seq = 1 },
		.ifi = { .ifi_family = AF_UNSPEC, .ifi_index = (int)ifindex },
		.rta = { .rta_len = RTA_LENGTH(sizeof(uint32_t)),
			 .rta_type = IFLA_NET_NS_FD },
		.fd = (uint32_t)nsfd,
	};
	char buf[512];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	ssize_t n;
	int err;

	if (s < 0)
		return -errno;
	if (send(s, &req, sizeof(req), 0) < 0) {
		err = -errno;
		goto close_s;
	}
	n = recv(s, buf, sizeof(buf), 0);
	if (n < 0)
		err = -errno;
	else if ((size_t)n < sizeof(*nh) + sizeof(struct nlmsgerr) ||
		 nh->nlmsg_type != NLMSG_ERROR)
		err = -EPROTO;
	else
		err = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
close_s:
	close(s);
	return err;
}

/* A datagram socket created inside netns nsfd. */
static int socket_in(int nsfd)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), s, err;

	if (self < 0)
		return -errno;
	if (setns(nsfd, CLONE_NEWNET) < 0) {
		err = -errno;
		close(self);
		return err;
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	err = s < 0 ? -errno : s;
	/* back home: failing that, the process is in the wrong place */
	if (setns(self, CLONE_NEWNET) < 0) {
		err = -errno;
		if (s >= 0)
			close(s);
	}
	close(self);
	return err;
}

int vf_tap_move(struct vf_tap *t, const char *netns)
{
	char path[256];
	unsigned idx = if_nametoindex(t->name);
	int nsfd, err, s;

	if (!idx)
		return -errno;
	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return -errno;
	err = link_to_netns(idx, nsfd);
	if (!err) {
		s = socket_in(nsfd);
		if (s < 0) {
			err = s;
		} else {
			close(t->ctl);
			t->ctl = s;
		}
	}
	close(nsfd);
	return err;
}

void vf_tap_close(struct vf_tap *t)
{
	if (t->ctl >= 0)
		close(t->ctl);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = t->ctl = -1;
}
