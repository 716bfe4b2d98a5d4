// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A participant's own store from the announced list and the party keyring.
 *
 * The list file is the canonical text 'party close' froze (freeze.c).  Its
 * header gives the party; its entries the fingerprints in list order.  The
 * keys come from the keyring ('party export') through the same checks as
 * 'party add'; the store then regenerates the canonical text for that list
 * version, and the join stands only if those bytes are the file's bytes:
 * the same fingerprints, algorithms, dates and user IDs, in the same order.
 * All in one transaction: on any mismatch nothing is stored.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gcrypt.h>
#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/party/party-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"

#define LIST_MAGIC "OpenPGP key-signing party: participant list\n\n"

struct listed {
	int number;
	char fpr[65];
};

struct parsed_list {
	char *name;
	char *date;
	char *location;
	char organizer[65];
	int version;
	size_t n;
	struct listed *v;
};

static void parsed_clear(struct parsed_list *pl)
{
	free(pl->name);
	free(pl->date);
	free(pl->location);
	free(pl->v);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void add_utf8(struct strbuf *sb, unsigned long cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (char)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (char)(0xC0 | (cp >> 6)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (char)(0xE0 | (cp >> 12)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3F)));
	} else {
		strbuf_addch(sb, (char)(0xF0 | (cp >> 18)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 12) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3F)));
	}
}

/* The inverse of ksp_escape(KSP_ESCAPE_TERMINAL): \\, \xNN, \u{XXXX}.
 * Whatever it gets wrong, the comparison of the regenerated text finds. */
static char *unescape(const char *s, size_t n)
{
	struct strbuf sb;

	strbuf_init(&sb);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\\') {
			strbuf_addch(&sb, '\\');
			i++;
		} else if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' && hexval(s[i + 2]) >= 0 &&
			   hexval(s[i + 3]) >= 0) {
			strbuf_addch(&sb, (char)(hexval(s[i + 2]) * 16 + hexval(s[i + 3])));
			i += 3;
		} else if (s[i] == '\\' && i + 2 < n && s[i + 1] == 'u' && s[i + 2] == '{') {
			unsigned long cp = 0;
			size_t j = i + 3;
			while (j < n && j < i + 10 && hexval(s[j]) >= 0)
				cp = cp * 16 + (unsigned long)hexval(s[j++]);
			if (j < n && s[j] == '}' && j > i + 3 && cp <= 0x10FFFF) {
				add_utf8(&sb, cp);
				i = j;
			} else {
				strbuf_addch(&sb, s[i]);
			}
		} else {
			strbuf_addch(&sb, s[i]);
		}
	}
	if (!strbuf_ok(&sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_steal(&sb);
}

/* A header line "KEY VALUE": the value (after the key and its padding). */
static bool header(const char *line, size_t len, const char *key, const char **val, size_t *vlen)
{
	size_t k = strlen(key);

	if (len < k || memcmp(line, key, k) != 0)
		return false;
	*val = line + k;
	*vlen = len - k;
	while (*vlen > 0 && **val == ' ') {
		(*val)++;
		(*vlen)--;
	}
	return true;
}

static int hex_digits(const char *s, size_t n, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == ' ')
			continue;
		if (hexval(s[i]) < 0 || o + 1 >= size)
			return -1;
		out[o++] = s[i];
	}
	out[o] = '\0';
	return 0;
}

static int parse_list(struct ksp_ctx *ctx, const char *src, const char *data, size_t len,
		      struct parsed_list *pl)
{
	const char *p = data, *end = data + len;
	size_t expect = 0, lineno = 0;
	bool have_count = false;
	int state = 0; /* 0 header, 1 entries */

	if (len < strlen(LIST_MAGIC) || memcmp(data, LIST_MAGIC, strlen(LIST_MAGIC)) != 0 ||
	    memchr(data, '\0', len) != NULL) {
		ksp_set_error(ctx, "%s: not a ksp participant list (no 'OpenPGP key-signing party: participant list' "
			      "heading); give the list file as announced ('ksp party close -o' wrote it)", src);
		return -EBADMSG;
	}
	p += strlen(LIST_MAGIC);
	lineno = 2;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n;
		const char *v;
		size_t vn;
		char buf[32];

