// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * health-repair.c: the repair plan of the trust health report (ksp
 * health): the fewest new certifications that bring the keys falling below
 * K by the repair horizon back to K, and the owners who only need to
 * extend their key's expiry.
 *
 * The falling keys: trusted now, below K at the horizon.  Those whose own
 * key is still valid there (F) can be repaired by certifications; the
 * others only by their owner (an extension).
 *
 * Every gain is the trust engine's answer (ksp_trust_check() with a
 * what-if, whatif.h) for the plan so far plus the candidate: the keys of F
 * that reach K with it that did not without it.  Only the keys a
 * candidate s -> t can change are asked: those within L - 1 certifications
 * after t (over every certification of the snapshot and the plan's), the
 * others cannot gain a path through it.
 *
 * Candidates: s certifies t where t is a key valid at the horizon within
 * L - 1 certifications before a key of F (its new path's last new
 * certification lands there), and s a key with a path of at most
 * L - 1 - (hops from t) certifications from the core at the horizon (every
 * such key on small webs; the core keys and the keys that certified t
 * before on large ones).
 *
 * The plan: lazy greedy (a candidate's stale gain is re-evaluated when it
 * is the best; taken when its fresh gain still is), then every
 * certification that the others make redundant is dropped, and the plan
 * is put in the order in which each brings the most keys back (so every
 * "brings N keys back" is true when read in order).  For small plans an
 * exact search (iterative deepening over sets, branching on the
 * candidates that can help one key still below K, with a packing bound)
 * gives the fewest certifications; beyond its work budget, the sizes it
 * ruled out give the lower bound reported.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/health/health-private.h"

#define EXACT_MAX_PLAN 12   /* exact search for greedy plans up to this size */
#define EXACT_MAX_FALL 40   /* and up to this many falling keys */
#define EXACT_MAX_FALL_K2 8 /* at K > 1 (a query below K costs most) */
#define EXACT_BUDGET 2000   /* engine queries the exact search may ask */
#define FULL_PAIRS 6000     /* every reachable signer while the pairs stay below this */
#define NEAR_TARGETS 16     /* large webs: targets per falling key (half at K > 1) */
#define MEMO_BITS 16

struct rcand {
	uint32_t s, t;
	long val;         /* last evaluated: keys brought back * 1024 + paths gained */
	size_t evaluated; /* the plan's size when evaluated */
	int prio;         /* ties: 2 renews a certification, 1 a core signer */
	unsigned sd;      /* the signer's certifications from the core at the horizon */
	bool in_plan;
};

struct rstate {
	struct ksp_health *h;
	unsigned hz;
	int K, L;
	size_t *fall; /* F: key indexes */
	size_t nf;
	uint32_t *fpos; /* vertex -> position in F, UINT32_MAX */
	struct rcand *c;
	size_t nc;
	uint32_t *plan; /* candidate indexes */
	size_t np;
	uint8_t *fixed; /* per position in F: at K with the plan */
	int *found;     /* per position in F: paths found with the plan */
	/* scratch */
	uint32_t *dist, *queue, *pos;
	size_t npos;
	struct hjob *jobs; /* room for every falling key, as tr and fd */
	uint8_t *tr;
	int *fd;
	struct ksp_trust_added *added;
	size_t cap_added;
	/* exact search */
	uint32_t **rel; /* per position in F: the candidates that can help it */
	size_t *n_rel;
	uint8_t *disjoint; /* nf x nf: no target in common */
	uint64_t *memo;
	uint64_t evals, exact_evals; /* exact_evals: h->queries when the search began */
	bool budget_out;
};

static bool edge_counts(const struct ksp_health *h, const struct ksp_wsnap_edge *e, unsigned hz)
{
	int sha1 = hz == KSP_HEALTH_NO_SHA1 ? KSP_SHA1_NO : h->rule.sha1;
	bool md5 = hz == KSP_HEALTH_NO_SHA1 ? false : h->rule.md5;

	return ksp_wsnap_edge_counts(h->g, e, h->at[hz], md5, sha1, health_min_created(h, h->at[hz]));
}

/* The positions in F of the keys within L - 1 certifications after t (t
 * too; L - 1 - the signer's distance from the core when no plan is added:
 * only the plan could bring the signer closer), over the certifications
 * that count at the horizon between keys valid there, and those of @set:
 * st->pos. */
static void downstream(struct rstate *st, uint32_t t, const uint32_t *set, size_t n_set, uint32_t extra)
{
	const struct ksp_health *h = st->h;
	const struct ksp_wsnap *g = h->g;
	uint32_t hd = 0, tl = 0, lim = (uint32_t)st->L;

	if (n_set == 0 && extra != UINT32_MAX && st->c[extra].sd < lim)
		lim -= st->c[extra].sd;

	st->npos = 0;
	st->dist[t] = 0;
	st->queue[tl++] = t;
	while (hd < tl) {
		uint32_t u = st->queue[hd++];
		if (st->fpos[u] != UINT32_MAX)
			st->pos[st->npos++] = st->fpos[u];
		if (st->dist[u] + 1 >= lim)
			continue;
		for (uint32_t j = g->out_off[u]; j < g->out_off[u + 1]; j++) {
			uint32_t v = g->edges[j].v;
			if (st->dist[v] == UINT32_MAX && health_node_ok(h, v, h->at[st->hz]) &&
			    edge_counts(h, &g->edges[j], st->hz)) {
				st->dist[v] = st->dist[u] + 1;
				st->queue[tl++] = v;
			}
		}
		for (size_t i = 0; i <= n_set; i++) {
			uint32_t ci = i < n_set ? set[i] : extra;
			if (ci == UINT32_MAX || st->c[ci].s != u || st->dist[st->c[ci].t] != UINT32_MAX)
				continue;
			st->dist[st->c[ci].t] = st->dist[u] + 1;
			st->queue[tl++] = st->c[ci].t;
		}
	}
	for (uint32_t i = 0; i < tl; i++)
		st->dist[st->queue[i]] = UINT32_MAX;
}

/* Ask the engine about the keys of F at positions pos[0..n) with the
 * certifications of @set (and @extra, UINT32_MAX: none) added, and key
 * @ext_vx (UINT32_MAX: none) never expiring: trusted[i], found[i]. */
static int ask(struct rstate *st, const uint32_t *set, size_t n_set, uint32_t extra, uint32_t ext_vx,
	       const uint32_t *pos, size_t n, uint8_t *trusted, int *found)
{
	struct ksp_health *h = st->h;
	struct ksp_trust_policy *pol;
	uint8_t *extended = NULL;
	size_t na = 0;
	int r = 0;

	if (n == 0)
		return 0;
	for (size_t i = 0; i <= n_set && r == 0; i++) {
		uint32_t ci = i < n_set ? set[i] : extra;
		if (ci != UINT32_MAX)
			r = health_added_for(h, st->c[ci].s, st->c[ci].t, &st->added, &na);
	}
	if (r < 0)
		return r;
	if (ext_vx != UINT32_MAX) {
		extended = calloc(h->g->n, 1);
		if (extended == NULL)
			return -ENOMEM;
		extended[ext_vx] = 1;
	}
	struct ksp_trust_whatif wi = { .added = st->added, .n_added = na, .extended = extended };
	pol = ksp_trust_policy_copy(h->pol[st->hz]);
	if (pol == NULL) {
		free(extended);
		return -ENOMEM;
	}
	ksp_trust_policy_set_whatif(pol, &wi);
	for (size_t i = 0; i < n; i++)
		st->jobs[i] = (struct hjob){ .vx = h->keys[st->fall[pos[i]]].vx, .pol = pol, .at = h->at[st->hz] };
	r = health_run_jobs(h, st->jobs, n);
	for (size_t i = 0; r == 0 && i < n; i++) {
		trusted[i] = st->jobs[i].trusted;
		if (found)
			found[i] = st->jobs[i].found;
	}
	ksp_trust_policy_free(pol);
	free(extended);
	st->evals++;
	return r;
}

/* The keys of F still below K after t: st->pos. */
static void open_after(struct rstate *st, uint32_t t, const uint32_t *set, size_t n_set, uint32_t extra,
		       const uint8_t *fixed)
{
	size_t o = 0;

	downstream(st, t, set, n_set, extra);
	for (size_t i = 0; i < st->npos; i++)
		if (!fixed[st->pos[i]])
			st->pos[o++] = st->pos[i];
	st->npos = o;
}

/* Candidate ci on top of the plan: keys brought back * 1024 + paths
 * gained; with @take, the plan takes it (fixed, found updated). */
static int gain(struct rstate *st, uint32_t ci, bool take, long *val, unsigned *n_fixed, unsigned *n_more)
{
	uint8_t *tr = st->tr;
	int *fd = st->fd;
	long fixed = 0, more = 0;
	size_t n;
	int r;

	open_after(st, st->c[ci].t, st->plan, st->np, ci, st->fixed);
	n = st->npos;
	r = ask(st, st->plan, st->np, ci, UINT32_MAX, st->pos, n, tr, fd);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		uint32_t p = st->pos[i];
		if (tr[i])
			fixed++;
		else if (fd[i] > st->found[p])
			more++;
		if (take) {
			st->fixed[p] |= tr[i];
			if (fd[i] > st->found[p])
				st->found[p] = fd[i];
		}
	}
	*val = fixed * 1024 + more;
	if (n_fixed)
		*n_fixed = (unsigned)fixed;
	if (n_more)
		*n_more = (unsigned)more;
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct rcand *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->s < y->s ? -1 : x->s > y->s;
}

