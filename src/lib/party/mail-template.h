/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mail-template.h: the subject and body of the mails 'party sign' and
 * 'party remind' write, from templates (templates/mail-*.txt, built in;
 * or the user's, --template).  The syntax is the sheets' (ksp-party-sheet(1)):
 *   {{name}}  {{#name}}...{{/name}}  {{^name}}...{{/name}}  {{! comment }}
 * with a line holding only a section tag or a comment dropped whole, and no
 * way to output a value unescaped.  The sheet engine (render/) is bound to
 * the sheet's document and lives where party/ may not call it (the arrows
 * of tests/check-arrows.py); this one takes any names, given per mail kind.
 * A template's first line (after comments) is "Subject: ...", then an
 * empty line, then the body.  Internal to libksp.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "shared/strbuf.h"

struct ksp_ctx;

/* One name a template may use: a text (@text), a truth value (@text NULL,
 * @truth), or a list of @n_items items of @n_fields fields each (@items,
 * item i's fields at items[i * n_fields ...]). */
struct mt_var {
	const char *name;
	const char *text;
	bool truth;
	const struct mt_var *items;
	size_t n_items, n_fields;
	bool is_list;
};

/* Renders @text (@len bytes, named @source in errors) with @vars (the top
 * level, @n_vars of them): *subject (one line) and the body into @body.
 * Every value is escaped for a terminal (controls as \xNN, bidi overrides
 * as \u{NNNN}).  An unknown name, an unbalanced section or a missing
 * Subject: line: -EINVAL with one line in ksp_get_error() naming @source
 * and the line.  Returns 0, -EINVAL or -ENOMEM. */
int ksp_mail_template_render(struct ksp_ctx *ctx, const char *source, const char *text, size_t len,
			     const struct mt_var *vars, size_t n_vars, struct strbuf *subject,
			     struct strbuf *body);

/* A header field body for @text (UTF-8; any bytes): as it is when it is
 * printable ASCII, else RFC 2047 encoded words (UTF-8, base64) folded at
 * 75 columns.  @phrase: a display name (quoted when it holds specials). */
void ksp_mail_header_text(struct strbuf *sb, const char *text, bool phrase);

/* The built-in templates: "sign", "sign.de", "remind", "remind.de"; NULL
 * for another name. */
const char *ksp_mail_template_builtin_text(const char *name);
