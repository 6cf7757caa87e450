// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "partition/values.h"

/* s without surrounding blanks, in buf (size bytes); NULL if too long. */
static const char *trimmed(const char *s, char *buf, size_t size)
{
	size_t len;

	while (isspace((unsigned char)*s))
		s++;
	len = strlen(s);
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (len >= size)
		return NULL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return buf;
}

int vf_parse_u64(const char *s, int base, uint64_t *out, const char **why)
{
	char buf[64], *end;
	const char *t = trimmed(s, buf, sizeof(buf));

	*why = base == 16 ? "a hexadecimal number" : "a number";
	if (!t || !*t || *t == '-' || *t == '+')
		return -EINVAL;
	errno = 0;
	*out = strtoull(t, &end, base);
	return errno || *end ? -EINVAL : 0;
}

/* opafm.xml numbers of 64 bits are hex, with or without 0x. */
int vf_parse_hex64(const char *s, uint64_t *out, const char **why)
{
	return vf_parse_u64(s, 16, out, why);
}

int vf_parse_bool(const char *s, bool *out, const char **why)
{
	char buf[8];
	const char *t = trimmed(s, buf, sizeof(buf));

	*why = "0 or 1";
	if (!t || (strcmp(t, "0") && strcmp(t, "1")))
		return -EINVAL;
	*out = *t == '1';
	return 0;
}

int vf_parse_int(const char *s, long lo, long hi, long *out,
		 const char **why)
{
	uint64_t v;

	if (vf_parse_u64(s, 10, &v, why) || v < (uint64_t)lo ||
	    v > (uint64_t)hi) {
		*why = "a number in range";
		return -EINVAL;
	}
	*out = (long)v;
	return 0;
}

/* Split "a<sep>b" at the first sep into two buffers. */
static int split2(const char *s, char sep, char *a, char *b, size_t size)
{
	const char *at = strchr(s, sep);

	if (!at || (size_t)(at - s) >= size || strlen(at + 1) >= size)
		return -EINVAL;
	memcpy(a, s, (size_t)(at - s));
	a[at - s] = '\0';
	strcpy(b, at + 1);
	return 0;
}

int vf_parse_sid_rule(const char *s, enum vf_match_kind kind,
		      struct vf_sid_rule *out, const char **why)
{
	char a[64], b[64];

	out->kind = kind;
	out->b = 0;
	if (kind == VF_MATCH_EXACT)
		return vf_parse_hex64(s, &out->a, why);
	if (split2(s, kind == VF_MATCH_RANGE ? '-' : '*', a, b, sizeof(a)) ||
	    vf_parse_hex64(a, &out->a, why) || vf_parse_hex64(b, &out->b, why)) {
		*why = kind == VF_MATCH_RANGE ? "low-high (hex)" :
						"value*mask (hex)";
		return -EINVAL;
	}
	if (kind == VF_MATCH_RANGE && out->a > out->b) {
		*why = "low-high with low <= high";
		return -EINVAL;
	}
	return 0;
}

static int parse_mgid(const char *s, struct vf_mgid *m)
{
	char hi[64], lo[64];
	const char *why;

	return split2(s, ':', hi, lo, sizeof(hi)) ||
	       vf_parse_hex64(hi, &m->hi, &why) ||
	       vf_parse_hex64(lo, &m->lo, &why) ? -EINVAL : 0;
}

