// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ksp party sign: certify each user ID of the keys checked at the party on
 * its own, and leave each certification encrypted to its key in an outbox,
 * as caff and pius do.
 *
 * The user's keyring is never written to.  The work happens in a private
 * temporary GnuPG home holding the signer's public key (exported from the
 * user's home) and a copy of each target key as the store has it, stripped
 * to its self-signatures (so that gpg signs again with --force, and the
 * only third-party certification on it is the new one).  The secret key
 * stays where it is: the temporary home's private-keys-v1.d is a symbolic
 * link to the user's, where GnuPG 2.2's agent (the temporary home's own,
 * stopped by ksp_gpghome_free()) finds it; a passphrase is asked by that
 * agent's pinentry.
 *
 * Which keys a run certifies is sign-targets.c (it only reads the store);
 * the options of a run are sign-opts.c; the mail's text is the template
 * engine's (mail-template.c).  Why the rest is one file (over 1,000
 * lines): the private home, the per-user-ID signing, the encryption, the
 * messages and the staged outbox are one all-or-nothing transaction over
 * one struct signer (the gpgme context of the private home, the staged
 * files and their cleanup slots, the store's open transaction); split
 * along signing vs. delivery, that state and its undo on every error path
 * would cross files, and each half would call the other.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <gcrypt.h>
#include <gpgme.h>
#include <sqlite3.h>

#include "lib/party/import-private.h"
#include "lib/addr.h"
#include "lib/party/mail-header.h"
#include "lib/party/mail-template.h"
#include "lib/party/mime.h"
#include "lib/party/sign-opts.h"
#include "lib/party/sign-stage.h"
#include "lib/party/sign-targets.h"
#include "lib/cleanup.h"
#include "lib/gpgme-run.h"
#include "shared/util.h"
#include "lib/store/store.h"

struct ksp_sign_result {
	int status;
	int number;
	char fpr[65];
	const char *uid;
	size_t uid_len;
	const char *email;
	const char *eml;
	const char *asc;
	int64_t time;
	char message[512];
};

KSP_EXPORT int ksp_sign_result_get_status(const struct ksp_sign_result *res)
{
	return res ? res->status : -EINVAL;
}

KSP_EXPORT int ksp_sign_result_get_number(const struct ksp_sign_result *res)
{
	return res ? res->number : 0;
}

KSP_EXPORT const char *ksp_sign_result_get_fingerprint(const struct ksp_sign_result *res)
{
	return res && res->fpr[0] ? res->fpr : NULL;
}

KSP_EXPORT const char *ksp_sign_result_get_uid(const struct ksp_sign_result *res, size_t *len)
{
	if (res == NULL || res->uid == NULL)
		return NULL;
	if (len)
		*len = res->uid_len;
	return res->uid;
}

KSP_EXPORT const char *ksp_sign_result_get_email(const struct ksp_sign_result *res)
{
	return res ? res->email : NULL;
}

KSP_EXPORT const char *ksp_sign_result_get_message_file(const struct ksp_sign_result *res)
{
	return res ? res->eml : NULL;
}

KSP_EXPORT const char *ksp_sign_result_get_asc_file(const struct ksp_sign_result *res)
{
	return res ? res->asc : NULL;
}

KSP_EXPORT int64_t ksp_sign_result_get_time(const struct ksp_sign_result *res)
{
	return res ? res->time : 0;
}

KSP_EXPORT const char *ksp_sign_result_get_message(const struct ksp_sign_result *res)
{
	return res ? res->message : NULL;
}

/* A user ID that goes into a message: its bytes, and whether the copy
 * carries a certification by the signer on it. */
struct carried {
	const char *uid;
	size_t len;
	bool cert;
};

struct signer {
	struct ksp_party *party;
	struct ksp_ctx *ctx;
	sqlite3 *db;
	struct ksp_gpghome *home;
	gpgme_ctx_t g;      /* the temporary home */
	char fpr[65];
	char keyid[17];
	char from[256];     /* the signer's address, "" if none */
	char *from_name;    /* the display name of that user ID, or NULL */
	const char *tmpl;   /* the mail template and its name */
	const char *tmpl_source;
	char user_home[PATH_MAX];
	int level;          /* of the key being signed */
	int conf_level;     /* the one gpg.conf says (-1: none yet) */
	const struct ksp_sign_opts *opts;
	bool plain;         /* the key being signed is mailed unencrypted (opt-in) */
	char list_sha256[65];
	const char *outbox;
	unsigned int flags;
	int version;        /* the frozen list version checked against */
	void (*cb)(void *, const struct ksp_sign_result *);
	void *cb_data;
	int n_signed;
	/* the outbox files of this run, put into place just before the
	 * commit (all or none: a failure leaves the outbox as it was), in
	 * one private folder a signal removes whole (sign-stage.h) */
	struct sign_stage stage;
};

static void report(struct signer *s, struct ksp_sign_result *res, int status, const char *fmt, ...)
	_printf_format_(4, 5);
static void report(struct signer *s, struct ksp_sign_result *res, int status, const char *fmt, ...)
{
	va_list ap;

	res->status = status;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(res->message, sizeof(res->message), fmt, ap);
		va_end(ap);
	}
	if (s->cb)
		s->cb(s->cb_data, res);
}

/* Safe bytes for a file name. */
static void file_part(const char *in, char *out, size_t size)
{
	size_t n = 0;

	for (; *in && n + 1 < size && n < 80; in++) {
		char c = *in;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '@' || c == '.' || c == '_' || c == '+' || c == '-';
		out[n++] = ok ? c : '_';
	}
	out[n] = '\0';
	if (n && out[0] == '.')
		out[0] = '_';
}

static int gpg_fail(struct signer *s, gpgme_error_t e, const char *what)
{
	int r = ksp_errno_from_gpgme(s->ctx, e, what);
	ksp_set_error(s->ctx, "%s: gpg could not %s: %s", s->user_home, what, gpgme_strerror(e));
	return r;
}

static int encrypt_to(struct signer *s, gpgme_key_t key, const char *plain, size_t len, char **ret,
		      size_t *ret_len)
{
	gpgme_key_t rcpt[2] = { key, NULL };
	gpgme_data_t in = NULL, out = NULL;
	gpgme_error_t e;

	e = gpgme_data_new_from_mem(&in, plain, len, 0);
	if (!e)
		e = gpgme_data_new(&out);
	if (e) {
		gpgme_data_release(in);
		return -ENOMEM;
	}
	gpgme_set_armor(s->g, 1);
	e = gpgme_op_encrypt(s->g, rcpt, GPGME_ENCRYPT_ALWAYS_TRUST, in, out);
	gpgme_set_armor(s->g, 0);
	gpgme_data_release(in);
	if (e) {
		gpgme_data_release(out);
		return gpg_fail(s, e, "encrypt");
	}
	*ret = gpgme_data_release_and_get_mem(out, ret_len);
	return *ret ? 0 : -ENOMEM;
}

