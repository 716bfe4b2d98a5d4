// SPDX-License-Identifier: LGPL-2.1-or-later
/* sig-info.c: the first signature packet's own fields (see sig-info.h).
 * RFC 9580 4.2 (packet headers), 5.2.3 (v4/v6 signatures), 5.2.2 (v3),
 * 6.2 (armor). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpg/sig-info.h"
#include "shared/util.h"

static const char *find_line(const char *p, const char *end, const char *what)
{
	size_t n = strlen(what);

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)(end - p) >= n && memcmp(p, what, n) == 0)
			return p;
		p = eol ? eol + 1 : end;
	}
	return NULL;
}

/* The base64 body of the armored block starting at @begin (its BEGIN line):
 * header lines up to the blank line are skipped, decoding stops at the
 * checksum or END line.  Returns 0 and a malloc()ed buffer, or -EBADMSG
 * (no END line, bad characters). */
static int dearmor(const char *begin, const char *end, uint8_t **ret, size_t *ret_len)
{
	const char *p = memchr(begin, '\n', (size_t)(end - begin)), *q;
	uint8_t *out;
	size_t n = 0;
	unsigned acc = 0;
	int bits = 0;
	bool body = false, ended = false;

	if (p == NULL)
		return -EBADMSG;
	p++;
	out = malloc((size_t)(end - p) / 4 * 3 + 4);
	if (out == NULL)
		return -ENOMEM;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end;
		size_t ll = (size_t)(le - p);

		while (ll && (p[ll - 1] == '\r' || p[ll - 1] == ' ' || p[ll - 1] == '\t'))
			ll--;
		if (ll >= 5 && memcmp(p, "-----", 5) == 0) {
			ended = true;
			break;
		}
		if (!body) {
			/* "Key: value" header lines until the blank line */
			if (ll == 0 || memchr(p, ':', ll) == NULL)
				body = true;
			if (ll == 0 || memchr(p, ':', ll) != NULL) {
				p = eol ? eol + 1 : end;
				continue;
			}
		}
		if (ll && p[0] == '=' ) { /* CRC-24 line: the data has ended */
			q = find_line(p, end, "-----END PGP ");
			ended = q != NULL;
			break;
		}
		for (size_t i = 0; i < ll; i++) {
			int v;
			if (p[i] == '=')
				break;
			v = base64_value((unsigned char)p[i]);
			if (v < 0) {
				free(out);
				return -EBADMSG;
			}
			acc = (acc << 6) | (unsigned)v;
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				out[n++] = (uint8_t)(acc >> bits);
			}
		}
		p = eol ? eol + 1 : end;
	}
	if (!ended || n == 0) {
		free(out);
		return -EBADMSG;
	}
	*ret = out;
	*ret_len = n;
	return 0;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void read_subpackets(const uint8_t *p, size_t n, bool hashed, struct sig_info *si)
{
	size_t i = 0;

	while (i < n) {
		size_t len, hl;
		const uint8_t *b;
		int type;

		if (p[i] < 192) {
			len = p[i];
			hl = 1;
		} else if (p[i] < 255) {
			if (i + 1 >= n)
				return;
			len = ((size_t)(p[i] - 192) << 8) + p[i + 1] + 192;
			hl = 2;
		} else {
			if (i + 5 > n)
				return;
			len = be32(p + i + 1);
			hl = 5;
		}
		if (len == 0 || len > n - i - hl)
			return;
		b = p + i + hl;
		type = b[0] & 0x7f;
		if (type == 2 && len == 5 && hashed)
			si->created = be32(b + 1);
		else if (type == 3 && len == 5 && hashed)
			si->expires = be32(b + 1);
		else if (type == 16 && len == 9 && si->keyid[0] == '\0')
			hex_encode(b + 1, 8, si->keyid);
		else if (type == 33 && (len == 22 || len == 34) && si->fpr[0] == '\0')
			hex_encode(b + 2, len - 2, si->fpr);
		i += hl + len;
	}
}

static void parse_sig(const uint8_t *b, size_t n, struct sig_info *si)
{
	si->found = true;
	if (n < 1)
		return;
	si->version = b[0];
	if ((b[0] == 3 || b[0] == 2) && n >= 19 && b[1] == 5) {
		si->type = b[2];
		si->created = be32(b + 3);
		hex_encode(b + 7, 8, si->keyid);
		si->pk_algo = b[15];
		si->hash_algo = b[16];
		return;
	}
	if (b[0] == 4 && n >= 6) {
		size_t hl = (size_t)b[4] << 8 | b[5], ul;
		si->type = b[1];
		si->pk_algo = b[2];
		si->hash_algo = b[3];
		if (6 + hl + 2 > n)
			return;
		read_subpackets(b + 6, hl, true, si);
		ul = (size_t)b[6 + hl] << 8 | b[7 + hl];
		if (8 + hl + ul <= n)
			read_subpackets(b + 8 + hl, ul, false, si);
	} else if ((b[0] == 5 || b[0] == 6) && n >= 8) {
		size_t hl = be32(b + 4), ul;
		si->type = b[1];
		si->pk_algo = b[2];
		si->hash_algo = b[3];
		if (hl > n || 8 + hl + 4 > n)
			return;
		read_subpackets(b + 8, hl, true, si);
		ul = be32(b + 8 + hl);
		if (ul <= n && 12 + hl + ul <= n)
			read_subpackets(b + 12 + hl, ul, false, si);
	}
	if (si->keyid[0] == '\0' && si->fpr[0])
		sig_info_keyid_of(si->fpr, si->keyid);
	if (si->expires)
		si->expires += si->created;
}

