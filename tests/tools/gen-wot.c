// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gen-wot: write a synthetic, really signed OpenPGP web of trust.
 *
 *   gen-wot --keys N --seed S [--mean-degree D] [--threads T] [--gcrypt] -o FILE
 *
 * N v4 Ed25519 keys (legacy EdDSA, algorithm 22), each with one user ID
 * "User i <user-i@example.org>", a positive self-certification (0x13) and
 * the third-party certifications (0x10) of a heavy-tailed random graph, as
 * a binary keyring (RFC 4880).  Everything derives from the seed: the
 * secret key of key i is SHA-256("S:i") (the Ed25519 seed of RFC 8032),
 * the graph comes from a PRNG keyed with SHA-256 of S, and EdDSA
 * signatures are deterministic, so the same arguments give the same bytes
 * (the thread count does not matter).  docs/gen-wot.md describes the model.
 *
 * Signing: libgcrypt 1.10 signs about 2,000 Ed25519 signatures per second
 * per core (gcry_pk_sign parses the key and sets up the curve on every
 * call, and multiplies with a generic, constant-time ladder).  For 10^6 and
 * more signatures this tool uses its own variable-time Ed25519 (radix 2^51
 * field, a fixed-base table of 64 x 15 points; the scalar arithmetic mod L
 * uses gcry_mpi) which is about 20 times faster.  Secret keys here are
 * public test data, so timing leaks do not matter.  It is checked at start
 * against the RFC 8032 test vector and against gcry_pk_sign; --gcrypt signs
 * everything with gcry_pk_sign instead (the output must be byte-identical).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <gcrypt.h>

#include "shared/util.h"

typedef unsigned __int128 u128;

/* ======================================================================
 * Ed25519 (RFC 8032), variable time.
 * ====================================================================== */

typedef struct {
	uint64_t v[5];
} fe;

#define M51 ((UINT64_C(1) << 51) - 1)

static const fe fe_d2 = { { 0x69b9426b2f159ULL, 0x35050762add7aULL, 0x3cf44c0038052ULL,
			    0x6738cc7407977ULL, 0x2406d9dc56dffULL } };
static const fe fe_bx = { { 0x62d608f25d51aULL, 0x412a4b4f6592aULL, 0x75b7171a4b31dULL,
			    0x1ff60527118feULL, 0x216936d3cd6e5ULL } };
static const fe fe_by = { { 0x6666666666658ULL, 0x4ccccccccccccULL, 0x1999999999999ULL,
			    0x3333333333333ULL, 0x6666666666666ULL } };
static const fe fe_bt = { { 0x68ab3a5b7dda3ULL, 0x00eea2a5eadbbULL, 0x2af8df483c27eULL,
			    0x332b375274732ULL, 0x67875f0fd78b7ULL } };

static void fe_carry(fe *h)
{
	uint64_t c;

	c = h->v[0] >> 51, h->v[0] &= M51, h->v[1] += c;
	c = h->v[1] >> 51, h->v[1] &= M51, h->v[2] += c;
	c = h->v[2] >> 51, h->v[2] &= M51, h->v[3] += c;
	c = h->v[3] >> 51, h->v[3] &= M51, h->v[4] += c;
	c = h->v[4] >> 51, h->v[4] &= M51, h->v[0] += 19 * c;
}

static void fe_add(fe *h, const fe *f, const fe *g)
{
	for (int i = 0; i < 5; i++)
		h->v[i] = f->v[i] + g->v[i];
	fe_carry(h);
}

/* f + 4p - g: inputs are loosely reduced (limbs < 2^52) */
static void fe_sub(fe *h, const fe *f, const fe *g)
{
	h->v[0] = f->v[0] + 0x1fffffffffffb4ULL - g->v[0];
	for (int i = 1; i < 5; i++)
		h->v[i] = f->v[i] + 0x1ffffffffffffcULL - g->v[i];
	fe_carry(h);
}

static void fe_reduce128(fe *h, u128 r0, u128 r1, u128 r2, u128 r3, u128 r4)
{
	uint64_t c;

	r1 += (uint64_t)(r0 >> 51);
	r2 += (uint64_t)(r1 >> 51);
	r3 += (uint64_t)(r2 >> 51);
	r4 += (uint64_t)(r3 >> 51);
	c = (uint64_t)(r4 >> 51);
	h->v[0] = ((uint64_t)r0 & M51) + 19 * c;
	h->v[1] = (uint64_t)r1 & M51;
	h->v[2] = (uint64_t)r2 & M51;
	h->v[3] = (uint64_t)r3 & M51;
	h->v[4] = (uint64_t)r4 & M51;
	c = h->v[0] >> 51;
	h->v[0] &= M51;
	h->v[1] += c;
}

static void fe_mul(fe *h, const fe *f, const fe *g)
{
	uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
	uint64_t g0 = g->v[0], g1 = g->v[1], g2 = g->v[2], g3 = g->v[3], g4 = g->v[4];
	uint64_t g1s = 19 * g1, g2s = 19 * g2, g3s = 19 * g3, g4s = 19 * g4;

	fe_reduce128(h, (u128)f0 * g0 + (u128)f1 * g4s + (u128)f2 * g3s + (u128)f3 * g2s + (u128)f4 * g1s,
		     (u128)f0 * g1 + (u128)f1 * g0 + (u128)f2 * g4s + (u128)f3 * g3s + (u128)f4 * g2s,
		     (u128)f0 * g2 + (u128)f1 * g1 + (u128)f2 * g0 + (u128)f3 * g4s + (u128)f4 * g3s,
		     (u128)f0 * g3 + (u128)f1 * g2 + (u128)f2 * g1 + (u128)f3 * g0 + (u128)f4 * g4s,
		     (u128)f0 * g4 + (u128)f1 * g3 + (u128)f2 * g2 + (u128)f3 * g1 + (u128)f4 * g0);
}

static void fe_sq(fe *h, const fe *f)
{
	uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
	uint64_t d0 = 2 * f0, d1 = 2 * f1, d2 = 2 * f2, d3 = 2 * f3, f3s = 19 * f3, f4s = 19 * f4;

	fe_reduce128(h, (u128)f0 * f0 + (u128)d1 * f4s + (u128)d2 * f3s,
		     (u128)d0 * f1 + (u128)d2 * f4s + (u128)f3 * f3s,
		     (u128)d0 * f2 + (u128)f1 * f1 + (u128)d3 * f4s,
		     (u128)d0 * f3 + (u128)d1 * f2 + (u128)f4 * f4s,
		     (u128)d0 * f4 + (u128)d1 * f3 + (u128)f2 * f2);
}

