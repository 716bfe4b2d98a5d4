// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ksp party remind: for each participant whose certifications of other
 * participants have not come back (the status matrix: missing, keys that
 * can be mailed only), one message listing them (numbers, fingerprints,
 * user IDs), from a template (templates/mail-remind*.txt), encrypted to
 * the participant's key in a private temporary GnuPG home, written to an
 * outbox and, with a mailer, handed to it.  Reminders are not in the
 * delivery ledger: sending one again is harmless, and each run writes
 * what is missing at that time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <gcrypt.h>
#include <gpgme.h>

#include "lib/addr.h"
#include "lib/gpgme-run.h"
#include "lib/party/import-private.h"
#include "lib/party/mail-header.h"
#include "lib/party/mail-template.h"
#include "lib/party/mime.h"
#include "lib/party/sign-opts.h"
#include "shared/util.h"

struct ksp_reminder {
	int status;
	int number;
	const char *fpr;
	const char *email;
	const char *file;
	size_t missing;
	int mailer_status;
	char message[256];
};

KSP_EXPORT int ksp_reminder_get_status(const struct ksp_reminder *r)
{
	return r ? r->status : -EINVAL;
}

KSP_EXPORT int ksp_reminder_get_number(const struct ksp_reminder *r)
{
	return r ? r->number : 0;
}

KSP_EXPORT const char *ksp_reminder_get_fingerprint(const struct ksp_reminder *r)
{
	return r ? r->fpr : NULL;
}

KSP_EXPORT const char *ksp_reminder_get_email(const struct ksp_reminder *r)
{
	return r ? r->email : NULL;
}

KSP_EXPORT const char *ksp_reminder_get_file(const struct ksp_reminder *r)
{
	return r ? r->file : NULL;
}

KSP_EXPORT size_t ksp_reminder_get_missing(const struct ksp_reminder *r)
{
	return r ? r->missing : 0;
}

KSP_EXPORT const char *ksp_reminder_get_message(const struct ksp_reminder *r)
{
	return r ? r->message : NULL;
}

struct reminder_run {
	struct ksp_party *party;
	struct ksp_ctx *ctx;
	struct ksp_party_status *st;
	struct ksp_gpghome *home;
	gpgme_ctx_t g;
	const char *outbox;
	const char *mailer;
	char *tmpl, *tmpl_source;
	char *from, *from_name;
	void (*cb)(void *, const struct ksp_reminder *);
	void *cb_data;
	int failed;
};

/* The participant's key into the temporary home (self-signatures only). */
static int import_key(struct reminder_run *rr, const char *fpr, gpgme_key_t *ret)
{
	struct ksp_pgp_key *k = NULL;
	struct strbuf sb;
	gpgme_data_t d = NULL;
	int r;

	*ret = NULL;
	r = ksp_store_load_key(rr->party->store, fpr, false, NULL, &k);
	if (r <= 0)
		return r;
	strbuf_init(&sb);
	ksp_pgp_emit_primary(&sb, k);
	for (size_t u = 0; u < k->n_uids; u++) {
		if (k->uids[u].attribute)
			continue;
		ksp_pgp_emit(&sb, KSP_PGP_TAG_USER_ID, k->uids[u].data, k->uids[u].len);
		for (size_t i = 0; i < k->uids[u].n_sigs; i++)
			if (ksp_pgp_sig_is_self(k, &k->uids[u].sigs[i]))
				ksp_pgp_emit(&sb, KSP_PGP_TAG_SIGNATURE, k->uids[u].sigs[i].body, k->uids[u].sigs[i].body_len);
	}
	ksp_pgp_emit_subkeys(&sb, k);
	ksp_pgp_key_free(k);
	if (!strbuf_ok(&sb) || gpgme_data_new_from_mem(&d, sb.buf, sb.len, 0)) {
		strbuf_release(&sb);
		return -ENOMEM;
	}
	ksp_gpgme_import(rr->g, d);
	gpgme_data_release(d);
	strbuf_release(&sb);
	if (gpgme_get_key(rr->g, fpr, ret, 0) || *ret == NULL)
		return 0;
	return 1;
}

