// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/config.h"
#include "partition/internal/fmmgmt.h"
#include "partition/isolation.h"
#include "partition/internal/mcfit.h"
#include "common/ndpattern.h"

void vf_config_init(struct vf_config *c)
{
	static uint64_t generations;

	memset(c, 0, sizeof(*c));
	c->generation = __atomic_add_fetch(&generations, 1, __ATOMIC_RELAXED);
	c->routing.spine_first = -1;
	c->routing.ar_enable = c->routing.ar_fine_grained = -1;
	c->routing.ar_lost_route_only = c->routing.ar_algorithm = -1;
	c->routing.ar_frequency = c->routing.ar_threshold = -1;
	c->path_selection = -1;
	c->partition_routing = -1;
}

void vf_config_hold(struct vf_config *c)
{
	__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
}

void vf_config_release(struct vf_config *c)
{
	if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL))
		return;
	vf_config_free(c);
	free(c);
}

int vf_names_add(struct vf_names *l, const char *name)
{
	char **grown = realloc(l->v, (l->n + 1) * sizeof(*l->v));

	if (!grown)
		return -ENOMEM;
	l->v = grown;
	l->v[l->n] = strdup(name);
	if (!l->v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

/*
 * Not thread-local: a __thread variable in the plugin makes glibc give each
 * of OpenSM's threads a dynamic TLS block that is never freed (valgrind,
 * t-valgrind).  Relaxed atomic adds: the SA threads may resolve at once.
 */
unsigned long vf_name_index_probes;

static void count_probe(void)
{
	__atomic_fetch_add(&vf_name_index_probes, 1, __ATOMIC_RELAXED);
}

/* FNV-1a */
static unsigned name_hash(const char *name)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

int vf_name_index_build(struct vf_name_index *x, const char *const *names,
			unsigned n)
{
	unsigned size = 4;

	while (size < 2 * n)
		size *= 2;
	x->names = names;
	x->mask = size - 1;
	x->slots = calloc(size, sizeof(*x->slots));
	if (!x->slots)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		unsigned h = name_hash(names[i]) & x->mask;

		while (x->slots[h] && strcmp(names[x->slots[h] - 1], names[i]))
			h = (h + 1) & x->mask;
		if (!x->slots[h])	/* a repeated name keeps the first */
			x->slots[h] = i + 1;
	}
	return 0;
}

int vf_name_index_find(const struct vf_name_index *x, const char *name)
{
	unsigned h = name_hash(name) & x->mask;

	for (; x->slots[h]; h = (h + 1) & x->mask) {
		count_probe();
		if (!strcmp(x->names[x->slots[h] - 1], name))
			return (int)x->slots[h] - 1;
	}
	return -1;
}

void vf_name_index_free(struct vf_name_index *x)
{
	free(x->slots);
	memset(x, 0, sizeof(*x));
}

/* The partition name of an internal partitions.conf name: up to '#'. */
static int user_len(const char *name)
{
	const char *hash = strchr(name, '#');

	return hash ? (int)(hash - name) : (int)strlen(name);
}

const char *vf_config_vf_label(const struct vf_cfg_vf *v, char *buf,
			       size_t size)
{
	if (v->from_partitions_conf)
		snprintf(buf, size, "partition '%.*s'", user_len(v->name),
			 v->name);
	else
		snprintf(buf, size, "VirtualFabric '%s'", v->name);
	return buf;
}

const char *vf_config_dg_label(const struct vf_cfg_dg *g, char *buf,
			       size_t size)
{
	const char *hash = strchr(g->name, '#');

	if (g->synthesized && hash)
		snprintf(buf, size, "partition '%.*s' (%s members)",
			 user_len(g->name), g->name, hash + 1);
	else
		snprintf(buf, size, "DeviceGroup '%s'", g->name);
	return buf;
}

/* Grow an array of structs by one zeroed element; NULL on ENOMEM. */
static void *push(void **base, unsigned *n, size_t size)
{
	char *grown = realloc(*base, (*n + 1) * size);

	if (!grown)
		return NULL;
	*base = grown;
	memset(grown + *n * size, 0, size);
	return grown + (*n)++ * size;
}

static void qos_init(struct vf_qos *q)
{
	*q = (struct vf_qos){ .base_sl = -1, .mcast_sl = -1, .hoq_life = -1 };
}

struct vf_app *vf_config_new_app(struct vf_config *c, const char *name,
				 struct vf_where at)
{
	struct vf_app *a = push((void **)&c->apps, &c->num_apps, sizeof(*a));

	if (!a || !(a->name = strdup(name)))
		return NULL;
	a->at = at;
	return a;
}

struct vf_cfg_dg *vf_config_new_dg(struct vf_config *c, const char *name,
				   struct vf_where at)
{
	struct vf_cfg_dg *g = push((void **)&c->dgs, &c->num_dgs, sizeof(*g));

	if (!g || !(g->name = strdup(name)))
		return NULL;
	g->at = at;
	return g;
}

struct vf_qos_group *vf_config_new_qos_group(struct vf_config *c,
					     const char *name,
					     struct vf_where at)
{
	struct vf_qos_group *q = push((void **)&c->qos_groups,
				      &c->num_qos_groups, sizeof(*q));

	if (!q || !(q->name = strdup(name)))
		return NULL;
	q->at = at;
	qos_init(&q->qos);
	return q;
}

struct vf_cfg_vf *vf_config_new_vf(struct vf_config *c, const char *name,
				   struct vf_where at)
{
	struct vf_cfg_vf *v = push((void **)&c->vfs, &c->num_vfs, sizeof(*v));

	if (!v || !(v->name = strdup(name)))
		return NULL;
	v->at = at;
	v->pkey = -1;
	qos_init(&v->qos);
	return v;
}

int vf_app_add_sid(struct vf_app *a, const struct vf_sid_rule *r)
{
	struct vf_sid_rule *n = push((void **)&a->sids, &a->num_sids,
				     sizeof(*n));

	if (!n)
		return -ENOMEM;
	*n = *r;
	return 0;
}

int vf_app_add_mgid(struct vf_app *a, const struct vf_mgid_rule *r)
{
	struct vf_mgid_rule *n = push((void **)&a->mgids, &a->num_mgids,
				      sizeof(*n));

	if (!n)
		return -ENOMEM;
	*n = *r;
	return 0;
}

int vf_guids_add(struct vf_guids *g, uint64_t guid)
{
	uint64_t *n = push((void **)&g->v, &g->n, sizeof(*n));

	if (!n)
		return -ENOMEM;
	*n = guid;
	return 0;
}

int vf_dg_add_desc(struct vf_cfg_dg *g, struct vf_ndpat *p)
{
	struct vf_ndpat **n = push((void **)&g->descs, &g->num_descs,
				   sizeof(*n));

	if (!n) {
		vf_ndpat_free(p);
		return -ENOMEM;
	}
	*n = p;
	return 0;
}

static void names_free(struct vf_names *l)
{
	for (unsigned i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static void dg_free(struct vf_cfg_dg *g)
{
	free(g->name);
	free(g->sysimg_guids.v);
	free(g->node_guids.v);
	free(g->port_guids.v);
	for (unsigned i = 0; i < g->num_descs; i++)
		vf_ndpat_free(g->descs[i]);
	free(g->descs);
	names_free(&g->includes);
}

static void vf_free(struct vf_cfg_vf *v)
{
	free(v->name);
	names_free(&v->members);
	names_free(&v->limited);
	names_free(&v->both);
	names_free(&v->apps);
	free(v->qos_group);
	free(v->raw_flags);
	names_free(&v->mgid_lines);
	for (unsigned i = 0; i < v->num_pc_entries; i++)
		free(v->pc_entries[i].group);
	free(v->pc_entries);
}

void vf_config_free(struct vf_config *c)
{
	for (unsigned i = 0; i < c->num_apps; i++) {
		free(c->apps[i].name);
		free(c->apps[i].sids);
		free(c->apps[i].mgids);
		names_free(&c->apps[i].includes);
	}
	free(c->apps);
	for (unsigned i = 0; i < c->num_dgs; i++)
		dg_free(&c->dgs[i]);
	free(c->dgs);
	for (unsigned i = 0; i < c->num_qos_groups; i++)
		free(c->qos_groups[i].name);
	free(c->qos_groups);
	for (unsigned i = 0; i < c->num_vfs; i++)
		vf_free(&c->vfs[i]);
	free(c->vfs);
	for (unsigned i = 0; i < c->num_mcgroups; i++) {
		free(c->mcgroups[i].vf);
		free(c->mcgroups[i].mgids);
	}
	free(c->mcgroups);
	free(c->pc_groups);
	free(c->routing.algorithm);
	free(c->routing.core_switches);
	free(c->routing.route_last);
	names_free(&c->routing.routing_order);
	names_free(&c->files);
	vf_em_config_free(&c->em);
	vf_config_init(c);
}

/* The Application All: every ServiceID and MGID. */
static int add_builtin_app(struct vf_config *c)
{
	struct vf_app *grown, *a;

	if (vf_config_app(c, "All"))
		return 0;
	grown = realloc(c->apps, (c->num_apps + 1) * sizeof(*c->apps));
	if (!grown)
		return -ENOMEM;
	c->apps = grown;
	a = &c->apps[c->num_apps];
	memset(a, 0, sizeof(*a));
	a->name = strdup("All");
	a->sids = malloc(sizeof(*a->sids));
	a->mgids = malloc(sizeof(*a->mgids));
	if (!a->name || !a->sids || !a->mgids) {
		free(a->name);
		free(a->sids);
		free(a->mgids);
		return -ENOMEM;
	}
	a->at = (struct vf_where){ "(built-in)", 0 };
	a->builtin = true;
	a->sids[0] = (struct vf_sid_rule){ VF_MATCH_RANGE, 0, UINT64_MAX };
	a->mgids[0] = (struct vf_mgid_rule){
		VF_MATCH_RANGE, { 0, 0 }, { UINT64_MAX, UINT64_MAX } };
	a->num_sids = a->num_mgids = 1;
	a->select = VF_APP_UNMATCHED_SID | VF_APP_UNMATCHED_MGID;
	c->num_apps++;
	return 0;
}

int vf_config_add_builtins(struct vf_config *c)
{
	static const struct {
		const char *name;
		unsigned types, select;
	} builtins[] = {
		{ "All", 0, VF_DG_ALL },
		{ "AllCAs", VF_DG_TYPE_CA, 0 },
		{ "AllFIs", VF_DG_TYPE_CA, 0 },
		{ "AllSWs", VF_DG_TYPE_SW, 0 },
		{ "AllSWE0s", 0, VF_DG_SWE0 },
		{ "AllEndNodes", VF_DG_TYPE_CA, VF_DG_SWE0 },
		{ "AllRouters", VF_DG_TYPE_ROUTER, 0 },
		{ "Self", 0, VF_DG_SELF },
	};

	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		struct vf_cfg_dg *grown, *g;

		if (vf_config_dg(c, builtins[i].name))
			continue;
		grown = realloc(c->dgs, (c->num_dgs + 1) * sizeof(*c->dgs));
		if (!grown)
			return -ENOMEM;
		c->dgs = grown;
		g = &c->dgs[c->num_dgs];
		memset(g, 0, sizeof(*g));
		g->name = strdup(builtins[i].name);
		if (!g->name)
			return -ENOMEM;
		g->at = (struct vf_where){ "(built-in)", 0 };
		g->builtin = true;
		g->node_types = builtins[i].types;
		g->select = builtins[i].select;
		c->num_dgs++;
	}
	return add_builtin_app(c);
}

unsigned vf_config_own_apps(const struct vf_config *c)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->num_apps; i++)
		n += !c->apps[i].builtin;
	return n;
}