/* Write an outbox file into the staging folder; it is put into place with
 * the others just before the commit. */
static int stage_file(struct signer *s, const char *path, const void *data, size_t len)
{
	int r = sign_stage_write(&s->stage, path, data, len);

	if (r < 0)
		ksp_set_error(s->ctx, "%s: cannot write: %s; nothing was signed, check the outbox directory and run again",
			      path, output_strerror(r));
	return r;
}

/* The subject and text of a message, from the template. */
static int mail_text(struct signer *s, const char *fpr, const struct carried *uv, size_t n_uv, const char *email,
		     struct strbuf *subject, struct strbuf *text)
{
	char groups[96], sgroups[96], level[8], version[16];
	char *sha = s->list_sha256[0] ? s->list_sha256 : NULL;
	struct mt_var *items = calloc(2 * n_uv + 1, sizeof(*items));
	char **uids = calloc(n_uv + 1, sizeof(*uids));
	int r = -ENOMEM;

	if (items == NULL || uids == NULL)
		goto out;
	fpr_groups(fpr, groups, sizeof(groups));
	fpr_groups(s->fpr, sgroups, sizeof(sgroups));
	snprintf(level, sizeof(level), "%d", s->level);
	snprintf(version, sizeof(version), "%d", s->version);
	for (size_t i = 0; i < n_uv; i++) {
		uids[i] = strndup(uv[i].uid, uv[i].len);
		if (uids[i] == NULL)
			goto out;
		items[2 * i] = (struct mt_var){ .name = "uid", .text = uids[i] };
		items[2 * i + 1] = (struct mt_var){ .name = "certified", .truth = uv[i].cert };
	}
	const struct mt_var vars[] = {
		{ .name = "party.name", .text = ksp_party_get_name(s->party) },
		{ .name = "party.date", .text = ksp_party_get_date(s->party) },
		{ .name = "list.version", .text = version },
		{ .name = "list.sha256", .text = sha ? sha : "" },
		{ .name = "signer.name", .text = s->from_name ? s->from_name : "" },
		{ .name = "signer.address", .text = s->from },
		{ .name = "signer.fingerprint", .text = sgroups },
		{ .name = "signer.fingerprint_hex", .text = s->fpr },
		{ .name = "key.fingerprint", .text = groups },
		{ .name = "key.fingerprint_hex", .text = fpr },
		{ .name = "to", .text = email },
		{ .name = "level", .text = level },
		{ .name = "unencrypted", .truth = s->plain },
		{ .name = "uids", .items = items, .n_items = n_uv, .n_fields = 2, .is_list = true },
	};
	r = ksp_mail_template_render(s->ctx, s->tmpl_source, s->tmpl, strlen(s->tmpl), vars,
				     sizeof(vars) / sizeof(vars[0]), subject, text);
out:
	for (size_t i = 0; uids && i < n_uv; i++)
		free(uids[i]);
	free(uids);
	free(items);
	return r;
}

/* The plaintext of the PGP/MIME message: the text and the key. */
static void inner_entity(struct strbuf *sb, const char *fpr, const char *text, const char *armored)
{
	char bnd[33];

	ksp_mail_random_hex(bnd, 16);
	strbuf_addf(sb, "Content-Type: multipart/mixed; boundary=\"ksp-%s\"\n\n", bnd);
	strbuf_addf(sb, "--ksp-%s\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n", bnd);
	strbuf_addstr(sb, text);
	strbuf_addf(sb, "\n--ksp-%s\nContent-Type: application/pgp-keys; name=\"%s.asc\"\n"
			"Content-Disposition: attachment; filename=\"%s.asc\"\n\n%s\n--ksp-%s--\n",
		    bnd, fpr, fpr, armored, bnd);
}

/* RFC 5322 + RFC 3156 multipart/encrypted around @cipher (armored), or
 * the header over @plain_entity (--no-encrypt). */
static void outer_message(struct signer *s, struct strbuf *sb, const char *subject, const char *email,
			  const char *cipher, const char *plain_entity, int64_t now)
{
	const struct ksp_mail_head h = {
		.from = s->from,
		.from_name = s->from_name,
		.bcc = s->opts->bcc_self ? s->from : NULL,
		.to = email,
		.subject = subject,
		.date = now,
	};

	ksp_mail_head_write(sb, &h);
	if (plain_entity)
		strbuf_addstr(sb, plain_entity);
	else
		ksp_mail_pgp_encrypted(sb, cipher);
}

/* The key stripped to what its owner made: self-signatures only. */
static void stripped_key(struct strbuf *sb, const struct ksp_pgp_key *k)
{
	ksp_pgp_emit_primary(sb, k);
	for (size_t u = 0; u < k->n_uids; u++) {
		const struct ksp_pgp_uid *uid = &k->uids[u];
		if (uid->attribute)
			continue;
		ksp_pgp_emit(sb, KSP_PGP_TAG_USER_ID, uid->data, uid->len);
		for (size_t i = 0; i < uid->n_sigs; i++)
			if (ksp_pgp_sig_is_self(k, &uid->sigs[i]))
				ksp_pgp_emit(sb, KSP_PGP_TAG_SIGNATURE, uid->sigs[i].body, uid->sigs[i].body_len);
	}
	ksp_pgp_emit_subkeys(sb, k);
}

static bool sig_by(const struct ksp_pgp_sig *sig, const char *fpr, const char *keyid)
{
	char f[65], kid[17];

	if (!ksp_pgp_sig_issuer(sig, f, kid))
		return false;
	return f[0] ? strcmp(f, fpr) == 0 : strcmp(kid, keyid) == 0;
}

/* The newest certification by the signer on @u, or NULL. */
static const struct ksp_pgp_sig *signer_cert(struct signer *s, const struct ksp_pgp_uid *u)
{
	const struct ksp_pgp_sig *cert = NULL;

	for (size_t i = 0; u && i < u->n_sigs; i++) {
		const struct ksp_pgp_sig *sig = &u->sigs[i];
		if (sig->type >= 0x10 && sig->type <= 0x13 && sig_by(sig, s->fpr, s->keyid) &&
		    (cert == NULL || sig->created >= cert->created))
			cert = sig;
	}
	return cert;
}

