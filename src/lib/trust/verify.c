// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * verify.c: who made this signature, and is it good?  (ksp verify)
 *
 * The signature packet is read with the native reader to learn its issuer
 * (issuer fingerprint subpacket 33, else issuer key ID 16; for signed
 * messages whose packets are compressed, gpgme is asked in an empty home).
 * The store holds primary keys only: the issuer is looked up as a primary
 * key first, then as a subkey by scanning the stored keys (keys.keydata):
 * a quick pass over the blobs that contain the issuer's key ID bytes (the
 * back-signature of a signing subkey names it), then, when that finds
 * nothing, a full parse of every key.  The key found is rebuilt from its
 * own packets only (self-signatures and bindings, no third-party
 * certifications: a flooded key cannot slow gpg down), imported into a
 * private temporary GnuPG home and the signature is verified with gpgme.
 * Only the mathematics is taken from gpg; its validity and trust are
 * ignored (the home has no trust), ksp judges trust on the web of trust.
 * The key that signed must belong to the key found, must not be revoked
 * (a revocation for "superseded" or "retired" made after the signature
 * lets it stand, RFC 9580 5.2.3.31) and must not have expired before it
 * signed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpgme.h>

#include "lib/party/import-util.h"
#include "lib/party/mime.h"
#include "lib/openpgp/pgp.h"
#include "lib/trust/git-split.h"
#include "lib/openpgp/hash-rules.h"
#include "lib/store/store-verify.h"
#include "lib/trust/verify-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"


/* ---- what the signature says about itself ---------------------------------- */

struct sig_scan {
	char fpr[65], keyid[17]; /* issuer; "" when not named */
	unsigned n_sigs;
	uint8_t type;
	uint32_t created;
	bool literal;   /* a literal data packet: an inline signed message */
	bool opaque;    /* compressed or encrypted packets: not looked into */
	bool cleartext; /* -----BEGIN PGP SIGNED MESSAGE----- */
	bool key;       /* a (public or secret) key packet: not a signature */
};

static bool starts_line(const uint8_t *in, size_t len, const char *what)
{
	size_t p = 0, n = strlen(what);

	while (p < len && (in[p] == ' ' || in[p] == '\t' || in[p] == '\r' || in[p] == '\n'))
		p++;
	return len - p >= n && memcmp(in + p, what, n) == 0;
}

/* Returns 0, or -EBADMSG (with the error set) when @in holds no OpenPGP
 * signature at all. */
static int scan_sig(struct ksp_ctx *ctx, const uint8_t *in, size_t len, const char *source,
		    struct sig_scan *sc)
{
	uint8_t *dec = NULL;
	const uint8_t *buf = in;
	size_t blen = len, pos = 0, consumed;
	int r = 0;

	memset(sc, 0, sizeof(*sc));
	sc->cleartext = starts_line(in, len, "-----BEGIN PGP SIGNED MESSAGE-----");
	if (ksp_armor_detect(in, len)) {
		r = ksp_armor_decode(in, len, &dec, &blen, &consumed);
		if (r < 0) {
			ksp_set_error(ctx, "%s: damaged ASCII armor (%s); ask the signer for the signature again",
				      source, r == -ENOMEM ? "out of memory" : "bad base64, checksum or END line");
			return r == -ENOMEM ? r : -EBADMSG;
		}
		buf = dec;
	}
	while (pos < blen) {
		struct ksp_pgp_packet pkt;

		r = ksp_pgp_packet_next(buf, blen, &pos, &pkt);
		if (r < 0)
			break;
		switch (pkt.tag) {
		case KSP_PGP_TAG_SIGNATURE: {
			struct ksp_pgp_sig s;
			if (ksp_pgp_parse_sig(pkt.body, pkt.body_len, &s) == 0) {
				if (sc->n_sigs++ == 0) {
					ksp_pgp_sig_issuer(&s, sc->fpr, sc->keyid);
					sc->type = s.type;
					sc->created = s.created;
				}
				ksp_pgp_sig_done(&s);
			} else {
				sc->n_sigs++;
			}
			break;
		}
		case 4: /* one-pass signature: v3 names the key ID, v6 the fingerprint */
			if (sc->fpr[0] == '\0' && sc->keyid[0] == '\0') {
				if (pkt.body_len >= 13 && pkt.body[0] == 3) {
					hex_encode(pkt.body + 4, 8, sc->keyid);
				} else if (pkt.body_len >= 5 && pkt.body[0] == 6) {
					size_t sl = pkt.body[4];
					if (pkt.body_len >= 5 + sl + 32) {
						hex_encode(pkt.body + 5 + sl, 32, sc->fpr);
						memcpy(sc->keyid, sc->fpr, 16);
						sc->keyid[16] = '\0';
					}
				}
			}
			break;
		case 11:
			sc->literal = true;
			break;
		case KSP_PGP_TAG_PUBLIC_KEY:
		case KSP_PGP_TAG_SECRET_KEY:
			sc->key = true;
			break;
		case 8:  /* compressed */
		case 9:  /* symmetrically encrypted */
		case 18: /* encrypted and integrity protected */
		case 20:
		case 1:  /* public-key encrypted session key */
		case 3:
			sc->opaque = true;
			break;
		default:
			break;
		}
		free(pkt.joined);
		if (sc->opaque || sc->key)
			break;
	}
	free(dec);
	if (sc->key) {
		ksp_set_error(ctx, "%s: an OpenPGP key, not a signature; load keys with 'ksp wot load', verify signature files",
			      source);
		return -EBADMSG;
	}
	if (sc->n_sigs == 0 && !sc->opaque && !sc->literal) {
		ksp_set_error(ctx, "%s: no OpenPGP signature found; give a signature file (gpg --detach-sign, --clearsign or --sign)",
			      source);
		return -EBADMSG;
	}
	return 0;
}

