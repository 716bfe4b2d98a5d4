/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pgp-rsa.h: a fast RSA public-key operation for verifying many
 * signatures (PKCS#1 v1.5, RFC 8017 8.2.2).  Internal to libksp.
 *
 * s^e mod n by Montgomery multiplication, specialised for verification:
 * odd public exponents 3 <= e < 2^32 and moduli of up to 8192 bits.  Two
 * implementations: portable C on 64-bit limbs (unsigned __int128 products)
 * and, on x86-64 CPUs with AVX-512 IFMA, 52-bit digits in 512-bit vectors;
 * the key picks one when it is made.  Anything else (larger e or n, even n,
 * a compiler without __int128) is -EOPNOTSUPP: use libgcrypt.
 *
 * A key is read-only after ksp_rsa_key_new(), so threads may share it;
 * every call works on its own stack (no global or static mutable state).
 * Key precomputation (R^2 mod n) uses libgcrypt's gcry_mpi_mod(), so
 * libgcrypt must be initialised, as everywhere in libksp.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct ksp_rsa_key;

/* Which multiplication a key uses (AUTO: the fastest the CPU has). */
enum {
	KSP_RSA_IMPL_AUTO = 0,
	KSP_RSA_IMPL_PORTABLE = 1,
	KSP_RSA_IMPL_IFMA = 2,
};

/* A key from the big-endian octets of n and e (leading zeros allowed).
 * Returns 0, -EOPNOTSUPP (not for us: use libgcrypt), -EINVAL (n or e is
 * zero or empty) or -ENOMEM; *ret is NULL on failure. */
int ksp_rsa_key_new(const uint8_t *n, size_t n_len, const uint8_t *e, size_t e_len,
		    struct ksp_rsa_key **ret);
/* The same with a chosen implementation (tests, benchmarks); -EOPNOTSUPP
 * when this build or CPU does not have it. */
int ksp_rsa_key_new_impl(const uint8_t *n, size_t n_len, const uint8_t *e, size_t e_len, int impl,
			 struct ksp_rsa_key **ret);
void ksp_rsa_key_free(struct ksp_rsa_key *k);
/* KSP_RSA_IMPL_PORTABLE or KSP_RSA_IMPL_IFMA. */
int ksp_rsa_key_impl(const struct ksp_rsa_key *k);
/* The length of n in octets (without leading zeros). */
size_t ksp_rsa_key_len(const struct ksp_rsa_key *k);

/* Raw RSA: out[0 .. ksp_rsa_key_len(k)) = s^e mod n, big-endian, padded
 * with leading zeros.  s may have leading zeros.  Returns 0, or -EINVAL when
 * s is empty or s >= n. */
int ksp_rsa_public(const struct ksp_rsa_key *k, const uint8_t *s, size_t s_len, uint8_t *out);

/* Verify an RSASSA-PKCS1-v1_5 signature s on a digest made with the
 * libgcrypt hash algorithm gcry_md_algo (MD5, SHA-1, RIPEMD-160, SHA-224,
 * SHA-256, SHA-384, SHA-512, SHA3-256, SHA3-512): s^e mod n must be exactly
 * 0x00 0x01 FF..FF 0x00 || DigestInfo || digest, with the DigestInfo of
 * RFC 8017 9.2 note 1 (SHA-3: RFC 9580 5.2.2; libgcrypt 1.10's one-octet
 * SHA-3 "DigestInfo", 0x30, is not one).  Returns 1 good, 0 bad (also: s
 * empty or >= n, digest of the wrong length, n too short for the
 * encoding), -EOPNOTSUPP for another hash algorithm.
 *
 * Unlike libgcrypt 1.10, which reduces s mod n first, s >= n is bad
 * (RFC 8017 5.2.2 RSAVP1 step 1: "signature representative out of range"). */
int ksp_rsa_verify_pkcs1(const struct ksp_rsa_key *k, int gcry_md_algo, const uint8_t *digest,
			 size_t dlen, const uint8_t *s, size_t s_len);

/* The check of ksp_rsa_verify_pkcs1() on em[0 .. klen) = s^e mod n (klen:
 * the length of n in octets), however it was computed: 1, 0, -EOPNOTSUPP. */
int ksp_rsa_pkcs1_em_check(const uint8_t *em, size_t klen, int gcry_md_algo, const uint8_t *digest,
			   size_t dlen);
