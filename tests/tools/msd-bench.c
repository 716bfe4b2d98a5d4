// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * msd-bench: time ksp_wgraph_msd() on the strong set of an edge list, and
 * print checksums of its output so that two builds can be compared.
 *
 * Usage: msd-bench EDGES [THREADS [REPEATS [push|pull]]]
 *   EDGES: one edge per line, "SIGNER SIGNEE" (decimal ids, separated by
 *   '|', a tab or a space), e.g. from
 *     sqlite3 -readonly ksp.db "SELECT ik.id, u.key_id FROM certs c
 *       JOIN uids u ON u.id = c.uid_id JOIN keys ik ON ik.fpr = c.issuer_fpr
 *       WHERE c.sig_type BETWEEN 16 AND 19 AND ik.id != u.key_id"
 *   THREADS: default 2.  push or pull forces the direction of every level;
 *   bfs (alone or after a comma: pull,bfs) relabels in BFS order; all
 *   searches from every source (no key counts on its one neighbour).
 *   Times are wall and process CPU seconds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/wot/wot-graph.h"

static double clk(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "msd-bench: %s\n", what);
	exit(2);
}

int main(int argc, char **argv)
{
	uint32_t *src = NULL, *dst = NULL, *ss = NULL, n = 0, cnt = 0, a, b;
	uint64_t *sums, hist[KSP_WGRAPH_MAX_DIST + 1], total = 0, fnv = 1469598103934665603u;
	size_t m = 0, cap = 0;
	unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
	int repeats = argc > 3 ? atoi(argv[3]) : 1;
	unsigned flags = argc > 4 ? (strncmp(argv[4], "push", 4) == 0   ? KSP_WGRAPH_MSD_PUSH :
				     strncmp(argv[4], "pull", 4) == 0 ? KSP_WGRAPH_MSD_PULL : 0) |
					    (strstr(argv[4], "bfs") ? KSP_WGRAPH_MSD_BFS_ORDER : 0) |
					    (strstr(argv[4], "all") ? KSP_WGRAPH_MSD_ALL_SOURCES : 0) : 0;
	struct ksp_wgraph *g;
	char line[256];
	FILE *f;

	if (argc < 2)
		die("usage: msd-bench EDGES [THREADS [REPEATS [push|pull|bfs|push,bfs|pull,bfs]]]");
	f = fopen(argv[1], "re");
	if (f == NULL)
		die("cannot open the edge list");
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *q;

		a = (uint32_t)strtoul(p, &q, 10);
		if (q == p)
			continue;
		p = q + 1;
		b = (uint32_t)strtoul(p, &q, 10);
		if (q == p)
			continue;
		if (m == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			src = realloc(src, cap * sizeof(*src));
			dst = realloc(dst, cap * sizeof(*dst));
			if (src == NULL || dst == NULL)
				die("out of memory");
		}
		src[m] = a;
		dst[m++] = b;
		if (a >= n)
			n = a + 1;
		if (b >= n)
			n = b + 1;
	}
	fclose(f);
	if (ksp_wgraph_new(n, src, dst, m, &g) < 0 || ksp_wgraph_strong_set(g, &ss, &cnt) < 0)
		die("cannot build the graph");
	sums = calloc(cnt ? cnt : 1, sizeof(*sums));
	if (sums == NULL)
		die("out of memory");
	printf("vertices %u, edges %zu, strong set %u\n", n, ksp_wgraph_m(g), cnt);
	for (int i = 0; i < repeats; i++) {
		double w0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
		int r = ksp_wgraph_msd_ex(g, ss, cnt, threads, flags, sums, hist);

		if (r < 0) {
			fprintf(stderr, "msd-bench: ksp_wgraph_msd: %s\n", strerror(-r));
			return 2;
		}
		printf("msd: %.3f s wall, %.3f s CPU, %u threads\n", clk(CLOCK_MONOTONIC) - w0,
		       clk(CLOCK_PROCESS_CPUTIME_ID) - c0, threads);
	}
	for (uint32_t i = 0; i < cnt; i++) {
		total += sums[i];
		for (int k = 0; k < 8; k++) {
			fnv ^= (sums[i] >> (8 * k)) & 0xff;
			fnv *= 1099511628211u;
		}
	}
	printf("distance sum %llu, sums fnv %016llx\nhist", (unsigned long long)total,
	       (unsigned long long)fnv);
	for (unsigned d = 0; d <= KSP_WGRAPH_MAX_DIST; d++)
		if (hist[d])
			printf(" %u:%llu", d, (unsigned long long)hist[d]);
	printf("\n");
	ksp_wgraph_free(g);
	free(ss);
	free(sums);
	free(src);
	free(dst);
	return 0;
}
