// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * publish-write.c: a publication put into DIR (publish-write.h).  DIR is
 * the user's, but what is inside it is input: a symlink or a file where a
 * folder of the layout belongs (keys, graphs, .keyring, .keyring/openpgp,
 * ...) is "in the way" and nothing is published; every name is opened
 * from DIR's descriptor one component at a time with O_NOFOLLOW (openat),
 * so no read, write, rename or removal ever leaves DIR.  All checks (a
 * name too long, a folder in the way, two files under one name) pass
 * before the first rename; the files are renamed before the symlinks that
 * point at them, then the files gone are removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/libksp-private.h"
#include "lib/publish/publish-write.h"
#include "shared/util.h"

struct wr {
	struct ksp_ctx *ctx;
	const char *dir;
	int dfd;
	struct pub_file *files;
	size_t n_files;
};

static const char *const managed[] = { "keys", "graphs", ".keyring/openpgp", ".keyring/by-hash" };

/* The folder @rel (its first @n bytes) of DIR, opened name by name without
 * following a symlink; made when @create.  *fd, or -ENOENT (absent, not
 * made), or -ENOTDIR with the error set (something else in the way). */
static int open_dir(struct wr *w, const char *rel, size_t n, bool create, int *fd)
{
	int cur = w->dfd;
	size_t i = 0;

	*fd = -1;
	while (i < n) {
		size_t l = 0;
		char name[NAME_MAX + 1];
		int nfd;

		while (i + l < n && rel[i + l] != '/')
			l++;
		if (l == 0 || l > NAME_MAX) {
			if (cur != w->dfd)
				close(cur);
			ksp_set_error(w->ctx, "%s/%.*s: not a name; nothing was published", w->dir, (int)(i + l), rel);
			return -ENAMETOOLONG;
		}
		memcpy(name, rel + i, l);
		name[l] = 0;
		nfd = openat(cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && errno == ENOENT && create) {
			if (mkdirat(cur, name, 0755) < 0 && errno != EEXIST)
				nfd = -1;
			else
				nfd = openat(cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (nfd < 0) {
			int e = errno;
			struct stat st;

			if (e == ENOENT && !create) {
				if (cur != w->dfd)
					close(cur);
				return -ENOENT;
			}
			if (e == ELOOP || e == ENOTDIR || (fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))) {
				bool lnk = fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
				ksp_set_error(w->ctx, "%s/%.*s: in the way (%s, not a folder); move it away, nothing was published",
					      w->dir, (int)(i + l), rel, lnk ? "a symlink" : "a file");
				e = ENOTDIR;
			} else {
				ksp_set_error(w->ctx, "%s/%.*s: cannot open: %s; nothing was published", w->dir, (int)(i + l),
					      rel, strerror(e));
			}
			if (cur != w->dfd)
				close(cur);
			return -e;
		}
		if (cur != w->dfd)
			close(cur);
		cur = nfd;
		i += l + 1;
	}
	*fd = cur == w->dfd ? fcntl(cur, F_DUPFD_CLOEXEC, 0) : cur;
	return *fd < 0 ? -errno : 0;
}

/* The folder of @path and its last name. */
static int open_parent(struct wr *w, const char *path, bool create, int *fd, const char **base)
{
	const char *s = strrchr(path, '/');

	*base = s ? s + 1 : path;
	return open_dir(w, path, s ? (size_t)(s - path) : 0, create, fd);
}

static int count_paths(const uint8_t *d, size_t len)
{
	int n = 0;

	for (size_t i = 0; i + 5 <= len; i++)
		if ((i == 0 || d[i - 1] == '\n') && memcmp(d + i, "from ", 5) == 0)
			n++;
	return n;
}

static bool is_graph_txt(const char *path)
{
	size_t pl = strlen(path);

	return pl > 11 && strncmp(path, "graphs/", 7) == 0 && strcmp(path + pl - 4, ".txt") == 0;
}

/* A regular file of DIR (no symlink followed) read whole; -ENOENT absent,
 * 1 something else there. */
static int read_at(struct wr *w, const char *path, uint8_t **data, size_t *len)
{
	const char *base;
	struct stat st;
	int pfd, fd, r;

	*data = NULL;
	*len = 0;
	r = open_parent(w, path, false, &pfd, &base);
	if (r < 0)
		return r;
	fd = openat(pfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : 1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 1;
	}
	r = read_fd_all(fd, 256u << 20, data, len);
	close(fd);
	return r < 0 ? r : 0;
}

/* Is the file at @f->path what @f holds?  1 same, 0 differs or absent
 * (*old: its bytes when it is a file), or -errno with the error set (a
 * folder where the file goes, a file or symlink where a folder goes). */
static int same_file(struct wr *w, const struct pub_file *f, uint8_t **old, size_t *old_len)
{
	const char *base;
	struct stat st;
	int pfd, r;

	*old = NULL;
	*old_len = 0;
	r = open_parent(w, f->path, false, &pfd, &base);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = errno == ENOENT ? 0 : -errno;
		close(pfd);
		if (r < 0)
			ksp_set_error(w->ctx, "%s/%s: cannot read: %s; nothing was published", w->dir, f->path, strerror(-r));
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		close(pfd);
		ksp_set_error(w->ctx, "%s/%s: in the way (a folder); move it away, nothing was published", w->dir, f->path);
		return -EISDIR;
	}
	if (f->link) {
		char buf[PATH_MAX];
		ssize_t n = S_ISLNK(st.st_mode) ? readlinkat(pfd, base, buf, sizeof(buf)) : -1;

		close(pfd);
		return n >= 0 && (size_t)n == f->len && memcmp(buf, f->data, f->len) == 0;
	}
	close(pfd);
	if (!S_ISREG(st.st_mode))
		return 0;
	if (read_at(w, f->path, old, old_len) != 0)
		return 0;
	return *old_len == f->len && (f->len == 0 || memcmp(*old, f->data, f->len) == 0);
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct pub_file *)a)->path, ((const struct pub_file *)b)->path);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool wanted(const struct wr *w, const char *rel)
{
	struct pub_file key = { .path = (char *)rel };

	return w->n_files && bsearch(&key, w->files, w->n_files, sizeof(*w->files), cmp_file) != NULL;
}

