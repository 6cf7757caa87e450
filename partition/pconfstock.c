// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#define _GNU_SOURCE	/* fmemopen */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/internal/pconfstock.h"
#include "routing/fabric.h"

#define LINE_BUF 4096		/* OpenSM's line buffer */
#define NAME_MAX_STOCK 32	/* osm_prtn_t name[32] */
#define DEFAULT_PKEY 0x7fff
#define IPOIB_QKEY 0x0b1bu

/* The group flags of a statement or mgid= item (OpenSM's types). */
struct gflags {
	unsigned mtu, rate, sl, scope_mask;
	uint32_t qkey;
	uint8_t tclass;
	uint32_t flow;
};

/* One OpenSM partition so far. */
struct part {
	uint16_t pkey;
	char name[NAME_MAX_STOCK];
	unsigned vf;
};

struct rd {
	struct vf_config *c;
	struct vf_diag *d;
	const char *file;
	FILE *in;
	char buf[LINE_BUF];
	size_t high;		/* bytes of buf some line wrote */
	unsigned line;
	struct part *parts;
	unsigned num_parts;
	unsigned counter;	/* OpenSM's generate_pkey() */
	unsigned seq;
	bool undefined, oom;
	/* the statement being read (OpenSM's struct part_conf) */
	bool open;
	int part;		/* -1: header not read yet */
	bool ipoib, indx0;
	uint8_t membership;
	struct gflags flags;
};

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n';
}

static void say(struct rd *r, enum vf_diag_level lvl, const char *fmt,
		const char *arg)
{
	struct vf_where at = { r->file, r->line };
	const char *mark = strstr(fmt, "%s");
	int head = mark ? (int)(mark - fmt) : (int)strlen(fmt);

	/* fmt holds at most one %s, for arg */
	vf_diag_add(r->d, lvl, &at, "%.*s%s%s", head, fmt,
		    mark && arg ? arg : "", mark ? mark + 2 : "");
}

/* Can OpenSM's walk start reading at p, or was that byte never written? */
static bool defined_at(struct rd *r, const char *p)
{
	if (p >= r->buf && p < r->buf + r->high)
		return true;
	if (!r->undefined)
		say(r, VF_DIAG_ERROR, "%sstock OpenSM would read memory no line of the file wrote here (a ';' at the start of a line or after another ';', or an mgid= item without flags at the end of a line); the file has no defined meaning",
		    NULL);
	r->undefined = true;
	return false;
}

/* Clear trailing blanks the way OpenSM does (never the first byte). */
static void trim_tail(char *p)
{
	char *q = p + strlen(p);

	while (q != p && (*q == '\0' || blank(*q)))
		*q-- = '\0';
}

/*
 * "name[=value]" split in place; returns how far OpenSM moves on: the
 * item's length plus one (its terminator), measured before trimming.
 */
static int split(char *str, char **name, char **val)
{
	char *p = str, *eq, *rest;
	int len;

	*val = NULL;
	while (blank(*p))
		p++;
	eq = strchr(p, '=');
	if (eq)
		*eq++ = '\0';
	len = (int)strlen(str) + 1;
	rest = eq;
	trim_tail(p);
	*name = p;
	if (!rest)
		return len;
	p = rest;
	while (blank(*p))
		p++;
	len += (int)(p + strlen(p) - rest) + 1;
	trim_tail(p);
	*val = p;
	return len;
}

static bool prefix(const char *word, const char *of)
{
	return !strncmp(word, of, strlen(word));
}

