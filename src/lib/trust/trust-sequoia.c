// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trust-sequoia.c: Sequoia's web of trust (the model of sequoia-wot 0.2.0,
 * its spec/sequoia-wot.md), read from the graph snapshot (wot-snap.h) the
 * other two models read.
 *
 * What is authenticated is a binding: a key and one user ID.  The network
 * at the reference time T: on every user ID with a self-signature made by
 * T that the standard policy accepts at T (SHA-1 until 2023-02, RIPEMD-160
 * until 2013-02, MD5 until 2004-02: second pre-image resistance), of every
 * key with one, per issuer only the newest certifications (0x10-0x13, all
 * of the newest creation time) that are live at T (made at or before T,
 * unexpired at T, not revoked by a 0x30 of the same issuer on that user ID
 * made after them and at or before T, with a hash accepted at T), made
 * while issuer and target were alive (created, unexpired, not
 * soft-revoked at the time, as the self-signature valid then says; a
 * hard-revoked issuer or target never) and each had a valid binding
 * self-signature then (Sequoia's ValidCert at the certification's time),
 * with a hash the collision rules of Sequoia's
 * standard policy accept at T (MD5 until 1997-02, SHA-1 and RIPEMD-160
 * until 2013-02).  Keys the policy refuses (RSA, DSA below 2048 bits from
 * 2014-02) and user IDs that are not UTF-8 are not in the network.  A
 * certification without a trust signature
 * is depth 0, amount 120; depth 255 is unconstrained.  In the
 * certification-network mode (later sequoia-wot's) every certification is
 * depth unconstrained, without regular expressions; its amount stays.
 *
 * A query is Sequoia's: a backward search from the target (a breadth-first
 * Dijkstra: fewer edges first, then the larger amount) finds for every key
 * the best forward pointer towards the target; a certification is usable
 * when its depth covers the rest of the path, its amount is not 0 and its
 * regular expressions (if any) match the target user ID.  The best path
 * from a root (most amount, then fewest keys, then the larger root
 * fingerprint) is taken, its amount subtracted from the certifications it
 * used (or from the root itself when the root is the target), and the
 * search repeated until the amounts sum to the target amount (default 120)
 * or nothing more is found.  A root of amount below 120 caps what its
 * certifications carry.  Searches where the target's own self-signature
 * ends the path (the certifier must then have made the target a trusted
 * introducer) are preferred as long as they find something.
 *
 * Revocations (as the other models, ksp-trust(1)): a hard-revoked key is
 * no vertex at any date, a soft-revoked one is no target from its date on
 * and introduces with what it certified before it; a revoked user ID is
 * no target.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/addr.h"
#include "lib/libksp-private.h"
#include "lib/store/store-trust.h"
#include "lib/trust/policy.h"
#include "lib/trust/tsig-regex.h"
#include "lib/trust/model.h"
#include "lib/wot/wot-snap.h"
#include "shared/utf8.h"
#include "shared/util.h"

#define FULLY 120
#define UNCONSTRAINED INT_MAX
#define NONE UINT32_MAX
#define MAX_ROOTS 4096
#define MAX_PATHS 64

/* Sequoia's standard policy (sequoia-openpgp 1.12, what sq-wot 0.2.0 is
 * built with) judges a signature's hash at the policy's time, which sq-wot
 * leaves at "now": the reference time, never the signature's creation time
 * (the signer's claim).  Certifications need collision resistance, a
 * binding self-signature (its signer controls what it signs) only second
 * pre-image resistance; a revocation is accepted 7 years (of 365.2425
 * days) longer.  Hashes 1.12 does not know (SHA3-256, SHA3-512) no policy
 * of it accepts. */
#define CUTOFF_MD5 854755200      /* 1997-02-01: collision resistance */
#define CUTOFF_SHA1 1359676800    /* 2013-02-01 (SHA-1 and RIPEMD-160) */
#define CUTOFF_2ND_MD5 1075593600 /* 2004-02-01: second pre-image resistance */
#define CUTOFF_2ND_SHA1 1675209600 /* 2023-02-01 */
#define CUTOFF_2ND_RMD160 1359676800 /* 2013-02-01 */
#define REVOCATION_TOLERANCE 220898664 /* 7 * 365.2425 days */
#define CUTOFF_WEAK_KEY 1391212800 /* 2014-02-01: RSA, DSA, ElGamal below 2048 bits */

struct sroot {
	char fpr[65];
	int amount;
};

/* a usable certification on a signee: its snapshot index and what it says */
struct ecert {
	uint32_t cert;     /* into snap->certs */
	uint32_t bind;     /* into snap->binds */
	uint32_t issuer;
	int depth;         /* UNCONSTRAINED for 255 */
	int amount;
	int8_t re;         /* -1 not checked yet, 0 no match, 1 matches (or none) */
};

/* what was subtracted: from a certification (issuer -> target key), or
 * from a root (target == NONE) */
struct suppress {
	uint32_t issuer, target;
	int amount;
};

struct spath {
	int amount;
	size_t len;
	uint32_t *v;       /* len vertices, root first */
	uint32_t *cert;    /* len - 1 certifications (NONE: the target's self-signature) */
};

