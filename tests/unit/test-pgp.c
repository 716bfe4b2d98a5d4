// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for src/lib/openpgp/pgp-packet.c and src/lib/openpgp/pgp-armor.c: the native
 * OpenPGP keyring reader.  Checked against gpg (fingerprints of the
 * fixtures), and against the structural edge lists and key counts of
 * tests/data (Arch Linux keyring, Sequoia-WoT vectors). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <gcrypt.h>

#include <libksp.h>
#include "lib/openpgp/pgp.h"
#include "shared/macro.h"
#include "shared/util.h"
#include "harness.h"

#define FIXTURES "tests/keyrings"
#define SHARED "tests/data"

/* ---- helpers ---------------------------------------------------------- */

static void gcrypt_init(void)
{
	if (!gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
		gcry_check_version(NULL);
		gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
		gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	}
}

struct keyset {
	struct ksp_pgp_key **keys;
	size_t n;
	unsigned bad_keys, skipped, armor_errors;
	bool armored;
};

static void keyset_free(struct keyset *ks)
{
	size_t i;

	for (i = 0; i < ks->n; i++)
		ksp_pgp_key_free(ks->keys[i]);
	free(ks->keys);
	memset(ks, 0, sizeof(*ks));
}

/* Parse a buffer completely; returns 0 or the fatal error. */
static int parse_buf(struct ksp_ctx *ctx, const uint8_t *buf, size_t len, const char *name,
		     struct keyset *ks)
{
	struct ksp_pgp_reader *rd;
	struct ksp_pgp_key *key;
	int r;

	memset(ks, 0, sizeof(*ks));
	r = ksp_pgp_reader_new(ctx, buf, len, name, &rd);
	if (r < 0)
		return r;
	while ((r = ksp_pgp_reader_next(rd, &key)) > 0) {
		struct ksp_pgp_key **nk = realloc(ks->keys, (ks->n + 1) * sizeof(*nk));

		if (!nk) {
			ksp_pgp_key_free(key);
			r = -ENOMEM;
			break;
		}
		ks->keys = nk;
		ks->keys[ks->n++] = key;
	}
	ks->bad_keys = ksp_pgp_reader_n_bad_keys(rd);
	ks->skipped = ksp_pgp_reader_n_skipped_packets(rd);
	ks->armor_errors = ksp_pgp_reader_n_armor_errors(rd);
	ks->armored = ksp_pgp_reader_armored(rd);
	ksp_pgp_reader_free(rd);
	return r < 0 ? r : 0;
}

static int parse_file(struct ksp_ctx *ctx, const char *path, struct keyset *ks)
{
	uint8_t *buf;
	size_t len;
	int r = read_file_all(path, 0, &buf, &len);

	if (r < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(-r));
		return r;
	}
	r = parse_buf(ctx, buf, len, path, ks);
	free(buf);
	return r;
}

static bool have_shared(void)
{
	if (access(SHARED, R_OK) == 0)
		return true;
	/* part of the repository: missing data is a failure, not a skip */
	fprintf(stderr, "FAIL: %s not found (run from the repository top; git checkout tests/data)\n", SHARED);
	return false;
}

/* gpg --show-keys --with-colons: the fpr lines, joined by spaces, in a
 * private temporary home.  Returns a malloc'ed string or NULL. */
