/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mail-header.h: the header fields and the PGP/MIME envelope (RFC 5322,
 * RFC 3156) of the messages 'party sign' and 'party remind' leave in the
 * outbox, written in one place.  Internal to libksp.
 *
 * Addresses come from lib/addr.c (printable ASCII, no controls); the
 * display name and the subject go through ksp_mail_header_text()
 * (RFC 2047 unless plain ASCII words), so that no user ID, name or
 * template text can start another header field.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "shared/strbuf.h"

struct ksp_mail_head {
	const char *from;      /* the sender's address; NULL or "": no From: */
	const char *from_name; /* the sender's display name, or NULL */
	const char *bcc;       /* a Bcc: address (with From: only), or NULL */
	const char *to;        /* the recipient's address */
	const char *subject;   /* any bytes: encoded as needed */
	int64_t date;          /* seconds since the epoch, for Date: */
};

/* Appends From: (and Bcc:), To:, Subject:, Date:, a random Message-ID:
 * and MIME-Version: 1.0, each ending in "\n". */
void ksp_mail_head_write(struct strbuf *sb, const struct ksp_mail_head *h);

/* Appends the multipart/encrypted entity (RFC 3156 4) around @cipher (an
 * ASCII-armored OpenPGP message), with a random boundary. */
void ksp_mail_pgp_encrypted(struct strbuf *sb, const char *cipher);

/* @bytes (at most 32) random bytes as hex into @out (2 * @bytes + 1). */
void ksp_mail_random_hex(char *out, size_t bytes);