struct ksp_trust_sequoia {
	struct ksp_ctx *ctx;
	struct sroot *roots;
	size_t n_roots;
	int target_amount;
	bool cert_network;
	/* the last query */
	const struct ksp_wsnap *s;
	int64_t at;
	uint32_t target, tbind;
	char *uid;         /* the binding's user ID (NUL-terminated copy) */
	size_t uid_len;
	int total;
	struct spath paths[MAX_PATHS];
	size_t n_paths;
	/* scratch, by vertex */
	uint32_t n;
	uint32_t *stamp, epoch;
	uint32_t *eoff, *ecnt;       /* into ecerts: the usable certifications on v */
	uint32_t *estamp, eepoch;    /* eoff/ecnt valid for this query */
	uint32_t *istamp, bepoch;    /* by issuer: imax valid for this bind */
	int64_t *imax;               /* by issuer: its newest valid certification's time */
	struct ecert *ecerts;
	size_t n_ecerts, cap_ecerts;
	uint32_t *fp_cert, *fp_next, *fp_bind; /* the forward pointer: certification, signee, its bind */
	int *fp_depth, *fp_amount;
	uint32_t *queue;
	int *cap;                    /* vertex -> root cap (FULLY when none) */
	uint8_t *isroot;             /* vertex -> a root of this query */
	struct suppress *sup;
	size_t n_sup, cap_sup;
	uint32_t *rootv;             /* root index -> vertex (NONE: not in the store) */
	/* trust-signature regular expressions (tsig-regex.h): compiled once
	 * per certification of snapshot rx_snap (RX_BAD: beyond the subset,
	 * reported), and evaluated only for an issuer a root reaches */
	const struct ksp_wsnap *rx_snap;
	int64_t rx_gen, rx_nonce;
	struct tsig_regex **rx;
	uint64_t n_rx;
	uint32_t *reach, *reach_queue, reach_n, reach_eepoch;
};

#define RX_BAD ((struct tsig_regex *)(uintptr_t)1)

KSP_EXPORT int ksp_trust_sequoia_new(struct ksp_ctx *ctx, struct ksp_trust_sequoia **ret)
{
	struct ksp_trust_sequoia *q;

	if (ctx == NULL || ret == NULL)
		return -EINVAL;
	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return -ENOMEM;
	q->ctx = ctx;
	q->target_amount = FULLY;
	*ret = q;
	return 0;
}

static void clear_result(struct ksp_trust_sequoia *q)
{
	for (size_t i = 0; i < q->n_paths; i++) {
		free(q->paths[i].v);
		free(q->paths[i].cert);
	}
	q->n_paths = 0;
	q->total = 0;
	free(q->uid);
	q->uid = NULL;
	q->uid_len = 0;
}

static void free_scratch(struct ksp_trust_sequoia *q)
{
	free(q->stamp);
	free(q->eoff);
	free(q->ecnt);
	free(q->estamp);
	free(q->istamp);
	free(q->imax);
	free(q->fp_cert);
	free(q->fp_next);
	free(q->fp_bind);
	free(q->fp_depth);
	free(q->fp_amount);
	free(q->queue);
	free(q->cap);
	free(q->isroot);
	free(q->ecerts);
	q->imax = NULL;
	q->stamp = q->eoff = q->ecnt = q->estamp = q->istamp = q->fp_cert = q->fp_next = q->fp_bind = q->queue = NULL;
	q->fp_depth = q->fp_amount = q->cap = NULL;
	q->isroot = NULL;
	q->ecerts = NULL;
	q->n_ecerts = q->cap_ecerts = 0;
	q->n = 0;
}

/* the compiled regular expressions of the previous snapshot */
static void rx_drop(struct ksp_trust_sequoia *q)
{
	for (uint64_t i = 0; q->rx && i < q->n_rx; i++)
		if (q->rx[i] != RX_BAD)
			tsig_regex_free(q->rx[i]);
	free(q->rx);
	q->rx = NULL;
	q->n_rx = 0;
	q->rx_snap = NULL;
}

KSP_EXPORT struct ksp_trust_sequoia *ksp_trust_sequoia_free(struct ksp_trust_sequoia *q)
{
	if (q == NULL)
		return NULL;
	clear_result(q);
	free_scratch(q);
	free(q->sup);
	free(q->rootv);
	free(q->roots);
	rx_drop(q);
	free(q->reach);
	free(q->reach_queue);
	free(q);
	return NULL;
}

KSP_EXPORT int ksp_trust_sequoia_add_root(struct ksp_trust_sequoia *q, const char *fpr, int amount)
{
	char norm[65];
	struct sroot *nr;

	if (q == NULL || fpr == NULL || amount < 1 || amount > FULLY)
		return -EINVAL;
	if (fpr_normalize(fpr, norm) < 0) {
		ksp_set_error(q->ctx, "'%s' is not a full fingerprint (40 or 64 hex digits)", fpr);
		return -EINVAL;
	}
	for (size_t i = 0; i < q->n_roots; i++)
		if (strcmp(q->roots[i].fpr, norm) == 0) {
			/* the same root twice: the smaller amount (Sequoia's cap) */
			if (amount < q->roots[i].amount)
				q->roots[i].amount = amount;
			return 0;
		}
	if (q->n_roots >= MAX_ROOTS)
		return -E2BIG;
	nr = realloc(q->roots, (q->n_roots + 1) * sizeof(*nr));
	if (nr == NULL)
		return -ENOMEM;
	q->roots = nr;
	memcpy(q->roots[q->n_roots].fpr, norm, sizeof(norm));
	q->roots[q->n_roots].amount = amount;
	q->n_roots++;
	return 0;
}

KSP_EXPORT size_t ksp_trust_sequoia_get_root_count(const struct ksp_trust_sequoia *q)
{
	return q ? q->n_roots : 0;
}

KSP_EXPORT void ksp_trust_sequoia_set_certification_network(struct ksp_trust_sequoia *q, bool on)
{
	if (q)
		q->cert_network = on;
}

KSP_EXPORT int ksp_trust_sequoia_set_target_amount(struct ksp_trust_sequoia *q, int amount)
{
	if (q == NULL || amount < 1 || amount > FULLY * MAX_PATHS)
		return -EINVAL;
	q->target_amount = amount;
	return 0;
}