/* After gpg signed: export the key, and build the copy holding only the
 * user IDs @uv (the addressed one first, then those without an address
 * that travel with it, as caff does), each with its self-signatures and,
 * where asked, the new certification. */
static int minimal_copy(struct signer *s, const char *fpr, const struct carried *uv, size_t n_uv,
			struct strbuf *out)
{
	gpgme_data_t d = NULL;
	struct ksp_pgp_reader *rd = NULL;
	struct ksp_pgp_key *k = NULL;
	char *mem = NULL;
	size_t len = 0;
	int r;

	if (gpgme_data_new(&d))
		return -ENOMEM;
	gpgme_set_armor(s->g, 0);
	gpgme_error_t e = gpgme_op_export(s->g, fpr, 0, d);
	if (e) {
		gpgme_data_release(d);
		return gpg_fail(s, e, "export the signed key");
	}
	mem = gpgme_data_release_and_get_mem(d, &len);
	if (mem == NULL)
		return -ENOMEM;
	r = ksp_pgp_reader_new(s->ctx, (const uint8_t *)mem, len, "signed key", &rd);
	if (r < 0)
		goto out;
	r = ksp_pgp_reader_next(rd, &k);
	if (r <= 0) {
		if (r == 0) {
			ksp_set_error(s->ctx, "%s: gpg exported no key after signing; nothing was written", fpr);
			r = -EIO;
		}
		goto out;
	}
	ksp_pgp_emit_primary(out, k);
	for (size_t j = 0; j < n_uv; j++) {
		const struct ksp_pgp_uid *found = NULL;
		const struct ksp_pgp_sig *cert = NULL;
		for (size_t u = 0; u < k->n_uids; u++)
			if (!k->uids[u].attribute && k->uids[u].len == uv[j].len &&
			    memcmp(k->uids[u].data, uv[j].uid, uv[j].len) == 0)
				found = &k->uids[u];
		if (uv[j].cert)
			cert = signer_cert(s, found);
		if (found == NULL || (uv[j].cert && cert == NULL)) {
			ksp_set_error(s->ctx, "%s: gpg reported the user ID signed, but the certification is not on the key; nothing was written",
				      fpr);
			r = -EIO;
			goto out;
		}
		/* SHA-256, SHA-384, SHA-512, SHA-224, SHA3-256, SHA3-512 */
		if (cert && (s->flags & KSP_SIGN_RESIGN_WEAK) &&
		    !(cert->hash_algo >= 8 && cert->hash_algo <= 14 && cert->hash_algo != 13)) {
			ksp_set_error(s->ctx, "%s: gpg made the new certification with hash algorithm %d, not SHA-256 or better (can your key %s sign with SHA-256?); nothing was written",
				      fpr, cert->hash_algo, s->fpr);
			r = -EIO;
			goto out;
		}
		ksp_pgp_emit(out, KSP_PGP_TAG_USER_ID, found->data, found->len);
		for (size_t i = 0; i < found->n_sigs; i++)
			if (ksp_pgp_sig_is_self(k, &found->sigs[i]))
				ksp_pgp_emit(out, KSP_PGP_TAG_SIGNATURE, found->sigs[i].body, found->sigs[i].body_len);
		if (cert)
			ksp_pgp_emit(out, KSP_PGP_TAG_SIGNATURE, cert->body, cert->body_len);
	}
	ksp_pgp_emit_subkeys(out, k);
	r = strbuf_ok(out) ? 0 : -ENOMEM;
out:
	ksp_pgp_key_free(k);
	ksp_pgp_reader_free(rd);
	gpgme_free(mem);
	return r;
}

