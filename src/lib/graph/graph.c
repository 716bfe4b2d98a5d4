// SPDX-License-Identifier: LGPL-2.1-or-later
/* Web-of-trust pictures: the drawing model (graph.h) of a party,
 * the strong set, a key's neighbourhood, or the shortest certification
 * paths between keys, built from the graph of the store at a time (wot.h).
 * graph-render.c hands the model to graphviz.
 *
 * Why one file (over 1,000 lines): the four pictures share one drawing
 * model and its builders (nodes, edges, labels and their escaping, the
 * choice of layout); split per picture, each file would rebuild it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/graph/graph.h"
#include "lib/store/store-graph.h"
#include "lib/wot/wot.h"
#include "shared/strbuf.h"
#include "shared/util.h"
#include "shared/utf8.h"
#include "lib/store/store.h"

/* The longest name shown in a node, in code points (the rest: "...") */
#define NAME_MAX_CP 64

char *ksp_graph_label_escape(const void *raw, size_t len)
{
	struct strbuf sb;
	char *t = NULL;

	if (ksp_escape(raw, len, KSP_ESCAPE_TERMINAL, &t) < 0)
		return NULL;
	strbuf_init(&sb);
	strbuf_reserve(&sb, strlen(t) + 8);
	for (const char *p = t; *p; p++) {
		if (*p == '\\')
			strbuf_addstr(&sb, "\\\\"); /* escString: \N, \G, \n, \l... stay text */
		else if (*p == '&')
			strbuf_addstr(&sb, "&amp;"); /* graphviz decodes entities in plain labels */
		else
			strbuf_addch(&sb, *p);
	}
	free(t);
	if (!strbuf_ok(&sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	if (sb.len == 0) {
		strbuf_release(&sb);
		return strdup("");
	}
	return strbuf_steal(&sb);
}

/* "Name (comment) <addr@example.org>" -> the length of "Name (comment)";
 * anything else: the whole user ID. */
static size_t uid_name_len(const char *u, size_t len)
{
	if (len < 4 || u[len - 1] != '>')
		return len;
	for (size_t i = len - 1; i-- > 0;) {
		if (u[i] != '<')
			continue;
		bool at = false, ok = true;
		for (size_t j = i + 1; j + 1 < len; j++) {
			if (u[j] == '@')
				at = true;
			else if (u[j] == ' ' || u[j] == '<' || u[j] == '>')
				ok = false;
		}
		if (!ok || !at || i == 0 || u[i - 1] != ' ')
			return len;
		size_t n = i - 1;
		while (n > 0 && u[n - 1] == ' ')
			n--;
		return n > 0 ? n : len;
	}
	return len;
}

/* Bytes of the first @max code points of s (an invalid byte counts as one). */
static size_t cut_code_points(const char *s, size_t len, size_t max)
{
	size_t i = 0, cp = 0;

	while (i < len && cp < max) {
		uint32_t c;
		size_t n = utf8_decode((const uint8_t *)s + i, len - i, &c);
		i += n ? n : 1;
		cp++;
	}
	return i;
}

static double dsqrt(double x)
{
	double r;

	if (x <= 0)
		return 0;
	r = x > 1 ? x : 1;
	for (int i = 0; i < 60; i++)
		r = 0.5 * (r + x / r);
	return r;
}

/* ---- the model ---------------------------------------------------------- */

KSP_EXPORT struct ksp_graph *ksp_graph_free(struct ksp_graph *g)
{
	if (g == NULL)
		return NULL;
	for (size_t i = 0; i < g->n_nodes; i++)
		free(g->nodes[i].label);
	free(g->nodes);
	free(g->edges);
	free(g->title);
	ksp_unref(g->ctx);
	free(g);
	return NULL;
}

KSP_EXPORT size_t ksp_graph_get_node_count(const struct ksp_graph *g)
{
	return g ? g->n_nodes : 0;
}

KSP_EXPORT size_t ksp_graph_get_edge_count(const struct ksp_graph *g)
{
	return g ? g->n_edges : 0;
}

KSP_EXPORT size_t ksp_graph_get_arc_count(const struct ksp_graph *g)
{
	return g ? g->arcs : 0;
}

KSP_EXPORT size_t ksp_graph_get_missing_count(const struct ksp_graph *g)
{
	return g ? g->missing : 0;
}

KSP_EXPORT int ksp_graph_get_length(const struct ksp_graph *g)
{
	if (g == NULL)
		return -EINVAL;
	return g->kind == GRAPH_PATHS && g->length >= 0 ? g->length : -ENOENT;
}

KSP_EXPORT const char *ksp_graph_get_node_fingerprint(const struct ksp_graph *g, size_t i)
{
	return g && i < g->n_nodes ? g->nodes[i].fpr : NULL;
}

struct builder {
	struct ksp_ctx *ctx;
	struct ksp_store *store;
	struct ksp_wot_view *view;
	struct ksp_store_key_names *names;
	struct ksp_graph *g;
};

static int builder_begin(struct builder *b, struct ksp_store *store, int64_t at, unsigned int wot_flags,
			 unsigned int kind, bool need_view)
{
	int r;

	memset(b, 0, sizeof(*b));
	b->store = store;
	b->ctx = ksp_store_get_ctx(store);
	ksp_clear_error(b->ctx);
	if (wot_flags & ~(unsigned)(KSP_WOT_STRUCTURAL | KSP_WOT_NO_SHA1 | KSP_WOT_ALLOW_MD5)) {
		ksp_set_error(b->ctx, "unknown graph flags 0x%x", wot_flags);
		return -EINVAL;
	}
	b->g = calloc(1, sizeof(*b->g));
	if (b->g == NULL)
		return -ENOMEM;
	b->g->ctx = ksp_ref(b->ctx);
	b->g->kind = kind;
	b->g->length = -1;
	r = ksp_store_key_names_new(store, &b->names);
	if (r < 0)
		return r;
	if (need_view) {
		r = ksp_wot_view_new(store, at, wot_flags, &b->view);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Frees what the builder holds; on success hands the graph to *ret. */
static int builder_end(struct builder *b, int r, struct ksp_graph **ret)
{
	ksp_store_key_names_free(b->names);
	ksp_wot_view_free(b->view);
	if (r < 0) {
		if (!ksp_get_error(b->ctx))
			ksp_set_error(b->ctx, "%s: cannot build the graph: %s", ksp_store_get_path(b->store),
				      strerror(-r));
		ksp_graph_free(b->g);
		return r;
	}
	*ret = b->g;
	return 0;
}

static int set_title(struct ksp_graph *g, const char *fmt, ...) _printf_format_(2, 3);
static int set_title(struct ksp_graph *g, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	free(g->title);
	g->title = s;
	return 0;
}

/* A node for the key with keys.id @key_id: "[prefix]Name\n0xKEYID[\nextra]".
 * Returns its index or -errno. */
static int64_t add_node(struct builder *b, int64_t key_id, const char *fpr, const char *prefix, const char *extra,
			unsigned int role)
{
	struct ksp_graph *g = b->g;
	struct strbuf sb;
	struct gnode *n;
	char *name = NULL;
	const char *keyid = NULL;
	const void *uid = NULL;
	size_t len = 0;
	int rc;

	if (g->n_nodes == g->cap_nodes) {
		size_t nc = g->cap_nodes ? g->cap_nodes * 2 : 64;
		struct gnode *a = realloc(g->nodes, nc * sizeof(*a));
		if (a == NULL)
			return -ENOMEM;
		g->nodes = a;
		g->cap_nodes = nc;
	}
	strbuf_init(&sb);
	if (prefix)
		strbuf_addstr(&sb, prefix);
	rc = ksp_store_key_name(b->names, key_id, &keyid, &uid, &len);
	if (rc > 0) {
		if (uid != NULL) {
			size_t nl = uid_name_len(uid, len), cut = cut_code_points(uid, nl, NAME_MAX_CP);
			name = ksp_graph_label_escape(uid, cut);
			if (name == NULL) {
				strbuf_release(&sb);
				return -ENOMEM;
			}
			strbuf_addstr(&sb, name);
			if (cut < nl)
				strbuf_addstr(&sb, "\u2026");
			free(name);
		} else {
			strbuf_addstr(&sb, "(no user ID)");
		}
		/* keyid: 16 hex digits from the store; checked, not trusted */
		strbuf_addstr(&sb, "\\n0x");
		for (const char *p = keyid ? keyid : ""; *p; p++)
			if ((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'F') || (*p >= 'a' && *p <= 'f'))
				strbuf_addch(&sb, *p);
	} else if (rc < 0) {
		strbuf_release(&sb);
		return rc;
	}
	if (extra) {
		strbuf_addstr(&sb, "\\n");
		strbuf_addstr(&sb, extra);
	}
	if (!strbuf_ok(&sb)) {
		strbuf_release(&sb);
		return -ENOMEM;
	}
	n = &g->nodes[g->n_nodes];
	memset(n, 0, sizeof(*n));
	snprintf(n->fpr, sizeof(n->fpr), "%s", fpr);
	n->label = strbuf_steal(&sb);
	if (n->label == NULL)
		return -ENOMEM;
	n->role = role;
	snprintf(n->fill, sizeof(n->fill), "0 0 1");
	return (int64_t)g->n_nodes++;
}

static int add_edge(struct ksp_graph *g, uint32_t tail, uint32_t head, unsigned int flags, const char *label)
{
	struct gedge *e;

	if (g->n_edges == g->cap_edges) {
		size_t nc = g->cap_edges ? g->cap_edges * 2 : 128;
		struct gedge *a = realloc(g->edges, nc * sizeof(*a));
		if (a == NULL)
			return -ENOMEM;
		g->edges = a;
		g->cap_edges = nc;
	}
	e = &g->edges[g->n_edges++];
	e->tail = tail;
	e->head = head;
	e->flags = flags;
	snprintf(e->label, sizeof(e->label), "%s", label ? label : "");
	if (flags & GEDGE_MISSING)
		g->missing++;
	else
		g->arcs += (flags & GEDGE_BOTH) ? 2 : 1;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static bool has_arc(const struct ksp_wgraph *wg, uint32_t u, uint32_t v)
{
	const uint32_t *nb;
	uint32_t d = ksp_wgraph_out_neighbors(wg, u, &nb);

	return d && bsearch(&v, nb, d, sizeof(*nb), cmp_u32) != NULL;
}

/* Edges between the selected vertices verts[0..count-1]: sel[v] = node
 * index or NONE.  A two-way pair is one edge with two arrowheads. */
static int add_edges_within(struct builder *b, const uint32_t *sel, const uint32_t *verts, size_t count)
{
	const struct ksp_wgraph *wg = b->view->g;

	for (size_t i = 0; i < count; i++) {
		uint32_t u = verts[i];
		const uint32_t *nb;
		uint32_t d = ksp_wgraph_out_neighbors(wg, u, &nb);

		for (uint32_t j = 0; j < d; j++) {
			uint32_t x = nb[j];
			bool both;
			int r;

			if (sel[x] == KSP_WGRAPH_NONE)
				continue;
			both = has_arc(wg, x, u);
			if (both && sel[x] < sel[u])
				continue; /* drawn from the other end */
			r = add_edge(b->g, sel[u], sel[x], both ? GEDGE_BOTH : 0, NULL);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int too_big(struct builder *b, const char *what, size_t count, size_t max, const char *hint)
{
	ksp_set_error(b->ctx, "%s: %s has %zu keys, more than the limit of %zu; %s", ksp_store_get_path(b->store),
		      what, count, max, hint);
	return -E2BIG;
}

static int find_vertex(struct builder *b, const char *fpr, uint32_t *ret)
{
	int64_t v = ksp_wot_view_find(b->view, fpr);

	if (v < 0) {
		ksp_set_error(b->ctx,
			      "%s: key %s is not in the graph at that time (not loaded, revoked, expired or not yet "
			      "valid); see 'ksp wot load' and 'ksp wot key'",
			      ksp_store_get_path(b->store), fpr);
		return -ENOENT;
	}
	*ret = (uint32_t)v;
	return 0;
}

/* ---- party --------------------------------------------------------------- */

struct member {
	int ord;
	int64_t key_id;
	char fpr[65];
	uint32_t v; /* vertex, NONE when not valid at the time */
	uint32_t signers;
	bool absent; /* not at the party ('party absent'): nothing owed to or by it */
};

struct members {
	struct builder *b;
	struct member *m;
	size_t n, cap;
	char *name;
	char *date;
	size_t date_size;
};

static int party_head(void *opaque, const void *name, size_t name_len, const char *d)
{
	struct members *ms = opaque;
	size_t k = 0;

	ms->name = ksp_graph_label_escape(name, name_len);
	/* YYYY-MM-DD, checked when stored; keep only those characters */
	for (; d && *d && k + 1 < ms->date_size; d++)
		if ((*d >= '0' && *d <= '9') || *d == '-')
			ms->date[k++] = *d;
	ms->date[k] = '\0';
	return 0;
}

static int party_member(void *opaque, int ord, int64_t key_id, const char *fpr, bool absent)
{
	struct members *ms = opaque;
	struct member *m;
	int64_t v;

	if (ms->n == ms->cap) {
		size_t nc = ms->cap ? ms->cap * 2 : 32;
		struct member *a = realloc(ms->m, nc * sizeof(*a));
		if (a == NULL)
			return -ENOMEM;
		ms->m = a;
		ms->cap = nc;
	}
	m = &ms->m[ms->n];
	memset(m, 0, sizeof(*m));
	m->ord = ord;
	m->key_id = key_id;
	m->absent = absent;
	snprintf(m->fpr, sizeof(m->fpr), "%s", fpr ? fpr : "");
	v = ksp_wot_view_find(ms->b->view, m->fpr);
	m->v = v < 0 ? KSP_WGRAPH_NONE : (uint32_t)v;
	ms->n++;
	return 0;
}

static int load_members(struct builder *b, struct member **ret, size_t *ret_n, char **ret_name, char *date,
			size_t date_size)
{
	struct members ms = { .b = b, .date = date, .date_size = date_size };
	int r;

	r = ksp_store_party_head(b->store, party_head, &ms);
	if (r == 0) {
		ksp_set_error(b->ctx, "%s: there is no party in this store; start one with 'ksp party init'",
			      ksp_store_get_path(b->store));
		return -ENOENT;
	}
	if (r < 0)
		return r;
	*ret_name = ms.name;
	if (*ret_name == NULL)
		return -ENOMEM;
	r = ksp_store_party_members(b->store, party_member, &ms);
	if (r < 0) {
		free(ms.m);
		return r;
	}
	*ret = ms.m;
	*ret_n = ms.n;
	return 0;
}

/* Completeness 0..1: red through yellow to green */
static void completeness_color(char *buf, size_t size, double f)
{
	snprintf(buf, size, "%.3f 0.450 1.000", 0.333 * f);
}

KSP_EXPORT int ksp_graph_new_party(struct ksp_store *store, int64_t at, unsigned int wot_flags, unsigned int flags,
				   struct ksp_graph **ret)
{
	struct builder b;
	struct member *m = NULL;
	size_t n = 0;
	char *pname = NULL, date[16] = "";
	int r;

	if (store == NULL || ret == NULL)
		return -EINVAL;
	if (flags & ~(unsigned)KSP_GRAPH_MISSING) {
		ksp_set_error(ksp_store_get_ctx(store), "unknown party graph flags 0x%x", flags);
		return -EINVAL;
	}
	r = builder_begin(&b, store, at, wot_flags, GRAPH_PARTY, true);
	if (r < 0)
		goto out;
	r = load_members(&b, &m, &n, &pname, date, sizeof(date));
	if (r < 0)
		goto out;
	if (n == 0) {
		ksp_set_error(b.ctx, "%s: the party has no participants yet; add keys with 'ksp party add'",
			      ksp_store_get_path(store));
		r = -ENODATA;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (i != j && m[i].v != KSP_WGRAPH_NONE && m[j].v != KSP_WGRAPH_NONE &&
			    has_arc(b.view->g, m[i].v, m[j].v))
				m[j].signers++;
	/* as 'party status' counts: the absent owe nothing and are owed nothing */
	size_t present = 0;
	for (size_t i = 0; i < n; i++)
		present += !m[i].absent;
	for (size_t i = 0; i < n; i++) {
		char prefix[24], extra[80];
		bool valid = m[i].v != KSP_WGRAPH_NONE;
		size_t owed = m[i].absent || present == 0 ? 0 : present - 1;
		int64_t k;

		snprintf(prefix, sizeof(prefix), "#%d ", m[i].ord);
		if (valid && m[i].absent)
			snprintf(extra, sizeof(extra), "absent; certified by %u", m[i].signers);
		else if (valid)
			snprintf(extra, sizeof(extra), "certified by %u of %zu", m[i].signers, owed);
		else
			snprintf(extra, sizeof(extra), "not valid at that time");
		k = add_node(&b, m[i].key_id, m[i].fpr, prefix, extra, valid ? GNODE_PLAIN : GNODE_INVALID);
		if (k < 0) {
			r = (int)k;
			goto out;
		}
		if (valid)
			completeness_color(b.g->nodes[k].fill, sizeof(b.g->nodes[k].fill),
					   owed > 0 ? (double)(m[i].signers < owed ? m[i].signers : owed) / (double)owed : 1.0);
		else
			snprintf(b.g->nodes[k].fill, sizeof(b.g->nodes[k].fill), "0 0 0.85");
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++) {
			bool vi = m[i].v != KSP_WGRAPH_NONE, vj = m[j].v != KSP_WGRAPH_NONE;
			bool a = vi && vj && has_arc(b.view->g, m[i].v, m[j].v);
			bool c = vi && vj && has_arc(b.view->g, m[j].v, m[i].v);
			uint32_t x = (uint32_t)i, y = (uint32_t)j;

			if (a && c)
				r = add_edge(b.g, x, y, GEDGE_BOTH, NULL);
			else if (a)
				r = add_edge(b.g, x, y, 0, NULL);
			else if (c)
				r = add_edge(b.g, y, x, 0, NULL);
			if (r == 0 && (flags & KSP_GRAPH_MISSING) && vi && vj && !m[i].absent && !m[j].absent) {
				if (!a && !c)
					r = add_edge(b.g, x, y, GEDGE_MISSING | GEDGE_BOTH, NULL);
				else if (!a)
					r = add_edge(b.g, x, y, GEDGE_MISSING, NULL);
				else if (!c)
					r = add_edge(b.g, y, x, GEDGE_MISSING, NULL);
			}
			if (r < 0)
				goto out;
		}
	}
	size_t done = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			done += i != j && !m[i].absent && !m[j].absent && m[i].v != KSP_WGRAPH_NONE &&
				m[j].v != KSP_WGRAPH_NONE && has_arc(b.view->g, m[i].v, m[j].v);
	if (present < n)
		r = set_title(b.g, "%s, %s: %zu of %zu certifications (%zu absent, not counted)", pname, date, done,
			      present * (present ? present - 1 : 0), n - present);
	else
		r = set_title(b.g, "%s, %s: %zu of %zu certifications", pname, date, b.g->arcs, n * (n - 1));
out:
	free(m);
	free(pname);
	return builder_end(&b, r, ret);
}

/* ---- strong set ------------------------------------------------------------ */

struct ranked {
	uint64_t sum;
	uint32_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->sum != y->sum)
		return x->sum < y->sum ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static void size_by_signers(struct gnode *n, uint32_t signers)
{
	double s = dsqrt((double)signers);

	n->width = 0.4 + 0.12 * s;
	n->fontsize = 8.0 + 1.2 * s;
	if (n->fontsize > 32)
		n->fontsize = 32;
}

static uint32_t *new_selection(uint32_t n)
{
	uint32_t *sel = malloc((n ? n : 1) * sizeof(*sel));

	if (sel)
		for (uint32_t i = 0; i < n; i++)
			sel[i] = KSP_WGRAPH_NONE;
	return sel;
}

KSP_EXPORT int ksp_graph_new_strong_set(struct ksp_store *store, int64_t at, unsigned int wot_flags,
					size_t max_nodes, struct ksp_graph **ret)
{
	struct builder b;
	uint32_t *members = NULL, count = 0, *sel = NULL;
	uint64_t *sums = NULL, total = 0;
	struct ranked *rk = NULL;
	int r;

	if (store == NULL || ret == NULL)
		return -EINVAL;
	r = builder_begin(&b, store, at, wot_flags, GRAPH_STRONG_SET, true);
	if (r < 0)
		goto out;
	if (b.view->n > 0) {
		r = ksp_wgraph_strong_set(b.view->g, &members, &count);
		if (r < 0)
			goto out;
	}
	if (count < 2) {
		ksp_set_error(b.ctx, "%s: there is no strong set (no two keys certify each other at that time); "
				     "load more keys with 'ksp wot load'",
			      ksp_store_get_path(store));
		r = -ENODATA;
		goto out;
	}
	if (max_nodes && count > max_nodes) {
		r = too_big(&b, "the strong set", count, max_nodes,
			    "raise --max-nodes (a large graph takes long to lay out) or draw a part with --around");
		goto out;
	}
	sums = calloc(count, sizeof(*sums));
	rk = calloc(count, sizeof(*rk));
	sel = new_selection(b.view->n);
	if (sums == NULL || rk == NULL || sel == NULL) {
		r = -ENOMEM;
		goto out;
	}
	r = ksp_wgraph_msd(b.view->g, members, count, ksp_get_threads(b.ctx), sums, NULL);
	if (r < 0)
		goto out;
	for (uint32_t i = 0; i < count; i++) {
		rk[i] = (struct ranked){ .sum = sums[i], .i = i };
		total += sums[i];
	}
	qsort(rk, count, sizeof(*rk), cmp_ranked);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t v = members[i];
		int64_t k = add_node(&b, b.view->key_id[v], b.view->fpr[v], NULL, NULL, GNODE_PLAIN);
		if (k < 0) {
			r = (int)k;
			goto out;
		}
		sel[v] = (uint32_t)k;
		size_by_signers(&b.g->nodes[k], ksp_wgraph_in_degree(b.view->g, v));
	}
	for (uint32_t q = 0; q < count; q++) {
		/* rank q of count: lowest MSD darkest */
		double f = (double)q / (double)(count - 1);
		snprintf(b.g->nodes[rk[q].i].fill, sizeof(b.g->nodes[0].fill), "0.580 %.3f 1.000", 0.85 - 0.75 * f);
	}
	r = add_edges_within(&b, sel, members, count);
	if (r < 0)
		goto out;
	r = set_title(b.g, "Strong set: %u keys, %zu certifications, MSD %.4f (darker: lower MSD; larger: more signers)",
		      count, b.g->arcs, (double)total / ((double)count * (double)(count - 1)));
out:
	free(members);
	free(sums);
	free(rk);
	free(sel);
	return builder_end(&b, r, ret);
}

/* ---- neighbourhood --------------------------------------------------------- */

KSP_EXPORT int ksp_graph_new_around(struct ksp_store *store, int64_t at, unsigned int wot_flags, const char *fpr,
				    unsigned int depth, size_t max_nodes, struct ksp_graph **ret)
{
	struct builder b;
	uint32_t *dist = NULL, *queue = NULL, *sel = NULL, *verts = NULL, c = 0, head = 0, tail = 0, n;
	size_t count = 0;
	int r;

	if (store == NULL || fpr == NULL || ret == NULL)
		return -EINVAL;
	r = builder_begin(&b, store, at, wot_flags, GRAPH_AROUND, true);
	if (r < 0)
		goto out;
	r = find_vertex(&b, fpr, &c);
	if (r < 0)
		goto out;
	n = b.view->n;
	dist = new_selection(n);
	queue = malloc(n * sizeof(*queue));
	sel = new_selection(n);
	if (dist == NULL || queue == NULL || sel == NULL) {
		r = -ENOMEM;
		goto out;
	}
	/* signers and signees, either way, up to depth edges */
	dist[c] = 0;
	queue[tail++] = c;
	while (head < tail) {
		uint32_t u = queue[head++];
		if (dist[u] >= depth)
			continue;
		for (int dir = 0; dir < 2; dir++) {
			const uint32_t *nb;
			uint32_t d = dir ? ksp_wgraph_in_neighbors(b.view->g, u, &nb)
					 : ksp_wgraph_out_neighbors(b.view->g, u, &nb);
			for (uint32_t j = 0; j < d; j++)
				if (dist[nb[j]] == KSP_WGRAPH_NONE) {
					dist[nb[j]] = dist[u] + 1;
					queue[tail++] = nb[j];
				}
		}
	}
	count = tail;
	if (max_nodes && count > max_nodes) {
		char what[120];
		snprintf(what, sizeof(what), "the neighbourhood of depth %u of %s", depth, fpr);
		r = too_big(&b, what, count, max_nodes, "lower --depth or raise --max-nodes");
		goto out;
	}
	/* in fingerprint (vertex) order */
	verts = queue;
	qsort(verts, count, sizeof(*verts), cmp_u32);
	for (size_t i = 0; i < count; i++) {
		uint32_t v = verts[i];
		int64_t k = add_node(&b, b.view->key_id[v], b.view->fpr[v], NULL, NULL, v == c ? GNODE_CORE : GNODE_PLAIN);
		struct gnode *nd;
		if (k < 0) {
			r = (int)k;
			goto out;
		}
		sel[v] = (uint32_t)k;
		nd = &b.g->nodes[k];
		size_by_signers(nd, ksp_wgraph_in_degree(b.view->g, v));
		if (v == c)
			snprintf(nd->fill, sizeof(nd->fill), "0.130 0.700 1.000");
		else
			snprintf(nd->fill, sizeof(nd->fill), "0.580 %.3f 1.000", 0.6 / (double)dist[v]);
	}
	r = add_edges_within(&b, sel, verts, count);
	if (r < 0)
		goto out;
	r = set_title(b.g, "Keys within %u certification%s of %s: %zu keys, %zu certifications", depth,
		      depth == 1 ? "" : "s", b.view->fpr[c], count, b.g->arcs);
out:
	free(dist);
	free(queue);
	free(sel);
	return builder_end(&b, r, ret);
}

/* ---- paths ------------------------------------------------------------------ */

struct arc {
	uint32_t u, x;
};

static int cmp_arc(const void *a, const void *b)
{
	const struct arc *p = a, *q = b;
	if (p->u != q->u)
		return p->u < q->u ? -1 : 1;
	return p->x < q->x ? -1 : p->x > q->x;
}

static int edge_date(struct builder *b, uint32_t u, uint32_t x, char *buf, size_t size)
{
	int64_t t = 0;
	char *uid = NULL;
	size_t len = 0;
	int r = ksp_wot_edge_cert(b->store, b->view, u, x, &t, &uid, &len);

	free(uid);
	if (r < 0)
		return r;
	format_date(t, buf, size);
	return 0;
}

/* Sorted, deduplicated arcs between selected vertices: one edge per pair,
 * labelled with the date of the certification behind each direction. */
static int draw_arcs(struct builder *b, const uint32_t *sel, const struct arc *arcs, size_t na)
{
	for (size_t i = 0; i < na; i++) {
		struct arc rev = { .u = arcs[i].x, .x = arcs[i].u };
		bool both = bsearch(&rev, arcs, na, sizeof(*arcs), cmp_arc) != NULL;
		char d1[16], d2[16], label[48];
		int r;

		if (both && sel[rev.u] < sel[rev.x])
			continue; /* drawn from the other end */
		r = edge_date(b, arcs[i].u, arcs[i].x, d1, sizeof(d1));
		if (r == 0 && both)
			r = edge_date(b, rev.u, rev.x, d2, sizeof(d2));
		if (r < 0)
			return r;
		if (both)
			snprintf(label, sizeof(label), "%s / %s", d1, d2);
		else
			snprintf(label, sizeof(label), "%s", d1);
		r = add_edge(b->g, sel[arcs[i].u], sel[arcs[i].x], both ? GEDGE_BOTH : 0, label);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Appends the arcs u -> x on a shortest s -> t path: df[u] + 1 + dt[x] = len. */
static int collect_arcs(const struct ksp_wgraph *wg, uint32_t n, const uint32_t *df, const uint32_t *dt,
			uint32_t len, struct arc **arcs, size_t *na, size_t *ca)
{
	for (uint32_t u = 0; u < n; u++) {
		const uint32_t *nb;
		uint32_t d;

		if (df[u] == KSP_WGRAPH_NONE || dt[u] == KSP_WGRAPH_NONE || df[u] + dt[u] != len)
			continue;
		d = ksp_wgraph_out_neighbors(wg, u, &nb);
		for (uint32_t j = 0; j < d; j++) {
			uint32_t x = nb[j];
			if (dt[x] == KSP_WGRAPH_NONE || df[u] + 1 + dt[x] != len)
				continue;
			if (*na == *ca) {
				size_t nc = *ca ? *ca * 2 : 64;
				struct arc *a = realloc(*arcs, nc * sizeof(*a));
				if (a == NULL)
					return -ENOMEM;
				*arcs = a;
				*ca = nc;
			}
			(*arcs)[(*na)++] = (struct arc){ .u = u, .x = x };
		}
	}
	return 0;
}

KSP_EXPORT int ksp_graph_new_paths(struct ksp_store *store, int64_t at, unsigned int wot_flags,
				   const char *const *from, size_t n_from, const char *to, size_t max_nodes,
				   struct ksp_graph **ret)
{
	struct builder b;
	uint32_t t = 0, n, *src = NULL, *df = NULL, *dt = NULL, *sel = NULL, *verts = NULL;
	bool *on = NULL, *is_src = NULL;
	struct arc *arcs = NULL;
	size_t count = 0, reached = 0, na = 0, ca = 0, kept = 0;
	int best = -1, r;

	if (store == NULL || from == NULL || n_from == 0 || to == NULL || ret == NULL)
		return -EINVAL;
	r = builder_begin(&b, store, at, wot_flags, GRAPH_PATHS, true);
	if (r < 0)
		goto out;
	r = find_vertex(&b, to, &t);
	if (r < 0)
		goto out;
	n = b.view->n;
	src = malloc(n_from * sizeof(*src));
	df = malloc(n * sizeof(*df));
	dt = malloc(n * sizeof(*dt));
	on = calloc(n, sizeof(*on));
	is_src = calloc(n, sizeof(*is_src));
	sel = new_selection(n);
	verts = malloc(n * sizeof(*verts));
	if (src == NULL || df == NULL || dt == NULL || on == NULL || is_src == NULL || sel == NULL || verts == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < n_from; k++) {
		if (from[k] == NULL) {
			r = -EINVAL;
			goto out;
		}
		r = find_vertex(&b, from[k], &src[k]);
		if (r < 0)
			goto out;
	}
	r = ksp_wgraph_bfs(b.view->g, t, true, dt, NULL);
	if (r < 0)
		goto out;
	on[t] = true;
	for (size_t k = 0; k < n_from; k++) {
		uint32_t s = src[k], len = dt[s];

		if (len == KSP_WGRAPH_NONE || is_src[s])
			continue; /* unreachable, or given twice */
		is_src[s] = true;
		reached++;
		if (best < 0 || (int)len < best)
			best = (int)len;
		r = ksp_wgraph_bfs(b.view->g, s, false, df, NULL);
		if (r < 0)
			goto out;
		/* the vertices on a shortest s -> t path: df[u] + dt[u] = len */
		for (uint32_t u = 0; u < n; u++)
			if (df[u] != KSP_WGRAPH_NONE && dt[u] != KSP_WGRAPH_NONE && df[u] + dt[u] == len)
				on[u] = true;
		r = collect_arcs(b.view->g, n, df, dt, len, &arcs, &na, &ca);
		if (r < 0)
			goto out;
	}
	for (uint32_t u = 0; u < n; u++)
		if (on[u])
			verts[count++] = u;
	if (max_nodes && count > max_nodes) {
		r = too_big(&b, "the union of the shortest paths", count, max_nodes, "raise --max-nodes");
		goto out;
	}
	for (size_t i = 0; i < count; i++) {
		uint32_t v = verts[i];
		unsigned int role = is_src[v] ? GNODE_CORE : v == t ? GNODE_TARGET : GNODE_PLAIN;
		int64_t k = add_node(&b, b.view->key_id[v], b.view->fpr[v], NULL, NULL, role);
		if (k < 0) {
			r = (int)k;
			goto out;
		}
		sel[v] = (uint32_t)k;
		snprintf(b.g->nodes[k].fill, sizeof(b.g->nodes[k].fill), "%s",
			 role == GNODE_CORE     ? "0.130 0.700 1.000"
			 : role == GNODE_TARGET ? "0.550 0.350 1.000"
						: "0 0 1");
	}
	if (na > 0) {
		qsort(arcs, na, sizeof(*arcs), cmp_arc);
		for (size_t i = 0; i < na; i++)
			if (kept == 0 || cmp_arc(&arcs[kept - 1], &arcs[i]) != 0)
				arcs[kept++] = arcs[i];
		r = draw_arcs(&b, sel, arcs, kept);
		if (r < 0)
			goto out;
	}
	b.g->length = best;
	if (best < 0)
		r = set_title(b.g, "No certification path");
	else if (n_from == 1)
		r = set_title(b.g, "All shortest certification paths: %d hop%s", best, best == 1 ? "" : "s");
	else
		r = set_title(b.g, "Shortest certification paths from %zu of %zu core keys (shortest: %d hop%s)",
			      reached, n_from, best, best == 1 ? "" : "s");
out:
	free(src);
	free(df);
	free(dt);
	free(on);
	free(is_src);
	free(sel);
	free(verts);
	free(arcs);
	return builder_end(&b, r, ret);
}

/* ---- the paths of a trust verdict ------------------------------------------ */

static int64_t node_of(struct builder *b, const char *fpr, unsigned int role)
{
	int64_t id;

	for (size_t i = 0; i < b->g->n_nodes; i++)
		if (strcmp(b->g->nodes[i].fpr, fpr) == 0) {
			if (role != GNODE_PLAIN && b->g->nodes[i].role == GNODE_PLAIN)
				b->g->nodes[i].role = role;
			return (int64_t)i;
		}
	id = ksp_store_key_id(b->store, fpr);
	if (id < 0)
		return id;
	return add_node(b, id, fpr, NULL, NULL, role);
}

KSP_EXPORT int ksp_graph_new_trust(struct ksp_store *store, const struct ksp_trust_result *result,
				   const char *target_fpr, struct ksp_graph **ret)
{
	struct builder b;
	const char *msg;
	int64_t t;
	int r;

	if (store == NULL || result == NULL || target_fpr == NULL || ret == NULL)
		return -EINVAL;
	r = builder_begin(&b, store, 0, 0, GRAPH_TRUST, false);
	if (r < 0)
		goto out;
	t = node_of(&b, target_fpr, GNODE_TARGET);
	if (t < 0) {
		r = (int)t;
		goto out;
	}
	for (size_t p = 0; p < ksp_trust_result_get_path_count(result); p++) {
		size_t len = ksp_trust_result_get_path_length(result, p);

		for (size_t h = 0; h < len; h++) {
			const char *signer = NULL, *signee = NULL, *uid = NULL;
			int64_t created = 0, a, c;
			size_t ulen = 0;
			char date[16];
			bool dup = false;

			r = ksp_trust_result_get_hop(result, p, h, &signer, &signee, &created, &uid, &ulen);
			if (r < 0)
				goto out;
			if (signer == NULL || signee == NULL) {
				r = -EINVAL;
				goto out;
			}
			a = node_of(&b, signer, h == 0 ? GNODE_CORE : GNODE_PLAIN);
			c = a < 0 ? a : node_of(&b, signee, GNODE_PLAIN);
			if (c < 0) {
				r = (int)c;
				goto out;
			}
			for (size_t e = 0; e < b.g->n_edges; e++)
				if (b.g->edges[e].tail == (uint32_t)a && b.g->edges[e].head == (uint32_t)c)
					dup = true;
			if (dup)
				continue;
			format_date(created, date, sizeof(date));
			r = add_edge(b.g, (uint32_t)a, (uint32_t)c, 0, date);
			if (r < 0)
				goto out;
		}
	}
	for (size_t i = 0; i < b.g->n_nodes; i++) {
		struct gnode *nd = &b.g->nodes[i];
		snprintf(nd->fill, sizeof(nd->fill), "%s",
			 nd->role == GNODE_CORE     ? "0.130 0.700 1.000"
			 : nd->role == GNODE_TARGET ? (ksp_trust_result_is_trusted(result) ? "0.333 0.450 1.000"
											   : "0.000 0.450 1.000")
						    : "0 0 1");
	}
	msg = ksp_trust_result_get_message(result);
	{
		char *m = ksp_graph_label_escape(msg ? msg : "", msg ? strlen(msg) : 0);
		if (m == NULL) {
			r = -ENOMEM;
			goto out;
		}
		free(b.g->title);
		b.g->title = m;
	}
	r = 0;
out:
	return builder_end(&b, r, ret);
}

/* ---- a set of paths given by the caller (publish/) ------------------------- */

int ksp_graph_new_pathset(struct ksp_store *store, const char *const *fprs, const size_t *lens, size_t n_paths,
			  const char *title, struct ksp_graph **ret)
{
	struct builder b;
	size_t at = 0;
	int r;

	if (store == NULL || fprs == NULL || lens == NULL || ret == NULL)
		return -EINVAL;
	r = builder_begin(&b, store, 0, 0, GRAPH_TRUST, false);
	if (r < 0)
		goto out;
	for (size_t p = 0; p < n_paths; p++) {
		int64_t prev = -1;

		for (size_t v = 0; v < lens[p]; v++) {
			int64_t n = node_of(&b, fprs[at + v],
					   v == 0 ? GNODE_CORE : v + 1 == lens[p] ? GNODE_TARGET : GNODE_PLAIN);
			bool dup = false;

			if (n < 0) {
				r = (int)n;
				goto out;
			}
			if (prev >= 0) {
				for (size_t e = 0; e < b.g->n_edges; e++)
					if (b.g->edges[e].tail == (uint32_t)prev && b.g->edges[e].head == (uint32_t)n)
						dup = true;
				if (!dup && (r = add_edge(b.g, (uint32_t)prev, (uint32_t)n, 0, "")) < 0)
					goto out;
			}
			prev = n;
		}
		at += lens[p];
	}
	for (size_t i = 0; i < b.g->n_nodes; i++) {
		struct gnode *nd = &b.g->nodes[i];
		snprintf(nd->fill, sizeof(nd->fill), "%s",
			 nd->role == GNODE_CORE ? "0.130 0.700 1.000" : nd->role == GNODE_TARGET ? "0.333 0.450 1.000" : "0 0 1");
	}
	if (title) {
		char *m = ksp_graph_label_escape(title, strlen(title));
		if (m == NULL) {
			r = -ENOMEM;
			goto out;
		}
		free(b.g->title);
		b.g->title = m;
	}
	r = 0;
out:
	return builder_end(&b, r, ret);
}


/* ---- chosen keys (ksp health --svg) ------------------------------------------ */

KSP_EXPORT int ksp_graph_new_keys(struct ksp_store *store, int64_t at, unsigned int wot_flags,
				  const char *const *fprs, const unsigned int *marks, size_t n,
				  const char *const *from, const char *const *to, size_t n_extra, const char *title,
				  size_t max_nodes, struct ksp_graph **ret)
{
	static const char *const fill[] = {
		[KSP_GRAPH_MARK_PLAIN] = "0 0 1",           [KSP_GRAPH_MARK_CORE] = "0.130 0.700 1.000",
		[KSP_GRAPH_MARK_FALLS] = "0.000 0.550 1.000", [KSP_GRAPH_MARK_SPOF] = "0.080 0.750 1.000",
		[KSP_GRAPH_MARK_BELOW] = "0 0 0.800",
	};
	struct builder b;
	uint32_t *sel = NULL, *verts = NULL;
	size_t count = 0;
	int r;

	if (store == NULL || (n && (fprs == NULL || marks == NULL)) || (n_extra && (from == NULL || to == NULL)) ||
	    ret == NULL)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (marks[i] > KSP_GRAPH_MARK_BELOW)
			return -EINVAL;
	r = builder_begin(&b, store, at, wot_flags, GRAPH_TRUST, true);
	if (r < 0)
		goto out;
	sel = new_selection(b.view->n);
	verts = malloc((n ? n : 1) * sizeof(*verts));
	if (sel == NULL || verts == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		int64_t v = ksp_wot_view_find(b.view, fprs[i]), k;
		if (v < 0 || sel[v] != KSP_WGRAPH_NONE)
			continue; /* not a vertex at that time, or given twice */
		if (max_nodes && count >= max_nodes) {
			r = too_big(&b, "the picture", n, max_nodes, "give fewer keys");
			goto out;
		}
		k = add_node(&b, b.view->key_id[v], b.view->fpr[v], NULL, NULL,
			     marks[i] == KSP_GRAPH_MARK_CORE ? GNODE_CORE : GNODE_PLAIN);
		if (k < 0) {
			r = (int)k;
			goto out;
		}
		snprintf(b.g->nodes[k].fill, sizeof(b.g->nodes[k].fill), "%s", fill[marks[i]]);
		sel[v] = (uint32_t)k;
		verts[count++] = (uint32_t)v;
	}
	qsort(verts, count, sizeof(*verts), cmp_u32);
	r = add_edges_within(&b, sel, verts, count);
	for (size_t i = 0; r == 0 && i < n_extra; i++) {
		int64_t u = ksp_wot_view_find(b.view, from[i]), x = ksp_wot_view_find(b.view, to[i]);
		if (u >= 0 && x >= 0 && sel[u] != KSP_WGRAPH_NONE && sel[x] != KSP_WGRAPH_NONE)
			r = add_edge(b.g, sel[u], sel[x], GEDGE_MISSING, NULL);
	}
	if (r < 0)
		goto out;
	if (title) {
		char *m = ksp_graph_label_escape(title, strlen(title));
		if (m == NULL) {
			r = -ENOMEM;
			goto out;
		}
		free(b.g->title);
		b.g->title = m;
	}
	r = 0;
out:
	free(sel);
	free(verts);
	return builder_end(&b, r, ret);
}
