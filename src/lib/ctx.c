// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/wait.h>

#include <gcrypt.h>
#include <gpgme.h>

#include "lib/cleanup.h"
#include "lib/libksp-private.h"

struct ksp_ctx {
	int refcount;
	void (*log_fn)(void *data, int priority, const char *file, int line,
		       const char *fn, const char *format, va_list args);
	void *log_data;
	void *userdata;
	int log_priority;
	char *gnupg_home;
	char *tmpdir;
	char error[1024];
	bool has_error;
	unsigned threads; /* 0: one per online CPU, at most 8 */
	void (*progress_fn)(void *data, const char *what, uint64_t done, uint64_t total);
	void *progress_data;
	struct ksp_cleanup cleanup; /* for ksp_cleanup_after_signal() */
};

struct ksp_cleanup *ksp_ctx_cleanup(struct ksp_ctx *ctx)
{
	return &ctx->cleanup;
}

_printf_format_(6, 0) static void log_stderr(void *data, int priority, const char *file,
					     int line, const char *fn, const char *format,
					     va_list args)
{
	fprintf(stderr, "libksp: %s: ", fn);
	vfprintf(stderr, format, args);
}

static int log_priority(const char *s)
{
	char *end;
	long prio;

	prio = strtol(s, &end, 10);
	if (end[0] == '\0' || isspace((unsigned char)end[0]))
		return (int)prio;
	if (strncmp(s, "err", 3) == 0)
		return LOG_ERR;
	if (strncmp(s, "warn", 4) == 0)
		return LOG_WARNING;
	if (strncmp(s, "info", 4) == 0)
		return LOG_INFO;
	if (strncmp(s, "debug", 5) == 0)
		return LOG_DEBUG;
	return 0;
}

static void deps_init_once(void)
{
	/* gpgme's own setup is idempotent; docs/libksp.3 asks threaded
	 * applications to call gpgme_check_version() themselves first. */
	gpgme_check_version(NULL);
	if (!gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P))
		gcry_check_version(NULL);
}

KSP_EXPORT int ksp_new(struct ksp_ctx **ret)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct ksp_ctx *ctx;
	const char *env;

	if (ret == NULL)
		return -EINVAL;
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		return -ENOMEM;
	ctx->refcount = 1;
	ctx->log_priority = -1; /* silent */
	env = secure_getenv("KSP_LOG");
	if (env != NULL) {
		ctx->log_priority = log_priority(env);
		ctx->log_fn = log_stderr;
	}
	pthread_once(&once, deps_init_once);
	if (!gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P))
		WARN(ctx, "libgcrypt was not initialized by the application\n");
	*ret = ctx;
	return 0;
}

KSP_EXPORT struct ksp_ctx *ksp_ref(struct ksp_ctx *ctx)
{
	if (ctx == NULL)
		return NULL;
	ctx->refcount++;
	return ctx;
}

KSP_EXPORT struct ksp_ctx *ksp_unref(struct ksp_ctx *ctx)
{
	if (ctx == NULL)
		return NULL;
	if (--ctx->refcount > 0)
		return NULL;
	ksp_cleanup_free(&ctx->cleanup);
	free(ctx->gnupg_home);
	free(ctx->tmpdir);
	free(ctx);
	return NULL;
}

KSP_EXPORT void ksp_set_log_fn(struct ksp_ctx *ctx,
			       void (*log_fn)(void *log_data, int priority, const char *file,
					      int line, const char *fn, const char *format,
					      va_list args),
			       void *log_data)
{
	if (ctx == NULL)
		return;
	ctx->log_fn = log_fn ? log_fn : (secure_getenv("KSP_LOG") ? log_stderr : NULL);
	ctx->log_data = log_data;
	if (log_fn != NULL && ctx->log_priority < 0)
		ctx->log_priority = LOG_ERR;
}

KSP_EXPORT int ksp_get_log_priority(const struct ksp_ctx *ctx)
{
	if (ctx == NULL || ctx->log_fn == NULL)
		return -1;
	return ctx->log_priority;
}

KSP_EXPORT void ksp_set_log_priority(struct ksp_ctx *ctx, int priority)
{
	if (ctx != NULL)
		ctx->log_priority = priority;
}

