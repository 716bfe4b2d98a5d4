// SPDX-License-Identifier: LGPL-2.1-or-later
/* wot-cert.c: the one writer of a third-party certification (wot-cert.h). */
#include "lib/wot/wot-cert.h"

void ksp_wot_cert_bind(sqlite3_stmt *st, int64_t uid_id, const struct ksp_pgp_sig *s, const char *fpr,
		       const char *kid, int verified, const char *digest)
{
	sqlite3_bind_int64(st, 1, uid_id);
	if (fpr)
		sqlite3_bind_text(st, 2, fpr, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_text(st, 3, kid, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, s->type);
	sqlite3_bind_int(st, 5, s->pk_algo);
	sqlite3_bind_int(st, 6, s->hash_algo);
	sqlite3_bind_int64(st, 7, s->created);
	sqlite3_bind_int64(st, 8, s->expires ? (int64_t)s->created + s->expires : 0);
	sqlite3_bind_int(st, 9, s->exportable);
	sqlite3_bind_int(st, 10, s->trust_depth);
	sqlite3_bind_int(st, 11, s->trust_amount);
	sqlite3_bind_int(st, 12, verified);
	sqlite3_bind_blob(st, 13, s->body, (int)s->body_len, SQLITE_STATIC);
	sqlite3_bind_text(st, 14, digest, -1, SQLITE_STATIC);
	/* the trust signature's first regular expression, as given */
	if (s->n_regexes && s->regexes[0].len < 4096)
		sqlite3_bind_text(st, 15, (const char *)s->regexes[0].data, (int)s->regexes[0].len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 15);
}
