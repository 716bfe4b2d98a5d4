// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ed25519-x8.c: eight Ed25519 verifications at once, one in each 64-bit
 * lane of AVX-512 vectors, the products by IFMA (VPMADD52LUQ/HUQ: the low
 * and high 52 bits of a 52 x 52-bit product, added to a 64-bit lane).
 * The verdicts are those of ksp_ed25519_verify_pub() (ed25519.h): the same
 * scalars (ksp_ed25519_scalars), the same point [S]B + [k](-A) computed
 * exactly in the group (complete formulas, torsion included), encoded and
 * compared with R as bytes.
 *
 * Lanes run in lockstep, so nothing depends on a lane's data but table
 * indices: fixed signed windows instead of NAF.  With S = S0 + 2^128 S1
 * and k = k0 + 2^128 k1:
 *   [S0]B + [S1]B' + [k0]A0 + [k1]A1,  B' = [2^128]B, A0 = -A,
 *   A1 = [2^128](-A) (both in the compact key),
 * over one chain of 128 doublings; 4-bit windows of k0, k1 (digits -8..8,
 * tables of [d]A0, [d]A1 made in the lanes, projective), 8-bit windows of
 * S0, S1 (digits -128..128, the static tables of ed25519-x8-table.h,
 * affine).  Lookups are gathers.
 *
 * Field elements: 5 limbs of 51 bits as in ed25519.c.  IFMA reads only the
 * low 52 bits of its factors, so every factor must have limbs below 2^52:
 * every result here is "carried" (limbs below 2^51 + 2^18): products are,
 * and so are sums and differences (one parallel carry step each).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lib/openpgp/ed25519-private.h"

#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 8)
#define HAVE_X8 1
#endif

#ifdef HAVE_X8
#include <immintrin.h>
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h> /* glibc >= 2.33 */
#define HAVE_X86_PLATFORM 1
#endif
#endif

#include "lib/openpgp/ed25519-x8-table.h"

#define X8 __attribute__((target("avx512f,avx512dq,avx512ifma")))
#define X8_INLINE static inline X8 __attribute__((always_inline))

/* loops over limbs must unroll, so that the limbs live in registers */
#if defined(__clang__)
#define UNROLL _Pragma("clang loop unroll(full)")
#else
#define UNROLL _Pragma("GCC unroll 25")
#endif

#define MASK51 ((UINT64_C(1) << 51) - 1)

/* shifts; the zero-masking forms, as GCC 12's plain ones read an
 * "undefined" vector that -Wuninitialized reports; so do the gathers */
#define SRL(z, n) _mm512_maskz_srli_epi64((__mmask8)0xff, (z), (n))
#define SLL(z, n) _mm512_maskz_slli_epi64((__mmask8)0xff, (z), (n))
#define GATHER(off, base) _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), (__mmask8)0xff, (off), (base), 1)

typedef struct {
	__m512i l[5];
} fe8;

struct p1x8 { /* completed: X = E F, Y = G H, Z = F G, T = E H */
	fe8 E, F, G, H;
};

struct p2x8 {
	fe8 X, Y, Z;
};

struct p3x8 {
	fe8 X, Y, Z, T;
};

struct cachedx8 { /* (Y + X, Y - X, 2Z, 2dT) */
	fe8 ypx, ymx, z2, t2d;
};

struct nielsx8 { /* affine (y + x, y - x, 2dxy) */
	fe8 ypx, ymx, xy2d;
};

/* [d]A0 or [d]A1 for d = -8..8 at [d + 8], in each lane its own */
struct atab {
	__m512i v[17][4][5]; /* [entry][ypx, ymx, z2, t2d][limb] */
};
#define ATAB_ENTRY ((int64_t)sizeof(__m512i) * 4 * 5)
#define BTAB_ENTRY ((int64_t)sizeof(uint64_t) * 15)

X8_INLINE __m512i bc(uint64_t v)
{
	return _mm512_set1_epi64((long long)v);
}

