// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Policy applied when its file changes, without waiting for SIGHUP or a
 * fabric change: a thread looks at the configuration file every
 * config_poll seconds and, when it changed (an edit, or a new file moved
 * into place), asks OpenSM for a heavy sweep, the same request SIGHUP
 * makes.  It asks too when OpenSM has read the NodeDescription of a node
 * a sweep had none for (plugin/nodedesc.c), to place it in its
 * DeviceGroups.  The sweep itself re-reads and applies the file, in the
 * sweeper thread, as always; this thread only watches.
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
#include "routing/log.h"

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

/* One look: true when the file changed since the last one. */
static bool changed(struct vf_watch *w)
{
	struct stat st;

	if (stat(w->path, &st)) {
		/* missing: the sweep reports it if need be; when the file
		 * appears later, that is a change */
		if (!w->seen)
			memset(&w->last, 0, sizeof(w->last));
		w->seen = true;
		return false;
	}
	if (w->seen && !differs(&st, &w->last))
		return false;
	w->last = st;
	if (!w->seen) {
		w->seen = true;
		return false;
	}
	return true;
}

static void *watch(void *arg)
{
	struct vf_watch *w = arg;
	struct timespec until;

	pthread_mutex_lock(&w->lock);
	changed(w);
	while (!w->stop) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += w->seconds;
		pthread_cond_timedwait(&w->wake, &w->lock, &until);
		if (w->stop)
			continue;
		if (changed(w))
			vf_log(VF_LOG_INFO,
			       "%s changed: asking for a heavy sweep", w->path);
		else if (!vf_node_descs_arrived(w->p->descs, w->p->osm))
			continue;
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

	if (!path || !p->opts.config_poll)
		return 0;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path))) {
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
