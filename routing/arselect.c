// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* Egress choice among a port group (routing/arselect.h). */
#include "arselect.h"

unsigned vf_arsel_threshold_pct(unsigned threshold)
{
	static const unsigned pct[8] = { 80, 100, 90, 80, 70, 65, 60, 55 };

	return pct[threshold & 7];
}

uint64_t vf_arsel_interval_ms(unsigned frequency)
{
	return 64ull << (frequency & 7);
}

uint32_t vf_arsel_random(uint32_t *state)
{
	uint32_t x = *state ? *state : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* Up, and not lost for this LID (a neighbor's ARLostRoutes). */
static bool usable(const struct vf_arsel_port *ports, unsigned n,
		   const struct vf_ar_mask *lost, unsigned port)
{
	return port >= 1 && port <= n && !ports[port].down &&
	       !(lost && vf_ar_mask_has(lost, port));
}

/* The least loaded up member other than cur (lowest port on ties), 0. */
static unsigned least_loaded(const struct vf_ar_mask *g,
			     const struct vf_arsel_port *ports, unsigned n,
			     const struct vf_ar_mask *lost, unsigned cur)
{
	unsigned best = 0;

	for (unsigned q = 1; q <= n; q++)
		if (q != cur && vf_ar_mask_has(g, q) &&
		    usable(ports, n, lost, q) &&
		    (!best || ports[q].load < ports[best].load))
			best = q;
	return best;
}

/* A uniform pick among the up members other than cur (below limit, when
 * limit is non-zero); 0 when there is none. */
static unsigned random_member(const struct vf_ar_mask *g,
			      const struct vf_arsel_port *ports, unsigned n,
			      const struct vf_ar_mask *lost, unsigned cur,
			      unsigned limit, uint32_t *rng)
{
	unsigned count = 0, k = 0;

	for (int pass = 0; pass < 2; pass++) {
		if (pass) {
			if (!count)
				return 0;
			k = vf_arsel_random(rng) % count;
		}
		for (unsigned q = 1; q <= n; q++) {
			if (q == cur || !vf_ar_mask_has(g, q) ||
			    !usable(ports, n, lost, q) ||
			    (limit && ports[q].load >= limit))
				continue;
			if (!pass)
				count++;
			else if (!k--)
				return q;
		}
	}
	return 0;
}

static unsigned pick(const struct vf_arsel_params *p,
		     const struct vf_ar_mask *g,
		     const struct vf_arsel_port *ports, unsigned n,
		     const struct vf_ar_mask *lost, unsigned cur, uint32_t *rng)
{
	unsigned q;

	switch (p->algorithm) {
	case VF_AR_RANDOM:
		return random_member(g, ports, n, lost, cur, 0, rng);
	case VF_AR_GREEDY:
		return least_loaded(g, ports, n, lost, cur);
	default:
		q = random_member(g, ports, n, lost, cur,
				  vf_arsel_threshold_pct(p->threshold), rng);
		return q ? q : least_loaded(g, ports, n, lost, cur);
	}
}

unsigned vf_arsel_choose(const struct vf_arsel_params *p,
			 const struct vf_ar_mask *group, unsigned static_port,
			 const struct vf_arsel_port *ports, unsigned num_ports,
			 struct vf_arsel_flow *flow, uint64_t now_ms,
			 uint32_t *rng)
{
	return vf_arsel_choose_lost(p, group, static_port, ports, num_ports,
				    NULL, flow, now_ms, rng);
}

unsigned vf_arsel_choose_lost(const struct vf_arsel_params *p,
			      const struct vf_ar_mask *group,
			      unsigned static_port,
			      const struct vf_arsel_port *ports,
			      unsigned num_ports, const struct vf_ar_mask *lost,
			      struct vf_arsel_flow *flow, uint64_t now_ms,
			      uint32_t *rng)
{
	unsigned cur = static_port, next;
	bool gone, congested;

	if (!group || !vf_ar_mask_has(group, static_port))
		return static_port;
	if (flow && flow->port && vf_ar_mask_has(group, flow->port))
		cur = flow->port;
	if (flow && flow->port != cur) {
		flow->port = (uint8_t)cur;
		flow->moved_ms = now_ms;
	}
	gone = !usable(ports, num_ports, lost, cur);
	congested = !gone && !p->lost_route_only &&
		    ports[cur].load >= vf_arsel_threshold_pct(p->threshold);
	if (!gone && !congested)
		return cur;
	if (!gone && flow &&
	    now_ms - flow->moved_ms < vf_arsel_interval_ms(p->frequency))
		return cur;
	next = pick(p, group, ports, num_ports, lost, cur, rng);
	/* greedy moves only to a port less loaded than the congested one */
	if (!next || (!gone && p->algorithm == VF_AR_GREEDY &&
		      ports[next].load >= ports[cur].load))
		return cur;
	if (flow) {
		flow->port = (uint8_t)next;
		flow->moved_ms = now_ms;
	}
	return next;
}
