/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * schema-rows: a database's schema as ksp compares it (store.c refuses a
 * store whose schema is not exactly ksp's), shared with the build-time
 * generator of schema-want.c (schema-rows-gen.c).  Internal to libksp.
 */
#pragma once
#include <stddef.h>

struct sqlite3;
struct strbuf;

/* The rows of @db's sqlite_master, "type\tname\ttbl_name\tsql\0" each,
 * sorted (SQLite's statistics tables left out), appended to @sb.
 * 0, -ENOMEM, or -EBADMSG when they cannot be read. */
int ksp_schema_rows(struct sqlite3 *db, struct strbuf *sb);
/* The same rows for ksp's own schema (schema*.sql run on an empty
 * in-memory database): 0 or -ENOMEM. */
int ksp_schema_rows_ksp(struct strbuf *sb);

/* ksp_schema_rows_ksp() as the build's SQLite gave it (schema-want.c,
 * generated): a store whose rows are these bytes has ksp's schema, and
 * need not be compared with a schema built in memory at every open (a
 * quarter of a small query's time).  Any other store still is: another
 * SQLite may write the rows of the same schema differently. */
extern const char ksp_schema_want[];
extern const size_t ksp_schema_want_len;
