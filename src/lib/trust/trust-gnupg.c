// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Why one file (over 1,000 lines): it follows GnuPG's validation loop step
 * by step, so that it can be read side by side with trustdb.c; its parts
 * share the level lists.
 *
 * trust-gnupg.c: key validity the way GnuPG's trustdb computes it
 * ("gpg --check-trustdb" with --trust-model pgp, GnuPG 2.2: trustdb.c
 * validate_keys(), validate_key_list(), validate_one_keyblock() and
 * key-clean.c mark_usable_uid_certs()), at a reference time, from the
 * store's graph snapshot (wot-snap.h: the graph as stored, every
 * certification and revocation with its trust signature), the one the
 * path model reads too.
 *
 * The rules, as GnuPG applies them:
 *  - The keys with ultimate ownertrust (6) are the roots: every user ID of
 *    theirs is ultimately valid, and they form the first list of
 *    introducers ("klist").
 *  - A key revocation counts whatever its reason and date: the key is
 *    revoked ('r') at every date and is never validated, so it introduces
 *    nothing, not even with what it certified before the revocation; a
 *    revoked or expired root certifies nothing either.  A key made after
 *    the reference time is invalid ('i'): its self-signatures do not
 *    verify.  Every certification, certification revocation and user ID
 *    revocation counts whatever its date; the reference time decides only
 *    expiry (of keys, certifications) and the keys made after it.
 *  - Level by level, depth 0 .. max_cert_depth - 1: every key that is not
 *    revoked or expired and not yet fully valid on all its user IDs is
 *    looked at.  On each of its user IDs that is not revoked, for each
 *    introducer of the current list, the newest of the introducer's valid
 *    certifications (0x10, and 0x11-0x13 at or above min_cert_level) and
 *    certification revocations (0x30) of that user ID decides: a
 *    certification that has not expired counts, a revocation removes it.
 *    (A non-revocable unexpired certification wins over a newer one.)  A
 *    certification made before its issuer's key existed does not verify.
 *  - A counting certification by an ultimately trusted introducer makes
 *    the user ID fully valid at once; one by an introducer with full
 *    ownertrust counts one "complete", one with marginal ownertrust one
 *    "marginal"; undefined, never or unknown ownertrust count nothing, but
 *    still make the user ID "signed".  Counts add up across levels.  A
 *    signed user ID is fully valid with completes >= completes_needed or
 *    marginals >= marginals_needed, marginally valid with any count, else
 *    of undefined validity.  A key's validity is the best of its user IDs'.
 *  - The keys that became fully valid on some user ID at this level, and
 *    were never introducers before, are the next level's introducers,
 *    with their ownertrust.  Only fully valid keys pass trust on.
 *  - Trust signatures (depth > 0) by an introducer set the key's trust
 *    value and remaining depth (the signature's depth when the introducer
 *    is ultimately trusted or has more depth left, else the introducer's);
 *    a value of 120 or more raises the key's ownertrust to at least full
 *    as an introducer, 60 or more to marginal; the signature's regular
 *    expression (sanitized as GnuPG does) then restricts the user IDs on
 *    which the key's own certifications count.
 * The reference time is GnuPG's clock (--faked-system-time), and these
 * rules were measured against gpg 2.2 run live on a generated matrix
 * (tests/cli/T521-gnupg-live.sh).  A user ID whose newest self-signature
 * has expired carries nothing (gnupg-uidexp.c reads that expiry from the
 * stored key).  Not modelled: disabled keys (ownertrust flag 128), a key
 * without valid self-signatures made valid by an ultimately trusted
 * certification (GnuPG's fallback; such keys do not import).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trust/gnupg-uidexp.h"
#include "lib/openpgp/hash-rules.h"
#include "lib/trust/tsig-regex.h"
#include "lib/libksp-private.h"
#include "lib/store/store-trust.h"
#include "lib/wot/wot-snap.h"
#include "shared/util.h"

struct gintro {
	uint32_t signer;   /* node */
	uint8_t ownertrust;
	uint8_t depth;
	uint32_t uid;      /* index into the key's uids */
};

struct guid {
	int64_t id;
	uint32_t bind;     /* in the snapshot */
	char *text;        /* the user ID bytes, NUL-terminated */
	size_t len;
	bool usable;       /* self-signed and not revoked at the reference time */
	uint8_t validity;  /* KSP_GNUPG_*, 0 none */
	int full, marginal;
	/* this level */
	uint8_t flag;
	int new_full, new_marginal;
	struct gintro *intro;
	size_t n_intro, cap_intro;
	size_t n_intro_committed;
};

struct gnode {
	char fpr[65];
	uint8_t state;     /* GK_* */
	bool loaded, uids_loaded;
	uint8_t ownertrust;
	bool used, full_trust, stored;
	uint8_t validity;
	int depth;
	uint32_t stamp;    /* candidate of this level */
	int32_t klist;     /* index in the current introducer list, -1 */
	uint32_t scount, sbest; /* scratch: signatures on one user ID */
	struct guid *uids;
	size_t n_uids;
	/* trust signature state of this level */
	uint8_t tv, td;
	char *regex;       /* borrowed from a parsed signature: copied */
};

/* GK_REVOKED: revoked for any reason, by a revocation of any date (GnuPG
 * applies every revocation it has: such a key is never validated, so it
 * introduces nothing, not even with what it certified before).
 * GK_FUTURE: made after the reference time (GnuPG: its self-signatures do
 * not verify, "key created in the future": 'i', and it introduces nothing).
 * GK_INVALID: no valid self-signature. */
enum { GK_OK = 1, GK_EXPIRED, GK_REVOKED, GK_INVALID, GK_UNKNOWN, GK_FUTURE };

struct kitem {
	uint32_t node;
	uint8_t ownertrust;
	uint8_t trust_value, trust_depth;
	char *regex;
};

struct ot_entry {
	char fpr[65];
	uint8_t level;
};

struct ksp_trust_gnupg {
	struct ksp_ctx *ctx;
	int marginals_needed, completes_needed, max_cert_depth, min_cert_level;
	bool md5;  /* hash-rules.h */
	int sha1;  /* enum ksp_sha1_rule */
	uint64_t dropped[KSP_DROPPED_MAX]; /* the last run */
	struct ot_entry *ot;
	size_t n_ot, cap_ot;
	bool ot_sorted;
	/* the last run: nodes by snapshot vertex, loaded when touched */
	struct ksp_store *store;
	struct ksp_wsnap *snap;  /* the store's; checked current (gen, nonce) before use */
	int64_t gen, nonce;
	int64_t at;
	struct gnode *nodes;
	uint32_t n;
	struct ksp_store_key_lookup *keys; /* fingerprints to keys.id */
	/* trust-signature regular expressions, compiled once (tsig-regex.h) */
	struct grx *rxc;
	size_t n_rxc, cap_rxc;
};

struct grx {
	char *expr;
	struct tsig_regex *rx; /* NULL: beyond the subset (said once) */
};

/* ---- options ------------------------------------------------------------- */

KSP_EXPORT int ksp_trust_gnupg_new(struct ksp_ctx *ctx, struct ksp_trust_gnupg **ret)
{
	struct ksp_trust_gnupg *g;

	if (ctx == NULL || ret == NULL)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	g->ctx = ctx;
	g->marginals_needed = 3;
	g->completes_needed = 1;
	g->max_cert_depth = 5;
	g->min_cert_level = 2;
	g->sha1 = KSP_SHA1_BEFORE_2019; /* gpg 2.2's rules */
	*ret = g;
	return 0;
}

static void run_reset(struct ksp_trust_gnupg *g)
{
	for (uint32_t i = 0; i < g->n; i++) {
		struct gnode *nd = &g->nodes[i];
		for (size_t j = 0; j < nd->n_uids; j++) {
			free(nd->uids[j].text);
			free(nd->uids[j].intro);
		}
		free(nd->uids);
		free(nd->regex);
	}
	free(g->nodes);
	g->nodes = NULL;
	g->n = 0;
	g->keys = ksp_store_key_lookup_free(g->keys);
	g->snap = NULL;
	g->store = ksp_store_unref(g->store);
}

KSP_EXPORT struct ksp_trust_gnupg *ksp_trust_gnupg_free(struct ksp_trust_gnupg *g)
{
	if (g) {
		run_reset(g);
		free(g->ot);
		for (size_t i = 0; i < g->n_rxc; i++) {
			free(g->rxc[i].expr);
			tsig_regex_free(g->rxc[i].rx);
		}
		free(g->rxc);
		free(g);
	}
	return NULL;
}

KSP_EXPORT int ksp_trust_gnupg_set_marginals_needed(struct ksp_trust_gnupg *g, int n)
{
	if (g == NULL || n < 2 || n > 255) /* gpg: "marginals-needed must be greater than 1" */
		return -EINVAL;
	g->marginals_needed = n;
	return 0;
}

KSP_EXPORT int ksp_trust_gnupg_set_completes_needed(struct ksp_trust_gnupg *g, int n)
{
	if (g == NULL || n < 1 || n > 255)
		return -EINVAL;
	g->completes_needed = n;
	return 0;
}

KSP_EXPORT int ksp_trust_gnupg_set_max_cert_depth(struct ksp_trust_gnupg *g, int n)
{
	if (g == NULL || n < 1 || n > 255)
		return -EINVAL;
	g->max_cert_depth = n;
	return 0;
}

KSP_EXPORT int ksp_trust_gnupg_set_min_cert_level(struct ksp_trust_gnupg *g, int level)
{
	if (g == NULL || level < 1 || level > 3)
		return -EINVAL;
	g->min_cert_level = level;
	return 0;
}

KSP_EXPORT void ksp_trust_gnupg_set_sha1(struct ksp_trust_gnupg *g, bool counts)
{
	if (g)
		g->sha1 = counts ? KSP_SHA1_YES : KSP_SHA1_NO;
}

KSP_EXPORT int ksp_trust_gnupg_set_sha1_rule(struct ksp_trust_gnupg *g, int rule)
{
	if (g == NULL || rule < KSP_SHA1_YES || rule > KSP_SHA1_NO)
		return -EINVAL;
	g->sha1 = rule;
	return 0;
}

KSP_EXPORT void ksp_trust_gnupg_set_md5(struct ksp_trust_gnupg *g, bool counts)
{
	if (g)
		g->md5 = counts;
}

KSP_EXPORT uint64_t ksp_trust_gnupg_get_dropped(const struct ksp_trust_gnupg *g, unsigned int which)
{
	return g && which < KSP_DROPPED_MAX ? g->dropped[which] : 0;
}

KSP_EXPORT int ksp_trust_gnupg_set_ownertrust(struct ksp_trust_gnupg *g, const char *fpr, int level)
{
	char norm[65];

	if (g == NULL || fpr == NULL || level < 0 || level > KSP_GNUPG_ULTIMATE)
		return -EINVAL;
	if (fpr_normalize(fpr, norm) < 0) {
		ksp_set_error(g->ctx, "'%.80s' is not a full fingerprint (40 or 64 hex digits)", fpr);
		return -EINVAL;
	}
	for (size_t i = 0; i < g->n_ot; i++)
		if (strcmp(g->ot[i].fpr, norm) == 0) {
			g->ot[i].level = (uint8_t)level;
			return 0;
		}
	if (g->n_ot == g->cap_ot) {
		size_t nc = g->cap_ot ? 2 * g->cap_ot : 32;
		void *n = realloc(g->ot, nc * sizeof(*g->ot));
		if (n == NULL)
			return -ENOMEM;
		g->ot = n;
		g->cap_ot = nc;
	}
	memcpy(g->ot[g->n_ot].fpr, norm, sizeof(norm));
	g->ot[g->n_ot++].level = (uint8_t)level;
	g->ot_sorted = false;
	return 0;
}

KSP_EXPORT int ksp_trust_gnupg_load_ownertrust(struct ksp_trust_gnupg *g, const char *path)
{
	uint8_t *data = NULL;
	size_t len;
	unsigned lineno = 0;
	char *line, *next;
	int r;

	if (g == NULL || path == NULL)
		return -EINVAL;
	r = read_file_all(path, 64u << 20, &data, &len);
	if (r < 0) {
		ksp_set_error(g->ctx, "%s: cannot read the ownertrust: %s", path, strerror(-r));
		return r;
	}
	if (memchr(data, '\0', len)) {
		ksp_set_error(g->ctx, "%s: not a text file; ownertrust is 'FPR:LEVEL:' lines (gpg --export-ownertrust)",
			      path);
		free(data);
		return -EINVAL;
	}
	for (line = (char *)data; line; line = next) {
		char *nl = strchr(line, '\n'), *p, *colon, *end;
		long level;

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '#' || *p == '\0')
			continue;
		colon = strchr(p, ':');
		if (colon == NULL) {
			ksp_set_error(g->ctx, "%s:%u: expected 'FINGERPRINT:LEVEL:' (gpg --export-ownertrust)", path, lineno);
			r = -EINVAL;
			break;
		}
		*colon = '\0';
		errno = 0;
		level = strtol(colon + 1, &end, 10);
		if (errno || end == colon + 1 || (*end != ':' && *end != '\0' && !isspace((unsigned char)*end))) {
			ksp_set_error(g->ctx, "%s:%u: bad ownertrust level; expected a number (2 undefined, 3 never, "
					      "4 marginal, 5 full, 6 ultimate)",
				      path, lineno);
			r = -EINVAL;
			break;
		}
		level &= 15; /* flags (128: disabled) are not levels */
		if (level > KSP_GNUPG_ULTIMATE) {
			ksp_set_error(g->ctx, "%s:%u: ownertrust level %ld is not one of 0-6", path, lineno, level);
			r = -EINVAL;
			break;
		}
		r = ksp_trust_gnupg_set_ownertrust(g, p, (int)level);
		if (r < 0) {
			if (r == -EINVAL)
				ksp_set_error(g->ctx, "%s:%u: '%.80s' is not a full fingerprint (40 or 64 hex digits)", path,
					      lineno, p);
			break;
		}
	}
	free(data);
	return r < 0 ? r : 0;
}

static int cmp_ot(const void *a, const void *b)
{
	return strcmp(((const struct ot_entry *)a)->fpr, ((const struct ot_entry *)b)->fpr);
}

static void ot_sort(struct ksp_trust_gnupg *g)
{
	if (!g->ot_sorted) {
		if (g->n_ot)
			qsort(g->ot, g->n_ot, sizeof(*g->ot), cmp_ot);
		g->ot_sorted = true;
	}
}

static uint8_t ownertrust_of(struct ksp_trust_gnupg *g, const char *fpr)
{
	struct ot_entry key, *e;

	ot_sort(g);
	if (g->n_ot == 0)
		return 0;
	snprintf(key.fpr, sizeof(key.fpr), "%s", fpr);
	e = bsearch(&key, g->ot, g->n_ot, sizeof(*g->ot), cmp_ot);
	return e ? e->level : 0;
}

/* ---- the keys touched ---------------------------------------------------- */

/* The node of vertex @v, loaded from the snapshot when first touched. */
static uint32_t node_of(struct ksp_trust_gnupg *g, uint32_t v)
{
	struct gnode *nd = &g->nodes[v];
	const struct ksp_wsnap_node *k = &g->snap->nodes[v];
	int64_t created = k->created, expires = k->expires == KSP_WSNAP_NEVER ? 0 : k->expires;
	bool selfsig_ok = (k->flags & KSP_WSNAP_SELFSIG_OK) != 0,
	     revoked = k->revoked != KSP_WSNAP_NEVER || (k->flags & KSP_WSNAP_HARD_REVOKED);

	if (nd->loaded)
		return v;
	*nd = (struct gnode){ .klist = -1, .state = GK_UNKNOWN };
	snprintf(nd->fpr, sizeof(nd->fpr), "%s", ksp_wsnap_fpr(g->snap, v));
	/* getkey.c merge_selfsigs_main(): every self-signature of a key made
	 * after "now" fails (so does its revocation); a key revocation counts
	 * whatever its reason and date; expired when the expiry is before
	 * "now" (has_expired = key_expire >= curtime ? 0 : ...) */
	if (created > g->at)
		nd->state = GK_FUTURE;
	else if (revoked)
		nd->state = GK_REVOKED;
	else if (expires && expires < g->at)
		nd->state = GK_EXPIRED;
	else if (!selfsig_ok)
		nd->state = GK_INVALID;
	else
		nd->state = GK_OK;
	nd->ownertrust = ownertrust_of(g, nd->fpr);
	nd->loaded = true;
	return v;
}

static int load_uids(struct ksp_trust_gnupg *g, uint32_t i)
{
	struct gnode *nd = &g->nodes[i];
	const struct ksp_wsnap *s = g->snap;
	uint32_t lo = s->bind_off[i], hi = s->bind_off[i + 1];
	struct ksp_gnupg_uidexp *exp = NULL;
	size_t n_exp = 0;
	int r;

	if (nd->uids_loaded)
		return 0;
	if (hi > s->n_binds || lo > hi)
		return -EBADMSG;
	nd->uids = calloc(hi - lo ? hi - lo : 1, sizeof(*nd->uids));
	if (nd->uids == NULL)
		return -ENOMEM;
	/* an expired self-signature makes its user ID expired (gpg) */
	r = ksp_gnupg_uid_expiries(g->ctx, g->store, s->nodes[i].key_id, &exp, &n_exp);
	if (r < 0)
		return r;
	for (uint32_t b = lo; b < hi; b++) {
		const struct ksp_wsnap_bind *bd = &s->binds[b];
		struct guid *u = &nd->uids[nd->n_uids];
		size_t len;
		const char *text = ksp_wsnap_bind_text(s, bd, &len);

		*u = (struct guid){ .id = bd->uid_id, .bind = b, .len = len };
		u->text = malloc(len + 1);
		if (u->text == NULL) {
			free(exp);
			return -ENOMEM;
		}
		if (len)
			memcpy(u->text, text, len);
		u->text[len] = '\0';
		/* revoked: by a self-revocation of any date (the newest
		 * self-signature decides, as the store keeps it) */
		u->usable = (bd->flags & KSP_WSNAP_BIND_SELFSIG) && bd->revoked == KSP_WSNAP_NEVER;
		for (size_t e = 0; e < n_exp && u->usable; e++)
			if (exp[e].uid_id == bd->uid_id && exp[e].expires <= g->at)
				u->usable = false;
		nd->n_uids++;
	}
	free(exp);
	nd->uids_loaded = true;
	return 0;
}

/* ---- GnuPG's regular expressions of trust signatures ---------------------- */

/* Does GnuPG's regular expression @expr (trustdb.c: the "<[^>]+[@.]" ...
 * ">$" frame, the rest literal but '.', case-insensitive; tsig-regex.h)
 * match @uid?  Compiled once per handle and expression; one beyond the
 * subset matches nothing and is reported once, naming the introducer
 * @node it scopes (the expression itself is hostile text). */
static bool regexp_matches(struct ksp_trust_gnupg *g, uint32_t node, const char *expr, const char *uid)
{
	struct grx *e = NULL;

	for (size_t i = 0; i < g->n_rxc && e == NULL; i++)
		if (strcmp(g->rxc[i].expr, expr) == 0)
			e = &g->rxc[i];
	if (e == NULL) {
		const char *why;
		size_t bad, at;
		struct tsig_regex *rx;

		if (g->n_rxc == g->cap_rxc) {
			size_t nc = g->cap_rxc ? 2 * g->cap_rxc : 8;
			struct grx *n = realloc(g->rxc, nc * sizeof(*n));
			if (n == NULL)
				return false;
			g->rxc = n;
			g->cap_rxc = nc;
		}
		if (tsig_regex_compile(&expr, 1, TSIG_GNUPG, &rx, &bad, &why, &at) < 0)
			return false;
		e = &g->rxc[g->n_rxc];
		e->expr = strdup(expr);
		if (e->expr == NULL) {
			tsig_regex_free(rx);
			return false;
		}
		g->n_rxc++;
		e->rx = rx;
		if (bad) {
			WARN(g->ctx, "the trust signature that made %s an introducer has a regular expression beyond what ksp evaluates (%s, at character %zu); it matches nothing\n",
			     g->snap && node < g->snap->n ? ksp_wsnap_fpr(g->snap, node) : "a key", why, at);
			tsig_regex_free(rx);
			e->rx = NULL;
		}
	}
	return e->rx && tsig_regex_match(e->rx, uid, strlen(uid)) == 1;
}

/* ---- one level -------------------------------------------------------------- */

struct gcert {
	const struct ksp_wsnap_cert *sc;
	uint32_t issuer; /* node */
	int type;
	int64_t created, expires;
	int tdepth, tamount;
	bool revocable;
	char *regex;     /* first regular expression of a trust signature */
};

static void gcerts_clear(struct gcert *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].regex);
}