/* ---- the key in the store -------------------------------------------------- */

struct cand {
	int64_t id;
	char fpr[65];
	struct ksp_pgp_key *key;
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

static void cands_free(struct cands *c)
{
	for (size_t i = 0; i < c->n; i++)
		ksp_pgp_key_free(c->v[i].key);
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

/* Does @pk have the fingerprint @fpr (hex, may be "") or key ID @keyid? */
static bool pk_matches(const struct ksp_pgp_pubkey *pk, const char *fpr, const char *keyid)
{
	char hex[65], kid[17];

	if (fpr[0]) {
		ksp_pgp_fpr_hex(pk, hex);
		return strcmp(hex, fpr) == 0;
	}
	hex_encode(pk->keyid, 8, kid);
	return strcmp(kid, keyid) == 0;
}

static int cands_add(struct cands *c, int64_t id, const char *fpr, struct ksp_pgp_key *k)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].id == id) {
			ksp_pgp_key_free(k);
			return 0;
		}
	if (c->n == c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 4;
		void *n = realloc(c->v, nc * sizeof(*c->v));
		if (n == NULL) {
			ksp_pgp_key_free(k);
			return -ENOMEM;
		}
		c->v = n;
		c->cap = nc;
	}
	c->v[c->n].id = id;
	snprintf(c->v[c->n].fpr, sizeof(c->v[c->n].fpr), "%s", fpr);
	c->v[c->n].key = k;
	c->n++;
	return 0;
}

/* Parse one stored key; 1 and *ret when it (or, @sub, one of its
 * subkeys) is the issuer, 0 when not, <0 on a fatal error. */
static int match_blob(struct ksp_ctx *ctx, const uint8_t *b, size_t n, const char *rowfpr, bool sub,
		      const char *fpr, const char *keyid, struct ksp_pgp_key **ret)
{
	struct ksp_pgp_reader *rd = NULL;
	struct ksp_pgp_key *k = NULL;
	int r;

	r = ksp_pgp_reader_new(ctx, b, n, rowfpr, &rd);
	if (r < 0)
		return r;
	while ((r = ksp_pgp_reader_next(rd, &k)) > 0) {
		char hex[65];
		bool hit = false;

		ksp_pgp_fpr_hex(&k->primary, hex);
		if (strcmp(hex, rowfpr) == 0) {
			if (!sub)
				hit = pk_matches(&k->primary, fpr, keyid);
			for (size_t i = 0; sub && !hit && i < k->n_subkeys; i++)
				hit = pk_matches(&k->subkeys[i], fpr, keyid);
			if (hit) {
				*ret = k;
				r = 1;
				break;
			}
		}
		ksp_pgp_key_free(k);
		k = NULL;
	}
	ksp_pgp_reader_free(rd);
	return r;
}

struct find {
	struct ksp_ctx *ctx;
	const char *fpr, *keyid;
	uint8_t kid[8];
	int pass;
	struct cands *c;
};

/* One stored key: a candidate when it holds the issuer. */
static int find_one(const struct ksp_store_keyrow *row, void *arg)
{
	struct find *f = arg;
	struct ksp_pgp_key *k = NULL;
	int r;

	/* 2: subkeys of the keys whose data names the key ID (a signing
	 * subkey's back-signature does) */
	if (f->pass == 1 && memmem(row->keydata, row->keydata_len, f->kid, 8) == NULL)
		return 0;
	r = match_blob(f->ctx, row->keydata, row->keydata_len, row->fpr, f->pass > 0, f->fpr, f->keyid, &k);
	if (r > 0)
		r = cands_add(f->c, row->id, row->fpr, k);
	return r < 0 ? r : 0;
}

