/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The vFabric configuration model: Applications, DeviceGroups, QOSGroups,
 * VirtualFabrics and the routing settings that name device groups, as the
 * Omni-Path FM defines them (reference/opa-fm.md section 1).  Both
 * front-ends (opafm.xml-style XML, partitions.conf with vFabric
 * statements) compile to this; resolution against a fabric reads it.
 *
 * Names are kept as written; references between objects are names too,
 * checked by vf_config_validate(), so a front-end need not care about
 * definition order.  Every object remembers where it was defined, for
 * messages of the form "FILE:LINE: DeviceGroup 'X': ...".
 */
#ifndef VF_CONFIG_H
#define VF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "partition/diag.h"
#include "partition/emconfig.h"

struct vf_ndpat;

/* How a ServiceID or MGID rule matches (opafm.xml ServiceID*, MGID*). */
enum vf_match_kind {
	VF_MATCH_EXACT,		/* value == a */
	VF_MATCH_RANGE,		/* a <= value <= b */
	VF_MATCH_MASKED,	/* SID: (value & b) == (a & b); MGID: see mgid */
};

struct vf_mgid {
	uint64_t hi, lo;
};

struct vf_sid_rule {
	enum vf_match_kind kind;
	uint64_t a, b;
};

/*
 * MGIDMasked matches when (mgid & b) == a: unlike ServiceIDs the value is
 * not masked (the FM's rule), so a value with bits outside the mask never
 * matches; the validator warns about such rules.
 */
struct vf_mgid_rule {
	enum vf_match_kind kind;
	struct vf_mgid a, b;
};

enum vf_app_select {
	VF_APP_SA = 1 << 0,
	VF_APP_PM = 1 << 1,
	VF_APP_UNMATCHED_SID = 1 << 2,
	VF_APP_UNMATCHED_MGID = 1 << 3,
};

/* A port's membership of a partition. */
enum vf_membership {
	VF_MEMBER_NONE = 0,
	VF_MEMBER_LIMITED = 1,
	VF_MEMBER_FULL = 2,
	VF_MEMBER_BOTH = 3,	/* full and limited: allow_both_pkeys */
};

/*
 * partitions.conf as stock OpenSM reads it (pconfstock.h): one member
 * entry of a partition, in file order.  A later entry naming a port
 * overrides an earlier one for that port (OpenSM's osm_prtn_add_port).
 */
enum vf_pc_select {
	VF_PC_GUID,		/* one port GUID */
	VF_PC_ALL,		/* every port: ALL */
	VF_PC_CAS,		/* ALL_CAS */
	VF_PC_SWITCHES,		/* ALL_SWITCHES (switch port 0) */
	VF_PC_ROUTERS,		/* ALL_ROUTERS */
	VF_PC_SELF,		/* the SM's port */
	VF_PC_GROUP,		/* a DeviceGroup (@NAME, vFabric files) */
};

struct vf_pc_entry {
	unsigned seq;		/* order over the whole file */
	uint8_t select;		/* enum vf_pc_select */
	uint8_t membership;	/* enum vf_membership as written */
	bool indx0;		/* the statement's indx0 flag */
	uint64_t guid;		/* VF_PC_GUID */
	char *group;		/* VF_PC_GROUP: the DeviceGroup's name */
};

/* A multicast group a stock partitions.conf creates, in creation order. */
struct vf_pc_group {
	unsigned vf;		/* the partition (config VF) creating it */
	uint64_t mgid_hi, mgid_lo;	/* as created (scope and P_Key set) */
	unsigned mtu, rate;	/* as OpenSM holds them (any number) */
	unsigned sl, scope, tclass;
	uint32_t qkey, flow_label;
};

/* A growable list of names (references to other objects). */
struct vf_names {
	char **v;
	unsigned n;
};

struct vf_app {
	char *name;
	struct vf_where at;
	bool builtin;			/* added by vf_config_add_builtins() */
	struct vf_sid_rule *sids;
	unsigned num_sids;
	struct vf_mgid_rule *mgids;
	unsigned num_mgids;
	struct vf_names includes;	/* IncludeApplication */
	unsigned select;		/* enum vf_app_select bits */
};

