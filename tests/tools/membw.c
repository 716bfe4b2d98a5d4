// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * membw: a STREAM-like measure of this machine's memory bandwidth, for the
 * traffic bound of the MSD (bench/results-msd.md).
 *
 * Usage: membw MB [THREADS [huge]]
 *   Each thread owns an array of MB megabytes of 64-byte rows and reads it
 *   three ways: in order (copy to a second array, STREAM's "copy"), and
 *   one row at a time at random (indices from a table, every load
 *   independent, as the MSD's pull loads an in-neighbour's row).  Prints
 *   GB/s by the wall clock and GB per thread-CPU-second (the figure that
 *   holds on a machine shared with other work).  huge: the arrays in 2 MB
 *   pages (madvise), as the MSD's rows are.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

typedef struct {
	uint64_t w[8];
} __attribute__((aligned(64))) row;

struct arg {
	size_t rows;
	int mode; /* 0 copy, 1 random rows */
	int huge;
	double wall, cpu;
	uint64_t sink;
};

static double clk(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *run(void *p)
{
	struct arg *a = p;
	row *r = NULL, *d = NULL;
	uint32_t *idx = malloc(a->rows * sizeof(*idx));
	uint64_t s = 88172645463325252ull, acc = 0;
	double w0, c0;

	if (idx == NULL || posix_memalign((void **)&r, 2 << 20, a->rows * sizeof(row)) ||
	    posix_memalign((void **)&d, 2 << 20, a->rows * sizeof(row))) {
		fprintf(stderr, "membw: out of memory\n");
		exit(2);
	}
	if (a->huge) {
		(void)madvise(r, a->rows * sizeof(row), MADV_HUGEPAGE);
		(void)madvise(d, a->rows * sizeof(row), MADV_HUGEPAGE);
	}
	memset(r, 1, a->rows * sizeof(row));
	memset(d, 0, a->rows * sizeof(row));
	for (size_t i = 0; i < a->rows; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		idx[i] = (uint32_t)(s % a->rows);
	}
	w0 = clk(CLOCK_MONOTONIC);
	c0 = clk(CLOCK_THREAD_CPUTIME_ID);
	for (int rep = 0; rep < 5; rep++) {
		if (a->mode == 0) {
			memcpy(d, r, a->rows * sizeof(row));
			acc += d[rep].w[0];
		} else {
			for (size_t i = 0; i < a->rows; i++) {
				const row *x = &r[idx[i]];

				for (int k = 0; k < 8; k++)
					acc |= x->w[k];
			}
		}
	}
	a->wall = clk(CLOCK_MONOTONIC) - w0;
	a->cpu = clk(CLOCK_THREAD_CPUTIME_ID) - c0;
	a->sink = acc;
	free(r);
	free(d);
	free(idx);
	return NULL;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
	int nt = argc > 2 ? atoi(argv[2]) : 1;
	int huge = argc > 3 && strcmp(argv[3], "huge") == 0;
	static const char *const name[] = { "copy (read + write, in order)", "random 64-byte rows (read)" };

	if (mb == 0 || nt < 1 || nt > 64) {
		fprintf(stderr, "usage: membw MB [THREADS [huge]]\n");
		return 2;
	}
	for (int mode = 0; mode < 2; mode++) {
		struct arg a[64];
		pthread_t t[64];
		double bytes = (double)(mb << 20) * 5 * (mode == 0 ? 2 : 1), gbs = 0, cpu = 0;

		for (int i = 0; i < nt; i++) {
			a[i] = (struct arg){ .rows = (mb << 20) / 64, .mode = mode, .huge = huge };
			if (pthread_create(&t[i], NULL, run, &a[i]) != 0)
				return 2;
		}
		for (int i = 0; i < nt; i++) {
			pthread_join(t[i], NULL);
			gbs += bytes / a[i].wall / 1e9;
			cpu += a[i].cpu;
		}
		printf("%s, %zu MB x %d threads%s: %.2f GB/s (wall), %.2f GB per thread-CPU-second\n", name[mode],
		       mb, nt, huge ? " (2 MB pages)" : "", gbs, bytes * nt / cpu / 1e9);
	}
	return 0;
}
