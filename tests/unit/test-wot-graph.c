// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for src/lib/wot-graph.[ch]: CSR graph, SCC, strong set, MSD
 * (bit-parallel BFS), BFS; checked on hand-computed graphs, against a
 * brute-force BFS on random graphs, and against the reference numbers of
 * tests/data (Arch Linux and Debian keyrings). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/wot/wot-graph.h"
#include "shared/macro.h"
#include "harness.h"

/* ---- helpers ---------------------------------------------------------- */

struct edge {
	uint32_t s, d;
};

static struct ksp_wgraph *make_graph(uint32_t n, const struct edge *e, size_t m)
{
	uint32_t *src = malloc((m ? m : 1) * sizeof(uint32_t));
	uint32_t *dst = malloc((m ? m : 1) * sizeof(uint32_t));
	struct ksp_wgraph *g = NULL;
	size_t i;

	if (src && dst) {
		for (i = 0; i < m; i++) {
			src[i] = e[i].s;
			dst[i] = e[i].d;
		}
		if (ksp_wgraph_new(n, src, dst, m, &g) < 0)
			g = NULL;
	}
	free(src);
	free(dst);
	return g;
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- construction ----------------------------------------------------- */

static int test_new_dedup(void)
{
	static const struct edge e[] = {
		{ 2, 1 }, { 0, 1 }, { 0, 1 }, { 1, 1 }, { 2, 0 }, { 0, 2 }, { 2, 1 }, { 3, 3 },
	};
	struct ksp_wgraph *g = make_graph(4, e, ARRAY_SIZE(e));
	const uint32_t *nb;
	uint32_t src = 5, dst = 0;
	struct ksp_wgraph *bad = NULL;

	TS_ASSERT(g != NULL);
	TS_ASSERT_INT_EQ(ksp_wgraph_n(g), 4);
	TS_ASSERT_INT_EQ(ksp_wgraph_m(g), 4); /* 0->1 0->2 2->0 2->1 */
	TS_ASSERT_INT_EQ(ksp_wgraph_out_degree(g, 0), 2);
	TS_ASSERT_INT_EQ(ksp_wgraph_out_degree(g, 1), 0);
	TS_ASSERT_INT_EQ(ksp_wgraph_out_degree(g, 2), 2);
	TS_ASSERT_INT_EQ(ksp_wgraph_out_degree(g, 3), 0);
	TS_ASSERT_INT_EQ(ksp_wgraph_in_degree(g, 0), 1);
	TS_ASSERT_INT_EQ(ksp_wgraph_in_degree(g, 1), 2);
	TS_ASSERT_INT_EQ(ksp_wgraph_in_degree(g, 2), 1);
	TS_ASSERT_INT_EQ(ksp_wgraph_in_degree(g, 99), 0);
	TS_ASSERT_INT_EQ(ksp_wgraph_out_neighbors(g, 2, &nb), 2);
	TS_ASSERT(nb[0] == 0 && nb[1] == 1);
	TS_ASSERT_INT_EQ(ksp_wgraph_in_neighbors(g, 1, &nb), 2);
	TS_ASSERT(nb[0] == 0 && nb[1] == 2);
	ksp_wgraph_free(g);

	TS_ASSERT_INT_EQ(ksp_wgraph_new(4, &src, &dst, 1, &bad), -EINVAL);
	TS_ASSERT(bad == NULL);
	TS_ASSERT_INT_EQ(ksp_wgraph_new(0, NULL, NULL, 0, &bad), 0);
	TS_ASSERT_INT_EQ(ksp_wgraph_n(bad), 0);
	ksp_wgraph_free(bad);
	ksp_wgraph_free(NULL);
	return 0;
}
DEFINE_TEST(test_new_dedup, "ksp_wgraph_new: dedup, self-loops, degrees, sorted lists");

/* ---- hand-computed graphs --------------------------------------------- */

static int test_chain(void)
{
	static const struct edge e[] = { { 0, 1 }, { 1, 2 }, { 2, 3 } };
	struct ksp_wgraph *g = make_graph(4, e, ARRAY_SIZE(e));
	uint32_t comp[4], ncomp = 0, dist[4], parent[4], *ss = NULL, cnt = 0;
	uint32_t all[4] = { 0, 1, 2, 3 }, one = 2;
	uint64_t sums[4], hist[KSP_WGRAPH_MAX_DIST + 1];

	TS_ASSERT(g != NULL);
	TS_ASSERT_INT_EQ(ksp_wgraph_scc(g, comp, &ncomp), 0);
	TS_ASSERT_INT_EQ(ncomp, 4);
	/* Edges go from higher to lower component numbers. */
	TS_ASSERT(comp[0] > comp[1] && comp[1] > comp[2] && comp[2] > comp[3]);
	TS_ASSERT_INT_EQ(ksp_wgraph_strong_set(g, &ss, &cnt), 0);
	TS_ASSERT_INT_EQ(cnt, 1);
	TS_ASSERT_INT_EQ(ss[0], 0); /* tie: smallest vertex id */
	free(ss);

	TS_ASSERT_INT_EQ(ksp_wgraph_bfs(g, 0, false, dist, parent), 0);
	for (uint32_t i = 0; i < 4; i++)
		TS_ASSERT_INT_EQ(dist[i], i);
	TS_ASSERT_INT_EQ(parent[0], KSP_WGRAPH_NONE);
	TS_ASSERT_INT_EQ(parent[3], 2);
	TS_ASSERT_INT_EQ(ksp_wgraph_bfs(g, 3, true, dist, parent), 0);
	for (uint32_t i = 0; i < 4; i++)
		TS_ASSERT_INT_EQ(dist[i], 3 - i);
	TS_ASSERT_INT_EQ(parent[0], 1);
	TS_ASSERT_INT_EQ(ksp_wgraph_bfs(g, 2, false, dist, NULL), 0);
	TS_ASSERT_INT_EQ(dist[0], KSP_WGRAPH_NONE);
	TS_ASSERT_INT_EQ(dist[3], 1);
	TS_ASSERT_INT_EQ(ksp_wgraph_bfs(g, 4, false, dist, NULL), -EINVAL);

	TS_ASSERT_INT_EQ(ksp_wgraph_msd(g, all, 4, 2, sums, hist), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_wgraph_msd(g, &one, 1, 2, sums, hist), 0);
	TS_ASSERT_INT_EQ(sums[0], 0);
	TS_ASSERT_INT_EQ(hist[1], 0);
	ksp_wgraph_free(g);
	return 0;
}
DEFINE_TEST(test_chain, "chain: SCCs, tie-break, BFS both ways, MSD rejects non-SCC");

static int test_cycle(void)
{
	static const struct edge e[] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 0 } };
	struct ksp_wgraph *g = make_graph(4, e, ARRAY_SIZE(e));
	uint32_t comp[4], ncomp = 0, *ss = NULL, cnt = 0;
	uint64_t sums[4], hist[KSP_WGRAPH_MAX_DIST + 1];
	uint32_t dup[3] = { 0, 1, 1 };

	TS_ASSERT(g != NULL);
	TS_ASSERT_INT_EQ(ksp_wgraph_scc(g, comp, &ncomp), 0);
	TS_ASSERT_INT_EQ(ncomp, 1);
	TS_ASSERT_INT_EQ(ksp_wgraph_strong_set(g, &ss, &cnt), 0);
	TS_ASSERT_INT_EQ(cnt, 4);
	for (uint32_t nt = 0; nt <= 3; nt++) {
		TS_ASSERT_INT_EQ(ksp_wgraph_msd(g, ss, cnt, nt, sums, hist), 0);
		for (uint32_t i = 0; i < 4; i++)
			TS_ASSERT_INT_EQ(sums[i], 1 + 2 + 3);
		TS_ASSERT_INT_EQ(hist[0], 0);
		TS_ASSERT_INT_EQ(hist[1], 4);
		TS_ASSERT_INT_EQ(hist[2], 4);
		TS_ASSERT_INT_EQ(hist[3], 4);
		TS_ASSERT_INT_EQ(hist[4], 0);
	}
	/* Only the sub-path inside {0, 1}: not strongly connected. */
	TS_ASSERT_INT_EQ(ksp_wgraph_msd(g, ss, 2, 1, sums, NULL), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_wgraph_msd(g, dup, 3, 1, sums, NULL), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_wgraph_msd(g, ss, 0, 1, sums, NULL), -EINVAL);
	free(ss);
	ksp_wgraph_free(g);
	return 0;
}
DEFINE_TEST(test_cycle, "4-cycle: one SCC, every distance sum is 6");