/* Keys of the store that hold the issuer as primary key or subkey. */
static int find_keys(struct ksp_store *store, const char *fpr, const char *keyid, struct cands *c)
{
	struct find f = { .ctx = ksp_store_get_ctx(store), .fpr = fpr, .keyid = keyid, .c = c };
	int r = 0;

	if (hex_decode(keyid, f.kid, sizeof(f.kid)) != 8)
		memset(f.kid, 0, sizeof(f.kid));
	/* 1: a primary key; 2: see find_one(); 3: every key, parsed (only
	 * when the quick pass found none) */
	for (f.pass = 0; f.pass < 3 && c->n == 0 && r >= 0; f.pass++)
		r = f.pass == 0 ? ksp_store_keys_by_issuer(store, fpr, keyid, find_one, &f)
				: ksp_store_keys_all(store, find_one, &f);
	return r < 0 ? r : 0;
}

/* The key's own packets: primary with its self-signatures, user IDs with
 * their self-signatures, subkeys with their bindings and revocations. */
static void emit_own(struct strbuf *sb, const struct ksp_pgp_key *k)
{
	ksp_pgp_emit_primary(sb, k);
	for (size_t u = 0; u < k->n_uids; u++) {
		const struct ksp_pgp_uid *uid = &k->uids[u];
		ksp_pgp_emit(sb, uid->attribute ? KSP_PGP_TAG_USER_ATTRIBUTE : KSP_PGP_TAG_USER_ID, uid->data,
			     uid->len);
		for (size_t i = 0; i < uid->n_sigs; i++)
			if (ksp_pgp_sig_is_self(k, &uid->sigs[i]))
				ksp_pgp_emit(sb, KSP_PGP_TAG_SIGNATURE, uid->sigs[i].body, uid->sigs[i].body_len);
	}
	ksp_pgp_emit_subkeys(sb, k);
}

/* Was the (sub)key revoked for the signature made at @when?  A revocation
 * counts unless it is soft (ksp_revocation_is_soft(): superseded, retired,
 * user ID no longer valid) and newer than @when.
 * @sigs are the key's revocation candidates as read (gpg has checked that
 * one of them is a valid revocation).  Returns true and a description. */
static bool revoked_at(const struct ksp_pgp_key *k, const struct ksp_pgp_sig *sigs, size_t n, uint8_t type,
		       int64_t when, char *why, size_t whylen)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		const struct ksp_pgp_sig *s = &sigs[i];
		int code;

		if (s->type != type || !ksp_pgp_sig_is_self(k, s))
			continue;
		any = true;
		code = s->has_revocation_reason ? s->revocation_code : 0;
		if (ksp_revocation_is_soft(code) && (int64_t)s->created > when)
			continue;
		ksp_verify_revocation_why(code, s->created, why, whylen);
		return true;
	}
	if (!any) {
		snprintf(why, whylen, "revocation not found in the stored key");
		return true;
	}
	return false;
}

/* The signer's primary user ID from the store. */
static int load_uid(struct ksp_store *store, int64_t key_id, struct ksp_verify_result *res)
{
	int r = ksp_store_signer_uid(store, key_id, &res->uid, &res->uid_len);

	return r < 0 ? r : 0;
}

/* ---- verification ------------------------------------------------------------ */

static const char *issuer_text(const struct sig_scan *sc)
{
	return sc->fpr[0] ? sc->fpr : sc->keyid;
}

/* The first signature of @sig as gpgme sees it in an empty home: its
 * issuer (fingerprint or key ID) when the packets did not tell. */
static int probe_issuer(struct ksp_ctx *ctx, gpgme_ctx_t g, gpgme_data_t sd, gpgme_data_t dd,
			gpgme_data_t plain, const char *source, struct sig_scan *sc)
{
	gpgme_verify_result_t vr;
	gpgme_error_t e;
	unsigned n = 0;

	e = gpgme_op_verify(g, sd, dd, plain);
	vr = gpgme_op_verify_result(g);
	if (vr)
		for (gpgme_signature_t s = vr->signatures; s; s = s->next)
			if (n++ == 0 && s->fpr && strlen(s->fpr) <= 64) {
				if (strlen(s->fpr) == 16)
					snprintf(sc->keyid, sizeof(sc->keyid), "%s", s->fpr);
				else if (strlen(s->fpr) == 40 || strlen(s->fpr) == 64) {
					snprintf(sc->fpr, sizeof(sc->fpr), "%s", s->fpr);
					/* v4: the low 64 bits, v5/v6: the high 64 bits */
					memcpy(sc->keyid, strlen(s->fpr) == 40 ? s->fpr + 24 : s->fpr, 16);
					sc->keyid[16] = '\0';
				}
				sc->created = (uint32_t)s->timestamp;
			}
	sc->n_sigs = n;
	gpgme_data_seek(sd, 0, SEEK_SET);
	if (dd)
		gpgme_data_seek(dd, 0, SEEK_SET);
	if (n == 0) {
		ksp_set_error(ctx, "%s: no OpenPGP signature found%s%s; give a signed file", source,
			      e ? ": " : "", e ? gpgme_strerror(e) : "");
		return -EBADMSG;
	}
	return 0;
}

