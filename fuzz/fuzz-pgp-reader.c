// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the native OpenPGP reader (src/lib/openpgp/pgp.h), binary and
 * armored keyrings, every key and every field it hands back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/libksp-private.h"
#include "lib/openpgp/pgp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void touch(const uint8_t *p, size_t len, volatile uint8_t *sink)
{
	/* read every byte a key points to: ASan flags a pointer past its buffer */
	for (size_t i = 0; i < len; i++)
		*sink ^= p[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksp_ctx *ctx;
	struct ksp_pgp_reader *rd = NULL;
	struct ksp_pgp_key *key;
	volatile uint8_t sink = 0;
	char fpr[65];
	size_t dlen;
	const uint8_t *d;

	if (ctx == NULL && ksp_new(&ctx) < 0)
		abort();
	if (ksp_pgp_reader_new(ctx, data, size, "fuzz", &rd) < 0)
		return 0;
	d = ksp_pgp_reader_data(rd, &dlen);
	while (ksp_pgp_reader_next(rd, &key) > 0) {
		if (key->offset > dlen || key->end > dlen || key->end < key->offset)
			abort();
		ksp_pgp_fpr_hex(&key->primary, fpr);
		if (strlen(fpr) != 2u * key->primary.fpr_len)
			abort();
		touch(key->primary.body, key->primary.body_len, &sink);
		for (size_t i = 0; i < key->primary.n_sigs; i++)
			touch(key->primary.sigs[i].body, key->primary.sigs[i].body_len, &sink);
		for (size_t u = 0; u < key->n_uids; u++) {
			touch(key->uids[u].data, key->uids[u].len, &sink);
			for (size_t i = 0; i < key->uids[u].n_sigs; i++) {
				const struct ksp_pgp_sig *s = &key->uids[u].sigs[i];
				touch(s->body, s->body_len, &sink);
				for (size_t k = 0; k < s->n_regexes; k++)
					touch(s->regexes[k].data, s->regexes[k].len, &sink);
				touch(s->revocation_reason.data, s->revocation_reason.len, &sink);
			}
		}
		for (size_t k = 0; k < key->n_subkeys; k++) {
			touch(key->subkeys[k].body, key->subkeys[k].body_len, &sink);
			for (size_t i = 0; i < key->subkeys[k].n_sigs; i++)
				touch(key->subkeys[k].sigs[i].body, key->subkeys[k].sigs[i].body_len, &sink);
		}
		ksp_pgp_key_free(key);
	}
	(void)d;
	ksp_pgp_reader_free(rd);
	return 0;
}
