// SPDX-License-Identifier: LGPL-2.1-or-later
/* The store and the party through the public API: creation, reopening,
 * refusals, schema versions, nested transactions. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gcrypt.h>
#include <sqlite3.h>

#include <libksp.h>
#include "shared/util.h"
#include "harness.h"

static char dir[64];

static struct ksp_ctx *setup(void)
{
	return ts_setup(dir, sizeof(dir), "store");
}

static void teardown(struct ksp_ctx *ctx)
{
	ts_teardown(ctx, dir);
}

static char *path(const char *name)
{
	static char buf[128];
	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static int test_open_missing(void)
{
	struct ksp_ctx *ctx = setup();
	struct ksp_store *st = (struct ksp_store *)0x1;

	TS_ASSERT(ctx != NULL);
	TS_ASSERT_INT_EQ(ksp_store_open(ctx, path("none.db"), 0, &st), -ENOENT);
	TS_ASSERT(st == (struct ksp_store *)0x1); /* untouched on failure */
	TS_ASSERT(ksp_get_error(ctx) != NULL && strstr(ksp_get_error(ctx), "none.db") != NULL);
	TS_ASSERT_INT_EQ(ksp_store_open(NULL, "x", 0, &st), -EINVAL);
	TS_ASSERT(ksp_store_unref(NULL) == NULL);
	teardown(ctx);
	return 0;
}
DEFINE_TEST(test_open_missing, "opening a missing store: -ENOENT, message names the file");

static int test_create_party(void)
{
	struct ksp_ctx *ctx = setup();
	struct ksp_store *st = NULL, *st2 = NULL;
	struct ksp_party *p = NULL, *p2 = NULL;

	TS_ASSERT(ctx != NULL);
	TS_ASSERT_INT_EQ(ksp_store_open(ctx, path("a.db"), KSP_STORE_CREATE | KSP_STORE_READ_WRITE, &st), 0);
	TS_ASSERT_INT_EQ(ksp_store_get_schema_version(st), 9);
	TS_ASSERT_INT_EQ(ksp_party_open(st, &p), -ENOENT);
	TS_ASSERT_INT_EQ(ksp_party_create(st, "P", "2027-02-30", NULL, NULL, &p), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_party_create(st, "P", "2027-01-15", "L", "0x1234", &p), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_party_create(st, "P", "2027-01-15", "L", NULL, &p), 0);
	TS_ASSERT_STR_EQ(ksp_party_get_name(p), "P");
	TS_ASSERT(!ksp_party_is_closed(p));
	TS_ASSERT_INT_EQ(ksp_party_get_list_version(p), 0);
	TS_ASSERT_INT_EQ(ksp_party_create(st, "Q", "2027-01-15", NULL, NULL, &p2), -EEXIST);
	TS_ASSERT_INT_EQ(ksp_party_close(p, NULL), -ENODATA);
	/* the party pins its store: unref in any order */
	st = ksp_store_unref(st);
	TS_ASSERT_STR_EQ(ksp_party_get_date(p), "2027-01-15");
	p = ksp_party_unref(p);
	/* read-only reopen sees it */
	TS_ASSERT_INT_EQ(ksp_store_open(ctx, path("a.db"), 0, &st2), 0);
	TS_ASSERT_INT_EQ(ksp_party_open(st2, &p2), 0);
	TS_ASSERT_STR_EQ(ksp_party_get_location(p2), "L");
	TS_ASSERT_INT_EQ(ksp_store_check(st2), 1);
	TS_ASSERT_INT_EQ(ksp_store_count(st2, "participants"), 0);
	TS_ASSERT_INT_EQ(ksp_store_count(st2, "nope; DROP TABLE keys"), -EINVAL);
	ksp_party_unref(p2);
	ksp_store_unref(st2);
	teardown(ctx);
	return 0;
}
DEFINE_TEST(test_create_party, "create a party, refuse a second, reopen read-only");

