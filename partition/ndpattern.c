// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * NodeDesc patterns compile to a list of tokens (literal, '*', '?',
 * [lo-hi]) and are matched by walking the NodeDesc once while keeping the
 * set of tokens that can come next, like an NFA: no backtracking, so no
 * pattern can make matching exponential, yet every way of splitting the
 * NodeDesc between the tokens is tried.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/ndpattern.h"

#define NDPAT_MAX_LEN 64	/* characters in a pattern */
#define NDPAT_MAX_RANGES 10	/* [lo-hi] ranges in a pattern */
#define NDPAT_MAX_DIGITS 5	/* digits in one number */
#define NDPAT_MAX_PORT 255
/* NodeDesc positions a range can reach ahead, plus the current one */
#define NDPAT_WINDOW (NDPAT_MAX_DIGITS + 1)

enum ndtok_kind {
	NDT_LIT,
	NDT_STAR,
	NDT_OPT,
	NDT_RANGE,
};

struct ndtok {
	enum ndtok_kind kind;
	char c;			/* NDT_LIT */
	bool padded;		/* NDT_RANGE: bounds have leading zeros */
	unsigned width;		/* NDT_RANGE: digits of hi */
	unsigned lo, hi;	/* NDT_RANGE */
};

struct vf_ndpat {
	unsigned ntok;
	unsigned nranges;
	bool has_ports;
	unsigned port_lo, port_hi;
	/* one token per pattern character at most */
	struct ndtok tok[NDPAT_MAX_LEN];
	char text[NDPAT_MAX_LEN + 1];
};

/* A [lo-hi] as written: values, digit counts, leading zeros. */
struct ndbounds {
	unsigned lo, hi;
	unsigned lo_digits, hi_digits;
	bool padded;
};

struct ndparse {
	const char *s;		/* the pattern */
	size_t pos;		/* index of the next character */
	char *err;
	size_t errlen;
	struct vf_ndpat *p;
};

/* The characters a literal, '*' and '?' stand for (ASCII, no locale). */
static bool in_class(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == ',' || c == '=' ||
	       c == '_' || c == '.' || c == ' ';
}

/* ASCII decimal digit, whatever the locale. */
static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Put "column idx+1: <fmt>" in the caller's buffer, truncated as needed;
 * returns -EINVAL so that parsers can "return fail(...)".
 */
