// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ed25519.c: Ed25519 (RFC 8032 5.1) verification and signing; see
 * ed25519.h for the rules and the guarantees.
 *
 * Field: integers mod p = 2^255 - 19 as 5 limbs of 51 bits (f = sum
 * f[i] 2^(51 i)), products in unsigned __int128.  Limbs are kept below
 * 2^55 between operations: mul/sq accept up to 2^57 and return limbs
 * below 2^52; add does not carry; sub adds 8p (limbs 2^54 - 152 and
 * 2^54 - 8), so its subtrahend must have limbs below 2^54 - 152.
 *
 * Group: -x^2 + y^2 = 1 + d x^2 y^2 in extended coordinates (X:Y:Z:T),
 * x = X/Z, y = Y/Z, xy = T/Z, with the formulas of Hisil, Wong, Carter and
 * Dawson, "Twisted Edwards curves revisited" (2008), for a = -1: a doubling
 * and the additions give the "completed" (E, F, G, H), from which
 * X = EF, Y = GH, Z = FG, T = EH.  The additions are complete (d is not a
 * square), so no case needs a branch.
 *
 * Scalars: 64-bit words, least significant first; reduction mod L by
 * Barrett's method (HAC 14.42, b = 2^64, k = 4).
 *
 * Why one file (over 1,000 lines): the field, group and scalar arithmetic
 * are static helpers the compiler must see together to inline (this is
 * the hot path of every load); ed25519-x8.c holds the eight-lane variant.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gcrypt.h>

#include "lib/openpgp/ed25519.h"
#include "lib/openpgp/ed25519-private.h"

typedef unsigned __int128 u128;

typedef struct {
	uint64_t v[5];
} fe;

/* affine point as (y + x, y - x, 2dxy) */
struct niels {
	fe ypx, ymx, xy2d;
};

/* projective point as (Y + X, Y - X, 2Z, 2dT) */
struct cached {
	fe ypx, ymx, z2, t2d;
};

struct p3 {
	fe X, Y, Z, T;
};

struct p2 {
	fe X, Y, Z;
};

/* completed: X = E F, Y = G H, Z = F G, T = E H */
struct p1 {
	fe E, F, G, H;
};

#include "lib/openpgp/ed25519-table.h"

#define MASK51 ((UINT64_C(1) << 51) - 1)

/*
 * Verification computes [S]B + [k](-A) as [S0]B + [S1]B' + [k0]A0 + [k1]A1
 * with S = S0 + 2^128 S1, k = k0 + 2^128 k1, B' = [2^128]B, A0 = -A,
 * A1 = [2^128](-A): 128 doublings instead of 256, for 128 more when the key
 * is made.  The halves are in width-w NAF: width 8 for B and B' (static
 * tables of 64 odd multiples), width AW for A0 and A1 (2^(AW-2) odd
 * multiples each, affine, in the key: 1.9 KB).
 */
#define AW 5
#define AN (1 << (AW - 2))

struct ksp_ed25519_key {
	uint8_t enc[32];
	struct niels tab[2][AN]; /* [2i+1]A0, [2i+1]A1 */
};

/* ---- field arithmetic ---------------------------------------------------- */

static const fe FE_ONE = { { 1, 0, 0, 0, 0 } };

static inline void fe_add(fe *h, const fe *f, const fe *g)
{
	for (int i = 0; i < 5; i++)
		h->v[i] = f->v[i] + g->v[i];
}

/* f + 8p - g */
static inline void fe_sub(fe *h, const fe *f, const fe *g)
{
	h->v[0] = f->v[0] + UINT64_C(0x3fffffffffff68) - g->v[0];
	for (int i = 1; i < 5; i++)
		h->v[i] = f->v[i] + UINT64_C(0x3ffffffffffff8) - g->v[i];
}

static inline void fe_neg(fe *h, const fe *f)
{
	static const fe zero = { { 0, 0, 0, 0, 0 } };

	fe_sub(h, &zero, f);
}

/* carry the 128-bit column sums r0..r4 into h (limbs < 2^52) */
static inline void fe_carry128(fe *h, u128 r0, u128 r1, u128 r2, u128 r3, u128 r4)
{
	uint64_t h0, h1, h2, h3, h4;
	u128 t;

	r1 += r0 >> 51;
	h0 = (uint64_t)r0 & MASK51;
	r2 += r1 >> 51;
	h1 = (uint64_t)r1 & MASK51;
	r3 += r2 >> 51;
	h2 = (uint64_t)r2 & MASK51;
	r4 += r3 >> 51;
	h3 = (uint64_t)r3 & MASK51;
	t = (r4 >> 51) * 19 + h0;
	h4 = (uint64_t)r4 & MASK51;
	h0 = (uint64_t)t & MASK51;
	h1 += (uint64_t)(t >> 51);
	h->v[0] = h0;
	h->v[1] = h1;
	h->v[2] = h2;
	h->v[3] = h3;
	h->v[4] = h4;
}

