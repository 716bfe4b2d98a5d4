// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ksp party sign: which keys a run certifies (sign-targets.h).  Apart from
 * party-sign.c because it only reads the store (the frozen list, the
 * certifications) and knows nothing of the private GnuPG home, the
 * signing or the outbox that party-sign.c holds together.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/party/sign-targets.h"
#include "shared/util.h"

static void left_out(const struct sign_targets_of *s, int status, int number, const char *fpr, const char *fmt, ...)
	_printf_format_(5, 6);
static void left_out(const struct sign_targets_of *s, int status, int number, const char *fpr, const char *fmt, ...)
{
	char message[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	if (s->left_out)
		s->left_out(s->data, status, number, fpr, message);
}

/* The keys to certify: of the candidates (the rows of @st: number, fpr),
 * those asked for (@targets, each with its user IDs @uids[t] or NULL), or
 * all of them when none is asked for.  @list: the candidates are the
 * members of the frozen list (a target may be its number on the list;
 * with none asked for, participants recorded absent are left out); else
 * the keys holding a certification by the signer to re-make
 * (KSP_SIGN_RESIGN_WEAK; targets by fingerprint).  @what names the table in
 * errors.  What is not a candidate is reported as refused. */
static int resolve_targets(const struct sign_targets_of *s, sqlite3_stmt *st, bool list, const char *what,
			   const char *const *targets, const char *const *const *uids, size_t n,
			   struct sign_target **ret, size_t *ret_n)
{
	struct sign_target *all = NULL, *v = NULL;
	size_t nall = 0, nv = 0;
	int rc, r = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct sign_target *na = realloc(all, (nall + 1) * sizeof(*na));
		if (na == NULL) {
			r = -ENOMEM;
			goto out;
		}
		all = na;
		all[nall].number = sqlite3_column_int(st, 0);
		snprintf(all[nall].fpr, sizeof(all[nall].fpr), "%s", (const char *)sqlite3_column_text(st, 1));
		all[nall].uids = NULL;
		nall++;
	}
	if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(s->ctx, s->db, rc, what);
		goto out;
	}
	v = calloc(n + nall + 1, sizeof(*v));
	if (v == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nall && n == 0; i++) {
		if (strcmp(all[i].fpr, s->fpr) == 0)
			continue;
		r = list ? ksp_party_is_absent(s->party, all[i].fpr) : 0;
		if (r < 0)
			goto out;
		if (r > 0) { /* not at the party: not checked */
			left_out(s, KSP_SIGN_ABSENT, all[i].number, all[i].fpr, "skipped: absent from the party (recorded with 'ksp party absent'), so not checked there");
			continue;
		}
		v[nv++] = all[i];
	}
	r = 0;
	for (size_t t = 0; t < n; t++) {
		char fpr[65], *end;
		long num = strtol(targets[t], &end, 10);
		struct sign_target *hit = NULL;

		if (list && *targets[t] != '\0' && *end == '\0' && num > 0) {
			for (size_t i = 0; i < nall; i++)
				if (all[i].number == num)
					hit = &all[i];
			if (hit == NULL) {
				left_out(s, KSP_SIGN_REFUSED, (int)num, "", "refused: there is no number %ld on the frozen list (version %d)",
				       num, s->version);
				continue;
			}
		} else {
			if (fpr_normalize(targets[t], fpr) < 0) {
				if (list)
					ksp_set_error(s->ctx, "'%s' is neither a number on the list nor a full fingerprint (40 or 64 hex digits); key IDs are not accepted",
						      targets[t]);
				else
					ksp_set_error(s->ctx, "'%s' is not a full fingerprint (40 or 64 hex digits); name the keys to certify again by their fingerprints ('ksp health --weak --signer FPR' lists them)",
						      targets[t]);
				r = -EINVAL;
				goto out;
			}
			for (size_t i = 0; i < nall; i++)
				if (strcmp(all[i].fpr, fpr) == 0)
					hit = &all[i];
			if (hit == NULL) {
				if (list)
					left_out(s, KSP_SIGN_REFUSED, 0, fpr, "refused: not on the frozen list (version %d); sign only keys checked at the party",
					       s->version);
				else
					left_out(s, KSP_SIGN_REFUSED, 0, fpr, "refused: %s",
					       strcmp(fpr, s->fpr) == 0 ? "that is your own key"
									: "the store holds no MD5/SHA-1/RIPEMD-160 certification of yours on it to make again");
				continue;
			}
		}
		if (strcmp(hit->fpr, s->fpr) == 0) {
			left_out(s, KSP_SIGN_REFUSED, hit->number, hit->fpr, "refused: that is your own key");
			continue;
		}
		bool dup = false;
		for (size_t i = 0; i < nv; i++)
			dup |= strcmp(v[i].fpr, hit->fpr) == 0;
		if (!dup) {
			v[nv] = *hit;
			v[nv++].uids = uids ? uids[t] : NULL;
		}
	}
	*ret = v;
	*ret_n = nv;
	v = NULL;
out:
	free(all);
	free(v);
	return r;
}

/* ksp_sign_targets(): the candidates of resolve_targets() are the members of the newest frozen
 * list, or (KSP_SIGN_RESIGN_WEAK) the keys holding a weak certification by
 * the signer. */
int ksp_sign_targets(const struct sign_targets_of *s, const char *const *targets, const char *const *const *uids,
		     size_t n, struct sign_target **ret, size_t *ret_n)
{
	bool weak = s->weak;
	const char *what = weak ? "certs" : "list";
	sqlite3_stmt *st = NULL;
	int rc, r;

	if (weak) {
		rc = sqlite3_prepare_v2(s->db,
					"SELECT DISTINCT 0, k.fpr FROM keys k JOIN uids u ON u.key_id = k.id JOIN certs c ON c.uid_id = u.id "
					"WHERE " WEAK_CERT " AND k.fpr != ?1 ORDER BY k.fpr",
					-1, &st, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_bind_text(st, 1, s->fpr, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
		}
	} else {
		rc = sqlite3_prepare_v2(s->db, "SELECT ord, fpr FROM list_members WHERE version = ? ORDER BY ord", -1, &st,
					NULL);
		if (rc == SQLITE_OK)
			sqlite3_bind_int(st, 1, s->version);
	}
	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(s->ctx, s->db, rc, what);
	r = resolve_targets(s, st, !weak, what, targets, weak ? NULL : uids, n, ret, ret_n);
	sqlite3_finalize(st);
	return r;
}
