// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#define _GNU_SOURCE	/* vasprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "partition/diag.h"

void vf_diag_add(struct vf_diag *d, enum vf_diag_level level,
		 const struct vf_where *at, const char *fmt, ...)
{
	struct vf_diag_msg *grown;
	char *what, *text;
	va_list ap;
	int rc;

	if (level == VF_DIAG_ERROR)
		d->errors++;
	if (d->n >= VF_DIAG_MAX) {
		d->dropped++;
		return;
	}
	va_start(ap, fmt);
	rc = vasprintf(&what, fmt, ap);
	va_end(ap);
	if (rc < 0)
		goto oom;
	if (at && at->file && !at->line)
		rc = asprintf(&text, "%s: %s", at->file, what);
	else if (at && at->file)
		rc = asprintf(&text, "%s:%u: %s", at->file, at->line, what);
	else
		rc = asprintf(&text, "%s", what);
	free(what);
	if (rc < 0)
		goto oom;
	grown = realloc(d->v, (d->n + 1) * sizeof(*d->v));
	if (!grown) {
		free(text);
		goto oom;
	}
	d->v = grown;
	d->v[d->n++] = (struct vf_diag_msg){ level, text };
	return;
oom:
	d->oom = true;
}

void vf_diag_free(struct vf_diag *d)
{
	for (unsigned i = 0; i < d->n; i++)
		free(d->v[i].text);
	free(d->v);
	*d = (struct vf_diag){ 0 };
}
