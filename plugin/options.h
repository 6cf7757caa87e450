/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The plugin's settings, from OpenSM's event_plugin_options line.
 *
 * OpenSM hands every plugin the same one-line string (no '#': it starts a
 * comment there), so settings are whitespace-separated key=value pairs:
 *
 *   event_plugin_options log_level=info check_routes=on
 *
 * The vFabric configuration (opafm.xml style), whose <DeviceGroups> the
 * routing settings of its <Sm> section name:
 *
 *   config=/etc/opensm/vfabric.xml
 *
 * Device groups and the dgshortestpath RoutingOrder can also be given
 * here; settings on this line win over the file's:
 *
 *   dg_storage=desc:stor*,0x0002c903000a0b0c routing_order=storage:admin
 */
#ifndef VF_OPTIONS_H
#define VF_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "routing/devgroup.h"
#include "common/log.h"

/* Default sa_record_budget: four of the largest PathRecord answers (65,536
 * records) a second for each requester port. */
#define VF_SA_RECORD_BUDGET 262144u
/* vl_layers: the VLs most switches and HCAs have (VLCap 4: VL0-7) */
#define VF_VL_LAYERS_DEFAULT 8
/* Default em_key_lease: what an endpoint gives an unknown SM to wait. */
#define VF_EM_KEY_LEASE 60u

/* Default ar_key_lease: a minute, as a new master SM waits at most that
 * before it can give the switches its own AR_Key. */
#define VF_AR_KEY_LEASE_S 60u

/* A sorted list of NodeGUIDs or PortGUIDs, e.g. core_switches=0x..,0x.. */
struct vf_guid_list {
	uint64_t *guids;
	unsigned count;
};

/*
 * dg_<name>=<item>,...: a device group.  An item is a NodeGUID or PortGUID
 * (0x...) or desc:<pattern>, a NodeDesc pattern in the vFabric file's
 * syntax and meaning (common/ndpattern.h: one matcher for both).
 */
struct vf_dg_def {
	char *name;
	struct vf_guid_list guids;	/* NodeGUIDs and PortGUIDs, sorted */
	char **patterns;		/* as written, without desc: */
	struct vf_ndpat **compiled;	/* the same, compiled */
	unsigned num_patterns;
};

/*
 * on_config_error=: what OpenSM starts with when the configuration cannot
 * be used (unreadable, broken, unsafe).  Later faults always keep the
 * configuration in use.
 */
enum vf_on_config_error {
	VF_ON_ERROR_LAST_GOOD,	/* the last good one kept in the cache
				 * directory; without one as deny */
	VF_ON_ERROR_DENY,	/* every end port a limited member of the
				 * default partition, except the SM's port
				 * and switch port 0s */
	VF_ON_ERROR_OPEN,	/* OpenSM's default policy (all full) */
};

