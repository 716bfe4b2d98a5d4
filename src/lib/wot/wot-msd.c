// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wot-msd: mean shortest distances over a strongly connected set of a
 * wot-graph (ksp_wgraph_msd(), wot-graph.h): bit-parallel breadth-first
 * searches, 512 sources a batch, each level pushed or pulled.
 *
 * One batch is up to 512 sources; every vertex has a 64-byte row of bits per
 * set (seen, frontier, next), bit s of v's row meaning "source s reached v".
 * A BFS level moves the frontier one edge, either by pushing each frontier
 * row along its out-edges or, when the frontier is wide, by pulling: each
 * vertex not yet reached by every source ORs the frontier rows of its
 * in-neighbours, and stops as soon as the row it builds completes it.
 *
 * The pull's cost is the load of each in-neighbour's frontier row, at
 * random.  So the set is relabelled with the vertices that sign the most
 * first (their rows, read most often, share cache lines and stay cached),
 * each in-list is sorted (hubs first, which also completes a row soonest),
 * and a byte per vertex says whether its frontier row is empty, so that
 * an in-neighbour outside the frontier costs no row load.  A key whose
 * only out-edge in S goes to a key with several is no source of its own
 * (struct msd_graph): about a tenth of the batches at 10^6 synthetic keys.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/wot/wot-graph.h"
#include "shared/util.h"

/*
 * The search counts the bits of each new row.  Where the CPU has POPCNT
 * (every x86-64 since 2008), a copy of the search built for it does that in
 * one instruction a word; x86-64's baseline has none, and a portable count
 * took 12% of the time at 10^6 keys (205.8 s instead of 227-238).  The
 * copy is chosen at run time (msd_pick()).  MSD_KERNEL: the functions the
 * search is made of, inlined into each copy.
 */
#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 8)
#define MSD_POPCNT_COPY 1
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h> /* glibc >= 2.33 */
#define HAVE_X86_PLATFORM 1
#endif
#endif
#endif
#define MSD_KERNEL static inline __attribute__((always_inline))
/* level_account() asks for the rows of the vertex this many places ahead
 * in its list: the list is known, its rows are not in the cache any more
 * (the pull that made them read 150 MB since), and each is a miss
 * (10^6: 200.5 -> 182-193 s) */
#define MSD_ACCOUNT_AHEAD 8u

#define MSD_WORDS 8u
#define MSD_BATCH (64u * MSD_WORDS)

/* A row: four 128-bit lanes, which SSE2 (the x86-64 baseline) and NEON
 * hold in registers. */
typedef uint64_t msd_v2 __attribute__((vector_size(16)));
typedef struct {
	msd_v2 q[4];
} __attribute__((aligned(64))) msd_row;

/* The subgraph induced by S in local ids 0..count-1 (see the top for the
 * order); read-only and shared by the threads. */
struct msd_graph {
	uint32_t count;
	size_t m;
	size_t *off, *in_off; /* count + 1 */
	uint32_t *adj, *in_adj; /* m */
	unsigned flags;
	/* Sources: a key k whose only out-edge in S goes to p, itself a
	 * source with more than one, is no source of its own: dist(k, t) is
	 * 1 + dist(p, t) for every t != k, so p's bit counts for k too
	 * (weight[p] such keys; hub[k] = p).  src: the others, nsrc. */
	uint32_t *src, nsrc;
	uint32_t *weight, *hub; /* count; hub: KSP_WGRAPH_NONE for sources */
	uint32_t *src_pos;      /* count: index of a source in src */
	uint32_t nbatches;
	uint32_t next_batch; /* atomic: the next batch to take */
};

/* The weights of a batch's sources, bit-sliced: bit s of wbit[b] is bit b
 * of the weight of source s; nw slices (0: no weight in the batch). */
#define MSD_WBITS 32u

/* One thread's buffers and results. */
struct msd_job {
	struct msd_graph *lg;
	uint64_t *sums; /* count, local ids */
	uint64_t hist[KSP_WGRAPH_MAX_DIST + 1];
	int r;
	/* the batch being searched */
	msd_row *seen, *fr, *nxt, full;
	uint32_t *list, *nlist, len, nlen, ndone;
	uint8_t *done, *mark, *act; /* act[v]: fr[v] is not empty */
	size_t fr_edges, in_left;
	uint32_t b0, nb; /* the batch: sources src[b0 .. b0 + nb - 1] */
	msd_row wbit[MSD_WBITS];
	unsigned nw;
};

