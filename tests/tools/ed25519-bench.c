// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ed25519-bench: Ed25519 signatures and verifications per second (one
 * core) with libgcrypt (gcry_pk_sign / gcry_pk_verify) and with
 * src/lib/openpgp/ed25519.c, side by side, on 32-octet messages (the size of a
 * SHA-256 digest, what OpenPGP signs); also the cost of preparing a key
 * (ksp_ed25519_key_new) and of deriving a public key.  Rates are per second
 * of this thread's CPU time, so that a busy machine counts less.
 *
 * Usage: ed25519-bench [SECONDS-PER-MEASUREMENT]   (default 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gcrypt.h>

#include "lib/openpgp/ed25519.h"
#include "lib/openpgp/ed25519-private.h"

#define NKEYS 16

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "ed25519-bench: %s\n", what);
	exit(2);
}

struct item {
	uint8_t seed[32], pub[32], msg[32], sig[64];
	gcry_sexp_t gpub, gsec, gdata, gsig;
	struct ksp_ed25519_key *k;
	struct ksp_ed25519_pub p;
};

static void setup(struct item *it, unsigned i)
{
	for (unsigned j = 0; j < 32; j++) {
		it->seed[j] = (uint8_t)(i * 131 + j * 7 + 1);
		it->msg[j] = (uint8_t)(i * 17 + j * 3);
	}
	ksp_ed25519_public(it->seed, it->pub);
	ksp_ed25519_sign(it->seed, it->pub, it->msg, 32, it->sig);
	if (ksp_ed25519_key_new(it->pub, &it->k) < 0)
		die("ksp_ed25519_key_new failed");
	if (ksp_ed25519_pub_init(&it->p, it->pub) < 0)
		die("ksp_ed25519_pub_init failed");
	if (gcry_sexp_build(&it->gpub, NULL, "(public-key(ecc(curve Ed25519)(flags eddsa)(q %b)))", 32, it->pub) ||
	    gcry_sexp_build(&it->gsec, NULL, "(private-key(ecc(curve Ed25519)(flags eddsa)(q %b)(d %b)))", 32,
			    it->pub, 32, it->seed) ||
	    gcry_sexp_build(&it->gdata, NULL, "(data(flags eddsa)(hash-algo sha512)(value %b))", 32, it->msg) ||
	    gcry_sexp_build(&it->gsig, NULL, "(sig-val(eddsa(r %b)(s %b)))", 32, it->sig, 32, it->sig + 32))
		die("gcry_sexp_build failed");
}