static int test_bad_files(void)
{
	struct ksp_ctx *ctx = setup();
	struct ksp_store *st = NULL;
	sqlite3 *db;
	int fd;

	TS_ASSERT(ctx != NULL);
	fd = open(path("text"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	TS_ASSERT(fd >= 0);
	TS_ASSERT(write(fd, "not a database, just text\n", 26) == 26);
	close(fd);
	TS_ASSERT_INT_EQ(ksp_store_open(ctx, path("text"), KSP_STORE_READ_WRITE, &st), -EBADMSG);
	/* someone else's SQLite database */
	TS_ASSERT(sqlite3_open(path("other.db"), &db) == SQLITE_OK);
	TS_ASSERT(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	TS_ASSERT_INT_EQ(ksp_store_open(ctx, path("other.db"), KSP_STORE_READ_WRITE, &st), -EBADMSG);
	TS_ASSERT(strstr(ksp_get_error(ctx), "not a ksp store") != NULL);
	/* a store from a newer ksp */
	TS_ASSERT_INT_EQ(ksp_store_open(ctx, path("new.db"), KSP_STORE_CREATE | KSP_STORE_READ_WRITE, &st), 0);
	st = ksp_store_unref(st);
	TS_ASSERT(sqlite3_open(path("new.db"), &db) == SQLITE_OK);
	TS_ASSERT(sqlite3_exec(db, "PRAGMA user_version = 10", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	TS_ASSERT_INT_EQ(ksp_store_open(ctx, path("new.db"), KSP_STORE_READ_WRITE, &st), -EPROTO);
	TS_ASSERT(strstr(ksp_get_error(ctx), "newer ksp") != NULL);
	teardown(ctx);
	return 0;
}
DEFINE_TEST(test_bad_files, "not a database, someone else's database, a newer schema");

static int test_nested_txn(void)
{
	struct ksp_ctx *ctx = setup();
	struct ksp_store *st = NULL;
	struct ksp_party *p = NULL;

	TS_ASSERT(ctx != NULL);
	TS_ASSERT_INT_EQ(ksp_store_open(ctx, path("t.db"), KSP_STORE_CREATE | KSP_STORE_READ_WRITE, &st), 0);
	TS_ASSERT_INT_EQ(ksp_store_begin(st), 0);
	TS_ASSERT_INT_EQ(ksp_party_create(st, "P", "2027-01-15", NULL, NULL, &p), 0);
	p = ksp_party_unref(p);
	/* the inner commit does not commit; the outer rollback undoes it all */
	TS_ASSERT_INT_EQ(ksp_store_rollback(st), 0);
	TS_ASSERT_INT_EQ(ksp_party_open(st, &p), -ENOENT);
	TS_ASSERT_INT_EQ(ksp_store_commit(st), -EINVAL);
	/* an inner rollback dooms the outer commit */
	TS_ASSERT_INT_EQ(ksp_store_begin(st), 0);
	TS_ASSERT_INT_EQ(ksp_store_begin(st), 0);
	TS_ASSERT_INT_EQ(ksp_store_rollback(st), 0);
	TS_ASSERT_INT_EQ(ksp_store_commit(st), -ECANCELED);
	ksp_store_unref(st);
	teardown(ctx);
	return 0;
}
DEFINE_TEST(test_nested_txn, "nested transactions: only the outermost commits, an inner rollback wins");

static int test_verify_list(void)
{
	struct ksp_ctx *ctx = setup();
	struct ksp_store *st = NULL;
	struct ksp_party *p = NULL;
	uint8_t *key = NULL;
	size_t len = 0;
	char *text = NULL, *sha = NULL, *rmd = NULL;
	size_t tlen = 0;
	int v = 0;

	TS_ASSERT(ctx != NULL);
	TS_ASSERT_INT_EQ(ksp_set_tmpdir(ctx, dir), 0);
	TS_ASSERT_INT_EQ(read_file_all("tests/keyrings/bob-ed25519.asc", 0, &key, &len), 0);
	TS_ASSERT_INT_EQ(ksp_store_open(ctx, path("v.db"), KSP_STORE_CREATE | KSP_STORE_READ_WRITE, &st), 0);
	TS_ASSERT_INT_EQ(ksp_party_create(st, "P", "2027-01-15", NULL, NULL, &p), 0);
	TS_ASSERT_INT_EQ(ksp_party_add(p, key, len, "bob", 0, NULL, NULL), 1);
	TS_ASSERT_INT_EQ(ksp_party_add(p, key, len, "bob", 0, NULL, NULL), 0); /* duplicate */
	TS_ASSERT_INT_EQ(ksp_party_close(p, &v), 0);
	TS_ASSERT_INT_EQ(v, 1);
	TS_ASSERT_INT_EQ(ksp_party_add(p, key, len, "bob", 0, NULL, NULL), -EPERM);
	TS_ASSERT_INT_EQ(ksp_party_get_list_text(p, 0, &text, &tlen), 0);
	TS_ASSERT_INT_EQ(ksp_party_get_digests(p, 1, &v, &sha, &rmd), 0);
	TS_ASSERT_INT_EQ(strlen(sha), 64);
	TS_ASSERT_INT_EQ(strlen(rmd), 40);
	TS_ASSERT_INT_EQ(ksp_party_verify_list(p, text, tlen, &v), 1);
	text[0] ^= 1;
	TS_ASSERT_INT_EQ(ksp_party_verify_list(p, text, tlen, &v), 0);
	TS_ASSERT_INT_EQ(ksp_party_get_digests(p, 5, &v, NULL, NULL), -ENOENT);
	free(text);
	free(sha);
	free(rmd);
	free(key);
	ksp_party_unref(p);
	ksp_store_unref(st);
	teardown(ctx);
	return 0;
}
DEFINE_TEST(test_verify_list, "add, duplicate, close, verify and tamper through the API");