static inline __attribute__((always_inline)) void fe_mul(fe *h, const fe *f, const fe *g)
{
	uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
	uint64_t g0 = g->v[0], g1 = g->v[1], g2 = g->v[2], g3 = g->v[3], g4 = g->v[4];
	uint64_t g1_19 = 19 * g1, g2_19 = 19 * g2, g3_19 = 19 * g3, g4_19 = 19 * g4;
	u128 r0, r1, r2, r3, r4;

	r0 = (u128)f0 * g0 + (u128)f1 * g4_19 + (u128)f2 * g3_19 + (u128)f3 * g2_19 + (u128)f4 * g1_19;
	r1 = (u128)f0 * g1 + (u128)f1 * g0 + (u128)f2 * g4_19 + (u128)f3 * g3_19 + (u128)f4 * g2_19;
	r2 = (u128)f0 * g2 + (u128)f1 * g1 + (u128)f2 * g0 + (u128)f3 * g4_19 + (u128)f4 * g3_19;
	r3 = (u128)f0 * g3 + (u128)f1 * g2 + (u128)f2 * g1 + (u128)f3 * g0 + (u128)f4 * g4_19;
	r4 = (u128)f0 * g4 + (u128)f1 * g3 + (u128)f2 * g2 + (u128)f3 * g1 + (u128)f4 * g0;
	fe_carry128(h, r0, r1, r2, r3, r4);
}

static inline __attribute__((always_inline)) void fe_sq(fe *h, const fe *f)
{
	uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
	uint64_t f0_2 = 2 * f0, f1_2 = 2 * f1, f2_2 = 2 * f2, f3_2 = 2 * f3;
	uint64_t f3_19 = 19 * f3, f4_19 = 19 * f4;
	u128 r0, r1, r2, r3, r4;

	r0 = (u128)f0 * f0 + (u128)f1_2 * f4_19 + (u128)f2_2 * f3_19;
	r1 = (u128)f0_2 * f1 + (u128)f2_2 * f4_19 + (u128)f3 * f3_19;
	r2 = (u128)f0_2 * f2 + (u128)f1 * f1 + (u128)f3_2 * f4_19;
	r3 = (u128)f0_2 * f3 + (u128)f1_2 * f2 + (u128)f4 * f4_19;
	r4 = (u128)f0_2 * f4 + (u128)f1_2 * f3 + (u128)f2 * f2;
	fe_carry128(h, r0, r1, r2, r3, r4);
}

/* h = f^(2^n), n >= 1 */
static void fe_sqn(fe *h, const fe *f, int n)
{
	fe_sq(h, f);
	while (--n > 0)
		fe_sq(h, h);
}

/* *z11 = z^11, *r = z^(2^250 - 1) */
static void fe_pow2250m1(fe *r, fe *z11, const fe *z)
{
	fe t0, t1, t2, t3;

	fe_sq(&t0, z);            /* 2 */
	fe_sqn(&t1, &t0, 2);      /* 8 */
	fe_mul(&t1, &t1, z);      /* 9 */
	fe_mul(z11, &t0, &t1);    /* 11 */
	fe_sq(&t2, z11);          /* 22 */
	fe_mul(&t1, &t1, &t2);    /* 31 = 2^5 - 1 */
	fe_sqn(&t2, &t1, 5);
	fe_mul(&t1, &t2, &t1);    /* 2^10 - 1 */
	fe_sqn(&t2, &t1, 10);
	fe_mul(&t2, &t2, &t1);    /* 2^20 - 1 */
	fe_sqn(&t3, &t2, 20);
	fe_mul(&t2, &t3, &t2);    /* 2^40 - 1 */
	fe_sqn(&t2, &t2, 10);
	fe_mul(&t1, &t2, &t1);    /* 2^50 - 1 */
	fe_sqn(&t2, &t1, 50);
	fe_mul(&t2, &t2, &t1);    /* 2^100 - 1 */
	fe_sqn(&t3, &t2, 100);
	fe_mul(&t2, &t3, &t2);    /* 2^200 - 1 */
	fe_sqn(&t2, &t2, 50);
	fe_mul(r, &t2, &t1);      /* 2^250 - 1 */
}

/* h = z^(p - 2) = 1/z (0 for 0) */
static void fe_invert(fe *h, const fe *z)
{
	fe t, z11;

	fe_pow2250m1(&t, &z11, z);
	fe_sqn(&t, &t, 5);        /* 2^255 - 2^5 */
	fe_mul(h, &t, &z11);      /* 2^255 - 21 */
}

/* h = z^((p - 5) / 8) = z^(2^252 - 3) */
static void fe_pow22523(fe *h, const fe *z)
{
	fe t, z11;

	fe_pow2250m1(&t, &z11, z);
	fe_sqn(&t, &t, 2);        /* 2^252 - 4 */
	fe_mul(h, &t, z);
}

static uint64_t load64_le(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void store64_le(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* the low 255 bits of s (not reduced: values p..2^255-1 stay as they are) */
static void fe_frombytes(fe *h, const uint8_t s[32])
{
	uint64_t w0 = load64_le(s), w1 = load64_le(s + 8), w2 = load64_le(s + 16), w3 = load64_le(s + 24);

	h->v[0] = w0 & MASK51;
	h->v[1] = (w0 >> 51 | w1 << 13) & MASK51;
	h->v[2] = (w1 >> 38 | w2 << 26) & MASK51;
	h->v[3] = (w2 >> 25 | w3 << 39) & MASK51;
	h->v[4] = (w3 >> 12) & MASK51;
}

/* the canonical encoding (0 <= value < p, bit 255 clear); constant time */
static void fe_tobytes(uint8_t s[32], const fe *f)
{
	uint64_t h[5], q;

	memcpy(h, f->v, sizeof(h));
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 4; i++) {
			h[i + 1] += h[i] >> 51;
			h[i] &= MASK51;
		}
		h[0] += 19 * (h[4] >> 51);
		h[4] &= MASK51;
	}
	/* now h < 2^255 + 19: q = 1 iff h >= p */
	q = (h[0] + 19) >> 51;
	for (int i = 1; i < 5; i++)
		q = (h[i] + q) >> 51;
	h[0] += 19 * q;
	for (int i = 0; i < 4; i++) {
		h[i + 1] += h[i] >> 51;
		h[i] &= MASK51;
	}
	h[4] &= MASK51;
	store64_le(s, h[0] | h[1] << 51);
	store64_le(s + 8, h[1] >> 13 | h[2] << 38);
	store64_le(s + 16, h[2] >> 26 | h[3] << 25);
	store64_le(s + 24, h[3] >> 39 | h[4] << 12);
}

