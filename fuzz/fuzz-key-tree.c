// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the key-tree reader, ksp_keytree_read()
 * (src/lib/openpgp/pgp-tree.c), on a directory made from the input.  The
 * input is records separated by NUL bytes; a record is a path line and
 * the file's content, or "@PATH" and a symbolic link's target.  Paths keep
 * [A-Za-z0-9._-] components (at most 5, no "..") under the tree; a link
 * may point anywhere inside the tree, or to the one file beside it
 * (outside.asc): no other file of the machine is ever in reach.  Checked:
 * no crash, leak or undefined behaviour, and a success hands back bytes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libksp.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char base[64];
static struct ksp_ctx *ctx;

static void rm_tree(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		DIR *d = fdopendir(fd);
		struct dirent *de;
		while (d && (de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if (unlinkat(fd, de->d_name, 0) < 0)
				rm_tree(fd, de->d_name);
		}
		if (d)
			closedir(d);
		else
			close(fd);
	}
	unlinkat(dfd, name, AT_REMOVEDIR);
}

/* at exit: the folder of the trees (TMPDIR/ksp-fuzz-tree.XXXXXX) */
static void remove_base(void)
{
	char *slash = strrchr(base, '/');
	int fd;

	if (slash == NULL)
		return;
	*slash = '\0';
	fd = open(base[0] ? base : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*slash = '/';
	if (fd >= 0) {
		rm_tree(fd, slash + 1);
		close(fd);
	}
}

/* "a/b/c" from the line: components of [A-Za-z0-9._-], not "." or "..";
 * false when nothing is left */
static bool clean_path(const char *in, size_t n, char *out, size_t size, int *depth)
{
	size_t k = 0, comp = 0;

	*depth = 0;
	for (size_t i = 0; i <= n && k + 2 < size; i++) {
		char c = i < n ? in[i] : '/';
		if (c == '/') {
			if (comp == 0 || (comp == 1 && out[k - 1] == '.') ||
			    (comp == 2 && out[k - 1] == '.' && out[k - 2] == '.')) {
				k -= comp; /* dropped */
			} else if (*depth < 5) {
				out[k++] = '/';
				(*depth)++;
			} else {
				k -= comp;
			}
			comp = 0;
			continue;
		}
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		    c == '_' || c == '-') {
			out[k++] = c;
			comp++;
		}
	}
	if (k == 0)
		return false;
	out[k - 1] = '\0'; /* the last '/' */
	return true;
}

/* mkdir -p of @path's folders under @dfd */
static void parents(int dfd, char *path)
{
	for (char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdirat(dfd, path, 0700);
		*s = '/';
	}
}

/* Is the link target @t (from a link at depth @depth) inside the tree, or
 * exactly ../outside.asc seen from the tree's top? */
static bool target_ok(const char *t, int depth)
{
	int level = depth; /* folders below the tree's top */
	bool out = false;

	if (t[0] == '/' || t[0] == '\0')
		return false;
	for (const char *p = t; *p;) {
		size_t n = strcspn(p, "/");
		if (out)
			return false; /* nothing below outside.asc */
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--level < -1)
				return false;
		} else if (level == -1) {
			if (n != 11 || memcmp(p, "outside.asc", 11) != 0)
				return false;
			out = true;
		} else if (!(n == 1 && p[0] == '.') && n > 0) {
			level++;
		}
		p += n;
		if (*p == '/')
			p++;
	}
	return level >= 0 || out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	int bfd, tfd, records = 0;
	void *ring = NULL;
	size_t len = 0;

	if (ctx == NULL) {
		/* tmpfs when there is one: a tree is made and removed per input */
		const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
		snprintf(base, sizeof(base), "%s/ksp-fuzz-tree.XXXXXX", tmp && strlen(tmp) < 32 ? tmp : "/tmp");
		if (ksp_new(&ctx) < 0 || mkdtemp(base) == NULL)
			abort();
		int fd = openat(AT_FDCWD, base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int of = openat(fd, "outside.asc", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || of < 0)
			abort();
		/* not a key: a reader that followed a link out would still say so
		 * (damaged armor) */
		static const char junk[] = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nAAAA\n-----END PGP PUBLIC KEY BLOCK-----\n";
		(void)!write(of, junk, strlen(junk));
		close(of);
		close(fd);
		atexit(remove_base);
	}
	bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bfd < 0)
		abort();
	rm_tree(bfd, "t");
	if (mkdirat(bfd, "t", 0700) < 0 || (tfd = openat(bfd, "t", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		abort();
	while (p < end && records < 16) {
		const char *rec_end = memchr(p, '\0', (size_t)(end - p));
		const char *nl, *body;
		char path[256];
		bool link = *p == '@';
		int depth;

		if (rec_end == NULL)
			rec_end = end;
		nl = memchr(p, '\n', (size_t)(rec_end - p));
		body = nl ? nl + 1 : rec_end;
		if (clean_path(p + link, (size_t)((nl ? nl : rec_end) - p - link), path, sizeof(path), &depth)) {
			parents(tfd, path);
			if (link) {
				char target[256];
				size_t n = (size_t)(rec_end - body) < sizeof(target) - 1 ? (size_t)(rec_end - body) : sizeof(target) - 1;
				memcpy(target, body, n);
				target[n] = '\0';
				target[strcspn(target, "\n")] = '\0';
				if (target_ok(target, depth))
					(void)symlinkat(target, tfd, path);
			} else {
				int fd = openat(tfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
				if (fd >= 0) {
					(void)!write(fd, body, (size_t)(rec_end - body));
					close(fd);
				}
			}
			records++;
		}
		p = rec_end + 1;
	}
	close(tfd);
	{
		char dir[128];
		snprintf(dir, sizeof(dir), "%s/t", base);
		/* what it returns is a keyring for the hostile-input readers
		 * (wot load, party add): a binary file goes in as it is */
		if (ksp_keytree_read(ctx, dir, &ring, &len) == 0 && (ring == NULL || len == 0))
			abort(); /* 0 means a keyring (-ENODATA: no key) */
	}
	free(ring);
	rm_tree(bfd, "t");
	close(bfd);
	return 0;
}
