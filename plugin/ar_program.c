// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Adaptive routing on the switches (docs/ar-protocol.md): after one of our
 * engines routed, compute the AR tables of that routing and program them
 * through the AR vendor class, bound once on OpenSM's own port.  This
 * runs at SUBNET_UP (sweeper thread, no OpenSM lock held), not at
 * UCAST_ROUTING_DONE: the MADs are LID-routed, and only at SUBNET_UP are
 * the new LFTs acknowledged by every switch (on the first sweep a probe
 * sent at UCAST_ROUTING_DONE finds no route).
 *
 * Forwarding changes under a paused AR, as the FM does it: at
 * HEAVY_SWEEP_DONE, before routing, every switch we programmed is paused
 * (ARControl pause=1, next generation: it keeps its tables and adapts
 * nothing), and at SUBNET_UP every one is resumed, rewritten or not.  A
 * resume is the SM reprogramming the switch: its lost-route marks go.
 *
 * A pass is batches of asynchronous MADs (plugin/madbatch.c: at
 * most AR_WINDOW in flight, matched to their answers by TID, each retried
 * AR_RETRIES times after AR_TIMEOUT_MS, the whole pass bounded by
 * AR_BUDGET_MS):
 *   1. Get ARInfo from every switch not known to lack AR: the probe of a
 *      new switch, the generation and state of a known one, whether it
 *      holds our AR_Key;
 *   1b. Set ARKeyInfo where the switch holds no key (ours and the lease);
 *      where it holds another (a previous SM's) the refusal starts its
 *      lease, and the switch is taken after it (a heavy sweep then);
 *   2. Set ARControl pause=1 (next generation) where anything changed and
 *      the switch was not paused before routing;
 *   3. Set the PortGroup, PortGroupLid and ARNeighbors blocks that differ
 *      from what the switch holds (a per-switch shadow of what was
 *      programmed);
 *   4. Set ARControl with the new group top, pause=0: the switch swaps in
 *      the new tables at once.
 * Every request carries the AR_Key (ar_key, or a random one per start):
 * the switches take the Sets only from the master SM's port with it
 * (docs/threat-model.md).
 * A switch that fails a step stays paused on its old tables (the agent
 * keeps using them) and is rewritten in full next sweep.  A switch that
 * does not answer the probe keeps static routes; it is logged once and
 * probed again after 1, 2, 4, ... up to AR_REPROBE_MAX passes, so that a
 * switch whose AR comes up later (an agent restarted, firmware enabled)
 * is taken in without a probe of every such switch on every pass.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/madbatch.h"
#include "plugin/metrics.h"
#include "plugin/plugin.h"
#include "routing/ar.h"
#include "routing/arproto.h"
#include "common/log.h"

#define AR_WINDOW 16		/* requests in flight */
#define AR_TIMEOUT_MS 300
#define AR_RETRIES 2
#define AR_BUDGET_MS 5000	/* one pass, all batches */
#define AR_TID_BASE 0xA5000000u	/* low 32 bits: clear of OpenSM's own */
#define AR_PAUSE_BUDGET_MS 1500	/* the pause before routing: the sweep waits */

_Static_assert(VF_ARP_MAD_SIZE == MB_MAD_SIZE && VF_ARP_USED <= MB_USED,
	       "AR MADs fit plugin/madbatch.h's requests");

enum ar_cap { CAP_UNKNOWN, CAP_YES, CAP_NO };

#define AR_REPROBE_MAX 64	/* passes between probes of a switch without AR */

/* What we know of one switch (by NodeGUID), kept across sweeps. */
struct ar_sw {
	uint64_t guid;
	enum ar_cap cap;
	unsigned reprobe_in;		/* CAP_NO: passes until the next probe */
	unsigned reprobe_gap;		/* and the gap after that one */
	struct vf_arp_info info;	/* from the last ARInfo */
	bool known;			/* the shadow below is what it holds */
	uint32_t generation;		/* its active generation, as we left it */
	struct vf_arp_control ctl;	/* written last */
	struct vf_ar_mask *groups;	/* [group_cap] */
	bool *group_known;
	uint16_t *lids;			/* [lid_cap + 64], 0xFFFF unknown */
	/* ARNeighbors: port 0 its LID, then each port's peer switch LID */
	uint16_t nbrs[VF_ARP_NEIGHBOR_BLOCKS * VF_ARP_NEIGHBORS_PER_BLOCK];
	bool nbr_known[VF_ARP_NEIGHBOR_BLOCKS];
	unsigned group_cap, lid_cap;	/* of the shadow arrays */
	/* this pass */
	uint16_t lid;
	uint32_t fabric_sw;
	bool changed, failed;
	bool needs_key;			/* holds no AR_Key: give it ours */
	bool key_other;			/* holds another AR_Key: wait it out */
	bool key_warned;		/* ... and that is logged */
	uint32_t paused_gen;		/* paused before routing, or 0 */
	struct vf_arp_control next;
	uint32_t next_gen;
};

struct vf_ar_state {
	struct madbatch mb;
	struct ar_sw **sws;
	unsigned num_sws;
	uint64_t key;			/* the AR_Key every request carries */
	uint16_t lease_s;
	/* this pass, for the summary */
	unsigned programmed, blocks, unchanged, incapable, failed, locked;
};

static uint64_t ms_now(void)
{
	return (uint64_t)vf_now_ms();
}

static struct ar_sw *find_sw(struct vf_ar_state *a, uint64_t guid,
			     bool add)
{
	struct ar_sw **grown, *s;

	for (unsigned i = 0; i < a->num_sws; i++)
		if (a->sws[i]->guid == guid)
			return a->sws[i];
	if (!add)
		return NULL;
	grown = realloc(a->sws, (a->num_sws + 1) * sizeof(*a->sws));
	s = calloc(1, sizeof(*s));
	if (!grown || !s) {
		free(s);
		if (grown)
			a->sws = grown;
		return NULL;
	}
	a->sws = grown;
	s->guid = guid;
	a->sws[a->num_sws++] = s;
	return s;
}

static void free_shadow(struct ar_sw *s)
{
	free(s->groups);
	free(s->group_known);
	free(s->lids);
	s->groups = NULL;
	s->group_known = NULL;
	s->lids = NULL;
	s->known = false;
}

/* Forget what s holds (all unknown), sized to its caps; 0 or -ENOMEM. */
static int reset_shadow(struct ar_sw *s)
{
	unsigned g = s->info.group_cap, l = s->info.lid_cap;

	if (!s->groups || g != s->group_cap || l != s->lid_cap) {
		free_shadow(s);
		s->groups = calloc(g + 1, sizeof(*s->groups));
		s->group_known = calloc(g + 1, sizeof(*s->group_known));
		s->lids = malloc((l + VF_ARP_LIDS_PER_BLOCK) * sizeof(*s->lids));
		s->group_cap = g;
		s->lid_cap = l;
		if (!s->groups || !s->group_known || !s->lids) {
			free_shadow(s);
			return -ENOMEM;
		}
	}
	memset(s->group_known, 0, (g + 1) * sizeof(*s->group_known));
	memset(s->nbr_known, 0, sizeof(s->nbr_known));
	memset(s->lids, 0xff, (l + VF_ARP_LIDS_PER_BLOCK) * sizeof(*s->lids));
	s->known = false;
	return 0;
}

/* Bind the class once; 0, or -1 (logged the first time). */
static int bind_class(struct vf_plugin *p)
{
	switch (mb_bind(&p->ar->mb)) {
	case MB_BOUND_NOW:
	case MB_BOUND:
		return 0;
	case MB_BIND_FAILED_NOW:
		vf_log(VF_LOG_ERROR,
		       "ERR VF1101: adaptive routing: cannot bind management class 0x%02x on port 0x%016" PRIx64 "; AR is not programmed",
		       VF_ARP_CLASS, cl_ntoh64(p->osm->subn.sm_port_guid));
		return -1;
	case MB_BIND_FAILED:
		break;
	}
	return -1;
}

/* --- the pass --- */

static void effective_config(const struct vf_plugin *p, struct vf_ar_config *c)
{
	const struct vf_options *o = &p->opts;
	const struct vf_config *cfg = vf_sweep_config(p);
	int fine = -1;

	vf_ar_config_default(c);
	if (cfg) {
		vf_route_groups_ar(cfg, c);
		fine = cfg->routing.ar_fine_grained;
	}
	if (fine >= 0)
		c->fine_grained = fine;
	if (o->ar_enable >= 0)
		c->enable = o->ar_enable;
	if (o->ar_fine_grained >= 0)
		c->fine_grained = o->ar_fine_grained;
	if (o->ar_lost_route_only >= 0)
		c->lost_route_only = o->ar_lost_route_only;
	if (o->ar_algorithm >= 0)
		c->algorithm = (enum vf_ar_algorithm)o->ar_algorithm;
	if (o->ar_frequency >= 0)
		c->frequency = (unsigned)o->ar_frequency;
	if (o->ar_threshold >= 0)
		c->threshold = (unsigned)o->ar_threshold;
	c->fine_grained = c->fine_grained && c->enable;
}

static void req_init(struct mb_req *r, struct ar_sw *s, uint8_t method,
		     uint16_t attr, uint32_t amod, uint32_t gen)
{
	memset(r, 0, sizeof(*r));
	r->lid = s->lid;
	r->owner = s;
	vf_arp_init(r->mad, method, 0, attr, amod, gen);
}

/* Send a batch, every request with the AR_Key. */
static void run_batch(struct vf_ar_state *a, struct mb_req *r, unsigned n,
		      uint64_t end)
{
	for (unsigned i = 0; i < n; i++)
		vf_arp_put_key(r[i].mad, a->key);
	mb_run(&a->mb, r, n, end);
}

/* The generation a Set of ARControl must name: the pending one while we
 * keep the switch paused. */
static uint32_t current_gen(const struct ar_sw *s)
{
	return s->paused_gen ? s->paused_gen : s->generation;
}

/* The switch a request is for. */
static struct ar_sw *sw_of(const struct mb_req *r)
{
	return r->owner;
}

static void log_incapable(struct ar_sw *s, const struct mb_req *r)
{
	char an[8];

	s->cap = CAP_NO;
	s->reprobe_gap = s->reprobe_in = 1;
	if (r->state == MB_DONE)
		vf_log(VF_LOG_INFO,
		       "adaptive routing: switch 0x%016" PRIx64 " (LID %u) answers %s with status 0x%04x (%s): no AR, it keeps its static routes",
		       s->guid, s->lid, vf_arp_attr_name(VF_ARP_INFO, an),
		       r->status, vf_arp_status_name(r->status));
	else
		vf_log(VF_LOG_INFO,
		       "adaptive routing: switch 0x%016" PRIx64 " (LID %u) does not answer the AR probe (%s): no AR, it keeps its static routes",
		       s->guid, s->lid,
		       r->bounced ? "nobody handles the class there" :
		       "no answer after retries");
}

/* A switch without AR that still has none: probe it half as often. */
static void back_off(struct ar_sw *s)
{
	s->reprobe_gap = s->reprobe_gap * 2 > AR_REPROBE_MAX ?
			 AR_REPROBE_MAX : s->reprobe_gap * 2;
	s->reprobe_in = s->reprobe_gap;
}

/* Batch 1: ARInfo from each switch that may have AR, or is due again. */
static void probe(struct vf_plugin *p, struct ar_sw **list, unsigned n,
		  uint64_t end)
{
	struct mb_req *r = calloc(n + 1, sizeof(*r));

	if (!r)
		return;
	for (unsigned i = 0; i < n; i++)
		req_init(&r[i], list[i], VF_ARP_GET, VF_ARP_INFO, 0, 0);
	run_batch(p->ar, r, n, end);
	for (unsigned i = 0; i < n; i++) {
		struct ar_sw *s = list[i];
		struct vf_arp_info info;

		if (!mb_answered(&r[i])) {
			if (s->cap == CAP_UNKNOWN) {
				log_incapable(s, &r[i]);
			} else if (s->cap == CAP_NO) {
				back_off(s);
			} else {	/* capable, silent this once: retry */
				s->failed = true;
				s->known = false;
			}
			continue;
		}
		vf_arp_get_info(r[i].resp, &info);
		if (!info.supported || !info.group_cap || !info.lid_cap) {
			r[i].status = VF_ARP_OK;
			if (s->cap == CAP_NO)
				back_off(s);
			else
				log_incapable(s, &r[i]);
			continue;
		}
		if (s->cap == CAP_NO)
			vf_log(VF_LOG_INFO,
			       "adaptive routing: switch 0x%016" PRIx64 " (LID %u) now answers the AR probe",
			       s->guid, s->lid);
		if (s->cap != CAP_YES)
			vf_log(VF_LOG_INFO,
			       "adaptive routing: switch 0x%016" PRIx64 " (LID %u): AR capable, %u groups, %u LIDs, %u ports",
			       s->guid, s->lid, info.group_cap, info.lid_cap,
			       info.num_ports);
		if (info.group_cap > VF_AR_MAX_GROUPS)
			info.group_cap = VF_AR_MAX_GROUPS;
		/* restarted, left paused, other caps: it holds what we do not
		 * know (paused by us before routing is what we know) */
		if (s->cap != CAP_YES || info.active_generation != s->generation ||
		    info.pending_generation != s->paused_gen ||
		    info.group_cap != s->group_cap ||
		    info.lid_cap != s->lid_cap)
			s->known = false;
		if (info.pending_generation != s->paused_gen)
			s->paused_gen = 0;
		s->needs_key = !info.key_set;
		s->key_other = info.key_set && !info.key_match;
		s->cap = CAP_YES;
		s->info = info;
		if (!s->known && reset_shadow(s))
			s->failed = true;
	}
	free(r);
}

static struct vf_arp_control control_for(const struct vf_ar_config *c,
					 const struct vf_ar_switch *t,
					 uint32_t lid_top)
{
	return (struct vf_arp_control){
		.enable = true, .lost_route_only = c->lost_route_only,
		.algorithm = (uint8_t)c->algorithm,
		.frequency = (uint8_t)c->frequency,
		.threshold = (uint8_t)c->threshold,
		.group_top = (uint16_t)t->num_groups, .lid_top = lid_top,
	};
}

static bool same_control(const struct vf_arp_control *a,
			 const struct vf_arp_control *b)
{
	return a->enable == b->enable && a->pause == b->pause &&
	       a->lost_route_only == b->lost_route_only &&
	       a->algorithm == b->algorithm && a->frequency == b->frequency &&
	       a->threshold == b->threshold && a->group_top == b->group_top &&
	       a->lid_top == b->lid_top;
}

/* The value of group slot i for tables t (zero past the top). */
static struct vf_ar_mask group_value(const struct vf_ar_switch *t, unsigned i)
{
	struct vf_ar_mask z = { { 0 } };

	return i < t->num_groups ? t->groups[i] : z;
}

static uint8_t lid_value(const struct vf_ar_tables *ar,
			 const struct vf_ar_switch *t, unsigned lid,
			 uint32_t lid_top)
{
	return lid && lid <= ar->max_lid && lid < lid_top ? t->lid_group[lid] :
							     VF_AR_NO_GROUP;
}

/*
 * The ARNeighbors writes for switch s (the peers of the fabric model f),
 * appended to r; the count.  A switch agent sends its lost-route
 * notifications to these LIDs.
 */
static unsigned diff_neighbors(struct ar_sw *s, const struct vf_fabric *f,
			       struct mb_req *r)
{
	uint16_t want[VF_ARP_NEIGHBOR_BLOCKS * VF_ARP_NEIGHBORS_PER_BLOCK];
	unsigned n = 0, blocks;

	vf_ar_neighbors(f, s->fabric_sw, want,
			VF_ARP_NEIGHBOR_BLOCKS * VF_ARP_NEIGHBORS_PER_BLOCK);
	blocks = (s->info.num_ports + VF_ARP_NEIGHBORS_PER_BLOCK) /
		 VF_ARP_NEIGHBORS_PER_BLOCK;
	for (unsigned b = 0; b < blocks && b < VF_ARP_NEIGHBOR_BLOCKS; b++) {
		const uint16_t *w = want + b * VF_ARP_NEIGHBORS_PER_BLOCK;

		if (s->nbr_known[b] &&
		    !memcmp(w, s->nbrs + b * VF_ARP_NEIGHBORS_PER_BLOCK,
			    VF_ARP_NEIGHBORS_PER_BLOCK * sizeof(*w)))
			continue;
		req_init(&r[n], s, VF_ARP_SET, VF_ARP_NEIGHBORS, b, s->next_gen);
		vf_arp_put_neighbors(r[n++].mad, w);
	}
	return n;
}

/*
 * The block writes for switch s to hold tables t, appended to r (room
 * for all blocks); the count.
 */
static unsigned diff_blocks(struct ar_sw *s, const struct vf_fabric *f,
			    const struct vf_ar_tables *ar,
			    const struct vf_ar_switch *t, struct mb_req *r)
{
	unsigned n = diff_neighbors(s, f, r), gblocks, lblocks;
	uint32_t lid_top = s->next.lid_top;

	gblocks = (t->num_groups + VF_ARP_GROUPS_PER_BLOCK - 1) /
		  VF_ARP_GROUPS_PER_BLOCK;
	for (unsigned b = 0; b < gblocks; b++) {
		struct vf_ar_mask m[VF_ARP_GROUPS_PER_BLOCK];
		unsigned first = b * VF_ARP_GROUPS_PER_BLOCK, cnt = 0;
		bool diff = false;

		for (unsigned i = first; i < first + VF_ARP_GROUPS_PER_BLOCK &&
					 i < s->group_cap; i++, cnt++) {
			m[cnt] = group_value(t, i);
			diff |= !s->group_known[i] ||
				memcmp(&m[cnt], &s->groups[i], sizeof(m[0]));
		}
		if (!diff)
			continue;
		req_init(&r[n], s, VF_ARP_SET, VF_ARP_GROUPS, b, s->next_gen);
		vf_arp_put_groups(r[n++].mad, m, cnt);
	}
	lblocks = (lid_top + VF_ARP_LIDS_PER_BLOCK - 1) / VF_ARP_LIDS_PER_BLOCK;
	for (unsigned b = 0; b < lblocks; b++) {
		uint8_t g[VF_ARP_LIDS_PER_BLOCK];
		bool diff = false;

		for (unsigned k = 0; k < VF_ARP_LIDS_PER_BLOCK; k++) {
			unsigned lid = b * VF_ARP_LIDS_PER_BLOCK + k;

			g[k] = lid_value(ar, t, lid, lid_top);
			diff |= s->lids[lid] != g[k];
		}
		if (!diff)
			continue;
		req_init(&r[n], s, VF_ARP_SET, VF_ARP_LIDS, b, s->next_gen);
		vf_arp_put_lids(r[n++].mad, g);
	}
	return n;
}

/* A block s acknowledged: the shadow learns it. */
static void learn_block(struct ar_sw *s, const struct mb_req *r)
{
	struct vf_arp_hdr h;

	vf_arp_get_hdr(r->mad, &h);
	if (h.attr_id == VF_ARP_GROUPS) {
		struct vf_ar_mask m[VF_ARP_GROUPS_PER_BLOCK];
		unsigned first = h.attr_mod * VF_ARP_GROUPS_PER_BLOCK;

		vf_arp_get_groups(r->mad, m);
		for (unsigned k = 0; k < VF_ARP_GROUPS_PER_BLOCK &&
				     first + k < s->group_cap; k++) {
			s->groups[first + k] = m[k];
			s->group_known[first + k] = true;
		}
	} else if (h.attr_id == VF_ARP_NEIGHBORS) {
		vf_arp_get_neighbors(r->mad, s->nbrs + h.attr_mod *
				     VF_ARP_NEIGHBORS_PER_BLOCK);
		s->nbr_known[h.attr_mod] = true;
	} else {
		uint8_t g[VF_ARP_LIDS_PER_BLOCK];

		vf_arp_get_lids(r->mad, g);
		for (unsigned k = 0; k < VF_ARP_LIDS_PER_BLOCK; k++)
			s->lids[h.attr_mod * VF_ARP_LIDS_PER_BLOCK + k] = g[k];
	}
}

/*
 * Step 1b: our AR_Key where a switch holds none.  Where it holds another
 * (a previous master SM's), our Set is refused and that starts the
 * switch's lease; we read how long is left, log it, and have the watch
 * thread ask for a heavy sweep when it has run out.
 */
static void give_keys(struct vf_plugin *p, struct ar_sw **list, unsigned n,
		      uint64_t end)
{
	struct vf_ar_state *a = p->ar;
	struct mb_req *r = calloc(2 * n + 1, sizeof(*r));
	struct vf_arp_keyinfo k = { .key = a->key, .lease_s = a->lease_s };
	unsigned nr = 0, nq = 0;
	uint16_t longest = 0;

	if (!r)
		return;
	for (unsigned i = 0; i < n; i++) {
		if (!list[i]->needs_key && !list[i]->key_other)
			continue;
		req_init(&r[nr], list[i], VF_ARP_SET, VF_ARP_KEY_INFO, 0, 0);
		vf_arp_put_keyinfo(r[nr++].mad, &k);
	}
	run_batch(a, r, nr, end);
	for (unsigned i = 0; i < nr; i++) {
		struct ar_sw *s = sw_of(&r[i]);

		if (mb_answered(&r[i])) {
			if (s->key_warned)
				vf_log(VF_LOG_INFO,
				       "adaptive routing: switch 0x%016" PRIx64 " (LID %u) took our AR_Key",
				       s->guid, s->lid);
			s->needs_key = s->key_other = s->key_warned = false;
			continue;
		}
		if (r[i].state == MB_DONE && r[i].status == VF_ARP_BAD_KEY) {
			s->key_other = true;	/* its lease now runs */
			req_init(&r[nr + nq++], s, VF_ARP_GET, VF_ARP_KEY_INFO,
				 0, 0);
		} else {
			s->failed = true;
		}
	}
	run_batch(a, r + nr, nq, end);
	for (unsigned i = 0; i < nq; i++) {
		struct mb_req *q = &r[nr + i];
		struct ar_sw *s = sw_of(q);
		struct vf_arp_keyinfo held = { 0 };

		if (mb_answered(q))
			vf_arp_get_keyinfo(q->resp, &held);
		if (held.lease_left_s > longest)
			longest = held.lease_left_s;
		if (s->key_warned)
			continue;
		s->key_warned = true;
		vf_log(VF_LOG_WARN,
		       "adaptive routing: switch 0x%016" PRIx64 " (LID %u) holds another AR_Key (a previous master SM's?) and refuses ours: AR is not programmed there until its lease runs out (%s%u s left); give every SM the same ar_key to take over at once",
		       s->guid, s->lid, held.lease_s ? "" : "no lease: ",
		       held.lease_left_s);
	}
	if (longest)
		__atomic_store_n(&p->ar_sweep_ms,
				 (int64_t)vf_now_ms() + (longest + 1) * 1000LL,
				 __ATOMIC_RELEASE);
	free(r);
}

/* Requests whose switch failed go; the count of those left. */
static unsigned drop_failed(struct mb_req *r, unsigned n)
{
	unsigned live = 0;

	for (unsigned i = 0; i < n; i++)
		if (!sw_of(&r[i])->failed)
			r[live++] = r[i];
	return live;
}

/* Step 2: pause the switches that change and were not paused before
 * routing (new to us, or the pause then failed). */
static void pause_changed(struct vf_ar_state *a, struct ar_sw **todo,
			  unsigned nt, struct mb_req *ctl, uint64_t end)
{
	unsigned nc = 0;

	for (unsigned i = 0; i < nt; i++) {
		struct ar_sw *s = todo[i];
		struct vf_arp_control c = s->next;

		if (!s->changed || s->paused_gen)
			continue;
		c.pause = true;
		req_init(&ctl[nc], s, VF_ARP_SET, VF_ARP_CONTROL, 0,
			 s->next_gen);
		vf_arp_put_control(ctl[nc++].mad, &c);
	}
	run_batch(a, ctl, nc, end);
	for (unsigned i = 0; i < nc; i++)
		if (!mb_answered(&ctl[i]))
			sw_of(&ctl[i])->failed = true;
}

/* Step 3: the blocks of the switches that are paused. */
static void write_blocks(struct vf_ar_state *a, struct mb_req *blk,
			 size_t nblk, uint64_t end)
{
	nblk = drop_failed(blk, (unsigned)nblk);
	run_batch(a, blk, (unsigned)nblk, end);
	for (size_t i = 0; i < nblk; i++) {
		if (!mb_answered(&blk[i])) {
			sw_of(&blk[i])->failed = true;
			continue;
		}
		learn_block(sw_of(&blk[i]), &blk[i]);
		a->blocks++;
	}
}

/* Step 4: resume every switch that changed or was paused before routing,
 * with its new control: it swaps in the new tables, its marks go. */
static void resume(struct vf_ar_state *a, struct ar_sw **todo, unsigned nt,
		   struct mb_req *ctl, uint64_t end)
{
	unsigned nc = 0;

	for (unsigned i = 0; i < nt; i++) {
		struct ar_sw *s = todo[i];

		if (s->failed || (!s->changed && !s->paused_gen))
			continue;
		req_init(&ctl[nc], s, VF_ARP_SET, VF_ARP_CONTROL, 0,
			 s->next_gen);
		vf_arp_put_control(ctl[nc++].mad, &s->next);
	}
	run_batch(a, ctl, nc, end);
	for (unsigned i = 0; i < nc; i++) {
		struct ar_sw *s = sw_of(&ctl[i]);

		if (!mb_answered(&ctl[i])) {
			s->failed = true;
			continue;
		}
		s->ctl = s->next;
		s->generation = s->next_gen;
		s->paused_gen = 0;
		s->known = true;
		if (s->changed)
			a->programmed++;
		else
			a->unchanged++;
	}
}

static void program(struct vf_plugin *p, struct ar_sw **list, unsigned n,
		    const struct vf_fabric *f, const struct vf_ar_config *cfg,
		    const struct vf_ar_tables *ar, uint64_t end)
{
	struct vf_ar_state *a = p->ar;
	struct mb_req *ctl = calloc(n + 1, sizeof(*ctl)), *blk = NULL;
	struct ar_sw **todo = calloc(n + 1, sizeof(*todo));
	size_t room = 0, nblk = 0;
	unsigned nt = 0;

	if (!ctl || !todo)
		goto out;
	/* step 1: what each switch is to hold, and how many blocks at most */
	for (unsigned i = 0; i < n; i++) {
		struct ar_sw *s = list[i];
		const struct vf_ar_switch *t = &ar->sw[s->fabric_sw];
		uint32_t lid_top = (uint32_t)ar->max_lid + 1;

		if (s->failed || s->key_other)
			continue;
		if (lid_top > s->info.lid_cap)
			lid_top = s->info.lid_cap;
		s->next = control_for(cfg, t, lid_top);
		s->next_gen = s->paused_gen ? s->paused_gen :
			      s->info.active_generation + 1;
		if (!s->next_gen)
			s->next_gen = 1;
		todo[nt++] = s;
		room += (t->num_groups + 3) / 4 + (lid_top + 63) / 64 +
			VF_ARP_NEIGHBOR_BLOCKS;
	}
	blk = calloc(room + 1, sizeof(*blk));
	if (!blk)
		goto out;
	for (unsigned i = 0; i < nt; i++) {
		struct ar_sw *s = todo[i];
		unsigned k = diff_blocks(s, f, ar, &ar->sw[s->fabric_sw],
					 blk + nblk);

		nblk += k;
		s->changed = k || !s->known || !same_control(&s->ctl, &s->next);
		if (!s->changed && !s->paused_gen)
			a->unchanged++;
	}
	pause_changed(a, todo, nt, ctl, end);
	write_blocks(a, blk, nblk, end);
	resume(a, todo, nt, ctl, end);
out:
	for (unsigned i = 0; i < n; i++)
		if (list[i]->failed) {
			list[i]->known = false;
			a->failed++;
		}
	free(blk);
	free(ctl);
	free(todo);
}

/* A switch AR is on at, as we left it; one we paused before routing. */
static bool enabled(const struct ar_sw *s)
{
	return s->cap == CAP_YES && s->ctl.enable;
}

static bool paused(const struct ar_sw *s)
{
	return s->paused_gen != 0;
}

/*
 * ARControl with AR off and no pause (at the generation the switch must
 * be told: the pending one if we paused it) to every switch with a LID
 * that pick() chooses; how many answered, and in *asked how many were
 * asked.  The switch then forwards by its LFT alone.
 */
static unsigned turn_off(struct vf_plugin *p,
			 bool (*pick)(const struct ar_sw *), uint64_t end,
			 unsigned *asked)
{
	struct vf_ar_state *a = p->ar;
	struct mb_req *r = calloc(a->num_sws + 1, sizeof(*r));
	unsigned n = 0, done = 0;

	*asked = 0;
	if (!r)
		return 0;
	for (unsigned i = 0; i < a->num_sws; i++) {
		struct ar_sw *s = a->sws[i];
		struct vf_arp_control c = s->ctl;

		if (!pick(s) || !s->lid)
			continue;
		c.enable = false;
		c.pause = false;
		req_init(&r[n], s, VF_ARP_SET, VF_ARP_CONTROL, 0,
			 current_gen(s));
		vf_arp_put_control(r[n++].mad, &c);
	}
	if (n && !bind_class(p))
		run_batch(a, r, n, end);
	for (unsigned i = 0; i < n; i++) {
		struct ar_sw *s = sw_of(&r[i]);

		if (!mb_answered(&r[i])) {
			s->known = false;
			continue;
		}
		s->ctl.enable = false;
		s->generation = current_gen(s);
		s->paused_gen = 0;
		done++;
	}
	*asked = n;
	free(r);
	return done;
}

/* AR off: tell the switches we enabled to stop (nothing else is sent). */
static void disable_all(struct vf_plugin *p, uint64_t end)
{
	unsigned n, done = turn_off(p, enabled, end, &n);

	if (n)
		vf_log(VF_LOG_INFO,
		       "adaptive routing: disabled; told %u of %u switches to stop AR",
		       done, n);
}

/*
 * A pass without new tables of ours: the sweep was routed by another
 * engine (our engine refused its tables, OpenSM fell back), so the groups
 * the switches hold were checked against LFTs that are gone.  Fail
 * closed: resume what we paused before routing with AR off; the switches
 * forward by the new LFTs alone until one of our engines routes again.
 */
static void resume_paused(struct vf_plugin *p, uint64_t end)
{
	unsigned n, done = turn_off(p, paused, end, &n);

	if (n)
		vf_log(VF_LOG_WARN,
		       "adaptive routing: this sweep was not routed by one of our engines (engine '%s'): AR turned off on %u of %u switches, which forward by the new LFTs alone until one of ours routes again",
		       p->osm->routing_engine_used &&
		       p->osm->routing_engine_used->name ?
		       p->osm->routing_engine_used->name : "unknown", done, n);
}

void vf_ar_heavy_sweep(struct vf_plugin *p)
{
	struct vf_ar_state *a = p->ar;
	struct vf_ar_config cfg;
	struct mb_req *r;
	unsigned n = 0, done = 0;
	double t0 = vf_now_ms();

	if (!a || !a->num_sws)
		return;
	effective_config(p, &cfg);
	if (!cfg.enable)
		return;
	r = calloc(a->num_sws + 1, sizeof(*r));
	if (!r)
		return;
	for (unsigned i = 0; i < a->num_sws; i++) {
		struct ar_sw *s = a->sws[i];
		struct vf_arp_control c = s->ctl;
		uint32_t gen = s->generation + 1 ? s->generation + 1 : 1;

		if (s->cap != CAP_YES || !s->lid || !s->known ||
		    !s->ctl.enable || s->paused_gen || s->key_other)
			continue;
		c.pause = true;
		req_init(&r[n], s, VF_ARP_SET, VF_ARP_CONTROL, 0, gen);
		vf_arp_put_control(r[n++].mad, &c);
	}
	if (n && !bind_class(p))
		run_batch(a, r, n, ms_now() + AR_PAUSE_BUDGET_MS);
	for (unsigned i = 0; i < n; i++) {
		struct ar_sw *s = sw_of(&r[i]);
		struct vf_arp_hdr h;

		if (!mb_answered(&r[i])) {
			s->known = false;	/* paused and rewritten later */
			continue;
		}
		vf_arp_get_hdr(r[i].mad, &h);
		s->paused_gen = h.generation;
		done++;
	}
	if (n)
		vf_log(VF_LOG_INFO,
		       "adaptive routing: paused %u of %u switches before routing, %.1f ms",
		       done, n, vf_now_ms() - t0);
	free(r);
}

void vf_ar_subnet_up(struct vf_plugin *p)
{
	struct vf_ar_state *a = p->ar;
	const struct vf_fabric *f = p->last.fabric;
	struct vf_ar_config cfg;
	struct vf_ar_caps *caps = NULL;
	struct vf_ar_tables ar = { 0 };
	struct ar_sw **list = NULL;
	unsigned n = 0, nprobe = 0;
	double t0 = vf_now_ms();
	uint64_t end = ms_now() + AR_BUDGET_MS;

	if (!a)
		return;
	effective_config(p, &cfg);
	if (!f || !p->last.ar_fresh) {
		if (!cfg.enable)
			disable_all(p, end);
		else
			resume_paused(p, end);
		return;
	}
	p->last.ar_fresh = false;
	for (unsigned i = 0; i < a->num_sws; i++)
		a->sws[i]->lid = 0;
	/* this sweep's switches and LIDs */
	list = calloc(f->num_switches + 1, sizeof(*list));
	caps = calloc(f->num_switches + 1, sizeof(*caps));
	if (!list || !caps)
		goto out;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct vf_node *nd = &f->nodes[f->switches[s]];
		uint16_t lid = f->ports[nd->first_port].base_lid;
		struct ar_sw *w = lid ? find_sw(a, nd->guid, cfg.enable) : NULL;

		if (!w)
			continue;
		w->lid = lid;
		w->fabric_sw = s;
		w->failed = w->changed = false;
	}
	if (!cfg.enable) {
		disable_all(p, end);
		goto out;
	}
	if (bind_class(p))
		goto out;
	a->programmed = a->blocks = a->unchanged = a->incapable = a->failed = 0;
	a->locked = 0;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		struct ar_sw *w = find_sw(a, f->nodes[f->switches[s]].guid, false);

		bool waits = w && w->cap == CAP_NO && w->reprobe_in;

		if (waits)
			w->reprobe_in--;
		if (w && w->lid && !waits)
			list[nprobe++] = w;
		else
			a->incapable++;
	}
	probe(p, list, nprobe, end);
	for (unsigned i = 0; i < nprobe; i++) {
		struct ar_sw *w = list[i];

		if (w->cap == CAP_YES) {
			caps[w->fabric_sw] = (struct vf_ar_caps){
				w->info.group_cap, w->info.lid_cap };
			list[n++] = w;
		} else {
			a->incapable++;
		}
	}
	if (vf_ar_compute(f, &p->last.lfts, &cfg, caps, &ar)) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF1102: adaptive routing: out of memory computing the tables; switches keep what they have");
		goto out;
	}
	give_keys(p, list, n, end);
	program(p, list, n, f, &cfg, &ar, end);
	for (unsigned i = 0; i < n; i++)
		a->locked += list[i]->key_other;
	vf_log(VF_LOG_INFO,
	       "adaptive routing: %u switches programmed (%u blocks written), %u unchanged, %u not AR-capable, %u failed, %u hold another AR_Key, %.1f ms",
	       a->programmed, a->blocks, a->unchanged, a->incapable, a->failed,
	       a->locked, vf_now_ms() - t0);
	vf_metrics_ar(p->metrics, a->programmed, a->unchanged, a->incapable,
		      a->failed, a->locked);