static int __attribute__((format(printf, 3, 4)))
fail(const struct ndparse *ps, size_t idx, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!ps->err || !ps->errlen)
		return -EINVAL;
	n = snprintf(ps->err, ps->errlen, "column %zu: ", idx + 1);
	if (n >= 0 && (size_t)n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* The character at idx as a message shows it; buf holds 16 bytes. */
static const char *show(const struct ndparse *ps, size_t idx, char *buf)
{
	unsigned char c = (unsigned char)ps->s[idx];

	if (!c)
		return "the end of the pattern";
	if (c >= ' ' && c < 127)
		snprintf(buf, 16, "'%c'", c);
	else
		snprintf(buf, 16, "byte 0x%02x", c);
	return buf;
}

/*
 * Read the decimal number at ps->pos, at most NDPAT_MAX_DIGITS long; what
 * names it in messages.  Sets *val, *digits and *padded (leading zero).
 */
static int parse_num(struct ndparse *ps, const char *what, unsigned *val,
		     unsigned *digits, bool *padded)
{
	size_t start = ps->pos;
	unsigned v = 0;
	char buf[16];

	for (; is_digit(ps->s[ps->pos]); ps->pos++) {
		if (ps->pos - start == NDPAT_MAX_DIGITS)
			return fail(ps, start, "%s has more than %d digits",
				    what, NDPAT_MAX_DIGITS);
		v = v * 10 + (unsigned)(ps->s[ps->pos] - '0');
	}
	if (ps->pos == start)
		return fail(ps, start, "expected the %s, found %s", what,
			    show(ps, start, buf));
	*val = v;
	*digits = (unsigned)(ps->pos - start);
	*padded = *digits > 1 && ps->s[start] == '0';
	return 0;
}

/* Expect the character c at ps->pos and step over it. */
static int expect(struct ndparse *ps, char c, const char *why)
{
	char buf[16];

	if (ps->s[ps->pos] != c)
		return fail(ps, ps->pos, "expected '%c' %s, found %s", c, why,
			    show(ps, ps->pos, buf));
	ps->pos++;
	return 0;
}

/*
 * Read "[lo-hi]" at ps->pos (on the '[') into b; what is "range" or "port
 * range" and names the bounds in messages.  Checks only the syntax.
 */
static int parse_bounds(struct ndparse *ps, const char *what,
			struct ndbounds *b)
{
	size_t open = ps->pos;
	char lo[32], hi[32], why[48];
	bool hi_pad;
	int rc;

	snprintf(lo, sizeof(lo), "low end of the %s", what);
	snprintf(hi, sizeof(hi), "high end of the %s", what);
	snprintf(why, sizeof(why), "to close the %s opened at column %zu",
		 what, open + 1);
	ps->pos++;
	rc = parse_num(ps, lo, &b->lo, &b->lo_digits, &b->padded);
	if (rc)
		return rc;
	rc = expect(ps, '-', "between the ends of the range");
	if (rc)
		return rc;
	rc = parse_num(ps, hi, &b->hi, &b->hi_digits, &hi_pad);
	if (rc)
		return rc;
	b->padded = b->padded || hi_pad;
	return expect(ps, ']', why);
}

/* Append a token; the pattern length bounds their number. */
static struct ndtok *add_tok(struct vf_ndpat *p, enum ndtok_kind kind)
{
	struct ndtok *t = &p->tok[p->ntok++];

	t->kind = kind;
	return t;
}

/* '*' and '?' tokens: those that may match nothing. */
static bool is_wild(const struct ndtok *t)
{
	return t->kind == NDT_STAR || t->kind == NDT_OPT;
}

/*
 * '*' or '?' at ps->pos.  As the FM's convertWildcardedString: a run of
 * wildcards holding a '*' is one '*'; each '?' of a run without one is a
 * '?' of its own ("cn??" matches cn12).
 */
static void parse_wild(struct ndparse *ps)
{
	struct vf_ndpat *p = ps->p;
	bool star = ps->s[ps->pos] == '*';

	if (p->ntok && p->tok[p->ntok - 1].kind == NDT_STAR) {
		/* absorbed */
	} else if (star) {
		while (p->ntok && p->tok[p->ntok - 1].kind == NDT_OPT)
			p->ntok--;
		add_tok(p, NDT_STAR);
	} else {
		add_tok(p, NDT_OPT);
	}
	ps->pos++;
}

/* A numeric range "[lo-hi]" at ps->pos, with all its limits. */
static int parse_range(struct ndparse *ps)
{
	struct vf_ndpat *p = ps->p;
	size_t open = ps->pos;
	struct ndbounds b;
	struct ndtok *t;
	int rc;

	if (p->ntok && is_wild(&p->tok[p->ntok - 1]))
		return fail(ps, open, "'[' may not follow the wildcard '%c'",
			    ps->s[open - 1]);
	if (p->nranges == NDPAT_MAX_RANGES)
		return fail(ps, open, "more than %d [lo-hi] ranges",
			    NDPAT_MAX_RANGES);
	rc = parse_bounds(ps, "range", &b);
	if (rc)
		return rc;
	if (b.lo > b.hi)
		return fail(ps, open + 1,
			    "range low end %u is above its high end %u",
			    b.lo, b.hi);
	if (b.lo_digits > b.hi_digits)
		return fail(ps, open + 1,
			    "range low end has more digits than its high end");
	t = add_tok(p, NDT_RANGE);
	t->padded = b.padded;
	t->width = b.hi_digits;
	t->lo = b.lo;
	t->hi = b.hi;
	p->nranges++;
	return 0;
}

/* The trailing port range ":[lo-hi]" at ps->pos (on the ':'). */
static int parse_ports(struct ndparse *ps)
{
	struct vf_ndpat *p = ps->p;
	size_t colon = ps->pos;
	struct ndbounds b;
	char buf[16];
	int rc;

	if (ps->s[colon + 1] != '[')
		return fail(ps, colon,
			    "':' may only start a final port range :[lo-hi]");
	if (!p->ntok)
		return fail(ps, colon,
			    "a port range needs a NodeDesc pattern first");
	ps->pos++;
	rc = parse_bounds(ps, "port range", &b);
	if (rc)
		return rc;
	if (b.lo > NDPAT_MAX_PORT)
		return fail(ps, colon + 2, "port %u is above %d", b.lo,
			    NDPAT_MAX_PORT);
	if (b.hi > NDPAT_MAX_PORT)
		return fail(ps, colon + 3 + b.lo_digits, "port %u is above %d",
			    b.hi, NDPAT_MAX_PORT);
	if (b.lo > b.hi)
		return fail(ps, colon + 2, "low port %u is above high port %u",
			    b.lo, b.hi);
	if (ps->s[ps->pos])
		return fail(ps, ps->pos,
			    "nothing may follow the port range, found %s",
			    show(ps, ps->pos, buf));
	p->has_ports = true;
	p->port_lo = b.lo;
	p->port_hi = b.hi;
	return 0;
}

/* Tokenise the whole pattern into ps->p. */
static int parse(struct ndparse *ps)
{
	char buf[16];
	char c;
	int rc = 0;

	while (!rc && (c = ps->s[ps->pos])) {
		if (c == '*' || c == '?') {
			parse_wild(ps);
		} else if (c == '[') {
			rc = parse_range(ps);
		} else if (c == ':') {
			return parse_ports(ps);
		} else if (in_class(c)) {
			add_tok(ps->p, NDT_LIT)->c = c;
			ps->pos++;
		} else {
			return fail(ps, ps->pos,
				    "%s is not allowed in a NodeDesc pattern",
				    show(ps, ps->pos, buf));
		}
	}
	return rc;
}

int vf_ndpat_compile(const char *text, struct vf_ndpat **out, char *err,
		     size_t errlen)
{
	struct ndparse ps = { .s = text, .err = err, .errlen = errlen };
	size_t len;
	int rc;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!text || !text[0])
		return fail(&ps, 0, "the pattern is empty");
	len = strnlen(text, NDPAT_MAX_LEN + 1);
	if (len > NDPAT_MAX_LEN)
		return fail(&ps, NDPAT_MAX_LEN,
			    "the pattern is longer than %d characters",
			    NDPAT_MAX_LEN);
	ps.p = calloc(1, sizeof(*ps.p));
	if (!ps.p) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(ps.p->text, text, len + 1);
	rc = parse(&ps);
	if (rc) {
		free(ps.p);
		return rc;
	}
	*out = ps.p;
	return 0;
}