static bool fe_iszero(const fe *f)
{
	uint8_t s[32], acc = 0;

	fe_tobytes(s, f);
	for (int i = 0; i < 32; i++)
		acc |= s[i];
	return acc == 0;
}

static bool fe_equal(const fe *f, const fe *g)
{
	fe d;

	fe_sub(&d, f, g);
	return fe_iszero(&d);
}

/* the parity of the canonical value */
static unsigned fe_isodd(const fe *f)
{
	uint8_t s[32];

	fe_tobytes(s, f);
	return s[0] & 1;
}

/* f = g where mask is all ones, unchanged where it is 0 */
static inline void fe_cmov(fe *f, const fe *g, uint64_t mask)
{
	for (int i = 0; i < 5; i++)
		f->v[i] ^= (f->v[i] ^ g->v[i]) & mask;
}

/* ---- group operations ----------------------------------------------------- */

static void p3_identity(struct p3 *h)
{
	memset(h, 0, sizeof(*h));
	h->Y = FE_ONE;
	h->Z = FE_ONE;
}

static void p1_to_p2(struct p2 *r, const struct p1 *p)
{
	fe_mul(&r->X, &p->E, &p->F);
	fe_mul(&r->Y, &p->G, &p->H);
	fe_mul(&r->Z, &p->F, &p->G);
}

static void p1_to_p3(struct p3 *r, const struct p1 *p)
{
	fe_mul(&r->X, &p->E, &p->F);
	fe_mul(&r->Y, &p->G, &p->H);
	fe_mul(&r->Z, &p->F, &p->G);
	fe_mul(&r->T, &p->E, &p->H);
}

static void p3_to_cached(struct cached *r, const struct p3 *p)
{
	fe_add(&r->ypx, &p->Y, &p->X);
	fe_sub(&r->ymx, &p->Y, &p->X);
	fe_add(&r->z2, &p->Z, &p->Z);
	fe_mul(&r->t2d, &p->T, &ED_2D);
}

/*
 * 2P from X, Y, Z (dbl-2008-hwcd, a = -1), with F and H negated (which
 * negates all of X, Y, Z, T: the same point):
 * A = X^2, B = Y^2, C = 2Z^2, H = A + B, E = (X + Y)^2 - H, G = B - A,
 * F = C + A - B.
 */
static void p2_dbl(struct p1 *r, const struct p2 *p)
{
	fe a, b, c, t;

	fe_sq(&a, &p->X);
	fe_sq(&b, &p->Y);
	fe_sq(&c, &p->Z);
	fe_add(&c, &c, &c);
	fe_add(&t, &p->X, &p->Y);
	fe_sq(&t, &t);
	fe_add(&r->H, &a, &b);
	fe_sub(&r->E, &t, &r->H);
	fe_sub(&r->G, &b, &a);
	fe_add(&c, &c, &a);
	fe_sub(&r->F, &c, &b);
}

static void p3_dbl(struct p1 *r, const struct p3 *p)
{
	struct p2 q;

	q.X = p->X;
	q.Y = p->Y;
	q.Z = p->Z;
	p2_dbl(r, &q);
}

/* P + Q, Q affine (madd-2008-hwcd-3, a = -1) */
static void p3_madd(struct p1 *r, const struct p3 *p, const struct niels *q)
{
	fe a, b, c, d, t;

	fe_sub(&t, &p->Y, &p->X);
	fe_mul(&a, &t, &q->ymx);
	fe_add(&t, &p->Y, &p->X);
	fe_mul(&b, &t, &q->ypx);
	fe_mul(&c, &p->T, &q->xy2d);
	fe_add(&d, &p->Z, &p->Z);
	fe_sub(&r->E, &b, &a);
	fe_add(&r->H, &b, &a);
	fe_sub(&r->F, &d, &c);
	fe_add(&r->G, &d, &c);
}

/* P - Q, Q affine */
static void p3_msub(struct p1 *r, const struct p3 *p, const struct niels *q)
{
	fe a, b, c, d, t;

	fe_sub(&t, &p->Y, &p->X);
	fe_mul(&a, &t, &q->ypx);
	fe_add(&t, &p->Y, &p->X);
	fe_mul(&b, &t, &q->ymx);
	fe_mul(&c, &p->T, &q->xy2d);
	fe_add(&d, &p->Z, &p->Z);
	fe_sub(&r->E, &b, &a);
	fe_add(&r->H, &b, &a);
	fe_add(&r->F, &d, &c);
	fe_sub(&r->G, &d, &c);
}

