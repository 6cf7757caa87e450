// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vnic-endpoint: one VNIC port at a host of the simulated fabric
 * (docs/vnic-datapath.md).  A umad2sim client at SIM_HOST=<host> with
 * the issm flag (sim/umadsim.h: only such a client gets unsolicited MADs)
 * that moves Ethernet frames between a Linux TAP device and the
 * fabric: frames read from the TAP go out as 16B packets in data MADs
 * (vnic/datapath.c), data MADs from peers are reassembled, checked and
 * written to the TAP.
 *
 * It is also the VNIC's management agent (class 0x3B, docs/
 * ema-protocol.md; sim/vnic-mgmt.c): the vport the data path reads is
 * the agent's slot 0.  With --managed it starts absent (DROP_ALL) and
 * only the Ethernet Manager's Sets configure it; otherwise the command
 * line fills the same slot (static mode), which the EMA then reads back.
 *
 * Two threads, as umad2sim's poll() waits only on the umad descriptor
 * when one is in the set (the others are never reported): the main one
 * receives MADs (SMPs answered, data to the TAP), a second one reads the
 * TAP and transmits.  The data path and the vport are under one lock.
 *
 * The state (vport, MAC table, counters) goes to stdout on SIGUSR1 and
 * at exit, and to --state FILE (atomically) whenever it changed, at most
 * every 200 ms.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "sim/errfilter.h"
#include "sim/vnic-endpoint.h"

#define EXIT_USAGE 2
#define TICK_MS 200
#define LID_WAIT_MS 60000
#define MAX_UNICAST_LID 0xBFFF
#define MAX_MTU 9000

static volatile sig_atomic_t stop, report;

static void on_stop(int sig)
{
	stop = 1;
}

static void on_report(int sig)
{
	report = 1;
}

/* The data path's output: one data MAD to dlid's QP1. */
static void emit(void *arg, uint32_t dlid, const uint8_t *mad, size_t len)
{
	struct endpoint *ep = arg;
	uint8_t *out = umad_get_mad(ep->txbuf);

	memset(out, 0, VF_DP_MAD_SIZE);
	memcpy(out, mad, len);
	if (vf_umadsim_send_buf(&ep->u, ep->txbuf, ep->data_id, dlid, 1,
				VF_DP_MAD_SIZE))
		ep->tx_send_errors++;
}

/* A MAD that is not an SMP: data to the data path, EMA to the agent. */
static void handle_mad(struct endpoint *ep, int len)
{
	const uint8_t *mad = umad_get_mad(ep->u.rbuf);
	ib_mad_addr_t *addr = umad_get_mad_addr(ep->u.rbuf);
	size_t n;

	if (mad[1] == VF_EMA_CLASS) {
		vnic_mgmt_mad(ep, len);
		return;
	}
	if (mad[1] != VF_DP_CLASS)
		return;
	if (umad_status(ep->u.rbuf)) {
		/* ibsim bounces what no client at the DLID takes */
		ep->tx_bounced++;
		return;
	}
	n = vf_dp_rx(&ep->dp, ntohs(addr->lid), mad, (size_t)len, vnic_now_ms(),
		     ep->frame, sizeof(ep->frame));
	if (n && write(ep->tap.fd, ep->frame, n) != (ssize_t)n)
		ep->rx_host_errors++;
}

static void on_other(struct vf_umadsim *u, int len, void *arg)
{
	handle_mad(arg, len);
}

/* The TAP thread: frames from the host to the fabric. */
static void *tap_thread(void *arg)
{
	struct endpoint *ep = arg;
	struct pollfd pfd = { .fd = ep->tap.fd, .events = POLLIN };

	while (!stop) {
		ssize_t n;

		/* no umad descriptor here: umad2sim passes it to poll() */
		if (poll(&pfd, 1, TICK_MS) <= 0)
			continue;
		n = read(ep->tap.fd, ep->txframe, sizeof(ep->txframe));
		if (n <= 0)
			continue;
		pthread_mutex_lock(&ep->lock);
		vf_dp_tx(&ep->dp, ep->txframe, (size_t)n, emit, ep);
		pthread_mutex_unlock(&ep->lock);
	}
	return NULL;
}

static int setup_tap(struct endpoint *ep)
{
	int err = vf_tap_open(&ep->tap, ep->tap_name);
	const char *what = "create";

	if (!err && !ep->managed) {
		what = "set the MAC of";
		err = vf_tap_set_mac(&ep->tap, ep->vp->base_mac);
		memcpy(ep->tap_mac, ep->vp->base_mac, 6);
	}
	if (!err && !ep->managed) {
		what = "set the MTU of";
		err = vf_tap_set_mtu(&ep->tap, ep->vp->vesw.eth_mtu);
		ep->tap_mtu = ep->vp->vesw.eth_mtu;
	}
	if (!err && ep->netns) {
		what = "move to the netns";
		err = vf_tap_move(&ep->tap, ep->netns);
	}
	/* managed: the host brings it up, as it would its own netdev */
	if (!err && !ep->managed) {
		what = "bring up";
		err = vf_tap_set_up(&ep->tap, true);
	}
	if (err)
		fprintf(stderr, "vnic-endpoint: cannot %s TAP %s: %s\n", what,
			ep->tap_name, strerror(-err));
	return err;
}

