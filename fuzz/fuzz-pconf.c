// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * partitions.conf with vFabric statements (partition/pconf.c), whatever
 * the input starts with; validated and resolved like the plugin does.
 */
#include <stdlib.h>

#include "fuzz/fuzz.h"
#include "fuzz/resolve.h"
#include "partition/internal/pconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = vf_fuzz_file(data, size);
	struct vf_config *c = malloc(sizeof(*c));
	struct vf_diag d = { 0 };
	bool vfabric;
	int rc;

	if (!c)
		abort();
	vf_config_init(c);
	rc = vf_pconf_load(path, c, &d, &vfabric);
	VF_FUZZ_CHECK(rc == 0, "vf_pconf_load: %d", rc);
	vf_config_validate(c, &d);
	vf_fuzz_check_diag(&d, path);
	if (d.errors || d.oom) {
		vf_diag_free(&d);
		vf_config_free(c);
		free(c);
		return 0;
	}
	vf_diag_free(&d);
	c->refs = 1;
	vf_fuzz_resolve(c);
	return 0;
}
