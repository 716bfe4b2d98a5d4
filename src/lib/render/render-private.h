/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Verification sheets and fingerprint slips: the document model shared by
 * the template engine (text, HTML) and the PDF drawer (cairo + pango). */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/libksp-private.h"
#include "lib/render/render-draw.h"
#include "shared/strbuf.h"

/* One participant as the renderers see it (strings owned by the doc). */
struct rd_part {
	const struct ksp_participant *p; /* borrowed from doc->it */
	int number;
	char number_s[16];
	char fpr_hex[65];
	char fpr_groups[96];
	char created[16];
	char expires[16]; /* "" when it never expires */
	bool is_you;
	char same_as[16]; /* "#N": another key on the list has an address of this one; "" none */
	char *repair;     /* the keys this one must certify for the repair plan ("#3, #5 (renewal)"), or NULL */
};

struct rd_doc {
	struct ksp_ctx *ctx;
	struct ksp_party *party;
	struct ksp_participant_iter *it;
	unsigned int kind;   /* KSP_RENDER_SHEET / _SLIPS */
	unsigned int format; /* KSP_FORMAT_TXT / _HTML / _PDF */
	unsigned int paper;  /* KSP_PAPER_A4 / _LETTER */
	unsigned int flags;  /* KSP_RENDER_QR ... */
	unsigned int count;  /* slips per key; 0: a page full (PDF) or 8 */
	bool draft;          /* the list is open: marked DRAFT, no digests */
	int list_version;    /* frozen version, or the next one for a draft */
	char version_s[48];
	char *sha256, *rmd160; /* NULL for a draft */
	char sha256_groups[96], rmd160_groups[64];
	char *name_esc;     /* party name, TERMINAL-escaped (PDF) */
	char *location_esc; /* "" when none */
	char organizer_groups[96];
	char count_s[24];
	struct rd_part *parts;
	size_t n_parts;
	size_t *sel; /* slips: indexes into parts of the keys to render */
	size_t n_selected;
	struct rd_part *you; /* --for, or NULL */
	size_t repair_n;     /* the repair plan's certifications marked (0: none, or hidden) */
	char repair_s[24];
	/* PDF: told of characters no font draws (ksp_render_opts_set_glyph_fn) */
	void (*glyph_fn)(void *data, int number, const char *fpr, const char *script, unsigned int missing);
	void *glyph_data;
};

/* A sheet or slips template (render-names.c: its names, over the engine
 * of lib/template.h), parsed for @kind (KSP_RENDER_SHEET / _SLIPS).
 * @source names it in error messages.  Free it with ksp_tpl_free(). */
struct ksp_tpl;
int rd_template_parse(struct ksp_ctx *ctx, const char *source, const char *text, size_t len,
		      unsigned int kind, struct ksp_tpl **ret);
/* Renders @t with @doc into @out, escaping every value for @format
 * (KSP_FORMAT_TXT: KSP_ESCAPE_TERMINAL, KSP_FORMAT_HTML: KSP_ESCAPE_HTML). */
int rd_template_render(const struct ksp_tpl *t, const struct rd_doc *doc, unsigned int format,
		       struct strbuf *out);

/* The built-in templates (render-builtin.c, made from templates/ by
 * templates/make-builtin.sh). */
extern const char rd_builtin_sheet_txt[];
extern const char rd_builtin_sheet_html[];
extern const char rd_builtin_slips_txt[];
extern const char rd_builtin_slips_html[];

/* QR codes of "OPENPGP4FPR:<fpr>" (libqrencode).  Modules are
 * rd_qr_dark(q, x, y) for 0 <= x, y < q->width. */
struct rd_qr {
	int width;
	unsigned char *data;
};
static inline struct rd_qr *rd_qr_free(struct rd_qr *q)
{
	if (q) {
		free(q->data);
		free(q);
	}
	return NULL;
}
static inline bool rd_qr_dark(const struct rd_qr *q, int x, int y)
{
	return x >= 0 && y >= 0 && x < q->width && y < q->width && (q->data[y * q->width + x] & 1);
}
/* An inline SVG (HTML) or half-block text picture (TXT), with a quiet zone. */
int rd_qr_svg(const struct rd_qr *q, struct strbuf *out);
int rd_qr_text(const struct rd_qr *q, struct strbuf *out);


/* Paper size in PostScript points (here, where every renderer takes it,
 * so that render.c and render-pdf.c do not call each other). */
static inline void rd_paper_size(unsigned int paper, double *w, double *h)
{
	if (paper == KSP_PAPER_LETTER) {
		*w = 612.0;
		*h = 792.0;
	} else {
		*w = 595.276;
		*h = 841.890;
	}
}
