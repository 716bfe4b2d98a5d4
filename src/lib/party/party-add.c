// SPDX-License-Identifier: LGPL-2.1-or-later
/* Adding participants: import through gpgme into a private GnuPG home,
 * check every key, store the accepted ones in one transaction. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gcrypt.h>
#include <gpgme.h>
#include <sqlite3.h>

#include "lib/addr.h"
#include "lib/gpgme-run.h"
#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/openpgp/pgp.h"
#include "lib/party/party-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"

static const char *const check_names[] = {
	"revoked", "expired", "expires-before-party", "no-valid-self-signature",
	"weak-key", "weak-self-signature-hash", "no-email", "duplicate", "secret-key",
	"no-encryption-subkey", "expires-soon", "invalid", "same-address", "no-key", "no-user-id",
};

KSP_EXPORT const char *ksp_check_name(unsigned int check)
{
	for (unsigned i = 0; i < ARRAY_SIZE(check_names); i++)
		if (check == 1u << i)
			return check_names[i];
	return NULL;
}

KSP_EXPORT const char *ksp_key_check_get_fingerprint(const struct ksp_key_check *c)
{
	return c ? c->fpr : NULL;
}

KSP_EXPORT bool ksp_key_check_is_accepted(const struct ksp_key_check *c)
{
	return c ? c->accepted : false;
}

KSP_EXPORT unsigned int ksp_key_check_get_problems(const struct ksp_key_check *c)
{
	return c ? c->problems : 0;
}

KSP_EXPORT const char *ksp_key_check_get_message(const struct ksp_key_check *c)
{
	return c ? c->message : NULL;
}

KSP_EXPORT int ksp_key_check_get_number(const struct ksp_key_check *c)
{
	return c ? c->number : 0;
}

void ksp_algo_name(int algo, int bits, const char *curve, char *buf, size_t size)
{
	switch (algo) {
	case 1: case 2: case 3:
		snprintf(buf, size, "rsa%d", bits);
		break;
	case 17:
		snprintf(buf, size, "dsa%d", bits);
		break;
	case 16: case 20:
		snprintf(buf, size, "elg%d", bits);
		break;
	case 18: case 19: case 22:
		snprintf(buf, size, "%s", curve && *curve ? curve : "ecc");
		break;
	case 25: snprintf(buf, size, "x25519"); break;
	case 26: snprintf(buf, size, "x448"); break;
	case 27: snprintf(buf, size, "ed25519"); break;
	case 28: snprintf(buf, size, "ed448"); break;
	default:
		snprintf(buf, size, "algo%d", algo);
		break;
	}
	/* gpg says "ed25519"/"cv25519"; normalise common aliases */
	if (strcmp(buf, "Ed25519") == 0)
		snprintf(buf, size, "ed25519");
}

/* Walk an OpenPGP packet stream (binary) with the native reader's framing
 * (pgp-packet.c).  Calls fn for each packet with tag, header and body;
 * returns 0, or -EBADMSG on framing errors. */
static int walk_packets(const uint8_t *p, size_t len,
			int (*fn)(void *data, int tag, const uint8_t *hdr, const uint8_t *body, size_t blen), void *data)
{
	size_t off = 0;

	while (off < len) {
		struct ksp_pgp_packet pkt;
		int r = ksp_pgp_packet_next(p, len, &off, &pkt);

		if (r < 0)
			return r;
		r = fn(data, pkt.tag, p + pkt.offset, pkt.body, pkt.body_len);
		free(pkt.joined);
		if (r < 0)
			return r;
	}
	return 0;
}

struct minimal_scan {
	int version;
	int algo;
	bool in_uid;
	int weakest_hash; /* hash algo of a weak self-sig, 0 none */
	int newest_hash;
	int64_t newest_time;
};

static int scan_fn(void *data, int tag, const uint8_t *hdr, const uint8_t *b, size_t n)
{
	struct minimal_scan *s = data;

	if (tag == 6 && s->version == 0 && n >= 6) {
		s->version = b[0];
		s->algo = b[5];
	} else if (tag == 13 || tag == 17) {
		s->in_uid = tag == 13;
	} else if (tag == 14) {
		s->in_uid = false;
	} else if (tag == 2 && s->in_uid && n >= 4 && (b[0] == 4 || b[0] == 5 || b[0] == 6)) {
		/* export-minimal leaves only the newest self-signature per UID */
		int type = b[1], hash = b[3];
		if (type >= 0x10 && type <= 0x13) {
			if (hash == 1 || hash == 2 || hash == 3)
				s->weakest_hash = hash;
			s->newest_hash = hash;
		}
	}
	return 0;
}

/* One key's packets inside a multi-key export, found by fingerprint. */
struct chunk {
	char fpr[65];
	const uint8_t *start;
	size_t len;
};

struct chunks {
	struct chunk *v;
	size_t n;
	const uint8_t *end;
	bool oom;
};

