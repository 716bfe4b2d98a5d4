// SPDX-License-Identifier: LGPL-2.1-or-later
/* Helpers shared by signing, import, status and export (import-private.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcrypt.h>
#include <sqlite3.h>

#include "lib/party/import-private.h"
#include "lib/party/mime.h"
#include "shared/util.h"
#include "lib/store/store.h"

int ksp_after_gpgme_new(struct ksp_ctx *ctx, const char *home, bool loopback, gpgme_ctx_t *ret)
{
	gpgme_ctx_t g;
	gpgme_error_t e;

	e = gpgme_new(&g);
	if (e)
		return ksp_errno_from_gpgme(ctx, e, "gpgme_new");
	e = gpgme_set_protocol(g, GPGME_PROTOCOL_OpenPGP);
	if (!e)
		e = gpgme_ctx_set_engine_info(g, GPGME_PROTOCOL_OpenPGP, NULL, home);
	if (e) {
		gpgme_release(g);
		return ksp_errno_from_gpgme(ctx, e, "gpgme engine");
	}
	gpgme_set_offline(g, 1);
	if (loopback)
		gpgme_set_pinentry_mode(g, GPGME_PINENTRY_MODE_LOOPBACK);
	*ret = g;
	return 0;
}

bool ksp_pgp_sig_is_self(const struct ksp_pgp_key *k, const struct ksp_pgp_sig *s)
{
	if (s->issuer_fpr_len && s->issuer_fpr_len == k->primary.fpr_len)
		return memcmp(s->issuer_fpr, k->primary.fpr, s->issuer_fpr_len) == 0;
	return s->has_issuer && memcmp(s->issuer, k->primary.keyid, 8) == 0;
}

bool ksp_pgp_sig_issuer(const struct ksp_pgp_sig *s, char fpr[65], char keyid[17])
{
	fpr[0] = keyid[0] = '\0';
	if (s->issuer_fpr_len == 20 || s->issuer_fpr_len == 32) {
		hex_encode(s->issuer_fpr, s->issuer_fpr_len, fpr);
		/* v4: the low 64 bits; v5/v6: the high 64 bits of the fingerprint */
		memcpy(keyid, s->issuer_fpr_len == 20 ? fpr + 24 : fpr, 16);
		keyid[16] = '\0';
		return true;
	}
	if (s->has_issuer) {
		hex_encode(s->issuer, 8, keyid);
		return true;
	}
	return false;
}

int ksp_store_load_key(struct ksp_store *store, const char *fpr, bool first, int64_t *ret_key_id,
		       struct ksp_pgp_key **ret)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	sqlite3 *db = ksp_store_db(store);
	struct ksp_pgp_reader *rd = NULL;
	struct ksp_pgp_key *k = NULL;
	sqlite3_stmt *st;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(db, "SELECT id, keydata FROM keys WHERE fpr = ?", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ctx, db, rc, "load key");
	sqlite3_bind_text(st, 1, fpr, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const uint8_t *b = sqlite3_column_blob(st, 1);
		size_t n = (size_t)sqlite3_column_bytes(st, 1);
		char hex[65];

		if (ret_key_id)
			*ret_key_id = sqlite3_column_int64(st, 0);
		if (b == NULL || n == 0)
			goto out;
		r = ksp_pgp_reader_new(ctx, b, n, fpr, &rd);
		if (r < 0)
			goto out;
		/* the first key of the blob that is the one asked for */
		while ((r = ksp_pgp_reader_next(rd, &k)) > 0) {
			ksp_pgp_fpr_hex(&k->primary, hex);
			if (first || strcmp(hex, fpr) == 0)
				break;
			ksp_pgp_key_free(k);
			k = NULL;
		}
		if (r < 0)
			goto out;
		if (k) {
			*ret = k;
			r = 1;
		}
	} else if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(ctx, db, rc, "load key");
	}
out:
	ksp_pgp_reader_free(rd); /* it may point into the row */
	sqlite3_finalize(st);
	return r;
}

int ksp_party_number_of(struct ksp_party *party, const char *fpr)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *st;
	int rc, n = 0;

	rc = sqlite3_prepare_v2(db, "SELECT p.ord FROM participants p JOIN keys k ON k.id = p.key_id WHERE k.fpr = ?",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(party->ctx, db, rc, "participant");
	sqlite3_bind_text(st, 1, fpr, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	else if (rc != SQLITE_DONE)
		n = ksp_errno_from_sqlite(party->ctx, db, rc, "participant");
	sqlite3_finalize(st);
	return n;
}

void ksp_pgp_emit(struct strbuf *sb, uint8_t tag, const uint8_t *body, size_t len)
{
	ksp_pgp_packet_header(sb, tag, len);
	strbuf_add(sb, body, len);
}

void ksp_pgp_emit_primary(struct strbuf *sb, const struct ksp_pgp_key *k)
{
	ksp_pgp_emit(sb, KSP_PGP_TAG_PUBLIC_KEY, k->primary.body, k->primary.body_len);
	for (size_t i = 0; i < k->primary.n_sigs; i++)
		if (ksp_pgp_sig_is_self(k, &k->primary.sigs[i]))
			ksp_pgp_emit(sb, KSP_PGP_TAG_SIGNATURE, k->primary.sigs[i].body,
				     k->primary.sigs[i].body_len);
}

void ksp_pgp_emit_subkeys(struct strbuf *sb, const struct ksp_pgp_key *k)
{
	for (size_t s = 0; s < k->n_subkeys; s++) {
		const struct ksp_pgp_pubkey *sk = &k->subkeys[s];
		ksp_pgp_emit(sb, KSP_PGP_TAG_PUBLIC_SUBKEY, sk->body, sk->body_len);
		for (size_t i = 0; i < sk->n_sigs; i++)
			ksp_pgp_emit(sb, KSP_PGP_TAG_SIGNATURE, sk->sigs[i].body, sk->sigs[i].body_len);
	}
}

void ksp_sig_digest_hex(const struct ksp_pgp_sig *s, char out[41])
{
	uint8_t md[20];

	gcry_md_hash_buffer(GCRY_MD_SHA1, md, s->body, s->body_len);
	hex_encode(md, 20, out);
}