unsigned vf_config_own_dgs(const struct vf_config *c)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->num_dgs; i++)
		n += !c->dgs[i].builtin && !c->dgs[i].synthesized;
	return n;
}

int vf_config_dg_index(const struct vf_config *c, const char *name)
{
	for (unsigned i = 0; i < c->num_dgs; i++) {
		count_probe();	/* counted too: see t-vfconfig */
		if (!strcmp(c->dgs[i].name, name))
			return (int)i;
	}
	return -1;
}

const struct vf_cfg_dg *vf_config_dg(const struct vf_config *c,
				     const char *name)
{
	int i = vf_config_dg_index(c, name);

	return i < 0 ? NULL : &c->dgs[i];
}

const struct vf_app *vf_config_app(const struct vf_config *c,
				   const char *name)
{
	for (unsigned i = 0; i < c->num_apps; i++)
		if (!strcmp(c->apps[i].name, name))
			return &c->apps[i];
	return NULL;
}

static const struct vf_qos_group *qos_group(const struct vf_config *c,
					    const char *name)
{
	for (unsigned i = 0; i < c->num_qos_groups; i++)
		if (!strcmp(c->qos_groups[i].name, name))
			return &c->qos_groups[i];
	return NULL;
}

/*
 * Objects of one kind, seen generically: the i-th one's name and place.
 * Lets the duplicate and cycle checks serve apps and groups alike.
 */
