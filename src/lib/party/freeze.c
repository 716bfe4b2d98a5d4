// SPDX-License-Identifier: LGPL-2.1-or-later
/* The participant list: iteration, the canonical text, closing, digests. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gcrypt.h>
#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/party/party-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"

struct uidv {
	char *data;
	size_t len;
};

struct ksp_participant {
	int number;
	char fpr[65];
	int version;
	char algo[32];
	int64_t created;
	int64_t expires;
	char *warnings;
	struct uidv *uids;
	size_t n_uids;
};

struct ksp_participant_iter {
	struct ksp_party *party;
	struct ksp_participant *items;
	size_t n;
	size_t pos;
};

static void participant_clear(struct ksp_participant *p)
{
	for (size_t i = 0; i < p->n_uids; i++)
		free(p->uids[i].data);
	free(p->uids);
	free(p->warnings);
}

KSP_EXPORT struct ksp_participant_iter *ksp_participant_iter_free(struct ksp_participant_iter *it)
{
	if (it == NULL)
		return NULL;
	for (size_t i = 0; i < it->n; i++)
		participant_clear(&it->items[i]);
	free(it->items);
	ksp_party_unref(it->party);
	free(it);
	return NULL;
}

static int load_uids(struct ksp_party *party, sqlite3_stmt *ust, int64_t key_id, struct ksp_participant *p)
{
	int rc;

	sqlite3_reset(ust);
	sqlite3_bind_int64(ust, 1, key_id);
	while ((rc = sqlite3_step(ust)) == SQLITE_ROW) {
		const void *b = sqlite3_column_blob(ust, 0);
		size_t n = (size_t)sqlite3_column_bytes(ust, 0);
		struct uidv *nu = realloc(p->uids, (p->n_uids + 1) * sizeof(*nu));
		if (nu == NULL)
			return -ENOMEM;
		p->uids = nu;
		p->uids[p->n_uids].data = malloc(n + 1);
		if (p->uids[p->n_uids].data == NULL)
			return -ENOMEM;
		if (n)
			memcpy(p->uids[p->n_uids].data, b, n);
		p->uids[p->n_uids].data[n] = '\0';
		p->uids[p->n_uids].len = n;
		p->n_uids++;
	}
	if (rc != SQLITE_DONE)
		return ksp_errno_from_sqlite(party->ctx, ksp_store_db(party->store), rc, "read uids");
	return 0;
}

/* version 0: current participants; else the members of that list version */
static int iter_new(struct ksp_party *party, struct ksp_participant_iter **ret)
{
	sqlite3 *db = ksp_store_db(party->store);
	struct ksp_participant_iter *it;
	sqlite3_stmt *st = NULL, *ust = NULL;
	int rc, r = 0;

	it = calloc(1, sizeof(*it));
	if (it == NULL)
		return -ENOMEM;
	it->party = ksp_party_ref(party);
	rc = sqlite3_prepare_v2(db,
		"SELECT p.ord, k.fpr, k.version, k.algo, k.bits, k.curve, k.created, k.expires, p.warnings, k.id "
		"FROM participants p JOIN keys k ON k.id = p.key_id ORDER BY p.ord", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
			"SELECT uid FROM uids WHERE key_id = ? AND is_attr = 0 AND revoked = 0 ORDER BY idx, id",
			-1, &ust, NULL);
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "participants");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ksp_participant *n = realloc(it->items, (it->n + 1) * sizeof(*n));
		struct ksp_participant *p;
		if (n == NULL) {
			r = -ENOMEM;
			goto out;
		}
		it->items = n;
		p = &it->items[it->n++];
		memset(p, 0, sizeof(*p));
		p->number = sqlite3_column_int(st, 0);
		snprintf(p->fpr, sizeof(p->fpr), "%s", (const char *)sqlite3_column_text(st, 1));
		p->version = sqlite3_column_int(st, 2);
		ksp_algo_name(sqlite3_column_int(st, 3), sqlite3_column_int(st, 4),
			      (const char *)sqlite3_column_text(st, 5), p->algo, sizeof(p->algo));
		p->created = sqlite3_column_int64(st, 6);
		p->expires = sqlite3_column_int64(st, 7);
		if (sqlite3_column_text(st, 8)) {
			p->warnings = strdup((const char *)sqlite3_column_text(st, 8));
			if (p->warnings == NULL) {
				r = -ENOMEM;
				goto out;
			}
		}
		r = load_uids(party, ust, sqlite3_column_int64(st, 9), p);
		if (r < 0)
			goto out;
	}
	if (rc != SQLITE_DONE)
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "participants");
out:
	sqlite3_finalize(st);
	sqlite3_finalize(ust);
	if (r < 0) {
		ksp_participant_iter_free(it);
		return r;
	}
	*ret = it;
	return 0;
}

