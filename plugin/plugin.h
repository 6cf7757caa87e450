/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The plugin's private state, shared by its files.  Include after
 * <opensm/osm_config.h> and the OpenSM headers.
 */
#ifndef VF_PLUGIN_H
#define VF_PLUGIN_H

#include <sys/types.h>
#include <time.h>

#include "partition/assign.h"
#include "partition/config.h"
#include "partition/plan.h"
#include "partition/qos.h"
#include "partition/qoslayers.h"
#include "partition/routegroups.h"
#include "plugin/options.h"
#include "plugin/sa.h"
#include "plugin/sweep.h"
#include "routing/engine.h"
#include "routing/fabric.h"
#include "routing/routecheck.h"
#include "routing/vllayers.h"

/* Milliseconds on the monotonic clock, for the timings in the log. */
static inline double vf_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct osm_opensm;
struct osm_routing_engine;
struct osm_subn;
struct vf_watch;
struct vf_ar_state;
struct vf_em_state;
struct vf_metrics;

/* What OpenSM's engine callbacks get as context: one per engine. */
struct vf_engine_ctx {
	struct vf_plugin *plugin;
	const struct vf_engine *engine;
	struct osm_routing_engine *re;	/* OpenSM's, once set up */
	unsigned runs;		/* successful routings, for the log */
};

/* An OpenSM option the plugin overrides while it needs to (plugin/qos_program.c). */
struct vf_opt_override {
	bool on;			/* ours is in place */
	int user, ours;			/* the value to put back; ours */
};

/*
 * The QoS programme of the last heavy sweep and its tables for every data
 * VL count (what the engine callbacks hand OpenSM), and the OpenSM options
 * it overrides.  Sweeper thread only.
 */
struct vf_qos_state {
	bool active;			/* tables are ours */
	struct vf_qos_prog prog;
	struct vf_qos_port ports[VF_QOS_MAX_VLS];	/* by data VLs - 1 */
	struct vf_opt_override qos, hoq, leaf_hoq;
	unsigned ports_set, ports_folded;	/* this sweep, for the log */
	unsigned fold_vls, fold_classes;
};

/*
 * The VL layers of the last routing (plugin/layers.c): written only in
 * the routing callback, with OpenSM's lock held exclusively; read under
 * it (the SA, path_sl, the QoS manager's callbacks).
 */
struct vf_layered {
	bool active;
	struct vf_layers l;
	const struct osm_routing_engine *re;	/* whose tables they split */
	/* with QoS VFs (partition/qoslayers.h): the classes over the
	 * layers, and the one SL2VL/VLArb table every port gets */
	bool with_qos;
	struct vf_qos_layering qy;
	struct vf_qos_port qtables;
};

/*
 * The last routing our engines produced and OpenSM took.  The route check
 * runs on it at UCAST_ROUTING_DONE, outside OpenSM's lock, not in the
 * engine callback where the SA waits; the next routing starts from it
 * (route_stability).  Only the sweeper thread touches it.
 */
struct vf_routing {
	const struct vf_engine *engine;
	struct vf_fabric *fabric;	/* NULL when none */
	struct vf_lfts lfts;
	bool checked;		/* report computed (loop_fallback) */
	bool logged;		/* report logged, or check_routes off */
	bool ar_fresh;		/* made this sweep: AR not yet programmed */
	struct vf_route_report report;
};

/* One version of the configuration file, or what stood at its path. */
struct vf_file_stamp {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	mode_t mode;		/* 0: nothing there */
	int err;		/* why it could not be read, or 0 */
};

/* Without a usable configuration: the partitions OpenSM gets. */
enum vf_fallback {
	VF_FALLBACK_NONE,	/* OpenSM reads its own partitions.conf */
	VF_FALLBACK_DENY,	/* tenants apart: all limited in the default */
	VF_FALLBACK_OPEN,	/* OpenSM's default policy, all full */
};

