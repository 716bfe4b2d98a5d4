// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wot-snap.c: the graph snapshot (see wot-snap.h): built from the store in
 * one read transaction (wot-snap-build.c), kept in a file next to the
 * store and mapped read-only by trust queries; this file checks and maps
 * it, and says when it is stale.  The layout, the builder and this reader
 * change together, under one SNAP_VERSION (wot-snap-private.h).
 *
 * File layout (host byte order, every section 8-byte aligned):
 *   header (96 bytes), nodes[n], uids[n_uids], out_off[n + 1], edges[m],
 *   in_off[n + 1], in_eid[m], weak[n_weak] (the edge numbers of the
 *   certifications made with a weak hash, in order: what the hash rules
 *   may leave out, counted by a trust query without reading every edge),
 *   bind_off[n + 1], binds[n_binds], cert_off[n_binds + 1], certs[n_certs],
 *   gout_off[n + 1], outs[n_outs], strings[strings_len].
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "lib/cleanup.h"
#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/wot/wot-snap-private.h"

/* Point the snapshot's arrays into mem; check what can be checked cheaply
 * (sizes, offsets).  Endpoints are checked where they are used. */
static int attach(struct ksp_wsnap *s, void *mem, size_t len)
{
	const struct snap_header *h = mem;
	struct layout l;
	uint8_t *p = mem;

	if (len >= sizeof(*h) && memcmp(h->magic, SNAP_MAGIC, 8) == 0 && h->version != SNAP_VERSION)
		return -ESTALE; /* another ksp's format: rebuilt quietly */
	if (len < sizeof(*h) || memcmp(h->magic, SNAP_MAGIC, 8) != 0 ||
	    h->endian != SNAP_ENDIAN || h->len != len)
		return -EBADMSG;
	if (ksp_wsnap_layout(&(struct sizes){ .n = h->n, .n_uids = h->n_uids, .n_binds = h->n_binds, .m = h->m,
				       .n_weak = h->n_weak, .n_certs = h->n_certs, .n_outs = h->n_outs,
				       .strings_len = h->strings_len },
		      &l) < 0 ||
	    l.len != len)
		return -EBADMSG;
	s->n = h->n;
	s->n_uids = h->n_uids;
	s->m = h->m;
	s->gen = h->gen;
	s->nonce = h->nonce;
	s->nodes = (const void *)(p + l.nodes);
	s->uids = (const void *)(p + l.uids);
	s->out_off = (const void *)(p + l.out_off);
	s->edges = (const void *)(p + l.edges);
	s->in_off = (const void *)(p + l.in_off);
	s->in_eid = (const void *)(p + l.in_eid);
	s->n_weak = h->n_weak;
	s->weak = (const void *)(p + l.weak);
	for (uint64_t i = 0; i < s->n_weak; i++)
		if (s->weak[i] >= s->m || (i > 0 && s->weak[i] <= s->weak[i - 1]))
			return -EBADMSG;
	s->n_binds = h->n_binds;
	s->n_certs = h->n_certs;
	s->n_outs = h->n_outs;
	s->strings_len = h->strings_len;
	s->bind_off = (const void *)(p + l.bind_off);
	s->binds = (const void *)(p + l.binds);
	s->cert_off = (const void *)(p + l.cert_off);
	s->certs = (const void *)(p + l.certs);
	s->gout_off = (const void *)(p + l.gout_off);
	s->outs = (const void *)(p + l.outs);
	s->strings = (const char *)(p + l.strings);
	if (s->out_off[0] != 0 || s->in_off[0] != 0 || s->out_off[s->n] != s->m || s->in_off[s->n] != s->m ||
	    s->bind_off[0] != 0 || s->bind_off[s->n] != s->n_binds || s->gout_off[0] != 0 ||
	    s->gout_off[s->n] != s->n_outs || s->cert_off[0] != 0 || s->cert_off[s->n_binds] != s->n_certs ||
	    s->strings[0] != '\0' || s->strings[s->strings_len - 1] != '\0')
		return -EBADMSG;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->out_off[i] > s->out_off[i + 1] || s->in_off[i] > s->in_off[i + 1] ||
		    s->bind_off[i] > s->bind_off[i + 1] || s->gout_off[i] > s->gout_off[i + 1])
			return -EBADMSG;
	for (uint32_t i = 0; i < s->n_binds; i++)
		if (s->cert_off[i] > s->cert_off[i + 1])
			return -EBADMSG;
	s->mem = mem;
	s->len = len;
	return 0;
}

void ksp_wsnap_free(struct ksp_wsnap *s)
{
	if (s == NULL)
		return;
	if (s->mapped)
		munmap(s->mem, s->len);
	else
		free(s->mem);
	free(s->scratch_stamp);
	free(s->scratch_node);
	free(s);
}

/* the store frees its cache through this */
static void wsnap_free_cache(void *s)
{
	ksp_wsnap_free(s);
}

