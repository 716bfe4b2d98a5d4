// SPDX-License-Identifier: LGPL-2.1-or-later
/* schema-rows.c: a database's schema as ksp compares it (schema-rows.h). */
#include <errno.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/schema.h"
#include "lib/store/schema-rows.h"
#include "shared/strbuf.h"

static const char schema_rows_sql[] =
	"SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master "
	"WHERE name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\' ORDER BY type, name";

int ksp_schema_rows(sqlite3 *db, struct strbuf *sb)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(db, schema_rows_sql, -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < 4; i++) {
			const unsigned char *t = sqlite3_column_text(st, i);
			strbuf_addstr(sb, t ? (const char *)t : "");
			strbuf_addch(sb, i < 3 ? '\t' : '\0');
		}
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_NOMEM ? -ENOMEM : -EBADMSG;
	return strbuf_ok(sb) ? 0 : -ENOMEM;
}

int ksp_schema_rows_ksp(struct strbuf *sb)
{
	sqlite3 *mem = NULL;
	int r;

	if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK) {
		sqlite3_close_v2(mem);
		return -ENOMEM;
	}
	r = sqlite3_exec(mem, ksp_schema_sql, NULL, NULL, NULL) == SQLITE_OK &&
			    sqlite3_exec(mem, ksp_schema2_sql, NULL, NULL, NULL) == SQLITE_OK &&
			    sqlite3_exec(mem, ksp_schema3_sql, NULL, NULL, NULL) == SQLITE_OK &&
			    sqlite3_exec(mem, ksp_schema4_sql, NULL, NULL, NULL) == SQLITE_OK &&
			    sqlite3_exec(mem, ksp_schema5_sql, NULL, NULL, NULL) == SQLITE_OK &&
			    sqlite3_exec(mem, ksp_schema6_sql, NULL, NULL, NULL) == SQLITE_OK &&
			    sqlite3_exec(mem, ksp_schema7_sql, NULL, NULL, NULL) == SQLITE_OK &&
			    sqlite3_exec(mem, ksp_schema8_sql, NULL, NULL, NULL) == SQLITE_OK &&
			    sqlite3_exec(mem, ksp_schema9_sql, NULL, NULL, NULL) == SQLITE_OK
		    ? 0
		    : -ENOMEM;
	if (r == 0)
		r = ksp_schema_rows(mem, sb);
	sqlite3_close_v2(mem);
	return r == -EBADMSG ? -ENOMEM : r;
}
