// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp party status: who has certified which user ID of whom. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "lib/party/import-private.h"
#include "lib/store/store.h"

struct st_uid {
	int64_t id;
	char *data;
	size_t len;
	bool address; /* has an e-mail address (else certified in the messages to the others) */
};

struct st_part {
	int number;
	char fpr[65];
	int64_t key_id;
	struct st_uid *uids;
	size_t n_uids;
	size_t base; /* index of the first user ID among all */
	bool noenc;  /* no usable encryption subkey when added: nothing can be sent to it */
	bool absent; /* not at the party (attendance.c) */
	bool no_address; /* no user ID with an address: nothing can be sent to it */
};

struct cell {
	uint8_t state;
	bool cert, rev;
	int64_t cert_time, rev_time;
};

struct ksp_party_status {
	struct st_part *p;
	size_t n;
	size_t n_uids;      /* over all participants */
	struct cell *cells; /* [signer * n_uids + uid] */
	uint64_t done, total;
};

/* For lookups: fingerprint -> participant, uid row id -> (participant, idx). */
struct fpr_ix {
	const char *fpr;
	size_t i;
};

struct uid_ix {
	int64_t id;
	size_t target, u;
};

static int cmp_fpr(const void *a, const void *b)
{
	return strcmp(((const struct fpr_ix *)a)->fpr, ((const struct fpr_ix *)b)->fpr);
}

static int cmp_uid(const void *a, const void *b)
{
	int64_t x = ((const struct uid_ix *)a)->id, y = ((const struct uid_ix *)b)->id;
	return x < y ? -1 : x > y;
}

KSP_EXPORT struct ksp_party_status *ksp_party_status_free(struct ksp_party_status *st)
{
	if (st == NULL)
		return NULL;
	for (size_t i = 0; i < st->n; i++) {
		for (size_t u = 0; u < st->p[i].n_uids; u++)
			free(st->p[i].uids[u].data);
		free(st->p[i].uids);
	}
	free(st->p);
	free(st->cells);
	free(st);
	return NULL;
}

static struct cell *cell_at(const struct ksp_party_status *st, size_t signer, size_t target, size_t u)
{
	return &st->cells[signer * st->n_uids + st->p[target].base + u];
}

static int load_participants(struct ksp_party *party, struct ksp_party_status *st)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *ps = NULL, *us = NULL;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(db, "SELECT p.ord, k.fpr, k.id, "
				    "instr(',' || coalesce(p.warnings, '') || ',', ',no-encryption-subkey,') > 0, "
				    "EXISTS (SELECT 1 FROM attendance a WHERE a.fpr = k.fpr AND a.absent) "
				    "FROM participants p JOIN keys k ON k.id = p.key_id ORDER BY p.ord",
				-1, &ps, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
			"SELECT id, uid, email IS NOT NULL FROM uids WHERE key_id = ? AND is_attr = 0 AND revoked = 0 "
			"ORDER BY email IS NULL, idx, id", -1, &us, NULL);
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "status");
		goto out;
	}
	while ((rc = sqlite3_step(ps)) == SQLITE_ROW) {
		struct st_part *np = realloc(st->p, (st->n + 1) * sizeof(*np)), *p;
		if (np == NULL) {
			r = -ENOMEM;
			goto out;
		}
		st->p = np;
		p = &st->p[st->n++];
		memset(p, 0, sizeof(*p));
		p->number = sqlite3_column_int(ps, 0);
		snprintf(p->fpr, sizeof(p->fpr), "%s", (const char *)sqlite3_column_text(ps, 1));
		p->key_id = sqlite3_column_int64(ps, 2);
		p->noenc = sqlite3_column_int(ps, 3) != 0;
		p->absent = sqlite3_column_int(ps, 4) != 0;
		p->base = st->n_uids;
		sqlite3_reset(us);
		sqlite3_bind_int64(us, 1, p->key_id);
		while ((rc = sqlite3_step(us)) == SQLITE_ROW) {
			struct st_uid *nu = realloc(p->uids, (p->n_uids + 1) * sizeof(*nu));
			size_t n = (size_t)sqlite3_column_bytes(us, 1);
			if (nu == NULL) {
				r = -ENOMEM;
				goto out;
			}
			p->uids = nu;
			nu = &p->uids[p->n_uids];
			nu->id = sqlite3_column_int64(us, 0);
			nu->len = n;
			nu->address = sqlite3_column_int(us, 2) != 0;
			nu->data = malloc(n + 1);
			if (nu->data == NULL) {
				r = -ENOMEM;
				goto out;
			}
			if (n)
				memcpy(nu->data, sqlite3_column_blob(us, 1), n);
			nu->data[n] = '\0';
			p->n_uids++;
			st->n_uids++;
		}
		if (rc != SQLITE_DONE) {
			r = ksp_errno_from_sqlite(party->ctx, db, rc, "status");
			goto out;
		}
		/* the addressed user IDs first: none, none has an address */
		p->no_address = p->n_uids == 0 || !p->uids[0].address;
	}
	if (rc != SQLITE_DONE)
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "status");
out:
	sqlite3_finalize(ps);
	sqlite3_finalize(us);
	return r;
}

