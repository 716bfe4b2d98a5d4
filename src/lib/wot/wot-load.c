// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ksp wot load: the native reader into the store, in one transaction, with
 * every signature on a user ID (self-signatures and certifications) and
 * every key-level self-signature checked on worker threads (RSA by
 * pgp-rsa.c, Ed25519 by ed25519.c, eight at a time where the CPU has
 * AVX-512 IFMA, the rest by libgcrypt).
 *
 * 0. into a store that has keys: the input is cut into key blocks and each
 *    block whose SHA-256 the store holds (key_blocks) is left out of what
 *    is read (plan_blocks()); its key packet is kept as a signer;
 * 1. index pass: every primary key packet of the input is framed and
 *    fingerprinted (its public part stays where it is, in the input or the
 *    reader's decoded armor), so every issuer in the input is known before
 *    any signature is checked, and memory stays small: ~80 bytes a key;
 * 2. keys are then read in batches (BATCH keys or BATCH_SIGS signatures);
 *    for each batch, one job per signature to check (issuers not in the
 *    input are looked up once in the store), run on ksp_get_threads()
 *    threads, after the keys of the signers it needs are prepared, on the
 *    same threads (compact, ~200 bytes each, kept for the load; see
 *    TABLES_MAX for the faster 2 KB form);
 * 3. each batch is written by the calling thread while the other threads
 *    check the next one (the calling thread then joins them, and reports
 *    progress): keys (expiry and revocation from verified self-signatures
 *    only), user IDs (revoked when the newest verified self-signature is a
 *    revocation) and certifications with their verdict and, when verified,
 *    the issuer's fingerprint;
 * 4. certifications already in the store whose issuer was unknown
 *    (verified = 4) and has now come are checked.
 *
 * This file: the load's course, the writes to the store (3, 4) and the
 * indexes; wot-load-check.c: the signers and the checking threads (1, 2);
 * wot-load-blocks.c: what a reload skips (0) and --prune;
 * wot-load-private.h: the state they share.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcrypt.h>
#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/openpgp/ed25519.h"
#include "lib/input-private.h"
#include "lib/openpgp/pgp-verify.h"
#include "lib/wot/wot-blocks.h"
#include "lib/wot/wot-cert.h"
#include "lib/wot/wot-snap.h"
#include "shared/util.h"
#include "lib/wot/wot-load-private.h"

static int prep(struct loader *l, sqlite3_stmt **st, const char *sql)
{
	int rc = sqlite3_prepare_v2(l->db, sql, -1, st, NULL);
	return rc == SQLITE_OK ? 0 : ksp_errno_from_sqlite(l->ctx, l->db, rc, sql);
}


/* An upsert @st, then the id of its row in *@id: the rowid it inserted,
 * or (an update, or an insert whose rowid happens to be the one inserted
 * last before it, in another table) the row looked up by @get, bound
 * already.  (No RETURNING: it makes SQLite keep a statement journal.) */
static int step_id(struct loader *l, sqlite3_stmt *st, sqlite3_stmt *get, const char *what, int64_t *id)
{
	int64_t before = sqlite3_last_insert_rowid(l->db);
	int r = ksp_wload_step_done(l, st, what), rc;

	if (r < 0) {
		sqlite3_clear_bindings(get);
		return r;
	}
	*id = sqlite3_last_insert_rowid(l->db);
	if (*id != before) {
		sqlite3_clear_bindings(get);
		return 0;
	}
	rc = sqlite3_step(get);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(get, 0);
	sqlite3_reset(get);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? -EIO : ksp_errno_from_sqlite(l->ctx, l->db, rc, what);
}

/* Jobs were made in this order per key: key-level wanted sigs, then every
 * certification-class signature on each user ID; *cursor walks them. */
static int job_result(struct loader *l, const struct batch *b, size_t *cursor, const struct ksp_pgp_sig *s,
		      int32_t *by)
{
	*by = -1;
	if (!l->verify)
		return KSP_VERIFY_UNCHECKED;
	if (*cursor >= b->n_jobs || b->jobs[*cursor].sig != s)
		return KSP_VERIFY_UNCHECKED; /* cannot happen */
	*by = b->jobs[*cursor].by;
	return b->jobs[(*cursor)++].res;
}

static bool counts(struct loader *l, int res)
{
	return !l->verify || res == KSP_VERIFY_GOOD;
}

/* The upsert of keys (?9 revoked, ?11 reason): a hard revocation outranks
 * a soft one, then the earliest wins (as store_one() picks within a key). */
#define KEEP_NEW_REVOCATION                                                                             \
	"(?9 != 0 AND (revoked = 0 OR (" KSP_SQL_HARD_REVOKED("?9", "?11") " AND NOT "                  \
	KSP_SQL_HARD_REVOKED("revoked", "revoked_reason") ") OR ((" KSP_SQL_HARD_REVOKED("?9", "?11")   \
	") = (" KSP_SQL_HARD_REVOKED("revoked", "revoked_reason") ") AND ?9 < revoked)))"


/* After a key was stored from @raw: its block's digest, and that it was
 * seen in this input. */
static int block_put(struct loader *l, int64_t key_id, const uint8_t *raw, size_t raw_len)
{
	uint8_t md[32];
	int r = ksp_wload_add_seen(l, key_id);

	if (r < 0 || raw == NULL || raw_len == 0)
		return r;
	gcry_md_hash_buffer(GCRY_MD_SHA256, md, raw, raw_len);
	sqlite3_bind_int64(l->st_block_put, 1, key_id);
	sqlite3_bind_blob(l->st_block_put, 2, md, sizeof(md), SQLITE_STATIC);
	sqlite3_bind_int(l->st_block_put, 3, l->verify);
	sqlite3_bind_text(l->st_block_put, 4, l->source, -1, SQLITE_STATIC);
	return ksp_wload_step_done(l, l->st_block_put, "store key block digest");
}

/* The oldest verified self-signature of a user ID that does not expire,
 * per hash class (schema 8: ss_strong, ss_sha1, ss_rmd160, ss_md5; 0
 * none; the newest that expires is kept apart): Sequoia's model asks
 * whether a key had a binding signature its policy accepts at a time.  A
 * hash of no class (unknown, reserved, SHA-3: sequoia-openpgp 1.12 knows
 * none of them) is one its policy never accepts. */
static void selfsig_class(int64_t ss[4], int hash, int64_t created)
{
	int c = hash == 2 ? 1 : hash == 3 ? 2 : hash == 1 ? 3 : (hash >= 8 && hash <= 11) ? 0 : -1;

	if (created <= 0)
		created = 1;
	if (c >= 0 && (ss[c] == 0 || created < ss[c]))
		ss[c] = created;
}

/* One record of key_selfsigs.hist (schema 8): little-endian. */
static void hist_put(uint8_t *p, int64_t created, int64_t key_expires, int64_t until, int hash)
{
	int64_t v[4] = { created, key_expires, until, hash };

	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 8; j++)
			p[i * 8 + j] = (uint8_t)((uint64_t)v[i] >> (8 * j));
}

