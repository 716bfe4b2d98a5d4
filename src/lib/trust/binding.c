// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * binding.c: which keys hold a user ID or an address
 * (ksp_trust_find_binding()), and the test the engine's binding questions
 * share with it; moved out of trust.c.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sqlite3.h>
#include "lib/addr.h"
#include "lib/libksp-private.h"
#include "lib/wot/wot-snap.h"
#include "lib/trust/whatif.h"
#include "lib/trust/policy.h"
#include "lib/trust/result.h"
#include "lib/trust/model.h"
#include "lib/trust/trust-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"
#include "lib/trust/trust-private.h"

static bool uid_has_email(const void *uid, size_t n, const char *email)
{
	char *a = NULL;
	bool yes;

	if (ksp_uid_address((const char *)uid, n, &a) < 0 || a == NULL)
		return false;
	yes = strcasecmp(a, email) == 0;
	free(a);
	return yes;
}

/* Does user ID @u (@n bytes) answer the binding question (@uid exactly, or
 * the address @email)? */
bool ksp_trust_uid_matches(const void *u, size_t n, const void *uid, size_t uid_len, const char *email)
{
	if (email)
		return uid_has_email(u, n, email);
	return n == uid_len && (n == 0 || memcmp(u, uid, n) == 0);
}

KSP_EXPORT int ksp_trust_find_binding(struct ksp_store *store, const void *uid, size_t uid_len, const char *email,
				      char (**ret_fprs)[65], size_t *ret_n)
{
	struct ksp_ctx *ctx;
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	char (*fprs)[65] = NULL;
	size_t n = 0;
	int rc, r = 0;

	if (store == NULL || ret_fprs == NULL || ret_n == NULL || (uid == NULL) == (email == NULL))
		return -EINVAL;
	ctx = ksp_store_get_ctx(store);
	db = ksp_store_db(store);
	if (email && (*email == '\0' || strchr(email, '@') == NULL)) {
		ksp_set_error(ctx, "'%.80s' is not an e-mail address (NAME@DOMAIN)", email);
		return -EINVAL;
	}
	/* a scan of the user IDs (no index on the address); the address test
	 * proper is uid_has_email() */
	rc = sqlite3_prepare_v2(db,
				email ? "SELECT k.fpr, u.uid FROM uids u JOIN keys k ON k.id = u.key_id WHERE u.is_attr = 0 "
					"AND instr(lower(CAST(u.uid AS TEXT)), lower(?1)) > 0 ORDER BY k.fpr"
				      : "SELECT k.fpr, u.uid FROM uids u JOIN keys k ON k.id = u.key_id WHERE u.is_attr = 0 "
					"AND u.uid = ?1 ORDER BY k.fpr",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ctx, db, rc, "uids");
	if (email)
		sqlite3_bind_text(st, 1, email, -1, SQLITE_STATIC);
	else
		sqlite3_bind_blob(st, 1, uid_len ? uid : "", (int)uid_len, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(st, 0);
		const void *u = sqlite3_column_blob(st, 1);
		size_t ul = (size_t)sqlite3_column_bytes(st, 1);
		if (f == NULL || !ksp_trust_uid_matches(u, ul, uid, uid_len, email) || (n && strcmp(fprs[n - 1], f) == 0))
			continue;
		if (n % 16 == 0) {
			void *nn = realloc(fprs, (n + 16) * sizeof(*fprs));
			if (nn == NULL) {
				r = -ENOMEM;
				break;
			}
			fprs = nn;
		}
		snprintf(fprs[n++], sizeof(fprs[0]), "%s", f);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = ksp_errno_from_sqlite(ctx, db, rc, "uids");
	sqlite3_finalize(st);
	if (r < 0) {
		free(fprs);
		return r;
	}
	*ret_fprs = fprs;
	*ret_n = n;
	return 0;
}
