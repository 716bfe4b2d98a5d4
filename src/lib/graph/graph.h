/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * graph.h: the drawing model of a web-of-trust picture, built from
 * the store by graph.c and handed to graphviz by graph-render.c.  It holds
 * everything the picture needs (labels already made safe for graphviz), so
 * rendering touches neither the store nor the engine.  Internal to libksp:
 * graph/'s interface for the folders above it (publish/).
 *
 * Labels: a user ID is escaped for a terminal (ksp_escape TERMINAL:
 * controls, bidi overrides and invalid UTF-8 become visible \xNN and
 * \u{NNNN}, a backslash becomes \\), then for graphviz's escString
 * interpretation of plain (never HTML-like) labels: every backslash is
 * doubled again (so \N, \G, \n, \l stay text) and '&' becomes "&amp;"
 * (graphviz decodes HTML entities in plain labels).  Lines are joined with
 * the escString "\n".  Nothing else in the model comes from user input.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/draw.h"
#include "lib/libksp-private.h"

enum graph_kind {
	GRAPH_PARTY = 0,
	GRAPH_STRONG_SET = 1,
	GRAPH_AROUND = 2,
	GRAPH_PATHS = 3,
	GRAPH_TRUST = 4,
};

enum gnode_role {
	GNODE_PLAIN = 0,
	GNODE_CORE = 1,     /* a path source (trust core), or the centre of an "around" graph */
	GNODE_TARGET = 2,   /* the end of the paths */
	GNODE_INVALID = 3,  /* a participant that is not a vertex at the time */
};

enum gedge_flags {
	GEDGE_BOTH = 1 << 0,    /* a two-way pair, drawn as one edge with two arrowheads */
	GEDGE_MISSING = 1 << 1, /* a certification not made yet (party graph), dashed */
};

struct gnode {
	char fpr[65];
	char *label;        /* graphviz-safe (see above) */
	unsigned int role;
	char fill[32];      /* graphviz colour, "H S V" */
	double width;       /* inches, 0 = graphviz default */
	double fontsize;    /* 0 = default */
};

struct gedge {
	uint32_t tail, head; /* node indexes */
	unsigned int flags;
	char label[48];      /* hop dates, may be empty */
};

struct ksp_graph {
	struct ksp_ctx *ctx;
	unsigned int kind;
	char *title;         /* graphviz-safe graph label, may be NULL */
	struct gnode *nodes;
	size_t n_nodes, cap_nodes;
	struct gedge *edges;
	size_t n_edges, cap_edges;
	size_t arcs;         /* certifications u -> v drawn (a two-way edge counts 2) */
	size_t missing;      /* dashed edges drawn for missing certifications */
	int length;          /* paths: edges per shortest path, -1 when none */
};

/* graph.c: a graphviz-safe label line of raw (hostile) bytes; caller frees. */
char *ksp_graph_label_escape(const void *raw, size_t len);

/* graph.c, for publish/: the paths given, path p being the lens[p]
 * fingerprints that follow those of the paths before it (its first key a
 * source, its last the target). */
int ksp_graph_new_pathset(struct ksp_store *store, const char *const *fprs, const size_t *lens, size_t n_paths,
			  const char *title, struct ksp_graph **ret);

/* graph-render.c, in the drawing module (lib/draw.h): the picture of @g
 * laid out by graphviz, appended to @out.  libksp calls it through the
 * module's table (graph-draw.c). */
struct strbuf;
int rd_graph_draw(const struct ksp_graph *g, const char *device, const char *layout, bool want_layout,
		  struct strbuf *out, ksp_draw_error_fn err);