enum vf_dg_select {
	VF_DG_ALL = 1 << 0,
	VF_DG_SELF = 1 << 1,		/* every port of the SM's node */
	VF_DG_SWE0 = 1 << 2,		/* switch port 0 */
	VF_DG_ALL_MGMT = 1 << 3,	/* AllMgmtAllowed (AllSMs) */
	VF_DG_HFI_DIRECT = 1 << 4,	/* HFIDirectConnect */
	VF_DG_TFIS = 1 << 5,
};

enum vf_dg_node_type {
	VF_DG_TYPE_CA = 1 << 0,		/* NodeType FI (or CA) */
	VF_DG_TYPE_SW = 1 << 1,		/* NodeType SW */
	VF_DG_TYPE_ROUTER = 1 << 2,	/* partitions.conf ALL_ROUTERS */
};

/* A GUID list as written, in definition order. */
struct vf_guids {
	uint64_t *v;
	unsigned n;
};

struct vf_cfg_dg {
	char *name;
	struct vf_where at;
	bool builtin;			/* added by vf_config_add_builtins() */
	bool synthesized;		/* made by a front-end for a member
					 * list (partitions.conf) */
	struct vf_guids sysimg_guids;
	struct vf_guids node_guids;
	struct vf_guids port_guids;
	struct vf_ndpat **descs;	/* NodeDesc patterns */
	unsigned num_descs;
	unsigned node_types;		/* enum vf_dg_node_type bits */
	unsigned select;		/* enum vf_dg_select bits */
	struct vf_names includes;	/* IncludeGroup */
};

/* QoS settings of a QOSGroup or (the older style) of a VirtualFabric. */
struct vf_qos {
	bool enable;			/* QOS (VF) / Enable (QOSGroup) */
	int base_sl;			/* 0-15, -1 automatic */
	int mcast_sl;			/* 0-15, -1 the same as base_sl */
	unsigned bandwidth;		/* percent, 0 unset */
	bool high_priority;
	unsigned pkt_lifetime_mult;	/* 1-128, 0 unset */
	int hoq_life;			/* exponent of 4.096 us, -1 unset */
};

struct vf_qos_group {
	char *name;
	struct vf_where at;
	struct vf_qos qos;
};

struct vf_cfg_vf {
	char *name;
	struct vf_where at;
	bool enable;			/* default off, as in the FM */
	bool standby;
	int pkey;			/* 15 bits, -1 automatic */
	bool security;
	struct vf_names members;
	struct vf_names limited;
	struct vf_names both;		/* partitions.conf =both members */
	struct vf_names apps;
	bool ipoib;			/* partitions.conf ipoib flag */
	char *raw_flags;		/* partitions.conf flags passed on to
					 * OpenSM as written (", scope=2") */
	struct vf_names mgid_lines;	/* partitions.conf mgid= definitions */
	bool from_partitions_conf;	/* a stock partition: may have no
					 * members, as in OpenSM */
	struct vf_pc_entry *pc_entries;	/* stock partitions.conf members */
	unsigned num_pc_entries;
	unsigned max_mtu;		/* bytes, 0 unlimited */
	unsigned max_rate;		/* IB rate code, 0 unlimited */
	char *qos_group;		/* QOSGroup name, or NULL */
	struct vf_qos qos;		/* per-VF QoS (no QOSGroup) */
	bool qos_given;			/* any per-VF QoS element written */
};

/*
 * A multicast group created with a VF's partition (<Sm><Multicast>
 * <MulticastGroup> in opafm.xml): its MGIDs and, where set, MTU (bytes),
 * rate (IB code), SL, P_Key and Q_Key.
 */
struct vf_mcgroup {
	struct vf_where at;
	char *vf;			/* VirtualFabric name */
	struct vf_mgid *mgids;
	unsigned num_mgids;
	unsigned mtu, rate;		/* 0 unset */
	int sl;				/* -1 unset */
	int pkey;			/* <PKey>, -1 unset */
	uint32_t qkey;			/* 0 unset */
};

