// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/dgresolve.h"
#include "partition/internal/fmmgmt.h"
#include "partition/isolation.h"
#include "common/ndpattern.h"

#define LIST_MAX 160	/* characters of a group list in a message */

static bool active(const struct vf_cfg_vf *v)
{
	return v->enable && !v->standby;
}

static bool in_names(const struct vf_names *l, const char *name)
{
	for (unsigned i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return true;
	return false;
}

/* Is every name of a in b or c? */
static bool covered(const struct vf_names *a, const struct vf_names *b,
		    const struct vf_names *c)
{
	for (unsigned i = 0; i < a->n; i++)
		if (!in_names(b, a->v[i]) && !in_names(c, a->v[i]))
			return false;
	return true;
}

/* The same groups as full (Member, both) and limited members? */
static bool same_members(const struct vf_cfg_vf *a, const struct vf_cfg_vf *b)
{
	return covered(&a->members, &b->members, &b->both) &&
	       covered(&a->both, &b->members, &b->both) &&
	       covered(&b->members, &a->members, &a->both) &&
	       covered(&b->both, &a->members, &a->both) &&
	       covered(&a->limited, &b->limited, &b->limited) &&
	       covered(&b->limited, &a->limited, &a->limited);
}

/* Two secure VFs that one explicit P_Key makes one partition. */
static bool shares(const struct vf_cfg_vf *a, const struct vf_cfg_vf *b)
{
	return active(a) && active(b) && a->security && b->security &&
	       a->pkey >= 0 && a->pkey == b->pkey &&
	       !a->from_partitions_conf && !b->from_partitions_conf &&
	       !same_members(a, b);
}

/* "G1, G2" into buf (size LIST_MAX + 4), "-" when empty. */
static const char *list(const struct vf_names *x, const struct vf_names *y,
			char *buf)
{
	size_t l = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < 2; k++) {
		const struct vf_names *n = k ? y : x;

		for (unsigned i = 0; n && i < n->n; i++) {
			if (l >= LIST_MAX) {
				strcpy(buf + LIST_MAX, "...");
				return buf;
			}
			l += (size_t)snprintf(buf + l, LIST_MAX + 4 - l, "%s%s",
					      l ? ", " : "", n->v[i]);
		}
	}
	return l ? buf : "-";
}

void vf_warn_shared_pkeys(const struct vf_config *c, struct vf_diag *d)
{
	char af[LIST_MAX + 4], al[LIST_MAX + 4], bf[LIST_MAX + 4],
	     bl[LIST_MAX + 4];

	for (unsigned i = 0; i < c->num_vfs; i++)
		for (unsigned j = 0; j < i; j++) {
			const struct vf_cfg_vf *a = &c->vfs[j], *b = &c->vfs[i];

			if (!shares(a, b))
				continue;
			vf_diag_add(d, VF_DIAG_WARN, &b->at,
				    "VirtualFabric '%s' shares P_Key 0x%04x with VirtualFabric '%s' (%s:%u) but not its members: one partition, so full members of either reach every member of the other ('%s': full %s, limited %s; '%s': full %s, limited %s)",
				    b->name, (unsigned)b->pkey, a->name,
				    a->at.file, a->at.line, a->name,
				    list(&a->members, &a->both, af),
				    list(&a->limited, NULL, al), b->name,
				    list(&b->members, &b->both, bf),
				    list(&b->limited, NULL, bl));
		}
}

/* CA ports that are linked, and switch port 0: what P_Keys apply to. */
static bool end_port(const struct vf_fabric *f, uint32_t p)
{
	const struct vf_port *port = &f->ports[p];

	if (vf_is_switch(&f->nodes[port->node]))
		return port->num == 0;
	return port->num > 0 && port->remote != VF_NONE;
}

static bool in_groups(const struct vf_config *c,
		      const struct vf_dg_members *m, const struct vf_names *l,
		      uint32_t p)
{
	for (unsigned i = 0; i < l->n; i++) {
		int g = vf_config_dg_index(c, l->v[i]);

		if (g >= 0 && vf_dg_has(m, (unsigned)g, p))
			return true;
	}
	return false;
}

/* Port p in v: 2 full, 1 limited, 0 not (a secure VF). */
static int kind(const struct vf_config *c, const struct vf_dg_members *m,
		const struct vf_cfg_vf *v, uint32_t p)
{
	if (in_groups(c, m, &v->members, p) || in_groups(c, m, &v->both, p))
		return 2;
	return in_groups(c, m, &v->limited, p) ? 1 : 0;
}

static void port_name(const struct vf_fabric *f, uint32_t p, char *buf,
		      size_t size)
{
	const struct vf_port *pt = &f->ports[p];

	snprintf(buf, size, "'%s' port %u",
		 vf_node_desc(f, &f->nodes[pt->node]), pt->num);
}

/*
 * The ports of a and b that are in the other's partition only through
 * the shared P_Key, and how many pairs of them reach each other (one of
 * the two full).
 */
