// SPDX-License-Identifier: LGPL-2.1-or-later
/* mime.c: mail, MIME, mbox and ASCII armor, as much as ksp needs (mime.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/libksp-private.h"
#include "lib/party/mime.h"
#include "lib/openpgp/pgp.h"
#include "shared/util.h"

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int ksp_base64_decode(const char *in, size_t len, uint8_t **ret, size_t *ret_len)
{
	uint8_t *out;
	uint32_t acc = 0;
	size_t n = 0;
	int bits = 0;

	out = malloc(len / 4 * 3 + 4);
	if (out == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		int v;
		if (in[i] == '=')
			break;
		v = base64_value((unsigned char)in[i]);
		if (v < 0)
			continue;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	out[n] = '\0';
	*ret = out;
	*ret_len = n;
	return 0;
}

void ksp_base64_encode(struct strbuf *sb, const uint8_t *in, size_t len, size_t line_len)
{
	size_t col = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		size_t left = len - i;
		char q[4];

		if (left > 1)
			v |= (uint32_t)in[i + 1] << 8;
		if (left > 2)
			v |= in[i + 2];
		q[0] = b64chars[v >> 18 & 63];
		q[1] = b64chars[v >> 12 & 63];
		q[2] = left > 1 ? b64chars[v >> 6 & 63] : '=';
		q[3] = left > 2 ? b64chars[v & 63] : '=';
		strbuf_add(sb, q, 4);
		col += 4;
		if (line_len && col >= line_len) {
			strbuf_addch(sb, '\n');
			col = 0;
		}
	}
	if (line_len && col)
		strbuf_addch(sb, '\n');
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int ksp_qp_decode(const char *in, size_t len, uint8_t **ret, size_t *ret_len)
{
	uint8_t *out = malloc(len + 1);
	size_t n = 0;

	if (out == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		if (in[i] != '=') {
			out[n++] = (uint8_t)in[i];
			continue;
		}
		/* soft line break: "=" [spaces] CRLF or LF */
		size_t j = i + 1;
		while (j < len && (in[j] == ' ' || in[j] == '\t'))
			j++;
		if (j < len && in[j] == '\r' && j + 1 < len && in[j + 1] == '\n') {
			i = j + 1;
			continue;
		}
		if (j < len && in[j] == '\n') {
			i = j;
			continue;
		}
		if (j >= len) {
			i = j;
			continue;
		}
		if (i + 2 < len && hexval((unsigned char)in[i + 1]) >= 0 && hexval((unsigned char)in[i + 2]) >= 0) {
			out[n++] = (uint8_t)(hexval((unsigned char)in[i + 1]) << 4 | hexval((unsigned char)in[i + 2]));
			i += 2;
			continue;
		}
		out[n++] = '=';
	}
	out[n] = '\0';
	*ret = out;
	*ret_len = n;
	return 0;
}

void ksp_armor_encode(struct strbuf *sb, const char *type, const uint8_t *data, size_t len)
{
	uint32_t crc = ksp_crc24(data, len);
	uint8_t c[3] = { (uint8_t)(crc >> 16), (uint8_t)(crc >> 8), (uint8_t)crc };

	strbuf_addf(sb, "-----BEGIN PGP %s-----\n\n", type);
	ksp_base64_encode(sb, data, len, 64);
	strbuf_addch(sb, '=');
	ksp_base64_encode(sb, c, 3, 0);
	strbuf_addf(sb, "\n-----END PGP %s-----\n", type);
}

void ksp_pgp_packet_header(struct strbuf *sb, uint8_t tag, size_t len)
{
	uint8_t h[6];
	size_t n = 0;

	h[n++] = (uint8_t)(0xc0 | (tag & 0x3f));
	if (len < 192) {
		h[n++] = (uint8_t)len;
	} else if (len < 8384) {
		h[n++] = (uint8_t)(((len - 192) >> 8) + 192);
		h[n++] = (uint8_t)(len - 192);
	} else {
		h[n++] = 0xff;
		h[n++] = (uint8_t)(len >> 24);
		h[n++] = (uint8_t)(len >> 16);
		h[n++] = (uint8_t)(len >> 8);
		h[n++] = (uint8_t)len;
	}
	strbuf_add(sb, h, n);
}

