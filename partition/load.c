// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "partition/load.h"
#include "partition/internal/pconf.h"
#include "partition/qos.h"
#include "partition/internal/xmlconf.h"

static const char *what_is(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* The same file, unchanged? */
static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Record err and say why (one phrase) as FILE: why. */
static int fail(struct vf_config_file *f, struct vf_diag *d, const char *path,
		int err, const char *why)
{
	struct vf_where at = { path, 0 };

	f->err = err;
	vf_diag_add(d, VF_DIAG_ERROR, &at, "%s", why);
	return err;
}

static int unreadable(struct vf_config_file *f, struct vf_diag *d,
		      const char *path, int err)
{
	char why[256];

	snprintf(why, sizeof(why), "cannot be read: %s", strerror(-err));
	return fail(f, d, path, err, why);
}

static int not_regular(struct vf_config_file *f, struct vf_diag *d,
		       const char *path, mode_t mode)
{
	char why[128];

	snprintf(why, sizeof(why), "is %s, not a regular file",
		 what_is(mode));
	return fail(f, d, path, S_ISDIR(mode) ? -EISDIR : -EINVAL, why);
}

/* Up to size + 1 bytes of fd into a new buffer (a growing file shows). */
static char *read_all(int fd, size_t size, size_t *got)
{
	char *text = malloc(size + 2);
	size_t n = 0;

	*got = 0;
	if (!text)
		return NULL;
	while (n <= size) {
		ssize_t r = read(fd, text + n, size + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(text);
			return NULL;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	text[n] = '\0';
	*got = n;
	return text;
}

int vf_config_read(const char *path, struct vf_config_file *f,
		   struct vf_diag *d)
{
	struct stat after, now;
	size_t got;
	int fd, rc;

	memset(f, 0, sizeof(*f));
	/*
	 * stat() first, so that nothing but a regular file is ever opened
	 * (opening a FIFO for reading blocks until a writer comes; a device
	 * may act on open), then fstat() what was opened: the path may
	 * have been swapped in between.
	 */
	if (stat(path, &f->st)) {
		rc = -errno;
		memset(&f->st, 0, sizeof(f->st));
		return unreadable(f, d, path, rc);
	}
	if (!S_ISREG(f->st.st_mode))
		return not_regular(f, d, path, f->st.st_mode);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return unreadable(f, d, path, -errno);
	if (fstat(fd, &f->st) || !S_ISREG(f->st.st_mode)) {
		close(fd);
		return not_regular(f, d, path, f->st.st_mode);
	}
	if (f->st.st_size > (off_t)VF_CONFIG_MAX_BYTES) {
		close(fd);
		return fail(f, d, path, -EFBIG,
			    "is larger than 16 MiB: not a configuration");
	}
	f->text = read_all(fd, (size_t)f->st.st_size, &got);
	rc = f->text ? 0 : -errno;
	if (fstat(fd, &after))
		memset(&after, 0, sizeof(after));
	close(fd);
	if (rc) {
		vf_config_file_free(f);
		return unreadable(f, d, path, rc);
	}
	/* a writer at work, or another file renamed over it meanwhile */
	if (got != (size_t)f->st.st_size || !same_file(&f->st, &after) ||
	    stat(path, &now) || !same_file(&f->st, &now)) {
		vf_config_file_free(f);
		f->unstable = true;
		return fail(f, d, path, -EAGAIN,
			    "changed while it was being read");
	}
	f->len = got;
	return 0;
}

void vf_config_file_free(struct vf_config_file *f)
{
	free(f->text);
	f->text = NULL;
	f->len = 0;
}

static bool has_enabled_vf(const struct vf_config *c)
{
	for (unsigned i = 0; i < c->num_vfs; i++)
		if (c->vfs[i].enable)
			return true;
	return false;
}

#define BOM "\xef\xbb\xbf"

int vf_config_load_text(const char *name, const char *text, size_t len,
			struct vf_config *c, struct vf_diag *d, bool *vfabric)
{
	struct vf_where at = { name, 0 };
	bool bom = len >= 3 && !memcmp(text, BOM, 3), xml;
	const char *body = bom ? text + 3 : text;
	size_t n = bom ? len - 3 : len, i = 0;
	const char *nul = memchr(text, '\0', len);
	int rc;

	vf_config_init(c);
	*vfabric = true;
	if (nul) {
		vf_diag_add(d, VF_DIAG_ERROR, &at,
			    "holds a NUL byte (offset %zu): not a text file",
			    (size_t)(nul - text));
		return 1;
	}
	while (i < n && isspace((unsigned char)body[i]))
		i++;
	xml = i < n && body[i] == '<';
	if (xml) {
		/* libxml2 reads the byte-order mark, as the FM's parser */
		rc = vf_xml_load_mem(name, text, len, c, d);
	} else {
		/*
		 * OpenSM would take the mark for part of the first
		 * partition's name, which shows only in its log: the
		 * meaning is the same without it.
		 */
		if (bom)
			vf_diag_add(d, VF_DIAG_WARN, &at,
				    "starts with a UTF-8 byte-order mark; ignored");
		rc = vf_pconf_load_text(name, body, n, c, d, vfabric);
	}
	if (rc)
		return rc;
	/* all problems in one pass: the cross-object rules, and what a
	 * sweep would refuse (SLs, P_Keys, bandwidth) */
	vf_config_validate(c, d);
	vf_qos_check(c, d);
	/*
	 * A partitions.conf without a partition (empty, blank,
	 * comment-only, cut before its first statement) is an error to
	 * stock OpenSM too.  An XML file without virtual fabrics is not: it
	 * may carry routing settings only (its partitions are then OpenSM's).
	 */
	if (!xml && !has_enabled_vf(c))
		vf_diag_add(d, VF_DIAG_ERROR, &at, "%s",
			    "defines no VirtualFabric or partition (empty, blank or comment-only: stock OpenSM refuses such a file too)");
	return d->errors || d->oom ? 1 : 0;
}

int vf_config_load(const char *path, struct vf_config *c, struct vf_diag *d,
		   bool *vfabric)
{
	struct vf_config_file f;
	int rc = vf_config_read(path, &f, d);

	*vfabric = true;
	if (rc) {
		vf_config_init(c);
		return rc;
	}
	rc = vf_config_load_text(path, f.text, f.len, c, d, vfabric);
	vf_config_file_free(&f);
	return rc;
}
