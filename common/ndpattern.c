// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * NodeDesc patterns compile to a list of tokens (literal, '*', '?',
 * [lo-hi]).  The FM matches a regular expression and range-checks the
 * digits its captures hold afterwards, so the split between tokens is
 * not "any split that passes the ranges" but the one POSIX's leftmost-
 * longest rule picks, range checks ignored: the leftmost start, the
 * longest match, then each token from the left as long as it can be.
 * A table of which token suffixes can match which NodeDesc suffixes
 * (dynamic programming, no backtracking) finds that split directly.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ndpattern.h"

#define NDPAT_MAX_LEN 63	/* characters the FM keeps of a pattern */
#define NDPAT_MAX_TEXT 64	/* ... and the most its parser takes */
#define NDPAT_MAX_DIGITS 5	/* digits of a bound after its zeros */
#define NDPAT_MAX_GROUP 9	/* the FM checks capture groups 1..9 */
#define NDPAT_MAX_REGEX 1499	/* the FM's expression buffer, less NUL */
#define NDPAT_RE_WILD 30	/* length of the FM's '*' and '?' groups */
#define NDPAT_RE_RANGE 8	/* ... and of its "([0-9]+)" */

enum ndtok_kind {
	NDT_LIT,
	NDT_STAR,
	NDT_OPT,
	NDT_RANGE,
};

struct ndtok {
	enum ndtok_kind kind;
	char c;			/* NDT_LIT */
	bool lo_padded;		/* NDT_RANGE: lo written with a leading 0 */
	unsigned lo_width;	/* NDT_RANGE: characters lo is written in */
	unsigned lo, hi;	/* NDT_RANGE */
};

struct vf_ndpat {
	unsigned ntok;
	bool anchor_start, anchor_end;
	bool has_ports;
	unsigned port_lo, port_hi;
	/* one token per pattern character at most */
	struct ndtok tok[NDPAT_MAX_LEN];
	char text[NDPAT_MAX_TEXT + 1];
};

/* A bound as written: value, significant digits, leading zeros. */
struct ndbound {
	unsigned val, digits, zeros;
};

struct ndparse {
	const char *s;		/* the pattern */
	size_t pos;		/* index of the next character */
	char *err;
	size_t errlen;
	struct vf_ndpat *p;
	unsigned groups;	/* capture groups of the FM's expression */
	size_t relen;		/* length of the FM's expression */
};

/* The characters a literal stands for (ASCII, no locale). */
static bool is_lit(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == ',' || c == '=' ||
	       c == '_' || c == '.' || c == ' ';
}

