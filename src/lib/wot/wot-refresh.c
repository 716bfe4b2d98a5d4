// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wot-refresh.c: the last commit of a keyring git repository that 'ksp wot
 * refresh' checked (every commit up to it signed by a key the core trusts)
 * and loaded, per repository (schema 6, table refresh).  The checking and
 * the git calls are the CLI's; the store only remembers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"

static bool commit_id_ok(const char *c)
{
	size_t n = strlen(c);

	if (n != 40 && n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((c[i] >= '0' && c[i] <= '9') || (c[i] >= 'a' && c[i] <= 'f')))
			return false;
	return true;
}

KSP_EXPORT int ksp_wot_refresh_get(struct ksp_store *store, const char *repo, char **ret_commit)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db;
	int rc, r = 0;

	if (store == NULL || repo == NULL || ret_commit == NULL)
		return -EINVAL;
	*ret_commit = NULL;
	db = ksp_store_db(store);
	rc = sqlite3_prepare_v2(db, "SELECT commit_id FROM refresh WHERE repo = ?1", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, repo, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	if (rc == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		if (c && commit_id_ok(c)) {
			*ret_commit = strdup(c);
			if (*ret_commit == NULL)
				r = -ENOMEM;
		}
	} else if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "refresh state");
	}
	sqlite3_finalize(st);
	return r;
}

KSP_EXPORT int ksp_wot_refresh_set(struct ksp_store *store, const char *repo, const char *commit)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db;
	int rc;

	if (store == NULL || repo == NULL || commit == NULL || !commit_id_ok(commit))
		return -EINVAL;
	db = ksp_store_db(store);
	rc = sqlite3_prepare_v2(db,
				"INSERT INTO refresh(repo, commit_id, time) VALUES (?1, ?2, ?3) "
				"ON CONFLICT(repo) DO UPDATE SET commit_id = ?2, time = ?3",
				-1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, repo, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, commit, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, (int64_t)time(NULL));
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "refresh state");
	return 0;
}
