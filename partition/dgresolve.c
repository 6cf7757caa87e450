// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "partition/dgresolve.h"
#include "partition/internal/pconfstock.h"
#include "common/ndpattern.h"

static void set_bit(struct vf_dg_members *m, unsigned g, uint32_t p)
{
	m->bits[(size_t)g * m->words + p / 64] |= 1ull << (p % 64);
}

static bool live(const struct vf_fabric *f, uint32_t p)
{
	const struct vf_port *port = &f->ports[p];

	return port->remote != VF_NONE ||
	       (port->num == 0 && vf_is_switch(&f->nodes[port->node]));
}

static bool has_guid(const struct vf_guids *l, uint64_t guid)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->v[i] == guid)
			return true;
	return false;
}

/* The node-level criteria of g: does all of node n belong? */
static bool node_selected(const struct vf_cfg_dg *g,
			  const struct vf_fabric *f, uint32_t n,
			  uint32_t sm_node, bool no_switches)
{
	const struct vf_node *node = &f->nodes[n];
	unsigned type = vf_is_switch(node) ? VF_DG_TYPE_SW :
			node->type == VF_NODE_ROUTER ? VF_DG_TYPE_ROUTER :
						       VF_DG_TYPE_CA;
	unsigned lo, hi;

	if (g->select & VF_DG_ALL || g->node_types & type)
		return true;
	if (g->select & (VF_DG_SELF | VF_DG_ALL_MGMT) && n == sm_node)
		return true;
	if (g->select & VF_DG_HFI_DIRECT && no_switches)
		return true;
	if (has_guid(&g->sysimg_guids, node->sysimg_guid) ||
	    has_guid(&g->node_guids, node->guid))
		return true;
	for (unsigned i = 0; i < g->num_descs; i++)
		if (!vf_ndpat_ports(g->descs[i], &lo, &hi) &&
		    vf_ndpat_match(g->descs[i], vf_node_desc(f, node)))
			return true;
	return false;
}

/* The port-level criteria of g for port slot p. */
static bool port_selected(const struct vf_cfg_dg *g,
			  const struct vf_fabric *f, uint32_t p)
{
	const struct vf_port *port = &f->ports[p];
	const struct vf_node *node = &f->nodes[port->node];
	unsigned lo, hi;

	if (g->select & VF_DG_SWE0 && vf_is_switch(node) && port->num == 0)
		return true;
	if (has_guid(&g->port_guids, port->guid) &&
	    (!vf_is_switch(node) || port->num == 0))
		return true;
	for (unsigned i = 0; i < g->num_descs; i++)
		if (vf_ndpat_ports(g->descs[i], &lo, &hi) &&
		    port->num >= lo && port->num <= hi &&
		    vf_ndpat_match(g->descs[i], vf_node_desc(f, node)))
			return true;
	return false;
}

/* Can g select single ports (not only whole nodes)? */
static bool has_port_criteria(const struct vf_cfg_dg *g)
{
	unsigned lo, hi;

	if (g->select & VF_DG_SWE0 || g->port_guids.n)
		return true;
	for (unsigned i = 0; i < g->num_descs; i++)
		if (vf_ndpat_ports(g->descs[i], &lo, &hi))
			return true;
	return false;
}

/* What resolving every group needs at hand. */
struct resolve {
	const struct vf_config *c;
	const struct vf_fabric *f;
	uint32_t sm_node;
	bool no_switches;
	struct vf_dg_members *m;
	uint8_t *done;
	struct vf_name_index index;	/* group names: includes in O(1) */
};

/*
 * Group g's own members, then each included group's (resolved first);
 * done[] memoises, so each group is resolved once and each include edge
 * costs one lookup and one union: a chain of n groups is O(n).
 * Validation has ruled out cycles (depth guards anyway).
 */
