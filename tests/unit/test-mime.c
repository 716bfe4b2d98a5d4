// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for src/lib/party/mime.c (mail, MIME, mbox, armor) and the issuer
 * key IDs of import-util.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/party/import-private.h"
#include "lib/party/mime.h"
#include "lib/openpgp/pgp.h"
#include "harness.h"

static int test_base64(void)
{
	struct strbuf sb;
	uint8_t *out = NULL;
	size_t n = 0;

	strbuf_init(&sb);
	ksp_base64_encode(&sb, (const uint8_t *)"hello world", 11, 0);
	TS_ASSERT_STR_EQ(strbuf_str(&sb), "aGVsbG8gd29ybGQ=");
	strbuf_release(&sb);
	/* whitespace and junk ignored, '=' ends */
	TS_ASSERT_INT_EQ(ksp_base64_decode("aGVs\r\nbG8g*d29y bGQ=ignored", 27, &out, &n), 0);
	TS_ASSERT_INT_EQ(n, 11);
	TS_ASSERT(memcmp(out, "hello world", 11) == 0);
	free(out);
	TS_ASSERT_INT_EQ(ksp_base64_decode("", 0, &out, &n), 0);
	TS_ASSERT_INT_EQ(n, 0);
	free(out);
	return 0;
}
DEFINE_TEST(test_base64, "base64 both ways, lenient decoding");

static int test_qp(void)
{
	static const char in[] = "a=3Db=\r\nc=\nd =ZZ end=";
	uint8_t *out = NULL;
	size_t n = 0;

	TS_ASSERT_INT_EQ(ksp_qp_decode(in, sizeof(in) - 1, &out, &n), 0);
	TS_ASSERT_STR_EQ((const char *)out, "a=bcd =ZZ end");
	free(out);
	return 0;
}
DEFINE_TEST(test_qp, "quoted-printable: escapes, soft breaks, bad escapes kept");

static int test_armor_roundtrip(void)
{
	uint8_t data[300], *dec = NULL;
	size_t n = 0, used = 0;
	struct strbuf sb;
	char type[32];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	strbuf_init(&sb);
	strbuf_addstr(&sb, "junk before\n");
	ksp_armor_encode(&sb, "PUBLIC KEY BLOCK", data, sizeof(data));
	TS_ASSERT(strbuf_ok(&sb));
	TS_ASSERT_INT_EQ(ksp_armor_find((const uint8_t *)sb.buf, sb.len, 0, type), 12);
	TS_ASSERT_STR_EQ(type, "PUBLIC KEY BLOCK");
	TS_ASSERT_INT_EQ(ksp_armor_decode((const uint8_t *)sb.buf + 12, sb.len - 12, &dec, &n, &used), 0);
	TS_ASSERT_INT_EQ(n, sizeof(data));
	TS_ASSERT(memcmp(dec, data, n) == 0);
	TS_ASSERT_INT_EQ(used, sb.len - 12);
	free(dec);
	TS_ASSERT_INT_EQ(ksp_armor_find((const uint8_t *)sb.buf, sb.len, 13, type), -1);
	strbuf_release(&sb);
	return 0;
}
DEFINE_TEST(test_armor_roundtrip, "armor encoding decodes with its CRC24");

static int test_packet_header(void)
{
	static const size_t lens[] = { 0, 191, 192, 8383, 8384, 100000 };
	struct strbuf sb;

	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		struct ksp_pgp_packet pkt;
		uint8_t *body = calloc(1, lens[i] + 1);
		size_t pos = 0;

		TS_ASSERT(body != NULL);
		strbuf_init(&sb);
		ksp_pgp_emit(&sb, 13, body, lens[i]);
		TS_ASSERT(strbuf_ok(&sb));
		TS_ASSERT_INT_EQ(ksp_pgp_packet_next((const uint8_t *)sb.buf, sb.len, &pos, &pkt), 0);
		TS_ASSERT_INT_EQ(pkt.tag, 13);
		TS_ASSERT_INT_EQ(pkt.body_len, lens[i]);
		TS_ASSERT_INT_EQ(pos, sb.len);
		free(pkt.joined);
		free(body);
		strbuf_release(&sb);
	}
	return 0;
}
DEFINE_TEST(test_packet_header, "new-format packet lengths at every boundary");

