// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pgp-verify.c: cryptographic checks of OpenPGP signatures with libgcrypt.
 *
 * What a signature covers (RFC 4880 5.2.4, RFC 9580 5.2.4):
 *   [v6: the salt] || key prefix || primary key body
 *   [|| 0xb4/0xd1 + 4-octet length + user ID or attribute]  (certifications)
 *   [|| key prefix || subkey body]                          (bindings)
 *   || signature body up to the end of the hashed subpackets
 *   || trailer: version, 0xff, length of that part (4 octets; v5: 8)
 * v3 signatures hash the user ID without a prefix and only 5 octets of
 * the signature (type and creation time), with no trailer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gcrypt.h>

#include "lib/openpgp/ed25519.h"
#include "lib/openpgp/ed25519-private.h"
#include "lib/libksp-private.h"
#include "lib/openpgp/pgp-rsa.h"
#include "lib/openpgp/pgp-verify.h"

struct ksp_pgp_vkey {
	uint8_t algo;        /* KSP_PGP_PK_* */
	uint8_t version;     /* of the signer's key packet */
	uint8_t kind;        /* VK_RSA, VK_DSA, VK_ECDSA, VK_EDDSA */
	unsigned qbytes;     /* DSA: length of q; EdDSA: length of r and s */
	unsigned qbits;      /* DSA: bits of q; ECDSA: bits of the group order */
	gcry_sexp_t sexp;
	struct ksp_rsa_key *rsa; /* RSA: the fast path (pgp-rsa.c), NULL: rn, re */
	gcry_mpi_t rn, re;   /* RSA keys the fast path does not take: gcry_mpi_powm() */
	size_t rnbytes;      /* the length of n in octets */
	/* Ed25519 (ed25519.c, never libgcrypt): the compact key, and its
	 * tables while ksp_pgp_vkey_add_tables() keeps them */
	struct ksp_ed25519_key *ed;
	bool ed_refused;     /* Ed25519 point libgcrypt refuses (or aborts on): all bad */
	bool ed_later;       /* edp holds only the point, ksp_pgp_vkey_new_many() goes on */
	struct ksp_ed25519_pub edp;
};

enum { VK_RSA = 1, VK_DSA, VK_ECDSA, VK_EDDSA, VK_ED448 };

