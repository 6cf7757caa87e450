// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "common/ndpattern.h"
#include "partition/pathsel.h"
#include "partition/values.h"
#include "partition/internal/xmlconf.h"
#include "routing/tenancy.h"

/* The state of one file's load. */
struct xml_load {
	struct vf_config *c;
	struct vf_diag *d;
	const char *file;	/* owned by c->files */
};

/* s without leading and trailing blanks (in place). */
static char *trim(char *s)
{
	size_t len;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	len = strlen(s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' ||
		       s[len - 1] == '\n' || s[len - 1] == '\r'))
		s[--len] = '\0';
	return s;
}

static const char *el_name(const xmlNode *n)
{
	return (const char *)n->name;
}

static bool is(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !strcmp(el_name(n), name);
}

static struct vf_where where(const struct xml_load *x, const xmlNode *n)
{
	return (struct vf_where){ x->file, (unsigned)xmlGetLineNo(n) };
}

/*
 * The element's own text (its text and CDATA children, trimmed by the
 * value parsers), copied into buf; NULL when longer than size - 1.
 * Entity references are not followed: opafm.xml has none, and expanding
 * them is how hostile files blow up.
 */
static const char *text_of(const xmlNode *n, char *buf, size_t size)
{
	size_t len = 0;

	for (const xmlNode *t = n->children; t; t = t->next) {
		size_t part;

		if (t->type != XML_TEXT_NODE &&
		    t->type != XML_CDATA_SECTION_NODE)
			continue;
		part = t->content ? strlen((const char *)t->content) : 0;
		if (len + part >= size)
			return NULL;
		memcpy(buf + len, t->content, part);
		len += part;
	}
	buf[len] = '\0';
	return trim(buf);
}

/* Every element name this reader knows, for "did you mean" hints. */
static const char *const known_elements[] = {
	"ARFrequency", "AdaptiveRouting", "Algorithm", "Application",
	"Applications", "Bandwidth", "BaseSL", "Common", "Config",
	"CoreSwitches", "Create", "DGShortestPathTopology", "DeviceGroup",
	"DeviceGroups", "Enable", "FabricId", "FatTreeTopology",
	"FineGrained", "Fm", "HighPriority", "HoqLife", "IncludeApplication",
	"IncludeGroup", "LimitedMember", "LostRouteOnly", "MGID",
	"MGIDMasked", "MGIDRange", "MTU", "MaxMTU", "MaxRate", "Member",
	"Multicast", "MulticastGroup", "MulticastSL", "Name", "NodeDesc",
	"NodeGUID", "NodeType", "PKey", "PartitionRouting", "PathSelection",
	"PktLifeTimeMult", "PortGUID", "QKey", "QOS", "QOSGroup",
	"QOSGroups", "Rate", "RouteLast", "RoutingAlgorithm", "RoutingOrder",
	"SL", "Security", "Select", "ServiceID", "ServiceIDMasked",
	"ServiceIDRange", "Sm", "SpineFirstRouting", "Standby",
	"SystemImageGUID", "Threshold", "VirtualEthernetSwitch",
	"VirtualEthernetSwitches", "VirtualFabric", "VirtualFabrics",
};

/*
 * Edits (insert, delete, substitute, swap two neighbours; letter case
 * ignored) from a to b, or limit + 1 once that many are exceeded.
 */
