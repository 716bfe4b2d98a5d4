/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mime.h: the parts of RFC 5322 mail, MIME (RFC 2045-2049), PGP/MIME
 * (RFC 3156) and mbox files that ksp needs: finding OpenPGP data in mail
 * that comes back after a party, and writing the PGP/MIME messages that
 * 'ksp party sign' leaves in the outbox.  Also the ASCII armor encoder and
 * OpenPGP packet headers for the keys ksp writes.  Internal to libksp.
 *
 * Everything here reads hostile input: every length is checked, nesting
 * and part counts are bounded, and nothing is ever read past @len.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/strbuf.h"

/* Limits of the MIME walker. */
#define KSP_MIME_MAX_DEPTH 12
#define KSP_MIME_MAX_PARTS 2000

/* base64 (RFC 2045 6.8): characters outside the alphabet are ignored,
 * decoding stops at the first '='.  *ret is malloc'ed (NUL after the
 * data).  Returns 0 or -ENOMEM. */
int ksp_base64_decode(const char *in, size_t len, uint8_t **ret, size_t *ret_len);
/* Appends @in as base64 in lines of @line_len characters ending in "\n"
 * (0: one line, no newline). */
void ksp_base64_encode(struct strbuf *sb, const uint8_t *in, size_t len, size_t line_len);
/* quoted-printable (RFC 2045 6.7), soft line breaks removed, bad escapes
 * kept as they are.  Returns 0 or -ENOMEM. */
int ksp_qp_decode(const char *in, size_t len, uint8_t **ret, size_t *ret_len);

/* "-----BEGIN PGP @type-----" ... with the CRC24 line. */
void ksp_armor_encode(struct strbuf *sb, const char *type, const uint8_t *data, size_t len);
/* A new-format packet header for @tag and a body of @len octets. */
void ksp_pgp_packet_header(struct strbuf *sb, uint8_t tag, size_t len);

/* Find the next "-----BEGIN PGP X-----" line at or after @from.  Returns
 * its offset and the type X (up to 31 bytes, NUL-terminated) or -1. */
long ksp_armor_find(const uint8_t *in, size_t len, size_t from, char type[32]);

/* True when @p starts with an mbox "From " separator line. */
bool ksp_mbox_detect(const uint8_t *p, size_t len);
/* True when @p starts with header fields (RFC 5322 2.2: name ":" value)
 * and has the empty line that ends them: a mail message or MIME entity. */
bool ksp_mime_is_message(const uint8_t *p, size_t len);

/* Calls @fn for every message of an mbox (the "From " line left out),
 * numbered from 1.  Stops at, and returns, a negative value from @fn. */
int ksp_mbox_split(const uint8_t *p, size_t len,
		   int (*fn)(void *data, const uint8_t *msg, size_t len, size_t index), void *data);

struct ksp_mime_part {
	const char *type;      /* "text/plain", lower case, parameters dropped */
	const char *filename;  /* from Content-Disposition or name=, may be NULL */
	const uint8_t *body;   /* decoded (base64, quoted-printable) */
	size_t len;
	unsigned depth;
	bool in_encrypted;     /* a part of multipart/encrypted */
};

/* Calls @fn for every leaf part of the message or entity @p (an entity
 * without header fields is one text/plain part).  multipart/ and
 * message/rfc822 parts are entered up to KSP_MIME_MAX_DEPTH levels; at
 * most KSP_MIME_MAX_PARTS leaves are visited.  Returns 0, -ENOMEM, the
 * first negative value of @fn, or -E2BIG when a limit was hit (the parts
 * before it were visited). */
int ksp_mime_walk(const uint8_t *p, size_t len,
		  int (*fn)(void *data, const struct ksp_mime_part *part), void *data);