static inline bool v2_zero(msd_v2 t)
{
	return (t[0] | t[1]) == 0;
}

static inline bool row_zero(const msd_row *a)
{
	return v2_zero(a->q[0] | a->q[1] | a->q[2] | a->q[3]);
}

static inline bool row_eq(const msd_row *a, const msd_row *b)
{
	return v2_zero((a->q[0] ^ b->q[0]) | (a->q[1] ^ b->q[1]) | (a->q[2] ^ b->q[2]) |
		       (a->q[3] ^ b->q[3]));
}

static inline void row_or(msd_row *a, const msd_row *b)
{
	for (unsigned i = 0; i < 4; i++)
		a->q[i] |= b->q[i];
}

/* One instruction in the POPCNT copy; elsewhere libgcc's count (or the
 * CPU's, on other architectures). */
MSD_KERNEL unsigned pop64(uint64_t x)
{
	return (unsigned)__builtin_popcountll(x);
}

MSD_KERNEL unsigned row_pop(const msd_row *a)
{
	unsigned p = 0;

	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 2; j++)
			if (a->q[i][j])
				p += pop64(a->q[i][j]);
	return p;
}

/* A row per vertex, zeroed; in huge pages when large (the pull loads them
 * at random: at 10^6 keys, 6% of the MSD's time went to TLB misses). */
static msd_row *rows_new(uint32_t c)
{
	size_t n = (c ? (size_t)c : 1) * sizeof(msd_row);
	void *p = huge_alloc(n);

	if (p)
		memset(p, 0, n);
	return p;
}

/* v is reached by every source of the batch. */
MSD_KERNEL void mark_done(struct msd_job *j, uint32_t v)
{
	j->done[v] = 1;
	j->ndone++;
	j->in_left -= j->lg->in_off[v + 1] - j->lg->in_off[v];
}

/* Sources src[s0 .. s0 + ns - 1] at distance 0; their weights sliced.
 * The keys that count on a source p are at distance 1 from it. */
MSD_KERNEL void batch_start(struct msd_job *j, uint32_t s0, uint32_t ns)
{
	const struct msd_graph *lg = j->lg;

	j->b0 = s0;
	j->nb = ns;
	j->nw = 0;
	memset(j->wbit, 0, sizeof(j->wbit));
	for (uint32_t i = 0; i < ns; i++) {
		uint32_t w = lg->weight[lg->src[s0 + i]];

		for (unsigned b = 0; w >> b; b++) {
			if ((w >> b) & 1)
				j->wbit[b].q[i / 128][i / 64 % 2] |= UINT64_C(1) << (i % 64);
			if (b + 1 > j->nw)
				j->nw = b + 1;
		}
		j->sums[lg->src[s0 + i]] += w;
		j->hist[1] += w;
	}
	for (unsigned w = 0; w < MSD_WORDS; w++) {
		unsigned lo = 64 * w;

		j->full.q[w / 2][w % 2] = ns >= lo + 64 ? ~UINT64_C(0) : ns > lo ? (UINT64_C(1) << (ns - lo)) - 1 : 0;
	}
	j->len = j->ndone = 0;
	j->fr_edges = 0;
	j->in_left = lg->m;
	for (uint32_t i = 0; i < ns; i++) {
		uint32_t v = lg->src[s0 + i];

		j->seen[v].q[i / 128][i / 64 % 2] = UINT64_C(1) << (i % 64);
		j->fr[v] = j->seen[v];
		j->act[v] = 1;
		j->list[j->len++] = v;
		j->fr_edges += lg->off[v + 1] - lg->off[v];
		if (row_eq(&j->seen[v], &j->full)) /* a batch of one source */
			mark_done(j, v);
	}
}

/* Push the frontier along out-edges into nxt; the new bits become the
 * frontier, in fr. */