/* Routing settings that name device groups (<Sm> in opafm.xml). */
struct vf_cfg_routing {
	char *algorithm;		/* RoutingAlgorithm, or NULL */
	int spine_first;		/* SpineFirstRouting 0/1, -1 unset */
	char *core_switches;		/* FatTreeTopology/CoreSwitches */
	char *route_last;		/* FatTreeTopology/RouteLast */
	struct vf_names routing_order;	/* DGShortestPathTopology */
	struct vf_where at;		/* of the <Sm> element */
	/*
	 * <AdaptiveRouting> (routing/ar.h: struct vf_ar_config), each field
	 * -1 when unset: Enable, FineGrained, LostRouteOnly, Algorithm,
	 * ARFrequency, Threshold.
	 */
	int ar_enable, ar_fine_grained, ar_lost_route_only;
	int ar_algorithm, ar_frequency, ar_threshold;
};

struct vf_config {
	struct vf_app *apps;
	unsigned num_apps;
	struct vf_cfg_dg *dgs;
	unsigned num_dgs;
	struct vf_qos_group *qos_groups;
	unsigned num_qos_groups;
	struct vf_cfg_vf *vfs;
	unsigned num_vfs;
	struct vf_cfg_routing routing;
	struct vf_mcgroup *mcgroups;
	unsigned num_mcgroups;
	struct vf_names files;		/* the files read, for vf_where */
	/*
	 * The default partition as stock OpenSM makes it when it reads a
	 * partitions.conf (every end port limited, the SM full, plus what
	 * the file says), not the FM's rules (plan.h); set by the
	 * partitions.conf front-end, so a stock file keeps its meaning.
	 */
	bool stock_defaults;
	/*
	 * A partitions.conf without vFabric statements, read exactly as
	 * stock OpenSM reads it (pconfstock.h): every VF is one OpenSM
	 * partition with an explicit P_Key and pc_entries; pc_groups are
	 * the multicast groups it creates, in OpenSM's order.
	 */
	bool stock_file;
	/*
	 * partitions.conf statements read without an error: none in a file
	 * with errors says it is not partitions.conf at all (the CLI then
	 * gives one message, not one per line of an opensm.conf).
	 */
	unsigned clean_statements;
	struct vf_pc_group *pc_groups;
	unsigned num_pc_groups;
	/*
	 * <Sm><PathSelection>: the order of LID pairs in PathRecord answers
	 * (enum vf_path_selection, partition/pathsel.h); -1 unset.
	 */
	int path_selection;
	/*
	 * <Sm><PartitionRouting>: off, balance or isolate (enum
	 * vf_partition_routing, routing/tenancy.h); -1 unset.
	 */
	int partition_routing;
	/* <VirtualEthernetSwitches>: the Ethernet Manager (emconfig.h). */
	struct vf_em_config em;
	/* Holders of a heap-allocated config (vf_config_hold); 0 for one
	 * owned in place, freed with vf_config_free(). */
	int refs;
	/*
	 * Which config this is, unique in the process (vf_config_init()):
	 * what tells two configs apart once one is freed, where a pointer
	 * could be reused by the next.
	 */
	uint64_t generation;
};

/* The FM's limits (reference/opa-fm.md 1.1) that we enforce. */
#define VF_CFG_MAX_NAME 63
#define VF_CFG_MAX_VFS 1000
#define VF_CFG_MAX_DGS 1024
#define VF_CFG_MAX_APPS 64
#define VF_CFG_MAX_ORDER 8

void vf_config_init(struct vf_config *c);

/*
 * The FM's built-in DeviceGroups, for every name the file does not define
 * itself: All, AllCAs and AllFIs (CAs), AllSWs, AllSWE0s (switch port 0),
 * AllEndNodes (CAs and switch port 0), AllRouters, Self (the SM's node);
 * and the Application All (every ServiceID and MGID, as in the FM's
 * template).  0 or -ENOMEM.
 */
int vf_config_add_builtins(struct vf_config *c);
/* DeviceGroups and Applications the configuration defines itself
 * (built-in and synthesized ones not counted). */