struct parts {
	char types[16][64];
	char bodies[16][64];
	int n;
	bool enc[16];
};

static int collect(void *data, const struct ksp_mime_part *part)
{
	struct parts *p = data;

	if (p->n < 16) {
		snprintf(p->types[p->n], sizeof(p->types[0]), "%s", part->type);
		snprintf(p->bodies[p->n], sizeof(p->bodies[0]), "%.*s", (int)part->len, (const char *)part->body);
		p->enc[p->n] = part->in_encrypted;
	}
	p->n++;
	return 0;
}

static int test_mime_walk(void)
{
	static const char msg[] =
		"From: a@example.org\r\n"
		"Content-Type: multipart/mixed;\r\n"
		"\tboundary=\"b1\"\r\n"
		"\r\n"
		"preamble\r\n"
		"--b1\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Transfer-Encoding: quoted-printable\r\n"
		"\r\n"
		"x=3Dy\r\n"
		"--b10 not a delimiter\r\n"
		"--b1\r\n"
		"Content-Type: multipart/encrypted; boundary=inner; protocol=\"application/pgp-encrypted\"\r\n"
		"\r\n"
		"--inner\r\n"
		"Content-Type: application/pgp-encrypted\r\n"
		"\r\n"
		"Version: 1\r\n"
		"--inner\r\n"
		"Content-Type: APPLICATION/Octet-Stream\r\n"
		"Content-Transfer-Encoding: base64\r\n"
		"\r\n"
		"aGVsbG8=\r\n"
		"--inner--\r\n"
		"--b1--\r\n"
		"epilogue\r\n";
	struct parts p = { 0 };

	TS_ASSERT(ksp_mime_is_message((const uint8_t *)msg, sizeof(msg) - 1));
	TS_ASSERT_INT_EQ(ksp_mime_walk((const uint8_t *)msg, sizeof(msg) - 1, collect, &p), 0);
	TS_ASSERT_INT_EQ(p.n, 3);
	TS_ASSERT_STR_EQ(p.types[0], "text/plain");
	TS_ASSERT_STR_EQ(p.bodies[0], "x=y\r\n--b10 not a delimiter");
	TS_ASSERT(!p.enc[0]);
	TS_ASSERT_STR_EQ(p.types[1], "application/pgp-encrypted");
	TS_ASSERT_STR_EQ(p.types[2], "application/octet-stream");
	TS_ASSERT_STR_EQ(p.bodies[2], "hello");
	TS_ASSERT(p.enc[2]);
	/* not a message: one text/plain part */
	memset(&p, 0, sizeof(p));
	TS_ASSERT(!ksp_mime_is_message((const uint8_t *)"-----BEGIN PGP", 14));
	TS_ASSERT_INT_EQ(ksp_mime_walk((const uint8_t *)"-----BEGIN PGP", 14, collect, &p), 0);
	TS_ASSERT_INT_EQ(p.n, 1);
	TS_ASSERT_STR_EQ(p.types[0], "text/plain");
	return 0;
}
DEFINE_TEST(test_mime_walk, "MIME: folding, nesting, encodings, exact boundaries");

static int test_mime_limits(void)
{
	struct strbuf sb;
	struct parts p = { 0 };

	/* 40 levels of nesting: stops at the limit */
	strbuf_init(&sb);
	strbuf_addstr(&sb, "Content-Type: multipart/mixed; boundary=n0\n\n");
	for (int d = 0; d < 40; d++)
		strbuf_addf(&sb, "--n%d\nContent-Type: multipart/mixed; boundary=n%d\n\n", d, d + 1);
	strbuf_addstr(&sb, "--n40\n\nleaf\n");
	TS_ASSERT_INT_EQ(ksp_mime_walk((const uint8_t *)sb.buf, sb.len, collect, &p), -E2BIG);
	TS_ASSERT_INT_EQ(p.n, 0);
	strbuf_release(&sb);
	/* many parts: at most KSP_MIME_MAX_PARTS leaves */
	memset(&p, 0, sizeof(p));
	strbuf_init(&sb);
	strbuf_addstr(&sb, "Content-Type: multipart/mixed; boundary=x\n\n");
	for (int i = 0; i < KSP_MIME_MAX_PARTS + 10; i++)
		strbuf_addstr(&sb, "--x\n\np\n");
	strbuf_addstr(&sb, "--x--\n");
	TS_ASSERT_INT_EQ(ksp_mime_walk((const uint8_t *)sb.buf, sb.len, collect, &p), -E2BIG);
	TS_ASSERT_INT_EQ(p.n, KSP_MIME_MAX_PARTS);
	strbuf_release(&sb);
	/* truncated input: header without body, boundary never closed */
	memset(&p, 0, sizeof(p));
	TS_ASSERT_INT_EQ(ksp_mime_walk((const uint8_t *)"Content-Type: multipart/mixed; boundary=", 40, collect, &p), 0);
	TS_ASSERT_INT_EQ(ksp_mime_walk((const uint8_t *)"Content-Type: multipart/mixed; boundary=q\n\n--q\n\nopen", 52, collect, &p), 0);
	return 0;
}
DEFINE_TEST(test_mime_limits, "MIME: depth and part limits, truncated input");

