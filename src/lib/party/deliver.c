// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The delivery ledger (store/schema-4.sql): each message 'party sign' wrote, and
 * whether a mailer took it.  ksp_party_send() hands what is written or
 * failed to the mailer (or an SMTP server, smtp.c), one message at a time,
 * and records each outcome in its own transaction as soon as the mailer
 * has exited or the server answered, so that an interruption loses at
 * most the outcome of the message being sent: that one message is sent
 * again by the next run (its recipient may get it twice; the ksp-party-sign(1)
 * page says so).  It never signs anything: what was certified stays
 * certified once.  "sent" means handed to the mailer, or accepted by the
 * SMTP server: never "delivered".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/party/party-private.h"
#include "lib/party/smtp.h"
#include "shared/util.h"

struct ksp_delivery {
	int64_t id;
	char signer[65];
	char fpr[65];
	int number;
	char *uid;
	size_t uid_len;
	char *file;
	int state;
	int attempts;
	int mailer_status;
	char message[256];
	char detail[256]; /* the ledger's word on the last attempt */
};

static int state_of(const char *s)
{
	if (s == NULL || strcmp(s, "written") == 0)
		return KSP_DELIVERY_WRITTEN;
	if (strcmp(s, "sent") == 0)
		return KSP_DELIVERY_SENT;
	if (strcmp(s, "failed") == 0)
		return KSP_DELIVERY_FAILED;
	return KSP_DELIVERY_UNKNOWN;
}

KSP_EXPORT const char *ksp_delivery_state_name(int state)
{
	switch (state) {
	case KSP_DELIVERY_WRITTEN: return "written";
	case KSP_DELIVERY_SENT: return "sent";
	case KSP_DELIVERY_FAILED: return "failed";
	case KSP_DELIVERY_UNKNOWN: return "unknown";
	default: return NULL;
	}
}

/* Run @mailer (sh -c) with @file on its standard input; its standard
 * output goes to standard error.  Returns its exit status (128+N for
 * signal N), or -errno when it could not run (message in @why). */
int ksp_party_run_mailer(const char *mailer, const char *file, char *why, size_t whylen)
{
	int fd, st, err;
	pid_t pid;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		snprintf(why, whylen, "cannot read the message: %s", strerror(err));
		return -err;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(fd);
		snprintf(why, whylen, "cannot run the mailer: %s", strerror(err));
		return -err;
	}
	if (pid == 0) {
		/* the child: only async-signal-safe calls */
		if (dup2(fd, 0) < 0 || dup2(2, 1) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", mailer, (char *)NULL);
		_exit(127);
	}
	close(fd);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			err = errno;
			snprintf(why, whylen, "lost the mailer: %s", strerror(err));
			return -err;
		}
	}
	if (WIFSIGNALED(st)) {
		snprintf(why, whylen, "the mailer was killed by signal %d", WTERMSIG(st));
		return 128 + WTERMSIG(st);
	}
	if (WEXITSTATUS(st) != 0)
		snprintf(why, whylen, "the mailer exited with status %d", WEXITSTATUS(st));
	return WEXITSTATUS(st);
}

static int record(struct ksp_party *party, struct ksp_delivery *d, const char *mailer, const char *detail)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *st;
	int r, rc;

	r = ksp_store_begin(party->store);
	if (r < 0)
		return r;
	rc = sqlite3_prepare_v2(db, "UPDATE deliveries SET state = ?2, attempts = attempts + 1, last_attempt = ?3, "
				    "mailer = ?4, mailer_status = ?5, detail = ?6 WHERE id = ?1", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, d->id);
		sqlite3_bind_text(st, 2, ksp_delivery_state_name(d->state), -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL));
		sqlite3_bind_text(st, 4, mailer, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 5, d->mailer_status);
		if (detail)
			sqlite3_bind_text(st, 6, detail, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "record delivery");
		ksp_store_rollback(party->store);
		return r;
	}
	return ksp_store_commit(party->store);
}

static void delivery_clear(struct ksp_delivery *d)
{
	free(d->uid);
	free(d->file);
}

struct ksp_send_opts {
	struct ksp_ctx *ctx;
	char *mailer;
	char *smtp_url;
	char *password;
	char **again;
	size_t n_again;
};

KSP_EXPORT int ksp_send_opts_new(struct ksp_ctx *ctx, struct ksp_send_opts **ret)
{
	struct ksp_send_opts *o;

	if (ctx == NULL || ret == NULL)
		return -EINVAL;
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return -ENOMEM;
	o->ctx = ctx;
	*ret = o;
	return 0;
}