KSP_EXPORT int ksp_trust_sequoia_set_policy(struct ksp_trust_sequoia *q, struct ksp_store *store,
					    const struct ksp_trust_policy *policy)
{
	struct ksp_trust_policy *core = NULL;
	int r, amount;
	bool network;

	if (q == NULL || store == NULL || policy == NULL)
		return -EINVAL;
	r = ksp_trust_policy_new(q->ctx, &core);
	if (r == 0)
		r = ksp_trust_policy_resolve_core(store, policy, core);
	for (size_t i = 0; r == 0 && ksp_trust_policy_core_at(core, i); i++)
		r = ksp_trust_sequoia_add_root(q, ksp_trust_policy_core_at(core, i), FULLY);
	ksp_trust_policy_free(core);
	{ /* the policy's partial_core roots (model-sequoia.c) */
		const struct ksp_trust_sequoia_opts *o = ksp_trust_policy_model_opts(policy, KSP_TRUST_MODEL_SEQUOIA);
		for (size_t i = 0; r == 0 && o && i < o->n_partial; i++)
			r = ksp_trust_sequoia_add_root(q, o->partial[i].fpr, o->partial[i].amount);
	}
	if (r < 0)
		return r;
	ksp_trust_policy_sequoia(policy, &amount, &network);
	q->target_amount = amount;
	q->cert_network = network;
	return 0;
}

/* -- the network at the reference time ------------------------------------ */

/* Does the policy accept a certification (@rev: a certification
 * revocation) made with hash @algo, at the reference time @at? */
static bool hash_ok(int algo, int64_t at, bool rev)
{
	int64_t tol = rev ? REVOCATION_TOLERANCE : 0;

	switch (algo) {
	case 1:
		return at < CUTOFF_MD5 + tol;
	case 2:
	case 3:
		return at < CUTOFF_SHA1 + tol;
	case 8:
	case 9:
	case 10:
	case 11:
		return true;
	default:
		return false;
	}
}

/* Does the policy accept, at the reference time @at, a binding
 * self-signature made with hash @algo (second pre-image resistance)? */
static bool selfsig_hash_ok(uint32_t algo, int64_t at)
{
	switch (algo) {
	case 1:
		return at < CUTOFF_2ND_MD5;
	case 2:
		return at < CUTOFF_2ND_SHA1;
	case 3:
		return at < CUTOFF_2ND_RMD160;
	case 8:
	case 9:
	case 10:
	case 11:
		return true;
	default:
		return false;
	}
}

/* Since when has bind @b a binding self-signature without an expiration
 * time that the policy accepts at the reference time @at (its oldest
 * such)?  KSP_WSNAP_NEVER: none. */
static int64_t bind_since(const struct ksp_wsnap_bind *b, int64_t at)
{
	int64_t t = KSP_WSNAP_NEVER;
	const int64_t *ss = b->ss;

	if (ss[KSP_WSNAP_SS_STRONG] > 0)
		t = ss[KSP_WSNAP_SS_STRONG];
	if (ss[KSP_WSNAP_SS_SHA1] > 0 && at < CUTOFF_2ND_SHA1 && ss[KSP_WSNAP_SS_SHA1] < t)
		t = ss[KSP_WSNAP_SS_SHA1];
	if (ss[KSP_WSNAP_SS_RMD160] > 0 && at < CUTOFF_2ND_RMD160 && ss[KSP_WSNAP_SS_RMD160] < t)
		t = ss[KSP_WSNAP_SS_RMD160];
	if (ss[KSP_WSNAP_SS_MD5] > 0 && at < CUTOFF_2ND_MD5 && ss[KSP_WSNAP_SS_MD5] < t)
		t = ss[KSP_WSNAP_SS_MD5];
	return t;
}

/* Does the policy accept key @k's algorithm and size at the reference
 * time @at?  (Sequoia's standard policy: RSA, DSA and ElGamal below 2048
 * bits not since 2014-02-01; the curves sequoia-openpgp 1.12 knows; no
 * algorithm it does not know.) */
static bool key_algo_ok(const struct ksp_wsnap_node *k, int64_t at)
{
	switch (k->algo) {
	case 1: /* RSA */
	case 2:
	case 3:
	case 16: /* ElGamal */
	case 17: /* DSA */
	case 20:
		return k->bits >= 2048 || at < CUTOFF_WEAK_KEY;
	case 18: /* ECDH, ECDSA, EdDSA */
	case 19:
	case 22:
		return true;
	default:
		return false;
	}
}

/* Has bind @b a binding self-signature valid at @t (made by then, not
 * expired then) that the policy accepts at the reference time @at? */
static bool bind_valid_at(const struct ksp_wsnap_bind *b, int64_t t, int64_t at)
{
	if (bind_since(b, at) <= t)
		return true;
	return b->ss_exp_created > 0 && b->ss_exp_created <= t && t < b->ss_exp_until &&
	       selfsig_hash_ok(b->ss_exp_hash, at);
}

/* Had key @v a valid binding signature at @t (Sequoia's ValidCert at a
 * time: a self-signature on a user ID or a direct-key one, made by then,
 * unexpired then, with a hash the policy accepts at the reference time, on
 * a key the policy accepts)?  Never for a key without its self-signatures
 * (schema 8's key_selfsigs; a store of an older schema until its next
 * load). */
static bool key_bound_at(const struct ksp_trust_sequoia *q, uint32_t v, int64_t t)
{
	const struct ksp_wsnap_node *k = &q->s->nodes[v];
	struct ksp_wsnap_selfsig h;

	if (!key_algo_ok(k, q->at))
		return false;
	for (uint32_t i = 0; i < k->hist_n && ksp_wsnap_key_selfsig(q->s, k, i, &h) && h.created <= t; i++)
		if ((h.until == 0 || t < h.until) && selfsig_hash_ok((uint32_t)h.hash, q->at))
			return true;
	return false;
}

/* Was key @v alive (created, unexpired, not revoked) at @t?  Unexpired
 * as the binding self-signature valid at @t says (the newest made by then,
 * unexpired then, with a hash the policy accepts at the reference time):
 * a key renewed after it expired was expired in between.  A store without
 * the key's self-signatures (schema 8's key_selfsigs): its newest one. */
