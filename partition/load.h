/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * A vFabric configuration from a file in either syntax: opafm.xml-style
 * XML (the file starts with '<', after an optional UTF-8 byte-order mark)
 * or partitions.conf, stock or with vFabric statements (anything else);
 * loaded and validated.
 *
 * The file is read safely, whatever sits at the path: only a regular file
 * is opened for reading (a FIFO, a device or a directory is refused
 * without blocking), at most VF_CONFIG_MAX_BYTES, and the bytes are
 * parsed only when the file did not change while it was read.  A
 * partitions.conf that defines no partition (empty, blank, comment-only,
 * or cut before its first statement) is an error, as in stock OpenSM.
 */
#ifndef VF_LOAD_H
#define VF_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "partition/config.h"
#include "partition/diag.h"

#define VF_CONFIG_MAX_BYTES (16u << 20)

/* What a read found at the path, also when it could not be used. */
struct vf_config_file {
	char *text;		/* NUL-terminated; NULL unless read */
	size_t len;
	struct stat st;		/* of the file read (st_mode 0: none) */
	int err;		/* 0, or -errno of the failure */
	bool unstable;		/* it changed while being read: try again */
};

/*
 * Read path into f (free with vf_config_file_free).  0, or -errno with
 * the reason in d (FILE: what), f->err set and f->st what stat() saw (a
 * directory, a FIFO...; zeroed when the path does not exist).  -EAGAIN:
 * the file changed while it was read (f->unstable).
 */
int vf_config_read(const char *path, struct vf_config_file *f,
		   struct vf_diag *d);
void vf_config_file_free(struct vf_config_file *f);

/*
 * Load the text of file name (len bytes, as read by vf_config_read) into
 * c (initialised here) and validate it.  *vfabric is false for a
 * partitions.conf that uses nothing beyond stock OpenSM.  Returns 0 when
 * c is usable (d may hold warnings), 1 when d holds errors, -ENOMEM.
 */
int vf_config_load_text(const char *name, const char *text, size_t len,
			struct vf_config *c, struct vf_diag *d, bool *vfabric);

/*
 * vf_config_read() then vf_config_load_text().  Returns 0 when c is
 * usable, 1 when d holds errors, -errno when path cannot be read (c is
 * initialised in every case).
 */
int vf_config_load(const char *path, struct vf_config *c, struct vf_diag *d,
		   bool *vfabric);

#endif /* VF_LOAD_H */
