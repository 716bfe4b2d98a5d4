// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Link-time fault injection for tests/fault/ksp-fault: the CLI objects and
 * libksp.a are linked with -Wl,--wrap=SYMBOL for every symbol below, so
 * each call that OUR code makes to the allocator or to file I/O goes
 * through a counter here.  Calls made inside shared libraries (sqlite,
 * gpgme, libc itself) are not wrapped: the target is ksp's own error paths.
 *
 * Environment:
 *   KSP_FAULT_KIND   alloc | io | all (default all): which calls count
 *   KSP_FAULT_N      fail the Nth counted call (1-based) once; unset or 0:
 *                    only count
 *   KSP_FAULT_REPORT file to write at exit (and at the injection, in case
 *                    the process dies): "calls=C injected=0|1 fn=NAME
 *                    stack=0xA,0xB,..." (return addresses of the failed
 *                    call's callers, innermost first, as offsets from the
 *                    start of the executable, for addr2line -e ksp-fault)
 *
 * Wrapped: the allocator (malloc, calloc, realloc, strdup, strndup,
 * asprintf, vasprintf, posix_memalign) and I/O (open, openat, read, write,
 * fsync, close, rename, mkdtemp, mkostemp, stat, fstat, opendir, pipe2,
 * posix_spawnp).  A failed call returns what the real one returns on
 * failure (NULL, -1, or an error number for posix_*) with errno ENOMEM
 * (allocator), ENOSPC (write, fsync, rename, mkdtemp, mkostemp), EMFILE
 * (pipe2), EAGAIN (posix_spawnp) or EIO (the others).  close() really
 * closes the descriptor before it reports EIO, as Linux does.
 *
 * This file is test code linked into a test binary only; it is not part of
 * libksp, so its global counter and its destructor break no library rule.
 */
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/types.h>

enum { KIND_ALLOC = 1, KIND_IO = 2 };

static unsigned long fault_n;       /* 0: count only */
static unsigned long fault_calls;   /* counted calls so far */
static unsigned fault_kinds;        /* KIND_ bits that count */
static bool fault_init_done;
static bool fault_injected;
static const char *fault_fn = "-";
static uintptr_t fault_stack[8]; /* callers, innermost first */
static int fault_depth;
static char fault_report[4096];

extern char __executable_start;

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
int __real_open(const char *path, int flags, ...);
int __real_openat(int dfd, const char *path, int flags, ...);
ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __real_write(int fd, const void *buf, size_t n);
int __real_fsync(int fd);
int __real_close(int fd);
int __real_rename(const char *from, const char *to);
char *__real_mkdtemp(char *tmpl);
int __real_mkostemp(char *tmpl, int flags);
int __real_stat(const char *path, struct stat *st);
int __real_fstat(int fd, struct stat *st);
int __real_vasprintf(char **strp, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int __real_posix_memalign(void **p, size_t align, size_t size);
DIR *__real_opendir(const char *path);
int __real_pipe2(int fds[2], int flags);
int __real_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);