KSP_EXPORT int ksp_party_iter_participants(struct ksp_party *party, struct ksp_participant_iter **ret)
{
	if (party == NULL || ret == NULL)
		return -EINVAL;
	return iter_new(party, ret);
}

KSP_EXPORT int ksp_participant_iter_next(struct ksp_participant_iter *it, struct ksp_participant **ret)
{
	if (it == NULL || ret == NULL)
		return -EINVAL;
	if (it->pos >= it->n)
		return 0;
	*ret = &it->items[it->pos++];
	return 1;
}

KSP_EXPORT int ksp_participant_get_number(const struct ksp_participant *p)
{
	return p ? p->number : 0;
}

KSP_EXPORT const char *ksp_participant_get_fingerprint(const struct ksp_participant *p)
{
	return p ? p->fpr : NULL;
}

KSP_EXPORT int ksp_participant_get_version(const struct ksp_participant *p)
{
	return p ? p->version : 0;
}

KSP_EXPORT const char *ksp_participant_get_algo(const struct ksp_participant *p)
{
	return p ? p->algo : NULL;
}

KSP_EXPORT int64_t ksp_participant_get_created(const struct ksp_participant *p)
{
	return p ? p->created : 0;
}

KSP_EXPORT int64_t ksp_participant_get_expires(const struct ksp_participant *p)
{
	return p ? p->expires : 0;
}

KSP_EXPORT const char *ksp_participant_get_warnings(const struct ksp_participant *p)
{
	return p ? p->warnings : NULL;
}

KSP_EXPORT size_t ksp_participant_get_uid_count(const struct ksp_participant *p)
{
	return p ? p->n_uids : 0;
}

KSP_EXPORT const char *ksp_participant_get_uid(const struct ksp_participant *p, size_t i, size_t *len)
{
	if (p == NULL || i >= p->n_uids)
		return NULL;
	if (len)
		*len = p->uids[i].len;
	return p->uids[i].data;
}

static void add_fpr_groups(struct strbuf *sb, const char *fpr)
{
	char g[96];

	fpr_groups(fpr, g, sizeof(g));
	strbuf_addstr(sb, g);
}

/* The canonical list: only store values, fixed formats, UTF-8, LF line
 * ends, user IDs escaped for a terminal.  Same store -> same bytes. */
int ksp_party_list_text(struct ksp_party *party, int version, struct strbuf *sb)
{
	struct ksp_participant_iter *it = NULL;
	struct ksp_participant *p;
	int r;

	r = iter_new(party, &it);
	if (r < 0)
		return r;
	strbuf_addstr(sb, "OpenPGP key-signing party: participant list\n\n");
	strbuf_addstr(sb, "Party:    ");
	{
		char *e = NULL;
		if (ksp_escape(party->name, strlen(party->name), KSP_ESCAPE_TERMINAL, &e) < 0) {
			r = -ENOMEM;
			goto out;
		}
		strbuf_addstr(sb, e);
		free(e);
	}
	strbuf_addf(sb, "\nDate:     %s\n", party->date);
	if (party->location && *party->location) {
		char *e = NULL;
		if (ksp_escape(party->location, strlen(party->location), KSP_ESCAPE_TERMINAL, &e) < 0) {
			r = -ENOMEM;
			goto out;
		}
		strbuf_addf(sb, "Location: %s\n", e);
		free(e);
	}
	if (party->organizer && *party->organizer) {
		strbuf_addstr(sb, "Organizer: ");
		add_fpr_groups(sb, party->organizer);
		strbuf_addch(sb, '\n');
	}
	strbuf_addf(sb, "List version: %d\nParticipants: %zu\n", version, it->n);
	while (ksp_participant_iter_next(it, &p) > 0) {
		char d[16];
		strbuf_addf(sb, "\n%3d  ", p->number);
		add_fpr_groups(sb, p->fpr);
		format_date(p->created, d, sizeof(d));
		strbuf_addf(sb, "\n     %s, created %s", p->algo, d);
		if (p->expires) {
			format_date(p->expires, d, sizeof(d));
			strbuf_addf(sb, ", expires %s", d);
		}
		strbuf_addch(sb, '\n');
		for (size_t i = 0; i < p->n_uids; i++) {
			char *e = NULL;
			if (ksp_escape(p->uids[i].data, p->uids[i].len, KSP_ESCAPE_TERMINAL, &e) < 0) {
				r = -ENOMEM;
				goto out;
			}
			strbuf_addf(sb, "     uid  %s\n", e);
			free(e);
		}
	}
	if (!strbuf_ok(sb))
		r = -ENOMEM;
out:
	ksp_participant_iter_free(it);
	return r;
}