static void fe_sqn(fe *h, const fe *f, int n)
{
	fe_sq(h, f);
	while (--n > 0)
		fe_sq(h, h);
}

/* z^(p-2) */
static void fe_invert(fe *out, const fe *z)
{
	fe t0, t1, t2, t3;

	fe_sq(&t0, z);              /* 2 */
	fe_sqn(&t1, &t0, 2);        /* 8 */
	fe_mul(&t1, z, &t1);        /* 9 */
	fe_mul(&t0, &t0, &t1);      /* 11 */
	fe_sq(&t2, &t0);            /* 22 */
	fe_mul(&t1, &t1, &t2);      /* 2^5 - 1 */
	fe_sqn(&t2, &t1, 5);
	fe_mul(&t1, &t2, &t1);      /* 2^10 - 1 */
	fe_sqn(&t2, &t1, 10);
	fe_mul(&t2, &t2, &t1);      /* 2^20 - 1 */
	fe_sqn(&t3, &t2, 20);
	fe_mul(&t2, &t3, &t2);      /* 2^40 - 1 */
	fe_sqn(&t2, &t2, 10);
	fe_mul(&t1, &t2, &t1);      /* 2^50 - 1 */
	fe_sqn(&t2, &t1, 50);
	fe_mul(&t2, &t2, &t1);      /* 2^100 - 1 */
	fe_sqn(&t3, &t2, 100);
	fe_mul(&t2, &t3, &t2);      /* 2^200 - 1 */
	fe_sqn(&t2, &t2, 50);
	fe_mul(&t1, &t2, &t1);      /* 2^250 - 1 */
	fe_sqn(&t1, &t1, 5);        /* 2^255 - 2^5 */
	fe_mul(out, &t1, &t0);      /* 2^255 - 21 */
}

static void fe_tobytes(uint8_t s[32], const fe *f)
{
	fe h = *f;
	uint64_t q, w[4];

	fe_carry(&h);
	fe_carry(&h);
	fe_carry(&h);
	/* now h < 2^255 with every limb < 2^51; subtract p when h >= p */
	q = (h.v[0] + 19) >> 51;
	q = (h.v[1] + q) >> 51;
	q = (h.v[2] + q) >> 51;
	q = (h.v[3] + q) >> 51;
	q = (h.v[4] + q) >> 51;
	h.v[0] += 19 * q;
	h.v[1] += h.v[0] >> 51, h.v[0] &= M51;
	h.v[2] += h.v[1] >> 51, h.v[1] &= M51;
	h.v[3] += h.v[2] >> 51, h.v[2] &= M51;
	h.v[4] += h.v[3] >> 51, h.v[3] &= M51;
	h.v[4] &= M51;
	w[0] = h.v[0] | (h.v[1] << 51);
	w[1] = (h.v[1] >> 13) | (h.v[2] << 38);
	w[2] = (h.v[2] >> 26) | (h.v[3] << 25);
	w[3] = (h.v[3] >> 39) | (h.v[4] << 12);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 8; j++)
			s[8 * i + j] = (uint8_t)(w[i] >> (8 * j));
}

/* extended coordinates: x = X/Z, y = Y/Z, xy = T/Z */
typedef struct {
	fe X, Y, Z, T;
} ge;

/* a point in the form the unified addition wants */
typedef struct {
	fe ypx, ymx, z, t2d; /* (Y+X, Y-X, Z, 2dT); z = 1 for affine table points */
} ge_cached;

/* r = p + q (add-2008-hwcd-3, complete for a = -1); r may be p */
static void ge_add(ge *r, const ge *p, const ge_cached *q, bool q_affine)
{
	fe a, b, c, d, e, f, g, h, t;

	fe_sub(&t, &p->Y, &p->X);
	fe_mul(&a, &t, &q->ymx);
	fe_add(&t, &p->Y, &p->X);
	fe_mul(&b, &t, &q->ypx);
	fe_mul(&c, &p->T, &q->t2d);
	if (q_affine)
		d = p->Z;
	else
		fe_mul(&d, &p->Z, &q->z);
	fe_add(&d, &d, &d);
	fe_sub(&e, &b, &a);
	fe_sub(&f, &d, &c);
	fe_add(&g, &d, &c);
	fe_add(&h, &b, &a);
	fe_mul(&r->X, &e, &f);
	fe_mul(&r->Y, &g, &h);
	fe_mul(&r->T, &e, &h);
	fe_mul(&r->Z, &f, &g);
}

static void ge_to_cached(ge_cached *c, const ge *p, bool affine)
{
	if (affine) {
		fe zi, x, y, xy;

		fe_invert(&zi, &p->Z);
		fe_mul(&x, &p->X, &zi);
		fe_mul(&y, &p->Y, &zi);
		fe_mul(&xy, &x, &y);
		fe_add(&c->ypx, &y, &x);
		fe_sub(&c->ymx, &y, &x);
		c->z = (fe){ { 1, 0, 0, 0, 0 } };
		fe_mul(&c->t2d, &xy, &fe_d2);
	} else {
		fe_add(&c->ypx, &p->Y, &p->X);
		fe_sub(&c->ymx, &p->Y, &p->X);
		c->z = p->Z;
		fe_mul(&c->t2d, &p->T, &fe_d2);
	}
}

/* table[i][j] = (j + 1) * 16^i * B, affine */
static ge_cached (*base_table)[15];

static int base_table_init(void)
{
	ge p = { fe_bx, fe_by, { { 1, 0, 0, 0, 0 } }, fe_bt }, cur;
	ge_cached pc;

	base_table = calloc(64, sizeof(*base_table));
	if (!base_table)
		return -ENOMEM;
	for (int i = 0; i < 64; i++) {
		ge_to_cached(&pc, &p, false);
		cur = p;
		ge_to_cached(&base_table[i][0], &cur, true);
		for (int j = 1; j < 15; j++) {
			ge_add(&cur, &cur, &pc, false);
			ge_to_cached(&base_table[i][j], &cur, true);
		}
		ge_add(&p, &cur, &pc, false); /* 16 * p */
	}
	return 0;
}