static char *gpg_fprs(const char *path)
{
	char home[] = "/tmp/ksp-test-pgp.XXXXXX";
	char cmd[1024], line[4096];
	char *out = NULL;
	size_t olen = 0;
	FILE *f;

	if (access("/usr/bin/gpg", X_OK) != 0 || !mkdtemp(home))
		return NULL;
	snprintf(cmd, sizeof(cmd),
		 "gpg --homedir '%s' --batch --no-tty --show-keys --with-colons '%s' 2>/dev/null",
		 home, path);
	f = popen(cmd, "r");
	if (f) {
		out = strdup("");
		while (out && fgets(line, sizeof(line), f)) {
			char *fp, *e, *no;

			if (strncmp(line, "fpr:", 4) != 0)
				continue;
			fp = line + 4;
			while (*fp == ':')
				fp++;
			e = strchr(fp, ':');
			if (e)
				*e = '\0';
			no = realloc(out, olen + strlen(fp) + 2);
			if (!no) {
				free(out);
				out = NULL;
				break;
			}
			out = no;
			if (olen)
				out[olen++] = ' ';
			strcpy(out + olen, fp);
			olen += strlen(fp);
		}
		pclose(f);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", home);
	return out;
}

/* Our fingerprints (primary, then subkeys, for every key) in gpg's order. */
static char *our_fprs(const struct keyset *ks)
{
	size_t i, j, cap = 1, o = 0;
	char *out;

	for (i = 0; i < ks->n; i++)
		cap += 66 * (1 + ks->keys[i]->n_subkeys);
	out = malloc(cap);
	if (!out)
		return NULL;
	out[0] = '\0';
	for (i = 0; i < ks->n; i++) {
		char hex[65];

		for (j = 0; j <= ks->keys[i]->n_subkeys; j++) {
			ksp_pgp_fpr_hex(j == 0 ? &ks->keys[i]->primary : &ks->keys[i]->subkeys[j - 1], hex);
			o += (size_t)sprintf(out + o, "%s%s", o ? " " : "", hex);
		}
	}
	return out;
}

static struct ksp_ctx *new_ctx(void)
{
	struct ksp_ctx *ctx = NULL;

	gcrypt_init();
	if (ksp_new(&ctx) < 0)
		return NULL;
	return ctx;
}

/* ---- armor ------------------------------------------------------------ */

static int test_crc24(void)
{
	/* CRC24 of the empty string is the initial value */
	TS_ASSERT_INT_EQ(ksp_crc24(NULL, 0), 0xB704CE);
	TS_ASSERT_INT_EQ(ksp_crc24((const uint8_t *)"123456789", 9), 0x21CF02);
	return 0;
}
DEFINE_TEST(test_crc24, "CRC24 of RFC 4880");

static int test_armor_basic(void)
{
	static const char a[] = "junk before\r\n"
				"-----BEGIN PGP PUBLIC KEY BLOCK-----\r\n"
				"Comment: a comment\r\n"
				"Version: x\r\n"
				"\r\n"
				"aGVs\r\n"
				"  bG8=\r\n"
				"=Rw7r\r\n" /* not the right CRC, fixed below */
				"-----END PGP PUBLIC KEY BLOCK-----\r\n"
				"-----BEGIN PGP PUBLIC KEY BLOCK-----\n"
				"\n"
				"d29y\nbGQ=\n"
				"-----END PGP PUBLIC KEY BLOCK-----\n";
	char buf[sizeof(a)];
	uint8_t *out;
	size_t olen, used;
	uint32_t crc = ksp_crc24((const uint8_t *)"hello", 5);
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *c;
	int r;

	memcpy(buf, a, sizeof(a));
	c = strstr(buf, "=Rw7r");
	c[1] = b64[(crc >> 18) & 63];
	c[2] = b64[(crc >> 12) & 63];
	c[3] = b64[(crc >> 6) & 63];
	c[4] = b64[crc & 63];
	TS_ASSERT(ksp_armor_detect((const uint8_t *)buf, strlen(buf)));
	TS_ASSERT(!ksp_armor_detect((const uint8_t *)"\x99\x01", 2));
	r = ksp_armor_decode((const uint8_t *)buf, strlen(buf), &out, &olen, &used);
	TS_ASSERT_INT_EQ(r, 0);
	TS_ASSERT_INT_EQ(olen, 5);
	TS_ASSERT(memcmp(out, "hello", 5) == 0);
	free(out);
	r = ksp_armor_decode((const uint8_t *)buf + used, strlen(buf) - used, &out, &olen, &used);
	TS_ASSERT_INT_EQ(r, 0);
	TS_ASSERT_INT_EQ(olen, 5);
	TS_ASSERT(memcmp(out, "world", 5) == 0);
	free(out);

	/* CRC mismatch */
	c[2] = c[2] == 'A' ? 'B' : 'A';
	r = ksp_armor_decode((const uint8_t *)buf, strlen(buf), &out, &olen, &used);
	TS_ASSERT_INT_EQ(r, -EBADMSG);
	/* no armor */
	r = ksp_armor_decode((const uint8_t *)"hello", 5, &out, &olen, &used);
	TS_ASSERT_INT_EQ(r, -ENODATA);
	/* missing END line */
	r = ksp_armor_decode((const uint8_t *)"-----BEGIN PGP MESSAGE-----\n\naGVs\n", 34, &out,
			     &olen, &used);
	TS_ASSERT_INT_EQ(r, -EBADMSG);
	return 0;
}
DEFINE_TEST(test_armor_basic, "armor: headers, CRLF, CRC24, concatenated blocks");

/* ---- framing ---------------------------------------------------------- */

static int test_framing(void)
{
	/* new format, partial lengths: 2^1 + 2^0 + 3 octets of tag 13 */
	static const uint8_t p1[] = { 0xCD, 0xE1, 'a', 'b', 0xE0, 'c', 0x03, 'd', 'e', 'f',
				      /* old format, 1-octet length, tag 13 */
				      0xB4, 0x02, 'x', 'y',
				      /* new format, 2-octet length (192) */
				      0xCD, 0xC0, 0x00 };
	uint8_t big[2 + 192 + 6];
	struct ksp_pgp_packet pkt;
	size_t pos = 0;

	TS_ASSERT_INT_EQ(ksp_pgp_packet_next(p1, sizeof(p1), &pos, &pkt), 0);
	TS_ASSERT_INT_EQ(pkt.tag, 13);
	TS_ASSERT(pkt.partial);
	TS_ASSERT_INT_EQ(pkt.body_len, 6);
	TS_ASSERT(memcmp(pkt.body, "abcdef", 6) == 0);
	TS_ASSERT_INT_EQ(pos, 10);
	free(pkt.joined);
	TS_ASSERT_INT_EQ(ksp_pgp_packet_next(p1, sizeof(p1), &pos, &pkt), 0);
	TS_ASSERT_INT_EQ(pkt.tag, 13);
	TS_ASSERT_INT_EQ(pkt.body_len, 2);
	TS_ASSERT_INT_EQ(pos, 14);
	/* 192-octet body truncated */
	TS_ASSERT_INT_EQ(ksp_pgp_packet_next(p1, sizeof(p1), &pos, &pkt), -EBADMSG);
	TS_ASSERT_INT_EQ(pos, 14);

	memset(big, 'z', sizeof(big));
	big[0] = 0xCD;
	big[1] = 0xC0;
	big[2] = 0x00;
	pos = 0;
	TS_ASSERT_INT_EQ(ksp_pgp_packet_next(big, 3 + 192, &pos, &pkt), 0);
	TS_ASSERT_INT_EQ(pkt.body_len, 192);
	/* 5-octet length, huge */
	{
		static const uint8_t h[] = { 0xCD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00 };
		static const uint8_t ind[] = { 0xB7, 'a', 'b', 'c' };
		static const uint8_t partial_huge[] = { 0xCD, 0xFE, 'a' };

		pos = 0;
		TS_ASSERT_INT_EQ(ksp_pgp_packet_next(h, sizeof(h), &pos, &pkt), -EBADMSG);
		pos = 0;
		TS_ASSERT_INT_EQ(ksp_pgp_packet_next(partial_huge, sizeof(partial_huge), &pos, &pkt),
				 -EBADMSG);
		pos = 0;
		TS_ASSERT_INT_EQ(ksp_pgp_packet_next(ind, sizeof(ind), &pos, &pkt), 0);
		TS_ASSERT_INT_EQ(pkt.body_len, 3);
		TS_ASSERT_INT_EQ(pos, 4);
	}
	return 0;
}
DEFINE_TEST(test_framing, "packet framing: old/new headers, partial and indeterminate lengths");

/* ---- fixtures --------------------------------------------------------- */

static const struct {
	const char *file;
	const char *primary, *subkey;
	const char *curve;
} fixtures[] = {
	{ "alice-rsa.asc", "15CE948AA68A66537D38614D6F3C73B6E728D2B0", "F570ADE076C522C917E72BD691088E0BF3CD8352", NULL },
	{ "bob-ed25519.asc", "A43A6C3EE1558053A8B4694D2C0713B0DF5A48C3", "FF7833F9D1903FC16CDB20F1AF8B1809F86B9191", "ed25519" },
	{ "carol-nonlatin.asc", "3447EA2DDA1F61A187E6B00F104253BA01137B85", "3D71E5582BB03C6AB01293F8D952996B18AEEF16", "ed25519" },
	{ "dave-escape.asc", "270CE743F37F7ECE262C2BBB28E8604DF26C4311", "772080C8B29A85633FCD514BE020C5BD13022D29", "ed25519" },
	{ "erin-expired.asc", "596229A775FD34A762A7CEA0BA840BCD62076F9F", "7211ADB856F1C06500E0D821C29BE1D4BCB50B6C", "ed25519" },
	{ "frank-revoked.asc", "268C11937CBB00BA63A1010E0A47FDA3F09391BC", "50E3164548031901536E8BCB80DA14DFE27BE875", "ed25519" },
	{ "grace-dsa1024.asc", "67A4CC66470C2E27A03EB2D418AF81F9626FE674", "17D4FEDFA62AC1D17D11ECC4F16C2A245EA0A65F", NULL },
	{ "heidi-noemail.asc", "45CD0D3D5439BB5D783D9428FC9199107A1C9B5F", "8BE8807D121FC9C858B2C0D821C6F9FFC1C83965", "ed25519" },
};

static int test_fixture_fingerprints(void)
{
	struct ksp_ctx *ctx = new_ctx();
	size_t i;

	TS_ASSERT(ctx);
	for (i = 0; i < ARRAY_SIZE(fixtures); i++) {
		char path[512], hex[65];
		struct keyset ks;
		char *ours, *theirs;
		const struct ksp_pgp_key *k;

		snprintf(path, sizeof(path), "%s/%s", FIXTURES, fixtures[i].file);
		TS_ASSERT_INT_EQ(parse_file(ctx, path, &ks), 0);
		TS_ASSERT_INT_EQ(ks.n, 1);
		TS_ASSERT(ks.armored);
		k = ks.keys[0];
		TS_ASSERT(!k->secret);
		TS_ASSERT_INT_EQ(k->primary.version, 4);
		ksp_pgp_fpr_hex(&k->primary, hex);
		TS_ASSERT_STR_EQ(hex, fixtures[i].primary);
		TS_ASSERT_INT_EQ(k->n_subkeys, 1);
		ksp_pgp_fpr_hex(&k->subkeys[0], hex);
		TS_ASSERT_STR_EQ(hex, fixtures[i].subkey);
		TS_ASSERT(memcmp(k->primary.keyid, k->primary.fpr + 12, 8) == 0);
		TS_ASSERT(k->n_uids >= 1);
		TS_ASSERT(k->uids[0].n_sigs >= 1);
		TS_ASSERT(k->subkeys[0].n_sigs >= 1);
		TS_ASSERT_INT_EQ(k->subkeys[0].sigs[0].type, 0x18);
		TS_ASSERT_INT_EQ(k->uids[0].sigs[0].type, 0x13);
		TS_ASSERT(k->uids[0].sigs[0].has_created);
		TS_ASSERT(memcmp(k->uids[0].sigs[0].issuer_fpr, k->primary.fpr, 20) == 0);
		if (fixtures[i].curve) {
			TS_ASSERT_STR_EQ(k->primary.curve, fixtures[i].curve);
			TS_ASSERT_STR_EQ(k->subkeys[0].curve, "cv25519");
		} else if (fixtures[i].file[0] == 'a') {
			TS_ASSERT_INT_EQ(k->primary.algo, KSP_PGP_PK_RSA);
			TS_ASSERT_INT_EQ(k->primary.bits, 3072);
		} else {
			TS_ASSERT_INT_EQ(k->primary.algo, KSP_PGP_PK_DSA);
			TS_ASSERT_INT_EQ(k->primary.bits, 1024);
			TS_ASSERT_INT_EQ(k->subkeys[0].algo, KSP_PGP_PK_ELGAMAL_E);
			TS_ASSERT_INT_EQ(k->subkeys[0].bits, 1024);
		}
		if (fixtures[i].file[0] == 'e') /* erin: expires after 1 year */
			TS_ASSERT(k->uids[0].sigs[0].has_key_expires &&
				  k->uids[0].sigs[0].key_expires > 360 * 86400);
		if (fixtures[i].file[0] == 'f') { /* frank: key revocation */
			TS_ASSERT(k->primary.n_sigs >= 1);
			TS_ASSERT_INT_EQ(k->primary.sigs[0].type, 0x20);
			TS_ASSERT(k->primary.sigs[0].has_revocation_reason);
		}
		if (fixtures[i].file[0] == 'a') {
			TS_ASSERT_INT_EQ(k->n_uids, 2);
		}

		/* and what gpg says, when gpg is there */
		theirs = gpg_fprs(path);
		if (theirs) {
			ours = our_fprs(&ks);
			TS_ASSERT(ours);
			TS_ASSERT_STR_EQ(ours, theirs);
			free(ours);
			free(theirs);
		}
		keyset_free(&ks);
	}
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_fixture_fingerprints, "fixture fingerprints equal README and gpg --show-keys");

static int test_secret_flagged(void)
{
	struct ksp_ctx *ctx = new_ctx();
	struct keyset ks;
	char hex[65];

	TS_ASSERT(ctx);
	TS_ASSERT_INT_EQ(parse_file(ctx, FIXTURES "/alice-secret.asc", &ks), 0);
	TS_ASSERT_INT_EQ(ks.n, 1);
	TS_ASSERT(ks.keys[0]->secret);
	TS_ASSERT(ks.keys[0]->primary.secret);
	ksp_pgp_fpr_hex(&ks.keys[0]->primary, hex);
	TS_ASSERT_STR_EQ(hex, fixtures[0].primary);
	/* only the public part is kept */
	TS_ASSERT(ks.keys[0]->primary.body_len < 500);
	keyset_free(&ks);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_secret_flagged, "secret key packets are flagged, fingerprint from the public part");

static int test_truncated(void)
{
	struct ksp_ctx *ctx = new_ctx();
	struct keyset ks;

	TS_ASSERT(ctx);
	TS_ASSERT_INT_EQ(parse_file(ctx, FIXTURES "/truncated.gpg", &ks), 0);
	TS_ASSERT_INT_EQ(ks.n, 0);
	TS_ASSERT(ks.bad_keys >= 1);
	keyset_free(&ks);

	TS_ASSERT_INT_EQ(parse_file(ctx, FIXTURES "/not-a-key.txt", &ks), 0);
	TS_ASSERT_INT_EQ(ks.n, 0);
	TS_ASSERT(ks.bad_keys + ks.skipped >= 1);
	keyset_free(&ks);
	TS_ASSERT_INT_EQ(parse_file(ctx, FIXTURES "/empty.asc", &ks), 0);
	TS_ASSERT_INT_EQ(ks.n, 0);
	keyset_free(&ks);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_truncated, "truncated, empty and non-key input give errors, not crashes");

static int test_several(void)
{
	struct ksp_ctx *ctx = new_ctx();
	struct keyset a, b;
	size_t i;

	TS_ASSERT(ctx);
	TS_ASSERT_INT_EQ(parse_file(ctx, FIXTURES "/several.asc", &a), 0);
	TS_ASSERT_INT_EQ(parse_file(ctx, FIXTURES "/several.gpg", &b), 0);
	TS_ASSERT(a.armored);
	TS_ASSERT(!b.armored);
	TS_ASSERT_INT_EQ(a.n, 2);
	TS_ASSERT_INT_EQ(b.n, 2);
	for (i = 0; i < 2; i++) {
		char ha[65], hb[65];

		ksp_pgp_fpr_hex(&a.keys[i]->primary, ha);
		ksp_pgp_fpr_hex(&b.keys[i]->primary, hb);
		TS_ASSERT_STR_EQ(ha, hb);
		TS_ASSERT_STR_EQ(ha, fixtures[i].primary);
		TS_ASSERT_INT_EQ(a.keys[i]->n_uids, b.keys[i]->n_uids);
		TS_ASSERT_INT_EQ(a.keys[i]->end - a.keys[i]->offset, b.keys[i]->end - b.keys[i]->offset);
	}
	keyset_free(&a);
	keyset_free(&b);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_several, "armored and binary several.* give the same 2 keys");

/* ---- v5 and v6 keys ----------------------------------------------------- */

/* RFC 9580 appendix A.3: the sample v6 certificate (Ed25519 primary key,
 * X25519 subkey, no user ID). */
static const char v6_cert[] =
	"-----BEGIN PGP PUBLIC KEY BLOCK-----\n"
	"\n"
	"xioGY4d/4xsAAAAg+U2nu0jWCmHlZ3BqZYfQMxmZu52JGggkLq2EVD34laPCsQYf\n"
	"GwoAAABCBYJjh3/jAwsJBwUVCg4IDAIWAAKbAwIeCSIhBssYbE8GCaaX5NUt+mxy\n"
	"KwwfHifBilZwj2Ul7Ce62azJBScJAgcCAAAAAK0oIBA+LX0ifsDm185Ecds2v8lw\n"
	"gyU2kCcUmKfvBXbAf6rhRYWzuQOwEn7E/aLwIwRaLsdry0+VcallHhSu4RN6HWaE\n"
	"QsiPlR4zxP/TP7mhfVEe7XWPxtnMUMtf15OyA51YBM4qBmOHf+MZAAAAIIaTJINn\n"
	"+eUBXbki+PSAld2nhJh/LVmFsS+60WyvXkQ1wpsGGBsKAAAALAWCY4d/4wKbDCIh\n"
	"BssYbE8GCaaX5NUt+mxyKwwfHifBilZwj2Ul7Ce62azJAAAAAAQBIKbpGG2dWTX8\n"
	"j+VjFM21J0hqWlEg+bdiojWnKfA5AQpWUWtnNwDEM0g12vYxoWM8Y81W+bHBw805\n"
	"I8kWVkXU6vFOi+HWvv/ira7ofJu16NnoUkhclkUrk0mXubZvyl4GBg==\n"
	"-----END PGP PUBLIC KEY BLOCK-----\n";

static int test_v6_v5(void)
{
	struct ksp_ctx *ctx = new_ctx();
	struct keyset ks;
	const struct ksp_pgp_key *k;
	const struct ksp_pgp_sig *s;
	char hex[65];
	/* a v5 Ed25519 key packet (old format header, tag 6), made up; the
	 * fingerprint was computed with Python's hashlib */
	uint8_t v5[2 + 42];
	size_t i;

	TS_ASSERT(ctx);
	TS_ASSERT_INT_EQ(parse_buf(ctx, (const uint8_t *)v6_cert, strlen(v6_cert), "v6", &ks), 0);
	TS_ASSERT_INT_EQ(ks.n, 1);
	k = ks.keys[0];
	TS_ASSERT_INT_EQ(k->primary.version, 6);
	TS_ASSERT_INT_EQ(k->primary.algo, KSP_PGP_PK_ED25519);
	TS_ASSERT_STR_EQ(k->primary.curve, "ed25519");
	ksp_pgp_fpr_hex(&k->primary, hex);
	TS_ASSERT_STR_EQ(hex, "CB186C4F0609A697E4D52DFA6C722B0C1F1E27C18A56708F6525EC27BAD9ACC9");
	TS_ASSERT(memcmp(k->primary.keyid, "\xCB\x18\x6C\x4F\x06\x09\xA6\x97", 8) == 0);
	TS_ASSERT_INT_EQ(k->n_subkeys, 1);
	ksp_pgp_fpr_hex(&k->subkeys[0], hex);
	TS_ASSERT_STR_EQ(hex, "12C83F1E706F6308FE151A417743A1F033790E93E9978488D1DB378DA9930885");
	TS_ASSERT_STR_EQ(k->subkeys[0].curve, "cv25519");
	TS_ASSERT_INT_EQ(k->primary.n_sigs, 1);
	s = &k->primary.sigs[0];
	TS_ASSERT_INT_EQ(s->version, 6);
	TS_ASSERT_INT_EQ(s->type, 0x1F);
	TS_ASSERT_INT_EQ(s->hash_algo, 10);
	TS_ASSERT_INT_EQ(s->salt_len, 32);
	TS_ASSERT_INT_EQ(s->mpi_len, 64);
	TS_ASSERT_INT_EQ(s->issuer_fpr_version, 6);
	TS_ASSERT(memcmp(s->issuer_fpr, k->primary.fpr, 32) == 0);
	TS_ASSERT(s->has_created);
	TS_ASSERT_INT_EQ(k->subkeys[0].n_sigs, 1);
	TS_ASSERT_INT_EQ(k->subkeys[0].sigs[0].type, 0x18);
	keyset_free(&ks);

	v5[0] = 0x98;
	v5[1] = 42;
	memcpy(v5 + 2, "\x05\x5c\x00\x00\x00\x1b\x00\x00\x00\x20", 10);
	for (i = 0; i < 32; i++)
		v5[12 + i] = (uint8_t)i;
	TS_ASSERT_INT_EQ(parse_buf(ctx, v5, sizeof(v5), "v5", &ks), 0);
	TS_ASSERT_INT_EQ(ks.n, 1);
	TS_ASSERT_INT_EQ(ks.keys[0]->primary.version, 5);
	ksp_pgp_fpr_hex(&ks.keys[0]->primary, hex);
	TS_ASSERT_STR_EQ(hex, "26814B7D8F5C40BDD9BAB5FB3BA89ED8FE07D852D2E52BD217187A1572CCFA55");
	TS_ASSERT(memcmp(ks.keys[0]->primary.keyid, ks.keys[0]->primary.fpr, 8) == 0);
	keyset_free(&ks);

	/* unknown key version: skipped, counted */
	v5[2] = 7;
	TS_ASSERT_INT_EQ(parse_buf(ctx, v5, sizeof(v5), "v7", &ks), 0);
	TS_ASSERT_INT_EQ(ks.n, 0);
	TS_ASSERT_INT_EQ(ks.bad_keys, 1);
	keyset_free(&ks);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_v6_v5, "v6 (RFC 9580 sample) and v5 keys: fingerprints, key IDs, v6 signatures");

/* ---- structural edges against tests/data ------- ---------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct strlist {
	char **v;
	size_t n, cap;
};

static int strlist_add(struct strlist *l, const char *s)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 64;
		char **nv = realloc(l->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = nc;
	}
	l->v[l->n] = strdup(s);
	if (!l->v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

static void strlist_free(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* sort and drop duplicates */
static void strlist_uniq(struct strlist *l)
{
	size_t i, o = 0;

	if (l->n)
		qsort(l->v, l->n, sizeof(char *), cmp_str);
	for (i = 0; i < l->n; i++) {
		if (o > 0 && strcmp(l->v[o - 1], l->v[i]) == 0) {
			free(l->v[i]);
			continue;
		}
		l->v[o++] = l->v[i];
	}
	l->n = o;
}

static int find_issuer(const struct keyset *ks, const struct ksp_pgp_sig *s)
{
	size_t i;

	if (s->issuer_fpr_version) {
		for (i = 0; i < ks->n; i++)
			if (ks->keys[i]->primary.fpr_len == s->issuer_fpr_len &&
			    memcmp(ks->keys[i]->primary.fpr, s->issuer_fpr, s->issuer_fpr_len) == 0)
				return (int)i;
		return -1;
	}
	if (s->has_issuer)
		for (i = 0; i < ks->n; i++)
			if (memcmp(ks->keys[i]->primary.keyid, s->issuer, 8) == 0)
				return (int)i;
	return -1;
}

static int structural_edges(const struct keyset *ks, struct strlist *out)
{
	size_t v, u, j;

	for (v = 0; v < ks->n; v++) {
		const struct ksp_pgp_key *k = ks->keys[v];

		for (u = 0; u < k->n_uids; u++) {
			if (k->uids[u].attribute)
				continue;
			for (j = 0; j < k->uids[u].n_sigs; j++) {
				const struct ksp_pgp_sig *s = &k->uids[u].sigs[j];
				char line[140], h1[65], h2[65];
				int is;

				if (s->type < 0x10 || s->type > 0x13 || !s->exportable)
					continue;
				is = find_issuer(ks, s);
				if (is < 0 || (size_t)is == v)
					continue;
				ksp_pgp_fpr_hex(&ks->keys[is]->primary, h1);
				ksp_pgp_fpr_hex(&k->primary, h2);
				snprintf(line, sizeof(line), "%s\t%s", h1, h2);
				if (strlist_add(out, line) < 0)
					return -ENOMEM;
			}
		}
	}
	strlist_uniq(out);
	return 0;
}

static int read_lines(const char *path, struct strlist *out)
{
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);

		while (l > 0 && (line[l - 1] == '\n' || line[l - 1] == '\r'))
			line[--l] = '\0';
		if (l == 0 || line[0] == '#')
			continue;
		if (strlist_add(out, line) < 0) {
			fclose(f);
			return -ENOMEM;
		}
	}
	fclose(f);
	strlist_uniq(out);
	return 0;
}

