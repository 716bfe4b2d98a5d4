// SPDX-License-Identifier: LGPL-2.1-or-later
/* result.c: a trust verdict, its reason and message, and its paths (the
 * public getters of struct ksp_trust_result). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trust/result.h"

KSP_EXPORT struct ksp_trust_result *ksp_trust_result_free(struct ksp_trust_result *r)
{
	if (r) {
		for (size_t i = 0; i < r->n_paths; i++) {
			for (size_t j = 0; j < r->paths[i].n; j++)
				free(r->paths[i].hops[j].uid);
			free(r->paths[i].hops);
		}
		free(r->paths);
		free(r->uid);
		for (size_t i = 0; i < r->n_fields; i++)
			free(r->fields[i].str);
		free(r);
	}
	return NULL;
}

KSP_EXPORT bool ksp_trust_result_is_trusted(const struct ksp_trust_result *r)
{
	return r && r->trusted;
}

KSP_EXPORT int ksp_trust_result_get_reason(const struct ksp_trust_result *r)
{
	return r ? r->reason : -EINVAL;
}

KSP_EXPORT const char *ksp_trust_result_get_message(const struct ksp_trust_result *r)
{
	return r ? r->message : NULL;
}

KSP_EXPORT int ksp_trust_result_get_paths_found(const struct ksp_trust_result *r)
{
	return r ? r->found : -EINVAL;
}

KSP_EXPORT size_t ksp_trust_result_get_path_count(const struct ksp_trust_result *r)
{
	return r ? r->n_paths : 0;
}

KSP_EXPORT size_t ksp_trust_result_get_path_length(const struct ksp_trust_result *r, size_t path)
{
	return r && path < r->n_paths ? r->paths[path].n : 0;
}

KSP_EXPORT int ksp_trust_result_get_hop(const struct ksp_trust_result *r, size_t path, size_t hop,
					const char **signer, const char **signee, int64_t *created,
					const char **uid, size_t *uid_len)
{
	const struct thop *h;

	if (r == NULL || path >= r->n_paths || hop >= r->paths[path].n)
		return -EINVAL;
	h = &r->paths[path].hops[hop];
	if (signer)
		*signer = h->signer;
	if (signee)
		*signee = h->signee;
	if (created)
		*created = h->created;
	if (uid)
		*uid = h->uid;
	if (uid_len)
		*uid_len = h->uid_len;
	return 0;
}

KSP_EXPORT const char *ksp_trust_result_get_uid(const struct ksp_trust_result *r, size_t *len)
{
	if (r == NULL || r->uid == NULL)
		return NULL;
	if (len)
		*len = r->uid_len;
	return r->uid;
}

KSP_EXPORT uint64_t ksp_trust_result_get_explored(const struct ksp_trust_result *r)
{
	return r ? r->explored : 0;
}

KSP_EXPORT uint64_t ksp_trust_result_get_dropped(const struct ksp_trust_result *r, unsigned int which)
{
	return r && which < KSP_DROPPED_MAX ? r->dropped[which] : 0;
}

KSP_EXPORT int ksp_trust_result_get_model(const struct ksp_trust_result *r)
{
	return r ? r->model : -EINVAL;
}

KSP_EXPORT int ksp_trust_result_get_field(const struct ksp_trust_result *r, size_t i, const char **name,
					  int64_t *num, const char **str)
{
	if (r == NULL || i >= r->n_fields)
		return -ERANGE;
	if (name)
		*name = r->fields[i].name;
	if (num)
		*num = r->fields[i].num;
	if (str)
		*str = r->fields[i].str;
	return r->fields[i].type;
}

/* ---- for the models' adapters (result.h) ------------------------------------ */

struct ksp_trust_result *ksp_trust_result_new(int model, const char *target)
{
	struct ksp_trust_result *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->model = model;
	r->reason = KSP_TRUST_NO_PATH;
	snprintf(r->target, sizeof(r->target), "%s", target ? target : "");
	return r;
}

void ksp_trust_result_set_message(struct ksp_trust_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
}

int ksp_trust_result_set_uid(struct ksp_trust_result *r, const char *uid, size_t len)
{
	char *c = malloc(len + 1);

	if (c == NULL)
		return -ENOMEM;
	memcpy(c, uid, len);
	c[len] = '\0';
	free(r->uid);
	r->uid = c;
	r->uid_len = len;
	return 0;
}

int ksp_trust_result_add_path(struct ksp_trust_result *r, size_t n)
{
	struct tpath *np = realloc(r->paths, (r->n_paths + 1) * sizeof(*r->paths));

	if (np == NULL)
		return -ENOMEM;
	r->paths = np;
	np[r->n_paths].n = 0;
	np[r->n_paths].hops = calloc(n ? n : 1, sizeof(struct thop));
	if (np[r->n_paths].hops == NULL)
		return -ENOMEM;
	np[r->n_paths].n = n;
	return (int)r->n_paths++;
}

int ksp_trust_result_set_hop(struct ksp_trust_result *r, size_t path, size_t hop, const char *signer,
			     const char *signee, int64_t created, const char *uid, size_t uid_len)
{
	struct thop *h;

	if (path >= r->n_paths || hop >= r->paths[path].n)
		return -EINVAL;
	h = &r->paths[path].hops[hop];
	snprintf(h->signer, sizeof(h->signer), "%s", signer ? signer : "");
	snprintf(h->signee, sizeof(h->signee), "%s", signee ? signee : "");
	h->created = created;
	free(h->uid);
	h->uid = NULL;
	h->uid_len = 0;
	if (uid) {
		h->uid = malloc(uid_len + 1);
		if (h->uid == NULL)
			return -ENOMEM;
		memcpy(h->uid, uid, uid_len);
		h->uid[uid_len] = '\0';
		h->uid_len = uid_len;
	}
	return 0;
}

int ksp_trust_result_add_field(struct ksp_trust_result *r, const char *name, int type, int64_t num, const char *str)
{
	struct tfield *f;

	if (r->n_fields == sizeof(r->fields) / sizeof(r->fields[0]))
		return -E2BIG;
	f = &r->fields[r->n_fields];
	*f = (struct tfield){ .name = name, .type = type, .num = num };
	if (type == KSP_TRUST_FIELD_STRING) {
		f->str = strdup(str ? str : "");
		if (f->str == NULL)
			return -ENOMEM;
	}
	r->n_fields++;
	return 0;
}
