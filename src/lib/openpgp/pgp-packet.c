/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pgp-packet.c: OpenPGP packet framing and transferable public keys.
 *
 * Why one file (over 1,000 lines): the framing and the grammar of a
 * transferable key (RFC 9580 10.1) share the reader's cursor and the key
 * being built; armor (pgp-armor.c) and verification (pgp-verify.c) are
 * apart. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gcrypt.h>

#include "shared/util.h"
#include "lib/libksp-private.h"
#include "lib/openpgp/pgp.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Grow an array to hold at least n + 1 elements. */
static int grow(void **arr, size_t *cap, size_t n, size_t elsz)
{
	return grow_array(arr, cap, n + 1, elsz, 4);
}

/* ---- framing ------------------------------------------------------------ */

/* New format length at buf[*p] (< end).  *partial set for a partial length. */
static int new_length(const uint8_t *buf, size_t end, size_t *p, size_t *ret, bool *partial)
{
	uint8_t o1;

	if (*p >= end)
		return -EBADMSG;
	o1 = buf[(*p)++];
	*partial = false;
	if (o1 < 192) {
		*ret = o1;
	} else if (o1 < 224) {
		if (end - *p < 1)
			return -EBADMSG;
		*ret = ((size_t)(o1 - 192) << 8) + buf[*p] + 192;
		*p += 1;
	} else if (o1 == 255) {
		if (end - *p < 4)
			return -EBADMSG;
		*ret = be32(buf + *p);
		*p += 4;
	} else {
		*ret = (size_t)1 << (o1 & 0x1f);
		*partial = true;
	}
	return 0;
}

int ksp_pgp_packet_next(const uint8_t *buf, size_t len, size_t *pos, struct ksp_pgp_packet *pkt)
{
	size_t p = *pos, blen = 0;
	uint8_t b;

	if (p >= len)
		return -EBADMSG;
	b = buf[p++];
	if (!(b & 0x80))
		return -EBADMSG;
	memset(pkt, 0, sizeof(*pkt));
	pkt->offset = *pos;
	if (b & 0x40) {
		bool partial;
		int r;

		pkt->new_format = true;
		pkt->tag = b & 0x3f;
		r = new_length(buf, len, &p, &blen, &partial);
		if (r < 0)
			return r;
		if (partial) {
			/* first pass: validate and sum the chunks */
			size_t q = p, total = 0, chunk = blen, o = 0;
			bool more = true;
			uint8_t *j;

			while (more) {
				if (chunk > len - q)
					return -EBADMSG;
				total += chunk;
				q += chunk;
				if (!partial)
					break;
				r = new_length(buf, len, &q, &chunk, &partial);
				if (r < 0)
					return r;
			}
			j = malloc(total ? total : 1);
			if (!j)
				return -ENOMEM;
			/* second pass: copy */
			q = p;
			chunk = blen;
			partial = true;
			for (;;) {
				memcpy(j + o, buf + q, chunk);
				o += chunk;
				q += chunk;
				if (!partial)
					break;
				(void)new_length(buf, len, &q, &chunk, &partial);
			}
			pkt->partial = true;
			pkt->joined = j;
			pkt->body = j;
			pkt->body_len = total;
			pkt->raw_len = q - *pos;
			if (pkt->tag == 0) {
				free(j);
				pkt->joined = NULL;
				return -EBADMSG;
			}
			*pos = q;
			return 0;
		}
	} else {
		pkt->tag = (b >> 2) & 0x0f;
		switch (b & 3) {
		case 0:
			if (len - p < 1)
				return -EBADMSG;
			blen = buf[p];
			p += 1;
			break;
		case 1:
			if (len - p < 2)
				return -EBADMSG;
			blen = be16(buf + p);
			p += 2;
			break;
		case 2:
			if (len - p < 4)
				return -EBADMSG;
			blen = be32(buf + p);
			p += 4;
			break;
		default:
			blen = len - p;
			break;
		}
	}
	if (pkt->tag == 0)
		return -EBADMSG;
	if (blen > len - p)
		return -EBADMSG;
	pkt->body = buf + p;
	pkt->body_len = blen;
	pkt->raw_len = p + blen - *pos;
	*pos = p + blen;
	return 0;
}

/* ---- keys --------------------------------------------------------------- */

struct curve {
	const char *name;
	unsigned bits;
	uint8_t len;
	uint8_t oid[10];
};

