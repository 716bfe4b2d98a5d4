// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * health-bound.c: the engine's answer for a key with one vertex-disjoint
 * path from the core, proven without asking the engine (issue 38: at
 * K = 2 these keys were most of the report's time, each exploring to
 * depth L and running the max-flow several times).
 *
 * At K >= 2, key-level paths, no what-if certification added: take a key
 * t that is a valid target within reach (0 < dist(t) <= L in the
 * reachability its query carries, whatif.h).  When every certification
 * of t that counts and comes from a signer within L - 1 of the core comes
 * from one signer u, or when the policy has one usable core key, every
 * core -> t path of at most L enters t through u (starts at that key):
 * at most one vertex-disjoint path.  The engine's max-flow is then 1 (a
 * shortest path, dist(t) <= L, lies in its relevant subgraph), below K:
 * not trusted, found = 1, "only 1 vertex-disjoint path ...": on a
 * relevant subgraph of more than 4,096 keys that is the flow's one path
 * (a shortest one, within L); on a smaller one its exhaustive search,
 * capped at the flow's 1, stops at the first path it finds.  The verdict
 * (not trusted) is exact in every case.  The message could differ in one
 * case only: that search running out of its 2,000,000 steps before the
 * first path (it would say so); never on the benchmark stores, where
 * bench/health-compare.sh compares every answer with the engine's.
 * Any other key: 0, and the engine is asked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/health/health-private.h"

int health_bound_one(const struct ksp_trust_reach *rh, uint32_t t, unsigned L)
{
	uint32_t first = UINT32_MAX;
	unsigned cores = 0;

	if (t >= rh->n || rh->why[t] != 0 /* KEY_OK */ || rh->dist[t] > L || rh->dist[t] == 0)
		return 0;
	/* the root side: one usable core key */
	for (size_t i = 0; i < rh->n_core_vx && cores < 2; i++) {
		uint32_t c = rh->core_vx[i];
		if (c < rh->n && rh->dist[c] == 0 && c != first) {
			bool dup = false;
			for (size_t k = 0; k < i; k++)
				dup |= rh->core_vx[k] == c;
			if (!dup) {
				cores++;
				first = c;
			}
		}
	}
	if (cores < 2)
		return 1;
	/* the target's side: one signer within L - 1 of the core */
	first = UINT32_MAX;
	for (uint32_t j = rh->in_off[t]; j < rh->in_off[t + 1]; j++) {
		uint32_t u = rh->in[j].u;
		if (u == t || u >= rh->n || rh->dist[u] + 1u > L || u == first)
			continue;
		if (first != UINT32_MAX)
			return 0;
		first = u;
	}
	return 1;
}

/* The engine's message for found = 1 below K (trust.c, decide()). */
char *health_bound_msg(int L, int K)
{
	char buf[200];

	snprintf(buf, sizeof(buf), "not trusted: only 1 vertex-disjoint path of at most %d hop%s, %d needed", L,
		 L == 1 ? "" : "s", K);
	return strdup(buf);
}
