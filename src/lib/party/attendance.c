// SPDX-License-Identifier: LGPL-2.1-or-later
/* Attendance: who of the frozen list was not at the party.  Recorded in its
 * own table (schema 5) by fingerprint, beside the frozen list: the list
 * versions and their digests stay as announced.  Absent participants are
 * out of the status totals, the reminders and 'party sign --all-checked'. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/party/party-private.h"
#include "shared/strbuf.h"
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

/* Attendance is taken of the frozen list: the party read again, and a list
 * never frozen refused with one line (@then: what to run, or ""). */
static int frozen_list(struct ksp_party *party, const char *then)
{
	int r;

	ksp_clear_error(party->ctx);
	r = ksp_party_reload(party);
	if (r < 0)
		return r;
	if (party->list_version <= 0) {
		ksp_set_error(party->ctx, "%s: the list was never frozen; attendance is taken of the frozen list%s",
			      ksp_store_get_path(party->store), then);
		return -ENODATA;
	}
	return 0;
}

KSP_EXPORT int ksp_party_set_absent(struct ksp_party *party, const char *what, bool absent, int *ret_number)
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	char fpr[65], detail[128];
	int number = 0, rc, r, was;

	if (party == NULL || what == NULL)
		return -EINVAL;
	r = frozen_list(party, ": run 'ksp party close' first");
	if (r < 0)
		return r;
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

/* Attendance is taken once anyone was recorded absent or present again,
 * or 'party absent --none' said that nobody was missing, or an
 * organizer's attendance statement was read ('party join --attendance'). */
KSP_EXPORT int ksp_party_attendance_taken(struct ksp_party *party)
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	int rc, r;

	if (party == NULL)
		return -EINVAL;
	db = ksp_store_db(party->store);
	rc = sqlite3_prepare_v2(db, "SELECT EXISTS (SELECT 1 FROM attendance) OR EXISTS (SELECT 1 FROM events "
				    "WHERE what IN ('absent', 'present', 'attendance'))", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(party->ctx, db, rc, "attendance");
	rc = sqlite3_step(st);
	r = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) != 0 : ksp_errno_from_sqlite(party->ctx, db, rc, "attendance");
	sqlite3_finalize(st);
	return r;
}

/* "everyone on the list was there": the absent records cleared, and the
 * attendance taken (an event, so that the store says so later). */
KSP_EXPORT int ksp_party_set_none_absent(struct ksp_party *party, const char *why)
{
	sqlite3 *db;
	int r, changed;

	if (party == NULL)
		return -EINVAL;
	r = frozen_list(party, ": run 'ksp party close' first");
	if (r < 0)
		return r;
	db = ksp_store_db(party->store);
	r = ksp_store_begin(party->store);
	if (r < 0)
		return r;
	r = ksp_store_exec(party->store, "DELETE FROM attendance");
	changed = sqlite3_changes(db);
	if (r == 0)
		r = ksp_party_event(party, "attendance", why ? why : "nobody absent");
	if (r < 0) {
		ksp_store_rollback(party->store);
		return r;
	}
	r = ksp_store_commit(party->store);
	return r < 0 ? r : changed;
}

#define ATTENDANCE_MAGIC "OpenPGP key-signing party: attendance\n"

KSP_EXPORT int ksp_party_attendance_text(struct ksp_party *party, char **ret, size_t *ret_len)
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	struct strbuf sb;
	char *sha = NULL;
	int rc, r, version = 0, n = 0;

	if (party == NULL || ret == NULL)
		return -EINVAL;
	r = frozen_list(party, "");
	if (r < 0)
		return r;
	r = ksp_party_attendance_taken(party);
	if (r <= 0) {
		if (r == 0)
			ksp_set_error(party->ctx, "%s: no attendance recorded yet: run 'ksp party absent N...' (or 'ksp party absent --none' if everyone came) first",
				      ksp_store_get_path(party->store));
		return r < 0 ? r : -ENODATA;
	}
	r = ksp_party_get_digests(party, 0, &version, &sha, NULL);
	if (r < 0)
		return r;
	strbuf_init(&sb);
	strbuf_addf(&sb, ATTENDANCE_MAGIC "List-Version: %d\nList-SHA256: %s\n", version, sha);
	free(sha);
	db = ksp_store_db(party->store);
	rc = sqlite3_prepare_v2(db, "SELECT m.ord, m.fpr FROM list_members m JOIN attendance a ON a.fpr = m.fpr "
				    "WHERE m.version = ? AND a.absent ORDER BY m.ord", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		strbuf_release(&sb);
		return ksp_errno_from_sqlite(party->ctx, db, rc, "attendance");
	}
	sqlite3_bind_int(st, 1, version);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		strbuf_addf(&sb, "Absent: %d %s\n", sqlite3_column_int(st, 0), (const char *)sqlite3_column_text(st, 1));
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		strbuf_release(&sb);
		return ksp_errno_from_sqlite(party->ctx, db, rc, "attendance");
	}
	if (n == 0)
		strbuf_addstr(&sb, "Absent: none\n");
	if (!strbuf_ok(&sb)) {
		strbuf_release(&sb);
		return -ENOMEM;
	}
	*ret_len = sb.len;
	*ret = strbuf_steal(&sb);
	return n;
}