/* P + Q (add-2008-hwcd-3, a = -1) */
static void p3_add(struct p1 *r, const struct p3 *p, const struct cached *q)
{
	fe a, b, c, d, t;

	fe_sub(&t, &p->Y, &p->X);
	fe_mul(&a, &t, &q->ymx);
	fe_add(&t, &p->Y, &p->X);
	fe_mul(&b, &t, &q->ypx);
	fe_mul(&c, &p->T, &q->t2d);
	fe_mul(&d, &p->Z, &q->z2);
	fe_sub(&r->E, &b, &a);
	fe_add(&r->H, &b, &a);
	fe_sub(&r->F, &d, &c);
	fe_add(&r->G, &d, &c);
}

/* the encoding of X/Z, Y/Z: y with the parity of x in bit 255 */
static void point_tobytes(uint8_t s[32], const fe *X, const fe *Y, const fe *Z)
{
	fe zi, x, y;

	fe_invert(&zi, Z);
	fe_mul(&x, X, &zi);
	fe_mul(&y, Y, &zi);
	fe_tobytes(s, &y);
	s[31] |= (uint8_t)(fe_isodd(&x) << 7);
}

/*
 * Decode a public key as libgcrypt 1.10 does, as far as it gives an answer:
 * y >= p, y = 0 and x = 0 (y = 1 or p - 1) are rejected; so is a y for which
 * (y^2 - 1) / (d y^2 + 1) has no square root.  x = sqrt(u/v) is
 * u v^3 (u v^7)^((p-5)/8), times sqrt(-1) when that squares to -u/v.
 */
/* point_decode's check of y: y >= p and y = 0 are refused */
static int decode_y(fe *y, const uint8_t s[32])
{
	uint8_t c[32];

	fe_frombytes(y, s);
	fe_tobytes(c, y);
	c[31] |= s[31] & 0x80;
	if (memcmp(c, s, 32) != 0) /* y >= p */
		return -EINVAL;
	if (fe_iszero(y))
		return -EINVAL;
	return 0;
}

/* point_decode's end: *x = u v^3 (u v^7)^((p-5)/8) with vxx = v x^2 becomes
 * the x of the point (or -EINVAL: no square root, or x = 0) */
static int decode_x(fe *x, const fe *u, const fe *vxx, const uint8_t s[32])
{
	fe t;

	if (!fe_equal(vxx, u)) {
		fe_add(&t, vxx, u);
		if (!fe_iszero(&t))
			return -EINVAL;  /* u/v is not a square */
		fe_mul(x, x, &ED_SQRTM1);
	}
	if (fe_iszero(x))
		return -EINVAL;
	if (fe_isodd(x) != (unsigned)(s[31] >> 7))
		fe_neg(x, x);
	return 0;
}

static int point_decode(struct p3 *h, const uint8_t s[32])
{
	fe u, v, v3, x, t;
	int r;

	r = decode_y(&h->Y, s);
	if (r < 0)
		return r;
	fe_sq(&u, &h->Y);
	fe_mul(&v, &u, &ED_D);
	fe_sub(&u, &u, &FE_ONE);   /* y^2 - 1 */
	fe_add(&v, &v, &FE_ONE);   /* d y^2 + 1 */
	fe_sq(&v3, &v);
	fe_mul(&v3, &v3, &v);      /* v^3 */
	fe_sq(&t, &v3);
	fe_mul(&t, &t, &v);        /* v^7 */
	fe_mul(&t, &t, &u);
	fe_pow22523(&t, &t);
	fe_mul(&t, &t, &v3);
	fe_mul(&x, &t, &u);
	fe_sq(&t, &x);
	fe_mul(&t, &t, &v);        /* v x^2 */
	r = decode_x(&x, &u, &t, s);
	if (r < 0)
		return r;
	h->X = x;
	h->Z = FE_ONE;
	fe_mul(&h->T, &h->X, &h->Y);
	return 0;
}

int ksp_ed25519_decode_y(const uint8_t s[32], uint64_t y[5])
{
	fe f;
	int r = decode_y(&f, s);

	memcpy(y, f.v, sizeof(f.v));
	return r;
}

int ksp_ed25519_decode_x(const uint8_t s[32], uint64_t x[5], const uint64_t u[5], const uint64_t vxx[5])
{
	uint8_t c[32];
	fe fx, fu, fv;
	int r;

	memcpy(fx.v, x, sizeof(fx.v));
	memcpy(fu.v, u, sizeof(fu.v));
	memcpy(fv.v, vxx, sizeof(fv.v));
	r = decode_x(&fx, &fu, &fv, s);
	/* limbs below 2^51 (fe_neg leaves them below 2^55) */
	fe_tobytes(c, &fx);
	fe_frombytes(&fx, c);
	memcpy(x, fx.v, sizeof(fx.v));
	return r;
}

void ksp_ed25519_fe_store(uint8_t s[32], const uint64_t f[5])
{
	fe h;

	memcpy(h.v, f, sizeof(h.v));
	fe_tobytes(s, &h);
}

/* ---- scalars mod L -------------------------------------------------------- */