static int push_cand(struct rcand **cs, size_t *n, size_t *cap, uint32_t s, uint32_t t)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 256;
		void *nn = realloc(*cs, nc * sizeof(**cs));
		if (nn == NULL)
			return -ENOMEM;
		*cs = nn;
		*cap = nc;
	}
	(*cs)[(*n)++] = (struct rcand){ .s = s, .t = t, .evaluated = SIZE_MAX };
	return 0;
}

/* Backward from F key vertex k over the certifications that count at the
 * horizon (keys valid there), at most L - 1 hops: st->queue[0..*n) with
 * their hops in st->dist (the caller resets them). */
static void upstream(struct rstate *st, uint32_t k, uint32_t *n)
{
	const struct ksp_health *h = st->h;
	const struct ksp_wsnap *g = h->g;
	uint32_t hd = 0, tl = 0;

	st->dist[k] = 0;
	st->queue[tl++] = k;
	while (hd < tl) {
		uint32_t v = st->queue[hd++];
		if (st->dist[v] + 1 >= (uint32_t)st->L)
			continue;
		for (uint32_t j = g->in_off[v]; j < g->in_off[v + 1]; j++) {
			const struct ksp_wsnap_edge *e = &g->edges[g->in_eid[j]];
			if (st->dist[e->u] != UINT32_MAX || h->is_core[e->u] || !health_node_ok(h, e->u, h->at[st->hz]) ||
			    !edge_counts(h, e, st->hz))
				continue;
			st->dist[e->u] = st->dist[v] + 1;
			st->queue[tl++] = e->u;
		}
	}
	*n = tl;
}

