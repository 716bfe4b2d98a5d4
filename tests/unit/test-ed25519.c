// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for src/lib/openpgp/ed25519.c: the RFC 8032 7.1 vectors, public keys
 * and signatures byte-identical to libgcrypt's, and verdicts equal to
 * gcry_pk_verify's for random, corrupted and crafted inputs (S >= L, keys
 * and R with y >= p, x = 0 with the sign bit, small-order keys and keys with
 * a small-order component).
 *
 * The source is included (not linked from libksp.a) so that the crafted
 * inputs can be made with its internal point arithmetic; the verdicts they
 * are judged by are libgcrypt's.  libgcrypt 1.10 aborts the process for some
 * public keys (ones with a small coordinate, e.g. the identity), so crafted
 * inputs go to it in a child process; an abort counts as "not good".
 *
 * KSP_VALGRIND=1 scales the counts down.  The random seed is printed;
 * KSP_ED25519_SEED=N repeats a run. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <gcrypt.h>

#include "lib/openpgp/ed25519.c"
#include "harness.h"

static void init(void)
{
	if (!gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
		gcry_check_version(NULL);
		gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
		gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	}
	ts_rnd_seed("KSP_ED25519_SEED");
}

static void unhex(const char *h, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(h + 2 * i, "%2x", &v) != 1)
			abort();
		out[i] = (uint8_t)v;
	}
}

/* ---- libgcrypt's answers -------------------------------------------------- */

/* 1 good, 0 not */
static int gcry_verify(const uint8_t pub[32], const uint8_t *msg, size_t len, const uint8_t sig[64])
{
	gcry_sexp_t k = NULL, d = NULL, s = NULL;
	int r;

	if (gcry_sexp_build(&k, NULL, "(public-key(ecc(curve Ed25519)(flags eddsa)(q %b)))", 32, pub) ||
	    gcry_sexp_build(&d, NULL, "(data(flags eddsa)(hash-algo sha512)(value %b))", (int)len, msg) ||
	    gcry_sexp_build(&s, NULL, "(sig-val(eddsa(r %b)(s %b)))", 32, sig, 32, sig + 32))
		abort();
	r = gcry_pk_verify(s, d, k) == 0;
	gcry_sexp_release(k);
	gcry_sexp_release(d);
	gcry_sexp_release(s);
	return r;
}

/* the same in a child: 1 good, 0 not, -1 libgcrypt aborted */
static int gcry_verify_safe(const uint8_t pub[32], const uint8_t *msg, size_t len, const uint8_t sig[64])
{
	pid_t pid;
	int st;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		/* libgcrypt's abort message is expected here */
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(3);
		_exit(gcry_verify(pub, msg, len, sig) ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) < 0)
		abort();
	return WIFEXITED(st) && WEXITSTATUS(st) <= 1 ? WEXITSTATUS(st) : -1;
}

/* libgcrypt's signature; q NULL: libgcrypt computes the public key */
static void gcry_sign(const uint8_t seed[32], const uint8_t *q, const uint8_t *msg, size_t len, uint8_t sig[64])
{
	gcry_sexp_t k = NULL, d = NULL, s = NULL, r = NULL, ss = NULL;
	const void *b;
	size_t n;

	if ((q ? gcry_sexp_build(&k, NULL, "(private-key(ecc(curve Ed25519)(flags eddsa)(q %b)(d %b)))", 32, q,
				 32, seed)
	       : gcry_sexp_build(&k, NULL, "(private-key(ecc(curve Ed25519)(flags eddsa)(d %b)))", 32, seed)) ||
	    gcry_sexp_build(&d, NULL, "(data(flags eddsa)(hash-algo sha512)(value %b))", (int)len, msg) ||
	    gcry_pk_sign(&s, d, k))
		abort();
	r = gcry_sexp_find_token(s, "r", 0);
	ss = gcry_sexp_find_token(s, "s", 0);
	if (r == NULL || ss == NULL)
		abort();
	b = gcry_sexp_nth_data(r, 1, &n);
	if (b == NULL || n != 32)
		abort();
	memcpy(sig, b, 32);
	b = gcry_sexp_nth_data(ss, 1, &n);
	if (b == NULL || n != 32)
		abort();
	memcpy(sig + 32, b, 32);
	gcry_sexp_release(r);
	gcry_sexp_release(ss);
	gcry_sexp_release(s);
	gcry_sexp_release(d);
	gcry_sexp_release(k);
}

/* libgcrypt's public key of a seed */
static void gcry_public(const uint8_t seed[32], uint8_t pub[32])
{
	gcry_sexp_t k = NULL;
	gcry_ctx_t ctx = NULL;
	gcry_mpi_t q;
	const void *b;
	unsigned nbits;

	if (gcry_sexp_build(&k, NULL, "(private-key(ecc(curve Ed25519)(flags eddsa)(d %b)))", 32, seed) ||
	    gcry_mpi_ec_new(&ctx, k, NULL))
		abort();
	q = gcry_mpi_ec_get_mpi("q@eddsa", ctx, 1);
	if (q == NULL || (b = gcry_mpi_get_opaque(q, &nbits)) == NULL || nbits != 256)
		abort();
	memcpy(pub, b, 32);
	gcry_mpi_release(q);
	gcry_ctx_release(ctx);
	gcry_sexp_release(k);
}

