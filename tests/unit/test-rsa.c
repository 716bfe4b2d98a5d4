// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for src/lib/openpgp/pgp-rsa.c: s^e mod n against gcry_mpi_powm, and
 * PKCS#1 v1.5 verdicts against gcry_pk_verify, for every implementation
 * this CPU has (portable; AVX-512 IFMA, not under valgrind).
 *
 * Signing keys are multi-prime (n = product of 256-bit primes, d = e^-1 mod
 * phi(n)): as good as two-prime keys for verification, and much faster to
 * make.  KSP_VALGRIND=1 scales the counts down.  The random seed is
 * printed; KSP_RSA_SEED=N repeats a run. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gcrypt.h>

#include "lib/openpgp/pgp-rsa.h"
#include "shared/macro.h"
#include "harness.h"

#define MAXB 1100 /* octets: 8192-bit n, plus room for longer s */

static void init(void)
{
	if (!gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
		gcry_check_version(NULL);
		gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
		gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	}
	ts_rnd_seed("KSP_RSA_SEED");
}

static gcry_mpi_t mpi_of(const uint8_t *b, size_t n)
{
	gcry_mpi_t m = NULL;

	if (gcry_mpi_scan(&m, GCRYMPI_FMT_USG, b, n, NULL))
		abort();
	return m;
}

/* big-endian, left-padded to exactly n octets; false if it does not fit */
static bool bytes_of(gcry_mpi_t m, uint8_t *b, size_t n)
{
	uint8_t t[MAXB];
	size_t w = 0;

	if (gcry_mpi_cmp_ui(m, 0) == 0) {
		memset(b, 0, n);
		return true;
	}
	if (gcry_mpi_print(GCRYMPI_FMT_USG, t, sizeof(t), &w, m) || w > n)
		return false;
	memset(b, 0, n - w);
	memcpy(b + n - w, t, w);
	return true;
}

static const int impls[] = { KSP_RSA_IMPL_PORTABLE, KSP_RSA_IMPL_IFMA };
static const char *const impl_names[] = { "portable", "ifma" };

/* ---- key creation --------------------------------------------------------- */

