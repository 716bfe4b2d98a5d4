// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wot-scan.c: keyrings read straight into the structural graph, without
 * the store: what keyanalyze computes, from the same reader as
 * ksp_wot_load().
 *
 * The result equals `ksp wot load --no-verify FILE...` into a new store
 * followed by the structural view (wot-view.c, wot.h), rule by rule:
 *  - a key is a primary key fingerprint; the same key read twice is one;
 *  - a certification is a signature of type 0x10-0x13 or 0x30 on a user
 *    ID or attribute of a key, not by the key itself, naming an issuer
 *    (fingerprint or key ID); it is the same certification when the same
 *    packet is on the same user ID of the same key (the store's
 *    UNIQUE(uid_id, digest), SHA-1 of the packet body);
 *  - an edge: a certification 0x10-0x13, exportable, on a user ID (not an
 *    attribute), by the key of its issuer fingerprint when it names one,
 *    else by every key of its issuer key ID, other than the key certified.
 *
 * Memory: per key 48 octets, per certification 16 (edges) + 28 (digest
 * table); the keyring itself is not kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcrypt.h>

#include "lib/input-private.h"
#include "lib/libksp-private.h"
#include "lib/openpgp/pgp.h"
#include "lib/wot/wot-scan.h"
#include "shared/util.h"

#define NONE UINT32_MAX

struct scan_key {
	uint8_t fpr[32];
	uint8_t fpr_len;
	bool primary;  /* read as a primary key; else only named as an issuer */
	uint64_t kid;  /* primary: its key ID */
	uint32_t first_uid, last_uid; /* primary: its user IDs, a chain; NONE: none */
};

/* A user ID of a key, as the store keeps it to show beside the key
 * (uids.idx, selfsig, revoked, primary_uid; the same merge rules). */
struct scan_uid {
	uint8_t dig[20]; /* SHA-1 of key, user ID: its identity */
	uint32_t key, next, len, idx;
	size_t text;     /* offset in the text arena */
	int64_t selfsig, revoked;
	bool primary;
};

struct scan_edge {
	uint64_t kid;    /* issuer key ID, when issuer == NONE */
	uint32_t target; /* key index */
	uint32_t issuer; /* key index of the issuer fingerprint, or NONE */
};

struct ksp_wot_scan {
	struct ksp_ctx *ctx;
	uint64_t seed;
	/* keys, and an open-addressing index on their fingerprints */
	struct scan_key *keys;
	uint32_t n_keys;
	size_t cap_keys;
	uint32_t *kidx;  /* key index + 1, 0 = empty */
	size_t kidx_mask;
	/* distinct certifications: SHA-1 digests and their index */
	uint8_t (*dig)[20];
	size_t n_dig, cap_dig;
	uint32_t *didx;  /* digest index + 1, 0 = empty */
	size_t didx_mask;
	struct scan_edge *edges;
	size_t n_edges, cap_edges;
	struct scan_uid *uids;
	size_t n_uids, cap_uids;
	uint32_t *uidx;  /* uid index + 1, 0 = empty */
	size_t uidx_mask;
	char *text;      /* user ID bytes, each NUL-terminated */
	size_t n_text, cap_text;
	uint64_t certs, revocations, primaries;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* The tables are indexed by a hash keyed with a per-scan random seed, so
 * that issuer fingerprints chosen by a hostile keyring cannot pile up. */
static uint64_t hash_bytes(uint64_t seed, const uint8_t *b, size_t len)
{
	uint64_t h = mix(seed ^ len);

	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = 0;
		memcpy(&w, b + i, len - i < 8 ? len - i : 8);
		h = mix(h ^ w) + i;
	}
	return h;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	return grow_array(p, cap, need, size, 256);
}

/* Index tables of 32-bit entries, at most half full.  Returns 1 when the
 * table was replaced by an empty, larger one (the caller refills it), 0
 * when it has room, -ENOMEM (the old table stays). */
static int index_resize(uint32_t **tab, size_t *mask, size_t count)
{
	size_t size = *tab ? *mask + 1 : 1024;
	uint32_t *n;

	while (size / 2 <= count) {
		if (size > SIZE_MAX / 2 / sizeof(uint32_t))
			return -ENOMEM;
		size *= 2;
	}
	if (*tab && size == *mask + 1)
		return 0;
	n = calloc(size, sizeof(uint32_t));
	if (n == NULL)
		return -ENOMEM;
	free(*tab);
	*tab = n;
	*mask = size - 1;
	return 1;
}

