/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wot-graph: CSR web-of-trust graph, SCC (iterative Tarjan), strong set,
 * bit-parallel multi-source BFS (512 sources a batch, push or pull per
 * level) for mean shortest distances, plain BFS.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/wot/wot-graph.h"

struct ksp_wgraph {
	uint32_t n;
	size_t m;
	size_t *out_off; /* n + 1 */
	uint32_t *out_adj; /* m */
	size_t *in_off; /* n + 1 */
	uint32_t *in_adj; /* m */
};

void ksp_wgraph_free(struct ksp_wgraph *g)
{
	if (!g)
		return;
	free(g->out_off);
	free(g->out_adj);
	free(g->in_off);
	free(g->in_adj);
	free(g);
}

int ksp_wgraph_new(uint32_t n, const uint32_t *src, const uint32_t *dst, size_t m,
		   struct ksp_wgraph **ret)
{
	struct ksp_wgraph *g = NULL;
	size_t *dst_off = NULL;
	uint32_t *by_dst = NULL;
	size_t i, k;
	uint32_t v;
	int r = -ENOMEM;

	if (!ret || (m > 0 && (!src || !dst)) || n == UINT32_MAX)
		return -EINVAL;
	for (i = 0; i < m; i++)
		if (src[i] >= n || dst[i] >= n)
			return -EINVAL;

	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->n = n;
	g->out_off = calloc((size_t)n + 1, sizeof(size_t));
	g->in_off = calloc((size_t)n + 1, sizeof(size_t));
	dst_off = calloc((size_t)n + 1, sizeof(size_t));
	if (!g->out_off || !g->in_off || !dst_off)
		goto out;
	if (m > 0) {
		by_dst = malloc(m * sizeof(uint32_t));
		g->out_adj = malloc(m * sizeof(uint32_t));
		if (!by_dst || !g->out_adj)
			goto out;
	}

	/* Pass 1: counting sort of the sources by destination (self-loops
	 * dropped).  dst_off[v + 1] counts first, then prefix sums. */
	for (i = 0; i < m; i++)
		if (src[i] != dst[i]) {
			dst_off[dst[i] + 1]++;
			g->out_off[src[i] + 1]++;
		}
	for (v = 0; v < n; v++) {
		dst_off[v + 1] += dst_off[v];
		g->out_off[v + 1] += g->out_off[v];
	}
	/* Use in_off as fill cursors for pass 1. */
	memcpy(g->in_off, dst_off, ((size_t)n + 1) * sizeof(size_t));
	for (i = 0; i < m; i++)
		if (src[i] != dst[i])
			by_dst[g->in_off[dst[i]]++] = src[i];

	/* Pass 2: walk destinations in increasing order and append to the
	 * source buckets, so each out-list comes out sorted. */
	memcpy(g->in_off, g->out_off, ((size_t)n + 1) * sizeof(size_t));
	for (v = 0; v < n; v++)
		for (k = dst_off[v]; k < dst_off[v + 1]; k++)
			g->out_adj[g->in_off[by_dst[k]]++] = v;

	/* Deduplicate in place (lists are sorted: duplicates are adjacent). */
	{
		size_t w = 0, start;

		for (v = 0; v < n; v++) {
			size_t end = g->out_off[v + 1];

			start = g->out_off[v];
			g->out_off[v] = w;
			for (k = start; k < end; k++)
				if (k == start || g->out_adj[k] != g->out_adj[k - 1])
					g->out_adj[w++] = g->out_adj[k];
		}
		g->out_off[n] = w;
		g->m = w;
	}

	/* In-CSR from the deduplicated out-CSR; sources in increasing order
	 * make each in-list sorted. */
	memset(g->in_off, 0, ((size_t)n + 1) * sizeof(size_t));
	if (g->m > 0) {
		g->in_adj = malloc(g->m * sizeof(uint32_t));
		if (!g->in_adj)
			goto out;
	}
	for (k = 0; k < g->m; k++)
		g->in_off[g->out_adj[k] + 1]++;
	for (v = 0; v < n; v++)
		g->in_off[v + 1] += g->in_off[v];
	memcpy(dst_off, g->in_off, ((size_t)n + 1) * sizeof(size_t));
	for (v = 0; v < n; v++)
		for (k = g->out_off[v]; k < g->out_off[v + 1]; k++)
			g->in_adj[dst_off[g->out_adj[k]]++] = v;