/* ---- ours ----------------------------------------------------------------- */

/* ksp_ed25519_verify_x8() with (p, msg, len, sig) in one lane and good
 * signatures by another key in the others: the verdict in that lane, or 2
 * when a good one in another lane was refused (-1: not on this CPU) */
static int x8_verify(const struct ksp_ed25519_pub *p, const uint8_t *msg, size_t len, const uint8_t sig[64])
{
	static const uint8_t fseed[32] = { 7, 7, 7 }, fmsg[3] = { 'k', 's', 'p' };
	struct ksp_ed25519_pub fp;
	const struct ksp_ed25519_pub *pubs[8];
	const uint8_t *msgs[8], *sigs[8];
	size_t lens[8];
	uint8_t fpub[32], fsig[64];
	int res[8], lane = (int)(ts_rnd() % 8);

	if (!ksp_ed25519_x8_usable())
		return -1;
	ksp_ed25519_public(fseed, fpub);
	ksp_ed25519_sign(fseed, fpub, fmsg, sizeof(fmsg), fsig);
	if (ksp_ed25519_pub_init(&fp, fpub) != 0)
		return 2;
	for (int i = 0; i < 8; i++) {
		pubs[i] = &fp;
		msgs[i] = fmsg;
		lens[i] = sizeof(fmsg);
		sigs[i] = fsig;
	}
	pubs[lane] = p;
	msgs[lane] = msg;
	lens[lane] = len;
	sigs[lane] = sig;
	ksp_ed25519_verify_x8(pubs, msgs, lens, sigs, res);
	for (int i = 0; i < 8; i++)
		if (i != lane && res[i] != 1)
			return 2;
	return res[lane];
}

/* ksp_ed25519_pub_init_x8() with @pub in a random lane and random octets
 * (mostly refused) or keys in the others: true when a lane's answer or
 * compact key is not ksp_ed25519_pub_init()'s (false where there is no
 * AVX-512 IFMA) */
static bool x8_pub_init_differs(const uint8_t pub[32])
{
	struct ksp_ed25519_pub pp[8], one, *ptr[8];
	const uint8_t *in[8];
	uint8_t other[8][32];
	int res[8], lane = (int)(ts_rnd() % 8);

	if (!ksp_ed25519_x8_usable())
		return false;
	for (int i = 0; i < 8; i++) {
		ts_rnd_bytes(other[i], 32);
		if (ts_rnd() % 2)
			ksp_ed25519_public(other[i], other[i]);
		in[i] = other[i];
		ptr[i] = &pp[i];
	}
	in[lane] = pub;
	ksp_ed25519_pub_init_x8(ptr, in, res);
	for (int i = 0; i < 8; i++) {
		int r = ksp_ed25519_pub_init(&one, in[i]);

		if (r != res[i] || memcmp(&one, &pp[i], sizeof(one)) != 0) {
			fprintf(stderr, "pub_init_x8: lane %d: %d, one at a time %d\n", i, res[i], r);
			return true;
		}
	}
	return false;
}

/* 1 good, 0 not (a key we refuse verifies nothing); 2 when the compact key
 * (ksp_ed25519_pub), with or without tables made from it, or the eight-lane
 * verification disagrees */
static int our_verify(const uint8_t pub[32], const uint8_t *msg, size_t len, const uint8_t sig[64])
{
	struct ksp_ed25519_key *k, *k2;
	struct ksp_ed25519_pub p;
	int r, rp, rt, r8;

	if (x8_pub_init_differs(pub))
		return 2;
	if (ksp_ed25519_key_new(pub, &k) < 0)
		return ksp_ed25519_pub_init(&p, pub) == -EINVAL ? 0 : 2;
	r = ksp_ed25519_verify(k, msg, len, sig);
	ksp_ed25519_key_free(k);
	if (ksp_ed25519_pub_init(&p, pub) != 0 || ksp_ed25519_key_from_pub(&p, &k2) != 0)
		return 2;
	rp = ksp_ed25519_verify_pub(&p, msg, len, sig);
	rt = ksp_ed25519_verify(k2, msg, len, sig);
	ksp_ed25519_key_free(k2);
	r8 = x8_verify(&p, msg, len, sig);
	if (rp != r || rt != r || (r8 >= 0 && r8 != r)) {
		fprintf(stderr, "our_verify: tables %d, compact %d, tables from compact %d, x8 %d\n", r, rp, rt, r8);
		return 2;
	}
	return r;
}

/* ---- crafting, with the internal arithmetic -------------------------------- */

static void enc(uint8_t s[32], const struct p3 *p)
{
	point_tobytes(s, &p->X, &p->Y, &p->Z);
}

