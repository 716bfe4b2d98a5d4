// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "shared/util.h"
#include "shared/strbuf.h"

int read_fd_all(int fd, size_t max_size, uint8_t **ret, size_t *ret_len)
{
	uint8_t *buf = NULL, *n;
	size_t len = 0, size = 0;
	ssize_t k;
	struct stat st;

	size_t hint = 65536;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if (max_size && (uint64_t)st.st_size > max_size)
			return -EFBIG;
		hint = (size_t)st.st_size + 1;
	}
	for (;;) {
		if (len + 1 >= size) {
			size_t ns = size ? size * 2 : hint;
			/* never more than the limit and the byte that exceeds it */
			if (max_size && ns > max_size + 2)
				ns = max_size + 2;
			if (max_size && len > max_size) {
				free(buf);
				return -EFBIG;
			}
			n = realloc(buf, ns);
			if (n == NULL) {
				free(buf);
				return -ENOMEM;
			}
			buf = n;
			size = ns;
		}
		k = read(fd, buf + len, size - len - 1);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			k = -errno;
			free(buf);
			return (int)k;
		}
		if (k == 0)
			break;
		len += (size_t)k;
		if (max_size && len > max_size) {
			free(buf);
			return -EFBIG;
		}
	}
	if (buf == NULL) {
		buf = malloc(1);
		if (buf == NULL)
			return -ENOMEM;
	}
	buf[len] = 0;
	*ret = buf;
	*ret_len = len;
	return 0;
}

