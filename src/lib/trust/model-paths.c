// SPDX-License-Identifier: LGPL-2.1-or-later
/* model-paths.c: the paths model (trust.c: K vertex-disjoint certification
 * paths of at most L edges from the core) in the models' table (model.h). */
#include <string.h>

#include "lib/trust/model.h"

static int paths_query(struct ksp_store *store, const struct ksp_trust_policy *pol, const char *fpr, const char *uid,
		       const char *email, int64_t at, struct ksp_trust_result **ret)
{
	if (uid || email)
		return ksp_trust_check_binding(store, pol, fpr, uid, uid ? strlen(uid) : 0, email, at, ret);
	return ksp_trust_check(store, pol, fpr, at, ret);
}

/* its settings are the policy's own (trust.c) */
const struct ksp_trust_model_ops ksp_trust_model_paths = {
	.id = KSP_TRUST_MODEL_PATHS,
	.name = "paths",
	.keys = "",
	.whatif = true,
	.query = paths_query,
};
