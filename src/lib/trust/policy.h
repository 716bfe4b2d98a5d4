/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* policy.h: the trust policy inside libksp (trust.c), for trust/'s files
 * and the folders above it (no "-private": publish/ reads it too)
 * (tests/check-arrows.py); for the library's other folders (publish/): a policy's core
 * read and emptied (copies: whatif.h) (the publisher asks the same engine for paths
 * from a key's certifiees); and for trust-sequoia.c, the policy's roots and
 * settings. */
#include <stdbool.h>
#include <stddef.h>

#include "lib/libksp-private.h"

/* the i-th core fingerprint (upper-case hex), NULL past the end */
const char *ksp_trust_policy_core_at(const struct ksp_trust_policy *p, size_t i);
void ksp_trust_policy_clear_core(struct ksp_trust_policy *p);
/* the policy's core keys and, with core_party, the store's participants,
 * added to @out (trust-sequoia.c takes them as its roots) */
int ksp_trust_policy_resolve_core(struct ksp_store *store, const struct ksp_trust_policy *pol,
				  struct ksp_trust_policy *out);
/* the Sequoia model's target amount and certification-network mode */
void ksp_trust_policy_sequoia(const struct ksp_trust_policy *p, int *amount, bool *network);