static int compare_edges(const char *name, const struct strlist *got, const struct strlist *want)
{
	size_t i = 0, j = 0, shown = 0;
	int diff = 0;

	while (i < got->n || j < want->n) {
		int c = i >= got->n ? 1 : j >= want->n ? -1 : strcmp(got->v[i], want->v[j]);

		if (c == 0) {
			i++;
			j++;
			continue;
		}
		diff++;
		if (shown++ < 5)
			fprintf(stderr, "%s: %s edge %s\n", name, c < 0 ? "extra" : "missing",
				c < 0 ? got->v[i] : want->v[j]);
		if (c < 0)
			i++;
		else
			j++;
	}
	return diff;
}

static int test_archlinux(void)
{
	struct ksp_ctx *ctx;
	struct keyset ks;
	struct strlist got = { 0 }, want = { 0 };
	uint8_t *ref;
	size_t reflen;
	const char *kif;

	if (!have_shared())
		return -1;
	ctx = new_ctx();
	TS_ASSERT(ctx);
	TS_ASSERT_INT_EQ(parse_file(ctx, SHARED "/archlinux/archlinux.gpg", &ks), 0);
	TS_ASSERT_INT_EQ(read_file_all(SHARED "/archlinux/reference.json", 0, &ref, &reflen), 0);
	kif = strstr((const char *)ref, "\"keys_in_file\":");
	TS_ASSERT(kif);
	TS_ASSERT_INT_EQ(ks.n, strtol(kif + 15, NULL, 10));
	free(ref);
	TS_ASSERT_INT_EQ(ks.bad_keys, 0);
	TS_ASSERT_INT_EQ(structural_edges(&ks, &got), 0);
	TS_ASSERT_INT_EQ(read_lines(SHARED "/archlinux/edges.structural.tsv", &want), 0);
	TS_ASSERT_INT_EQ(want.n, 810);
	TS_ASSERT_INT_EQ(compare_edges("archlinux", &got, &want), 0);
	strlist_free(&got);
	strlist_free(&want);
	keyset_free(&ks);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_archlinux, "Arch Linux keyring: key count and structural edges match the reference");

