/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * template.h: the one template engine of libksp (template.c), knowing no
 * names: render/render-names.c gives the sheets' and slips'.
 * Internal to libksp.
 *
 * Syntax (a small subset of mustache; ksp-party-sheet(1) and ksp-party(1),
 * MAIL TEMPLATES, document it for their users):
 *   {{name}}              a value, escaped for the output
 *   {{name:N}}            right-aligned in N columns ({{name:-N}}: left),
 *                         where the user allows widths
 *   {{#name}}...{{/name}} a list repeated per item, or a block shown when
 *                         the value is true / not empty
 *   {{^name}}...{{/name}} a block shown when the value is false / empty
 *   {{! comment }}        nothing
 * A line holding only a {{#}}, {{^}}, {{/}} or {{!}} tag (and blanks) is
 * dropped whole, so that blocks do not leave empty lines.  There is no way
 * to output a value unescaped: {{{name}}} and {{&name}} are errors.
 *
 * The engine knows no names: its user gives them meaning, when the
 * template is parsed (resolve: an id, or an error) and when it is rendered
 * (value).  What a value becomes in the output is the user's choice of
 * escaper (ksp_escape(): KSP_ESCAPE_HTML for HTML, KSP_ESCAPE_TERMINAL for
 * text sheets and mail bodies); only a KSP_TPL_MARKUP value, which the
 * user makes itself (never from input), is written as it is.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "shared/strbuf.h"

struct ksp_ctx;
struct ksp_tpl; /* a parsed template */

enum ksp_tpl_tag { KSP_TPL_VAR, KSP_TPL_SECTION, KSP_TPL_INVERTED, KSP_TPL_END };
enum ksp_tpl_type { KSP_TPL_TEXT, KSP_TPL_BOOL, KSP_TPL_LIST, KSP_TPL_MARKUP };

/* Errors of the syntax, for a user that words them itself. */
enum ksp_tpl_err {
	KSP_TPL_E_NUL,          /* a NUL byte in the template */
	KSP_TPL_E_OPEN_TAG,     /* '{{' never closed by '}}' */
	KSP_TPL_E_UNESCAPED,    /* {{{name}}} or {{&name}} */
	KSP_TPL_E_NO_NAME,      /* {{}}, or a name holding '{' or a line break */
	KSP_TPL_E_TEXT,         /* text after the name */
	KSP_TPL_E_WIDTH,        /* a bad width, or one on a block tag */
	KSP_TPL_E_DEPTH,        /* blocks nested too deep */
	KSP_TPL_E_CLOSES_NONE,  /* {{/name}} with no block open */
	KSP_TPL_E_CLOSES_OTHER, /* {{/name}} while another block is open */
	KSP_TPL_E_UNCLOSED,     /* a block never closed */
};

struct ksp_tpl_error {
	enum ksp_tpl_err code;
	const char *source;
	unsigned int line;
	char sigil;       /* the tag's: '#', '^', '/', '{', '&' or 0 */
	const char *tag;  /* the inside of the tag, blanks trimmed */
	size_t tag_len;
	const char *name; /* its name */
	size_t name_len;
	/* E_CLOSES_OTHER, E_UNCLOSED: the open block */
	char open_sigil;
	const char *open_name;
	size_t open_len;
	unsigned int open_line;
	int max_depth; /* E_DEPTH */
};

/* A tag (being parsed or rendered). */
struct ksp_tpl_ref {
	enum ksp_tpl_tag tag;
	int id; /* from resolve, or -1 */
	const char *name;
	size_t len;
	unsigned int line;
};

/* How a template is read. */
struct ksp_tpl_syntax {
	void *data;
	bool widths;   /* {{name:N}} allowed; else ':' is part of a name */
	int max_depth; /* of blocks; 0: 16 */
	/* The id (>= 0) of the name in @ref (on line ref->line of @source;
	 * ref->id is -1), inside the blocks @open[0.. n_open) (outermost
	 * first); or a negative errno after ksp_set_error().  NULL: every
	 * name is -1, and the user looks it up when rendering. */
	int (*resolve)(void *data, struct ksp_ctx *ctx, const char *source, const struct ksp_tpl_ref *ref,
		       const struct ksp_tpl_ref *open, size_t n_open);
	/* Says @e with ksp_set_error(); NULL: ksp_tpl_error_default(). */
	void (*error)(void *data, struct ksp_ctx *ctx, const struct ksp_tpl_error *e);
};

/* A list block being repeated: the list's id, the item's index, and the
 * user's own pointer (ksp_tpl_value.list). */
struct ksp_tpl_frame {
	int id;
	size_t index;
	const void *list;
};

struct ksp_tpl_value {
	enum ksp_tpl_type type;
	const char *s; /* TEXT, MARKUP: @len bytes */
	size_t len;
	bool b;           /* BOOL */
	size_t n;         /* LIST: the number of items */
	const void *list; /* LIST: kept in the items' frames */
	char buf[32];     /* room for a number the user prints */
};

/* What a template is rendered with.  value: fills @v for @ref inside the
 * list items @frames[0.. depth) (outermost first); 0, or a negative errno
 * after ksp_set_error(). */
struct ksp_tpl_data {
	void *data;
	int (*value)(void *data, const struct ksp_tpl_ref *ref, const struct ksp_tpl_frame *frames, size_t depth,
		     struct ksp_tpl_value *v);
};

/* Parses @text (@len bytes, named @source in errors).  Returns 0 with
 * *ret, or -EINVAL (one line in ksp_get_error() naming @source and the
 * line) or -ENOMEM. */
int ksp_tpl_parse(struct ksp_ctx *ctx, const struct ksp_tpl_syntax *syn, const char *source, const char *text,
		  size_t len, struct ksp_tpl **ret);
struct ksp_tpl *ksp_tpl_free(struct ksp_tpl *t);

/* Renders @t into @out, each TEXT value through ksp_escape(@escape) and
 * padded to its width; a BOOL value as "yes" or "".  Returns 0 or the
 * first error of @d's value(), -ENOMEM. */
int ksp_tpl_render(const struct ksp_tpl *t, const struct ksp_tpl_data *d, unsigned int escape, struct strbuf *out);

/* The default wording of @e: "SOURCE:LINE: what is wrong; what to do". */
void ksp_tpl_error_default(struct ksp_ctx *ctx, const struct ksp_tpl_error *e);
