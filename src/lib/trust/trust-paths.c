// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trust-paths.c: the engine's disjoint paths on the relevant subgraph (a
 * max-flow with unit vertex capacities, and the exhaustive search with its
 * step budget), moved out of trust.c (see there for how they decide)
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
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

/* ---- disjoint paths on the relevant subgraph ------------------------------ */


/* Max-flow with unit vertex capacities from the core set to t, at most K
 * units; flow paths returned in paths[k] (vertex lists, t last). */
struct flow {
	/* split graph: v_in = 2v, v_out = 2v + 1, S = 2n, arcs in pairs */
	uint32_t nv;
	uint32_t *head, *next, *to;
	int8_t *cap;
	uint32_t n_arcs;
};

static int flow_arc(struct flow *f, uint32_t a, uint32_t b, int8_t c)
{
	uint32_t i = f->n_arcs;
	f->to[i] = b;
	f->cap[i] = c;
	f->next[i] = f->head[a];
	f->head[a] = i;
	f->to[i + 1] = a;
	f->cap[i + 1] = 0;
	f->next[i + 1] = f->head[b];
	f->head[b] = i + 1;
	f->n_arcs += 2;
	return 0;
}

int ksp_trust_max_flow(const struct sub *s, uint32_t *ret_flow, uint32_t ***ret_paths, uint32_t **ret_lens)
{
	struct flow f = { .nv = 2 * s->n + 1 };
	uint32_t S = 2 * s->n, T = 2 * s->t, m = s->off[s->n];
	size_t arcs = 2 * ((size_t)m + s->n + s->n_core);
	uint32_t *prev = NULL, *queue = NULL, value = 0;
	uint32_t **paths = NULL, *lens = NULL;
	int r = -ENOMEM;

	f.head = malloc(f.nv * sizeof(*f.head));
	f.next = malloc(arcs * sizeof(*f.next));
	f.to = malloc(arcs * sizeof(*f.to));
	f.cap = malloc(arcs);
	prev = malloc(f.nv * sizeof(*prev));
	queue = malloc(f.nv * sizeof(*queue));
	paths = calloc(s->K, sizeof(*paths));
	lens = calloc(s->K, sizeof(*lens));
	if (!f.head || !f.next || !f.to || !f.cap || !prev || !queue || !paths || !lens)
		goto out;
	for (uint32_t i = 0; i < f.nv; i++)
		f.head[i] = UINT32_MAX;
	for (uint32_t v = 0; v < s->n; v++)
		if (v != s->t)
			flow_arc(&f, 2 * v, 2 * v + 1, 1);
	for (uint32_t i = 0; i < s->n_core; i++)
		flow_arc(&f, S, 2 * s->core[i], 1);
	for (uint32_t u = 0; u < s->n; u++)
		for (uint32_t j = s->off[u]; j < s->off[u + 1]; j++)
			flow_arc(&f, 2 * u + 1, 2 * s->adj[j], 1);
	while (value < s->K) {
		uint32_t h = 0, tl = 0;
		for (uint32_t i = 0; i < f.nv; i++)
			prev[i] = UINT32_MAX;
		prev[S] = UINT32_MAX - 1;
		queue[tl++] = S;
		while (h < tl && prev[T] == UINT32_MAX) {
			uint32_t x = queue[h++];
			for (uint32_t a = f.head[x]; a != UINT32_MAX; a = f.next[a])
				if (f.cap[a] > 0 && prev[f.to[a]] == UINT32_MAX) {
					prev[f.to[a]] = a;
					queue[tl++] = f.to[a];
				}
		}
		if (prev[T] == UINT32_MAX)
			break;
		for (uint32_t x = T; x != S;) {
			uint32_t a = prev[x];
			f.cap[a]--;
			f.cap[a ^ 1]++;
			x = f.to[a ^ 1];
		}
		value++;
	}
	/* decompose: follow saturated forward arcs from S */
	for (uint32_t k = 0; k < value; k++) {
		uint32_t x = S, len = 0, cap = 16;
		uint32_t *p = malloc(cap * sizeof(*p));
		if (p == NULL)
			goto out;
		paths[k] = p;
		while (x != T && len <= s->n) {
			uint32_t a;
			for (a = f.head[x]; a != UINT32_MAX; a = f.next[a])
				/* a forward arc (even index) carrying flow: its residual twin has capacity */
				if (!(a & 1) && f.cap[a ^ 1] > 0)
					break;
			if (a == UINT32_MAX)
				break; /* cannot happen for a valid flow */
			f.cap[a ^ 1]--; /* consume this unit */
			x = f.to[a];
			if (!(x & 1)) { /* entering v_in: record v */
				if (len == cap) {
					cap *= 2;
					uint32_t *np = realloc(p, cap * sizeof(*p));
					if (np == NULL)
						goto out;
					paths[k] = p = np;
				}
				p[len++] = x / 2;
			}
		}
		lens[k] = len;
	}
	*ret_flow = value;
	*ret_paths = paths;
	*ret_lens = lens;
	paths = NULL;
	lens = NULL;
	r = 0;
out:
	if (paths)
		for (uint32_t k = 0; k < s->K; k++)
			free(paths[k]);
	free(paths);
	free(lens);
	free(f.head);
	free(f.next);
	free(f.to);
	free(f.cap);
	free(prev);
	free(queue);
	return r;
}

