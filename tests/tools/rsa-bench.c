// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rsa-bench: RSA PKCS#1 v1.5 verifications per second (one core) with
 * libgcrypt's gcry_pk_verify and with src/lib/openpgp/pgp-rsa.c (each of its
 * implementations this CPU has), for e = 65537 and SHA-256, side by side;
 * also the cost of making a key (ksp_rsa_key_new: R^2 mod n).  Rates are
 * per second of this thread's CPU time, so that a busy machine counts less.
 *
 * Usage: rsa-bench [SECONDS-PER-MEASUREMENT [BITS...]]   (default 1; 2048 4096)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gcrypt.h>

#include "lib/openpgp/pgp-rsa.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static size_t get_param(gcry_sexp_t key, const char *name, uint8_t *buf, size_t cap)
{
	gcry_sexp_t l = gcry_sexp_find_token(key, name, 0);
	gcry_mpi_t m = l ? gcry_sexp_nth_mpi(l, 1, GCRYMPI_FMT_USG) : NULL;
	size_t w = 0;

	if (m == NULL || gcry_mpi_print(GCRYMPI_FMT_USG, buf, cap, &w, m)) {
		fprintf(stderr, "rsa-bench: no %s in the key\n", name);
		exit(2);
	}
	gcry_mpi_release(m);
	gcry_sexp_release(l);
	return w;
}

struct bench {
	uint8_t n[1024], e[8], s[1024], dg[32];
	size_t nl, el, sl;
	gcry_sexp_t pub, sig, data;
};

static void setup(struct bench *b, unsigned bits)
{
	gcry_sexp_t parms, key, l;
	gcry_error_t e;

	e = gcry_sexp_build(&parms, NULL, "(genkey(rsa(nbits %d)(rsa-use-e %d)))", (int)bits, 65537);
	if (!e)
		e = gcry_pk_genkey(&key, parms);
	if (e) {
		fprintf(stderr, "rsa-bench: cannot make a %u-bit key: %s\n", bits, gcry_strerror(e));
		exit(2);
	}
	gcry_sexp_release(parms);
	gcry_randomize(b->dg, sizeof(b->dg), GCRY_WEAK_RANDOM);
	b->nl = get_param(key, "n", b->n, sizeof(b->n));
	b->el = get_param(key, "e", b->e, sizeof(b->e));
	gcry_sexp_build(&b->data, NULL, "(data(flags pkcs1)(hash sha256 %b))", 32, b->dg);
	if (gcry_pk_sign(&b->sig, b->data, gcry_sexp_find_token(key, "private-key", 0))) {
		fprintf(stderr, "rsa-bench: cannot sign\n");
		exit(2);
	}
	l = gcry_sexp_find_token(b->sig, "s", 0);
	{
		gcry_mpi_t m = gcry_sexp_nth_mpi(l, 1, GCRYMPI_FMT_USG);
		gcry_mpi_print(GCRYMPI_FMT_USG, b->s, sizeof(b->s), &b->sl, m);
		gcry_mpi_release(m);
	}
	gcry_sexp_release(l);
	l = gcry_sexp_find_token(key, "public-key", 0);
	b->pub = l;
	gcry_sexp_release(key);
}

static double rate_gcry(struct bench *b, double secs)
{
	double t0 = now(), t;
	unsigned long n = 0;

	do {
		for (int i = 0; i < 16; i++)
			if (gcry_pk_verify(b->sig, b->data, b->pub)) {
				fprintf(stderr, "rsa-bench: libgcrypt says bad\n");
				exit(2);
			}
		n += 16;
	} while ((t = now() - t0) < secs);
	return (double)n / t;
}

static double rate_ksp(struct bench *b, int impl, double secs)
{
	struct ksp_rsa_key *k;
	double t0, t;
	unsigned long n = 0;

	if (ksp_rsa_key_new_impl(b->n, b->nl, b->e, b->el, impl, &k) < 0)
		return 0;
	t0 = now();
	do {
		for (int i = 0; i < 16; i++)
			if (ksp_rsa_verify_pkcs1(k, GCRY_MD_SHA256, b->dg, 32, b->s, b->sl) != 1) {
				fprintf(stderr, "rsa-bench: pgp-rsa says bad\n");
				exit(2);
			}
		n += 16;
	} while ((t = now() - t0) < secs);
	ksp_rsa_key_free(k);
	return (double)n / t;
}

/* microseconds per ksp_rsa_key_new */
static double key_cost(struct bench *b, int impl, double secs)
{
	struct ksp_rsa_key *k;
	double t0 = now(), t;
	unsigned long n = 0;

	do {
		for (int i = 0; i < 16; i++) {
			if (ksp_rsa_key_new_impl(b->n, b->nl, b->e, b->el, impl, &k) < 0)
				return 0;
			ksp_rsa_key_free(k);
		}
		n += 16;
	} while ((t = now() - t0) < secs);
	return t / (double)n * 1e6;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	static const unsigned def_bits[] = { 2048, 4096 };
	unsigned nbits = argc > 2 ? (unsigned)(argc - 2) : 2;

	gcry_check_version(NULL);
	gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	if (secs <= 0) {
		fprintf(stderr, "usage: %s [SECONDS [BITS...]]\n", argv[0]);
		return 2;
	}
	printf("%-6s %12s %12s %12s %8s %10s %10s\n", "bits", "libgcrypt/s", "portable/s", "ifma/s",
	       "speedup", "key-port", "key-ifma");
	for (unsigned i = 0; i < nbits; i++) {
		unsigned bits = argc > 2 ? (unsigned)atoi(argv[2 + i]) : def_bits[i];
		struct bench b;
		double g, p, f, best;

		memset(&b, 0, sizeof(b));
		setup(&b, bits);
		g = rate_gcry(&b, secs);
		p = rate_ksp(&b, KSP_RSA_IMPL_PORTABLE, secs);
		f = rate_ksp(&b, KSP_RSA_IMPL_IFMA, secs);
		best = p > f ? p : f;
		printf("%-6u %12.0f %12.0f %12.0f %7.1fx %8.1fus %8.1fus\n", bits, g, p, f, best / g,
		       key_cost(&b, KSP_RSA_IMPL_PORTABLE, secs / 4), key_cost(&b, KSP_RSA_IMPL_IFMA, secs / 4));
		gcry_sexp_release(b.pub);
		gcry_sexp_release(b.sig);
		gcry_sexp_release(b.data);
	}
	return 0;
}
