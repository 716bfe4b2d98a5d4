/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* trust-private.h: the policy object's fields, shared by policy.c (the
 * object and its parser) and trust.c (the engine, which reads them).
 * Internal to trust/.  Also the engine's types that its parts share: the
 * local graph (trust.c), the disjoint paths (trust-paths.c) and the
 * reachability (reach.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/libksp-private.h"
#include "lib/wot/wot-snap.h"
#include "lib/trust/model.h"

struct ksp_trust_policy {
	struct ksp_ctx *ctx;
	char (*core)[65];
	size_t n_core, cap_core;
	bool core_party;
	int max_depth, min_paths;
	bool per_uid;
	bool md5;           /* MD5 certifications count (hash-rules.h) */
	int sha1;           /* enum ksp_sha1_rule */
	unsigned min_bits;  /* RSA, DSA, ElGamal signer keys below it do not count */
	int64_t max_age;    /* seconds, 0 = any age */
	const struct ksp_trust_whatif *whatif; /* health report's questions (whatif.h) */
	bool at_signature;  /* trust_at = signature: judge a signer when it signed (ksp-gpg) */
	bool no_dropped;    /* skip the dropped counts (whatif.h: the health report) */
	int model;          /* enum ksp_trust_model: what 'ksp trust' asks */
	int sq_amount;      /* the Sequoia model's target amount */
	bool sq_network;    /* ... its certification-network mode */
	void *mopts[KSP_TRUST_MODELS]; /* each model's own settings (model.h) */
};

#define SEARCH_BUDGET 2000000u
#define MAX_EXPLORE 2000000u /* vertices; beyond it the query gives up */

struct tedge {
	uint32_t u, v;
	int64_t uid_id;
	int64_t created;
};

struct tnode {
	int64_t key_id;   /* the snapshot's vertex */
	uint32_t df, db;  /* exploration depths, UINT32_MAX unknown */
	uint8_t state;    /* 0 unchecked, 1 valid, 2 not a vertex */
	uint8_t why;      /* for the target: KSP_TRUST_TARGET_* */
	bool fexp, bexp;  /* expanded forward / backward */
};

struct explore {
	struct ksp_ctx *ctx;
	const struct ksp_trust_policy *pol;
	int64_t at;
	struct ksp_wsnap *g;
	struct tnode *nodes;
	uint32_t n, cap;
	struct tedge *edges;
	size_t m, cap_e;
	/* a binding question: the paths' last certifications on one of these
	 * user IDs (uids.id) of the target */
	const int64_t *only_uids;
	size_t n_only;
	/* the what-if's reachability, when it holds for this query */
	const struct ksp_trust_reach *reach;
};

enum {
	KEY_OK = 0,
	KEY_UNKNOWN = 1,
	KEY_REVOKED = 2,
	KEY_EXPIRED = 3,
	KEY_FUTURE = 4,
	KEY_WEAK = 5,
	KEY_SOFT_REVOKED = 6, /* retired or superseded before the reference time */
};

struct sub {
	uint32_t n;           /* local vertices; t = the target */
	uint32_t t;
	uint32_t *off, *adj;  /* out-adjacency (CSR) */
	uint32_t *eid;        /* edge index per adjacency entry (into explore edges) */
	bool *is_core;
	uint32_t *core;       /* core vertices, ascending */
	uint32_t n_core;
	uint32_t L, K;
};

struct search {
	const struct sub *s;
	bool *used;
	uint32_t *dist;   /* scratch: reverse BFS distances to t */
	uint32_t *queue;
	uint32_t **paths; /* K paths being built */
	uint32_t *lens;
	uint32_t **best;  /* the most paths found so far */
	uint32_t *best_lens;
	uint32_t n_best;
	uint64_t steps;
	bool exhausted;
	uint32_t *rin_off, *rin; /* reverse adjacency */
	uint32_t cap;     /* no more disjoint paths exist (max-flow, at most K) */
};

/* trust.c: what snapshot vertex @vx is at @at under @pol: KEY_* */
uint8_t ksp_trust_vertex_why(const struct ksp_wsnap *g, const struct ksp_trust_policy *pol, int64_t at, uint64_t vx);
/* trust.c: the store's participants added to @extra's core */
int ksp_trust_core_from_party(struct ksp_store *store, struct ksp_trust_policy *extra);
/* trust-paths.c: the max-flow over @s (its paths), and the exhaustive
 * search for disjoint length-bounded paths */
int ksp_trust_max_flow(const struct sub *s, uint32_t *ret_flow, uint32_t ***ret_paths, uint32_t **ret_lens);
bool ksp_trust_search_paths(struct search *x, uint32_t k, uint32_t min_core);
/* binding.c: is user ID @u (@n bytes) the one asked, @uid or one holding
 * the address @email? */
bool ksp_trust_uid_matches(const void *u, size_t n, const void *uid, size_t uid_len, const char *email);
/* trust-paths.c: exact distances on the explored graph, and the
 * exhaustive search set up, run and freed */
int ksp_trust_distances(const struct explore *e, uint32_t target, const uint32_t *core_nodes, uint32_t n_core_nodes,
			int64_t uid_filter, uint32_t *df, uint32_t *db, uint32_t *queue);
int ksp_trust_search_run(struct search *x, const struct sub *s, uint32_t fval, uint32_t K, uint32_t L);
void ksp_trust_search_done(struct search *x, uint32_t K);
