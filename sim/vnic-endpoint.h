/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * vnic-endpoint's process state, shared by its main file (options,
 * threads, the data path) and sim/vnic-mgmt.c (the EMA agent, host
 * events, the state dump).
 */
#ifndef VF_VNIC_ENDPOINT_H
#define VF_VNIC_ENDPOINT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/umadsim.h"
#include "vnic/datapath.h"
#include "vnic/ema-agent.h"
#include "vnic/tap.h"

#define VNIC_FRAME_BUF 65536

/* What the management side counts (besides the agent's own state). */
struct vnic_mgmt_stats {
	uint64_t requests;		/* EMA requests answered */
	uint64_t errors;		/* ... with a non-zero status */
	uint64_t ignored;		/* responses, traps, runts */
	uint64_t traps_sent, traps_bounced, traps_received;
	uint64_t tap_errors;		/* the TAP refused a MAC or MTU */
	uint64_t refusals_logged;	/* refused Sets printed one by one */
	struct vf_ema_trap last_trap;	/* the last one received */
};

struct endpoint {
	struct vf_umadsim u;
	int data_id, ema_id;
	bool managed;			/* the EM configures the vport */
	/*
	 * The agent's slot 0 is THE vport: the EM's Sets land there and
	 * the data path reads it (vp points into it).
	 */
	struct vf_ema_agent ema;
	struct vf_vport *vp;
	struct vf_dp dp;
	struct vf_tap tap;
	const char *tap_name, *netns, *state_file;
	unsigned lid;			/* 0: ask PortInfo */
	uint16_t sm_lid;		/* PortInfo.MasterSMLID, as last read */
	bool in_smp;			/* reading it: MADs meanwhile use the
					 * one held */
	bool mac_set;			/* else the section 8 MAC */
	bool host_up;			/* the TAP's IFF_UP as last seen */
	bool refused_logged;		/* up without a vESW: said once */
	uint8_t tap_mac[6];		/* what the TAP was given */
	uint16_t uc_gen;		/* the agent's unicast list, as seen */
	unsigned tap_mtu;
	bool dirty;			/* the state file is out of date */
	struct vnic_mgmt_stats ms;
	unsigned long tx_send_errors;	/* umad_send failed */
	unsigned long tx_bounced;	/* ibsim returned it: nobody there */
	unsigned long rx_host_errors;	/* the TAP refused a frame */
	uint64_t dumped_mads;		/* traffic at the last state dump */
	volatile uint64_t umad2sim_lines;	/* its size lines dropped */
	pthread_mutex_t lock;		/* dp, ema, counters */
	uint8_t *txbuf;			/* umad buffer of the TAP thread */
	uint8_t frame[VNIC_FRAME_BUF];	/* received, to the TAP */
	uint8_t txframe[VNIC_FRAME_BUF];	/* from the TAP */
};

uint64_t vnic_now_ms(void);
void vnic_mac_str(const uint8_t *m, char *s);

/* An EMA MAD of len bytes in ep->u.rbuf: answer it (lock held). */
void vnic_mgmt_mad(struct endpoint *ep, int len);

/*
 * The host side, every tick (lock held): the TAP's up/down and MAC
 * into the agent (and their traps).
 */
void vnic_mgmt_tick(struct endpoint *ep);

/* Apply the vport's MAC and MTU to the TAP if they changed. */
void vnic_mgmt_sync_tap(struct endpoint *ep);

/* Everything for a reader: vport, MAC table, counters. */
void vnic_print_state(struct endpoint *ep, FILE *out);
/* The same into --state FILE, atomically. */
void vnic_write_state(struct endpoint *ep);

#endif /* VF_VNIC_ENDPOINT_H */
