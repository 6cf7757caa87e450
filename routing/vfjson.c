// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vfjson.h"

/*
 * Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), 0 when there is none.
 */
static unsigned utf8_len(const unsigned char *s)
{
	unsigned n;
	unsigned char lo = 0x80, hi = 0xbf;	/* the second byte's range */

	if (*s < 0x80)
		return 1;
	if (*s >= 0xc2 && *s <= 0xdf)
		n = 2;
	else if (*s >= 0xe0 && *s <= 0xef)
		n = 3;
	else if (*s >= 0xf0 && *s <= 0xf4)
		n = 4;
	else
		return 0;
	if (*s == 0xe0)
		lo = 0xa0;
	else if (*s == 0xed)
		hi = 0x9f;
	else if (*s == 0xf0)
		lo = 0x90;
	else if (*s == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (unsigned i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

struct json_object *vf_json_bytes(const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t len = strlen((const char *)s), k = 0;
	struct json_object *o;
	char *buf;

	/* at worst every byte takes two */
	buf = malloc(2 * len + 1);
	if (!buf)
		return NULL;
	while (*s) {
		unsigned n = utf8_len(s);

		if (n) {
			memcpy(buf + k, s, n);
			k += n;
			s += n;
		} else {
			/* U+00XX in UTF-8: 0xc2 or 0xc3, then 10xxxxxx */
			buf[k++] = (char)(0xc0 | *s >> 6);
			buf[k++] = (char)(0x80 | (*s & 0x3f));
			s++;
		}
	}
	o = json_object_new_string_len(buf, (int)k);
	free(buf);
	return o;
}

/* v as "%.*f" (fixed) or "%.*g"; NaN and infinities as null */
static struct json_object *number(double v, bool fixed, int prec)
{
	char text[64];

	/* json-c's null is a NULL pointer, which vf_json_add() takes for
	 * no memory: a number object that prints as null instead */
	if (!isfinite(v))
		snprintf(text, sizeof(text), "null");
	else if (fixed)
		snprintf(text, sizeof(text), "%.*f", prec, v);
	else
		snprintf(text, sizeof(text), "%.*g", prec, v);
	return json_object_new_double_s(v, text);
}

struct json_object *vf_json_fixed(double v, int prec)
{
	return number(v, true, prec);
}

struct json_object *vf_json_sig(double v, int prec)
{
	return number(v, false, prec);
}

struct json_object *vf_json_hex(uint64_t v, int width)
{
	char text[24];

	snprintf(text, sizeof(text), "0x%0*" PRIx64, width, v);
	return json_object_new_string(text);
}

int vf_json_add(struct json_object *o, const char *key,
		struct json_object *v)
{
	if (o && v && !json_object_object_add(o, key, v))
		return 0;
	json_object_put(v);
	return -ENOMEM;
}

int vf_json_push(struct json_object *a, struct json_object *v)
{
	if (a && v && !json_object_array_add(a, v))
		return 0;
	json_object_put(v);
	return -ENOMEM;
}

int vf_json_print(FILE *out, struct json_object *o, int flags)
{
	const char *text = o ? json_object_to_json_string_ext(o, flags |
				JSON_C_TO_STRING_NOSLASHESCAPE) : NULL;

	if (!text)
		return -ENOMEM;
	if (fputs(text, out) < 0 || fputc('\n', out) < 0)
		return -EIO;
	return 0;
}
