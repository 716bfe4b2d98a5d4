// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The header fields and PGP/MIME envelope of the mails ksp writes
 * (mail-header.h): one copy for 'party sign' and 'party remind'.
 */
#include <stdio.h>
#include <time.h>

#include <gcrypt.h>

#include "lib/party/mail-header.h"
#include "lib/party/mail-template.h"
#include "shared/util.h"

void ksp_mail_random_hex(char *out, size_t bytes)
{
	uint8_t b[32];

	if (bytes > sizeof(b))
		bytes = sizeof(b);
	gcry_create_nonce(b, bytes);
	hex_encode(b, bytes, out);
}

/* RFC 5322 3.3, in UTC, with English names whatever the locale. */
static void rfc5322_date(int64_t t, char *buf, size_t size)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const mons[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	snprintf(buf, size, "%s, %02d %s %04d %02d:%02d:%02d +0000", days[tm.tm_wday % 7], tm.tm_mday,
		 mons[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void ksp_mail_head_write(struct strbuf *sb, const struct ksp_mail_head *h)
{
	char mid[33], date[64];

	ksp_mail_random_hex(mid, 16);
	rfc5322_date(h->date, date, sizeof(date));
	if (h->from && h->from[0]) {
		strbuf_addstr(sb, "From: ");
		if (h->from_name) {
			ksp_mail_header_text(sb, h->from_name, true);
			strbuf_addf(sb, " <%s>\n", h->from);
		} else {
			strbuf_addf(sb, "%s\n", h->from);
		}
		if (h->bcc)
			strbuf_addf(sb, "Bcc: %s\n", h->bcc);
	}
	strbuf_addf(sb, "To: %s\n", h->to);
	strbuf_addstr(sb, "Subject: ");
	ksp_mail_header_text(sb, h->subject, false);
	strbuf_addch(sb, '\n');
	strbuf_addf(sb, "Date: %s\nMessage-ID: <ksp.%s@ksp.invalid>\nMIME-Version: 1.0\n", date, mid);
}

void ksp_mail_pgp_encrypted(struct strbuf *sb, const char *cipher)
{
	char bnd[33];

	ksp_mail_random_hex(bnd, 16);
	strbuf_addf(sb, "Content-Type: multipart/encrypted; protocol=\"application/pgp-encrypted\";\n"
			" boundary=\"ksp-%s\"\n\n", bnd);
	strbuf_addstr(sb, "This is an OpenPGP/MIME encrypted message (RFC 4880 and RFC 3156).\n");
	strbuf_addf(sb, "--ksp-%s\nContent-Type: application/pgp-encrypted\n"
			"Content-Description: PGP/MIME version identification\n\nVersion: 1\n\n", bnd);
	strbuf_addf(sb, "--ksp-%s\nContent-Type: application/octet-stream; name=\"encrypted.asc\"\n"
			"Content-Description: OpenPGP encrypted message\n"
			"Content-Disposition: inline; filename=\"encrypted.asc\"\n\n%s\n--ksp-%s--\n",
		    bnd, cipher, bnd);
}
