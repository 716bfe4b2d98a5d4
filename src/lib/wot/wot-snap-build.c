// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wot-snap-build.c: the graph snapshot (wot-snap.h) built from the store
 * in one read transaction, laid out as wot-snap-private.h says (the
 * reader that checks and maps it is wot-snap.c): the keys, the user IDs,
 * then one pass over the certifications in store order (the graph as
 * stored; the edges of the path model are made from it, bind by bind).
 * Issuers are found by their fingerprint decoded, in a table whose slots
 * hold it (one cache line a lookup, fetched a few rows ahead); the
 * certifications come by user ID, so they are sorted by bind only when
 * they do not; the edges are counted, then laid out in place, by signer.
 * Issue 38: 2.3x less CPU at 10^5 keys, 3.0-3.3x at 10^6, than two
 * passes with a search by hex string, 37% less memory, the same bytes
 * (bench/results-reload.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "shared/util.h"
#include "lib/store/store.h"
#include "lib/openpgp/pgp.h"
#include "lib/wot/wot-snap-private.h"

/* Let go of the whole pages inside [@p + @from, @p + @to) (issue 38:
 * the memory peak): pages of a shared file mapping stay in the file, and
 * come back from it when read again; pages of a heap block are not read
 * again before it is freed (they would read as zeros). */
static void drop_pages(void *p, size_t from, size_t to)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)p + from, e = (uintptr_t)p + to;

	if (p == NULL || pg == 0 || (pg & (pg - 1)))
		return;
	a = (a + pg - 1) & ~(pg - 1);
	e &= ~(pg - 1);
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_DONTNEED);
}

/* rows copied, rows dropped at a time (from the heap, or the file
 * mapping) */
#define CHUNK ((size_t)1 << 16)

static size_t align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

int ksp_wsnap_layout(const struct sizes *z, struct layout *l)
{
	uint64_t x = sizeof(struct snap_header), n = z->n, n_uids = z->n_uids, m = z->m;

	if (m > UINT32_MAX || n == UINT32_MAX || z->n_weak > m || z->n_binds == UINT32_MAX || z->n_certs > UINT32_MAX ||
	    z->n_outs > UINT32_MAX || z->strings_len > UINT32_MAX || z->strings_len < 1)
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
	x = align8((size_t)(x + z->n_weak * 4));
	l->bind_off = (size_t)x;
	x = align8((size_t)(x + (n + 1) * 4));
	l->binds = (size_t)x;
	x += (uint64_t)z->n_binds * sizeof(struct ksp_wsnap_bind);
	l->cert_off = (size_t)x;
	x = align8((size_t)(x + ((uint64_t)z->n_binds + 1) * 4));
	l->certs = (size_t)x;
	x += z->n_certs * sizeof(struct ksp_wsnap_cert);
	l->gout_off = (size_t)x;
	x = align8((size_t)(x + (n + 1) * 4));
	l->outs = (size_t)x;
	x += z->n_outs * sizeof(struct ksp_wsnap_out);
	l->strings = (size_t)x;
	x = align8((size_t)(x + z->strings_len));
	if (x > SIZE_MAX / 2)
		return -E2BIG;
	l->len = (size_t)x;
	return 0;
}

/* a certification that may make an edge, while its bind's are sorted */
struct raw_cert {
	uint32_t signer;
	int64_t created, expires;
	uint8_t is_rev, hash_flag;
};

/* A signer's certifications count when made in [from, until) (its
 * creation; its expiry, soft revocation, or never for a hard one). */
struct valid {
	int64_t from, until;
};

/* fingerprint -> vertex: the fingerprints decoded (upper-case hex, as ksp
 * writes them; other text matches no key), by open addressing on their
 * first bytes mixed with the store's nonce (no key can be made to land on
 * another's slot on purpose); a slot holds the first bytes itself, so a
 * lookup reads one cache line (fpr[] only past FPR_IN_SLOT bytes) */
#define FPR_IN_SLOT 27
struct fpr_slot {
	uint32_t v;       /* UINT32_MAX: empty */
	uint8_t len;
	uint8_t fpr[FPR_IN_SLOT];
};

struct fpr_map {
	uint8_t (*fpr)[32];
	uint8_t *len;
	struct fpr_slot *slots;
	uint32_t mask;
	uint64_t seed;
};

/* @hex (@n characters) into @out: its length in bytes, 0 when it is no
 * fingerprint */
static size_t fpr_decode(const char *hex, size_t n, uint8_t out[32])
{
	static const int8_t val[256] = { ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
					 ['7'] = 8, ['8'] = 9, ['9'] = 10, ['A'] = 11, ['B'] = 12, ['C'] = 13,
					 ['D'] = 14, ['E'] = 15, ['F'] = 16 }; /* the value + 1 */
	int bad = 0;

	if (hex == NULL || n == 0 || n % 2 || n > 64)
		return 0;
	for (size_t i = 0; i < n / 2; i++) {
		int h = val[(unsigned char)hex[2 * i]], l = val[(unsigned char)hex[2 * i + 1]];
		bad |= !h | !l;
		out[i] = (uint8_t)((h - 1) << 4 | ((l - 1) & 15));
	}
	return bad ? 0 : n / 2;
}

static uint32_t fpr_hash(const struct fpr_map *fm, const uint8_t *f, size_t len)
{
	uint64_t x = 0;

	memcpy(&x, f, len < 8 ? len : 8);
	x = (x ^ fm->seed ^ len) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(x >> 32) & fm->mask;
}

/* the vertex of fingerprint @f (@len bytes, at slot @h or after), or
 * UINT32_MAX */
static uint32_t fpr_find(const struct fpr_map *fm, const uint8_t *f, size_t len, uint32_t h)
{
	size_t in = len < FPR_IN_SLOT ? len : FPR_IN_SLOT;

	for (; fm->slots[h].v != UINT32_MAX; h = (h + 1) & fm->mask) {
		const struct fpr_slot *sl = &fm->slots[h];
		if (sl->len == len && memcmp(sl->fpr, f, in) == 0 &&
		    (len == in || memcmp(fm->fpr[sl->v] + in, f + in, len - in) == 0))
			return sl->v;
	}
	return UINT32_MAX;
}

