/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wot-cert.h: the one writer of a third-party certification (table
 * certs), for the web-of-trust loader (wot-load.c) and the party's import
 * of signed keys (party/import.c).  Internal to libksp.
 */
#pragma once

#include <stdint.h>

#include <sqlite3.h>

#include "lib/openpgp/pgp.h"

/* Prepare it once per writer; a certification stored already (same user
 * ID, same packet digest) is left as it is. */
#define KSP_WOT_CERT_INSERT                                                                                    \
	"INSERT OR IGNORE INTO certs(uid_id, issuer_fpr, issuer_keyid, sig_type, pk_algo, hash_algo, created, " \
	"expires, exportable, trust_depth, trust_amount, verified, sigdata, digest, regex) "                   \
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"

/* Bind certification @s of user ID @uid_id to @st (KSP_WOT_CERT_INSERT,
 * reset): its issuer's fingerprint @fpr (NULL: not known) and key ID @kid,
 * the verdict @verified (enum ksp_verify_status), the SHA-1 @digest of its
 * packet, and the trust signature's first regular expression as given.
 * The strings must live until the statement is stepped. */
void ksp_wot_cert_bind(sqlite3_stmt *st, int64_t uid_id, const struct ksp_pgp_sig *s, const char *fpr,
		       const char *kid, int verified, const char *digest);
