// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* vfabric --vl-layers: see layercmd.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The switch of a GUID in f, else VF_NONE. */
static uint32_t switch_of(const struct vf_fabric *f, uint64_t guid)
{
	uint32_t n = vf_fabric_find_guid(f, guid);

	return n != VF_NONE && vf_is_switch(&f->nodes[n]) ?
	       f->nodes[n].sw : VF_NONE;
}

static int bad_line(const char *path, unsigned line, const char *why)
{
	fprintf(stderr, "vfabric: %s:%u: %s\n", path, line, why);
	return EXIT_USAGE;
}

static int read_sls(const char *path, struct vf_cli_vls *v)
{
	const struct vf_fabric *f = v->f;
	FILE *in = fopen(path, "r");
	char buf[256];
	unsigned line = 0;
	int rc = 0;

	if (!in) {
		fprintf(stderr, "vfabric: %s: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	while (!rc && fgets(buf, sizeof(buf), in)) {
		unsigned long long guid;
		unsigned lid, sl;
		uint32_t s;
		char extra;

		line++;
		if (buf[0] == '#' || buf[strspn(buf, " \t\r\n")] == '\0')
			continue;
		if (sscanf(buf, "%llx %u %u %c", &guid, &lid, &sl, &extra) != 3)
			rc = bad_line(path, line, "expected \"switch-guid lid sl\"");
		else if ((s = switch_of(f, guid)) == VF_NONE)
			rc = bad_line(path, line, "no switch of that GUID in the fabric");
		else if (!lid || lid > f->max_lid || sl >= VF_NUM_SLS)
			rc = bad_line(path, line, "LID not in the fabric or SL over 15");
		else
			v->sls[(size_t)s * (f->max_lid + 1u) + lid] |=
				(uint16_t)(1u << sl);
	}
	fclose(in);
	return rc;
}

static int read_sl2vl(const char *path, struct vf_cli_vls *v)
{
	const struct vf_fabric *f = v->f;
	FILE *in = fopen(path, "r");
	char buf[512];
	unsigned line = 0;
	int rc = 0;

	if (!in) {
		fprintf(stderr, "vfabric: %s: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	while (!rc && fgets(buf, sizeof(buf), in)) {
		unsigned long long guid;
		unsigned in_port, out_port, vl[VF_NUM_SLS], ports;
		uint32_t s;
		int n;

		line++;
		if (buf[0] == '#' || buf[strspn(buf, " \t\r\n")] == '\0')
			continue;
		n = sscanf(buf, "%llx %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u",
			   &guid, &in_port, &out_port, &vl[0], &vl[1], &vl[2],
			   &vl[3], &vl[4], &vl[5], &vl[6], &vl[7], &vl[8],
			   &vl[9], &vl[10], &vl[11], &vl[12], &vl[13], &vl[14],
			   &vl[15]);
		if (n != 3 + VF_NUM_SLS) {
			rc = bad_line(path, line, "expected \"switch-guid in-port out-port\" and 16 VLs");
			break;
		}
		if ((s = switch_of(f, guid)) == VF_NONE) {
			rc = bad_line(path, line, "no switch of that GUID in the fabric");
			break;
		}
		ports = f->nodes[f->switches[s]].num_ports;
		if (in_port > ports || out_port > ports) {
			rc = bad_line(path, line, "port beyond the switch's ports");
			break;
		}
		if (!v->sl2vl[s]) {
			size_t size = (size_t)(ports + 1) * (ports + 1) *
				      VF_NUM_SLS;

			v->sl2vl[s] = malloc(size);
			if (!v->sl2vl[s]) {
				rc = bad_line(path, line, "out of memory");
				break;
			}
			memset(v->sl2vl[s], 0xff, size);
		}
		for (unsigned i = 0; i < VF_NUM_SLS; i++) {
			if (vl[i] > 15) {
				rc = bad_line(path, line, "a VL over 15");
				break;
			}
			v->sl2vl[s][((size_t)in_port * (ports + 1) + out_port) *
				    VF_NUM_SLS + i] = (uint8_t)vl[i];
		}
	}
	fclose(in);
	return rc;
}

static uint16_t file_sls(const void *ctx, uint32_t s, unsigned lid)
{
	const struct vf_cli_vls *v = ctx;
	uint16_t mask = v->sls[(size_t)s * (v->f->max_lid + 1u) + lid];

	return mask ? mask : 1;
}

static uint8_t identity_vl(const void *ctx, uint32_t s, uint8_t in,
			   uint8_t out, uint8_t sl)
{
	(void)ctx;
	(void)s;
	(void)in;
	(void)out;
	return sl;
}

static uint8_t file_vl(const void *ctx, uint32_t s, uint8_t in, uint8_t out,
		       uint8_t sl)
{
	struct vf_cli_vls *v = (struct vf_cli_vls *)ctx;
	unsigned ports = v->f->nodes[v->f->switches[s]].num_ports;
	uint8_t vl = v->sl2vl[s] ? v->sl2vl[s][((size_t)in * (ports + 1) +
					       out) * VF_NUM_SLS + sl] : 0xff;

	if (vl != 0xff)
		return vl;
	v->missing++;
	return 0;
}

int vf_cli_read_vls(const struct vf_fabric *f, const char *sls_path,
		    const char *sl2vl_path, struct vf_cli_vls *v,
		    struct vf_vl_model *m)
{
	int rc;

	memset(v, 0, sizeof(*v));
	v->f = f;
	v->sls = calloc((size_t)f->num_switches * (f->max_lid + 1u) + 1,
			sizeof(*v->sls));
	v->sl2vl = calloc(f->num_switches + 1, sizeof(*v->sl2vl));
	if (!v->sls || !v->sl2vl) {
		fprintf(stderr, "vfabric: out of memory for the SL tables\n");
		return EXIT_USAGE;
	}
	rc = read_sls(sls_path, v);
	if (!rc && sl2vl_path)
		rc = read_sl2vl(sl2vl_path, v);
	m->path_sls = file_sls;
	m->sl2vl = sl2vl_path ? file_vl : identity_vl;
	m->ctx = v;
	return rc;
}

void vf_cli_vls_free(struct vf_cli_vls *v)
{
	if (v->sl2vl)
		for (uint32_t s = 0; s < v->f->num_switches; s++)
			free(v->sl2vl[s]);
	free(v->sl2vl);
	free(v->sls);
	memset(v, 0, sizeof(*v));
}
