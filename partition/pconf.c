// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#define _GNU_SOURCE	/* strndup */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/ndpattern.h"
#include "partition/internal/pconf.h"
#include "partition/internal/pconfstock.h"
#include "partition/values.h"

#define MAX_FILE (16u << 20)

/* The state of one file's load. */
struct pc {
	struct vf_config *c;
	struct vf_diag *d;
	const char *file;	/* owned by c->files */
	char *text;		/* the file, comments blanked */
	bool vfabric;
	unsigned seq;		/* member entries so far (from 2: the
				 * default's two come first) */
	const char *mark;	/* where() counted lines up to here */
	unsigned mark_line;	/* the line of mark */
};

/*
 * The line of at.  Counted on from the last place asked about, so that a
 * file read front to back costs one pass, not one per statement or error
 * (a large or garbage file was quadratic: minutes under the sweeper).
 */
static struct vf_where where(const struct pc *pc, const char *at)
{
	struct pc *m = (struct pc *)pc;	/* the mark is a cache only */

	if (!m->mark || at < m->mark) {
		m->mark = pc->text;
		m->mark_line = 1;
	}
	for (; m->mark < at; m->mark++)
		m->mark_line += *m->mark == '\n';
	return (struct vf_where){ pc->file, m->mark_line };
}

static void error(struct pc *pc, const char *at, const char *owner,
		  const char *what, const char *value)
{
	struct vf_where w = where(pc, at);

	vf_diag_add(pc->d, VF_DIAG_ERROR, &w, "%s: %s%s%s%s", owner, what,
		    value ? " '" : "", value ? value : "", value ? "'" : "");
}

static void warning(struct pc *pc, const char *at, const char *owner,
		    const char *what, const char *value)
{
	struct vf_where w = where(pc, at);

	vf_diag_add(pc->d, VF_DIAG_WARN, &w, "%s: %s '%s'", owner, what,
		    value);
}

/* The end of the item starting at s: the next sep outside quotes, or e. */
static const char *item_end(const char *s, const char *e, char sep)
{
	bool quoted = false;

	for (; s < e; s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (*s == sep && !quoted)
			return s;
	}
	return e;
}

/* [s, e) without surrounding blanks and quotes, as a new string. */
static char *token(const char *s, const char *e)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (e - s >= 2 && *s == '"' && e[-1] == '"') {
		s++;
		e--;
	}
	return strndup(s, (size_t)(e - s));
}

/* Split "key=value" in place (value NULL without '='), unquoting it. */
static char *split_value(char *item)
{
	char *eq = strchr(item, '='), *val;
	size_t len;

	if (!eq)
		return NULL;
	val = eq + 1;
	*eq = '\0';
	while (eq > item && isspace((unsigned char)eq[-1]))
		*--eq = '\0';
	while (isspace((unsigned char)*val))
		val++;
	len = strlen(val);
	if (len >= 2 && val[0] == '"' && val[len - 1] == '"') {
		val[len - 1] = '\0';
		val++;
	}
	return val;
}

/* ---- DeviceGroup NAME : items ; ----------------------------------------- */

static int group_item(struct pc *pc, struct vf_cfg_dg *g, char *key,
		      char *val, const char *at, const char *owner)
{
	uint64_t guid;
	unsigned bit;
	const char *why;

	if (!val) {
		if (vf_parse_hex64(key, &guid, &why) || !guid)
			error(pc, at, owner, "not a port GUID", key);
		else
			return vf_guids_add(&g->port_guids, guid);
	} else if (!strcasecmp(key, "node") || !strcasecmp(key, "sysimage")) {
		if (vf_parse_hex64(val, &guid, &why) || !guid)
			error(pc, at, owner, "not a GUID", val);
		else
			return vf_guids_add(!strcasecmp(key, "node") ?
					    &g->node_guids : &g->sysimg_guids,
					    guid);
	} else if (!strcasecmp(key, "desc")) {
		struct vf_ndpat *p;
		char err[160];
		int rc = vf_ndpat_compile(val, &p, err, sizeof(err));

		if (rc == -ENOMEM)
			return rc;
		if (rc)
			error(pc, at, owner, err, val);
		else
			return vf_dg_add_desc(g, p);
	} else if (!strcasecmp(key, "type")) {
		if (vf_parse_node_type(val, &bit))
			error(pc, at, owner, "type is CA (or FI) or SW, not", val);
		else
			g->node_types |= bit;
	} else if (!strcasecmp(key, "select")) {
		if (vf_parse_dg_select(val, &bit))
			error(pc, at, owner, "select is All, Self, SWE0, AllMgmtAllowed, HFIDirectConnect or TFIs, not",
			      val);
		else
			g->select |= bit;
	} else if (!strcasecmp(key, "include")) {
		return vf_names_add(&g->includes, val);
	} else {
		error(pc, at, owner, "unknown item", key);
	}
	return 0;
}