MSD_KERNEL void level_push(struct msd_job *j)
{
	const struct msd_graph *lg = j->lg;

	j->nlen = 0;
	for (uint32_t i = 0; i < j->len; i++) {
		uint32_t u = j->list[i];
		const msd_row f = j->fr[u];

		for (size_t e = lg->off[u]; e < lg->off[u + 1]; e++) {
			uint32_t v = lg->adj[e];

			if (j->done[v])
				continue;
			if (!j->mark[v]) {
				j->mark[v] = 1;
				j->nlist[j->nlen++] = v;
			}
			row_or(&j->nxt[v], &f);
		}
		memset(&j->fr[u], 0, sizeof(msd_row));
		j->act[u] = 0;
	}
	for (uint32_t k = 0; k < j->nlen; k++) {
		uint32_t v = j->nlist[k];

		j->mark[v] = 0;
		for (unsigned q = 0; q < 4; q++)
			j->fr[v].q[q] = j->nxt[v].q[q] & ~j->seen[v].q[q];
		memset(&j->nxt[v], 0, sizeof(msd_row));
	}
}

/* Has v an in-neighbour, and are all of them done (a look at a byte each,
 * stopping at the first that is not)?  Then every source reaches v by the
 * next level. */
MSD_KERNEL bool in_done(const struct msd_job *j, uint32_t v)
{
	const struct msd_graph *lg = j->lg;

	if (lg->in_off[v + 1] == lg->in_off[v])
		return false; /* only when S is not strongly connected */
	for (size_t e = lg->in_off[v]; e < lg->in_off[v + 1]; e++)
		if (!j->done[lg->in_adj[e]])
			return false;
	return true;
}

/* Pull into nxt: each vertex clears, from the bits it still misses, those
 * of its in-neighbours' frontier rows (only those of act ones), stopping
 * when none is left; then nxt, where only the rows of nlist are not
 * empty, is the new frontier. */
MSD_KERNEL void level_pull(struct msd_job *j)
{
	const struct msd_graph *lg = j->lg;
	const msd_row *fr = j->fr;
	const uint8_t *act = j->act;
	const msd_row full = j->full;
	msd_row *t;

	j->nlen = 0;
	for (uint32_t v = 0; v < lg->count; v++) {
		msd_v2 m0, m1, m2, m3, w0, w1, w2, w3;

		if (j->done[v])
			continue;
		w0 = full.q[0] & ~j->seen[v].q[0];
		w1 = full.q[1] & ~j->seen[v].q[1];
		w2 = full.q[2] & ~j->seen[v].q[2];
		w3 = full.q[3] & ~j->seen[v].q[3];
		m0 = w0, m1 = w1, m2 = w2, m3 = w3;
		/* every in-neighbour reached by every source: each source
		 * that v misses is at this distance, no row needs a look */
		if (in_done(j, v)) {
			m0 = m1 = m2 = m3 = (msd_v2){ 0, 0 };
			goto found;
		}
		for (size_t e = lg->in_off[v]; e < lg->in_off[v + 1]; e++) {
			uint32_t u = lg->in_adj[e];
			const msd_row *f;

			if (!act[u])
				continue;
			f = &fr[u];
			m0 &= ~f->q[0];
			m1 &= ~f->q[1];
			m2 &= ~f->q[2];
			m3 &= ~f->q[3];
			if (v2_zero(m0 | m1 | m2 | m3))
				break;
		}
found:
		w0 &= ~m0, w1 &= ~m1, w2 &= ~m2, w3 &= ~m3;
		if (v2_zero(w0 | w1 | w2 | w3))
			continue;
		j->nxt[v] = (msd_row){ { w0, w1, w2, w3 } };
		j->nlist[j->nlen++] = v;
	}
	for (uint32_t i = 0; i < j->len; i++) {
		memset(&j->fr[j->list[i]], 0, sizeof(msd_row));
		j->act[j->list[i]] = 0;
	}
	t = j->fr;
	j->fr = j->nxt;
	j->nxt = t;
}