static bool counts_now(const struct ksp_health *h, uint32_t s, uint32_t t, unsigned hz)
{
	const struct ksp_wsnap *g = h->g;

	for (uint32_t j = g->out_off[s]; j < g->out_off[s + 1]; j++)
		if (g->edges[j].v == t && edge_counts(h, &g->edges[j], hz))
			return true;
	return false;
}

/* The candidates (see the top), sorted by target then signer. */
static int candidates(struct rstate *st)
{
	struct ksp_health *h = st->h;
	const struct ksp_wsnap *g = h->g;
	struct ksp_trust_reach *reach = NULL;
	struct ksp_trust_policy *pol = ksp_trust_policy_copy(h->pol[st->hz]);
	uint32_t *sig = NULL, ns = 0, lim[64];
	size_t cap = 0, pairs = 0;
	bool full;
	int r = -ENOMEM;

	if (pol == NULL)
		goto out;
	r = health_reach_for(h, pol, h->at[st->hz], NULL, &reach);
	if (r < 0)
		goto out;
	r = -ENOMEM;
	sig = malloc(g->n * sizeof(*sig));
	if (sig == NULL)
		goto out;
	/* the signers by their distance from the core at the horizon */
	memset(lim, 0, sizeof(lim));
	for (int d = 0; d < st->L && d < 63; d++) {
		for (uint32_t v = 0; v < g->n; v++) {
			bool near = reach ? reach->dist[v] == d : (d == 0 && h->is_core[v]);
			if (near && health_node_ok(h, v, h->at[st->hz]))
				sig[ns++] = v;
		}
		lim[d + 1] = ns;
	}
	for (int d = st->L; d < 64; d++)
		lim[d] = ns;
	/* full: every such signer for every target */
	for (size_t i = 0; i < st->nf; i++) {
		uint32_t nq;
		upstream(st, h->keys[st->fall[i]].vx, &nq);
		for (uint32_t q = 0; q < nq; q++) {
			uint32_t t = st->queue[q];
			pairs += lim[st->L - st->dist[t]];
			st->dist[t] = UINT32_MAX;
		}
	}
	full = pairs <= FULL_PAIRS;
	for (size_t i = 0; i < st->nf; i++) {
		uint32_t nq;
		upstream(st, h->keys[st->fall[i]].vx, &nq);
		for (uint32_t q = 0; q < nq; q++) {
			uint32_t t = st->queue[q], rd = st->dist[t], n_core = 0;
			if (!full && q >= (st->K == 1 ? NEAR_TARGETS : NEAR_TARGETS / 2))
				break;
			for (uint32_t x = 0; x < lim[st->L - rd]; x++) {
				uint32_t s = sig[x];
				if (s == t || (!h->rule.per_uid && counts_now(h, s, t, st->hz)))
					continue;
				if (!full) {
					/* a few core keys, and the keys that certified t before */
					bool renews = false;
					for (uint32_t j = g->out_off[s]; j < g->out_off[s + 1] && !renews; j++)
						renews = g->edges[j].v == t;
					if (!renews && !(h->is_core[s] && n_core < (uint32_t)st->K + 2))
						continue;
					n_core += h->is_core[s] && !renews;
				}
				if (push_cand(&st->c, &st->nc, &cap, s, t) < 0)
					goto out;
				st->c[st->nc - 1].sd = reach ? reach->dist[s] : 0;
			}
		}
		for (uint32_t q = 0; q < nq; q++)
			st->dist[st->queue[q]] = UINT32_MAX;
	}
	/* one of each pair */
	if (st->nc)
		qsort(st->c, st->nc, sizeof(*st->c), cmp_pair);
	size_t o = 0;
	for (size_t i = 0; i < st->nc; i++)
		if (o == 0 || st->c[o - 1].s != st->c[i].s || st->c[o - 1].t != st->c[i].t)
			st->c[o++] = st->c[i];
	st->nc = o;
	/* ties go to renewals (the signer certified the key before), then to
	 * core keys (the shortest paths) */
	for (size_t c = 0; c < st->nc; c++) {
		struct rcand *x = &st->c[c];
		x->prio = h->is_core[x->s] ? 1 : 0;
		for (uint32_t j = g->out_off[x->s]; j < g->out_off[x->s + 1]; j++)
			if (g->edges[j].v == x->t)
				x->prio = 2;
	}
	r = 0;
out:
	free(sig);
	ksp_trust_reach_free(reach);
	ksp_trust_policy_free(pol);
	return r;
}