static unsigned edits(const char *a, const char *b, unsigned limit)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned d[3][33];	/* rows i - 2, i - 1 and i, at i % 3 */

	if (la > 32 || lb > 32 || (la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned *r = d[i % 3], *p = d[(i + 2) % 3];
		unsigned *pp = d[(i + 1) % 3], best;

		r[0] = (unsigned)i;
		best = r[0];
		for (size_t j = 1; j <= lb; j++) {
			bool same = tolower((unsigned char)a[i - 1]) ==
				    tolower((unsigned char)b[j - 1]);
			unsigned v = p[j - 1] + !same;

			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (r[j - 1] + 1 < v)
				v = r[j - 1] + 1;
			if (i > 1 && j > 1 &&
			    tolower((unsigned char)a[i - 1]) ==
			    tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) ==
			    tolower((unsigned char)b[j - 1]) &&
			    pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			r[j] = v;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
	}
	return d[la % 3][lb];
}

/*
 * The known element name closest to name (a likely typo: a quarter of
 * its letters at most, one for a short name), or NULL.
 */
static const char *closest_element(const char *name)
{
	size_t len = strlen(name);
	unsigned limit = len < 4 ? 0 : len < 8 ? 1 : 2, best = limit + 1;
	const char *pick = NULL;

	for (size_t i = 0; i < sizeof(known_elements) /
			       sizeof(known_elements[0]); i++) {
		unsigned e;

		if (!strcmp(name, known_elements[i]))
			return NULL;	/* known, only not here */
		e = edits(name, known_elements[i], limit);
		if (e < best) {
			best = e;
			pick = known_elements[i];
		}
	}
	return pick;
}

static void unsupported(struct xml_load *x, const xmlNode *n,
			const char *owner)
{
	struct vf_where at = where(x, n);
	const char *hint = closest_element(el_name(n));

	vf_diag_add(x->d, VF_DIAG_WARN, &at,
		    "%s: element <%s> is not supported by opensm-vfabric; ignored%s%s%s",
		    owner, el_name(n), hint ? " (did you mean " : "",
		    hint ? hint : "", hint ? "?)" : "");
}

static void bad_value(struct xml_load *x, const xmlNode *n,
		      const char *owner, const char *value, const char *why)
{
	struct vf_where at = where(x, n);

	vf_diag_add(x->d, VF_DIAG_ERROR, &at,
		    "%s: <%s> '%s' is not %s", owner, el_name(n),
		    value ? value : "(too long)", why);
}

/* An Omni-Path value taken as the nearest InfiniBand one (why says which). */
static void mapped_value(struct xml_load *x, const xmlNode *n,
			 const char *owner, const char *value, const char *why)
{
	struct vf_where at = where(x, n);

	vf_diag_add(x->d, VF_DIAG_WARN, &at, "%s: <%s> '%s' is %s", owner,
		    el_name(n), value, why);
}

/* ---- <Application> --------------------------------------------------- */

static const struct {
	const char *el;
	bool mgid;
	enum vf_match_kind kind;
} app_rules[] = {
	{ "ServiceID", false, VF_MATCH_EXACT },
	{ "ServiceIDRange", false, VF_MATCH_RANGE },
	{ "ServiceIDMasked", false, VF_MATCH_MASKED },
	{ "MGID", true, VF_MATCH_EXACT },
	{ "MGIDRange", true, VF_MATCH_RANGE },
	{ "MGIDMasked", true, VF_MATCH_MASKED },
};

static int app_rule(struct xml_load *x, struct vf_app *a, const xmlNode *n,
		    const char *v, const char *owner, unsigned r)
{
	const char *why;
	int rc;

	if (app_rules[r].mgid) {
		struct vf_mgid_rule m;

		rc = vf_parse_mgid_rule(v, app_rules[r].kind, &m, &why);
		if (!rc && vf_app_add_mgid(a, &m))
			return -ENOMEM;
	} else {
		struct vf_sid_rule s;

		rc = vf_parse_sid_rule(v, app_rules[r].kind, &s, &why);
		if (!rc && vf_app_add_sid(a, &s))
			return -ENOMEM;
	}
	if (rc)
		bad_value(x, n, owner, v, why);
	return 0;
}

static int app_select(struct xml_load *x, struct vf_app *a, const xmlNode *n,
		      const char *v, const char *owner)
{
	unsigned bit;

	if (vf_parse_app_select(v, &bit))
		bad_value(x, n, owner, v,
			  "SA, PM, UnmatchedServiceID or UnmatchedMGID");
	else
		a->select |= bit;
	return 0;
}

static int app_field(struct xml_load *x, struct vf_app *a, const xmlNode *n,
		     const char *v, const char *owner)
{
	for (unsigned r = 0; r < sizeof(app_rules) / sizeof(app_rules[0]); r++)
		if (is(n, app_rules[r].el))
			return app_rule(x, a, n, v, owner, r);
	if (is(n, "IncludeApplication"))
		return vf_names_add(&a->includes, v);
	if (is(n, "Select"))
		return app_select(x, a, n, v, owner);
	unsupported(x, n, owner);
	return 0;
}

/* ---- <DeviceGroup> --------------------------------------------------- */

static int dg_guid(struct xml_load *x, struct vf_guids *g, const xmlNode *n,
		   const char *v, const char *owner)
{
	uint64_t guid;
	const char *why;

	if (vf_parse_hex64(v, &guid, &why) || !guid) {
		bad_value(x, n, owner, v, "a GUID (hex, not 0)");
		return 0;
	}
	return vf_guids_add(g, guid);
}

static int dg_desc(struct xml_load *x, struct vf_cfg_dg *g, const xmlNode *n,
		   const char *v, const char *owner)
{
	struct vf_ndpat *p;
	char err[160];
	int rc = vf_ndpat_compile(v, &p, err, sizeof(err));

	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		struct vf_where at = where(x, n);

		vf_diag_add(x->d, VF_DIAG_ERROR, &at,
			    "%s: <NodeDesc> '%s' is not a valid pattern: %s",
			    owner, v, err);
		return 0;
	}
	return vf_dg_add_desc(g, p);
}