static int encrypt_to(struct reminder_run *rr, gpgme_key_t key, const char *plain, size_t len, struct strbuf *out)
{
	gpgme_key_t rcpt[2] = { key, NULL };
	gpgme_data_t in = NULL, c = NULL;
	gpgme_error_t e;
	char *mem;
	size_t n = 0;

	if (gpgme_data_new_from_mem(&in, plain, len, 0) || gpgme_data_new(&c)) {
		gpgme_data_release(in);
		return -ENOMEM;
	}
	gpgme_set_armor(rr->g, 1);
	e = gpgme_op_encrypt(rr->g, rcpt, GPGME_ENCRYPT_ALWAYS_TRUST, in, c);
	gpgme_data_release(in);
	if (e) {
		gpgme_data_release(c);
		ksp_set_error(rr->ctx, "gpg could not encrypt a reminder: %s", gpgme_strerror(e));
		return ksp_errno_from_gpgme(rr->ctx, e, "encrypt");
	}
	mem = gpgme_data_release_and_get_mem(c, &n);
	if (mem == NULL)
		return -ENOMEM;
	while (n && (mem[n - 1] == '\n' || mem[n - 1] == '\r'))
		n--;
	strbuf_add(out, mem, n);
	gpgme_free(mem);
	return strbuf_ok(out) ? 0 : -ENOMEM;
}

/* The user IDs of @target that @signer has not certified (status order). */
static size_t missing_uids(const struct ksp_party_status *st, size_t signer, size_t target)
{
	size_t n = 0;

	for (size_t u = 0; u < ksp_party_status_get_uid_count(st, target); u++)
		if (ksp_party_status_get_cert(st, signer, target, u) == KSP_CERT_MISSING)
			n++;
	return n;
}