static void p3_plus(struct p3 *r, const struct p3 *a, const struct p3 *b)
{
	struct cached c;
	struct p1 t;

	p3_to_cached(&c, b);
	p3_add(&t, a, &c);
	p1_to_p3(r, &t);
}

static void p3_negate(struct p3 *r, const struct p3 *a)
{
	*r = *a;
	fe_neg(&r->X, &a->X);
	fe_neg(&r->T, &a->T);
}

/* [k]P, k = 32 little-endian octets, by double-and-add */
static void p3_mul(struct p3 *r, const uint8_t k[32], const struct p3 *p)
{
	struct p3 acc;

	p3_identity(&acc);
	for (int bit = 255; bit >= 0; bit--) {
		struct p1 t;

		p3_dbl(&t, &acc);
		p1_to_p3(&acc, &t);
		if ((k[bit / 8] >> (bit % 8)) & 1)
			p3_plus(&acc, &acc, p);
	}
	*r = acc;
}

/* [s mod L]B for any 32-octet s */
static void base_mul_any(struct p3 *r, const uint8_t s[32])
{
	uint64_t x[8] = { 0 }, m[4];
	uint8_t b[32];

	for (int i = 0; i < 4; i++)
		x[i] = load64_le(s + 8 * i);
	sc_reduce(m, x);
	sc_tobytes(b, m);
	base_mul(r, b);
}

/* the points of order 1, 2, 4 and 8 (the torsion subgroup): [L]P for points P
 * until all 8 are found */
static int small_order_points(struct p3 T[8])
{
	uint8_t seen[8][32], lb[32], y[32];
	int n = 0;

	sc_tobytes(lb, SC_L);
	for (unsigned i = 0; n < 8 && i < 10000; i++) {
		struct p3 p, t;
		uint8_t e[32];
		bool dup = false;

		ts_rnd_bytes(y, 32);
		y[31] &= 0x7f;
		if (point_decode(&p, y) < 0)
			continue;
		p3_mul(&t, lb, &p);
		enc(e, &t);
		for (int j = 0; j < n; j++)
			dup |= memcmp(seen[j], e, 32) == 0;
		if (!dup) {
			memcpy(seen[n], e, 32);
			T[n++] = t;
		}
	}
	return n;
}

/* ---- the tests ------------------------------------------------------------ */

static const struct {
	const char *seed, *pub, *msg, *sig;
} rfc8032[] = {
	/* RFC 8032 7.1, TEST 1 */
	{ "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
	  "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
	  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
	  "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b" },
	/* TEST 2 */
	{ "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
	  "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
	  "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
	  "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00" },
	/* TEST 3 */
	{ "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
	  "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
	  "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
	  "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a" },
};

static int test_rfc8032(void)
{
	init();
	for (size_t t = 0; t < sizeof(rfc8032) / sizeof(rfc8032[0]); t++) {
		uint8_t seed[32], pub[32], msg[8], sig[64], mine[64], p2[32];
		size_t ml = strlen(rfc8032[t].msg) / 2;
		struct ksp_ed25519_key *k;

		unhex(rfc8032[t].seed, seed, 32);
		unhex(rfc8032[t].pub, pub, 32);
		unhex(rfc8032[t].msg, msg, ml);
		unhex(rfc8032[t].sig, sig, 64);
		ksp_ed25519_public(seed, p2);
		TS_ASSERT(memcmp(p2, pub, 32) == 0);
		ksp_ed25519_sign(seed, pub, msg, ml, mine);
		TS_ASSERT(memcmp(mine, sig, 64) == 0);
		ksp_ed25519_sign(seed, NULL, msg, ml, mine);
		TS_ASSERT(memcmp(mine, sig, 64) == 0);
		TS_ASSERT_INT_EQ(ksp_ed25519_key_new(pub, &k), 0);
		TS_ASSERT_INT_EQ(ksp_ed25519_verify(k, msg, ml, sig), 1);
		sig[63] ^= 0x01;
		TS_ASSERT_INT_EQ(ksp_ed25519_verify(k, msg, ml, sig), 0);
		sig[63] ^= 0x01;
		TS_ASSERT_INT_EQ(gcry_verify(pub, msg, ml, sig), 1);
		if (ml > 0) {
			msg[0] ^= 0x80;
			TS_ASSERT_INT_EQ(ksp_ed25519_verify(k, msg, ml, sig), 0);
		}
		ksp_ed25519_key_free(k);
	}
	return 0;
}
DEFINE_TEST(test_rfc8032, "RFC 8032 7.1 tests 1-3: public keys, signatures, verification");

