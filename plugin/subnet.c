// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * OpenSM subnet -> fabric model.  The one place that walks complib maps;
 * everything downstream reads the compact model.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_port.h>
#include <opensm/osm_subnet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/plugin.h"
#include "common/log.h"

struct guid_index {
	uint64_t guid;
	uint32_t node;
};

static int cmp_guid(const void *a, const void *b)
{
	const struct guid_index *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static uint32_t lookup(const struct guid_index *idx, uint32_t n, uint64_t guid)
{
	struct guid_index key = { .guid = guid };
	const struct guid_index *hit = bsearch(&key, idx, n, sizeof(*idx),
					       cmp_guid);

	return hit ? hit->node : VF_NONE;
}

/* IBA LinkWidthActive bit -> lanes. */
static uint8_t width_lanes(uint8_t active)
{
	switch (active) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return 0;
	}
}

static uint8_t port_speed(const ib_port_info_t *pi)
{
	switch (ib_port_info_get_link_speed_ext_active(pi)) {
	case 1: return VF_SPEED_FDR;
	case 2: return VF_SPEED_EDR;
	case 4: return VF_SPEED_HDR;
	default: break;
	}
	switch (ib_port_info_get_link_speed_active(pi)) {
	case 1: return VF_SPEED_SDR;
	case 2: return VF_SPEED_DDR;
	case 4: return VF_SPEED_QDR;
	default: return VF_SPEED_UNKNOWN;
	}
}

/*
 * The node's description: OpenSM's, remembered in `seen`; while OpenSM
 * lost it, the last one remembered for the GUID (see plugin/nodedesc.c).
 */
static const char *node_desc(osm_node_t *node, uint64_t guid,
			     struct vf_node_descs *descs,
			     struct vf_node_desc *seen, size_t *nseen,
			     char buf[VF_DESC_LEN + 1])
{
	const char *desc = node->print_desc;

	if (desc && strcmp(desc, OSM_NODE_DESC_UNKNOWN)) {
		if (seen) {
			seen[*nseen].guid = guid;
			snprintf(seen[*nseen].desc, sizeof(seen->desc), "%s",
				 desc);
			++*nseen;
		}
		return desc;
	}
	if (vf_node_descs_lookup(descs, guid, buf)) {
		vf_log(VF_LOG_INFO,
		       "node 0x%016llx: OpenSM has no NodeDescription for it (a lost MAD); using its last one, '%s'",
		       (unsigned long long)guid, buf);
		return buf;
	}
	if (descs) {
		vf_log(VF_LOG_WARN,
		       "ERR VF0119: node 0x%016llx: OpenSM has no NodeDescription for it and none was seen before: DeviceGroups by NodeDesc leave it out until OpenSM reads it (config_poll then asks for a heavy sweep)",
		       (unsigned long long)guid);
		vf_node_descs_wait(descs, guid);
	}
	return desc ? desc : OSM_NODE_DESC_UNKNOWN;
}

static uint32_t add_node(struct vf_fabric *f, osm_node_t *node,
			 const char *desc)
{
	uint8_t type = osm_node_get_type(node);
	uint64_t guid = cl_ntoh64(osm_node_get_node_guid(node));
	unsigned nports = osm_node_get_num_physp(node) - 1;
	char name[24];

	snprintf(name, sizeof(name), "%s-%016llx",
		 type == IB_NODE_TYPE_SWITCH ? "S" : "H",
		 (unsigned long long)guid);
	uint32_t n = vf_fabric_add_node(f, type, guid,
					cl_ntoh64(node->node_info.sys_guid),
					nports, name, desc);

	if (n != VF_NONE) {
		f->nodes[n].partition_cap =
			cl_ntoh16(node->node_info.partition_cap);
		if (node->sw)
			f->nodes[n].enforce_cap =
				cl_ntoh16(node->sw->switch_info.enforce_cap);
	}
	return n;
}

