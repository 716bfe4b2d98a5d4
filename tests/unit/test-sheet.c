// SPDX-License-Identifier: LGPL-2.1-or-later
/* Sheets and slips through the public API, on a party with no keys (the
 * CLI test T300 renders real keys): the template engine (blocks, standalone
 * lines, widths, escaping, errors with file and line), the refusals and
 * their error codes, atomic output.  No PDF here: fontconfig's own leak
 * would trip the valgrind run, which has no suppressions for unit tests. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gcrypt.h>

#include <libksp.h>
#include "harness.h"

static char dir[64];

struct fixture {
	struct ksp_ctx *ctx;
	struct ksp_store *store;
	struct ksp_party *party;
	struct ksp_render_opts *opts;
};

static char *path(const char *name)
{
	static char buf[128];
	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static int setup(struct fixture *f, const char *name)
{
	memset(f, 0, sizeof(*f));
	gcry_check_version(NULL);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	snprintf(dir, sizeof(dir), "/tmp/ksp-test-sheet.XXXXXX");
	if (mkdtemp(dir) == NULL || ksp_new(&f->ctx) < 0)
		return -1;
	if (ksp_store_open(f->ctx, path("s.db"), KSP_STORE_READ_WRITE | KSP_STORE_CREATE, &f->store) < 0)
		return -1;
	if (ksp_party_create(f->store, name, "2027-01-15", NULL, NULL, &f->party) < 0)
		return -1;
	return ksp_render_opts_new(f->ctx, &f->opts);
}

static void teardown(struct fixture *f)
{
	char cmd[128];

	ksp_render_opts_free(f->opts);
	ksp_party_unref(f->party);
	ksp_store_unref(f->store);
	ksp_unref(f->ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0) {
		/* left behind in /tmp; harmless */
	}
}

