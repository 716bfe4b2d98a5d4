// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * publish.c: the store published as kernel.org's pgpkeys repository lays
 * it out (docs/ksp-publish.1), for the keys that have a certification path
 * from the core: the keys and their paths, the audit and the writing into
 * DIR here; the files made from the paths in publish-files.c (they share
 * the key table, publish-private.h).
 *
 *   keys/<KEYID>.asc     a `gpg --list-keys`-like header, then the key
 *                        exported clean: its self-signatures, and of the
 *                        certifications only those verified in the store
 *                        and made by a key of the published set;
 *   graphs/<KEYID>.txt   wotmate's text format: one block per path,
 *                        "from  <KEYID>  <uid>", then numbered hops;
 *   graphs/<KEYID>.svg   the same paths drawn by graphviz (graph/);
 *   .keyring/openpgp/<domain>/<local>/default   b4's and patatt's lookup
 *                        (url-quoted as patatt quotes, lower case), a
 *                        symlink to the key file, and
 *   .keyring/by-hash/<h[0:2]>/<h[2:]>  with h the SHA-256 of
 *                        "openpgp/<domain>/<local>/default" (patatt's
 *                        fallback), the same symlink.
 *
 * Paths: a maximum set of vertex-disjoint paths of at most L hops, from
 * the trust engine (trust/).  The engine lets each core key start at most
 * one path; wotmate's paths all start at one key (Linus Torvalds'), so with
 * a single core key r the paths are asked from the keys r certifies (each
 * then starts one path, of at most L - 1 hops), r put in front, and a path
 * that meets another key r certifies is cut short there (still disjoint:
 * its keys are a subset).  A key r certifies directly has that one-hop
 * path as well.  With several core keys the engine's paths are used as
 * they are.  Which certifications count (hash algorithms, expiry) is the
 * policy's; the weak-hash audit asks the same with a second policy.
 *
 * Output is deterministic (sorted keys and paths, no dates but the keys'
 * own).  Everything is made in memory first; then the files that differ
 * from what is in DIR are written into a temporary folder inside DIR and
 * renamed into place, the ones gone are removed: an error before that
 * leaves DIR as it was, and an unchanged file is not rewritten.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/libksp-private.h"
#include "lib/publish/publish-private.h"
#include "lib/publish/publish-write.h"
#include "lib/store/store-publish.h"
#include "lib/trust/policy.h"
#include "lib/trust/whatif.h"
#include "lib/wot/wot-snap.h"
#include "shared/util.h"

static void paths_free(struct pkey *k)
{
	for (size_t i = 0; i < k->n_paths; i++) {
		free(k->paths[i].v);
		free(k->paths[i].hash);
	}
	free(k->paths);
	k->paths = NULL;
	k->n_paths = 0;
}

static void results_free(struct ksp_publish *p)
{
	for (size_t i = 0; i < p->n_keys; i++) {
		paths_free(&p->keys[i]);
		free(p->keys[i].uid);
	}
	free(p->keys);
	p->keys = NULL;
	p->n_keys = 0;
	for (size_t i = 0; i < p->n_files; i++) {
		free(p->files[i].path);
		free(p->files[i].data);
	}
	free(p->files);
	p->files = NULL;
	p->n_files = p->cap_files = 0;
	for (size_t i = 0; i < p->n_changes; i++)
		free(p->changes[i].path);
	free(p->changes);
	p->changes = NULL;
	p->n_changes = p->cap_changes = 0;
	for (size_t i = 0; i < p->n_pathless; i++)
		free(p->pathless[i]);
	free(p->pathless);
	p->pathless = NULL;
	p->n_pathless = 0;
	free(p->weak);
	p->weak = NULL;
	p->n_weak = 0;
	for (size_t i = 0; i < p->n_orphans; i++)
		free(p->orphans[i]);
	free(p->orphans);
	p->orphans = NULL;
	p->n_orphans = 0;
	p->n_published = 0;
}

KSP_EXPORT int ksp_publish_new(struct ksp_store *store, const struct ksp_trust_policy *policy,
			       struct ksp_publish **ret)
{
	struct ksp_publish *p;

