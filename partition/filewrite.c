// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "partition/filewrite.h"

/* Does path hold exactly len bytes of text? */
static bool holds(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "r");
	char buf[65536];
	size_t at = 0, n;
	bool same = f != NULL;

	while (same && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		same = at + n <= len && !memcmp(buf, text + at, n);
		at += n;
	}
	if (f)
		fclose(f);
	return same && at == len;
}

int vf_file_replace(const char *path, const char *text, size_t len)
{
	char tmp[4096];
	FILE *out;
	int fd, rc = 0;

	if (holds(path, text, len))
		return 0;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	/*
	 * Written as root, maybe in a directory others can write (a metrics
	 * directory): a fresh file, never through a link someone left at
	 * path.tmp (O_EXCL, O_NOFOLLOW), and mode 0644 whatever the umask.
	 */
	if (unlink(tmp) && errno != ENOENT)
		return -errno;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return -errno;
	out = fchmod(fd, 0644) ? NULL : fdopen(fd, "w");
	if (!out) {
		rc = -errno;
		close(fd);
		unlink(tmp);
		return rc;
	}
	if (fwrite(text, 1, len, out) != len || fflush(out) ||
	    fsync(fileno(out)))
		rc = -errno;
	if (fclose(out) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}