/* out = encoding of s * B, s little-endian (any 256-bit value) */
static void ge_scalarmult_base(uint8_t out[32], const uint8_t s[32])
{
	ge r = { { { 0 } }, { { 1, 0, 0, 0, 0 } }, { { 1, 0, 0, 0, 0 } }, { { 0 } } };
	fe zi, x, y;
	uint8_t xb[32];

	for (int i = 0; i < 64; i++) {
		unsigned nib = (s[i >> 1] >> ((i & 1) * 4)) & 15;

		if (nib)
			ge_add(&r, &r, &base_table[i][nib - 1], true);
	}
	fe_invert(&zi, &r.Z);
	fe_mul(&x, &r.X, &zi);
	fe_mul(&y, &r.Y, &zi);
	fe_tobytes(out, &y);
	fe_tobytes(xb, &x);
	out[31] |= (uint8_t)((xb[0] & 1) << 7);
}

/* Scalar arithmetic mod L with gcry_mpi; one per thread. */
struct scalar_ctx {
	gcry_mpi_t L, r, k, a, t;
};

static int scalar_ctx_init(struct scalar_ctx *sc)
{
	static const char l_hex[] = "1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3ed";

	memset(sc, 0, sizeof(*sc));
	if (gcry_mpi_scan(&sc->L, GCRYMPI_FMT_HEX, l_hex, 0, NULL))
		return -EINVAL;
	sc->t = gcry_mpi_new(512);
	return 0;
}

static void scalar_ctx_done(struct scalar_ctx *sc)
{
	gcry_mpi_release(sc->L);
	gcry_mpi_release(sc->r);
	gcry_mpi_release(sc->k);
	gcry_mpi_release(sc->a);
	gcry_mpi_release(sc->t);
}

static void mpi_from_le(gcry_mpi_t *m, const uint8_t *le, size_t n)
{
	uint8_t be[64];

	for (size_t i = 0; i < n; i++)
		be[i] = le[n - 1 - i];
	gcry_mpi_release(*m);
	*m = NULL;
	if (gcry_mpi_scan(m, GCRYMPI_FMT_USG, be, n, NULL)) {
		fprintf(stderr, "gen-wot: gcry_mpi_scan failed\n");
		abort();
	}
}

static void mpi_to_le32(uint8_t out[32], gcry_mpi_t m)
{
	uint8_t be[32];
	size_t n = 0;

	if (gcry_mpi_print(GCRYMPI_FMT_USG, be, sizeof(be), &n, m) || n > 32) {
		fprintf(stderr, "gen-wot: gcry_mpi_print failed\n");
		abort();
	}
	memset(out, 0, 32);
	for (size_t i = 0; i < n; i++)
		out[i] = be[n - 1 - i];
}

struct edkey {
	uint8_t secret[32]; /* RFC 8032 private key (seed) */
	uint8_t a[32];      /* clamped scalar */
	uint8_t prefix[32];
	uint8_t pub[32];
};

static void ed_expand(struct edkey *k, const uint8_t secret[32])
{
	uint8_t h[64];

	memcpy(k->secret, secret, 32);
	gcry_md_hash_buffer(GCRY_MD_SHA512, h, secret, 32);
	memcpy(k->a, h, 32);
	k->a[0] &= 248;
	k->a[31] &= 127;
	k->a[31] |= 64;
	memcpy(k->prefix, h + 32, 32);
}

/* sig = R || S of message m (mlen <= 64); k->pub must be set */
static void ed_sign(struct scalar_ctx *sc, const struct edkey *k, const uint8_t *m, size_t mlen,
		    uint8_t sig[64])
{
	uint8_t buf[128], h[64], rs[32];

	memcpy(buf, k->prefix, 32);
	memcpy(buf + 32, m, mlen);
	gcry_md_hash_buffer(GCRY_MD_SHA512, h, buf, 32 + mlen);
	mpi_from_le(&sc->r, h, 64);
	gcry_mpi_mod(sc->r, sc->r, sc->L);
	mpi_to_le32(rs, sc->r);
	ge_scalarmult_base(sig, rs);
	memcpy(buf, sig, 32);
	memcpy(buf + 32, k->pub, 32);
	memcpy(buf + 64, m, mlen);
	gcry_md_hash_buffer(GCRY_MD_SHA512, h, buf, 64 + mlen);
	mpi_from_le(&sc->k, h, 64);
	mpi_from_le(&sc->a, k->a, 32);
	gcry_mpi_mulm(sc->t, sc->k, sc->a, sc->L);
	gcry_mpi_addm(sc->t, sc->t, sc->r, sc->L);
	mpi_to_le32(sig + 32, sc->t);
}

/* the same with gcry_pk_sign, as ksp's verifier and GnuPG expect it */
static int ed_sign_gcrypt(const struct edkey *k, const uint8_t *m, size_t mlen, uint8_t sig[64])
{
	gcry_sexp_t skey = NULL, data = NULL, s = NULL;
	gcry_error_t e;
	int r = -EINVAL;

	e = gcry_sexp_build(&skey, NULL, "(private-key(ecc(curve Ed25519)(flags eddsa)(q %b)(d %b)))",
			    32, k->pub, 32, k->secret);
	if (!e)
		e = gcry_sexp_build(&data, NULL, "(data(flags eddsa)(hash-algo sha512)(value %b))",
				    (int)mlen, m);
	if (!e)
		e = gcry_pk_sign(&s, data, skey);
	if (!e) {
		for (int i = 0; i < 2; i++) {
			gcry_sexp_t t = gcry_sexp_find_token(s, i ? "s" : "r", 0);
			size_t l = 0;
			const char *p = t ? gcry_sexp_nth_data(t, 1, &l) : NULL;

			if (!p || l > 32) {
				gcry_sexp_release(t);
				goto out;
			}
			memset(sig + 32 * i, 0, 32 - l);
			memcpy(sig + 32 * i + 32 - l, p, l);
			gcry_sexp_release(t);
		}
		r = 0;
	}
out:
	gcry_sexp_release(skey);
	gcry_sexp_release(data);
	gcry_sexp_release(s);
	return r;
}

/* ======================================================================
 * The graph.
 * ====================================================================== */

