// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The stderr line filter of sim/errfilter.h: a pipe in place of fd 2 and
 * a detached thread that forwards it line by line to the old fd 2.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/errfilter.h"

#define LINE_MAX_LEN 1024

struct filter {
	int in, out;			/* the pipe's end, the real stderr */
	const char *line;
	volatile uint64_t *dropped;
};

static struct filter flt;

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0 && errno != EINTR)
			return;
		if (w > 0) {
			p += w;
			n -= (size_t)w;
		}
	}
}

/* One complete line (with its newline, n bytes): dropped or passed. */
static void one_line(const char *p, size_t n)
{
	size_t len = strlen(flt.line);

	if (n == len + 1 && !memcmp(p, flt.line, len)) {
		__atomic_add_fetch(flt.dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	write_all(flt.out, p, n);
}

static void *run(void *arg)
{
	char buf[LINE_MAX_LEN];
	size_t have = 0;

	for (;;) {
		ssize_t n = read(flt.in, buf + have, sizeof(buf) - have);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		while ((nl = memchr(buf, '\n', have))) {
			size_t k = (size_t)(nl - buf) + 1;

			one_line(buf, k);
			memmove(buf, buf + k, have - k);
			have -= k;
		}
		if (have == sizeof(buf)) {	/* no newline: pass it on */
			write_all(flt.out, buf, have);
			have = 0;
		}
	}
	write_all(flt.out, buf, have);
	return NULL;
}

int vf_errfilter_start(const char *line, volatile uint64_t *dropped)
{
	sigset_t all, old;
	pthread_t t;
	int p[2], err;

	if (pipe(p))
		return -errno;
	flt.line = line;
	flt.dropped = dropped;
	flt.in = p[0];
	flt.out = dup(STDERR_FILENO);
	if (flt.out < 0 || dup2(p[1], STDERR_FILENO) < 0) {
		err = -errno;
		goto undo;
	}
	close(p[1]);
	setvbuf(stderr, NULL, _IOLBF, 0);	/* whole lines into the pipe */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = -pthread_create(&t, NULL, run, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!err) {
		pthread_detach(t);
		return 0;
	}
	dup2(flt.out, STDERR_FILENO);
	p[1] = -1;
undo:
	if (flt.out >= 0)
		close(flt.out);
	close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	return err;
}
