// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for src/lib/input.c: a keyring read from a descriptor, its
 * pages given back behind the reader. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libksp.h"
#include "lib/input-private.h"
#include "harness.h"

#define FILE_MB 24

/* kB of this process's memory mapped from files (RssFile), -1 unknown */
static long rss_file_kb(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kb = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssFile: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static uint8_t byte_at(size_t i)
{
	return (uint8_t)(i * 2654435761u >> 13);
}

/* A temporary file of @len bytes of byte_at(), opened for reading (and
 * already unlinked): the descriptor, or -1. */
static int pattern_file(size_t len)
{
	const char *base = getenv("TMPDIR");
	char path[1024];
	uint8_t buf[65536];
	int fd;

	snprintf(path, sizeof(path), "%s/ksp-test-input.XXXXXX", base && *base ? base : "/tmp");
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -1;
	unlink(path);
	for (size_t off = 0; off < len; off += sizeof(buf)) {
		size_t n = len - off < sizeof(buf) ? len - off : sizeof(buf);
		for (size_t i = 0; i < n; i++)
			buf[i] = byte_at(off + i);
		if (write(fd, buf, n) != (ssize_t)n) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* Every byte is what was written. */
static int check_bytes(const struct ksp_input *in, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (in->data[i] != byte_at(i))
			return -1;
	return 0;
}

static int test_mapped_drop(void)
{
	const size_t len = ((size_t)FILE_MB << 20) + 12345;
	struct ksp_ctx *ctx = NULL;
	struct ksp_input in;
	size_t mark = 0;
	long before, full, after;
	int fd;

	TS_ASSERT_INT_EQ(ksp_new(&ctx), 0);
	fd = pattern_file(len);
	TS_ASSERT(fd >= 0);
	TS_ASSERT_INT_EQ(ksp_input_open(ctx, fd, "pattern", &in), 0);
	TS_ASSERT(in.map != NULL && in.buf == NULL);
	TS_ASSERT(in.len == len);
	before = rss_file_kb();
	TS_ASSERT_INT_EQ(check_bytes(&in, len), 0);
	full = rss_file_kb();

	/* less than a chunk: kept */
	ksp_input_drop(&in, &mark, in.data + 100000);
	TS_ASSERT_INT_EQ(mark, 0);
	/* a page-aligned part */
	ksp_input_drop(&in, &mark, in.data + (5u << 20) + 17);
	TS_ASSERT_INT_EQ(mark, 5u << 20);
	/* never backwards */
	ksp_input_drop(&in, &mark, in.data + (2u << 20));
	TS_ASSERT_INT_EQ(mark, 5u << 20);
	/* outside the mapping: nothing */
	ksp_input_drop(&in, &mark, &mark);
	TS_ASSERT_INT_EQ(mark, 5u << 20);
	/* the end: all of it, the last partial page too */
	ksp_input_drop(&in, &mark, in.data + len);
	after = rss_file_kb();
	/* not under valgrind, which maps the file for itself */
	if (before >= 0 && !getenv("KSP_VALGRIND")) {
		TS_ASSERT(full - before >= (FILE_MB - 1) * 1024);
		TS_ASSERT(full - after >= (FILE_MB - 1) * 1024);
	}
	/* a page given back and read again comes back from the file */
	TS_ASSERT_INT_EQ(check_bytes(&in, len), 0);
	ksp_input_close(&in);
	TS_ASSERT(in.map == NULL && in.data == NULL);
	close(fd);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_mapped_drop, "a mapped file: pages given back behind the reader, read again unchanged");

static int test_pipe_whole(void)
{
	const size_t len = 300000;
	struct ksp_ctx *ctx = NULL;
	struct ksp_input in;
	size_t mark = 0;
	int src, p[2];
	pid_t pid;

	TS_ASSERT_INT_EQ(ksp_new(&ctx), 0);
	src = pattern_file(len);
	TS_ASSERT(src >= 0);
	TS_ASSERT_INT_EQ(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	TS_ASSERT(pid >= 0);
	if (pid == 0) {
		uint8_t buf[4096];
		ssize_t n;
		close(p[0]);
		lseek(src, 0, SEEK_SET);
		while ((n = read(src, buf, sizeof(buf))) > 0)
			if (write(p[1], buf, (size_t)n) != n)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	TS_ASSERT_INT_EQ(ksp_input_open(ctx, p[0], "pipe", &in), 0);
	TS_ASSERT(in.map == NULL && in.buf != NULL);
	TS_ASSERT(in.len == len);
	TS_ASSERT_INT_EQ(check_bytes(&in, len), 0);
	/* read whole: nothing to give back */
	ksp_input_drop(&in, &mark, in.data + len);
	TS_ASSERT_INT_EQ(mark, 0);
	TS_ASSERT_INT_EQ(check_bytes(&in, len), 0);
	ksp_input_close(&in);
	close(p[0]);
	close(src);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_pipe_whole, "a pipe is read whole");

static int test_bad_fd(void)
{
	struct ksp_ctx *ctx = NULL;
	struct ksp_input in;
	const char *e;

	TS_ASSERT_INT_EQ(ksp_new(&ctx), 0);
	TS_ASSERT_INT_EQ(ksp_input_open(ctx, -1, "nothing.gpg", &in), -EBADF);
	e = ksp_get_error(ctx);
	TS_ASSERT(e && strstr(e, "nothing.gpg"));
	/* a directory: opened, but not read */
	int fd = open("/", O_RDONLY | O_CLOEXEC);
	TS_ASSERT(fd >= 0);
	TS_ASSERT_INT_EQ(ksp_input_open(ctx, fd, "dir", &in), -EISDIR);
	e = ksp_get_error(ctx);
	TS_ASSERT(e && strstr(e, "dir: cannot read"));
	close(fd);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_bad_fd, "a bad descriptor or a directory: a clear error");
