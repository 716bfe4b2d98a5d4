/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* trust.c, for the library's other folders (publish/): a policy's core
 * read and emptied (copies: whatif.h) (the publisher asks the same engine for paths
 * from a key's certifiees). */
#include <stddef.h>

#include "lib/libksp-private.h"

/* the i-th core fingerprint (upper-case hex), NULL past the end */
const char *ksp_trust_policy_core_at(const struct ksp_trust_policy *p, size_t i);
void ksp_trust_policy_clear_core(struct ksp_trust_policy *p);