/* Lazy greedy: a candidate's gain only falls as the plan grows (as a rule;
 * a stale one is re-evaluated anyway before it is taken). */
static int greedy(struct rstate *st)
{
	int r;

	/* a first bound without asking: every falling key after the target
	 * brought back (lazy greedy asks the engine for the best ones) */
	for (size_t c = 0; c < st->nc; c++) {
		open_after(st, st->c[c].t, NULL, 0, UINT32_MAX, st->fixed);
		st->c[c].val = (long)st->npos * 1024 + (long)st->npos;
		st->c[c].evaluated = SIZE_MAX;
	}
	for (;;) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < st->nc; i++) {
			const struct rcand *x = &st->c[i];
			if (x->in_plan || x->val <= 0)
				continue;
			if (best == SIZE_MAX || x->val > st->c[best].val ||
			    (x->val == st->c[best].val && x->prio > st->c[best].prio))
				best = i;
		}
		if (best == SIZE_MAX)
			return 0;
		struct rcand *x = &st->c[best];
		if (x->evaluated != st->np) {
			r = gain(st, (uint32_t)best, false, &x->val, NULL, NULL);
			if (r < 0)
				return r;
			x->evaluated = st->np;
			continue;
		}
		long v;
		r = gain(st, (uint32_t)best, true, &v, NULL, NULL);
		if (r < 0)
			return r;
		x->in_plan = true;
		st->plan[st->np++] = (uint32_t)best;
	}
}

/* Does @set (n) keep every key of F at positions pos[] at K? */
static int keeps(struct rstate *st, const uint32_t *set, size_t n, const uint32_t *pos, size_t npos, bool *yes)
{
	int r = ask(st, set, n, UINT32_MAX, UINT32_MAX, pos, npos, st->tr, NULL);

	*yes = true;
	for (size_t i = 0; r == 0 && i < npos; i++)
		*yes &= st->tr[i] != 0;
	return r;
}

/* Drop the certifications the others make redundant, last first. */
static int prune(struct rstate *st)
{
	uint32_t *rest = malloc((st->np ? st->np : 1) * sizeof(*rest));
	int r = 0;

	if (rest == NULL)
		return -ENOMEM;
	for (size_t i = st->np; i-- > 0 && r == 0;) {
		uint32_t ci = st->plan[i];
		size_t n = 0, o = 0;
		bool yes;
		for (size_t j = 0; j < st->np; j++)
			if (j != i)
				rest[n++] = st->plan[j];
		downstream(st, st->c[ci].t, st->plan, st->np, UINT32_MAX);
		for (size_t j = 0; j < st->npos; j++)
			if (st->fixed[st->pos[j]])
				st->pos[o++] = st->pos[j];
		r = keeps(st, rest, n, st->pos, o, &yes);
		if (r == 0 && yes) {
			st->c[ci].in_plan = false;
			memmove(&st->plan[i], &st->plan[i + 1], (st->np - i - 1) * sizeof(*st->plan));
			st->np--;
		}
	}
	free(rest);
	return r;
}