/* One participant: render, encrypt, write, send. */
/* (Long: those four steps with their failures recorded per participant, one exit.) */
static int remind_one(struct reminder_run *rr, size_t i)
{
	const struct ksp_party_status *st = rr->st;
	size_t n = ksp_party_status_get_count(st), n_targets = 0, n_uid_items = 0, total = 0;
	struct ksp_reminder rem = { .number = ksp_party_status_get_number(st, i),
				    .fpr = ksp_party_status_get_fingerprint(st, i) };
	struct mt_var *targets = NULL, *uid_items = NULL;
	char **strings = NULL, *email = NULL, *name = NULL, groups[96], count[24];
	size_t n_strings = 0;
	struct strbuf subject, body, inner, eml, path;
	gpgme_key_t key = NULL;
	int r = 0;

	for (size_t j = 0; j < n; j++) {
		size_t m = j == i ? 0 : missing_uids(st, i, j);
		if (m) {
			n_targets++;
			n_uid_items += m;
			total += m;
		}
	}
	if (total == 0)
		return 0;
	strbuf_init(&subject);
	strbuf_init(&body);
	strbuf_init(&inner);
	strbuf_init(&eml);
	strbuf_init(&path);
	rem.missing = total;
	if (ksp_party_status_get_uid_count(st, i) > 0) {
		size_t len;
		const char *uid = ksp_party_status_get_uid(st, i, 0, &len);
		r = ksp_uid_writable_address(uid, len, &email);
		if (r == 0)
			r = ksp_uid_display_name(uid, len, &name);
		if (r < 0)
			goto out;
	}
	rem.email = email;
	if (email == NULL) {
		rem.status = KSP_REMIND_NO_ADDRESS;
		snprintf(rem.message, sizeof(rem.message), "not reminded: no user ID with an address");
		goto report;
	}
	r = import_key(rr, rem.fpr, &key);
	if (r < 0)
		goto out;
	if (r == 0 || !key->can_encrypt || key->revoked || key->expired) {
		rem.status = KSP_REMIND_NO_ENCRYPTION;
		snprintf(rem.message, sizeof(rem.message), "not reminded: the key has no usable encryption subkey (never sent unencrypted)");
		r = 0;
		goto report;
	}
	targets = calloc(3 * n_targets + 1, sizeof(*targets));
	uid_items = calloc(n_uid_items + 1, sizeof(*uid_items));
	strings = calloc(3 * n_targets + n_uid_items + 1, sizeof(*strings));
	if (targets == NULL || uid_items == NULL || strings == NULL) {
		r = -ENOMEM;
		goto out;
	}
	size_t t = 0, ui = 0;
	for (size_t j = 0; j < n; j++) {
		size_t m = j == i ? 0 : missing_uids(st, i, j), first = ui;
		char g[96];
		if (m == 0)
			continue;
		for (size_t u = 0; u < ksp_party_status_get_uid_count(st, j); u++) {
			size_t len;
			const char *uid;
			if (ksp_party_status_get_cert(st, i, j, u) != KSP_CERT_MISSING)
				continue;
			uid = ksp_party_status_get_uid(st, j, u, &len);
			if ((strings[n_strings] = strndup(uid, len)) == NULL) {
				r = -ENOMEM;
				goto out;
			}
			uid_items[ui++] = (struct mt_var){ .name = "uid", .text = strings[n_strings++] };
		}
		fpr_groups(ksp_party_status_get_fingerprint(st, j), g, sizeof(g));
		if ((strings[n_strings] = strdup(g)) == NULL ||
		    asprintf(&strings[n_strings + 1], "%d", ksp_party_status_get_number(st, j)) < 0) {
			r = -ENOMEM;
			goto out;
		}
		targets[3 * t] = (struct mt_var){ .name = "number", .text = strings[n_strings + 1] };
		targets[3 * t + 1] = (struct mt_var){ .name = "fingerprint", .text = strings[n_strings] };
		targets[3 * t + 2] = (struct mt_var){ .name = "uids", .items = uid_items + first, .n_items = ui - first,
						      .n_fields = 1, .is_list = true };
		n_strings += 2;
		t++;
	}
	fpr_groups(rem.fpr, groups, sizeof(groups));
	snprintf(count, sizeof(count), "%zu", total);
	char own[16];
	snprintf(own, sizeof(own), "%d", rem.number);
	const struct mt_var vars[] = {
		{ .name = "party.name", .text = ksp_party_get_name(rr->party) },
		{ .name = "party.date", .text = ksp_party_get_date(rr->party) },
		{ .name = "name", .text = name ? name : "" },
		{ .name = "to", .text = email },
		{ .name = "fingerprint", .text = groups },
		{ .name = "number", .text = own },
		{ .name = "missing", .items = targets, .n_items = t, .n_fields = 3, .is_list = true },
		{ .name = "missing.count", .text = count },
		{ .name = "sender.name", .text = rr->from_name ? rr->from_name : "" },
		{ .name = "sender.address", .text = rr->from ? rr->from : "" },
	};
	r = ksp_mail_template_render(rr->ctx, rr->tmpl_source, rr->tmpl, strlen(rr->tmpl), vars,
				     sizeof(vars) / sizeof(vars[0]), &subject, &body);
	if (r < 0)
		goto out;
	strbuf_addstr(&inner, "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n");
	strbuf_addstr(&inner, strbuf_str(&body));
	struct strbuf cipher;
	strbuf_init(&cipher);
	r = strbuf_ok(&inner) ? encrypt_to(rr, key, inner.buf, inner.len, &cipher) : -ENOMEM;
	if (r < 0) {
		strbuf_release(&cipher);
		goto out;
	}
	const struct ksp_mail_head h = {
		.from = rr->from,
		.from_name = rr->from_name,
		.to = email,
		.subject = strbuf_str(&subject),
		.date = (int64_t)time(NULL),
	};
	ksp_mail_head_write(&eml, &h);
	ksp_mail_pgp_encrypted(&eml, strbuf_str(&cipher));
	strbuf_release(&cipher);
	strbuf_addf(&path, "%s/remind-%s.eml", rr->outbox, rem.fpr);
	if (!strbuf_ok(&eml) || !strbuf_ok(&path)) {
		r = -ENOMEM;
		goto out;
	}
	struct atomic_file af;
	r = atomic_file_begin(&af, path.buf, 0600);
	if (r == 0)
		r = atomic_file_end(&af, write_all(af.fd, eml.buf, eml.len));
	if (r < 0) {
		ksp_set_error(rr->ctx, "%s: cannot write: %s; check the outbox directory and run again", path.buf,
			      strerror(-r));
		goto out;
	}
	rem.file = path.buf;
	rem.status = KSP_REMIND_WRITTEN;
	snprintf(rem.message, sizeof(rem.message), "written");
	if (rr->mailer) {
		int s = ksp_party_run_mailer(rr->mailer, path.buf, rem.message, sizeof(rem.message));
		rem.mailer_status = s;
		if (s == 0) {
			rem.status = KSP_REMIND_SENT;
			snprintf(rem.message, sizeof(rem.message), "handed to the mailer");
		} else {
			rem.status = KSP_REMIND_FAILED;
			if (s > 0)
				snprintf(rem.message, sizeof(rem.message), "the mailer exited with status %d; not sent", s);
			rr->failed++;
		}
	}
report:
	if (rr->cb)
		rr->cb(rr->cb_data, &rem);
out:
	for (size_t k = 0; strings && k < n_strings; k++)
		free(strings[k]);
	free(strings);
	free(targets);
	free(uid_items);
	free(email);
	free(name);
	if (key)
		gpgme_key_unref(key);
	strbuf_release(&subject);
	strbuf_release(&body);
	strbuf_release(&inner);
	strbuf_release(&eml);
	strbuf_release(&path);
	return r;
}