/* One line of @p (up to @end) into [*line, *len); the position after it. */
static const char *next_line(const char *p, const char *end, const char **line, size_t *len)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	*line = p;
	*len = nl ? (size_t)(nl - p) : (size_t)(end - p);
	return nl ? nl + 1 : end;
}

KSP_EXPORT int ksp_party_read_attendance(struct ksp_party *party, const void *data, size_t len, const char *source)
{
	const char *p = data, *end = p + len, *line;
	char sha[65] = "", *have = NULL;
	char (*absent)[65] = NULL;
	size_t ll, n = 0, cap = 0;
	int version = -1, r = 0, lineno = 0;
	bool none = false;

	if (party == NULL || (data == NULL && len > 0))
		return -EINVAL;
	ksp_clear_error(party->ctx);
	if (source == NULL)
		source = "<attendance>";
	if (len < sizeof(ATTENDANCE_MAGIC) - 1 || memcmp(p, ATTENDANCE_MAGIC, sizeof(ATTENDANCE_MAGIC) - 1) != 0) {
		ksp_set_error(party->ctx, "%s: not an attendance statement (it does not start with \"%.37s\"); give the file 'ksp party export --attendance FILE' wrote",
			      source, ATTENDANCE_MAGIC);
		return -EBADMSG;
	}
	p += sizeof(ATTENDANCE_MAGIC) - 1;
	lineno = 1;
	while (p < end && r == 0) {
		char buf[160];
		p = next_line(p, end, &line, &ll);
		lineno++;
		if (ll == 0)
			continue;
		if (ll >= sizeof(buf)) {
			r = -EBADMSG;
			break;
		}
		memcpy(buf, line, ll);
		buf[ll] = '\0';
		if (sscanf(buf, "List-Version: %d", &version) == 1)
			continue;
		if (strncmp(buf, "List-SHA256: ", 13) == 0 && ll == 13 + 64) {
			memcpy(sha, buf + 13, 64);
			sha[64] = '\0';
			continue;
		}
		if (strcmp(buf, "Absent: none") == 0) {
			none = true;
			continue;
		}
		int num;
		char fpr[80];
		if (sscanf(buf, "Absent: %d %79s", &num, fpr) == 2 && num > 0) {
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				void *nv = cap < 100000 ? realloc(absent, cap * sizeof(*absent)) : NULL;
				if (nv == NULL) {
					r = -ENOMEM;
					break;
				}
				absent = nv;
			}
			if (fpr_normalize(fpr, absent[n]) < 0) {
				r = -EBADMSG;
				break;
			}
			n++;
			continue;
		}
		r = -EBADMSG;
	}
	if (r == -EBADMSG || (r == 0 && (version <= 0 || sha[0] == '\0' || (none && n > 0) || (!none && n == 0)))) {
		if (r == -EBADMSG)
			ksp_set_error(party->ctx, "%s: line %d is not part of an attendance statement; nothing was recorded: ask the organizer for the file 'ksp party export --attendance FILE' wrote",
				      source, lineno);
		else
			ksp_set_error(party->ctx, "%s: incomplete attendance statement (a List-Version, a List-SHA256 and Absent lines, or \"Absent: none\", are needed); nothing was recorded",
				      source);
		free(absent);
		return -EBADMSG;
	}
	if (r < 0) {
		free(absent);
		return r;
	}
	r = ksp_party_get_digests(party, version, NULL, &have, NULL);
	if (r < 0 || strcasecmp(have, sha) != 0) {
		ksp_set_error(party->ctx, "%s: this attendance is of list version %d with SHA-256 %s, which is not the list this store holds%s; nothing was recorded: join that list first, or ask the organizer for the attendance of yours",
			      source, version, sha, r < 0 ? " (no such version)" : "");
		free(have);
		free(absent);
		return r == -ENOMEM ? r : -EBADMSG;
	}
	free(have);
	/* the whole statement or nothing: who is not named absent was there */
	r = ksp_store_begin(party->store);
	if (r < 0) {
		free(absent);
		return r;
	}
	r = ksp_party_set_none_absent(party, "statement");
	for (size_t i = 0; i < n && r >= 0; i++)
		r = ksp_party_set_absent(party, absent[i], true, NULL);
	free(absent);
	if (r < 0) {
		ksp_store_rollback(party->store);
		return r;
	}
	r = ksp_store_commit(party->store);
	return r < 0 ? r : (int)n;
}