static int find_part(const struct fpr_ix *ix, size_t n, const char *fpr, size_t *ret)
{
	struct fpr_ix key = { .fpr = fpr };
	const struct fpr_ix *hit;

	if (fpr == NULL)
		return 0;
	hit = bsearch(&key, ix, n, sizeof(*ix), cmp_fpr);
	if (hit == NULL)
		return 0;
	*ret = hit->i;
	return 1;
}

/* (Long: the participants, their certifications and revocations, what was sent, then the totals; one exit.) */
KSP_EXPORT int ksp_party_status_new(struct ksp_party *party, int64_t at, struct ksp_party_status **ret)
{
	struct ksp_party_status *st;
	struct fpr_ix *fx = NULL;
	struct uid_ix *ux = NULL;
	sqlite3 *db;
	sqlite3_stmt *cs = NULL;
	int rc, r;

	if (party == NULL || ret == NULL)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	if (at == 0)
		at = (int64_t)time(NULL);
	db = ksp_store_db(party->store);
	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return -ENOMEM;
	r = load_participants(party, st);
	if (r < 0)
		goto fail;
	st->cells = calloc(st->n * st->n_uids + 1, sizeof(*st->cells));
	fx = calloc(st->n + 1, sizeof(*fx));
	ux = calloc(st->n_uids + 1, sizeof(*ux));
	if (st->cells == NULL || fx == NULL || ux == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0, k = 0; i < st->n; i++) {
		fx[i].fpr = st->p[i].fpr;
		fx[i].i = i;
		for (size_t u = 0; u < st->p[i].n_uids; u++, k++) {
			ux[k].id = st->p[i].uids[u].id;
			ux[k].target = i;
			ux[k].u = u;
		}
	}
	qsort(fx, st->n, sizeof(*fx), cmp_fpr);
	qsort(ux, st->n_uids, sizeof(*ux), cmp_uid);

	/* verified certifications and their revocations on the party's user IDs */
	rc = sqlite3_prepare_v2(db,
		"SELECT c.uid_id, c.issuer_fpr, c.sig_type, c.created, c.expires, c.exportable FROM certs c "
		"JOIN uids u ON u.id = c.uid_id JOIN participants p ON p.key_id = u.key_id "
		"WHERE c.verified = 1 AND c.issuer_fpr IS NOT NULL", -1, &cs, NULL);
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "status");
		goto fail;
	}
	while ((rc = sqlite3_step(cs)) == SQLITE_ROW) {
		struct uid_ix key = { .id = sqlite3_column_int64(cs, 0) }, *hit;
		int type = sqlite3_column_int(cs, 2);
		int64_t created = sqlite3_column_int64(cs, 3), expires = sqlite3_column_int64(cs, 4);
		size_t signer;
		struct cell *c;

		hit = bsearch(&key, ux, st->n_uids, sizeof(*ux), cmp_uid);
		if (hit == NULL || !find_part(fx, st->n, (const char *)sqlite3_column_text(cs, 1), &signer))
			continue;
		if (signer == hit->target)
			continue;
		c = cell_at(st, signer, hit->target, hit->u);
		if (type == 0x30) {
			if (!c->rev || created > c->rev_time)
				c->rev_time = created;
			c->rev = true;
		} else if (type >= 0x10 && type <= 0x13 && sqlite3_column_int(cs, 5) &&
			   created <= at && (expires == 0 || expires > at)) {
			if (!c->cert || created > c->cert_time)
				c->cert_time = created;
			c->cert = true;
		}
	}
	if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "status");
		goto fail;
	}
	sqlite3_finalize(cs);
	cs = NULL;
	for (size_t i = 0; i < st->n; i++)
		for (size_t j = 0; j < st->n; j++)
			for (size_t u = 0; u < st->p[j].n_uids; u++) {
				struct cell *c = cell_at(st, i, j, u);
				if (i == j)
					c->state = KSP_CERT_SELF;
				else if (c->cert && (!c->rev || c->cert_time > c->rev_time))
					c->state = KSP_CERT_DONE;
			}

	/* what this store's user signed with 'party sign' and sent */
	rc = sqlite3_prepare_v2(db, "SELECT s.signer_fpr, s.key_id, s.uid, coalesce(d.state, 'unknown') IN ('written', 'failed') "
				    "FROM signed s LEFT JOIN deliveries d ON d.signed_id = s.id", -1, &cs, NULL);
	if (rc != SQLITE_OK) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "status");
		goto fail;
	}
	while ((rc = sqlite3_step(cs)) == SQLITE_ROW) {
		int64_t key_id = sqlite3_column_int64(cs, 1);
		const void *b = sqlite3_column_blob(cs, 2);
		size_t n = (size_t)sqlite3_column_bytes(cs, 2), signer;

		if (!find_part(fx, st->n, (const char *)sqlite3_column_text(cs, 0), &signer))
			continue;
		for (size_t j = 0; j < st->n; j++) {
			if (st->p[j].key_id != key_id || j == signer)
				continue;
			for (size_t u = 0; u < st->p[j].n_uids; u++) {
				struct cell *c = cell_at(st, signer, j, u);
				/* a user ID without an address goes in the message to the key's
				 * address: it fares as that message does */
				bool same = st->p[j].uids[u].len == n && (n == 0 || memcmp(st->p[j].uids[u].data, b, n) == 0);
				if ((same || !st->p[j].uids[u].address) && c->state == KSP_CERT_MISSING)
					c->state = sqlite3_column_int(cs, 3) ? KSP_CERT_UNSENT : KSP_CERT_SENT;
			}
		}
	}
	if (rc != SQLITE_DONE) {
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "status");
		goto fail;
	}
	/* a key nothing can be sent to: out of the totals, unless done anyway */
	for (size_t i = 0; i < st->n; i++)
		for (size_t j = 0; j < st->n; j++) {
			if (i == j)
				continue;
			for (size_t u = 0; u < st->p[j].n_uids; u++) {
				struct cell *c = cell_at(st, i, j, u);
				if ((st->p[j].noenc || st->p[j].no_address) && c->state == KSP_CERT_MISSING)
					c->state = KSP_CERT_UNDELIVERABLE;
				/* not at the party: nothing was checked, nothing is owed */
				if ((st->p[i].absent || st->p[j].absent) &&
				    (c->state == KSP_CERT_MISSING || c->state == KSP_CERT_UNDELIVERABLE))
					c->state = KSP_CERT_ABSENT;
				st->total += c->state != KSP_CERT_UNDELIVERABLE && c->state != KSP_CERT_ABSENT;
				st->done += c->state == KSP_CERT_DONE;
			}
		}
	sqlite3_finalize(cs);
	free(fx);
	free(ux);
	*ret = st;
	return 0;
