// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * struct ksp_sign_opts: what a 'party sign' run certifies with (the level,
 * per run and per key, expiry, policy URL, the list notation), which keys
 * without an encryption subkey the user chose to mail in clear, and the
 * mail template.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/libksp-private.h"
#include "lib/party/mail-template.h"
#include "lib/party/sign-opts.h"
#include "shared/util.h"

KSP_EXPORT int ksp_sign_opts_new(struct ksp_ctx *ctx, struct ksp_sign_opts **ret)
{
	struct ksp_sign_opts *o;

	if (ctx == NULL || ret == NULL)
		return -EINVAL;
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return -ENOMEM;
	o->ctx = ctx;
	o->list_notation = true;
	*ret = o;
	return 0;
}

KSP_EXPORT struct ksp_sign_opts *ksp_sign_opts_free(struct ksp_sign_opts *o)
{
	if (o) {
		free(o->levels);
		free(o->policy_url);
		free(o->unencrypted);
		free(o->template_text);
		free(o->template_source);
		free(o);
	}
	return NULL;
}

KSP_EXPORT int ksp_sign_opts_set_level(struct ksp_sign_opts *o, const char *fpr, int level)
{
	char norm[65];

	if (o == NULL || level < 0 || level > 3) {
		if (o)
			ksp_set_error(o->ctx, "certification level %d: give 0, 1, 2 or 3", level);
		return -EINVAL;
	}
	if (fpr == NULL) {
		o->level = level;
		return 0;
	}
	if (fpr_normalize(fpr, norm) < 0) {
		ksp_set_error(o->ctx, "'%s' is not a full fingerprint (40 or 64 hex digits); key IDs are not accepted", fpr);
		return -EINVAL;
	}
	for (size_t i = 0; i < o->n_levels; i++)
		if (strcmp(o->levels[i].fpr, norm) == 0) {
			o->levels[i].level = level;
			return 0;
		}
	struct ksp_sign_level *v = realloc(o->levels, (o->n_levels + 1) * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	o->levels = v;
	memcpy(v[o->n_levels].fpr, norm, sizeof(norm));
	v[o->n_levels++].level = level;
	return 0;
}

int ksp_sign_opts_level_for(const struct ksp_sign_opts *o, const char *fpr)
{
	for (size_t i = 0; i < o->n_levels; i++)
		if (strcmp(o->levels[i].fpr, fpr) == 0)
			return o->levels[i].level;
	return o->level;
}

KSP_EXPORT int ksp_sign_opts_set_expires(struct ksp_sign_opts *o, int64_t seconds)
{
	if (o == NULL || seconds < 0 || seconds > (int64_t)100 * 366 * 86400)
		return -EINVAL;
	o->expires = seconds;
	return 0;
}

KSP_EXPORT int ksp_sign_opts_set_policy_url(struct ksp_sign_opts *o, const char *url)
{
	char *u = NULL;

	if (o == NULL)
		return -EINVAL;
	if (url) {
		for (const char *p = url; *p; p++)
			if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) {
				ksp_set_error(o->ctx, "policy URL '%s': printable ASCII without spaces only", url);
				return -EINVAL;
			}
		if (*url == '\0')
			return -EINVAL;
		u = strdup(url);
		if (u == NULL)
			return -ENOMEM;
	}
	free(o->policy_url);
	o->policy_url = u;
	return 0;
}

KSP_EXPORT int ksp_sign_opts_set_list_notation(struct ksp_sign_opts *o, bool on)
{
	if (o == NULL)
		return -EINVAL;
	o->list_notation = on;
	return 0;
}

