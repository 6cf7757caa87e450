// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* vfabric --vl-layers: see layercmd.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tools/cli/layercmd.h"
#include "tools/cli/progress.h"

#define EXIT_USAGE 2

/*
 * One line per (source switch, CA LID) above layer 0:
 * "<switch node GUID> <LID> <SL>"; every other route is on SL 0.
 */
static int write_sls(const char *path, const struct vf_fabric *f,
		     const struct vf_layers *l)
{
	FILE *out = fopen(path, "w");
	int rc = 0;

	if (!out)
		return -errno;
	fprintf(out, "# vfabric --vl-layers: %u layers; the SL of the data "
		"routes entering at a switch toward a LID (SL n on VL n);\n"
		"# not listed: SL 0\n"
		"# switch-guid lid sl\n", l->num);
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (unsigned lid = 1; lid <= f->max_lid; lid++) {
			unsigned sl = vf_layer_of(l, s, lid);

			if (sl)
				fprintf(out, "0x%016llx %u %u\n",
					(unsigned long long)
					f->nodes[f->switches[s]].guid, lid,
					sl);
		}
	if (ferror(out))
		rc = -EIO;
	if (fclose(out) && !rc)
		rc = -errno;
	return rc;
}

int vf_cli_layers(const struct vf_fabric *f, const struct vf_lfts *t,
		  unsigned max, const char *sl_out, bool quiet,
		  struct vf_layers *l)
{
	struct timespec t0, t1;
	int rc;

	vf_progress("splitting the routes into VL layers");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = vf_layers_build(f, t, max, l);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	vf_progress_hold();
	if (rc == -ERANGE && l->num > VF_LAYERS_MAX)
		fprintf(stderr, "vfabric: --vl-layers %u: the routes need more than %u layers (VLs); no layering\n",
			max, VF_LAYERS_MAX);
	else if (rc == -ERANGE)
		fprintf(stderr, "vfabric: --vl-layers %u: the routes need %u layers (VLs)\n",
			max, l->num);
	else if (rc == -ELOOP)
		fprintf(stderr, "vfabric: --vl-layers: a route loops between switches; no layering makes it deliver\n");
	else if (rc == -E2BIG)
		fprintf(stderr, "vfabric: --vl-layers: %u switches x %u LIDs is more than the layer table's %u MiB\n",
			f->num_switches, f->max_lid, VF_LAYERS_MEM >> 20);
	else if (rc)
		fprintf(stderr, "vfabric: --vl-layers: %s\n", strerror(-rc));
	else if (!quiet)
		fprintf(stderr, "vl layers: %u (SL n on VL n) in %.2f ms\n",
			l->num, (t1.tv_sec - t0.tv_sec) * 1e3 +
			(t1.tv_nsec - t0.tv_nsec) / 1e6);
	vf_progress_release();
	if (rc)
		return EXIT_USAGE;
	if (sl_out && (rc = write_sls(sl_out, f, l))) {
		fprintf(stderr, "vfabric: %s: %s\n", sl_out, strerror(-rc));
		return EXIT_USAGE;
	}
	return 0;
}
