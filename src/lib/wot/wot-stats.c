// SPDX-License-Identifier: LGPL-2.1-or-later
/* Metrics of the web of trust in the store (definitions: wot.h, DESIGN). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/openpgp/hash-rules.h"
#include "lib/wot/wot-validity.h"
#include "lib/wot/wot-scan.h"
#include "lib/wot/wot-snap.h"
#include "lib/wot/wot.h"

struct ranked {
	uint32_t v;
	uint64_t sum;
};

struct ksp_wot_stats {
	struct ksp_ctx *ctx;
	struct ksp_store *store; /* NULL when made from a scan */
	const char *what;        /* for messages: the store's path, or "keyring" */
	struct ksp_wot_view *view;
	uint64_t edges, scc_count, ss_size, ss_edges, dist_sum;
	double msd;
	struct ranked *rank;   /* ss_size entries, by MSD */
	uint32_t *ss_members;  /* sorted vertex ids */
	int64_t *rank_of;      /* per vertex: rank or -1 */
	uint32_t *dist_from_ss, *dist_to_ss; /* per vertex */
	uint64_t hist[KSP_WGRAPH_MAX_DIST + 1];
	uint64_t *scc_sizes;   /* sizes of every component, descending */
	uint64_t certs[KSP_WOT_CERTS_MAX];
};

KSP_EXPORT struct ksp_wot_stats *ksp_wot_stats_free(struct ksp_wot_stats *s)
{
	if (s) {
		ksp_wot_view_free(s->view);
		ksp_store_unref(s->store);
		ksp_unref(s->ctx);
		free(s->rank);
		free(s->ss_members);
		free(s->rank_of);
		free(s->dist_from_ss);
		free(s->dist_to_ss);
		free(s->scc_sizes);
		free(s);
	}
	return NULL;
}

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x > y ? -1 : x < y;
}

/* By MSD then fingerprint: vertices are numbered in
 * fingerprint order, so ties by vertex id are ties by fingerprint. */
static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->sum != y->sum)
		return x->sum < y->sum ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* Multi-source BFS distances from (reverse: to) a set of vertices. */