static void resolve_one(struct resolve *r, unsigned g, unsigned depth)
{
	const struct vf_config *c = r->c;
	const struct vf_fabric *f = r->f;
	uint32_t sm_node = r->sm_node;
	bool no_switches = r->no_switches;
	struct vf_dg_members *m = r->m;
	uint8_t *done = r->done;
	const struct vf_cfg_dg *dg = &c->dgs[g];

	bool by_port = has_port_criteria(dg);

	if (done[g] || depth > c->num_dgs)
		return;
	done[g] = 1;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct vf_node *node = &f->nodes[n];
		bool whole = node_selected(dg, f, n, sm_node, no_switches);

		for (unsigned i = 0; (whole || by_port) && i <= node->num_ports;
		     i++) {
			uint32_t p = node->first_port + i;

			if (live(f, p) && (whole || port_selected(dg, f, p)))
				set_bit(m, g, p);
		}
	}
	/* an SR-IOV alias GUID names its physical port */
	for (uint32_t i = 0; i < f->num_aliases; i++)
		if (has_guid(&dg->port_guids, f->aliases[i].guid) &&
		    live(f, f->aliases[i].port))
			set_bit(m, g, f->aliases[i].port);
	for (unsigned i = 0; i < dg->includes.n; i++) {
		int t = vf_name_index_find(&r->index, dg->includes.v[i]);

		if (t < 0)
			continue;
		resolve_one(r, (unsigned)t, depth + 1);
		for (uint32_t w = 0; w < m->words; w++)
			m->bits[(size_t)g * m->words + w] |=
				m->bits[(size_t)t * m->words + w];
	}
}

/* Resolutions made in this process (vf_dg_resolve_count()). */
static uint64_t resolutions;

uint64_t vf_dg_resolve_count(void)
{
	return __atomic_load_n(&resolutions, __ATOMIC_RELAXED);
}

int vf_dg_resolve(const struct vf_config *c, const struct vf_fabric *f,
		  uint32_t sm_node, struct vf_dg_members *m)
{
	struct resolve r = { .c = c, .f = f, .sm_node = sm_node,
			     .no_switches = f->num_switches == 0, .m = m };
	const char **names;
	uint8_t *done;
	int rc = -ENOMEM;

	__atomic_add_fetch(&resolutions, 1, __ATOMIC_RELAXED);
	m->num_dgs = c->num_dgs;
	m->num_ports = f->num_ports;
	m->words = (f->num_ports + 63) / 64;
	m->bits = calloc((size_t)(c->num_dgs ? c->num_dgs : 1) *
			 (m->words ? m->words : 1), sizeof(*m->bits));
	done = calloc(c->num_dgs ? c->num_dgs : 1, 1);
	names = malloc((c->num_dgs ? c->num_dgs : 1) * sizeof(*names));
	if (!m->bits || !done || !names)
		goto out;
	for (unsigned g = 0; g < c->num_dgs; g++)
		names[g] = c->dgs[g].name;
	if (vf_name_index_build(&r.index, names, c->num_dgs))
		goto out;
	r.done = done;
	for (unsigned g = 0; g < c->num_dgs; g++)
		resolve_one(&r, g, 0);
	/* partitions.conf partitions: their final members (last entry wins) */
	vf_pc_resolve(c, f, sm_node, m);
	rc = 0;
out:
	vf_name_index_free(&r.index);
	free(names);
	free(done);
	if (rc)
		vf_dg_members_free(m);
	return rc;
}

void vf_dg_members_free(struct vf_dg_members *m)
{
	free(m->bits);
	memset(m, 0, sizeof(*m));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int vf_dg_guids(const struct vf_dg_members *m, unsigned g,
		const struct vf_fabric *f, bool switches, uint64_t **out)
{
	unsigned n = 0, kept = 0;

	*out = malloc(((size_t)f->num_ports + 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (uint32_t p = 0; p < f->num_ports; p++) {
		const struct vf_node *node = &f->nodes[f->ports[p].node];

		if (!vf_dg_has(m, g, p) || vf_is_switch(node) != switches)
			continue;
		(*out)[n++] = switches ? node->guid : f->ports[p].guid;
	}
	qsort(*out, n, sizeof(**out), cmp_u64);
	for (unsigned i = 0; i < n; i++)
		if (!kept || (*out)[kept - 1] != (*out)[i])
			(*out)[kept++] = (*out)[i];
	if (!kept) {
		free(*out);
		*out = NULL;
	}
	return (int)kept;
}
