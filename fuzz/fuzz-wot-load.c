// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: ksp_wot_load() into an in-memory store, the whole
 * path from bytes to SQL rows; every input is rolled back. */
#include <stdint.h>
#include <stdlib.h>

#include <libksp.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksp_ctx *ctx;
	static struct ksp_store *store;
	uint64_t keys = 0, certs = 0, bad = 0;

	if (store == NULL) {
		if (ksp_new(&ctx) < 0 ||
		    ksp_store_open(ctx, ":memory:", KSP_STORE_READ_WRITE | KSP_STORE_CREATE, &store) < 0)
			abort();
	}
	if (ksp_store_begin(store) < 0)
		abort();
	(void)ksp_wot_load(store, data, size, "fuzz", 0, &keys, &certs, &bad);
	if (ksp_store_rollback(store) < 0)
		abort();
	if (ksp_store_count(store, "keys") != 0)
		abort();
	return 0;
}
