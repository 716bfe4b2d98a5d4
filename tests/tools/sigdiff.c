// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sigdiff: the differential test of ksp's signature verification (issue
 * 20).  It makes a few thousand OpenPGP certifications, good, bad and
 * adversarial, with libgcrypt and the keys of sigdiff-keys.h, and checks
 * for each:
 *
 *  - ksp's verdict (ksp_pgp_verify_uid_sig) is the one expected of the
 *    class (a genuine signature is good, every forgery and near miss is
 *    not);
 *  - it is the verdict of libgcrypt called the way gpg 2.2.40 calls it
 *    (g10/sig-check.c, seskey.c encode_md_value, pkglue.c pk_verify, and
 *    gpg's hash rules, with ksp's hash rules in the gnupg model's defaults
 *    applied to ksp's), but for the classes where ksp is stricter on
 *    purpose, which must differ exactly as expected;
 *  - RSA: the portable and the AVX-512 IFMA exponentiation say the same
 *    (where the CPU has IFMA); Ed25519: eight lanes at a time
 *    (ksp_pgp_edcheck_run) say what one at a time says, for groups with a
 *    bad signature in each lane in turn.
 *
 * Prints one line per class (the counts docs/reliability.md quotes) and
 * exits 1 on any unexpected verdict.  With --keyring FILE it also writes
 * every certification as a keyring (signers, then the target with one
 * user ID per class), and with --verdicts FILE "SHA1-OF-PACKET-BODY
 * VERDICT" lines (certs.digest and certs.verified of a store that loaded
 * the keyring: tests/cli/T540-verify-hashes.sh compares them, on the IFMA
 * and the portable paths).
 *
 * With --rules-keyring FILE it writes a keyring for the hash rules of the
 * trust models: four RSA keys, each certifying the target once (good),
 * with MD5, SHA-1 made after 2019-01-19, SHA-1 before, RIPEMD-160; and
 * FILE.fpr, "md5|sha1-new|sha1-old|rmd160|target FPR" lines.
 *
 * --make-keys prints sigdiff-keys.h (new random keys: libgcrypt's key
 * generation takes seconds, so the keys are made once and kept).
 *
 * Usage: sigdiff [--keyring FILE] [--verdicts FILE] [--rules-keyring FILE]
 *        sigdiff --make-keys
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gcrypt.h>

#include "lib/openpgp/ed25519.h"
#include "lib/openpgp/ed25519-private.h"
#include "lib/openpgp/hash-rules.h"
#include "lib/libksp-private.h"
#include "lib/openpgp/pgp-rsa.h"
#include "lib/openpgp/pgp-verify.h"
#include "shared/util.h"

#include "sigdiff-keys.h"

#define T_CERT 1700000000u /* 2023-11-14: after the SHA-1 cutoff */
#define T_OLD 1500000000u  /* 2017-07-14: before it */
#define T_KEY 1400000000u

/* ---- bytes ------------------------------------------------------------- */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (b->p == NULL)
			abort();
	}
	if (n)
		memcpy(b->p + b->n, d, n);
	b->n += n;
}
static void put8(struct buf *b, unsigned v)
{
	uint8_t x = (uint8_t)v;
	put(b, &x, 1);
}
static void put16(struct buf *b, unsigned v)
{
	put8(b, v >> 8);
	put8(b, v);
}
static void put32(struct buf *b, uint32_t v)
{
	put16(b, v >> 16);
	put16(b, v & 0xffff);
}
/* an MPI of v[0..n) (leading zeros stripped, bit count exact) */
static void put_mpi(struct buf *b, const uint8_t *v, size_t n)
{
	unsigned bits = 0;

	while (n && *v == 0)
		v++, n--;
	if (n)
		for (uint8_t t = v[0]; t; t >>= 1)
			bits++;
	put16(b, n ? (unsigned)(n - 1) * 8 + bits : 0);
	put(b, v, n);
}
/* new-format packet */
static void packet(struct buf *out, int tag, const struct buf *body)
{
	put8(out, 0xc0 | tag);
	if (body->n < 192) {
		put8(out, (unsigned)body->n);
	} else if (body->n < 8384) {
		put8(out, (unsigned)((body->n - 192) >> 8) + 192);
		put8(out, (body->n - 192) & 0xff);
	} else {
		put8(out, 0xff);
		put32(out, (uint32_t)body->n);
	}
	put(out, body->p, body->n);
}

static size_t mpi_bytes(gcry_mpi_t m, uint8_t *out, size_t cap)
{
	size_t n = 0;

	if (gcry_mpi_print(GCRYMPI_FMT_USG, out, cap, &n, m))
		abort();
	return n;
}

static gcry_mpi_t sexp_mpi(gcry_sexp_t s, const char *name)
{
	gcry_sexp_t l = gcry_sexp_find_token(s, name, 0);
	gcry_mpi_t m = l ? gcry_sexp_nth_mpi(l, 1, GCRYMPI_FMT_USG) : NULL;

	gcry_sexp_release(l);
	if (m == NULL)
		abort();
	return m;
}

static size_t sexp_bytes(gcry_sexp_t s, const char *name, uint8_t *out, size_t cap)
{
	gcry_sexp_t l = gcry_sexp_find_token(s, name, 0);
	size_t n = 0;
	const char *d = l ? gcry_sexp_nth_data(l, 1, &n) : NULL;

	if (d == NULL || n > cap)
		abort();
	memcpy(out, d, n);
	gcry_sexp_release(l);
	return n;
}

/* ---- keys ---------------------------------------------------------------- */

enum { K_RSA, K_DSA, K_ECDSA, K_ED, K_ED6 };

struct tkey {
	const char *name;
	int kind;
	uint8_t algo, version;
	gcry_sexp_t priv, pub;
	struct buf body; /* the public key packet's body */
	uint8_t fpr[32], fpr_len, keyid[8];
	unsigned qbits;  /* DSA q, ECDSA order bits (as gpg: P-521 512) */
	const char *curve; /* libgcrypt's name */
	uint8_t seed[32], a[32];
	gcry_mpi_t n, e;
	bool small_order;
};

static const struct {
	const char *name, *gcry;
	uint8_t oid[10], oidlen;
	unsigned qbits;
} curves[] = {
	{ "nistp256", "NIST P-256", { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 }, 8, 256 },
	{ "nistp384", "NIST P-384", { 0x2b, 0x81, 0x04, 0x00, 0x22 }, 5, 384 },
	{ "nistp521", "NIST P-521", { 0x2b, 0x81, 0x04, 0x00, 0x23 }, 5, 512 },
	{ "brainpoolP256r1", "brainpoolP256r1", { 0x2b, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x07 }, 9, 256 },
	{ "brainpoolP384r1", "brainpoolP384r1", { 0x2b, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x0b }, 9, 384 },
	{ "brainpoolP512r1", "brainpoolP512r1", { 0x2b, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x0d }, 9, 512 },
	{ "secp256k1", "secp256k1", { 0x2b, 0x81, 0x04, 0x00, 0x0a }, 5, 256 },
};
static const uint8_t ed_oid[] = { 0x2b, 0x06, 0x01, 0x04, 0x01, 0xda, 0x47, 0x0f, 0x01 };

static void key_fpr(struct tkey *k)
{
	struct buf h = { 0 };

	if (k->version == 6) {
		put8(&h, 0x9b);
		put32(&h, (uint32_t)k->body.n);
		put(&h, k->body.p, k->body.n);
		gcry_md_hash_buffer(GCRY_MD_SHA256, k->fpr, h.p, h.n);
		k->fpr_len = 32;
		memcpy(k->keyid, k->fpr, 8);
	} else {
		put8(&h, 0x99);
		put16(&h, (unsigned)k->body.n);
		put(&h, k->body.p, k->body.n);
		gcry_md_hash_buffer(GCRY_MD_SHA1, k->fpr, h.p, h.n);
		k->fpr_len = 20;
		memcpy(k->keyid, k->fpr + 12, 8);
	}
	free(h.p);
}

static uint32_t key_time_shift; /* another creation time: another key of the same material */

static void key_start(struct tkey *k, const char *name, int kind, uint8_t algo)
{
	memset(k, 0, sizeof(*k));
	k->name = name;
	k->kind = kind;
	k->algo = algo;
	k->version = kind == K_ED6 ? 6 : 4;
	put8(&k->body, k->version);
	put32(&k->body, T_KEY + key_time_shift);
	put8(&k->body, algo);
}