KSP_EXPORT void *ksp_get_userdata(const struct ksp_ctx *ctx)
{
	return ctx ? ctx->userdata : NULL;
}

KSP_EXPORT void ksp_set_userdata(struct ksp_ctx *ctx, void *userdata)
{
	if (ctx != NULL)
		ctx->userdata = userdata;
}

static int set_str(char **dst, const char *s)
{
	char *n = NULL;

	if (s != NULL) {
		n = strdup(s);
		if (n == NULL)
			return -ENOMEM;
	}
	free(*dst);
	*dst = n;
	return 0;
}

KSP_EXPORT int ksp_set_gnupg_home(struct ksp_ctx *ctx, const char *dir)
{
	if (ctx == NULL)
		return -EINVAL;
	return set_str(&ctx->gnupg_home, dir);
}

KSP_EXPORT const char *ksp_get_gnupg_home(const struct ksp_ctx *ctx)
{
	return ctx ? ctx->gnupg_home : NULL;
}

KSP_EXPORT int ksp_set_tmpdir(struct ksp_ctx *ctx, const char *dir)
{
	if (ctx == NULL)
		return -EINVAL;
	return set_str(&ctx->tmpdir, dir);
}

const char *ksp_get_tmpdir(const struct ksp_ctx *ctx)
{
	const char *t;

	if (ctx->tmpdir)
		return ctx->tmpdir;
	t = secure_getenv("TMPDIR");
	return t && *t ? t : "/tmp";
}

KSP_EXPORT const char *ksp_get_error(const struct ksp_ctx *ctx)
{
	if (ctx == NULL || !ctx->has_error)
		return NULL;
	return ctx->error;
}

void ksp_set_error(struct ksp_ctx *ctx, const char *format, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, format);
	vsnprintf(ctx->error, sizeof(ctx->error), format, ap);
	va_end(ap);
	/* one line: strip a trailing newline, fold any inner ones */
	n = strlen(ctx->error);
	while (n > 0 && ctx->error[n - 1] == '\n')
		ctx->error[--n] = '\0';
	for (char *p = ctx->error; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	ctx->has_error = true;
	INFO(ctx, "%s\n", ctx->error); /* the caller reports it */
}

void ksp_clear_error(struct ksp_ctx *ctx)
{
	ctx->has_error = false;
	ctx->error[0] = '\0';
}

void ksp_log(struct ksp_ctx *ctx, int priority, const char *file, int line,
	     const char *fn, const char *format, ...)
{
	va_list args;

	if (ctx->log_fn == NULL)
		return;
	va_start(args, format);
	ctx->log_fn(ctx->log_data, priority, file, line, fn, format, args);
	va_end(args);
}

KSP_EXPORT void ksp_set_threads(struct ksp_ctx *ctx, unsigned int n)
{
	if (ctx)
		ctx->threads = n > 64 ? 64 : n;
}

KSP_EXPORT unsigned int ksp_get_threads(const struct ksp_ctx *ctx)
{
	long n;

	if (ctx && ctx->threads)
		return ctx->threads;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 8 ? 8 : (unsigned int)n;
}

KSP_EXPORT void ksp_set_progress_fn(struct ksp_ctx *ctx,
				    void (*fn)(void *data, const char *what, uint64_t done, uint64_t total),
				    void *data)
{
	if (ctx) {
		ctx->progress_fn = fn;
		ctx->progress_data = data;
	}
}

void ksp_progress(struct ksp_ctx *ctx, const char *what, uint64_t done, uint64_t total)
{
	if (ctx && ctx->progress_fn)
		ctx->progress_fn(ctx->progress_data, what, done, total);
}

/* ---- removing temporary GnuPG homes and files from a signal handler ------
 * (cleanup.h and ksp_cleanup_after_signal() in libksp.h; here beside the
 * context that holds the registry, so that neither file calls the other) */

extern char **environ;

/* gpgconf's absolute path from PATH (the handler cannot search it) */
static char *find_gpgconf(void)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		if (n > 0 && n + sizeof("/gpgconf") < sizeof(buf)) {
			memcpy(buf, path, n);
			memcpy(buf + n, "/gpgconf", sizeof("/gpgconf"));
			if (buf[0] == '/' && access(buf, X_OK) == 0)
				return strdup(buf);
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return NULL;
}

