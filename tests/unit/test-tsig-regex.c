// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for the bounded matcher of trust-signature regular expressions
 * (src/lib/trust/tsig-regex.c): on the subset where RFC 4880 (Sequoia),
 * GnuPG and POSIX agree it answers as regcomp()/regexec() do; beyond it a
 * regex matches nothing; the hostile ones finish at once. */
#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/trust/tsig-regex.h"
#include "harness.h"

static int one(const char *re, enum tsig_dialect d, const char *s)
{
	struct tsig_regex *rx;
	const char *why;
	size_t bad, at;
	int r;

	if (tsig_regex_compile(&re, 1, d, &rx, &bad, &why, &at) < 0)
		return -ENOMEM;
	r = tsig_regex_match(rx, s, strlen(s));
	tsig_regex_free(rx);
	return r;
}

static bool beyond(const char *re, enum tsig_dialect d)
{
	struct tsig_regex *rx;
	const char *why;
	size_t bad, at;

	if (tsig_regex_compile(&re, 1, d, &rx, &bad, &why, &at) < 0)
		return false;
	tsig_regex_free(rx);
	return bad == 1 && why != NULL;
}

/* valid in the subset (ASCII, no '{', no ']' outside a class, an
 * escape only of punctuation, ordered ranges, no empty alternative) */
static const char *const corpus_re[] = {
	"", "a", "abc", "a|b", "ab|cd|ef", "(a|b)c", "a*", "a+", "a?", "(ab)*c", "(ab)+c", "(a|bc)?d",
	"^a", "a$", "^abc$", "^$", "^(a|b)*$", "x^", "$x", "(^a|b$)", ".", "a.c", ".*", "^.*$", "^.+$",
	"[abc]", "[a-c]", "[^a-c]", "[]a]", "[^]a]", "[a-]", "[-a]", "[.*+?]", "[a-cx-z]+", "[(|)]",
	"\\.", "\\*", "\\(a\\)", "a\\|b", "\\$", "\\^", "\\[", "\\\\",
	"<[^>]+[@.]example\\.com>$", "<[^>]+[@.]example\\.(com|org)>$", "@example\\.com>$",
	"(a*)*b", "(a|a)*b", "((a*)*)*$", "(a+)+$", "(.*)(.*)(.*)x", "a(b(c(d(e)?)?)?)?f",
	"^(a|b|c|d)+(e|f)*$", "(x+x+)+y", "a-b", "-+",
};

static const char *const corpus_s[] = {
	"", "a", "b", "c", "ab", "abc", "abcd", "cd", "ef", "x", "xyz", "aaa", "aaab", "ababc", "bc", "bcd",
	"d", "(a)", "a|b", "a.c", "a*c", "$", "^", "[", "\\", "]", "]a", "-", "a-", ".*+?", "(|)",
	"Alice <alice@example.com>", "Bob <bob@mail.example.com>", "Eve <eve@example.com.evil>",
	"Carol <carol@example.org>", "Dave <dave@examplexcom>", "<@example.com>", "abcdef", "abdf",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	"abbacdfe", "eee", "a-b", "x--y", "[:]", "::[", "x^", "$x", "xyx", "zz",
};

static int test_agrees_with_posix(void)
{
	size_t n_re = sizeof(corpus_re) / sizeof(corpus_re[0]), n_s = sizeof(corpus_s) / sizeof(corpus_s[0]);
	size_t checked = 0, matched = 0;

	for (size_t i = 0; i < n_re; i++) {
		regex_t px;
		TS_ASSERT(!beyond(corpus_re[i], TSIG_SEQUOIA));
		if (regcomp(&px, corpus_re[i], REG_EXTENDED | REG_NOSUB) != 0) {
			fprintf(stderr, "regcomp refuses corpus regex '%s'\n", corpus_re[i]);
			return -1;
		}
		for (size_t j = 0; j < n_s; j++) {
			int want = regexec(&px, corpus_s[j], 0, NULL, 0) == 0;
			int got = one(corpus_re[i], TSIG_SEQUOIA, corpus_s[j]);
			if (got != want) {
				fprintf(stderr, "'%s' on '%s': regexec %d, tsig-regex %d\n", corpus_re[i], corpus_s[j],
					want, got);
				regfree(&px);
				return -1;
			}
			checked++;
			matched += (size_t)want;
		}
		regfree(&px);
	}
	/* the corpus says something: some match, some do not */
	TS_ASSERT(matched > checked / 10 && matched < checked - checked / 10);
	return 0;
}
DEFINE_TEST(test_agrees_with_posix, "on the common subset the matcher answers as regexec()");