/* The weight of the sources of row a: sum over b of 2^b popcount(a & wbit[b]). */
MSD_KERNEL uint64_t row_weight(const struct msd_job *j, const msd_row *a)
{
	uint64_t w = 0;

	for (unsigned b = 0; b < j->nw; b++) {
		msd_row t;

		for (unsigned q = 0; q < 4; q++)
			t.q[q] = a->q[q] & j->wbit[b].q[q];
		w += (uint64_t)row_pop(&t) << b;
	}
	return w;
}

/* The frontier's bits are the pairs at distance d (those of the keys that
 * count on a source, at d + 1): count them, add them to seen, and make
 * nlist the next frontier's list.  A key k that counts on its hub p got
 * the pair (k, k) at 1 + dist(p, k) with p's bit: taken back when p's bit
 * reaches k. */
MSD_KERNEL void level_account(struct msd_job *j, uint64_t d)
{
	const struct msd_graph *lg = j->lg;
	unsigned hb = d < KSP_WGRAPH_MAX_DIST ? (unsigned)d : KSP_WGRAPH_MAX_DIST;

	j->len = 0;
	j->fr_edges = 0;
	for (uint32_t k = 0; k < j->nlen; k++) {
		uint32_t v = j->nlist[k];
		unsigned pc;

		if (k + MSD_ACCOUNT_AHEAD < j->nlen) {
			uint32_t a = j->nlist[k + MSD_ACCOUNT_AHEAD];

			__builtin_prefetch(&j->fr[a]);
			__builtin_prefetch(&j->seen[a], 1);
			__builtin_prefetch(&lg->off[a]);
			__builtin_prefetch(&lg->hub[a]);
			__builtin_prefetch(&j->sums[a], 1);
		}
		if (row_zero(&j->fr[v]))
			continue;
		pc = row_pop(&j->fr[v]);
		if (j->nw) {
			uint64_t wc = row_weight(j, &j->fr[v]);
			unsigned hb1 = d + 1 < KSP_WGRAPH_MAX_DIST ? (unsigned)d + 1 : KSP_WGRAPH_MAX_DIST;

			j->sums[v] += (d + 1) * wc;
			j->hist[hb1] += wc;
		}
		if (lg->hub[v] != KSP_WGRAPH_NONE) {
			uint32_t i = lg->src_pos[lg->hub[v]] - j->b0;

			if (i < j->nb && (j->fr[v].q[i / 128][i / 64 % 2] >> (i % 64) & 1)) {
				unsigned hb1 = d + 1 < KSP_WGRAPH_MAX_DIST ? (unsigned)d + 1 : KSP_WGRAPH_MAX_DIST;

				j->sums[v] -= d + 1;
				j->hist[hb1]--;
			}
		}
		row_or(&j->seen[v], &j->fr[v]);
		j->act[v] = 1;
		j->list[j->len++] = v;
		j->fr_edges += lg->off[v + 1] - lg->off[v];
		j->sums[v] += d * pc;
		j->hist[hb] += pc;
		if (row_eq(&j->seen[v], &j->full))
			mark_done(j, v);
	}
}

static void job_free(struct msd_job *j)
{
	free(j->seen);
	free(j->fr);
	free(j->nxt);
	free(j->list);
	free(j->nlist);
	free(j->done);
	free(j->mark);
	free(j->act);
}

/* Thread body: batches from the shared counter until none is left. */
MSD_KERNEL void *msd_run(void *arg)
{
	struct msd_job *j = arg;
	struct msd_graph *lg = j->lg;
	const uint32_t c = lg->count;
	uint32_t b;

	j->r = -ENOMEM;
	memset(j->hist, 0, sizeof(j->hist));
	j->sums = calloc(c, sizeof(uint64_t));
	j->seen = rows_new(c);
	j->fr = rows_new(c);
	j->nxt = rows_new(c);
	j->list = malloc((size_t)c * sizeof(uint32_t));
	j->nlist = malloc((size_t)c * sizeof(uint32_t));
	j->done = calloc(c, 1);
	j->mark = calloc(c, 1);
	j->act = calloc(c, 1);
	if (!j->sums || !j->seen || !j->fr || !j->nxt || !j->list || !j->nlist || !j->done || !j->mark || !j->act)
		goto out;
	while ((b = __atomic_fetch_add(&lg->next_batch, 1, __ATOMIC_RELAXED)) < lg->nbatches) {
		uint32_t s0 = b * MSD_BATCH;

		batch_start(j, s0, lg->nsrc - s0 < MSD_BATCH ? lg->nsrc - s0 : MSD_BATCH);
		for (uint64_t d = 1; j->len > 0; d++) {
			bool pull = lg->flags & KSP_WGRAPH_MSD_PULL ? true :
				    lg->flags & KSP_WGRAPH_MSD_PUSH ? false : j->fr_edges > j->in_left / 4;

			if (pull)
				level_pull(j);
			else
				level_push(j);
			level_account(j, d);
		}
		if (j->ndone != c) {
			j->r = -EINVAL; /* not strongly connected */
			goto out;
		}
		memset(j->seen, 0, (size_t)c * sizeof(msd_row));
		memset(j->done, 0, c);
	}
	j->r = 0;
out:
	job_free(j);
	return NULL;
}

