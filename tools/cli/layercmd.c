// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* vfabric --vl-layers: see layercmd.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "partition/qoslayers.h"
#include "tools/cli/cfgcmd.h"
#include "tools/cli/layercmd.h"
#include "tools/cli/progress.h"

#define EXIT_USAGE 2
/* --sl2vl table entries: not in the file; not in it, and counted */
#define VF_CLI_VL_UNSET 0xff
#define VF_CLI_VL_MISSING 0xfe

/*
 * One line per ordered pair of CA LIDs above layer 0: "<SLID> <DLID>
 * <SL>", as PathRecords give them; every other pair is on SL 0.
 */
static int write_sls(const char *path, const struct vf_layers *l)
{
	FILE *out = fopen(path, "w");
	int rc = 0;

	if (!out)
		return -errno;
	fprintf(out, "# vfabric --vl-layers: %u layers %s, by %s; the "
		"SL of the data from one host LID to another (SL n on VL n);\n"
		"# not listed: SL 0\n"
		"# slid dlid sl\n", l->num,
		l->both_ways ? "both ways" : "one way",
		vf_layers_unit(l));
	for (unsigned a = 0; l->pair && a <= l->max_lid; a++)
		for (unsigned b = 0; l->src_cls[a] != VF_NONE &&
				     b <= l->max_lid; b++) {
			unsigned sl = vf_layer_of(l, a, b);

			if (sl)
				fprintf(out, "%u %u %u\n", a, b, sl);
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
	rc = vf_layers_build(f, t, max, true, l);
	if (rc == -ERANGE) {	/* both ways do not fit: one way may */
		vf_layers_free(l);
		rc = vf_layers_build(f, t, max, false, l);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	vf_progress_hold();
	if (rc == -ERANGE)
		fprintf(stderr, "vfabric: --vl-layers %u: the routes need more than %u layers (VLs), even one way\n",
			max, max);
	else if (!rc && !l->both_ways)
		fprintf(stderr, "vfabric: warning: --vl-layers %u: with a pair of hosts on one layer both ways the routes need more than %u layers; one way they need %u: a connection the IB CM sets up (RC over rdma_cm) answers on its request's SL, and its replies may cross layers; traffic on each side's own PathRecord SL (UD, RC connected out of band) is deadlock-free\n",
			max, max, l->num);
	else if (rc == -ELOOP)
		fprintf(stderr, "vfabric: --vl-layers: a route loops between switches; no layering makes it deliver\n");
	else if (rc == -E2BIG)
		fprintf(stderr, "vfabric: --vl-layers: %s%u sources by %u destinations is more than the pair table's %u MiB\n",
			l->both_ways ? "" : "both ways the routes need more than the layers allowed, and one way ",
			l->nsrc, l->ndst, VF_LAYERS_MEM >> 20);
	else if (rc)
		fprintf(stderr, "vfabric: --vl-layers: %s\n", strerror(-rc));
	else if (!quiet)
		fprintf(stderr, "vl layers: %u %s, by %s (SL n on VL n) in %.2f ms\n",
			l->num, l->both_ways ? "both ways" : "one way",
			vf_layers_unit(l),
			(t1.tv_sec - t0.tv_sec) * 1e3 +
			(t1.tv_nsec - t0.tv_nsec) / 1e6);
	vf_progress_release();
	if (rc)
		return EXIT_USAGE;
	if (sl_out && (rc = write_sls(sl_out, l))) {
		fprintf(stderr, "vfabric: %s: %s\n", sl_out, strerror(-rc));
		return EXIT_USAGE;
	}
	return 0;
}

int vf_cli_qos_layers(struct vf_cli_sweep *sw, const struct vf_layers *l,
		      unsigned vls)
{
	const struct vf_plan *plan;
	struct vf_qos_layering y;
	struct vf_diag d = { 0 };
	struct vf_qos_prog q;
	char line[1024];
	int rc = 0;

	if (l->num < 2 || !vf_qos_wanted(sw->c))
		return 0;
	plan = vf_cli_plan(sw);
	if (!plan)
		return EXIT_USAGE;
	if (vf_qos_build(sw->c, plan, &q, &d) || !q.active) {
		vf_diag_free(&d);
		return 0;	/* vfabric check FILE says why */
	}
	vf_diag_free(&d);
	vf_progress_hold();
	if (vf_qos_layering(&q, l->num, vls, &y)) {
		fprintf(stderr, "vfabric: %u QoS classes over %u VL layers need more SLs than the 16 there are: the plugin would refuse these tables\n",
			q.n, l->num);
		rc = EXIT_USAGE;
	} else {
		vf_qos_layering_summary(&q, &y, line, sizeof(line));
		fprintf(stderr, "qos: %s\n", line);
		for (unsigned i = 0; vf_qos_layering_shared(&q, &y, sw->c, plan,
				i, line, sizeof(line)); i++)
			fprintf(stderr, "qos: %u VL layers on %u VLs leave room for %u class groups: %s\n",
				l->num, vls, y.groups, line);
	}
	vf_progress_release();
	return rc;
}

/* The switch of a GUID in f, else VF_NONE. */
static uint32_t switch_of(const struct vf_fabric *f, uint64_t guid)
{
	uint32_t n = vf_fabric_find_guid(f, guid);

	return n != VF_NONE && vf_is_switch(&f->nodes[n]) ?
	       f->nodes[n].sw : VF_NONE;
}

/* The switch a host LID's traffic enters at, else VF_NONE. */
static uint32_t entry_of(const struct vf_fabric *f, unsigned long lid)
{
	uint32_t port = lid && lid <= f->max_lid ? f->lid_port[lid] : VF_NONE;
	const struct vf_port *peer;

	if (port == VF_NONE || vf_is_switch(&f->nodes[f->ports[port].node]))
		return VF_NONE;
	peer = vf_usable_peer(f, &f->ports[port]);
	return peer && vf_is_switch(&f->nodes[peer->node]) ?
	       f->nodes[peer->node].sw : VF_NONE;
}

static int bad_line(const char *path, unsigned line, const char *why)
{
	fprintf(stderr, "vfabric: %s:%u: %s\n", path, line, why);
	return EXIT_USAGE;
}

/*
 * Split a line into at most max unsigned numbers (decimal, or hex with
 * 0x): how many, -1 on anything else or a value over ULLONG_MAX.
 */
static int numbers(const char *line, unsigned long long *v, int max)
{
	int n = 0;

	for (;;) {
		char *end;

		line += strspn(line, " \t\r\n");
		if (!*line)
			return n;
		if (n == max || *line == '-')
			return -1;
		errno = 0;
		v[n++] = strtoull(line, &end, 0);
		if (end == line || errno ||
		    (*end && !strchr(" \t\r\n", *end)))
			return -1;
		line = end;
	}
}

/* Blank or a comment. */
static bool skip(const char *line)
{
	line += strspn(line, " \t\r\n");
	return !*line || *line == '#';
}

/*
 * "switch-guid lid sl" (a 0x GUID of 16 digits) or "slid dlid sl" (as
 * --sl-out and PathRecords): the SL into v's table of the switch.
 */
static int take_sl(struct vf_cli_vls *v, const char *path, unsigned line,
		   const char *text, const unsigned long long *x)
{
	const struct vf_fabric *f = v->f;
	bool by_guid = !strncmp(text + strspn(text, " \t"), "0x", 2) &&
		       strcspn(text + strspn(text, " \t") + 2, " \t") == 16;
	uint32_t s = by_guid ? switch_of(f, x[0]) : entry_of(f, x[0]);
	uint32_t owner;

	if (s == VF_NONE)
		return bad_line(path, line, by_guid ?
				"no switch of that GUID in the fabric" :
				"the source is not a host LID of the fabric");
	if (!x[1] || x[1] > f->max_lid || x[2] >= VF_NUM_SLS)
		return bad_line(path, line, "LID not in the fabric or SL over 15");
	owner = vf_fabric_lid_node(f, (unsigned)x[1]);
	if (owner == VF_NONE || vf_is_switch(&f->nodes[owner]))
		return bad_line(path, line, "the destination is not a host LID (routes to switch LIDs are not checked)");
	v->sls[(size_t)s * (f->max_lid + 1u) + x[1]] |= (uint16_t)(1u << x[2]);
	return 0;
}

static int take_sl2vl(struct vf_cli_vls *v, const char *path, unsigned line,
		      const char *text, const unsigned long long *x)
{
	const struct vf_fabric *f = v->f;
	uint32_t s = switch_of(f, x[0]);
	unsigned ports;
	size_t row;

	(void)text;
	if (s == VF_NONE)
		return bad_line(path, line, "no switch of that GUID in the fabric");
	ports = f->nodes[f->switches[s]].num_ports;
	if (x[1] > ports || x[2] > ports)
		return bad_line(path, line, "port beyond the switch's ports");
	for (unsigned i = 0; i < VF_NUM_SLS; i++)
		if (x[3 + i] > 15)
			return bad_line(path, line, "a VL over 15");
	if (!v->sl2vl[s]) {
		size_t size = (size_t)(ports + 1) * (ports + 1) * VF_NUM_SLS;

		v->sl2vl[s] = malloc(size);
		if (!v->sl2vl[s])
			return bad_line(path, line, "out of memory");
		memset(v->sl2vl[s], VF_CLI_VL_UNSET, size);
	}
	row = ((size_t)x[1] * (ports + 1) + x[2]) * VF_NUM_SLS;
	for (unsigned i = 0; i < VF_NUM_SLS; i++)
		v->sl2vl[s][row + i] = (uint8_t)x[3 + i];
	return 0;
}

/*
 * Every line of path that is not blank or a comment, as `fields` numbers
 * handed to take(); the first bad one is said (file:line) and ends it.
 */
static int read_lines(const char *path, struct vf_cli_vls *v, int fields,
		      const char *expect,
		      int (*take)(struct vf_cli_vls *v, const char *path,
				  unsigned line, const char *text,
				  const unsigned long long *x))
{
	FILE *in = fopen(path, "r");
	unsigned long long x[3 + VF_NUM_SLS];
	char *buf = NULL;
	size_t cap = 0;
	unsigned line = 0;
	int rc = 0;

	if (!in) {
		fprintf(stderr, "vfabric: %s: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	while (!rc && getline(&buf, &cap, in) >= 0) {
		line++;
		if (skip(buf))
			continue;
		if (numbers(buf, x, fields) != fields)
			rc = bad_line(path, line, expect);
		else
			rc = take(v, path, line, buf, x);
	}
	free(buf);
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

/*
 * A port pair the file does not give: VL 0, counted once per pair (its
 * row is then marked, in a switch's table made for the purpose if need
 * be: out of memory, it is counted again).
 */
static uint8_t file_vl(const void *ctx, uint32_t s, uint8_t in, uint8_t out,
		       uint8_t sl)
{
	struct vf_cli_vls *v = (struct vf_cli_vls *)ctx;
	unsigned ports = v->f->nodes[v->f->switches[s]].num_ports;
	size_t row = ((size_t)in * (ports + 1) + out) * VF_NUM_SLS;
	uint8_t vl;

	if (!v->sl2vl[s]) {
		size_t size = (size_t)(ports + 1) * (ports + 1) * VF_NUM_SLS;

		v->sl2vl[s] = malloc(size);
		if (!v->sl2vl[s]) {
			v->missing++;
			return 0;
		}
		memset(v->sl2vl[s], VF_CLI_VL_UNSET, size);
	}
	vl = v->sl2vl[s][row + sl];
	if (vl == VF_CLI_VL_UNSET) {
		v->missing++;
		memset(v->sl2vl[s] + row, VF_CLI_VL_MISSING, VF_NUM_SLS);
		vl = VF_CLI_VL_MISSING;
	}
	return vl == VF_CLI_VL_MISSING ? 0 : vl;
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
	rc = read_lines(sls_path, v, 3,
			"expected \"switch-guid lid sl\" or \"slid dlid sl\"",
			take_sl);
	if (!rc && sl2vl_path)
		rc = read_lines(sl2vl_path, v, 3 + VF_NUM_SLS,
				"expected \"switch-guid in-port out-port\" and 16 VLs",
				take_sl2vl);
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