/* ---- exact search ---- */

static bool memo_seen(struct rstate *st, const uint32_t *set, size_t n)
{
	uint32_t s[EXACT_MAX_PLAN + 1];
	uint64_t x = 1469598103934665603ull;
	size_t mask = (1u << MEMO_BITS) - 1, i;

	memcpy(s, set, n * sizeof(*s));
	for (size_t a = 1; a < n; a++)
		for (size_t b = a; b > 0 && s[b] < s[b - 1]; b--) {
			uint32_t t = s[b];
			s[b] = s[b - 1];
			s[b - 1] = t;
		}
	for (size_t a = 0; a < n; a++)
		x = (x ^ s[a]) * 1099511628211ull;
	x |= 1; /* 0 = empty slot */
	for (i = x & mask;; i = (i + 1) & mask) {
		if (st->memo[i] == x)
			return true;
		if (st->memo[i] == 0)
			break;
	}
	st->memo[i] = x;
	return false;
}

/* A lower bound on the certifications still needed: keys below K whose
 * possible targets are pairwise disjoint each need their own. */
static size_t packing(const struct rstate *st, const uint8_t *fixed, const uint8_t *goal)
{
	uint32_t picked[EXACT_MAX_FALL];
	size_t np = 0;

	for (size_t i = 0; i < st->nf; i++) {
		bool ok = goal[i] && !fixed[i];
		for (size_t j = 0; j < np && ok; j++)
			ok = st->disjoint[i * st->nf + picked[j]];
		if (ok)
			picked[np++] = (uint32_t)i;
	}
	return np;
}

/* Is there a plan of @m certifications extending set[0..n) (fixed) that
 * brings every goal key to K?  Found: in set, *found true. */
static int dfs(struct rstate *st, uint32_t *set, size_t n, size_t m, const uint8_t *fixed, const uint8_t *goal,
	       bool *found)
{
	size_t k = SIZE_MAX, best_rel = SIZE_MAX;
	int r = 0;

	for (size_t i = 0; i < st->nf; i++)
		if (goal[i] && !fixed[i] && st->n_rel[i] < best_rel) {
			k = i;
			best_rel = st->n_rel[i];
		}
	if (k == SIZE_MAX) {
		*found = true;
		return 0;
	}
	if (n + packing(st, fixed, goal) > m)
		return 0;
	uint8_t *fx = malloc(st->nf);
	if (fx == NULL)
		return -ENOMEM;
	for (size_t j = 0; j < st->n_rel[k] && !*found && r == 0; j++) {
		uint32_t ci = st->rel[k][j];
		bool in = false;
		for (size_t a = 0; a < n; a++)
			in |= set[a] == ci;
		if (in)
			continue;
		set[n] = ci;
		if (memo_seen(st, set, n + 1))
			continue;
		if (st->h->queries - st->exact_evals > EXACT_BUDGET) {
			st->budget_out = true;
			break;
		}
		uint8_t tr[EXACT_MAX_FALL];
		memcpy(fx, fixed, st->nf);
		open_after(st, st->c[ci].t, set, n, ci, fx);
		r = ask(st, set, n, ci, UINT32_MAX, st->pos, st->npos, tr, NULL);
		for (size_t i = 0; r == 0 && i < st->npos; i++)
			fx[st->pos[i]] |= tr[i];
		if (r == 0 && n + 1 < m + 1)
			r = dfs(st, set, n + 1, m, fx, goal, found);
	}
	free(fx);
	return r;
}

