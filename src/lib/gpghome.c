// SPDX-License-Identifier: LGPL-2.1-or-later
/* Private temporary GnuPG homes: mode 0700, removed on every exit path. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lib/cleanup.h"
#include "lib/libksp-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"

struct ksp_gpghome {
	struct ksp_ctx *ctx;
	char *path;
	int cleanup; /* slot for ksp_cleanup_after_signal(), -1 none */
};

/* A file in each home naming the process that made it: a home whose
 * process is gone (killed outright, SIGKILL) is swept by the next one. */
#define OWNER_FILE "ksp-owner.pid"

/* Remove what is in the directory @dfd (closed here).  Best effort: it goes
 * on past an entry it cannot remove and returns the first error. */
static int rm_rf_at(int dfd)
{
	DIR *d;
	struct dirent *de;
	int r = 0;

	d = fdopendir(dfd);
	if (d == NULL) {
		r = -errno;
		close(dfd);
		return r;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			continue;
		if (errno == EISDIR || errno == EPERM) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				int q = rm_rf_at(sub);
				if (q < 0 && r == 0)
					r = q;
				if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) < 0 && r == 0)
					r = -errno;
				continue;
			}
			/* an empty directory goes without being opened */
			if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) == 0)
				continue;
		}
		if (errno != ENOENT && r == 0)
			r = -errno;
	}
	closedir(d);
	return r;
}

static int rm_rf_once(const char *path)
{
	int fd, r;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			return 0;
		/* an empty directory goes without being opened */
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		return r;
	}
	r = rm_rf_at(fd);
	if (rmdir(path) < 0 && errno != ENOENT)
		return r < 0 ? r : -errno;
	return 0;
}

/* Remove the directory @path and all in it.  A failure (EMFILE, ENOMEM, an
 * entry that could not be opened) may be passing: a second pass removes
 * what the first left.  ENOTEMPTY means something was still writing into
 * it (a gpg-agent on its way out, after its gpg was killed, removes its
 * sockets and may leave a lock file behind): then a few more passes, a
 * little apart (at most about 0.3 s in all).  Returns 0 once @path is
 * gone, else the first pass's error; the caller tells the user what is
 * left. */
int ksp_rm_rf(const char *path)
{
	int r = rm_rf_once(path), q = r;

	if (r == 0)
		return 0;
	for (int pass = 0; pass < 5; pass++) {
		if (pass > 0) {
			if (q != -ENOTEMPTY)
				break;
			struct timespec ts = { 0, 10000000L << pass }; /* 20, 40, 80, 160 ms */
			nanosleep(&ts, NULL);
		}
		q = rm_rf_once(path);
		if (q == 0)
			return 0;
	}
	return r;
}

/* Ask a gpg-agent that may have been started in @path to go. */
static void stop_agent(const char *path)
{
	struct strbuf sb;
	bool agent;

	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/S.gpg-agent", path);
	agent = strbuf_ok(&sb) && access(sb.buf, F_OK) == 0;
	strbuf_release(&sb);
	/* or a dirmngr alone ('party add --keyserver') */
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/S.dirmngr", path);
	agent = agent || (strbuf_ok(&sb) && access(sb.buf, F_OK) == 0);
	strbuf_release(&sb);
	/* where /run/user/UID exists, gpg puts the sockets there */
	if (!agent) {
		char run[64];
		snprintf(run, sizeof(run), "/run/user/%u/gnupg", (unsigned)getuid());
		agent = access(run, F_OK) == 0;
	}
	if (!agent)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		execlp("gpgconf", "gpgconf", "--homedir", path, "--kill", "all", (char *)NULL);
		_exit(127);
	} else if (pid > 0) {
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
}

