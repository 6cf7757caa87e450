// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Policy applied when its file changes, without waiting for SIGHUP or a
 * fabric change: a thread looks at the configuration file every
 * config_poll seconds and, when it changed (an edit, or a new file moved
 * into place), asks OpenSM for a heavy sweep, the same request SIGHUP
 * makes.  It asks too when OpenSM has read the NodeDescription of a node
 * a sweep had none for (plugin/nodedesc.c), to place it in its
 * DeviceGroups, and when the sweep found the file still being written
 * (config_settle) and wants another look once it has settled.  The sweep
 * itself re-reads and applies the file, in the sweeper thread, as always;
 * this thread only watches.  It looks with stat() only: nothing at the
 * path (a FIFO...) can block it.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "plugin/plugin.h"
#include "common/log.h"

struct vf_watch {
	struct vf_plugin *p;
	char *path;
	unsigned seconds;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	struct stat last;
	bool seen;
};

static bool differs(const struct stat *a, const struct stat *b)
{
	return a->st_mtim.tv_sec != b->st_mtim.tv_sec ||
	       a->st_mtim.tv_nsec != b->st_mtim.tv_nsec ||
	       a->st_size != b->st_size || a->st_ino != b->st_ino;
}

/*
 * One look: true when what is at the path changed since the last one (a
 * deletion, a directory or a FIFO put there too: the sweep says so once).
 */
static bool changed(struct vf_watch *w)
{
	struct stat st;

	if (stat(w->path, &st))
		memset(&st, 0, sizeof(st));
	if (w->seen && !differs(&st, &w->last) &&
	    st.st_mode == w->last.st_mode)
		return false;
	w->last = st;
	if (!w->seen) {
		w->seen = true;
		return false;
	}
	return true;
}

/* A retry the sweeper asked for, now due?  Takes it. */
/* Is the time in *when (vf_now_ms, 0: none) here?  Then take it. */
static bool due(int64_t *when)
{
	int64_t at = __atomic_load_n(when, __ATOMIC_ACQUIRE);

	if (!at || vf_now_ms() < (double)at)
		return false;
	return __atomic_compare_exchange_n(when, &at, 0, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static void *watch(void *arg)
{
	struct vf_watch *w = arg;
	struct timespec until;
	unsigned ticks = 0;

	pthread_mutex_lock(&w->lock);
	changed(w);
	while (!w->stop) {
		/* a tick a second: the poll every config_poll of them */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&w->wake, &w->lock, &until);
		if (w->stop)
			continue;
		if (w->seconds && ++ticks >= w->seconds) {
			ticks = 0;
			if (changed(w)) {
				vf_log(VF_LOG_INFO,
				       "%s changed: asking for a heavy sweep",
				       w->path);
				goto sweep;
			}
			if (vf_node_descs_arrived(w->p->descs, w->p->osm))
				goto sweep;
		}
		if (due(&w->p->ar_sweep_ms)) {
			vf_log(VF_LOG_INFO,
			       "adaptive routing: an AR_Key lease has run out: asking for a heavy sweep to program that switch");
			goto sweep;
		}
		if (!due(&w->p->config_retry_ms))
			continue;
		vf_log(VF_LOG_INFO, "%s: another look, as it was changing",
		       w->path);
sweep:
		/* what OpenSM's SIGHUP handling does */
		w->p->osm->subn.force_heavy_sweep = TRUE;
		osm_sm_sweep(&w->p->osm->sm);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int vf_watch_start(struct vf_plugin *p)
{
	const char *path = vf_plugin_config_source(p);
	struct vf_watch *w;

	/* with config_poll=0 it only takes the sweeper's retries */
	if (!path)
		return 0;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path))) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0809: cannot start watching %s (out of memory); changes apply on SIGHUP and fabric changes only",
		       path);
		free(w);
		return -ENOMEM;
	}
	w->p = p;
	w->seconds = p->opts.config_poll;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	if (pthread_create(&w->thread, NULL, watch, w)) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0809: cannot start watching %s; changes apply on SIGHUP and fabric changes only",
		       path);
		free(w->path);
		free(w);
		return -EAGAIN;
	}
	p->watch = w;
	return 0;
}

void vf_watch_stop(struct vf_plugin *p)
{
	struct vf_watch *w = p->watch;

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w->path);
	free(w);
	p->watch = NULL;
}