static int test_two_islands(void)
{
	/* {0,1} 2-cycle, {2,3,4} 3-cycle, 1 -> 2 between them, 5 isolated. */
	static const struct edge e[] = {
		{ 0, 1 }, { 1, 0 }, { 2, 3 }, { 3, 4 }, { 4, 2 }, { 1, 2 },
	};
	struct ksp_wgraph *g = make_graph(6, e, ARRAY_SIZE(e));
	uint32_t comp[6], ncomp = 0, *ss = NULL, cnt = 0;
	uint64_t sums[3], hist[KSP_WGRAPH_MAX_DIST + 1];
	size_t inner = 0;

	TS_ASSERT(g != NULL);
	TS_ASSERT_INT_EQ(ksp_wgraph_scc(g, comp, &ncomp), 0);
	TS_ASSERT_INT_EQ(ncomp, 3);
	TS_ASSERT(comp[0] == comp[1] && comp[2] == comp[3] && comp[3] == comp[4]);
	TS_ASSERT(comp[0] != comp[2] && comp[5] != comp[0] && comp[5] != comp[2]);
	TS_ASSERT_INT_EQ(ksp_wgraph_strong_set(g, &ss, &cnt), 0);
	TS_ASSERT_INT_EQ(cnt, 3);
	TS_ASSERT(ss[0] == 2 && ss[1] == 3 && ss[2] == 4);
	TS_ASSERT_INT_EQ(ksp_wgraph_count_edges_within(g, ss, cnt, &inner), 0);
	TS_ASSERT_INT_EQ(inner, 3);
	TS_ASSERT_INT_EQ(ksp_wgraph_msd(g, ss, cnt, 2, sums, hist), 0);
	for (uint32_t i = 0; i < 3; i++)
		TS_ASSERT_INT_EQ(sums[i], 3);
	TS_ASSERT_INT_EQ(hist[1], 3);
	TS_ASSERT_INT_EQ(hist[2], 3);
	free(ss);
	ksp_wgraph_free(g);
	return 0;
}
DEFINE_TEST(test_two_islands, "two islands and an isolated vertex");

