// SPDX-License-Identifier: LGPL-2.1-or-later
/* model-sequoia.c: Sequoia's web of trust (trust-sequoia.c) in the models'
 * table (model.h): its setting partial_core = FPR:AMOUNT, and one binding's
 * answer as a struct ksp_trust_result. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trust/model.h"
#include "lib/trust/result.h"
#include "shared/util.h"

static int sq_parse(struct ksp_ctx *ctx, void **opts, const char *key, const char *val, const char *base)
{
	struct ksp_trust_sequoia_opts *o = *opts;
	char f[80], norm[65], *colon, *end;
	long a;

	if (strcmp(key, "partial_core") != 0)
		return 0;
	snprintf(f, sizeof(f), "%s", val);
	colon = strchr(f, ':');
	a = colon ? strtol(colon + 1, &end, 10) : 0;
	if (colon == NULL || *end || a < 1 || a > 120 || (*colon = '\0', fpr_normalize(f, norm) < 0)) {
		ksp_set_error(ctx, "partial_core takes FPR:AMOUNT (a full fingerprint, amount 1-120), not '%.80s'", val);
		return -EINVAL;
	}
	if (o == NULL && (o = *opts = calloc(1, sizeof(*o))) == NULL)
		return -ENOMEM;
	if (o->n_partial == sizeof(o->partial) / sizeof(o->partial[0])) {
		ksp_set_error(ctx, "at most 64 partial_core roots");
		return -E2BIG;
	}
	memcpy(o->partial[o->n_partial].fpr, norm, sizeof(norm));
	o->partial[o->n_partial++].amount = (int)a;
	return 1;
}

static int sq_get(const void *opts, const char *key, int *val)
{
	const struct ksp_trust_sequoia_opts *o = opts;

	if (strcmp(key, "partial_core") != 0)
		return 0;
	*val = o ? (int)o->n_partial : 0;
	return 1;
}

static void *sq_copy(const void *opts)
{
	void *c = malloc(sizeof(struct ksp_trust_sequoia_opts));

	if (c)
		memcpy(c, opts, sizeof(struct ksp_trust_sequoia_opts));
	return c;
}

/* the paths as hops from key to key; the target's own self-signature
 * that ends a path is no hop */
static int sq_paths(const struct ksp_trust_sequoia *sq, struct ksp_trust_result *res, const char *uid, size_t ulen)
{
	for (size_t i = 0; i < ksp_trust_sequoia_get_path_count(sq); i++) {
		size_t len = ksp_trust_sequoia_get_path_length(sq, i), n = 0, h = 0;
		int p, r;

		for (size_t j = 0; j + 1 < len; j++)
			n += ksp_trust_sequoia_get_path_hop(sq, i, j, NULL, NULL, NULL) == 0;
		p = ksp_trust_result_add_path(res, n);
		if (p < 0)
			return p;
		for (size_t j = 0; j + 1 < len; j++) {
			int64_t created = 0;
			bool last = j + 2 == len;

			if (ksp_trust_sequoia_get_path_hop(sq, i, j, NULL, NULL, &created) != 0)
				continue;
			r = ksp_trust_result_set_hop(res, (size_t)p, h++, ksp_trust_sequoia_get_path_key(sq, i, j),
						     ksp_trust_sequoia_get_path_key(sq, i, j + 1), created,
						     last ? uid : NULL, last ? ulen : 0);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int sq_query(struct ksp_store *store, const struct ksp_trust_policy *pol, const char *fpr, const char *uid,
		    const char *email, int64_t at, struct ksp_trust_result **ret)
{
	struct ksp_trust_sequoia *sq = NULL;
	struct ksp_trust_result *res = NULL;
	int target = ksp_trust_policy_get_trust_amount(pol), amount = 0, r;
	const char *u;
	size_t ulen = 0;

	r = ksp_trust_sequoia_new(ksp_store_get_ctx(store), &sq);
	if (r == 0)
		r = ksp_trust_sequoia_set_policy(sq, store, pol);
	if (r < 0)
		goto out;
	res = ksp_trust_result_new(KSP_TRUST_MODEL_SEQUOIA, fpr);
	if (res == NULL) {
		r = -ENOMEM;
		goto out;
	}
	if (ksp_trust_sequoia_get_root_count(sq) == 0) {
		res->reason = KSP_TRUST_NO_CORE;
		ksp_trust_result_set_message(res, "not authenticated: no core keys (the roots) are given");
		goto fields;
	}
	r = ksp_trust_sequoia_authenticate(sq, store, at, fpr, uid, email);
	if (r == -ENOENT) {
		r = 0;
		res->reason = KSP_TRUST_TARGET_UNKNOWN;
		ksp_trust_result_set_message(res, "not authenticated: the key is not in the store");
		goto fields;
	}
	if (r < 0)
		goto out;
	amount = ksp_trust_sequoia_get_amount(sq);
	res->trusted = ksp_trust_sequoia_is_authenticated(sq);
	res->reason = res->trusted ? KSP_TRUST_TRUSTED : amount > 0 ? KSP_TRUST_TOO_FEW_PATHS : KSP_TRUST_NO_PATH;
	res->found = (int)ksp_trust_sequoia_get_path_count(sq);
	ksp_trust_result_set_message(res, "%s in Sequoia's web of trust (trust amount %d of %d)",
				     res->trusted ? "authenticated" : "not authenticated", amount, target);
	u = ksp_trust_sequoia_get_uid(sq, &ulen);
	if (u && (r = ksp_trust_result_set_uid(res, u, ulen)) < 0)
		goto out;
	r = sq_paths(sq, res, u, ulen);
	if (r < 0)
		goto out;
fields:
	r = ksp_trust_result_add_field(res, "trust_amount", KSP_TRUST_FIELD_NUMBER, amount, NULL);
	if (r == 0)
		r = ksp_trust_result_add_field(res, "target_amount", KSP_TRUST_FIELD_NUMBER, target, NULL);
	if (r == 0)
		r = ksp_trust_result_add_field(res, "certification_network", KSP_TRUST_FIELD_BOOL,
					       ksp_trust_policy_get_certification_network(pol), NULL);
out:
	ksp_trust_sequoia_free(sq);
	if (r < 0)
		res = ksp_trust_result_free(res);
	*ret = res;
	return r;
}

const struct ksp_trust_model_ops ksp_trust_model_sequoia = {
	.id = KSP_TRUST_MODEL_SEQUOIA,
	.name = "sequoia",
	.keys = "partial_core",
	.whatif = false,
	.parse = sq_parse,
	.get = sq_get,
	.copy = sq_copy,
	.free = free,
	.query = sq_query,
};
