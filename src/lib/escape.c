// SPDX-License-Identifier: LGPL-2.1-or-later
/* A user ID is hostile input: every output format escapes it here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/libksp-private.h"
#include "shared/strbuf.h"
#include "shared/utf8.h"


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
		size_t n = utf8_decode(s + i, len - i, &c);

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
		if (utf8_unsafe(c)) {
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
				/* beyond the BMP (the tag characters) as a
				 * surrogate pair: \u takes four hex digits */
				if (c > 0xffff)
					strbuf_addf(&sb, "\\u%04x\\u%04x", 0xd800 + ((c - 0x10000) >> 10),
						    0xdc00 + ((c - 0x10000) & 0x3ff));
				else
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
