// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * VL layers for our engines' tables (vl_layers=N, routing/vllayers.h).
 *
 * When the routes of a fabric that is not a tree close a credit loop on
 * one VL, the routing callback splits them into layers whose dependency
 * graphs are acyclic, each on its own VL: layer n's routes on SL n, SL n
 * on VL n at every port.  Three readers then put that in the fabric:
 * - OpenSM's SA PathRecord handler and its link manager (MasterSMSL) ask
 *   the engine's path_sl callback for the SL of (SLID, DLID);
 * - our own PathRecord handler (a vFabric policy) asks vf_layer_sl();
 * - OpenSM's QoS manager, after routing, takes the SL2VL and VLArb tables
 *   from our update_sl2vl/update_vlarb (plugin/qos_program.c).
 * All three run with OpenSM's lock held, and the layers change only in
 * the routing callback, which holds it exclusively.
 *
 * With QoS virtual fabrics every class gets a VL per layer
 * (partition/qoslayers.h): classes that must share VLs are named.
 *
 * A pair of hosts is on one layer both ways when the VLs allow it (a CM
 * connection answers on its request's SL); else one way, said loudly, and
 * the SA then calls the pair's paths not reversible.
 *
 * Fail closed: tables whose loop the layers cannot break (more layers
 * than VLs even one way, a route that loops, more SLs than 16 for the
 * classes' layers) are refused as before (loop_fallback).  Routes to switch LIDs
 * (management) stay on their SL (layer 0), as the route check leaves
 * them out.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_port.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/plugin.h"
#include "common/log.h"
#include "routing/vlcheck.h"

void vf_layers_clear(struct vf_plugin *p)
{
	struct vf_layered *y = &p->layered;

	vf_layers_free(&y->l);
	memset(y, 0, sizeof(*y));
}

/*
 * The data VLs every linked port can run: the least VLCap of all of them,
 * OpenSM's max_op_vls, which caps the OperVLs its link manager sets, and
 * the least VLArbLowCap (a layer's VL without an arbitration entry would
 * never send).
 */
static unsigned vls_available(osm_subn_t *subn)
{
	unsigned least = vf_qos_vls_of_code(subn->opt.max_op_vls);

	if (!least)	/* a code OpenSM would not set: one VL */
		least = 1;
	for (cl_map_item_t *it = cl_qmap_head(&subn->port_guid_tbl);
	     it != cl_qmap_end(&subn->port_guid_tbl);
	     it = cl_qmap_next(it)) {
		osm_node_t *node = ((osm_port_t *)it)->p_node;
		unsigned n = osm_node_get_num_physp(node);

		for (unsigned i = 0; i < n; i++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(node, i);
			unsigned vls;

			if (!ph || !osm_physp_get_remote(ph))
				continue;
			vls = vf_qos_vls_of_code(
				ib_port_info_get_vl_cap(&ph->port_info));
			if (vls && vls < least)
				least = vls;
			vls = ph->port_info.vl_arb_low_cap;
			if (vls && vls < least)
				least = vls;
		}
	}
	return least;
}

static void refuse_why(const struct vf_engine *e, int rc,
		       const struct vf_layers *l, unsigned max, unsigned avail,
		       unsigned asked)
{
	unsigned need = l->num;

	if (rc == -E2BIG)
		vf_log(VF_LOG_ERROR,
		       "ERR VF0128: %s: the routes cannot be split into VL layers: %s%u sources by %u destinations is more than the pair table's %u MiB",
		       e->name, l->both_ways ? "" :
		       "both ways they need more than the VLs allow, and one way ",
		       l->nsrc, l->ndst, VF_LAYERS_MEM >> 20);
	else if (rc == -ERANGE && need > VF_LAYERS_MAX)
		vf_log(VF_LOG_ERROR,
		       "ERR VF0127: %s: the routes' credit loops need more than %u VL layers; %u VLs available (vl_layers=%u)",
		       e->name, VF_LAYERS_MAX, avail, asked);
	else if (rc == -ERANGE)
		vf_log(VF_LOG_ERROR,
		       "ERR VF0127: %s: the routes' credit loops need %u VL layers; at most %u may be used (%u VLs available on every port, vl_layers=%u)",
		       e->name, need, max, avail, asked);
	else
		vf_log(VF_LOG_ERROR,
		       "ERR VF0128: %s: the routes cannot be split into VL layers (%s)",
		       e->name, rc == -ELOOP ? "a route loops" :
		       strerror(-rc));
}

/*
 * Whether the warnings of this layering are new: the same layering (layer
 * count, one way or both, class groups) as the last routing's is not
 * warned about again every sweep.
 */
static unsigned layering_sig(const struct vf_layered *y)
{
	return y->l.num | (unsigned)y->l.both_ways << 5 |
	       (y->with_qos ? y->qy.groups : 0u) << 6;
}

static bool said_once(const struct vf_plugin *p)
{
	return layering_sig(&p->layered) != p->layers_said;
}

/*
 * QoS VFs: every class a VL per layer (partition/qoslayers.h), the classes
 * that must share VLs said once per group.  0, or -1 after saying why.
 */
static int with_qos(struct vf_plugin *p, const struct vf_engine *e,
		    const struct vf_config *c, unsigned avail)
{
	struct vf_layered *y = &p->layered;
	const struct vf_qos_prog *q = &p->qos.prog;
	/* the VFs' SLs of the plan written this sweep (vf_keys) */
	const struct vf_plan plan = { .vf_sl = p->vf_keys.sl,
				      .num_vfs = p->vf_keys.n };
	char line[1024];

	if (vf_qos_layering(q, y->l.num, avail, &y->qy)) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0129: %s: %u QoS classes over %u VL layers need more SLs than the 16 there are",
		       e->name, q->n, y->l.num);
		return -1;
	}
	y->with_qos = true;
	vf_qos_layered_tables(q, &y->qy, VF_QOS_VLARB_ENTRIES, &y->qtables);
	vf_qos_layering_summary(q, &y->qy, line, sizeof(line));
	vf_log(VF_LOG_INFO, "qos: %s", line);
	for (unsigned i = 0; said_once(p) &&
	     vf_qos_layering_shared(q, &y->qy, c,
				    p->vf_keys.sl ? &plan : NULL, i, line,
				    sizeof(line)); i++)
		vf_log(VF_LOG_WARN,
		       "qos: %u VL layers on %u VLs leave room for %u class groups: %s",
		       y->l.num, avail, y->qy.groups, line);
	return 0;
}

