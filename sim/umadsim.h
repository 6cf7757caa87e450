/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * What every agent process on ibsim needs from umad2sim (reference/
 * opensm-ibsim.md E): open the node's port, register classes, and
 * survive being an "SM".  Agents need the issm flag, as only such a client
 * gets unsolicited MADs; the flag makes the port claim IsSM, so OpenSM
 * asks it for SMInfo, and umad2sim kills a client that receives a class
 * it has not registered.  So the SMP classes are always registered here,
 * SMInfo is answered as an SM that is NOT ACTIVE and every other SMP with
 * "attribute not supported".
 *
 * The flag is taken by opening the issm device (vf_umadsim_claim_sm())
 * once every class is registered, not with SIM_SET_ISSM=1: that sets it
 * at connect, umad2sim's receiver thread runs from then on, and OpenSM
 * reacts to the capability change at once, so its SMInfo could arrive
 * before the registration and crash the client (seen).  Closing the
 * device clears IsSM again.
 *
 * Used by sim/ar-agent.c and sim/vnic-endpoint.c.
 */
#ifndef VF_UMADSIM_H
#define VF_UMADSIM_H

#include <stdbool.h>
#include <stdint.h>

#define VF_UMADSIM_QP1_QKEY 0x80010000
#define VF_UMADSIM_MAD_SIZE 256
/*
 * The length we ask umad_recv() for: umad2sim 0.10 copies the umad
 * header plus this many bytes out of its 288-byte packet buffer, so more
 * than 224 reads past that buffer.  It then prints "received data size
 * 320 larger than requested buf size 288" for every MAD, which is no
 * error (vnic-endpoint drops exactly that line: sim/errfilter.h).
 */
#define VF_UMADSIM_RECV_LEN 224
#define VF_UMADSIM_SMP_DATA 64

struct vf_umadsim {
	int fd;
	int smi_id, smp_id;		/* agents of classes 0x81 and 0x01 */
	int portnum;
	int issm_fd;			/* the issm device, while we hold it */
	char ca_name[64];
	uint64_t node_guid;		/* host order */
	uint64_t port_guid;		/* network order, as SMInfo has it */
	uint8_t *rbuf, *sbuf;		/* umad buffers; the MAD is at
					 * umad_get_mad() */
	const char *prog;		/* prefix of messages */
	/*
	 * Called for a MAD of another class that arrives while
	 * vf_umadsim_local_smp() waits for its answer.
	 */
	void (*other)(struct vf_umadsim *u, int len, void *arg);
	void *arg;
};

/*
 * umad_init, the first port of the node, its GUIDs, the SMP classes;
 * prints why on failure and returns -1.
 */
int vf_umadsim_open(struct vf_umadsim *u, const char *prog);

/*
 * Register a class for the methods in mask (bit n: method n); oui
 * non-zero for vendor range 2.  The agent id or -1.
 */
int vf_umadsim_register(struct vf_umadsim *u, uint8_t mgmt_class,
			uint8_t version, uint32_t oui, uint32_t methods);

/*
 * Receive one MAD into rbuf within timeout_ms.  SMPs are answered here
 * and 0 is returned; so is 0 on a timeout.  Otherwise the MAD's length
 * (at most VF_UMADSIM_RECV_LEN) for the caller to handle.
 */
int vf_umadsim_recv(struct vf_umadsim *u, int timeout_ms);

/* Take the issm flag, once every class is registered; 0 or -1. */
int vf_umadsim_claim_sm(struct vf_umadsim *u);

/* True if the MAD in rbuf is an SMP (answered by vf_umadsim_recv). */
bool vf_umadsim_is_smp(const struct vf_umadsim *u);

/*
 * A Get of SMP attribute attr (modifier mod) from our own port (directed
 * route, no hops); data gets its 64 bytes.  0, or -1 after timeout_ms.
 */
int vf_umadsim_local_smp(struct vf_umadsim *u, uint16_t attr, uint32_t mod,
			 uint8_t data[VF_UMADSIM_SMP_DATA], int timeout_ms);

/* Our port's LID from PortInfo (0: none yet or no answer). */
unsigned vf_umadsim_own_lid(struct vf_umadsim *u);

/* Send sbuf's MAD (len bytes) to lid's QP qpn with agent id; 0 or -1. */
int vf_umadsim_send(struct vf_umadsim *u, int agent, unsigned lid, int qpn,
		    int len);

/*
 * The same from umad buffer buf (from vf_umadsim_buf()), for a second
 * thread that sends: umad2sim serializes its writes.
 */
int vf_umadsim_send_buf(struct vf_umadsim *u, uint8_t *buf, int agent,
			unsigned lid, int qpn, int len);
uint8_t *vf_umadsim_buf(void);

void vf_umadsim_close(struct vf_umadsim *u);

#endif /* VF_UMADSIM_H */