/* When this signer signed this user ID before, per the store. */
static int already_signed(struct signer *s, int64_t key_id, const char *uid, size_t uid_len,
			  int64_t *when, char **file)
{
	sqlite3_stmt *st;
	int rc, found = 0;

	rc = sqlite3_prepare_v2(s->db, "SELECT time, outbox_file FROM signed WHERE signer_fpr = ? AND key_id = ? AND uid = ?",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(s->ctx, s->db, rc, "signed");
	sqlite3_bind_text(st, 1, s->fpr, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, key_id);
	sqlite3_bind_blob(st, 3, uid, (int)uid_len, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *f = sqlite3_column_text(st, 1);
		*when = sqlite3_column_int64(st, 0);
		*file = f ? strdup((const char *)f) : NULL;
		found = 1;
	} else if (rc != SQLITE_DONE) {
		found = ksp_errno_from_sqlite(s->ctx, s->db, rc, "signed");
	}
	sqlite3_finalize(st);
	if (found)
		return found;
	/* a verified certification by the signer imported into the store */
	rc = sqlite3_prepare_v2(s->db,
		"SELECT c.created FROM certs c JOIN uids u ON u.id = c.uid_id WHERE u.key_id = ? AND u.uid = ? "
		"AND u.is_attr = 0 AND c.issuer_fpr = ? AND c.verified = 1 AND c.sig_type BETWEEN 16 AND 19 "
		"ORDER BY c.created DESC LIMIT 1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(s->ctx, s->db, rc, "certs");
	sqlite3_bind_int64(st, 1, key_id);
	sqlite3_bind_blob(st, 2, uid, (int)uid_len, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, s->fpr, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*when = sqlite3_column_int64(st, 0);
		*file = NULL;
		found = 1;
	} else if (rc != SQLITE_DONE) {
		found = ksp_errno_from_sqlite(s->ctx, s->db, rc, "certs");
	}
	sqlite3_finalize(st);
	return found;
}

/* Whether the user ID holds a certification to re-make (WEAK_CERT,
 * sign-targets.h) (1: *newest its time). */
static int weak_uid(struct signer *s, int64_t key_id, const char *uid, size_t uid_len, int64_t *newest)
{
	sqlite3_stmt *st;
	int rc, found = 0;

	rc = sqlite3_prepare_v2(s->db,
				"SELECT max(c.created) FROM certs c JOIN uids u ON u.id = c.uid_id WHERE " WEAK_CERT
				" AND u.key_id = ?3 AND u.uid = ?4",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(s->ctx, s->db, rc, "certs");
	sqlite3_bind_text(st, 1, s->fpr, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
	sqlite3_bind_int64(st, 3, key_id);
	sqlite3_bind_blob(st, 4, uid, (int)uid_len, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*newest = sqlite3_column_int64(st, 0);
		found = 1;
	} else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		found = ksp_errno_from_sqlite(s->ctx, s->db, rc, "certs");
	}
	sqlite3_finalize(st);
	return found;
}

static int record(struct signer *s, int64_t key_id, const char *uid, size_t uid_len, int64_t now,
		  const char *file)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(s->db,
		"INSERT INTO signed(signer_fpr, key_id, uid, time, level, outbox_file) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
		"ON CONFLICT(signer_fpr, key_id, uid) DO UPDATE SET time = ?4, level = ?5, outbox_file = ?6",
		-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(s->ctx, s->db, rc, "record signature");
	sqlite3_bind_text(st, 1, s->fpr, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, key_id);
	sqlite3_bind_blob(st, 3, uid, (int)uid_len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, now);
	sqlite3_bind_int(st, 5, s->level);
	sqlite3_bind_text(st, 6, file, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		int r = ksp_errno_from_sqlite(s->ctx, s->db, rc, "record signature");
		ksp_set_error(s->ctx, "%s: cannot record the signature: %s; nothing was signed or written to the outbox (%s), run again",
			      ksp_store_get_path(s->party->store), strerror(-r), file);
		return r;
	}
	return 0;
}

/* The certification level of the next certifications: gpg reads gpg.conf
 * at each run, and the last default-cert-level line counts. */
static int set_cert_level(struct signer *s, int level)
{
	struct strbuf sb;
	char conf[64];
	int fd, n, r;

	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/gpg.conf", ksp_gpghome_path(s->home));
	fd = strbuf_ok(&sb) ? open(sb.buf, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
	strbuf_release(&sb);
	if (fd < 0) {
		ksp_set_error(s->ctx, "%s: cannot write gpg.conf", ksp_gpghome_path(s->home));
		return -EIO;
	}
	n = snprintf(conf, sizeof(conf), "default-cert-level %d\n", level);
	r = write_all(fd, conf, (size_t)n);
	close(fd);
	if (r < 0) {
		ksp_set_error(s->ctx, "%s: cannot write gpg.conf: %s", ksp_gpghome_path(s->home), strerror(-r));
		return r;
	}
	s->conf_level = level;
	return 0;
}

/* Certify user ID @gu (number @idx + 1) with gpg in the temporary home. */
static int certify(struct signer *s, gpgme_key_t key, gpgme_user_id_t gu, size_t idx, const char *fpr)
{
	gpgme_error_t e;
	int r;

	if (s->conf_level != s->level) {
		r = set_cert_level(s, s->level);
		if (r < 0)
			return r;
	}
	e = gpgme_op_keysign(s->g, key, gu->uid, (unsigned long)s->opts->expires,
			     s->opts->expires ? 0 : GPGME_KEYSIGN_NOEXPIRE);

	if (e) {
		r = gpg_fail(s, e, "sign the key");
		ksp_set_error(s->ctx, "%s: gpg could not certify user ID %zu of %s: %s; is the secret key usable (passphrase)?",
			      s->user_home, idx + 1, fpr, gpgme_strerror(e));
		return r;
	}
	return 0;
}

/* The message to @email (user ID number @idx + 1) carrying the user IDs
 * @uv: the key copy encrypted to the key, staged as FPR-N-ADDR.eml and
 * .asc; *ret_eml is the .eml path (malloc'ed). */
static int write_message(struct signer *s, gpgme_key_t key, const char *fpr, size_t idx, const char *email,
			 const struct carried *uv, size_t n_uv, int64_t now, char **ret_eml)
{
	struct strbuf keypk, armored, inner, eml, path, subject, text;
	char *cipher1 = NULL, *cipher2 = NULL, fpart[96];
	size_t c1len = 0, c2len = 0;
	int r;

	*ret_eml = NULL;
	strbuf_init(&keypk);
	strbuf_init(&armored);
	strbuf_init(&inner);
	strbuf_init(&eml);
	strbuf_init(&path);
	strbuf_init(&subject);
	strbuf_init(&text);
	r = minimal_copy(s, fpr, uv, n_uv, &keypk);
	if (r == 0)
		r = mail_text(s, fpr, uv, n_uv, email, &subject, &text);
	if (r < 0)
		goto out;
	ksp_armor_encode(&armored, "PUBLIC KEY BLOCK", (const uint8_t *)keypk.buf, keypk.len);
	inner_entity(&inner, fpr, strbuf_str(&text), strbuf_str(&armored));
	if (!strbuf_ok(&armored) || !strbuf_ok(&inner)) {
		r = -ENOMEM;
		goto out;
	}
	if (s->plain) {
		/* the user's explicit choice (--unencrypted-to): the key as it is */
		cipher1 = strndup(armored.buf, armored.len);
		c1len = armored.len;
		if (cipher1 == NULL) {
			r = -ENOMEM;
			goto out;
		}
		outer_message(s, &eml, strbuf_str(&subject), email, NULL, strbuf_str(&inner), now);
	} else {
		r = encrypt_to(s, key, armored.buf, armored.len, &cipher1, &c1len);
		if (r == 0)
			r = encrypt_to(s, key, inner.buf, inner.len, &cipher2, &c2len);
		if (r < 0)
			goto out;
		/* trim the trailing newline of gpg's armor for the MIME part */
		while (c2len && (cipher2[c2len - 1] == '\n' || cipher2[c2len - 1] == '\r'))
			c2len--;
		char *c2 = strndup(cipher2, c2len);
		if (c2 == NULL) {
			r = -ENOMEM;
			goto out;
		}
		outer_message(s, &eml, strbuf_str(&subject), email, c2, NULL, now);
		free(c2);
	}
	file_part(email, fpart, sizeof(fpart));
	strbuf_addf(&path, "%s/%s-%zu-%s.eml", s->outbox, fpr, idx + 1, fpart);
	if (!strbuf_ok(&eml) || !strbuf_ok(&path)) {
		r = -ENOMEM;
		goto out;
	}
	char *emlpath = strdup(path.buf);
	if (emlpath == NULL) {
		r = -ENOMEM;
		goto out;
	}
	r = stage_file(s, emlpath, eml.buf, eml.len);
	if (r == 0) {
		memcpy(path.buf + path.len - 4, ".asc", 4);
		r = stage_file(s, path.buf, cipher1, c1len);
	}
	if (r == 0)
		*ret_eml = emlpath;
	else
		free(emlpath);
out:
	if (s->plain)
		free(cipher1);
	else
		gpgme_free(cipher1);
	gpgme_free(cipher2);
	strbuf_release(&keypk);
	strbuf_release(&armored);
	strbuf_release(&inner);
	strbuf_release(&eml);
	strbuf_release(&path);
	strbuf_release(&subject);
	strbuf_release(&text);
	return r;
}

/* "x.eml" -> "x.asc" (malloc'ed), or NULL. */
static char *asc_of(const char *eml)
{
	char *asc = eml && strlen(eml) > 4 ? strdup(eml) : NULL;

	if (asc)
		memcpy(asc + strlen(asc) - 4, ".asc", 4);
	return asc;
}

/* Import @data into the user's own home (--keep). */
static int keep_in_user_home(struct signer *s, const char *fpr)
{
	gpgme_data_t d = NULL;
	gpgme_ctx_t ug = NULL;
	gpgme_error_t e;
	int r;

	if (gpgme_data_new(&d))
		return -ENOMEM;
	e = gpgme_op_export(s->g, fpr, 0, d);
	if (e) {
		gpgme_data_release(d);
		return gpg_fail(s, e, "export the signed key");
	}
	gpgme_data_seek(d, 0, SEEK_SET);
	r = ksp_after_gpgme_new(s->ctx, s->user_home, false, &ug);
	if (r == 0) {
		e = gpgme_op_import(ug, d);
		if (e)
			r = gpg_fail(s, e, "import the signed key into your home (--keep)");
		gpgme_release(ug);
	}
	gpgme_data_release(d);
	return r;
}

static int import_into_temp(struct signer *s, const void *data, size_t len)
{
	gpgme_data_t d = NULL;
	gpgme_import_result_t res;
	gpgme_error_t e;

	e = gpgme_data_new_from_mem(&d, data, len, 0);
	if (e)
		return -ENOMEM;
	e = ksp_gpgme_import(s->g, d);
	gpgme_data_release(d);
	res = e ? NULL : gpgme_op_import_result(s->g);
	if (res == NULL || res->imported + res->unchanged == 0)
		return -EBADMSG;
	return 0;
}

/* One user ID of a key being signed. */
struct uinfo {
	const struct ksp_pgp_uid *nu;
	gpgme_user_id_t gu;
	size_t idx;
	char *email;   /* NULL: no address ksp writes to */
	bool before;   /* signed before (and not --force) */
	int64_t when;
	char *file;
};

static void report_uid(struct signer *s, struct ksp_sign_result *res, const struct uinfo *u, int status,
		       const char *eml, int64_t when, const char *msg)
{
	char *asc = asc_of(eml);

	res->uid = (const char *)u->nu->data;
	res->uid_len = u->nu->len;
	res->email = u->email;
	res->eml = eml;
	res->asc = asc;
	res->time = when;
	res->message[0] = '\0';
	report(s, res, status, "%s", msg);
	res->eml = res->asc = NULL;
	free(asc);
}

/* Sign every user ID of one member of the frozen list.  User IDs without
 * an address ksp writes to ("riders") are certified too and travel with
 * the message to each of the key's addressed user IDs, as caff does. */
/* Is @uid among @only (escaped for a terminal, as the list prints it)? */
static int uid_selected(const char *const *only, const char *uid, size_t len)
{
	char *e = NULL;
	int hit = 0;

	if (only == NULL)
		return 1;
	if (ksp_escape(uid, len, KSP_ESCAPE_TERMINAL, &e) < 0)
		return -ENOMEM;
	for (size_t i = 0; only[i]; i++)
		if (strcmp(only[i], e) == 0)
			hit = 1;
	free(e);
	return hit;
}

/* (Long: one key's user IDs in order, each signed on its own with its riders, encrypted and written; one exit that frees all.) */
static int sign_key(struct signer *s, int number, const char *fpr, const char *const *only)
{
	struct ksp_sign_result res = { .number = number };
	struct ksp_pgp_key *k = NULL;
	struct strbuf sb;
	gpgme_key_t key = NULL;
	int64_t key_id = 0, now = (int64_t)time(NULL);
	struct uinfo *uv = NULL;
	struct carried *cv = NULL;
	size_t nu = 0, n_addr = 0, n_riders = 0, n_msgs = 0;
	char hex[65], *first_eml = NULL, msg[256];
	int r, before = s->n_signed;

	snprintf(res.fpr, sizeof(res.fpr), "%s", fpr);
	strbuf_init(&sb);
	r = ksp_store_load_key(s->party->store, fpr, true, &key_id, &k);
	if (r < 0)
		goto out;
	if (r == 0) {
		report(s, &res, KSP_SIGN_REFUSED, "refused: the store holds no key data for it; ask the organizer for the party's store");
		r = 0;
		goto out;
	}
	ksp_pgp_fpr_hex(&k->primary, hex);
	if (strcmp(hex, fpr) != 0) {
		report(s, &res, KSP_SIGN_REFUSED, "refused: the key in the store is %s, not %s of the frozen list", hex, fpr);
		r = 0;
		goto out;
	}
	stripped_key(&sb, k);
	if (!strbuf_ok(&sb)) {
		r = -ENOMEM;
		goto out;
	}
	if (import_into_temp(s, sb.buf, sb.len) < 0 || gpgme_get_key(s->g, fpr, &key, 0) != 0 || key == NULL) {
		report(s, &res, KSP_SIGN_REFUSED, "refused: gpg does not accept the stored key (no valid self-signature?)");
		r = 0;
		goto out;
	}
	if (key->revoked || key->expired || key->invalid || key->disabled) {
		report(s, &res, KSP_SIGN_REFUSED, "refused: the key is %s", key->revoked ? "revoked" : key->expired ? "expired" : "not valid");
		r = 0;
		goto out;
	}
	s->level = ksp_sign_opts_level_for(s->opts, fpr);
	s->plain = !key->can_encrypt && ksp_sign_opts_is_unencrypted(s->opts, fpr);
	uv = calloc(k->n_uids + 1, sizeof(*uv));
	cv = calloc(k->n_uids + 1, sizeof(*cv));
	if (uv == NULL || cv == NULL) {
		r = -ENOMEM;
		goto out;
	}
	/* the user IDs still the owner's, with their addresses and history */
	for (size_t u = 0; u < k->n_uids; u++) {
		const struct ksp_pgp_uid *n = &k->uids[u];
		gpgme_user_id_t gu;
		struct uinfo *ui = &uv[nu];

		if (n->attribute)
			continue;
		for (gu = key->uids; gu; gu = gu->next)
			if (gu->uid && strlen(gu->uid) == n->len && memcmp(gu->uid, n->data, n->len) == 0)
				break;
		if (gu == NULL || gu->revoked || gu->invalid)
			continue; /* revoked, or no valid self-signature: not the owner's any more */
		r = uid_selected(only, (const char *)n->data, n->len);
		if (r < 0)
			goto out;
		if (r == 0)
			continue; /* not ticked on the sheet */
		int64_t weak_at = 0;
		if (s->flags & KSP_SIGN_RESIGN_WEAK) {
			/* only the user IDs with a weak certification to re-make */
			r = weak_uid(s, key_id, (const char *)n->data, n->len, &weak_at);
			if (r < 0)
				goto out;
			if (r == 0)
				continue;
		}
		ui->nu = n;
		ui->gu = gu;
		ui->idx = u;
		nu++;
		r = ksp_uid_writable_address((const char *)n->data, n->len, &ui->email);
		if (r < 0)
			goto out;
		r = already_signed(s, key_id, (const char *)n->data, n->len, &ui->when, &ui->file);
		if (r < 0)
			goto out;
		if ((s->flags & KSP_SIGN_RESIGN_WEAK) && r > 0 && (ui->file == NULL || ui->when <= weak_at)) {
			/* signed before, but that was the weak one: made again
			 * only by an earlier run after it */
			free(ui->file);
			ui->file = NULL;
			r = 0;
		}
		ui->before = r > 0 && !(s->flags & KSP_SIGN_FORCE);
		if (ui->email)
			n_addr++;
		else if (!ui->before)
			n_riders++;
	}
	for (size_t i = 0; i < nu; i++) {
		if (!key->can_encrypt && !s->plain)
			report_uid(s, &res, &uv[i], KSP_SIGN_NO_ENCRYPTION, NULL, 0,
				   "skipped: no encryption subkey; never sent unencrypted");
		else if (n_addr == 0)
			report_uid(s, &res, &uv[i], KSP_SIGN_NO_EMAIL, NULL, 0,
				   "skipped: no user ID of this key has an address to send the certification to");
	}
	if ((!key->can_encrypt && !s->plain) || n_addr == 0) {
		r = 0;
		goto out;
	}
	/* the riders: certified first, so that each message carries them */
	for (size_t i = 0; i < nu; i++) {
		if (uv[i].email || uv[i].before)
			continue;
		r = certify(s, key, uv[i].gu, uv[i].idx, fpr);
		if (r == 0)
			r = record(s, key_id, (const char *)uv[i].nu->data, uv[i].nu->len, now, NULL);
		if (r < 0)
			goto out;
		cv[1 + n_msgs++] = (struct carried){ (const char *)uv[i].nu->data, uv[i].nu->len, true };
	}
	n_msgs = 0;
	for (size_t i = 0; i < nu; i++) {
		struct uinfo *ui = &uv[i];
		char *eml = NULL;

		if (ui->before) {
			char d[16];
			format_date(ui->when, d, sizeof(d));
			snprintf(msg, sizeof(msg), "already signed on %s; not signed again (--force to sign again)", d);
			report_uid(s, &res, ui, KSP_SIGN_ALREADY, ui->file, ui->when, msg);
			continue;
		}
		if (ui->email == NULL)
			continue;
		r = certify(s, key, ui->gu, ui->idx, fpr);
		if (r < 0)
			goto out;
		cv[0] = (struct carried){ (const char *)ui->nu->data, ui->nu->len, true };
		r = write_message(s, key, fpr, ui->idx, ui->email, cv, 1 + n_riders, now, &eml);
		if (r == 0)
			r = record(s, key_id, (const char *)ui->nu->data, ui->nu->len, now, eml);
		if (r < 0) {
			free(eml);
			goto out;
		}
		s->n_signed++;
		snprintf(msg, sizeof(msg), s->plain ? "signed at level %d; NOT encrypted (--unencrypted-to): anyone who reads that mailbox can publish it"
			 : "signed at level %d, encrypted to the key", s->level);
		report_uid(s, &res, ui, KSP_SIGN_SIGNED, eml, now, msg);
		n_msgs++;
		if (first_eml == NULL)
			first_eml = eml;
		else
			free(eml);
	}
	/* riders whose addressed user IDs were all signed before: their own
	 * message to the first address (in the ledger under the first rider) */
	if (n_riders > 0 && n_msgs == 0) {
		for (size_t i = 0; i < nu && first_eml == NULL; i++) {
			if (uv[i].email == NULL)
				continue;
			cv[0] = (struct carried){ (const char *)uv[i].nu->data, uv[i].nu->len, false };
			r = write_message(s, key, fpr, uv[i].idx, uv[i].email, cv, 1 + n_riders, now, &first_eml);
			if (r < 0)
				goto out;
			r = record(s, key_id, cv[1].uid, cv[1].len, now, first_eml);
			if (r < 0)
				goto out;
		}
	}
	for (size_t i = 0; i < nu; i++) {
		if (uv[i].email || uv[i].before)
			continue;
		s->n_signed++;
		snprintf(msg, sizeof(msg), "signed at level %d; no address of its own: sent with the message%s to this key's address%s",
			 s->level, n_msgs > 1 ? "s" : "", n_msgs > 1 ? "es" : "");
		report_uid(s, &res, &uv[i], KSP_SIGN_SIGNED, first_eml, now, msg);
	}
	if ((s->flags & KSP_SIGN_KEEP) && s->n_signed > before) {
		r = keep_in_user_home(s, fpr);
		if (r < 0)
			goto out;
	}
	r = 0;
out:
	for (size_t i = 0; uv && i < nu; i++) {
		free(uv[i].email);
		free(uv[i].file);
	}
	free(uv);
	free(cv);
	free(first_eml);
	if (key)
		gpgme_key_unref(key);
	ksp_pgp_key_free(k);
	strbuf_release(&sb);
	return r;
}

/* The temporary home: the signer's public key, the secret key reachable. */
static int setup_home(struct signer *s)
{
	struct strbuf sb;
	gpgme_ctx_t ug = NULL;
	gpgme_data_t d = NULL;
	gpgme_key_t sk = NULL;
	gpgme_error_t e;
	char *mem = NULL;
	size_t len = 0;
	struct stat st;
	const char *h = ksp_get_gnupg_home(s->ctx);
	int r, fd;

	if (h == NULL)
		h = gpgme_get_dirinfo("homedir");
	if (h == NULL || realpath(h, s->user_home) == NULL) {
		ksp_set_error(s->ctx, "%s: no GnuPG home; set GNUPGHOME or --gnupg-home DIR to the home that holds your secret key",
			      h ? h : "~/.gnupg");
		return -ENOKEY;
	}
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/private-keys-v1.d", s->user_home);
	if (!strbuf_ok(&sb))
		return -ENOMEM;
	if (stat(sb.buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
		ksp_set_error(s->ctx, "%s: no private-keys-v1.d (GnuPG 2.1 or later); your secret key %s is not there",
			      s->user_home, s->fpr);
		strbuf_release(&sb);
		return -ENOKEY;
	}
	r = ksp_gpghome_new(s->ctx, &s->home);
	if (r < 0) {
		strbuf_release(&sb);
		return r;
	}
	struct strbuf link;
	strbuf_init(&link);
	strbuf_addf(&link, "%s/private-keys-v1.d", ksp_gpghome_path(s->home));
	if (!strbuf_ok(&link))
		r = -ENOMEM;
	else if (symlink(sb.buf, link.buf) < 0)
		r = -errno;
	strbuf_release(&sb);
	if (r < 0) {
		ksp_set_error(s->ctx, "%s: cannot link the secret keys: %s", strbuf_str(&link), strerror(-r));
		strbuf_release(&link);
		return r;
	}
	/* the certification level; no trust database to build */
	strbuf_release(&link);
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/gpg.conf", ksp_gpghome_path(s->home));
	fd = strbuf_ok(&sb) ? open(sb.buf, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
	strbuf_release(&sb);
	if (fd < 0) {
		ksp_set_error(s->ctx, "%s: cannot write gpg.conf", ksp_gpghome_path(s->home));
		return -EIO;
	}
	/* and on each certification: the list it was checked against, the
	 * policy URL (gpgme's notations do not reach --quick-sign-key; the
	 * URL is printable ASCII without spaces, the digest hex) */
	strbuf_init(&sb);
	strbuf_addf(&sb, "default-cert-level %d\ntrust-model always\nno-auto-check-trustdb\n", s->level);
	if (s->opts->list_notation && s->list_sha256[0])
		strbuf_addf(&sb, "cert-notation %s=%s\n", KSP_LIST_NOTATION, s->list_sha256);
	if (s->opts->policy_url)
		strbuf_addf(&sb, "cert-policy-url %s\n", s->opts->policy_url);
	if (s->flags & KSP_SIGN_RESIGN_WEAK)
		strbuf_addstr(&sb, "cert-digest-algo SHA256\n");
	s->conf_level = s->level;
	r = strbuf_ok(&sb) ? write_all(fd, sb.buf, sb.len) : -ENOMEM;
	strbuf_release(&sb);
	close(fd);
	if (r < 0)
		return r;
	r = ksp_after_gpgme_new(s->ctx, ksp_gpghome_path(s->home), false, &s->g);
	if (r < 0)
		return r;

	/* the signer's public key, read (only) from the user's home */
	r = ksp_after_gpgme_new(s->ctx, s->user_home, false, &ug);
	if (r < 0)
		return r;
	e = gpgme_data_new(&d);
	if (!e)
		e = gpgme_op_export(ug, s->fpr, 0, d);
	gpgme_release(ug);
	if (e) {
		gpgme_data_release(d);
		return gpg_fail(s, e, "export your public key");
	}
	mem = gpgme_data_release_and_get_mem(d, &len);
	if (mem == NULL || len == 0) {
		gpgme_free(mem);
		ksp_set_error(s->ctx, "%s: no key %s in this GnuPG home; give --as the full fingerprint of your own key, and GNUPGHOME or --gnupg-home the home that holds it",
			      s->user_home, s->fpr);
		return -ENOKEY;
	}
	r = import_into_temp(s, mem, len);
	gpgme_free(mem);
	if (r < 0) {
		ksp_set_error(s->ctx, "%s: gpg does not accept your key %s", s->user_home, s->fpr);
		return -ENOKEY;
	}
	e = gpgme_get_key(s->g, s->fpr, &sk, 1);
	if (e || sk == NULL || !sk->can_certify) {
		if (sk)
			gpgme_key_unref(sk);
		ksp_set_error(s->ctx, "%s: the secret key of %s is not in private-keys-v1.d (or cannot certify); sign with a key whose secret part you hold",
			      s->user_home, s->fpr);
		return -ENOKEY;
	}
	for (gpgme_user_id_t u = sk->uids; u && !s->from[0]; u = u->next) {
		char *a = NULL;
		if (u->revoked || u->invalid || u->uid == NULL)
			continue;
		if (ksp_uid_writable_address(u->uid, strlen(u->uid), &a) < 0) {
			gpgme_key_unref(sk);
			return -ENOMEM;
		}
		if (a) {
			snprintf(s->from, sizeof(s->from), "%s", a);
			if (ksp_uid_display_name(u->uid, strlen(u->uid), &s->from_name) < 0) {
				free(a);
				gpgme_key_unref(sk);
				return -ENOMEM;
			}
		}
		free(a);
	}
	gpgme_signers_clear(s->g);
	e = gpgme_signers_add(s->g, sk);
	gpgme_key_unref(sk);
	if (e)
		return gpg_fail(s, e, "use your key for signing");
	return 0;
}

/* A target left out (sign-targets.c): reported as its result. */
static void left_out(void *data, int status, int number, const char *fpr, const char *message)
{
	struct ksp_sign_result res = { .number = number };

	snprintf(res.fpr, sizeof(res.fpr), "%s", fpr);
	report(data, &res, status, "%s", message);
}

KSP_EXPORT int ksp_party_sign(struct ksp_party *party, const char *signer_fpr,
			      const char *const *targets, size_t n_targets, int level, const char *outbox,
			      unsigned int flags,
			      void (*cb)(void *cb_data, const struct ksp_sign_result *result), void *cb_data)
{
	struct ksp_sign_opts *o = NULL;
	int r;

	if (party == NULL)
		return -EINVAL;
	r = ksp_sign_opts_default(party->ctx, level, &o);
	if (r == 0)
		r = ksp_party_sign_opts(party, signer_fpr, targets, n_targets, o, outbox, flags, cb, cb_data);
	ksp_sign_opts_free(o);
	return r;
}

KSP_EXPORT int ksp_party_sign_opts(struct ksp_party *party, const char *signer_fpr,
				   const char *const *targets, size_t n_targets, const struct ksp_sign_opts *opts,
				   const char *outbox, unsigned int flags,
				   void (*cb)(void *cb_data, const struct ksp_sign_result *result), void *cb_data)
{
	return ksp_party_sign_uids(party, signer_fpr, targets, NULL, n_targets, opts, outbox, flags, cb, cb_data);
}

int ksp_party_sign_uids(struct ksp_party *party, const char *signer_fpr, const char *const *targets,
			const char *const *const *uids, size_t n_targets, const struct ksp_sign_opts *opts,
			const char *outbox, unsigned int flags,
			void (*cb)(void *cb_data, const struct ksp_sign_result *result), void *cb_data)
{
	struct signer s = { .party = party, .opts = opts, .flags = flags, .cb = cb, .cb_data = cb_data };
	struct sign_target *tv = NULL;
	size_t ntv = 0;
	struct stat st;
	bool in_txn = false;
	int r;

	if (party == NULL || signer_fpr == NULL || opts == NULL || (n_targets > 0 && targets == NULL))
		return -EINVAL;
	s.level = opts->level;
	s.tmpl = opts->template_text ? opts->template_text : ksp_mail_template_builtin_text("sign");
	s.tmpl_source = opts->template_text ? opts->template_source : "built-in template 'sign'";
	s.ctx = party->ctx;
	s.db = ksp_store_db(party->store);
	s.outbox = outbox ? outbox : "ksp-outbox";
	ksp_clear_error(s.ctx);
	if (fpr_normalize(signer_fpr, s.fpr) < 0) {
		ksp_set_error(s.ctx, "'%s' is not a full fingerprint (40 or 64 hex digits); give --as the whole fingerprint of your key",
			      signer_fpr);
		return -EINVAL;
	}
	memcpy(s.keyid, strlen(s.fpr) == 40 ? s.fpr + 24 : s.fpr, 16);
	s.keyid[16] = '\0';
	if (s.level < 0 || s.level > 3) {
		ksp_set_error(s.ctx, "certification level %d: give 0, 1, 2 or 3", s.level);
		return -EINVAL;
	}
	if (n_targets == 0 && !(flags & KSP_SIGN_ALL)) {
		ksp_set_error(s.ctx, "no key to sign: give participant numbers or fingerprints, or --all-checked");
		return -EINVAL;
	}
	r = ksp_party_reload(party);
	if (r < 0)
		return r;
	s.version = party->list_version;
	if (s.version <= 0 && !(flags & KSP_SIGN_RESIGN_WEAK)) {
		ksp_set_error(s.ctx, "%s: the list was never frozen; sign only after the organizer ran 'ksp party close' and you checked the list",
			      ksp_store_get_path(party->store));
		return -ENODATA;
	}
	/* a re-made weak certification was not checked against this party's
	 * list: it carries no list notation (and needs no frozen list) */
	if (opts->list_notation && !(flags & KSP_SIGN_RESIGN_WEAK)) {
		char *sha = NULL;
		r = ksp_party_get_digests(party, s.version, NULL, &sha, NULL);
		if (r < 0)
			return r;
		snprintf(s.list_sha256, sizeof(s.list_sha256), "%s", sha ? sha : "");
		free(sha);
	}
	/* the template, tried before anything is signed */
	{
		struct strbuf subj, text;
		struct carried one = { "Name <name@example.org>", 23, true };
		strbuf_init(&subj);
		strbuf_init(&text);
		r = mail_text(&s, s.fpr, &one, 1, "name@example.org", &subj, &text);
		strbuf_release(&subj);
		strbuf_release(&text);
		if (r < 0)
			return r;
	}
	if (stat(s.outbox, &st) < 0) {
		if (mkdir(s.outbox, 0700) < 0) {
			r = -errno;
			ksp_set_error(s.ctx, "%s: cannot create the outbox: %s; give --outbox DIR", s.outbox, strerror(-r));
			return r;
		}
	} else if (!S_ISDIR(st.st_mode)) {
		ksp_set_error(s.ctx, "%s: not a directory; give --outbox DIR", s.outbox);
		return -ENOTDIR;
	}
	r = setup_home(&s);
	if (r < 0)
		goto out;
	r = sign_stage_open(&s.stage, s.ctx, s.outbox);
	if (r < 0)
		goto out;
	{
		const struct sign_targets_of w = {
			.party = party, .ctx = s.ctx, .db = s.db, .fpr = s.fpr, .version = s.version,
			.weak = (flags & KSP_SIGN_RESIGN_WEAK) != 0, .left_out = left_out, .data = &s,
		};
		r = ksp_sign_targets(&w, targets, uids, n_targets, &tv, &ntv);
	}
	if (r < 0)
		goto out;
	/* all or nothing: the rows in one transaction, the outbox files put
	 * into place just before its commit and taken back if it fails */
	r = ksp_store_begin(party->store);
	if (r < 0)
		goto out;
	in_txn = true;
	for (size_t i = 0; i < ntv; i++) {
		r = sign_key(&s, tv[i].number, tv[i].fpr, tv[i].uids);
		if (r < 0)
			goto out;
	}
	if (s.n_signed > 0) {
		char detail[160];
		snprintf(detail, sizeof(detail), "%s signed %d user ID(s)%s", s.fpr, s.n_signed,
			 (flags & KSP_SIGN_RESIGN_WEAK) ? " again with SHA-256 (weak certifications)" : "");
		r = ksp_party_event(party, (flags & KSP_SIGN_RESIGN_WEAK) ? "resign" : "sign", detail);
		if (r < 0)
			goto out;
	}
	{
		const char *failed;
		r = sign_stage_place(&s.stage, &failed);
		if (r < 0) {
			ksp_set_error(s.ctx, "%s: cannot put into place: %s; nothing was signed, check the outbox directory and run again",
				      failed, strerror(-r));
			goto out;
		}
	}
	in_txn = false;
	r = ksp_store_commit(party->store);
	if (r < 0)
		goto out;
	sign_stage_done(&s.stage);
	r = s.n_signed;
out:
	if (in_txn)
		ksp_store_rollback(party->store);
	sign_stage_close(&s.stage);
	free(s.from_name);
	free(tv);
	if (s.g)
		gpgme_release(s.g);
	ksp_gpghome_free(s.home);
	if (r < 0 && !ksp_get_error(s.ctx))
		ksp_set_error(s.ctx, "%s: cannot sign: %s", ksp_store_get_path(party->store), strerror(-r));
	return r;
}