static int exact(struct rstate *st)
{
	struct ksp_health *h = st->h;
	uint8_t goal[EXACT_MAX_FALL], none[EXACT_MAX_FALL] = { 0 };
	uint32_t set[EXACT_MAX_PLAN + 1];
	uint32_t **tg = calloc(st->nf, sizeof(*tg));
	uint32_t *ntg = calloc(st->nf, sizeof(*ntg));
	int r = -ENOMEM;

	st->rel = calloc(st->nf, sizeof(*st->rel));
	st->n_rel = calloc(st->nf, sizeof(*st->n_rel));
	st->disjoint = calloc(st->nf * st->nf, 1);
	st->memo = calloc((size_t)1 << MEMO_BITS, sizeof(*st->memo));
	if (tg == NULL || ntg == NULL || st->rel == NULL || st->n_rel == NULL || st->disjoint == NULL ||
	    st->memo == NULL)
		goto out;
	for (size_t i = 0; i < st->nf; i++) {
		uint32_t nq;
		goal[i] = st->fixed[i];
		upstream(st, h->keys[st->fall[i]].vx, &nq);
		tg[i] = malloc((nq ? nq : 1) * sizeof(**tg));
		st->rel[i] = malloc((st->nc ? st->nc : 1) * sizeof(**st->rel));
		if (tg[i] == NULL || st->rel[i] == NULL) {
			for (uint32_t q = 0; q < nq; q++)
				st->dist[st->queue[q]] = UINT32_MAX;
			goto out;
		}
		memcpy(tg[i], st->queue, nq * sizeof(**tg));
		ntg[i] = nq;
		/* the candidates on those targets, the best first */
		for (size_t c = 0; c < st->nc; c++)
			if (st->dist[st->c[c].t] != UINT32_MAX)
				st->rel[i][st->n_rel[i]++] = (uint32_t)c;
		for (uint32_t q = 0; q < nq; q++)
			st->dist[st->queue[q]] = UINT32_MAX;
		for (size_t a = 1; a < st->n_rel[i]; a++)
			for (size_t b = a; b > 0 && st->c[st->rel[i][b]].val > st->c[st->rel[i][b - 1]].val; b--) {
				uint32_t t = st->rel[i][b];
				st->rel[i][b] = st->rel[i][b - 1];
				st->rel[i][b - 1] = t;
			}
	}
	for (size_t i = 0; i < st->nf; i++)
		for (size_t j = 0; j < st->nf; j++) {
			bool dis = true;
			for (uint32_t a = 0; a < ntg[i] && dis; a++)
				for (uint32_t b = 0; b < ntg[j] && dis; b++)
					dis = tg[i][a] != tg[j][b];
			st->disjoint[i * st->nf + j] = dis;
		}
	st->exact_evals = h->queries; /* the queries before the search */
	h->repair_lower = packing(st, none, goal);
	if (h->repair_lower < 1)
		h->repair_lower = 1;
	r = 0;
	for (size_t m = h->repair_lower; m < st->np && r == 0; m++) {
		bool found = false;
		memset(st->memo, 0, ((size_t)1 << MEMO_BITS) * sizeof(*st->memo));
		r = dfs(st, set, 0, m, none, goal, &found);
		if (r < 0)
			break;
		if (found) {
			for (size_t i = 0; i < st->np; i++)
				st->c[st->plan[i]].in_plan = false;
			memcpy(st->plan, set, m * sizeof(*set));
			st->np = m;
			for (size_t i = 0; i < m; i++)
				st->c[set[i]].in_plan = true;
			break;
		}
		if (st->budget_out)
			break;
		h->repair_lower = m + 1;
	}
	if (r == 0 && !st->budget_out) {
		h->repair_exact = true;
		h->repair_lower = st->np;
	}
out:
	for (size_t i = 0; i < st->nf; i++)
		free(tg ? tg[i] : NULL);
	free(tg);
	free(ntg);
	return r;
}

/* A lower bound without search: the packing bound (each of those keys
 * needs a certification of its own). */
static void bound_only(struct rstate *st)
{
	struct ksp_health *h = st->h;
	uint8_t *mark = calloc(h->g->n, 1);
	size_t lb = 0;

	if (mark) {
		/* greedy: a key is kept when none of its possible targets is
		 * one of a kept key's */
		for (size_t i = 0; i < st->nf; i++) {
			uint32_t nq;
			bool ok = st->fixed[i];
			upstream(st, h->keys[st->fall[i]].vx, &nq);
			for (uint32_t q = 0; q < nq && ok; q++)
				ok = !mark[st->queue[q]];
			for (uint32_t q = 0; q < nq; q++) {
				if (ok)
					mark[st->queue[q]] = 1;
				st->dist[st->queue[q]] = UINT32_MAX;
			}
			lb += ok;
		}
	}
	h->repair_lower = lb ? lb : st->np ? 1 : 0;
	free(mark);
}

/* The plan in the order in which each brings the most keys back, with
 * what each adds read in that order. */