static int test_key_new(void)
{
	uint8_t n[MAXB], e[8];
	struct ksp_rsa_key *k = (struct ksp_rsa_key *)&k;

	init();
	ts_rnd_bytes(n, sizeof(n));
	n[0] |= 0x80;
	n[255] |= 1;
	n[1023] |= 1;
	e[0] = 0x01, e[1] = 0x00, e[2] = 0x01;
	TS_ASSERT_INT_EQ(ksp_rsa_key_new(n, 0, e, 3, &k), -EINVAL);
	TS_ASSERT(k == NULL);
	TS_ASSERT_INT_EQ(ksp_rsa_key_new(n, 256, e, 0, &k), -EINVAL);
	memset(e, 0, sizeof(e));
	TS_ASSERT_INT_EQ(ksp_rsa_key_new(n, 256, e, 4, &k), -EINVAL); /* e = 0 */
	{
		uint8_t z[16] = { 0 };

		TS_ASSERT_INT_EQ(ksp_rsa_key_new(z, sizeof(z), (const uint8_t *)"\x03", 1, &k), -EINVAL);
	}
	/* even e, e = 1, e >= 2^32: libgcrypt's job */
	TS_ASSERT_INT_EQ(ksp_rsa_key_new(n, 256, (const uint8_t *)"\x01\x00\x00", 3, &k), -EOPNOTSUPP);
	TS_ASSERT_INT_EQ(ksp_rsa_key_new(n, 256, (const uint8_t *)"\x01", 1, &k), -EOPNOTSUPP);
	TS_ASSERT_INT_EQ(ksp_rsa_key_new(n, 256, (const uint8_t *)"\x01\x00\x00\x00\x01", 5, &k), -EOPNOTSUPP);
	TS_ASSERT(k == NULL);
	/* leading zeros are not length */
	TS_ASSERT_INT_EQ(ksp_rsa_key_new(n, 256, (const uint8_t *)"\x00\x00\xff\xff\xff\xff", 6, &k), 0);
	TS_ASSERT_INT_EQ(ksp_rsa_key_len(k), 256);
	ksp_rsa_key_free(k);
	/* even n */
	n[255] &= 0xfe;
	TS_ASSERT_INT_EQ(ksp_rsa_key_new(n, 256, (const uint8_t *)"\x03", 1, &k), -EOPNOTSUPP);
	n[255] |= 1;
	/* n = 1 */
	TS_ASSERT_INT_EQ(ksp_rsa_key_new((const uint8_t *)"\x00\x01", 2, (const uint8_t *)"\x03", 1, &k),
			 -EOPNOTSUPP);
	/* 8192 bits yes, 8193 no; leading zeros of n do not count */
	{
		uint8_t big[1026];

		memset(big, 0, 2);
		memcpy(big + 2, n, 1024);
		TS_ASSERT_INT_EQ(ksp_rsa_key_new(big, 1026, (const uint8_t *)"\x03", 1, &k), 0);
		TS_ASSERT_INT_EQ(ksp_rsa_key_len(k), 1024);
		ksp_rsa_key_free(k);
		big[1] = 1;
		TS_ASSERT_INT_EQ(ksp_rsa_key_new(big + 1, 1025, (const uint8_t *)"\x03", 1, &k), -EOPNOTSUPP);
	}
	/* an implementation by name; AUTO picks one of them */
	TS_ASSERT_INT_EQ(ksp_rsa_key_new_impl(n, 256, (const uint8_t *)"\x03", 1, 42, &k), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_rsa_key_new_impl(n, 256, (const uint8_t *)"\x03", 1, KSP_RSA_IMPL_PORTABLE, &k), 0);
	TS_ASSERT_INT_EQ(ksp_rsa_key_impl(k), KSP_RSA_IMPL_PORTABLE);
	ksp_rsa_key_free(k);
	TS_ASSERT_INT_EQ(ksp_rsa_key_new(n, 256, (const uint8_t *)"\x03", 1, &k), 0);
	TS_ASSERT(ksp_rsa_key_impl(k) == KSP_RSA_IMPL_PORTABLE || ksp_rsa_key_impl(k) == KSP_RSA_IMPL_IFMA);
	fprintf(stderr, "default implementation: %s\n", impl_names[ksp_rsa_key_impl(k) - 1]);
	ksp_rsa_key_free(k);
	ksp_rsa_key_free(NULL);
	return 0;
}
DEFINE_TEST(test_key_new, "ksp_rsa_key_new: what is refused, what is left to libgcrypt");

/* ---- raw s^e mod n against gcry_mpi_powm ----------------------------------- */

/* n of exactly @bits bits, odd, in one of several shapes */
static void make_modulus(uint8_t *n, size_t *len, unsigned bits, int shape)
{
	size_t l = (bits + 7) / 8;
	unsigned topbits = bits - 8 * (unsigned)(l - 1); /* 1..8 */
	uint8_t topmask = (uint8_t)((1u << topbits) - 1), topbit = (uint8_t)(1u << (topbits - 1));

	switch (shape) {
	case 0: /* random */
		ts_rnd_bytes(n, l);
		break;
	case 1: /* 2^(bits-1) + small: the smallest */
		memset(n, 0, l);
		n[l - 1] = (uint8_t)(ts_rnd() >> 60);
		break;
	case 2: /* 2^bits - small: the largest */
		memset(n, 0xff, l);
		n[l - 1] = (uint8_t)(0xff - (ts_rnd() >> 60 << 1));
		break;
	default: /* few bits set */
		memset(n, 0, l);
		for (int i = 0; i < 4; i++)
			n[ts_rnd() % l] |= (uint8_t)(1u << (ts_rnd() % 8));
		break;
	}
	n[0] = (uint8_t)((n[0] & topmask) | topbit);
	n[l - 1] |= 1;
	*len = l;
}

static int check_powm(struct ksp_rsa_key *k, const uint8_t *n, size_t nl, uint32_t e, const uint8_t *s,
		      size_t sl, const char *what)
{
	uint8_t want[MAXB], got[MAXB];
	gcry_mpi_t mn = mpi_of(n, nl), ms = mpi_of(s, sl), me = gcry_mpi_set_ui(NULL, e), r = gcry_mpi_new(0);
	int rc, ok = 0;

	gcry_mpi_powm(r, ms, me, mn);
	TS_ASSERT(bytes_of(r, want, nl));
	memset(got, 0xaa, sizeof(got));
	rc = ksp_rsa_public(k, s, sl, got);
	if (rc != 0 || memcmp(got, want, nl) != 0 || got[nl] != 0xaa) {
		fprintf(stderr, "powm mismatch (%s): %zu-octet n, e = %" PRIu32 ", rc %d\n", what, nl, e, rc);
		ok = -1;
	}
	gcry_mpi_release(mn);
	gcry_mpi_release(ms);
	gcry_mpi_release(me);
	gcry_mpi_release(r);
	return ok;
}

