/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * import-util.h: the OpenPGP helpers of import-util.c that code outside
 * party/ may use (trust/verify.c, trust/verify-native.c): a gpgme context
 * in a given home, a signature's issuer, whether a signature is a key's
 * own, and a key's packets written back.  What only party/ uses stays in
 * import-private.h.  Internal to libksp.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpgme.h>

#include "lib/libksp-private.h"
#include "lib/openpgp/pgp.h"
#include "shared/strbuf.h"

/* A gpgme context for OpenPGP in @home (NULL: gpg's default home), offline.
 * @loopback selects loopback pinentry (private temporary homes). */
int ksp_after_gpgme_new(struct ksp_ctx *ctx, const char *home, bool loopback, gpgme_ctx_t *ret);

/* Was @s made by the key @k itself (issuer fingerprint, else key ID)? */
bool ksp_pgp_sig_is_self(const struct ksp_pgp_key *k, const struct ksp_pgp_sig *s);
/* The issuer of @s as hex: fingerprint ("" when the signature names none)
 * and key ID (v4: the last 16 digits of a fingerprint, v5/v6: the first
 * 16; "" when none).  Returns false when the signature names no issuer. */
bool ksp_pgp_sig_issuer(const struct ksp_pgp_sig *s, char fpr[65], char keyid[17]);

/* Append one packet (new format header + body). */
void ksp_pgp_emit(struct strbuf *sb, uint8_t tag, const uint8_t *body, size_t len);
/* Append the primary key with its self-signatures, and every subkey with
 * its signatures (packets rebuilt from the parsed bodies). */
void ksp_pgp_emit_primary(struct strbuf *sb, const struct ksp_pgp_key *k);
void ksp_pgp_emit_subkeys(struct strbuf *sb, const struct ksp_pgp_key *k);
