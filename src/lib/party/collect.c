// SPDX-License-Identifier: LGPL-2.1-or-later
/* Collecting keys at scale: a registration CSV (name, e-mail, fingerprint)
 * matched against keyrings and key files.  The keys the rows name are cut
 * out of the files (with the native reader: only those, not the rest of a
 * keyring) and checked and added as 'party add' does, all in one
 * transaction; the rows whose key is in no file are reported with the
 * person to ask. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpgme.h>

#include "lib/libksp-private.h"
#include "lib/openpgp/pgp.h"
#include "lib/party/party-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"

struct ksp_csv_row {
	size_t line;
	int status;
	char *name, *email;
	char fpr[65];
	char raw_fpr[80];
	size_t other_line; /* KSP_CSV_DUPLICATE: the row it repeats */
	char message[600];
};

KSP_EXPORT size_t ksp_csv_row_get_line(const struct ksp_csv_row *r)
{
	return r ? r->line : 0;
}

KSP_EXPORT int ksp_csv_row_get_status(const struct ksp_csv_row *r)
{
	return r ? r->status : -EINVAL;
}

KSP_EXPORT const char *ksp_csv_row_get_name(const struct ksp_csv_row *r)
{
	return r ? r->name : NULL;
}

KSP_EXPORT const char *ksp_csv_row_get_email(const struct ksp_csv_row *r)
{
	return r ? r->email : NULL;
}

KSP_EXPORT const char *ksp_csv_row_get_fingerprint(const struct ksp_csv_row *r)
{
	return r && r->fpr[0] ? r->fpr : NULL;
}

KSP_EXPORT const char *ksp_csv_row_get_message(const struct ksp_csv_row *r)
{
	return r ? r->message : NULL;
}

/* One CSV record from @p (RFC 4180: "quoted, with "" inside"; a quoted
 * field may hold commas, not line ends here).  Fields are malloc'ed into
 * @f (up to @max); returns the number of fields, -ENOMEM, or -EBADMSG. */
static int split_record(const char *p, size_t len, char **f, int max)
{
	int n = 0;
	size_t i = 0;

	for (;;) {
		struct strbuf sb;
		strbuf_init(&sb);
		while (i < len && (p[i] == ' ' || p[i] == '\t'))
			i++;
		if (i < len && p[i] == '"') {
			i++;
			for (;;) {
				if (i >= len) {
					strbuf_release(&sb);
					return -EBADMSG;
				}
				if (p[i] == '"') {
					if (i + 1 < len && p[i + 1] == '"') {
						strbuf_addch(&sb, '"');
						i += 2;
						continue;
					}
					i++;
					break;
				}
				strbuf_addch(&sb, p[i++]);
			}
			while (i < len && (p[i] == ' ' || p[i] == '\t'))
				i++;
			if (i < len && p[i] != ',') {
				strbuf_release(&sb);
				return -EBADMSG;
			}
		} else {
			size_t s = i;
			while (i < len && p[i] != ',')
				i++;
			size_t e = i;
			while (e > s && (p[e - 1] == ' ' || p[e - 1] == '\t'))
				e--;
			strbuf_add(&sb, p + s, e - s);
		}
		strbuf_addch(&sb, '\0');
		if (!strbuf_ok(&sb)) {
			strbuf_release(&sb);
			return -ENOMEM;
		}
		if (n < max)
			f[n] = strbuf_steal(&sb);
		else
			strbuf_release(&sb);
		n++;
		if (i >= len)
			break;
		i++; /* the comma */
	}
	return n;
}

/* Copy of a CSV field for messages: printable ASCII kept, other bytes as
 * '?', at most 80 characters (the CSV is the organizer's, the names in it
 * the registrants'). */