/* What the signature packet says beyond the store's columns (read into the
 * snapshot): whether it is revocable, and its regular expression. */
static int parse_extra(struct ksp_trust_gnupg *g, struct gcert *c)
{
	const char *re;

	c->revocable = (c->sc->flags & KSP_WSNAP_CERT_REVOCABLE) != 0;
	re = (c->sc->flags & KSP_WSNAP_CERT_LONG_REGEX) ? NULL : ksp_wsnap_cert_regex(g->snap, c->sc, 0);
	if (re) {
		c->regex = strdup(re); /* an embedded NUL ended it, as in GnuPG */
		if (c->regex == NULL)
			return -ENOMEM;
	}
	return 0;
}

static bool is_cert(int type)
{
	return type >= 0x10 && type <= 0x13;
}

/* "nonrevocable and unexpired" of mark_usable_uid_certs() */
static bool sticky(const struct gcert *c, int64_t at)
{
	return is_cert(c->type) && !c->revocable && (c->expires == 0 || c->expires > at);
}

static int add_intro(struct guid *u, uint32_t signer, uint8_t ot, int depth, uint32_t uid_index)
{
	if (u->n_intro == u->cap_intro) {
		size_t nc = u->cap_intro ? 2 * u->cap_intro : 4;
		void *n = realloc(u->intro, nc * sizeof(*u->intro));
		if (n == NULL)
			return -ENOMEM;
		u->intro = n;
		u->cap_intro = nc;
	}
	u->intro[u->n_intro++] = (struct gintro){ .signer = signer, .ownertrust = ot, .depth = (uint8_t)depth,
						  .uid = uid_index };
	return 0;
}