static void key_from_sexp(struct tkey *k, const char *name, const char *text, int kind)
{
	uint8_t v[1100];
	size_t n;
	gcry_sexp_t priv;

	if (gcry_sexp_new(&priv, text, 0, 1))
		abort();
	if (kind == K_RSA) {
		gcry_mpi_t nn = sexp_mpi(priv, "n"), ee = sexp_mpi(priv, "e");

		key_start(k, name, kind, 1);
		n = mpi_bytes(nn, v, sizeof(v));
		put_mpi(&k->body, v, n);
		n = mpi_bytes(ee, v, sizeof(v));
		put_mpi(&k->body, v, n);
		k->n = nn;
		k->e = ee;
		if (gcry_sexp_build(&k->pub, NULL, "(public-key(rsa(n%m)(e%m)))", nn, ee))
			abort();
	} else if (kind == K_DSA) {
		const char *part[] = { "p", "q", "g", "y" };
		gcry_mpi_t m[4];

		key_start(k, name, kind, 17);
		for (int i = 0; i < 4; i++) {
			m[i] = sexp_mpi(priv, part[i]);
			n = mpi_bytes(m[i], v, sizeof(v));
			put_mpi(&k->body, v, n);
		}
		k->qbits = gcry_mpi_get_nbits(m[1]);
		if (gcry_sexp_build(&k->pub, NULL, "(public-key(dsa(p%m)(q%m)(g%m)(y%m)))", m[0], m[1], m[2], m[3]))
			abort();
		for (int i = 0; i < 4; i++)
			gcry_mpi_release(m[i]);
	} else {
		char cname[64] = "";
		size_t ci;
		gcry_sexp_t l = gcry_sexp_find_token(priv, "curve", 0);
		const char *d = l ? gcry_sexp_nth_data(l, 1, &n) : NULL;

		if (d == NULL || n >= sizeof(cname))
			abort();
		memcpy(cname, d, n);
		gcry_sexp_release(l);
		for (ci = 0; ci < ARRAY_SIZE(curves); ci++)
			if (strcmp(curves[ci].gcry, cname) == 0)
				break;
		if (ci == ARRAY_SIZE(curves))
			abort();
		key_start(k, name, K_ECDSA, 19);
		put8(&k->body, curves[ci].oidlen);
		put(&k->body, curves[ci].oid, curves[ci].oidlen);
		n = sexp_bytes(priv, "q", v, sizeof(v));
		put_mpi(&k->body, v, n);
		k->qbits = curves[ci].qbits;
		k->curve = curves[ci].gcry;
		if (gcry_sexp_build(&k->pub, NULL, "(public-key(ecc(curve %s)(q%b)))", cname, (int)n, v))
			abort();
	}
	k->priv = priv;
	key_fpr(k);
}

/* Ed25519 from a seed (or, small_order, the point @a itself, no secret) */
static void key_ed(struct tkey *k, const char *name, const uint8_t seed[32], const uint8_t *a, bool v6)
{
	key_start(k, name, v6 ? K_ED6 : K_ED, v6 ? 27 : 22);
	if (a) {
		memcpy(k->a, a, 32);
		k->small_order = true;
	} else {
		memcpy(k->seed, seed, 32);
		ksp_ed25519_public(seed, k->a);
	}
	if (v6) {
		put32(&k->body, 32);
		put(&k->body, k->a, 32);
	} else {
		uint8_t q[33] = { 0x40 };

		put8(&k->body, sizeof(ed_oid));
		put(&k->body, ed_oid, sizeof(ed_oid));
		memcpy(q + 1, k->a, 32);
		put16(&k->body, 263);
		put(&k->body, q, 33);
	}
	if (!k->small_order && gcry_sexp_build(&k->priv, NULL, "(private-key(ecc(curve Ed25519)(flags eddsa)(q%b)(d%b)))",
					       32, k->a, 32, seed))
		abort();
	if (gcry_sexp_build(&k->pub, NULL, "(public-key(ecc(curve Ed25519)(flags eddsa)(q%b)))", 32, k->a))
		abort();
	key_fpr(k);
}

/* ---- certifications -------------------------------------------------------- */

enum { V_GOOD = KSP_VERIFY_GOOD, V_BAD = KSP_VERIFY_BAD, V_UNSUP = KSP_VERIFY_UNSUPPORTED, V_REFUSED = 9 };
static const char *vname(int v)
{
	switch (v) {
	case V_GOOD: return "good";
	case V_BAD: return "bad";
	case V_UNSUP: return "unsupported";
	case V_REFUSED: return "refused";
	default: return "?";
	}
}

/* A class of certifications; ksp and gpg must say @ksp_want and @gpg_want
 * (0: ksp's verdict, mapped: good = good, bad = bad or refused,
 * unsupported or refused by a hash rule = refused). */
struct cls {
	const char *name;
	int ksp_want, gpg_want; /* gpg_want -1: anything (gpg_good counts its goods) */
	unsigned n, agree, ksp_bad, gpg_diff, gpg_good;
	struct buf sigs; /* packets, for the keyring */
	bool separate;   /* in the rules keyring, not the other */
};

struct cert {
	struct buf body;          /* the signature packet body */
	const struct tkey *signer;
	uint8_t hash;
	uint32_t created;
	size_t uid;               /* class index */
};

static struct cls classes[64];
static size_t n_classes;
static struct tkey target;
static struct buf uids[64]; /* one user ID per class */

static size_t new_class(const char *name, int ksp_want, int gpg_want)
{
	struct cls *c = &classes[n_classes];

	if (n_classes == ARRAY_SIZE(classes))
		abort();
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->ksp_want = ksp_want;
	c->gpg_want = gpg_want;
	uids[n_classes].n = 0;
	put(&uids[n_classes], "sigdiff INSECURE <", 18);
	put(&uids[n_classes], name, strlen(name));
	put(&uids[n_classes], ">", 1);
	return n_classes++;
}

static int gcry_algo(uint8_t h)
{
	return ksp_pgp_hash_to_gcry(h);
}

/* The hashed part of a certification, and its digest (computed here, not
 * by ksp). */
static void cert_begin(struct cert *c, const struct tkey *signer, uint8_t hash, uint32_t created, size_t cls)
{
	struct buf *b = &c->body;

	memset(c, 0, sizeof(*c));
	c->signer = signer;
	c->hash = hash;
	c->created = created;
	c->uid = cls;
	put8(b, signer->version);
	put8(b, 0x10);
	put8(b, signer->algo);
	put8(b, hash);
	if (signer->version == 6) {
		put32(b, 6 + 2 + 1 + signer->fpr_len);
	} else {
		put16(b, 6 + 2 + 1 + signer->fpr_len);
	}
	put8(b, 5);
	put8(b, 2);
	put32(b, created);
	put8(b, 2 + signer->fpr_len);
	put8(b, 33);
	put8(b, signer->version);
	put(b, signer->fpr, signer->fpr_len);
}

static size_t digest_of(const struct cert *c, const uint8_t *salt, size_t salt_len, uint8_t *dg)
{
	struct buf h = { 0 };
	int ga = gcry_algo(c->hash);
	size_t hl = c->body.n;

	if (salt_len)
		put(&h, salt, salt_len);
	if (target.version == 6) {
		put8(&h, 0x9b);
		put32(&h, (uint32_t)target.body.n);
	} else {
		put8(&h, 0x99);
		put16(&h, (unsigned)target.body.n);
	}
	put(&h, target.body.p, target.body.n);
	put8(&h, 0xb4);
	put32(&h, (uint32_t)uids[c->uid].n);
	put(&h, uids[c->uid].p, uids[c->uid].n);
	put(&h, c->body.p, hl);
	put8(&h, c->signer->version);
	put8(&h, 0xff);
	put32(&h, (uint32_t)hl);
	gcry_md_hash_buffer(ga, dg, h.p, h.n);
	free(h.p);
	return gcry_md_get_algo_dlen(ga);
}

/* the unhashed part and the left 16 bits; the MPIs follow */
static void cert_mid(struct cert *c, const uint8_t *dg)
{
	if (c->signer->version == 6) {
		put32(&c->body, 0);
	} else {
		put16(&c->body, 10);
		put8(&c->body, 9);
		put8(&c->body, 16);
		put(&c->body, c->signer->keyid, 8);
	}
	put(&c->body, dg, 2);
}

