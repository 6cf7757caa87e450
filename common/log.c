// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/log.h"

static vf_log_sink log_sink;
static void *log_ctx;
static enum vf_log_level log_max = VF_LOG_INFO;

void vf_log_set_sink(vf_log_sink sink, void *ctx)
{
	log_sink = sink;
	log_ctx = ctx;
}

void vf_log_set_level(enum vf_log_level max_level)
{
	log_max = max_level;
}

enum vf_log_level vf_log_get_level(void)
{
	return log_max;
}

void vf_log(enum vf_log_level level, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warning", "info",
					     "debug" };
	char msg[1024];
	va_list ap;

	if (level > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_sink)
		log_sink(log_ctx, level, msg);
	else
		fprintf(stderr, "vfabric: %s: %s\n", names[level], msg);
}

static vf_progress_sink progress_sink;

void vf_log_set_progress(vf_progress_sink sink)
{
	progress_sink = sink;
}

void vf_log_progress(const char *fmt, ...)
{
	char where[128];
	va_list ap;

	if (!progress_sink)
		return;
	va_start(ap, fmt);
	vsnprintf(where, sizeof(where), fmt, ap);
	va_end(ap);
	progress_sink(where);
}

int vf_err_set(struct vf_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}
