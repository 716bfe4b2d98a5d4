/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The store's internal API for the library's folders (store.c, schema.c):
 * its SQLite handle for the folders that write SQL (wot/, party/ and the
 * store's own query files, store-*.c), its cache slot for the graph
 * snapshot, its transaction hooks.  The analysis folders (trust/, health/,
 * graph/, publish/) use the query files' headers (store-trust.h, ...),
 * never SQL.  The public part is in libksp.h.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "lib/libksp-private.h"

/* SQL over keys.revoked/revoked_reason: "hard revocation" */
#define KSP_SQL_HARD_REVOKED(rev, reason) "(" rev " != 0 AND coalesce(" reason ", 0) NOT IN (1, 3, 32))"

struct sqlite3 *ksp_store_db(struct ksp_store *store);
const char *ksp_store_path_internal(const struct ksp_store *store);
/* Opened with KSP_STORE_IMMUTABLE: nothing may be written beside it. */
bool ksp_store_is_immutable(const struct ksp_store *store);
/* A cache kept with the store and freed with it (the graph snapshot,
 * wot/wot-snap.c): the store knows nothing of what it holds.  Setting it
 * frees the one before (with the free function given with it). */
void *ksp_store_cache(struct ksp_store *store);
void ksp_store_set_cache(struct ksp_store *store, void *cache, void (*free_fn)(void *cache));
/* @fn runs once after the outermost transaction commits (the snapshot's
 * refresh after a load); its failure costs only time, so it is logged
 * (INFO) and not returned. */
void ksp_store_after_commit(struct ksp_store *store, int (*fn)(struct ksp_store *store));
/* SQLite's page cache (2 MB by default) raised to kb KiB on this connection
 * for a large load or scan; returns the setting to give back to
 * ksp_store_cache_restore(), 0 (nothing to restore) when it was large
 * enough already or could not be changed. */
int64_t ksp_store_cache_grow(struct ksp_store *store, int kb);
/* For whole-store scans (graph views, snapshots): enough for the user IDs
 * and key indexes they join against at 10^5 keys; larger is slower. */
#define KSP_STORE_SCAN_CACHE_KB 32768
void ksp_store_cache_restore(struct ksp_store *store, int64_t old);
/* The page cache set to kb KiB, smaller or larger; returns the setting to
 * give back to ksp_store_cache_restore() (0: unknown, unchanged). */
int64_t ksp_store_cache_set(struct ksp_store *store, int kb);
/* Run a statement with no result rows; returns 0 or -errno (logged). */
int ksp_store_exec(struct ksp_store *store, const char *sql);
/* The id of the key row with this fingerprint, 0 if none, <0 error. */
int64_t ksp_store_key_id(struct ksp_store *store, const char *fpr);