/* ---- libgcrypt the way gpg 2.2.40 calls it --------------------------------- */

static bool gpg_knows_hash(uint8_t h)
{
	return h == 1 || h == 2 || h == 3 || (h >= 8 && h <= 11);
}

/* gpg's verdict on the certification whose MPIs start at body[p], for
 * the digest dg of dlen octets: V_GOOD, V_BAD or V_REFUSED ('%'). */
static int gpg_verdict(const struct cert *c, const uint8_t *dg, size_t dlen, size_t p)
{
	const struct tkey *k = c->signer;
	const uint8_t *b = c->body.p;
	size_t len = c->body.n;
	gcry_sexp_t s_sig = NULL, s_data = NULL;
	gcry_mpi_t m[2] = { NULL, NULL };
	unsigned nb[2] = { 0, 0 };
	int r = V_BAD;

	if (k->version == 6 || !gpg_knows_hash(c->hash))
		return V_REFUSED; /* gpg 2.2: no v6, no SHA-3 */
	/* the hash rules (g10/sig-check.c): MD5 always, SHA-1 third-party
	 * user ID signatures made after 2019-01-19 */
	if (ksp_hash_rule(c->hash, c->created, false, KSP_SHA1_BEFORE_2019) != KSP_HASH_KEPT)
		return V_REFUSED;
	if (dg[0] != b[p - 2] || dg[1] != b[p - 1])
		return V_BAD;
	for (int i = 0; i < (k->kind == K_RSA ? 1 : 2); i++) {
		size_t n;

		if (len - p < 2)
			return V_BAD;
		nb[i] = (unsigned)(b[p] << 8 | b[p + 1]);
		n = (nb[i] + 7) / 8;
		p += 2;
		if (n > len - p)
			return V_BAD;
		if (gcry_mpi_scan(&m[i], GCRYMPI_FMT_USG, b + p, n, NULL))
			abort();
		p += n;
	}
	switch (k->kind) {
	case K_RSA: {
		/* seskey.c do_encode_md: 00 01 FF.. 00 ASN digest, nbytes of n */
		uint8_t asn[32], frame[1100];
		size_t asnlen = sizeof(asn), nframe = (gcry_mpi_get_nbits(k->n) + 7) / 8;
		gcry_mpi_t fm;

		if (gcry_md_algo_info(gcry_algo(c->hash), GCRYCTL_GET_ASNOID, asn, &asnlen) ||
		    nframe < dlen + asnlen + 11)
			goto out;
		frame[0] = 0;
		frame[1] = 1;
		memset(frame + 2, 0xff, nframe - dlen - asnlen - 3);
		frame[nframe - dlen - asnlen - 1] = 0;
		memcpy(frame + nframe - dlen - asnlen, asn, asnlen);
		memcpy(frame + nframe - dlen, dg, dlen);
		if (gcry_mpi_scan(&fm, GCRYMPI_FMT_USG, frame, nframe, NULL))
			abort();
		if (gcry_sexp_build(&s_data, NULL, "(data(flags raw)(value %m))", fm) ||
		    gcry_sexp_build(&s_sig, NULL, "(sig-val(rsa(s%m)))", m[0]))
			abort();
		gcry_mpi_release(fm);
		break;
	}
	case K_DSA:
	case K_ECDSA: {
		/* seskey.c encode_md_value */
		unsigned qbits = k->qbits;
		gcry_mpi_t h;

		if (qbits % 8 || qbits < 160 || dlen < qbits / 8) {
			r = V_REFUSED;
			goto out;
		}
		if (gcry_mpi_scan(&h, GCRYMPI_FMT_USG, dg, qbits / 8, NULL))
			abort();
		if (gcry_sexp_build(&s_data, NULL, "(data(flags raw)(value %m))", h) ||
		    gcry_sexp_build(&s_sig, NULL, k->kind == K_DSA ? "(sig-val(dsa(r%m)(s%m)))" : "(sig-val(ecdsa(r%m)(s%m)))",
				    m[0], m[1]))
			abort();
		gcry_mpi_release(h);
		break;
	}
	case K_ED: {
		/* pkglue.c pk_verify: R and S of 1 to 32 octets, padded */
		uint8_t rs[2][32];

		for (int i = 0; i < 2; i++) {
			size_t n = (gcry_mpi_get_nbits(m[i]) + 7) / 8, w = 0;

			if (n == 0 || n > 32) {
				r = V_REFUSED;
				goto out;
			}
			memset(rs[i], 0, 32);
			if (gcry_mpi_print(GCRYMPI_FMT_USG, rs[i] + 32 - n, n, &w, m[i]))
				abort();
		}
		if (gcry_sexp_build(&s_data, NULL, "(data(flags eddsa)(hash-algo sha512)(value %b))", (int)dlen, dg) ||
		    gcry_sexp_build(&s_sig, NULL, "(sig-val(eddsa(r%b)(s%b)))", 32, rs[0], 32, rs[1]))
			abort();
		break;
	}
	default:
		goto out;
	}
	r = gcry_pk_verify(s_sig, s_data, k->pub) == 0 ? V_GOOD : V_BAD;
out:
	gcry_sexp_release(s_sig);
	gcry_sexp_release(s_data);
	gcry_mpi_release(m[0]);
	gcry_mpi_release(m[1]);
	return r;
}

/* ---- checking one ------------------------------------------------------------ */

static unsigned n_fail, n_total, n_ifma_checked;
static FILE *verdicts;
static struct buf ed_bodies[4096];
static const struct tkey *ed_signers[4096];
static int ed_verdicts[4096];
static size_t ed_uid[4096];
static size_t n_ed;
static struct ksp_ctx *ctx;

static int ksp_verdict(const struct cert *c)
{
	struct ksp_pgp_pubkey signer = { 0 }, tgt = { 0 };
	struct ksp_pgp_sig sig = { 0 };
	struct ksp_pgp_uid uid = { .data = uids[c->uid].p, .len = uids[c->uid].n };
	int r;

	if (ksp_pgp_parse_pubkey(c->signer->body.p, c->signer->body.n, false, &signer) < 0 ||
	    ksp_pgp_fingerprint(&signer) < 0 || ksp_pgp_parse_pubkey(target.body.p, target.body.n, false, &tgt) < 0 ||
	    ksp_pgp_fingerprint(&tgt) < 0)
		abort();
	if (ksp_pgp_parse_sig(c->body.p, c->body.n, &sig) < 0)
		return V_BAD; /* malformed: never stored as a certification */
	r = ksp_pgp_verify_uid_sig(&signer, &tgt, &uid, &sig);
	ksp_pgp_sig_done(&sig);
	return r;
}

/* ksp's verdict as gpg would show it: the hash rules of the gnupg model */
static int ksp_as_gpg(const struct cert *c, int v)
{
	if (v == V_UNSUP)
		return V_REFUSED;
	if (v == V_GOOD && ksp_hash_rule(c->hash, c->created, false, KSP_SHA1_BEFORE_2019) != KSP_HASH_KEPT)
		return V_REFUSED;
	return v;
}