static void *msd_worker(void *arg)
{
	return msd_run(arg);
}

#ifdef MSD_POPCNT_COPY
__attribute__((target("popcnt"))) static void *msd_worker_popcnt(void *arg)
{
	return msd_run(arg);
}
#endif

/* The copy of the search for this CPU (see the top). */
static void *(*msd_pick(unsigned flags))(void *)
{
	if (flags & KSP_WGRAPH_MSD_PORTABLE)
		return msd_worker;
#ifdef MSD_POPCNT_COPY
#ifdef HAVE_X86_PLATFORM
	if (CPU_FEATURE_ACTIVE(POPCNT))
		return msd_worker_popcnt;
#else
	if (__builtin_cpu_supports("popcnt"))
		return msd_worker_popcnt;
#endif
#endif
	return msd_worker;
}

/* rank[i] (i: index in members) = local id.  Default: by out-degree within
 * S, largest first (ties in members order), by a counting sort;
 * KSP_WGRAPH_MSD_BFS_ORDER: breadth-first from the member of largest
 * out-degree (what came before; for comparison). */
static void msd_order(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count, const uint32_t *map,
		      const uint32_t *deg, unsigned flags, uint32_t *perm, uint32_t *rank)
{
	uint32_t i, head = 0, tail = 0, best = 0, maxdeg = 0;

	for (i = 0; i < count; i++) {
		rank[i] = KSP_WGRAPH_NONE;
		if (deg[i] > maxdeg || i == 0) {
			maxdeg = deg[i];
			best = i;
		}
	}
	if (!(flags & KSP_WGRAPH_MSD_BFS_ORDER)) {
		/* bucket d holds the degree-d members; largest d first */
		uint32_t *cnt = calloc((size_t)maxdeg + 2, sizeof(uint32_t));

		if (cnt != NULL) {
			for (i = 0; i < count; i++)
				cnt[maxdeg - deg[i] + 1]++;
			for (uint32_t d = 0; d <= maxdeg; d++)
				cnt[d + 1] += cnt[d];
			for (i = 0; i < count; i++) {
				rank[i] = cnt[maxdeg - deg[i]]++;
				perm[rank[i]] = i;
			}
			free(cnt);
			return;
		}
		/* out of memory for the buckets: the BFS order is as exact */
	}
	for (uint32_t start = 0; start <= count && tail < count; start++) {
		uint32_t s = start == 0 ? best : start - 1;

		if (rank[s] != KSP_WGRAPH_NONE)
			continue;
		rank[s] = tail;
		perm[tail++] = s;
		while (head < tail) {
			const uint32_t *nb;
			uint32_t dg = ksp_wgraph_out_neighbors(g, members[perm[head++]], &nb);

			for (uint32_t k = 0; k < dg; k++) {
				uint32_t v = map[nb[k]];

				if (v != KSP_WGRAPH_NONE && rank[v] == KSP_WGRAPH_NONE) {
					rank[v] = tail;
					perm[tail++] = v;
				}
			}
		}
	}
}

