/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pgp-armor.c: OpenPGP ASCII armor (RFC 4880 section 6, RFC 9580 section 6). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/openpgp/pgp.h"
#include "shared/util.h"

#define CRC24_INIT 0xB704CEu
#define CRC24_POLY 0x1864CFBu

uint32_t ksp_crc24(const uint8_t *data, size_t len)
{
	uint32_t crc = CRC24_INIT;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= (uint32_t)data[i] << 16;
		for (k = 0; k < 8; k++) {
			crc <<= 1;
			if (crc & 0x1000000u)
				crc ^= CRC24_POLY;
		}
	}
	return crc & 0xFFFFFFu;
}

static const char begin_marker[] = "-----BEGIN PGP ";
static const char end_marker[] = "-----END PGP ";
#define BEGIN_LEN (sizeof(begin_marker) - 1)
#define END_LEN (sizeof(end_marker) - 1)

/* -1: not base64; -2: '='; else the 6-bit value */
static int b64_value(uint8_t c)
{
	return c == '=' ? -2 : base64_value(c);
}

static bool is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Offset of the end of the line starting at p (pointing at '\n' or len). */
static size_t line_end(const uint8_t *in, size_t len, size_t p)
{
	const uint8_t *nl = p < len ? memchr(in + p, '\n', len - p) : NULL;

	return nl ? (size_t)(nl - in) : len;
}

static size_t next_line(const uint8_t *in, size_t len, size_t p)
{
	size_t e = line_end(in, len, p);

	return e < len ? e + 1 : len;
}

/* Is the line [p, e) blank (only whitespace)? */
static bool line_blank(const uint8_t *in, size_t p, size_t e)
{
	for (; p < e; p++)
		if (!is_space(in[p]))
			return false;
	return true;
}

/* Find a line starting with "-----BEGIN PGP " that is not a cleartext
 * signed message; returns its offset or len. */
static size_t find_begin(const uint8_t *in, size_t len, size_t from)
{
	size_t p = from;

	while (p < len) {
		const uint8_t *hit;

		if (len - p < BEGIN_LEN)
			return len;
		hit = memmem(in + p, len - p, begin_marker, BEGIN_LEN);
		if (!hit)
			return len;
		p = (size_t)(hit - in);
		if (p == 0 || in[p - 1] == '\n') {
			static const char signed_msg[] = "SIGNED MESSAGE";
			size_t q = p + BEGIN_LEN;

			if (!(len - q >= sizeof(signed_msg) - 1 &&
			      memcmp(in + q, signed_msg, sizeof(signed_msg) - 1) == 0))
				return p;
		}
		p++;
	}
	return len;
}

bool ksp_armor_detect(const uint8_t *in, size_t len)
{
	size_t p = 0;

	while (p < len && is_space(in[p]))
		p++;
	if (p >= len || (in[p] & 0x80))
		return false;
	return find_begin(in, len, p) < len;
}

int ksp_armor_decode(const uint8_t *in, size_t len, uint8_t **ret, size_t *ret_len,
		     size_t *ret_consumed)
{
	size_t p, e, data_start, data_end, q, n, o = 0, consumed;
	bool have_crc = false;
	uint32_t crc_want = 0, acc = 0;
	int nbits = 0;
	bool pad = false;
	uint8_t *out;

	p = find_begin(in, len, 0);
	if (p >= len)
		return -ENODATA;
	e = line_end(in, len, p);
	/* the BEGIN line must end with "-----" (trailing blanks allowed) */
	q = e;
	while (q > p && is_space(in[q - 1]))
		q--;
	if (q - p < BEGIN_LEN + 5 || memcmp(in + q - 5, "-----", 5) != 0)
		return -EBADMSG;
	p = next_line(in, len, p);

	/* Armor headers: "Key: value" lines up to a blank line.  Tolerate a
	 * missing blank line when the first line is not a header. */
	{
		size_t h = p;
		bool any_header = false;

		while (h < len) {
			size_t he = line_end(in, len, h);

			if (line_blank(in, h, he)) {
				h = next_line(in, len, h);
				p = h;
				break;
			}
			/* a BEGIN line ends this block: scanning on would make a
			 * run of unterminated blocks quadratic */
			if (he - h >= BEGIN_LEN && memcmp(in + h, begin_marker, BEGIN_LEN) == 0)
				return -EBADMSG;
			if (!memchr(in + h, ':', he - h)) {
				/* not a header: data starts here */
				if (any_header)
					p = h;
				break;
			}
			any_header = true;
			h = next_line(in, len, h);
			p = h;
		}
	}

	/* Data lines up to the checksum line ("=XXXX") or the END line. */
	data_start = p;
	data_end = p;
	while (p < len) {
		size_t s = p;

		e = line_end(in, len, p);
		while (s < e && is_space(in[s]))
			s++;
		if (e - s >= END_LEN && memcmp(in + s, end_marker, END_LEN) == 0)
			break;
		/* another BEGIN line before this block's END: unterminated
		 * (and not scanned past, so that a file of them is linear) */
		if (e - s >= BEGIN_LEN && memcmp(in + s, begin_marker, BEGIN_LEN) == 0)
			return -EBADMSG;
		if (s < e && in[s] == '=') {
			/* checksum line: '=' and 4 base64 characters */
			size_t t = s + 1, k = 0;
			uint32_t v = 0;

			for (; t < e && !is_space(in[t]); t++) {
				int b = b64_value(in[t]);

				if (b < 0 || k >= 4)
					return -EBADMSG;
				v = (v << 6) | (uint32_t)b;
				k++;
			}
			if (k != 4 || !line_blank(in, t, e))
				return -EBADMSG;
			have_crc = true;
			crc_want = v;
			p = next_line(in, len, p);
			break;
		}
		p = next_line(in, len, p);
		data_end = p;
	}
	/* the END line */
	while (p < len) {
		size_t s = p;

		e = line_end(in, len, p);
		while (s < e && is_space(in[s]))
			s++;
		if (e - s >= END_LEN && memcmp(in + s, end_marker, END_LEN) == 0)
			break;
		if (!line_blank(in, s, e))
			return -EBADMSG;
		p = next_line(in, len, p);
	}
	if (p >= len)
		return -EBADMSG;
	consumed = next_line(in, len, p);

	n = data_end - data_start;
	out = malloc(n / 4 * 3 + 3);
	if (!out)
		return -ENOMEM;
	for (q = data_start; q < data_end; q++) {
		int b;

		if (is_space(in[q]))
			continue;
		b = b64_value(in[q]);
		if (b == -1)
			goto bad;
		if (b == -2) {
			pad = true;
			continue;
		}
		if (pad) /* data after padding */
			goto bad;
		acc = (acc << 6) | (uint32_t)b;
		nbits += 6;
		if (nbits >= 8) {
			nbits -= 8;
			out[o++] = (uint8_t)(acc >> nbits);
		}
	}
	/* 6 leftover bits can't be a valid encoding */
	if (nbits >= 6)
		goto bad;
	if (have_crc && ksp_crc24(out, o) != crc_want)
		goto bad;

	*ret = out;
	*ret_len = o;
	*ret_consumed = consumed;
	return 0;
bad:
	free(out);
	return -EBADMSG;
}
