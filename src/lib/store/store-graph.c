// SPDX-License-Identifier: LGPL-2.1-or-later
/* store-graph.c: the store's answers for graph/ (store-graph.h). */
#include <errno.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/store/store-graph.h"

struct ksp_store_key_names {
	struct ksp_store *store;
	sqlite3_stmt *st;
};

int ksp_store_key_names_new(struct ksp_store *store, struct ksp_store_key_names **ret)
{
	sqlite3 *db = ksp_store_db(store);
	struct ksp_store_key_names *q;
	int rc;

	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return -ENOMEM;
	q->store = store;
	rc = sqlite3_prepare_v2(db,
				"SELECT k.keyid, (SELECT u.uid FROM uids u WHERE u.key_id = k.id AND u.is_attr = 0 "
				"ORDER BY u.revoked != 0, u.primary_uid DESC, u.idx LIMIT 1) FROM keys k WHERE k.id = ?1",
				-1, &q->st, NULL);
	if (rc != SQLITE_OK) {
		free(q);
		return ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "keys");
	}
	*ret = q;
	return 0;
}

void ksp_store_key_names_free(struct ksp_store_key_names *q)
{
	if (q) {
		sqlite3_finalize(q->st);
		free(q);
	}
}

int ksp_store_key_name(struct ksp_store_key_names *q, int64_t key_id, const char **ret_keyid, const void **ret_uid,
		       size_t *ret_uid_len)
{
	int rc;

	sqlite3_reset(q->st);
	sqlite3_bind_int64(q->st, 1, key_id);
	rc = sqlite3_step(q->st);
	if (rc == SQLITE_ROW) {
		*ret_keyid = (const char *)sqlite3_column_text(q->st, 0);
		*ret_uid = sqlite3_column_blob(q->st, 1);
		*ret_uid_len = (size_t)sqlite3_column_bytes(q->st, 1);
		return 1;
	}
	if (rc == SQLITE_DONE)
		return 0;
	return ksp_errno_from_sqlite(ksp_store_get_ctx(q->store), ksp_store_db(q->store), rc, "keys");
}

int ksp_store_party_head(struct ksp_store *store,
			 int (*head)(void *opaque, const void *name, size_t name_len, const char *date), void *opaque)
{
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st = NULL;
	int rc, r;

	rc = sqlite3_prepare_v2(db, "SELECT name, date FROM party WHERE id = 1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "party");
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		r = 0;
	} else if (rc != SQLITE_ROW) {
		r = ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "party");
	} else {
		r = head(opaque, sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0),
			 (const char *)sqlite3_column_text(st, 1));
		if (r >= 0)
			r = 1;
	}
	sqlite3_finalize(st);
	return r;
}

int ksp_store_party_members(struct ksp_store *store,
			    int (*row)(void *opaque, int ord, int64_t key_id, const char *fpr, bool absent),
			    void *opaque)
{
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st = NULL;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(db,
				"SELECT p.ord, k.id, k.fpr, EXISTS (SELECT 1 FROM attendance a WHERE a.fpr = k.fpr AND a.absent) "
				"FROM participants p JOIN keys k ON k.id = p.key_id ORDER BY p.ord",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "participants");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r = row(opaque, sqlite3_column_int(st, 0), sqlite3_column_int64(st, 1),
			(const char *)sqlite3_column_text(st, 2), sqlite3_column_int(st, 3) != 0);
		if (r < 0)
			break;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "participants");
	sqlite3_finalize(st);
	return r;
}
