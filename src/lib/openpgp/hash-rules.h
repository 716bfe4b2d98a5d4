/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hash-rules.h: the hash rules of the trust models, in one place (in
 * openpgp/ so that the snapshot, wot/, and the models, trust/, share it)
 * (ksp-trust(1), "HASH RULES").  Internal to libksp.
 *
 * A third-party certification (0x10-0x13, and the 0x30 revocation of one)
 * made with MD5 counts only when MD5 is allowed; one made with SHA-1 as
 * enum ksp_sha1_rule says (gpg 2.2.18 and later: refused when made after
 * 2019-01-19, g10/sig-check.c); RIPEMD-160 is refused only by
 * KSP_SHA1_NO.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "libksp.h"

enum { KSP_HASH_KEPT = -1 }; /* else enum ksp_hash_dropped */

/* Which rule leaves out a certification made with OpenPGP hash @algo at
 * @created: KSP_HASH_KEPT, KSP_DROPPED_MD5 or KSP_DROPPED_SHA1. */
static inline int ksp_hash_rule(int algo, int64_t created, bool md5, int sha1)
{
	switch (algo) {
	case 1: /* MD5 */
		return md5 ? KSP_HASH_KEPT : KSP_DROPPED_MD5;
	case 2: /* SHA-1 */
		if (sha1 == KSP_SHA1_YES || (sha1 == KSP_SHA1_BEFORE_2019 && created <= KSP_SHA1_CUTOFF))
			return KSP_HASH_KEPT;
		return KSP_DROPPED_SHA1;
	case 3: /* RIPEMD-160 */
		return sha1 == KSP_SHA1_NO ? KSP_DROPPED_SHA1 : KSP_HASH_KEPT;
	default:
		return KSP_HASH_KEPT;
	}
}
