// SPDX-License-Identifier: LGPL-2.1-or-later
/* Signature verification (pgp-verify.c) on known vectors and tampering. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gcrypt.h>

#include <libksp.h>
#include "lib/openpgp/pgp-verify.h"
#include "shared/util.h"
#include "harness.h"

static void gcrypt_init(void)
{
	if (!gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
		gcry_check_version(NULL);
		gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
		gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	}
}

/* All keys of a file; *n set.  The caller frees them and *buf. */
static struct ksp_pgp_key **read_keys(struct ksp_ctx *ctx, const char *path, uint8_t **buf, size_t *n)
{
	struct ksp_pgp_reader *rd;
	struct ksp_pgp_key **keys = NULL, *k;
	size_t len;

	*n = 0;
	if (read_file_all(path, 0, buf, &len) < 0)
		return NULL;
	if (ksp_pgp_reader_new(ctx, *buf, len, path, &rd) < 0)
		return NULL;
	while (ksp_pgp_reader_next(rd, &k) > 0) {
		keys = realloc(keys, (*n + 1) * sizeof(*keys));
		keys[(*n)++] = k;
	}
	ksp_pgp_reader_free(rd);
	return keys;
}

static void free_keys(struct ksp_pgp_key **keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ksp_pgp_key_free(keys[i]);
	free(keys);
}

static int test_v6_rfc9580(void)
{
	struct ksp_ctx *ctx;
	struct ksp_pgp_key **keys;
	uint8_t *buf = NULL;
	size_t n;
	char fpr[65];

	gcrypt_init();
	TS_ASSERT(ksp_new(&ctx) == 0);
	keys = read_keys(ctx, "tests/keyrings/rfc9580-v6-cert.asc", &buf, &n);
	TS_ASSERT_INT_EQ(n, 1);
	struct ksp_pgp_key *k = keys[0];
	ksp_pgp_fpr_hex(&k->primary, fpr);
	TS_ASSERT_STR_EQ(fpr, "CB186C4F0609A697E4D52DFA6C722B0C1F1E27C18A56708F6525EC27BAD9ACC9");
	TS_ASSERT_INT_EQ(k->primary.version, 6);
	TS_ASSERT_INT_EQ(k->primary.algo, KSP_PGP_PK_ED25519);
	TS_ASSERT_INT_EQ(k->primary.n_sigs, 1);
	TS_ASSERT_INT_EQ(k->primary.sigs[0].type, 0x1f);
	TS_ASSERT_INT_EQ(k->primary.sigs[0].version, 6);
	TS_ASSERT_INT_EQ(ksp_pgp_verify_key_sig(&k->primary, &k->primary, NULL, &k->primary.sigs[0]), KSP_VERIFY_GOOD);
	TS_ASSERT_INT_EQ(k->n_subkeys, 1);
	TS_ASSERT_INT_EQ(k->subkeys[0].n_sigs, 1);
	TS_ASSERT_INT_EQ(ksp_pgp_verify_key_sig(&k->primary, &k->primary, &k->subkeys[0], &k->subkeys[0].sigs[0]),
			 KSP_VERIFY_GOOD);
	/* the binding does not verify as a direct-key signature */
	TS_ASSERT_INT_EQ(ksp_pgp_verify_key_sig(&k->primary, &k->primary, NULL, &k->subkeys[0].sigs[0]), KSP_VERIFY_BAD);
	/* one flipped bit in the signature material, or in the salt */
	struct ksp_pgp_sig s = k->primary.sigs[0];
	uint8_t *copy = malloc(s.body_len);
	memcpy(copy, s.body, s.body_len);
	s.body = copy;
	copy[s.body_len - 1] ^= 1;
	TS_ASSERT_INT_EQ(ksp_pgp_verify_key_sig(&k->primary, &k->primary, NULL, &s), KSP_VERIFY_BAD);
	copy[s.body_len - 1] ^= 1;
	copy[s.salt_off] ^= 0x80;
	TS_ASSERT_INT_EQ(ksp_pgp_verify_key_sig(&k->primary, &k->primary, NULL, &s), KSP_VERIFY_BAD);
	free(copy);
	free_keys(keys, n);
	free(buf);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_v6_rfc9580, "RFC 9580 A.3 v6 Ed25519 certificate: direct-key and binding signatures");

