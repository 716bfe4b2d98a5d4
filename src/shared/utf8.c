// SPDX-License-Identifier: LGPL-2.1-or-later
/* UTF-8 for the whole tree: the library's escaper, the graph labels and the
 * CLI's stderr filter decode and judge text with these two, so that what
 * counts as unsafe is written once. */
#include "shared/utf8.h"

/* Decode one UTF-8 sequence; returns its length, or 0 if invalid. */
size_t utf8_decode(const uint8_t *s, size_t len, uint32_t *cp)
{
	uint32_t c;
	size_t n, i;

	if (len == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* overlong, surrogates, beyond Unicode */
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return n;
}

/* Code points that must never reach an output raw: controls, line and
 * paragraph separators (U+2028/2029 end a line in JavaScript and some
 * terminals), and the invisible formatting characters that reorder or hide
 * text: soft hyphen, bidi marks and overrides, zero-width space, word
 * joiner and invisible operators, BOM, interlinear annotation, and the tag
 * characters (U+E0000..U+E007F, invisible ASCII look-alikes). */
bool utf8_unsafe(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0xad || c == 0x061c || c == 0x200b ||
	       (c >= 0x200e && c <= 0x200f) || c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2060 && c <= 0x2064) || (c >= 0x2066 && c <= 0x2069) || c == 0xfeff ||
	       (c >= 0xfff9 && c <= 0xfffb) || (c >= 0xe0000 && c <= 0xe007f);
}
