/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ed25519.h: Ed25519 signatures (RFC 8032 5.1), fast enough to verify every
 * certification of a large keyring and to sign millions of synthetic ones.
 * Internal to libksp (not exported).
 *
 * Verification is variable time (public data only) and answers exactly
 * what libgcrypt 1.10's gcry_pk_verify answers for
 *   (public-key(ecc(curve Ed25519)(flags eddsa)(q PUB)))
 *   (data(flags eddsa)(hash-algo sha512)(value MSG))
 *   (sig-val(eddsa(r R)(s S)))
 * which is the cofactorless check  encode([S]B - [k]A) == R  with
 * k = SHA-512(R || A || MSG) taken whole (not reduced mod L, which matters
 * only for a key with a small-order component), S taken as any 256-bit
 * number (S >= L is NOT rejected, unlike RFC 8032) and R compared as bytes
 * (a non-canonical R never verifies).  Public keys are rejected when y >= p,
 * when x = 0 (libgcrypt rejects these with the sign bit set and aborts the
 * process without it), when y = 0 (likewise) and when y is not on the curve.
 *
 * Signing (RFC 8032 5.1.6, deterministic) is constant time in the secret
 * seed: the multiplications by the base point use signed radix-16 digits
 * and constant-time lookups in a fixed table (src/lib/openpgp/ed25519-table.h,
 * made by src/lib/openpgp/ed25519-gentab.py).  Signatures are byte-identical to
 * libgcrypt's gcry_pk_sign with
 *   (private-key(ecc(curve Ed25519)(flags eddsa)(q PUB)(d SEED))).
 *
 * SHA-512 is libgcrypt's, so libgcrypt must be initialised.  No global or
 * static mutable state: keys are read-only after ksp_ed25519_key_new(), so
 * threads may share them.
 */
#pragma once

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* A public key prepared for verifying many signatures (tables of multiples
 * of the point, about 2 KB; making one costs about as much as a verification). */
struct ksp_ed25519_key;

/* 0, -EINVAL (not a point libgcrypt accepts, see above) or -ENOMEM. */
int ksp_ed25519_key_new(const uint8_t pub[32], struct ksp_ed25519_key **ret);
void ksp_ed25519_key_free(struct ksp_ed25519_key *k);

/* 1: @sig (R || S) is a good signature of msg[0..len) by @k; 0: it is not. */
int ksp_ed25519_verify(const struct ksp_ed25519_key *k, const uint8_t *msg, size_t len,
		       const uint8_t sig[64]);

/* A public key in compact form, for keeping many (128 octets, no
 * allocation): the encoding and the affine points -A and [2^128](-A), which
 * are the costly part of preparing a key (a square root and 128
 * doublings).  Verifying with it makes the small tables on the stack each
 * time (about 10% slower than with a ksp_ed25519_key); making the tables
 * from it costs about a quarter of a verification. */
struct ksp_ed25519_pub {
	uint8_t enc[32]; /* A as given; y of -A is its low 255 bits */
	uint8_t x0[32];  /* x of -A */
	uint8_t x1[32], y1[32]; /* [2^128](-A) */
};

/* 0 or -EINVAL (as ksp_ed25519_key_new). */
int ksp_ed25519_pub_init(struct ksp_ed25519_pub *p, const uint8_t pub[32]);
/* The same key as ksp_ed25519_key_new(p->enc); 0 or -ENOMEM. */
int ksp_ed25519_key_from_pub(const struct ksp_ed25519_pub *p, struct ksp_ed25519_key **ret);
/* The same verdict as ksp_ed25519_verify(). */
int ksp_ed25519_verify_pub(const struct ksp_ed25519_pub *p, const uint8_t *msg, size_t len,
			   const uint8_t sig[64]);

/* The public key of a 32-octet secret seed (RFC 8032 5.1.5). */
void ksp_ed25519_public(const uint8_t seed[32], uint8_t pub[32]);

/* Sign msg[0..len) with @seed; @pub must be ksp_ed25519_public(@seed)
 * (it is hashed into the signature; NULL: computed here, which costs as
 * much again).  @sig receives R || S. */
void ksp_ed25519_sign(const uint8_t seed[32], const uint8_t pub[32], const uint8_t *msg, size_t len,
		      uint8_t sig[64]);

/* ed25519-x8.c: true when this CPU runs it (AVX-512 F, DQ and IFMA). */
bool ksp_ed25519_x8_usable(void);