static const struct curve curves[] = {
	{ "ed25519", 255, 9, { 0x2B, 0x06, 0x01, 0x04, 0x01, 0xDA, 0x47, 0x0F, 0x01 } },
	{ "cv25519", 255, 10, { 0x2B, 0x06, 0x01, 0x04, 0x01, 0x97, 0x55, 0x01, 0x05, 0x01 } },
	{ "nistp256", 256, 8, { 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 } },
	{ "nistp384", 384, 5, { 0x2B, 0x81, 0x04, 0x00, 0x22 } },
	{ "nistp521", 521, 5, { 0x2B, 0x81, 0x04, 0x00, 0x23 } },
	{ "brainpoolP256r1", 256, 9, { 0x2B, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x07 } },
	{ "brainpoolP384r1", 384, 9, { 0x2B, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x0B } },
	{ "brainpoolP512r1", 512, 9, { 0x2B, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x0D } },
	{ "secp256k1", 256, 5, { 0x2B, 0x81, 0x04, 0x00, 0x0A } },
	{ "ed448", 448, 3, { 0x2B, 0x65, 0x71 } },
	{ "cv448", 448, 3, { 0x2B, 0x65, 0x6F } },
};

const char *ksp_pgp_curve_name(const uint8_t *oid, size_t len, unsigned *bits)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(curves); i++)
		if (curves[i].len == len && memcmp(curves[i].oid, oid, len) == 0) {
			if (bits)
				*bits = curves[i].bits;
			return curves[i].name;
		}
	if (bits)
		*bits = 0;
	return NULL;
}

/* Skip one MPI at body[*p]; sets *bits to its real bit length. */
static int skip_mpi(const uint8_t *b, size_t len, size_t *p, unsigned *bits)
{
	size_t nb, n, i;
	unsigned bl = 0;

	if (len - *p < 2)
		return -EBADMSG;
	nb = be16(b + *p);
	*p += 2;
	n = (nb + 7) / 8;
	if (n > len - *p)
		return -EBADMSG;
	for (i = 0; i < n; i++)
		if (b[*p + i]) {
			uint8_t c = b[*p + i];

			bl = (unsigned)((n - i - 1) * 8);
			while (c) {
				bl++;
				c >>= 1;
			}
			break;
		}
	if (bits)
		*bits = bl;
	*p += n;
	return 0;
}

/* Curve OID at body[*p] */
static int read_oid(const uint8_t *b, size_t len, size_t *p, struct ksp_pgp_pubkey *pk)
{
	size_t n;

	if (len - *p < 1)
		return -EBADMSG;
	n = b[*p];
	*p += 1;
	if (n == 0 || n == 0xff || n > len - *p)
		return -EBADMSG;
	pk->curve = ksp_pgp_curve_name(b + *p, n, &pk->bits);
	*p += n;
	return 0;
}

static int skip_bytes(size_t len, size_t *p, size_t n)
{
	if (n > len - *p)
		return -EBADMSG;
	*p += n;
	return 0;
}

/* Public key material of @algo at b[*p .. len): advance *p past it. */
static int parse_material(uint8_t algo, const uint8_t *b, size_t len, size_t *p,
			  struct ksp_pgp_pubkey *pk)
{
	int r, i, n;

