// SPDX-License-Identifier: LGPL-2.1-or-later
/* result.c: a trust verdict, its reason and message, and its paths (the
 * public getters of struct ksp_trust_result). */
#include <errno.h>
#include <stdlib.h>

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
