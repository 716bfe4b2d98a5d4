// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp wot load: the native reader into the store, one transaction. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcrypt.h>
#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/pgp.h"
#include "shared/util.h"

struct loader {
	struct ksp_store *store;
	struct ksp_ctx *ctx;
	sqlite3 *db;
	sqlite3_stmt *key, *keyid, *uid, *uidid, *cert;
	uint64_t keys, certs, bad, secret;
};

static int prep(struct loader *l, sqlite3_stmt **st, const char *sql)
{
	int rc = sqlite3_prepare_v2(l->db, sql, -1, st, NULL);
	return rc == SQLITE_OK ? 0 : ksp_errno_from_sqlite(l->ctx, l->db, rc, sql);
}

static int step_done(struct loader *l, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return ksp_errno_from_sqlite(l->ctx, l->db, rc, what);
	return 0;
}

static bool is_self(const struct ksp_pgp_key *k, const struct ksp_pgp_sig *s)
{
	if (s->issuer_fpr_len && s->issuer_fpr_len == k->primary.fpr_len)
		return memcmp(s->issuer_fpr, k->primary.fpr, s->issuer_fpr_len) == 0;
	return s->has_issuer && memcmp(s->issuer, k->primary.keyid, 8) == 0;
}

static int store_one(struct loader *l, const struct ksp_pgp_key *k, const char *source)
{
	const struct ksp_pgp_pubkey *pk = &k->primary;
	char fpr[65], keyid[17];
	int64_t key_id, expires = 0, revoked = 0;
	int r;

	ksp_pgp_fpr_hex(pk, fpr);
	hex_encode(pk->keyid, 8, keyid);
	/* the newest self-signature's key expiration, a key revocation */
	for (size_t i = 0; i < pk->n_sigs; i++)
		if (pk->sigs[i].type == 0x20 && is_self(k, &pk->sigs[i]))
			revoked = pk->sigs[i].created ? pk->sigs[i].created : 1;
	uint32_t newest = 0;
	for (size_t u = 0; u < k->n_uids; u++)
		for (size_t i = 0; i < k->uids[u].n_sigs; i++) {
			const struct ksp_pgp_sig *s = &k->uids[u].sigs[i];
			if (s->type >= 0x10 && s->type <= 0x13 && is_self(k, s) && s->created >= newest) {
				newest = s->created;
				expires = s->has_key_expires && s->key_expires ? (int64_t)pk->created + s->key_expires : 0;
			}
		}
	sqlite3_bind_text(l->key, 1, fpr, -1, SQLITE_STATIC);
	sqlite3_bind_text(l->key, 2, keyid, -1, SQLITE_STATIC);
	sqlite3_bind_int(l->key, 3, pk->version);
	sqlite3_bind_int(l->key, 4, pk->algo);
	sqlite3_bind_int(l->key, 5, (int)pk->bits);
	if (pk->curve)
		sqlite3_bind_text(l->key, 6, pk->curve, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(l->key, 6);
	sqlite3_bind_int64(l->key, 7, pk->created);
	sqlite3_bind_int64(l->key, 8, expires);
	sqlite3_bind_int64(l->key, 9, revoked);
	sqlite3_bind_text(l->key, 10, source, -1, SQLITE_STATIC);
	r = step_done(l, l->key, "store key");
	if (r < 0)
		return r;
	sqlite3_bind_text(l->keyid, 1, fpr, -1, SQLITE_STATIC);
	if (sqlite3_step(l->keyid) != SQLITE_ROW) {
		sqlite3_reset(l->keyid);
		return -EIO;
	}
	key_id = sqlite3_column_int64(l->keyid, 0);
	sqlite3_reset(l->keyid);

	for (size_t u = 0; u < k->n_uids; u++) {
		const struct ksp_pgp_uid *uid = &k->uids[u];
		int64_t uid_id, uid_rev = 0, selfsig = 0;

		for (size_t i = 0; i < uid->n_sigs; i++) {
			const struct ksp_pgp_sig *s = &uid->sigs[i];
			if (!is_self(k, s))
				continue;
			if (s->type == 0x30)
				uid_rev = s->created ? s->created : 1;
			else if (s->type >= 0x10 && s->type <= 0x13 && s->created > selfsig)
				selfsig = s->created;
		}
		sqlite3_bind_int64(l->uid, 1, key_id);
		sqlite3_bind_int64(l->uid, 2, (int64_t)u);
		sqlite3_bind_blob(l->uid, 3, uid->data, (int)uid->len, SQLITE_STATIC);
		sqlite3_bind_int(l->uid, 4, uid->attribute);
		sqlite3_bind_int64(l->uid, 5, selfsig);
		sqlite3_bind_int64(l->uid, 6, uid_rev);
		r = step_done(l, l->uid, "store uid");
		if (r < 0)
			return r;
		sqlite3_bind_int64(l->uidid, 1, key_id);
		sqlite3_bind_blob(l->uidid, 2, uid->data, (int)uid->len, SQLITE_STATIC);
		sqlite3_bind_int(l->uidid, 3, uid->attribute);
		if (sqlite3_step(l->uidid) != SQLITE_ROW) {
			sqlite3_reset(l->uidid);
			return -EIO;
		}
		uid_id = sqlite3_column_int64(l->uidid, 0);
		sqlite3_reset(l->uidid);

		for (size_t i = 0; i < uid->n_sigs; i++) {
			const struct ksp_pgp_sig *s = &uid->sigs[i];
			char ifpr[65], ikid[17], dig[41];
			uint8_t md[20];

			if (is_self(k, s) || !((s->type >= 0x10 && s->type <= 0x13) || s->type == 0x30))
				continue;
			if (s->issuer_fpr_len) {
				hex_encode(s->issuer_fpr, s->issuer_fpr_len, ifpr);
				if (s->issuer_fpr_len == 20)
					memcpy(ikid, ifpr + 24, 16);
				else
					memcpy(ikid, ifpr, 16);
				ikid[16] = '\0';
			} else if (s->has_issuer) {
				hex_encode(s->issuer, 8, ikid);
			} else {
				continue; /* no issuer at all: nothing to attribute */
			}
			gcry_md_hash_buffer(GCRY_MD_SHA1, md, s->body, s->body_len);
			hex_encode(md, 20, dig);
			sqlite3_bind_int64(l->cert, 1, uid_id);
			if (s->issuer_fpr_len)
				sqlite3_bind_text(l->cert, 2, ifpr, -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(l->cert, 2);
			sqlite3_bind_text(l->cert, 3, ikid, -1, SQLITE_STATIC);
			sqlite3_bind_int(l->cert, 4, s->type);
			sqlite3_bind_int(l->cert, 5, s->pk_algo);
			sqlite3_bind_int(l->cert, 6, s->hash_algo);
			sqlite3_bind_int64(l->cert, 7, s->created);
			sqlite3_bind_int64(l->cert, 8, s->expires ? (int64_t)s->created + s->expires : 0);
			sqlite3_bind_int(l->cert, 9, s->exportable);
			sqlite3_bind_int(l->cert, 10, s->trust_depth);
			sqlite3_bind_int(l->cert, 11, s->trust_amount);
			sqlite3_bind_blob(l->cert, 12, s->body, (int)s->body_len, SQLITE_STATIC);
			sqlite3_bind_text(l->cert, 13, dig, -1, SQLITE_STATIC);
			r = step_done(l, l->cert, "store certification");
			if (r < 0)
				return r;
			l->certs += (uint64_t)sqlite3_changes(l->db);
		}
	}
	l->keys++;
	return 0;
}

KSP_EXPORT int ksp_wot_load(struct ksp_store *store, const void *data, size_t len, const char *source,
			    unsigned int flags, uint64_t *ret_keys, uint64_t *ret_certs, uint64_t *ret_bad)
{
	struct loader l = { .store = store };
	struct ksp_pgp_reader *rd = NULL;
	struct ksp_pgp_key *k = NULL;
	int r;

	if (store == NULL || (data == NULL && len > 0))
		return -EINVAL;
	l.ctx = ksp_store_get_ctx(store);
	l.db = ksp_store_db(store);
	ksp_clear_error(l.ctx);
	if (source == NULL)
		source = "<input>";
	r = ksp_store_begin(store);
	if (r < 0)
		return r;
	if ((r = prep(&l, &l.key,
		      "INSERT INTO keys(fpr, keyid, version, algo, bits, curve, created, expires, revoked, source) "
		      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT(fpr) DO UPDATE SET "
		      "expires = max(expires, ?8), revoked = max(revoked, ?9), source = ?10")) < 0 ||
	    (r = prep(&l, &l.keyid, "SELECT id FROM keys WHERE fpr = ?")) < 0 ||
	    (r = prep(&l, &l.uid,
		      "INSERT INTO uids(key_id, idx, uid, is_attr, selfsig, revoked) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
		      "ON CONFLICT(key_id, uid, is_attr) DO UPDATE SET selfsig = max(selfsig, ?5), revoked = max(revoked, ?6)")) < 0 ||
	    (r = prep(&l, &l.uidid, "SELECT id FROM uids WHERE key_id = ? AND uid = ? AND is_attr = ?")) < 0 ||
	    (r = prep(&l, &l.cert,
		      "INSERT OR IGNORE INTO certs(uid_id, issuer_fpr, issuer_keyid, sig_type, pk_algo, hash_algo, created, "
		      "expires, exportable, trust_depth, trust_amount, verified, sigdata, digest) "
		      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 0, ?12, ?13)")) < 0)
		goto out;
	r = ksp_pgp_reader_new(l.ctx, data, len, source, &rd);
	if (r < 0)
		goto out;
	while ((r = ksp_pgp_reader_next(rd, &k)) > 0) {
		if (k->secret)
			l.secret++; /* only the public part was kept by the reader */
		r = store_one(&l, k, source);
		ksp_pgp_key_free(k);
		k = NULL;
		if (r < 0)
			goto out;
	}
	if (r < 0)
		goto out;
	l.bad = ksp_pgp_reader_n_bad_keys(rd);
	if ((flags & KSP_WOT_LOAD_STRICT) && l.bad) {
		ksp_set_error(l.ctx, "%s: %llu malformed key(s) (--strict); nothing was loaded", source,
			      (unsigned long long)l.bad);
		r = -EBADMSG;
		goto out;
	}
	if (l.keys == 0 && l.bad == 0) {
		ksp_set_error(l.ctx, "%s: no OpenPGP key found; give a keyring (binary or armored)", source);
		r = -EBADMSG;
		goto out;
	}
	r = 0;
out:
	sqlite3_finalize(l.key);
	sqlite3_finalize(l.keyid);
	sqlite3_finalize(l.uid);
	sqlite3_finalize(l.uidid);
	sqlite3_finalize(l.cert);
	ksp_pgp_reader_free(rd);
	if (r < 0) {
		if (!ksp_get_error(l.ctx))
			ksp_set_error(l.ctx, "%s: cannot load: %s; nothing was loaded", source, strerror(-r));
		ksp_store_rollback(store);
		return r;
	}
	r = ksp_store_commit(store);
	if (r < 0)
		return r;
	if (ret_keys)
		*ret_keys = l.keys;
	if (ret_certs)
		*ret_certs = l.certs;
	if (ret_bad)
		*ret_bad = l.bad;
	return 0;
}