	switch (algo) {
	case KSP_PGP_PK_RSA:
	case KSP_PGP_PK_RSA_E:
	case KSP_PGP_PK_RSA_S:
		n = 2;
		break;
	case KSP_PGP_PK_ELGAMAL_E:
	case KSP_PGP_PK_ELGAMAL:
		n = 3;
		break;
	case KSP_PGP_PK_DSA:
		n = 4;
		break;
	case KSP_PGP_PK_ECDSA:
	case KSP_PGP_PK_EDDSA:
		r = read_oid(b, len, p, pk);
		if (r < 0)
			return r;
		return skip_mpi(b, len, p, NULL);
	case KSP_PGP_PK_ECDH:
		r = read_oid(b, len, p, pk);
		if (r < 0)
			return r;
		r = skip_mpi(b, len, p, NULL);
		if (r < 0)
			return r;
		/* KDF parameters: length octet, then that many octets */
		if (len - *p < 1)
			return -EBADMSG;
		n = b[*p];
		*p += 1;
		return skip_bytes(len, p, (size_t)n);
	case KSP_PGP_PK_X25519:
		pk->curve = "cv25519";
		pk->bits = 255;
		return skip_bytes(len, p, 32);
	case KSP_PGP_PK_ED25519:
		pk->curve = "ed25519";
		pk->bits = 255;
		return skip_bytes(len, p, 32);
	case KSP_PGP_PK_X448:
		pk->curve = "cv448";
		pk->bits = 448;
		return skip_bytes(len, p, 56);
	case KSP_PGP_PK_ED448:
		pk->curve = "ed448";
		pk->bits = 448;
		return skip_bytes(len, p, 57);
	default:
		return -EOPNOTSUPP;
	}
	for (i = 0; i < n; i++) {
		r = skip_mpi(b, len, p, i == 0 ? &pk->bits : NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

int ksp_pgp_parse_pubkey(const uint8_t *body, size_t len, bool secret, struct ksp_pgp_pubkey *pk)
{
	size_t p = 0;
	int r;

	memset(pk, 0, sizeof(*pk));
	pk->secret = secret;
	if (len < 1)
		return -EBADMSG;
	pk->version = body[0];
	if (pk->version != 4 && pk->version != 5 && pk->version != 6)
		return -EOPNOTSUPP;
	if (len < 6)
		return -EBADMSG;
	pk->created = be32(body + 1);
	pk->algo = body[5];
	p = 6;
	if (pk->version == 4) {
		r = parse_material(pk->algo, body, len, &p, pk);
		if (r == -EOPNOTSUPP && !secret)
			p = len; /* unknown algorithm: the whole body is public */
		else if (r < 0)
			return r;
	} else {
		size_t n, q;

		if (len - p < 4)
			return -EBADMSG;
		n = be32(body + p);
		p += 4;
		if (n > len - p)
			return -EBADMSG;
		q = p;
		/* material inside its declared octet count; unknown algorithms
		 * are fine since the count says where it ends */
		r = parse_material(pk->algo, body, p + n, &q, pk);
		if (r < 0 && r != -EOPNOTSUPP)
			return r;
		p += n;
	}
	pk->body = body;
	pk->body_len = secret ? p : len;
	return 0;
}

int ksp_pgp_fingerprint(struct ksp_pgp_pubkey *pk)
{
	uint8_t hdr[5];
	gcry_buffer_t iov[2];
	gcry_error_t e;
	int algo;

	memset(iov, 0, sizeof(iov));
	if (pk->version == 4) {
		if (pk->body_len > 0xffff)
			return -EBADMSG;
		hdr[0] = 0x99;
		hdr[1] = (uint8_t)(pk->body_len >> 8);
		hdr[2] = (uint8_t)pk->body_len;
		iov[0].len = 3;
		algo = GCRY_MD_SHA1;
		pk->fpr_len = 20;
	} else {
		if (pk->body_len > 0xffffffffu)
			return -EBADMSG;
		hdr[0] = pk->version == 5 ? 0x9A : 0x9B;
		hdr[1] = (uint8_t)(pk->body_len >> 24);
		hdr[2] = (uint8_t)(pk->body_len >> 16);
		hdr[3] = (uint8_t)(pk->body_len >> 8);
		hdr[4] = (uint8_t)pk->body_len;
		iov[0].len = 5;
		algo = GCRY_MD_SHA256;
		pk->fpr_len = 32;
	}
	iov[0].data = hdr;
	iov[1].data = (void *)pk->body;
	iov[1].len = pk->body_len;
	e = gcry_md_hash_buffers(algo, 0, pk->fpr, iov, 2);
	if (e)
		return -EIO;
	if (pk->version == 4)
		memcpy(pk->keyid, pk->fpr + 12, 8);
	else
		memcpy(pk->keyid, pk->fpr, 8);
	return 0;
}

void ksp_pgp_fpr_hex(const struct ksp_pgp_pubkey *pk, char out[65])
{
	static const char hx[] = "0123456789ABCDEF";
	size_t i;

	for (i = 0; i < pk->fpr_len && i < 32; i++) {
		out[2 * i] = hx[pk->fpr[i] >> 4];
		out[2 * i + 1] = hx[pk->fpr[i] & 15];
	}
	out[2 * i] = '\0';
}

/* ---- signatures --------------------------------------------------------- */

/* Parse a subpacket area; hashed = true for the hashed area. */
static int parse_subpackets(const uint8_t *a, size_t len, bool hashed, struct ksp_pgp_sig *sig)
{
	size_t p = 0;

	while (p < len) {
		size_t n;
		uint8_t o1 = a[p++], type;
		bool crit;
		const uint8_t *d;

		if (o1 < 192) {
			n = o1;
		} else if (o1 < 255) {
			if (len - p < 1)
				return -EBADMSG;
			n = ((size_t)(o1 - 192) << 8) + a[p] + 192;
			p += 1;
		} else {
			if (len - p < 4)
				return -EBADMSG;
			n = be32(a + p);
			p += 4;
		}
		if (n == 0 || n > len - p)
			return -EBADMSG;
		type = a[p] & 0x7f;
		crit = (a[p] & 0x80) != 0;
		d = a + p + 1;
		n -= 1;
		p += 1 + n;

		if (!hashed) {
			/* only issuer information is taken from the unhashed area */
			if (type == 16 && n == 8 && !sig->has_issuer) {
				memcpy(sig->issuer, d, 8);
				sig->has_issuer = true;
			} else if (type == 33 && n >= 1 && sig->issuer_fpr_version == 0 &&
				   ((d[0] == 4 && n == 21) || ((d[0] == 5 || d[0] == 6) && n == 33))) {
				sig->issuer_fpr_version = d[0];
				sig->issuer_fpr_len = (uint8_t)(n - 1);
				memcpy(sig->issuer_fpr, d + 1, n - 1);
			}
			continue;
		}
		switch (type) {
		case 2:
			if (n != 4)
				return -EBADMSG;
			sig->created = be32(d);
			sig->has_created = true;
			break;
		case 3:
			if (n != 4)
				return -EBADMSG;
			sig->expires = be32(d);
			break;
		case 4:
			if (n != 1)
				return -EBADMSG;
			sig->exportable = d[0] != 0;
			break;
		case 5:
			if (n != 2)
				return -EBADMSG;
			sig->has_trust = true;
			sig->trust_depth = d[0];
			sig->trust_amount = d[1];
			break;
		case 6: {
			size_t rl = n;

			if (rl > 0 && d[rl - 1] == '\0')
				rl--;
			{
				struct ksp_pgp_span *nr;

				if (sig->n_regexes >= SIZE_MAX / sizeof(*nr) - 1)
					return -ENOMEM;
				nr = realloc(sig->regexes, (sig->n_regexes + 1) * sizeof(*nr));
				if (!nr)
					return -ENOMEM;
				sig->regexes = nr;
				nr[sig->n_regexes].data = d;
				nr[sig->n_regexes].len = rl;
				sig->n_regexes++;
			}
			break;
		}
		case 7:
			if (n != 1)
				return -EBADMSG;
			sig->revocable = d[0] != 0;
			break;
		case 9:
			if (n != 4)
				return -EBADMSG;
			sig->key_expires = be32(d);
			sig->has_key_expires = true;
			break;
		case 16:
			if (n != 8)
				return -EBADMSG;
			memcpy(sig->issuer, d, 8);
			sig->has_issuer = true;
			break;
		case 25:
			if (n != 1)
				return -EBADMSG;
			sig->has_primary_uid = true;
			sig->primary_uid = d[0] != 0;
			break;
		case 29:
			if (n < 1)
				return -EBADMSG;
			sig->has_revocation_reason = true;
			sig->revocation_code = d[0];
			sig->revocation_reason.data = d + 1;
			sig->revocation_reason.len = n - 1;
			break;
		case 33:
			if (n < 1)
				return -EBADMSG;
			if (!((d[0] == 4 && n == 21) || ((d[0] == 5 || d[0] == 6) && n == 33)))
				break; /* unknown fingerprint version: ignore */
			sig->issuer_fpr_version = d[0];
			sig->issuer_fpr_len = (uint8_t)(n - 1);
			memcpy(sig->issuer_fpr, d + 1, n - 1);
			break;
		case 20:
			/* a notation ksp does not know, marked critical: the
			 * signature is invalid (RFC 9580 5.2.3.24; gpg and
			 * Sequoia's standard policy know none) */
			if (crit)
				sig->unknown_critical = true;
			break;
		case 11: case 12: case 21: case 22: case 23: case 24: case 26:
		case 27: case 28: case 30: case 31: case 32: case 34: case 35: case 37:
		case 38: case 39:
			break; /* known, not needed here */
		default:
			if (crit)
				sig->unknown_critical = true;
			break;
		}
	}
	return 0;
}

void ksp_pgp_sig_done(struct ksp_pgp_sig *sig)
{
	free(sig->regexes);
	sig->regexes = NULL;
	sig->n_regexes = 0;
}

int ksp_pgp_parse_sig(const uint8_t *body, size_t len, struct ksp_pgp_sig *sig)
{
	size_t p;
	int r;

	memset(sig, 0, sizeof(*sig));
	sig->body = body;
	sig->body_len = len;
	sig->exportable = true;
	sig->revocable = true;
	if (len < 1)
		return -EBADMSG;
	sig->version = body[0];
	if (sig->version == 3 || sig->version == 2) {
		/* version, 5, type, created(4), issuer(8), pk, hash, left16 */
		if (len < 19)
			return -EBADMSG;
		if (body[1] != 5)
			return -EBADMSG;
		sig->version = 3;
		sig->type = body[2];
		sig->hashed_off = 2;
		sig->hashed_len = 5;
		sig->created = be32(body + 3);
		sig->has_created = true;
		memcpy(sig->issuer, body + 7, 8);
		sig->has_issuer = true;
		sig->pk_algo = body[15];
		sig->hash_algo = body[16];
		memcpy(sig->left16, body + 17, 2);
		sig->mpi_off = 19;
		sig->mpi_len = len - 19;
		return 0;
	}
	if (sig->version != 4 && sig->version != 5 && sig->version != 6)
		return -EOPNOTSUPP;
	if (len < 4)
		return -EBADMSG;
	sig->type = body[1];
	sig->pk_algo = body[2];
	sig->hash_algo = body[3];
	p = 4;
	if (sig->version == 6) {
		if (len - p < 4)
			return -EBADMSG;
		sig->hashed_len = be32(body + p);
		p += 4;
	} else {
		if (len - p < 2)
			return -EBADMSG;
		sig->hashed_len = be16(body + p);
		p += 2;
	}
	if (sig->hashed_len > len - p)
		return -EBADMSG;
	sig->hashed_off = p;
	p += sig->hashed_len;
	sig->hashed_prefix_len = p;
	if (sig->version == 6) {
		if (len - p < 4)
			return -EBADMSG;
		sig->unhashed_len = be32(body + p);
		p += 4;
	} else {
		if (len - p < 2)
			return -EBADMSG;
		sig->unhashed_len = be16(body + p);
		p += 2;
	}
	if (sig->unhashed_len > len - p)
		return -EBADMSG;
	sig->unhashed_off = p;
	p += sig->unhashed_len;
	if (len - p < 2)
		return -EBADMSG;
	memcpy(sig->left16, body + p, 2);
	p += 2;
	if (sig->version == 6) {
		if (len - p < 1)
			return -EBADMSG;
		sig->salt_len = body[p];
		p += 1;
		if (sig->salt_len > len - p)
			return -EBADMSG;
		sig->salt_off = p;
		p += sig->salt_len;
	}
	sig->mpi_off = p;
	sig->mpi_len = len - p;

	r = parse_subpackets(body + sig->hashed_off, sig->hashed_len, true, sig);
	if (r >= 0)
		r = parse_subpackets(body + sig->unhashed_off, sig->unhashed_len, false, sig);
	if (r < 0) {
		ksp_pgp_sig_done(sig);
		return r;
	}
	return 0;
}

/* ---- key assembly ------------------------------------------------------- */

static void pubkey_done(struct ksp_pgp_pubkey *pk)
{
	size_t i;

	for (i = 0; i < pk->n_sigs; i++)
		ksp_pgp_sig_done(&pk->sigs[i]);
	free(pk->sigs);
	pk->sigs = NULL;
	pk->n_sigs = 0;
}

void ksp_pgp_key_free(struct ksp_pgp_key *key)
{
	size_t i, j;

	if (!key)
		return;
	pubkey_done(&key->primary);
	for (i = 0; i < key->n_uids; i++) {
		for (j = 0; j < key->uids[i].n_sigs; j++)
			ksp_pgp_sig_done(&key->uids[i].sigs[j]);
		free(key->uids[i].sigs);
	}
	free(key->uids);
	for (i = 0; i < key->n_subkeys; i++)
		pubkey_done(&key->subkeys[i]);
	free(key->subkeys);
	free(key->raw);
	free(key);
}

struct ksp_pgp_reader {
	struct ksp_ctx *ctx;
	const uint8_t *data;
	size_t len;
	uint8_t *owned;         /* decoded armor */
	size_t pos;
	char *filename;
	bool armored;
	unsigned n_bad_keys;
	unsigned n_skipped_packets;
	unsigned n_armor_errors;
	size_t first_problem;   /* offset of the first malformed key or packet */
	bool have_problem;
	/* scratch packet list, reused between keys */
	struct ksp_pgp_packet *pkts;
	size_t n_pkts, cap_pkts;
};

static void rd_problem(struct ksp_pgp_reader *rd, size_t off)
{
	if (!rd->have_problem) {
		rd->have_problem = true;
		rd->first_problem = off;
	}
}

static const char *rd_name(const struct ksp_pgp_reader *rd)
{
	return rd->filename ? rd->filename : "(buffer)";
}

int ksp_pgp_reader_new(struct ksp_ctx *ctx, const uint8_t *buf, size_t len,
		       const char *filename, struct ksp_pgp_reader **ret)
{
	struct ksp_pgp_reader *rd = calloc(1, sizeof(*rd));

	if (!rd)
		return -ENOMEM;
	rd->ctx = ctx;
	if (filename) {
		rd->filename = strdup(filename);
		if (!rd->filename) {
			free(rd);
			return -ENOMEM;
		}
	}
	if (ksp_armor_detect(buf, len)) {
		size_t p = 0, olen = 0, ocap = 0;
		uint8_t *out = NULL;

		rd->armored = true;
		while (p < len) {
			uint8_t *blk;
			size_t blen, used;
			int r = ksp_armor_decode(buf + p, len - p, &blk, &blen, &used);

			if (r == -ENODATA)
				break;
			if (r == -ENOMEM) {
				free(out);
				ksp_pgp_reader_free(rd);
				return r;
			}
			if (r < 0) {
				/* skip past this BEGIN marker */
				const uint8_t *b = memmem(buf + p, len - p, "-----BEGIN PGP ", 15);

				INFO(ctx, "%s: offset %zu: bad ASCII armor block: %s\n", rd_name(rd),
				    b ? (size_t)(b - buf) : p, strerror(-r));
				rd->n_armor_errors++;
				if (!b)
					break;
				p = (size_t)(b - buf) + 1;
				continue;
			}
			if (blen > 0 && olen + blen > ocap) {
				size_t nc = MAX(ocap * 2, olen + blen);
				uint8_t *no = realloc(out, nc);

				if (!no) {
					free(blk);
					free(out);
					ksp_pgp_reader_free(rd);
					return -ENOMEM;
				}
				out = no;
				ocap = nc;
			}
			if (blen > 0)
				memcpy(out + olen, blk, blen);
			olen += blen;
			free(blk);
			p += used;
		}
		rd->owned = out;
		rd->data = out;
		rd->len = olen;
	} else {
		rd->data = buf;
		rd->len = len;
	}
	*ret = rd;
	return 0;
}

static void free_pkts(struct ksp_pgp_reader *rd)
{
	size_t i;

	for (i = 0; i < rd->n_pkts; i++)
		free(rd->pkts[i].joined);
	rd->n_pkts = 0;
}

struct ksp_pgp_reader *ksp_pgp_reader_free(struct ksp_pgp_reader *rd)
{
	if (!rd)
		return NULL;
	free_pkts(rd);
	free(rd->pkts);
	free(rd->owned);
	free(rd->filename);
	free(rd);
	return NULL;
}

const uint8_t *ksp_pgp_reader_data(const struct ksp_pgp_reader *rd, size_t *len)
{
	if (len)
		*len = rd->len;
	return rd->data;
}

bool ksp_pgp_reader_first_problem(const struct ksp_pgp_reader *rd, size_t *offset)
{
	if (rd->have_problem && offset)
		*offset = rd->first_problem;
	return rd->have_problem;
}

bool ksp_pgp_reader_armored(const struct ksp_pgp_reader *rd)
{
	return rd->armored;
}

unsigned ksp_pgp_reader_n_bad_keys(const struct ksp_pgp_reader *rd)
{
	return rd->n_bad_keys;
}

unsigned ksp_pgp_reader_n_skipped_packets(const struct ksp_pgp_reader *rd)
{
	return rd->n_skipped_packets;
}

unsigned ksp_pgp_reader_n_armor_errors(const struct ksp_pgp_reader *rd)
{
	return rd->n_armor_errors;
}

static bool is_primary_tag(uint8_t tag)
{
	return tag == KSP_PGP_TAG_PUBLIC_KEY || tag == KSP_PGP_TAG_SECRET_KEY;
}

/* Next offset >= from where a plausible primary key packet starts. */
static size_t resync(struct ksp_pgp_reader *rd, size_t from)
{
	size_t i;

	for (i = from; i < rd->len; i++) {
		uint8_t b = rd->data[i];
		struct ksp_pgp_packet pkt;
		size_t p = i;
		bool ok;

		if (!(b == 0x98 || b == 0x99 || b == 0x9a || b == 0xc6 || b == 0x94 ||
		      b == 0x95 || b == 0x96 || b == 0xc5))
			continue;
		/* key packets never use partial lengths; not trying them keeps
		 * resynchronisation linear on hostile input */
		if ((b & 0x40) && i + 1 < rd->len && rd->data[i + 1] >= 224 && rd->data[i + 1] < 255)
			continue;
		if (ksp_pgp_packet_next(rd->data, rd->len, &p, &pkt) < 0)
			continue;
		ok = pkt.body_len >= 6 && pkt.body[0] >= 4 && pkt.body[0] <= 6;
		free(pkt.joined);
		if (ok)
			return i;
	}
	return rd->len;
}

/* Which gathered packets are kept and how many body bytes each copies. */
static size_t keep_len(const struct ksp_pgp_packet *pkt, const struct ksp_pgp_pubkey *pk)
{
	switch (pkt->tag) {
	case KSP_PGP_TAG_SECRET_KEY:
	case KSP_PGP_TAG_PUBLIC_KEY:
	case KSP_PGP_TAG_SECRET_SUBKEY:
	case KSP_PGP_TAG_PUBLIC_SUBKEY:
		return pk->body_len;
	case KSP_PGP_TAG_SIGNATURE:
	case KSP_PGP_TAG_USER_ID:
	case KSP_PGP_TAG_USER_ATTRIBUTE:
		return pkt->body_len;
	default:
		return 0;
	}
}

/* Assemble rd->pkts[0..n) (pkts[0] is the primary key) into a key. */
/* (Long: one pass over the packets in the order of a transferable key, RFC 4880 11.1.) */
static int build_key(struct ksp_pgp_reader *rd, struct ksp_pgp_key **ret)
{
	struct ksp_pgp_key *key;
	struct ksp_pgp_pubkey *pks = NULL;
	size_t i, total = 0, o = 0, cap_uids = 0, cap_sub = 0;
	/* current component: 0 = primary, 1 = uid, 2 = subkey, 3 = dropped */
	int cur = 0;
	size_t cap_cur = 0;
	int r;

	pks = calloc(rd->n_pkts, sizeof(*pks));
	if (!pks)
		return -ENOMEM;
	/* parse key packets first: they say how much to copy */
	for (i = 0; i < rd->n_pkts; i++) {
		const struct ksp_pgp_packet *pkt = &rd->pkts[i];
		bool secret = pkt->tag == KSP_PGP_TAG_SECRET_KEY || pkt->tag == KSP_PGP_TAG_SECRET_SUBKEY;

		if (pkt->tag == KSP_PGP_TAG_PUBLIC_KEY || pkt->tag == KSP_PGP_TAG_SECRET_KEY ||
		    pkt->tag == KSP_PGP_TAG_PUBLIC_SUBKEY || pkt->tag == KSP_PGP_TAG_SECRET_SUBKEY) {
			r = ksp_pgp_parse_pubkey(pkt->body, pkt->body_len, secret, &pks[i]);
			if (r < 0) {
				if (i == 0) {
					INFO(rd->ctx, "%s: offset %zu: bad primary key packet: %s\n",
					    rd_name(rd), pkt->offset, strerror(-r));
					free(pks);
					return r;
				}
				pks[i].version = 0; /* marks a dropped subkey */
				pks[i].body_len = 0;
			}
		}
		total += keep_len(pkt, &pks[i]);
	}

	key = calloc(1, sizeof(*key));
	if (!key) {
		free(pks);
		return -ENOMEM;
	}
	key->raw = malloc(total ? total : 1);
	if (!key->raw) {
		free(pks);
		free(key);
		return -ENOMEM;
	}
	key->offset = rd->pkts[0].offset;
	key->end = rd->pkts[rd->n_pkts - 1].offset + rd->pkts[rd->n_pkts - 1].raw_len;

	for (i = 0; i < rd->n_pkts; i++) {
		const struct ksp_pgp_packet *pkt = &rd->pkts[i];
		size_t kl = keep_len(pkt, &pks[i]);
		uint8_t *copy = key->raw + o;

		if (kl)
			memcpy(copy, pkt->body, kl);
		o += kl;
		switch (pkt->tag) {
		case KSP_PGP_TAG_PUBLIC_KEY:
		case KSP_PGP_TAG_SECRET_KEY:
		case KSP_PGP_TAG_PUBLIC_SUBKEY:
		case KSP_PGP_TAG_SECRET_SUBKEY: {
			struct ksp_pgp_pubkey *pk;

			if (pks[i].version == 0) {
				INFO(rd->ctx, "%s: offset %zu: bad subkey packet, dropped\n",
				    rd_name(rd), pkt->offset);
				key->n_bad_packets++;
				cur = 3;
				break;
			}
			if (i == 0) {
				pk = &key->primary;
			} else {
				r = grow((void **)&key->subkeys, &cap_sub, key->n_subkeys, sizeof(*pk));
				if (r < 0)
					goto fail;
				pk = &key->subkeys[key->n_subkeys++];
			}
			*pk = pks[i];
			pk->body = copy;
			pk->offset = pkt->offset;
			pk->raw_len = pkt->raw_len;
			r = ksp_pgp_fingerprint(pk);
			if (r < 0) {
				if (i == 0) {
					INFO(rd->ctx, "%s: offset %zu: bad primary key packet: %s\n",
					    rd_name(rd), pkt->offset, strerror(-r));
					goto fail;
				}
				key->n_subkeys--;
				key->n_bad_packets++;
				cur = 3;
				break;
			}
			if (pk->secret)
				key->secret = true;
			cur = i == 0 ? 0 : 2;
			cap_cur = 0;
			break;
		}
		case KSP_PGP_TAG_USER_ID:
		case KSP_PGP_TAG_USER_ATTRIBUTE: {
			struct ksp_pgp_uid *u;

			r = grow((void **)&key->uids, &cap_uids, key->n_uids, sizeof(*u));
			if (r < 0)
				goto fail;
			u = &key->uids[key->n_uids++];
			memset(u, 0, sizeof(*u));
			u->offset = pkt->offset;
			u->raw_len = pkt->raw_len;
			u->data = copy;
			u->len = kl;
			u->attribute = pkt->tag == KSP_PGP_TAG_USER_ATTRIBUTE;
			cur = 1;
			cap_cur = 0;
			break;
		}
		case KSP_PGP_TAG_SIGNATURE: {
			struct ksp_pgp_sig **arr;
			size_t *n;
			struct ksp_pgp_sig *s;

			if (cur == 3) {
				key->n_bad_packets++;
				break;
			}
			if (cur == 0) {
				arr = &key->primary.sigs;
				n = &key->primary.n_sigs;
			} else if (cur == 1) {
				arr = &key->uids[key->n_uids - 1].sigs;
				n = &key->uids[key->n_uids - 1].n_sigs;
			} else {
				arr = &key->subkeys[key->n_subkeys - 1].sigs;
				n = &key->subkeys[key->n_subkeys - 1].n_sigs;
			}
			r = grow((void **)arr, &cap_cur, *n, sizeof(**arr));
			if (r < 0)
				goto fail;
			s = &(*arr)[*n];
			r = ksp_pgp_parse_sig(copy, kl, s);
			if (r == -ENOMEM)
				goto fail;
			if (r < 0) {
				if (r != -EOPNOTSUPP)
					INFO(rd->ctx, "%s: offset %zu: bad signature packet, dropped: %s\n",
					    rd_name(rd), pkt->offset, strerror(-r));
				key->n_bad_packets++;
				break;
			}
			s->offset = pkt->offset;
			s->raw_len = pkt->raw_len;
			(*n)++;
			break;
		}
		case KSP_PGP_TAG_TRUST:
		case KSP_PGP_TAG_MARKER:
			break;
		default:
			key->n_skipped_packets++;
			break;
		}
	}
	free(pks);
	*ret = key;
	return 0;
fail:
	free(pks);
	ksp_pgp_key_free(key);
	return r;
}

int ksp_pgp_reader_next(struct ksp_pgp_reader *rd, struct ksp_pgp_key **ret)
{
	int r;

	for (;;) {
		struct ksp_pgp_packet pkt;
		size_t start = rd->pos;
		bool bad = false;

		free_pkts(rd);
		if (rd->pos >= rd->len)
			return 0;
		r = ksp_pgp_packet_next(rd->data, rd->len, &rd->pos, &pkt);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			uint8_t h = rd->data[start];
			unsigned tag = (h & 0x40) ? (h & 0x3fu) : ((h >> 2) & 0xfu);

			INFO(rd->ctx, "%s: offset %zu: malformed packet header, skipping to the next key\n",
			    rd_name(rd), start);
			rd->n_skipped_packets++;
			if ((h & 0x80) && is_primary_tag((uint8_t)tag)) {
				/* it claimed to be a key */
				rd->n_bad_keys++;
				rd_problem(rd, start);
			}
			rd->pos = resync(rd, start + 1);
			continue;
		}
		if (!is_primary_tag(pkt.tag)) {
			if (pkt.tag != KSP_PGP_TAG_TRUST && pkt.tag != KSP_PGP_TAG_MARKER) {
				INFO(rd->ctx, "%s: offset %zu: packet of type %u outside a key, skipped\n",
				    rd_name(rd), start, pkt.tag);
				rd->n_skipped_packets++;
			}
			free(pkt.joined);
			continue;
		}
		r = grow((void **)&rd->pkts, &rd->cap_pkts, 0, sizeof(pkt));
		if (r < 0) {
			free(pkt.joined);
			return r;
		}
		rd->pkts[rd->n_pkts++] = pkt;
		/* gather up to the next primary key */
		while (rd->pos < rd->len) {
			size_t p = rd->pos;

			r = ksp_pgp_packet_next(rd->data, rd->len, &p, &pkt);
			if (r == -ENOMEM)
				return r;
			if (r < 0) {
				uint8_t h = rd->data[rd->pos];
				unsigned tag = (h & 0x40) ? (h & 0x3fu) : ((h >> 2) & 0xfu);
				/* a broken primary key packet starts the next (bad)
				 * key: this one ends before it, whole */
				if ((h & 0x80) && is_primary_tag((uint8_t)tag))
					break;
				INFO(rd->ctx, "%s: offset %zu: malformed packet in the key at offset %zu, key skipped\n",
				    rd_name(rd), rd->pos, start);
				rd->pos = resync(rd, rd->pos + 1);
				bad = true;
				break;
			}
			if (is_primary_tag(pkt.tag)) {
				free(pkt.joined);
				break;
			}
			r = grow((void **)&rd->pkts, &rd->cap_pkts, rd->n_pkts, sizeof(pkt));
			if (r < 0) {
				free(pkt.joined);
				return r;
			}
			rd->pkts[rd->n_pkts++] = pkt;
			rd->pos = p;
		}
		if (bad) {
			rd->n_bad_keys++;
			rd_problem(rd, start);
			continue;
		}
		r = build_key(rd, ret);
		free_pkts(rd);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			rd->n_bad_keys++;
			rd_problem(rd, start);
			continue;
		}
		return 1;
	}
}