static int cmp_hist(const void *a, const void *b)
{
	const uint8_t *x = a, *y = b;

	/* by creation time (little-endian, positive), then the rest */
	for (int j = 7; j >= 0; j--)
		if (x[j] != y[j])
			return x[j] < y[j] ? -1 : 1;
	return memcmp(x + 8, y + 8, 24);
}

/* key_selfsigs: every verified binding self-signature of @k (the
 * verdicts @res in job order, as store_one() has them), with those stored
 * already (a key's self-signatures are the union of what was loaded, as
 * its certifications), oldest first. */
static int store_selfsigs(struct loader *l, const struct ksp_pgp_key *k, const int8_t *res, int64_t key_id,
			  bool fresh)
{
	const struct ksp_pgp_pubkey *pk = &k->primary;
	size_t n = 0, q = pk->n_sigs, old = 0;
	const void *prev = NULL;
	uint8_t *h;
	int r, rc;

	for (size_t u = 0; u < k->n_uids; u++)
		q += k->uids[u].n_sigs;
	sqlite3_bind_int64(l->ksigs_get, 1, key_id);
	rc = fresh ? SQLITE_DONE : sqlite3_step(l->ksigs_get);
	if (rc == SQLITE_ROW) {
		prev = sqlite3_column_blob(l->ksigs_get, 0);
		old = prev ? (size_t)sqlite3_column_bytes(l->ksigs_get, 0) / 32 : 0;
	} else if (rc != SQLITE_DONE) {
		sqlite3_reset(l->ksigs_get);
		return ksp_errno_from_sqlite(l->ctx, l->db, rc, "read self-signatures");
	}
	h = malloc((q + old + 1) * 32);
	if (h == NULL) {
		sqlite3_reset(l->ksigs_get);
		return -ENOMEM;
	}
	if (old)
		memcpy(h, prev, old * 32);
	sqlite3_reset(l->ksigs_get);
	n = old;
	q = 0;
	for (size_t j = 0; j < pk->n_sigs; j++, q++) {
		const struct ksp_pgp_sig *s = &pk->sigs[j];
		if (s->type == 0x1f && key_sig_wanted(k, s) && counts(l, res[q]))
			hist_put(h + 32 * n++, s->created,
				 s->has_key_expires && s->key_expires ? (int64_t)pk->created + s->key_expires : 0,
				 s->expires ? (int64_t)s->created + s->expires : 0, s->hash_algo);
	}
	for (size_t u = 0; u < k->n_uids; u++)
		for (size_t j = 0; j < k->uids[u].n_sigs; j++, q++) {
			const struct ksp_pgp_sig *s = &k->uids[u].sigs[j];
			if (s->type < 0x10 || s->type > 0x13 || !is_self(k, s) || !counts(l, res[q]) || k->uids[u].attribute)
				continue;
			hist_put(h + 32 * n++, s->created,
				 s->has_key_expires && s->key_expires ? (int64_t)pk->created + s->key_expires : 0,
				 s->expires ? (int64_t)s->created + s->expires : 0, s->hash_algo);
		}
	if (n > 1)
		qsort(h, n, 32, cmp_hist);
	if (n > 1) {
		/* the same self-signature twice: once */
		size_t w = 1;
		for (size_t i = 1; i < n; i++)
			if (memcmp(h + 32 * i, h + 32 * (w - 1), 32) != 0)
				memmove(h + 32 * w++, h + 32 * i, 32);
		n = w;
	}
	sqlite3_bind_int64(l->ksigs, 1, key_id);
	sqlite3_bind_blob(l->ksigs, 2, h, (int)(n * 32), SQLITE_STATIC);
	r = ksp_wload_step_done(l, l->ksigs, "store self-signatures");
	free(h);
	return r;
}

/* The third-party certifications of user ID @uid (stored as @uid_id) of
 * key @k: each inserted once, with its verdict res[@q...] (and its issuer
 * by[@q...] when found by key ID); one known before gets its verdict when
 * it has one now.  0 or -errno. */