static int test_powm(void)
{
	static const unsigned sizes[] = {
		8,    17,   63,   64,	65,   127,  128,  129,	200,  255,  256,  257,	511,  512,
		513,  520,  830,  1023, 1024, 1025, 1088, 1246, 1247, 1248, 1249, 2046, 2047, 2048, 2049, 2078,
		2079, 2080, 3071, 3072, 3073, 3326, 3327, 4095, 4096, 4097, 4158, 4159, 4160, 6000,
		8126, 8190, 8191, 8192,
	};
	static const uint32_t es[] = { 3, 17, 65537, 0xffffffff, 0x80000001, 5, 0 /* random */ };
	unsigned per_key = ts_slow() ? 2 : 12, total = 0;

	init();
	for (size_t ii = 0; ii < ARRAY_SIZE(impls); ii++) {
		for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
			unsigned bits = sizes[si];

			for (int shape = 0; shape < 4; shape++) {
				uint8_t n[MAXB], s[MAXB + 8], eb[4];
				size_t nl;
				uint32_t e = es[(si + (size_t)shape) % ARRAY_SIZE(es)];
				struct ksp_rsa_key *k;
				int r;

				if (ts_slow() && bits > 4200 && shape > 0)
					continue;
				if (e == 0)
					e = (uint32_t)ts_rnd() | 1;
				if (e < 3)
					e = 3;
				make_modulus(n, &nl, bits, shape);
				eb[0] = (uint8_t)(e >> 24), eb[1] = (uint8_t)(e >> 16), eb[2] = (uint8_t)(e >> 8),
				eb[3] = (uint8_t)e;
				r = ksp_rsa_key_new_impl(n, nl, eb, 4, impls[ii], &k);
				if (r == -EOPNOTSUPP && impls[ii] != KSP_RSA_IMPL_PORTABLE)
					goto next_impl; /* not on this CPU */
				TS_ASSERT_INT_EQ(r, 0);
				/* edges: 1, 2, n-1, n-2; then random s < n, some short */
				for (unsigned j = 0; j < per_key + 4; j++) {
					size_t sl = nl;

					if (j < 4) {
						/* 1, 2, n - 1, n - 2 */
						gcry_mpi_t v = mpi_of(n, nl);

						if (j < 2)
							gcry_mpi_set_ui(v, j + 1);
						else
							gcry_mpi_sub_ui(v, v, j - 1);
						TS_ASSERT(bytes_of(v, s, nl));
						gcry_mpi_release(v);
					} else {
						ts_rnd_bytes(s, nl);
						if (j % 3 == 0)
							sl = 1 + ts_rnd() % nl; /* shorter */
						if (sl == nl && memcmp(s, n, nl) >= 0)
							s[0] = (uint8_t)(n[0] - 1); /* n[0] >= 1 */
					}
					if (check_powm(k, n, nl, e, s, sl, impl_names[ii]) < 0) {
						ksp_rsa_key_free(k);
						return -1;
					}
					total++;
				}
				/* leading zeros in s are allowed, even beyond the length of n */
				memset(s, 0, 8);
				ts_rnd_bytes(s + 8, nl);
				s[8] = (uint8_t)(n[0] - 1);
				if (check_powm(k, n, nl, e, s, nl + 8, "leading zeros") < 0) {
					ksp_rsa_key_free(k);
					return -1;
				}
				/* 0 is 0; s >= n and empty s are refused */
				{
					uint8_t out[MAXB];

					TS_ASSERT_INT_EQ(ksp_rsa_public(k, s, 0, out), -EINVAL);
					memset(s, 0, 3);
					memset(out, 1, nl);
					TS_ASSERT_INT_EQ(ksp_rsa_public(k, s, 3, out), 0);
					for (size_t i = 0; i < nl; i++)
						TS_ASSERT(out[i] == 0);
					TS_ASSERT_INT_EQ(ksp_rsa_public(k, n, nl, out), -EINVAL);
					memset(s, 0xff, nl); /* >= n */
					TS_ASSERT_INT_EQ(ksp_rsa_public(k, s, nl, out), -EINVAL);
					s[0] = 0x01;
					memcpy(s + 1, n, nl);
					TS_ASSERT_INT_EQ(ksp_rsa_public(k, s, nl + 1, out), -EINVAL);
				}
				ksp_rsa_key_free(k);
			}
		}
next_impl:
		fprintf(stderr, "%s: %u exponentiations checked\n", impl_names[ii], total);
		total = 0;
	}
	return 0;
}
DEFINE_TEST(test_powm, "s^e mod n is gcry_mpi_powm's, for moduli of many sizes and shapes");

