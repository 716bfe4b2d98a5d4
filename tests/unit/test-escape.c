// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for ksp_escape(): user IDs are hostile input. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libksp.h"
#include "harness.h"

static const unsigned int formats[] = {
	KSP_ESCAPE_TERMINAL, KSP_ESCAPE_JSON, KSP_ESCAPE_HTML, KSP_ESCAPE_DOT,
};
static const char *const format_names[] = { "terminal", "json", "html", "dot" };

#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

/* Decode one UTF-8 sequence strictly; 0 if invalid.  (Our own copy, so the
 * test does not trust the code under test.) */
static size_t utf8_next(const uint8_t *s, size_t len, uint32_t *cp)
{
	size_t n, i;
	uint32_t c;

	if (len == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) || (c >= 0xd800 && c <= 0xdfff) ||
	    c > 0x10ffff)
		return 0;
	*cp = c;
	return n;
}

/* Controls and the invisible characters that reorder or hide text. */
static bool is_dangerous(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x061c || c == 0x200b ||
	       c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0xfeff;
}

/* Remove the escaper's own markup for HTML ("<kbd>...</kbd>")
 * so that what remains must contain no '<' at all. */
static void strip_html_markup(char *s)
{
	static const char open[] = "<kbd>", close[] = "</kbd>";
	char *r = s, *w = s;

	while (*r) {
		if (strncmp(r, open, sizeof(open) - 1) == 0)
			r += sizeof(open) - 1;
		else if (strncmp(r, close, sizeof(close) - 1) == 0)
			r += sizeof(close) - 1;
		else
			*w++ = *r++;
	}
	*w = '\0';
}

/* The properties every output must have, whatever the input. */
static int check_safe(const char *out, unsigned int format)
{
	const uint8_t *s = (const uint8_t *)out;
	size_t len = strlen(out), i = 0;
	char *copy;

	while (i < len) {
		uint32_t c = 0;
		size_t n = utf8_next(s + i, len - i, &c);

		if (n == 0) {
			fprintf(stderr, "%s: invalid UTF-8 byte 0x%02X at %zu\n", format_names[format], s[i], i);
			return -1;
		}
		if (is_dangerous(c)) {
			fprintf(stderr, "%s: raw U+%04X at %zu\n", format_names[format], (unsigned)c, i);
			return -1;
		}
		i += n;
	}
	switch (format) {
	case KSP_ESCAPE_JSON:
	case KSP_ESCAPE_DOT:
		/* a '"' may only appear escaped; walk the string body */
		for (i = 0; i < len; i++) {
			if (out[i] == '\\') {
				if (i + 1 >= len) {
					fprintf(stderr, "%s: dangling backslash at the end\n", format_names[format]);
					return -1;
				}
				if (format == KSP_ESCAPE_JSON && !strchr("\"\\/bfnrtu", out[i + 1])) {
					fprintf(stderr, "json: bad escape \\%c\n", out[i + 1]);
					return -1;
				}
				i++;
			} else if (out[i] == '"') {
				fprintf(stderr, "%s: unescaped '\"' at %zu\n", format_names[format], i);
				return -1;
			}
		}
		break;
	case KSP_ESCAPE_HTML:
		copy = strdup(out);
		if (copy == NULL)
			return -1;
		strip_html_markup(copy);
		if (strpbrk(copy, "<>\"'") != NULL) {
			fprintf(stderr, "html: markup character survived: %s\n", strpbrk(copy, "<>\"'"));
			free(copy);
			return -1;
		}
		free(copy);
		break;
	default:
		break;
	}
	return 0;
}

/* Print a possibly hostile string with non-printable bytes as \xNN. */
static void dump(const char *label, const char *s)
{
	size_t n = 0;

	fprintf(stderr, "%s", label);
	for (; *s && n < 200; s++, n++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c < 0x7f)
			fputc(c, stderr);
		else
			fprintf(stderr, "\\x%02X", c);
	}
	fputc('\n', stderr);
}

/* Escape @text in @format; assert success, the safety properties; return the
 * output (caller frees) or NULL. */