unsigned vf_config_own_dgs(const struct vf_config *c);
unsigned vf_config_own_apps(const struct vf_config *c);
void vf_config_free(struct vf_config *c);
/*
 * A config on the heap shared by threads (the plugin's current one and
 * the SA's snapshot of it): hold takes a reference, release drops one and
 * frees the config, and the struct, with the last.  Start with refs = 1.
 */
void vf_config_hold(struct vf_config *c);
void vf_config_release(struct vf_config *c);

/*
 * Check what one file cannot: unknown names, duplicates, include cycles,
 * explicit P_Key collisions, SL and bandwidth sums.  Every problem is
 * added to d with the object's location; returns the number of errors.
 */
unsigned vf_config_validate(const struct vf_config *c, struct vf_diag *d);

/*
 * A new object at the end of its list, named (a copy) and placed, with the
 * FM's defaults (automatic P_Key and SLs, disabled, no QoS); NULL on
 * ENOMEM.  Pointers into the lists stay valid only until the next one.
 */
struct vf_app *vf_config_new_app(struct vf_config *c, const char *name,
				 struct vf_where at);
struct vf_cfg_dg *vf_config_new_dg(struct vf_config *c, const char *name,
				   struct vf_where at);
struct vf_qos_group *vf_config_new_qos_group(struct vf_config *c,
					     const char *name,
					     struct vf_where at);
struct vf_cfg_vf *vf_config_new_vf(struct vf_config *c, const char *name,
				   struct vf_where at);

/* Append to an object's lists; 0 or -ENOMEM. */
int vf_app_add_sid(struct vf_app *a, const struct vf_sid_rule *r);
int vf_app_add_mgid(struct vf_app *a, const struct vf_mgid_rule *r);
int vf_guids_add(struct vf_guids *g, uint64_t guid);
/* Takes p over (freed with the group, or here on failure). */
int vf_dg_add_desc(struct vf_cfg_dg *g, struct vf_ndpat *p);

/* Lookups by exact (case-sensitive) name; NULL (-1) when absent. */
int vf_config_dg_index(const struct vf_config *c, const char *name);
const struct vf_cfg_dg *vf_config_dg(const struct vf_config *c,
				     const char *name);
const struct vf_app *vf_config_app(const struct vf_config *c,
				   const char *name);

/* The QoS settings a VF gets: its QOSGroup's (when it exists), or its own. */
const struct vf_qos *vf_config_vf_qos(const struct vf_config *c,
				      const struct vf_cfg_vf *v);

/* Append a copy of name; 0 or -ENOMEM. */
int vf_names_add(struct vf_names *l, const char *name);

/*
 * Names to their index in one lookup (a hash table), so that checking and
 * resolving include chains is linear in their length, not quadratic.
 * Where a name repeats, the first index wins.  The names are not copied.
 */
struct vf_name_index {
	const char *const *names;
	unsigned *slots;		/* index + 1, 0 empty */
	unsigned mask;
};

/* Index n names; names[i] must stay valid while the index is used. */
int vf_name_index_build(struct vf_name_index *x, const char *const *names,
			unsigned n);
int vf_name_index_find(const struct vf_name_index *x, const char *name);
void vf_name_index_free(struct vf_name_index *x);
/* Strings compared by vf_name_index_find() and vf_config_dg_index() (for
 * tests that bound the work of include resolution; single-threaded). */
extern unsigned long vf_name_index_probes;

/*
 * How messages name an object.  partitions.conf statements become
 * internal objects (the member groups 'NAME#full', a repeated partition
 * 'NAME#2'): these are shown as the user wrote them, "partition 'NAME'"
 * (and its "full members" etc.), others as "VirtualFabric 'NAME'" or
 * "DeviceGroup 'NAME'".  Returns buf.
 */
const char *vf_config_vf_label(const struct vf_cfg_vf *v, char *buf,
			       size_t size);
const char *vf_config_dg_label(const struct vf_cfg_dg *g, char *buf,
			       size_t size);

#endif /* VF_CONFIG_H */
