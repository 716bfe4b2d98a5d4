// SPDX-License-Identifier: LGPL-2.1-or-later
/* A user ID is hostile input: every output format escapes it here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/libksp-private.h"
#include "shared/strbuf.h"

/* Decode one UTF-8 sequence; returns its length, or 0 if invalid. */
size_t ksp_utf8_decode(const uint8_t *s, size_t len, uint32_t *cp)
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
static bool dangerous(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0xad || c == 0x061c || c == 0x200b ||
	       (c >= 0x200e && c <= 0x200f) || c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2060 && c <= 0x2064) || (c >= 0x2066 && c <= 0x2069) || c == 0xfeff ||
	       (c >= 0xfff9 && c <= 0xfffb) || (c >= 0xe0000 && c <= 0xe007f);
}

KSP_EXPORT int ksp_escape(const void *text, size_t len, unsigned int format, char **ret)
{
	const uint8_t *s = text;
	struct strbuf sb;
	size_t i = 0;

	if ((text == NULL && len > 0) || ret == NULL || format > KSP_ESCAPE_DOT)
		return -EINVAL;
	strbuf_init(&sb);
	strbuf_reserve(&sb, len + 8);
	while (i < len) {
		uint32_t c = 0;
		size_t n = ksp_utf8_decode(s + i, len - i, &c);

		if (n == 0) { /* invalid byte */
			switch (format) {
			case KSP_ESCAPE_TERMINAL:
			case KSP_ESCAPE_DOT:
				strbuf_addf(&sb, "\\x%02X", s[i]);
				break;
			case KSP_ESCAPE_JSON:
				strbuf_addstr(&sb, "\\ufffd");
				break;
			case KSP_ESCAPE_HTML:
				strbuf_addstr(&sb, "&#xFFFD;");
				break;
			}
			i++;
			continue;
		}
		if (dangerous(c)) {
			switch (format) {
			case KSP_ESCAPE_TERMINAL:
			case KSP_ESCAPE_DOT:
				/* \xNN is a byte: an ASCII control is that byte, a
				 * C1 control (U+0080..U+009F, two bytes) is a code
				 * point like the others, so that it is not shown as
				 * the invalid byte of the same value */
				if (c < 0x80)
					strbuf_addf(&sb, "\\x%02X", (unsigned)c);
				else
					strbuf_addf(&sb, "\\u{%04X}", (unsigned)c);
				break;
			case KSP_ESCAPE_JSON:
				strbuf_addf(&sb, "\\u%04x", (unsigned)c);
				break;
			case KSP_ESCAPE_HTML:
				/* visible, inert text: an entity would still reorder.
				 * No quote in it: inside a double- or single-quoted
				 * attribute value of a template it stays text */
				strbuf_addf(&sb, "<kbd>[U+%04X]</kbd>", (unsigned)c);
				break;
			}
			i += n;
			continue;
		}
		switch (format) {
		case KSP_ESCAPE_TERMINAL:
			if (c == '\\')
				strbuf_addstr(&sb, "\\\\");
			else
				strbuf_add(&sb, s + i, n);
			break;
		case KSP_ESCAPE_JSON:
		case KSP_ESCAPE_DOT:
			if (c == '"' || c == '\\') {
				strbuf_addch(&sb, '\\');
				strbuf_addch(&sb, (char)c);
			} else if (format == KSP_ESCAPE_DOT && (c == '<' || c == '>' || c == '{' || c == '}' || c == '|')) {
				/* keep record/HTML-like label syntax inert */
				strbuf_addf(&sb, "&#%u;", (unsigned)c);
			} else {
				strbuf_add(&sb, s + i, n);
			}
			break;
		case KSP_ESCAPE_HTML:
			switch (c) {
			case '&': strbuf_addstr(&sb, "&amp;"); break;
			case '<': strbuf_addstr(&sb, "&lt;"); break;
			case '>': strbuf_addstr(&sb, "&gt;"); break;
			case '"': strbuf_addstr(&sb, "&quot;"); break;
			case '\'': strbuf_addstr(&sb, "&#39;"); break;
			default: strbuf_add(&sb, s + i, n); break;
			}
			break;
		}
		i += n;
	}
	*ret = strbuf_steal(&sb);
	return *ret ? 0 : -ENOMEM;
}
