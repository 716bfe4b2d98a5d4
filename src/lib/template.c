// SPDX-License-Identifier: LGPL-2.1-or-later
/* The template engine of sheets, slips and mails (template.h has the
 * syntax and who gives the names their meaning). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/libksp-private.h"
#include "lib/template.h"

enum op_kind { OP_TEXT, OP_VAR, OP_SECTION, OP_INVERTED, OP_END };

struct op {
	unsigned char kind;
	int id;
	int width;
	size_t off, len; /* OP_TEXT: bytes of the source; else the name */
	size_t end;      /* OP_SECTION/OP_INVERTED: index of its OP_END */
	unsigned int line;
};

struct ksp_tpl {
	char *src;
	size_t len;
	struct op *ops;
	size_t n_ops;
};

#define MAX_DEPTH 16

struct ksp_tpl *ksp_tpl_free(struct ksp_tpl *t)
{
	if (t == NULL)
		return NULL;
	free(t->src);
	free(t->ops);
	free(t);
	return NULL;
}

static int add_op(struct ksp_tpl *t, size_t *cap, const struct op *op)
{
	if (t->n_ops == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct op *n = realloc(t->ops, nc * sizeof(*n));
		if (n == NULL)
			return -ENOMEM;
		t->ops = n;
		*cap = nc;
	}
	t->ops[t->n_ops++] = *op;
	return 0;
}