static void finish(struct cert *c, size_t p, const uint8_t *dg, size_t dlen, const uint8_t *s, size_t sl)
{
	struct cls *k = &classes[c->uid];
	int v = ksp_verdict(c), g = c->signer->version == 6 ? V_REFUSED : gpg_verdict(c, dg, dlen, p);
	int want_k = k->ksp_want, want_g = k->gpg_want ? k->gpg_want : ksp_as_gpg(c, v);
	/* gpg refuses ('%') some malformed signatures ksp calls bad */
	bool same = ksp_as_gpg(c, v) == g || (g == V_REFUSED && v == V_BAD);
	bool ok = true;

	k->n++;
	n_total++;
	if (v != want_k) {
		k->ksp_bad++;
		ok = false;
	}
	if (k->gpg_want == 0 ? !same : k->gpg_want > 0 && g != want_g) {
		k->gpg_diff++;
		ok = false;
	}
	k->agree += same;
	k->gpg_good += g == V_GOOD;
	/* RSA: both exponentiations */
	if (s && c->signer->kind == K_RSA) {
		uint8_t nb[1100], eb[16];
		size_t nl = mpi_bytes(c->signer->n, nb, sizeof(nb)), el = mpi_bytes(c->signer->e, eb, sizeof(eb));
		int ref = -2;

		for (int impl = KSP_RSA_IMPL_PORTABLE; impl <= KSP_RSA_IMPL_IFMA; impl++) {
			struct ksp_rsa_key *rk = NULL;
			int r;

			if (ksp_rsa_key_new_impl(nb, nl, eb, el, impl, &rk) < 0)
				continue;
			r = ksp_rsa_verify_pkcs1(rk, gcry_algo(c->hash), dg, dlen, s, sl);
			ksp_rsa_key_free(rk);
			if (impl == KSP_RSA_IMPL_IFMA)
				n_ifma_checked++;
			if (ref != -2 && r != ref) {
				fprintf(stderr, "sigdiff: %s: portable %d, IFMA %d\n", k->name, ref, r);
				ok = false;
			}
			ref = r;
		}
	}
	if (!ok) {
		n_fail++;
		if (n_fail <= 30)
			fprintf(stderr, "sigdiff: %s (%s, hash %u): ksp %s (want %s), gpg %s (want %s)\n", k->name,
				c->signer->name, c->hash, vname(v), vname(want_k), vname(g), vname(want_g));
	}
	if (c->signer->kind == K_ED || c->signer->kind == K_ED6) {
		if (n_ed < ARRAY_SIZE(ed_bodies)) {
			ed_bodies[n_ed].n = 0;
			put(&ed_bodies[n_ed], c->body.p, c->body.n);
			ed_signers[n_ed] = c->signer;
			ed_verdicts[n_ed] = v;
			ed_uid[n_ed] = c->uid;
			n_ed++;
		}
	}
	packet(&k->sigs, 2, &c->body);
	if (verdicts && !k->separate) {
		uint8_t md[20];
		char hex[41];

		gcry_md_hash_buffer(GCRY_MD_SHA1, md, c->body.p, c->body.n);
		hex_encode(md, 20, hex);
		fprintf(verdicts, "%s %d %u %u %s\n", hex, v, c->hash, c->created, k->name);
	}
	free(c->body.p);
}

/* ---- RSA ----------------------------------------------------------------------- */

/* s = m^d mod n: the private operation on a chosen encoding */
static size_t rsa_raw_sign(const struct tkey *k, const uint8_t *em, size_t emlen, uint8_t *s)
{
	gcry_sexp_t data, sig;
	gcry_mpi_t m, sv;
	size_t n;

	if (gcry_mpi_scan(&m, GCRYMPI_FMT_USG, em, emlen, NULL) ||
	    gcry_sexp_build(&data, NULL, "(data(flags raw)(value %m))", m) || gcry_pk_sign(&sig, data, k->priv))
		abort();
	sv = sexp_mpi(sig, "s");
	n = mpi_bytes(sv, s, 1100);
	gcry_mpi_release(m);
	gcry_mpi_release(sv);
	gcry_sexp_release(data);
	gcry_sexp_release(sig);
	return n;
}

static const uint8_t *digest_info(uint8_t h, size_t *len)
{
	static const uint8_t sha1[] = { 0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14 };
	static const uint8_t rmd160[] = { 0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x24, 0x03, 0x02, 0x01, 0x05, 0x00, 0x04, 0x14 };
	static const uint8_t md5[] = { 0x30, 0x20, 0x30, 0x0c, 0x06, 0x08, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x05, 0x05, 0x00, 0x04, 0x10 };
	static uint8_t nist[19] = { 0x30, 0, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0, 0x05, 0x00, 0x04, 0 };
	static const uint8_t oid[] = { [8] = 1, [9] = 2, [10] = 3, [11] = 4, [12] = 8, [14] = 10 };
	size_t dl = gcry_md_get_algo_dlen(gcry_algo(h));

	if (h == 1) {
		*len = sizeof(md5);
		return md5;
	}
	if (h == 2) {
		*len = sizeof(sha1);
		return sha1;
	}
	if (h == 3) {
		*len = sizeof(rmd160);
		return rmd160;
	}
	nist[1] = (uint8_t)(17 + dl);
	nist[14] = oid[h];
	nist[18] = (uint8_t)dl;
	*len = sizeof(nist);
	return nist;
}

enum {
	EM_GOOD, EM_BT2, EM_PS_FE, EM_NO_SEP, EM_GARBAGE, EM_NO_NULL, EM_OTHER_OID, EM_SHIFT, EM_GCRY_SHA3,
	EM_LONG_LEN, EM_N
};
static const char *const em_names[] = {
	"RSA good",
	"RSA near miss: block type 2",
	"RSA near miss: an FE in the padding",
	"RSA near miss: no 00 after the padding",
	"RSA near miss: garbage after the digest",
	"RSA near miss: DigestInfo without NULL",
	"RSA near miss: another hash's OID",
	"RSA near miss: encoding one octet short",
	"RSA SHA-3: libgcrypt 1.10's 0x30 prefix",
	"RSA near miss: DigestInfo length octet off",
};

/* the encoding of @dg (hash @h) into em[0..k), varied */
static void rsa_em(int how, uint8_t h, const uint8_t *dg, size_t dl, uint8_t *em, size_t k)
{
	size_t plen;
	const uint8_t *pre = digest_info(h, &plen);
	uint8_t t[128];
	size_t tl;

	memcpy(t, pre, plen);
	memcpy(t + plen, dg, dl);
	tl = plen + dl;
	if (how == EM_NO_NULL) { /* 30 len 30 0b 06 09 OID 04 len: without 05 00 */
		memmove(t + 13, t + 15, tl - 15);
		tl -= 2;
		t[1] -= 2;
		t[3] -= 2;
	} else if (how == EM_OTHER_OID) {
		t[14] ^= 0x07;
	} else if (how == EM_GCRY_SHA3) {
		t[0] = 0x30;
		memcpy(t + 1, dg, dl);
		tl = 1 + dl;
	} else if (how == EM_LONG_LEN) {
		t[1]++;
	}
	memset(em, 0xff, k);
	em[0] = 0;
	em[1] = how == EM_BT2 ? 2 : 1;
	if (how == EM_GARBAGE) {
		/* 00 01 FF.. 00 T garbage: the digest moved 8 octets up */
		memcpy(em + k - tl - 8, t, tl);
		em[k - tl - 9] = 0;
		memset(em + k - 8, 0x5a, 8);
		return;
	}
	if (how == EM_SHIFT) {
		memcpy(em + k - tl - 1, t, tl);
		em[k - tl - 2] = 0;
		em[k - 1] = 0;
		return;
	}
	memcpy(em + k - tl, t, tl);
	if (how != EM_NO_SEP)
		em[k - tl - 1] = 0;
	if (how == EM_PS_FE)
		em[2 + (k - tl) / 2] = 0xfe;
}

static size_t cls_em[EM_N], cls_sn, cls_s0, cls_sha3, cls_cube, cls_md5, cls_sha1_new, cls_sha1_old,
	cls_rmd;

static void rsa_cert(const struct tkey *k, uint8_t h, uint32_t created, int how, size_t cls)
{
	struct cert c;
	uint8_t dg[64], em[1100], s[1100];
	size_t dl, klen = (gcry_mpi_get_nbits(k->n) + 7) / 8, sl, p;

	cert_begin(&c, k, h, created, cls);
	dl = digest_of(&c, NULL, 0, dg);
	cert_mid(&c, dg);
	p = c.body.n + 0;
	rsa_em(how, h, dg, dl, em, klen);
	sl = rsa_raw_sign(k, em, klen, s);
	put_mpi(&c.body, s, sl);
	finish(&c, p, dg, dl, s, sl);
}

/* s + n, and s = 0 */
static void rsa_cert_s(const struct tkey *k, uint8_t h, uint32_t created, int what, size_t cls)
{
	struct cert c;
	uint8_t dg[64], em[1100], s[1100];
	size_t dl, klen = (gcry_mpi_get_nbits(k->n) + 7) / 8, sl, p;

	cert_begin(&c, k, h, created, cls);
	dl = digest_of(&c, NULL, 0, dg);
	cert_mid(&c, dg);
	p = c.body.n;
	rsa_em(EM_GOOD, h, dg, dl, em, klen);
	sl = rsa_raw_sign(k, em, klen, s);
	if (what == 0) {
		gcry_mpi_t m, sum = gcry_mpi_new(0);

		if (gcry_mpi_scan(&m, GCRYMPI_FMT_USG, s, sl, NULL))
			abort();
		gcry_mpi_add(sum, m, k->n);
		sl = mpi_bytes(sum, s, sizeof(s));
		gcry_mpi_release(m);
		gcry_mpi_release(sum);
	} else {
		sl = 1;
		s[0] = what == 1 ? 0 : 1;
	}
	put_mpi(&c.body, s, sl);
	finish(&c, p, dg, dl, s, sl);
}

