// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * health.c: trust health (ksp health), its parts but the weak list
 * (health-weak.c), the repair plan
 * (health-repair.c) and the report's getters (health-api.c): who loses
 * their paths to the core
 * at which horizon and why, the fewest new certifications that repair it,
 * the keys everyone depends on, the party pairs that help most, and the
 * weak certifications a signer should renew.
 *
 * Every verdict comes from the trust engine (ksp_trust_check(), trust.c,
 * on the graph snapshot), asked directly or with a what-if (whatif.h:
 * keys lost, expiries extended, certifications added).  The one shortcut:
 * a key trusted now keeps its verdict at a later horizon when the K
 * disjoint paths the engine found now (its witness) are all still there at
 * that horizon, key by key and hop by hop (the definition of trust, checked
 * on the engine's own proof); every other key is asked again.  The
 * engine's questions of a horizon (and of a single-point-of-failure
 * candidate) carry its reachability (whatif.h: one search from the core
 * over the graph at that time), with which the engine answers the keys out
 * of reach without exploring, the same answer; at K >= 2 a key with one
 * signer within reach (or one usable core key) gets the engine's answer
 * for one path without asking it (health-bound.c); every question still
 * counts in "queries".
 *
 * Queries run on ksp_get_threads() threads, each with its own store handle
 * (a store is not thread-safe); thread 0 uses the caller's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/store/store-health.h"
#include "lib/store/store-trust.h"
#include "lib/wot/wot-validity.h"
#include "lib/wot/wot-snap.h"
#include "lib/trust/whatif.h"
#include "lib/health/health-private.h"
#include "shared/util.h"

/* ---- engine queries on threads ------------------------------------------- */

struct hrun {
	struct ksp_health *h;
	struct hjob *jobs;
	size_t n;
	size_t next; /* atomic */
	int err;     /* atomic: first error */
	char errmsg[512];
	pthread_mutex_t lock;
};

static int cmp_fpr_vx(const void *a, const void *b, void *arg)
{
	char(*fpr)[65] = arg;
	return strcmp(fpr[*(const uint32_t *)a], fpr[*(const uint32_t *)b]);
}

uint32_t health_vertex_of_fpr(const struct ksp_health *h, const char *fpr)
{
	size_t lo = 0, hi = h->g->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(h->fpr[h->by_fpr[mid]], fpr);
		if (c == 0)
			return h->by_fpr[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}

/* The result's paths as vertex lists: [n_paths, len, v..., ...]. */
static int result_witness(const struct ksp_health *h, const struct ksp_trust_result *res, uint32_t **ret)
{
	size_t np = ksp_trust_result_get_path_count(res), len = 1, o = 0;
	uint32_t *w;

	for (size_t p = 0; p < np; p++)
		len += 2 + ksp_trust_result_get_path_length(res, p);
	w = malloc(len * sizeof(*w));
	if (w == NULL)
		return -ENOMEM;
	w[o++] = (uint32_t)np;
	for (size_t p = 0; p < np; p++) {
		size_t nh = ksp_trust_result_get_path_length(res, p);
		w[o++] = (uint32_t)(nh + 1);
		for (size_t i = 0; i < nh; i++) {
			const char *signer, *signee;
			ksp_trust_result_get_hop(res, p, i, &signer, &signee, NULL, NULL, NULL);
			if (i == 0)
				w[o++] = health_vertex_of_fpr(h, signer);
			w[o++] = health_vertex_of_fpr(h, signee);
		}
		if (nh == 0)
			w[o++] = UINT32_MAX;
	}
	*ret = w;
	return 0;
}

static int run_one(struct hrun *run, struct ksp_store *store, struct hjob *j)
{
	struct ksp_trust_result *res = NULL;
	int r;

	if (j->bound) {
		const struct ksp_health *h = run->h;
		if (health_bound_one(j->bound, j->vx, (unsigned)h->rule.max_depth)) {
			j->trusted = false;
			j->found = 1;
			if (j->want_msg && (j->msg = health_bound_msg(h->rule.max_depth, h->rule.min_paths)) == NULL)
				return -ENOMEM;
			return 0;
		}
	}
	r = ksp_trust_check(store, j->pol, run->h->fpr[j->vx], j->at, &res);
	if (r < 0)
		return r;
	j->trusted = ksp_trust_result_is_trusted(res);
	j->found = ksp_trust_result_get_paths_found(res);
	if (j->want_msg && !j->trusted) {
		j->msg = strdup(ksp_trust_result_get_message(res));
		if (j->msg == NULL)
			r = -ENOMEM;
	}
	if (r == 0 && j->want_paths && j->trusted)
		r = result_witness(run->h, res, &j->wit);
	ksp_trust_result_free(res);
	return r;
}

/* One read transaction around the queries: SQLite then takes its shared
 * lock once, not once a statement (most of the time of a small query). */
static void run_loop(struct hrun *run, struct ksp_store *store)
{
	bool txn = ksp_store_health_read_begin(store);

	for (;;) {
		size_t i = __atomic_fetch_add(&run->next, 1, __ATOMIC_RELAXED);
		int r;

		if (i >= run->n || __atomic_load_n(&run->err, __ATOMIC_RELAXED))
			break;
		r = run_one(run, store, &run->jobs[i]);
		if (r < 0) {
			pthread_mutex_lock(&run->lock);
			if (run->err == 0) {
				const char *m = ksp_get_error(ksp_store_get_ctx(store));
				snprintf(run->errmsg, sizeof(run->errmsg), "%s", m ? m : "");
				__atomic_store_n(&run->err, r, __ATOMIC_RELAXED);
			}
			pthread_mutex_unlock(&run->lock);
			break;
		}
	}
	ksp_store_health_read_end(store, txn);
}

struct hworker {
	struct hrun *run;
	int r;
};

static void *worker_main(void *arg)
{
	struct hworker *w = arg;
	struct ksp_ctx *ctx = NULL;
	struct ksp_store *store = NULL;
	int r;

	r = ksp_new(&ctx);
	if (r == 0)
		r = ksp_store_open(ctx, ksp_store_get_path(w->run->h->store), 0, &store);
	if (r == 0) {
		/* the queries' look-ups (keys by fingerprint and id, user IDs)
		 * are scattered over the store: keep its pages in memory */
		ksp_store_cache_grow(store, KSP_STORE_SCAN_CACHE_KB);
		run_loop(w->run, store);
	}
	w->r = r;
	ksp_store_unref(store);
	ksp_unref(ctx);
	return NULL;
}

int health_run_jobs(struct ksp_health *h, struct hjob *jobs, size_t n)
{
	struct hrun run = { .h = h, .jobs = jobs, .n = n };
	unsigned nt = ksp_get_threads(h->ctx);
	pthread_t tids[8];
	struct hworker ws[8];
	unsigned started = 0;

	if (n == 0)
		return 0;
	h->queries += n;
	if (nt > 8)
		nt = 8;
	/* a thread opens its own store: only worth it for enough queries */
	if (nt > 1 && n < 500)
		nt = 1;
	pthread_mutex_init(&run.lock, NULL);
	for (unsigned t = 1; t < nt; t++) {
		ws[t] = (struct hworker){ .run = &run };
		if (pthread_create(&tids[t], NULL, worker_main, &ws[t]) != 0)
			break;
		started++;
	}
	run_loop(&run, h->store);
	for (unsigned t = 1; t <= started; t++)
		pthread_join(tids[t], NULL);
	pthread_mutex_destroy(&run.lock);
	if (run.err) {
		if (run.errmsg[0])
			ksp_set_error(h->ctx, "%s", run.errmsg);
		return run.err;
	}
	/* a worker that could not open its store left its share to the others */
	return 0;
}

static void jobs_free(struct hjob *jobs, size_t n)
{
	if (jobs == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].msg);
		free(jobs[i].wit);
	}
	free(jobs);
}