/* one parallel carry step: limbs below 2^64 in, below 2^51 + 2^18 out */
X8_INLINE void fe8_carry(fe8 *r, const __m512i z[5])
{
	const __m512i m = bc(MASK51);
	__m512i c[5];

	UNROLL for (int i = 0; i < 5; i++)
		c[i] = SRL(z[i], 51);
	r->l[0] = _mm512_add_epi64(_mm512_and_si512(z[0], m), _mm512_mullo_epi64(c[4], bc(19)));
	UNROLL for (int i = 1; i < 5; i++)
		r->l[i] = _mm512_add_epi64(_mm512_and_si512(z[i], m), c[i - 1]);
}

/*
 * a b: a_i b_j = lo + 2^52 hi, lo at weight 2^(51(i+j)), hi twice at
 * 2^(51(i+j+1)); columns 5..9 fold into 0..4 times 19 (2^255 = 19).
 * Factors below 2^51 + 2^18: each column below 15 * 2^52, the folded ones
 * below 2^60.
 */
X8_INLINE void fe8_mul(fe8 *r, const fe8 *a, const fe8 *b)
{
	__m512i lo[10], hi[10], z[5];

	UNROLL for (int k = 0; k < 10; k++)
		lo[k] = hi[k] = _mm512_setzero_si512();
	UNROLL for (int i = 0; i < 5; i++)
		UNROLL for (int j = 0; j < 5; j++) {
			lo[i + j] = _mm512_madd52lo_epu64(lo[i + j], a->l[i], b->l[j]);
			hi[i + j + 1] = _mm512_madd52hi_epu64(hi[i + j + 1], a->l[i], b->l[j]);
		}
	UNROLL for (int k = 0; k < 10; k++)
		lo[k] = _mm512_add_epi64(lo[k], SLL(hi[k], 1));
	UNROLL for (int k = 0; k < 5; k++)
		z[k] = _mm512_add_epi64(lo[k], _mm512_mullo_epi64(lo[k + 5], bc(19)));
	fe8_carry(r, z);
}

/* a^2: the products a_i a_j (i < j) once, doubled at the end */
X8_INLINE void fe8_sq(fe8 *r, const fe8 *a)
{
	__m512i lo[10], hi[10], xl[10], xh[10], z[5];

	UNROLL for (int k = 0; k < 10; k++)
		lo[k] = hi[k] = xl[k] = xh[k] = _mm512_setzero_si512();
	UNROLL for (int i = 0; i < 5; i++) {
		lo[2 * i] = _mm512_madd52lo_epu64(lo[2 * i], a->l[i], a->l[i]);
		hi[2 * i + 1] = _mm512_madd52hi_epu64(hi[2 * i + 1], a->l[i], a->l[i]);
		UNROLL for (int j = i + 1; j < 5; j++) {
			xl[i + j] = _mm512_madd52lo_epu64(xl[i + j], a->l[i], a->l[j]);
			xh[i + j + 1] = _mm512_madd52hi_epu64(xh[i + j + 1], a->l[i], a->l[j]);
		}
	}
	/* lo + 2 hi + 2 xl + 4 xh */
	UNROLL for (int k = 0; k < 10; k++)
		lo[k] = _mm512_add_epi64(lo[k], SLL(_mm512_add_epi64(_mm512_add_epi64(hi[k], xl[k]),
										 SLL(xh[k], 1)),
								    1));
	UNROLL for (int k = 0; k < 5; k++)
		z[k] = _mm512_add_epi64(lo[k], _mm512_mullo_epi64(lo[k + 5], bc(19)));
	fe8_carry(r, z);
}

X8_INLINE void fe8_add(fe8 *r, const fe8 *a, const fe8 *b)
{
	__m512i z[5];

	UNROLL for (int i = 0; i < 5; i++)
		z[i] = _mm512_add_epi64(a->l[i], b->l[i]);
	fe8_carry(r, z);
}

