// SPDX-License-Identifier: LGPL-2.1-or-later
/* The paper round trip: a checklist of a frozen list version in the layout
 * signing-party's gpgparticipants prints (a line per key with its list
 * number and "[ ] Fingerprint OK [ ] ID OK", checksum lines ending in
 * "[ ]"), so that caff reads it too; optionally marked, gpgsigs-like, with
 * what a participant certified and who certified them; and the ticked
 * sheet read back for 'party sign --ticked' and 'party absent --attended'.
 *
 * The checklist is made from the frozen list text itself (the announced
 * bytes), not from the keys as they are now: what is ticked is what was
 * announced. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/store/store.h"
#include "lib/party/party-private.h"
#include "lib/party/sign-opts.h"
#include "shared/strbuf.h"
#include "shared/util.h"

#define RULE "_______________________________________________________________________________"

struct ck_uid {
	char *text; /* escaped for a terminal, as in the list */
	bool ticked;
};

struct ck_key {
	int number;
	char fpr[65];
	char *info; /* "ed25519, created 2026-01-01" */
	struct ck_uid *uids;
	size_t n_uids;
	bool fpr_ok, id_ok, seen_fpr;
};

struct ksp_ticked {
	int version;
	struct ck_key *k;
	size_t n;
};

KSP_EXPORT struct ksp_ticked *ksp_ticked_free(struct ksp_ticked *t)
{
	if (t == NULL)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		for (size_t u = 0; u < t->k[i].n_uids; u++)
			free(t->k[i].uids[u].text);
		free(t->k[i].uids);
		free(t->k[i].info);
	}
	free(t->k);
	free(t);
	return NULL;
}

static struct ck_key *add_key(struct ksp_ticked *t, int number)
{
	struct ck_key *nk = realloc(t->k, (t->n + 1) * sizeof(*nk));

	if (nk == NULL)
		return NULL;
	t->k = nk;
	nk = &t->k[t->n++];
	memset(nk, 0, sizeof(*nk));
	nk->number = number;
	return nk;
}

static int add_uid(struct ck_key *k, const char *text, size_t len, bool ticked)
{
	struct ck_uid *nu = realloc(k->uids, (k->n_uids + 1) * sizeof(*nu));

	if (nu == NULL)
		return -ENOMEM;
	k->uids = nu;
	nu = &k->uids[k->n_uids];
	nu->text = strndup(text, len);
	if (nu->text == NULL)
		return -ENOMEM;
	nu->ticked = ticked;
	k->n_uids++;
	return 0;
}

/* Hex digits of @s (spaces between groups allowed) into @out (upper case);
 * returns their count, -1 for any other character. */
static int hex_run(const char *s, size_t len, char *out, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == ' ')
			continue;
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return -1;
		if (n + 1 < size)
			out[n] = c >= 'a' ? (char)(c - 'a' + 'A') : c;
		n++;
	}
	if (n < size)
		out[n] = '\0';
	return (int)n;
}

/* The canonical list text (freeze.c) into keys: "%3d  FPR" lines, an
 * information line, then "     uid  TEXT" lines. */
static int parse_list(const char *text, size_t len, struct ksp_ticked *t)
{
	const char *p = text, *end = text + len;
	struct ck_key *k = NULL;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *e;
		long num;

		if (l > 10 && memcmp(p, "     uid  ", 10) == 0 && k) {
			if (add_uid(k, p + 10, l - 10, false) < 0)
				return -ENOMEM;
		} else if (l > 5 && memcmp(p, "     ", 5) == 0 && k && k->info == NULL) {
			k->info = strndup(p + 5, l - 5);
			if (k->info == NULL)
				return -ENOMEM;
		} else if (l > 5 && (num = strtol(p, &e, 10)) > 0 && e < p + l && e[0] == ' ' && e[1] == ' ' &&
			   *p != '\n') {
			k = add_key(t, (int)num);
			if (k == NULL)
				return -ENOMEM;
			if (hex_run(e, (size_t)(p + l - e), k->fpr, sizeof(k->fpr)) < 0)
				return -EBADMSG;
		}
		p += l + 1;
	}
	return 0;
}

