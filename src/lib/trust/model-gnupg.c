// SPDX-License-Identifier: LGPL-2.1-or-later
/* model-gnupg.c: GnuPG's classic trust model (trust-gnupg.c) in the
 * models' table (model.h): its settings (ownertrust, marginals_needed,
 * completes_needed, max_cert_depth, min_cert_level), the policy applied to
 * a struct ksp_trust_gnupg, and one key's validity as a struct
 * ksp_trust_result. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trust/model.h"
#include "lib/trust/result.h"
#include "lib/trust/policy.h"
#include "lib/trust/whatif.h"
#include "shared/util.h"

#define MAX_OT 8

struct gnupg_opts {
	char *ownertrust[MAX_OT]; /* files, read at each validation */
	size_t n_ot;
	int marginals, completes, max_depth, min_level; /* 0: gpg's default */
};

static const struct {
	const char *key;
	int lo, hi, def;
	size_t off;
} nums[] = {
	{ "marginals_needed", 2, 255, 3, offsetof(struct gnupg_opts, marginals) }, /* gpg: "must be greater than 1" */
	{ "completes_needed", 1, 255, 1, offsetof(struct gnupg_opts, completes) },
	{ "max_cert_depth", 1, 255, 5, offsetof(struct gnupg_opts, max_depth) },
	{ "min_cert_level", 1, 3, 2, offsetof(struct gnupg_opts, min_level) },
};

static int gnupg_parse(struct ksp_ctx *ctx, void **opts, const char *key, const char *val, const char *base)
{
	struct gnupg_opts *o = *opts;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nums) && strcmp(key, nums[i].key) != 0; i++)
		;
	if (i == ARRAY_SIZE(nums) && strcmp(key, "ownertrust") != 0)
		return 0;
	if (o == NULL && (o = *opts = calloc(1, sizeof(*o))) == NULL)
		return -ENOMEM;
	if (i < ARRAY_SIZE(nums)) {
		char *end;
		long n = strtol(val, &end, 10);

		if (end == val || *end || n < nums[i].lo || n > nums[i].hi) {
			ksp_set_error(ctx, "%s takes a number from %d to %d, not '%.40s'", key, nums[i].lo, nums[i].hi, val);
			return -EINVAL;
		}
		*(int *)((char *)o + nums[i].off) = (int)n;
		return 1;
	}
	/* ownertrust = FILE: relative to the policy file; read now, so that
	 * its errors (FILE:LINE) come before any work */
	{
		struct ksp_trust_gnupg *g = NULL;
		const char *slash = base ? strrchr(base, '/') : NULL;
		char *full;
		int r;

		if (o->n_ot == MAX_OT) {
			ksp_set_error(ctx, "at most %d ownertrust files", MAX_OT);
			return -E2BIG;
		}
		if (val[0] != '/' && slash)
			r = asprintf(&full, "%.*s/%s", (int)(slash - base), base, val);
		else
			r = (full = strdup(val)) ? 0 : -1;
		if (r < 0)
			return -ENOMEM;
		r = ksp_trust_gnupg_new(ctx, &g);
		if (r == 0)
			r = ksp_trust_gnupg_load_ownertrust(g, full);
		ksp_trust_gnupg_free(g);
		if (r < 0) {
			free(full);
			return r;
		}
		o->ownertrust[o->n_ot++] = full;
	}
	return 1;
}

static int gnupg_get(const void *opts, const char *key, int *val)
{
	const struct gnupg_opts *o = opts;

	if (strcmp(key, "ownertrust") == 0) {
		*val = o ? (int)o->n_ot : 0;
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(nums); i++)
		if (strcmp(key, nums[i].key) == 0) {
			int v = o ? *(const int *)((const char *)o + nums[i].off) : 0;
			*val = v ? v : nums[i].def;
			return 1;
		}
	return 0;
}

static void gnupg_free(void *opts)
{
	struct gnupg_opts *o = opts;

	for (size_t i = 0; i < o->n_ot; i++)
		free(o->ownertrust[i]);
	free(o);
}

static void *gnupg_copy(const void *opts)
{
	const struct gnupg_opts *o = opts;
	struct gnupg_opts *c = malloc(sizeof(*c));

	if (c == NULL)
		return NULL;
	*c = *o;
	for (size_t i = 0; i < o->n_ot; i++)
		if ((c->ownertrust[i] = strdup(o->ownertrust[i])) == NULL) {
			c->n_ot = i;
			gnupg_free(c);
			return NULL;
		}
	return c;
}