/* a + 2p - b: b's limbs (below 2^51 + 2^18) are below 2p's */
X8_INLINE void fe8_sub(fe8 *r, const fe8 *a, const fe8 *b)
{
	__m512i z[5];

	z[0] = _mm512_sub_epi64(_mm512_add_epi64(a->l[0], bc(2 * (MASK51 - 18))), b->l[0]);
	UNROLL for (int i = 1; i < 5; i++)
		z[i] = _mm512_sub_epi64(_mm512_add_epi64(a->l[i], bc(2 * MASK51)), b->l[i]);
	fe8_carry(r, z);
}

X8_INLINE void fe8_set(fe8 *r, uint64_t v)
{
	r->l[0] = bc(v);
	UNROLL for (int i = 1; i < 5; i++)
		r->l[i] = _mm512_setzero_si512();
}

/* lane i of limb j is f[i][j] */
X8_INLINE void fe8_from_lanes(fe8 *r, const uint64_t f[8][5])
{
	UNROLL for (int j = 0; j < 5; j++)
		r->l[j] = _mm512_set_epi64((long long)f[7][j], (long long)f[6][j], (long long)f[5][j], (long long)f[4][j],
					   (long long)f[3][j], (long long)f[2][j], (long long)f[1][j], (long long)f[0][j]);
}

X8_INLINE void fe8_to_lanes(uint64_t f[8][5], const fe8 *a)
{
	uint64_t t[8] __attribute__((aligned(64)));

	for (int j = 0; j < 5; j++) {
		_mm512_store_si512((void *)t, a->l[j]);
		for (int i = 0; i < 8; i++)
			f[i][j] = t[i];
	}
}

static X8 void fe8_sqn(fe8 *r, const fe8 *a, int n)
{
	fe8_sq(r, a);
	while (--n > 0)
		fe8_sq(r, r);
}

static X8 __attribute__((noinline)) void fe8_mul_ni(fe8 *r, const fe8 *a, const fe8 *b)
{
	fe8_mul(r, a, b);
}

/* *r = z^(2^250 - 1), *z11 = z^11 in each lane (ed25519.c's chain) */
static X8 void fe8_pow2250m1(fe8 *r, fe8 *z11, const fe8 *z)
{
	fe8 t0, t1, t2, t3;

	fe8_sq(&t0, z);              /* 2 */
	fe8_sqn(&t1, &t0, 2);        /* 8 */
	fe8_mul_ni(&t1, &t1, z);     /* 9 */
	fe8_mul_ni(z11, &t0, &t1);   /* 11 */
	fe8_sq(&t2, z11);            /* 22 */
	fe8_mul_ni(&t1, &t1, &t2);   /* 2^5 - 1 */
	fe8_sqn(&t2, &t1, 5);
	fe8_mul_ni(&t1, &t2, &t1);   /* 2^10 - 1 */
	fe8_sqn(&t2, &t1, 10);
	fe8_mul_ni(&t2, &t2, &t1);   /* 2^20 - 1 */
	fe8_sqn(&t3, &t2, 20);
	fe8_mul_ni(&t2, &t3, &t2);   /* 2^40 - 1 */
	fe8_sqn(&t2, &t2, 10);
	fe8_mul_ni(&t1, &t2, &t1);   /* 2^50 - 1 */
	fe8_sqn(&t2, &t1, 50);
	fe8_mul_ni(&t2, &t2, &t1);   /* 2^100 - 1 */
	fe8_sqn(&t3, &t2, 100);
	fe8_mul_ni(&t2, &t3, &t2);   /* 2^200 - 1 */
	fe8_sqn(&t2, &t2, 50);
	fe8_mul_ni(r, &t2, &t1);     /* 2^250 - 1 */
}

/* 1/z = z^(p - 2) */
static X8 void fe8_invert(fe8 *r, const fe8 *z)
{
	fe8 t, z11;

	fe8_pow2250m1(&t, &z11, z);
	fe8_sqn(&t, &t, 5);          /* 2^255 - 2^5 */
	fe8_mul_ni(r, &t, &z11);     /* 2^255 - 21 */
}

/* z^((p - 5) / 8) = z^(2^252 - 3) */
static X8 void fe8_pow22523(fe8 *r, const fe8 *z)
{
	fe8 t, z11;

	fe8_pow2250m1(&t, &z11, z);
	fe8_sqn(&t, &t, 2);          /* 2^252 - 4 */
	fe8_mul_ni(r, &t, z);
}

