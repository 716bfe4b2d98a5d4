// SPDX-License-Identifier: LGPL-2.1-or-later
/* Removing temporary GnuPG homes and files from a signal handler: see
 * cleanup.h and ksp_cleanup_after_signal() in libksp.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "lib/cleanup.h"
#include "lib/libksp-private.h"

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
