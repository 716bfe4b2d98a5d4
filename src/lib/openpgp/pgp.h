/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pgp.h: native, in-memory reader of OpenPGP keyrings (RFC 4880, RFC 9580,
 * and LibrePGP v5 keys).  Internal to libksp, nothing here is exported.
 *
 * Input is a byte buffer, binary or ASCII-armored (detected by content).
 * Every length read from the input is checked against the bytes that are
 * left; hostile input gives -EBADMSG (malformed) or -EOPNOTSUPP (unknown
 * version or algorithm), never a read past the buffer.
 *
 * Usage:
 *
 *   struct ksp_pgp_reader *rd;
 *   struct ksp_pgp_key *key;
 *   r = ksp_pgp_reader_new(ctx, buf, len, "file.gpg", &rd);
 *   while ((r = ksp_pgp_reader_next(rd, &key)) > 0) {
 *           ... use key ...
 *           ksp_pgp_key_free(key);
 *   }
 *   ksp_pgp_reader_free(rd);
 *
 * A key (struct ksp_pgp_key) is self-contained: it owns a copy of the
 * bodies of its packets (secret key material is never copied: only the
 * public part of a secret key packet is kept), so it may outlive the
 * reader and the input buffer.  The reader keeps a pointer to @buf when it
 * is binary (the caller keeps it alive while the reader lives) and an
 * internal decoded copy when it is armored.
 *
 * Malformed keys are skipped: ksp_pgp_reader_next() logs the error via
 * INFO() with the file name and byte offset, counts it (n_bad_keys), and
 * resynchronises at the next plausible primary key packet.  Packets that
 * belong to no key, and unknown packets inside a key, are skipped and
 * counted (n_skipped_packets); trust (12) and marker (10) packets are
 * skipped silently.  Malformed signatures or subkeys inside an otherwise
 * good key are dropped and counted in key->n_bad_packets.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksp_ctx;

/* ---- packet tags and algorithms ---------------------------------------- */

enum {
	KSP_PGP_TAG_SIGNATURE = 2,
	KSP_PGP_TAG_SECRET_KEY = 5,
	KSP_PGP_TAG_PUBLIC_KEY = 6,
	KSP_PGP_TAG_SECRET_SUBKEY = 7,
	KSP_PGP_TAG_MARKER = 10,
	KSP_PGP_TAG_TRUST = 12,
	KSP_PGP_TAG_USER_ID = 13,
	KSP_PGP_TAG_PUBLIC_SUBKEY = 14,
	KSP_PGP_TAG_USER_ATTRIBUTE = 17,
};

enum {
	KSP_PGP_PK_RSA = 1,
	KSP_PGP_PK_RSA_E = 2,
	KSP_PGP_PK_RSA_S = 3,
	KSP_PGP_PK_ELGAMAL_E = 16,
	KSP_PGP_PK_DSA = 17,
	KSP_PGP_PK_ECDH = 18,
	KSP_PGP_PK_ECDSA = 19,
	KSP_PGP_PK_ELGAMAL = 20,
	KSP_PGP_PK_EDDSA = 22,
	KSP_PGP_PK_X25519 = 25,
	KSP_PGP_PK_X448 = 26,
	KSP_PGP_PK_ED25519 = 27,
	KSP_PGP_PK_ED448 = 28,
};

/* ---- packet framing ----------------------------------------------------- */

struct ksp_pgp_packet {
	uint8_t tag;
	bool new_format;
	bool partial;          /* body was made of partial body lengths */
	size_t offset;         /* of the packet header in the buffer */
	size_t raw_len;        /* header + body (+ partial length octets) */
	const uint8_t *body;   /* into the buffer, or into joined */
	size_t body_len;
	uint8_t *joined;       /* malloc'ed when partial, else NULL */
};

/* Frame one packet at buf[*pos].  On success fills @pkt, advances *pos to
 * the next packet and returns 0; the caller frees pkt->joined.  Returns
 * -EBADMSG (bad header, length past the end, tag 0), -ENOMEM.  An old
 * format indeterminate length takes the rest of the buffer. */
int ksp_pgp_packet_next(const uint8_t *buf, size_t len, size_t *pos,
			struct ksp_pgp_packet *pkt);

/* ---- ASCII armor (pgp-armor.c) ------------------------------------------ */

