// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * routing/vfjson.c: a NodeDescription's raw bytes always make a JSON
 * string that a strict reader takes, well-formed UTF-8 kept and every
 * other byte read as Latin-1 (U+00XX); numbers keep the text's precision.
 */
#include <errno.h>

#include "routing/vfjson.h"
#include "tests/unit/taptest.h"

/* s through vf_json_bytes, printed by json-c; malloc'ed. */
static char *printed(const char *s)
{
	struct json_object *o = vf_json_bytes(s);
	char *t = o ? strdup(json_object_to_json_string_ext(o,
				JSON_C_TO_STRING_PLAIN |
				JSON_C_TO_STRING_NOSLASHESCAPE)) : NULL;

	json_object_put(o);
	return t ? t : strdup("");
}

static void same(const char *raw, const char *want, const char *what)
{
	char *got = printed(raw);

	EQ_S(got, want, what);
	free(got);
}

static void test_bytes(void)
{
	same("cn0001 HCA-1", "\"cn0001 HCA-1\"", "ASCII as it is");
	same("a\"b\\c/d", "\"a\\\"b\\\\c/d\"",
	     "quote and backslash escaped, slash not");
	same("\t\n\x01\x1f", "\"\\t\\n\\u0001\\u001f\"",
	     "control characters escaped");
	same("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	     "\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
	     "UTF-8 of 2, 3 and 4 bytes kept");
	same("\xe9", "\"\xc3\xa9\"", "Latin-1 0xe9: U+00E9");
	same("\xff\xfe", "\"\xc3\xbf\xc3\xbe\"", "0xff 0xfe: U+00FF U+00FE");
	same("\x80x", "\"\xc2\x80x\"", "a stray continuation byte: U+0080");
	same("\xc0\xaf", "\"\xc3\x80\xc2\xaf\"",
	     "an overlong '/' (c0 af): two Latin-1 characters");
	same("\xe0\x80\xaf", "\"\xc3\xa0\xc2\x80\xc2\xaf\"",
	     "an overlong 3-byte form: byte by byte");
	same("\xed\xa0\x80", "\"\xc3\xad\xc2\xa0\xc2\x80\"",
	     "a UTF-16 surrogate (ed a0 80): byte by byte");
	same("\xf4\x90\x80\x80", "\"\xc3\xb4\xc2\x90\xc2\x80\xc2\x80\"",
	     "past U+10FFFF: byte by byte");
	same("\xe2\x82", "\"\xc3\xa2\xc2\x82\"",
	     "a sequence cut short (the 64-byte field's end)");
	same("\xe2\x82x", "\"\xc3\xa2\xc2\x82x\"",
	     "a sequence broken by ASCII");
	same(NULL, "\"\"", "NULL: empty string");
}

/* Every byte 1-255 in one string: Python's strict json reads it back. */
static void test_python(void)
{
	char raw[512];
	struct json_object *o;
	unsigned k = 0;
	FILE *p;
	int rc;

	for (unsigned b = 1; b < 256; b++)
		raw[k++] = (char)b;
	/* and the sequences above, whole */
	memcpy(raw + k, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 10);
	o = vf_json_bytes(raw);
	p = popen("python3 -c 'import json, sys; "
		  "s = json.loads(sys.stdin.buffer.read().decode(\"utf-8\")); "
		  "want = bytes(range(1, 256)).decode(\"latin-1\") + "
		  "\"\\u00e9\\u20ac\\U0001f600\"; "
		  "sys.exit(0 if s == want else 1)'", "w");
	if (!p) {
		OK(0, "python3 runs");
		json_object_put(o);
		return;
	}
	rc = vf_json_print(p, o, JSON_C_TO_STRING_PLAIN);
	OK(pclose(p) == 0 && !rc,
	   "bytes 1-255 and UTF-8: strict UTF-8 JSON, every byte back");
	json_object_put(o);
}

static void test_numbers(void)
{
	struct json_object *a = json_object_new_array();

	vf_json_push(a, vf_json_fixed(2.0 / 3, 4));
	vf_json_push(a, vf_json_sig(123456.0, 4));
	vf_json_push(a, vf_json_fixed(0.0 / 0.0, 4));
	vf_json_push(a, vf_json_sig(1.0 / 0.0, 4));
	vf_json_push(a, vf_json_hex(0x2c90300000011ull, 16));
	EQ_S(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN),
	     "[0.6667,1.235e+05,null,null,\"0x0002c90300000011\"]",
	     "%.4f, %.4g, NaN and infinity as null, hex strings");
	json_object_put(a);
	OK(vf_json_add(NULL, "k", json_object_new_int(1)) == -ENOMEM &&
	   vf_json_push(a = json_object_new_array(), NULL) == -ENOMEM,
	   "a NULL object or value is out of memory");
	json_object_put(a);
}

int main(void)
{
	test_bytes();
	test_python();
	test_numbers();
	return tap_done();
}
