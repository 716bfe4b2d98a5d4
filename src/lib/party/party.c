// SPDX-License-Identifier: LGPL-2.1-or-later
/* The party: one per store; the participant list, closing and reopening. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gcrypt.h>
#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/party/party.h"
#include "lib/party/party-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"

/* A copy of column @i into *@ret (NULL for SQL NULL); -ENOMEM when the
 * copy fails, so that a failed strdup() is not taken for a NULL column. */
static int dup_col(sqlite3_stmt *st, int i, char **ret)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	*ret = NULL;
	if (t == NULL)
		return sqlite3_errcode(sqlite3_db_handle(st)) == SQLITE_NOMEM ? -ENOMEM : 0;
	*ret = strdup((const char *)t);
	return *ret ? 0 : -ENOMEM;
}

int ksp_party_reload(struct ksp_party *party)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db, "SELECT name, date, location, organizer, state, "
				    "(SELECT coalesce(max(version), 0) FROM list_versions) FROM party WHERE id = 1",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(party->ctx, db, rc, "read party");
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc == SQLITE_DONE)
			return -ENOENT;
		return ksp_errno_from_sqlite(party->ctx, db, rc, "read party");
	}
	/* read into new strings first: on failure the party keeps what it had */
	char *name = NULL, *date = NULL, *location = NULL, *organizer = NULL;
	int r = dup_col(st, 0, &name);
	if (r == 0)
		r = dup_col(st, 1, &date);
	if (r == 0)
		r = dup_col(st, 2, &location);
	if (r == 0)
		r = dup_col(st, 3, &organizer);
	if (r == 0 && (name == NULL || date == NULL))
		r = -EBADMSG; /* NOT NULL columns */
	if (r < 0) {
		sqlite3_finalize(st);
		free(name);
		free(date);
		free(location);
		free(organizer);
		return r;
	}
	free(party->name);
	free(party->date);
	free(party->location);
	free(party->organizer);
	party->name = name;
	party->date = date;
	party->location = location;
	party->organizer = organizer;
	party->closed = sqlite3_column_text(st, 4) &&
			strcmp((const char *)sqlite3_column_text(st, 4), "closed") == 0;
	party->list_version = sqlite3_column_int(st, 5);
	sqlite3_finalize(st);
	if (parse_date(party->date, &party->date_t) < 0)
		party->date_t = 0;
	return 0;
}

static int party_new(struct ksp_store *store, struct ksp_party **ret)
{
	struct ksp_party *party = calloc(1, sizeof(*party));
	int r;

	if (party == NULL)
		return -ENOMEM;
	party->refcount = 1;
	party->store = ksp_store_ref(store);
	party->ctx = ksp_store_get_ctx(store);
	r = ksp_party_reload(party);
	if (r < 0) {
		if (r == -ENOENT)
			ksp_set_error(party->ctx, "%s: no party in this store; start one with 'ksp party init --name NAME --date YYYY-MM-DD'",
				      ksp_store_get_path(store));
		ksp_party_unref(party);
		return r;
	}
	*ret = party;
	return 0;
}

int ksp_party_event(struct ksp_party *party, const char *what, const char *detail)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db, "INSERT INTO events(time, what, detail) VALUES (?, ?, ?)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(party->ctx, db, rc, "event");
	sqlite3_bind_int64(st, 1, (sqlite3_int64)time(NULL));
	sqlite3_bind_text(st, 2, what, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, detail, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ksp_errno_from_sqlite(party->ctx, db, rc, "event");
	return 0;
}

KSP_EXPORT int ksp_party_create(struct ksp_store *store, const char *name, const char *date,
				const char *location, const char *organizer_fpr,
				struct ksp_party **ret)
{
	struct ksp_ctx *ctx;
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	char org[65];
	int64_t t;
	int rc, r;

	if (store == NULL || name == NULL || date == NULL || ret == NULL)
		return -EINVAL;
	ctx = ksp_store_get_ctx(store);
	ksp_clear_error(ctx);
	if (*name == '\0') {
		ksp_set_error(ctx, "the party needs a name: --name NAME");
		return -EINVAL;
	}
	if (parse_date(date, &t) < 0 || strlen(date) != 10) {
		ksp_set_error(ctx, "'%s' is not a date; give the party date as YYYY-MM-DD", date);
		return -EINVAL;
	}
	if (organizer_fpr && fpr_normalize(organizer_fpr, org) < 0) {
		ksp_set_error(ctx, "'%s' is not a full fingerprint (40 or 64 hex digits); give the organizer's whole fingerprint", organizer_fpr);
		return -EINVAL;
	}
	db = ksp_store_db(store);
	r = ksp_store_begin(store);
	if (r < 0)
		return r;
	rc = sqlite3_prepare_v2(db, "INSERT INTO party(id, name, date, location, organizer, created) "
				    "VALUES (1, ?, ?, ?, ?, ?)", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(ctx, db, rc, "create party");
		goto fail;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, date, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, location, -1, SQLITE_STATIC);
	if (organizer_fpr)
		sqlite3_bind_text(st, 4, org, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)time(NULL));
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(ctx, db, rc, "create party");
		if (r == -EEXIST)
			ksp_set_error(ctx, "%s: this store already holds a party; use another store with -d FILE",
				      ksp_store_get_path(store));
		goto fail;
	}
	struct ksp_party party0 = { .store = store, .ctx = ctx };
	r = ksp_party_event(&party0, "init", name);
	if (r < 0)
		goto fail;
	/* read it back before committing: a failure leaves no party behind */
	struct ksp_party *party = NULL;
	r = party_new(store, &party);
	if (r < 0)
		goto fail;
	r = ksp_store_commit(store);
	if (r < 0) {
		ksp_party_unref(party);
		return r;
	}
	*ret = party;
	return 0;