struct vf_plugin {
	struct osm_opensm *osm;
	struct vf_options opts;
	struct vf_config *config;	/* last good configuration, or NULL */
	bool config_stock;		/* it is a stock partitions.conf:
					 * OpenSM's SA handlers answer */
	char config_from[512];		/* which file, read when (the log) */
	enum vf_fallback fallback;	/* while config is NULL */
	char *user_partitions;		/* OpenSM's partition_config_file as
					 * configured (a copy) */
	char *user_partitions_ptr;	/* and OpenSM's own pointer to it */
	struct {			/* plugin/plugin_config.c */
		struct vf_file_stamp decided;	/* the version last applied
						 * or refused */
		bool have_decided;
		struct vf_file_stamp settling;	/* seen, not yet settled */
		double settling_since;		/* ms, monotonic */
		bool started;			/* create() is done */
		bool self_source;		/* the source is our own
						 * output (said once) */
	} cfg;
	/*
	 * When (monotonic ms, 0: never) the configuration wants another look
	 * (it was changing): the config_poll thread asks for a heavy sweep
	 * then.  Written by the sweeper, read by that thread (atomics).
	 */
	int64_t config_retry_ms;
	/* when an AR_Key lease on a switch has run out (vf_now_ms), 0: none;
	 * the watch thread then asks for a heavy sweep (plugin/ar_program.c) */
	int64_t ar_sweep_ms;
	struct vf_assignment assign;	/* automatic P_Keys/SLs, as cached */
	bool assign_loaded;
	uint64_t fabric_warn_sum;	/* of the fabric warnings last logged */
	char *partitions_file;		/* what partition_config_file points
					 * to once we generate it */
	struct vf_plan pkey_plan;	/* written, not yet verified */
	struct {			/* the last plan's VF P_Keys and SLs,
					 * kept past its check (the EM's) */
		uint16_t *pkey;
		int *sl;
		unsigned n;
	} vf_keys;
	struct vf_fabric *pkey_fabric;	/* its fabric; NULL when none */
	unsigned verify_retries;	/* forced sweeps in a row */
	double sweep_t0;		/* ms: HEAVY_SWEEP_DONE, for the log */
	struct vf_watch *watch;		/* config_poll thread, or NULL */
	struct vf_engine_ctx *engines;	/* one per vf_engines[] entry */
	struct vf_sa sa;		/* PathRecord/MCMemberRecord handlers */
	struct vf_routing last;
	struct vf_qos_state qos;
	struct vf_layered layered;	/* plugin/layers.c */
	unsigned layers_said;		/* the layering last warned about:
					 * each warning once while it holds */
	struct vf_ar_state *ar;		/* plugin/ar_program.c */
	struct vf_em_state *em;		/* plugin/em.c */
	struct vf_node_descs *descs;	/* plugin/nodedesc.c */
	struct vf_metrics *metrics;	/* plugin/metrics.c; NULL: off */
	struct vf_sweep sweep;		/* this sweep's snapshot (sweep.h) */
	bool config_last_good;		/* config is an older good version:
					 * the file is bad (the metrics) */
	/*
	 * Partition-aware routing: the configuration (its generation; 0 for
	 * none) and mode the routing in progress and the last one were made
	 * for; a routing for another keeps nothing of the last
	 * (route_stability would keep routes the new policy wants elsewhere).
	 */
	uint64_t routing_policy, last_routing_policy;
	int routing_mode, last_routing_mode;
};

/*
 * The last NodeDescription seen per node GUID (plugin/nodedesc.c): what
 * the model uses while OpenSM lost a node's description.
 */
struct vf_node_desc {
	uint64_t guid;
	char desc[VF_DESC_LEN + 1];
};
struct vf_node_descs *vf_node_descs_create(void);
void vf_node_descs_destroy(struct vf_node_descs *d);
bool vf_node_descs_lookup(struct vf_node_descs *d, uint64_t guid,
			  char out[VF_DESC_LEN + 1]);
void vf_node_descs_remember(struct vf_node_descs *d, struct vf_node_desc *seen,
			    size_t n);
void vf_node_descs_wait(struct vf_node_descs *d, uint64_t guid);
bool vf_node_descs_arrived(struct vf_node_descs *d, struct osm_opensm *osm);

