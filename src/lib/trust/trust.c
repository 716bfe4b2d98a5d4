// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trust.c: is a key trusted by a core?  (docs/design.md, "Definitions")
 *
 * Its parts: the policy object and its parser in policy.c (fields and the
 * engine's shared types: trust-private.h), the disjoint paths (max-flow,
 * search) in trust-paths.c, the what-if reachability in reach.c, the
 * user-ID bindings in binding.c.
 * Why one file (over 1,000 lines): the exploration and the query share the
 * per-query scratch over the snapshot and decide together with
 * trust-paths.c (the flow bounds from above, the search proves).
 *
 * A target t is trusted under a policy (max depth L, min paths K) when there
 * are K certification paths from core keys to t, each of at most L edges,
 * pairwise vertex-disjoint but for t (so each core key starts at most one
 * path: K paths are K independent introducers), over edges that count:
 * verified, exportable, unexpired, unrevoked certifications on unrevoked
 * user IDs, made by a key that was valid when it signed, between keys that
 * are valid (created, not revoked, not expired) at the reference time.
 * Revocations (ksp-trust(1)): a hard key revocation (compromised, no
 * reason) removes the key at every date; a soft one (retired, superseded)
 * makes it no target from its date on, while it still introduces with the
 * certifications it made before (the snapshot keeps only those).
 *
 * The graph is explored from the store on demand, never loaded whole:
 * bidirectional breadth-first layers (forward from the core over
 * certifications made, backward from the target over certifications
 * received, always growing the smaller frontier) until the two depths add
 * up to L.  Every edge of every path of at most L edges is then known (its
 * tail is within the forward depth, or its head within the backward depth).
 * On the vertices that lie on such paths: a max-flow with unit vertex
 * capacities bounds the number of disjoint paths from above (fewer than K:
 * not trusted, exactly); its decomposition usually gives K paths within L
 * edges (trusted, with proof); otherwise an exhaustive search for K
 * disjoint length-bounded paths decides (length-bounded disjoint paths are
 * NP-hard in general; the search has a step budget and says when it ran
 * out, and never claims trust it has not found).
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
#include "lib/store/store-trust.h"
#include "lib/wot/wot-validity.h"
#include "lib/wot/wot-snap.h"
#include "lib/trust/whatif.h"
#include "lib/trust/policy.h"
#include "lib/trust/result.h"
#include "lib/trust/model.h"
#include "lib/trust/trust-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"


/* ---- the local graph ----------------------------------------------------- */


/* The node of snapshot vertex @vx, created if new; UINT32_MAX on error.
 * The snapshot's scratch maps vertices to nodes for this query (stamped
 * with the query's epoch, so nothing is cleared between queries). */
static uint32_t node_of(struct explore *e, uint32_t vx, bool create)
{
	struct ksp_wsnap *g = e->g;

	if (g->scratch_stamp[vx] == g->epoch)
		return g->scratch_node[vx];
	if (!create)
		return UINT32_MAX;
	if (e->n >= MAX_EXPLORE)
		return UINT32_MAX;
	if (e->n == e->cap) {
		uint32_t nc = e->cap ? 2 * e->cap : 256;
		void *nn = realloc(e->nodes, (size_t)nc * sizeof(*e->nodes));
		if (nn == NULL)
			return UINT32_MAX;
		e->nodes = nn;
		e->cap = nc;
	}
	e->nodes[e->n] = (struct tnode){ .key_id = vx, .df = UINT32_MAX, .db = UINT32_MAX };
	g->scratch_stamp[vx] = g->epoch;
	g->scratch_node[vx] = e->n;
	return e->n++;
}


/* What snapshot vertex @vx is at @at under @pol (its what-if's lost and
 * extended keys): KEY_*.  check_node() and ksp_trust_reach() share it. */
uint8_t ksp_trust_vertex_why(const struct ksp_wsnap *g, const struct ksp_trust_policy *pol, int64_t at, uint64_t vx)
{
	if (vx >= g->n)
		return KEY_UNKNOWN;
	const struct ksp_wsnap_node *k = &g->nodes[vx];
	uint32_t algo = k->algo;
	bool fixed_size = algo == 1 || algo == 2 || algo == 3 || algo == 16 || algo == 17 || algo == 20;
	const struct ksp_trust_whatif *wi = pol->whatif;
	bool extended = wi && wi->extended && wi->extended[vx];

	/* the one validity rule (wot-validity.h), with the paths model's
	 * differences: the what-if's lost keys are hard-revoked, its extended
	 * ones unexpired; a soft-revoked key a vertex, not a target; weak keys */
	switch (ksp_key_state_at(k, at)) {
	case KSP_KEY_NOT_YET:
		return KEY_FUTURE;
	case KSP_KEY_HARD_REVOKED:
		return KEY_REVOKED;
	case KSP_KEY_SOFT_REVOKED:
		return wi && wi->lost && wi->lost[vx] ? KEY_REVOKED : KEY_SOFT_REVOKED;
	case KSP_KEY_EXPIRED:
		if (wi && wi->lost && wi->lost[vx])
			return KEY_REVOKED;
		if (!extended)
			return KEY_EXPIRED;
		break;
	case KSP_KEY_VALID:
		if (wi && wi->lost && wi->lost[vx])
			return KEY_REVOKED;
		break;
	}
	if (pol->min_bits && fixed_size && k->bits < pol->min_bits)
		return KEY_WEAK;
	return KEY_OK;
}