static char *esc(const void *text, size_t len, unsigned int format)
{
	char *out = NULL;
	int r = ksp_escape(text, len, format, &out);

	if (r != 0 || out == NULL) {
		fprintf(stderr, "ksp_escape(%s) failed: %d\n", format_names[format], r);
		free(out);
		return NULL;
	}
	if (check_safe(out, format) < 0) {
		dump("  output was: ", out);
		free(out);
		return NULL;
	}
	return out;
}

/* Escape in all formats, compare with the expected strings (NULL: any). */
static int expect_all(const void *text, size_t len, const char *terminal, const char *json,
		      const char *html, const char *dot)
{
	const char *want[N_FORMATS] = { terminal, json, html, dot };

	for (size_t f = 0; f < N_FORMATS; f++) {
		char *out = esc(text, len, formats[f]);

		if (out == NULL)
			return -1;
		if (want[f] && strcmp(out, want[f]) != 0) {
			fprintf(stderr, "%s: mismatch\n", format_names[f]);
			dump("  got:  ", out);
			dump("  want: ", want[f]);
			free(out);
			return -1;
		}
		free(out);
	}
	return 0;
}

#define EXPECT_ALL(_lit, ...) expect_all((_lit), sizeof(_lit) - 1, __VA_ARGS__)

static int test_plain(void)
{
	TS_ASSERT(EXPECT_ALL("Alice Example <alice@example.org>", "Alice Example <alice@example.org>",
			     "Alice Example <alice@example.org>",
			     "Alice Example &lt;alice@example.org&gt;",
			     "Alice Example &#60;alice@example.org&#62;") == 0);
	/* valid non-ASCII UTF-8 passes through untouched */
	TS_ASSERT(EXPECT_ALL("J\xc3\xbcrgen M\xc3\xbcller \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\x91",
			     "J\xc3\xbcrgen M\xc3\xbcller \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\x91",
			     "J\xc3\xbcrgen M\xc3\xbcller \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\x91",
			     "J\xc3\xbcrgen M\xc3\xbcller \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\x91",
			     "J\xc3\xbcrgen M\xc3\xbcller \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\x91") == 0);
	return 0;
}
DEFINE_TEST(test_plain, "plain ASCII and valid UTF-8 survive unchanged (apart from markup)");

static int test_empty(void)
{
	char *out = NULL;

	TS_ASSERT(EXPECT_ALL("", "", "", "", "") == 0);
	/* NULL with length 0 is the empty string too */
	TS_ASSERT_INT_EQ(ksp_escape(NULL, 0, KSP_ESCAPE_HTML, &out), 0);
	TS_ASSERT(out != NULL);
	TS_ASSERT_STR_EQ(out, "");
	free(out);
	return 0;
}
DEFINE_TEST(test_empty, "empty input gives an empty, NUL-terminated string");

static int test_esc_byte(void)
{
	TS_ASSERT(EXPECT_ALL("a\x1b[31mred\x1b[0m\x1b]0;title\x07z", "a\\x1B[31mred\\x1B[0m\\x1B]0;title\\x07z",
			     "a\\u001b[31mred\\u001b[0m\\u001b]0;title\\u0007z", NULL,
			     "a\\x1B[31mred\\x1B[0m\\x1B]0;title\\x07z") == 0);
	/* C1 controls, encoded as UTF-8 (U+009B is a one-byte CSI) */
	TS_ASSERT(EXPECT_ALL("x\xc2\x9b" "2Jy\x7f", "x\\u{009B}2Jy\\x7F", "x\\u009b2Jy\\u007f", NULL, NULL) == 0);
	/* ... not shown like the invalid byte 0x9B */
	TS_ASSERT(EXPECT_ALL("x\x9b" "2J", "x\\x9B2J", "x\\ufffd2J", NULL, "x\\x9B2J") == 0);
	/* newlines, CR, tab: a user ID is one line */
	TS_ASSERT(EXPECT_ALL("a\nb\rc\td", "a\\x0Ab\\x0Dc\\x09d", "a\\u000ab\\u000dc\\u0009d", NULL,
			     "a\\x0Ab\\x0Dc\\x09d") == 0);
	return 0;
}
DEFINE_TEST(test_esc_byte, "ESC, BEL, DEL, C1 and line controls are escaped");