static int mgid_cmp(const struct vf_mgid *x, const struct vf_mgid *y)
{
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int vf_parse_mgid_rule(const char *s, enum vf_match_kind kind,
		       struct vf_mgid_rule *out, const char **why)
{
	char a[96], b[96];

	out->kind = kind;
	out->b = (struct vf_mgid){ 0, 0 };
	*why = kind == VF_MATCH_EXACT ? "hi:lo (two hex numbers)" :
	       kind == VF_MATCH_RANGE ? "hi:lo-hi:lo" : "hi:lo*hi:lo";
	if (kind == VF_MATCH_EXACT)
		return parse_mgid(s, &out->a);
	if (split2(s, kind == VF_MATCH_RANGE ? '-' : '*', a, b, sizeof(a)) ||
	    parse_mgid(a, &out->a) || parse_mgid(b, &out->b))
		return -EINVAL;
	if (kind == VF_MATCH_RANGE && mgid_cmp(&out->a, &out->b) > 0) {
		*why = "a range with low <= high";
		return -EINVAL;
	}
	return 0;
}

int vf_parse_pkey(const char *s, int *out, const char **why)
{
	uint64_t v;

	/* the FM's PKeyParserEnd: bit 15 (membership) is not written here,
	 * Security and Member/LimitedMember decide it */
	if (vf_parse_hex64(s, &v, why) || !v || v > 0x7fff) {
		*why = v > 0x7fff && v <= 0xffff ?
		       "a P_Key 0x0001-0x7fff (as the FM: the membership bit 0x8000 is not written; Member and LimitedMember decide it)" :
		       "a P_Key 0x0001-0x7fff";
		return -EINVAL;
	}
	*out = (int)v;
	return 0;
}

static bool is_unlimited(const char *s)
{
	char buf[16];
	const char *t = trimmed(s, buf, sizeof(buf));

	return t && !strcasecmp(t, "unlimited");
}

int vf_parse_mtu(const char *s, unsigned *out, const char **why)
{
	uint64_t v;

	*why = "256, 512, 1024, 2048, 4096 or Unlimited";
	if (is_unlimited(s)) {
		*out = 0;
		return 0;
	}
	if (!vf_parse_u64(s, 10, &v, why) && (v == 8192 || v == 10240)) {
		/* an Omni-Path MTU: an FM file stays usable on IB */
		*why = "an Omni-Path MTU; InfiniBand's largest, 4096, is used";
		*out = 4096;
		return 1;
	}
	if (vf_parse_u64(s, 10, &v, why) || v < 256 || v > 4096 ||
	    (v & (v - 1))) {
		*why = "256, 512, 1024, 2048, 4096 or Unlimited";
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

/* IB static rate codes (IBA 9.x, PathRecord Rate) by their speed. */
static const struct {
	const char *gbps;
	unsigned code;
} rates[] = {
	{ "2.5", 2 }, { "5", 5 }, { "10", 3 }, { "14", 11 }, { "20", 6 },
	{ "25", 15 }, { "28", 19 }, { "30", 4 }, { "40", 7 }, { "50", 20 },
	{ "56", 12 }, { "60", 8 }, { "80", 9 }, { "100", 16 }, { "112", 13 },
	{ "120", 10 }, { "168", 14 }, { "200", 17 }, { "300", 18 },
	{ "400", 21 }, { "600", 22 },
};

/* Omni-Path rates (opafm.xml MaxRate) InfiniBand has no code for. */
static const struct {
	const char *gbps;
	unsigned code;
	const char *note;
} opa_rates[] = {
	{ "12.5", 3, "an Omni-Path rate; the fastest InfiniBand rate not above it, 10g, is used" },
	{ "37.5", 4, "an Omni-Path rate; the fastest InfiniBand rate not above it, 30g, is used" },
	{ "75", 8, "an Omni-Path rate; the fastest InfiniBand rate not above it, 60g, is used" },
};

int vf_parse_rate(const char *s, unsigned *out, const char **why)
{
	char buf[16];
	const char *t = trimmed(s, buf, sizeof(buf));
	size_t len;

	*why = "an InfiniBand rate (2.5g, 10g, 25g, 40g, 56g, 100g, 200g, 400g, ...) or Unlimited";
	if (is_unlimited(s)) {
		*out = 0;
		return 0;
	}
	if (!t)
		return -EINVAL;
	len = strlen(t);
	if (len && (t[len - 1] == 'g' || t[len - 1] == 'G'))
		buf[--len] = '\0';
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (!strcmp(t, rates[i].gbps)) {
			*out = rates[i].code;
			return 0;
		}
	/*
	 * Omni-Path rates IB lacks: the fastest IB rate not above them, so
	 * a VF never gets paths faster than its file allows.
	 */
	for (size_t i = 0; i < sizeof(opa_rates) / sizeof(opa_rates[0]); i++)
		if (!strcmp(t, opa_rates[i].gbps)) {
			*out = opa_rates[i].code;
			*why = opa_rates[i].note;
			return 1;
		}
	return -EINVAL;
}

unsigned vf_rate_rank(unsigned code)
{
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i].code == code)
			return (unsigned)i + 1;
	return 0;
}

unsigned vf_rate_lower(unsigned a, unsigned b)
{
	if (!a || !b)
		return a ? a : b;
	return vf_rate_rank(a) <= vf_rate_rank(b) ? a : b;
}

int vf_parse_percent(const char *s, unsigned *out, const char **why)
{
	char buf[16];
	const char *t = trimmed(s, buf, sizeof(buf));
	long v;
	size_t len = t ? strlen(t) : 0;

	*why = "a percentage 1%-100%";
	if (!len || t[len - 1] != '%')
		return -EINVAL;
	buf[len - 1] = '\0';
	if (vf_parse_int(buf, 1, 100, &v, why)) {
		*why = "a percentage 1%-100%";
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

/*
 * HOQLife n means 4.096 us * 2^n; n 0-19, 20 and above infinite.  A time
 * gets the smallest n that is at least as long (clamped to 19).
 */
int vf_parse_hoq_life(const char *s, int *out, const char **why)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char buf[32], *end;
	const char *t = trimmed(s, buf, sizeof(buf));
	double v, ns = 4096;

	*why = "a time such as 4ms, 500us or infinite";
	if (t && !strcasecmp(t, "infinite")) {
		*out = 20;
		return 0;
	}
	if (!t || !isdigit((unsigned char)*t))
		return -EINVAL;
	v = strtod(t, &end);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			v *= units[i].ns;
			for (*out = 0; *out < 19 && ns < v; (*out)++)
				ns *= 2;
			return 0;
		}
	return -EINVAL;
}

struct word_bit {
	const char *word;
	unsigned bit;
};

static int word_bit(const struct word_bit *table, size_t n, const char *s,
		    unsigned *bit)
{
	char buf[32];
	const char *t = trimmed(s, buf, sizeof(buf));

	for (size_t i = 0; t && i < n; i++)
		if (!strcasecmp(t, table[i].word)) {
			*bit = table[i].bit;
			return 0;
		}
	return -EINVAL;
}

int vf_parse_app_select(const char *s, unsigned *bit)
{
	static const struct word_bit words[] = {
		{ "SA", VF_APP_SA }, { "PM", VF_APP_PM },
		{ "UnmatchedServiceID", VF_APP_UNMATCHED_SID },
		{ "UnmatchedMGID", VF_APP_UNMATCHED_MGID },
	};

	return word_bit(words, sizeof(words) / sizeof(words[0]), s, bit);
}

int vf_parse_dg_select(const char *s, unsigned *bit)
{
	static const struct word_bit words[] = {
		{ "All", VF_DG_ALL }, { "Self", VF_DG_SELF },
		{ "SWE0", VF_DG_SWE0 }, { "AllMgmtAllowed", VF_DG_ALL_MGMT },
		{ "AllSMs", VF_DG_ALL_MGMT },
		{ "HFIDirectConnect", VF_DG_HFI_DIRECT }, { "TFIs", VF_DG_TFIS },
	};

	return word_bit(words, sizeof(words) / sizeof(words[0]), s, bit);
}

int vf_parse_node_type(const char *s, unsigned *bit)
{
	static const struct word_bit words[] = {
		{ "FI", VF_DG_TYPE_CA }, { "CA", VF_DG_TYPE_CA },
		{ "SW", VF_DG_TYPE_SW },
	};

	return word_bit(words, sizeof(words) / sizeof(words[0]), s, bit);
}