		if (nl == NULL) {
			ksp_set_error(ctx, "%s: line %zu does not end with a newline: the file was cut or changed; "
				      "get the list file as announced", src, lineno + 1);
			return -EBADMSG;
		}
		n = (size_t)(nl - p);
		lineno++;
		if (state == 0 && header(p, n, "Party:", &v, &vn) && pl->name == NULL) {
			pl->name = unescape(v, vn);
			if (pl->name == NULL)
				return -ENOMEM;
		} else if (state == 0 && header(p, n, "Date:", &v, &vn) && pl->date == NULL) {
			pl->date = strndup(v, vn);
			if (pl->date == NULL)
				return -ENOMEM;
		} else if (state == 0 && header(p, n, "Location:", &v, &vn) && pl->location == NULL) {
			pl->location = unescape(v, vn);
			if (pl->location == NULL)
				return -ENOMEM;
		} else if (state == 0 && header(p, n, "Organizer:", &v, &vn)) {
			char hex[80];
			if (hex_digits(v, vn, hex, sizeof(hex)) < 0 || fpr_normalize(hex, pl->organizer) < 0)
				goto bad;
		} else if (state == 0 && header(p, n, "List version:", &v, &vn)) {
			if (vn == 0 || vn >= sizeof(buf))
				goto bad;
			memcpy(buf, v, vn);
			buf[vn] = '\0';
			if (sscanf(buf, "%d", &pl->version) != 1 || pl->version <= 0)
				goto bad;
		} else if (state == 0 && header(p, n, "Participants:", &v, &vn)) {
			unsigned long m;
			if (vn == 0 || vn >= sizeof(buf))
				goto bad;
			memcpy(buf, v, vn);
			buf[vn] = '\0';
			if (sscanf(buf, "%lu", &m) != 1 || m > 100000)
				goto bad;
			expect = m;
			have_count = true;
			state = 1;
		} else if (state == 1 && n == 0) {
			/* the blank line before an entry: the number and fingerprint follow */
			const char *q = nl + 1, *qnl = q < end ? memchr(q, '\n', (size_t)(end - q)) : NULL;
			struct listed *nv;
			char hex[80];
			int num = 0;
			size_t i = 0, qn;

			if (qnl == NULL)
				goto bad;
			qn = (size_t)(qnl - q);
			lineno++;
			while (i < qn && q[i] == ' ')
				i++;
			while (i < qn && q[i] >= '0' && q[i] <= '9' && num < 1000000)
				num = num * 10 + (q[i++] - '0');
			if (num <= 0 || i + 2 > qn || q[i] != ' ' || q[i + 1] != ' ')
				goto bad;
			if (hex_digits(q + i + 2, qn - i - 2, hex, sizeof(hex)) < 0)
				goto bad;
			nv = realloc(pl->v, (pl->n + 1) * sizeof(*nv));
			if (nv == NULL)
				return -ENOMEM;
			pl->v = nv;
			pl->v[pl->n].number = num;
			if (fpr_normalize(hex, pl->v[pl->n].fpr) < 0)
				goto bad;
			pl->n++;
			nl = qnl;
		} else if (state == 1 && n > 5 && memcmp(p, "     ", 5) == 0) {
			/* algorithm and user ID lines: checked by the comparison */
		} else {
			goto bad;
		}
		p = nl + 1;
		continue;
bad:
		ksp_set_error(ctx, "%s: line %zu is not what a ksp participant list holds there; "
			      "the file was changed: get the list file as announced", src, lineno);
		return -EBADMSG;
	}
	if (pl->name == NULL || pl->date == NULL || pl->version <= 0 || !have_count) {
		ksp_set_error(ctx, "%s: the list header lacks the party's %s; get the list file as announced", src,
			      pl->name == NULL ? "name" : pl->date == NULL ? "date" : pl->version <= 0 ? "list version"
			      : "participant count");
		return -EBADMSG;
	}
	if (pl->n != expect || pl->n == 0) {
		ksp_set_error(ctx, "%s: the header says %zu participants but the list holds %zu; "
			      "get the list file as announced", src, expect, pl->n);
		return -EBADMSG;
	}
	for (size_t i = 0; i < pl->n; i++)
		for (size_t j = i + 1; j < pl->n; j++)
			if (strcmp(pl->v[i].fpr, pl->v[j].fpr) == 0 || pl->v[i].number == pl->v[j].number) {
				ksp_set_error(ctx, "%s: participant #%d is listed twice; get the list file as announced",
					      src, pl->v[j].number);
				return -EBADMSG;
			}
	return 0;
}