/* ---- the witness at a later horizon --------------------------------------- */

/* The one validity rule (wot-validity.h); health's difference: only a
 * valid key carries paths at a horizon, a soft-revoked one neither. */
bool health_node_ok(const struct ksp_health *h, uint32_t v, int64_t at)
{
	if (v >= h->g->n)
		return false;
	return ksp_key_state_at(&h->g->nodes[v], at) == KSP_KEY_VALID;
}

int64_t health_min_created(const struct ksp_health *h, int64_t at)
{
	return h->rule.max_age ? at - h->rule.max_age : INT64_MIN;
}

/* Does a certification a -> b count at horizon hz (on user ID uidx, or any
 * when uidx is UINT32_MAX)? */
bool health_hop_ok(const struct ksp_health *h, uint32_t a, uint32_t b, unsigned hz, uint32_t uidx)
{
	const struct ksp_wsnap *g = h->g;
	int sha1 = hz == KSP_HEALTH_NO_SHA1 ? KSP_SHA1_NO : h->rule.sha1;
	bool md5 = hz == KSP_HEALTH_NO_SHA1 ? false : h->rule.md5;

	if (a >= g->n)
		return false;
	for (uint32_t j = g->out_off[a]; j < g->out_off[a + 1]; j++) {
		const struct ksp_wsnap_edge *e = &g->edges[j];
		if (e->v == b && (uidx == UINT32_MAX || e->uidx == uidx) &&
		    ksp_wsnap_edge_counts(g, e, h->at[hz], md5, sha1, health_min_created(h, h->at[hz])))
			return true;
	}
	return false;
}

static bool witness_holds(const struct ksp_health *h, const uint32_t *w, unsigned hz)
{
	size_t o = 1;
	uint32_t np = w[0], t = UINT32_MAX;

	if (np < (uint32_t)h->rule.min_paths)
		return false;
	for (uint32_t p = 0; p < np; p++) {
		uint32_t len = w[o++];
		const uint32_t *v = &w[o];
		if (len < 2)
			return false;
		for (uint32_t i = 0; i < len; i++)
			if (!health_node_ok(h, v[i], h->at[hz]))
				return false;
		for (uint32_t i = 0; i + 1 < len; i++)
			if (!health_hop_ok(h, v[i], v[i + 1], hz, UINT32_MAX))
				return false;
		t = v[len - 1];
		o += len;
	}
	if (h->rule.per_uid) {
		/* the last hops on one user ID: one of the first path's */
		const struct ksp_wsnap *g = h->g;
		const uint32_t *first = &w[2];
		uint32_t a = first[w[1] - 2];
		for (uint32_t j = g->out_off[a]; j < g->out_off[a + 1]; j++) {
			const struct ksp_wsnap_edge *e = &g->edges[j];
			bool all = e->v == t;
			o = 1;
			for (uint32_t p = 0; p < np && all; p++) {
				uint32_t len = w[o++];
				all = health_hop_ok(h, w[o + len - 2], t, hz, e->uidx);
				o += len;
			}
			if (all)
				return true;
		}
		return false;
	}
	return true;
}

