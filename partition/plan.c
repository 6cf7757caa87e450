// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/dgresolve.h"
#include "common/mad.h"
#include "partition/internal/fmmgmt.h"
#include "partition/internal/mcfit.h"
#include "partition/internal/pconfstock.h"
#include "partition/plan.h"
#include "partition/query.h"

/* CA ports that are linked, and switch port 0: what P_Keys apply to. */
static bool end_port(const struct vf_fabric *f, uint32_t p)
{
	const struct vf_port *port = &f->ports[p];

	if (vf_is_switch(&f->nodes[port->node]))
		return port->num == 0;
	return port->num > 0 && port->remote != VF_NONE;
}

/*
 * The VF carries IPoIB when its applications take the partition's IPv4
 * broadcast MGID, ff12:401b:<P_Key>::ffff:ffff (the FM's implicit IPoIB
 * groups, reference/opa-fm.md 1.8).
 */
static bool vf_ipoib(const struct vf_config *c, const struct vf_cfg_vf *v,
		     uint16_t pkey)
{
	struct vf_mgid bcast = {
		0xff12401b00000000ull | (uint64_t)(pkey | 0x8000) << 16,
		0x00000000ffffffffull
	};

	return vf_vf_takes_mgid(c, v, &bcast) != 0;
}

/*
 * A MulticastGroup MGID as an OpenSM mgid= definition.  IPoIB MGIDs
 * (ff1x:401b / ff1x:601b) take MTU and rate from their partition, as
 * OpenSM insists; others carry their own.
 */
static int mcgroup_line(const struct vf_mcgroup *g, const struct vf_mgid *m,
			struct vf_names *out)
{
	unsigned sig = (unsigned)(m->hi >> 32) & 0xffff;
	bool ip = sig == 0x401b || sig == 0x601b;
	char line[160];
	int n;

	n = snprintf(line, sizeof(line),
		     "mgid=%04x:%04x:%04x:%04x:%04x:%04x:%04x:%04x",
		     (unsigned)(m->hi >> 48), (unsigned)(m->hi >> 32) & 0xffff,
		     (unsigned)(m->hi >> 16) & 0xffff, (unsigned)m->hi & 0xffff,
		     (unsigned)(m->lo >> 48), (unsigned)(m->lo >> 32) & 0xffff,
		     (unsigned)(m->lo >> 16) & 0xffff, (unsigned)m->lo & 0xffff);
	/* OpenSM would give the group its partition's scope otherwise */
	if (!ip)
		n += snprintf(line + n, sizeof(line) - (size_t)n,
			      ", scope=%u", (unsigned)(m->hi >> 48) & 0xf);
	if (g->mtu && !ip)
		n += snprintf(line + n, sizeof(line) - (size_t)n, ", mtu=%u",
			      vf_mtu_code(g->mtu));
	if (g->rate && !ip)
		n += snprintf(line + n, sizeof(line) - (size_t)n, ", rate=%u",
			      g->rate);
	if (g->sl >= 0)
		n += snprintf(line + n, sizeof(line) - (size_t)n, ", sl=%d",
			      g->sl);
	if (g->qkey)
		snprintf(line + n, sizeof(line) - (size_t)n, ", Q_Key=0x%08x",
			 g->qkey);
	return vf_names_add(out, line);
}

/*
 * A partitions.conf port listed again for the same P_Key (stock OpenSM's
 * per-statement rule).  Not being listed adds nothing: it never turns a
 * limited membership into a full one.
 */
static uint8_t merge(uint8_t old, uint8_t add, bool both)
{
	if (!add || old == add)
		return old;
	if (!old)
		return add;
	if (old == VF_MEMBER_BOTH || add == VF_MEMBER_BOTH)
		return VF_MEMBER_BOTH;
	return both ? VF_MEMBER_BOTH : VF_MEMBER_FULL;	/* full + limited */
}

