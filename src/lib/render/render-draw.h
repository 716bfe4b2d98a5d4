/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* render/'s part of the drawing module (lib/draw.h), for its table
 * (draw/draw-module.c): libksp calls these through the table, never by
 * name, so that cairo, pango and libqrencode load only when it draws. */
#pragma once

#include "lib/draw.h"

struct rd_doc;
struct rd_qr;
struct strbuf;

/* PDF (render-pdf.c).  Writes the whole PDF into @out; returns the page
 * count or -errno, with the error set through @err. */
int rd_pdf_render(const struct rd_doc *doc, struct strbuf *out, ksp_draw_error_fn err);

/* The QR code of "OPENPGP4FPR:<fpr_hex>" (render-qrencode.c,
 * libqrencode); 0 or -errno, with the error set through @err. */
int rd_qr_new(struct ksp_ctx *ctx, ksp_draw_error_fn err, const char *fpr_hex, struct rd_qr **ret);