/* Exhaustive search for K disjoint paths of at most L edges. */

static void rev_bfs(struct search *x)
{
	const struct sub *s = x->s;
	uint32_t h = 0, tl = 0;

	for (uint32_t i = 0; i < s->n; i++)
		x->dist[i] = UINT32_MAX;
	x->dist[s->t] = 0;
	x->queue[tl++] = s->t;
	while (h < tl) {
		uint32_t v = x->queue[h++];
		for (uint32_t j = x->rin_off[v]; j < x->rin_off[v + 1]; j++) {
			uint32_t u = x->rin[j];
			if (!x->used[u] && x->dist[u] == UINT32_MAX && x->dist[v] + 1 <= s->L) {
				x->dist[u] = x->dist[v] + 1;
				x->queue[tl++] = u;
			}
		}
	}
}

static void save_best(struct search *x, uint32_t k)
{
	if (k <= x->n_best)
		return;
	for (uint32_t i = 0; i < k; i++) {
		memcpy(x->best[i], x->paths[i], (x->lens[i]) * sizeof(uint32_t));
		x->best_lens[i] = x->lens[i];
	}
	x->n_best = k;
}


/* Extend path k (vertices paths[k][0..depth]) towards t. */
static bool extend(struct search *x, uint32_t k, uint32_t depth, uint32_t min_core, const uint32_t *dist)
{
	const struct sub *s = x->s;
	uint32_t v = x->paths[k][depth];

	if (++x->steps > SEARCH_BUDGET) {
		x->exhausted = true;
		return false;
	}
	if (v == s->t) {
		x->lens[k] = depth + 1;
		save_best(x, k + 1);
		/* K paths; or as many as the max-flow allows: no set of more
		 * exists, and a later set of as many would not replace it */
		if (k + 1 == s->K || x->n_best >= x->cap)
			return true;
		/* t stays free for the next path */
		return ksp_trust_search_paths(x, k + 1, min_core);
	}
	for (uint32_t j = s->off[v]; j < s->off[v + 1]; j++) {
		uint32_t w = s->adj[j];
		if (x->used[w] && w != s->t)
			continue;
		if (dist[w] == UINT32_MAX || depth + 1 + dist[w] > s->L)
			continue;
		if (w != s->t)
			x->used[w] = true;
		x->paths[k][depth + 1] = w;
		if (extend(x, k, depth + 1, min_core, dist))
			return true;
		if (w != s->t)
			x->used[w] = false;
		if (x->exhausted)
			return false;
	}
	return false;
}

bool ksp_trust_search_paths(struct search *x, uint32_t k, uint32_t min_core)
{
	const struct sub *s = x->s;
	uint32_t *dist;
	bool ok = false;

	/* distances to t avoiding the vertices used so far */
	dist = malloc(s->n * sizeof(*dist));
	if (dist == NULL) {
		x->exhausted = true;
		return false;
	}
	rev_bfs(x);
	memcpy(dist, x->dist, s->n * sizeof(*dist));
	for (uint32_t i = min_core; i < s->n_core && !ok && !x->exhausted; i++) {
		uint32_t c = s->core[i];
		if (x->used[c] || dist[c] == UINT32_MAX)
			continue;
		x->used[c] = true;
		x->paths[k][0] = c;
		ok = extend(x, k, 0, i + 1, dist);
		if (!ok)
			x->used[c] = false;
	}
	free(dist);
	return ok;
}

/* Exact distances on the explored graph @e: from the core nodes (@df) and
 * to @target (@db), UINT32_MAX unreached; with @uid_filter, only the
 * target's certifications on that user ID count.  @queue: scratch of
 * e->n.  0 or -ENOMEM. */
