// SPDX-License-Identifier: LGPL-2.1-or-later
/* store-publish.c: the store's answers for publish/ (store-publish.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/store/store-publish.h"

int ksp_store_publish_keys(struct ksp_store *store,
			   int (*row)(void *opaque, int64_t id, const char *fpr, const char *keyid, const void *uid,
				      size_t uid_len),
			   void *opaque)
{
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st = NULL;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(db,
				"SELECT k.id, k.fpr, k.keyid, (SELECT u.uid FROM uids u WHERE u.key_id = k.id AND u.is_attr = 0 "
				"ORDER BY u.primary_uid DESC, u.revoked != 0, u.idx LIMIT 1) FROM keys k "
				"WHERE k.keydata IS NOT NULL ORDER BY k.fpr",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "keys");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r = row(opaque, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
			(const char *)sqlite3_column_text(st, 2), sqlite3_column_blob(st, 3),
			(size_t)sqlite3_column_bytes(st, 3));
		if (r < 0)
			break;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "keys");
	sqlite3_finalize(st);
	return r;
}

struct ksp_store_key_files {
	struct ksp_store *store;
	sqlite3_stmt *data, *cert;
};

int ksp_store_key_files_new(struct ksp_store *store, struct ksp_store_key_files **ret)
{
	sqlite3 *db = ksp_store_db(store);
	struct ksp_store_key_files *q;
	int rc;

	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return -ENOMEM;
	q->store = store;
	if ((rc = sqlite3_prepare_v2(db, "SELECT keydata FROM keys WHERE id = ?1", -1, &q->data, NULL)) != SQLITE_OK ||
	    (rc = sqlite3_prepare_v2(db, "SELECT issuer_fpr FROM certs WHERE uid_id = ?1 AND digest = ?2 AND verified = 1",
				     -1, &q->cert, NULL)) != SQLITE_OK) {
		ksp_store_key_files_free(q);
		return ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "publish");
	}
	*ret = q;
	return 0;
}

void ksp_store_key_files_free(struct ksp_store_key_files *q)
{
	if (q) {
		sqlite3_finalize(q->data);
		sqlite3_finalize(q->cert);
		free(q);
	}
}

int ksp_store_key_material(struct ksp_store_key_files *q, int64_t key_id, const void **ret, size_t *ret_len)
{
	int rc;

	sqlite3_reset(q->data);
	sqlite3_bind_int64(q->data, 1, key_id);
	rc = sqlite3_step(q->data);
	if (rc == SQLITE_ROW) {
		*ret = sqlite3_column_blob(q->data, 0);
		*ret_len = (size_t)sqlite3_column_bytes(q->data, 0);
		return 1;
	}
	if (rc == SQLITE_DONE)
		return 0;
	return ksp_errno_from_sqlite(ksp_store_get_ctx(q->store), ksp_store_db(q->store), rc, "keys");
}

int ksp_store_cert_issuer(struct ksp_store_key_files *q, int64_t uid_id, const char *digest, char issuer[65])
{
	int rc;

	sqlite3_reset(q->cert);
	sqlite3_bind_int64(q->cert, 1, uid_id);
	sqlite3_bind_text(q->cert, 2, digest, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(q->cert);
	if (rc == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(q->cert, 0);
		snprintf(issuer, 65, "%s", f ? f : "");
		return 1;
	}
	if (rc == SQLITE_DONE)
		return 0;
	return ksp_errno_from_sqlite(ksp_store_get_ctx(q->store), ksp_store_db(q->store), rc, "certs");
}
