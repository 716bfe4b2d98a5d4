/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wot-snap: a compact, time-independent snapshot of everything the web of
 * trust is made of (keys with their validity window, user IDs with their
 * revocation, and every verified, exportable third-party certification
 * with its own validity window), as CSR adjacency in both directions.
 * Trust queries apply the reference time and the policy to it in memory.
 *
 * The snapshot lives in a file next to the store, STORE-wot, written
 * atomically (temporary file + rename) and mapped read-only.  It is a
 * cache in this machine's byte order, never an interchange format: the
 * store's graph_state row (schema-2.sql) says whether it is current, and a
 * missing, stale or damaged file is rebuilt from one read transaction
 * (kept in memory only when the directory is not writable).
 *
 * Included in a snapshot (the rules of wot.h, minus the reference time):
 *  - every key; times 0 ("never") are stored as KSP_WSNAP_NEVER; a hard
 *    key revocation is flagged (the key is no vertex at any date);
 *  - every user ID that is not a user attribute;
 *  - each certification 0x10-0x13 with verified = 1 and exportable = 1, by
 *    a key of the store (issuer_fpr) on another key, made inside the
 *    signer's own validity (created >= signer's creation and before its
 *    expiry and its soft revocation; none at all by a hard-revoked
 *    signer); its revoked time is the earliest verified 0x30 by the same
 *    issuer on the same user ID created at or after it.
 * And, for the models that weigh certifications one by one (GnuPG's and
 * Sequoia's, which apply their own rules to them), the graph as the store
 * holds it: every key's fingerprint and whether it has a valid
 * self-signature; every user ID and user attribute of every key, in the
 * key's order, with its text, self-signature (the newest, and the oldest
 * per hash class) and revocation; on each, every
 * verified certification (0x10-0x13) and certification revocation (0x30)
 * by another key of the store, in store order, exportable or not, with its
 * trust signature (depth, amount, regular expressions) and whether it is
 * revocable; and per signer the keys it certified ("outs").
 * Internal to libksp.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/openpgp/hash-rules.h"

struct ksp_store;

#define KSP_WSNAP_NEVER INT64_MAX

#define KSP_WSNAP_HARD_REVOKED 1u /* revoked at every date (ksp_revocation_is_soft()) */
#define KSP_WSNAP_SELFSIG_OK 2u   /* keys.selfsig_ok: at least one valid self-signature */

struct ksp_wsnap_node {
	int64_t key_id;   /* keys.id; nodes are in keys.id order */
	int64_t created, expires, revoked;
	uint32_t algo, bits;
	uint32_t flags;   /* KSP_WSNAP_HARD_REVOKED, KSP_WSNAP_SELFSIG_OK */
	uint32_t fpr_off; /* into strings: the fingerprint, NUL-terminated */
	uint32_t hist_off, hist_n; /* into strings: its binding self-signatures,
				    * oldest first (ksp_wsnap_key_selfsig()) */
};

/* Is the key revoked at @at?  A hard revocation at every date, a soft one
 * from its date on.  (A soft-revoked key still introduces with what it
 * certified before: the snapshot keeps only those certifications.) */
static inline bool ksp_wsnap_key_revoked(const struct ksp_wsnap_node *k, int64_t at)
{
	return (k->flags & KSP_WSNAP_HARD_REVOKED) || k->revoked <= at;
}

struct ksp_wsnap_uid {
	int64_t uid_id;   /* uids.id */
	int64_t revoked;
};

/* edge flags: the hash the certification was made with (hash-rules.h) */
#define KSP_WSNAP_MD5 1u
#define KSP_WSNAP_SHA1 2u
#define KSP_WSNAP_RMD160 4u
#define KSP_WSNAP_WEAK (KSP_WSNAP_MD5 | KSP_WSNAP_SHA1 | KSP_WSNAP_RMD160) /* a weak hash */

struct ksp_wsnap_edge {
	uint32_t u, v;    /* signer, signee (vertex numbers) */
	uint32_t uidx;    /* into uids */
	uint32_t flags;
	int64_t created, expires, revoked;
};

/* A user ID or user attribute of a key, as the store has it. */
#define KSP_WSNAP_BIND_ATTR 1u    /* a user attribute */
#define KSP_WSNAP_BIND_SELFSIG 2u /* has a valid self-signature (uids.selfsig > 0) */