static int cmp_cert(const void *a, const void *b)
{
	const struct raw_cert *x = a, *y = b;

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
	uint32_t owner;    /* the key's vertex, user attributes too (UINT32_MAX: none) */
	uint32_t bind;     /* into binds */
};

/* The strings section: offset 0 is the empty string. */
struct strs {
	char *buf;
	size_t len, cap;
};

/* Append @len bytes and a NUL: the offset, or -ENOMEM, -E2BIG. */
static int64_t strs_add(struct strs *b, const void *data, size_t len)
{
	size_t off = b->len;

	if (len >= UINT32_MAX || b->len + len + 1 >= UINT32_MAX)
		return -E2BIG;
	if (b->len + len + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 4096;
		void *np;
		while (nc < b->len + len + 1)
			nc *= 2;
		np = realloc(b->buf, nc);
		if (np == NULL)
			return -ENOMEM;
		b->buf = np;
		b->cap = nc;
	}
	if (len)
		memcpy(b->buf + b->len, data, len);
	b->buf[b->len + len] = '\0';
	b->len += len + 1;
	return (int64_t)off;
}

/* Node @k's binding self-signatures from key_selfsigs.hist (@p, @len:
 * little-endian 32-byte records), in host order into the strings. */
static int hist_add(struct strs *b, struct ksp_wsnap_node *k, const uint8_t *p, size_t len)
{
	struct ksp_wsnap_selfsig *h;
	size_t n = p ? len / 32 : 0;
	int64_t off;

	k->hist_off = k->hist_n = 0;
	if (n == 0)
		return 0;
	if (n >= UINT32_MAX / sizeof(*h))
		return -E2BIG;
	h = malloc(n * sizeof(*h));
	if (h == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t v[4] = { 0, 0, 0, 0 };
		for (int f = 0; f < 4; f++)
			for (int j = 7; j >= 0; j--)
				v[f] = v[f] << 8 | p[i * 32 + (size_t)f * 8 + (size_t)j];
		h[i] = (struct ksp_wsnap_selfsig){ (int64_t)v[0], (int64_t)v[1], (int64_t)v[2], (int64_t)v[3] };
	}
	off = strs_add(b, h, n * sizeof(*h));
	free(h);
	if (off < 0)
		return (int)off;
	k->hist_off = (uint32_t)off;
	k->hist_n = (uint32_t)n;
	return 0;
}

struct bind_row {
	uint32_t vertex, urow;
	int64_t idx;
	struct ksp_wsnap_bind b;
};

static int cmp_bind_row(const void *a, const void *b)
{
	const struct bind_row *x = a, *y = b;

	if (x->vertex != y->vertex)
		return x->vertex < y->vertex ? -1 : 1;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return x->b.uid_id < y->b.uid_id ? -1 : x->b.uid_id > y->b.uid_id;
}

struct gcert_row {
	uint32_t bind;
	bool parse;
	bool edge;         /* exportable = 1, on a user ID */
	int64_t id;        /* certs.id */
	struct ksp_wsnap_cert c;
};

/* The certification @r as the signature packet says: whether it is
 * revocable, and its regular expressions (into @strs). */
static int parse_packet(sqlite3_stmt *st, struct gcert_row *r, struct strs *strs)
{
	struct ksp_pgp_sig sig;
	const void *data;
	size_t len;
	int rc, ret = 0;

	sqlite3_bind_int64(st, 1, r->id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? 0 : -EIO;
	}
	data = sqlite3_column_blob(st, 0);
	len = (size_t)sqlite3_column_bytes(st, 0);
	memset(&sig, 0, sizeof(sig));
	if (data && len && ksp_pgp_parse_sig(data, len, &sig) == 0) {
		if (!sig.revocable)
			r->c.flags &= ~KSP_WSNAP_CERT_REVOCABLE;
		if (sig.n_regexes && sig.regexes[0].len >= 4096)
			r->c.flags |= KSP_WSNAP_CERT_LONG_REGEX;
		for (size_t i = 0; i < sig.n_regexes && i < 0xffff && ret == 0; i++) {
			const uint8_t *d = sig.regexes[i].data;
			const uint8_t *nul = memchr(d, 0, sig.regexes[i].len);
			int64_t off = strs_add(strs, d, nul ? (size_t)(nul - d) : sig.regexes[i].len);
			if (off < 0)
				ret = (int)off;
			else if (i == 0)
				r->c.regex_off = (uint32_t)off;
			if (ret == 0)
				r->c.flags += 1u << KSP_WSNAP_CERT_NREGEX_SHIFT;
		}
	}
	ksp_pgp_sig_done(&sig);
	sqlite3_reset(st);
	return ret;
}

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

/* What build() gathers from the store, phase by phase, before it lays the
 * snapshot out in one block of memory. */
struct builder {
	struct ksp_ctx *ctx;
	sqlite3 *db;
	const char *what; /* the table read, for an SQL error */
	struct ksp_wsnap_node *nodes;
	size_t n, cap_n;
	struct fpr_map fm;
	struct strs strs;
	struct ksp_wsnap_uid *uids;
	size_t nu, cap_u;
	uint32_t *ubind;  /* uids[i]'s bind */
	uint32_t *bvert;  /* binds[i]'s vertex, once brows is gone */
	struct uid_row *urows;
	size_t nr, cap_r;
	struct bind_row *brows;
	size_t nb, cap_b;
	size_t m, n_weak;
	struct gcert_row *gc;
	struct ksp_wsnap_cert *cs; /* gc's certifications alone, once their packets are read */
	size_t ngc, cap_gc;
	uint8_t *edge;    /* per certification (by bind): exportable = 1, on a user ID */
	struct ksp_wsnap_out *outs;
	size_t no, cap_o;
	uint32_t *cert_off, *gout_off;
	uint32_t *out_count; /* edges out of each signer */
	struct raw_cert *rc; /* one bind's, while its edges are made */
	struct valid *valid; /* per vertex */
	size_t cap_rc;
};

