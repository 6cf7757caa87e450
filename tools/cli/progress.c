// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* The CLI's progress line on a terminal.  See progress.h. */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "tools/cli/progress.h"

#define TICK_NS 200000000L	/* redraw every 0.2 s */
#define FIRST_DRAW 0.5		/* seconds before the line first shows */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t ticker;
	bool enabled, running, stop, drawn;
	bool paused;		/* vf_progress_pause(): not drawn */
	double first_draw;	/* seconds before the line first shows */
	char phase[160];
	char detail[128];	/* where the engine is (vf_log_progress) */
	struct timespec start, phase_start;
} pg = { .lock = PTHREAD_MUTEX_INITIALIZER,
	 .wake = PTHREAD_COND_INITIALIZER };

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Under pg.lock. */
static void erase(void)
{
	if (!pg.drawn)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	pg.drawn = false;
}

static unsigned columns(void)
{
	struct winsize ws;

	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 20)
		return ws.ws_col;
	return 80;
}

/* Under pg.lock: the line, cut to the terminal's width. */
static void draw(void)
{
	char line[256];
	int n;

	if (!pg.phase[0] || pg.paused || since(&pg.start) < pg.first_draw)
		return;
	n = snprintf(line, sizeof(line), "vfabric: %s: %.1f s%s%s", pg.phase,
		     since(&pg.phase_start), pg.detail[0] ? ", " : "",
		     pg.detail);
	if (n < 0)
		return;
	if ((unsigned)n >= columns())
		line[columns() - 1] = '\0';
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	pg.drawn = true;
}

static void *tick(void *arg)
{
	struct timespec until;

	(void)arg;
	pthread_mutex_lock(&pg.lock);
	while (!pg.stop) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += TICK_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&pg.wake, &pg.lock, &until);
		if (!pg.stop)
			draw();
	}
	erase();
	pthread_mutex_unlock(&pg.lock);
	return NULL;
}

void vf_progress_log_sink(void *ctx, enum vf_log_level level,
			  const char *msg)
{
	static const char *const names[] = { "error", "warning", "info",
					     "debug" };

	(void)ctx;
	vf_progress_hold();
	fprintf(stderr, "vfabric: %s: %s\n", names[level], msg);
	vf_progress_release();
}

/* An engine's step, shown after the phase until the next phase. */
static void engine_step(const char *where)
{
	pthread_mutex_lock(&pg.lock);
	snprintf(pg.detail, sizeof(pg.detail), "%s", where);
	pthread_mutex_unlock(&pg.lock);
}

void vf_progress_setup(enum vf_progress_mode mode)
{
	pg.enabled = mode == VF_PROGRESS_ON ||
		     (mode == VF_PROGRESS_AUTO && isatty(STDERR_FILENO));
	/* asked for: from the start */
	pg.first_draw = mode == VF_PROGRESS_ON ? 0 : FIRST_DRAW;
	clock_gettime(CLOCK_MONOTONIC, &pg.start);
	if (pg.enabled)
		vf_log_set_progress(engine_step);
}

void vf_progress(const char *fmt, ...)
{
	va_list ap;

	if (!pg.enabled)
		return;
	pthread_mutex_lock(&pg.lock);
	va_start(ap, fmt);
	vsnprintf(pg.phase, sizeof(pg.phase), fmt, ap);
	va_end(ap);
	pg.detail[0] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &pg.phase_start);
	if (!pg.running && !pthread_create(&pg.ticker, NULL, tick, NULL))
		pg.running = true;
	draw();
	pthread_mutex_unlock(&pg.lock);
}

void vf_progress_hold(void)
{
	pthread_mutex_lock(&pg.lock);
	erase();
}

void vf_progress_release(void)
{
	pthread_mutex_unlock(&pg.lock);
}

void vf_progress_pause(bool pause)
{
	pthread_mutex_lock(&pg.lock);
	pg.paused = pause;
	if (pause)
		erase();
	pthread_mutex_unlock(&pg.lock);
}

void vf_progress_end(void)
{
	if (!pg.enabled)
		return;
	pthread_mutex_lock(&pg.lock);
	pg.stop = true;
	pthread_cond_signal(&pg.wake);
	pthread_mutex_unlock(&pg.lock);
	if (pg.running)
		pthread_join(pg.ticker, NULL);
	pg.running = false;
	pg.enabled = false;
	vf_log_set_progress(NULL);
	pg.phase[0] = '\0';
	erase();
}