/*
 * Range t, entered at desc[j]: every digit run desc[j..j+l) it accepts
 * makes token next live at position j+l (a later row of the window).
 * *reach is the furthest position any token is live at.
 */
static void step_range(const struct ndtok *t, const char *desc, size_t j,
		       bool live[][NDPAT_MAX_LEN + 1], unsigned next,
		       size_t *reach)
{
	unsigned v = 0;

	for (unsigned l = 1; l <= t->width && is_digit(desc[j + l - 1]); l++) {
		v = v * 10 + (unsigned)(desc[j + l - 1] - '0');
		if (!t->padded && l > 1 && desc[j] == '0')
			return;
		if (t->padded && l < t->width)
			continue;
		if (v >= t->lo && v <= t->hi) {
			live[(j + l) % NDPAT_WINDOW][next] = true;
			if (j + l > *reach)
				*reach = j + l;
		}
	}
}

/* Make token i live at position j + 1. */
static void advance(bool *next, unsigned i, size_t j, size_t *reach)
{
	next[i] = true;
	if (j + 1 > *reach)
		*reach = j + 1;
}

/* Consume desc[j]: move the live tokens of row j on to later rows. */
static void step(const struct vf_ndpat *p, const char *desc, size_t j,
		 bool live[][NDPAT_MAX_LEN + 1], size_t *reach)
{
	const bool *row = live[j % NDPAT_WINDOW];
	bool *next = live[(j + 1) % NDPAT_WINDOW];
	char c = desc[j];

	for (unsigned i = 0; i < p->ntok; i++) {
		const struct ndtok *t = &p->tok[i];

		if (!row[i])
			continue;
		switch (t->kind) {
		case NDT_LIT:
			if (c == t->c)
				advance(next, i + 1, j, reach);
			break;
		case NDT_STAR:
			if (in_class(c))
				advance(next, i, j, reach);
			break;
		case NDT_OPT:
			if (in_class(c))
				advance(next, i + 1, j, reach);
			break;
		case NDT_RANGE:
			step_range(t, desc, j, live, i + 1, reach);
			break;
		}
	}
}

/*
 * Row live[j % NDPAT_WINDOW][i] says tokens 0..i-1 can match desc[0..j);
 * state ntok means the whole pattern has.  Wildcards may match nothing,
 * so a live wildcard makes the next token live at the same position.
 * Once no token is live at any later position the answer is no: most
 * NodeDescs fail a pattern within a few characters.
 */
bool vf_ndpat_match(const struct vf_ndpat *p, const char *desc)
{
	bool live[NDPAT_WINDOW][NDPAT_MAX_LEN + 1];
	size_t reach = 0;
	bool *row;

	if (!p || !desc)
		return false;
	memset(live, 0, sizeof(live));
	live[0][0] = true;
	for (size_t j = 0;; j++) {
		row = live[j % NDPAT_WINDOW];
		for (unsigned i = 0; i < p->ntok; i++)
			row[i + 1] |= row[i] && is_wild(&p->tok[i]);
		if (!desc[j])
			return row[p->ntok];
		step(p, desc, j, live, &reach);
		memset(row, 0, sizeof(live[0]));
		if (reach <= j)
			return false;
	}
}

bool vf_ndpat_ports(const struct vf_ndpat *p, unsigned *lo, unsigned *hi)
{
	if (!p->has_ports)
		return false;
	*lo = p->port_lo;
	*hi = p->port_hi;
	return true;
}

const char *vf_ndpat_text(const struct vf_ndpat *p)
{
	return p->text;
}

void vf_ndpat_free(struct vf_ndpat *p)
{
	free(p);
}
