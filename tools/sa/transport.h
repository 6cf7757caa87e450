/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Talking to the SA through libibumad: one agent for class 0x03 version 2
 * (RMPP version 1, so a kernel reassembles multi-segment answers), sends
 * to the SM's LID, answers matched to requests by TID.
 *
 * Only the low 32 bits of a TID are ours: the kernel (and umad2sim, and
 * ibsim) write their agent and client numbers into the high 32.
 */
#ifndef VF_SA_TRANSPORT_H
#define VF_SA_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct vf_sa_port {
	int fd, agent;
	uint16_t lid, sm_lid;
	uint8_t lmc;
	uint8_t gid[16];		/* our port GID */
	int timeout_ms, retries;	/* per try; extra tries */
	size_t mad_max;			/* MAD bytes the transport keeps */
	size_t send_len;		/* bytes a send passes, 0: a MAD;
					 * fewer only for fault injection */
	bool status_final;		/* a umad status ends a query: no
					 * retry (ibsim's bounce is final) */
	uint32_t next_tid;
	void *rbuf;			/* receive umad + MAD */
	size_t rlen;			/* its MAD capacity */
	void *sbuf;			/* send umad + one MAD */
};

/* One MAD that arrived: data in the port's receive buffer. */
struct vf_sa_reply {
	const uint8_t *mad;
	size_t len;
	uint32_t tid;			/* low 32 bits */
	int umad_status;		/* non-zero: the send failed or timed
					   out, mad is our request */
	bool cut;			/* bytes past mad_max were lost */
};

/*
 * Open port (ca NULL: the first one; portnum 0: the first active one) and
 * register the SA agent.  sm_lid 0: the SM LID the port knows.  Errors
 * are printed; returns 0 or -1.
 */
int vf_sa_open(struct vf_sa_port *p, const char *ca, int portnum,
	       unsigned sm_lid, int timeout_ms, int retries);
void vf_sa_close(struct vf_sa_port *p);

/* A fresh TID (low 32 bits, never 0). */
uint32_t vf_sa_new_tid(struct vf_sa_port *p);

/* Send the 256-byte MAD (TID already in it) to the SM.  0 or -errno. */
int vf_sa_send(struct vf_sa_port *p, const uint8_t *mad);

/*
 * Wait up to timeout_ms (-1: forever) for one MAD.  0 and *r filled,
 * -ETIMEDOUT, or another -errno.
 */
int vf_sa_recv(struct vf_sa_port *p, int timeout_ms, struct vf_sa_reply *r);

/*
 * Send mad and wait for the answer with its TID, trying 1 + retries times
 * (a try ends after timeout_ms, or when the transport reports the send
 * failed).  Answers to other TIDs are dropped.  0 with *r set and *tries
 * the number of tries used, -ETIMEDOUT, or another -errno.
 */
int vf_sa_query(struct vf_sa_port *p, uint8_t *mad, struct vf_sa_reply *r,
		int *tries);

/*
 * Other classes on the same port (vfabric-em speaks the EMA class to
 * endpoints and asks the SA where they are): register class (oui
 * non-zero: vendor range 2) as a requester; the agent id or -1.
 */
int vf_sa_register(struct vf_sa_port *p, uint8_t mgmt_class,
		   uint8_t version, uint32_t oui);

/* Send the 256-byte MAD with agent to lid's QP 1.  0 or -errno. */
int vf_sa_send_to(struct vf_sa_port *p, int agent, unsigned lid,
		  const uint8_t *mad);

/*
 * vf_sa_query to any LID with any agent; also -EHOSTUNREACH when the
 * last try ended with a umad status (r->umad_status: under ibsim 110,
 * nobody at the LID takes the class; on a kernel, its own timeout).
 */
int vf_sa_query_to(struct vf_sa_port *p, int agent, unsigned lid,
		   uint8_t *mad, struct vf_sa_reply *r, int *tries);

/* The program named in messages ("vfabric-sa" unless changed). */
extern const char *vf_sa_prog;

/* Microseconds of CLOCK_MONOTONIC. */
uint64_t vf_now_us(void);

#endif