/* cube root, rounded up, of m (Newton) */
static gcry_mpi_t cbrt_up(gcry_mpi_t m)
{
	gcry_mpi_t x = gcry_mpi_new(0), y = gcry_mpi_new(0), t = gcry_mpi_new(0), three = gcry_mpi_set_ui(NULL, 3);
	unsigned bits = gcry_mpi_get_nbits(m);

	gcry_mpi_set_ui(x, 1);
	gcry_mpi_mul_2exp(x, x, bits / 3 + 1);
	for (;;) { /* y = (2x + m / x^2) / 3 */
		gcry_mpi_mul(t, x, x);
		gcry_mpi_div(t, NULL, m, t, 0);
		gcry_mpi_add(y, x, x);
		gcry_mpi_add(y, y, t);
		gcry_mpi_div(y, NULL, y, three, 0);
		if (gcry_mpi_cmp(y, x) >= 0)
			break;
		gcry_mpi_set(x, y);
	}
	for (;;) { /* the smallest x with x^3 >= m */
		gcry_mpi_mul(t, x, x);
		gcry_mpi_mul(t, t, x);
		if (gcry_mpi_cmp(t, m) >= 0)
			break;
		gcry_mpi_add_ui(x, x, 1);
	}
	gcry_mpi_release(y);
	gcry_mpi_release(t);
	gcry_mpi_release(three);
	return x;
}

/* Bleichenbacher's e = 3 forgery (2006): 00 01 FF..(@ff) 00 T garbage,
 * the garbage chosen so that the whole is a cube; no private key used */
static void rsa_cube(const struct tkey *k, uint8_t h, size_t ff, size_t cls)
{
	struct cert c;
	uint8_t dg[64], em[1100], s[1100];
	size_t dl, klen = (gcry_mpi_get_nbits(k->n) + 7) / 8, sl, p, plen, at;
	const uint8_t *pre;
	gcry_mpi_t m, root;

	cert_begin(&c, k, h, T_CERT, cls);
	dl = digest_of(&c, NULL, 0, dg);
	cert_mid(&c, dg);
	p = c.body.n;
	pre = digest_info(h, &plen);
	memset(em, 0xff, klen);
	em[0] = 0;
	em[1] = 1;
	at = 2 + ff;
	em[at++] = 0;
	memcpy(em + at, pre, plen);
	memcpy(em + at + plen, dg, dl);
	if (gcry_mpi_scan(&m, GCRYMPI_FMT_USG, em, klen, NULL))
		abort();
	root = cbrt_up(m);
	sl = mpi_bytes(root, s, sizeof(s));
	gcry_mpi_release(m);
	gcry_mpi_release(root);
	put_mpi(&c.body, s, sl);
	finish(&c, p, dg, dl, s, sl);
}

/* ---- DSA, ECDSA ------------------------------------------------------------------ */

enum { DS_GOOD, DS_WHOLE, DS_R0, DS_FLIP, DS_RN };

/* signed over the leftmost q bits (DS_WHOLE: over the whole digest, as
 * libgcrypt does with a plain MPI, reduced mod q) */
static void ds_cert(const struct tkey *k, uint8_t h, int how, size_t cls)
{
	struct cert c;
	uint8_t dg[64], v[200];
	size_t dl, p, use, n;
	gcry_sexp_t data, sig;
	gcry_mpi_t hm, r, s;

	cert_begin(&c, k, h, T_CERT, cls);
	dl = digest_of(&c, NULL, 0, dg);
	cert_mid(&c, dg);
	p = c.body.n;
	use = dl < k->qbits / 8 ? dl : k->qbits / 8;
	if (how == DS_WHOLE)
		use = dl;
	if (gcry_mpi_scan(&hm, GCRYMPI_FMT_USG, dg, use, NULL))
		abort();
	if (how == DS_WHOLE && dl * 8 > k->qbits && k->kind == K_DSA) {
		/* the whole digest reduced mod q, not cut (libgcrypt's ECDSA
		 * does that itself with a plain MPI) */
		gcry_mpi_t q = sexp_mpi(k->priv, "q");

		gcry_mpi_mod(hm, hm, q);
		gcry_mpi_release(q);
	}
	if (gcry_sexp_build(&data, NULL, "(data(flags raw)(value %m))", hm) || gcry_pk_sign(&sig, data, k->priv))
		abort();
	r = sexp_mpi(sig, "r");
	s = sexp_mpi(sig, "s");
	if (how == DS_R0)
		gcry_mpi_set_ui(r, 0);
	if (how == DS_FLIP)
		gcry_mpi_add_ui(s, s, 1);
	if (how == DS_RN) {
		gcry_mpi_t q = k->kind == K_DSA ? sexp_mpi(k->priv, "q") : NULL;

		if (q == NULL) { /* the curve's order */
			gcry_sexp_t cp = gcry_pk_get_param(GCRY_PK_ECC, k->curve);

			if (cp == NULL)
				abort();
			q = sexp_mpi(cp, "n");
			gcry_sexp_release(cp);
		}
		gcry_mpi_add(r, r, q);
		gcry_mpi_release(q);
	}
	n = mpi_bytes(r, v, sizeof(v));
	put_mpi(&c.body, v, n);
	n = mpi_bytes(s, v, sizeof(v));
	put_mpi(&c.body, v, n);
	gcry_mpi_release(hm);
	gcry_mpi_release(r);
	gcry_mpi_release(s);
	gcry_sexp_release(data);
	gcry_sexp_release(sig);
	finish(&c, p, dg, dl, NULL, 0);
}

/* ---- Ed25519 ------------------------------------------------------------------------ */

enum { ED_GOOD, ED_FLIP_R, ED_FLIP_S, ED_R0LEN, ED_S0LEN, ED_S_PLUS_L, ED_BAD_R_Y, ED_FORGE, ED_V6_SALT,
       ED_V6_GOOD };

static const uint8_t ed_l[32] = { 0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
				  0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10 };

static void ed_cert(const struct tkey *k, uint32_t created, int how, size_t cls)
{
	struct cert c;
	uint8_t dg[64], rs[64], salt[32];
	size_t dl, p, salt_len = 0;

	cert_begin(&c, k, 10, created, cls);
	if (k->version == 6) {
		salt_len = how == ED_V6_SALT ? 16 : 32; /* SHA-512: 32 */
		for (size_t i = 0; i < salt_len; i++)
			salt[i] = (uint8_t)(i * 7 + created);
	}
	dl = digest_of(&c, salt, salt_len, dg);
	cert_mid(&c, dg);
	if (k->version == 6) {
		put8(&c.body, (unsigned)salt_len);
		put(&c.body, salt, salt_len);
	}
	p = c.body.n;
	if (how == ED_FORGE) {
		/* no secret: for a key A of order 8, R = [r]B and S = r verify
		 * (cofactorless, as libgcrypt) whenever [k]A = 0, k = SHA-512(R ||
		 * A || M): one message in eight.  r: the clamped scalar of a seed,
		 * R: that seed's public key. */
		uint8_t seed[32] = { (uint8_t)created, (uint8_t)(created >> 8), 0x42 }, hh[64];

		ksp_ed25519_public(seed, rs);
		gcry_md_hash_buffer(GCRY_MD_SHA512, hh, seed, 32);
		hh[0] &= 248;
		hh[31] &= 127;
		hh[31] |= 64;
		memcpy(rs + 32, hh, 32);
	} else {
		ksp_ed25519_sign(k->seed, k->a, dg, dl, rs);
	}
	if (how == ED_FLIP_R)
		rs[3] ^= 0x10;
	if (how == ED_FLIP_S)
		rs[40] ^= 0x01;
	if (how == ED_S_PLUS_L) {
		unsigned carry = 0;
		for (int i = 0; i < 32; i++) {
			unsigned t = rs[32 + i] + ed_l[i] + carry;
			rs[32 + i] = (uint8_t)t;
			carry = t >> 8;
		}
	}
	if (how == ED_BAD_R_Y) {
		memset(rs, 0xff, 32);
		rs[0] = 0xee;
		rs[31] = 0x7f; /* y = p - 1 + ... >= p: not canonical */
	}
	if (k->version == 6) {
		put(&c.body, rs, 64);
	} else {
		/* MPIs, as gpg writes them (leading zeros stripped) */
		if (how == ED_R0LEN)
			put16(&c.body, 0);
		else
			put_mpi(&c.body, rs, 32);
		if (how == ED_S0LEN)
			put16(&c.body, 0);
		else
			put_mpi(&c.body, rs + 32, 32);
	}
	finish(&c, p, dg, dl, NULL, 0);
}

