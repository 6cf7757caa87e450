/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Logging and error reporting for the OpenSM-free libraries.
 *
 * vf_log() goes to one process-wide sink: stderr by default, OpenSM's log
 * (with the "vfabric:" prefix) once the plugin installs its sink.  Messages
 * that are errors start with a grep-able code, "ERR VFxxyy: ", where xx names
 * the part and yy the cause: docs/error-codes.md lists them, one cause
 * each, and tests/lint/t-errcodes.py holds the sources to that list.
 *
 * Parsers do not log: they return a negative errno and fill a struct vf_err
 * with "file:line: what went wrong", so the CLI, the plugin and the tests
 * can each show it their own way.
 */
#ifndef VF_LOG_H
#define VF_LOG_H

enum vf_log_level {
	VF_LOG_ERROR,
	VF_LOG_WARN,
	VF_LOG_INFO,
	VF_LOG_DEBUG,
};

typedef void (*vf_log_sink)(void *ctx, enum vf_log_level level,
			    const char *msg);

/* Install a sink (NULL restores stderr) and the most verbose level shown. */
void vf_log_set_sink(vf_log_sink sink, void *ctx);
void vf_log_set_level(enum vf_log_level max_level);
enum vf_log_level vf_log_get_level(void);
void vf_log(enum vf_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Where a long computation is (an engine's pass), for a progress display
 * (the CLI's line on a terminal); formatted only when a sink is set.
 */
typedef void (*vf_progress_sink)(const char *where);
void vf_log_set_progress(vf_progress_sink sink);
void vf_log_progress(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

struct vf_err {
	char msg[512];
};

/* Format msg into err (which may be NULL); returns -EINVAL for chaining. */
int vf_err_set(struct vf_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* VF_LOG_H */