/* Render into a file and read it back; returns the text (static) or NULL. */
static const char *render(struct fixture *f, unsigned int kind, unsigned int format, const char *tmpl, int *ret)
{
	static char buf[8192];
	ssize_t n;
	int fd;

	if (tmpl && ksp_render_opts_set_template_text(f->opts, tmpl, strlen(tmpl)) < 0)
		return NULL;
	fd = open(path("out"), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	*ret = ksp_party_render(f->party, kind, format, f->opts, fd);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

static int test_refusals(void)
{
	struct fixture f;
	const char *s;
	int r = 0;

	TS_ASSERT(setup(&f, "P") == 0);
	/* an open list: no sheet without DRAFT; nothing written */
	s = render(&f, KSP_RENDER_SHEET, KSP_FORMAT_TXT, NULL, &r);
	TS_ASSERT(s != NULL);
	TS_ASSERT_INT_EQ(r, -EPERM);
	TS_ASSERT_INT_EQ(strlen(s), 0);
	TS_ASSERT(strstr(ksp_get_error(f.ctx), "s.db: the list is open (not frozen)") != NULL);
	/* no participants: no slips */
	s = render(&f, KSP_RENDER_SLIPS, KSP_FORMAT_TXT, NULL, &r);
	TS_ASSERT_INT_EQ(r, -ENODATA);
	/* bad arguments */
	TS_ASSERT_INT_EQ(ksp_party_render(f.party, 7, KSP_FORMAT_TXT, f.opts, 1), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_party_render(f.party, KSP_RENDER_SHEET, 9, f.opts, 1), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_party_render(NULL, KSP_RENDER_SHEET, KSP_FORMAT_TXT, NULL, 1), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_render_opts_set_for(f.opts, "12ab"), -EINVAL);
	TS_ASSERT(strstr(ksp_get_error(f.ctx), "neither a full fingerprint") != NULL);
	TS_ASSERT_INT_EQ(ksp_render_opts_set_for(f.opts, "0"), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_render_opts_set_paper(f.opts, 2), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_render_opts_set_flags(f.opts, 1u << 5), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_render_opts_set_count(f.opts, 1001), -EINVAL);
	TS_ASSERT(ksp_render_opts_free(NULL) == NULL);
	/* --for someone not on the list */
	TS_ASSERT_INT_EQ(ksp_render_opts_set_flags(f.opts, KSP_RENDER_DRAFT), 0);
	TS_ASSERT_INT_EQ(ksp_render_opts_set_for(f.opts, "#3"), 0);
	s = render(&f, KSP_RENDER_SHEET, KSP_FORMAT_TXT, NULL, &r);
	TS_ASSERT_INT_EQ(r, -ENOENT);
	TS_ASSERT(strstr(ksp_get_error(f.ctx), "no participant number 3") != NULL);
	TS_ASSERT_INT_EQ(ksp_render_opts_set_for(f.opts, "AAAA AAAA AAAA AAAA AAAA  AAAA AAAA AAAA AAAA AAAA"), 0);
	s = render(&f, KSP_RENDER_SHEET, KSP_FORMAT_TXT, NULL, &r);
	TS_ASSERT_INT_EQ(r, -ENOENT);
	TS_ASSERT(strstr(ksp_get_error(f.ctx), "fingerprint AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA") != NULL);
	/* templates are for txt and html */
	TS_ASSERT_INT_EQ(ksp_render_opts_set_for(f.opts, NULL), 0);
	TS_ASSERT_INT_EQ(ksp_render_opts_set_template_text(f.opts, "x", 1), 0);
	TS_ASSERT_INT_EQ(ksp_party_render(f.party, KSP_RENDER_SHEET, KSP_FORMAT_PDF, f.opts, 1), -EINVAL);
	TS_ASSERT(ksp_render_builtin_template(KSP_RENDER_SHEET, KSP_FORMAT_PDF) == NULL);
	TS_ASSERT(strncmp(ksp_render_builtin_template(KSP_RENDER_SLIPS, KSP_FORMAT_HTML), "{{!", 3) == 0);
	teardown(&f);
	return 0;
}
DEFINE_TEST(test_refusals, "sheet of an open list, empty slips, bad options, unknown --for");

static int test_draft_builtin(void)
{
	struct fixture f;
	const char *s;
	int r = -1;

	TS_ASSERT(setup(&f, "Evil \x1b[2J <b>&co") == 0);
	TS_ASSERT_INT_EQ(ksp_render_opts_set_flags(f.opts, KSP_RENDER_DRAFT), 0);
	s = render(&f, KSP_RENDER_SHEET, KSP_FORMAT_TXT, NULL, &r);
	TS_ASSERT_INT_EQ(r, 0);
	TS_ASSERT(strcmp(s, "DRAFT - NOT FROZEN: do not use this list to verify anything.\n\n"
			    "OpenPGP key-signing party: participant list\n\n"
			    "Party:    Evil \\x1B[2J <b>&co\n"
			    "Date:     2027-01-15\n"
			    "List version: 1 (DRAFT, not frozen)\n"
			    "Participants: 0\n") == 0);
	s = render(&f, KSP_RENDER_SHEET, KSP_FORMAT_HTML, NULL, &r);
	TS_ASSERT_INT_EQ(r, 0);
	TS_ASSERT(strstr(s, "<title>Evil <kbd>[U+001B]</kbd>[2J &lt;b&gt;&amp;co: verification sheet</title>") != NULL);
	TS_ASSERT(strstr(s, "No digests: the list is not frozen yet.") != NULL);
	TS_ASSERT(strstr(s, "\x1b") == NULL);
	teardown(&f);
	return 0;
}
DEFINE_TEST(test_draft_builtin, "draft sheet of an open list, escaped party name in txt and html");

static int test_engine(void)
{
	struct fixture f;
	const char *s;
	int r = -1;

	TS_ASSERT(setup(&f, "Party & <Co>") == 0);
	TS_ASSERT_INT_EQ(ksp_render_opts_set_flags(f.opts, KSP_RENDER_DRAFT), 0);
	/* standalone block lines vanish, inline blocks do not eat newlines */
	s = render(&f, KSP_RENDER_SHEET, KSP_FORMAT_TXT,
		   "a\n  {{#draft}}  \nb {{#frozen}}X{{/frozen}}{{^frozen}}Y{{/frozen}}\n{{/draft}}\n"
		   "{{! a comment\n  over lines }}\n[{{party.date:12}}][{{participants.count:-3}}]\n"
		   "{{^participants}}none{{/participants}}\n{{#participants}}never{{/participants}}end\n", &r);
	TS_ASSERT_INT_EQ(r, 0);
	TS_ASSERT(strcmp(s, "a\nb Y\n[  2027-01-15][0  ]\nnone\nend\n") == 0);
	s = render(&f, KSP_RENDER_SHEET, KSP_FORMAT_HTML, "<p title=\"{{party.name}}\">{{ party.name }}</p>", &r);
	TS_ASSERT_INT_EQ(r, 0);
	TS_ASSERT(strcmp(s, "<p title=\"Party &amp; &lt;Co&gt;\">Party &amp; &lt;Co&gt;</p>") == 0);
	/* errors name the template and the line */
	static const struct {
		const char *tmpl, *msg;
	} bad[] = {
		{ "x\n{{#uids}}{{/uids}}", "(template text):2: '{{uids}}' is only known inside {{#participants}}" },
		{ "{{#draft}}\n{{/frozen}}", "(template text):2: '{{/frozen}}' closes '{{#draft}}' of line 1" },
		{ "\n\n{{^draft}}", "(template text):3: '{{^draft}}' is never closed" },
		{ "{{/draft}}", "(template text):1: '{{/draft}}' closes no block" },
		{ "{{party.name", "(template text):1: '{{' is never closed" },
		{ "{{&party.name}}", "(template text):1: '{{&' (unescaped output) is not supported" },
		{ "{{participants}}", "(template text):1: '{{participants}}' is a list" },
		{ "{{party.name:x}}", "(template text):1: bad width" },
		{ "{{party.name extra}}", "(template text):1: unexpected text" },
		{ "{{qr}}", "(template text):1: unknown name '{{qr}}' in this kind of template" },
		{ "{{#participants}}{{slip.number}}{{/participants}}", "unknown name '{{slip.number}}'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = render(&f, KSP_RENDER_SHEET, KSP_FORMAT_TXT, bad[i].tmpl, &r);
		TS_ASSERT_INT_EQ(r, -EINVAL);
		if (strstr(ksp_get_error(f.ctx), bad[i].msg) == NULL) {
			fprintf(stderr, "template %zu: got '%s', want '%s'\n", i, ksp_get_error(f.ctx), bad[i].msg);
			return -1;
		}
	}
	/* a template file that is missing names itself */
	TS_ASSERT_INT_EQ(ksp_render_opts_set_template(f.opts, path("nope.html")), 0);
	TS_ASSERT_INT_EQ(ksp_party_render(f.party, KSP_RENDER_SHEET, KSP_FORMAT_HTML, f.opts, 1), -ENOENT);
	TS_ASSERT(strstr(ksp_get_error(f.ctx), "nope.html: cannot read the template") != NULL);
	teardown(&f);
	return 0;
}
DEFINE_TEST(test_engine, "template engine: blocks, standalone lines, widths, escaping, errors");

static int test_file_atomic(void)
{
	struct fixture f;
	struct stat st;
	char buf[64] = "";
	FILE *fp;

	TS_ASSERT(setup(&f, "P") == 0);
	fp = fopen(path("keep.txt"), "we");
	TS_ASSERT(fp != NULL);
	fputs("keep\n", fp);
	fclose(fp);
	/* failure: the old file stays, no temporary left */
	TS_ASSERT_INT_EQ(ksp_party_render_file(f.party, KSP_RENDER_SHEET, KSP_FORMAT_TXT, f.opts, path("keep.txt")),
			 -EPERM);
	fp = fopen(path("keep.txt"), "re");
	TS_ASSERT(fp != NULL && fgets(buf, sizeof(buf), fp) != NULL);
	fclose(fp);
	TS_ASSERT(strcmp(buf, "keep\n") == 0);
	/* success replaces it */
	TS_ASSERT_INT_EQ(ksp_render_opts_set_flags(f.opts, KSP_RENDER_DRAFT), 0);
	TS_ASSERT_INT_EQ(ksp_render_opts_set_template_text(f.opts, "{{party.name}}\n", 15), 0);
	TS_ASSERT_INT_EQ(ksp_party_render_file(f.party, KSP_RENDER_SHEET, KSP_FORMAT_TXT, f.opts, path("keep.txt")), 0);
	TS_ASSERT(stat(path("keep.txt"), &st) == 0 && st.st_size == 2);
	TS_ASSERT_INT_EQ(ksp_party_render_file(f.party, KSP_RENDER_SHEET, KSP_FORMAT_TXT, f.opts, path("no/dir/x")),
			 -ENOENT);
	TS_ASSERT(strstr(ksp_get_error(f.ctx), "no/dir/x: cannot write") != NULL);
	TS_ASSERT(system("ls /tmp/ksp-test-sheet.*/*.tmp.* >/dev/null 2>&1") != 0);
	teardown(&f);
	return 0;
}
DEFINE_TEST(test_file_atomic, "render_file: atomic replace, nothing written on failure");
