/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * store-verify.h: what the signature verifiers (trust/verify.c,
 * trust/verify-native.c), the revocations known now (ksp verify's
 * trust_at = signature) and GnuPG's user ID expiry (trust/gnupg-uidexp.c)
 * read from the store.  They need what the graph snapshot does not hold:
 * the keys' stored data (keys.keydata), the revocation reasons and the
 * user IDs in the store's own order.  Plain C types in and out; a row's
 * pointers are valid during the callback only.  On a store error each
 * function sets the context's error naming what it read (or, where it
 * says so, leaves that to the caller).  Internal to libksp.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksp_store;

/* One row of keys as the verifiers read it. */
struct ksp_store_keyrow {
	int64_t id;        /* keys.id */
	const char *fpr;   /* keys.fpr */
	const uint8_t *keydata;
	size_t keydata_len;
	int64_t expires;   /* 0: never */
	int64_t revoked;   /* 0: not revoked */
	int revoked_reason; /* 0 when none is given */
	bool selfsig_ok;
};

/* A walk's callback: 0 goes on, anything else stops the walk, which
 * returns it. */
typedef int (*ksp_store_keyrow_fn)(const struct ksp_store_keyrow *row, void *arg);

/* The keys a signature's issuer names as primary key: those whose
 * fingerprint is @fpr, or (@fpr "") whose key ID is @keyid (hex).  Rows
 * without key data are skipped.  Returns 0 (walked), what @fn stopped
 * with, or <0 on a store error. */
int ksp_store_keys_by_issuer(struct ksp_store *store, const char *fpr, const char *keyid, ksp_store_keyrow_fn fn,
			     void *arg);
/* The keys whose stored data holds @len bytes @bytes (a signing subkey's
 * key ID: its back-signature names it), in store order; as above. */
int ksp_store_keys_holding(struct ksp_store *store, const uint8_t *bytes, size_t len, ksp_store_keyrow_fn fn,
			   void *arg);
/* Every key with key data, in store order; as above. */
int ksp_store_keys_all(struct ksp_store *store, ksp_store_keyrow_fn fn, void *arg);

/* The user ID to name a signer by: of key @key_id's user IDs (no
 * attributes) an unrevoked one before a revoked one, the primary one
 * first, else the first in the key.  1 and *ret (malloc'd, NUL-terminated,
 * *ret_len bytes before the NUL), 0 when the key has none, <0 on error. */
int ksp_store_signer_uid(struct ksp_store *store, int64_t key_id, char **ret, size_t *ret_len);

/* Is the key @fpr revoked now (any reason, any date)?  1 with *when
 * (keys.revoked) and *reason (0 when none is given), 0 when not or when
 * there is no such key, -EIO on a store error (the caller names the
 * store and what to do). */
int ksp_store_key_revoked(struct ksp_store *store, const char *fpr, int64_t *when, int *reason);

#define KSP_STORE_CERT_REVOKED 1 /* the issuer revoked its certification */
#define KSP_STORE_UID_REVOKED 2  /* the certified user ID is revoked */
/* Is the certification by @issuer on user ID @uid (@uid_len bytes) of
 * key @target revoked now: a verified certification revocation (0x30) by
 * @issuer on that user ID, of any date (KSP_STORE_CERT_REVOKED), or the
 * user ID revoked (KSP_STORE_UID_REVOKED)?  0 when neither, -EIO on a
 * store error (the caller names the store and what to do). */
int ksp_store_cert_revoked(struct ksp_store *store, const char *issuer, const char *target, const void *uid,
			   size_t uid_len);

/* The stored data of key @key_id (keys.keydata), when it is a blob, given
 * to @fn(data, len, arg).  Returns what @fn returns, 0 when the key or its
 * data is missing, <0 on a store error. */
int ksp_store_with_keydata(struct ksp_store *store, int64_t key_id,
			   int (*fn)(const uint8_t *data, size_t len, void *arg), void *arg);
/* Each user ID (no attributes) of key @key_id with a valid
 * self-signature, its id (uids.id), text and the creation time of its
 * newest valid self-signature (uids.selfsig): @fn returns 0 to go on,
 * anything else stops the walk, which returns it; <0 on a store error. */
int ksp_store_each_selfsigned_uid(struct ksp_store *store, int64_t key_id,
				  int (*fn)(int64_t uid_id, const void *uid, size_t len, int64_t selfsig, void *arg),
				  void *arg);