struct kind {
	const char *label;		/* "DeviceGroup", ... */
	const void *base;
	size_t size;
	unsigned n;
	size_t name_off, at_off, inc_off;	/* inc_off 0: no includes */
	const struct vf_cfg_dg *dgs;	/* the groups, for their labels */
	struct vf_name_index index;
	const char **names;
};

static const char *k_name(const struct kind *k, unsigned i)
{
	return *(char *const *)((const char *)k->base + i * k->size +
				k->name_off);
}

static const struct vf_where *k_at(const struct kind *k, unsigned i)
{
	return (const void *)((const char *)k->base + i * k->size + k->at_off);
}

static const struct vf_names *k_inc(const struct kind *k, unsigned i)
{
	return (const void *)((const char *)k->base + i * k->size +
			      k->inc_off);
}

static int k_find(const struct kind *k, const char *name)
{
	return vf_name_index_find(&k->index, name);
}

/* Index the kind's names; false (d->oom) when out of memory. */
static bool k_index(struct kind *k, struct vf_diag *d)
{
	k->names = malloc((k->n ? k->n : 1) * sizeof(*k->names));
	if (k->names) {
		for (unsigned i = 0; i < k->n; i++)
			k->names[i] = k_name(k, i);
		if (!vf_name_index_build(&k->index, k->names, k->n))
			return true;
	}
	free(k->names);
	k->names = NULL;
	d->oom = true;
	return false;
}

