// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target, differential: the structural metrics of an input read
 * without the store (ksp_wot_scan_add) must equal those of the same input
 * loaded unverified into an in-memory store (rolled back after). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libksp.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const struct ksp_wot_stats *a, const struct ksp_wot_stats *b)
{
	if (ksp_wot_stats_get_vertices(a) != ksp_wot_stats_get_vertices(b) ||
	    ksp_wot_stats_get_edges(a) != ksp_wot_stats_get_edges(b) ||
	    ksp_wot_stats_get_scc_count(a) != ksp_wot_stats_get_scc_count(b) ||
	    ksp_wot_stats_get_strong_set_size(a) != ksp_wot_stats_get_strong_set_size(b) ||
	    ksp_wot_stats_get_distance_sum(a) != ksp_wot_stats_get_distance_sum(b))
		abort();
	for (unsigned i = 0; i < KSP_WOT_CERTS_MAX; i++)
		if (ksp_wot_stats_get_certs(a, i) != ksp_wot_stats_get_certs(b, i))
			abort();
	for (size_t r = 0;; r++) {
		const char *x = ksp_wot_stats_get_ranked(a, r, NULL, NULL), *y = ksp_wot_stats_get_ranked(b, r, NULL, NULL);
		if (x == NULL || y == NULL) {
			if (x != y)
				abort();
			break;
		}
		if (strcmp(x, y) != 0)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksp_ctx *ctx;
	static struct ksp_store *store;
	struct ksp_wot_scan *scan = NULL;
	struct ksp_wot_stats *a = NULL, *b = NULL;
	int ra, rb;

	if (store == NULL) {
		if (ksp_new(&ctx) < 0 ||
		    ksp_store_open(ctx, ":memory:", KSP_STORE_READ_WRITE | KSP_STORE_CREATE, &store) < 0)
			abort();
	}
	if (ksp_wot_scan_new(ctx, &scan) < 0 || ksp_store_begin(store) < 0)
		abort();
	ra = ksp_wot_scan_add(scan, data, size, "fuzz", NULL, NULL, NULL);
	rb = ksp_wot_load(store, data, size, "fuzz", KSP_WOT_LOAD_NO_VERIFY, NULL, NULL, NULL);
	if ((ra < 0) != (rb < 0))
		abort();
	if (ra == 0) {
		if (ksp_wot_stats_new_from_scan(scan, 0, KSP_WOT_STRUCTURAL, &a) < 0 ||
		    ksp_wot_stats_new(store, 0, KSP_WOT_STRUCTURAL, &b) < 0)
			abort();
		same(a, b);
	}
	ksp_wot_stats_free(a);
	ksp_wot_stats_free(b);
	ksp_wot_scan_free(scan);
	if (ksp_store_rollback(store) < 0)
		abort();
	return 0;
}