/* ---- PKCS#1 v1.5 verdicts against gcry_pk_verify --------------------------- */

#define MAXP 40

struct testkey {
	uint8_t n[MAXB], e[4];
	size_t nl;
	unsigned bits, np;
	uint32_t ev;
	gcry_sexp_t pub, priv;
	/* for signing by CRT: s = sum of (m^dp_i mod p_i) c_i mod n */
	gcry_mpi_t mn, p[MAXP], dp[MAXP], c[MAXP];
};

static void testkey_free(struct testkey *t)
{
	gcry_sexp_release(t->pub);
	gcry_sexp_release(t->priv);
	gcry_mpi_release(t->mn);
	for (unsigned i = 0; i < t->np; i++) {
		gcry_mpi_release(t->p[i]);
		gcry_mpi_release(t->dp[i]);
		gcry_mpi_release(t->c[i]);
	}
}

/* a multi-prime key of exactly @bits bits with public exponent @e, from
 * primes of about 256 bits (what keeps it fast) */
static int make_key(struct testkey *t, unsigned bits, uint32_t e)
{
	unsigned np = (bits + 255) / 256, pb = bits / np;
	gcry_mpi_t n = gcry_mpi_set_ui(NULL, 1), phi = gcry_mpi_set_ui(NULL, 1), me = gcry_mpi_set_ui(NULL, e);
	gcry_mpi_t d = gcry_mpi_new(0), g = gcry_mpi_new(0);

	memset(t, 0, sizeof(*t));
	t->bits = bits;
	t->ev = e;
	if (np > MAXP)
		return -1;
	for (unsigned i = 0; i < np; i++) {
		for (;;) {
			gcry_mpi_t p, p1, nn;
			unsigned want, got;

			want = i + 1 < np ? pb : bits + 1 - gcry_mpi_get_nbits(n);
			/* libgcrypt 1.10 takes 50 times longer for sizes 0 mod 3; one
			 * bit less still makes bits + 1 - 1 some of the time */
			if (want % 3 == 0)
				want--;
			if (gcry_prime_generate(&p, want, 0, NULL, NULL, NULL, GCRY_WEAK_RANDOM, 0))
				return -1;
			p1 = gcry_mpi_new(0);
			gcry_mpi_sub_ui(p1, p, 1);
			gcry_mpi_gcd(g, p1, me);
			nn = gcry_mpi_new(0);
			gcry_mpi_mul(nn, n, p);
			got = gcry_mpi_get_nbits(nn);
			if (gcry_mpi_cmp_ui(g, 1) == 0 && (i + 1 < np || got == bits)) {
				gcry_mpi_set(n, nn);
				gcry_mpi_mul(phi, phi, p1);
				t->p[t->np++] = gcry_mpi_copy(p);
				gcry_mpi_release(p);
				gcry_mpi_release(p1);
				gcry_mpi_release(nn);
				break;
			}
			gcry_mpi_release(p);
			gcry_mpi_release(p1);
			gcry_mpi_release(nn);
		}
	}
	if (gcry_mpi_get_nbits(n) != bits || !gcry_mpi_invm(d, me, phi))
		return -1;
	/* dp_i = d mod (p_i - 1), c_i = (n / p_i) ((n / p_i)^-1 mod p_i) */
	for (unsigned i = 0; i < t->np; i++) {
		gcry_mpi_t p1 = gcry_mpi_new(0), mi = gcry_mpi_new(0), inv = gcry_mpi_new(0);

		gcry_mpi_sub_ui(p1, t->p[i], 1);
		t->dp[i] = gcry_mpi_new(0);
		gcry_mpi_mod(t->dp[i], d, p1);
		gcry_mpi_div(mi, NULL, n, t->p[i], 0);
		if (!gcry_mpi_invm(inv, mi, t->p[i]))
			return -1;
		t->c[i] = gcry_mpi_new(0);
		gcry_mpi_mulm(t->c[i], mi, inv, n);
		gcry_mpi_release(p1);
		gcry_mpi_release(mi);
		gcry_mpi_release(inv);
	}
	t->mn = gcry_mpi_copy(n);
	t->nl = (bits + 7) / 8;
	if (!bytes_of(n, t->n, t->nl))
		return -1;
	t->e[0] = (uint8_t)(e >> 24), t->e[1] = (uint8_t)(e >> 16), t->e[2] = (uint8_t)(e >> 8), t->e[3] = (uint8_t)e;
	if (gcry_sexp_build(&t->pub, NULL, "(public-key(rsa(n%m)(e%m)))", n, me) ||
	    gcry_sexp_build(&t->priv, NULL, "(private-key(rsa(n%m)(e%m)(d%m)))", n, me, d))
		return -1;
	gcry_mpi_release(n);
	gcry_mpi_release(phi);
	gcry_mpi_release(me);
	gcry_mpi_release(d);
	gcry_mpi_release(g);
	return 0;
}