static int find_lid(struct endpoint *ep)
{
	uint64_t deadline = vnic_now_ms() + LID_WAIT_MS;

	while (!ep->lid && !stop && vnic_now_ms() < deadline) {
		ep->lid = vf_umadsim_own_lid(&ep->u);
		if (!ep->lid)
			vf_umadsim_recv(&ep->u, 500);
	}
	if (!ep->lid)
		fprintf(stderr, "vnic-endpoint: our port has no LID\n");
	return ep->lid ? 0 : -1;
}

/* Start the TAP thread with the signals left to the main one. */
static int start_tap_thread(struct endpoint *ep, pthread_t *t)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(t, NULL, tap_thread, ep);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		fprintf(stderr, "vnic-endpoint: no thread: %s\n", strerror(err));
	return err;
}

static void receive_loop(struct endpoint *ep)
{
	uint64_t next_tick = 0;

	while (!stop) {
		int len = vf_umadsim_recv(&ep->u, TICK_MS);
		uint64_t now = vnic_now_ms();

		pthread_mutex_lock(&ep->lock);
		if (len)
			handle_mad(ep, len);
		if (now >= next_tick) {
			next_tick = now + TICK_MS;
			vnic_mgmt_tick(ep);
			vf_dp_expire(&ep->dp, now);
			if (ep->dirty ||
			    ep->dumped_mads != ep->dp.c.tx_mads +
			    ep->dp.c.rx_mads + ep->dp.c.tx_drop_state +
			    ep->dp.c.tx_dlid_zero)
				vnic_write_state(ep);
		}
		if (report) {
			report = 0;
			vnic_print_state(ep, stdout);
			vnic_write_state(ep);
		}
		pthread_mutex_unlock(&ep->lock);
	}
}

static int serve(struct endpoint *ep)
{
	pthread_t tap;
	char mac[18];

	if (vf_umadsim_open(&ep->u, "vnic-endpoint"))
		return 1;
	ep->u.other = on_other;
	ep->u.arg = ep;
	ep->txbuf = vf_umadsim_buf();
	ep->data_id = vf_umadsim_register(&ep->u, VF_DP_CLASS,
					  VF_DP_CLASS_VERSION, VF_DP_OUI,
					  1u << VF_DP_METHOD_SEND);
	/* every method: a client crashes on a MAD it did not register */
	ep->ema_id = vf_umadsim_register(&ep->u, VF_EMA_CLASS,
					 VF_EMA_CLASS_VERSION, VF_EMA_OUI,
					 ~1u);
	if (!ep->txbuf || ep->data_id < 0 || ep->ema_id < 0) {
		fprintf(stderr, "vnic-endpoint: cannot register classes 0x%02x and 0x%02x\n",
			VF_DP_CLASS, VF_EMA_CLASS);
		return 1;
	}
	/* answering EMA from now on: the static vport must be complete */
	if (find_lid(ep))
		return 1;
	if (!ep->managed) {
		ep->vp->encap_slid = ep->lid;
		if (!ep->mac_set)
			vf_dp_lmac(ep->vp->vesw.fabric_id,
				   ep->vp->vesw.vesw_id, ep->lid,
				   ep->vp->base_mac);
	}
	if (vf_umadsim_claim_sm(&ep->u))
		return 1;
	if (setup_tap(ep))
		return 1;
	vnic_mgmt_tick(ep);
	vnic_write_state(ep);
	vnic_mac_str(ep->vp->base_mac, mac);
	if (start_tap_thread(ep, &tap))
		return 1;
	if (ep->managed)
		printf("vnic-endpoint: LID %u managed (vport absent until the EM sets it) TAP %s%s%s: ready\n",
		       ep->lid, ep->tap.name, ep->netns ? " in netns " : "",
		       ep->netns ? ep->netns : "");
	else
		printf("vnic-endpoint: LID %u vESW %u P_Key 0x%04x MAC %s MTU %u TAP %s%s%s: ready\n",
		       ep->lid, ep->vp->vesw.vesw_id, ep->vp->vesw.pkey, mac,
		       ep->vp->vesw.eth_mtu, ep->tap.name,
		       ep->netns ? " in netns " : "",
		       ep->netns ? ep->netns : "");
	receive_loop(ep);
	pthread_join(tap, NULL);
	vnic_print_state(ep, stdout);
	vnic_write_state(ep);
	vf_tap_close(&ep->tap);
	vf_umadsim_close(&ep->u);
	free(ep->txbuf);
	return 0;
}