static int test_debian(void)
{
	static const char kr[] = "/usr/share/keyrings/debian-keyring.gpg";
	struct ksp_ctx *ctx;
	struct keyset ks;
	struct strlist got = { 0 }, want = { 0 };
	uint8_t *buf = NULL;
	size_t len;

	if (!have_shared())
		return -1;
	if (read_file_all(kr, 0, &buf, &len) < 0 || len != 28549145) {
		fprintf(stderr, "SKIP: %s\n", access(kr, F_OK) < 0 ?
			"package debian-keyring not installed (/usr/share/keyrings/debian-keyring.gpg missing)" :
			"/usr/share/keyrings/debian-keyring.gpg is not version 2022.12.24 (tests/data's numbers)");
		free(buf);
		return 0;
	}
	ctx = new_ctx();
	TS_ASSERT(ctx);
	TS_ASSERT_INT_EQ(parse_buf(ctx, buf, len, kr, &ks), 0);
	free(buf);
	TS_ASSERT_INT_EQ(ks.n, 905);
	TS_ASSERT_INT_EQ(ks.bad_keys, 0);
	TS_ASSERT_INT_EQ(structural_edges(&ks, &got), 0);
	TS_ASSERT_INT_EQ(read_lines(SHARED "/debian-keyring/edges.structural.tsv", &want), 0);
	TS_ASSERT_INT_EQ(want.n, 11838);
	TS_ASSERT_INT_EQ(compare_edges("debian", &got, &want), 0);
	strlist_free(&got);
	strlist_free(&want);
	keyset_free(&ks);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_debian, "Debian keyring (if installed): 905 keys, structural edges match");