	/* Shrink the out array to the deduplicated size (failure is harmless). */
	if (g->m > 0 && g->m < m) {
		uint32_t *p = realloc(g->out_adj, g->m * sizeof(uint32_t));

		if (p)
			g->out_adj = p;
	}
	r = 0;
out:
	free(dst_off);
	free(by_dst);
	if (r < 0)
		ksp_wgraph_free(g);
	else
		*ret = g;
	return r;
}

uint32_t ksp_wgraph_n(const struct ksp_wgraph *g)
{
	return g ? g->n : 0;
}

size_t ksp_wgraph_m(const struct ksp_wgraph *g)
{
	return g ? g->m : 0;
}

uint32_t ksp_wgraph_out_degree(const struct ksp_wgraph *g, uint32_t v)
{
	if (!g || v >= g->n)
		return 0;
	return (uint32_t)(g->out_off[v + 1] - g->out_off[v]);
}

uint32_t ksp_wgraph_in_degree(const struct ksp_wgraph *g, uint32_t v)
{
	if (!g || v >= g->n)
		return 0;
	return (uint32_t)(g->in_off[v + 1] - g->in_off[v]);
}

uint32_t ksp_wgraph_out_neighbors(const struct ksp_wgraph *g, uint32_t v, const uint32_t **ret)
{
	if (!g || v >= g->n) {
		if (ret)
			*ret = NULL;
		return 0;
	}
	if (ret)
		*ret = g->out_adj ? g->out_adj + g->out_off[v] : NULL;
	return (uint32_t)(g->out_off[v + 1] - g->out_off[v]);
}

uint32_t ksp_wgraph_in_neighbors(const struct ksp_wgraph *g, uint32_t v, const uint32_t **ret)
{
	if (!g || v >= g->n) {
		if (ret)
			*ret = NULL;
		return 0;
	}
	if (ret)
		*ret = g->in_adj ? g->in_adj + g->in_off[v] : NULL;
	return (uint32_t)(g->in_off[v + 1] - g->in_off[v]);
}

/* Map vertex -> index in members, KSP_WGRAPH_NONE elsewhere.  -EINVAL on an
 * out-of-range or repeated id. */
int ksp_wgraph_member_map(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count,
			  uint32_t **ret)
{
	uint32_t *map, i;

	if (!g || !ret || (count > 0 && !members) || count > g->n)
		return -EINVAL;
	map = malloc(((size_t)g->n + 1) * sizeof(uint32_t));
	if (!map)
		return -ENOMEM;
	memset(map, 0xff, ((size_t)g->n + 1) * sizeof(uint32_t));
	for (i = 0; i < count; i++) {
		if (members[i] >= g->n || map[members[i]] != KSP_WGRAPH_NONE) {
			free(map);
			return -EINVAL;
		}
		map[members[i]] = i;
	}
	*ret = map;
	return 0;
}

int ksp_wgraph_count_edges_within(const struct ksp_wgraph *g, const uint32_t *members,
				  uint32_t count, size_t *ret)
{
	uint32_t *map = NULL, i;
	size_t k, c = 0;
	int r;

	if (!ret)
		return -EINVAL;
	r = ksp_wgraph_member_map(g, members, count, &map);
	if (r < 0)
		return r;
	for (i = 0; i < count; i++)
		for (k = g->out_off[members[i]]; k < g->out_off[members[i] + 1]; k++)
			if (map[g->out_adj[k]] != KSP_WGRAPH_NONE)
				c++;
	free(map);
	*ret = c;
	return 0;
}

