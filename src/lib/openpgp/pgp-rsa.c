// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pgp-rsa.c: RSA signature verification, s^e mod n for small public
 * exponents, faster than libgcrypt's generic modular exponentiation.
 *
 * The exponentiation is left-to-right square-and-multiply in the
 * Montgomery domain: a = MM(s, R^2) = sR, then squarings and
 * multiplications by a, and since e is odd the last step multiplies by s
 * itself, which leaves the domain: MM(s^(e-1) R, s) = s^e.
 *
 * Portable: 64-bit limbs, R = 2^(64N), product scanning ("FIPS"
 * Montgomery multiplication, Koc, Acar and Kaliski 1996) with a
 * dedicated squaring; inputs and outputs fully reduced (< n).
 *
 * IFMA (x86-64 with AVX-512 IFMA, chosen at run time): 52-bit digits,
 * eight to a 512-bit vector, k = 8V digits with 52k >= bits(n) + 2 and
 * R = 2^(52k); "almost Montgomery multiplication" (Gueron and Krasnov):
 * inputs < 2n give outputs < 2n with no final subtraction, the digits of
 * the accumulator carry lazily in 64-bit lanes and are normalised once
 * per multiplication.  VPMADD52LUQ/HUQ give the low and high 52 bits of
 * the eight 104-bit products, so the high halves go to the next digit:
 * they are added after the accumulator moves down one digit.
 *
 * R^2 mod n is computed once per key by long division (IFMA: of a smaller
 * power of two, then squared twice).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gcrypt.h>

#include "lib/openpgp/pgp-rsa.h"
#include "shared/macro.h"

#define MAX_BITS 8192
#define MAX_LIMBS (MAX_BITS / 64)
#define MAX_BYTES (MAX_BITS / 8)
/* 52-bit digits: 8 * ceil((8192 + 2) / 416) */
#define MAX_VEC 20
#define MAX_DIGITS (8 * MAX_VEC)
#define MASK52 ((UINT64_C(1) << 52) - 1)

/* loops over vectors must unroll, so that the accumulators live in registers */
#if defined(__clang__)
#define UNROLL_FULL _Pragma("clang loop unroll(full)")
#define UNROLL_4 _Pragma("clang loop unroll_count(4) vectorize(disable) interleave(disable)")
#else
#define UNROLL_FULL _Pragma("GCC unroll 20")
#define UNROLL_4 _Pragma("GCC unroll 4")
#endif

#if defined(__SIZEOF_INT128__)
#define HAVE_INT128 1
typedef unsigned __int128 u128;
#endif

#if defined(HAVE_INT128) && defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 8)
#define HAVE_IFMA 1
#include <immintrin.h>
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h> /* glibc >= 2.33 */
#define HAVE_X86_PLATFORM 1
#endif
#endif
#if defined(__clang__)
#define IFMA_TARGET __attribute__((target("avx512f,avx512ifma")))
#else
/* unrolled, the squarings are too big for -O1 -g's variable tracking
 * (which says so, in every sanitizer build) */
#define IFMA_TARGET __attribute__((target("avx512f,avx512ifma"), optimize("no-var-tracking-assignments")))
#endif
#endif

struct ksp_rsa_key {
	int impl;
	unsigned nlimbs;  /* 64-bit limbs of n */
	unsigned nbytes;  /* octets of n */
	unsigned nvec;    /* IFMA: 512-bit vectors, 8 digits each */
	uint64_t e;
	uint64_t n0;      /* -n^-1 mod 2^64 (IFMA: mod 2^52) */
	uint64_t *n;      /* nlimbs */
	uint64_t *rr;     /* portable: R^2 mod n, nlimbs */
	uint64_t *n52;    /* IFMA: n in 8 * nvec digits, 64-byte aligned */
	uint64_t *rr52;   /* IFMA: R^2 mod n in digits */
};

/* ---- limbs and octets ------------------------------------------------- */

