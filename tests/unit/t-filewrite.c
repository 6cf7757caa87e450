// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vf_file_replace: the plugin writes its files as root (partitions file,
 * last-good copy, P_Key/SL assignments, EM state, metrics), some in a
 * directory others may write.  A link left at PATH.tmp is not followed,
 * the mode is 0644 whatever the umask, and the file is whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "partition/filewrite.h"
#include "taptest.h"

static char dir[32];

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

/* out: 64 bytes, room for dir and the short names used here */
static void in_dir(char *out, const char *name)
{
	snprintf(out, 64, "%s/%.24s", dir, name);
}

int main(void)
{
	char path[64], tmp[64], victim[64];
	struct stat st;
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/vf-filewrite-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	in_dir(path, "metrics.prom");
	in_dir(tmp, "metrics.prom.tmp");
	in_dir(victim, "victim");

	EQ_U(vf_file_replace(path, "one\n", 4), 0, "a new file is written");
	EQ_S(slurp(path), "one\n", "with the text");

	f = fopen(victim, "w");
	fputs("VICTIM\n", f);
	fclose(f);
	OK(symlink(victim, tmp) == 0, "a link to another file left at path.tmp");
	EQ_U(vf_file_replace(path, "two\n", 4), 0, "the file is replaced");
	EQ_S(slurp(victim), "VICTIM\n", "the link's target is untouched");
	EQ_S(slurp(path), "two\n", "the file has the new text");
	OK(lstat(path, &st) == 0 && S_ISREG(st.st_mode),
	   "and is a regular file, not the link");

	umask(0);
	EQ_U(vf_file_replace(path, "three\n", 6), 0, "written with umask 0");
	OK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644,
	   "mode 0644 whatever the umask");
	umask(022);
	OK(access(tmp, F_OK) != 0, "no path.tmp is left behind");

	unlink(path);
	unlink(victim);
	rmdir(dir);
	return tap_done();
}
