// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * NodeDesc patterns in the FM's dialect (t-ndfm compares with a model of
 * the FM at random): literals, wildcards over the
 * literal class, anchoring, numeric ranges with and without zero padding,
 * port ranges, every rejection with its column, linear-time matching and
 * a sweep over short hostile patterns.
 */
#include <errno.h>
#include <time.h>

#include "common/ndpattern.h"
#include "taptest.h"

/*
 * Under -fsanitize=undefined, make any report fatal so that it fails the
 * test (the default is to print and carry on); unused otherwise.
 */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

/*
 * 1 if pat compiles and matches desc, 0 if it does not match, -1 if pat
 * does not compile (so that a broken compile never passes a "no" check).
 */
static int match(const char *pat, const char *desc)
{
	struct vf_ndpat *p;
	char err[128];
	int m;

	if (vf_ndpat_compile(pat, &p, err, sizeof(err))) {
		printf("#   '%s' did not compile: %s\n", pat, err);
		return -1;
	}
	m = vf_ndpat_match(p, desc);
	vf_ndpat_free(p);
	return m;
}

/* Assert that pat matches desc (want 1) or compiles and does not (0). */
static void check(const char *pat, const char *desc, int want)
{
	char what[192];

	snprintf(what, sizeof(what), "'%s' %s '%s'", pat,
		 want ? "matches" : "does not match", desc);
	OK(match(pat, desc) == want, what);
}

/*
 * Assert that pat is rejected with -EINVAL, a NULL pattern and a message
 * starting "column col: " and containing words.
 */
static void bad(const char *pat, unsigned col, const char *words)
{
	static long sentinel;
	struct vf_ndpat *p = (struct vf_ndpat *)&sentinel;
	char err[128] = "", head[32], what[192];
	int rc;

	rc = vf_ndpat_compile(pat, &p, err, sizeof(err));
	snprintf(head, sizeof(head), "column %u: ", col);
	snprintf(what, sizeof(what), "'%s' is rejected at column %u (%s)",
		 pat ? pat : "(null)", col, words);
	if (!OK(rc == -EINVAL && !p && !strncmp(err, head, strlen(head)) &&
		strstr(err, words), what))
		printf("#   rc %d, message \"%s\"\n", rc, err);
}

static void test_literals(void)
{
	check("sw1", "sw1", 1);
	check("sw1", "sw10", 0);
	check("sw1", "sw", 0);
	check("sw1", "Sw1", 0);
	check("a-b,c=d_e.f g", "a-b,c=d_e.f g", 1);
	check("a.b", "axb", 0);
	check("node1", "xnode1", 0);
	check("node1", "node1x", 0);
	check("node1", "", 0);
}

static void test_wildcards(void)
{
	check("cn*", "cn", 1);
	check("cn*", "cn01 HCA-1", 1);
	/* an open end lets anything follow, an open start precede (FM) */
	check("cn*", "cn01/x", 1);
	check("*x", "a/b#x", 1);
	check("cn*", "xcn01", 0);
	check("*HCA-1", "cn01 HCA-1", 1);
	check("*HCA-1", "cn01 HCA-2", 0);
	check("cn*HCA", "cn01 HCA", 1);
	check("cn*HCA", "cn01 HCA-1", 0);
	check("*", "", 1);
	check("*", "any thing-1", 1);
	check("*", "a/b", 1);
	check("*a", "a/b", 0);
	check("*1*", "cn01 HCA", 1);
	check("*1*", "cn02 HCA", 0);
	check("cn0?", "cn0", 1);
	check("cn0?", "cn01", 1);
	check("cn0?", "cn012", 0);
	check("cn0?", "cn0/", 0);
	check("?n01", "cn01", 1);
	check("?n01", "xcn01", 0);
	check("cn**", "cn0042", 1);
	check("cn?*", "cn0042", 1);
	check("cn*?", "cn0042", 1);
	check("??*x", "abcdx", 1);
	/* as the FM: a run of '?' is that many '?' unless it reaches a '*' */
	check("cn??", "cn1", 1);
	check("cn??", "cn12", 1);
	check("cn??", "cn123", 0);
	check("cn?*?", "cn123", 1);
	check("cn?", "cn\t", 1);	/* the FM's class holds [:space:] */
	check("cn ", "cn\t", 0);
	check("?", "any/thing", 1);	/* only '?'s: no start anchor */
}

