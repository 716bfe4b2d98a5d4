// SPDX-License-Identifier: LGPL-2.1-or-later
/* The web-of-trust graph of the store at a reference time (rules: wot.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/wot/wot.h"

/* ?1 = T, ?2: 1 drops SHA-1 and RIPEMD-160, 2 keeps MD5 (hash-rules.h) */
static const char vertex_sql[] =
	"SELECT id, fpr, created > ?1, revoked != 0 AND revoked <= ?1, expires != 0 AND expires <= ?1 "
	"FROM keys ORDER BY fpr";

/* The newest verified certification revocation per (user ID, issuer) made
 * at or before T: a certification counts when it is newer than that. */
#define REVOCATIONS                                                                                    \
	" LEFT JOIN (SELECT uid_id, issuer_fpr, max(created) AS rt FROM certs WHERE sig_type = 48 "    \
	"AND verified = 1 AND created <= ?1 AND issuer_fpr IS NOT NULL GROUP BY uid_id, issuer_fpr) rv " \
	"ON rv.uid_id = c.uid_id AND rv.issuer_fpr = c.issuer_fpr "

#define EDGE_COUNTS                                                                                    \
	"c.sig_type BETWEEN 16 AND 19 AND c.verified = 1 AND c.exportable = 1 AND u.is_attr = 0 "      \
	"AND ik.id != u.key_id AND c.created <= ?1 AND (c.expires = 0 OR c.expires > ?1) "             \
	"AND (u.revoked = 0 OR u.revoked > ?1) AND (c.hash_algo != 1 OR (?2 & 2) != 0) "               \
	"AND ((?2 & 1) = 0 OR c.hash_algo NOT IN (2, 3)) "                                              \
	"AND (rv.rt IS NULL OR rv.rt < c.created)"

/* Repeated pairs (several user IDs, several certifications) are left to
 * ksp_wgraph_new(), which drops them: DISTINCT or UNION here would make
 * SQLite sort every row through a temporary B-tree on disk. */
static const char edge_sql[] =
	"SELECT ik.id, u.key_id FROM certs c JOIN uids u ON u.id = c.uid_id "
	"JOIN keys ik ON ik.fpr = c.issuer_fpr" REVOCATIONS "WHERE " EDGE_COUNTS;

/* Structural: by fingerprint, else by key ID. */
static const char structural_sql[] =
	"SELECT ik.id, u.key_id FROM certs c JOIN uids u ON u.id = c.uid_id "
	"JOIN keys ik ON ik.fpr = c.issuer_fpr "
	"WHERE c.sig_type BETWEEN 16 AND 19 AND c.exportable = 1 AND u.is_attr = 0 AND ik.id != u.key_id "
	"UNION ALL "
	"SELECT ik.id, u.key_id FROM certs c JOIN uids u ON u.id = c.uid_id "
	"JOIN keys ik ON c.issuer_fpr IS NULL AND ik.keyid = c.issuer_keyid "
	"WHERE c.sig_type BETWEEN 16 AND 19 AND c.exportable = 1 AND u.is_attr = 0 AND ik.id != u.key_id";

static const char edge_cert_sql[] =
	"SELECT c.created, u.uid FROM certs c JOIN uids u ON u.id = c.uid_id "
	"JOIN keys ik ON ik.fpr = c.issuer_fpr" REVOCATIONS "WHERE ik.id = ?3 AND u.key_id = ?4 AND " EDGE_COUNTS
	" ORDER BY c.created DESC LIMIT 1";

static const char structural_cert_sql[] =
	"SELECT c.created, u.uid FROM certs c JOIN uids u ON u.id = c.uid_id JOIN keys ik "
	"ON (ik.fpr = c.issuer_fpr OR (c.issuer_fpr IS NULL AND ik.keyid = c.issuer_keyid)) "
	"WHERE ik.id = ?3 AND u.key_id = ?4 AND c.sig_type BETWEEN 16 AND 19 AND c.exportable = 1 "
	"AND u.is_attr = 0 AND ?1 = ?1 AND ?2 = ?2 ORDER BY c.created DESC LIMIT 1";

static int hash_bits(unsigned flags)
{
	return ((flags & KSP_WOT_NO_SHA1) ? 1 : 0) | ((flags & KSP_WOT_ALLOW_MD5) ? 2 : 0);
}

void ksp_wot_view_free(struct ksp_wot_view *v)
{
	if (v == NULL)
		return;
	ksp_wgraph_free(v->g);
	free(v->fpr);
	free(v->key_id);
	free(v);
}

static int cmp_fpr(const void *a, const void *b)
{
	return strcasecmp(a, b);
}

int64_t ksp_wot_view_find(const struct ksp_wot_view *v, const char *fpr)
{
	const char (*hit)[65];

	if (v == NULL || fpr == NULL || v->n == 0)
		return -ENOENT;
	hit = bsearch(fpr, v->fpr, v->n, sizeof(*v->fpr), cmp_fpr);
	return hit ? (int64_t)(hit - v->fpr) : -ENOENT;
}

/* map keys.id -> vertex: sorted pairs, binary search */
struct idmap {
	int64_t id;
	uint32_t vertex;
};

