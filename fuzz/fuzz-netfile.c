// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Net files (routing/netfile.c), both dialects, with LMC 0 and 2.  A file
 * that loads must survive the round trip through vf_netfile_write(): the
 * writer's output loads again into as many nodes, ports and links.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "routing/netfile.h"

static unsigned links(const struct vf_fabric *f)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < f->num_ports; i++)
		n += f->ports[i].remote != VF_NONE;
	return n;
}

static void round_trip(const struct vf_fabric *f, unsigned lmc)
{
	struct vf_fabric *g;
	struct vf_err err;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		abort();
	VF_FUZZ_CHECK(!vf_netfile_write(out, f), "vf_netfile_write failed");
	fclose(out);
	out = fmemopen(text, len, "r");
	if (!out)
		abort();
	g = vf_netfile_read(out, "written", lmc, &err);
	fclose(out);
	VF_FUZZ_CHECK(g, "what vf_netfile_write wrote does not load: %s\n%s",
		      err.msg, text);
	VF_FUZZ_CHECK(g->num_nodes == f->num_nodes &&
		      g->num_ports == f->num_ports && links(g) == links(f),
		      "round trip changed the fabric: nodes %u/%u ports %u/%u links %u/%u",
		      f->num_nodes, g->num_nodes, f->num_ports, g->num_ports,
		      links(f), links(g));
	vf_fabric_destroy(g);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned lmcs[] = { 0, 2 };

	for (unsigned i = 0; i < 2; i++) {
		FILE *in = fmemopen((void *)data, size, "r");
		struct vf_fabric *f;
		struct vf_err err;

		if (!size)
			return 0;	/* fmemopen refuses 0 bytes */
		if (!in)
			abort();
		err.msg[0] = '\0';
		f = vf_netfile_read(in, "input", lmcs[i], &err);
		fclose(in);
		VF_FUZZ_CHECK(f || !strncmp(err.msg, "input", 5),
			      "error does not name the file: \"%s\"", err.msg);
		if (!f)
			return 0;
		VF_FUZZ_CHECK(f->finalized, "loaded fabric is not finalized");
		round_trip(f, lmcs[i]);
		vf_fabric_destroy(f);
	}
	return 0;
}
