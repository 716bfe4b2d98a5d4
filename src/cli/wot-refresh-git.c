// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wot-refresh-git.c: git for 'ksp wot refresh' (wot-refresh.h).  What is
 * loaded is the tree of a commit whose signature was checked, read from
 * git's objects (cat-file --batch, every object hashed again against its
 * ID), never from the work tree or the index; git runs on DIR/.git named
 * explicitly, with the settings a repository could use to run a command or
 * to redirect a read overridden on the command line (the repository's
 * config is read last but -c wins), no system config, no replace objects,
 * no grafts, no network (a partial clone cannot fetch), and none of the caller's
 * GIT_* variables that pick another repository, index or object store.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/wot-refresh.h"
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

/* at most this much output of one git command (the objects of a key tree) */
#define GIT_MAX_OUT ((size_t)1 << 30)

int refresh_git_run(const char *gitdir, const char *const *args, const void *in, size_t in_len, struct input *out,
		    char *err, size_t errlen)
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
	if (asprintf(&gd, "--git-dir=%s", gitdir) < 0)
		return -ENOMEM;
	argv[n++] = "git";
	argv[n++] = gd;
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
	/* the work tree is never used: git runs in / */
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
					void *p = nc > GIT_MAX_OUT ? NULL : realloc(out->data, nc + 1);
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