long ksp_armor_find(const uint8_t *in, size_t len, size_t from, char type[32])
{
	static const char begin[] = "-----BEGIN PGP ";
	const size_t bl = sizeof(begin) - 1;

	while (from < len) {
		const uint8_t *p = memmem(in + from, len - from, begin, bl);
		size_t off, i, t = 0;

		if (p == NULL)
			return -1;
		off = (size_t)(p - in);
		from = off + bl;
		if (off > 0 && in[off - 1] != '\n' && in[off - 1] != '\r' && in[off - 1] != ' ' &&
		    in[off - 1] != '\t')
			continue;
		for (i = off + bl; i < len && t < 31 && in[i] != '-' && in[i] != '\n'; i++)
			type[t++] = (char)in[i];
		type[t] = '\0';
		if (i + 5 > len || memcmp(in + i, "-----", 5) != 0)
			continue;
		return (long)off;
	}
	return -1;
}

bool ksp_mbox_detect(const uint8_t *p, size_t len)
{
	return len >= 5 && memcmp(p, "From ", 5) == 0;
}

/* A header field name: printable ASCII but ':' (RFC 5322 2.2), then ':'. */
static size_t field_name_len(const uint8_t *p, size_t len)
{
	size_t i = 0;

	while (i < len && p[i] > 32 && p[i] < 127 && p[i] != ':')
		i++;
	if (i == 0 || i >= len || p[i] != ':')
		return 0;
	return i;
}

/* Offset just past the end of line at or after @i (len if none). */
static size_t next_line(const uint8_t *p, size_t len, size_t i)
{
	const uint8_t *nl = memchr(p + i, '\n', len - i);
	return nl ? (size_t)(nl - p) + 1 : len;
}

static bool is_blank_line(const uint8_t *p, size_t len, size_t i)
{
	return (i < len && p[i] == '\n') || (i + 1 < len && p[i] == '\r' && p[i + 1] == '\n');
}

/* Where the body starts: after the empty line ending the header fields,
 * or 0 when @p does not start with header fields. */
static size_t header_end(const uint8_t *p, size_t len)
{
	size_t i = 0;

	if (field_name_len(p, len) == 0)
		return 0;
	while (i < len) {
		if (is_blank_line(p, len, i))
			return next_line(p, len, i);
		if (p[i] != ' ' && p[i] != '\t' && field_name_len(p + i, len - i) == 0)
			return 0; /* not a header field nor a continuation */
		i = next_line(p, len, i);
	}
	return len; /* header fields only, no body */
}

bool ksp_mime_is_message(const uint8_t *p, size_t len)
{
	return header_end(p, len) > 0;
}

int ksp_mbox_split(const uint8_t *p, size_t len,
		   int (*fn)(void *data, const uint8_t *msg, size_t len, size_t index), void *data)
{
	size_t i = 0, index = 0;

	if (!ksp_mbox_detect(p, len))
		return 0;
	while (i < len) {
		size_t start = next_line(p, len, i), end = start;
		int r;

		/* the next separator: "From " at the start of a line */
		const uint8_t *q = memmem(p + end, len - end, "\nFrom ", 6);
		end = q ? (size_t)(q - p) + 1 : len;
		r = fn(data, p + start, end - start, ++index);
		if (r < 0)
			return r;
		i = end;
	}
	return 0;
}

/* ---- the MIME walker ---------------------------------------------------- */

struct fields {
	char ctype[512];
	char cte[64];
	char disp[512];
};

