// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Per-partition metrics (partload.h) as text and JSON.  The text lines
 * follow the route report's layout (a 14-column label, then the figures)
 * so that one check-routes run reads as one report.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "jsonout.h"
#include "partload.h"

static void print_load(FILE *out, const struct vf_partload_class *x)
{
	fprintf(out, "%" PRIu64 " pairs, %" PRIu64 " unreachable; %u links"
		" used, load max %" PRIu64 ", avg %.2f on those, %.2f on all,"
		" max/avg %.2f\n", x->pairs, x->unreachable, x->links_used,
		x->load_max, x->load_avg_used, x->load_avg,
		x->load_max_over_avg);
}

void vf_partload_print(FILE *out, const struct vf_partload *r,
		       const struct vf_traffic *tr)
{
	unsigned mgmt = 0;

	for (unsigned k = 0; k < r->num_classes; k++)
		mgmt += tr->cls[k].management;
	fprintf(out, "classes       %u measured, %u management (not measured);"
		" %u directed inter-switch links\n", r->num_classes - mgmt,
		mgmt, r->links);
	for (unsigned k = 0; k < r->num_classes; k++) {
		const struct vf_traffic_class *tc = &tr->cls[k];

		fprintf(out, "class         %s (0x%04x): ", tc->name, tc->pkey);
		if (tc->management)
			fprintf(out, "management, not measured\n");
		else
			print_load(out, &r->cls[k]);
	}
	fprintf(out, "all classes   ");
	print_load(out, &r->all);
	fprintf(out, "shared links  %u used by classes without a common port"
		"\n", r->shared_links);
	for (unsigned i = 0; i < r->num_shared; i++)
		fprintf(out, "shared        %s and %s: %u links\n",
			tr->cls[r->shared[i].a].name,
			tr->cls[r->shared[i].b].name, r->shared[i].links);
}

static void json_load(FILE *out, const struct vf_partload_class *x)
{
	fprintf(out, "\"pairs\":%" PRIu64 ",\"unreachable\":%" PRIu64
		",\"links_used\":%u,\"load_max\":%" PRIu64 ",\"load_sum\":%"
		PRIu64 ",\"load_avg_used\":%.4f,\"load_avg\":%.4f"
		",\"load_max_over_avg\":%.4f", x->pairs, x->unreachable,
		x->links_used, x->load_max, x->load_sum, x->load_avg_used,
		x->load_avg, x->load_max_over_avg);
}

void vf_partload_json(FILE *out, const struct vf_partload *r,
		      const struct vf_traffic *tr)
{
	fprintf(out, "{\"links\":%u,\"classes\":[", r->links);
	for (unsigned k = 0; k < r->num_classes; k++) {
		const struct vf_traffic_class *tc = &tr->cls[k];

		fprintf(out, "%s{\"name\":", k ? "," : "");
		vf_json_string(out, tc->name);
		fprintf(out, ",\"pkey\":\"0x%04x\",\"management\":%s",
			tc->pkey, tc->management ? "true" : "false");
		if (!tc->management) {
			fputc(',', out);
			json_load(out, &r->cls[k]);
		}
		fputc('}', out);
	}
	fprintf(out, "],\"all\":{");
	json_load(out, &r->all);
	fprintf(out, "},\"shared_links\":%u,\"shared\":[", r->shared_links);
	for (unsigned i = 0; i < r->num_shared; i++) {
		fprintf(out, "%s{\"a\":", i ? "," : "");
		vf_json_string(out, tr->cls[r->shared[i].a].name);
		fprintf(out, ",\"b\":");
		vf_json_string(out, tr->cls[r->shared[i].b].name);
		fprintf(out, ",\"links\":%u}", r->shared[i].links);
	}
	fprintf(out, "]}");
}

/* Class c's links, malloc'ed; *n how many (NULL when none or no memory). */
static struct vf_partload_link *links_of(const struct vf_partload *r,
					 const struct vf_fabric *f,
					 unsigned c, uint32_t *n)
{
	struct vf_partload_link *v;

	*n = vf_partload_links(r, f, c, NULL, 0);
	v = *n ? calloc(*n, sizeof(*v)) : NULL;
	if (v)
		vf_partload_links(r, f, c, v, *n);
	else
		*n = 0;
	return v;
}

void vf_partload_links_print(FILE *out, const struct vf_partload *r,
			     const struct vf_fabric *f,
			     const struct vf_traffic *tr, unsigned c)
{
	uint32_t n;
	struct vf_partload_link *v = links_of(r, f, c, &n);

	fprintf(out, "links of      %s (0x%04x): %u directed inter-switch "
		"links used\n", tr->cls[c].name, tr->cls[c].pkey, n);
	for (uint32_t i = 0; i < n; i++)
		fprintf(out, "link          0x%016" PRIx64 " %s/%u -> 0x%016"
			PRIx64 " %s/%u load %" PRIu64 "\n", v[i].from_guid,
			vf_node_desc(f, &f->nodes[v[i].from_node]),
			v[i].from_port, v[i].to_guid,
			vf_node_desc(f, &f->nodes[v[i].to_node]),
			v[i].to_port, v[i].load);
	free(v);
}

void vf_partload_links_json(FILE *out, const struct vf_partload *r,
			    const struct vf_fabric *f,
			    const struct vf_traffic *tr, unsigned c)
{
	uint32_t n;
	struct vf_partload_link *v = links_of(r, f, c, &n);

	fprintf(out, "{\"class\":");
	vf_json_string(out, tr->cls[c].name);
	fprintf(out, ",\"pkey\":\"0x%04x\",\"links\":[", tr->cls[c].pkey);
	for (uint32_t i = 0; i < n; i++) {
		fprintf(out, "%s{\"from\":\"0x%016" PRIx64 "\",\"from_desc\":",
			i ? "," : "", v[i].from_guid);
		vf_json_string(out, vf_node_desc(f, &f->nodes[v[i].from_node]));
		fprintf(out, ",\"from_port\":%u,\"to\":\"0x%016" PRIx64
			"\",\"to_desc\":", v[i].from_port, v[i].to_guid);
		vf_json_string(out, vf_node_desc(f, &f->nodes[v[i].to_node]));
		fprintf(out, ",\"to_port\":%u,\"load\":%" PRIu64 "}",
			v[i].to_port, v[i].load);
	}
	fprintf(out, "]}");
	/* links_of() malloc'ed it (the JSON path leaked it: found by ASan) */
	free(v);
}