/* One packet at *pos: its tag and body (the first chunk of a partial
 * body).  Returns 1, 0 at the end, -1 on a malformed header. */
static int next_packet(const uint8_t *b, size_t n, size_t *pos, int *tag, const uint8_t **body, size_t *blen)
{
	size_t p = *pos, len;
	uint8_t h;

	if (p >= n)
		return 0;
	h = b[p++];
	if (!(h & 0x80))
		return -1;
	if (h & 0x40) {
		*tag = h & 0x3f;
		if (p >= n)
			return -1;
		if (b[p] < 192) {
			len = b[p++];
		} else if (b[p] < 224) {
			if (p + 1 >= n)
				return -1;
			len = ((size_t)(b[p] - 192) << 8) + b[p + 1] + 192;
			p += 2;
		} else if (b[p] == 255) {
			if (p + 5 > n)
				return -1;
			len = be32(b + p + 1);
			p += 5;
		} else {
			/* partial body: the first chunk; the rest is not needed */
			len = (size_t)1 << (b[p] & 0x1f);
			p++;
			if (len > n - p)
				len = n - p;
			*body = b + p;
			*blen = len;
			*pos = n; /* nothing after a partial packet is read */
			return 1;
		}
	} else {
		int lt = h & 3;
		*tag = (h >> 2) & 0x0f;
		if (lt == 3) {
			len = n - p;
		} else {
			size_t k = (size_t)1 << lt;
			if (p + k > n)
				return -1;
			len = 0;
			for (size_t i = 0; i < k; i++)
				len = len << 8 | b[p + i];
			p += k;
		}
	}
	if (len > n - p)
		return -1;
	*body = b + p;
	*blen = len;
	*pos = p + len;
	return 1;
}

int sig_info_read(const uint8_t *in, size_t len, struct sig_info *si)
{
	const char *s = (const char *)in, *end = s + len, *arm;
	uint8_t *dec = NULL;
	const uint8_t *b = in;
	size_t n = len, pos = 0;
	int r = 0, packets = 0;

	memset(si, 0, sizeof(*si));
	arm = find_line(s, end, "-----BEGIN PGP ");
	if (arm) {
		si->armored = true;
		if (find_line(arm, end, "-----BEGIN PGP SIGNED MESSAGE-----") == arm) {
			si->cleartext = true;
			arm = find_line(arm, end, "-----BEGIN PGP SIGNATURE-----");
			if (arm == NULL)
				return -EBADMSG;
		}
		r = dearmor(arm, end, &dec, &n);
		if (r < 0)
			return r;
		b = dec;
	} else if (len == 0 || !(in[0] & 0x80)) {
		return -EBADMSG;
	}
	for (;;) {
		const uint8_t *body;
		size_t blen;
		int tag, k = next_packet(b, n, &pos, &tag, &body, &blen);

		if (k <= 0) {
			if (k < 0 && packets == 0)
				r = -EBADMSG;
			break;
		}
		packets++;
		if (tag == 2) {
			parse_sig(body, blen, si);
			break;
		}
		if (tag == 4) { /* one-pass signature: v3 names the key ID */
			if (blen >= 13 && body[0] == 3) {
				si->type = body[1];
				si->hash_algo = body[2];
				si->pk_algo = body[3];
				hex_encode(body + 4, 8, si->keyid);
			}
		} else if (tag == 11) {
			si->literal = true;
		} else if (tag == 8 || tag == 9 || tag == 18 || tag == 20 || tag == 1 || tag == 3) {
			si->opaque = true;
			break;
		} else if (tag != 10 && tag != 12) { /* marker, trust: skip */
			if (packets == 1)
				r = -EBADMSG; /* a key or something else: no signature */
			break;
		}
	}
	free(dec);
	return r;
}

void sig_info_keyid_of(const char *fpr, char out[17])
{
	size_t n = strlen(fpr);

	if (n == 40)
		memcpy(out, fpr + 24, 16);
	else if (n >= 16)
		memcpy(out, fpr, 16);
	else
		n = 0;
	out[n ? 16 : 0] = '\0';
}
