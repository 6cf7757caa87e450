// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include "jsonout.h"

/* Length of the valid UTF-8 sequence at s, 0 when it is not one. */
static unsigned utf8_len(const unsigned char *s)
{
	unsigned n = *s >= 0xf0 && *s <= 0xf4 ? 4 :
		     *s >= 0xe0 ? 3 : *s >= 0xc2 && *s <= 0xdf ? 2 : 0;

	if (*s > 0xf4)
		return 0;
	for (unsigned i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * NodeDescriptions are raw bytes: quote and control characters are escaped
 * and bytes that are not UTF-8 become \u00XX, so the output always parses.
 */
void vf_json_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	while (*s) {
		unsigned n = *s >= 0x80 ? utf8_len(s) : 1;

		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s < 0x20 || !n)
			fprintf(out, "\\u%04x", *s);
		else
			fwrite(s, 1, n, out);
		s += n ? n : 1;
	}
	fputc('"', out);
}