int refresh_git_check_repo(struct ksp_cli *cli, const char *dir, const char *shown, char **gitdir)
{
	const char *args[] = { "config", "--local", "--get-all", "core.worktree", NULL };
	struct input out;
	struct stat st;
	char err[512];
	int r;

	*gitdir = NULL;
	if (asprintf(gitdir, "%s/.git", dir) < 0) {
		*gitdir = NULL;
		return cli_fail(cli, -ENOMEM, "wot refresh");
	}
	if (lstat(*gitdir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		bool found = errno != ENOENT;
		cli_err(cli,
			"%s: not the top of a git repository (%s/.git is %s): nothing was loaded; give the folder that "
			"holds the repository's .git folder itself",
			shown, shown,
			!found                ? "missing"
			: S_ISLNK(st.st_mode) ? "a symlink"
			: S_ISREG(st.st_mode) ? "a file, gitdir: elsewhere"
					      : "not a folder");
		goto refused;
	}
	r = refresh_git_run(*gitdir, args, NULL, 0, &out, err, sizeof(err));
	if (r < 0) {
		if (r == -ENOENT)
			cli_err(cli, "git: not found; install git (apt-get install git)");
		else
			cli_err(cli, "%s: cannot run git: %s; run the command again", shown, strerror(-r));
		return KSP_EXIT_ERROR;
	}
	if (r == 0) {
		cli_input_release(&out);
		cli_err(cli,
			"%s: its .git/config sets core.worktree (a work tree elsewhere): nothing was loaded; check the "
			"repository and remove the setting (git -C %s config --unset core.worktree)",
			shown, shown);
		goto refused;
	}
	if (r != 1) {
		char *e = cli_escape(err, strlen(err), KSP_ESCAPE_TERMINAL);
		cli_err(cli, "%s: git cannot read the repository (%s): nothing was loaded; check it (git -C %s fsck)",
			shown, e ? e : "?", shown);
		free(e);
		return KSP_EXIT_ERROR;
	}
	return 0;
refused:
	free(*gitdir);
	*gitdir = NULL;
	return KSP_EXIT_NEGATIVE;
}

/* One object of a cat-file --batch answer at *pos: its ID, type and bytes
 * (pointing into @b).  0, -EBADMSG for an answer that is not one. */
static int batch_next(const struct input *b, size_t *pos, char oid[65], char type[16], const uint8_t **data,
		      size_t *len)
{
	const char *p = (const char *)b->data + *pos, *nl;
	unsigned long long size;
	int used = 0;

	if (*pos >= b->len)
		return -EBADMSG;
	nl = memchr(p, '\n', b->len - *pos);
	if (nl == NULL || nl - p > 120 || sscanf(p, "%64[0-9a-f] %15[a-z] %llu%n", oid, type, &size, &used) != 3 ||
	    p + used != nl)
		return -EBADMSG;
	*pos += (size_t)(nl - p) + 1;
	if (size > b->len - *pos || b->len - *pos - size < 1 || b->data[*pos + size] != '\n')
		return -EBADMSG;
	*data = b->data + *pos;
	*len = (size_t)size;
	*pos += (size_t)size + 1;
	return 0;
}

/* the objects @oids (@n of them, type @type) in one cat-file --batch: the
 * answer in *out; each object checked, in order */
static int batch_read(struct ksp_cli *cli, const char *gitdir, const char *shown, char (*oids)[65], size_t n,
		      const char *type, struct input *out)
{
	const char *args[] = { "cat-file", "--batch", NULL };
	size_t pos = 0, rl = 0;
	char *req, err[512];
	int r;

	req = malloc(n * 66 + 1);
	if (req == NULL)
		return cli_fail(cli, -ENOMEM, "wot refresh");
	for (size_t i = 0; i < n; i++)
		rl += (size_t)sprintf(req + rl, "%s\n", oids[i]);
	req[rl] = 0;
	r = refresh_git_run(gitdir, args, req, rl, out, err, sizeof(err));
	free(req);
	if (r != 0) {
		if (r == -ENOENT)
			cli_err(cli, "git: not found; install git (apt-get install git)");
		else
			cli_err(cli, "%s: git cat-file failed (%s): nothing was loaded; check the repository (git -C %s fsck)",
				shown, r < 0 ? strerror(-r) : "exit status", shown);
		return KSP_EXIT_ERROR;
	}
	for (size_t i = 0; i < n; i++) {
		char o[65], t[16];
		const uint8_t *d;
		size_t l;

		if (batch_next(out, &pos, o, t, &d, &l) < 0 || strcmp(o, oids[i]) != 0 || strcmp(t, type) != 0 ||
		    ksp_git_object_check(o, t, d, l) != 0) {
			cli_err(cli,
				"%s: git object %s is missing, not a %s, or does not match its ID: nothing was loaded; "
				"check the repository (git -C %s fsck)",
				shown, oids[i], type, shown);
			cli_input_release(out);
			return KSP_EXIT_NEGATIVE;
		}
	}
	return 0;
}

int refresh_git_object(struct ksp_cli *cli, const char *gitdir, const char *shown, const char *oid, const char *type,
		       struct input *out)
{
	char one[1][65];
	const uint8_t *d;
	char o[65], t[16];
	size_t pos = 0, l;
	int r;

	snprintf(one[0], sizeof(one[0]), "%s", oid);
	r = batch_read(cli, gitdir, shown, one, 1, type, out);
	if (r)
		return r;
	(void)batch_next(out, &pos, o, t, &d, &l);
	memmove(out->data, d, l);
	out->len = l;
	out->data[l] = '\0';
	return 0;
}

struct tentry {
	char *path;
	char oid[65];
	unsigned int mode; /* 0100644, 0120000, ... */
	const uint8_t *data; /* the blob, in the batch answer */
	size_t len;
};

struct twalk {
	struct ksp_cli *cli;
	const char *gitdir, *shown;
	size_t hexlen; /* 40 or 64 */
	struct tentry *e; /* trees of the next level, then files and links */
	size_t n, cap;
};

static int twalk_add(struct twalk *w, char *path, const char *oid, unsigned int mode)
{
	if (w->n == w->cap) {
		size_t nc = w->cap ? w->cap * 2 : 64;
		struct tentry *ne = realloc(w->e, nc * sizeof(*ne));
		if (ne == NULL) {
			free(path);
			return -ENOMEM;
		}
		w->e = ne;
		w->cap = nc;
	}
	w->e[w->n] = (struct tentry){ .path = path, .mode = mode };
	snprintf(w->e[w->n].oid, sizeof(w->e[w->n].oid), "%s", oid);
	w->n++;
	return 0;
}

/* The entries of tree @prefix (@d, @len bytes, checked) at @depth names
 * below the top: folders into @next, what is read into @w. */
static int tree_entries(struct twalk *w, const char *prefix, int depth, const uint8_t *d, size_t len,
			struct twalk *next)
{
	size_t pos = 0, raw = w->hexlen / 2;

	while (pos < len) {
		const uint8_t *sp = memchr(d + pos, ' ', len - pos), *nul;
		unsigned int mode = 0;
		char oid[65], *path = NULL, *e = NULL;
		const char *name;
		bool keyring = depth == 1 && strcmp(prefix, ".keyring") == 0;
		int r = 0;

		if (sp == NULL || sp == d + pos || sp - (d + pos) > 6)
			goto bad;
		for (const uint8_t *c = d + pos; c < sp; c++) {
			if (*c < '0' || *c > '7')
				goto bad;
			mode = mode * 8 + (unsigned)(*c - '0');
		}
		name = (const char *)sp + 1;
		nul = memchr(sp + 1, 0, len - (size_t)(sp + 1 - d));
		if (nul == NULL || (size_t)(d + len - nul) < 1 + raw || nul == sp + 1 || strcmp(name, ".") == 0 ||
		    strcmp(name, "..") == 0)
			goto bad;
		hex_encode(nul + 1, raw, oid);
		for (char *c = oid; *c; c++)
			if (*c >= 'A' && *c <= 'F')
				*c = (char)(*c - 'A' + 'a');
		pos = (size_t)(nul + 1 - d) + raw;
		/* the walk's rules (pgp-tree.c): dot names but .keyring at the
		 * top; in .keyring, openpgp only */
		if (name[0] == '.' && !(depth == 0 && strcmp(name, ".keyring") == 0))
			continue;
		if (asprintf(&path, "%s%s%s", prefix, *prefix ? "/" : "", name) < 0)
			return cli_fail(w->cli, -ENOMEM, "wot refresh");
		if (keyring && strcmp(name, "openpgp") != 0) {
			e = cli_escape(path, strlen(path), KSP_ESCAPE_TERMINAL);
			cli_warn(w->cli, "%s: %s: not OpenPGP keys, skipped", w->shown, e ? e : "?");
			free(e);
			free(path);
			continue;
		}
		if (mode == 040000) {
			if (depth >= 16) {
				free(path);
				cli_err(w->cli, "%s: folders nested more than 16 deep: not a key tree, nothing was loaded",
					w->shown);
				return KSP_EXIT_NEGATIVE;
			}
			r = twalk_add(next, path, oid, mode);
		} else if (mode == 0100644 || mode == 0100755 || mode == 0100664 || mode == 0120000) {
			r = twalk_add(w, path, oid, mode);
		} else {
			e = cli_escape(path, strlen(path), KSP_ESCAPE_TERMINAL);
			cli_err(w->cli, "%s: %s is %s in the commit's tree: nothing was loaded; a key tree holds files only",
				w->shown, e ? e : "?", mode == 0160000 ? "a submodule" : "no file");
			free(e);
			free(path);
			return KSP_EXIT_NEGATIVE;
		}
		if (r < 0)
			return cli_fail(w->cli, r, "wot refresh");
	}
	return 0;
bad:
	cli_err(w->cli, "%s: a damaged tree object under '%s': nothing was loaded; check the repository (git fsck)",
		w->shown, *prefix ? prefix : "/");
	return KSP_EXIT_NEGATIVE;
}

static int cmp_tentry(const void *a, const void *b)
{
	return strcmp(((const struct tentry *)a)->path, ((const struct tentry *)b)->path);
}

/* A symlink of the tree: skipped when it names (inside the tree) a file
 * of the tree that is read as itself; 0, or KSP_EXIT_NEGATIVE. */
static int link_check(struct twalk *w, const struct tentry *l)
{
	const char *t = (const char *)l->data;
	char *res = NULL, *e;
	size_t rl = 0;
	bool ok = false;

	if (l->len == 0 || l->len > 4096 || memchr(t, 0, l->len) || t[0] == '/')
		goto refuse;
	res = malloc(strlen(l->path) + l->len + 2);
	if (res == NULL)
		return cli_fail(w->cli, -ENOMEM, "wot refresh");
	/* the link's folder, then the target's names, lexically */
	{
		const char *slash = strrchr(l->path, '/');
		rl = slash ? (size_t)(slash - l->path) : 0;
		memcpy(res, l->path, rl);
		res[rl] = 0;
	}
	for (size_t i = 0; i < l->len;) {
		size_t n = 0;

		while (i + n < l->len && t[i + n] != '/')
			n++;
		if (n == 0 || (n == 1 && t[i] == '.')) {
			/* nothing */
		} else if (n == 2 && t[i] == '.' && t[i + 1] == '.') {
			char *s;
			if (rl == 0)
				goto refuse; /* out of the tree */
			s = memrchr(res, '/', rl);
			rl = s ? (size_t)(s - res) : 0;
			res[rl] = 0;
		} else {
			if (rl)
				res[rl++] = '/';
			memcpy(res + rl, t + i, n);
			rl += n;
			res[rl] = 0;
		}
		i += n + 1;
	}
	{
		struct tentry key = { .path = res }, *f = bsearch(&key, w->e, w->n, sizeof(*w->e), cmp_tentry);
		ok = f && f->mode != 0120000;
	}
	if (ok) {
		free(res);
		return 0;
	}
refuse:
	free(res);
	e = cli_escape(l->path, strlen(l->path), KSP_ESCAPE_TERMINAL);
	cli_err(w->cli,
		"%s: %s is a symlink to no file of the commit's tree (out of it, into .git, or to a link or folder): "
		"nothing was loaded; replace it by the file it stands for",
		w->shown, e ? e : "?");
	free(e);
	return KSP_EXIT_NEGATIVE;
}

static int tree_commit_root(struct ksp_cli *cli, const char *gitdir, const char *shown, const char *commit,
			    char tree[65])
{
	struct input c;
	int r = refresh_git_object(cli, gitdir, shown, commit, "commit", &c);

	if (r)
		return r;
	if (c.len < 46 || sscanf((const char *)c.data, "tree %64[0-9a-f]\n", tree) != 1 ||
	    (strlen(tree) != 40 && strlen(tree) != 64) || strlen(tree) != strlen(commit)) {
		cli_input_release(&c);
		cli_err(cli, "%s: commit %s names no tree: nothing was loaded; check the repository (git fsck)", shown,
			commit);
		return KSP_EXIT_NEGATIVE;
	}
	cli_input_release(&c);
	return 0;
}

/* the files (and links) of the tree @root, every tree object checked */
static int tree_list(struct twalk *w, const char *root)
{
	struct twalk level = { 0 }, next = { 0 };
	int r = 0;

	r = twalk_add(&level, strdup(""), root, 040000);
	if (r < 0 || level.e[0].path == NULL)
		return cli_fail(w->cli, -ENOMEM, "wot refresh");
	for (int depth = 0; level.n > 0 && r == 0; depth++) {
		char (*oids)[65] = calloc(level.n, sizeof(*oids));
		struct input ans = { 0 };
		size_t pos = 0;

		if (oids == NULL) {
			r = cli_fail(w->cli, -ENOMEM, "wot refresh");
			break;
		}
		for (size_t i = 0; i < level.n; i++)
			memcpy(oids[i], level.e[i].oid, sizeof(oids[i]));
		r = batch_read(w->cli, w->gitdir, w->shown, oids, level.n, "tree", &ans);
		free(oids);
		for (size_t i = 0; i < level.n && r == 0; i++) {
			char o[65], t[16];
			const uint8_t *d;
			size_t l;

			(void)batch_next(&ans, &pos, o, t, &d, &l);
			r = tree_entries(w, level.e[i].path, depth, d, l, &next);
		}
		cli_input_release(&ans);
		for (size_t i = 0; i < level.n; i++)
			free(level.e[i].path);
		free(level.e);
		level = next;
		next = (struct twalk){ 0 };
	}
	for (size_t i = 0; i < level.n; i++)
		free(level.e[i].path);
	free(level.e);
	for (size_t i = 0; i < next.n; i++)
		free(next.e[i].path);
	free(next.e);
	return r;
}

int refresh_git_tree(struct ksp_cli *cli, const char *gitdir, const char *shown, const char *commit, void **ret,
		     size_t *ret_len)
{
	struct twalk w = { .cli = cli, .gitdir = gitdir, .shown = shown, .hexlen = strlen(commit) };
	struct ksp_keytree *kt = NULL;
	struct input blobs = { 0 };
	char root[65], (*oids)[65] = NULL;
	size_t pos = 0;
	int r;

	*ret = NULL;
	*ret_len = 0;
	r = tree_commit_root(cli, gitdir, shown, commit, root);
	if (r == 0)
		r = tree_list(&w, root);
	if (r)
		goto out;
	if (w.n == 0) {
		cli_err(cli, "%s: the tree of commit %s holds no file: nothing was loaded; give a key tree", shown, commit);
		r = KSP_EXIT_NEGATIVE;
		goto out;
	}
	qsort(w.e, w.n, sizeof(*w.e), cmp_tentry);
	oids = calloc(w.n, sizeof(*oids));
	if (oids == NULL) {
		r = cli_fail(cli, -ENOMEM, "wot refresh");
		goto out;
	}
	for (size_t i = 0; i < w.n; i++)
		memcpy(oids[i], w.e[i].oid, sizeof(oids[i]));
	r = batch_read(cli, gitdir, shown, oids, w.n, "blob", &blobs);
	if (r)
		goto out;
	for (size_t i = 0; i < w.n; i++) {
		char o[65], t[16];
		(void)batch_next(&blobs, &pos, o, t, &w.e[i].data, &w.e[i].len);
	}
	for (size_t i = 0; i < w.n && r == 0; i++)
		if (w.e[i].mode == 0120000)
			r = link_check(&w, &w.e[i]);
	if (r)
		goto out;
	r = ksp_keytree_new(cli->ctx, &kt);
	for (size_t i = 0; i < w.n && r >= 0; i++)
		if (w.e[i].mode != 0120000)
			r = ksp_keytree_add_file(kt, w.e[i].path, w.e[i].data, w.e[i].len);
	if (r >= 0)
		r = ksp_keytree_finish(kt, ret, ret_len);
	if (r < 0)
		r = cli_fail(cli, r, "%s: cannot read the tree of commit %s", shown, commit);
out:
	ksp_keytree_free(kt);
	cli_input_release(&blobs);
	free(oids);
	for (size_t i = 0; i < w.n; i++)
		free(w.e[i].path);
	free(w.e);
	return r;
}
