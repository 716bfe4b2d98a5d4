// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wot-snap.c: the graph snapshot (see wot-snap.h): built from the store in
 * one pass over keys, user IDs and certifications, kept in a file next to
 * the store and mapped read-only by trust queries.
 *
 * File layout (host byte order, every section 8-byte aligned):
 *   header (64 bytes), nodes[n], uids[n_uids], out_off[n + 1], edges[m],
 *   in_off[n + 1], in_eid[m], weak[n_weak] (the edge numbers of the
 *   certifications made with a weak hash, in order: what the hash rules
 *   may leave out, counted by a trust query without reading every edge).
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
#include "lib/wot/wot-snap.h"

#define SNAP_MAGIC "KSPWOT1\n"
#define SNAP_VERSION 4u /* 2: key flags (hard revocation); 3: edge flags name the hash (MD5, SHA-1, RIPEMD-160); 4: the weak-hash edge list */
#define SNAP_ENDIAN 0x01020304u

struct snap_header {
	char magic[8];
	uint32_t version, endian;
	uint32_t n, n_uids;
	uint64_t m;
	int64_t gen, nonce;
	uint64_t len;
	uint64_t n_weak;
};

_Static_assert(sizeof(struct snap_header) == 64, "header is 64 bytes");
_Static_assert(sizeof(struct ksp_wsnap_node) == 48, "node is 48 bytes");
_Static_assert(sizeof(struct ksp_wsnap_edge) == 40, "edge is 40 bytes");

static size_t align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

/* Section offsets for the sizes; 0 on overflow. */
struct layout {
	size_t nodes, uids, out_off, edges, in_off, in_eid, weak, len;
};

static int layout_of(uint32_t n, uint32_t n_uids, uint64_t m, uint64_t n_weak, struct layout *l)
{
	uint64_t x = sizeof(struct snap_header);

	if (m > UINT32_MAX || n == UINT32_MAX || n_weak > m)
		return -E2BIG;
	l->nodes = (size_t)x;
	x += (uint64_t)n * sizeof(struct ksp_wsnap_node);
	l->uids = (size_t)x;
	x += (uint64_t)n_uids * sizeof(struct ksp_wsnap_uid);
	l->out_off = (size_t)x;
	x = align8((size_t)(x + ((uint64_t)n + 1) * 4));
	l->edges = (size_t)x;
	x += m * sizeof(struct ksp_wsnap_edge);
	l->in_off = (size_t)x;
	x = align8((size_t)(x + ((uint64_t)n + 1) * 4));
	l->in_eid = (size_t)x;
	x = align8((size_t)(x + m * 4));
	l->weak = (size_t)x;
	x = align8((size_t)(x + n_weak * 4));
	if (x > SIZE_MAX / 2)
		return -E2BIG;
	l->len = (size_t)x;
	return 0;
}

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
	if (layout_of(h->n, h->n_uids, h->m, h->n_weak, &l) < 0 || l.len != len)
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
	if (s->out_off[0] != 0 || s->in_off[0] != 0 || s->out_off[s->n] != s->m || s->in_off[s->n] != s->m)
		return -EBADMSG;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->out_off[i] > s->out_off[i + 1] || s->in_off[i] > s->in_off[i + 1])
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

/* ---- building ------------------------------------------------------------- */

struct raw_cert {
	uint32_t signer, signee, uidx;
	int64_t created, expires;
	uint8_t is_rev, hash_flag;
};

struct fpr_map {
	char (*fpr)[65];
	uint32_t *slots;
	uint32_t mask;
};

static uint32_t fpr_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static uint32_t fpr_find(const struct fpr_map *fm, const char *fpr)
{
	uint32_t h = fpr_hash(fpr) & fm->mask;

	while (fm->slots[h] != UINT32_MAX) {
		if (strcmp(fm->fpr[fm->slots[h]], fpr) == 0)
			return fm->slots[h];
		h = (h + 1) & fm->mask;
	}
	return UINT32_MAX;
}

static int cmp_cert(const void *a, const void *b)
{
	const struct raw_cert *x = a, *y = b;

	if (x->uidx != y->uidx)
		return x->uidx < y->uidx ? -1 : 1;
	if (x->signer != y->signer)
		return x->signer < y->signer ? -1 : 1;
	/* newest first; at equal times the revocation first, as a revocation
	 * made at the same second revokes */
	if (x->created != y->created)
		return x->created > y->created ? -1 : 1;
	if (x->is_rev != y->is_rev)
		return (int)y->is_rev - (int)x->is_rev;
	/* the rest only makes the order the same whatever order the store
	 * gave them in */
	if (x->expires != y->expires)
		return x->expires < y->expires ? -1 : 1;
	return (int)x->hash_flag - (int)y->hash_flag;
}