/* ---- group operations, as in ed25519.c ------------------------------------ */

static X8 __attribute__((noinline)) void p1_to_p2x8(struct p2x8 *r, const struct p1x8 *p)
{
	fe8_mul(&r->X, &p->E, &p->F);
	fe8_mul(&r->Y, &p->G, &p->H);
	fe8_mul(&r->Z, &p->F, &p->G);
}

static X8 __attribute__((noinline)) void p1_to_p3x8(struct p3x8 *r, const struct p1x8 *p)
{
	fe8_mul(&r->X, &p->E, &p->F);
	fe8_mul(&r->Y, &p->G, &p->H);
	fe8_mul(&r->Z, &p->F, &p->G);
	fe8_mul(&r->T, &p->E, &p->H);
}

/* dbl-2008-hwcd, a = -1, F and H negated (see ed25519.c) */
static X8 __attribute__((noinline)) void p2_dblx8(struct p1x8 *r, const struct p2x8 *p)
{
	fe8 a, b, c, t;

	fe8_sq(&a, &p->X);
	fe8_sq(&b, &p->Y);
	fe8_sq(&c, &p->Z);
	fe8_add(&c, &c, &c);
	fe8_add(&t, &p->X, &p->Y);
	fe8_sq(&t, &t);
	fe8_add(&r->H, &a, &b);
	fe8_sub(&r->E, &t, &r->H);
	fe8_sub(&r->G, &b, &a);
	fe8_add(&c, &c, &a);
	fe8_sub(&r->F, &c, &b);
}

/* P + Q, Q projective (add-2008-hwcd-3) */
static X8 __attribute__((noinline)) void p3_addx8(struct p1x8 *r, const struct p3x8 *p, const struct cachedx8 *q)
{
	fe8 a, b, c, d, t;

	fe8_sub(&t, &p->Y, &p->X);
	fe8_mul(&a, &t, &q->ymx);
	fe8_add(&t, &p->Y, &p->X);
	fe8_mul(&b, &t, &q->ypx);
	fe8_mul(&c, &p->T, &q->t2d);
	fe8_mul(&d, &p->Z, &q->z2);
	fe8_sub(&r->E, &b, &a);
	fe8_add(&r->H, &b, &a);
	fe8_sub(&r->F, &d, &c);
	fe8_add(&r->G, &d, &c);
}

/* P + Q, Q affine (madd-2008-hwcd-3) */
static X8 __attribute__((noinline)) void p3_maddx8(struct p1x8 *r, const struct p3x8 *p, const struct nielsx8 *q)
{
	fe8 a, b, c, d, t;

	fe8_sub(&t, &p->Y, &p->X);
	fe8_mul(&a, &t, &q->ymx);
	fe8_add(&t, &p->Y, &p->X);
	fe8_mul(&b, &t, &q->ypx);
	fe8_mul(&c, &p->T, &q->xy2d);
	fe8_add(&d, &p->Z, &p->Z);
	fe8_sub(&r->E, &b, &a);
	fe8_add(&r->H, &b, &a);
	fe8_sub(&r->F, &d, &c);
	fe8_add(&r->G, &d, &c);
}

static X8 void p3_to_cachedx8(struct cachedx8 *r, const struct p3x8 *p)
{
	fe8 d2;

	UNROLL for (int i = 0; i < 5; i++)
		d2.l[i] = bc(X8_2D[i]);
	fe8_add(&r->ypx, &p->Y, &p->X);
	fe8_sub(&r->ymx, &p->Y, &p->X);
	fe8_add(&r->z2, &p->Z, &p->Z);
	fe8_mul(&r->t2d, &p->T, &d2);
}

static X8 void p3_dblx8(struct p3x8 *r, const struct p3x8 *p)
{
	struct p2x8 q = { p->X, p->Y, p->Z };
	struct p1x8 t;

	p2_dblx8(&t, &q);
	p1_to_p3x8(r, &t);
}