/* The files under folder @fd (@rel in DIR) that are not published any more
 * (symlinks are files here: never followed). */
static int find_removed(struct wr *w, int fd, const char *rel, char ***gone, size_t *n_gone, int depth)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0), r = 0;

	if (depth > 8) {
		close(dfd);
		return 0;
	}
	d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (d == NULL) {
		r = -errno;
		if (dfd >= 0)
			close(dfd);
		ksp_set_error(w->ctx, "%s/%s: cannot read the folder: %s; nothing was published", w->dir, rel, strerror(-r));
		return r;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 32;
			char **nn = realloc(names, nc * sizeof(*nn));
			if (nn == NULL) {
				r = -ENOMEM;
				break;
			}
			names = nn;
			cap = nc;
		}
		if ((names[n] = strdup(de->d_name)) == NULL) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (r == 0 && n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n && r >= 0; i++) {
		struct stat st;
		char *sub = NULL;

		if (asprintf(&sub, "%s/%s", rel, names[i]) < 0) {
			r = -ENOMEM;
			break;
		}
		if (fstatat(fd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
			int sfd = openat(fd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sfd >= 0) {
				r = find_removed(w, sfd, sub, gone, n_gone, depth + 1);
				close(sfd);
			}
		} else if (!wanted(w, sub)) {
			char **ng = realloc(*gone, (*n_gone + 1) * sizeof(*ng));
			if (ng == NULL) {
				r = -ENOMEM;
			} else {
				*gone = ng;
				ng[(*n_gone)++] = sub;
				sub = NULL;
			}
		}
		free(sub);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

/* Every name of every file fits (checked before anything is written). */
static int names_ok(struct wr *w)
{
	for (size_t i = 0; i < w->n_files; i++) {
		const char *p = w->files[i].path;

		if (strlen(p) >= PATH_MAX || *p == '/' || *p == 0)
			goto bad;
		for (const char *c = p; *c;) {
			size_t l = strcspn(c, "/");
			if (l == 0 || l > NAME_MAX || (l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
				goto bad;
			c += l + (c[l] == '/');
		}
		if (i > 0 && strcmp(w->files[i - 1].path, p) == 0) {
			ksp_set_error(w->ctx, "%s: two keys would be published under this name (the same key ID); "
					      "nothing was published", p);
			return -EEXIST;
		}
		continue;
bad:
		ksp_set_error(w->ctx, "%.80s...: not a file name (a name over %d bytes?); nothing was published", p,
			      NAME_MAX);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Step 1: what changed, staged in @tfd as <index>; what is gone listed. */
static int stage(struct wr *w, int tfd, const char *tmp, bool *staged, char ***gone, size_t *n_gone,
		 pub_change_fn change, void *opaque)
{
	int r = 0;

	for (size_t i = 0; i < w->n_files && r >= 0; i++) {
		const struct pub_file *f = &w->files[i];
		uint8_t *old = NULL;
		size_t old_len = 0;
		bool txt = is_graph_txt(f->path);
		char name[32];
		int same = same_file(w, f, &old, &old_len);

		if (same < 0) {
			free(old);
			return same;
		}
		if (!same) {
			r = change(opaque, old ? KSP_PUBLISH_CHANGED : KSP_PUBLISH_ADDED, f->path,
				   txt && old ? count_paths(old, old_len) : txt ? 0 : -1, txt ? count_paths(f->data, f->len) : -1);
			snprintf(name, sizeof(name), "%zu", i);
			if (r >= 0 && f->link) {
				char *target = strndup((const char *)f->data, f->len);
				if (target == NULL || symlinkat(target, tfd, name) < 0)
					r = target ? -errno : -ENOMEM;
				free(target);
			} else if (r >= 0) {
				int fd = openat(tfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
				if (fd < 0) {
					r = -errno;
				} else {
					r = write_all(fd, f->data, f->len);
					if (close(fd) < 0 && r >= 0)
						r = -errno;
				}
			}
			if (r >= 0)
				staged[i] = true;
			else if (r != -ENOMEM)
				ksp_set_error(w->ctx, "%s: cannot write: %s; nothing was published", tmp, strerror(-r));
		}
		free(old);
	}
	for (size_t m = 0; m < ARRAY_SIZE(managed) && r >= 0; m++) {
		int fd;

		r = open_dir(w, managed[m], strlen(managed[m]), false, &fd);
		if (r == -ENOENT) {
			r = 0;
			continue;
		}
		if (r < 0)
			break;
		r = find_removed(w, fd, managed[m], gone, n_gone, 0);
		close(fd);
	}
	for (size_t i = 0; i < *n_gone && r >= 0; i++) {
		int old_paths = -1;

		if (is_graph_txt((*gone)[i])) {
			uint8_t *old = NULL;
			size_t ol = 0;
			if (read_at(w, (*gone)[i], &old, &ol) == 0)
				old_paths = count_paths(old, ol);
			free(old);
		}
		r = change(opaque, KSP_PUBLISH_REMOVED, (*gone)[i], old_paths, old_paths >= 0 ? 0 : -1);
	}
	/* on disk before any of it is put in place */
	if (r >= 0 && syncfs(tfd) < 0) {
		r = -errno;
		ksp_set_error(w->ctx, "%s: cannot write: %s; nothing was published", tmp, strerror(-r));
	}
	return r;
}

/* Step 2: into place, the files before the symlinks to them; then the
 * files gone removed, and the folders they leave empty. */
static int put_in_place(struct wr *w, int tfd, const bool *staged, char **gone, size_t n_gone)
{
	int r = 0;

	for (int links = 0; links < 2; links++)
		for (size_t i = 0; i < w->n_files && r >= 0; i++) {
			const char *base;
			char name[32];
			int pfd;

			if (!staged[i] || w->files[i].link != (links == 1))
				continue;
			snprintf(name, sizeof(name), "%zu", i);
			r = open_parent(w, w->files[i].path, true, &pfd, &base);
			if (r >= 0) {
				if (renameat(tfd, name, pfd, base) < 0) {
					r = -errno;
					ksp_set_error(w->ctx, "%s/%s: cannot put in place: %s; publish again", w->dir,
						      w->files[i].path, strerror(-r));
				}
				close(pfd);
			}
		}
	for (size_t i = 0; i < n_gone && r >= 0; i++) {
		const char *base;
		int pfd;

		if (open_parent(w, gone[i], false, &pfd, &base) < 0)
			continue;
		if (unlinkat(pfd, base, 0) < 0 && errno != ENOENT) {
			r = -errno;
			ksp_set_error(w->ctx, "%s/%s: cannot remove: %s; publish again", w->dir, gone[i], strerror(-r));
		}
		close(pfd);
		/* the folders left empty */
		for (size_t l = strlen(gone[i]); r >= 0;) {
			const char *s = memrchr(gone[i], '/', l);
			int ppfd;
			const char *b2;
			char *sub;

			if (s == NULL)
				break;
			l = (size_t)(s - gone[i]);
			sub = strndup(gone[i], l);
			if (sub == NULL)
				break;
			if (open_parent(w, sub, false, &ppfd, &b2) == 0) {
				bool gone_too = unlinkat(ppfd, b2, AT_REMOVEDIR) == 0;
				close(ppfd);
				free(sub);
				if (!gone_too)
					break;
			} else {
				free(sub);
				break;
			}
		}
	}
	return r;
}

int pub_write_dir(struct ksp_ctx *ctx, const char *dir, struct pub_file *files, size_t n_files, pub_change_fn change,
		  void *opaque)
{
	struct wr w = { .ctx = ctx, .dir = dir, .dfd = -1, .files = files, .n_files = n_files };
	char *tmp = NULL, **gone = NULL;
	size_t n_gone = 0;
	bool *staged = NULL;
	int tfd = -1, r;

	qsort(files, n_files, sizeof(*files), cmp_file);
	r = names_ok(&w);
	if (r < 0)
		return r;
	/* DIR itself is the user's (a symlink to a folder is fine) */
	w.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.dfd < 0 && errno == ENOENT && mkdir(dir, 0755) == 0)
		w.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.dfd < 0) {
		r = -errno;
		if (r == -ENOTDIR)
			ksp_set_error(ctx, "%s: not a folder; give the folder to publish into", dir);
		else
			ksp_set_error(ctx, "%s: cannot make the folder: %s; check the path", dir, strerror(-r));
		return r;
	}
	staged = calloc(n_files ? n_files : 1, sizeof(*staged));
	if (staged == NULL || asprintf(&tmp, "%s/.ksp-publish-XXXXXX", dir) < 0) {
		tmp = NULL;
		r = -ENOMEM;
		goto out;
	}
	if (mkdtemp(tmp) == NULL ||
	    (tfd = openat(w.dfd, strrchr(tmp, '/') + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = -errno;
		ksp_set_error(ctx, "%s: cannot write: %s; nothing was published", dir, strerror(-r));
		goto out;
	}
	r = stage(&w, tfd, tmp, staged, &gone, &n_gone, change, opaque);
	if (r >= 0)
		r = put_in_place(&w, tfd, staged, gone, n_gone);
out:
	if (tfd >= 0) {
		char name[32];

		for (size_t i = 0; i < n_files; i++)
			if (staged[i]) {
				snprintf(name, sizeof(name), "%zu", i);
				(void)unlinkat(tfd, name, 0);
			}
		close(tfd);
		(void)unlinkat(w.dfd, strrchr(tmp, '/') + 1, AT_REMOVEDIR);
	}
	close(w.dfd);
	free(tmp);
	free(staged);
	for (size_t i = 0; i < n_gone; i++)
		free(gone[i]);
	free(gone);
	return r;
}
