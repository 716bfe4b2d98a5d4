// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Mail templates (mail-template.h): the sheets' syntax over any names,
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

#define MT_MAX_LEN (64 * 1024)
#define MT_MAX_DEPTH 8
#define MT_MAX_ITEMS 10000

enum tok_kind { TK_TEXT, TK_VAR, TK_OPEN, TK_INVERT, TK_CLOSE };

struct tok {
	enum tok_kind kind;
	const char *p; /* text, or the name */
	size_t len;
	size_t partner; /* OPEN/INVERT: the index of its CLOSE */
	size_t line;
};

struct mt {
	struct ksp_ctx *ctx;
	const char *source;
	struct tok *v;
	size_t n, cap;
};

static int add_tok(struct mt *t, enum tok_kind kind, const char *p, size_t len, size_t line)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct tok *nv = realloc(t->v, cap * sizeof(*nv));
		if (nv == NULL)
			return -ENOMEM;
		t->v = nv;
		t->cap = cap;
	}
	t->v[t->n++] = (struct tok){ kind, p, len, 0, line };
	return 0;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static int fail(struct mt *t, size_t line, const char *what)
{
	ksp_set_error(t->ctx, "%s: line %zu: %s; the syntax is in ksp-party(1), MAIL TEMPLATES", t->source, line, what);
	return -EINVAL;
}

/* Tokens of @s; a line holding only a section tag or a comment (and
 * blanks) is dropped whole. */
static int tokenize(struct mt *t, const char *s, size_t len)
{
	size_t i = 0, line = 1, text_start = 0, stack[MT_MAX_DEPTH], depth = 0;
	int r;

	while (i < len) {
		const char *open = memmem(s + i, len - i, "{{", 2);
		if (open == NULL)
			break;
		size_t o = (size_t)(open - s);
		const char *close = memmem(s + o + 2, len - o - 2, "}}", 2);
		for (size_t k = i; k < o; k++)
			line += s[k] == '\n';
		if (close == NULL)
			return fail(t, line, "'{{' without '}}'");
		size_t c = (size_t)(close - s) + 2;
		char kind = s[o + 2];
		const char *name = s + o + 2;
		size_t nlen = c - 2 - (o + 2);
		if (kind == '#' || kind == '^' || kind == '/' || kind == '!') {
			name++;
			nlen--;
		}
		while (nlen && blank(*name))
			name++, nlen--;
		while (nlen && blank(name[nlen - 1]))
			nlen--;
		if (kind == '!') {
			for (size_t k = o; k < c; k++)
				line += s[k] == '\n';
		} else if (nlen == 0 || memchr(name, '\n', nlen) || memchr(name, '{', nlen)) {
			return fail(t, line, "a tag without a name");
		}
		/* standalone: only blanks before it on its line and after it */
		size_t ls = o, le = c;
		bool standalone = false;
		if (kind == '#' || kind == '^' || kind == '/' || kind == '!') {
			while (ls > text_start && blank(s[ls - 1]))
				ls--;
			while (le < len && blank(s[le]))
				le++;
			standalone = (ls == 0 || s[ls - 1] == '\n') && (le == len || s[le] == '\n');
		}
		size_t text_end = standalone ? ls : o;
		if (text_end > text_start && (r = add_tok(t, TK_TEXT, s + text_start, text_end - text_start, line)) < 0)
			return r;
		switch (kind) {
		case '!':
			break;
		case '#':
		case '^':
			if (depth == MT_MAX_DEPTH)
				return fail(t, line, "sections nested too deep");
			stack[depth++] = t->n;
			r = add_tok(t, kind == '#' ? TK_OPEN : TK_INVERT, name, nlen, line);
			if (r < 0)
				return r;
			break;
		case '/':
			if (depth == 0 || t->v[stack[depth - 1]].len != nlen ||
			    memcmp(t->v[stack[depth - 1]].p, name, nlen) != 0)
				return fail(t, line, "a closing tag that closes no open section");
			t->v[stack[--depth]].partner = t->n;
			r = add_tok(t, TK_CLOSE, name, nlen, line);
			if (r < 0)
				return r;
			break;
		default:
			if (kind == '{' || kind == '&')
				return fail(t, line, "no value is ever written unescaped ({{{ }}} and {{& }})");
			r = add_tok(t, TK_VAR, name, nlen, line);
			if (r < 0)
				return r;
			break;
		}
		i = standalone ? (le < len ? le + 1 : le) : c;
		if (standalone && le < len)
			line++;
		text_start = i;
	}
	if (depth)
		return fail(t, t->v[stack[depth - 1]].line, "a section that is never closed");
	if (len > text_start)
		return add_tok(t, TK_TEXT, s + text_start, len - text_start, line);
	return 0;
}

