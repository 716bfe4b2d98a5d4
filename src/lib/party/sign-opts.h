/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The options of one 'party sign' run (struct ksp_sign_opts), as
 * party-sign.c reads them.  Internal to libksp. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksp_sign_level {
	char fpr[65];
	int level;
};

struct ksp_sign_opts {
	struct ksp_ctx *ctx;
	int level;                     /* the run's level, 0-3 */
	struct ksp_sign_level *levels; /* per key */
	size_t n_levels;
	int64_t expires;               /* seconds after signing; 0: never */
	char *policy_url;
	bool list_notation;            /* ksp-list-sha256@ksp.invalid on each certification */
	char (*unencrypted)[65];       /* keys mailed without encryption, by opt-in */
	size_t n_unencrypted;
	char *template_text;           /* the mail template, NULL: built-in English */
	char *template_source;
	bool bcc_self;
};

/* The level for key @fpr (upper-case hex). */
int ksp_sign_opts_level_for(const struct ksp_sign_opts *o, const char *fpr);
bool ksp_sign_opts_is_unencrypted(const struct ksp_sign_opts *o, const char *fpr);

/* The template @name of @kind ("sign", "remind"): "en", "de" (built in)
 * or a file; *ret_text and *ret_source (its name in errors) malloc'ed. */
int ksp_mail_template_load(struct ksp_ctx *ctx, const char *kind, const char *name, char **ret_text,
			   char **ret_source);