static int test_like_gcrypt(void)
{
	int n = ts_slow() ? 8 : 150;

	init();
	for (int i = 0; i < n; i++) {
		uint8_t seed[32], pub[32], gpub[32], msg[300], sig[64], gsig[64];
		size_t len = 1 + ts_rnd() % (i % 4 == 0 ? sizeof(msg) : 64);
		struct ksp_ed25519_key *k;

		ts_rnd_bytes(seed, 32);
		if (i < 4)
			memset(seed, i == 0 ? 0 : 0xff, i < 2 ? 32 : 16); /* leading zeros, all ones */
		ts_rnd_bytes(msg, len);
		ksp_ed25519_public(seed, pub);
		gcry_public(seed, gpub);
		TS_ASSERT(memcmp(pub, gpub, 32) == 0);
		ksp_ed25519_sign(seed, pub, msg, len, sig);
		gcry_sign(seed, pub, msg, len, gsig);
		TS_ASSERT(memcmp(sig, gsig, 64) == 0);
		if (i % 8 == 0) {
			gcry_sign(seed, NULL, msg, len, gsig);
			TS_ASSERT(memcmp(sig, gsig, 64) == 0);
		}
		TS_ASSERT_INT_EQ(ksp_ed25519_key_new(pub, &k), 0);
		TS_ASSERT_INT_EQ(ksp_ed25519_verify(k, msg, len, sig), 1);
		TS_ASSERT_INT_EQ(gcry_verify(pub, msg, len, sig), 1);
		TS_ASSERT_INT_EQ(our_verify(pub, msg, len, sig), 1);
		/* another message, another length, with the same key */
		TS_ASSERT_INT_EQ(ksp_ed25519_verify(k, msg, len - 1, sig), 0);
		TS_ASSERT_INT_EQ(our_verify(pub, msg, len - 1, sig), 0);
		ksp_ed25519_key_free(k);
	}
	return 0;
}
DEFINE_TEST(test_like_gcrypt, "random seeds and messages: public keys and signatures are libgcrypt's");

static int test_bit_flips(void)
{
	uint8_t seed[32], pub[32], msg[32], sig[64];
	struct ksp_ed25519_key *k;
	int step = ts_slow() ? 17 : 1, keys_refused = 0;

	init();
	ts_rnd_bytes(seed, 32);
	ts_rnd_bytes(msg, 32);
	ksp_ed25519_public(seed, pub);
	ksp_ed25519_sign(seed, pub, msg, 32, sig);
	TS_ASSERT_INT_EQ(ksp_ed25519_key_new(pub, &k), 0);
	for (int b = 0; b < 512; b += step) {
		sig[b / 8] ^= (uint8_t)(1 << (b % 8));
		TS_ASSERT_INT_EQ(ksp_ed25519_verify(k, msg, 32, sig), 0);
		TS_ASSERT_INT_EQ(our_verify(pub, msg, 32, sig), 0);
		TS_ASSERT_INT_EQ(gcry_verify(pub, msg, 32, sig), 0);
		sig[b / 8] ^= (uint8_t)(1 << (b % 8));
	}
	for (int b = 0; b < 256; b += step) {
		msg[b / 8] ^= (uint8_t)(1 << (b % 8));
		TS_ASSERT_INT_EQ(ksp_ed25519_verify(k, msg, 32, sig), 0);
		msg[b / 8] ^= (uint8_t)(1 << (b % 8));
	}
	ksp_ed25519_key_free(k);
	for (int b = 0; b < 256; b += step) {
		struct ksp_ed25519_key *k2;
		int r;

		pub[b / 8] ^= (uint8_t)(1 << (b % 8));
		TS_ASSERT(!x8_pub_init_differs(pub));
		r = ksp_ed25519_key_new(pub, &k2);
		if (r < 0) {
			TS_ASSERT_INT_EQ(r, -EINVAL);
			keys_refused++;
		} else {
			TS_ASSERT_INT_EQ(ksp_ed25519_verify(k2, msg, 32, sig), 0);
			ksp_ed25519_key_free(k2);
		}
		TS_ASSERT_INT_EQ(gcry_verify(pub, msg, 32, sig), 0);
		pub[b / 8] ^= (uint8_t)(1 << (b % 8));
	}
	/* about half of all y are not on the curve */
	TS_ASSERT(ts_slow() || (keys_refused > 64 && keys_refused < 192));
	return 0;
}
DEFINE_TEST(test_bit_flips, "every flipped bit of signature, message or key is refused, as by libgcrypt");