/* lg's CSRs of S in local ids (msd_order()); perm[new] = index in members. */
static int msd_local(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count, struct msd_graph *lg,
		     uint32_t **ret_perm)
{
	uint32_t *map = NULL, *perm = NULL, *rank = NULL, *deg = NULL, i;
	size_t k, e = 0;
	int r;

	r = ksp_wgraph_member_map(g, members, count, &map);
	if (r < 0)
		return r;
	r = -ENOMEM;
	perm = malloc((size_t)count * sizeof(uint32_t));
	rank = malloc((size_t)count * sizeof(uint32_t));
	deg = calloc(count, sizeof(uint32_t));
	lg->off = calloc((size_t)count + 1, sizeof(size_t));
	lg->in_off = calloc((size_t)count + 2, sizeof(size_t));
	if (!perm || !rank || !deg || !lg->off || !lg->in_off)
		goto out;
	for (i = 0; i < count; i++) {
		const uint32_t *nb;
		uint32_t dg = ksp_wgraph_out_neighbors(g, members[i], &nb);

		for (uint32_t q = 0; q < dg; q++)
			if (map[nb[q]] != KSP_WGRAPH_NONE)
				deg[i]++;
	}
	msd_order(g, members, count, map, deg, lg->flags, perm, rank);
	/* Degrees in new ids, then both CSRs by counting sort: the in-lists
	 * from the sources in new-id order, the out-lists from those. */
	for (i = 0; i < count; i++) {
		const uint32_t *nb;
		uint32_t dg = ksp_wgraph_out_neighbors(g, members[perm[i]], &nb);

		for (uint32_t q = 0; q < dg; q++) {
			uint32_t v = map[nb[q]];

			if (v != KSP_WGRAPH_NONE) {
				lg->off[i + 1]++;
				lg->in_off[rank[v] + 2]++;
				e++;
			}
		}
	}
	lg->m = e;
	lg->adj = malloc((e ? e : 1) * sizeof(uint32_t));
	lg->in_adj = malloc((e ? e : 1) * sizeof(uint32_t));
	if (!lg->adj || !lg->in_adj)
		goto out;
	for (i = 0; i < count; i++) {
		lg->off[i + 1] += lg->off[i];
		lg->in_off[i + 2] += lg->in_off[i + 1];
	}
	/* in-CSR by counting sort over sources in new-id order: each list
	 * comes out sorted (in_off[v + 1] is the fill pointer of v). */
	for (i = 0; i < count; i++) {
		const uint32_t *nb;
		uint32_t dg = ksp_wgraph_out_neighbors(g, members[perm[i]], &nb);

		for (uint32_t q = 0; q < dg; q++) {
			uint32_t v = map[nb[q]];

			if (v != KSP_WGRAPH_NONE)
				lg->in_adj[lg->in_off[rank[v] + 1]++] = i;
		}
	}
	/* off[u] is u's fill pointer, then shifted back one place. */
	for (i = 0; i < count; i++)
		for (k = lg->in_off[i]; k < lg->in_off[i + 1]; k++)
			lg->adj[lg->off[lg->in_adj[k]]++] = i;
	for (i = count; i > 0; i--)
		lg->off[i] = lg->off[i - 1];
	lg->off[0] = 0;
	*ret_perm = perm;
	perm = NULL;
	r = 0;
out:
	free(map);
	free(perm);
	free(rank);
	free(deg);
	return r;
}

/* lg->src, weight, hub, src_pos (the top of struct msd_graph). */
static int msd_sources(struct msd_graph *lg)
{
	const uint32_t c = lg->count;

	lg->src = malloc((size_t)c * sizeof(uint32_t));
	lg->src_pos = malloc((size_t)c * sizeof(uint32_t));
	lg->hub = malloc((size_t)c * sizeof(uint32_t));
	lg->weight = calloc(c, sizeof(uint32_t));
	if (!lg->src || !lg->src_pos || !lg->hub || !lg->weight)
		return -ENOMEM;
	lg->nsrc = 0;
	for (uint32_t v = 0; v < c; v++) {
		uint32_t p = lg->off[v + 1] - lg->off[v] == 1 ? lg->adj[lg->off[v]] : KSP_WGRAPH_NONE;

		lg->hub[v] = KSP_WGRAPH_NONE;
		if (p != KSP_WGRAPH_NONE && lg->off[p + 1] - lg->off[p] > 1 && !(lg->flags & KSP_WGRAPH_MSD_ALL_SOURCES)) {
			lg->hub[v] = p;
			lg->weight[p]++;
		}
	}
	/* The sources without weight first, then those with (their batches
	 * alone pay for the weighted counts), each part in id order. */
	for (unsigned part = 0; part < 2; part++)
		for (uint32_t v = 0; v < c; v++) {
			if (lg->hub[v] != KSP_WGRAPH_NONE || (lg->weight[v] > 0) != (part == 1)) {
				if (part == 1 && lg->hub[v] != KSP_WGRAPH_NONE)
					lg->src_pos[v] = KSP_WGRAPH_NONE;
				continue;
			}
			lg->src_pos[v] = lg->nsrc;
			lg->src[lg->nsrc++] = v;
		}
	return 0;
}