void ksp_party_digest_hex(int algo, const void *data, size_t len, char *out)
{
	uint8_t md[64];
	unsigned dl = gcry_md_get_algo_dlen(algo);

	gcry_md_hash_buffer(algo, md, data, len);
	for (unsigned i = 0; i < dl; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

int ksp_party_store_list(struct ksp_party *party, int version, const void *text, size_t len,
			 const char *sha, const char *rmd, const char *what)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(db, "INSERT INTO list_versions(version, closed_at, text, sha256, rmd160) VALUES (?, ?, ?, ?, ?)",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(party->ctx, db, rc, what);
	sqlite3_bind_int(st, 1, version);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)time(NULL));
	sqlite3_bind_blob(st, 3, text, (int)len, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, sha, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, rmd, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ksp_errno_from_sqlite(party->ctx, db, rc, what);
	rc = sqlite3_prepare_v2(db, "INSERT INTO list_members(version, ord, fpr) SELECT ?, p.ord, k.fpr "
				    "FROM participants p JOIN keys k ON k.id = p.key_id", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(party->ctx, db, rc, what);
	sqlite3_bind_int(st, 1, version);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ksp_errno_from_sqlite(party->ctx, db, rc, what);
	return ksp_store_exec(party->store, "UPDATE party SET state = 'closed' WHERE id = 1");
}

KSP_EXPORT int ksp_party_close(struct ksp_party *party, int *ret_version)
{
	struct strbuf sb;
	char sha[65], rmd[41];
	int r, version;
	int64_t n;

	if (party == NULL)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	if (party->closed) {
		ksp_set_error(party->ctx, "%s: the list is already closed (version %d); 'ksp party digest' prints its digests",
			      ksp_store_get_path(party->store), party->list_version);
		return -EPERM;
	}
	n = ksp_store_count(party->store, "participants");
	if (n < 0)
		return (int)n;
	if (n == 0) {
		ksp_set_error(party->ctx, "%s: no participants yet; add keys with 'ksp party add FILE'",
			      ksp_store_get_path(party->store));
		return -ENODATA;
	}
	r = ksp_store_begin(party->store);
	if (r < 0)
		return r;
	version = party->list_version + 1;
	strbuf_init(&sb);
	if (party->list_version > 0) {
		/* reopened and closed with nothing changed: the announced list
		 * stands; no new version and digest nobody checked */
		char *old = NULL;
		size_t old_len = 0;
		r = ksp_party_list_text(party, party->list_version, &sb);
		if (r == 0)
			r = ksp_party_get_list_text(party, party->list_version, &old, &old_len);
		if (r < 0)
			goto fail;
		bool same = old_len == sb.len && memcmp(old, sb.buf, sb.len) == 0;
		free(old);
		strbuf_release(&sb);
		strbuf_init(&sb);
		if (same) {
			r = ksp_store_exec(party->store, "UPDATE party SET state = 'closed' WHERE id = 1");
			if (r == 0)
				r = ksp_party_event(party, "close", "unchanged");
			if (r == 0)
				r = ksp_store_commit(party->store);
			if (r < 0)
				goto fail;
			party->closed = true;
			if (ret_version)
				*ret_version = party->list_version;
			ksp_set_error(party->ctx, "%s: nothing changed since list version %d: no new version made, version %d is closed again and stays the announced one; 'ksp party digest' prints its digests",
				      ksp_store_get_path(party->store), party->list_version, party->list_version);
			return -EALREADY;
		}
	}
	r = ksp_party_list_text(party, version, &sb);
	if (r < 0)
		goto fail;
	ksp_party_digest_hex(GCRY_MD_SHA256, sb.buf, sb.len, sha);
	ksp_party_digest_hex(GCRY_MD_RMD160, sb.buf, sb.len, rmd);
	r = ksp_party_store_list(party, version, sb.buf, sb.len, sha, rmd, "close");
	if (r < 0)
		goto fail;
	r = ksp_party_event(party, "close", sha);
	if (r < 0)
		goto fail;
	r = ksp_store_commit(party->store);
	strbuf_release(&sb);
	if (r < 0)
		return r;
	party->closed = true;
	party->list_version = version;
	if (ret_version)
		*ret_version = version;
	return 0;
fail:
	if (!ksp_get_error(party->ctx))
		ksp_set_error(party->ctx, "%s: cannot close the list: %s; nothing was changed",
			      ksp_store_get_path(party->store), strerror(-r));
	strbuf_release(&sb);
	ksp_store_rollback(party->store);
	return r;
}

KSP_EXPORT int ksp_party_reopen(struct ksp_party *party, const char *reason)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int r, rc;

	if (party == NULL || reason == NULL)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	if (*reason == '\0') {
		ksp_set_error(party->ctx, "say why the list is reopened: --reason TEXT");
		return -EINVAL;
	}
	if (!party->closed) {
		ksp_set_error(party->ctx, "%s: the list is not closed", ksp_store_get_path(party->store));
		return -EPERM;
	}
	db = ksp_store_db(party->store);
	r = ksp_store_begin(party->store);
	if (r < 0)
		return r;
	rc = sqlite3_prepare_v2(db, "UPDATE list_versions SET reopened_at = ?, reopen_reason = ? WHERE version = ?",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		goto sqlfail;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)time(NULL));
	sqlite3_bind_text(st, 2, reason, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, party->list_version);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto sqlfail;
	r = ksp_store_exec(party->store, "UPDATE party SET state = 'open' WHERE id = 1");
	if (r < 0)
		goto fail;
	r = ksp_party_event(party, "reopen", reason);
	if (r < 0)
		goto fail;
	r = ksp_store_commit(party->store);
	if (r == 0)
		party->closed = false;
	return r;
sqlfail:
	r = ksp_errno_from_sqlite(party->ctx, db, rc, "reopen");
fail:
	ksp_store_rollback(party->store);
	return r;
}

