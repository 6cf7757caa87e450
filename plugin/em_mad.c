// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The Ethernet Manager's MADs (class 0x3B, docs/ema-protocol.md) through
 * OpenSM's vendor layer, bound on OpenSM's own port.  Binding the class
 * is also what keeps OpenSM alive under ibsim: a MAD of a class nobody
 * registered kills the umad2sim client that receives it, so the EM binds
 * before it tells any endpoint where to send traps.
 *
 * Requests go out in batches (as plugin/ar.c's) and are matched to their
 * answers by TID; everything else that arrives — traps, requests from
 * strangers, malformed MADs — goes to the unsolicited callback, never
 * trusted beyond the length received.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_mad_pool.h>
#include <opensm/osm_opensm.h>
#include <vendor/osm_vendor_api.h>

#include <inttypes.h>
#include <string.h>

#include "plugin/em.h"
#include "plugin/plugin.h"
#include "routing/log.h"

#define EM_WINDOW 16		/* requests in flight */
#define EM_TIMEOUT_MS 1100	/* the endpoints' response time, 1.07 s */
#define EM_RETRIES 1
#define EM_TID_BASE 0xE3000000u	/* low 32 bits: clear of OpenSM's own */

static struct em_req *match(struct em_mad *m, uint32_t tid)
{
	for (unsigned i = 0; m->batch && i < m->batch_len; i++)
		if (m->batch[i].tid == tid &&
		    m->batch[i].state == EM_REQ_SENT)
			return &m->batch[i];
	return NULL;
}

static void recv_cb(osm_madw_t *w, void *ctx, osm_madw_t *req_w)
{
	struct em_mad *m = ctx;
	const uint8_t *mad = (const uint8_t *)osm_madw_get_mad_ptr(w);
	size_t len = w->mad_size < VF_EMA_USED ? w->mad_size : VF_EMA_USED;
	uint16_t slid = cl_ntoh16(w->mad_addr.dest_lid);
	struct em_req *r;

	if (len >= 24 && (mad[3] & 0x80)) {
		uint32_t tid = (uint32_t)cl_ntoh64(
			osm_madw_get_mad_ptr(w)->trans_id);

		pthread_mutex_lock(&m->lock);
		r = match(m, tid);
		if (r) {
			memset(r->resp, 0, sizeof(r->resp));
			memcpy(r->resp, mad, len);
			r->resp_len = len;
			r->status = (uint16_t)(mad[4] << 8 | mad[5]);
			r->state = EM_REQ_DONE;
			pthread_cond_broadcast(&m->cond);
		} else {
			m->stray++;
		}
		pthread_mutex_unlock(&m->lock);
	} else if (m->unsolicited) {
		m->unsolicited(m->ctx, mad, len, slid);
	}
	if (req_w)
		osm_mad_pool_put(&m->p->osm->mad_pool, req_w);
	osm_mad_pool_put(&m->p->osm->mad_pool, w);
}

/* A send that failed, or (under ibsim) bounced: nobody handles the class. */
static void err_cb(void *ctx, osm_madw_t *w)
{
	struct em_mad *m = ctx;
	struct em_req *r;

	pthread_mutex_lock(&m->lock);
	r = match(m, (uint32_t)cl_ntoh64(osm_madw_get_mad_ptr(w)->trans_id));
	if (r && w->status != IB_CANCELED) {
		r->state = EM_REQ_FAILED;
		r->bounced = w->status == IB_TIMEOUT;
		pthread_cond_broadcast(&m->cond);
	}
	pthread_mutex_unlock(&m->lock);
	osm_mad_pool_put(&m->p->osm->mad_pool, w);
}

int em_mad_init(struct em_mad *m, struct vf_plugin *p, em_unsolicited_fn fn,
		void *ctx)
{
	pthread_condattr_t ca;

	memset(m, 0, sizeof(*m));
	m->p = p;
	m->unsolicited = fn;
	m->ctx = ctx;
	pthread_mutex_init(&m->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->cond, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

int em_mad_bind(struct em_mad *m)
{
	osm_bind_info_t bi = {
		.port_guid = m->p->osm->subn.sm_port_guid,
		.mad_class = VF_EMA_CLASS,
		.class_version = VF_EMA_CLASS_VERSION,
		.is_responder = TRUE, .is_trap_processor = TRUE,
		.send_q_size = EM_WINDOW, .recv_q_size = EM_WINDOW,
		.timeout = EM_TIMEOUT_MS, .retries = 1,
	};
	osm_bind_handle_t h;

	if (m->bind)
		return 0;
	if (m->bind_failed)
		return -1;
	h = osm_vendor_bind(m->p->osm->p_vendor, &bi, &m->p->osm->mad_pool,
			    recv_cb, err_cb, m);
	if (h == OSM_BIND_INVALID_HANDLE || !h) {
		m->bind_failed = true;
		vf_log(VF_LOG_ERROR,
		       "ERR VF1201: em: cannot bind management class 0x%02x on port 0x%016" PRIx64 "; VNIC endpoints are not configured",
		       VF_EMA_CLASS, cl_ntoh64(bi.port_guid));
		return -1;
	}
	m->bind = h;
	vf_log(VF_LOG_INFO,
	       "em: bound management class 0x%02x on port 0x%016" PRIx64,
	       VF_EMA_CLASS, cl_ntoh64(bi.port_guid));
	return 0;
}

static osm_madw_t *new_madw(struct em_mad *m, uint16_t dlid)
{
	osm_mad_addr_t addr;

	memset(&addr, 0, sizeof(addr));
	addr.dest_lid = cl_hton16(dlid);
	addr.addr_type.gsi.remote_qp = CL_HTON32(1);
	addr.addr_type.gsi.remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	return osm_mad_pool_get(&m->p->osm->mad_pool, m->bind, MAD_BLOCK_SIZE,
				&addr);
}

/* Send r (a new TID each try).  Called without m->lock. */
static void send_req(struct em_mad *m, struct em_req *r)
{
	osm_madw_t *w = new_madw(m, r->lid);

	if (!w) {
		pthread_mutex_lock(&m->lock);
		r->state = EM_REQ_FAILED;
		pthread_mutex_unlock(&m->lock);
		return;
	}
	memcpy(osm_madw_get_mad_ptr(w), r->mad, VF_EMA_MAD_SIZE);
	osm_madw_get_mad_ptr(w)->trans_id = cl_hton64((uint64_t)r->tid);
	m->sent++;
	/* on failure the vendor calls err_cb, which marks r */
	osm_vendor_send(m->bind, w, TRUE);
}

void em_mad_reject(struct em_mad *m, const uint8_t *mad, size_t len,
		   uint16_t dlid, uint16_t status)
{
	osm_madw_t *w;
	uint8_t *out;

	if (!m->bind || len < 24 || !dlid)
		return;
	w = new_madw(m, dlid);
	if (!w)
		return;
	out = (uint8_t *)osm_madw_get_mad_ptr(w);
	memset(out, 0, MAD_BLOCK_SIZE);
	memcpy(out, mad, len < VF_EMA_DATA ? len : VF_EMA_DATA);
	out[3] = VF_EMA_GET_RESP;
	out[4] = (uint8_t)(status >> 8);
	out[5] = (uint8_t)status;
	osm_vendor_send(m->bind, w, FALSE);
}

static uint32_t new_tid(struct em_mad *m)
{
	return EM_TID_BASE | (m->next_tid++ & 0xffffff);
}

void em_mad_run(struct em_mad *m, struct em_req *r, unsigned n,
		uint64_t end)
{
	struct em_req *out[EM_WINDOW];
	unsigned next = 0;

	if (!m->bind) {
		for (unsigned i = 0; i < n; i++)
			r[i].state = EM_REQ_FAILED;
		return;
	}
	pthread_mutex_lock(&m->lock);
	m->batch = r;
	m->batch_len = n;
	for (;;) {
		uint64_t now = (uint64_t)vf_now_ms(), wake = end;
		unsigned inflight = 0, nout = 0, open = 0;
		struct timespec ts;

		for (unsigned i = 0; i < next; i++) {
			if (r[i].state != EM_REQ_SENT)
				continue;
			if (r[i].deadline <= now) {
				if (r[i].tries > EM_RETRIES || now >= end) {
					r[i].state = EM_REQ_FAILED;
					continue;
				}
				r[i].tid = new_tid(m);	/* late answers: stray */
				r[i].tries++;
				r[i].deadline = now + EM_TIMEOUT_MS;
				out[nout++] = &r[i];
			}
			inflight++;
		}
		while (next < n && inflight < EM_WINDOW && now < end &&
		       nout < EM_WINDOW) {
			r[next].tid = new_tid(m);
			r[next].tries = 1;
			r[next].deadline = now + EM_TIMEOUT_MS;
			r[next].state = EM_REQ_SENT;
			out[nout++] = &r[next++];
			inflight++;
		}
		for (unsigned i = 0; i < n; i++) {
			if (r[i].state == EM_REQ_SENT ||
			    (i >= next && now < end))
				open++;
			if (r[i].state == EM_REQ_SENT && r[i].deadline < wake)
				wake = r[i].deadline;
		}
		if (!open)
			break;
		if (nout) {
			pthread_mutex_unlock(&m->lock);
			for (unsigned i = 0; i < nout; i++)
				send_req(m, out[i]);
			pthread_mutex_lock(&m->lock);
			continue;
		}
		ts.tv_sec = (time_t)(wake / 1000);
		ts.tv_nsec = (long)(wake % 1000) * 1000000;
		pthread_cond_timedwait(&m->cond, &m->lock, &ts);
	}
	for (unsigned i = 0; i < n; i++)
		if (r[i].state != EM_REQ_DONE)
			r[i].state = EM_REQ_FAILED;
	m->batch = NULL;
	m->batch_len = 0;
	pthread_mutex_unlock(&m->lock);
}

void em_mad_fini(struct em_mad *m)
{
	/* late answers then go to the vendor's dummy callbacks */
	if (m->bind)
		osm_vendor_unbind(m->bind);
	m->bind = NULL;
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
}
