/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Which virtual fabrics a PathRecord query between two ports is answered
 * from, by the Omni-Path FM's rules (reference/opa-fm.md 2.1 step 5-7 and
 * 8.3): ServiceID -> Applications -> VFs (a VF listing the ServiceID
 * explicitly suppresses every VF that would take it only as unmatched),
 * P_Key and SL in the query narrowing the match, both ports members and at
 * least one of them full, and VFs of the same (P_Key, SL) folded into one
 * answer with the smallest MTU and rate and the largest lifetime
 * multiplier.  Used by the SA handlers and, step by step, by `vfabric
 * explain`.
 */
#ifndef VF_QUERY_H
#define VF_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "partition/config.h"
#include "partition/dgresolve.h"
#include "partition/plan.h"

/*
 * What a query is answered from: the configuration, each VF's P_Key and
 * SL as the plan gave them (P_Key 0: the VF is not active), and each
 * port's membership of each VF by row (enum vf_membership; see
 * vf_vf_members_build).  Immutable while queries read it.
 */
struct vf_path_policy {
	const struct vf_config *c;
	const uint16_t *vf_pkey;
	const int *vf_sl;
	const uint8_t *member;		/* [row * c->num_vfs + vf] */
};

struct vf_path_query {
	uint32_t src, dst;		/* rows of policy->member */
	bool sid_given;
	uint64_t sid;
	int pkey;			/* 15 bits, -1 not given */
	int sl;				/* -1 not given */
};

/* One answer: a (P_Key, SL) and its parameters. */
struct vf_path_answer {
	unsigned vf;			/* the first VF folded into it */
	uint16_t pkey;			/* 15 bits */
	int sl;
	unsigned mtu;			/* bytes, 0 unlimited */
	unsigned rate;			/* IB rate code, 0 unlimited */
	unsigned life_exp;		/* log2 of PktLifeTimeMult, rounded up */
};

struct vf_path_answers {
	struct vf_path_answer *v;
	unsigned n;
	struct vf_names trace;		/* why, step by step (may be empty) */
};

/*
 * Answer q under policy p; explain adds a line per decision to a->trace.
 * 0 or -ENOMEM.
 */
int vf_path_vfs(const struct vf_path_policy *p, const struct vf_path_query *q,
		bool explain, struct vf_path_answers *a);
void vf_path_answers_free(struct vf_path_answers *a);

/* Application a (with its includes): 2 lists sid, 1 takes it only as an
 * unmatched ServiceID, 0 neither. */
int vf_app_sid_match(const struct vf_config *c, const struct vf_app *a,
		     uint64_t sid);

/* VF v's applications: 2 list MGID m, 1 take it only as an unmatched
 * MGID, 0 neither. */
int vf_vf_takes_mgid(const struct vf_config *c, const struct vf_cfg_vf *v,
		     const struct vf_mgid *m);

/* Port slot p's membership of VF i (enum vf_membership), from m. */
uint8_t vf_vf_membership(const struct vf_config *c,
			 const struct vf_dg_members *m, unsigned i,
			 uint32_t p);

/*
 * The membership rows of the ports slots[0..n-1] for every VF of c:
 * *out is malloc'ed, n * c->num_vfs bytes.  0 or -ENOMEM.
 */
int vf_vf_members_build(const struct vf_config *c,
			const struct vf_dg_members *m, const uint32_t *slots,
			uint32_t n, uint8_t **out);

#endif /* VF_QUERY_H */