/* r = x mod L for x < 2^512 (Barrett; constant time) */
static void sc_reduce(uint64_t r[4], const uint64_t x[8])
{
	uint64_t q[10] = { 0 }, m[5] = { 0 }, t[5];

	/* q = floor(x / 2^192) * mu; the estimate is q / 2^320 */
	for (int i = 0; i < 5; i++) {
		uint64_t carry = 0;
		for (int j = 0; j < 5; j++) {
			u128 p = (u128)x[3 + i] * SC_MU[j] + q[i + j] + carry;
			q[i + j] = (uint64_t)p;
			carry = (uint64_t)(p >> 64);
		}
		q[i + 5] = carry;
	}
	/* m = (q3 * L) mod 2^320, q3 = q[5..9] */
	for (int i = 0; i < 5; i++) {
		uint64_t carry = 0;
		for (int j = 0; j < 4 && i + j < 5; j++) {
			u128 p = (u128)q[5 + i] * SC_L[j] + m[i + j] + carry;
			m[i + j] = (uint64_t)p;
			carry = (uint64_t)(p >> 64);
		}
		if (i + 4 < 5)
			m[i + 4] += carry;
	}
	/* t = (x - m) mod 2^320, which is < 3L */
	{
		uint64_t borrow = 0;
		for (int i = 0; i < 5; i++) {
			u128 d = (u128)x[i] - m[i] - borrow;
			t[i] = (uint64_t)d;
			borrow = (uint64_t)(d >> 64) & 1;
		}
	}
	/* at most two subtractions of L */
	for (int k = 0; k < 2; k++) {
		uint64_t u[5], borrow = 0, mask;
		for (int i = 0; i < 5; i++) {
			u128 d = (u128)t[i] - (i < 4 ? SC_L[i] : 0) - borrow;
			u[i] = (uint64_t)d;
			borrow = (uint64_t)(d >> 64) & 1;
		}
		mask = borrow - 1; /* all ones when t >= L */
		for (int i = 0; i < 5; i++)
			t[i] ^= (t[i] ^ u[i]) & mask;
	}
	memcpy(r, t, 4 * sizeof(uint64_t));
	explicit_bzero(q, sizeof(q));
	explicit_bzero(m, sizeof(m));
	explicit_bzero(t, sizeof(t));
}

static void sc_from64(uint64_t x[8], const uint8_t b[64])
{
	for (int i = 0; i < 8; i++)
		x[i] = load64_le(b + 8 * i);
}

static void sc_tobytes(uint8_t b[32], const uint64_t s[4])
{
	for (int i = 0; i < 4; i++)
		store64_le(b + 8 * i, s[i]);
}

/* r = (a b + c) mod L; a, b, c < 2^256 */
static void sc_muladd(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const uint64_t c[4])
{
	uint64_t x[8] = { 0 }, carry;

	for (int i = 0; i < 4; i++) {
		carry = 0;
		for (int j = 0; j < 4; j++) {
			u128 p = (u128)a[i] * b[j] + x[i + j] + carry;
			x[i + j] = (uint64_t)p;
			carry = (uint64_t)(p >> 64);
		}
		x[i + 4] = carry;
	}
	carry = 0;
	for (int i = 0; i < 8; i++) {
		u128 s = (u128)x[i] + (i < 4 ? c[i] : 0) + carry;
		x[i] = (uint64_t)s;
		carry = (uint64_t)(s >> 64);
	}
	sc_reduce(r, x);
	explicit_bzero(x, sizeof(x));
}

/* ---- multiplication by the base point (constant time) --------------------- */

static uint64_t ct_eq_mask(uint8_t a, uint8_t b)
{
	uint64_t x = (uint64_t)(a ^ b);

	return 0 - ((x - 1) >> 63); /* all ones when a == b */
}

/* t = [b] 256^pos B, -8 <= b <= 8, without branches or secret indices */
static void base_select(struct niels *t, int pos, int8_t b)
{
	uint8_t neg = (uint8_t)b >> 7;
	uint8_t babs = (uint8_t)(b - (((-neg) & b) * 2));
	struct niels minus;

	t->ypx = FE_ONE;
	t->ymx = FE_ONE;
	memset(&t->xy2d, 0, sizeof(t->xy2d));
	for (int j = 0; j < 8; j++) {
		uint64_t m = ct_eq_mask(babs, (uint8_t)(j + 1));
		fe_cmov(&t->ypx, &ED_BASE_COMB[pos][j].ypx, m);
		fe_cmov(&t->ymx, &ED_BASE_COMB[pos][j].ymx, m);
		fe_cmov(&t->xy2d, &ED_BASE_COMB[pos][j].xy2d, m);
	}
	minus.ypx = t->ymx;
	minus.ymx = t->ypx;
	fe_neg(&minus.xy2d, &t->xy2d);
	fe_cmov(&t->ypx, &minus.ypx, 0 - (uint64_t)neg);
	fe_cmov(&t->ymx, &minus.ymx, 0 - (uint64_t)neg);
	fe_cmov(&t->xy2d, &minus.xy2d, 0 - (uint64_t)neg);
}

/* h = [a]B for a < 2^255 (a[31] <= 127), as 64 signed radix-16 digits:
 * a = sum e[i] 16^i, -8 <= e[i] < 8 (e[63] <= 8) */
static void base_mul(struct p3 *h, const uint8_t a[32])
{
	int8_t e[64], carry = 0;
	struct niels t;
	struct p1 r;
	struct p2 s;

	for (int i = 0; i < 32; i++) {
		e[2 * i] = (int8_t)(a[i] & 15);
		e[2 * i + 1] = (int8_t)(a[i] >> 4);
	}
	for (int i = 0; i < 63; i++) {
		e[i] = (int8_t)(e[i] + carry);
		carry = (int8_t)((e[i] + 8) >> 4);
		e[i] = (int8_t)(e[i] - carry * 16);
	}
	e[63] = (int8_t)(e[63] + carry);

	p3_identity(h);
	for (int i = 1; i < 64; i += 2) {
		base_select(&t, i / 2, e[i]);
		p3_madd(&r, h, &t);
		p1_to_p3(h, &r);
	}
	p3_dbl(&r, h);
	p1_to_p2(&s, &r);
	p2_dbl(&r, &s);
	p1_to_p2(&s, &r);
	p2_dbl(&r, &s);
	p1_to_p2(&s, &r);
	p2_dbl(&r, &s);
	p1_to_p3(h, &r);
	for (int i = 0; i < 64; i += 2) {
		base_select(&t, i / 2, e[i]);
		p3_madd(&r, h, &t);
		p1_to_p3(h, &r);
	}
	explicit_bzero(e, sizeof(e));
	explicit_bzero(&t, sizeof(t));
	explicit_bzero(&r, sizeof(r));
	explicit_bzero(&s, sizeof(s));
}

