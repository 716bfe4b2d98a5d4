/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* When user IDs' self-signatures expire, for GnuPG's model (internal). */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct ksp_ctx;
struct ksp_store;

struct ksp_gnupg_uidexp {
	int64_t uid_id;  /* uids.id */
	int64_t expires; /* when its newest valid self-signature expires */
};

/* The user IDs of keys.id @key_id whose newest valid self-signature
 * expires (the others are left out), read from the key as stored; *ret
 * (malloc'ed, or NULL) and *n_ret.  Returns 0 or a negative errno. */
int ksp_gnupg_uid_expiries(struct ksp_ctx *ctx, struct ksp_store *store, int64_t key_id,
			   struct ksp_gnupg_uidexp **ret, size_t *n_ret);
