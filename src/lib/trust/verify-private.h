/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* verify-private.h: the verdict on a signature, shared by verify.c (gpgme)
 * and verify-native.c (libksp's own verifier).  Internal to libksp. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksp_verify_result {
	int status;
	char message[600];
	char issuer[65];      /* as the signature names it: fingerprint or key ID */
	char signer[65];      /* primary key of the store */
	char signing_key[65]; /* the (sub)key gpg says signed */
	bool subkey;
	int64_t created;
	unsigned int summary;
	int validity;
	char *uid;
	size_t uid_len;
	char *plaintext; /* a signed message's text (ksp_verify_inline), or NULL */
	size_t plaintext_len;
};
