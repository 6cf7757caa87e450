// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * OpenSM's min-hop matrices, supplied by our engines' build_lid_matrices.
 *
 * OpenSM keeps, per switch, the least hops to every switch LID by every
 * port (sw->hops): its multicast trees, its min-hop LFT builder (the
 * fallback engine) and its dumps read them.  It builds them for every
 * engine that does not, by relaxing all switches against their neighbours
 * round after round (switches x ports x switches a round): most of our
 * engines' window on large fabrics (docs/routing.md, "OpenSM's min-hop
 * matrices").  Here the same numbers (routing/hopmatrix.h) come from one
 * breadth-first search per destination switch, over the links and health
 * flags of OpenSM's own switch table rather than our fabric model, so
 * that nothing the model leaves out can make them differ.
 *
 * Fail closed: whatever cannot be done exactly as OpenSM would (hop
 * weights from a hop_weights_file, switches that disagree on the LID
 * range, two switches on one LID, no memory) returns 1, and OpenSM builds
 * the matrices itself; rows already written are cleared first, so it
 * starts from what it would have had.
 *
 * Sweeper thread with osm->lock held: no locking here.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_port.h>
#include <opensm/osm_switch.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin/plugin.h"
#include "routing/hopmatrix.h"
#include "common/log.h"

struct sw_index {
	const osm_switch_t *sw;
	uint32_t n;
};

static int cmp_sw(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct sw_index *)a)->sw;
	uintptr_t y = (uintptr_t)((const struct sw_index *)b)->sw;

	return x < y ? -1 : x > y;
}

static uint32_t sw_number(const struct sw_index *idx, uint32_t nsw,
			  const osm_switch_t *sw)
{
	struct sw_index key = { .sw = sw };
	const struct sw_index *hit = bsearch(&key, idx, nsw, sizeof(*idx),
					     cmp_sw);

	return hit ? hit->n : VF_NONE;
}

/* OpenSM's port count of a switch, bounded by its node's port table. */
static unsigned sw_ports(const osm_switch_t *sw)
{
	unsigned n = osm_node_get_num_physp(sw->p_node);

	return sw->num_ports < n ? sw->num_ports : n;
}

/* Switch s's ports to other switches, as OpenSM's builder walks them. */
static int add_links(struct vf_hopgraph *g, osm_switch_t **sws, uint32_t s,
		     const struct sw_index *idx)
{
	osm_node_t *node = sws[s]->p_node;

	for (unsigned i = 1; i < sw_ports(sws[s]); i++) {
		osm_physp_t *p = osm_node_get_physp_ptr(node, i);
		osm_node_t *rnode;
		uint32_t peer;
		int rc;

		if (!p || !p->p_remote_physp)
			continue;
		rnode = p->p_remote_physp->p_node;
		if (!rnode || !rnode->sw || rnode == node)
			continue;
		peer = sw_number(idx, g->nsw, rnode->sw);
		if (peer == VF_NONE)
			return -ENOENT;
		rc = vf_hopgraph_add(g, s, (uint8_t)i, peer,
				     osm_link_is_healthy(p));
		if (rc)
			return rc;
	}
	return 0;
}

static int build_graph(struct vf_hopgraph *g, osm_switch_t **sws,
		       uint32_t nsw)
{
	struct sw_index *idx = malloc(sizeof(*idx) * nsw);
	uint32_t max_links = 0;
	int rc = -ENOMEM;

	if (!idx)
		return rc;
	for (uint32_t s = 0; s < nsw; s++) {
		idx[s] = (struct sw_index){ .sw = sws[s], .n = s };
		max_links += sw_ports(sws[s]);
	}
	qsort(idx, nsw, sizeof(*idx), cmp_sw);
	rc = vf_hopgraph_init(g, nsw, max_links);
	for (uint32_t s = 0; !rc && s < nsw; s++)
		rc = add_links(g, sws, s, idx);
	if (!rc)
		vf_hopgraph_done(g);
	else
		vf_hopgraph_free(g);
	free(idx);
	return rc;
}

/* The switches in OpenSM's order, if they all have tables for max_lid. */
static osm_switch_t **collect(osm_subn_t *subn, uint32_t *nsw,
			      uint16_t *max_lid, const char **why)
{
	cl_qmap_t *tbl = &subn->sw_guid_tbl;
	osm_switch_t **sws;
	uint32_t n = 0;

	*nsw = cl_qmap_count(tbl);
	*why = "no memory";
	sws = malloc(sizeof(*sws) * (*nsw ? *nsw : 1));
	if (!sws)
		return NULL;
	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;

		*why = "switches disagree on the LID range";
		if (n && sw->max_lid_ho != *max_lid)
			goto fail;
		*max_lid = sw->max_lid_ho;
		*why = "a switch has no hop table";
		if (!sw->hops || sw->num_hops <= sw->max_lid_ho ||
		    !sw->p_node)
			goto fail;
		sws[n++] = sw;
	}
	*why = "no switches";
	if (n != *nsw || !n)
		goto fail;
	return sws;