struct vf_options {
	enum vf_log_level log_level;	/* log_level=error|warn|info|debug */
	bool check_routes;		/* check_routes=on|off */
	bool spine_first;		/* spine_first=on|off (SpineFirstRouting) */
	bool spine_first_given;		/* set on the line (wins over config) */
	char *config;			/* config=PATH, or NULL */
	unsigned config_poll;		/* config_poll=SECONDS, 0 off */
	unsigned config_settle;		/* config_settle=SECONDS: a changed
					 * file is read once unchanged so
					 * long (a writer at work) */
	enum vf_on_config_error on_config_error;	/* at start */
	bool disconnect_unconfigured;	/* end ports no VF names: limited
					 * in the default partition */
	bool loop_fallback;		/* loop_fallback=on|off */
	unsigned vl_layers;		/* vl_layers=N|off: split routes with
					 * a credit loop into at most N VL
					 * layers (plugin/layers.c); 0 off */
	bool opensm_hops;		/* hop_matrices=opensm: OpenSM builds
					 * its min-hop matrices itself (the
					 * default, plugin, has our engines
					 * supply them; plugin/hops.c) */
	bool route_stability;		/* route_stability=on|off */
	int partition_routing;		/* partition_routing=off|balance|
					 * isolate; -1: the config's */
	bool sa_log;			/* sa_log=on: log every PathRecord
					 * answer (the LID pairs, P_Keys, SLs) */
	unsigned sa_record_budget;	/* sa_record_budget=N: records the SA
					 * may build for one requester port a
					 * second (plugin/sa_budget.c); 0: no
					 * limit */
	/*
	 * The EM key (docs/ethernet-manager.md, "Authentication"):
	 * em_key=HEX, 0 (the default) = a random key made at start;
	 * em_key_lease=SECONDS an endpoint keeps it with no Set carrying
	 * it once another SM's Set was refused (default 60, 0 = forever).
	 */
	uint64_t em_key;
	unsigned em_key_lease;
	int path_selection;		/* path_selection=minimal|pairwise|
					 * orderall|srcdstall (LMC paths in
					 * PathRecords); -1: the config's */
	/*
	 * Adaptive routing (docs/adaptive-routing.md), each -1 when not
	 * given (the config's <Sm><AdaptiveRouting> then applies):
	 * ar_enable=, ar_fine_grained=, ar_lost_route_only= (on|off),
	 * ar_algorithm=random|greedy|greedyrandom, ar_frequency=0-7,
	 * ar_threshold=0-7.
	 */
	int ar_enable, ar_fine_grained, ar_lost_route_only;
	int ar_algorithm, ar_frequency, ar_threshold;
	/*
	 * ar_key=HEX: the AR_Key the switches are given (0: a random key
	 * of this start); ar_key_lease=0-65535 s, how long a switch keeps a
	 * key no request carries from the master SM (0: for ever).
	 * Redacted wherever the options are logged.
	 */
	uint64_t ar_key;
	unsigned ar_key_lease;
	/* ar_key_file=, em_key_file=PATH: the key on the file's first line
	 * instead (OpenSM prints event_plugin_options to syslog) */
	char *ar_key_file, *em_key_file;
	/* metrics_file=PATH: Prometheus textfile metrics (plugin/metrics.c),
	 * rewritten after each sweep; NULL: off */
	char *metrics_file;
	struct vf_guid_list core_switches;	/* fattree CoreSwitches */
	struct vf_guid_list route_last;	/* fattree RouteLast */
	struct vf_dg_def *dgs;		/* dg_<name>=, as defined */
	unsigned num_dgs;
	/* why the last dg_ was refused, when a pattern was: "NodeDesc pattern
	 * 'x': column N: what", else empty */
	char dg_why[160];
	/* routing_order=a:b:..., the names as given (in order_text) */
	char *order_text;
	const char *order_names[VF_DG_MAX_ORDER];
	unsigned num_order_names;
	/*
	 * The RoutingOrder for the engines: order_names resolved to dgs
	 * (pointing into them); empty until vf_options_resolve_order()
	 * succeeds, and after any dg_ or routing_order change.
	 */
	struct vf_devgroup routing_order[VF_DG_MAX_ORDER];
	unsigned num_routing_order;
};

void vf_options_default(struct vf_options *o);
/*
 * "0x2c9...,0x2c9..." into a sorted list (replacing out's); -1 on a bad or
 * zero GUID, leaving out as it was.
 */
int vf_options_parse_guids(const char *v, struct vf_guid_list *out);
/*
 * Define device group name (replacing one of that name) from items, e.g.
 * "desc:stor*,0x2c9000000001".  0, -EINVAL for a bad name (letters,
 * digits, '_', '-', '.') or item, leaving o as it was, or -ENOMEM.
 */
int vf_options_set_dg(struct vf_options *o, const char *name,
		      const char *items);
/*
 * Set the RoutingOrder names from "a:b:...": 0, or -EINVAL when a name is
 * empty, listed twice or there are more than VF_DG_MAX_ORDER, leaving o
 * as it was; -ENOMEM.  The names are resolved later, as groups may be
 * defined after the order.
 */
int vf_options_set_routing_order(struct vf_options *o, const char *names);
/*
 * Resolve the RoutingOrder names to the dg_ groups.  0 (also when there
 * is no order), or -ENOENT with *unknown set to the first undefined name
 * (valid until o changes); the order then stays empty.
 */
int vf_options_resolve_order(struct vf_options *o, const char **unknown);
/* Free what parsing allocated (GUID lists, groups, the order). */
void vf_options_free(struct vf_options *o);
/*
 * Apply text (may be NULL) on top of o.  Every bad or unknown setting is
 * logged with ERR VF0102 naming it and skipped, keeping the default.
 * Then the RoutingOrder is resolved: a name with no dg_ group is one more
 * problem, and no order is applied.  Returns the number of problems.
 */
unsigned vf_options_parse(struct vf_options *o, const char *text);

/*
 * text with the value of every *_key= setting replaced by "<hidden>", for
 * logs (malloc'd; NULL when out of memory or text is NULL).
 */
char *vf_options_redacted(const char *text);

/*
 * Every setting with its effective value, defaults included, as one line
 * of key=value pairs ("-": not set, the vFabric file decides); keys
 * never shown (plugin/options_show.c).  malloc'd; NULL when out of memory.
 */
char *vf_options_describe(const struct vf_options *o);

#endif /* VF_OPTIONS_H */