int ksp_pgp_hash_to_gcry(uint8_t hash_algo)
{
	switch (hash_algo) {
	case 1: return GCRY_MD_MD5;
	case 2: return GCRY_MD_SHA1;
	case 3: return GCRY_MD_RMD160;
	case 8: return GCRY_MD_SHA256;
	case 9: return GCRY_MD_SHA384;
	case 10: return GCRY_MD_SHA512;
	case 11: return GCRY_MD_SHA224;
	case 12: return GCRY_MD_SHA3_256;
	case 14: return GCRY_MD_SHA3_512;
	default: return 0;
	}
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* One MPI at b[*p]: its value bytes (leading zero bytes stripped). */
static int get_mpi(const uint8_t *b, size_t len, size_t *p, const uint8_t **v, size_t *vlen)
{
	size_t n;

	if (len - *p < 2)
		return -EBADMSG;
	n = ((size_t)be16(b + *p) + 7) / 8;
	*p += 2;
	if (n > len - *p)
		return -EBADMSG;
	*v = b + *p;
	*vlen = n;
	*p += n;
	while (*vlen > 0 && **v == 0) {
		(*v)++;
		(*vlen)--;
	}
	return 0;
}

/* libgcrypt's name of an ECDSA curve, and the bits of its group order */
static const char *gcry_curve(const char *name, unsigned *order_bits)
{
	static const struct {
		const char *ours, *gcry;
		unsigned bits;
	} map[] = {
		{ "nistp256", "NIST P-256", 256 },
		{ "nistp384", "NIST P-384", 384 },
		{ "nistp521", "NIST P-521", 521 },
		{ "brainpoolP256r1", "brainpoolP256r1", 256 },
		{ "brainpoolP384r1", "brainpoolP384r1", 384 },
		{ "brainpoolP512r1", "brainpoolP512r1", 512 },
		{ "secp256k1", "secp256k1", 256 },
	};
	if (name == NULL)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (strcmp(map[i].ours, name) == 0) {
			*order_bits = map[i].bits;
			return map[i].gcry;
		}
	return NULL;
}

/* Bits of the big-endian value v[0..len), leading zeros stripped. */
static unsigned value_bits(const uint8_t *v, size_t len)
{
	unsigned b = 0;

	if (len == 0)
		return 0;
	for (uint8_t t = v[0]; t; t >>= 1)
		b++;
	return (unsigned)(len - 1) * 8 + b;
}

void ksp_pgp_vkey_free(struct ksp_pgp_vkey *k)
{
	if (k) {
		gcry_sexp_release(k->sexp);
		ksp_rsa_key_free(k->rsa);
		gcry_mpi_release(k->rn);
		gcry_mpi_release(k->re);
		ksp_ed25519_key_free(k->ed);
		free(k);
	}
}

/* A point of small order (order 8: libgcrypt takes it, and anyone can
 * forge for it, one try in eight): [2^128](-A), kept in the compact key,
 * is then the neutral element (0, 1).  A point with a component of order L
 * is never sent there, as 2^128 is not a multiple of L. */
static bool ed_small_order(const struct ksp_ed25519_pub *p)
{
	static const uint8_t one[32] = { 1 };
	static const uint8_t zero[32];

	return memcmp(p->x1, zero, 32) == 0 && memcmp(p->y1, one, 32) == 0;
}

/* The compact Ed25519 key (no sexp: libgcrypt is not used for these);
 * @later: only the point, for ksp_pgp_vkey_new_many() to finish. */
static void ed25519_prepare(struct ksp_pgp_vkey *k, const uint8_t q[32], bool later)
{
	if (later) {
		memcpy(k->edp.enc, q, 32);
		k->ed_later = true;
		return;
	}
	k->ed_refused = ksp_ed25519_pub_init(&k->edp, q) < 0 || ed_small_order(&k->edp);
}

int ksp_pgp_vkey_add_tables(struct ksp_pgp_vkey *k)
{
	if (k->kind != VK_EDDSA || k->ed_refused || k->ed)
		return 0;
	return ksp_ed25519_key_from_pub(&k->edp, &k->ed) < 0 ? -ENOMEM : 1;
}

void ksp_pgp_vkey_drop_tables(struct ksp_pgp_vkey *k)
{
	ksp_ed25519_key_free(k->ed);
	k->ed = NULL;
}

static int vkey_new(const struct ksp_pgp_pubkey *pk, struct ksp_pgp_vkey **ret, bool ed_later)
{
	const uint8_t *b = pk->body;
	size_t len = pk->body_len, p;
	const uint8_t *m[4];
	size_t ml[4];
	struct ksp_pgp_vkey *k;
	gcry_error_t e = 0;
	int r;

	*ret = NULL;
	if (len < 6)
		return KSP_VERIFY_UNSUPPORTED;
	p = pk->version == 4 ? 6 : 10;
	if (p > len)
		return KSP_VERIFY_UNSUPPORTED;
	k = calloc(1, sizeof(*k));
	if (k == NULL)
		return -ENOMEM;
	k->algo = pk->algo;
	k->version = pk->version;
	switch (pk->algo) {
	case KSP_PGP_PK_RSA:
	case KSP_PGP_PK_RSA_S:
		for (int i = 0; i < 2; i++)
			if ((r = get_mpi(b, len, &p, &m[i], &ml[i])) < 0)
				goto bad;
		k->kind = VK_RSA;
		if (ml[0] == 0 || ml[1] == 0)
			goto unsupported;
		r = ksp_rsa_key_new(m[0], ml[0], m[1], ml[1], &k->rsa);
		if (r == -ENOMEM)
			goto bad;
		if (r < 0) {
			/* -EOPNOTSUPP: n over 8192 bits, e of 2^32 or more, even
			 * n or e, e = 1 (anyone could sign: refused) */
			if (ml[1] == 1 && m[1][0] == 1)
				goto unsupported;
			e = gcry_mpi_scan(&k->rn, GCRYMPI_FMT_USG, m[0], ml[0], NULL);
			if (!e)
				e = gcry_mpi_scan(&k->re, GCRYMPI_FMT_USG, m[1], ml[1], NULL);
			k->rnbytes = ml[0];
		}
		break;
	case KSP_PGP_PK_DSA:
		for (int i = 0; i < 4; i++)
			if ((r = get_mpi(b, len, &p, &m[i], &ml[i])) < 0)
				goto bad;
		k->kind = VK_DSA;
		k->qbytes = (unsigned)ml[1];
		k->qbits = value_bits(m[1], ml[1]);
		e = gcry_sexp_build(&k->sexp, NULL, "(public-key(dsa(p%b)(q%b)(g%b)(y%b)))", (int)ml[0],
				    m[0], (int)ml[1], m[1], (int)ml[2], m[2], (int)ml[3], m[3]);
		break;
	case KSP_PGP_PK_ECDSA: {
		const char *c = gcry_curve(pk->curve, &k->qbits);
		size_t n, qn;

		if (c == NULL)
			goto unsupported;
		n = b[p]; /* the OID was checked by the parser */
		p += 1 + n;
		if (len - p < 2)
			goto bad_msg;
		qn = ((size_t)be16(b + p) + 7) / 8;
		p += 2;
		if (qn > len - p)
			goto bad_msg;
		k->kind = VK_ECDSA;
		e = gcry_sexp_build(&k->sexp, NULL, "(public-key(ecc(curve %s)(q%b)))", c, (int)qn, b + p);
		break;
	}
	case KSP_PGP_PK_EDDSA: {
		size_t n, qn;

		if (pk->curve == NULL || strcmp(pk->curve, "ed25519") != 0)
			goto unsupported;
		n = b[p];
		p += 1 + n;
		if (len - p < 2)
			goto bad_msg;
		qn = ((size_t)be16(b + p) + 7) / 8;
		p += 2;
		if (qn > len - p)
			goto bad_msg;
		/* native point format: 0x40 || 32 octets */
		if (qn != 33 || b[p] != 0x40)
			goto unsupported;
		k->kind = VK_EDDSA;
		k->qbytes = 32;
		ed25519_prepare(k, b + p + 1, ed_later);
		break;
	}
	case KSP_PGP_PK_ED25519:
		if (len - p < 32)
			goto bad_msg;
		k->kind = VK_EDDSA;
		k->qbytes = 32;
		ed25519_prepare(k, b + p, ed_later);
		break;
	case KSP_PGP_PK_ED448:
		if (len - p < 57)
			goto bad_msg;
		k->kind = VK_ED448;
		k->qbytes = 57;
		e = gcry_sexp_build(&k->sexp, NULL, "(public-key(ecc(curve Ed448)(q%b)))", 57, b + p);
		break;
	default:
		goto unsupported;
	}
	if (e) {
		ksp_pgp_vkey_free(k);
		return gcry_err_code(e) == GPG_ERR_ENOMEM ? -ENOMEM : KSP_VERIFY_UNSUPPORTED;
	}
	*ret = k;
	return 0;
bad_msg:
	r = -EBADMSG;
bad:
	ksp_pgp_vkey_free(k);
	/* a key whose material does not parse can verify nothing */
	return r == -ENOMEM ? r : KSP_VERIFY_UNSUPPORTED;
unsupported:
	ksp_pgp_vkey_free(k);
	return KSP_VERIFY_UNSUPPORTED;
}

int ksp_pgp_vkey_new(const struct ksp_pgp_pubkey *pk, struct ksp_pgp_vkey **ret)
{
	return vkey_new(pk, ret, false);
}

/* the compact Ed25519 keys of ed[0..m), m <= 8, eight at a time where the
 * CPU can (a short group is filled up with its first again) */
static void ed_finish(struct ksp_pgp_vkey **ed, size_t m)
{
	if (m > 1 && ksp_ed25519_x8_usable()) {
		struct ksp_ed25519_pub tmp[8], *p[8];
		const uint8_t *q[8];
		int res[8];

		for (size_t j = 0; j < 8; j++) {
			struct ksp_pgp_vkey *k = ed[j < m ? j : 0];

			/* the points are read from copies: each lane's
			 * output is cleared first */
			memcpy(tmp[j].enc, k->edp.enc, 32);
			q[j] = tmp[j].enc;
			p[j] = j < m ? &k->edp : &tmp[j];
		}
		ksp_ed25519_pub_init_x8(p, q, res);
		for (size_t j = 0; j < m; j++) {
			ed[j]->ed_refused = res[j] < 0 || ed_small_order(&ed[j]->edp);
			ed[j]->ed_later = false;
		}
		return;
	}
	for (size_t j = 0; j < m; j++) {
		uint8_t q[32];

		memcpy(q, ed[j]->edp.enc, 32);
		ed[j]->ed_refused = ksp_ed25519_pub_init(&ed[j]->edp, q) < 0 || ed_small_order(&ed[j]->edp);
		ed[j]->ed_later = false;
	}
}

void ksp_pgp_vkey_new_many(const struct ksp_pgp_pubkey *const *pk, size_t n, struct ksp_pgp_vkey **ret, int *rc)
{
	struct ksp_pgp_vkey *ed[8];
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		rc[i] = vkey_new(pk[i], &ret[i], true);
		if (ret[i] == NULL || !ret[i]->ed_later)
			continue;
		ed[m++] = ret[i];
		if (m == 8) {
			ed_finish(ed, m);
			m = 0;
		}
	}
	ed_finish(ed, m);
}

