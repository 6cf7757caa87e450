// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * LFT dumps (routing/lftdump.c: opensm-lfts.dump, dump_fts, ibroute) read
 * against tests/data's 2sw2path4hca fabric with LMC 0 and 2; tables that
 * load are route-checked, as vfabric check-routes does.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "routing/lftdump.h"
#include "routing/netfile.h"
#include "routing/routecheck.h"

/* tests/data/2sw2path4hca.net: the GUIDs of the dumps beside it */
static const char net[] =
	"Switch 8 \"Switch1\"\n[1] \"Hca1\"[1]\n[2] \"Hca3\"[1]\n"
	"[3] \"Switch2\"[3]\n[5] \"Switch2\"[5]\n"
	"Switch 8 \"Switch2\"\n[1] \"Hca2\"[1]\n[2] \"Hca4\"[1]\n"
	"[3] \"Switch1\"[3]\n[5] \"Switch1\"[5]\n"
	"Hca 2 \"Hca1\"\n[1] \"Switch1\"[1]\n"
	"Hca 2 \"Hca2\"\n[1] \"Switch2\"[1]\n"
	"Hca 2 \"Hca3\"\n[1] \"Switch1\"[2]\n"
	"Hca 2 \"Hca4\"\n[1] \"Switch2\"[2]\n";

static const struct vf_fabric *fabric(unsigned i)
{
	static struct vf_fabric *f[2];
	struct vf_err err;
	FILE *in;

	if (f[i])
		return f[i];
	in = fmemopen((void *)net, sizeof(net) - 1, "r");
	if (!in)
		abort();
	f[i] = vf_netfile_read(in, "2sw2path4hca.net", i ? 2 : 0, &err);
	fclose(in);
	if (!f[i]) {
		fprintf(stderr, "fixed fabric: %s\n", err.msg);
		abort();
	}
	return f[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;	/* fmemopen refuses 0 bytes */
	for (unsigned i = 0; i < 2; i++) {
		const struct vf_fabric *f = fabric(i);
		FILE *in = fmemopen((void *)data, size, "r");
		struct vf_route_report rep;
		struct vf_lfts t;
		struct vf_err err;
		int rc;

		if (!in)
			abort();
		err.msg[0] = '\0';
		rc = vf_lftdump_read(in, "input", f, &t, &err);
		fclose(in);
		VF_FUZZ_CHECK(!rc || !strncmp(err.msg, "input", 5),
			      "error does not name the file: \"%s\"", err.msg);
		if (rc)
			continue;
		VF_FUZZ_CHECK(t.num_switches == f->num_switches &&
			      t.max_lid == f->max_lid,
			      "tables not sized to the fabric");
		VF_FUZZ_CHECK(!vf_route_check(f, &t, &rep),
			      "route check refused loaded tables");
		vf_lfts_free(&t);
	}
	return 0;
}
