// SPDX-License-Identifier: LGPL-2.1-or-later
/* Private temporary GnuPG homes: mode 0700, removed on every exit path. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lib/libksp-private.h"
#include "shared/strbuf.h"

struct ksp_gpghome {
	struct ksp_ctx *ctx;
	char *path;
};

static int rm_rf_at(int dfd)
{
	DIR *d;
	struct dirent *de;
	int r = 0;

	d = fdopendir(dfd);
	if (d == NULL) {
		close(dfd);
		return -errno;
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
				rm_rf_at(sub);
				if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) < 0 && r == 0)
					r = -errno;
				continue;
			}
		}
		if (errno != ENOENT && r == 0)
			r = -errno;
	}
	closedir(d);
	return r;
}

int ksp_rm_rf(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	rm_rf_at(fd);
	if (rmdir(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int ksp_gpghome_new(struct ksp_ctx *ctx, struct ksp_gpghome **ret)
{
	struct ksp_gpghome *h;
	struct strbuf sb;
	int fd;

	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return -ENOMEM;
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/ksp-gnupg.XXXXXX", ksp_get_tmpdir(ctx));
	h->path = strbuf_steal(&sb);
	if (h->path == NULL) {
		free(h);
		return -ENOMEM;
	}
	if (mkdtemp(h->path) == NULL) {
		int r = -errno;
		ksp_set_error(ctx, "%s: cannot create a private GnuPG home: %s; set TMPDIR to a writable directory",
			      h->path, strerror(-r));
		free(h->path);
		free(h);
		return r;
	}
	chmod(h->path, 0700);
	/* Keep gpg from ever reaching the network or a keyserver. */
	sb.buf = NULL;
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/gpg.conf", h->path);
	if (strbuf_ok(&sb)) {
		fd = open(sb.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0) {
			static const char conf[] = "no-auto-key-locate\nno-auto-key-retrieve\n"
						   "keyserver-options no-auto-key-retrieve\n"
						   "allow-weak-key-signatures\n";
			if (write(fd, conf, sizeof(conf) - 1) < 0) {
				/* harmless: defaults apply */
			}
			close(fd);
		}
	}
	strbuf_release(&sb);
	h->ctx = ksp_ref(ctx);
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
	if (access(home->path, F_OK) == 0) {
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_addf(&sb, "%s/S.gpg-agent", home->path);
		bool agent = strbuf_ok(&sb) && access(sb.buf, F_OK) == 0;
		/* where /run/user/UID exists, gpg puts the sockets there */
		if (!agent) {
			char run[64];
			snprintf(run, sizeof(run), "/run/user/%u/gnupg", (unsigned)getuid());
			agent = access(run, F_OK) == 0;
		}
		if (agent) {
			pid_t pid = fork();
			if (pid == 0) {
				int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
				if (devnull >= 0) {
					dup2(devnull, 0);
					dup2(devnull, 1);
					dup2(devnull, 2);
				}
				execlp("gpgconf", "gpgconf", "--homedir", home->path, "--kill", "all",
				       (char *)NULL);
				_exit(127);
			} else if (pid > 0) {
				int st;
				while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
					;
			}
		}
		strbuf_release(&sb);
	}
	ksp_rm_rf(home->path);
	free(home->path);
	ksp_unref(home->ctx);
	free(home);
	return NULL;
}