static void k_free(struct kind *k)
{
	vf_name_index_free(&k->index);
	free(k->names);
}

/* "DeviceGroup 'X'", or how a partitions.conf group is shown. */
static const char *k_label(const struct kind *k, unsigned i, char *buf,
			   size_t size)
{
	if (k->dgs)
		return vf_config_dg_label(&k->dgs[i], buf, size);
	snprintf(buf, size, "%s '%s'", k->label, k_name(k, i));
	return buf;
}

static void check_names(const struct kind *k, struct vf_diag *d)
{
	for (unsigned i = 0; i < k->n; i++) {
		int first = k_find(k, k_name(k, i));

		if (strlen(k_name(k, i)) > VF_CFG_MAX_NAME)
			vf_diag_add(d, VF_DIAG_ERROR, k_at(k, i),
				    "%s '%s': name longer than %d characters",
				    k->label, k_name(k, i), VF_CFG_MAX_NAME);
		if (first >= 0 && (unsigned)first < i)
			vf_diag_add(d, VF_DIAG_ERROR, k_at(k, i),
				    "%s '%s': duplicate name (first defined at %s:%u)",
				    k->label, k_name(k, i),
				    k_at(k, (unsigned)first)->file,
				    k_at(k, (unsigned)first)->line);
	}
}

/*
 * Depth-first through the includes from i; state 1 = on the current path,
 * 2 = done.  A back edge is a cycle: reported once, at the object that
 * closes it, with the path.
 */
static void walk_includes(const struct kind *k, unsigned i, uint8_t *state,
			  unsigned *path, unsigned depth, struct vf_diag *d)
{
	const struct vf_names *inc = k_inc(k, i);

	state[i] = 1;
	path[depth] = i;
	for (unsigned j = 0; j < inc->n; j++) {
		int t = k_find(k, inc->v[j]);
		char cycle[512] = "", label[160];
		size_t at = 0;
		unsigned from = 0;

		if (t < 0 && k->dgs && k->dgs[i].synthesized) {
			const char *name = k_name(k, i),
				   *hash = strchr(name, '#');

			vf_diag_add(d, VF_DIAG_ERROR, k_at(k, i),
				    "partition '%.*s': %s member '@%s' names unknown DeviceGroup '%s'",
				    hash ? (int)(hash - name) : (int)strlen(name),
				    name, hash ? hash + 1 : "", inc->v[j],
				    inc->v[j]);
			continue;
		}
		if (t < 0) {
			vf_diag_add(d, VF_DIAG_ERROR, k_at(k, i),
				    "%s: includes unknown %s '%s'",
				    k_label(k, i, label, sizeof(label)),
				    k->label, inc->v[j]);
			continue;
		}
		if (state[t] == 2)
			continue;
		if (state[t] == 0) {
			walk_includes(k, (unsigned)t, state, path, depth + 1, d);
			continue;
		}
		while (path[from] != (unsigned)t)
			from++;
		for (unsigned p = from; p <= depth && at < sizeof(cycle); p++)
			at += (size_t)snprintf(cycle + at, sizeof(cycle) - at,
					       "%s -> ", k_name(k, path[p]));
		vf_diag_add(d, VF_DIAG_ERROR, k_at(k, i),
			    "%s '%s': include cycle %s%s", k->label,
			    k_name(k, i), cycle, k_name(k, (unsigned)t));
	}
	state[i] = 2;
}