static int get_version_row(struct ksp_party *party, int version, sqlite3_stmt **ret)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *st;
	int rc;

	if (version == 0)
		version = party->list_version;
	if (version <= 0) {
		ksp_set_error(party->ctx, "%s: the list was never closed; run 'ksp party close' first",
			      ksp_store_get_path(party->store));
		return -ENOENT;
	}
	rc = sqlite3_prepare_v2(db, "SELECT version, text, sha256, rmd160 FROM list_versions WHERE version = ?",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(party->ctx, db, rc, "list version");
	sqlite3_bind_int(st, 1, version);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc == SQLITE_DONE) {
			ksp_set_error(party->ctx, "%s: no list version %d (newest is %d)",
				      ksp_store_get_path(party->store), version, party->list_version);
			return -ENOENT;
		}
		return ksp_errno_from_sqlite(party->ctx, db, rc, "list version");
	}
	*ret = st;
	return 0;
}

KSP_EXPORT int ksp_party_get_list_text(struct ksp_party *party, int version, char **ret, size_t *ret_len)
{
	sqlite3_stmt *st;
	size_t n;
	char *t;
	int r;

	if (party == NULL || ret == NULL || version < 0)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	r = get_version_row(party, version, &st);
	if (r < 0)
		return r;
	n = (size_t)sqlite3_column_bytes(st, 1);
	t = malloc(n + 1);
	if (t == NULL) {
		sqlite3_finalize(st);
		return -ENOMEM;
	}
	if (n)
		memcpy(t, sqlite3_column_blob(st, 1), n);
	t[n] = '\0';
	sqlite3_finalize(st);
	*ret = t;
	if (ret_len)
		*ret_len = n;
	return 0;
}

KSP_EXPORT int ksp_party_get_digests(struct ksp_party *party, int version, int *ret_version,
				     char **ret_sha256, char **ret_rmd160)
{
	sqlite3_stmt *st;
	char *a, *b;
	int r;

	if (party == NULL || version < 0)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	r = get_version_row(party, version, &st);
	if (r < 0)
		return r;
	a = strdup((const char *)sqlite3_column_text(st, 2));
	b = strdup((const char *)sqlite3_column_text(st, 3));
	if (ret_version)
		*ret_version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	if (ret_sha256)
		*ret_sha256 = a;
	else
		free(a);
	if (ret_rmd160)
		*ret_rmd160 = b;
	else
		free(b);
	return 0;
}

KSP_EXPORT int ksp_party_verify_list(struct ksp_party *party, const void *data, size_t len,
				     int *ret_version)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char sha[65];
	int rc, found = 0;

	if (party == NULL || (data == NULL && len > 0))
		return -EINVAL;
	ksp_clear_error(party->ctx);
	ksp_party_digest_hex(GCRY_MD_SHA256, data, len, sha);
	db = ksp_store_db(party->store);
	rc = sqlite3_prepare_v2(db, "SELECT version FROM list_versions WHERE sha256 = ? ORDER BY version DESC",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(party->ctx, db, rc, "verify list");
	sqlite3_bind_text(st, 1, sha, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		found = 1;
		if (ret_version)
			*ret_version = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ksp_errno_from_sqlite(party->ctx, db, rc, "verify list");
	return found;
}