static int test_big_s(void)
{
	uint8_t seed[32], pub[32], msg[32], sig[64], s2[64];
	int n = ts_slow() ? 2 : 10;

	init();
	for (int i = 0; i < n; i++) {
		ts_rnd_bytes(seed, 32);
		ts_rnd_bytes(msg, 32);
		ksp_ed25519_public(seed, pub);
		ksp_ed25519_sign(seed, pub, msg, 32, sig);
		/* S + kL for every k that fits in 256 bits: libgcrypt accepts these */
		for (unsigned kk = 1;; kk++) {
			u128 c = 0;

			memcpy(s2, sig, 32);
			for (int w = 0; w < 4; w++) {
				c += (u128)load64_le(sig + 32 + 8 * w) + (u128)SC_L[w] * kk;
				store64_le(s2 + 32 + 8 * w, (uint64_t)c);
				c >>= 64;
			}
			if (c != 0)
				break;
			TS_ASSERT_INT_EQ(gcry_verify(pub, msg, 32, s2), 1);
			TS_ASSERT_INT_EQ(our_verify(pub, msg, 32, s2), 1);
			TS_ASSERT(kk < 16);
		}
		/* S = L, L + 1, 2^256 - 1, random: not good, by either */
		for (int v = 0; v < 4; v++) {
			memcpy(s2, sig, 32);
			if (v == 0 || v == 1) {
				sc_tobytes(s2 + 32, SC_L);
				s2[32] = (uint8_t)(s2[32] + v);
			} else if (v == 2) {
				memset(s2 + 32, 0xff, 32);
			} else {
				ts_rnd_bytes(s2 + 32, 32);
			}
			TS_ASSERT_INT_EQ(our_verify(pub, msg, 32, s2), gcry_verify(pub, msg, 32, s2));
			TS_ASSERT_INT_EQ(our_verify(pub, msg, 32, s2), 0);
		}
	}
	return 0;
}
DEFINE_TEST(test_big_s, "S + kL (S >= L) is accepted and other S refused, as by libgcrypt");

/* for key @pub (which must decode), signatures (R, S) with R = [S]B - T for
 * every small-order T and random S, and (identity, L): a few are good;
 * our verdicts must be libgcrypt's */
static int crafted_sigs(const uint8_t pub[32], const struct p3 T[8], int rounds, int *good, int *total)
{
	uint8_t msg[32], sig[64];

	for (int r = 0; r < rounds; r++) {
		struct p3 sb, p, mt;

		ts_rnd_bytes(msg, 32);
		ts_rnd_bytes(sig + 32, 32);
		base_mul_any(&sb, sig + 32);
		for (int t = 0; t < 8; t++) {
			int g, o;

			p3_negate(&mt, &T[t]);
			p3_plus(&p, &sb, &mt);
			enc(sig, &p);
			g = gcry_verify_safe(pub, msg, 32, sig);
			o = our_verify(pub, msg, 32, sig);
			if (g < 0)
				g = 0;
			if (g != o)
				fprintf(stderr, "disagree: round %d, torsion %d: libgcrypt %d, ours %d\n", r, t, g, o);
			TS_ASSERT_INT_EQ(o, g);
			*good += g;
			(*total)++;
		}
		/* R = identity (y = 1), S = L: good iff [k]A = identity */
		memset(sig, 0, 32);
		sig[0] = 1;
		sc_tobytes(sig + 32, SC_L);
		TS_ASSERT_INT_EQ(our_verify(pub, msg, 32, sig), gcry_verify_safe(pub, msg, 32, sig) == 1);
		/* the same R with the sign bit (x = 0): never */
		sig[31] = 0x80;
		TS_ASSERT_INT_EQ(our_verify(pub, msg, 32, sig), 0);
		TS_ASSERT(gcry_verify_safe(pub, msg, 32, sig) != 1);
	}
	return 0;
}

static int test_small_order_keys(void)
{
	struct p3 T[8];
	int rounds = ts_slow() ? 1 : 4, good = 0, total = 0, order8 = 0;
	uint8_t last8[32];

	init();
	TS_ASSERT_INT_EQ(small_order_points(T), 8);
	for (int t = 0; t < 8; t++) {
		uint8_t pub[32];
		struct ksp_ed25519_key *k;

		enc(pub, &T[t]);
		if (ksp_ed25519_key_new(pub, &k) < 0) {
			/* identity, (0, -1) and the two of order 4 (y = 0): libgcrypt
			 * refuses or aborts; so do we, for every signature */
			uint8_t msg[32], sig[64];
			struct p3 p;
			bool x0 = (pub[0] == 1 || pub[0] == 0xec) && pub[1] == (pub[0] == 1 ? 0 : 0xff);

			TS_ASSERT(x0 || (pub[0] == 0 && pub[1] == 0));
			ts_rnd_bytes(msg, 32);
			ts_rnd_bytes(sig + 32, 32);
			base_mul_any(&p, sig + 32);
			enc(sig, &p);
			TS_ASSERT(gcry_verify_safe(pub, msg, 32, sig) != 1);
			continue;
		}
		ksp_ed25519_key_free(k);
		/* the four of order 8 (two under valgrind) */
		if (ts_slow() && order8 >= 2)
			continue;
		order8++;
		memcpy(last8, pub, 32);
		TS_ASSERT(crafted_sigs(pub, T, rounds, &good, &total) == 0);
	}
	/* about an eighth are good: with few rounds (valgrind) there may be
	 * none yet; more rounds until there is one (P(none in 400) ~ 1e-23) */
	while (order8 > 0 && (good == 0 || good == total) && total < 400)
		TS_ASSERT(crafted_sigs(last8, T, 1, &good, &total) == 0);
	fprintf(stderr, "crafted signatures by keys of order 8: %d of %d good\n", good, total);
	TS_ASSERT(total > 0 && good > 0 && good < total);
	return 0;
}
DEFINE_TEST(test_small_order_keys, "keys of small order: refused where libgcrypt refuses, else its verdicts");

