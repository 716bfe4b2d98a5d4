// SPDX-License-Identifier: LGPL-2.1-or-later
/* QR codes of OPENPGP4FPR:<fingerprint> (the URI OpenKeychain and other
 * phone apps scan), with libqrencode; drawn as SVG or block characters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qrencode.h>

#include "lib/render/render-private.h"

#define QUIET 4      /* modules of white border, as the QR standard asks */
#define QUIET_TEXT 2 /* in text, where the paper around adds more */

int rd_qr_new(struct ksp_ctx *ctx, const char *fpr_hex, struct rd_qr **ret)
{
	char uri[96];
	QRcode *c;
	struct rd_qr *q;
	size_t n;

	/* upper case: all of it fits QR's compact alphanumeric mode */
	snprintf(uri, sizeof(uri), "OPENPGP4FPR:%s", fpr_hex);
	for (char *p = uri; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	errno = 0;
	c = QRcode_encodeString(uri, 0, QR_ECLEVEL_M, QR_MODE_8, 1);
	if (c == NULL) {
		int r = errno ? -errno : -EIO;
		ksp_set_error(ctx, "cannot make the QR code of %s: %s", fpr_hex, strerror(-r));
		return r;
	}
	q = calloc(1, sizeof(*q));
	n = (size_t)c->width * (size_t)c->width;
	if (q)
		q->data = malloc(n);
	if (q == NULL || q->data == NULL) {
		free(q);
		QRcode_free(c);
		return -ENOMEM;
	}
	q->width = c->width;
	memcpy(q->data, c->data, n);
	QRcode_free(c);
	*ret = q;
	return 0;
}

struct rd_qr *rd_qr_free(struct rd_qr *q)
{
	if (q) {
		free(q->data);
		free(q);
	}
	return NULL;
}

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