/* keys column of the sequoia-wot README table, -1 if not found */
static long seq_keys(const char *readme, const char *file)
{
	char pat[512];
	const char *p;

	snprintf(pat, sizeof(pat), "\n| %s | ", file);
	p = strstr(readme, pat);
	if (!p)
		return -1;
	return strtol(p + strlen(pat), NULL, 10);
}

static int test_sequoia_wot(void)
{
	struct ksp_ctx *ctx;
	DIR *d;
	struct dirent *de;
	uint8_t *readme;
	size_t rlen;
	unsigned files = 0, bad = 0;

	if (!have_shared())
		return -1;
	ctx = new_ctx();
	TS_ASSERT(ctx);
	TS_ASSERT_INT_EQ(read_file_all(SHARED "/sequoia-wot/README.md", 0, &readme, &rlen), 0);
	d = opendir(SHARED "/sequoia-wot");
	TS_ASSERT(d);
	while ((de = readdir(d))) {
		char path[1024], epath[1024], base[256];
		size_t l = strlen(de->d_name);
		struct keyset ks;
		struct strlist got = { 0 }, want = { 0 };
		long nk;
		bool any_secret = false;
		size_t i;

		if (l < 5 || l >= sizeof(base) || strcmp(de->d_name + l - 4, ".pgp") != 0)
			continue;
		memcpy(base, de->d_name, l - 4);
		base[l - 4] = '\0';
		snprintf(path, sizeof(path), SHARED "/sequoia-wot/%s", de->d_name);
		snprintf(epath, sizeof(epath), SHARED "/sequoia-wot/edges/%s.edges.tsv", base);
		TS_ASSERT_INT_EQ(parse_file(ctx, path, &ks), 0);
		TS_ASSERT(ks.armored);
		nk = seq_keys((const char *)readme, de->d_name);
		if (nk != (long)ks.n || ks.bad_keys) {
			fprintf(stderr, "%s: %zu keys (%u bad), README says %ld\n", de->d_name, ks.n,
				ks.bad_keys, nk);
			bad++;
		}
		for (i = 0; i < ks.n; i++)
			any_secret |= ks.keys[i]->secret;
		if (strncmp(base, "cliques", 7) == 0 || strcmp(base, "sha1") == 0)
			TS_ASSERT(any_secret);
		TS_ASSERT_INT_EQ(structural_edges(&ks, &got), 0);
		TS_ASSERT_INT_EQ(read_lines(epath, &want), 0);
		if (compare_edges(de->d_name, &got, &want) != 0)
			bad++;
		strlist_free(&got);
		strlist_free(&want);
		keyset_free(&ks);
		files++;
	}
	closedir(d);
	free(readme);
	ksp_unref(ctx);
	/* the README says 30 files; the folder holds 31 .pgp, each with its
	 * edges file (read_lines above fails on a missing one) */
	fprintf(stderr, "sequoia-wot: %u files checked, %u mismatches\n", files, bad);
	TS_ASSERT(files >= 30);
	TS_ASSERT_INT_EQ(bad, 0);
	return 0;
}
DEFINE_TEST(test_sequoia_wot, "Sequoia-WoT vectors: key counts and structural edges match");

