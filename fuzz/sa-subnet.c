// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <opensm/osm_config.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_pkey.h>
#include <opensm/osm_port.h>
#include <opensm/osm_switch.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/sa-subnet.h"

static void need(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "sa-subnet: %s failed\n", what);
		exit(2);
	}
}

/* What a NodeInfo / SwitchInfo Get would have returned, as a MAD. */
struct smp_madw {
	osm_madw_t madw;
	ib_smp_t smp;
};

static ib_node_info_t *node_info(struct smp_madw *m)
{
	memset(m, 0, sizeof(*m));
	m->madw.p_mad = (ib_mad_t *)&m->smp;
	m->smp.attr_id = IB_MAD_ATTR_NODE_INFO;
	return ib_smp_get_payload_ptr(&m->smp);
}

static uint8_t speed_code(uint8_t speed)
{
	return speed == VF_SPEED_SDR ? IB_LINK_SPEED_ACTIVE_2_5 :
	       speed == VF_SPEED_DDR ? IB_LINK_SPEED_ACTIVE_5 :
	       IB_LINK_SPEED_ACTIVE_10;
}

/* PortInfo as the sweep reads it: LIDs, MTU, width, speed. */
static void port_info(osm_physp_t *physp, const struct vf_port *p, bool ca)
{
	ib_port_info_t *pi = &physp->port_info;

	memset(pi, 0, sizeof(*pi));
	pi->base_lid = cl_hton16(p->base_lid);
	ib_port_info_set_lmc(pi, p->lmc);
	/* one host with a 2048 MTU, so answers are limited by a port */
	pi->mtu_cap = ca && (p->guid & 0xf0) == 0x50 ? IB_MTU_LEN_2048 :
						        IB_MTU_LEN_4096;
	pi->link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
	pi->link_speed = (uint8_t)(speed_code(p->speed) <<
				   IB_PORT_LINK_SPEED_SHIFT);
	pi->state_info1 = IB_LINK_ACTIVE;
	physp->healthy = TRUE;
}

static void add_port(osm_subn_t *subn, osm_node_t *node, ib_node_info_t *ni,
		     const struct vf_port *p)
{
	osm_port_t *port = osm_port_new(ni, node);
	osm_alias_guid_t *alias;
	unsigned lids = 1u << p->lmc;

	need(port != NULL, "osm_port_new");
	cl_qmap_insert(&subn->port_guid_tbl, ni->port_guid, &port->map_item);
	alias = osm_alias_guid_new(ni->port_guid, port);
	need(alias != NULL, "osm_alias_guid_new");
	cl_qmap_insert(&subn->alias_port_guid_tbl, ni->port_guid,
		       &alias->map_item);
	for (unsigned i = 0; i < lids && p->base_lid; i++)
		cl_ptr_vector_set(&subn->port_lid_tbl, p->base_lid + i, port);
}

static void add_node(osm_subn_t *subn, const struct vf_fabric *f,
		     const struct vf_node *n)
{
	struct smp_madw m;
	ib_node_info_t *ni = node_info(&m);
	bool sw = n->type == VF_NODE_SWITCH;
	osm_node_t *node;

	ni->base_version = 1;
	ni->class_version = 1;
	ni->node_type = n->type;
	ni->num_ports = n->num_ports;
	ni->node_guid = cl_hton64(n->guid);
	ni->sys_guid = cl_hton64(n->sysimg_guid);
	ni->partition_cap = cl_hton16(32);
	ni->port_guid = cl_hton64(f->ports[n->first_port + (sw ? 0 : 1)].guid);
	ni->port_num_vendor_id = sw ? 0 : 1;
	node = osm_node_new(&m.madw);
	need(node != NULL, "osm_node_new");
	node->discovery_count = 1;
	free(node->print_desc);
	node->print_desc = strdup(vf_node_desc(f, n));
	need(node->print_desc != NULL, "strdup");
	snprintf((char *)node->node_desc.description, IB_NODE_DESCRIPTION_SIZE,
		 "%s", vf_node_desc(f, n));
	cl_qmap_insert(&subn->node_guid_tbl, ni->node_guid, &node->map_item);
	for (unsigned i = sw ? 0 : 1; i <= n->num_ports; i++) {
		const struct vf_port *p = &f->ports[n->first_port + i];

		if (!sw && i > 1) {	/* a CA's other ports: own GUIDs */
			ni->port_guid = cl_hton64(p->guid);
			ni->port_num_vendor_id = (uint8_t)i;
			osm_node_init_physp(node, (uint8_t)i, &m.madw);
		}
		port_info(osm_node_get_physp_ptr(node, i), p, !sw);
		if (!sw || i == 0)
			add_port(subn, node, ni, p);
	}
	if (sw) {
		ib_switch_info_t *si = ib_smp_get_payload_ptr(&m.smp);

		memset(si, 0, sizeof(*si));
		m.smp.attr_id = IB_MAD_ATTR_SWITCH_INFO;
		si->lin_cap = cl_hton16(VF_MAX_LID);
		si->enforce_cap = cl_hton16(32);
		node->sw = osm_switch_new(node, &m.madw);
		need(node->sw != NULL, "osm_switch_new");
		cl_qmap_insert(&subn->sw_guid_tbl, cl_hton64(n->guid),
			       &node->sw->map_item);
	}
}

