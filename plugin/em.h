/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The Ethernet Manager's files (docs/ethernet-manager.md): em.c (the
 * passes and traps, in a worker thread of its own; class 0x3B through
 * plugin/madbatch.c, unsolicited MADs handed to a callback), em_state.c
 * (the state file).
 * Include after <opensm/osm_config.h>.
 */
#ifndef VF_PLUGIN_EM_H
#define VF_PLUGIN_EM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vnic/ema.h"
#include "vnic/empolicy.h"

struct vf_plugin;

/* What the EM knows of one vport of an endpoint, across passes. */
struct em_vp {
	bool ours;			/* the EM configured it */
	uint16_t vesw_id;
	bool mac_known;			/* mac_n is how far the table reaches:
					 * the EM wrote or read it (false after
					 * an SM restart) */
	unsigned mac_n;			/* MAC entries the EM wrote */
	bool uc_known;			/* uc[] was fetched at generation uc_gen */
	uint16_t uc_gen;		/* uc_macs_gen_count the EM acted on */
	unsigned num_uc;		/* the host's own unicast MACs */
	uint8_t uc[VF_EMA_MAX_HOST_MACS][6];
};

enum em_cap { EM_CAP_UNKNOWN, EM_CAP_YES, EM_CAP_ABSENT };

/* One port that is, or was, a member: by PortGUID, across passes. */
struct em_ep {
	uint64_t guid;
	uint16_t lid;
	enum em_cap cap;
	unsigned num_vports;		/* ClassPortInfo cap_mask high byte */
	unsigned misses;		/* probes unanswered in a row */
	uint64_t next_probe;		/* absent: not before (vf_now_ms) */
	bool absent_logged;
	bool cpi_ok;			/* its trap LID is the SM's */
	bool key_ok;			/* it holds the EM's key */
	bool key_logged;		/* "holds another key" said */
	bool recon;			/* read back this pass (not a member:
					 * found after a start or takeover) */
	bool in_plan, alive;		/* this pass */
	struct em_vp vp[VF_EMA_MAX_VPORTS];
};

enum em_member_state {
	EM_ST_PENDING, EM_ST_CONFIGURED, EM_ST_UNCHANGED, EM_ST_ABSENT,
	EM_ST_FAILED,
};

/* One member vport in the last pass (for the summary and the state file). */
struct em_member_st {
	enum em_member_state state;
	unsigned ep;			/* index into the endpoints */
	struct vf_vesw have_vesw;
	bool have_vport_ok;		/* part 1 fields as wanted */
	bool p0, p1, macs;		/* what was set */
	uint8_t config_state, oper_state, link;
	uint16_t uc_gen;		/* uc_macs_gen_count read this pass */
	uint32_t digest, want_digest;
	unsigned num_macs;
	bool ctr_ok;
	struct vf_ema_summary ctr;
};

/*
 * Write vfabric-em-state.json into OpenSM's dump directory after a pass
 * (docs/ethernet-manager.md): every vESW, member, state and counter.
 */
void vf_em_state_write(struct vf_plugin *p, const struct vf_em_plan *pl,
		       const struct em_ep *eps, unsigned num_eps,
		       const struct em_member_st *st, unsigned pass,
		       unsigned bad_mads);

#endif /* VF_PLUGIN_EM_H */