static bool alive_at(const struct ksp_trust_sequoia *q, uint32_t v, int64_t t)
{
	const struct ksp_wsnap_node *k = &q->s->nodes[v];
	struct ksp_wsnap_selfsig h;

	if (k->created > t || ksp_wsnap_key_revoked(k, t))
		return false;
	if (k->hist_n == 0)
		return k->expires > t;
	for (uint32_t i = k->hist_n; i-- > 0;) {
		if (!ksp_wsnap_key_selfsig(q->s, k, i, &h) || h.created > t || (h.until != 0 && h.until <= t) ||
		    !selfsig_hash_ok((uint32_t)h.hash, q->at))
			continue;
		return h.key_expires == 0 || h.key_expires > t;
	}
	return false;
}

/* Is the text valid UTF-8 (what Rust's String::from_utf8 takes)? */
static bool utf8_valid(const char *text, size_t len)
{
	const uint8_t *p = (const uint8_t *)text;
	uint32_t cp;

	for (size_t i = 0, n; i < len; i += n)
		if ((n = utf8_decode(p + i, len - i, &cp)) == 0)
			return false;
	return true;
}

/* A bind Sequoia's network holds: a user ID (not an attribute) in UTF-8
 * (sequoia-wot knows no other) with a self-signature the policy accepts,
 * made by the reference time. */
static bool bind_in_network(const struct ksp_trust_sequoia *q, const struct ksp_wsnap_bind *b)
{
	const char *text;
	size_t len;

	if (!(b->flags & KSP_WSNAP_BIND_SELFSIG) || (b->flags & KSP_WSNAP_BIND_ATTR) || !bind_valid_at(b, q->at, q->at))
		return false;
	text = ksp_wsnap_bind_text(q->s, b, &len);
	return utf8_valid(text, len);
}

/* Is certification @c revoked at q->at by a 0x30 of the same issuer made
 * after it?  @revs: the bind's revocations (n_revs of them). */
static bool cert_revoked(const struct ksp_trust_sequoia *q, const uint32_t *revs, size_t n_revs,
			 const struct ksp_wsnap_cert *c)
{
	const struct ksp_wsnap *s = q->s;

	for (size_t j = 0; j < n_revs; j++) {
		const struct ksp_wsnap_cert *r = &s->certs[revs[j]];
		if (r->issuer == c->issuer && r->created > c->created && r->created <= q->at && hash_ok(r->hash, q->at, true))
			return true;
	}
	return false;
}

static bool cert_valid(const struct ksp_trust_sequoia *q, uint32_t v, const uint32_t *revs, size_t n_revs,
		       const struct ksp_wsnap_cert *c)
{
	const struct ksp_wsnap *s = q->s;

	if (c->type < 0x10 || c->type > 0x13 || c->issuer >= s->n || c->created > q->at ||
	    (c->expires != 0 && c->expires <= q->at) || !hash_ok(c->hash, q->at, false))
		return false;
	if (!alive_at(q, c->issuer, c->created) || !alive_at(q, v, c->created))
		return false;
	/* issuer and target each had a binding signature when it was made,
	 * the issuer has one now too */
	if (!key_bound_at(q, c->issuer, c->created) || !key_bound_at(q, v, c->created) ||
	    !key_bound_at(q, c->issuer, q->at))
		return false;
	return !cert_revoked(q, revs, n_revs, c);
}

static int grow_ecerts(struct ksp_trust_sequoia *q)
{
	if (q->n_ecerts < q->cap_ecerts)
		return 0;
	size_t nc = q->cap_ecerts ? q->cap_ecerts * 2 : 256;
	struct ecert *e = realloc(q->ecerts, nc * sizeof(*e));
	if (e == NULL)
		return -ENOMEM;
	q->ecerts = e;
	q->cap_ecerts = nc;
	return 0;
}

/* The usable certifications on key @v (every bind of it in the network):
 * per bind and issuer the newest valid ones (all of the newest time).
 * Computed once a query; linear in the bind's certifications. */
static int certs_on(struct ksp_trust_sequoia *q, uint32_t v)
{
	const struct ksp_wsnap *s = q->s;

	if (q->estamp[v] == q->eepoch)
		return 0;
	q->estamp[v] = q->eepoch;
	q->eoff[v] = (uint32_t)q->n_ecerts;
	q->ecnt[v] = 0;
	if (!key_bound_at(q, v, q->at) || (s->nodes[v].flags & KSP_WSNAP_HARD_REVOKED))
		return 0;
	for (uint32_t b = s->bind_off[v]; b < s->bind_off[v + 1]; b++) {
		uint32_t lo = s->cert_off[b], hi = s->cert_off[b + 1], *revs = NULL;
		size_t n_revs = 0;

		if (!bind_in_network(q, &s->binds[b]) || lo == hi)
			continue;
		if (++q->bepoch == 0) {
			memset(q->istamp, 0, q->n * sizeof(*q->istamp));
			q->bepoch = 1;
		}
		/* the bind's certification revocations (rare) */
		for (uint32_t i = lo; i < hi; i++)
			if (s->certs[i].type == 0x30)
				n_revs++;
		if (n_revs) {
			revs = malloc(n_revs * sizeof(*revs));
			if (revs == NULL)
				return -ENOMEM;
			n_revs = 0;
			for (uint32_t i = lo; i < hi; i++)
				if (s->certs[i].type == 0x30)
					revs[n_revs++] = i;
		}
		/* the newest valid certification time per issuer, then those */
		for (uint32_t i = lo; i < hi; i++) {
			const struct ksp_wsnap_cert *c = &s->certs[i];
			if (!cert_valid(q, v, revs, n_revs, c))
				continue;
			if (q->istamp[c->issuer] != q->bepoch || q->imax[c->issuer] < c->created) {
				q->istamp[c->issuer] = q->bepoch;
				q->imax[c->issuer] = c->created;
			}
		}
		for (uint32_t i = lo; i < hi; i++) {
			const struct ksp_wsnap_cert *c = &s->certs[i];
			struct ecert *e;

			if (c->issuer >= s->n || q->istamp[c->issuer] != q->bepoch || q->imax[c->issuer] != c->created ||
			    !cert_valid(q, v, revs, n_revs, c))
				continue;
			if (grow_ecerts(q) < 0) {
				free(revs);
				return -ENOMEM;
			}
			e = &q->ecerts[q->n_ecerts++];
			e->cert = i;
			e->bind = b;
			e->issuer = c->issuer;
			e->re = -1;
			if (c->depth == 0 && c->amount == 0) {
				/* no trust signature: a plain certification */
				e->depth = 0;
				e->amount = FULLY;
				e->re = 1;
			} else {
				e->depth = c->depth == 255 ? UNCONSTRAINED : c->depth;
				e->amount = c->amount > FULLY ? FULLY : c->amount;
				if ((c->flags >> KSP_WSNAP_CERT_NREGEX_SHIFT) == 0 && !(c->flags & KSP_WSNAP_CERT_LONG_REGEX))
					e->re = 1;
			}
			if (q->cert_network) {
				/* a trusted introducer at any depth, for any user
				 * ID; its amount stays */
				e->depth = UNCONSTRAINED;
				e->re = 1;
			}
		}
		free(revs);
	}
	q->ecnt[v] = (uint32_t)(q->n_ecerts - q->eoff[v]);
	return 0;
}