/* True when @in looks armored: the first non-blank byte is printable text
 * and a "-----BEGIN PGP " line occurs. */
bool ksp_armor_detect(const uint8_t *in, size_t len);

/* Decode the first armored block ("-----BEGIN PGP ...-----", cleartext
 * signed messages excepted) of @in.  Armor headers are skipped, base64
 * may be spread over lines with any whitespace (CRLF too), the CRC24 line
 * is checked when present.  *ret is malloc'ed (may be of length 0),
 * *ret_consumed is the offset just past the END line, so concatenated
 * blocks are read by calling again on in + consumed.  Returns 0;
 * -ENODATA (no BEGIN line), -EBADMSG (bad base64, missing END line, CRC
 * mismatch), -ENOMEM.  Out-parameters are untouched on failure. */
int ksp_armor_decode(const uint8_t *in, size_t len, uint8_t **ret, size_t *ret_len,
		     size_t *ret_consumed);

/* CRC24 of RFC 4880 6.1 */
uint32_t ksp_crc24(const uint8_t *data, size_t len);

/* ---- parsed objects ----------------------------------------------------- */

struct ksp_pgp_span {
	const uint8_t *data;
	size_t len;
};

struct ksp_pgp_sig {
	size_t offset;          /* packet header offset in the reader's data */
	size_t raw_len;         /* whole packet length there */
	const uint8_t *body;    /* copy owned by the key */
	size_t body_len;

	uint8_t version;        /* 3, 4, 5 or 6 */
	uint8_t type;           /* signature class, 0x10..0x13 certifications */
	uint8_t pk_algo;
	uint8_t hash_algo;
	uint8_t left16[2];

	/* Material for verification, all offsets into body:
	 * v3: body[hashed_off .. +hashed_len] are the 5 hashed octets (type
	 *     and creation time);
	 * v4/v5/v6: body[0 .. hashed_prefix_len] is what the hash covers of
	 *     the packet (version .. end of hashed subpackets), the hashed
	 *     subpacket area is body[hashed_off .. +hashed_len]. */
	size_t hashed_prefix_len;
	size_t hashed_off, hashed_len;
	size_t unhashed_off, unhashed_len;
	size_t salt_off;        /* v6 only */
	uint8_t salt_len;
	size_t mpi_off, mpi_len; /* algorithm specific signature material */

	/* Subpackets.  Values come from the hashed area; issuer key ID and
	 * issuer fingerprint are also taken from the unhashed area when the
	 * hashed area has none. */
	bool has_created;
	uint32_t created;       /* (2), v3: from the packet */
	uint32_t expires;       /* (3) seconds after creation, 0 = never */
	bool exportable;        /* (4), default true */
	bool has_trust;         /* (5) */
	uint8_t trust_depth, trust_amount;
	struct ksp_pgp_span *regexes; /* (6), each without its final NUL */
	size_t n_regexes;
	bool revocable;         /* (7), default true */
	bool has_key_expires;
	uint32_t key_expires;   /* (9) seconds after key creation, 0 = never */
	bool has_issuer;
	uint8_t issuer[8];      /* (16), v3: from the packet */
	uint8_t issuer_fpr_version; /* (33), 0 = none */
	uint8_t issuer_fpr_len; /* 20 or 32 */
	uint8_t issuer_fpr[32];
	bool has_primary_uid;
	bool primary_uid;       /* (25) */
	bool has_revocation_reason;
	uint8_t revocation_code; /* (29) */
	struct ksp_pgp_span revocation_reason;
	bool unknown_critical;  /* an unknown critical subpacket in the hashed area */
};

struct ksp_pgp_pubkey {
	size_t offset, raw_len; /* packet in the reader's data */
	const uint8_t *body;    /* public part only, copy owned by the key */
	size_t body_len;
	bool secret;            /* was a secret (sub)key packet */
	uint8_t version;        /* 4, 5 or 6 */
	uint8_t algo;
	uint32_t created;
	unsigned bits;          /* RSA/DSA/ElGamal: first MPI; ECC: curve size */
	const char *curve;      /* ECC: "ed25519", "nistp256"... or NULL */
	uint8_t fpr_len;        /* 20 (v4) or 32 (v5, v6) */
	uint8_t fpr[32];
	uint8_t keyid[8];
	struct ksp_pgp_sig *sigs; /* primary: direct key sigs; subkey: bindings */
	size_t n_sigs;
};