/*
 * Build the fabric model from OpenSM's subnet.  Nodes and ports whose
 * discovery_count is 0 (about to be dropped) are left out.  A node whose
 * description OpenSM does not know ("<unknown>": its NodeDescription MAD
 * was lost) gets the last one `descs` saw for its GUID (descs may be
 * NULL).  Without lids every port's LID is 0 (before OpenSM's LID manager
 * they may still change, or collide).  Caller holds the OpenSM lock (or
 * runs in the sweeper).  NULL on failure, logged.
 */
struct vf_fabric *vf_fabric_from_subnet(struct osm_subn *subn,
					struct vf_node_descs *descs, bool lids);
/* How many models this process built (the sweep's metrics). */
uint64_t vf_fabric_from_subnet_count(void);
/*
 * Bring f, built from subn earlier in this sweep, up to date: every
 * port's LID, LMC, width, speed and health read again, the LIDs indexed
 * anew.  0; 1 when the subnet's live nodes or links are no longer f's
 * (build a new model); or a negative errno from the LID index (logged).
 * Same locking as vf_fabric_from_subnet().
 */
int vf_fabric_refresh_from_subnet(struct vf_fabric *f, struct osm_subn *subn);

/*
 * What the end ports of f hold in their P_Key tables as OpenSM last read
 * them (partition/recover.h); 0 or -ENOMEM.  Free with
 * vf_held_pkeys_free().
 */
int vf_held_from_subnet(struct osm_subn *subn, const struct vf_fabric *f,
			struct vf_held_pkeys *h);

/*
 * Log the warnings only a fabric shows (partition/isolation.h) when they
 * differ from the last ones logged.
 */
void vf_partitions_fabric_warnings(struct vf_plugin *p,
				   const struct vf_resolution *r);

/*
 * An engine's build_lid_matrices (plugin/hops.c): fill OpenSM's min-hop
 * matrices as its own builder would; 0, or 1 when OpenSM must build them
 * (nothing half done is left).  Sweeper thread, lock held.
 */
int vf_hop_matrices(struct vf_plugin *p, const char *engine);
/* Register every engine of vf_engines[] with OpenSM; 0 or -errno. */
int vf_engines_register(struct vf_plugin *p);
/* Check and log the last routing, once. */
void vf_check_last(struct vf_plugin *p);
/* Free the last routing. */
void vf_drop_last(struct vf_plugin *p);

/*
 * Read the configuration again if the file changed (or was never read)
 * and has settled; a file that cannot be used is logged once and the
 * configuration in use kept.  Sweeper thread only.
 */
void vf_plugin_config_refresh(struct vf_plugin *p);
/* The same, waiting a few seconds at most for a file being written. */
void vf_plugin_config_refresh_wait(struct vf_plugin *p);
/*
 * The first read, from create(): waits (briefly) for a file being written
 * to settle; a file that cannot be used gives what on_config_error says.
 */
void vf_plugin_config_start(struct vf_plugin *p);
/* name in OpenSM's cache directory (OSM_CACHE_DIR), as OpenSM finds it. */
void vf_cache_path(char *buf, size_t size, const char *name);
#define VF_PARTITIONS_FILE "opensm-vfabric-partitions.conf"
void vf_plugin_config_free(struct vf_plugin *p);
/* The file the configuration comes from, or NULL. */
const char *vf_plugin_config_source(const struct vf_plugin *p);
/*
 * The engine options for routing this sweep's model: the routing device
 * groups of its configuration, then what event_plugin_options sets
 * explicitly.  g holds what o points to: free it with
 * vf_route_groups_free() after routing.
 */
void vf_plugin_route_opts(struct vf_plugin *p, struct vf_route_opts *o,
			  struct vf_route_groups *g);

/*
 * HEAVY_SWEEP_DONE: re-read the config if it changed and, when it defines
 * virtual fabrics, write the partitions file OpenSM reads next.  Returns
 * the plan written this sweep (valid until SUBNET_UP), or NULL.
 */
