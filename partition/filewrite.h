/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/* Files OpenSM or a later run reads while we may be rewriting them. */
#ifndef VF_FILEWRITE_H
#define VF_FILEWRITE_H

#include <stddef.h>

/*
 * Make path hold exactly text (len bytes): written to path.tmp, synced,
 * renamed over path, so a reader sees the old file or the new one, never
 * half of one.  Nothing is written when path holds that text already.
 * path.tmp is created afresh (a link or file left there is removed, not
 * followed), mode 0644 whatever the umask.
 * 0 or -errno.
 */
int vf_file_replace(const char *path, const char *text, size_t len);

#endif /* VF_FILEWRITE_H */
