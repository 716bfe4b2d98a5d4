// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp party export: the party keyring, with every verified certification
 * that came back merged in, for the organizer to publish (keyservers drop
 * third-party signatures nowadays). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/party/import-private.h"
#include "lib/party/mime.h"
#include "lib/store/store.h"

struct stored_cert {
	void *uid;
	size_t uid_len;
	void *sig;
	size_t sig_len;
	char digest[41];
	bool by_participant;
};

static void free_certs(struct stored_cert *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].uid);
		free(v[i].sig);
	}
	free(v);
}

static void *dup_blob(const void *b, size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p && n)
		memcpy(p, b, n);
	return p;
}

/* The verified certifications (and revocations) on the user IDs of one key. */
static int load_certs(struct ksp_party *party, sqlite3_stmt *st, int64_t key_id, const char *self,
		      struct stored_cert **ret, size_t *ret_n)
{
	struct stored_cert *v = NULL;
	size_t n = 0;
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, key_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct stored_cert *nv = realloc(v, (n + 1) * sizeof(*nv)), *c;
		const unsigned char *issuer = sqlite3_column_text(st, 3);
		if (nv == NULL) {
			free_certs(v, n);
			return -ENOMEM;
		}
		v = nv;
		c = &v[n++];
		memset(c, 0, sizeof(*c));
		c->uid_len = (size_t)sqlite3_column_bytes(st, 0);
		c->uid = dup_blob(sqlite3_column_blob(st, 0), c->uid_len);
		c->sig_len = (size_t)sqlite3_column_bytes(st, 1);
		c->sig = dup_blob(sqlite3_column_blob(st, 1), c->sig_len);
		snprintf(c->digest, sizeof(c->digest), "%s", (const char *)sqlite3_column_text(st, 2));
		c->by_participant = sqlite3_column_int(st, 4) > 0 && issuer && strcmp((const char *)issuer, self) != 0;
		if (c->uid == NULL || c->sig == NULL) {
			free_certs(v, n);
			return -ENOMEM;
		}
	}
	if (rc != SQLITE_DONE) {
		free_certs(v, n);
		return ksp_errno_from_sqlite(party->ctx, ksp_store_db(party->store), rc, "export");
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

static void export_key(struct strbuf *sb, const struct ksp_pgp_key *k, const struct stored_cert *c,
		       size_t nc, bool signed_only)
{
	char dg[41];

	if (signed_only) {
		ksp_pgp_emit_primary(sb, k);
	} else {
		ksp_pgp_emit(sb, KSP_PGP_TAG_PUBLIC_KEY, k->primary.body, k->primary.body_len);
		for (size_t i = 0; i < k->primary.n_sigs; i++)
			ksp_pgp_emit(sb, KSP_PGP_TAG_SIGNATURE, k->primary.sigs[i].body, k->primary.sigs[i].body_len);
	}
	for (size_t u = 0; u < k->n_uids; u++) {
		const struct ksp_pgp_uid *uid = &k->uids[u];

		ksp_pgp_emit(sb, uid->attribute ? KSP_PGP_TAG_USER_ATTRIBUTE : KSP_PGP_TAG_USER_ID, uid->data, uid->len);
		for (size_t i = 0; i < uid->n_sigs; i++)
			if (!signed_only || ksp_pgp_sig_is_self(k, &uid->sigs[i]))
				ksp_pgp_emit(sb, KSP_PGP_TAG_SIGNATURE, uid->sigs[i].body, uid->sigs[i].body_len);
		if (uid->attribute)
			continue;
		for (size_t j = 0; j < nc; j++) {
			bool dup = false;
			if (c[j].uid_len != uid->len || memcmp(c[j].uid, uid->data, uid->len) != 0)
				continue;
			if (signed_only && !c[j].by_participant)
				continue;
			for (size_t i = 0; i < uid->n_sigs && !dup; i++) {
				ksp_sig_digest_hex(&uid->sigs[i], dg);
				dup = strcmp(dg, c[j].digest) == 0;
			}
			if (!dup)
				ksp_pgp_emit(sb, KSP_PGP_TAG_SIGNATURE, c[j].sig, c[j].sig_len);
		}
	}
	ksp_pgp_emit_subkeys(sb, k);
}

KSP_EXPORT int ksp_party_export(struct ksp_party *party, unsigned int flags, void **ret, size_t *ret_len)
{
	return ksp_party_export_version(party, 0, flags, ret, ret_len);
}

KSP_EXPORT int ksp_party_export_version(struct ksp_party *party, int version, unsigned int flags, void **ret,
					size_t *ret_len)
{
	sqlite3 *db;
	sqlite3_stmt *ps = NULL, *cs = NULL;
	struct strbuf bin, out;
	int rc, r = 0, n = 0;

	if (party == NULL || ret == NULL || ret_len == NULL || version < 0)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	if (version > 0) {
		/* an older list version's keys: those its members had */
		r = ksp_party_get_digests(party, version, NULL, NULL, NULL);
		if (r < 0) {
			ksp_set_error(party->ctx, "%s: there is no list version %d; 'ksp party digest --version N' prints each",
				      ksp_store_get_path(party->store), version);
			return r;
		}
	}
	db = ksp_store_db(party->store);
	strbuf_init(&bin);
	strbuf_init(&out);
	if (version > 0)
		rc = sqlite3_prepare_v2(db, "SELECT fpr FROM list_members WHERE version = ? ORDER BY ord", -1, &ps, NULL);
	else
		rc = sqlite3_prepare_v2(db, "SELECT k.fpr FROM participants p JOIN keys k ON k.id = p.key_id ORDER BY p.ord",
					-1, &ps, NULL);
	if (rc == SQLITE_OK && version > 0)
		sqlite3_bind_int(ps, 1, version);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
			"SELECT u.uid, c.sigdata, c.digest, c.issuer_fpr, "
			"(SELECT count(*) FROM participants p2 JOIN keys k2 ON k2.id = p2.key_id WHERE k2.fpr = c.issuer_fpr) "
			"FROM certs c JOIN uids u ON u.id = c.uid_id "
			"WHERE u.key_id = ? AND u.is_attr = 0 AND c.verified = 1 AND c.exportable = 1 ORDER BY c.created, c.id",
			-1, &cs, NULL);
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "export");
		goto out;
	}
	while ((rc = sqlite3_step(ps)) == SQLITE_ROW) {
		char fpr[65];
		struct ksp_pgp_key *k = NULL;
		struct stored_cert *c = NULL;
		size_t nc = 0, np = 0;
		int64_t key_id = 0;

		snprintf(fpr, sizeof(fpr), "%s", (const char *)sqlite3_column_text(ps, 0));
		r = ksp_store_load_key(party->store, fpr, false, &key_id, &k);
		if (r < 0)
			goto out;
		if (r == 0) {
			WARN(party->ctx, "%s: no key data in the store; left out\n", fpr);
			continue;
		}
		r = load_certs(party, cs, key_id, fpr, &c, &nc);
		if (r < 0) {
			ksp_pgp_key_free(k);
			goto out;
		}
		for (size_t i = 0; i < nc; i++)
			np += c[i].by_participant;
		if (!(flags & KSP_EXPORT_SIGNED_ONLY) || np > 0) {
			export_key(&bin, k, c, nc, flags & KSP_EXPORT_SIGNED_ONLY);
			n++;
		}
		free_certs(c, nc);
		ksp_pgp_key_free(k);
	}
	if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "export");
		goto out;
	}
	if (!strbuf_ok(&bin)) {
		r = -ENOMEM;
		goto out;
	}
	if (flags & KSP_EXPORT_BINARY) {
		*ret_len = bin.len;
		*ret = bin.len ? strbuf_steal(&bin) : calloc(1, 1);
	} else {
		if (bin.len)
			ksp_armor_encode(&out, "PUBLIC KEY BLOCK", (const uint8_t *)bin.buf, bin.len);
		else
			strbuf_addstr(&out, "");
		if (!strbuf_ok(&out)) {
			r = -ENOMEM;
			goto out;
		}
		*ret_len = out.len;
		*ret = out.len ? strbuf_steal(&out) : calloc(1, 1);
	}
	if (*ret == NULL) {
		r = -ENOMEM;
		goto out;
	}
	r = n;
out:
	sqlite3_finalize(ps);
	sqlite3_finalize(cs);
	strbuf_release(&bin);
	strbuf_release(&out);
	if (r < 0 && !ksp_get_error(party->ctx))
		ksp_set_error(party->ctx, "%s: cannot export the party keyring: %s", ksp_store_get_path(party->store),
			      strerror(-r));
	return r;
}