/* Prototypes for -Wmissing-prototypes; the linker finds them by name. */
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_open(const char *path, int flags, ...);
int __wrap_openat(int dfd, const char *path, int flags, ...);
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
int __wrap_fsync(int fd);
int __wrap_close(int fd);
int __wrap_rename(const char *from, const char *to);
char *__wrap_mkdtemp(char *tmpl);
int __wrap_mkostemp(char *tmpl, int flags);
int __wrap_stat(const char *path, struct stat *st);
int __wrap_fstat(int fd, struct stat *st);
int __wrap_vasprintf(char **strp, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int __wrap_asprintf(char **strp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int __wrap_posix_memalign(void **p, size_t align, size_t size);
DIR *__wrap_opendir(const char *path);
int __wrap_pipe2(int fds[2], int flags);
int __wrap_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);

static void fault_init(void)
{
	const char *s;

	if (fault_init_done)
		return;
	fault_init_done = true;
	s = getenv("KSP_FAULT_KIND");
	if (s == NULL || *s == '\0' || strcmp(s, "all") == 0)
		fault_kinds = KIND_ALLOC | KIND_IO;
	else if (strcmp(s, "alloc") == 0)
		fault_kinds = KIND_ALLOC;
	else if (strcmp(s, "io") == 0)
		fault_kinds = KIND_IO;
	else
		fault_kinds = 0;
	s = getenv("KSP_FAULT_N");
	if (s != NULL)
		fault_n = strtoul(s, NULL, 10);
	s = getenv("KSP_FAULT_REPORT");
	if (s != NULL && strlen(s) < sizeof(fault_report))
		memcpy(fault_report, s, strlen(s) + 1);
}

static void fault_write_report(void)
{
	char line[512];
	int fd, n;

	if (fault_report[0] == '\0')
		return;
	n = snprintf(line, sizeof(line), "calls=%lu injected=%d fn=%s stack=", fault_calls,
		     fault_injected ? 1 : 0, fault_fn);
	for (int i = 0; i < fault_depth && n > 0 && (size_t)n < sizeof(line) - 24; i++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%s0x%lx", i ? "," : "",
			      (unsigned long)fault_stack[i]);
	if (n > 0 && (size_t)n < sizeof(line) - 1)
		line[n++] = '\n';
	fd = __real_open(fault_report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (n > 0 && __real_write(fd, line, (size_t)n) < 0) {
		/* nothing to do: the sweep sees a missing report */
	}
	__real_close(fd);
}

__attribute__((destructor)) static void fault_fini(void)
{
	fault_write_report();
}

/* True when this call must fail. */
__attribute__((noinline)) static bool fault_hit(unsigned kind, const char *fn)
{
	void *frames[12];
	unsigned long c;
	int depth;

	fault_init();
	if (!(fault_kinds & kind))
		return false;
	c = __atomic_add_fetch(&fault_calls, 1, __ATOMIC_RELAXED);
	if (fault_n == 0 || c != fault_n)
		return false;
	fault_injected = true;
	fault_fn = fn;
	/* from the wrapper outwards (the sweep drops the frames in this file) */
	depth = backtrace(frames, 12);
	for (int i = 1; i < depth && fault_depth < 8; i++) {
		uintptr_t a = (uintptr_t)frames[i];
		if (a < (uintptr_t)&__executable_start)
			break;
		fault_stack[fault_depth++] = a - (uintptr_t)&__executable_start;
	}
	fault_write_report();
	return true;
}

#define HIT(kind, fn) fault_hit(kind, fn)

void *__wrap_malloc(size_t size)
{
	if (HIT(KIND_ALLOC, "malloc")) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	if (HIT(KIND_ALLOC, "calloc")) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	if (HIT(KIND_ALLOC, "realloc")) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_realloc(p, size);
}

char *__wrap_strdup(const char *s)
{
	if (HIT(KIND_ALLOC, "strdup")) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	if (HIT(KIND_ALLOC, "strndup")) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_strndup(s, n);
}

static mode_t open_mode(int flags, va_list ap)
{
	if (flags & (O_CREAT | O_TMPFILE))
		return (mode_t)va_arg(ap, unsigned int);
	return 0;
}

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (HIT(KIND_IO, "open")) {
		errno = EIO;
		return -1;
	}
	return __real_open(path, flags, mode);
}

int __wrap_openat(int dfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (HIT(KIND_IO, "openat")) {
		errno = EIO;
		return -1;
	}
	return __real_openat(dfd, path, flags, mode);
}

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	if (HIT(KIND_IO, "read")) {
		errno = EIO;
		return -1;
	}
	return __real_read(fd, buf, n);
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	if (HIT(KIND_IO, "write")) {
		errno = ENOSPC;
		return -1;
	}
	return __real_write(fd, buf, n);
}

int __wrap_fsync(int fd)
{
	if (HIT(KIND_IO, "fsync")) {
		errno = ENOSPC;
		return -1;
	}
	return __real_fsync(fd);
}

int __wrap_close(int fd)
{
	if (HIT(KIND_IO, "close")) {
		__real_close(fd);
		errno = EIO;
		return -1;
	}
	return __real_close(fd);
}

int __wrap_rename(const char *from, const char *to)
{
	if (HIT(KIND_IO, "rename")) {
		errno = ENOSPC;
		return -1;
	}
	return __real_rename(from, to);
}

char *__wrap_mkdtemp(char *tmpl)
{
	if (HIT(KIND_IO, "mkdtemp")) {
		errno = ENOSPC;
		return NULL;
	}
	return __real_mkdtemp(tmpl);
}

int __wrap_mkostemp(char *tmpl, int flags)
{
	if (HIT(KIND_IO, "mkostemp")) {
		errno = ENOSPC;
		return -1;
	}
	return __real_mkostemp(tmpl, flags);
}

int __wrap_stat(const char *path, struct stat *st)
{
	if (HIT(KIND_IO, "stat")) {
		errno = EIO;
		return -1;
	}
	return __real_stat(path, st);
}

int __wrap_fstat(int fd, struct stat *st)
{
	if (HIT(KIND_IO, "fstat")) {
		errno = EIO;
		return -1;
	}
	return __real_fstat(fd, st);
}

int __wrap_vasprintf(char **strp, const char *fmt, va_list ap)
{
	if (HIT(KIND_ALLOC, "vasprintf")) {
		errno = ENOMEM;
		return -1;
	}
	return __real_vasprintf(strp, fmt, ap);
}

int __wrap_asprintf(char **strp, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (HIT(KIND_ALLOC, "asprintf")) {
		errno = ENOMEM;
		return -1;
	}
	va_start(ap, fmt);
	r = __real_vasprintf(strp, fmt, ap);
	va_end(ap);
	return r;
}

int __wrap_posix_memalign(void **p, size_t align, size_t size)
{
	if (HIT(KIND_ALLOC, "posix_memalign"))
		return ENOMEM;
	return __real_posix_memalign(p, align, size);
}

DIR *__wrap_opendir(const char *path)
{
	if (HIT(KIND_IO, "opendir")) {
		errno = EIO;
		return NULL;
	}
	return __real_opendir(path);
}

int __wrap_pipe2(int fds[2], int flags)
{
	if (HIT(KIND_IO, "pipe2")) {
		errno = EMFILE;
		return -1;
	}
	return __real_pipe2(fds, flags);
}

int __wrap_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	if (HIT(KIND_IO, "posix_spawnp"))
		return EAGAIN;
	return __real_posix_spawnp(pid, file, fa, attr, argv, envp);
}
