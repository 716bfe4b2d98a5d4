// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pgp-tree.c: a directory of keys as kernel.org's pgpkeys repository lays
 * it out (keys/<KEYID>.asc: a `gpg --list-keys`-like header, then one or
 * more armored blocks; .keyring/openpgp/<domain>/<local>/default, often
 * symlinks into keys/, for b4 and patatt; .keyring/<other type>/ for keys
 * that are not OpenPGP), read into one binary keyring, so that every
 * reader of keyrings (wot load, party add, import) takes such a tree.
 *
 * Text outside armor is skipped, never an error.  What is refused, with
 * one line naming the file: a symlink whose target lies outside the tree,
 * a file over KSP_TREE_MAX_FILE, damaged armor, a keys/<KEYID>.asc whose
 * name or header names a key the armor does not hold, and one key in two
 * files of the tree outside .keyring/ (the .keyring copies are lookups of
 * the keys/ files by design).  The walk is sorted: the same tree gives
 * the same bytes.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gcrypt.h>

#include "lib/libksp-private.h"
#include "lib/openpgp/pgp.h"
#include "shared/util.h"

#define MAX_DEPTH 16

struct seen_key {
	char fpr[65];
	char *file;
	dev_t dev;
	ino_t ino;
};

struct tree {
	struct ksp_ctx *ctx;
	char *root;      /* realpath of the tree */
	size_t root_len;
	uint8_t *out;
	size_t len, cap;
	struct seen_key *keys;
	size_t n_keys, cap_keys;
	struct { dev_t dev; ino_t ino; } *files; /* read already (symlinks) */
	size_t n_files, cap_files;
	size_t n_read;
};

static int append(struct tree *t, const uint8_t *p, size_t n)
{
	if (t->len + n > t->cap) {
		size_t nc = t->cap ? t->cap : 65536;
		uint8_t *o;

		while (nc < t->len + n)
			nc *= 2;
		o = realloc(t->out, nc);
		if (o == NULL)
			return -ENOMEM;
		t->out = o;
		t->cap = nc;
	}
	memcpy(t->out + t->len, p, n);
	t->len += n;
	return 0;
}

