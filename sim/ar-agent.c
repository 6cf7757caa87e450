// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * ar-agent: the switch side of the AR protocol (docs/ar-protocol.md) for
 * ibsim, which has no AR of its own.  It runs under umad2sim at a switch
 * node (SIM_HOST=<switch>) and takes the issm flag (sim/umadsim.h), as
 * only such a client gets the SM's unsolicited requests there; it answers
 * the AR class, keeps the tables (written into a staging copy while paused, made
 * active at resume), chooses egress ports with routing/arselect.c, and
 * writes its state to --dump FILE after every change, in the format of
 * `vfabric ar` for one switch.
 *
 * Lost-route notification: when one of its ports goes down (ARPortLoad,
 * bit 31: the simulator's stand-in for a link failure), the agent reads
 * its LFT (DR SMPs to itself), finds the LIDs it can no longer reach (the
 * static port and every member of the LID's group down or lost) and sends
 * ARLostRoutes to the neighbor switches of ARNeighbors on its other up
 * ports.  A receiver marks its ports to the sender lost for those LIDs
 * (AREgress and the egress choice avoid them) and, when it is left with
 * no way itself, tells its own neighbors, never one that told it.  A port
 * back up sends "restored" for what it can reach again; new tables from
 * the SM (a resume) clear every mark.  A notice is sent again, with a
 * doubling gap, until the neighbor answers it (NOTICE_TRIES), and is
 * dropped when new tables supersede it.  With LostRouteOnly set, notices
 * are neither sent nor acted on: only the switch whose port went down
 * reroutes (the seed's and the FM's meaning).
 *
 * Who may Set what (docs/threat-model.md): ARControl, the tables,
 * ARNeighbors and ARKeyInfo only the master SM (the SLID against
 * MasterSMLID), carrying the AR_Key once one is set (routing/mgmtkey.h);
 * ARLostRoutes a neighbor switch, carrying the AR_Key this switch holds
 * (the SM gives every switch the same one).  While paused (the SM is
 * changing forwarding) the egress is the static port: AR adjusts nothing
 * until the SM resumes it with the tables of the new routing.
 *
 * The issm flag makes the switch port claim IsSM, so OpenSM asks it for
 * SMInfo: sim/umadsim.c answers it as an SM that is NOT ACTIVE.
 *
 * With --req it is instead a one-shot requester (any node, no issm): it
 * sends the given AR requests to --to LID and prints each answer.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "routing/ar.h"
#include "routing/arproto.h"
#include "routing/arselect.h"
#include "routing/mgmtkey.h"
#include "sim/errfilter.h"
#include "sim/umadsim.h"

#define QP1_QKEY VF_UMADSIM_QP1_QKEY
#define ATTR_NODE_INFO 0x0011
#define ATTR_SWITCH_INFO 0x0012
#define ATTR_PORT_INFO 0x0015
#define ATTR_LFT 0x0019
#define LFT_BLOCK 64
#define NOTICE_TID 0xA7000000u	/* our own requests: ARLostRoutes */
#define NOTICE_SLOTS 64		/* notices awaiting an answer */
#define NOTICE_TRIES 8		/* sends of one notice, gaps doubling */
#define NOTICE_FIRST_GAP_MS 250
#define SM_REREAD_MS 100	/* MasterSMLID read at most this often */
#define NBRS (VF_ARP_NEIGHBOR_BLOCKS * VF_ARP_NEIGHBORS_PER_BLOCK)
#define MAX_PORTS 255
#define EXIT_USAGE 2
/* umad buffers of the one-shot requester (see sim/umadsim.c) */
#define RBUF_SIZE 4096
#define RECV_LEN VF_UMADSIM_RECV_LEN

struct tables {
	struct vf_ar_mask *groups;	/* [group_cap] */
	uint8_t *lids;			/* [lid_cap] */
	uint16_t nbrs[NBRS];		/* ARNeighbors: [0] our LID */
};

/* A notice sent and not yet answered. */
struct notice {
	bool used;
	uint16_t lid;
	uint32_t tid;
	unsigned tries;
	uint64_t due_ms;		/* send again then */
	uint8_t mad[VF_ARP_MAD_SIZE];
};

struct agent {
	struct vf_umadsim u;		/* port, buffers, SMP answers */
	int ar_id;
	bool no_ar;
	unsigned num_ports, group_cap, lid_cap;
	struct tables active, staging;
	struct vf_arp_control ctl;	/* in use */
	bool paused;
	uint32_t gen_active, gen_pending;
	struct vf_arsel_port ports[MAX_PORTS + 1];
	uint32_t rng;
	const char *dump;
	unsigned long requests, errors;
	uint8_t *nbuf;			/* our notices */
	/* lost routes: per LID, the ports a neighbor said lead nowhere */
	struct vf_ar_mask *lost;	/* [lid_cap] */
	bool *announced;		/* [lid_cap]: we told our neighbors */
	bool *retract;			/* [lid_cap]: to tell "restored" */
	uint8_t *lft;			/* [lid_cap + LFT_BLOCK], read back */
	bool eval_pending, in_eval;
	bool in_smp;			/* waiting for one of our own SMPs */
	uint16_t sm_lid;		/* MasterSMLID, as last read */
	uint64_t sm_read_ms;		/* ... when */
	volatile uint64_t umad2sim_lines; /* umad2sim's size lines dropped */
	uint32_t next_tid;
	unsigned long notices_sent, notices_received, notices_acked;
	unsigned long notices_resent, notices_dropped;
	struct notice pending[NOTICE_SLOTS];
	struct vf_mkey key;		/* the AR_Key (ARKeyInfo) */
	unsigned long not_sm;		/* Sets refused 0x0200 */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int tables_alloc(struct tables *t, unsigned groups, unsigned lids)
{
	t->groups = calloc(groups + 1, sizeof(*t->groups));
	t->lids = malloc(lids + VF_ARP_LIDS_PER_BLOCK);
	if (!t->groups || !t->lids)
		return -ENOMEM;
	memset(t->lids, VF_AR_NO_GROUP, lids + VF_ARP_LIDS_PER_BLOCK);
	return 0;
}

static void tables_copy(struct tables *to, const struct tables *from,
			const struct agent *a)
{
	memcpy(to->groups, from->groups, a->group_cap * sizeof(*to->groups));
	memcpy(to->lids, from->lids, a->lid_cap);
	memcpy(to->nbrs, from->nbrs, sizeof(to->nbrs));
}

/*
 * Forget every lost-route mark (new tables, or AR off).  What we had
 * announced is retracted ("restored") at the next evaluate(): a neighbor
 * the SM left unchanged would keep our mark otherwise; what is still
 * lost with the new tables is announced again right after.
 */
static void clear_lost(struct agent *a)
{
	for (unsigned l = 0; l < a->lid_cap; l++)
		if (a->announced[l]) {
			a->retract[l] = true;
			a->eval_pending = true;
		}
	memset(a->lost, 0, a->lid_cap * sizeof(*a->lost));
	memset(a->announced, 0, a->lid_cap * sizeof(*a->announced));
}

static unsigned count_lost(const struct agent *a, bool announced)
{
	static const struct vf_ar_mask zero;
	unsigned n = 0;

	for (unsigned l = 0; l < a->lid_cap; l++)
		n += announced ? a->announced[l] :
		     !!memcmp(&a->lost[l], &zero, sizeof(zero));
	return n;
}

static unsigned count_pending(const struct agent *a)
{
	unsigned n = 0;

	for (unsigned i = 0; i < NOTICE_SLOTS; i++)
		n += a->pending[i].used;
	return n;
}

/* The active state in `vfabric ar` form, written atomically. */
static void write_dump(const struct agent *a)
{
	unsigned top = a->ctl.lid_top < a->lid_cap ? a->ctl.lid_top : a->lid_cap;
	struct vf_ar_switch sw = {
		.group_cap = a->group_cap, .lid_cap = a->lid_cap,
		.groups = a->active.groups, .num_groups = a->ctl.group_top,
	};
	char tmp[4096];
	FILE *out;

	if (!a->dump)
		return;
	sw.lid_group = malloc(top + 1);
	if (!sw.lid_group)
		return;
	for (unsigned lid = 0; lid < top; lid++) {
		uint8_t g = a->active.lids[lid];

		sw.lid_group[lid] = lid && g < sw.num_groups ? g : VF_AR_NO_GROUP;
		sw.lids_grouped += sw.lid_group[lid] != VF_AR_NO_GROUP;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", a->dump);
	out = fopen(tmp, "w");
	if (out) {
		fprintf(out, "# ar-agent generation %u enable %d pause %d algorithm %u frequency %u threshold %u lost_route_only %d lid_top %u notices_sent %lu notices_received %lu notices_acked %lu lids_lost %u lids_marked %u notices_resent %lu notices_dropped %lu notices_pending %u key_set %d key_lease %u key_refused %u not_sm %lu\n",
			a->gen_active, a->ctl.enable, a->paused,
			a->ctl.algorithm, a->ctl.frequency, a->ctl.threshold,
			a->ctl.lost_route_only, a->ctl.lid_top,
			a->notices_sent, a->notices_received,
			a->notices_acked, count_lost(a, true),
			count_lost(a, false), a->notices_resent,
			a->notices_dropped, count_pending(a), a->key.key != 0,
			a->key.lease_s, a->key.refused, a->not_sm);
		fprintf(out, "# neighbors");
		for (unsigned p = 0; p <= a->num_ports && p < NBRS; p++)
			if (a->active.nbrs[p])
				fprintf(out, " %u:%u", p, a->active.nbrs[p]);
		fprintf(out, "\n");
		vf_ar_dump_switch(out, a->u.node_guid, &sw,
				  (uint16_t)(top ? top - 1 : 0));
		if (fclose(out) == 0)
			rename(tmp, a->dump);
	}
	free(sw.lid_group);
}

/*
 * New tables supersede every notice not yet answered: what the old ones
 * announced is retracted and what is still lost announced again
 * (clear_lost), so a late resend could only undo that.
 */
static void drop_pending(struct agent *a)
{
	memset(a->pending, 0, sizeof(a->pending));
}

static uint16_t do_control(struct agent *a, const struct vf_arp_hdr *h,
			   uint8_t *mad)
{
	struct vf_arp_control c;

	if (h->method == VF_ARP_SET) {
		vf_arp_get_control(mad, &c);
		if (c.algorithm > VF_AR_GREEDY_RANDOM || c.frequency > 7 ||
		    c.threshold > 7 || c.group_top > a->group_cap ||
		    c.lid_top > a->lid_cap)
			return VF_ARP_BAD_FIELD;
		if (c.pause) {
			/* writes go to a copy; the old set stays in use */
			if (!a->paused)
				tables_copy(&a->staging, &a->active, a);
			a->paused = true;
			a->gen_pending = h->generation;
		} else {
			if (a->paused && h->generation != a->gen_pending)
				return VF_ARP_SEQUENCE;
			if (a->paused) {
				/* the SM's new tables: marks of the old ones
				 * go; ports still down are looked at again */
				tables_copy(&a->active, &a->staging, a);
				clear_lost(a);
				drop_pending(a);
				a->eval_pending = true;
			}
			if (!c.enable)
				clear_lost(a);
			a->paused = false;
			a->gen_pending = 0;
			a->ctl = c;
			a->gen_active = h->generation;
		}
		write_dump(a);
	}
	c = a->ctl;
	c.pause = a->paused;
	vf_arp_put_control(mad, &c);
	return VF_ARP_OK;
}

static uint16_t do_groups(struct agent *a, const struct vf_arp_hdr *h,
			  uint8_t *mad)
{
	unsigned first = h->attr_mod * VF_ARP_GROUPS_PER_BLOCK, n;
	struct vf_ar_mask m[VF_ARP_GROUPS_PER_BLOCK];

	if (h->attr_mod >= VF_ARP_MAX_GROUP_BLOCKS || first >= a->group_cap)
		return VF_ARP_BAD_FIELD;
	n = a->group_cap - first < VF_ARP_GROUPS_PER_BLOCK ?
	    a->group_cap - first : VF_ARP_GROUPS_PER_BLOCK;
	if (h->method == VF_ARP_SET) {
		if (!a->paused || h->generation != a->gen_pending)
			return VF_ARP_SEQUENCE;
		vf_arp_get_groups(mad, m);
		for (unsigned k = 0; k < VF_ARP_GROUPS_PER_BLOCK; k++)
			for (unsigned p = a->num_ports + 1; p <= 256; p++)
				if (vf_ar_mask_has(&m[k], p))
					return VF_ARP_BAD_FIELD;
		memcpy(&a->staging.groups[first], m, n * sizeof(*m));
	}
	memset(mad + VF_ARP_DATA, 0, VF_ARP_USED - VF_ARP_DATA);
	vf_arp_put_groups(mad, &(a->paused ? &a->staging : &a->active)->groups[first], n);
	return VF_ARP_OK;
}

static uint16_t do_lids(struct agent *a, const struct vf_arp_hdr *h,
			uint8_t *mad)
{
	unsigned first = h->attr_mod * VF_ARP_LIDS_PER_BLOCK;
	uint8_t g[VF_ARP_LIDS_PER_BLOCK];

	if (h->attr_mod >= 0x10000 || first >= a->lid_cap)
		return VF_ARP_BAD_FIELD;
	if (h->method == VF_ARP_SET) {
		if (!a->paused || h->generation != a->gen_pending)
			return VF_ARP_SEQUENCE;
		vf_arp_get_lids(mad, g);
		for (unsigned k = 0; k < VF_ARP_LIDS_PER_BLOCK; k++)
			if (g[k] != VF_AR_NO_GROUP && g[k] >= a->group_cap)
				return VF_ARP_BAD_FIELD;
		memcpy(&a->staging.lids[first], g, sizeof(g));
	}
	vf_arp_put_lids(mad, &(a->paused ? &a->staging : &a->active)->lids[first]);
	return VF_ARP_OK;
}

static uint16_t do_load(struct agent *a, const struct vf_arp_hdr *h,
			uint8_t *mad)
{
	unsigned first = 1 + h->attr_mod * VF_ARP_PORTS_PER_BLOCK;
	uint32_t l[VF_ARP_PORTS_PER_BLOCK];

	if (h->attr_mod >= 8 || first > a->num_ports)
		return VF_ARP_BAD_FIELD;
	if (h->method == VF_ARP_SET) {
		vf_arp_get_loads(mad, l);
		for (unsigned k = 0; k < VF_ARP_PORTS_PER_BLOCK; k++)
			if ((l[k] & ~VF_ARP_LOAD_DOWN) > 100)
				return VF_ARP_BAD_FIELD;
		for (unsigned k = 0; k < VF_ARP_PORTS_PER_BLOCK &&
				     first + k <= a->num_ports; k++) {
			struct vf_arsel_port *pt = &a->ports[first + k];
			bool down = l[k] & VF_ARP_LOAD_DOWN;

			if (down != pt->down) {
				printf("ar-agent: port %u %s\n", first + k,
				       down ? "down" : "up");
				a->eval_pending = true;
			}
			pt->load = l[k] & ~VF_ARP_LOAD_DOWN;
			pt->down = down;
		}
	}
	for (unsigned k = 0; k < VF_ARP_PORTS_PER_BLOCK; k++) {
		const struct vf_arsel_port *pt = &a->ports[first + k];

		l[k] = first + k > a->num_ports ? 0 :
		       pt->load | (pt->down ? VF_ARP_LOAD_DOWN : 0);
	}
	vf_arp_put_loads(mad, l);
	return VF_ARP_OK;
}

static uint16_t do_egress(struct agent *a, const struct vf_arp_hdr *h,
			  uint8_t *mad)
{
	struct vf_arsel_params p = {
		.algorithm = a->ctl.algorithm, .frequency = a->ctl.frequency,
		.threshold = a->ctl.threshold,
		.lost_route_only = a->ctl.lost_route_only,
	};
	struct vf_arp_egress e;
	unsigned lid = h->attr_mod;

	vf_arp_get_egress(mad, &e);
	if (!lid || lid >= a->lid_cap || !e.static_port ||
	    e.static_port > a->num_ports)
		return VF_ARP_BAD_FIELD;
	/* the tables in use: the old set while paused */
	e.group = lid < a->ctl.lid_top && a->active.lids[lid] < a->ctl.group_top ?
		  a->active.lids[lid] : VF_AR_NO_GROUP;
	e.port = !a->ctl.enable || a->paused ? e.static_port :
		 (uint8_t)vf_arsel_choose_lost(&p, e.group == VF_AR_NO_GROUP ?
					       NULL : &a->active.groups[e.group],
					       e.static_port, a->ports,
					       a->num_ports, &a->lost[lid],
					       NULL, now_ms(), &a->rng);
	vf_arp_put_egress(mad, &e);
	return VF_ARP_OK;
}

static uint16_t do_neighbors(struct agent *a, const struct vf_arp_hdr *h,
			     uint8_t *mad)
{
	unsigned first = h->attr_mod * VF_ARP_NEIGHBORS_PER_BLOCK;
	uint16_t n[VF_ARP_NEIGHBORS_PER_BLOCK];

	if (vf_arp_check_neighbors(h->attr_mod, a->num_ports, NULL))
		return VF_ARP_BAD_FIELD;
	if (h->method == VF_ARP_SET) {
		if (!a->paused || h->generation != a->gen_pending)
			return VF_ARP_SEQUENCE;
		vf_arp_get_neighbors(mad, n);
		if (vf_arp_check_neighbors(h->attr_mod, a->num_ports, n))
			return VF_ARP_BAD_FIELD;
		memcpy(&a->staging.nbrs[first], n, sizeof(n));
	}
	vf_arp_put_neighbors(mad, (a->paused ? &a->staging :
				   &a->active)->nbrs + first);
	return VF_ARP_OK;
}

/* ARLostRoutes from a neighbor: mark (or unmark) our ports to it. */
static uint16_t do_lost(struct agent *a, const struct vf_arp_hdr *h,
			uint8_t *mad, uint16_t slid)
{
	unsigned first = h->attr_mod * VF_ARP_LOST_LIDS, nports = 0, nlids = 0;
	struct vf_ar_mask to = { { 0 } };
	struct vf_arp_lost l;

	vf_arp_get_lost(mad, &l);
	/*
	 * The sender is who the fabric says sent it (the SLID): a sender
	 * named in the data must be that port, so a host cannot speak for
	 * a switch and have its neighbors mark routes lost.
	 */
	if (l.sender && l.sender != slid)
		return VF_ARP_BAD_FIELD;
	l.sender = slid;
	if (vf_arp_check_lost(h->attr_mod, a->lid_cap, &l))
		return VF_ARP_BAD_FIELD;
	a->notices_received++;
	if (a->ctl.lost_route_only) {
		printf("ar-agent: ARLostRoutes from LID %u: LostRouteOnly: only the switch whose port went down reroutes; nothing marked\n",
		       l.sender);
		return VF_ARP_OK;
	}
	for (unsigned q = 1; q <= a->num_ports && q < NBRS; q++)
		if (a->active.nbrs[q] == l.sender) {
			to.w[(q - 1) / 64] |= 1ull << ((q - 1) % 64);
			nports++;
		}
	for (unsigned k = 0; nports && k < VF_ARP_LOST_LIDS &&
			     first + k < a->lid_cap; k++) {
		struct vf_ar_mask *m = &a->lost[first + k];

		if (!vf_arp_lost_has(&l, k))
			continue;
		nlids++;
		for (unsigned w = 0; w < VF_AR_MASK_WORDS; w++)
			m->w[w] = l.restored ? m->w[w] & ~to.w[w] :
					       m->w[w] | to.w[w];
	}
	printf("ar-agent: ARLostRoutes%s from LID %u: %u LIDs, %u ports to it%s\n",
	       l.restored ? " (restored)" : "", l.sender, nlids, nports,
	       nports ? "" : " (not a neighbor: ignored)");
	if (nlids)
		a->eval_pending = true;
	write_dump(a);
	return VF_ARP_OK;
}

static uint16_t do_info(struct agent *a, uint8_t *mad, uint64_t carried)
{
	struct vf_arp_info i = {
		.supported = true, .num_ports = (uint8_t)a->num_ports,
		.key_set = a->key.key != 0,
		.key_match = a->key.key && carried == a->key.key,
		.group_cap = (uint16_t)a->group_cap, .lid_cap = a->lid_cap,
		.groups_per_block = VF_ARP_GROUPS_PER_BLOCK,
		.lids_per_block = VF_ARP_LIDS_PER_BLOCK,
		.active_generation = a->gen_active,
		.pending_generation = a->paused ? a->gen_pending : 0,
		.control = a->ctl,
	};

	i.control.pause = a->paused;
	vf_arp_put_info(mad, &i);
	return VF_ARP_OK;
}

/*
 * ARKeyInfo.  A Set (the master SM's, with the key held: handle_ar checked
 * both) puts a new key and lease; a Get shows the key only to a request
 * that carries it.
 */
static uint16_t do_keyinfo(struct agent *a, const struct vf_arp_hdr *h,
			   uint8_t *mad, uint64_t carried, uint16_t slid)
{
	struct vf_arp_keyinfo k;

	if (h->attr_mod)
		return VF_ARP_BAD_FIELD;
	if (h->method == VF_ARP_SET) {
		vf_arp_get_keyinfo(mad, &k);
		vf_mkey_set(&a->key, k.key, k.lease_s);
		carried = k.key;
		printf("ar-agent: AR_Key %s by LID %u, lease %u s\n",
		       k.key ? "set" : "cleared", slid, k.lease_s);
		write_dump(a);
	}
	k = (struct vf_arp_keyinfo){
		.key = carried == a->key.key ? a->key.key : 0,
		.lease_s = a->key.lease_s,
		.lease_left_s = vf_mkey_lease_left_s(&a->key, now_ms()),
		.refused = a->key.refused,
	};
	memset(mad + VF_ARP_DATA, 0, VF_ARP_USED - VF_ARP_DATA);
	vf_arp_put_keyinfo(mad, &k);
	return VF_ARP_OK;
}

static int own_smp(struct agent *a, uint16_t attr, uint32_t mod,
		   uint8_t d[VF_UMADSIM_SMP_DATA])
{
	int rc;

	a->in_smp = true;
	rc = vf_umadsim_local_smp(&a->u, attr, mod, d, 2000);
	a->in_smp = false;
	return rc;
}

/*
 * Is slid the master SM's?  As a switch knows it: MasterSMLID of its
 * port 0, which the SM sets.  Read again when slid is not the LID last
 * read (a new SM takes over), except while we wait for an SMP of ours
 * (a nested read would take that one's answer).
 */
static bool from_master_sm(struct agent *a, uint16_t slid)
{
	uint8_t d[VF_UMADSIM_SMP_DATA];
	uint64_t now = now_ms();

	if (slid && slid == a->sm_lid)
		return true;
	/* at most one read per SM_REREAD_MS: a host flooding Sets does not
	 * get an SMP per MAD out of us (a new master's Set refused in that
	 * window is retried by it) */
	if (!a->in_smp && now - a->sm_read_ms >= SM_REREAD_MS) {
		a->sm_read_ms = now;
		if (!own_smp(a, ATTR_PORT_INFO, 0, d))
			a->sm_lid = (uint16_t)(d[18] << 8 | d[19]);
	}
	return slid && slid == a->sm_lid;
}

/* Drop the AR_Key if its lease ran out (checked before each request and
 * each turn of the loop, so the dump says so too). */
static void lapse_key(struct agent *a)
{
	if (!vf_mkey_expire(&a->key, now_ms()))
		return;
	printf("ar-agent: the AR_Key's lease of %u s ran out with no request carrying it from the master SM: key cleared, the master SM may set its own\n",
	       a->key.lease_s);
	write_dump(a);
}

/*
 * Who may ask this (0 or the status to refuse with, vf_arp_authorize): a
 * Set only the master SM may make from its port and with the AR_Key; a
 * notice with the AR_Key.  ARPortLoad is the simulator's stand-in for
 * what a switch senses itself (link state, congestion): anyone.  A key
 * that ran out is dropped first.
 */
static uint16_t authorize(struct agent *a, const struct vf_arp_hdr *h,
			  uint64_t carried, uint16_t slid)
{
	bool from_sm = vf_arp_sm_only(h) && from_master_sm(a, slid);
	uint32_t refused = a->key.refused;
	uint16_t st;

	lapse_key(a);
	st = vf_arp_authorize(h, from_sm, carried, &a->key, now_ms());
	if (st == VF_ARP_NOT_SM)
		a->not_sm++;
	/* log a master SM's refusals 1, 2, 4, 8, ... times */
	if (st == VF_ARP_BAD_KEY && from_sm && a->key.refused != refused &&
	    !(a->key.refused & (a->key.refused - 1)))
		printf("ar-agent: master SM (LID %u) Sets without this switch's AR_Key (%u refused); the key lapses %u s after the first unless one carries it\n",
		       slid, a->key.refused, a->key.lease_s);
	return st;
}

/*
 * A neighbor answered notice TID: done with it, whatever the status.  The
 * answer must come from the LID the notice went to (the SLID, which the
 * fabric sets): a host guessing our TIDs cannot cancel a notice.
 */
static void notice_answered(struct agent *a, const struct vf_arp_hdr *h,
			    uint16_t slid)
{
	for (unsigned i = 0; i < NOTICE_SLOTS; i++) {
		struct notice *n = &a->pending[i];

		if (!n->used || n->tid != (uint32_t)h->tid || n->lid != slid)
			continue;
		n->used = false;
		if (h->status)
			printf("ar-agent: LID %u refused our ARLostRoutes: status 0x%04x (%s)\n",
			       slid, h->status, vf_arp_status_name(h->status));
		else
			a->notices_acked++;
		write_dump(a);
		return;
	}
}

/* Send again the notices whose answer is late; drop one after its last
 * try (logged: a neighbor that never answers keeps its marks until the
 * SM reprograms it). */
static void resend_due(struct agent *a)
{
	uint64_t now = now_ms();
	bool changed = false;

	for (unsigned i = 0; i < NOTICE_SLOTS; i++) {
		struct notice *n = &a->pending[i];

		if (!n->used || now < n->due_ms)
			continue;
		changed = true;
		if (n->tries >= NOTICE_TRIES) {
			n->used = false;
			a->notices_dropped++;
			printf("ar-agent: no answer from LID %u to an ARLostRoutes after %u sends: dropped\n",
			       n->lid, n->tries);
			continue;
		}
		memcpy(umad_get_mad(a->nbuf), n->mad, VF_ARP_MAD_SIZE);
		if (!vf_umadsim_send_buf(&a->u, a->nbuf, a->ar_id, n->lid, 1,
					 VF_ARP_MAD_SIZE))
			a->notices_resent++;
		n->due_ms = now + ((uint64_t)NOTICE_FIRST_GAP_MS << n->tries++);
	}
	if (changed)
		write_dump(a);
}

/* Keep a sent notice until it is answered; the oldest goes if full. */
static void track_notice(struct agent *a, const uint8_t *mad, uint16_t lid)
{
	struct notice *slot = &a->pending[0];
	struct vf_arp_hdr h;

	for (unsigned i = 0; i < NOTICE_SLOTS; i++) {
		if (!a->pending[i].used) {
			slot = &a->pending[i];
			break;
		}
		if (a->pending[i].due_ms < slot->due_ms)
			slot = &a->pending[i];
	}
	if (slot->used)
		a->notices_dropped++;
	vf_arp_get_hdr(mad, &h);
	*slot = (struct notice){ .used = true, .lid = lid,
				 .tid = (uint32_t)h.tid, .tries = 1,
				 .due_ms = now_ms() + NOTICE_FIRST_GAP_MS };
	memcpy(slot->mad, mad, VF_ARP_MAD_SIZE);
}

/* A request of the AR class: answer it (unless --no-ar). */
static void handle_ar(struct agent *a, int len)
{
	ib_mad_addr_t *addr = umad_get_mad_addr(a->u.rbuf);
	uint16_t slid = ntohs(addr->lid);
	int qpn = (int)ntohl(addr->qpn);
	uint8_t req[VF_ARP_MAD_SIZE], *mad;
	struct vf_arp_hdr h;
	uint16_t st;
	char an[8];

	if (umad_status(a->u.rbuf))
		return;		/* one of our notices bounced or timed out */
	if (len > VF_ARP_USED)
		len = VF_ARP_USED;
	/* apart from rbuf and sbuf, which the SMP of from_master_sm uses */
	memset(req, 0, sizeof(req));
	memcpy(req, umad_get_mad(a->u.rbuf), (size_t)len);
	if (req[3] & 0x80) {
		/* a response: the answer to one of our notices, or nothing */
		vf_arp_get_hdr(req, &h);
		if (h.attr_id == VF_ARP_LOST_ROUTES)
			notice_answered(a, &h, slid);
		return;
	}
	a->requests++;
	st = vf_arp_check_request(req, (size_t)len, &h);
	if (a->no_ar) {
		printf("ar-agent: %s %s ignored (--no-ar)\n",
		       h.method == VF_ARP_SET ? "Set" : "Get",
		       vf_arp_attr_name(h.attr_id, an));
		return;
	}
	if (!st) {
		st = authorize(a, &h, vf_arp_get_key(req), slid);
		if (st)
			write_dump(a);	/* the refusal counters */
	}
	mad = umad_get_mad(a->u.sbuf);
	memcpy(mad, req, VF_ARP_MAD_SIZE);
	if (!st) {
		switch (h.attr_id) {
		case VF_ARP_INFO:
			st = do_info(a, mad, vf_arp_get_key(req));
			break;
		case VF_ARP_KEY_INFO:
			st = do_keyinfo(a, &h, mad, vf_arp_get_key(req), slid);
			break;
		case VF_ARP_CONTROL: st = do_control(a, &h, mad); break;
		case VF_ARP_GROUPS: st = do_groups(a, &h, mad); break;
		case VF_ARP_LIDS: st = do_lids(a, &h, mad); break;
		case VF_ARP_LOAD: st = do_load(a, &h, mad); break;
		case VF_ARP_EGRESS: st = do_egress(a, &h, mad); break;
		case VF_ARP_NEIGHBORS: st = do_neighbors(a, &h, mad); break;
		case VF_ARP_LOST_ROUTES:
			st = do_lost(a, &h, mad, slid);
			break;
		}
	}
	/*
	 * One line per request would let any host fill the log: errors are
	 * logged at the 1st, 2nd, 4th, ... (the master SM's always), and of
	 * the rest only Sets, which change something.
	 */
	if (st) {
		a->errors++;
		if (!(a->errors & (a->errors - 1)) || slid == a->sm_lid)
			printf("ar-agent: method 0x%02x %s amod %u gen %u from LID %u: status 0x%04x (%s); %lu errors so far\n",
			       h.method, vf_arp_attr_name(h.attr_id, an),
			       h.attr_mod, h.generation, slid, st,
			       vf_arp_status_name(st), a->errors);
	} else if (h.method == VF_ARP_SET) {
		printf("ar-agent: Set %s amod %u gen %u from LID %u ok\n",
		       vf_arp_attr_name(h.attr_id, an), h.attr_mod,
		       h.generation, slid);
	}
	mad[3] = VF_ARP_GET_RESP;
	vf_arp_put_status(mad, st);
	vf_umadsim_send(&a->u, a->ar_id, slid, qpn, VF_ARP_MAD_SIZE);
}

/*
 * An AR request that arrived while we waited for one of our own SMPs
 * (NodeInfo, the LFT): an ARPortLoad or ARLostRoutes among them only sets
 * eval_pending, evaluate() is not re-entered.
 */
static void on_other(struct vf_umadsim *u, int len, void *arg)
{
	if (((const uint8_t *)umad_get_mad(u->rbuf))[1] == VF_ARP_CLASS)
		handle_ar(arg, len);
}

/* NumPorts from our own NodeInfo; 0 when none. */
static unsigned query_num_ports(struct agent *a)
{
	uint8_t d[VF_UMADSIM_SMP_DATA];

	a->u.other = on_other;
	a->u.arg = a;
	if (own_smp(a, ATTR_NODE_INFO, 0, d))
		return 0;
	return d[3];
}

/* Our LFT into a->lft; its top (LinearFDBTop, capped), or -1. */
static int read_lft(struct agent *a)
{
	uint8_t d[VF_UMADSIM_SMP_DATA];
	unsigned top;

	if (own_smp(a, ATTR_SWITCH_INFO, 0, d))
		return -1;
	top = (unsigned)(d[6] << 8 | d[7]);
	if (top >= a->lid_cap)
		top = a->lid_cap - 1;
	for (unsigned b = 0; b <= top / LFT_BLOCK; b++) {
		if (own_smp(a, ATTR_LFT, b, d))
			return -1;
		memcpy(a->lft + b * LFT_BLOCK, d, LFT_BLOCK);
	}
	return (int)top;
}

/* Can this switch still reach lid: an up, unlost member of its choice? */
static bool reachable(const struct agent *a, unsigned lid, unsigned sp)
{
	uint8_t g = lid < a->ctl.lid_top ? a->active.lids[lid] : VF_AR_NO_GROUP;
	const struct vf_ar_mask *grp = g < a->ctl.group_top ?
				       &a->active.groups[g] : NULL;

	if (!grp || !vf_ar_mask_has(grp, sp))
		return !a->ports[sp].down && !vf_ar_mask_has(&a->lost[lid], sp);
	for (unsigned q = 1; q <= a->num_ports; q++)
		if (vf_ar_mask_has(grp, q) && !a->ports[q].down &&
		    !vf_ar_mask_has(&a->lost[lid], q))
			return true;
	return false;
}

/*
 * ARLostRoutes for the LIDs of `which` (restored or lost) to every
 * neighbor switch on an up port; a lost LID is not sent to a neighbor
 * that told us it lost it (the sender, first of all).
 */
static void notify(struct agent *a, const bool *which, unsigned top,
		   bool restored)
{
	uint16_t done[NBRS];
	unsigned ndone = 0;

	for (unsigned q = 1; q <= a->num_ports && q < NBRS; q++) {
		uint16_t nb = a->active.nbrs[q];
		struct vf_ar_mask to = { { 0 } };
		bool seen = false;

		if (!nb || nb == a->active.nbrs[0] || a->ports[q].down)
			continue;
		for (unsigned k = 0; k < ndone; k++)
			seen |= done[k] == nb;
		if (seen)
			continue;
		done[ndone++] = nb;
		for (unsigned p = 1; p <= a->num_ports && p < NBRS; p++)
			if (a->active.nbrs[p] == nb)
				to.w[(p - 1) / 64] |= 1ull << ((p - 1) % 64);
		for (unsigned b = 0; b <= top / VF_ARP_LOST_LIDS; b++) {
			struct vf_arp_lost l = {
				.restored = restored,
				.sender = a->active.nbrs[0],
			};
			uint8_t *mad = umad_get_mad(a->nbuf);
			unsigned n = 0;

			for (unsigned k = 0; k < VF_ARP_LOST_LIDS; k++) {
				unsigned lid = b * VF_ARP_LOST_LIDS + k;
				bool told = false;

				if (lid > top || !which[lid])
					continue;
				for (unsigned w = 0; w < VF_AR_MASK_WORDS; w++)
					told |= (a->lost[lid].w[w] & to.w[w]) != 0;
				if (told && !restored)
					continue;
				vf_arp_lost_add(&l, k);
				n++;
			}
			if (!n)
				continue;
			vf_arp_init(mad, VF_ARP_SET,
				    NOTICE_TID | (a->next_tid++ & 0xffffff),
				    VF_ARP_LOST_ROUTES, b, a->gen_active);
			vf_arp_put_lost(mad, &l);
			vf_arp_put_key(mad, a->key.key);
			if (vf_umadsim_send_buf(&a->u, a->nbuf, a->ar_id, nb, 1,
						VF_ARP_MAD_SIZE))
				continue;
			track_notice(a, mad, nb);
			a->notices_sent++;
			printf("ar-agent: ARLostRoutes%s to LID %u: %u LIDs\n",
			       restored ? " (restored)" : "", nb, n);
		}
	}
}

static unsigned count_retract(const struct agent *a)
{
	unsigned n = 0;

	for (unsigned l = 0; l < a->lid_cap; l++)
		n += a->retract[l];
	return n;
}

/*
 * After a port went down or up, or a neighbor's notice: which LIDs did we
 * lose, which are back; tell the neighbors.  Not re-entered (the LFT reads
 * serve MADs meanwhile, which may ask for another round).
 */
static void evaluate(struct agent *a)
{
	bool *lost, *back;

	if (a->in_eval || !a->eval_pending)
		return;
	a->in_eval = true;
	lost = calloc(a->lid_cap, sizeof(*lost));
	back = calloc(a->lid_cap, sizeof(*back));
	while (lost && back && a->eval_pending) {
		int top;
		unsigned nlost = 0, nback = 0;

		a->eval_pending = false;
		if (a->paused || !a->active.nbrs[0])
			break;		/* tables being written, or no LID */
		if (count_retract(a)) {
			notify(a, a->retract, a->lid_cap - 1, true);
			memset(a->retract, 0, a->lid_cap * sizeof(*a->retract));
		}
		if (!a->ctl.enable || a->ctl.lost_route_only)
			break;	/* LostRouteOnly: we reroute, nobody else */
		top = read_lft(a);
		if (top < 0) {
			printf("ar-agent: cannot read the LFT: no notification\n");
			break;
		}
		memset(lost, 0, a->lid_cap * sizeof(*lost));
		memset(back, 0, a->lid_cap * sizeof(*back));
		for (unsigned lid = 1; lid <= (unsigned)top; lid++) {
			unsigned sp = a->lft[lid];
			bool ok;

			if (!sp || sp > a->num_ports)
				continue;	/* ourselves, or no route */
			ok = reachable(a, lid, sp);
			if (!ok && !a->announced[lid]) {
				lost[lid] = a->announced[lid] = true;
				nlost++;
			} else if (ok && a->announced[lid]) {
				a->announced[lid] = false;
				back[lid] = true;
				nback++;
			}
		}
		if (nlost || nback)
			printf("ar-agent: %u LIDs lost, %u restored\n", nlost,
			       nback);
		if (nlost)
			notify(a, lost, (unsigned)top, false);
		if (nback)
			notify(a, back, (unsigned)top, true);
		write_dump(a);
	}
	free(lost);
	free(back);
	a->in_eval = false;
}

/* --load 1=50,2=100d: percent per port, a trailing d: link down. */
static int parse_loads(struct agent *a, const char *spec)
{
	while (*spec) {
		char *end;
		unsigned long port = strtoul(spec, &end, 10), load;

		if (*end != '=' || !port || port > MAX_PORTS)
			return -1;
		load = strtoul(end + 1, &end, 10);
		if (load > 100)
			return -1;
		a->ports[port].load = (unsigned)load;
		if (*end == 'd') {
			a->ports[port].down = true;
			end++;
		}
		if (*end && *end != ',')
			return -1;
		spec = *end ? end + 1 : end;
	}
	return 0;
}

static int serve(struct agent *a)
{
	if (vf_errfilter_start(VF_UMAD2SIM_SIZE_LINE, &a->umad2sim_lines))
		fprintf(stderr, "ar-agent: cannot filter umad2sim's size lines; they stay\n");
	if (vf_umadsim_open(&a->u, "ar-agent"))
		return 1;
	a->ar_id = vf_umadsim_register(&a->u, VF_ARP_CLASS,
				       VF_ARP_CLASS_VERSION, 0,
				       1 << VF_ARP_GET | 1 << VF_ARP_SET);
	if (a->ar_id < 0) {
		fprintf(stderr, "ar-agent: cannot register the AR class\n");
		return 1;
	}
	if (vf_umadsim_claim_sm(&a->u))
		return 1;
	if (!a->num_ports)
		a->num_ports = query_num_ports(a);
	if (!a->num_ports)
		a->num_ports = 36;
	if (a->num_ports > MAX_PORTS)
		a->num_ports = MAX_PORTS;
	if (tables_alloc(&a->active, a->group_cap, a->lid_cap) ||
	    tables_alloc(&a->staging, a->group_cap, a->lid_cap))
		return 1;
	a->lost = calloc(a->lid_cap, sizeof(*a->lost));
	a->announced = calloc(a->lid_cap, sizeof(*a->announced));
	a->retract = calloc(a->lid_cap, sizeof(*a->retract));
	a->lft = calloc(a->lid_cap + LFT_BLOCK, 1);
	if (!a->lost || !a->announced || !a->retract || !a->lft)
		return 1;
	a->nbuf = vf_umadsim_buf();
	if (!a->nbuf)
		return 1;
	write_dump(a);
	printf("ar-agent: switch 0x%016" PRIx64 " ports %u groups %u lids %u%s ready\n",
	       a->u.node_guid, a->num_ports, a->group_cap, a->lid_cap,
	       a->no_ar ? " (--no-ar: AR requests are not answered)" : "");
	while (!stop) {
		int len = vf_umadsim_recv(&a->u, 500);

		if (len && ((const uint8_t *)umad_get_mad(a->u.rbuf))[1] ==
			   VF_ARP_CLASS)
			handle_ar(a, len);
		evaluate(a);
		resend_due(a);
		lapse_key(a);
	}
	printf("ar-agent: exiting after %lu AR requests (%lu errors); %llu umad2sim size lines dropped\n",
	       a->requests, a->errors,
	       (unsigned long long)a->umad2sim_lines);
	vf_umadsim_close(&a->u);
	return 0;
}

/* --- one-shot requester: --to LID --req M,ATTR,AMOD[,GEN[,HEX]] ... --- */

static int hexbytes(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;

	while (s[0] && s[1] && n < max) {
		unsigned v;

		if (sscanf(s, "%2x", &v) != 1)
			return -1;
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return *s ? -1 : 0;
}

static int request(const char *spec, unsigned lid, uint64_t key, int fd,
		   int id, uint8_t *sbuf, uint8_t *rbuf, unsigned n)
{
	unsigned method, attr, amod, gen = 0, cv = VF_ARP_CLASS_VERSION;
	char hex[512] = "";
	uint8_t *mad = umad_get_mad(sbuf);
	uint64_t tid = 0x5200000000ull | (getpid() & 0xffff) << 8 | n;
	uint64_t deadline;
	int got;

	got = sscanf(spec, "%i,%i,%i,%i,%511[0-9a-fA-F],%i", &method, &attr,
		     &amod, &gen, hex, &cv);
	if (got < 3)
		return -1;
	vf_arp_init(mad, (uint8_t)method, tid, (uint16_t)attr, amod, gen);
	mad[2] = (uint8_t)cv;
	if (hexbytes(hex, mad + VF_ARP_DATA, VF_ARP_USED - VF_ARP_DATA))
		return -1;
	if (key)
		vf_arp_put_key(mad, key);
	umad_set_addr(sbuf, (int)lid, 1, 0, QP1_QKEY);
	if (umad_send(fd, id, sbuf, VF_ARP_MAD_SIZE, 1000, 0) < 0)
		return -1;
	deadline = now_ms() + 2000;
	while (now_ms() < deadline) {
		int len = RECV_LEN;
		uint8_t *r = umad_get_mad(rbuf);
		struct vf_arp_hdr h;

		if (umad_recv(fd, rbuf, &len, 200) < 0)
			continue;
		vf_arp_get_hdr(r, &h);
		if ((uint32_t)h.tid != (uint32_t)tid)
			continue;
		if (umad_status(rbuf)) {
			printf("req %u umad-status %d\n", n, umad_status(rbuf));
			return 0;
		}
		printf("req %u status 0x%04x data ", n, h.status);
		for (unsigned k = VF_ARP_DATA; k < VF_ARP_USED; k++)
			printf("%02x", r[k]);
		printf("\n");
		return 0;
	}
	printf("req %u timeout\n", n);
	return 0;
}

static int requester(unsigned lid, uint64_t key, char **reqs, unsigned n)
{
	long mask[16 / sizeof(long)] = { 0 };
	uint8_t *sbuf = calloc(1, umad_size() + RBUF_SIZE);
	uint8_t *rbuf = calloc(1, umad_size() + RBUF_SIZE);
	int fd, id, rc = 0;

	umad_port_t port;

	if (!sbuf || !rbuf || umad_init() < 0 ||
	    umad_get_port(NULL, 0, &port) < 0)
		return 1;
	fd = umad_open_port(port.ca_name, port.portnum);
	umad_release_port(&port);
	if (fd < 0 ||
	    (id = umad_register(fd, VF_ARP_CLASS, VF_ARP_CLASS_VERSION, 0,
				mask)) < 0) {
		fprintf(stderr, "ar-agent: cannot open a port\n");
		return 1;
	}
	for (unsigned k = 0; k < n; k++)
		if (request(reqs[k], lid, key, fd, id, sbuf, rbuf, k) < 0) {
			fprintf(stderr, "ar-agent: bad request '%s'\n", reqs[k]);
			rc = EXIT_USAGE;
		}
	umad_unregister(fd, id);
	umad_close_port(fd);
	free(sbuf);
	free(rbuf);
	return rc;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ar-agent [--dump FILE] [--no-ar] [--groups N] [--lids N] [--ports N]\n"
		"                [--load PORT=PCT[d],...] [--seed N]\n"
		"       ar-agent --to LID [--key HEX] --req METHOD,ATTR,AMOD[,GEN[,HEXDATA[,CLASSVER]]] ...\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dump", required_argument, NULL, 'd' },
		{ "no-ar", no_argument, NULL, 'n' },
		{ "groups", required_argument, NULL, 'g' },
		{ "lids", required_argument, NULL, 'l' },
		{ "ports", required_argument, NULL, 'p' },
		{ "load", required_argument, NULL, 'L' },
		{ "seed", required_argument, NULL, 's' },
		{ "to", required_argument, NULL, 't' },
		{ "req", required_argument, NULL, 'r' },
		{ "key", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static struct agent a;
	char *reqs[64];
	unsigned nreq = 0, to = 0;
	uint64_t key = 0;
	int ch;

	setvbuf(stdout, NULL, _IOLBF, 0);
	a.group_cap = VF_AR_MAX_GROUPS;
	a.lid_cap = 8192;
	a.rng = 1;
	while ((ch = getopt_long(argc, argv, "d:ng:l:p:L:s:t:r:k:h", opts,
				 NULL)) != -1) {
		switch (ch) {
		case 'd': a.dump = optarg; break;
		case 'n': a.no_ar = true; break;
		case 'g': a.group_cap = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'l': a.lid_cap = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'p': a.num_ports = (unsigned)strtoul(optarg, NULL, 0); break;
		case 's': a.rng = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': to = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'k': key = strtoull(optarg, NULL, 16); break;
		case 'r':
			if (nreq == 64)
				return EXIT_USAGE;
			reqs[nreq++] = optarg;
			break;
		case 'L':
			if (parse_loads(&a, optarg)) {
				fprintf(stderr, "ar-agent: bad --load '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			usage();
			return ch == 'h' ? 0 : EXIT_USAGE;
		}
	}
	if (optind != argc || !a.group_cap || a.group_cap > VF_AR_MAX_GROUPS ||
	    !a.lid_cap || a.lid_cap > 0xC000 || (nreq && !to)) {
		usage();
		return EXIT_USAGE;
	}
	if (nreq)
		return requester(to, key, reqs, nreq);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	return serve(&a);
}