static void shared_on_fabric(const struct vf_config *c,
			     const struct vf_fabric *f,
			     const struct vf_dg_members *m,
			     const struct vf_cfg_vf *a,
			     const struct vf_cfg_vf *b, struct vf_diag *d)
{
	unsigned long long na = 0, nb = 0, fa = 0, fb = 0, pairs;
	uint32_t ex_a = VF_NONE, ex_b = VF_NONE;
	char pa[128], pb[128];

	for (uint32_t p = 0; p < f->num_ports; p++) {
		int ka, kb;

		if (!end_port(f, p))
			continue;
		ka = kind(c, m, a, p);
		kb = kind(c, m, b, p);
		if (ka && !kb) {
			na++;
			fa += ka == 2;
			if (ex_a == VF_NONE || (ka == 2 && kind(c, m, a,
							       ex_a) != 2))
				ex_a = p;
		} else if (kb && !ka) {
			nb++;
			fb += kb == 2;
			if (ex_b == VF_NONE || (kb == 2 && kind(c, m, b,
							       ex_b) != 2))
				ex_b = p;
		}
	}
	pairs = fa * nb + na * fb - fa * fb;
	if (!pairs)
		return;
	port_name(f, ex_a, pa, sizeof(pa));
	port_name(f, ex_b, pb, sizeof(pb));
	vf_diag_add(d, VF_DIAG_WARN, &b->at,
		    "VirtualFabric '%s' and VirtualFabric '%s' (P_Key 0x%04x) on this fabric: %llu ports of '%s' and %llu of '%s' are in one partition only through the shared P_Key, %llu pairs of them can reach each other (e.g. %s and %s)",
		    a->name, b->name, (unsigned)b->pkey, na, a->name, nb,
		    b->name, pairs, pa, pb);
}

/* Mark group g and what it includes as used, by VF vf (first wins). */
static void mark_used(const struct vf_config *c, int g, int *used_by,
		      unsigned vf, unsigned depth)
{
	if (g < 0 || depth > c->num_dgs || used_by[g] >= 0)
		return;
	used_by[g] = (int)vf;
	for (unsigned i = 0; i < c->dgs[g].includes.n; i++)
		mark_used(c, vf_config_dg_index(c, c->dgs[g].includes.v[i]),
			  used_by, vf, depth + 1);
}

static void mark_list(const struct vf_config *c, const struct vf_names *l,
		      int *used_by, unsigned vf)
{
	for (unsigned i = 0; i < l->n; i++)
		mark_used(c, vf_config_dg_index(c, l->v[i]), used_by, vf, 0);
}

static bool live(const struct vf_fabric *f, uint32_t p)
{
	const struct vf_port *port = &f->ports[p];

	return port->remote != VF_NONE ||
	       (port->num == 0 && vf_is_switch(&f->nodes[port->node]));
}

/* Does pattern i of g select any live port of f? */
static bool pattern_selects(const struct vf_fabric *f,
			    const struct vf_ndpat *pat)
{
	unsigned lo, hi;
	bool ranged = vf_ndpat_ports(pat, &lo, &hi);

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct vf_node *node = &f->nodes[n];

		if (!vf_ndpat_match(pat, vf_node_desc(f, node)))
			continue;
		for (unsigned i = 0; i <= node->num_ports; i++) {
			uint32_t p = node->first_port + i;

			if (live(f, p) && (!ranged || (f->ports[p].num >= lo &&
						       f->ports[p].num <= hi)))
				return true;
		}
	}
	return false;
}

static bool group_empty(const struct vf_dg_members *m, unsigned g)
{
	for (uint32_t w = 0; w < m->words; w++)
		if (m->bits[(size_t)g * m->words + w])
			return false;
	return true;
}

static void empty_groups(const struct vf_config *c, const struct vf_fabric *f,
			 const struct vf_dg_members *m, const int *used_by,
			 struct vf_diag *d)
{
	for (unsigned g = 0; g < c->num_dgs; g++) {
		const struct vf_cfg_dg *dg = &c->dgs[g];
		const char *vf;

		if (used_by[g] < 0 || dg->builtin)
			continue;
		vf = c->vfs[used_by[g]].name;
		for (unsigned i = 0; i < dg->num_descs; i++)
			if (!pattern_selects(f, dg->descs[i]))
				vf_diag_add(d, VF_DIAG_WARN, &dg->at,
					    "DeviceGroup '%s': NodeDesc '%s' matches no node (or no port in its range) on this fabric",
					    dg->name,
					    vf_ndpat_text(dg->descs[i]));
		if (!dg->synthesized && group_empty(m, g))
			vf_diag_add(d, VF_DIAG_WARN, &dg->at,
				    "DeviceGroup '%s' selects no port on this fabric: VirtualFabric '%s' gets no member from it, and the hosts it was meant for, in no other VirtualFabric, stay %s members of the default partition",
				    dg->name, vf,
				    /* a VF on 0x7fff: limited (plan.c) */
				    vf_config_declares_admin(c, NULL) ?
				    "limited" : "full");
	}
}

int vf_warn_fabric(const struct vf_resolution *r, struct vf_diag *d)
{
	const struct vf_config *c = r->config;
	const struct vf_fabric *f = r->fabric;
	const struct vf_dg_members *m = &r->dg;
	int *used_by = malloc((c->num_dgs + 1) * sizeof(*used_by));

	if (!used_by)
		return -ENOMEM;
	for (unsigned g = 0; g < c->num_dgs; g++)
		used_by[g] = -1;
	for (unsigned i = 0; i < c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];

		if (!active(v))
			continue;
		mark_list(c, &v->members, used_by, i);
		mark_list(c, &v->limited, used_by, i);
		mark_list(c, &v->both, used_by, i);
	}
	empty_groups(c, f, m, used_by, d);
	for (unsigned i = 0; i < c->num_vfs; i++)
		for (unsigned j = 0; j < i; j++)
			if (shares(&c->vfs[j], &c->vfs[i]))
				shared_on_fabric(c, f, m, &c->vfs[j],
						 &c->vfs[i], d);
	free(used_by);
	return 0;
}
