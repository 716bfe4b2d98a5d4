// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reach.c: the what-if reachability from the core (whatif.h), moved out of
 * trust.c: one search over the graph at a time, which the engine's queries
 * then use for the keys out of reach
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
#include "lib/wot/wot-snap.h"
#include "lib/trust/whatif.h"
#include "lib/trust/policy.h"
#include "lib/trust/result.h"
#include "lib/trust/model.h"
#include "lib/trust/trust-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"
#include "lib/trust/trust-private.h"

/* ---- reachability from the core (whatif.h) ------------------------------------ */

struct ksp_trust_reach *ksp_trust_reach_free(struct ksp_trust_reach *r)
{
	if (r) {
		free(r->dist);
		free(r->why);
		free(r->core_vx);
		if (r->own_in) {
			free(r->in_off);
			free(r->in);
			free(r->out_off);
			free(r->out_v);
		}
		free(r);
	}
	return NULL;
}

/* One breadth-first search from the usable core keys over what a query
 * at @at under @pol would explore: the same vertices (ksp_trust_vertex_why()), the
 * same certifications (ksp_wsnap_edge_counts(), the what-if's added ones),
 * the same bounds checks.  dist[v] = the fewest certifications from a core
 * key to v, max_depth + 1 for farther or out of reach. */
/* The certifications into each vertex that count (whatif.h); -EBADMSG
 * where a query's expand() would fail on any of them. */
static int reach_in_edges(const struct ksp_wsnap *g, const struct ksp_trust_policy *pol, int64_t at,
			  struct ksp_trust_reach *res)
{
	int64_t min_created = pol->max_age ? at - pol->max_age : INT64_MIN;
	size_t k = 0;

	res->own_in = true;
	res->in_off = malloc(((size_t)g->n + 1) * sizeof(*res->in_off));
	if (res->in_off == NULL)
		return -ENOMEM;
	/* first the count, then the copy */
	for (int pass = 0; pass < 2; pass++) {
		k = 0;
		for (uint32_t v = 0; v < g->n; v++) {
			if (pass == 1)
				res->in_off[v] = (uint32_t)k;
			for (uint32_t j = g->in_off[v]; j < g->in_off[v + 1]; j++) {
				const struct ksp_wsnap_edge *ed;
				if (g->in_eid[j] >= g->m)
					return -EBADMSG;
				ed = &g->edges[g->in_eid[j]];
				if (ed->u >= g->n || ed->v >= g->n || ed->uidx >= g->n_uids)
					return -EBADMSG;
				if (!ksp_wsnap_edge_counts(g, ed, at, pol->md5, pol->sha1, min_created))
					continue;
				if (pass == 1)
					res->in[k] = (struct ksp_trust_in_edge){ .u = ed->u, .uid_id = g->uids[ed->uidx].uid_id,
										 .created = ed->created };
				k++;
			}
		}
		if (pass == 0) {
			if (k > UINT32_MAX)
				return -E2BIG;
			res->in = malloc((k ? k : 1) * sizeof(*res->in));
			if (res->in == NULL)
				return -ENOMEM;
		}
	}
	res->in_off[g->n] = (uint32_t)k;
	/* out: the same certifications from the other end */
	res->out_off = malloc(((size_t)g->n + 1) * sizeof(*res->out_off));
	res->out_v = malloc((k ? k : 1) * sizeof(*res->out_v));
	if (res->out_off == NULL || res->out_v == NULL)
		return -ENOMEM;
	k = 0;
	for (uint32_t u = 0; u < g->n; u++) {
		res->out_off[u] = (uint32_t)k;
		for (uint32_t j = g->out_off[u]; j < g->out_off[u + 1]; j++) {
			const struct ksp_wsnap_edge *ed = &g->edges[j];
			if (ed->u >= g->n || ed->v >= g->n || ed->uidx >= g->n_uids)
				return -EBADMSG;
			if (!ksp_wsnap_edge_counts(g, ed, at, pol->md5, pol->sha1, min_created))
				continue;
			if (k >= res->in_off[g->n])
				return -EBADMSG; /* more out than in: not one edge set */
			res->out_v[k++] = ed->v;
		}
	}
	res->out_off[g->n] = (uint32_t)k;
	return 0;
}