static void check_includes(const struct kind *k, struct vf_diag *d)
{
	uint8_t *state = calloc(k->n ? k->n : 1, 1);
	unsigned *path = calloc(k->n ? k->n : 1, sizeof(*path));

	if (!state || !path) {
		d->oom = true;
		goto out;
	}
	for (unsigned i = 0; i < k->n; i++)
		if (!state[i])
			walk_includes(k, i, state, path, 0, d);
out:
	free(state);
	free(path);
}

static void check_dg_refs(const struct vf_config *c, const struct vf_names *l,
			  const struct vf_where *at, const char *what,
			  const char *owner, struct vf_diag *d)
{
	for (unsigned i = 0; i < l->n; i++)
		if (!vf_config_dg(c, l->v[i]))
			vf_diag_add(d, VF_DIAG_ERROR, at,
				    "%s: %s names unknown DeviceGroup '%s'",
				    owner, what, l->v[i]);
}

const struct vf_qos *vf_config_vf_qos(const struct vf_config *c,
				      const struct vf_cfg_vf *v)
{
	const struct vf_qos_group *g =
		v->qos_group ? qos_group(c, v->qos_group) : NULL;

	return g ? &g->qos : &v->qos;
}

static void check_vf(const struct vf_config *c, const struct vf_cfg_vf *v,
		     struct vf_diag *d)
{
	const struct vf_qos_group *g =
		v->qos_group ? qos_group(c, v->qos_group) : NULL;
	char owner[96];

	vf_config_vf_label(v, owner, sizeof(owner));
	check_dg_refs(c, &v->members, &v->at, "Member", owner, d);
	check_dg_refs(c, &v->limited, &v->at, "LimitedMember", owner, d);
	check_dg_refs(c, &v->both, &v->at, "member (both)", owner, d);
	for (unsigned i = 0; i < v->num_pc_entries; i++) {
		static const char *const word[] = { "", "limited", "full",
						    "both" };
		const struct vf_pc_entry *e = &v->pc_entries[i];

		if (e->group && vf_config_dg_index(c, e->group) < 0)
			vf_diag_add(d, VF_DIAG_ERROR, &v->at,
				    "%s: %s member '@%s' names unknown DeviceGroup '%s'",
				    owner, word[e->membership & 3], e->group,
				    e->group);
	}
	if (!v->members.n && !v->limited.n && !v->both.n &&
	    !v->from_partitions_conf)
		vf_diag_add(d, VF_DIAG_ERROR, &v->at,
			    "%s: no Member or LimitedMember", owner);
	if (!v->apps.n && !v->from_partitions_conf)
		vf_diag_add(d, VF_DIAG_ERROR, &v->at, "%s: no Application",
			    owner);
	for (unsigned i = 0; i < v->apps.n; i++)
		if (!vf_config_app(c, v->apps.v[i]))
			vf_diag_add(d, VF_DIAG_ERROR, &v->at,
				    "%s: Application names unknown Application '%s'",
				    owner, v->apps.v[i]);
	if (v->qos_group && !g)
		vf_diag_add(d, VF_DIAG_ERROR, &v->at,
			    "%s: unknown QOSGroup '%s'", owner, v->qos_group);
	/* the FM drops a QOSGroup without <Enable>1</Enable> at parse time */
	if (g && !g->qos.enable)
		vf_diag_add(d, VF_DIAG_ERROR, &v->at,
			    "%s: QOSGroup '%s' (%s:%u) is not enabled (a QOSGroup without <Enable>1</Enable> does not exist for the FM)",
			    owner, v->qos_group, g->at.file, g->at.line);
	if (v->qos_group && v->pkey < 0)
		vf_diag_add(d, VF_DIAG_ERROR, &v->at,
			    "%s: a VirtualFabric with a QOSGroup must give its <PKey> (as the FM)",
			    owner);
	if (v->qos_group && v->qos_given)
		vf_diag_add(d, VF_DIAG_ERROR, &v->at,
			    "%s: QOSGroup and per-VirtualFabric QoS settings exclude each other",
			    owner);
}

/*
 * The FM's two styles of QoS do not mix: once a configuration has an
 * enabled QOSGroup, every enabled VF must name one ("Configuration
 * includes QOSGroups section. Cannot also include VFs with explicit QOS
 * parameters", fm_xml.c).  Reported once per VF, naming the group.
 */