fail:
	ksp_store_rollback(store);
	return r;
}

KSP_EXPORT int ksp_party_open(struct ksp_store *store, struct ksp_party **ret)
{
	if (store == NULL || ret == NULL)
		return -EINVAL;
	ksp_clear_error(ksp_store_get_ctx(store));
	return party_new(store, ret);
}

KSP_EXPORT struct ksp_party *ksp_party_ref(struct ksp_party *party)
{
	if (party)
		party->refcount++;
	return party;
}

KSP_EXPORT struct ksp_party *ksp_party_unref(struct ksp_party *party)
{
	if (party == NULL || --party->refcount > 0)
		return NULL;
	free(party->name);
	free(party->date);
	free(party->location);
	free(party->organizer);
	free(party->keyserver);
	ksp_store_unref(party->store);
	free(party);
	return NULL;
}

struct ksp_ctx *ksp_party_ctx(const struct ksp_party *party)
{
	return party->ctx;
}

struct ksp_store *ksp_party_store(const struct ksp_party *party)
{
	return party->store;
}

KSP_EXPORT const char *ksp_party_get_name(const struct ksp_party *party)
{
	return party ? party->name : NULL;
}

KSP_EXPORT const char *ksp_party_get_date(const struct ksp_party *party)
{
	return party ? party->date : NULL;
}

KSP_EXPORT const char *ksp_party_get_location(const struct ksp_party *party)
{
	return party ? party->location : NULL;
}

KSP_EXPORT const char *ksp_party_get_organizer(const struct ksp_party *party)
{
	return party ? party->organizer : NULL;
}

KSP_EXPORT bool ksp_party_is_closed(const struct ksp_party *party)
{
	return party ? party->closed : false;
}

KSP_EXPORT int ksp_party_get_list_version(const struct ksp_party *party)
{
	return party ? party->list_version : -EINVAL;
}

int ksp_party_require_open(struct ksp_party *party)
{
	if (party->closed) {
		ksp_set_error(party->ctx, "%s: the list is closed (version %d); run 'ksp party reopen --reason TEXT' to admit latecomers",
			      ksp_store_get_path(party->store), party->list_version);
		return -EPERM;
	}
	return 0;
}

KSP_EXPORT int ksp_party_remove(struct ksp_party *party, const char *what)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char fpr[65], *end;
	long num = 0;
	int rc, r, changes;

	if (party == NULL || what == NULL)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	r = ksp_party_require_open(party);
	if (r < 0)
		return r;
	db = ksp_store_db(party->store);
	num = strtol(what, &end, 10);
	if (*what == '\0' || *end != '\0' || num <= 0) {
		num = 0;
		if (fpr_normalize(what, fpr) < 0) {
			ksp_set_error(party->ctx, "'%s' is neither a participant number nor a full fingerprint", what);
			return -EINVAL;
		}
	}
	r = ksp_store_begin(party->store);
	if (r < 0)
		return r;
	if (num > 0)
		rc = sqlite3_prepare_v2(db, "DELETE FROM participants WHERE ord = ?", -1, &st, NULL);
	else
		rc = sqlite3_prepare_v2(db, "DELETE FROM participants WHERE key_id = (SELECT id FROM keys WHERE fpr = ?)",
					-1, &st, NULL);
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "remove");
		goto fail;
	}
	if (num > 0)
		sqlite3_bind_int64(st, 1, num);
	else
		sqlite3_bind_text(st, 1, fpr, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "remove");
		goto fail;
	}
	changes = sqlite3_changes(db);
	if (changes == 0) {
		ksp_set_error(party->ctx, "%s: no participant %s on the list; see 'ksp party list'",
			      ksp_store_get_path(party->store), what);
		r = -ENOENT;
		goto fail;
	}
	r = ksp_party_event(party, "remove", what);
	if (r < 0)
		goto fail;
	return ksp_store_commit(party->store);
fail:
	ksp_store_rollback(party->store);
	return r;
}