/* Left-pad the value v[0..vlen) to n octets into out. */
static bool pad_to(const uint8_t *v, size_t vlen, uint8_t *out, size_t n)
{
	if (vlen > n)
		return false;
	memset(out, 0, n - vlen);
	memcpy(out + n - vlen, v, vlen);
	return true;
}

/* RSA for keys the fast path does not take: s^e mod n by libgcrypt's
 * gcry_mpi_powm() and the same checks as ksp_rsa_verify_pkcs1(), s >= n
 * refused (libgcrypt's own gcry_pk_verify() would reduce s mod n, and
 * accept SHA-3 with its one-octet prefix). */
static int rsa_verify_mpi(const struct ksp_pgp_vkey *k, int gh, const uint8_t *digest, size_t dlen,
			  const uint8_t *sv, size_t slen)
{
	gcry_mpi_t s = NULL, m = NULL;
	uint8_t *em = NULL;
	size_t n = 0;
	int r = KSP_VERIFY_BAD;

	if (slen == 0)
		return KSP_VERIFY_BAD;
	if (gcry_mpi_scan(&s, GCRYMPI_FMT_USG, sv, slen, NULL))
		return -ENOMEM;
	if (gcry_mpi_cmp(s, k->rn) >= 0)
		goto out;
	m = gcry_mpi_new(0);
	em = malloc(k->rnbytes);
	if (m == NULL || em == NULL) {
		r = -ENOMEM;
		goto out;
	}
	gcry_mpi_powm(m, s, k->re, k->rn);
	if (gcry_mpi_print(GCRYMPI_FMT_USG, em, k->rnbytes, &n, m) || n > k->rnbytes)
		goto out;
	memmove(em + k->rnbytes - n, em, n);
	memset(em, 0, k->rnbytes - n);
	r = ksp_rsa_pkcs1_em_check(em, k->rnbytes, gh, digest, dlen);
	r = r == -EOPNOTSUPP ? KSP_VERIFY_UNSUPPORTED : r == 1 ? KSP_VERIFY_GOOD : KSP_VERIFY_BAD;
out:
	free(em);
	gcry_mpi_release(m);
	gcry_mpi_release(s);
	return r;
}