int ksp_wgraph_scc(const struct ksp_wgraph *g, uint32_t *comp, uint32_t *ret_ncomp)
{
	uint32_t *index = NULL, *low = NULL, *stack = NULL, *cs_v = NULL;
	size_t *cs_e = NULL;
	uint8_t *onstack = NULL;
	uint32_t n, idx = 0, ncomp = 0, sp = 0, csp = 0, root;
	int r = -ENOMEM;

	if (!g || (g->n > 0 && !comp))
		return -EINVAL;
	n = g->n;
	if (n == 0) {
		if (ret_ncomp)
			*ret_ncomp = 0;
		return 0;
	}
	index = malloc((size_t)n * sizeof(uint32_t));
	low = malloc((size_t)n * sizeof(uint32_t));
	stack = malloc((size_t)n * sizeof(uint32_t));
	cs_v = malloc((size_t)n * sizeof(uint32_t));
	cs_e = malloc((size_t)n * sizeof(size_t));
	onstack = calloc(n, 1);
	if (!index || !low || !stack || !cs_v || !cs_e || !onstack)
		goto out;
	memset(index, 0xff, (size_t)n * sizeof(uint32_t));

	for (root = 0; root < n; root++) {
		if (index[root] != KSP_WGRAPH_NONE)
			continue;
		index[root] = low[root] = idx++;
		stack[sp++] = root;
		onstack[root] = 1;
		cs_v[csp] = root;
		cs_e[csp++] = g->out_off[root];
		while (csp > 0) {
			uint32_t v = cs_v[csp - 1];
			size_t e = cs_e[csp - 1];

			if (e < g->out_off[v + 1]) {
				uint32_t w = g->out_adj[e];

				cs_e[csp - 1] = e + 1;
				if (index[w] == KSP_WGRAPH_NONE) {
					index[w] = low[w] = idx++;
					stack[sp++] = w;
					onstack[w] = 1;
					cs_v[csp] = w;
					cs_e[csp++] = g->out_off[w];
				} else if (onstack[w] && index[w] < low[v])
					low[v] = index[w];
				continue;
			}
			csp--;
			if (low[v] == index[v]) {
				uint32_t w;

				do {
					w = stack[--sp];
					onstack[w] = 0;
					comp[w] = ncomp;
				} while (w != v);
				ncomp++;
			}
			if (csp > 0) {
				uint32_t p = cs_v[csp - 1];

				if (low[v] < low[p])
					low[p] = low[v];
			}
		}
	}
	if (ret_ncomp)
		*ret_ncomp = ncomp;
	r = 0;
out:
	free(index);
	free(low);
	free(stack);
	free(cs_v);
	free(cs_e);
	free(onstack);
	return r;
}

int ksp_wgraph_strong_set(const struct ksp_wgraph *g, uint32_t **ret_members, uint32_t *ret_count)
{
	uint32_t *comp = NULL, *size = NULL, *members = NULL;
	uint32_t ncomp = 0, v, best = 0, best_size = 0, c = 0;
	int r;

	if (!g || !ret_members || !ret_count)
		return -EINVAL;
	if (g->n == 0) {
		*ret_members = NULL;
		*ret_count = 0;
		return 0;
	}
	comp = malloc((size_t)g->n * sizeof(uint32_t));
	if (!comp)
		return -ENOMEM;
	r = ksp_wgraph_scc(g, comp, &ncomp);
	if (r < 0)
		goto out;
	r = -ENOMEM;
	size = calloc(ncomp, sizeof(uint32_t));
	if (!size)
		goto out;
	for (v = 0; v < g->n; v++)
		size[comp[v]]++;
	/* Scanning vertices in id order and keeping only a strictly larger
	 * size picks, among the largest, the component of the smallest id. */
	for (v = 0; v < g->n; v++)
		if (size[comp[v]] > best_size) {
			best_size = size[comp[v]];
			best = comp[v];
		}
	members = malloc((size_t)best_size * sizeof(uint32_t));
	if (!members)
		goto out;
	for (v = 0; v < g->n; v++)
		if (comp[v] == best)
			members[c++] = v;
	*ret_members = members;
	*ret_count = c;
	r = 0;
out:
	free(comp);
	free(size);
	return r;
}

/* ---- MSD: bit-parallel multi-source BFS ------------------------------- */

/*
 * One batch is up to 512 sources; every vertex has a 64-byte row of bits per
 * set (seen, frontier, next), bit s of v's row meaning "source s reached v".
 * A BFS level moves the frontier one edge, either by pushing each frontier
 * row along its out-edges or, when the frontier is wide, by pulling: each
 * vertex not yet reached by every source ORs the frontier rows of its
 * in-neighbours, and stops as soon as the row it builds completes it.
 */
#define MSD_WORDS 8u
#define MSD_BATCH (64u * MSD_WORDS)

/* A row: four 128-bit lanes, which SSE2 (the x86-64 baseline) and NEON
 * hold in registers. */
typedef uint64_t msd_v2 __attribute__((vector_size(16)));
typedef struct {
	msd_v2 q[4];
} __attribute__((aligned(64))) msd_row;

