/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * A progress line for the CLI's long runs (a 27,648-host tree takes tens
 * of seconds to route, arsim seconds per run): one line on standard
 * error, "vfabric: routing 27648 hosts with fattree: 12.3 s", redrawn
 * in place by a ticker thread and erased at the end.  Only when standard
 * error is a terminal (or --progress): what scripts and tests read never
 * changes.  It appears after half a second, so short runs show nothing
 * (with --progress, at once).
 */
#ifndef VF_PROGRESS_H
#define VF_PROGRESS_H

enum vf_progress_mode {
	VF_PROGRESS_AUTO,	/* when standard error is a terminal */
	VF_PROGRESS_ON,		/* --progress */
	VF_PROGRESS_OFF,	/* --quiet */
};

#include <stdbool.h>

#include "common/log.h"

/* Decide whether to show progress. */
void vf_progress_setup(enum vf_progress_mode mode);
/*
 * A vf_log sink printing as the default one does, but never onto the
 * line (through vf_progress_hold()).
 */
void vf_progress_log_sink(void *ctx, enum vf_log_level level,
			  const char *msg);
/* The phase now running (printf format); its clock starts. */
void vf_progress(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/*
 * Standard error is the caller's (the line erased, not redrawn) until
 * vf_progress_release(); for messages printed while a phase runs.
 */
void vf_progress_hold(void);
void vf_progress_release(void);
/*
 * Erase the line and draw it no more (true) or again (false): around
 * code that prints to standard error itself (may call vf_log).
 */
void vf_progress_pause(bool pause);
/* Stop and erase the line; before output that may go to the terminal. */
void vf_progress_end(void);

#endif /* VF_PROGRESS_H */