/* xoshiro256** seeded with splitmix64 */
struct rng {
	uint64_t s[4];
};

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *g)
{
	uint64_t r = rotl(g->s[1] * 5, 7) * 9, t = g->s[1] << 17;

	g->s[2] ^= g->s[0];
	g->s[3] ^= g->s[1];
	g->s[1] ^= g->s[2];
	g->s[0] ^= g->s[3];
	g->s[2] ^= t;
	g->s[3] = rotl(g->s[3], 45);
	return r;
}

static void rng_seed(struct rng *g, const uint8_t key[32], uint64_t stream)
{
	uint64_t x = stream * 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < 4; i++) {
		uint64_t z, k = 0;

		for (int j = 0; j < 8; j++)
			k |= (uint64_t)key[8 * i + j] << (8 * j);
		z = (x += 0x9e3779b97f4a7c15ULL) ^ k;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		g->s[i] = z ^ (z >> 31);
	}
}

/* uniform in [0, n) */
static uint64_t rng_below(struct rng *g, uint64_t n)
{
	return (uint64_t)(((u128)rng_next(g) * n) >> 64);
}

/* Walker/Vose alias table over integer weights (weight 0 = never drawn) */
struct alias {
	uint32_t n;
	uint64_t total;    /* sum of weights */
	uint64_t *prob;    /* scaled by n: draw i when r < prob[i], r in [0, total) */
	uint32_t *other;
};

static int alias_build(struct alias *al, const uint64_t *w, uint32_t n)
{
	uint32_t *small, *large, ns = 0, nl = 0;

	al->n = n;
	al->total = 0;
	for (uint32_t i = 0; i < n; i++)
		al->total += w[i];
	al->prob = malloc(n * sizeof(*al->prob));
	al->other = malloc(n * sizeof(*al->other));
	small = malloc(n * sizeof(*small));
	large = malloc(n * sizeof(*large));
	if (!al->prob || !al->other || !small || !large) {
		free(small);
		free(large);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		al->prob[i] = w[i] * n;
		al->other[i] = i;
		if (al->prob[i] < al->total)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns && nl) {
		uint32_t s = small[--ns], l = large[--nl];

		al->other[s] = l;
		al->prob[l] -= al->total - al->prob[s];
		if (al->prob[l] < al->total)
			small[ns++] = l;
		else
			large[nl++] = l;
	}
	while (nl)
		al->prob[large[--nl]] = al->total;
	while (ns) /* rounding leftovers */
		al->prob[small[--ns]] = al->total;
	free(small);
	free(large);
	return 0;
}

static uint32_t alias_draw(const struct alias *al, struct rng *g)
{
	uint32_t i = (uint32_t)rng_below(g, al->n);

	return rng_below(g, al->total) < al->prob[i] ? i : al->other[i];
}

/* integer cube root */
static uint64_t icbrt(u128 x)
{
	uint64_t lo = 0, hi = UINT64_C(1) << 32; /* (2^32)^3 fits */

	while (lo < hi) {
		uint64_t m = lo + (hi - lo + 1) / 2;

		if ((u128)m * m * m <= x)
			lo = m;
		else
			hi = m - 1;
	}
	return lo;
}

/* model parameters, per mille */
#define LEAF_PM 300         /* keys that get at most one certification */
#define RECIP_PM 429        /* v signs u back; then P(v->u | u->v) = 2p/(1+p) = 0.6 */

struct graph {
	uint32_t n;
	uint8_t *leaf;
	struct alias al;
	uint64_t *off;     /* CSR by signee: signers of v are signers[off[v] .. off[v+1]) */
	uint32_t *signers; /* ascending, distinct, != v */
	uint64_t n_edges;
};

static void emit(struct graph *gr, int pass, uint32_t *pos, uint32_t u, uint32_t v)
{
	if (pass == 0)
		pos[v]++;
	else
		gr->signers[gr->off[v] + pos[v]++] = u;
}