/* The signed text of a message (what gpg --output writes), for
 * ksp_verify_result_get_plaintext(). */
static int keep_plaintext(gpgme_data_t plain, struct ksp_verify_result *res)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	ssize_t k;

	if (buf == NULL)
		return -ENOMEM;
	gpgme_data_seek(plain, 0, SEEK_SET);
	while ((k = gpgme_data_read(plain, buf + n, cap - n)) > 0) {
		n += (size_t)k;
		if (n == cap) {
			char *nb = cap > (256u << 20) ? NULL : realloc(buf, 2 * cap + 1);
			if (nb == NULL) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
	}
	buf[n] = '\0';
	res->plaintext = buf;
	res->plaintext_len = n;
	return 0;
}

/* The signature in @sig scanned into @sc and its shape checked: one
 * signature over a document, detached or not as asked.  0 or -errno. */
static int scan_shape(struct ksp_ctx *ctx, const void *sig, size_t siglen, bool detached, const char *source,
		      struct sig_scan *sc)
{
	int r;

	r = scan_sig(ctx, sig, siglen, source, sc);
	if (r < 0)
		return r;
	if (detached && (sc->literal || sc->cleartext || sc->opaque)) {
		ksp_set_error(ctx, "%s: a signed message, not a detached signature; verify it without a data file",
			      source);
		return -EBADMSG;
	}
	if (!detached && !sc->literal && !sc->cleartext && !sc->opaque) {
		ksp_set_error(ctx, "%s: a detached signature; give the file it signs too", source);
		return -ENODATA;
	}
	if (sc->n_sigs > 1) {
		ksp_set_error(ctx, "%s: holds %u signatures; ksp verifies files with one signature", source, sc->n_sigs);
		return -EOPNOTSUPP;
	}
	if (sc->n_sigs == 1 && sc->type != 0x00 && sc->type != 0x01) {
		ksp_set_error(ctx, "%s: a signature of type 0x%02x, not over a document (0x00 or 0x01); give a signature made with gpg --detach-sign or --clearsign",
			      source, sc->type);
		return -EBADMSG;
	}
	return 0;
}