/*
 * The FM's rule for VFs sharing a P_Key (sm_compute_portPkeys in the FM's
 * sm_partMgr.c, reference/opa-fm.md 1.9): one entry per P_Key, full when
 * the port is full in any VF of it (a LimitedMember of a VF without
 * Security already counts as full, add_vf), limited otherwise; a VF the
 * port is not in changes nothing.  The one exception is SR-IOV (seed
 * 004): a physical port with alias GUIDs, full in one VF and limited in
 * another, holds both entries under allow_both_pkeys, so the hypervisor
 * can map either to a virtual function's table.
 */
static uint8_t fm_combine(uint8_t old, uint8_t add, bool both)
{
	if (both && (old | add) == VF_MEMBER_BOTH)
		return VF_MEMBER_BOTH;
	return add > old ? add : old;
}

/* Work state: per partition, a membership byte per port slot. */
struct plan_work {
	const struct vf_config *c;
	const struct vf_fabric *f;
	const struct vf_plan_opts *o;
	uint32_t sm_port;		/* the SM's port slot, or VF_NONE */
	const struct vf_dg_members *dg;
	uint8_t **mem;			/* [num_parts][num_ends] */
	unsigned *first_vf;		/* [num_parts] */
	uint32_t *ends;			/* the end ports' slots */
	uint32_t num_ends;
	bool *sriov;			/* [num_ends]: has alias GUIDs */
	int *idx0;			/* [num_ends]: partition at index 0,
					 * -1 none (set_index0) */
	struct vf_diag *d;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Per end port work state: which have SR-IOV alias GUIDs (fm_combine),
 * and no index-0 partition yet.  0 or -ENOMEM.
 */
static int init_ends(struct plan_work *w)
{
	const struct vf_fabric *f = w->f;

	w->sriov = calloc(w->num_ends ? w->num_ends : 1, sizeof(*w->sriov));
	w->idx0 = malloc((w->num_ends ? w->num_ends : 1) * sizeof(*w->idx0));
	if (!w->sriov || !w->idx0)
		return -ENOMEM;
	for (uint32_t e = 0; e < w->num_ends; e++)
		w->idx0[e] = -1;
	for (uint32_t a = 0; a < f->num_aliases; a++) {
		/* ends are in slot order */
		const uint32_t *e = bsearch(&f->aliases[a].port, w->ends,
					    w->num_ends, sizeof(*w->ends),
					    cmp_u32);

		if (e)
			w->sriov[e - w->ends] = true;
	}
	return 0;
}

/* The group numbers of a member list (-1 for a name not found). */
static int *group_numbers(const struct plan_work *w, const struct vf_names *l)
{
	int *out = malloc((l->n + 1) * sizeof(*out));

	for (unsigned i = 0; out && i < l->n; i++)
		out[i] = vf_config_dg_index(w->c, l->v[i]);
	return out;
}

static bool in_any(const struct plan_work *w, const int *groups, unsigned n,
		   uint32_t p)
{
	for (unsigned i = 0; i < n; i++)
		if (groups[i] >= 0 && vf_dg_has(w->dg, (unsigned)groups[i], p))
			return true;
	return false;
}

/* The partition of pkey, created after the others when new; -1 ENOMEM. */
static int part_of(struct plan_work *w, struct vf_plan *p, uint16_t pkey,
		   const char *name, unsigned vf)
{
	struct vf_partition *parts;
	uint8_t **mem;
	unsigned *first;

	for (unsigned i = 0; i < p->num_parts; i++)
		if (p->parts[i].pkey == pkey)
			return (int)i;
	parts = realloc(p->parts, (p->num_parts + 1) * sizeof(*parts));
	if (parts)
		p->parts = parts;
	mem = realloc(w->mem, (p->num_parts + 1) * sizeof(*mem));
	if (mem)
		w->mem = mem;
	first = realloc(w->first_vf, (p->num_parts + 1) * sizeof(*first));
	if (first)
		w->first_vf = first;
	if (!parts || !mem || !first)
		return -1;
	w->mem[p->num_parts] = calloc(w->num_ends ? w->num_ends : 1, 1);
	p->parts[p->num_parts] = (struct vf_partition){
		.name = strdup(name), .pkey = pkey, .sl = -1,
		.stock_rules = true };
	w->first_vf[p->num_parts] = vf;
	if (!w->mem[p->num_parts] || !p->parts[p->num_parts].name) {
		free(w->mem[p->num_parts]);
		free(p->parts[p->num_parts].name);
		return -1;
	}
	return (int)p->num_parts++;
}

/*
 * Seed 002: an entry naming a port that is not an end port is flagged and
 * ignored.  A listed GUID that is a node's GUID but no end port's (a CA's
 * NodeGUID given where a PortGUID belongs) is warned about; a GUID not on
 * the fabric at all is a device that is down, and says nothing.
 */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* GUIDs that are fine to list: end ports' and aliases', sorted. */
static uint64_t *listable_guids(const struct plan_work *w, size_t *n)
{
	const struct vf_fabric *f = w->f;
	uint64_t *v = malloc(((size_t)w->num_ends + f->num_aliases + 1) *
			     sizeof(*v));

	*n = 0;
	for (uint32_t e = 0; v && e < w->num_ends; e++)
		v[(*n)++] = f->ports[w->ends[e]].guid;
	for (uint32_t a = 0; v && a < f->num_aliases; a++)
		v[(*n)++] = f->aliases[a].guid;
	if (v)
		qsort(v, *n, sizeof(*v), cmp_u64);
	return v;
}

static void flag_non_end_ports(const struct plan_work *w, struct vf_diag *d)
{
	const struct vf_fabric *f = w->f;
	uint64_t *ok = NULL;
	size_t n = 0;

	for (unsigned g = 0; g < w->c->num_dgs; g++) {
		const struct vf_cfg_dg *dg = &w->c->dgs[g];

		for (unsigned i = 0; i < dg->port_guids.n; i++) {
			uint64_t guid = dg->port_guids.v[i];
			uint32_t node;

			if (!ok && !(ok = listable_guids(w, &n)))
				return;
			if (bsearch(&guid, ok, n, sizeof(*ok), cmp_u64))
				continue;
			char label[160];

			node = vf_fabric_find_guid(f, guid);
			if (node != VF_NONE)
				vf_diag_add(d, VF_DIAG_WARN, &dg->at,
					    "%s: 0x%016llx is the NodeGUID of '%s', not an end port's GUID; ignored",
					    vf_config_dg_label(dg, label,
							       sizeof(label)),
					    (unsigned long long)guid,
					    vf_node_desc(f, &f->nodes[node]));
		}
	}
	free(ok);
}

/* The lower of two limits where 0 means none. */
static unsigned lower(unsigned a, unsigned b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/*
 * Would the FM create group g in VF i (mcfit.c)?  A group it disables is
 * left out.  What the file alone shows was reported by the validation;
 * what only the assigned P_Key or SL shows is reported here.
 */
static bool mcgroup_fits(struct plan_work *w, const struct vf_plan *p,
			 unsigned i, const struct vf_mcgroup *g)
{
	const struct vf_cfg_vf *v = &w->c->vfs[i];
	char why[256], seen[256];

	if (!vf_mcgroup_unfit(w->c, g, v, p->vf_pkey[i], p->vf_sl[i], why,
			      sizeof(why)))
		return true;
	if (!vf_mcgroup_unfit(w->c, g, v, v->pkey, -1, seen, sizeof(seen)))
		vf_diag_add(w->d, VF_DIAG_WARN, &g->at,
			    "MulticastGroup of '%s': %s; the FM disables such a group, and it is not created",
			    g->vf, why);
	return false;
}

static int add_vf(struct plan_work *w, struct vf_plan *p, unsigned i)
{
	const struct vf_cfg_vf *v = &w->c->vfs[i];
	int k = part_of(w, p, p->vf_pkey[i], v->name, i), rc;
	struct vf_partition *part;
	int *both, *full, *lim;

	if (k < 0)
		return -ENOMEM;
	part = &p->parts[k];
	part->stock_rules &= v->from_partitions_conf;
	/* a partitions.conf: only its ipoib flag makes the broadcast group,
	 * as in OpenSM (app= defaults to every application, the catch-all
	 * for MGIDs included) */
	part->ipoib |= v->ipoib ||
		       (!w->c->stock_defaults && vf_ipoib(w->c, v, part->pkey));
	if (v->raw_flags && !part->raw_flags &&
	    !(part->raw_flags = strdup(v->raw_flags)))
		return -ENOMEM;
	for (unsigned l = 0; l < v->mgid_lines.n; l++)
		if (vf_names_add(&part->mgid_lines, v->mgid_lines.v[l]))
			return -ENOMEM;
	for (unsigned g = 0; g < w->c->num_mcgroups; g++) {
		if (strcmp(w->c->mcgroups[g].vf, v->name) ||
		    !mcgroup_fits(w, p, i, &w->c->mcgroups[g]))
			continue;
		for (unsigned m = 0; m < w->c->mcgroups[g].num_mgids; m++)
			if (mcgroup_line(&w->c->mcgroups[g],
					 &w->c->mcgroups[g].mgids[m],
					 &part->mgid_lines))
				return -ENOMEM;
	}
	part->mtu = lower(part->mtu, vf_mtu_code(v->max_mtu));
	part->rate = lower(part->rate, v->max_rate);
	if (part->sl < 0)
		part->sl = p->vf_sl[i];
	both = group_numbers(w, &v->both);
	full = group_numbers(w, &v->members);
	lim = group_numbers(w, &v->limited);
	for (uint32_t e = 0; both && full && lim && e < w->num_ends; e++) {
		uint32_t port = w->ends[e];
		uint8_t m = VF_MEMBER_NONE;

		if (in_any(w, both, v->both.n, port))
			m = w->o->allow_both_pkeys ? VF_MEMBER_BOTH :
						     VF_MEMBER_FULL;
		else if (in_any(w, full, v->members.n, port))
			m = VF_MEMBER_FULL;
		else if (in_any(w, lim, v->limited.n, port))
			m = v->security ? VF_MEMBER_LIMITED : VF_MEMBER_FULL;
		if (v->from_partitions_conf)
			w->mem[k][e] = merge(w->mem[k][e], m,
					     w->o->allow_both_pkeys);
		else
			w->mem[k][e] = fm_combine(w->mem[k][e], m,
						  w->o->allow_both_pkeys &&
						  w->sriov[e]);
		/* the FM: the first non-admin VF of the port at index 0 */
		if (m != VF_MEMBER_NONE && w->idx0[e] < 0 && k > 0 &&
		    !v->from_partitions_conf)
			w->idx0[e] = k;
	}
	rc = both && full && lim ? 0 : -ENOMEM;
	free(both);
	free(full);
	free(lim);
	return rc;
}

/* ---- a stock partitions.conf: OpenSM's own rule ------------------------ */

struct pc_ref {
	unsigned seq, vf, entry;
};

static int by_seq(const void *a, const void *b)
{
	const struct pc_ref *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Every entry of every partition in file order: the last one naming a
 * port decides its membership there (osm_prtn_add_port overwrites), both
 * is full only without allow_both_pkeys, and an indx0 entry puts its
 * partition at the port's index 0 until a later entry of that partition
 * without indx0 names the port again.  With !set_mem only the index 0
 * part (a partitions.conf with vFabric statements: its members come from
 * the member groups vf_pc_resolve() filled).
 */
static int stock_members(struct plan_work *w, struct vf_plan *p,
			 bool set_mem)
{
	const struct vf_config *c = w->c;
	struct pc_ref *refs;
	int *part = calloc(c->num_vfs + 1, sizeof(*part));
	unsigned n = 0, total = 0;

	for (unsigned i = 0; i < c->num_vfs; i++)
		total += c->vfs[i].num_pc_entries;
	refs = malloc((total + 1) * sizeof(*refs));
	if (!part || !refs)
		goto oom;
	for (unsigned i = 0; i < c->num_vfs; i++) {
		/* a stock partition without members still makes its groups
		 * (OpenSM then drops both): it keeps the MLIDs in step */
		if (!p->vf_pkey[i] ||
		    (!set_mem && !c->vfs[i].num_pc_entries))
			continue;
		part[i] = part_of(w, p, p->vf_pkey[i], c->vfs[i].name, i);
		if (part[i] < 0)
			goto oom;
		for (unsigned j = 0; j < c->vfs[i].num_pc_entries; j++)
			refs[n++] = (struct pc_ref){
				c->vfs[i].pc_entries[j].seq, i, j };
	}
	qsort(refs, n, sizeof(*refs), by_seq);
	for (unsigned r = 0; r < n; r++) {
		const struct vf_pc_entry *e =
			&c->vfs[refs[r].vf].pc_entries[refs[r].entry];
		unsigned k = (unsigned)part[refs[r].vf];
		uint8_t m = e->membership == VF_MEMBER_BOTH &&
			    !w->o->allow_both_pkeys ? VF_MEMBER_FULL :
			    e->membership;

		for (uint32_t x = 0; x < w->num_ends; x++) {
			if (!vf_pc_entry_names(w->c, w->f, w->dg, e,
					       w->ends[x], w->sm_port))
				continue;
			if (set_mem)
				w->mem[k][x] = m;
			if (e->indx0)
				w->idx0[x] = (int)k;
			else if (w->idx0[x] == (int)k)
				w->idx0[x] = -1;
		}
	}
	if (!set_mem)
		goto done;
	p->stock = true;
	p->groups = malloc((c->num_pc_groups + 1) * sizeof(*p->groups));
	if (!p->groups)
		goto oom;
	if (c->num_pc_groups)
		memcpy(p->groups, c->pc_groups,
		       c->num_pc_groups * sizeof(*p->groups));
	p->num_groups = c->num_pc_groups;
done:
	free(part);
	free(refs);
	return 0;
oom:
	free(part);
	free(refs);
	return -ENOMEM;
}

/*
 * The default partition's own rules, on top of 0x7fff VFs' members.  When
 * a VF of an XML file defines 0x7fff (the FM's Admin VF) its members
 * decide, as in the FM, where there is no implicit default partition:
 * every other end port holds 0x7fff limited (the FM's management slot),
 * switch port 0s and the SM's port full (OpenSM manages through them).
 */
static void default_rules(struct plan_work *w, const struct vf_plan *p,
			  bool own_default)
{
	for (uint32_t e = 0; e < w->num_ends; e++) {
		uint32_t port = w->ends[e];
		bool configured = false, sw;
		uint8_t m;

		for (unsigned k = 1; k < p->num_parts && !configured; k++)
			configured = w->mem[k][e] != VF_MEMBER_NONE;
		sw = vf_is_switch(&w->f->nodes[w->f->ports[port].node]);
		if (port == w->sm_port)
			m = VF_MEMBER_FULL;
		else if (w->c->stock_defaults)
			m = VF_MEMBER_LIMITED;
		else if (sw)
			m = VF_MEMBER_FULL;
		else if (configured || own_default ||
			 w->o->disconnect_unconfigured)
			m = VF_MEMBER_LIMITED;
		else
			m = VF_MEMBER_FULL;
		if (w->c->stock_defaults)
			w->mem[0][e] = merge(w->mem[0][e], m,
					     w->o->allow_both_pkeys);
		else
			w->mem[0][e] = fm_combine(w->mem[0][e], m, false);
	}
}

/*
 * The P_Key entries port needs in partition k (both: two) and the table
 * it has: its node's PartitionCap, and for a CA the enforcement table of
 * the switch port facing it, which OpenSM fills with the same P_Keys.
 */
static unsigned port_cap(const struct vf_fabric *f, uint32_t port)
{
	const struct vf_port *pt = &f->ports[port];
	unsigned cap = f->nodes[pt->node].partition_cap;

	if (!vf_is_switch(&f->nodes[pt->node]) && pt->remote != VF_NONE) {
		const struct vf_node *peer = &f->nodes[f->ports[pt->remote].node];

		if (vf_is_switch(peer))
			cap = lower(cap, peer->enforce_cap);
	}
	return cap;
}

static const char *port_desc(const struct vf_fabric *f, uint32_t port)
{
	return vf_node_desc(f, &f->nodes[f->ports[port].node]);
}

/* The ports a partition was dropped from: a count and the first one. */
struct dropped {
	unsigned ports;
	uint32_t example;
	unsigned cap_lo, cap_hi;
};

/*
 * One message per partition dropped anywhere, with the number of ports
 * and one of them: a fabric of thousands of small tables must not print
 * thousands of lines every sweep.
 */
static void report_dropped(struct plan_work *w, struct vf_plan *p,
			   const struct dropped *dr, struct vf_diag *d)
{
	for (unsigned k = 1; k < p->num_parts; k++) {
		const struct vf_cfg_vf *v = &w->c->vfs[w->first_vf[k]];
		const struct vf_port *ex = &w->f->ports[dr[k].example];
		char label[96], caps[32];

		if (!dr[k].ports)
			continue;
		vf_config_vf_label(v, label, sizeof(label));
		if (dr[k].ports == 1) {
			vf_diag_add(d, VF_DIAG_ERROR, &v->at,
				    "%s (P_Key 0x%04x) dropped on port 0x%016llx ('%s' port %u): its P_Key table holds %u entries",
				    label, p->parts[k].pkey,
				    (unsigned long long)ex->guid,
				    port_desc(w->f, dr[k].example), ex->num,
				    dr[k].cap_lo);
			continue;
		}
		if (dr[k].cap_lo == dr[k].cap_hi)
			snprintf(caps, sizeof(caps), "%u", dr[k].cap_lo);
		else
			snprintf(caps, sizeof(caps), "%u to %u", dr[k].cap_lo,
				 dr[k].cap_hi);
		vf_diag_add(d, VF_DIAG_ERROR, &v->at,
			    "%s (P_Key 0x%04x) dropped on %u ports (e.g. 0x%016llx '%s' port %u): their P_Key tables hold %s entries",
			    label, p->parts[k].pkey, dr[k].ports,
			    (unsigned long long)ex->guid,
			    port_desc(w->f, dr[k].example), ex->num, caps);
	}
}

/* Drop the last VFs' partitions from ports whose table is too small. */
static void fit_capacity(struct plan_work *w, struct vf_plan *p,
			 struct vf_diag *d)
{
	struct dropped *dr = calloc(p->num_parts ? p->num_parts : 1,
				    sizeof(*dr));

	if (!dr)		/* still drop, unreported */
		d->oom = true;
	for (uint32_t e = 0; e < w->num_ends; e++) {
		uint32_t port = w->ends[e];
		unsigned cap = port_cap(w->f, port), need = 0;

		if (!cap)
			continue;
		for (unsigned k = 0; k < p->num_parts; k++)
			need += w->mem[k][e] == VF_MEMBER_BOTH ? 2 :
				w->mem[k][e] != VF_MEMBER_NONE;
		for (unsigned k = p->num_parts; k-- > 1 && need > cap;) {
			if (w->mem[k][e] == VF_MEMBER_NONE)
				continue;
			need -= w->mem[k][e] == VF_MEMBER_BOTH ? 2 : 1;
			w->mem[k][e] = VF_MEMBER_NONE;
			p->dropped++;
			if (!dr)
				continue;
			if (!dr[k].ports++) {
				dr[k].example = port;
				dr[k].cap_lo = dr[k].cap_hi = cap;
			}
			dr[k].cap_lo = cap < dr[k].cap_lo ? cap : dr[k].cap_lo;
			dr[k].cap_hi = cap > dr[k].cap_hi ? cap : dr[k].cap_hi;
		}
	}
	if (dr)
		report_dropped(w, p, dr, d);
	free(dr);
}

/*
 * A port whose index-0 partition fit_capacity dropped takes the kept
 * partition whose first VF comes first (the FM drops VFs in reverse
 * config order too, so this is its choice unless the port joined that
 * partition through a later VF of it).
 */
static void set_index0(struct plan_work *w, const struct vf_plan *p)
{
	for (uint32_t e = 0; e < w->num_ends; e++) {
		int k0 = w->idx0[e];

		if (k0 < 0 || w->mem[k0][e] != VF_MEMBER_NONE)
			continue;
		w->idx0[e] = -1;
		for (unsigned k = 1; k < p->num_parts; k++)
			if (w->mem[k][e] != VF_MEMBER_NONE &&
			    (w->idx0[e] < 0 ||
			     w->first_vf[k] < w->first_vf[w->idx0[e]]))
				w->idx0[e] = (int)k;
	}
}

static int compact(struct plan_work *w, struct vf_plan *p)
{
	for (unsigned k = 0; k < p->num_parts; k++) {
		struct vf_partition *part = &p->parts[k];
		unsigned n = 0;

		for (uint32_t e = 0; e < w->num_ends; e++)
			n += w->mem[k][e] != VF_MEMBER_NONE;
		part->members = malloc((n ? n : 1) * sizeof(*part->members));
		if (!part->members)
			return -ENOMEM;
		/* ends are in slot order: members stay sorted by slot */
		for (uint32_t e = 0; e < w->num_ends; e++) {
			uint32_t port = w->ends[e];

			if (w->mem[k][e] != VF_MEMBER_NONE)
				part->members[part->num_members++] =
					(struct vf_part_member){
						port, w->mem[k][e],
						w->idx0[e] == (int)k };
		}
	}
	return 0;
}

static void work_free(struct plan_work *w, unsigned parts)
{
	for (unsigned k = 0; w->mem && k < parts; k++)
		free(w->mem[k]);
	free(w->mem);
	free(w->first_vf);
	free(w->ends);
	free(w->sriov);
	free(w->idx0);
}

int vf_plan_build(const struct vf_resolution *r,
		  const struct vf_plan_opts *o, struct vf_assignment *a,
		  struct vf_plan *p, struct vf_diag *d)
{
	const struct vf_config *c = r->config;
	const struct vf_fabric *f = r->fabric;
	struct plan_work w = { .c = c, .f = f, .o = o, .d = d,
			       .sm_port = r->sm_port, .dg = &r->dg };
	bool own_default = false;
	int rc = -ENOMEM;

	memset(p, 0, sizeof(*p));
	p->allow_both = o->allow_both_pkeys;
	p->num_vfs = c->num_vfs;
	p->vf_pkey = calloc(c->num_vfs + 1, sizeof(*p->vf_pkey));
	p->vf_sl = calloc(c->num_vfs + 1, sizeof(*p->vf_sl));
	if (!p->vf_pkey || !p->vf_sl)
		goto out;
	if (o->held && vf_assign_recover(c, f, w.dg, o->held, a, d))
		goto out;
	if (vf_assign(c, a, p->vf_pkey, p->vf_sl, d)) {
		rc = d->oom ? -ENOMEM : -EINVAL;
		goto out;
	}
	w.ends = malloc((f->num_ports ? f->num_ports : 1) * sizeof(*w.ends));
	if (!w.ends)
		goto out;
	for (uint32_t port = 0; port < f->num_ports; port++)
		if (end_port(f, port))
			w.ends[w.num_ends++] = port;
	if (init_ends(&w) || part_of(&w, p, VF_PKEY_DEFAULT, "Default", 0) < 0)
		goto out;
	if (c->stock_file) {
		/* OpenSM's meaning; its pkey manager handles table sizes */
		rc = stock_members(&w, p, true);
		if (!rc)
			rc = compact(&w, p);
		goto out;
	}
	for (unsigned i = 0; i < c->num_vfs; i++) {
		if (p->vf_pkey[i] && add_vf(&w, p, i))
			goto out;
		own_default |= p->vf_pkey[i] == VF_PKEY_DEFAULT;
	}
	/*
	 * An XML file that writes an Admin VF (0x7fff) keeps its meaning when
	 * that VF is disabled or Standby: unconfigured hosts stay limited
	 * members, never silently full (fail closed; fmmgmt.c warns).
	 */
	own_default |= vf_config_declares_admin(c, NULL);
	/* as stock OpenSM's default partition, unless a VF defines it (a
	 * partitions.conf: only its Default line decides, as in OpenSM) */
	if (!own_default && !c->stock_defaults)
		p->parts[0].ipoib = true;
	/* a partitions.conf's Default statement starts with OpenSM's own
	 * entries (ALL=limited, SELF=full): its members are final */
	if (!own_default || !c->stock_defaults)
		default_rules(&w, p, own_default);
	/* and its indx0 flags, per statement */
	if (c->stock_defaults && stock_members(&w, p, false))
		goto out;
	flag_non_end_ports(&w, d);
	fit_capacity(&w, p, d);
	set_index0(&w, p);
	rc = compact(&w, p);
out:
	work_free(&w, p->num_parts);
	if (rc)
		vf_plan_free(p);
	return rc;
}

void vf_plan_free(struct vf_plan *p)
{
	for (unsigned k = 0; k < p->num_parts; k++) {
		free(p->parts[k].name);
		free(p->parts[k].members);
		free(p->parts[k].raw_flags);
		for (unsigned i = 0; i < p->parts[k].mgid_lines.n; i++)
			free(p->parts[k].mgid_lines.v[i]);
		free(p->parts[k].mgid_lines.v);
	}
	free(p->parts);
	free(p->groups);
	free(p->vf_pkey);
	free(p->vf_sl);
	memset(p, 0, sizeof(*p));
}

/* Port slot `port` among part's members (sorted by slot), or NULL. */
static const struct vf_part_member *
find_member(const struct vf_partition *part, uint32_t port)
{
	unsigned lo = 0, hi = part->num_members;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (part->members[mid].port < port)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < part->num_members && part->members[lo].port == port ?
	       &part->members[lo] : NULL;
}

unsigned vf_plan_port_entries(const struct vf_plan *p, uint32_t port,
			      uint16_t *out, unsigned max)
{
	unsigned n = 0;

	for (unsigned k = 0; k < p->num_parts; k++) {
		const struct vf_partition *part = &p->parts[k];
		const struct vf_part_member *mb = find_member(part, port);
		uint8_t m = mb ? mb->membership : VF_MEMBER_NONE;

		if ((m == VF_MEMBER_FULL || m == VF_MEMBER_BOTH) && n++ < max)
			out[n - 1] = part->pkey | 0x8000;
		if ((m == VF_MEMBER_LIMITED || m == VF_MEMBER_BOTH) &&
		    n++ < max)
			out[n - 1] = part->pkey;
	}
	return n;
}

uint16_t vf_plan_port_index0(const struct vf_plan *p, uint32_t port)
{
	uint16_t dflt = 0;

	for (unsigned k = 0; k < p->num_parts; k++) {
		const struct vf_partition *part = &p->parts[k];
		const struct vf_part_member *m = find_member(part, port);
		uint16_t entry;

		if (!m)
			continue;
		entry = part->pkey |
			(m->membership == VF_MEMBER_LIMITED ? 0 : 0x8000);
		/* both: OpenSM adds the limited one last, and the last add
		 * of a port with indx0 wins */
		if (m->indx0)
			return m->membership == VF_MEMBER_BOTH ? part->pkey :
								 entry;
		/* with allow_both_pkeys OpenSM keeps index 0 for the full
		 * default entry only: a limited member's stays empty */
		if (!k && !(p->allow_both && entry == VF_PKEY_DEFAULT))
			dflt = entry;
	}
	return dflt;
}

static bool holds(const uint16_t *v, unsigned n, uint16_t x)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

bool vf_pkeys_match(const uint16_t *want, unsigned nw, const uint16_t *table,
		    unsigned n, int *missing, int *extra)
{
	*missing = *extra = -1;
	for (unsigned i = 0; i < nw && *missing < 0; i++)
		if (!holds(table, n, want[i]))
			*missing = want[i];
	for (unsigned i = 0; i < n && *extra < 0; i++)
		if (table[i] & 0x7fff && !holds(want, nw, table[i]))
			*extra = table[i];
	return *missing < 0 && *extra < 0;
}