static int add_break(struct hkey *k, unsigned hz, int kind, uint32_t a, uint32_t b, int64_t when, int path,
		     uint32_t uidx)
{
	for (uint32_t i = 0; i < k->n_br[hz]; i++)
		if (k->br[hz][i].kind == kind && k->br[hz][i].a == a && k->br[hz][i].b == b) {
			return 0;
		}
	void *n = realloc(k->br[hz], (k->n_br[hz] + 1) * sizeof(*k->br[hz]));
	if (n == NULL)
		return -ENOMEM;
	k->br[hz] = n;
	k->br[hz][k->n_br[hz]++] = (struct hbreak){ .kind = kind, .a = a, .b = b, .when = when, .path = path,
						    .uidx = uidx };
	return 0;
}

/* What on the witness no longer holds at horizon hz. */
static int find_breaks(struct ksp_health *h, struct hkey *k, unsigned hz)
{
	const struct ksp_wsnap *g = h->g;
	const uint32_t *w = k->wit;
	int64_t at = h->at[hz], now = h->at[0];
	int sha1 = hz == KSP_HEALTH_NO_SHA1 ? KSP_SHA1_NO : h->rule.sha1;
	bool md5 = hz == KSP_HEALTH_NO_SHA1 ? false : h->rule.md5;
	size_t o = 1;
	int r;

	for (uint32_t p = 0; p < w[0]; p++) {
		uint32_t len = w[o++];
		const uint32_t *v = &w[o];
		for (uint32_t i = 0; i < len; i++) {
			const struct ksp_wsnap_node *n = &g->nodes[v[i]];
			if (n->revoked <= at)
				r = add_break(k, hz, KSP_HEALTH_KEY_REVOKED, v[i], v[i], n->revoked, (int)p, UINT32_MAX);
			else if (n->expires <= at)
				r = add_break(k, hz, KSP_HEALTH_KEY_EXPIRES, v[i], v[i], n->expires, (int)p, UINT32_MAX);
			else
				r = 0;
			if (r < 0)
				return r;
		}
		for (uint32_t i = 0; i + 1 < len; i++) {
			const struct ksp_wsnap_edge *best = NULL;
			uint32_t a = v[i], b = v[i + 1];
			if (health_hop_ok(h, a, b, hz, UINT32_MAX))
				continue;
			/* the certification that carried the hop now, the last to lapse */
			for (uint32_t j = g->out_off[a]; j < g->out_off[a + 1]; j++) {
				const struct ksp_wsnap_edge *e = &g->edges[j];
				if (e->v == b && ksp_wsnap_edge_counts(g, e, now, h->rule.md5, h->rule.sha1, health_min_created(h, now)) &&
				    (best == NULL || e->expires > best->expires))
					best = e;
			}
			if (best == NULL)
				continue;
			if (ksp_hash_rule(ksp_wsnap_edge_hash(best), best->created, md5, sha1) != KSP_HASH_KEPT)
				r = add_break(k, hz, KSP_HEALTH_CERT_WEAK, a, b, best->created, (int)p, best->uidx);
			else if (best->revoked <= at)
				r = add_break(k, hz, KSP_HEALTH_CERT_REVOKED, a, b, best->revoked, (int)p, best->uidx);
			else if (g->uids[best->uidx].revoked <= at)
				r = add_break(k, hz, KSP_HEALTH_UID_REVOKED, a, b, g->uids[best->uidx].revoked, (int)p, best->uidx);
			else if (best->expires <= at)
				r = add_break(k, hz, KSP_HEALTH_CERT_EXPIRES, a, b, best->expires, (int)p, best->uidx);
			else
				r = add_break(k, hz, KSP_HEALTH_CERT_TOO_OLD, a, b, best->created + h->rule.max_age,
					      (int)p, best->uidx);
			if (r < 0)
				return r;
		}
		o += len;
	}
	return 0;
}

bool health_in_witness(const uint32_t *w, uint32_t x, bool count_last)
{
	size_t o = 1;

	if (w == NULL)
		return false;
	for (uint32_t p = 0; p < w[0]; p++) {
		uint32_t len = w[o++];
		for (uint32_t i = 0; i + (count_last ? 0 : 1) < len; i++)
			if (w[o + i] == x)
				return true;
		o += len;
	}
	return false;
}

/* ---- setup ------------------------------------------------------------------ */

static int load_fprs(struct ksp_health *h)
{
	h->fpr = calloc(h->g->n ? h->g->n : 1, sizeof(*h->fpr));
	h->by_fpr = malloc((h->g->n ? h->g->n : 1) * sizeof(*h->by_fpr));
	if (h->fpr == NULL || h->by_fpr == NULL)
		return -ENOMEM;
	/* every key of the store is a vertex of the snapshot */
	for (uint32_t v = 0; v < h->g->n; v++) {
		snprintf(h->fpr[v], 65, "%s", ksp_wsnap_fpr(h->g, v));
		h->by_fpr[v] = v;
	}
	qsort_r(h->by_fpr, h->g->n, sizeof(*h->by_fpr), cmp_fpr_vx, h->fpr);
	return 0;
}

static int add_core(void *arg, const char *fpr)
{
	struct ksp_health *h = arg;
	char norm[65];
	uint32_t v;

	if (fpr_normalize(fpr, norm) < 0)
		return 0;
	v = health_vertex_of_fpr(h, norm);
	if (v == UINT32_MAX || h->is_core[v])
		return 0;
	h->is_core[v] = 1;
	h->core[h->n_core++] = v;
	return 0;
}

static int load_core(struct ksp_health *h)
{
	h->is_core = calloc(h->g->n ? h->g->n : 1, 1);
	h->core = malloc((h->g->n ? h->g->n : 1) * sizeof(*h->core));
	if (h->is_core == NULL || h->core == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < h->rule.n_core; i++)
		add_core(h, h->rule.core[i]);
	if (h->rule.core_party)
		return ksp_store_participant_fprs(h->store, false, add_core, h);
	return 0;
}