KSP_EXPORT int ksp_trust_gnupg_set_policy(struct ksp_trust_gnupg *g, struct ksp_store *store,
					  const struct ksp_trust_policy *policy)
{
	const struct gnupg_opts *o;
	struct ksp_trust_policy *core = NULL;
	struct ksp_trust_rule rule;
	int r = 0, v;

	if (g == NULL || store == NULL || policy == NULL)
		return -EINVAL;
	o = ksp_trust_policy_model_opts(policy, KSP_TRUST_MODEL_GNUPG);
	for (size_t i = 0; r == 0 && o && i < o->n_ot; i++)
		r = ksp_trust_gnupg_load_ownertrust(g, o->ownertrust[i]);
	/* the core keys are the roots: ultimately trusted */
	if (r == 0)
		r = ksp_trust_policy_new(ksp_trust_policy_ctx(policy), &core);
	if (r == 0)
		r = ksp_trust_policy_resolve_core(store, policy, core);
	for (size_t i = 0; r == 0 && ksp_trust_policy_core_at(core, i); i++)
		r = ksp_trust_gnupg_set_ownertrust(g, ksp_trust_policy_core_at(core, i), KSP_GNUPG_ULTIMATE);
	ksp_trust_policy_free(core);
	if (r == 0 && gnupg_get(o, "marginals_needed", &v))
		r = ksp_trust_gnupg_set_marginals_needed(g, v);
	if (r == 0 && gnupg_get(o, "completes_needed", &v))
		r = ksp_trust_gnupg_set_completes_needed(g, v);
	if (r == 0 && gnupg_get(o, "max_cert_depth", &v))
		r = ksp_trust_gnupg_set_max_cert_depth(g, v);
	if (r == 0 && gnupg_get(o, "min_cert_level", &v))
		r = ksp_trust_gnupg_set_min_cert_level(g, v);
	if (r < 0)
		return r;
	ksp_trust_policy_get_rule(policy, &rule);
	ksp_trust_gnupg_set_md5(g, rule.md5);
	return ksp_trust_gnupg_set_sha1_rule(g, rule.sha1);
}

/* one line on the validity, as 'ksp trust --model gnupg' says it */
static void gnupg_why(const struct ksp_trust_policy *pol, int v, int full, int marg, int depth, int roots, char *why,
		      size_t len)
{
	int m = 3, c = 1, d = 5;

	gnupg_get(ksp_trust_policy_model_opts(pol, KSP_TRUST_MODEL_GNUPG), "marginals_needed", &m);
	gnupg_get(ksp_trust_policy_model_opts(pol, KSP_TRUST_MODEL_GNUPG), "completes_needed", &c);
	gnupg_get(ksp_trust_policy_model_opts(pol, KSP_TRUST_MODEL_GNUPG), "max_cert_depth", &d);
	switch (v) {
	case KSP_GNUPG_ULTIMATE:
		snprintf(why, len, "an ultimately trusted key (a root)");
		break;
	case KSP_GNUPG_FULL:
	case KSP_GNUPG_MARGINAL:
		snprintf(why, len, "%d of %d complete%s and %d of %d marginal%s needed, at depth %d", full, c,
			 c == 1 ? "" : "s", marg, m, m == 1 ? "" : "s", depth);
		break;
	case KSP_GNUPG_UNDEFINED:
		snprintf(why, len, "certified only by valid keys without ownertrust as introducers, at depth %d", depth);
		break;
	case KSP_GNUPG_REVOKED:
		snprintf(why, len, "the key is revoked");
		break;
	case KSP_GNUPG_EXPIRED:
		snprintf(why, len, "the key has expired");
		break;
	default:
		snprintf(why, len, "not reached from the %d ultimately trusted key%s within %d level%s", roots,
			 roots == 1 ? "" : "s", d, d == 1 ? "" : "s");
		break;
	}
}

static int gnupg_fields(struct ksp_trust_result *res, int v, int depth, int full, int marg)
{
	char letter[2] = { ksp_trust_gnupg_validity_letter(v), '\0' };
	const char *name = ksp_trust_gnupg_validity_name(v);
	int r;

	r = ksp_trust_result_add_field(res, "validity", KSP_TRUST_FIELD_STRING, 0, name ? name : "unknown");
	if (r == 0)
		r = ksp_trust_result_add_field(res, "letter", KSP_TRUST_FIELD_STRING, 0, letter);
	if (r == 0)
		r = ksp_trust_result_add_field(res, "depth", depth >= 0 ? KSP_TRUST_FIELD_NUMBER : KSP_TRUST_FIELD_NULL,
					       depth, NULL);
	if (r == 0)
		r = ksp_trust_result_add_field(res, "completes", KSP_TRUST_FIELD_NUMBER, full, NULL);
	if (r == 0)
		r = ksp_trust_result_add_field(res, "marginals", KSP_TRUST_FIELD_NUMBER, marg, NULL);
	return r;
}