static uint32_t key_find(const struct ksp_wot_scan *sc, const uint8_t *fpr, uint8_t len, size_t *slot)
{
	size_t i = hash_bytes(sc->seed, fpr, len) & sc->kidx_mask;

	for (;; i = (i + 1) & sc->kidx_mask) {
		uint32_t e = sc->kidx[i];
		if (e == 0) {
			*slot = i;
			return NONE;
		}
		if (sc->keys[e - 1].fpr_len == len && memcmp(sc->keys[e - 1].fpr, fpr, len) == 0)
			return e - 1;
	}
}

/* The key of a fingerprint, added when new; NONE on ENOMEM. */
static uint32_t key_get(struct ksp_wot_scan *sc, const uint8_t *fpr, uint8_t len)
{
	size_t slot;
	uint32_t k = key_find(sc, fpr, len, &slot);
	int r;

	if (k != NONE)
		return k;
	if (sc->n_keys >= NONE - 1 ||
	    grow((void **)&sc->keys, &sc->cap_keys, (size_t)sc->n_keys + 1, sizeof(*sc->keys)) < 0)
		return NONE;
	k = sc->n_keys++;
	memset(&sc->keys[k], 0, sizeof(sc->keys[k]));
	memcpy(sc->keys[k].fpr, fpr, len);
	sc->keys[k].fpr_len = len;
	sc->keys[k].first_uid = NONE;
	r = index_resize(&sc->kidx, &sc->kidx_mask, sc->n_keys);
	if (r < 0) {
		sc->n_keys--;
		return NONE;
	}
	if (r > 0) {
		for (uint32_t j = 0; j < sc->n_keys; j++) {
			size_t s;
			(void)key_find(sc, sc->keys[j].fpr, sc->keys[j].fpr_len, &s);
			sc->kidx[s] = j + 1;
		}
	} else {
		sc->kidx[slot] = k + 1;
	}
	return k;
}

/* 1 when the digest is new (and now recorded), 0 when seen, -ENOMEM. */
static int digest_add(struct ksp_wot_scan *sc, const uint8_t d[20])
{
	uint64_t h0;
	size_t i;
	int r;

	if (sc->n_dig >= NONE - 1)
		return -ENOMEM;
	r = index_resize(&sc->didx, &sc->didx_mask, sc->n_dig + 1);
	if (r < 0)
		return r;
	if (r > 0) {
		for (size_t j = 0; j < sc->n_dig; j++) {
			memcpy(&h0, sc->dig[j], 8);
			for (i = mix(h0 ^ sc->seed) & sc->didx_mask; sc->didx[i]; i = (i + 1) & sc->didx_mask)
				;
			sc->didx[i] = (uint32_t)j + 1;
		}
	}
	memcpy(&h0, d, 8);
	for (i = mix(h0 ^ sc->seed) & sc->didx_mask; sc->didx[i]; i = (i + 1) & sc->didx_mask)
		if (memcmp(sc->dig[sc->didx[i] - 1], d, 20) == 0)
			return 0;
	if (grow((void **)&sc->dig, &sc->cap_dig, sc->n_dig + 1, sizeof(*sc->dig)) < 0)
		return -ENOMEM;
	memcpy(sc->dig[sc->n_dig], d, 20);
	sc->didx[i] = (uint32_t)++sc->n_dig;
	return 1;
}

KSP_EXPORT int ksp_wot_scan_new(struct ksp_ctx *ctx, struct ksp_wot_scan **ret)
{
	struct ksp_wot_scan *sc;

	if (ctx == NULL || ret == NULL)
		return -EINVAL;
	sc = calloc(1, sizeof(*sc));
	if (sc == NULL)
		return -ENOMEM;
	gcry_create_nonce(&sc->seed, sizeof(sc->seed));
	if (index_resize(&sc->kidx, &sc->kidx_mask, 0) < 0 || index_resize(&sc->didx, &sc->didx_mask, 0) < 0 ||
	    index_resize(&sc->uidx, &sc->uidx_mask, 0) < 0) {
		ksp_wot_scan_free(sc);
		return -ENOMEM;
	}
	sc->ctx = ksp_ref(ctx);
	*ret = sc;
	return 0;
}

KSP_EXPORT struct ksp_wot_scan *ksp_wot_scan_free(struct ksp_wot_scan *sc)
{
	if (sc) {
		free(sc->keys);
		free(sc->uids);
		free(sc->uidx);
		free(sc->text);
		free(sc->kidx);
		free(sc->dig);
		free(sc->didx);
		free(sc->edges);
		ksp_unref(sc->ctx);
		free(sc);
	}
	return NULL;
}