static int64_t never0(int64_t t)
{
	return t == 0 ? KSP_WSNAP_NEVER : t;
}

struct uid_row {
	int64_t id;
	uint32_t vertex;   /* UINT32_MAX: a user attribute, not counted */
	uint32_t uidx;
};

static int cmp_uid_row(const void *key, const void *elem)
{
	int64_t k = *(const int64_t *)key, e = ((const struct uid_row *)elem)->id;
	return k < e ? -1 : k > e;
}

#define GROW(arr, n, cap, fail)                                                  \
	do {                                                                     \
		if ((n) == (cap)) {                                              \
			size_t nc_ = (cap) ? 2 * (cap) : 1024;                   \
			void *np_ = realloc((arr), nc_ * sizeof(*(arr)));        \
			if (np_ == NULL)                                         \
				goto fail;                                       \
			(arr) = np_;                                             \
			(cap) = nc_;                                             \
		}                                                                \
	} while (0)

/* Read the store into a new in-memory snapshot stamped gen/nonce.  The
 * caller holds a transaction, so the reads are consistent. */
static int build(struct ksp_store *store, int64_t gen, int64_t nonce, struct ksp_wsnap **ret)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	sqlite3 *db = ksp_store_db(store);
	sqlite3_stmt *st = NULL;
	struct ksp_wsnap_node *nodes = NULL;
	struct ksp_wsnap_uid *uids = NULL;
	struct uid_row *urows = NULL;
	struct raw_cert *certs = NULL;
	struct ksp_wsnap_edge *tmp = NULL;
	struct fpr_map fm = { 0 };
	struct ksp_wsnap *s = NULL;
	size_t n = 0, cap_n = 0, nu = 0, cap_u = 0, nr = 0, cap_r = 0, nc = 0, cap_c = 0, m = 0, n_weak = 0;
	struct layout l;
	uint8_t *mem = NULL;
	const char *what = "keys";
	int rc, r = -ENOMEM;

	/* keys, in id order */
	rc = sqlite3_prepare_v2(db, "SELECT id, fpr, created, expires, revoked, algo, bits, " KSP_SQL_HARD_REVOKED("revoked", "revoked_reason")
				" FROM keys ORDER BY id", -1,
				&st, NULL);
	if (rc != SQLITE_OK)
		goto sql_fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(st, 1);
		GROW(nodes, n, cap_n, out);
		nodes[n] = (struct ksp_wsnap_node){
			.key_id = sqlite3_column_int64(st, 0),
			.created = sqlite3_column_int64(st, 2),
			.expires = never0(sqlite3_column_int64(st, 3)),
			.revoked = never0(sqlite3_column_int64(st, 4)),
			.algo = (uint32_t)sqlite3_column_int(st, 5),
			.bits = (uint32_t)sqlite3_column_int(st, 6),
			.flags = sqlite3_column_int(st, 7) ? KSP_WSNAP_HARD_REVOKED : 0,
		};
		if (n % 1024 == 0) {
			void *p = realloc(fm.fpr, (n + 1024) * sizeof(*fm.fpr));
			if (p == NULL)
				goto out;
			fm.fpr = p;
		}
		snprintf(fm.fpr[n], sizeof(fm.fpr[n]), "%s", f ? f : "");
		n++;
		if (n >= UINT32_MAX) {
			r = -E2BIG;
			goto out;
		}
	}
	if (rc != SQLITE_DONE)
		goto sql_fail;
	sqlite3_finalize(st);
	st = NULL;
	{
		uint32_t ns = 1024;
		while (ns < 2 * n)
			ns *= 2;
		fm.slots = malloc(ns * sizeof(*fm.slots));
		if (fm.slots == NULL)
			goto out;
		memset(fm.slots, 0xff, ns * sizeof(*fm.slots));
		fm.mask = ns - 1;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t h = fpr_hash(fm.fpr[i]) & fm.mask;
			while (fm.slots[h] != UINT32_MAX)
				h = (h + 1) & fm.mask;
			fm.slots[h] = i;
		}
	}
	/* user IDs, in id order */
	what = "uids";
	rc = sqlite3_prepare_v2(db, "SELECT id, key_id, is_attr, revoked FROM uids ORDER BY id", -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto sql_fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t kid = sqlite3_column_int64(st, 1);
		uint32_t lo = 0, hi = (uint32_t)n;
		GROW(urows, nr, cap_r, out);
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (nodes[mid].key_id < kid)
				lo = mid + 1;
			else
				hi = mid;
		}
		urows[nr] = (struct uid_row){ .id = sqlite3_column_int64(st, 0), .vertex = UINT32_MAX,
					      .uidx = UINT32_MAX };
		if (lo < n && nodes[lo].key_id == kid && sqlite3_column_int(st, 2) == 0) {
			GROW(uids, nu, cap_u, out);
			urows[nr].vertex = lo;
			urows[nr].uidx = (uint32_t)nu;
			uids[nu++] = (struct ksp_wsnap_uid){ .uid_id = urows[nr].id,
							     .revoked = never0(sqlite3_column_int64(st, 3)) };
		}
		nr++;
	}
	if (rc != SQLITE_DONE)
		goto sql_fail;
	sqlite3_finalize(st);
	st = NULL;
	/* certifications and their revocations */
	what = "certs";
	rc = sqlite3_prepare_v2(db,
				"SELECT uid_id, issuer_fpr, sig_type, hash_algo, created, expires FROM certs "
				"WHERE verified = 1 AND exportable = 1 AND issuer_fpr IS NOT NULL "
				"AND (sig_type BETWEEN 16 AND 19 OR sig_type = 48)",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		goto sql_fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t uid_id = sqlite3_column_int64(st, 0);
		const char *f = (const char *)sqlite3_column_text(st, 1);
		const struct uid_row *u = nr ? bsearch(&uid_id, urows, nr, sizeof(*urows), cmp_uid_row) : NULL;
		uint32_t signer;
		int type = sqlite3_column_int(st, 2), hash = sqlite3_column_int(st, 3);

		if (u == NULL || u->vertex == UINT32_MAX || f == NULL)
			continue;
		signer = fpr_find(&fm, f);
		if (signer == UINT32_MAX || signer == u->vertex)
			continue;
		GROW(certs, nc, cap_c, out);
		certs[nc++] = (struct raw_cert){
			.signer = signer,
			.signee = u->vertex,
			.uidx = u->uidx,
			.created = sqlite3_column_int64(st, 4),
			.expires = never0(sqlite3_column_int64(st, 5)),
			.is_rev = type == 48,
			.hash_flag = hash == 1 ? KSP_WSNAP_MD5 : hash == 2 ? KSP_WSNAP_SHA1 : hash == 3 ? KSP_WSNAP_RMD160 : 0,
		};
	}
	if (rc != SQLITE_DONE)
		goto sql_fail;
	sqlite3_finalize(st);
	st = NULL;
	if (nc > 1)
		qsort(certs, nc, sizeof(*certs), cmp_cert);
	tmp = malloc((nc ? nc : 1) * sizeof(*tmp));
	if (tmp == NULL)
		goto out;
	for (size_t i = 0; i < nc;) {
		size_t j = i;
		int64_t rev = KSP_WSNAP_NEVER;
		/* one (user ID, signer) group, newest first */
		for (; j < nc && certs[j].uidx == certs[i].uidx && certs[j].signer == certs[i].signer; j++) {
			const struct raw_cert *c = &certs[j];
			const struct ksp_wsnap_node *sk = &nodes[c->signer];
			if (c->is_rev) {
				rev = c->created;
				continue;
			}
			/* made inside the signer's own validity: before its
			 * expiry and its (soft) revocation; a hard-revoked
			 * signer's certifications never count */
			if (c->created < sk->created || c->created >= sk->expires || c->created >= sk->revoked ||
			    (sk->flags & KSP_WSNAP_HARD_REVOKED))
				continue;
			tmp[m++] = (struct ksp_wsnap_edge){
				.u = c->signer,
				.v = c->signee,
				.uidx = c->uidx,
				.flags = c->hash_flag,
				.created = c->created,
				.expires = c->expires,
				.revoked = rev,
			};
		}
		i = j;
	}
	free(certs);
	certs = NULL;
	free(urows);
	urows = NULL;
	for (size_t i = 0; i < m; i++)
		if (tmp[i].flags & KSP_WSNAP_WEAK)
			n_weak++;
	r = layout_of((uint32_t)n, (uint32_t)nu, m, n_weak, &l);
	if (r < 0)
		goto out;
	r = -ENOMEM;
	mem = calloc(1, l.len);
	if (mem == NULL)
		goto out;
	{
		struct snap_header *h = (struct snap_header *)mem;
		struct ksp_wsnap_edge *edges = (void *)(mem + l.edges);
		uint32_t *out_off = (void *)(mem + l.out_off), *in_off = (void *)(mem + l.in_off),
			 *in_eid = (void *)(mem + l.in_eid), *weak = (void *)(mem + l.weak), *pos;

		memcpy(h->magic, SNAP_MAGIC, 8);
		h->version = SNAP_VERSION;
		h->endian = SNAP_ENDIAN;
		h->n = (uint32_t)n;
		h->n_uids = (uint32_t)nu;
		h->m = m;
		h->gen = gen;
		h->nonce = nonce;
		h->len = l.len;
		h->n_weak = n_weak;
		if (n)
			memcpy(mem + l.nodes, nodes, n * sizeof(*nodes));
		if (nu)
			memcpy(mem + l.uids, uids, nu * sizeof(*uids));
		pos = malloc((n + 1) * sizeof(*pos));
		if (pos == NULL)
			goto out;
		/* out: counting sort by signer, stable (keeps user ID order) */
		for (size_t i = 0; i < m; i++)
			out_off[tmp[i].u + 1]++;
		for (size_t i = 0; i < n; i++)
			out_off[i + 1] += out_off[i];
		memcpy(pos, out_off, (n + 1) * sizeof(*pos));
		for (size_t i = 0; i < m; i++)
			edges[pos[tmp[i].u]++] = tmp[i];
		for (size_t i = 0; i < m; i++)
			in_off[edges[i].v + 1]++;
		for (size_t i = 0; i < n; i++)
			in_off[i + 1] += in_off[i];
		memcpy(pos, in_off, (n + 1) * sizeof(*pos));
		for (size_t i = 0; i < m; i++)
			in_eid[pos[edges[i].v]++] = (uint32_t)i;
		free(pos);
		for (size_t i = 0, k = 0; i < m; i++)
			if (edges[i].flags & KSP_WSNAP_WEAK)
				weak[k++] = (uint32_t)i;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		goto out;
	r = attach(s, mem, l.len);
	if (r < 0)
		goto out;
	mem = NULL;
	*ret = s;
	s = NULL;
	r = 0;
	goto out;
sql_fail:
	r = ksp_errno_from_sqlite(ctx, db, rc, what);
out:
	sqlite3_finalize(st);
	free(nodes);
	free(uids);
	free(urows);
	free(certs);
	free(tmp);
	free(fm.fpr);
	free(fm.slots);
	free(mem);
	free(s);
	return r;
}