/* ---- robustness ------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static int fuzz_one(struct ksp_ctx *ctx, const uint8_t *orig, size_t olen, uint64_t *seed,
		    unsigned iterations)
{
	uint8_t *buf = malloc(olen + 64);
	unsigned it;

	if (!buf)
		return -ENOMEM;
	for (it = 0; it < iterations; it++) {
		size_t len = olen, pos, k, n;
		struct keyset ks;
		int r;

		memcpy(buf, orig, olen);
		pos = (size_t)(rng_next(seed) % olen);
		switch (rng_next(seed) % 6) {
		case 0: /* flip bits of one byte */
			buf[pos] ^= (uint8_t)(1u << (rng_next(seed) % 8));
			break;
		case 1: /* truncate */
			len = pos;
			break;
		case 2: /* extend with random bytes */
			n = 1 + rng_next(seed) % 64;
			for (k = 0; k < n; k++)
				buf[olen + k] = (uint8_t)rng_next(seed);
			len = olen + n;
			break;
		case 3: /* a hostile length byte */
			buf[pos] = (uint8_t)(0xff - rng_next(seed) % 4);
			break;
		case 4: /* several random bytes */
			for (k = 0; k < 8; k++)
				buf[(size_t)(rng_next(seed) % olen)] = (uint8_t)rng_next(seed);
			break;
		default: /* zero a byte */
			buf[pos] = 0;
			break;
		}
		r = parse_buf(ctx, buf, len, "fuzz", &ks);
		keyset_free(&ks);
		if (r < 0) {
			free(buf);
			return r;
		}
	}
	free(buf);
	return 0;
}