/* "XXXX XXXX   XXXX XXXX ..." groups of @hex, @per groups a line. */
static void add_groups(struct strbuf *sb, const char *hex, size_t from, size_t to)
{
	for (size_t i = from; i < to; i += 4) {
		if (i > from)
			strbuf_addstr(sb, (i - from) % 8 == 0 ? "   " : " ");
		strbuf_add(sb, hex + i, 4);
	}
}

static void upper(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'f')
			*s = (char)(*s - 'a' + 'A');
}

/* The marks of one listed key for participant @me of the status: on
 * others' keys, the user IDs @me certified; on @me's, who certified it. */
static void add_marks(struct strbuf *sb, const struct ksp_party_status *st, size_t me, const struct ck_key *k,
		      const char *uid_text)
{
	size_t n = ksp_party_status_get_count(st), j, u;

	for (j = 0; j < n; j++)
		if (strcmp(ksp_party_status_get_fingerprint(st, j), k->fpr) == 0)
			break;
	if (j == n)
		return;
	for (u = 0; u < ksp_party_status_get_uid_count(st, j); u++) {
		size_t len;
		const char *uid = ksp_party_status_get_uid(st, j, u, &len);
		char *e = NULL;
		bool same;
		if (ksp_escape(uid, len, KSP_ESCAPE_TERMINAL, &e) < 0)
			return;
		same = strcmp(e, uid_text) == 0;
		free(e);
		if (same)
			break;
	}
	if (u == ksp_party_status_get_uid_count(st, j))
		return; /* revoked since: not in the status */
	if (j == me) {
		bool first = true;
		for (size_t i = 0; i < n; i++) {
			if (ksp_party_status_get_cert(st, i, j, u) != KSP_CERT_DONE)
				continue;
			strbuf_addf(sb, first ? "     (S) certified by #%d" : " #%d", ksp_party_status_get_number(st, i));
			first = false;
		}
		strbuf_addstr(sb, first ? "     ( ) certified by nobody on the list yet\n" : "\n");
		return;
	}
	switch (ksp_party_status_get_cert(st, me, j, u)) {
	case KSP_CERT_DONE:
		strbuf_addstr(sb, "     (S) certified by you\n");
		break;
	case KSP_CERT_SENT:
	case KSP_CERT_UNSENT:
		strbuf_addstr(sb, "     (s) signed by you, not imported back yet\n");
		break;
	default:
		break;
	}
}