static int gnupg_query(struct ksp_store *store, const struct ksp_trust_policy *pol, const char *fpr, const char *uid,
		       const char *email, int64_t at, struct ksp_trust_result **ret)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	struct ksp_trust_gnupg *g = NULL;
	struct ksp_trust_result *res = NULL;
	int r, roots, v, full = 0, marg = 0, depth = -1;
	const char *u = NULL;
	size_t ulen = 0;
	char why[256];

	if (uid || email) {
		ksp_set_error(ctx, "GnuPG's model answers for a key (its best user ID's validity), not for one user ID: "
				   "ask without --email/--uid, or with another model");
		return -EOPNOTSUPP;
	}
	r = ksp_trust_gnupg_new(ctx, &g);
	if (r == 0)
		r = ksp_trust_gnupg_set_policy(g, store, pol);
	if (r < 0)
		goto out;
	roots = ksp_trust_gnupg_validate(g, store, at);
	if (roots < 0) {
		r = roots;
		goto out;
	}
	res = ksp_trust_result_new(KSP_TRUST_MODEL_GNUPG, fpr);
	if (res == NULL) {
		r = -ENOMEM;
		goto out;
	}
	res->dropped[KSP_DROPPED_MD5] = ksp_trust_gnupg_get_dropped(g, KSP_DROPPED_MD5);
	res->dropped[KSP_DROPPED_SHA1] = ksp_trust_gnupg_get_dropped(g, KSP_DROPPED_SHA1);
	v = roots ? ksp_trust_gnupg_get_validity(g, fpr) : KSP_GNUPG_UNKNOWN;
	if (v == -ENOENT) {
		res->reason = KSP_TRUST_TARGET_UNKNOWN;
		ksp_trust_result_set_message(res, "unknown (-) in GnuPG's model: the key is not in the store");
		r = gnupg_fields(res, KSP_GNUPG_UNKNOWN, -1, 0, 0);
		goto out;
	}
	if (v < 0) {
		r = v;
		goto out;
	}
	if (roots == 0) {
		res->reason = KSP_TRUST_NO_CORE;
		ksp_trust_result_set_message(res, "unknown (-) in GnuPG's model: no key of ultimate ownertrust (a core "
						  "key, or level 6 in the ownertrust) is in the store");
		r = gnupg_fields(res, v, -1, 0, 0);
		goto out;
	}
	ksp_trust_gnupg_get_counts(g, fpr, &full, &marg);
	depth = ksp_trust_gnupg_get_depth(g, fpr);
	if (depth < 0)
		depth = -1;
	res->trusted = v == KSP_GNUPG_FULL || v == KSP_GNUPG_ULTIMATE;
	res->reason = res->trusted ? KSP_TRUST_TRUSTED
		      : v == KSP_GNUPG_REVOKED ? KSP_TRUST_TARGET_REVOKED
		      : v == KSP_GNUPG_EXPIRED ? KSP_TRUST_TARGET_EXPIRED
		      : v == KSP_GNUPG_UNKNOWN ? KSP_TRUST_NO_PATH : KSP_TRUST_TOO_FEW_PATHS;
	res->found = (int)ksp_trust_gnupg_get_introducer_count(g, fpr);
	gnupg_why(pol, v, full, marg, depth, roots, why, sizeof(why));
	ksp_trust_result_set_message(res, "%s (%c) in GnuPG's model: %s", ksp_trust_gnupg_validity_name(v),
				     ksp_trust_gnupg_validity_letter(v), why);
	if (res->found > 0 && ksp_trust_gnupg_get_introducer(g, fpr, 0, NULL, NULL, NULL, &u, &ulen) == 0 && u &&
	    (r = ksp_trust_result_set_uid(res, u, ulen)) < 0)
		goto out;
	r = gnupg_fields(res, v, depth, full, marg);
out:
	ksp_trust_gnupg_free(g);
	if (r < 0)
		res = ksp_trust_result_free(res);
	*ret = res;
	return r;
}

const struct ksp_trust_model_ops ksp_trust_model_gnupg = {
	.id = KSP_TRUST_MODEL_GNUPG,
	.name = "gnupg",
	.keys = "ownertrust, marginals_needed, completes_needed, max_cert_depth, min_cert_level",
	.whatif = false,
	.parse = gnupg_parse,
	.get = gnupg_get,
	.copy = gnupg_copy,
	.free = gnupg_free,
	.query = gnupg_query,
};