/* pass 0 counts in-degrees into pos, pass 1 fills signers */
static void gen_pass(struct graph *gr, const uint8_t key[32], unsigned iter, uint64_t e0, int pass,
		     uint32_t *pos)
{
	struct rng g;

	rng_seed(&g, key, 100 + iter);
	memset(pos, 0, gr->n * sizeof(*pos));
	if (gr->al.total == 0)
		return;
	for (uint64_t t = 0; t < e0; t++) {
		uint32_t u = alias_draw(&gr->al, &g), v = alias_draw(&gr->al, &g);

		if (u == v)
			continue;
		emit(gr, pass, pos, u, v);
		if (rng_below(&g, 1000) < RECIP_PM)
			emit(gr, pass, pos, v, u);
	}
	for (uint32_t l = 0; l < gr->n; l++) {
		uint64_t c;

		if (!gr->leaf[l])
			continue;
		c = rng_below(&g, 6);
		if (c < 3) { /* signed by one key; signs it back half of the time */
			uint32_t u = alias_draw(&gr->al, &g);

			if (u == l)
				continue;
			emit(gr, pass, pos, u, l);
			if (rng_below(&g, 2))
				emit(gr, pass, pos, l, u);
		} else if (c == 3) { /* signs one key, unsigned itself */
			uint32_t v = alias_draw(&gr->al, &g);

			if (v != l)
				emit(gr, pass, pos, l, v);
		}
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int graph_build_once(struct graph *gr, const uint8_t key[32], unsigned iter, uint64_t e0)
{
	uint32_t *pos = malloc(gr->n * sizeof(*pos));
	uint64_t total = 0, w = 0;

	if (!pos)
		return -ENOMEM;
	gen_pass(gr, key, iter, e0, 0, pos);
	for (uint32_t v = 0; v < gr->n; v++) {
		gr->off[v] = total;
		total += pos[v];
	}
	gr->off[gr->n] = total;
	free(gr->signers);
	gr->signers = malloc((total ? total : 1) * sizeof(*gr->signers));
	if (!gr->signers) {
		free(pos);
		return -ENOMEM;
	}
	gen_pass(gr, key, iter, e0, 1, pos);
	free(pos);
	/* sort and dedupe each signee's list, compacting in place */
	for (uint32_t v = 0; v < gr->n; v++) {
		uint64_t b = gr->off[v], e = gr->off[v + 1];
		uint32_t *s = gr->signers + b;
		size_t m = e - b, k = 0;

		qsort(s, m, sizeof(*s), cmp_u32);
		gr->off[v] = w;
		for (size_t i = 0; i < m; i++)
			if (i == 0 || s[i] != s[i - 1])
				gr->signers[w + k++] = s[i];
		w += k;
	}
	gr->off[gr->n] = w;
	gr->n_edges = w;
	return 0;
}

static int graph_build(struct graph *gr, const uint8_t key[32], uint32_t n, uint64_t target)
{
	uint64_t *wt, core = 0, wsum = 0, e0, cap;
	struct rng g;
	int r;

	memset(gr, 0, sizeof(*gr));
	gr->n = n;
	gr->leaf = calloc(n, 1);
	wt = calloc(n, sizeof(*wt));
	gr->off = calloc((size_t)n + 1, sizeof(*gr->off));
	if (!gr->leaf || !wt || !gr->off) {
		free(wt);
		return -ENOMEM;
	}
	/* roles and weights: Pareto with tail index 1.5, w = U^(-2/3) (x 1024) */
	rng_seed(&g, key, 1);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t u;

		if (rng_below(&g, 1000) < LEAF_PM) {
			gr->leaf[i] = 1;
			rng_next(&g);
			continue;
		}
		u = (rng_next(&g) >> 32) + 1;
		wt[i] = icbrt(((u128)1 << 94) / ((u128)u * u));
		core++;
		wsum += wt[i];
	}
	/* initiated core edges: each gives 1 + 0.6 certifications */
	e0 = target * 1000 / (1000 + RECIP_PM);
	/* no key gets more than about a quarter of all keys' signatures */
	if (e0 && core) {
		cap = (uint64_t)((u128)wsum * n / 4 / (e0 * (1000 + RECIP_PM) / 1000 + 1));
		if (cap < 1024)
			cap = 1024;
		for (uint32_t i = 0; i < n; i++)
			if (wt[i] > cap)
				wt[i] = cap;
	}
	r = alias_build(&gr->al, wt, n);
	free(wt);
	if (r < 0)
		return r;
	/* hit the target edge count within 0.2% (duplicates and the leaves'
	 * edges make it drift); a few deterministic rounds */
	for (unsigned iter = 0;; iter++) {
		r = graph_build_once(gr, key, iter, e0);
		if (r < 0)
			return r;
		if (iter == 4 || gr->n_edges == 0 || e0 == 0 ||
		    (gr->n_edges * 1000 >= target * 998 && gr->n_edges * 1000 <= target * 1002))
			break;
		e0 = (uint64_t)((u128)e0 * target / gr->n_edges);
	}
	return 0;
}

static void graph_free(struct graph *gr)
{
	free(gr->leaf);
	free(gr->al.prob);
	free(gr->al.other);
	free(gr->off);
	free(gr->signers);
}

/* ======================================================================
 * Keys and packets.
 * ====================================================================== */

struct gen {
	uint32_t n;
	const char *seed;
	uint32_t base_time;
	bool use_gcrypt;
	unsigned threads;
	struct graph gr;
	uint8_t (*pub)[32];
	uint8_t (*fpr)[20];

	atomic_uint_fast64_t next_pub;
	atomic_uint_fast64_t n_sigs_done;

	/* output pipeline: chunks of keys, built by workers, written in order */
	uint32_t *chunk_start; /* n_chunks + 1 */
	size_t n_chunks;
	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_done;
	size_t next_take, next_write;
	unsigned window;
	struct slot {
		uint8_t *buf;
		size_t len, cap;
		bool done;
		int err;
	} *slots;
};

static void derive_secret(const struct gen *gn, uint32_t i, uint8_t out[32])
{
	char s[64 + 4096];
	int l = snprintf(s, sizeof(s), "%s:%" PRIu32, gn->seed, i);

	gcry_md_hash_buffer(GCRY_MD_SHA256, out, s, (size_t)l);
}

/* the public key packet body (51 octets) */
static size_t key_body(uint8_t *b, uint32_t created, const uint8_t pub[32])
{
	static const uint8_t oid[] = { 0x2b, 0x06, 0x01, 0x04, 0x01, 0xda, 0x47, 0x0f, 0x01 };
	size_t p = 0;

	b[p++] = 4;
	b[p++] = (uint8_t)(created >> 24), b[p++] = (uint8_t)(created >> 16);
	b[p++] = (uint8_t)(created >> 8), b[p++] = (uint8_t)created;
	b[p++] = 22;
	b[p++] = sizeof(oid);
	memcpy(b + p, oid, sizeof(oid)), p += sizeof(oid);
	b[p++] = 263 >> 8, b[p++] = 263 & 0xff;
	b[p++] = 0x40;
	memcpy(b + p, pub, 32), p += 32;
	return p;
}

static void fingerprint(const uint8_t *body, size_t len, uint8_t fpr[20])
{
	uint8_t buf[64];

	buf[0] = 0x99, buf[1] = (uint8_t)(len >> 8), buf[2] = (uint8_t)len;
	memcpy(buf + 3, body, len);
	gcry_md_hash_buffer(GCRY_MD_SHA1, fpr, buf, len + 3);
}

struct out {
	uint8_t *buf;
	size_t len, cap;
	bool oom;
};

static uint8_t *out_room(struct out *o, size_t n)
{
	if (o->len + n > o->cap) {
		size_t c = o->cap ? o->cap : 4096;
		uint8_t *nb;

		while (c < o->len + n)
			c *= 2;
		nb = realloc(o->buf, c);
		if (!nb) {
			o->oom = true;
			return NULL;
		}
		o->buf = nb, o->cap = c;
	}
	return o->buf + o->len;
}

/* an old-format packet header and body */
static void out_packet(struct out *o, uint8_t tag, const uint8_t *body, size_t len)
{
	uint8_t *p = out_room(o, len + 3);

	if (!p)
		return;
	if (len < 256) {
		*p++ = (uint8_t)(0x80 | (tag << 2)), *p++ = (uint8_t)len;
		o->len += 2;
	} else {
		*p++ = (uint8_t)(0x81 | (tag << 2)), *p++ = (uint8_t)(len >> 8), *p++ = (uint8_t)len;
		o->len += 3;
	}
	memcpy(p, body, len);
	o->len += len;
}

static size_t put_mpi(uint8_t *b, const uint8_t *v, size_t n)
{
	size_t i = 0, bits;

	while (i < n && v[i] == 0)
		i++;
	bits = i == n ? 0 : (n - i - 1) * 8 + (size_t)(32 - __builtin_clz(v[i]));
	b[0] = (uint8_t)(bits >> 8), b[1] = (uint8_t)bits;
	memcpy(b + 2, v + i, n - i);
	return 2 + n - i;
}

struct worker {
	struct gen *gn;
	struct scalar_ctx sc;
	pthread_t tid;
	int err;
};

/*
 * One signature by @signer (index) of class @type on the user ID whose
 * hash prefix (0x99 key, 0xB4 uid) is @pre.
 */
static int make_sig(struct worker *wk, struct out *o, const uint8_t *pre, size_t pre_len,
		    uint32_t signer, uint8_t type, uint32_t created)
{
	struct gen *gn = wk->gn;
	uint8_t body[200], hbuf[512], digest[32], secret[32], sig[64];
	struct edkey k;
	size_t p = 0, hstart, hlen;

	body[p++] = 4, body[p++] = type, body[p++] = 22, body[p++] = 8; /* SHA-256 */
	hstart = p;
	p += 2;
	body[p++] = 22, body[p++] = 33, body[p++] = 4; /* issuer fingerprint */
	memcpy(body + p, gn->fpr[signer], 20), p += 20;
	body[p++] = 5, body[p++] = 2; /* creation time */
	body[p++] = (uint8_t)(created >> 24), body[p++] = (uint8_t)(created >> 16);
	body[p++] = (uint8_t)(created >> 8), body[p++] = (uint8_t)created;
	if (type == 0x13) {
		body[p++] = 2, body[p++] = 27, body[p++] = 0x03; /* key flags: certify, sign */
	} else {
		body[p++] = 2, body[p++] = 4, body[p++] = 1; /* exportable */
	}
	hlen = p - hstart - 2;
	body[hstart] = (uint8_t)(hlen >> 8), body[hstart + 1] = (uint8_t)hlen;
	/* the digest: key, user ID, hashed part, trailer */
	memcpy(hbuf, pre, pre_len);
	memcpy(hbuf + pre_len, body, p);
	{
		size_t q = pre_len + p;

		hbuf[q++] = 4, hbuf[q++] = 0xff;
		hbuf[q++] = (uint8_t)(p >> 24), hbuf[q++] = (uint8_t)(p >> 16);
		hbuf[q++] = (uint8_t)(p >> 8), hbuf[q++] = (uint8_t)p;
		gcry_md_hash_buffer(GCRY_MD_SHA256, digest, hbuf, q);
	}
	/* unhashed: issuer key ID */
	body[p++] = 0, body[p++] = 10;
	body[p++] = 9, body[p++] = 16;
	memcpy(body + p, gn->fpr[signer] + 12, 8), p += 8;
	body[p++] = digest[0], body[p++] = digest[1];
	derive_secret(gn, signer, secret);
	ed_expand(&k, secret);
	memcpy(k.pub, gn->pub[signer], 32);
	if (gn->use_gcrypt) {
		if (ed_sign_gcrypt(&k, digest, 32, sig) < 0)
			return -EINVAL;
	} else {
		ed_sign(&wk->sc, &k, digest, 32, sig);
	}
	p += put_mpi(body + p, sig, 32);
	p += put_mpi(body + p, sig + 32, 32);
	out_packet(o, 2, body, p);
	return o->oom ? -ENOMEM : 0;
}

static int make_key(struct worker *wk, struct out *o, uint32_t i)
{
	struct gen *gn = wk->gn;
	uint8_t kb[64], pre[256];
	char uid[96];
	size_t kl, ul, pl = 0;
	uint32_t created = gn->base_time + i, cert_time = gn->base_time + gn->n + i;
	int r;

	kl = key_body(kb, created, gn->pub[i]);
	ul = (size_t)snprintf(uid, sizeof(uid), "User %" PRIu32 " <user-%" PRIu32 "@example.org>", i, i);
	out_packet(o, 6, kb, kl);
	out_packet(o, 13, (const uint8_t *)uid, ul);
	pre[pl++] = 0x99, pre[pl++] = (uint8_t)(kl >> 8), pre[pl++] = (uint8_t)kl;
	memcpy(pre + pl, kb, kl), pl += kl;
	pre[pl++] = 0xb4;
	pre[pl++] = 0, pre[pl++] = 0, pre[pl++] = 0, pre[pl++] = (uint8_t)ul;
	memcpy(pre + pl, uid, ul), pl += ul;
	r = make_sig(wk, o, pre, pl, i, 0x13, created);
	for (uint64_t e = gn->gr.off[i]; r >= 0 && e < gn->gr.off[i + 1]; e++)
		r = make_sig(wk, o, pre, pl, gn->gr.signers[e], 0x10, cert_time);
	atomic_fetch_add(&gn->n_sigs_done, 1 + gn->gr.off[i + 1] - gn->gr.off[i]);
	return r;
}

static void *pub_worker(void *arg)
{
	struct worker *wk = arg;
	struct gen *gn = wk->gn;

	for (;;) {
		uint64_t b = atomic_fetch_add(&gn->next_pub, 256), e = b + 256;

		if (b >= gn->n)
			break;
		if (e > gn->n)
			e = gn->n;
		for (uint64_t i = b; i < e; i++) {
			uint8_t secret[32], kb[64];
			struct edkey k;

			derive_secret(gn, (uint32_t)i, secret);
			ed_expand(&k, secret);
			ge_scalarmult_base(gn->pub[i], k.a);
			fingerprint(kb, key_body(kb, gn->base_time + (uint32_t)i, gn->pub[i]), gn->fpr[i]);
		}
	}
	return NULL;
}

static void *key_worker(void *arg)
{
	struct worker *wk = arg;
	struct gen *gn = wk->gn;

	for (;;) {
		struct slot *sl;
		struct out o;
		size_t c;
		int r = 0;

		pthread_mutex_lock(&gn->mu);
		while (gn->next_take < gn->n_chunks && gn->next_take >= gn->next_write + gn->window)
			pthread_cond_wait(&gn->cv_work, &gn->mu);
		if (gn->next_take >= gn->n_chunks) {
			pthread_mutex_unlock(&gn->mu);
			break;
		}
		c = gn->next_take++;
		pthread_mutex_unlock(&gn->mu);

		sl = &gn->slots[c % gn->window];
		o = (struct out){ sl->buf, 0, sl->cap, false };
		for (uint32_t i = gn->chunk_start[c]; r >= 0 && i < gn->chunk_start[c + 1]; i++)
			r = make_key(wk, &o, i);

		pthread_mutex_lock(&gn->mu);
		sl->buf = o.buf, sl->len = o.len, sl->cap = o.cap;
		sl->err = r;
		sl->done = true;
		pthread_cond_broadcast(&gn->cv_done);
		pthread_mutex_unlock(&gn->mu);
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* RFC 8032 test 1 and a comparison with gcry_pk_sign */
static int self_test(struct scalar_ctx *sc)
{
	static const uint8_t s1[32] = { 0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a,
					0xf4, 0x92, 0xec, 0x2c, 0xc4, 0x44, 0x49, 0xc5, 0x69, 0x7b, 0x32,
					0x69, 0x19, 0x70, 0x3b, 0xac, 0x03, 0x1c, 0xae, 0x7f, 0x60 };
	static const uint8_t p1[32] = { 0xd7, 0x5a, 0x98, 0x01, 0x82, 0xb1, 0x0a, 0xb7, 0xd5, 0x4b, 0xfe,
					0xd3, 0xc9, 0x64, 0x07, 0x3a, 0x0e, 0xe1, 0x72, 0xf3, 0xda, 0xa6,
					0x23, 0x25, 0xaf, 0x02, 0x1a, 0x68, 0xf7, 0x07, 0x51, 0x1a };
	static const uint8_t sig1_head[8] = { 0xe5, 0x56, 0x43, 0x00, 0xc3, 0x60, 0xac, 0x72 };
	struct edkey k;
	uint8_t sig[64], ref[64], m[32];

	ed_expand(&k, s1);
	ge_scalarmult_base(k.pub, k.a);
	ed_sign(sc, &k, m, 0, sig);
	if (memcmp(k.pub, p1, 32) != 0 || memcmp(sig, sig1_head, 8) != 0)
		return -1;
	for (unsigned t = 0; t < 8; t++) {
		uint8_t sec[32];

		gcry_md_hash_buffer(GCRY_MD_SHA256, sec, &t, sizeof(t));
		gcry_md_hash_buffer(GCRY_MD_SHA256, m, sec, 32);
		ed_expand(&k, sec);
		ge_scalarmult_base(k.pub, k.a);
		ed_sign(sc, &k, m, 32, sig);
		if (ed_sign_gcrypt(&k, m, 32, ref) < 0 || memcmp(sig, ref, 64) != 0)
			return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fputs("Usage: gen-wot --keys N --seed S [--mean-degree D] [--threads T] [--gcrypt]\n"
	      "               [--base-time EPOCH] [--quiet] -o FILE\n"
	      "Write a synthetic, signed OpenPGP web of trust (N Ed25519 keys) to FILE (- = stdout).\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "keys", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "mean-degree", required_argument, NULL, 'd' },
		{ "threads", required_argument, NULL, 't' },
		{ "gcrypt", no_argument, NULL, 'g' },
		{ "base-time", required_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct gen gn = { .seed = NULL, .base_time = 1577836800u /* 2020-01-01 */ };
	const char *outp = NULL;
	double mean = 10.0, t0, t1, t2;
	unsigned long long nkeys = 0;
	struct atomic_file af = { 0 };
	struct worker *wk = NULL;
	struct scalar_ctx sc;
	uint8_t key[32];
	bool quiet = false, direct = false;
	struct stat st;
	int c, r = 0, fd;
	char *end;

	while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			errno = 0;
			nkeys = strtoull(optarg, &end, 10);
			if (errno || *end || nkeys == 0 || nkeys > 50000000) {
				fprintf(stderr, "gen-wot: --keys %s: want 1..50000000\n", optarg);
				return 2;
			}
			break;
		case 's':
			if (strlen(optarg) > 4000) {
				fprintf(stderr, "gen-wot: --seed: too long\n");
				return 2;
			}
			gn.seed = optarg;
			break;
		case 'd':
			mean = strtod(optarg, &end);
			if (*end || !(mean >= 0 && mean <= 1000)) {
				fprintf(stderr, "gen-wot: --mean-degree %s: want 0..1000\n", optarg);
				return 2;
			}
			break;
		case 't':
			gn.threads = (unsigned)strtoul(optarg, &end, 10);
			if (*end || gn.threads == 0 || gn.threads > 256) {
				fprintf(stderr, "gen-wot: --threads %s: want 1..256\n", optarg);
				return 2;
			}
			break;
		case 'g':
			gn.use_gcrypt = true;
			break;
		case 'b':
			gn.base_time = (uint32_t)strtoul(optarg, &end, 10);
			if (*end) {
				fprintf(stderr, "gen-wot: --base-time %s: want seconds since 1970\n", optarg);
				return 2;
			}
			break;
		case 'q':
			quiet = true;
			break;
		case 'o':
			outp = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !nkeys || !gn.seed || !outp) {
		usage(stderr);
		return 2;
	}
	gn.n = (uint32_t)nkeys;
	if (!gn.threads) {
		long nc = sysconf(_SC_NPROCESSORS_ONLN);

		gn.threads = nc > 0 ? (unsigned)(nc > 64 ? 64 : nc) : 1;
	}
	if ((uint64_t)gn.base_time + 2 * (uint64_t)gn.n > UINT32_MAX) {
		fprintf(stderr, "gen-wot: --base-time too late for %u keys\n", gn.n);
		return 2;
	}

	gcry_check_version(NULL);
	gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	if (base_table_init() < 0 || scalar_ctx_init(&sc) < 0) {
		fprintf(stderr, "gen-wot: out of memory\n");
		return 2;
	}
	if (self_test(&sc) < 0) {
		fprintf(stderr, "gen-wot: Ed25519 self-test failed (RFC 8032 / gcry_pk_sign mismatch)\n");
		return 2;
	}
	scalar_ctx_done(&sc);

	t0 = now_s();
	gcry_md_hash_buffer(GCRY_MD_SHA256, key, gn.seed, strlen(gn.seed));
	r = graph_build(&gn.gr, key, gn.n, (uint64_t)(mean * (double)gn.n + 0.5));
	gn.pub = malloc((size_t)gn.n * sizeof(*gn.pub));
	gn.fpr = malloc((size_t)gn.n * sizeof(*gn.fpr));
	wk = calloc(gn.threads, sizeof(*wk));
	if (r < 0 || !gn.pub || !gn.fpr || !wk) {
		fprintf(stderr, "gen-wot: out of memory\n");
		return 2;
	}
	t1 = now_s();

	/* public keys and fingerprints, in parallel */
	for (unsigned t = 0; t < gn.threads; t++) {
		wk[t].gn = &gn;
		if (scalar_ctx_init(&wk[t].sc) < 0 || pthread_create(&wk[t].tid, NULL, pub_worker, &wk[t])) {
			fprintf(stderr, "gen-wot: cannot start threads\n");
			return 2;
		}
	}
	for (unsigned t = 0; t < gn.threads; t++)
		pthread_join(wk[t].tid, NULL);

	/* chunks of about 512 signatures */
	gn.chunk_start = malloc(((size_t)gn.n + 1) * sizeof(*gn.chunk_start));
	if (!gn.chunk_start) {
		fprintf(stderr, "gen-wot: out of memory\n");
		return 2;
	}
	{
		uint64_t acc = 0;

		gn.chunk_start[gn.n_chunks++] = 0;
		for (uint32_t i = 0; i < gn.n; i++) {
			acc += 1 + gn.gr.off[i + 1] - gn.gr.off[i];
			if (acc >= 512 && i + 1 < gn.n) {
				gn.chunk_start[gn.n_chunks++] = i + 1;
				acc = 0;
			}
		}
		gn.chunk_start[gn.n_chunks] = gn.n;
	}
	gn.window = 4 * gn.threads;
	gn.slots = calloc(gn.window, sizeof(*gn.slots));
	if (!gn.slots) {
		fprintf(stderr, "gen-wot: out of memory\n");
		return 2;
	}
	pthread_mutex_init(&gn.mu, NULL);
	pthread_cond_init(&gn.cv_work, NULL);
	pthread_cond_init(&gn.cv_done, NULL);

	if (strcmp(outp, "-") == 0) {
		fd = STDOUT_FILENO;
	} else if (stat(outp, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device or a pipe (/dev/null): write to it, never rename over it */
		fd = open(outp, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "gen-wot: %s: %s\n", outp, strerror(errno));
			return 2;
		}
		direct = true;
	} else {
		r = atomic_file_begin(&af, outp, 0644);
		if (r < 0) {
			fprintf(stderr, "gen-wot: %s: %s\n", outp, strerror(-r));
			return 2;
		}
		fd = af.fd;
	}
	for (unsigned t = 0; t < gn.threads; t++)
		if (pthread_create(&wk[t].tid, NULL, key_worker, &wk[t])) {
			fprintf(stderr, "gen-wot: cannot start threads\n");
			return 2;
		}
	{
		bool tty = !quiet && isatty(STDERR_FILENO);
		double last = now_s();

		for (size_t ch = 0; ch < gn.n_chunks; ch++) {
			struct slot *sl = &gn.slots[ch % gn.window];

			pthread_mutex_lock(&gn.mu);
			while (!sl->done)
				pthread_cond_wait(&gn.cv_done, &gn.mu);
			pthread_mutex_unlock(&gn.mu);
			if (r >= 0 && sl->err < 0)
				r = sl->err;
			if (r >= 0)
				r = write_all(fd, sl->buf, sl->len);
			pthread_mutex_lock(&gn.mu);
			sl->done = false;
			gn.next_write++;
			pthread_cond_broadcast(&gn.cv_work);
			pthread_mutex_unlock(&gn.mu);
			if (tty && now_s() - last > 1) {
				last = now_s();
				fprintf(stderr, "\rgen-wot: %u/%u keys", gn.chunk_start[ch + 1], gn.n);
			}
		}
		if (tty)
			fputs("\r\033[K", stderr);
	}
	for (unsigned t = 0; t < gn.threads; t++) {
		pthread_join(wk[t].tid, NULL);
		scalar_ctx_done(&wk[t].sc);
	}
	if (direct) {
		if (close(fd) < 0 && r >= 0)
			r = -errno;
	} else if (fd != STDOUT_FILENO) {
		r = atomic_file_end(&af, r);
	}
	t2 = now_s();
	if (r < 0) {
		fprintf(stderr, "gen-wot: %s: %s\n", outp, strerror(-r));
		return 2;
	}
	if (!quiet) {
		uint64_t recip = 0, low = 0, sigs = atomic_load(&gn.n_sigs_done);

		for (uint32_t v = 0; v < gn.n; v++) {
			if (gn.gr.off[v + 1] - gn.gr.off[v] <= 1)
				low++;
			for (uint64_t e = gn.gr.off[v]; e < gn.gr.off[v + 1]; e++) {
				uint32_t u = gn.gr.signers[e];
				/* does v sign u? binary search in u's signers */
				uint64_t lo = gn.gr.off[u], hi = gn.gr.off[u + 1];

				while (lo < hi) {
					uint64_t m = (lo + hi) / 2;

					if (gn.gr.signers[m] < v)
						lo = m + 1;
					else
						hi = m;
				}
				if (lo < gn.gr.off[u + 1] && gn.gr.signers[lo] == v)
					recip++;
			}
		}
		fprintf(stderr,
			"gen-wot: %u keys, %" PRIu64 " certifications (mean %.2f), %.1f%% reciprocated, "
			"%.1f%% keys with 0-1; graph %.2f s, signing %.2f s (%" PRIu64
			" signatures, %.0f/s on %u threads%s)\n",
			gn.n, gn.gr.n_edges, (double)gn.gr.n_edges / gn.n,
			gn.gr.n_edges ? 100.0 * (double)recip / (double)gn.gr.n_edges : 0.0,
			100.0 * (double)low / gn.n, t1 - t0, t2 - t1, sigs, (double)sigs / (t2 - t1),
			gn.threads, gn.use_gcrypt ? ", gcry_pk_sign" : "");
	}
	for (unsigned w = 0; w < gn.window; w++)
		free(gn.slots[w].buf);
	free(gn.slots);
	free(gn.chunk_start);
	free(wk);
	free(gn.pub);
	free(gn.fpr);
	graph_free(&gn.gr);
	free(base_table);
	pthread_mutex_destroy(&gn.mu);
	pthread_cond_destroy(&gn.cv_work);
	pthread_cond_destroy(&gn.cv_done);
	return 0;
}