static int chunk_fn(void *data, int tag, const uint8_t *hdr, const uint8_t *b, size_t n)
{
	struct chunks *c = data;
	struct ksp_pgp_pubkey pk;

	if (tag != KSP_PGP_TAG_PUBLIC_KEY)
		return 0;
	if (c->n > 0)
		c->v[c->n - 1].len = (size_t)(hdr - c->v[c->n - 1].start);
	struct chunk *nv = realloc(c->v, (c->n + 1) * sizeof(*nv));
	if (nv == NULL) {
		c->oom = true;
		return -ENOMEM;
	}
	c->v = nv;
	struct chunk *ck = &c->v[c->n++];
	ck->start = hdr;
	ck->len = 0;
	ck->fpr[0] = '\0';
	/* the fingerprint as the reader computes it (v4 SHA-1, v5/v6 SHA-256) */
	if (ksp_pgp_parse_pubkey(b, n, false, &pk) == 0 && ksp_pgp_fingerprint(&pk) == 0)
		ksp_pgp_fpr_hex(&pk, ck->fpr);
	return 0;
}

static int split_keys(const uint8_t *p, size_t len, struct chunks *c)
{
	int r;

	memset(c, 0, sizeof(*c));
	r = walk_packets(p, len, chunk_fn, c);
	if (c->n > 0)
		c->v[c->n - 1].len = (size_t)(p + len - c->v[c->n - 1].start);
	return r;
}

static const struct chunk *find_chunk(const struct chunks *c, const char *fpr)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].fpr, fpr) == 0)
			return &c->v[i];
	return NULL;
}

struct add_state {
	struct ksp_party *party;
	struct ksp_ctx *ctx;
	unsigned int flags;
	void (*cb)(void *, const struct ksp_key_check *);
	void *cb_data;
	const char *source;
	int accepted;
};

static const char *hash_name(int h)
{
	switch (h) {
	case 1: return "MD5";
	case 2: return "SHA-1";
	case 3: return "RIPEMD-160";
	default: return "weak";
	}
}

static int next_number(sqlite3 *db, int *ret)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "SELECT coalesce(max(ord), 0) + 1 FROM participants", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*ret = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