int ksp_wgraph_msd_ex(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count, unsigned nthreads,
		      unsigned flags, uint64_t *ret_sums, uint64_t *ret_hist)
{
	struct msd_graph lg = { .count = count, .flags = flags };
	struct msd_job *jobs = NULL;
	pthread_t *tids = NULL;
	void *(*worker)(void *) = msd_pick(flags);
	uint32_t *perm = NULL, i;
	unsigned t, started = 0;
	int r;

	if (!g || count == 0 || !members)
		return -EINVAL;
	r = msd_local(g, members, count, &lg, &perm);
	if (r == 0)
		r = msd_sources(&lg);
	if (r < 0)
		goto out;

	lg.nbatches = lg.nsrc / MSD_BATCH + (lg.nsrc % MSD_BATCH ? 1 : 0);
	if (nthreads == 0)
		nthreads = 1;
	if (nthreads > lg.nbatches)
		nthreads = lg.nbatches;
	r = -ENOMEM;
	jobs = calloc(nthreads, sizeof(*jobs));
	tids = calloc(nthreads, sizeof(*tids));
	if (!jobs || !tids)
		goto out;
	for (t = 0; t < nthreads; t++)
		jobs[t].lg = &lg;
	/* Thread 0 runs on this thread; the others take batches beside it. */
	r = 0;
	for (t = 1; t < nthreads; t++) {
		int pr = pthread_create(&tids[t], NULL, worker, &jobs[t]);

		if (pr != 0) {
			r = -pr;
			/* no batch is left for the threads that did start */
			__atomic_store_n(&lg.next_batch, lg.nbatches, __ATOMIC_RELAXED);
			break;
		}
		started = t;
	}
	if (r == 0)
		worker(&jobs[0]);
	for (t = 1; t <= started; t++)
		pthread_join(tids[t], NULL);
	if (r < 0)
		goto out;
	for (t = 0; t < nthreads; t++)
		if (jobs[t].r < 0) {
			r = jobs[t].r;
			goto out;
		}

	if (ret_sums) {
		for (i = 0; i < count; i++) {
			uint64_t s = 0;

			for (t = 0; t < nthreads; t++)
				s += jobs[t].sums[i];
			ret_sums[perm[i]] = s;
		}
	}
	if (ret_hist) {
		memset(ret_hist, 0, (KSP_WGRAPH_MAX_DIST + 1) * sizeof(uint64_t));
		for (t = 0; t < nthreads; t++)
			for (i = 0; i <= KSP_WGRAPH_MAX_DIST; i++)
				ret_hist[i] += jobs[t].hist[i];
	}
	r = 0;
out:
	if (jobs)
		for (t = 0; t < nthreads; t++)
			free(jobs[t].sums);
	free(jobs);
	free(tids);
	free(perm);
	free(lg.off);
	free(lg.adj);
	free(lg.in_off);
	free(lg.in_adj);
	free(lg.src);
	free(lg.src_pos);
	free(lg.hub);
	free(lg.weight);
	return r;
}

int ksp_wgraph_msd(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count, unsigned nthreads,
		   uint64_t *ret_sums, uint64_t *ret_hist)
{
	return ksp_wgraph_msd_ex(g, members, count, nthreads, 0, ret_sums, ret_hist);
}