static int dg_word(struct xml_load *x, struct vf_cfg_dg *g, const xmlNode *n,
		   const char *v, const char *owner)
{
	unsigned bit;

	if (is(n, "NodeType")) {
		if (vf_parse_node_type(v, &bit))
			bad_value(x, n, owner, v, "FI (or CA) or SW");
		else
			g->node_types |= bit;
		return 0;
	}
	if (vf_parse_dg_select(v, &bit))
		bad_value(x, n, owner, v,
			  "All, Self, SWE0, AllMgmtAllowed, HFIDirectConnect or TFIs");
	else
		g->select |= bit;
	return 0;
}

static int dg_field(struct xml_load *x, struct vf_cfg_dg *g, const xmlNode *n,
		    const char *v, const char *owner)
{
	if (is(n, "SystemImageGUID"))
		return dg_guid(x, &g->sysimg_guids, n, v, owner);
	if (is(n, "NodeGUID"))
		return dg_guid(x, &g->node_guids, n, v, owner);
	if (is(n, "PortGUID"))
		return dg_guid(x, &g->port_guids, n, v, owner);
	if (is(n, "NodeDesc"))
		return dg_desc(x, g, n, v, owner);
	if (is(n, "NodeType") || is(n, "Select"))
		return dg_word(x, g, n, v, owner);
	if (is(n, "IncludeGroup"))
		return vf_names_add(&g->includes, v);
	unsupported(x, n, owner);
	return 0;
}

/* ---- QoS fields, of a <QOSGroup> or a <VirtualFabric> ---------------- */

/* 1: n was a QoS field (parsed, or reported), 0: it was not. */
static int qos_field(struct xml_load *x, struct vf_qos *q, const xmlNode *n,
		     const char *v, const char *owner)
{
	const char *why = "";
	long l;
	int rc = 0;

	if (is(n, "BaseSL") || is(n, "MulticastSL")) {
		rc = vf_parse_int(v, 0, 15, &l, &why);
		why = "an SL 0-15";
		if (!rc)
			*(is(n, "BaseSL") ? &q->base_sl : &q->mcast_sl) = (int)l;
	} else if (is(n, "Bandwidth")) {
		rc = vf_parse_percent(v, &q->bandwidth, &why);
	} else if (is(n, "HighPriority")) {
		rc = vf_parse_bool(v, &q->high_priority, &why);
	} else if (is(n, "PktLifeTimeMult")) {
		rc = vf_parse_int(v, 1, 128, &l, &why);
		why = "a number 1-128";
		q->pkt_lifetime_mult = rc ? 0 : (unsigned)l;
	} else if (is(n, "HoqLife")) {
		rc = vf_parse_hoq_life(v, &q->hoq_life, &why);
	} else if (is(n, "HoqLife_Int")) {
		rc = vf_parse_int(v, 0, 20, &l, &why);
		why = "an exponent 0-20";
		q->hoq_life = rc ? -1 : (int)l;
	} else {
		return 0;
	}
	if (rc)
		bad_value(x, n, owner, v, why);
	return 1;
}


static int qos_group_field(struct xml_load *x, struct vf_qos_group *g,
			   const xmlNode *n, const char *v, const char *owner)
{
	const char *why;

	if (qos_field(x, &g->qos, n, v, owner))
		return 0;
	if (is(n, "Enable")) {
		if (vf_parse_bool(v, &g->qos.enable, &why))
			bad_value(x, n, owner, v, why);
		return 0;
	}
	unsupported(x, n, owner);
	return 0;
}

/* ---- <VirtualFabric> ------------------------------------------------- */