void ksp_sweep_orphans(struct ksp_ctx *ctx, const char *dir, const char *prefix, const char *owner,
		       void (*gone)(struct ksp_ctx *ctx, const char *path, long pid))
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t pl = strlen(prefix);

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		char buf[32];
		long pid;
		ssize_t n;
		int fd, hd;

		if (strncmp(de->d_name, prefix, pl) != 0)
			continue;
		hd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (hd < 0)
			continue;
		if (fstat(hd, &st) < 0 || st.st_uid != getuid() ||
		    (fd = openat(hd, owner, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			close(hd);
			continue;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		close(hd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		pid = strtol(buf, NULL, 10);
		if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_addf(&sb, "%s/%s", dir, de->d_name);
		if (strbuf_ok(&sb))
			gone(ctx, sb.buf, pid);
		strbuf_release(&sb);
	}
	closedir(d);
}

/* A home an earlier ksp of this user left behind when it was killed
 * outright: its agent stopped, removed; best effort, and silent (a home in
 * use is never touched: its process is alive). */
static void home_gone(struct ksp_ctx *ctx, const char *path, long pid)
{
	stop_agent(path);
	if (ksp_rm_rf(path) == 0)
		INFO(ctx, "%s: removed a private GnuPG home left by ksp process %ld\n", path, pid);
}

int ksp_gpghome_new(struct ksp_ctx *ctx, struct ksp_gpghome **ret)
{
	struct ksp_gpghome *h;
	struct strbuf sb;
	int fd, r;

	ksp_sweep_orphans(ctx, ksp_get_tmpdir(ctx), "ksp-gnupg.", OWNER_FILE, home_gone);
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return -ENOMEM;
	h->cleanup = -1;
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/ksp-gnupg.XXXXXX", ksp_get_tmpdir(ctx));
	h->path = strbuf_steal(&sb);
	if (h->path == NULL) {
		free(h);
		return -ENOMEM;
	}
	if (mkdtemp(h->path) == NULL) {
		r = -errno;
		ksp_set_error(ctx, "%s: cannot create a private GnuPG home: %s; set TMPDIR to a writable directory",
			      h->path, strerror(-r));
		free(h->path);
		free(h);
		return r;
	}
	chmod(h->path, 0700);
	h->ctx = ksp_ref(ctx);
	/* removed, its agent stopped, if a signal ends the process */
	h->cleanup = ksp_cleanup_add(ctx, KSP_CLEANUP_HOME, h->path);
	/* the owner, for the sweep of a home left by a process killed
	 * outright; without it (no space?) the home is just never swept */
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/" OWNER_FILE, h->path);
	if (strbuf_ok(&sb)) {
		fd = open(sb.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0) {
			char pid[24];
			int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
			(void)write_all(fd, pid, (size_t)n);
			close(fd);
		}
	}
	strbuf_release(&sb);
	/* Keep gpg from ever reaching the network or a keyserver: without
	 * this file gpg's defaults (auto-key-locate wkd) would, so a home
	 * without it is not used. */
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/gpg.conf", h->path);
	if (!strbuf_ok(&sb)) {
		r = -ENOMEM;
	} else {
		static const char conf[] = "no-auto-key-locate\nno-auto-key-retrieve\n"
					   "keyserver-options no-auto-key-retrieve\n"
					   "allow-weak-key-signatures\n";
		fd = open(sb.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0) {
			r = -errno;
		} else {
			r = write_all(fd, conf, sizeof(conf) - 1);
			if (close(fd) < 0 && r == 0)
				r = -errno;
		}
		if (r < 0)
			ksp_set_error(ctx, "%s: cannot write the private GnuPG configuration: %s; set TMPDIR to a writable directory with free space",
				      sb.buf, strerror(-r));
	}
	strbuf_release(&sb);
	if (r < 0) {
		ksp_gpghome_free(h);
		return r;
	}
	*ret = h;
	return 0;
}

const char *ksp_gpghome_path(const struct ksp_gpghome *home)
{
	return home->path;
}

struct ksp_gpghome *ksp_gpghome_free(struct ksp_gpghome *home)
{
	if (home == NULL)
		return NULL;
	/* Ask a gpg-agent that may have been started in this home to go. */
	if (access(home->path, F_OK) == 0)
		stop_agent(home->path);
	int r = ksp_rm_rf(home->path);
	ksp_cleanup_del(home->ctx, home->cleanup);
	if (r < 0)
		WARN(home->ctx, "%s: cannot remove this temporary GnuPG home: %s; remove it with rm -rf\n",
		     home->path, strerror(-r));
	free(home->path);
	ksp_unref(home->ctx);
	free(home);
	return NULL;
}
