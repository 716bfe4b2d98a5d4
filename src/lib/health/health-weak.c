// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * health-weak.c: the weak certifications one signer should renew (ksp
 * health --signer), moved out of health.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/libksp-private.h"
#include "lib/store/store-health.h"
#include "lib/wot/wot-snap.h"
#include "lib/trust/whatif.h"
#include "lib/health/health-private.h"
#include "shared/util.h"

/* ---- weak certifications of one signer ------------------------------------------- */

static int cmp_weak(const void *a, const void *b)
{
	const struct hweak *x = a, *y = b;
	if (x->carries != y->carries)
		return x->carries < y->carries ? 1 : -1;
	return x->v < y->v ? -1 : x->v > y->v;
}

KSP_EXPORT int ksp_health_list_weak(struct ksp_health *h, const char *signer)
{
	const struct ksp_wsnap *g;
	char norm[65];
	uint32_t s;
	int r;

	if (h == NULL || signer == NULL)
		return -EINVAL;
	g = h->g;
	if (fpr_normalize(signer, norm) < 0 || (s = health_vertex_of_fpr(h, norm)) == UINT32_MAX) {
		ksp_set_error(h->ctx, "signer '%.80s' is not a key of the store (give its full fingerprint)", signer);
		return -ENOENT;
	}
	for (size_t i = 0; i < h->n_weak; i++)
		free(h->weak[i].uid);
	free(h->weak);
	h->weak = NULL;
	h->n_weak = 0;
	for (uint32_t j = g->out_off[s]; j < g->out_off[s + 1]; j++) {
		const struct ksp_wsnap_edge *e = &g->edges[j];
		unsigned carries = 0;
		bool strong = false;
		if (!(e->flags & KSP_WSNAP_WEAK) ||
		    !ksp_wsnap_edge_counts(g, e, h->at[0], true, KSP_SHA1_YES, health_min_created(h, h->at[0])))
			continue;
		/* a modern certification on the same key already carries it */
		for (uint32_t k = g->out_off[s]; k < g->out_off[s + 1]; k++)
			strong |= g->edges[k].v == e->v && !(g->edges[k].flags & KSP_WSNAP_WEAK) &&
				  ksp_wsnap_edge_counts(g, &g->edges[k], h->at[0], true, KSP_SHA1_YES,
							health_min_created(h, h->at[0]));
		if (strong)
			continue; /* nothing to re-make */
		/* the witnesses that use the hop s -> v */
		for (size_t i = 0; i < h->n_keys; i++) {
			const uint32_t *w = h->keys[i].wit;
			size_t o = 1;
			for (uint32_t p = 0; w && p < w[0]; p++) {
				uint32_t len = w[o++];
				for (uint32_t q = 0; q + 1 < len; q++)
					carries += w[o + q] == s && w[o + q + 1] == e->v;
				o += len;
			}
		}
		void *nn = realloc(h->weak, (h->n_weak + 1) * sizeof(*h->weak));
		if (nn == NULL)
			return -ENOMEM;
		h->weak = nn;
		struct hweak *wk = &h->weak[h->n_weak++];
		*wk = (struct hweak){ .v = e->v, .uid_id = g->uids[e->uidx].uid_id, .created = e->created,
				      .carries = carries };
		r = ksp_store_health_cert_hash(h->store, wk->uid_id, h->fpr[s], e->created, &wk->hash);
		if (r < 0)
			return r;
		/* the user ID's text: the target's user ID of that id */
		for (uint32_t b = g->bind_off[e->v]; b < g->bind_off[e->v + 1]; b++) {
			const struct ksp_wsnap_bind *bd = &g->binds[b];
			const char *text;
			size_t len;
			if (bd->uid_id != wk->uid_id)
				continue;
			text = ksp_wsnap_bind_text(g, bd, &len);
			wk->uid = malloc(len + 1);
			if (wk->uid == NULL)
				return -ENOMEM;
			if (len)
				memcpy(wk->uid, text, len);
			wk->uid[len] = '\0';
			wk->uid_len = len;
			break;
		}
	}
	qsort(h->weak, h->n_weak, sizeof(*h->weak), cmp_weak);
	return 0;
}

KSP_EXPORT size_t ksp_health_get_weak_count(const struct ksp_health *h)
{
	return h ? h->n_weak : 0;
}

KSP_EXPORT int ksp_health_get_weak(const struct ksp_health *h, size_t i, const char **target, const char **uid,
				   size_t *uid_len, int64_t *created, int *hash_algo, unsigned int *carries)
{
	if (h == NULL || i >= h->n_weak)
		return -EINVAL;
	if (target)
		*target = h->fpr[h->weak[i].v];
	if (uid)
		*uid = h->weak[i].uid;
	if (uid_len)
		*uid_len = h->weak[i].uid_len;
	if (created)
		*created = h->weak[i].created;
	if (hash_algo)
		*hash_algo = h->weak[i].hash;
	if (carries)
		*carries = h->weak[i].carries;
	return 0;
}
