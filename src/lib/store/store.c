// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/store/schema.h"
#include "lib/store/schema-rows.h"
#include "shared/strbuf.h"

#define KSP_APPLICATION_ID 0x4b535031 /* "KSP1" */
#define KSP_SCHEMA_VERSION 9

struct ksp_store {
	int refcount;
	struct ksp_ctx *ctx;
	sqlite3 *db;
	char *path;
	int schema_version;
	int txn_depth;
	bool txn_failed;
	bool rw;
	bool immutable;             /* KSP_STORE_IMMUTABLE: nothing written beside it */
	bool wal_later;             /* a new store: WAL after its first commit (see wal_now()) */
	void *cache;                /* ksp_store_set_cache(): the graph snapshot */
	void (*cache_free)(void *); /* and how to free it */
	int (*after_commit)(struct ksp_store *store); /* ksp_store_after_commit() */
};

sqlite3 *ksp_store_db(struct ksp_store *store)
{
	return store->db;
}

const char *ksp_store_path_internal(const struct ksp_store *store)
{
	return store->path;
}

bool ksp_store_is_immutable(const struct ksp_store *store)
{
	return store->immutable;
}

/* PRAGMA cache_size on this connection, 0 if it cannot be read. */
static int64_t cache_size_get(struct ksp_store *store)
{
	sqlite3_stmt *st = NULL;
	int64_t v = 0;

	if (sqlite3_prepare_v2(store->db, "PRAGMA cache_size", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The cache set to @kb KiB: @old (the setting before, to give back), or 0
 * when it could not be set. */
static int64_t cache_size_put(struct ksp_store *store, int kb, int64_t old)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%d", kb);
	return sqlite3_exec(store->db, sql, NULL, NULL, NULL) == SQLITE_OK ? old : 0;
}

int64_t ksp_store_cache_grow(struct ksp_store *store, int kb)
{
	int64_t old = cache_size_get(store);

	if (old == 0 || (old < 0 && -old >= kb))
		return 0; /* unknown, or large enough */
	return cache_size_put(store, kb, old);
}

int64_t ksp_store_cache_set(struct ksp_store *store, int kb)
{
	int64_t old = cache_size_get(store);

	return old == 0 ? 0 : cache_size_put(store, kb, old);
}

void ksp_store_cache_restore(struct ksp_store *store, int64_t old)
{
	char sql[64];

	if (old == 0)
		return;
	snprintf(sql, sizeof(sql), "PRAGMA cache_size = %lld", (long long)old);
	sqlite3_exec(store->db, sql, NULL, NULL, NULL);
}

int ksp_store_exec(struct ksp_store *store, const char *sql)
{
	char *msg = NULL;
	int rc;

	rc = sqlite3_exec(store->db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		int r = ksp_errno_from_sqlite(store->ctx, store->db, rc, sql);
		sqlite3_free(msg);
		return r;
	}
	return 0;
}

static int pragma_int(struct ksp_store *store, const char *sql, int *ret)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(store->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(store->ctx, store->db, rc, sql);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*ret = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK && rc != SQLITE_DONE)
		return ksp_errno_from_sqlite(store->ctx, store->db, rc, sql);
	return 0;
}

/* A store is input from whoever made it (participants are told to use the
 * organizer's): its schema is run by SQLite when it is opened, so no SQL
 * of its own is trusted.  Defensive mode (no writable_schema, no
 * corrupting pragmas), no functions or virtual tables of the schema run
 * with side effects (trusted_schema off), no extensions. */
static void harden(sqlite3 *db)
{
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
}

/* The name of the first schema entry where @have and @want differ. */
static void first_difference(const struct strbuf *have, const struct strbuf *want, char *buf, size_t size)
{
	size_t i = 0, j = 0;

	while (i < have->len && j < want->len) {
		size_t a = strlen(have->buf + i), b = strlen(want->buf + j);
		if (a != b || memcmp(have->buf + i, want->buf + j, a) != 0)
			break;
		i += a + 1;
		j += b + 1;
	}
	const struct strbuf *sb = i < have->len ? have : want;
	const char *row = sb->buf + (sb == have ? i : j);
	const char *name = strchr(row, '\t');
	size_t n = 0;

	if (name) {
		name++;
		while (name[n] && name[n] != '\t')
			n++;
	}
	/* a name from the store: only printable ASCII of it is shown */
	size_t o = 0;
	for (size_t k = 0; name && k < n && o + 2 < size && k < 64; k++)
		buf[o++] = name[k] > 0x20 && name[k] < 0x7f ? name[k] : '?';
	buf[o] = '\0';
	if (o == 0)
		snprintf(buf, size, "?");
}

/* Is the store's schema exactly ksp's (schema version KSP_SCHEMA_VERSION)?
 * An edited schema (PRAGMA writable_schema, an extra trigger or view, a
 * changed index or column) is refused: 0, or -EBADMSG with the error set.
 * The rows are first compared with those this build's SQLite made of ksp's
 * schema (schema-want.c); only when they differ is the schema built in an
 * in-memory database and compared with that (another SQLite at run time
 * may write the same schema's rows otherwise). */
static int check_schema(struct ksp_store *store)
{
	struct strbuf have, want;
	char what[80];
	int r;

	strbuf_init(&have);
	strbuf_init(&want);
	r = ksp_schema_rows(store->db, &have);
	if (r == -EBADMSG)
		ksp_set_error(store->ctx, "%s: cannot read the store's schema: %s; it is damaged or was edited, use a store made by ksp",
			      store->path, sqlite3_errmsg(store->db));
	if (r == 0 && ksp_schema_want_len > 0 && have.len == ksp_schema_want_len &&
	    memcmp(have.buf, ksp_schema_want, have.len) == 0)
		goto out;
	if (r == 0)
		r = ksp_schema_rows_ksp(&want);
	if (r == 0 && (have.len != want.len || memcmp(have.buf, want.buf, have.len) != 0)) {
		first_difference(&have, &want, what, sizeof(what));
		ksp_set_error(store->ctx, "%s: the store's schema is not ksp's (it differs at '%s'): it was edited or made by another program, and is refused; use a store made by ksp",
			      store->path, what);
		r = -EBADMSG;
	}
out:
	strbuf_release(&have);
	strbuf_release(&want);
	return r;
}

/* Migrate from schema @from to KSP_SCHEMA_VERSION: version 1 is the base
 * schema, version 2 adds the graph snapshot's state, version 3 a fresh
 * nonce with every change to it, version 4 the delivery ledger of 'party
 * sign', version 5 attendance ('party absent'), version 6 a graph state
 * that also follows self-signatures, revocation reasons and user ID texts,
 * version 7 the key blocks of incremental loading and the refresh state,
 * version 8 the oldest self-signature of a user ID by hash class,
 * version 9 the party's repair plan (ksp health --plan-csv).
 * Two processes may
 * create one store at once: the second finds the work done once it holds
 * the write lock. */
static int migrate(struct ksp_store *store, int from)
{
	char sql[128];
	int r, appid = 0;

	r = ksp_store_exec(store, "BEGIN IMMEDIATE");
	if (r < 0)
		return r;
	r = pragma_int(store, "PRAGMA user_version", &from);
	if (r == 0)
		r = pragma_int(store, "PRAGMA application_id", &appid);
	if (r < 0)
		goto fail;
	if (from >= KSP_SCHEMA_VERSION) {
		/* another process migrated it meanwhile */
		ksp_store_exec(store, "ROLLBACK");
		if (appid != KSP_APPLICATION_ID)
			return -EBADMSG;
		store->schema_version = from;
		return 0;
	}
	if (from < 1) {
		r = ksp_store_exec(store, ksp_schema_sql);
		if (r < 0)
			goto fail;
	}
	if (from < 2) {
		r = ksp_store_exec(store, ksp_schema2_sql);
		if (r < 0)
			goto fail;
	}
	if (from < 3) {
		r = ksp_store_exec(store, ksp_schema3_sql);
		if (r < 0)
			goto fail;
	}
	if (from < 4) {
		r = ksp_store_exec(store, ksp_schema4_sql);
		if (r < 0)
			goto fail;
	}
	if (from < 5) {
		r = ksp_store_exec(store, ksp_schema5_sql);
		if (r < 0)
			goto fail;
	}
	if (from < 6) {
		r = ksp_store_exec(store, ksp_schema6_sql);
		if (r < 0)
			goto fail;
	}
	if (from < 7) {
		r = ksp_store_exec(store, ksp_schema7_sql);
		if (r < 0)
			goto fail;
	}
	if (from < 8) {
		r = ksp_store_exec(store, ksp_schema8_sql);
		if (r < 0)
			goto fail;
	}
	if (from < 9) {
		r = ksp_store_exec(store, ksp_schema9_sql);
		if (r < 0)
			goto fail;
	}
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d",
		 KSP_APPLICATION_ID, KSP_SCHEMA_VERSION);
	r = ksp_store_exec(store, sql);
	if (r < 0)
		goto fail;
	r = ksp_store_exec(store, "COMMIT");
	if (r < 0)
		goto fail;
	store->schema_version = KSP_SCHEMA_VERSION;
	return 0;
fail:
	ksp_store_exec(store, "ROLLBACK");
	return r;
}