static int check_node(struct explore *e, uint32_t i)
{
	struct tnode *nd = &e->nodes[i];

	if (nd->state)
		return nd->state == 1;
	if (e->reach && (uint64_t)nd->key_id < e->reach->n)
		nd->why = e->reach->why[nd->key_id];
	else
		nd->why = ksp_trust_vertex_why(e->g, e->pol, e->at, (uint64_t)nd->key_id);
	nd->state = nd->why == KEY_OK || nd->why == KEY_SOFT_REVOKED ? 1 : 2;
	return nd->state == 1;
}

static int add_edge(struct explore *e, uint32_t u, uint32_t v, int64_t uid_id, int64_t created)
{
	if (e->m == e->cap_e) {
		size_t nc = e->cap_e ? 2 * e->cap_e : 1024;
		void *ne = realloc(e->edges, nc * sizeof(*e->edges));
		if (ne == NULL)
			return -ENOMEM;
		e->edges = ne;
		e->cap_e = nc;
	}
	e->edges[e->m++] = (struct tedge){ .u = u, .v = v, .uid_id = uid_id, .created = created };
	return 1;
}

/* Append @v to the array *@arr (*@n of *@cap used). */
static int push_u32(uint32_t **arr, size_t *n, size_t *cap, uint32_t v)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 256;
		void *nn = realloc(*arr, nc * sizeof(**arr));
		if (nn == NULL)
			return -ENOMEM;
		*arr = nn;
		*cap = nc;
	}
	(*arr)[(*n)++] = v;
	return 0;
}

/* One certification met while expanding vertex @x (node) at depth @d:
 * between it and snapshot vertex @other, forward (x certified other) or
 * backward, on uids.id @uid_id, made at @created.  When @other is a vertex
 * at the reference time (check_node(), the what-if's lost and extended
 * keys included) and not already reached from the other side, the edge is
 * kept and @other, if new on this side, joins @next at depth d + 1.  The
 * one place both the snapshot's certifications and the what-if's added
 * ones go through. */
static int reach(struct explore *e, uint32_t x, uint32_t other, bool forward, uint32_t d, int64_t uid_id,
		 int64_t created, uint32_t **next, size_t *n_next, size_t *cap_next)
{
	uint32_t y = node_of(e, other, true), *dep;
	int r;

	if (y == UINT32_MAX)
		return e->n >= MAX_EXPLORE ? -E2BIG : -ENOMEM;
	if (check_node(e, y) == 0)
		return 0;
	/* an edge between a vertex expanded forward and one expanded
	 * backward is found from both ends: keep the first */
	if (forward ? e->nodes[y].bexp : e->nodes[y].fexp)
		return 0;
	r = forward ? add_edge(e, x, y, uid_id, created) : add_edge(e, y, x, uid_id, created);
	if (r < 0)
		return r;
	dep = forward ? &e->nodes[y].df : &e->nodes[y].db;
	if (*dep != UINT32_MAX)
		return 0;
	*dep = d + 1;
	return push_u32(next, n_next, cap_next, y);
}

/* The what-if certifications (whatif.h) at vertex @x, as expand() takes
 * the snapshot's. */