int ksp_trust_reach_new(struct ksp_store *store, const struct ksp_trust_policy *pol, int64_t at,
			const struct ksp_trust_reach *like, struct ksp_trust_reach **ret)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	struct explore e = { .ctx = ctx, .pol = pol, .at = at };
	struct ksp_trust_policy *core = NULL;
	struct ksp_trust_reach *res = NULL;
	const struct ksp_trust_whatif *wi = pol->whatif;
	uint8_t *state = NULL; /* 1 a vertex, 2 not */
	uint32_t *queue = NULL, hd = 0, tl = 0;
	uint16_t far;
	struct ksp_store_key_lookup *keys = NULL;
	int r;

	if (pol->max_depth < 1 || pol->max_depth > 1000)
		return -EINVAL;
	far = (uint16_t)(pol->max_depth + 1);
	r = ksp_wsnap_get(store, &e.g);
	if (r < 0)
		return r;
	/* beyond it a query may give up (-E2BIG) where this would answer */
	if (e.g->n > MAX_EXPLORE)
		return -E2BIG;
	r = ksp_trust_policy_new(ctx, &core);
	for (size_t i = 0; i < pol->n_core && r == 0; i++)
		r = ksp_trust_policy_add_core(core, pol->core[i]);
	if (r == 0 && pol->core_party)
		r = ksp_trust_core_from_party(store, core);
	if (r < 0)
		goto out;
	if (core->n_core == 0) {
		r = -EINVAL;
		goto out;
	}
	r = -ENOMEM;
	res = calloc(1, sizeof(*res));
	state = calloc(e.g->n ? e.g->n : 1, 1);
	queue = malloc((e.g->n ? e.g->n : 1) * sizeof(*queue));
	if (res == NULL || state == NULL || queue == NULL)
		goto out;
	res->dist = malloc((e.g->n ? e.g->n : 1) * sizeof(*res->dist));
	res->why = malloc(e.g->n ? e.g->n : 1);
	res->core_vx = malloc(core->n_core * sizeof(*res->core_vx));
	if (res->dist == NULL || res->why == NULL || res->core_vx == NULL)
		goto out;
	res->plain = wi == NULL || (wi->lost == NULL && wi->extended == NULL);
	if (like && like->plain && like->at == at && like->gen == e.g->gen && like->nonce == e.g->nonce &&
	    like->n == e.g->n && like->min_bits == pol->min_bits) {
		/* the same states but for the what-if's lost and extended keys */
		memcpy(res->why, like->why, e.g->n);
		for (uint32_t v = 0; wi && v < e.g->n; v++)
			if ((wi->lost && wi->lost[v]) || (wi->extended && wi->extended[v]))
				res->why[v] = ksp_trust_vertex_why(e.g, pol, at, v);
	} else {
		for (uint32_t v = 0; v < e.g->n; v++)
			res->why[v] = ksp_trust_vertex_why(e.g, pol, at, v);
	}
	for (uint32_t v = 0; v < e.g->n; v++) {
		res->dist[v] = far;
		state[v] = res->why[v] == KEY_OK || res->why[v] == KEY_SOFT_REVOKED ? 1 : 2;
	}
	res->n_core_vx = core->n_core;
	res->at = at;
	res->gen = e.g->gen;
	res->nonce = e.g->nonce;
	res->n = e.g->n;
	res->max_age = pol->max_age;
	res->max_depth = pol->max_depth;
	res->sha1 = pol->sha1;
	res->min_bits = pol->min_bits;
	res->md5 = pol->md5;
	if (like && like->in && like->at == at && like->gen == res->gen && like->nonce == res->nonce &&
	    like->n == res->n && like->max_age == res->max_age && like->sha1 == res->sha1 && like->md5 == res->md5) {
		res->in_off = like->in_off;
		res->in = like->in;
		res->out_off = like->out_off;
		res->out_v = like->out_v;
	} else {
		r = reach_in_edges(e.g, pol, at, res);
		if (r < 0)
			goto out;
	}
	r = ksp_store_key_lookup_new(store, &keys);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < core->n_core; i++) {
		int64_t id = ksp_store_key_lookup(keys, core->core[i]);
		uint32_t vx = UINT32_MAX;
		if (id < 0) {
			r = (int)id;
			goto out;
		}
		if (id > 0)
			vx = ksp_wsnap_vertex(e.g, id);
		res->core_vx[i] = vx;
		if (vx == UINT32_MAX || res->dist[vx] == 0)
			continue;
		if (state[vx] == 1) {
			res->dist[vx] = 0;
			queue[tl++] = vx;
		}
	}
	while (hd < tl) {
		uint32_t u = queue[hd++];
		uint16_t du = res->dist[u];
		if (du + 1 >= far)
			continue;
		/* the certifications that count (bounds checked when listed) */
		for (uint32_t j = res->out_off[u]; j < res->out_off[u + 1]; j++) {
			uint32_t v = res->out_v[j];
			if (res->dist[v] != far || state[v] != 1)
				continue;
			res->dist[v] = (uint16_t)(du + 1);
			queue[tl++] = v;
		}
		for (size_t j = 0; wi && j < wi->n_added; j++) {
			const struct ksp_trust_added *a = &wi->added[j];
			if (a->u != u || a->v >= e.g->n || a->u == a->v || res->dist[a->v] != far)
				continue;
			if (state[a->v] != 1)
				continue;
			res->dist[a->v] = (uint16_t)(du + 1);
			queue[tl++] = a->v;
		}
	}
	*ret = res;
	res = NULL;
	r = 0;
out:
	ksp_store_key_lookup_free(keys);
	ksp_trust_policy_free(core);
	ksp_trust_reach_free(res);
	free(state);
	free(queue);
	return r;
}

/* Does user ID @uid (@n bytes) carry address @email (lib/addr.c, the
 * parser party add and sign use)?  ASCII letters match in either case;
 * other bytes exactly.  -ENOMEM is "no": a binding is never granted by a
 * failure. */
