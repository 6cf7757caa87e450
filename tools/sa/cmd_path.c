// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric-sa path: one PathRecord Get or GetTable, the component mask
 * built from the fields given, every record of the answer printed.
 */
#include <string.h>

#include "tools/sa/cli.h"

/* The record and its component mask from the options. */
static uint64_t path_request(const struct sa_opts *o, struct vf_path_rec *pr)
{
	uint64_t mask = 0;

	memset(pr, 0, sizeof(*pr));
#define FIELD(opt, bit, assign)			\
	do {					\
		if (given(o, opt)) {		\
			assign;			\
			mask |= (bit);		\
		}				\
	} while (0)
	FIELD(O_SID, VF_PR_SID, pr->service_id = o->sid);
	FIELD(O_DGID, VF_PR_DGID, memcpy(pr->dgid, o->dgid, 16));
	FIELD(O_SGID, VF_PR_SGID, memcpy(pr->sgid, o->sgid, 16));
	FIELD(O_DLID, VF_PR_DLID, pr->dlid = o->dlid);
	FIELD(O_SLID, VF_PR_SLID, pr->slid = o->slid);
	FIELD(O_REVERSIBLE, VF_PR_REVERSIBLE, pr->reversible = o->reversible);
	FIELD(O_NUMB_PATH, VF_PR_NUMBPATH, pr->numb_path = o->numb_path);
	FIELD(O_PKEY, VF_PR_PKEY, pr->pkey = o->pkey);
	FIELD(O_SL, VF_PR_SL, pr->sl = o->sl);
	/* "best" has no value to match: its selector alone */
	FIELD(O_MTU, VF_PR_MTU_SEL | (o->mtu_sel == VF_SEL_BEST ? 0 :
				      VF_PR_MTU),
	      (pr->mtu_sel = o->mtu_sel, pr->mtu = o->mtu));
	FIELD(O_RATE, VF_PR_RATE_SEL | (o->rate_sel == VF_SEL_BEST ? 0 :
					VF_PR_RATE),
	      (pr->rate_sel = o->rate_sel, pr->rate = o->rate));
	FIELD(O_PKT_LIFE, VF_PR_LIFE_SEL | (o->life_sel == VF_SEL_BEST ? 0 :
					    VF_PR_LIFE),
	      (pr->life_sel = o->life_sel, pr->life = o->life));
#undef FIELD
	return mask;
}

/* Print the PathRecords of an answer. */
static void print_records(const struct vf_sa_hdr *h,
			  const struct vf_sa_reply *r, unsigned count)
{
	struct vf_path_rec pr;

	for (unsigned i = 0; i < count; i++) {
		size_t off = VF_SA_HDR_SIZE +
			(size_t)i * (h->attr_offset ? h->attr_offset * 8u :
				     VF_PR_SIZE);

		if (off + VF_PR_SIZE > r->len)
			break;
		vf_pr_decode(r->mad + off, &pr);
		sa_print_path(&pr);
	}
}

int cmd_path(struct vf_sa_port *p, const struct sa_opts *o)
{
	uint8_t mad[VF_MAD_SIZE];
	struct vf_path_rec pr;
	struct vf_sa_hdr h;
	struct vf_sa_reply r;
	unsigned count;
	uint64_t mask;
	int rc;

	mask = path_request(o, &pr);
	sa_request_hdr(o, &h, vf_sa_new_tid(p),
		       given(o, O_GET) ? VF_METHOD_GET : VF_METHOD_GETTABLE,
		       VF_ATTR_PATH_RECORD, mask);
	vf_sa_request(mad, &h);
	vf_pr_encode(mad + VF_SA_HDR_SIZE, &pr);
	rc = sa_ask(p, mad, &h, &r, &count);
	if (rc == EXIT_ANSWERED && h.attr_id == VF_ATTR_PATH_RECORD)
		print_records(&h, &r, count);
	return rc;
}

/*
 * The MultiPathRecord component mask of the fields given: the PathRecord
 * one (path_request), bit by bit where MultiPathRecord has the field.
 */
static uint64_t mpath_request(const struct sa_opts *o, struct vf_path_rec *pr)
{
	static const struct { uint64_t pr, mpr; } bits[] = {
		{ VF_PR_SID, VF_MPR_SID },
		{ VF_PR_REVERSIBLE, VF_MPR_REVERSIBLE },
		{ VF_PR_NUMBPATH, VF_MPR_NUMBPATH },
		{ VF_PR_PKEY, VF_MPR_PKEY }, { VF_PR_SL, VF_MPR_SL },
		{ VF_PR_MTU_SEL, VF_MPR_MTU_SEL }, { VF_PR_MTU, VF_MPR_MTU },
		{ VF_PR_RATE_SEL, VF_MPR_RATE_SEL }, { VF_PR_RATE, VF_MPR_RATE },
		{ VF_PR_LIFE_SEL, VF_MPR_LIFE_SEL }, { VF_PR_LIFE, VF_MPR_LIFE },
	};
	uint64_t pr_mask = path_request(o, pr);
	uint64_t mask = VF_MPR_SGIDCOUNT | VF_MPR_DGIDCOUNT;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if ((pr_mask & bits[i].pr) == bits[i].pr)
			mask |= bits[i].mpr;
	return mask;
}

int cmd_mpath(struct vf_sa_port *p, const struct sa_opts *o)
{
	uint8_t mad[VF_MAD_SIZE], gids[VF_MPR_MAX_GIDS][16];
	struct vf_path_rec pr;
	struct vf_sa_hdr h;
	struct vf_sa_reply r;
	unsigned count;
	uint64_t mask;
	int rc;

	if (!o->nsgids || !o->ndgids)
		return sa_bad_usage("mpath needs --sgids and --dgids");
	memcpy(gids, o->sgids, 16 * (size_t)o->nsgids);
	memcpy(gids + o->nsgids, o->dgids, 16 * (size_t)o->ndgids);
	mask = mpath_request(o, &pr);
	sa_request_hdr(o, &h, vf_sa_new_tid(p), VF_METHOD_GETMULTI,
		       VF_ATTR_MULTIPATH_RECORD, mask);
	/* GetMulti travels by RMPP both ways: one segment here */
	h.rmpp_version = 1;
	h.rmpp_type = 1;		/* DATA */
	h.rmpp_flags = VF_RMPP_ACTIVE | VF_RMPP_FIRST | VF_RMPP_LAST;
	h.rmpp_seg = 1;
	h.rmpp_paylen = 20 + VF_MPR_FIXED +
			16 * (o->nsgids + o->ndgids);	/* SA header on */
	vf_sa_request(mad, &h);
	vf_mpr_encode(mad + VF_SA_HDR_SIZE, &pr, (const uint8_t (*)[16])gids,
		      o->nsgids, o->ndgids);
	rc = sa_ask(p, mad, &h, &r, &count);
	if (rc == EXIT_ANSWERED && (h.attr_id == VF_ATTR_PATH_RECORD ||
				    h.attr_id == VF_ATTR_MULTIPATH_RECORD))
		print_records(&h, &r, count);
	return rc;
}
