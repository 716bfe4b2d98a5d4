// SPDX-License-Identifier: LGPL-2.1-or-later
/* QR codes of OPENPGP4FPR:<fingerprint> with libqrencode: the modules, for
 * render-qr.c (SVG, text) and render-pdf.c to draw.  Part of the drawing
 * module (ksp-render.so, lib/draw.h), so that libqrencode is loaded only
 * when a sheet shows QR codes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qrencode.h>

#include "lib/render/render-private.h"

int rd_qr_new(struct ksp_ctx *ctx, ksp_draw_error_fn err, const char *fpr_hex, struct rd_qr **ret)
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
		err(ctx, "cannot make the QR code of %s: %s", fpr_hex, strerror(-r));
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
