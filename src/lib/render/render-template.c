// SPDX-License-Identifier: LGPL-2.1-or-later
/* The template engine of sheets and slips (text and HTML).
 *
 * Syntax (a small subset of mustache, documented in ksp-party-sheet(1)):
 *   {{name}}             a value, escaped for the output format
 *   {{name:N}}           right-aligned in N columns ({{name:-N}}: left)
 *   {{#name}}...{{/name}} a list repeated per item, or a block shown when
 *                        the value is true / not empty
 *   {{^name}}...{{/name}} a block shown when the value is false / empty
 *   {{! comment }}       nothing
 * A line holding only a {{#}}, {{^}}, {{/}} or {{!}} tag (and blanks) is
 * dropped whole, so that blocks do not leave empty lines.  There is no way
 * to output a value unescaped: {{{name}}} and {{&name}} are errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/render/render-private.h"

enum frame_kind { F_TOP, F_PART, F_UID, F_SLIP };
enum value_type { T_TEXT, T_BOOL, T_LIST, T_MARKUP };

enum name_id {
	N_PARTY_NAME,
	N_PARTY_DATE,
	N_PARTY_LOCATION,
	N_PARTY_ORGANIZER,
	N_LIST_VERSION,
	N_LIST_SHA256,
	N_LIST_SHA256_GROUPS,
	N_LIST_RMD160,
	N_LIST_RMD160_GROUPS,
	N_PARTICIPANTS,
	N_PARTICIPANTS_COUNT,
	N_DRAFT,
	N_FROZEN,
	N_PERSONAL,
	N_YOU_NUMBER,
	N_YOU_FINGERPRINT,
	N_PAPER,
	N_QR,
	N_NUMBER,
	N_FINGERPRINT,
	N_FINGERPRINT_HEX,
	N_ALGO,
	N_CREATED,
	N_EXPIRES,
	N_IS_YOU,
	N_UIDS,
	N_UIDS_COUNT,
	N_SLIPS,
	N_QR_CODE,
	N_UID,
	N_UID_NUMBER,
	N_PRIMARY,
	N_SLIP_NUMBER,
	N_COUNT_
};

#define K_SHEET (1u << KSP_RENDER_SHEET)
#define K_SLIPS (1u << KSP_RENDER_SLIPS)
#define K_ALL (K_SHEET | K_SLIPS)

static const struct name_def {
	const char *name;
	unsigned char frame; /* where the value lives */
	unsigned char type;
	unsigned char child; /* T_LIST: the frame of an item */
	unsigned char kinds; /* templates it is valid in */
} names[N_COUNT_] = {
	[N_PARTY_NAME] = { "party.name", F_TOP, T_TEXT, 0, K_ALL },
	[N_PARTY_DATE] = { "party.date", F_TOP, T_TEXT, 0, K_ALL },
	[N_PARTY_LOCATION] = { "party.location", F_TOP, T_TEXT, 0, K_ALL },
	[N_PARTY_ORGANIZER] = { "party.organizer", F_TOP, T_TEXT, 0, K_ALL },
	[N_LIST_VERSION] = { "list.version", F_TOP, T_TEXT, 0, K_ALL },
	[N_LIST_SHA256] = { "list.sha256", F_TOP, T_TEXT, 0, K_ALL },
	[N_LIST_SHA256_GROUPS] = { "list.sha256_groups", F_TOP, T_TEXT, 0, K_ALL },
	[N_LIST_RMD160] = { "list.ripemd160", F_TOP, T_TEXT, 0, K_ALL },
	[N_LIST_RMD160_GROUPS] = { "list.ripemd160_groups", F_TOP, T_TEXT, 0, K_ALL },
	[N_PARTICIPANTS] = { "participants", F_TOP, T_LIST, F_PART, K_ALL },
	[N_PARTICIPANTS_COUNT] = { "participants.count", F_TOP, T_TEXT, 0, K_ALL },
	[N_DRAFT] = { "draft", F_TOP, T_BOOL, 0, K_ALL },
	[N_FROZEN] = { "frozen", F_TOP, T_BOOL, 0, K_ALL },
	[N_PERSONAL] = { "personal", F_TOP, T_BOOL, 0, K_ALL },
	[N_YOU_NUMBER] = { "you.number", F_TOP, T_TEXT, 0, K_ALL },
	[N_YOU_FINGERPRINT] = { "you.fingerprint", F_TOP, T_TEXT, 0, K_ALL },
	[N_PAPER] = { "paper", F_TOP, T_TEXT, 0, K_ALL },
	[N_QR] = { "qr", F_TOP, T_BOOL, 0, K_SLIPS },
	[N_NUMBER] = { "number", F_PART, T_TEXT, 0, K_ALL },
	[N_FINGERPRINT] = { "fingerprint", F_PART, T_TEXT, 0, K_ALL },
	[N_FINGERPRINT_HEX] = { "fingerprint.hex", F_PART, T_TEXT, 0, K_ALL },
	[N_ALGO] = { "algo", F_PART, T_TEXT, 0, K_ALL },
	[N_CREATED] = { "created", F_PART, T_TEXT, 0, K_ALL },
	[N_EXPIRES] = { "expires", F_PART, T_TEXT, 0, K_ALL },
	[N_IS_YOU] = { "is_you", F_PART, T_BOOL, 0, K_ALL },
	[N_UIDS] = { "uids", F_PART, T_LIST, F_UID, K_ALL },
	[N_UIDS_COUNT] = { "uids.count", F_PART, T_TEXT, 0, K_ALL },
	[N_SLIPS] = { "slips", F_PART, T_LIST, F_SLIP, K_SLIPS },
	[N_QR_CODE] = { "qr.code", F_PART, T_MARKUP, 0, K_SLIPS },
	[N_UID] = { "uid", F_UID, T_TEXT, 0, K_ALL },
	[N_UID_NUMBER] = { "uid.number", F_UID, T_TEXT, 0, K_ALL },
	[N_PRIMARY] = { "primary", F_UID, T_BOOL, 0, K_ALL },
	[N_SLIP_NUMBER] = { "slip.number", F_SLIP, T_TEXT, 0, K_SLIPS },
};

