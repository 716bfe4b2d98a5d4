/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pgp-verify.h: cryptographic checks of OpenPGP signatures with libgcrypt.
 * Internal to libksp.
 *
 * Each function hashes what RFC 4880 5.2.4 / RFC 9580 5.2.4 say the
 * signature covers (v4: 0x99 + 2-octet length + key body; v5: 0x9a + 4;
 * v6: 0x9b + 4; user IDs as 0xb4 + 4-octet length, attributes 0xd1;
 * v6 salt first), then the signature's hashed part and trailer, checks the
 * left 16 bits, and verifies the signature material with the signer's key
 * (RSA PKCS#1 v1.5, DSA, ECDSA over NIST P-256/384/521 and brainpool,
 * EdDSA legacy (22) with Ed25519, v6 Ed25519 (27) and Ed448 (28)).
 *
 * The verdicts are gpg 2.2's (tests/tools/sigdiff.c compares them
 * with libgcrypt called the way gpg calls it), stricter where gpg's would
 * let anyone sign:
 *  - ECDSA and DSA: the hash is cut to the leftmost bits of the group
 *    order (q; ECDSA over P-521: 512 bits), and must be at least that long;
 *    DSA q of fewer than 160 bits, or not whole octets, signs nothing;
 *  - RSA: s >= n is bad on every path; the DigestInfo is RFC 8017's (SHA-3:
 *    RFC 9580's, not libgcrypt 1.10's one-octet prefix); e = 1 signs nothing;
 *  - EdDSA: an R or S of value 0 is bad; an Ed25519 key of small order
 *    (which anyone can sign for, one try in eight) signs nothing;
 *  - v6: the salt must be as long as RFC 9580 says for the hash.
 *
 * Results (the values of certs.verified in the store):
 *   KSP_VERIFY_GOOD (1)        the mathematics is right
 *   KSP_VERIFY_BAD (2)         it is not (wrong bytes, wrong key, left16)
 *   KSP_VERIFY_UNSUPPORTED (3) an algorithm, curve or hash we do not do, or
 *                              an ECDSA/DSA hash shorter than the key's q,
 *                              a DSA q under 160 bits (gpg's '%')
 * or a negative errno (-ENOMEM).  Nothing else (time, revocation, the
 * MD5 and SHA-1 rules of the trust models) is judged here.
 */
#pragma once

#include "lib/openpgp/pgp.h"

enum {
	KSP_VERIFY_UNCHECKED = 0,
	KSP_VERIFY_GOOD = 1,
	KSP_VERIFY_BAD = 2,
	KSP_VERIFY_UNSUPPORTED = 3,
	KSP_VERIFY_NO_ISSUER = 4,
	KSP_VERIFY_DEFERRED = 5, /* ksp_pgp_verify_defer(): not a verdict, never stored */
};

/* A signature on a user ID or attribute of @target (0x10-0x13 certifications,
 * 0x30 certification revocations, self-signatures), made by @signer
 * (== @target for self-signatures). */
int ksp_pgp_verify_uid_sig(const struct ksp_pgp_pubkey *signer,
			   const struct ksp_pgp_pubkey *target,
			   const struct ksp_pgp_uid *uid,
			   const struct ksp_pgp_sig *sig);

/* A signature on the key itself (0x1f direct key, 0x20 key revocation;
 * @subkey NULL) or on a subkey (0x18 binding, 0x28 subkey revocation),
 * made by @signer. */
int ksp_pgp_verify_key_sig(const struct ksp_pgp_pubkey *signer,
			   const struct ksp_pgp_pubkey *primary,
			   const struct ksp_pgp_pubkey *subkey,
			   const struct ksp_pgp_sig *sig);

/* ---- the parts, for verifying many signatures by one key ---------------- */

/* A signer's key prepared for libgcrypt (built once, used for many
 * signatures; read-only afterwards, so threads may share it).  Returns 0,
 * KSP_VERIFY_UNSUPPORTED (algorithm or curve we do not verify, or key
 * material that does not parse) with *ret = NULL, or -ENOMEM. */
struct ksp_pgp_vkey;
int ksp_pgp_vkey_new(const struct ksp_pgp_pubkey *pk, struct ksp_pgp_vkey **ret);
/* ksp_pgp_vkey_new() for n keys (ret[i] and rc[i] as it gives them): the
 * Ed25519 ones eight at a time where the CPU can (ed25519-x8.c). */
void ksp_pgp_vkey_new_many(const struct ksp_pgp_pubkey *const *pk, size_t n, struct ksp_pgp_vkey **ret, int *rc);
void ksp_pgp_vkey_free(struct ksp_pgp_vkey *k);
/* Ed25519 keys are kept compact (about 200 bytes); tables of multiples of
 * the point (2 KB more) make each verification about 10% faster and cost
 * about a quarter of one to make: worth it for a key that verifies several
 * signatures soon.  add: 1 made, 0 nothing to do (not Ed25519, already
 * there), -ENOMEM.  Not while other threads use @k. */
int ksp_pgp_vkey_add_tables(struct ksp_pgp_vkey *k);
void ksp_pgp_vkey_drop_tables(struct ksp_pgp_vkey *k);

/* Verify @sig on @primary [+ @uid | + @subkey] with the prepared key. */
int ksp_pgp_verify_with(const struct ksp_pgp_vkey *k, const struct ksp_pgp_pubkey *primary,
			const struct ksp_pgp_uid *uid, const struct ksp_pgp_pubkey *subkey,
			const struct ksp_pgp_sig *sig);

/* The digest @sig covers (out >= 64 octets); 0 or KSP_VERIFY_UNSUPPORTED
 * (unknown hash), KSP_VERIFY_BAD (oversized key), -ENOMEM. */
int ksp_pgp_sig_digest(const struct ksp_pgp_sig *sig, const struct ksp_pgp_pubkey *primary,
		       const struct ksp_pgp_uid *uid, const struct ksp_pgp_pubkey *subkey,
		       uint8_t *out, size_t *out_len);
/* Verify a digest made by ksp_pgp_sig_digest(). */
int ksp_pgp_vkey_verify(const struct ksp_pgp_vkey *k, const struct ksp_pgp_sig *sig,
			const uint8_t *digest, size_t dlen);
/* libgcrypt's id of an OpenPGP hash algorithm, 0 if unknown. */
int ksp_pgp_hash_to_gcry(uint8_t hash_algo);

/* ---- Ed25519, many at a time --------------------------------------------- */

/* An Ed25519 check put off by ksp_pgp_verify_defer(). */
struct ksp_pgp_edcheck {
	const struct ksp_pgp_vkey *k;
	uint8_t digest[64];
	uint8_t rs[64];
	uint8_t dlen;
};

/* ksp_pgp_verify_with(), except that the last step of an Ed25519
 * verification is left in *ec, answered KSP_VERIFY_DEFERRED: every other
 * verdict is final.  @k must stay while *ec is used. */
int ksp_pgp_verify_defer(const struct ksp_pgp_vkey *k, const struct ksp_pgp_pubkey *primary,
			 const struct ksp_pgp_uid *uid, const struct ksp_pgp_pubkey *subkey,
			 const struct ksp_pgp_sig *sig, struct ksp_pgp_edcheck *ec);
/* The checks put off: res[i] is KSP_VERIFY_GOOD or KSP_VERIFY_BAD, what
 * ksp_pgp_verify_with() would have said.  Eight at a time on a CPU with
 * AVX-512 IFMA (ed25519-x8.c), else one by one; returns how many went
 * eight at a time. */
size_t ksp_pgp_edcheck_run(const struct ksp_pgp_edcheck *ec, size_t n, int8_t *res);
