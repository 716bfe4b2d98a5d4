/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * import-private.h: helpers shared by the after-the-party code (party-sign.c,
 * import.c, party-status.c, party-export.c; defined in import-util.c).
 * The ones other folders may use are declared in import-util.h.  Internal
 * to libksp.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <gpgme.h>

#include "lib/libksp-private.h"
#include "lib/party/party-private.h"
#include "lib/openpgp/pgp.h"
#include "lib/party/import-util.h"
#include "shared/strbuf.h"

/* A certification (0x10-0x13) or a certification revocation (0x30). */
static inline bool ksp_pgp_sig_is_cert(const struct ksp_pgp_sig *s)
{
	return (s->type >= 0x10 && s->type <= 0x13) || s->type == 0x30;
}

/* Parse the transferable public key stored for @fpr (keys.keydata): the
 * key of that fingerprint in it, or with @first whatever key comes first
 * (to check that it is the right one).  Returns 1 and *ret (free with
 * ksp_pgp_key_free), 0 when the store has no such key data, <0 on error.
 * *ret_key_id (may be NULL) gets keys.id. */
int ksp_store_load_key(struct ksp_store *store, const char *fpr, bool first, int64_t *ret_key_id,
		       struct ksp_pgp_key **ret);
/* The participant number of @fpr on the current list, 0 if none, <0 error. */
int ksp_party_number_of(struct ksp_party *party, const char *fpr);

/* The SHA-1 of a signature body in hex: certs.digest. */
void ksp_sig_digest_hex(const struct ksp_pgp_sig *s, char out[41]);