KSP_EXPORT int ksp_party_checklist(struct ksp_party *party, int version, const char *mark_for, char **ret,
				   size_t *ret_len)
{
	struct ksp_ticked t = { 0 };
	struct ksp_party_status *st = NULL;
	struct strbuf sb;
	char *text = NULL, *sha = NULL, *rmd = NULL;
	size_t len = 0, me = 0;
	int r, v = 0;

	if (party == NULL || ret == NULL || version < 0)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	strbuf_init(&sb);
	r = ksp_party_get_digests(party, version, &v, &sha, &rmd);
	if (r < 0)
		goto out;
	r = ksp_party_get_list_text(party, v, &text, &len);
	if (r < 0)
		goto out;
	r = parse_list(text, len, &t);
	if (r < 0)
		goto out;
	if (mark_for) {
		char want[65], *e;
		long num = strtol(*mark_for == '#' ? mark_for + 1 : mark_for, &e, 10);
		bool by_num = *mark_for && *e == '\0' && num > 0;
		size_t i, n;

		if (!by_num && fpr_normalize(mark_for, want) < 0) {
			ksp_set_error(party->ctx, "'%s' is neither a list number nor a full fingerprint (40 or 64 hex digits)", mark_for);
			r = -EINVAL;
			goto out;
		}
		r = ksp_party_status_new(party, 0, &st);
		if (r < 0)
			goto out;
		n = ksp_party_status_get_count(st);
		for (i = 0; i < n; i++)
			if (by_num ? ksp_party_status_get_number(st, i) == num
				   : strcmp(ksp_party_status_get_fingerprint(st, i), want) == 0)
				break;
		if (i == n) {
			ksp_set_error(party->ctx, "%s: no participant %s on the list; see 'ksp party list'",
				      ksp_store_get_path(party->store), mark_for);
			r = -ENOENT;
			goto out;
		}
		me = i;
	}
	upper(sha);
	upper(rmd);
	/* the header: the list's own lines, up to the first key */
	{
		const char *p = text, *first = strstr(text, "\n\n");
		const char *stop = NULL;
		if (first) {
			p = first + 2;
			stop = strstr(p, "\n\n");
		}
		strbuf_addf(&sb, "OpenPGP key-signing party: checklist of list version %d\n\n", v);
		if (stop)
			strbuf_add(&sb, p, (size_t)(stop - p) + 1);
	}
	strbuf_addstr(&sb,
		"\n"
		"Compare the checksums below with the ones the organizer announced and\n"
		"tick their boxes: [x].  At the party, tick \"[x] Fingerprint OK\" and\n"
		"\"[x] ID OK\" for each key you checked, and \"[x]\" after \"uid\" for each\n"
		"user ID you checked (no user ID ticked on a checked key: all of them).\n"
		"Then: ksp party sign --as YOUR-FINGERPRINT --ticked THIS-FILE\n");
	if (mark_for)
		strbuf_addf(&sb, "Marked for #%d: (S) user IDs you certified; on your key, who certified it.\n",
			    ksp_party_status_get_number(st, me));
	strbuf_addstr(&sb, "\n\nSHA256 Checksum: ");
	add_groups(&sb, sha, 0, 32);
	strbuf_addstr(&sb, "\n\n                 ");
	add_groups(&sb, sha, 32, 64);
	strbuf_addstr(&sb, "              [ ]\n\n\nRIPEMD160 Checksum: ");
	for (size_t i = 0; i < 40; i += 4) {
		if (i)
			strbuf_addstr(&sb, i == 20 ? "    " : " ");
		strbuf_add(&sb, rmd + i, 4);
	}
	strbuf_addstr(&sb, "    [ ]\n\n\n" RULE "\n");
	for (size_t i = 0; i < t.n; i++) {
		const struct ck_key *k = &t.k[i];
		char g[96];
		strbuf_addf(&sb, "\n%03d  [ ] Fingerprint OK        [ ] ID OK\n", k->number);
		strbuf_addf(&sb, "pub   %s\n", k->info ? k->info : "");
		fpr_groups(k->fpr, g, sizeof(g));
		strbuf_addf(&sb, "      %s\n", g);
		for (size_t u = 0; u < k->n_uids; u++) {
			strbuf_addf(&sb, "uid  [ ] %s\n", k->uids[u].text);
			if (st)
				add_marks(&sb, st, me, k, k->uids[u].text);
		}
		strbuf_addstr(&sb, RULE "\n");
	}
	if (!strbuf_ok(&sb)) {
		r = -ENOMEM;
		goto out;
	}
	if (ret_len)
		*ret_len = sb.len;
	*ret = strbuf_steal(&sb);
	r = *ret ? 0 : -ENOMEM;
out:
	t.version = 0;
	for (size_t i = 0; i < t.n; i++) {
		for (size_t u = 0; u < t.k[i].n_uids; u++)
			free(t.k[i].uids[u].text);
		free(t.k[i].uids);
		free(t.k[i].info);
	}
	free(t.k);
	ksp_party_status_free(st);
	strbuf_release(&sb);
	free(text);
	free(sha);
	free(rmd);
	if (r < 0 && !ksp_get_error(party->ctx))
		ksp_set_error(party->ctx, "%s: cannot make the checklist: %s", ksp_store_get_path(party->store), strerror(-r));
	return r;
}

/* ---- reading a ticked sheet back ------------------------------------- */

static bool ticked(char c)
{
	return c == 'x' || c == 'X';
}

/* "NNN  [c] Fingerprint OK   [c] ID OK" (also caff's "Fingerprints OK",
 * "Fingerprint(s) OK"; a leading '#' comments the key out). */
