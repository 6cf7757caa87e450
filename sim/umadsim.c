// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "sim/umadsim.h"

#define ATTR_SM_INFO 0x0020
#define ATTR_PORT_INFO 0x0015
/*
 * umad buffers: umad_get_mad() is not at umad_size() with this libibumad
 * (the header grew), and umad2sim copies whole packets: leave room.
 */
#define BUF_SIZE 4096

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int vf_umadsim_open(struct vf_umadsim *u, const char *prog)
{
	long mask[16 / sizeof(long)] = { 1 << 1 | 1 << 2 };	/* Get, Set */
	umad_port_t port;
	umad_ca_t ca;

	u->prog = prog;
	u->fd = u->issm_fd = -1;
	u->rbuf = vf_umadsim_buf();
	u->sbuf = vf_umadsim_buf();
	if (!u->rbuf || !u->sbuf)
		return -1;
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0) {
		fprintf(stderr, "%s: no port (run under umad2sim)\n", prog);
		return -1;
	}
	u->port_guid = port.port_guid;
	u->portnum = port.portnum;
	snprintf(u->ca_name, sizeof(u->ca_name), "%s", port.ca_name);
	if (umad_get_ca(port.ca_name, &ca) == 0) {
		u->node_guid = be64toh(ca.node_guid);
		umad_release_ca(&ca);
	}
	u->fd = umad_open_port(port.ca_name, port.portnum);
	umad_release_port(&port);
	if (u->fd < 0) {
		fprintf(stderr, "%s: cannot open the port\n", prog);
		return -1;
	}
	u->smi_id = umad_register(u->fd, 0x81, 1, 0, mask);
	u->smp_id = umad_register(u->fd, 0x01, 1, 0, mask);
	if (u->smi_id < 0 || u->smp_id < 0) {
		fprintf(stderr, "%s: cannot register the SMP classes\n", prog);
		return -1;
	}
	return 0;
}

int vf_umadsim_register(struct vf_umadsim *u, uint8_t mgmt_class,
			uint8_t version, uint32_t oui, uint32_t methods)
{
	long mask[16 / sizeof(long)] = { (long)methods };
	uint8_t o[3] = { (uint8_t)(oui >> 16), (uint8_t)(oui >> 8),
			 (uint8_t)oui };

	if (oui)
		return umad_register_oui(u->fd, mgmt_class, 0, o, mask);
	return umad_register(u->fd, mgmt_class, version, 0, mask);
}

int vf_umadsim_claim_sm(struct vf_umadsim *u)
{
	char path[256];

	if (umad_get_issm_path(u->ca_name, u->portnum, path, sizeof(path)) < 0)
		return -1;
	u->issm_fd = open(path, O_RDWR);
	if (u->issm_fd < 0) {
		fprintf(stderr, "%s: cannot open %s: %s\n", u->prog, path,
			strerror(errno));
		return -1;
	}
	return 0;
}

uint8_t *vf_umadsim_buf(void)
{
	return calloc(1, umad_size() + BUF_SIZE);
}

int vf_umadsim_send_buf(struct vf_umadsim *u, uint8_t *buf, int agent,
			unsigned lid, int qpn, int len)
{
	umad_set_addr(buf, (int)lid, qpn, 0, qpn ? VF_UMADSIM_QP1_QKEY : 0);
	if (umad_send(u->fd, agent, buf, len, 0, 0) < 0) {
		fprintf(stderr, "%s: send failed: %s\n", u->prog,
			strerror(errno));
		return -1;
	}
	return 0;
}

int vf_umadsim_send(struct vf_umadsim *u, int agent, unsigned lid, int qpn,
		    int len)
{
	return vf_umadsim_send_buf(u, u->sbuf, agent, lid, qpn, len);
}

bool vf_umadsim_is_smp(const struct vf_umadsim *u)
{
	uint8_t cls = ((const uint8_t *)umad_get_mad(u->rbuf))[1];

	return cls == 0x81 || cls == 0x01;
}

/*
 * An SMP for the "SM" at this node: SMInfo Get answered as NOT ACTIVE
 * priority 0, anything else "attribute not supported", so that OpenSM
 * never waits for an answer.
 */
