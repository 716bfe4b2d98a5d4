// SPDX-License-Identifier: LGPL-2.1-or-later
/* Rendering a web-of-trust picture with graphviz, in-process: the model
 * (graph.h) becomes a libcgraph graph, libgvc lays it out and renders it
 * into memory.  Part of the drawing module (ksp-render.so, lib/draw.h):
 * graph-draw.c, in libksp, checks the format and layout and writes the
 * result to a file descriptor or atomically to a file.  Graphviz keeps state in its context (GVC_t),
 * so each call makes its own and frees it; nothing is kept between calls.
 * Plugins come from graphviz's installed configuration (config6a, written
 * by "dot -c").  Labels are plain strings (never HTML-like), made safe by
 * graph.c; attribute values set here are constants or numbers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
/* graphviz's MIN and MAX; shared/macro.h defines its own */
#undef MIN
#undef MAX

#include "lib/draw.h"
#include "lib/graph/graph.h"
#include "shared/strbuf.h"

/* cgraph takes char * for names and values it does not change */
#define S(x) ((char *)(x))

/* Is there a graphviz plugin of @kind ("device", "layout") called @name? */
static bool has_plugin(GVC_t *gvc, const char *kind, const char *name)
{
	int n = 0;
	char **list = gvPluginList(gvc, kind, &n, NULL);
	bool found = false;

	for (int i = 0; list && i < n; i++) {
		if (list[i] && strcmp(list[i], name) == 0)
			found = true;
		free(list[i]);
	}
	free(list);
	return found;
}

static void set(void *obj, const char *name, const char *value, const char *def)
{
	agsafeset(obj, S(name), S(value), S(def));
}

static void setf(void *obj, const char *name, double value, const char *def)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.2f", value);
	agsafeset(obj, S(name), buf, S(def));
}

/* agwrite() output into a strbuf (the channel) */
static int sb_putstr(void *chan, const char *str)
{
	strbuf_addstr(chan, str);
	return strbuf_ok(chan) ? 0 : EOF;
}

static int sb_flush(void *chan)
{
	return 0;
}

static Agraph_t *build(const struct ksp_graph *g, const char *layout, Agdisc_t *disc)
{
	Agraph_t *G = agopen(S("wot"), Agdirected, disc);
	Agnode_t **nodes;

	if (G == NULL)
		return NULL;
	nodes = calloc(g->n_nodes ? g->n_nodes : 1, sizeof(*nodes));
	if (nodes == NULL) {
		agclose(G);
		return NULL;
	}
	set(G, "charset", "UTF-8", "");
	set(G, "fontname", "Helvetica", "");
	set(G, "fontsize", "14", "");
	set(G, "labelloc", "t", "");
	set(G, "label", g->title ? g->title : "", "");
	set(G, "outputorder", "edgesfirst", "");
	set(G, "pad", "0.3", "");
	if (strcmp(layout, "dot") != 0)
		set(G, "overlap", "false", "");
	if (g->kind == GRAPH_PATHS || g->kind == GRAPH_TRUST)
		set(G, "rankdir", "LR", "");
	if (g->kind != GRAPH_STRONG_SET && g->kind != GRAPH_AROUND)
		set(G, "nodesep", "0.4", "");
	if (strcmp(layout, "neato") == 0 || strcmp(layout, "fdp") == 0)
		set(G, "sep", "+8", "");
	/* node and edge defaults, declared once */
	agattr(G, AGNODE, S("label"), S(""));
	agattr(G, AGNODE, S("shape"), S("box"));
	agattr(G, AGNODE, S("style"), S("rounded,filled"));
	agattr(G, AGNODE, S("fontname"), S("Helvetica"));
	agattr(G, AGNODE, S("fontsize"), S("10"));
	agattr(G, AGNODE, S("fillcolor"), S("white"));
	agattr(G, AGNODE, S("penwidth"), S("1"));
	agattr(G, AGEDGE, S("dir"), S("forward"));
	agattr(G, AGEDGE, S("style"), S("solid"));
	agattr(G, AGEDGE, S("color"), S("0 0 0.25"));
	agattr(G, AGEDGE, S("arrowsize"), S("0.7"));
	agattr(G, AGEDGE, S("fontname"), S("Helvetica"));
	agattr(G, AGEDGE, S("fontsize"), S("9"));
	agattr(G, AGEDGE, S("label"), S(""));
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gnode *n = &g->nodes[i];
		Agnode_t *N = agnode(G, S(n->fpr), 1);

		if (N == NULL)
			goto fail;
		nodes[i] = N;
		set(N, "label", n->label, "");
		set(N, "fillcolor", n->fill, "white");
		if (n->width > 0) {
			setf(N, "width", n->width, "0.75");
			setf(N, "height", n->width * 0.5, "0.5");
		}
		if (n->fontsize > 0)
			setf(N, "fontsize", n->fontsize, "10");
		if (n->role == GNODE_CORE || n->role == GNODE_TARGET)
			set(N, "penwidth", "2.5", "1");
		else if (n->role == GNODE_INVALID)
			set(N, "style", "rounded,filled,dashed", "rounded,filled");
	}
	for (size_t i = 0; i < g->n_edges; i++) {
		const struct gedge *e = &g->edges[i];
		Agedge_t *E;

		if (e->tail >= g->n_nodes || e->head >= g->n_nodes)
			goto fail;
		E = agedge(G, nodes[e->tail], nodes[e->head], NULL, 1);
		if (E == NULL)
			goto fail;
		if (e->flags & GEDGE_BOTH)
			set(E, "dir", "both", "forward");
		if (e->flags & GEDGE_MISSING) {
			set(E, "style", "dashed", "solid");
			set(E, "color", "0 0 0.6", "0 0 0.25");
		}
		if (e->label[0])
			set(E, "label", e->label, "");
	}
	free(nodes);
	return G;
