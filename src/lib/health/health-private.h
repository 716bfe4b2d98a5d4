/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * health-private.h: what the parts of the trust health report share
 * (health.c: horizons, single points of failure, party pairs, weak
 * certifications; health-repair.c: the repair plan).  Internal to libksp.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/libksp-private.h"
#include "lib/wot/wot-snap.h"
#include "lib/trust/whatif.h"

#define DAY 86400
#define SPOF_TOP 10
#define SPOF_BATCH 16
#define MAX_SIGNERS 6

static const char *const horizon_labels[KSP_HEALTH_HORIZONS] = { "now", "+30d", "+90d", "+365d", "no-sha1" };
static const int64_t horizon_days[KSP_HEALTH_HORIZONS] = { 0, 30, 90, 365, 0 };

struct hbreak {
	int kind;
	uint32_t a, b; /* key (a), or certification a -> b */
	int64_t when;
	int path;
	uint32_t uidx; /* a certification's user ID (into the snapshot's uids), UINT32_MAX */
};

struct hkey {
	uint32_t vx;
	int8_t paths[KSP_HEALTH_HORIZONS];
	uint8_t below;       /* bit per horizon */
	char *msg[KSP_HEALTH_HORIZONS];
	uint32_t *wit;       /* witness now: [n_paths, len, v..., len, v...] */
	struct hbreak *br[KSP_HEALTH_HORIZONS];
	uint32_t n_br[KSP_HEALTH_HORIZONS];
};

struct hrepair {
	uint32_t a, b;
	unsigned n;
	int64_t when;
	unsigned more; /* repair plan: keys that gain a path but stay below K (K > 1) */
	bool renew;    /* repair plan: a has a certification of b still valid now */
};

struct hpair_dist {
	uint32_t a, b;
	unsigned hops, keys;
};

struct hspof {
	uint32_t vx;
	unsigned cuts, carries;
};

struct hweak {
	uint32_t v;
	int64_t uid_id, created;
	char *uid;
	size_t uid_len;
	int hash;
	unsigned carries;
};

struct ksp_health {
	struct ksp_ctx *ctx;
	struct ksp_store *store;
	struct ksp_wsnap *g;
	struct ksp_trust_rule rule;
	struct ksp_trust_policy *pol[KSP_HEALTH_HORIZONS]; /* no-sha1: its own copy */
	int64_t at[KSP_HEALTH_HORIZONS];
	unsigned repair_horizon;
	char (*fpr)[65];     /* per vertex */
	uint32_t *by_fpr;    /* vertices sorted by fingerprint */
	uint8_t *is_core;
	uint32_t *core;
	size_t n_core;
	struct hkey *keys;
	size_t n_keys;
	uint32_t *key_of;    /* vertex -> index into keys, UINT32_MAX */
	size_t n_below[KSP_HEALTH_HORIZONS];
	struct hrepair *repair, *extend;
	size_t n_repair, n_extend, n_unrepaired;
	struct hspof *spof, *carrier;
	size_t n_spof, n_carrier;
	bool spof_exact;
	size_t repair_lower;  /* no plan repairs the same keys with fewer */
	bool repair_exact;    /* the plan has the fewest certifications */
	struct hrepair *pairs; /* a, b participants, n keys brought to K */
	size_t n_pairs;
	struct hpair_dist *pair_dist; /* the same pairs by the distances they shorten */
	struct hweak *weak;
	size_t n_weak;
	uint64_t queries;
};

struct hjob {
	uint32_t vx;
	const struct ksp_trust_policy *pol;
	int64_t at;
	bool want_paths, want_msg;
	/* the query's reachability (whatif.h) when health-bound.c may answer
	 * it first: K >= 2, key-level paths, no certifications added */
	const struct ksp_trust_reach *bound;
	/* out */
	bool trusted;
	int found;
	char *msg;
	uint32_t *wit;
};

/* ---- shared by the parts (health.c) ---- */

/* Run the engine's queries (ksp_get_threads() threads); counts them. */
int health_run_jobs(struct ksp_health *h, struct hjob *jobs, size_t n);
/* Is key v valid (created, not revoked, not expired) at @at? */
bool health_node_ok(const struct ksp_health *h, uint32_t v, int64_t at);
/* The oldest certification the policy's age limit keeps at @at. */
int64_t health_min_created(const struct ksp_health *h, int64_t at);
/* Does a certification a -> b count at horizon hz (on user ID uidx, or
 * any when uidx is UINT32_MAX)? */
bool health_hop_ok(const struct ksp_health *h, uint32_t a, uint32_t b, unsigned hz, uint32_t uidx);
/* Is x on the witness w (its last keys too when count_last)? */
bool health_in_witness(const uint32_t *w, uint32_t x, bool count_last);
/* Append to *list the what-if certifications of t by s (one per user ID
 * of t under the per-uid rule, else one on none in particular). */
int health_added_for(const struct ksp_health *h, uint32_t s, uint32_t t, struct ksp_trust_added **list, size_t *n);
/* The reachability for queries with @pol at @at, or NULL (whatif.h). */
int health_reach_for(struct ksp_health *h, struct ksp_trust_policy *pol, int64_t at,
		     const struct ksp_trust_reach *like, struct ksp_trust_reach **ret);
uint32_t health_vertex_of_fpr(const struct ksp_health *h, const char *fpr);

/* The fingerprints of the snapshot's vertices and the core keys. */
int health_load(struct ksp_health *h);
/* Every key at every horizon (its witness now, its breaks later). */
int health_horizons(struct ksp_health *h);
/* The single points of failure and the keys that carry most paths. */
int health_spof(struct ksp_health *h);
/* KSP_HEALTH_PARTY: the ranked pairs of participants. */
int health_party_pairs(struct ksp_health *h);

/* ---- health-bound.c ---- */

/* 1 when key t has exactly one vertex-disjoint path of at most L from the
 * core under @rh and the engine's answer is found = 1 (proven: see
 * health-bound.c), 0 when the engine must be asked, or -ENOMEM. */
int health_bound_one(const struct ksp_trust_reach *rh, uint32_t t, unsigned L);
/* May health_bound_one() answer this report's plain questions (K >= 2,
 * key-level paths)? */
static inline bool health_bound_ok(const struct ksp_health *h)
{
	return h->rule.min_paths >= 2 && !h->rule.per_uid;
}
/* The engine's message for that answer (malloc'd), NULL on ENOMEM. */
char *health_bound_msg(int L, int K);

/* ---- health-repair.c ---- */

/* The repair plan for h->repair_horizon: h->extend, h->repair,
 * h->n_unrepaired, h->repair_lower, h->repair_exact. */
int health_repair(struct ksp_health *h);