static void report(const char *what, double gcry, double ours)
{
	if (gcry > 0)
		printf("%-22s %12.0f %12.0f %8.1fx\n", what, gcry, ours, ours / gcry);
	else
		printf("%-22s %12s %12.0f\n", what, "-", ours);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, t0, rg, ro;
	struct item it[NKEYS];
	unsigned long n;
	volatile int sink = 0;

	if (secs <= 0)
		secs = 1.0;
	if (!gcry_check_version(NULL))
		die("libgcrypt initialisation failed");
	gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	for (unsigned i = 0; i < NKEYS; i++)
		setup(&it[i], i);
	/* sanity: both agree on every item */
	for (unsigned i = 0; i < NKEYS; i++)
		if (gcry_pk_verify(it[i].gsig, it[i].gdata, it[i].gpub) != 0 ||
		    ksp_ed25519_verify(it[i].k, it[i].msg, 32, it[i].sig) != 1 ||
		    ksp_ed25519_verify_pub(&it[i].p, it[i].msg, 32, it[i].sig) != 1)
			die("a signature does not verify");

	printf("%-22s %12s %12s %9s\n", "per second (1 core)", "libgcrypt", "ksp", "speedup");

	/* verification */
	t0 = now();
	for (n = 0; now() - t0 < secs; n++)
		sink += gcry_pk_verify(it[n % NKEYS].gsig, it[n % NKEYS].gdata, it[n % NKEYS].gpub) == 0;
	rg = (double)n / (now() - t0);
	t0 = now();
	for (n = 0; now() - t0 < secs;)
		for (int j = 0; j < 64; j++, n++)
			sink += ksp_ed25519_verify(it[n % NKEYS].k, it[n % NKEYS].msg, 32, it[n % NKEYS].sig);
	ro = (double)n / (now() - t0);
	report("verify", rg, ro);
	t0 = now();
	for (n = 0; now() - t0 < secs;)
		for (int j = 0; j < 64; j++, n++)
			sink += ksp_ed25519_verify_pub(&it[n % NKEYS].p, it[n % NKEYS].msg, 32, it[n % NKEYS].sig);
	report("verify (compact key)", rg, (double)n / (now() - t0));
	if (ksp_ed25519_x8_usable()) {
		const struct ksp_ed25519_pub *pp[8];
		const uint8_t *mp[8], *sp[8];
		size_t lens[8];
		int res[8];

		t0 = now();
		for (n = 0; now() - t0 < secs;)
			for (int j = 0; j < 8; j++, n += 8) {
				for (int i = 0; i < 8; i++) {
					struct item *x = &it[(n + (unsigned)i) % NKEYS];
					pp[i] = &x->p;
					mp[i] = x->msg;
					sp[i] = x->sig;
					lens[i] = 32;
				}
				ksp_ed25519_verify_x8(pp, mp, lens, sp, res);
				for (int i = 0; i < 8; i++)
					sink += res[i];
			}
		report("verify (8 lanes)", rg, (double)n / (now() - t0));
	} else {
		printf("%-22s (no AVX-512 IFMA on this CPU)\n", "verify (8 lanes)");
	}

	/* signing */
	t0 = now();
	for (n = 0; now() - t0 < secs; n++) {
		gcry_sexp_t s = NULL;
		if (gcry_pk_sign(&s, it[n % NKEYS].gdata, it[n % NKEYS].gsec))
			die("gcry_pk_sign failed");
		gcry_sexp_release(s);
	}
	rg = (double)n / (now() - t0);
	t0 = now();
	for (n = 0; now() - t0 < secs;)
		for (int j = 0; j < 64; j++, n++) {
			uint8_t sig[64];
			ksp_ed25519_sign(it[n % NKEYS].seed, it[n % NKEYS].pub, it[n % NKEYS].msg, 32, sig);
			sink += sig[0];
		}
	ro = (double)n / (now() - t0);
	report("sign", rg, ro);

	/* public key from seed, key preparation */
	t0 = now();
	for (n = 0; now() - t0 < secs;)
		for (int j = 0; j < 64; j++, n++) {
			uint8_t pub[32];
			ksp_ed25519_public(it[n % NKEYS].seed, pub);
			sink += pub[0];
		}
	report("public key from seed", 0, (double)n / (now() - t0));
	t0 = now();
	for (n = 0; now() - t0 < secs;)
		for (int j = 0; j < 64; j++, n++) {
			struct ksp_ed25519_key *k;
			if (ksp_ed25519_key_new(it[n % NKEYS].pub, &k) < 0)
				die("ksp_ed25519_key_new failed");
			ksp_ed25519_key_free(k);
		}
	report("key_new (verify key)", 0, (double)n / (now() - t0));
	t0 = now();
	for (n = 0; now() - t0 < secs;)
		for (int j = 0; j < 64; j++, n++) {
			struct ksp_ed25519_pub p;
			if (ksp_ed25519_pub_init(&p, it[n % NKEYS].pub) < 0)
				die("ksp_ed25519_pub_init failed");
			sink += p.x0[0];
		}
	report("pub_init (compact key)", 0, (double)n / (now() - t0));
	t0 = now();
	for (n = 0; now() - t0 < secs;)
		for (int j = 0; j < 64; j++, n++) {
			struct ksp_ed25519_key *k;
			if (ksp_ed25519_key_from_pub(&it[n % NKEYS].p, &k) < 0)
				die("ksp_ed25519_key_from_pub failed");
			ksp_ed25519_key_free(k);
		}
	report("key_from_pub (tables)", 0, (double)n / (now() - t0));

	for (unsigned i = 0; i < NKEYS; i++) {
		gcry_sexp_release(it[i].gpub);
		gcry_sexp_release(it[i].gsec);
		gcry_sexp_release(it[i].gdata);
		gcry_sexp_release(it[i].gsig);
		ksp_ed25519_key_free(it[i].k);
	}
	return sink == -1;
}