int health_load(struct ksp_health *h)
{
	int r = load_fprs(h);

	return r < 0 ? r : load_core(h);
}

/* ---- the horizons ----------------------------------------------------------- */

/* The reachability from the core for queries with @pol at @at (whatif.h):
 * one search over the graph, after which the engine answers the keys out
 * of reach without exploring (their answer is the same).  NULL when it
 * cannot be had (the queries then explore, as before); -ENOMEM fails. */
int health_reach_for(struct ksp_health *h, struct ksp_trust_policy *pol, int64_t at,
		     const struct ksp_trust_reach *like, struct ksp_trust_reach **ret)
{
	int r = ksp_trust_reach_new(h->store, pol, at, like, ret);

	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		*ret = NULL;
		ksp_clear_error(h->ctx);
	}
	return 0;
}

/* Do two reachabilities (whatif.h) describe the same graph: the same
 * keys' states, the same certifications that count, the same core?  Then
 * every query of one has the other's answer (the engine reads nothing
 * else of the time or of the hash rules). */
static bool reach_same(const struct ksp_trust_reach *a, const struct ksp_trust_reach *b)
{
	if (a == NULL || b == NULL || a->n != b->n || a->n_core_vx != b->n_core_vx || a->max_depth != b->max_depth ||
	    a->min_bits != b->min_bits)
		return false;
	if (memcmp(a->why, b->why, a->n) != 0 || memcmp(a->dist, b->dist, a->n * sizeof(*a->dist)) != 0 ||
	    memcmp(a->core_vx, b->core_vx, a->n_core_vx * sizeof(*a->core_vx)) != 0)
		return false;
	if (a->in == b->in && a->in_off == b->in_off)
		return true;
	return memcmp(a->in_off, b->in_off, ((size_t)a->n + 1) * sizeof(*a->in_off)) == 0 &&
	       memcmp(a->in, b->in, (size_t)a->in_off[a->n] * sizeof(*a->in)) == 0;
}

/* Horizon hz asks key k again on the same graph as now: now's answer. */
static int answer_as_now(struct ksp_health *h, struct hkey *k, unsigned hz)
{
	h->queries++;
	k->paths[hz] = k->paths[0];
	if (!(k->below & 1))
		return 0;
	k->below |= (uint8_t)(1u << hz);
	h->n_below[hz]++;
	if (k->msg[0] && (k->msg[hz] = strdup(k->msg[0])) == NULL)
		return -ENOMEM;
	return 0;
}

int health_horizons(struct ksp_health *h)
{
	struct hjob *jobs;
	size_t nj = 0;
	int K = h->rule.min_paths, r;
	bool bound = health_bound_ok(h);
	struct ksp_trust_reach *reach0 = NULL;

	jobs = calloc(h->n_keys ? h->n_keys : 1, sizeof(*jobs));
	if (jobs == NULL)
		return -ENOMEM;
	for (unsigned hz = 0; hz < KSP_HEALTH_HORIZONS; hz++) {
		struct ksp_trust_reach *reach = NULL;
		bool same;
		struct ksp_trust_whatif wi = { 0 };
		struct ksp_trust_policy *pol = ksp_trust_policy_copy(h->pol[hz]);
		nj = 0;
		r = pol ? health_reach_for(h, pol, h->at[hz], NULL, &reach) : -ENOMEM;
		if (r < 0) {
			ksp_trust_policy_free(pol);
			goto out;
		}
		wi.reach = reach;
		ksp_trust_policy_set_whatif(pol, &wi);
		same = hz > 0 && reach_same(reach0, reach);
		for (size_t i = 0; i < h->n_keys; i++) {
			struct hkey *k = &h->keys[i];
			if (hz > 0 && k->wit && witness_holds(h, k->wit, hz)) {
				k->paths[hz] = (int8_t)K;
				continue;
			}
			if (same) {
				r = answer_as_now(h, k, hz);
				if (r < 0) {
					ksp_trust_policy_free(pol);
					ksp_trust_reach_free(reach);
					goto out;
				}
				continue;
			}
			jobs[nj++] = (struct hjob){ .vx = k->vx, .pol = pol, .at = h->at[hz],
						    .want_paths = hz == 0, .want_msg = true, .bound = bound ? reach : NULL };
		}
		r = health_run_jobs(h, jobs, nj);
		ksp_trust_policy_free(pol);
		if (hz == 0)
			reach0 = reach; /* the later horizons compare theirs with it */
		else
			ksp_trust_reach_free(reach);
		if (r < 0)
			goto out;
		for (size_t j = 0; j < nj; j++) {
			struct hkey *k = &h->keys[h->key_of[jobs[j].vx]];
			k->paths[hz] = (int8_t)(jobs[j].found > K ? K : jobs[j].found);
			if (!jobs[j].trusted) {
				k->below |= 1u << hz;
				h->n_below[hz]++;
				k->msg[hz] = jobs[j].msg;
				jobs[j].msg = NULL;
				if (hz > 0 && k->wit) {
					r = find_breaks(h, k, hz);
					if (r < 0)
						goto out;
				}
			}
			if (hz == 0) {
				k->wit = jobs[j].wit;
				jobs[j].wit = NULL;
			}
		}
		for (size_t j = 0; j < nj; j++) {
			free(jobs[j].msg);
			free(jobs[j].wit);
			jobs[j].msg = NULL;
			jobs[j].wit = NULL;
		}
	}
	r = 0;
out:
	ksp_trust_reach_free(reach0);
	jobs_free(jobs, nj);
	return r;
}