/* with the DigestInfo prefixes of RFC 8017 9.2 note 1 (RIPEMD-160: RFC 4880
 * 5.2.2), for signing by CRT; libgcrypt must call those signatures good */
static const struct {
	int algo;
	const char *name, *prefix;
} hashes[] = {
	{ GCRY_MD_MD5, "md5", "3020300c06082a864886f70d020505000410" },
	{ GCRY_MD_SHA1, "sha1", "3021300906052b0e03021a05000414" },
	{ GCRY_MD_RMD160, "rmd160", "3021300906052b2403020105000414" },
	{ GCRY_MD_SHA224, "sha224", "302d300d06096086480165030402040500041c" },
	{ GCRY_MD_SHA256, "sha256", "3031300d060960864801650304020105000420" },
	{ GCRY_MD_SHA384, "sha384", "3041300d060960864801650304020205000430" },
	{ GCRY_MD_SHA512, "sha512", "3051300d060960864801650304020305000440" },
};
/* not OpenPGP's (SHA3-256 and SHA3-512 are: test_sha3) */
static const int unknown_hashes[] = { GCRY_MD_SHA3_224, GCRY_MD_SHA3_384,
				      GCRY_MD_TIGER, GCRY_MD_SHA512_256, 0, -1 };

/* libgcrypt's verdict: 1 good, 0 bad */
static int gcry_verdict(const struct testkey *t, const char *hname, const uint8_t *dg, size_t dl, const uint8_t *s,
			size_t sl)
{
	gcry_sexp_t data = NULL, sig = NULL;
	int v = 0;

	if (!gcry_sexp_build(&data, NULL, "(data(flags pkcs1)(hash %s %b))", hname, (int)dl, dg) &&
	    !gcry_sexp_build(&sig, NULL, "(sig-val(rsa(s%b)))", (int)sl, s))
		v = gcry_pk_verify(sig, data, t->pub) == 0;
	gcry_sexp_release(data);
	gcry_sexp_release(sig);
	return v;
}

/* s = the signature of dg[0 .. dl) with hash @hname, *sl octets */
static int sign(const struct testkey *t, const char *hname, const uint8_t *dg, size_t dl, uint8_t *s, size_t *sl)
{
	gcry_sexp_t data = NULL, sig = NULL, l;
	gcry_mpi_t m;
	size_t w = 0;

	if (gcry_sexp_build(&data, NULL, "(data(flags pkcs1)(hash %s %b))", hname, (int)dl, dg) ||
	    gcry_pk_sign(&sig, data, t->priv))
		return -1;
	l = gcry_sexp_find_token(sig, "s", 0);
	m = gcry_sexp_nth_mpi(l, 1, GCRYMPI_FMT_USG);
	if (m == NULL || gcry_mpi_print(GCRYMPI_FMT_USG, s, MAXB, &w, m))
		return -1;
	gcry_mpi_release(m);
	gcry_sexp_release(l);
	gcry_sexp_release(sig);
	gcry_sexp_release(data);
	*sl = w;
	return 0;
}