static void builder_done(struct builder *b)
{
	free(b->nodes);
	free(b->uids);
	free(b->ubind);
	free(b->bvert);
	free(b->urows);
	free(b->fm.fpr);
	free(b->fm.len);
	free(b->fm.slots);
	free(b->strs.buf);
	free(b->brows);
	free(b->gc);
	free(b->cs);
	free(b->edge);
	free(b->outs);
	free(b->cert_off);
	free(b->gout_off);
	free(b->out_count);
	free(b->rc);
	free(b->valid);
}

/* the map from fingerprint to vertex, of the b->n keys read */
static int fpr_map_make(struct builder *b)
{
	uint32_t ns = 1024;
	bool long_fpr = false;

	while (ns < 2 * b->n)
		ns *= 2;
	b->fm.slots = huge_alloc(ns * sizeof(*b->fm.slots));
	if (b->fm.slots == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < ns; i++)
		b->fm.slots[i].v = UINT32_MAX;
	b->fm.mask = ns - 1;
	for (uint32_t i = 0; i < b->n; i++) {
		uint32_t h, len = b->fm.len[i];
		if (len == 0)
			continue;
		h = fpr_hash(&b->fm, b->fm.fpr[i], len);
		while (b->fm.slots[h].v != UINT32_MAX)
			h = (h + 1) & b->fm.mask;
		b->fm.slots[h].v = i;
		b->fm.slots[h].len = (uint8_t)len;
		memcpy(b->fm.slots[h].fpr, b->fm.fpr[i], len < FPR_IN_SLOT ? len : FPR_IN_SLOT);
		long_fpr |= len > FPR_IN_SLOT;
	}
	/* (read only for a fingerprint longer than a slot holds) */
	if (!long_fpr) {
		free(b->fm.fpr);
		b->fm.fpr = NULL;
	}
	return 0;
}

/* the keys, in id order, and the map from fingerprint to vertex */
static int build_keys(struct builder *b)
{
	sqlite3_stmt *st = NULL;
	int rc, r = -ENOMEM;

	b->what = "keys";
	rc = sqlite3_prepare_v2(b->db, "SELECT id, fpr, created, expires, revoked, algo, bits, " KSP_SQL_HARD_REVOKED("revoked", "revoked_reason")
				", selfsig_ok, (SELECT hist FROM key_selfsigs s WHERE s.key_id = keys.id) FROM keys ORDER BY id", -1,
				&st, NULL);
	if (rc != SQLITE_OK)
		goto sql_fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(st, 1);
		size_t n = b->n, flen = (size_t)sqlite3_column_bytes(st, 1);
		int64_t foff;
		GROW(b->nodes, b->n, b->cap_n, out);
		b->nodes[n] = (struct ksp_wsnap_node){
			.key_id = sqlite3_column_int64(st, 0),
			.created = sqlite3_column_int64(st, 2),
			.expires = never0(sqlite3_column_int64(st, 3)),
			.revoked = never0(sqlite3_column_int64(st, 4)),
			.algo = (uint32_t)sqlite3_column_int(st, 5),
			.bits = (uint32_t)sqlite3_column_int(st, 6),
			.flags = (sqlite3_column_int(st, 7) ? KSP_WSNAP_HARD_REVOKED : 0) |
				 (sqlite3_column_int(st, 8) ? KSP_WSNAP_SELFSIG_OK : 0),
		};
		foff = strs_add(&b->strs, f ? f : "", f ? strlen(f) : 0);
		if (foff < 0) {
			r = (int)foff;
			goto out;
		}
		b->nodes[n].fpr_off = (uint32_t)foff;
		r = hist_add(&b->strs, &b->nodes[n], sqlite3_column_blob(st, 9), (size_t)sqlite3_column_bytes(st, 9));
		if (r < 0)
			goto out;
		r = -ENOMEM;
		if (n % 1024 == 0) {
			void *p = realloc(b->fm.fpr, (n + 1024) * sizeof(*b->fm.fpr)), *q;
			if (p == NULL)
				goto out;
			b->fm.fpr = p;
			q = realloc(b->fm.len, n + 1024);
			if (q == NULL)
				goto out;
			b->fm.len = q;
		}
		b->fm.len[n] = (uint8_t)fpr_decode(f, f ? flen : 0, b->fm.fpr[n]);
		b->n = ++n;
		if (n >= UINT32_MAX) {
			r = -E2BIG;
			goto out;
		}
	}
	if (rc != SQLITE_DONE)
		goto sql_fail;
	sqlite3_finalize(st);
	return fpr_map_make(b);
sql_fail:
	r = ksp_errno_from_sqlite(b->ctx, b->db, rc, b->what);