fail:
	free(sws);
	return NULL;
}

/*
 * The destination switches: their LIDs (0: none OpenSM could enter),
 * refused when two switches share one.
 */
static int dest_lids(osm_switch_t **sws, uint32_t nsw, uint16_t max_lid,
		     uint16_t *lids)
{
	uint8_t *seen = calloc((size_t)max_lid + 1, 1);

	if (!seen)
		return -ENOMEM;
	for (uint32_t d = 0; d < nsw; d++) {
		uint16_t lid = cl_ntoh16(osm_node_get_base_lid(sws[d]->p_node,
							       0));

		if (lid > max_lid)
			lid = 0;
		if (lid && seen[lid]++) {
			free(seen);
			return -EEXIST;
		}
		lids[d] = lid;
	}
	free(seen);
	return 0;
}

/*
 * Every switch's row for every destination LID.  A switch that cannot
 * reach it keeps no counts (a row left from an earlier sweep is cleared,
 * as OpenSM's own clearing leaves it).  fail_at > 0 (a test) fails at that
 * destination.
 */
static int fill(osm_switch_t **sws, const struct vf_hopgraph *g,
		const uint16_t *lids, unsigned fail_at)
{
	struct vf_hops_dst h;
	unsigned done = 0;
	int rc = vf_hops_dst_init(&h, g->nsw);

	for (uint32_t d = 0; !rc && d < g->nsw; d++) {
		if (!lids[d])
			continue;
		if (fail_at && ++done == fail_at) {
			rc = -EIO;
			break;
		}
		vf_hops_to(g, d, &h);
		for (uint32_t s = 0; s < g->nsw; s++) {
			osm_switch_t *sw = sws[s];
			uint8_t *row = sw->hops[lids[d]];

			if (h.dist[s] == VF_HOPS_NONE) {
				if (row)
					memset(row, OSM_NO_PATH, sw->num_ports);
				continue;
			}
			if (!row) {
				row = malloc(sw->num_ports);
				if (!row) {
					rc = -ENOMEM;
					break;
				}
				sw->hops[lids[d]] = row;
			}
			vf_hops_row(g, &h, s, row, sw->num_ports);
		}
	}
	vf_hops_dst_free(&h);
	return rc;
}

/* This thread's CPU time: the work done, on a machine shared or not. */
static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * VFABRIC_TEST_HOPS_FAIL=N: fail at the Nth destination, in the tests'
 * copy of the plugin only (plugin/Makefile.inc, VF_TEST_HOOKS).
 */
static unsigned test_fail_at(void)
{
#ifdef VF_TEST_HOOKS
	const char *v = getenv("VFABRIC_TEST_HOPS_FAIL");

	return v ? (unsigned)strtoul(v, NULL, 10) : 0;
#else
	return 0;
#endif
}

int vf_hop_matrices(struct vf_plugin *p, const char *engine)
{
	osm_subn_t *subn = &p->osm->subn;
	struct vf_hopgraph g;
	osm_switch_t **sws;
	uint16_t *lids = NULL, max_lid = 0;
	uint32_t nsw, links;
	const char *why;
	double t0 = vf_now_ms(), c0 = cpu_ms();
	int rc;

	if (p->opts.opensm_hops)
		return 1;
	if (subn->opt.hop_weights_file) {
		vf_log(VF_LOG_INFO,
		       "%s: hop_weights_file is set: OpenSM builds its min-hop matrices with those weights",
		       engine);
		return 1;
	}
	sws = collect(subn, &nsw, &max_lid, &why);
	if (!sws)
		goto refuse;
	why = "no memory";
	lids = malloc(sizeof(*lids) * nsw);
	rc = lids ? dest_lids(sws, nsw, max_lid, lids) : -ENOMEM;
	if (rc == -EEXIST)
		why = "two switches on one LID";
	if (!rc) {
		rc = build_graph(&g, sws, nsw);
		if (rc && rc != -ENOMEM)
			why = "a link to a switch OpenSM does not list";
	}
	if (rc)
		goto refuse;
	links = g.num_links;
	rc = fill(sws, &g, lids, test_fail_at());
	vf_hopgraph_free(&g);
	if (rc) {
		why = rc == -EIO ? "an injected test failure" :
				   "no memory";
		for (uint32_t s = 0; s < nsw; s++)
			osm_switch_clear_hops(sws[s]);
		goto refuse;
	}
	vf_log(VF_LOG_INFO,
	       "%s: min-hop matrices of %u switches, %u links, built in %.2f ms (CPU %.2f ms; OpenSM's own builder skipped)",
	       engine, nsw, links, vf_now_ms() - t0, cpu_ms() - c0);
	free(lids);
	free(sws);
	return 0;
refuse:
	vf_log(VF_LOG_ERROR,
	       "ERR VF0115: %s: cannot build the min-hop matrices (%s); OpenSM builds them itself",
	       engine, why);
	free(lids);
	free(sws);
	return 1;
}