/* (Long: the verdict in gpg's order, issuer, key import, verification, key state, with one exit.) */
static int do_verify(struct ksp_store *store, const void *sig, size_t siglen, const void *data, size_t datalen,
		     bool detached, const char *source, struct ksp_verify_result **ret)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	struct ksp_verify_result *res;
	struct ksp_gpghome *home = NULL;
	gpgme_ctx_t g = NULL;
	gpgme_data_t sd = NULL, dd = NULL, plain = NULL, kd = NULL;
	gpgme_key_t key = NULL;
	gpgme_error_t e;
	struct sig_scan sc;
	struct cands c = { 0 };
	struct strbuf kb;
	const struct cand *owner = NULL;
	int r;

	strbuf_init(&kb);
	ksp_clear_error(ctx);
	if (sig == NULL || ret == NULL || (detached && data == NULL && datalen))
		return -EINVAL;
	r = scan_shape(ctx, sig, siglen, detached, source, &sc);
	if (r < 0)
		return r;
	res = calloc(1, sizeof(*res));
	if (res == NULL)
		return -ENOMEM;

	r = ksp_gpghome_new(ctx, &home);
	if (r < 0)
		goto fail;
	r = ksp_after_gpgme_new(ctx, ksp_gpghome_path(home), true, &g);
	if (r < 0)
		goto fail;
	e = gpgme_data_new_from_mem(&sd, sig, siglen, 0);
	if (!e && detached)
		e = gpgme_data_new_from_mem(&dd, datalen ? data : "", datalen, 0);
	if (!e && !detached)
		e = gpgme_data_new(&plain);
	if (e) {
		r = ksp_errno_from_gpgme(ctx, e, "gpgme data");
		goto fail;
	}
	if (sc.fpr[0] == '\0' && sc.keyid[0] == '\0') {
		r = probe_issuer(ctx, g, sd, dd, plain, source, &sc);
		if (r < 0)
			goto fail;
		if (sc.n_sigs > 1) {
			ksp_set_error(ctx, "%s: holds %u signatures; ksp verifies files with one signature", source,
				      sc.n_sigs);
			r = -EOPNOTSUPP;
			goto fail;
		}
		gpgme_data_release(plain);
		plain = NULL;
		e = detached ? 0 : gpgme_data_new(&plain);
		if (e) {
			r = ksp_errno_from_gpgme(ctx, e, "gpgme data");
			goto fail;
		}
	}
	if (sc.fpr[0] == '\0' && sc.keyid[0] == '\0') {
		ksp_set_error(ctx, "%s: the signature names no issuer key; ksp cannot tell who made it", source);
		r = -EBADMSG;
		goto fail;
	}
	snprintf(res->issuer, sizeof(res->issuer), "%s", issuer_text(&sc));
	res->created = sc.created;

	r = find_keys(store, sc.fpr, sc.keyid, &c);
	if (r < 0)
		goto fail;
	if (c.n == 0) {
		ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNKNOWN,
			"signed by %s %s, which is not in the store %s; get the signer's key and load it with 'ksp wot load FILE'",
			sc.fpr[0] ? "key" : "key ID", issuer_text(&sc), ksp_store_get_path(store));
		goto done;
	}
	for (size_t i = 0; i < c.n; i++)
		emit_own(&kb, c.v[i].key);
	if (!strbuf_ok(&kb)) {
		r = -ENOMEM;
		goto fail;
	}
	e = gpgme_data_new_from_mem(&kd, kb.buf, kb.len, 0);
	if (!e)
		e = gpgme_op_import(g, kd);
	if (e) {
		r = ksp_errno_from_gpgme(ctx, e, "import the signing key");
		ksp_set_error(ctx, "%s: gpg could not import the store's key %s: %s", ksp_store_get_path(store),
			      c.v[0].fpr, gpgme_strerror(e));
		goto fail;
	}
	{
		gpgme_import_result_t ir = gpgme_op_import_result(g);
		if (ir == NULL || ir->imported + ir->unchanged == 0) {
			ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNUSABLE,
				"signed by %s, but gpg refused the store's key %s (no valid self-signature)",
				issuer_text(&sc), c.v[0].fpr);
			goto done;
		}
	}

	e = gpgme_op_verify(g, sd, dd, plain);
	if (!e && plain) {
		r = keep_plaintext(plain, res);
		if (r < 0)
			goto fail;
	}
	{
		gpgme_verify_result_t vr = e ? NULL : gpgme_op_verify_result(g);
		gpgme_signature_t s = vr ? vr->signatures : NULL;
		gpgme_subkey_t signing = NULL;
		gpgme_error_t st;
		char d1[32], why[160];
		int64_t when;

		if (s == NULL) {
			ksp_set_error(ctx, "%s: gpg found no signature to verify%s%s", source, e ? ": " : "",
				      e ? gpgme_strerror(e) : "");
			r = -EBADMSG;
			goto fail;
		}
		if (s->next) {
			ksp_set_error(ctx, "%s: holds several signatures; ksp verifies files with one signature",
				      source);
			r = -EOPNOTSUPP;
			goto fail;
		}
		st = gpgme_err_code(s->status);
		res->hash_algo = s->hash_algo;
		res->summary = s->summary;
		res->validity = s->validity;
		if (s->timestamp)
			res->created = s->timestamp;
		when = res->created;
		format_datetime(when, d1, sizeof(d1));
		if (st == GPG_ERR_BAD_SIGNATURE) {
			if (c.n == 1 && !pk_matches(&c.v[0].key->primary, sc.fpr, sc.keyid))
				ksp_verify_set_msg(res, KSP_SIGNATURE_BAD,
					"bad signature: the data or the signature was changed after it was signed (issuer %s, a subkey of %s)",
					issuer_text(&sc), c.v[0].fpr);
			else
				ksp_verify_set_msg(res, KSP_SIGNATURE_BAD,
					"bad signature: the data or the signature was changed after it was signed (issuer %s)",
					issuer_text(&sc));
			goto done;
		}
		if (st == GPG_ERR_NO_PUBKEY) {
			ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNUSABLE,
				"signed by %s, but gpg cannot use the store's key %s for it (no valid binding of the signing subkey)",
				issuer_text(&sc), c.v[0].fpr);
			goto done;
		}
		if (st != GPG_ERR_NO_ERROR && st != GPG_ERR_KEY_EXPIRED && st != GPG_ERR_CERT_REVOKED &&
		    st != GPG_ERR_SIG_EXPIRED) {
			res->errsig = st == GPG_ERR_PUBKEY_ALGO ? KSP_ERRSIG_ALGO : (int)st; /* gpg's ERRSIG: 5 MD5, 39 time */
			ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNUSABLE, "signature by %s not verified: %s", issuer_text(&sc),
				gpgme_strerror(s->status));
			goto done;
		}
		/* mathematically good: which key, and was it valid when it signed? */
		for (size_t i = 0; i < c.n && signing == NULL; i++) {
			gpgme_key_release(key);
			key = NULL;
			if (gpgme_get_key(g, c.v[i].fpr, &key, 0) != 0)
				continue;
			for (gpgme_subkey_t sk = key->subkeys; sk; sk = sk->next)
				if (s->fpr && sk->fpr && strcmp(sk->fpr, s->fpr) == 0) {
					signing = sk;
					owner = &c.v[i];
					break;
				}
		}
		if (signing == NULL) {
			ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNUSABLE,
				"signed by %s, which gpg says is not part of the store's key %s", s->fpr ? s->fpr : "?",
				c.v[0].fpr);
			goto done;
		}
		snprintf(res->signer, sizeof(res->signer), "%s", owner->fpr);
		snprintf(res->signing_key, sizeof(res->signing_key), "%s", signing->fpr);
		res->subkey = signing != key->subkeys;
		r = load_uid(store, owner->id, res);
		if (r < 0)
			goto fail;
		if (s->wrong_key_usage || !signing->can_sign) {
			ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNUSABLE, "signed by %s%s of %s, which is not a signing key",
				res->subkey ? "subkey " : "", signing->fpr, owner->fpr);
			goto done;
		}
		if ((key->revoked || key->subkeys->revoked) &&
		    revoked_at(owner->key, owner->key->primary.sigs, owner->key->primary.n_sigs, 0x20, when, why,
			       sizeof(why))) {
			ksp_verify_set_revoked(res, d1, false, NULL, owner->fpr, why);
			goto done;
		}
		if (res->subkey && signing->revoked) {
			const struct ksp_pgp_pubkey *sp = NULL;
			for (size_t i = 0; i < owner->key->n_subkeys; i++)
				if (pk_matches(&owner->key->subkeys[i], signing->fpr, ""))
					sp = &owner->key->subkeys[i];
			if (sp == NULL || revoked_at(owner->key, sp->sigs, sp->n_sigs, 0x28, when, why, sizeof(why))) {
				ksp_verify_set_revoked(res, d1, true, signing->fpr, owner->fpr,
						       sp ? why : "revocation not found in the stored key");
				goto done;
			}
		}
		if (!ksp_verify_key_valid_at(res, when, d1, false, key->subkeys->fpr, key->subkeys->timestamp,
					     key->subkeys->expires) ||
		    (res->subkey &&
		     !ksp_verify_key_valid_at(res, when, d1, true, signing->fpr, signing->timestamp, signing->expires)))
			goto done;
		if (ksp_verify_sig_expired(res, owner->fpr, s->exp_timestamp, st == GPG_ERR_SIG_EXPIRED))
			goto done;
		ksp_verify_set_good(res, owner->fpr, res->subkey, signing->fpr, d1);
	}