struct ksp_wsnap_bind {
	int64_t uid_id;    /* uids.id */
	int64_t revoked;   /* its self-revocation, KSP_WSNAP_NEVER: none */
	uint32_t text_off, text_len; /* into strings (NUL-terminated there too) */
	uint32_t flags;    /* KSP_WSNAP_BIND_* */
	uint32_t uidx;     /* into uids, UINT32_MAX for a user attribute */
	/* its oldest verified self-signature (0x10-0x13) without an
	 * expiration time by the hash's class (KSP_WSNAP_SS_*), 0: none; the
	 * newest with one: made ss_exp_created (0: none), valid until
	 * ss_exp_until, with hash ss_exp_hash (uids.ss_*, schema 8) */
	int64_t ss[4];
	int64_t ss_exp_created, ss_exp_until;
	uint32_t ss_exp_hash, reserved;
};
#define KSP_WSNAP_SS_STRONG 0 /* SHA-2 */
#define KSP_WSNAP_SS_SHA1 1
#define KSP_WSNAP_SS_RMD160 2
#define KSP_WSNAP_SS_MD5 3

/* A certification or certification revocation on a bind, as stored. */
#define KSP_WSNAP_CERT_REVOCABLE 1u  /* no Revocable subpacket saying no */
#define KSP_WSNAP_CERT_EXPORTABLE 2u
#define KSP_WSNAP_CERT_LONG_REGEX 4u /* the first regular expression is 4096 bytes or more */
#define KSP_WSNAP_CERT_NREGEX_SHIFT 8 /* flags >> 8: how many regular expressions */

struct ksp_wsnap_cert {
	uint32_t issuer;   /* vertex; never the bind's own key */
	uint8_t type;      /* 0x10-0x13, 0x30 */
	uint8_t hash;      /* OpenPGP hash algorithm id (up to 255) */
	uint8_t depth, amount; /* trust signature; depth 0: none */
	uint32_t flags;    /* KSP_WSNAP_CERT_* */
	uint32_t regex_off; /* into strings: the regular expressions one after
			     * the other, each NUL-terminated (cut at an
			     * embedded NUL); 0 when none */
	int64_t created;
	int64_t expires;   /* 0: never (as stored) */
};

/* A signer's certified key: some 0x10-0x13 by it on some bind of v. */
struct ksp_wsnap_out {
	uint32_t v;
	uint32_t reserved;
	int64_t created;   /* the oldest such certification */
};

struct ksp_wsnap {
	uint32_t n, n_uids;
	uint64_t m;
	const struct ksp_wsnap_node *nodes;
	const struct ksp_wsnap_uid *uids;
	const uint32_t *out_off;          /* n + 1; edges[out_off[u]..out_off[u+1]) are u's */
	const struct ksp_wsnap_edge *edges;
	const uint32_t *in_off, *in_eid;  /* n + 1, m: edges into v, by edge number */
	/* the graph as stored (see the top) */
	uint32_t n_binds;
	uint64_t n_certs, n_outs, strings_len;
	const uint32_t *bind_off;         /* n + 1: binds[bind_off[v]..bind_off[v+1]) are v's */
	const struct ksp_wsnap_bind *binds;
	const uint32_t *cert_off;         /* n_binds + 1 */
	const struct ksp_wsnap_cert *certs;
	const uint32_t *gout_off;         /* n + 1: outs[gout_off[u]..gout_off[u+1]) are u's, by v */
	const struct ksp_wsnap_out *outs;
	const char *strings;              /* strings_len, strings[0] and the last byte are NUL */
	const uint32_t *weak;             /* n_weak: the edges with a KSP_WSNAP_WEAK flag, by number */
	uint64_t n_weak;
	int64_t gen, nonce;
	/* a query's scratch (thread-aware, not thread-safe, like the store):
	 * vertex -> node, valid where scratch_stamp[v] == epoch */
	uint32_t *scratch_stamp, *scratch_node;
	uint32_t epoch;
	/* private */
	void *mem;
	size_t len;
	bool mapped;
};

/* The current snapshot of @store: the one cached on the store, else the
 * file, else built now (and saved when the store is writable).  The
 * snapshot belongs to the store; it stays valid until the next call. */
