// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * verify-common.c: the checks and verdicts that verify.c (gpgme) and
 * verify-native.c (libksp's own verifier) share, so that both say the same
 * thing in the same words: when the (sub)key was valid, revocations, an
 * expired signature, a good one (verify-private.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <libksp.h>

#include "lib/libksp-private.h"
#include "lib/trust/verify-private.h"
#include "shared/util.h"

KSP_EXPORT struct ksp_verify_result *ksp_verify_result_free(struct ksp_verify_result *res)
{
	if (res) {
		free(res->uid);
		free(res->plaintext);
		free(res);
	}
	return NULL;
}

void ksp_verify_set_msg(struct ksp_verify_result *res, int status, const char *fmt, ...)
{
	va_list ap;

	res->status = status;
	va_start(ap, fmt);
	vsnprintf(res->message, sizeof(res->message), fmt, ap);
	va_end(ap);
}

const char *ksp_verify_reason_name(int code)
{
	switch (code) {
	case 0:
		return "no reason given";
	case 1:
		return "superseded";
	case 2:
		return "key compromised";
	case 3:
		return "retired";
	case 32:
		return "user ID no longer valid";
	default:
		return "unknown reason";
	}
}

void ksp_verify_revocation_why(int code, int64_t when, char *buf, size_t size)
{
	char date[32];

	format_datetime(when, date, sizeof(date));
	snprintf(buf, size, "%s, %s", ksp_verify_reason_name(code), date);
}

void ksp_verify_set_revoked(struct ksp_verify_result *res, const char *date, bool subkey, const char *signing,
			    const char *owner, const char *why)
{
	if (subkey)
		ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_REVOKED, "signed on %s by subkey %s of %s, a revoked subkey (%s)",
				   date, signing, owner, why);
	else
		ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_REVOKED, "signed on %s by %s, a revoked key (%s)", date, owner,
				   why);
}

bool ksp_verify_key_valid_at(struct ksp_verify_result *res, int64_t when, const char *date, bool subkey,
			     const char *fpr, int64_t created, int64_t expires)
{
	char d2[32];

	if (created > 0 && (when < created || created > (int64_t)time(NULL))) {
		/* gpg: "public key ... is newer than the signature", ERRSIG
		 * (time conflict), exit 2: nothing is said about the data */
		format_datetime(created, d2, sizeof(d2));
		ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_UNUSABLE,
				   "not checked: signed on %s by %s%s, which was only made on %s (a time conflict; gpg refuses it too)",
				   date, subkey ? "subkey " : "", fpr, d2);
		res->errsig = KSP_ERRSIG_TIME_CONFLICT;
		return false;
	}
	if (expires > 0 && when >= expires) {
		format_datetime(expires, d2, sizeof(d2));
		ksp_verify_set_msg(res, KSP_SIGNATURE_KEY_EXPIRED, "signed on %s by %s%s, which had expired on %s", date,
				   subkey ? "subkey " : "", fpr, d2);
		return false;
	}
	return true;
}

bool ksp_verify_sig_expired(struct ksp_verify_result *res, const char *owner, int64_t expires_at, bool expired)
{
	char d2[32];

	if (!expired && !(expires_at && expires_at <= (int64_t)time(NULL)))
		return false;
	format_datetime(expires_at, d2, sizeof(d2));
	ksp_verify_set_msg(res, KSP_SIGNATURE_EXPIRED, "the signature by %s expired on %s", owner, d2);
	return true;
}

void ksp_verify_set_good(struct ksp_verify_result *res, const char *owner, bool subkey, const char *signing,
			 const char *date)
{
	if (subkey)
		ksp_verify_set_msg(res, KSP_SIGNATURE_GOOD, "good signature by %s (subkey %s), made %s", owner, signing,
				   date);
	else
		ksp_verify_set_msg(res, KSP_SIGNATURE_GOOD, "good signature by %s, made %s", owner, date);
}