static int cmp_idmap(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int64_t lookup(const struct idmap *m, uint32_t n, int64_t id)
{
	struct idmap key = { .id = id };
	const struct idmap *hit = bsearch(&key, m, n, sizeof(*m), cmp_idmap);
	return hit ? (int64_t)hit->vertex : -1;
}

int ksp_wot_view_new(struct ksp_store *store, int64_t at, unsigned int flags, struct ksp_wot_view **ret)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st = NULL;
	struct ksp_wot_view *v;
	struct idmap *map = NULL;
	uint32_t *src = NULL, *dst = NULL;
	size_t m = 0, cap = 0, vcap = 0;
	bool structural = flags & KSP_WOT_STRUCTURAL;
	int64_t old_cache;
	int rc, r;

	v = calloc(1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	v->at = at;
	v->flags = flags;
	old_cache = ksp_store_cache_grow(store, KSP_STORE_SCAN_CACHE_KB);
	rc = sqlite3_prepare_v2(db, vertex_sql, -1, &st, NULL);
	if (rc != SQLITE_OK) {
		st = NULL;
		r = ksp_errno_from_sqlite(ctx, db, rc, "keys");
		goto out;
	}
	sqlite3_bind_int64(st, 1, at);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *fpr = (const char *)sqlite3_column_text(st, 1);
		bool future = sqlite3_column_int(st, 2), revoked = sqlite3_column_int(st, 3),
		     expired = sqlite3_column_int(st, 4);

		v->keys_total++;
		if (!structural) {
			if (future) {
				v->keys_future++;
				continue;
			}
			if (revoked) {
				v->keys_revoked++;
				continue;
			}
			if (expired) {
				v->keys_expired++;
				continue;
			}
		}
		if (v->n == vcap) {
			size_t nc = vcap ? vcap * 2 : 1024;
			void *a = realloc(v->fpr, nc * sizeof(*v->fpr)), *b, *c;
			if (a == NULL) {
				r = -ENOMEM;
				goto out;
			}
			v->fpr = a;
			b = realloc(v->key_id, nc * sizeof(*v->key_id));
			if (b == NULL) {
				r = -ENOMEM;
				goto out;
			}
			v->key_id = b;
			c = realloc(map, nc * sizeof(*map));
			if (c == NULL) {
				r = -ENOMEM;
				goto out;
			}
			map = c;
			vcap = nc;
		}
		snprintf(v->fpr[v->n], sizeof(v->fpr[v->n]), "%s", fpr ? fpr : "");
		v->key_id[v->n] = sqlite3_column_int64(st, 0);
		map[v->n] = (struct idmap){ .id = v->key_id[v->n], .vertex = v->n };
		v->n++;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(ctx, db, rc, "keys");
		goto out;
	}
	if (v->n)
		qsort(map, v->n, sizeof(*map), cmp_idmap);
	rc = sqlite3_prepare_v2(db, structural ? structural_sql : edge_sql, -1, &st, NULL);
	if (rc != SQLITE_OK) {
		st = NULL;
		r = ksp_errno_from_sqlite(ctx, db, rc, "certifications");
		goto out;
	}
	if (!structural) {
		sqlite3_bind_int64(st, 1, at);
		sqlite3_bind_int(st, 2, hash_bits(flags));
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t a = lookup(map, v->n, sqlite3_column_int64(st, 0));
		int64_t b = lookup(map, v->n, sqlite3_column_int64(st, 1));
		if (a < 0 || b < 0)
			continue; /* an end is not a vertex at T */
		if (m == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			uint32_t *ns = realloc(src, nc * sizeof(*ns));
			if (ns == NULL) {
				r = -ENOMEM;
				goto out;
			}
			src = ns;
			uint32_t *nd = realloc(dst, nc * sizeof(*nd));
			if (nd == NULL) {
				r = -ENOMEM;
				goto out;
			}
			dst = nd;
			cap = nc;
		}
		src[m] = (uint32_t)a;
		dst[m] = (uint32_t)b;
		m++;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(ctx, db, rc, "certifications");
		goto out;
	}
	r = ksp_wgraph_new(v->n, src, dst, m, &v->g);
out:
	sqlite3_finalize(st);
	ksp_store_cache_restore(store, old_cache);
	free(map);
	free(src);
	free(dst);
	if (r < 0) {
		ksp_wot_view_free(v);
		return r;
	}
	*ret = v;
	return 0;
}

int ksp_wot_edge_cert(struct ksp_store *store, const struct ksp_wot_view *v, uint32_t from, uint32_t to,
		      int64_t *ret_created, char **ret_uid, size_t *ret_uid_len)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st = NULL;
	int rc, r;

	if (from >= v->n || to >= v->n)
		return -EINVAL;
	rc = sqlite3_prepare_v2(db, (v->flags & KSP_WOT_STRUCTURAL) ? structural_cert_sql : edge_cert_sql, -1, &st,
				NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ctx, db, rc, "certification");
	sqlite3_bind_int64(st, 1, v->at);
	sqlite3_bind_int(st, 2, hash_bits(v->flags));
	sqlite3_bind_int64(st, 3, v->key_id[from]);
	sqlite3_bind_int64(st, 4, v->key_id[to]);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		size_t n = (size_t)sqlite3_column_bytes(st, 1);
		const void *u = sqlite3_column_blob(st, 1);
		char *copy = malloc(n + 1);
		if (copy == NULL) {
			r = -ENOMEM;
		} else {
			if (n)
				memcpy(copy, u, n);
			copy[n] = '\0';
			*ret_created = sqlite3_column_int64(st, 0);
			*ret_uid = copy;
			*ret_uid_len = n;
			r = 0;
		}
	} else if (rc == SQLITE_DONE) {
		r = -ENOENT;
	} else {
		r = ksp_errno_from_sqlite(ctx, db, rc, "certification");
	}
	sqlite3_finalize(st);
	return r;
}
