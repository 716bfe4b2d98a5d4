// SPDX-License-Identifier: LGPL-2.1-or-later
/* pgp-verify.c: placeholder while the libgcrypt verifier is written. */
#include <errno.h>
#include "lib/libksp-private.h"
#include "lib/pgp-verify.h"

int ksp_pgp_verify_uid_sig(const struct ksp_pgp_pubkey *signer, const struct ksp_pgp_pubkey *target,
			   const struct ksp_pgp_uid *uid, const struct ksp_pgp_sig *sig)
{
	return KSP_VERIFY_UNSUPPORTED;
}

int ksp_pgp_verify_key_sig(const struct ksp_pgp_pubkey *signer, const struct ksp_pgp_pubkey *primary,
			   const struct ksp_pgp_pubkey *subkey, const struct ksp_pgp_sig *sig)
{
	return KSP_VERIFY_UNSUPPORTED;
}