/* ---- Application NAME : items ; ---------------------------------------- */

static const struct {
	const char *key;
	bool mgid;
	enum vf_match_kind kind;
} app_keys[] = {
	{ "sid", false, VF_MATCH_EXACT },
	{ "sidrange", false, VF_MATCH_RANGE },
	{ "sidmasked", false, VF_MATCH_MASKED },
	{ "mgid", true, VF_MATCH_EXACT },
	{ "mgidrange", true, VF_MATCH_RANGE },
	{ "mgidmasked", true, VF_MATCH_MASKED },
};

static int app_item(struct pc *pc, struct vf_app *a, char *key, char *val,
		    const char *at, const char *owner)
{
	const char *why;
	unsigned bit;

	for (size_t i = 0; val && i < sizeof(app_keys) / sizeof(app_keys[0]);
	     i++) {
		struct vf_sid_rule s;
		struct vf_mgid_rule m;

		if (strcasecmp(key, app_keys[i].key))
			continue;
		if (app_keys[i].mgid ?
		    vf_parse_mgid_rule(val, app_keys[i].kind, &m, &why) :
		    vf_parse_sid_rule(val, app_keys[i].kind, &s, &why)) {
			error(pc, at, owner, why, val);
			return 0;
		}
		return app_keys[i].mgid ? vf_app_add_mgid(a, &m) :
					  vf_app_add_sid(a, &s);
	}
	if (val && !strcasecmp(key, "select")) {
		if (vf_parse_app_select(val, &bit))
			error(pc, at, owner, "select is SA, PM, UnmatchedServiceID or UnmatchedMGID, not",
			      val);
		else
			a->select |= bit;
		return 0;
	}
	if (val && !strcasecmp(key, "include"))
		return vf_names_add(&a->includes, val);
	error(pc, at, owner, "unknown item", key);
	return 0;
}

/* The items of a DeviceGroup or Application statement body. */
static int vfabric_statement(struct pc *pc, bool group, const char *name,
			     const char *at, const char *s, const char *e)
{
	char owner[96];
	struct vf_cfg_dg *g = NULL;
	struct vf_app *a = NULL;
	int rc = 0;

	pc->vfabric = true;
	snprintf(owner, sizeof(owner), "%s '%s'",
		 group ? "DeviceGroup" : "Application", name);
	if (!*name || strlen(name) > VF_CFG_MAX_NAME) {
		error(pc, at, group ? "DeviceGroup" : "Application",
		      "a name of 1-63 characters is needed, not", name);
		return 0;
	}
	if (group)
		g = vf_config_new_dg(pc->c, name, where(pc, at));
	else
		a = vf_config_new_app(pc->c, name, where(pc, at));
	if (!g && !a)
		return -ENOMEM;
	while (s < e && !rc) {
		const char *end = item_end(s, e, ',');
		char *item = token(s, end), *val;

		if (!item)
			return -ENOMEM;
		val = split_value(item);
		if (*item)
			rc = group ? group_item(pc, g, item, val, s, owner) :
				     app_item(pc, a, item, val, s, owner);
		free(item);
		s = end + (end < e);
	}
	return rc;
}

/* ---- partitions --------------------------------------------------------- */

/*
 * Partition statements mean what they mean to stock OpenSM (pconfstock.h
 * has the exact reader of files without vFabric statements): flags and
 * member words are taken by any prefix, statements with the same P_Key,
 * or with the same name and no P_Key, add to one partition, and each
 * member entry is kept in file order: a later entry for a port overrides
 * an earlier one (struct vf_pc_entry).  @GROUP members are the
 * extension.
 */

/* One partition statement being read. */
struct part {
	unsigned vf;		/* index: the VF array may move */
	struct vf_where at;
	uint8_t defmember;	/* enum vf_membership of bare members */
	bool indx0;
	char owner[96];
};