/* vkey_verify(), which leaves an Ed25519 check in *ec (when not NULL) and
 * says KSP_VERIFY_DEFERRED */
static int vkey_verify_ec(const struct ksp_pgp_vkey *k, const struct ksp_pgp_sig *sig, const uint8_t *digest,
			  size_t dlen, struct ksp_pgp_edcheck *ec)
{
	const uint8_t *b = sig->body, *v1, *v2;
	size_t len = sig->mpi_off + sig->mpi_len, p = sig->mpi_off, l1, l2;
	gcry_sexp_t s_sig = NULL, s_data = NULL;
	gcry_error_t e;
	int gh, r;

	if (sig->pk_algo != k->algo &&
	    !(k->algo == KSP_PGP_PK_RSA_S && sig->pk_algo == KSP_PGP_PK_RSA) &&
	    !(k->algo == KSP_PGP_PK_RSA && sig->pk_algo == KSP_PGP_PK_RSA_S))
		return KSP_VERIFY_BAD; /* signature by another kind of key */
	if (len > sig->body_len)
		return KSP_VERIFY_BAD;
	gh = ksp_pgp_hash_to_gcry(sig->hash_algo);
	switch (k->kind) {
	case VK_RSA:
		if (get_mpi(b, len, &p, &v1, &l1) < 0)
			return KSP_VERIFY_BAD;
		if (k->rsa) {
			r = ksp_rsa_verify_pkcs1(k->rsa, gh, digest, dlen, v1, l1);
			if (r < 0) /* a hash it does not do */
				return KSP_VERIFY_UNSUPPORTED;
			return r ? KSP_VERIFY_GOOD : KSP_VERIFY_BAD;
		}
		return rsa_verify_mpi(k, gh, digest, dlen, v1, l1);
	case VK_DSA:
	case VK_ECDSA: {
		unsigned qbits = k->qbits;
		size_t use;

		if (get_mpi(b, len, &p, &v1, &l1) < 0 || get_mpi(b, len, &p, &v2, &l2) < 0)
			return KSP_VERIFY_BAD;
		/* gpg 2.2 (encode_md_value): q of fewer than 160 bits or not
		 * a whole number of octets is refused; the hash must be at
		 * least as long as q (ECDSA over P-521: 512 bits) and is cut
		 * to its leftmost q bits (FIPS 186-4 6.4, RFC 9580 5.2.3.2) */
		if (k->kind == VK_ECDSA && qbits > 512)
			qbits = 512;
		if (qbits < 160 || qbits % 8 != 0 || dlen * 8 < qbits)
			return KSP_VERIFY_UNSUPPORTED;
		use = qbits / 8;
		e = gcry_sexp_build(&s_data, NULL, "(data(flags raw)(value %b))", (int)use, digest);
		if (!e)
			e = gcry_sexp_build(&s_sig, NULL, k->kind == VK_DSA ? "(sig-val(dsa(r%b)(s%b)))"
									 : "(sig-val(ecdsa(r%b)(s%b)))",
					    (int)l1, v1, (int)l2, v2);
		break;
	}
	case VK_EDDSA: {
		uint8_t rr[32], ss[32];

		if (sig->pk_algo == KSP_PGP_PK_ED25519) {
			if (sig->mpi_len != 64)
				return KSP_VERIFY_BAD;
			memcpy(rr, b + p, 32);
			memcpy(ss, b + p + 32, 32);
		} else {
			/* an R or S of value 0 is refused, as gpg does */
			if (get_mpi(b, len, &p, &v1, &l1) < 0 || get_mpi(b, len, &p, &v2, &l2) < 0 || l1 == 0 ||
			    l2 == 0 || !pad_to(v1, l1, rr, 32) || !pad_to(v2, l2, ss, 32))
				return KSP_VERIFY_BAD;
		}
		if (k->ed_refused)
			return KSP_VERIFY_BAD;
		/* the same verdicts as libgcrypt's (ed25519.h) */
		uint8_t rs[64];

		memcpy(rs, rr, 32);
		memcpy(rs + 32, ss, 32);
		if (ec) {
			if (dlen > sizeof(ec->digest))
				return KSP_VERIFY_BAD; /* cannot happen: digests are 64 octets at most */
			ec->k = k;
			memcpy(ec->digest, digest, dlen);
			ec->dlen = (uint8_t)dlen;
			memcpy(ec->rs, rs, 64);
			return KSP_VERIFY_DEFERRED;
		}
		r = k->ed ? ksp_ed25519_verify(k->ed, digest, dlen, rs)
			  : ksp_ed25519_verify_pub(&k->edp, digest, dlen, rs);
		return r ? KSP_VERIFY_GOOD : KSP_VERIFY_BAD;
	}
	case VK_ED448:
		if (sig->mpi_len != 114)
			return KSP_VERIFY_BAD;
		e = gcry_sexp_build(&s_data, NULL, "(data(flags eddsa)(value %b))", (int)dlen, digest);
		if (!e)
			e = gcry_sexp_build(&s_sig, NULL, "(sig-val(eddsa(r%b)(s%b)))", 57, b + p, 57, b + p + 57);
		break;
	default:
		return KSP_VERIFY_UNSUPPORTED;
	}
	if (e) {
		r = gcry_err_code(e) == GPG_ERR_ENOMEM ? -ENOMEM : KSP_VERIFY_BAD;
		goto out;
	}
	e = gcry_pk_verify(s_sig, s_data, k->sexp);
	if (!e)
		r = KSP_VERIFY_GOOD;
	else if (gcry_err_code(e) == GPG_ERR_ENOMEM)
		r = -ENOMEM;
	else if (gcry_err_code(e) == GPG_ERR_NOT_IMPLEMENTED || gcry_err_code(e) == GPG_ERR_UNKNOWN_CURVE ||
		 gcry_err_code(e) == GPG_ERR_DIGEST_ALGO)
		r = KSP_VERIFY_UNSUPPORTED;
	else
		r = KSP_VERIFY_BAD;
out:
	gcry_sexp_release(s_sig);
	gcry_sexp_release(s_data);
	return r;
}