int vf_pc_select_word(const char *name)
{
	/* in OpenSM's order: "A" and "ALL_" are ALL, as it tests ALL first */
	static const struct {
		const char *word;
		int select;
	} words[] = {
		{ "ALL", VF_PC_ALL }, { "ALL_CAS", VF_PC_CAS },
		{ "ALL_SWITCHES", VF_PC_SWITCHES },
		{ "ALL_ROUTERS", VF_PC_ROUTERS }, { "SELF", VF_PC_SELF },
	};

	for (unsigned i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (prefix(name, words[i].word))
			return words[i].select;
	return -1;
}

/* OpenSM's group flags (mtu, rate, scope, Q_Key, TClass, sl, FlowLabel):
 * a flag is any prefix of its name; true when flag was one of them. */
static bool group_flag(struct rd *r, struct gflags *g, const char *flag,
		       const char *val)
{
	unsigned long v;
	char *end;

	if (prefix(flag, "mtu") || prefix(flag, "rate")) {
		unsigned *to = prefix(flag, "mtu") ? &g->mtu : &g->rate;

		if (val)
			*to = (unsigned)strtoul(val, NULL, 0);
		if (!val || !*to)
			say(r, VF_DIAG_WARN, "flag '%s' needs a value; skipped (as OpenSM)",
			    flag);
	} else if (prefix(flag, "scope")) {
		unsigned sc = val ? (unsigned)strtoul(val, NULL, 0) : 0;

		if (!sc || sc > 0xf)
			say(r, VF_DIAG_WARN, "flag 'scope' needs 1-15, not '%s'; skipped (as OpenSM)",
			    val);
		else
			g->scope_mask |= 1u << sc;
	} else if (prefix(flag, "Q_Key")) {
		if (val)
			g->qkey = (uint32_t)strtoul(val, NULL, 0);
	} else if (prefix(flag, "TClass")) {
		if (val)
			g->tclass = (uint8_t)strtoul(val, NULL, 0);
	} else if (prefix(flag, "sl") || prefix(flag, "FlowLabel")) {
		bool sl = prefix(flag, "sl");

		v = val && *val ? strtoul(val, &end, 0) : 0;
		if (!val || !*val ||
		    (sl ? (unsigned)v > 15 : (uint32_t)v > 0xfffff) ||
		    (*end && !isspace((unsigned char)*end)))
			say(r, VF_DIAG_WARN, "flag '%s' has no valid value; skipped (as OpenSM)",
			    flag);
		else if (sl)
			g->sl = (unsigned)v;
		else
			g->flow = (uint32_t)v;
	} else {
		return false;
	}
	return true;
}

/* ---- partitions ------------------------------------------------------- */

/* OpenSM keeps partitions in a map keyed by the P_Key in network order. */
static unsigned net_order(uint16_t pkey)
{
	return (unsigned)((pkey & 0xff) << 8 | pkey >> 8);
}

static int by_pkey(const struct rd *r, uint16_t pkey)
{
	for (unsigned i = 0; i < r->num_parts; i++)
		if (r->parts[i].pkey == pkey)
			return (int)i;
	return -1;
}

static int by_name(const struct rd *r, const char *name)
{
	int best = -1;

	for (unsigned i = 0; i < r->num_parts; i++)
		if (!strncmp(r->parts[i].name, name, NAME_MAX_STOCK) &&
		    (best < 0 || net_order(r->parts[i].pkey) <
				 net_order(r->parts[best].pkey)))
			best = (int)i;
	return best;
}

static int new_part(struct rd *r, const char *name, uint16_t pkey)
{
	struct part *grown = realloc(r->parts,
				     (r->num_parts + 1) * sizeof(*grown));
	struct part *p;
	struct vf_cfg_vf *v;
	char vname[NAME_MAX_STOCK + 16];
	struct vf_where at = { r->file, r->line };

	if (!grown)
		return -ENOMEM;
	r->parts = grown;
	p = &r->parts[r->num_parts];
	memset(p, 0, sizeof(*p));
	p->pkey = pkey;
	if (name && *name)
		snprintf(p->name, sizeof(p->name), "%s", name);
	else
		snprintf(p->name, sizeof(p->name), "%04x", pkey);
	/* a VF name of our own: OpenSM's names need not be unique */
	snprintf(vname, sizeof(vname), "%s", p->name);
	if (vf_config_dg_index(r->c, vname) >= 0 || strchr(vname, '#'))
		vname[0] = '\0';
	for (unsigned i = 0; i < r->c->num_vfs && vname[0]; i++)
		if (!strcmp(r->c->vfs[i].name, vname))
			vname[0] = '\0';
	if (!vname[0])
		snprintf(vname, sizeof(vname), "%.20s#%04x", p->name, pkey);
	v = vf_config_new_vf(r->c, vname, at);
	if (!v || vf_names_add(&v->apps, "All"))
		return -ENOMEM;
	v->pkey = pkey;
	v->enable = true;
	v->security = true;
	v->from_partitions_conf = true;
	p->vf = r->c->num_vfs - 1;
	/* the final members, for everything that reads VF membership from
	 * DeviceGroups (the SA, routing); vf_pc_resolve() fills them */
	for (uint8_t m = VF_MEMBER_LIMITED; m <= VF_MEMBER_BOTH; m++) {
		static const char *const word[] = { "", "limited", "full",
						    "both" };
		char gname[NAME_MAX_STOCK + 32];
		struct vf_cfg_dg *g;
		struct vf_cfg_vf *vf = &r->c->vfs[p->vf];

		snprintf(gname, sizeof(gname), "%s#%s", vf->name, word[m]);
		if (vf_names_add(m == VF_MEMBER_FULL ? &vf->members :
				 m == VF_MEMBER_LIMITED ? &vf->limited :
				 &vf->both, gname))
			return -ENOMEM;
		g = vf_config_new_dg(r->c, gname, at);
		if (!g)
			return -ENOMEM;
		g->synthesized = true;
	}
	return (int)r->num_parts++;
}

/* osm_prtn_make_new(): the partition a statement adds to; -1 none left. */
static int make_part(struct rd *r, const char *name, uint16_t pkey)
{
	int k;

	pkey &= 0x7fff;
	if (!pkey) {
		if (name && (k = by_name(r, name)) >= 0)
			return k;
		while (r->counter < DEFAULT_PKEY - 1) {
			pkey = (uint16_t)++r->counter;
			if (by_pkey(r, pkey) < 0)
				break;
			pkey = 0;
		}
		if (!pkey)
			return -1;
	}
	k = by_pkey(r, pkey);
	return k >= 0 ? k : new_part(r, name, pkey);
}

static int add_entry(struct rd *r, unsigned k, uint8_t select,
		     uint8_t membership, uint64_t guid)
{
	struct vf_cfg_vf *v = &r->c->vfs[r->parts[k].vf];
	struct vf_pc_entry *grown = realloc(v->pc_entries,
					    (v->num_pc_entries + 1) *
					    sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	v->pc_entries = grown;
	grown[v->num_pc_entries++] = (struct vf_pc_entry){
		.seq = r->seq++, .select = select, .membership = membership,
		.indx0 = r->indx0, .guid = guid };
	return 0;
}

/* ---- multicast groups --------------------------------------------------- */

static bool group_exists(const struct rd *r, const uint8_t *raw)
{
	for (unsigned i = 0; i < r->c->num_pc_groups; i++) {
		const struct vf_pc_group *g = &r->c->pc_groups[i];
		uint8_t have[16];

		for (int b = 0; b < 8; b++) {
			have[b] = (uint8_t)(g->mgid_hi >> (56 - 8 * b));
			have[8 + b] = (uint8_t)(g->mgid_lo >> (56 - 8 * b));
		}
		if (!memcmp(have, raw, 16))
			return true;
	}
	return false;
}

/*
 * An MTU or rate code as OpenSM's SA takes it when it creates a group:
 * the low 8 bits, the selector "exactly" or'ed into the top two; a
 * selector that comes out as 3 takes the subnet's own value (fine), else
 * the code must be within [lo, hi].
 */
static bool code_ok(unsigned v, unsigned lo, unsigned hi)
{
	uint8_t eff = (uint8_t)((uint8_t)v | 0x80);

	return eff >> 6 == 3 || ((eff & 0x3f) >= lo && (eff & 0x3f) <= hi);
}

/*
 * Would OpenSM's SA create this group (mcmr_rcv_create_new_mgrp(), with
 * ipoib_mcgroup_creation_validation on, its default)?  MTU 256-4096 and
 * rate 2.5-600 Gb/s codes; an IPoIB MGID other than the broadcast group
 * needs its partition's broadcast group at the same scope; other MGIDs
 * must not use the reserved flag bits, nor 0xA01B at link-local scope.
 */
static bool creatable(const struct rd *r, const struct gflags *f,
		      const uint8_t *raw)
{
	unsigned sig = (unsigned)(raw[2] << 8 | raw[3]);

	if (!code_ok(f->mtu, 1, 5) || !code_ok(f->rate, 2, 22))
		return false;
	if (sig == 0x401b || sig == 0x601b) {
		uint8_t bcast[16] = { 0xff, (uint8_t)(0x10 | (raw[1] & 0xf)),
			0x40, 0x1b, raw[4], raw[5], 0, 0, 0, 0, 0, 0,
			0xff, 0xff, 0xff, 0xff };

		return !memcmp(bcast, raw, 16) || group_exists(r, bcast);
	}
	return !(raw[1] & 0xe0) && !(sig == 0xa01b && (raw[1] & 0xf) == 2);
}

/* osm_prtn_add_mcgroup(): one group at one scope (found, or made). */
static int add_group(struct rd *r, const struct gflags *f, const uint8_t *mgid,
		     unsigned scope)
{
	struct vf_pc_group *grown, *g;
	uint8_t raw[16];

	memcpy(raw, mgid, 16);
	scope = scope ? scope : 2;	/* OpenSM's default: link-local */
	raw[1] = (uint8_t)((raw[1] & 0xf0) | (scope & 0xf));
	if (group_exists(r, raw))
		return 0;
	if (!creatable(r, f, raw)) {
		say(r, VF_DIAG_WARN, "%sa multicast group OpenSM's SA will not create (MTU, rate, or no broadcast group for an IPoIB MGID); none (as OpenSM)",
		    NULL);
		return 0;
	}
	grown = realloc(r->c->pc_groups,
			(r->c->num_pc_groups + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	r->c->pc_groups = grown;
	g = &grown[r->c->num_pc_groups++];
	memset(g, 0, sizeof(*g));
	g->vf = r->parts[r->part].vf;
	for (int b = 0; b < 8; b++) {
		g->mgid_hi = g->mgid_hi << 8 | raw[b];
		g->mgid_lo = g->mgid_lo << 8 | raw[8 + b];
	}
	g->mtu = (uint8_t)f->mtu;
	g->rate = (uint8_t)f->rate;
	g->sl = (uint8_t)f->sl;
	g->scope = (uint8_t)scope;
	g->qkey = f->qkey;
	g->tclass = f->tclass;
	g->flow_label = f->flow;
	return 0;
}

static int create_groups(struct rd *r, const struct gflags *f,
			 const uint8_t *mgid)
{
	int rc = 0;

	if (!f->scope_mask)
		return add_group(r, f, mgid, 0);
	for (unsigned sc = 0; sc < 16 && !rc; sc++)
		if (f->scope_mask & 1u << sc)
			rc = add_group(r, f, mgid, sc);
	return rc;
}

static bool is_ip(const uint8_t *raw)
{
	return (raw[2] == 0x40 || raw[2] == 0x60) && raw[3] == 0x1b;
}

/* An mgid= item: its flags start at p; returns how far OpenSM moves on. */
static int mgroup(struct rd *r, char *p, const char *mgid)
{
	static const uint8_t bcast[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff,
		0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	uint16_t pkey = r->parts[r->part].pkey | 0x8000;
	struct gflags f = r->flags;
	uint8_t raw[16];
	int len = 0;
	char *q, *flag, *val;
	int ret;

	if (!mgid || !defined_at(r, p)) {
		if (!mgid && !r->undefined)
			say(r, VF_DIAG_ERROR, "%s'mgid' without '=': stock OpenSM crashes on it",
			    NULL);
		r->undefined = true;
		return 0;
	}
	if (inet_pton(AF_INET6, mgid, raw) != 1 || raw[0] != 0xff) {
		say(r, VF_DIAG_WARN, "mgid '%s' is not a multicast GID; no group (as OpenSM)",
		    mgid);
		return 0;
	}
	f.tclass = 0;		/* the one flag a group does not inherit */
	do {
		q = strchr(p, ',');
		if (q)
			*q++ = '\0';
		ret = split(p, &flag, &val);
		if (!group_flag(r, &f, flag, val))
			say(r, VF_DIAG_WARN, "unknown mgid flag '%s'; ignored (as OpenSM)",
			    flag);
		p += ret;
		len += ret;
	} while (q);
	if (is_ip(raw)) {
		uint16_t bits = (uint16_t)(raw[4] << 8 | raw[5]);

		if (memcmp(raw, bcast, 16) && bits && bits != pkey) {
			say(r, VF_DIAG_WARN, "IP group %s has another partition's P_Key; no group (as OpenSM)",
			    mgid);
			return len;
		}
		if (f.rate != r->flags.rate || f.mtu != r->flags.mtu) {
			say(r, VF_DIAG_WARN, "IP group %s differs from its partition's rate or mtu; no group (as OpenSM)",
			    mgid);
			return len;
		}
		raw[4] = (uint8_t)(pkey >> 8);
		raw[5] = (uint8_t)pkey;
		if (!f.qkey)
			f.qkey = IPOIB_QKEY;
	}
	if (group_exists(r, raw))
		return len;
	if (create_groups(r, &f, raw))
		r->oom = true;
	return len;
}

/* ---- statements --------------------------------------------------------- */

static void part_flag(struct rd *r, const char *flag, const char *val)
{
	if (group_flag(r, &r->flags, flag, val))
		return;
	if (prefix(flag, "ipoib")) {
		r->ipoib = true;
	} else if (prefix(flag, "defmember")) {
		if (!val || (!prefix(val, "limited") && !prefix(val, "both") &&
			     !prefix(val, "full")))
			say(r, VF_DIAG_WARN, "defmember needs limited, full or both, not '%s'; skipped (as OpenSM)",
			    val);
		else
			r->membership = prefix(val, "full") ? VF_MEMBER_FULL :
					prefix(val, "both") ? VF_MEMBER_BOTH :
					VF_MEMBER_LIMITED;
	} else if (!strcmp(flag, "indx0")) {
		r->indx0 = true;
	} else {
		say(r, VF_DIAG_WARN, "unknown partition flag '%s'; ignored (as OpenSM)",
		    flag);
	}
}

/* partition_create(): -1 makes the file "in error". */
static int create(struct rd *r, char *name, char *id)
{
	uint16_t pkey = 0;
	int k;

	if (!id && isdigit((unsigned char)*name)) {
		id = name;
		name = NULL;
	}
	if (id) {
		char *end;

		pkey = (uint16_t)strtoul(id, &end, 0);
		if (end == id || *end)
			return -1;
	}
	k = make_part(r, name, pkey);
	if (k == -ENOMEM)
		r->oom = true;
	if (k < 0)
		return -1;
	r->part = k;
	r->flags.sl = 0;	/* OpenSM without qos */
	if (r->ipoib) {
		static const uint8_t tmpl[16] = { 0xff, 0x12, 0x40, 0x1b, 0, 0,
			0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
		struct gflags f = r->flags;
		uint8_t raw[16];

		memcpy(raw, tmpl, 16);
		raw[4] = (uint8_t)((r->parts[k].pkey | 0x8000) >> 8);
		raw[5] = (uint8_t)r->parts[k].pkey;
		f.qkey = f.qkey ? f.qkey : IPOIB_QKEY;
		f.scope_mask = 0;	/* OpenSM: the broadcast group's scope
					 * is always link-local */
		if (create_groups(r, &f, raw))
			r->oom = true;
	}
	return 0;
}

/* partition_add_port(): -1 makes the file "in error". */
static int add_port(struct rd *r, const char *name, const char *flag)
{
	int select = vf_pc_select_word(name);
	uint8_t m = r->membership;
	unsigned long long guid = 0;

	if (!*name || prefix(name, "NONE"))
		return 0;
	if (flag) {
		m = prefix(flag, "full") ? VF_MEMBER_FULL :
		    prefix(flag, "both") ? VF_MEMBER_BOTH : VF_MEMBER_LIMITED;
		if (m == VF_MEMBER_LIMITED && !prefix(flag, "limited"))
			say(r, VF_DIAG_WARN, "unknown membership '%s': limited (as OpenSM)",
			    flag);
	}
if (select < 0) {
		char *end;

		select = VF_PC_GUID;
		guid = strtoull(name, &end, 0);
		if (!guid || *end)
			return -1;
	}
	if (add_entry(r, (unsigned)r->part, (uint8_t)select, m, guid))
		r->oom = true;
	return 0;
}

static int fatal(struct rd *r, const char *what)
{
	say(r, VF_DIAG_ERROR, "%s (stock OpenSM: PARSE ERROR, the whole file in error)",
	    what);
	return -1;
}

/* parse_part_conf(): one statement's text on this line; how far it got. */
static int statement(struct rd *r, char *str)
{
	char *p = str, *q, *name, *id, *flag, *val;
	int len, ret;

	if (*p == '\t' || *p == '\0' || *p == '\n')
		p++;
	len = (int)(p - str);
	str = p;
	if (!defined_at(r, p))
		return -1;
	if (r->part < 0) {
		q = strchr(p, ':');
		if (!q)
			return fatal(r, "no partition definition (no ':')");
		*q++ = '\0';
		str = q;
		q = strchr(p, ',');
		if (q)
			*q = '\0';
		ret = split(p, &name, &id);
		p += ret;
		len += ret;
		while (q) {
			q = strchr(p, ',');
			if (q)
				*q++ = '\0';
			ret = split(p, &flag, &val);
			p += ret;
			len += ret;
			part_flag(r, flag, val);
		}
		if (p != str || create(r, name, id) < 0)
			return fatal(r, r->oom ? "out of memory" :
				     "bad partition definition (P_Key not a number)");
	}
	do {
		q = strchr(p, ',');
		if (q)
			*q++ = '\0';
		ret = split(p, &name, &flag);
		len += ret;
		if (!strcmp(name, "mgid")) {
			/* OpenSM: an mgid= item takes the rest as its flags */
			len += mgroup(r, p + ret, flag);
			return r->undefined ? -1 : len;
		}
		if (add_port(r, name, flag) < 0)
			return fatal(r, "bad PortGUID (not a number or member keyword)");
		p += ret;
	} while (q);
	return len;
}

/* fgets(buf, 4095): up to 4094 bytes or through a newline. */
static bool next_line(struct rd *r)
{
	size_t n = 0;
	int ch = 0;

	while (n < LINE_BUF - 2 && (ch = getc(r->in)) != EOF) {
		r->buf[n++] = (char)ch;
		if (ch == '\n')
			break;
	}
	if (!n)
		return false;
	r->buf[n] = '\0';
	if (n + 1 > r->high)
		r->high = n + 1;
	return true;
}

static void open_statement(struct rd *r)
{
	r->open = true;
	r->part = -1;
	r->ipoib = r->indx0 = false;
	r->membership = VF_MEMBER_LIMITED;
	memset(&r->flags, 0, sizeof(r->flags));
	r->flags.rate = 3;	/* OSM_DEFAULT_MGRP_RATE: 10 Gb/s */
	r->flags.mtu = 4;	/* OSM_DEFAULT_MGRP_MTU: 2048 */
}

/* osm_prtn_config_parse_file(): 1 read, 0 nothing read, -1 in error. */
static int parse(struct rd *r)
{
	int state = 0;

	while (state >= 0 && !r->oom && next_line(r)) {
		char *p = r->buf, *q = strchr(p, '#');

		r->line++;
		if (q)
			*q = '\0';
		do {
			int len;

			if (!defined_at(r, p)) {
				state = -1;
				break;
			}
			while (blank(*p))
				p++;
			if (!*p)
				break;
			if (!r->open)
				open_statement(r);
			q = strchr(p, ';');
			if (q)
				*q = '\0';
			len = statement(r, p);
			if (len < 0) {
				state = -1;
				break;
			}
			state = 1;
			p += len;
			if (q) {
				r->open = false;
				r->c->clean_statements++;
			}
		} while (q);
	}
	return state;
}

int vf_pconf_stock_load(const char *path, const char *buf, size_t len,
			struct vf_config *c, struct vf_diag *d)
{
	struct rd *r = calloc(1, sizeof(*r));
	int state, rc = 0;

	if (!r)
		return -ENOMEM;
	r->c = c;
	r->d = d;
	r->file = c->files.n ? c->files.v[c->files.n - 1] : path;
	/* the bytes already read (an empty text: an empty stream) */
	r->in = !buf ? fopen(path, "r") :
		fmemopen(len ? (void *)buf : (void *)"", len ? len : 1, "r");
	if (r->in && buf && !len)
		getc(r->in);	/* the one byte "" holds: at end now */
	c->stock_defaults = c->stock_file = true;
	if (!r->in) {
		rc = -errno;
		say(r, VF_DIAG_ERROR, "cannot be read: %s", strerror(errno));
		free(r);
		return rc;
	}
	/* prtn_make_default(): Default, ALL limited, the SM's port full */
	r->part = new_part(r, "Default", DEFAULT_PKEY);
	if (r->part < 0 ||
	    add_entry(r, 0, VF_PC_ALL, VF_MEMBER_LIMITED, 0) ||
	    add_entry(r, 0, VF_PC_SELF, VF_MEMBER_FULL, 0))
		r->oom = true;
	r->part = -1;
	state = r->oom ? -1 : parse(r);
	fclose(r->in);
	if (r->oom) {
		rc = -ENOMEM;
		say(r, VF_DIAG_ERROR, "%sout of memory", NULL);
	} else if (!state) {
		/* no line to name: the whole file */
		r->line = 0;
		say(r, VF_DIAG_ERROR, "%sdefines no VirtualFabric or partition (stock OpenSM: no partition definition, the file in error)",
		    NULL);
	}
	if (!rc)
		rc = vf_config_add_builtins(c);
	free(r->parts);
	free(r);
	return rc;
}

/* ---- final membership, for DeviceGroup readers -------------------------- */

static bool live_end(const struct vf_fabric *f, uint32_t p)
{
	const struct vf_port *port = &f->ports[p];

	if (vf_is_switch(&f->nodes[port->node]))
		return port->num == 0;
	return port->num > 0 && port->remote != VF_NONE;
}

bool vf_pc_entry_names(const struct vf_config *c, const struct vf_fabric *f,
		       const struct vf_dg_members *m,
		       const struct vf_pc_entry *e, uint32_t p,
		       uint32_t sm_port)
{
	int g;

	uint8_t type = f->nodes[f->ports[p].node].type;

	switch (e->select) {
	case VF_PC_ALL:
		return true;
	case VF_PC_CAS:
		return type == VF_NODE_CA;
	case VF_PC_SWITCHES:
		return type == VF_NODE_SWITCH;
	case VF_PC_ROUTERS:
		return type == VF_NODE_ROUTER;
	case VF_PC_SELF:
		return p == sm_port;
	case VF_PC_GROUP:
		g = vf_config_dg_index(c, e->group);
		return g >= 0 && vf_dg_has(m, (unsigned)g, p);
	default:
		return f->ports[p].guid == e->guid;
	}
}

void vf_pc_resolve(const struct vf_config *c, const struct vf_fabric *f,
		   uint32_t sm_node, struct vf_dg_members *m)
{
	uint32_t sm_port = VF_NONE;

	/* SELF: the SM node's first live port (the plan has the exact one) */
	for (uint32_t p = 0; sm_node != VF_NONE && p < f->num_ports &&
	     sm_port == VF_NONE; p++)
		if (f->ports[p].node == sm_node && live_end(f, p))
			sm_port = p;
	for (unsigned i = 0; i < c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];
		int g[4] = { -1, -1, -1, -1 };

		if (!v->num_pc_entries || !v->members.n || !v->limited.n ||
		    !v->both.n)
			continue;
		g[VF_MEMBER_FULL] = vf_config_dg_index(c, v->members.v[0]);
		g[VF_MEMBER_LIMITED] = vf_config_dg_index(c, v->limited.v[0]);
		g[VF_MEMBER_BOTH] = vf_config_dg_index(c, v->both.v[0]);
		for (uint32_t p = 0; p < f->num_ports; p++) {
			uint8_t mem = VF_MEMBER_NONE;

			if (!live_end(f, p))
				continue;
			for (unsigned e = 0; e < v->num_pc_entries; e++)
				if (vf_pc_entry_names(c, f, m, &v->pc_entries[e], p,
					       sm_port))
					mem = v->pc_entries[e].membership;
			if (mem != VF_MEMBER_NONE && g[mem] >= 0)
				m->bits[(size_t)g[mem] * m->words + p / 64] |=
					1ull << (p % 64);
		}
	}
}
