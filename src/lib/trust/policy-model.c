// SPDX-License-Identifier: LGPL-2.1-or-later
/* policy-model.c: the public face of the trust models' interface
 * (model.h): ask the policy's model, set a model's own option, and tell
 * whether the what-if questions are defined on the policy's model. */
#include <errno.h>
#include <string.h>

#include "lib/trust/model.h"

KSP_EXPORT int ksp_trust_query(struct ksp_store *store, const struct ksp_trust_policy *policy, const char *fpr,
			       const char *uid, const char *email, int64_t at, struct ksp_trust_result **ret)
{
	const struct ksp_trust_model_ops *m;

	if (store == NULL || policy == NULL || fpr == NULL || ret == NULL)
		return -EINVAL;
	*ret = NULL;
	m = ksp_trust_model_get(ksp_trust_policy_get_model(policy));
	if (m == NULL)
		return -EINVAL;
	return m->query(store, policy, fpr, uid, email, at, ret);
}

KSP_EXPORT int ksp_trust_policy_set_option(struct ksp_trust_policy *policy, const char *key, const char *value)
{
	int r;

	if (policy == NULL || key == NULL || value == NULL)
		return -EINVAL;
	r = ksp_trust_models_parse(ksp_trust_policy_ctx(policy), ksp_trust_policy_model_slots(policy), key, value,
				   NULL);
	if (r == 0) {
		ksp_set_error(ksp_trust_policy_ctx(policy), "no trust model has the setting '%.40s'", key);
		return -ENOENT;
	}
	return r < 0 ? r : 0;
}

KSP_EXPORT int ksp_trust_policy_get_option(const struct ksp_trust_policy *policy, const char *key)
{
	void *slots[KSP_TRUST_MODELS];
	int v = 0;

	if (policy == NULL || key == NULL)
		return -EINVAL;
	for (int i = 0; i < KSP_TRUST_MODELS; i++)
		slots[i] = (void *)ksp_trust_policy_model_opts(policy, i);
	return ksp_trust_models_get(slots, key, &v) ? v : -ENOENT;
}

KSP_EXPORT int ksp_trust_policy_check_whatif(const struct ksp_trust_policy *policy, const char *what)
{
	const struct ksp_trust_model_ops *m;

	if (policy == NULL)
		return -EINVAL;
	m = ksp_trust_model_get(ksp_trust_policy_get_model(policy));
	if (m && m->whatif)
		return 0;
	ksp_set_error(ksp_trust_policy_ctx(policy),
		      "the policy names the %s model, and %s is defined on the paths model only: give --model paths "
		      "(or model = paths in the policy) to use the paths model",
		      m ? m->name : "?", what ? what : "this analysis");
	return -EOPNOTSUPP;
}