struct ksp_pgp_uid {
	size_t offset, raw_len;
	const uint8_t *data;    /* User ID text (not NUL-terminated) or attribute */
	size_t len;
	bool attribute;         /* tag 17 */
	struct ksp_pgp_sig *sigs;
	size_t n_sigs;
};

struct ksp_pgp_key {
	struct ksp_pgp_pubkey primary;
	struct ksp_pgp_uid *uids;
	size_t n_uids;
	struct ksp_pgp_pubkey *subkeys;
	size_t n_subkeys;
	bool secret;            /* primary or a subkey came as a secret packet */
	size_t offset;          /* of the primary key packet */
	size_t end;             /* just past the last packet of the key */
	unsigned n_bad_packets; /* malformed or unsupported packets dropped */
	unsigned n_skipped_packets; /* unknown packets inside the key */
	uint8_t *raw;           /* owned copy of the packet bodies */
};

void ksp_pgp_key_free(struct ksp_pgp_key *key);

/* Hex of the fingerprint, upper case, into out (>= 65 bytes). */
void ksp_pgp_fpr_hex(const struct ksp_pgp_pubkey *pk, char out[65]);

/* Parse one public key packet body (tag 5, 6, 7 or 14); sets every field
 * of @pk but offset/raw_len/sigs, with body pointing into @body and
 * body_len the length of its public part.  Returns 0, -EBADMSG, or
 * -EOPNOTSUPP (unknown version; unknown algorithm of a v4 secret key). */
int ksp_pgp_parse_pubkey(const uint8_t *body, size_t len, bool secret,
			 struct ksp_pgp_pubkey *pk);
/* Fingerprint and key ID of a parsed key, from pk->body. */
int ksp_pgp_fingerprint(struct ksp_pgp_pubkey *pk);
/* Parse a signature packet body; @sig->body points into @body.  The
 * caller frees sig->regexes (ksp_pgp_sig_done).  Returns 0, -EBADMSG,
 * -EOPNOTSUPP (unknown version), -ENOMEM. */
int ksp_pgp_parse_sig(const uint8_t *body, size_t len, struct ksp_pgp_sig *sig);
void ksp_pgp_sig_done(struct ksp_pgp_sig *sig);
/* Name of a curve OID (DER content octets), NULL if unknown. */
const char *ksp_pgp_curve_name(const uint8_t *oid, size_t len, unsigned *bits);

/* ---- the reader --------------------------------------------------------- */

struct ksp_pgp_reader;

/* Returns 0, -ENOMEM; armor errors are not fatal (the block is skipped,
 * counted and logged).  @filename (may be NULL) is only used in messages. */
int ksp_pgp_reader_new(struct ksp_ctx *ctx, const uint8_t *buf, size_t len,
		       const char *filename, struct ksp_pgp_reader **ret);
/* 1 and *ret = a key (free with ksp_pgp_key_free), 0 at the end, <0 on a
 * fatal error (-ENOMEM). */
int ksp_pgp_reader_next(struct ksp_pgp_reader *rd, struct ksp_pgp_key **ret);
struct ksp_pgp_reader *ksp_pgp_reader_free(struct ksp_pgp_reader *rd);
/* The (decoded) data the offsets of packets refer to. */
const uint8_t *ksp_pgp_reader_data(const struct ksp_pgp_reader *rd, size_t *len);
bool ksp_pgp_reader_armored(const struct ksp_pgp_reader *rd);
unsigned ksp_pgp_reader_n_bad_keys(const struct ksp_pgp_reader *rd);
unsigned ksp_pgp_reader_n_skipped_packets(const struct ksp_pgp_reader *rd);
unsigned ksp_pgp_reader_n_armor_errors(const struct ksp_pgp_reader *rd);
/* Offset of the first malformed key skipped; false when none. */
bool ksp_pgp_reader_first_problem(const struct ksp_pgp_reader *rd, size_t *offset);

/* ---- a key tree (pgp-tree.c, ksp_keytree_read() in libksp.h) ------------ */

/* One file of a key tree may hold at most this much (a key with all its
 * certifications is far smaller): beyond it the tree is refused. */
#define KSP_TREE_MAX_FILE ((size_t)64 << 20)