done:
	r = 0;
	*ret = res;
	res = NULL;
fail:
	gpgme_key_release(key);
	gpgme_data_release(sd);
	gpgme_data_release(dd);
	gpgme_data_release(plain);
	gpgme_data_release(kd);
	if (g)
		gpgme_release(g);
	ksp_gpghome_free(home);
	strbuf_release(&kb);
	cands_free(&c);
	ksp_verify_result_free(res);
	return r;
}

/* A detached signature: one verifier for every caller (ksp verify,
 * ksp-gpg, git objects), libksp's own; gpg only for what it cannot do. */
static int verify_detached(struct ksp_store *store, const void *sig, size_t siglen, const void *data, size_t datalen,
			   const char *source, struct ksp_verify_result **ret)
{
	struct ksp_verify_doc doc = { .data = datalen ? data : (const uint8_t *)"", .len = datalen, .fd = -1 };
	int r;

	if (sig == NULL || ret == NULL || (data == NULL && datalen))
		return -EINVAL;
	ksp_clear_error(ksp_store_get_ctx(store));
	r = ksp_verify_native(store, sig, siglen, &doc, ret);
	if (r != 1)
		return r;
	return do_verify(store, sig, siglen, data, datalen, true, source, ret);
}

KSP_EXPORT int ksp_verify_detached(struct ksp_store *store, const void *sig, size_t siglen, const void *data,
				   size_t datalen, const char *source, struct ksp_verify_result **ret)
{
	if (store == NULL)
		return -EINVAL;
	return verify_detached(store, sig, siglen, data, datalen, source ? source : "signature", ret);
}

KSP_EXPORT int ksp_verify_detached_native(struct ksp_store *store, const void *sig, size_t siglen, const void *data,
					  size_t datalen, const char *source, struct ksp_verify_result **ret)
{
	/* ksp_verify_detached() tries the native verifier first */
	return ksp_verify_detached(store, sig, siglen, data, datalen, source, ret);
}

KSP_EXPORT int ksp_verify_detached_fd(struct ksp_store *store, const void *sig, size_t siglen, int fd, size_t max,
				      const char *source, struct ksp_verify_result **ret)
{
	struct ksp_verify_doc doc = { .fd = fd };
	uint8_t *data = NULL;
	size_t len = 0;
	int r;

	if (store == NULL || sig == NULL || ret == NULL || fd < 0)
		return -EINVAL;
	ksp_clear_error(ksp_store_get_ctx(store));
	r = ksp_verify_native(store, sig, siglen, &doc, ret);
	if (r != 1)
		return r;
	if (doc.consumed) { /* read and hashed, then an algorithm libksp lacks */
		struct ksp_verify_result *res = calloc(1, sizeof(*res));
		if (res == NULL)
			return -ENOMEM;
		res->errsig = KSP_ERRSIG_ALGO;
		ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNUSABLE,
				   "%s: signed with a public key algorithm ksp's own verifier lacks; give the data as a file",
				   source ? source : "signature");
		*ret = res;
		return 0;
	}
	/* for gpg: the data in memory, at most @max bytes */
	r = read_fd_all(fd, max, &data, &len);
	if (r < 0) {
		ksp_set_error(ksp_store_get_ctx(store), "%s: cannot read the signed data: %s", source ? source : "signature",
			      r == -EFBIG ? "larger than the limit for signatures libksp does not verify itself" : strerror(-r));
		return r;
	}
	r = do_verify(store, sig, siglen, data, len, true, source ? source : "signature", ret);
	free(data);
	return r;
}