static int test_nul_inside(void)
{
	static const char in[] = "evil\0<script>hidden@example.org";
	char *out;

	/* the whole length is escaped, not just up to the NUL */
	TS_ASSERT(expect_all(in, sizeof(in) - 1, "evil\\x00<script>hidden@example.org",
			     "evil\\u0000<script>hidden@example.org",
			     NULL, "evil\\x00&#60;script&#62;hidden@example.org") == 0);
	out = esc(in, sizeof(in) - 1, KSP_ESCAPE_HTML);
	TS_ASSERT(out != NULL);
	TS_ASSERT(strstr(out, "hidden@example.org") != NULL);
	TS_ASSERT(strstr(out, "<script") == NULL);
	free(out);
	/* a lone NUL */
	TS_ASSERT(expect_all("\0", 1, "\\x00", "\\u0000", NULL, "\\x00") == 0);
	return 0;
}
DEFINE_TEST(test_nul_inside, "a NUL inside the text is escaped and does not truncate");

static int test_invalid_utf8(void)
{
	static const char *const bad[] = {
		"\xff", "\xfe\xff", "\x80", "\xc0\xaf",      /* overlong '/' */
		"\xe0\x80\xaf",                              /* overlong, 3 bytes */
		"\xed\xa0\x80",                              /* surrogate U+D800 */
		"\xf4\x90\x80\x80",                          /* > U+10FFFF */
		"\xe2\x80",                                  /* truncated U+202E */
		("\xe2\x80" "A"),                            /* truncated, then ASCII */
		"\xc3",                                      /* truncated at the end */
		"\xc2\x9b",                                  /* valid, but C1 CSI */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		TS_ASSERT(expect_all(bad[i], strlen(bad[i]), NULL, NULL, NULL, NULL) == 0);
	/* the exact forms for terminal and DOT: every bad byte as \xNN */
	TS_ASSERT(EXPECT_ALL("a\xff" "b\xc0\xaf" "c", "a\\xFFb\\xC0\\xAFc", NULL, NULL, "a\\xFFb\\xC0\\xAFc") == 0);
	TS_ASSERT(EXPECT_ALL("\xe2\x80" "A", "\\xE2\\x80A", NULL, NULL, "\\xE2\\x80A") == 0);
	/* JSON and HTML replace each bad byte by an escape, keeping the rest */
	{
		char *j = esc("a\xff" "b", 3, KSP_ESCAPE_JSON);
		char *h = esc("a\xff" "b", 3, KSP_ESCAPE_HTML);
		bool ok = j && h && j[0] == 'a' && strncmp(j + 1, "\\u", 2) == 0 && j[strlen(j) - 1] == 'b' &&
			  h[0] == 'a' && h[1] == '&' && h[strlen(h) - 1] == 'b';
		if (!ok)
			fprintf(stderr, "json \"%s\", html \"%s\"\n", j ? j : "(null)", h ? h : "(null)");
		free(j);
		free(h);
		TS_ASSERT(ok);
	}
	return 0;
}
DEFINE_TEST(test_invalid_utf8, "invalid UTF-8 (stray, overlong, surrogate, truncated) is escaped");

static int test_bidi(void)
{
	/* "Bob <bob@example.org>" that displays as something else */
	TS_ASSERT(EXPECT_ALL("Bob \xe2\x80\xae" "gro.elpmaxe@bob", "Bob \\u{202E}gro.elpmaxe@bob",
			     "Bob \\u202egro.elpmaxe@bob",
			     "Bob <kbd>[U+202E]</kbd>gro.elpmaxe@bob",
			     "Bob \\u{202E}gro.elpmaxe@bob") == 0);
	/* the other overrides, isolates, marks and invisible characters */
	TS_ASSERT(EXPECT_ALL("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x81\xa6\xe2\x81\xa7"
			     "\xe2\x81\xa8\xe2\x81\xa9\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c\xe2\x80\x8b\xef\xbb\xbf",
			     "\\u{202A}\\u{202B}\\u{202C}\\u{202D}\\u{2066}\\u{2067}\\u{2068}\\u{2069}"
			     "\\u{200E}\\u{200F}\\u{061C}\\u{200B}\\u{FEFF}",
			     NULL, NULL, NULL) == 0);
	return 0;
}
DEFINE_TEST(test_bidi, "RTL override U+202E and other bidi/invisible characters are escaped");

static int test_invisible(void)
{
	/* line and paragraph separators, soft hyphen, word joiner, an
	 * invisible operator, and tag characters ("TAG" in U+E0054 ...) */
	TS_ASSERT(EXPECT_ALL("a\xe2\x80\xa8" "b\xe2\x80\xa9" "c\xc2\xad" "d\xe2\x81\xa0" "e\xe2\x81\xa2"
			     "f\xf3\xa0\x81\x94\xf3\xa0\x81\x81\xf3\xa0\x81\x87\xf3\xa0\x81\xbf",
			     "a\\u{2028}b\\u{2029}c\\u{00AD}d\\u{2060}e\\u{2062}f\\u{E0054}\\u{E0041}\\u{E0047}\\u{E007F}",
			     "a\\u2028b\\u2029c\\u00add\\u2060e\\u2062f\\udb40\\udc54\\udb40\\udc41\\udb40\\udc47\\udb40\\udc7f",
			     NULL, NULL) == 0);
	/* still text: a tag character just past the block, a combining mark */
	TS_ASSERT(EXPECT_ALL("\xf3\xa0\x82\x80 e\xcc\x81", "\xf3\xa0\x82\x80 e\xcc\x81", NULL, NULL, NULL) == 0);
	return 0;
}
DEFINE_TEST(test_invisible, "U+2028/2029, soft hyphen, word joiner, tag characters are escaped");

static int test_attribute(void)
{
	/* an escaped value inside a quoted attribute of a custom template
	 * (title="..." or title='...') cannot close it: no quote at all in
	 * the HTML escape of a user ID, whatever it holds, the escaper's own
	 * markup included */
	static const char in[] = "x\" onmouseover=\"alert(1)\" y=' \xe2\x80\xae z \x1b[1m";
	char *h = esc(in, sizeof(in) - 1, KSP_ESCAPE_HTML);

	TS_ASSERT(h != NULL);
	TS_ASSERT(strchr(h, '"') == NULL);
	TS_ASSERT(strchr(h, '\'') == NULL);
	TS_ASSERT(strstr(h, "&quot;") != NULL && strstr(h, "&#39;") != NULL);
	free(h);
	return 0;
}
DEFINE_TEST(test_attribute, "the HTML escape never holds a quote (safe in quoted attributes)");

static int test_script(void)
{
	static const char in[] = "<script>alert('x&y')</script>\"><img src=x onerror=alert(1)>";
	char *h;

	TS_ASSERT(EXPECT_ALL("<script>alert(1)</script>", "<script>alert(1)</script>",
			     "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;",
			     "&#60;script&#62;alert(1)&#60;/script&#62;") == 0);
	h = esc(in, sizeof(in) - 1, KSP_ESCAPE_HTML);
	TS_ASSERT(h != NULL);
	/* no '<' of the input anywhere (the escaper adds no markup here) */
	TS_ASSERT(strchr(h, '<') == NULL);
	TS_ASSERT(strchr(h, '>') == NULL);
	TS_ASSERT(strchr(h, '"') == NULL);
	TS_ASSERT(strchr(h, '\'') == NULL);
	TS_ASSERT(strstr(h, "&amp;") != NULL);
	free(h);
	/* a control byte next to markup: the escaper's <span> is the only '<' */
	h = esc("<b>\x1b</b>", 8, KSP_ESCAPE_HTML);
	TS_ASSERT(h != NULL);
	TS_ASSERT(strstr(h, "<b>") == NULL && strstr(h, "</b>") == NULL);
	free(h);
	return 0;
}
DEFINE_TEST(test_script, "<script> and attribute breakouts are inert in HTML and DOT");

static int test_quotes_backslashes(void)
{
	TS_ASSERT(EXPECT_ALL("a\"b\\c'd", "a\"b\\\\c'd", "a\\\"b\\\\c'd", "a&quot;b\\c&#39;d",
			     "a\\\"b\\\\c'd") == 0);
	/* a trailing backslash must not escape the closing quote */
	TS_ASSERT(EXPECT_ALL("x\\", "x\\\\", "x\\\\", "x\\", "x\\\\") == 0);
	/* a pre-escaped sequence is not taken as an escape */
	TS_ASSERT(EXPECT_ALL("\\x1B\\u202e", "\\\\x1B\\\\u202e", "\\\\x1B\\\\u202e", "\\x1B\\u202e",
			     "\\\\x1B\\\\u202e") == 0);
	/* DOT record-label syntax */
	TS_ASSERT(EXPECT_ALL("{a|b}", "{a|b}", "{a|b}", "{a|b}", "&#123;a&#124;b&#125;") == 0);
	return 0;
}
DEFINE_TEST(test_quotes_backslashes, "quotes, apostrophes and backslashes");

static int test_big_uid(void)
{
	static const char *const pieces[] = {
		"Mallory ", "\x1b[2J", "\xe2\x80\xae", "<script>", "\"", "\\", "'", "&", "\xff",
		"\0", "\xc3\xa9", "\xe2\x81\xa6", "\r\n", "{|}", "\xf0\x9f\x94\x91", "\xe2\x80",
	};
	static const size_t piece_len[] = { 8, 4, 3, 8, 1, 1, 1, 1, 1, 1, 2, 3, 2, 3, 4, 2 };
	const size_t size = 64 * 1024;
	uint8_t *uid = malloc(size);
	size_t len = 0, k = 0;
	int ok = 0;

	TS_ASSERT(uid != NULL);
	while (len < size) {
		size_t i = k++ % (sizeof(pieces) / sizeof(pieces[0])), n = piece_len[i];
		if (len + n > size)
			n = size - len;
		memcpy(uid + len, pieces[i], n);
		len += n;
	}
	for (size_t f = 0; f < N_FORMATS; f++) {
		char *out = esc(uid, len, formats[f]);
		if (out == NULL)
			break;
		/* the text is kept, not truncated */
		if (strlen(out) >= len / 2 && strstr(out + strlen(out) - 200, "Mallory") != NULL)
			ok++;
		else
			fprintf(stderr, "%s: output of %zu bytes looks truncated\n", format_names[f], strlen(out));
		free(out);
	}
	free(uid);
	TS_ASSERT_INT_EQ(ok, N_FORMATS);

	/* 64 KB of a single hostile character, the worst case for expansion */
	uid = malloc(size);
	TS_ASSERT(uid != NULL);
	for (len = 0; len + 3 <= size; len += 3)
		memcpy(uid + len, "\xe2\x80\xae", 3);
	ok = 0;
	for (size_t f = 0; f < N_FORMATS; f++) {
		char *out = esc(uid, len, formats[f]);
		if (out != NULL)
			ok++;
		free(out);
	}
	free(uid);
	TS_ASSERT_INT_EQ(ok, N_FORMATS);
	return 0;
}
DEFINE_TEST(test_big_uid, "a 64 KB hostile user ID in every format");

static int test_random_bytes(void)
{
	uint8_t buf[512];
	uint32_t x = 0x12345678;

	for (int round = 0; round < 2000; round++) {
		/* 1..511 bytes: the empty string has its own test */
		size_t len = 1 + (size_t)(round % (int)(sizeof(buf) - 1));
		for (size_t i = 0; i < len; i++) {
			/* xorshift32; bias towards interesting bytes */
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			buf[i] = (x & 0x100) ? (uint8_t)x : (uint8_t)"\x1b\0\x7f\xe2\x80\xae<>\"\\&'"[x % 12];
		}
		for (size_t f = 0; f < N_FORMATS; f++) {
			char *out = esc(buf, len, formats[f]);
			if (out == NULL) {
				fprintf(stderr, "round %d failed\n", round);
				TS_ASSERT(out != NULL);
			}
			free(out);
		}
	}
	return 0;
}
DEFINE_TEST(test_random_bytes, "random bytes: no control, bidi or markup survives in any format");

static int test_errors(void)
{
	char *out = (char *)"untouched";

	TS_ASSERT_INT_EQ(ksp_escape("x", 1, 4, &out), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_escape("x", 1, 1000, &out), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_escape(NULL, 1, KSP_ESCAPE_JSON, &out), -EINVAL);
	TS_ASSERT_STR_EQ(out, "untouched");
	TS_ASSERT_INT_EQ(ksp_escape("x", 1, KSP_ESCAPE_JSON, NULL), -EINVAL);
	return 0;
}
DEFINE_TEST(test_errors, "bad format, NULL text or ret: -EINVAL, output untouched");
