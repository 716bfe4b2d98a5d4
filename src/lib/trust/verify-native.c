// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * verify-native.c: a detached signature over a document (class 0x00 or
 * 0x01), verified with libksp's own verifier -- the one 'wot load' uses
 * (pgp-verify.c: libgcrypt, Ed25519 of its own) -- without a gpg process:
 * what a gpg.program called once per commit needs (ksp-gpg).
 *
 * The issuer is looked up in the store as a primary key (fingerprint or
 * key ID), then as a subkey (the stored keys whose data holds the key ID's
 * bytes).  The key's validity is judged as gpg would for a signature made
 * at its creation time:
 *  - primary key: the store's verdicts from 'wot load' (a verified
 *    self-signature, expiry, a verified revocation with its reason); its
 *    newest verified user ID self-signature must allow signing when it
 *    has key flags;
 *  - signing subkey: its newest binding signature that verifies, with the
 *    signing flag and a primary key binding (back-signature, 0x19) made by
 *    the subkey; its expiry from that binding; its verified revocations;
 *  - a revocation for "superseded" or "retired" made after the signature
 *    lets it stand (RFC 9580 5.2.3.31), any other one does not.
 * What it does not do itself (signed messages, v5 document signatures, an
 * algorithm pgp-verify.c lacks, several signatures, input that is no
 * signature) goes to ksp_verify_detached() (gpgme), so the verdicts and
 * messages are the same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gcrypt.h>

#include "lib/libksp-private.h"
#include "lib/party/import-util.h"
#include "lib/openpgp/pgp-verify.h"
#include "lib/openpgp/pgp.h"
#include "lib/store/store-verify.h"
#include "lib/trust/verify-private.h"
#include "shared/util.h"

#define NATIVE_FALLBACK 1 /* not for this verifier: use gpgme */

/* ---- subpackets the parser does not keep ------------------------------------ */

/* The first subpacket of @type in the area, or NULL. */
static const uint8_t *find_subpacket(const uint8_t *p, size_t n, int type, size_t *len)
{
	size_t i = 0;

	while (i < n) {
		size_t l, hl;

		if (p[i] < 192) {
			l = p[i];
			hl = 1;
		} else if (p[i] < 255) {
			if (i + 1 >= n)
				return NULL;
			l = ((size_t)(p[i] - 192) << 8) + p[i + 1] + 192;
			hl = 2;
		} else {
			if (i + 5 > n)
				return NULL;
			l = (size_t)p[i + 1] << 24 | (size_t)p[i + 2] << 16 | (size_t)p[i + 3] << 8 | p[i + 4];
			hl = 5;
		}
		if (l == 0 || l > n - i - hl)
			return NULL;
		if ((p[i + hl] & 0x7f) == type) {
			*len = l - 1;
			return p + i + hl + 1;
		}
		i += hl + l;
	}
	return NULL;
}

/* Key flags (27) of a signature: -1 when it has none. */
static int key_flags(const struct ksp_pgp_sig *s)
{
	size_t n = 0;
	const uint8_t *f = find_subpacket(s->body + s->hashed_off, s->hashed_len, 27, &n);

	return f && n >= 1 ? f[0] : -1;
}

/* ---- the key ------------------------------------------------------------------ */

struct stored {
	int64_t id;
	char fpr[65];
	int64_t expires, revoked;
	int revoked_reason;
	bool selfsig_ok;
	struct ksp_pgp_key *key;
	const struct ksp_pgp_pubkey *signing; /* primary or one of its subkeys */
};

static bool pk_is(const struct ksp_pgp_pubkey *pk, const char *fpr, const char *keyid)
{
	char hex[65], kid[17];

	if (fpr[0]) {
		ksp_pgp_fpr_hex(pk, hex);
		return strcmp(hex, fpr) == 0;
	}
	hex_encode(pk->keyid, 8, kid);
	return strcmp(kid, keyid) == 0;
}

