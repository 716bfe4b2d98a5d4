// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for src/shared/util.h and src/shared/strbuf.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "shared/strbuf.h"
#include "shared/util.h"
#include "harness.h"

/* ---- helpers ---------------------------------------------------------- */

/* A fresh private directory; "" on failure.  Each test runs in its own
 * child, so a static buffer is fine. */
static char tmpdir[1024];

static const char *make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/ksp-test-util.XXXXXX", base && *base ? base : "/tmp");
	if (mkdtemp(tmpdir) == NULL)
		tmpdir[0] = '\0';
	return tmpdir;
}

/* Remove the files in tmpdir (flat) and tmpdir itself. */
static void remove_tmpdir(void)
{
	char cmd[sizeof(tmpdir) + 16];

	if (tmpdir[0] == '\0')
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", tmpdir);
	tmpdir[0] = '\0';
}

static int write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int r;

	if (fd < 0)
		return -errno;
	r = write_all(fd, data, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

/* Number of entries in tmpdir other than . and .. */
static int count_entries(const char *dir)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	if (p == NULL)
		return -1;
	if (fscanf(p, "%d", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

/* ---- parse_date / format_date ---------------------------------------- */

static int test_parse_date_valid(void)
{
	int64_t t = -1;

	TS_ASSERT_INT_EQ(parse_date("1970-01-01", &t), 0);
	TS_ASSERT_INT_EQ(t, 0);
	TS_ASSERT_INT_EQ(parse_date("2000-01-01", &t), 0);
	TS_ASSERT_INT_EQ(t, 946684800);
	TS_ASSERT_INT_EQ(parse_date("2024-03-15", &t), 0);
	TS_ASSERT_INT_EQ(t, 1710460800);
	TS_ASSERT_INT_EQ(parse_date("2024-03-15T12:34:56Z", &t), 0);
	TS_ASSERT_INT_EQ(t, 1710460800 + 12 * 3600 + 34 * 60 + 56);
	TS_ASSERT_INT_EQ(parse_date("2024-03-15T12:34:56", &t), 0);
	TS_ASSERT_INT_EQ(t, 1710460800 + 12 * 3600 + 34 * 60 + 56);
	TS_ASSERT_INT_EQ(parse_date("2024-03-15 00:00:01", &t), 0);
	TS_ASSERT_INT_EQ(t, 1710460801);
	TS_ASSERT_INT_EQ(parse_date("2038-01-19T03:14:08Z", &t), 0);
	TS_ASSERT_INT_EQ(t, 2147483648LL); /* past the 32-bit time_t limit */
	TS_ASSERT_INT_EQ(parse_date("1999-12-31T23:59:59Z", &t), 0);
	TS_ASSERT_INT_EQ(t, 946684799);
	return 0;
}
DEFINE_TEST(test_parse_date_valid, "parse_date: dates and date-times in UTC");

static int test_parse_date_leap(void)
{
	int64_t t = -1;

	TS_ASSERT_INT_EQ(parse_date("2024-02-29", &t), 0); /* divisible by 4 */
	TS_ASSERT_INT_EQ(t, 1709164800);
	TS_ASSERT_INT_EQ(parse_date("2000-02-29", &t), 0); /* divisible by 400 */
	TS_ASSERT_INT_EQ(t, 951782400);
	TS_ASSERT_INT_EQ(parse_date("2024-03-01", &t), 0);
	TS_ASSERT_INT_EQ(t, 1709164800 + 86400);
	t = 42;
	TS_ASSERT_INT_EQ(parse_date("2023-02-29", &t), -EINVAL);
	TS_ASSERT_INT_EQ(parse_date("2100-02-29", &t), -EINVAL); /* century, not /400 */
	TS_ASSERT_INT_EQ(parse_date("1900-02-29", &t), -EINVAL);
	TS_ASSERT_INT_EQ(parse_date("2024-02-30", &t), -EINVAL);
	TS_ASSERT_INT_EQ(t, 42); /* untouched on failure */
	return 0;
}
DEFINE_TEST(test_parse_date_leap, "parse_date: leap years (4, 100, 400)");

static int test_parse_date_invalid(void)
{
	static const char *const bad[] = {
		"", "2024", "2024-1-05", "2024-01-5", "24-01-05", "2024/01/05", "2024-00-10",
		"2024-13-01", "2024-01-00", "2024-01-32", "2024-04-31", "2024-06-31",
		"2024-09-31", "2024-11-31", "1969-12-31", "2024-01-05x", "2024-01-05 ",
		"2024-01-05T", "2024-01-05T24:00:00", "2024-01-05T12:60:00",
		"2024-01-05T12:00:61", "2024-01-05T12:00", "2024-01-05T12:00:00ZZ",
		"2024-01-05T12:00:00+01:00", " 2024-01-05", "abcd-ef-gh", "@", "@12x",
		"@ ", "@0x10", "@99999999999999999999999",
	};
	int64_t t = 7;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse_date(bad[i], &t) != -EINVAL) {
			fprintf(stderr, "parse_date accepted \"%s\" (-> %lld)\n", bad[i], (long long)t);
			TS_ASSERT(!"invalid date accepted");
		}
	}
	TS_ASSERT_INT_EQ(t, 7);
	TS_ASSERT_INT_EQ(parse_date(NULL, &t), -EINVAL);
	return 0;
}
DEFINE_TEST(test_parse_date_invalid, "parse_date: malformed and impossible dates rejected");

static int test_parse_date_epoch(void)
{
	int64_t t = -1;

	TS_ASSERT_INT_EQ(parse_date("@0", &t), 0);
	TS_ASSERT_INT_EQ(t, 0);
	TS_ASSERT_INT_EQ(parse_date("@1710460800", &t), 0);
	TS_ASSERT_INT_EQ(t, 1710460800);
	TS_ASSERT_INT_EQ(parse_date("@4102444800", &t), 0); /* 2100-01-01 */
	TS_ASSERT_INT_EQ(t, 4102444800LL);
	TS_ASSERT_INT_EQ(parse_date("@-86400", &t), 0);
	TS_ASSERT_INT_EQ(t, -86400);
	return 0;
}
DEFINE_TEST(test_parse_date_epoch, "parse_date: @EPOCH seconds");

static int test_format_date(void)
{
	char buf[32];
	int64_t t;

	format_date(0, buf, sizeof(buf));
	TS_ASSERT_STR_EQ(buf, "1970-01-01");
	format_date(1709164800, buf, sizeof(buf));
	TS_ASSERT_STR_EQ(buf, "2024-02-29");
	format_date(1709164800 + 86399, buf, sizeof(buf));
	TS_ASSERT_STR_EQ(buf, "2024-02-29");
	format_date(2147483648LL, buf, sizeof(buf));
	TS_ASSERT_STR_EQ(buf, "2038-01-19");
	format_date(946684800, buf, 11); /* exactly the documented minimum */
	TS_ASSERT_STR_EQ(buf, "2000-01-01");
	format_datetime(1710460800 + 12 * 3600 + 34 * 60 + 56, buf, sizeof(buf));
	TS_ASSERT_STR_EQ(buf, "2024-03-15T12:34:56Z");
	format_datetime(0, buf, 21);
	TS_ASSERT_STR_EQ(buf, "1970-01-01T00:00:00Z");

	/* round trip */
	for (int64_t d = 0; d < 200 * 365; d += 97) {
		format_date(d * 86400, buf, sizeof(buf));
		TS_ASSERT_INT_EQ(parse_date(buf, &t), 0);
		TS_ASSERT_INT_EQ(t, d * 86400);
	}
	return 0;
}
DEFINE_TEST(test_format_date, "format_date/format_datetime, and round trip through parse_date");

/* ---- hex ---------------------------------------------------------------- */

static int test_hex_encode(void)
{
	static const uint8_t in[] = { 0x00, 0x01, 0xab, 0xcd, 0xef, 0xff, 0x7f, 0x80 };
	char out[2 * sizeof(in) + 1];

	memset(out, 'x', sizeof(out));
	hex_encode(in, sizeof(in), out);
	TS_ASSERT_STR_EQ(out, "0001ABCDEFFF7F80");
	hex_encode(in, 0, out);
	TS_ASSERT_STR_EQ(out, "");
	return 0;
}
DEFINE_TEST(test_hex_encode, "hex_encode: upper case, NUL-terminated");

static int test_hex_decode(void)
{
	uint8_t out[8];

	memset(out, 0, sizeof(out));
	TS_ASSERT_INT_EQ(hex_decode("0001abCDeF", out, sizeof(out)), 5);
	TS_ASSERT(memcmp(out, "\x00\x01\xab\xcd\xef", 5) == 0);
	TS_ASSERT_INT_EQ(hex_decode("0xDEADbeef", out, sizeof(out)), 4);
	TS_ASSERT(memcmp(out, "\xde\xad\xbe\xef", 4) == 0);
	TS_ASSERT_INT_EQ(hex_decode("0XDE AD\tBE EF", out, sizeof(out)), 4);
	TS_ASSERT(memcmp(out, "\xde\xad\xbe\xef", 4) == 0);
	TS_ASSERT_INT_EQ(hex_decode("", out, sizeof(out)), 0);
	TS_ASSERT_INT_EQ(hex_decode("0", out, sizeof(out)), -EINVAL);      /* odd */
	TS_ASSERT_INT_EQ(hex_decode("abc", out, sizeof(out)), -EINVAL);    /* odd */
	TS_ASSERT_INT_EQ(hex_decode("zz", out, sizeof(out)), -EINVAL);
	TS_ASSERT_INT_EQ(hex_decode("12-34", out, sizeof(out)), -EINVAL);
	TS_ASSERT_INT_EQ(hex_decode("00112233445566778899", out, sizeof(out)), -EINVAL); /* too long */
	TS_ASSERT_INT_EQ(hex_decode("0011223344556677", out, sizeof(out)), 8);            /* exactly fits */
	return 0;
}
DEFINE_TEST(test_hex_decode, "hex_decode: case, spaces, 0x, odd length, overflow");

static int test_fpr_normalize(void)
{
	static const char v4[] = "0123456789ABCDEF0123456789ABCDEF01234567";
	static const char v5[] = "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF";
	char out[65];

	TS_ASSERT_INT_EQ(fpr_normalize(v4, out), 0);
	TS_ASSERT_STR_EQ(out, v4);
	TS_ASSERT_INT_EQ(fpr_normalize("0123 4567 89ab cdef 0123  4567 89AB CDEF 0123 4567", out), 0);
	TS_ASSERT_STR_EQ(out, v4);
	TS_ASSERT_INT_EQ(fpr_normalize("0x0123456789abcdef0123456789abcdef01234567", out), 0);
	TS_ASSERT_STR_EQ(out, v4);
	TS_ASSERT_INT_EQ(fpr_normalize("0X0123456789ABCDEF0123456789ABCDEF01234567", out), 0);
	TS_ASSERT_STR_EQ(out, v4);
	TS_ASSERT_INT_EQ(fpr_normalize("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", out), 0);
	TS_ASSERT_STR_EQ(out, v5);

	strcpy(out, "untouched");
	/* wrong lengths: short ids, 39/41/42/63/66 digits */
	TS_ASSERT_INT_EQ(fpr_normalize("89ABCDEF01234567", out), -EINVAL);
	TS_ASSERT_INT_EQ(fpr_normalize("89ABCDEF", out), -EINVAL);
	TS_ASSERT_INT_EQ(fpr_normalize("0123456789ABCDEF0123456789ABCDEF0123456", out), -EINVAL);
	TS_ASSERT_INT_EQ(fpr_normalize("0123456789ABCDEF0123456789ABCDEF012345678", out), -EINVAL);
	TS_ASSERT_INT_EQ(fpr_normalize("0123456789ABCDEF0123456789ABCDEF0123456789", out), -EINVAL);
	TS_ASSERT_INT_EQ(fpr_normalize("0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDE", out), -EINVAL);
	TS_ASSERT_INT_EQ(fpr_normalize("0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF01", out), -EINVAL);
	TS_ASSERT_INT_EQ(fpr_normalize("", out), -EINVAL);
	TS_ASSERT_INT_EQ(fpr_normalize(NULL, out), -EINVAL);
	/* not hex */
	TS_ASSERT_INT_EQ(fpr_normalize("G123456789ABCDEF0123456789ABCDEF01234567", out), -EINVAL);
	TS_ASSERT_INT_EQ(fpr_normalize("0123456789ABCDEF0123456789ABCDEF0123456:", out), -EINVAL);
	TS_ASSERT_STR_EQ(out, "untouched");
	return 0;
}
DEFINE_TEST(test_fpr_normalize, "fpr_normalize: spaces, lower case, 0x; wrong lengths rejected");

/* ---- files -------------------------------------------------------------- */

static int test_read_file_all(void)
{
	char path[PATH_MAX], big[PATH_MAX], empty[PATH_MAX];
	uint8_t *data = NULL, *blob;
	size_t len = 0, n = 300000;
	int r;

	TS_ASSERT(make_tmpdir()[0] != '\0');
	snprintf(path, sizeof(path), "%s/small", tmpdir);
	snprintf(big, sizeof(big), "%s/big", tmpdir);
	snprintf(empty, sizeof(empty), "%s/empty", tmpdir);

	TS_ASSERT_INT_EQ(write_file(path, "hello\0world", 11), 0);
	TS_ASSERT_INT_EQ(read_file_all(path, 0, &data, &len), 0);
	TS_ASSERT_INT_EQ(len, 11);
	TS_ASSERT(memcmp(data, "hello\0world", 11) == 0);
	TS_ASSERT_INT_EQ(data[11], 0); /* NUL after the data */
	free(data);
	data = NULL;

	/* limits */
	TS_ASSERT_INT_EQ(read_file_all(path, 11, &data, &len), 0);
	free(data);
	data = NULL;
	TS_ASSERT_INT_EQ(read_file_all(path, 10, &data, &len), -EFBIG);
	TS_ASSERT(data == NULL);

	/* empty file */
	TS_ASSERT_INT_EQ(write_file(empty, "", 0), 0);
	len = 99;
	TS_ASSERT_INT_EQ(read_file_all(empty, 0, &data, &len), 0);
	TS_ASSERT(data != NULL);
	TS_ASSERT_INT_EQ(len, 0);
	TS_ASSERT_INT_EQ(data[0], 0);
	free(data);
	data = NULL;

	/* larger than the first buffer, with a pattern */
	blob = malloc(n);
	TS_ASSERT(blob != NULL);
	for (size_t i = 0; i < n; i++)
		blob[i] = (uint8_t)(i * 7 + i / 251);
	TS_ASSERT_INT_EQ(write_file(big, blob, n), 0);
	r = read_file_all(big, 0, &data, &len);
	if (r == 0 && len == n && memcmp(data, blob, n) == 0 && data[n] == 0)
		r = 1;
	free(blob);
	free(data);
	data = NULL;
	TS_ASSERT_INT_EQ(r, 1);
	TS_ASSERT_INT_EQ(read_file_all(big, 65536, &data, &len), -EFBIG);

	/* errors */
	snprintf(path, sizeof(path), "%s/missing", tmpdir);
	TS_ASSERT_INT_EQ(read_file_all(path, 0, &data, &len), -ENOENT);
	TS_ASSERT_INT_EQ(read_file_all(tmpdir, 0, &data, &len), -EISDIR);
	TS_ASSERT(data == NULL);
	remove_tmpdir();
	return 0;
}
DEFINE_TEST(test_read_file_all, "read_file_all: contents, trailing NUL, max_size, errors");

static int test_read_file_all_stdin(void)
{
	char path[PATH_MAX];
	uint8_t *data = NULL;
	size_t len = 0;
	int fd;

	TS_ASSERT(make_tmpdir()[0] != '\0');
	snprintf(path, sizeof(path), "%s/in", tmpdir);
	TS_ASSERT_INT_EQ(write_file(path, "from stdin\n", 11), 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	TS_ASSERT(fd >= 0);
	TS_ASSERT(dup2(fd, STDIN_FILENO) == STDIN_FILENO);
	close(fd);
	TS_ASSERT_INT_EQ(read_file_all("-", 0, &data, &len), 0);
	TS_ASSERT_INT_EQ(len, 11);
	TS_ASSERT(memcmp(data, "from stdin\n", 11) == 0);
	free(data);
	remove_tmpdir();
	return 0;
}
DEFINE_TEST(test_read_file_all_stdin, "read_file_all: \"-\" reads stdin");

static int test_atomic_file_success(void)
{
	struct atomic_file af;
	char path[PATH_MAX];
	uint8_t *data = NULL;
	size_t len = 0;
	struct stat st;

	TS_ASSERT(make_tmpdir()[0] != '\0');
	snprintf(path, sizeof(path), "%s/out", tmpdir);
	TS_ASSERT_INT_EQ(write_file(path, "old content", 11), 0);

	TS_ASSERT_INT_EQ(atomic_file_begin(&af, path, 0), 0);
	TS_ASSERT(af.fd >= 0);
	TS_ASSERT(af.tmp != NULL && strncmp(af.tmp, path, strlen(path)) == 0);
	TS_ASSERT_INT_EQ(write_all(af.fd, "new content\n", 12), 0);
	/* not visible before the end */
	TS_ASSERT_INT_EQ(read_file_all(path, 0, &data, &len), 0);
	TS_ASSERT(len == 11 && memcmp(data, "old content", 11) == 0);
	free(data);
	data = NULL;
	TS_ASSERT_INT_EQ(count_entries(tmpdir), 2);

	TS_ASSERT_INT_EQ(atomic_file_end(&af, 0), 0);
	TS_ASSERT(af.fd < 0 && af.tmp == NULL && af.path == NULL);
	TS_ASSERT_INT_EQ(read_file_all(path, 0, &data, &len), 0);
	TS_ASSERT(len == 12 && memcmp(data, "new content\n", 12) == 0);
	free(data);
	data = NULL;
	TS_ASSERT_INT_EQ(count_entries(tmpdir), 1); /* the temporary is gone */
	TS_ASSERT_INT_EQ(stat(path, &st), 0);
	TS_ASSERT_INT_EQ(st.st_mode & 07777, 0644);

	/* a new file with an explicit mode; a positive r counts as success */
	snprintf(path, sizeof(path), "%s/secret", tmpdir);
	TS_ASSERT_INT_EQ(atomic_file_begin(&af, path, 0600), 0);
	TS_ASSERT_INT_EQ(write_all(af.fd, "x", 1), 0);
	TS_ASSERT_INT_EQ(atomic_file_end(&af, 5), 5);
	TS_ASSERT_INT_EQ(stat(path, &st), 0);
	TS_ASSERT_INT_EQ(st.st_mode & 07777, 0600);
	TS_ASSERT_INT_EQ(st.st_size, 1);
	TS_ASSERT_INT_EQ(count_entries(tmpdir), 2);
	remove_tmpdir();
	return 0;
}
DEFINE_TEST(test_atomic_file_success, "atomic_file: renamed into place on success, mode");

static int test_atomic_file_failure(void)
{
	struct atomic_file af;
	char path[PATH_MAX], fresh[PATH_MAX];
	uint8_t *data = NULL;
	size_t len = 0;

	TS_ASSERT(make_tmpdir()[0] != '\0');
	snprintf(path, sizeof(path), "%s/out", tmpdir);
	snprintf(fresh, sizeof(fresh), "%s/fresh", tmpdir);
	TS_ASSERT_INT_EQ(write_file(path, "old content", 11), 0);

	/* r < 0: old content intact, no temporary left behind */
	TS_ASSERT_INT_EQ(atomic_file_begin(&af, path, 0), 0);
	TS_ASSERT_INT_EQ(write_all(af.fd, "half-written", 12), 0);
	TS_ASSERT_INT_EQ(atomic_file_end(&af, -EIO), -EIO);
	TS_ASSERT(af.fd < 0 && af.tmp == NULL && af.path == NULL);
	TS_ASSERT_INT_EQ(read_file_all(path, 0, &data, &len), 0);
	TS_ASSERT(len == 11 && memcmp(data, "old content", 11) == 0);
	free(data);
	data = NULL;
	TS_ASSERT_INT_EQ(count_entries(tmpdir), 1);

	/* r < 0 for a file that did not exist: nothing is created */
	TS_ASSERT_INT_EQ(atomic_file_begin(&af, fresh, 0), 0);
	TS_ASSERT_INT_EQ(write_all(af.fd, "junk", 4), 0);
	TS_ASSERT_INT_EQ(atomic_file_end(&af, -ENOSPC), -ENOSPC);
	TS_ASSERT(access(fresh, F_OK) < 0 && errno == ENOENT);
	TS_ASSERT_INT_EQ(count_entries(tmpdir), 1);

	/* end twice is harmless */
	TS_ASSERT_INT_EQ(atomic_file_end(&af, -EINVAL), -EINVAL);

	/* begin in a missing directory fails and leaves nothing to free */
	snprintf(fresh, sizeof(fresh), "%s/no/such/dir/file", tmpdir);
	TS_ASSERT_INT_EQ(atomic_file_begin(&af, fresh, 0), -ENOENT);
	TS_ASSERT(af.fd < 0 && af.tmp == NULL && af.path == NULL);
	TS_ASSERT_INT_EQ(atomic_file_end(&af, -ENOENT), -ENOENT);
	remove_tmpdir();
	return 0;
}
DEFINE_TEST(test_atomic_file_failure, "atomic_file: on r<0 no file left and old content intact");

static int file_is(const char *path, const char *text)
{
	uint8_t *data = NULL;
	size_t len = 0;
	int ok = read_file_all(path, 0, &data, &len) == 0 && len == strlen(text) && memcmp(data, text, len) == 0;

	free(data);
	return ok;
}

static int test_staged_file(void)
{
	struct staged_file a, b, c;
	char pa[PATH_MAX], pb[PATH_MAX], pc[PATH_MAX];
	struct stat st;

	TS_ASSERT(make_tmpdir()[0] != '\0');
	snprintf(pa, sizeof(pa), "%s/a", tmpdir);
	snprintf(pb, sizeof(pb), "%s/b", tmpdir);
	snprintf(pc, sizeof(pc), "%s/c", tmpdir);
	TS_ASSERT_INT_EQ(write_file(pa, "old a", 5), 0);

	/* written, not yet visible */
	TS_ASSERT_INT_EQ(staged_file_write(&a, pa, 0600, "new a", 5), 0);
	TS_ASSERT_INT_EQ(staged_file_write(&b, pb, 0600, "new b", 5), 0);
	TS_ASSERT(file_is(pa, "old a"));
	TS_ASSERT(access(pb, F_OK) < 0);
	TS_ASSERT_INT_EQ(count_entries(tmpdir), 3);

	/* placed: visible, the old a kept aside; undo puts all back */
	TS_ASSERT_INT_EQ(staged_file_place(&a), 0);
	TS_ASSERT_INT_EQ(staged_file_place(&b), 0);
	TS_ASSERT_INT_EQ(staged_file_place(&b), 0); /* twice is harmless */
	TS_ASSERT(file_is(pa, "new a") && file_is(pb, "new b"));
	TS_ASSERT_INT_EQ(stat(pb, &st), 0);
	TS_ASSERT_INT_EQ(st.st_mode & 07777, 0600);
	TS_ASSERT_INT_EQ(count_entries(tmpdir), 3); /* a, b, the old a */
	staged_file_undo(&a);
	staged_file_undo(&b);
	TS_ASSERT(file_is(pa, "old a"));
	TS_ASSERT(access(pb, F_OK) < 0 && errno == ENOENT);
	TS_ASSERT_INT_EQ(count_entries(tmpdir), 1);
	staged_file_undo(&a); /* and again: nothing left to do */

	/* undo before placing removes the temporary */
	TS_ASSERT_INT_EQ(staged_file_write(&c, pc, 0644, "c", 1), 0);
	staged_file_undo(&c);
	TS_ASSERT_INT_EQ(count_entries(tmpdir), 1);

	/* done after placing: the new file stays, the old one is gone */
	TS_ASSERT_INT_EQ(staged_file_write(&a, pa, 0644, "newer a", 7), 0);
	TS_ASSERT_INT_EQ(staged_file_place(&a), 0);
	staged_file_done(&a);
	TS_ASSERT(file_is(pa, "newer a"));
	TS_ASSERT_INT_EQ(count_entries(tmpdir), 1);

	/* a path that cannot take the file (a directory): refused before
	 * anything is written, the directory left as it is */
	TS_ASSERT(mkdir(pc, 0700) == 0);
	TS_ASSERT(write_file(pb, "x", 1) == 0 && rename(pb, pc) < 0); /* sanity: rename onto a dir fails */
	unlink(pb);
	snprintf(pb, sizeof(pb), "%s/c/x", tmpdir);
	TS_ASSERT_INT_EQ(write_file(pb, "x", 1), 0);
	TS_ASSERT_INT_EQ(staged_file_write(&c, pc, 0644, "c", 1), -EISDIR);
	staged_file_undo(&c);
	TS_ASSERT_INT_EQ(stat(pc, &st), 0);
	TS_ASSERT(S_ISDIR(st.st_mode));
	TS_ASSERT_INT_EQ(count_entries(tmpdir), 2);
	unlink(pb);
	rmdir(pc);

	/* a FIFO (or device) in the outbox is never replaced: refused */
	TS_ASSERT(mkfifo(pc, 0600) == 0);
	TS_ASSERT_INT_EQ(output_kind(pc), OUTPUT_DIRECT);
	TS_ASSERT_INT_EQ(staged_file_write(&c, pc, 0644, "c", 1), -ENOTSUP);
	TS_ASSERT_INT_EQ(lstat(pc, &st), 0);
	TS_ASSERT(S_ISFIFO(st.st_mode));
	TS_ASSERT_INT_EQ(count_entries(tmpdir), 2);
	unlink(pc);
	TS_ASSERT_INT_EQ(output_kind("/dev/null"), OUTPUT_DIRECT);
	TS_ASSERT_INT_EQ(output_kind("-"), OUTPUT_DIRECT);
	TS_ASSERT_INT_EQ(output_kind(tmpdir), -EISDIR);
	TS_ASSERT_INT_EQ(output_kind(pa), OUTPUT_ATOMIC);

	/* a missing directory: write fails, nothing to undo */
	snprintf(pc, sizeof(pc), "%s/no/such", tmpdir);
	TS_ASSERT_INT_EQ(staged_file_write(&c, pc, 0644, "c", 1), -ENOENT);
	staged_file_undo(&c);
	remove_tmpdir();
	return 0;
}
DEFINE_TEST(test_staged_file, "staged_file: placed together before a commit, undone or done after it");

static int test_write_all(void)
{
	int p[2];
	char buf[16] = { 0 };

	TS_ASSERT(pipe(p) == 0);
	TS_ASSERT_INT_EQ(write_all(p[1], "abc", 3), 0);
	TS_ASSERT_INT_EQ(write_all(p[1], "", 0), 0);
	TS_ASSERT_INT_EQ(read(p[0], buf, sizeof(buf)), 3);
	TS_ASSERT_STR_EQ(buf, "abc");
	close(p[0]);
	close(p[1]);
	TS_ASSERT_INT_EQ(write_all(p[1], "abc", 3), -EBADF);
	return 0;
}
DEFINE_TEST(test_write_all, "write_all: writes everything, returns -errno");

/* ---- strbuf ------------------------------------------------------------- */

static int test_strbuf_basic(void)
{
	struct strbuf sb;
	char *s;

	strbuf_init(&sb);
	TS_ASSERT(strbuf_ok(&sb));
	TS_ASSERT_STR_EQ(strbuf_str(&sb), "");
	TS_ASSERT_INT_EQ(sb.len, 0);

	strbuf_addstr(&sb, "hello");
	strbuf_addch(&sb, ',');
	strbuf_addch(&sb, ' ');
	strbuf_add(&sb, "world!!!", 5);
	TS_ASSERT_STR_EQ(strbuf_str(&sb), "hello, world");
	TS_ASSERT_INT_EQ(sb.len, 12);
	strbuf_addf(&sb, " %d-%s-%05.1f", 42, "x", 3.25);
	TS_ASSERT_STR_EQ(strbuf_str(&sb), "hello, world 42-x-003.2");
	TS_ASSERT_INT_EQ(sb.len, strlen(sb.buf));

	/* embedded NUL is kept in len */
	strbuf_add(&sb, "\0z", 2);
	TS_ASSERT_INT_EQ(sb.len, 25);
	TS_ASSERT_INT_EQ(sb.buf[23], 0);
	TS_ASSERT_INT_EQ(sb.buf[24], 'z');
	TS_ASSERT_INT_EQ(sb.buf[25], 0);
	TS_ASSERT(strbuf_ok(&sb));

	s = strbuf_steal(&sb);
	TS_ASSERT(s != NULL);
	TS_ASSERT(strncmp(s, "hello, world 42", 15) == 0);
	TS_ASSERT(sb.buf == NULL && sb.len == 0 && sb.size == 0);
	free(s);

	/* steal of an empty buffer is an empty string, not NULL */
	s = strbuf_steal(&sb);
	TS_ASSERT(s != NULL);
	TS_ASSERT_STR_EQ(s, "");
	free(s);
	strbuf_release(&sb);
	strbuf_release(&sb); /* twice is fine */
	return 0;
}
DEFINE_TEST(test_strbuf_basic, "strbuf: add, addch, addf, steal, release");

static int test_strbuf_grow(void)
{
	struct strbuf sb;
	char big[5000];
	char *s;

	strbuf_init(&sb);
	for (int i = 0; i < 10000; i++)
		strbuf_addch(&sb, (char)('a' + i % 26));
	TS_ASSERT(strbuf_ok(&sb));
	TS_ASSERT_INT_EQ(sb.len, 10000);
	TS_ASSERT(sb.size > sb.len);
	TS_ASSERT_INT_EQ(sb.buf[9999], 'a' + 9999 % 26);
	TS_ASSERT_INT_EQ(sb.buf[10000], 0);
	strbuf_release(&sb);

	/* a formatted string longer than the first 64-byte reservation */
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	strbuf_addstr(&sb, "<");
	strbuf_addf(&sb, "%s|%s", big, big);
	strbuf_addf(&sb, ">%d", 7);
	TS_ASSERT(strbuf_ok(&sb));
	TS_ASSERT_INT_EQ(sb.len, 1 + 2 * (sizeof(big) - 1) + 1 + 2);
	TS_ASSERT_INT_EQ(sb.len, strlen(sb.buf));
	TS_ASSERT_INT_EQ(sb.buf[1 + sizeof(big) - 1], '|');
	TS_ASSERT_STR_EQ(sb.buf + sb.len - 2, ">7");
	s = strbuf_steal(&sb);
	TS_ASSERT(s != NULL);
	free(s);
	return 0;
}
DEFINE_TEST(test_strbuf_grow, "strbuf: growth and long formatted output");

static int test_strbuf_reserve_steal(void)
{
	struct strbuf sb;
	char *s;

	/* dirty the heap so that a missing terminator shows without valgrind too */
	s = malloc(128);
	TS_ASSERT(s != NULL);
	memset(s, 'A', 128);
	free(s);
	/* reserve alone allocates; the result must still be a string */
	strbuf_init(&sb);
	TS_ASSERT(strbuf_reserve(&sb, 100));
	TS_ASSERT(sb.size >= 101);
	TS_ASSERT_INT_EQ(sb.len, 0);
	s = strbuf_steal(&sb);
	TS_ASSERT(s != NULL);
	TS_ASSERT_INT_EQ(s[0], '\0');
	free(s);
	return 0;
}
DEFINE_TEST(test_strbuf_reserve_steal, "strbuf: steal after only a reserve returns \"\"");

static int test_strbuf_oom(void)
{
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_addstr(&sb, "abc");
	/* an impossible reservation marks the buffer failed... */
	TS_ASSERT(!strbuf_reserve(&sb, (size_t)-1 / 2));
	TS_ASSERT(!strbuf_ok(&sb));
	/* ...further appends are no-ops... */
	strbuf_addstr(&sb, "def");
	TS_ASSERT_INT_EQ(sb.len, 3);
	/* ...and steal reports it and resets the buffer */
	TS_ASSERT(strbuf_steal(&sb) == NULL);
	TS_ASSERT(strbuf_ok(&sb));
	TS_ASSERT(sb.buf == NULL);
	return 0;
}
DEFINE_TEST(test_strbuf_oom, "strbuf: failed reservation is sticky, steal returns NULL");