static bool key_line(const char *p, size_t l, int *number, bool *fpr_ok, bool *id_ok)
{
	const char *e = p + l, *q = p;
	bool commented = false;
	long num = 0;
	char a, b;

	while (q < e && *q == '#') {
		commented = true;
		q++;
	}
	while (q < e && *q >= '0' && *q <= '9' && num < 1000000)
		num = num * 10 + (*q++ - '0');
	if (q == e || (*q != ' ' && *q != '\t'))
		return false;
	while (q < e && (*q == ' ' || *q == '\t'))
		q++;
	if (e - q < 4 || q[0] != '[' || q[2] != ']')
		return false;
	a = q[1];
	q += 3;
	if (e - q >= 16 && memcmp(q, " Fingerprint OK ", 16) == 0)
		q += 15;
	else if (e - q >= 17 && memcmp(q, " Fingerprints OK ", 17) == 0)
		q += 16;
	else if (e - q >= 19 && memcmp(q, " Fingerprint(s) OK ", 19) == 0)
		q += 18;
	else
		return false;
	while (q < e && (*q == ' ' || *q == '\t'))
		q++;
	if (e - q < 9 || q[0] != '[' || q[2] != ']' || memcmp(q + 3, " ID OK", 6) != 0)
		return false;
	b = q[1];
	for (q += 9; q < e; q++)
		if (*q != ' ' && *q != '\t' && *q != '\r')
			return false;
	*number = (int)num;
	*fpr_ok = !commented && ticked(a);
	*id_ok = !commented && ticked(b);
	return true;
}

struct sum {
	char name[16];
	char hex[160];
	size_t n;
	bool unfilled, boxed;
	char box;
};

/* A part of a checksum line, the checksum's first (@first: after
 * "NAME Checksum:") or a continuation: hex digits or blanks ('_' where it
 * is to be filled in), then maybe its box.  Returns 1 when the box closed
 * it, 0 when more lines follow, -EBADMSG for anything else. */
static int sum_part(struct ksp_party *party, const char *source, size_t line, struct sum *cur, const char *p,
		    size_t l, bool first)
{
	bool box = l >= 3 && p[l - 1] == ']' && p[l - 3] == '[';
	size_t hl = box ? l - 3 : l;

	for (size_t i = 0; i < hl; i++) {
		char c = p[i];
		if (c == '_') {
			cur->unfilled = true;
		} else if (c != ' ' && c != '\t') {
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
				if (first)
					ksp_set_error(party->ctx, "%s:%zu: the %s checksum holds '%c'; write it in hex digits and tick its box [x]",
						      source, line, cur->name, c);
				else
					ksp_set_error(party->ctx, "%s:%zu: a %s checksum line holds '%c'; write the checksum in hex digits and tick its box [x]",
						      source, line, cur->name, c);
				return -EBADMSG;
			}
			if (cur->n + 1 < sizeof(cur->hex))
				cur->hex[cur->n] = c >= 'a' ? (char)(c - 'a' + 'A') : c;
			cur->n++;
		}
	}
	if (!box)
		return 0;
	cur->boxed = true;
	cur->box = p[l - 2];
	return 1;
}

static int read_sheet(struct ksp_party *party, const char *data, size_t len, const char *source,
		      struct ksp_ticked *t, struct sum *sums, size_t *n_sums, int *sheet_version)
{
	const char *p = data, *end = data + len;
	struct ck_key *k = NULL;
	struct sum *cur = NULL;
	size_t line = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *next = p + l + 1;
		int number;
		bool a, b;

