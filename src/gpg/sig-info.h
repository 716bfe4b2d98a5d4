/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sig-info.h: what an OpenPGP signature says about itself, for the fields
 * of gpg's status lines (ERRSIG, VALIDSIG) that libksp's verdict does not
 * carry: algorithms, class, version, times, issuer.  Reads the first
 * signature packet of a detached signature, a signed message (one-pass
 * signature and literal data; a compressed message is not looked into) or
 * a cleartext-signed message, armored or binary.  Nothing is verified here.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sig_info {
	bool found;     /* a signature packet was read */
	bool armored;   /* -----BEGIN PGP ...----- seen */
	bool cleartext; /* -----BEGIN PGP SIGNED MESSAGE----- */
	bool literal;   /* a literal data packet: a signed message */
	bool opaque;    /* compressed or encrypted packets follow */
	int version, type, pk_algo, hash_algo;
	int64_t created;
	int64_t expires; /* absolute; 0: never */
	char keyid[17];  /* "" when the signature does not name it */
	char fpr[65];    /* issuer fingerprint subpacket, or "" */
};

/* Fills *si; returns 0, or -EBADMSG when no OpenPGP packet could be read
 * (garbage, damaged armor), -ENOMEM. */
int sig_info_read(const uint8_t *in, size_t len, struct sig_info *si);
/* gpg's long key ID of a fingerprint (v4: the last 16 digits, v5/v6 the
 * first 16) into out[17]. */
void sig_info_keyid_of(const char *fpr, char out[17]);
