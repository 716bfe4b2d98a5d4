/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * draw.h: the drawing module (module.h).  What draws (graphviz for the
 * web-of-trust pictures, cairo and pango for the PDF sheets, libqrencode
 * for the QR codes) lives in ksp-render.so, not in libksp.so.1: those
 * libraries and the forty they need (X11, fontconfig, glib...) cost every
 * ksp process about 6 ms of CPU to load and relocate
 * (bench/results-startup.md), and only drawing uses them.  libksp.so.1
 * loads the module the first time a command draws (ksp_draw_load(), draw.c)
 * and calls it through the table below (draw/draw-module.c).
 */
#pragma once

#include <stdbool.h>

#include "lib/libksp-private.h"
#include "lib/module.h"

struct ksp_graph;
struct rd_doc;
struct rd_qr;
struct strbuf;

/* Bump when this table, or a type it passes (struct ksp_graph, gnode,
 * gedge in graph/graph.h; struct rd_doc, rd_part, rd_qr in
 * render/render-private.h; struct strbuf), changes: a module of another
 * build is then refused rather than called. */
#define KSP_DRAW_ABI 1
/* the module's file, in the folder "ksp" beside libksp.so.1 */
#define KSP_DRAW_MODULE "ksp-render.so"

typedef ksp_module_error_fn ksp_draw_error_fn;

struct ksp_draw {
	struct ksp_module_head head; /* KSP_DRAW_ABI, VERSION */
	/* Builds @g for graphviz's @layout, lays it out when @want_layout
	 * (else the graph as built, for @device "dot") and appends the
	 * picture as @device ("svg", "png", "pdf", "dot") to @out.  0 or
	 * -errno with the error set through @err on g->ctx. */
	int (*graph)(const struct ksp_graph *g, const char *device, const char *layout, bool want_layout,
		     struct strbuf *out, ksp_draw_error_fn err);
	/* The PDF of @doc appended to @out; the page count or -errno. */
	int (*pdf)(const struct rd_doc *doc, struct strbuf *out, ksp_draw_error_fn err);
	/* The QR code of "OPENPGP4FPR:<fpr_hex>"; 0 or -errno. */
	int (*qr)(struct ksp_ctx *ctx, ksp_draw_error_fn err, const char *fpr_hex, struct rd_qr **ret);
};

/* The drawing module: linked in, or loaded from beside libksp.so.1.  NULL
 * with the error set on @ctx (one line: the module's file and what to do)
 * when it is missing or of another build. */
const struct ksp_draw *ksp_draw_load(struct ksp_ctx *ctx);
