// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ksp import: certifications that come back after the party, from keys,
 * encrypted messages, .eml and mbox files, into the store.
 *
 * Only certifications on user IDs of the party's keys (as frozen in the
 * store) are considered; a user ID the store does not have is not added.
 * Each certification is verified with the native verifier against the
 * signer's key from the store before it counts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpgme.h>
#include <sqlite3.h>

#include "lib/party/import-private.h"
#include "lib/party/mime.h"
#include "lib/openpgp/pgp-verify.h"
#include "lib/wot/wot-cert.h"
#include "lib/wot/wot-snap.h"
#include "lib/gpgme-run.h"
#include "shared/util.h"
#include "lib/store/store.h"

/* certs.verified, and what ksp_pgp_verify_uid_sig() returns (the contract
 * of pgp-verify.h: 1 good, 2 bad, 3 unsupported; 4 the issuer is unknown). */
enum {
	CERT_GOOD = 1,
	CERT_BAD = 2,
	CERT_UNSUPPORTED = 3,
	CERT_NO_ISSUER = 4,
};

/* Plaintext of one decrypted message, at most this much. */
#define MAX_PLAINTEXT (64u << 20)
/* Messages inside messages (encrypted mail holding encrypted mail...). */
#define MAX_NESTING 4

struct ksp_import_event {
	int kind;
	const char *source;
	char signer[65];
	int signer_number;
	char target[65];
	int target_number;
	const char *uid;
	size_t uid_len;
	int sig_type;
	int64_t created;
	char message[512];
};

KSP_EXPORT int ksp_import_event_get_kind(const struct ksp_import_event *ev)
{
	return ev ? ev->kind : -EINVAL;
}

KSP_EXPORT const char *ksp_import_event_get_source(const struct ksp_import_event *ev)
{
	return ev ? ev->source : NULL;
}

KSP_EXPORT const char *ksp_import_event_get_signer(const struct ksp_import_event *ev)
{
	return ev && ev->signer[0] ? ev->signer : NULL;
}

KSP_EXPORT int ksp_import_event_get_signer_number(const struct ksp_import_event *ev)
{
	return ev ? ev->signer_number : 0;
}

KSP_EXPORT const char *ksp_import_event_get_target(const struct ksp_import_event *ev)
{
	return ev && ev->target[0] ? ev->target : NULL;
}

KSP_EXPORT int ksp_import_event_get_target_number(const struct ksp_import_event *ev)
{
	return ev ? ev->target_number : 0;
}

KSP_EXPORT const char *ksp_import_event_get_uid(const struct ksp_import_event *ev, size_t *len)
{
	if (ev == NULL || ev->uid == NULL)
		return NULL;
	if (len)
		*len = ev->uid_len;
	return ev->uid;
}

KSP_EXPORT int ksp_import_event_get_sig_type(const struct ksp_import_event *ev)
{
	return ev ? ev->sig_type : 0;
}

KSP_EXPORT int64_t ksp_import_event_get_created(const struct ksp_import_event *ev)
{
	return ev ? ev->created : 0;
}

KSP_EXPORT const char *ksp_import_event_get_message(const struct ksp_import_event *ev)
{
	return ev ? ev->message : NULL;
}

struct signer_entry {
	char issuer[65];          /* fingerprint, or key ID when that is all the signature has */
	char fpr[65];             /* resolved, "" when not in the store */
	struct ksp_pgp_key *key;  /* NULL when the store has no key data */
	int number;
};

struct importer {
	struct ksp_party *party;
	struct ksp_ctx *ctx;
	sqlite3 *db;
	const char *file;
	char where[600];
	void (*cb)(void *, const struct ksp_import_event *);
	void *cb_data;
	gpgme_ctx_t ug;
	bool ug_failed;
	bool found;               /* OpenPGP data in the current message */
	unsigned depth;
	int n_new;
	unsigned messages, without;
	struct signer_entry *signers;
	size_t n_signers;
	sqlite3_stmt *uid_st, *dup_st, *ins_st;
};

static void event(struct importer *im, int kind, const struct ksp_import_event *tmpl, const char *fmt, ...)
	_printf_format_(4, 5);