struct scope {
	const struct mt_var *vars;
	size_t n;
};

static const struct mt_var *lookup(const struct scope *sc, size_t depth, const char *name, size_t len)
{
	for (size_t d = depth; d-- > 0;)
		for (size_t i = 0; i < sc[d].n; i++)
			if (strlen(sc[d].vars[i].name) == len && memcmp(sc[d].vars[i].name, name, len) == 0)
				return &sc[d].vars[i];
	return NULL;
}

static int render(struct mt *t, size_t from, size_t to, struct scope *sc, size_t depth, struct strbuf *out)
{
	int r;

	for (size_t i = from; i < to; i++) {
		const struct tok *k = &t->v[i];
		const struct mt_var *v = NULL;

		if (k->kind == TK_TEXT) {
			strbuf_add(out, k->p, k->len);
			continue;
		}
		if (k->kind == TK_CLOSE)
			continue;
		v = lookup(sc, depth, k->p, k->len);
		if (v == NULL) {
			char name[64];
			snprintf(name, sizeof(name), "unknown name '%.*s'", (int)(k->len > 40 ? 40 : k->len), k->p);
			for (char *p = name; *p; p++)
				if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
					*p = '?';
			return fail(t, k->line, name);
		}
		if (k->kind == TK_VAR) {
			char *e = NULL;
			if (v->is_list || v->text == NULL)
				return fail(t, k->line, "a list or a truth value used as a text");
			r = ksp_escape(v->text, strlen(v->text), KSP_ESCAPE_TERMINAL, &e);
			if (r < 0)
				return r;
			strbuf_addstr(out, e);
			free(e);
			continue;
		}
		bool on = v->is_list ? v->n_items > 0 : v->text ? v->text[0] != '\0' : v->truth;
		if (k->kind == TK_INVERT) {
			if (!on && (r = render(t, i + 1, k->partner, sc, depth, out)) < 0)
				return r;
		} else if (v->is_list) {
			if (depth + 1 >= MT_MAX_DEPTH + 2)
				return fail(t, k->line, "sections nested too deep");
			for (size_t it = 0; it < v->n_items && it < MT_MAX_ITEMS; it++) {
				sc[depth] = (struct scope){ v->items + it * v->n_fields, v->n_fields };
				r = render(t, i + 1, k->partner, sc, depth + 1, out);
				if (r < 0)
					return r;
			}
		} else if (on && (r = render(t, i + 1, k->partner, sc, depth, out)) < 0) {
			return r;
		}
		i = k->partner;
	}
	return strbuf_ok(out) ? 0 : -ENOMEM;
}

int ksp_mail_template_render(struct ksp_ctx *ctx, const char *source, const char *text, size_t len,
			     const struct mt_var *vars, size_t n_vars, struct strbuf *subject,
			     struct strbuf *body)
{
	struct mt t = { .ctx = ctx, .source = source ? source : "template" };
	struct scope sc[MT_MAX_DEPTH + 2] = { { vars, n_vars } };
	struct strbuf all;
	const char *p, *nl;
	int r;

	if (len > MT_MAX_LEN) {
		ksp_set_error(ctx, "%s: a mail template of more than %d bytes; keep it short", t.source, MT_MAX_LEN);
		return -EINVAL;
	}
	if (memchr(text, '\0', len)) {
		ksp_set_error(ctx, "%s: a NUL byte in the mail template", t.source);
		return -EINVAL;
	}
	strbuf_init(&all);
	r = tokenize(&t, text, len);
	if (r == 0)
		r = render(&t, 0, t.n, sc, 1, &all);
	free(t.v);
	if (r < 0)
		goto out;
	p = strbuf_str(&all);
	if (strncmp(p, "Subject:", 8) != 0 || (nl = strchr(p, '\n')) == NULL || nl[1] != '\n') {
		ksp_set_error(ctx, "%s: the template must start (after {{! comments }}) with a line 'Subject: ...' and an empty line",
			      t.source);
		r = -EINVAL;
		goto out;
	}
	const char *subj = p + 8;
	while (blank(*subj))
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