/* Does a root reach vertex @v by certifications (the snapshot's "outs",
 * every certification as stored)?  Only such an issuer can be on a path:
 * the regular expressions of the others are never looked at.  One
 * breadth-first search per query, on the first regular expression. */
static bool root_reaches(struct ksp_trust_sequoia *q, uint32_t v)
{
	const struct ksp_wsnap *s = q->s;
	uint32_t head = 0, tail = 0;

	if (q->reach_eepoch == q->eepoch && q->reach)
		return q->reach[v] == q->eepoch;
	if (q->reach_n != q->n) {
		free(q->reach);
		free(q->reach_queue);
		q->reach = calloc(q->n, sizeof(*q->reach));
		q->reach_queue = malloc(q->n * sizeof(*q->reach_queue));
		q->reach_n = q->reach ? q->n : 0;
		if (q->reach == NULL || q->reach_queue == NULL)
			return true; /* no memory: look at the expression */
	}
	for (size_t i = 0; i < q->n_roots; i++) {
		uint32_t r = q->rootv[i];
		if (r != NONE && r < s->n && q->reach[r] != q->eepoch) {
			q->reach[r] = q->eepoch;
			q->reach_queue[tail++] = r;
		}
	}
	while (head < tail) {
		uint32_t u = q->reach_queue[head++];
		for (uint32_t k = s->gout_off[u]; k < s->gout_off[u + 1]; k++) {
			uint32_t w = s->outs[k].v;
			if (w < s->n && q->reach[w] != q->eepoch) {
				q->reach[w] = q->eepoch;
				q->reach_queue[tail++] = w;
			}
		}
	}
	q->reach_eepoch = q->eepoch;
	return q->reach[v] == q->eepoch;
}

/* The matcher of certification @ci, compiled on first use (RX_BAD: none of
 * its expressions is in the subset; said once, naming the two keys only:
 * the expression itself is hostile text); NULL on error. */
static struct tsig_regex *rx_get(struct ksp_trust_sequoia *q, uint32_t ci, uint32_t target)
{
	const struct ksp_wsnap *s = q->s;
	const struct ksp_wsnap_cert *c = &s->certs[ci];
	unsigned n = c->flags >> KSP_WSNAP_CERT_NREGEX_SHIFT;
	const char *res[256], *why;
	size_t bad, at, m = 0;
	struct tsig_regex *rx;

	if (q->rx_snap != s || q->rx_gen != s->gen || q->rx_nonce != s->nonce) {
		rx_drop(q);
		q->rx = calloc(s->n_certs ? s->n_certs : 1, sizeof(*q->rx));
		if (q->rx == NULL)
			return NULL;
		q->n_rx = s->n_certs;
		q->rx_snap = s;
		q->rx_gen = s->gen;
		q->rx_nonce = s->nonce;
	}
	if (q->rx[ci])
		return q->rx[ci];
	for (unsigned i = 0; i < n && m < 256; i++) {
		const char *re = ksp_wsnap_cert_regex(s, c, i);
		res[m++] = re ? re : "";
	}
	if (tsig_regex_compile(res, m, TSIG_SEQUOIA, &rx, &bad, &why, &at) < 0)
		return NULL;
	if (bad)
		WARN(q->ctx, "the trust signature by %s on %s: %zu of its %zu regular expressions %s beyond what ksp evaluates (%s, at character %zu); %s nothing\n",
		     ksp_wsnap_fpr(s, c->issuer), ksp_wsnap_fpr(s, target), bad, m, bad == 1 ? "is" : "are", why, at,
		     bad == 1 ? "it matches" : "they match");
	if (bad == m) {
		tsig_regex_free(rx);
		rx = RX_BAD;
	}
	q->rx[ci] = rx;
	return rx;
}

/* Do the regular expressions of certification @e (on vertex @v) match the
 * target user ID?  Any one of them suffices; one beyond the subset
 * (tsig-regex.h), or over-long, matches nothing. */
static bool regex_match(struct ksp_trust_sequoia *q, struct ecert *e, uint32_t v)
{
	const struct ksp_wsnap_cert *c = &q->s->certs[e->cert];
	struct tsig_regex *rx;

	if (e->re >= 0)
		return e->re;
	e->re = 0;
	if (c->flags & KSP_WSNAP_CERT_LONG_REGEX)
		return false;
	if (!root_reaches(q, e->issuer))
		return false; /* on no path: not evaluated */
	rx = rx_get(q, e->cert, v);
	if (rx == NULL || rx == RX_BAD)
		return false;
	e->re = tsig_regex_match(rx, q->uid, q->uid_len) == 1;
	return e->re;
}

/* -- the filters (what the roots and the paths found so far take) --------- */