static const char *rel(const struct tree *t, const char *path)
{
	size_t n = t->root_len;

	if (strncmp(path, t->root, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

/* Is @name of the file keys/<16 hex>.asc, and which key ID? */
static bool keyid_name(const char *relpath, char kid[17])
{
	const char *b = strrchr(relpath, '/');
	size_t i;

	if (b == NULL || strncmp(relpath, "keys/", 5) != 0 || b != relpath + 4)
		return false;
	b++;
	if (strlen(b) != 20 || strcasecmp(b + 16, ".asc") != 0)
		return false;
	for (i = 0; i < 16; i++) {
		if (!isxdigit((unsigned char)b[i]))
			return false;
		kid[i] = (char)toupper((unsigned char)b[i]);
	}
	kid[16] = 0;
	return true;
}

/* The fingerprints a file's header (the text before its first armor)
 * names: words of 40 or 64 hex digits. */
static int header_check(struct tree *t, const char *relpath, const uint8_t *data, size_t hlen,
			const struct ksp_pgp_key *const *keys, size_t n)
{
	size_t i = 0;

	while (i < hlen) {
		size_t j = i;
		char w[65];
		bool ok = false;

		while (j < hlen && isxdigit(data[j]))
			j++;
		if ((j - i == 40 || j - i == 64) && (i == 0 || isspace(data[i - 1])) && (j == hlen || isspace(data[j]))) {
			for (size_t k = 0; k < j - i; k++)
				w[k] = (char)toupper(data[i + k]);
			w[j - i] = 0;
			for (size_t k = 0; k < n && !ok; k++) {
				char f[65];

				ksp_pgp_fpr_hex(&keys[k]->primary, f);
				ok = strcmp(f, w) == 0;
				for (size_t s = 0; s < keys[k]->n_subkeys && !ok; s++) {
					ksp_pgp_fpr_hex(&keys[k]->subkeys[s], f);
					ok = strcmp(f, w) == 0;
				}
			}
			if (!ok) {
				ksp_set_error(t->ctx, "%s: its header names key %s, which its armor does not hold; "
						      "fix the header or the key, nothing was read", relpath, w);
				return -EBADMSG;
			}
		}
		i = j > i ? j : i + 1;
	}
	return 0;
}

/* Checks on the keys of one file, then they are kept. */
static int file_keys(struct tree *t, const char *relpath, const struct stat *st, const uint8_t *bin, size_t blen,
		     const uint8_t *text, size_t hlen)
{
	struct ksp_pgp_reader *rd = NULL;
	struct ksp_pgp_key **keys = NULL;
	size_t n = 0, cap = 0;
	bool in_keyring = strncmp(relpath, ".keyring/", 9) == 0;
	char kid[17];
	int r;

	r = ksp_pgp_reader_new(t->ctx, bin, blen, relpath, &rd);
	if (r < 0)
		return r;
	for (;;) {
		struct ksp_pgp_key *k = NULL;

		r = ksp_pgp_reader_next(rd, &k);
		if (r <= 0)
			break;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 4;
			struct ksp_pgp_key **nk = realloc(keys, nc * sizeof(*nk));
			if (nk == NULL) {
				ksp_pgp_key_free(k);
				r = -ENOMEM;
				break;
			}
			keys = nk;
			cap = nc;
		}
		keys[n++] = k;
	}
	if (r < 0)
		goto out;
	if (keyid_name(relpath, kid)) {
		bool found = false;

		for (size_t i = 0; i < n && !found; i++) {
			char f[65];

			ksp_pgp_fpr_hex(&keys[i]->primary, f);
			found = strlen(f) >= 16 && strcmp(f + strlen(f) - 16, kid) == 0;
		}
		if (!found) {
			char f[65] = "none";

			if (n > 0)
				ksp_pgp_fpr_hex(&keys[0]->primary, f);
			ksp_set_error(t->ctx, "%s: named for key %s but holds key %s; rename or fix the file, nothing was read",
				      relpath, kid, f);
			r = -EBADMSG;
			goto out;
		}
	}
	r = header_check(t, relpath, text, hlen, (const struct ksp_pgp_key *const *)keys, n);
	if (r < 0)
		goto out;
	if (!in_keyring) {
		for (size_t i = 0; i < n; i++) {
			char f[65];

			ksp_pgp_fpr_hex(&keys[i]->primary, f);
			for (size_t j = 0; j < t->n_keys; j++) {
				if (strcmp(t->keys[j].fpr, f) != 0 ||
				    (t->keys[j].dev == st->st_dev && t->keys[j].ino == st->st_ino))
					continue;
				ksp_set_error(t->ctx, "%s and %s both hold key %s; keep one of them, nothing was read",
					      t->keys[j].file, relpath, f);
				r = -EEXIST;
				goto out;
			}
			if (grow_array((void **)&t->keys, &t->cap_keys, t->n_keys + 1, sizeof(*t->keys), 16) < 0) {
				r = -ENOMEM;
				goto out;
			}
			t->keys[t->n_keys].file = strdup(relpath);
			if (t->keys[t->n_keys].file == NULL) {
				r = -ENOMEM;
				goto out;
			}
			memcpy(t->keys[t->n_keys].fpr, f, sizeof(f));
			t->keys[t->n_keys].dev = st->st_dev;
			t->keys[t->n_keys].ino = st->st_ino;
			t->n_keys++;
		}
	}
	r = append(t, bin, blen);
out:
	for (size_t i = 0; i < n; i++)
		ksp_pgp_key_free(keys[i]);
	free(keys);
	ksp_pgp_reader_free(rd);
	return r;
}

static int read_data(struct tree *t, const char *relpath, const struct stat *st, uint8_t *data, size_t len);

/* One file of the tree (symlinks resolved): binary, armored, or text. */
static int read_one(struct tree *t, const char *path, const char *relpath)
{
	struct stat st;
	uint8_t *data = NULL;
	size_t len = 0;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		ksp_set_error(t->ctx, "%s: cannot read: %s; check the tree, nothing was read", relpath, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	for (size_t i = 0; i < t->n_files; i++)
		if (t->files[i].dev == st.st_dev && t->files[i].ino == st.st_ino) {
			close(fd);
			return 0; /* read already, by another name */
		}
	if ((uint64_t)st.st_size > KSP_TREE_MAX_FILE) {
		close(fd);
		ksp_set_error(t->ctx, "%s: %llu MiB, more than the %u MiB a key file in a key tree may have; remove it "
				      "(or load it alone), nothing was read",
			      relpath, (unsigned long long)(st.st_size >> 20), (unsigned)(KSP_TREE_MAX_FILE >> 20));
		return -EFBIG;
	}
	r = read_fd_all(fd, KSP_TREE_MAX_FILE, &data, &len);
	close(fd);
	if (r < 0) {
		ksp_set_error(t->ctx, "%s: cannot read: %s; check the tree, nothing was read", relpath,
			      r == -EFBIG ? "it grew while it was read" : strerror(-r));
		return r;
	}
	if (grow_array((void **)&t->files, &t->cap_files, t->n_files + 1, sizeof(*t->files), 16) < 0) {
		free(data);
		return -ENOMEM;
	}
	t->files[t->n_files].dev = st.st_dev;
	t->files[t->n_files].ino = st.st_ino;
	t->n_files++;
	return read_data(t, relpath, &st, data, len);
}

/* The bytes of one file (@data, freed here): binary, armored, or text.
 * @st identifies the file (two names of one file hold one key once). */
static int read_data(struct tree *t, const char *relpath, const struct stat *st, uint8_t *data, size_t len)
{
	uint8_t *bin = NULL;
	size_t blen = 0, bcap = 0, p = 0, hlen = 0;
	int r;

	while (p < len && (data[p] == ' ' || data[p] == '\t' || data[p] == '\r' || data[p] == '\n'))
		p++;
	if (p < len && (data[p] & 0x80)) {
		/* binary */
		t->n_read++;
		r = file_keys(t, relpath, st, data + p, len - p, NULL, 0);
		free(data);
		return r;
	}
	p = 0;
	for (;;) {
		static const char key_begin[] = "-----BEGIN PGP PUBLIC KEY BLOCK-----";
		const uint8_t *b = len - p >= sizeof(key_begin) - 1 ? memmem(data + p, len - p, key_begin, sizeof(key_begin) - 1) : NULL;
		uint8_t *blk = NULL;
		size_t bl = 0, used = 0;

		/* only a key block at the start of a line */
		while (b && b != data && b[-1] != '\n') {
			size_t o = (size_t)(b - data) + 1;
			b = memmem(data + o, len - o, key_begin, sizeof(key_begin) - 1);
		}
		if (b == NULL)
			break;
		if (blen == 0 && bcap == 0)
			hlen = (size_t)(b - data);
		r = ksp_armor_decode(b, len - (size_t)(b - data), &blk, &bl, &used);
		if (r < 0) {
			size_t off = (size_t)(b - data);

			free(bin);
			free(data);
			if (r == -ENOMEM)
				return r;
			ksp_set_error(t->ctx, "%s: offset %zu: damaged ASCII armor (%s); fetch the file again, nothing was read",
				      relpath, off, strerror(-r));
			return -EBADMSG;
		}
		if (blen + bl > bcap) {
			size_t nc = bcap ? bcap * 2 : 4096;
			uint8_t *nb;

			while (nc < blen + bl)
				nc *= 2;
			nb = realloc(bin, nc);
			if (nb == NULL) {
				free(blk);
				free(bin);
				free(data);
				return -ENOMEM;
			}
			bin = nb;
			bcap = nc;
		}
		if (bl > 0) /* an armor block that decodes to nothing adds nothing */
			memcpy(bin + blen, blk, bl);
		blen += bl;
		free(blk);
		p = (size_t)(b - data) + used;
	}
	if (bcap == 0) {
		INFO(t->ctx, "%s: no OpenPGP key in it, skipped\n", relpath);
		free(data);
		return 0;
	}
	t->n_read++;
	r = file_keys(t, relpath, st, bin, blen, data, hlen);
	free(bin);
	free(data);
	return r;
}

static int filter_dot(const struct dirent *d)
{
	return strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
}

static int walk(struct tree *t, const char *dir, int depth)
{
	struct dirent **ents = NULL;
	int n, r = 0;

	if (depth > MAX_DEPTH) {
		ksp_set_error(t->ctx, "%s: directories nested more than %d deep; not a key tree, nothing was read",
			      rel(t, dir), MAX_DEPTH);
		return -ELOOP;
	}
	n = scandir(dir, &ents, filter_dot, alphasort);
	if (n < 0) {
		r = -errno;
		ksp_set_error(t->ctx, "%s: cannot read the directory: %s; check the tree, nothing was read", rel(t, dir),
			      strerror(-r));
		return r;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char *path = NULL, *real = NULL;
		const char *rp;
		struct stat st;

		if (r < 0)
			goto next;
		if (asprintf(&path, "%s/%s", dir, name) < 0) {
			path = NULL;
			r = -ENOMEM;
			goto next;
		}
		rp = rel(t, path);
		/* dot folders (.git) but .keyring; in .keyring, OpenPGP keys only */
		if (name[0] == '.' && !(depth == 0 && strcmp(name, ".keyring") == 0))
			goto next;
		if (depth == 1 && strncmp(rp, ".keyring/", 9) == 0 && strcmp(name, "openpgp") != 0) {
			WARN(t->ctx, "%s: not OpenPGP keys, skipped\n", rp);
			goto next;
		}
		if (lstat(path, &st) < 0) {
			r = -errno;
			ksp_set_error(t->ctx, "%s: cannot read: %s; check the tree, nothing was read", rp, strerror(-r));
			goto next;
		}
		if (S_ISLNK(st.st_mode)) {
			real = realpath(path, NULL);
			if (real == NULL) {
				r = -errno;
				ksp_set_error(t->ctx, "%s: a symlink to nothing readable (%s); fix or remove it, nothing was read",
					      rp, strerror(-r));
				goto next;
			}
			if (strncmp(real, t->root, t->root_len) != 0 || real[t->root_len] != '/') {
				ksp_set_error(t->ctx, "%s: a symlink pointing out of the tree; remove it, nothing was read", rp);
				r = -EXDEV;
				goto next;
			}
			if (stat(real, &st) < 0 || !S_ISREG(st.st_mode))
				goto next; /* a link to a folder of the tree: read there */
			r = read_one(t, real, rp);
		} else if (S_ISDIR(st.st_mode)) {
			r = walk(t, path, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			r = read_one(t, path, rp);
		}
next:
		free(real);
		free(path);
		free(ents[i]);
	}
	free(ents);
	return r;
}

KSP_EXPORT int ksp_keytree_read(struct ksp_ctx *ctx, const char *dir, void **ret, size_t *ret_len)
{
	struct tree t = { .ctx = ctx };
	struct stat st;
	int r;

	if (dir == NULL || ret == NULL || ret_len == NULL)
		return -EINVAL;
	ksp_clear_error(ctx);
	t.root = realpath(dir, NULL);
	if (t.root == NULL || stat(t.root, &st) < 0 || !S_ISDIR(st.st_mode)) {
		r = t.root ? -ENOTDIR : -errno;
		ksp_set_error(ctx, "%s: not a readable directory (%s); give a key tree", dir, strerror(-r));
		free(t.root);
		return r;
	}
	t.root_len = strlen(t.root);
	r = walk(&t, t.root, 0);
	if (r >= 0 && t.n_read == 0) {
		ksp_set_error(ctx, "%s: no file with an OpenPGP key in it; give a key tree (keys/*.asc, .keyring/openpgp/)",
			      dir);
		r = -ENODATA;
	}
	for (size_t i = 0; i < t.n_keys; i++)
		free(t.keys[i].file);
	free(t.keys);
	free(t.files);
	free(t.root);
	if (r < 0) {
		free(t.out);
		return r;
	}
	*ret = t.out;
	*ret_len = t.len;
	return 0;
}

/* ---- a key tree given file by file (git objects: ksp wot refresh) -------- */

struct ksp_keytree {
	struct tree t;
	ino_t next; /* each file its own identity */
};

KSP_EXPORT int ksp_keytree_new(struct ksp_ctx *ctx, struct ksp_keytree **ret)
{
	struct ksp_keytree *kt;

	if (ctx == NULL || ret == NULL)
		return -EINVAL;
	kt = calloc(1, sizeof(*kt));
	if (kt == NULL)
		return -ENOMEM;
	kt->t.ctx = ctx;
	ksp_clear_error(ctx);
	*ret = kt;
	return 0;
}

KSP_EXPORT struct ksp_keytree *ksp_keytree_free(struct ksp_keytree *kt)
{
	if (kt == NULL)
		return NULL;
	for (size_t i = 0; i < kt->t.n_keys; i++)
		free(kt->t.keys[i].file);
	free(kt->t.keys);
	free(kt->t.files);
	free(kt->t.out);
	free(kt);
	return NULL;
}

/* Is @path one the walk reads: relative, no empty, "." or ".." component,
 * not too deep, no dot folder or file but .keyring/openpgp/...?  1 read,
 * 0 skipped, -EINVAL not a path of a tree. */
static int tree_path_read(const char *path)
{
	const char *c = path;
	int depth = 0;

	if (*path == 0 || *path == '/')
		return -EINVAL;
	for (;;) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return -EINVAL;
		if (depth > MAX_DEPTH)
			return -ELOOP;
		if (c[0] == '.' && !(depth == 0 && n == 8 && strncmp(c, ".keyring", 8) == 0))
			return 0;
		if (depth == 1 && strncmp(path, ".keyring/", 9) == 0 && !(n == 7 && strncmp(c, "openpgp", 7) == 0))
			return 0;
		if (c[n] == 0)
			return depth == 0 || strncmp(path, ".keyring/", 9) != 0 || depth >= 2 ? 1 : 0;
		c += n + 1;
		depth++;
	}
}

KSP_EXPORT int ksp_keytree_add_file(struct ksp_keytree *kt, const char *path, const void *data, size_t len)
{
	struct stat st = { 0 };
	uint8_t *copy;
	int r;

	if (kt == NULL || path == NULL || (data == NULL && len > 0))
		return -EINVAL;
	r = tree_path_read(path);
	if (r < 0) {
		ksp_set_error(kt->t.ctx, "%s: not a file name of a key tree; fix the tree, nothing was read", path);
		return r;
	}
	if (r == 0)
		return 0;
	if (len > KSP_TREE_MAX_FILE) {
		ksp_set_error(kt->t.ctx, "%s: %zu MiB, more than the %u MiB a key file in a key tree may have; remove it "
					 "(or load it alone), nothing was read",
			      path, len >> 20, (unsigned)(KSP_TREE_MAX_FILE >> 20));
		return -EFBIG;
	}
	copy = malloc(len + 1);
	if (copy == NULL)
		return -ENOMEM;
	if (len)
		memcpy(copy, data, len);
	copy[len] = 0;
	st.st_ino = ++kt->next;
	return read_data(&kt->t, path, &st, copy, len);
}

KSP_EXPORT int ksp_keytree_finish(struct ksp_keytree *kt, void **ret, size_t *ret_len)
{
	if (kt == NULL || ret == NULL || ret_len == NULL)
		return -EINVAL;
	if (kt->t.n_read == 0) {
		ksp_set_error(kt->t.ctx, "no file with an OpenPGP key in the tree; give a key tree (keys/*.asc, "
					 ".keyring/openpgp/)");
		return -ENODATA;
	}
	*ret = kt->t.out;
	*ret_len = kt->t.len;
	kt->t.out = NULL;
	kt->t.len = kt->t.cap = 0;
	return 0;
}

/* ---- git objects ----------------------------------------------------------- */

KSP_EXPORT int ksp_git_object_check(const char *oid, const char *type, const void *data, size_t len)
{
	size_t n = oid ? strlen(oid) : 0;
	int algo = n == 40 ? GCRY_MD_SHA1 : n == 64 ? GCRY_MD_SHA256 : 0;
	gcry_md_hd_t h = NULL;
	char head[64], hex[65];

	if (algo == 0 || type == NULL || strlen(type) > 16 || (data == NULL && len > 0))
		return -EINVAL;
	if (gcry_md_open(&h, algo, 0) != 0)
		return -ENOMEM;
	snprintf(head, sizeof(head), "%s %zu", type, len);
	gcry_md_write(h, head, strlen(head) + 1);
	if (len)
		gcry_md_write(h, data, len);
	hex_encode(gcry_md_read(h, algo), n / 2, hex);
	gcry_md_close(h);
	return strcasecmp(hex, oid) == 0 ? 0 : -EBADMSG;
}
