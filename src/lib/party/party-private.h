/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include "lib/libksp-private.h"

struct ksp_party {
	int refcount;
	struct ksp_store *store;
	struct ksp_ctx *ctx; /* borrowed from the store */
	char *name;
	char *date;
	char *location;
	char *organizer;
	int64_t date_t;
	bool closed;
	int list_version;
	char *keyserver; /* ksp_party_set_keyserver(), or NULL */
};

/* one key's verdict of 'party add' (party-add.c) */
struct ksp_key_check {
	char fpr[65];
	bool accepted;
	unsigned int problems;
	int number;
	char message[512];
};

/* keyserver.c: keys fetched by fingerprint from @url through dirmngr in a
 * private GnuPG home; each one not received is reported to @cb (refused:
 * KSP_CHECK_NO_KEY, or KSP_CHECK_NO_USER_ID).  The keys received, as one
 * key file, into *@ret (gpgme_free() it); returns how many were received. */
struct ksp_party_fetch {
	struct ksp_party *party;
	const char *url;
	void (*cb)(void *cb_data, const struct ksp_key_check *check);
	void *cb_data;
};
int ksp_party_keyserver_fetch(struct ksp_party_fetch *f, const char (*fprs)[65], size_t n, char **ret, size_t *ret_len);

int ksp_party_reload(struct ksp_party *party);
int ksp_party_event(struct ksp_party *party, const char *what, const char *detail);
int ksp_party_require_open(struct ksp_party *party);
/* "rsa3072", "ed25519", ... into buf */
void ksp_algo_name(int algo, int bits, const char *curve, char *buf, size_t size);
struct strbuf;
/* The canonical list text of the current participants as @version. */
int ksp_party_list_text(struct ksp_party *party, int version, struct strbuf *sb);
/* freeze.c: the @algo (libgcrypt) digest of @data in lower-case hex into
 * @out (2 * its length + 1). */
void ksp_party_digest_hex(int algo, const void *data, size_t len, char *out);
/* freeze.c: stores list version @version (its canonical @text of @len
 * bytes, @sha and @rmd its SHA-256 and RIPEMD-160 in hex) with the
 * participants as its members, and marks the party closed; inside the
 * caller's transaction.  Returns 0 or a negative errno, the error set on
 * an SQL failure (@what names the action: "close", "join"). */
int ksp_party_store_list(struct ksp_party *party, int version, const void *text, size_t len,
			 const char *sha, const char *rmd, const char *what);
/* ksp_party_add() inside the caller's transaction, without the open check. */
int ksp_party_add_data(struct ksp_party *party, const void *data, size_t len, const char *source,
		       unsigned int flags, void (*cb)(void *, const struct ksp_key_check *), void *cb_data);
/* ksp_party_sign() with, per target, the user IDs to sign (@uids[t]: their
 * text escaped for a terminal as the list prints it, NULL-terminated; NULL
 * or @uids NULL: all of them): 'party sign --ticked' (checklist.c). */
int ksp_party_sign_uids(struct ksp_party *party, const char *signer_fpr, const char *const *targets,
			const char *const *const *uids, size_t n_targets, const struct ksp_sign_opts *opts,
			const char *outbox, unsigned int flags,
			void (*cb)(void *cb_data, const struct ksp_sign_result *result), void *cb_data);
/* rsvp.c: when @data is a mail (a From: header) with no key block, sets
 * the error naming the sender (and the fingerprint it holds, into @fpr,
 * "" when none) and returns 1; else 0. */
int ksp_party_mail_without_key(struct ksp_ctx *ctx, const void *data, size_t len, const char *source, char fpr[65]);
/* Run @mailer (sh -c) with @file on its standard input (deliver.c; also
 * used by remind.c).  Its exit status (128+N for signal N), or -errno
 * when it could not run; a failure is described in @why. */
int ksp_party_run_mailer(const char *mailer, const char *file, char *why, size_t whylen);
#include "lib/party/repair-plan.h"
