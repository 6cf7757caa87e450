/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * What every JSON producer (the CLI's --json, the EM state file) adds to
 * json-c: strings from raw bytes that always print as valid JSON, numbers
 * with the precision the text output gives them, builders that notice
 * when memory runs out, and one way to print.
 */
#ifndef VF_VFJSON_H
#define VF_VFJSON_H

#include <stdint.h>
#include <stdio.h>

#include <json.h>

/*
 * A string object from raw bytes (a NodeDescription is 64 bytes from the
 * fabric, in no promised encoding).  json-c escapes quotes, backslashes
 * and control characters but copies bytes of 0x80 and up as they are, so
 * bytes that are not UTF-8 would make the output invalid JSON.  The rule:
 * each well-formed UTF-8 sequence is kept; every other byte 0xXX (stray
 * continuation, overlong form, surrogate, beyond U+10FFFF, cut short)
 * becomes U+00XX, its Latin-1 reading, so nothing is lost and a reader
 * of ASCII or Latin-1 NodeDescriptions sees what the host set.  NULL str
 * gives "".  NULL when out of memory.
 */
struct json_object *vf_json_bytes(const char *str);

/*
 * A number as the text output prints it: prec digits after the point
 * ("%.4f": vf_json_fixed) or prec significant digits ("%.4g":
 * vf_json_sig).  NaN and infinities, which JSON has no number for, print
 * as null.  NULL when out of memory.
 */
struct json_object *vf_json_fixed(double v, int prec);
struct json_object *vf_json_sig(double v, int prec);

/* The string "0x" and v in at least width hex digits ("0x%04x"). */
struct json_object *vf_json_hex(uint64_t v, int width);

/*
 * Add v to object o under key, or to array o: 0, or -ENOMEM when o or v
 * is NULL (out of memory earlier) or the add fails; v is released then.
 * A builder ORs the results and gives up once at the end.
 */
int vf_json_add(struct json_object *o, const char *key,
		struct json_object *v);
int vf_json_push(struct json_object *a, struct json_object *v);

/*
 * Print o to out with json-c's flags (JSON_C_TO_STRING_PLAIN, _PRETTY,
 * _SPACED; slashes are never escaped) and a newline: 0, or -ENOMEM when o
 * is NULL or cannot be printed, -EIO when out fails.
 */
int vf_json_print(FILE *out, struct json_object *o, int flags);

#endif /* VF_VFJSON_H */