/* Copy each port's GUID, LID, LMC, width and speed. */
static void fill_ports(struct vf_fabric *f, uint32_t n, osm_node_t *node)
{
	bool sw = osm_node_get_type(node) == IB_NODE_TYPE_SWITCH;

	for (unsigned i = 0; i <= f->nodes[n].num_ports; i++) {
		osm_physp_t *physp = osm_node_get_physp_ptr(node, i);
		struct vf_port *p = vf_node_port(f, &f->nodes[n], i);

		if (!physp)
			continue;
		p->guid = cl_ntoh64(osm_physp_get_port_guid(physp));
		if (sw ? i == 0 : i > 0) {
			p->base_lid = cl_ntoh16(osm_physp_get_base_lid(physp));
			p->lmc = osm_physp_get_lmc(physp);
		}
		if (i == 0)
			continue;
		p->width = width_lanes(physp->port_info.link_width_active);
		p->speed = port_speed(&physp->port_info);
		p->healthy = osm_link_is_healthy(physp);
	}
}

/* Link each cable once, from the side with the lower (node, port). */
static int link_ports(struct vf_fabric *f, const struct guid_index *idx,
		      uint32_t nidx, uint32_t n, osm_node_t *node)
{
	for (unsigned i = 1; i <= f->nodes[n].num_ports; i++) {
		osm_physp_t *physp = osm_node_get_physp_ptr(node, i);
		osm_physp_t *rem;
		uint32_t rn;
		unsigned rp;

		if (!physp || !(rem = osm_physp_get_remote(physp)))
			continue;
		rn = lookup(idx, nidx, cl_ntoh64(osm_node_get_node_guid(
						     osm_physp_get_node_ptr(rem))));
		rp = osm_physp_get_port_num(rem);
		if (rn == VF_NONE || rn < n || (rn == n && rp <= i))
			continue;
		if (vf_fabric_link(f, vf_fabric_port(f, n, i),
				   vf_fabric_port(f, rn, rp)))
			return -1;
	}
	return 0;
}

/* Size the model once: nodes, port slots and names of the whole subnet. */
static int reserve(struct vf_fabric *f, cl_qmap_t *tbl)
{
	uint32_t nodes = 0, ports = 0, bytes = 0;
	cl_map_item_t *item;

	for (item = cl_qmap_head(tbl); item != cl_qmap_end(tbl);
	     item = cl_qmap_next(item)) {
		osm_node_t *node = (osm_node_t *)item;

		nodes++;
		ports += osm_node_get_num_physp(node);
		/* "S-" + 16 hex digits, the description, two NULs */
		bytes += 20 + VF_DESC_LEN;
	}
	return vf_fabric_reserve(f, nodes, ports, bytes);
}

/*
 * The alias GUIDs OpenSM knows (SR-IOV virtual functions' port GUIDs, set
 * by the hosts through the SA), each on its physical port's slot.
 */
static int add_aliases(struct vf_fabric *f, osm_subn_t *subn,
		       const struct guid_index *idx, uint32_t n)
{
	cl_qmap_t *tbl = &subn->alias_port_guid_tbl;

	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		const osm_alias_guid_t *a = (const osm_alias_guid_t *)it;
		const osm_physp_t *physp;
		uint32_t node;

		if (!a->p_base_port || a->alias_guid == a->p_base_port->guid)
			continue;
		physp = a->p_base_port->p_physp;
		node = lookup(idx, n,
			      cl_ntoh64(osm_node_get_node_guid(physp->p_node)));
		if (node != VF_NONE &&
		    vf_fabric_add_alias(f, f->nodes[node].first_port +
					physp->port_num,
					cl_ntoh64(a->alias_guid)))
			return -1;
	}
	return 0;
}

/* Models built in this process (vf_fabric_from_subnet_count()). */
static uint64_t models;

uint64_t vf_fabric_from_subnet_count(void)
{
	return __atomic_load_n(&models, __ATOMIC_RELAXED);
}

/* Forget the LIDs read: the LID manager has not run yet. */
static void clear_lids(struct vf_fabric *f)
{
	for (uint32_t i = 0; i < f->num_ports; i++) {
		f->ports[i].base_lid = 0;
		f->ports[i].lmc = 0;
	}
}

struct vf_fabric *vf_fabric_from_subnet(struct osm_subn *subn,
					struct vf_node_descs *descs, bool lids)
{
	cl_qmap_t *tbl = &subn->node_guid_tbl;
	uint32_t count = cl_qmap_count(tbl), n = 0;
	struct guid_index *idx = calloc(count ? count : 1, sizeof(*idx));
	osm_node_t **osm_nodes = calloc(count ? count : 1, sizeof(*osm_nodes));
	struct vf_node_desc *seen = descs ? calloc(count ? count : 1,
						   sizeof(*seen)) : NULL;
	size_t nseen = 0;
	struct vf_fabric *f = vf_fabric_create();
	cl_map_item_t *item;
	char buf[VF_DESC_LEN + 1];