/* r[0 .. nl) = the big-endian b[0 .. len), len <= 8 nl. */
static void bytes_to_limbs(uint64_t *r, size_t nl, const uint8_t *b, size_t len)
{
	size_t i = 0;

	for (; 8 * i + 8 <= len; i++) {
		const uint8_t *p = b + len - 8 * i - 8;

		r[i] = (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 | (uint64_t)p[3] << 32 |
		       (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 | (uint64_t)p[6] << 8 | p[7];
	}
	if (i < nl) {
		uint64_t v = 0;

		for (size_t j = 0; j < len - 8 * i; j++)
			v = v << 8 | b[j];
		r[i++] = v;
	}
	for (; i < nl; i++)
		r[i] = 0;
}

static void limbs_to_bytes(uint8_t *out, size_t len, const uint64_t *a)
{
	for (size_t i = 0; i < len; i++)
		out[len - 1 - i] = (uint8_t)(a[i / 8] >> (8 * (i % 8)));
}

/* -1, 0, 1 */
static int cmp_limbs(const uint64_t *a, const uint64_t *b, size_t nl)
{
	for (size_t i = nl; i-- > 0;)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* r = a - b, returns the borrow */
static uint64_t sub_limbs(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t nl)
{
	uint64_t borrow = 0;

	for (size_t i = 0; i < nl; i++) {
		uint64_t d = a[i] - b[i];
		uint64_t b1 = a[i] < b[i];

		r[i] = d - borrow;
		borrow = b1 | (d < borrow);
	}
	return borrow;
}

/* ---- portable: 64-bit limbs ------------------------------------------- */

#ifdef HAVE_INT128

/* The column accumulator of product scanning: (hi : acc), 192 bits. */
#define MAC(x, y)                                               \
	do {                                                    \
		u128 p_ = (u128)(x) * (y);                      \
		acc += p_;                                      \
		hi += acc < p_;                                 \
	} while (0)
#define SHIFT_ACC()                                             \
	do {                                                    \
		acc = (acc >> 64) | ((u128)hi << 64);           \
		hi = 0;                                         \
	} while (0)

/*
 * r[0 .. N) = 2^t mod n (n[N-1] != 0, t < 64 (POW2_LIMBS - 2)): long
 * division of 2^t by n, Knuth's algorithm D (TAOCP 4.3.1), keeping only
 * the remainder.  Once per key.
 */
#define POW2_LIMBS (2 * MAX_DIGITS * 52 / 64 + 4)
static void pow2_mod(uint64_t *r, const uint64_t *n, size_t N, unsigned t)
{
	uint64_t v[MAX_LIMBS], u[POW2_LIMBS];
	unsigned sh = (unsigned)__builtin_clzll(n[N - 1]);
	size_t ul, top;

	/* v = n << sh (top bit set), u = 2^(t + sh) with a zero limb on top */
	for (size_t i = N; i-- > 0;)
		v[i] = n[i] << sh | (sh && i ? n[i - 1] >> (64 - sh) : 0);
	top = (t + sh) / 64;
	ul = top + 2 > N + 1 ? top + 2 : N + 1;
	memset(u, 0, ul * sizeof(*u));
	u[top] = UINT64_C(1) << ((t + sh) % 64);
	for (size_t j = ul - N; j-- > 0;) {
		u128 num = (u128)u[j + N] << 64 | u[j + N - 1];
		u128 qhat = num / v[N - 1], rhat = num - qhat * v[N - 1];
		uint64_t q, carry = 0, borrow;

		while (qhat >> 64 || (N > 1 && qhat * v[N - 2] > (rhat << 64 | u[j + N - 2]))) {
			qhat--;
			rhat += v[N - 1];
			if (rhat >> 64)
				break;
		}
		q = (uint64_t)qhat;
		/* u[j .. j+N] -= q v */
		for (size_t i = 0; i < N; i++) {
			u128 p = (u128)q * v[i] + carry;
			uint64_t lo = (uint64_t)p;

			carry = (uint64_t)(p >> 64) + (u[i + j] < lo);
			u[i + j] -= lo;
		}
		borrow = u[j + N] < carry;
		u[j + N] -= carry;
		if (borrow) { /* q was one too large: add v back */
			uint64_t c = 0;

			for (size_t i = 0; i < N; i++) {
				u128 x = (u128)u[i + j] + v[i] + c;

				u[i + j] = (uint64_t)x;
				c = (uint64_t)(x >> 64);
			}
			u[j + N] += c;
		}
	}
	/* the remainder is u[0 .. N) >> sh */
	for (size_t i = 0; i < N; i++)
		r[i] = u[i] >> sh | (sh && i + 1 < N ? u[i + 1] << (64 - sh) : 0);
}

/* r = t - n if t (N limbs + top) >= n, else t */
static void final_sub(uint64_t *r, const uint64_t *t, uint64_t top, const uint64_t *n, size_t N)
{
	if (top || cmp_limbs(t, n, N) >= 0)
		sub_limbs(r, t, n, N);
	else if (r != t)
		memcpy(r, t, N * sizeof(*r));
}

/* r = a b R^-1 mod n for a, b < n; r < n; r may be a or b. */
static void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *n, uint64_t n0,
		     size_t N)
{
	uint64_t m[MAX_LIMBS], t[MAX_LIMBS];
	u128 acc = 0;
	uint64_t hi = 0;
	size_t i, j;

	for (i = 0; i < N; i++) {
UNROLL_4
		for (j = 0; j < i; j++) {
			MAC(a[j], b[i - j]);
			MAC(m[j], n[i - j]);
		}
		MAC(a[i], b[0]);
		m[i] = (uint64_t)acc * n0;
		MAC(m[i], n[0]);
		SHIFT_ACC();
	}
	for (i = N; i < 2 * N; i++) {
UNROLL_4
		for (j = i - N + 1; j < N; j++) {
			MAC(a[j], b[i - j]);
			MAC(m[j], n[i - j]);
		}
		t[i - N] = (uint64_t)acc;
		SHIFT_ACC();
	}
	final_sub(r, t, (uint64_t)acc, n, N);
}

/* r = a^2 R^-1 mod n for a < n; r may be a. */
static void mont_sqr(uint64_t *r, const uint64_t *a, const uint64_t *n, uint64_t n0, size_t N)
{
	uint64_t m[MAX_LIMBS], t[MAX_LIMBS];
	u128 acc = 0;
	uint64_t hi = 0;
	size_t i, j;

	for (i = 0; i < 2 * N; i++) {
		size_t lo = i < N ? 0 : i - N + 1;
		u128 d = 0;
		uint64_t dh = 0;

		/* the products a[j] a[i-j], j < i-j, twice */
UNROLL_4
		for (j = lo; j < i - j; j++) {
			u128 p = (u128)a[j] * a[i - j];

			d += p;
			dh += d < p;
		}
		dh = dh << 1 | (uint64_t)(d >> 127);
		d <<= 1;
		acc += d;
		hi += dh + (acc < d);
		if (i % 2 == 0 && i / 2 < N)
			MAC(a[i / 2], a[i / 2]);
		if (i < N) {
UNROLL_4
			for (j = 0; j < i; j++)
				MAC(m[j], n[i - j]);
			m[i] = (uint64_t)acc * n0;
			MAC(m[i], n[0]);
		} else {
UNROLL_4
			for (j = lo; j < N; j++)
				MAC(m[j], n[i - j]);
			t[i - N] = (uint64_t)acc;
		}
		SHIFT_ACC();
	}
	final_sub(r, t, (uint64_t)acc, n, N);
}

/* r = s^e mod n, s < n */
static void public_portable(const struct ksp_rsa_key *k, const uint64_t *s, uint64_t *r)
{
	uint64_t a[MAX_LIMBS], x[MAX_LIMBS];
	size_t N = k->nlimbs;
	int top = 63 - __builtin_clzll(k->e);

	mont_mul(a, s, k->rr, k->n, k->n0, N);
	memcpy(x, a, N * sizeof(*x));
	for (int b = top - 1; b >= 1; b--) {
		mont_sqr(x, x, k->n, k->n0, N);
		if (k->e >> b & 1)
			mont_mul(x, x, a, k->n, k->n0, N);
	}
	mont_sqr(x, x, k->n, k->n0, N);
	mont_mul(r, x, s, k->n, k->n0, N);
}

#endif /* HAVE_INT128 */

/* ---- IFMA: 52-bit digits in AVX-512 vectors ---------------------------- */

/* d[0 .. nd) = the 52-bit digits of a[0 .. nl) */
static void limbs_to_digits(uint64_t *d, size_t nd, const uint64_t *a, size_t nl)
{
	for (size_t i = 0; i < nd; i++) {
		size_t bit = 52 * i, w = bit / 64, sh = bit % 64;
		uint64_t v = 0;

		if (w < nl) {
			v = a[w] >> sh;
			if (sh > 12 && w + 1 < nl)
				v |= a[w + 1] << (64 - sh);
		}
		d[i] = v & MASK52;
	}
}

/* a[0 .. nl) = normalised digits d[0 .. nd), truncated to nl limbs */
static void digits_to_limbs(uint64_t *a, size_t nl, const uint64_t *d, size_t nd)
{
	memset(a, 0, nl * sizeof(*a));
	for (size_t i = 0; i < nd; i++) {
		size_t bit = 52 * i, w = bit / 64, sh = bit % 64;

		if (w < nl)
			a[w] |= d[i] << sh;
		if (sh > 12 && w + 1 < nl)
			a[w + 1] |= d[i] >> (64 - sh);
	}
}

#ifdef HAVE_IFMA

/* From the C library's or libgcc's record of CPUID, made at start-up: in a
 * virtual machine CPUID itself costs tens of microseconds. */
static bool cpu_has_ifma(void)
{
#ifdef HAVE_X86_PLATFORM
	return CPU_FEATURE_ACTIVE(AVX512F) && CPU_FEATURE_ACTIVE(AVX512_IFMA);
#else
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
#endif
}

typedef void amm_fn(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, uint64_t k0);

/*
 * r = the digits of x[0 .. V) + carry (in lane 0), normalised to 52 bits,
 * the value being < 2^(52 k); lanes < 2^63.  One round of shifts leaves
 * lanes < 2^52 + 2^11, so that a lane then carries at most one, into the
 * next lane, which passes it on when all ones: with G the lanes that
 * carry and P those all ones (bit j for lane j), the lanes that receive
 * one are the bits of ((G << 1) + P) ^ P.
 */
static inline __attribute__((always_inline)) IFMA_TARGET void
normalise52(uint64_t *r, __m512i *x, uint64_t carry, const size_t V)
{
	const __m512i mask = _mm512_set1_epi64((long long)MASK52), one = _mm512_set1_epi64(1);
	__m512i hi[MAX_VEC];
	uint64_t g[3] = { 0, 0, 0 }, p[3] = { 0, 0, 0 }, c = 0, gprev = 0;

	x[0] = _mm512_mask_add_epi64(x[0], 1, x[0], _mm512_set1_epi64((long long)carry));
UNROLL_FULL
	for (size_t v = 0; v < V; v++) {
		hi[v] = _mm512_maskz_srli_epi64(0xff, x[v], 52);
		x[v] = _mm512_and_si512(x[v], mask);
	}
UNROLL_FULL
	for (size_t v = 0; v < V; v++) {
		const __m512i below = v ? hi[v - 1] : _mm512_setzero_si512();

		x[v] = _mm512_add_epi64(x[v], _mm512_maskz_alignr_epi64(0xff, hi[v], below, 7));
		g[v / 8] |= (uint64_t)_mm512_cmpgt_epu64_mask(x[v], mask) << (8 * (v % 8));
		p[v / 8] |= (uint64_t)_mm512_cmpeq_epu64_mask(x[v], mask) << (8 * (v % 8));
	}
	/* p + (g << 1), 64 lanes a word; the carry out of the top is 0 */
	for (size_t w = 0; w < (V + 7) / 8; w++) {
		u128 sum = (u128)p[w] + (g[w] << 1 | gprev >> 63) + c;

		gprev = g[w];
		c = (uint64_t)(sum >> 64);
		g[w] = (uint64_t)sum ^ p[w]; /* now: the lanes that receive one */
	}
UNROLL_FULL
	for (size_t v = 0; v < V; v++) {
		__mmask8 in = (__mmask8)(g[v / 8] >> (8 * (v % 8)));

		x[v] = _mm512_and_si512(_mm512_mask_add_epi64(x[v], in, x[v], one), mask);
		_mm512_store_si512((void *)(r + 8 * v), x[v]);
	}
}

/*
 * r = a b 2^(-52 k) mod m, k = 8V digits, all arrays 64-byte aligned;
 * a, b < 2m with normalised digits; r < 2m, normalised.
 */
static inline __attribute__((always_inline)) IFMA_TARGET void
amm52(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, uint64_t k0, const size_t V)
{
	__m512i acc[MAX_VEC], A[MAX_VEC];
	const __m512i zero = _mm512_setzero_si512();
	uint64_t carry = 0;
	const uint64_t m0 = m[0];

UNROLL_FULL
	for (size_t v = 0; v < V; v++) {
		acc[v] = zero;
		A[v] = _mm512_load_si512((const void *)(a + 8 * v));
	}
	for (size_t i = 0; i < 8 * V; i++) {
		const __m512i bi = _mm512_set1_epi64((long long)b[i]);
		__m512i yi;
		uint64_t r0, y;

UNROLL_FULL
		for (size_t v = 0; v < V; v++)
			acc[v] = _mm512_madd52lo_epu64(acc[v], bi, A[v]);
		r0 = (uint64_t)acc[0][0] + carry;
		y = (r0 * k0) & MASK52;
		yi = _mm512_set1_epi64((long long)y);
		carry = (r0 + ((y * m0) & MASK52)) >> 52;
UNROLL_FULL
		for (size_t v = 0; v < V; v++)
			acc[v] = _mm512_madd52lo_epu64(acc[v], yi, _mm512_load_si512((const void *)(m + 8 * v)));
		/* one digit down: lane 0 is now zero mod 2^52, its carry is in carry */
UNROLL_FULL
		for (size_t v = 0; v + 1 < V; v++)
			acc[v] = _mm512_maskz_alignr_epi64(0xff, acc[v + 1], acc[v], 1);
		acc[V - 1] = _mm512_maskz_alignr_epi64(0x7f, zero, acc[V - 1], 1);
UNROLL_FULL
		for (size_t v = 0; v < V; v++) {
			acc[v] = _mm512_madd52hi_epu64(acc[v], bi, A[v]);
			acc[v] = _mm512_madd52hi_epu64(acc[v], yi, _mm512_load_si512((const void *)(m + 8 * v)));
		}
	}
	/* lanes hold < 2^62, the value is < 2m < 2^(52k) */
	normalise52(r, acc, carry, V);
}

/*
 * r = a^2 2^(-52 k) mod m, as amm52(r, a, a, m, k0) but each product
 * a_i a_j, i < j, once, into dbl (counted twice at the end): in iteration
 * i only the vectors from lane i up multiply, about a quarter fewer
 * multiplications.  The diagonal a_i^2 goes into acc.
 */
static inline __attribute__((always_inline)) IFMA_TARGET void
ams52(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t k0, const size_t V)
{
	__m512i acc[MAX_VEC], dbl[MAX_VEC];
	const __m512i zero = _mm512_setzero_si512();
	uint64_t carry = 0;
	const uint64_t m0 = m[0];

UNROLL_FULL
	for (size_t v = 0; v < V; v++) {
		acc[v] = zero;
		dbl[v] = zero;
	}
	/* unrolled, so that which vectors multiply is known at compile time */
UNROLL_FULL
	for (size_t p = 0; p < V; p++) {
		for (unsigned l = 0; l < 8; l++) {
			const size_t i = 8 * p + l;
			const __m512i ai = _mm512_set1_epi64((long long)a[i]);
			const __mmask8 above = (__mmask8)(0xfe << l), self = (__mmask8)(1 << l);
			__m512i yi;
			uint64_t r0, y;

UNROLL_FULL
			for (size_t v = 0; v < V; v++) {
				const __m512i av = _mm512_load_si512((const void *)(a + 8 * v));

				if (v == p) {
					dbl[v] = _mm512_mask_madd52lo_epu64(dbl[v], above, ai, av);
					acc[v] = _mm512_mask_madd52lo_epu64(acc[v], self, ai, av);
				} else if (v > p) {
					dbl[v] = _mm512_madd52lo_epu64(dbl[v], ai, av);
				}
			}
			r0 = (uint64_t)acc[0][0] + 2 * (uint64_t)dbl[0][0] + carry;
			y = (r0 * k0) & MASK52;
			yi = _mm512_set1_epi64((long long)y);
			carry = (r0 + ((y * m0) & MASK52)) >> 52;
UNROLL_FULL
			for (size_t v = 0; v < V; v++)
				acc[v] = _mm512_madd52lo_epu64(acc[v], yi, _mm512_load_si512((const void *)(m + 8 * v)));
UNROLL_FULL
			for (size_t v = 0; v + 1 < V; v++) {
				acc[v] = _mm512_maskz_alignr_epi64(0xff, acc[v + 1], acc[v], 1);
				dbl[v] = _mm512_maskz_alignr_epi64(0xff, dbl[v + 1], dbl[v], 1);
			}
			acc[V - 1] = _mm512_maskz_alignr_epi64(0x7f, zero, acc[V - 1], 1);
			dbl[V - 1] = _mm512_maskz_alignr_epi64(0x7f, zero, dbl[V - 1], 1);
UNROLL_FULL
			for (size_t v = 0; v < V; v++) {
				const __m512i av = _mm512_load_si512((const void *)(a + 8 * v));

				if (v == p) {
					dbl[v] = _mm512_mask_madd52hi_epu64(dbl[v], above, ai, av);
					acc[v] = _mm512_mask_madd52hi_epu64(acc[v], self, ai, av);
				} else if (v > p) {
					dbl[v] = _mm512_madd52hi_epu64(dbl[v], ai, av);
				}
				acc[v] = _mm512_madd52hi_epu64(acc[v], yi, _mm512_load_si512((const void *)(m + 8 * v)));
			}
		}
	}
UNROLL_FULL
	for (size_t v = 0; v < V; v++)
		acc[v] = _mm512_add_epi64(acc[v], _mm512_add_epi64(dbl[v], dbl[v]));
	normalise52(r, acc, carry, V);
}

#define AMM_INST(V)                                                                                 \
	static IFMA_TARGET void amm52_##V(uint64_t *r, const uint64_t *a, const uint64_t *b,        \
					  const uint64_t *m, uint64_t k0)                           \
	{                                                                                           \
		amm52(r, a, b, m, k0, V);                                                           \
	}
/* the squaring unrolled: up to 4158-bit n (beyond, 2V accumulators do not
 * fit in the 32 registers and the code grows as V^2) */
#define AMS_INST(V)                                                                                 \
	AMM_INST(V)                                                                                 \
	static IFMA_TARGET void ams52_##V(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t k0) \
	{                                                                                           \
		ams52(r, a, m, k0, V);                                                              \
	}
#define AMS_GENERIC(V)                                                                              \
	AMM_INST(V)                                                                                 \
	static void ams52_##V(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t k0)       \
	{                                                                                           \
		amm52_##V(r, a, a, m, k0);                                                          \
	}
AMS_INST(1) AMS_INST(2) AMS_INST(3) AMS_INST(4) AMS_INST(5) AMS_INST(6) AMS_INST(7) AMS_INST(8)
AMS_INST(9) AMS_INST(10) AMS_GENERIC(11) AMS_GENERIC(12) AMS_GENERIC(13) AMS_GENERIC(14)
AMS_GENERIC(15) AMS_GENERIC(16) AMS_GENERIC(17) AMS_GENERIC(18) AMS_GENERIC(19) AMS_GENERIC(20)

typedef void ams_fn(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t k0);
static ams_fn *const ams_tab[MAX_VEC + 1] = {
	NULL,	  ams52_1,  ams52_2,  ams52_3,	ams52_4,  ams52_5,  ams52_6,
	ams52_7,  ams52_8,  ams52_9,  ams52_10, ams52_11, ams52_12, ams52_13,
	ams52_14, ams52_15, ams52_16, ams52_17, ams52_18, ams52_19, ams52_20,
};
static amm_fn *const amm_tab[MAX_VEC + 1] = {
	NULL,	  amm52_1,  amm52_2,  amm52_3,	amm52_4,  amm52_5,  amm52_6,
	amm52_7,  amm52_8,  amm52_9,  amm52_10, amm52_11, amm52_12, amm52_13,
	amm52_14, amm52_15, amm52_16, amm52_17, amm52_18, amm52_19, amm52_20,
};

/* r = s^e mod n, s < n */
static void public_ifma(const struct ksp_rsa_key *k, const uint64_t *s, uint64_t *r)
{
	uint64_t s52[MAX_DIGITS] __attribute__((aligned(64)));
	uint64_t a[MAX_DIGITS] __attribute__((aligned(64)));
	uint64_t x[MAX_DIGITS] __attribute__((aligned(64)));
	uint64_t t[MAX_LIMBS], over = 0;
	size_t nd = 8 * (size_t)k->nvec, N = k->nlimbs;
	amm_fn *amm = amm_tab[k->nvec];
	ams_fn *ams = ams_tab[k->nvec];
	int top = 63 - __builtin_clzll(k->e);

	limbs_to_digits(s52, nd, s, N);
	amm(a, s52, k->rr52, k->n52, k->n0);
	memcpy(x, a, nd * sizeof(*x));
	for (int b = top - 1; b >= 1; b--) {
		ams(x, x, k->n52, k->n0);
		if (k->e >> b & 1)
			amm(x, x, a, k->n52, k->n0);
	}
	ams(x, x, k->n52, k->n0);
	amm(x, x, s52, k->n52, k->n0);
	/* x < 2n: one subtraction at most */
	digits_to_limbs(t, N, x, nd);
	/* whether x has bits beyond the N limbs (n may fill its top limb) */
	for (size_t i = 0; i < nd; i++) {
		size_t lo = 52 * i;

		if (lo + 52 > 64 * N)
			over |= lo >= 64 * N ? x[i] : x[i] >> (64 * N - lo);
	}
	final_sub(r, t, over, k->n, N);
}

#endif /* HAVE_IFMA */

/* ---- keys ------------------------------------------------------------- */

static size_t strip(const uint8_t **p, size_t len)
{
	while (len > 0 && **p == 0) {
		(*p)++;
		len--;
	}
	return len;
}

int ksp_rsa_key_new_impl(const uint8_t *n, size_t n_len, const uint8_t *e, size_t e_len, int impl,
			 struct ksp_rsa_key **ret)
{
	struct ksp_rsa_key *k;
	size_t N, nvec = 0, off, size;
	unsigned bits;
	uint64_t ev = 0, inv;
	bool ifma_checked _unused_ = false;
	void *mem;

	*ret = NULL;
	n_len = strip(&n, n_len);
	e_len = strip(&e, e_len);
	if (n_len == 0 || e_len == 0)
		return -EINVAL;
	if (n_len > MAX_BYTES || e_len > 4 || !(n[n_len - 1] & 1) || !(e[e_len - 1] & 1))
		return -EOPNOTSUPP;
	for (size_t i = 0; i < e_len; i++)
		ev = ev << 8 | e[i];
	if (ev < 3)
		return -EOPNOTSUPP;
	if (n_len == 1 && n[0] == 1)
		return -EOPNOTSUPP;
	bits = (unsigned)(8 * n_len - (size_t)__builtin_clz(n[0]) + 24);
	N = (n_len + 7) / 8;
	if (impl == KSP_RSA_IMPL_AUTO) {
		impl = KSP_RSA_IMPL_PORTABLE;
#ifdef HAVE_IFMA
		if (cpu_has_ifma())
			impl = KSP_RSA_IMPL_IFMA;
		ifma_checked = true;
#endif
	}
	switch (impl) {
	case KSP_RSA_IMPL_PORTABLE:
		break;
	case KSP_RSA_IMPL_IFMA:
#ifdef HAVE_IFMA
		if (!ifma_checked && !cpu_has_ifma())
			return -EOPNOTSUPP;
		nvec = (bits + 2 + 415) / 416;
		break;
#else
		return -EOPNOTSUPP;
#endif
	default:
		return -EINVAL;
	}
#ifndef HAVE_INT128
	return -EOPNOTSUPP;
#else
	/* one block: the struct, then n, then the rest 64-byte aligned */
	off = (sizeof(*k) + N * 8 + 63) & ~(size_t)63;
	size = off + (impl == KSP_RSA_IMPL_IFMA ? 2 * 64 * nvec : 8 * N);
	if (posix_memalign(&mem, 64, size) != 0)
		return -ENOMEM;
	k = mem;
	memset(k, 0, sizeof(*k));
	k->impl = impl;
	k->nlimbs = (unsigned)N;
	k->nbytes = (unsigned)n_len;
	k->nvec = (unsigned)nvec;
	k->e = ev;
	k->n = (uint64_t *)(k + 1);
	bytes_to_limbs(k->n, N, n, n_len);

	/* -n^-1 mod 2^64 by Newton's iteration (n n = 1 mod 8) */
	inv = k->n[0];
	for (int i = 0; i < 5; i++)
		inv *= 2 - k->n[0] * inv;
	k->n0 = -inv;

	if (impl == KSP_RSA_IMPL_PORTABLE) {
		k->rr = (uint64_t *)((uint8_t *)mem + off);
		pow2_mod(k->rr, k->n, N, (unsigned)(128 * N));
	}
#ifdef HAVE_IFMA
	else {
		uint64_t rr[MAX_LIMBS];
		uint64_t c52[MAX_DIGITS] __attribute__((aligned(64)));
		unsigned t = 52 * 8 * (unsigned)nvec; /* R = 2^t */

		k->n0 &= MASK52;
		k->n52 = (uint64_t *)((uint8_t *)mem + off);
		k->rr52 = k->n52 + 8 * nvec;
		limbs_to_digits(k->n52, 8 * nvec, k->n, N);
		/* 2^(t/4) R mod n by division (a quotient a quarter as long as
		 * that of R^2 / n), then squared twice: 2^t R = R^2 (mod n) */
		pow2_mod(rr, k->n, N, t + t / 4);
		limbs_to_digits(c52, 8 * nvec, rr, N);
		ams_tab[nvec](c52, c52, k->n52, k->n0);
		ams_tab[nvec](k->rr52, c52, k->n52, k->n0);
	}
#endif
	*ret = k;
	return 0;
#endif
}

int ksp_rsa_key_new(const uint8_t *n, size_t n_len, const uint8_t *e, size_t e_len, struct ksp_rsa_key **ret)
{
	return ksp_rsa_key_new_impl(n, n_len, e, e_len, KSP_RSA_IMPL_AUTO, ret);
}

void ksp_rsa_key_free(struct ksp_rsa_key *k)
{
	free(k);
}

int ksp_rsa_key_impl(const struct ksp_rsa_key *k)
{
	return k->impl;
}

size_t ksp_rsa_key_len(const struct ksp_rsa_key *k)
{
	return k->nbytes;
}

/* ---- verification ----------------------------------------------------- */

int ksp_rsa_public(const struct ksp_rsa_key *k, const uint8_t *s, size_t s_len, uint8_t *out)
{
	uint64_t sv[MAX_LIMBS], r[MAX_LIMBS];
	size_t N = k->nlimbs;

	if (s_len == 0)
		return -EINVAL;
	s_len = strip(&s, s_len);
	if (s_len > k->nbytes)
		return -EINVAL;
	bytes_to_limbs(sv, N, s, s_len);
	if (cmp_limbs(sv, k->n, N) >= 0)
		return -EINVAL;
	if (s_len == 0) { /* 0^e */
		memset(out, 0, k->nbytes);
		return 0;
	}
	switch (k->impl) {
#ifdef HAVE_IFMA
	case KSP_RSA_IMPL_IFMA:
		public_ifma(k, sv, r);
		break;
#endif
#ifdef HAVE_INT128
	case KSP_RSA_IMPL_PORTABLE:
		public_portable(k, sv, r);
		break;
#endif
	default:
		return -EINVAL;
	}
	limbs_to_bytes(out, k->nbytes, r);
	return 0;
}

/* The DigestInfo prefixes (RFC 8017 9.2 note 1; RIPEMD-160: RFC 4880 5.2.2). */
static const uint8_t *digest_info(int algo, size_t *plen, size_t *dlen)
{
	static const uint8_t md5[] = { 0x30, 0x20, 0x30, 0x0c, 0x06, 0x08, 0x2a, 0x86, 0x48,
				       0x86, 0xf7, 0x0d, 0x02, 0x05, 0x05, 0x00, 0x04, 0x10 };
	static const uint8_t sha1[] = { 0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e,
					0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14 };
	static const uint8_t rmd160[] = { 0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x24,
					  0x03, 0x02, 0x01, 0x05, 0x00, 0x04, 0x14 };
	/* SHA-2 and SHA-3: OID 2.16.840.1.101.3.4.2.o, NULL parameters (RFC 9580
	 * 5.2.2 for SHA3-256 and SHA3-512).  libgcrypt 1.10 encodes SHA-3
	 * without its OID (just 0x30 before the digest): that is not accepted. */
	static const struct {
		int algo;
		uint8_t len;
		uint8_t prefix[19];
	} sha[] = {
#define NIST(a, o, l)                                                                      \
	{                                                                                  \
		a, l, { 0x30, 17 + l, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,      \
			0x65, 0x03, 0x04, 0x02, o, 0x05, 0x00, 0x04, l }                   \
	}
		NIST(GCRY_MD_SHA224, 0x04, 28),
		NIST(GCRY_MD_SHA256, 0x01, 32),
		NIST(GCRY_MD_SHA384, 0x02, 48),
		NIST(GCRY_MD_SHA512, 0x03, 64),
		NIST(GCRY_MD_SHA3_256, 0x08, 32),
		NIST(GCRY_MD_SHA3_512, 0x0a, 64),
#undef NIST
	};

	switch (algo) {
	case GCRY_MD_MD5:
		*plen = sizeof(md5);
		*dlen = 16;
		return md5;
	case GCRY_MD_SHA1:
		*plen = sizeof(sha1);
		*dlen = 20;
		return sha1;
	case GCRY_MD_RMD160:
		*plen = sizeof(rmd160);
		*dlen = 20;
		return rmd160;
	default:
		for (size_t i = 0; i < sizeof(sha) / sizeof(sha[0]); i++)
			if (sha[i].algo == algo) {
				*plen = sizeof(sha[i].prefix);
				*dlen = sha[i].len;
				return sha[i].prefix;
			}
		return NULL;
	}
}

int ksp_rsa_pkcs1_em_check(const uint8_t *em, size_t klen, int gcry_md_algo, const uint8_t *digest, size_t dlen)
{
	const uint8_t *prefix;
	size_t plen, want, ps;

	prefix = digest_info(gcry_md_algo, &plen, &want);
	if (prefix == NULL)
		return -EOPNOTSUPP;
	if (dlen != want || klen < plen + dlen + 11)
		return 0;
	/* 0x00 0x01 PS 0x00 T, PS = klen - |T| - 3 octets 0xff */
	ps = klen - plen - dlen - 3;
	if (em[0] != 0x00 || em[1] != 0x01 || em[2 + ps] != 0x00)
		return 0;
	for (size_t i = 0; i < ps; i++)
		if (em[2 + i] != 0xff)
			return 0;
	if (memcmp(em + 3 + ps, prefix, plen) != 0 || memcmp(em + 3 + ps + plen, digest, dlen) != 0)
		return 0;
	return 1;
}

int ksp_rsa_verify_pkcs1(const struct ksp_rsa_key *k, int gcry_md_algo, const uint8_t *digest, size_t dlen,
			 const uint8_t *s, size_t s_len)
{
	uint8_t em[MAX_BYTES];
	size_t plen, want;

	if (digest_info(gcry_md_algo, &plen, &want) == NULL)
		return -EOPNOTSUPP;
	if (dlen != want || k->nbytes < plen + dlen + 11)
		return 0;
	if (ksp_rsa_public(k, s, s_len, em) < 0)
		return 0;
	return ksp_rsa_pkcs1_em_check(em, k->nbytes, gcry_md_algo, digest, dlen);
}
