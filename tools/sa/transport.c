// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The SA agent over libibumad.  Timeouts and retries are done here, not by
 * umad_send(): umad2sim ignores the kernel's timeout and retry fields, so
 * without our own wait a lost answer would block forever.  The timeout is
 * still passed to umad_send(), because a kernel drops any response to a
 * send that expects none.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "tools/sa/samad.h"
#include "tools/sa/transport.h"

#define QP1_QKEY 0x80010000
#define RBUF_START 65536	/* grows on ENOSPC: a kernel tells the size */
/*
 * umad2sim 0.10 receives each packet into a buffer of the size of ibsim's
 * struct sim_request (288 bytes) that also holds the 64-byte umad header:
 * only the first 224 bytes of a MAD are copied, the last 32 are stale heap
 * (while the length still says 256).  Its port is the CA "ibsim0".
 */
#define UMAD2SIM_CA "ibsim"
#define UMAD2SIM_MAD_BYTES 224

const char *vf_sa_prog = "vfabric-sa";

uint64_t vf_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void port_gid(uint8_t gid[16], const umad_port_t *port)
{
	memcpy(gid, &port->gid_prefix, 8);
	memcpy(gid + 8, &port->port_guid, 8);
}

int vf_sa_open(struct vf_sa_port *p, const char *ca, int portnum,
	       unsigned sm_lid, int timeout_ms, int retries)
{
	umad_port_t port;
	char name[UMAD_CA_NAME_LEN] = "";

	memset(p, 0, sizeof(*p));
	p->fd = p->agent = -1;
	p->timeout_ms = timeout_ms;
	p->retries = retries;
	/* distinct runs get distinct TIDs: easier to read in an SA log */
	p->next_tid = (uint32_t)getpid() << 12;
	if (ca)
		snprintf(name, sizeof(name), "%s", ca);
	if (umad_init() < 0 ||
	    umad_get_port(ca ? name : NULL, portnum, &port) < 0) {
		fprintf(stderr, "%s: no InfiniBand port (%s port %d)\n",
			vf_sa_prog, ca ? ca : "any CA", portnum);
		return -1;
	}
	p->lid = (uint16_t)port.base_lid;
	p->lmc = (uint8_t)port.lmc;
	p->sm_lid = (uint16_t)(sm_lid ? sm_lid : port.sm_lid);
	port_gid(p->gid, &port);
	snprintf(name, sizeof(name), "%s", port.ca_name);
	portnum = port.portnum;
	p->mad_max = strncmp(name, UMAD2SIM_CA, strlen(UMAD2SIM_CA)) ?
		SIZE_MAX : UMAD2SIM_MAD_BYTES;
	umad_release_port(&port);
	if (!p->sm_lid) {
		fprintf(stderr, "%s: the port knows no SM LID (give --sm-lid)\n",
			vf_sa_prog);
		return -1;
	}
	p->fd = umad_open_port(name, portnum);
	if (p->fd < 0) {
		fprintf(stderr, "%s: cannot open %s port %d\n", vf_sa_prog,
			name,
			portnum);
		return -1;
	}
	p->agent = umad_register(p->fd, VF_SA_CLASS, VF_SA_CLASS_VERSION, 1,
				 NULL);
	p->rlen = RBUF_START;
	p->rbuf = calloc(1, umad_size() + p->rlen);
	p->sbuf = calloc(1, umad_size() + VF_MAD_SIZE);
	if (p->agent < 0 || !p->rbuf || !p->sbuf) {
		fprintf(stderr, "%s: cannot register an SA agent\n",
			vf_sa_prog);
		vf_sa_close(p);
		return -1;
	}
	return 0;
}

void vf_sa_close(struct vf_sa_port *p)
{
	if (p->agent >= 0)
		umad_unregister(p->fd, p->agent);
	if (p->fd >= 0)
		umad_close_port(p->fd);
	free(p->rbuf);
	free(p->sbuf);
	p->rbuf = p->sbuf = NULL;
	p->fd = p->agent = -1;
}

uint32_t vf_sa_new_tid(struct vf_sa_port *p)
{
	if (!++p->next_tid)
		p->next_tid = 1;
	return p->next_tid;
}