out:
	sqlite3_finalize(st);
	return r;
}
/* the user IDs, in id order: the user IDs of the graph and every bind */
static int build_uids(struct builder *b)
{
	sqlite3_stmt *st = NULL;
	int rc, r = -ENOMEM;

	b->what = "uids";
	rc = sqlite3_prepare_v2(b->db, "SELECT id, key_id, is_attr, revoked, idx, uid, selfsig, ss_strong, ss_sha1, ss_rmd160, ss_md5, "
				"ss_exp_created, ss_exp_until, ss_exp_hash "
				"FROM uids ORDER BY id", -1,
				&st, NULL);
	if (rc != SQLITE_OK)
		goto sql_fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t kid = sqlite3_column_int64(st, 1);
		uint32_t lo = 0, hi = (uint32_t)b->n;
		size_t nr = b->nr;
		GROW(b->urows, b->nr, b->cap_r, out);
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (b->nodes[mid].key_id < kid)
				lo = mid + 1;
			else
				hi = mid;
		}
		b->urows[nr] = (struct uid_row){ .id = sqlite3_column_int64(st, 0), .vertex = UINT32_MAX,
						 .uidx = UINT32_MAX, .owner = UINT32_MAX, .bind = UINT32_MAX };
		if (lo < b->n && b->nodes[lo].key_id == kid) {
			const void *text = sqlite3_column_blob(st, 5);
			size_t tlen = (size_t)sqlite3_column_bytes(st, 5);
			int64_t toff = strs_add(&b->strs, text, text ? tlen : 0);
			if (toff < 0) {
				r = (int)toff;
				goto out;
			}
			GROW(b->brows, b->nb, b->cap_b, out);
			b->urows[nr].owner = lo;
			b->brows[b->nb++] = (struct bind_row){
				.vertex = lo,
				.urow = (uint32_t)nr,
				.idx = sqlite3_column_int64(st, 4),
				.b = { .uid_id = b->urows[nr].id,
				       .revoked = never0(sqlite3_column_int64(st, 3)),
				       .text_off = (uint32_t)toff,
				       .text_len = text ? (uint32_t)tlen : 0,
				       .flags = (sqlite3_column_int(st, 2) ? KSP_WSNAP_BIND_ATTR : 0) |
						(sqlite3_column_int64(st, 6) > 0 ? KSP_WSNAP_BIND_SELFSIG : 0),
				       .uidx = UINT32_MAX,
				       .ss = { sqlite3_column_int64(st, 7), sqlite3_column_int64(st, 8),
					       sqlite3_column_int64(st, 9), sqlite3_column_int64(st, 10) },
				       .ss_exp_created = sqlite3_column_int64(st, 11),
				       .ss_exp_until = sqlite3_column_int64(st, 12),
				       .ss_exp_hash = (uint32_t)sqlite3_column_int(st, 13) },
			};
		}
		if (lo < b->n && b->nodes[lo].key_id == kid && sqlite3_column_int(st, 2) == 0) {
			b->brows[b->nb - 1].b.uidx = (uint32_t)b->nu;
			GROW(b->uids, b->nu, b->cap_u, out);
			b->urows[nr].vertex = lo;
			b->urows[nr].uidx = (uint32_t)b->nu;
			b->uids[b->nu++] = (struct ksp_wsnap_uid){ .uid_id = b->urows[nr].id,
								   .revoked = never0(sqlite3_column_int64(st, 3)) };
		}
		b->nr = nr + 1;
	}
	if (rc != SQLITE_DONE)
		goto sql_fail;
	sqlite3_finalize(st);
	st = NULL;
	if (b->nb >= UINT32_MAX) {
		r = -E2BIG;
		goto out;
	}
	for (size_t i = 1; i < b->nb; i++)
		if (cmp_bind_row(&b->brows[i - 1], &b->brows[i]) > 0) {
			qsort(b->brows, b->nb, sizeof(*b->brows), cmp_bind_row);
			break;
		}
	r = -ENOMEM;
	b->ubind = malloc((b->nu ? b->nu : 1) * sizeof(*b->ubind));
	if (b->ubind == NULL)
		goto out;
	for (size_t i = 0; i < b->nb; i++) {
		b->urows[b->brows[i].urow].bind = (uint32_t)i;
		if (b->brows[i].b.uidx != UINT32_MAX)
			b->ubind[b->brows[i].b.uidx] = (uint32_t)i;
	}
	return 0;
sql_fail:
	r = ksp_errno_from_sqlite(b->ctx, b->db, rc, b->what);
out:
	sqlite3_finalize(st);
	return r;
}

/* The urow of user ID @id: where the last one was or just after it (the
 * certifications come by id, so mostly by user ID), else a search. */
static const struct uid_row *urow_find(const struct builder *b, int64_t id, size_t *hint)
{
	const struct uid_row *u;

	for (size_t i = *hint; i < b->nr && i < *hint + 4; i++)
		if (b->urows[i].id == id) {
			*hint = i;
			return &b->urows[i];
		}
	u = b->nr ? bsearch(&id, b->urows, b->nr, sizeof(*b->urows), cmp_uid_row) : NULL;
	if (u)
		*hint = (size_t)(u - b->urows);
	return u;
}

/* A certification read, its issuer looked up AHEAD rows later (its slot
 * fetched meanwhile: the lookups are most of the reading otherwise). */
#define AHEAD 16
struct pending {
	size_t gi; /* into gc */
	uint32_t h;
	uint8_t len;
	uint8_t f[32];
};

/* The issuer of gc[@p->gi], and what it certified; the row dropped
 * (bind UINT32_MAX) when the issuer is no key of the store, or its own. */
static int resolve(struct builder *b, const struct pending *p)
{
	struct gcert_row *g = &b->gc[p->gi];
	uint32_t owner = b->brows[g->bind].vertex, signer = fpr_find(&b->fm, p->f, p->len, p->h);

	if (signer == UINT32_MAX) {
		g->bind = UINT32_MAX;
		return 0;
	}
	/* (the outs of the rows kept are made from them later, by
	 * sort_outs(): only a key's own are kept here) */
	if (g->c.type != 48 && signer == owner) {
		GROW(b->outs, b->no, b->cap_o, nomem);
		b->outs[b->no++] = (struct ksp_wsnap_out){ .v = owner, .reserved = signer, .created = g->c.created };
	}
	if (signer == owner)
		g->bind = UINT32_MAX;
	g->c.issuer = signer;
	return 0;
nomem:
	return -ENOMEM;
}

/* every certification and revocation by a key of the store, in store
 * order, once: the graph as stored, what each signer certified, and
 * (exportable, on a user ID) what may make an edge */