static void test_ranges(void)
{
	check("node[06-10]", "node06", 1);
	check("node[06-10]", "node09", 1);
	check("node[06-10]", "node10", 1);
	check("node[06-10]", "node6", 0);
	check("node[06-10]", "node05", 0);
	check("node[06-10]", "node11", 0);
	check("node[06-10]", "node006", 0);
	check("node[1-12]", "node1", 1);
	check("node[1-12]", "node7", 1);
	check("node[1-12]", "node12", 1);
	check("node[1-12]", "node07", 0);
	check("node[1-12]", "node0", 0);
	check("node[1-12]", "node13", 0);
	check("node[1-12]", "node", 0);
	check("node[0-12]", "node0", 1);
	check("node[0-12]", "node00", 0);
	/* the FM pads to lo's width, and only when lo or the run is padded */
	check("n[6-010]", "n007", 0);
	check("n[6-010]", "n7", 1);
	check("n[6-010]", "n10", 1);
	check("n[01-100]", "n100", 0);
	check("n[01-100]", "n99", 1);
	check("n[01-100]", "n01", 1);
	check("n[006-10]", "n010", 1);
	check("n[006-10]", "n10", 0);
	check("n[0-99999]", "n42", 1);
	check("r[1-4]c[01-16] HFI", "r3c07 HFI", 1);
	check("r[1-4]c[01-16] HFI", "r3c7 HFI", 0);
	check("r[1-4]c[01-16] HFI", "r5c07 HFI", 0);
	check("r[1-4]c[01-16] HFI", "r3c17 HFI", 0);
	check("[1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2]",
	      "111111111", 1);
	check("[1-2]x", "1x", 1);
}

/*
 * The FM splits once, by the leftmost-longest rule, and then checks the
 * ranges: a range takes the whole digit run it can (issue 14, point 4).
 */
static void test_backtracking(void)
{
	check("r[1-3]0", "r10", 1);
	check("r[1-3]0", "r20", 1);
	check("r[1-3]0", "r30", 1);
	check("r[1-3]0", "r40", 0);
	check("r[1-3]0", "r300", 0);
	check("a[1-20]b", "a7b", 1);
	check("a[1-20]b", "a20b", 1);
	check("a[1-20]b", "a21b", 0);
	check("a[1-20]b", "a0b", 0);
	check("n[1-5][10-20]", "n512", 0);	/* 51 and 2 */
	check("n[1-5][10-20]", "n115", 0);	/* 11 and 5 */
	check("n[1-5][10-20]", "n521", 0);
	check("cn[1-9]*", "cn12", 0);
	check("cn[1-16]*", "cn17", 0);
	check("cn[1-16]*", "cn160", 0);
	check("cn[1-16]*", "cn16-hfi1", 1);
	check("cn[1-2]?", "cn17", 0);
	check("cn[1-2]?", "cn2a", 1);
	check("n[1-3]*5", "n35", 1);
	check("n[1-3]*5", "n3x5", 1);
	check("n[1-3]*5", "n4x5", 0);
}

static void test_ports(void)
{
	struct vf_ndpat *p;
	unsigned lo = 77, hi = 77;
	char err[128];

	OK(!vf_ndpat_compile("sw1:[2-4]", &p, err, sizeof(err)),
	   "sw1:[2-4] compiles");
	OK(vf_ndpat_match(p, "sw1"), "sw1:[2-4] matches NodeDesc sw1");
	OK(!vf_ndpat_match(p, "sw1:[2-4]"), "... not its own text");
	OK(vf_ndpat_ports(p, &lo, &hi), "sw1:[2-4] has a port range");
	EQ_U(lo, 2, "low port 2");
	EQ_U(hi, 4, "high port 4");
	EQ_S(vf_ndpat_text(p), "sw1:[2-4]", "the text is kept whole");
	vf_ndpat_free(p);

	OK(!vf_ndpat_compile("sw*:[0-255]", &p, err, sizeof(err)) &&
	   vf_ndpat_match(p, "sw07") && vf_ndpat_ports(p, &lo, &hi) &&
	   lo == 0 && hi == 255, "sw*:[0-255] matches sw07, ports 0..255");
	vf_ndpat_free(p);

	/* as the FM: no cap on port numbers, and ':[a-b]' alone is "^$" */
	OK(!vf_ndpat_compile("sw1:[2-256]", &p, err, sizeof(err)) &&
	   vf_ndpat_ports(p, &lo, &hi) && lo == 2 && hi == 256,
	   "sw1:[2-256] is ports 2..256");
	vf_ndpat_free(p);
	check(":[1-2]", "", 1);
	check(":[1-2]", "a", 0);

	lo = hi = 77;
	OK(!vf_ndpat_compile("sw1", &p, err, sizeof(err)) &&
	   !vf_ndpat_ports(p, &lo, &hi) && lo == 77 && hi == 77,
	   "sw1 has no port range and leaves lo, hi alone");
	vf_ndpat_free(p);
}