void *ksp_store_cache(struct ksp_store *store)
{
	return store->cache;
}

void ksp_store_set_cache(struct ksp_store *store, void *cache, void (*free_fn)(void *cache))
{
	if (store->cache != cache && store->cache && store->cache_free)
		store->cache_free(store->cache);
	store->cache = cache;
	store->cache_free = free_fn;
}

/* ---- opening a store that cannot be written (ksp_store_open) ---------- */

/* Why a store cannot be opened for writing or its WAL index made: -EROFS
 * (read-only file system), -EACCES (file or directory not writable),
 * -ENOSPC (no space left), else 0. */
static int unwritable_why(const char *path)
{
	char *dir = strdup(path), *slash;
	struct statvfs vfs;
	int r = 0;

	if (dir == NULL)
		return 0;
	slash = strrchr(dir, '/');
	if (slash == NULL)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
		r = -EROFS;
	else if (access(path, W_OK) < 0 || access(dir, W_OK) < 0)
		r = errno == EROFS ? -EROFS : -EACCES;
	else if (statvfs(dir, &vfs) == 0 && vfs.f_bavail == 0)
		r = -ENOSPC;
	free(dir);
	return r;
}

/* Does PATH-journal hold pages (a write in progress, or one interrupted
 * that the next read-write open rolls back)?  A store is written with a
 * rollback journal only while it is new (see wal_now()). */