static int filtered(const struct ksp_trust_sequoia *q, uint32_t issuer, uint32_t target, int amount)
{
	if (amount > q->cap[issuer])
		amount = q->cap[issuer];
	for (size_t i = 0; i < q->n_sup; i++)
		if (q->sup[i].issuer == issuer && (q->sup[i].target == target || q->sup[i].target == NONE))
			amount = amount > q->sup[i].amount ? amount - q->sup[i].amount : 0;
	return amount;
}

static int suppress(struct ksp_trust_sequoia *q, uint32_t issuer, uint32_t target, int amount)
{
	for (size_t i = 0; i < q->n_sup; i++)
		if (q->sup[i].issuer == issuer && q->sup[i].target == target) {
			q->sup[i].amount += amount;
			return 0;
		}
	if (q->n_sup == q->cap_sup) {
		size_t nc = q->cap_sup ? q->cap_sup * 2 : 16;
		struct suppress *ns = realloc(q->sup, nc * sizeof(*ns));
		if (ns == NULL)
			return -ENOMEM;
		q->sup = ns;
		q->cap_sup = nc;
	}
	q->sup[q->n_sup++] = (struct suppress){ .issuer = issuer, .target = target, .amount = amount };
	return 0;
}

/* -- the backward search ---------------------------------------------------- */

/* One search; the best path from a root into *out (out->len 0: none). */
static int backward(struct ksp_trust_sequoia *q, bool self_signed, struct spath *out)
{
	const struct ksp_wsnap *s = q->s;
	uint32_t t = q->target, head = 0, tail = 0;
	uint32_t best = NONE;
	int level = 0, full_depth = INT_MAX;
	int best_amount = 0;
	size_t best_len = 0;

	out->len = 0;
	if (++q->epoch == 0) {
		memset(q->stamp, 0, q->n * sizeof(*q->stamp));
		q->epoch = 1;
	}
	if (self_signed && q->tbind == NONE)
		return 0;
	q->stamp[t] = q->epoch;
	q->fp_cert[t] = NONE;
	q->fp_next[t] = NONE;
	q->fp_bind[t] = NONE;
	q->fp_depth[t] = self_signed ? 1 : 0;
	q->fp_amount[t] = FULLY;
	q->queue[tail++] = t;
	while (head < tail) {
		uint32_t v = q->queue[head++];
		int dv = q->fp_depth[v], av = q->fp_amount[v];
		int r;

		/* before the first key of a level: every key of at most this
		 * many certifications to the target has its final forward
		 * pointer; a root among them with the full amount cannot be
		 * beaten by a longer path, the rest of the search changes
		 * nothing */
		if (dv > level) {
			if (full_depth <= dv)
				break;
			level = dv;
		}
		r = certs_on(q, v);
		if (r < 0)
			return r;
		for (uint32_t k = 0; k < q->ecnt[v]; k++) {
			struct ecert *e = &q->ecerts[q->eoff[v] + k];
			uint32_t i = e->issuer;
			int a = filtered(q, i, v, e->amount), pd, pa;

			if (a == 0)
				continue;
			if (!self_signed && v == t && e->bind != q->tbind)
				continue;
			if (e->depth < dv)
				continue;
			if (!regex_match(q, e, v))
				continue;
			pd = dv + 1;
			pa = a < av ? a : av;
			if (q->stamp[i] != q->epoch) {
				q->stamp[i] = q->epoch;
				q->queue[tail++] = i;
			} else if (!(pd < q->fp_depth[i] || (pd == q->fp_depth[i] && pa > q->fp_amount[i]))) {
				continue;
			}
			if (pa >= FULLY && q->isroot[i] && pd < full_depth)
				full_depth = pd;
			q->fp_cert[i] = e->cert;
			q->fp_next[i] = v;
			q->fp_bind[i] = e->bind;
			q->fp_depth[i] = pd;
			q->fp_amount[i] = pa;
		}
	}
	/* the best path from a root */
	for (size_t ri = 0; ri < q->n_roots; ri++) {
		uint32_t r = q->rootv[ri];
		int a;
		size_t len;

		if (r == NONE || q->stamp[r] != q->epoch)
			continue;
		if (r == t) {
			if (!self_signed)
				continue;
			a = filtered(q, r, NONE, FULLY);
			len = 1;
		} else {
			a = q->fp_amount[r];
			len = (size_t)(q->fp_depth[r] - (self_signed ? 1 : 0)) + 1;
			if (self_signed) {
				/* the last certification on another user ID: the
				 * target's self-signature follows */
				uint32_t u = r;
				while (q->fp_next[u] != t)
					u = q->fp_next[u];
				if (q->fp_bind[u] != q->tbind)
					len++;
			}
		}
		if (a <= 0)
			continue;
		if (best == NONE || a > best_amount || (a == best_amount && len < best_len) ||
		    (a == best_amount && len == best_len && strcmp(ksp_wsnap_fpr(s, r), ksp_wsnap_fpr(s, best)) > 0)) {
			best = r;
			best_amount = a;
			best_len = len;
		}
	}
	if (best == NONE)
		return 0;
	out->v = malloc(best_len * sizeof(*out->v));
	out->cert = malloc((best_len ? best_len : 1) * sizeof(*out->cert));
	if (out->v == NULL || out->cert == NULL) {
		free(out->v);
		free(out->cert);
		out->v = out->cert = NULL;
		return -ENOMEM;
	}
	out->amount = best_amount;
	{
		size_t j = 0;
		uint32_t u = best;

		out->v[j] = u;
		while (u != t) {
			out->cert[j] = q->fp_cert[u];
			u = q->fp_next[u];
			out->v[++j] = u;
		}
		if (j + 1 < best_len) {
			/* the target's self-signature on the queried user ID */
			out->cert[j] = NONE;
			out->v[++j] = t;
		}
		out->len = j + 1;
	}
	return 0;
}

/* -- a query ------------------------------------------------------------------ */

