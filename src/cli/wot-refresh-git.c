// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wot-refresh-git.c: git for 'ksp wot refresh' (wot-refresh.h).  What is
 * loaded is the tree of a commit whose signature was checked, read from
 * git's objects (cat-file --batch, every object hashed again against its
 * ID), never from the work tree or the index; git runs on DIR/.git named
 * explicitly, with settings the repository cannot change (git-run.c).
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

#include "cli/git-run.h"
#include "cli/wot-refresh.h"
#include "shared/util.h"

/* at most this much output of one git command (the objects of a key tree) */
#define GIT_MAX_OUT ((size_t)1 << 30)

int refresh_git_run(const char *gitdir, const char *const *args, const void *in, size_t in_len, struct input *out,
		    char *err, size_t errlen)
{
	return cli_git(gitdir, NULL, args, in, in_len, GIT_MAX_OUT, out, err, errlen);
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