/* ---- single points of failure ------------------------------------------------- */

static int cmp_spof(const void *a, const void *b)
{
	const struct hspof *x = a, *y = b;
	if (x->cuts != y->cuts)
		return x->cuts < y->cuts ? 1 : -1;
	if (x->carries != y->carries)
		return x->carries < y->carries ? 1 : -1;
	return x->vx < y->vx ? -1 : x->vx > y->vx;
}

static int cmp_carry(const void *a, const void *b)
{
	const struct hspof *x = a, *y = b;
	if (x->carries != y->carries)
		return x->carries < y->carries ? 1 : -1;
	return x->vx < y->vx ? -1 : x->vx > y->vx;
}

/* (Long: the carriers, then the candidates in batches with their exact cuts, one exit freeing the batches' state.) */
int health_spof(struct ksp_health *h)
{
	const struct ksp_wsnap *g = h->g;
	unsigned *carry = calloc(g->n ? g->n : 1, sizeof(*carry));
	uint8_t *lost[SPOF_BATCH] = { 0 };
	struct ksp_trust_policy *pols[SPOF_BATCH] = { 0 };
	struct ksp_trust_whatif wis[SPOF_BATCH];
	struct ksp_trust_reach *reach[SPOF_BATCH] = { 0 }, *base = NULL;
	struct hjob *jobs = NULL;
	uint32_t *owner = NULL;
	uint64_t work = 0, budget = 20000 + (uint64_t)h->n_keys / 10;
	int r = -ENOMEM;

	if (carry == NULL)
		goto out;
	/* the certification lists the candidates' reachabilities share */
	r = health_reach_for(h, h->pol[0], h->at[0], NULL, &base);
	if (r < 0)
		goto out;
	r = -ENOMEM;
	for (size_t b = 0; b < SPOF_BATCH; b++) {
		lost[b] = calloc(g->n ? g->n : 1, 1);
		pols[b] = ksp_trust_policy_copy(h->pol[0]);
		if (lost[b] == NULL || pols[b] == NULL)
			goto out;
		wis[b] = (struct ksp_trust_whatif){ .lost = lost[b], .verdict_only = true };
		ksp_trust_policy_set_whatif(pols[b], &wis[b]);
	}
	/* carriers: on how many keys' paths (witnesses now) each key lies */
	for (size_t i = 0; i < h->n_keys; i++) {
		const uint32_t *w = h->keys[i].wit;
		size_t o = 1;
		if (w == NULL)
			continue;
		for (uint32_t p = 0; p < w[0]; p++) {
			uint32_t len = w[o++];
			for (uint32_t j = 0; j + 1 < len; j++)
				if (w[o + j] < g->n && !h->is_core[w[o + j]])
					carry[w[o + j]]++;
			o += len;
		}
	}
	h->carrier = malloc((g->n ? g->n : 1) * sizeof(*h->carrier));
	if (h->carrier == NULL)
		goto out;
	for (uint32_t v = 0; v < g->n; v++)
		if (carry[v])
			h->carrier[h->n_carrier++] = (struct hspof){ .vx = v, .carries = carry[v] };
	qsort(h->carrier, h->n_carrier, sizeof(*h->carrier), cmp_carry);
	/* exact cuts by the engine, best first: a key's loss can only cut the
	 * keys whose witness goes through it (others keep their paths), so
	 * its carries bound its cuts; stop when no later key can enter the top */
	h->spof = calloc(h->n_carrier ? h->n_carrier : 1, sizeof(*h->spof));
	if (h->spof == NULL)
		goto out;
	h->spof_exact = true;
	/* SPOF_BATCH candidates at a time, so that the threads share their
	 * queries (a few more candidates than needed may be asked: their
	 * counts are exact too) */
	for (size_t c = 0; c < h->n_carrier;) {
		size_t nb = 0, nj = 0, need = 0;
		unsigned kth = 0;
		if (h->n_spof >= SPOF_TOP) {
			unsigned *best = malloc(h->n_spof * sizeof(*best));
			if (best == NULL)
				goto out;
			for (size_t i = 0; i < h->n_spof; i++)
				best[i] = h->spof[i].cuts;
			/* the SPOF_TOP-th largest */
			for (size_t i = 0; i < SPOF_TOP; i++) {
				size_t m = i;
				for (size_t j2 = i + 1; j2 < h->n_spof; j2++)
					if (best[j2] > best[m])
						m = j2;
				unsigned t = best[i];
				best[i] = best[m];
				best[m] = t;
				kth = best[i];
			}
			free(best);
		}
		while (c + nb < h->n_carrier && nb < SPOF_BATCH) {
			unsigned cr = h->carrier[c + nb].carries;
			if (h->n_spof >= SPOF_TOP && cr <= kth)
				break;
			if (work + need + cr > budget) {
				h->spof_exact = false;
				break;
			}
			need += cr;
			nb++;
		}
		if (nb == 0)
			break;
		void *nn = realloc(jobs, (need ? need : 1) * sizeof(*jobs));
		void *no = realloc(owner, (need ? need : 1) * sizeof(*owner));
		if (nn)
			jobs = nn;
		if (no)
			owner = no;
		if (nn == NULL || no == NULL)
			goto out;
		for (size_t b = 0; b < nb; b++) {
			uint32_t x = h->carrier[c + b].vx;
			memset(lost[b], 0, g->n ? g->n : 1);
			lost[b][x] = 1;
			/* the keys out of reach without x: cut, without exploring;
			 * at K = 1 the others keep a path (only the verdict is read) */
			wis[b].reach = NULL;
			reach[b] = ksp_trust_reach_free(reach[b]);
			r = health_reach_for(h, pols[b], h->at[0], base, &reach[b]);
			if (r < 0)
				goto out;
			wis[b].reach = reach[b];
			for (size_t i = 0; i < h->n_keys && nj < need; i++)
				if (!(h->keys[i].below & 1) && h->keys[i].vx != x && health_in_witness(h->keys[i].wit, x, false)) {
					owner[nj] = (uint32_t)b;
					jobs[nj++] = (struct hjob){ .vx = h->keys[i].vx, .pol = pols[b], .at = h->at[0],
								    .bound = health_bound_ok(h) ? reach[b] : NULL };
				}
		}
		r = health_run_jobs(h, jobs, nj);
		if (r < 0)
			goto out;
		work += nj;
		for (size_t b = 0; b < nb; b++) {
			unsigned cuts = 0;
			for (size_t j = 0; j < nj; j++)
				cuts += owner[j] == b && !jobs[j].trusted;
			h->spof[h->n_spof++] = (struct hspof){ .vx = h->carrier[c + b].vx, .cuts = cuts,
							       .carries = h->carrier[c + b].carries };
		}
		c += nb;
		if (!h->spof_exact)
			break;
	}
	qsort(h->spof, h->n_spof, sizeof(*h->spof), cmp_spof);
	r = 0;
out:
	free(jobs);
	free(owner);
	free(carry);
	for (size_t b = 0; b < SPOF_BATCH; b++) {
		free(lost[b]);
		ksp_trust_policy_free(pols[b]);
		ksp_trust_reach_free(reach[b]);
	}
	ksp_trust_reach_free(base);
	return r;
}