/* validate_one_keyblock(): returns 1 when some user ID is signed by the
 * introducers, 0 when none, <0 on error. */
/* (Long: validate_one_keyblock() of trustdb.c in its order, for the same reason.) */
static int validate_one(struct ksp_trust_gnupg *g, uint32_t ni, const struct kitem *klist, int depth)
{
	struct gcert *certs = NULL;
	size_t cap = 0;
	int any_signed = 0, r = 0;

	g->nodes[ni].tv = g->nodes[ni].td = 0;
	free(g->nodes[ni].regex);
	g->nodes[ni].regex = NULL;
	for (size_t ui = 0; ui < g->nodes[ni].n_uids; ui++) {
		struct guid *u = &g->nodes[ni].uids[ui];
		size_t nc = 0;
		bool issigned = false;

		u->flag = 0;
		if (!u->usable)
			continue;
		u->new_full = u->full;
		u->new_marginal = u->marginal;
		u->n_intro_committed = u->n_intro;
		for (uint32_t x = g->snap->cert_off[u->bind]; x < g->snap->cert_off[u->bind + 1]; x++) {
			const struct ksp_wsnap_cert *sc = &g->snap->certs[x];
			int type = sc->type, hash = sc->hash;
			int64_t created = sc->created;
			uint32_t is = sc->issuer;

			/* made after the reference time: GnuPG counts it
			 * (mark_usable_uid_certs() compares only expiry
			 * times with its clock) */
			if (is >= g->n)
				continue;
			/* only the introducers' signatures are looked at */
			if (!g->nodes[is].loaded || g->nodes[is].klist < 0)
				continue;
			if (type >= 0x11 && type <= 0x13 && type - 0x10 < g->min_cert_level)
				continue;
			if (created < g->snap->nodes[is].created) /* "public key is newer than the signature" */
				continue;
			if (ksp_hash_rule(hash, created, g->md5, g->sha1) != KSP_HASH_KEPT)
				continue;
			if (nc == cap) {
				size_t ncap = cap ? 2 * cap : 16;
				void *n = realloc(certs, ncap * sizeof(*certs));
				if (n == NULL) {
					r = -ENOMEM;
					break;
				}
				certs = n;
				cap = ncap;
			}
			certs[nc] = (struct gcert){
				.sc = sc,
				.issuer = is,
				.type = type,
				.created = created,
				.expires = sc->expires,
				.tdepth = sc->depth,
				.tamount = sc->amount,
				.revocable = true,
			};
			nc++;
		}
		/* per issuer: how many, then the one signature that decides
		 * (certs are in packet order: later ones win ties) */
		for (size_t a = 0; a < nc; a++) {
			g->nodes[certs[a].issuer].scount = 0;
			g->nodes[certs[a].issuer].sbest = UINT32_MAX;
		}
		for (size_t a = 0; a < nc; a++)
			g->nodes[certs[a].issuer].scount++;
		/* the packet itself, for trust signatures (regular expression)
		 * and when one issuer made several (revocable or not) */
		for (size_t a = 0; a < nc && r == 0; a++)
			if (certs[a].tdepth > 0 || g->nodes[certs[a].issuer].scount > 1)
				r = parse_extra(g, &certs[a]);
		if (r < 0) {
			gcerts_clear(certs, nc);
			break;
		}
		for (size_t a = 0; a < nc; a++) {
			uint32_t *best = &g->nodes[certs[a].issuer].sbest;
			const struct gcert *bc;

			if (*best == UINT32_MAX) {
				*best = (uint32_t)a;
				continue;
			}
			bc = &certs[*best];
			if (sticky(bc, g->at) && !sticky(&certs[a], g->at))
				continue;
			if ((!sticky(bc, g->at) && sticky(&certs[a], g->at)) || certs[a].created >= bc->created)
				*best = (uint32_t)a;
		}
		for (size_t a = 0; a < nc; a++) {
			uint32_t *best = &g->nodes[certs[a].issuer].sbest;
			struct gcert *bc;

			if (*best == UINT32_MAX)
				continue; /* this issuer is done */
			bc = &certs[*best];
			*best = UINT32_MAX;
			/* the newest is a revocation, or expired: nothing */
			if (!is_cert(bc->type) || (bc->expires && bc->expires <= g->at))
				continue;
			bc->type = -bc->type; /* chosen: handled below, in packet order */
		}
		/* the chosen certifications, in packet order */
		for (size_t a = 0; a < nc; a++) {
			const struct gcert *c = &certs[a];
			const struct kitem *kr;
			struct gnode *nd = &g->nodes[ni];

			if (c->type >= 0)
				continue;
			kr = &klist[g->nodes[c->issuer].klist];
			if (kr->regex && !regexp_matches(g, kr->node, kr->regex, u->text))
				continue;
			if (c->tdepth) {
				int d = (c->tdepth < kr->trust_depth || kr->ownertrust == KSP_GNUPG_ULTIMATE) ? c->tdepth
													     : kr->trust_depth;
				if (d) {
					nd->tv = (uint8_t)c->tamount;
					nd->td = (uint8_t)(d - 1);
					if (c->regex) {
						char *copy = strdup(c->regex);
						if (copy == NULL) {
							r = -ENOMEM;
							break;
						}
						free(nd->regex);
						nd->regex = copy;
					}
				}
			}
			if (kr->ownertrust == KSP_GNUPG_ULTIMATE)
				u->new_full = g->completes_needed;
			else if (kr->ownertrust == KSP_GNUPG_FULL)
				u->new_full++;
			else if (kr->ownertrust == KSP_GNUPG_MARGINAL)
				u->new_marginal++;
			r = add_intro(u, c->issuer, kr->ownertrust, depth, (uint32_t)ui);
			if (r < 0)
				break;
			issigned = true;
		}
		gcerts_clear(certs, nc);
		if (r < 0)
			break;
		if (issigned) {
			if (u->new_full >= g->completes_needed || u->new_marginal >= g->marginals_needed)
				u->flag = KSP_GNUPG_FULL;
			else if (u->new_full || u->new_marginal)
				u->flag = KSP_GNUPG_MARGINAL;
			else
				u->flag = KSP_GNUPG_UNDEFINED;
			any_signed = 1;
		} else {
			u->n_intro = u->n_intro_committed; /* nothing recorded */
		}
	}
	free(certs);
	return r < 0 ? r : any_signed;
}