static int test_torsion_component(void)
{
	struct p3 T[8];
	int n = ts_slow() ? 3 : 40, good = 0, total = 0;
	uint8_t seed[32], pub[32], msg[32], sig[64];
	struct p3 a;

	init();
	TS_ASSERT_INT_EQ(small_order_points(T), 8);
	ts_rnd_bytes(seed, 32);
	ksp_ed25519_public(seed, pub);
	TS_ASSERT_INT_EQ(point_decode(&a, pub), 0);
	for (int t = 0; t < 8; t += ts_slow() ? 2 : 1) {
		struct p3 at;
		uint8_t q[32];

		/* A + T: libgcrypt signs with it as if it were the key of the
		 * seed; the signature is good iff [k]T is the identity, with k
		 * the whole hash (not k mod L) */
		p3_plus(&at, &a, &T[t]);
		enc(q, &at);
		for (int i = 0; i < n; i++) {
			int g, o;

			ts_rnd_bytes(msg, 32);
			gcry_sign(seed, q, msg, 32, sig);
			g = gcry_verify_safe(q, msg, 32, sig);
			o = our_verify(q, msg, 32, sig);
			TS_ASSERT_INT_EQ(o, g < 0 ? 0 : g);
			good += o;
			total++;
		}
	}
	/* good with probability 1/ord(T): with few rounds (valgrind: 12) all
	 * may be bad, or all good; more, over every T, until both are seen
	 * (P(not in 2000) < 1e-100) */
	for (int i = 0; (good == 0 || good == total) && total < 2000; i++) {
		struct p3 at;
		uint8_t q[32];
		int g, o;

		p3_plus(&at, &a, &T[i % 8]);
		enc(q, &at);
		ts_rnd_bytes(msg, 32);
		gcry_sign(seed, q, msg, 32, sig);
		g = gcry_verify_safe(q, msg, 32, sig);
		o = our_verify(q, msg, 32, sig);
		TS_ASSERT_INT_EQ(o, g < 0 ? 0 : g);
		good += o;
		total++;
	}
	fprintf(stderr, "libgcrypt's signatures by keys A + T: %d of %d good\n", good, total);
	TS_ASSERT(good > 0 && good < total);
	/* and crafted signatures (not good: [k]A is not small) with such keys */
	for (int t = 0; t < 8; t += ts_slow() ? 7 : 3) {
		struct p3 at;
		uint8_t q[32];

		p3_plus(&at, &a, &T[t]);
		enc(q, &at);
		good = total = 0;
		TS_ASSERT(crafted_sigs(q, T, 1, &good, &total) == 0);
	}
	return 0;
}
DEFINE_TEST(test_torsion_component, "keys A + T (T of small order): libgcrypt's verdicts");

static int test_noncanonical(void)
{
	uint8_t pub[32], msg[32] = { 0 }, sig[64], seed[32];
	struct p3 p;

	init();
	/* public keys with y >= p (y = p + i), and x = 0 with the sign bit */
	for (int i = 0; i < 19; i += ts_slow() ? 5 : 1)
		for (int sign = 0; sign < 2; sign++) {
			struct ksp_ed25519_key *k;

			memset(pub, 0xff, 32);
			pub[0] = (uint8_t)(0xed + i);
			pub[31] = sign ? 0xff : 0x7f;
			TS_ASSERT_INT_EQ(ksp_ed25519_key_new(pub, &k), -EINVAL);
			TS_ASSERT(!x8_pub_init_differs(pub));
			ts_rnd_bytes(sig + 32, 32);
			base_mul_any(&p, sig + 32);
			enc(sig, &p);
			TS_ASSERT(gcry_verify_safe(pub, msg, 32, sig) != 1);
		}
	for (int v = 0; v < 6; v++) {
		struct ksp_ed25519_key *k;

		/* y = 0, 1, p - 1 with and without the sign bit */
		memset(pub, 0, 32);
		if (v / 2 == 1)
			pub[0] = 1;
		if (v / 2 == 2) {
			memset(pub, 0xff, 32);
			pub[0] = 0xec;
			pub[31] = 0x7f;
		}
		if (v % 2)
			pub[31] |= 0x80;
		TS_ASSERT_INT_EQ(ksp_ed25519_key_new(pub, &k), -EINVAL);
		TS_ASSERT(!x8_pub_init_differs(pub));
		memset(sig, 0, 32);
		sig[0] = 1;
		memset(sig + 32, 0, 32);
		TS_ASSERT(gcry_verify_safe(pub, msg, 32, sig) != 1);
	}
	/* R with y >= p, and R = a good R with the sign bit flipped where x = 0
	 * is impossible: never good */
	ts_rnd_bytes(seed, 32);
	ksp_ed25519_public(seed, pub);
	for (int i = 0; i < 19; i++) {
		ksp_ed25519_sign(seed, pub, msg, 32, sig);
		memset(sig, 0xff, 32);
		sig[0] = (uint8_t)(0xed + i);
		sig[31] = (i & 1) ? 0xff : 0x7f;
		TS_ASSERT_INT_EQ(our_verify(pub, msg, 32, sig), 0);
		TS_ASSERT_INT_EQ(gcry_verify(pub, msg, 32, sig), 0);
	}
	/* a decodable key is used as it is: the RFC 8032 key of test 1 */
	unhex(rfc8032[0].pub, pub, 32);
	TS_ASSERT_INT_EQ(point_decode(&p, pub), 0);
	{
		uint8_t e[32];

		enc(e, &p);
		TS_ASSERT(memcmp(e, pub, 32) == 0);
	}
	return 0;
}
DEFINE_TEST(test_noncanonical, "keys and R with y >= p or x = 0 and the sign bit are never good");