static int store_certs(struct loader *l, const struct ksp_pgp_key *k, const struct ksp_pgp_uid *uid, int64_t uid_id,
		       const int8_t *res, const int32_t *by, size_t q)
{
	int r;

	for (size_t i = 0; i < uid->n_sigs; i++, q++) {
		const struct ksp_pgp_sig *s = &uid->sigs[i];
		char ifpr[65], ikid[17], dig[41];
		uint8_t md[20];
		bool have_fpr = false;

		if (is_self(k, s) || !is_cert(s->type))
			continue;
		if (l->verify) {
			if (res[q] == KSP_VERIFY_GOOD)
				l->n_good++;
			else if (res[q] == KSP_VERIFY_BAD)
				l->n_bad++;
			else if (res[q] == KSP_VERIFY_UNSUPPORTED)
				l->n_unsupported++;
			else
				l->n_nokey++;
		}
		if (s->issuer_fpr_len) {
			hex_encode(s->issuer_fpr, s->issuer_fpr_len, ifpr);
			if (s->issuer_fpr_len == 20)
				memcpy(ikid, ifpr + 24, 16);
			else
				memcpy(ikid, ifpr, 16);
			ikid[16] = '\0';
			have_fpr = true;
		} else if (s->has_issuer) {
			hex_encode(s->issuer, 8, ikid);
		} else {
			continue; /* no issuer at all: nothing to attribute */
		}
		if (!have_fpr && by[q] >= 0) {
			ksp_wload_signer_fpr_hex(&l->signers[by[q]], ifpr);
			have_fpr = true;
		}
		gcry_md_hash_buffer(GCRY_MD_SHA1, md, s->body, s->body_len);
		hex_encode(md, 20, dig);
		ksp_wot_cert_bind(l->cert, uid_id, s, have_fpr ? ifpr : NULL, ikid, res[q], dig);
		r = ksp_wload_step_done(l, l->cert, "store certification");
		if (r < 0)
			return r;
		if (sqlite3_changes(l->db) > 0) {
			l->certs++;
		} else if (res[q] != KSP_VERIFY_UNCHECKED && res[q] != KSP_VERIFY_NO_ISSUER) {
			/* known before, unchecked or issuer unknown then */
			sqlite3_bind_int64(l->cert_upd, 1, uid_id);
			sqlite3_bind_text(l->cert_upd, 2, dig, -1, SQLITE_STATIC);
			sqlite3_bind_int(l->cert_upd, 3, res[q]);
			if (have_fpr)
				sqlite3_bind_text(l->cert_upd, 4, ifpr, -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(l->cert_upd, 4);
			r = ksp_wload_step_done(l, l->cert_upd, "update certification");
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* the oldest of the stored and the new one (0: none) */
#define SS_KEEP_OLDEST(col, arg) \
	col " = CASE WHEN " col " = 0 OR (" arg " > 0 AND " arg " < " col ") THEN " arg " ELSE " col " END"

/* (Long: the key's verdicts, its row, then each user ID with its self-signatures, in the store's order.) */
static int store_one(struct loader *l, const struct batch *b, const struct ksp_pgp_key *k, const uint8_t *raw,
		     size_t raw_len, const char *source, size_t *cursor)
{
	const struct ksp_pgp_pubkey *pk = &k->primary;
	char fpr[65], keyid[17];
	int64_t key_id, expires = 0, revoked = 0;
	int revoked_reason = -1, selfsig_hash = -1;
	bool selfsig_ok = false, fresh;
	int8_t *res = NULL;
	int32_t *by = NULL;
	size_t n_sigs = 0, q = 0;
	int r;

	ksp_pgp_fpr_hex(pk, fpr);
	hex_encode(pk->keyid, 8, keyid);
	/* collect the verdicts first, in job order */
	for (size_t u = 0; u < k->n_uids; u++)
		n_sigs += k->uids[u].n_sigs;
	res = malloc((pk->n_sigs + n_sigs + 1) * sizeof(*res));
	by = malloc((pk->n_sigs + n_sigs + 1) * sizeof(*by));
	if (res == NULL || by == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t j = 0; j < pk->n_sigs; j++, q++) {
		by[q] = -1;
		res[q] = key_sig_wanted(k, &pk->sigs[j]) ? (int8_t)job_result(l, b, cursor, &pk->sigs[j], &by[q]) : 0;
	}
	for (size_t u = 0; u < k->n_uids; u++)
		for (size_t j = 0; j < k->uids[u].n_sigs; j++) {
			const struct ksp_pgp_sig *s = &k->uids[u].sigs[j];
			by[q] = -1;
			res[q] = is_cert(s->type) ? (int8_t)job_result(l, b, cursor, s, &by[q]) : 0;
			q++;
		}

	/* key revocation and expiry from verified self-signatures */
	uint32_t newest = 0;
	bool have_newest = false;
	q = 0;
	for (size_t j = 0; j < pk->n_sigs; j++, q++) {
		const struct ksp_pgp_sig *s = &pk->sigs[j];
		if (!key_sig_wanted(k, s) || !counts(l, res[q]))
			continue;
		if (s->type == 0x20) {
			/* a hard revocation outranks a soft one (ksp_revocation_is_soft()),
			 * then the earliest counts */
			int code = s->has_revocation_reason ? s->revocation_code : 0;
			bool hard = !ksp_revocation_is_soft(code), was_hard = revoked && !ksp_revocation_is_soft(revoked_reason);
			if (revoked == 0 || (hard && !was_hard) || (hard == was_hard && s->created < revoked)) {
				revoked = s->created ? s->created : 1;
				revoked_reason = code;
			}
		} else if (!have_newest || s->created >= newest) {
			selfsig_ok = true;
			newest = s->created;
			have_newest = true;
			expires = s->has_key_expires && s->key_expires ? (int64_t)pk->created + s->key_expires : 0;
		}
	}
	for (size_t u = 0; u < k->n_uids; u++)
		for (size_t j = 0; j < k->uids[u].n_sigs; j++, q++) {
			const struct ksp_pgp_sig *s = &k->uids[u].sigs[j];
			if (s->type < 0x10 || s->type > 0x13 || !is_self(k, s) || !counts(l, res[q]))
				continue;
			selfsig_ok = true;
			if (!have_newest || s->created >= newest) {
				newest = s->created;
				have_newest = true;
				selfsig_hash = s->hash_algo;
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
	if (revoked_reason >= 0)
		sqlite3_bind_int(l->key, 11, revoked_reason);
	else
		sqlite3_bind_null(l->key, 11);
	sqlite3_bind_int(l->key, 12, selfsig_ok || !l->verify);
	if (selfsig_hash >= 0)
		sqlite3_bind_int(l->key, 13, selfsig_hash);
	else
		sqlite3_bind_null(l->key, 13);
	sqlite3_bind_blob(l->key, 14, raw, (int)raw_len, SQLITE_STATIC);
	sqlite3_bind_text(l->keyid, 1, fpr, -1, SQLITE_STATIC);
	r = step_id(l, l->key, l->keyid, "store key", &key_id);
	if (r < 0)
		goto out;
	/* a key's id is one above every other (no key is removed while
	 * loading): a new key has no self-signatures stored yet */
	fresh = key_id > l->key_id_max;
	if (fresh)
		l->key_id_max = key_id;
	r = block_put(l, key_id, raw, raw_len);
	if (r < 0)
		goto out;
	r = store_selfsigs(l, k, res, key_id, fresh);
	if (r < 0)
		goto out;

	q = pk->n_sigs;
	for (size_t u = 0; u < k->n_uids; u++) {
		const struct ksp_pgp_uid *uid = &k->uids[u];
		int64_t uid_id, uid_rev = 0, selfsig = 0, ss[4] = { 0, 0, 0, 0 }, ssx[3] = { 0, 0, 0 };
		bool primary = false;
		uint32_t uid_newest = 0;
		bool any = false;
		size_t q0 = q;

		for (size_t i = 0; i < uid->n_sigs; i++, q++) {
			const struct ksp_pgp_sig *s = &uid->sigs[i];
			if (!is_self(k, s) || !is_cert(s->type) || !counts(l, res[q]))
				continue;
			if (s->type != 0x30 && s->created >= selfsig) {
				selfsig = s->created;
				primary = s->has_primary_uid && s->primary_uid;
			}
			if (s->type != 0x30 && s->expires == 0)
				selfsig_class(ss, s->hash_algo, s->created);
			else if (s->type != 0x30 && (ssx[0] == 0 || s->created > ssx[0])) {
				/* the newest self-signature that expires */
				ssx[0] = s->created ? s->created : 1;
				ssx[1] = (int64_t)s->created + s->expires;
				ssx[2] = s->hash_algo;
			}
			/* the newest verified self-signature decides: a
			 * revocation revokes, a newer certification undoes it */
			if (!any || s->created > uid_newest || (s->created == uid_newest && s->type == 0x30)) {
				uid_newest = s->created;
				any = true;
				uid_rev = s->type == 0x30 ? (s->created ? s->created : 1) : 0;
			}
		}
		sqlite3_bind_int64(l->uid, 1, key_id);
		sqlite3_bind_int64(l->uid, 2, (int64_t)u);
		sqlite3_bind_blob(l->uid, 3, uid->data, (int)uid->len, SQLITE_STATIC);
		sqlite3_bind_int(l->uid, 4, uid->attribute);
		sqlite3_bind_int64(l->uid, 5, selfsig);
		sqlite3_bind_int64(l->uid, 6, uid_rev);
		sqlite3_bind_int(l->uid, 7, primary);
		for (int c = 0; c < 4; c++)
			sqlite3_bind_int64(l->uid, 8 + c, ss[c]);
		for (int c = 0; c < 3; c++)
			sqlite3_bind_int64(l->uid, 12 + c, ssx[c]);
		sqlite3_bind_int64(l->uidid, 1, key_id);
		sqlite3_bind_blob(l->uidid, 2, uid->data, (int)uid->len, SQLITE_STATIC);
		sqlite3_bind_int(l->uidid, 3, uid->attribute);
		r = step_id(l, l->uid, l->uidid, "store uid", &uid_id);
		if (r < 0)
			goto out;

		r = store_certs(l, k, uid, uid_id, res, by, q0);
		if (r < 0)
			goto out;
	}
	l->keys++;
	r = 0;
out:
	free(res);
	free(by);
	return r;
}

/* Certifications stored earlier whose issuer was unknown and has come
 * with this input: check them now.  (Found through the partial index
 * certs_pending; a key without keydata is no issuer: no signer of this
 * load matches it.) */
static int recheck_pending(struct loader *l)
{
	sqlite3_stmt *sel = NULL, *upd = NULL;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(l->db,
				"SELECT c.id, c.sigdata, u.uid, u.is_attr, k.keydata FROM certs c INDEXED BY certs_pending "
				"JOIN uids u ON u.id = c.uid_id JOIN keys k ON k.id = u.key_id "
				"WHERE c.verified = 4 AND c.issuer_keyid IN (SELECT keyid FROM keys)",
				-1, &sel, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(l->db, "UPDATE certs SET verified = ?2, issuer_fpr = coalesce(issuer_fpr, ?3) WHERE id = ?1",
					-1, &upd, NULL);
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(l->ctx, l->db, rc, "pending certifications");
		goto out;
	}
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		const uint8_t *sd = sqlite3_column_blob(sel, 1), *kd = sqlite3_column_blob(sel, 4);
		int sl = sqlite3_column_bytes(sel, 1), kl = sqlite3_column_bytes(sel, 4);
		struct ksp_pgp_uid uid = { .data = sqlite3_column_blob(sel, 2),
					   .len = (size_t)sqlite3_column_bytes(sel, 2),
					   .attribute = sqlite3_column_int(sel, 3) != 0 };
		struct ksp_pgp_sig sig;
		struct ksp_pgp_pubkey tpk;
		struct ksp_pgp_packet pkt;
		size_t pos = 0;
		int32_t c;
		int res = KSP_VERIFY_NO_ISSUER;
		char ifpr[65] = "";

		if (sd == NULL || kd == NULL || sl <= 0 || kl <= 0 || uid.data == NULL)
			continue;
		if (ksp_pgp_packet_next(kd, (size_t)kl, &pos, &pkt) < 0)
			continue;
		if (pkt.tag != KSP_PGP_TAG_PUBLIC_KEY || ksp_pgp_parse_pubkey(pkt.body, pkt.body_len, false, &tpk) < 0 ||
		    ksp_pgp_fingerprint(&tpk) < 0) {
			free(pkt.joined);
			continue;
		}
		if (ksp_pgp_parse_sig(sd, (size_t)sl, &sig) < 0) {
			free(pkt.joined);
			continue;
		}
		for (c = ksp_wload_first_candidate(l, &sig); c >= 0; c = l->signers[c].next) {
			struct signer *s = &l->signers[c];
			int v;
			if (!issuer_matches(s, &sig))
				continue;
			if (ksp_wload_signer_vkey(s) < 0)
				s->vk = NULL;
			v = s->vk ? ksp_pgp_verify_with(s->vk, &tpk, &uid, NULL, &sig) : KSP_VERIFY_UNSUPPORTED;
			if (v == KSP_VERIFY_GOOD) {
				res = v;
				ksp_wload_signer_fpr_hex(s, ifpr);
				break;
			}
			if (v < 0)
				v = KSP_VERIFY_UNSUPPORTED;
			if (res == KSP_VERIFY_NO_ISSUER || v == KSP_VERIFY_BAD)
				res = v;
		}
		ksp_pgp_sig_done(&sig);
		free(pkt.joined);
		if (res == KSP_VERIFY_NO_ISSUER)
			continue;
		sqlite3_bind_int64(upd, 1, sqlite3_column_int64(sel, 0));
		sqlite3_bind_int(upd, 2, res);
		if (ifpr[0])
			sqlite3_bind_text(upd, 3, ifpr, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(upd, 3);
		r = ksp_wload_step_done(l, upd, "update certification");
		if (r < 0)
			goto out;
	}
	if (rc != SQLITE_DONE)
		r = ksp_errno_from_sqlite(l->ctx, l->db, rc, "pending certifications");
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	return r;
}

/*
 * SQLite's page cache (2 MB by default) is far smaller than the indexes a
 * large load inserts into at random places (keys by fingerprint and key
 * ID, and the certifications by issuer when they are not made at the end):
 * every insert would read a page back and write one out.  The rest is
 * written once, at the end of its table (keys, certifications, user IDs):
 * a page of it that leaves the cache early costs nothing, and a cache
 * larger than needed costs a page fault per 4 KB.  So, while loading, a
 * sixteenth of the input, between 16 and 64 MB (measured: the Debian
 * keyring 1.37 CPU-s with 64 MB, 1.24 with 16; 10^6 synthetic keys 210
 * CPU-s with 64 MB, 251 with 16), then the connection's own setting again.
 */
static int load_cache_kb(size_t len)
{
	size_t kb = len / 16 / 1024;

	return kb < 16384 ? 16384 : kb > 65536 ? 65536 : (int)kb;
}

/* Once the keys of the input are counted (@n_keys): the keys by
 * fingerprint, which every key is looked up and inserted in at a random
 * place, in the cache as a whole (~70 bytes a key; 10^6 keys: 70 MB, which
 * a 64 MB cache kept reading back and writing again), 160 bytes a key and
 * 16 MB more, 256 MB at most. */
static int64_t load_cache_keys(struct ksp_store *store, int64_t old, size_t len, size_t n_keys)
{
	size_t kb = n_keys / 1024 * 160 + 16384;
	int64_t o;

	if (kb > 262144)
		kb = 262144;
	if (kb <= (size_t)load_cache_kb(len))
		return old;
	o = ksp_store_cache_grow(store, (int)kb);
	return old ? old : o;
}

/*
 * The graph_state triggers count gen up once per row inserted or updated
 * in keys, uids and certs.  Each also makes every INSERT a statement that
 * writes two tables, which SQLite guards with a statement journal (on the
 * Debian keyring: 89,600 page writes with them, 46,700 without).  While
 * loading they are off on
 * this connection, and gen is counted up by the rows changed meanwhile (the
 * loader only inserts and updates keys, uids and certs, each change one the
 * triggers count), in the same transaction: the same gen as with them.
 */
static void triggers_pause(struct loader *l)
{
	int on = 0;

	if (sqlite3_db_config(l->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, -1, &on) != SQLITE_OK || !on)
		return;
	if (sqlite3_db_config(l->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &on) != SQLITE_OK)
		return;
	l->triggers_off = true;
	l->changes0 = sqlite3_total_changes64(l->db);
}

static void triggers_resume(struct loader *l)
{
	if (!l->triggers_off)
		return;
	sqlite3_db_config(l->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 1, NULL);
	l->triggers_off = false;
}

/* The triggers on again, and gen counted up as they would have: 0 or a
 * negative errno. */
static int triggers_catch_up(struct loader *l)
{
	sqlite3_stmt *st = NULL;
	int64_t n;
	int rc;

	if (!l->triggers_off)
		return 0;
	n = sqlite3_total_changes64(l->db) - l->changes0;
	triggers_resume(l);
	if (n <= 0)
		return 0;
	rc = sqlite3_prepare_v2(l->db, "UPDATE graph_state SET gen = gen + ?1, nonce = random() WHERE id = 1", -1,
				&st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, n);
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : ksp_errno_from_sqlite(l->ctx, l->db, rc, "graph state");
}

/*
 * Certifications come in the order of their keys, so most indexes of certs
 * grow at their end; the two by issuer (key ID, fingerprint) do not: every
 * insert lands at a random place, and once they outgrow the page cache
 * (10^5 keys and more) each costs page reads and writes.  So do the keys
 * by key ID and the key blocks by digest.  A load into an empty table goes
 * without them and makes them at the end, by sorting, in the same
 * transaction (so a failure still leaves the store as it was).  They are
 * made again from ksp's own definitions (schema*.sql, the same text),
 * never from SQL read from the store: a store is input.  (The keys by
 * fingerprint are a UNIQUE constraint: they stay, and the loader looks
 * keys up by them.)
 */
static const struct {
	const char *table, *name, *sql;
} bulk_indexes[] = {
	{ "certs", "certs_issuer", "CREATE INDEX certs_issuer ON certs(issuer_keyid)" },
	{ "certs", "certs_issuer_fpr", "CREATE INDEX certs_issuer_fpr ON certs(issuer_fpr)" },
	{ "keys", "keys_keyid", "CREATE INDEX keys_keyid ON keys(keyid)" },
	{ "key_blocks", "key_blocks_digest", "CREATE INDEX key_blocks_digest ON key_blocks(digest)" },
};

/* Is @table (one of bulk_indexes') empty?  1, 0 or a negative errno. */
static int table_empty(struct loader *l, const char *table)
{
	sqlite3_stmt *st = NULL;
	char sql[64];
	int rc;

	snprintf(sql, sizeof(sql), "SELECT 1 FROM %s LIMIT 1", table);
	rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(l->ctx, l->db, rc, table);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return ksp_errno_from_sqlite(l->ctx, l->db, rc, table);
	return rc == SQLITE_DONE;
}

static int indexes_drop(struct loader *l)
{
	char sql[96];
	int r = 0;

	/* the store's schema was checked to be ksp's when it was opened */
	for (size_t i = 0; i < ARRAY_SIZE(bulk_indexes) && r >= 0; i++) {
		r = table_empty(l, bulk_indexes[i].table);
		if (r <= 0)
			continue;
		snprintf(sql, sizeof(sql), "DROP INDEX %s", bulk_indexes[i].name);
		r = ksp_store_exec(l->store, sql);
		if (r == 0)
			l->index_sql[i] = bulk_indexes[i].sql;
	}
	return r < 0 ? r : 0;
}

/*
 * SQLite sorts an index's entries in runs as large as the page cache
 * (vdbesort.c), each a linked list merge-sorted in memory: a run of the
 * load's 100-250 MB cache is a cache miss per entry and merge pass (at
 * 10^6 keys, 18 CPU-s for the certifications by issuer fingerprint).
 * Runs of SQLite's default 2 MB stay in the CPU's cache and are merged
 * from the temporary file in order: 6.5 CPU-s for the same index.  So the
 * cache is that small while the indexes are made (the table is read in
 * order, the index written in order: neither needs more), and the load's
 * own is given back after.
 */
#define INDEX_SORT_CACHE_KB 2048

static int indexes_make(struct loader *l)
{
	int64_t old = 0;
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(bulk_indexes) && r == 0; i++)
		if (l->index_sql[i]) {
			if (old == 0)
				old = ksp_store_cache_set(l->store, INDEX_SORT_CACHE_KB);
			r = ksp_store_exec(l->store, l->index_sql[i]);
			l->index_sql[i] = NULL;
		}
	ksp_store_cache_restore(l->store, old);
	return r;
}

/* The signers and their prepared keys, given back (nothing is checked
 * any more). */
static void signers_release(struct loader *l)
{
	ksp_wload_verify_join(l);
	for (size_t i = 0; i < l->n_signers; i++)
		ksp_pgp_vkey_free(l->signers[i].vk);
	free(l->signers);
	free(l->bodies);
	free(l->buckets);
	l->signers = NULL;
	l->bodies = NULL;
	l->buckets = NULL;
	l->n_signers = l->cap_signers = l->n_buckets = 0;
}

static void loader_done(struct loader *l)
{
	sqlite3_finalize(l->key);
	sqlite3_finalize(l->uid);
	sqlite3_finalize(l->keyid);
	sqlite3_finalize(l->uidid);
	sqlite3_finalize(l->ksigs);
	sqlite3_finalize(l->ksigs_get);
	sqlite3_finalize(l->cert);
	sqlite3_finalize(l->cert_upd);
	signers_release(l);
	for (int i = 0; i < 2; i++) {
		struct batch *b = &l->bt[i];
		for (size_t j = 0; j < b->n_in; j++)
			ksp_pgp_key_free(b->in[j]);
		free(b->in);
		free(b->jobs);
		free(b->prep);
	}
	for (size_t i = 0; i < l->n_extra; i++)
		free(l->extra[i]);
	free(l->missing);
	sqlite3_finalize(l->st_issuer);
	sqlite3_blob_close(l->blob);
	l->blob = NULL;
	sqlite3_finalize(l->st_block_get);
	ksp_blockset_free(l->blocks);
	sqlite3_finalize(l->st_block_put);
	sqlite3_finalize(l->st_source);
	sqlite3_finalize(l->st_source2);
	free(l->seen);
	free(l->fh_skip);
	free(l->fh_read);
	free(l->skip_bodies);
	free(l->extra);
}

/* Keys into @b until BATCH of them or BATCH_SIGS signatures, or the end
 * of the input (*end). */
static int read_batch(struct loader *l, struct ksp_pgp_reader *rd, struct batch *b, bool *end)
{
	b->n_in = 0;
	b->n_sigs = 0;
	while (b->n_in < BATCH && b->n_sigs < BATCH_SIGS) {
		struct ksp_pgp_key *k;
		int r = ksp_pgp_reader_next(rd, &k);

		if (r < 0)
			return r;
		if (r == 0) {
			*end = true;
			break;
		}
		if (k->secret)
			l->secret++; /* only the public part was kept by the reader */
		if (grow((void **)&b->in, &b->cap_in, b->n_in + 1, sizeof(*b->in)) < 0) {
			ksp_pgp_key_free(k);
			return -ENOMEM;
		}
		b->in[b->n_in++] = k;
		b->n_sigs += k->primary.n_sigs;
		for (size_t u = 0; u < k->n_uids; u++)
			b->n_sigs += k->uids[u].n_sigs;
	}
	return 0;
}

/* Batch @b (read) checked on the threads from now on. */
static int batch_start(struct loader *l, struct batch *b)
{
	int r;

	if (!l->verify || b->n_in == 0)
		return 0;
	r = ksp_wload_plan_jobs(l, b);
	if (r < 0)
		return r;
	ksp_wload_verify_start(l, b);
	return 0;
}

/* The statements that write the keys, user IDs and certifications. */
static int prep_writers(struct loader *l)
{
	int r;

	if ((r = prep(l, &l->key,
		      "INSERT INTO keys(fpr, keyid, version, algo, bits, curve, created, expires, revoked, source, "
		      "revoked_reason, selfsig_ok, selfsig_hash, keydata) "
		      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) ON CONFLICT(fpr) DO UPDATE SET "
		      "expires = ?8, revoked = CASE WHEN " KEEP_NEW_REVOCATION " THEN ?9 ELSE revoked END, "
		      "revoked_reason = CASE WHEN " KEEP_NEW_REVOCATION " THEN ?11 ELSE revoked_reason END, "
		      "selfsig_ok = max(selfsig_ok, ?12), selfsig_hash = coalesce(?13, selfsig_hash), "
		      "keydata = CASE WHEN keydata IS NULL OR length(?14) >= length(keydata) THEN ?14 ELSE keydata END, "
		      "source = ?10")) < 0 ||
	    (r = prep(l, &l->keyid, "SELECT id FROM keys WHERE fpr = ?")) < 0 ||
	    (r = prep(l, &l->uid,
		      "INSERT INTO uids(key_id, idx, uid, is_attr, selfsig, revoked, primary_uid, ss_strong, ss_sha1, "
		      "ss_rmd160, ss_md5, ss_exp_created, ss_exp_until, ss_exp_hash) "
		      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) "
		      "ON CONFLICT(key_id, uid, is_attr) DO UPDATE SET idx = ?2, "
		      "revoked = CASE WHEN max(?5, ?6) >= max(selfsig, revoked) THEN ?6 ELSE revoked END, "
		      "primary_uid = CASE WHEN ?5 >= selfsig THEN ?7 ELSE primary_uid END, "
		      "selfsig = max(selfsig, ?5), " SS_KEEP_OLDEST("ss_strong", "?8") ", " SS_KEEP_OLDEST("ss_sha1", "?9")
		      ", " SS_KEEP_OLDEST("ss_rmd160", "?10") ", " SS_KEEP_OLDEST("ss_md5", "?11") ", "
		      "ss_exp_until = CASE WHEN ?12 > ss_exp_created THEN ?13 ELSE ss_exp_until END, "
		      "ss_exp_hash = CASE WHEN ?12 > ss_exp_created THEN ?14 ELSE ss_exp_hash END, "
		      "ss_exp_created = max(ss_exp_created, ?12)")) < 0 ||
	    (r = prep(l, &l->uidid, "SELECT id FROM uids WHERE key_id = ? AND uid = ? AND is_attr = ?")) < 0 ||
	    (r = prep(l, &l->ksigs,
		      "INSERT INTO key_selfsigs(key_id, hist) VALUES (?1, ?2) ON CONFLICT(key_id) DO UPDATE SET "
		      "hist = ?2 WHERE hist != ?2")) < 0 ||
	    (r = prep(l, &l->ksigs_get, "SELECT hist FROM key_selfsigs WHERE key_id = ?")) < 0 ||
	    (r = prep(l, &l->cert, KSP_WOT_CERT_INSERT)) < 0 ||
	    (r = prep(l, &l->cert_upd,
		      "UPDATE certs SET verified = ?3, issuer_fpr = coalesce(issuer_fpr, ?4) "
		      "WHERE uid_id = ?1 AND digest = ?2 AND verified IN (0, 4) AND ?3 NOT IN (0, 4)")) < 0)
		return r;
	return 0;
}

/* ksp_wot_load() and ksp_wot_load_fd(): @in, when not NULL, is where
 * @data comes from (its pages are given back as the load goes past them).
 * (Long: the load's steps in order, incremental plan, batches, checks,
 * report, with the one exit that rolls back or commits.) */
static int load(struct ksp_store *store, const void *data, size_t len, struct ksp_input *in, const char *source,
		unsigned int flags, uint64_t *ret_keys, uint64_t *ret_certs, uint64_t *ret_bad)
{
	struct loader l = { .store = store };
	struct ksp_pgp_reader *rd = NULL;
	struct batch *cur, *next;
	const uint8_t *rdata;
	uint8_t *rest = NULL; /* the input without the blocks stored already */
	size_t rest_len = 0, rlen, cursor = 0, mark = 0;
	uint64_t seen = 0, pruned = 0;
	int64_t changes_start = 0;
	bool end = false, changes_made = false;
	double cpu0 = process_cpu(), cpu1 = 0, cpu2 = 0, cpu3;
	int r;

	if (store == NULL || (data == NULL && len > 0))
		return -EINVAL;
	l.ctx = ksp_store_get_ctx(store);
	l.db = ksp_store_db(store);
	l.verify = !(flags & KSP_WOT_LOAD_NO_VERIFY);
	l.x8 = ksp_ed25519_x8_usable();
	ksp_clear_error(l.ctx);
	if (source == NULL)
		source = "<input>";
	l.source = source;
	r = ksp_store_begin(store);
	if (r < 0)
		return r;
	l.old_cache = ksp_store_cache_grow(store, load_cache_kb(len));
	triggers_pause(&l);
	r = indexes_drop(&l);
	if (r < 0)
		goto out;
	r = prep_writers(&l);
	if (r < 0)
		goto out;
	r = ksp_pgp_reader_new(l.ctx, data, len, source, &rd);
	if (r < 0)
		goto out;
	rdata = ksp_pgp_reader_data(rd, &rlen);
	if (ksp_pgp_reader_armored(rd))
		ksp_input_drop_all(in, &mark); /* decoded: the text is not read again */
	{
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(l.db, "SELECT max(id) FROM keys", -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			l.store_had_keys = true;
			l.key_id_max = sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
	}
	changes_start = sqlite3_total_changes64(l.db);
	if ((r = prep(&l, &l.st_block_put,
		      "INSERT INTO key_blocks(key_id, digest, checked, source) VALUES (?1, ?2, ?3, ?4) "
		      "ON CONFLICT(key_id) DO UPDATE SET digest = ?2, checked = ?3, source = ?4")) < 0)
		goto out;
	if (l.store_had_keys && !(flags & KSP_WOT_LOAD_FULL)) {
		/* the blocks stored already are left out of what is read */
		if ((r = prep(&l, &l.st_block_get, "SELECT key_id, source FROM key_blocks WHERE digest = ?1 AND checked >= ?2")) < 0 ||
		    (r = prep(&l, &l.st_source, "UPDATE keys SET source = ?2 WHERE id = ?1")) < 0 ||
		    (r = prep(&l, &l.st_source2, "UPDATE key_blocks SET source = ?2 WHERE key_id = ?1")) < 0 ||
		    (r = ksp_wload_plan_blocks(&l, rdata, rlen, source, &rest, &rest_len)) < 0)
			goto out;
	}
	if (l.st_block_get && ksp_wload_blocks_overlap(&l)) {
		/* a key twice in the input, one copy stored already: everything
		 * is read */
		free(rest);
		rest = NULL;
		l.keys = l.n_same = 0;
		l.n_seen = 0;
		ksp_wload_skip_signers(&l, false);
	} else if (l.st_block_get) {
		ksp_wload_skip_signers(&l, true);
		ksp_pgp_reader_free(rd);
		rd = NULL;
		ksp_input_drop_all(in, &mark);
		in = NULL; /* what is read is rest, in memory */
		if (rest_len > 0) {
			r = ksp_pgp_reader_new(l.ctx, rest, rest_len, source, &rd);
			if (r < 0)
				goto out;
			rdata = ksp_pgp_reader_data(rd, &rlen);
		} else {
			rdata = NULL;
			rlen = 0;
		}
	}
	if (l.verify) {
		r = prep(&l, &l.st_issuer, "SELECT id FROM keys WHERE keyid = ?");
		if (r < 0)
			goto out;
		r = ksp_wload_index_input(&l, rdata, rlen, in);
		if (r < 0)
			goto out;
		l.old_cache = load_cache_keys(store, l.old_cache, len, l.n_index);
	}
	/* batch after batch, each checked on the threads while the one
	 * before it is written */
	cur = &l.bt[0];
	next = &l.bt[1];
	if (rd)
		r = read_batch(&l, rd, cur, &end);
	if (r < 0)
		goto out;
	r = batch_start(&l, cur);
	if (r < 0)
		goto out;
	while (cur->n_in > 0) {
		struct batch *t;

		/* read the next batch while the threads check this one, then
		 * check that one while this one is written */
		next->n_in = 0;
		if (!end) {
			r = read_batch(&l, rd, next, &end);
			if (r < 0)
				goto out;
		}
		r = ksp_wload_verify_finish(&l);
		if (r < 0)
			goto out;
		r = batch_start(&l, next);
		if (r < 0)
			goto out;
		cursor = 0;
		uint64_t t0 = thread_ns();
		for (size_t i = 0; i < cur->n_in; i++) {
			const struct ksp_pgp_key *key = cur->in[i];
			/* the key as read: its packets, secret ones excepted */
			const uint8_t *raw = NULL;
			size_t raw_len = 0;
			if (!key->secret && key->end <= rlen && key->offset < key->end) {
				raw = rdata + key->offset;
				raw_len = key->end - key->offset;
			}
			r = store_one(&l, cur, key, raw, raw_len, source, &cursor);
			if (r < 0)
				goto out;
		}
		l.write_ns += thread_ns() - t0;
		seen += cur->n_in;
		for (size_t i = 0; i < cur->n_in; i++)
			ksp_pgp_key_free(cur->in[i]);
		cur->n_in = 0;
		/* what is left to read, and the batch being checked, start here */
		if (in && next->n_in > 0)
			ksp_input_drop(in, &mark, rdata + next->in[0]->offset);
		ksp_progress(l.ctx, l.verify ? "loading and verifying keys" : "loading keys", seen,
			     end && next->n_in == 0 ? seen : (l.n_index > seen ? l.n_index : 0));
		t = cur;
		cur = next;
		next = t;
	}
	l.bad = rd ? ksp_pgp_reader_n_bad_keys(rd) : 0;
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
	if (l.bad) {
		size_t off = 0;
		ksp_pgp_reader_first_problem(rd, &off);
		WARN(l.ctx, "%s: %llu malformed key%s skipped, the first at offset %zu (-v shows each)\n", source,
		     (unsigned long long)l.bad, l.bad == 1 ? "" : "s", off);
	}
	/* (before the queries by issuer below; the sort of the indexes
	 * has the memory of the signers when none is checked any more) */
	if (!l.store_had_keys)
		signers_release(&l);
	cpu1 = process_cpu();
	r = indexes_make(&l);
	if (r < 0)
		goto out;
	cpu2 = process_cpu();
	if (flags & KSP_WOT_LOAD_PRUNE) {
		r = ksp_wload_prune_absent(&l, source, &pruned);
		if (r < 0)
			goto out;
		if (pruned)
			INFO(l.ctx, "%s: %llu key(s) no longer in it removed\n", source, (unsigned long long)pruned);
	}
	/* (an empty store has none: the scan of every certification it
	 * would cost is saved) */
	if (l.verify && l.store_had_keys) {
		r = recheck_pending(&l);
		if (r < 0)
			goto out;
	}
	if (l.verify) {
		double cpu = (double)atomic_load(&l.check_ns) / 1e9;

		INFO(l.ctx, "%s: %llu signatures checked in %.2f CPU-seconds (%.0f a second per CPU; %llu of them Ed25519, eight at a time)\n",
		     source, (unsigned long long)l.n_checked, cpu, cpu > 0 ? (double)l.n_checked / cpu : 0.0,
		     (unsigned long long)atomic_load(&l.n_lanes));
	}
	changes_made = sqlite3_total_changes64(l.db) != changes_start;
	if (l.n_same)
		INFO(l.ctx, "%s: %llu key(s) stored already, byte for byte: not read nor checked again\n", source,
		     (unsigned long long)l.n_same);
	r = triggers_catch_up(&l);
out:
	ksp_wload_verify_join(&l); /* the threads read the keys, which may point into rd */
	ksp_pgp_reader_free(rd);
	free(rest);
	loader_done(&l);
	triggers_resume(&l);
	ksp_store_cache_restore(store, l.old_cache);
	if (r < 0) {
		if (!ksp_get_error(l.ctx))
			ksp_set_error(l.ctx, "%s: cannot load: %s; nothing was loaded", source, strerror(-r));
		ksp_store_rollback(store);
		return r;
	}
	/* (a reload that changed nothing keeps the graph snapshot) */
	if (changes_made)
		ksp_wsnap_want(store);
	cpu3 = process_cpu();
	r = ksp_store_commit(store);
	if (r < 0)
		return r;
	/* where the time went (bench/wot.sh reads it) */
	INFO(l.ctx, "%s: CPU-seconds: %.2f reading, checking and writing (%.2f of it writing the rows), %.2f indexes, %.2f commit and snapshot\n",
	     source, cpu1 - cpu0, (double)l.write_ns / 1e9, cpu2 - cpu1, process_cpu() - cpu3);
	if (ret_keys)
		*ret_keys = l.keys;
	if (ret_certs)
		*ret_certs = l.certs;
	if (ret_bad)
		*ret_bad = l.bad;
	return 0;
}

KSP_EXPORT int ksp_wot_load(struct ksp_store *store, const void *data, size_t len, const char *source,
			    unsigned int flags, uint64_t *ret_keys, uint64_t *ret_certs, uint64_t *ret_bad)
{
	return load(store, data, len, NULL, source, flags, ret_keys, ret_certs, ret_bad);
}

KSP_EXPORT int ksp_wot_load_fd(struct ksp_store *store, int fd, const char *source, unsigned int flags,
			       uint64_t *ret_keys, uint64_t *ret_certs, uint64_t *ret_bad)
{
	struct ksp_input in;
	int r;

	if (store == NULL)
		return -EINVAL;
	if (source == NULL)
		source = "<input>";
	r = ksp_input_open(ksp_store_get_ctx(store), fd, source, &in);
	if (r < 0)
		return r;
	r = load(store, in.data, in.len, &in, source, flags, ret_keys, ret_certs, ret_bad);
	ksp_input_close(&in);
	return r;
}
