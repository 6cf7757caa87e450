// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Runs every file named (or found directly in a directory named) through
 * the target's LLVMFuzzerTestOneInput once, in name order, and says how
 * many: the corpus and regression replay of make check, built with any
 * compiler.  A crash or a broken invariant aborts, naming the file first.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	/* an exact-size heap copy: a read past the end is caught by ASan */
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file directly in dir; returns how many or -1. */
static long run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	long count = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		char **grown;

		if (e->d_name[0] == '.')
			continue;
		grown = realloc(names, (n + 1) * sizeof(*names));
		if (!grown || asprintf(&grown[n], "%s/%s", dir, e->d_name) < 0)
			abort();
		names = grown;
		n++;
	}
	closedir(d);
	if (n)	/* an empty directory leaves names NULL: qsort's is nonnull */
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (count >= 0 && !stat(names[i], &st) && S_ISREG(st.st_mode))
			count = run_file(names[i]) ? -1 : count + 1;
		free(names[i]);
	}
	free(names);
	return count;
}

int main(int argc, char **argv)
{
	long total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		long n;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i],
				strerror(errno));
			return 2;
		}
		n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) :
		    run_file(argv[i]) ? -1 : 1;
		if (n < 0)
			return 2;
		printf("%s: %ld\n", argv[i], n);
		total += n;
	}
	printf("total: %ld\n", total);
	return 0;
}