/* The per-VL check's view with QoS: every class's SL of the layer. */
static uint16_t qos_sls(const void *ctx, uint32_t s, unsigned lid)
{
	const struct vf_layered *y = ctx;
	uint16_t layers = vf_layers_from_switch(&y->l, s, lid), mask = 0;

	for (unsigned l = 0; l < y->l.num; l++) {
		if (!(layers & (1u << l)))
			continue;
		for (unsigned base = 0; base < VF_QOS_NUM_SLS; base++)
			if (y->qy.sl[base][l] != VF_QOS_NO_SL)
				mask |= (uint16_t)(1u << y->qy.sl[base][l]);
	}
	return mask;
}

static uint8_t qos_vl(const void *ctx, uint32_t s, uint8_t in, uint8_t out,
		      uint8_t sl)
{
	const struct vf_layered *y = ctx;

	(void)s;
	(void)in;
	(void)out;
	return y->qy.vl_of_sl[sl];
}

int vf_layers_apply(struct vf_plugin *p, struct vf_engine_ctx *ec,
		    const struct vf_config *c, const struct vf_fabric *f,
		    const struct vf_lfts *t, struct vf_route_report *r)
{
	const struct vf_engine *e = ec->engine;
	struct vf_layered *y = &p->layered;
	unsigned avail, max;
	struct vf_vl_model m;
	int rc;

	if (!p->opts.vl_layers)
		return -1;
	avail = vls_available(&p->osm->subn);
	max = p->opts.vl_layers < avail ? p->opts.vl_layers : avail;
	rc = vf_layers_build(f, t, max, true, &y->l);
	if (rc == -ERANGE) {	/* both ways do not fit: one way may */
		vf_layers_free(&y->l);
		rc = vf_layers_build(f, t, max, false, &y->l);
	}
	if (rc) {
		refuse_why(e, rc, &y->l, max, avail, p->opts.vl_layers);
		vf_layers_clear(p);
		return -1;
	}
	if (p->qos.active && with_qos(p, e, c, avail)) {
		vf_layers_clear(p);
		return -1;
	}
	if (!y->l.both_ways && said_once(p))
		vf_log(VF_LOG_ERROR,
		       "ERR VF0130: %s: with each pair of hosts on one layer both ways the routes need more than %u VL layers; split one way into %u: traffic each side sends on the SL of its own PathRecord (UD, RC connected out of band) is deadlock-free, but a connection the IB CM sets up (RC over rdma_cm) answers on its request's SL and may cross layers; the SA calls such paths not reversible",
		       e->name, max, y->l.num);
	if (y->with_qos) {
		m.path_sls = qos_sls;
		m.sl2vl = qos_vl;
		m.ctx = y;
	} else {
		vf_layers_vl_model(&y->l, &m);
	}
	if (vf_route_check_vl(f, t, &m, r) || r->credit_loop) {
		/* the layering's own check: never expected to fail */
		vf_log(VF_LOG_ERROR,
		       "ERR VF0128: %s: the routes cannot be split into VL layers (%s)",
		       e->name, r->credit_loop ? r->cycle : "out of memory");
		vf_layers_clear(p);
		return -1;
	}
	y->active = true;
	y->re = ec->re;
	p->layers_said = layering_sig(y);
	vf_log(VF_LOG_INFO,
	       "%s: the routes close credit loops on one VL; split into %u VL layers %s, by %s (SL n on VL n, n < %u; %u VLs available); no loop per VL",
	       e->name, y->l.num, y->l.both_ways ? "both ways" : "one way",
	       vf_layers_unit(&y->l), y->l.num, avail);
	return 0;
}

bool vf_layers_in_use(const struct vf_plugin *p)
{
	/* the tables in the switches must be the ones layered */
	return p->layered.active &&
	       p->osm->routing_engine_used == p->layered.re;
}

bool vf_layer_sl(const struct vf_plugin *p, unsigned slid, unsigned dlid,
		 uint8_t base, uint8_t *sl)
{
	const struct vf_layered *y = &p->layered;
	unsigned l;

	if (!vf_layers_in_use(p))
		return false;
	l = vf_layer_of(&y->l, slid, dlid);
	if (!y->with_qos)
		*sl = (uint8_t)l;
	else if (base < VF_QOS_NUM_SLS && y->qy.sl[base][l] != VF_QOS_NO_SL)
		*sl = y->qy.sl[base][l];
	else	/* an SL no class has: the first class's (no QoS) layer */
		*sl = y->qy.sl[p->qos.prog.cls[0].sl][l];
	return true;
}