static int vf_flag(struct xml_load *x, bool *out, const xmlNode *n,
		   const char *v, const char *owner)
{
	const char *why;

	if (vf_parse_bool(v, out, &why))
		bad_value(x, n, owner, v, why);
	return 0;
}

static int vf_field(struct xml_load *x, struct vf_cfg_vf *f, const xmlNode *n,
		    const char *v, const char *owner)
{
	const char *why;
	int rc = 0;

	if (qos_field(x, &f->qos, n, v, owner)) {
		f->qos_given = true;
		return 0;
	}
	if (is(n, "Enable"))
		return vf_flag(x, &f->enable, n, v, owner);
	if (is(n, "Standby"))
		return vf_flag(x, &f->standby, n, v, owner);
	if (is(n, "Security"))
		return vf_flag(x, &f->security, n, v, owner);
	if (is(n, "QOS")) {
		f->qos_given = true;
		return vf_flag(x, &f->qos.enable, n, v, owner);
	}
	if (is(n, "Member"))
		return vf_names_add(&f->members, v);
	if (is(n, "LimitedMember"))
		return vf_names_add(&f->limited, v);
	if (is(n, "Application"))
		return vf_names_add(&f->apps, v);
	if (is(n, "QOSGroup")) {
		free(f->qos_group);
		f->qos_group = strdup(v);
		return f->qos_group ? 0 : -ENOMEM;
	}
	if (is(n, "PKey"))
		rc = vf_parse_pkey(v, &f->pkey, &why);
	else if (is(n, "MaxMTU"))
		rc = vf_parse_mtu(v, &f->max_mtu, &why);
	else if (is(n, "MaxRate"))
		rc = vf_parse_rate(v, &f->max_rate, &why);
	else
		unsupported(x, n, owner);
	if (rc > 0)
		mapped_value(x, n, owner, v, why);
	else if (rc)
		bad_value(x, n, owner, v, why);
	return 0;
}

/* ---- one object: <Name> first, then its fields ----------------------- */

enum obj_kind { OBJ_APP, OBJ_DG, OBJ_QOS, OBJ_VF };

static const char *const obj_label[] = {
	"Application", "DeviceGroup", "QOSGroup", "VirtualFabric"
};

/* The text of the object's <Name>, or NULL (an error is logged). */
static const char *obj_name(struct xml_load *x, const xmlNode *obj,
			    enum obj_kind k, char *buf, size_t size)
{
	struct vf_where at = where(x, obj);

	for (const xmlNode *n = obj->children; n; n = n->next)
		if (is(n, "Name")) {
			const char *v = text_of(n, buf, size);

			if (v && *v && strlen(v) <= VF_CFG_MAX_NAME)
				return v;
			vf_diag_add(x->d, VF_DIAG_ERROR, &at,
				    "%s: <Name> must be 1-%d characters",
				    obj_label[k], VF_CFG_MAX_NAME);
			return NULL;
		}
	vf_diag_add(x->d, VF_DIAG_ERROR, &at, "%s without a <Name>; ignored",
		    obj_label[k]);
	return NULL;
}

/* A new object of kind k, named and placed; NULL on ENOMEM. */
static void *new_obj(struct xml_load *x, enum obj_kind k, const char *name,
		     struct vf_where at)
{
	switch (k) {
	case OBJ_APP:
		return vf_config_new_app(x->c, name, at);
	case OBJ_DG:
		return vf_config_new_dg(x->c, name, at);
	case OBJ_QOS:
		return vf_config_new_qos_group(x->c, name, at);
	case OBJ_VF:
		return vf_config_new_vf(x->c, name, at);
	}
	return NULL;
}

static int obj_field(struct xml_load *x, enum obj_kind k, void *o,
		     const xmlNode *n, const char *v, const char *owner)
{
	switch (k) {
	case OBJ_APP:
		return app_field(x, o, n, v, owner);
	case OBJ_DG:
		return dg_field(x, o, n, v, owner);
	case OBJ_QOS:
		return qos_group_field(x, o, n, v, owner);
	case OBJ_VF:
		return vf_field(x, o, n, v, owner);
	}
	return 0;
}

