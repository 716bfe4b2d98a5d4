// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pgp-sigcheck: verify every signature on every user ID of a keyring with
 * ksp's native reader and verifier, and print one line per signature in a
 * form that tests/wot/compare-gpg.py matches against gpg --check-sigs:
 *
 *   TARGET-FPR <TAB> UID-RMD160 (as gpg --with-colons field 8) <TAB> ISSUER-KEYID <TAB> CREATED <TAB> CLASS <TAB> STATUS
 *
 * STATUS: good, bad, unsupported, nokey, or refused: what gpg 2.2's hash
 * rules refuse before any check (gpg --check-sigs '%'): MD5 signatures
 * (unless --allow-md5), and third-party SHA-1 ones made after 2019-01-19
 * (--sha1 yes: gpg --allow-weak-key-signatures; hash-rules.h).  The issuer
 * is looked up in the same keyring by fingerprint subpacket, else by key
 * ID (all candidates).
 * Usage: pgp-sigcheck [--sha1 yes|before-2019|no] [--allow-md5] KEYRING
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gcrypt.h>

#include "lib/openpgp/hash-rules.h"
#include "lib/libksp-private.h"
#include "lib/openpgp/pgp-verify.h"
#include "shared/util.h"

static struct ksp_pgp_key **keys;
static size_t n_keys;

static int find(const struct ksp_pgp_sig *s, size_t *from)
{
	for (size_t i = *from; i < n_keys; i++) {
		const struct ksp_pgp_pubkey *pk = &keys[i]->primary;
		bool m = s->issuer_fpr_len ? (s->issuer_fpr_len == pk->fpr_len &&
					      memcmp(s->issuer_fpr, pk->fpr, pk->fpr_len) == 0)
					   : (s->has_issuer && memcmp(s->issuer, pk->keyid, 8) == 0);
		if (m) {
			*from = i + 1;
			return (int)i;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct ksp_ctx *ctx;
	struct ksp_pgp_reader *rd;
	struct ksp_pgp_key *k;
	uint8_t *buf;
	size_t len, cap = 0;
	int r, fd;
	static const char *names[] = { "unchecked", "good", "bad", "unsupported", "nokey" };
	int sha1 = KSP_SHA1_BEFORE_2019;
	bool md5 = false;

	for (; argc > 2; argc--, argv++) {
		if (strcmp(argv[1], "--allow-md5") == 0) {
			md5 = true;
		} else if (strcmp(argv[1], "--sha1") == 0 && argc > 3) {
			sha1 = !strcmp(argv[2], "yes") ? KSP_SHA1_YES : !strcmp(argv[2], "no") ? KSP_SHA1_NO
											    : KSP_SHA1_BEFORE_2019;
			argc--, argv++;
		} else {
			break;
		}
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s [--sha1 yes|before-2019|no] [--allow-md5] KEYRING\n", argv[0]);
		return 2;
	}
	gcry_check_version(NULL);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read_fd_all(fd, 1u << 30, &buf, &len) < 0) {
		perror(argv[1]);
		return 2;
	}
	close(fd);
	if (ksp_new(&ctx) < 0 || ksp_pgp_reader_new(ctx, buf, len, argv[1], &rd) < 0)
		return 2;
	while ((r = ksp_pgp_reader_next(rd, &k)) > 0) {
		if (n_keys == cap) {
			cap = cap ? 2 * cap : 1024;
			keys = realloc(keys, cap * sizeof(*keys));
			if (!keys)
				return 2;
		}
		keys[n_keys++] = k;
	}
	for (size_t i = 0; i < n_keys; i++) {
		char fpr[65], ikid[17], uh[41];
		uint8_t md[20];

		k = keys[i];
		ksp_pgp_fpr_hex(&k->primary, fpr);
		for (size_t u = 0; u < k->n_uids; u++) {
			const struct ksp_pgp_uid *uid = &k->uids[u];
			if (uid->attribute)
				continue;
			gcry_md_hash_buffer(GCRY_MD_RMD160, md, uid->data, uid->len);
			hex_encode(md, 20, uh);
			for (size_t j = 0; j < uid->n_sigs; j++) {
				const struct ksp_pgp_sig *s = &uid->sigs[j];
				size_t from = 0;
				int st = KSP_VERIFY_NO_ISSUER, c;

				while ((c = find(s, &from)) >= 0) {
					st = ksp_pgp_verify_uid_sig(&keys[c]->primary, &k->primary, uid, s);
					if (st == KSP_VERIFY_GOOD)
						break;
				}
				if (s->issuer_fpr_len)
					hex_encode(s->issuer_fpr + (s->issuer_fpr_len == 20 ? 12 : 0), 8, ikid);
				else if (s->has_issuer)
					hex_encode(s->issuer, 8, ikid);
				else
					strcpy(ikid, "-");
				{
					/* gpg: the self-signatures escape the SHA-1 rule, not the MD5 one */
					bool self = s->issuer_fpr_len ? (s->issuer_fpr_len == k->primary.fpr_len &&
									 memcmp(s->issuer_fpr, k->primary.fpr,
										s->issuer_fpr_len) == 0)
								      : (s->has_issuer && memcmp(s->issuer, k->primary.keyid, 8) == 0);
					int w = ksp_hash_rule(s->hash_algo, s->created, md5, self ? KSP_SHA1_YES : sha1);

					if (w != KSP_HASH_KEPT && st != KSP_VERIFY_NO_ISSUER)
						st = -1;
				}
				printf("%s\t%s\t%s\t%u\t%02x\t%s\n", fpr, uh, ikid, s->created, s->type,
				       st == -1 ? "refused" : st >= 0 && st <= 4 ? names[st] : "error");
			}
		}
	}
	for (size_t i = 0; i < n_keys; i++)
		ksp_pgp_key_free(keys[i]);
	free(keys);
	ksp_pgp_reader_free(rd);
	ksp_unref(ctx);
	free(buf);
	return 0;
}