/* The subgraph induced by S in local ids 0..count-1, numbered in BFS order
 * (neighbours get near ids: their rows share cache pages); read-only and
 * shared by the threads. */
struct ksp_wgraph_local {
	uint32_t count;
	size_t m;
	size_t *off, *in_off; /* count + 1 */
	uint32_t *adj, *in_adj; /* m */
	unsigned flags;
	uint32_t nbatches;
	uint32_t next_batch; /* atomic: the next batch to take */
};

/* One thread's buffers and results. */
struct ksp_wgraph_msd_job {
	struct ksp_wgraph_local *lg;
	uint64_t *sums; /* count, local ids */
	uint64_t hist[KSP_WGRAPH_MAX_DIST + 1];
	int r;
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

/* Portable popcount (no -mpopcnt: the builtin would be a libgcc call). */
static inline unsigned pop64(uint64_t x)
{
	x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

static inline unsigned row_pop(const msd_row *a)
{
	unsigned p = 0;

	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 2; j++)
			if (a->q[i][j])
				p += pop64(a->q[i][j]);
	return p;
}

static msd_row *rows_new(uint32_t c)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, (c ? (size_t)c : 1) * sizeof(msd_row)) != 0)
		return NULL;
	memset(p, 0, (c ? (size_t)c : 1) * sizeof(msd_row));
	return p;
}