static int test_star(void)
{
	/* Centre 0, 0 <-> i for i = 1..4. */
	struct edge e[8];
	struct ksp_wgraph *g;
	uint32_t *ss = NULL, cnt = 0;
	uint64_t sums[5], hist[KSP_WGRAPH_MAX_DIST + 1], total = 0;

	for (uint32_t i = 1; i <= 4; i++) {
		e[2 * (i - 1)] = (struct edge){ 0, i };
		e[2 * (i - 1) + 1] = (struct edge){ i, 0 };
	}
	g = make_graph(5, e, 8);
	TS_ASSERT(g != NULL);
	TS_ASSERT_INT_EQ(ksp_wgraph_strong_set(g, &ss, &cnt), 0);
	TS_ASSERT_INT_EQ(cnt, 5);
	TS_ASSERT_INT_EQ(ksp_wgraph_msd(g, ss, cnt, 2, sums, hist), 0);
	TS_ASSERT_INT_EQ(sums[0], 4);
	for (uint32_t i = 1; i <= 4; i++)
		TS_ASSERT_INT_EQ(sums[i], 1 + 3 * 2);
	for (uint32_t i = 0; i < 5; i++)
		total += sums[i];
	TS_ASSERT_INT_EQ(total, 32); /* strong-set MSD 32 / 20 = 1.6 */
	TS_ASSERT_INT_EQ(hist[1], 8);
	TS_ASSERT_INT_EQ(hist[2], 12);
	TS_ASSERT_INT_EQ(hist[3], 0);
	free(ss);
	ksp_wgraph_free(g);
	return 0;
}
DEFINE_TEST(test_star, "bidirectional star: hand-computed sums and histogram");