static int test_scalar_reduce(void)
{
	int n = ts_slow() ? 200 : 5000;

	init();
	/* sc_reduce against gcry_mpi_mod, sc_muladd against gcry_mpi_mulm */
	for (int i = 0; i < n; i++) {
		uint8_t b[64], be[64], out[32], want[32];
		uint64_t x[8], r[4], a4[4], b4[4], c4[4];
		gcry_mpi_t mx, ml, mr;
		size_t w;

		ts_rnd_bytes(b, 64);
		if (i % 5 == 1)
			memset(b + 32, 0, 32);
		if (i % 5 == 2)
			memset(b, 0xff, 64);
		if (i % 5 == 3) { /* just below or at a multiple of L */
			uint64_t l[4];
			memcpy(l, SC_L, sizeof(l));
			memset(b, 0, 64);
			sc_tobytes(b, l);
			b[0] = (uint8_t)(b[0] - (i % 3));
		}
		sc_from64(x, b);
		sc_reduce(r, x);
		sc_tobytes(out, r);
		for (int j = 0; j < 64; j++)
			be[j] = b[63 - j];
		sc_tobytes(want, SC_L);
		for (int j = 0; j < 16; j++) {
			uint8_t t = want[j];
			want[j] = want[31 - j];
			want[31 - j] = t;
		}
		if (gcry_mpi_scan(&mx, GCRYMPI_FMT_USG, be, 64, NULL) ||
		    gcry_mpi_scan(&ml, GCRYMPI_FMT_USG, want, 32, NULL))
			abort();
		mr = gcry_mpi_new(0);
		gcry_mpi_mod(mr, mx, ml);
		memset(want, 0, 32);
		if (gcry_mpi_print(GCRYMPI_FMT_USG, be, 32, &w, mr))
			abort();
		for (size_t j = 0; j < w; j++)
			want[j] = be[w - 1 - j];
		TS_ASSERT(memcmp(out, want, 32) == 0);
		/* (a b + c) mod L for a, b, c < 2^256 */
		for (int j = 0; j < 4; j++) {
			a4[j] = x[j];
			b4[j] = x[4 + j];
			c4[j] = ts_rnd();
		}
		sc_muladd(r, a4, b4, c4);
		{
			gcry_mpi_t ma, mb, mc;
			uint8_t t[32];

			for (int j = 0; j < 32; j++)
				t[j] = b[31 - j];
			gcry_mpi_scan(&ma, GCRYMPI_FMT_USG, t, 32, NULL);
			for (int j = 0; j < 32; j++)
				t[j] = b[63 - j];
			gcry_mpi_scan(&mb, GCRYMPI_FMT_USG, t, 32, NULL);
			sc_tobytes(t, c4);
			for (int j = 0; j < 16; j++) {
				uint8_t u = t[j];
				t[j] = t[31 - j];
				t[31 - j] = u;
			}
			gcry_mpi_scan(&mc, GCRYMPI_FMT_USG, t, 32, NULL);
			gcry_mpi_mul(mr, ma, mb);
			gcry_mpi_add(mr, mr, mc);
			gcry_mpi_mod(mr, mr, ml);
			memset(want, 0, 32);
			if (gcry_mpi_print(GCRYMPI_FMT_USG, be, 32, &w, mr))
				abort();
			for (size_t j = 0; j < w; j++)
				want[j] = be[w - 1 - j];
			sc_tobytes(out, r);
			TS_ASSERT(memcmp(out, want, 32) == 0);
			gcry_mpi_release(ma);
			gcry_mpi_release(mb);
			gcry_mpi_release(mc);
		}
		gcry_mpi_release(mx);
		gcry_mpi_release(ml);
		gcry_mpi_release(mr);
	}
	return 0;
}
DEFINE_TEST(test_scalar_reduce, "reduction mod L and (ab + c) mod L equal libgcrypt's MPI results");

/* eight lanes at once: every lane's verdict is the one-at-a-time verdict,
 * whatever the other lanes hold (keys, good and bad signatures, lengths) */
