// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "routing/netfile.h"

const char *vf_fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		fd = memfd_create("vf-fuzz-input", 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) !=
					 (ssize_t)size)) {
		perror("vf_fuzz_file");
		abort();
	}
	return path;
}

char *vf_fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

void vf_fuzz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: invariant broken: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* ibsim dialect; NodeDescs as the conf/ examples' groups expect. */
static const char fabric_text[] =
	"switchguid=0x0002c90200000001\n"
	"Switch 8 \"S001\" # \"spine001\"\n"
	"[1] \"L001\"[6]\n[2] \"L002\"[6]\n\n"
	"switchguid=0x0002c90200000002\n"
	"Switch 8 \"S002\" # \"spine002\"\n"
	"[1] \"L001\"[7]\n[2] \"L002\"[7]\n\n"
	"switchguid=0x0002c90200000003\n"
	"Switch 8 \"L001\" # \"leaf001\"\n"
	"[1] \"cn0001\"[1]\n[2] \"cn0002\"[1]\n[3] \"stor01\"[1]\n"
	"[4] \"adm01\"[1]\n[5] \"dual\"[1]\n[6] \"S001\"[1]\n[7] \"S002\"[1]\n\n"
	"switchguid=0x0002c90200000004\n"
	"Switch 8 \"L002\" # \"leaf002\"\n"
	"[1] \"cn0007\"[1]\n[2] \"cn0008\"[1]\n[3] \"oss01\"[1]\n"
	"[4] \"gw01\"[1]\n[5] \"dual\"[2]\n[6] \"S001\"[2]\n[7] \"S002\"[2]\n\n"
	"caguid=0x0002c90300000010\n"
	"Hca 1 \"cn0001\" # \"cn0001 HCA-1\"\n[1] \"L001\"[1]\n\n"
	"caguid=0x0002c90300000020\n"
	"Hca 1 \"cn0002\" # \"cn0002 HCA-1\"\n[1] \"L001\"[2]\n\n"
	"caguid=0x0002c90300000030\n"
	"Hca 1 \"stor01\" # \"stor01 HCA-1\"\n[1] \"L001\"[3]\n\n"
	"caguid=0x0002c90300000040\n"
	"Hca 1 \"adm01\" # \"adm01 HCA-1\"\n[1] \"L001\"[4]\n\n"
	"caguid=0x0002c90300000050\n"
	"Hca 2 \"dual\" # \"cn0050 HCA-2\"\n[1] \"L001\"[5]\n[2] \"L002\"[5]\n\n"
	"caguid=0x0002c90300000070\n"
	"Hca 1 \"cn0007\" # \"cn0007 HCA-1\"\n[1] \"L002\"[1]\n\n"
	"caguid=0x0002c90300000080\n"
	"Hca 1 \"cn0008\" # \"cn0008 HCA-1\"\n[1] \"L002\"[2]\n\n"
	"caguid=0x0002c90300000090\n"
	"Hca 1 \"oss01\" # \"oss01 HCA-1\"\n[1] \"L002\"[3]\n\n"
	"caguid=0x0002c903000000a0\n"
	"Hca 1 \"gw01\" # \"gw01 HCA-1\"\n[1] \"L002\"[4]\n";

const struct vf_fabric *vf_fuzz_fabric(unsigned lmc)
{
	static struct vf_fabric *built[8];
	struct vf_err err;
	FILE *in;

	if (lmc >= 8)
		abort();
	if (built[lmc])
		return built[lmc];
	in = fmemopen((void *)fabric_text, sizeof(fabric_text) - 1, "r");
	if (!in)
		abort();
	built[lmc] = vf_netfile_read(in, "fuzz-fabric.net", lmc, &err);
	fclose(in);
	if (!built[lmc]) {
		fprintf(stderr, "the fixed fabric does not load: %s\n", err.msg);
		abort();
	}
	return built[lmc];
}
