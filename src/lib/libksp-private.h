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