/* The announced digest as people write it: any case, spaces or colons. */
static int norm_sha256(const char *in, char out[65])
{
	size_t o = 0;

	for (; *in; in++) {
		if (*in == ' ' || *in == ':')
			continue;
		if (hexval(*in) < 0 || o >= 64)
			return -1;
		out[o++] = (char)(*in >= 'A' && *in <= 'F' ? *in - 'A' + 'a' : *in);
	}
	out[o] = '\0';
	return o == 64 ? 0 : -1;
}

struct join_keys {
	struct ksp_ctx *ctx;
	const char *src;
	struct parsed_list *pl;
	char refused[512]; /* the first listed key refused, and why */
	int oom;
};

static void on_key(void *data, const struct ksp_key_check *chk)
{
	struct join_keys *jk = data;
	const char *fpr = ksp_key_check_get_fingerprint(chk);

	if (ksp_key_check_is_accepted(chk) || jk->refused[0])
		return;
	for (size_t i = 0; i < jk->pl->n; i++)
		if (fpr && strcmp(fpr, jk->pl->v[i].fpr) == 0)
			snprintf(jk->refused, sizeof(jk->refused), "key #%d %s: %s", jk->pl->v[i].number, fpr,
				 ksp_key_check_get_message(chk));
}

static int exec_bind(struct ksp_ctx *ctx, sqlite3 *db, const char *sql, const char *t1, int i2, const char *t3)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return ksp_errno_from_sqlite(ctx, db, rc, "join");
	if (t1)
		sqlite3_bind_text(st, 1, t1, -1, SQLITE_STATIC);
	if (i2)
		sqlite3_bind_int(st, 2, i2);
	if (t3)
		sqlite3_bind_text(st, 3, t3, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return ksp_errno_from_sqlite(ctx, db, rc, "join");
	return sqlite3_changes(db);
}

/* Keys now on the store's list that the list file does not name. */
/* The keys of the keyring that are not on this list (a newer list's
 * keyring, with latecomers, given with an older list): only the listed
 * keys are taken from it. */
static int drop_extra(struct ksp_party *party, const struct parsed_list *pl)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *st, *del = NULL;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(db, "SELECT k.fpr, k.id FROM participants p JOIN keys k ON k.id = p.key_id ORDER BY p.ord",
				-1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "DELETE FROM participants WHERE key_id = ?", -1, &del, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(st);
		return ksp_errno_from_sqlite(party->ctx, db, rc, "join");
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *fpr = (const char *)sqlite3_column_text(st, 0);
		bool listed = false;
		for (size_t i = 0; i < pl->n && !listed; i++)
			listed = fpr && strcmp(fpr, pl->v[i].fpr) == 0;
		if (listed)
			continue;
		sqlite3_reset(del);
		sqlite3_bind_int64(del, 1, sqlite3_column_int64(st, 1));
		if (sqlite3_step(del) != SQLITE_DONE) {
			r = ksp_errno_from_sqlite(party->ctx, db, sqlite3_errcode(db), "join");
			break;
		}
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = ksp_errno_from_sqlite(party->ctx, db, rc, "join");
	sqlite3_finalize(st);
	sqlite3_finalize(del);
	return r;
}

