// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for src/lib/party/mail-template.c: the template syntax over
 * any names, its errors, and header encoding of hostile text. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/libksp-private.h"
#include "lib/party/mail-template.h"
#include "harness.h"

static int render(const char *tmpl, const struct mt_var *vars, size_t n, char **subj, char **body)
{
	struct ksp_ctx *ctx = NULL;
	struct strbuf s, b;
	int r;

	if (ksp_new(&ctx) < 0)
		return -ENOMEM;
	strbuf_init(&s);
	strbuf_init(&b);
	r = ksp_mail_template_render(ctx, "t.txt", tmpl, strlen(tmpl), vars, n, &s, &b);
	*subj = strbuf_steal(&s);
	*body = strbuf_steal(&b);
	ksp_unref(ctx);
	return r;
}

static int test_render(void)
{
	const struct mt_var uids[] = {
		{ .name = "uid", .text = "A <a@example.org>" }, { .name = "certified", .truth = true },
		{ .name = "uid", .text = "B \x1b[31m\n" }, { .name = "certified", .truth = false },
	};
	const struct mt_var vars[] = {
		{ .name = "name", .text = "Zoë" },
		{ .name = "empty", .text = "" },
		{ .name = "yes", .truth = true },
		{ .name = "uids", .items = uids, .n_items = 2, .n_fields = 2, .is_list = true },
	};
	char *s = NULL, *b = NULL;

	TS_ASSERT_INT_EQ(render("{{! a comment\n over lines }}\nSubject: Hi {{name}}\n\n"
				"{{#uids}}\n* {{uid}}{{^certified}} (before){{/certified}}\n{{/uids}}\n"
				"{{#empty}}never{{/empty}}{{^empty}}empty{{/empty}}\n{{#yes}}\nyes\n{{/yes}}\n",
				vars, 4, &s, &b), 0);
	TS_ASSERT_STR_EQ(s, "Hi Zoë");
	/* values escaped (ESC, newline), standalone section lines dropped */
	TS_ASSERT_STR_EQ(b, "* A <a@example.org>\n* B \\x1B[31m\\x0A (before)\nempty\nyes\n");
	free(s);
	free(b);
	return 0;
}
DEFINE_TEST(test_render, "mail templates: values escaped, lists, truth values, standalone lines");

static int test_errors(void)
{
	const struct mt_var vars[] = { { .name = "x", .text = "1" } };
	char *s = NULL, *b = NULL;

	TS_ASSERT_INT_EQ(render("Subject: {{y}}\n\n", vars, 1, &s, &b), -EINVAL);
	free(s), free(b);
	TS_ASSERT_INT_EQ(render("Subject: {{{x}}}\n\n", vars, 1, &s, &b), -EINVAL);
	free(s), free(b);
	TS_ASSERT_INT_EQ(render("Subject: {{#x}}\n\n", vars, 1, &s, &b), -EINVAL);
	free(s), free(b);
	TS_ASSERT_INT_EQ(render("Subject: {{/x}}\n\n", vars, 1, &s, &b), -EINVAL);
	free(s), free(b);
	TS_ASSERT_INT_EQ(render("Subject: {{x\n\n", vars, 1, &s, &b), -EINVAL);
	free(s), free(b);
	TS_ASSERT_INT_EQ(render("no subject\n\nbody\n", vars, 1, &s, &b), -EINVAL);
	free(s), free(b);
	/* the subject is one line: a value cannot add a header field */
	const struct mt_var evil[] = { { .name = "x", .text = "a\r\nBcc: all@example.net" } };
	TS_ASSERT_INT_EQ(render("Subject: {{x}}\n\nb\n", evil, 1, &s, &b), 0);
	TS_ASSERT(strchr(s, '\n') == NULL && strchr(s, '\r') == NULL);
	free(s), free(b);
	return 0;
}
DEFINE_TEST(test_errors, "mail templates: unknown names, unescaped output, unbalanced sections, no subject");

static int test_header(void)
{
	struct strbuf sb;

	strbuf_init(&sb);
	ksp_mail_header_text(&sb, "Ann Signer", true);
	TS_ASSERT_STR_EQ(strbuf_str(&sb), "Ann Signer");
	strbuf_release(&sb);
	/* specials in a display name, or anything not printable ASCII: encoded */
	strbuf_init(&sb);
	ksp_mail_header_text(&sb, "Eve <x@y>", true);
	TS_ASSERT_STR_EQ(strbuf_str(&sb), "=?UTF-8?B?RXZlIDx4QHk+?=");
	strbuf_release(&sb);
	strbuf_init(&sb);
	ksp_mail_header_text(&sb, "Evil\r\nBcc: all@example.net", false);
	TS_ASSERT(strstr(strbuf_str(&sb), "\nBcc") == NULL && strchr(strbuf_str(&sb), '\r') == NULL);
	TS_ASSERT(strncmp(strbuf_str(&sb), "=?UTF-8?B?", 10) == 0);
	strbuf_release(&sb);
	/* long text: folded encoded words of at most 75 characters, cut
	 * between UTF-8 sequences */
	strbuf_init(&sb);
	ksp_mail_header_text(&sb, "Ελληνικά Ελληνικά Ελληνικά Ελληνικά Ελληνικά Ελληνικά", false);
	char *copy = strdup(strbuf_str(&sb)), *save = NULL;
	size_t words = 0;
	TS_ASSERT(copy != NULL);
	for (char *w = strtok_r(copy, "\n", &save); w; w = strtok_r(NULL, "\n", &save)) {
		if (words)
			TS_ASSERT(*w++ == ' ');
		TS_ASSERT(strlen(w) <= 75);
		TS_ASSERT(strncmp(w, "=?UTF-8?B?", 10) == 0 && strcmp(w + strlen(w) - 2, "?=") == 0);
		words++;
	}
	free(copy);
	TS_ASSERT(words >= 2);
	strbuf_release(&sb);
	/* "=?" in plain text would be read as an encoded word: encoded */
	strbuf_init(&sb);
	ksp_mail_header_text(&sb, "a =?x?= b", false);
	TS_ASSERT(strncmp(strbuf_str(&sb), "=?UTF-8?B?", 10) == 0);
	strbuf_release(&sb);
	return 0;
}
DEFINE_TEST(test_header, "mail headers: plain words kept, hostile names and subjects RFC 2047-encoded and folded");