KSP_EXPORT int ksp_verify_inline(struct ksp_store *store, const void *msg, size_t len, const char *source,
				 struct ksp_verify_result **ret)
{
	if (store == NULL)
		return -EINVAL;
	return do_verify(store, msg, len, NULL, 0, false, source ? source : "signed message", ret);
}

/* ---- git objects ----------------------------------------------------------- */

static int unsigned_result(const char *what, struct ksp_verify_result **ret)
{
	struct ksp_verify_result *res = calloc(1, sizeof(*res));

	if (res == NULL)
		return -ENOMEM;
	ksp_verify_set_msg(res, KSP_SIGNATURE_UNSIGNED, "not signed: the %s carries no signature (%s)", what,
		strcmp(what, "tag") == 0 ? "made without git tag -s" : "made without git commit -S");
	*ret = res;
	return 0;
}

KSP_EXPORT int ksp_verify_git_object(struct ksp_store *store, const void *object, size_t len, const char *source,
				     struct ksp_verify_result **ret)
{
	struct ksp_git_split gs;
	struct ksp_ctx *ctx;
	int r;

	if (store == NULL || object == NULL || ret == NULL)
		return -EINVAL;
	ctx = ksp_store_get_ctx(store);
	ksp_clear_error(ctx);
	r = ksp_git_split(object, len, &gs);
	if (source == NULL)
		source = r == -EINVAL ? "git object" : gs.tag ? "git tag" : "git commit";
	if (r == -EINVAL)
		ksp_set_error(ctx, "%s: not a git tag or commit object; give the output of 'git cat-file tag TAG' or 'git cat-file commit REV'",
			      source);
	else if (r == 0 && !gs.is_signed)
		r = unsigned_result(gs.tag ? "tag" : "commit", ret);
	else if (r == 0 && gs.format) {
		ksp_set_error(ctx, "%s: signed with %s, not OpenPGP; ksp verifies OpenPGP signatures only", source,
			      gs.format);
		r = -EOPNOTSUPP;
	} else if (r == 0) {
		r = verify_detached(store, gs.sig.buf ? gs.sig.buf : "", gs.sig.len,
				    gs.payload.buf ? gs.payload.buf : "", gs.payload.len, source, ret);
	}
	ksp_git_split_release(&gs);
	return r;
}

/* ---- trust_at = signature: the revocations known now ------------------------- */

/* A key of the verdict revoked now (any reason, any date)?  1 and @why. */
static int key_revoked_now(struct ksp_store *store, const char *fpr, char *why, size_t whylen)
{
	int64_t when = 0;
	int reason = 0, r = ksp_store_key_revoked(store, fpr, &when, &reason);

	if (r == 1) {
		char d[32];
		format_datetime(when, d, sizeof(d));
		snprintf(why, whylen, "key %s is revoked (%s, %s)", fpr, ksp_verify_reason_name(reason), d);
	}
	return r;
}

/* The certification @a -> @b on user ID @uid revoked now (a verified 0x30
 * by @a on that user ID, any date), or the user ID revoked?  1 and @why. */
static int cert_revoked_now(struct ksp_store *store, const char *a, const char *b, const char *uid, size_t uid_len,
			    char *why, size_t whylen)
{
	int r = ksp_store_cert_revoked(store, a, b, uid, uid_len);

	if (r == KSP_STORE_CERT_REVOKED)
		snprintf(why, whylen, "%s revoked its certification of %s", a, b);
	else if (r == KSP_STORE_UID_REVOKED)
		snprintf(why, whylen, "%s revoked the user ID %s certified", b, a);
	return r > 0 ? 1 : r;
}

