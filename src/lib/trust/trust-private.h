/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* trust-private.h: the policy object's fields, shared by policy.c (the
 * object and its parser) and trust.c (the engine, which reads them).
 * Internal to trust/. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/libksp-private.h"
#include "lib/trust/model.h"

struct ksp_trust_policy {
	struct ksp_ctx *ctx;
	char (*core)[65];
	size_t n_core, cap_core;
	bool core_party;
	int max_depth, min_paths;
	bool per_uid;
	bool md5;           /* MD5 certifications count (hash-rules.h) */
	int sha1;           /* enum ksp_sha1_rule */
	unsigned min_bits;  /* RSA, DSA, ElGamal signer keys below it do not count */
	int64_t max_age;    /* seconds, 0 = any age */
	const struct ksp_trust_whatif *whatif; /* health report's questions (whatif.h) */
	bool at_signature;  /* trust_at = signature: judge a signer when it signed (ksp-gpg) */
	bool no_dropped;    /* skip the dropped counts (whatif.h: the health report) */
	int model;          /* enum ksp_trust_model: what 'ksp trust' asks */
	int sq_amount;      /* the Sequoia model's target amount */
	bool sq_network;    /* ... its certification-network mode */
	void *mopts[KSP_TRUST_MODELS]; /* each model's own settings (model.h) */
};
