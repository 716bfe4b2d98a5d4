// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for src/lib/template.c, the one template engine of sheets,
 * slips and mails, with a small model of its own: both escapers (HTML,
 * terminal), hostile values, lists and frames, standalone lines, widths,
 * names missing at parse time and at render time, and the syntax errors
 * with their lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/libksp-private.h"
#include "lib/template.h"
#include "harness.h"

/* The model: "name" (a text), "flag" (true), "off" (false), "qr" (markup),
 * "items" (a list; inside it "item" and "index"). */
enum { ID_NAME, ID_FLAG, ID_OFF, ID_QR, ID_ITEMS, ID_ITEM, ID_INDEX, ID_COUNT_ };
static const char *const model_names[ID_COUNT_] = { "name", "flag", "off", "qr", "items", "item", "index" };

struct model {
	const char *name;
	const char *const *items;
	size_t n_items;
	int calls;
};

static int resolve(void *data, struct ksp_ctx *ctx, const char *source, const struct ksp_tpl_ref *ref,
		   const struct ksp_tpl_ref *open, size_t n_open)
{
	(void)data;
	(void)open;
	(void)n_open;
	for (int i = 0; i < ID_COUNT_; i++)
		if (strlen(model_names[i]) == ref->len && memcmp(model_names[i], ref->name, ref->len) == 0)
			return i;
	ksp_set_error(ctx, "%s:%u: unknown name '%.*s'", source, ref->line, (int)ref->len, ref->name);
	return -EINVAL;
}

static int value(void *data, const struct ksp_tpl_ref *ref, const struct ksp_tpl_frame *frames, size_t depth,
		 struct ksp_tpl_value *v)
{
	struct model *m = data;
	int id = ref->id;

	m->calls++;
	if (id < 0) /* parsed without resolve: look the name up now */
		for (int i = 0; i < ID_COUNT_; i++)
			if (strlen(model_names[i]) == ref->len && memcmp(model_names[i], ref->name, ref->len) == 0)
				id = i;
	if ((id == ID_ITEM || id == ID_INDEX) && (depth == 0 || frames[depth - 1].list != m))
		return -ENOENT;
	switch (id) {
	case ID_NAME: v->type = KSP_TPL_TEXT; v->s = m->name; v->len = strlen(m->name); break;
	case ID_FLAG: v->type = KSP_TPL_BOOL; v->b = true; break;
	case ID_OFF: v->type = KSP_TPL_BOOL; v->b = false; break;
	case ID_QR: v->type = KSP_TPL_MARKUP; v->s = "<svg/>"; v->len = 6; break;
	case ID_ITEMS: v->type = KSP_TPL_LIST; v->n = m->n_items; v->list = m; break;
	case ID_ITEM:
		v->type = KSP_TPL_TEXT;
		v->s = m->items[frames[depth - 1].index];
		v->len = strlen(v->s);
		break;
	case ID_INDEX:
		snprintf(v->buf, sizeof(v->buf), "%zu", frames[depth - 1].index + 1);
		v->type = KSP_TPL_TEXT;
		v->s = v->buf;
		v->len = strlen(v->buf);
		break;
	default:
		return -ENOENT; /* a name missing when rendering */
	}
	return 0;
}

/* The last syntax error, kept by the test's error callback. */
struct seen {
	int calls;
	struct ksp_tpl_error e;
};

static void keep_error(void *data, struct ksp_ctx *ctx, const struct ksp_tpl_error *e)
{
	struct seen *s = data;
	s->calls++;
	s->e = *e;
	ksp_tpl_error_default(ctx, e);
}

/* Parses and renders @tmpl; *out is the output or the error line. */
static int run(const char *tmpl, bool with_resolve, struct model *m, unsigned int escape, char **out)
{
	struct ksp_ctx *ctx = NULL;
	const struct ksp_tpl_syntax syn = { .widths = true, .resolve = with_resolve ? resolve : NULL };
	const struct ksp_tpl_data d = { .data = m, .value = value };
	struct ksp_tpl *t = NULL;
	struct strbuf sb;
	int r;

	if (ksp_new(&ctx) < 0)
		return -ENOMEM;
	strbuf_init(&sb);
	r = ksp_tpl_parse(ctx, &syn, "t.txt", tmpl, strlen(tmpl), &t);
	if (r == 0)
		r = ksp_tpl_render(t, &d, escape, &sb);
	if (r < 0 && ksp_get_error(ctx)) {
		strbuf_release(&sb);
		strbuf_init(&sb);
		strbuf_addstr(&sb, ksp_get_error(ctx));
	}
	*out = strbuf_steal(&sb);
	ksp_tpl_free(t);
	ksp_unref(ctx);
	return r;
}