int ksp_wsnap_new_query(struct ksp_wsnap *s)
{
	if (s->scratch_stamp == NULL) {
		s->scratch_stamp = calloc(s->n ? s->n : 1, sizeof(*s->scratch_stamp));
		s->scratch_node = malloc((s->n ? s->n : 1) * sizeof(*s->scratch_node));
		if (s->scratch_stamp == NULL || s->scratch_node == NULL) {
			free(s->scratch_stamp);
			free(s->scratch_node);
			s->scratch_stamp = s->scratch_node = NULL;
			return -ENOMEM;
		}
		s->epoch = 0;
	}
	if (++s->epoch == 0) {
		memset(s->scratch_stamp, 0, (s->n ? s->n : 1) * sizeof(*s->scratch_stamp));
		s->epoch = 1;
	}
	return 0;
}

const char *ksp_wsnap_cert_regex(const struct ksp_wsnap *s, const struct ksp_wsnap_cert *c, unsigned i)
{
	uint64_t off = c->regex_off;

	if (off == 0 || i >= c->flags >> KSP_WSNAP_CERT_NREGEX_SHIFT)
		return NULL;
	while (i-- > 0 && off < s->strings_len)
		off += strlen(s->strings + off) + 1;
	return off < s->strings_len ? s->strings + off : NULL;
}

uint32_t ksp_wsnap_vertex(const struct ksp_wsnap *s, int64_t key_id)
{
	uint32_t lo = 0, hi = s->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->nodes[mid].key_id < key_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->nodes[lo].key_id == key_id ? lo : UINT32_MAX;
}

static char *snap_path(struct ksp_store *store)
{
	const char *p = ksp_store_path_internal(store);
	size_t n = strlen(p);
	char *s = malloc(n + 5);

	if (s) {
		memcpy(s, p, n);
		memcpy(s + n, "-wot", 5);
	}
	return s;
}

/* The store's graph state; -ENOENT when the schema has none. */
static int read_state(struct ksp_store *store, int64_t *gen, int64_t *nonce)
{
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(db, "SELECT gen, nonce FROM graph_state WHERE id = 1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "graph_state");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*gen = sqlite3_column_int64(st, 0);
		*nonce = sqlite3_column_int64(st, 1);
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return -ENOENT;
	return ksp_errno_from_sqlite(ksp_store_get_ctx(store), db, rc, "graph_state");
}

static int open_file(struct ksp_store *store, const char *path, int64_t gen, int64_t nonce, struct ksp_wsnap **ret)
{
	struct ksp_wsnap *s;
	struct stat st;
	void *mem;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(struct snap_header)) {
		close(fd);
		return -EBADMSG;
	}
	mem = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	r = mem == MAP_FAILED ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		munmap(mem, (size_t)st.st_size);
		return -ENOMEM;
	}
	s->mapped = true;
	r = attach(s, mem, (size_t)st.st_size);
	if (r == 0 && (s->gen != gen || s->nonce != nonce))
		r = -ESTALE;
	if (r < 0) {
		if (r == -EBADMSG)
			INFO(ksp_store_get_ctx(store), "%s: damaged graph snapshot; rebuilding it", path);
		munmap(mem, (size_t)st.st_size);
		free(s);
		return r;
	}
	*ret = s;
	return 0;
}

/* The image built straight into its file (issue 38: no copy of it
 * written, no second gigabyte at 10^6 keys): a temporary file next to the
 * snapshot, with the store's permission bits, its blocks reserved first
 * (a full disk is an error here, never a SIGBUS while building), mapped
 * shared, renamed over the snapshot once built.  When that cannot be,
 * the image is built in memory and not saved. */
struct out_file {
	struct ksp_wsnap_mem mem; /* first */
	struct ksp_store *store;
	const char *path;
	char *tmp;
	int fd, slot, err;
	void *map;
};

static void out_close(struct out_file *o, bool keep)
{
	if (o->fd >= 0 && close(o->fd) < 0 && keep && o->err == 0)
		o->err = -errno;
	o->fd = -1;
	if (o->tmp) {
		if (keep && o->err == 0 && rename(o->tmp, o->path) < 0)
			o->err = -errno;
		if (!keep || o->err < 0)
			unlink(o->tmp);
		ksp_cleanup_del(ksp_store_get_ctx(o->store), o->slot);
		free(o->tmp);
		o->tmp = NULL;
	}
}

static void *out_get(struct ksp_wsnap_mem *m, size_t len)
{
	struct out_file *o = (struct out_file *)m;
	size_t n = strlen(o->path);
	struct stat st;
	int e;

	o->tmp = malloc(n + 8);
	if (o->tmp == NULL)
		return NULL;
	memcpy(o->tmp, o->path, n);
	memcpy(o->tmp + n, ".XXXXXX", 8);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		o->err = -errno;
		free(o->tmp);
		o->tmp = NULL;
		return calloc(1, len);
	}
	/* a partial snapshot is removed if a signal ends the process */
	o->slot = ksp_cleanup_add(ksp_store_get_ctx(o->store), KSP_CLEANUP_FILE, o->tmp);
	if (stat(ksp_store_path_internal(o->store), &st) == 0)
		(void)fchmod(o->fd, st.st_mode & 0666);
	e = posix_fallocate(o->fd, 0, (off_t)len);
	if (e == 0) {
		o->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, o->fd, 0);
		if (o->map != MAP_FAILED)
			return o->map;
		e = errno;
	}
	o->err = -e;
	o->map = NULL;
	out_close(o, false);
	return calloc(1, len);
}