static X8 void p3_plusx8(struct p3x8 *r, const struct p3x8 *p, const struct cachedx8 *q)
{
	struct p1x8 t;

	p3_addx8(&t, p, q);
	p1_to_p3x8(r, &t);
}

static X8 void atab_put(struct atab *t, int e, const struct cachedx8 *c)
{
	const fe8 *f[4] = { &c->ypx, &c->ymx, &c->z2, &c->t2d };

	for (int k = 0; k < 4; k++)
		for (int i = 0; i < 5; i++)
			t->v[e][k][i] = f[k]->l[i];
}

/* t = [d]P for d = -8..8, P = (x, y) affine in each lane */
static X8 void atab_make(struct atab *t, const fe8 *x, const fe8 *y)
{
	struct p3x8 m[9];
	struct cachedx8 c[9], neg;
	fe8 zero;

	m[1].X = *x;
	m[1].Y = *y;
	fe8_set(&m[1].Z, 1);
	fe8_mul(&m[1].T, x, y);
	p3_to_cachedx8(&c[1], &m[1]);
	for (int k = 2; k <= 8; k++) {
		if (k % 2 == 0)
			p3_dblx8(&m[k], &m[k / 2]);
		else
			p3_plusx8(&m[k], &m[k - 1], &c[1]);
		p3_to_cachedx8(&c[k], &m[k]);
	}
	/* the identity (1, 1, 2, 0) */
	fe8_set(&c[0].ypx, 1);
	fe8_set(&c[0].ymx, 1);
	fe8_set(&c[0].z2, 2);
	fe8_set(&c[0].t2d, 0);
	atab_put(t, 8, &c[0]);
	fe8_set(&zero, 0);
	for (int k = 1; k <= 8; k++) {
		atab_put(t, 8 + k, &c[k]);
		/* -P = (Y - X, Y + X, 2Z, -2dT) */
		neg.ypx = c[k].ymx;
		neg.ymx = c[k].ypx;
		neg.z2 = c[k].z2;
		fe8_sub(&neg.t2d, &zero, &c[k].t2d);
		atab_put(t, 8 - k, &neg);
	}
}

/* lane i reads entry off[i] / ATAB_ENTRY of its own column (off includes 8 i) */
X8_INLINE void atab_get(struct cachedx8 *c, const struct atab *t, __m512i off)
{
	fe8 *f[4] = { &c->ypx, &c->ymx, &c->z2, &c->t2d };

	UNROLL for (int k = 0; k < 4; k++)
		UNROLL for (int i = 0; i < 5; i++)
			f[k]->l[i] = GATHER(off, (const void *)&t->v[0][k][i]);
}

/* lane i reads X8_BASE[j][off[i] / BTAB_ENTRY] */
X8_INLINE void btab_get(struct nielsx8 *n, int j, __m512i off)
{
	fe8 *f[3] = { &n->ypx, &n->ymx, &n->xy2d };

	UNROLL for (int k = 0; k < 3; k++)
		UNROLL for (int i = 0; i < 5; i++)
			f[k]->l[i] = GATHER(off, (const void *)&X8_BASE[j][0][5 * k + i]);
}

/* signed 4-bit windows of a 128-bit x: x = sum d[i] 16^i, -8 <= d[i] < 8,
 * d[32] in {0, 1} */
static void recode4(int d[33], const uint64_t x[2])
{
	int carry = 0;

	for (int i = 0; i < 32; i++) {
		int v = (int)((x[i / 16] >> (4 * (i % 16))) & 15) + carry;

		carry = v >= 8;
		d[i] = v - (carry << 4);
	}
	d[32] = carry;
}

/* signed 8-bit windows: x = sum d[i] 256^i, -128 <= d[i] < 128, d[16] in {0, 1} */
static void recode8(int d[17], const uint64_t x[2])
{
	int carry = 0;

	for (int i = 0; i < 16; i++) {
		int v = (int)((x[i / 8] >> (8 * (i % 8))) & 255) + carry;

		carry = v >= 128;
		d[i] = v - (carry << 8);
	}
	d[16] = carry;
}