/* What '*' and '?' match: the FM's class holds [:space:], not only ' '. */
static bool is_wild(char c)
{
	return is_lit(c) || c == '\t' || c == '\n' || c == '\v' ||
	       c == '\f' || c == '\r';
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
 * A bound at ps->pos as the FM reads it: leading zeros apart, then at
 * most NDPAT_MAX_DIGITS digits; "0" alone is one digit, "00" nothing.
 */
static int parse_bound(struct ndparse *ps, const char *what,
		       struct ndbound *b)
{
	size_t start = ps->pos;
	char buf[16];

	*b = (struct ndbound){ 0 };
	for (; is_digit(ps->s[ps->pos]); ps->pos++) {
		if (ps->s[ps->pos] == '0' && !b->digits) {
			b->zeros++;
			continue;
		}
		if (++b->digits > NDPAT_MAX_DIGITS)
			return fail(ps, start, "%s has more than %d digits",
				    what, NDPAT_MAX_DIGITS);
		b->val = b->val * 10 + (unsigned)(ps->s[ps->pos] - '0');
	}
	if (!b->digits && b->zeros == 1)
		*b = (struct ndbound){ .val = 0, .digits = 1, .zeros = 0 };
	if (!b->digits && b->zeros)
		return fail(ps, start, "%s of zeros only must be written 0",
			    what);
	if (!b->digits)
		return fail(ps, start, "expected the %s, found %s", what,
			    show(ps, start, buf));
	return 0;
}

/*
 * "[lo-hi]" at ps->pos (on the '['), with the FM's rules on the bounds;
 * what is "range" or "port range".
 */
static int parse_bounds(struct ndparse *ps, const char *what,
			struct ndbound *lo, struct ndbound *hi)
{
	size_t open = ps->pos;
	char lw[32], hw[32], why[48];
	int rc;

	snprintf(lw, sizeof(lw), "low end of the %s", what);
	snprintf(hw, sizeof(hw), "high end of the %s", what);
	snprintf(why, sizeof(why), "to close the %s opened at column %zu",
		 what, open + 1);
	ps->pos++;
	rc = parse_bound(ps, lw, lo);
	if (!rc)
		rc = expect(ps, '-', "between the ends of the range");
	if (!rc)
		rc = parse_bound(ps, hw, hi);
	if (!rc)
		rc = expect(ps, ']', why);
	if (rc)
		return rc;
	if (lo->digits > hi->digits)
		return fail(ps, open + 1,
			    "%s low end has more digits than its high end",
			    what);
	if (lo->digits == hi->digits && lo->zeros != hi->zeros)
		return fail(ps, open + 1,
			    "%s ends of as many digits need as many leading zeros",
			    what);
	if (lo->val > hi->val)
		return fail(ps, open + 1,
			    "%s low end %u is above its high end %u", what,
			    lo->val, hi->val);
	return 0;
}

/* Append a token; the pattern length bounds their number. */
static struct ndtok *add_tok(struct vf_ndpat *p, enum ndtok_kind kind)
{
	struct ndtok *t = &p->tok[p->ntok++];

	t->kind = kind;
	return t;
}

/* A wildcard at ps->pos, may it be followed by what follows its run? */
static int wild_run_end(struct ndparse *ps, size_t *end)
{
	size_t k = ps->pos;

	while (ps->s[k] == '*' || ps->s[k] == '?')
		k++;
	if (ps->s[k] == '[')
		return fail(ps, k, "'[' may not follow the wildcard '%c'",
			    ps->s[k - 1]);
	*end = k;
	return 0;
}

/*
 * '*' or '?' at ps->pos.  A run holding a '*' is one '*'; otherwise each
 * '?' of the run is its own "zero or one" (the FM collapses only runs
 * that reach a '*').
 */
static int parse_wild(struct ndparse *ps)
{
	size_t end = 0;
	bool star;
	int rc = wild_run_end(ps, &end);

	if (rc)
		return rc;
	star = memchr(ps->s + ps->pos, '*', end - ps->pos) != NULL;
	for (; ps->pos < end; ps->pos = star ? end : ps->pos + 1) {
		add_tok(ps->p, star ? NDT_STAR : NDT_OPT);
		ps->groups += 2;
		ps->relen += NDPAT_RE_WILD;
	}
	return 0;
}

/* A numeric range "[lo-hi]" at ps->pos, with all its limits. */
static int parse_range(struct ndparse *ps)
{
	struct ndbound lo, hi;
	size_t open = ps->pos;
	struct ndtok *t;
	int rc;

	rc = parse_bounds(ps, "range", &lo, &hi);
	if (rc)
		return rc;
	if (++ps->groups > NDPAT_MAX_GROUP)
		return fail(ps, open,
			    "this range would be capture group %u of the FM's expression, which checks only %d",
			    ps->groups, NDPAT_MAX_GROUP);
	if (open == 0 && !ps->s[ps->pos])
		return fail(ps, open,
			    "a pattern may not be a range alone (the FM refuses it)");
	t = add_tok(ps->p, NDT_RANGE);
	t->lo = lo.val;
	t->hi = hi.val;
	t->lo_padded = lo.zeros > 0;
	t->lo_width = lo.zeros + lo.digits;
	ps->relen += NDPAT_RE_RANGE;
	return 0;
}

/* The trailing port range ":[lo-hi]" at ps->pos (on the ':'). */
static int parse_ports(struct ndparse *ps)
{
	struct vf_ndpat *p = ps->p;
	size_t colon = ps->pos;
	struct ndbound lo, hi;
	char buf[16];
	int rc;

	if (ps->s[colon + 1] != '[')
		return fail(ps, colon,
			    "':' may only start a final port range :[lo-hi]");
	ps->pos++;
	rc = parse_bounds(ps, "port range", &lo, &hi);
	if (rc)
		return rc;
	if (ps->s[ps->pos])
		return fail(ps, ps->pos,
			    "nothing may follow the port range, found %s",
			    show(ps, ps->pos, buf));
	p->has_ports = true;
	p->port_lo = lo.val;
	p->port_hi = hi.val;
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
			rc = parse_wild(ps);
		} else if (c == '[') {
			rc = parse_range(ps);
		} else if (c == ':') {
			return parse_ports(ps);
		} else if (is_lit(c)) {
			add_tok(ps->p, NDT_LIT)->c = c;
			ps->relen += c == '.' ? 2 : 1;	/* "\." */
			ps->pos++;
		} else {
			return fail(ps, ps->pos,
				    "%s is not allowed in a NodeDesc pattern",
				    show(ps, ps->pos, buf));
		}
	}
	return rc;
}