		line++;
		while (l > 0 && (p[l - 1] == '\r' || p[l - 1] == ' ' || p[l - 1] == '\t') && !(cur && p[l - 1] == ']'))
			l--;
		const char *cs = cur ? NULL : memmem(p, l, " Checksum:", 10);
		const char *part = p;
		size_t pl = l;
		if (cs && cs > p && memchr(p, ' ', (size_t)(cs - p)) == NULL && memchr(p, '\t', (size_t)(cs - p)) == NULL) {
			size_t nl2 = (size_t)(cs - p);
			if (*n_sums >= 8) {
				ksp_set_error(party->ctx, "%s:%zu: too many checksum lines; use the checklist 'ksp party sheet --format checklist' prints",
					      source, line);
				return -EBADMSG;
			}
			cur = &sums[(*n_sums)++];
			memset(cur, 0, sizeof(*cur));
			snprintf(cur->name, sizeof(cur->name), "%.*s", (int)(nl2 < 15 ? nl2 : 15), p);
			part = p + nl2 + 10;
			pl = l - nl2 - 10;
		} else {
			cs = NULL;
		}
		if (cur) { /* a checksum's line, its first or a continuation */
			int r = sum_part(party, source, line, cur, part, pl, cs != NULL);
			if (r < 0)
				return r;
			if (r > 0)
				cur = NULL;
			p = next;
			continue;
		}
		if (l > 13 && memcmp(p, "List version:", 13) == 0 && *sheet_version == 0) {
			*sheet_version = atoi(p + 13);
		} else if (l > 0 && (strspn(p, "_") >= l || strspn(p, "-") >= l)) {
			k = NULL;
		} else if (key_line(p, l, &number, &a, &b)) {
			k = add_key(t, number);
			if (k == NULL)
				return -ENOMEM;
			k->fpr_ok = a;
			k->id_ok = b;
		} else if (k && l >= 5 && strncmp(p, "     ", 5) == 0 && !k->seen_fpr) {
			char hex[80];
			const char *q = p;
			size_t ql = l;
			if (ql > 5 && memmem(q, ql, "Key fingerprint = ", 18)) {
				const char *f = (const char *)memmem(q, ql, "Key fingerprint = ", 18) + 18;
				ql -= (size_t)(f - q);
				q = f;
			}
			int n = hex_run(q, ql, hex, sizeof(hex));
			if (n == 40 || n == 64) {
				memcpy(k->fpr, hex, (size_t)n + 1);
				k->seen_fpr = true;
			}
		} else if (k && l >= 8 && memcmp(p, "uid", 3) == 0) {
			const char *q = p + 3;
			while (q < p + l && *q == ' ')
				q++;
			if (p + l - q >= 4 && q[0] == '[' && q[2] == ']' && q[3] == ' ') {
				if (add_uid(k, q + 4, (size_t)(p + l - q - 4), ticked(q[1])) < 0)
					return -ENOMEM;
			}
		}
		p = next;
	}
	if (cur) {
		ksp_set_error(party->ctx, "%s: the %s checksum has no box at its end; use the checklist 'ksp party sheet --format checklist' prints",
			      source, cur->name);
		return -EBADMSG;
	}
	return 0;
}

