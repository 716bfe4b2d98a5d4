/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * whatif.h: "what if" questions to the trust engine (trust.c), for the
 * health report (src/lib/health/): the same ksp_trust_check() on the same
 * graph snapshot, with some keys lost (not vertices), some keys' expiry
 * extended, and some certifications added.  Internal to libksp.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksp_store;
struct ksp_trust_policy;

/* A certification that does not exist (yet): signer u certifies the user
 * ID uid_id (uids.id; 0 = none in particular) of v; snapshot vertices. */
struct ksp_trust_added {
	uint32_t u, v;
	int64_t uid_id;
};

/* Reachability from the core (ksp_trust_reach_new()): one breadth-first
 * search over what a query would explore, for one policy (with its
 * what-if) at one time on one snapshot. */
struct ksp_trust_in_edge {
	uint32_t u;        /* the signer (vertex) */
	uint32_t reserved;
	int64_t uid_id, created;
};

struct ksp_trust_reach {
	uint16_t *dist; /* per snapshot vertex: certifications from the core, max_depth + 1 = farther */
	uint8_t *why;   /* per snapshot vertex: what it is at that time (trust.c's KEY_*) */
	uint32_t *core_vx; /* the policy's core keys in its order: vertices, UINT32_MAX = not in the store */
	size_t n_core_vx;
	/* the certifications into each vertex that count at that time under
	 * the hash rules and the age limit, in the snapshot's order (CSR,
	 * n + 1 offsets): a backward step reads them in a row instead of one
	 * scattered snapshot edge each; owned or borrowed (own_in) */
	uint32_t *in_off;
	struct ksp_trust_in_edge *in;
	/* and out of each vertex: the signees (for the search here) */
	uint32_t *out_off, *out_v;
	bool own_in;
	bool plain;  /* computed without a what-if's lost or extended keys */
	/* what it was computed for */
	int64_t at, gen, nonce, max_age;
	uint32_t n;
	int max_depth, sha1;
	unsigned min_bits;
	bool md5;
};

struct ksp_trust_whatif {
	const uint8_t *lost;     /* per snapshot vertex, or NULL: 1 = no vertex */
	const uint8_t *extended; /* per snapshot vertex, or NULL: 1 = never expires */
	const struct ksp_trust_added *added;
	size_t n_added;
	/* ksp_trust_reach_new() for this policy with this what-if, or NULL:
	 * a query at its time on its snapshot answers a target farther than
	 * max_depth without exploring (found 0, "no certification path": the
	 * exploration's answer, as no path of at most max_depth exists);
	 * with verdict_only and min_paths 1, a target within reach is trusted
	 * (a path exists, and at K = 1 the engine always finds it) and the
	 * result holds no path; and every query there reads the keys' states
	 * and the core's vertices from it (the same values, without the
	 * look-ups) */
	const struct ksp_trust_reach *reach;
	bool verdict_only;
};

/* The rule of a policy, read-only (core: n_core fingerprints). */
struct ksp_trust_rule {
	int max_depth, min_paths;
	bool per_uid, core_party;
	bool md5; /* MD5 certifications count (hash-rules.h) */
	int sha1; /* enum ksp_sha1_rule */
	unsigned min_bits;
	int64_t max_age;
	const char (*core)[65];
	size_t n_core;
};

void ksp_trust_policy_get_rule(const struct ksp_trust_policy *p, struct ksp_trust_rule *rule);
/* A copy of @p (its own core list); NULL on ENOMEM. */
struct ksp_trust_policy *ksp_trust_policy_copy(const struct ksp_trust_policy *p);
/* Queries with this policy answer the question @w (owned by the caller,
 * NULL: none). */
void ksp_trust_policy_set_whatif(struct ksp_trust_policy *p, const struct ksp_trust_whatif *w);
/* Queries with this policy leave ksp_trust_result_get_dropped() at 0: its
 * count reads every edge of the graph, per query (the health report, which
 * never reads it, asks 10^5 queries on 10^6 edges). */
void ksp_trust_policy_set_no_dropped(struct ksp_trust_policy *p, bool no);

/* The reachability of @pol (its what-if too) at @at on the store's
 * snapshot; -E2BIG when the snapshot has more vertices than a query may
 * explore (then a query may give up where this would answer). */
/* @like (or NULL): a reachability whose certification lists are borrowed
 * when they are the same (same time, hash rules, age limit, snapshot), and
 * whose keys' states are copied when it is plain (then only the lost and
 * extended keys are looked at again); it must outlive the new one. */
int ksp_trust_reach_new(struct ksp_store *store, const struct ksp_trust_policy *pol, int64_t at,
			const struct ksp_trust_reach *like, struct ksp_trust_reach **ret);
struct ksp_trust_reach *ksp_trust_reach_free(struct ksp_trust_reach *r);
