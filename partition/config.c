// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/config.h"
#include "partition/isolation.h"
#include "partition/ndpattern.h"

void vf_config_init(struct vf_config *c)
{
	memset(c, 0, sizeof(*c));
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
	for (unsigned i = 0; i < c->num_dgs; i++)
		if (!strcmp(c->dgs[i].name, name))
			return (int)i;
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
	for (unsigned i = 0; i < k->n; i++)
		if (!strcmp(k_name(k, i), name))
			return (int)i;
	return -1;
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
		char cycle[512] = "";
		size_t at = 0;
		unsigned from = 0;

		if (t < 0) {
			vf_diag_add(d, VF_DIAG_ERROR, k_at(k, i),
				    "%s '%s': includes unknown %s '%s'",
				    k->label, k_name(k, i), k->label,
				    inc->v[j]);
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
	char owner[96];

	snprintf(owner, sizeof(owner), "VirtualFabric '%s'", v->name);
	check_dg_refs(c, &v->members, &v->at, "Member", owner, d);
	check_dg_refs(c, &v->limited, &v->at, "LimitedMember", owner, d);
	check_dg_refs(c, &v->both, &v->at, "member (both)", owner, d);
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
	if (v->qos_group && !qos_group(c, v->qos_group))
		vf_diag_add(d, VF_DIAG_ERROR, &v->at,
			    "%s: unknown QOSGroup '%s'", owner, v->qos_group);
	if (v->qos_group && v->qos_given)
		vf_diag_add(d, VF_DIAG_ERROR, &v->at,
			    "%s: QOSGroup and per-VirtualFabric QoS settings exclude each other",
			    owner);
}

/*
 * Two enabled VFs with the same explicit P_Key must agree on Security:
 * one P_Key cannot both isolate limited members and not.  (The FM only
 * warns and means to upgrade the insecure one, which in practice does not
 * happen: reference/opa-fm.md 1.5.  A clear error is safer.)
 */
static void check_pkeys(const struct vf_config *c, struct vf_diag *d)
{
	for (unsigned i = 0; i < c->num_vfs; i++) {
		const struct vf_cfg_vf *a = &c->vfs[i];

		for (unsigned j = 0; j < i && a->enable && a->pkey >= 0; j++) {
			const struct vf_cfg_vf *b = &c->vfs[j];

			if (b->enable && b->pkey == a->pkey &&
			    b->security != a->security)
				vf_diag_add(d, VF_DIAG_ERROR, &a->at,
					    "VirtualFabric '%s': PKey 0x%04x collides with VirtualFabric '%s' (%s:%u), which has Security %d",
					    a->name, a->pkey, b->name,
					    b->at.file, b->at.line,
					    b->security);
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
 * used twice would mix two VFs' traffic), and explicit bandwidth shares of
 * the enabled, non-high-priority ones sum to at most 100%.
 */
static void check_qos(const struct vf_config *c, struct vf_diag *d)
{
	const char *sl_owner[16] = { 0 };
	unsigned bandwidth = 0;

	for (unsigned i = 0; i < c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];
		const struct vf_qos *q = vf_config_vf_qos(c, v);
		int sls[2] = { q->base_sl, q->mcast_sl };

		if (!v->enable || !q->enable)
			continue;
		if (q->mcast_sl >= 0 && q->base_sl < 0)
			vf_diag_add(d, VF_DIAG_ERROR, &v->at,
				    "VirtualFabric '%s': MulticastSL without BaseSL",
				    v->name);
		/* VFs sharing QoS share its SLs and its bandwidth */
		if (shares_qos_with_earlier(c, i))
			continue;
		for (unsigned s = 0; s < 2; s++) {
			if (sls[s] < 0 || (s == 1 && sls[1] == sls[0]))
				continue;
			if (sl_owner[sls[s]])
				vf_diag_add(d, VF_DIAG_ERROR, &v->at,
					    "VirtualFabric '%s': SL %d already in use by %s",
					    v->name, sls[s], sl_owner[sls[s]]);
			else
				sl_owner[sls[s]] = v->qos_group ? v->qos_group :
								  v->name;
		}
		if (!q->high_priority)
			bandwidth += q->bandwidth;
		if (bandwidth > 100) {
			vf_diag_add(d, VF_DIAG_ERROR, &v->at,
				    "VirtualFabric '%s': Bandwidth of the enabled virtual fabrics adds up to %u%%, over 100%%",
				    v->name, bandwidth);
			bandwidth = 0;	/* report once per excess */
		}
	}
}

static void check_mcgroups(const struct vf_config *c, struct vf_diag *d)
{
	for (unsigned i = 0; i < c->num_mcgroups; i++) {
		const struct vf_mcgroup *g = &c->mcgroups[i];
		bool found = false;

		for (unsigned j = 0; j < c->num_vfs && !found; j++)
			found = !strcmp(c->vfs[j].name, g->vf);
		if (!found)
			vf_diag_add(d, VF_DIAG_ERROR, &g->at,
				    "MulticastGroup: unknown VirtualFabric '%s'",
				    g->vf);
		if (!g->num_mgids)
			vf_diag_add(d, VF_DIAG_ERROR, &g->at,
				    "MulticastGroup of '%s': no MGID", g->vf);
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
	struct kind apps = { "Application", c->apps, sizeof(*c->apps),
			     c->num_apps, offsetof(struct vf_app, name),
			     offsetof(struct vf_app, at),
			     offsetof(struct vf_app, includes) };
	struct kind dgs = { "DeviceGroup", c->dgs, sizeof(*c->dgs),
			    c->num_dgs, offsetof(struct vf_cfg_dg, name),
			    offsetof(struct vf_cfg_dg, at),
			    offsetof(struct vf_cfg_dg, includes) };
	struct kind vfs = { "VirtualFabric", c->vfs, sizeof(*c->vfs),
			    c->num_vfs, offsetof(struct vf_cfg_vf, name),
			    offsetof(struct vf_cfg_vf, at), 0 };
	struct kind qgs = { "QOSGroup", c->qos_groups,
			    sizeof(*c->qos_groups), c->num_qos_groups,
			    offsetof(struct vf_qos_group, name),
			    offsetof(struct vf_qos_group, at), 0 };

	check_names(&apps, d);
	check_names(&dgs, d);
	check_names(&vfs, d);
	check_names(&qgs, d);
	check_includes(&apps, d);
	check_includes(&dgs, d);
	for (unsigned i = 0; i < c->num_vfs; i++)
		if (c->vfs[i].enable)
			check_vf(c, &c->vfs[i], d);
	check_pkeys(c, d);
	vf_warn_shared_pkeys(c, d);	/* partition/isolation.h */
	check_qos(c, d);
	check_routing(c, d);
	check_mcgroups(c, d);
	vf_em_validate(c, d);
	return d->errors - before;
}
