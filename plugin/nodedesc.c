// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The last NodeDescription seen for each node GUID.  OpenSM asks a node
 * for its description only when it first finds it; if that one MAD is
 * lost (a port dropping MADs, a link flapping), the node stays
 * "<unknown>" until a light sweep asks again, and a heavy sweep in
 * between would resolve DeviceGroups by NodeDesc without it: the host
 * would lose every partition but the default one until the next heavy
 * sweep, which may never come.  So the fabric model takes the last known
 * description of that GUID instead.  A node never seen before has none:
 * it is left out of the DeviceGroups, and once OpenSM has read its
 * description (a light sweep asks again) the config_poll thread asks for
 * the heavy sweep that plans it (vf_node_descs_arrived()).  Several
 * threads build models (the sweeper, the EM): one lock.  A GUID once
 * seen is kept (72 bytes each), so a node that leaves and comes back
 * without its description still has it.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_subnet.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/plugin.h"

struct vf_node_descs {
	pthread_mutex_t lock;
	struct vf_node_desc *v;		/* sorted by GUID */
	size_t n;
	uint64_t *waiting;		/* GUIDs without any description */
	size_t nwaiting, capwaiting;
};

static int cmp_desc(const void *a, const void *b)
{
	const struct vf_node_desc *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

struct vf_node_descs *vf_node_descs_create(void)
{
	struct vf_node_descs *d = calloc(1, sizeof(*d));

	if (d)
		pthread_mutex_init(&d->lock, NULL);
	return d;
}

void vf_node_descs_destroy(struct vf_node_descs *d)
{
	if (!d)
		return;
	pthread_mutex_destroy(&d->lock);
	free(d->v);
	free(d->waiting);
	free(d);
}

bool vf_node_descs_lookup(struct vf_node_descs *d, uint64_t guid,
			  char out[VF_DESC_LEN + 1])
{
	struct vf_node_desc key = { .guid = guid }, *hit;

	if (!d)
		return false;
	pthread_mutex_lock(&d->lock);
	hit = d->n ? bsearch(&key, d->v, d->n, sizeof(*d->v), cmp_desc) :
		     NULL;
	if (hit)
		memcpy(out, hit->desc, VF_DESC_LEN + 1);
	pthread_mutex_unlock(&d->lock);
	return hit;
}

/*
 * Remember seen[0..n) (replacing older descriptions of those GUIDs) and
 * keep what is remembered of GUIDs not seen now (a switch removed comes
 * back with the same GUID).  Takes seen over (sorts it, frees it).
 */
void vf_node_descs_remember(struct vf_node_descs *d, struct vf_node_desc *seen,
			    size_t n)
{
	struct vf_node_desc *v;
	size_t k = n;

	if (!d) {
		free(seen);
		return;
	}
	qsort(seen, n, sizeof(*seen), cmp_desc);
	pthread_mutex_lock(&d->lock);
	v = realloc(seen, (n + d->n + 1) * sizeof(*v));
	if (!v) {
		pthread_mutex_unlock(&d->lock);
		free(seen);
		return;
	}
	for (size_t i = 0; i < d->n; i++)
		if (!n || !bsearch(&d->v[i], v, n, sizeof(*v), cmp_desc))
			v[k++] = d->v[i];
	qsort(v, k, sizeof(*v), cmp_desc);
	free(d->v);
	d->v = v;
	d->n = k;
	pthread_mutex_unlock(&d->lock);
}

/* A model has no description at all for this GUID: wait for one. */
void vf_node_descs_wait(struct vf_node_descs *d, uint64_t guid)
{
	uint64_t *v;

	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	for (size_t i = 0; i < d->nwaiting; i++)
		if (d->waiting[i] == guid)
			goto out;
	if (d->nwaiting == d->capwaiting) {
		size_t cap = d->capwaiting ? 2 * d->capwaiting : 8;

		v = realloc(d->waiting, cap * sizeof(*v));
		if (!v)
			goto out;
		d->waiting = v;
		d->capwaiting = cap;
	}
	d->waiting[d->nwaiting++] = guid;
out:
	pthread_mutex_unlock(&d->lock);
}

/*
 * Has OpenSM meanwhile read the description of a node a model had none
 * for?  Then that node's partitions need a heavy sweep: true, once per
 * node.  Nodes OpenSM no longer has are forgotten.  Not from report():
 * takes OpenSM's lock, never while holding ours (the sweeper takes ours
 * under OpenSM's).
 */
bool vf_node_descs_arrived(struct vf_node_descs *d, struct osm_opensm *osm)
{
	uint64_t *guids = NULL;
	uint8_t *done = NULL;
	bool arrived = false;
	size_t n, k;

	if (!d)
		return false;
	pthread_mutex_lock(&d->lock);
	n = d->nwaiting;
	if (n && (guids = malloc(n * sizeof(*guids))))
		memcpy(guids, d->waiting, n * sizeof(*guids));
	pthread_mutex_unlock(&d->lock);
	if (!guids || !(done = calloc(n, 1)))
		goto out;
	cl_plock_acquire(&osm->lock);
	for (size_t i = 0; i < n; i++) {
		osm_node_t *node = osm_get_node_by_guid(&osm->subn,
							cl_hton64(guids[i]));

		if (node && (!node->print_desc ||
			     !strcmp(node->print_desc, OSM_NODE_DESC_UNKNOWN)))
			continue;
		done[i] = 1;
		if (!node)
			continue;
		vf_log(VF_LOG_INFO,
		       "node 0x%016llx: OpenSM has its NodeDescription now, '%s': asking for a heavy sweep",
		       (unsigned long long)guids[i], node->print_desc);
		arrived = true;
	}
	cl_plock_release(&osm->lock);
	/* forget those done; a build may have added others meanwhile */
	pthread_mutex_lock(&d->lock);
	k = 0;
	for (size_t i = 0; i < d->nwaiting; i++) {
		bool drop = false;

		for (size_t j = 0; j < n && !drop; j++)
			drop = done[j] && guids[j] == d->waiting[i];
		if (!drop)
			d->waiting[k++] = d->waiting[i];
	}
	d->nwaiting = k;
	pthread_mutex_unlock(&d->lock);
out:
	free(done);
	free(guids);
	return arrived;
}
