// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for the trust engine's reachability (src/lib/trust/whatif.h,
 * ksp_trust_reach_new()): a query whose policy carries it must answer
 * exactly as the same query without it (verdict, paths found, reason,
 * message, every hop of every path), on the kernel.org sample
 * (tests/data/kernel-sample) now and ten years later, K = 1 and 2, with the hash
 * rules strict or not, per user ID or not, and with a key lost; with
 * verdict_only at K = 1 the verdict alone must be the same; one made for
 * another time or depth is not used. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <gcrypt.h>
#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/trust/whatif.h"
#include "lib/wot/wot-snap.h"
#include "harness.h"

static char dir[64];

/* tests/data from the repository top, else beside the test binary */
static int open_sample(void)
{
	char exe[PATH_MAX], p[PATH_MAX + 64];
	ssize_t len;
	int fd = open("tests/data/kernel-sample/kernel-sample.gpg", O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return -1;
	exe[len] = '\0';
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = '\0';
	snprintf(p, sizeof(p), "%s/../data/kernel-sample/kernel-sample.gpg", exe);
	return open(p, O_RDONLY | O_CLOEXEC);
}

struct fixture {
	struct ksp_ctx *ctx;
	struct ksp_store *store;
	char (*fpr)[65];
	size_t n;
};

static int setup(struct fixture *f)
{
	sqlite3_stmt *st = NULL;
	char db[96];
	int fd;

	memset(f, 0, sizeof(*f));
	gcry_check_version(NULL);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	snprintf(dir, sizeof(dir), "/tmp/ksp-test-reach.XXXXXX");
	if (mkdtemp(dir) == NULL || ksp_new(&f->ctx) < 0)
		return -1;
	snprintf(db, sizeof(db), "%s/k.db", dir);
	if (ksp_store_open(f->ctx, db, KSP_STORE_CREATE | KSP_STORE_READ_WRITE, &f->store) < 0)
		return -1;
	fd = open_sample();
	if (fd < 0) {
		fprintf(stderr, "FAIL: tests/data/kernel-sample/kernel-sample.gpg not found (git checkout tests/data)\n");
		return -1;
	}
	if (ksp_wot_load_fd(f->store, fd, "kernel-sample.gpg", 0, NULL, NULL, NULL) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	f->fpr = calloc(256, sizeof(*f->fpr));
	if (f->fpr == NULL ||
	    sqlite3_prepare_v2(ksp_store_db(f->store), "SELECT fpr FROM keys ORDER BY fpr", -1, &st, NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW && f->n < 256)
		snprintf(f->fpr[f->n++], 65, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return f->n > 10 ? 0 : -1;
}

static void teardown(struct fixture *f)
{
	char cmd[128];

	free(f->fpr);
	ksp_store_unref(f->store);
	ksp_unref(f->ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0) {
		/* left behind in /tmp; harmless */
	}
}

/* Two answers the same, path by path and hop by hop. */
static int same_result(const struct ksp_trust_result *a, const struct ksp_trust_result *b, bool verdict_only)
{
	TS_ASSERT_INT_EQ(ksp_trust_result_is_trusted(a), ksp_trust_result_is_trusted(b));
	if (verdict_only)
		return 0;
	TS_ASSERT_INT_EQ(ksp_trust_result_get_paths_found(a), ksp_trust_result_get_paths_found(b));
	TS_ASSERT_INT_EQ(ksp_trust_result_get_reason(a), ksp_trust_result_get_reason(b));
	if (strcmp(ksp_trust_result_get_message(a), ksp_trust_result_get_message(b)) != 0) {
		fprintf(stderr, "messages differ:\n  %s\n  %s\n", ksp_trust_result_get_message(a),
			ksp_trust_result_get_message(b));
		return -1;
	}
	TS_ASSERT_INT_EQ(ksp_trust_result_get_path_count(a), ksp_trust_result_get_path_count(b));
	for (size_t p = 0; p < ksp_trust_result_get_path_count(a); p++) {
		TS_ASSERT_INT_EQ(ksp_trust_result_get_path_length(a, p), ksp_trust_result_get_path_length(b, p));
		for (size_t i = 0; i < ksp_trust_result_get_path_length(a, p); i++) {
			const char *s1, *t1, *s2, *t2;
			int64_t c1, c2;
			TS_ASSERT(ksp_trust_result_get_hop(a, p, i, &s1, &t1, &c1, NULL, NULL) == 0);
			TS_ASSERT(ksp_trust_result_get_hop(b, p, i, &s2, &t2, &c2, NULL, NULL) == 0);
			TS_ASSERT(strcmp(s1, s2) == 0 && strcmp(t1, t2) == 0 && c1 == c2);
		}
	}
	return 0;
}

/* A reachability for another time or depth is not used. */
static int check_stale(struct fixture *f)
{
	struct ksp_trust_policy *pol = NULL;
	struct ksp_trust_reach *reach = NULL;
	struct ksp_trust_whatif wi = { 0 };
	struct ksp_trust_result *a = NULL, *b = NULL;

	TS_ASSERT(ksp_trust_policy_new(f->ctx, &pol) == 0);
	/* no core: no reachability */
	TS_ASSERT_INT_EQ(ksp_trust_reach_new(f->store, pol, 1796083200, NULL, &reach), -EINVAL);
	TS_ASSERT(ksp_trust_policy_add_core(pol, f->fpr[0]) == 0);
	TS_ASSERT_INT_EQ(ksp_trust_reach_new(f->store, pol, 1796083200, NULL, &reach), 0);
	/* asked at another time or with another depth: not used */
	wi.reach = reach;
	wi.verdict_only = true;
	ksp_trust_policy_set_whatif(pol, &wi);
	TS_ASSERT(ksp_trust_check(f->store, pol, f->fpr[1], 1796083200 + 86400, &a) == 0);
	ksp_trust_policy_set_max_depth(pol, 4);
	TS_ASSERT(ksp_trust_check(f->store, pol, f->fpr[1], 1796083200, &b) == 0);
	ksp_trust_policy_set_whatif(pol, NULL);
	/* a verdict-only answer has no path; these explored, so they do */
	TS_ASSERT(!ksp_trust_result_is_trusted(a) || ksp_trust_result_get_path_count(a) > 0);
	TS_ASSERT(!ksp_trust_result_is_trusted(b) || ksp_trust_result_get_path_count(b) > 0);
	ksp_trust_result_free(a);
	ksp_trust_result_free(b);
	ksp_trust_reach_free(reach);
	ksp_trust_policy_free(pol);
	return 0;
}

/* Every key of the store asked with @pol (its what-if @wi, reach unset)
 * and again with the reachability; *shortcut counts the answers given
 * without exploring (fewer keys explored). */
static int compare_all(struct fixture *f, struct ksp_trust_policy *pol, struct ksp_trust_whatif *wi, int64_t at,
		       const struct ksp_trust_reach *like, bool verdict_only, size_t *shortcut)
{
	struct ksp_trust_reach *reach = NULL;
	int r = -1;

	wi->reach = NULL;
	wi->verdict_only = false;
	ksp_trust_policy_set_whatif(pol, wi);
	TS_ASSERT_INT_EQ(ksp_trust_reach_new(f->store, pol, at, like, &reach), 0);
	for (size_t i = 0; i < f->n; i++) {
		struct ksp_trust_result *a = NULL, *b = NULL;
		wi->reach = NULL;
		wi->verdict_only = false;
		if (ksp_trust_check(f->store, pol, f->fpr[i], at, &a) < 0)
			goto out;
		wi->reach = reach;
		wi->verdict_only = verdict_only;
		if (ksp_trust_check(f->store, pol, f->fpr[i], at, &b) < 0) {
			ksp_trust_result_free(a);
			goto out;
		}
		if (same_result(a, b, verdict_only) < 0) {
			fprintf(stderr, "key %s at %lld, K = %d: the answers differ\n", f->fpr[i], (long long)at,
				ksp_trust_policy_get_min_paths(pol));
			ksp_trust_result_free(a);
			ksp_trust_result_free(b);
			goto out;
		}
		if (ksp_trust_result_get_explored(b) < ksp_trust_result_get_explored(a))
			(*shortcut)++;
		ksp_trust_result_free(a);
		ksp_trust_result_free(b);
	}
	r = 0;
out:
	wi->reach = NULL;
	ksp_trust_reach_free(reach);
	return r;
}

static int test_reach_same_answers(void)
{
	struct fixture f;
	struct ksp_trust_policy *pol = NULL;
	struct ksp_trust_whatif wi = { 0 };
	struct ksp_trust_reach *plain = NULL;
	uint8_t *lost = NULL;
	struct ksp_wsnap *g = NULL;
	size_t shortcut = 0, verdicts = 0;
	/* 2026-12-01 and later: keys and certifications expire on the way */
	static const int64_t dates[] = { 1796083200, 1796083200 + 3650 * 86400 };
	int r = -1;

	TS_ASSERT(setup(&f) == 0);
	TS_ASSERT(ksp_trust_policy_new(f.ctx, &pol) == 0);
	/* Linus Torvalds' key and one other: the core */
	for (size_t i = 0; i < f.n; i++)
		if (strcmp(f.fpr[i] + 24, "79BE3E4300411886") == 0 || i == f.n / 2)
			TS_ASSERT(ksp_trust_policy_add_core(pol, f.fpr[i]) == 0);
	TS_ASSERT_INT_EQ(ksp_trust_policy_get_core_count(pol), 2);
	TS_ASSERT(ksp_wsnap_get(f.store, &g) == 0);
	lost = calloc(g->n, 1);
	TS_ASSERT(lost != NULL);
	for (int k = 1; k <= 2; k++)
		for (int variant = 0; variant < 3; variant++)
			for (size_t d = 0; d < sizeof(dates) / sizeof(dates[0]); d++) {
				ksp_trust_policy_set_min_paths(pol, k);
				ksp_trust_policy_set_sha1(pol, variant != 1);
				ksp_trust_policy_set_per_uid(pol, variant == 2);
				ksp_trust_policy_set_max_depth(pol, variant == 2 ? 3 : 5);
				wi = (struct ksp_trust_whatif){ 0 };
				if (compare_all(&f, pol, &wi, dates[d], NULL, false, &shortcut) < 0)
					goto out;
				if (k == 1 && compare_all(&f, pol, &wi, dates[d], NULL, true, &verdicts) < 0)
					goto out;
			}
	/* a key lost (what a single-point-of-failure candidate asks), the
	 * reachability made like the plain one */
	ksp_trust_policy_set_sha1(pol, true);
	ksp_trust_policy_set_per_uid(pol, false);
	ksp_trust_policy_set_max_depth(pol, 5);
	wi = (struct ksp_trust_whatif){ 0 };
	ksp_trust_policy_set_whatif(pol, NULL);
	TS_ASSERT(ksp_trust_reach_new(f.store, pol, dates[0], NULL, &plain) == 0);
	for (int k = 1; k <= 2; k++)
		for (uint32_t x = 0; x < g->n; x += 20) {
			ksp_trust_policy_set_min_paths(pol, k);
			memset(lost, 0, g->n);
			lost[x] = 1;
			wi = (struct ksp_trust_whatif){ .lost = lost };
			if (compare_all(&f, pol, &wi, dates[0], plain, false, &shortcut) < 0 ||
			    (k == 1 && compare_all(&f, pol, &wi, dates[0], plain, true, &verdicts) < 0))
				goto out;
		}
	/* the shortcuts were taken (else the comparison proves nothing) */
	TS_ASSERT(shortcut > 100);
	TS_ASSERT(verdicts > shortcut / 4);
	r = check_stale(&f);
out:
	ksp_trust_policy_set_whatif(pol, NULL);
	ksp_trust_reach_free(plain);
	free(lost);
	ksp_trust_policy_free(pol);
	teardown(&f);
	return r;
}
DEFINE_TEST(test_reach_same_answers, "a query with the reachability answers as without it (kernel sample)");