static void check_qos_style(const struct vf_config *c, struct vf_diag *d)
{
	const struct vf_qos_group *first = NULL;
	char owner[96];

	for (unsigned i = 0; i < c->num_qos_groups && !first; i++)
		if (c->qos_groups[i].qos.enable)
			first = &c->qos_groups[i];
	for (unsigned i = 0; first && i < c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];

		if (!v->enable || v->qos_group)
			continue;
		vf_diag_add(d, VF_DIAG_ERROR, &v->at,
			    "%s: has no QOSGroup, but the configuration has the enabled QOSGroup '%s' (%s:%u): the FM takes either QOSGroups for every VirtualFabric or per-VirtualFabric QoS, not both",
			    vf_config_vf_label(v, owner, sizeof(owner)),
			    first->name, first->at.file, first->at.line);
	}
}

/*
 * Two enabled VFs with the same explicit P_Key must agree on Security:
 * one P_Key cannot both isolate limited members and not.  (The FM only
 * warns and means to upgrade the insecure one, which in practice does not
 * happen: reference/opa-fm.md 1.5.  A clear error is safer.)  When one of
 * them is Standby, nothing is programmed with both: a warning, as the FM.
 */
static void check_pkeys(const struct vf_config *c, struct vf_diag *d)
{
	for (unsigned i = 0; i < c->num_vfs; i++) {
		const struct vf_cfg_vf *a = &c->vfs[i];

		for (unsigned j = 0; j < i && a->enable && a->pkey >= 0; j++) {
			const struct vf_cfg_vf *b = &c->vfs[j];
			bool standby = a->standby || b->standby;
			char la[96], lb[96];

			if (b->enable && b->pkey == a->pkey &&
			    b->security != a->security)
				vf_diag_add(d, standby ? VF_DIAG_WARN :
						       VF_DIAG_ERROR, &a->at,
					    "%s: PKey 0x%04x collides with %s (%s:%u), which has Security %d%s",
					    vf_config_vf_label(a, la, sizeof(la)),
					    a->pkey,
					    vf_config_vf_label(b, lb, sizeof(lb)),
					    b->at.file, b->at.line,
					    b->security, standby ?
					    " (one of them is Standby: the FM warns; an error once both are active)" :
					    "");
		}
	}
}

/*
 * Is VF i's QoS one an earlier enabled VF already has: the same QOSGroup,
 * or (the FM's implicit groups of per-VF QoS) identical settings with an
 * explicit BaseSL?
 */
static bool same_qos(const struct vf_qos *a, const struct vf_qos *b)
{
	return a->enable == b->enable && a->base_sl == b->base_sl &&
	       a->mcast_sl == b->mcast_sl && a->bandwidth == b->bandwidth &&
	       a->high_priority == b->high_priority &&
	       a->pkt_lifetime_mult == b->pkt_lifetime_mult &&
	       a->hoq_life == b->hoq_life;
}

static bool shares_qos_with_earlier(const struct vf_config *c, unsigned i)
{
	const struct vf_cfg_vf *v = &c->vfs[i];
	const struct vf_qos *q = vf_config_vf_qos(c, v);

	for (unsigned j = 0; j < i; j++) {
		const struct vf_cfg_vf *o = &c->vfs[j];

		if (!o->enable)
			continue;
		if (v->qos_group && o->qos_group &&
		    !strcmp(o->qos_group, v->qos_group))
			return true;
		if (!v->qos_group && !o->qos_group && q->base_sl >= 0 &&
		    same_qos(q, &o->qos))
			return true;
	}
	return false;
}

/*
 * Explicit SLs are unique across QoS settings (a BaseSL or MulticastSL
 * used twice would mix two VFs' traffic).
 */
static void check_qos(const struct vf_config *c, struct vf_diag *d)
{
	const struct vf_cfg_vf *sl_owner[16] = { 0 };

	for (unsigned i = 0; i < c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];
		const struct vf_qos *q = vf_config_vf_qos(c, v);
		int sls[2] = { q->base_sl, q->mcast_sl };
		char owner[96], other[96];

		if (!v->enable || !q->enable)
			continue;
		vf_config_vf_label(v, owner, sizeof(owner));
		if (q->mcast_sl >= 0 && q->base_sl < 0)
			vf_diag_add(d, VF_DIAG_ERROR, &v->at,
				    "%s: MulticastSL without BaseSL", owner);
		/* VFs sharing QoS share its SLs and its bandwidth */
		if (shares_qos_with_earlier(c, i))
			continue;
		for (unsigned s = 0; s < 2; s++) {
			const struct vf_cfg_vf *o;

			if (sls[s] < 0 || (s == 1 && sls[1] == sls[0]))
				continue;
			o = sl_owner[sls[s]];
			if (!o) {
				sl_owner[sls[s]] = v;
				continue;
			}
			if (o->qos_group)
				snprintf(other, sizeof(other), "QOSGroup '%s'",
					 o->qos_group);
			else
				vf_config_vf_label(o, other, sizeof(other));
			vf_diag_add(d, VF_DIAG_ERROR, &v->at,
				    "%s: SL %d already in use by %s", owner,
				    sls[s], other);
		}
	}
}