/* The user IDs of v, for a what-if certification on each (per-uid rule);
 * one entry uid_id 0 otherwise. */
int health_added_for(const struct ksp_health *h, uint32_t s, uint32_t t, struct ksp_trust_added **list, size_t *n)
{
	const struct ksp_wsnap *g = h->g;
	int64_t seen[16];
	size_t ns = 0;

	if (h->rule.per_uid)
		for (uint32_t j = g->in_off[t]; j < g->in_off[t + 1] && ns < 16; j++) {
			int64_t u = g->uids[g->edges[g->in_eid[j]].uidx].uid_id;
			bool dup = false;
			for (size_t i = 0; i < ns; i++)
				dup |= seen[i] == u;
			if (!dup)
				seen[ns++] = u;
		}
	if (ns == 0)
		seen[ns++] = 0;
	void *nl = realloc(*list, (*n + ns) * sizeof(**list));
	if (nl == NULL)
		return -ENOMEM;
	*list = nl;
	for (size_t i = 0; i < ns; i++)
		(*list)[(*n)++] = (struct ksp_trust_added){ .u = s, .v = t, .uid_id = seen[i] };
	return 0;
}

/* ---- the party's pairs ------------------------------------------------------------ */

/* Breadth-first from the sources (distance 0) over the certifications that
 * count now, at most lim hops; d[] (UINT8_MAX = farther) must be filled
 * with UINT8_MAX; the vertices reached go to reached[] (*n_reached). */
static void bfs_counting(const struct ksp_health *h, uint8_t *d, uint32_t *queue, const uint32_t *src, size_t n_src,
			 unsigned lim, size_t *n_reached)
{
	const struct ksp_wsnap *g = h->g;
	int64_t at = h->at[0], mc = health_min_created(h, at);
	size_t hd = 0, tl = 0;

	for (size_t i = 0; i < n_src; i++)
		if (d[src[i]] != 0 && health_node_ok(h, src[i], at)) {
			d[src[i]] = 0;
			queue[tl++] = src[i];
		}
	while (hd < tl) {
		uint32_t u = queue[hd++];
		if (d[u] >= lim)
			continue;
		for (uint32_t j = g->out_off[u]; j < g->out_off[u + 1]; j++) {
			const struct ksp_wsnap_edge *e = &g->edges[j];
			if (d[e->v] != UINT8_MAX || !health_node_ok(h, e->v, at) ||
			    !ksp_wsnap_edge_counts(g, e, at, h->rule.md5, h->rule.sha1, mc))
				continue;
			d[e->v] = (uint8_t)(d[u] + 1);
			queue[tl++] = e->v;
		}
	}
	*n_reached = tl;
}

static int cmp_pair_dist(const void *x, const void *y)
{
	const struct hpair_dist *p = x, *q = y;
	if (p->hops != q->hops)
		return p->hops < q->hops ? 1 : -1;
	if (p->keys != q->keys)
		return p->keys < q->keys ? 1 : -1;
	return 0;
}

struct hreach {
	uint32_t v;
	uint32_t d;
};

/* The pairs (h->pairs, in their order) by how much their certifying each
 * other shortens the distances from the core: a key's distance is the
 * fewest certifications (counting now) from a core key, L + 1 when it is
 * farther or out of reach.  A shortest path uses at most one of the two
 * new certifications (using both would visit a or b twice), so the new
 * distance of v is min(d(v), d(a) + 1 + d_b(v), d(b) + 1 + d_a(v)), d_x
 * the distances from x in the graph as it is: one search from the core and
 * one from each participant (within L - 1: only there can a new
 * certification bring a key to L or closer), then a pass per pair over what
 * its two participants reach. */
