// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Reading a configuration safely (partition/load.c): whatever stands at
 * the path, the read never blocks and only a whole regular file of text
 * is parsed; files with nothing to apply are errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "partition/load.h"
#include "taptest.h"

static char dir[] = "/tmp/t-cfgread-XXXXXX";

static const char *at(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static const char *put(const char *name, const char *text, size_t len)
{
	const char *path = at(name);
	FILE *out = fopen(path, "wb");

	if (out) {
		fwrite(text, 1, len, out);
		fclose(out);
	}
	return path;
}

/* Does the first diag message contain what? */
static bool says(const struct vf_diag *d, const char *what)
{
	for (unsigned i = 0; i < d->n; i++)
		if (strstr(d->v[i].text, what))
			return true;
	return false;
}

/* vf_config_load(path): its result, and whether a message says what. */
static int load(const char *path, const char *what, bool *said,
		bool *vfabric)
{
	struct vf_diag d = { 0 };
	struct vf_config c;
	bool vf = true;
	int rc = vf_config_load(path, &c, &d, &vf);

	*said = what ? says(&d, what) : d.n == 0;
	if (vfabric)
		*vfabric = vf;
	vf_config_free(&c);
	vf_diag_free(&d);
	return rc;
}

static const char stock[] =
	"Default=0x7fff, ipoib : ALL=full ;\n"
	"storage=0x0002 : 0x0002c90300000011=full ;\n";
static const char xml[] =
	"<?xml version=\"1.0\"?>\n<Config><Common><VirtualFabrics>"
	"<VirtualFabric><Name>Default</Name><Enable>1</Enable>"
	"<PKey>0x0001</PKey><Member>All</Member><Application>All</Application>"
	"</VirtualFabric></VirtualFabrics></Common></Config>\n";

static void test_kinds(void)
{
	bool said, vfabric;
	char *big;
	size_t n = (16u << 20) + 2;

	OK(load(put("stock.conf", stock, sizeof(stock) - 1), NULL, &said,
		&vfabric) == 0 && said && !vfabric,
	   "a stock partitions.conf loads, without a message, as stock");
	OK(load(at("none"), "cannot be read: No such file", &said, NULL) ==
	   -ENOENT && said, "a missing file: -ENOENT, said");
	OK(load(dir, "is a directory, not a regular file", &said, NULL) ==
	   -EISDIR && said, "a directory: refused, said");
	mkfifo(at("fifo"), 0600);
	alarm(10);	/* a blocking open would hang here */
	OK(load(at("fifo"), "is a FIFO, not a regular file", &said, NULL) < 0
	   && said, "a FIFO: refused without blocking (no writer)");
	alarm(0);
	OK(load("/dev/null", "is a character device", &said, NULL) < 0 && said,
	   "a character device: refused");
	symlink(dir, at("link"));
	OK(load(at("link"), "is a directory", &said, NULL) == -EISDIR && said,
	   "a symbolic link to a directory: refused");
	big = malloc(n);
	if (big) {
		memset(big, ' ', n);
		memcpy(big, stock, sizeof(stock) - 1);
		OK(load(put("big.conf", big, n), "larger than 16 MiB", &said,
			NULL) == -EFBIG && said,
		   "a 16 MiB + 2 file of valid text: refused by its size");
		free(big);
	}
	OK(load(put("nul.conf", stock, sizeof(stock)), "NUL byte", &said,
		NULL) == 1 && said, "a NUL byte after valid text: an error");
	/* the comment blanking once read past the end (fuzz/regressions) */
	OK(load(put("tail.conf", "Default=0x7fff : ALL=full ; # end", 33),
		NULL, &said, NULL) == 0 && said,
	   "a comment on the last line, without a newline");
}

static void test_empty(void)
{
	static const char *const texts[] = { "", "  \n\t\n",
		"# only a comment\n# and another\n", "\xef\xbb\xbf\n" };
	bool said;

	for (unsigned i = 0; i < 4; i++) {
		char name[32];

		snprintf(name, sizeof(name), "empty%u.conf", i);
		OK(load(put(name, texts[i], strlen(texts[i])),
			"defines no VirtualFabric or partition", &said,
			NULL) == 1 && said,
		   i == 0 ? "an empty file: an error" :
		   i == 1 ? "a blank file: an error" :
		   i == 2 ? "a comment-only file: an error" :
		   "a byte-order mark alone: an error");
	}
	OK(load(put("cmt.xml", "<!-- nothing -->\n", 17), "XML", &said,
		NULL) == 1 && said, "a comment-only XML file: an error");
	OK(load(put("cut.xml", xml, sizeof(xml) / 2), "XML", &said, NULL) ==
	   1 && said, "an XML file cut in the middle: an error");
}

static void test_bom(void)
{
	char text[sizeof(xml) + 3] = "\xef\xbb\xbf";
	bool said, vfabric;

	memcpy(text + 3, xml, sizeof(xml) - 1);
	/* the fixture has no Admin VF: the FM's management-rule warnings
	 * may come, none about the mark */
	OK(load(put("bom.xml", text, sizeof(xml) + 2), "byte-order", &said,
		&vfabric) == 0 && !said && vfabric,
	   "XML after a byte-order mark: read as XML, nothing said of the mark");
	memcpy(text + 3, stock, sizeof(stock) - 1);
	OK(load(put("bom.conf", text, sizeof(stock) + 2),
		"byte-order mark; ignored", &said, &vfabric) == 0 && said &&
	   !vfabric, "a partitions.conf after a byte-order mark: the same "
	   "stock file, with a warning");
}

int main(void)
{
	char cmd[64];

	if (!mkdtemp(dir)) {
		OK(0, "temporary directory");
		return tap_done();
	}
	test_kinds();
	test_empty();
	test_bom();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		OK(0, "clean up");
	return tap_done();
}
