/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The fabric model: one compact, index-addressed picture of a subnet that
 * every algorithm reads (engines, route checks, later DeviceGroups and AR).
 *
 * It is built once per sweep from OpenSM's subnet (plugin/) or from an
 * ibsim / ibnetdiscover net file (routing/netfile.c) and never walks complib
 * maps.  Nodes and ports live in flat arrays and refer to each other by
 * index, so the whole model is a handful of allocations.
 *
 * Port slots: node n owns ports[nodes[n].first_port ... + num_ports]; slot 0
 * is the switch management port 0 (unused, never linked, on CAs), slot k is
 * physical port k.  Links are symmetric: ports[p].remote == q iff
 * ports[q].remote == p.
 */
#ifndef VF_FABRIC_H
#define VF_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VF_NONE UINT32_MAX	/* "no index" for nodes, ports, switches */
#define VF_NO_PORT 0xFF		/* LFT entry: drop (OpenSM's OSM_NO_PATH) */
#define VF_MAX_LID 0xBFFF	/* last unicast LID */
#define VF_MAX_PORTS 254	/* physical ports per node */
#define VF_DESC_LEN 64		/* NodeDescription is 64 bytes in IBA */

enum vf_node_type {
	VF_NODE_CA = 1,		/* IBA NodeType values */
	VF_NODE_SWITCH = 2,
	VF_NODE_ROUTER = 3,
};

/* Link speed per lane, IBA names; vf_lane_gbps_x10() gives the rate. */
enum vf_speed {
	VF_SPEED_UNKNOWN = 0,
	VF_SPEED_SDR,		/* 2.5 Gb/s */
	VF_SPEED_DDR,		/* 5 */
	VF_SPEED_QDR,		/* 10 */
	VF_SPEED_FDR10,		/* 10.3 */
	VF_SPEED_FDR,		/* 14 */
	VF_SPEED_EDR,		/* 25.8 */
	VF_SPEED_HDR,		/* 53.1 */
	VF_SPEED_NDR,		/* 106 */
};

struct vf_node {
	uint64_t guid;		/* NodeGUID */
	uint64_t sysimg_guid;	/* SystemImageGUID: chips of one chassis share it */
	uint32_t first_port;	/* index of this node's port-0 slot in ports[] */
	uint32_t sw;		/* dense switch number, VF_NONE for CAs */
	uint32_t name;		/* offset in strings: the net file's node id */
	uint32_t desc;		/* offset in strings: NodeDescription */
	uint8_t type;		/* enum vf_node_type */
	uint8_t num_ports;	/* physical ports, port 0 not counted */
	/*
	 * P_Key table size: NodeInfo.PartitionCap (a CA's ports, a switch's
	 * port 0) and, on switches, SwitchInfo.PartitionEnforcementCap (its
	 * external ports); 0 unknown (net files).
	 */
	uint16_t partition_cap;
	uint16_t enforce_cap;
};

struct vf_port {
	uint64_t guid;		/* PortGUID; switch ports carry the port-0 GUID */
	uint32_t node;		/* owning node */
	uint32_t remote;	/* peer port index, VF_NONE when not linked */
	uint16_t base_lid;	/* 0 when none; switches: on port 0 only */
	uint8_t lmc;		/* LIDs base_lid .. base_lid + 2^lmc - 1 */
	uint8_t num;		/* port number on its node */
	uint8_t width;		/* active lanes: 1, 2, 4, 8 or 12; 0 unknown */
	uint8_t speed;		/* enum vf_speed */
	bool healthy;		/* false: link exists but must not carry routes */
};

/*
 * An alias GUID of a port: SR-IOV virtual functions present their own port
 * GUIDs on the one physical port (seed 004); P_Keys go to the physical
 * port's table.
 */
struct vf_alias {
	uint64_t guid;
	uint32_t port;		/* the physical port's slot */
};

struct vf_fabric {
	struct vf_node *nodes;
	uint32_t num_nodes;
	struct vf_port *ports;
	uint32_t num_ports;	/* slots, including port-0 slots */
	uint32_t *switches;	/* switch number -> node index */
	uint32_t num_switches;
	uint32_t *lid_port;	/* LID -> port index (every LID of the LMC range) */
	uint16_t max_lid;	/* highest LID in use; lid_port has max_lid + 1 */
	char *strings;		/* NUL-separated names and descriptions */
	uint32_t strings_len, strings_cap;
	uint32_t nodes_cap, ports_cap;
	bool finalized;
	struct vf_alias *aliases;
	uint32_t num_aliases, aliases_cap;
	unsigned refs;		/* holders (vf_fabric_hold); one thread only */
};

/*
 * Linear forwarding tables of every switch: port[sw * stride + lid], with
 * stride = max_lid + 1.  VF_NO_PORT means drop.
 */
struct vf_lfts {
	uint32_t num_switches;
	uint16_t max_lid;
	uint8_t *port;
};

/* Building.  Every call returns 0 or a negative errno. */
struct vf_fabric *vf_fabric_create(void);
/*
 * A model is created with one holder; hold adds one, destroy drops one
 * and frees the model with the last (the plugin's sweep and its last
 * routing share one).  Not atomic: one thread only.
 */