static void test_invalid(void)
{
	char err[128], tiny[10];
	struct vf_ndpat *p;
	char longpat[66];

	OK(vf_ndpat_compile("node/x", &p, err, sizeof(err)) == -EINVAL,
	   "node/x is invalid");
	EQ_S(err, "column 5: '/' is not allowed in a NodeDesc pattern",
	     "... with the exact message");
	bad("node/x", 5, "'/' is not allowed");
	bad("n\x01", 2, "byte 0x01");
	bad("n]", 2, "']' is not allowed");
	bad("cn*[1-4]", 4, "wildcard '*'");
	bad("cn?[1-4]", 4, "wildcard '?'");
	bad("[1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2]", 46,
	    "capture group 10");
	bad("a*b*c*d*e*f[1-2]", 12, "capture group 11");
	check("a*b*c*d*e[1-2]", "abcde2", 1);
	bad("[1-2]", 1, "range alone");
	bad("n[00-5]", 3, "zeros only");
	bad("n[01-5]", 3, "as many leading zeros");
	bad("n[123456-999999]", 3, "more than 5 digits");
	bad("n[1-123456]", 5, "more than 5 digits");
	bad("n[5-3]", 3, "above");
	bad("n[10-1]", 3, "more digits");
	bad("n[-3]", 3, "expected the low end");
	bad("n[1+3]", 4, "expected '-'");
	bad("n[1-3", 6, "expected ']'");
	bad("n[1-x]", 5, "expected the high end");
	bad("sw1:[2-4]x", 10, "nothing may follow");
	bad("sw1:[2-4]:[1-2]", 10, "nothing may follow");
	bad("sw1:4", 4, "':'");
	bad("sw:1:[2-4]", 3, "':'");
	bad("sw1:[4-2]", 6, "low end 4 is above its high end 2");
	memset(longpat, 'a', 65);
	longpat[64] = '\0';
	bad(longpat, 64, "longer than 63");
	bad("", 1, "empty");
	bad(NULL, 1, "empty");

	longpat[63] = '\0';
	OK(match(longpat, longpat) == 1, "a 63-character pattern is fine");

	OK(vf_ndpat_compile("node/x", &p, tiny, sizeof(tiny)) == -EINVAL &&
	   strlen(tiny) == sizeof(tiny) - 1, "a short buffer is truncated");
	OK(vf_ndpat_compile("node/x", &p, NULL, 0) == -EINVAL && !p,
	   "no message buffer at all");
}

/* Many '*'s against a long run of 'a's: exponential if backtracking. */
static void test_linear(void)
{
	char pat[40] = "", desc[65];
	struct vf_ndpat *p;
	bool ok = true;
	clock_t t0;

	for (int i = 0; i < 16; i++)
		strcat(pat, "*a");
	strcat(pat, "b");
	memset(desc, 'a', 64);
	desc[64] = '\0';
	t0 = clock();
	ok = !vf_ndpat_compile(pat, &p, NULL, 0);
	for (int i = 0; ok && i < 1000; i++) {
		desc[63] = 'a';
		ok = !vf_ndpat_match(p, desc);
		desc[63] = 'b';
		ok = ok && vf_ndpat_match(p, desc);
	}
	if (ok)
		vf_ndpat_free(p);
	OK(ok && clock() - t0 < 5 * CLOCKS_PER_SEC,
	   "(*a)x16 b against 64 chars: right answers, 2000 times in < 5 s");
}

/*
 * Every pattern of 1..4 characters over a hostile alphabet: compiles or
 * fails cleanly (column message, NULL pattern), and the valid ones match
 * a few strings without tripping a sanitizer.
 */
static void test_hostile(void)
{
	static const char alpha[] = "*?[]-:0a ";
	static const char *const descs[] = {
		"", "a", "0", "a0 a", "aaaa0000", "[*]", "-:",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa0000000000000000 aaaaaaaaaaaaa",
	};
	const unsigned na = sizeof(alpha) - 1;
	unsigned valid = 0, invalid = 0, total = 1;
	bool ok = true;

	for (unsigned len = 1; len <= 4; len++) {
		total *= na;
		for (unsigned k = 0; k < total; k++) {
			char pat[5] = "", err[96];
			struct vf_ndpat *p;
			int rc;

			for (unsigned i = 0, v = k; i < len; i++, v /= na)
				pat[i] = alpha[v % na];
			rc = vf_ndpat_compile(pat, &p, err, sizeof(err));
			if (rc) {
				invalid++;
				ok = ok && rc == -EINVAL && !p &&
				     !strncmp(err, "column ", 7);
				continue;
			}
			valid++;
			ok = ok && !strcmp(vf_ndpat_text(p), pat);
			for (unsigned d = 0; d < sizeof(descs) / sizeof(*descs);
			     d++)
				vf_ndpat_match(p, descs[d]);
			vf_ndpat_free(p);
		}
	}
	printf("# hostile sweep: %u valid, %u invalid\n", valid, invalid);
	OK(ok && valid > 100 && invalid > 100,
	   "hostile 1..4-character patterns compile or fail cleanly");
}

int main(void)
{
	test_literals();
	test_wildcards();
	test_ranges();
	test_backtracking();
	test_ports();
	test_invalid();
	test_linear();
	test_hostile();
	return tap_done();
}