static int test_largest_not_first(void)
{
	/* Tarjan from 0 completes {0,1} first; the strong set is {2,3,4}. */
	static const struct edge e1[] = {
		{ 0, 1 }, { 1, 0 }, { 2, 3 }, { 3, 4 }, { 4, 2 }, { 2, 0 },
	};
	/* Tie between {3,4} (completed first) and {1,2}: smallest id wins. */
	static const struct edge e2[] = { { 0, 3 }, { 3, 4 }, { 4, 3 }, { 1, 2 }, { 2, 1 } };
	struct ksp_wgraph *g = make_graph(5, e1, ARRAY_SIZE(e1));
	uint32_t comp[5], ncomp = 0, *ss = NULL, cnt = 0;

	TS_ASSERT(g != NULL);
	TS_ASSERT_INT_EQ(ksp_wgraph_scc(g, comp, &ncomp), 0);
	TS_ASSERT_INT_EQ(ncomp, 2);
	TS_ASSERT_INT_EQ(comp[0], 0);
	TS_ASSERT_INT_EQ(comp[2], 1);
	TS_ASSERT_INT_EQ(ksp_wgraph_strong_set(g, &ss, &cnt), 0);
	TS_ASSERT_INT_EQ(cnt, 3);
	TS_ASSERT(ss[0] == 2 && ss[1] == 3 && ss[2] == 4);
	free(ss);
	ksp_wgraph_free(g);

	g = make_graph(5, e2, ARRAY_SIZE(e2));
	TS_ASSERT(g != NULL);
	TS_ASSERT_INT_EQ(ksp_wgraph_scc(g, comp, &ncomp), 0);
	TS_ASSERT_INT_EQ(ncomp, 3);
	TS_ASSERT(comp[3] < comp[1]);
	TS_ASSERT_INT_EQ(ksp_wgraph_strong_set(g, &ss, &cnt), 0);
	TS_ASSERT_INT_EQ(cnt, 2);
	TS_ASSERT(ss[0] == 1 && ss[1] == 2);
	free(ss);
	ksp_wgraph_free(g);
	return 0;
}
DEFINE_TEST(test_largest_not_first, "strong set when the largest SCC is not found first; ties");

static int test_long_chain(void)
{
	const uint32_t n = 1000000;
	uint32_t *src = malloc(n * sizeof(uint32_t)), *dst = malloc(n * sizeof(uint32_t));
	uint32_t *comp = malloc(n * sizeof(uint32_t)), ncomp = 0, *ss = NULL, cnt = 0;
	struct ksp_wgraph *g = NULL;

	TS_ASSERT(src && dst && comp);
	for (uint32_t i = 0; i < n; i++) {
		src[i] = i;
		dst[i] = i + 1;
	}
	/* A chain of n - 1 edges: n components, DFS depth n. */
	TS_ASSERT_INT_EQ(ksp_wgraph_new(n, src, dst, n - 1, &g), 0);
	TS_ASSERT_INT_EQ(ksp_wgraph_scc(g, comp, &ncomp), 0);
	TS_ASSERT_INT_EQ(ncomp, n);
	ksp_wgraph_free(g);
	/* Close it: one cycle of n vertices. */
	dst[n - 1] = 0;
	TS_ASSERT_INT_EQ(ksp_wgraph_new(n, src, dst, n, &g), 0);
	TS_ASSERT_INT_EQ(ksp_wgraph_scc(g, comp, &ncomp), 0);
	TS_ASSERT_INT_EQ(ncomp, 1);
	TS_ASSERT_INT_EQ(ksp_wgraph_strong_set(g, &ss, &cnt), 0);
	TS_ASSERT_INT_EQ(cnt, n);
	TS_ASSERT(ss[0] == 0 && ss[n - 1] == n - 1);
	free(ss);
	ksp_wgraph_free(g);
	free(src);
	free(dst);
	free(comp);
	return 0;
}
DEFINE_TEST(test_long_chain, "10^6-vertex chain and cycle: iterative Tarjan");