	if (store == NULL || policy == NULL || ret == NULL)
		return -EINVAL;
	if (ksp_trust_policy_check_whatif(policy, "publishing (its paths and their what-if shortening)") < 0)
		return -EOPNOTSUPP;
	if (ksp_trust_policy_get_core_count(policy) == 0) {
		ksp_set_error(ksp_store_get_ctx(store), "no core key; give the key the paths start from (--core-fpr)");
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->store = ksp_store_ref(store);
	p->ctx = ksp_store_get_ctx(store);
	p->policy = policy;
	p->max_paths = 4;
	p->svg = true;
	p->at = time(NULL);
	*ret = p;
	return 0;
}

KSP_EXPORT struct ksp_publish *ksp_publish_free(struct ksp_publish *p)
{
	if (p) {
		results_free(p);
		ksp_trust_policy_free(p->strict);
		ksp_store_unref(p->store);
		free(p);
	}
	return NULL;
}

KSP_EXPORT int ksp_publish_set_max_paths(struct ksp_publish *p, int n)
{
	if (p == NULL || n < 1 || n > 64)
		return -EINVAL;
	p->max_paths = n;
	return 0;
}

KSP_EXPORT void ksp_publish_set_keep(struct ksp_publish *p, bool keep)
{
	if (p)
		p->keep = keep;
}

KSP_EXPORT void ksp_publish_set_svg(struct ksp_publish *p, bool svg)
{
	if (p)
		p->svg = svg;
}

KSP_EXPORT void ksp_publish_set_at(struct ksp_publish *p, int64_t at)
{
	if (p)
		p->at = at;
}

KSP_EXPORT int ksp_publish_set_audit(struct ksp_publish *p, bool on)
{
	struct ksp_trust_policy *s = NULL;

	if (p == NULL)
		return -EINVAL;
	ksp_trust_policy_free(p->strict);
	p->strict = NULL;
	if (!on)
		return 0;
	s = ksp_trust_policy_copy(p->policy);
	if (s == NULL)
		return -ENOMEM;
	/* the same policy, weak hashes dropped */
	(void)ksp_trust_policy_set_sha1_rule(s, KSP_SHA1_NO);
	ksp_trust_policy_set_md5(s, false);
	p->strict = s;
	return 0;
}

/* ---- the keys and their paths ------------------------------------------------ */

static int key_row(void *opaque, int64_t id, const char *f, const char *kid, const void *uid, size_t uid_len)
{
	struct ksp_publish *p = opaque;
	struct pkey *k;

	if (grow((void **)&p->keys, &p->cap_keys, p->n_keys + 1, sizeof(*p->keys)) < 0)
		return -ENOMEM;
	k = &p->keys[p->n_keys];
	memset(k, 0, sizeof(*k));
	k->id = id;
	snprintf(k->fpr, sizeof(k->fpr), "%s", f ? f : "");
	snprintf(k->kid, sizeof(k->kid), "%s", kid ? kid : "");
	for (char *c = k->kid; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	k->strict_paths = -1;
	k->uid = escape_text(uid, uid_len);
	p->n_keys++;
	return k->uid ? 0 : -ENOMEM;
}

static int read_keys(struct ksp_publish *p)
{
	p->cap_keys = 0;
	return ksp_store_publish_keys(p->store, key_row, p);
}

/* The hash algorithm of the certification a hop of the engine used: the
 * highest among the verified certifications by @signer on @signee's user
 * ID @uid made at @created (the snapshot's, where the engine found it). */
static uint8_t hop_hash(struct ksp_publish *p, const char *signer, const char *signee, int64_t created, const char *uid,
			size_t ulen)
{
	struct ksp_wsnap *g = NULL;
	int a = key_index(p, signer), b = key_index(p, signee);
	uint32_t u, v;
	uint8_t h = 0;

	if (a < 0 || b < 0 || ksp_wsnap_get(p->store, &g) < 0)
		return 0;
	if (uid == NULL)
		uid = "";
	u = ksp_wsnap_vertex(g, p->keys[a].id);
	v = ksp_wsnap_vertex(g, p->keys[b].id);
	if (u == UINT32_MAX || v == UINT32_MAX)
		return 0;
	for (uint32_t i = g->bind_off[v]; i < g->bind_off[v + 1]; i++) {
		size_t len;
		const char *t = ksp_wsnap_bind_text(g, &g->binds[i], &len);

		if (len != ulen || (ulen && memcmp(t, uid, ulen) != 0))
			continue;
		for (uint64_t c = g->cert_off[i]; c < g->cert_off[i + 1]; c++)
			if (g->certs[c].issuer == u && g->certs[c].created == created && g->certs[c].hash > h)
				h = g->certs[c].hash;
	}
	return h;
}

static int add_path(struct pkey *k, const uint32_t *v, const uint8_t *hash, size_t n)
{
	struct ppath *np = realloc(k->paths, (k->n_paths + 1) * sizeof(*np));

	if (np == NULL)
		return -ENOMEM;
	k->paths = np;
	np = &k->paths[k->n_paths];
	np->v = malloc(n * sizeof(*np->v));
	np->hash = malloc(n);
	if (np->v == NULL || np->hash == NULL) {
		free(np->v);
		free(np->hash);
		return -ENOMEM;
	}
	memcpy(np->v, v, n * sizeof(*v));
	memcpy(np->hash, hash, n - 1);
	np->n = n;
	k->n_paths++;
	return 0;
}

/* Which keys the single core key certifies (a one-hop path by the engine). */
static int find_neighbours(struct ksp_publish *p, const struct ksp_trust_policy *pol, uint32_t root, bool strict)
{
	struct ksp_trust_policy *one = NULL;
	int r;

	one = ksp_trust_policy_copy(pol);
	if (one == NULL)
		return -ENOMEM;
	r = 0;
	(void)ksp_trust_policy_set_max_depth(one, 1);
	(void)ksp_trust_policy_set_min_paths(one, 1);
	for (size_t i = 0; i < p->n_keys && r >= 0; i++) {
		struct ksp_trust_result *res = NULL;

		if (i == root)
			continue;
		r = ksp_trust_check(p->store, one, p->keys[i].fpr, p->at, &res);
		if (r < 0)
			break;
		if (ksp_trust_result_is_trusted(res) && ksp_trust_result_get_path_count(res) > 0) {
			const char *a, *b, *uid;
			int64_t created = 0;
			size_t ulen = 0;

			if (strict) {
				p->keys[i].neighbour_strict = true;
			} else {
				p->keys[i].neighbour = true;
				if (ksp_trust_result_get_hop(res, 0, 0, &a, &b, &created, &uid, &ulen) >= 0)
					p->keys[i].direct_hash = hop_hash(p, a, b, created, uid, ulen);
			}
		}
		ksp_trust_result_free(res);
	}
	ksp_trust_policy_free(one);
	return r;
}

static bool is_neighbour(const struct pkey *k, bool strict)
{
	return strict ? k->neighbour_strict : k->neighbour;
}

static int cmp_path(const struct ksp_publish *p, const struct ppath *a, const struct ppath *b)
{
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (size_t i = 0; i < a->n; i++) {
		int c = strcmp(p->keys[a->v[i]].kid, p->keys[b->v[i]].kid);
		if (c)
			return c;
	}
	return 0;
}

static void sort_paths(const struct ksp_publish *p, struct pkey *k)
{
	/* a few paths: insertion sort */
	for (size_t i = 1; i < k->n_paths; i++)
		for (size_t j = i; j > 0 && cmp_path(p, &k->paths[j - 1], &k->paths[j]) > 0; j--) {
			struct ppath t = k->paths[j];
			k->paths[j] = k->paths[j - 1];
			k->paths[j - 1] = t;
		}
}

/* A path that visits a key twice (v[a] == v[b], a < b) made simple: the
 * loop between them taken out (the hops after v[b] start at v[a], the
 * same key), until no key is left twice.  Returns the new length. */
static size_t simple_path(uint32_t *v, uint8_t *h, size_t n)
{
	for (size_t a = 0; a < n; a++)
		for (size_t b = n; b-- > a + 1;)
			if (v[a] == v[b]) {
				memmove(v + a + 1, v + b + 1, (n - b - 1) * sizeof(*v));
				if (n - b > 1)
					memmove(h + a, h + b, n - b - 1);
				n -= b - a;
				break;
			}
	return n < 2 ? 0 : n;
}

/* Path @i of @res as key indexes into v (and hop hashes into h), the core
 * key @root (-1: none, the engine's path as it is) put in front and the
 * path cut short at the last key @root certifies.  Returns the number of
 * keys, 0 when the path is unusable. */
static size_t take_path(struct ksp_publish *p, const struct ksp_trust_result *res, size_t i, int root, bool strict,
			size_t L, uint32_t *v, uint8_t *h)
{
	size_t len = ksp_trust_result_get_path_length(res, i), n = 0, from = 0;

	if (len == 0 || len > L)
		return 0;
	if (root >= 0) {
		v[n] = (uint32_t)root;
		h[n] = 0;
		n++;
	}
	for (size_t j = 0; j < len; j++) {
		const char *a = NULL, *b = NULL, *uid = NULL;
		int64_t created = 0;
		size_t ulen = 0;
		int ia, ib;

		if (ksp_trust_result_get_hop(res, i, j, &a, &b, &created, &uid, &ulen) < 0)
			return 0;
		ia = key_index(p, a);
		ib = key_index(p, b);
		if (ia < 0 || ib < 0)
			return 0;
		if (j == 0)
			v[n++] = (uint32_t)ia;
		h[n - 1] = strict ? 0 : hop_hash(p, a, b, created, uid, ulen);
		v[n++] = (uint32_t)ib;
	}
	if (root >= 0) {
		/* cut short at the last key the core key certifies */
		for (size_t j = 1; j + 1 < n; j++)
			if (is_neighbour(&p->keys[v[j]], strict))
				from = j;
		if (from > 1) {
			memmove(v + 1, v + from, (n - from) * sizeof(*v));
			memmove(h + 1, h + from, n - from - 1);
			n -= from - 1;
		}
		h[0] = p->keys[v[1]].direct_hash;
	}
	return simple_path(v, h, n);
}

/* A policy asking for @K paths to key @t: from the keys @root certifies
 * (but @t and the lost ones), of at most @hops - 1 hops, or from the
 * policy's core (root -1) of at most @hops.  NULL with *r = 0: no source. */
static struct ksp_trust_policy *ask_policy(struct ksp_publish *p, const struct ksp_trust_policy *pol, uint32_t t,
					   int root, bool strict, int hops, int K, const uint8_t *lost,
					   const struct ksp_wsnap *g, int *r)
{
	struct ksp_trust_policy *q = ksp_trust_policy_copy(pol);
	bool any = root < 0;

	*r = 0;
	if (q == NULL) {
		*r = -ENOMEM;
		return NULL;
	}
	if (root >= 0) {
		ksp_trust_policy_clear_core(q);
		for (size_t i = 0; i < p->n_keys; i++) {
			if (i == t || !is_neighbour(&p->keys[i], strict))
				continue;
			if (lost && g) {
				uint32_t x = ksp_wsnap_vertex(g, p->keys[i].id);
				if (x != UINT32_MAX && lost[x])
					continue;
			}
			*r = ksp_trust_policy_add_core(q, p->keys[i].fpr);
			if (*r < 0)
				break;
			any = true;
		}
		hops--;
	}
	if (*r < 0 || !any || hops < 1) {
		ksp_trust_policy_free(q);
		return NULL;
	}
	(void)ksp_trust_policy_set_max_depth(q, hops);
	(void)ksp_trust_policy_set_min_paths(q, K);
	return q;
}

/* The single core key @root is put in front of the paths from the keys it
 * certifies: no such path may pass through it (a key twice in one path),
 * so it is no vertex for those queries. */
static void lose_root(const struct ksp_publish *p, const struct ksp_wsnap *g, int root, uint8_t *lost)
{
	uint32_t x = root >= 0 ? ksp_wsnap_vertex(g, p->keys[root].id) : UINT32_MAX;

	if (x != UINT32_MAX)
		lost[x] = 1;
}

/* Each path in turn made as short as it can be while the others stay:
 * the keys inside the others are lost (trust/whatif.h) and one path of
 * fewer hops is asked for.  The max-flow's paths keep their number but
 * may be longer than needed; this shortens them (a local optimum). */
static int shorten(struct ksp_publish *p, const struct ksp_trust_policy *pol, uint32_t t, int root)
{
	struct pkey *k = &p->keys[t];
	struct ksp_wsnap *g = NULL;
	struct ksp_trust_whatif wi;
	uint8_t *lost = NULL;
	int L = ksp_trust_policy_get_max_depth(pol), r;
	uint32_t *v = NULL;
	uint8_t *h = NULL;

	if (k->n_paths == 0)
		return 0;
	r = ksp_wsnap_get(p->store, &g);
	if (r < 0)
		return r;
	lost = calloc(g->n ? g->n : 1, 1);
	v = malloc(((size_t)L + 2) * sizeof(*v));
	h = malloc((size_t)L + 2);
	if (lost == NULL || v == NULL || h == NULL) {
		r = -ENOMEM;
		goto out;
	}
	wi = (struct ksp_trust_whatif){ .lost = lost };
	for (int pass = 0; pass < 2; pass++) {
		bool better = false;

		for (size_t i = k->n_paths; i-- > 0;) {
			struct ppath *pp = &k->paths[i];

			if (pp->n <= 3)
				continue;
			memset(lost, 0, g->n ? g->n : 1);
			lose_root(p, g, root, lost);
			for (size_t j = 0; j < k->n_paths; j++)
				for (size_t x = 1; j != i && x + 1 < k->paths[j].n; x++) {
					uint32_t vx = ksp_wsnap_vertex(g, p->keys[k->paths[j].v[x]].id);
					if (vx != UINT32_MAX)
						lost[vx] = 1;
				}
			for (int hops = root >= 0 ? 2 : 1; hops < (int)pp->n - 1; hops++) {
				struct ksp_trust_policy *q = ask_policy(p, pol, t, root, false, hops, 1, lost, g, &r);
				struct ksp_trust_result *res = NULL;
				size_t n = 0;

				if (r < 0)
					goto out;
				if (q == NULL)
					continue;
				ksp_trust_policy_set_whatif(q, &wi);
				r = ksp_trust_check(p->store, q, k->fpr, p->at, &res);
				ksp_trust_policy_free(q);
				if (r < 0)
					goto out;
				if (ksp_trust_result_get_path_count(res) > 0)
					n = take_path(p, res, 0, root, false, (size_t)L, v, h);
				ksp_trust_result_free(res);
				if (n > 0 && n < pp->n) {
					memcpy(pp->v, v, n * sizeof(*v));
					memcpy(pp->hash, h, n - 1);
					pp->n = n;
					better = true;
					break;
				}
			}
		}
		sort_paths(p, k);
		if (!better)
			break;
	}
	r = 0;
out:
	free(lost);
	free(v);
	free(h);
	return r;
}

/* The paths to key @t under @pol (strict: the audit's count only). */
static int key_paths(struct ksp_publish *p, const struct ksp_trust_policy *pol, uint32_t t, bool strict, int *count)
{
	struct pkey *k = &p->keys[t];
	size_t n_core = ksp_trust_policy_get_core_count(pol);
	int L = ksp_trust_policy_get_max_depth(pol), K = p->max_paths, found = 0;
	struct ksp_trust_policy *q = NULL;
	struct ksp_trust_result *res = NULL;
	struct ksp_trust_whatif wi;
	struct ksp_wsnap *g = NULL;
	uint8_t *lost = NULL;
	int root = -1, r = 0;
	uint32_t *v = NULL;
	uint8_t *h = NULL;

	*count = 0;
	if (k->core)
		return 0;
	if (n_core == 1) {
		root = key_index(p, ksp_trust_policy_core_at(pol, 0));
		if (root < 0)
			return 0; /* the core key is not in the store: no path */
		if (is_neighbour(k, strict)) {
			uint32_t d[2] = { (uint32_t)root, t };
			uint8_t dh = k->direct_hash;

			found++;
			if (!strict && (r = add_path(k, d, &dh, 2)) < 0)
				return r;
			K--;
		}
		if (L < 2 || K < 1)
			goto done;
	}
	q = ask_policy(p, pol, t, root, strict, L, K, NULL, NULL, &r);
	if (r < 0)
		return r;
	if (q == NULL)
		goto done;
	if (root >= 0) {
		r = ksp_wsnap_get(p->store, &g);
		if (r < 0)
			goto out;
		lost = calloc(g->n ? g->n : 1, 1);
		if (lost == NULL) {
			r = -ENOMEM;
			goto out;
		}
		lose_root(p, g, root, lost);
		wi = (struct ksp_trust_whatif){ .lost = lost };
		ksp_trust_policy_set_whatif(q, &wi);
	}
	r = ksp_trust_check(p->store, q, k->fpr, p->at, &res);
	if (r < 0)
		goto out;
	v = malloc(((size_t)L + 2) * sizeof(*v));
	h = malloc((size_t)L + 2);
	if (v == NULL || h == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ksp_trust_result_get_path_count(res); i++) {
		size_t n = take_path(p, res, i, root, strict, (size_t)L, v, h);

		/* (a two-key path from the core key is its direct one, counted) */
		if (n == 0 || (root >= 0 && n == 2))
			continue;
		found++;
		if (!strict && (r = add_path(k, v, h, n)) < 0)
			goto out;
	}
done:
	r = 0;
	*count = found;
	if (!strict) {
		sort_paths(p, k);
		if (root >= 0)
			r = shorten(p, pol, t, root);
	}
out:
	free(v);
	free(h);
	ksp_trust_result_free(res);
	ksp_trust_policy_free(q);
	free(lost);
	return r;
}

/* ---- the audit ------------------------------------------------------------------ */

static int weak_slot(uint8_t hash)
{
	return hash == 1 ? 0 : hash == 2 ? 1 : hash == 3 ? 2 : -1;
}

static int audit(struct ksp_publish *p)
{
	size_t cap = 0;
	int r;

	for (size_t i = 0; i < p->n_keys; i++) {
		const struct pkey *k = &p->keys[i];

		for (size_t j = 0; j < k->n_paths; j++)
			for (size_t h = 0; h + 1 < k->paths[j].n; h++) {
				int s = weak_slot(k->paths[j].hash[h]);
				const char *f = p->keys[k->paths[j].v[h]].fpr;
				size_t w;

				if (s < 0)
					continue;
				for (w = 0; w < p->n_weak && strcmp(p->weak[w].fpr, f) != 0; w++)
					;
				if (w == p->n_weak) {
					if (grow((void **)&p->weak, &cap, p->n_weak + 1, sizeof(*p->weak)) < 0)
						return -ENOMEM;
					memset(&p->weak[w], 0, sizeof(p->weak[w]));
					snprintf(p->weak[w].fpr, sizeof(p->weak[w].fpr), "%s", f);
					p->n_weak++;
				}
				p->weak[w].certs[s]++;
				p->weak[w].paths++;
			}
	}
	if (p->strict == NULL)
		return 0;
	if (ksp_trust_policy_get_core_count(p->strict) == 1) {
		int root = key_index(p, ksp_trust_policy_core_at(p->strict, 0));
		if (root >= 0 && (r = find_neighbours(p, p->strict, (uint32_t)root, true)) < 0)
			return r;
	}
	for (size_t i = 0; i < p->n_keys; i++) {
		int c = 0;

		if (p->keys[i].n_paths == 0)
			continue;
		r = key_paths(p, p->strict, (uint32_t)i, true, &c);
		if (r < 0)
			return r;
		p->keys[i].strict_paths = c;
		if (c == 0) {
			char **no = realloc(p->orphans, (p->n_orphans + 1) * sizeof(*no));
			if (no == NULL)
				return -ENOMEM;
			p->orphans = no;
			if ((p->orphans[p->n_orphans] = strdup(p->keys[i].fpr)) == NULL)
				return -ENOMEM;
			p->n_orphans++;
		}
	}
	return 0;
}

/* ---- into DIR ------------------------------------------------------------------- */

static int add_change(struct ksp_publish *p, int kind, const char *path, int old_paths, int new_paths)
{
	char *c = strdup(path);

	if (c == NULL || grow((void **)&p->changes, &p->cap_changes, p->n_changes + 1, sizeof(*p->changes)) < 0) {
		free(c);
		return -ENOMEM;
	}
	p->changes[p->n_changes++] = (struct change){ kind, c, old_paths, new_paths };
	return 0;
}

static int change_cb(void *opaque, int kind, const char *path, int old_paths, int new_paths)
{
	return add_change(opaque, kind, path, old_paths, new_paths);
}

KSP_EXPORT int ksp_publish_write(struct ksp_publish *p, const char *dir)
{
	struct ksp_store_key_files *q = NULL;
	int r;

	if (p == NULL || dir == NULL || *dir == 0)
		return -EINVAL;
	ksp_clear_error(p->ctx);
	results_free(p);
	r = read_keys(p);
	if (r < 0)
		goto out;
	for (size_t c = 0; c < ksp_trust_policy_get_core_count(p->policy); c++) {
		int i = key_index(p, ksp_trust_policy_core_at(p->policy, c));
		if (i < 0) {
			ksp_set_error(p->ctx, "core key %s is not in the store; load it first (ksp wot load)",
				      ksp_trust_policy_core_at(p->policy, c));
			r = -ENOENT;
			goto out;
		}
		p->keys[i].core = p->keys[i].published = true;
	}
	if (ksp_trust_policy_get_core_count(p->policy) == 1) {
		r = find_neighbours(p, p->policy, (uint32_t)key_index(p, ksp_trust_policy_core_at(p->policy, 0)), false);
		if (r < 0)
			goto out;
	}
	for (size_t i = 0; i < p->n_keys; i++) {
		int c = 0;

		r = key_paths(p, p->policy, (uint32_t)i, false, &c);
		if (r < 0)
			goto out;
		ksp_progress(p->ctx, "finding paths", i + 1, p->n_keys);
		if (p->keys[i].n_paths > 0 || p->keys[i].core) {
			p->keys[i].published = true;
		} else {
			char **pl = realloc(p->pathless, (p->n_pathless + 1) * sizeof(*pl));
			if (pl == NULL) {
				r = -ENOMEM;
				goto out;
			}
			p->pathless = pl;
			if ((pl[p->n_pathless] = strdup(p->keys[i].fpr)) == NULL) {
				r = -ENOMEM;
				goto out;
			}
			p->n_pathless++;
			p->keys[i].published = p->keep;
		}
	}
	r = ksp_store_key_files_new(p->store, &q);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < p->n_keys; i++) {
		const struct pkey *k = &p->keys[i];

		if (!k->published)
			continue;
		p->n_published++;
		r = pub_key_file(p, k, q);
		if (r >= 0 && k->n_paths)
			r = pub_graph_txt(p, k);
		if (r >= 0 && k->n_paths && p->svg)
			r = pub_graph_svg(p, k);
		if (r < 0)
			goto out;
	}
	r = pub_keyring_files(p);
	if (r >= 0)
		r = audit(p);
	if (r >= 0)
		r = pub_write_dir(p->ctx, dir, p->files, p->n_files, change_cb, p);
out:
	ksp_store_key_files_free(q);
	if (r < 0 && !ksp_get_error(p->ctx))
		ksp_set_error(p->ctx, "%s: cannot publish: %s; nothing was published", dir, strerror(-r));
	return r;
}

/* ---- results -------------------------------------------------------------------- */

KSP_EXPORT size_t ksp_publish_get_key_count(const struct ksp_publish *p)
{
	return p ? p->n_published : 0;
}

KSP_EXPORT size_t ksp_publish_get_pathless_count(const struct ksp_publish *p)
{
	return p ? p->n_pathless : 0;
}

KSP_EXPORT const char *ksp_publish_get_pathless(const struct ksp_publish *p, size_t i)
{
	return p && i < p->n_pathless ? p->pathless[i] : NULL;
}

KSP_EXPORT int ksp_publish_get_path_count(const struct ksp_publish *p, const char *fpr)
{
	char norm[65];
	int i;

	if (p == NULL || fpr == NULL || fpr_normalize(fpr, norm) < 0)
		return -EINVAL;
	i = key_index(p, norm);
	return i < 0 ? -ENOENT : (int)p->keys[i].n_paths;
}

KSP_EXPORT size_t ksp_publish_get_change_count(const struct ksp_publish *p)
{
	return p ? p->n_changes : 0;
}

KSP_EXPORT int ksp_publish_get_change(const struct ksp_publish *p, size_t i, const char **path, int *old_paths,
				      int *new_paths)
{
	if (p == NULL || i >= p->n_changes)
		return -EINVAL;
	if (path)
		*path = p->changes[i].path;
	if (old_paths)
		*old_paths = p->changes[i].old_paths;
	if (new_paths)
		*new_paths = p->changes[i].new_paths;
	return p->changes[i].kind;
}

KSP_EXPORT size_t ksp_publish_get_weak_count(const struct ksp_publish *p)
{
	return p ? p->n_weak : 0;
}

KSP_EXPORT const char *ksp_publish_get_weak(const struct ksp_publish *p, size_t i, unsigned int *md5,
					    unsigned int *sha1, unsigned int *ripemd160)
{
	if (p == NULL || i >= p->n_weak)
		return NULL;
	if (md5)
		*md5 = p->weak[i].certs[0];
	if (sha1)
		*sha1 = p->weak[i].certs[1];
	if (ripemd160)
		*ripemd160 = p->weak[i].certs[2];
	return p->weak[i].fpr;
}

KSP_EXPORT size_t ksp_publish_get_orphan_count(const struct ksp_publish *p)
{
	return p ? p->n_orphans : 0;
}

KSP_EXPORT const char *ksp_publish_get_orphan(const struct ksp_publish *p, size_t i)
{
	return p && i < p->n_orphans ? p->orphans[i] : NULL;
}
