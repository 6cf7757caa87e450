// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The FM's test of a pre-created multicast group against its VF (see
 * mcfit.h).  At SM start the FM logs an error and disables such a group
 * (not fatal): the SA then has no group the VF's rules forbid.
 */
#include <stdio.h>

#include "partition/internal/mcfit.h"
#include "partition/query.h"
#include "partition/values.h"

static const char *mgid_str(const struct vf_mgid *m, char *buf, size_t size)
{
	snprintf(buf, size, "0x%016llx:0x%016llx", (unsigned long long)m->hi,
		 (unsigned long long)m->lo);
	return buf;
}

/* The SL a group's <SL> must equal: MulticastSL, else BaseSL; -1 unknown. */
static int wanted_sl(const struct vf_qos *q, int sl)
{
	return q->mcast_sl >= 0 ? q->mcast_sl : q->base_sl >= 0 ? q->base_sl :
	       sl;
}

/*
 * An MGID the VF's applications list is its own; one it takes only as an
 * UnmatchedMGID is its own unless another enabled VF's applications list
 * it (MatchExplicitMGIDtoVF).
 */
static const char *mgid_unfit(const struct vf_config *c,
			      const struct vf_cfg_vf *v,
			      const struct vf_mgid *m, char *buf, size_t size)
{
	char s[48];
	int how = vf_vf_takes_mgid(c, v, m);

	if (!how) {
		snprintf(buf, size, "MGID %s is taken by none of its Applications",
			 mgid_str(m, s, sizeof(s)));
		return buf;
	}
	for (unsigned j = 0; how == 1 && j < c->num_vfs; j++) {
		const struct vf_cfg_vf *o = &c->vfs[j];

		if (o == v || !o->enable || vf_vf_takes_mgid(c, o, m) != 2)
			continue;
		snprintf(buf, size,
			 "MGID %s is listed by the Applications of VirtualFabric '%s', so its own UnmatchedMGID does not take it",
			 mgid_str(m, s, sizeof(s)), o->name);
		return buf;
	}
	return NULL;
}

const char *vf_mcgroup_unfit(const struct vf_config *c,
			     const struct vf_mcgroup *g,
			     const struct vf_cfg_vf *v, int pkey, int sl,
			     char *buf, size_t size)
{
	const struct vf_qos *q = vf_config_vf_qos(c, v);
	int want = wanted_sl(q, sl);

	if (g->pkey >= 0 && pkey >= 0 && g->pkey != pkey) {
		snprintf(buf, size,
			 "its <PKey> 0x%04x is not the VirtualFabric's P_Key 0x%04x",
			 g->pkey, pkey);
		return buf;
	}
	if (g->mtu && v->max_mtu && g->mtu > v->max_mtu) {
		snprintf(buf, size,
			 "its <MTU> %u is above the VirtualFabric's MaxMTU %u",
			 g->mtu, v->max_mtu);
		return buf;
	}
	if (g->rate && v->max_rate &&
	    vf_rate_rank(g->rate) > vf_rate_rank(v->max_rate)) {
		snprintf(buf, size,
			 "its <Rate> is above the VirtualFabric's MaxRate");
		return buf;
	}
	if (g->sl >= 0 && !q->enable) {
		snprintf(buf, size,
			 "it gives <SL> %d, but the VirtualFabric has no QoS",
			 g->sl);
		return buf;
	}
	if (g->sl >= 0 && want >= 0 && g->sl != want) {
		snprintf(buf, size,
			 "its <SL> %d is not the VirtualFabric's %s %d", g->sl,
			 q->mcast_sl >= 0 ? "MulticastSL" : "BaseSL", want);
		return buf;
	}
	for (unsigned i = 0; i < g->num_mgids; i++)
		if (mgid_unfit(c, v, &g->mgids[i], buf, size))
			return buf;
	return NULL;
}