/* Deterministic pseudo-random numbers for the test (xorshift). */
static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int test_msd_random_vs_bfs(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	for (int round = 0; round < 3; round++) {
		/* 1300: two full batches of 512 sources and a partial one;
		 * 300: a single partial batch. */
		const uint32_t n = round < 2 ? 1300 : 300;
		size_t m = n + 3 * n;
		struct edge *e = malloc(m * sizeof(*e));
		struct ksp_wgraph *g;
		uint32_t *ss = NULL, cnt = 0, *dist = malloc(n * sizeof(uint32_t));
		uint64_t *sums = malloc(n * sizeof(uint64_t)), *ref = calloc(n, sizeof(uint64_t));
		uint64_t *sums1 = malloc(n * sizeof(uint64_t));
		uint64_t hist[KSP_WGRAPH_MAX_DIST + 1], href[KSP_WGRAPH_MAX_DIST + 1] = { 0 };
		uint64_t hist1[KSP_WGRAPH_MAX_DIST + 1];

		TS_ASSERT(e && dist && sums && ref && sums1);
		/* A random graph, strongly connected by a 0 -> 1 -> ... -> 0
		 * cycle in round 0; the others keep only the random edges, with
		 * a partial cycle, so the strong set is a proper subset. */
		for (uint32_t i = 0; i < n; i++)
			e[i] = (struct edge){ i, (i + 1) % n };
		if (round > 0)
			for (uint32_t i = 0; i < n; i += 3 + (uint32_t)round)
				e[i] = (struct edge){ i, i };
		for (size_t i = n; i < m; i++)
			e[i] = (struct edge){ (uint32_t)(rnd_next(&seed) % n),
					      (uint32_t)(rnd_next(&seed) % n) };
		g = make_graph(n, e, m);
		TS_ASSERT(g != NULL);
		TS_ASSERT_INT_EQ(ksp_wgraph_strong_set(g, &ss, &cnt), 0);
		TS_ASSERT(cnt > (round < 2 ? 1024u : 64u)); /* batches: 3 or 1 */
		if (round == 0)
			TS_ASSERT_INT_EQ(cnt, n);

		/* Brute force: a BFS from each source; in an SCC the shortest
		 * paths between members stay inside it. */
		for (uint32_t a = 0; a < cnt; a++) {
			TS_ASSERT_INT_EQ(ksp_wgraph_bfs(g, ss[a], false, dist, NULL), 0);
			for (uint32_t b = 0; b < cnt; b++) {
				TS_ASSERT(dist[ss[b]] != KSP_WGRAPH_NONE);
				ref[b] += dist[ss[b]];
				if (a != b)
					href[dist[ss[b]]]++;
			}
		}
		TS_ASSERT_INT_EQ(ksp_wgraph_msd(g, ss, cnt, 1, sums1, hist1), 0);
		for (uint32_t b = 0; b < cnt; b++)
			TS_ASSERT_INT_EQ(sums1[b], ref[b]);
		for (uint32_t d = 0; d <= KSP_WGRAPH_MAX_DIST; d++)
			TS_ASSERT_INT_EQ(hist1[d], href[d]);
		/* Every direction choice (push only, pull only, mixed), the
		 * BFS order instead of the out-degree one, a search from every
		 * member (no key counting on its one neighbour), the copy of
		 * the search built for the baseline CPU as well as the one for
		 * POPCNT, and 1-4 threads taking the batches. */
		for (unsigned mode = 0; mode < 8; mode++)
			for (unsigned nt = 1; nt <= 4; nt++) {
				static const unsigned fl[] = { 0, KSP_WGRAPH_MSD_PUSH, KSP_WGRAPH_MSD_PULL,
							       KSP_WGRAPH_MSD_BFS_ORDER, KSP_WGRAPH_MSD_ALL_SOURCES,
							       KSP_WGRAPH_MSD_PULL | KSP_WGRAPH_MSD_BFS_ORDER |
								       KSP_WGRAPH_MSD_ALL_SOURCES,
							       KSP_WGRAPH_MSD_PORTABLE,
							       KSP_WGRAPH_MSD_PORTABLE | KSP_WGRAPH_MSD_PUSH };

				memset(sums, 0xa5, n * sizeof(uint64_t));
				TS_ASSERT_INT_EQ(ksp_wgraph_msd_ex(g, ss, cnt, nt, fl[mode], sums, hist), 0);
				for (uint32_t b = 0; b < cnt; b++)
					TS_ASSERT_INT_EQ(sums[b], ref[b]);
				for (uint32_t d = 0; d <= KSP_WGRAPH_MAX_DIST; d++)
					TS_ASSERT_INT_EQ(hist[d], href[d]);
			}
		free(ss);
		ksp_wgraph_free(g);
		free(e);
		free(dist);
		free(sums);
		free(sums1);
		free(ref);
	}
	return 0;
}
DEFINE_TEST(test_msd_random_vs_bfs, "MSD (push, pull, mixed; both orders; with and without keys counting on a neighbour; the portable and the POPCNT copy; 1-4 threads; 1 or 3 batches) equals a BFS per source");

