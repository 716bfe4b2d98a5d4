// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gnupg-uidexp.c: when the self-signature of each user ID of a key
 * expires, for GnuPG's model (trust-gnupg.c).  GnuPG takes a user ID's
 * newest valid self-signature (getkey.c merge_selfsigs_main()) and, when
 * that signature has expired by "now" (parse-packet.c: expiredate <= now),
 * the user ID is expired: its certifications count for nothing
 * (trustdb.c validate_one_keyblock()).  The store keeps the creation time
 * of the newest valid self-signature (uids.selfsig) and the key as read
 * (keys.keydata); the signature's expiry is read from there: the
 * self-certification of that user ID made at that time (the last one in
 * the key when several are).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/openpgp/pgp.h"
#include "lib/trust/gnupg-uidexp.h"

static bool self_issued(const struct ksp_pgp_key *k, const struct ksp_pgp_sig *s)
{
	if (s->issuer_fpr_version && s->issuer_fpr_len == k->primary.fpr_len)
		return memcmp(s->issuer_fpr, k->primary.fpr, k->primary.fpr_len) == 0;
	return s->has_issuer && memcmp(s->issuer, k->primary.keyid, 8) == 0;
}

/* The expiry of the self-certification of @uid made at @selfsig, 0 none. */
static int64_t uid_expiry(const struct ksp_pgp_key *k, const void *uid, size_t len, int64_t selfsig)
{
	int64_t exp = 0;

	for (size_t i = 0; i < k->n_uids; i++) {
		const struct ksp_pgp_uid *u = &k->uids[i];

		if (u->attribute || u->len != len || (len && memcmp(u->data, uid, len) != 0))
			continue;
		for (size_t j = 0; j < u->n_sigs; j++) {
			const struct ksp_pgp_sig *s = &u->sigs[j];

			if (s->type < 0x10 || s->type > 0x13 || s->created != selfsig || !self_issued(k, s))
				continue;
			exp = s->expires ? (int64_t)s->created + s->expires : 0;
		}
	}
	return exp;
}

int ksp_gnupg_uid_expiries(struct ksp_ctx *ctx, struct ksp_store *store, int64_t key_id,
			   struct ksp_gnupg_uidexp **ret, size_t *n_ret)
{
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st = NULL;
	struct ksp_pgp_reader *rd = NULL;
	struct ksp_pgp_key *k = NULL;
	struct ksp_gnupg_uidexp *out = NULL;
	size_t n = 0, cap = 0;
	int rc, r = 0;

	*ret = NULL;
	*n_ret = 0;
	rc = sqlite3_prepare_v2(db, "SELECT keydata FROM keys WHERE id = ?", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ctx, db, rc, "keys");
	sqlite3_bind_int64(st, 1, key_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_BLOB) {
		const void *data = sqlite3_column_blob(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);

		r = ksp_pgp_reader_new(ctx, data, len, "keys.keydata", &rd);
		if (r == 0)
			r = ksp_pgp_reader_next(rd, &k);
		r = r < 0 ? r : 0; /* no key in it: no expiry known */
	} else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(ctx, db, rc, "keys");
	}
	sqlite3_finalize(st);
	st = NULL;
	if (r < 0 || k == NULL)
		goto out;
	rc = sqlite3_prepare_v2(db, "SELECT id, uid, selfsig FROM uids WHERE key_id = ? AND is_attr = 0 AND selfsig > 0",
				-1, &st, NULL);
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(ctx, db, rc, "uids");
		goto out;
	}
	sqlite3_bind_int64(st, 1, key_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t exp = uid_expiry(k, sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
					 sqlite3_column_int64(st, 2));

		if (exp == 0)
			continue;
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 4;
			void *p = realloc(out, nc * sizeof(*out));
			if (p == NULL) {
				r = -ENOMEM;
				goto out;
			}
			out = p;
			cap = nc;
		}
		out[n++] = (struct ksp_gnupg_uidexp){ .uid_id = sqlite3_column_int64(st, 0), .expires = exp };
	}
	if (rc != SQLITE_DONE)
		r = ksp_errno_from_sqlite(ctx, db, rc, "uids");
out:
	sqlite3_finalize(st);
	ksp_pgp_key_free(k);
	ksp_pgp_reader_free(rd);
	if (r < 0) {
		free(out);
		return r;
	}
	*ret = out;
	*n_ret = n;
	return 0;
}