/* The key of @row that holds the issuer (its primary key, or with @sub
 * one of its subkeys): 1 and *st filled, 0 none, <0 error. */
static int row_key(struct ksp_ctx *ctx, const struct ksp_store_keyrow *row, const char *fpr, const char *keyid,
		   bool sub, struct stored *st)
{
	struct ksp_pgp_reader *rd = NULL;
	struct ksp_pgp_key *k = NULL;
	int r;

	r = ksp_pgp_reader_new(ctx, row->keydata, row->keydata_len, row->fpr, &rd);
	if (r < 0)
		return r;
	while ((r = ksp_pgp_reader_next(rd, &k)) > 0) {
		char hex[65];
		const struct ksp_pgp_pubkey *hit = NULL;

		ksp_pgp_fpr_hex(&k->primary, hex);
		if (strcmp(hex, row->fpr) == 0) {
			if (!sub && pk_is(&k->primary, fpr, keyid))
				hit = &k->primary;
			for (size_t i = 0; sub && !hit && i < k->n_subkeys; i++)
				if (pk_is(&k->subkeys[i], fpr, keyid))
					hit = &k->subkeys[i];
		}
		if (hit) {
			st->id = row->id;
			snprintf(st->fpr, sizeof(st->fpr), "%s", row->fpr);
			st->expires = row->expires;
			st->revoked = row->revoked;
			st->revoked_reason = row->revoked_reason;
			st->selfsig_ok = row->selfsig_ok;
			st->key = k;
			st->signing = hit;
			ksp_pgp_reader_free(rd);
			return 1;
		}
		ksp_pgp_key_free(k);
		k = NULL;
	}
	ksp_pgp_reader_free(rd);
	return r;
}

/* The search for the signing key: the signature, its digest, and what was
 * found. */
struct key_walk {
	struct ksp_ctx *ctx;
	const struct ksp_pgp_sig *s;
	const uint8_t *dg;
	size_t dl;
	const char *fpr, *keyid;
	bool sub;      /* looking at subkeys */
	bool any;      /* a stored key holds the issuer */
	bool found;    /* and the signature verifies with it: *st */
	bool fallback; /* an algorithm pgp-verify.c lacks: gpgme's turn */
	struct stored *st;
	char bad_owner[65]; /* a key whose subkey the signature does not match */
};

/* One stored key that may hold the issuer: does the signature verify with
 * it?  0 goes on (not the issuer's, or a bad signature), 1 stops (found,
 * or w->fallback), <0 on error. */
static int try_key(const struct ksp_store_keyrow *row, void *arg)
{
	struct key_walk *w = arg;
	struct stored *st = w->st;
	const struct ksp_pgp_sig *s = w->s;
	struct ksp_pgp_vkey *vk = NULL;
	int v;

	v = row_key(w->ctx, row, w->fpr, w->keyid, w->sub, st);
	if (v <= 0)
		return v;
	w->any = true;
	if ((s->version == 6) != (st->signing->version == 6)) {
		v = KSP_VERIFY_BAD;
	} else if (st->signing->created > s->created || st->signing->created > (int64_t)time(NULL)) {
		v = KSP_VERIFY_GOOD; /* gpg: a time conflict, before the mathematics */
	} else if (w->dg[0] != s->left16[0] || w->dg[1] != s->left16[1]) {
		v = KSP_VERIFY_BAD;
	} else {
		v = ksp_pgp_vkey_new(st->signing, &vk);
		if (v == 0)
			v = ksp_pgp_vkey_verify(vk, s, w->dg, w->dl);
		ksp_pgp_vkey_free(vk);
	}
	if (v < 0)
		return v;
	if (v == KSP_VERIFY_GOOD) {
		w->found = true;
		return 1;
	}
	if (w->sub)
		snprintf(w->bad_owner, sizeof(w->bad_owner), "%s", st->fpr);
	ksp_pgp_key_free(st->key);
	st->key = NULL;
	if (v != KSP_VERIFY_BAD) { /* an algorithm pgp-verify.c lacks */
		w->fallback = true;
		return 1;
	}
	return 0;
}

