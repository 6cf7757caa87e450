// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The whole configuration path of the plugin: vf_config_load() (the XML
 * front-end for a file starting with '<', partitions.conf otherwise),
 * validation, then resolution on the fixed fabric.
 */
#include <stdlib.h>

#include "fuzz/fuzz.h"
#include "fuzz/resolve.h"
#include "partition/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = vf_fuzz_file(data, size);
	struct vf_config *c = malloc(sizeof(*c));
	struct vf_diag d = { 0 };
	bool vfabric;
	int rc;

	if (!c)
		abort();
	rc = vf_config_load(path, c, &d, &vfabric);
	vf_fuzz_check_diag(&d, path);
	VF_FUZZ_CHECK(rc == 0 || rc == 1, "vf_config_load: %d", rc);
	VF_FUZZ_CHECK(rc == (d.errors || d.oom),
		      "returned %d with %u errors", rc, d.errors);
	vf_diag_free(&d);
	if (rc) {
		vf_config_free(c);
		free(c);
		return 0;
	}
	c->refs = 1;
	vf_fuzz_resolve(c);
	return 0;
}