out:
	vf_ar_free(&ar);
	free(caps);
	free(list);
}

int vf_ar_create(struct vf_plugin *p)
{
	struct vf_ar_state *a = calloc(1, sizeof(*a));

	if (!a) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF1103: adaptive routing: out of memory starting; AR is not programmed");
		return -ENOMEM;
	}
	mb_init(&a->mb, p, &(struct mb_params){
		.mgmt_class = VF_ARP_CLASS,
		.class_version = VF_ARP_CLASS_VERSION,
		.window = AR_WINDOW, .timeout_ms = AR_TIMEOUT_MS,
		.retries = AR_RETRIES, .tid_base = AR_TID_BASE,
		.used = VF_ARP_USED,
	});
	a->key = vf_management_key("AR_Key", "ar_key", p->opts.ar_key,
				   p->opts.ar_key_file);
	a->lease_s = (uint16_t)p->opts.ar_key_lease;
	p->ar = a;
	return 0;
}

void vf_ar_destroy(struct vf_plugin *p)
{
	struct vf_ar_state *a = p->ar;

	if (!a)
		return;
	mb_fini(&a->mb);
	for (unsigned i = 0; i < a->num_sws; i++) {
		free_shadow(a->sws[i]);
		free(a->sws[i]);
	}
	free(a->sws);
	free(a);
	p->ar = NULL;
}