static const char *const frame_names[] = {
	[F_TOP] = "the top level",
	[F_PART] = "{{#participants}}",
	[F_UID] = "{{#uids}}",
	[F_SLIP] = "{{#slips}}",
};

enum op_kind { OP_TEXT, OP_VAR, OP_SECTION, OP_INVERTED, OP_END };

struct op {
	unsigned char kind;
	unsigned char name;
	int width;
	size_t off, len; /* OP_TEXT: bytes of the source */
	size_t end;      /* OP_SECTION/OP_INVERTED: index of its OP_END */
	unsigned int line;
};

struct rd_template {
	char *src;
	size_t len;
	struct op *ops;
	size_t n_ops;
	unsigned int kind;
};

#define MAX_DEPTH 16

struct rd_template *rd_template_free(struct rd_template *t)
{
	if (t == NULL)
		return NULL;
	free(t->src);
	free(t->ops);
	free(t);
	return NULL;
}

static int add_op(struct rd_template *t, size_t *cap, const struct op *op)
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

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int find_name(const char *s, size_t n)
{
	for (int i = 0; i < N_COUNT_; i++)
		if (strlen(names[i].name) == n && memcmp(names[i].name, s, n) == 0)
			return i;
	return -1;
}

static size_t count_lines(const char *s, size_t from, size_t to)
{
	size_t n = 0;
	for (size_t i = from; i < to; i++)
		n += s[i] == '\n';
	return n;
}