static int raw_flag(struct vf_cfg_vf *v, const char *key, const char *val)
{
	size_t len = (v->raw_flags ? strlen(v->raw_flags) : 0) +
		     strlen(key) + (val ? strlen(val) : 0) + 4;
	char *grown = realloc(v->raw_flags, len);

	if (!grown)
		return -ENOMEM;
	if (!v->raw_flags)
		grown[0] = '\0';
	v->raw_flags = grown;
	strcat(grown, ", ");
	strcat(grown, key);
	if (val) {
		strcat(grown, "=");
		strcat(grown, val);
	}
	return 0;
}

/* Is word a prefix of full (as OpenSM compares: strncmp, its length)? */
static bool prefix(const char *word, const char *full)
{
	return !strncmp(word, full, strlen(word));
}

/* OpenSM's membership words: full, both or else limited (an unknown word
 * is limited, with a warning, as OpenSM). */
static uint8_t member_word(struct pc *pc, const char *w, const char *at,
			   const char *owner)
{
	if (prefix(w, "full"))
		return VF_MEMBER_FULL;
	if (prefix(w, "both"))
		return VF_MEMBER_BOTH;
	if (!prefix(w, "limited"))
		warning(pc, at, owner, "unknown membership; limited (as OpenSM)",
			w);
	return VF_MEMBER_LIMITED;
}

/* A stock flag with an IB code value (mtu, rate): 0 if malformed. */
static unsigned code(const char *val, unsigned max)
{
	char *end;
	unsigned long v = val ? strtoul(val, &end, 0) : 0;

	return val && !*end && v <= max ? (unsigned)v : 0;
}

/* The vFabric options a partition line may carry (extensions). */
static int vfabric_flag(struct pc *pc, struct part *p, const char *key,
			const char *val, const char *at)
{
	struct vf_cfg_vf *v = &pc->c->vfs[p->vf];
	const char *why = "";
	long l;
	int rc = 0;

	static const char *const keys[] = {
		"app", "security", "standby", "qos", "highpriority",
		"bandwidth", "hoqlife", "basesl", "mcsl", "pktlifetime",
	};
	bool ours = false;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		ours |= !strcasecmp(key, keys[i]);
	if (!ours)
		return 1;
	pc->vfabric = true;
	if (!val) {
		error(pc, at, p->owner, "needs a value:", key);
		return 0;
	}
	if (!strcasecmp(key, "app"))
		return vf_names_add(&v->apps, val);
	if (!strcasecmp(key, "security"))
		rc = vf_parse_bool(val, &v->security, &why);
	else if (!strcasecmp(key, "standby"))
		rc = vf_parse_bool(val, &v->standby, &why);
	else if (!strcasecmp(key, "qos"))
		rc = vf_parse_bool(val, &v->qos.enable, &why);
	else if (!strcasecmp(key, "highpriority"))
		rc = vf_parse_bool(val, &v->qos.high_priority, &why);
	else if (!strcasecmp(key, "bandwidth"))
		rc = vf_parse_percent(val, &v->qos.bandwidth, &why);
	else if (!strcasecmp(key, "hoqlife"))
		rc = vf_parse_hoq_life(val, &v->qos.hoq_life, &why);
	else if (!strcasecmp(key, "basesl") || !strcasecmp(key, "mcsl")) {
		rc = vf_parse_int(val, 0, 15, &l, &why);
		if (!rc)
			*(!strcasecmp(key, "basesl") ? &v->qos.base_sl :
						       &v->qos.mcast_sl) = (int)l;
	} else {	/* pktlifetime */
		rc = vf_parse_int(val, 1, 128, &l, &why);
		v->qos.pkt_lifetime_mult = rc ? 0 : (unsigned)l;
	}
	v->qos_given |= strcasecmp(key, "app") && strcasecmp(key, "security") &&
			strcasecmp(key, "standby");
	if (rc)
		error(pc, at, p->owner, why, val);
	return 0;
}

