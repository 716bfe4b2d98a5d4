/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * model.h: the trust models' interface (docs/design.md, "Trust models").
 *
 * A model is a table of functions over the store's graph snapshot: parse
 * its own policy keys, answer one key or binding (the verdict, the reason,
 * one line of explanation, the paths, its own JSON fields in a struct
 * ksp_trust_result), and say whether the what-if questions of health and
 * publish are defined on it.  The tables are listed once, in model.c;
 * every consumer asks ksp_trust_query() (trust.c), which asks the model
 * the policy names.  Adding a model: one file model-NAME.c with its table,
 * one entry in model.c, one value in enum ksp_trust_model.
 *
 * Arrows: trust.c (the policy) calls model.c (the registry), which calls
 * the tables' functions in model-*.c, which call the engines (trust.c,
 * trust-gnupg.c, trust-sequoia.c) and result.c; the engines never call a
 * model-*.c file.
 */
#include <stdbool.h>
#include <stdint.h>

#include "lib/libksp-private.h"

#define KSP_TRUST_MODELS 3 /* enum ksp_trust_model: 0 .. KSP_TRUST_MODELS - 1 */

struct ksp_trust_model_ops {
	int id;           /* enum ksp_trust_model */
	const char *name; /* in a policy file: model = NAME; on the command line: --model NAME */
	const char *keys; /* its own policy keys, for the unknown-key message ("" for none) */
	bool whatif;      /* the what-if reachability of health and publish is defined on it */
	/* Its setting @key = @val into *@opts (allocated on first use; @base:
	 * the policy file, for relative paths, or NULL).  1 when taken, 0
	 * when @key is not its own, a negative errno (message set). */
	int (*parse)(struct ksp_ctx *ctx, void **opts, const char *key, const char *val, const char *base);
	/* A number setting (ksp_trust_policy_get_option()); 1 found, 0 not its key. */
	int (*get)(const void *opts, const char *key, int *val);
	void *(*copy)(const void *opts); /* NULL without memory; @opts is not NULL */
	void (*free)(void *opts);
	/* One key, or its binding with @uid or @email (NULL: the key). */
	int (*query)(struct ksp_store *store, const struct ksp_trust_policy *pol, const char *fpr, const char *uid,
		     const char *email, int64_t at, struct ksp_trust_result **ret);
};

extern const struct ksp_trust_model_ops ksp_trust_model_paths, ksp_trust_model_gnupg, ksp_trust_model_sequoia;

/* model.c: the registry */
const struct ksp_trust_model_ops *ksp_trust_model_get(int id); /* NULL for a bad id */
/* A setting for whichever model owns @key: as parse above, over every
 * model's slot of @opts[KSP_TRUST_MODELS]. */
int ksp_trust_models_parse(struct ksp_ctx *ctx, void **opts, const char *key, const char *val, const char *base);
int ksp_trust_models_get(void *const *opts, const char *key, int *val); /* 1, 0 */
int ksp_trust_models_copy(void **dst, void *const *src);
void ksp_trust_models_free(void **opts);
/* "ownertrust, marginals_needed, ..., partial_core": every model's keys */
void ksp_trust_models_keys(char *buf, size_t len);

/* trust.c: a model's settings in the policy (NULL when none given), the
 * slots of every model's, the policy's context */
const void *ksp_trust_policy_model_opts(const struct ksp_trust_policy *p, int model);
void **ksp_trust_policy_model_slots(struct ksp_trust_policy *p);
struct ksp_ctx *ksp_trust_policy_ctx(const struct ksp_trust_policy *p);

/* Sequoia's settings (model-sequoia.c; read by ksp_trust_sequoia_set_policy()) */
struct ksp_trust_sequoia_opts {
	size_t n_partial;
	struct {
		char fpr[65];
		int amount;
	} partial[64];
};