fail:
	sqlite3_finalize(cs);
	free(fx);
	free(ux);
	ksp_party_status_free(st);
	if (!ksp_get_error(party->ctx))
		ksp_set_error(party->ctx, "%s: cannot compute the status: %s", ksp_store_get_path(party->store), strerror(-r));
	return r;
}

KSP_EXPORT size_t ksp_party_status_get_count(const struct ksp_party_status *st)
{
	return st ? st->n : 0;
}

KSP_EXPORT int ksp_party_status_get_number(const struct ksp_party_status *st, size_t i)
{
	return st && i < st->n ? st->p[i].number : 0;
}

KSP_EXPORT const char *ksp_party_status_get_fingerprint(const struct ksp_party_status *st, size_t i)
{
	return st && i < st->n ? st->p[i].fpr : NULL;
}

KSP_EXPORT size_t ksp_party_status_get_uid_count(const struct ksp_party_status *st, size_t i)
{
	return st && i < st->n ? st->p[i].n_uids : 0;
}

KSP_EXPORT const char *ksp_party_status_get_uid(const struct ksp_party_status *st, size_t i, size_t u,
						size_t *len)
{
	if (st == NULL || i >= st->n || u >= st->p[i].n_uids)
		return NULL;
	if (len)
		*len = st->p[i].uids[u].len;
	return st->p[i].uids[u].data;
}