static void klist_free(struct kitem *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i].regex);
	free(k);
}

/* The certifications in the store a hash rule leaves out (third-party,
 * verified, unexpired at @at; whatever their date, as the model uses them). */
static void count_dropped(struct ksp_trust_gnupg *g, int64_t at)
{
	const struct ksp_wsnap *s = g->snap;

	memset(g->dropped, 0, sizeof(g->dropped));
	for (uint64_t i = 0; i < s->n_certs; i++) {
		const struct ksp_wsnap_cert *c = &s->certs[i];
		int w;

		if (c->type < 0x10 || c->type > 0x13 || c->hash < 1 || c->hash > 3 || (c->expires != 0 && c->expires <= at))
			continue;
		w = ksp_hash_rule(c->hash, c->created, g->md5, g->sha1);
		if (w != KSP_HASH_KEPT)
			g->dropped[w]++;
	}
}

/* The vertex of @fpr (normalized): >= 0, -ENOENT when the store has no
 * such key, <0 on error. */
static int64_t vertex_of(struct ksp_trust_gnupg *g, const char *fpr)
{
	int64_t id = ksp_store_key_lookup(g->keys, fpr);
	uint32_t v;

	if (id <= 0)
		return id < 0 ? id : -ENOENT;
	v = ksp_wsnap_vertex(g->snap, id);
	return v == UINT32_MAX ? -ENOENT : (int64_t)v;
}

