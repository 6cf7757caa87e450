/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Diagnostics of a configuration: every message carries the file and line
 * of the object it is about, already formatted as
 * "FILE:LINE: <Kind> '<name>': what is wrong", so the plugin, the CLI and
 * the tests print the same text.
 */
#ifndef VF_DIAG_H
#define VF_DIAG_H

#include <stdbool.h>

/* Where an object was written (file is owned by the config's file list). */
struct vf_where {
	const char *file;
	unsigned line;
};

enum vf_diag_level {
	VF_DIAG_WARN,
	VF_DIAG_ERROR,
};

struct vf_diag_msg {
	enum vf_diag_level level;
	char *text;
};

struct vf_diag {
	struct vf_diag_msg *v;
	unsigned n;
	unsigned errors;
	unsigned dropped;	/* messages past VF_DIAG_MAX, counted only */
	bool oom;		/* a message could not be stored */
};

/*
 * Messages kept per load or plan: a garbage file gives one error per
 * line, and thousands of log lines help nobody (errors stay counted).
 */
#define VF_DIAG_MAX 100

void vf_diag_add(struct vf_diag *d, enum vf_diag_level level,
		 const struct vf_where *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void vf_diag_free(struct vf_diag *d);

#endif /* VF_DIAG_H */