/* Eight lanes at a time must say what one at a time says: every Ed25519
 * certification, in groups of eight with each bad one in every lane in
 * turn. */
static int check_lanes(void)
{
	struct ksp_pgp_pubkey tgt = { 0 };
	size_t bad[4096], good[4096], nb = 0, ng = 0;
	unsigned groups = 0, fails = 0;

	if (ksp_pgp_parse_pubkey(target.body.p, target.body.n, false, &tgt) < 0 || ksp_pgp_fingerprint(&tgt) < 0)
		abort();
	for (size_t i = 0; i < n_ed; i++) {
		if (ed_signers[i]->version == 6 || ed_signers[i]->small_order)
			continue;
		if (ed_verdicts[i] == V_GOOD)
			good[ng++] = i;
		else
			bad[nb++] = i;
	}
	/* every bad one of the first 64, in each of the eight lanes */
	for (size_t b = 0; b < nb && b < 64 && ng >= 8; b++)
		for (size_t lane = 0; lane < 8; lane++) {
			struct ksp_pgp_edcheck ec[8];
			struct ksp_pgp_vkey *vk[8] = { NULL };
			struct ksp_pgp_pubkey spk[8];
			struct ksp_pgp_sig sig[8];
			struct ksp_pgp_uid uid[8];
			int want[8], defer[8];
			int8_t res[8];
			size_t m = 0;

			for (size_t j = 0; j < 8; j++) {
				size_t i = j == lane ? bad[b] : good[(b * 8 + j) % ng];

				memset(&spk[j], 0, sizeof(spk[j]));
				memset(&sig[j], 0, sizeof(sig[j]));
				uid[j] = (struct ksp_pgp_uid){ .data = uids[ed_uid[i]].p, .len = uids[ed_uid[i]].n };
				if (ksp_pgp_parse_pubkey(ed_signers[i]->body.p, ed_signers[i]->body.n, false, &spk[j]) < 0 ||
				    ksp_pgp_fingerprint(&spk[j]) < 0 || ksp_pgp_vkey_new(&spk[j], &vk[j]) != 0)
					abort();
				want[j] = ed_verdicts[i];
				if (ksp_pgp_parse_sig(ed_bodies[i].p, ed_bodies[i].n, &sig[j]) < 0) {
					defer[j] = V_BAD;
					continue;
				}
				defer[j] = ksp_pgp_verify_defer(vk[j], &tgt, &uid[j], NULL, &sig[j], &ec[m]);
				if (defer[j] == KSP_VERIFY_DEFERRED)
					m++;
			}
			ksp_pgp_edcheck_run(ec, m, res);
			for (size_t j = 0, q = 0; j < 8; j++) {
				int got = defer[j] == KSP_VERIFY_DEFERRED ? res[q++] : defer[j];

				if (got != want[j]) {
					if (fails++ < 10)
						fprintf(stderr, "sigdiff: eight lanes: lane %zu: %s, one at a time %s\n", j,
							vname(got), vname(want[j]));
				}
				ksp_pgp_sig_done(&sig[j]);
				ksp_pgp_vkey_free(vk[j]);
			}
			groups++;
		}
	printf("sigdiff: Ed25519 eight lanes at a time (%s): %u groups with a bad signature in each lane in turn, "
	       "%u disagreements with one at a time\n",
	       ksp_ed25519_x8_usable() ? "AVX-512 IFMA" : "portable: one at a time", groups, fails);
	return fails ? -1 : 0;
}

/* ---- keys: made once -------------------------------------------------------------------- */

static int make_keys(void)
{
	static const struct {
		const char *name, *spec;
	} specs[] = {
		{ "rsa2048", "(genkey(rsa(nbits 4:2048)(rsa-use-e 5:65537)))" },
		{ "rsa2048e3", "(genkey(rsa(nbits 4:2048)(rsa-use-e 1:3)))" },
		{ "rsa1024ebig", "(genkey(rsa(nbits 4:1024)(rsa-use-e 10:4294967311)))" },
		{ "dsa1024", "(genkey(dsa(nbits 4:1024)(qbits 3:160)))" },
		{ "dsa2048", "(genkey(dsa(nbits 4:2048)(qbits 3:224)))" },
		{ "p256", "(genkey(ecc(curve 10:NIST P-256)))" },
		{ "p384", "(genkey(ecc(curve 10:NIST P-384)))" },
		{ "p521", "(genkey(ecc(curve 10:NIST P-521)))" },
		{ "bp256", "(genkey(ecc(curve 15:brainpoolP256r1)))" },
		{ "bp384", "(genkey(ecc(curve 15:brainpoolP384r1)))" },
		{ "bp512", "(genkey(ecc(curve 15:brainpoolP512r1)))" },
		{ "k256", "(genkey(ecc(curve 9:secp256k1)))" },
	};

	printf("/* SPDX-License-Identifier: LGPL-2.1-or-later */\n"
	       "/* INSECURE test keys for tests/tools/sigdiff.c, made by sigdiff --make-keys\n"
	       " * (libgcrypt's gcry_pk_genkey; kept, as making them takes seconds). */\n"
	       "#pragma once\n\n");
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++) {
		gcry_sexp_t p, k, sk;
		char *text;
		size_t n;

		if (gcry_sexp_new(&p, specs[i].spec, 0, 1) || gcry_pk_genkey(&k, p))
			return 1;
		sk = gcry_sexp_find_token(k, "private-key", 0);
		n = gcry_sexp_sprint(sk, GCRYSEXP_FMT_ADVANCED, NULL, 0);
		text = malloc(n);
		if (text == NULL)
			return 1;
		gcry_sexp_sprint(sk, GCRYSEXP_FMT_ADVANCED, text, n);
		printf("static const char sigdiff_key_%s[] =\n", specs[i].name);
		for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
			printf("\t\"");
			for (; *l; l++)
				printf(*l == '"' || *l == '\\' ? "\\%c" : "%c", *l);
			printf("\"\n");
		}
		printf(";\n\n");
		free(text);
		gcry_sexp_release(sk);
		gcry_sexp_release(k);
		gcry_sexp_release(p);
	}
	return 0;
}

/* ---- the run ------------------------------------------------------------------------------ */

/* the Ed25519 points of order 8 (libsodium's list of small-order encodings) */
static const char *const small_order_hex[] = {
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
};

static void hex_to(const char *h, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(h + 2 * i, "%2x", &v) != 1)
			abort();
		out[i] = (uint8_t)v;
	}
}

/* A good signature of @type by @signer (RSA or Ed25519) on @key + @uid,
 * SHA-256: the self-signatures gpg's model needs. */
static void self_sig(struct buf *out, const struct tkey *signer, const struct tkey *key, const struct buf *uid,
		     uint8_t type, uint32_t created)
{
	struct cert c;
	struct buf h = { 0 };
	uint8_t dg[64];
	size_t dl;

	cert_begin(&c, signer, 8, created, 0);
	c.body.p[1] = type;
	put8(&h, 0x99);
	put16(&h, (unsigned)key->body.n);
	put(&h, key->body.p, key->body.n);
	put8(&h, 0xb4);
	put32(&h, (uint32_t)uid->n);
	put(&h, uid->p, uid->n);
	put(&h, c.body.p, c.body.n);
	put8(&h, 4);
	put8(&h, 0xff);
	put32(&h, (uint32_t)c.body.n);
	gcry_md_hash_buffer(GCRY_MD_SHA256, dg, h.p, h.n);
	dl = 32;
	free(h.p);
	cert_mid(&c, dg);
	if (signer->kind == K_RSA) {
		uint8_t em[1100], sv[1100];
		size_t klen = (gcry_mpi_get_nbits(signer->n) + 7) / 8, sl;

		rsa_em(EM_GOOD, 8, dg, dl, em, klen);
		sl = rsa_raw_sign(signer, em, klen, sv);
		put_mpi(&c.body, sv, sl);
	} else {
		uint8_t rs[64];

		ksp_ed25519_sign(signer->seed, signer->a, dg, dl, rs);
		put_mpi(&c.body, rs, 32);
		put_mpi(&c.body, rs + 32, 32);
	}
	packet(out, 2, &c.body);
	free(c.body.p);
}