/* The vertex of the key with fingerprint @fpr (the store's index, then the
 * snapshot's key order), NONE when not there. */
static uint32_t vertex_of(struct ksp_store_key_lookup *keys, const struct ksp_wsnap *s, const char *fpr, int *err)
{
	int64_t id = ksp_store_key_lookup(keys, fpr);

	if (id < 0) {
		*err = (int)id;
		return NONE;
	}
	return id > 0 ? ksp_wsnap_vertex(s, id) : NONE;
}

static int prepare(struct ksp_trust_sequoia *q, struct ksp_store *store, const struct ksp_wsnap *s)
{
	struct ksp_store_key_lookup *keys = NULL;
	int err = 0;
	uint32_t n = s->n ? s->n : 1;

	if (q->n != n) {
		free_scratch(q);
		q->n = n;
		q->stamp = calloc(n, sizeof(*q->stamp));
		q->estamp = calloc(n, sizeof(*q->estamp));
		q->istamp = calloc(n, sizeof(*q->istamp));
		q->imax = malloc(n * sizeof(*q->imax));
		q->eoff = malloc(n * sizeof(*q->eoff));
		q->ecnt = malloc(n * sizeof(*q->ecnt));
		q->fp_cert = malloc(n * sizeof(*q->fp_cert));
		q->fp_next = malloc(n * sizeof(*q->fp_next));
		q->fp_bind = malloc(n * sizeof(*q->fp_bind));
		q->fp_depth = malloc(n * sizeof(*q->fp_depth));
		q->fp_amount = malloc(n * sizeof(*q->fp_amount));
		q->queue = malloc(n * sizeof(*q->queue));
		q->cap = malloc(n * sizeof(*q->cap));
		q->isroot = calloc(n, sizeof(*q->isroot));
		if (!q->stamp || !q->estamp || !q->istamp || !q->imax || !q->eoff || !q->ecnt || !q->fp_cert || !q->fp_next || !q->fp_bind || !q->fp_depth ||
		    !q->fp_amount || !q->queue || !q->cap || !q->isroot) {
			free_scratch(q);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < n; i++)
			q->cap[i] = FULLY;
		q->epoch = q->eepoch = q->bepoch = 0;
	}
	if (++q->eepoch == 0) {
		memset(q->estamp, 0, n * sizeof(*q->estamp));
		q->eepoch = 1;
	}
	q->n_ecerts = 0;
	free(q->rootv);
	q->rootv = malloc((q->n_roots ? q->n_roots : 1) * sizeof(*q->rootv));
	if (q->rootv == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < q->n_roots; i++)
		q->rootv[i] = NONE;
	/* the roots in the network (a valid key, not hard-revoked) */
	err = ksp_store_key_lookup_new(store, &keys);
	for (size_t i = 0; i < q->n_roots && err == 0; i++) {
		uint32_t v = vertex_of(keys, s, q->roots[i].fpr, &err);
		if (v != NONE && key_bound_at(q, v, q->at) && !(s->nodes[v].flags & KSP_WSNAP_HARD_REVOKED)) {
			q->rootv[i] = v;
		}
	}
	ksp_store_key_lookup_free(keys);
	return err;
}

static void unprepare(struct ksp_trust_sequoia *q)
{
	for (size_t i = 0; q->rootv && i < q->n_roots; i++)
		if (q->rootv[i] != NONE) {
			q->cap[q->rootv[i]] = FULLY;
			q->isroot[q->rootv[i]] = 0;
		}
	q->n_sup = 0;
}

/* Authenticate the binding (target vertex, bind tbind or NONE with the user
 * ID q->uid). */
static int authenticate(struct ksp_trust_sequoia *q)
{
	const struct ksp_wsnap *s = q->s;
	const struct ksp_wsnap_node *k = &s->nodes[q->target];
	int r = 0;

	q->n_sup = 0;
	for (size_t i = 0; i < q->n_roots; i++)
		if (q->rootv[i] != NONE) {
			q->isroot[q->rootv[i]] = 1;
			if (q->cap[q->rootv[i]] > q->roots[i].amount)
				q->cap[q->rootv[i]] = q->roots[i].amount;
		}
	/* the target must be valid, alive and unrevoked at the reference time,
	 * its user ID not revoked */
	if (!key_bound_at(q, q->target, q->at) || !alive_at(q, q->target, q->at) || ksp_wsnap_key_revoked(k, q->at) ||
	    (q->tbind != NONE && s->binds[q->tbind].revoked <= q->at))
		goto out;
	while (q->total < q->target_amount && q->n_paths < MAX_PATHS) {
		struct spath p = { 0 };

		for (int ss = 1; ss >= 0; ss--) {
			r = backward(q, ss, &p);
			if (r < 0)
				goto out;
			if (p.len)
				break;
			/* in the certification network every certification has
			 * the depth the self-signed search needs: on the queried
			 * (self-signed) user ID, the other search finds nothing
			 * more */
			if (q->cert_network && q->tbind != NONE)
				break;
		}
		if (p.len == 0)
			break;
		if (p.len == 1) {
			r = suppress(q, p.v[0], NONE, p.amount);
		} else {
			for (size_t j = 0; j + 1 < p.len && r == 0; j++)
				r = suppress(q, p.v[j], p.v[j + 1], p.amount);
		}
		q->paths[q->n_paths++] = p;
		q->total += p.amount;
		if (r < 0)
			goto out;
	}
out:
	unprepare(q);
	return r;
}

/* Does the user ID carry the address (lib/addr.c, as the paths model)? */
static bool email_matches(const char *uid, size_t len, const char *email)
{
	char *a = NULL;
	bool yes;

	if (ksp_uid_address(uid, len, &a) < 0 || a == NULL)
		return false;
	yes = strcasecmp(a, email) == 0;
	free(a);
	return yes;
}