/* (Long: trustdb.c's validate_keys() loop, step by step in its order, so that the two read side by side.) */
KSP_EXPORT int ksp_trust_gnupg_validate(struct ksp_trust_gnupg *g, struct ksp_store *store, int64_t at)
{
	struct kitem *klist = NULL, *next = NULL;
	size_t n_klist = 0, n_next = 0, cap_next = 0;
	uint32_t *cand = NULL;
	size_t n_cand = 0, cap_cand = 0;
	int roots = 0, r = 0;

	if (g == NULL || store == NULL)
		return -EINVAL;
	ksp_clear_error(g->ctx);
	run_reset(g);
	g->store = ksp_store_ref(store);
	g->at = at;
	r = ksp_store_key_lookup_new(store, &g->keys);
	if (r == 0)
		r = ksp_wsnap_get(store, &g->snap);
	if (r < 0)
		goto out;
	g->gen = g->snap->gen;
	g->nonce = g->snap->nonce;
	g->n = g->snap->n;
	g->nodes = calloc(g->n ? g->n : 1, sizeof(*g->nodes));
	if (g->nodes == NULL) {
		r = -ENOMEM;
		goto out;
	}
	count_dropped(g, at);
	ot_sort(g);
	/* the ultimately trusted keys */
	for (size_t i = 0; i < g->n_ot; i++) {
		int64_t id, ni;
		struct gnode *nd;

		if (g->ot[i].level != KSP_GNUPG_ULTIMATE)
			continue;
		id = vertex_of(g, g->ot[i].fpr);
		if (id == -ENOENT)
			continue; /* "public key of ultimately trusted key not found" */
		if (id < 0) {
			r = (int)id;
			goto out;
		}
		ni = node_of(g, (uint32_t)id);
		nd = &g->nodes[ni];
		/* a revoked root (any reason, any date) or an expired one
		 * certifies nothing in gpg 2.2 (measured live by
		 * tests/cli/T521-gnupg-live.sh); nor does one made after the
		 * reference time (its signatures fail) */
		if (nd->used)
			continue;
		roots++;
		if (nd->state == GK_REVOKED || nd->state == GK_EXPIRED || nd->state == GK_FUTURE) {
			nd->used = nd->full_trust = true; /* a root still: never validated */
			continue;
		}
		nd->used = nd->stored = nd->full_trust = true;
		nd->validity = KSP_GNUPG_ULTIMATE;
		nd->depth = 0;
		r = load_uids(g, (uint32_t)ni);
		if (r < 0)
			goto out;
		nd = &g->nodes[ni];
		for (size_t j = 0; j < nd->n_uids; j++)
			nd->uids[j].validity = KSP_GNUPG_ULTIMATE;
		void *n = realloc(klist, (n_klist + 1) * sizeof(*klist));
		if (n == NULL) {
			r = -ENOMEM;
			goto out;
		}
		klist = n;
		klist[n_klist++] = (struct kitem){ .node = (uint32_t)ni, .ownertrust = KSP_GNUPG_ULTIMATE };
	}
	for (int depth = 0; depth < g->max_cert_depth && n_klist > 0; depth++) {
		uint32_t stamp = (uint32_t)depth + 1;

		for (size_t k = 0; k < n_klist; k++) {
			int min = klist[k].trust_value >= 120 ? KSP_GNUPG_FULL
				: klist[k].trust_value >= 60  ? KSP_GNUPG_MARGINAL
							      : 0;
			if (klist[k].ownertrust < min)
				klist[k].ownertrust = (uint8_t)min;
			g->nodes[klist[k].node].klist = (int32_t)k;
		}
		/* the keys certified by an introducer */
		n_cand = 0;
		for (size_t k = 0; k < n_klist; k++) {
			uint32_t u = klist[k].node;

			for (uint32_t o = g->snap->gout_off[u]; o < g->snap->gout_off[u + 1]; o++) {
				uint32_t ni;

				if (g->snap->outs[o].v >= g->n)
					continue;
				ni = node_of(g, g->snap->outs[o].v);
				if (g->nodes[ni].stamp == stamp || g->nodes[ni].full_trust)
					continue;
				g->nodes[ni].stamp = stamp;
				if (n_cand == cap_cand) {
					size_t nc = cap_cand ? 2 * cap_cand : 256;
					void *n = realloc(cand, nc * sizeof(*cand));
					if (n == NULL) {
						r = -ENOMEM;
						break;
					}
					cand = n;
					cap_cand = nc;
				}
				cand[n_cand++] = ni;
			}
			if (r < 0)
				goto out;
		}
		/* validate_key_list() */
		n_next = 0;
		for (size_t c = 0; c < n_cand; c++) {
			uint32_t ni = cand[c];
			struct gnode *nd = &g->nodes[ni];
			bool all_full = true, any_full = false;
			int best = 0;

			if (nd->state != GK_OK) {
				nd->full_trust = true;
				continue;
			}
			r = load_uids(g, ni);
			if (r < 0)
				goto out;
			r = validate_one(g, ni, klist, depth);
			if (r < 0)
				goto out;
			nd = &g->nodes[ni];
			if (r == 0)
				continue;
			/* store_validation_status() */
			for (size_t j = 0; j < nd->n_uids; j++) {
				struct guid *u = &nd->uids[j];
				if (u->flag) {
					u->validity = u->flag;
					u->full = u->new_full;
					u->marginal = u->new_marginal;
					nd->stored = true;
				}
				if (u->flag != KSP_GNUPG_FULL)
					all_full = false;
				else
					any_full = true;
				if (u->validity > best)
					best = u->validity;
			}
			if (best > nd->validity) {
				nd->validity = (uint8_t)best;
				nd->depth = depth;
			}
			if (all_full)
				nd->full_trust = true;
			if (any_full && !nd->used) {
				nd->used = true;
				if (n_next == cap_next) {
					size_t ncap = cap_next ? 2 * cap_next : 64;
					void *n = realloc(next, ncap * sizeof(*next));
					if (n == NULL) {
						r = -ENOMEM;
						goto out;
					}
					next = n;
					cap_next = ncap;
				}
				next[n_next] = (struct kitem){ .node = ni,
							       .ownertrust = nd->ownertrust,
							       .trust_value = nd->tv,
							       .trust_depth = nd->td };
				if (nd->regex) {
					next[n_next].regex = strdup(nd->regex);
					if (next[n_next].regex == NULL) {
						r = -ENOMEM;
						goto out;
					}
				}
				n_next++;
			}
		}
		for (size_t k = 0; k < n_klist; k++)
			g->nodes[klist[k].node].klist = -1;
		klist_free(klist, n_klist);
		klist = next;
		n_klist = n_next;
		next = NULL;
		cap_next = n_next = 0;
	}
	r = 0;
out:
	free(cand);
	if (klist) {
		for (size_t k = 0; k < n_klist; k++)
			if (klist[k].node < g->n)
				g->nodes[klist[k].node].klist = -1;
		klist_free(klist, n_klist);
	}
	klist_free(next, n_next);
	if (r < 0) {
		if (!ksp_get_error(g->ctx))
			ksp_set_error(g->ctx, "%s: cannot compute GnuPG validity: %s", ksp_store_get_path(store),
				      strerror(-r));
		run_reset(g);
		return r;
	}
	return roots;
}