/* Does a revocation made at @rtime with @code count for a signature made
 * at @when?  The library's one rule (ksp_revocation_is_soft()), as
 * verify.c and the trust models apply it. */
static bool revocation_counts(int code, int64_t rtime, int64_t when)
{
	return !(ksp_revocation_is_soft(code) && rtime > when);
}

/* The newest verified binding of subkey @sk (signing flag, back-signature
 * by the subkey), or NULL; *why says what was missing. */
static const struct ksp_pgp_sig *good_binding(const struct ksp_pgp_key *k, const struct ksp_pgp_pubkey *sk,
					      const char **why)
{
	const struct ksp_pgp_sig *best = NULL;

	*why = "no valid binding signature";
	for (size_t i = 0; i < sk->n_sigs; i++) {
		const struct ksp_pgp_sig *s = &sk->sigs[i];
		const uint8_t *emb;
		size_t elen = 0;
		struct ksp_pgp_sig back;
		int flags, v;

		if (s->type != 0x18 || (best && s->created <= best->created))
			continue;
		if (ksp_pgp_verify_key_sig(&k->primary, &k->primary, sk, s) != KSP_VERIFY_GOOD)
			continue;
		flags = key_flags(s);
		if (flags >= 0 && !(flags & 0x02)) {
			*why = "not a signing key";
			continue;
		}
		emb = find_subpacket(s->body + s->hashed_off, s->hashed_len, 32, &elen);
		if (emb == NULL)
			emb = find_subpacket(s->body + s->unhashed_off, s->unhashed_len, 32, &elen);
		if (emb == NULL || ksp_pgp_parse_sig(emb, elen, &back) != 0) {
			*why = "no primary key binding (back-signature) by the signing subkey";
			continue;
		}
		v = back.type == 0x19 ? ksp_pgp_verify_key_sig(sk, &k->primary, sk, &back) : KSP_VERIFY_BAD;
		ksp_pgp_sig_done(&back);
		if (v != KSP_VERIFY_GOOD) {
			*why = "no valid primary key binding (back-signature) by the signing subkey";
			continue;
		}
		best = s;
	}
	return best;
}

/* May the primary key sign?  Its newest verified user ID self-signature's
 * key flags (none: yes). */
static bool primary_may_sign(const struct ksp_pgp_key *k)
{
	const struct ksp_pgp_sig *best = NULL;
	const struct ksp_pgp_uid *best_uid = NULL;

	for (size_t u = 0; u < k->n_uids; u++)
		for (size_t i = 0; i < k->uids[u].n_sigs; i++) {
			const struct ksp_pgp_sig *s = &k->uids[u].sigs[i];
			if (s->type < 0x10 || s->type > 0x13 || !ksp_pgp_sig_is_self(k, s) ||
			    (best && s->created <= best->created))
				continue;
			if (ksp_pgp_verify_uid_sig(&k->primary, &k->primary, &k->uids[u], s) != KSP_VERIFY_GOOD)
				continue;
			best = s;
			best_uid = &k->uids[u];
		}
	(void)best_uid;
	if (best == NULL)
		return true; /* the store's selfsig_ok said a self-signature verified */
	return key_flags(best) < 0 || (key_flags(best) & 0x02);
}

/* ---- the document's digest -------------------------------------------------------- */

/* Text mode (0x01): every line end as CR LF; a CR held back across reads
 * in *cr. */
static void hash_text(gcry_md_hd_t md, const uint8_t *data, size_t len, bool *cr)
{
	size_t start = 0;

	for (size_t i = 0; i < len; i++) {
		if (*cr) {
			*cr = false;
			if (data[i] != '\n')
				gcry_md_write(md, "\r", 1);
		}
		if (data[i] == '\r') {
			gcry_md_write(md, data + start, i - start);
			start = i + 1;
			*cr = true;
		} else if (data[i] == '\n') {
			gcry_md_write(md, data + start, i - start);
			gcry_md_write(md, "\r\n", 2);
			start = i + 1;
		}
	}
	gcry_md_write(md, data + start, len - start);
}