/* ---- reference data ---------------------------------------------------- */

/* The directory holding the reference data (tests/data): from the
 * repository top (where make check runs the tests), else beside the test
 * binary (tests/unit/test-wot-graph).  NULL when neither exists. */
static char data_dir[PATH_MAX + 32];

static const char *find_data(void)
{
	char exe[PATH_MAX];
	struct stat st;
	ssize_t len;

	if (stat("tests/data/archlinux", &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(data_dir, sizeof(data_dir), "tests/data");
		return data_dir;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		char *slash;

		exe[len] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(data_dir, sizeof(data_dir), "%s/../data", exe);
			if (stat(data_dir, &st) == 0 && S_ISDIR(st.st_mode))
				return data_dir;
		}
	}
	return NULL;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0, k;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - len < 65536) {
			char *p = realloc(buf, cap + 65536 + 1);

			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
			cap += 65536;
		}
		k = fread(buf + len, 1, cap - len, f);
		len += k;
		if (k == 0)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* Value of integer field "key": after p (first occurrence); -1 if absent. */
static long long json_int(const char *p, const char *key)
{
	char pat[128];
	const char *q;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	q = strstr(p, pat);
	if (!q)
		return -1;
	return strtoll(q + strlen(pat), NULL, 10);
}

typedef char fpr_t[41];

static int cmp_fpr(const void *a, const void *b)
{
	return strcmp(*(const fpr_t *)a, *(const fpr_t *)b);
}

struct ranked {
	uint64_t sum;
	const char *fpr;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->sum != y->sum)
		return x->sum < y->sum ? -1 : 1;
	return strcmp(x->fpr, y->fpr);
}