static bool journal_pending(const char *path)
{
	struct strbuf sb;
	struct stat st;
	bool r;

	strbuf_init(&sb);
	strbuf_addf(&sb, "%s-journal", path);
	r = strbuf_ok(&sb) && stat(sb.buf, &st) == 0 && st.st_size > 0;
	strbuf_release(&sb);
	return r;
}

/* The error for a store that a write in progress or interrupted keeps
 * from being read (its -wal or -journal): -EBUSY. */
static int pending_error(struct ksp_ctx *ctx, const char *path)
{
	if (journal_pending(path))
		ksp_set_error(ctx, "%s: %s-journal holds a write not finished (a ksp is writing the store, or was stopped while writing it); try again when it has finished, or roll the interrupted write back with: sqlite3 %s 'PRAGMA integrity_check'",
			      path, path, path);
	else
		ksp_set_error(ctx, "%s: %s-wal holds changes not yet in the store (a ksp is writing it); try again when it has finished, or, when no ksp is running, fold it in with: sqlite3 %s 'PRAGMA wal_checkpoint(TRUNCATE)'",
			      path, path, path);
	return -EBUSY;
}

/* A read-only open of a WAL store whose -shm cannot be made (directory not
 * writable, read-only file system): "file:PATH?immutable=1", only when no
 * -wal file holds pages the main file lacks. */