	__atomic_add_fetch(&models, 1, __ATOMIC_RELAXED);
	if (!idx || !osm_nodes || !f || reserve(f, tbl))
		goto out_fail;
	for (item = cl_qmap_head(tbl); item != cl_qmap_end(tbl);
	     item = cl_qmap_next(item)) {
		osm_node_t *node = (osm_node_t *)item;
		uint64_t guid = cl_ntoh64(osm_node_get_node_guid(node));
		uint32_t i;

		if (!node->discovery_count)
			continue;
		i = add_node(f, node, node_desc(node, guid, descs, seen,
						&nseen, buf));
		if (i == VF_NONE)
			goto out_fail;
		fill_ports(f, i, node);
		osm_nodes[n] = node;
		idx[n].guid = f->nodes[i].guid;
		idx[n].node = i;
		n++;
	}
	qsort(idx, n, sizeof(*idx), cmp_guid);
	for (uint32_t i = 0; i < n; i++)
		if (link_ports(f, idx, n, i, osm_nodes[i]))
			goto out_fail;
	if (!lids)
		clear_lids(f);
	if (vf_fabric_finalize(f) || add_aliases(f, subn, idx, n))
		goto out_fail;
	vf_node_descs_remember(descs, seen, nseen);
	free(idx);
	free(osm_nodes);
	return f;

out_fail:
	vf_log(VF_LOG_ERROR,
	       "ERR VF0104: cannot build the fabric model from the subnet (%u nodes)",
	       count);
	vf_fabric_destroy(f);
	free(seen);
	free(idx);
	free(osm_nodes);
	return NULL;
}

/* Is port i of model node n linked as OpenSM's node is (in the model)? */
static bool same_link(const struct vf_fabric *f, uint32_t n, unsigned i,
		      osm_node_t *node)
{
	const struct vf_port *mp = vf_node_port(f, &f->nodes[n], i);
	osm_physp_t *physp = osm_node_get_physp_ptr(node, i);
	osm_physp_t *rem = physp ? osm_physp_get_remote(physp) : NULL;
	osm_node_t *rnode = rem ? osm_physp_get_node_ptr(rem) : NULL;
	const struct vf_port *mr;

	if (!rnode || !rnode->discovery_count)
		return mp->remote == VF_NONE;
	if (mp->remote == VF_NONE)
		return false;
	mr = &f->ports[mp->remote];
	return f->nodes[mr->node].guid ==
	       cl_ntoh64(osm_node_get_node_guid(rnode)) &&
	       mr->num == osm_physp_get_port_num(rem);
}

/* Are the table's live nodes f's, in its (GUID) order, linked alike? */
static bool same_topology(const struct vf_fabric *f, cl_qmap_t *tbl)
{
	uint32_t n = 0;

	for (cl_map_item_t *item = cl_qmap_head(tbl); item != cl_qmap_end(tbl);
	     item = cl_qmap_next(item)) {
		osm_node_t *node = (osm_node_t *)item;

		if (!node->discovery_count)
			continue;
		if (n == f->num_nodes ||
		    f->nodes[n].guid !=
		    cl_ntoh64(osm_node_get_node_guid(node)) ||
		    f->nodes[n].num_ports != osm_node_get_num_physp(node) - 1)
			return false;
		for (unsigned i = 1; i <= f->nodes[n].num_ports; i++)
			if (!same_link(f, n, i, node))
				return false;
		n++;
	}
	return n == f->num_nodes;
}

int vf_fabric_refresh_from_subnet(struct vf_fabric *f, struct osm_subn *subn)
{
	cl_qmap_t *tbl = &subn->node_guid_tbl;
	uint32_t n = 0;

	/* checked whole first: a changed subnet leaves f as it was */
	if (!same_topology(f, tbl))
		return 1;
	for (cl_map_item_t *item = cl_qmap_head(tbl); item != cl_qmap_end(tbl);
	     item = cl_qmap_next(item)) {
		osm_node_t *node = (osm_node_t *)item;

		if (node->discovery_count)
			fill_ports(f, n++, node);
	}
	return vf_fabric_reindex_lids(f);
}