int ksp_pgp_vkey_verify(const struct ksp_pgp_vkey *k, const struct ksp_pgp_sig *sig,
			const uint8_t *digest, size_t dlen)
{
	return vkey_verify_ec(k, sig, digest, dlen, NULL);
}

/* What a signature covers, as up to 9 pieces for one gcry_md_hash_buffers()
 * call (no context to allocate, unlike gcry_md_open()). */
struct pieces {
	gcry_buffer_t iov[9];
	int n;
	uint8_t hdr[3][10];
};

static void piece(struct pieces *v, const void *p, size_t n)
{
	if (n == 0)
		return;
	v->iov[v->n] = (gcry_buffer_t){ .size = n, .off = 0, .len = n, .data = (void *)p };
	v->n++;
}

static void piece_key(struct pieces *v, uint8_t *hdr, const struct ksp_pgp_pubkey *pk)
{
	size_t n = pk->body_len;

	if (pk->version == 4) {
		hdr[0] = 0x99;
		hdr[1] = (uint8_t)(n >> 8);
		hdr[2] = (uint8_t)n;
		piece(v, hdr, 3);
	} else {
		hdr[0] = pk->version == 5 ? 0x9a : 0x9b;
		hdr[1] = (uint8_t)(n >> 24);
		hdr[2] = (uint8_t)(n >> 16);
		hdr[3] = (uint8_t)(n >> 8);
		hdr[4] = (uint8_t)n;
		piece(v, hdr, 5);
	}
	piece(v, pk->body, n);
}