const struct vf_plan *vf_partitions_heavy_sweep(struct vf_plugin *p);
/*
 * SUBNET_UP: compare the P_Key tables OpenSM read back with the last plan;
 * log differences and force a heavy sweep (a few times at most).
 */
void vf_partitions_verify(struct vf_plugin *p);
void vf_partitions_free(struct vf_plugin *p);
/* The VF P_Keys and SLs kept for the EM (at unload). */
void vf_partitions_free_keys(struct vf_plugin *p);

/*
 * vFabric QoS (plugin/qos_program.c).  create(): turn opt.qos on when the
 * configuration has QoS VFs.  Heavy sweep
 * (after the plan, NULL when none was written): build the programme,
 * install or remove the engine callbacks, set or restore the options.
 * After routing (UCAST_ROUTING_DONE): log what the callbacks did.
 */
void vf_qos_create(struct vf_plugin *p);
void vf_qos_heavy_sweep(struct vf_plugin *p, const struct vf_plan *plan);
void vf_qos_routing_done(struct vf_plugin *p);
/*
 * After the routing callback decided the layers (routing thread, lock
 * held): install or remove the callbacks and opt.qos for them.
 */
void vf_qos_layers_changed(struct vf_plugin *p);

/*
 * VL layers (plugin/layers.c, vl_layers=N).  Routing callback, lock held:
 * clear the last layers before routing; with tables whose single-VL
 * check r found a credit loop, split them into layers (c: the sweep's
 * configuration, for naming VFs; 0: r is then the
 * per-VL check, loop-free) or say why not (-1).  vf_layer_sl: the SL of
 * SLID to DLID while the layered tables are OpenSM's (false: no layers),
 * for traffic whose SL would be `base` without layers (its QoS class's
 * SL, a partition's sl=).
 */
void vf_layers_clear(struct vf_plugin *p);
int vf_layers_apply(struct vf_plugin *p, struct vf_engine_ctx *ec,
		    const struct vf_config *c, const struct vf_fabric *f,
		    const struct vf_lfts *t, struct vf_route_report *r);
bool vf_layer_sl(const struct vf_plugin *p, unsigned slid, unsigned dlid,
		 uint8_t base, uint8_t *sl);
bool vf_layers_in_use(const struct vf_plugin *p);

/*
 * Adaptive routing (plugin/ar_program.c, docs/ar-protocol.md).  At SUBNET_UP
 * after our engine routed (sweeper thread, no lock held, the new LFTs in
 * place): compute the AR tables of the last routing and program the
 * switches' agents, or tell them to stop when AR is off.  Bounded in
 * time; logs one summary line.
 */
int vf_ar_create(struct vf_plugin *p);
/*
 * plugin/keys.c: the key a management class gives its agents: read from
 * file when one is named, else configured, else random (0, logged, when
 * there is no random source).  what names the key, option the setting.
 */
uint64_t vf_management_key(const char *what, const char *option,
			   uint64_t configured, const char *file);

void vf_ar_subnet_up(struct vf_plugin *p);
void vf_ar_heavy_sweep(struct vf_plugin *p);
void vf_ar_destroy(struct vf_plugin *p);

/*
 * The Ethernet Manager (plugin/em.c, docs/ethernet-manager.md).  At
 * SUBNET_UP (sweeper thread, no lock held): resolve the virtual Ethernet
 * switches on the subnet and hand them to the EM's thread, which
 * configures the endpoints; returns at once.  Nothing happens until a
 * configuration has vESWs.
 */
int vf_em_create(struct vf_plugin *p);
void vf_em_subnet_up(struct vf_plugin *p);
/* OpenSM's SM state changed (left MASTER): read back at the next pass. */
void vf_em_state_change(struct vf_plugin *p);
void vf_em_destroy(struct vf_plugin *p);

/* Watch the configuration file (config_poll); a change asks for a heavy
 * sweep.  0, or -errno (logged; changes then wait for SIGHUP). */
int vf_watch_start(struct vf_plugin *p);
void vf_watch_stop(struct vf_plugin *p);

#endif /* VF_PLUGIN_H */
