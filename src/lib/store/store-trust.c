// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * store-trust.c: the store's reads for the trust models and health
 * (store-trust.h),
 * so that trust/ holds no SQL: the graph itself they read from the
 * snapshot (wot/wot-snap.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/store/store-trust.h"

/* A read of @what failed with SQLite's @rc: the error (unless one is set
 * already) and -errno. */
static int read_failed(struct ksp_store *store, int rc, const char *what)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	const char *path = ksp_store_get_path(store);
	int r = ksp_errno_from_sqlite(ctx, ksp_store_db(store), rc, what);

	if (r == 0)
		r = -EIO;
	if (ksp_get_error(ctx))
		return r;
	if (r == -EBUSY)
		ksp_set_error(ctx, "%s: database is busy (another ksp is writing); try again when it has finished", path);
	else if (r == -EBADMSG)
		ksp_set_error(ctx, "%s: cannot read the %s: the store is damaged; restore it from a backup or load the keys again",
			      path, what);
	else if (r == -ENOMEM)
		ksp_set_error(ctx, "%s: cannot read the %s: out of memory; free some memory and retry", path, what);
	else
		ksp_set_error(ctx, "%s: cannot read the %s: %s; check the file (sqlite3 %s 'PRAGMA integrity_check') and retry",
			      path, what, strerror(-r), path);
	return r;
}

struct ksp_store_key_lookup {
	struct ksp_store *store;
	sqlite3_stmt *st;
};

int ksp_store_key_lookup_new(struct ksp_store *store, struct ksp_store_key_lookup **ret)
{
	struct ksp_store_key_lookup *q;
	int rc;

	if (store == NULL || ret == NULL)
		return -EINVAL;
	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return -ENOMEM;
	q->store = store;
	rc = sqlite3_prepare_v2(ksp_store_db(store), "SELECT id FROM keys WHERE fpr = ?", -1, &q->st, NULL);
	if (rc != SQLITE_OK) {
		free(q);
		return read_failed(store, rc, "keys");
	}
	*ret = q;
	return 0;
}

int64_t ksp_store_key_lookup(struct ksp_store_key_lookup *q, const char *fpr)
{
	int64_t id = 0;
	int rc;

	if (q == NULL || fpr == NULL)
		return -EINVAL;
	sqlite3_bind_text(q->st, 1, fpr, -1, SQLITE_STATIC);
	rc = sqlite3_step(q->st);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(q->st, 0);
	else if (rc != SQLITE_DONE)
		id = read_failed(q->store, rc, "keys");
	sqlite3_reset(q->st);
	sqlite3_clear_bindings(q->st);
	return id;
}

struct ksp_store_key_lookup *ksp_store_key_lookup_free(struct ksp_store_key_lookup *q)
{
	if (q) {
		sqlite3_finalize(q->st);
		free(q);
	}
	return NULL;
}

int ksp_store_participant_fprs(struct ksp_store *store, bool by_ord, int (*fn)(void *data, const char *fpr),
			       void *data)
{
	sqlite3_stmt *st = NULL;
	int rc, r = 0;

	if (store == NULL || fn == NULL)
		return -EINVAL;
	rc = sqlite3_prepare_v2(ksp_store_db(store),
				by_ord ? "SELECT k.fpr FROM participants p JOIN keys k ON k.id = p.key_id ORDER BY p.ord"
				       : "SELECT k.fpr FROM participants p JOIN keys k ON k.id = p.key_id",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return read_failed(store, rc, "participants");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && r == 0)
		r = fn(data, (const char *)sqlite3_column_text(st, 0));
	if (r == 0 && rc != SQLITE_DONE)
		r = read_failed(store, rc, "participants");
	sqlite3_finalize(st);
	return r;
}