static void plain(const char *in, char *out, size_t size)
{
	size_t o = 0;

	for (; in && *in && o + 1 < size && o < 80; in++) {
		unsigned char c = (unsigned char)*in;
		if (c >= 0x80) {
			/* UTF-8: keep whole sequences of printable characters */
			out[o++] = (char)c;
			continue;
		}
		out[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[o] = '\0';
}

struct found {
	char fpr[65];
	size_t file;
	size_t off, end;
};

static void report_row(struct ksp_csv_row *row, int status, void (*row_cb)(void *, const struct ksp_csv_row *),
		       void *cb_data, const char *fmt, ...) _printf_format_(5, 6);

/* @needle in @h, ASCII letters in any case (a user ID's bytes as they are) */
static bool contains_ci(const uint8_t *h, size_t hl, const char *needle)
{
	size_t nl = strlen(needle);

	for (size_t i = 0; nl && i + nl <= hl; i++)
		if (strncasecmp((const char *)h + i, needle, nl) == 0)
			return true;
	return false;
}
static void report_row(struct ksp_csv_row *row, int status, void (*row_cb)(void *, const struct ksp_csv_row *),
		       void *cb_data, const char *fmt, ...)
{
	va_list ap;

	row->status = status;
	va_start(ap, fmt);
	vsnprintf(row->message, sizeof(row->message), fmt, ap);
	va_end(ap);
	if (row_cb)
		row_cb(cb_data, row);
}

/* The state of one ksp_party_add_csv() call */
struct csv_add {
	struct ksp_party *party;
	const char *source;
	void (*row_cb)(void *cb_data, const struct ksp_csv_row *row);
	void *cb_data;
	struct ksp_pgp_reader **rd; /* one per key file */
	size_t n_rd;
	struct found *keys; /* every key of every file, by fingerprint */
	size_t n_keys;
	struct strbuf sel; /* the selected keys' blocks */
	char (*seen)[65]; /* the rows' fingerprints, and their lines */
	size_t *seen_line, n_seen;
	char (*fetch)[65]; /* to be fetched from the keyserver */
	size_t n_fetch;
	struct ksp_repair_pair *plan; /* the "# certify:" lines */
	size_t n_plan;
	int col_name, col_email, col_fpr;
	bool first;
	int missing;
};

static void csv_add_free(struct csv_add *a)
{
	for (size_t i = 0; i < a->n_rd && a->rd; i++)
		ksp_pgp_reader_free(a->rd[i]);
	free(a->rd);
	free(a->keys);
	free(a->seen);
	free(a->seen_line);
	free(a->fetch);
	free(a->plan);
	strbuf_release(&a->sel);
}

/* Every key of every key file, by fingerprint and place */
static int csv_index_keys(struct csv_add *a, const void *const *key_data, const size_t *key_len,
			  const char *const *key_source, size_t n_key_files)
{
	int r;

	a->rd = calloc(n_key_files + 1, sizeof(*a->rd));
	if (a->rd == NULL)
		return -ENOMEM;
	a->n_rd = n_key_files;
	for (size_t i = 0; i < n_key_files; i++) {
		const char *src = key_source && key_source[i] ? key_source[i] : "<keys>";
		struct ksp_pgp_key *k;
		r = ksp_pgp_reader_new(a->party->ctx, key_data[i], key_len[i], src, &a->rd[i]);
		if (r < 0)
			return r;
		while ((r = ksp_pgp_reader_next(a->rd[i], &k)) > 0) {
			struct found *nk = realloc(a->keys, (a->n_keys + 1) * sizeof(*nk));
			if (nk == NULL) {
				ksp_pgp_key_free(k);
				return -ENOMEM;
			}
			a->keys = nk;
			ksp_pgp_fpr_hex(&k->primary, a->keys[a->n_keys].fpr);
			a->keys[a->n_keys].file = i;
			a->keys[a->n_keys].off = k->offset;
			a->keys[a->n_keys].end = k->end;
			a->n_keys++;
			ksp_pgp_key_free(k);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* A '#' line: the repair plan of 'ksp health --plan-csv', or a comment */
static int csv_plan_line(struct csv_add *a, const char *p, size_t l, size_t line)
{
	struct ksp_repair_pair pair;
	int pr = ksp_party_repair_parse(p, l, &pair);

	if (pr < 0) {
		struct ksp_csv_row brow = { .line = line };
		report_row(&brow, KSP_CSV_BAD, a->row_cb, a->cb_data,
			   "%s:%zu: a '# certify:' line that is not 'SIGNER-FINGERPRINT certifies TARGET-FINGERPRINT'; fix it or write the list again with 'ksp health --plan-csv'",
			   a->source, line);
		a->missing++;
	} else if (pr > 0) {
		struct ksp_repair_pair *np = realloc(a->plan, (a->n_plan + 1) * sizeof(*np));
		if (np == NULL)
			return -ENOMEM;
		a->plan = np;
		a->plan[a->n_plan++] = pair;
	}
	return 0;
}

/* The first row: true when it is a header naming the columns (then read) */
static bool csv_header(struct csv_add *a, char *const *f, int nf)
{
	bool header = false;
	int c;

	for (c = 0; c < nf && c < 16; c++)
		if (strcasecmp(f[c], "fingerprint") == 0 || strcasecmp(f[c], "fpr") == 0)
			header = true;
	if (!header)
		return false;
	a->col_name = a->col_email = a->col_fpr = -1;
	for (c = 0; c < nf && c < 16; c++) {
		if (strcasecmp(f[c], "fingerprint") == 0 || strcasecmp(f[c], "fpr") == 0)
			a->col_fpr = c;
		else if (strcasecmp(f[c], "email") == 0 || strcasecmp(f[c], "e-mail") == 0 ||
			 strcasecmp(f[c], "mail") == 0 || strcasecmp(f[c], "address") == 0)
			a->col_email = c;
		else if (strcasecmp(f[c], "name") == 0)
			a->col_name = c;
	}
	return true;
}

/* A row whose key is in a key file: selected, and its name and address
 * checked against the key's user IDs */
static void csv_key_found(struct csv_add *a, struct ksp_csv_row *row, const struct found *hit, const char *name,
			  const char *email)
{
	size_t dlen;
	const uint8_t *d = ksp_pgp_reader_data(a->rd[hit->file], &dlen);
	bool ok = hit->end <= dlen && hit->off < hit->end;

	if (ok)
		strbuf_add(&a->sel, d + hit->off, hit->end - hit->off);
	/* the row's address and name against the key's user IDs: a row
	 * "Mallory, mallory@evil.example, <Jun's fingerprint>" adds Jun's
	 * key, and says so */
	bool addr_ok = !ok || row->email == NULL || row->email[0] == '\0' ||
		       contains_ci(d + hit->off, hit->end - hit->off, row->email);
	bool name_ok = !ok || row->name == NULL || row->name[0] == '\0' ||
		       contains_ci(d + hit->off, hit->end - hit->off, row->name);
	if (!addr_ok || !name_ok)
		report_row(row, KSP_CSV_MISMATCH, a->row_cb, a->cb_data,
			   "%s:%zu: key %s found, but no user ID of it has the row's %s%s%s (%s <%s>): is it the key of the person who registered? (added, if it passes the checks)",
			   a->source, row->line, row->fpr, !addr_ok ? "address" : "", !addr_ok && !name_ok ? " or " : "",
			   !name_ok ? "name" : "", name, email);
	else if (a->row_cb) {
		row->status = KSP_CSV_FOUND;
		snprintf(row->message, sizeof(row->message), "%s:%zu: key found", a->source, row->line);
		a->row_cb(a->cb_data, row);
	}
}

/* A row with a well-formed fingerprint seen for the first time: found in
 * the key files, to be fetched, or missing */
static int csv_new_fpr(struct csv_add *a, struct ksp_csv_row *row, const char *name, const char *email)
{
	char (*ns)[65] = realloc(a->seen, (a->n_seen + 1) * sizeof(*ns));
	size_t *nl = ns ? realloc(a->seen_line, (a->n_seen + 1) * sizeof(*nl)) : NULL;
	const struct found *hit = NULL;

	if (ns)
		a->seen = ns;
	if (nl == NULL)
		return -ENOMEM;
	a->seen_line = nl;
	memcpy(a->seen[a->n_seen], row->fpr, 65);
	a->seen_line[a->n_seen++] = row->line;
	for (size_t i = 0; i < a->n_keys && !hit; i++)
		if (strcmp(a->keys[i].fpr, row->fpr) == 0)
			hit = &a->keys[i];
	if (hit) {
		csv_key_found(a, row, hit, name, email);
	} else if (a->party->keyserver) {
		/* fetched from the keyserver after the rows */
		void *nf = realloc(a->fetch, (a->n_fetch + 1) * sizeof(*a->fetch));
		if (nf == NULL)
			return -ENOMEM;
		a->fetch = nf;
		memcpy(a->fetch[a->n_fetch++], row->fpr, 65);
		row->status = KSP_CSV_FOUND;
		if (a->row_cb) {
			snprintf(row->message, sizeof(row->message), "%s:%zu: key to be fetched from %s", a->source,
				 row->line, a->party->keyserver);
			a->row_cb(a->cb_data, row);
		}
	} else {
		report_row(row, KSP_CSV_MISSING, a->row_cb, a->cb_data,
			   "%s:%zu: no key %s in the key files given; ask %s <%s> to send it", a->source, row->line,
			   row->fpr, name, email);
		a->missing++;
	}
	return 0;
}

/* One data row (its fields @f, freed by the caller) */
static int csv_row(struct csv_add *a, char *const *f, int nf, size_t line)
{
	struct ksp_csv_row row = { .line = line };
	char name[96], email[96];
	size_t dup = 0;

	row.name = a->col_name >= 0 && a->col_name < nf ? f[a->col_name] : NULL;
	row.email = a->col_email >= 0 && a->col_email < nf ? f[a->col_email] : NULL;
	plain(row.name, name, sizeof(name));
	plain(row.email, email, sizeof(email));
	plain(a->col_fpr < nf ? f[a->col_fpr] : "", row.raw_fpr, sizeof(row.raw_fpr));
	if (a->col_fpr >= nf || f[a->col_fpr][0] == '\0') {
		report_row(&row, KSP_CSV_MISSING, a->row_cb, a->cb_data,
			   "%s:%zu: %s <%s> gave no fingerprint; ask them for their key's fingerprint and the key",
			   a->source, line, name, email);
		a->missing++;
		return 0;
	}
	if (fpr_normalize(f[a->col_fpr], row.fpr) < 0) {
		report_row(&row, KSP_CSV_BAD, a->row_cb, a->cb_data,
			   "%s:%zu: '%s' is not a full fingerprint (40 or 64 hex digits); ask %s <%s> for it",
			   a->source, line, row.raw_fpr, name, email);
		row.fpr[0] = '\0';
		a->missing++;
		return 0;
	}
	for (size_t i = 0; i < a->n_seen; i++)
		if (strcmp(a->seen[i], row.fpr) == 0)
			dup = a->seen_line[i];
	if (dup) {
		row.other_line = dup;
		report_row(&row, KSP_CSV_DUPLICATE, a->row_cb, a->cb_data,
			   "%s:%zu: %s <%s> registered again (the key of line %zu); counted once", a->source, line, name,
			   email, dup);
		return 0;
	}
	return csv_new_fpr(a, &row, name, email);
}

/* The rows of @csv, one by one */
static int csv_rows(struct csv_add *a, const char *p, size_t csv_len)
{
	const char *end = p + csv_len;
	size_t line = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *f[16] = { 0 };
		int nf, r = 0;

		line++;
		if (l > 0 && p[l - 1] == '\r')
			l--;
		if (line == 1 && l >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) { /* a BOM */
			p += 3;
			l -= 3;
		}
		const char *rec = p;
		p = nl ? nl + 1 : end;
		if (l > 0 && rec[0] == '#') {
			r = csv_plan_line(a, rec, l, line);
			if (r < 0)
				return r;
			continue;
		}
		if (l == 0 || strspn(rec, " \t,") >= l)
			continue;
		nf = split_record(rec, l, f, 16);
		if (nf == -ENOMEM)
			return -ENOMEM;
		if (nf < 0) {
			struct ksp_csv_row row = { .line = line };
			report_row(&row, KSP_CSV_BAD, a->row_cb, a->cb_data,
				   "%s:%zu: an unterminated quoted field; fix the CSV", a->source, line);
			a->missing++;
			continue;
		}
		if (a->first) {
			a->first = false;
			if (!csv_header(a, f, nf))
				r = csv_row(a, f, nf, line);
		} else {
			r = csv_row(a, f, nf, line);
		}
		for (int c = 0; c < nf && c < 16; c++)
			free(f[c]);
		if (r < 0)
			return r;
	}
	return 0;
}

KSP_EXPORT int ksp_party_add_csv(struct ksp_party *party, const void *csv, size_t csv_len, const char *csv_source,
				 const void *const *key_data, const size_t *key_len, const char *const *key_source,
				 size_t n_key_files, unsigned int flags,
				 void (*cb)(void *cb_data, const struct ksp_key_check *check),
				 void (*row_cb)(void *cb_data, const struct ksp_csv_row *row), void *cb_data)
{
	struct csv_add a = { .party = party, .row_cb = row_cb, .cb_data = cb_data, .col_name = 0, .col_email = 1,
			     .col_fpr = 2, .first = true };
	int r, n = 0;
	bool in_txn = false;

	if (party == NULL || (csv == NULL && csv_len > 0) || (n_key_files > 0 && (key_data == NULL || key_len == NULL)))
		return -EINVAL;
	ksp_clear_error(party->ctx);
	a.source = csv_source ? csv_source : "<csv>";
	strbuf_init(&a.sel);
	r = ksp_party_require_open(party);
	if (r < 0)
		return r;
	r = csv_index_keys(&a, key_data, key_len, key_source, n_key_files);
	if (r < 0)
		goto out;
	r = csv_rows(&a, csv, csv_len);
	if (r < 0)
		goto out;
	if (a.n_fetch) {
		struct ksp_party_fetch ft = { .party = party, .url = party->keyserver, .cb = cb, .cb_data = cb_data };
		char *kd = NULL;
		size_t kl = 0;
		r = ksp_party_keyserver_fetch(&ft, (const char (*)[65])a.fetch, a.n_fetch, &kd, &kl);
		if (r < 0)
			goto out;
		if (kd)
			strbuf_add(&a.sel, kd, kl);
		gpgme_free(kd);
	}
	if (!strbuf_ok(&a.sel)) {
		r = -ENOMEM;
		goto out;
	}
	if (a.sel.len == 0 && a.n_fetch) {
		r = 0; /* each key asked for was reported as not received */
		goto out;
	}
	if (a.sel.len == 0) {
		ksp_set_error(party->ctx, "%s: no row's key is in the key files given%s; give the keyring or key files beside the CSV",
			      a.source, a.missing ? " (see the rows above)" : "");
		r = -ENODATA;
		goto out;
	}
	r = ksp_store_begin(party->store);
	if (r < 0)
		goto out;
	in_txn = true;
	n = ksp_party_add_data(party, a.sel.buf, a.sel.len, a.source, flags, cb, cb_data);
	if (n < 0) {
		r = n;
		goto out;
	}
	if (n > 0 && !(flags & KSP_ADD_DRY_RUN)) {
		r = ksp_party_event(party, "add", a.source);
		if (r < 0)
			goto out;
	}
	if (!(flags & KSP_ADD_DRY_RUN)) {
		r = ksp_party_repair_store(party, a.plan, a.n_plan);
		if (r < 0)
			goto out;
	}
	in_txn = false;
	r = ksp_store_commit(party->store);
	if (r == 0)
		r = n;
out:
	if (in_txn)
		ksp_store_rollback(party->store);
	csv_add_free(&a);
	return r;
}
