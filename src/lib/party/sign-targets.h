/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which keys a 'party sign' run certifies (sign-targets.c): the members of
 * the frozen list asked for, or the keys holding a weak certification by
 * the signer to re-make.  Internal to libksp. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

struct ksp_ctx;
struct ksp_party;
struct sqlite3;

/* A certification the signer must re-make (KSP_SIGN_RESIGN_WEAK): a
 * verified MD5/SHA-1/RIPEMD-160 certification by the signer, not expired,
 * not revoked by the signer since, and no modern one by the signer beside
 * it.  ?1 the signer, ?2 the time; c the certification, u its user ID. */
#define WEAK_CERT                                                                                       \
	"c.issuer_fpr = ?1 AND c.verified = 1 AND c.sig_type BETWEEN 16 AND 19 AND c.hash_algo IN (1, 2, 3) " \
	"AND (c.expires = 0 OR c.expires > ?2) AND u.is_attr = 0 AND NOT EXISTS (SELECT 1 FROM certs d "      \
	"WHERE d.uid_id = c.uid_id AND d.issuer_fpr = ?1 AND d.verified = 1 AND ((d.sig_type BETWEEN 16 AND " \
	"19 AND d.hash_algo NOT IN (1, 2, 3)) OR (d.sig_type = 48 AND d.created >= c.created)))"

struct sign_target {
	int number; /* on the list; 0 for a weak certification's key */
	char fpr[65];
	const char *const *uids; /* NULL: every user ID; else only these (escaped text, NULL-terminated) */
};

/* The run asking. */
struct sign_targets_of {
	struct ksp_party *party;
	struct ksp_ctx *ctx;
	struct sqlite3 *db;
	const char *fpr; /* the signer's */
	int version;     /* the frozen list version */
	bool weak;       /* KSP_SIGN_RESIGN_WEAK */
	/* told of each target left out: KSP_SIGN_REFUSED or KSP_SIGN_ABSENT,
	 * its list number (0 if none) and fingerprint ("" if none) */
	void (*left_out)(void *data, int status, int number, const char *fpr, const char *message);
	void *data;
};

/* The keys of @n @targets (list numbers or fingerprints; each with the user
 * IDs @uids[t], or @uids NULL), or all candidates when @n is 0 (never the
 * signer's own key).  What is not a candidate is told to left_out(); a
 * target that is neither a number nor a fingerprint is an error.  *ret
 * (malloc'ed) borrows the fingerprints' user IDs from @uids.  Returns 0,
 * -EINVAL or a store error. */
int ksp_sign_targets(const struct sign_targets_of *w, const char *const *targets, const char *const *const *uids,
		     size_t n, struct sign_target **ret, size_t *ret_n);