/* Every self-signature of every fixture verifies; a flipped bit never. */
static int test_fixtures_selfsigs(void)
{
	static const char *const files[] = { "alice-rsa.asc", "bob-ed25519.asc", "carol-nonlatin.asc",
					     "dave-escape.asc", "grace-dsa1024.asc", "heidi-noemail.asc",
					     "erin-expired.asc", "frank-revoked.asc" };
	struct ksp_ctx *ctx;
	unsigned good = 0;

	gcrypt_init();
	TS_ASSERT(ksp_new(&ctx) == 0);
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[256];
		uint8_t *buf = NULL;
		size_t n;
		struct ksp_pgp_key **keys;

		snprintf(path, sizeof(path), "tests/keyrings/%s", files[f]);
		keys = read_keys(ctx, path, &buf, &n);
		TS_ASSERT(n >= 1);
		for (size_t i = 0; i < n; i++) {
			struct ksp_pgp_key *k = keys[i];
			for (size_t u = 0; u < k->n_uids; u++)
				for (size_t j = 0; j < k->uids[u].n_sigs; j++) {
					struct ksp_pgp_sig s = k->uids[u].sigs[j];
					uint8_t *copy;
					TS_ASSERT_INT_EQ(ksp_pgp_verify_uid_sig(&k->primary, &k->primary, &k->uids[u], &s),
							 KSP_VERIFY_GOOD);
					good++;
					/* the same signature on another user ID, or tampered */
					if (k->n_uids > 1)
						TS_ASSERT_INT_EQ(ksp_pgp_verify_uid_sig(&k->primary, &k->primary,
											&k->uids[(u + 1) % k->n_uids], &s),
								 KSP_VERIFY_BAD);
					copy = malloc(s.body_len);
					memcpy(copy, s.body, s.body_len);
					copy[s.body_len - 1] ^= 1;
					s.body = copy;
					TS_ASSERT_INT_EQ(ksp_pgp_verify_uid_sig(&k->primary, &k->primary, &k->uids[u], &s),
							 KSP_VERIFY_BAD);
					free(copy);
				}
			for (size_t b = 0; b < k->n_subkeys; b++)
				for (size_t j = 0; j < k->subkeys[b].n_sigs; j++)
					if (k->subkeys[b].sigs[j].type == 0x18)
						TS_ASSERT_INT_EQ(ksp_pgp_verify_key_sig(&k->primary, &k->primary, &k->subkeys[b],
											&k->subkeys[b].sigs[j]),
								 KSP_VERIFY_GOOD);
		}
		free_keys(keys, n);
		free(buf);
	}
	TS_ASSERT(good >= 8);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_fixtures_selfsigs, "fixture self-signatures (RSA, EdDSA, DSA) verify; tampered ones do not");

/* A signature by another key, an unknown hash, a key we cannot use. */
static int test_wrong_signer(void)
{
	struct ksp_ctx *ctx;
	uint8_t *b1 = NULL, *b2 = NULL;
	size_t n1, n2;
	struct ksp_pgp_key **a, **b;

	gcrypt_init();
	TS_ASSERT(ksp_new(&ctx) == 0);
	a = read_keys(ctx, "tests/keyrings/alice-rsa.asc", &b1, &n1);
	b = read_keys(ctx, "tests/keyrings/bob-ed25519.asc", &b2, &n2);
	TS_ASSERT(n1 == 1 && n2 == 1);
	/* bob's self-signature checked with alice's key: other algorithm */
	TS_ASSERT_INT_EQ(ksp_pgp_verify_uid_sig(&a[0]->primary, &b[0]->primary, &b[0]->uids[0], &b[0]->uids[0].sigs[0]),
			 KSP_VERIFY_BAD);
	/* alice's self-signature claimed for bob's key */
	TS_ASSERT_INT_EQ(ksp_pgp_verify_uid_sig(&a[0]->primary, &b[0]->primary, &a[0]->uids[0], &a[0]->uids[0].sigs[0]),
			 KSP_VERIFY_BAD);
	struct ksp_pgp_sig s = a[0]->uids[0].sigs[0];
	s.hash_algo = 99;
	TS_ASSERT_INT_EQ(ksp_pgp_verify_uid_sig(&a[0]->primary, &a[0]->primary, &a[0]->uids[0], &s),
			 KSP_VERIFY_UNSUPPORTED);
	struct ksp_pgp_pubkey pk = a[0]->primary;
	pk.algo = 99;
	TS_ASSERT_INT_EQ(ksp_pgp_verify_uid_sig(&pk, &a[0]->primary, &a[0]->uids[0], &a[0]->uids[0].sigs[0]),
			 KSP_VERIFY_UNSUPPORTED);
	free_keys(a, n1);
	free_keys(b, n2);
	free(b1);
	free(b2);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_wrong_signer, "wrong signer, unknown hash, unknown algorithm");