/* Write the snapshot to @path atomically.  The file takes the store's
 * permission bits. */
static int save(struct ksp_store *store, const char *path, const struct ksp_wsnap *s)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 8);
	const uint8_t *p = s->mem;
	size_t left = s->len;
	struct stat st;
	int fd, r = 0;

	if (tmp == NULL)
		return -ENOMEM;
	memcpy(tmp, path, n);
	memcpy(tmp + n, ".XXXXXX", 8);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	/* a partial snapshot is removed if a signal ends the process */
	int slot = ksp_cleanup_add(ksp_store_get_ctx(store), KSP_CLEANUP_FILE, tmp);
	if (stat(ksp_store_path_internal(store), &st) == 0)
		(void)fchmod(fd, st.st_mode & 0666);
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r = w < 0 ? -errno : -EIO;
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	ksp_cleanup_del(ksp_store_get_ctx(store), slot);
	free(tmp);
	return r;
}

/* Build a new snapshot from one read transaction (so that it is the store
 * at generation gen), and save it when the directory lets us. */
static int rebuild(struct ksp_store *store, const char *path, struct ksp_wsnap **ret)
{
	struct ksp_ctx *ctx = ksp_store_get_ctx(store);
	sqlite3 *db = ksp_store_db(store);
	int64_t gen = 0, nonce = 0;
	bool own = sqlite3_get_autocommit(db) != 0;
	int r, w;

	if (own) {
		r = ksp_store_exec(store, "BEGIN");
		if (r < 0)
			return r;
	}
	r = read_state(store, &gen, &nonce);
	if (r == 0) {
		int64_t old_cache = ksp_store_cache_grow(store, KSP_STORE_SCAN_CACHE_KB);

		r = build(store, gen, nonce, ret);
		ksp_store_cache_restore(store, old_cache);
	}
	if (own)
		ksp_store_exec(store, "COMMIT");
	if (r < 0)
		return r;
	w = save(store, path, *ret);
	if (w < 0)
		INFO(ctx, "%s: cannot write the graph snapshot (%s); it is rebuilt for every run", path, strerror(-w));
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