void vf_fuzz_subnet_build(osm_opensm_t *osm, const struct vf_fabric *f,
			  uint64_t sm_guid)
{
	osm_subn_t *subn = &osm->subn;

	osm_subn_construct(subn);
	osm_subn_set_default_opt(&subn->opt);
	subn->p_osm = osm;
	need(cl_ptr_vector_init(&subn->port_lid_tbl, f->max_lid + 1, 1) ==
	     CL_SUCCESS, "cl_ptr_vector_init");
	need(cl_ptr_vector_set_size(&subn->port_lid_tbl, f->max_lid + 1) ==
	     CL_SUCCESS, "cl_ptr_vector_set_size");
	subn->sm_port_guid = cl_hton64(sm_guid);
	for (uint32_t i = 0; i < f->num_nodes; i++)
		add_node(subn, f, &f->nodes[i]);
	for (uint32_t i = 0; i < f->num_ports; i++) {
		const struct vf_port *a = &f->ports[i], *b;

		if (a->remote == VF_NONE || a->remote < i)
			continue;
		b = &f->ports[a->remote];
		osm_node_link(osm_get_node_by_guid(subn,
				cl_hton64(f->nodes[a->node].guid)), a->num,
			      osm_get_node_by_guid(subn,
				cl_hton64(f->nodes[b->node].guid)), b->num);
	}
}

static void program_lft(osm_switch_t *sw, const struct vf_lfts *t,
			uint32_t s)
{
	free(sw->lft);
	sw->lft = malloc(t->max_lid + 1u);
	need(sw->lft != NULL, "malloc");
	memcpy(sw->lft, vf_lft_row(t, s), t->max_lid + 1u);
	sw->max_lid_ho = t->max_lid;
}

static void program_pkeys(osm_physp_t *physp, const struct vf_plan *plan,
			  uint32_t slot, bool both)
{
	uint16_t want[IB_NUM_PKEY_ELEMENTS_IN_BLOCK * 2];
	unsigned n = vf_plan_port_entries(plan, slot, want, 64);

	for (unsigned b = 0; b * IB_NUM_PKEY_ELEMENTS_IN_BLOCK < n; b++) {
		ib_pkey_table_t tbl;

		memset(&tbl, 0, sizeof(tbl));
		for (unsigned i = 0; i < IB_NUM_PKEY_ELEMENTS_IN_BLOCK &&
		     b * IB_NUM_PKEY_ELEMENTS_IN_BLOCK + i < n &&
		     b * IB_NUM_PKEY_ELEMENTS_IN_BLOCK + i < 64; i++)
			tbl.pkey_entry[i] = cl_hton16(
				want[b * IB_NUM_PKEY_ELEMENTS_IN_BLOCK + i]);
		need(osm_pkey_tbl_set(&physp->pkeys, (uint16_t)b, &tbl,
				      both) == IB_SUCCESS, "osm_pkey_tbl_set");
	}
}

void vf_fuzz_subnet_program(osm_opensm_t *osm, const struct vf_fabric *g,
			    const struct vf_lfts *t, const struct vf_plan *plan)
{
	osm_subn_t *subn = &osm->subn;

	for (uint32_t i = 0; i < g->num_nodes; i++) {
		const struct vf_node *n = &g->nodes[i];
		osm_node_t *node = osm_get_node_by_guid(subn, cl_hton64(n->guid));
		bool sw = n->type == VF_NODE_SWITCH;

		need(node != NULL, "a model node in the subnet");
		if (sw)
			program_lft(node->sw, t, n->sw);
		for (unsigned p = sw ? 0 : 1; p <= (sw ? 0 : n->num_ports); p++)
			program_pkeys(osm_node_get_physp_ptr(node, p), plan,
				      n->first_port + p,
				      subn->opt.allow_both_pkeys);
	}
}