static void event(struct importer *im, int kind, const struct ksp_import_event *tmpl, const char *fmt, ...)
{
	struct ksp_import_event ev = { 0 };
	va_list ap;

	if (tmpl)
		ev = *tmpl;
	ev.kind = kind;
	ev.source = im->where;
	va_start(ap, fmt);
	vsnprintf(ev.message, sizeof(ev.message), fmt, ap);
	va_end(ap);
	if (im->cb)
		im->cb(im->cb_data, &ev);
	else if (kind == KSP_IMPORT_SKIPPED || kind == KSP_IMPORT_BAD)
		INFO(im->ctx, "%s: %s\n", im->where, ev.message);
}

/* ---- the signer of a certification -------------------------------------- */

static int find_signer(struct importer *im, const char *ifpr, const char *ikid, struct signer_entry **ret)
{
	const char *issuer = ifpr[0] ? ifpr : ikid;
	struct signer_entry *e;
	sqlite3_stmt *st;
	int rc, r;

	for (size_t i = 0; i < im->n_signers; i++)
		if (strcmp(im->signers[i].issuer, issuer) == 0) {
			*ret = &im->signers[i];
			return 0;
		}
	e = realloc(im->signers, (im->n_signers + 1) * sizeof(*e));
	if (e == NULL)
		return -ENOMEM;
	im->signers = e;
	e = &im->signers[im->n_signers++];
	memset(e, 0, sizeof(*e));
	snprintf(e->issuer, sizeof(e->issuer), "%s", issuer);
	if (ifpr[0]) {
		rc = sqlite3_prepare_v2(im->db, "SELECT fpr FROM keys WHERE fpr = ?", -1, &st, NULL);
		if (rc == SQLITE_OK)
			sqlite3_bind_text(st, 1, ifpr, -1, SQLITE_STATIC);
	} else {
		/* a 16-digit key ID only (old signatures): it must name one key */
		rc = sqlite3_prepare_v2(im->db, "SELECT fpr FROM keys WHERE keyid = ? LIMIT 2", -1, &st, NULL);
		if (rc == SQLITE_OK)
			sqlite3_bind_text(st, 1, ikid, -1, SQLITE_STATIC);
	}
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(im->ctx, im->db, rc, "signer");
	int rows = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (rows++ == 0)
			snprintf(e->fpr, sizeof(e->fpr), "%s", (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ksp_errno_from_sqlite(im->ctx, im->db, rc, "signer");
	if (rows != 1)
		e->fpr[0] = '\0';
	if (e->fpr[0]) {
		r = ksp_store_load_key(im->party->store, e->fpr, false, NULL, &e->key);
		if (r < 0)
			return r;
		r = ksp_party_number_of(im->party, e->fpr);
		if (r < 0)
			return r;
		e->number = r;
	}
	*ret = e;
	return 0;
}

/* ---- keys ---------------------------------------------------------------- */

static int store_cert(struct importer *im, int64_t uid_id, const struct ksp_pgp_sig *s, const char *fpr,
		      const char *kid, int verified, const char *digest)
{
	int rc;

	sqlite3_reset(im->ins_st);
	ksp_wot_cert_bind(im->ins_st, uid_id, s, fpr[0] ? fpr : NULL, kid, verified, digest);
	rc = sqlite3_step(im->ins_st);
	sqlite3_reset(im->ins_st);
	if (rc != SQLITE_DONE)
		return ksp_errno_from_sqlite(im->ctx, im->db, rc, "store certification");
	return 0;
}

static int64_t uid_row(struct importer *im, int64_t key_id, const struct ksp_pgp_uid *uid)
{
	int64_t id = 0;
	int rc;

	sqlite3_reset(im->uid_st);
	sqlite3_bind_int64(im->uid_st, 1, key_id);
	sqlite3_bind_blob(im->uid_st, 2, uid->data, (int)uid->len, SQLITE_STATIC);
	rc = sqlite3_step(im->uid_st);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(im->uid_st, 0);
	else if (rc != SQLITE_DONE)
		id = ksp_errno_from_sqlite(im->ctx, im->db, rc, "user ID");
	sqlite3_reset(im->uid_st);
	return id;
}

static int is_duplicate(struct importer *im, int64_t uid_id, const char *digest)
{
	int rc, r = 0;

	sqlite3_reset(im->dup_st);
	sqlite3_bind_int64(im->dup_st, 1, uid_id);
	sqlite3_bind_text(im->dup_st, 2, digest, -1, SQLITE_STATIC);
	rc = sqlite3_step(im->dup_st);
	if (rc == SQLITE_ROW)
		r = 1;
	else if (rc != SQLITE_DONE)
		r = ksp_errno_from_sqlite(im->ctx, im->db, rc, "certification");
	sqlite3_reset(im->dup_st);
	return r;
}

static int one_cert(struct importer *im, const struct ksp_pgp_key *k, const struct ksp_pgp_uid *uid,
		    int64_t uid_id, const struct ksp_pgp_sig *s, struct ksp_import_event *ev)
{
	struct signer_entry *se = NULL;
	char ifpr[65], ikid[17], digest[41];
	int r, v;

	ev->sig_type = s->type;
	ev->created = s->created;
	ev->signer[0] = '\0';
	ev->signer_number = 0;
	if (!ksp_pgp_sig_issuer(s, ifpr, ikid)) {
		event(im, KSP_IMPORT_SKIPPED, ev, "a certification that names no issuer; not imported");
		return 0;
	}
	snprintf(ev->signer, sizeof(ev->signer), "%s", ifpr[0] ? ifpr : ikid);
	ksp_sig_digest_hex(s, digest);
	int dup = is_duplicate(im, uid_id, digest);
	if (dup < 0)
		return dup;
	r = find_signer(im, ifpr, ikid, &se);
	if (r < 0)
		return r;
	if (se->fpr[0])
		snprintf(ev->signer, sizeof(ev->signer), "%s", se->fpr);
	ev->signer_number = se->number;
	if (dup) {
		event(im, KSP_IMPORT_DUPLICATE, ev, "already in the store");
		return 0;
	}
	if (se->key == NULL) {
		r = store_cert(im, uid_id, s, ifpr, ikid, CERT_NO_ISSUER, digest);
		if (r == 0)
			event(im, KSP_IMPORT_FLAGGED, ev,
			      "by a key outside the party, not in the store: kept, not verified, not counted");
		return r;
	}
	v = ksp_pgp_verify_uid_sig(&se->key->primary, &k->primary, uid, s);
	if (v < 0 && v != -EINVAL)
		return v;
	if (v == CERT_BAD) {
		event(im, KSP_IMPORT_BAD, ev, "the signature does not verify (tampered or damaged); not imported");
		return 0;
	}
	if (v != CERT_GOOD) {
		r = store_cert(im, uid_id, s, se->fpr, ikid, CERT_UNSUPPORTED, digest);
		if (r == 0)
			event(im, KSP_IMPORT_FLAGGED, ev,
			      "could not be verified (algorithm not supported yet): kept, not counted");
		return r;
	}
	r = store_cert(im, uid_id, s, se->fpr, ikid, CERT_GOOD, digest);
	if (r < 0)
		return r;
	if (se->number > 0) {
		im->n_new++;
		event(im, KSP_IMPORT_NEW, ev, s->type == 0x30 ? "a verified certification revocation" : "a verified certification");
	} else {
		event(im, KSP_IMPORT_FLAGGED, ev, "a verified certification by a key outside the party: kept, not counted");
	}
	return 0;
}

static int one_key(struct importer *im, const struct ksp_pgp_key *k)
{
	struct ksp_import_event ev = { 0 };
	int64_t key_id = 0;
	int number, r;

	ksp_pgp_fpr_hex(&k->primary, ev.target);
	number = ksp_party_number_of(im->party, ev.target);
	if (number < 0)
		return number;
	if (number == 0) {
		size_t n = 0;
		for (size_t u = 0; u < k->n_uids; u++)
			for (size_t i = 0; i < k->uids[u].n_sigs; i++)
				n += ksp_pgp_sig_is_cert(&k->uids[u].sigs[i]) && !ksp_pgp_sig_is_self(k, &k->uids[u].sigs[i]);
		event(im, KSP_IMPORT_SKIPPED, &ev, "the key is not on the party's list; its %zu certification(s) were not imported", n);
		return 0;
	}
	ev.target_number = number;
	key_id = ksp_store_key_id(im->party->store, ev.target);
	if (key_id <= 0)
		return key_id < 0 ? (int)key_id : -EIO;
	for (size_t u = 0; u < k->n_uids; u++) {
		const struct ksp_pgp_uid *uid = &k->uids[u];
		size_t third = 0;
		int64_t uid_id;

		if (uid->attribute)
			continue;
		for (size_t i = 0; i < uid->n_sigs; i++)
			third += ksp_pgp_sig_is_cert(&uid->sigs[i]) && !ksp_pgp_sig_is_self(k, &uid->sigs[i]);
		if (third == 0)
			continue;
		ev.uid = (const char *)uid->data;
		ev.uid_len = uid->len;
		uid_id = uid_row(im, key_id, uid);
		if (uid_id < 0)
			return (int)uid_id;
		if (uid_id == 0) {
			ev.sig_type = 0;
			ev.signer[0] = '\0';
			ev.signer_number = 0;
			event(im, KSP_IMPORT_SKIPPED, &ev,
			      "a user ID that is not on the party's copy of the key; its %zu certification(s) were not imported", third);
			continue;
		}
		for (size_t i = 0; i < uid->n_sigs; i++) {
			const struct ksp_pgp_sig *s = &uid->sigs[i];
			if (!ksp_pgp_sig_is_cert(s) || ksp_pgp_sig_is_self(k, s))
				continue;
			r = one_cert(im, k, uid, uid_id, s, &ev);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int handle_keys(struct importer *im, const uint8_t *p, size_t len)
{
	struct ksp_pgp_reader *rd = NULL;
	struct ksp_pgp_key *k = NULL;
	unsigned bad;
	int r;

	im->found = true;
	r = ksp_pgp_reader_new(im->ctx, p, len, im->where, &rd);
	if (r < 0)
		return r;
	while ((r = ksp_pgp_reader_next(rd, &k)) > 0) {
		r = one_key(im, k);
		ksp_pgp_key_free(k);
		if (r < 0)
			break;
	}
	bad = ksp_pgp_reader_n_bad_keys(rd) + ksp_pgp_reader_n_armor_errors(rd);
	ksp_pgp_reader_free(rd);
	if (r < 0)
		return r;
	if (bad)
		event(im, KSP_IMPORT_SKIPPED, NULL, "%u malformed key(s) skipped (truncated or damaged)", bad);
	return 0;
}

/* ---- encrypted messages --------------------------------------------------- */

struct sink {
	struct strbuf sb;
	bool too_big;
};

static ssize_t sink_write(void *h, const void *buf, size_t size)
{
	struct sink *s = h;

	if (s->sb.len + size > MAX_PLAINTEXT) {
		s->too_big = true;
		errno = EFBIG;
		return -1;
	}
	strbuf_add(&s->sb, buf, size);
	if (!strbuf_ok(&s->sb)) {
		errno = ENOMEM;
		return -1;
	}
	return (ssize_t)size;
}

static int handle_blob(struct importer *im, const uint8_t *p, size_t len);

/* The key IDs a message is encrypted to, from its PKESK packets. */
static void recipients(const uint8_t *p, size_t len, char *out, size_t size)
{
	size_t pos = 0, n = 0;

	out[0] = '\0';
	while (pos < len) {
		struct ksp_pgp_packet pkt;
		if (ksp_pgp_packet_next(p, len, &pos, &pkt) < 0)
			break;
		free(pkt.joined);
		if (pkt.tag != 1)
			break;
		if (pkt.body_len >= 10 && pkt.body[0] == 3 && n + 18 < size) {
			char kid[17];
			hex_encode(pkt.body + 1, 8, kid);
			n += (size_t)snprintf(out + n, size - n, "%s%s", n ? ", " : "", kid);
		}
	}
	if (n == 0)
		snprintf(out, size, "an unnamed key");
}

static int decrypt(struct importer *im, const uint8_t *p, size_t len)
{
	struct sink sink = { 0 };
	struct gpgme_data_cbs cbs = { .write = sink_write };
	gpgme_data_t in = NULL, out = NULL;
	gpgme_error_t e;
	char rcpt[200];
	int r;

	im->found = true;
	if (im->depth >= MAX_NESTING) {
		event(im, KSP_IMPORT_SKIPPED, NULL, "encrypted messages nested too deeply; not read");
		return 0;
	}
	if (im->ug == NULL && !im->ug_failed) {
		r = ksp_after_gpgme_new(im->ctx, ksp_get_gnupg_home(im->ctx), false, &im->ug);
		if (r == -ENOMEM)
			return r;
		im->ug_failed = r < 0;
	}
	if (im->ug == NULL) {
		event(im, KSP_IMPORT_SKIPPED, NULL, "an encrypted message, but gpg cannot be used; not read");
		return 0;
	}
	recipients(p, len, rcpt, sizeof(rcpt));
	strbuf_init(&sink.sb);
	e = gpgme_data_new_from_mem(&in, (const char *)p, len, 0);
	if (!e)
		e = gpgme_data_new_from_cbs(&out, &cbs, &sink);
	if (e) {
		r = -ENOMEM;
		goto out;
	}
	e = ksp_gpgme_decrypt(im->ug, in, out);
	if (e) {
		const char *h = ksp_get_gnupg_home(im->ctx);
		if (sink.too_big)
			event(im, KSP_IMPORT_SKIPPED, NULL, "an encrypted message of more than %u MiB; not read",
			      MAX_PLAINTEXT >> 20);
		else if (gpgme_err_code(e) == GPG_ERR_NO_SECKEY)
			event(im, KSP_IMPORT_SKIPPED, NULL,
			      "encrypted to %s, a secret key not in %s: not for you? not read", rcpt, h ? h : "your GnuPG home");
		else
			event(im, KSP_IMPORT_SKIPPED, NULL, "cannot decrypt (%s); not read", gpgme_strerror(e));
		r = 0;
		goto out;
	}
	if (!strbuf_ok(&sink.sb)) {
		r = -ENOMEM;
		goto out;
	}
	im->depth++;
	r = handle_blob(im, (const uint8_t *)strbuf_str(&sink.sb), sink.sb.len);
	im->depth--;
out:
	gpgme_data_release(in);
	gpgme_data_release(out);
	strbuf_release(&sink.sb);
	return r;
}

/* ---- what a part holds ------------------------------------------------------ */

/* The tag of the first packet when it plausibly starts OpenPGP data (a
 * key, or an encrypted message: checked down to the version octet), else -1. */
static int first_tag(const uint8_t *p, size_t len)
{
	struct ksp_pgp_packet pkt;
	size_t pos = 0;
	int tag = -1;

	if (len == 0 || !(p[0] & 0x80))
		return -1;
	if (ksp_pgp_packet_next(p, len, &pos, &pkt) < 0)
		return -1;
	if (pkt.body_len >= 1) {
		uint8_t v = pkt.body[0];
		switch (pkt.tag) {
		case KSP_PGP_TAG_PUBLIC_KEY:
		case KSP_PGP_TAG_SECRET_KEY:
			if (v >= 4 && v <= 6)
				tag = pkt.tag;
			break;
		case 1: /* PKESK v3, v6 */
			if ((v == 3 && pkt.body_len >= 10) || v == 6)
				tag = pkt.tag;
			break;
		case 3: /* SKESK v4, v5, v6 */
			if (v >= 4 && v <= 6)
				tag = pkt.tag;
			break;
		default:
			tag = 0; /* frames, but nothing ksp reads */
			break;
		}
	}
	free(pkt.joined);
	return tag;
}

static int binary_data(struct importer *im, const uint8_t *p, size_t len, bool armored)
{
	switch (first_tag(p, len)) {
	case KSP_PGP_TAG_PUBLIC_KEY:
		return handle_keys(im, p, len);
	case KSP_PGP_TAG_SECRET_KEY:
		im->found = true;
		event(im, KSP_IMPORT_SKIPPED, NULL, "secret key material; not read (send only public keys)");
		return 0;
	case 1: /* public-key encrypted session key */
		return decrypt(im, p, len);
	case 3:
		im->found = true;
		event(im, KSP_IMPORT_SKIPPED, NULL, "encrypted with a passphrase, not to a key; not read");
		return 0;
	default:
		if (armored) {
			im->found = true;
			event(im, KSP_IMPORT_SKIPPED, NULL, "an armored block that is neither a key nor an encrypted message; not read");
		}
		return 0;
	}
}

static int handle_leaf(struct importer *im, const uint8_t *p, size_t len)
{
	char type[32];
	long off;
	size_t pos = 0;
	int r;

	if (first_tag(p, len) > 0 && !ksp_armor_detect(p, len))
		return binary_data(im, p, len, false);
	while ((off = ksp_armor_find(p, len, pos, type)) >= 0) {
		uint8_t *bin = NULL;
		size_t blen = 0, used = 0;

		pos = (size_t)off + 15;
		if (strcmp(type, "SIGNED MESSAGE") == 0 || strcmp(type, "SIGNATURE") == 0)
			continue;
		im->found = true;
		if (strcmp(type, "PRIVATE KEY BLOCK") == 0 || strcmp(type, "SECRET KEY BLOCK") == 0) {
			event(im, KSP_IMPORT_SKIPPED, NULL, "a secret key block; not read (send only public keys)");
			continue;
		}
		r = ksp_armor_decode(p + off, len - (size_t)off, &bin, &blen, &used);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			event(im, KSP_IMPORT_SKIPPED, NULL, "a damaged armored block (bad base64, checksum or no END line); not read");
			continue;
		}
		pos = (size_t)off + used;
		r = binary_data(im, bin, blen, true);
		free(bin);
		if (r < 0)
			return r;
	}
	return 0;
}

static int on_part(void *data, const struct ksp_mime_part *part)
{
	struct importer *im = data;

	if (strcmp(part->type, "application/pgp-encrypted") == 0)
		return 0; /* "Version: 1" */
	return handle_leaf(im, part->body, part->len);
}

static int handle_blob(struct importer *im, const uint8_t *p, size_t len)
{
	int r;

	if (!ksp_mime_is_message(p, len))
		return handle_leaf(im, p, len);
	r = ksp_mime_walk(p, len, on_part, im);
	if (r == -E2BIG) {
		event(im, KSP_IMPORT_SKIPPED, NULL, "more than %d MIME parts or %d levels; the rest was not read",
		      KSP_MIME_MAX_PARTS, KSP_MIME_MAX_DEPTH);
		r = 0;
	}
	return r;
}

static int on_message(void *data, const uint8_t *msg, size_t len, size_t index)
{
	struct importer *im = data;
	int r;

	snprintf(im->where, sizeof(im->where), "%s: message %zu", im->file, index);
	im->messages++;
	im->found = false;
	r = handle_blob(im, msg, len);
	if (r == 0 && !im->found)
		im->without++;
	return r;
}

KSP_EXPORT int ksp_party_import(struct ksp_party *party, const void *data, size_t len, const char *source,
				unsigned int flags,
				void (*cb)(void *cb_data, const struct ksp_import_event *ev), void *cb_data)
{
	struct importer im = { .party = party, .cb = cb, .cb_data = cb_data };
	int r;

	if (party == NULL || (data == NULL && len > 0))
		return -EINVAL;
	im.ctx = party->ctx;
	im.db = ksp_store_db(party->store);
	im.file = source ? source : "<input>";
	snprintf(im.where, sizeof(im.where), "%s", im.file);
	ksp_clear_error(im.ctx);
	r = ksp_store_begin(party->store);
	if (r < 0)
		return r;
	int rc = sqlite3_prepare_v2(im.db, "SELECT id FROM uids WHERE key_id = ? AND uid = ? AND is_attr = 0", -1,
				    &im.uid_st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(im.db, "SELECT 1 FROM certs WHERE uid_id = ? AND digest = ?", -1, &im.dup_st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(im.db, KSP_WOT_CERT_INSERT, -1, &im.ins_st, NULL);
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(im.ctx, im.db, rc, "import");
		goto out;
	}
	if (ksp_mbox_detect(data, len)) {
		r = ksp_mbox_split(data, len, on_message, &im);
		snprintf(im.where, sizeof(im.where), "%s", im.file);
		if (r == 0 && im.without > 0)
			event(&im, KSP_IMPORT_SKIPPED, NULL, "%u of %u message(s) hold no OpenPGP key or encrypted message; skipped",
			      im.without, im.messages);
	} else {
		r = handle_blob(&im, data, len);
		if (r == 0 && !im.found)
			event(&im, KSP_IMPORT_SKIPPED, NULL,
			      "no OpenPGP key or encrypted message found; give key files, .eml or mbox files");
	}
out:
	sqlite3_finalize(im.uid_st);
	sqlite3_finalize(im.dup_st);
	sqlite3_finalize(im.ins_st);
	for (size_t i = 0; i < im.n_signers; i++)
		ksp_pgp_key_free(im.signers[i].key);
	free(im.signers);
	if (im.ug)
		gpgme_release(im.ug);
	if (r < 0) {
		if (!ksp_get_error(im.ctx))
			ksp_set_error(im.ctx, "%s: cannot import: %s; nothing from this file was stored", im.file, strerror(-r));
		ksp_store_rollback(party->store);
		return r;
	}
	if (im.n_new > 0) {
		char detail[600];
		snprintf(detail, sizeof(detail), "%d certification(s) from %s", im.n_new, im.file);
		r = ksp_party_event(party, "import", detail);
		if (r < 0) {
			ksp_store_rollback(party->store);
			return r;
		}
		ksp_wsnap_want(party->store);
	}
	r = ksp_store_commit(party->store);
	return r < 0 ? r : im.n_new;
}
