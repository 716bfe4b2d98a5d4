// SPDX-License-Identifier: LGPL-2.1-or-later
/* Attendance: who of the frozen list was not at the party.  Recorded in its
 * own table (schema 5) by fingerprint, beside the frozen list: the list
 * versions and their digests stay as announced.  Absent participants are
 * out of the status totals, the reminders and 'party sign --all-checked'. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/party/party-private.h"
#include "shared/util.h"

/* The member of the newest frozen list named by @what (a number or a full
 * fingerprint): its fingerprint into @fpr and number into *@number. */
static int frozen_member(struct ksp_party *party, const char *what, char fpr[65], int *number)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *st = NULL;
	char want[65], *end;
	long num;
	int rc, r;

	num = strtol(what, &end, 10);
	if (*what == '#')
		num = strtol(what + 1, &end, 10);
	if (*what != '\0' && *end == '\0' && num > 0) {
		rc = sqlite3_prepare_v2(db, "SELECT ord, fpr FROM list_members WHERE version = ? AND ord = ?", -1, &st, NULL);
		if (rc == SQLITE_OK)
			sqlite3_bind_int64(st, 2, num);
	} else {
		if (fpr_normalize(what, want) < 0) {
			ksp_set_error(party->ctx, "'%s' is neither a number on the list nor a full fingerprint (40 or 64 hex digits)", what);
			return -EINVAL;
		}
		rc = sqlite3_prepare_v2(db, "SELECT ord, fpr FROM list_members WHERE version = ? AND fpr = ?", -1, &st, NULL);
		if (rc == SQLITE_OK)
			sqlite3_bind_text(st, 2, want, -1, SQLITE_TRANSIENT);
	}
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(party->ctx, db, rc, "attendance");
	sqlite3_bind_int(st, 1, party->list_version);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*number = sqlite3_column_int(st, 0);
		snprintf(fpr, 65, "%s", (const char *)sqlite3_column_text(st, 1));
		r = 0;
	} else if (rc == SQLITE_DONE) {
		ksp_set_error(party->ctx, "%s: %s is not on the frozen list (version %d); see 'ksp party list'",
			      ksp_store_get_path(party->store), what, party->list_version);
		r = -ENOENT;
	} else {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "attendance");
	}
	sqlite3_finalize(st);
	return r;
}

KSP_EXPORT int ksp_party_set_absent(struct ksp_party *party, const char *what, bool absent, int *ret_number)
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	char fpr[65], detail[128];
	int number = 0, rc, r, was;

	if (party == NULL || what == NULL)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	r = ksp_party_reload(party);
	if (r < 0)
		return r;
	if (party->list_version <= 0) {
		ksp_set_error(party->ctx, "%s: the list was never frozen; attendance is taken of the frozen list: run 'ksp party close' first",
			      ksp_store_get_path(party->store));
		return -ENODATA;
	}
	r = frozen_member(party, what, fpr, &number);
	if (r < 0)
		return r;
	if (ret_number)
		*ret_number = number;
	r = ksp_party_is_absent(party, fpr);
	if (r < 0)
		return r;
	was = r;
	if (was == (absent ? 1 : 0))
		return 0;
	db = ksp_store_db(party->store);
	r = ksp_store_begin(party->store);
	if (r < 0)
		return r;
	if (absent)
		rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO attendance(fpr, absent, time) VALUES (?, 1, ?)", -1, &st, NULL);
	else
		rc = sqlite3_prepare_v2(db, "DELETE FROM attendance WHERE fpr = ?", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "attendance");
		goto fail;
	}
	sqlite3_bind_text(st, 1, fpr, -1, SQLITE_STATIC);
	if (absent)
		sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "attendance");
		goto fail;
	}
	snprintf(detail, sizeof(detail), "#%d %s", number, fpr);
	r = ksp_party_event(party, absent ? "absent" : "present", detail);
	if (r < 0)
		goto fail;
	r = ksp_store_commit(party->store);
	return r < 0 ? r : 1;
fail:
	ksp_store_rollback(party->store);
	return r;
}

KSP_EXPORT int ksp_party_is_absent(struct ksp_party *party, const char *fpr)
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	char want[65];
	int rc, r;

	if (party == NULL || fpr == NULL || fpr_normalize(fpr, want) < 0)
		return -EINVAL;
	db = ksp_store_db(party->store);
	rc = sqlite3_prepare_v2(db, "SELECT absent FROM attendance WHERE fpr = ?", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(party->ctx, db, rc, "attendance");
	sqlite3_bind_text(st, 1, want, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		r = sqlite3_column_int(st, 0) != 0;
	else if (rc == SQLITE_DONE)
		r = 0;
	else
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "attendance");
	sqlite3_finalize(st);
	return r;
}