static void out_put(struct ksp_wsnap_mem *m, void *mem, size_t len)
{
	struct out_file *o = (struct out_file *)m;

	if (mem && mem == o->map) {
		munmap(mem, len);
		o->map = NULL;
	} else {
		free(mem);
	}
	out_close(o, false);
}

static bool out_shared(struct ksp_wsnap_mem *m, const void *mem)
{
	return mem && mem == ((struct out_file *)m)->map;
}

/* A new snapshot of the store at gen/nonce (ksp_wsnap_build()), in its
 * file when @o says where (its error in o->err), else in memory. */
static int build(struct ksp_store *store, int64_t gen, int64_t nonce, struct out_file *o, struct ksp_wsnap **ret)
{
	struct ksp_wsnap *s = calloc(1, sizeof(*s));
	void *mem;
	size_t len;
	int r;

	if (s == NULL)
		return -ENOMEM;
	r = ksp_wsnap_build(store, gen, nonce, o ? &o->mem : NULL, &mem, &len);
	if (r < 0) {
		free(s);
		return r;
	}
	r = attach(s, mem, len);
	if (r < 0) {
		if (o)
			out_put(&o->mem, mem, len);
		else
			free(mem);
		free(s);
		return r;
	}
	s->mapped = o && mem == o->map;
	if (s->mapped)
		(void)mprotect(mem, len, PROT_READ); /* as a snapshot read from its file */
	if (o)
		out_close(o, true);
	*ret = s;
	return 0;
}

/* Build a new snapshot from one read transaction (so that it is the store
 * at generation gen), and save it when the directory lets us. */
static int rebuild(struct ksp_store *store, const char *path, struct ksp_wsnap **ret)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	sqlite3 *db = ksp_store_db(store);
	int64_t gen = 0, nonce = 0;
	bool own = sqlite3_get_autocommit(db) != 0;
	struct out_file o = { .mem = { out_get, out_put, out_shared }, .store = store, .path = path, .fd = -1, .slot = -1 };
	int r;

	if (own) {
		r = ksp_store_exec(store, "BEGIN");
		if (r < 0)
			return r;
	}
	r = read_state(store, &gen, &nonce);
	if (r == 0) {
		int64_t old_cache = ksp_store_cache_grow(store, KSP_STORE_SCAN_CACHE_KB);

		/* an immutable store: the snapshot stays in memory */
		r = build(store, gen, nonce, ksp_store_is_immutable(store) ? NULL : &o, ret);
		ksp_store_cache_restore(store, old_cache);
	}
	if (own)
		ksp_store_exec(store, "COMMIT");
	if (r < 0)
		return r;
	if (o.err < 0)
		INFO(ctx, "%s: cannot write the graph snapshot (%s); it is rebuilt for every run", path, strerror(-o.err));
	return 0;
}

int ksp_wsnap_get(struct ksp_store *store, struct ksp_wsnap **ret)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	struct ksp_wsnap *s = (struct ksp_wsnap *)ksp_store_cache(store), *fresh = NULL;
	int64_t gen, nonce;
	char *path;
	int r;

	r = read_state(store, &gen, &nonce);
	if (r < 0)
		return r;
	if (s && s->gen == gen && s->nonce == nonce) {
		*ret = s;
		return 0;
	}
	path = snap_path(store);
	if (path == NULL)
		return -ENOMEM;
	r = open_file(store, path, gen, nonce, &fresh);
	if (r < 0) {
		DBG(ctx, "%s: building the graph snapshot", path);
		r = rebuild(store, path, &fresh);
	}
	free(path);
	if (r < 0) {
		if (!ksp_get_error(ctx))
			ksp_set_error(ctx, "%s: cannot read the web of trust: %s", ksp_store_path_internal(store),
				      strerror(-r));
		return r;
	}
	ksp_store_set_cache(store, fresh, wsnap_free_cache);
	*ret = fresh;
	return 0;
}

int ksp_wsnap_update(struct ksp_store *store)
{
	struct ksp_wsnap *s;

	return ksp_wsnap_get(store, &s);
}

int ksp_wsnap_discard(struct ksp_store *store)
{
	char *path = snap_path(store);

	ksp_store_set_cache(store, NULL, NULL);
	if (path == NULL)
		return -ENOMEM;
	if (unlink(path) < 0 && errno != ENOENT) {
		int r = -errno;
		free(path);
		return r;
	}
	free(path);
	return 0;
}

void ksp_wsnap_want(struct ksp_store *store)
{
	ksp_store_after_commit(store, ksp_wsnap_update);
}