/* GnuPG's sanitize_regexp() (g10/trustdb.c), written again here for the
 * comparison: its output is what gpg hands regcomp(REG_ICASE|REG_EXTENDED). */
static void gnupg_sanitize(const char *old, char *out)
{
	size_t start = 0, len = strlen(old), idx = 0;
	bool escaped = false, framed = false;

	if (len >= 12 && strncmp(old, "<[^>]+[@.]", 10) == 0 && old[len - 2] == '>' && old[len - 1] == '$') {
		memcpy(out, "<[^>]+[@.]", 10);
		idx = start = 10;
		len -= 2;
		framed = true;
	}
	for (; start < len; start++) {
		if (!escaped && old[start] == '\\')
			escaped = true;
		else if (!escaped && strchr("^[$()|*+?{", old[start]))
			out[idx++] = '\\';
		else
			escaped = false;
		out[idx++] = old[start];
	}
	if (framed) {
		out[idx++] = '>';
		out[idx++] = '$';
	}
	out[idx] = '\0';
}

static int test_gnupg_agrees_with_gpg(void)
{
	static const char *const res[] = {
		"<[^>]+[@.]example\\.com>$", "<[^>]+[@.]EXAMPLE\\.com>$", "example.com", "example\\.com",
		"a|b", "(a)*", "^alice", "alice$", "[abc]", "{1,2}", "<[^>]+[@.]ex(a|b)\\.com>$", "a\\*b", "\\\\",
		"@example.org>", "<[^>]+[@.]x>$", "bob]",
	};
	static const char *const ss[] = {
		"Alice <alice@example.com>", "ALICE <ALICE@EXAMPLE.COM>", "bob <bob@sub.example.com>",
		"x <x@examplexcom>", "a|b", "(a)*", "^alice", "alice$", "[abc]", "{1,2}", "y <y@ex(a|b).com>",
		"a*b", "\\", "me <me@example.org>", "q <q@x>", "bob]", "abc", "alice", "z <z@example.com.evil>",
	};
	size_t checked = 0, matched = 0;

	for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
		char san[256];
		regex_t px;
		gnupg_sanitize(res[i], san);
		TS_ASSERT(regcomp(&px, san, REG_ICASE | REG_EXTENDED | REG_NOSUB) == 0);
		TS_ASSERT(!beyond(res[i], TSIG_GNUPG));
		for (size_t j = 0; j < sizeof(ss) / sizeof(ss[0]); j++) {
			int want = regexec(&px, ss[j], 0, NULL, 0) == 0;
			int got = one(res[i], TSIG_GNUPG, ss[j]);
			if (want != got) {
				fprintf(stderr, "gnupg '%s' on '%s': regexec %d, tsig-regex %d\n", res[i], ss[j], want, got);
				regfree(&px);
				return -1;
			}
			checked++;
			matched += (size_t)want;
		}
		regfree(&px);
	}
	TS_ASSERT(matched > 10 && matched < checked - 10);
	return 0;
}
DEFINE_TEST(test_gnupg_agrees_with_gpg, "GnuPG's dialect answers as gpg's sanitized regcomp(REG_ICASE)");