/* ---- [S]B - [k]A for verification (variable time) ------------------------ */

/* bits pos .. pos+n-1 of the 128-bit k (zeros above), n <= 16 */
static unsigned getbits128(const uint64_t k[2], int pos, int n)
{
	uint64_t v;

	if (pos >= 128)
		return 0;
	if (pos >= 64)
		v = k[1] >> (pos - 64);
	else if (pos == 0)
		v = k[0];
	else
		v = k[0] >> pos | k[1] << (64 - pos);
	return (unsigned)v & ((1u << n) - 1);
}

/* width-w NAF of k < 2^128: k = sum naf[i] 2^i, every nonzero digit odd and
 * below 2^(w-1) in magnitude, followed by at least w-1 zeros */
static void wnaf128(int8_t naf[129], const uint64_t k[2], int w)
{
	int carry = 0;

	memset(naf, 0, 129);
	for (int bit = 0; bit < 129;) {
		int now, word;

		if ((int)getbits128(k, bit, 1) == carry) {
			bit++;
			continue;
		}
		now = w < 129 - bit ? w : 129 - bit;
		word = (int)getbits128(k, bit, now) + carry;
		carry = (word >> (w - 1)) & 1;
		word -= carry << w;
		naf[bit] = (int8_t)word;
		bit += now;
	}
}

/* P - Q (add-2008-hwcd-3 with -Q, a = -1) */
static void p3_sub(struct p1 *r, const struct p3 *p, const struct cached *q)
{
	fe a, b, c, d, t;

	fe_sub(&t, &p->Y, &p->X);
	fe_mul(&a, &t, &q->ypx);
	fe_add(&t, &p->Y, &p->X);
	fe_mul(&b, &t, &q->ymx);
	fe_mul(&c, &p->T, &q->t2d);
	fe_mul(&d, &p->Z, &q->z2);
	fe_sub(&r->E, &b, &a);
	fe_add(&r->H, &b, &a);
	fe_add(&r->F, &d, &c);
	fe_sub(&r->G, &d, &c);
}

/* r = [s]B + [k]A' for s, k < 2^256 where tab (affine, from a prepared key)
 * or ctab (projective, made for one verification) = the tables of A' */
static inline __attribute__((always_inline)) void
verify_mul(struct p2 *r, const uint64_t s[4], const uint64_t k[4], const struct niels tab[2][AN],
	   const struct cached ctab[2][AN])
{
	int8_t sn[2][129], kn[2][129];
	struct p1 t;
	struct p3 u;
	int i;

	for (int j = 0; j < 2; j++) {
		wnaf128(sn[j], s + 2 * j, 8);
		wnaf128(kn[j], k + 2 * j, AW);
	}
	for (i = 128; i >= 0 && !(sn[0][i] | sn[1][i] | kn[0][i] | kn[1][i]); i--)
		;
	memset(r, 0, sizeof(*r));
	r->Y = FE_ONE;
	r->Z = FE_ONE;
	for (; i >= 0; i--) {
		p2_dbl(&t, r);
		for (int j = 0; j < 2; j++) {
			int d = kn[j][i];

			if (d != 0) {
				p1_to_p3(&u, &t);
				if (tab) {
					if (d > 0)
						p3_madd(&t, &u, &tab[j][d / 2]);
					else
						p3_msub(&t, &u, &tab[j][-d / 2]);
				} else {
					if (d > 0)
						p3_add(&t, &u, &ctab[j][d / 2]);
					else
						p3_sub(&t, &u, &ctab[j][-d / 2]);
				}
			}
			d = sn[j][i];
			if (d > 0) {
				p1_to_p3(&u, &t);
				p3_madd(&t, &u, &ED_BASE_ODD[j][d / 2]);
			} else if (d < 0) {
				p1_to_p3(&u, &t);
				p3_msub(&t, &u, &ED_BASE_ODD[j][-d / 2]);
			}
		}
		p1_to_p2(r, &t);
	}
}

/* ---- the API -------------------------------------------------------------- */

/* m = the odd multiples [1]P, [3]P, ... [2 AN - 1]P */
static void odd_multiples(struct p3 m[AN], const struct p3 *p)
{
	struct p3 p2;
	struct cached c2;
	struct p1 t;

	p3_dbl(&t, p);
	p1_to_p3(&p2, &t);
	p3_to_cached(&c2, &p2);
	m[0] = *p;
	for (int i = 1; i < AN; i++) {
		p3_add(&t, &m[i - 1], &c2);
		p1_to_p3(&m[i], &t);
	}
}

/* out[i / AN][i % AN] = affine m[i], with one inversion for all
 * (Montgomery's trick) */