static int open_immutable(const char *path, sqlite3 **db)
{
	struct strbuf sb;
	struct stat st;
	int rc;

	strbuf_init(&sb);
	strbuf_addf(&sb, "%s-wal", path);
	if (!strbuf_ok(&sb))
		return SQLITE_NOMEM;
	rc = stat(sb.buf, &st) == 0 && st.st_size > 0 ? SQLITE_CANTOPEN : SQLITE_OK;
	strbuf_release(&sb);
	if (rc != SQLITE_OK)
		return rc;
	if (journal_pending(path))
		return SQLITE_CANTOPEN;
	strbuf_init(&sb);
	strbuf_addstr(&sb, "file:");
	for (const char *c = path; *c; c++) {
		if (*c == '%' || *c == '?' || *c == '#')
			strbuf_addf(&sb, "%%%02X", (unsigned char)*c);
		else
			strbuf_addch(&sb, *c);
	}
	strbuf_addstr(&sb, "?immutable=1");
	if (!strbuf_ok(&sb))
		return SQLITE_NOMEM;
	sqlite3_close_v2(*db);
	*db = NULL;
	rc = sqlite3_open_v2(sb.buf, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE,
			     NULL);
	strbuf_release(&sb);
	return rc;
}

/* (Long: open, check and migrate in order, each failure naming the file, one exit.) */
KSP_EXPORT int ksp_store_open(struct ksp_ctx *ctx, const char *path, unsigned int flags,
			      struct ksp_store **ret)
{
	struct ksp_store *store;
	struct stat st;
	int rc, r, appid = 0, ver = 0, oflags;
	bool exists;