int ksp_cleanup_add(struct ksp_ctx *ctx, int kind, const char *path)
{
	struct ksp_cleanup *c = ksp_ctx_cleanup(ctx);

	for (int i = 0; i < KSP_CLEANUP_SLOTS; i++) {
		struct ksp_cleanup_slot *s = &c->slot[i];
		int free_state = 0;

		if (!atomic_compare_exchange_strong(&s->state, &free_state, 1))
			continue;
		s->kind = kind;
		s->path = strdup(path);
		s->gpgconf = kind == KSP_CLEANUP_HOME ? find_gpgconf() : NULL;
		if (s->path == NULL) {
			free(s->gpgconf);
			s->gpgconf = NULL;
			atomic_store(&s->state, 0);
			return -1;
		}
		atomic_store(&s->state, 2);
		return i;
	}
	return -1;
}

void ksp_cleanup_del(struct ksp_ctx *ctx, int slot)
{
	struct ksp_cleanup_slot *s;
	int live = 2;

	if (slot < 0 || slot >= KSP_CLEANUP_SLOTS)
		return;
	s = &ksp_ctx_cleanup(ctx)->slot[slot];
	/* a handler that took it first does not return */
	if (!atomic_compare_exchange_strong(&s->state, &live, 3))
		return;
	free(s->path);
	free(s->gpgconf);
	s->path = s->gpgconf = NULL;
	atomic_store(&s->state, 0);
}


/* ---- async-signal-safe from here on: no allocation, no stdio ---------- */

/* Remove what is in directory @dfd: unlinkat, and into subdirectories
 * (never through a symbolic link: a home that links to the user's own
 * private keys loses the link only).  getdents64 reads into a buffer on
 * the stack; a pass that removed something is followed by another. */
static void rm_in(int dfd, int depth)
{
	char buf[2048] __attribute__((aligned(8)));

	for (int pass = 0; pass < 4; pass++) {
		bool removed = false;
		ssize_t n;

		if (lseek(dfd, 0, SEEK_SET) < 0)
			return;
		while ((n = getdents64(dfd, buf, sizeof(buf))) > 0) {
			for (ssize_t off = 0; off < n;) {
				struct dirent64 *d = (struct dirent64 *)(buf + off);
				const char *name = d->d_name;

				off += d->d_reclen;
				if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
					continue;
				if (unlinkat(dfd, name, 0) == 0) {
					removed = true;
					continue;
				}
				if ((errno == EISDIR || errno == EPERM) && depth < 8) {
					int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
					if (sub >= 0) {
						rm_in(sub, depth + 1);
						close(sub);
					}
					if (unlinkat(dfd, name, AT_REMOVEDIR) == 0)
						removed = true;
				}
			}
		}
		if (!removed)
			return;
	}
}

static void rm_tree(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		rm_in(fd, 0);
		close(fd);
	}
	rmdir(path);
}

/* gpgconf --homedir PATH --kill all, waited for */
static void kill_agent(const struct ksp_cleanup_slot *s)
{
	char a0[] = "gpgconf", a1[] = "--homedir", a3[] = "--kill", a4[] = "all";
	char *argv[] = { a0, a1, s->path, a3, a4, NULL };
	pid_t pid;

	if (s->gpgconf == NULL)
		return;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execve(s->gpgconf, argv, environ);
		_exit(127);
	}
	if (pid > 0) {
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
}

KSP_EXPORT void ksp_cleanup_after_signal(struct ksp_ctx *ctx)
{
	struct ksp_cleanup *c;
	int saved = errno;

	if (ctx == NULL)
		return;
	c = ksp_ctx_cleanup(ctx);
	for (int i = 0; i < KSP_CLEANUP_SLOTS; i++) {
		struct ksp_cleanup_slot *s = &c->slot[i];
		int live = 2;

		if (!atomic_compare_exchange_strong(&s->state, &live, 3))
			continue;
		if (s->kind == KSP_CLEANUP_HOME) {
			kill_agent(s);
			rm_tree(s->path);
		} else if (s->kind == KSP_CLEANUP_DIR) {
			rm_tree(s->path);
		} else {
			unlink(s->path);
		}
		/* left taken: the process is about to end */
	}
	errno = saved;
}