/* the keyring of the hash rules (see the top) */
static int write_rules(const char *path)
{
	static struct tkey k[4];
	static const char *const names[] = { "md5", "sha1-new", "sha1-old", "rmd160" };
	static const uint8_t hash[] = { 1, 2, 2, 3 };
	static const uint32_t when[] = { T_OLD, T_CERT, T_OLD, T_CERT };
	struct buf out = { 0 }, t = { 0 };
	size_t cls = new_class("hash rules keyring", V_GOOD, 0);
	char fpath[4096], hex[65];
	FILE *f;

	classes[cls].separate = true;
	for (int i = 0; i < 4; i++) {
		key_time_shift = (uint32_t)i + 1;
		key_from_sexp(&k[i], names[i], sigdiff_key_rsa2048, K_RSA);
		rsa_cert(&k[i], hash[i], when[i], EM_GOOD, cls);
	}
	key_time_shift = 0;
	for (int i = 0; i < 4; i++) {
		packet(&out, 6, &k[i].body);
		t.n = 0;
		put(&t, "signer INSECURE <", 17);
		put(&t, names[i], strlen(names[i]));
		put(&t, ">", 1);
		packet(&out, 13, &t);
		self_sig(&out, &k[i], &k[i], &t, 0x13, T_KEY + 10);
	}
	packet(&out, 6, &target.body);
	packet(&out, 13, &uids[cls]);
	self_sig(&out, &target, &target, &uids[cls], 0x13, T_KEY + 10);
	put(&out, classes[cls].sigs.p, classes[cls].sigs.n);
	f = fopen(path, "we");
	if (f == NULL || fwrite(out.p, 1, out.n, f) != out.n || fclose(f) != 0)
		return -EIO;
	snprintf(fpath, sizeof(fpath), "%s.fpr", path);
	f = fopen(fpath, "we");
	if (f == NULL)
		return -EIO;
	for (int i = 0; i < 4; i++) {
		hex_encode(k[i].fpr, k[i].fpr_len, hex);
		fprintf(f, "%s %s\n", names[i], hex);
	}
	hex_encode(target.fpr, target.fpr_len, hex);
	fprintf(f, "target %s\n", hex);
	free(out.p);
	free(t.p);
	return fclose(f) == 0 ? 0 : -EIO;
}