/* From the C library's record of CPUID (usable: the system saves the
 * AVX-512 state), else libgcc's; both made at start-up. */
bool ksp_ed25519_x8_usable(void)
{
#ifdef HAVE_X86_PLATFORM
	return CPU_FEATURE_ACTIVE(AVX512F) && CPU_FEATURE_ACTIVE(AVX512DQ) && CPU_FEATURE_ACTIVE(AVX512_IFMA);
#else
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
	       __builtin_cpu_supports("avx512ifma");
#endif
}

X8 void ksp_ed25519_verify_x8(const struct ksp_ed25519_pub *const pub[8], const uint8_t *const msg[8],
			      const size_t len[8], const uint8_t *const sig[8], int res[8])
{
	struct atab tab[2];
	int64_t offa[2][33][8] __attribute__((aligned(64)));
	int64_t offb[2][17][8] __attribute__((aligned(64)));
	uint64_t lx[8][5], ly[8][5];
	struct p1x8 acc;
	struct p2x8 q;
	struct p3x8 u;
	struct cachedx8 c;
	struct nielsx8 n;
	fe8 x, y, zi;

	/* the scalars, as table offsets per lane */
	for (int i = 0; i < 8; i++) {
		uint64_t sr[4], hr[4];
		int da[33], db[17];

		ksp_ed25519_scalars(pub[i]->enc, msg[i], len[i], sig[i], sr, hr);
		for (int j = 0; j < 2; j++) {
			recode4(da, hr + 2 * j);
			for (int w = 0; w < 33; w++)
				offa[j][w][i] = (da[w] + 8) * ATAB_ENTRY + 8 * i;
			recode8(db, sr + 2 * j);
			for (int w = 0; w < 17; w++)
				offb[j][w][i] = (db[w] + 128) * BTAB_ENTRY;
		}
	}
	/* the tables of A0 = -A and A1 = [2^128](-A) */
	for (int i = 0; i < 8; i++) {
		ksp_ed25519_fe_load(lx[i], pub[i]->x0);
		ksp_ed25519_fe_load(ly[i], pub[i]->enc);
	}
	fe8_from_lanes(&x, lx);
	fe8_from_lanes(&y, ly);
	atab_make(&tab[0], &x, &y);
	for (int i = 0; i < 8; i++) {
		ksp_ed25519_fe_load(lx[i], pub[i]->x1);
		ksp_ed25519_fe_load(ly[i], pub[i]->y1);
	}
	fe8_from_lanes(&x, lx);
	fe8_from_lanes(&y, ly);
	atab_make(&tab[1], &x, &y);

	/* from the top window down: the identity is (E, F, G, H) = (0, 1, 1, 1) */
	fe8_set(&acc.E, 0);
	fe8_set(&acc.F, 1);
	fe8_set(&acc.G, 1);
	fe8_set(&acc.H, 1);
	for (int w = 32; w >= 0; w--) {
		if (w < 32)
			for (int k = 0; k < 4; k++) {
				p1_to_p2x8(&q, &acc);
				p2_dblx8(&acc, &q);
			}
		for (int j = 0; j < 2; j++) {
			p1_to_p3x8(&u, &acc);
			atab_get(&c, &tab[j], _mm512_load_si512((const void *)offa[j][w]));
			p3_addx8(&acc, &u, &c);
		}
		if (w % 2 == 0)
			for (int j = 0; j < 2; j++) {
				p1_to_p3x8(&u, &acc);
				btab_get(&n, j, _mm512_load_si512((const void *)offb[j][w / 2]));
				p3_maddx8(&acc, &u, &n);
			}
	}
	p1_to_p2x8(&q, &acc);
	fe8_invert(&zi, &q.Z);
	fe8_mul(&x, &q.X, &zi);
	fe8_mul(&y, &q.Y, &zi);
	fe8_to_lanes(lx, &x);
	fe8_to_lanes(ly, &y);
	for (int i = 0; i < 8; i++) {
		uint8_t enc[32];

		ksp_ed25519_encode_xy(enc, lx[i], ly[i]);
		res[i] = memcmp(enc, sig[i], 32) == 0;
	}
}