static bool is_self(const struct ksp_pgp_key *k, const struct ksp_pgp_sig *s)
{
	if (s->issuer_fpr_len && s->issuer_fpr_len == k->primary.fpr_len)
		return memcmp(s->issuer_fpr, k->primary.fpr, s->issuer_fpr_len) == 0;
	return s->has_issuer && memcmp(s->issuer, k->primary.keyid, 8) == 0;
}

static uint64_t be64(const uint8_t *b)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static uint32_t uid_find(const struct ksp_wot_scan *sc, const uint8_t d[20], size_t *slot)
{
	uint64_t h0;
	size_t i;

	memcpy(&h0, d, 8);
	for (i = mix(h0 ^ sc->seed) & sc->uidx_mask;; i = (i + 1) & sc->uidx_mask) {
		uint32_t e = sc->uidx[i];
		if (e == 0) {
			*slot = i;
			return NONE;
		}
		if (memcmp(sc->uids[e - 1].dig, d, 20) == 0)
			return e - 1;
	}
}

/* A user ID of key @key (idx @idx in the key as read, identity @d): its
 * newest self-signatures decide, as in the store (wot-load.c store_one()
 * without verification, and the ON CONFLICT rules of its uids insert). */
static int uid_merge(struct ksp_wot_scan *sc, uint32_t key, const struct ksp_pgp_key *k, size_t idx,
		     const uint8_t d[20])
{
	const struct ksp_pgp_uid *uid = &k->uids[idx];
	int64_t selfsig = 0, rev = 0;
	uint32_t newest = 0, e;
	bool primary = false, any = false;
	size_t slot;
	int r;

	for (size_t j = 0; j < uid->n_sigs; j++) {
		const struct ksp_pgp_sig *s = &uid->sigs[j];
		if (!((s->type >= 0x10 && s->type <= 0x13) || s->type == 0x30) || !is_self(k, s))
			continue;
		if (s->type != 0x30 && s->created >= selfsig) {
			selfsig = s->created;
			primary = s->has_primary_uid && s->primary_uid;
		}
		if (!any || s->created > newest || (s->created == newest && s->type == 0x30)) {
			newest = s->created;
			any = true;
			rev = s->type == 0x30 ? (s->created ? s->created : 1) : 0;
		}
	}
	if (sc->n_uids >= NONE - 1 || uid->len >= UINT32_MAX)
		return -ENOMEM;
	r = index_resize(&sc->uidx, &sc->uidx_mask, sc->n_uids + 1);
	if (r < 0)
		return r;
	if (r > 0)
		for (size_t j = 0; j < sc->n_uids; j++) {
			(void)uid_find(sc, sc->uids[j].dig, &slot);
			sc->uidx[slot] = (uint32_t)j + 1;
		}
	e = uid_find(sc, d, &slot);
	if (e != NONE) {
		struct scan_uid *o = &sc->uids[e];
		int64_t was = o->selfsig > o->revoked ? o->selfsig : o->revoked;
		if ((selfsig > rev ? selfsig : rev) >= was)
			o->revoked = rev;
		if (selfsig >= o->selfsig)
			o->primary = primary;
		if (selfsig > o->selfsig)
			o->selfsig = selfsig;
		return 0;
	}
	if (grow((void **)&sc->uids, &sc->cap_uids, sc->n_uids + 1, sizeof(*sc->uids)) < 0 ||
	    grow((void **)&sc->text, &sc->cap_text, sc->n_text + uid->len + 1, 1) < 0)
		return -ENOMEM;
	e = (uint32_t)sc->n_uids++;
	sc->uids[e] = (struct scan_uid){ .key = key, .next = NONE, .len = (uint32_t)uid->len,
					 .idx = idx > UINT32_MAX ? UINT32_MAX : (uint32_t)idx, .text = sc->n_text,
					 .selfsig = selfsig, .revoked = rev, .primary = primary };
	memcpy(sc->uids[e].dig, d, 20);
	if (uid->len)
		memcpy(sc->text + sc->n_text, uid->data, uid->len);
	sc->text[sc->n_text + uid->len] = '\0';
	sc->n_text += uid->len + 1;
	sc->uidx[slot] = e + 1;
	/* append to the key's chain, so that ties keep the order read */
	if (sc->keys[key].first_uid == NONE)
		sc->keys[key].first_uid = e;
	else
		sc->uids[sc->keys[key].last_uid].next = e;
	sc->keys[key].last_uid = e;
	return 0;
}

