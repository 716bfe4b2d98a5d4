// SPDX-License-Identifier: LGPL-2.1-or-later
/* An RSVP mail saved as a key file: a mail (a From: header) that holds a
 * fingerprint and no key, named with its sender so that the organizer
 * knows whom to ask ('party add'). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lib/libksp-private.h"
#include "lib/party/party-private.h"
#include "shared/util.h"

/* The value of header @name (case-insensitive, at a line start within the
 * header block) into @out, printable ASCII only. */
static bool mail_header(const char *p, size_t len, const char *name, char *out, size_t size)
{
	size_t nl = strlen(name), i = 0;

	while (i < len) {
		const char *e = memchr(p + i, '\n', len - i);
		size_t l = e ? (size_t)(e - (p + i)) : len - i;
		if (l == 0 || (l == 1 && p[i] == '\r'))
			break; /* end of the header block */
		if (l > nl && strncasecmp(p + i, name, nl) == 0 && p[i + nl] == ':') {
			size_t o = 0, k = i + nl + 1;
			while (k < i + l && p[k] == ' ')
				k++;
			for (; k < i + l && o + 1 < size && o < 120; k++)
				out[o++] = p[k] >= 0x20 && p[k] < 0x7f ? p[k] : '?';
			out[o] = '\0';
			return true;
		}
		i += l + 1;
	}
	return false;
}

/* A run of 40 or 64 hex digits (groups of 4 or 2 separated by single
 * spaces allowed) in @p: its normalized form into @fpr. */
static bool find_fingerprint(const char *p, size_t len, char fpr[65])
{
	for (size_t i = 0; i < len; i++) {
		char hex[65];
		size_t n = 0, k = i;
		if (i > 0 && ((p[i - 1] >= '0' && p[i - 1] <= '9') || (p[i - 1] >= 'A' && p[i - 1] <= 'F') ||
			      (p[i - 1] >= 'a' && p[i - 1] <= 'f')))
			continue;
		while (k < len && n < 64) {
			char c = p[k];
			bool h = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
			if (h) {
				hex[n++] = c;
				k++;
			} else if (c == ' ' && n > 0 && k + 1 < len && p[k + 1] != ' ') {
				k++;
			} else if (c == ' ' && n > 0 && k + 2 < len && p[k + 1] == ' ' && p[k + 2] != ' ') {
				k += 2; /* gpg's double space in the middle */
			} else {
				break;
			}
		}
		hex[n] = '\0';
		if ((n == 40 || n == 64) && fpr_normalize(hex, fpr) == 0)
			return true;
	}
	return false;
}

int ksp_party_mail_without_key(struct ksp_ctx *ctx, const void *data, size_t len, const char *source, char fpr[65])
{
	const char *p = data;
	char from[128] = "";

	fpr[0] = '\0';
	if (len == 0 || len > (1u << 20))
		return 0;
	/* a mail: a header block with From: (and no key block, or 'party add' would have read it) */
	if (!mail_header(p, len, "From", from, sizeof(from)) || memmem(p, len, "-----BEGIN PGP PUBLIC KEY BLOCK-----", 36))
		return 0;
	if (!find_fingerprint(p, len, fpr)) {
		fpr[0] = '\0';
		ksp_set_error(ctx, "%s: a mail from %s with no key in it; ask them to send their key (gpg --export --armor FINGERPRINT)",
			      source, from);
		return 1;
	}
	ksp_set_error(ctx, "%s: a mail from %s holding only a fingerprint, no key; fetch it with 'ksp party add --keyserver URL' or ask them to send the key (gpg --export --armor %s)",
		      source, from, fpr);
	return 1;
}
