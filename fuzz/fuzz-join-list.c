// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: 'party join''s reader of the announced list file
 * (src/lib/party/join.c, through ksp_party_join()), into an in-memory
 * store, every input rolled back.  The keyring is empty: a list that
 * reads goes on into the store's transaction and fails at its first key
 * (the keys' checks run gpg, 25 ms an input; the list is what is fuzzed
 * here).  Checked: nothing is stored once rolled back, and a join said
 * to succeed gives a version. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libksp.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksp_ctx *ctx;
	static struct ksp_store *store;
	struct ksp_party *party = NULL;
	int version = -1, r;

	if (store == NULL) {
		if (ksp_new(&ctx) < 0 ||
		    ksp_store_open(ctx, ":memory:", KSP_STORE_READ_WRITE | KSP_STORE_CREATE, &store) < 0)
			abort();
	}
	if (ksp_store_begin(store) < 0)
		abort();
	r = ksp_party_join(store, data, size, "fuzz", "", 0, "keyring", NULL, &party, &version);
	if (r == 0 && version < 1)
		abort();
	ksp_party_unref(party);
	if (ksp_store_rollback(store) < 0)
		abort();
	if (ksp_store_count(store, "keys") != 0)
		abort();
	return 0;
}