/* One key as read; *ret_new counts its new certifications. */
static int scan_key(struct ksp_wot_scan *sc, const struct ksp_pgp_key *k, uint64_t *ret_new)
{
	const struct ksp_pgp_pubkey *pk = &k->primary;
	uint32_t target = key_get(sc, pk->fpr, pk->fpr_len);

	if (target == NONE)
		return -ENOMEM;
	if (!sc->keys[target].primary) {
		sc->keys[target].primary = true;
		sc->keys[target].kid = be64(pk->keyid);
		sc->primaries++;
	}
	for (size_t u = 0; u < k->n_uids; u++) {
		const struct ksp_pgp_uid *uid = &k->uids[u];
		uint8_t ctx_dig[20], head[2] = { pk->fpr_len, uid->attribute };
		gcry_buffer_t iov[3] = {
			{ .data = head, .len = sizeof(head) },
			{ .data = (void *)pk->fpr, .len = pk->fpr_len },
			{ .data = (void *)uid->data, .len = uid->len },
		};
		bool have_ctx = false;

		if (!uid->attribute) {
			if (gcry_md_hash_buffers(GCRY_MD_SHA1, 0, ctx_dig, iov, 3))
				return -EIO;
			have_ctx = true;
			int r = uid_merge(sc, target, k, u, ctx_dig);
			if (r < 0)
				return r;
		}

		for (size_t j = 0; j < uid->n_sigs; j++) {
			const struct ksp_pgp_sig *s = &uid->sigs[j];
			bool rev = s->type == 0x30;
			uint8_t d[20];
			int r;

			if (!((s->type >= 0x10 && s->type <= 0x13) || rev) || is_self(k, s))
				continue;
			if (!s->issuer_fpr_len && !s->has_issuer)
				continue; /* no issuer at all: nothing to attribute */
			/* identity: this packet on this user ID of this key */
			if (!have_ctx) {
				if (gcry_md_hash_buffers(GCRY_MD_SHA1, 0, ctx_dig, iov, 3))
					return -EIO;
				have_ctx = true;
			}
			gcry_buffer_t c[2] = {
				{ .data = ctx_dig, .len = sizeof(ctx_dig) },
				{ .data = (void *)s->body, .len = s->body_len },
			};
			if (gcry_md_hash_buffers(GCRY_MD_SHA1, 0, d, c, 2))
				return -EIO;
			r = digest_add(sc, d);
			if (r < 0)
				return r;
			if (r == 0)
				continue;
			(*ret_new)++;
			if (rev) {
				sc->revocations++;
				continue;
			}
			sc->certs++;
			if (!s->exportable || uid->attribute)
				continue;
			if (grow((void **)&sc->edges, &sc->cap_edges, sc->n_edges + 1, sizeof(*sc->edges)) < 0)
				return -ENOMEM;
			struct scan_edge *e = &sc->edges[sc->n_edges++];
			e->target = target;
			e->issuer = NONE;
			e->kid = 0;
			if (s->issuer_fpr_len) {
				e->issuer = key_get(sc, s->issuer_fpr, s->issuer_fpr_len);
				if (e->issuer == NONE)
					return -ENOMEM;
			} else {
				e->kid = be64(s->issuer);
			}
		}
	}
	return 0;
}

/* ksp_wot_scan_add() and ksp_wot_scan_add_fd(): @in, when not NULL, is
 * where @data comes from (its pages are given back behind the reader). */