static int load_obj(struct xml_load *x, const xmlNode *obj, enum obj_kind k)
{
	char name[VF_CFG_MAX_NAME + 2], owner[96], buf[256];
	const char *nm = obj_name(x, obj, k, name, sizeof(name));
	void *o;

	if (!nm)
		return 0;
	o = new_obj(x, k, nm, where(x, obj));
	if (!o)
		return -ENOMEM;
	snprintf(owner, sizeof(owner), "%s '%s'", obj_label[k], nm);
	for (const xmlNode *n = obj->children; n; n = n->next) {
		const char *v;
		int rc;

		if (n->type != XML_ELEMENT_NODE || is(n, "Name"))
			continue;
		v = text_of(n, buf, sizeof(buf));
		if (!v) {
			bad_value(x, n, owner, NULL, "at most 255 characters");
			continue;
		}
		rc = obj_field(x, k, o, n, v, owner);
		if (rc)
			return rc;
	}
	return 0;
}

/* <Applications>, <DeviceGroups>, ...: a list of one kind of object. */
static int load_list(struct xml_load *x, const xmlNode *list,
		     const char *item, enum obj_kind k)
{
	for (const xmlNode *n = list->children; n; n = n->next) {
		int rc;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (!is(n, item)) {
			unsupported(x, n, el_name(list));
			continue;
		}
		rc = load_obj(x, n, k);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- <Sm>: the routing settings that name device groups --------------- */

static int set_string(char **dst, const char *v)
{
	free(*dst);
	*dst = strdup(v);
	return *dst ? 0 : -ENOMEM;
}

static int load_fattree(struct xml_load *x, const xmlNode *ft)
{
	struct vf_cfg_routing *r = &x->c->routing;
	char buf[VF_CFG_MAX_NAME + 2];

	for (const xmlNode *n = ft->children; n; n = n->next) {
		const char *v;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (!is(n, "CoreSwitches") && !is(n, "RouteLast")) {
			unsupported(x, n, "Sm: FatTreeTopology");
			continue;
		}
		v = text_of(n, buf, sizeof(buf));
		if (!v) {
			bad_value(x, n, "Sm: FatTreeTopology", NULL,
				  "a DeviceGroup name");
			continue;
		}
		if (set_string(is(n, "CoreSwitches") ? &r->core_switches :
						       &r->route_last, v))
			return -ENOMEM;
	}
	return 0;
}

static int load_dgshortestpath(struct xml_load *x, const xmlNode *top)
{
	const char *owner = "Sm: DGShortestPathTopology";
	char buf[VF_CFG_MAX_NAME + 2];

	for (const xmlNode *n = top->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (!is(n, "RoutingOrder")) {
			unsupported(x, n, owner);
			continue;
		}
		for (const xmlNode *g = n->children; g; g = g->next) {
			const char *v;

			if (g->type != XML_ELEMENT_NODE)
				continue;
			if (!is(g, "DeviceGroup")) {
				unsupported(x, g, owner);
				continue;
			}
			v = text_of(g, buf, sizeof(buf));
			if (!v)
				bad_value(x, g, owner, NULL,
					  "a DeviceGroup name");
			else if (vf_names_add(&x->c->routing.routing_order, v))
				return -ENOMEM;
		}
	}
	return 0;
}

/* One <MulticastGroup>: which VF, its MGIDs and parameters. */
static int load_mcgroup(struct xml_load *x, const xmlNode *mg)
{
	const char *owner = "Sm: MulticastGroup";
	struct vf_config *c = x->c;
	struct vf_mcgroup *g, *grown;
	char buf[128];
	bool create = true;

	grown = realloc(c->mcgroups, (c->num_mcgroups + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	c->mcgroups = grown;
	g = &c->mcgroups[c->num_mcgroups++];
	*g = (struct vf_mcgroup){ .at = where(x, mg), .sl = -1, .pkey = -1 };
	for (const xmlNode *n = mg->children; n; n = n->next) {
		const char *v, *why = "";
		struct vf_mgid_rule r;
		long l;
		int rc = 0;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		v = text_of(n, buf, sizeof(buf));
		if (!v) {
			bad_value(x, n, owner, NULL, "at most 127 characters");
			continue;
		}
		if (is(n, "Create")) {
			rc = vf_parse_bool(v, &create, &why);
		} else if (is(n, "VirtualFabric")) {
			free(g->vf);
			if (!(g->vf = strdup(v)))
				return -ENOMEM;
		} else if (is(n, "MGID")) {
			struct vf_mgid *m = realloc(g->mgids, (g->num_mgids + 1) *
							      sizeof(*m));

			rc = vf_parse_mgid_rule(v, VF_MATCH_EXACT, &r, &why);
			if (!m)
				return -ENOMEM;
			g->mgids = m;
			if (!rc)
				g->mgids[g->num_mgids++] = r.a;
		} else if (is(n, "MTU")) {
			rc = vf_parse_mtu(v, &g->mtu, &why);
		} else if (is(n, "Rate")) {
			rc = vf_parse_rate(v, &g->rate, &why);
		} else if (is(n, "SL")) {
			rc = vf_parse_int(v, 0, 15, &l, &why);
			g->sl = rc ? -1 : (int)l;
		} else if (is(n, "PKey")) {
			/* checked against the VF's (mcfit.c), as the FM */
			rc = vf_parse_pkey(v, &g->pkey, &why);
			if (rc)
				g->pkey = -1;
		} else if (is(n, "QKey")) {
			uint64_t q;

			rc = vf_parse_hex64(v, &q, &why) || q > UINT32_MAX;
			g->qkey = rc ? 0 : (uint32_t)q;
		} else {
			unsupported(x, n, owner);
		}
		if (rc > 0 && (is(n, "MTU") || is(n, "Rate")))
			mapped_value(x, n, owner, v, why);
		else if (rc)
			bad_value(x, n, owner, v, why);
	}
	if (!g->vf) {
		struct vf_where at = where(x, mg);

		vf_diag_add(x->d, VF_DIAG_WARN, &at,
			    "%s without <VirtualFabric> is not supported; ignored",
			    owner);
		create = false;
	}
	if (!create) {
		free(g->vf);
		free(g->mgids);
		c->num_mcgroups--;
	}
	return 0;
}

static int load_multicast(struct xml_load *x, const xmlNode *mc)
{
	for (const xmlNode *n = mc->children; n; n = n->next) {
		int rc;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (!is(n, "MulticastGroup")) {
			unsupported(x, n, "Sm: Multicast");
			continue;
		}
		rc = load_mcgroup(x, n);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * <AdaptiveRouting>: the FM's fields and ranges (reference/opa-fm.md 4.1);
 * Algorithm by number (0 Random, 1 Greedy, 2 GreedyRandom) or name.
 */
static void load_ar(struct xml_load *x, const xmlNode *ar)
{
	static const char *const algos[] = { "Random", "Greedy",
					     "GreedyRandom" };
	const char *owner = "Sm: AdaptiveRouting";
	struct vf_cfg_routing *r = &x->c->routing;
	char buf[32];

	for (const xmlNode *n = ar->children; n; n = n->next) {
		const char *v, *why = "";
		int *field = NULL, max = 1;
		char *end;
		long l;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (is(n, "Enable"))
			field = &r->ar_enable;
		else if (is(n, "FineGrained"))
			field = &r->ar_fine_grained;
		else if (is(n, "LostRouteOnly"))
			field = &r->ar_lost_route_only;
		else if (is(n, "Algorithm"))
			field = &r->ar_algorithm, max = 2;
		else if (is(n, "ARFrequency"))
			field = &r->ar_frequency, max = 7;
		else if (is(n, "Threshold"))
			field = &r->ar_threshold, max = 7;
		if (!field) {
			unsupported(x, n, owner);
			continue;
		}
		v = text_of(n, buf, sizeof(buf));
		l = v ? strtol(v, &end, 0) : -1;
		for (int i = 0; v && field == &r->ar_algorithm && i < 3; i++)
			if (!strcasecmp(v, algos[i]))
				l = i, end = (char *)v + strlen(v);
		if (!v || *end || l < 0 || l > max) {
			why = max == 1 ? "0 or 1" : max == 2 ?
			      "0 (Random), 1 (Greedy) or 2 (GreedyRandom)" :
			      "0 to 7";
			bad_value(x, n, owner, v, why);
			continue;
		}
		*field = (int)l;
	}
}

static int load_sm(struct xml_load *x, const xmlNode *sm)
{
	struct vf_cfg_routing *r = &x->c->routing;
	char buf[64];

	r->at = where(x, sm);
	for (const xmlNode *n = sm->children; n; n = n->next) {
		const char *v, *why;
		bool on;
		int rc = 0;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (is(n, "FatTreeTopology")) {
			rc = load_fattree(x, n);
		} else if (is(n, "DGShortestPathTopology")) {
			rc = load_dgshortestpath(x, n);
		} else if (is(n, "Multicast")) {
			rc = load_multicast(x, n);
		} else if (is(n, "RoutingAlgorithm")) {
			v = text_of(n, buf, sizeof(buf));
			rc = v ? set_string(&r->algorithm, v) : 0;
		} else if (is(n, "AdaptiveRouting")) {
			load_ar(x, n);
		} else if (is(n, "PathSelection")) {
			int sel;

			v = text_of(n, buf, sizeof(buf));
			sel = v ? vf_path_selection_parse(v) : -1;
			if (sel < 0)
				bad_value(x, n, "Sm", v,
					  "Minimal, Pairwise, OrderAll or SrcDstAll");
			else
				x->c->path_selection = sel;
		} else if (is(n, "PartitionRouting")) {
			int mode;

			v = text_of(n, buf, sizeof(buf));
			mode = v ? vf_partition_routing_parse(v) : -1;
			if (mode < 0)
				bad_value(x, n, "Sm", v, "off, balance or isolate");
			else
				x->c->partition_routing = mode;
		} else if (is(n, "SpineFirstRouting")) {
			v = text_of(n, buf, sizeof(buf));
			if (!v || vf_parse_bool(v, &on, &why))
				bad_value(x, n, "Sm", v, "0 or 1");
			else
				r->spine_first = on;
		} else {
			unsupported(x, n, "Sm");
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- <VirtualEthernetSwitches>: the Ethernet Manager ------------------ */

static int load_vesw(struct xml_load *x, const xmlNode *obj)
{
	char name[VF_CFG_MAX_NAME + 2], owner[96], buf[256];
	const char *nm = NULL;
	struct vf_cfg_vesw *s;
	struct vf_where at = where(x, obj);

	for (const xmlNode *n = obj->children; n && !nm; n = n->next)
		if (is(n, "Name"))
			nm = text_of(n, name, sizeof(name));
	if (!nm || !*nm || strlen(nm) > VF_CFG_MAX_NAME) {
		vf_diag_add(x->d, VF_DIAG_ERROR, &at,
			    "VirtualEthernetSwitch: needs a <Name> of 1-%d characters; ignored",
			    VF_CFG_MAX_NAME);
		return 0;
	}
	s = vf_em_new_vesw(&x->c->em, nm, at);
	if (!s)
		return -ENOMEM;
	snprintf(owner, sizeof(owner), "VirtualEthernetSwitch '%s'", nm);
	for (const xmlNode *n = obj->children; n; n = n->next) {
		const char *v, *why = "";
		int rc;

		if (n->type != XML_ELEMENT_NODE || is(n, "Name"))
			continue;
		v = text_of(n, buf, sizeof(buf));
		if (!v) {
			bad_value(x, n, owner, NULL, "at most 255 characters");
			continue;
		}
		rc = vf_em_vesw_field(s, el_name(n), v, &why);
		if (rc < 0)
			return rc;
		if (rc == 1)
			unsupported(x, n, owner);
		else if (rc == 2)
			bad_value(x, n, owner, v, why);
	}
	return 0;
}

static int load_vesws(struct xml_load *x, const xmlNode *list)
{
	char buf[64];

	x->c->em.at = where(x, list);
	for (const xmlNode *n = list->children; n; n = n->next) {
		const char *v, *why = "";
		int rc;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (is(n, "FabricId")) {
			v = text_of(n, buf, sizeof(buf));
			if (!v || vf_em_fabric_id(&x->c->em, v, &why))
				bad_value(x, n, "VirtualEthernetSwitches", v,
					  why);
			continue;
		}
		if (!is(n, "VirtualEthernetSwitch")) {
			unsupported(x, n, "VirtualEthernetSwitches");
			continue;
		}
		rc = load_vesw(x, n);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- <Common>, <Fm> and the file ------------------------------------- */

static int load_section(struct xml_load *x, const xmlNode *sec)
{
	for (const xmlNode *n = sec->children; n; n = n->next) {
		int rc = 0;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (is(n, "Applications"))
			rc = load_list(x, n, "Application", OBJ_APP);
		else if (is(n, "DeviceGroups"))
			rc = load_list(x, n, "DeviceGroup", OBJ_DG);
		else if (is(n, "QOSGroups"))
			rc = load_list(x, n, "QOSGroup", OBJ_QOS);
		else if (is(n, "VirtualFabrics"))
			rc = load_list(x, n, "VirtualFabric", OBJ_VF);
		else if (is(n, "Sm"))
			rc = load_sm(x, n);
		else if (is(n, "VirtualEthernetSwitches"))
			rc = load_vesws(x, n);
		else
			unsupported(x, n, el_name(sec));
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * <Config>: <Common> and the first <Fm> (we are one SM; the FM runs one
 * instance per <Fm>).  Instance lists append to the common ones, as in
 * the FM.
 */
static int load_config(struct xml_load *x, const xmlNode *root)
{
	bool fm_seen = false;

	for (const xmlNode *n = root->children; n; n = n->next) {
		int rc = 0;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (is(n, "Common") || (is(n, "Fm") && !fm_seen)) {
			fm_seen |= is(n, "Fm");
			rc = load_section(x, n);
		} else if (is(n, "Fm")) {
			struct vf_where at = where(x, n);

			vf_diag_add(x->d, VF_DIAG_WARN, &at,
				    "Config: only the first <Fm> instance is used; this one is ignored");
		} else {
			unsupported(x, n, "Config");
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* libxml2's own messages (syntax errors) into the diagnostics. */
static void xml_error(void *ctx, xmlErrorPtr e)
{
	struct xml_load *x = ctx;
	struct vf_where at = { x->file, e ? (unsigned)e->line : 0 };
	char msg[256];
	size_t len;

	if (!e || e->level == XML_ERR_NONE)
		return;
	snprintf(msg, sizeof(msg), "%s", e->message ? e->message : "error");
	len = strlen(msg);
	while (len && msg[len - 1] == '\n')
		msg[--len] = '\0';
	vf_diag_add(x->d, e->level == XML_ERR_WARNING ? VF_DIAG_WARN :
						       VF_DIAG_ERROR,
		    &at, "XML: %s", msg);
}

/* From buf (len bytes) when not NULL, else from the file path. */
static int load(const char *path, const char *buf, size_t len,
		struct vf_config *c, struct vf_diag *d)
{
	struct xml_load x = { c, d, NULL };
	struct vf_where at = { path, 0 };
	xmlDoc *doc;
	const xmlNode *root;
	int rc;

	if (vf_names_add(&c->files, path))
		return -ENOMEM;
	x.file = c->files.v[c->files.n - 1];
	at.file = x.file;
	xmlSetStructuredErrorFunc(&x, xml_error);
	/* no network, no entity substitution, no DTD loading */
	doc = buf && len <= INT_MAX ?
	      xmlReadMemory(buf, (int)len, path, NULL,
			    XML_PARSE_NONET | XML_PARSE_NOWARNING) :
	      buf ? NULL :
	      xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOWARNING);
	xmlSetStructuredErrorFunc(NULL, NULL);
	if (!doc) {
		/*
		 * -errno only when the file cannot be read; a file that is not
		 * XML is an error in d like any other, so vf_config_load()
		 * returns 1 for it as documented (found by fuzz/fuzz-xmlconf).
		 */
		rc = !buf && access(path, R_OK) ? -errno : 0;
		vf_diag_add(d, VF_DIAG_ERROR, &at, "cannot be read as XML");
		return rc;
	}
	root = xmlDocGetRootElement(doc);
	if (doc->intSubset || doc->extSubset) {
		vf_diag_add(d, VF_DIAG_ERROR, &at,
			    "a DOCTYPE (DTD or entities) is not allowed in a vFabric configuration");
		rc = 0;		/* the error is in d */
	} else if (!root || !is(root, "Config")) {
		vf_diag_add(d, VF_DIAG_ERROR, &at,
			    "the root element must be <Config> (as in opafm.xml)");
		rc = 0;
	} else {
		rc = load_config(&x, root);
		if (!rc)
			rc = vf_config_add_builtins(c);
		if (rc == -ENOMEM)
			vf_diag_add(d, VF_DIAG_ERROR, &at, "out of memory");
	}
	xmlFreeDoc(doc);
	return rc == -ENOMEM ? rc : 0;
}

int vf_xml_load(const char *path, struct vf_config *c, struct vf_diag *d)
{
	return load(path, NULL, 0, c, d);
}

int vf_xml_load_mem(const char *name, const char *buf, size_t len,
		    struct vf_config *c, struct vf_diag *d)
{
	return load(name, buf, len, c, d);
}