static void hash_chunk(gcry_md_hd_t md, const struct ksp_pgp_sig *s, const uint8_t *data, size_t len, bool *cr)
{
	if (s->type == 0x00)
		gcry_md_write(md, data, len);
	else
		hash_text(md, data, len, cr);
}

/* The document's digest; from doc->fd, read and hashed 64 KiB at a time
 * (nothing kept: any size). */
static int doc_digest(const struct ksp_pgp_sig *s, struct ksp_verify_doc *doc, uint8_t *out, size_t *out_len)
{
	int gh = ksp_pgp_hash_to_gcry(s->hash_algo);
	gcry_md_hd_t md;
	bool cr = false;

	if (gh == 0 || gcry_md_test_algo(gh))
		return NATIVE_FALLBACK;
	if (gcry_md_open(&md, gh, 0) != 0)
		return -ENOMEM;
	if (s->version == 6 && s->salt_len)
		gcry_md_write(md, s->body + s->salt_off, s->salt_len);
	if (doc->fd >= 0) {
		uint8_t *buf = malloc(65536);

		doc->consumed = true;

		if (buf == NULL) {
			gcry_md_close(md);
			return -ENOMEM;
		}
		for (;;) {
			ssize_t k = read(doc->fd, buf, 65536);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				doc->read_errno = errno;
				free(buf);
				gcry_md_close(md);
				return -EIO;
			}
			if (k == 0)
				break;
			hash_chunk(md, s, buf, (size_t)k, &cr);
		}
		free(buf);
	} else {
		hash_chunk(md, s, doc->data, doc->len, &cr);
	}
	if (cr)
		gcry_md_write(md, "\r", 1);
	if (s->version == 3) {
		gcry_md_write(md, s->body + s->hashed_off, s->hashed_len);
	} else {
		size_t n = s->hashed_prefix_len;
		uint8_t t[6] = { s->version, 0xff, (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n };
		gcry_md_write(md, s->body, n);
		gcry_md_write(md, t, 6);
	}
	*out_len = gcry_md_get_algo_dlen(gh);
	memcpy(out, gcry_md_read(md, gh), *out_len);
	gcry_md_close(md);
	return 0;
}

/* ---- the verdict -------------------------------------------------------------------- */

/* 0 and *ret, NATIVE_FALLBACK, or <0.  The order of gpg 2.2
 * (g10/mainproc.c, sig-check.c): a rejected digest (MD5) and a key newer
 * than the signature are errors (ERRSIG), before any verdict on the data;
 * then the mathematics; then the key's state. */