static int scan_add(struct ksp_wot_scan *sc, const void *data, size_t len, struct ksp_input *in,
		    const char *source, uint64_t *ret_keys, uint64_t *ret_certs, uint64_t *ret_bad)
{
	struct ksp_pgp_reader *rd = NULL;
	struct ksp_pgp_key *k;
	const uint8_t *rdata;
	uint64_t keys = 0, certs = 0, bad;
	size_t rlen, mark = 0;
	int r;

	if (sc == NULL || (data == NULL && len))
		return -EINVAL;
	if (source == NULL)
		source = "keyring";
	ksp_clear_error(sc->ctx);
	r = ksp_pgp_reader_new(sc->ctx, data, len, source, &rd);
	if (r < 0)
		goto out;
	rdata = ksp_pgp_reader_data(rd, &rlen);
	if (ksp_pgp_reader_armored(rd))
		ksp_input_drop_all(in, &mark); /* decoded: the text is not read again */
	while ((r = ksp_pgp_reader_next(rd, &k)) > 0) {
		size_t end = k->end;

		r = scan_key(sc, k, &certs);
		ksp_pgp_key_free(k);
		if (r < 0)
			goto out;
		/* nothing of a key is kept: the data read is not needed again */
		if (in && end <= rlen)
			ksp_input_drop(in, &mark, rdata + end);
		keys++;
		if ((keys & 1023) == 0)
			ksp_progress(sc->ctx, "reading keys", keys, 0);
	}
	if (r < 0)
		goto out;
	ksp_progress(sc->ctx, "reading keys", keys, keys);
	bad = ksp_pgp_reader_n_bad_keys(rd);
	if (keys == 0 && bad == 0) {
		ksp_set_error(sc->ctx, "%s: no OpenPGP key found; give a keyring (binary or armored)", source);
		r = -EBADMSG;
		goto out;
	}
	if (bad) {
		size_t off = 0;
		ksp_pgp_reader_first_problem(rd, &off);
		WARN(sc->ctx, "%s: %llu malformed key%s skipped, the first at offset %zu (-v shows each)\n", source,
		     (unsigned long long)bad, bad == 1 ? "" : "s", off);
	}
	if (ret_keys)
		*ret_keys = keys;
	if (ret_certs)
		*ret_certs = certs;
	if (ret_bad)
		*ret_bad = bad;
	r = 0;
out:
	ksp_pgp_reader_free(rd);
	if (r < 0 && !ksp_get_error(sc->ctx))
		ksp_set_error(sc->ctx, "%s: cannot read: %s", source, strerror(-r));
	return r;
}

KSP_EXPORT int ksp_wot_scan_add(struct ksp_wot_scan *sc, const void *data, size_t len, const char *source,
				uint64_t *ret_keys, uint64_t *ret_certs, uint64_t *ret_bad)
{
	return scan_add(sc, data, len, NULL, source, ret_keys, ret_certs, ret_bad);
}

KSP_EXPORT int ksp_wot_scan_add_fd(struct ksp_wot_scan *sc, int fd, const char *source, uint64_t *ret_keys,
				   uint64_t *ret_certs, uint64_t *ret_bad)
{
	struct ksp_input in;
	int r;

	if (sc == NULL)
		return -EINVAL;
	if (source == NULL)
		source = "keyring";
	r = ksp_input_open(sc->ctx, fd, source, &in);
	if (r < 0)
		return r;
	r = scan_add(sc, in.data, in.len, &in, source, ret_keys, ret_certs, ret_bad);
	ksp_input_close(&in);
	return r;
}

struct vsort {
	const struct scan_key *k;
	uint32_t key;
};

static int cmp_vsort(const void *a, const void *b)
{
	const struct scan_key *x = ((const struct vsort *)a)->k, *y = ((const struct vsort *)b)->k;
	size_t n = x->fpr_len < y->fpr_len ? x->fpr_len : y->fpr_len;
	int c = memcmp(x->fpr, y->fpr, n);

	if (c)
		return c;
	return x->fpr_len < y->fpr_len ? -1 : x->fpr_len > y->fpr_len;
}

struct kidv {
	uint64_t kid;
	uint32_t v;
};

