// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * NodeDesc patterns against a model of the Omni-Path FM (seeded, random):
 * the model does what the FM does (reference/opa-fm.md 1.3.1, read from
 * sm_utility.c convertWildcardedString / processBracketSyntax /
 * isNumberInRange and sm_partMgr.c): it writes the pattern as a POSIX
 * extended expression, runs glibc's regcomp(REG_EXTENDED) / regexec with
 * ten match slots, and range-checks the captured digits with the FM's
 * leading-zero arithmetic.  It shares no code with common/ndpattern.c,
 * which matches without any regex engine.
 *
 * For every random pattern: the model says valid, invalid, or undefined
 * (the FM's outcome is an accident: unclosed '[', a range beyond capture
 * group 9, an expression over its buffer, 64 characters); ours must
 * compile exactly the valid ones, with the same port range, and agree on
 * every NodeDesc.
 *
 * NDFM_SEED=n picks the seed (default: time), NDFM_PATTERNS=n how many
 * patterns (default 20000; `make check-ndfm-long` runs 1000000).
 */
#include <errno.h>
#include <regex.h>
#include <stdint.h>
#include <time.h>

#include "common/ndpattern.h"
#include "taptest.h"

enum fm_verdict { FM_VALID, FM_INVALID, FM_UNDEFINED };

struct fm_range {
	int group;		/* capture group of the expression */
	int lo, hi;
	int lo_sig, lo_zeros;	/* digits after leading zeros, zeros */
};

struct fm_model {
	regex_t re;
	struct fm_range r[16];
	int nr;
	bool ports;
	int port_lo, port_hi;
};

/* ---- the model ---------------------------------------------------- */

#define FM_STAR "(([_,=.a-z0-9A-Z[:space:]-])*)"
#define FM_QUES "(([_,=.a-z0-9A-Z[:space:]-])?)"
#define FM_CAPT "([0-9]+)"

static bool fm_lit(char c)
{
	return strchr("-,=_. ", c) || (c >= '0' && c <= '9') ||
	       (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * One bound of a bracket, starting at s[*i], ended by stop: leading
 * zeros counted apart, "0" alone is one significant digit.  Returns
 * false when invalid; *open when the string ended first.
 */
static bool fm_bound(const char *s, int *i, char stop, int *val, int *sig,
		     int *zeros, bool *open)
{
	*val = *sig = *zeros = 0;
	for (; s[*i] >= '0' && s[*i] <= '9'; (*i)++) {
		if (s[*i] == '0' && *sig == 0) {
			(*zeros)++;
		} else {
			(*sig)++;
			if (*sig <= 5)
				*val = *val * 10 + (s[*i] - '0');
		}
	}
	if (*sig == 0 && *zeros == 1) {
		*sig = 1;
		*zeros = 0;
	}
	if (!s[*i]) {
		*open = true;
		return false;
	}
	if (s[*i] != stop)
		return false;
	(*i)++;
	return *sig >= 1 && *sig <= 5;
}

/* "[lo-hi]" at s[*i]; leaves *i after ']'. */
static enum fm_verdict fm_bracket(const char *s, int *i, struct fm_range *r)
{
	int hs, hz;
	bool open = false;

	(*i)++;
	if (!fm_bound(s, i, '-', &r->lo, &r->lo_sig, &r->lo_zeros, &open) ||
	    !fm_bound(s, i, ']', &r->hi, &hs, &hz, &open))
		return open ? FM_UNDEFINED : FM_INVALID;
	if (r->lo_sig > hs || (r->lo_sig == hs && r->lo_zeros != hz) ||
	    r->lo > r->hi)
		return FM_INVALID;
	return FM_VALID;
}

static enum fm_verdict fm_compile(const char *pat, struct fm_model *m)
{
	char re[4096] = "";
	int n = (int)strlen(pat), groups = 0, i = 0;
	enum fm_verdict v;
	bool only_q = strspn(pat, "?") == (size_t)n;

	memset(m, 0, sizeof(*m));
	if (n == 0 || n == 64)
		return FM_UNDEFINED;
	if (n > 64)
		return FM_INVALID;
	if (pat[0] != '*' && !only_q)
		strcat(re, "^");
	while (i < n) {
		char c = pat[i];

		if (c == '*' || c == '?') {
			int j = i;
			bool star = false;

			for (; pat[j] == '*' || pat[j] == '?'; j++)
				star |= pat[j] == '*';
			if (pat[j] == '[')
				return FM_INVALID;
			for (int k = i; k < j; k++) {
				strcat(re, star ? FM_STAR : FM_QUES);
				groups += 2;
				if (star)
					break;
			}
			i = j;
		} else if (c == '[') {
			struct fm_range *r = &m->r[m->nr];
			int at = i;

			if (m->nr == 16)
				return FM_UNDEFINED;
			v = fm_bracket(pat, &i, r);
			if (v != FM_VALID)
				return v;
			if (at == 0 && i == n)
				return FM_INVALID;
			r->group = ++groups;
			m->nr++;
			strcat(re, FM_CAPT);
		} else if (c == ':') {
			struct fm_range pr;

			if (pat[i + 1] != '[')
				return FM_INVALID;
			i++;
			v = fm_bracket(pat, &i, &pr);
			if (v != FM_VALID)
				return v;
			if (i != n)
				return FM_INVALID;
			m->ports = true;
			m->port_lo = pr.lo;
			m->port_hi = pr.hi;
		} else if (fm_lit(c)) {
			if (c == '.')
				strcat(re, "\\");
			strncat(re, &c, 1);
			i++;
		} else {
			return FM_INVALID;
		}
	}
	if (pat[n - 1] != '*')
		strcat(re, "$");
	if (strlen(re) > 1499)
		return FM_UNDEFINED;
	for (int k = 0; k < m->nr; k++)
		if (m->r[k].group > 9)
			return FM_UNDEFINED;
	if (regcomp(&m->re, re, REG_EXTENDED)) {
		printf("# model: regcomp failed on %s\n", re);
		return FM_INVALID;
	}
	return FM_VALID;
}

/* The FM's check of a captured number, in its own arithmetic. */
static bool fm_in_range(const char *num, int len, const struct fm_range *r)
{
	int zeros = 0, sig, v = 0, expect;

	while (zeros < len && num[zeros] == '0')
		zeros++;
	sig = len - zeros;
	if (sig > 5)
		return false;	/* the FM overflows its buffer: never in */
	for (int k = zeros; k < len; k++)
		v = v * 10 + (num[k] - '0');
	if (r->lo_zeros == 0 && zeros == 0)
		return v >= r->lo && v <= r->hi;
	expect = r->lo_zeros - (sig - r->lo_sig);
	return expect == zeros && v >= r->lo && v <= r->hi;
}

static bool fm_match(const struct fm_model *m, const char *desc)
{
	regmatch_t pm[10];

	if (regexec(&m->re, desc, 10, pm, 0))
		return false;
	for (int k = 0; k < m->nr; k++) {
		const regmatch_t *g = &pm[m->r[k].group];

		if (g->rm_so < 0 ||
		    !fm_in_range(desc + g->rm_so, (int)(g->rm_eo - g->rm_so),
				 &m->r[k]))
			return false;
	}
	return true;
}

/* ---- generators ---------------------------------------------------- */

static uint64_t rng;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void put(char *s, size_t cap, char c)
{
	size_t l = strlen(s);

	if (l + 1 < cap) {
		s[l] = c;
		s[l + 1] = '\0';
	}
}

static void put_num(char *s, size_t cap, unsigned zeros, unsigned v)
{
	char b[32];

	for (unsigned k = 0; k < zeros; k++)
		put(s, cap, '0');
	snprintf(b, sizeof(b), "%u", v);
	for (char *c = b; *c; c++)
		put(s, cap, *c);
}

static unsigned rnd_val(void)
{
	static const unsigned pick[] = { 0, 1, 2, 5, 9, 10, 12, 16, 20, 99,
					 100, 160, 999, 12345, 99999, 123456 };

	return rnd(3) ? pick[rnd(sizeof(pick) / sizeof(*pick))] :
			rnd(200);
}

static void gen_bracket(char *s, size_t cap)
{
	unsigned lo = rnd_val(), hi = rnd_val();

	if (rnd(4) && lo > hi) {
		unsigned t = lo;

		lo = hi;
		hi = t;
	}
	put(s, cap, '[');
	put_num(s, cap, rnd(4) ? 0 : rnd(3), lo);
	if (rnd(30))
		put(s, cap, '-');
	put_num(s, cap, rnd(5) ? 0 : rnd(3), hi);
	if (rnd(30))
		put(s, cap, ']');
}

static const char lits[] = "cnrsw01234567-_.,= x";
static const char odd[] = "/#:]\t!~";

static void gen_pattern(char *s, size_t cap)
{
	unsigned ntok = 1 + rnd(8);

	s[0] = '\0';
	for (unsigned t = 0; t < ntok; t++) {
		unsigned k = rnd(100);

		if (k < 45)
			put(s, cap, lits[rnd(sizeof(lits) - 1)]);
		else if (k < 60)
			put(s, cap, '*');
		else if (k < 72)
			put(s, cap, '?');
		else if (k < 97)
			gen_bracket(s, cap);
		else
			put(s, cap, odd[rnd(sizeof(odd) - 1)]);
	}
	if (!rnd(5)) {
		put(s, cap, ':');
		gen_bracket(s, cap);
	}
	if (!rnd(400)) {	/* now and then, long ones */
		while (strlen(s) < 62 + rnd(4))
			put(s, cap, "a?*"[rnd(3)]);
	}
}

/* A NodeDesc near the pattern: its literals, numbers about its ranges. */
static void gen_desc(const char *pat, char *d, size_t cap)
{
	d[0] = '\0';
	if (!rnd(8)) {
		for (unsigned k = rnd(12); k; k--)
			put(d, cap, rnd(5) ? lits[rnd(sizeof(lits) - 1)] :
					     odd[rnd(sizeof(odd) - 1)]);
		return;
	}
	if (!rnd(6))
		put(d, cap, rnd(2) ? odd[rnd(sizeof(odd) - 1)] : 'q');
	for (const char *p = pat; *p; p++) {
		if (*p == ':')
			break;
		if (*p == '*') {
			for (unsigned k = rnd(4); k; k--)
				put(d, cap, rnd(2) ? '0' + (char)rnd(10) :
					    lits[rnd(sizeof(lits) - 1)]);
		} else if (*p == '?') {
			if (rnd(2))
				put(d, cap, rnd(2) ? '0' + (char)rnd(10) : 'x');
		} else if (*p == '[') {
			const char *close = strchr(p, ']');

			put_num(d, cap, rnd(4) ? 0 : 1 + rnd(2),
				rnd(3) ? (unsigned)atoi(p + 1) + rnd(20) :
					 rnd_val());
			if (close)
				p = close;
		} else if (rnd(25)) {
			put(d, cap, *p);
		}
	}
	if (!rnd(6))
		put(d, cap, rnd(2) ? odd[rnd(sizeof(odd) - 1)] :
				     '0' + (char)rnd(10));
}

/* ---- the comparison ------------------------------------------------- */

static unsigned shown;

static void differ(const char *pat, const char *desc, const char *what)
{
	if (shown++ < 20)
		printf("# DIFFER '%s' on '%s': %s\n", pat, desc ? desc : "-",
		       what);
}

/* Compare one pattern; counts in *valid; returns false on a difference. */
static bool one(const char *pat, unsigned ndesc, unsigned *valid,
		unsigned *matched, unsigned *undef)
{
	struct fm_model m;
	enum fm_verdict v = fm_compile(pat, &m);
	struct vf_ndpat *p = NULL;
	char err[160], desc[96];
	unsigned lo = 0, hi = 0;
	int rc = vf_ndpat_compile(pat, &p, err, sizeof(err));
	bool ok = true;

	if (v != FM_VALID) {
		*undef += v == FM_UNDEFINED;
		if (!rc) {
			differ(pat, NULL, v == FM_INVALID ?
			       "the FM refuses it, ours compiles it" :
			       "undefined in the FM, ours compiles it");
			vf_ndpat_free(p);
			return false;
		}
		return rc == -EINVAL;
	}
	if (rc) {
		differ(pat, NULL, err);
		regfree(&m.re);
		return false;
	}
	(*valid)++;
	if (vf_ndpat_ports(p, &lo, &hi) != m.ports ||
	    (m.ports && ((int)lo != m.port_lo || (int)hi != m.port_hi))) {
		differ(pat, NULL, "port ranges differ");
		ok = false;
	}
	for (unsigned k = 0; ok && k < ndesc; k++) {
		bool a, b;

		gen_desc(pat, desc, sizeof(desc));
		a = fm_match(&m, desc);
		b = vf_ndpat_match(p, desc);
		*matched += a;
		if (a != b) {
			differ(pat, desc, a ? "the FM matches, ours not" :
					      "ours matches, the FM not");
			ok = false;
		}
	}
	vf_ndpat_free(p);
	regfree(&m.re);
	return ok;
}

/* Hand-picked cases of the issue, through the same comparison. */
static void known(void)
{
	static const char *const pats[] = {
		"cn[1-16]*", "cn[1-2]?", "n[1-5][10-20]", "n[6-010]",
		"[1-2]x", "*x", "x*", "a??b", "?", "??", ":[1-2]", "a*?",
		"n[01-100]", "n[0-10]", "r[1-3]0",
	};
	static const char *const descs[] = {
		"cn17", "cn160", "cn1", "cn16", "cn16x", "cn12", "cn1a",
		"n512", "n115", "n7", "n007", "n010", "1x", "#x", "x#",
		"axyb", "ab", "", "anything/at all", "n01", "n100", "n0",
		"n00", "r10", "r100", "a\tb",
	};
	unsigned bad = 0;

	for (unsigned i = 0; i < sizeof(pats) / sizeof(*pats); i++) {
		struct fm_model m;
		struct vf_ndpat *p;

		if (fm_compile(pats[i], &m) != FM_VALID ||
		    vf_ndpat_compile(pats[i], &p, NULL, 0)) {
			differ(pats[i], NULL, "should compile in both");
			bad++;
			continue;
		}
		for (unsigned k = 0; k < sizeof(descs) / sizeof(*descs); k++)
			if (fm_match(&m, descs[k]) !=
			    vf_ndpat_match(p, descs[k])) {
				differ(pats[i], descs[k], "hand-picked");
				bad++;
			}
		vf_ndpat_free(p);
		regfree(&m.re);
	}
	OK(!bad, "hand-picked patterns of the issue agree with the FM model");
}

/* The model itself must see the issue's case: or nothing is tested. */
static void model_sanity(void)
{
	struct fm_model m;

	OK(fm_compile("cn[1-16]*", &m) == FM_VALID && fm_match(&m, "cn1") &&
	   fm_match(&m, "cn16abc") && !fm_match(&m, "cn17") &&
	   !fm_match(&m, "cn160"),
	   "model: cn[1-16]* takes cn1, cn16abc, not cn17 or cn160");
	regfree(&m.re);
	OK(fm_compile("n[06-10]", &m) == FM_VALID && fm_match(&m, "n06") &&
	   fm_match(&m, "n10") && !fm_match(&m, "n6"),
	   "model: n[06-10] takes n06 and n10, not n6");
	regfree(&m.re);
	OK(fm_compile("x[1-2", &m) == FM_UNDEFINED &&
	   fm_compile("cn*[1-2]", &m) == FM_INVALID,
	   "model: an unclosed range is undefined, '*[' invalid");
}

int main(void)
{
	const char *s = getenv("NDFM_SEED"), *n = getenv("NDFM_PATTERNS");
	uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);
	unsigned total = n ? (unsigned)strtoul(n, NULL, 0) : 20000;
	unsigned valid = 0, matched = 0, undef = 0, bad = 0;
	char pat[80];

	printf("# NDFM_SEED=%llu NDFM_PATTERNS=%u\n",
	       (unsigned long long)seed, total);
	rng = seed * 2654435761u + 1;
	model_sanity();
	known();
	for (unsigned i = 0; i < total; i++) {
		gen_pattern(pat, sizeof(pat));
		if (!one(pat, 40, &valid, &matched, &undef))
			bad++;
	}
	printf("# %u patterns: %u valid in both, %u undefined in the FM; %u NodeDescs matched\n",
	       total, valid, undef, matched);
	OK(!bad, "every random pattern and NodeDesc: ours == the FM model");
	OK(valid > total / 5 && matched > total,
	   "the generator reaches valid patterns and matching NodeDescs");
	return tap_done();
}