static int read_certs(struct builder *b)
{
	sqlite3_stmt *st = NULL;
	struct pending ring[AHEAD];
	size_t hint = 0, head = 0, k = 0;
	int rc, r = -ENOMEM;

	b->what = "certs";
	rc = sqlite3_prepare_v2(b->db,
				"SELECT id, uid_id, issuer_fpr, sig_type, hash_algo, created, expires, exportable, "
				"trust_depth, trust_amount FROM certs "
				"WHERE verified = 1 AND issuer_fpr IS NOT NULL "
				"AND (sig_type BETWEEN 16 AND 19 OR sig_type = 48) ORDER BY id",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		goto sql_fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const struct uid_row *u = urow_find(b, sqlite3_column_int64(st, 1), &hint);
		struct pending *p = &ring[head % AHEAD];
		int type = sqlite3_column_int(st, 3), depth = sqlite3_column_int(st, 8),
		    amount = sqlite3_column_int(st, 9), exportable = sqlite3_column_int(st, 7);

		uint8_t f[32];
		size_t len = fpr_decode((const char *)sqlite3_column_text(st, 2), (size_t)sqlite3_column_bytes(st, 2), f);

		if (u == NULL || u->owner == UINT32_MAX || len == 0)
			continue;
		if (head >= AHEAD && (r = resolve(b, p)) < 0)
			goto out;
		r = -ENOMEM;
		memcpy(p->f, f, len);
		p->len = (uint8_t)len;
		p->h = fpr_hash(&b->fm, p->f, p->len);
		__builtin_prefetch(&b->fm.slots[p->h]);
		GROW(b->gc, b->ngc, b->cap_gc, out);
		p->gi = b->ngc;
		head++;
		b->gc[b->ngc++] = (struct gcert_row){
			.bind = u->bind,
			.id = sqlite3_column_int64(st, 0),
			.parse = depth > 0,
			.edge = exportable == 1 && u->vertex != UINT32_MAX,
			.c = { .issuer = UINT32_MAX,
			       .type = (uint8_t)type,
			       .hash = (uint8_t)sqlite3_column_int(st, 4),
			       .depth = (uint8_t)(depth < 0 ? 0 : depth > 255 ? 255 : depth),
			       .amount = (uint8_t)(amount < 0 ? 0 : amount > 255 ? 255 : amount),
			       .flags = KSP_WSNAP_CERT_REVOCABLE | (exportable ? KSP_WSNAP_CERT_EXPORTABLE : 0),
			       .created = sqlite3_column_int64(st, 5),
			       .expires = sqlite3_column_int64(st, 6) },
		};
	}
	if (rc != SQLITE_DONE)
		goto sql_fail;
	sqlite3_finalize(st);
	st = NULL;
	for (size_t i = head > AHEAD ? head - AHEAD : 0; i < head; i++)
		if ((r = resolve(b, &ring[i % AHEAD])) < 0)
			goto out;
	for (size_t i = 0; i < b->ngc; i++)
		if (b->gc[i].bind != UINT32_MAX)
			b->gc[k++] = b->gc[i];
	b->ngc = k;
	free(b->urows);
	b->urows = NULL;
	/* (the issuers are found: the map goes before the big arrays come) */
	free(b->fm.fpr);
	free(b->fm.len);
	free(b->fm.slots);
	b->fm.fpr = NULL;
	b->fm.len = NULL;
	b->fm.slots = NULL;
	return b->ngc >= UINT32_MAX || b->no >= UINT32_MAX ? -E2BIG : 0;
sql_fail:
	r = ksp_errno_from_sqlite(b->ctx, b->db, rc, b->what);
out:
	sqlite3_finalize(st);
	return r;
}

/* The edges of bind @bi (user ID @uidx of vertex @v) from its
 * certifications @cs (by @stride bytes): each certification that counts
 * with the revocation that followed it, by signer, newest first, to
 * @emit, which counts them or lays them out.  Returns -ENOMEM or 0. */
static int bind_edges(struct builder *b, uint32_t bi, uint32_t uidx, const uint8_t *cs, size_t stride,
		      void (*emit)(struct builder *b, const struct ksp_wsnap_edge *e, void *arg), void *arg)
{
	size_t k = 0;

	for (uint32_t i = b->cert_off[bi]; i < b->cert_off[bi + 1]; i++) {
		const struct ksp_wsnap_cert *c = (const void *)(cs + (size_t)i * stride);
		int hash = c->hash;
		if (!b->edge[i])
			continue;
		if (k == b->cap_rc) {
			size_t nc = b->cap_rc ? 2 * b->cap_rc : 64;
			void *np = realloc(b->rc, nc * sizeof(*b->rc));
			if (np == NULL)
				return -ENOMEM;
			b->rc = np;
			b->cap_rc = nc;
		}
		b->rc[k++] = (struct raw_cert){
			.signer = c->issuer,
			.created = c->created,
			.expires = never0(c->expires),
			.is_rev = c->type == 48,
			.hash_flag = hash == 1 ? KSP_WSNAP_MD5 : hash == 2 ? KSP_WSNAP_SHA1 : hash == 3 ? KSP_WSNAP_RMD160 : 0,
		};
	}
	if (k > 16) {
		qsort(b->rc, k, sizeof(*b->rc), cmp_cert);
	} else {
		/* (a bind has a few; qsort's call costs more than the sort) */
		for (size_t i = 1; i < k; i++) {
			struct raw_cert x = b->rc[i];
			size_t j = i;
			for (; j > 0 && cmp_cert(&b->rc[j - 1], &x) > 0; j--)
				b->rc[j] = b->rc[j - 1];
			b->rc[j] = x;
		}
	}
	for (size_t i = 0; i < k;) {
		size_t j = i;
		int64_t rev = KSP_WSNAP_NEVER;
		/* one signer's, newest first */
		for (; j < k && b->rc[j].signer == b->rc[i].signer; j++) {
			const struct raw_cert *c = &b->rc[j];
			if (c->is_rev) {
				rev = c->created;
				continue;
			}
			/* made inside the signer's own validity: before its
			 * expiry and its (soft) revocation; a hard-revoked
			 * signer's certifications never count */
			if (c->created < b->valid[c->signer].from || c->created >= b->valid[c->signer].until)
				continue;
			emit(b, &(struct ksp_wsnap_edge){ .u = c->signer, .v = b->bvert[bi], .uidx = uidx,
							  .flags = c->hash_flag, .created = c->created,
							  .expires = c->expires, .revoked = rev },
			     arg);
		}
		i = j;
	}
	return 0;
}

