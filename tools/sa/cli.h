/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * vfabric-sa: what the subcommands share.  main() parses every option
 * into struct sa_opts (one table for all commands, each command saying
 * which it takes), opens the port, and calls the command.
 */
#ifndef VF_SA_CLI_H
#define VF_SA_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/sa/samad.h"
#include "tools/sa/transport.h"

#define EXIT_ANSWERED 0		/* the SA answered, whatever its status */
#define EXIT_TRANSPORT 1	/* no answer, or no port */
#define EXIT_USAGE 2

/* Options; each has a bit in sa_opts.given. */
enum sa_opt {
	O_CA, O_PORT, O_SM_LID, O_TIMEOUT, O_RETRIES,
	O_COMP_MASK, O_METHOD, O_ATTR_ID, O_CLASS_VERSION, O_ATTR_MOD,
	O_GET, O_SLID, O_DLID, O_SGID, O_DGID, O_SID, O_PKEY, O_SL,
	O_NUMB_PATH, O_REVERSIBLE, O_MTU, O_RATE, O_PKT_LIFE,
	O_MGID, O_PORT_GID, O_QKEY, O_JOIN_STATE, O_CREATE, O_TCLASS,
	O_DLIDS, O_COUNT, O_WINDOW, O_SGIDS, O_DGIDS,
	O_BASE_VERSION, O_RMPP_FLAGS, O_SM_KEY, O_SEND_LEN, O_DATA,
	O_JSON,
	O_NOPTS
};

#define OPT(o) (1ull << (o))
#define OPTS_COMMON (OPT(O_CA) | OPT(O_PORT) | OPT(O_SM_LID) | \
		     OPT(O_TIMEOUT) | OPT(O_RETRIES))
#define OPTS_RAW (OPT(O_COMP_MASK) | OPT(O_METHOD) | OPT(O_ATTR_ID) | \
		  OPT(O_CLASS_VERSION) | OPT(O_ATTR_MOD) | \
		  OPT(O_BASE_VERSION) | OPT(O_RMPP_FLAGS) | OPT(O_SM_KEY) | \
		  OPT(O_SEND_LEN))

struct sa_opts {
	uint64_t given;
	const char *ca;
	int port;
	unsigned sm_lid;
	int timeout_ms, retries;
	/* raw header overrides (fault injection) */
	uint64_t comp_mask;
	uint8_t method, class_version;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint8_t base_version, rmpp_flags;
	uint64_t sm_key;
	unsigned send_len;		/* bytes sent, 0: the whole MAD */
	/* raw: the payload after the SA header */
	uint8_t data[VF_SA_DATA_SIZE];
	size_t data_len;
	/* PathRecord and MCMemberRecord fields */
	uint16_t slid, dlid, pkey;
	uint8_t sgid[16], dgid[16], mgid[16], port_gid[16];
	uint64_t sid;
	uint8_t sl, numb_path, tclass;
	bool reversible;
	uint8_t mtu_sel, mtu, rate_sel, rate, life_sel, life;
	uint32_t qkey;
	uint8_t join_state;
	/* mpath: the source and the destination GIDs */
	uint8_t sgids[VF_MPR_MAX_GIDS][16], dgids[VF_MPR_MAX_GIDS][16];
	unsigned nsgids, ndgids;
	/* bench */
	const char *dlids, *sids;	/* unparsed lists */
	unsigned long count;
	unsigned window;
};

static inline bool given(const struct sa_opts *o, enum sa_opt which)
{
	return o->given & OPT(which);
}

int sa_bad_usage(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/*
 * The header of a request, raw overrides applied; sa_ask() applies the
 * base version, RMPP flags and SM_Key (bytes), main() the send length.
 */
void sa_request_hdr(const struct sa_opts *o, struct vf_sa_hdr *h,
		    uint32_t tid, uint8_t method, uint16_t attr,
		    uint64_t comp_mask);

/*
 * "status 0xNNNN NAME records N truncated N tries N", then a record per
 * line; with --json the same fields gathered into one object that main()
 * prints once the command is done.
 */
void sa_print_status(const struct vf_sa_hdr *h, unsigned records,
		     bool truncated, int tries);
void sa_print_path(const struct vf_path_rec *pr);
void sa_print_mcmember(const struct vf_mcmember_rec *mr);

/*
 * Send a request and print the answer's status line; the records are the
 * caller's.  Returns EXIT_*; on an answer rh, r and count are set.
 */
int sa_ask(struct vf_sa_port *p, uint8_t *mad, struct vf_sa_hdr *rh,
	   struct vf_sa_reply *r, unsigned *count);

int cmd_path(struct vf_sa_port *p, const struct sa_opts *o);
int cmd_mpath(struct vf_sa_port *p, const struct sa_opts *o);
int cmd_mcast(struct vf_sa_port *p, const struct sa_opts *o, bool join);
int cmd_bench(struct vf_sa_port *p, const struct sa_opts *o);
int cmd_raw(struct vf_sa_port *p, const struct sa_opts *o);

#endif