/* Checks one keyring variant; 0 = pass, 1 = data missing (skipped), -1 = fail. */
static int check_variant(const char *keyring, const char *variant, bool report_time)
{
	static const char *const variants[] = { "structural", "design", "design_no_sha1" };
	const char *data = find_data();
	char path[2 * PATH_MAX], pat[64];
	char *json = NULL, *tsv = NULL, *vj, *line, *save = NULL;
	fpr_t *pairs = NULL, *uniq = NULL;
	size_t npairs = 0, cap = 0, nuniq = 0, i, inner = 0, vend;
	uint32_t *src = NULL, *dst = NULL, *comp = NULL, *ss = NULL, cnt = 0, ncomp = 0;
	uint64_t *sums = NULL, hist[KSP_WGRAPH_MAX_DIST + 1], total = 0, htotal = 0, hsum = 0;
	struct ksp_wgraph *g = NULL;
	struct ranked *rk = NULL;
	long long vertices;
	const char *p;
	double t0, t1;
	int ret = -1;

	if (!data) {
		/* part of the repository: missing data is a failure */
		fprintf(stderr, "FAIL: tests/data not found (git checkout tests/data): %s/%s\n", keyring, variant);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s/reference.json", data, keyring);
	json = slurp(path);
	snprintf(path, sizeof(path), "%s/%s/edges.%s.tsv", data, keyring, variant);
	tsv = slurp(path);
	if (!json || !tsv) {
		fprintf(stderr, "FAIL: %s missing (git checkout tests/data): %s/%s\n", path, keyring, variant);
		free(json);
		free(tsv);
		return -1;
	}

	/* The variant's object: from its key to the next variant key (or the
	 * end).  Each field is taken at its first occurrence in there. */
	p = strstr(json, "\"variants\"");
	TS_ASSERT(p != NULL);
	snprintf(pat, sizeof(pat), "\"%s\": {", variant);
	vj = strstr(p, pat);
	TS_ASSERT(vj != NULL);
	vend = strlen(vj);
	for (i = 0; i < ARRAY_SIZE(variants); i++) {
		char *q;

		snprintf(pat, sizeof(pat), "\"%s\": {", variants[i]);
		q = strstr(vj + 1, pat);
		if (q && (size_t)(q - vj) < vend)
			vend = (size_t)(q - vj);
	}
	vj[vend] = '\0';

	/* Edges: "FPR<TAB>FPR" per line. */
	for (line = strtok_r(tsv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		if (!*line || *line == '#')
			continue;
		TS_ASSERT(tab != NULL && tab - line == 40 && strlen(tab + 1) >= 40);
		if (npairs + 2 > cap) {
			fpr_t *np;

			cap = cap ? 2 * cap : 4096;
			np = realloc(pairs, cap * sizeof(fpr_t));
			TS_ASSERT(np != NULL);
			pairs = np;
		}
		memcpy(pairs[npairs], line, 40);
		pairs[npairs++][40] = '\0';
		memcpy(pairs[npairs], tab + 1, 40);
		pairs[npairs++][40] = '\0';
	}
	TS_ASSERT(npairs > 0);
	uniq = malloc(npairs * sizeof(fpr_t));
	TS_ASSERT(uniq != NULL);
	memcpy(uniq, pairs, npairs * sizeof(fpr_t));
	qsort(uniq, npairs, sizeof(fpr_t), cmp_fpr);
	for (i = 0; i < npairs; i++)
		if (nuniq == 0 || strcmp(uniq[nuniq - 1], uniq[i]) != 0)
			memmove(uniq[nuniq++], uniq[i], sizeof(fpr_t));

	/* Vertex ids: the fingerprints in sorted order, then the keys without
	 * any edge (not in the TSV) as ids nuniq..vertices-1. */
	vertices = json_int(vj, "vertices");
	TS_ASSERT(vertices >= (long long)nuniq);
	src = malloc(npairs / 2 * sizeof(uint32_t));
	dst = malloc(npairs / 2 * sizeof(uint32_t));
	TS_ASSERT(src && dst);
	for (i = 0; i < npairs; i++) {
		fpr_t *f = bsearch(pairs[i], uniq, nuniq, sizeof(fpr_t), cmp_fpr);

		TS_ASSERT(f != NULL);
		if (i % 2 == 0)
			src[i / 2] = (uint32_t)(f - uniq);
		else
			dst[i / 2] = (uint32_t)(f - uniq);
	}
	TS_ASSERT_INT_EQ(ksp_wgraph_new((uint32_t)vertices, src, dst, npairs / 2, &g), 0);
	TS_ASSERT_INT_EQ(ksp_wgraph_m(g), json_int(vj, "edges_distinct_signer_to_signee"));

	comp = malloc((size_t)vertices * sizeof(uint32_t));
	TS_ASSERT(comp != NULL);
	TS_ASSERT_INT_EQ(ksp_wgraph_scc(g, comp, &ncomp), 0);
	TS_ASSERT_INT_EQ(ncomp, json_int(vj, "scc_count"));
	TS_ASSERT_INT_EQ(ksp_wgraph_strong_set(g, &ss, &cnt), 0);
	TS_ASSERT_INT_EQ(cnt, json_int(vj, "strong_set_size"));
	TS_ASSERT(ss[cnt - 1] < nuniq);
	TS_ASSERT_INT_EQ(ksp_wgraph_count_edges_within(g, ss, cnt, &inner), 0);
	TS_ASSERT_INT_EQ(inner, json_int(vj, "strong_set_edges"));

	sums = malloc(cnt * sizeof(uint64_t));
	TS_ASSERT(sums != NULL);
	t0 = now_sec();
	TS_ASSERT_INT_EQ(ksp_wgraph_msd(g, ss, cnt, 2, sums, hist), 0);
	t1 = now_sec();
	if (report_time) {
		double t2, t3;

		TS_ASSERT_INT_EQ(ksp_wgraph_msd(g, ss, cnt, 1, sums, NULL), 0);
		t2 = now_sec();
		for (int rep = 0; rep < 10; rep++)
			TS_ASSERT_INT_EQ(ksp_wgraph_msd(g, ss, cnt, 2, sums, hist), 0);
		t3 = now_sec();
		fprintf(stderr,
			"%s/%s: MSD of the %u-key strong set: %.3f ms (2 threads), "
			"%.3f ms (1 thread), %.3f ms (2 threads, mean of 10)\n",
			keyring, variant, cnt, (t1 - t0) * 1e3, (t2 - t1) * 1e3,
			(t3 - t2) * 1e3 / 10);
	}
	for (i = 0; i < cnt; i++)
		total += sums[i];
	TS_ASSERT_INT_EQ(total, json_int(vj, "strong_set_distance_sum"));
	for (i = 0; i <= KSP_WGRAPH_MAX_DIST; i++) {
		htotal += hist[i];
		hsum += i * hist[i];
	}
	TS_ASSERT_INT_EQ(htotal, (uint64_t)cnt * (cnt - 1));
	TS_ASSERT_INT_EQ(hsum, total);

	/* Top 10 by MSD (= by sum: same denominator), then fingerprint. */
	rk = malloc(cnt * sizeof(*rk));
	TS_ASSERT(rk != NULL);
	for (i = 0; i < cnt; i++)
		rk[i] = (struct ranked){ sums[i], uniq[ss[i]] };
	qsort(rk, cnt, sizeof(*rk), cmp_ranked);
	p = strstr(vj, "\"top10_lowest_msd\"");
	TS_ASSERT(p != NULL);
	for (i = 0; i < 10 && i < cnt; i++) {
		char fpr[41];

		p = strstr(p, "\"fpr\": \"");
		TS_ASSERT(p != NULL);
		p += strlen("\"fpr\": \"");
		memcpy(fpr, p, 40);
		fpr[40] = '\0';
		TS_ASSERT_STR_EQ(rk[i].fpr, fpr);
		TS_ASSERT_INT_EQ(rk[i].sum, json_int(p, "distance_sum"));
	}

	/* Every key's MSD, from msd_all (rounded to 6 decimals). */
	p = strstr(vj, "\"msd_all\"");
	TS_ASSERT(p != NULL);
	for (i = 0; i < cnt; i++) {
		char key[48];
		const char *q;
		double msd, mine = (double)sums[i] / (double)(cnt - 1);

		snprintf(key, sizeof(key), "\"%s\":", uniq[ss[i]]);
		q = strstr(p, key);
		TS_ASSERT(q != NULL);
		msd = strtod(q + strlen(key), NULL);
		if (msd - mine > 1e-6 || mine - msd > 1e-6) {
			fprintf(stderr, "%s: MSD %f, reference %f\n", uniq[ss[i]], mine, msd);
			TS_ASSERT(false);
		}
	}
	fprintf(stderr, "%s/%s: %lld vertices, %zu edges, %u SCCs, strong set %u (%zu edges), "
		"distance sum %llu, MSD %.6f: ok\n",
		keyring, variant, vertices, ksp_wgraph_m(g), ncomp, cnt, inner,
		(unsigned long long)total, (double)total / ((double)cnt * (cnt - 1)));
	ret = 0;

	free(rk);
	free(sums);
	free(ss);
	free(comp);
	ksp_wgraph_free(g);
	free(src);
	free(dst);
	free(uniq);
	free(pairs);
	free(json);
	free(tsv);
	return ret;
}

static int test_archlinux(void)
{
	static const char *const v[] = { "structural", "design", "design_no_sha1" };

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		TS_ASSERT(check_variant("archlinux", v[i], false) >= 0);
	return 0;
}
DEFINE_TEST(test_archlinux, "Arch Linux keyring: SCCs, strong set, MSD match reference.json");

static int test_debian(void)
{
	static const char *const v[] = { "structural", "design", "design_no_sha1" };

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		TS_ASSERT(check_variant("debian-keyring", v[i], true) >= 0);
	return 0;
}
DEFINE_TEST(test_debian, "Debian keyring: SCCs, strong set, MSD match reference.json");
