// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * NodeDesc patterns in the FM's dialect: literals, wildcards over the
 * literal class, anchoring, numeric ranges with and without zero padding,
 * port ranges, every rejection with its column, linear-time matching and
 * a sweep over short hostile patterns.
 */
#include <errno.h>
#include <time.h>

#include "partition/ndpattern.h"
#include "tap.h"

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
	check("cn*", "cn01/x", 0);
	check("cn*", "xcn01", 0);
	check("*HCA-1", "cn01 HCA-1", 1);
	check("*HCA-1", "cn01 HCA-2", 0);
	check("cn*HCA", "cn01 HCA", 1);
	check("cn*HCA", "cn01 HCA-1", 0);
	check("*", "", 1);
	check("*", "any thing-1", 1);
	check("*", "a/b", 0);
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
	/* the FM's convertWildcardedString: each '?' of a run without a
	 * '*' is one optional character (issue 14: found by the oracle) */
	check("cn??", "cn1", 1);
	check("cn??", "cn12", 1);
	check("cn??", "cn123", 0);
	check("cn?*?", "cn123", 1);
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
	check("n[6-010]", "n007", 1);
	check("n[6-010]", "n7", 0);
	check("n[00000-99999]", "n00042", 1);
	check("r[1-4]c[01-16] HFI", "r3c07 HFI", 1);
	check("r[1-4]c[01-16] HFI", "r3c7 HFI", 0);
	check("r[1-4]c[01-16] HFI", "r5c07 HFI", 0);
	check("r[1-4]c[01-16] HFI", "r3c17 HFI", 0);
	check("[1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2]",
	      "1212121212", 1);
}

/* Splits a greedy digit run would miss: all must be tried. */
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
	check("n[1-5][10-20]", "n512", 1);
	check("n[1-5][10-20]", "n115", 1);
	check("n[1-5][10-20]", "n521", 0);
	check("cn[1-9]*", "cn12", 1);
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
	bad("[1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2]", 51,
	    "more than 10");
	bad("n[123456-999999]", 3, "more than 5 digits");
	bad("n[1-123456]", 5, "more than 5 digits");
	bad("n[5-3]", 3, "above");
	bad("n[006-10]", 3, "more digits");
	bad("n[-3]", 3, "expected the low end");
	bad("n[1+3]", 4, "expected '-'");
	bad("n[1-3", 6, "expected ']'");
	bad("n[1-x]", 5, "expected the high end");
	bad("sw1:[2-4]x", 10, "nothing may follow");
	bad("sw1:[2-4]:[1-2]", 10, "nothing may follow");
	bad("sw1:4", 4, "':'");
	bad("sw:1:[2-4]", 3, "':'");
	bad(":[1-2]", 1, "needs a NodeDesc pattern");
	bad("sw1:[2-256]", 8, "port 256 is above 255");
	bad("sw1:[300-400]", 6, "port 300 is above 255");
	bad("sw1:[4-2]", 6, "low port 4 is above high port 2");
	memset(longpat, 'a', 65);
	longpat[65] = '\0';
	bad(longpat, 65, "longer than 64");
	bad("", 1, "empty");
	bad(NULL, 1, "empty");

	longpat[64] = '\0';
	OK(match(longpat, longpat) == 1, "a 64-character pattern is fine");

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