int ksp_wsnap_get(struct ksp_store *store, struct ksp_wsnap **ret);
/* A new epoch for the scratch arrays (allocated on first use). */
int ksp_wsnap_new_query(struct ksp_wsnap *s);
/* Bring the snapshot file up to date after a change (wot load, import).
 * Returns 0 or a negative errno. */
int ksp_wsnap_update(struct ksp_store *store);
/* A load changed the graph: ksp_wsnap_update() at the outermost commit
 * (registered with the store, which does not know the snapshot). */
void ksp_wsnap_want(struct ksp_store *store);
/* Drop the cached snapshot and remove its file (found damaged). */
int ksp_wsnap_discard(struct ksp_store *store);
void ksp_wsnap_free(struct ksp_wsnap *s);

/* The string at @off of the strings section ("" when out of range). */
static inline const char *ksp_wsnap_string(const struct ksp_wsnap *s, uint64_t off)
{
	return off < s->strings_len ? s->strings + off : "";
}

/* The @i-th (oldest first) binding self-signature of key @k (schema 8's
 * key_selfsigs): its creation time, the key expiration time it gives
 * (absolute, 0: never), its own expiration time (absolute, 0: never), its
 * hash algorithm.  False when out of range. */
struct ksp_wsnap_selfsig {
	int64_t created, key_expires, until, hash;
};

static inline bool ksp_wsnap_key_selfsig(const struct ksp_wsnap *s, const struct ksp_wsnap_node *k, uint32_t i,
					 struct ksp_wsnap_selfsig *out)
{
	uint64_t off = (uint64_t)k->hist_off + (uint64_t)i * sizeof(*out);

	if (i >= k->hist_n || off + sizeof(*out) >= s->strings_len)
		return false;
	memcpy(out, s->strings + off, sizeof(*out));
	return true;
}

/* The fingerprint of vertex @v. */
static inline const char *ksp_wsnap_fpr(const struct ksp_wsnap *s, uint32_t v)
{
	return ksp_wsnap_string(s, s->nodes[v].fpr_off);
}

/* The text of bind @b and its length (0 when out of range). */
static inline const char *ksp_wsnap_bind_text(const struct ksp_wsnap *s, const struct ksp_wsnap_bind *b, size_t *len)
{
	if ((uint64_t)b->text_off + b->text_len >= s->strings_len) {
		*len = 0;
		return "";
	}
	*len = b->text_len;
	return s->strings + b->text_off;
}

/* The @i-th regular expression of certification @c, or NULL. */
const char *ksp_wsnap_cert_regex(const struct ksp_wsnap *s, const struct ksp_wsnap_cert *c, unsigned i);

/* The vertex of keys.id @key_id, or UINT32_MAX. */
uint32_t ksp_wsnap_vertex(const struct ksp_wsnap *s, int64_t key_id);

/* The OpenPGP hash algorithm of edge @e as far as the rules care (1 MD5,
 * 2 SHA-1, 3 RIPEMD-160, 0 another). */
static inline int ksp_wsnap_edge_hash(const struct ksp_wsnap_edge *e)
{
	return (e->flags & KSP_WSNAP_MD5) ? 1 : (e->flags & KSP_WSNAP_SHA1) ? 2 : (e->flags & KSP_WSNAP_RMD160) ? 3 : 0;
}

/* Does edge @e count at @at, but for the hash rules? */
static inline bool ksp_wsnap_edge_valid_at(const struct ksp_wsnap *s, const struct ksp_wsnap_edge *e, int64_t at)
{
	return e->created <= at && e->expires > at && e->revoked > at && s->uids[e->uidx].revoked > at;
}

/* Does edge @e count at @at, under the hash rules (hash-rules.h) and the
 * oldest creation time allowed? */
static inline bool ksp_wsnap_edge_counts(const struct ksp_wsnap *s, const struct ksp_wsnap_edge *e, int64_t at,
					 bool md5, int sha1, int64_t min_created)
{
	return ksp_wsnap_edge_valid_at(s, e, at) &&
	       ksp_hash_rule(ksp_wsnap_edge_hash(e), e->created, md5, sha1) == KSP_HASH_KEPT &&
	       e->created >= min_created;
}
