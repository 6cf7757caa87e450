// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Per-partition metrics (partload.h) as text and as JSON (json-c
 * objects).  The text lines follow the route report's layout (a
 * 14-column label, then the figures) so that one check-routes run reads
 * as one report.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "partload.h"
#include "vfjson.h"

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

/* x's figures into o: 0 or -ENOMEM */
static int json_load(struct json_object *o, const struct vf_partload_class *x)
{
	int rc = 0;

	rc |= vf_json_add(o, "pairs", json_object_new_uint64(x->pairs));
	rc |= vf_json_add(o, "unreachable",
			  json_object_new_uint64(x->unreachable));
	rc |= vf_json_add(o, "links_used",
			  json_object_new_int64(x->links_used));
	rc |= vf_json_add(o, "load_max", json_object_new_uint64(x->load_max));
	rc |= vf_json_add(o, "load_sum", json_object_new_uint64(x->load_sum));
	rc |= vf_json_add(o, "load_avg_used",
			  vf_json_fixed(x->load_avg_used, 4));
	rc |= vf_json_add(o, "load_avg", vf_json_fixed(x->load_avg, 4));
	rc |= vf_json_add(o, "load_max_over_avg",
			  vf_json_fixed(x->load_max_over_avg, 4));
	return rc;
}

/* o, or NULL (o released) when rc says memory ran out */
static struct json_object *built(struct json_object *o, int rc)
{
	if (!rc)
		return o;
	json_object_put(o);
	return NULL;
}

struct json_object *vf_partload_json(const struct vf_partload *r,
				     const struct vf_traffic *tr)
{
	struct json_object *o = json_object_new_object();
	struct json_object *cls = json_object_new_array();
	struct json_object *all = json_object_new_object();
	struct json_object *shared = json_object_new_array();
	int rc = 0;

	rc |= vf_json_add(o, "links", json_object_new_int64(r->links));
	for (unsigned k = 0; k < r->num_classes; k++) {
		const struct vf_traffic_class *tc = &tr->cls[k];
		struct json_object *c = json_object_new_object();

		rc |= vf_json_add(c, "name", vf_json_bytes(tc->name));
		rc |= vf_json_add(c, "pkey", vf_json_hex(tc->pkey, 4));
		rc |= vf_json_add(c, "management",
				  json_object_new_boolean(tc->management));
		if (!tc->management)
			rc |= json_load(c, &r->cls[k]);
		rc |= vf_json_push(cls, c);
	}
	rc |= vf_json_add(o, "classes", cls);
	rc |= json_load(all, &r->all);
	rc |= vf_json_add(o, "all", all);
	rc |= vf_json_add(o, "shared_links",
			  json_object_new_int64(r->shared_links));
	for (unsigned i = 0; i < r->num_shared; i++) {
		struct json_object *x = json_object_new_object();

		rc |= vf_json_add(x, "a",
				  vf_json_bytes(tr->cls[r->shared[i].a].name));
		rc |= vf_json_add(x, "b",
				  vf_json_bytes(tr->cls[r->shared[i].b].name));
		rc |= vf_json_add(x, "links",
				  json_object_new_int64(r->shared[i].links));
		rc |= vf_json_push(shared, x);
	}
	rc |= vf_json_add(o, "shared", shared);
	return built(o, rc);
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

struct json_object *vf_partload_links_json(const struct vf_partload *r,
					   const struct vf_fabric *f,
					   const struct vf_traffic *tr,
					   unsigned c)
{
	uint32_t n;
	struct vf_partload_link *v = links_of(r, f, c, &n);
	struct json_object *o = json_object_new_object();
	struct json_object *links = json_object_new_array();
	int rc = 0;

	rc |= vf_json_add(o, "class", vf_json_bytes(tr->cls[c].name));
	rc |= vf_json_add(o, "pkey", vf_json_hex(tr->cls[c].pkey, 4));
	for (uint32_t i = 0; i < n; i++) {
		struct json_object *l = json_object_new_object();

		rc |= vf_json_add(l, "from", vf_json_hex(v[i].from_guid, 16));
		rc |= vf_json_add(l, "from_desc", vf_json_bytes(vf_node_desc(
					  f, &f->nodes[v[i].from_node])));
		rc |= vf_json_add(l, "from_port",
				  json_object_new_int64(v[i].from_port));
		rc |= vf_json_add(l, "to", vf_json_hex(v[i].to_guid, 16));
		rc |= vf_json_add(l, "to_desc", vf_json_bytes(vf_node_desc(
					  f, &f->nodes[v[i].to_node])));
		rc |= vf_json_add(l, "to_port",
				  json_object_new_int64(v[i].to_port));
		rc |= vf_json_add(l, "load", json_object_new_uint64(v[i].load));
		rc |= vf_json_push(links, l);
	}
	rc |= vf_json_add(o, "links", links);
	/* links_of() malloc'ed it (the JSON path leaked it: found by ASan) */
	free(v);
	return built(o, rc);
}
