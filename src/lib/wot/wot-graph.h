/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wot-graph: the in-memory web-of-trust graph engine.
 *
 * Vertices are uint32_t ids 0..n-1, edges are directed signer -> signee,
 * stored as CSR in both directions (out-edges and in-edges), each adjacency
 * list sorted ascending, deduplicated, without self-loops.
 *
 * Internal to libksp: not exported.  Errors are negative errno values.
 * A graph is immutable after ksp_wgraph_new(); every function taking a
 * const graph may be called from several threads at once.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Histogram size of ksp_wgraph_msd() is KSP_WGRAPH_MAX_DIST + 1: bucket d
 * counts the ordered pairs at distance d (bucket 0 is always 0); the last
 * bucket, KSP_WGRAPH_MAX_DIST, counts every pair at distance >= it. */
#define KSP_WGRAPH_MAX_DIST 255u

/* Unreachable, in ksp_wgraph_bfs() distances; "no parent" for parents. */
#define KSP_WGRAPH_NONE UINT32_MAX

struct ksp_wgraph;

/* Build a graph of n vertices from m edges src[i] -> dst[i].  Duplicate
 * edges are merged and self-loops dropped.  -EINVAL if an endpoint is >= n
 * or n == UINT32_MAX (reserved as "none"); -ENOMEM. */
int ksp_wgraph_new(uint32_t n, const uint32_t *src, const uint32_t *dst, size_t m,
		   struct ksp_wgraph **ret);
void ksp_wgraph_free(struct ksp_wgraph *g);

uint32_t ksp_wgraph_n(const struct ksp_wgraph *g);
/* Number of distinct edges (after deduplication and self-loop removal). */
size_t ksp_wgraph_m(const struct ksp_wgraph *g);
/* Degrees; 0 for v >= n. */
uint32_t ksp_wgraph_out_degree(const struct ksp_wgraph *g, uint32_t v);
uint32_t ksp_wgraph_in_degree(const struct ksp_wgraph *g, uint32_t v);
/* Sorted neighbour lists: *ret points into the graph; returns the degree
 * (0 and *ret = NULL for v >= n). */
uint32_t ksp_wgraph_out_neighbors(const struct ksp_wgraph *g, uint32_t v, const uint32_t **ret);
uint32_t ksp_wgraph_in_neighbors(const struct ksp_wgraph *g, uint32_t v, const uint32_t **ret);
/* Edges with both ends in the set members[0..count-1] (ids < n, distinct). */
int ksp_wgraph_count_edges_within(const struct ksp_wgraph *g, const uint32_t *members,
				  uint32_t count, size_t *ret);

/* Strongly connected components (iterative Tarjan, no recursion).
 * comp[v] (n entries) gets the component of v, numbered 0..ncomp-1 in the
 * order Tarjan completes them (a reverse topological order of the
 * condensation: an edge between components goes from a higher to a lower
 * number).  Isolated vertices are components of their own. */
int ksp_wgraph_scc(const struct ksp_wgraph *g, uint32_t *comp, uint32_t *ret_ncomp);

/* The strong set: the largest SCC, as a sorted malloc()ed array of vertex
 * ids (caller frees).  Ties between components of equal size are broken in
 * favour of the component that contains the smallest vertex id.  For n == 0
 * *ret_members = NULL and *ret_count = 0. */
int ksp_wgraph_strong_set(const struct ksp_wgraph *g, uint32_t **ret_members, uint32_t *ret_count);

/* Mean shortest distance.  S = members[0..count-1] (distinct ids < n).  For
 * each k in S: ret_sums[i] (members order, k = members[i]) = sum over
 * j in S, j != k of dist(j, k), the directed shortest path length j -> k
 * using only vertices of S.  MSD(k) = sum / (count - 1); the strong-set MSD
 * is (sum of all sums) / (count * (count - 1)).  ret_hist (may be NULL; else
 * KSP_WGRAPH_MAX_DIST + 1 entries, overwritten) gets the distance histogram
 * of the count * (count - 1) ordered pairs.  ret_sums may be NULL too.
 *
 * Bit-parallel BFS (wot-msd.c): 512 sources per batch (a 64-byte row of bits
 * per vertex), S relabelled by out-degree for locality, a member whose one
 * out-edge in S goes to p counted with p's bit (no search of its own);
 * each level pushes the frontier
 * along out-edges, or pulls it over in-edges when the frontier's out-edges
 * outnumber a quarter of the in-edges of the vertices some source has not
 * reached yet.  Per-target sums accumulated exactly in uint64.  nthreads
 * threads (0 means 1) take batches from a shared counter, each with its own
 * buffers (3 * 64 bytes a member) and sums.
 * -EINVAL if S is not strongly connected (within S), if count == 0, or an
 * id is out of range or repeated; -ENOMEM; or a pthread error. */
int ksp_wgraph_msd(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count,
		   unsigned nthreads, uint64_t *ret_sums, uint64_t *ret_hist);
/* The same with the direction forced, for tests: KSP_WGRAPH_MSD_PUSH (every
 * level pushes) or KSP_WGRAPH_MSD_PULL (every level pulls); 0 chooses.
 * KSP_WGRAPH_MSD_BFS_ORDER relabels S in BFS order instead (for tests and
 * msd-bench: the answers do not depend on the order). */
#define KSP_WGRAPH_MSD_PUSH 1u
#define KSP_WGRAPH_MSD_PULL 2u
#define KSP_WGRAPH_MSD_BFS_ORDER 4u
/* KSP_WGRAPH_MSD_ALL_SOURCES: a search from every member, also from those
 * whose one out-edge makes their distances their neighbour's plus one
 * (wot-msd.c; for tests and msd-bench). */
#define KSP_WGRAPH_MSD_ALL_SOURCES 8u
/* KSP_WGRAPH_MSD_PORTABLE: the copy of the search built for x86-64's
 * baseline, also where the CPU has POPCNT (wot-msd.c; for tests). */
#define KSP_WGRAPH_MSD_PORTABLE 16u
int ksp_wgraph_msd_ex(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count,
		      unsigned nthreads, unsigned flags, uint64_t *ret_sums, uint64_t *ret_hist);

/* Breadth-first search from src over out-edges (reverse: over in-edges,
 * i.e. distances to src).  dist (n entries): edges count, KSP_WGRAPH_NONE
 * when unreachable.  parent (n entries or NULL): predecessor on one shortest
 * path (the successor towards src when reverse), KSP_WGRAPH_NONE for src and
 * unreachable vertices.  Ties: the neighbour lists are sorted, so the parent
 * is the first vertex, in BFS order, that reached it. */
int ksp_wgraph_bfs(const struct ksp_wgraph *g, uint32_t src, bool reverse, uint32_t *dist,
		   uint32_t *parent);

/* Helpers of wot-graph.c, exposed only for its own use and wot-msd.c's. */
/* map[v] = index of v in members, KSP_WGRAPH_NONE elsewhere (n + 1 entries,
 * malloc()ed).  -EINVAL on an out-of-range or repeated id. */
int ksp_wgraph_member_map(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count,
			  uint32_t **ret);