static int pair_distances(struct ksp_health *h, const uint32_t *part, uint32_t np)
{
	const struct ksp_wsnap *g = h->g;
	unsigned L = h->rule.max_depth < 1 ? 1 : h->rule.max_depth > 200 ? 200 : (unsigned)h->rule.max_depth;
	uint8_t *d = NULL, *best = NULL, *dp = NULL;
	uint32_t *queue = NULL, *idx = NULL;
	struct hreach **reach = NULL;
	size_t *n_reach = NULL, n;
	int r = -ENOMEM;

	d = malloc(g->n ? g->n : 1);
	best = malloc(g->n ? g->n : 1);
	dp = malloc(g->n ? g->n : 1);
	queue = malloc((g->n ? g->n : 1) * sizeof(*queue));
	idx = malloc((g->n ? g->n : 1) * sizeof(*idx));
	reach = calloc(np ? np : 1, sizeof(*reach));
	n_reach = calloc(np ? np : 1, sizeof(*n_reach));
	h->pair_dist = calloc(h->n_pairs ? h->n_pairs : 1, sizeof(*h->pair_dist));
	if (d == NULL || best == NULL || dp == NULL || queue == NULL || idx == NULL || reach == NULL ||
	    n_reach == NULL || h->pair_dist == NULL)
		goto out;
	memset(d, UINT8_MAX, g->n);
	bfs_counting(h, d, queue, h->core, h->n_core, L, &n);
	for (uint32_t v = 0; v < g->n; v++) {
		if (d[v] > L)
			d[v] = (uint8_t)(L + 1);
		idx[v] = UINT32_MAX;
	}
	memset(dp, UINT8_MAX, g->n);
	for (uint32_t p = 0; p < np; p++) {
		idx[part[p]] = p;
		bfs_counting(h, dp, queue, &part[p], 1, L - 1, &n_reach[p]);
		reach[p] = malloc((n_reach[p] ? n_reach[p] : 1) * sizeof(**reach));
		if (reach[p] == NULL)
			goto out;
		for (size_t i = 0; i < n_reach[p]; i++) {
			reach[p][i] = (struct hreach){ .v = queue[i], .d = dp[queue[i]] };
			dp[queue[i]] = UINT8_MAX;
		}
	}
	memcpy(best, d, g->n);
	for (size_t i = 0; i < h->n_pairs; i++) {
		uint32_t ab[2] = { h->pairs[i].a, h->pairs[i].b };
		unsigned hops = 0, keys = 0;
		/* each direction: x certifies y, then what y reaches */
		for (int dir = 0; dir < 2; dir++) {
			uint32_t x = ab[dir], py = idx[ab[1 - dir]];
			if (py == UINT32_MAX || d[x] + 1u > L)
				continue;
			for (size_t k = 0; k < n_reach[py]; k++) {
				unsigned nd = d[x] + 1u + reach[py][k].d;
				if (nd < best[reach[py][k].v])
					best[reach[py][k].v] = (uint8_t)nd;
			}
		}
		for (int dir = 0; dir < 2; dir++) {
			uint32_t py = idx[ab[dir]];
			for (size_t k = 0; py != UINT32_MAX && k < n_reach[py]; k++) {
				uint32_t v = reach[py][k].v;
				if (best[v] < d[v] && !h->is_core[v]) {
					hops += d[v] - best[v];
					keys++;
				}
				best[v] = d[v];
			}
		}
		h->pair_dist[i] = (struct hpair_dist){ .a = ab[0], .b = ab[1], .hops = hops, .keys = keys };
	}
	/* most hops first, then most keys; equal: the order of the pairs */
	for (size_t i = 1; i < h->n_pairs; i++)
		for (size_t j = i; j > 0 && cmp_pair_dist(&h->pair_dist[j], &h->pair_dist[j - 1]) < 0; j--) {
			struct hpair_dist t = h->pair_dist[j];
			h->pair_dist[j] = h->pair_dist[j - 1];
			h->pair_dist[j - 1] = t;
		}
	r = 0;
out:
	for (uint32_t p = 0; reach && p < np; p++)
		free(reach[p]);
	free(reach);
	free(n_reach);
	free(d);
	free(best);
	free(dp);
	free(queue);
	free(idx);
	return r;
}

/* The participants valid now, in the party's order (part, np). */
struct hpart {
	const struct ksp_health *h;
	uint32_t *part, np;
	uint8_t *flag;
};

static int add_part(void *arg, const char *fpr)
{
	struct hpart *p = arg;
	uint32_t v = health_vertex_of_fpr(p->h, fpr);

	if (v != UINT32_MAX && p->part && health_node_ok(p->h, v, p->h->at[0]))
		p->part[p->np++] = v;
	if (v != UINT32_MAX && p->flag)
		p->flag[v] = 1;
	return 0;
}