/* The FM's anchors: '^' unless it starts with '*' or is only '?'s. */
static void set_anchors(struct vf_ndpat *p, const char *s, size_t len)
{
	p->anchor_start = s[0] != '*' && strspn(s, "?") != len;
	p->anchor_end = s[len - 1] != '*';
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
	len = strnlen(text, NDPAT_MAX_TEXT + 1);
	if (len > NDPAT_MAX_LEN)
		return fail(&ps, NDPAT_MAX_LEN,
			    "the pattern is longer than %d characters (the FM keeps only %d)",
			    NDPAT_MAX_LEN, NDPAT_MAX_LEN);
	ps.p = calloc(1, sizeof(*ps.p));
	if (!ps.p) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(ps.p->text, text, len + 1);
	set_anchors(ps.p, text, len);
	rc = parse(&ps);
	ps.relen += ps.p->anchor_start + ps.p->anchor_end;
	if (!rc && ps.relen > NDPAT_MAX_REGEX)
		rc = fail(&ps, 0,
			  "the FM's expression for this pattern would be %zu characters, over its %d",
			  ps.relen, NDPAT_MAX_REGEX);
	if (rc) {
		free(ps.p);
		return rc;
	}
	*out = ps.p;
	return 0;
}

/*
 * The FM's check of the digits a range captured (run, len characters):
 * when neither lo nor the run is written with a leading zero, by value;
 * otherwise the run must also be exactly as wide as lo is written.  A
 * run of more than NDPAT_MAX_DIGITS significant digits is out of any
 * range (the FM's own buffer would overflow on it).
 */
static bool range_ok(const struct ndtok *t, const char *run, size_t len)
{
	size_t zeros = 0;
	unsigned v = 0;

	while (zeros < len && run[zeros] == '0')
		zeros++;
	if (len - zeros > NDPAT_MAX_DIGITS)
		return false;
	for (size_t k = zeros; k < len; k++)
		v = v * 10 + (unsigned)(run[k] - '0');
	if ((t->lo_padded || zeros) && len != t->lo_width)
		return false;
	return v >= t->lo && v <= t->hi;
}

/* The match table: can[i * (L + 1) + j], tokens i.. match desc[j..e). */
struct ndtable {
	bool *can;
	size_t stride;
};

static bool can(const struct ndtable *m, unsigned i, size_t j)
{
	return m->can[i * m->stride + j];
}