/* Parses @tmpl, expecting a syntax error; returns what the callback saw. */
static struct seen parse_error(const char *tmpl, int max_depth, char **msg)
{
	struct ksp_ctx *ctx = NULL;
	struct seen s = { 0 };
	const struct ksp_tpl_syntax syn = { .data = &s, .widths = true, .max_depth = max_depth, .error = keep_error };
	struct ksp_tpl *t = NULL;

	*msg = NULL;
	if (ksp_new(&ctx) < 0)
		return s;
	if (ksp_tpl_parse(ctx, &syn, "t.txt", tmpl, strlen(tmpl), &t) != -EINVAL)
		s.calls = -1;
	if (ksp_get_error(ctx))
		*msg = strdup(ksp_get_error(ctx));
	ksp_tpl_free(t);
	ksp_unref(ctx);
	return s;
}

static int test_escapers(void)
{
	/* hostile: markup, quotes, a bidi override, CR/LF, ESC, and a tag */
	struct model m = { .name = "<b>\"&'\xe2\x80\xae x\r\nBcc: e@example.org\x1b[31m{{name}}" };
	char *out = NULL;

	TS_ASSERT_INT_EQ(run("<p title=\"{{name}}\">{{name}}</p>{{qr}}", true, &m, KSP_ESCAPE_HTML, &out), 0);
	/* HTML: no markup, no quote, no control and no override survives */
	TS_ASSERT(strncmp(out, "<p title=\"&lt;b&gt;&quot;&amp;&#39;", 35) == 0);
	TS_ASSERT(strstr(out, "<b>") == NULL && strstr(out, "\"&'") == NULL);
	TS_ASSERT(strchr(out, '\r') == NULL && strchr(out, '\n') == NULL && strchr(out, 0x1b) == NULL);
	TS_ASSERT(strstr(out, "\xe2\x80\xae") == NULL);
	/* a value is never read as a template */
	TS_ASSERT(strstr(out, "{{name}}</p>") != NULL);
	/* markup (the model's own, never input) is written as it is */
	TS_ASSERT(strcmp(out + strlen(out) - 6, "<svg/>") == 0);
	free(out);

	/* terminal (text sheets, mail bodies and subjects): CR, LF, ESC and
	 * the override as visible escapes: no header can be added */
	TS_ASSERT_INT_EQ(run("Subject: {{name}}", true, &m, KSP_ESCAPE_TERMINAL, &out), 0);
	TS_ASSERT(strchr(out, '\r') == NULL && strchr(out, '\n') == NULL && strchr(out, 0x1b) == NULL);
	TS_ASSERT(strstr(out, "\xe2\x80\xae") == NULL && strstr(out, "\\u{202E}") != NULL);
	TS_ASSERT(strstr(out, "x\\x0D\\x0ABcc: e@example.org\\x1B[31m{{name}}") != NULL);
	free(out);
	return 0;
}
DEFINE_TEST(test_escapers, "template engine: HTML and terminal escaping of hostile values; markup as it is");

static int test_blocks(void)
{
	static const char *const items[] = { "a", "b\n", "c" };
	struct model m = { .name = "Zoë", .items = items, .n_items = 3 };
	char *out = NULL;

	TS_ASSERT_INT_EQ(run("{{! comment\n over lines }}\nhead\n  {{#items}}  \n[{{index:2}}|{{item:-2}}]\n{{/items}}\n"
			     "{{#flag}}\nyes {{flag}}\n{{/flag}}\n{{^off}}\noff{{off}}.\n{{/off}}\r\n"
			     "{{#off}}never{{/off}}{{^items}}never{{/items}}{{#name}}<{{name:4}}>{{/name}}\n",
			     true, &m, KSP_ESCAPE_TERMINAL, &out), 0);
	/* standalone tag lines dropped whole (also before CRLF), items in
	 * order with their frames, widths counted in characters */
	TS_ASSERT_STR_EQ(out, "head\n[ 1|a ]\n[ 2|b\\x0A]\n[ 3|c ]\nyes yes\noff.\n< Zoë>\n");
	free(out);

	/* an empty list: its block not at all, its inverted block once */
	m.n_items = 0;
	TS_ASSERT_INT_EQ(run("{{#items}}x{{item}}{{/items}}{{^items}}none{{/items}}", true, &m,
			     KSP_ESCAPE_TERMINAL, &out), 0);
	TS_ASSERT_STR_EQ(out, "none");
	free(out);
	return 0;
}
DEFINE_TEST(test_blocks, "template engine: lists and their items, truth values, standalone lines, widths");

