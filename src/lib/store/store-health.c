// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * store-health.c: the store's queries for the trust health report
 * (store-health.h), so that src/lib/health/ reads the graph snapshot and
 * these functions, never SQL.
 */
#include <errno.h>
#include <stdio.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/store/store-health.h"

bool ksp_store_health_read_begin(struct ksp_store *store)
{
	return sqlite3_get_autocommit(ksp_store_db(store)) && ksp_store_exec(store, "BEGIN") == 0;
}

void ksp_store_health_read_end(struct ksp_store *store, bool begun)
{
	if (begun)
		ksp_store_exec(store, "COMMIT");
}

int ksp_store_health_cert_hash(struct ksp_store *store, int64_t uid_id, const char *issuer_fpr, int64_t created,
			       int *hash)
{
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(db,
				"SELECT c.hash_algo FROM certs c WHERE c.uid_id = ? AND c.issuer_fpr = ? AND c.created = ? "
				"ORDER BY c.hash_algo LIMIT 1",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "certs");
	sqlite3_bind_int64(st, 1, uid_id);
	sqlite3_bind_text(st, 2, issuer_fpr, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, created);
	if (sqlite3_step(st) == SQLITE_ROW)
		*hash = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}