void vf_fabric_hold(struct vf_fabric *f);
void vf_fabric_destroy(struct vf_fabric *f);
/*
 * Optional: make room for this many nodes, port slots (physical ports plus
 * one per node) and bytes of names, so that building does not reallocate.
 */
int vf_fabric_reserve(struct vf_fabric *f, uint32_t nodes, uint32_t ports,
		      uint32_t string_bytes);

/*
 * Add a node with num_ports physical ports, all unlinked, LID 0, healthy,
 * width/speed unknown.  Port GUIDs default to the node GUID on switches and
 * to guid + port number on CAs, as ibsim assigns them.  Returns the node
 * index or VF_NONE (ENOMEM / EINVAL).
 */
uint32_t vf_fabric_add_node(struct vf_fabric *f, enum vf_node_type type,
			    uint64_t guid, uint64_t sysimg_guid,
			    unsigned num_ports, const char *name,
			    const char *desc);
/* Record an alias GUID of port slot `port`; 0 or -ENOMEM. */
int vf_fabric_add_alias(struct vf_fabric *f, uint32_t port, uint64_t guid);
/* Index of port num of node, or VF_NONE when out of range. */
uint32_t vf_fabric_port(const struct vf_fabric *f, uint32_t node,
			unsigned num);
/* Link two ports (both must be unlinked; -EBUSY otherwise). */
int vf_fabric_link(struct vf_fabric *f, uint32_t port_a, uint32_t port_b);
/*
 * Validate and index: dense switch numbers, the LID table (-EEXIST on a LID
 * used twice, -ERANGE past VF_MAX_LID).  No changes are allowed afterwards.
 */
int vf_fabric_finalize(struct vf_fabric *f);
/*
 * After finalize, the only change allowed: the ports' base_lid and lmc
 * were set again (the SM assigned LIDs); index them anew.  0, or as
 * finalize; on an error the LID table is left empty (max_lid 0).
 */
int vf_fabric_reindex_lids(struct vf_fabric *f);
/*
 * Give every switch port 0 and every CA port without a LID one, in node order
 * (switches first), each in its own block of 2^lmc LIDs aligned to 2^lmc, as
 * OpenSM does (switch port 0 itself keeps LMC 0).  For offline routing of net
 * files that carry no LIDs.  Call before vf_fabric_finalize().
 */
int vf_fabric_assign_lids(struct vf_fabric *f, unsigned lmc);

/* Reading. */
static inline const char *vf_node_name(const struct vf_fabric *f,
				       const struct vf_node *n)
{
	return f->strings + n->name;
}

static inline const char *vf_node_desc(const struct vf_fabric *f,
				       const struct vf_node *n)
{
	return f->strings + n->desc;
}

static inline bool vf_is_switch(const struct vf_node *n)
{
	return n->type == VF_NODE_SWITCH;
}

/* Port slot of a node's port num; num must be <= num_ports. */
static inline struct vf_port *vf_node_port(const struct vf_fabric *f,
					   const struct vf_node *n,
					   unsigned num)
{
	return &f->ports[n->first_port + num];
}

/* The peer of port p when the link may carry routes, else NULL. */
static inline const struct vf_port *vf_usable_peer(const struct vf_fabric *f,
						   const struct vf_port *p)
{
	if (p->remote == VF_NONE || !p->healthy)
		return NULL;
	if (!f->ports[p->remote].healthy)
		return NULL;
	return &f->ports[p->remote];
}

/* Node index owning LID, or VF_NONE. */
uint32_t vf_fabric_lid_node(const struct vf_fabric *f, unsigned lid);
/* Node index with this NodeGUID, or VF_NONE (linear; for tools). */
uint32_t vf_fabric_find_guid(const struct vf_fabric *f, uint64_t node_guid);
/*
 * The end port with this PortGUID (a CA's port, or a switch's port 0: its
 * other ports share that GUID), or VF_NONE (linear; for tools and the
 * SM's own port).
 */
uint32_t vf_fabric_end_port(const struct vf_fabric *f, uint64_t port_guid);
/* Node index with this name (net-file id), or VF_NONE (linear). */
uint32_t vf_fabric_find_name(const struct vf_fabric *f, const char *name);
/* Per-lane rate in units of 100 Mb/s (SDR = 25). */
unsigned vf_lane_gbps_x10(enum vf_speed speed);
/* Link rate in 100 Mb/s units: lanes x lane rate; 0 when unknown. */
unsigned vf_port_rate(const struct vf_port *p);
const char *vf_speed_name(enum vf_speed speed);
/* "SDR".."NDR" (case-insensitive) to the enum; VF_SPEED_UNKNOWN if not. */
enum vf_speed vf_speed_parse(const char *s);

/* LFTs. */
int vf_lfts_init(struct vf_lfts *t, uint32_t num_switches, uint16_t max_lid);
void vf_lfts_free(struct vf_lfts *t);

static inline uint8_t *vf_lft_row(const struct vf_lfts *t, uint32_t sw)
{
	return t->port + (size_t)sw * ((size_t)t->max_lid + 1);
}

#endif /* VF_FABRIC_H */
