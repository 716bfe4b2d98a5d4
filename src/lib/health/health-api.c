// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * health-api.c: the trust health report (ksp_health_new()) and what it
 * says, read by the public getters; the parts are in health.c (horizons,
 * single points of failure, party pairs, weak certifications) and
 * health-repair.c (the repair plan).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/health/health-private.h"
#include "lib/store/store.h"

/* ---- public ------------------------------------------------------------------------ */

KSP_EXPORT struct ksp_health *ksp_health_free(struct ksp_health *h)
{
	if (h == NULL)
		return NULL;
	for (size_t i = 0; i < h->n_keys; i++) {
		for (unsigned hz = 0; hz < KSP_HEALTH_HORIZONS; hz++) {
			free(h->keys[i].msg[hz]);
			free(h->keys[i].br[hz]);
		}
		free(h->keys[i].wit);
	}
	for (unsigned hz = 0; hz < KSP_HEALTH_HORIZONS; hz++)
		if (hz == 0 || h->pol[hz] != h->pol[0])
			ksp_trust_policy_free(h->pol[hz]);
	free(h->keys);
	free(h->key_of);
	free(h->fpr);
	free(h->by_fpr);
	free(h->is_core);
	free(h->core);
	free(h->repair);
	free(h->extend);
	free(h->spof);
	free(h->carrier);
	free(h->pairs);
	free(h->pair_dist);
	for (size_t i = 0; i < h->n_weak; i++)
		free(h->weak[i].uid);
	free(h->weak);
	ksp_store_unref(h->store);
	free(h);
	return NULL;
}

