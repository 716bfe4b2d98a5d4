// SPDX-License-Identifier: LGPL-2.1-or-later
/* QR codes of OPENPGP4FPR:<fingerprint> (the URI OpenKeychain and other
 * phone apps scan), drawn as SVG or block characters.  libqrencode makes
 * them in the drawing module (render-qrencode.c, lib/draw.h). */
#include <errno.h>

#include "lib/render/render-private.h"

#define QUIET 4      /* modules of white border, as the QR standard asks */
#define QUIET_TEXT 2 /* in text, where the paper around adds more */

int rd_qr_svg(const struct rd_qr *q, struct strbuf *out)
{
	int w = q->width + 2 * QUIET;

	strbuf_addf(out, "<svg class=\"qr\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
			 "shape-rendering=\"crispEdges\"><rect width=\"%d\" height=\"%d\" fill=\"#fff\"/><path fill=\"#000\" d=\"",
		    w, w, w, w);
	for (int y = 0; y < q->width; y++) {
		for (int x = 0; x < q->width;) {
			int run = 0;
			while (x + run < q->width && rd_qr_dark(q, x + run, y))
				run++;
			if (run) {
				strbuf_addf(out, "M%d %dh%dv1h-%dz", x + QUIET, y + QUIET, run, run);
				x += run;
			} else {
				x++;
			}
		}
	}
	strbuf_addstr(out, "\"/></svg>");
	return strbuf_ok(out) ? 0 : -ENOMEM;
}

/* Two module rows per text line: upper half block, lower half block, full
 * block, space; dark modules are ink on paper. */
int rd_qr_text(const struct rd_qr *q, struct strbuf *out)
{
	static const char *const cell[4] = { " ", "\xe2\x96\x80", "\xe2\x96\x84", "\xe2\x96\x88" };
	for (int y = -QUIET_TEXT; y < q->width + QUIET_TEXT; y += 2) {
		if (y > -QUIET_TEXT)
			strbuf_addch(out, '\n');
		for (int x = -QUIET_TEXT; x < q->width + QUIET_TEXT; x++) {
			int top = rd_qr_dark(q, x, y), bottom = rd_qr_dark(q, x, y + 1);
			strbuf_addstr(out, cell[top | bottom << 1]);
		}
	}
	return strbuf_ok(out) ? 0 : -ENOMEM;
}
