// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Batches of MADs of one class through OpenSM's vendor layer
 * (plugin/madbatch.h).  Requests are matched to their answers by TID;
 * everything else that arrives — traps, requests from strangers,
 * malformed MADs — goes to the unsolicited callback, never trusted beyond
 * the length received.  The vendor callbacks run in OpenSM's umad
 * receiver thread.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_mad_pool.h>
#include <opensm/osm_opensm.h>
#include <vendor/osm_vendor_api.h>

#include <string.h>

#include "plugin/madbatch.h"
#include "plugin/plugin.h"

#define MB_GET_RESP 0x81	/* the method of an answer to a Get */

static struct mb_req *match(struct madbatch *m, uint32_t tid)
{
	for (unsigned i = 0; m->batch && i < m->batch_len; i++)
		if (m->batch[i].tid == tid && m->batch[i].state == MB_SENT)
			return &m->batch[i];
	return NULL;
}

static void recv_cb(osm_madw_t *w, void *ctx, osm_madw_t *req_w)
{
	struct madbatch *m = ctx;
	const uint8_t *mad = (const uint8_t *)osm_madw_get_mad_ptr(w);
	size_t len = w->mad_size < m->par.used ? w->mad_size : m->par.used;
	uint16_t slid = cl_ntoh16(w->mad_addr.dest_lid);
	struct mb_req *r;

	if (len >= 24 && (mad[3] & 0x80)) {	/* an answer */
		uint32_t tid = (uint32_t)cl_ntoh64(
			osm_madw_get_mad_ptr(w)->trans_id);

		pthread_mutex_lock(&m->lock);
		r = match(m, tid);
		if (r) {	/* else late, to an old TID: dropped */
			memset(r->resp, 0, sizeof(r->resp));
			memcpy(r->resp, mad, len);
			r->resp_len = len;
			r->status = (uint16_t)(mad[4] << 8 | mad[5]);
			r->state = MB_DONE;
			pthread_cond_broadcast(&m->cond);
		}
		pthread_mutex_unlock(&m->lock);
	} else if (m->par.unsolicited) {
		m->par.unsolicited(m->par.ctx, mad, len, slid);
	}
	if (req_w)
		osm_mad_pool_put(&m->p->osm->mad_pool, req_w);
	osm_mad_pool_put(&m->p->osm->mad_pool, w);
}

/* A send that failed, or (under ibsim) bounced: nobody handles the class. */
static void err_cb(void *ctx, osm_madw_t *w)
{
	struct madbatch *m = ctx;
	struct mb_req *r;

	pthread_mutex_lock(&m->lock);
	r = match(m, (uint32_t)cl_ntoh64(osm_madw_get_mad_ptr(w)->trans_id));
	if (r && w->status != IB_CANCELED) {
		r->state = MB_FAILED;
		r->bounced = w->status == IB_TIMEOUT;
		pthread_cond_broadcast(&m->cond);
	}
	pthread_mutex_unlock(&m->lock);
	osm_mad_pool_put(&m->p->osm->mad_pool, w);
}

void mb_init(struct madbatch *m, struct vf_plugin *p,
	     const struct mb_params *par)
{
	pthread_condattr_t ca;

	memset(m, 0, sizeof(*m));
	m->p = p;
	m->par = *par;
	if (m->par.window > MB_MAX_WINDOW)
		m->par.window = MB_MAX_WINDOW;
	if (m->par.used > MB_USED)
		m->par.used = MB_USED;
	pthread_mutex_init(&m->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->cond, &ca);
	pthread_condattr_destroy(&ca);
}

enum mb_bind mb_bind(struct madbatch *m)
{
	osm_bind_info_t bi = {
		.port_guid = m->p->osm->subn.sm_port_guid,
		.mad_class = m->par.mgmt_class,
		.class_version = m->par.class_version,
		.is_responder = m->par.responder,
		.is_trap_processor = m->par.responder,
		.send_q_size = m->par.window, .recv_q_size = m->par.window,
		.timeout = m->par.timeout_ms, .retries = 1,
	};
	osm_bind_handle_t h;

	if (m->bind)
		return MB_BOUND;
	if (m->bind_failed)
		return MB_BIND_FAILED;
	h = osm_vendor_bind(m->p->osm->p_vendor, &bi, &m->p->osm->mad_pool,
			    recv_cb, err_cb, m);
	if (h == OSM_BIND_INVALID_HANDLE || !h) {
		m->bind_failed = true;
		return MB_BIND_FAILED_NOW;
	}
	m->bind = h;
	return MB_BOUND_NOW;
}