/* (Long: the bit-parallel breadth-first searches' hot loop, kept in one function with its buffers.) */
void *ksp_wgraph_msd_worker(void *arg)
{
	struct ksp_wgraph_msd_job *job = arg;
	struct ksp_wgraph_local *lg = job->lg;
	const uint32_t c = lg->count;
	msd_row *seen = NULL, *fr = NULL, *nxt = NULL, full;
	uint32_t *list = NULL, *nlist = NULL, b;
	uint8_t *done = NULL, *mark = NULL;

	job->r = -ENOMEM;
	memset(job->hist, 0, sizeof(job->hist));
	job->sums = calloc(c, sizeof(uint64_t));
	seen = rows_new(c);
	fr = rows_new(c);
	nxt = rows_new(c);
	list = malloc((size_t)c * sizeof(uint32_t));
	nlist = malloc((size_t)c * sizeof(uint32_t));
	done = calloc(c, 1);
	mark = calloc(c, 1);
	if (!job->sums || !seen || !fr || !nxt || !list || !nlist || !done || !mark)
		goto out;

	while ((b = __atomic_fetch_add(&lg->next_batch, 1, __ATOMIC_RELAXED)) < lg->nbatches) {
		uint32_t s0 = b * MSD_BATCH, ns = c - s0 < MSD_BATCH ? c - s0 : MSD_BATCH;
		uint32_t len = 0, ndone = 0, i;
		size_t fr_edges = 0, in_left = lg->m;
		uint64_t d;

		for (unsigned w = 0; w < MSD_WORDS; w++) {
			unsigned lo = 64 * w;

			full.q[w / 2][w % 2] = ns >= lo + 64 ? ~UINT64_C(0) :
					       ns > lo	     ? (UINT64_C(1) << (ns - lo)) - 1 : 0;
		}
		for (i = 0; i < ns; i++) {
			uint32_t v = s0 + i;

			seen[v].q[i / 128][i / 64 % 2] = UINT64_C(1) << (i % 64);
			fr[v] = seen[v];
			list[len++] = v;
			fr_edges += lg->off[v + 1] - lg->off[v];
			if (row_eq(&seen[v], &full)) { /* a batch of one source */
				done[v] = 1;
				ndone++;
				in_left -= lg->in_off[v + 1] - lg->in_off[v];
			}
		}
		for (d = 1; len > 0; d++) {
			unsigned hb = d < KSP_WGRAPH_MAX_DIST ? (unsigned)d : KSP_WGRAPH_MAX_DIST;
			bool pull = lg->flags & KSP_WGRAPH_MSD_PULL ? true :
				    lg->flags & KSP_WGRAPH_MSD_PUSH ? false : fr_edges > in_left / 4;
			uint32_t nlen = 0, k;

			if (!pull) {
				/* Push the frontier along out-edges into nxt. */
				for (i = 0; i < len; i++) {
					uint32_t u = list[i];
					const msd_row f = fr[u];

					for (size_t e = lg->off[u]; e < lg->off[u + 1]; e++) {
						uint32_t v = lg->adj[e];

						if (done[v])
							continue;
						if (!mark[v]) {
							mark[v] = 1;
							nlist[nlen++] = v;
						}
						row_or(&nxt[v], &f);
					}
					memset(&fr[u], 0, sizeof(msd_row));
				}
				/* The new bits become the frontier, in fr. */
				for (k = 0; k < nlen; k++) {
					uint32_t v = nlist[k];

					mark[v] = 0;
					for (unsigned q = 0; q < 4; q++)
						fr[v].q[q] = nxt[v].q[q] & ~seen[v].q[q];
					memset(&nxt[v], 0, sizeof(msd_row));
				}
			} else {
				/* Pull into nxt: each vertex clears, from the bits it
				 * still misses, those of its in-neighbours' frontier
				 * rows, stopping when none is left; then swap, nxt is
				 * the new frontier. */
				for (uint32_t v = 0; v < c; v++) {
					msd_v2 m0, m1, m2, m3;
					msd_row *nw;

					if (done[v])
						continue;
					m0 = full.q[0] & ~seen[v].q[0];
					m1 = full.q[1] & ~seen[v].q[1];
					m2 = full.q[2] & ~seen[v].q[2];
					m3 = full.q[3] & ~seen[v].q[3];
					for (size_t e = lg->in_off[v]; e < lg->in_off[v + 1]; e++) {
						const msd_row *f = &fr[lg->in_adj[e]];

						m0 &= ~f->q[0];
						m1 &= ~f->q[1];
						m2 &= ~f->q[2];
						m3 &= ~f->q[3];
						if (v2_zero(m0 | m1 | m2 | m3))
							break;
					}
					nw = &nxt[v];
					nw->q[0] = full.q[0] & ~seen[v].q[0] & ~m0;
					nw->q[1] = full.q[1] & ~seen[v].q[1] & ~m1;
					nw->q[2] = full.q[2] & ~seen[v].q[2] & ~m2;
					nw->q[3] = full.q[3] & ~seen[v].q[3] & ~m3;
					if (!row_zero(nw))
						nlist[nlen++] = v;
				}
				for (i = 0; i < len; i++)
					memset(&fr[list[i]], 0, sizeof(msd_row));
				msd_row *t = fr;
				fr = nxt;
				nxt = t;
			}
			/* The frontier's bits are the pairs at distance d. */
			len = 0;
			fr_edges = 0;
			for (k = 0; k < nlen; k++) {
				uint32_t v = nlist[k];
				unsigned pc;

				if (row_zero(&fr[v]))
					continue;
				pc = row_pop(&fr[v]);
				row_or(&seen[v], &fr[v]);
				list[len++] = v;
				fr_edges += lg->off[v + 1] - lg->off[v];
				job->sums[v] += d * pc;
				job->hist[hb] += pc;
				if (row_eq(&seen[v], &full)) {
					done[v] = 1;
					ndone++;
					in_left -= lg->in_off[v + 1] - lg->in_off[v];
				}
			}
		}
		if (ndone != c) {
			job->r = -EINVAL; /* not strongly connected */
			goto out;
		}
		memset(seen, 0, (size_t)c * sizeof(msd_row));
		memset(done, 0, c);
	}
	job->r = 0;
out:
	free(seen);
	free(fr);
	free(nxt);
	free(list);
	free(nlist);
	free(done);
	free(mark);
	return NULL;
}

/* lg->off/adj (out-edges) and in_off/in_adj of S, relabelled in BFS order
 * from the member of largest out-degree; perm[new] = index in members. */
static int msd_local(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count,
		     struct ksp_wgraph_local *lg, uint32_t **ret_perm)
{
	uint32_t *map = NULL, *perm = NULL, *rank = NULL, i, head = 0, tail = 0, best = 0;
	size_t k, e = 0, bestdeg = 0;
	int r;