static int test_sequoia_rules(void)
{
	/* RFC 4880 has no counted repetition and no back-references: '{'
	 * and an escaped digit are literals for Sequoia */
	TS_ASSERT_INT_EQ(one("a{2}", TSIG_SEQUOIA, "aa"), 0);
	TS_ASSERT_INT_EQ(one("a{2}", TSIG_SEQUOIA, "a{2}"), 1);
	TS_ASSERT_INT_EQ(one("(a)\\1", TSIG_SEQUOIA, "a1"), 1);
	TS_ASSERT_INT_EQ(one("(a)\\1", TSIG_SEQUOIA, "aa"), 0);
	/* what Sequoia's grammar refuses matches nothing */
	static const char *const bad[] = { "a**", "*a", "a|*", "(a", "a)", "[a", "[]", "[^]", "a]", "\\",
					   "(((((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))))" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TS_ASSERT(beyond(bad[i], TSIG_SEQUOIA));
		TS_ASSERT_INT_EQ(one(bad[i], TSIG_SEQUOIA, "a"), 0);
		TS_ASSERT_INT_EQ(one(bad[i], TSIG_SEQUOIA, bad[i]), 0);
	}
	/* code points, not bytes; a reversed range is a range */
	TS_ASSERT_INT_EQ(one("^.$", TSIG_SEQUOIA, "\xc3\xa9"), 1);
	TS_ASSERT_INT_EQ(one("^[\xc3\xa0-\xc3\xbf]+$", TSIG_SEQUOIA, "\xc3\xa9\xc3\xa8"), 1);
	TS_ASSERT_INT_EQ(one("^[z-a]$", TSIG_SEQUOIA, "m"), 1);
	/* a user ID that is not UTF-8 or holds a control character: no */
	TS_ASSERT_INT_EQ(one("a", TSIG_SEQUOIA, "a\xff"), 0);
	TS_ASSERT_INT_EQ(one("a", TSIG_SEQUOIA, "a\n"), 0);
	TS_ASSERT_INT_EQ(one("a", TSIG_SEQUOIA, "a\xc2\x85"), 0);
	TS_ASSERT(beyond("\xff", TSIG_SEQUOIA));
	/* case matters for Sequoia, not for GnuPG */
	TS_ASSERT_INT_EQ(one("<[^>]+[@.]example\\.com>$", TSIG_SEQUOIA, "A <a@EXAMPLE.com>"), 0);
	TS_ASSERT_INT_EQ(one("<[^>]+[@.]example\\.com>$", TSIG_GNUPG, "A <a@EXAMPLE.com>"), 1);
	/* GnuPG: glibc's operators behind a backslash are beyond the subset */
	TS_ASSERT(beyond("\\w+", TSIG_GNUPG));
	TS_ASSERT(beyond("(a)\\1", TSIG_GNUPG));
	TS_ASSERT(beyond("<[^>]+[@.]a\\>$", TSIG_GNUPG));
	/* a set: one bad one does not spoil the good one */
	{
		const char *set[] = { "a**", "^b" };
		struct tsig_regex *rx;
		const char *why;
		size_t nbad, at;
		TS_ASSERT(tsig_regex_compile(set, 2, TSIG_SEQUOIA, &rx, &nbad, &why, &at) == 0);
		TS_ASSERT_INT_EQ((int)nbad, 1);
		TS_ASSERT_INT_EQ((int)at, 2);
		TS_ASSERT_INT_EQ(tsig_regex_match(rx, "bob", 3), 1);
		TS_ASSERT_INT_EQ(tsig_regex_match(rx, "aab", 3), 0);
		tsig_regex_free(rx);
	}
	return 0;
}
DEFINE_TEST(test_sequoia_rules, "Sequoia's reading of RFC 4880: literals, refusals, code points, sanitizing");

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int test_hostile(void)
{
	static const char *const res[] = {
		"^(.*)(.*)(.*)(.*)(.*)(.*)(.*)\\1\\2\\3\\4\\5\\6\\7$",
		"((((a{1,40}){1,40}){1,40}){1,40})",
		"(.*){1,32000}(.*){1,32000}(.*){1,32000}x",
		"^(a*)*(a*)*(a*)*(a*)*(a*)*(a*)*(a*)*(a*)*$",
		"^(a|a|a|aa|aaa)*(a|aa)*(a+)+b$",
		"(x+x+)+y",
	};
	char big[4096];
	double t0 = now();

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++)
		for (int d = 0; d < 2; d++) {
			int r = one(res[i], d ? TSIG_GNUPG : TSIG_SEQUOIA, big);
			TS_ASSERT(r == 0 || r == 1 || r == -E2BIG);
			r = one(res[i], d ? TSIG_GNUPG : TSIG_SEQUOIA, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaax");
			TS_ASSERT(r == 0 || r == 1);
		}
	/* the back-reference one is only literal text for Sequoia */
	TS_ASSERT_INT_EQ(one(res[0], TSIG_SEQUOIA, "abab"), 0);
	TS_ASSERT_INT_EQ(one(res[0], TSIG_SEQUOIA, "1234567"), 1);
	/* the longest regex allowed, against a long user ID: still bounded */
	{
		char re[TSIG_REGEX_MAX_LEN + 2];
		for (size_t k = 0; k < TSIG_REGEX_MAX_LEN; k += 4)
			memcpy(re + k, "(a*)", 4);
		re[TSIG_REGEX_MAX_LEN] = '\0';
		TS_ASSERT(!beyond(re, TSIG_SEQUOIA) || TSIG_REGEX_MAX_NEST < 1);
		TS_ASSERT(one(re, TSIG_SEQUOIA, big) != -ENOMEM);
		re[TSIG_REGEX_MAX_LEN] = 'a';
		re[TSIG_REGEX_MAX_LEN + 1] = '\0';
		TS_ASSERT(beyond(re, TSIG_SEQUOIA));
	}
	fprintf(stderr, "hostile regexes: %.3f s\n", now() - t0);
	TS_ASSERT(now() - t0 < 5.0); /* ms in fact; generous for valgrind */
	return 0;
}
DEFINE_TEST(test_hostile, "the hostile regexes of issue 34 and worse finish at once, without a crash");