/* --- command line ---------------------------------------------------- */

static int parse_mac(const char *s, uint8_t *mac)
{
	unsigned v[6];
	char end;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &end) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return 0;
}

static int parse_num(const char *s, unsigned long min, unsigned long max,
		     unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	return errno || end == s || *end || *out < min || *out > max ? -1 : 0;
}

/* --peer MAC=LID, or LID alone: the peer's locally administered MAC. */
static int add_peer(struct vf_vport *vp, unsigned *n, const char *s)
{
	struct vf_vport_mac *e;
	const char *eq = strchr(s, '=');
	unsigned long lid;

	if (*n == VF_VPORT_MAC_TABLE ||
	    parse_num(eq ? eq + 1 : s, 1, MAX_UNICAST_LID, &lid))
		return -1;
	e = &vp->macs[(*n)++];
	if (eq) {
		char mac[18];

		if (eq - s >= (ptrdiff_t)sizeof(mac))
			return -1;
		memcpy(mac, s, (size_t)(eq - s));
		mac[eq - s] = 0;
		if (parse_mac(mac, e->mac))
			return -1;
	} else {
		vf_dp_lmac(vp->vesw.fabric_id, vp->vesw.vesw_id, (uint32_t)lid,
			   e->mac);
	}
	memset(e->mask, 0xff, 6);
	e->dlid_sd = (uint32_t)lid << 8;
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: vnic-endpoint --managed --tap NAME [--netns NS] [--lid LID]\n"
		"           [--no-replicate] [--timeout-ms N] [--state FILE]\n"
		"       vnic-endpoint --vesw ID --pkey PKEY --tap NAME [--netns NS]\n"
		"           [--lid LID] [--fabric ID] [--mac MAC] [--mtu N]\n"
		"           [--peer MAC=LID | --peer LID]... [--default-dlid LID]...\n"
		"           [--mcast-dlid LID] [--no-replicate] [--timeout-ms N]\n"
		"           [--state FILE]\n"
		"--managed: the vport is absent until the Ethernet Manager sets it\n"
		"(EMA, class 0x3B; try vfabric-em); the TAP stays down until the\n"
		"host brings it up.  Otherwise the options configure the vport.\n"
		"Run under umad2sim (LD_PRELOAD) with SIM_HOST=<host>.\n");
}

enum { O_VESW = 256, O_PKEY, O_TAP, O_NETNS, O_LID, O_FABRIC, O_MAC, O_MTU,
       O_PEER, O_DEFAULT, O_MCAST, O_NOREP, O_TIMEOUT, O_STATE, O_MANAGED,
       O_HELP };

