// SPDX-License-Identifier: LGPL-2.1-or-later
/* main() for the unit tests: see harness.h. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

#include <gcrypt.h>

#include "libksp.h"
#include "harness.h"

#define TS_TIMEOUT 60

/* Weak, so that a test file without any test still links (and runs none). */
extern const struct test *const __start_ksp_tests __attribute__((weak, visibility("hidden")));
extern const struct test *const __stop_ksp_tests __attribute__((weak, visibility("hidden")));

static uint64_t rng_state;

void ts_rnd_seed(const char *env)
{
	const char *seed = getenv(env);

	rng_state = seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)clock();
	if (rng_state == 0)
		rng_state = 1;
	fprintf(stderr, "%s=%" PRIu64 "\n", env, rng_state);
}

uint64_t ts_rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

void ts_rnd_bytes(uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(ts_rnd() >> 56);
}

bool ts_slow(void)
{
	const char *v = getenv("KSP_VALGRIND");

	return v && strcmp(v, "1") == 0;
}

static int run_one(const struct test *t)
{
	pid_t pid;
	int status;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "FAIL %s: fork: %s\n", t->name, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int r;

		signal(SIGALRM, SIG_DFL);
		alarm(TS_TIMEOUT);
		r = t->func();
		fflush(stdout);
		fflush(stderr);
		exit(r == 0 ? EXIT_SUCCESS : EXIT_FAILURE);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "FAIL %s: waitpid: %s\n", t->name, strerror(errno));
			return -1;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("PASS %s\n", t->name);
		return 0;
	}
	if (WIFEXITED(status))
		printf("FAIL %s (%s): exit status %d\n", t->name, t->description, WEXITSTATUS(status));
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		printf("FAIL %s (%s): timed out after %d s\n", t->name, t->description, TS_TIMEOUT);
	else if (WIFSIGNALED(status))
		printf("FAIL %s (%s): killed by signal %d (%s)\n", t->name, t->description,
		       WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		printf("FAIL %s (%s): wait status 0x%x\n", t->name, t->description, (unsigned)status);
	return -1;
}

/* Definition order (the linker keeps the section in no particular order). */
static int cmp_tests(const void *a, const void *b)
{
	const struct test *x = *(const struct test *const *)a, *y = *(const struct test *const *)b;
	int c = strcmp(x->file, y->file);

	if (c != 0)
		return c;
	return (x->line > y->line) - (x->line < y->line);
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out, "Usage: %s [-l] [TEST...]\n"
		     "Run all tests, or only the named ones.\n"
		     "  -l   list the tests\n", prog);
}

int main(int argc, char *argv[])
{
	const struct test **start = NULL, **stop = NULL, **t;
	unsigned passed = 0, failed = 0;
	size_t n = 0;
	int i;

	/* keep PASS/FAIL lines in order with the tests' messages on stderr */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (&__start_ksp_tests != NULL && &__stop_ksp_tests != NULL) {
		uintptr_t a = (uintptr_t)&__start_ksp_tests, b = (uintptr_t)&__stop_ksp_tests;
		if (b > a)
			n = (b - a) / sizeof(const struct test *);
	}
	if (n > 0) {
		start = malloc(n * sizeof(*start));
		if (start == NULL) {
			fprintf(stderr, "%s: out of memory\n", argv[0]);
			return 2;
		}
		memcpy(start, &__start_ksp_tests, n * sizeof(*start));
		qsort(start, n, sizeof(*start), cmp_tests);
		stop = start + n;
	}
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout, argv[0]);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "-l") == 0) {
		for (t = start; t < stop; t++)
			printf("%-32s %s\n", (*t)->name, (*t)->description);
		free(start);
		return 0;
	}
	if (argc > 1 && argv[1][0] == '-') {
		usage(stderr, argv[0]);
		free(start);
		return 2;
	}
	/* check every name first, so that a typo does not look like a pass */
	for (i = 1; i < argc; i++) {
		for (t = start; t < stop; t++)
			if (strcmp((*t)->name, argv[i]) == 0)
				break;
		if (t == stop) {
			fprintf(stderr, "%s: no test named '%s' (-l lists them)\n", argv[0], argv[i]);
			free(start);
			return 2;
		}
	}
	for (t = start; t < stop; t++) {
		if (argc > 1) {
			for (i = 1; i < argc; i++)
				if (strcmp((*t)->name, argv[i]) == 0)
					break;
			if (i == argc)
				continue;
		}
		if (run_one(*t) == 0)
			passed++;
		else
			failed++;
	}
	free(start);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

struct ksp_ctx *ts_setup(char *dir, size_t size, const char *name)
{
	struct ksp_ctx *ctx = NULL;

	gcry_check_version(NULL);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	if ((size_t)snprintf(dir, size, "/tmp/ksp-test-%s.XXXXXX", name) >= size)
		return NULL;
	if (mkdtemp(dir) == NULL || ksp_new(&ctx) < 0)
		return NULL;
	return ctx;
}

void ts_teardown(struct ksp_ctx *ctx, const char *dir)
{
	char cmd[128];

	if ((size_t)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir) < sizeof(cmd) && system(cmd) != 0) {
		/* left behind in /tmp; harmless */
	}
	ksp_unref(ctx);
}