static int participant_number(sqlite3 *db, const char *fpr)
{
	sqlite3_stmt *st;
	int n = 0;
	if (sqlite3_prepare_v2(db, "SELECT p.ord FROM participants p JOIN keys k ON k.id = p.key_id WHERE k.fpr = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, fpr, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* The list number of another participant with a user ID of address
 * @email, 0 if none. */
static int address_holder(sqlite3 *db, const char *email, const char *fpr)
{
	sqlite3_stmt *st;
	int n = 0;
	if (sqlite3_prepare_v2(db, "SELECT p.ord FROM participants p JOIN keys k ON k.id = p.key_id "
				   "JOIN uids u ON u.key_id = p.key_id "
				   "WHERE lower(u.email) = lower(?) AND u.revoked = 0 AND k.fpr != ? ORDER BY p.ord LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, email, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, fpr, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* An address fit for a one-line message: printable ASCII, no spaces. */
static bool plain_address(const char *e)
{
	size_t n = 0;
	for (; *e; e++, n++)
		if (*e <= ' ' || *e >= 0x7f)
			return false;
	return n > 0 && n < 200;
}

/* Store the key (its packets as gpg exported them) and make it a participant. */
static int store_key(struct add_state *a, gpgme_key_t key, const struct minimal_scan *scan,
		     const void *keydata, size_t keylen, const char *warnings, int *ret_number)
{
	sqlite3 *db = ksp_store_db(a->party->store);
	sqlite3_stmt *st = NULL;
	int64_t key_id;
	int rc, r, idx = 0, number = 0;

	(void)scan;
	/* keys, user IDs and certifications exactly as 'ksp wot load' stores
	 * them (the native reader, every signature verified): the gpgme path
	 * and the bulk path give the same store for the same keyring */
	r = ksp_wot_load(a->party->store, keydata, keylen, a->source, KSP_WOT_LOAD_STRICT, NULL, NULL, NULL);
	if (r < 0)
		return r;
	key_id = ksp_store_key_id(a->party->store, key->fpr);
	if (key_id <= 0) {
		ksp_set_error(a->ctx, "%s: key %s: the native reader did not find it in gpg's export", a->source, key->fpr);
		return key_id < 0 ? (int)key_id : -EIO;
	}
	/* the address ksp writes to, per user ID (lib/addr.c: the one parser
	 * that party sign, status and remind agree with) */
	rc = sqlite3_prepare_v2(db, "UPDATE uids SET email = ?3 WHERE key_id = ?1 AND uid = ?2 AND is_attr = 0", -1, &st,
				NULL);
	if (rc != SQLITE_OK)
		goto sqlfail;
	for (gpgme_user_id_t u = key->uids; u; u = u->next, idx++) {
		char *addr = NULL;
		if (u->uid == NULL)
			continue;
		if (ksp_uid_writable_address(u->uid, strlen(u->uid), &addr) < 0) {
			sqlite3_finalize(st);
			return -ENOMEM;
		}
		if (addr == NULL)
			continue;
		sqlite3_bind_int64(st, 1, key_id);
		sqlite3_bind_blob(st, 2, u->uid, (int)strlen(u->uid), SQLITE_STATIC);
		sqlite3_bind_text(st, 3, addr, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		free(addr);
		if (rc != SQLITE_DONE)
			goto sqlfail;
	}
	sqlite3_finalize(st);
	st = NULL;
	rc = next_number(db, &number);
	if (rc != SQLITE_OK)
		goto sqlfail;
	rc = sqlite3_prepare_v2(db, "INSERT INTO participants(key_id, ord, added, warnings) VALUES (?, ?, ?, ?)",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		goto sqlfail;
	sqlite3_bind_int64(st, 1, key_id);
	sqlite3_bind_int(st, 2, number);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL));
	if (warnings && *warnings)
		sqlite3_bind_text(st, 4, warnings, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto sqlfail;
	*ret_number = number;
	return 0;
sqlfail:
	if (st)
		sqlite3_finalize(st);
	return ksp_errno_from_sqlite(a->ctx, db, rc, "store key");
}

static void add_reason(struct strbuf *sb, const char *text)
{
	if (sb->len)
		strbuf_addstr(sb, "; ");
	strbuf_addstr(sb, text);
}

/* What the checks of one key found: refusals and warnings with reasons. */
struct verdict {
	unsigned int refuse;
	unsigned int warns;
	struct strbuf why;
	struct strbuf warn;
};

/* A problem that refuses the key unless @allowed, then only warns. */
static void problem(struct verdict *v, unsigned int check, bool allowed, const char *fmt, ...)
	_printf_format_(4, 5);
static void problem(struct verdict *v, unsigned int check, bool allowed, const char *fmt, ...)
{
	struct strbuf text;
	va_list ap;

	strbuf_init(&text);
	va_start(ap, fmt);
	strbuf_vaddf(&text, fmt, ap);
	va_end(ap);
	if (allowed) {
		v->warns |= check;
		add_reason(&v->warn, strbuf_str(&text));
	} else {
		v->refuse |= check;
		add_reason(&v->why, strbuf_str(&text));
	}
	strbuf_release(&text);
}

/* Check one imported key and store it if acceptable. */
/* (Long: each of the party's key checks in turn, with its message, then the store.) */
static int check_key(struct add_state *a, gpgme_key_t key, const struct chunks *mins,
		     const struct chunks *fulls)
{
	struct ksp_key_check chk = { 0 };
	struct minimal_scan scan = { 0 };
	struct verdict v = { 0 };
	struct strbuf names;
	const struct chunk *mc, *fc;
	const char *fpr = key->fpr;
	int64_t now = time(NULL), pdate = a->party->date_t;
	bool has_email = false, has_enc = false, dead;
	char d[16], *unwritable = NULL;
	int r = 0, existing;

	strbuf_init(&v.why);
	strbuf_init(&v.warn);
	strbuf_init(&names);
	snprintf(chk.fpr, sizeof(chk.fpr), "%s", fpr);
	/* minimal export: the newest self-signature of each UID only */
	mc = find_chunk(mins, fpr);
	if (mc)
		walk_packets(mc->start, mc->len, scan_fn, &scan);
	fc = find_chunk(fulls, fpr);
	if (fc == NULL) {
		r = -EIO;
		ksp_set_error(a->ctx, "%s: cannot export key %s from the temporary GnuPG home", a->source, fpr);
		goto out;
	}

	gpgme_subkey_t sk = key->subkeys;
	char algo[32];
	ksp_algo_name(scan.algo ? scan.algo : (int)sk->pubkey_algo, (int)sk->length, sk->curve, algo, sizeof(algo));
	for (gpgme_user_id_t u = key->uids; u; u = u->next) {
		char *addr = NULL;
		if (u->revoked || u->invalid || u->uid == NULL)
			continue;
		if (ksp_uid_address(u->uid, strlen(u->uid), &addr) < 0) {
			r = -ENOMEM;
			goto out;
		}
		if (addr && ksp_address_writable(addr))
			has_email = true;
		else if (addr && !unwritable)
			unwritable = addr, addr = NULL;
		free(addr);
	}
	long enc_expired = 0; /* the latest expiry of an encryption subkey that merely expired */
	for (gpgme_subkey_t s = key->subkeys; s; s = s->next) {
		if (s->can_encrypt && !s->revoked && !s->expired && !s->disabled && !s->invalid)
			has_enc = true;
		else if (s != key->subkeys && s->can_encrypt && s->expired && !s->revoked && s->expires > enc_expired)
			enc_expired = s->expires;
	}

	if (key->revoked || sk->revoked)
		problem(&v, KSP_CHECK_REVOKED, false, "the key is revoked");
	if (key->expired || (sk->expires && sk->expires <= now)) {
		format_date(sk->expires, d, sizeof(d));
		problem(&v, KSP_CHECK_EXPIRED, false, "expired on %s", d);
	} else if (sk->expires && pdate && sk->expires < pdate + 86400) {
		format_date(sk->expires, d, sizeof(d));
		problem(&v, KSP_CHECK_EXPIRES_BEFORE_PARTY, a->flags & KSP_ADD_ALLOW_EXPIRING,
			"expires on %s, before the party", d);
	} else if (sk->expires && pdate && sk->expires < pdate + 30 * 86400) {
		problem(&v, KSP_CHECK_EXPIRES_SOON, true, "expires within 30 days after the party");
	}
	dead = v.refuse & (KSP_CHECK_REVOKED | KSP_CHECK_EXPIRED);
	if (key->invalid && !dead)
		problem(&v, KSP_CHECK_INVALID, false, "gpg marks the key invalid");
	switch (scan.algo) {
	case 1: case 2: case 3: case 16: case 17: case 20: /* RSA, ElGamal, DSA */
		if (sk->length < 2048)
			problem(&v, KSP_CHECK_WEAK_KEY, a->flags & KSP_ADD_ALLOW_WEAK,
				"weak key (%s; at least 2048 bits needed)", algo);
		break;
	default:
		break;
	}
	if (scan.weakest_hash)
		problem(&v, KSP_CHECK_WEAK_HASH, a->flags & KSP_ADD_ALLOW_WEAK,
			"self-signature uses %s", hash_name(scan.weakest_hash));
	if (!has_email && !dead && unwritable) {
		char *e = NULL;
		ksp_escape(unwritable, strlen(unwritable), KSP_ESCAPE_TERMINAL, &e);
		problem(&v, KSP_CHECK_NO_EMAIL, a->flags & KSP_ADD_ALLOW_NO_EMAIL,
			"no address ksp can write to (%s is not ASCII; signatures are sent by e-mail)", e ? e : "?");
		free(e);
	} else if (!has_email && !dead) {
		problem(&v, KSP_CHECK_NO_EMAIL, a->flags & KSP_ADD_ALLOW_NO_EMAIL,
			a->flags & KSP_ADD_ALLOW_NO_EMAIL ? "no user ID with an e-mail address"
			: "no user ID with an e-mail address (signatures are sent by e-mail)");
	}
	if (!has_enc && !dead && enc_expired) {
		format_date(enc_expired, d, sizeof(d));
		problem(&v, KSP_CHECK_NO_ENCRYPTION, true,
			"no usable encryption subkey: the subkey expired on %s (the owner can extend it: gpg --quick-set-expire FPR 1y '*', and send the key again); until then signatures cannot be sent to it",
			d);
	} else if (!has_enc && !dead) {
		problem(&v, KSP_CHECK_NO_ENCRYPTION, true,
			"no usable encryption subkey: signatures cannot be sent to it");
	}
	existing = participant_number(ksp_store_db(a->party->store), fpr);
	if (existing > 0)
		problem(&v, KSP_CHECK_DUPLICATE, false, "already on the list as #%d", existing);
	else if (!dead)
		/* a second key of someone on the list: a new key, or an old one sent by mistake? */
		for (gpgme_user_id_t u = key->uids; u && !(v.warns & KSP_CHECK_SAME_ADDRESS); u = u->next) {
			int other = !u->revoked && u->email && plain_address(u->email)
					    ? address_holder(ksp_store_db(a->party->store), u->email, fpr)
					    : 0;
			if (other > 0)
				problem(&v, KSP_CHECK_SAME_ADDRESS, true,
					"%s is already on the list with the key of #%d: a second key of the same person? (remove one with 'ksp party remove')",
					u->email, other);
		}

	chk.problems = v.refuse | v.warns;
	if (v.refuse) {
		snprintf(chk.message, sizeof(chk.message), "refused: %s", strbuf_str(&v.why));
	} else {
		/* warnings column: check names */
		for (unsigned i = 0; i < ARRAY_SIZE(check_names); i++) {
			if (v.warns & (1u << i)) {
				if (names.len)
					strbuf_addch(&names, ',');
				strbuf_addstr(&names, check_names[i]);
			}
		}
		if (!(a->flags & KSP_ADD_DRY_RUN)) {
			r = store_key(a, key, &scan, fc->start, fc->len, strbuf_str(&names), &chk.number);
			if (r < 0) {
				if (!ksp_get_error(a->ctx))
					ksp_set_error(a->ctx, "%s: cannot store key %s: %s; nothing was added",
						      ksp_store_get_path(a->party->store), fpr, strerror(-r));
				goto out;
			}
		}
		chk.accepted = true;
		a->accepted++;
		if (v.warns)
			snprintf(chk.message, sizeof(chk.message), "accepted with warnings: %s", strbuf_str(&v.warn));
		else
			snprintf(chk.message, sizeof(chk.message), "accepted");
	}
	if (a->cb)
		a->cb(a->cb_data, &chk);
out:
	free(unwritable);
	strbuf_release(&v.why);
	strbuf_release(&v.warn);
	strbuf_release(&names);
	return r;
}

static int new_gpgme(struct ksp_ctx *ctx, const char *home, gpgme_ctx_t *ret)
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
	gpgme_set_pinentry_mode(g, GPGME_PINENTRY_MODE_LOOPBACK);
	*ret = g;
	return 0;
}

/* Before gpg sees the input: binary input must frame as OpenPGP packets
 * from the first byte to the last and start with a key packet; armored
 * input must hold a key block.  Junk (random bytes, text) is refused here
 * with the offset where it goes wrong, instead of being handed to gpg. */
struct frame_check {
	size_t packets;
	int first_tag;
	const uint8_t *base;
	size_t bad_tag_off;
	int bad_tag;
	size_t good_end; /* offset after the last packet that framed */
};

static int frame_fn(void *data, int tag, const uint8_t *hdr, const uint8_t *b, size_t n)
{
	struct frame_check *f = data;

	if (f->packets++ == 0)
		f->first_tag = tag;
	f->good_end = (size_t)(b + n - f->base);
	switch (tag) {
	case 2: case 5: case 6: case 7: case 12: case 13: case 14: case 17:
		return 0;
	default:
		f->bad_tag = tag;
		f->bad_tag_off = (size_t)(hdr - f->base);
		return -EBADMSG;
	}
}

static int precheck(struct ksp_ctx *ctx, const uint8_t *p, size_t len, const char *source, char mail_fpr[65])
{
	struct frame_check f = { .first_tag = -1, .base = p };
	int r;

	if (memmem(p, len, "-----BEGIN PGP PUBLIC KEY BLOCK-----", 36) ||
	    memmem(p, len, "-----BEGIN PGP PRIVATE KEY BLOCK-----", 37))
		return 0;
	r = walk_packets(p, len, frame_fn, &f);
	if (r == 0 && (f.first_tag == 6 || f.first_tag == 5))
		return 0;
	if (f.packets == 0 && ksp_party_mail_without_key(ctx, p, len, source, mail_fpr))
		return -ENOKEY; /* an RSVP mail with a fingerprint, or nothing, and no key: said who sent it */
	if (f.bad_tag)
		ksp_set_error(ctx, "%s: not an OpenPGP key file (packet type %d at offset %zu); give a file from 'gpg --export FPR'",
			      source, f.bad_tag, f.bad_tag_off);
	else if (r == 0)
		ksp_set_error(ctx, "%s: not an OpenPGP key file (it does not start with a key packet); give a file from 'gpg --export FPR'",
			      source);
	else if (f.packets == 0 && (len == 0 || (p[0] & 0x80) == 0))
		/* not even a packet header: text, or another kind of file */
		ksp_set_error(ctx, "%s: holds no OpenPGP data (neither an armored key block nor OpenPGP packets); give a file from 'gpg --export --armor FPR'",
			      source);
	else
		ksp_set_error(ctx, "%s: truncated or damaged at offset %zu; ask the owner for a fresh export",
			      source, f.good_end);
	return -EBADMSG;
}

/* Limits per key of party add (docs/ksp-party.1): far above real keys (the
 * most in the Debian keyring: some dozens of user IDs, a few thousand
 * signatures), far below what floods a sheet or a store. */
#define KSP_PARTY_MAX_UIDS 256
#define KSP_PARTY_MAX_SIGS 20000

/* What gpg is never given: secret key material (a secret key or subkey
 * packet, even inside a "public key" file), and keys over the limits of
 * user IDs and signatures (a key made to flood the list, the sheet and
 * every later check).  The packets are read natively, armor decoded. */
struct limit_scan {
	int keys;
	int uids, sigs;  /* of the current key */
	bool secret;
	int over_key;    /* number of the first key over a limit, 0 none */
	int over_uids, over_sigs;
};

static int limit_fn(void *data, int tag, const uint8_t *hdr, const uint8_t *b, size_t n)
{
	struct limit_scan *ls = data;

	(void)hdr;
	(void)b;
	(void)n;
	switch (tag) {
	case KSP_PGP_TAG_PUBLIC_KEY:
		ls->keys++;
		ls->uids = ls->sigs = 0;
		break;
	case 5: case 7: /* secret key, secret subkey */
		ls->secret = true;
		break;
	case 13: case 17:
		ls->uids++;
		break;
	case 2:
		ls->sigs++;
		break;
	}
	if (!ls->over_key && (ls->uids > KSP_PARTY_MAX_UIDS || ls->sigs > KSP_PARTY_MAX_SIGS)) {
		ls->over_key = ls->keys ? ls->keys : 1;
		ls->over_uids = ls->uids;
		ls->over_sigs = ls->sigs;
	}
	return 0;
}

static int check_limits(struct ksp_ctx *ctx, const uint8_t *p, size_t len, const char *source)
{
	struct limit_scan ls = { 0 };

	if (ksp_armor_detect(p, len)) {
		size_t pos = 0;
		while (pos < len) {
			uint8_t *blk = NULL;
			size_t blen = 0, used = 0;
			int r = ksp_armor_decode(p + pos, len - pos, &blk, &blen, &used);
			if (r == -ENOMEM)
				return r;
			if (r == -ENODATA)
				break;
			if (r < 0) {
				/* a damaged block: past its BEGIN line (gpg judges it) */
				const uint8_t *b = memmem(p + pos, len - pos, "-----BEGIN PGP ", 15);
				if (b == NULL)
					break;
				pos = (size_t)(b - p) + 1;
				continue;
			}
			walk_packets(blk, blen, limit_fn, &ls);
			free(blk);
			pos += used;
		}
	} else {
		walk_packets(p, len, limit_fn, &ls);
	}
	if (ls.secret) {
		ksp_set_error(ctx, "%s: holds SECRET key material; refused and not stored. Export only the public key: gpg --export --armor FPR",
			      source);
		return -EKEYREJECTED;
	}
	if (ls.over_key) {
		if (ls.over_uids > KSP_PARTY_MAX_UIDS)
			ksp_set_error(ctx, "%s: key %d has more than %d user IDs; refused (ask the owner to export only the user IDs to be certified)",
				      source, ls.over_key, KSP_PARTY_MAX_UIDS);
		else
			ksp_set_error(ctx, "%s: key %d has more than %d signatures; refused (ask the owner for 'gpg --export-options export-minimal --export FPR')",
				      source, ls.over_key, KSP_PARTY_MAX_SIGS);
		return -E2BIG;
	}
	return 0;
}

static int export_mem(struct ksp_ctx *ctx, gpgme_ctx_t g, const char **patterns,
		      gpgme_export_mode_t mode, char **ret, size_t *ret_len)
{
	gpgme_data_t out = NULL;
	gpgme_error_t e;

	e = gpgme_data_new(&out);
	if (e)
		return ksp_errno_from_gpgme(ctx, e, "export");
	e = gpgme_op_export_ext(g, patterns, mode, out);
	if (e) {
		gpgme_data_release(out);
		return ksp_errno_from_gpgme(ctx, e, "export");
	}
	*ret = gpgme_data_release_and_get_mem(out, ret_len);
	return *ret ? 0 : -ENOMEM;
}

/* The keys of @fprs from the party's keyserver, checked as any other;
 * each one not received reported as refused.  The number accepted. */
static int add_fetched(struct ksp_party *party, const char (*fprs)[65], size_t n, unsigned int flags,
		       void (*cb)(void *, const struct ksp_key_check *), void *cb_data)
{
	struct ksp_party_fetch f = { .party = party, .url = party->keyserver, .cb = cb, .cb_data = cb_data };
	char *data = NULL, *src = NULL;
	size_t len = 0;
	int r;

	r = ksp_party_keyserver_fetch(&f, fprs, n, &data, &len);
	if (r > 0) {
		if (asprintf(&src, "keyserver %s", party->keyserver) < 0)
			src = NULL;
		r = src ? ksp_party_add_data(party, data, len, src, flags, cb, cb_data) : -ENOMEM;
	}
	free(src);
	gpgme_free(data);
	return r;
}

/* An RSVP mail that holds only a fingerprint (or nothing): its key from
 * the keyserver when there is one, else reported like a refused key (the
 * error already names the sender), and the other files still added. */
static int fingerprint_only(struct ksp_party *party, const char *fpr, const char *source, unsigned int flags,
			    void (*cb)(void *, const struct ksp_key_check *), void *cb_data)
{
	struct ksp_key_check chk = { .problems = KSP_CHECK_NO_KEY };

	if (fpr[0] && party->keyserver) {
		char one[1][65];
		snprintf(one[0], sizeof(one[0]), "%s", fpr);
		ksp_clear_error(party->ctx);
		return add_fetched(party, (const char (*)[65])one, 1, flags, cb, cb_data);
	}
	snprintf(chk.fpr, sizeof(chk.fpr), "%s", fpr);
	snprintf(chk.message, sizeof(chk.message), "refused: %s", ksp_get_error(party->ctx) ? ksp_get_error(party->ctx) : source);
	ksp_clear_error(party->ctx);
	if (cb)
		cb(cb_data, &chk);
	return 0;
}

/* (Long: precheck, a private GnuPG home, one import, one listing and two exports, then each key checked; one exit that frees all.) */
int ksp_party_add_data(struct ksp_party *party, const void *data, size_t len, const char *source,
		    unsigned int flags, void (*cb)(void *, const struct ksp_key_check *), void *cb_data)
{
	struct add_state a = { .party = party, .ctx = party->ctx, .flags = flags, .cb = cb,
			       .cb_data = cb_data, .source = source };
	struct ksp_gpghome *home = NULL;
	gpgme_ctx_t g = NULL;
	gpgme_data_t in = NULL;
	gpgme_import_result_t res;
	gpgme_error_t e;
	char (*fprs)[65] = NULL;
	const char **patterns = NULL;
	gpgme_key_t *keys = NULL;
	size_t n_keys = 0, minlen = 0, fulllen = 0;
	char *minmem = NULL, *fullmem = NULL;
	struct chunks mins = { 0 }, fulls = { 0 };
	int r;

	if (len == 0) {
		ksp_set_error(party->ctx, "%s: empty file; give a file holding OpenPGP public keys", source);
		return -EBADMSG;
	}
	char mail_fpr[65] = "";
	r = precheck(party->ctx, data, len, source, mail_fpr);
	if (r == -ENOKEY)
		return fingerprint_only(party, mail_fpr, source, flags, cb, cb_data);
	if (r == 0)
		r = check_limits(party->ctx, data, len, source);
	if (r < 0)
		return r;
	r = ksp_gpghome_new(party->ctx, &home);
	if (r < 0)
		return r;
	r = new_gpgme(party->ctx, ksp_gpghome_path(home), &g);
	if (r < 0)
		goto out;
	e = gpgme_data_new_from_mem(&in, data, len, 0);
	if (e) {
		r = ksp_errno_from_gpgme(party->ctx, e, "data");
		goto out;
	}
	e = ksp_gpgme_import(g, in);
	res = e ? NULL : gpgme_op_import_result(g);
	if (res == NULL) {
		r = ksp_errno_from_gpgme(party->ctx, e ? e : GPG_ERR_GENERAL, "import");
		if (gpgme_err_code(e) == GPG_ERR_EPIPE)
			ksp_set_error(party->ctx, "%s: gpg could not read this file: it stopped reading at an error, with input left unread; give a file holding OpenPGP public keys",
				      source);
		else
			ksp_set_error(party->ctx, "%s: gpg could not read this file: %s; give a file holding OpenPGP public keys",
				      source, gpgme_strerror(e));
		if (r == -ENOMEM)
			goto out;
		r = -EBADMSG;
		goto out;
	}
	if (res->secret_read > 0) {
		ksp_set_error(party->ctx, "%s: holds SECRET key material; refused and not stored. Export only the public key: gpg --export --armor FPR",
			      source);
		r = -EKEYREJECTED;
		goto out;
	}
	if (res->considered == 0) {
		ksp_set_error(party->ctx, "%s: no OpenPGP key found (truncated, damaged, or not a key file); give a file from 'gpg --export --armor FPR'",
			      source);
		r = -EBADMSG;
		goto out;
	}
	if (res->imported + res->unchanged == 0) {
		ksp_set_error(party->ctx, "%s: gpg found %d key(s) but imported none (no valid self-signature, or damaged); ask the owner for a fresh export",
			      source, res->considered);
		if (cb) {
			struct ksp_key_check chk = { .problems = KSP_CHECK_NO_SELFSIG };
			for (gpgme_import_status_t s = res->imports; s; s = s->next) {
				snprintf(chk.fpr, sizeof(chk.fpr), "%s", s->fpr ? s->fpr : "?");
				snprintf(chk.message, sizeof(chk.message), "refused: no valid self-signature");
				cb(cb_data, &chk);
			}
		}
		r = -EBADMSG;
		goto out;
	}
	/* one status per key; the same key may appear twice in one file.
	 * Copy the fingerprints: the next gpgme operation frees the result. */
	size_t n_fprs = 0;
	for (gpgme_import_status_t s = res->imports; s; s = s->next)
		n_fprs++;
	fprs = calloc(n_fprs ? n_fprs : 1, sizeof(*fprs));
	if (fprs == NULL) {
		r = -ENOMEM;
		goto out;
	}
	n_fprs = 0;
	for (gpgme_import_status_t s = res->imports; s; s = s->next) {
		bool seen = false;
		if (s->fpr == NULL || s->result != 0 || strlen(s->fpr) > 64)
			continue;
		for (size_t i = 0; i < n_fprs; i++)
			if (strcmp(fprs[i], s->fpr) == 0)
				seen = true;
		if (!seen)
			snprintf(fprs[n_fprs++], sizeof(fprs[0]), "%s", s->fpr);
	}
	/* one key listing and two exports for the whole input, not per key */
	patterns = calloc(n_fprs + 1, sizeof(*patterns));
	keys = calloc(n_fprs + 1, sizeof(*keys));
	if (patterns == NULL || keys == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n_fprs; i++)
		patterns[i] = fprs[i];
	gpgme_set_armor(g, 0);
	e = gpgme_op_keylist_ext_start(g, patterns, 0, 0);
	while (!e && n_keys < n_fprs) {
		e = gpgme_op_keylist_next(g, &keys[n_keys]);
		if (!e)
			n_keys++;
	}
	gpgme_op_keylist_end(g);
	r = export_mem(a.ctx, g, patterns, GPGME_EXPORT_MODE_MINIMAL, &minmem, &minlen);
	if (r == 0)
		r = export_mem(a.ctx, g, patterns, 0, &fullmem, &fulllen);
	if (r < 0) {
		ksp_set_error(party->ctx, "%s: cannot export the keys from the temporary GnuPG home", source);
		goto out;
	}
	split_keys((const uint8_t *)minmem, minlen, &mins);
	split_keys((const uint8_t *)fullmem, fulllen, &fulls);
	if (mins.oom || fulls.oom) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n_keys; i++) {
		r = check_key(&a, keys[i], &mins, &fulls);
		if (r < 0)
			goto out;
	}
	r = a.accepted;
out:
	for (size_t i = 0; i < n_keys; i++)
		gpgme_key_unref(keys[i]);
	free(keys);
	free(patterns);
	free(mins.v);
	free(fulls.v);
	gpgme_free(minmem);
	gpgme_free(fullmem);
	free(fprs);
	gpgme_data_release(in);
	if (g)
		gpgme_release(g);
	ksp_gpghome_free(home);
	return r;
}

KSP_EXPORT int ksp_party_add(struct ksp_party *party, const void *data, size_t len, const char *source,
			     unsigned int flags,
			     void (*cb)(void *cb_data, const struct ksp_key_check *check), void *cb_data)
{
	int r, n;

	if (party == NULL || (data == NULL && len > 0))
		return -EINVAL;
	ksp_clear_error(party->ctx);
	if (source == NULL)
		source = "<input>";
	r = ksp_party_require_open(party);
	if (r < 0)
		return r;
	r = ksp_store_begin(party->store);
	if (r < 0)
		return r;
	n = ksp_party_add_data(party, data, len, source, flags, cb, cb_data);
	if (n < 0) {
		ksp_store_rollback(party->store);
		return n;
	}
	if (n > 0) {
		r = ksp_party_event(party, "add", source);
		if (r < 0) {
			ksp_store_rollback(party->store);
			return r;
		}
	}
	r = ksp_store_commit(party->store);
	return r < 0 ? r : n;
}

KSP_EXPORT int ksp_party_add_gnupg(struct ksp_party *party, const char *const *fprs, size_t n_fprs,
				   unsigned int flags,
				   void (*cb)(void *cb_data, const struct ksp_key_check *check),
				   void *cb_data)
{
	gpgme_ctx_t g = NULL;
	gpgme_data_t out = NULL;
	const char **pattern = NULL;
	char *mem = NULL;
	size_t len = 0;
	char (*norm)[65] = NULL;
	int r;

	if (party == NULL || fprs == NULL || n_fprs == 0)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	pattern = calloc(n_fprs + 1, sizeof(*pattern));
	norm = calloc(n_fprs, sizeof(*norm));
	if (pattern == NULL || norm == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n_fprs; i++) {
		/* full fingerprints only: never a short key ID */
		if (fpr_normalize(fprs[i], norm[i]) < 0) {
			ksp_set_error(party->ctx, "'%s' is not a full fingerprint (40 or 64 hex digits); key IDs are not accepted", fprs[i]);
			r = -EINVAL;
			goto out;
		}
		pattern[i] = norm[i];
	}
	/* read-only use of the user's home: export only */
	r = new_gpgme(party->ctx, ksp_get_gnupg_home(party->ctx), &g);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < n_fprs; i++) {
		gpgme_key_t k = NULL;
		if (gpgme_get_key(g, norm[i], &k, 0) != 0 || k == NULL) {
			ksp_set_error(party->ctx, "%s: no key %s in your GnuPG home; import it there first or give a key file",
				      ksp_get_gnupg_home(party->ctx) ? ksp_get_gnupg_home(party->ctx) : "~/.gnupg", norm[i]);
			r = -ENOKEY;
			goto out;
		}
		gpgme_key_unref(k);
	}
	if (gpgme_data_new(&out) != 0) {
		r = -ENOMEM;
		goto out;
	}
	if (gpgme_op_export_ext(g, pattern, 0, out) != 0) {
		ksp_set_error(party->ctx, "cannot export the keys from your GnuPG home");
		r = -EIO;
		goto out;
	}
	mem = gpgme_data_release_and_get_mem(out, &len);
	out = NULL;
	r = ksp_party_add(party, mem, len, "GnuPG home", flags, cb, cb_data);
out:
	if (out)
		gpgme_data_release(out);
	gpgme_free(mem);
	if (g)
		gpgme_release(g);
	free(pattern);
	free(norm);
	return r;
}

KSP_EXPORT int ksp_party_set_keyserver(struct ksp_party *party, const char *url)
{
	char *c = url ? strdup(url) : NULL;

	if (party == NULL || (url && c == NULL)) {
		free(c);
		return party ? -ENOMEM : -EINVAL;
	}
	free(party->keyserver);
	party->keyserver = c;
	return 0;
}

KSP_EXPORT int ksp_party_add_fingerprints(struct ksp_party *party, const char *const *fprs, size_t n_fprs,
					  unsigned int flags,
					  void (*cb)(void *cb_data, const struct ksp_key_check *check), void *cb_data)
{
	char (*norm)[65] = NULL;
	int r, n;

	if (party == NULL || fprs == NULL || n_fprs == 0)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	if (party->keyserver == NULL) {
		ksp_set_error(party->ctx, "no keyserver to fetch the keys from: give --keyserver URL (hkp://HOST or hkps://HOST)");
		return -EINVAL;
	}
	norm = calloc(n_fprs, sizeof(*norm));
	if (norm == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n_fprs; i++) {
		/* full fingerprints only: a key ID could fetch another's key */
		if (fpr_normalize(fprs[i], norm[i]) < 0) {
			ksp_set_error(party->ctx, "'%s' is not a full fingerprint (40 or 64 hex digits); key IDs are not accepted", fprs[i]);
			free(norm);
			return -EINVAL;
		}
	}
	r = ksp_party_require_open(party);
	if (r == 0)
		r = ksp_store_begin(party->store);
	if (r < 0) {
		free(norm);
		return r;
	}
	n = add_fetched(party, (const char (*)[65])norm, n_fprs, flags, cb, cb_data);
	free(norm);
	if (n > 0 && !(flags & KSP_ADD_DRY_RUN))
		r = ksp_party_event(party, "add", party->keyserver);
	if (n < 0 || r < 0) {
		ksp_store_rollback(party->store);
		return n < 0 ? n : r;
	}
	r = ksp_store_commit(party->store);
	return r < 0 ? r : n;
}