/* The list version whose digest is @hex (SHA256 or RIPEMD160), 0 if none. */
static int version_of(struct ksp_party *party, const char *algo, const char *hex)
{
	sqlite3 *db = ksp_store_db(party->store);
	sqlite3_stmt *st = NULL;
	int v = 0;

	if (sqlite3_prepare_v2(db, strcmp(algo, "SHA256") == 0 ? "SELECT version FROM list_versions WHERE upper(sha256) = ?"
								  : "SELECT version FROM list_versions WHERE upper(rmd160) = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

KSP_EXPORT int ksp_party_read_ticked(struct ksp_party *party, const void *data, size_t len, const char *source,
				     unsigned int flags, struct ksp_ticked **ret)
{
	struct ksp_ticked *t;
	struct sum sums[8];
	size_t n_sums = 0;
	int r, sheet_version = 0, v = 0;
	char *sha = NULL, *rmd = NULL;

	if (party == NULL || (data == NULL && len > 0) || ret == NULL)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	if (source == NULL)
		source = "the sheet";
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	r = ksp_party_reload(party);
	if (r < 0)
		goto fail;
	if (party->list_version <= 0) {
		ksp_set_error(party->ctx, "%s: the list was never frozen; a ticked sheet is read against the frozen list",
			      ksp_store_get_path(party->store));
		r = -ENODATA;
		goto fail;
	}
	r = read_sheet(party, data, len, source, t, sums, &n_sums, &sheet_version);
	if (r < 0)
		goto fail;
	if (t->n == 0) {
		ksp_set_error(party->ctx, "%s: no key line (\"NNN  [ ] Fingerprint OK  [ ] ID OK\") found; print a checklist with 'ksp party sheet --format checklist'",
			      source);
		r = -EBADMSG;
		goto fail;
	}
	/* which list version: the checksums say; else the sheet's own line */
	for (size_t i = 0; i < n_sums; i++) {
		const struct sum *s = &sums[i];
		if (!(flags & KSP_TICKED_NO_CHECKSUMS)) {
			if (!s->boxed || !ticked(s->box)) {
				ksp_set_error(party->ctx, "%s: the %s checksum's box is not ticked; compare it with the announced one and tick it [x] (nothing was signed)",
					      source, s->name);
				r = -EPERM;
				goto fail;
			}
			if (s->unfilled || s->n == 0) {
				ksp_set_error(party->ctx, "%s: the %s checksum is not filled in; write the announced checksum in (nothing was signed)",
					      source, s->name);
				r = -EPERM;
				goto fail;
			}
		}
		if (s->unfilled || s->n == 0)
			continue;
		if (strcmp(s->name, "SHA256") != 0 && strcmp(s->name, "RIPEMD160") != 0) {
			if (flags & KSP_TICKED_NO_CHECKSUMS)
				continue;
			ksp_set_error(party->ctx, "%s: a %s checksum cannot be checked (ksp lists SHA256 and RIPEMD160); leave only those on the sheet",
				      source, s->name);
			r = -EPERM;
			goto fail;
		}
		int sv = version_of(party, s->name, s->hex);
		if (sv < 0) {
			r = sv;
			goto fail;
		}
		if (sv == 0 || (v && sv != v)) {
			if (flags & KSP_TICKED_NO_CHECKSUMS)
				continue;
			ksp_set_error(party->ctx, "%s: the %s checksum on the sheet is not that of the frozen list ('ksp party digest' prints it); do not sign from it (nothing was signed)",
				      source, s->name);
			r = -EBADMSG;
			goto fail;
		}
		v = sv;
	}
	if (!(flags & KSP_TICKED_NO_CHECKSUMS)) {
		bool sha2 = false;
		for (size_t i = 0; i < n_sums; i++)
			sha2 |= strcmp(sums[i].name, "SHA256") == 0;
		if (!sha2) {
			ksp_set_error(party->ctx, "%s: no SHA256 checksum line; the list's SHA256 checksum must be on the sheet, ticked [x] (nothing was signed)",
				      source);
			r = -EPERM;
			goto fail;
		}
	}
	if (v == 0)
		v = sheet_version > 0 ? sheet_version : party->list_version;
	if (sheet_version > 0 && sheet_version != v) {
		ksp_set_error(party->ctx, "%s: the sheet says list version %d, its checksums are those of version %d; print the checklist again",
			      source, sheet_version, v);
		r = -EBADMSG;
		goto fail;
	}
	r = ksp_party_get_digests(party, v, &v, &sha, &rmd);
	if (r < 0)
		goto fail;
	t->version = v;
	/* each key as the list version has it */
	{
		sqlite3 *db = ksp_store_db(party->store);
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db, "SELECT fpr FROM list_members WHERE version = ? AND ord = ?", -1, &st, NULL) != SQLITE_OK) {
			r = ksp_errno_from_sqlite(party->ctx, db, sqlite3_errcode(db), "ticked sheet");
			goto fail;
		}
		for (size_t i = 0; i < t->n; i++) {
			struct ck_key *k = &t->k[i];
			const unsigned char *f = NULL;
			sqlite3_reset(st);
			sqlite3_bind_int(st, 1, v);
			sqlite3_bind_int(st, 2, k->number);
			if (sqlite3_step(st) == SQLITE_ROW)
				f = sqlite3_column_text(st, 0);
			if (!k->seen_fpr) {
				ksp_set_error(party->ctx, "%s: key %03d has no fingerprint line; use the checklist as printed", source,
					      k->number);
				r = -EBADMSG;
			} else if (f == NULL) {
				ksp_set_error(party->ctx, "%s: there is no number %d on list version %d; the sheet is not of this list",
					      source, k->number, v);
				r = -EBADMSG;
			} else if (strcmp((const char *)f, k->fpr) != 0) {
				ksp_set_error(party->ctx, "%s: number %d is %s on the sheet but %s on list version %d; the sheet was altered, do not sign from it",
					      source, k->number, k->fpr, (const char *)f, v);
				r = -EBADMSG;
			}
			if (r < 0) {
				sqlite3_finalize(st);
				goto fail;
			}
		}
		sqlite3_finalize(st);
	}
	free(sha);
	free(rmd);
	*ret = t;
	return 0;
fail:
	free(sha);
	free(rmd);
	ksp_ticked_free(t);
	if (!ksp_get_error(party->ctx))
		ksp_set_error(party->ctx, "%s: cannot read the ticked sheet: %s", source, strerror(-r));
	return r;
}

KSP_EXPORT int ksp_ticked_get_version(const struct ksp_ticked *t)
{
	return t ? t->version : 0;
}

KSP_EXPORT size_t ksp_ticked_get_count(const struct ksp_ticked *t)
{
	return t ? t->n : 0;
}

KSP_EXPORT int ksp_ticked_get_number(const struct ksp_ticked *t, size_t i)
{
	return t && i < t->n ? t->k[i].number : 0;
}

KSP_EXPORT const char *ksp_ticked_get_fingerprint(const struct ksp_ticked *t, size_t i)
{
	return t && i < t->n ? t->k[i].fpr : NULL;
}

KSP_EXPORT unsigned int ksp_ticked_get_boxes(const struct ksp_ticked *t, size_t i)
{
	unsigned int b = 0;

	if (t == NULL || i >= t->n)
		return 0;
	if (t->k[i].fpr_ok)
		b |= KSP_TICKED_FINGERPRINT;
	if (t->k[i].id_ok)
		b |= KSP_TICKED_ID;
	for (size_t u = 0; u < t->k[i].n_uids; u++)
		if (t->k[i].uids[u].ticked)
			b |= KSP_TICKED_UID;
	return b;
}

KSP_EXPORT int ksp_party_sign_ticked(struct ksp_party *party, const char *signer_fpr, const struct ksp_ticked *t,
				     const struct ksp_sign_opts *opts, const char *outbox, unsigned int flags,
				     void (*cb)(void *cb_data, const struct ksp_sign_result *result), void *cb_data)
{
	const char **targets = NULL;
	const char ***uids = NULL;
	struct ksp_sign_opts *defaults = NULL;
	size_t n = 0;
	int r;

	if (party == NULL || t == NULL)
		return -EINVAL;
	ksp_clear_error(party->ctx);
	if (opts == NULL) {
		r = ksp_sign_opts_default(party->ctx, 0, &defaults);
		if (r < 0)
			return r;
		opts = defaults;
	}
	targets = calloc(t->n + 1, sizeof(*targets));
	uids = calloc(t->n + 1, sizeof(*uids));
	if (targets == NULL || uids == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct ck_key *k = &t->k[i];
		size_t nu = 0;
		if (!k->fpr_ok || !k->id_ok)
			continue;
		for (size_t u = 0; u < k->n_uids; u++)
			nu += k->uids[u].ticked;
		if (nu > 0) {
			const char **v = calloc(nu + 1, sizeof(*v));
			if (v == NULL) {
				r = -ENOMEM;
				goto out;
			}
			nu = 0;
			for (size_t u = 0; u < k->n_uids; u++)
				if (k->uids[u].ticked)
					v[nu++] = k->uids[u].text;
			uids[n] = v;
		}
		targets[n++] = k->fpr;
	}
	if (n == 0) {
		ksp_set_error(party->ctx, "no key is ticked on the sheet: tick \"[x] Fingerprint OK\" and \"[x] ID OK\" of each key you checked");
		r = -ENODATA;
		goto out;
	}
	r = ksp_party_sign_uids(party, signer_fpr, targets, (const char *const *const *)uids, n, opts, outbox,
				flags & ~(unsigned int)KSP_SIGN_ALL, cb, cb_data);
out:
	ksp_sign_opts_free(defaults);
	if (uids)
		for (size_t i = 0; i < n; i++)
			free(uids[i]);
	free(uids);
	free(targets);
	return r;
}
