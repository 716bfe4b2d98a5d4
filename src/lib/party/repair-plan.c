// SPDX-License-Identifier: LGPL-2.1-or-later
/* The party as the repair of the web of trust: the repair plan 'ksp
 * health --plan-csv' writes as "# certify: SIGNER certifies TARGET" lines
 * of a registration CSV, kept by 'party add --csv' (table repair_plan,
 * schema 9), and read back for the sheet, which marks beside each signer
 * the keys they must certify. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/party/party-private.h"
#include "shared/util.h"

#define CERTIFY_TAG "# certify:"

/* One word of @p (up to @end) into @w (at most @size - 1 bytes; longer
 * words are cut, and then are no fingerprint); returns past it. */
static const char *word(const char *p, const char *end, char *w, size_t size)
{
	size_t n = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (; p < end && *p != ' ' && *p != '\t'; p++)
		if (n + 1 < size)
			w[n++] = *p;
	w[n] = '\0';
	return p;
}

int ksp_party_repair_parse(const char *line, size_t len, struct ksp_repair_pair *pair)
{
	const char *end = line + len, *p;
	char a[80], verb[16], b[80];

	if (len < strlen(CERTIFY_TAG) || memcmp(line, CERTIFY_TAG, strlen(CERTIFY_TAG)) != 0)
		return 0;
	p = word(line + strlen(CERTIFY_TAG), end, a, sizeof(a));
	p = word(p, end, verb, sizeof(verb));
	p = word(p, end, b, sizeof(b));
	if ((strcmp(verb, "certifies") != 0 && strcmp(verb, "->") != 0) || fpr_normalize(a, pair->signer) < 0 ||
	    fpr_normalize(b, pair->target) < 0 || strcmp(pair->signer, pair->target) == 0)
		return -EBADMSG;
	pair->renewal = memmem(p, (size_t)(end - p), "renewal", 7) != NULL;
	return 1;
}

int ksp_party_repair_store(struct ksp_party *party, const struct ksp_repair_pair *pairs, size_t n)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *st = NULL;
	int rc;

	if (n == 0)
		return 0;
	rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO repair_plan(signer_fpr, target_fpr, renewal, added) VALUES (?, ?, ?, ?)",
				-1, &st, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, pairs[i].signer, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, pairs[i].target, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, pairs[i].renewal);
		sqlite3_bind_int64(st, 4, (int64_t)time(NULL));
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK) {
		ksp_set_error(party->ctx, "%s: cannot record the repair plan: %s; nothing was added",
			      ksp_store_get_path(party->store), sqlite3_errmsg(db));
		return rc == SQLITE_NOMEM ? -ENOMEM : -EIO;
	}
	return 0;
}

int ksp_party_repair_load(struct ksp_party *party, struct ksp_repair_pair **ret, size_t *ret_n)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *st = NULL;
	struct ksp_repair_pair *v = NULL;
	size_t n = 0, cap = 0;
	int rc;

	*ret = NULL;
	*ret_n = 0;
	rc = sqlite3_prepare_v2(db, "SELECT signer_fpr, target_fpr, renewal FROM repair_plan ORDER BY signer_fpr, target_fpr",
				-1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0), *t = (const char *)sqlite3_column_text(st, 1);
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			struct ksp_repair_pair *nv = realloc(v, nc * sizeof(*nv));
			if (nv == NULL) {
				rc = SQLITE_NOMEM;
				break;
			}
			v = nv;
			cap = nc;
		}
		/* the store is hostile too: only fingerprints pass */
		if (s == NULL || t == NULL || fpr_normalize(s, v[n].signer) < 0 || fpr_normalize(t, v[n].target) < 0) {
			rc = SQLITE_OK;
			continue;
		}
		v[n++].renewal = sqlite3_column_int(st, 2) != 0;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		if (rc == SQLITE_NOMEM)
			return -ENOMEM;
		ksp_set_error(party->ctx, "%s: cannot read the repair plan: %s", ksp_store_get_path(party->store),
			      sqlite3_errmsg(db));
		return -EIO;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

KSP_EXPORT int ksp_party_get_repair_count(struct ksp_party *party)
{
	struct ksp_repair_pair *v = NULL;
	size_t n = 0;
	int r;

	if (party == NULL)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	r = ksp_party_repair_load(party, &v, &n);
	free(v);
	return r < 0 ? r : n > INT_MAX ? INT_MAX : (int)n;
}