static int order(struct rstate *st)
{
	struct ksp_health *h = st->h;
	uint32_t *todo = malloc((st->np ? st->np : 1) * sizeof(*todo));
	size_t nt = st->np;
	int r = 0;

	if (todo == NULL)
		return -ENOMEM;
	memcpy(todo, st->plan, nt * sizeof(*todo));
	memset(st->fixed, 0, st->nf);
	for (size_t i = 0; i < st->nf; i++)
		st->found[i] = h->keys[st->fall[i]].paths[st->hz];
	st->np = 0;
	h->repair = calloc(nt ? nt : 1, sizeof(*h->repair));
	if (h->repair == NULL) {
		free(todo);
		return -ENOMEM;
	}
	while (nt && r == 0) {
		size_t best = 0;
		long bv = -1;
		/* the plans are small; a large one keeps the greedy order */
		for (size_t i = 0; i < nt && r == 0 && (i == 0 || nt <= 64); i++) {
			long v;
			r = gain(st, todo[i], false, &v, NULL, NULL);
			if (r == 0 && (v > bv || (v == bv && st->c[todo[i]].prio > st->c[todo[best]].prio))) {
				bv = v;
				best = i;
			}
		}
		if (r < 0)
			break;
		uint32_t ci = todo[best];
		unsigned nfx, nmore;
		long v;
		r = gain(st, ci, true, &v, &nfx, &nmore);
		if (r < 0)
			break;
		st->plan[st->np++] = ci;
		memmove(&todo[best], &todo[best + 1], (nt - best - 1) * sizeof(*todo));
		nt--;
		const struct ksp_wsnap *g = h->g;
		bool renew = false;
		for (uint32_t j = g->out_off[st->c[ci].s]; j < g->out_off[st->c[ci].s + 1]; j++) {
			const struct ksp_wsnap_edge *e = &g->edges[j];
			renew |= e->v == st->c[ci].t && e->revoked > h->at[0] && e->expires > h->at[0];
		}
		h->repair[h->n_repair++] = (struct hrepair){ .a = st->c[ci].s, .b = st->c[ci].t, .n = nfx,
							     .more = nmore, .renew = renew,
							     .when = g->nodes[st->c[ci].t].expires };
	}
	free(todo);
	return r;
}

/* The owners who only need to extend their expiry: each extension alone,
 * the falling keys it keeps at K. */
static int extensions(struct rstate *st, size_t *falling, size_t n_falling)
{
	struct ksp_health *h = st->h;
	const struct ksp_wsnap *g = h->g;
	uint8_t *seen = calloc(g->n, 1);
	uint32_t *pos = NULL, *fp = NULL;
	size_t *fall_save = st->fall, nf_save = st->nf;
	uint8_t *tr = st->tr;
	int r = -ENOMEM;

	/* asked over every falling key, F or not */
	pos = malloc((n_falling ? n_falling : 1) * sizeof(*pos));
	fp = malloc(g->n * sizeof(*fp));
	if (seen == NULL || pos == NULL || fp == NULL)
		goto out;
	memcpy(fp, st->fpos, g->n * sizeof(*fp));
	for (uint32_t v = 0; v < g->n; v++)
		st->fpos[v] = UINT32_MAX;
	for (size_t i = 0; i < n_falling; i++)
		st->fpos[h->keys[falling[i]].vx] = (uint32_t)i;
	st->fall = falling;
	st->nf = n_falling;
	r = 0;
	for (size_t i = 0; i < n_falling && r == 0; i++) {
		const struct hkey *k = &h->keys[falling[i]];
		for (uint32_t b = 0; b < k->n_br[st->hz] && r == 0; b++) {
			uint32_t x = k->br[st->hz][b].a;
			unsigned n = 0;
			if (k->br[st->hz][b].kind != KSP_HEALTH_KEY_EXPIRES || seen[x])
				continue;
			seen[x] = 1;
			downstream(st, x, NULL, 0, UINT32_MAX);
			size_t m = st->npos;
			memcpy(pos, st->pos, m * sizeof(*pos));
			r = ask(st, NULL, 0, UINT32_MAX, x, pos, m, tr, NULL);
			for (size_t j = 0; r == 0 && j < m; j++)
				n += tr[j];
			if (r < 0)
				break;
			void *nn = realloc(h->extend, (h->n_extend + 1) * sizeof(*h->extend));
			if (nn == NULL) {
				r = -ENOMEM;
				break;
			}
			h->extend = nn;
			h->extend[h->n_extend++] = (struct hrepair){ .a = x, .b = x, .n = n, .when = g->nodes[x].expires };
		}
	}
	memcpy(st->fpos, fp, g->n * sizeof(*fp));
	st->fall = fall_save;
	st->nf = nf_save;
	/* most repairs first */
	for (size_t i = 1; i < h->n_extend; i++)
		for (size_t j = i; j > 0 && h->extend[j].n > h->extend[j - 1].n; j--) {
			struct hrepair t = h->extend[j];
			h->extend[j] = h->extend[j - 1];
			h->extend[j - 1] = t;
		}
out:
	free(seen);
	free(pos);
	free(fp);
	return r;
}