static int test_fuzz(void)
{
	struct ksp_ctx *ctx = new_ctx();
	static const char *const files[] = { FIXTURES "/several.gpg", FIXTURES "/grace-dsa1024.asc",
					     FIXTURES "/alice-secret.asc" };
	static const unsigned iters[] = { 2000, 500, 500 };
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	size_t i;

	TS_ASSERT(ctx);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		uint8_t *buf;
		size_t len;

		TS_ASSERT_INT_EQ(read_file_all(files[i], 0, &buf, &len), 0);
		TS_ASSERT(len > 0);
		TS_ASSERT_INT_EQ(fuzz_one(ctx, buf, len, &seed, iters[i]), 0);
		free(buf);
	}
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_fuzz, "mutated fixtures (fixed seed) parse without crashing");

/* ---- throughput ------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench_file(struct ksp_ctx *ctx, const char *path)
{
	uint8_t *buf;
	size_t len, nsigs = 0, i, u;
	struct keyset ks;
	double t0, t1;

	if (read_file_all(path, 0, &buf, &len) < 0) {
		fprintf(stderr, "SKIP bench: %s not readable\n", path);
		return 0;
	}
	t0 = now();
	TS_ASSERT_INT_EQ(parse_buf(ctx, buf, len, path, &ks), 0);
	t1 = now();
	for (i = 0; i < ks.n; i++)
		for (u = 0; u < ks.keys[i]->n_uids; u++)
			nsigs += ks.keys[i]->uids[u].n_sigs;
	fprintf(stderr, "bench: %s: %zu bytes, %zu keys, %zu uid sigs, %u bad keys, %u skipped packets: %.3f s, %.1f MB/s\n",
		path, len, ks.n, nsigs, ks.bad_keys, ks.skipped, t1 - t0,
		(double)len / 1e6 / (t1 - t0 > 0 ? t1 - t0 : 1e-9));
	keyset_free(&ks);
	free(buf);
	return 0;
}

static int test_throughput(void)
{
	struct ksp_ctx *ctx = new_ctx();

	TS_ASSERT(ctx);
	if (access(SHARED "/archlinux/archlinux.gpg", R_OK) == 0)
		TS_ASSERT_INT_EQ(bench_file(ctx, SHARED "/archlinux/archlinux.gpg"), 0);
	TS_ASSERT_INT_EQ(bench_file(ctx, "/usr/share/keyrings/debian-keyring.gpg"), 0);
	ksp_unref(ctx);
	return 0;
}
DEFINE_TEST(test_throughput, "parse throughput (archlinux.gpg, debian-keyring.gpg)");