/* Every bind's edges, by user ID (the order of the edges out of a
 * signer); the certifications @cs (by @stride bytes) let go of behind
 * the user IDs done when @shared (a file mapping: they come by bind, and
 * the binds mostly in user ID order). */
static int all_edges(struct builder *b, uint8_t *cs, size_t stride, bool shared,
		     void (*emit)(struct builder *b, const struct ksp_wsnap_edge *e, void *arg), void *arg)
{
	size_t done = 0;

	for (uint32_t x = 0; x < b->nu; x++) {
		int r = bind_edges(b, b->ubind[x], x, cs, stride, emit, arg);
		if (r < 0)
			return r;
		if (shared && x % 65536 == 65535 && (size_t)b->cert_off[b->ubind[x]] * stride > done) {
			drop_pages(cs, done, (size_t)b->cert_off[b->ubind[x]] * stride);
			done = (size_t)b->cert_off[b->ubind[x]] * stride;
		}
	}
	return 0;
}

/* each edge at its place among its signer's; the edges into each vertex
 * counted */
struct edge_place {
	struct ksp_wsnap_edge *edges;
	uint32_t *pos, *in_count;
};

static void edge_put(struct builder *b, const struct ksp_wsnap_edge *e, void *arg)
{
	struct edge_place *p = arg;

	(void)b;
	p->edges[p->pos[e->u]++] = *e;
	p->in_count[e->v + 1]++;
}

static int cmp_out_v(const void *a, const void *b)
{
	const struct ksp_wsnap_out *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->created < y->created ? -1 : x->created > y->created;
}

/* the outs by signer, then certified key, the oldest certification of
 * each: made from the certifications kept (by bind now) and the keys'
 * own (b->outs), by signer (a counting sort; the order within a
 * signer's does not matter, as they are sorted next and equal ones are
 * the same bytes).  Not gathered while reading: one array fewer at the
 * memory peak (issue 38). */
static int sort_outs(struct builder *b, uint32_t *gout_off)
{
	struct ksp_wsnap_out *o;
	uint32_t *pos = malloc((b->n + 1) * sizeof(*pos));
	size_t k = 0, no = b->no;

	memset(gout_off, 0, (b->n + 1) * sizeof(*gout_off));
	for (size_t i = 0; i < b->ngc; i++)
		if (b->cs[i].type != 48) {
			gout_off[b->cs[i].issuer + 1]++;
			no++;
		}
	for (size_t i = 0; i < b->no; i++)
		gout_off[b->outs[i].reserved + 1]++;
	o = no < UINT32_MAX ? malloc((no ? no : 1) * sizeof(*o)) : NULL;
	if (o == NULL || pos == NULL) {
		free(o);
		free(pos);
		return no < UINT32_MAX ? -ENOMEM : -E2BIG;
	}
	for (size_t i = 0; i < b->n; i++)
		gout_off[i + 1] += gout_off[i];
	memcpy(pos, gout_off, (b->n + 1) * sizeof(*pos));
	for (uint32_t bi = 0; bi < b->nb; bi++)
		for (uint32_t i = b->cert_off[bi]; i < b->cert_off[bi + 1]; i++) {
			const struct ksp_wsnap_cert *c = &b->cs[i];
			if (c->type != 48)
				o[pos[c->issuer]++] = (struct ksp_wsnap_out){ .v = b->brows[bi].vertex,
									      .reserved = c->issuer,
									      .created = c->created };
		}
	for (size_t i = 0; i < b->no; i++)
		o[pos[b->outs[i].reserved]++] = b->outs[i];
	free(b->outs);
	b->outs = o;
	b->no = no;
	for (size_t u = 0; u < b->n; u++) {
		size_t from = gout_off[u], to = gout_off[u + 1];
		if (to - from > 32) {
			qsort(o + from, to - from, sizeof(*o), cmp_out_v);
		} else {
			/* few, and mostly in order already (by id, so by key) */
			for (size_t i = from + 1; i < to; i++) {
				struct ksp_wsnap_out x = o[i];
				size_t j = i;
				for (; j > from && cmp_out_v(&o[j - 1], &x) > 0; j--)
					o[j] = o[j - 1];
				o[j] = x;
			}
		}
		gout_off[u] = (uint32_t)k;
		for (size_t i = from; i < to; i++)
			if (i == from || o[i].v != o[k - 1].v) {
				o[k] = o[i];
				o[k++].reserved = 0;
			}
	}
	gout_off[b->n] = (uint32_t)k;
	b->no = k;
	free(pos);
	return 0;
}