/*
 * ksp_ed25519_pub_init() in lanes: the square root of the decoding, the 128
 * doublings of -A and the inversion are done eight at a time, the checks
 * and the choice of root one lane at a time (ed25519.c's decode_y and
 * decode_x).  A lane whose key is refused computes on with what it has
 * (arithmetic only: no value makes it fail) and its result is dropped.
 */
X8 void ksp_ed25519_pub_init_x8(struct ksp_ed25519_pub *const p[8], const uint8_t *const pub[8], int res[8])
{
	uint64_t ly[8][5], lx[8][5], lu[8][5], lv[8][5];
	struct p2x8 q;
	struct p1x8 t;
	fe8 y, u, v, v3, w, x, d, one, zi;

	for (int i = 0; i < 8; i++) {
		memset(p[i], 0, sizeof(*p[i]));
		res[i] = ksp_ed25519_decode_y(pub[i], ly[i]);
	}
	fe8_from_lanes(&y, ly);
	fe8_set(&one, 1);
	UNROLL for (int i = 0; i < 5; i++)
		d.l[i] = bc(X8_D[i]);
	/* u = y^2 - 1, v = d y^2 + 1, x = u v^3 (u v^7)^((p-5)/8), v x^2 */
	fe8_sq(&u, &y);
	fe8_mul(&v, &u, &d);
	fe8_sub(&u, &u, &one);
	fe8_add(&v, &v, &one);
	fe8_sq(&v3, &v);
	fe8_mul(&v3, &v3, &v);
	fe8_sq(&w, &v3);
	fe8_mul(&w, &w, &v);
	fe8_mul(&w, &w, &u);
	fe8_pow22523(&w, &w);
	fe8_mul(&w, &w, &v3);
	fe8_mul(&x, &w, &u);
	fe8_sq(&w, &x);
	fe8_mul(&w, &w, &v);
	fe8_to_lanes(lx, &x);
	fe8_to_lanes(lu, &u);
	fe8_to_lanes(lv, &w);
	for (int i = 0; i < 8; i++)
		if (res[i] == 0)
			res[i] = ksp_ed25519_decode_x(pub[i], lx[i], lu[i], lv[i]);
	/* -A = (-x, y, 1), then [2^128](-A) */
	fe8_from_lanes(&x, lx);
	fe8_set(&w, 0);
	fe8_sub(&q.X, &w, &x);
	q.Y = y;
	q.Z = one;
	fe8_to_lanes(lx, &q.X);
	for (int k = 0; k < 128; k++) {
		p2_dblx8(&t, &q);
		p1_to_p2x8(&q, &t);
	}
	fe8_invert(&zi, &q.Z);
	fe8_mul(&x, &q.X, &zi);
	fe8_mul(&y, &q.Y, &zi);
	fe8_to_lanes(lu, &x);
	fe8_to_lanes(lv, &y);
	for (int i = 0; i < 8; i++) {
		if (res[i] < 0)
			continue;
		memcpy(p[i]->enc, pub[i], 32);
		ksp_ed25519_fe_store(p[i]->x0, lx[i]);
		ksp_ed25519_fe_store(p[i]->x1, lu[i]);
		ksp_ed25519_fe_store(p[i]->y1, lv[i]);
	}
}

#else /* !HAVE_X8 */

bool ksp_ed25519_x8_usable(void)
{
	return false;
}

void ksp_ed25519_verify_x8(const struct ksp_ed25519_pub *const pub[8], const uint8_t *const msg[8],
			   const size_t len[8], const uint8_t *const sig[8], int res[8])
{
	for (int i = 0; i < 8; i++)
		res[i] = ksp_ed25519_verify_pub(pub[i], msg[i], len[i], sig[i]);
}

void ksp_ed25519_pub_init_x8(struct ksp_ed25519_pub *const p[8], const uint8_t *const pub[8], int res[8])
{
	for (int i = 0; i < 8; i++)
		res[i] = ksp_ed25519_pub_init(p[i], pub[i]);
}

#endif