int rd_template_parse(struct ksp_ctx *ctx, const char *source, const char *text, size_t len,
		      unsigned int kind, struct rd_template **ret)
{
	struct rd_template *t;
	size_t cap = 0, pos = 0, stack[MAX_DEPTH], depth = 0, line_pos = 0;
	unsigned char frames[MAX_DEPTH + 1];
	unsigned int line = 1;
	int r = 0;

	if (memchr(text, '\0', len)) {
		ksp_set_error(ctx, "%s: the template holds a NUL byte; templates are UTF-8 text", source);
		return -EINVAL;
	}
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
	t->kind = kind;
	frames[0] = F_TOP;
	const char *s = t->src;

	while (pos < len) {
		const char *o = memmem(s + pos, len - pos, "{{", 2);
		size_t ts, te, after, text_end, is, ie;
		struct op op = { 0 };
		char sigil;

		if (o == NULL) {
			op.kind = OP_TEXT;
			op.off = pos;
			op.len = len - pos;
			r = add_op(t, &cap, &op);
			if (r < 0)
				goto fail;
			break;
		}
		ts = (size_t)(o - s);
		line += (unsigned)count_lines(s, line_pos, ts);
		line_pos = ts;
		o = memmem(s + ts + 2, len - ts - 2, "}}", 2);
		if (o == NULL) {
			ksp_set_error(ctx, "%s:%u: '{{' is never closed by '}}'", source, line);
			r = -EINVAL;
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
		if (sigil == '{' || sigil == '&') {
			ksp_set_error(ctx, "%s:%u: '{{%c' (unescaped output) is not supported: every value is escaped; use {{name}}",
				      source, line, sigil);
			r = -EINVAL;
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
			if ((ls == 0 || s[ls - 1] == '\n') && (ls >= pos) &&
			    (re == len || s[re] == '\n' || (s[re] == '\r' && re + 1 < len && s[re + 1] == '\n'))) {
				text_end = ls;
				after = re == len ? re : re + (s[re] == '\r' ? 2 : 1);
			}
		}
		if (text_end > pos) {
			op.kind = OP_TEXT;
			op.off = pos;
			op.len = text_end - pos;
			r = add_op(t, &cap, &op);
			if (r < 0)
				goto fail;
		}
		memset(&op, 0, sizeof(op));
		op.line = line;
		if (sigil == '!') {
			/* comment */
		} else {
			size_t ns = sigil == '#' || sigil == '^' || sigil == '/' ? is + 1 : is, ne;
			int id;
			while (ns < ie && is_blank(s[ns]))
				ns++;
			ne = ns;
			while (ne < ie && s[ne] != ':' && !is_blank(s[ne]))
				ne++;
			id = find_name(s + ns, ne - ns);
			if (id < 0 || !(names[id].kinds & (1u << kind))) {
				ksp_set_error(ctx, "%s:%u: unknown name '{{%.*s}}'%s; ksp-party-sheet(1) lists the names",
					      source, line, (int)(ne - ns), s + ns,
					      id >= 0 ? " in this kind of template" : "");
				r = -EINVAL;
				goto fail;
			}
			if (sigil != '/') {
				bool found = false;
				for (size_t i = 0; i <= depth; i++)
					found |= frames[i] == names[id].frame;
				if (!found) {
					ksp_set_error(ctx, "%s:%u: '{{%s}}' is only known inside %s", source, line,
						      names[id].name, frame_names[names[id].frame]);
					r = -EINVAL;
					goto fail;
				}
			}
			if (ne < ie && s[ne] == ':') {
				char *end;
				long w = strtol(s + ne + 1, &end, 10);
				if (sigil == '#' || sigil == '^' || sigil == '/' || end == s + ne + 1 ||
				    (size_t)(end - s) != ie || w < -200 || w > 200) {
					ksp_set_error(ctx, "%s:%u: bad width in '{{%.*s}}'; write {{name:N}} with N from -200 to 200",
						      source, line, (int)(ie - is), s + is);
					r = -EINVAL;
					goto fail;
				}
				op.width = (int)w;
			} else if (ne != ie) {
				ksp_set_error(ctx, "%s:%u: unexpected text in '{{%.*s}}'", source, line, (int)(ie - is), s + is);
				r = -EINVAL;
				goto fail;
			}
			op.name = (unsigned char)id;
			if (sigil == '#' || sigil == '^') {
				if (depth == MAX_DEPTH) {
					ksp_set_error(ctx, "%s:%u: blocks nested deeper than %d", source, line, MAX_DEPTH);
					r = -EINVAL;
					goto fail;
				}
				op.kind = sigil == '#' ? OP_SECTION : OP_INVERTED;
				stack[depth++] = t->n_ops;
				frames[depth] = sigil == '#' && names[id].type == T_LIST ? names[id].child
											 : frames[depth - 1];
			} else if (sigil == '/') {
				struct op *open;
				if (depth == 0) {
					ksp_set_error(ctx, "%s:%u: '{{/%s}}' closes no block", source, line, names[id].name);
					r = -EINVAL;
					goto fail;
				}
				open = &t->ops[stack[depth - 1]];
				if (open->name != id) {
					ksp_set_error(ctx, "%s:%u: '{{/%s}}' closes '{{%c%s}}' of line %u; close that first",
						      source, line, names[id].name, open->kind == OP_SECTION ? '#' : '^',
						      names[open->name].name, open->line);
					r = -EINVAL;
					goto fail;
				}
				open->end = t->n_ops;
				depth--;
				op.kind = OP_END;
			} else {
				if (names[id].type == T_LIST) {
					ksp_set_error(ctx, "%s:%u: '{{%s}}' is a list: repeat a block over it with {{#%s}}...{{/%s}}",
						      source, line, names[id].name, names[id].name, names[id].name);
					r = -EINVAL;
					goto fail;
				}
				op.kind = OP_VAR;
			}
			r = add_op(t, &cap, &op);
			if (r < 0)
				goto fail;
		}
		pos = after;
	}
	if (depth > 0) {
		const struct op *open = &t->ops[stack[depth - 1]];
		ksp_set_error(ctx, "%s:%u: '{{%c%s}}' is never closed; add {{/%s}}", source, open->line,
			      open->kind == OP_SECTION ? '#' : '^', names[open->name].name, names[open->name].name);
		r = -EINVAL;
		goto fail;
	}
	*ret = t;
	return 0;
fail:
	if (r == -ENOMEM)
		ksp_set_error(ctx, "%s: out of memory parsing the template", source);
	rd_template_free(t);
	return r;
}

/* --- rendering --- */

struct frame {
	unsigned char kind;
	size_t index; /* F_PART: into doc->parts; F_UID: uid; F_SLIP: slip */
};

struct rctx {
	const struct rd_template *t;
	const struct rd_doc *doc;
	unsigned int format;
	struct strbuf *out;
	struct frame frames[MAX_DEPTH + 1];
	size_t depth;
	char **qr_cache; /* per participant */
};

struct value {
	unsigned char type;
	const char *s;
	size_t len;
	bool b;
	size_t n;
	char buf[32];
};

static const struct frame *find_frame(const struct rctx *rc, unsigned char kind)
{
	for (size_t i = rc->depth + 1; i-- > 0;)
		if (rc->frames[i].kind == kind)
			return &rc->frames[i];
	return NULL;
}

static size_t slip_count(const struct rd_doc *doc)
{
	return doc->count ? doc->count : 8;
}

static void set_text(struct value *v, const char *s)
{
	v->type = T_TEXT;
	v->s = s ? s : "";
	v->len = strlen(v->s);
}

static int get_qr(struct rctx *rc, size_t part, struct value *v)
{
	v->type = T_MARKUP;
	v->s = "";
	v->len = 0;
	if (!(rc->doc->flags & KSP_RENDER_QR))
		return 0;
	if (rc->qr_cache[part] == NULL) {
		struct rd_qr *q = NULL;
		struct strbuf sb;
		int r = rd_qr_new(rc->doc->ctx, rc->doc->parts[part].fpr_hex, &q);
		if (r < 0)
			return r;
		strbuf_init(&sb);
		r = rc->format == KSP_FORMAT_HTML ? rd_qr_svg(q, &sb) : rd_qr_text(q, &sb);
		rd_qr_free(q);
		if (r < 0) {
			strbuf_release(&sb);
			return r;
		}
		rc->qr_cache[part] = strbuf_steal(&sb);
		if (rc->qr_cache[part] == NULL)
			return -ENOMEM;
	}
	v->s = rc->qr_cache[part];
	v->len = strlen(v->s);
	return 0;
}

static size_t list_len(const struct rctx *rc, int id, const struct rd_part *part)
{
	switch (id) {
	case N_PARTICIPANTS:
		return rc->doc->kind == KSP_RENDER_SLIPS ? rc->doc->n_selected : rc->doc->n_parts;
	case N_UIDS:
		return ksp_participant_get_uid_count(part->p);
	case N_SLIPS:
		return slip_count(rc->doc);
	}
	return 0;
}

static int get_value(struct rctx *rc, int id, struct value *v)
{
	const struct rd_doc *doc = rc->doc;
	const struct frame *f = find_frame(rc, names[id].frame);
	const struct rd_part *part = NULL;

	memset(v, 0, sizeof(*v));
	if (f == NULL)
		return -EINVAL; /* the parser prevents it */
	if (names[id].frame == F_PART || names[id].frame == F_UID) {
		const struct frame *pf = find_frame(rc, F_PART);
		if (pf == NULL)
			return -EINVAL;
		part = &doc->parts[pf->index];
	}
	switch (id) {
	case N_PARTY_NAME: set_text(v, ksp_party_get_name(doc->party)); break;
	case N_PARTY_DATE: set_text(v, ksp_party_get_date(doc->party)); break;
	case N_PARTY_LOCATION: set_text(v, ksp_party_get_location(doc->party)); break;
	case N_PARTY_ORGANIZER: set_text(v, doc->organizer_groups); break;
	case N_LIST_VERSION: set_text(v, doc->version_s); break;
	case N_LIST_SHA256: set_text(v, doc->sha256); break;
	case N_LIST_SHA256_GROUPS: set_text(v, doc->sha256_groups); break;
	case N_LIST_RMD160: set_text(v, doc->rmd160); break;
	case N_LIST_RMD160_GROUPS: set_text(v, doc->rmd160_groups); break;
	case N_PARTICIPANTS_COUNT: set_text(v, doc->count_s); break;
	case N_DRAFT: v->type = T_BOOL; v->b = doc->draft; break;
	case N_FROZEN: v->type = T_BOOL; v->b = !doc->draft; break;
	case N_PERSONAL: v->type = T_BOOL; v->b = doc->you != NULL; break;
	case N_YOU_NUMBER: set_text(v, doc->you ? doc->you->number_s : ""); break;
	case N_YOU_FINGERPRINT: set_text(v, doc->you ? doc->you->fpr_groups : ""); break;
	case N_PAPER: set_text(v, doc->paper == KSP_PAPER_LETTER ? "letter" : "A4"); break;
	case N_QR: v->type = T_BOOL; v->b = (doc->flags & KSP_RENDER_QR) != 0; break;
	case N_NUMBER: set_text(v, part->number_s); break;
	case N_FINGERPRINT: set_text(v, part->fpr_groups); break;
	case N_FINGERPRINT_HEX: set_text(v, part->fpr_hex); break;
	case N_ALGO: set_text(v, ksp_participant_get_algo(part->p)); break;
	case N_CREATED: set_text(v, part->created); break;
	case N_EXPIRES: set_text(v, part->expires); break;
	case N_IS_YOU: v->type = T_BOOL; v->b = part->is_you; break;
	case N_UIDS_COUNT:
		snprintf(v->buf, sizeof(v->buf), "%zu", ksp_participant_get_uid_count(part->p));
		set_text(v, v->buf);
		break;
	case N_QR_CODE: return get_qr(rc, (size_t)(part - doc->parts), v);
	case N_UID:
		v->type = T_TEXT;
		v->s = ksp_participant_get_uid(part->p, f->index, &v->len);
		if (v->s == NULL) {
			v->s = "";
			v->len = 0;
		}
		break;
	case N_UID_NUMBER:
	case N_SLIP_NUMBER:
		snprintf(v->buf, sizeof(v->buf), "%zu", f->index + 1);
		set_text(v, v->buf);
		break;
	case N_PRIMARY: v->type = T_BOOL; v->b = f->index == 0; break;
	case N_PARTICIPANTS:
	case N_UIDS:
	case N_SLIPS:
		v->type = T_LIST;
		v->n = list_len(rc, id, part);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static bool truthy(const struct value *v)
{
	switch (v->type) {
	case T_BOOL: return v->b;
	case T_LIST: return v->n > 0;
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

static int emit_value(struct rctx *rc, const struct op *op, const struct value *v)
{
	char *e = NULL;
	const char *s;
	size_t len, w;
	int r;

	if (v->type == T_MARKUP) {
		strbuf_add(rc->out, v->s, v->len);
		return 0;
	}
	if (v->type == T_BOOL) {
		s = v->b ? "yes" : "";
		len = strlen(s);
	} else {
		r = ksp_escape(v->s, v->len, rc->format == KSP_FORMAT_HTML ? KSP_ESCAPE_HTML : KSP_ESCAPE_TERMINAL, &e);
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
	const struct rd_template *t = rc->t;
	int r;

	for (size_t i = from; i < to; i++) {
		const struct op *op = &t->ops[i];
		struct value v;

		switch (op->kind) {
		case OP_TEXT:
			strbuf_add(rc->out, t->src + op->off, op->len);
			break;
		case OP_VAR:
			r = get_value(rc, op->name, &v);
			if (r < 0)
				return r;
			r = emit_value(rc, op, &v);
			if (r < 0)
				return r;
			break;
		case OP_SECTION:
		case OP_INVERTED:
			r = get_value(rc, op->name, &v);
			if (r < 0)
				return r;
			if (op->kind == OP_SECTION && v.type == T_LIST) {
				rc->depth++;
				rc->frames[rc->depth].kind = names[op->name].child;
				for (size_t k = 0; k < v.n; k++) {
					/* slips: only the selected participants, in order */
					if (op->name == N_PARTICIPANTS && rc->doc->kind == KSP_RENDER_SLIPS)
						rc->frames[rc->depth].index = rc->doc->sel[k];
					else
						rc->frames[rc->depth].index = k;
					r = render_range(rc, i + 1, op->end);
					if (r < 0)
						return r;
				}
				rc->depth--;
			} else if (truthy(&v) == (op->kind == OP_SECTION)) {
				rc->depth++;
				rc->frames[rc->depth] = rc->frames[rc->depth - 1];
				r = render_range(rc, i + 1, op->end);
				rc->depth--;
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

int rd_template_render(const struct rd_template *t, const struct rd_doc *doc, unsigned int format,
		       struct strbuf *out)
{
	struct rctx rc = { .t = t, .doc = doc, .format = format, .out = out };
	int r;

	rc.frames[0].kind = F_TOP;
	rc.qr_cache = calloc(doc->n_parts ? doc->n_parts : 1, sizeof(char *));
	if (rc.qr_cache == NULL)
		return -ENOMEM;
	r = render_range(&rc, 0, t->n_ops);
	for (size_t i = 0; i < doc->n_parts; i++)
		free(rc.qr_cache[i]);
	free(rc.qr_cache);
	if (r == -ENOMEM)
		ksp_set_error(doc->ctx, "out of memory rendering the template");
	return r;
}