KSP_EXPORT int ksp_party_remind(struct ksp_party *party, const char *sender_fpr, const char *template_name,
				const char *outbox, const char *mailer,
				void (*cb)(void *cb_data, const struct ksp_reminder *r), void *cb_data)
{
	struct reminder_run rr = { .party = party, .outbox = outbox ? outbox : "ksp-reminders", .mailer = mailer,
				   .cb = cb, .cb_data = cb_data };
	char sender[65] = "";
	struct stat sb;
	int r;

	if (party == NULL)
		return -EINVAL;
	rr.ctx = party->ctx;
	ksp_clear_error(rr.ctx);
	if (sender_fpr && fpr_normalize(sender_fpr, sender) < 0) {
		ksp_set_error(rr.ctx, "'%s' is not a full fingerprint (40 or 64 hex digits); give --as your key's", sender_fpr);
		return -EINVAL;
	}
	r = ksp_mail_template_load(rr.ctx, "remind", template_name ? template_name : "en", &rr.tmpl, &rr.tmpl_source);
	if (r < 0)
		return r;
	r = ksp_party_status_new(party, 0, &rr.st);
	if (r < 0)
		goto out;
	/* the sender's address and name, from the list */
	for (size_t i = 0; sender[0] && i < ksp_party_status_get_count(rr.st); i++) {
		size_t len;
		const char *uid;
		if (strcmp(ksp_party_status_get_fingerprint(rr.st, i), sender) != 0 ||
		    ksp_party_status_get_uid_count(rr.st, i) == 0)
			continue;
		uid = ksp_party_status_get_uid(rr.st, i, 0, &len);
		r = ksp_uid_writable_address(uid, len, &rr.from);
		if (r == 0)
			r = ksp_uid_display_name(uid, len, &rr.from_name);
		if (r < 0)
			goto out;
	}
	if (sender[0] && rr.from == NULL) {
		ksp_set_error(rr.ctx, "%s is not a participant with an address; give --as your own key on the list, or no --as",
			      sender);
		r = -ENOKEY;
		goto out;
	}
	if (stat(rr.outbox, &sb) < 0) {
		if (mkdir(rr.outbox, 0700) < 0) {
			r = -errno;
			ksp_set_error(rr.ctx, "%s: cannot create the outbox: %s; give --outbox DIR", rr.outbox, strerror(-r));
			goto out;
		}
	} else if (!S_ISDIR(sb.st_mode)) {
		ksp_set_error(rr.ctx, "%s: not a directory; give --outbox DIR", rr.outbox);
		r = -ENOTDIR;
		goto out;
	}
	r = ksp_gpghome_new(rr.ctx, &rr.home);
	if (r == 0)
		r = ksp_after_gpgme_new(rr.ctx, ksp_gpghome_path(rr.home), true, &rr.g);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < ksp_party_status_get_count(rr.st); i++) {
		r = remind_one(&rr, i);
		if (r < 0)
			goto out;
	}
	r = rr.failed;
out:
	if (rr.g)
		gpgme_release(rr.g);
	ksp_gpghome_free(rr.home);
	ksp_party_status_free(rr.st);
	free(rr.tmpl);
	free(rr.tmpl_source);
	free(rr.from);
	free(rr.from_name);
	return r;
}