/* ---- the results ------------------------------------------------------------ */

/* The node of @fpr, loaded if the store has it: >= 0; -ENOENT, -EINVAL. */
static int64_t lookup(struct ksp_trust_gnupg *g, const char *fpr)
{
	char norm[65];
	int64_t id;
	int r;

	if (g == NULL || fpr == NULL || g->store == NULL || g->nodes == NULL)
		return -EINVAL;
	if (fpr_normalize(fpr, norm) < 0) {
		ksp_set_error(g->ctx, "'%.80s' is not a full fingerprint (40 or 64 hex digits); short key IDs are not accepted",
			      fpr);
		return -EINVAL;
	}
	/* the snapshot the run read, or one of the same store generation */
	r = ksp_wsnap_get(g->store, &g->snap);
	if (r < 0)
		return r;
	if (g->snap->gen != g->gen || g->snap->nonce != g->nonce || g->snap->n != g->n) {
		ksp_set_error(g->ctx, "%s: the store changed since the GnuPG validity was computed; compute it again",
			      ksp_store_get_path(g->store));
		return -ESTALE;
	}
	id = vertex_of(g, norm);
	if (id < 0)
		return id;
	return node_of(g, (uint32_t)id);
}

KSP_EXPORT int ksp_trust_gnupg_get_validity(struct ksp_trust_gnupg *g, const char *fpr)
{
	int64_t i = lookup(g, fpr);
	const struct gnode *nd;

	if (i < 0)
		return (int)i;
	nd = &g->nodes[i];
	/* keylist.c: 'i' before 'r' before 'e' */
	if (nd->state == GK_FUTURE)
		return KSP_GNUPG_INVALID;
	if (nd->state == GK_REVOKED)
		return KSP_GNUPG_REVOKED;
	if (nd->state == GK_EXPIRED)
		return KSP_GNUPG_EXPIRED;
	return nd->validity;
}

