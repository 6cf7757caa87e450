/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Batches of asynchronous MADs of one management class, bound on OpenSM's
 * own port: at most a window in flight, answers matched by TID, each
 * request retried with a new TID after the class's timeout, the batch
 * bounded by a deadline.  Used by adaptive routing (plugin/ar_program.c, class
 * 0x0A) and the Ethernet Manager (plugin/em.c, class 0x3B).
 * Include after <opensm/osm_config.h>.
 */
#ifndef VF_PLUGIN_MADBATCH_H
#define VF_PLUGIN_MADBATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vf_plugin;

#define MB_MAD_SIZE 256		/* a MAD as sent */
#define MB_USED 224		/* room for an answer: the larger class's */
#define MB_MAX_WINDOW 64

enum mb_state { MB_QUEUED, MB_SENT, MB_DONE, MB_FAILED };

/* One request of a batch and its answer. */
struct mb_req {
	uint16_t lid;			/* destination */
	/* the caller's, to read the answer: */
	void *owner;			/* AR: its switch */
	unsigned ep, vport, member;	/* EM: what it is about */
	int step;			/* EM: which request */
	uint8_t mad[MB_MAD_SIZE];
	uint8_t resp[MB_USED];
	size_t resp_len;
	uint32_t tid;
	uint64_t deadline;
	unsigned tries;
	enum mb_state state;
	uint16_t status;		/* the answer's MAD status */
	bool bounced;			/* nobody handles the class there */
};

/*
 * An unsolicited MAD that reached OpenSM's port (a Trap, or any request):
 * called in the vendor's receiver thread with the first len bytes and the
 * sender's LID.
 */
typedef void (*mb_unsolicited_fn)(void *ctx, const uint8_t *mad, size_t len,
				  uint16_t slid);

/* What differs between the classes. */
struct mb_params {
	uint8_t mgmt_class, class_version;
	bool responder;			/* takes requests and traps too */
	unsigned window;		/* requests in flight, <= MB_MAX_WINDOW */
	unsigned timeout_ms, retries;	/* per request */
	uint32_t tid_base;		/* low 32 bits: clear of OpenSM's own */
	size_t used;			/* answer bytes kept, <= MB_USED */
	mb_unsolicited_fn unsolicited;	/* or NULL: such MADs are dropped */
	void *ctx;
};

struct madbatch {
	struct vf_plugin *p;
	struct mb_params par;
	void *bind;			/* osm_bind_handle_t */
	bool bind_failed;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct mb_req *batch;		/* in flight, under lock */
	unsigned batch_len;
	uint32_t next_tid;
};

void mb_init(struct madbatch *m, struct vf_plugin *p,
	     const struct mb_params *par);

/* mb_bind's outcome: the callers log the first one in their own words. */
enum mb_bind { MB_BOUND_NOW, MB_BOUND, MB_BIND_FAILED_NOW, MB_BIND_FAILED };

/* Bind the class on OpenSM's port, once (a failure is not retried). */
enum mb_bind mb_bind(struct madbatch *m);
/*
 * Send r[0..n) and wait for the answers until end_ms on vf_now_ms()'s
 * clock; what is not answered ends MB_FAILED.  One batch at a time.
 */
void mb_run(struct madbatch *m, struct mb_req *r, unsigned n,
	    uint64_t end_ms);
/*
 * Answer an unsolicited request: its first `keep` bytes back, method
 * GetResp, with status.
 */
void mb_reject(struct madbatch *m, const uint8_t *mad, size_t len,
	       size_t keep, uint16_t dlid, uint16_t status);
void mb_fini(struct madbatch *m);

static inline bool mb_answered(const struct mb_req *r)
{
	return r->state == MB_DONE && !r->status;
}

#endif /* VF_PLUGIN_MADBATCH_H */