/*
 * The FM's parse-time warnings of QoS settings it ignores (fm_xml.c
 * validateQosSettings and the VF parser): settings of a VF whose QoS is
 * off, and a Bandwidth next to HighPriority.  Warnings, as in the FM, so
 * that --strict refuses what its config_check -s refuses.  The sums of
 * Bandwidth are checked once, by vf_qos_check() (partition/qos.c), which
 * leaves out Standby VFs as the FM does.
 */
static void check_ignored_qos(const struct vf_config *c, struct vf_diag *d)
{
	for (unsigned i = 0; i < c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];
		const struct vf_qos *q = &v->qos;
		char owner[96];

		if (!v->enable || v->from_partitions_conf || v->qos_group)
			continue;
		vf_config_vf_label(v, owner, sizeof(owner));
		if (!q->enable) {
			const struct {
				bool set;
				const char *el;
			} ign[] = {
				{ q->bandwidth > 0, "Bandwidth" },
				{ q->base_sl >= 0, "BaseSL" },
				{ q->mcast_sl >= 0, "MulticastSL" },
				{ q->high_priority, "HighPriority" },
				{ q->pkt_lifetime_mult > 0, "PktLifeTimeMult" },
				{ q->hoq_life >= 0, "HoqLife" },
			};

			for (size_t k = 0; k < sizeof(ign) / sizeof(ign[0]); k++)
				if (ign[k].set)
					vf_diag_add(d, VF_DIAG_WARN, &v->at,
						    "%s: <%s> without <QOS>1</QOS> is ignored (the FM: \"QOS disabled, ignoring %s setting\")",
						    owner, ign[k].el, ign[k].el);
			continue;
		}
		if (q->high_priority && q->bandwidth)
			vf_diag_add(d, VF_DIAG_WARN, &v->at,
				    "%s: <Bandwidth> %u%% is ignored with <HighPriority>1</HighPriority> (the FM: \"QOS High Priority, ignoring Bandwidth setting\")",
				    owner, q->bandwidth);
	}
	for (unsigned i = 0; i < c->num_qos_groups; i++) {
		const struct vf_qos_group *g = &c->qos_groups[i];

		if (g->qos.enable && g->qos.high_priority && g->qos.bandwidth)
			vf_diag_add(d, VF_DIAG_WARN, &g->at,
				    "QOSGroup '%s': <Bandwidth> %u%% is ignored with <HighPriority>1</HighPriority> (the FM: \"QOS High Priority, ignoring Bandwidth setting\")",
				    g->name, g->qos.bandwidth);
	}
}

/* The same MGID earlier in group i or in an earlier group of its VF. */
static const struct vf_mcgroup *dup_mgid(const struct vf_config *c,
					 unsigned i, unsigned m)
{
	const struct vf_mcgroup *g = &c->mcgroups[i];
	const struct vf_mgid *x = &g->mgids[m];

	for (unsigned j = 0; j <= i; j++) {
		const struct vf_mcgroup *o = &c->mcgroups[j];
		unsigned end = j == i ? m : o->num_mgids;

		if (strcmp(o->vf, g->vf))
			continue;
		for (unsigned k = 0; k < end; k++)
			if (o->mgids[k].hi == x->hi && o->mgids[k].lo == x->lo)
				return o;
	}
	return NULL;
}

/*
 * Each group names an existing VF and MGIDs; an MGID twice in one VF is
 * an error (the FM refuses the file); a group the FM would disable at SM
 * start (mcfit.c) is a warning and is not created (plan.c).  What depends
 * on an automatic P_Key or SL is judged at plan time.
 */