	if (ctx == NULL || path == NULL || ret == NULL)
		return -EINVAL;
	ksp_clear_error(ctx);
	exists = stat(path, &st) == 0;
	if (!exists && !(flags & KSP_STORE_CREATE)) {
		ksp_set_error(ctx, "%s: no such store; create one with 'ksp party init' or 'ksp wot load', or pick another with -d FILE", path);
		return -ENOENT;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		ksp_set_error(ctx, "%s: not a regular file; choose a store file with -d FILE", path);
		return -EBADMSG;
	}
	store = calloc(1, sizeof(*store));
	if (store == NULL)
		return -ENOMEM;
	store->refcount = 1;
	store->ctx = ksp_ref(ctx);
	store->path = strdup(path);
	store->rw = flags & (KSP_STORE_READ_WRITE | KSP_STORE_CREATE);
	store->immutable = (flags & KSP_STORE_IMMUTABLE) && !store->rw;
	if (store->path == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	oflags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
	oflags |= store->rw ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
	if (flags & KSP_STORE_CREATE)
		oflags |= SQLITE_OPEN_CREATE;
	if (store->immutable) {
		/* no -shm, no -wal, no lock: the file as it is.  A -wal with
		 * pages the file lacks (a ksp writing now, or a crash) would
		 * be ignored, so such a store is refused, never read stale. */
		rc = open_immutable(path, &store->db);
		if (rc == SQLITE_CANTOPEN) {
			r = pending_error(ctx, path);
			goto fail;
		}
	} else {
		rc = sqlite3_open_v2(path, &store->db, oflags, NULL);
	}
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(ctx, store->db, rc, path);
		ksp_set_error(ctx, "%s: cannot open store: %s", path, sqlite3_errstr(rc));
		goto fail;
	}
	harden(store->db);
	sqlite3_busy_timeout(store->db, 3000);
	sqlite3_extended_result_codes(store->db, 1);
	r = pragma_int(store, "PRAGMA application_id", &appid);
	if (r < 0 && r != -EBADMSG && r != -ENOMEM && !store->rw && journal_pending(path)) {
		/* a new store being loaded, or a load interrupted: its
		 * journal is rolled back by the next read-write open */
		r = pending_error(ctx, path);
		goto fail;
	}
	if (r < 0 && r != -EBADMSG && r != -EBUSY && r != -ENOMEM && !store->rw && !store->immutable) {
		/* WAL: reading needs the -shm index, which a read-only
		 * directory or file system keeps us from making */
		rc = open_immutable(path, &store->db);
		if (rc == SQLITE_OK) {
			harden(store->db);
			r = pragma_int(store, "PRAGMA application_id", &appid);
		}
	}
	if (r < 0 && r != -EBADMSG && r != -EBUSY && r != -ENOMEM) {
		int why = unwritable_why(path);
		if (why == -EROFS)
			ksp_set_error(ctx, "%s: the store is on a read-only file system; remount it read-write or pick another with -d FILE",
				      path);
		else if (why == -EACCES)
			ksp_set_error(ctx, "%s: the store is read-only (permission denied); check the permissions of the file and its directory, or pick another with -d FILE",
				      path);
		else if (why == -ENOSPC)
			ksp_set_error(ctx, "%s: disk full; free some space and retry, nothing was changed", path);
		if (why < 0) {
			r = why;
			goto fail;
		}
	}
	if (r < 0) {
		if (r == -EBADMSG)
			ksp_set_error(ctx, "%s: not a ksp store (not an SQLite database); choose another file with -d FILE", path);
		else if (r == -EBUSY)
			ksp_set_error(ctx, "%s: database is busy (another ksp is writing); try again when it has finished", path);
		else
			ksp_set_error(ctx, "%s: cannot read store: %s", path, strerror(-r));
		goto fail;
	}
	r = pragma_int(store, "PRAGMA user_version", &ver);
	if (r < 0)
		goto fail;
	if (appid != KSP_APPLICATION_ID) {
		int tables = 0;
		r = pragma_int(store, "SELECT count(*) FROM sqlite_master", &tables);
		/* another ksp may have created the store since appid was read */
		if (r == 0 && appid == 0 && tables != 0)
			r = pragma_int(store, "PRAGMA application_id", &appid);
		if (r == 0 && appid == KSP_APPLICATION_ID)
			r = pragma_int(store, "PRAGMA user_version", &ver);
		if (r < 0)
			goto fail;
		if (appid != KSP_APPLICATION_ID && (appid != 0 || tables != 0)) {
			ksp_set_error(ctx, "%s: an SQLite database, but not a ksp store; choose another file with -d FILE", path);
			r = -EBADMSG;
			goto fail;
		}
	}
	if (ver > KSP_SCHEMA_VERSION) {
		ksp_set_error(ctx, "%s: made by a newer ksp (schema %d, this ksp knows %d); upgrade ksp", path, ver, KSP_SCHEMA_VERSION);
		r = -EPROTO;
		goto fail;
	}
	store->schema_version = ver;
	if (store->rw) {
		/* a new store: 16 KB pages (SQLite's default is 4 KB); keys
		 * with their certifications are blobs of 30 KB on average in
		 * the Debian keyring, and a load writes each page three times
		 * (the WAL, the checkpoint's read and write): a quarter of the
		 * system calls.  Set before the first write, or never. */
		if (ver == 0)
			ksp_store_exec(store, "PRAGMA page_size = 16384");
		/* a new store keeps SQLite's rollback journal until its first
		 * commit (wal_now()) */
		store->wal_later = ver == 0;
		/* switching to WAL needs the database unlocked: another
		 * ksp creating or writing it makes us wait (3 s at most) */
		for (int tries = 0; !store->wal_later; tries++) {
			r = ksp_store_exec(store, "PRAGMA journal_mode = WAL");
			if (r != -EBUSY || tries >= 60)
				break;
			usleep(50000);
		}
		if (r < 0) {
			if (r == -EBUSY)
				ksp_set_error(ctx, "%s: database is busy (another ksp is writing); try again when it has finished", path);
			else
				ksp_set_error(ctx, "%s: cannot set up the store: %s", path, strerror(-r));
			goto fail;
		}
		ksp_store_exec(store, "PRAGMA synchronous = NORMAL");
	} else if (ver == 0) {
		ksp_set_error(ctx, "%s: empty store; load keys first with 'ksp party add' or 'ksp wot load'", path);
		r = -ENOENT;
		goto fail;
	}
	r = ksp_store_exec(store, "PRAGMA foreign_keys = ON");
	if (r < 0)
		goto fail;
	if (ver < KSP_SCHEMA_VERSION) {
		if (!store->rw) {
			ksp_set_error(ctx, "%s: store schema %d is older than %d; open it once read-write to migrate", path, ver, KSP_SCHEMA_VERSION);
			r = -EPROTO;
			goto fail;
		}
		r = migrate(store, ver);
		if (r < 0) {
			if (r == -EBUSY)
				ksp_set_error(ctx, "%s: database is busy (another ksp is writing); try again when it has finished", path);
			else
				ksp_set_error(ctx, "%s: cannot create the store schema: %s", path, strerror(-r));
			goto fail;
		}
	}
	r = check_schema(store);
	if (r < 0)
		goto fail;
	*ret = store;
	return 0;
fail:
	if (r == -ENOMEM && !ksp_get_error(ctx))
		ksp_set_error(ctx, "%s: out of memory opening the store", path);
	ksp_store_unref(store);
	return r;
}

