/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * store-publish: what publish/ reads from the store that the graph
 * snapshot (wot/wot-snap.h) does not hold: the keys with their key
 * material, key IDs and primary user IDs, the key material itself, and
 * which key made a certification found in it.  Plain C types and
 * callbacks; no SQLite handle leaves store/.  Internal to libksp.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct ksp_store;

/* Every key of the store that has its key material, by fingerprint:
 * @row(opaque, id, fpr, keyid, uid, uid_len) with its keys.id, its
 * fingerprint and key ID (as stored, may be NULL) and the user ID to name
 * it by (raw, hostile bytes; NULL when none): the primary, then the first
 * unrevoked, then the first, user attributes aside.  A negative return of
 * @row stops and is returned.  Returns 0 or a negative errno (set). */
int ksp_store_publish_keys(struct ksp_store *store,
			   int (*row)(void *opaque, int64_t id, const char *fpr, const char *keyid, const void *uid,
				      size_t uid_len),
			   void *opaque);

/* Prepared lookups for writing keys out (ksp_store_key_material(),
 * ksp_store_cert_issuer()), kept for one publication. */
struct ksp_store_key_files;

/* Prepares the lookups.  Returns 0 or a negative errno (set, "publish"). */
int ksp_store_key_files_new(struct ksp_store *store, struct ksp_store_key_files **ret);
void ksp_store_key_files_free(struct ksp_store_key_files *q);

/* The stored key material (keys.keydata) of the key with keys.id @key_id;
 * the pointer stays valid until the next call.  Returns 1, 0 when there
 * is none, or a negative errno (set). */
int ksp_store_key_material(struct ksp_store_key_files *q, int64_t key_id, const void **ret, size_t *ret_len);

/* The issuer's fingerprint (@issuer, 65 bytes; "" when not known) of the
 * verified certification with the SHA-1 digest @digest (40 hex digits, as
 * stored) on the user ID with uids.id @uid_id.  Returns 1, 0 when there is
 * no such certification, or a negative errno (set). */
int ksp_store_cert_issuer(struct ksp_store_key_files *q, int64_t uid_id, const char *digest, char issuer[65]);