/* (Long: one pass in gpg's order, signature, key, key state, each verdict a goto to one exit.) */
int ksp_verify_native(struct ksp_store *store, const uint8_t *sig, size_t siglen, struct ksp_verify_doc *doc,
		      struct ksp_verify_result **ret)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	struct ksp_verify_result *res = NULL;
	struct ksp_pgp_sig s;
	struct ksp_pgp_packet pkt;
	struct stored st = { 0 };
	struct key_walk w;
	uint8_t *dec = NULL, dg[64], kidb[8];
	const uint8_t *b = sig;
	size_t blen = siglen, pos = 0, consumed, dl = 0;
	char fpr[65] = "", keyid[17] = "", d1[32], why[160];
	bool have_sig = false;
	int r, pass;

	/* exactly one signature packet, nothing else; a cleartext-signed
	 * message is not a detached signature (gpgme says so) */
	if (siglen >= 34 && memmem(sig, MIN(siglen, (size_t)4096), "-----BEGIN PGP SIGNED MESSAGE-----", 34))
		return NATIVE_FALLBACK;
	if (ksp_armor_detect(sig, siglen)) {
		if (ksp_armor_decode(sig, siglen, &dec, &blen, &consumed) < 0)
			return NATIVE_FALLBACK;
		b = dec;
	}
	while (pos < blen) {
		r = ksp_pgp_packet_next(b, blen, &pos, &pkt);
		if (r < 0 || pkt.tag != KSP_PGP_TAG_SIGNATURE || have_sig || pkt.joined) {
			if (r == 0)
				free(pkt.joined);
			if (have_sig)
				ksp_pgp_sig_done(&s);
			free(dec);
			return r == -ENOMEM ? r : NATIVE_FALLBACK;
		}
		if (ksp_pgp_parse_sig(pkt.body, pkt.body_len, &s) != 0) {
			free(dec);
			return NATIVE_FALLBACK;
		}
		have_sig = true;
	}
	if (!have_sig) {
		free(dec);
		return NATIVE_FALLBACK;
	}
	r = NATIVE_FALLBACK;
	if ((s.type != 0x00 && s.type != 0x01) || s.version == 5 || s.unknown_critical)
		goto out;
	if (s.issuer_fpr_version && (s.issuer_fpr_len == 20 || s.issuer_fpr_len == 32))
		hex_encode(s.issuer_fpr, s.issuer_fpr_len, fpr);
	if (s.has_issuer)
		hex_encode(s.issuer, 8, keyid);
	else if (fpr[0])
		memcpy(keyid, s.issuer_fpr_len == 20 ? fpr + 24 : fpr, 16);
	if (fpr[0] == '\0' && keyid[0] == '\0')
		goto out;
	if (s.hash_algo != 1) { /* MD5: refused below, the data unread */
		r = doc_digest(&s, doc, dg, &dl);
		if (r != 0) {
			if (r == -EIO)
				ksp_set_error(ctx, "cannot read the signed data: %s", strerror(doc->read_errno));
			goto out;
		}
	}

	res = calloc(1, sizeof(*res));
	if (res == NULL) {
		r = -ENOMEM;
		goto out;
	}
	snprintf(res->issuer, sizeof(res->issuer), "%s", fpr[0] ? fpr : keyid);
	res->created = s.created;
	res->hash_algo = s.hash_algo;
	format_datetime(s.created, d1, sizeof(d1));
	if (s.hash_algo == 1) {
		/* gpg 2.2: "signatures using the MD5 algorithm are rejected"
		 * (ERRSIG, exit 2), whoever made them */
		ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNUSABLE,
			"not checked: signed by %s with MD5, a broken hash; signatures using the MD5 algorithm are rejected (as gpg does)",
			fpr[0] ? fpr : keyid);
		res->errsig = KSP_ERRSIG_DIGEST;
		goto done;
	}
	if (hex_decode(keyid, kidb, sizeof(kidb)) != 8)
		memset(kidb, 0, sizeof(kidb));

	/* 0: a primary key by fingerprint or key ID; 1: a subkey, in the
	 * keys whose data holds the key ID's bytes */
	w = (struct key_walk){ .ctx = ctx, .s = &s, .dg = dg, .dl = dl, .fpr = fpr, .keyid = keyid, .st = &st };
	for (pass = 0; pass < 2 && !w.found; pass++) {
		w.sub = pass == 1;
		r = pass == 0 ? ksp_store_keys_by_issuer(store, fpr, keyid, try_key, &w)
			      : ksp_store_keys_holding(store, kidb, sizeof(kidb), try_key, &w);
		if (r < 0)
			goto out;
		if (w.fallback) {
			r = NATIVE_FALLBACK;
			goto out;
		}
		if (w.any && !w.found)
			break; /* the issuer's key, and the signature does not match it */
	}
	r = 0;
	if (!w.any) {
		res->errsig = KSP_ERRSIG_NO_PUBKEY;
		ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNKNOWN,
			"signed by %s %s, which is not in the store %s; get the signer's key and load it with 'ksp wot load FILE'",
			fpr[0] ? "key" : "key ID", fpr[0] ? fpr : keyid, ksp_store_get_path(store));
		goto done;
	}
	if (!w.found) {
		if (w.bad_owner[0])
			ksp_verify_set_msg(res, KSP_SIGNATURE_BAD,
				"bad signature: the data or the signature was changed after it was signed (issuer %s, a subkey of %s)",
				fpr[0] ? fpr : keyid, w.bad_owner);
		else
			ksp_verify_set_msg(res, KSP_SIGNATURE_BAD,
				"bad signature: the data or the signature was changed after it was signed (issuer %s)",
				fpr[0] ? fpr : keyid);
		goto done;
	}

	/* mathematically good: whose, and was the key valid when it signed? */
	snprintf(res->signer, sizeof(res->signer), "%s", st.fpr);
	ksp_pgp_fpr_hex(st.signing, res->signing_key);
	res->subkey = st.signing != &st.key->primary;
	{
		char *u = NULL;
		size_t ul = 0;
		if (ksp_store_get_key_uid(store, st.fpr, &u, &ul) == 0) {
			res->uid = u;
			res->uid_len = ul;
		}
	}
	/* a key newer than the signature (or made in the future): gpg's
	 * time conflict, ERRSIG, whatever the key's state */
	if (!ksp_verify_key_valid_at(res, s.created, d1, res->subkey, res->subkey ? res->signing_key : st.fpr,
				     st.signing->created, 0))
		goto done;
	if (!st.selfsig_ok) {
		res->errsig = KSP_ERRSIG_ALGO;
		ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNUSABLE,
			"signed by %s, but the store's key %s has no valid self-signature", res->issuer, st.fpr);
		goto done;
	}
	if (st.revoked > 0 && revocation_counts(st.revoked_reason, st.revoked, s.created)) {
		ksp_verify_revocation_why(st.revoked_reason, st.revoked, why, sizeof(why));
		ksp_verify_set_revoked(res, d1, false, NULL, st.fpr, why);
		goto done;
	}
	if (!ksp_verify_key_valid_at(res, s.created, d1, false, st.fpr, st.key->primary.created, st.expires))
		goto done;
	if (res->subkey) {
		const struct ksp_pgp_pubkey *sk = st.signing;
		const char *missing;
		const struct ksp_pgp_sig *bind = good_binding(st.key, sk, &missing);

		if (bind == NULL) {
			res->errsig = KSP_ERRSIG_ALGO;
			ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNUSABLE, "signed by subkey %s of %s, which has %s",
					   res->signing_key, st.fpr, missing);
			goto done;
		}
		for (size_t i = 0; i < sk->n_sigs; i++) {
			const struct ksp_pgp_sig *rv = &sk->sigs[i];
			int code = rv->has_revocation_reason ? rv->revocation_code : 0;
			if (rv->type != 0x28 || !revocation_counts(code, rv->created, s.created) ||
			    ksp_pgp_verify_key_sig(&st.key->primary, &st.key->primary, sk, rv) != KSP_VERIFY_GOOD)
				continue;
			ksp_verify_revocation_why(code, rv->created, why, sizeof(why));
			ksp_verify_set_revoked(res, d1, true, res->signing_key, st.fpr, why);
			goto done;
		}
		if (!ksp_verify_key_valid_at(res, s.created, d1, true, res->signing_key, sk->created,
					     bind->has_key_expires && bind->key_expires
						     ? (int64_t)sk->created + bind->key_expires
						     : 0))
			goto done;
	} else if (!primary_may_sign(st.key)) {
		res->errsig = KSP_ERRSIG_ALGO;
		ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNUSABLE, "signed by %s, which is not a signing key", st.fpr);
		goto done;
	}
	if (ksp_verify_sig_expired(res, st.fpr, s.expires ? (int64_t)s.created + s.expires : 0, false))
		goto done;
	ksp_verify_set_good(res, st.fpr, res->subkey, res->signing_key, d1);
done:
	*ret = res;
	res = NULL;
	r = 0;
out:
	ksp_pgp_key_free(st.key);
	ksp_verify_result_free(res);
	ksp_pgp_sig_done(&s);
	free(dec);
	return r;
}