static int parse_args(struct endpoint *ep, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vesw", required_argument, NULL, O_VESW },
		{ "pkey", required_argument, NULL, O_PKEY },
		{ "tap", required_argument, NULL, O_TAP },
		{ "netns", required_argument, NULL, O_NETNS },
		{ "lid", required_argument, NULL, O_LID },
		{ "fabric", required_argument, NULL, O_FABRIC },
		{ "mac", required_argument, NULL, O_MAC },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "peer", required_argument, NULL, O_PEER },
		{ "default-dlid", required_argument, NULL, O_DEFAULT },
		{ "mcast-dlid", required_argument, NULL, O_MCAST },
		{ "no-replicate", no_argument, NULL, O_NOREP },
		{ "timeout-ms", required_argument, NULL, O_TIMEOUT },
		{ "state", required_argument, NULL, O_STATE },
		{ "managed", no_argument, NULL, O_MANAGED },
		{ "help", no_argument, NULL, O_HELP },
		{ 0 }
	};
	struct vf_vesw *v = &ep->vp->vesw;
	char *peers[VF_VPORT_MAC_TABLE];
	unsigned npeers = 0, nmacs = 0, ndef = 0;
	bool static_opt = false;
	unsigned long x;
	int ch;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		const char *bad = NULL;

		switch (ch) {
		case O_VESW:
			if (parse_num(optarg, 1, 4095, &x))
				bad = "--vesw wants 1-4095";
			v->vesw_id = (uint16_t)x;
			break;
		case O_PKEY:
			if (parse_num(optarg, 1, 0xffff, &x) || !(x & 0x7fff))
				bad = "--pkey wants a P_Key, 0x0001-0xffff but 0x8000";
			v->pkey = (uint16_t)x;
			break;
		case O_TAP: ep->tap_name = optarg; break;
		case O_NETNS: ep->netns = optarg; break;
		case O_STATE: ep->state_file = optarg; break;
		case O_LID:
			if (parse_num(optarg, 1, MAX_UNICAST_LID, &x))
				bad = "--lid wants a unicast LID";
			ep->lid = (unsigned)x;
			break;
		case O_FABRIC:
			if (parse_num(optarg, 0, 0x3ff, &x))
				bad = "--fabric wants 0-1023";
			v->fabric_id = (uint16_t)x;
			break;
		case O_MAC:
			if (parse_mac(optarg, ep->vp->base_mac) ||
			    ep->vp->base_mac[0] & 1)
				bad = "--mac wants a unicast MAC xx:xx:xx:xx:xx:xx";
			ep->mac_set = true;
			break;
		case O_MTU:
			if (parse_num(optarg, VF_VPORT_MIN_MTU, MAX_MTU, &x))
				bad = "--mtu wants 68-9000";
			v->eth_mtu = (uint16_t)x;
			break;
		case O_PEER:
			if (npeers == VF_VPORT_MAC_TABLE)
				bad = "too many --peer";
			else
				peers[npeers++] = optarg;
			break;
		case O_DEFAULT:
			if (ndef == VF_VPORT_DEFAULT_PORTS ||
			    parse_num(optarg, 1, MAX_UNICAST_LID, &x)) {
				bad = "--default-dlid wants a LID (at most 16)";
				break;
			}
			v->def_port_mask |= (uint16_t)(1u << ndef);
			v->u_ucast_dlid[ndef++] = (uint32_t)x;
			break;
		case O_MCAST:
			if (parse_num(optarg, 1, 0xffffff, &x))
				bad = "--mcast-dlid wants a LID";
			v->u_mcast_dlid = (uint32_t)x;
			break;
		case O_NOREP: ep->dp.replicate = false; break;
		case O_MANAGED: ep->managed = true; break;
		case O_TIMEOUT:
			if (parse_num(optarg, 1, 600000, &x))
				bad = "--timeout-ms wants 1-600000";
			ep->dp.timeout_ms = (uint32_t)x;
			break;
		case O_HELP:
			usage();
			exit(0);
		default:
			usage();
			return -1;
		}
		if (bad) {
			fprintf(stderr, "vnic-endpoint: %s, not '%s'\n", bad,
				optarg);
			return -1;
		}
		static_opt |= ch == O_VESW || ch == O_PKEY || ch == O_FABRIC ||
			      ch == O_MAC || ch == O_MTU || ch == O_PEER ||
			      ch == O_DEFAULT || ch == O_MCAST;
	}
	if (ep->managed && static_opt) {
		fprintf(stderr, "vnic-endpoint: --managed takes no vport options (--vesw, --pkey, --fabric, --mac, --mtu, --peer, --default-dlid, --mcast-dlid): the EM sets them\n");
		return -1;
	}
	if (ep->managed && (optind != argc || !ep->tap_name)) {
		fprintf(stderr, "vnic-endpoint: --managed needs --tap%s\n",
			optind != argc ? " (and no other arguments)" : "");
		usage();
		return -1;
	}
	if (ep->managed)
		return 0;
	if (optind != argc || !v->vesw_id || !v->pkey || !ep->tap_name) {
		fprintf(stderr, "vnic-endpoint: --vesw, --pkey and --tap are needed%s\n",
			optind != argc ? " (and no other arguments)" : "");
		usage();
		return -1;
	}
	/* peers last: a LID alone needs the fabric and vESW ids */
	for (unsigned i = 0; i < npeers; i++)
		if (add_peer(ep->vp, &nmacs, peers[i])) {
			fprintf(stderr, "vnic-endpoint: --peer wants MAC=LID or LID, not '%s'\n",
				peers[i]);
			return -1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	static struct endpoint ep;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_mutex_init(&ep.lock, NULL);
	/* one vport: one TAP per process */
	vf_ema_agent_init(&ep.ema, 1, 1);
	ep.vp = &ep.ema.slot[0].vport;
	vf_dp_init(&ep.dp, ep.vp);
	ep.vp->vesw.eth_mtu = 1500;
	if (parse_args(&ep, argc, argv))
		return EXIT_USAGE;
	if (ep.managed) {
		ep.vp->vesw.eth_mtu = 0;	/* the POD value */
	} else {
		/* statically configured: forwarding once the TAP is up */
		ep.vp->exists = true;
		ep.vp->config_state = VF_VPORT_FORWARDING;
		vf_ema_vport_update_state(ep.vp);
	}
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	signal(SIGUSR1, on_report);
	/* umad2sim's line for every MAD received (sim/errfilter.h) */
	if (vf_errfilter_start(VF_UMAD2SIM_SIZE_LINE, &ep.umad2sim_lines))
		fprintf(stderr, "vnic-endpoint: cannot filter stderr: umad2sim's size lines will show\n");
	return serve(&ep);
}