/* The first line where the regenerated list differs from the file. */
static void report_diff(struct ksp_ctx *ctx, const char *src, const char *keyring_src,
			const char *a, size_t alen, const char *b, size_t blen)
{
	size_t line = 1, start = 0, i = 0, n;
	char *e = NULL;

	while (i < alen && i < blen && a[i] == b[i]) {
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	n = 0;
	while (start + n < alen && a[start + n] != '\n' && n < 120)
		n++;
	if (ksp_escape(a + start, n, KSP_ESCAPE_TERMINAL, &e) < 0)
		e = NULL;
	ksp_set_error(ctx, "%s: line %zu ('%s') is not what the keys in %s give; the list and the keyring "
		      "do not match (one of them was changed, or they are of different versions): nothing was stored",
		      src, line, e ? e : "?", keyring_src);
	free(e);
}

/* (Long: parse, add the keyring, drop and renumber, compare the list's bytes, store: one transaction with one rollback.) */
KSP_EXPORT int ksp_party_join(struct ksp_store *store, const void *list, size_t list_len, const char *list_source,
			      const void *keyring, size_t keyring_len, const char *keyring_source,
			      const char *sha256, struct ksp_party **ret, int *ret_version)
{
	struct parsed_list pl = { 0 };
	struct ksp_party *party = NULL;
	struct ksp_ctx *ctx;
	struct strbuf sb;
	sqlite3 *db;
	char sha[65], want[65], rmd[41];
	bool existed = false, again = false;
	int r, rc;

	if (store == NULL || list == NULL || keyring == NULL)
		return -EINVAL;
	ctx = ksp_store_get_ctx(store);
	ksp_clear_error(ctx);
	if (list_source == NULL)
		list_source = "<list>";
	if (keyring_source == NULL)
		keyring_source = "<keyring>";
	strbuf_init(&sb);
	ksp_party_digest_hex(GCRY_MD_SHA256, list, list_len, sha);
	ksp_party_digest_hex(GCRY_MD_RMD160, list, list_len, rmd);
	if (sha256) {
		if (norm_sha256(sha256, want) < 0) {
			ksp_set_error(ctx, "'%s' is not a SHA-256 digest (64 hex digits); give the digest as announced",
				      sha256);
			return -EINVAL;
		}
		if (strcmp(want, sha) != 0) {
			ksp_set_error(ctx, "%s: SHA-256 %s is not the announced %s: this is not the announced list; "
				      "nothing was stored", list_source, sha, want);
			return -EBADMSG;
		}
	}
	r = parse_list(ctx, list_source, list, list_len, &pl);
	if (r < 0)
		goto out_noparty;
	r = ksp_store_begin(store);
	if (r < 0)
		goto out_noparty;
	db = ksp_store_db(store);
	r = ksp_party_open(store, &party);
	if (r == 0) {
		existed = true;
		if (strcmp(party->name, pl.name) != 0 || strcmp(party->date, pl.date) != 0) {
			char *e1 = NULL, *e2 = NULL;
			ksp_escape(pl.name, strlen(pl.name), KSP_ESCAPE_TERMINAL, &e1);
			ksp_escape(party->name, strlen(party->name), KSP_ESCAPE_TERMINAL, &e2);
			ksp_set_error(ctx, "%s: a list of another party ('%s' on %s) than the one in %s ('%s' on %s); "
				      "join it in another store with -d FILE: nothing was stored",
				      list_source, e1 ? e1 : "?", pl.date, ksp_store_get_path(store), e2 ? e2 : "?",
				      party->date);
			free(e1);
			free(e2);
			r = -EEXIST;
			goto fail;
		}
		if (pl.version <= party->list_version) {
			char *old = NULL;
			r = ksp_party_get_digests(party, pl.version, NULL, &old, NULL);
			if (r == 0 && strcmp(old, sha) == 0) {
				/* joined before: checked all the same, then nothing changed */
				free(old);
				again = true;
			} else {
				free(old);
					ksp_set_error(ctx, "%s: list version %d, but %s already holds version %d%s; "
					      "get the newest list as announced: nothing was stored", list_source, pl.version,
					      ksp_store_get_path(store), party->list_version,
					      pl.version == party->list_version ? " with another digest" : "");
				r = -ESTALE;
				goto fail;
			}
		}
		rc = exec_bind(ctx, db, "UPDATE party SET location = ?1, organizer = ?3 WHERE id = 1", pl.location, 0,
			       pl.organizer[0] ? pl.organizer : NULL);
		if (rc < 0) {
			r = rc;
			goto fail;
		}
		r = ksp_party_reload(party);
		if (r < 0)
			goto fail;
	} else if (r == -ENOENT) {
		ksp_clear_error(ctx);
		r = ksp_party_create(store, pl.name, pl.date, pl.location, pl.organizer[0] ? pl.organizer : NULL,
				     &party);
		if (r < 0) {
			char *e = ksp_get_error(ctx) ? strdup(ksp_get_error(ctx)) : NULL;
			ksp_set_error(ctx, "%s: the list header is not a party ksp can hold (%s): nothing was stored",
				      list_source, e ? e : strerror(-r));
			free(e);
			goto fail;
		}
	} else {
		goto fail;
	}

	/* the current list becomes the file's: the keys from the keyring */
	rc = exec_bind(ctx, db, "DELETE FROM participants", NULL, 0, NULL);
	if (rc < 0) {
		r = rc;
		goto fail;
	}
	struct join_keys jk = { .ctx = ctx, .src = keyring_source, .pl = &pl };
	r = ksp_party_add_data(party, keyring, keyring_len, keyring_source,
			       KSP_ADD_ALLOW_WEAK | KSP_ADD_ALLOW_NO_EMAIL | KSP_ADD_ALLOW_EXPIRING, on_key, &jk);
	if (r < 0)
		goto fail;
	r = drop_extra(party, &pl);
	if (r < 0)
		goto fail;
	/* every listed key there, numbered as on the list */
	rc = exec_bind(ctx, db, "UPDATE participants SET ord = -id", NULL, 0, NULL);
	if (rc < 0) {
		r = rc;
		goto fail;
	}
	for (size_t i = 0; i < pl.n; i++) {
		rc = exec_bind(ctx, db, "UPDATE participants SET ord = ?2 WHERE key_id = (SELECT id FROM keys WHERE fpr = ?1)",
			       pl.v[i].fpr, pl.v[i].number, NULL);
		if (rc < 0) {
			r = rc;
			goto fail;
		}
		if (rc == 0) {
			if (jk.refused[0])
				ksp_set_error(ctx, "%s: %s; nothing was stored", keyring_source, jk.refused);
			else
				ksp_set_error(ctx, "%s: no key %s (#%d on the list); give the keyring published with "
					      "list version %d: nothing was stored", keyring_source, pl.v[i].fpr,
					      pl.v[i].number, pl.version);
			r = -ENOKEY;
			goto fail;
		}
	}
	/* the same bytes, or no join */
	r = ksp_party_list_text(party, pl.version, &sb);
	if (r < 0)
		goto fail;
	if (sb.len != list_len || memcmp(sb.buf, list, list_len) != 0) {
		report_diff(ctx, list_source, keyring_source, list, list_len, sb.buf, sb.len);
		r = -EBADMSG;
		goto fail;
	}
	if (again) {
		ksp_store_rollback(store);
		r = ksp_party_reload(party);
		if (r < 0)
			goto out;
		if (ret_version)
			*ret_version = pl.version;
		r = 1;
		goto done;
	}
	r = ksp_party_store_list(party, pl.version, list, list_len, sha, rmd, "join");
	if (r < 0)
		goto fail;
	r = ksp_party_event(party, existed ? "join-update" : "join", sha);
	if (r < 0)
		goto fail;
	r = ksp_store_commit(store);
	if (r < 0)
		goto out;
	r = ksp_party_reload(party);
	if (r < 0)
		goto out;
	if (ret_version)
		*ret_version = pl.version;
	r = 0;
done:
	strbuf_release(&sb);
	parsed_clear(&pl);
	if (ret)
		*ret = party;
	else
		ksp_party_unref(party);
	return r;
fail:
	if (!ksp_get_error(ctx))
		ksp_set_error(ctx, "%s: cannot join: %s; nothing was stored", list_source, strerror(-r));
	ksp_store_rollback(store);
out:
	ksp_party_unref(party);
out_noparty:
	strbuf_release(&sb);
	parsed_clear(&pl);
	return r;
}
