// SPDX-License-Identifier: LGPL-2.1-or-later
/* Metrics of the web of trust in the store (definitions: docs, DESIGN). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/wot-graph.h"

struct ranked {
	char fpr[65];
	uint64_t sum;
};

struct ksp_wot_stats {
	uint64_t vertices, edges, scc_count, ss_size, ss_edges, dist_sum;
	double msd;
	struct ranked *rank; /* ss_size entries */
};

KSP_EXPORT struct ksp_wot_stats *ksp_wot_stats_free(struct ksp_wot_stats *s)
{
	if (s) {
		free(s->rank);
		free(s);
	}
	return NULL;
}

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->sum != y->sum)
		return x->sum < y->sum ? -1 : 1;
	return strcmp(x->fpr, y->fpr);
}

/* Structural edges: a third-party certification on a user ID (not a photo
 * ID), exportable, by a key in the store found by its fingerprint, else by
 * its 64-bit key ID. */
static const char edges_sql[] =
	"SELECT ik.id, u.key_id FROM certs c JOIN uids u ON u.id = c.uid_id "
	"JOIN keys ik ON ik.fpr = c.issuer_fpr "
	"WHERE c.sig_type BETWEEN 16 AND 19 AND c.exportable = 1 AND u.is_attr = 0 AND ik.id != u.key_id "
	"UNION "
	"SELECT ik.id, u.key_id FROM certs c JOIN uids u ON u.id = c.uid_id "
	"JOIN keys ik ON c.issuer_fpr IS NULL AND ik.keyid = c.issuer_keyid "
	"WHERE c.sig_type BETWEEN 16 AND 19 AND c.exportable = 1 AND u.is_attr = 0 AND ik.id != u.key_id";

KSP_EXPORT int ksp_wot_stats_new(struct ksp_store *store, int64_t at, unsigned int flags,
				 struct ksp_wot_stats **ret)
{
	struct ksp_ctx *ctx;
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	struct ksp_wot_stats *s = NULL;
	struct ksp_wgraph *g = NULL;
	uint32_t *map = NULL, *src = NULL, *dst = NULL, *members = NULL, *comp = NULL;
	char (*fprs)[65] = NULL;
	uint64_t *sums = NULL;
	size_t m = 0, cap = 0;
	int64_t maxid = 0;
	uint32_t n = 0, ncomp = 0, count = 0;
	int rc, r;

	if (store == NULL || ret == NULL)
		return -EINVAL;
	ctx = ksp_store_get_ctx(store);
	ksp_clear_error(ctx);
	if (!(flags & KSP_WOT_STRUCTURAL)) {
		ksp_set_error(ctx, "only --structural metrics are available yet: certification verification is not implemented");
		return -EOPNOTSUPP;
	}
	db = ksp_store_db(store);
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	rc = sqlite3_prepare_v2(db, "SELECT count(*), coalesce(max(id), 0) FROM keys", -1, &st, NULL);
	if (rc != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
		r = ksp_errno_from_sqlite(ctx, db, rc ? rc : sqlite3_errcode(db), "count keys");
		goto out;
	}
	n = (uint32_t)sqlite3_column_int64(st, 0);
	maxid = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	st = NULL;
	map = calloc((size_t)maxid + 1, sizeof(*map));
	fprs = calloc(n ? n : 1, sizeof(*fprs));
	if (map == NULL || fprs == NULL) {
		r = -ENOMEM;
		goto out;
	}
	rc = sqlite3_prepare_v2(db, "SELECT id, fpr FROM keys ORDER BY fpr", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(ctx, db, rc, "keys");
		goto out;
	}
	for (uint32_t i = 0; i < n && sqlite3_step(st) == SQLITE_ROW; i++) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id < 0 || id > maxid) {
			r = -EBADMSG;
			goto out;
		}
		map[id] = i;
		snprintf(fprs[i], sizeof(fprs[i]), "%s", (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	rc = sqlite3_prepare_v2(db, edges_sql, -1, &st, NULL);
	if (rc != SQLITE_OK) {
		st = NULL;
		r = ksp_errno_from_sqlite(ctx, db, rc, "edges");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
		if (a < 0 || a > maxid || b < 0 || b > maxid)
			continue;
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
		src[m] = map[a];
		dst[m] = map[b];
		m++;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(ctx, db, rc, "edges");
		goto out;
	}
	r = ksp_wgraph_new(n, src, dst, m, &g);
	if (r < 0)
		goto out;
	s->vertices = n;
	s->edges = ksp_wgraph_m(g);
	comp = calloc(n ? n : 1, sizeof(*comp));
	if (comp == NULL) {
		r = -ENOMEM;
		goto out;
	}
	r = ksp_wgraph_scc(g, comp, &ncomp);
	if (r < 0)
		goto out;
	s->scc_count = ncomp;
	if (n > 0) {
		r = ksp_wgraph_strong_set(g, &members, &count);
		if (r < 0)
			goto out;
	}
	s->ss_size = count;
	if (count > 1) {
		size_t within = 0;
		r = ksp_wgraph_count_edges_within(g, members, count, &within);
		if (r < 0)
			goto out;
		s->ss_edges = within;
		sums = calloc(count, sizeof(*sums));
		s->rank = calloc(count, sizeof(*s->rank));
		if (sums == NULL || s->rank == NULL) {
			r = -ENOMEM;
			goto out;
		}
		r = ksp_wgraph_msd(g, members, count, 2, sums, NULL);
		if (r < 0)
			goto out;
		for (uint32_t i = 0; i < count; i++) {
			s->dist_sum += sums[i];
			s->rank[i].sum = sums[i];
			memcpy(s->rank[i].fpr, fprs[members[i]], sizeof(s->rank[i].fpr));
		}
		qsort(s->rank, count, sizeof(*s->rank), cmp_ranked);
		s->msd = (double)s->dist_sum / ((double)count * (double)(count - 1));
	}
	r = 0;
out:
	sqlite3_finalize(st);
	ksp_wgraph_free(g);
	free(map);
	free(src);
	free(dst);
	free(members);
	free(comp);
	free(fprs);
	free(sums);
	if (r < 0) {
		if (!ksp_get_error(ctx))
			ksp_set_error(ctx, "%s: cannot compute the metrics: %s", ksp_store_get_path(store), strerror(-r));
		ksp_wot_stats_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

#define GETTER(name, field)                                                              \
	KSP_EXPORT uint64_t ksp_wot_stats_get_##name(const struct ksp_wot_stats *s)    \
	{                                                                                \
		return s ? s->field : 0;                                                 \
	}
GETTER(vertices, vertices)
GETTER(edges, edges)
GETTER(scc_count, scc_count)
GETTER(strong_set_size, ss_size)
GETTER(strong_set_edges, ss_edges)
GETTER(distance_sum, dist_sum)

KSP_EXPORT double ksp_wot_stats_get_msd(const struct ksp_wot_stats *s)
{
	return s ? s->msd : 0.0;
}

KSP_EXPORT const char *ksp_wot_stats_get_ranked(const struct ksp_wot_stats *s, size_t rank,
						uint64_t *ret_sum, double *ret_msd)
{
	if (s == NULL || rank >= s->ss_size || s->rank == NULL)
		return NULL;
	if (ret_sum)
		*ret_sum = s->rank[rank].sum;
	if (ret_msd)
		*ret_msd = (double)s->rank[rank].sum / (double)(s->ss_size - 1);
	return s->rank[rank].fpr;
}