/* the same by CRT from our own encoding with the DigestInfo @hex, for speed
 * (libgcrypt has only d) */
static int sign_prefix_crt(const struct testkey *t, const char *hex, const uint8_t *dg, size_t dl, uint8_t *s,
			   size_t *sl)
{
	size_t plen = strlen(hex) / 2, ps = t->nl - plen - dl - 3;
	uint8_t em[MAXB];
	gcry_mpi_t m, acc = gcry_mpi_set_ui(NULL, 0), x = gcry_mpi_new(0);

	if (t->nl < plen + dl + 11)
		return -1;
	em[0] = 0x00;
	em[1] = 0x01;
	memset(em + 2, 0xff, ps);
	em[2 + ps] = 0x00;
	for (size_t i = 0; i < plen; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		em[3 + ps + i] = (uint8_t)v;
	}
	memcpy(em + 3 + ps + plen, dg, dl);
	m = mpi_of(em, t->nl);
	for (unsigned i = 0; i < t->np; i++) {
		gcry_mpi_mod(x, m, t->p[i]);
		gcry_mpi_powm(x, x, t->dp[i], t->p[i]);
		gcry_mpi_mulm(x, x, t->c[i], t->mn);
		gcry_mpi_addm(acc, acc, x, t->mn);
	}
	*sl = t->nl;
	if (!bytes_of(acc, s, t->nl))
		return -1;
	gcry_mpi_release(m);
	gcry_mpi_release(acc);
	gcry_mpi_release(x);
	return 0;
}

static int sign_crt(const struct testkey *t, size_t hi, const uint8_t *dg, size_t dl, uint8_t *s, size_t *sl)
{
	return sign_prefix_crt(t, hashes[hi].prefix, dg, dl, s, sl);
}

/* ours must agree with libgcrypt, and be @want (-1: whatever it says) */
#define AGREE(_k, _algo, _dg, _dl, _s, _sl, _want, _what)                                                    \
	do {                                                                                                 \
		int o_ = ksp_rsa_verify_pkcs1((_k), hashes[_algo].algo, (_dg), (_dl), (_s), (_sl));          \
		int g_ = gcry_verdict(&t, hashes[_algo].name, (_dg), (_dl), (_s), (_sl));                    \
		checks++;                                                                                    \
		if (o_ != g_ || ((_want) >= 0 && o_ != (_want))) {                                           \
			fprintf(stderr, "%s, %u bits, e = %" PRIu32 ", %s, %s: ours %d, libgcrypt %d\n",     \
				impl_names[ii], t.bits, t.ev, hashes[_algo].name, (_what), o_, g_);           \
			fail = 1;                                                                            \
		}                                                                                            \
	} while (0)

