// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Net files: ibsim 0.10 topology files and ibnetdiscover output, read by
 * one parser into the fabric model, and written back in the ibsim dialect.
 *
 * The parser follows ibsim 0.10's rules wherever they decide what fabric
 * a file describes (GUID numbering, defaults, link width/speed choice),
 * so that an offline model of a net file matches the simulator.  It is
 * stricter than ibsim about malformed lines, and every error names the
 * file, the line and the node/port at fault.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#include "netfile.h"

#define MAX_INCLUDE_DEPTH 16
#define MAX_PREFIX 64

/* ibsim's enabled-width bits (PortInfo LinkWidthEnabled) */
#define W_1X 1
#define W_4X 2
#define W_8X 4
#define W_12X 8
#define W_2X 16
/* LinkSpeedEnabled, LinkSpeedExtEnabled and Mellanox FDR10 bits */
#define S_SDR 1
#define S_DDR 2
#define S_QDR 4
#define E_FDR 1
#define E_EDR 2
#define E_HDR 4
#define E_NDR 8		/* not in ibsim 0.10; only from "4xNDR" text */
#define M_FDR10 1

/* ibsim 0.10 defaults (sim.h DEFAULT_LINKWIDTH / DEFAULT_LINKSPEED) */
#define DEFAULT_WIDTH W_4X
#define DEFAULT_SPEED S_SDR

/* One port line, kept until every node is known. */
struct decl {
	uint32_t port;		/* fabric port index */
	uint32_t file;		/* index in parser.files */
	uint32_t line;
	char *remote;		/* remote node id, module prefix applied */
	unsigned rport;
};

/* Parse state of one fabric port slot. */
struct pstate {
	uint32_t decl;		/* its port line, or VF_NONE */
	uint8_t wen, sen, een, men;	/* enabled masks, as ibsim keeps them */
};

struct nstate {
	uint32_t file, line;	/* the node's header line */
};

/* Open-addressing index of node numbers, by name or by GUID. */
struct ntab {
	uint32_t *slot;
	uint32_t size;		/* power of two */
	uint32_t count;
};

struct parser {
	struct vf_fabric *f;
	struct vf_err *err;
	char **files;
	uint32_t num_files;
	uint32_t file;		/* file being read */
	uint32_t line;
	unsigned depth;
	uint32_t cur;		/* node whose block is open, or VF_NONE */
	uint64_t abs_guid[4], next_guid[4];	/* by enum vf_node_type */
	uint64_t sysimg;	/* for the next node only */
	uint64_t sw_portguid;	/* "switchguid=X(Y)": Y, next switch only */
	uint8_t width, speed, ext;
	char prefix[MAX_PREFIX];
	struct decl *decls;
	uint32_t num_decls, decls_cap;
	struct pstate *ps;
	uint32_t ps_cap;
	struct nstate *ns;
	uint32_t ns_cap;
	struct ntab by_name, by_guid;
};

/* Errors.  Every message starts with "path:line: ". */