static int test_x8_lanes(void)
{
	int rounds = ts_slow() ? 4 : 200, good = 0, bad = 0;
	struct ksp_ed25519_pub pubs[8];

	init();
	if (!ksp_ed25519_x8_usable()) {
		fprintf(stderr, "x8: this CPU has no AVX-512 IFMA: the one-at-a-time verification is used\n");
		return 0;
	}
	for (int r = 0; r < rounds; r++) {
		const struct ksp_ed25519_pub *pp[8];
		const uint8_t *mp[8], *sp[8];
		uint8_t seeds[8][32], enc[8][32], msgs[8][200], sigs[8][64];
		size_t lens[8];
		int res[8];

		for (int i = 0; i < 8; i++) {
			/* some lanes share a key */
			int from = (r % 3 == 0 && i > 0) ? (int)(ts_rnd() % (unsigned)i) : i;

			if (from == i) {
				ts_rnd_bytes(seeds[i], 32);
				ksp_ed25519_public(seeds[i], enc[i]);
				TS_ASSERT_INT_EQ(ksp_ed25519_pub_init(&pubs[i], enc[i]), 0);
			} else {
				memcpy(seeds[i], seeds[from], 32);
				memcpy(enc[i], enc[from], 32);
				pubs[i] = pubs[from];
			}
			lens[i] = ts_rnd() % sizeof(msgs[i]);
			ts_rnd_bytes(msgs[i], lens[i]);
			ksp_ed25519_sign(seeds[i], enc[i], msgs[i], lens[i], sigs[i]);
			switch (ts_rnd() % 6) {
			case 0: /* a flipped bit of R, S or the message */
				sigs[i][ts_rnd() % 64] ^= (uint8_t)(1 << ts_rnd() % 8);
				break;
			case 1:
				if (lens[i] > 0)
					msgs[i][ts_rnd() % lens[i]] ^= 0x10;
				break;
			case 2: /* S + L: still good */
			{
				u128 c = 0;
				for (int w = 0; w < 4; w++) {
					c += (u128)load64_le(sigs[i] + 32 + 8 * w) + SC_L[w];
					store64_le(sigs[i] + 32 + 8 * w, (uint64_t)c);
					c >>= 64;
				}
				break;
			}
			default:
				break;
			}
			pp[i] = &pubs[i];
			mp[i] = msgs[i];
			sp[i] = sigs[i];
		}
		ksp_ed25519_verify_x8(pp, mp, lens, sp, res);
		for (int i = 0; i < 8; i++) {
			int one = ksp_ed25519_verify_pub(pp[i], mp[i], lens[i], sp[i]);

			TS_ASSERT_INT_EQ(res[i], one);
			if (one)
				good++;
			else
				bad++;
		}
	}
	fprintf(stderr, "x8: %d good, %d bad, every lane as one at a time\n", good, bad);
	TS_ASSERT(good > 0 && bad > 0);
	return 0;
}
DEFINE_TEST(test_x8_lanes, "eight lanes at once give the one-at-a-time verdicts");

/* keys prepared eight at a time: random octets (about half are points),
 * keys of seeds, every small-order point: ksp_ed25519_pub_init()'s answers */
static int test_x8_pub_init(void)
{
	int rounds = ts_slow() ? 4 : 300, ok = 0, refused = 0;
	struct p3 T[8];

	init();
	if (!ksp_ed25519_x8_usable()) {
		fprintf(stderr, "x8: this CPU has no AVX-512 IFMA: keys are prepared one at a time\n");
		return 0;
	}
	TS_ASSERT_INT_EQ(small_order_points(T), 8);
	for (int r = 0; r < rounds; r++) {
		struct ksp_ed25519_pub pp[8], one, *ptr[8];
		const uint8_t *in[8];
		uint8_t keys[8][32];
		int res[8];

		for (int i = 0; i < 8; i++) {
			ts_rnd_bytes(keys[i], 32);
			switch (ts_rnd() % 4) {
			case 0:
				ksp_ed25519_public(keys[i], keys[i]);
				break;
			case 1:
				enc(keys[i], &T[ts_rnd() % 8]);
				break;
			default:
				break;
			}
			in[i] = keys[i];
			ptr[i] = &pp[i];
		}
		ksp_ed25519_pub_init_x8(ptr, in, res);
		for (int i = 0; i < 8; i++) {
			TS_ASSERT_INT_EQ(res[i], ksp_ed25519_pub_init(&one, in[i]));
			TS_ASSERT(memcmp(&one, &pp[i], sizeof(one)) == 0);
			if (res[i] == 0)
				ok++;
			else
				refused++;
		}
	}
	fprintf(stderr, "x8 keys: %d prepared, %d refused, every lane as one at a time\n", ok, refused);
	TS_ASSERT(ok > 0 && refused > 0);
	return 0;
}
DEFINE_TEST(test_x8_pub_init, "keys prepared eight at a time as one at a time");