static void to_niels(struct niels out[2][AN], const struct p3 m[2 * AN])
{
	const int n = 2 * AN;
	fe prod[2 * AN], inv, zi, x, y;

	prod[0] = m[0].Z;
	for (int i = 1; i < n; i++)
		fe_mul(&prod[i], &prod[i - 1], &m[i].Z);
	fe_invert(&inv, &prod[n - 1]); /* 1 / (Z0 ... Zn-1) */
	for (int i = n - 1; i >= 0; i--) {
		struct niels *o = &out[i / AN][i % AN];

		if (i > 0) {
			fe_mul(&zi, &inv, &prod[i - 1]);  /* 1 / Zi */
			fe_mul(&inv, &inv, &m[i].Z);      /* 1 / (Z0 ... Zi-1) */
		} else {
			zi = inv;
		}
		fe_mul(&x, &m[i].X, &zi);
		fe_mul(&y, &m[i].Y, &zi);
		fe_add(&o->ypx, &y, &x);
		fe_sub(&o->ymx, &y, &x);
		fe_mul(&o->xy2d, &x, &y);
		fe_mul(&o->xy2d, &o->xy2d, &ED_2D);
	}
}

/* A0 = -A, A1 = [2^128] A0 (projective) for the point A encoded in pub */
static int key_points(struct p3 *a0, struct p3 *a1, const uint8_t pub[32])
{
	struct p2 q;
	struct p1 t;
	int r;

	r = point_decode(a0, pub);
	if (r < 0)
		return r;
	fe_neg(&a0->X, &a0->X);
	fe_neg(&a0->T, &a0->T);
	q.X = a0->X;
	q.Y = a0->Y;
	q.Z = a0->Z;
	for (int i = 0; i < 127; i++) {
		p2_dbl(&t, &q);
		p1_to_p2(&q, &t);
	}
	p2_dbl(&t, &q);
	p1_to_p3(a1, &t);
	return 0;
}

int ksp_ed25519_key_new(const uint8_t pub[32], struct ksp_ed25519_key **ret)
{
	struct ksp_ed25519_key *k;
	struct p3 a0, a1, m[2 * AN];
	int r;

	*ret = NULL;
	r = key_points(&a0, &a1, pub);
	if (r < 0)
		return r;
	k = malloc(sizeof(*k));
	if (k == NULL)
		return -ENOMEM;
	memcpy(k->enc, pub, 32);
	odd_multiples(m, &a0);
	odd_multiples(m + AN, &a1);
	to_niels(k->tab, m);
	*ret = k;
	return 0;
}

void ksp_ed25519_key_free(struct ksp_ed25519_key *k)
{
	free(k);
}

int ksp_ed25519_pub_init(struct ksp_ed25519_pub *p, const uint8_t pub[32])
{
	struct p3 a0, a1;
	fe zi, x, y;
	int r;

	memset(p, 0, sizeof(*p));
	r = key_points(&a0, &a1, pub);
	if (r < 0)
		return r;
	memcpy(p->enc, pub, 32);
	fe_tobytes(p->x0, &a0.X); /* y0 is y, in enc */
	fe_invert(&zi, &a1.Z);
	fe_mul(&x, &a1.X, &zi);
	fe_mul(&y, &a1.Y, &zi);
	fe_tobytes(p->x1, &x);
	fe_tobytes(p->y1, &y);
	return 0;
}

/* the affine point (x, y) as (x, y, 1, xy) */
static void p3_from_affine(struct p3 *h, const uint8_t x[32], const uint8_t y[32])
{
	fe_frombytes(&h->X, x);
	fe_frombytes(&h->Y, y); /* the low 255 bits: enc's sign bit is not read */
	h->Z = FE_ONE;
	fe_mul(&h->T, &h->X, &h->Y);
}

/* m = the odd multiples of A0 (m[0 .. AN)) and A1 (m[AN ..)) */
static void pub_multiples(struct p3 m[2 * AN], const struct ksp_ed25519_pub *p)
{
	struct p3 a;

	p3_from_affine(&a, p->x0, p->enc);
	odd_multiples(m, &a);
	p3_from_affine(&a, p->x1, p->y1);
	odd_multiples(m + AN, &a);
}

int ksp_ed25519_key_from_pub(const struct ksp_ed25519_pub *p, struct ksp_ed25519_key **ret)
{
	struct ksp_ed25519_key *k;
	struct p3 m[2 * AN];

	*ret = NULL;
	k = malloc(sizeof(*k));
	if (k == NULL)
		return -ENOMEM;
	memcpy(k->enc, p->enc, 32);
	pub_multiples(m, p);
	to_niels(k->tab, m);
	*ret = k;
	return 0;
}

/* SHA-512 of the concatenation of up to three pieces (empty ones skipped) */
static void sha512_3(uint8_t out[64], const void *a, size_t alen, const void *b, size_t blen, const void *c,
		     size_t clen)
{
	const void *data[3] = { a, b, c };
	size_t lens[3] = { alen, blen, clen };
	gcry_buffer_t iov[3];
	int n = 0;

	memset(iov, 0, sizeof(iov));
	for (int i = 0; i < 3; i++)
		if (lens[i] > 0) {
			iov[n].size = iov[n].len = lens[i];
			iov[n].data = (void *)data[i];
			n++;
		}
	if (gcry_md_hash_buffers(GCRY_MD_SHA512, 0, out, iov, n) != 0)
		memset(out, 0, 64); /* cannot happen for SHA-512 */
}