static int write_keyring(const char *path, const struct tkey *keys, size_t nk)
{
	struct buf out = { 0 }, t = { 0 };
	FILE *f = fopen(path, "we");

	if (f == NULL)
		return -errno;
	for (size_t i = 0; i < nk; i++) {
		packet(&out, 6, &keys[i].body);
		t.n = 0;
		put(&t, "signer INSECURE <", 17);
		put(&t, keys[i].name, strlen(keys[i].name));
		put(&t, ">", 1);
		packet(&out, 13, &t);
	}
	packet(&out, 6, &target.body);
	for (size_t i = 0; i < n_classes; i++) {
		if (classes[i].separate)
			continue;
		packet(&out, 13, &uids[i]);
		put(&out, classes[i].sigs.p, classes[i].sigs.n);
	}
	if (fwrite(out.p, 1, out.n, f) != out.n) {
		fclose(f);
		return -EIO;
	}
	free(out.p);
	free(t.p);
	return fclose(f) == 0 ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	static struct tkey keys[32];
	const char *keyring = NULL, *vpath = NULL, *rules = NULL;
	size_t nk = 0;
	static const uint8_t rsa_hashes[] = { 8, 9, 10, 11 };
	static const uint8_t ds_hashes[] = { 2, 8, 9, 10, 11 };

	gcry_check_version(NULL);
	gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--make-keys") == 0)
			return make_keys();
		if (strcmp(argv[i], "--keyring") == 0 && i + 1 < argc)
			keyring = argv[++i];
		else if (strcmp(argv[i], "--verdicts") == 0 && i + 1 < argc)
			vpath = argv[++i];
		else if (strcmp(argv[i], "--rules-keyring") == 0 && i + 1 < argc)
			rules = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--keyring FILE] [--verdicts FILE] [--rules-keyring FILE] | --make-keys\n",
				argv[0]);
			return 2;
		}
	}
	if (ksp_new(&ctx) < 0)
		return 2;
	if (vpath && (verdicts = fopen(vpath, "we")) == NULL) {
		perror(vpath);
		return 2;
	}
	{
		uint8_t seed[32] = { 0x7a };
		key_ed(&target, "target", seed, NULL, false);
	}
	/* the signers */
	struct tkey *rsa = &keys[nk++], *rsa3 = &keys[nk++], *rsabig = &keys[nk++];
	struct tkey *dsa1 = &keys[nk++], *dsa2 = &keys[nk++];
	key_from_sexp(rsa, "rsa2048", sigdiff_key_rsa2048, K_RSA);
	key_from_sexp(rsa3, "rsa2048e3", sigdiff_key_rsa2048e3, K_RSA);
	key_from_sexp(rsabig, "rsa1024ebig", sigdiff_key_rsa1024ebig, K_RSA);
	key_from_sexp(dsa1, "dsa1024", sigdiff_key_dsa1024, K_DSA);
	key_from_sexp(dsa2, "dsa2048", sigdiff_key_dsa2048, K_DSA);
	const char *const ec_text[] = { sigdiff_key_p256, sigdiff_key_p384, sigdiff_key_p521, sigdiff_key_bp256,
					sigdiff_key_bp384, sigdiff_key_bp512, sigdiff_key_k256 };
	const char *const ec_name[] = { "p256", "p384", "p521", "bp256", "bp384", "bp512", "k256" };
	size_t ec0 = nk;
	for (size_t i = 0; i < ARRAY_SIZE(ec_text); i++)
		key_from_sexp(&keys[nk++], ec_name[i], ec_text[i], K_ECDSA);
	size_t ed0 = nk;
	for (int i = 0; i < 4; i++) {
		uint8_t seed[32] = { (uint8_t)(i + 1), 0x25, 0x51, 0x9 };
		static const char *const names[] = { "ed1", "ed2", "ed3", "ed4" };
		key_ed(&keys[nk++], names[i], seed, NULL, false);
	}
	size_t so0 = nk;
	for (size_t i = 0; i < ARRAY_SIZE(small_order_hex); i++) {
		uint8_t a[32];
		static const char *const names[] = { "ed-order8-a", "ed-order8-b", "ed-order8-c", "ed-order8-d" };
		hex_to(small_order_hex[i], a, 32);
		key_ed(&keys[nk++], names[i], NULL, a, false);
	}
	struct tkey *ed6 = &keys[nk++];
	{
		uint8_t seed[32] = { 0x66, 0x06 };
		key_ed(ed6, "ed25519-v6", seed, NULL, true);
	}

	/* RSA */
	for (int how = 0; how < EM_N; how++) {
		bool good = how == EM_GOOD;
		if (how == EM_GCRY_SHA3)
			continue;
		cls_em[how] = new_class(em_names[how], good ? V_GOOD : V_BAD, good ? V_GOOD : V_BAD);
		for (int rep = 0; rep < 4; rep++)
			for (size_t h = 0; h < ARRAY_SIZE(rsa_hashes); h++) {
				rsa_cert(rsa, rsa_hashes[h], T_CERT + rep, how, cls_em[how]);
				rsa_cert(rsa3, rsa_hashes[h], T_CERT + rep, how, cls_em[how]);
				rsa_cert(rsabig, rsa_hashes[h], T_CERT + rep, how, cls_em[how]);
			}
	}
	cls_sha3 = new_class("RSA SHA-3, RFC 9580 DigestInfo (gpg 2.2: no SHA-3)", V_GOOD, V_REFUSED);
	size_t cls_sha3g = new_class("RSA SHA-3, libgcrypt 1.10's 0x30 prefix", V_BAD, V_REFUSED);
	for (int rep = 0; rep < 6; rep++)
		for (uint8_t h = 12; h <= 14; h += 2) {
			rsa_cert(rsa, h, T_CERT + rep, EM_GOOD, cls_sha3);
			rsa_cert(rsabig, h, T_CERT + rep, EM_GOOD, cls_sha3);
			rsa_cert(rsa, h, T_CERT + rep, EM_GCRY_SHA3, cls_sha3g);
			rsa_cert(rsabig, h, T_CERT + rep, EM_GCRY_SHA3, cls_sha3g);
		}
	cls_md5 = new_class("MD5 (hash rule: refused)", V_GOOD, V_REFUSED);
	cls_sha1_new = new_class("SHA-1 after 2019-01-19 (hash rule: refused)", V_GOOD, V_REFUSED);
	cls_sha1_old = new_class("SHA-1 before 2019-01-19", V_GOOD, V_GOOD);
	cls_rmd = new_class("RIPEMD-160", V_GOOD, V_GOOD);
	for (int rep = 0; rep < 10; rep++) {
		const struct tkey *k = rep % 3 == 0 ? rsa : rep % 3 == 1 ? rsa3 : rsabig;
		rsa_cert(k, 1, T_OLD + rep, EM_GOOD, cls_md5);
		rsa_cert(k, 2, T_CERT + rep, EM_GOOD, cls_sha1_new);
		rsa_cert(k, 2, T_OLD + rep, EM_GOOD, cls_sha1_old);
		rsa_cert(k, 3, T_OLD + rep, EM_GOOD, cls_rmd);
	}
	cls_sn = new_class("RSA s + n (libgcrypt reduces it)", V_BAD, -1);
	cls_s0 = new_class("RSA s = 0 or 1", V_BAD, V_BAD);
	for (size_t h = 0; h < ARRAY_SIZE(rsa_hashes); h++)
		for (int rep = 0; rep < 2; rep++) {
			rsa_cert_s(rsa, rsa_hashes[h], T_CERT + rep, 0, cls_sn);
			rsa_cert_s(rsabig, rsa_hashes[h], T_CERT + rep, 0, cls_sn);
			rsa_cert_s(rsa, rsa_hashes[h], T_CERT + rep, 1 + rep, cls_s0);
			rsa_cert_s(rsa3, rsa_hashes[h], T_CERT + rep, 1 + rep, cls_s0);
		}
	cls_cube = new_class("RSA e = 3 cube-root forgery (Bleichenbacher 2006)", V_BAD, V_BAD);
	for (size_t ff = 1; ff <= 24; ff++)
		for (size_t h = 0; h < ARRAY_SIZE(rsa_hashes); h++)
			rsa_cube(rsa3, rsa_hashes[h], ff, cls_cube);

	/* DSA and ECDSA */
	size_t c_good = new_class("DSA/ECDSA good, hash cut to the order", V_GOOD, 0);
	size_t c_short = new_class("DSA/ECDSA hash shorter than the order", V_UNSUP, V_REFUSED);
	size_t c_whole = new_class("DSA/ECDSA signed over the whole long hash", V_BAD, 0);
	size_t c_dsbad = new_class("DSA/ECDSA r = 0, s + 1, r + q", V_BAD, 0);
	struct tkey *ds[16];
	size_t nds = 0;
	ds[nds++] = dsa1;
	ds[nds++] = dsa2;
	for (size_t i = ec0; i < ed0; i++)
		ds[nds++] = &keys[i];
	for (int rep = 0; rep < 4; rep++)
		for (size_t i = 0; i < nds; i++)
			for (size_t h = 0; h < ARRAY_SIZE(ds_hashes); h++) {
				unsigned dl = gcry_md_get_algo_dlen(gcry_algo(ds_hashes[h]));
				unsigned need = ds[i]->qbits > 512 ? 512 : ds[i]->qbits;
				bool sha1_rule = ds_hashes[h] == 2; /* made after 2019: refused by the rule */

				ds_cert(ds[i], ds_hashes[h], DS_GOOD, dl * 8 < need ? c_short : c_good);
				if (dl * 8 > need && !sha1_rule)
					ds_cert(ds[i], ds_hashes[h], DS_WHOLE, c_whole);
				if (rep == 0 && dl * 8 >= need)
					ds_cert(ds[i], ds_hashes[h], rep % 3 == 0 ? DS_R0 : DS_FLIP, c_dsbad);
				if (rep == 1 && dl * 8 >= need) {
					ds_cert(ds[i], ds_hashes[h], DS_FLIP, c_dsbad);
					ds_cert(ds[i], ds_hashes[h], DS_RN, c_dsbad);
				}
			}

	/* Ed25519 */
	size_t e_good = new_class("Ed25519 good", V_GOOD, V_GOOD);
	size_t e_bad = new_class("Ed25519 bit flipped in R or S", V_BAD, V_BAD);
	size_t e_zero = new_class("Ed25519 zero-length R or S", V_BAD, V_REFUSED);
	size_t e_spl = new_class("Ed25519 S + L (libgcrypt takes S >= L)", V_GOOD, V_GOOD);
	size_t e_ry = new_class("Ed25519 non-canonical R", V_BAD, V_BAD);
	size_t e_so = new_class("Ed25519 key of order 8, forged (no secret)", V_BAD, -1);
	size_t e_v6 = new_class("v6 Ed25519 good (gpg 2.2: no v6)", V_GOOD, V_REFUSED);
	size_t e_v6s = new_class("v6 Ed25519 salt of the wrong size", V_BAD, V_REFUSED);
	for (int rep = 0; rep < 60; rep++)
		for (size_t i = ed0; i < so0; i++) {
			ed_cert(&keys[i], T_CERT + (uint32_t)rep, ED_GOOD, e_good);
			ed_cert(&keys[i], T_CERT + (uint32_t)rep, rep % 2 ? ED_FLIP_S : ED_FLIP_R, e_bad);
			if (rep < 5) {
				ed_cert(&keys[i], T_CERT + (uint32_t)rep, rep % 2 ? ED_S0LEN : ED_R0LEN, e_zero);
				ed_cert(&keys[i], T_CERT + (uint32_t)rep, ED_S_PLUS_L, e_spl);
				ed_cert(&keys[i], T_CERT + (uint32_t)rep, ED_BAD_R_Y, e_ry);
			}
		}
	for (size_t i = so0; i < so0 + ARRAY_SIZE(small_order_hex); i++)
		for (uint32_t rep = 0; rep < 64; rep++)
			ed_cert(&keys[i], T_CERT + rep, ED_FORGE, e_so);
	for (uint32_t rep = 0; rep < 10; rep++) {
		ed_cert(ed6, T_CERT + rep, ED_V6_GOOD, e_v6);
		ed_cert(ed6, T_CERT + rep, ED_V6_SALT, e_v6s);
	}

	if (rules && write_rules(rules) < 0) {
		fprintf(stderr, "%s: cannot write\n", rules);
		return 2;
	}
	int lanes = check_lanes();
	printf("sigdiff: %u certifications; ksp and libgcrypt-as-gpg agree or differ as expected on all but %u\n",
	       n_total, n_fail);
	printf("sigdiff: RSA portable and IFMA exponentiations compared on %u (0: no IFMA on this CPU)\n",
	       n_ifma_checked);
	printf("%-56s %5s %6s %s\n", "class", "n", "agree", "ksp / gpg (libgcrypt as gpg calls it)");
	for (size_t i = 0; i < n_classes; i++) {
		const struct cls *c = &classes[i];
		if (c->n == 0)
			continue;
		printf("%-56s %5u %6u %s / %s", c->name, c->n, c->agree, vname(c->ksp_want),
		       c->gpg_want < 0 ? "any" : c->gpg_want ? vname(c->gpg_want) : "as ksp");
		if (c->gpg_want < 0)
			printf(" (gpg good: %u)", c->gpg_good);
		if (c->ksp_bad || c->gpg_diff)
			printf("  UNEXPECTED: ksp %u, gpg %u", c->ksp_bad, c->gpg_diff);
		printf("\n");
	}
	/* the small-order class means something only if libgcrypt falls for it */
	if (classes[e_so].gpg_good == 0) {
		fprintf(stderr, "sigdiff: no small-order forgery fooled libgcrypt: the class tests nothing\n");
		n_fail++;
	}
	if (classes[cls_sn].gpg_good == 0)
		printf("sigdiff: note: libgcrypt refused every s + n too\n");
	if (verdicts && fclose(verdicts) != 0) {
		perror(vpath);
		return 2;
	}
	if (keyring) {
		int r = write_keyring(keyring, keys, nk);
		if (r < 0) {
			fprintf(stderr, "%s: %s\n", keyring, strerror(-r));
			return 2;
		}
	}
	ksp_unref(ctx);
	return n_fail || lanes < 0 ? 1 : 0;
}