KSP_EXPORT int ksp_party_status_get_cert(const struct ksp_party_status *st, size_t signer, size_t target,
					 size_t u)
{
	if (st == NULL || signer >= st->n || target >= st->n || u >= st->p[target].n_uids)
		return -EINVAL;
	return cell_at(st, signer, target, u)->state;
}

KSP_EXPORT int ksp_party_status_get_pair(const struct ksp_party_status *st, size_t signer, size_t target)
{
	size_t d = 0, s = 0, w = 0, n;

	if (st == NULL || signer >= st->n || target >= st->n)
		return -EINVAL;
	if (signer == target)
		return KSP_CERT_SELF;
	n = st->p[target].n_uids;
	if (n == 0) /* no user ID: nothing to certify, nothing certified */
		return KSP_CERT_UNDELIVERABLE;
	for (size_t u = 0; u < n; u++) {
		int c = cell_at(st, signer, target, u)->state;
		d += c == KSP_CERT_DONE;
		s += c == KSP_CERT_SENT;
		w += c == KSP_CERT_UNSENT;
	}
	if (d == n)
		return KSP_CERT_DONE;
	if (d + s == n)
		return KSP_CERT_SENT;
	if (d + s + w == n)
		return KSP_CERT_UNSENT;
	if ((st->p[target].absent || st->p[signer].absent) && d + s + w == 0)
		return KSP_CERT_ABSENT;
	if ((st->p[target].noenc || st->p[target].no_address) && d + s + w == 0)
		return KSP_CERT_UNDELIVERABLE;
	if (d > 0)
		return KSP_CERT_PARTIAL;
	return KSP_CERT_MISSING;
}

KSP_EXPORT uint64_t ksp_party_status_get_done(const struct ksp_party_status *st)
{
	return st ? st->done : 0;
}

KSP_EXPORT uint64_t ksp_party_status_get_total(const struct ksp_party_status *st)
{
	return st ? st->total : 0;
}

KSP_EXPORT bool ksp_party_status_is_deliverable(const struct ksp_party_status *st, size_t i)
{
	return st && i < st->n && !st->p[i].noenc;
}

KSP_EXPORT bool ksp_party_status_is_absent(const struct ksp_party_status *st, size_t i)
{
	return st && i < st->n && st->p[i].absent;
}

KSP_EXPORT bool ksp_party_status_uid_has_address(const struct ksp_party_status *st, size_t i, size_t u)
{
	return st && i < st->n && u < st->p[i].n_uids && st->p[i].uids[u].address;
}
