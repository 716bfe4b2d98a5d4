// SPDX-License-Identifier: LGPL-2.1-or-later
/* The public calls that draw a web-of-trust picture: the format and the
 * layout checked, the drawing module (lib/draw.h: graphviz, in
 * ksp-render.so) loaded and asked for the picture in memory, the result
 * written to a file descriptor or atomically to a file.  Loading graphviz
 * only here keeps it out of every other command's start-up. */
#include <errno.h>
#include <string.h>

#include "lib/draw.h"
#include "lib/graph/graph.h"
#include "shared/strbuf.h"
#include "shared/util.h"

static const char *const formats[] = { "svg", "png", "pdf", "dot", NULL };
static const char *const layouts[] = { "dot", "neato", "fdp", "sfdp", "circo", "twopi", NULL };

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

KSP_EXPORT const char *ksp_graph_get_default_layout(const struct ksp_graph *g)
{
	if (g == NULL)
		return NULL;
	switch (g->kind) {
	case GRAPH_PARTY: return g->n_nodes > 2 ? "circo" : "dot";
	case GRAPH_STRONG_SET: return "sfdp";
	case GRAPH_AROUND: return g->n_nodes > 100 ? "sfdp" : "neato";
	default: return "dot";
	}
}

/* Lays out and renders @g into memory, then writes it to @path or @fd. */
static int render(const struct ksp_graph *g, const char *format, const char *layout, int fd, const char *path)
{
	struct ksp_ctx *ctx = g->ctx;
	const struct ksp_draw *draw;
	bool want_layout = true;
	struct strbuf sb;
	int r;

	if (format == NULL)
		format = "svg";
	if (!in_list(formats, format)) {
		ksp_set_error(ctx, "unknown picture format '%s'; use svg, png, pdf or dot", format);
		return -EINVAL;
	}
	/* dot without a layout: the graph as built, without positions, for other tools */
	if (strcmp(format, "dot") == 0 && layout == NULL)
		want_layout = false;
	if (layout == NULL)
		layout = ksp_graph_get_default_layout(g);
	if (!in_list(layouts, layout)) {
		ksp_set_error(ctx, "unknown graphviz layout '%s'; use dot, neato, fdp, sfdp, circo or twopi", layout);
		return -EINVAL;
	}
	draw = ksp_draw_load(ctx);
	if (draw == NULL)
		return -ELIBACC;
	strbuf_init(&sb);
	r = draw->graph(g, format, layout, want_layout, &sb, ksp_set_error);
	if (r < 0)
		goto out;
	if (path) {
		struct atomic_file af;
		r = atomic_file_begin(&af, path, 0644);
		if (r == 0)
			r = atomic_file_end(&af, write_all(af.fd, strbuf_str(&sb), sb.len));
		if (r < 0)
			ksp_set_error(ctx, "%s: cannot write: %s; check the directory exists and is writable", path,
				      output_strerror(r));
	} else {
		r = write_all(fd, strbuf_str(&sb), sb.len);
		if (r < 0)
			ksp_set_error(ctx, "cannot write the picture: %s", strerror(-r));
	}
out:
	strbuf_release(&sb);
	return r;
}

KSP_EXPORT int ksp_graph_render(const struct ksp_graph *g, const char *format, const char *layout, int fd)
{
	if (g == NULL || fd < 0)
		return -EINVAL;
	ksp_clear_error(g->ctx);
	return render(g, format, layout, fd, NULL);
}

KSP_EXPORT int ksp_graph_render_file(const struct ksp_graph *g, const char *format, const char *layout,
				     const char *path)
{
	if (g == NULL || path == NULL || *path == '\0')
		return -EINVAL;
	ksp_clear_error(g->ctx);
	return render(g, format, layout, -1, path);
}