KSP_EXPORT int ksp_sign_opts_add_unencrypted(struct ksp_sign_opts *o, const char *fpr)
{
	char norm[65];

	if (o == NULL || fpr == NULL)
		return -EINVAL;
	if (fpr_normalize(fpr, norm) < 0) {
		ksp_set_error(o->ctx, "'%s' is not a full fingerprint (40 or 64 hex digits); key IDs are not accepted", fpr);
		return -EINVAL;
	}
	if (ksp_sign_opts_is_unencrypted(o, norm))
		return 0;
	char (*v)[65] = realloc(o->unencrypted, (o->n_unencrypted + 1) * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	o->unencrypted = v;
	memcpy(v[o->n_unencrypted++], norm, sizeof(norm));
	return 0;
}

bool ksp_sign_opts_is_unencrypted(const struct ksp_sign_opts *o, const char *fpr)
{
	for (size_t i = 0; o && i < o->n_unencrypted; i++)
		if (strcmp(o->unencrypted[i], fpr) == 0)
			return true;
	return false;
}

KSP_EXPORT int ksp_sign_opts_set_template(struct ksp_sign_opts *o, const char *source, const char *text,
					  size_t len)
{
	char *t = NULL, *s = NULL;

	if (o == NULL || (text == NULL && len))
		return -EINVAL;
	if (text) {
		if (memchr(text, '\0', len)) {
			ksp_set_error(o->ctx, "%s: a NUL byte in the mail template", source ? source : "template");
			return -EINVAL;
		}
		t = strndup(text, len);
		s = strdup(source ? source : "template");
		if (t == NULL || s == NULL) {
			free(t);
			free(s);
			return -ENOMEM;
		}
	}
	free(o->template_text);
	free(o->template_source);
	o->template_text = t;
	o->template_source = s;
	return 0;
}

KSP_EXPORT int ksp_sign_opts_set_bcc_self(struct ksp_sign_opts *o, bool on)
{
	if (o == NULL)
		return -EINVAL;
	o->bcc_self = on;
	return 0;
}

/* @name: a built-in template ("en", "de": the language of kind @kind),
 * or a file. */
int ksp_mail_template_load(struct ksp_ctx *ctx, const char *kind, const char *name, char **ret_text,
			   char **ret_source)
{
	char builtin[32];
	const char *t;
	uint8_t *data = NULL;
	size_t len = 0;
	int r;

	*ret_text = *ret_source = NULL;
	snprintf(builtin, sizeof(builtin), "%s%s%s", kind, strcmp(name, "en") ? "." : "", strcmp(name, "en") ? name : "");
	if (strlen(name) == 2 && (t = ksp_mail_template_builtin_text(builtin)) != NULL) {
		*ret_text = strdup(t);
		if (asprintf(ret_source, "built-in template '%s'", builtin) < 0)
			*ret_source = NULL;
	} else {
		r = read_file_all(name, 64 * 1024, &data, &len);
		if (r < 0) {
			ksp_set_error(ctx, "%s: cannot read the mail template: %s; give a file, or en or de for a built-in one",
				      name, r == -EFBIG ? "more than 64 KiB" : strerror(-r));
			return r;
		}
		if (memchr(data, '\0', len)) {
			free(data);
			ksp_set_error(ctx, "%s: a NUL byte in the mail template", name);
			return -EINVAL;
		}
		*ret_text = (char *)data;
		*ret_source = strdup(name);
	}
	if (*ret_text == NULL || *ret_source == NULL) {
		free(*ret_text);
		free(*ret_source);
		*ret_text = *ret_source = NULL;
		return -ENOMEM;
	}
	return 0;
}

KSP_EXPORT int ksp_sign_opts_set_template_file(struct ksp_sign_opts *o, const char *name)
{
	char *t = NULL, *src = NULL;
	int r;

	if (o == NULL || name == NULL)
		return -EINVAL;
	r = ksp_mail_template_load(o->ctx, "sign", name, &t, &src);
	if (r < 0)
		return r;
	free(o->template_text);
	free(o->template_source);
	o->template_text = t;
	o->template_source = src;
	return 0;
}

KSP_EXPORT const char *ksp_mail_template_builtin(const char *name)
{
	return name ? ksp_mail_template_builtin_text(name) : NULL;
}