static int cmp_kidv(const void *a, const void *b)
{
	const struct kidv *x = a, *y = b;
	if (x->kid != y->kid)
		return x->kid < y->kid ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

int ksp_wot_scan_view(const struct ksp_wot_scan *sc, int64_t at, struct ksp_wot_view **ret,
		      uint64_t certs[KSP_WOT_CERTS_MAX])
{
	struct ksp_wot_view *v;
	struct vsort *vs = NULL;
	struct kidv *kv = NULL;
	uint32_t *vert = NULL, *src = NULL, *dst = NULL, n = 0;
	size_t m = 0, cap = 0, cap_dst = 0;
	int r = -ENOMEM;

	v = calloc(1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	v->at = at;
	v->flags = KSP_WOT_STRUCTURAL;
	vs = malloc((sc->primaries ? sc->primaries : 1) * sizeof(*vs));
	kv = malloc((sc->primaries ? sc->primaries : 1) * sizeof(*kv));
	vert = malloc((sc->n_keys ? sc->n_keys : 1) * sizeof(*vert));
	v->fpr = malloc((sc->primaries ? sc->primaries : 1) * sizeof(*v->fpr));
	v->key_id = malloc((sc->primaries ? sc->primaries : 1) * sizeof(*v->key_id));
	if (vs == NULL || kv == NULL || vert == NULL || v->fpr == NULL || v->key_id == NULL)
		goto out;
	for (uint32_t i = 0; i < sc->n_keys; i++) {
		vert[i] = NONE;
		if (sc->keys[i].primary)
			vs[n++] = (struct vsort){ .k = &sc->keys[i], .key = i };
	}
	qsort(vs, n, sizeof(*vs), cmp_vsort);
	for (uint32_t i = 0; i < n; i++) {
		static const char hex[] = "0123456789ABCDEF";
		const struct scan_key *k = vs[i].k;

		vert[vs[i].key] = i;
		for (unsigned j = 0; j < k->fpr_len; j++) {
			v->fpr[i][2 * j] = hex[k->fpr[j] >> 4];
			v->fpr[i][2 * j + 1] = hex[k->fpr[j] & 15];
		}
		v->fpr[i][2 * k->fpr_len] = '\0';
		v->key_id[i] = i;
		kv[i] = (struct kidv){ .kid = k->kid, .v = i };
	}
	v->n = n;
	v->keys_total = n;
	qsort(kv, n, sizeof(*kv), cmp_kidv);
	for (size_t i = 0; i < sc->n_edges; i++) {
		const struct scan_edge *e = &sc->edges[i];
		uint32_t t = vert[e->target], lo = 0, hi = n;

		if (e->issuer != NONE) {
			uint32_t f = vert[e->issuer];
			if (f == NONE || f == t)
				continue;
			if (grow((void **)&src, &cap, m + 1, sizeof(*src)) < 0 ||
			    grow((void **)&dst, &cap_dst, m + 1, sizeof(*dst)) < 0)
				goto out;
			src[m] = f;
			dst[m++] = t;
			continue;
		}
		/* every key of the issuer key ID: the first at or after it */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (kv[mid].kid < e->kid)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && kv[lo].kid == e->kid; lo++) {
			if (kv[lo].v == t)
				continue;
			if (grow((void **)&src, &cap, m + 1, sizeof(*src)) < 0 ||
			    grow((void **)&dst, &cap_dst, m + 1, sizeof(*dst)) < 0)
				goto out;
			src[m] = kv[lo].v;
			dst[m++] = t;
		}
	}
	r = ksp_wgraph_new(n, src, dst, m, &v->g);
	if (r == 0) {
		memset(certs, 0, KSP_WOT_CERTS_MAX * sizeof(*certs));
		certs[KSP_WOT_CERTS_TOTAL] = sc->certs;
		certs[KSP_WOT_CERTS_UNCHECKED] = sc->certs;
		certs[KSP_WOT_CERTS_REVOCATIONS] = sc->revocations;
	}
out:
	free(vs);
	free(kv);
	free(vert);
	free(src);
	free(dst);
	if (r < 0) {
		ksp_wot_view_free(v);
		return r;
	}
	*ret = v;
	return 0;
}

KSP_EXPORT int ksp_wot_scan_get_key_uid(const struct ksp_wot_scan *sc, const char *fpr, char **ret,
					size_t *ret_len)
{
	uint8_t b[32];
	size_t slot;
	int n;
	uint32_t k;
	char *c;

	if (sc == NULL || fpr == NULL || ret == NULL)
		return -EINVAL;
	n = hex_decode(fpr, b, sizeof(b));
	if (n != 20 && n != 32)
		return -ENOENT;
	k = key_find(sc, b, (uint8_t)n, &slot);
	if (k == NONE || !sc->keys[k].primary || sc->keys[k].first_uid == NONE)
		return -ENOENT;
	/* ORDER BY primary_uid DESC, revoked != 0, idx: the first best */
	const struct scan_uid *best = NULL;
	for (uint32_t e = sc->keys[k].first_uid; e != NONE; e = sc->uids[e].next) {
		const struct scan_uid *x = &sc->uids[e];
		if (best == NULL || x->primary > best->primary ||
		    (x->primary == best->primary &&
		     ((x->revoked == 0 && best->revoked != 0) ||
		      ((x->revoked != 0) == (best->revoked != 0) && x->idx < best->idx))))
			best = x;
	}
	c = malloc(best->len + 1);
	if (c == NULL)
		return -ENOMEM;
	memcpy(c, sc->text + best->text, best->len + 1);
	*ret = c;
	if (ret_len)
		*ret_len = best->len;
	return 0;
}

struct ksp_ctx *ksp_wot_scan_ctx(const struct ksp_wot_scan *sc)
{
	return sc->ctx;
}
