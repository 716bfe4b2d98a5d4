/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* verify-private.h: the verdict on a signature, shared by verify.c (gpgme)
 * and verify-native.c (libksp's own verifier).  Internal to libksp. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/macro.h"

struct ksp_store;

struct ksp_verify_result {
	int status;
	char message[600];
	char issuer[65];      /* as the signature names it: fingerprint or key ID */
	char signer[65];      /* primary key of the store */
	char signing_key[65]; /* the (sub)key gpg says signed */
	bool subkey;
	int64_t created;
	unsigned int summary;
	int validity;
	char *uid;
	size_t uid_len;
	char *plaintext; /* a signed message's text (ksp_verify_inline), or NULL */
	size_t plaintext_len;
	int hash_algo;   /* the signature's OpenPGP hash algorithm, 0 unknown */
	int errsig;      /* gpg's ERRSIG code when it could not be checked, else 0 */
};

/* gpg's codes in ERRSIG (gpg-error codes), ksp_verify_result_get_errsig_code() */
enum {
	KSP_ERRSIG_ALGO = 4,           /* unusable key, unknown algorithm */
	KSP_ERRSIG_DIGEST = 5,         /* a rejected digest algorithm (MD5) */
	KSP_ERRSIG_NO_PUBKEY = 9,      /* not in the store */
	KSP_ERRSIG_TIME_CONFLICT = 39, /* the key is newer than the signature */
};

/* The document: in memory (@data, @len), or read from @fd (>= 0) and
 * hashed as it is read. */
struct ksp_verify_doc {
	const uint8_t *data;
	size_t len;
	int fd;
	int read_errno; /* reading @fd failed: errno */
	bool consumed;  /* @fd has been read from */
};

/* verify-native.c: libksp's own verifier for one detached document
 * signature.  0 and *ret; 1: not for this verifier (@doc->fd untouched
 * when it says so before reading); <0 error. */
int ksp_verify_native(struct ksp_store *store, const uint8_t *sig, size_t siglen, struct ksp_verify_doc *doc,
		      struct ksp_verify_result **ret);

/* ---- verify-common.c: the verdicts both verifiers give, in the same words ---- */

/* The result's status and message (printf). */
void ksp_verify_set_msg(struct ksp_verify_result *res, int status, const char *fmt, ...) _printf_format_(3, 4);
/* A revocation reason code (RFC 9580 5.2.3.31) in words. */
const char *ksp_verify_reason_name(int code);
/* "REASON, DATE" of a revocation with @code made at @when, into @buf. */
void ksp_verify_revocation_why(int code, int64_t when, char *buf, size_t size);
/* KSP_SIGNATURE_KEY_REVOKED: the signature made on @date (text) by the
 * primary key @owner, or (@subkey) by its subkey @signing, revoked for
 * @why. */
void ksp_verify_set_revoked(struct ksp_verify_result *res, const char *date, bool subkey, const char *signing,
			    const char *owner, const char *why);
/* Was the key @fpr (@subkey: a subkey), made at @created and expiring at
 * @expires (0: never), valid at @when, when the signature was made (@date,
 * its text)?  true; else false and KSP_SIGNATURE_KEY_EXPIRED set (not made
 * yet, or expired by then). */
bool ksp_verify_key_valid_at(struct ksp_verify_result *res, int64_t when, const char *date, bool subkey,
			     const char *fpr, int64_t created, int64_t expires);
/* Has the signature by @owner expired: @expired (the verifier says so) or
 * @expires_at (0: never) now or past?  true and KSP_SIGNATURE_EXPIRED set. */
bool ksp_verify_sig_expired(struct ksp_verify_result *res, const char *owner, int64_t expires_at, bool expired);
/* KSP_SIGNATURE_GOOD by @owner (@subkey: through its subkey @signing),
 * made on @date (text). */
void ksp_verify_set_good(struct ksp_verify_result *res, const char *owner, bool subkey, const char *signing,
			 const char *date);