int health_party_pairs(struct ksp_health *h)
{
	const struct ksp_wsnap *g = h->g;
	uint32_t *part = NULL, np = 0, *dist = NULL, *queue = NULL;
	struct hjob *jobs = NULL;
	struct hpart hp = { .h = h };
	int r = -ENOMEM;
	uint32_t L = (uint32_t)h->rule.max_depth;

	part = malloc((g->n ? g->n : 1) * sizeof(*part));
	dist = malloc((g->n ? g->n : 1) * sizeof(*dist));
	queue = malloc((g->n ? g->n : 1) * sizeof(*queue));
	jobs = calloc(h->n_keys ? h->n_keys : 1, sizeof(*jobs));
	if (part == NULL || dist == NULL || queue == NULL || jobs == NULL)
		goto out;
	hp.part = part;
	r = ksp_store_participant_fprs(h->store, true, add_part, &hp);
	if (r < 0)
		goto out;
	np = hp.np;
	for (uint32_t a = 0; a < np; a++)
		for (uint32_t b = a + 1; b < np; b++) {
			struct ksp_trust_added add[32];
			struct ksp_trust_added *list = NULL;
			size_t nl = 0, nj = 0;
			unsigned fixed = 0;
			r = health_added_for(h, part[a], part[b], &list, &nl);
			if (r == 0)
				r = health_added_for(h, part[b], part[a], &list, &nl);
			if (r < 0) {
				free(list);
				goto out;
			}
			if (nl > 32)
				nl = 32;
			memcpy(add, list, nl * sizeof(*add));
			free(list);
			struct ksp_trust_whatif wi = { .added = add, .n_added = nl };
			struct ksp_trust_policy *pol = ksp_trust_policy_copy(h->pol[0]);
			if (pol == NULL) {
				r = -ENOMEM;
				goto out;
			}
			ksp_trust_policy_set_whatif(pol, &wi);
			/* the keys below K now within L - 1 certifications of a or b
			 * (only those can gain a path through the new ones) */
			for (uint32_t v = 0; v < g->n; v++)
				dist[v] = UINT32_MAX;
			uint32_t hd = 0, tl = 0;
			dist[part[a]] = dist[part[b]] = 0;
			queue[tl++] = part[a];
			queue[tl++] = part[b];
			while (hd < tl) {
				uint32_t u = queue[hd++];
				if (dist[u] + 1 >= L)
					continue;
				for (uint32_t j = g->out_off[u]; j < g->out_off[u + 1]; j++)
					if (dist[g->edges[j].v] == UINT32_MAX) {
						dist[g->edges[j].v] = dist[u] + 1;
						queue[tl++] = g->edges[j].v;
					}
			}
			for (size_t i = 0; i < h->n_keys; i++)
				if ((h->keys[i].below & 1) && dist[h->keys[i].vx] != UINT32_MAX &&
				    health_node_ok(h, h->keys[i].vx, h->at[0]))
					jobs[nj++] = (struct hjob){ .vx = h->keys[i].vx, .pol = pol, .at = h->at[0] };
			r = health_run_jobs(h, jobs, nj);
			ksp_trust_policy_free(pol);
			if (r < 0)
				goto out;
			for (size_t j = 0; j < nj; j++)
				fixed += jobs[j].trusted;
			void *nn = realloc(h->pairs, (h->n_pairs + 1) * sizeof(*h->pairs));
			if (nn == NULL) {
				r = -ENOMEM;
				goto out;
			}
			h->pairs = nn;
			h->pairs[h->n_pairs++] = (struct hrepair){ .a = part[a], .b = part[b], .n = fixed };
		}
	/* most keys first; stable for equal counts (participant order) */
	for (size_t i = 1; i < h->n_pairs; i++)
		for (size_t j = i; j > 0 && h->pairs[j].n > h->pairs[j - 1].n; j--) {
			struct hrepair t = h->pairs[j];
			h->pairs[j] = h->pairs[j - 1];
			h->pairs[j - 1] = t;
		}
	r = pair_distances(h, part, np);
out:
	free(part);
	free(dist);
	free(queue);
	free(jobs);
	return r;
}

/* ---- what the party did ----------------------------------------------------------- */

KSP_EXPORT int ksp_health_party_gain(struct ksp_health *h, int64_t party_time, size_t *ret_reached,
				     size_t *ret_thanks)
{
	const struct ksp_wsnap *g;
	struct hjob *jobs;
	uint8_t *part = NULL;
	size_t nj = 0, reached = 0, thanks = 0;
	int r;

	if (h == NULL)
		return -EINVAL;
	g = h->g;
	jobs = calloc(h->n_keys ? h->n_keys : 1, sizeof(*jobs));
	part = calloc(g->n ? g->n : 1, 1);
	if (jobs == NULL || part == NULL) {
		r = -ENOMEM;
		goto out;
	}
	r = ksp_store_participant_fprs(h->store, false, add_part, &(struct hpart){ .h = h, .flag = part });
	if (r < 0)
		goto out;
	/* the keys trusted now: were they on the eve of the party? */
	for (size_t i = 0; i < h->n_keys; i++)
		if (!(h->keys[i].below & 1))
			jobs[nj++] = (struct hjob){ .vx = h->keys[i].vx, .pol = h->pol[0], .at = party_time - 1 };
	r = health_run_jobs(h, jobs, nj);
	if (r < 0)
		goto out;
	for (size_t j = 0; j < nj; j++) {
		const uint32_t *w = h->keys[h->key_of[jobs[j].vx]].wit;
		bool via = false;
		size_t o = 1;
		if (jobs[j].trusted)
			continue;
		reached++;
		/* its paths now use a certification between participants made
		 * at or after the party */
		for (uint32_t p = 0; w && p < w[0] && !via; p++) {
			uint32_t len = w[o++];
			for (uint32_t q = 0; q + 1 < len && !via; q++) {
				uint32_t a = w[o + q], b = w[o + q + 1];
				if (a >= g->n || b >= g->n || !part[a] || !part[b])
					continue;
				for (uint32_t e = g->out_off[a]; e < g->out_off[a + 1] && !via; e++)
					via = g->edges[e].v == b && g->edges[e].created >= party_time &&
					      ksp_wsnap_edge_counts(g, &g->edges[e], h->at[0], h->rule.md5, h->rule.sha1,
								    health_min_created(h, h->at[0]));
			}
			o += len;
		}
		thanks += via;
	}
	if (ret_reached)
		*ret_reached = reached;
	if (ret_thanks)
		*ret_thanks = thanks;
	r = 0;
out:
	free(jobs);
	free(part);
	return r;
}