KSP_EXPORT int ksp_health_new(struct ksp_store *store, const struct ksp_trust_policy *policy, int64_t at,
			      unsigned int repair_horizon, unsigned int flags, struct ksp_health **ret)
{
	struct ksp_health *h;
	int64_t old_cache;
	int r;

	if (store == NULL || policy == NULL || ret == NULL || repair_horizon >= KSP_HEALTH_HORIZONS ||
	    repair_horizon == KSP_HEALTH_NOW)
		return -EINVAL;
	r = ksp_trust_policy_check_whatif(policy, "the health report's what-if reachability");
	if (r < 0)
		return r;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return -ENOMEM;
	h->ctx = ksp_store_get_ctx(store);
	h->store = ksp_store_ref(store);
	h->repair_horizon = repair_horizon;
	ksp_clear_error(h->ctx);
	ksp_trust_policy_get_rule(policy, &h->rule);
	r = -ENOMEM;
	for (unsigned hz = 0; hz < KSP_HEALTH_HORIZONS; hz++) {
		h->at[hz] = at + horizon_days[hz] * DAY;
		if (hz == 0 || hz == KSP_HEALTH_NO_SHA1) {
			h->pol[hz] = ksp_trust_policy_copy(policy);
			if (h->pol[hz] == NULL)
				goto fail;
		} else {
			h->pol[hz] = h->pol[0];
		}
	}
	ksp_trust_policy_set_sha1(h->pol[KSP_HEALTH_NO_SHA1], false);
	/* the copies made later (what-if questions) inherit it */
	ksp_trust_policy_set_no_dropped(h->pol[0], true);
	ksp_trust_policy_set_no_dropped(h->pol[KSP_HEALTH_NO_SHA1], true);
	r = ksp_wsnap_get(store, &h->g);
	if (r < 0)
		goto fail;
	r = health_load(h);
	if (r < 0)
		goto fail;
	if (h->n_core == 0 && h->rule.n_core == 0 && !h->rule.core_party) {
		ksp_set_error(h->ctx, "no core keys given: name them (--core-fpr, --core FILE, --core-party or 'core =' in a policy)");
		r = -EINVAL;
		goto fail;
	}
	h->keys = calloc(h->g->n ? h->g->n : 1, sizeof(*h->keys));
	h->key_of = malloc((h->g->n ? h->g->n : 1) * sizeof(*h->key_of));
	if (h->keys == NULL || h->key_of == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	for (uint32_t v = 0; v < h->g->n; v++) {
		h->key_of[v] = UINT32_MAX;
		if (h->is_core[v])
			continue;
		h->key_of[v] = (uint32_t)h->n_keys;
		h->keys[h->n_keys++].vx = v;
	}
	ksp_progress(h->ctx, "health: horizons", 0, KSP_HEALTH_HORIZONS);
	old_cache = ksp_store_cache_grow(store, KSP_STORE_SCAN_CACHE_KB); /* as the threads' (worker_main()) */
	r = health_horizons(h);
	if (r == 0 && !(flags & KSP_HEALTH_NO_SPOF)) {
		ksp_progress(h->ctx, "health: single points of failure", 0, 0);
		r = health_spof(h);
	}
	if (r == 0 && !(flags & KSP_HEALTH_NO_REPAIR)) {
		ksp_progress(h->ctx, "health: repair plan", 0, 0);
		r = health_repair(h);
	}
	if (r == 0 && (flags & KSP_HEALTH_PARTY)) {
		ksp_progress(h->ctx, "health: party pairs", 0, 0);
		r = health_party_pairs(h);
	}
	ksp_store_cache_restore(store, old_cache);
	if (r < 0)
		goto fail;
	*ret = h;
	return 0;
fail:
	if (!ksp_get_error(h->ctx))
		ksp_set_error(h->ctx, "%s: cannot compute the trust health: %s", ksp_store_get_path(store),
			      strerror(-r));
	ksp_health_free(h);
	return r;
}

KSP_EXPORT const char *ksp_health_get_horizon(const struct ksp_health *h, unsigned int horizon, int64_t *at)
{
	if (h == NULL || horizon >= KSP_HEALTH_HORIZONS)
		return NULL;
	if (at)
		*at = h->at[horizon];
	return horizon_labels[horizon];
}

KSP_EXPORT size_t ksp_health_get_key_count(const struct ksp_health *h)
{
	return h ? h->n_keys : 0;
}

KSP_EXPORT const char *ksp_health_get_key(const struct ksp_health *h, size_t key)
{
	return h && key < h->n_keys ? h->fpr[h->keys[key].vx] : NULL;
}

KSP_EXPORT int ksp_health_get_paths(const struct ksp_health *h, size_t key, unsigned int horizon)
{
	if (h == NULL || key >= h->n_keys || horizon >= KSP_HEALTH_HORIZONS)
		return -EINVAL;
	return h->keys[key].paths[horizon];
}

KSP_EXPORT bool ksp_health_is_below(const struct ksp_health *h, size_t key, unsigned int horizon)
{
	return h && key < h->n_keys && horizon < KSP_HEALTH_HORIZONS && (h->keys[key].below & (1u << horizon));
}

KSP_EXPORT size_t ksp_health_get_below_count(const struct ksp_health *h, unsigned int horizon)
{
	return h && horizon < KSP_HEALTH_HORIZONS ? h->n_below[horizon] : 0;
}

KSP_EXPORT const char *ksp_health_get_message(const struct ksp_health *h, size_t key, unsigned int horizon)
{
	if (h == NULL || key >= h->n_keys || horizon >= KSP_HEALTH_HORIZONS)
		return NULL;
	return h->keys[key].msg[horizon];
}

KSP_EXPORT size_t ksp_health_get_break_count(const struct ksp_health *h, size_t key, unsigned int horizon)
{
	if (h == NULL || key >= h->n_keys || horizon >= KSP_HEALTH_HORIZONS)
		return 0;
	return h->keys[key].n_br[horizon];
}

KSP_EXPORT int ksp_health_get_break(const struct ksp_health *h, size_t key, unsigned int horizon, size_t i,
				    int *kind, const char **signer, const char **signee, int64_t *when, int *path)
{
	const struct hbreak *b;

	if (h == NULL || key >= h->n_keys || horizon >= KSP_HEALTH_HORIZONS || i >= h->keys[key].n_br[horizon])
		return -EINVAL;
	b = &h->keys[key].br[horizon][i];
	if (kind)
		*kind = b->kind;
	if (signer)
		*signer = h->fpr[b->a];
	if (signee)
		*signee = h->fpr[b->b];
	if (when)
		*when = b->when;
	if (path)
		*path = b->path;
	return 0;
}

/* The user ID (raw bytes) a break's certification is on, or NULL. */
KSP_EXPORT const char *ksp_health_get_break_uid(const struct ksp_health *h, size_t key, unsigned int horizon, size_t i,
						size_t *len)
{
	const struct ksp_wsnap *g;
	const struct hbreak *b;

	if (h == NULL || key >= h->n_keys || horizon >= KSP_HEALTH_HORIZONS || i >= h->keys[key].n_br[horizon])
		return NULL;
	g = h->g;
	b = &h->keys[key].br[horizon][i];
	if (b->uidx == UINT32_MAX || b->b >= g->n)
		return NULL;
	for (uint32_t j = g->bind_off[b->b]; j < g->bind_off[b->b + 1]; j++)
		if (g->binds[j].uidx == b->uidx) {
			if (len)
				*len = g->binds[j].text_len;
			return g->strings + g->binds[j].text_off;
		}
	return NULL;
}

KSP_EXPORT int ksp_health_get_repair_bound(const struct ksp_health *h, size_t *lower, bool *minimal)
{
	if (h == NULL)
		return -EINVAL;
	if (lower)
		*lower = h->repair_lower;
	if (minimal)
		*minimal = h->repair_exact;
	return 0;
}

KSP_EXPORT int ksp_health_get_repair_detail(const struct ksp_health *h, size_t i, unsigned int *more, bool *renewal)
{
	if (h == NULL || i >= h->n_repair)
		return -EINVAL;
	if (more)
		*more = h->repair[i].more;
	if (renewal)
		*renewal = h->repair[i].renew;
	return 0;
}

KSP_EXPORT size_t ksp_health_get_repair_count(const struct ksp_health *h)
{
	return h ? h->n_repair : 0;
}

KSP_EXPORT int ksp_health_get_repair(const struct ksp_health *h, size_t i, const char **signer, const char **target,
				     unsigned int *repairs)
{
	if (h == NULL || i >= h->n_repair)
		return -EINVAL;
	if (signer)
		*signer = h->fpr[h->repair[i].a];
	if (target)
		*target = h->fpr[h->repair[i].b];
	if (repairs)
		*repairs = h->repair[i].n;
	return 0;
}

KSP_EXPORT size_t ksp_health_get_unrepaired_count(const struct ksp_health *h)
{
	return h ? h->n_unrepaired : 0;
}

KSP_EXPORT size_t ksp_health_get_extend_count(const struct ksp_health *h)
{
	return h ? h->n_extend : 0;
}

KSP_EXPORT int ksp_health_get_extend(const struct ksp_health *h, size_t i, const char **fpr, int64_t *expires,
				     unsigned int *repairs)
{
	if (h == NULL || i >= h->n_extend)
		return -EINVAL;
	if (fpr)
		*fpr = h->fpr[h->extend[i].a];
	if (expires)
		*expires = h->extend[i].when;
	if (repairs)
		*repairs = h->extend[i].n;
	return 0;
}

KSP_EXPORT size_t ksp_health_get_spof_count(const struct ksp_health *h)
{
	return h ? h->n_spof : 0;
}

KSP_EXPORT int ksp_health_get_spof(const struct ksp_health *h, size_t i, const char **fpr, unsigned int *cuts,
				   unsigned int *carries)
{
	if (h == NULL || i >= h->n_spof)
		return -EINVAL;
	if (fpr)
		*fpr = h->fpr[h->spof[i].vx];
	if (cuts)
		*cuts = h->spof[i].cuts;
	if (carries)
		*carries = h->spof[i].carries;
	return 0;
}

KSP_EXPORT bool ksp_health_spof_is_exact(const struct ksp_health *h)
{
	return h && h->spof_exact;
}

KSP_EXPORT size_t ksp_health_get_carrier_count(const struct ksp_health *h)
{
	return h ? h->n_carrier : 0;
}

KSP_EXPORT int ksp_health_get_carrier(const struct ksp_health *h, size_t i, const char **fpr, unsigned int *paths)
{
	if (h == NULL || i >= h->n_carrier)
		return -EINVAL;
	if (fpr)
		*fpr = h->fpr[h->carrier[i].vx];
	if (paths)
		*paths = h->carrier[i].carries;
	return 0;
}

KSP_EXPORT size_t ksp_health_get_pair_count(const struct ksp_health *h)
{
	return h ? h->n_pairs : 0;
}

KSP_EXPORT int ksp_health_get_pair(const struct ksp_health *h, size_t i, const char **a, const char **b,
				   unsigned int *keys)
{
	if (h == NULL || i >= h->n_pairs)
		return -EINVAL;
	if (a)
		*a = h->fpr[h->pairs[i].a];
	if (b)
		*b = h->fpr[h->pairs[i].b];
	if (keys)
		*keys = h->pairs[i].n;
	return 0;
}

KSP_EXPORT int ksp_health_get_pair_by_distance(const struct ksp_health *h, size_t i, const char **a, const char **b,
					       unsigned int *hops, unsigned int *keys)
{
	if (h == NULL || h->pair_dist == NULL || i >= h->n_pairs)
		return -EINVAL;
	if (a)
		*a = h->fpr[h->pair_dist[i].a];
	if (b)
		*b = h->fpr[h->pair_dist[i].b];
	if (hops)
		*hops = h->pair_dist[i].hops;
	if (keys)
		*keys = h->pair_dist[i].keys;
	return 0;
}

KSP_EXPORT uint64_t ksp_health_get_queries(const struct ksp_health *h)
{
	return h ? h->queries : 0;
}


KSP_EXPORT size_t ksp_health_get_core_count(const struct ksp_health *h)
{
	return h ? h->n_core : 0;
}

KSP_EXPORT const char *ksp_health_get_core(const struct ksp_health *h, size_t i)
{
	return h && i < h->n_core ? h->fpr[h->core[i]] : NULL;
}