KSP_EXPORT int ksp_trust_gnupg_get_depth(struct ksp_trust_gnupg *g, const char *fpr)
{
	int64_t i = lookup(g, fpr);

	if (i < 0)
		return (int)i;
	return g->nodes[i].stored ? g->nodes[i].depth : -ENODATA;
}

KSP_EXPORT int ksp_trust_gnupg_get_ownertrust(struct ksp_trust_gnupg *g, const char *fpr)
{
	char norm[65];

	if (g == NULL || fpr == NULL || fpr_normalize(fpr, norm) < 0)
		return -EINVAL;
	return ownertrust_of(g, norm);
}

/* The user ID with the key's validity that has the most introducers. */
static const struct guid *best_uid(const struct gnode *nd)
{
	const struct guid *best = NULL;

	for (size_t j = 0; j < nd->n_uids; j++) {
		const struct guid *u = &nd->uids[j];
		if (u->validity == 0 || u->validity != nd->validity)
			continue;
		if (best == NULL || u->n_intro > best->n_intro)
			best = u;
	}
	return best;
}

KSP_EXPORT int ksp_trust_gnupg_get_counts(struct ksp_trust_gnupg *g, const char *fpr, int *full, int *marginal)
{
	int64_t i = lookup(g, fpr);
	const struct guid *u;

	if (i < 0)
		return (int)i;
	u = best_uid(&g->nodes[i]);
	if (full)
		*full = u ? u->full : 0;
	if (marginal)
		*marginal = u ? u->marginal : 0;
	return 0;
}

