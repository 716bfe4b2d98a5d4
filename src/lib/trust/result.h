/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* result.h: the trust result object (result.c), for the engine that fills
 * it (trust.c) and the models' adapters (model-*.c). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/libksp-private.h"

struct thop {
	char signer[65], signee[65];
	int64_t created;
	char *uid;
	size_t uid_len;
};

struct tpath {
	struct thop *hops;
	size_t n;
};

struct ksp_trust_result {
	bool trusted;
	int reason;
	int found, needed, max_depth;
	bool search_exhausted;
	uint32_t flow_bound; /* not 0: found is a lower bound, this the upper */
	char target[65];
	char message[512];
	struct tpath *paths;
	size_t n_paths;
	char *uid; /* per-uid: the user ID the paths certify */
	size_t uid_len;
	uint64_t explored;
	uint64_t dropped[KSP_DROPPED_MAX];
	int model;          /* enum ksp_trust_model that answered */
	struct tfield {
		const char *name; /* static */
		int type;         /* enum ksp_trust_field_type */
		int64_t num;
		char *str;
	} fields[16];        /* the model's own numbers (ksp_trust_result_get_field()) */
	size_t n_fields;
};

/* For the models' adapters (model-*.c): a result of @model for @target,
 * not trusted, reason KSP_TRUST_NO_PATH, no paths; NULL without memory. */
struct ksp_trust_result *ksp_trust_result_new(int model, const char *target);
void ksp_trust_result_set_message(struct ksp_trust_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ksp_trust_result_set_uid(struct ksp_trust_result *r, const char *uid, size_t len);
/* a path of @n hops, all empty; returns its index, or -ENOMEM */
int ksp_trust_result_add_path(struct ksp_trust_result *r, size_t n);
int ksp_trust_result_set_hop(struct ksp_trust_result *r, size_t path, size_t hop, const char *signer,
			     const char *signee, int64_t created, const char *uid, size_t uid_len);
/* a field; @name is static; @str copied (KSP_TRUST_FIELD_STRING) */
int ksp_trust_result_add_field(struct ksp_trust_result *r, const char *name, int type, int64_t num, const char *str);