static int set_bfs(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count, bool reverse,
		   uint32_t *dist)
{
	uint32_t n = ksp_wgraph_n(g), head = 0, tail = 0;
	uint32_t *queue = malloc((n ? n : 1) * sizeof(*queue));

	if (queue == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		dist[i] = KSP_WGRAPH_NONE;
	for (uint32_t i = 0; i < count; i++) {
		dist[members[i]] = 0;
		queue[tail++] = members[i];
	}
	while (head < tail) {
		uint32_t u = queue[head++];
		const uint32_t *nb;
		uint32_t d = reverse ? ksp_wgraph_in_neighbors(g, u, &nb) : ksp_wgraph_out_neighbors(g, u, &nb);
		for (uint32_t j = 0; j < d; j++)
			if (dist[nb[j]] == KSP_WGRAPH_NONE) {
				dist[nb[j]] = dist[u] + 1;
				queue[tail++] = nb[j];
			}
	}
	free(queue);
	return 0;
}

/* ---- the graph at T from the load's snapshot (wot-snap.h) ------------ */

static int cmp_node_fpr(const void *a, const void *b, void *arg)
{
	const struct ksp_wsnap *sn = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return strcmp(ksp_wsnap_fpr(sn, x), ksp_wsnap_fpr(sn, y));
}

/* The keys that are vertices at @at (the rules of wot.h and docs/design.md,
 * "Definitions"), in fingerprint order (the SQL view's ORDER BY fpr, binary
 * collation); vmap[node] = vertex, KSP_WGRAPH_NONE for the others. */
static int snap_vertices(const struct ksp_wsnap *sn, int64_t at, struct ksp_wot_view *v, uint32_t *vmap)
{
	uint32_t *order = malloc((sn->n ? sn->n : 1) * sizeof(*order));

	if (order == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < sn->n; i++) {
		const struct ksp_wsnap_node *k = &sn->nodes[i];

		vmap[i] = KSP_WGRAPH_NONE;
		v->keys_total++;
		switch (ksp_key_state_at(k, at)) { /* the one validity rule */
		case KSP_KEY_NOT_YET:
			v->keys_future++;
			break;
		case KSP_KEY_HARD_REVOKED:
		case KSP_KEY_SOFT_REVOKED:
			v->keys_revoked++;
			break;
		case KSP_KEY_EXPIRED:
			v->keys_expired++;
			break;
		case KSP_KEY_VALID:
			order[v->n++] = i;
			break;
		}
	}
	qsort_r(order, v->n, sizeof(*order), cmp_node_fpr, (void *)sn);
	v->fpr = malloc((v->n ? v->n : 1) * sizeof(*v->fpr));
	v->key_id = malloc((v->n ? v->n : 1) * sizeof(*v->key_id));
	if (v->fpr == NULL || v->key_id == NULL) {
		free(order);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < v->n; i++) {
		snprintf(v->fpr[i], sizeof(v->fpr[i]), "%s", ksp_wsnap_fpr(sn, order[i]));
		v->key_id[i] = sn->nodes[order[i]].key_id;
		vmap[order[i]] = i;
	}
	free(order);
	return 0;
}

/* The verified graph of the store at @at from its snapshot, with the
 * certifications that count under @flags' hash rules: the edges of
 * ksp_wot_view_new(), without reading the certifications with SQL. */
static int snap_view(struct ksp_store *store, int64_t at, unsigned flags, struct ksp_wot_view **ret)
{
	bool md5 = flags & KSP_WOT_ALLOW_MD5;
	int sha1 = (flags & KSP_WOT_NO_SHA1) ? KSP_SHA1_NO : KSP_SHA1_YES;
	struct ksp_wot_view *v = NULL;
	struct ksp_wsnap *sn = NULL;
	uint32_t *vmap = NULL, *src = NULL, *dst = NULL;
	size_t m = 0;
	int r = ksp_wsnap_get(store, &sn);

	if (r < 0)
		return r;
	r = -ENOMEM;
	v = calloc(1, sizeof(*v));
	vmap = malloc((sn->n ? sn->n : 1) * sizeof(*vmap));
	src = malloc((sn->m ? sn->m : 1) * sizeof(*src));
	dst = malloc((sn->m ? sn->m : 1) * sizeof(*dst));
	if (v == NULL || vmap == NULL || src == NULL || dst == NULL)
		goto out;
	v->at = at;
	v->flags = flags;
	r = snap_vertices(sn, at, v, vmap);
	if (r < 0)
		goto out;
	for (uint32_t u = 0; u < sn->n; u++) {
		if (vmap[u] == KSP_WGRAPH_NONE)
			continue;
		for (uint64_t e = sn->out_off[u]; e < sn->out_off[u + 1]; e++) {
			const struct ksp_wsnap_edge *ed = &sn->edges[e];

			if (vmap[ed->v] == KSP_WGRAPH_NONE || !ksp_wsnap_edge_counts(sn, ed, at, md5, sha1, INT64_MIN))
				continue;
			src[m] = vmap[u];
			dst[m++] = vmap[ed->v];
		}
	}
	r = ksp_wgraph_new(v->n, src, dst, m, &v->g);
out:
	free(vmap);
	free(src);
	free(dst);
	if (r < 0)
		ksp_wot_view_free(v);
	else
		*ret = v;
	return r;
}

static int count_certs(struct ksp_wot_stats *s, unsigned flags)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(s->store);
	sqlite3 *db = ksp_store_db(s->store);
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(db,
				"SELECT sig_type = 48, verified, CASE hash_algo WHEN 1 THEN 1 WHEN 2 THEN 2 WHEN 3 THEN 2 "
				"ELSE 0 END, count(*) FROM certs "
				"WHERE sig_type BETWEEN 16 AND 19 OR sig_type = 48 GROUP BY 1, 2, 3",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ctx, db, rc, "count certifications");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		bool rev = sqlite3_column_int(st, 0);
		int v = sqlite3_column_int(st, 1);
		int weak = sqlite3_column_int(st, 2);
		uint64_t n = (uint64_t)sqlite3_column_int64(st, 3);

		if (rev) {
			s->certs[KSP_WOT_CERTS_REVOCATIONS] += n;
			continue;
		}
		s->certs[KSP_WOT_CERTS_TOTAL] += n;
		switch (v) {
		case 1:
			s->certs[KSP_WOT_CERTS_GOOD] += n;
			/* what the graph's hash rule leaves out (wot-view.c) */
			if (!(flags & KSP_WOT_STRUCTURAL) && weak == 1 && !(flags & KSP_WOT_ALLOW_MD5))
				s->certs[KSP_WOT_CERTS_DROPPED_MD5] += n;
			else if (!(flags & KSP_WOT_STRUCTURAL) && weak == 2 && (flags & KSP_WOT_NO_SHA1))
				s->certs[KSP_WOT_CERTS_DROPPED_SHA1] += n;
			break;
		case 2: s->certs[KSP_WOT_CERTS_BAD] += n; break;
		case 3: s->certs[KSP_WOT_CERTS_UNSUPPORTED] += n; break;
		case 4: s->certs[KSP_WOT_CERTS_DANGLING] += n; break;
		default: s->certs[KSP_WOT_CERTS_UNCHECKED] += n; break;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ksp_errno_from_sqlite(ctx, db, rc, "count certifications");
	return 0;
}

/* Components, strong set, distances and MSD of s->view. */
static int compute(struct ksp_wot_stats *s)
{
	struct ksp_ctx *ctx = s->ctx;
	struct ksp_wgraph *g = s->view->g;
	uint32_t *comp = NULL, ncomp = 0, count = 0, n = s->view->n;
	uint64_t *sums = NULL;
	int r;

	s->edges = ksp_wgraph_m(g);
	comp = calloc(n ? n : 1, sizeof(*comp));
	s->rank_of = malloc((n ? n : 1) * sizeof(*s->rank_of));
	s->dist_from_ss = malloc((n ? n : 1) * sizeof(*s->dist_from_ss));
	s->dist_to_ss = malloc((n ? n : 1) * sizeof(*s->dist_to_ss));
	if (comp == NULL || s->rank_of == NULL || s->dist_from_ss == NULL || s->dist_to_ss == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		s->rank_of[i] = -1;
	r = ksp_wgraph_scc(g, comp, &ncomp);
	if (r < 0)
		goto out;
	s->scc_count = ncomp;
	s->scc_sizes = calloc(ncomp ? ncomp : 1, sizeof(*s->scc_sizes));
	if (s->scc_sizes == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		s->scc_sizes[comp[i]]++;
	qsort(s->scc_sizes, ncomp, sizeof(*s->scc_sizes), cmp_u64_desc);
	if (n > 0) {
		r = ksp_wgraph_strong_set(g, &s->ss_members, &count);
		if (r < 0)
			goto out;
	}
	s->ss_size = count;
	r = set_bfs(g, s->ss_members, count, false, s->dist_from_ss);
	if (r == 0)
		r = set_bfs(g, s->ss_members, count, true, s->dist_to_ss);
	if (r < 0)
		goto out;
	if (count > 1) {
		size_t within = 0;
		r = ksp_wgraph_count_edges_within(g, s->ss_members, count, &within);
		if (r < 0)
			goto out;
		s->ss_edges = within;
		sums = calloc(count, sizeof(*sums));
		s->rank = calloc(count, sizeof(*s->rank));
		if (sums == NULL || s->rank == NULL) {
			r = -ENOMEM;
			goto out;
		}
		r = ksp_wgraph_msd(g, s->ss_members, count, ksp_get_threads(ctx), sums, s->hist);
		if (r < 0)
			goto out;
		for (uint32_t i = 0; i < count; i++) {
			s->dist_sum += sums[i];
			s->rank[i].sum = sums[i];
			s->rank[i].v = s->ss_members[i];
		}
		qsort(s->rank, count, sizeof(*s->rank), cmp_ranked);
		for (uint32_t i = 0; i < count; i++)
			s->rank_of[s->rank[i].v] = i;
		s->msd = (double)s->dist_sum / ((double)count * (double)(count - 1));
	}
	r = 0;
out:
	free(comp);
	free(sums);
	return r;
}

static int finish(struct ksp_wot_stats *s, int r, struct ksp_wot_stats **ret)
{
	if (r == 0)
		r = compute(s);
	if (r < 0) {
		if (!ksp_get_error(s->ctx))
			ksp_set_error(s->ctx, "%s: cannot compute the metrics: %s", s->what, strerror(-r));
		ksp_wot_stats_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

KSP_EXPORT int ksp_wot_stats_new(struct ksp_store *store, int64_t at, unsigned int flags,
				 struct ksp_wot_stats **ret)
{
	struct ksp_ctx *ctx;
	struct ksp_wot_stats *s;
	int r;

	if (store == NULL || ret == NULL)
		return -EINVAL;
	ctx = ksp_store_get_ctx(store);
	ksp_clear_error(ctx);
	if (flags & ~(unsigned)(KSP_WOT_STRUCTURAL | KSP_WOT_NO_SHA1 | KSP_WOT_ALLOW_MD5)) {
		ksp_set_error(ctx, "unknown metrics flags 0x%x", flags);
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->store = ksp_store_ref(store);
	s->ctx = ksp_ref(ctx);
	s->what = ksp_store_get_path(store);
	/* the verified graph from the snapshot the load built; the structural
	 * one (every certification, unchecked) only the store has */
	if (flags & KSP_WOT_STRUCTURAL)
		r = ksp_wot_view_new(store, at, flags, &s->view);
	else
		r = snap_view(store, at, flags, &s->view);
	if (r == 0)
		r = count_certs(s, flags);
	return finish(s, r, ret);
}

KSP_EXPORT int ksp_wot_stats_new_from_scan(struct ksp_wot_scan *scan, int64_t at, unsigned int flags,
					   struct ksp_wot_stats **ret)
{
	struct ksp_ctx *ctx;
	struct ksp_wot_stats *s;
	int r;

	if (scan == NULL || ret == NULL)
		return -EINVAL;
	ctx = ksp_wot_scan_ctx(scan);
	ksp_clear_error(ctx);
	if (flags != KSP_WOT_STRUCTURAL) {
		ksp_set_error(ctx, "keyrings read without the store give the structural graph only (nothing is "
				   "verified): ask for it, or load them with ksp_wot_load() for verified metrics");
		return -EOPNOTSUPP;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->ctx = ksp_ref(ctx);
	s->what = "keyring";
	r = ksp_wot_scan_view(scan, at, &s->view, s->certs);
	return finish(s, r, ret);
}

#define GETTER(name, field)                                                              \
	KSP_EXPORT uint64_t ksp_wot_stats_get_##name(const struct ksp_wot_stats *s)    \
	{                                                                                \
		return s ? s->field : 0;                                                 \
	}
GETTER(edges, edges)
GETTER(scc_count, scc_count)
GETTER(strong_set_size, ss_size)
GETTER(strong_set_edges, ss_edges)
GETTER(distance_sum, dist_sum)

KSP_EXPORT uint64_t ksp_wot_stats_get_vertices(const struct ksp_wot_stats *s)
{
	return s ? s->view->n : 0;
}

KSP_EXPORT uint64_t ksp_wot_stats_get_keys(const struct ksp_wot_stats *s, unsigned int which)
{
	if (s == NULL)
		return 0;
	switch (which) {
	case KSP_WOT_KEYS_TOTAL: return s->view->keys_total;
	case KSP_WOT_KEYS_REVOKED: return s->view->keys_revoked;
	case KSP_WOT_KEYS_EXPIRED: return s->view->keys_expired;
	case KSP_WOT_KEYS_NOT_YET_VALID: return s->view->keys_future;
	default: return 0;
	}
}

KSP_EXPORT uint64_t ksp_wot_stats_get_certs(const struct ksp_wot_stats *s, unsigned int which)
{
	return s && which < KSP_WOT_CERTS_MAX ? s->certs[which] : 0;
}

KSP_EXPORT uint64_t ksp_wot_stats_get_scc_size(const struct ksp_wot_stats *s, size_t i)
{
	return s && i < s->scc_count ? s->scc_sizes[i] : 0;
}

KSP_EXPORT uint64_t ksp_wot_stats_get_distance_count(const struct ksp_wot_stats *s, unsigned int d)
{
	return s && d <= KSP_WGRAPH_MAX_DIST ? s->hist[d] : 0;
}

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
	return s->view->fpr[s->rank[rank].v];
}

KSP_EXPORT int64_t ksp_wot_stats_find_key(const struct ksp_wot_stats *s, const char *fpr)
{
	if (s == NULL || fpr == NULL)
		return -EINVAL;
	return ksp_wot_view_find(s->view, fpr);
}

KSP_EXPORT const char *ksp_wot_stats_get_key_fingerprint(const struct ksp_wot_stats *s, uint32_t key)
{
	return s && key < s->view->n ? s->view->fpr[key] : NULL;
}

KSP_EXPORT uint32_t ksp_wot_stats_get_key_degree(const struct ksp_wot_stats *s, uint32_t key, bool in)
{
	if (s == NULL || key >= s->view->n)
		return 0;
	return in ? ksp_wgraph_in_degree(s->view->g, key) : ksp_wgraph_out_degree(s->view->g, key);
}

KSP_EXPORT int64_t ksp_wot_stats_get_key_rank(const struct ksp_wot_stats *s, uint32_t key, uint64_t *ret_sum,
					      double *ret_msd)
{
	int64_t rk;

	if (s == NULL || key >= s->view->n)
		return -EINVAL;
	rk = s->rank_of[key];
	if (rk < 0)
		return -ENOENT;
	ksp_wot_stats_get_ranked(s, (size_t)rk, ret_sum, ret_msd);
	return rk;
}

KSP_EXPORT int ksp_wot_stats_get_key_ss_distance(const struct ksp_wot_stats *s, uint32_t key, bool to_ss)
{
	uint32_t d;

	if (s == NULL || key >= s->view->n)
		return -EINVAL;
	d = to_ss ? s->dist_to_ss[key] : s->dist_from_ss[key];
	return d == KSP_WGRAPH_NONE ? -ENOENT : (int)d;
}

KSP_EXPORT uint64_t ksp_wot_stats_get_reachable(const struct ksp_wot_stats *s, bool to_ss)
{
	uint64_t n = 0;

	if (s == NULL || s->ss_size == 0)
		return 0;
	for (uint32_t i = 0; i < s->view->n; i++)
		if ((to_ss ? s->dist_to_ss[i] : s->dist_from_ss[i]) != KSP_WGRAPH_NONE)
			n++;
	return n;
}

/* ---- paths ------------------------------------------------------------- */

struct ksp_wot_paths {
	struct ksp_wot_stats *stats;
	uint32_t len;      /* edges per path */
	size_t count;
	bool truncated;
	uint32_t *v;       /* count * (len + 1) vertices */
};

KSP_EXPORT struct ksp_wot_paths *ksp_wot_paths_free(struct ksp_wot_paths *p)
{
	if (p) {
		free(p->v);
		free(p);
	}
	return NULL;
}

struct walk {
	const struct ksp_wgraph *g;
	const uint32_t *df, *dt;
	uint32_t len, *cur;
	struct ksp_wot_paths *p;
	size_t max;
	int err;
};

static void walk(struct walk *w, uint32_t u, uint32_t depth)
{
	const uint32_t *nb;
	uint32_t d;

	w->cur[depth] = u;
	if (depth == w->len) {
		if (w->p->count == w->max) {
			w->p->truncated = true;
			return;
		}
		memcpy(w->p->v + w->p->count * (w->len + 1), w->cur, (w->len + 1) * sizeof(*w->cur));
		w->p->count++;
		return;
	}
	d = ksp_wgraph_out_neighbors(w->g, u, &nb);
	for (uint32_t j = 0; j < d && !w->p->truncated; j++) {
		uint32_t x = nb[j];
		if (w->df[x] == depth + 1 && w->dt[x] != KSP_WGRAPH_NONE && w->dt[x] == w->len - depth - 1)
			walk(w, x, depth + 1);
	}
}

KSP_EXPORT int ksp_wot_paths_new(struct ksp_wot_stats *s, const char *from, const char *to, size_t max_paths,
				 struct ksp_wot_paths **ret)
{
	struct ksp_ctx *ctx;
	int64_t a, b;
	uint32_t n, *df = NULL, *dt = NULL, *cur = NULL;
	struct ksp_wot_paths *p = NULL;
	int r;

	if (s == NULL || from == NULL || to == NULL || ret == NULL)
		return -EINVAL;
	ctx = s->ctx;
	ksp_clear_error(ctx);
	a = ksp_wot_view_find(s->view, from);
	b = ksp_wot_view_find(s->view, to);
	if (a < 0 || b < 0) {
		ksp_set_error(ctx, "%s: key %s is not in the graph (unknown, revoked or expired at the reference time)",
			      s->what, a < 0 ? from : to);
		return -ENOENT;
	}
	if (max_paths == 0)
		max_paths = 1;
	n = s->view->n;
	p = calloc(1, sizeof(*p));
	df = malloc(n * sizeof(*df));
	dt = malloc(n * sizeof(*dt));
	if (p == NULL || df == NULL || dt == NULL) {
		r = -ENOMEM;
		goto out;
	}
	p->stats = s;
	r = ksp_wgraph_bfs(s->view->g, (uint32_t)a, false, df, NULL);
	if (r == 0)
		r = ksp_wgraph_bfs(s->view->g, (uint32_t)b, true, dt, NULL);
	if (r < 0)
		goto out;
	if (df[b] == KSP_WGRAPH_NONE) {
		*ret = p;
		p = NULL;
		r = 0;
		goto out;
	}
	p->len = df[b];
	cur = malloc((p->len + 1) * sizeof(*cur));
	p->v = malloc(((max_paths < 1024 ? max_paths : 1024)) * (p->len + 1) * sizeof(*p->v));
	if (cur == NULL || p->v == NULL) {
		r = -ENOMEM;
		goto out;
	}
	if (max_paths > 1024)
		max_paths = 1024;
	struct walk w = { .g = s->view->g, .df = df, .dt = dt, .len = p->len, .cur = cur, .p = p, .max = max_paths };
	walk(&w, (uint32_t)a, 0);
	*ret = p;
	p = NULL;
	r = 0;
out:
	free(df);
	free(dt);
	free(cur);
	ksp_wot_paths_free(p);
	return r;
}

KSP_EXPORT size_t ksp_wot_paths_get_count(const struct ksp_wot_paths *p)
{
	return p ? p->count : 0;
}

KSP_EXPORT int ksp_wot_paths_get_length(const struct ksp_wot_paths *p)
{
	return p && p->count ? (int)p->len : -ENOENT;
}

KSP_EXPORT bool ksp_wot_paths_is_truncated(const struct ksp_wot_paths *p)
{
	return p && p->truncated;
}

KSP_EXPORT int ksp_wot_paths_get_hop(const struct ksp_wot_paths *p, size_t path, size_t hop, const char **ret_signer,
				     const char **ret_signee, int64_t *ret_created, char **ret_uid, size_t *ret_uid_len)
{
	const uint32_t *v;

	if (p == NULL || path >= p->count || hop >= p->len)
		return -EINVAL;
	v = p->v + path * (p->len + 1);
	if (ret_signer)
		*ret_signer = p->stats->view->fpr[v[hop]];
	if (ret_signee)
		*ret_signee = p->stats->view->fpr[v[hop + 1]];
	if ((ret_created || ret_uid) && p->stats->store == NULL) {
		/* from a scan: the graph only, no certification kept */
		if (ret_created)
			*ret_created = 0;
		if (ret_uid)
			*ret_uid = NULL;
		if (ret_uid_len)
			*ret_uid_len = 0;
	} else if (ret_created || ret_uid) {
		int64_t created = 0;
		char *uid = NULL;
		size_t len = 0;
		int r = ksp_wot_edge_cert(p->stats->store, p->stats->view, v[hop], v[hop + 1], &created, &uid, &len);
		if (r < 0)
			return r;
		if (ret_created)
			*ret_created = created;
		if (ret_uid) {
			*ret_uid = uid;
			if (ret_uid_len)
				*ret_uid_len = len;
		} else {
			free(uid);
		}
	}
	return 0;
}
