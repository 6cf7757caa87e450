/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The endpoint side of the Ethernet management protocol: what a VNIC
 * endpoint answers the Ethernet Manager for one physical port, and the
 * traps it raises when the host changes something (reference/vnic-ema.md
 * sections 3-4, as adapted in docs/ema-protocol.md).
 *
 * Pure: no I/O, no clock, no allocation.  The caller receives a MAD,
 * passes it to vf_ema_agent_handle() and sends back what it writes; the
 * host side calls vf_ema_agent_set_admin() / vf_ema_agent_set_macs() and
 * sends the trap MAD they may write to ClassPortInfo's trap LID and SL.
 * Not thread-safe: one caller at a time per agent.
 */
#ifndef VF_EMA_AGENT_H
#define VF_EMA_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ema.h"
#include "routing/mgmtkey.h"
#include "vport.h"

#define VF_EMA_RESP_TIME 18	/* 4.096 us << 18 = 1.07 s */
#define VF_EMA_TRAP_WINDOW_MS 1074	/* the same 1.07 s, rounded up */
#define VF_EMA_TRAP_BURST 5		/* traps per window and vport */

/* A host MAC list: the interface's unicast or multicast addresses. */
struct vf_ema_host_macs {
	unsigned n;
	uint8_t mac[VF_EMA_MAX_HOST_MACS][6];
};

/* One vport index of the port. */
struct vf_ema_slot {
	struct vf_vport vport;		/* the shared record: POD values
					 * until the EM creates it */
	struct vf_ema_host_macs uc, mc;	/* as the host last set them */
	struct vf_ema_summary summary;	/* counted by the data path */
	struct vf_ema_errors errors;
	uint64_t trap_window_ms;	/* start of the rate-limit window */
	unsigned traps_in_window;
};

/*
 * Who may Set (docs/ema-protocol.md, "Authentication"): the master SM's
 * port, carrying the EM key once one is held.  The key is like M_Key: a
 * Set with another key starts the lease timer, and a lease that runs out
 * with no Set carrying the key clears it, so that an EM that never knew
 * it (a new SM after a takeover) can set its own.
 */
struct vf_ema_auth {
	struct vf_mkey mkey;		/* the key, its lease, the Sets refused
					 * for it (routing/mgmtkey.h, as the
					 * AR_Key of a switch) */
	uint64_t not_sm;		/* Sets refused: not the master SM */
	uint64_t expired;		/* keys cleared by the lease */
};

/* Where a request came from, as the caller knows it. */
struct vf_ema_src {
	uint16_t slid;			/* the fabric's, not the MAD's */
	uint16_t sm_lid;		/* the port's MasterSMLID (PortInfo) */
	uint64_t now_ms;		/* a monotonic clock, for the lease */
};

struct vf_ema_agent {
	uint16_t phys_port;
	unsigned num_vports;		/* indexes 0..num_vports-1 */
	struct vf_ema_cpi cpi;		/* as the EM set it */
	uint32_t trap_tid;		/* last trap's TID */
	struct vf_ema_auth auth;	/* changed by refused Sets too */
	struct vf_vport scratch;	/* a decoded Set, checked before use */
	struct vf_ema_slot slot[VF_EMA_MAX_VPORTS];
};

/* An agent with no vports and no trap LID; -EINVAL for a bad count. */
int vf_ema_agent_init(struct vf_ema_agent *a, uint16_t phys_port,
		      unsigned num_vports);

/*
 * Answer request req[0..req_len) from src: write the reply (a GetResp
 * echoing the request's header and OUI, with the status; the RMPP bytes,
 * and so the key, 0) into reply and return its length, VF_EMA_MAD_SIZE;
 * 0 when there is nothing to answer (a response, Trap or TrapRepress,
 * shorter than a MAD header, or reply_cap < VF_EMA_MAD_SIZE).  A Set not
 * from src->sm_lid is refused VF_EMA_NOT_SM, one without the key held
 * VF_EMA_BAD_KEY; an erroneous request changes nothing but a->auth's
 * counters and lease timer.
 */
size_t vf_ema_agent_handle(struct vf_ema_agent *a, const uint8_t *req,
			   size_t req_len, const struct vf_ema_src *src,
			   uint8_t *reply, size_t reply_cap);

/*
 * Clear the key if its lease ran out by now_ms: true when it did just
 * now (the caller may log it).  vf_ema_agent_handle() calls it too.
 */
bool vf_ema_agent_expire(struct vf_ema_agent *a, uint64_t now_ms);

/* The created vport at index i, or NULL. */
struct vf_vport *vf_ema_agent_vport(struct vf_ema_agent *a, unsigned i);

/*
 * Recompute oper_state and eth_link_status from config_state, vesw_id
 * and admin_up (section 4.1): forwarding only when the EM says
 * FORWARDING, the vESW id is set and the host's interface is up.
 */
void vf_ema_vport_update_state(struct vf_vport *v);

/*
 * The host brings vport i's interface up or down at now_ms.  Returns the
 * length of the link trap written into trap[0..cap) (opcode 3), 0 when
 * none is due (no change, no trap LID, rate limit), -ENOENT (no such
 * vport), -EINVAL (up without a vESW id, as hfi1 refuses), -ENOSPC (cap
 * below a MAD).
 */
int vf_ema_agent_set_admin(struct vf_ema_agent *a, unsigned i, bool up,
			   uint64_t now_ms, uint8_t *trap, size_t cap);

/*
 * The host's unicast (mcast false: own and secondary addresses) or
 * multicast list of vport i is now macs[0..n).  The generation count
 * always moves; a trap (opcode 1 or 2) is written when the list differs
 * from the last one.  Returns as vf_ema_agent_set_admin, -E2BIG when n >
 * VF_EMA_MAX_HOST_MACS.
 */
int vf_ema_agent_set_macs(struct vf_ema_agent *a, unsigned i, bool mcast,
			  const uint8_t (*macs)[6], unsigned n,
			  uint64_t now_ms, uint8_t *trap, size_t cap);

/*
 * The interface of vport i has address hw now (a poller's view: no
 * secondary addresses).  Its unicast list is hw unless that is the EM's
 * base MAC (section 3.4), and it goes through vf_ema_agent_set_macs()
 * only when that differs from the list held, so polling every tick
 * neither moves the generation count nor traps.  While the vport has no
 * base MAC the interface's address is not the host's choice: nothing
 * changes.  Returns as vf_ema_agent_set_macs.
 */
int vf_ema_agent_host_mac(struct vf_ema_agent *a, unsigned i,
			  const uint8_t hw[6], uint64_t now_ms, uint8_t *trap,
			  size_t cap);

#endif /* VF_EMA_AGENT_H */