static void check_mcgroups(const struct vf_config *c, struct vf_diag *d)
{
	for (unsigned i = 0; i < c->num_mcgroups; i++) {
		const struct vf_mcgroup *g = &c->mcgroups[i];
		const struct vf_cfg_vf *v = NULL;
		char why[256];

		for (unsigned j = 0; j < c->num_vfs && !v; j++)
			if (!strcmp(c->vfs[j].name, g->vf))
				v = &c->vfs[j];
		if (!v)
			vf_diag_add(d, VF_DIAG_ERROR, &g->at,
				    "MulticastGroup: unknown VirtualFabric '%s'",
				    g->vf);
		if (!g->num_mgids)
			vf_diag_add(d, VF_DIAG_ERROR, &g->at,
				    "MulticastGroup of '%s': no MGID", g->vf);
		for (unsigned m = 0; m < g->num_mgids; m++) {
			const struct vf_mcgroup *o = dup_mgid(c, i, m);

			if (o)
				vf_diag_add(d, VF_DIAG_ERROR, &g->at,
					    "MulticastGroup of '%s': MGID 0x%016llx:0x%016llx given twice for the VirtualFabric (also at %s:%u); the FM refuses this",
					    g->vf,
					    (unsigned long long)g->mgids[m].hi,
					    (unsigned long long)g->mgids[m].lo,
					    o->at.file, o->at.line);
		}
		if (v && v->enable &&
		    vf_mcgroup_unfit(c, g, v, v->pkey, -1, why, sizeof(why)))
			vf_diag_add(d, VF_DIAG_WARN, &g->at,
				    "MulticastGroup of '%s': %s; the FM disables such a group, and it is not created",
				    g->vf, why);
	}
}

static void check_routing(const struct vf_config *c, struct vf_diag *d)
{
	const struct vf_cfg_routing *r = &c->routing;
	const char *single[2] = { r->core_switches, r->route_last };
	const char *what[2] = { "FatTreeTopology/CoreSwitches",
				"FatTreeTopology/RouteLast" };

	for (unsigned i = 0; i < 2; i++)
		if (single[i] && !vf_config_dg(c, single[i]))
			vf_diag_add(d, VF_DIAG_ERROR, &r->at,
				    "Sm: %s names unknown DeviceGroup '%s'",
				    what[i], single[i]);
	check_dg_refs(c, &r->routing_order, &r->at,
		      "DGShortestPathTopology/RoutingOrder", "Sm", d);
	if (r->routing_order.n > VF_CFG_MAX_ORDER)
		vf_diag_add(d, VF_DIAG_ERROR, &r->at,
			    "Sm: RoutingOrder lists %u device groups, at most %d",
			    r->routing_order.n, VF_CFG_MAX_ORDER);
}

unsigned vf_config_validate(const struct vf_config *c, struct vf_diag *d)
{
	unsigned before = d->errors;
	struct kind apps = {
		.label = "Application", .base = c->apps,
		.size = sizeof(*c->apps), .n = c->num_apps,
		.name_off = offsetof(struct vf_app, name),
		.at_off = offsetof(struct vf_app, at),
		.inc_off = offsetof(struct vf_app, includes) };
	struct kind dgs = {
		.label = "DeviceGroup", .base = c->dgs,
		.size = sizeof(*c->dgs), .n = c->num_dgs,
		.name_off = offsetof(struct vf_cfg_dg, name),
		.at_off = offsetof(struct vf_cfg_dg, at),
		.inc_off = offsetof(struct vf_cfg_dg, includes),
		.dgs = c->dgs };
	struct kind vfs = {
		.label = "VirtualFabric", .base = c->vfs,
		.size = sizeof(*c->vfs), .n = c->num_vfs,
		.name_off = offsetof(struct vf_cfg_vf, name),
		.at_off = offsetof(struct vf_cfg_vf, at) };
	struct kind qgs = {
		.label = "QOSGroup", .base = c->qos_groups,
		.size = sizeof(*c->qos_groups), .n = c->num_qos_groups,
		.name_off = offsetof(struct vf_qos_group, name),
		.at_off = offsetof(struct vf_qos_group, at) };
	struct kind *kinds[] = { &apps, &dgs, &vfs, &qgs };

	for (unsigned k = 0; k < 4; k++)
		if (k_index(kinds[k], d))
			check_names(kinds[k], d);
	if (apps.index.slots)
		check_includes(&apps, d);
	if (dgs.index.slots)
		check_includes(&dgs, d);
	for (unsigned k = 0; k < 4; k++)
		k_free(kinds[k]);
	for (unsigned i = 0; i < c->num_vfs; i++)
		if (c->vfs[i].enable)
			check_vf(c, &c->vfs[i], d);
	check_qos_style(c, d);
	check_pkeys(c, d);
	vf_warn_shared_pkeys(c, d);	/* partition/isolation.h */
	check_qos(c, d);
	check_ignored_qos(c, d);
	vf_config_check_mgmt(c, d);
	check_routing(c, d);
	check_mcgroups(c, d);
	vf_em_validate(c, d);
	return d->errors - before;
}