int read_file_all(const char *path, size_t max_size, uint8_t **ret, size_t *ret_len)
{
	int fd, r;

	if (strcmp(path, "-") == 0)
		return read_fd_all(STDIN_FILENO, max_size, ret, ret_len);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read_fd_all(fd, max_size, ret, ret_len);
	close(fd);
	return r;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t k = write(fd, p, len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: a descriptor we
 * were given, whatever it is open on (a regular file the shell made is not
 * ours to replace) */
static bool is_fd_path(const char *path)
{
	static const char *const pre[] = { "/dev/fd/", "/proc/self/fd/" };

	if (strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/dev/stderr") == 0)
		return true;
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		size_t n = strlen(pre[i]);
		if (strncmp(path, pre[i], n) == 0 && path[n] && strspn(path + n, "0123456789") == strlen(path + n))
			return true;
	}
	return false;
}

int output_kind(const char *path)
{
	struct stat st;

	if (strcmp(path, "-") == 0)
		return OUTPUT_DIRECT;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? OUTPUT_ATOMIC : -errno;
	if (S_ISREG(st.st_mode))
		return is_fd_path(path) ? OUTPUT_DIRECT : OUTPUT_ATOMIC;
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return OUTPUT_DIRECT;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	return -ENOTSUP;
}

const char *output_strerror(int r)
{
	if (r == -EISDIR)
		return "is a directory";
	if (r == -ENOTSUP)
		return "not a regular file, character device or FIFO";
	return strerror(r < 0 ? -r : r);
}

int atomic_file_begin(struct atomic_file *af, const char *path, mode_t mode)
{
	struct strbuf sb;
	int kind;

	af->fd = -1;
	af->path = af->tmp = NULL;
	kind = output_kind(path);
	if (kind < 0)
		return kind;
	if (kind == OUTPUT_DIRECT) {
		/* written in place: no O_CREAT (it exists), no O_TRUNC (a
		 * descriptor the shell opened with >> keeps its place) */
		af->fd = strcmp(path, "-") == 0 ? fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
						: open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
		return af->fd < 0 ? -errno : 0;
	}
	af->path = strdup(path);
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s.tmp.XXXXXX", path);
	af->tmp = strbuf_steal(&sb);
	if (af->path == NULL || af->tmp == NULL) {
		free(af->path);
		free(af->tmp);
		af->path = af->tmp = NULL;
		return -ENOMEM;
	}
	af->fd = mkostemp(af->tmp, O_CLOEXEC);
	if (af->fd < 0) {
		int r = -errno;
		free(af->path);
		free(af->tmp);
		af->path = af->tmp = NULL;
		return r;
	}
	if (fchmod(af->fd, mode ? mode : 0644) < 0) {
		/* not fatal: keep mkostemp's 0600 */
	}
	return 0;
}

int atomic_file_end(struct atomic_file *af, int r)
{
	if (af->fd < 0)
		return r;
	if (af->tmp == NULL) {
		/* written in place */
		if (close(af->fd) < 0 && r >= 0)
			r = -errno;
		af->fd = -1;
		return r;
	}
	if (r >= 0 && fsync(af->fd) < 0 && errno != EINVAL)
		r = -errno;
	if (close(af->fd) < 0 && r >= 0)
		r = -errno;
	af->fd = -1;
	if (r >= 0 && rename(af->tmp, af->path) < 0)
		r = -errno;
	if (r < 0)
		unlink(af->tmp);
	free(af->path);
	free(af->tmp);
	af->path = af->tmp = NULL;
	return r;
}

int staged_file_write(struct staged_file *sf, const char *path, mode_t mode, const void *data, size_t len)
{
	struct atomic_file af;
	int r;

	*sf = (struct staged_file){ 0 };
	r = output_kind(path);
	if (r == OUTPUT_DIRECT)
		r = -ENOTSUP;
	if (r < 0)
		return r;
	r = atomic_file_begin(&af, path, mode);
	if (r < 0)
		return r;
	r = write_all(af.fd, data, len);
	if (r == 0 && fsync(af.fd) < 0 && errno != EINVAL)
		r = -errno;
	if (close(af.fd) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		unlink(af.tmp);
		free(af.tmp);
		free(af.path);
		return r;
	}
	sf->path = af.path;
	sf->tmp = af.tmp;
	return 0;
}

static void staged_file_free(struct staged_file *sf)
{
	free(sf->path);
	free(sf->tmp);
	free(sf->old);
	*sf = (struct staged_file){ 0 };
}

int staged_file_place(struct staged_file *sf)
{
	struct strbuf sb;
	int r;

	if (sf->path == NULL || sf->placed)
		return sf->path ? 0 : -EINVAL;
	/* keep a file already there under a name of its own (a hard link,
	 * so the path never goes missing), to put it back on undo */
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s.old", sf->tmp);
	sf->old = strbuf_steal(&sb);
	if (sf->old == NULL)
		return -ENOMEM;
	if (link(sf->path, sf->old) < 0) {
		r = -errno;
		free(sf->old);
		sf->old = NULL;
		if (r != -ENOENT)
			return r;
	}
	if (rename(sf->tmp, sf->path) < 0) {
		r = -errno;
		if (sf->old)
			unlink(sf->old);
		free(sf->old);
		sf->old = NULL;
		return r;
	}
	sf->placed = true;
	return 0;
}

void staged_file_done(struct staged_file *sf)
{
	if (sf->path == NULL)
		return;
	if (!sf->placed)
		unlink(sf->tmp);
	else if (sf->old)
		unlink(sf->old);
	staged_file_free(sf);
}

void staged_file_undo(struct staged_file *sf)
{
	if (sf->path == NULL)
		return;
	if (!sf->placed)
		unlink(sf->tmp);
	else if (sf->old == NULL || rename(sf->old, sf->path) < 0)
		unlink(sf->path);
	staged_file_free(sf);
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	const int64_t era = (y >= 0 ? y : y - 399) / 400;
	const unsigned yoe = (unsigned)(y - era * 400);
	const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

int parse_date(const char *s, int64_t *ret)
{
	int y, mo, d, h = 0, mi = 0, se = 0, n = 0;
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (s == NULL)
		return -EINVAL;
	if (s[0] == '@') {
		char *end;
		long long v;
		errno = 0;
		v = strtoll(s + 1, &end, 10);
		if (errno || end == s + 1 || *end)
			return -EINVAL;
		*ret = v;
		return 0;
	}
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
		return -EINVAL;
	if (s[10] == 'T' || s[10] == ' ') {
		int n2 = 0;
		if (sscanf(s + 11, "%2d:%2d:%2d%n", &h, &mi, &se, &n2) != 3 || n2 != 8)
			return -EINVAL;
		n = 19;
		if (s[n] == 'Z')
			n++;
	}
	if (s[n] != '\0')
		return -EINVAL;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60)
		return -EINVAL;
	if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return -EINVAL;
	*ret = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se;
	return 0;
}

void format_date(int64_t t, char *buf, size_t size)
{
	struct tm tm;
	time_t tt = (time_t)t;

	if (gmtime_r(&tt, &tm) == NULL || strftime(buf, size, "%Y-%m-%d", &tm) == 0)
		snprintf(buf, size, "?");
}

void format_datetime(int64_t t, char *buf, size_t size)
{
	struct tm tm;
	time_t tt = (time_t)t;

	if (gmtime_r(&tt, &tm) == NULL || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, size, "?");
}

int base64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

void hex_encode(const uint8_t *in, size_t len, char *out)
{
	static const char digits[] = "0123456789ABCDEF";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * len] = '\0';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hex_decode(const char *in, uint8_t *out, size_t out_size)
{
	size_t n = 0;
	int hi = -1;

	if (in[0] == '0' && (in[1] == 'x' || in[1] == 'X'))
		in += 2;
	for (; *in; in++) {
		int v;
		if (*in == ' ' || *in == '\t')
			continue;
		v = hexval((unsigned char)*in);
		if (v < 0)
			return -EINVAL;
		if (hi < 0) {
			hi = v;
		} else {
			if (n >= out_size)
				return -EINVAL;
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	if (hi >= 0)
		return -EINVAL;
	return (int)n;
}

void fpr_groups(const char *fpr, char *buf, size_t size)
{
	size_t n = strlen(fpr), o = 0;

	for (size_t i = 0; i < n && o + 2 < size; i++) {
		if (i > 0 && i % 4 == 0) {
			/* two spaces in the middle of a v4 fingerprint, as gpg prints it (buf >= 81 for v6) */
			if (n == 40 && i == 20 && o + 3 < size)
				buf[o++] = ' ';
			buf[o++] = ' ';
		}
		buf[o++] = fpr[i];
	}
	buf[o] = '\0';
}

int fpr_normalize(const char *in, char out[65])
{
	uint8_t b[32];
	int n;

	if (in == NULL)
		return -EINVAL;
	n = hex_decode(in, b, sizeof(b));
	if (n != 20 && n != 32)
		return -EINVAL;
	hex_encode(b, (size_t)n, out);
	return 0;
}

char *signed_data_file(const char *sig, bool gpg_ext)
{
	static const char *const ext[] = { ".sig", ".asc", ".sign", ".gpg" };
	size_t n = strlen(sig);

	for (size_t i = 0; i < (gpg_ext ? 4u : 3u); i++) {
		size_t el = strlen(ext[i]);
		if (n > el && strcmp(sig + n - el, ext[i]) == 0) {
			char *d = strndup(sig, n - el);
			if (d && access(d, F_OK) == 0)
				return d;
			free(d);
		}
	}
	return NULL;
}

void *huge_alloc(size_t n)
{
	const size_t huge = (size_t)2 << 20;
	void *p = NULL;

	if (n < 2 * huge)
		return posix_memalign(&p, 64, n ? n : 1) == 0 ? p : NULL;
	n = (n + huge - 1) / huge * huge;
	p = aligned_alloc(huge, n);
	if (p)
		(void)madvise(p, n, MADV_HUGEPAGE);
	return p;
}