struct msgs {
	int n;
	size_t lens[8];
};

static int count_msg(void *data, const uint8_t *msg, size_t len, size_t index)
{
	struct msgs *m = data;

	if (m->n < 8)
		m->lens[m->n] = len;
	m->n++;
	return (int)index == m->n ? 0 : -EINVAL;
}

static int test_mbox(void)
{
	static const char box[] = "From a Fri Jan 15 00:00:00 2027\nSubject: 1\n\nbody\n>From quoted\n"
				  "From b Fri Jan 15 00:00:00 2027\nSubject: 2\n\nx\n";
	struct msgs m = { 0 };

	TS_ASSERT(ksp_mbox_detect((const uint8_t *)box, sizeof(box) - 1));
	TS_ASSERT(!ksp_mbox_detect((const uint8_t *)"Subject: x", 10));
	TS_ASSERT_INT_EQ(ksp_mbox_split((const uint8_t *)box, sizeof(box) - 1, count_msg, &m), 0);
	TS_ASSERT_INT_EQ(m.n, 2);
	TS_ASSERT_INT_EQ(m.lens[0], strlen("Subject: 1\n\nbody\n>From quoted\n"));
	TS_ASSERT_INT_EQ(m.lens[1], strlen("Subject: 2\n\nx\n"));
	return 0;
}
DEFINE_TEST(test_mbox, "mbox: messages split at From lines, >From kept");

static int test_issuer_keyid(void)
{
	struct ksp_pgp_sig s;
	char fpr[65], kid[17];

	/* v4: the key ID is the low 64 bits of the fingerprint */
	memset(&s, 0, sizeof(s));
	s.issuer_fpr_len = 20;
	for (int i = 0; i < 20; i++)
		s.issuer_fpr[i] = (uint8_t)(0x10 + i);
	TS_ASSERT(ksp_pgp_sig_issuer(&s, fpr, kid));
	TS_ASSERT_STR_EQ(fpr, "101112131415161718191A1B1C1D1E1F20212223");
	TS_ASSERT_STR_EQ(kid, "1C1D1E1F20212223");
	/* v5/v6: the high 64 bits, from the front */
	s.issuer_fpr_len = 32;
	for (int i = 0; i < 32; i++)
		s.issuer_fpr[i] = (uint8_t)(0xa0 + i);
	TS_ASSERT(ksp_pgp_sig_issuer(&s, fpr, kid));
	TS_ASSERT_INT_EQ(strlen(fpr), 64);
	TS_ASSERT_STR_EQ(kid, "A0A1A2A3A4A5A6A7");
	/* key ID subpacket only */
	memset(&s, 0, sizeof(s));
	s.has_issuer = true;
	memcpy(s.issuer, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	TS_ASSERT(ksp_pgp_sig_issuer(&s, fpr, kid));
	TS_ASSERT_STR_EQ(fpr, "");
	TS_ASSERT_STR_EQ(kid, "0102030405060708");
	memset(&s, 0, sizeof(s));
	TS_ASSERT(!ksp_pgp_sig_issuer(&s, fpr, kid));
	return 0;
}
DEFINE_TEST(test_issuer_keyid, "issuer key IDs: v4 from the end, v5/v6 from the front");