/*
 * A new store is written with SQLite's rollback journal until its first
 * commit, and then switched to WAL (which every later read-write open asks
 * for).  Its first transaction is often the load of a whole keyring (10^6
 * keys: 3 GB): in WAL mode each page would be written twice, into the -wal
 * and then by the checkpoint into the file (read back in between).  A
 * rollback journal holds only the pages the file had before (a new store's
 * schema, a few pages), as SQLite journals no page past the file's
 * original end: each page is written once, in place.  A crash during that
 * first transaction leaves a longer file and a hot -journal: the next
 * read-write open rolls the file back to the empty store it was, and a
 * read-only one is refused (journal_pending()), so no half store is ever
 * read as a store.
 */
static void wal_now(struct ksp_store *store)
{
	if (!store->wal_later || store->txn_depth > 0 || store->db == NULL)
		return;
	/* busy (another connection reads it): the next open does it */
	if (sqlite3_exec(store->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) == SQLITE_OK)
		store->wal_later = false;
}

KSP_EXPORT struct ksp_store *ksp_store_ref(struct ksp_store *store)
{
	if (store)
		store->refcount++;
	return store;
}

KSP_EXPORT struct ksp_store *ksp_store_unref(struct ksp_store *store)
{
	if (store == NULL || --store->refcount > 0)
		return NULL;
	if (store->txn_depth > 0 && store->db)
		ksp_store_exec(store, "ROLLBACK");
	else
		wal_now(store);
	ksp_store_set_cache(store, NULL, NULL);
	if (store->db)
		sqlite3_close_v2(store->db);
	free(store->path);
	ksp_unref(store->ctx);
	free(store);
	return NULL;
}

KSP_EXPORT struct ksp_ctx *ksp_store_get_ctx(const struct ksp_store *store)
{
	return store ? store->ctx : NULL;
}

KSP_EXPORT const char *ksp_store_get_path(const struct ksp_store *store)
{
	return store ? store->path : NULL;
}

KSP_EXPORT int ksp_store_get_schema_version(const struct ksp_store *store)
{
	return store ? store->schema_version : -EINVAL;
}

KSP_EXPORT int ksp_store_begin(struct ksp_store *store)
{
	int r;

	if (store == NULL)
		return -EINVAL;
	if (store->txn_depth++ > 0)
		return 0;
	store->txn_failed = false;
	r = ksp_store_exec(store, "BEGIN IMMEDIATE");
	if (r < 0) {
		store->txn_depth = 0;
		if (r == -EBUSY)
			ksp_set_error(store->ctx, "%s: database is busy (another ksp is writing); try again when it has finished", store->path);
		else if (r == -EROFS)
			ksp_set_error(store->ctx, "%s: store is read-only; check the file's permissions", store->path);
		else
			ksp_set_error(store->ctx, "%s: cannot start a transaction: %s", store->path, strerror(-r));
	}
	return r;
}

KSP_EXPORT int ksp_store_commit(struct ksp_store *store)
{
	int r;

	if (store == NULL || store->txn_depth <= 0)
		return -EINVAL;
	if (--store->txn_depth > 0)
		return 0;
	if (store->txn_failed) {
		ksp_store_exec(store, "ROLLBACK");
		return -ECANCELED;
	}
	r = ksp_store_exec(store, "COMMIT");
	if (r < 0) {
		ksp_store_exec(store, "ROLLBACK");
		store->after_commit = NULL;
		if (r == -ENOSPC)
			ksp_set_error(store->ctx, "%s: disk full; nothing was written, free some space and run the command again", store->path);
		else
			ksp_set_error(store->ctx, "%s: cannot commit: %s; nothing was written", store->path, strerror(-r));
		return r;
	}
	wal_now(store);
	if (store->after_commit) {
		/* a load: the graph snapshot for trust queries now rather than
		 * at the first query (a failure only costs that query time) */
		int (*fn)(struct ksp_store *store) = store->after_commit;

		store->after_commit = NULL;
		if (fn(store) < 0) {
			INFO(store->ctx, "%s: the graph snapshot is not updated: %s", store->path,
			     ksp_get_error(store->ctx) ? ksp_get_error(store->ctx) : "error");
			ksp_clear_error(store->ctx);
		}
	}
	return 0;
}