static void answer_smp(struct vf_umadsim *u, int len)
{
	uint8_t *mad = umad_get_mad(u->sbuf);
	ib_mad_addr_t *addr = umad_get_mad_addr(u->rbuf);
	uint16_t attr;
	bool dr;

	memset(mad, 0, VF_UMADSIM_MAD_SIZE);
	memcpy(mad, umad_get_mad(u->rbuf),
	       (size_t)(len < VF_UMADSIM_MAD_SIZE ? len : VF_UMADSIM_MAD_SIZE));
	dr = mad[1] == 0x81;
	attr = (uint16_t)(mad[16] << 8 | mad[17]);
	if (mad[3] & 0x80)
		return;		/* a response: not ours to answer */
	if (mad[3] == 0x01 && attr == ATTR_SM_INFO) {
		uint8_t *d = mad + VF_UMADSIM_SMP_DATA;

		memset(d, 0, 64);
		memcpy(d, &u->port_guid, 8);
		d[15] = 1;	/* OpenSM's default sm_key: no complaint */
		d[20] = 0;	/* priority 0, NOT ACTIVE */
		mad[4] = mad[5] = 0;
	} else {
		mad[4] = 0;
		mad[5] = 0x0C;	/* attribute not supported */
	}
	mad[3] = 0x81;
	if (dr) {
		mad[4] |= 0x80;	/* direction: response */
		umad_set_addr(u->sbuf, 0xffff, 0, 0, 0);
	} else {
		umad_set_addr(u->sbuf, ntohs(addr->lid), 0, 0, 0);
	}
	if (umad_send(u->fd, dr ? u->smi_id : u->smp_id, u->sbuf,
		      VF_UMADSIM_MAD_SIZE, 0, 0) < 0)
		fprintf(stderr, "%s: send failed: %s\n", u->prog,
			strerror(errno));
}

int vf_umadsim_recv(struct vf_umadsim *u, int timeout_ms)
{
	int len = VF_UMADSIM_RECV_LEN;

	if (umad_recv(u->fd, u->rbuf, &len, timeout_ms) < 0)
		return 0;
	if (vf_umadsim_is_smp(u)) {
		answer_smp(u, len);
		return 0;
	}
	return len > 0 ? len : 0;
}

int vf_umadsim_local_smp(struct vf_umadsim *u, uint16_t attr, uint32_t mod,
			 uint8_t data[VF_UMADSIM_SMP_DATA], int timeout_ms)
{
	uint8_t *mad = umad_get_mad(u->sbuf);
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
	/*
	 * A TID of our own, to know the answer among other SMPs; a new one
	 * each call (a late answer to an earlier call is not this one's),
	 * kept here: u->other may answer a MAD out of sbuf meanwhile.
	 */
	static uint8_t seq;
	uint32_t tid = 0x55000000u | (uint32_t)(getpid() & 0xffff) << 8 |
		       seq++;
	uint8_t want[4] = { (uint8_t)(tid >> 24), (uint8_t)(tid >> 16),
			    (uint8_t)(tid >> 8), (uint8_t)tid };

	memset(mad, 0, VF_UMADSIM_MAD_SIZE);
	mad[0] = 1;
	mad[1] = 0x81;
	mad[2] = 1;
	mad[3] = 0x01;
	mad[12] = (uint8_t)(tid >> 24);
	mad[13] = (uint8_t)(tid >> 16);
	mad[14] = (uint8_t)(tid >> 8);
	mad[15] = (uint8_t)tid;
	mad[16] = (uint8_t)(attr >> 8);
	mad[17] = (uint8_t)attr;
	mad[20] = (uint8_t)(mod >> 24);
	mad[21] = (uint8_t)(mod >> 16);
	mad[22] = (uint8_t)(mod >> 8);
	mad[23] = (uint8_t)mod;
	memset(mad + 32, 0xff, 4);	/* DrSLID, DrDLID permissive */
	umad_set_addr(u->sbuf, 0xffff, 0, 0, 0);
	if (umad_send(u->fd, u->smi_id, u->sbuf, VF_UMADSIM_MAD_SIZE,
		      timeout_ms, 0) < 0)
		return -1;
	while (now_ms() < deadline) {
		const uint8_t *r = umad_get_mad(u->rbuf);
		int len = VF_UMADSIM_RECV_LEN;

		if (umad_recv(u->fd, u->rbuf, &len, 200) < 0)
			continue;
		if (r[1] == 0x81 && r[3] == 0x81 && !memcmp(r + 12, want, 4)) {
			if (umad_status(u->rbuf))
				return -1;
			memcpy(data, r + VF_UMADSIM_SMP_DATA,
			       VF_UMADSIM_SMP_DATA);
			return 0;
		}
		if (vf_umadsim_is_smp(u))
			answer_smp(u, len);
		else if (u->other)
			u->other(u, len, u->arg);
	}
	return -1;
}

unsigned vf_umadsim_own_lid(struct vf_umadsim *u)
{
	uint8_t d[VF_UMADSIM_SMP_DATA];

	if (vf_umadsim_local_smp(u, ATTR_PORT_INFO, (uint32_t)u->portnum, d,
				 2000))
		return 0;
	return (unsigned)(d[16] << 8 | d[17]);	/* PortInfo.LID */
}

void vf_umadsim_close(struct vf_umadsim *u)
{
	if (u->issm_fd >= 0)
		close(u->issm_fd);
	u->issm_fd = -1;
	if (u->fd >= 0)
		umad_close_port(u->fd);
	u->fd = -1;
	free(u->rbuf);
	free(u->sbuf);
	u->rbuf = u->sbuf = NULL;
}