static int test_verify(void)
{
	static const struct {
		unsigned bits;
		uint32_t e;
	} keys[] = {
		{ 1024, 65537 }, { 2047, 3 },	  { 4096, 65537 }, { 2048, 17 },   { 1024, 3 },
		{ 3072, 65537 }, { 4095, 17 },	  { 4096, 3 },	   { 2048, 65537 }, { 1025, 65537 },
		{ 4097, 3 },	 { 1536, 0x10001 }, { 3071, 17 },
	};
	size_t nkeys = ts_slow() ? 3 : ARRAY_SIZE(keys);
	unsigned checks = 0, gcry_s_plus_n = 0;
	int fail = 0;

	init();
	for (size_t ki = 0; ki < nkeys; ki++) {
		struct ksp_rsa_key *ks[ARRAY_SIZE(impls)] = { NULL };
		struct testkey t;

		TS_ASSERT_INT_EQ(make_key(&t, keys[ki].bits, keys[ki].e), 0);
		for (size_t ii = 0; ii < ARRAY_SIZE(impls); ii++) {
			int r = ksp_rsa_key_new_impl(t.n, t.nl, t.e, 4, impls[ii], &ks[ii]);

			TS_ASSERT(r == 0 || (r == -EOPNOTSUPP && impls[ii] != KSP_RSA_IMPL_PORTABLE));
		}
		for (size_t hi = 0; hi < ARRAY_SIZE(hashes); hi++) {
			uint8_t dg[64], s[MAXB + 2], x[MAXB + 2], sn[MAXB + 2];
			size_t dl = gcry_md_get_algo_dlen(hashes[hi].algo), sl;
			gcry_mpi_t ms, mn;
			int sn_gcry;

			ts_rnd_bytes(dg, dl);
			/* by libgcrypt once per key (its private operation has only d:
			 * slow), else by CRT */
			if (hi == ki % ARRAY_SIZE(hashes))
				TS_ASSERT_INT_EQ(sign(&t, hashes[hi].name, dg, dl, s, &sl), 0);
			else
				TS_ASSERT_INT_EQ(sign_crt(&t, hi, dg, dl, s, &sl), 0);
			/* s + n: the same value mod n, but out of range (RFC 8017 RSAVP1);
			 * libgcrypt 1.10 reduces it and says good */
			ms = mpi_of(s, sl);
			mn = mpi_of(t.n, t.nl);
			gcry_mpi_add(ms, ms, mn);
			TS_ASSERT(bytes_of(ms, sn, t.nl + 1));
			gcry_mpi_release(ms);
			gcry_mpi_release(mn);
			sn_gcry = gcry_verdict(&t, hashes[hi].name, dg, dl, sn, t.nl + 1);
			for (size_t ii = 0; ii < ARRAY_SIZE(impls); ii++) {
				const struct ksp_rsa_key *k = ks[ii];

				if (k == NULL)
					continue;
				gcry_s_plus_n += (unsigned)sn_gcry;
				AGREE(k, hi, dg, dl, s, sl, 1, "good");
				/* leading zeros */
				memset(x, 0, 2);
				memcpy(x + 2, s, sl);
				AGREE(k, hi, dg, dl, x, sl + 2, 1, "leading zeros");
				/* a flipped bit in s, in the digest */
				memcpy(x, s, sl);
				x[ts_rnd() % sl] ^= (uint8_t)(1u << (ts_rnd() % 8));
				AGREE(k, hi, dg, dl, x, sl, 0, "bit flipped in s");
				memcpy(x, dg, dl);
				x[ts_rnd() % dl] ^= (uint8_t)(1u << (ts_rnd() % 8));
				AGREE(k, hi, x, dl, s, sl, 0, "bit flipped in digest");
				/* another hash algorithm, with the same or another length */
				for (size_t h2 = 0; h2 < ARRAY_SIZE(hashes); h2++) {
					size_t l2 = gcry_md_get_algo_dlen(hashes[h2].algo);

					if (h2 == hi)
						continue;
					memset(x, 0, 64);
					memcpy(x, dg, dl < l2 ? dl : l2);
					AGREE(k, h2, x, l2, s, sl, 0, "another hash");
				}
				/* the right algorithm, a digest of the wrong length */
				AGREE(k, hi, dg, dl - 1, s, sl, 0, "short digest");
				memcpy(x, dg, dl);
				x[dl] = 0;
				AGREE(k, hi, x, dl + 1, s, sl, 0, "long digest");
				TS_ASSERT_INT_EQ(ksp_rsa_verify_pkcs1(k, hashes[hi].algo, dg, dl, sn, t.nl + 1), 0);
				/* n, 0, empty, longer than n */
				AGREE(k, hi, dg, dl, t.n, t.nl, 0, "s = n");
				memset(x, 0, 4);
				AGREE(k, hi, dg, dl, x, 4, 0, "s = 0");
				AGREE(k, hi, dg, dl, x, 1, 0, "s = 0, one octet");
				TS_ASSERT_INT_EQ(ksp_rsa_verify_pkcs1(k, hashes[hi].algo, dg, dl, s, 0), 0);
				x[0] = 0x01;
				memcpy(x + 1, s, sl);
				AGREE(k, hi, dg, dl, x, sl + 1, 0, "longer than n");
				/* hashes we do not do: libgcrypt's job */
				for (size_t u = 0; u < ARRAY_SIZE(unknown_hashes); u++)
					TS_ASSERT_INT_EQ(ksp_rsa_verify_pkcs1(k, unknown_hashes[u], dg, dl, s, sl),
							 -EOPNOTSUPP);
			}
		}
		for (size_t ii = 0; ii < ARRAY_SIZE(impls); ii++)
			ksp_rsa_key_free(ks[ii]);
		testkey_free(&t);
	}
	fprintf(stderr, "%u verdicts compared with libgcrypt; s + n: libgcrypt said good %u times\n", checks,
		gcry_s_plus_n);
	return fail ? -1 : 0;
}
DEFINE_TEST(test_verify, "PKCS#1 v1.5 verdicts are gcry_pk_verify's, good and bad, every hash");