fail:
	free(nodes);
	agclose(G);
	return NULL;
}

/* Lays out (when @want_layout) and renders @g into memory (draw.h: the
 * module's graph entry); graph-draw.c has checked @device and @layout. */
int rd_graph_draw(const struct ksp_graph *g, const char *device, const char *layout, bool want_layout,
		  struct strbuf *out, ksp_draw_error_fn err)
{
	struct ksp_ctx *ctx = g->ctx;
	GVC_t *gvc = NULL;
	Agraph_t *G = NULL;
	char *data = NULL;
	unsigned int len = 0;
	Agiodisc_t io = { .afread = AgIoDisc.afread, .putstr = sb_putstr, .flush = sb_flush };
	Agdisc_t disc = { .mem = &AgMemDisc, .id = &AgIdDisc, .io = &io };
	int r = 0;

	gvc = gvContext();
	if (gvc == NULL) {
		err(ctx, "cannot start graphviz (out of memory?)");
		return -ENOMEM;
	}
	if (want_layout && !has_plugin(gvc, "device", device)) {
		err(ctx,
		    "graphviz cannot write %s here: no '%s' plugin is registered (config6a); install graphviz "
		    "and libgvc6 (apt-get install graphviz), then run 'dot -c' as root to register the plugins",
		    device, device);
		r = -EOPNOTSUPP;
		goto out;
	}
	if (want_layout && !has_plugin(gvc, "layout", layout)) {
		err(ctx,
		    "graphviz has no '%s' layout here: no plugin is registered for it (config6a); install "
		    "graphviz (apt-get install graphviz), then run 'dot -c' as root to register its plugins",
		    layout);
		r = -EOPNOTSUPP;
		goto out;
	}
	G = build(g, layout, &disc);
	if (G == NULL) {
		err(ctx, "cannot build the graphviz graph (out of memory?)");
		r = -ENOMEM;
		goto out;
	}
	if (want_layout) {
		if (gvLayout(gvc, G, layout) != 0) {
			err(ctx, "graphviz could not lay out the graph with '%s'; try another --layout", layout);
			r = -EIO;
			goto out;
		}
		if (gvRenderData(gvc, G, device, &data, &len) != 0 || (data == NULL && len > 0)) {
			err(ctx, "graphviz could not render the graph as %s", device);
			r = -EIO;
			goto out;
		}
		strbuf_add(out, data, len);
	} else if (agwrite(G, out) != 0) {
		r = -ENOMEM;
	}
	if (r == 0 && !strbuf_ok(out))
		r = -ENOMEM;
	if (r == -ENOMEM)
		err(ctx, "cannot write the graph as %s (out of memory?)", device);
out:
	if (data)
		gvFreeRenderData(data);
	if (G) {
		if (want_layout)
			gvFreeLayout(gvc, G);
		agclose(G);
	}
	gvFreeContext(gvc);
	return r;
}