/* The digest of what @sig covers. */
int ksp_pgp_sig_digest(const struct ksp_pgp_sig *sig, const struct ksp_pgp_pubkey *primary,
		       const struct ksp_pgp_uid *uid, const struct ksp_pgp_pubkey *subkey,
		       uint8_t *out, size_t *out_len)
{
	struct pieces v = { .n = 0 };
	uint8_t uhdr[5], trailer[10];
	gcry_error_t e;
	int gh = ksp_pgp_hash_to_gcry(sig->hash_algo);

	if (gh == 0 || gcry_md_test_algo(gh))
		return KSP_VERIFY_UNSUPPORTED;
	if (primary->body_len > (primary->version == 4 ? 0xffffu : 0xffffffffu) ||
	    (subkey && subkey->body_len > (subkey->version == 4 ? 0xffffu : 0xffffffffu)))
		return KSP_VERIFY_BAD;
	if (sig->version == 6 && sig->salt_len)
		piece(&v, sig->body + sig->salt_off, sig->salt_len);
	piece_key(&v, v.hdr[0], primary);
	if (uid) {
		if (sig->version >= 4) {
			uhdr[0] = uid->attribute ? 0xd1 : 0xb4;
			uhdr[1] = (uint8_t)(uid->len >> 24);
			uhdr[2] = (uint8_t)(uid->len >> 16);
			uhdr[3] = (uint8_t)(uid->len >> 8);
			uhdr[4] = (uint8_t)uid->len;
			piece(&v, uhdr, 5);
		}
		piece(&v, uid->data, uid->len);
	}
	if (subkey)
		piece_key(&v, v.hdr[1], subkey);
	if (sig->version == 3) {
		piece(&v, sig->body + sig->hashed_off, sig->hashed_len);
	} else {
		size_t n = sig->hashed_prefix_len;

		piece(&v, sig->body, n);
		if (sig->version == 5) {
			uint8_t t[10] = { 5, 0xff, 0, 0, (uint8_t)((uint64_t)n >> 40), (uint8_t)((uint64_t)n >> 32),
					  (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n };
			memcpy(trailer, t, 10);
			piece(&v, trailer, 10);
		} else {
			uint8_t t[6] = { sig->version, 0xff, (uint8_t)(n >> 24), (uint8_t)(n >> 16),
					 (uint8_t)(n >> 8), (uint8_t)n };
			memcpy(trailer, t, 6);
			piece(&v, trailer, 6);
		}
	}
	e = gcry_md_hash_buffers(gh, 0, out, v.iov, v.n);
	if (e)
		return gcry_err_code(e) == GPG_ERR_ENOMEM ? -ENOMEM : KSP_VERIFY_UNSUPPORTED;
	*out_len = gcry_md_get_algo_dlen(gh);
	return 0;
}

/* RFC 9580 table 23: the salt of a v6 signature, 0 for a hash v6 does not use */
static size_t v6_salt_len(uint8_t hash_algo)
{
	switch (hash_algo) {
	case 8: case 11: case 12: return 16; /* SHA-256, SHA-224, SHA3-256 */
	case 9: return 24;                   /* SHA-384 */
	case 10: case 14: return 32;         /* SHA-512, SHA3-512 */
	default: return 0;
	}
}

static int verify_with_ec(const struct ksp_pgp_vkey *k, const struct ksp_pgp_pubkey *primary,
			  const struct ksp_pgp_uid *uid, const struct ksp_pgp_pubkey *subkey,
			  const struct ksp_pgp_sig *sig, struct ksp_pgp_edcheck *ec)
{
	uint8_t dg[64];
	size_t dl;
	int r;

	if (sig->unknown_critical)
		return KSP_VERIFY_UNSUPPORTED;
	/* RFC 9580 5.2.3: v6 keys make v6 signatures, and only they do (the
	 * key signed may be of any version) */
	if ((sig->version == 6) != (k->version == 6))
		return KSP_VERIFY_BAD;
	/* RFC 9580 5.2.3: the salt's size is the hash's */
	if (sig->version == 6 && (v6_salt_len(sig->hash_algo) == 0 || sig->salt_len != v6_salt_len(sig->hash_algo)))
		return KSP_VERIFY_BAD;
	r = ksp_pgp_sig_digest(sig, primary, uid, subkey, dg, &dl);
	if (r != 0)
		return r;
	if (dg[0] != sig->left16[0] || dg[1] != sig->left16[1])
		return KSP_VERIFY_BAD;
	return vkey_verify_ec(k, sig, dg, dl, ec);
}

int ksp_pgp_verify_with(const struct ksp_pgp_vkey *k, const struct ksp_pgp_pubkey *primary,
			const struct ksp_pgp_uid *uid, const struct ksp_pgp_pubkey *subkey,
			const struct ksp_pgp_sig *sig)
{
	return verify_with_ec(k, primary, uid, subkey, sig, NULL);
}

int ksp_pgp_verify_defer(const struct ksp_pgp_vkey *k, const struct ksp_pgp_pubkey *primary,
			 const struct ksp_pgp_uid *uid, const struct ksp_pgp_pubkey *subkey,
			 const struct ksp_pgp_sig *sig, struct ksp_pgp_edcheck *ec)
{
	return verify_with_ec(k, primary, uid, subkey, sig, ec);
}

/* one check, with the key's tables when it has them */
static int8_t edcheck_one(const struct ksp_pgp_edcheck *c)
{
	int r = c->k->ed ? ksp_ed25519_verify(c->k->ed, c->digest, c->dlen, c->rs)
			 : ksp_ed25519_verify_pub(&c->k->edp, c->digest, c->dlen, c->rs);

	return r ? KSP_VERIFY_GOOD : KSP_VERIFY_BAD;
}

size_t ksp_pgp_edcheck_run(const struct ksp_pgp_edcheck *ec, size_t n, int8_t *res)
{
	size_t i = 0, lanes = 0;

	if (n >= 2 && ksp_ed25519_x8_usable()) {
		/* eight at a time; the last group, when short, is filled up
		 * with its first check again (those verdicts are dropped) */
		for (; i + 1 < n; i += 8) {
			const struct ksp_ed25519_pub *pub[8];
			const uint8_t *msg[8], *sig[8];
			size_t len[8];
			int r8[8];

			for (size_t j = 0; j < 8; j++) {
				const struct ksp_pgp_edcheck *c = &ec[i + j < n ? i + j : i];

				pub[j] = &c->k->edp;
				msg[j] = c->digest;
				len[j] = c->dlen;
				sig[j] = c->rs;
			}
			ksp_ed25519_verify_x8(pub, msg, len, sig, r8);
			for (size_t j = 0; j < 8 && i + j < n; j++)
				res[i + j] = r8[j] ? KSP_VERIFY_GOOD : KSP_VERIFY_BAD;
		}
	}
	lanes = i < n ? i : n;
	for (; i < n; i++)
		res[i] = edcheck_one(&ec[i]);
	return lanes;
}

static int verify_once(const struct ksp_pgp_pubkey *signer, const struct ksp_pgp_pubkey *primary,
		       const struct ksp_pgp_uid *uid, const struct ksp_pgp_pubkey *subkey,
		       const struct ksp_pgp_sig *sig)
{
	struct ksp_pgp_vkey *k;
	int r;

	if (signer == NULL || primary == NULL || sig == NULL)
		return -EINVAL;
	r = ksp_pgp_vkey_new(signer, &k);
	if (r != 0)
		return r;
	r = ksp_pgp_verify_with(k, primary, uid, subkey, sig);
	ksp_pgp_vkey_free(k);
	return r;
}

int ksp_pgp_verify_uid_sig(const struct ksp_pgp_pubkey *signer, const struct ksp_pgp_pubkey *target,
			   const struct ksp_pgp_uid *uid, const struct ksp_pgp_sig *sig)
{
	if (uid == NULL)
		return -EINVAL;
	return verify_once(signer, target, uid, NULL, sig);
}

int ksp_pgp_verify_key_sig(const struct ksp_pgp_pubkey *signer, const struct ksp_pgp_pubkey *primary,
			   const struct ksp_pgp_pubkey *subkey, const struct ksp_pgp_sig *sig)
{
	return verify_once(signer, primary, NULL, subkey, sig);
}
