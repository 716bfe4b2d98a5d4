// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * git-run.c: every git command ksp starts ('ksp verify --git-*', 'ksp wot
 * refresh'), in one place (cli/git-run.h).  A repository is input, not
 * authority (docs/security.md): the settings a repository's configuration
 * could use to run a command or to redirect a read are overridden on the
 * command line (the repository's config is read last, but -c wins), no
 * system config, no replace objects, no grafts, no network (a partial clone
 * cannot fetch), and none of the caller's GIT_* variables that pick another
 * repository, index or object store.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/git-run.h"
#include "shared/util.h"

extern char **environ;

/* what git reads of a repository's settings that can run a command or
 * make it read elsewhere, for the commands used here (rev-parse, rev-list,
 * merge-base, diff-tree, cat-file, config) */
static const char *const git_safe_opts[] = {
	"--no-replace-objects",
	"-c", "core.fsmonitor=",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.pager=cat",
	"-c", "core.sshCommand=false",
	"-c", "core.askPass=",
	"-c", "core.attributesFile=/dev/null",
	"-c", "core.alternateRefsCommand=",
	"-c", "credential.helper=",
	"-c", "diff.external=",
	"-c", "protocol.allow=never",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "uploadpack.packObjectsHook=",
};

/* a copy of environ without GIT_* (but the user's GIT_CONFIG_GLOBAL), and
 * with the safe settings */
static char **git_env(void)
{
	static const char *const add[] = { "GIT_CONFIG_NOSYSTEM=1", "GIT_NO_REPLACE_OBJECTS=1", "GIT_TERMINAL_PROMPT=0",
					   "GIT_OPTIONAL_LOCKS=0",  "GIT_NO_LAZY_FETCH=1",       "GIT_PROTOCOL_FROM_USER=0",
					   "GIT_PAGER=cat",         "GIT_GRAFT_FILE=/dev/null" };
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + ARRAY_SIZE(add) + 1, sizeof(*env));
	if (env == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "GIT_", 4) != 0 || strncmp(environ[i], "GIT_CONFIG_GLOBAL=", 18) == 0)
			env[k++] = environ[i];
	for (size_t i = 0; i < ARRAY_SIZE(add); i++)
		env[k++] = (char *)add[i];
	env[k] = NULL;
	return env;
}

/* (Long: the environment, the pipes, the spawn and the reads of a hardened git run, each failure cleaned up in one exit.) */
int cli_git(const char *gitdir, const char *repo, const char *const *args, const void *in, size_t in_len,
	    size_t max_out, struct input *out, char *err, size_t errlen)
{
	const char *argv[64];
	posix_spawn_file_actions_t fa;
	int pout[2] = { -1, -1 }, perr[2] = { -1, -1 }, infd = -1;
	size_t n = 0, cap = 0, elen = 0;
	char ebuf[1024], *gd = NULL, **env = NULL;
	bool big = false;
	pid_t pid;
	int r, st, rerr = 0;

	memset(out, 0, sizeof(*out));
	if (errlen)
		err[0] = '\0';
	if (gitdir && asprintf(&gd, "--git-dir=%s", gitdir) < 0)
		return -ENOMEM;
	argv[n++] = "git";
	if (gd) {
		argv[n++] = gd;
	} else if (repo) {
		argv[n++] = "-C";
		argv[n++] = repo;
	}
	for (size_t i = 0; i < ARRAY_SIZE(git_safe_opts); i++)
		argv[n++] = git_safe_opts[i];
	for (; *args && n < ARRAY_SIZE(argv) - 1; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	env = git_env();
	if (env == NULL) {
		free(gd);
		return -ENOMEM;
	}
	/* stdin: the request, whole, from a memory file (no deadlock with
	 * the output); or /dev/null */
	if (in) {
		infd = memfd_create("ksp-git-in", MFD_CLOEXEC);
		if (infd >= 0 && (write_all(infd, in, in_len) < 0 || lseek(infd, 0, SEEK_SET) < 0)) {
			close(infd);
			infd = -1;
		}
	} else {
		infd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	if (infd < 0 || pipe2(pout, O_CLOEXEC) < 0 || pipe2(perr, O_CLOEXEC) < 0) {
		r = -errno;
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, infd, 0);
	posix_spawn_file_actions_adddup2(&fa, pout[1], 1);
	posix_spawn_file_actions_adddup2(&fa, perr[1], 2);
	/* with the repository named by its .git: the work tree is never
	 * used, git runs in / */
	if (gd)
		posix_spawn_file_actions_addchdir_np(&fa, "/");
	r = posix_spawnp(&pid, "git", &fa, NULL, (char *const *)argv, env);
	posix_spawn_file_actions_destroy(&fa);
	close(pout[1]);
	close(perr[1]);
	pout[1] = perr[1] = -1;
	if (r != 0) {
		r = -r;
		goto out;
	}
	{
		struct pollfd pf[2] = { { .fd = pout[0], .events = POLLIN }, { .fd = perr[0], .events = POLLIN } };

		while (pf[0].fd >= 0 || pf[1].fd >= 0) {
			if (poll(pf, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				rerr = errno;
				break;
			}
			if (pf[0].fd >= 0 && pf[0].revents) {
				ssize_t k;
				if (cap - out->len < 65536) {
					size_t nc = cap ? 2 * cap : 65536;
					void *p = nc > max_out ? NULL : realloc(out->data, nc + 1);
					if (p == NULL) {
						big = true;
						close(pf[0].fd);
						pf[0].fd = -1;
						continue;
					}
					out->data = p;
					cap = nc;
				}
				k = read(pf[0].fd, out->data + out->len, cap - out->len);
				if (k > 0) {
					out->len += (size_t)k;
				} else if (k == 0 || errno != EINTR) {
					if (k < 0 && rerr == 0)
						rerr = errno;
					close(pf[0].fd);
					pf[0].fd = -1;
				}
			}
			if (pf[1].fd >= 0 && pf[1].revents) {
				char tmp[1024];
				ssize_t k = read(pf[1].fd, tmp, sizeof(tmp));
				if (k > 0) {
					size_t take = MIN((size_t)k, sizeof(ebuf) - 1 - elen);
					memcpy(ebuf + elen, tmp, take);
					elen += take;
				} else if (k == 0 || errno != EINTR) {
					close(pf[1].fd);
					pf[1].fd = -1;
				}
			}
		}
		for (size_t i = 0; i < 2; i++)
			if (pf[i].fd >= 0)
				close(pf[i].fd);
		pout[0] = perr[0] = -1;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		ebuf[elen] = '\0';
		elen = strcspn(ebuf, "\n");
		ebuf[elen] = '\0';
		if (errlen)
			snprintf(err, errlen, "%s", ebuf);
		if (rerr)
			r = -rerr;
		else if (big)
			r = -EFBIG;
		else
			r = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		if (out->data)
			out->data[out->len] = '\0';
	}
out:
	if (pout[0] >= 0)
		close(pout[0]);
	if (pout[1] >= 0)
		close(pout[1]);
	if (perr[0] >= 0)
		close(perr[0]);
	if (perr[1] >= 0)
		close(perr[1]);
	if (infd >= 0)
		close(infd);
	if (r != 0) {
		free(out->data);
		memset(out, 0, sizeof(*out));
	}
	free(env);
	free(gd);
	return r;
}