void ksp_ed25519_scalars(const uint8_t enc_a[32], const uint8_t *msg, size_t len, const uint8_t sig[64],
			 uint64_t sr[4], uint64_t hr[4])
{
	uint64_t s[8] = { 0 }, h[8], q[8], low;
	uint8_t d[64];

	/* S as any 256-bit number, mod L: [S]B = [S mod L]B */
	for (int i = 0; i < 4; i++)
		s[i] = load64_le(sig + 32 + 8 * i);
	sc_reduce(sr, s);
	/* k = SHA-512(R || A || M) whole; [k]A = [k mod 8L]A for every point A,
	 * and k mod 8L = 8 (floor(k / 8) mod L) + (k mod 8) */
	sha512_3(d, sig, 32, enc_a, 32, msg, len);
	sc_from64(h, d);
	low = h[0] & 7;
	for (int i = 0; i < 8; i++)
		q[i] = h[i] >> 3 | (i < 7 ? h[i + 1] << 61 : 0);
	sc_reduce(hr, q);
	for (int i = 3; i > 0; i--)
		hr[i] = hr[i] << 3 | hr[i - 1] >> 61;
	hr[0] = hr[0] << 3 | low;
}

void ksp_ed25519_fe_load(uint64_t h[5], const uint8_t s[32])
{
	fe f;

	fe_frombytes(&f, s);
	memcpy(h, f.v, sizeof(f.v));
}

void ksp_ed25519_encode_xy(uint8_t s[32], const uint64_t x[5], const uint64_t y[5])
{
	fe fx, fy;

	memcpy(fx.v, x, sizeof(fx.v));
	memcpy(fy.v, y, sizeof(fy.v));
	fe_tobytes(s, &fy);
	s[31] |= (uint8_t)(fe_isodd(&fx) << 7);
}

/* the check with the key's tables (tab) or tables made now (ctab) */
static inline __attribute__((always_inline)) int
verify_common(const uint8_t enc_a[32], const struct niels tab[2][AN], const struct cached ctab[2][AN],
	      const uint8_t *msg, size_t len, const uint8_t sig[64])
{
	uint64_t sr[4], hr[4];
	uint8_t enc[32];
	struct p2 r;

	ksp_ed25519_scalars(enc_a, msg, len, sig, sr, hr);
	/* [S]B + [k](-A) */
	verify_mul(&r, sr, hr, tab, ctab);
	point_tobytes(enc, &r.X, &r.Y, &r.Z);
	return memcmp(enc, sig, 32) == 0;
}

int ksp_ed25519_verify(const struct ksp_ed25519_key *k, const uint8_t *msg, size_t len, const uint8_t sig[64])
{
	return verify_common(k->enc, k->tab, NULL, msg, len, sig);
}

int ksp_ed25519_verify_pub(const struct ksp_ed25519_pub *p, const uint8_t *msg, size_t len,
			   const uint8_t sig[64])
{
	struct cached ctab[2][AN];
	struct p3 m[2 * AN];

	pub_multiples(m, p);
	for (int i = 0; i < 2 * AN; i++)
		p3_to_cached(&ctab[i / AN][i % AN], &m[i]);
	return verify_common(p->enc, NULL, ctab, msg, len, sig);
}

/* SHA-512 of the seed, clamped: a in az[0..32), the prefix in az[32..64) */
static void expand_seed(uint8_t az[64], const uint8_t seed[32])
{
	gcry_md_hash_buffer(GCRY_MD_SHA512, az, seed, 32);
	az[0] &= 248;
	az[31] &= 127;
	az[31] |= 64;
}

void ksp_ed25519_public(const uint8_t seed[32], uint8_t pub[32])
{
	uint8_t az[64];
	struct p3 a;

	expand_seed(az, seed);
	base_mul(&a, az);
	point_tobytes(pub, &a.X, &a.Y, &a.Z);
	explicit_bzero(az, sizeof(az));
	explicit_bzero(&a, sizeof(a));
}

void ksp_ed25519_sign(const uint8_t seed[32], const uint8_t pub[32], const uint8_t *msg, size_t len,
		      uint8_t sig[64])
{
	uint8_t az[64], d[64], rb[32], own[32];
	uint64_t x[8], r[4], h[4], a[4], s[4];
	struct p3 R;

	expand_seed(az, seed);
	if (pub == NULL) {
		base_mul(&R, az);
		point_tobytes(own, &R.X, &R.Y, &R.Z);
		pub = own;
	}
	/* r = SHA-512(prefix || M) mod L, R = [r]B */
	sha512_3(d, az + 32, 32, msg, len, NULL, 0);
	sc_from64(x, d);
	sc_reduce(r, x);
	sc_tobytes(rb, r);
	base_mul(&R, rb);
	point_tobytes(sig, &R.X, &R.Y, &R.Z);
	/* S = (r + SHA-512(R || A || M) a) mod L */
	sha512_3(d, sig, 32, pub, 32, msg, len);
	sc_from64(x, d);
	sc_reduce(h, x);
	for (int i = 0; i < 4; i++)
		a[i] = load64_le(az + 8 * i);
	sc_muladd(s, h, a, r);
	sc_tobytes(sig + 32, s);
	explicit_bzero(az, sizeof(az));
	explicit_bzero(d, sizeof(d));
	explicit_bzero(rb, sizeof(rb));
	explicit_bzero(x, sizeof(x));
	explicit_bzero(r, sizeof(r));
	explicit_bzero(a, sizeof(a));
	explicit_bzero(&R, sizeof(R));
}
