// SPDX-License-Identifier: LGPL-2.1-or-later
/* model.c: the trust models, registered once (model.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/trust/model.h"

/* indexed by enum ksp_trust_model */
static const struct ksp_trust_model_ops *const models[KSP_TRUST_MODELS] = {
	[KSP_TRUST_MODEL_PATHS] = &ksp_trust_model_paths,
	[KSP_TRUST_MODEL_GNUPG] = &ksp_trust_model_gnupg,
	[KSP_TRUST_MODEL_SEQUOIA] = &ksp_trust_model_sequoia,
};

const struct ksp_trust_model_ops *ksp_trust_model_get(int id)
{
	return id >= 0 && id < KSP_TRUST_MODELS ? models[id] : NULL;
}

KSP_EXPORT const char *ksp_trust_model_name(int model)
{
	const struct ksp_trust_model_ops *m = ksp_trust_model_get(model);

	return m ? m->name : NULL;
}

KSP_EXPORT int ksp_trust_model_from_name(const char *name)
{
	for (int i = 0; name && i < KSP_TRUST_MODELS; i++)
		if (strcmp(models[i]->name, name) == 0)
			return i;
	return -EINVAL;
}

int ksp_trust_models_parse(struct ksp_ctx *ctx, void **opts, const char *key, const char *val, const char *base)
{
	for (int i = 0; i < KSP_TRUST_MODELS; i++) {
		int r = models[i]->parse ? models[i]->parse(ctx, &opts[i], key, val, base) : 0;
		if (r != 0)
			return r;
	}
	return 0;
}

int ksp_trust_models_get(void *const *opts, const char *key, int *val)
{
	for (int i = 0; i < KSP_TRUST_MODELS; i++)
		if (models[i]->get && models[i]->get(opts[i], key, val))
			return 1;
	return 0;
}

int ksp_trust_models_copy(void **dst, void *const *src)
{
	for (int i = 0; i < KSP_TRUST_MODELS; i++) {
		dst[i] = NULL;
		if (src[i] && (dst[i] = models[i]->copy(src[i])) == NULL) {
			while (i-- > 0)
				if (dst[i])
					models[i]->free(dst[i]);
			return -ENOMEM;
		}
	}
	return 0;
}

void ksp_trust_models_free(void **opts)
{
	for (int i = 0; i < KSP_TRUST_MODELS; i++) {
		if (opts[i])
			models[i]->free(opts[i]);
		opts[i] = NULL;
	}
}

void ksp_trust_models_keys(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < KSP_TRUST_MODELS; i++)
		if (models[i]->keys[0] && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", models[i]->keys);
}
