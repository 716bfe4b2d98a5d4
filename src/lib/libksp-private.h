/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

#include <libksp.h>
#include "shared/macro.h"

#define KSP_EXPORT __attribute__((visibility("default")))

void ksp_log(struct ksp_ctx *ctx, int priority, const char *file, int line,
	     const char *fn, const char *format, ...) _printf_format_(6, 7);

static inline void _printf_format_(2, 3) ksp_log_null(struct ksp_ctx *ctx, const char *format, ...)
{
}

#define ksp_log_cond(ctx, prio, arg...)                                              \
	do {                                                                         \
		if (ksp_get_log_priority(ctx) >= prio)                               \
			ksp_log(ctx, prio, __FILE__, __LINE__, __func__, ##arg);     \
	} while (0)

#if ENABLE_LOGGING
#if ENABLE_DEBUG
#define DBG(ctx, arg...) ksp_log_cond(ctx, LOG_DEBUG, ##arg)
#else
#define DBG(ctx, arg...) ksp_log_null(ctx, ##arg)
#endif
#define INFO(ctx, arg...) ksp_log_cond(ctx, LOG_INFO, ##arg)
#define NOTICE(ctx, arg...) ksp_log_cond(ctx, LOG_NOTICE, ##arg)
#define WARN(ctx, arg...) ksp_log_cond(ctx, LOG_WARNING, ##arg)
#define ERR(ctx, arg...) ksp_log_cond(ctx, LOG_ERR, ##arg)
#else
#define DBG(ctx, arg...) ksp_log_null(ctx, ##arg)
#define INFO(ctx, arg...) ksp_log_null(ctx, ##arg)
#define NOTICE(ctx, arg...) ksp_log_null(ctx, ##arg)
#define WARN(ctx, arg...) ksp_log_null(ctx, ##arg)
#define ERR(ctx, arg...) ksp_log_null(ctx, ##arg)
#endif

/* ctx.c: the last error message, one line, for the CLI to print.  Set by
 * ksp_set_error(); it is also sent to the log at LOG_ERR. */
void ksp_set_error(struct ksp_ctx *ctx, const char *format, ...) _printf_format_(2, 3);
void ksp_clear_error(struct ksp_ctx *ctx);
const char *ksp_get_tmpdir(const struct ksp_ctx *ctx);

/* errors.c */
struct sqlite3;
int ksp_errno_from_sqlite(struct ksp_ctx *ctx, struct sqlite3 *db, int rc, const char *what);
int ksp_errno_from_gpgme(struct ksp_ctx *ctx, unsigned int err, const char *what);

/* Key revocations (RFC 9580 5.2.3.31, as Sequoia reads them): "key
 * retired" (3), "key superseded" (1) and "user ID no longer valid" (32)
 * are soft: the key is revoked from the revocation's date on, and what it
 * certified before stays valid.  Any other reason, or none (0), is hard:
 * the key may have been compromised, so it is revoked at every date and
 * nothing it ever signed counts. */
static inline bool ksp_revocation_is_soft(int reason)
{
	return reason == 1 || reason == 3 || reason == 32;
}
/* SQL over keys.revoked/revoked_reason: "hard revocation" */
#define KSP_SQL_HARD_REVOKED(rev, reason) "(" rev " != 0 AND coalesce(" reason ", 0) NOT IN (1, 3, 32))"

/* store.c */
struct sqlite3 *ksp_store_db(struct ksp_store *store);
const char *ksp_store_path_internal(const struct ksp_store *store);
/* Opened with KSP_STORE_IMMUTABLE: nothing may be written beside it. */
bool ksp_store_is_immutable(const struct ksp_store *store);
extern const char ksp_schema_sql[];
extern const char ksp_schema2_sql[];
extern const char ksp_schema3_sql[];
extern const char ksp_schema4_sql[];
extern const char ksp_schema5_sql[];
extern const char ksp_schema6_sql[];
extern const char ksp_schema7_sql[];
extern const char ksp_schema8_sql[];
extern const char ksp_schema9_sql[];
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
/* Run a statement with no result rows; returns 0 or -errno (logged). */
int ksp_store_exec(struct ksp_store *store, const char *sql);
/* The id of the key row with this fingerprint, 0 if none, <0 error. */
int64_t ksp_store_key_id(struct ksp_store *store, const char *fpr);

/* gpghome.c: private temporary GnuPG homes */
struct ksp_gpghome;
int ksp_gpghome_new(struct ksp_ctx *ctx, struct ksp_gpghome **ret);
const char *ksp_gpghome_path(const struct ksp_gpghome *home);
struct ksp_gpghome *ksp_gpghome_free(struct ksp_gpghome *home);
/* For each folder @dir/@prefix* of this user whose @owner file names a
 * process that is gone (a ksp killed outright, SIGKILL), calls
 * @gone(ctx, path, pid): the sweep of private GnuPG homes and of party
 * sign's staging folders. */
void ksp_sweep_orphans(struct ksp_ctx *ctx, const char *dir, const char *prefix, const char *owner,
		       void (*gone)(struct ksp_ctx *ctx, const char *path, long pid));
int ksp_rm_rf(const char *path);

/* Report progress of long work to the ctx's progress function, if any. */
void ksp_progress(struct ksp_ctx *ctx, const char *what, uint64_t done, uint64_t total);