int ksp_trust_distances(const struct explore *e, uint32_t target, const uint32_t *core_nodes, uint32_t n_core_nodes,
			int64_t uid_filter, uint32_t *df, uint32_t *db, uint32_t *queue)
{
	/* CSR of edges both ways */
	uint32_t *ooff = calloc(e->n + 1, sizeof(*ooff)), *ioff = calloc(e->n + 1, sizeof(*ioff));
	uint32_t *oadj = malloc((e->m ? e->m : 1) * sizeof(*oadj)), *iadj = malloc((e->m ? e->m : 1) * sizeof(*iadj));
	uint32_t h, tl;
	if (!ooff || !ioff || !oadj || !iadj) {
		free(ooff);
		free(ioff);
		free(oadj);
		free(iadj);
		return -ENOMEM;
	}
	for (size_t i = 0; i < e->m; i++) {
		if (uid_filter && e->edges[i].v == target && e->edges[i].uid_id != uid_filter)
			continue;
		ooff[e->edges[i].u + 1]++;
		ioff[e->edges[i].v + 1]++;
	}
	for (uint32_t i = 0; i < e->n; i++) {
		ooff[i + 1] += ooff[i];
		ioff[i + 1] += ioff[i];
	}
	{
		uint32_t *po = malloc((e->n + 1) * sizeof(*po)), *pi = malloc((e->n + 1) * sizeof(*pi));
		if (!po || !pi) {
			free(po);
			free(pi);
			free(ooff);
			free(ioff);
			free(oadj);
			free(iadj);
			return -ENOMEM;
		}
		memcpy(po, ooff, (e->n + 1) * sizeof(*po));
		memcpy(pi, ioff, (e->n + 1) * sizeof(*pi));
		for (size_t i = 0; i < e->m; i++) {
			if (uid_filter && e->edges[i].v == target && e->edges[i].uid_id != uid_filter)
				continue;
			oadj[po[e->edges[i].u]++] = e->edges[i].v;
			iadj[pi[e->edges[i].v]++] = e->edges[i].u;
		}
		free(po);
		free(pi);
	}
	for (uint32_t i = 0; i < e->n; i++)
		df[i] = db[i] = UINT32_MAX;
	h = tl = 0;
	for (uint32_t i = 0; i < n_core_nodes; i++)
		if (df[core_nodes[i]] == UINT32_MAX) {
			df[core_nodes[i]] = 0;
			queue[tl++] = core_nodes[i];
		}
	while (h < tl) {
		uint32_t u = queue[h++];
		for (uint32_t j = ooff[u]; j < ooff[u + 1]; j++)
			if (df[oadj[j]] == UINT32_MAX) {
				df[oadj[j]] = df[u] + 1;
				queue[tl++] = oadj[j];
			}
	}
	h = tl = 0;
	db[target] = 0;
	queue[tl++] = target;
	while (h < tl) {
		uint32_t u = queue[h++];
		for (uint32_t j = ioff[u]; j < ioff[u + 1]; j++)
			if (db[iadj[j]] == UINT32_MAX) {
				db[iadj[j]] = db[u] + 1;
				queue[tl++] = iadj[j];
			}
	}
	free(ooff);
	free(ioff);
	free(oadj);
	free(iadj);
	return 0;
}

/* Set @x up for the exhaustive search on @s (@fval: the max-flow's bound)
 * for K disjoint paths of at most L edges, and run it: the best set found
 * in x->best (x->n_best).  0 or -ENOMEM; free with ksp_trust_search_done(). */
int ksp_trust_search_run(struct search *x, const struct sub *s, uint32_t fval, uint32_t K, uint32_t L)
{
	uint32_t nl = s->n;

	x->s = s;
	x->cap = fval < K ? fval : K;
	x->used = calloc(nl, sizeof(*x->used));
	x->dist = malloc(nl * sizeof(*x->dist));
	x->queue = malloc(nl * sizeof(*x->queue));
	x->paths = calloc(K, sizeof(*x->paths));
	x->best = calloc(K, sizeof(*x->best));
	x->lens = calloc(K, sizeof(*x->lens));
	x->best_lens = calloc(K, sizeof(*x->best_lens));
	x->rin_off = calloc(nl + 1, sizeof(*x->rin_off));
	x->rin = malloc((s->off[nl] ? s->off[nl] : 1) * sizeof(*x->rin));
	if (!x->used || !x->dist || !x->queue || !x->paths || !x->best || !x->lens || !x->best_lens || !x->rin_off ||
	    !x->rin)
		return -ENOMEM;
	for (uint32_t k = 0; k < K; k++) {
		x->paths[k] = malloc((L + 1) * sizeof(uint32_t));
		x->best[k] = malloc((L + 1) * sizeof(uint32_t));
		if (!x->paths[k] || !x->best[k])
			return -ENOMEM;
	}
	for (uint32_t u = 0; u < nl; u++)
		for (uint32_t j = s->off[u]; j < s->off[u + 1]; j++)
			x->rin_off[s->adj[j] + 1]++;
	for (uint32_t i = 0; i < nl; i++)
		x->rin_off[i + 1] += x->rin_off[i];
	{
		uint32_t *pos = malloc((nl + 1) * sizeof(*pos));
		if (pos == NULL)
			return -ENOMEM;
		memcpy(pos, x->rin_off, (nl + 1) * sizeof(*pos));
		for (uint32_t u = 0; u < nl; u++)
			for (uint32_t j = s->off[u]; j < s->off[u + 1]; j++)
				x->rin[pos[s->adj[j]]++] = u;
		free(pos);
	}
	if (fval > 0)
		ksp_trust_search_paths(x, 0, 0);
	return 0;
}

void ksp_trust_search_done(struct search *x, uint32_t K)
{
	free(x->used);
	free(x->dist);
	free(x->queue);
	if (x->paths)
		for (uint32_t k = 0; k < K; k++)
			free(x->paths[k]);
	if (x->best)
		for (uint32_t k = 0; k < K; k++)
			free(x->best[k]);
	free(x->paths);
	free(x->best);
	free(x->lens);
	free(x->best_lens);
	free(x->rin_off);
	free(x->rin);
}