static int cmp_bind_id(const void *a, const void *b)
{
	const struct gcert_row *x = a, *y = b;

	if (x->bind != y->bind)
		return x->bind < y->bind ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/*
 * The certifications (in store order) by bind, store order within: a
 * reload's new ones come after all the others, so when the rows out of
 * order are a short tail, the tail alone is sorted and merged in from the
 * end, in place (at 10^5 keys a reload's copy into a new array of every
 * row was 6% of its time, the kernel zeroing fresh pages); otherwise a
 * counting sort into a new array.  Both keep store order within a bind.
 */
static int sort_by_bind(struct builder *b)
{
	size_t ngc = b->ngc, nb = b->nb, p = 1;
	struct gcert_row *gc = b->gc;

	while (p < ngc && gc[p - 1].bind <= gc[p].bind)
		p++;
	if (ngc - p <= ngc / 8) {
		size_t t = ngc - p, i = p, j = t, k = ngc;
		struct gcert_row *tail = malloc((t ? t : 1) * sizeof(*tail));

		if (tail == NULL)
			return -ENOMEM;
		memcpy(tail, gc + p, t * sizeof(*tail));
		/* (ids are unique and grow with the position: a stable sort) */
		qsort(tail, t, sizeof(*tail), cmp_bind_id);
		while (j > 0) {
			if (i > 0 && gc[i - 1].bind > tail[j - 1].bind)
				gc[--k] = gc[--i];
			else
				gc[--k] = tail[--j];
		}
		free(tail);
		return 0;
	}
	struct gcert_row *gs = malloc((ngc ? ngc : 1) * sizeof(*gs));
	uint32_t *pos = malloc((nb + 1) * sizeof(*pos));
	if (gs == NULL || pos == NULL) {
		free(gs);
		free(pos);
		return -ENOMEM;
	}
	memcpy(pos, b->cert_off, (nb + 1) * sizeof(*pos));
	for (size_t i = 0; i < ngc; i++)
		gs[pos[gc[i].bind]++] = gc[i];
	free(pos);
	free(b->gc);
	b->gc = gs;
	return 0;
}

/* the stored certifications by bind, in store order within (they come
 * so, else sort_by_bind()), their packets read where they can
 * matter; the outs; the edges counted */
static int build_certs(struct builder *b)
{
	uint32_t *stamp = NULL, *first = NULL, *out_count = NULL;
	sqlite3_stmt *st = NULL;
	size_t nb = b->nb, ngc = b->ngc, n = b->n;
	bool sorted = true;
	int rc, r = -ENOMEM;

	b->cert_off = calloc(nb + 1, sizeof(*b->cert_off));
	b->gout_off = malloc((n + 1) * sizeof(*b->gout_off));
	b->edge = malloc(ngc ? ngc : 1);
	stamp = calloc(n ? n : 1, sizeof(*stamp));
	first = malloc((n ? n : 1) * sizeof(*first));
	if (b->cert_off == NULL || b->gout_off == NULL || b->edge == NULL || stamp == NULL || first == NULL)
		goto out;
	for (size_t i = 0; i < ngc; i++) {
		b->cert_off[b->gc[i].bind + 1]++;
		sorted = sorted && (i == 0 || b->gc[i - 1].bind <= b->gc[i].bind);
	}
	for (size_t i = 0; i < nb; i++)
		b->cert_off[i + 1] += b->cert_off[i];
	if (!sorted && (r = sort_by_bind(b)) < 0)
		goto out;
	r = -ENOMEM;
	/* the packet is read where it can matter: trust signatures (regular
	 * expressions) and an issuer's several certifications of one bind
	 * (which one is revocable) */
	for (uint32_t bi = 0; bi < nb; bi++)
		for (uint32_t i = b->cert_off[bi]; i < b->cert_off[bi + 1]; i++) {
			uint32_t is = b->gc[i].c.issuer;
			if (stamp[is] == bi + 1) {
				b->gc[i].parse = b->gc[first[is]].parse = true;
			} else {
				stamp[is] = bi + 1;
				first[is] = i;
			}
		}
	rc = sqlite3_prepare_v2(b->db, "SELECT sigdata FROM certs WHERE id = ?", -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto sql_fail;
	for (size_t i = 0; i < ngc; i++) {
		b->edge[i] = b->gc[i].edge;
		if (b->gc[i].parse && (r = parse_packet(st, &b->gc[i], &b->strs)) < 0) {
			if (r == -EIO) {
				rc = sqlite3_errcode(b->db);
				goto sql_fail;
			}
			goto out;
		}
	}
	/* the certifications alone (32 of a row's 48 bytes), the rows let go
	 * of as they are copied, before the outs are made */
	r = -ENOMEM;
	b->cs = malloc((ngc ? ngc : 1) * sizeof(*b->cs));
	if (b->cs == NULL)
		goto out;
	for (size_t lo = 0; lo < ngc; lo += CHUNK) {
		size_t hi = lo + CHUNK < ngc ? lo + CHUNK : ngc;
		for (size_t i = lo; i < hi; i++)
			b->cs[i] = b->gc[i].c;
		drop_pages(b->gc, lo * sizeof(*b->gc), hi * sizeof(*b->gc));
	}
	free(b->gc);
	b->gc = NULL;
	out_count = calloc(n + 1, sizeof(*out_count));
	if (out_count == NULL || (r = sort_outs(b, b->gout_off)) < 0)
		goto out;
	r = -ENOMEM;
	/* the edges counted: one per certification that counts (bind_edges()
	 * without the order, which only says which revocation follows it) */
	b->valid = huge_alloc((n ? n : 1) * sizeof(*b->valid));
	if (b->valid == NULL)
		goto out;
	for (size_t v = 0; v < n; v++) {
		const struct ksp_wsnap_node *k = &b->nodes[v];
		b->valid[v] = (struct valid){ k->created, (k->flags & KSP_WSNAP_HARD_REVOKED) ? INT64_MIN :
							  k->expires < k->revoked ? k->expires : k->revoked };
	}
	for (size_t i = 0; i < ngc; i++) {
		const struct ksp_wsnap_cert *c = &b->cs[i];
		if (!b->edge[i] || c->type == 48 || c->created < b->valid[c->issuer].from ||
		    c->created >= b->valid[c->issuer].until)
			continue;
		out_count[c->issuer]++;
		b->m++;
		if (c->hash >= 1 && c->hash <= 3)
			b->n_weak++;
	}
	r = 0;
	b->out_count = out_count;
	out_count = NULL;
	goto out;
sql_fail:
	r = ksp_errno_from_sqlite(b->ctx, b->db, rc, b->what);
out:
	sqlite3_finalize(st);
	free(stamp);
	free(first);
	free(out_count);
	return r;
}

/* Lay the snapshot out in @mem (l->len bytes, zeroed) as @l says; what
 * is copied is freed on the way, and the finished sections are let go
 * of when @shared (a file mapping: issue 38, the memory peak), so that
 * at most the edges, the certifications being read and the arrays still
 * needed are resident at once. */
static int build_image(struct builder *b, uint8_t *mem, const struct layout *l, const struct sizes *z, int64_t gen,
		       int64_t nonce, bool shared)
{
	size_t n = b->n, m = b->m;
	struct snap_header *h = (struct snap_header *)mem;
	struct ksp_wsnap_edge *edges = (void *)(mem + l->edges);
	struct ksp_wsnap_cert *cs = (void *)(mem + l->certs);
	uint32_t *out_off = (void *)(mem + l->out_off), *in_off = (void *)(mem + l->in_off),
		 *in_eid = (void *)(mem + l->in_eid), *weak = (void *)(mem + l->weak),
		 *bind_off = (void *)(mem + l->bind_off), *pos;
	struct ksp_wsnap_bind *binds = (void *)(mem + l->binds);
	int r;

	memcpy(h->magic, SNAP_MAGIC, 8);
	h->version = SNAP_VERSION;
	h->endian = SNAP_ENDIAN;
	h->n = (uint32_t)n;
	h->n_uids = (uint32_t)b->nu;
	h->m = m;
	h->gen = gen;
	h->nonce = nonce;
	h->len = l->len;
	h->n_binds = z->n_binds;
	h->n_certs = z->n_certs;
	h->n_outs = z->n_outs;
	h->strings_len = z->strings_len;
	h->n_weak = b->n_weak;
	if (n)
		memcpy(mem + l->nodes, b->nodes, n * sizeof(*b->nodes));
	if (b->nu)
		memcpy(mem + l->uids, b->uids, b->nu * sizeof(*b->uids));
	free(b->nodes);
	free(b->uids);
	b->nodes = NULL;
	b->uids = NULL;
	if (shared)
		drop_pages(mem, 0, l->out_off);
	b->bvert = malloc((b->nb ? b->nb : 1) * sizeof(*b->bvert));
	if (b->bvert == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < b->nb; i++) {
		bind_off[b->brows[i].vertex + 1]++;
		binds[i] = b->brows[i].b;
		b->bvert[i] = b->brows[i].vertex;
	}
	free(b->brows);
	b->brows = NULL;
	for (size_t i = 0; i < n; i++)
		bind_off[i + 1] += bind_off[i];
	memcpy(mem + l->cert_off, b->cert_off, (b->nb + 1) * sizeof(*b->cert_off));
	if (shared)
		drop_pages(mem, l->bind_off, l->certs);
	for (size_t lo = 0; lo < b->ngc; lo += CHUNK) {
		size_t hi = lo + CHUNK < b->ngc ? lo + CHUNK : b->ngc;
		memcpy(cs + lo, b->cs + lo, (hi - lo) * sizeof(*cs));
		drop_pages(b->cs, lo * sizeof(*cs), hi * sizeof(*cs));
		if (shared)
			drop_pages(cs, lo * sizeof(*cs), hi * sizeof(*cs));
	}
	free(b->cs);
	b->cs = NULL;
	memcpy(mem + l->gout_off, b->gout_off, (n + 1) * sizeof(*b->gout_off));
	if (b->no)
		memcpy(mem + l->outs, b->outs, b->no * sizeof(*b->outs));
	if (b->strs.len)
		memcpy(mem + l->strings, b->strs.buf, b->strs.len);
	free(b->outs);
	free(b->gout_off);
	free(b->strs.buf);
	b->outs = NULL;
	b->gout_off = NULL;
	b->strs.buf = NULL;
	if (shared)
		drop_pages(mem, l->gout_off, l->len);
	pos = malloc((n + 1) * sizeof(*pos));
	if (pos == NULL)
		return -ENOMEM;
	/* out: by signer, each signer's by user ID */
	for (size_t i = 0; i < n; i++)
		out_off[i + 1] = out_off[i] + b->out_count[i];
	memcpy(pos, out_off, (n + 1) * sizeof(*pos));
	r = all_edges(b, (uint8_t *)cs, sizeof(*cs), shared, edge_put, &(struct edge_place){ edges, pos, in_off });
	if (r < 0) {
		free(pos);
		return r;
	}
	if (shared)
		drop_pages(mem, l->certs, l->gout_off);
	for (size_t i = 0; i < n; i++)
		in_off[i + 1] += in_off[i];
	memcpy(pos, in_off, (n + 1) * sizeof(*pos));
	/* in: by certified key, each key's by edge; the weak ones */
	for (size_t i = 0, k = 0; i < m; i++) {
		in_eid[pos[edges[i].v]++] = (uint32_t)i;
		if (edges[i].flags & KSP_WSNAP_WEAK)
			weak[k++] = (uint32_t)i;
		if (shared && (i + 1) % CHUNK == 0)
			drop_pages(edges, (i + 1 - CHUNK) * sizeof(*edges), (i + 1) * sizeof(*edges));
	}
	free(pos);
	if (shared)
		drop_pages(mem, 0, l->len);
	return 0;
}

/* (ksp_wsnap_build(): keys, user IDs, one pass over the certifications,
 * then the image) */
int ksp_wsnap_build(struct ksp_store *store, int64_t gen, int64_t nonce, struct ksp_wsnap_mem *where, void **ret_mem,
		    size_t *ret_len)
{
	struct builder b = { .ctx = ksp_store_get_ctx(store), .db = ksp_store_db(store), .what = "keys" };
	struct layout l;
	struct sizes z;
	uint8_t *mem = NULL;
	int r = -ENOMEM;

	b.fm.seed = (uint64_t)nonce;
	if (strs_add(&b.strs, "", 0) < 0)
		goto out;
	r = build_keys(&b);
	if (r == 0)
		r = build_uids(&b);
	if (r == 0)
		r = read_certs(&b);
	if (r == 0)
		r = build_certs(&b);
	if (r < 0)
		goto out;
	z = (struct sizes){ .n = (uint32_t)b.n, .n_uids = (uint32_t)b.nu, .n_binds = (uint32_t)b.nb, .m = b.m,
			    .n_weak = b.n_weak, .n_certs = b.ngc, .n_outs = b.no, .strings_len = b.strs.len };
	r = ksp_wsnap_layout(&z, &l);
	if (r < 0)
		goto out;
	r = -ENOMEM;
	mem = where ? where->get(where, l.len) : calloc(1, l.len);
	if (mem == NULL)
		goto out;
	r = build_image(&b, mem, &l, &z, gen, nonce, where && where->shared(where, mem));
	if (r < 0) {
		if (where)
			where->put(where, mem, l.len);
		else
			free(mem);
		goto out;
	}
	*ret_mem = mem;
	*ret_len = l.len;
	r = 0;
out:
	builder_done(&b);
	return r;
}
