/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * vfabric-em: what its files share.  em_cli.c parses the command line into
 * struct em_opts; client.c talks EMA to endpoints and NodeRecord to the
 * SA over vfabric-sa's transport (tools/sa/transport.h); show.c reads
 * (probe, show, macs, counters), em_set.c writes (set, macset, delete)
 * and sends raw requests.
 */
#ifndef VF_EMTOOL_H
#define VF_EMTOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/sa/transport.h"
#include "vnic/ema.h"

#define EM_EXIT_OK 0
#define EM_EXIT_TRANSPORT 1	/* no port, no answer, no endpoint */
#define EM_EXIT_USAGE 2
#define EM_EXIT_STATUS 3	/* an endpoint answered with an error */

#define EM_MAX_LIDS 1024
#define EM_MAX_MACSET 2048
#define EM_MAX_LID 0xBFFF

/* Options: each has a bit in em_opts.given. */
enum em_opt {
	EO_CA, EO_PORT, EO_SM_LID, EO_TIMEOUT, EO_RETRIES, EO_JSON,
	EO_VPORT, EO_VESW, EO_FABRIC, EO_PKEY, EO_MTU, EO_MAC, EO_SLID,
	EO_PORT_NUM, EO_STATE, EO_MCAST_DLID, EO_DEFAULT_DLID,
	EO_TRAP_LID, EO_TRAP_SL, EO_OFFSET, EO_DIGEST, EO_METHOD, EO_ATTR,
	EO_AMOD, EO_BASE_VERSION, EO_CLASS_VERSION, EO_OUI, EO_LEN,
	EO_DATA, EO_MAX_LID, EO_KEY, EO_NEW_KEY, EO_LEASE,
	EO_NOPTS
};

struct em_opts {
	uint64_t given;
	const char *ca;
	int port;
	unsigned sm_lid;
	int timeout_ms, retries;
	bool json;
	unsigned vport;
	/* set */
	uint16_t vesw, fabric, pkey, mtu;
	uint8_t mac[6];
	uint32_t slid, port_num, mcast_dlid;
	uint32_t default_dlid[16];
	unsigned n_default;
	uint8_t state;
	uint32_t trap_lid;
	uint8_t trap_sl;
	/* macset */
	unsigned offset;
	uint32_t digest;
	/* raw */
	uint8_t method, base_version, class_version;
	uint16_t attr;
	uint32_t amod, oui;
	unsigned len;
	uint8_t data[VF_EMA_DATA_SIZE];
	unsigned data_len;
	unsigned max_lid;
	/* the EM key every request carries (0: none); key's Set */
	uint64_t key, new_key;
	uint16_t lease;
	/* positional: LIDs, or MAC=LID for macset */
	char **args;
	unsigned nargs;
};

static inline bool em_given(const struct em_opts *o, enum em_opt which)
{
	return o->given >> which & 1;
}

struct em {
	struct vf_sa_port port;
	int ema_agent;
	const struct em_opts *o;
};

/* An answer of an endpoint. */
struct em_reply {
	uint8_t mad[VF_EMA_MAD_SIZE];	/* zero past what arrived */
	size_t len;
	struct vf_ema_hdr h;
};

/* The node of a LID, as the SA knows it. */
struct em_node {
	unsigned lid;
	uint8_t type;			/* 1 CA, 2 switch, 3 router */
	uint64_t node_guid, port_guid;
	char desc[65];
};

int em_open(struct em *e, const struct em_opts *o);
void em_close(struct em *e);

/* A zeroed request MAD with a fresh TID. */
void em_request(struct em *e, uint8_t *mad, uint8_t method, uint16_t attr,
		uint32_t amod);

/*
 * Send mad to lid and wait for its answer.  0 (the answer in *r, its
 * status in r->h.status), -EHOSTUNREACH (a umad status: under ibsim no
 * endpoint at lid), -ETIMEDOUT, -EPROTO (not an EMA answer), or another
 * -errno.  Problems other than 0 are printed (prefixed with the LID)
 * unless quiet.
 */
int em_call(struct em *e, unsigned lid, uint8_t *mad, struct em_reply *r,
	    bool quiet);

/* A Get of attr/amod: 0 and status 0, EM_EXIT_* otherwise (printed). */
int em_get(struct em *e, unsigned lid, uint16_t attr, uint32_t amod,
	   struct em_reply *r);

/* NodeRecord of lid from the SA: 0, or -ENOENT / -errno. */
int em_node(struct em *e, unsigned lid, struct em_node *n);

/*
 * Every CA port LID the SA has a NodeRecord for, probing LIDs up to
 * max_lid and stopping 64 LIDs past the last one found.
 */
int em_discover(struct em *e, unsigned max_lid, struct em_node *nodes,
		unsigned cap, unsigned *n);

const char *em_state_name(unsigned s);
const char *em_link_name(unsigned s);
void em_mac_str(const uint8_t *m, char *s);

int cmd_probe(struct em *e, const struct em_opts *o);
int cmd_show(struct em *e, const struct em_opts *o);
int cmd_macs(struct em *e, const struct em_opts *o);
int cmd_counters(struct em *e, const struct em_opts *o);
int cmd_set(struct em *e, const struct em_opts *o);
int cmd_macset(struct em *e, const struct em_opts *o);
int cmd_delete(struct em *e, const struct em_opts *o);
int cmd_raw(struct em *e, const struct em_opts *o);
int cmd_key(struct em *e, const struct em_opts *o);

#endif /* VF_EMTOOL_H */