int vf_sa_register(struct vf_sa_port *p, uint8_t mgmt_class,
		   uint8_t version, uint32_t oui)
{
	uint8_t o[3] = { (uint8_t)(oui >> 16), (uint8_t)(oui >> 8),
			 (uint8_t)oui };

	if (oui)
		return umad_register_oui(p->fd, mgmt_class, 0, o, NULL);
	return umad_register(p->fd, mgmt_class, version, 0, NULL);
}

int vf_sa_send_to(struct vf_sa_port *p, int agent, unsigned lid,
		  const uint8_t *mad)
{
	int rc;

	memcpy(umad_get_mad(p->sbuf), mad, VF_MAD_SIZE);
	umad_set_addr(p->sbuf, (int)lid, 1, 0, QP1_QKEY);
	rc = umad_send(p->fd, agent, p->sbuf,
		       p->send_len ? (int)p->send_len : VF_MAD_SIZE,
		       p->timeout_ms, 0);
	return rc < 0 ? -(errno ? errno : EIO) : 0;
}

int vf_sa_send(struct vf_sa_port *p, const uint8_t *mad)
{
	return vf_sa_send_to(p, p->agent, p->sm_lid, mad);
}

int vf_sa_recv(struct vf_sa_port *p, int timeout_ms, struct vf_sa_reply *r)
{
	int len, rc;
	void *nbuf;

	for (;;) {
		len = (int)p->rlen;
		rc = umad_recv(p->fd, p->rbuf, &len, timeout_ms);
		if (rc >= 0)
			break;
		if (rc != -ENOSPC && errno != ENOSPC)
			return rc == -ETIMEDOUT || errno == ETIMEDOUT ?
				-ETIMEDOUT : -(errno ? errno : EIO);
		/* a kernel-reassembled answer bigger than the buffer */
		nbuf = realloc(p->rbuf, umad_size() + (size_t)len);
		if (!nbuf || len <= (int)p->rlen)
			return -ENOMEM;
		p->rbuf = nbuf;
		p->rlen = (size_t)len;
		timeout_ms = 0;		/* it is there: read it now */
	}
	r->mad = umad_get_mad(p->rbuf);
	r->len = (size_t)len;
	r->cut = r->len > p->mad_max;
	if (r->cut)
		r->len = p->mad_max;
	r->umad_status = umad_status(p->rbuf);
	r->tid = len >= 16 ? (uint32_t)(r->mad[12] << 24 | r->mad[13] << 16 |
					r->mad[14] << 8 | r->mad[15]) : 0;
	return 0;
}

int vf_sa_query_to(struct vf_sa_port *p, int agent, unsigned lid,
		   uint8_t *mad, struct vf_sa_reply *r, int *tries)
{
	uint32_t tid = (uint32_t)(mad[12] << 24 | mad[13] << 16 |
				  mad[14] << 8 | mad[15]);
	uint64_t deadline;
	int64_t left;
	bool status = false;
	int rc;

	for (*tries = 1; *tries <= 1 + p->retries; ++*tries) {
		rc = vf_sa_send_to(p, agent, lid, mad);
		if (rc < 0)
			return rc;
		status = false;
		deadline = vf_now_us() + (uint64_t)p->timeout_ms * 1000;
		for (;;) {
			left = (int64_t)(deadline - vf_now_us());
			if (left <= 0)
				break;
			rc = vf_sa_recv(p, (int)((left + 999) / 1000), r);
			if (rc == -ETIMEDOUT)
				break;
			if (rc < 0)
				return rc;
			if (r->tid != tid)
				continue;	/* a late answer to a retry */
			if (r->umad_status) {
				if (p->status_final)
					return -EHOSTUNREACH;
				status = true;
				break;		/* lost or bounced: try again */
			}
			return 0;
		}
		if (*tries <= p->retries)
			fprintf(stderr, "%s: no answer to TID 0x%08x in %d ms (try %d of %d)\n",
				vf_sa_prog, tid, p->timeout_ms, *tries,
				1 + p->retries);
	}
	*tries = 1 + p->retries;
	return status ? -EHOSTUNREACH : -ETIMEDOUT;
}

int vf_sa_query(struct vf_sa_port *p, uint8_t *mad, struct vf_sa_reply *r,
		int *tries)
{
	int rc = vf_sa_query_to(p, p->agent, p->sm_lid, mad, r, tries);

	return rc == -EHOSTUNREACH ? -ETIMEDOUT : rc;
}