/* Copy one unfolded header value into @out (bounded). */
static void take_value(const uint8_t *p, size_t start, size_t end, char *out, size_t size)
{
	size_t n = 0;

	for (size_t i = start; i < end && n + 1 < size; i++) {
		uint8_t c = p[i];
		if (c == '\r' || c == '\n')
			continue;
		if (c == '\t')
			c = ' ';
		if (c < 32 || c == 127)
			continue;
		out[n++] = (char)c;
	}
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

static void parse_fields(const uint8_t *p, size_t hend, struct fields *f)
{
	size_t i = 0;

	memset(f, 0, sizeof(*f));
	while (i < hend) {
		size_t nl = field_name_len(p + i, hend - i), vstart, end;
		if (nl == 0) {
			i = next_line(p, hend, i);
			continue;
		}
		vstart = i + nl + 1;
		end = next_line(p, hend, i);
		while (end < hend && (p[end] == ' ' || p[end] == '\t'))
			end = next_line(p, hend, end);
		while (vstart < end && (p[vstart] == ' ' || p[vstart] == '\t'))
			vstart++;
		if (nl == 12 && strncasecmp((const char *)p + i, "Content-Type", 12) == 0)
			take_value(p, vstart, end, f->ctype, sizeof(f->ctype));
		else if (nl == 25 && strncasecmp((const char *)p + i, "Content-Transfer-Encoding", 25) == 0)
			take_value(p, vstart, end, f->cte, sizeof(f->cte));
		else if (nl == 19 && strncasecmp((const char *)p + i, "Content-Disposition", 19) == 0)
			take_value(p, vstart, end, f->disp, sizeof(f->disp));
		i = end;
	}
}

/* "type/subtype; ..." -> lower-case "type/subtype" */
static void media_type(const char *v, char *out, size_t size)
{
	size_t n = 0;

	while (*v == ' ')
		v++;
	for (; *v && *v != ';' && *v != ' ' && n + 1 < size; v++)
		out[n++] = (char)((*v >= 'A' && *v <= 'Z') ? *v + 32 : *v);
	out[n] = '\0';
}

/* The value of parameter @name in a header value, unquoted. */
static bool get_param(const char *v, const char *name, char *out, size_t size)
{
	size_t nl = strlen(name);
	const char *s = strchr(v, ';');

	while (s) {
		s++;
		while (*s == ' ')
			s++;
		if (strncasecmp(s, name, nl) == 0) {
			const char *t = s + nl;
			while (*t == ' ')
				t++;
			if (*t == '=') {
				size_t n = 0;
				t++;
				while (*t == ' ')
					t++;
				if (*t == '"') {
					for (t++; *t && *t != '"' && n + 1 < size; t++) {
						if (*t == '\\' && t[1])
							t++;
						out[n++] = *t;
					}
				} else {
					for (; *t && *t != ';' && *t != ' ' && n + 1 < size; t++)
						out[n++] = *t;
				}
				out[n] = '\0';
				return n > 0;
			}
		}
		/* skip to the next ';' outside quotes */
		bool q = false;
		for (; *s; s++) {
			if (*s == '"')
				q = !q;
			else if (*s == '\\' && q && s[1])
				s++;
			else if (*s == ';' && !q)
				break;
		}
		s = *s ? s : NULL;
	}
	return false;
}

struct walker {
	int (*fn)(void *data, const struct ksp_mime_part *part);
	void *data;
	unsigned parts;
	bool limit;
};

static int walk_entity(struct walker *w, const uint8_t *p, size_t len, unsigned depth, bool in_enc,
		       bool has_headers);

static int walk_multipart(struct walker *w, const uint8_t *p, size_t len, const char *boundary,
			  unsigned depth, bool in_enc)
{
	char delim[80];
	size_t dl, i = 0, part_start = 0;
	bool in_part = false;
	int r;

	dl = (size_t)snprintf(delim, sizeof(delim), "--%s", boundary);
	if (dl >= sizeof(delim))
		return 0;
	while (i < len) {
		const uint8_t *q = memmem(p + i, len - i, delim, dl);
		size_t off, after, end;
		bool close;

		if (q == NULL)
			break;
		off = (size_t)(q - p);
		i = off + dl;
		if (off > 0 && p[off - 1] != '\n')
			continue;
		close = i + 2 <= len && p[i] == '-' && p[i + 1] == '-';
		if (!close) {
			/* "--boundary" and then only white space up to the end of the
			 * line: "--b1" is not the delimiter "--b10" */
			size_t j = i;
			while (j < len && (p[j] == ' ' || p[j] == '\t'))
				j++;
			if (j < len && p[j] != '\r' && p[j] != '\n')
				continue;
		}
		after = next_line(p, len, i);
		if (in_part) {
			/* the line break before the delimiter belongs to it */
			end = off;
			if (end > part_start && p[end - 1] == '\n')
				end--;
			if (end > part_start && p[end - 1] == '\r')
				end--;
			r = walk_entity(w, p + part_start, end - part_start, depth + 1, in_enc, true);
			if (r < 0)
				return r;
		}
		if (close)
			return 0;
		in_part = true;
		part_start = after;
		i = after;
	}
	if (in_part && part_start < len) /* no close delimiter: up to the end */
		return walk_entity(w, p + part_start, len - part_start, depth + 1, in_enc, true);
	return 0;
}

static int walk_entity(struct walker *w, const uint8_t *p, size_t len, unsigned depth, bool in_enc,
		       bool has_headers)
{
	struct fields f;
	char type[128] = "text/plain", boundary[72], fname[128];
	size_t body = 0;
	int r;

	if (depth > KSP_MIME_MAX_DEPTH) {
		w->limit = true;
		return 0;
	}
	memset(&f, 0, sizeof(f));
	if (has_headers) {
		/* a part may have no header fields: it starts with the blank line */
		if (is_blank_line(p, len, 0)) {
			body = next_line(p, len, 0);
		} else {
			body = header_end(p, len);
			if (body > 0)
				parse_fields(p, body, &f);
		}
	}
	if (f.ctype[0])
		media_type(f.ctype, type, sizeof(type));
	if (strncmp(type, "multipart/", 10) == 0 && get_param(f.ctype, "boundary", boundary, sizeof(boundary)))
		return walk_multipart(w, p + body, len - body, boundary, depth,
				      in_enc || strcmp(type, "multipart/encrypted") == 0);

	/* a leaf (or message/rfc822): undo the transfer encoding */
	uint8_t *dec = NULL;
	const uint8_t *b = p + body;
	size_t bl = len - body;
	if (strcasecmp(f.cte, "base64") == 0) {
		r = ksp_base64_decode((const char *)b, bl, &dec, &bl);
		if (r < 0)
			return r;
		b = dec;
	} else if (strcasecmp(f.cte, "quoted-printable") == 0) {
		r = ksp_qp_decode((const char *)b, bl, &dec, &bl);
		if (r < 0)
			return r;
		b = dec;
	}
	if (strcmp(type, "message/rfc822") == 0) {
		r = walk_entity(w, b, bl, depth + 1, in_enc, true);
		free(dec);
		return r;
	}
	if (w->parts >= KSP_MIME_MAX_PARTS) {
		w->limit = true;
		free(dec);
		return 0;
	}
	w->parts++;
	fname[0] = '\0';
	if (!get_param(f.disp, "filename", fname, sizeof(fname)))
		get_param(f.ctype, "name", fname, sizeof(fname));
	struct ksp_mime_part part = {
		.type = type,
		.filename = fname[0] ? fname : NULL,
		.body = b,
		.len = bl,
		.depth = depth,
		.in_encrypted = in_enc,
	};
	r = w->fn(w->data, &part);
	free(dec);
	return r;
}

int ksp_mime_walk(const uint8_t *p, size_t len,
		  int (*fn)(void *data, const struct ksp_mime_part *part), void *data)
{
	struct walker w = { .fn = fn, .data = data };
	int r;

	r = walk_entity(&w, p, len, 0, false, ksp_mime_is_message(p, len));
	if (r < 0)
		return r;
	return w.limit ? -E2BIG : 0;
}