static osm_madw_t *new_madw(struct madbatch *m, uint16_t dlid)
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
static void send_req(struct madbatch *m, struct mb_req *r)
{
	osm_madw_t *w = new_madw(m, r->lid);

	if (!w) {
		pthread_mutex_lock(&m->lock);
		r->state = MB_FAILED;
		pthread_mutex_unlock(&m->lock);
		return;
	}
	memcpy(osm_madw_get_mad_ptr(w), r->mad, MB_MAD_SIZE);
	osm_madw_get_mad_ptr(w)->trans_id = cl_hton64((uint64_t)r->tid);
	/* on failure the vendor calls err_cb, which marks r */
	osm_vendor_send(m->bind, w, TRUE);
}

void mb_reject(struct madbatch *m, const uint8_t *mad, size_t len,
	       size_t keep, uint16_t dlid, uint16_t status)
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
	memcpy(out, mad, len < keep ? len : keep);
	out[3] = MB_GET_RESP;
	out[4] = (uint8_t)(status >> 8);
	out[5] = (uint8_t)status;
	osm_vendor_send(m->bind, w, FALSE);
}

static uint32_t new_tid(struct madbatch *m)
{
	return m->par.tid_base | (m->next_tid++ & 0xffffff);
}

void mb_run(struct madbatch *m, struct mb_req *r, unsigned n, uint64_t end)
{
	struct mb_req *out[MB_MAX_WINDOW];
	unsigned next = 0, window = m->par.window;

	if (!m->bind) {
		for (unsigned i = 0; i < n; i++)
			r[i].state = MB_FAILED;
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
			if (r[i].state != MB_SENT)
				continue;
			if (r[i].deadline <= now) {
				if (r[i].tries > m->par.retries || now >= end) {
					r[i].state = MB_FAILED;
					continue;
				}
				r[i].tid = new_tid(m);	/* late answers: dropped */
				r[i].tries++;
				r[i].deadline = now + m->par.timeout_ms;
				out[nout++] = &r[i];
			}
			inflight++;
		}
		while (next < n && inflight < window && now < end &&
		       nout < window) {
			r[next].tid = new_tid(m);
			r[next].tries = 1;
			r[next].deadline = now + m->par.timeout_ms;
			r[next].state = MB_SENT;
			out[nout++] = &r[next++];
			inflight++;
		}
		for (unsigned i = 0; i < n; i++) {
			if (r[i].state == MB_SENT || (i >= next && now < end))
				open++;
			if (r[i].state == MB_SENT && r[i].deadline < wake)
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
		if (r[i].state != MB_DONE)
			r[i].state = MB_FAILED;
	m->batch = NULL;
	m->batch_len = 0;
	pthread_mutex_unlock(&m->lock);
}

/*
 * Take back our requests still pending in the vendor's match table (its
 * public struct, vendor/osm_vendor_ibumad.h).  After unbind no callback
 * returns them to the pool, and OpenSM 3.3.23's osm_vendor_delete()
 * returns only the first pending MAD (clear_madw()): every other one
 * leaked at exit.  Under ibsim a request nobody answers is pending until
 * then, as umad2sim emulates no MAD timeouts.  The receiver takes an
 * entry out under the same mutex (get_madw()), so an entry is either
 * still here and ours to free, or already taken: never both; a late
 * answer to a request cleared here is dropped as unmatched.
 */
static void reclaim_pending(struct madbatch *m)
{
#ifdef OSM_VENDOR_INTF_OPENIB
	osm_vendor_t *v = m->p->osm->p_vendor;
	umad_match_t *e;
	unsigned n = 0;

	if (!v || !v->mtbl.tbl)
		return;
	pthread_mutex_lock(&v->match_tbl_mutex);
	for (e = v->mtbl.tbl; e < v->mtbl.tbl + v->mtbl.max; e++) {
		osm_madw_t *w = e->v;

		if (!e->tid || !w || w->h_bind != m->bind)
			continue;
		e->tid = 0;
		osm_mad_pool_put(&m->p->osm->mad_pool, w);
		n++;
	}
	pthread_mutex_unlock(&v->match_tbl_mutex);
	if (n)
		vf_log(VF_LOG_DEBUG, "class 0x%02x: %u unanswered requests "
		       "taken back at unbind", m->par.mgmt_class, n);
#endif
}

void mb_fini(struct madbatch *m)
{
	/* late answers then go to the vendor's dummy callbacks */
	if (m->bind) {
		osm_vendor_unbind(m->bind);
		reclaim_pending(m);
	}
	m->bind = NULL;
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
}
