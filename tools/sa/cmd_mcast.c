// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric-sa join / leave: MCMemberRecord Set and Delete, as an IPoIB
 * driver or an RDMA CM multicast user sends them, and the SA's record
 * printed.
 */
#include <string.h>

#include "tools/sa/cli.h"

static uint64_t mcast_request(const struct vf_sa_port *p,
			      const struct sa_opts *o, bool join,
			      struct vf_mcmember_rec *mr)
{
	bool create = join && given(o, O_CREATE);
	uint64_t mask = VF_MCR_MGID | VF_MCR_PORT_GID | VF_MCR_JOIN_STATE;

	memset(mr, 0, sizeof(*mr));
	memcpy(mr->mgid, o->mgid, 16);		/* zero: the SA picks one */
	memcpy(mr->port_gid, given(o, O_PORT_GID) ? o->port_gid : p->gid, 16);
	mr->join_state = o->join_state;
	if (!join)
		return mask;
	if (create) {
		mask |= VF_MCR_CREATE;
		mr->pkey = 0xffff;
	}
	if (given(o, O_PKEY)) {
		mr->pkey = o->pkey;
		mask |= VF_MCR_PKEY;
	}
	if (given(o, O_QKEY)) {
		mr->qkey = o->qkey;
		mask |= VF_MCR_QKEY;
	}
	if (given(o, O_SL)) {
		mr->sl = o->sl;
		mask |= VF_MCR_SL;
	}
	if (given(o, O_TCLASS)) {
		mr->tclass = o->tclass;
		mask |= VF_MCR_TCLASS;
	}
	if (given(o, O_MTU)) {
		mr->mtu_sel = o->mtu_sel;
		mr->mtu = o->mtu;
		mask |= VF_MCR_MTU_SEL |
			(o->mtu_sel == VF_SEL_BEST ? 0 : VF_MCR_MTU);
	}
	if (given(o, O_RATE)) {
		mr->rate_sel = o->rate_sel;
		mr->rate = o->rate;
		mask |= VF_MCR_RATE_SEL |
			(o->rate_sel == VF_SEL_BEST ? 0 : VF_MCR_RATE);
	}
	return mask;
}

int cmd_mcast(struct vf_sa_port *p, const struct sa_opts *o, bool join)
{
	uint8_t mad[VF_MAD_SIZE];
	struct vf_mcmember_rec mr;
	struct vf_sa_hdr h;
	struct vf_sa_reply r;
	unsigned count;
	uint64_t mask;
	int rc;

	mask = mcast_request(p, o, join, &mr);
	sa_request_hdr(o, &h, vf_sa_new_tid(p),
		       join ? VF_METHOD_SET : VF_METHOD_DELETE,
		       VF_ATTR_MCMEMBER_RECORD, mask);
	vf_sa_request(mad, &h);
	vf_mcr_encode(mad + VF_SA_HDR_SIZE, &mr);
	rc = sa_ask(p, mad, &h, &r, &count);
	if (rc != EXIT_ANSWERED || h.attr_id != VF_ATTR_MCMEMBER_RECORD ||
	    !count || r.len < VF_SA_HDR_SIZE + VF_MCR_SIZE - 4)
		return rc;
	vf_mcr_decode(r.mad + VF_SA_HDR_SIZE, &mr);
	sa_print_mcmember(&mr);
	return EXIT_ANSWERED;
}