static int partition_flag(struct pc *pc, struct part *p, char *key,
			  char *val, const char *at)
{
	struct vf_cfg_vf *v = &pc->c->vfs[p->vf];
	unsigned mtu;
	int rc = vfabric_flag(pc, p, key, val, at);

	if (rc <= 0)
		return rc;
	/* OpenSM's order: the group flags first, each by any prefix */
	if (prefix(key, "mtu")) {
		mtu = code(val, 5);
		if (!mtu)
			warning(pc, at, p->owner, "mtu needs 1-5; skipped (as OpenSM)",
				val ? val : "");
		v->max_mtu = mtu ? 128u << mtu : v->max_mtu;
	} else if (prefix(key, "rate")) {
		unsigned rate = code(val, 22);

		if (!rate)
			warning(pc, at, p->owner, "rate needs an IB rate code; skipped (as OpenSM)",
				val ? val : "");
		v->max_rate = rate ? rate : v->max_rate;
	} else if (prefix(key, "scope") || prefix(key, "Q_Key") ||
		   prefix(key, "TClass") || prefix(key, "sl") ||
		   prefix(key, "FlowLabel")) {
		return raw_flag(v, key, val);	/* OpenSM reads them */
	} else if (prefix(key, "ipoib")) {
		v->ipoib = true;
	} else if (prefix(key, "defmember")) {
		if (!val || (!prefix(val, "limited") && !prefix(val, "both") &&
			     !prefix(val, "full")))
			warning(pc, at, p->owner,
				"defmember needs limited, full or both; skipped (as OpenSM)",
				val ? val : "");
		else
			p->defmember = member_word(pc, val, at, p->owner);
	} else if (!strcmp(key, "indx0")) {
		p->indx0 = true;
	} else {
		warning(pc, at, p->owner,
			"unknown partition flag; ignored (as OpenSM)", key);
	}
	return 0;
}