static int expand_added(struct explore *e, uint32_t x, bool forward, uint32_t d, uint32_t **next, size_t *n_next,
			size_t *cap_next)
{
	const struct ksp_trust_whatif *wi = e->pol->whatif;
	uint32_t vx = (uint32_t)e->nodes[x].key_id;
	int r;

	for (size_t j = 0; j < wi->n_added; j++) {
		const struct ksp_trust_added *a = &wi->added[j];

		if ((forward ? a->u : a->v) != vx || a->u >= e->g->n || a->v >= e->g->n || a->u == a->v)
			continue;
		r = reach(e, x, forward ? a->v : a->u, forward, d, a->uid_id, e->at, next, n_next, cap_next);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Expand one vertex: forward (certifications it made) or backward. New
 * neighbours that are vertices go to @next with depth d + 1. */
static int expand(struct explore *e, uint32_t x, bool forward, uint32_t d, uint32_t **next, size_t *n_next,
		  size_t *cap_next)
{
	const struct ksp_wsnap *g = e->g;
	uint32_t vx = (uint32_t)e->nodes[x].key_id;
	int64_t min_created = e->pol->max_age ? e->at - e->pol->max_age : INT64_MIN;
	uint32_t lo = forward ? g->out_off[vx] : g->in_off[vx], hi = forward ? g->out_off[vx + 1] : g->in_off[vx + 1];
	int r;

	if (forward)
		e->nodes[x].fexp = true;
	else
		e->nodes[x].bexp = true;

	/* backward with the reachability: its list of the certifications
	 * into vx that count (the same ones, in the same order) */
	const struct ksp_trust_in_edge *in = NULL;
	if (!forward && e->reach) {
		in = e->reach->in;
		lo = e->reach->in_off[vx];
		hi = e->reach->in_off[vx + 1];
	}

	for (uint32_t j = lo; j < hi; j++) {
		const struct ksp_wsnap_edge *ed = NULL;
		uint32_t other;
		int64_t uid_id, created;

		if (in) {
			other = in[j].u;
			uid_id = in[j].uid_id;
			created = in[j].created;
		} else {
			if (!forward && g->in_eid[j] >= g->m)
				return -EBADMSG;
			ed = &g->edges[forward ? j : g->in_eid[j]];
			if (ed->u >= g->n || ed->v >= g->n || ed->uidx >= g->n_uids)
				return -EBADMSG;
			if (!ksp_wsnap_edge_counts(g, ed, e->at, e->pol->md5, e->pol->sha1, min_created))
				continue;
			other = forward ? ed->v : ed->u;
			uid_id = g->uids[ed->uidx].uid_id;
			created = ed->created;
		}
		r = reach(e, x, other, forward, d, uid_id, created, next, n_next, cap_next);
		if (r < 0)
			return r;
	}
	if (e->pol->whatif && e->pol->whatif->n_added)
		return expand_added(e, x, forward, d, next, n_next, cap_next);
	return 0;
}

/* ---- the query ------------------------------------------------------------- */

/* The bind of user ID @uid_id (uids.id) on snapshot vertex @vx, NULL when
 * the key has none such (0: none in particular). */
static const struct ksp_wsnap_bind *bind_of(const struct ksp_wsnap *g, uint32_t vx, int64_t uid_id)
{
	if (vx >= g->n || uid_id == 0)
		return NULL;
	for (uint32_t i = g->bind_off[vx]; i < g->bind_off[vx + 1] && i < g->n_binds; i++)
		if (g->binds[i].uid_id == uid_id)
			return &g->binds[i];
	return NULL;
}

/* The paths into @res, each hop with its keys' fingerprints and the user ID
 * of the certification behind it (from the snapshot). */
static int finish_paths(struct explore *e, struct ksp_trust_result *res, uint32_t **paths, const uint32_t *lens,
			uint32_t count, const uint32_t *local_to_node, const struct sub *s, int64_t uid_filter)
{
	res->paths = calloc(count ? count : 1, sizeof(*res->paths));
	if (res->paths == NULL)
		return -ENOMEM;
	for (uint32_t k = 0; k < count; k++) {
		struct tpath *tp = &res->paths[res->n_paths];
		uint32_t n = lens[k] ? lens[k] - 1 : 0;

		tp->hops = calloc(n ? n : 1, sizeof(*tp->hops));
		if (tp->hops == NULL)
			return -ENOMEM;
		res->n_paths++;
		for (uint32_t h = 0; h < n; h++) {
			uint32_t a = paths[k][h], b = paths[k][h + 1];
			uint32_t signee = (uint32_t)e->nodes[local_to_node[b]].key_id;
			struct thop *hop = &tp->hops[tp->n++];
			const struct tedge *best = NULL;

			/* the newest certification behind the edge (on the
			 * chosen user ID for the last hop, per user ID) */
			for (uint32_t j = s->off[a]; j < s->off[a + 1]; j++)
				if (s->adj[j] == b) {
					const struct tedge *ed = &e->edges[s->eid[j]];
					if (best == NULL || ed->created > best->created)
						best = ed;
				}
			snprintf(hop->signer, 65, "%s", ksp_wsnap_fpr(e->g, (uint32_t)e->nodes[local_to_node[a]].key_id));
			snprintf(hop->signee, 65, "%s", ksp_wsnap_fpr(e->g, signee));
			if (best) {
				int64_t uid_id = (b == s->t && uid_filter) ? uid_filter : best->uid_id;
				const struct ksp_wsnap_bind *bd = bind_of(e->g, signee, uid_id);
				hop->created = best->created;
				if (bd) {
					size_t len;
					const char *text = ksp_wsnap_bind_text(e->g, bd, &len);
					hop->uid = malloc(len + 1);
					if (hop->uid == NULL)
						return -ENOMEM;
					if (len)
						memcpy(hop->uid, text, len);
					hop->uid[len] = '\0';
					hop->uid_len = len;
				}
			}
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Solve on the explored graph; uid_filter != 0: edges into the target count
 * only when on that user ID.  Fills res (found, paths) and returns 0. */
static int solve(struct explore *e, uint32_t target, const uint32_t *core_nodes, uint32_t n_core_nodes,
		 int64_t uid_filter, uint32_t L, bool final, struct ksp_trust_result *res)
{
	uint32_t K = (uint32_t)e->pol->min_paths;
	uint32_t *df = NULL, *db = NULL, *queue = NULL, *local = NULL, *to_node = NULL, nl = 0;
	struct sub s = { 0 };
	struct search x = { 0 };
	uint32_t fval = 0, **fpaths = NULL, *flens = NULL;
	int r = -ENOMEM;
	bool done = false;

	df = malloc(e->n * sizeof(*df));
	db = malloc(e->n * sizeof(*db));
	queue = malloc(e->n * sizeof(*queue));
	local = malloc(e->n * sizeof(*local));
	to_node = malloc(e->n * sizeof(*to_node));
	if (!df || !db || !queue || !local || !to_node)
		goto out;
	r = ksp_trust_distances(e, target, core_nodes, n_core_nodes, uid_filter, df, db, queue);
	if (r < 0)
		goto out;
	r = -ENOMEM;
	/* the relevant vertices: on some core -> t path of at most L edges */
	for (uint32_t i = 0; i < e->n; i++) {
		local[i] = UINT32_MAX;
		if (df[i] != UINT32_MAX && db[i] != UINT32_MAX && df[i] + db[i] <= L) {
			local[i] = nl;
			to_node[nl++] = i;
		}
	}
	res->found = 0;
	if (local[target] == UINT32_MAX) {
		r = 0;
		goto out;
	}
	s.n = nl;
	s.t = local[target];
	s.L = L;
	s.K = K;
	s.off = calloc(nl + 1, sizeof(*s.off));
	s.adj = malloc((e->m ? e->m : 1) * sizeof(*s.adj));
	s.eid = malloc((e->m ? e->m : 1) * sizeof(*s.eid));
	s.is_core = calloc(nl, sizeof(*s.is_core));
	s.core = malloc((n_core_nodes ? n_core_nodes : 1) * sizeof(*s.core));
	if (!s.off || !s.adj || !s.eid || !s.is_core || !s.core)
		goto out;
	for (size_t i = 0; i < e->m; i++) {
		const struct tedge *ed = &e->edges[i];
		if (local[ed->u] == UINT32_MAX || local[ed->v] == UINT32_MAX || ed->u == target)
			continue;
		if (uid_filter && ed->v == target && ed->uid_id != uid_filter)
			continue;
		s.off[local[ed->u] + 1]++;
	}
	for (uint32_t i = 0; i < nl; i++)
		s.off[i + 1] += s.off[i];
	{
		uint32_t *pos = malloc((nl + 1) * sizeof(*pos));
		if (pos == NULL)
			goto out;
		memcpy(pos, s.off, (nl + 1) * sizeof(*pos));
		for (size_t i = 0; i < e->m; i++) {
			const struct tedge *ed = &e->edges[i];
			if (local[ed->u] == UINT32_MAX || local[ed->v] == UINT32_MAX || ed->u == target)
				continue;
			if (uid_filter && ed->v == target && ed->uid_id != uid_filter)
				continue;
			s.adj[pos[local[ed->u]]] = local[ed->v];
			s.eid[pos[local[ed->u]]++] = (uint32_t)i;
		}
		free(pos);
	}
	for (uint32_t i = 0; i < n_core_nodes; i++) {
		uint32_t c = local[core_nodes[i]];
		if (c != UINT32_MAX && !s.is_core[c] && c != s.t) {
			s.is_core[c] = true;
			s.core[s.n_core++] = c;
		}
	}
	qsort(s.core, s.n_core, sizeof(*s.core), cmp_u32);
	r = ksp_trust_max_flow(&s, &fval, &fpaths, &flens);
	if (r < 0)
		goto out;
	/* the flow's paths all within L: proof found */
	if (fval >= K) {
		bool all_short = true;
		for (uint32_t k = 0; k < K; k++)
			if (flens[k] == 0 || flens[k] - 1 > L)
				all_short = false;
		if (all_short) {
			res->found = (int)K;
			r = finish_paths(e, res, fpaths, flens, K, to_node, &s, uid_filter);
			done = true;
		}
	}
	/* fewer than K disjoint paths of any length (max-flow): not trusted
	 * for sure; on a large graph, show the flow's paths within L rather
	 * than search exhaustively for the best partial set */
	if (!done && final && fval < K && nl > 4096) {
		uint32_t k2 = 0;
		for (uint32_t k = 0; k < fval; k++)
			if (flens[k] && flens[k] - 1 <= L) {
				uint32_t *tp = fpaths[k2], tl = flens[k2];
				fpaths[k2] = fpaths[k];
				flens[k2] = flens[k];
				fpaths[k] = tp;
				flens[k] = tl;
				k2++;
			}
		if (k2 > 0) {
			res->found = (int)k2;
			res->flow_bound = fval;
			r = finish_paths(e, res, fpaths, flens, k2, to_node, &s, uid_filter);
			done = true;
		}
	}
	if (!done && final) {
		/* exhaustive search (also gives the best partial set) */
		r = ksp_trust_search_run(&x, &s, fval, K, L);
		if (r == 0) {
			res->found = (int)x.n_best;
			res->search_exhausted = x.exhausted;
			r = finish_paths(e, res, x.best, x.best_lens, x.n_best, to_node, &s, uid_filter);
		}
		ksp_trust_search_done(&x, K);
	}
out:
	if (fpaths)
		for (uint32_t k = 0; k < K; k++)
			free(fpaths[k]);
	free(fpaths);
	free(flens);
	free(s.off);
	free(s.adj);
	free(s.eid);
	free(s.is_core);
	free(s.core);
	free(df);
	free(db);
	free(queue);
	free(local);
	free(to_node);
	return r;
}

/* Decide on the explored graph with paths of at most L edges: key-level,
 * or per user ID of the target.  Not final: only a success counts (no
 * exhaustive search). */
static int evaluate(struct explore *e, uint32_t target, const uint32_t *cores, uint32_t n_cores, uint32_t L,
		    bool final, struct ksp_trust_result *res)
{
	int r;

	/* solve: key-level, or per user ID of the target */
	if (!e->pol->per_uid && e->n_only == 0) {
		r = solve(e, target, cores, n_cores, 0, L, final, res);
		if (r < 0)
			return r;
	} else {
		/* each user ID of the target that has an edge into it */
		int64_t *uids = NULL;
		size_t n_uids = 0;
		for (size_t i = 0; i < e->m; i++)
			if (e->edges[i].v == target) {
				bool seen = false, wanted = e->n_only == 0;
				for (size_t j = 0; j < e->n_only; j++)
					wanted |= e->only_uids[j] == e->edges[i].uid_id;
				if (!wanted)
					continue;
				for (size_t j = 0; j < n_uids; j++)
					seen |= uids[j] == e->edges[i].uid_id;
				if (!seen) {
					void *n = realloc(uids, (n_uids + 1) * sizeof(*uids));
					if (n == NULL) {
						free(uids);
						r = -ENOMEM;
						return r;
					}
					uids = n;
					uids[n_uids++] = e->edges[i].uid_id;
				}
			}
		for (size_t j = 0; j < n_uids && !res->trusted; j++) {
			struct ksp_trust_result tmp = { 0 };
			r = solve(e, target, cores, n_cores, uids[j], L, final, &tmp);
			if (r < 0) {
				for (size_t i = 0; i < tmp.n_paths; i++) {
					for (size_t h = 0; h < tmp.paths[i].n; h++)
						free(tmp.paths[i].hops[h].uid);
					free(tmp.paths[i].hops);
				}
				free(tmp.paths);
				free(uids);
				return r;
			}
			if (tmp.found > res->found || res->paths == NULL) {
				/* keep the best user ID's paths */
				for (size_t i = 0; i < res->n_paths; i++) {
					for (size_t h = 0; h < res->paths[i].n; h++)
						free(res->paths[i].hops[h].uid);
					free(res->paths[i].hops);
				}
				free(res->paths);
				res->paths = tmp.paths;
				res->n_paths = tmp.n_paths;
				res->found = tmp.found;
				res->search_exhausted = tmp.search_exhausted;
				if (tmp.n_paths && tmp.paths[0].n) {
					const struct thop *last = &tmp.paths[0].hops[tmp.paths[0].n - 1];
					free(res->uid);
					res->uid = NULL;
					if (last->uid) {
						res->uid = malloc(last->uid_len + 1);
						if (res->uid) {
							memcpy(res->uid, last->uid, last->uid_len + 1);
							res->uid_len = last->uid_len;
						}
					}
				}
			} else {
				for (size_t i = 0; i < tmp.n_paths; i++) {
					for (size_t h = 0; h < tmp.paths[i].n; h++)
						free(tmp.paths[i].hops[h].uid);
					free(tmp.paths[i].hops);
				}
				free(tmp.paths);
			}
			if (res->found >= e->pol->min_paths)
				res->trusted = true;
		}
		free(uids);
	}
	if (res->found >= e->pol->min_paths)
		res->trusted = true;
	return 0;
}

static void explore_done(struct explore *e)
{
	free(e->nodes);
	free(e->edges);
}

static const char *key_reason(int why)
{
	switch (why) {
	case KEY_UNKNOWN: return "not in the store";
	case KEY_REVOKED: return "revoked";
	case KEY_SOFT_REVOKED: return "revoked";
	case KEY_EXPIRED: return "expired";
	case KEY_FUTURE: return "created after the reference time";
	case KEY_WEAK: return "weaker than the policy's minimum key size";
	default: return "valid";
	}
}

static int add_core(void *data, const char *fpr)
{
	return ksp_trust_policy_add_core(data, fpr);
}

/* trust-private.h: the store's participants added to @extra's core */
int ksp_trust_core_from_party(struct ksp_store *store, struct ksp_trust_policy *extra)
{
	return ksp_store_participant_fprs(store, true, add_core, extra);
}

/* policy.h: the policy's core keys and, with core_party, the
 * store's participants, added to @out */
int ksp_trust_policy_resolve_core(struct ksp_store *store, const struct ksp_trust_policy *pol,
				  struct ksp_trust_policy *out)
{
	int r = 0;

	for (size_t i = 0; i < pol->n_core && r == 0; i++)
		r = ksp_trust_policy_add_core(out, pol->core[i]);
	if (r == 0 && pol->core_party)
		r = ksp_trust_core_from_party(store, out);
	return r;
}



/* The bidirectional exploration (forward from the core, backward from
 * the target, the cheaper side first) until the two depths add up to the
 * policy's L, evaluating on the way when the sides meet (res->trusted: a
 * shorter horizon sufficed). */
static int explore_both(struct explore *e, uint32_t target, const uint32_t *cores, uint32_t n_cores,
			struct ksp_trust_result *res)
{
	const struct ksp_trust_policy *pol = e->pol;
	uint32_t *fr = NULL, *nx = NULL, *bfr = NULL;
	size_t n_fr = 0, cap_fr = 0, n_nx = 0, cap_nx = 0, n_bfr = 0, cap_bfr = 0;
	int r = 0;
	uint32_t hf = 0, hb = 0, L = (uint32_t)pol->max_depth;
	bool fdone = false, bdone = false;

	for (uint32_t i = 0; i < n_cores; i++) {
		if (e->nodes[cores[i]].df == UINT32_MAX) {
			e->nodes[cores[i]].df = 0;
			r = push_u32(&fr, &n_fr, &cap_fr, cores[i]);
			if (r < 0)
				goto out;
		}
	}
	e->nodes[target].db = 0;
	cap_bfr = 64;
	bfr = malloc(cap_bfr * sizeof(*bfr));
	if (bfr == NULL) {
		r = -ENOMEM;
		goto out;
	}
	bfr[n_bfr++] = target;
	/* an empty frontier means that side is complete: every edge of
	 * every path is then known */
	while (hf + hb < L && !fdone && !bdone) {
		/* the cheaper side: fewer edges to read */
		uint64_t cost_f = 0, cost_b = 0;
		for (size_t i = 0; i < n_fr; i++) {
			uint32_t vx = (uint32_t)e->nodes[fr[i]].key_id;
			cost_f += e->g->out_off[vx + 1] - e->g->out_off[vx];
		}
		for (size_t i = 0; i < n_bfr; i++) {
			uint32_t vx = (uint32_t)e->nodes[bfr[i]].key_id;
			cost_b += e->g->in_off[vx + 1] - e->g->in_off[vx];
		}
		bool go_forward = cost_f <= cost_b, met = false;
		uint32_t **cur = go_forward ? &fr : &bfr;
		size_t *n_cur = go_forward ? &n_fr : &n_bfr, *cap_cur = go_forward ? &cap_fr : &cap_bfr;
		uint32_t d = go_forward ? hf : hb;

		n_nx = 0;
		for (size_t i = 0; i < *n_cur; i++) {
			r = expand(e, (*cur)[i], go_forward, d, &nx, &n_nx, &cap_nx);
			if (r < 0)
				goto out;
		}
		/* swap frontier buffers */
		uint32_t *tmp = *cur;
		size_t tcap = *cap_cur;
		*cur = nx;
		*cap_cur = cap_nx;
		*n_cur = n_nx;
		nx = tmp;
		cap_nx = tcap;
		if (go_forward) {
			hf++;
			if (n_fr == 0)
				fdone = true;
		} else {
			hb++;
			if (n_bfr == 0)
				bdone = true;
		}
		/* the two sides met: paths of hf + hb edges are all
		 * known; enough of them already decides (shorter
		 * horizons than L: only a success counts) */
		for (size_t i = 0; i < *n_cur && !met; i++) {
			const struct tnode *nd = &e->nodes[(*cur)[i]];
			met = nd->df != UINT32_MAX && nd->db != UINT32_MAX;
		}
		if (met && hf + hb < L && !fdone && !bdone) {
			r = evaluate(e, target, cores, n_cores, hf + hb, false, res);
			if (r < 0)
				goto out;
			if (res->trusted)
				break;
		}
	}
out:
	free(fr);
	free(nx);
	free(bfr);
	return r;
}

/* The verdict and its one-line message, from the paths found. */
static void decide(struct ksp_trust_result *res, const struct ksp_trust_policy *pol, bool binding, uint32_t n_cores)
{
	if (res->found >= pol->min_paths) {
		res->trusted = true;
		res->reason = KSP_TRUST_TRUSTED;
		snprintf(res->message, sizeof(res->message), "trusted: %d vertex-disjoint path%s of at most %d hop%s from the core%s",
			 res->found, res->found == 1 ? "" : "s", pol->max_depth, pol->max_depth == 1 ? "" : "s",
			 pol->per_uid || binding ? " to one user ID" : "");
	} else if (res->found == 0) {
		res->reason = res->search_exhausted ? KSP_TRUST_UNDECIDED : KSP_TRUST_NO_PATH;
		snprintf(res->message, sizeof(res->message), "not trusted: %s", res->search_exhausted
			 ? "the search for disjoint paths ran out of steps before finding one"
			 : "no certification path from the core of at most the maximum depth");
		if (!res->search_exhausted)
			snprintf(res->message, sizeof(res->message),
				 "not trusted: no certification path of at most %d hop%s from the %u usable core key%s%s",
				 pol->max_depth, pol->max_depth == 1 ? "" : "s", n_cores, n_cores == 1 ? "" : "s",
				 pol->per_uid || binding ? " to any one user ID" : "");
	} else {
		char note[160] = "";
		res->reason = res->search_exhausted ? KSP_TRUST_UNDECIDED : KSP_TRUST_TOO_FEW_PATHS;
		if (res->search_exhausted)
			snprintf(note, sizeof(note), " (the search ran out of steps: more may exist)");
		else if (res->flow_bound > (uint32_t)res->found)
			snprintf(note, sizeof(note), " (shown: the max-flow's; at most %u of any length exist)",
				 res->flow_bound);
		snprintf(res->message, sizeof(res->message),
			 "not trusted: only %d vertex-disjoint path%s of at most %d hop%s, %d needed%s%s", res->found,
			 res->found == 1 ? "" : "s", pol->max_depth, pol->max_depth == 1 ? "" : "s", pol->min_paths,
			 pol->per_uid || binding ? " on one user ID" : "", note);
	}
}

/* The target's key id in the store (*@tid, 0 when it is not there or no
 * vertex) and the usable core keys' nodes (*@cores, counting the core keys
 * not in the store and the invalid ones).  0 or -errno. */
static int find_target_and_cores(struct ksp_store *store, struct explore *e, const char *tfpr,
				 const struct ksp_trust_policy *core, int64_t *tid, uint32_t **cores, uint32_t *n_cores,
				 int *unknown_core, int *invalid_core)
{
	struct ksp_store_key_lookup *keys = NULL;
	int64_t id;
	int r;

	r = ksp_store_key_lookup_new(store, &keys);
	if (r < 0)
		return r;
	id = ksp_store_key_lookup(keys, tfpr);
	if (id < 0) {
		r = (int)id;
		goto out;
	}
	*tid = id;
	if (*tid && ksp_wsnap_vertex(e->g, *tid) == UINT32_MAX)
		*tid = 0;
	/* the core keys, by fingerprint (with the reachability: no look-ups) */
	*cores = malloc(core->n_core * sizeof(**cores));
	if (*cores == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < core->n_core; i++) {
		uint32_t vx = UINT32_MAX;
		if (e->reach) {
			vx = e->reach->core_vx[i];
		} else {
			id = ksp_store_key_lookup(keys, core->core[i]);
			if (id < 0) {
				r = (int)id;
				goto out;
			}
			if (id > 0)
				vx = ksp_wsnap_vertex(e->g, id);
		}
		if (vx != UINT32_MAX) {
			uint32_t c = node_of(e, vx, true);
			if (c == UINT32_MAX) {
				r = -ENOMEM;
				goto out;
			}
			r = check_node(e, c);
			if (r < 0)
				goto out;
			if (r == 1)
				(*cores)[(*n_cores)++] = c;
			else
				(*invalid_core)++;
		} else {
			(*unknown_core)++;
		}
	}
	r = 0;
out:
	ksp_store_key_lookup_free(keys);
	return r;
}

/* A binding question: the target's user IDs that answer it (@want_uid, or
 * one with the address @want_email), present and not revoked at @at, into
 * *@only; 1 when there is none (@res says why), 0, or -errno. */
static int binding_uids(struct explore *e, int64_t tid, const char *tfpr, const void *want_uid, size_t want_uid_len,
			const char *want_email, int64_t at, struct ksp_trust_result *res, int64_t **only, size_t *n_only)
{
	const struct ksp_wsnap *g = e->g;
	uint32_t vx = ksp_wsnap_vertex(g, tid);
	size_t n_match = 0;

	if (vx == UINT32_MAX)
		return -EBADMSG; /* the caller found it there */
	/* the key's user IDs in the key's order (the snapshot's binds) */
	for (uint32_t i = g->bind_off[vx]; i < g->bind_off[vx + 1]; i++) {
		const struct ksp_wsnap_bind *bd;
		const char *u;
		size_t n;

		if (i >= g->n_binds)
			return -EBADMSG;
		bd = &g->binds[i];
		if (bd->flags & KSP_WSNAP_BIND_ATTR)
			continue;
		u = ksp_wsnap_bind_text(g, bd, &n);
		if (!ksp_trust_uid_matches(u, n, want_uid, want_uid_len, want_email))
			continue;
		if (n_match++ == 0 && res->uid == NULL && (res->uid = malloc(n + 1))) {
			if (n)
				memcpy(res->uid, u, n);
			res->uid[n] = '\0';
			res->uid_len = n;
		}
		if (bd->revoked != KSP_WSNAP_NEVER && bd->revoked <= at)
			continue;
		void *nn = realloc(*only, (*n_only + 1) * sizeof(**only));
		if (nn == NULL)
			return -ENOMEM;
		*only = nn;
		(*only)[(*n_only)++] = bd->uid_id;
	}
	if (*n_only == 0) {
		res->reason = n_match ? KSP_TRUST_TARGET_REVOKED : KSP_TRUST_TARGET_UNKNOWN;
		snprintf(res->message, sizeof(res->message), "not trusted: key %s has %s", tfpr,
			 n_match ? (want_email ? "no unrevoked user ID with that address at the reference time"
					       : "that user ID revoked at the reference time")
				 : (want_email ? "no user ID with that address" : "no such user ID"));
		return 1;
	}
	return 0;
}

/* (Long: the query's steps in order, each a few lines around a helper, with one exit that frees the query's state.) */
static int trust_check(struct ksp_store *store, const struct ksp_trust_policy *pol, const char *target_fpr,
		       const void *want_uid, size_t want_uid_len, const char *want_email, int64_t at,
		       struct ksp_trust_result **ret)
{
	int64_t *only = NULL;
	size_t n_only = 0;
	bool binding = want_uid != NULL || want_email != NULL;
	struct ksp_ctx *ctx;
	struct explore e = { 0 };
	struct ksp_trust_result *res = NULL;
	struct ksp_trust_policy *core = NULL;
	uint32_t *cores = NULL, n_cores = 0, target;
	char tfpr[65];
	int64_t tid = 0;
	int r, unknown_core = 0, invalid_core = 0;

	if (store == NULL || pol == NULL || target_fpr == NULL || ret == NULL)
		return -EINVAL;
	ctx = ksp_store_get_ctx(store);
	ksp_clear_error(ctx);
	if (fpr_normalize(target_fpr, tfpr) < 0) {
		ksp_set_error(ctx, "'%.80s' is not a full fingerprint (40 or 64 hex digits); short key IDs are not accepted",
			      target_fpr);
		return -EINVAL;
	}
	res = calloc(1, sizeof(*res));
	if (res == NULL)
		return -ENOMEM;
	memcpy(res->target, tfpr, sizeof(tfpr));
	res->needed = pol->min_paths;
	res->max_depth = pol->max_depth;
	e.ctx = ctx;
	e.pol = pol;
	e.at = at;
	r = ksp_trust_policy_new(ctx, &core);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < pol->n_core && r == 0; i++)
		r = ksp_trust_policy_add_core(core, pol->core[i]);
	if (r == 0 && pol->core_party)
		r = ksp_trust_core_from_party(store, core);
	if (r < 0)
		goto out;
	if (core->n_core == 0) {
		ksp_set_error(ctx, "no core keys given: name them (--core-fpr, --core FILE, --core-party or 'core =' in a policy)");
		r = -EINVAL;
		goto out;
	}
	r = ksp_wsnap_get(store, &e.g);
	if (r == 0)
		r = ksp_wsnap_new_query(e.g);
	if (r < 0)
		goto out;
	if (pol->whatif && pol->whatif->reach) {
		const struct ksp_trust_reach *rh = pol->whatif->reach;
		if (rh->at == at && rh->gen == e.g->gen && rh->nonce == e.g->nonce && rh->n == e.g->n &&
		    rh->n_core_vx == core->n_core && rh->max_depth == pol->max_depth && rh->max_age == pol->max_age &&
		    rh->sha1 == pol->sha1 && rh->md5 == pol->md5 && rh->min_bits == pol->min_bits)
			e.reach = rh;
	}
	/* what the hash rules leave out of the graph at the time (only
	 * edges with a weak hash can be: the snapshot lists them; skipped
	 * when nobody reads it, see whatif.h) */
	for (uint64_t k = 0; !pol->no_dropped && k < e.g->n_weak; k++) {
		const struct ksp_wsnap_edge *ed = &e.g->edges[e.g->weak[k]];
		int w;

		if (ed->flags == 0 || ed->uidx >= e.g->n_uids)
			continue;
		w = ksp_hash_rule(ksp_wsnap_edge_hash(ed), ed->created, pol->md5, pol->sha1);
		if (w != KSP_HASH_KEPT && ksp_wsnap_edge_valid_at(e.g, ed, at))
			res->dropped[w]++;
	}
	/* the target and the core keys */
	r = find_target_and_cores(store, &e, tfpr, core, &tid, &cores, &n_cores, &unknown_core, &invalid_core);
	if (r < 0)
		goto out;
	if (tid == 0) {
		res->reason = KSP_TRUST_TARGET_UNKNOWN;
		snprintf(res->message, sizeof(res->message), "not trusted: key %s is not in the store", tfpr);
		r = 0;
		goto out;
	}
	target = node_of(&e, ksp_wsnap_vertex(e.g, tid), true);
	if (target == UINT32_MAX) {
		r = -ENOMEM;
		goto out;
	}
	r = check_node(&e, target);
	if (r < 0)
		goto out;
	if (binding && r == 1 && e.nodes[target].why != KEY_SOFT_REVOKED) {
		r = binding_uids(&e, tid, tfpr, want_uid, want_uid_len, want_email, at, res, &only, &n_only);
		if (r < 0)
			goto out;
		if (r == 1) {
			r = 0;
			goto out;
		}
		r = 1; /* the target is a vertex (check_node() above) */
		e.only_uids = only;
		e.n_only = n_only;
	}
	if (r == 0 || e.nodes[target].why == KEY_SOFT_REVOKED) {
		int why = e.nodes[target].why;
		res->reason = why == KEY_REVOKED || why == KEY_SOFT_REVOKED ? KSP_TRUST_TARGET_REVOKED
			    : why == KEY_EXPIRED ? KSP_TRUST_TARGET_EXPIRED
						 : KSP_TRUST_TARGET_INVALID;
		if (why == KEY_REVOKED)
			snprintf(res->message, sizeof(res->message),
				 "not trusted: key %s is revoked (key compromised or no reason given: at every date)",
				 tfpr);
		else
			snprintf(res->message, sizeof(res->message), "not trusted: key %s is %s at the reference time%s",
				 tfpr, key_reason(why), why == KEY_SOFT_REVOKED ? " (retired or superseded)" : "");
		r = 0;
		goto out;
	}
	for (uint32_t i = 0; i < n_cores; i++)
		if (cores[i] == target) {
			res->trusted = true;
			res->found = pol->min_paths;
			res->reason = KSP_TRUST_TRUSTED;
			snprintf(res->message, sizeof(res->message), "trusted: %s is a core key", tfpr);
			r = 0;
			goto out;
		}
	if (n_cores == 0) {
		res->reason = KSP_TRUST_NO_CORE;
		snprintf(res->message, sizeof(res->message),
			 "not trusted: none of the %zu core keys is usable (%d not in the store, %d revoked, expired or "
			 "too weak)",
			 core->n_core, unknown_core, invalid_core);
		r = 0;
		goto out;
	}
	/* a what-if's reachability (whatif.h): farther than L, no path (what
	 * the exploration would find); within L at K = 1, trusted when only
	 * the verdict is asked */
	if (e.reach && !binding) {
		const struct ksp_trust_reach *rh = e.reach;
		uint64_t tv = (uint64_t)e.nodes[target].key_id;
		if (tv < rh->n) {
			if (rh->dist[tv] > pol->max_depth) {
				res->explored = e.n;
				goto decided;
			}
			if (pol->whatif->verdict_only && pol->min_paths == 1) {
				res->explored = e.n;
				res->found = 1;
				goto decided;
			}
		}
	}
	r = explore_both(&e, target, cores, n_cores, res);
	if (r < 0)
		goto out;
	res->explored = e.n;
	r = 0;
	if (!res->trusted)
		r = evaluate(&e, target, cores, n_cores, (uint32_t)pol->max_depth, true, res);
	if (r < 0)
		goto out;
decided:
	decide(res, pol, binding, n_cores);
	r = 0;
out:
	free(only);
	free(cores);
	ksp_trust_policy_free(core);
	explore_done(&e);
	if (r < 0) {
		if (r == -E2BIG)
			ksp_set_error(ctx, "%s: the search touched more than %u keys; lower --max-depth",
				      ksp_store_get_path(store), MAX_EXPLORE);
		else if (r == -EBADMSG && !ksp_get_error(ctx))
			ksp_set_error(ctx, "%s-wot: the graph snapshot is damaged; delete it (ksp rebuilds it) and retry",
				      ksp_store_get_path(store));
		else if (!ksp_get_error(ctx))
			ksp_set_error(ctx, "%s: cannot evaluate trust: %s", ksp_store_get_path(store), strerror(-r));
		ksp_trust_result_free(res);
		return r;
	}
	*ret = res;
	return 0;
}

static int trust_check_retry(struct ksp_store *store, const struct ksp_trust_policy *pol, const char *target_fpr,
			     const void *uid, size_t uid_len, const char *email, int64_t at, struct ksp_trust_result **ret)
{
	int r = trust_check(store, pol, target_fpr, uid, uid_len, email, at, ret);

	/* a damaged snapshot file: drop it, build it again, once */
	if (r == -EBADMSG) {
		WARN(ksp_store_get_ctx(store), "%s-wot: the graph snapshot is damaged; rebuilding it",
		     ksp_store_get_path(store));
		if (ksp_wsnap_discard(store) == 0)
			r = trust_check(store, pol, target_fpr, uid, uid_len, email, at, ret);
	}
	return r;
}

KSP_EXPORT int ksp_trust_check(struct ksp_store *store, const struct ksp_trust_policy *pol, const char *target_fpr,
			       int64_t at, struct ksp_trust_result **ret)
{
	return trust_check_retry(store, pol, target_fpr, NULL, 0, NULL, at, ret);
}

KSP_EXPORT int ksp_trust_check_binding(struct ksp_store *store, const struct ksp_trust_policy *pol,
				       const char *target_fpr, const void *uid, size_t uid_len, const char *email,
				       int64_t at, struct ksp_trust_result **ret)
{
	if ((uid == NULL) == (email == NULL))
		return -EINVAL;
	if (email && (*email == '\0' || strchr(email, '@') == NULL)) {
		if (store)
			ksp_set_error(ksp_store_get_ctx(store), "'%.80s' is not an e-mail address (NAME@DOMAIN)", email);
		return -EINVAL;
	}
	return trust_check_retry(store, pol, target_fpr, uid, uid_len, email, at, ret);
}