/* The template's bytes from @from to @to as they are (none: nothing). */
static int add_text(struct ksp_tpl *t, size_t *cap, size_t from, size_t to)
{
	const struct op op = { .kind = OP_TEXT, .off = from, .len = to - from };

	return to > from ? add_op(t, cap, &op) : 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static size_t count_lines(const char *s, size_t from, size_t to)
{
	size_t n = 0;
	for (size_t i = from; i < to; i++)
		n += s[i] == '\n';
	return n;
}

static char sigil_of(unsigned char kind)
{
	return kind == OP_SECTION ? '#' : kind == OP_INVERTED ? '^' : kind == OP_END ? '/' : '\0';
}

void ksp_tpl_error_default(struct ksp_ctx *ctx, const struct ksp_tpl_error *e)
{
	const char *src = e->source;
	int nl = (int)e->name_len, tl = (int)e->tag_len, ol = (int)e->open_len;

	switch (e->code) {
	case KSP_TPL_E_NUL:
		ksp_set_error(ctx, "%s: the template holds a NUL byte; templates are UTF-8 text", src);
		break;
	case KSP_TPL_E_OPEN_TAG:
		ksp_set_error(ctx, "%s:%u: '{{' is never closed by '}}'", src, e->line);
		break;
	case KSP_TPL_E_UNESCAPED:
		ksp_set_error(ctx, "%s:%u: '{{%c' (unescaped output) is not supported: every value is escaped; use {{name}}",
			      src, e->line, e->sigil);
		break;
	case KSP_TPL_E_NO_NAME:
		ksp_set_error(ctx, "%s:%u: a tag without a name; write {{name}}", src, e->line);
		break;
	case KSP_TPL_E_TEXT:
		ksp_set_error(ctx, "%s:%u: unexpected text in '{{%.*s}}'", src, e->line, tl, e->tag);
		break;
	case KSP_TPL_E_WIDTH:
		ksp_set_error(ctx, "%s:%u: bad width in '{{%.*s}}'; write {{name:N}} with N from -200 to 200", src,
			      e->line, tl, e->tag);
		break;
	case KSP_TPL_E_DEPTH:
		ksp_set_error(ctx, "%s:%u: blocks nested deeper than %d", src, e->line, e->max_depth);
		break;
	case KSP_TPL_E_CLOSES_NONE:
		ksp_set_error(ctx, "%s:%u: '{{/%.*s}}' closes no block", src, e->line, nl, e->name);
		break;
	case KSP_TPL_E_CLOSES_OTHER:
		ksp_set_error(ctx, "%s:%u: '{{/%.*s}}' closes '{{%c%.*s}}' of line %u; close that first", src, e->line,
			      nl, e->name, e->open_sigil, ol, e->open_name, e->open_line);
		break;
	case KSP_TPL_E_UNCLOSED:
		ksp_set_error(ctx, "%s:%u: '{{%c%.*s}}' is never closed; add {{/%.*s}}", src, e->open_line,
			      e->open_sigil, ol, e->open_name, ol, e->open_name);
		break;
	}
}

struct parser {
	struct ksp_ctx *ctx;
	const struct ksp_tpl_syntax *syn;
	struct ksp_tpl_error e;
};

static int syntax_error(struct parser *p, enum ksp_tpl_err code)
{
	p->e.code = code;
	if (p->syn->error)
		p->syn->error(p->syn->data, p->ctx, &p->e);
	else
		ksp_tpl_error_default(p->ctx, &p->e);
	return -EINVAL;
}

static void set_open(struct parser *p, const struct ksp_tpl *t, const struct op *open)
{
	p->e.open_sigil = sigil_of(open->kind);
	p->e.open_name = t->src + open->off;
	p->e.open_len = open->len;
	p->e.open_line = open->line;
}

/* (Long: one loop over the tags with the open-section stack; each tag kind a few lines.) */
int ksp_tpl_parse(struct ksp_ctx *ctx, const struct ksp_tpl_syntax *syn, const char *source, const char *text,
		  size_t len, struct ksp_tpl **ret)
{
	struct parser p = { .ctx = ctx, .syn = syn, .e = { .source = source } };
	int max_depth = syn->max_depth > 0 && syn->max_depth < MAX_DEPTH ? syn->max_depth : MAX_DEPTH;
	struct ksp_tpl *t;
	size_t cap = 0, pos = 0, stack[MAX_DEPTH], depth = 0, line_pos = 0;
	struct ksp_tpl_ref opened[MAX_DEPTH];
	unsigned int line = 1;
	int r = 0;

	p.e.max_depth = max_depth;
	if (memchr(text, '\0', len))
		return syntax_error(&p, KSP_TPL_E_NUL);
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	t->src = malloc(len + 1);
	if (t->src == NULL) {
		free(t);
		return -ENOMEM;
	}
	memcpy(t->src, text, len);
	t->src[len] = '\0';
	t->len = len;
	const char *s = t->src;

	while (pos < len) {
		const char *o = memmem(s + pos, len - pos, "{{", 2);
		size_t ts, te, after, text_end, is, ie;
		struct op op = { 0 };
		char sigil;

		if (o == NULL) {
			r = add_text(t, &cap, pos, len);
			if (r < 0)
				goto fail;
			break;
		}
		ts = (size_t)(o - s);
		line += (unsigned)count_lines(s, line_pos, ts);
		line_pos = ts;
		p.e.line = line;
		o = memmem(s + ts + 2, len - ts - 2, "}}", 2);
		if (o == NULL) {
			r = syntax_error(&p, KSP_TPL_E_OPEN_TAG);
			goto fail;
		}
		te = (size_t)(o - s);
		after = te + 2;
		is = ts + 2;
		ie = te;
		while (is < ie && is_blank(s[is]))
			is++;
		while (ie > is && is_blank(s[ie - 1]))
			ie--;
		sigil = is < ie ? s[is] : '\0';
		p.e.sigil = sigil;
		p.e.tag = s + is;
		p.e.tag_len = ie - is;
		if (sigil == '{' || sigil == '&') {
			r = syntax_error(&p, KSP_TPL_E_UNESCAPED);
			goto fail;
		}
		text_end = ts;
		if (sigil == '#' || sigil == '^' || sigil == '/' || sigil == '!') {
			/* standalone tag line: drop the line's blanks and its newline */
			size_t ls = ts, re = after;
			while (ls > pos && is_blank(s[ls - 1]))
				ls--;
			while (re < len && is_blank(s[re]))
				re++;
			if ((ls == 0 || s[ls - 1] == '\n') &&
			    (re == len || s[re] == '\n' || (s[re] == '\r' && re + 1 < len && s[re + 1] == '\n'))) {
				text_end = ls;
				after = re == len ? re : re + (s[re] == '\r' ? 2 : 1);
			}
		}
		r = add_text(t, &cap, pos, text_end);
		if (r < 0)
			goto fail;
		op.line = line;
		if (sigil == '!') {
			/* comment */
		} else {
			size_t ns = sigil == '#' || sigil == '^' || sigil == '/' ? is + 1 : is, ne;
			enum ksp_tpl_tag tag = sigil == '#' ? KSP_TPL_SECTION
					       : sigil == '^' ? KSP_TPL_INVERTED
					       : sigil == '/' ? KSP_TPL_END
							      : KSP_TPL_VAR;
			while (ns < ie && is_blank(s[ns]))
				ns++;
			ne = ns;
			while (ne < ie && !(syn->widths && s[ne] == ':') && !is_blank(s[ne]))
				ne++;
			p.e.name = s + ns;
			p.e.name_len = ne - ns;
			if (ne == ns || memchr(s + ns, '{', ne - ns) || memchr(s + ns, '\n', ne - ns)) {
				r = syntax_error(&p, KSP_TPL_E_NO_NAME);
				goto fail;
			}
			op.off = ns;
			op.len = ne - ns;
			op.id = -1;
			if (syn->resolve) {
				const struct ksp_tpl_ref ref = { tag, -1, s + ns, ne - ns, line };
				for (size_t i = 0; i < depth; i++) {
					const struct op *o2 = &t->ops[stack[i]];
					opened[i] = (struct ksp_tpl_ref){ o2->kind == OP_SECTION ? KSP_TPL_SECTION
												 : KSP_TPL_INVERTED,
									o2->id, s + o2->off, o2->len, o2->line };
				}
				op.id = syn->resolve(syn->data, ctx, source, &ref, opened, depth);
				if (op.id < 0) {
					r = op.id;
					goto fail;
				}
			}
			if (ne < ie && s[ne] == ':') {
				char *end;
				long w = strtol(s + ne + 1, &end, 10);
				if (tag != KSP_TPL_VAR || end == s + ne + 1 || (size_t)(end - s) != ie || w < -200 ||
				    w > 200) {
					r = syntax_error(&p, KSP_TPL_E_WIDTH);
					goto fail;
				}
				op.width = (int)w;
			} else if (ne != ie) {
				r = syntax_error(&p, KSP_TPL_E_TEXT);
				goto fail;
			}
			if (tag == KSP_TPL_SECTION || tag == KSP_TPL_INVERTED) {
				if (depth == (size_t)max_depth) {
					r = syntax_error(&p, KSP_TPL_E_DEPTH);
					goto fail;
				}
				op.kind = tag == KSP_TPL_SECTION ? OP_SECTION : OP_INVERTED;
				stack[depth++] = t->n_ops;
			} else if (tag == KSP_TPL_END) {
				struct op *open;
				if (depth == 0) {
					r = syntax_error(&p, KSP_TPL_E_CLOSES_NONE);
					goto fail;
				}
				open = &t->ops[stack[depth - 1]];
				if (open->len != op.len || memcmp(s + open->off, s + op.off, op.len) != 0) {
					set_open(&p, t, open);
					r = syntax_error(&p, KSP_TPL_E_CLOSES_OTHER);
					goto fail;
				}
				open->end = t->n_ops;
				depth--;
				op.kind = OP_END;
			} else {
				op.kind = OP_VAR;
			}
			r = add_op(t, &cap, &op);
			if (r < 0)
				goto fail;
		}
		pos = after;
	}
	if (depth > 0) {
		set_open(&p, t, &t->ops[stack[depth - 1]]);
		p.e.line = p.e.open_line;
		r = syntax_error(&p, KSP_TPL_E_UNCLOSED);
		goto fail;
	}
	*ret = t;
	return 0;
fail:
	if (r == -ENOMEM)
		ksp_set_error(ctx, "%s: out of memory parsing the template", source);
	ksp_tpl_free(t);
	return r;
}

/* --- rendering --- */

struct rctx {
	const struct ksp_tpl *t;
	const struct ksp_tpl_data *d;
	unsigned int escape;
	struct strbuf *out;
	struct ksp_tpl_frame frames[MAX_DEPTH];
	size_t depth;
};

static int get_value(struct rctx *rc, const struct op *op, struct ksp_tpl_value *v)
{
	static const enum ksp_tpl_tag tags[] = {
		[OP_VAR] = KSP_TPL_VAR, [OP_SECTION] = KSP_TPL_SECTION, [OP_INVERTED] = KSP_TPL_INVERTED,
		[OP_END] = KSP_TPL_END,
	};
	const struct ksp_tpl_ref ref = {
		.tag = tags[op->kind], .id = op->id, .name = rc->t->src + op->off, .len = op->len, .line = op->line,
	};

	memset(v, 0, sizeof(*v));
	v->s = "";
	return rc->d->value(rc->d->data, &ref, rc->frames, rc->depth, v);
}

static bool truthy(const struct ksp_tpl_value *v)
{
	switch (v->type) {
	case KSP_TPL_BOOL: return v->b;
	case KSP_TPL_LIST: return v->n > 0;
	default: return v->len > 0;
	}
}

static size_t utf8_width(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

static void pad(struct strbuf *out, size_t n)
{
	while (n--)
		strbuf_addch(out, ' ');
}

static int emit_value(struct rctx *rc, const struct op *op, const struct ksp_tpl_value *v)
{
	char *e = NULL;
	const char *s;
	size_t len, w;
	int r;

	if (v->type == KSP_TPL_MARKUP) {
		strbuf_add(rc->out, v->s, v->len);
		return 0;
	}
	if (v->type == KSP_TPL_BOOL) {
		s = v->b ? "yes" : "";
		len = strlen(s);
	} else if (v->type == KSP_TPL_LIST) {
		return -EINVAL; /* the user's resolve or value refuses it */
	} else {
		r = ksp_escape(v->s ? v->s : "", v->s ? v->len : 0, rc->escape, &e);
		if (r < 0)
			return r;
		s = e;
		len = strlen(e);
	}
	w = op->width ? utf8_width(s, len) : 0;
	if (op->width > 0 && w < (size_t)op->width)
		pad(rc->out, (size_t)op->width - w);
	strbuf_add(rc->out, s, len);
	if (op->width < 0 && w < (size_t)-op->width)
		pad(rc->out, (size_t)-op->width - w);
	free(e);
	return 0;
}

static int render_range(struct rctx *rc, size_t from, size_t to)
{
	const struct ksp_tpl *t = rc->t;
	int r;

	for (size_t i = from; i < to; i++) {
		const struct op *op = &t->ops[i];
		struct ksp_tpl_value v;

		switch (op->kind) {
		case OP_TEXT:
			strbuf_add(rc->out, t->src + op->off, op->len);
			break;
		case OP_VAR:
			r = get_value(rc, op, &v);
			if (r < 0)
				return r;
			r = emit_value(rc, op, &v);
			if (r < 0)
				return r;
			break;
		case OP_SECTION:
		case OP_INVERTED:
			r = get_value(rc, op, &v);
			if (r < 0)
				return r;
			if (op->kind == OP_SECTION && v.type == KSP_TPL_LIST) {
				/* the parser keeps the depth below MAX_DEPTH */
				struct ksp_tpl_frame *f = &rc->frames[rc->depth++];
				f->id = op->id;
				f->list = v.list;
				for (size_t k = 0; k < v.n; k++) {
					f->index = k;
					r = render_range(rc, i + 1, op->end);
					if (r < 0)
						return r;
				}
				rc->depth--;
			} else if (truthy(&v) == (op->kind == OP_SECTION)) {
				r = render_range(rc, i + 1, op->end);
				if (r < 0)
					return r;
			}
			i = op->end;
			break;
		case OP_END:
			break;
		}
	}
	return strbuf_ok(rc->out) ? 0 : -ENOMEM;
}

int ksp_tpl_render(const struct ksp_tpl *t, const struct ksp_tpl_data *d, unsigned int escape, struct strbuf *out)
{
	struct rctx rc = { .t = t, .d = d, .escape = escape, .out = out };

	return render_range(&rc, 0, t->n_ops);
}