static int add_entry(struct pc *pc, struct part *p, uint8_t select,
		     uint8_t m, uint64_t guid, const char *group)
{
	struct vf_cfg_vf *v = &pc->c->vfs[p->vf];
	struct vf_pc_entry *grown = realloc(v->pc_entries,
					    (v->num_pc_entries + 1) *
					    sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	v->pc_entries = grown;
	grown[v->num_pc_entries] = (struct vf_pc_entry){
		.seq = pc->seq++, .select = select, .membership = m,
		.indx0 = p->indx0, .guid = guid,
		.group = group ? strdup(group) : NULL };
	if (group && !grown[v->num_pc_entries].group)
		return -ENOMEM;
	v->num_pc_entries++;
	return 0;
}

static int partition_member(struct pc *pc, struct part *p, char *name,
			    char *val, const char *at)
{
	int select = vf_pc_select_word(name);
	uint8_t m = p->defmember;
	unsigned long long guid = 0;
	char *end;

	/* OpenSM: an empty name or a prefix of NONE is no member */
	if (!*name || prefix(name, "NONE"))
		return 0;
	if (val)
		m = member_word(pc, val, at, p->owner);
	if (name[0] == '@') {
		pc->vfabric = true;
		return add_entry(pc, p, VF_PC_GROUP, m, 0, name + 1);
	}
	if (select < 0 && (!(guid = strtoull(name, &end, 0)) || *end)) {
		error(pc, at, p->owner, "not a port GUID or member keyword",
		      name);
		return 0;
	}
	return add_entry(pc, p, select < 0 ? VF_PC_GUID : (uint8_t)select, m,
			 guid, NULL);
}

/*
 * A VF name for a new partition: its own, made unique (NAME, else the
 * first free NAME#n from 2).  One pass over the VFs marks the suffixes
 * taken: probing each candidate with a pass of its own made a file of
 * many same-named statements (garbage, say) cubic.
 */
static int unique_name(struct pc *pc, const char *name, char *out,
		       size_t size)
{
	enum { MAX_SUFFIX = 10000 };
	/* room for "#NNNN" and the member groups' "#limited" */
	int room = VF_CFG_MAX_NAME - 16;
	unsigned char taken[MAX_SUFFIX / 8 + 1] = { 0 };
	size_t base;

	snprintf(out, size, "%.*s", room, name);
	base = strlen(out);
	for (unsigned i = 0; i < pc->c->num_vfs; i++) {
		const char *v = pc->c->vfs[i].name;
		unsigned long n = 1;	/* the bare name */
		char *end = NULL;

		if (strncmp(v, out, base) || (v[base] && v[base] != '#'))
			continue;
		if (v[base]) {
			n = strtoul(v + base + 1, &end, 10);
			if (*end || n < 2 || n >= MAX_SUFFIX)
				continue;
		}
		taken[n / 8] |= (unsigned char)(1u << (n % 8));
	}
	for (unsigned n = 1; n < MAX_SUFFIX; n++) {
		if (taken[n / 8] & (1u << (n % 8)))
			continue;
		if (n > 1)
			snprintf(out, size, "%.*s#%u", room, name, n);
		return 0;
	}
	return -EEXIST;
}

/* The partition a statement adds to: by P_Key, else by name (OpenSM). */
static int find_part(const struct pc *pc, int pkey, const char *name)
{
	for (unsigned i = 0; i < pc->c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &pc->c->vfs[i];

		if (!v->from_partitions_conf)
			continue;
		if (pkey > 0 ? v->pkey == pkey :
		    *name && !strncmp(v->name, name, 31))
			return (int)i;
	}
	return -1;
}

/* A new partition's VF, with its member groups (vf_pc_resolve fills
 * them with the final members, for the SA and routing). */
static int new_part(struct pc *pc, const char *name, int pkey,
		    struct vf_where at)
{
	static const char *const word[] = { "", "limited", "full", "both" };
	char vname[VF_CFG_MAX_NAME + 16], gname[VF_CFG_MAX_NAME + 32];
	struct vf_cfg_vf *v;

	if (*name)
		snprintf(gname, sizeof(gname), "%s", name);
	else if (pkey > 0)
		snprintf(gname, sizeof(gname), "%04x", pkey);
	else
		snprintf(gname, sizeof(gname), "partition");
	if (unique_name(pc, gname, vname, sizeof(vname)))
		return -EEXIST;
	v = vf_config_new_vf(pc->c, vname, at);
	if (!v)
		return -ENOMEM;
	v->enable = true;
	v->security = true;		/* limited means limited */
	v->from_partitions_conf = true;
	v->pkey = pkey > 0 ? pkey : -1;
	for (uint8_t m = VF_MEMBER_LIMITED; m <= VF_MEMBER_BOTH; m++) {
		struct vf_cfg_dg *g;
		struct vf_cfg_vf *vf = &pc->c->vfs[pc->c->num_vfs - 1];

		snprintf(gname, sizeof(gname), "%s#%s", vname, word[m]);
		if (vf_names_add(m == VF_MEMBER_FULL ? &vf->members :
				 m == VF_MEMBER_LIMITED ? &vf->limited :
				 &vf->both, gname))
			return -ENOMEM;
		g = vf_config_new_dg(pc->c, gname, at);
		if (!g)
			return -ENOMEM;
		g->synthesized = true;
	}
	return (int)pc->c->num_vfs - 1;
}

static int partition_header(struct pc *pc, struct part *p, const char *s,
			    const char *e)
{
	const char *end = item_end(s, e, ',');
	char *first = token(s, end), *pkey, *name, *endp;
	int k, explicit_pkey = 0, rc = 0;

	if (!first)
		return -ENOMEM;
	pkey = split_value(first);
	name = first;
	/* OpenSM: a name starting with a digit, without '=', is the P_Key */
	if (!pkey && isdigit((unsigned char)*name)) {
		pkey = name;
		name = first + strlen(first);	/* "" */
	}
	if (pkey) {
		/* as OpenSM: 16 bits of the number, the low 15 the P_Key,
		 * none (0x8000) makes it automatic */
		explicit_pkey = (int)((uint16_t)strtoul(pkey, &endp, 0) &
				      0x7fff);
		if (endp == pkey || *endp) {
			error(pc, s, "partition", "the P_Key is not a number",
			      pkey);
			free(first);
			return 1;
		}
	}
	snprintf(p->owner, sizeof(p->owner), "partition '%.60s'",
		 *name ? name : pkey ? pkey : "");
	k = find_part(pc, explicit_pkey, name);
	if (k < 0)
		k = new_part(pc, name, explicit_pkey, p->at);
	free(first);
	if (k == -ENOMEM)
		return k;
	if (k < 0) {
		error(pc, s, p->owner, "too many partitions of that name", NULL);
		return 1;
	}
	p->vf = (unsigned)k;
	for (s = end + (end < e); s < e && !rc; s = end + (end < e)) {
		char *flag, *val;

		end = item_end(s, e, ',');
		flag = token(s, end);
		if (!flag)
			return -ENOMEM;
		val = split_value(flag);
		if (*flag)
			rc = partition_flag(pc, p, flag, val, s);
		free(flag);
	}
	return rc;
}

static int partition_members(struct pc *pc, struct part *p, const char *s,
			     const char *e)
{
	int rc = 0;

	while (s < e && !rc) {
		const char *end;
		char *item, *val;

		while (s < e && isspace((unsigned char)*s))
			s++;
		/* OpenSM: an mgid= definition takes the rest of its line */
		if (!strncmp(s, "mgid", 4) && s + 4 < e &&
		    (s[4] == '=' || isspace((unsigned char)s[4]))) {
			end = memchr(s, '\n', (size_t)(e - s));
			end = end ? end : e;
			item = token(s, end);
			rc = item ? vf_names_add(&pc->c->vfs[p->vf].mgid_lines,
						 item) : -ENOMEM;
			free(item);
			s = end;
			continue;
		}
		/* OpenSM reads a line at a time: a line ends an item too */
		end = item_end(s, e, ',');
		{
			const char *nl = memchr(s, '\n', (size_t)(end - s));

			end = nl ? nl : end;
		}
		item = token(s, end);
		if (!item)
			return -ENOMEM;
		val = split_value(item);
		rc = partition_member(pc, p, item, val, s);
		free(item);
		s = end + (end < e);
	}
	return rc;
}

static int partition(struct pc *pc, const char *s, const char *colon,
		     const char *e)
{
	struct part p = { .defmember = VF_MEMBER_LIMITED };
	int rc;

	p.at = where(pc, s);
	rc = partition_header(pc, &p, s, colon);
	if (!rc)
		rc = partition_members(pc, &p, colon + 1, e);
	/* a stock partition carries any traffic */
	if (!rc && !pc->c->vfs[p.vf].apps.n)
		rc = vf_names_add(&pc->c->vfs[p.vf].apps, "All");
	return rc > 0 ? 0 : rc;
}

/*
 * OpenSM starts the default partition with ALL=limited, SELF=full; the
 * file's entries for it come after (they win).  Without a Default
 * statement the plan's stock default rules say the same.
 */
static int default_entries(struct pc *pc)
{
	int k = find_part(pc, 0x7fff, "");
	struct vf_cfg_vf *v;
	struct vf_pc_entry *grown;

	if (k < 0)
		return 0;
	v = &pc->c->vfs[k];
	grown = realloc(v->pc_entries, (v->num_pc_entries + 2) *
				       sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	v->pc_entries = grown;
	memmove(grown + 2, grown, v->num_pc_entries * sizeof(*grown));
	grown[0] = (struct vf_pc_entry){ .seq = 0, .select = VF_PC_ALL,
					 .membership = VF_MEMBER_LIMITED };
	grown[1] = (struct vf_pc_entry){ .seq = 1, .select = VF_PC_SELF,
					 .membership = VF_MEMBER_FULL };
	v->num_pc_entries += 2;
	return 0;
}

/* ---- statements --------------------------------------------------------- */

/* "DeviceGroup NAME" or "Application NAME": which, and the name. */
static int vfabric_header(const char *s, const char *e, char **name)
{
	static const char *const words[] = { "DeviceGroup", "Application" };

	while (s < e && isspace((unsigned char)*s))
		s++;
	for (int i = 0; i < 2; i++) {
		size_t n = strlen(words[i]);

		if ((size_t)(e - s) > n && !strncmp(s, words[i], n) &&
		    isspace((unsigned char)s[n])) {
			*name = token(s + n, e);
			return *name ? i : -ENOMEM;
		}
	}
	return -1;
}

static int statement(struct pc *pc, const char *s, const char *e)
{
	const char *colon;
	char *name = NULL;
	int kind, rc;

	while (s < e && isspace((unsigned char)*s))
		s++;
	if (s == e)
		return 0;
	colon = item_end(s, e, ':');
	if (colon == e) {
		error(pc, s, "partitions.conf",
		      "no ':' in this statement (Name=PKey : members ;)", NULL);
		return 0;
	}
	kind = vfabric_header(s, colon, &name);
	if (kind == -ENOMEM)
		return kind;
	if (kind < 0)
		return partition(pc, s, colon, e);
	rc = vfabric_statement(pc, kind == 0, name, s, colon + 1, e);
	free(name);
	return rc;
}

/*
 * The file (or buf, len bytes of it already read) with its comments
 * blanked (newlines kept, for line numbers).
 */
static char *read_text(const char *path, const char *buf, size_t len,
		       struct vf_diag *d, int *err)
{
	FILE *f = buf ? NULL : fopen(path, "r");
	struct vf_where at = { path, 0 };
	char *text;
	size_t n;

	*err = 0;
	if (buf) {
		text = len <= MAX_FILE ? strndup(buf, len) : NULL;
		if (!text) {
			*err = len <= MAX_FILE ? -ENOMEM : -EFBIG;
			vf_diag_add(d, VF_DIAG_ERROR, &at, "%s",
				    len <= MAX_FILE ? "out of memory" :
				    "larger than 16 MiB");
			return NULL;
		}
		goto blank;
	}
	if (!f) {
		*err = -errno;
		vf_diag_add(d, VF_DIAG_ERROR, &at, "cannot be read: %s",
			    strerror(errno));
		return NULL;
	}
	text = malloc(MAX_FILE + 1);
	n = text ? fread(text, 1, MAX_FILE + 1, f) : 0;
	fclose(f);
	if (!text || n > MAX_FILE) {
		*err = text ? -EFBIG : -ENOMEM;
		vf_diag_add(d, VF_DIAG_ERROR, &at, "%s", text ?
			    "larger than 16 MiB" : "out of memory");
		free(text);
		return NULL;
	}
	text[n] = '\0';
blank:
	/* a comment on the last line, without a newline, ends the text */
	for (char *s = text; *s; s++) {
		if (*s != '#')
			continue;
		while (*s && *s != '\n')
			*s++ = ' ';
		if (!*s)
			break;
	}
	return text;
}

/* The vFabric reading: from buf (len bytes) when not NULL, else path. */
static int extended_load(const char *path, const char *buf, size_t len,
			 struct vf_config *c, struct vf_diag *d,
			 bool *vfabric)
{
	struct pc pc = { .c = c, .d = d, .seq = 2 };
	const char *eof;
	int rc;

	*vfabric = false;
	if (vf_names_add(&c->files, path))
		return -ENOMEM;
	pc.file = c->files.v[c->files.n - 1];
	pc.text = read_text(path, buf, len, d, &rc);
	if (!pc.text)
		return rc;
	c->stock_defaults = true;
	eof = pc.text + strlen(pc.text);	/* once: not per statement */
	for (const char *s = pc.text; *s && !rc;) {
		const char *end = item_end(s, eof, ';');
		unsigned errors = d->errors;
		const char *t = s;

		while (t < end && isspace((unsigned char)*t))
			t++;
		rc = statement(&pc, s, end);
		c->clean_statements += t < end && d->errors == errors;
		s = *end ? end + 1 : end;
	}
	if (!rc)
		rc = default_entries(&pc);
	if (!rc)
		rc = vf_config_add_builtins(c);
	if (rc == -ENOMEM) {
		struct vf_where at = { pc.file, 0 };

		vf_diag_add(d, VF_DIAG_ERROR, &at, "out of memory");
	}
	*vfabric = pc.vfabric;
	free(pc.text);
	return rc == -ENOMEM ? rc : 0;
}

/* Forget the messages after the first n (a reading given up). */
static void diag_cut(struct vf_diag *d, unsigned n)
{
	while (d->n > n) {
		struct vf_diag_msg *m = &d->v[--d->n];

		d->errors -= m->level == VF_DIAG_ERROR;
		free(m->text);
	}
}

/* From buf (len bytes) when not NULL, else from the file path. */
static int load(const char *path, const char *buf, size_t len,
		struct vf_config *c, struct vf_diag *d, bool *vfabric)
{
	unsigned first = d->n;
	int rc = extended_load(path, buf, len, c, d, vfabric);

	if (rc || *vfabric || d->oom)
		return rc;
	/* no vFabric statement: stock OpenSM's meaning, exactly */
	diag_cut(d, first);
	vf_config_free(c);
	if (vf_names_add(&c->files, path))
		return -ENOMEM;
	rc = vf_pconf_stock_load(path, buf, len, c, d);
	return rc == -ENOMEM ? rc : 0;
}

int vf_pconf_load(const char *path, struct vf_config *c, struct vf_diag *d,
		  bool *vfabric)
{
	return load(path, NULL, 0, c, d, vfabric);
}

int vf_pconf_load_text(const char *name, const char *buf, size_t len,
		       struct vf_config *c, struct vf_diag *d, bool *vfabric)
{
	return load(name, buf, len, c, d, vfabric);
}
