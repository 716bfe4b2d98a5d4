/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ed25519-private.h: what ed25519.c shares with ed25519-x8.c, the
 * eight-lane verification.  Field elements are 5 limbs of 51 bits, least
 * significant first (ed25519.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/openpgp/ed25519.h"

/* The two scalars of a verification of sig = R || S by the key encoded as
 * enc_a: sr = S mod L and hr = k mod 8L for k = SHA-512(R || A || msg)
 * taken whole; the check is encode([sr]B + [hr](-A)) == R. */
void ksp_ed25519_scalars(const uint8_t enc_a[32], const uint8_t *msg, size_t len, const uint8_t sig[64],
			 uint64_t sr[4], uint64_t hr[4]);

/* The low 255 bits of s as limbs below 2^51 (not reduced mod p). */
void ksp_ed25519_fe_load(uint64_t h[5], const uint8_t s[32]);

/* The encoding of the point (x, y), limbs below 2^52: canonical y with the
 * parity of x in bit 255. */
void ksp_ed25519_encode_xy(uint8_t s[32], const uint64_t x[5], const uint64_t y[5]);

/* The parts of decoding a point that ed25519-x8.c does not do in lanes:
 * the check of y (0 or -EINVAL; y's limbs in @y), and the end, given the
 * candidate square root x = u v^3 (u v^7)^((p-5)/8), u = y^2 - 1 and
 * vxx = v x^2 with v = d y^2 + 1: 0 with the x of the point in @x, or
 * -EINVAL.  Limbs below 2^52 in, below 2^51 out. */
int ksp_ed25519_decode_y(const uint8_t s[32], uint64_t y[5]);
int ksp_ed25519_decode_x(const uint8_t s[32], uint64_t x[5], const uint64_t u[5], const uint64_t vxx[5]);

/* The canonical encoding of f (limbs below 2^52). */
void ksp_ed25519_fe_store(uint8_t s[32], const uint64_t f[5]);


/* Eight verifications with the compact keys pub[i] (which
 * ksp_ed25519_pub_init() accepted): res[i] is what
 * ksp_ed25519_verify_pub(pub[i], msg[i], len[i], sig[i]) answers.  Only
 * when ksp_ed25519_x8_usable(). */
void ksp_ed25519_verify_x8(const struct ksp_ed25519_pub *const pub[8], const uint8_t *const msg[8],
			   const size_t len[8], const uint8_t *const sig[8], int res[8]);

/* ksp_ed25519_pub_init() for eight keys at once: res[i] and *p[i] as it
 * gives them for pub[i].  Only when ksp_ed25519_x8_usable(). */
void ksp_ed25519_pub_init_x8(struct ksp_ed25519_pub *const p[8], const uint8_t *const pub[8], int res[8]);