/* Can tokens i.. match d[j..e), given the rows for tokens i+1.. ? */
static bool cell(const struct vf_ndpat *p, const char *d, size_t e,
		 const struct ndtable *m, unsigned i, size_t j)
{
	const struct ndtok *t = &p->tok[i];
	bool more = j < e && is_wild(d[j]);

	switch (t->kind) {
	case NDT_LIT:
		return j < e && d[j] == t->c && can(m, i + 1, j + 1);
	case NDT_STAR:
		return can(m, i + 1, j) || (more && can(m, i, j + 1));
	case NDT_OPT:
		return can(m, i + 1, j) || (more && can(m, i + 1, j + 1));
	case NDT_RANGE:
		for (size_t k = j; k < e && is_digit(d[k]); k++)
			if (can(m, i + 1, k + 1))
				return true;
		return false;
	}
	return false;
}

/* Fill the table for the NodeDesc desc[0..e), the match ending at e. */
static void fill(const struct vf_ndpat *p, const char *d, size_t e,
		 struct ndtable *m)
{
	for (size_t j = 0; j <= e; j++)
		m->can[p->ntok * m->stride + j] = j == e;
	for (unsigned i = p->ntok; i-- > 0;)
		for (size_t j = e + 1; j-- > 0;)
			m->can[i * m->stride + j] = cell(p, d, e, m, i, j);
}

/*
 * From start s (m says a match exists), take each token as long as the
 * rest can still match, as POSIX's rule for subexpressions does, then
 * check the ranges on what they took.
 */
static bool split_and_check(const struct vf_ndpat *p, const char *d,
			    size_t s, size_t e, const struct ndtable *m)
{
	size_t j = s, k;

	for (unsigned i = 0; i < p->ntok; i++) {
		const struct ndtok *t = &p->tok[i];

		switch (t->kind) {
		case NDT_LIT:
			j++;
			break;
		case NDT_STAR:
			for (k = j; k < e && is_wild(d[k]); k++)
				;
			while (!can(m, i + 1, k))
				k--;
			j = k;
			break;
		case NDT_OPT:
			k = j < e && is_wild(d[j]) ? j + 1 : j;
			while (!can(m, i + 1, k))
				k--;
			j = k;
			break;
		case NDT_RANGE:
			for (k = j; k < e && is_digit(d[k]); k++)
				;
			while (!can(m, i + 1, k))
				k--;
			if (!range_ok(t, d + j, k - j))
				return false;
			j = k;
			break;
		}
	}
	return true;
}

/* Where a match from s ends: the end, or past the run '*' can take. */
static size_t match_end(const struct vf_ndpat *p, const char *d, size_t len,
			size_t s)
{
	if (p->anchor_end)
		return len;
	while (s < len && is_wild(d[s]))
		s++;
	return s;
}

/*
 * The leftmost start at which the expression (ranges unchecked) matches,
 * its longest match from there, then the FM's range checks on it: a
 * failed check is no match, with no other split or start tried.  Every
 * character a match takes is in the wildcard class, so with an open end
 * the longest match from s ends where that class does.
 */
bool vf_ndpat_match(const struct vf_ndpat *p, const char *desc)
{
	struct ndtable m;
	size_t len, e, last_e = (size_t)-1;
	bool found = false, ok = false;

	if (!p || !desc)
		return false;
	len = strlen(desc);
	m.stride = len + 1;
	m.can = malloc((p->ntok + 1) * m.stride * sizeof(*m.can));
	if (!m.can)
		return false;	/* fails closed: no member */
	for (size_t s = 0; !found && s <= len; s++) {
		if (p->anchor_start && s > 0)
			break;
		e = match_end(p, desc, len, s);
		if (e != last_e)
			fill(p, desc, e, &m);
		last_e = e;
		found = can(&m, 0, s);
		if (found)
			ok = split_and_check(p, desc, s, e, &m);
	}
	free(m.can);
	return ok;
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