static int verr_at(struct parser *p, uint32_t file, uint32_t line,
		   const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static int verr_at(struct parser *p, uint32_t file, uint32_t line,
		   const char *fmt, va_list ap)
{
	char msg[400];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (line)
		vf_err_set(p->err, "%s:%u: %s", p->files[file], line, msg);
	else
		vf_err_set(p->err, "%s: %s", p->files[file], msg);
	return -EINVAL;
}

static int err_at(struct parser *p, uint32_t file, uint32_t line,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int err_at(struct parser *p, uint32_t file, uint32_t line,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr_at(p, file, line, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An error on the line being parsed. */
static int perr(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr_at(p, p->file, p->line, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int nomem(struct parser *p)
{
	err_at(p, p->file, 0, "out of memory");
	return -ENOMEM;
}

static const char *nname(const struct parser *p, uint32_t n)
{
	return vf_node_name(p->f, &p->f->nodes[n]);
}

/* Node index tables. */

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static uint32_t hash_u64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	return (uint32_t)v;
}

static uint32_t tab_hash(const struct parser *p, const struct ntab *t,
			 uint32_t n)
{
	if (t == &p->by_name)
		return hash_str(nname(p, n));
	return hash_u64(p->f->nodes[n].guid);
}

static int tab_add(struct parser *p, struct ntab *t, uint32_t n);

static int tab_grow(struct parser *p, struct ntab *t)
{
	struct ntab old = *t;

	t->size = old.size ? old.size * 2 : 64;
	t->count = 0;
	t->slot = malloc(t->size * sizeof(*t->slot));
	if (!t->slot) {
		*t = old;
		return -ENOMEM;
	}
	memset(t->slot, 0xff, t->size * sizeof(*t->slot));
	for (uint32_t i = 0; i < old.size; i++)
		if (old.slot[i] != VF_NONE)
			tab_add(p, t, old.slot[i]);
	free(old.slot);
	return 0;
}

static int tab_add(struct parser *p, struct ntab *t, uint32_t n)
{
	uint32_t i;

	/* keep the load under one half so probe chains stay short */
	if ((t->count + 1) * 2 > t->size && tab_grow(p, t))
		return -ENOMEM;
	i = tab_hash(p, t, n) & (t->size - 1);
	while (t->slot[i] != VF_NONE)
		i = (i + 1) & (t->size - 1);
	t->slot[i] = n;
	t->count++;
	return 0;
}

static uint32_t find_name(const struct parser *p, const char *name)
{
	const struct ntab *t = &p->by_name;
	uint32_t i;

	if (!t->size)
		return VF_NONE;
	for (i = hash_str(name) & (t->size - 1); t->slot[i] != VF_NONE;
	     i = (i + 1) & (t->size - 1))
		if (!strcmp(nname(p, t->slot[i]), name))
			return t->slot[i];
	return VF_NONE;
}

static uint32_t find_guid(const struct parser *p, uint64_t guid)
{
	const struct ntab *t = &p->by_guid;
	uint32_t i;

	if (!t->size)
		return VF_NONE;
	for (i = hash_u64(guid) & (t->size - 1); t->slot[i] != VF_NONE;
	     i = (i + 1) & (t->size - 1))
		if (p->f->nodes[t->slot[i]].guid == guid)
			return t->slot[i];
	return VF_NONE;
}

/* Small lexing helpers.  They never read past the NUL. */

static char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return (char *)s;
}

static bool starts(const char *s, const char *word)
{
	return !strncmp(s, word, strlen(word));
}

/*
 * An unsigned number (C base prefixes when base is 0) that must end at
 * whitespace, NUL or one of the characters in stop.
 */
static int parse_num(const char **s, int base, const char *stop,
		     uint64_t *val)
{
	const char *p = *s;
	char *end;

	if (!isxdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	*val = strtoull(p, &end, base);
	if (errno || end == p)
		return -EINVAL;
	if (*end && !isspace((unsigned char)*end) && !strchr(stop, *end))
		return -EINVAL;
	*s = end;
	return 0;
}

/*
 * A quoted string starting at *s (after blanks).  Cuts the line at the
 * closing quote and returns the text, or NULL when a quote is missing.
 */
static char *parse_quoted(char **s)
{
	char *q = skip_ws(*s), *e;

	if (*q != '"')
		return NULL;
	e = strchr(q + 1, '"');
	if (!e)
		return NULL;
	*e = '\0';
	*s = e + 1;
	return q + 1;
}

/* Value N of "word N" inside text; false when absent. */
static bool word_num(const char *text, const char *word, uint64_t *val)
{
	size_t len = strlen(word);
	const char *s = text;

	while ((s = strstr(s, word))) {
		const char *v = s + len;
		bool at_start = s == text || isspace((unsigned char)s[-1]);

		s = v;
		if (!at_start || (*v != ' ' && *v != '\t'))
			continue;
		v = skip_ws(v);
		if (!parse_num(&v, 0, "", val))
			return true;
	}
	return false;
}

/* Node id with the module= prefix, as ibsim's build_nodeid makes it. */
static int make_id(struct parser *p, const char *base, char *out, size_t len)
{
	int n;

	if (strchr(base, '@'))
		return perr(p, "node id \"%s\": ibsim aliases ('@') are not supported",
			    base);
	if (!*base)
		return perr(p, "empty node id");
	if (*p->prefix && !strchr(base, '#'))
		n = snprintf(out, len, "%s#%s", p->prefix, base);
	else
		n = snprintf(out, len, "%s", base);
	if (n < 0 || (size_t)n >= len)
		return perr(p, "node id \"%.40s...\" is too long", base);
	return 0;
}

/* Global lines. */

static int parse_guidbase(struct parser *p, const char *s,
			  enum vf_node_type type)
{
	const char *eq = strchr(s, '=');
	bool relative = false;
	uint64_t v;

	if (!eq) {
		eq = strchr(s, '+');
		relative = true;
	}
	if (!eq)
		return perr(p, "bad GUID assignment: missing '=' or '+'");
	s = skip_ws(eq + 1);
	if (parse_num(&s, 0, "(", &v))
		return perr(p, "bad GUID \"%s\"", eq + 1);
	if (relative) {
		p->next_guid[type] = p->abs_guid[type] + v;
		return 0;
	}
	p->abs_guid[type] = v;
	p->next_guid[type] = v;
	/* ibnetdiscover: switchguid=0x<node guid>(<port guid, hex>) */
	if (type == VF_NODE_SWITCH && *s == '(') {
		s++;
		if (parse_num(&s, 16, ")", &v) || *s != ')')
			return perr(p, "bad switch port GUID in \"%s\"", eq + 1);
		p->sw_portguid = v;
	}
	return 0;
}

/* The value of "key=N"; max 0 means any. */
static int parse_assign(struct parser *p, const char *s, uint64_t max,
			uint64_t min, uint64_t *v)
{
	const char *eq = strchr(s, '=');
	const char *val;

	if (!eq)
		return perr(p, "bad assignment: missing '='");
	val = skip_ws(eq + 1);
	if (parse_num(&val, 0, "#", v) ||
	    (*skip_ws(val) && *skip_ws(val) != '#'))
		return perr(p, "bad number in \"%s\"", s);
	if (max && (*v < min || *v > max))
		return perr(p, "value %llu out of range (%llu..%llu) in \"%s\"",
			    (unsigned long long)*v, (unsigned long long)min,
			    (unsigned long long)max, s);
	return 0;
}

static int parse_module(struct parser *p, char *s)
{
	char *eq = strchr(s, '='), *name;

	if (!eq)
		return perr(p, "bad assignment: missing '='");
	eq++;
	name = parse_quoted(&eq);
	if (!name)
		return perr(p, "module name must be quoted");
	if (strlen(name) >= sizeof(p->prefix))
		return perr(p, "module name \"%s\" is too long", name);
	strcpy(p->prefix, name);
	return 0;
}

static int parse_stream(struct parser *p, FILE *in, const char *name);

/*
 * include "file": relative names are taken from the including file's
 * directory first (ibsim uses its cwd, which is usually the same place),
 * then as given.
 */
static int parse_include(struct parser *p, char *s)
{
	const char *cur = p->files[p->file], *slash = strrchr(cur, '/');
	char *name, *path = NULL;
	uint32_t file = p->file, line = p->line;
	FILE *in = NULL;
	int rc;

	s = skip_ws(s + strlen("include"));
	name = parse_quoted(&s);
	if (!name)
		return perr(p, "include: file name must be quoted");
	if (p->depth >= MAX_INCLUDE_DEPTH)
		return perr(p, "include \"%s\": nested too deeply", name);
	if (name[0] != '/' && slash) {
		size_t len = (size_t)(slash - cur) + strlen(name) + 2;

		path = malloc(len);
		if (!path)
			return nomem(p);
		snprintf(path, len, "%.*s/%s", (int)(slash - cur), cur, name);
		in = fopen(path, "r");
	}
	if (!in) {
		free(path);
		path = strdup(name);
		if (!path)
			return nomem(p);
		in = fopen(path, "r");
	}
	if (!in) {
		rc = perr(p, "include \"%s\": %s", name, strerror(errno));
		free(path);
		return rc;
	}
	p->depth++;
	rc = parse_stream(p, in, path);
	p->depth--;
	fclose(in);
	free(path);
	p->file = file;
	p->line = line;
	p->cur = VF_NONE;
	return rc;
}

/* Lines outside node blocks, in ibsim's order of keyword tests. */
static int parse_global(struct parser *p, char *s, bool *known)
{
	uint64_t v;
	int rc = 0;

	*known = true;
	if (starts(s, "switchguid"))
		return parse_guidbase(p, s, VF_NODE_SWITCH);
	if (starts(s, "hcaguids") || starts(s, "caguid"))
		return parse_guidbase(p, s, VF_NODE_CA);
	if (starts(s, "rtguid"))
		return parse_guidbase(p, s, VF_NODE_ROUTER);
	if (starts(s, "vendid") || starts(s, "devid") || starts(s, "pdebug"))
		return parse_assign(p, s, 0, 0, &v);
	if (starts(s, "sysimgguid")) {
		rc = parse_assign(p, s, 0, 0, &v);
		p->sysimg = v;
	} else if (starts(s, "width")) {
		rc = parse_assign(p, s, 31, 1, &v);
		p->width = v;
	} else if (starts(s, "speed")) {
		rc = parse_assign(p, s, 7, 1, &v);
		p->speed = v;
	} else if (starts(s, "extspeed")) {
		rc = parse_assign(p, s, 7, 0, &v);
		p->ext = v;
	} else if (starts(s, "module")) {
		rc = parse_module(p, s);
	} else if (starts(s, "include")) {
		rc = parse_include(p, s);
	} else if (starts(s, "do")) {
		/* ibsim console commands at load time: no topology here */
	} else {
		*known = false;
	}
	return rc;
}

/* Node headers. */

static int grow_state(struct parser *p)
{
	struct vf_fabric *f = p->f;

	if (f->num_ports > p->ps_cap) {
		uint32_t cap = f->ports_cap;
		void *a = realloc(p->ps, cap * sizeof(*p->ps));

		if (!a)
			return -ENOMEM;
		p->ps = a;
		p->ps_cap = cap;
	}
	if (f->num_nodes > p->ns_cap) {
		uint32_t cap = f->nodes_cap;
		void *a = realloc(p->ns, cap * sizeof(*p->ns));

		if (!a)
			return -ENOMEM;
		p->ns = a;
		p->ns_cap = cap;
	}
	return 0;
}

/*
 * The NodeDesc comment after the node id: '# "text"', or unquoted text up
 * to ibnetdiscover's "enhanced port 0" / "base port 0" / "lid" / "lmc".
 * Returns the description (or NULL) and leaves *rest after it.
 */
static char *parse_desc(struct parser *p, char **rest, int *rc)
{
	static const char *const stops[] = { " enhanced port ",
					     " base port ", " lid ", " lmc " };
	char *s = skip_ws(*rest), *e = NULL;

	*rc = 0;
	if (!*s)
		return NULL;
	if (*s != '#') {
		*rc = perr(p, "unexpected text after node id: \"%.40s\"", s);
		return NULL;
	}
	s = skip_ws(s + 1);
	if (*s == '"') {
		e = strchr(s + 1, '"');
		if (!e) {
			*rc = perr(p, "NodeDesc: missing closing quote");
			return NULL;
		}
		*e = '\0';
		*rest = e + 1;
		return s + 1;
	}
	for (unsigned i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		char *x = strstr(s, stops[i]);

		if (x && (!e || x < e))
			e = x;
	}
	if (e) {
		*e = '\0';
		*rest = e + 1;
	} else {
		*rest = s + strlen(s);
	}
	return s;
}

/* LID and LMC from a comment ("lid 3 lmc 0"), checked for range. */
static int parse_lid_lmc(struct parser *p, const char *text,
			 struct vf_port *port, const char *what)
{
	uint64_t lid = 0, lmc = 0;

	word_num(text, "lmc", &lmc);
	if (!word_num(text, "lid", &lid))
		return 0;
	if (lid > VF_MAX_LID)
		return perr(p, "%s: LID %llu past the unicast range", what,
			    (unsigned long long)lid);
	if (lmc > 7)
		return perr(p, "%s: LMC %llu out of range (0..7)", what,
			    (unsigned long long)lmc);
	port->base_lid = lid;
	port->lmc = lid ? lmc : 0;
	return 0;
}

static int add_node(struct parser *p, enum vf_node_type type,
		    unsigned nports, const char *id, const char *desc)
{
	uint64_t guid = p->next_guid[type];
	struct vf_fabric *f = p->f;
	uint32_t n, other = find_name(p, id);

	if (other != VF_NONE)
		return perr(p, "node \"%s\": duplicate node id (first at %s:%u)",
			    id, p->files[p->ns[other].file], p->ns[other].line);
	other = find_guid(p, guid);
	if (other != VF_NONE)
		return perr(p, "node \"%s\": GUID 0x%016llx is already used by node \"%s\"",
			    id, (unsigned long long)guid, nname(p, other));
	n = vf_fabric_add_node(f, type, guid, p->sysimg, nports, id, desc);
	if (n == VF_NONE || grow_state(p) ||
	    tab_add(p, &p->by_name, n) || tab_add(p, &p->by_guid, n))
		return nomem(p);
	/* ibsim: switches take one GUID, CAs and routers nports + 1 */
	p->next_guid[type] += type == VF_NODE_SWITCH ? 1 : nports + 1;
	p->sysimg = 0;
	p->ns[n].file = p->file;
	p->ns[n].line = p->line;
	for (unsigned i = 0; i <= nports; i++) {
		struct pstate *ps = &p->ps[f->nodes[n].first_port + i];

		ps->decl = VF_NONE;
		ps->wen = p->width;
		ps->sen = p->speed;
		ps->een = p->ext;
		ps->men = 0;
		if (type == VF_NODE_SWITCH && p->sw_portguid)
			vf_node_port(f, &f->nodes[n], i)->guid = p->sw_portguid;
	}
	p->sw_portguid = 0;
	p->cur = n;
	return 0;
}

static int parse_header(struct parser *p, char *s, size_t kwlen,
			enum vf_node_type type)
{
	char id[256], *raw, *desc, *rest;
	const char *num = skip_ws(s + kwlen);
	uint64_t nports;
	int rc;

	if (parse_num(&num, 0, "\"", &nports))
		return perr(p, "bad node header: expected a port count after \"%.*s\"",
			    (int)kwlen, s);
	rest = (char *)num;
	raw = parse_quoted(&rest);
	if (!raw)
		return perr(p, "bad node header: node id must be in double quotes");
	rc = make_id(p, raw, id, sizeof(id));
	if (rc)
		return rc;
	if (nports < 1 || nports > VF_MAX_PORTS)
		return perr(p, "node \"%s\": bad port count %llu (1..%u)", id,
			    (unsigned long long)nports, VF_MAX_PORTS);
	desc = parse_desc(p, &rest, &rc);
	if (rc)
		return rc;
	rc = add_node(p, type, nports, id, desc);
	if (rc || type != VF_NODE_SWITCH)
		return rc;
	return parse_lid_lmc(p, rest, vf_node_port(p->f, &p->f->nodes[p->cur],
						   0), id);
}

/* Port lines. */

/* Enabled masks ibsim derives from an ibnetdiscover speed ("4xQDR"). */
static const struct {
	uint8_t sen, een, men;
} text_speed[] = {
	[VF_SPEED_SDR] = { S_SDR, 0, 0 },
	[VF_SPEED_DDR] = { S_SDR | S_DDR, 0, 0 },
	[VF_SPEED_QDR] = { S_SDR | S_DDR | S_QDR, 0, 0 },
	[VF_SPEED_FDR10] = { S_SDR | S_DDR | S_QDR, 0, M_FDR10 },
	[VF_SPEED_FDR] = { S_SDR | S_DDR | S_QDR, E_FDR, M_FDR10 },
	[VF_SPEED_EDR] = { S_SDR | S_DDR | S_QDR, E_FDR | E_EDR, M_FDR10 },
	[VF_SPEED_HDR] = { S_SDR | S_DDR | S_QDR, E_FDR | E_EDR | E_HDR,
			   M_FDR10 },
	[VF_SPEED_NDR] = { S_SDR | S_DDR | S_QDR,
			   E_FDR | E_EDR | E_HDR | E_NDR, M_FDR10 },
};

/* ... and from its width: lanes -> enabled widths */
static const uint8_t text_width[13] = {
	[1] = W_1X, [2] = W_2X, [4] = W_1X | W_4X, [8] = W_8X,
	[12] = W_1X | W_4X | W_12X,
};

/*
 * The "lid N 4xQDR" that ends ibnetdiscover's port comments, taken after
 * the last quote as ibsim does (regex lid[^"]*$).  Unknown widths or
 * speeds keep the defaults: ibsim only warns about them.
 */
static void link_text_masks(const char *text, struct pstate *ps)
{
	const char *s = text, *q;
	unsigned lid, lanes;
	enum vf_speed sp;
	char speed[10];

	while ((q = strchr(s, '"')))
		s = q + 1;
	s = strstr(s, "lid");
	if (!s || sscanf(s, "lid %u %ux%9s", &lid, &lanes, speed) != 3)
		return;
	if (lanes < sizeof(text_width) && text_width[lanes])
		ps->wen = text_width[lanes];
	sp = vf_speed_parse(speed);
	if (sp == VF_SPEED_UNKNOWN)
		return;
	ps->sen = text_speed[sp].sen;
	ps->een = text_speed[sp].een;
	ps->men = text_speed[sp].men;
}

/* w=, s=, e= options (ibsim's parse_port_opt); other keys are ignored. */
static int parse_port_opts(struct parser *p, char *s, struct pstate *ps,
			   const char *where)
{
	while (*(s = skip_ws(s))) {
		char *eq = strchr(s, '='), *end = s + strcspn(s, " \t");
		const char *v;
		uint64_t val;
		uint8_t *dst;
		unsigned lo = 1, hi;

		if (!eq || eq > end)
			return perr(p, "%s: unexpected text \"%.*s\"", where,
				    (int)(end - s), s);
		v = eq + 1;	/* only now: NULL + 1 is undefined (UBSan) */
		if (eq - s == 1 && *s == 'w') {
			dst = &ps->wen;
			hi = 31;
		} else if (eq - s == 1 && *s == 's') {
			dst = &ps->sen;
			hi = 7;
		} else if (eq - s == 1 && *s == 'e') {
			dst = &ps->een;
			lo = 0;
			hi = 7;
		} else {
			s = end;
			continue;
		}
		if (parse_num(&v, 0, "", &val) || val < lo || val > hi)
			return perr(p, "%s: bad link option \"%.*s\" (%c= takes %u..%u)",
				    where, (int)(end - s), s, *s, lo, hi);
		*dst = val;
		s = end;
	}
	return 0;
}

/* "[N]" and ibnetdiscover's optional "[ext M]" and "(portguid)". */
static int parse_local(struct parser *p, char **sp, const struct vf_node *n,
		       uint64_t *num, uint64_t *guid)
{
	const char *s = *sp + 1;
	const char *id = vf_node_name(p->f, n);

	if (parse_num(&s, 10, "]", num) || *s != ']')
		return perr(p, "node \"%s\": bad port number in \"%.20s\"", id,
			    *sp);
	s++;
	if (*num < 1 || *num > n->num_ports)
		return perr(p, "node \"%s\" port %llu: port number out of range (%s has %u ports)",
			    id, (unsigned long long)*num,
			    vf_is_switch(n) ? "switch" : "node", n->num_ports);
	if (starts(s, "[ext ")) {
		s = strchr(s, ']');
		if (!s)
			return perr(p, "node \"%s\" port %llu: bad [ext] port",
				    id, (unsigned long long)*num);
		s++;
	}
	*guid = 0;
	if (*s == '(') {
		s++;
		if (parse_num(&s, 16, ")", guid) || *s != ')')
			return perr(p, "node \"%s\" port %llu: bad port GUID",
				    id, (unsigned long long)*num);
		s++;
	}
	*sp = (char *)s;
	return 0;
}

/* "remote"[M](guid): the remote id and port (ibsim's default port is 1). */
static int parse_remote(struct parser *p, char **sp, const char *where,
			char *id, size_t idlen, uint64_t *rport)
{
	char *s = *sp, *name = parse_quoted(&s);
	const char *r;
	uint64_t guid;
	int rc;

	if (!name)
		return perr(p, "%s: remote node id must be in double quotes",
			    where);
	rc = make_id(p, name, id, idlen);
	if (rc)
		return rc;
	*rport = 1;
	r = s;
	if (*r == '[') {
		r++;
		if (parse_num(&r, 10, "]", rport) || *r != ']' || !*rport ||
		    *rport > 255)
			return perr(p, "%s: bad remote port number", where);
		r++;
	}
	if (*r == '(') {
		r++;
		if (parse_num(&r, 16, ")", &guid) || *r != ')')
			return perr(p, "%s: bad remote port GUID", where);
		r++;
	}
	*sp = (char *)r;
	return 0;
}

static int add_decl(struct parser *p, uint32_t port, const char *remote,
		    unsigned rport)
{
	struct decl *d;

	if (p->num_decls == p->decls_cap) {
		uint32_t cap = p->decls_cap ? p->decls_cap * 2 : 64;
		void *a = realloc(p->decls, cap * sizeof(*p->decls));

		if (!a)
			return nomem(p);
		p->decls = a;
		p->decls_cap = cap;
	}
	d = &p->decls[p->num_decls];
	d->remote = strdup(remote);
	if (!d->remote)
		return nomem(p);
	d->port = port;
	d->file = p->file;
	d->line = p->line;
	d->rport = rport;
	p->ps[port].decl = p->num_decls++;
	return 0;
}

static int parse_port_line(struct parser *p, char *s)
{
	const struct vf_node *n = &p->f->nodes[p->cur];
	char where[300], rid[256], *comment;
	uint64_t num, guid, rport;
	struct vf_port *port;
	struct pstate *ps;
	uint32_t pi;
	int rc;

	rc = parse_local(p, &s, n, &num, &guid);
	if (rc)
		return rc;
	snprintf(where, sizeof(where), "node \"%s\" port %u",
		 vf_node_name(p->f, n), (unsigned)num);
	pi = n->first_port + num;
	port = &p->f->ports[pi];
	ps = &p->ps[pi];
	if (ps->decl != VF_NONE)
		return perr(p, "%s: port declared twice (first at line %u)",
			    where, p->decls[ps->decl].line);
	rc = parse_remote(p, &s, where, rid, sizeof(rid), &rport);
	if (rc)
		return rc;
	comment = strchr(s, '#');
	if (comment)
		*comment++ = '\0';
	rc = parse_port_opts(p, s, ps, where);
	if (rc)
		return rc;
	if (guid && !vf_is_switch(n))
		port->guid = guid;
	if (comment) {
		/* CA lines start "# lid 2 lmc 0 "remote desc" lid 1 4xQDR" */
		if (!vf_is_switch(n)) {
			char *q = strchr(comment, '"'), save = 0;

			if (q) {
				save = *q;
				*q = '\0';
			}
			rc = parse_lid_lmc(p, comment, port, where);
			if (q)
				*q = save;
			if (rc)
				return rc;
		}
		link_text_masks(comment, ps);
	}
	return add_decl(p, pi, rid, rport);
}

/* One line; s has no line end and no leading blanks. */
static int parse_line(struct parser *p, char *s)
{
	static const struct {
		const char *kw;
		enum vf_node_type type;
	} headers[] = {
		{ "Switch", VF_NODE_SWITCH },
		{ "Hca", VF_NODE_CA },
		{ "Ca", VF_NODE_CA },
		{ "Rt", VF_NODE_ROUTER },
	};
	uint32_t cur = p->cur;
	bool known;
	int rc;

	if (!*s) {
		p->cur = VF_NONE;	/* a blank line ends a node block */
		return 0;
	}
	if (*s == '#')
		return 0;
	if (*s == '[') {
		if (cur == VF_NONE)
			return perr(p, "port line outside a node block");
		return parse_port_line(p, s);
	}
	if (*s == '@')
		return perr(p, "ibsim aliases ('@') are not supported");
	p->cur = VF_NONE;
	for (unsigned i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
		if (starts(s, headers[i].kw))
			return parse_header(p, s, strlen(headers[i].kw),
					    headers[i].type);
	rc = parse_global(p, s, &known);
	if (!known && cur != VF_NONE)
		return perr(p, "node \"%s\": unknown line in node block: \"%.40s\"",
			    nname(p, cur), s);
	/* ibsim ignores unknown lines between node blocks; so do we */
	return rc;
}

static int parse_stream(struct parser *p, FILE *in, const char *name)
{
	char *line = NULL, **files;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	/* no file to blame yet, so not nomem() */
	files = realloc(p->files, (p->num_files + 1) * sizeof(*files));
	if (files)
		p->files = files;
	if (!files || !(files[p->num_files] = strdup(name))) {
		vf_err_set(p->err, "%s: out of memory", name);
		return -ENOMEM;
	}
	p->file = p->num_files++;
	p->line = 0;
	p->cur = VF_NONE;
	while (!rc && (len = getline(&line, &cap, in)) >= 0) {
		p->line++;
		while (len && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
		rc = parse_line(p, skip_ws(line));
	}
	if (!rc && ferror(in))
		rc = err_at(p, p->file, 0, "read error");
	free(line);
	return rc;
}

/* Links. */

static unsigned active_width(unsigned w)
{
	if (w & W_12X)
		return 12;
	if (w & W_8X)
		return 8;
	if (w & W_4X)
		return 4;
	if (w & W_2X)
		return 2;
	return w & W_1X ? 1 : 0;
}

static enum vf_speed active_speed(const struct pstate *a,
				  const struct pstate *b)
{
	unsigned e = a->een & b->een, s = a->sen & b->sen;

	if (e & E_NDR)
		return VF_SPEED_NDR;
	if (e & E_HDR)
		return VF_SPEED_HDR;
	if (e & E_EDR)
		return VF_SPEED_EDR;
	if (e & E_FDR)
		return VF_SPEED_FDR;
	if (a->men & b->men & M_FDR10)
		return VF_SPEED_FDR10;
	if (s & S_QDR)
		return VF_SPEED_QDR;
	if (s & S_DDR)
		return VF_SPEED_DDR;
	return s & S_SDR ? VF_SPEED_SDR : VF_SPEED_UNKNOWN;
}

/* Width and speed as ibsim's link_ports picks them: best common mode. */
static int set_link_mode(struct parser *p, const struct decl *d, uint32_t q)
{
	struct vf_port *a = &p->f->ports[d->port], *b = &p->f->ports[q];
	const struct pstate *pa = &p->ps[d->port], *pb = &p->ps[q];
	unsigned width = active_width(pa->wen & pb->wen);
	enum vf_speed speed = active_speed(pa, pb);

	if (!width || !speed)
		return err_at(p, d->file, d->line,
			      "node \"%s\" port %u: no common link %s with \"%s\" port %u (w=%u/%u s=%u/%u)",
			      nname(p, a->node), a->num,
			      width ? "speed" : "width", nname(p, b->node),
			      b->num, pa->wen, pb->wen, pa->sen, pb->sen);
	a->width = b->width = width;
	a->speed = b->speed = speed;
	return 0;
}

static int link_decl(struct parser *p, const struct decl *d)
{
	struct vf_fabric *f = p->f;
	struct vf_port *a = &f->ports[d->port];
	const char *aname = nname(p, a->node);
	uint32_t r = find_name(p, d->remote), q;
	const struct decl *back;

	if (r == VF_NONE)
		return err_at(p, d->file, d->line,
			      "node \"%s\" port %u: link to undeclared node \"%s\"",
			      aname, a->num, d->remote);
	q = vf_fabric_port(f, r, d->rport);
	if (q == VF_NONE)
		return err_at(p, d->file, d->line,
			      "node \"%s\" port %u: link to \"%s\"[%u], but that node has %u ports",
			      aname, a->num, d->remote, d->rport,
			      f->nodes[r].num_ports);
	if (q == d->port)
		return err_at(p, d->file, d->line,
			      "node \"%s\" port %u: port linked to itself",
			      aname, a->num);
	if (p->ps[q].decl != VF_NONE) {
		back = &p->decls[p->ps[q].decl];
		if (find_name(p, back->remote) != a->node ||
		    back->rport != a->num)
			return err_at(p, d->file, d->line,
				      "node \"%s\" port %u: links to \"%s\"[%u], but %s:%u links that port to \"%s\"[%u]",
				      aname, a->num, d->remote, d->rport,
				      p->files[back->file], back->line,
				      back->remote, back->rport);
	}
	if (a->remote == q)
		return 0;	/* already linked from the other side */
	if (f->ports[q].remote != VF_NONE) {
		const struct vf_port *o = &f->ports[f->ports[q].remote];

		return err_at(p, d->file, d->line,
			      "node \"%s\" port %u: \"%s\" port %u is already linked to \"%s\" port %u",
			      aname, a->num, d->remote, d->rport,
			      nname(p, o->node), o->num);
	}
	if (vf_fabric_link(f, d->port, q))
		return err_at(p, d->file, d->line,
			      "node \"%s\" port %u: cannot link", aname,
			      a->num);
	return set_link_mode(p, d, q);
}

/* Where a port's LID came from: its port line, or a switch's header. */
static void lid_origin(const struct parser *p, uint32_t pi, uint32_t *file,
		       uint32_t *line)
{
	const struct pstate *ps = &p->ps[pi];
	uint32_t n = p->f->ports[pi].node;

	if (ps->decl != VF_NONE && p->f->ports[pi].num) {
		*file = p->decls[ps->decl].file;
		*line = p->decls[ps->decl].line;
	} else {
		*file = p->ns[n].file;
		*line = p->ns[n].line;
	}
}

/* LIDs given by the file must not overlap; say where each came from. */
static int check_lids(struct parser *p)
{
	const struct vf_fabric *f = p->f;
	uint32_t *owner = malloc((VF_MAX_LID + 1) * sizeof(*owner));
	int rc = 0;

	if (!owner)
		return nomem(p);
	memset(owner, 0xff, (VF_MAX_LID + 1) * sizeof(*owner));
	for (uint32_t i = 0; !rc && i < f->num_ports; i++) {
		const struct vf_port *pt = &f->ports[i];
		unsigned end = pt->base_lid + (1u << pt->lmc) - 1;
		uint32_t file, line;

		if (!pt->base_lid)
			continue;
		lid_origin(p, i, &file, &line);
		if (end > VF_MAX_LID) {
			rc = err_at(p, file, line,
				    "node \"%s\" port %u: LIDs %u..%u run past the unicast range",
				    nname(p, pt->node), pt->num, pt->base_lid,
				    end);
			break;
		}
		for (unsigned l = pt->base_lid; l <= end; l++) {
			const struct vf_port *o;

			if (owner[l] == VF_NONE) {
				owner[l] = i;
				continue;
			}
			o = &f->ports[owner[l]];
			rc = err_at(p, file, line,
				    "node \"%s\" port %u: LID %u is already used by node \"%s\" port %u",
				    nname(p, pt->node), pt->num, l,
				    nname(p, o->node), o->num);
			break;
		}
	}
	free(owner);
	return rc;
}

/* LIDs for the ports the file gives none: kept ones first, if any. */
static int give_lids(struct parser *p, unsigned lmc,
		     const struct vf_lid_keeps *keep)
{
	int rc = keep && keep->n ? vf_fabric_keep_lids(p->f, lmc, keep) :
				   vf_fabric_assign_lids(p->f, lmc);

	if (rc)
		return err_at(p, 0, 0, "cannot assign LIDs with LMC %u: %s",
			      lmc, strerror(-rc));
	return 0;
}

static int finish(struct parser *p, unsigned lmc,
		  const struct vf_lid_keeps *keep)
{
	int rc;

	if (!p->f->num_nodes)
		return err_at(p, 0, 0, "no nodes");
	for (uint32_t i = 0; i < p->num_decls; i++) {
		rc = link_decl(p, &p->decls[i]);
		if (rc)
			return rc;
	}
	rc = check_lids(p);
	if (rc)
		return rc;
	rc = give_lids(p, lmc, keep);
	if (rc)
		return rc;
	rc = vf_fabric_finalize(p->f);
	if (rc)
		return err_at(p, 0, 0, "invalid fabric: %s", strerror(-rc));
	return 0;
}

static void parser_free(struct parser *p)
{
	for (uint32_t i = 0; i < p->num_decls; i++)
		free(p->decls[i].remote);
	free(p->decls);
	for (uint32_t i = 0; i < p->num_files; i++)
		free(p->files[i]);
	free(p->files);
	free(p->ps);
	free(p->ns);
	free(p->by_name.slot);
	free(p->by_guid.slot);
}

struct vf_fabric *vf_netfile_read(FILE *in, const char *name, unsigned lmc,
				  struct vf_err *err)
{
	return vf_netfile_read_keep(in, name, lmc, NULL, err);
}

struct vf_fabric *vf_netfile_read_keep(FILE *in, const char *name,
				       unsigned lmc,
				       const struct vf_lid_keeps *keep,
				       struct vf_err *err)
{
	struct parser p = {
		.err = err,
		.cur = VF_NONE,
		/* ibsim 0.10's bases; routers start at 0 there, too */
		.abs_guid = { 0, 0x100000, 0x200000, 0 },
		.next_guid = { 0, 0x100000, 0x200000, 0 },
		.width = DEFAULT_WIDTH,
		.speed = DEFAULT_SPEED,
	};
	int rc;

	if (!name)
		name = "(stream)";
	p.f = vf_fabric_create();
	if (!p.f) {
		vf_err_set(err, "%s: out of memory", name);
		return NULL;
	}
	rc = parse_stream(&p, in, name);
	if (!rc)
		rc = finish(&p, lmc, keep);
	parser_free(&p);
	if (rc) {
		vf_fabric_destroy(p.f);
		return NULL;
	}
	return p.f;
}

struct vf_fabric *vf_netfile_load(const char *path, unsigned lmc,
				  struct vf_err *err)
{
	return vf_netfile_load_keep(path, lmc, NULL, err);
}

struct vf_fabric *vf_netfile_load_keep(const char *path, unsigned lmc,
				       const struct vf_lid_keeps *keep,
				       struct vf_err *err)
{
	struct vf_fabric *f;
	FILE *in = fopen(path, "r");

	if (!in) {
		vf_err_set(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	f = vf_netfile_read_keep(in, path, lmc, keep, err);
	fclose(in);
	return f;
}

/* Writing. */

static const char *const type_kw[] = {
	[VF_NODE_CA] = "Ca",
	[VF_NODE_SWITCH] = "Switch",
	[VF_NODE_ROUTER] = "Rt",
};

static const char *const type_guid_kw[] = {
	[VF_NODE_CA] = "caguid",
	[VF_NODE_SWITCH] = "switchguid",
	[VF_NODE_ROUTER] = "rtguid",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Node ids are reused when they make a valid ibsim file: unique, not
 * empty, without quotes or ibsim's reserved '#' and '@'.  Otherwise every
 * node is named by GUID as ibnetdiscover does ("S-<guid>").
 */
static bool names_usable(const struct vf_fabric *f)
{
	const char **v = malloc((f->num_nodes + 1) * sizeof(*v));
	bool ok = v != NULL;

	for (uint32_t n = 0; ok && n < f->num_nodes; n++) {
		v[n] = vf_node_name(f, &f->nodes[n]);
		if (!*v[n] || strpbrk(v[n], "\"#@\n"))
			ok = false;
	}
	if (ok) {
		qsort(v, f->num_nodes, sizeof(*v), cmp_str);
		for (uint32_t n = 1; ok && n < f->num_nodes; n++)
			ok = strcmp(v[n - 1], v[n]) != 0;
	}
	free(v);
	return ok;
}

static const char *write_id(const struct vf_fabric *f, uint32_t n,
			    bool by_name, char *buf, size_t len)
{
	const struct vf_node *node = &f->nodes[n];

	if (by_name)
		return vf_node_name(f, node);
	snprintf(buf, len, "%c-%016llx",
		 vf_is_switch(node) ? 'S' : node->type == VF_NODE_CA ? 'H' :
		 'R', (unsigned long long)node->guid);
	return buf;
}

/* The NodeDesc as a quoted comment: quotes and line ends cannot appear. */
static void write_desc(FILE *out, const char *desc)
{
	fputs("\t# \"", out);
	for (; *desc; desc++)
		fputc(*desc == '"' ? '\'' : *desc == '\n' ? ' ' : *desc, out);
	fputc('"', out);
}

static unsigned width_code(unsigned lanes)
{
	static const uint8_t code[13] = {
		[1] = W_1X, [2] = W_2X, [4] = W_4X, [8] = W_8X, [12] = W_12X,
	};

	return lanes < sizeof(code) ? code[lanes] : 0;
}

/*
 * Link options.  ibsim 0.10 has no option for FDR10 (and knows no NDR), so
 * those links also get ibnetdiscover's "lid 0 4xFDR10" comment, which
 * ibsim reads too and which overrides w=/s= in both parsers.
 */
static void write_link_opts(FILE *out, const struct vf_port *pt)
{
	static const uint8_t s_code[] = {
		[VF_SPEED_SDR] = S_SDR, [VF_SPEED_DDR] = S_DDR,
		[VF_SPEED_QDR] = S_QDR, [VF_SPEED_FDR10] = S_QDR,
		[VF_SPEED_FDR] = S_QDR, [VF_SPEED_EDR] = S_QDR,
		[VF_SPEED_HDR] = S_QDR, [VF_SPEED_NDR] = S_QDR,
	};
	static const uint8_t e_code[] = {
		[VF_SPEED_FDR] = E_FDR, [VF_SPEED_EDR] = E_EDR,
		[VF_SPEED_HDR] = E_HDR, [VF_SPEED_NDR] = E_HDR,
	};
	unsigned w = width_code(pt->width);

	if (w)
		fprintf(out, "\tw=%u", w);
	if (pt->speed > VF_SPEED_NDR || pt->speed == VF_SPEED_UNKNOWN)
		return;
	fprintf(out, " s=%u", s_code[pt->speed]);
	if (e_code[pt->speed])
		fprintf(out, " e=%u", e_code[pt->speed]);
	if ((pt->speed == VF_SPEED_FDR10 || pt->speed == VF_SPEED_NDR) && w)
		fprintf(out, "\t# lid 0 %ux%s", pt->width,
			vf_speed_name(pt->speed));
}

static void write_node(FILE *out, const struct vf_fabric *f, uint32_t n,
		       bool by_name)
{
	const struct vf_node *node = &f->nodes[n];
	char buf[24], rbuf[24];

	fprintf(out, "sysimgguid=0x%llx\n%s=0x%llx\n",
		(unsigned long long)node->sysimg_guid, type_guid_kw[node->type],
		(unsigned long long)node->guid);
	fprintf(out, "%s\t%u \"%s\"", type_kw[node->type], node->num_ports,
		write_id(f, n, by_name, buf, sizeof(buf)));
	write_desc(out, vf_node_desc(f, node));
	fputc('\n', out);
	for (unsigned i = 1; i <= node->num_ports; i++) {
		const struct vf_port *pt = vf_node_port(f, node, i), *r;

		if (pt->remote == VF_NONE)
			continue;
		r = &f->ports[pt->remote];
		fprintf(out, "[%u]\t\"%s\"[%u]", i,
			write_id(f, r->node, by_name, rbuf, sizeof(rbuf)),
			r->num);
		write_link_opts(out, pt);
		fputc('\n', out);
	}
	fputc('\n', out);
}

int vf_netfile_write(FILE *out, const struct vf_fabric *f)
{
	bool by_name = names_usable(f);

	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].type < VF_NODE_CA ||
		    f->nodes[n].type > VF_NODE_ROUTER)
			return -EINVAL;
	fprintf(out, "# ibsim net file written by opensm-vfabric: %u nodes, %u switches\n\n",
		f->num_nodes, f->num_switches);
	for (uint32_t n = 0; n < f->num_nodes; n++)
		write_node(out, f, n, by_name);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
