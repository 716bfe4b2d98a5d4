// SPDX-License-Identifier: LGPL-2.1-or-later
/* --model sequoia against sequoia-wot 0.2.0's own tests: every query of
 * tests/data/sequoia-wot/expected.tsv (extracted from the crate's Rust test
 * code by extract-expected.py there), on the crate's keyrings, must give
 * the expected total amount and the expected paths (keys and amounts, in
 * order). */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gcrypt.h>

#include <libksp.h>
#include "harness.h"

#define DATA "tests/data/sequoia-wot/"

static char dir[64];

static struct ksp_ctx *setup(void)
{
	return ts_setup(dir, sizeof(dir), "sq");
}

static void teardown(struct ksp_ctx *ctx)
{
	ts_teardown(ctx, dir);
}

/* the store of keyring @name, loaded on first use (the last one is kept) */
static struct ksp_store *store_of(struct ksp_ctx *ctx, const char *name)
{
	static struct ksp_store *st;
	static char have[128];
	char db[256], src[256];
	int fd;

	if (st && strcmp(have, name) == 0)
		return st;
	st = ksp_store_unref(st);
	have[0] = '\0';
	if (ctx == NULL)
		return NULL;
	snprintf(db, sizeof(db), "%s/%s.db", dir, name);
	snprintf(src, sizeof(src), DATA "%s", name);
	if (ksp_store_open(ctx, db, KSP_STORE_CREATE | KSP_STORE_READ_WRITE, &st) < 0)
		return NULL;
	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ksp_wot_load_fd(st, fd, src, 0, NULL, NULL, NULL) < 0) {
		fprintf(stderr, "%s: cannot load\n", src);
		if (fd >= 0)
			close(fd);
		st = ksp_store_unref(st);
		return NULL;
	}
	close(fd);
	snprintf(have, sizeof(have), "%s", name);
	return st;
}

/* the paths ksp found, in expected.tsv's form */
static void got_paths(const struct ksp_trust_sequoia *sq, char *buf, size_t size)
{
	size_t np = ksp_trust_sequoia_get_path_count(sq), o = 0;

	buf[0] = '\0';
	if (np == 0) {
		snprintf(buf, size, "-");
		return;
	}
	for (size_t i = 0; i < np && o < size; i++) {
		o += (size_t)snprintf(buf + o, size - o, "%s%d=", i ? ";" : "", ksp_trust_sequoia_get_path_amount(sq, i));
		for (size_t j = 0; j < ksp_trust_sequoia_get_path_length(sq, i) && o < size; j++)
			o += (size_t)snprintf(buf + o, size - o, "%s%s", j ? ">" : "", ksp_trust_sequoia_get_path_key(sq, i, j));
	}
}

/* the crate's tests in three parts (each has the harness's time limit,
 * under valgrind too): the big keyrings, the path-shape tests, and the rest
 * (the tests over several reference times, and any new one) */
static const char *const part_big[] = { "cliques", "infinity_and_beyond", NULL };
static const char *const part_paths[] = { "simple", "cycle", "roundabout", "local_optima", "multiple_userids_3",
					  "partially_trusted_roots", "self_signed", NULL };

static bool in(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

static int run_part(int part)
{
	struct ksp_ctx *ctx = setup();
	FILE *f;
	char line[65536], got[65536];
	unsigned pass = 0, fail = 0;

	TS_ASSERT(ctx != NULL);
	f = fopen(DATA "expected.tsv", "re");
	TS_ASSERT(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		char *col[10], *save = NULL, *p = line;
		struct ksp_trust_sequoia *sq = NULL;
		struct ksp_store *st;
		int64_t at;
		int n = 0, r;

		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (char *c = strtok_r(p, "\t", &save); c && n < 10; c = strtok_r(NULL, "\t", &save))
			col[n++] = c;
		TS_ASSERT_INT_EQ(n, 10);
		if ((part == 0) != in(part_big, col[0]) || (part == 1) != in(part_paths, col[0]))
			continue;
		at = strcmp(col[3], "now") == 0 ? (int64_t)time(NULL) : strtoll(col[3], NULL, 10);
		st = store_of(ctx, col[2]);
		TS_ASSERT(st != NULL);
		TS_ASSERT_INT_EQ(ksp_trust_sequoia_new(ctx, &sq), 0);
		{
			char *rs = strdup(col[4]), *s2 = NULL;
			TS_ASSERT(rs != NULL);
			for (char *x = strtok_r(rs, ",", &s2); x; x = strtok_r(NULL, ",", &s2)) {
				char *colon = strchr(x, ':');
				TS_ASSERT(colon != NULL);
				*colon = '\0';
				TS_ASSERT_INT_EQ(ksp_trust_sequoia_add_root(sq, x, atoi(colon + 1)), 0);
			}
			free(rs);
		}
		TS_ASSERT_INT_EQ(ksp_trust_sequoia_set_target_amount(sq, atoi(col[7])), 0);
		r = ksp_trust_sequoia_authenticate(sq, st, at, col[5], col[6], NULL);
		TS_ASSERT_INT_EQ(r, 0);
		got_paths(sq, got, sizeof(got));
		if (ksp_trust_sequoia_get_amount(sq) == atoi(col[8]) && strcmp(got, col[9]) == 0) {
			pass++;
		} else {
			fail++;
			fprintf(stderr, "sequoia %s #%s (%s): want %s: %s\n  got %d: %s\n", col[0], col[1], col[6], col[8],
				col[9], ksp_trust_sequoia_get_amount(sq), got);
		}
		ksp_trust_sequoia_free(sq);
	}
	fclose(f);
	store_of(NULL, "");
	fprintf(stderr, "sequoia-wot queries, part %d: %u passed, %u failed\n", part + 1, pass, fail);
	TS_ASSERT(pass > 0);
	TS_ASSERT_INT_EQ(fail, 0);
	teardown(ctx);
	return 0;
}

static int test_big(void)
{
	return run_part(0);
}
DEFINE_TEST(test_big, "sequoia-wot's authenticate tests on its big keyrings (cliques, infinity-and-beyond)");

static int test_paths(void)
{
	return run_part(1);
}
DEFINE_TEST(test_paths, "sequoia-wot's authenticate tests of path shapes, amounts, partial roots, self-signatures");

static int test_times(void)
{
	return run_part(2);
}
DEFINE_TEST(test_times, "sequoia-wot's authenticate tests over reference times (expiry, revocations, overrides)");
