// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gnupg-uidexp.c: when the self-signature of each user ID of a key
 * expires, for GnuPG's model (trust-gnupg.c).  GnuPG takes a user ID's
 * newest valid self-signature (getkey.c merge_selfsigs_main()) and, when
 * that signature has expired by "now" (parse-packet.c: expiredate <= now),
 * the user ID is expired: its certifications count for nothing
 * (trustdb.c validate_one_keyblock()).  The store keeps the creation time
 * of the newest valid self-signature (uids.selfsig) and the key as read
 * (keys.keydata); the signature's expiry is read from there: the
 * self-certification of that user ID made at that time (the last one in
 * the key when several are).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/libksp-private.h"
#include "lib/openpgp/pgp.h"
#include "lib/store/store-verify.h"
#include "lib/trust/gnupg-uidexp.h"

static bool self_issued(const struct ksp_pgp_key *k, const struct ksp_pgp_sig *s)
{
	if (s->issuer_fpr_version && s->issuer_fpr_len == k->primary.fpr_len)
		return memcmp(s->issuer_fpr, k->primary.fpr, k->primary.fpr_len) == 0;
	return s->has_issuer && memcmp(s->issuer, k->primary.keyid, 8) == 0;
}

/* The expiry of the self-certification of @uid made at @selfsig, 0 none. */
static int64_t uid_expiry(const struct ksp_pgp_key *k, const void *uid, size_t len, int64_t selfsig)
{
	int64_t exp = 0;

	for (size_t i = 0; i < k->n_uids; i++) {
		const struct ksp_pgp_uid *u = &k->uids[i];

		if (u->attribute || u->len != len || (len && memcmp(u->data, uid, len) != 0))
			continue;
		for (size_t j = 0; j < u->n_sigs; j++) {
			const struct ksp_pgp_sig *s = &u->sigs[j];

			if (s->type < 0x10 || s->type > 0x13 || s->created != selfsig || !self_issued(k, s))
				continue;
			exp = s->expires ? (int64_t)s->created + s->expires : 0;
		}
	}
	return exp;
}

struct uidexp_walk {
	struct ksp_ctx *ctx;
	struct ksp_pgp_reader *rd;
	struct ksp_pgp_key *k;
	struct ksp_gnupg_uidexp *out;
	size_t n, cap;
};

/* The key in its stored data (keys.keydata); none in it: no expiry known. */
static int read_key(const uint8_t *data, size_t len, void *arg)
{
	struct uidexp_walk *w = arg;
	int r;

	r = ksp_pgp_reader_new(w->ctx, data, len, "keys.keydata", &w->rd);
	if (r == 0)
		r = ksp_pgp_reader_next(w->rd, &w->k);
	return r < 0 ? r : 0;
}

/* One self-signed user ID: its expiry kept when it has one. */
static int add_uid(int64_t uid_id, const void *uid, size_t len, int64_t selfsig, void *arg)
{
	struct uidexp_walk *w = arg;
	int64_t exp = uid_expiry(w->k, uid, len, selfsig);

	if (exp == 0)
		return 0;
	if (w->n == w->cap) {
		size_t nc = w->cap ? 2 * w->cap : 4;
		void *p = realloc(w->out, nc * sizeof(*w->out));
		if (p == NULL)
			return -ENOMEM;
		w->out = p;
		w->cap = nc;
	}
	w->out[w->n++] = (struct ksp_gnupg_uidexp){ .uid_id = uid_id, .expires = exp };
	return 0;
}

int ksp_gnupg_uid_expiries(struct ksp_ctx *ctx, struct ksp_store *store, int64_t key_id,
			   struct ksp_gnupg_uidexp **ret, size_t *n_ret)
{
	struct uidexp_walk w = { .ctx = ctx };
	int r;

	*ret = NULL;
	*n_ret = 0;
	r = ksp_store_with_keydata(store, key_id, read_key, &w);
	if (r == 0 && w.k)
		r = ksp_store_each_selfsigned_uid(store, key_id, add_uid, &w);
	ksp_pgp_key_free(w.k);
	ksp_pgp_reader_free(w.rd);
	if (r < 0) {
		free(w.out);
		return r;
	}
	*ret = w.out;
	*n_ret = w.n;
	return 0;
}
