/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * vFabric QoS as InfiniBand tables: the QoS classes a resolved
 * configuration uses (the FM's QoS groups, reference/opa-fm.md 1.5, 1.7),
 * their SLs and bandwidth shares, and for a port with a given number of
 * data VLs its SL-to-VL map and VL arbitration tables.
 *
 * Classes: all active VFs without QoS share one (always listed first, so
 * on VL0); a QoS VF's class is the SL the plan gave it, so VFs of one
 * QOSGroup, or with identical per-VF QoS, are one class (the plan gives
 * them one SL).  Class k gets VL k; with more classes than VLs they fold
 * round-robin (class k on VL k mod VLs), and the port says how many.
 * SLs no class uses map to VL0.
 *
 * Bandwidth (FM render rules): explicit shares are kept; the rest is
 * split evenly over the classes without one, the non-QoS class taking
 * the rounding remainder and at least 5%.  The shares are then
 * apportioned in 5% units (largest remainder, at least one unit each), so
 * they sum to exactly 100%.  HighPriority classes have no share: their
 * VLs go in the high-priority table.
 */
#ifndef VF_QOS_H
#define VF_QOS_H

#include <stdbool.h>
#include <stdint.h>

#include "partition/config.h"
#include "partition/diag.h"
#include "partition/plan.h"

#define VF_QOS_NUM_SLS 16
#define VF_QOS_MAX_VLS 15		/* data VLs: VL0-14 */
#define VF_QOS_MAX_CLASSES VF_QOS_NUM_SLS
#define VF_QOS_UNIT 5			/* bandwidth granularity, % */
/*
 * VLArb weights are in 64-byte units, at most 255 per entry.  One entry
 * per VL with 12 per 5% keeps every ratio exact: 100% is 240.
 */
#define VF_QOS_WEIGHT_PER_UNIT 12
/* A high-priority VL's weight: one 4 KB packet per turn among them. */
#define VF_QOS_HIGH_WEIGHT 64
#define VF_QOS_VLARB_ENTRIES 64		/* IB: two blocks of 32 */

struct vf_qos_class {
	char name[VF_CFG_MAX_NAME + 1];	/* QOSGroup, first VF, or "(no QoS)" */
	bool qos;			/* false: the VFs without QoS */
	uint8_t sl;			/* BaseSL */
	int mcast_sl;			/* own MulticastSL, or -1 */
	bool high_priority;
	unsigned bw_asked;		/* Bandwidth as configured, 0 unset */
	unsigned bandwidth;		/* share given, percent, multiple of
					 * VF_QOS_UNIT; 0 when high priority */
	int hoq_life;			/* exponent, -1 unset */
	unsigned num_vfs;
	struct vf_where at;		/* the QOSGroup or first VF, for
					 * messages */
};

/* What a resolved configuration asks of the fabric's QoS tables. */
struct vf_qos_prog {
	bool active;			/* some active VF has QoS */
	struct vf_qos_class cls[VF_QOS_MAX_CLASSES];
	unsigned n;
	unsigned num_high;		/* high-priority classes */
	/*
	 * PortInfo.HOQLife to program (IB has one per port, not per VL):
	 * the largest any QoS class asks for, -1 none asks.
	 */
	int hoq_life;
};

struct vf_vlarb_entry {
	uint8_t vl, weight;
};

/* One port's tables, for a number of data VLs. */
struct vf_qos_port {
	unsigned vls;			/* data VLs the tables use */
	uint8_t sl2vl[VF_QOS_NUM_SLS];
	struct vf_vlarb_entry low[VF_QOS_VLARB_ENTRIES];
	struct vf_vlarb_entry high[VF_QOS_VLARB_ENTRIES];
	unsigned num_low, num_high;	/* entries used; the rest are 0 */
	uint8_t high_limit;		/* PortInfo.VLHighLimit */
	unsigned folded;		/* classes sharing a VL */
	unsigned high_dropped;		/* high VLs over VLArbHighCap */
};

/*
 * The QoS programme of c (validated) as planned in p (only p->vf_sl is
 * read).  Not active when no active VF has QoS: then nothing should
 * change.  Returns 0, or -EINVAL when the bandwidth shares cannot be
 * given (d says why, as the FM's "Need X% available bandwidth");
 * disagreeing HoqLife values are a warning in d.
 */
int vf_qos_build(const struct vf_config *c, const struct vf_plan *p,
		 struct vf_qos_prog *q, struct vf_diag *d);

/*
 * The plan-time QoS checks without a fabric, for the loader (so that
 * `vfabric check` and a reload refuse what a sweep would): assign the
 * automatic SLs and P_Keys as a plan with an empty cache would, and build
 * the QoS programme.  Errors (P_Keys or SLs exhausted, bandwidth that
 * cannot be given) go to d; returns their number.
 */
unsigned vf_qos_check(const struct vf_config *c, struct vf_diag *d);

/* Does c have an enabled, non-standby VF with QoS (no fabric needed)? */
bool vf_qos_wanted(const struct vf_config *c);

/* Data VLs of a PortInfo VLCap/OperVLs code (1..5), 0 for others. */
unsigned vf_qos_vls_of_code(unsigned code);

/*
 * The tables of a port with `vls` data VLs (1-15) and VLArb table
 * capacities low_cap/high_cap (PortInfo; 0 = no table).  A low table
 * smaller than vls makes fewer VLs usable: VLs are cut to low_cap.
 */
void vf_qos_port_tables(const struct vf_qos_prog *q, unsigned vls,
			unsigned low_cap, unsigned high_cap,
			struct vf_qos_port *t);

/*
 * Append VL vl's VLArb entries to t: in the low table with the weight of
 * `units` bandwidth units (none when 0), and in the high table when
 * high, while high_cap allows (else counted in high_dropped).
 */
void vf_qos_vlarb_add(struct vf_qos_port *t, uint8_t vl, unsigned units,
		      bool high, unsigned high_cap);

/* One line for the log: classes with SL, VL, share and weight. */
void vf_qos_summary(const struct vf_qos_prog *q, char *buf, size_t size);

#endif /* VF_QOS_H */