static int test_missing(void)
{
	struct model m = { .name = "n" };
	char *out = NULL;

	/* missing when parsing: the user's error, nothing rendered */
	TS_ASSERT_INT_EQ(run("a\n{{name}} {{nosuch}}", true, &m, KSP_ESCAPE_TERMINAL, &out), -EINVAL);
	TS_ASSERT_STR_EQ(out, "t.txt:2: unknown name 'nosuch'");
	TS_ASSERT_INT_EQ(m.calls, 0);
	free(out);
	/* missing when rendering (no resolve): the user's error is returned */
	TS_ASSERT_INT_EQ(run("{{name}}{{nosuch}}", false, &m, KSP_ESCAPE_TERMINAL, &out), -ENOENT);
	free(out);
	/* a name known only inside its list, used outside */
	TS_ASSERT_INT_EQ(run("{{item}}", false, &m, KSP_ESCAPE_TERMINAL, &out), -ENOENT);
	free(out);
	return 0;
}
DEFINE_TEST(test_missing, "template engine: a missing name when parsing and when rendering");

static int test_syntax(void)
{
	static const struct {
		const char *tmpl;
		enum ksp_tpl_err code;
		unsigned int line;
		const char *msg;
	} cases[] = {
		{ "a\nb {{name", KSP_TPL_E_OPEN_TAG, 2, "t.txt:2: '{{' is never closed by '}}'" },
		{ "{{name}}\n}}{{", KSP_TPL_E_OPEN_TAG, 2, "t.txt:2: '{{' is never closed" },
		{ "{{{name}}}", KSP_TPL_E_UNESCAPED, 1, "t.txt:1: '{{{' (unescaped output) is not supported" },
		{ "\n{{& name}}", KSP_TPL_E_UNESCAPED, 2, "t.txt:2: '{{&' (unescaped output)" },
		{ "{{ }}", KSP_TPL_E_NO_NAME, 1, "t.txt:1: a tag without a name" },
		{ "{{#}}{{/}}", KSP_TPL_E_NO_NAME, 1, "t.txt:1: a tag without a name" },
		{ "{{name x}}", KSP_TPL_E_TEXT, 1, "t.txt:1: unexpected text in '{{name x}}'" },
		{ "{{name:x}}", KSP_TPL_E_WIDTH, 1, "t.txt:1: bad width in '{{name:x}}'" },
		{ "{{name:201}}", KSP_TPL_E_WIDTH, 1, "t.txt:1: bad width" },
		{ "{{#items:2}}{{/items}}", KSP_TPL_E_WIDTH, 1, "t.txt:1: bad width" },
		{ "x\n\n{{/items}}", KSP_TPL_E_CLOSES_NONE, 3, "t.txt:3: '{{/items}}' closes no block" },
		{ "{{#items}}\n{{^flag}}\n{{/items}}", KSP_TPL_E_CLOSES_OTHER, 3,
		  "t.txt:3: '{{/items}}' closes '{{^flag}}' of line 2; close that first" },
		{ "{{#items}}\n{{/items}}\n\n{{^flag}}\nx\n", KSP_TPL_E_UNCLOSED, 4,
		  "t.txt:4: '{{^flag}}' is never closed; add {{/flag}}" },
		{ "{{#a}}{{#b}}{{#c}}{{/c}}{{/b}}{{/a}}", KSP_TPL_E_DEPTH, 1, "t.txt:1: blocks nested deeper than 2" },
	};
	char *msg = NULL;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct seen s = parse_error(cases[i].tmpl, 2, &msg);
		if (s.calls != 1 || s.e.code != cases[i].code || s.e.line != cases[i].line || msg == NULL ||
		    strncmp(msg, cases[i].msg, strlen(cases[i].msg)) != 0) {
			fprintf(stderr, "case %zu: calls %d code %d line %u: %s\n", i, s.calls, (int)s.e.code, s.e.line,
				msg ? msg : "(no message)");
			free(msg);
			return -1;
		}
		free(msg);
	}
	/* a NUL byte: refused before anything else */
	struct ksp_ctx *ctx = NULL;
	struct ksp_tpl *t = NULL;
	const struct ksp_tpl_syntax syn = { 0 };
	TS_ASSERT(ksp_new(&ctx) == 0);
	TS_ASSERT_INT_EQ(ksp_tpl_parse(ctx, &syn, "t.txt", "a\0{{b}}", 7, &t), -EINVAL);
	TS_ASSERT(t == NULL && strstr(ksp_get_error(ctx), "NUL byte") != NULL);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_syntax, "template engine: each syntax error with its line and the default wording");