void ksp_store_after_commit(struct ksp_store *store, int (*fn)(struct ksp_store *store))
{
	store->after_commit = fn;
}

KSP_EXPORT int ksp_store_rollback(struct ksp_store *store)
{
	if (store == NULL || store->txn_depth <= 0)
		return -EINVAL;
	if (--store->txn_depth > 0) {
		store->txn_failed = true;
		return 0;
	}
	return ksp_store_exec(store, "ROLLBACK");
}

KSP_EXPORT int64_t ksp_store_count(struct ksp_store *store, const char *what)
{
	static const char *const tables[] = { "keys", "uids", "certs", "participants",
					      "list_versions", "signed", "events" };
	char sql[96];
	sqlite3_stmt *st;
	int64_t n = 0;
	size_t i;
	int rc;

	if (store == NULL || what == NULL)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(tables); i++)
		if (strcmp(what, tables[i]) == 0)
			break;
	if (i == ARRAY_SIZE(tables))
		return -EINVAL;
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", tables[i]);
	rc = sqlite3_prepare_v2(store->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(store->ctx, store->db, rc, sql);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return ksp_errno_from_sqlite(store->ctx, store->db, rc, sql);
	return n;
}

KSP_EXPORT int ksp_store_check(struct ksp_store *store)
{
	sqlite3_stmt *st;
	int rc, ok = 0;

	if (store == NULL)
		return -EINVAL;
	rc = sqlite3_prepare_v2(store->db, "PRAGMA integrity_check", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(store->ctx, store->db, rc, "integrity_check");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		ok = t && strcmp((const char *)t, "ok") == 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return ksp_errno_from_sqlite(store->ctx, store->db, rc, "integrity_check");
	return ok;
}

int64_t ksp_store_key_id(struct ksp_store *store, const char *fpr)
{
	sqlite3_stmt *st;
	int64_t id = 0;
	int rc;

	rc = sqlite3_prepare_v2(store->db, "SELECT id FROM keys WHERE fpr = ?", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(store->ctx, store->db, rc, "key lookup");
	sqlite3_bind_text(st, 1, fpr, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE)
		id = ksp_errno_from_sqlite(store->ctx, store->db, rc, "key lookup");
	sqlite3_finalize(st);
	return id;
}

KSP_EXPORT int ksp_store_get_key_uid(struct ksp_store *store, const char *fpr, char **ret, size_t *ret_len)
{
	sqlite3_stmt *st = NULL;
	int rc, r;

	if (store == NULL || fpr == NULL || ret == NULL)
		return -EINVAL;
	/* the primary user ID if one is marked, else the first unrevoked,
	 * else the first */
	rc = sqlite3_prepare_v2(store->db,
				"SELECT u.uid FROM uids u JOIN keys k ON k.id = u.key_id WHERE k.fpr = ? AND u.is_attr = 0 "
				"ORDER BY u.primary_uid DESC, u.revoked != 0, u.idx LIMIT 1",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(store->ctx, store->db, rc, "user ID");
	sqlite3_bind_text(st, 1, fpr, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		size_t n = (size_t)sqlite3_column_bytes(st, 0);
		char *s = malloc(n + 1);
		if (s == NULL) {
			r = -ENOMEM;
		} else {
			if (n)
				memcpy(s, sqlite3_column_blob(st, 0), n);
			s[n] = '\0';
			*ret = s;
			if (ret_len)
				*ret_len = n;
			r = 0;
		}
	} else {
		r = rc == SQLITE_DONE ? -ENOENT : ksp_errno_from_sqlite(store->ctx, store->db, rc, "user ID");
	}
	sqlite3_finalize(st);
	return r;
}
