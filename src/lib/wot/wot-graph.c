/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wot-graph: CSR web-of-trust graph, SCC (iterative Tarjan), strong set,
 * plain BFS (the mean shortest distances are in wot-msd.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/wot/wot-graph.h"

struct ksp_wgraph {
	uint32_t n;
	size_t m;
	size_t *out_off; /* n + 1 */
	uint32_t *out_adj; /* m */
	size_t *in_off; /* n + 1 */
	uint32_t *in_adj; /* m */
};

void ksp_wgraph_free(struct ksp_wgraph *g)
{
	if (!g)
		return;
	free(g->out_off);
	free(g->out_adj);
	free(g->in_off);
	free(g->in_adj);
	free(g);
}

int ksp_wgraph_new(uint32_t n, const uint32_t *src, const uint32_t *dst, size_t m,
		   struct ksp_wgraph **ret)
{
	struct ksp_wgraph *g = NULL;
	size_t *dst_off = NULL;
	uint32_t *by_dst = NULL;
	size_t i, k;
	uint32_t v;
	int r = -ENOMEM;

	if (!ret || (m > 0 && (!src || !dst)) || n == UINT32_MAX)
		return -EINVAL;
	for (i = 0; i < m; i++)
		if (src[i] >= n || dst[i] >= n)
			return -EINVAL;

	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->n = n;
	g->out_off = calloc((size_t)n + 1, sizeof(size_t));
	g->in_off = calloc((size_t)n + 1, sizeof(size_t));
	dst_off = calloc((size_t)n + 1, sizeof(size_t));
	if (!g->out_off || !g->in_off || !dst_off)
		goto out;
	if (m > 0) {
		by_dst = malloc(m * sizeof(uint32_t));
		g->out_adj = malloc(m * sizeof(uint32_t));
		if (!by_dst || !g->out_adj)
			goto out;
	}

	/* Pass 1: counting sort of the sources by destination (self-loops
	 * dropped).  dst_off[v + 1] counts first, then prefix sums. */
	for (i = 0; i < m; i++)
		if (src[i] != dst[i]) {
			dst_off[dst[i] + 1]++;
			g->out_off[src[i] + 1]++;
		}
	for (v = 0; v < n; v++) {
		dst_off[v + 1] += dst_off[v];
		g->out_off[v + 1] += g->out_off[v];
	}
	/* Use in_off as fill cursors for pass 1. */
	memcpy(g->in_off, dst_off, ((size_t)n + 1) * sizeof(size_t));
	for (i = 0; i < m; i++)
		if (src[i] != dst[i])
			by_dst[g->in_off[dst[i]]++] = src[i];

	/* Pass 2: walk destinations in increasing order and append to the
	 * source buckets, so each out-list comes out sorted. */
	memcpy(g->in_off, g->out_off, ((size_t)n + 1) * sizeof(size_t));
	for (v = 0; v < n; v++)
		for (k = dst_off[v]; k < dst_off[v + 1]; k++)
			g->out_adj[g->in_off[by_dst[k]]++] = v;

	/* Deduplicate in place (lists are sorted: duplicates are adjacent). */
	{
		size_t w = 0, start;

		for (v = 0; v < n; v++) {
			size_t end = g->out_off[v + 1];

			start = g->out_off[v];
			g->out_off[v] = w;
			for (k = start; k < end; k++)
				if (k == start || g->out_adj[k] != g->out_adj[k - 1])
					g->out_adj[w++] = g->out_adj[k];
		}
		g->out_off[n] = w;
		g->m = w;
	}

	/* In-CSR from the deduplicated out-CSR; sources in increasing order
	 * make each in-list sorted. */
	memset(g->in_off, 0, ((size_t)n + 1) * sizeof(size_t));
	if (g->m > 0) {
		g->in_adj = malloc(g->m * sizeof(uint32_t));
		if (!g->in_adj)
			goto out;
	}
	for (k = 0; k < g->m; k++)
		g->in_off[g->out_adj[k] + 1]++;
	for (v = 0; v < n; v++)
		g->in_off[v + 1] += g->in_off[v];
	memcpy(dst_off, g->in_off, ((size_t)n + 1) * sizeof(size_t));
	for (v = 0; v < n; v++)
		for (k = g->out_off[v]; k < g->out_off[v + 1]; k++)
			g->in_adj[dst_off[g->out_adj[k]]++] = v;

	/* Shrink the out array to the deduplicated size (failure is harmless). */
	if (g->m > 0 && g->m < m) {
		uint32_t *p = realloc(g->out_adj, g->m * sizeof(uint32_t));

		if (p)
			g->out_adj = p;
	}
	r = 0;
out:
	free(dst_off);
	free(by_dst);
	if (r < 0)
		ksp_wgraph_free(g);
	else
		*ret = g;
	return r;
}

uint32_t ksp_wgraph_n(const struct ksp_wgraph *g)
{
	return g ? g->n : 0;
}

size_t ksp_wgraph_m(const struct ksp_wgraph *g)
{
	return g ? g->m : 0;
}

uint32_t ksp_wgraph_out_degree(const struct ksp_wgraph *g, uint32_t v)
{
	if (!g || v >= g->n)
		return 0;
	return (uint32_t)(g->out_off[v + 1] - g->out_off[v]);
}

uint32_t ksp_wgraph_in_degree(const struct ksp_wgraph *g, uint32_t v)
{
	if (!g || v >= g->n)
		return 0;
	return (uint32_t)(g->in_off[v + 1] - g->in_off[v]);
}

uint32_t ksp_wgraph_out_neighbors(const struct ksp_wgraph *g, uint32_t v, const uint32_t **ret)
{
	if (!g || v >= g->n) {
		if (ret)
			*ret = NULL;
		return 0;
	}
	if (ret)
		*ret = g->out_adj ? g->out_adj + g->out_off[v] : NULL;
	return (uint32_t)(g->out_off[v + 1] - g->out_off[v]);
}

uint32_t ksp_wgraph_in_neighbors(const struct ksp_wgraph *g, uint32_t v, const uint32_t **ret)
{
	if (!g || v >= g->n) {
		if (ret)
			*ret = NULL;
		return 0;
	}
	if (ret)
		*ret = g->in_adj ? g->in_adj + g->in_off[v] : NULL;
	return (uint32_t)(g->in_off[v + 1] - g->in_off[v]);
}

/* Map vertex -> index in members, KSP_WGRAPH_NONE elsewhere.  -EINVAL on an
 * out-of-range or repeated id. */
int ksp_wgraph_member_map(const struct ksp_wgraph *g, const uint32_t *members, uint32_t count,
			  uint32_t **ret)
{
	uint32_t *map, i;

	if (!g || !ret || (count > 0 && !members) || count > g->n)
		return -EINVAL;
	map = malloc(((size_t)g->n + 1) * sizeof(uint32_t));
	if (!map)
		return -ENOMEM;
	memset(map, 0xff, ((size_t)g->n + 1) * sizeof(uint32_t));
	for (i = 0; i < count; i++) {
		if (members[i] >= g->n || map[members[i]] != KSP_WGRAPH_NONE) {
			free(map);
			return -EINVAL;
		}
		map[members[i]] = i;
	}
	*ret = map;
	return 0;
}

int ksp_wgraph_count_edges_within(const struct ksp_wgraph *g, const uint32_t *members,
				  uint32_t count, size_t *ret)
{
	uint32_t *map = NULL, i;
	size_t k, c = 0;
	int r;

	if (!ret)
		return -EINVAL;
	r = ksp_wgraph_member_map(g, members, count, &map);
	if (r < 0)
		return r;
	for (i = 0; i < count; i++)
		for (k = g->out_off[members[i]]; k < g->out_off[members[i] + 1]; k++)
			if (map[g->out_adj[k]] != KSP_WGRAPH_NONE)
				c++;
	free(map);
	*ret = c;
	return 0;
}

int ksp_wgraph_scc(const struct ksp_wgraph *g, uint32_t *comp, uint32_t *ret_ncomp)
{
	uint32_t *index = NULL, *low = NULL, *stack = NULL, *cs_v = NULL;
	size_t *cs_e = NULL;
	uint8_t *onstack = NULL;
	uint32_t n, idx = 0, ncomp = 0, sp = 0, csp = 0, root;
	int r = -ENOMEM;

	if (!g || (g->n > 0 && !comp))
		return -EINVAL;
	n = g->n;
	if (n == 0) {
		if (ret_ncomp)
			*ret_ncomp = 0;
		return 0;
	}
	index = malloc((size_t)n * sizeof(uint32_t));
	low = malloc((size_t)n * sizeof(uint32_t));
	stack = malloc((size_t)n * sizeof(uint32_t));
	cs_v = malloc((size_t)n * sizeof(uint32_t));
	cs_e = malloc((size_t)n * sizeof(size_t));
	onstack = calloc(n, 1);
	if (!index || !low || !stack || !cs_v || !cs_e || !onstack)
		goto out;
	memset(index, 0xff, (size_t)n * sizeof(uint32_t));

	for (root = 0; root < n; root++) {
		if (index[root] != KSP_WGRAPH_NONE)
			continue;
		index[root] = low[root] = idx++;
		stack[sp++] = root;
		onstack[root] = 1;
		cs_v[csp] = root;
		cs_e[csp++] = g->out_off[root];
		while (csp > 0) {
			uint32_t v = cs_v[csp - 1];
			size_t e = cs_e[csp - 1];

			if (e < g->out_off[v + 1]) {
				uint32_t w = g->out_adj[e];

				cs_e[csp - 1] = e + 1;
				if (index[w] == KSP_WGRAPH_NONE) {
					index[w] = low[w] = idx++;
					stack[sp++] = w;
					onstack[w] = 1;
					cs_v[csp] = w;
					cs_e[csp++] = g->out_off[w];
				} else if (onstack[w] && index[w] < low[v])
					low[v] = index[w];
				continue;
			}
			csp--;
			if (low[v] == index[v]) {
				uint32_t w;

				do {
					w = stack[--sp];
					onstack[w] = 0;
					comp[w] = ncomp;
				} while (w != v);
				ncomp++;
			}
			if (csp > 0) {
				uint32_t p = cs_v[csp - 1];

				if (low[v] < low[p])
					low[p] = low[v];
			}
		}
	}
	if (ret_ncomp)
		*ret_ncomp = ncomp;
	r = 0;
out:
	free(index);
	free(low);
	free(stack);
	free(cs_v);
	free(cs_e);
	free(onstack);
	return r;
}

int ksp_wgraph_strong_set(const struct ksp_wgraph *g, uint32_t **ret_members, uint32_t *ret_count)
{
	uint32_t *comp = NULL, *size = NULL, *members = NULL;
	uint32_t ncomp = 0, v, best = 0, best_size = 0, c = 0;
	int r;

	if (!g || !ret_members || !ret_count)
		return -EINVAL;
	if (g->n == 0) {
		*ret_members = NULL;
		*ret_count = 0;
		return 0;
	}
	comp = malloc((size_t)g->n * sizeof(uint32_t));
	if (!comp)
		return -ENOMEM;
	r = ksp_wgraph_scc(g, comp, &ncomp);
	if (r < 0)
		goto out;
	r = -ENOMEM;
	size = calloc(ncomp, sizeof(uint32_t));
	if (!size)
		goto out;
	for (v = 0; v < g->n; v++)
		size[comp[v]]++;
	/* Scanning vertices in id order and keeping only a strictly larger
	 * size picks, among the largest, the component of the smallest id. */
	for (v = 0; v < g->n; v++)
		if (size[comp[v]] > best_size) {
			best_size = size[comp[v]];
			best = comp[v];
		}
	members = malloc((size_t)best_size * sizeof(uint32_t));
	if (!members)
		goto out;
	for (v = 0; v < g->n; v++)
		if (comp[v] == best)
			members[c++] = v;
	*ret_members = members;
	*ret_count = c;
	r = 0;
out:
	free(comp);
	free(size);
	return r;
}

/* ---- plain BFS -------------------------------------------------------- */

int ksp_wgraph_bfs(const struct ksp_wgraph *g, uint32_t src, bool reverse, uint32_t *dist,
		   uint32_t *parent)
{
	const size_t *off;
	const uint32_t *adj;
	uint32_t *queue, head = 0, tail = 0;

	if (!g || !dist || src >= g->n)
		return -EINVAL;
	queue = malloc((size_t)g->n * sizeof(uint32_t));
	if (!queue)
		return -ENOMEM;
	off = reverse ? g->in_off : g->out_off;
	adj = reverse ? g->in_adj : g->out_adj;
	memset(dist, 0xff, (size_t)g->n * sizeof(uint32_t));
	if (parent)
		memset(parent, 0xff, (size_t)g->n * sizeof(uint32_t));
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t u = queue[head++];

		for (size_t e = off[u]; e < off[u + 1]; e++) {
			uint32_t v = adj[e];

			if (dist[v] != KSP_WGRAPH_NONE)
				continue;
			dist[v] = dist[u] + 1;
			if (parent)
				parent[v] = u;
			queue[tail++] = v;
		}
	}
	free(queue);
	return 0;
}