KSP_EXPORT size_t ksp_trust_gnupg_get_introducer_count(struct ksp_trust_gnupg *g, const char *fpr)
{
	int64_t i = lookup(g, fpr);
	const struct guid *u;

	if (i < 0 || g->nodes[i].validity == KSP_GNUPG_ULTIMATE)
		return 0;
	u = best_uid(&g->nodes[i]);
	return u ? u->n_intro : 0;
}

KSP_EXPORT int ksp_trust_gnupg_get_introducer(struct ksp_trust_gnupg *g, const char *fpr, size_t index,
					      const char **signer, int *ownertrust, int *depth, const char **uid,
					      size_t *uid_len)
{
	int64_t i = lookup(g, fpr);
	const struct guid *u;
	const struct gintro *in;

	if (i < 0)
		return (int)i;
	if (g->nodes[i].validity == KSP_GNUPG_ULTIMATE)
		return -ENOENT;
	u = best_uid(&g->nodes[i]);
	if (u == NULL || index >= u->n_intro)
		return -ENOENT;
	in = &u->intro[index];
	if (signer)
		*signer = g->nodes[in->signer].fpr;
	if (ownertrust)
		*ownertrust = in->ownertrust;
	if (depth)
		*depth = in->depth;
	if (uid)
		*uid = u->text;
	if (uid_len)
		*uid_len = u->len;
	return 0;
}

KSP_EXPORT const char *ksp_trust_gnupg_validity_name(int validity)
{
	switch (validity) {
	case KSP_GNUPG_UNKNOWN: return "unknown";
	case KSP_GNUPG_EXPIRED: return "expired";
	case KSP_GNUPG_UNDEFINED: return "undefined";
	case KSP_GNUPG_NEVER: return "never";
	case KSP_GNUPG_MARGINAL: return "marginal";
	case KSP_GNUPG_FULL: return "full";
	case KSP_GNUPG_ULTIMATE: return "ultimate";
	case KSP_GNUPG_REVOKED: return "revoked";
	case KSP_GNUPG_INVALID: return "invalid";
	default: return NULL;
	}
}

KSP_EXPORT char ksp_trust_gnupg_validity_letter(int validity)
{
	static const char letters[] = "-eqnmfuri";

	return validity >= 0 && validity <= KSP_GNUPG_INVALID ? letters[validity] : '?';
}
