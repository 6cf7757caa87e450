// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * What one requester can make the SA do: under a vFabric policy the
 * plugin builds PathRecord and MultiPathRecord answers itself, and one
 * GetTable with an empty component mask asks for every path of the
 * fabric (up to 65,536 records, 4 MiB, tens of ms of a dispatcher
 * thread; from any host, as often as it likes).  Each requester port, by
 * the source LID the fabric put on its request, may have at most
 * sa_record_budget records built per second; a request that comes when
 * its port's budget for this second is spent is answered BUSY (IBA
 * 13.4.7: discarded, try again later) before anything is built.  An
 * answer already started is finished, so a port gets at most its budget
 * plus one answer a second.  sa_record_budget=0 turns the limit off.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_helper.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_sa.h>

#include <stdlib.h>
#include <time.h>

#include "plugin/plugin.h"
#include "plugin/sa.h"
#include "common/log.h"

#define NUM_LIDS 0xc000		/* unicast LIDs; others share slot 0 */

struct vf_sa_budget {
	pthread_mutex_t lock;
	uint32_t second[NUM_LIDS];	/* the second used[] counts in */
	uint32_t used[NUM_LIDS];
	unsigned long refused;
};

static uint32_t now_second(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)ts.tv_sec;
}

/* Under b->lock: the records counted for slot s in this second. */
static uint32_t *used_now(struct vf_sa_budget *b, unsigned s)
{
	uint32_t now = now_second();

	if (b->second[s] != now) {
		b->second[s] = now;
		b->used[s] = 0;
	}
	return &b->used[s];
}

static unsigned slot(const osm_madw_t *madw)
{
	unsigned lid = cl_ntoh16(osm_madw_get_mad_addr_ptr(madw)->dest_lid);

	return lid < NUM_LIDS ? lid : 0;
}

int vf_sa_budget_init(struct vf_plugin *p)
{
	struct vf_sa_budget *b;

	if (!p->opts.sa_record_budget)
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -1;
	pthread_mutex_init(&b->lock, NULL);
	p->sa.budget = b;
	return 0;
}

void vf_sa_budget_free(struct vf_plugin *p)
{
	struct vf_sa_budget *b = p->sa.budget;

	if (!b)
		return;
	pthread_mutex_destroy(&b->lock);
	free(b);
	p->sa.budget = NULL;
}

bool vf_sa_budget_refused(struct vf_plugin *p, struct osm_madw *madw)
{
	struct vf_sa_budget *b = p->sa.budget;
	unsigned s = slot(madw), used;
	unsigned long n;

	if (!b)
		return false;
	pthread_mutex_lock(&b->lock);
	used = *used_now(b, s);
	n = used >= p->opts.sa_record_budget ? ++b->refused : 0;
	pthread_mutex_unlock(&b->lock);
	if (!n)
		return false;
	if (!(n & (n - 1)))
		vf_log(VF_LOG_WARN,
		       "sa: %s from LID %u answered BUSY: %u records built for that port this second, over sa_record_budget=%u; %lu refused so far",
		       ib_get_sa_attr_str(osm_madw_get_sa_mad_ptr(madw)->attr_id),
		       s, used, p->opts.sa_record_budget, n);
	vf_sa_send_error(p, madw, IB_MAD_STATUS_BUSY, VF_SA_REASON_BY_STATUS);
	return true;
}

void vf_sa_budget_charge(struct vf_plugin *p, struct osm_madw *madw,
			 unsigned records)
{
	struct vf_sa_budget *b = p->sa.budget;
	uint32_t *used;

	if (!b || !records)
		return;
	pthread_mutex_lock(&b->lock);
	used = used_now(b, slot(madw));
	*used = *used > UINT32_MAX - records ? UINT32_MAX : *used + records;
	pthread_mutex_unlock(&b->lock);
}