KSP_EXPORT void ksp_send_opts_free(struct ksp_send_opts *o)
{
	if (o == NULL)
		return;
	for (size_t i = 0; i < o->n_again; i++)
		free(o->again[i]);
	free(o->again);
	free(o->mailer);
	free(o->smtp_url);
	if (o->password) {
		explicit_bzero(o->password, strlen(o->password));
		free(o->password);
	}
	free(o);
}

static int set_str(char **dst, const char *v)
{
	char *c = v ? strdup(v) : NULL;
	if (v && c == NULL)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

KSP_EXPORT int ksp_send_opts_set_mailer(struct ksp_send_opts *o, const char *mailer)
{
	return o ? set_str(&o->mailer, mailer) : -EINVAL;
}

KSP_EXPORT int ksp_send_opts_set_smtp(struct ksp_send_opts *o, const char *url, const char *password)
{
	int r;

	if (o == NULL)
		return -EINVAL;
	r = set_str(&o->smtp_url, url);
	if (r == 0) {
		if (o->password)
			explicit_bzero(o->password, strlen(o->password));
		r = set_str(&o->password, password);
	}
	return r;
}

KSP_EXPORT int ksp_send_opts_add_again(struct ksp_send_opts *o, const char *what)
{
	char **nv;

	if (o == NULL || what == NULL || what[0] == '\0')
		return -EINVAL;
	nv = realloc(o->again, (o->n_again + 1) * sizeof(*nv));
	if (nv == NULL)
		return -ENOMEM;
	o->again = nv;
	o->again[o->n_again] = strdup(what);
	if (o->again[o->n_again] == NULL)
		return -ENOMEM;
	o->n_again++;
	return 0;
}

/* @d's message file: as recorded when absolute (or when it is there from
 * here); a relative name of an older ledger also tried beside the store. */
static char *message_path(struct ksp_party *party, const char *file)
{
	const char *db = ksp_store_get_path(party->store), *slash;
	char *p = NULL;

	if (file[0] == '/' || access(file, F_OK) == 0 || db == NULL || (slash = strrchr(db, '/')) == NULL)
		return strdup(file);
	if (asprintf(&p, "%.*s/%s", (int)(slash - db), db, file) < 0)
		return NULL;
	if (access(p, F_OK) == 0)
		return p;
	free(p);
	return strdup(file);
}

/* Does --again @what (a list number, a fingerprint, or a message file)
 * name @d? */
static bool again_matches(const struct ksp_delivery *d, const char *what)
{
	char fpr[65], *end;
	const char *w = what[0] == '#' ? what + 1 : what, *b;
	long n = strtol(w, &end, 10);

	if (*w && *end == '\0')
		return n > 0 && n == d->number;
	if (fpr_normalize(what, fpr) == 0)
		return strcmp(fpr, d->fpr) == 0;
	if (strcmp(what, d->file) == 0)
		return true;
	b = strrchr(d->file, '/');
	if (strchr(what, '/') == NULL && b && strcmp(b + 1, what) == 0)
		return true;
	char *rw = realpath(what, NULL), *rd = realpath(d->file, NULL);
	bool same = rw && rd && strcmp(rw, rd) == 0;
	free(rw);
	free(rd);
	return same;
}

/* Hands @d to the mailer or the SMTP server; its outcome into @d. */
/* In a program linked with libksp.a and the SMTP module's objects, its
 * table; 0 in libksp.so.1, which loads ksp-smtp.so (lib/module.h). */
extern const struct ksp_smtp_module ksp_smtp_module __attribute__((weak, visibility("hidden")));

static const struct ksp_smtp_module *smtp_load(struct ksp_ctx *ctx)
{
	return ksp_module_load(ctx, &ksp_smtp_module != NULL ? &ksp_smtp_module.head : NULL, KSP_SMTP_MODULE,
			       "ksp_smtp_module", KSP_SMTP_ABI, "the SMTP module (party send --smtp)");
}

static int hand_over(struct ksp_party *party, const struct ksp_send_opts *o, const struct ksp_smtp_module *sm,
		     struct ksp_smtp *smtp, struct ksp_delivery *d)
{
	char *path = message_path(party, d->file);
	int s;

	if (path == NULL)
		return -ENOMEM;
	if (smtp) {
		uint8_t *data = NULL;
		size_t len = 0;
		s = read_file_all(path, 64u << 20, &data, &len);
		if (s < 0) {
			snprintf(d->message, sizeof(d->message), "cannot read the message: %s", strerror(-s));
		} else {
			s = sm->send(smtp, data, len, d->message, sizeof(d->message));
			free(data);
			if (s == -ENOMEM) {
				free(path);
				return s;
			}
		}
		d->mailer_status = s < 0 ? -1 : s;
	} else {
		s = ksp_party_run_mailer(o->mailer, path, d->message, sizeof(d->message));
		d->mailer_status = s < 0 ? -1 : s;
		if (s == 0)
			snprintf(d->message, sizeof(d->message), "handed to the mailer");
	}
	free(path);
	d->state = s == 0 ? KSP_DELIVERY_SENT : KSP_DELIVERY_FAILED;
	return 0;
}

/* read the ledger first: no statement open while the mailer runs */
static int read_ledger(struct ksp_party *party, const char *signer, struct ksp_delivery **ret, size_t *ret_n)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *st = NULL;
	struct ksp_delivery *v = NULL;
	size_t n = 0;
	int r = 0, rc;

	rc = sqlite3_prepare_v2(db,
		"SELECT d.id, s.signer_fpr, k.fpr, coalesce(p.ord, 0), s.uid, d.message_file, d.state, d.attempts, "
		"coalesce(d.mailer_status, 0), coalesce(d.detail, '') FROM deliveries d JOIN signed s ON s.id = d.signed_id "
		"JOIN keys k ON k.id = s.key_id LEFT JOIN participants p ON p.key_id = k.id "
		"WHERE (?1 IS NULL OR s.signer_fpr = ?1) ORDER BY d.id", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(party->ctx, db, rc, "deliveries");
	if (signer[0])
		sqlite3_bind_text(st, 1, signer, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ksp_delivery *nv = realloc(v, (n + 1) * sizeof(*nv)), *d;
		if (nv == NULL) {
			r = -ENOMEM;
			break;
		}
		v = nv;
		d = &v[n++];
		memset(d, 0, sizeof(*d));
		d->id = sqlite3_column_int64(st, 0);
		snprintf(d->signer, sizeof(d->signer), "%s", (const char *)sqlite3_column_text(st, 1));
		snprintf(d->fpr, sizeof(d->fpr), "%s", (const char *)sqlite3_column_text(st, 2));
		d->number = sqlite3_column_int(st, 3);
		d->uid_len = (size_t)sqlite3_column_bytes(st, 4);
		d->uid = malloc(d->uid_len + 1);
		d->file = strdup(sqlite3_column_text(st, 5) ? (const char *)sqlite3_column_text(st, 5) : "");
		if (d->uid == NULL || d->file == NULL) {
			r = -ENOMEM;
			break;
		}
		if (d->uid_len)
			memcpy(d->uid, sqlite3_column_blob(st, 4), d->uid_len);
		d->uid[d->uid_len] = '\0';
		d->state = state_of((const char *)sqlite3_column_text(st, 6));
		d->attempts = sqlite3_column_int(st, 7);
		d->mailer_status = sqlite3_column_int(st, 8);
		snprintf(d->detail, sizeof(d->detail), "%s", (const char *)sqlite3_column_text(st, 9));
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "deliveries");
	sqlite3_finalize(st);
	*ret = v;
	*ret_n = n;
	return r;
}

static void describe_undue(struct ksp_delivery *d)
{
	if (d->message[0])
		return;
	if (d->state == KSP_DELIVERY_SENT)
		snprintf(d->message, sizeof(d->message), "sent before (%.200s)", d->detail[0] ? d->detail : "handed to the mailer");
	else if (d->state == KSP_DELIVERY_UNKNOWN)
		snprintf(d->message, sizeof(d->message), "signed before the delivery ledger: not known whether it was mailed; "
			 "not sent again ('party send --again' sends it)");
	else if (d->state == KSP_DELIVERY_FAILED)
		snprintf(d->message, sizeof(d->message), "not sent yet: %.200s", d->detail[0] ? d->detail : "the mailer failed");
	else
		snprintf(d->message, sizeof(d->message), "not sent yet");
}

/* This function's length is its one loop over the ledger with the three
 * ways out of it (an --again that names nothing, a store that cannot
 * record, the end). */
KSP_EXPORT int ksp_party_send_opts(struct ksp_party *party, const char *signer_fpr, const struct ksp_send_opts *o,
				   unsigned int flags,
				   void (*cb)(void *cb_data, const struct ksp_delivery *d), void *cb_data)
{
	struct ksp_delivery *v = NULL;
	const struct ksp_smtp_module *sm = NULL;
	struct ksp_smtp *smtp = NULL;
	char signer[65] = "";
	bool *hit = NULL;
	size_t n = 0;
	int r = 0, pending = 0;

	if (party == NULL || o == NULL || (o->mailer == NULL && o->smtp_url == NULL && !(flags & KSP_SEND_DRY_RUN)))
		return -EINVAL;
	ksp_clear_error(party->ctx);
	if (signer_fpr && fpr_normalize(signer_fpr, signer) < 0) {
		ksp_set_error(party->ctx, "'%s' is not a full fingerprint (40 or 64 hex digits)", signer_fpr);
		return -EINVAL;
	}
	if (o->smtp_url && !(flags & KSP_SEND_DRY_RUN)) {
		sm = smtp_load(party->ctx);
		if (sm == NULL)
			return -ELIBACC;
		r = sm->open(party->ctx, ksp_set_error, o->smtp_url, o->password, &smtp);
		if (r < 0)
			return r;
	}
	r = read_ledger(party, signer, &v, &n);
	if (r < 0)
		goto out;
	hit = calloc(o->n_again + 1, sizeof(*hit));
	if (hit == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t a = 0; a < o->n_again; a++)
		for (size_t i = 0; i < n; i++)
			hit[a] |= again_matches(&v[i], o->again[a]);
	for (size_t a = 0; a < o->n_again; a++) {
		if (!hit[a]) {
			ksp_set_error(party->ctx, "%s: no message in the delivery ledger is for '%s' (give a number on the list, a fingerprint, or a message file; 'ksp party send --list' lists them); nothing was sent",
				      ksp_store_get_path(party->store), o->again[a]);
			r = -ENOENT;
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct ksp_delivery *d = &v[i];
		bool due = d->state == KSP_DELIVERY_WRITTEN || d->state == KSP_DELIVERY_FAILED;

		if (o->n_again) {
			due = false;
			for (size_t a = 0; a < o->n_again && !due; a++)
				due = again_matches(d, o->again[a]);
		}
		if (due && !(flags & KSP_SEND_DRY_RUN)) {
			r = hand_over(party, o, sm, smtp, d);
			if (r == 0)
				r = record(party, d, smtp ? o->smtp_url : o->mailer, d->message);
			if (r < 0) {
				if (!ksp_get_error(party->ctx))
					ksp_set_error(party->ctx, "%s: cannot record the delivery of %s: %s; "
						      "it may be sent again by the next 'party send'",
						      ksp_store_get_path(party->store), d->file, strerror(-r));
				goto out;
			}
			d->attempts++;
		} else {
			describe_undue(d);
		}
		if (d->state == KSP_DELIVERY_WRITTEN || d->state == KSP_DELIVERY_FAILED)
			pending++;
		if (cb && (due || (flags & KSP_SEND_ALL_RESULTS)))
			cb(cb_data, d);
	}
	r = pending;
out:
	if (smtp)
		sm->close(smtp);
	free(hit);
	for (size_t i = 0; i < n; i++)
		delivery_clear(&v[i]);
	free(v);
	return r;
}

KSP_EXPORT int ksp_party_send(struct ksp_party *party, const char *signer_fpr, const char *mailer,
			      unsigned int flags,
			      void (*cb)(void *cb_data, const struct ksp_delivery *d), void *cb_data)
{
	struct ksp_send_opts o = { .ctx = party ? party->ctx : NULL, .mailer = (char *)mailer };

	if (party == NULL || (mailer == NULL && !(flags & KSP_SEND_DRY_RUN)))
		return -EINVAL;
	return ksp_party_send_opts(party, signer_fpr, &o, flags, cb, cb_data);
}

KSP_EXPORT int ksp_delivery_get_state(const struct ksp_delivery *d)
{
	return d ? d->state : -EINVAL;
}

KSP_EXPORT const char *ksp_delivery_get_signer(const struct ksp_delivery *d)
{
	return d ? d->signer : NULL;
}

KSP_EXPORT const char *ksp_delivery_get_fingerprint(const struct ksp_delivery *d)
{
	return d ? d->fpr : NULL;
}

KSP_EXPORT int ksp_delivery_get_number(const struct ksp_delivery *d)
{
	return d ? d->number : 0;
}

KSP_EXPORT const char *ksp_delivery_get_uid(const struct ksp_delivery *d, size_t *len)
{
	if (d == NULL)
		return NULL;
	if (len)
		*len = d->uid_len;
	return d->uid;
}

KSP_EXPORT const char *ksp_delivery_get_file(const struct ksp_delivery *d)
{
	return d ? d->file : NULL;
}

KSP_EXPORT int ksp_delivery_get_attempts(const struct ksp_delivery *d)
{
	return d ? d->attempts : 0;
}

KSP_EXPORT int ksp_delivery_get_mailer_status(const struct ksp_delivery *d)
{
	return d ? d->mailer_status : 0;
}

KSP_EXPORT const char *ksp_delivery_get_message(const struct ksp_delivery *d)
{
	return d ? d->message : NULL;
}