KSP_EXPORT int ksp_trust_sequoia_authenticate(struct ksp_trust_sequoia *q, struct ksp_store *store, int64_t at,
				   const char *fpr, const char *uid, const char *email)
{
	struct ksp_wsnap *s = NULL;
	char norm[65];
	uint32_t t = NONE;
	int r, best_total = -1;
	struct spath best_paths[MAX_PATHS];
	size_t best_n = 0, best_ulen = 0;
	char *best_uid = NULL;

	if (q == NULL || store == NULL || fpr == NULL)
		return -EINVAL;
	ksp_clear_error(q->ctx);
	clear_result(q);
	if (fpr_normalize(fpr, norm) < 0) {
		ksp_set_error(q->ctx, "'%s' is not a full fingerprint (40 or 64 hex digits)", fpr);
		return -EINVAL;
	}
	r = ksp_wsnap_get(store, &s);
	if (r < 0)
		return r;
	q->s = s;
	q->at = at;
	{
		struct ksp_store_key_lookup *keys = NULL;
		r = ksp_store_key_lookup_new(store, &keys);
		if (r == 0)
			t = vertex_of(keys, s, norm, &r);
		ksp_store_key_lookup_free(keys);
	}
	if (r < 0)
		return r;
	if (t == NONE)
		return -ENOENT;
	r = prepare(q, store, s);
	if (r < 0)
		return r;
	q->target = t;
	if (uid != NULL && email == NULL) {
		/* one user ID, on the key or not */
		q->tbind = NONE;
		for (uint32_t b = s->bind_off[t]; b < s->bind_off[t + 1]; b++) {
			size_t len;
			const char *txt = ksp_wsnap_bind_text(s, &s->binds[b], &len);
			if (bind_in_network(q, &s->binds[b]) && len == strlen(uid) && memcmp(txt, uid, len) == 0)
				q->tbind = b;
		}
		q->uid = strdup(uid);
		if (q->uid == NULL)
			return -ENOMEM;
		q->uid_len = strlen(uid);
		return authenticate(q);
	}
	/* every self-signed user ID of the key (with the address): the best */
	for (uint32_t b = s->bind_off[t]; b < s->bind_off[t + 1]; b++) {
		size_t len;
		const char *txt = ksp_wsnap_bind_text(s, &s->binds[b], &len);

		if (!bind_in_network(q, &s->binds[b]) || memchr(txt, '\0', len) != NULL)
			continue;
		if (email && !email_matches(txt, len, email))
			continue;
		if (uid && (len != strlen(uid) || memcmp(txt, uid, len) != 0))
			continue;
		q->tbind = b;
		q->uid = strndup(txt, len);
		if (q->uid == NULL) {
			r = -ENOMEM;
			break;
		}
		q->uid_len = len;
		r = authenticate(q);
		if (r < 0)
			break;
		if (q->total > best_total) {
			for (size_t i = 0; i < best_n; i++) {
				free(best_paths[i].v);
				free(best_paths[i].cert);
			}
			free(best_uid);
			if (q->n_paths)
				memcpy(best_paths, q->paths, q->n_paths * sizeof(*best_paths));
			best_n = q->n_paths;
			best_total = q->total;
			best_uid = q->uid;
			best_ulen = q->uid_len;
			q->n_paths = 0;
			q->uid = NULL;
		}
		clear_result(q);
	}
	clear_result(q);
	if (best_n)
		memcpy(q->paths, best_paths, best_n * sizeof(*best_paths));
	q->n_paths = best_n;
	q->total = best_total < 0 ? 0 : best_total;
	q->uid = best_uid;
	q->uid_len = best_ulen;
	q->tbind = NONE;
	return r;
}

KSP_EXPORT int ksp_trust_sequoia_get_amount(const struct ksp_trust_sequoia *q)
{
	return q ? q->total : 0;
}

KSP_EXPORT bool ksp_trust_sequoia_is_authenticated(const struct ksp_trust_sequoia *q)
{
	return q && q->total >= q->target_amount;
}

KSP_EXPORT const char *ksp_trust_sequoia_get_uid(const struct ksp_trust_sequoia *q, size_t *len)
{
	if (len)
		*len = q && q->uid ? q->uid_len : 0;
	return q ? q->uid : NULL;
}

KSP_EXPORT size_t ksp_trust_sequoia_get_path_count(const struct ksp_trust_sequoia *q)
{
	return q ? q->n_paths : 0;
}

KSP_EXPORT int ksp_trust_sequoia_get_path_amount(const struct ksp_trust_sequoia *q, size_t i)
{
	return q && i < q->n_paths ? q->paths[i].amount : -EINVAL;
}

KSP_EXPORT size_t ksp_trust_sequoia_get_path_length(const struct ksp_trust_sequoia *q, size_t i)
{
	return q && i < q->n_paths ? q->paths[i].len : 0;
}

KSP_EXPORT const char *ksp_trust_sequoia_get_path_key(const struct ksp_trust_sequoia *q, size_t i, size_t j)
{
	if (q == NULL || i >= q->n_paths || j >= q->paths[i].len)
		return NULL;
	return ksp_wsnap_fpr(q->s, q->paths[i].v[j]);
}

KSP_EXPORT int ksp_trust_sequoia_get_path_hop(const struct ksp_trust_sequoia *q, size_t i, size_t j, int *depth,
				   int *amount, int64_t *created)
{
	const struct ksp_wsnap_cert *c;

	if (q == NULL || i >= q->n_paths || j + 1 >= q->paths[i].len)
		return -EINVAL;
	if (q->paths[i].cert[j] == NONE) {
		/* the target's self-signature */
		if (depth)
			*depth = 0;
		if (amount)
			*amount = FULLY;
		if (created)
			*created = 0;
		return 1;
	}
	c = &q->s->certs[q->paths[i].cert[j]];
	if (depth)
		*depth = q->cert_network ? 255 : c->depth;
	if (amount)
		*amount = c->depth == 0 && c->amount == 0 ? FULLY : c->amount > FULLY ? FULLY : c->amount;
	if (created)
		*created = c->created;
	return 0;
}
