// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * store-verify.c: the store's queries for the signature verifiers, the
 * revocations known now and GnuPG's user ID expiry (store-verify.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/store/store-verify.h"

#define KEYROW_SELECT "SELECT id, fpr, keydata, expires, revoked, revoked_reason, selfsig_ok FROM keys"

/* The rows of @sql (KEYROW_SELECT and a condition on ?1: @text, or @blob
 * of @blob_len bytes, or none) with key data, each given to @fn. */
static int walk_keys(struct ksp_store *store, const char *sql, const char *text, const void *blob, size_t blob_len,
		     ksp_store_keyrow_fn fn, void *arg)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ctx, db, rc, "find the signing key");
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	else if (blob)
		sqlite3_bind_blob(st, 1, blob, (int)blob_len, SQLITE_STATIC);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ksp_store_keyrow row = { .id = sqlite3_column_int64(st, 0) };

		row.keydata = sqlite3_column_blob(st, 2);
		row.keydata_len = (size_t)sqlite3_column_bytes(st, 2);
		row.fpr = (const char *)sqlite3_column_text(st, 1);
		row.expires = sqlite3_column_int64(st, 3);
		row.revoked = sqlite3_column_int64(st, 4);
		row.revoked_reason = sqlite3_column_type(st, 5) == SQLITE_NULL ? 0 : sqlite3_column_int(st, 5);
		row.selfsig_ok = sqlite3_column_int(st, 6) != 0;
		if (row.keydata == NULL || row.keydata_len == 0 || row.fpr == NULL)
			continue;
		r = fn(&row, arg);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = ksp_errno_from_sqlite(ctx, db, rc, "find the signing key");
	sqlite3_finalize(st);
	return r;
}

int ksp_store_keys_by_issuer(struct ksp_store *store, const char *fpr, const char *keyid, ksp_store_keyrow_fn fn,
			     void *arg)
{
	if (fpr[0])
		return walk_keys(store, KEYROW_SELECT " WHERE fpr = ?1", fpr, NULL, 0, fn, arg);
	return walk_keys(store, KEYROW_SELECT " WHERE keyid = ?1", keyid, NULL, 0, fn, arg);
}

int ksp_store_keys_holding(struct ksp_store *store, const uint8_t *bytes, size_t len, ksp_store_keyrow_fn fn,
			   void *arg)
{
	return walk_keys(store, KEYROW_SELECT " WHERE instr(keydata, ?1) > 0", NULL, bytes, len, fn, arg);
}

int ksp_store_keys_all(struct ksp_store *store, ksp_store_keyrow_fn fn, void *arg)
{
	return walk_keys(store, KEYROW_SELECT, NULL, NULL, 0, fn, arg);
}

int ksp_store_signer_uid(struct ksp_store *store, int64_t key_id, char **ret, size_t *ret_len)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(db,
				"SELECT uid FROM uids WHERE key_id = ? AND is_attr = 0 "
				"ORDER BY revoked != 0, primary_uid DESC, idx LIMIT 1",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ctx, db, rc, "signer's user ID");
	sqlite3_bind_int64(st, 1, key_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const void *b = sqlite3_column_blob(st, 0);
		size_t n = (size_t)sqlite3_column_bytes(st, 0);
		char *u = malloc(n + 1);

		if (u == NULL) {
			r = -ENOMEM;
		} else {
			if (n)
				memcpy(u, b, n);
			u[n] = '\0';
			*ret = u;
			*ret_len = n;
			r = 1;
		}
	} else if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(ctx, db, rc, "signer's user ID");
	}
	sqlite3_finalize(st);
	return r;
}

int ksp_store_key_revoked(struct ksp_store *store, const char *fpr, int64_t *when, int *reason)
{
	sqlite3_stmt *st;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(ksp_store_db(store),
				"SELECT revoked, revoked_reason FROM keys WHERE fpr = ?1 AND revoked != 0", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, fpr, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*when = sqlite3_column_int64(st, 0);
		*reason = sqlite3_column_type(st, 1) == SQLITE_NULL ? 0 : sqlite3_column_int(st, 1);
		r = 1;
	} else if (rc != SQLITE_DONE) {
		r = -EIO;
	}
	sqlite3_finalize(st);
	return r;
}

int ksp_store_cert_revoked(struct ksp_store *store, const char *issuer, const char *target, const void *uid,
			   size_t uid_len)
{
	sqlite3_stmt *st;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(ksp_store_db(store),
				"SELECT u.revoked, (SELECT count(*) FROM certs c WHERE c.uid_id = u.id AND c.sig_type = 48 "
				"AND c.verified = 1 AND c.issuer_fpr = ?2) FROM uids u JOIN keys k ON k.id = u.key_id "
				"WHERE k.fpr = ?1 AND u.uid = ?3",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, target, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, issuer, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, uid, (int)uid_len, SQLITE_STATIC);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_int64(st, 1) > 0)
			r = KSP_STORE_CERT_REVOKED;
		else if (sqlite3_column_int64(st, 0) != 0)
			r = KSP_STORE_UID_REVOKED;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = -EIO;
	sqlite3_finalize(st);
	return r;
}

int ksp_store_with_keydata(struct ksp_store *store, int64_t key_id,
			   int (*fn)(const uint8_t *data, size_t len, void *arg), void *arg)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(db, "SELECT keydata FROM keys WHERE id = ?", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ctx, db, rc, "keys");
	sqlite3_bind_int64(st, 1, key_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_BLOB) {
		const uint8_t *data = sqlite3_column_blob(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);

		r = fn(data, len, arg);
	} else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(ctx, db, rc, "keys");
	}
	sqlite3_finalize(st);
	return r;
}

int ksp_store_each_selfsigned_uid(struct ksp_store *store, int64_t key_id,
				  int (*fn)(int64_t uid_id, const void *uid, size_t len, int64_t selfsig, void *arg),
				  void *arg)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(db, "SELECT id, uid, selfsig FROM uids WHERE key_id = ? AND is_attr = 0 AND selfsig > 0",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ctx, db, rc, "uids");
	sqlite3_bind_int64(st, 1, key_id);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const void *uid = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);

		r = fn(sqlite3_column_int64(st, 0), uid, len, sqlite3_column_int64(st, 2), arg);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = ksp_errno_from_sqlite(ctx, db, rc, "uids");
	sqlite3_finalize(st);
	return r;
}
