/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A tiny unit-test harness (in the style of kmod's testsuite).
 *
 *   static int test_foo(void)
 *   {
 *           TS_ASSERT(foo() == 0);
 *           return 0;
 *   }
 *   DEFINE_TEST(test_foo, "foo() returns 0");
 *
 * Every DEFINE_TEST puts a pointer to a struct test into the ELF section
 * "ksp_tests"; harness.c walks it with the linker-made __start_ksp_tests and
 * __stop_ksp_tests symbols, so a test file needs no main() and no list.
 * Each test runs in its own forked child with a 60 second alarm; it passes
 * when it returns 0.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct test {
	const char *name;
	const char *description;
	int (*func)(void);
	const char *file;
	int line;
};

#define TS_CONCAT_(a, b) a##b
#define TS_CONCAT(a, b) TS_CONCAT_(a, b)

#define DEFINE_TEST(_fn, _description)                                                    \
	static const struct test TS_CONCAT(ts_test_, _fn) = {                              \
		.name = #_fn,                                                               \
		.description = (_description),                                              \
		.func = _fn,                                                                \
		.file = __FILE__,                                                           \
		.line = __LINE__,                                                           \
	};                                                                                  \
	static const struct test *const TS_CONCAT(ts_ptr_, _fn)                            \
		__attribute__((section("ksp_tests"), used, aligned(sizeof(void *)))) =      \
			&TS_CONCAT(ts_test_, _fn)

/* On failure: print where and what, and fail the test (return -1). */
#define TS_ASSERT(_expr)                                                                   \
	do {                                                                               \
		if (!(_expr)) {                                                            \
			fprintf(stderr, "%s:%d: %s: assertion failed: %s\n", __FILE__,    \
				__LINE__, __func__, #_expr);                               \
			return -1;                                                         \
		}                                                                          \
	} while (0)

/* Like TS_ASSERT, but also prints the two values. */
#define TS_ASSERT_INT_EQ(_a, _b)                                                           \
	do {                                                                               \
		long long ts_a_ = (long long)(_a), ts_b_ = (long long)(_b);                \
		if (ts_a_ != ts_b_) {                                                      \
			fprintf(stderr, "%s:%d: %s: assertion failed: %s == %s (%lld != %lld)\n", \
				__FILE__, __LINE__, __func__, #_a, #_b, ts_a_, ts_b_);     \
			return -1;                                                         \
		}                                                                          \
	} while (0)

#define TS_ASSERT_STR_EQ(_a, _b)                                                           \
	do {                                                                               \
		const char *ts_a_ = (_a), *ts_b_ = (_b);                                   \
		if (ts_a_ == NULL || ts_b_ == NULL || strcmp(ts_a_, ts_b_) != 0) {         \
			fprintf(stderr, "%s:%d: %s: assertion failed: %s == %s (\"%s\" != \"%s\")\n", \
				__FILE__, __LINE__, __func__, #_a, #_b,                    \
				ts_a_ ? ts_a_ : "(null)", ts_b_ ? ts_b_ : "(null)");        \
			return -1;                                                         \
		}                                                                          \
	} while (0)

/* Random inputs that a failing run can repeat: ts_rnd_seed() seeds from
 * the environment variable @env (a number) or else the clock, and prints
 * "@env=N" to stderr; ts_rnd() is xorshift64* (not for keys: for test
 * inputs), ts_rnd_bytes() fills @b with its top bytes.  One state per
 * process (each test runs in a child of its own). */
void ts_rnd_seed(const char *env);
uint64_t ts_rnd(void);
void ts_rnd_bytes(uint8_t *b, size_t n);
/* True under valgrind (KSP_VALGRIND=1): scale counts down. */
bool ts_slow(void);

/* A libksp context, libgcrypt initialised, and a new directory
 * /tmp/ksp-test-NAME.XXXXXX written into @dir (@size bytes); NULL on
 * failure.  ts_teardown() removes the directory and drops the context. */
struct ksp_ctx;
struct ksp_ctx *ts_setup(char *dir, size_t size, const char *name);
void ts_teardown(struct ksp_ctx *ctx, const char *dir);