/* ---- SHA-3 (RFC 9580 5.2.2) ------------------------------------------- */

static int test_sha3(void)
{
	static const struct {
		int algo;
		const char *rfc9580, *gcry110;
	} h3[] = {
		{ GCRY_MD_SHA3_256, "3031300d060960864801650304020805000420", "30" },
		{ GCRY_MD_SHA3_512, "3051300d060960864801650304020a05000440", "30" },
	};
	struct testkey t;

	init();
	TS_ASSERT_INT_EQ(make_key(&t, 2048, 65537), 0);
	for (size_t ii = 0; ii < ARRAY_SIZE(impls); ii++) {
		struct ksp_rsa_key *k = NULL;

		if (ksp_rsa_key_new_impl(t.n, t.nl, t.e, 4, impls[ii], &k) < 0)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(h3); i++) {
			uint8_t dg[64], s[MAXB + 2];
			size_t dl = gcry_md_get_algo_dlen(h3[i].algo), sl;

			ts_rnd_bytes(dg, dl);
			/* RFC 9580's DigestInfo: good, and for this hash only */
			TS_ASSERT_INT_EQ(sign_prefix_crt(&t, h3[i].rfc9580, dg, dl, s, &sl), 0);
			TS_ASSERT_INT_EQ(ksp_rsa_verify_pkcs1(k, h3[i].algo, dg, dl, s, sl), 1);
			TS_ASSERT_INT_EQ(ksp_rsa_verify_pkcs1(k, h3[1 - i].algo, dg, dl, s, sl), 0);
			TS_ASSERT_INT_EQ(ksp_rsa_verify_pkcs1(k, i ? GCRY_MD_SHA512 : GCRY_MD_SHA256, dg, dl, s, sl),
					 0);
			dg[0] ^= 1;
			TS_ASSERT_INT_EQ(ksp_rsa_verify_pkcs1(k, h3[i].algo, dg, dl, s, sl), 0);
			/* libgcrypt 1.10's one-octet prefix: not a DigestInfo */
			TS_ASSERT_INT_EQ(sign_prefix_crt(&t, h3[i].gcry110, dg, dl, s, &sl), 0);
			TS_ASSERT_INT_EQ(ksp_rsa_verify_pkcs1(k, h3[i].algo, dg, dl, s, sl), 0);
		}
		ksp_rsa_key_free(k);
	}
	testkey_free(&t);
	return 0;
}
DEFINE_TEST(test_sha3, "SHA3-256 and SHA3-512 with RFC 9580's DigestInfo, not libgcrypt 1.10's prefix");

/* ---- a key too short for the hash -------------------------------------- */

static int test_short_key(void)
{
	struct testkey t;
	struct ksp_rsa_key *k;
	uint8_t dg[64], s[MAXB], x[MAXB];
	size_t sl;
	int fail = 0;
	unsigned checks = 0;
	size_t ii = 0;

	init();
	/* 512 bits = 64 octets: room for SHA-256 (19 + 32 + 11 = 62), not SHA-384 */
	TS_ASSERT_INT_EQ(make_key(&t, 512, 65537), 0);
	TS_ASSERT_INT_EQ(ksp_rsa_key_new_impl(t.n, t.nl, t.e, 4, KSP_RSA_IMPL_PORTABLE, &k), 0);
	ts_rnd_bytes(dg, sizeof(dg));
	TS_ASSERT_INT_EQ(sign(&t, "sha256", dg, 32, s, &sl), 0);
	AGREE(k, 4, dg, 32, s, sl, 1, "512-bit key, sha256");
	/* an s for which s^e is anything: libgcrypt refuses the encoding */
	ts_rnd_bytes(x, 60);
	AGREE(k, 5, dg, 48, x, 60, 0, "512-bit key, sha384");
	AGREE(k, 6, dg, 64, x, 60, 0, "512-bit key, sha512");
	ksp_rsa_key_free(k);
	testkey_free(&t);
	return fail ? -1 : 0;
}
DEFINE_TEST(test_short_key, "a key too short for the DigestInfo verifies nothing");