int health_repair(struct ksp_health *h)
{
	const struct ksp_wsnap *g = h->g;
	struct rstate st = { .h = h, .hz = h->repair_horizon, .K = h->rule.min_paths, .L = h->rule.max_depth };
	size_t *falling = malloc((h->n_keys ? h->n_keys : 1) * sizeof(*falling)), n_falling = 0;
	int r = -ENOMEM;

	st.fall = malloc((h->n_keys ? h->n_keys : 1) * sizeof(*st.fall));
	st.fpos = malloc((g->n ? g->n : 1) * sizeof(*st.fpos));
	st.dist = malloc((g->n ? g->n : 1) * sizeof(*st.dist));
	st.queue = malloc((g->n ? g->n : 1) * sizeof(*st.queue));
	st.pos = malloc((g->n ? g->n : 1) * sizeof(*st.pos));
	st.jobs = calloc(h->n_keys ? h->n_keys : 1, sizeof(*st.jobs));
	st.tr = malloc(h->n_keys ? h->n_keys : 1);
	st.fd = malloc((h->n_keys ? h->n_keys : 1) * sizeof(*st.fd));
	if (falling == NULL || st.fall == NULL || st.fpos == NULL || st.dist == NULL || st.queue == NULL ||
	    st.pos == NULL || st.jobs == NULL || st.tr == NULL || st.fd == NULL)
		goto out;
	if (st.L < 1)
		st.L = 1;
	/* nothing to repair: the empty plan is the fewest */
	h->repair_exact = true;
	h->repair_lower = 0;
	for (uint32_t v = 0; v < g->n; v++)
		st.fpos[v] = st.dist[v] = UINT32_MAX;
	for (size_t i = 0; i < h->n_keys; i++) {
		const struct hkey *k = &h->keys[i];
		if ((k->below & 1) || !(k->below & (1u << st.hz)))
			continue;
		falling[n_falling++] = i;
		if (health_node_ok(h, k->vx, h->at[st.hz])) {
			st.fpos[k->vx] = (uint32_t)st.nf;
			st.fall[st.nf++] = i;
		}
	}
	r = extensions(&st, falling, n_falling);
	if (r < 0 || st.nf == 0)
		goto out;
	r = -ENOMEM;
	st.fixed = calloc(st.nf, 1);
	st.found = calloc(st.nf, sizeof(*st.found));
	if (st.fixed == NULL || st.found == NULL)
		goto out;
	for (size_t i = 0; i < st.nf; i++)
		st.found[i] = h->keys[st.fall[i]].paths[st.hz];
	r = candidates(&st);
	if (r < 0)
		goto out;
	st.plan = malloc((st.nc ? st.nc : 1) * sizeof(*st.plan));
	if (st.plan == NULL) {
		r = -ENOMEM;
		goto out;
	}
	r = greedy(&st);
	if (r == 0)
		r = prune(&st);
	if (r < 0)
		goto out;
	h->repair_exact = false;
	if (st.np <= 1) {
		h->repair_exact = true;
		h->repair_lower = st.np;
	} else if (st.np <= EXACT_MAX_PLAN && st.nf <= (st.K == 1 ? EXACT_MAX_FALL : EXACT_MAX_FALL_K2)) {
		r = exact(&st);
	} else {
		bound_only(&st);
	}
	if (r == 0 && h->repair_lower >= st.np)
		h->repair_exact = true; /* the bound proves it */
	if (r == 0)
		r = order(&st);
	for (size_t i = 0; r == 0 && i < st.nf; i++)
		h->n_unrepaired += !st.fixed[i];
out:
	if (st.rel)
		for (size_t i = 0; i < st.nf; i++)
			free(st.rel[i]);
	free(st.rel);
	free(st.n_rel);
	free(st.disjoint);
	free(st.memo);
	free(falling);
	free(st.fall);
	free(st.fpos);
	free(st.dist);
	free(st.queue);
	free(st.pos);
	free(st.jobs);
	free(st.tr);
	free(st.fd);
	free(st.added);
	free(st.c);
	free(st.plan);
	free(st.fixed);
	free(st.found);
	return r;
}
