// SPDX-License-Identifier: LGPL-2.1-or-later
/* The drawing module's table (lib/draw.h): what ksp-render.so offers
 * libksp.so.1, which finds it with dlsym(); a program linked with libksp.a
 * and these objects uses it directly.  The module holds graph/graph-render.c
 * (graphviz), render/render-pdf.c (cairo, pango), render/render-qrencode.c
 * (libqrencode) and this table; of libksp it uses the public API and
 * src/shared/ (linked into it). */
#include "lib/draw.h"
#include "lib/graph/graph.h"
#include "lib/render/render-draw.h"

KSP_EXPORT const struct ksp_draw ksp_draw_module = {
	.head = { .abi = KSP_DRAW_ABI, .version = VERSION },
	.graph = rd_graph_draw,
	.pdf = rd_pdf_render,
	.qr = rd_qr_new,
};
