// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Mail templates (mail-template.h): the names of a mail, given per mail
 * kind, over the one template engine (lib/template.c); the Subject: line;
 * and the header encoding of what comes out (RFC 2047), so that no user
 * ID, name or template text can add a header field to a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/libksp-private.h"
#include "lib/party/mail-template.h"
#include "lib/party/mime.h"
#include "lib/template.h"

#define MT_MAX_LEN (64 * 1024)
#define MT_MAX_DEPTH 8
#define MT_MAX_ITEMS 10000

static int fail(struct ksp_ctx *ctx, const char *source, unsigned int line, const char *what)
{
	ksp_set_error(ctx, "%s: line %u: %s; the syntax is in ksp-party-sign(1), MAIL TEMPLATES", source, line, what);
	return -EINVAL;
}

/* The engine's syntax errors in the words of ksp-party-sign(1). */
static void syntax_error(void *data, struct ksp_ctx *ctx, const struct ksp_tpl_error *e)
{
	static const char *const what[] = {
		[KSP_TPL_E_NUL] = "a NUL byte in the mail template",
		[KSP_TPL_E_OPEN_TAG] = "'{{' without '}}'",
		[KSP_TPL_E_UNESCAPED] = "no value is ever written unescaped ({{{ }}} and {{& }})",
		[KSP_TPL_E_NO_NAME] = "a tag without a name",
		[KSP_TPL_E_TEXT] = "text after the name in a tag",
		[KSP_TPL_E_WIDTH] = "a width in a tag", /* not in mails: ':' is part of the name */
		[KSP_TPL_E_DEPTH] = "sections nested too deep",
		[KSP_TPL_E_CLOSES_NONE] = "a closing tag that closes no open section",
		[KSP_TPL_E_CLOSES_OTHER] = "a closing tag that closes no open section",
		[KSP_TPL_E_UNCLOSED] = "a section that is never closed",
	};
	(void)data;
	fail(ctx, e->source, e->line, what[e->code]);
}

struct mail_vars {
	struct ksp_ctx *ctx;
	const char *source;
	const struct mt_var *vars;
	size_t n_vars;
};

static const struct mt_var *find_var(const struct mt_var *v, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(v[i].name) == len && memcmp(v[i].name, name, len) == 0)
			return &v[i];
	return NULL;
}

/* A name is looked up in the items of the list blocks around it, the
 * innermost first, then at the top level. */
static int value(void *data, const struct ksp_tpl_ref *ref, const struct ksp_tpl_frame *frames, size_t depth,
		 struct ksp_tpl_value *out)
{
	const struct mail_vars *mv = data;
	const struct mt_var *v = NULL;

	for (size_t d = depth; d-- > 0 && v == NULL;) {
		const struct mt_var *list = frames[d].list;
		v = find_var(list->items + frames[d].index * list->n_fields, list->n_fields, ref->name, ref->len);
	}
	if (v == NULL)
		v = find_var(mv->vars, mv->n_vars, ref->name, ref->len);
	if (v == NULL) {
		char name[64];
		snprintf(name, sizeof(name), "unknown name '%.*s'", (int)(ref->len > 40 ? 40 : ref->len), ref->name);
		for (char *p = name; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
				*p = '?';
		return fail(mv->ctx, mv->source, ref->line, name);
	}
	if (ref->tag == KSP_TPL_VAR && (v->is_list || v->text == NULL))
		return fail(mv->ctx, mv->source, ref->line, "a list or a truth value used as a text");
	if (v->is_list) {
		out->type = KSP_TPL_LIST;
		out->n = v->n_items < MT_MAX_ITEMS ? v->n_items : MT_MAX_ITEMS;
		out->list = v;
	} else if (v->text) {
		out->type = KSP_TPL_TEXT;
		out->s = v->text;
		out->len = strlen(v->text);
	} else {
		out->type = KSP_TPL_BOOL;
		out->b = v->truth;
	}
	return 0;
}

int ksp_mail_template_render(struct ksp_ctx *ctx, const char *source, const char *text, size_t len,
			     const struct mt_var *vars, size_t n_vars, struct strbuf *subject,
			     struct strbuf *body)
{
	const char *src = source ? source : "template";
	const struct ksp_tpl_syntax syn = { .max_depth = MT_MAX_DEPTH, .error = syntax_error };
	struct mail_vars mv = { ctx, src, vars, n_vars };
	const struct ksp_tpl_data d = { .data = &mv, .value = value };
	struct ksp_tpl *t = NULL;
	struct strbuf all;
	const char *p, *nl;
	int r;

	if (len > MT_MAX_LEN) {
		ksp_set_error(ctx, "%s: a mail template of more than %d bytes; keep it short", src, MT_MAX_LEN);
		return -EINVAL;
	}
	if (memchr(text, '\0', len)) {
		ksp_set_error(ctx, "%s: a NUL byte in the mail template", src);
		return -EINVAL;
	}
	strbuf_init(&all);
	r = ksp_tpl_parse(ctx, &syn, src, text, len, &t);
	if (r == 0)
		r = ksp_tpl_render(t, &d, KSP_ESCAPE_TERMINAL, &all);
	ksp_tpl_free(t);
	if (r < 0)
		goto out;
	p = strbuf_str(&all);
	if (strncmp(p, "Subject:", 8) != 0 || (nl = strchr(p, '\n')) == NULL || nl[1] != '\n') {
		ksp_set_error(ctx, "%s: the template must start (after {{! comments }}) with a line 'Subject: ...' and an empty line",
			      src);
		r = -EINVAL;
		goto out;
	}
	const char *subj = p + 8;
	while (*subj == ' ' || *subj == '\t')
		subj++;
	strbuf_add(subject, subj, (size_t)(nl - subj));
	strbuf_addstr(body, nl + 2);
	r = strbuf_ok(subject) && strbuf_ok(body) ? 0 : -ENOMEM;
out:
	strbuf_release(&all);
	return r;
}

static bool is_atext_or_space(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' ||
	       (c != '\0' && strchr("!#$%&'*+-/=?^_`{|}~", c));
}

void ksp_mail_header_text(struct strbuf *sb, const char *text, bool phrase)
{
	size_t n = strlen(text);
	bool plain = n < 900 && strstr(text, "=?") == NULL;

	for (size_t i = 0; i < n && plain; i++) {
		unsigned char c = (unsigned char)text[i];
		plain = c >= 0x20 && c < 0x7f && (!phrase || is_atext_or_space(c));
	}
	if (plain) {
		strbuf_add(sb, text, n);
		return;
	}
	/* encoded words of at most 45 octets (60 base64 characters, 72 in
	 * all), cut between UTF-8 sequences, folded */
	for (size_t i = 0; i < n;) {
		size_t k = n - i > 45 ? 45 : n - i;
		while (i + k < n && k > 1 && ((unsigned char)text[i + k] & 0xc0) == 0x80)
			k--;
		if (i)
			strbuf_addstr(sb, "\n ");
		strbuf_addstr(sb, "=?UTF-8?B?");
		ksp_base64_encode(sb, (const uint8_t *)text + i, k, 0);
		strbuf_addstr(sb, "?=");
		i += k;
	}
}