	r = ksp_wgraph_member_map(g, members, count, &map);
	if (r < 0)
		return r;
	r = -ENOMEM;
	perm = malloc((size_t)count * sizeof(uint32_t));
	rank = malloc((size_t)count * sizeof(uint32_t));
	lg->off = calloc((size_t)count + 1, sizeof(size_t));
	lg->in_off = calloc((size_t)count + 2, sizeof(size_t));
	if (!perm || !rank || !lg->off || !lg->in_off)
		goto out;
	for (i = 0; i < count; i++) {
		size_t deg = g->out_off[members[i] + 1] - g->out_off[members[i]];

		rank[i] = KSP_WGRAPH_NONE;
		if (deg > bestdeg) {
			bestdeg = deg;
			best = i;
		}
	}
	/* BFS over out-edges within S; anything it misses (S is then not
	 * strongly connected, which the MSD reports) follows in order. */
	for (uint32_t start = 0; start <= count && tail < count; start++) {
		uint32_t s = start == 0 ? best : start - 1;

		if (rank[s] != KSP_WGRAPH_NONE)
			continue;
		rank[s] = tail;
		perm[tail++] = s;
		while (head < tail) {
			uint32_t u = members[perm[head++]];

			for (k = g->out_off[u]; k < g->out_off[u + 1]; k++) {
				uint32_t v = map[g->out_adj[k]];

				if (v != KSP_WGRAPH_NONE && rank[v] == KSP_WGRAPH_NONE) {
					rank[v] = tail;
					perm[tail++] = v;
				}
			}
		}
	}
	/* Degrees in new ids, then both CSRs by counting sort: the in-lists
	 * from the sources in new-id order, the out-lists from those. */
	for (i = 0; i < count; i++) {
		uint32_t u = members[perm[i]];

		for (k = g->out_off[u]; k < g->out_off[u + 1]; k++) {
			uint32_t v = map[g->out_adj[k]];

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
		uint32_t u = members[perm[i]];

		for (k = g->out_off[u]; k < g->out_off[u + 1]; k++) {
			uint32_t v = map[g->out_adj[k]];

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
	return r;
}

int ksp_wgraph_msd_ex(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count,
		      unsigned nthreads, unsigned flags, uint64_t *ret_sums, uint64_t *ret_hist)
{
	struct ksp_wgraph_local lg = { .count = count, .flags = flags };
	struct ksp_wgraph_msd_job *jobs = NULL;
	pthread_t *tids = NULL;
	uint32_t *perm = NULL, i;
	unsigned t, started = 0;
	int r;

	if (!g || count == 0 || !members)
		return -EINVAL;
	r = msd_local(g, members, count, &lg, &perm);
	if (r < 0)
		goto out;

	lg.nbatches = count / MSD_BATCH + (count % MSD_BATCH ? 1 : 0);
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
		int pr = pthread_create(&tids[t], NULL, ksp_wgraph_msd_worker, &jobs[t]);

		if (pr != 0) {
			r = -pr;
			/* no batch is left for the threads that did start */
			__atomic_store_n(&lg.next_batch, lg.nbatches, __ATOMIC_RELAXED);
			break;
		}
		started = t;
	}
	if (r == 0)
		ksp_wgraph_msd_worker(&jobs[0]);
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
	return r;
}

int ksp_wgraph_msd(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count,
		   unsigned nthreads, uint64_t *ret_sums, uint64_t *ret_hist)
{
	return ksp_wgraph_msd_ex(g, members, count, nthreads, 0, ret_sums, ret_hist);
}

/* ---- plain BFS -------------------------------------------------------- */

int ksp_wgraph_bfs(const struct ksp_wgraph *g, uint32_t src, bool reverse, uint32_t *dist,
		   uint32_t *parent)
{
	const size_t *off;
	const uint32_t *adj;
	uint32_t *queue, head = 0, tail = 0;

	if (!g || !dist || src >= g->n)
		return -EINVAL;
	queue = malloc((size_t)g->n * sizeof(uint32_t));
	if (!queue)
		return -ENOMEM;
	off = reverse ? g->in_off : g->out_off;
	adj = reverse ? g->in_adj : g->out_adj;
	memset(dist, 0xff, (size_t)g->n * sizeof(uint32_t));
	if (parent)
		memset(parent, 0xff, (size_t)g->n * sizeof(uint32_t));
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t u = queue[head++];

		for (size_t e = off[u]; e < off[u + 1]; e++) {
			uint32_t v = adj[e];

			if (dist[v] != KSP_WGRAPH_NONE)
				continue;
			dist[v] = dist[u] + 1;
			if (parent)
				parent[v] = u;
			queue[tail++] = v;
		}
	}
	free(queue);
	return 0;
}