KSP_EXPORT int ksp_trust_result_revoked_now(struct ksp_store *store, const struct ksp_trust_result *tr,
					    const char *target, char *why, size_t whylen)
{
	size_t np;
	int r;

	if (store == NULL || tr == NULL || target == NULL || why == NULL || whylen == 0)
		return -EINVAL;
	why[0] = '\0';
	r = key_revoked_now(store, target, why, whylen);
	np = ksp_trust_result_get_path_count(tr);
	for (size_t i = 0; r == 0 && i < np; i++) {
		size_t n = ksp_trust_result_get_path_length(tr, i);
		for (size_t h = 0; r == 0 && h < n; h++) {
			const char *a = NULL, *b = NULL, *u = NULL;
			int64_t created = 0;
			size_t len = 0;

			if (ksp_trust_result_get_hop(tr, i, h, &a, &b, &created, &u, &len) < 0 || a == NULL || b == NULL)
				continue;
			r = key_revoked_now(store, a, why, whylen);
			if (r == 0)
				r = key_revoked_now(store, b, why, whylen);
			if (r == 0 && u)
				r = cert_revoked_now(store, a, b, u, len, why, whylen);
		}
	}
	if (r < 0)
		ksp_set_error(ksp_store_get_ctx(store), "%s: cannot read the revocations", ksp_store_get_path(store));
	return r;
}

/* ---- the result ------------------------------------------------------------ */


KSP_EXPORT int ksp_verify_result_get_status(const struct ksp_verify_result *res)
{
	return res ? res->status : -EINVAL;
}

KSP_EXPORT bool ksp_verify_result_is_good(const struct ksp_verify_result *res)
{
	return res && res->status == KSP_SIGNATURE_GOOD;
}

KSP_EXPORT const char *ksp_verify_result_get_message(const struct ksp_verify_result *res)
{
	return res ? res->message : NULL;
}

KSP_EXPORT const char *ksp_verify_result_get_issuer(const struct ksp_verify_result *res)
{
	return res && res->issuer[0] ? res->issuer : NULL;
}

KSP_EXPORT const char *ksp_verify_result_get_signer(const struct ksp_verify_result *res)
{
	return res && res->signer[0] ? res->signer : NULL;
}

KSP_EXPORT const char *ksp_verify_result_get_signing_key(const struct ksp_verify_result *res)
{
	return res && res->signing_key[0] ? res->signing_key : NULL;
}

KSP_EXPORT bool ksp_verify_result_is_subkey(const struct ksp_verify_result *res)
{
	return res && res->subkey;
}

KSP_EXPORT int64_t ksp_verify_result_get_created(const struct ksp_verify_result *res)
{
	return res ? res->created : 0;
}

KSP_EXPORT const char *ksp_verify_result_get_uid(const struct ksp_verify_result *res, size_t *len)
{
	if (res == NULL || res->uid == NULL)
		return NULL;
	if (len)
		*len = res->uid_len;
	return res->uid;
}

KSP_EXPORT const void *ksp_verify_result_get_plaintext(const struct ksp_verify_result *res, size_t *len)
{
	if (res == NULL || res->plaintext == NULL)
		return NULL;
	if (len)
		*len = res->plaintext_len;
	return res->plaintext;
}

KSP_EXPORT int ksp_verify_result_get_hash_algo(const struct ksp_verify_result *res)
{
	return res ? res->hash_algo : 0;
}

KSP_EXPORT int ksp_verify_result_get_errsig_code(const struct ksp_verify_result *res)
{
	if (res == NULL || res->status == KSP_SIGNATURE_GOOD || res->status == KSP_SIGNATURE_BAD ||
	    res->status == KSP_SIGNATURE_UNSIGNED)
		return 0;
	if (res->errsig)
		return res->errsig;
	return res->status == KSP_SIGNATURE_KEY_UNKNOWN ? KSP_ERRSIG_NO_PUBKEY
	       : res->status == KSP_SIGNATURE_KEY_UNUSABLE ? KSP_ERRSIG_ALGO
							    : 0;
}

KSP_EXPORT int ksp_verify_result_apply_policy(struct ksp_verify_result *res, const struct ksp_trust_policy *policy)
{
	int rule;

	if (res == NULL || policy == NULL)
		return -EINVAL;
	if (res->status == KSP_SIGNATURE_BAD || res->status == KSP_SIGNATURE_KEY_UNKNOWN ||
	    res->status == KSP_SIGNATURE_KEY_UNUSABLE || res->status == KSP_SIGNATURE_UNSIGNED)
		return 0;
	rule = ksp_trust_policy_get_sha1_rule(policy);
	if (ksp_hash_rule(res->hash_algo, res->created, false, rule) == KSP_HASH_KEPT)
		return 0;
	ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNUSABLE,
			   "not accepted: signed by %s with %s on a date the policy's SHA-1 rule refuses (sha1 = %s)",
			   res->signer[0] ? res->signer : res->issuer, res->hash_algo == 1 ? "MD5" : res->hash_algo == 2 ? "SHA-1" : "RIPEMD-160",
			   rule == KSP_SHA1_NO ? "no" : "before-2019");
	res->errsig = KSP_ERRSIG_DIGEST;
	return 1;
}

KSP_EXPORT unsigned int ksp_verify_result_get_gpgme_summary(const struct ksp_verify_result *res)
{
	return res ? res->summary : 0;
}

KSP_EXPORT int ksp_verify_result_get_gpgme_validity(const struct ksp_verify_result *res)
{
	return res ? res->validity : 0;
}
